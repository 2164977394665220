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
#include <cmath>

#include <unistd.h>

// Resources of a static library must be initialised by name, from the global namespace.
static void initFontResources()
{
    Q_INIT_RESOURCE(slicescope_fonts);
}

namespace slicescope {

namespace {

// The worker and placement-group palettes, chosen by measure (OKLab distances, dE; the rule and
// the figures are in docs/design.md section 1, and tst_look checks them):
// - workers 0 to 7 stay at least 0.08 apart in normal vision and under deuteranopia and
//   protanopia (Machado 2009, full severity); all 16 stay at least 0.06 apart in normal vision;
// - every colour is at least 0.10 from each status colour of both themes (so no worker or group
//   reads as ready, reserved, degraded, provisioning or missing) and 0.08 from the free, absent and
//   unknown chip greys, and none is a pure red: red means a dead host.
// Workers cycle through the 16, so worker 0 is always the same colour; past 16 the chip labels
// (w0, w1, ...) tell hosts apart and the legend says the colours repeat.
constexpr std::array<QRgb, 16> kWorkerPalette = {
    0xffacacf8,
    0xffc26d03,
    0xffc28a69,
    0xff6f4978,
    0xffae7097,
    0xff6cbcb4,
    0xffdbdf84,
    0xffc17bcf,
    0xffa0aa74,
    0xff8aceb4,
    0xff95d685,
    0xffd7759c,
    0xff7d845e,
    0xfffbbed1,
    0xffae8c1a,
    0xff926751,
};

// Placement groups (keyed by a stable hash of the id): 12 colours at least 0.07 apart in normal
// vision and 0.04 under deuteranopia and protanopia, 0.10 from the status colours and from the
// free-chip grey that unheld chips wear in the bundle mode.
constexpr std::array<QRgb, 12> kGroupPalette = {
    0xff195e9e,
    0xfffb8459,
    0xff92a110,
    0xff9667bd,
    0xffcd9183,
    0xffaec331,
    0xffe678c3,
    0xff07a8ca,
    0xff5c7942,
    0xff90681d,
    0xff7b4173,
    0xff4cbbe8,
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
    case ColorMode::Activity: return QStringLiteral("activity");
    }
    Q_UNREACHABLE();
}

std::optional<ColorMode> colorModeFromText(QStringView text)
{
    for (ColorMode m : {ColorMode::WorkerId, ColorMode::Bundle, ColorMode::State, ColorMode::Activity})
        if (text.compare(toText(m), Qt::CaseInsensitive) == 0)
            return m;
    return std::nullopt;
}

QString toText(ActivityMetric metric)
{
    return metric == ActivityMetric::DutyCycle ? QStringLiteral("duty") : QStringLiteral("hbm");
}

std::optional<ActivityMetric> activityMetricFromText(QStringView text)
{
    for (ActivityMetric m : {ActivityMetric::DutyCycle, ActivityMetric::HbmUsed})
        if (text.compare(toText(m), Qt::CaseInsensitive) == 0)
            return m;
    return std::nullopt;
}

QString activityMetricLabel(ActivityMetric metric)
{
    return metric == ActivityMetric::DutyCycle ? QStringLiteral("duty cycle") : QStringLiteral("HBM used");
}

namespace {

// The activity ramp's control points in OKLab (value, L, a, b), our own: lightness climbs almost
// linearly with the value (0.27 to 0.93, about 0.66 per unit on every segment) while the hue turns
// from blue through teal and green to yellow. The whole ramp lies inside sRGB (checked at every
// step), so nothing is clipped along the way; the clamp below only guards rounding.
struct LabPoint {
    double at, l, a, b;
};
constexpr std::array<LabPoint, 4> kActivityRamp = {{
    {0.00, 0.27, 0.02, -0.14},
    {0.35, 0.50, -0.06, -0.07},
    {0.70, 0.72, -0.13, 0.07},
    {1.00, 0.93, -0.04, 0.17},
}};

double encodeSrgb(double linear)
{
    const double x = std::clamp(linear, 0.0, 1.0);
    return x <= 0.0031308 ? 12.92 * x : 1.055 * std::pow(x, 1 / 2.4) - 0.055;
}

// OKLab to sRGB (Björn Ottosson's published matrices).
QColor fromOklab(double L, double a, double b)
{
    const double l = std::pow(L + 0.3963377774 * a + 0.2158037573 * b, 3);
    const double m = std::pow(L - 0.1055613458 * a - 0.0638541728 * b, 3);
    const double s = std::pow(L - 0.0894841775 * a - 1.2914855480 * b, 3);
    return QColor::fromRgbF(float(encodeSrgb(4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s)),
                            float(encodeSrgb(-1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s)),
                            float(encodeSrgb(-0.0041960863 * l - 0.7034186147 * m + 1.7076147010 * s)));
}

const std::array<QRgb, kActivitySteps> &activityTable()
{
    static const std::array<QRgb, kActivitySteps> table = [] {
        std::array<QRgb, kActivitySteps> t{};
        for (int i = 0; i < kActivitySteps; ++i) {
            const double v = double(i) / (kActivitySteps - 1);
            size_t k = 0;
            while (k + 2 < kActivityRamp.size() && v > kActivityRamp[k + 1].at)
                ++k;
            const LabPoint &p = kActivityRamp[k], &q = kActivityRamp[k + 1];
            const double u = std::clamp((v - p.at) / (q.at - p.at), 0.0, 1.0);
            t[size_t(i)] = fromOklab(p.l + (q.l - p.l) * u, p.a + (q.a - p.a) * u, p.b + (q.b - p.b) * u).rgba();
        }
        return t;
    }();
    return table;
}

} // namespace

int activityStep(double fraction)
{
    if (std::isnan(fraction))
        return -1;
    return int(std::lround(std::clamp(fraction, 0.0, 1.0) * (kActivitySteps - 1)));
}

QColor activityStepColor(int step)
{
    return QColor::fromRgb(activityTable()[size_t(std::clamp(step, 0, kActivitySteps - 1))]);
}

QColor activityColor(double fraction)
{
    const int step = activityStep(fraction);
    return step < 0 ? QColor() : activityStepColor(step);
}

double activityFraction(const ChipActivity &activity, ActivityMetric metric)
{
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    if (!activity.reports())
        return nan;
    if (metric == ActivityMetric::DutyCycle)
        return activity.hasDutyCycle() ? std::clamp(double(activity.dutyCycle) / 100.0, 0.0, 1.0) : nan;
    if (std::isnan(activity.hbmUsedBytes) || std::isnan(activity.hbmTotalBytes) || activity.hbmTotalBytes <= 0)
        return nan;
    return std::clamp(activity.hbmUsedBytes / activity.hbmTotalBytes, 0.0, 1.0);
}

ActivityLook activityLook(const ClusterSnapshot &snapshot, int sliceIndex, int hostIndex, int chipIndex, ActivityMetric metric, const Theme &theme)
{
    ActivityLook look;
    const Host *host = sliceIndex >= 0 && sliceIndex < snapshot.slices.size() && hostIndex >= 0 && hostIndex < snapshot.slices[sliceIndex].hosts.size()
                           ? &snapshot.slices[sliceIndex].hosts[hostIndex]
                           : nullptr;
    if (host && host->state != HostState::Alive) {
        look.color = theme.absentChip; // a dead, pending or missing host keeps its look
        return look;
    }
    const ChipActivity *a = snapshot.activity ? snapshot.activity->chip(sliceIndex, hostIndex, chipIndex) : nullptr;
    look.fraction = a ? activityFraction(*a, metric) : std::numeric_limits<double>::quiet_NaN();
    if (std::isnan(look.fraction)) {
        look.color = theme.unknownChip;
        look.hatched = true;
    } else {
        look.color = activityColor(look.fraction);
    }
    return look;
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
    // Light boxes with dark text; the dark theme has its own (Theme::dark()).
    t.info = {QColor(0xe8eef7), QColor(0x1d2a3a), QColor(0x9fb3cf)};
    t.warning = {QColor(0xfff6dc), QColor(0x3d3000), QColor(0xd9b74a)};
    t.error = {QColor(0xfbe4e4), QColor(0x4a1010), QColor(0xd98080)};
    t.success = {QColor(0xe3f4e6), QColor(0x12391b), QColor(0x7bbf88)};
    t.unknownChip = QColor(0xc3c7cd);
    t.unknownHatch = QColor(0x6e7682);
    t.idleOutline = QColor(0xd1168a); // magenta: on no part of the activity scale, nor a state colour
    t.idleHalo = QColor(0xffffff);
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
    // Message bars on dark panels: a dark tint of each kind's hue, light text, a brighter border.
    t.info = {QColor(0x1f2a3a), QColor(0xd6e2f5), QColor(0x3d5478)};
    t.warning = {QColor(0x3a3016), QColor(0xf5e3a8), QColor(0x7a6424)};
    t.error = {QColor(0x3d1f22), QColor(0xf7c9cc), QColor(0x8a3a40)};
    t.success = {QColor(0x1d3526), QColor(0xc8efd6), QColor(0x2f6b45)};
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
    t.unknownChip = QColor(0x6b7380);
    t.unknownHatch = QColor(0xc4cad2);
    t.idleOutline = QColor(0xff5cc8);
    t.idleHalo = QColor(0x0b0d10);
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

QColor stateTextColor(QStringView state, const Theme &theme)
{
    for (SliceStatus s : {SliceStatus::Ready, SliceStatus::Reserved, SliceStatus::Degraded, SliceStatus::Provisioning})
        if (state.compare(toText(s), Qt::CaseInsensitive) == 0)
            return sliceStatusColor(s, theme);
    for (HostState s : {HostState::Alive, HostState::Dead, HostState::Pending, HostState::Missing})
        if (state.compare(toText(s), Qt::CaseInsensitive) == 0)
            return hostStateColor(s, theme);
    // Ray's placement group states (PENDING is a host state's spelling too, above).
    if (state.compare(QLatin1String("CREATED"), Qt::CaseInsensitive) == 0)
        return theme.ready;
    if (state.compare(QLatin1String("PREPARED"), Qt::CaseInsensitive) == 0 || state.compare(QLatin1String("RESCHEDULING"), Qt::CaseInsensitive) == 0)
        return theme.provisioning;
    return {};
}

QColor alertSeverityColor(AlertSeverity severity, const Theme &theme)
{
    // The status colours an operator already reads: red as a degraded slice, amber as one still
    // provisioning, and info in the reserved blue, which says "look" without saying "broken".
    switch (severity) {
    case AlertSeverity::Critical: return theme.degraded;
    case AlertSeverity::Warning: return theme.provisioning;
    case AlertSeverity::Info: return theme.reserved;
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

QColor chipColor(const ClusterSnapshot &snapshot, const Host &host, int chipIndex, ColorMode mode, const Theme &theme, ActivityMetric metric)
{
    if (host.state == HostState::Missing && mode != ColorMode::State)
        return theme.absentChip;
    switch (mode) {
    case ColorMode::Activity:
        // Which slice and position the host has: the activity table is indexed by them.
        for (int s = 0; s < snapshot.slices.size(); ++s) {
            const QList<Host> &hosts = snapshot.slices[s].hosts;
            if (!hosts.isEmpty() && &host >= hosts.constData() && &host < hosts.constData() + hosts.size())
                return activityLook(snapshot, s, int(&host - hosts.constData()), chipIndex, metric, theme).color;
        }
        return host.state == HostState::Alive ? theme.unknownChip : theme.absentChip;
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

QList<LegendEntry> legendFor(const ClusterSnapshot &snapshot, const Slice &slice, ColorMode mode, const Theme &theme, ActivityMetric metric)
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
            const QString name = snapshot.groupLabel(g);
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
            // "head reserved for llm-train (5561...)", never "head claimed by head of llm-train".
            const PlacementGroup *partner = snapshot.headPartner(g);
            entries.append({theme.selection,
                            partner ? QStringLiteral("head reserved for %1 (%2)").arg(partner->name, g.id.left(PlacementGroup::kDisplayIdChars))
                                    : QStringLiteral("head held by %1").arg(snapshot.groupLabel(g)),
                            true});
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
    case ColorMode::Activity: {
        const int sliceIndex = !snapshot.slices.isEmpty() && &slice >= snapshot.slices.constData()
                                       && &slice < snapshot.slices.constData() + snapshot.slices.size()
                                   ? int(&slice - snapshot.slices.constData())
                                   : snapshot.sliceIndex(slice.name);
        int chips = 0, known = 0, unknown = 0, notAlive = 0;
        for (int h = 0; h < slice.hosts.size(); ++h)
            for (int c = 0; c < slice.hosts[h].chips.size(); ++c) {
                ++chips;
                const ActivityLook look = activityLook(snapshot, sliceIndex, h, c, metric, theme);
                if (slice.hosts[h].state != HostState::Alive)
                    ++notAlive;
                else if (look.hatched)
                    ++unknown;
                else
                    ++known;
            }
        entries.append({QColor(), snapshot.activity ? QStringLiteral("%1 of %2 chips report %3").arg(known).arg(chips).arg(activityMetricLabel(metric))
                                                    : QStringLiteral("no activity source: every chip unknown")});
        if (unknown)
            entries.append({theme.unknownChip, QStringLiteral("unknown · %1 chip%2").arg(unknown).arg(unknown == 1 ? QString() : QStringLiteral("s")), false, true});
        if (notAlive)
            entries.append({theme.absentChip, QStringLiteral("host not alive · %1 chips").arg(notAlive)});
        return entries;
    }
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
