// SPDX-License-Identifier: GPL-3.0-or-later
#include "look.h"

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFontDatabase>
#include <QPalette>
#include <QSet>
#include <QStyleFactory>
#include <QWidget>

#include <algorithm>
#include <array>

#include <unistd.h>

// Resources of a static library must be initialised by name, from the global namespace.
static void initFontResources()
{
    Q_INIT_RESOURCE(slicescope_fonts);
}

namespace slicescope {

namespace {

// A qualitative palette of 16 well-separated hues, light enough for black outlines and dark
// enough for white text, with no pure red: red means a dead host. Workers cycle through it, so worker 0 is always the same blue.
constexpr std::array<QRgb, 16> kWorkerPalette = {
    0xff4e79a7,
    0xfff28e2b,
    0xff59a14f,
    0xff6f4e7c,
    0xffb07aa1,
    0xff76b7b2,
    0xffedc948,
    0xffff9da7,
    0xff9c755f,
    0xff86bcb6,
    0xff8cd17d,
    0xffd37295,
    0xff499894,
    0xfffabfd2,
    0xffb6992d,
    0xff79706e,
};

// Placement groups: saturated hues distinct from the free-chip neutral and from the reds that
// mean "dead" in the state colours.
constexpr std::array<QRgb, 12> kGroupPalette = {
    0xff1f77b4,
    0xffff7f0e,
    0xff2ca02c,
    0xff9467bd,
    0xff17becf,
    0xffbcbd22,
    0xffe377c2,
    0xff5c6bc0,
    0xff637939,
    0xff8c6d31,
    0xff7b4173,
    0xff6baed6,
};

// FNV-1a: a stable hash (QHash's is seeded per process and would change colours run to run).
quint32 stableHash(QStringView text)
{
    quint32 h = 2166136261u;
    for (QChar c : text) {
        h ^= c.unicode();
        h *= 16777619u;
    }
    return h;
}

} // namespace

QString toText(ColorMode mode)
{
    switch (mode) {
    case ColorMode::WorkerId: return QStringLiteral("worker");
    case ColorMode::Bundle: return QStringLiteral("bundle");
    case ColorMode::State: return QStringLiteral("state");
    }
    Q_UNREACHABLE();
}

std::optional<ColorMode> colorModeFromText(QStringView text)
{
    for (ColorMode m : {ColorMode::WorkerId, ColorMode::Bundle, ColorMode::State})
        if (text.compare(toText(m), Qt::CaseInsensitive) == 0)
            return m;
    return std::nullopt;
}

Theme Theme::light()
{
    Theme t;
    t.isDark = false;
    t.window = QColor(0xf4f5f7);
    t.panel = QColor(0xffffff);
    t.text = QColor(0x1d232b);
    t.mutedText = QColor(0x5f6b7a);
    t.border = QColor(0xc9ced6);
    t.freeChip = QColor(0xd9dde3);
    t.absentChip = QColor(0xb0b6bf);
    t.hostOutline = QColor(0x2b3440);
    t.iciLink = QColor(0x8a94a3);
    t.wrapLink = QColor(0xc2410c);
    t.selection = QColor(0x0b63ce);
    t.hover = QColor(0xf59e0b);
    t.alive = QColor(0x2e9d57);
    t.dead = QColor(0xd03a3a);
    t.pending = QColor(0xe0a21a);
    t.missing = QColor(0x8c96a3);
    t.ready = QColor(0x2e9d57);
    t.reserved = QColor(0x3f6fd8);
    t.degraded = QColor(0xd03a3a);
    t.provisioning = QColor(0xe0a21a);
    // Light boxes with dark text: readable on the light and the dark window alike, so the dark
    // theme keeps them.
    t.info = {QColor(0xe8eef7), QColor(0x1d2a3a), QColor(0x9fb3cf)};
    t.warning = {QColor(0xfff6dc), QColor(0x3d3000), QColor(0xd9b74a)};
    t.error = {QColor(0xfbe4e4), QColor(0x4a1010), QColor(0xd98080)};
    t.success = {QColor(0xe3f4e6), QColor(0x12391b), QColor(0x7bbf88)};
    return t;
}

Theme Theme::dark()
{
    Theme t = light();
    t.isDark = true;
    t.window = QColor(0x1b1f24);
    t.panel = QColor(0x23282f);
    t.text = QColor(0xe6e9ee);
    t.mutedText = QColor(0x9aa5b4);
    t.border = QColor(0x3a424d);
    t.freeChip = QColor(0x4a525d);
    t.absentChip = QColor(0x5b6470);
    t.hostOutline = QColor(0xdfe4ea);
    t.iciLink = QColor(0x7b8594);
    t.wrapLink = QColor(0xfb923c);
    t.selection = QColor(0x5aa2ff);
    t.hover = QColor(0xfbbf24);
    t.alive = QColor(0x3fbf6f);
    t.dead = QColor(0xf05252);
    t.pending = QColor(0xf2b632);
    t.missing = QColor(0x8c96a3);
    t.ready = QColor(0x3fbf6f);
    t.reserved = QColor(0x6d95f0);
    t.degraded = QColor(0xf05252);
    t.provisioning = QColor(0xf2b632);
    return t;
}

Theme Theme::named(QStringView name)
{
    return name.compare(QLatin1String("dark"), Qt::CaseInsensitive) == 0 ? dark() : light();
}

QColor mix(const QColor &a, const QColor &b, double t)
{
    return QColor::fromRgbF(float(a.redF() * (1 - t) + b.redF() * t), float(a.greenF() * (1 - t) + b.greenF() * t),
                            float(a.blueF() * (1 - t) + b.blueF() * t), float(a.alphaF() * (1 - t) + b.alphaF() * t));
}

QColor workerColor(int workerId)
{
    const int n = int(kWorkerPalette.size());
    return QColor::fromRgb(kWorkerPalette[size_t(((workerId % n) + n) % n)]);
}

QColor placementGroupColor(QStringView placementGroupId)
{
    return QColor::fromRgb(kGroupPalette[stableHash(placementGroupId) % kGroupPalette.size()]);
}

QColor hostStateColor(HostState state, const Theme &theme)
{
    switch (state) {
    case HostState::Alive: return theme.alive;
    case HostState::Dead: return theme.dead;
    case HostState::Pending: return theme.pending;
    case HostState::Missing: return theme.missing;
    }
    Q_UNREACHABLE();
}

QColor sliceStatusColor(SliceStatus status, const Theme &theme)
{
    switch (status) {
    case SliceStatus::Ready: return theme.ready;
    case SliceStatus::Reserved: return theme.reserved;
    case SliceStatus::Degraded: return theme.degraded;
    case SliceStatus::Provisioning: return theme.provisioning;
    }
    Q_UNREACHABLE();
}

namespace {
// Whether a host holds more than one bundle of placement group `pg`.
bool sharesHost(const Host &host, int pg)
{
    int first = -1;
    for (const ChipUse &c : host.chips)
        if (c.placementGroup == pg) {
            if (first < 0)
                first = c.bundleIndex;
            else if (c.bundleIndex != first)
                return true;
        }
    return false;
}
} // namespace

QColor chipColor(const ClusterSnapshot &snapshot, const Host &host, int chipIndex, ColorMode mode, const Theme &theme)
{
    if (host.state == HostState::Missing && mode != ColorMode::State)
        return theme.absentChip;
    switch (mode) {
    case ColorMode::WorkerId:
        return workerColor(host.workerId);
    case ColorMode::Bundle: {
        const int pg = chipIndex >= 0 && chipIndex < host.chips.size() ? host.chips[chipIndex].placementGroup : -1;
        if (pg >= 0) {
            const QColor base = placementGroupColor(snapshot.placementGroups[pg].id);
            // Bundles smaller than a host ({"TPU": 1} on 4-chip hosts): each of the group's bundles
            // on this host gets its own shade, so every chip shows which bundle holds it.
            if (!sharesHost(host, pg))
                return base;
            // The shade is the bundle's rank among this host's bundles of the group (Ray spreads
            // bundle i to worker i mod hosts, so the index itself repeats per host).
            const int mine = host.chips[chipIndex].bundleIndex;
            QList<int> ranks;
            for (const ChipUse &c : host.chips)
                if (c.placementGroup == pg && !ranks.contains(c.bundleIndex))
                    ranks.append(c.bundleIndex);
            std::sort(ranks.begin(), ranks.end());
            const int k = int(ranks.indexOf(mine)) % 4;
            return k == 0 ? base : k == 1 ? base.lighter(140)
                               : k == 2   ? base.darker(140)
                                          : base.lighter(175);
        }
        // A chip of a dead or pending host is not free for anyone: don't paint it as free.
        return host.state == HostState::Alive ? theme.freeChip : theme.absentChip;
    }
    case ColorMode::State:
        return hostStateColor(host.state, theme);
    }
    Q_UNREACHABLE();
}

QList<LegendEntry> legendFor(const ClusterSnapshot &snapshot, const Slice &slice, ColorMode mode, const Theme &theme)
{
    QList<LegendEntry> entries;
    bool anyMissing = false;
    for (const Host &h : slice.hosts)
        anyMissing = anyMissing || h.state == HostState::Missing;
    switch (mode) {
    case ColorMode::WorkerId: {
        constexpr int kShown = 16; // the palette repeats after 16 workers
        for (const Host &h : slice.hosts) {
            if (h.workerId >= kShown)
                break;
            if (h.state != HostState::Missing)
                entries.append({workerColor(h.workerId), QStringLiteral("worker %1").arg(h.workerId)});
        }
        if (slice.hosts.size() > kShown)
            entries.append({theme.mutedText, QStringLiteral("(colours repeat every %1 workers)").arg(kShown)});
        break;
    }
    case ColorMode::Bundle: {
        QList<int> groups;
        QList<int> counts;
        for (const Host &h : slice.hosts)
            for (const ChipUse &c : h.chips)
                if (c.placementGroup >= 0) {
                    const qsizetype at = groups.indexOf(c.placementGroup);
                    if (at < 0) {
                        groups.append(c.placementGroup);
                        counts.append(1);
                    } else {
                        ++counts[at];
                    }
                }
        for (qsizetype i = 0; i < groups.size(); ++i) {
            const PlacementGroup &g = snapshot.placementGroups[groups[i]];
            const QString name = g.displayLabel();
            QString text = QStringLiteral("%1 (%2) · %3 chips").arg(name, g.state).arg(counts[i]);
            QSet<int> bundles;
            bool shaded = false;
            for (const Host &h : slice.hosts) {
                shaded = shaded || sharesHost(h, groups[i]);
                for (const ChipUse &c : h.chips)
                    if (c.placementGroup == groups[i])
                        bundles.insert(c.bundleIndex);
            }
            if (shaded)
                text += QStringLiteral(" · %1 bundles").arg(bundles.size());
            entries.append({placementGroupColor(g.id), text});
        }
        int free = 0, unavailable = 0;
        for (const Host &h : slice.hosts)
            for (const ChipUse &c : h.chips)
                if (c.placementGroup < 0)
                    (h.state == HostState::Alive ? free : unavailable) += 1;
        entries.append({theme.freeChip, QStringLiteral("free · %1 chips").arg(free)});
        if (unavailable)
            entries.append({theme.absentChip, QStringLiteral("unusable: host not alive · %1 chips").arg(unavailable)});
        if (slice.headHeldBy >= 0) {
            const PlacementGroup &g = snapshot.placementGroups[slice.headHeldBy];
            entries.append({theme.selection, QStringLiteral("head claimed by %1").arg(g.displayLabel()), true});
        }
        break;
    }
    case ColorMode::State:
        for (HostState s : {HostState::Alive, HostState::Dead, HostState::Pending, HostState::Missing}) {
            int n = 0;
            for (const Host &h : slice.hosts)
                n += h.state == s;
            if (n)
                entries.append({hostStateColor(s, theme), QStringLiteral("%1 · %2 host%3").arg(toText(s).toLower()).arg(n).arg(n == 1 ? QString() : QStringLiteral("s")),
                                s == HostState::Missing});
        }
        return entries;
    }
    if (anyMissing)
        entries.append({theme.absentChip, QStringLiteral("missing host"), true});
    return entries;
}

void installUiFont(QApplication &app)
{
    initFontResources();
    static const bool loaded = [] {
        const int regular = QFontDatabase::addApplicationFont(QStringLiteral(":/fonts/DejaVuSans.ttf"));
        const int bold = QFontDatabase::addApplicationFont(QStringLiteral(":/fonts/DejaVuSans-Bold.ttf"));
        return regular >= 0 && bold >= 0;
    }();
    if (!loaded)
        qWarning("slicescope: the UI font resource did not load; text may differ from the goldens");
    QFont font(QStringLiteral("DejaVu Sans"));
    font.setPixelSize(12);
    font.setHintingPreference(QFont::PreferNoHinting);
    font.setStyleStrategy(QFont::PreferAntialias);
    app.setFont(font);
}

void applyLook(QApplication &app, const Theme &theme)
{
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    QPalette p;
    p.setColor(QPalette::Window, theme.window);
    p.setColor(QPalette::WindowText, theme.text);
    p.setColor(QPalette::Base, theme.panel);
    p.setColor(QPalette::AlternateBase, theme.isDark ? theme.window.lighter(115) : theme.window);
    p.setColor(QPalette::Text, theme.text);
    p.setColor(QPalette::Button, theme.isDark ? theme.panel : theme.window);
    p.setColor(QPalette::ButtonText, theme.text);
    p.setColor(QPalette::Highlight, theme.selection);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::ToolTipBase, theme.panel);
    p.setColor(QPalette::ToolTipText, theme.text);
    p.setColor(QPalette::PlaceholderText, theme.mutedText);
    p.setColor(QPalette::Mid, theme.border);
    p.setColor(QPalette::Dark, theme.border.darker(130));
    p.setColor(QPalette::Light, theme.isDark ? theme.panel.lighter(130) : QColor(Qt::white));
    p.setColor(QPalette::Disabled, QPalette::Text, theme.mutedText);
    p.setColor(QPalette::Disabled, QPalette::WindowText, theme.mutedText);
    p.setColor(QPalette::Disabled, QPalette::ButtonText, theme.mutedText);
    QApplication::setPalette(p);
    // Existing windows keep the palette they resolved at creation: hand it to them too, so a
    // theme switch (or a screenshot in the dark theme) reaches every child.
    for (QWidget *w : QApplication::topLevelWidgets())
        w->setPalette(p);
    installUiFont(app);
    for (Qt::UIEffect effect : {Qt::UI_AnimateMenu, Qt::UI_FadeMenu, Qt::UI_AnimateCombo, Qt::UI_AnimateTooltip,
                                Qt::UI_FadeTooltip, Qt::UI_AnimateToolBox})
        QApplication::setEffectEnabled(effect, false);
}

void pinRenderingEnvironment(bool offscreen)
{
    // Qt warns on stderr when XDG_RUNTIME_DIR is unset (CI, containers); give it a private one.
    if (qEnvironmentVariableIsEmpty("XDG_RUNTIME_DIR")) {
        const QString dir = QDir::tempPath() + QStringLiteral("/slicescope-runtime-") + QString::number(getuid());
        if (QDir().mkpath(dir)) {
            QFile::setPermissions(dir, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
            qputenv("XDG_RUNTIME_DIR", QFile::encodeName(dir));
        }
    }
    if (offscreen && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    qputenv("QT_ENABLE_HIGHDPI_SCALING", "0");
    qputenv("QT_SCALE_FACTOR", "1");
    qputenv("QT_FONT_DPI", "96");
    qputenv("QT_HASH_SEED", "0");
}

} // namespace slicescope
