// SPDX-License-Identifier: GPL-3.0-or-later
#include "fleetoverview.h"

#include "fleetstats.h"
#include "naturalsort_p.h" // the model's locale-free order, so groups sort as the tables do

#include <QCoreApplication>
#include <QFontInfo>
#include <QFontMetrics>
#include <QHash>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSet>
#include <QStyle>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace slicescope {

namespace {

// Black or white, whichever reads better on `background` (badges take the theme's status colours).
QColor textOn(const QColor &background)
{
    const double luminance = 0.2126 * background.redF() + 0.7152 * background.greenF() + 0.0722 * background.blueF();
    return luminance > 0.55 ? QColor(0x1d, 0x23, 0x2b) : QColor(Qt::white);
}

// How bad a host state is, for the host strip when several hosts share one pixel: the worst shows.
int severity(HostState state)
{
    switch (state) {
    case HostState::Alive: return 0;
    case HostState::Pending: return 1;
    case HostState::Missing: return 2;
    case HostState::Dead: return 3;
    }
    Q_UNREACHABLE();
}

// Operators know placement groups by name; unnamed ones (a slice placement group's head groups)
// by the job that made them.
QString placementGroupLabel(const ClusterSnapshot &snap, int index)
{
    const PlacementGroup &pg = snap.placementGroups[index];
    if (!pg.name.isEmpty())
        return pg.name;
    if (!pg.creatorJobId.isEmpty())
        return QStringLiteral("job %1").arg(pg.creatorJobId);
    return QStringLiteral("group %1").arg(pg.id.left(8));
}

const QString kDot = QStringLiteral(" \u00b7 ");

// Legend swatches: colour boxes are squares; outlines (current, plan) are drawn tile-shaped.
enum class Swatch
{
    Box,
    Hatched,
    Outline,
    DashedOutline
};

int swatchWidth(Swatch style, int lineHeight)
{
    return style == Swatch::Outline || style == Swatch::DashedOutline ? lineHeight * 2 : lineHeight - 4;
}

// Font-derived sizes: everything scales with the application font, nothing is a fixed pixel size.
struct Metrics {
    int em = 13;
    int margin = 13, gap = 8, pad = 8, radius = 6;
    QFont base, bold, small, smallBold, badge, header, kpiValue, caption;
    int tileMinWidth = 208, tileHeight = 100;
    int lineName = 17, lineSmall = 15, barHeight = 7, cellHeight = 9;
    int headerHeight = 26;
    int cardWidth = 220, cardHeight = 80;

    explicit Metrics(const QFont &font)
    {
        base = font;
        em = std::max(9, QFontInfo(font).pixelSize());
        auto sized = [&](double factor, bool isBold) {
            QFont f = font;
            f.setPixelSize(std::max(8, int(std::lround(em * factor))));
            f.setBold(isBold);
            return f;
        };
        bold = sized(1.0, true);
        small = sized(0.85, false);
        smallBold = sized(0.85, true);
        badge = sized(0.78, true);
        header = sized(1.05, true);
        kpiValue = sized(1.5, true);
        caption = sized(0.78, true);
        margin = em;
        gap = std::max(6, int(em * 0.65));
        pad = std::max(6, int(em * 0.65));
        radius = std::max(4, em / 2);
        lineName = QFontMetrics(bold).height() + 2;
        lineSmall = QFontMetrics(small).height() + 1;
        barHeight = std::max(6, int(em * 0.55));
        cellHeight = std::max(7, int(em * 0.7));
        tileMinWidth = em * 17;
        // name, shape, bar, host strip, note
        tileHeight = 2 * pad + lineName + 4 * lineSmall + 2 * (gap / 2);
        headerHeight = QFontMetrics(header).height() + em / 2;
        cardWidth = em * 17;
        cardHeight = 2 * pad + lineName + barHeight + 3 * lineSmall + gap; // name, bar, counts (up to 2 lines), stranded
    }
};

// One slice with what its tile shows, computed once per snapshot (not per paint).
struct Entry {
    int slice = -1;
    int group = -1;
    SliceStatus status = SliceStatus::Ready;
    SliceUse use = SliceUse::Ready;
    int chips = 0, reserved = 0, down = 0, stranded = 0;
    QString shapeText;  // "4x4 · 4 hosts × 4 chips"
    QString note;       // the tile's last line
    QString noteSuffix; // kept when the note elides: " (+3 more)"
    QString holders;    // "llm-train (16 chips)", for the tooltip
    QString haystack;   // lower case: what the filter searches
};

struct Group {
    QString title;      // "v6e · ml/tpu-team/v6e-4x4"
    int rank = 0;
    QString workerGroup;
    QList<int> entries; // all of its slices, in name order
    int chips = 0, reserved = 0, ready = 0;
};

// The geometry shared by painting, hit-testing, tooltips and keyboard navigation. Content
// coordinates: y grows down from the top of the scrolled content; x as in the widget.
struct Layout {
    struct Tile {
        int entry;
        QRect rect;
    };
    struct Header {
        int group;
        QRect rect;
        int shown;
    };
    struct Kpi {
        QRect rect;
        QString value, caption, tooltip;
        QColor dot;
        bool alarm = false;
    };
    struct Card {
        QRect rect;
        int shape;
    };
    struct LegendItem {
        QRect rect;
        QString label;
        QColor color;
        Swatch style;
    };

    int height = 0;
    QRect band;                 // the summary panel
    QRect fleetCaption, shapeCaption;
    QList<Kpi> kpis;
    QList<Card> cards;
    QList<LegendItem> legend;
    QList<Header> headers;
    QList<Tile> tiles;          // display order; rect.top() never decreases
    QRect message;              // "no slice matches" and friends
};

} // namespace

struct FleetOverview::Private {
    FleetOverview *q;
    SnapshotPtr snapshot;
    Theme theme = Theme::light();
    QString filterText;
    QStringList filterTerms;
    QList<SliceStatus> statusFilter;
    QStringList highlighted;
    QSet<QString> highlightedSet; // what painting asks, tile by tile
    QString current;
    QString hovered;
    FleetStats stats;
    QList<Entry> entries;
    QList<Group> groups;
    QList<int> shown;               // entries passing the filter, in display order
    QHash<QString, int> tileOfSlice; // slice name -> index in layout.tiles
    Layout layout;
    Metrics metrics{QFont()};
    QScrollBar *scrollBar = nullptr;
    bool modelDirty = true, filterDirty = true, layoutDirty = true;

    explicit Private(FleetOverview *owner)
        : q(owner)
    { }

    const Slice &sliceOf(const Entry &e) const { return snapshot->slices[e.slice]; }

    void rebuildEntries();
    void applyFilter();
    Layout computeLayout(int width) const;
    void ensureLayout();
    void relayout();
    // isHidden(), not isVisible(): the geometry must hold before the widget is first shown.
    bool scrollable() const { return scrollBar && !scrollBar->isHidden(); }
    int scroll() const { return scrollable() ? scrollBar->value() : 0; }
    int viewportWidth() const;
    int tileAt(QPoint widgetPos) const;
    void ensureVisible(const QRect &contentRect);
    void setCurrent(const QString &name, bool scrollTo);
    void moveCurrent(int key);

    QString tooltipFor(const Entry &e) const;
    QString tooltipAt(QPoint widgetPos) const;

    void drawBand(QPainter &p, const QRect &exposed) const;
    void drawHeader(QPainter &p, const Layout::Header &h) const;
    void drawTile(QPainter &p, const Layout::Tile &t) const;
    void drawHostStrip(QPainter &p, const Slice &s, const QRect &r) const;
    void drawOccupancy(QPainter &p, const Entry &e, const QRect &r) const;
    void drawBadge(QPainter &p, const QString &text, const QColor &color, const QRect &r, Qt::Alignment align) const;
    void drawSwatch(QPainter &p, const QRect &r, const QColor &color, Swatch style) const;
};

// --- model -------------------------------------------------------------------------------------

void FleetOverview::Private::rebuildEntries()
{
    modelDirty = false;
    filterDirty = true;
    entries.clear();
    groups.clear();
    stats = snapshot ? fleetStats(*snapshot) : FleetStats{};
    if (!snapshot)
        return;
    const ClusterSnapshot &snap = *snapshot;
    QHash<QString, int> groupIndex;
    entries.reserve(snap.slices.size());
    for (int i = 0; i < snap.slices.size(); ++i) {
        const Slice &s = snap.slices[i];
        Entry e;
        e.slice = i;
        e.status = s.status();
        e.use = sliceUse(s);
        e.chips = sliceChips(s);
        e.reserved = std::clamp(s.reservedChips, 0, e.chips);
        e.stranded = strandedChips(s);
        for (const Host &h : s.hosts)
            if (h.state != HostState::Alive)
                e.down += std::max(0, int(h.chips.size()) - h.reservedChips());
        e.down = std::min(e.down, e.chips - e.reserved);

        const QString genName = s.generation ? s.generation->name : QStringLiteral("unknown generation");
        const QString topo = s.topology.chips() > 0 ? s.topology.toString() : QStringLiteral("topology unknown");
        const int hostCount = s.layout.isValid() ? s.layout.hostCount() : s.hostCount();
        e.shapeText = topo + kDot + (hostCount == 1 ? QStringLiteral("1 host") : QStringLiteral("%1 hosts").arg(hostCount));
        if (s.chipsPerHost > 0)
            e.shapeText += QStringLiteral(" \u00d7 %1 chips").arg(s.chipsPerHost);

        // Who holds the slice: placement groups in the order their chips come, then the head.
        QList<int> pgs;
        QList<int> chipCounts;
        for (const Host &h : s.hosts)
            for (const ChipUse &c : h.chips)
                if (c.placementGroup >= 0 && c.placementGroup < snap.placementGroups.size()) {
                    const qsizetype at = pgs.indexOf(c.placementGroup);
                    if (at < 0) {
                        pgs << c.placementGroup;
                        chipCounts << 1;
                    } else {
                        ++chipCounts[at];
                    }
                }
        QStringList holderNames, holderLines;
        for (int k = 0; k < pgs.size(); ++k) {
            holderNames << placementGroupLabel(snap, pgs[k]);
            holderLines << QStringLiteral("%1 (%2 chips)").arg(holderNames.last()).arg(chipCounts[k]);
        }
        // The head resource is named only when no chip is held: otherwise it is the same
        // reservation's step 1 and naming it again (usually unnamed) would only add noise.
        if (s.headHeldBy >= 0 && s.headHeldBy < snap.placementGroups.size() && !pgs.contains(s.headHeldBy)) {
            const QString head = placementGroupLabel(snap, s.headHeldBy);
            if (pgs.isEmpty())
                holderNames << head;
            holderLines << QStringLiteral("%1 (the head resource)").arg(head);
        }
        e.holders = holderLines.join(QStringLiteral(", "));

        switch (e.use) {
        case SliceUse::Ready:
            e.note = QStringLiteral("free for a slice placement group");
            break;
        case SliceUse::FullyReserved:
        case SliceUse::Claimed:
            e.note = (e.use == SliceUse::Claimed ? QStringLiteral("claimed by ") : QStringLiteral("held by "))
                     + (holderNames.isEmpty() ? QStringLiteral("?") : holderNames.join(QStringLiteral(", ")));
            break;
        case SliceUse::PartlyUsed:
            // Stranded first: it is the news, and the holder's name may be long.
            e.note = QStringLiteral("%1 chips stranded").arg(e.stranded) + kDot
                     + QStringLiteral("held by %1").arg(holderNames.join(QStringLiteral(", ")));
            break;
        case SliceUse::Provisioning: {
            // Every problem is a pending host here; the count says more than worker 0's pod phase.
            int pending = 0;
            for (const Host &h : s.hosts)
                pending += h.state == HostState::Pending;
            e.note = QStringLiteral("%1 of %2 hosts still starting").arg(pending).arg(s.hosts.size());
            break;
        }
        case SliceUse::Degraded:
            e.note = s.problems.isEmpty() ? toText(e.status) : s.problems.first();
            if (s.problems.size() > 1)
                e.noteSuffix = QStringLiteral(" (+%1 more)").arg(s.problems.size() - 1);
            break;
        }

        const QString groupName = s.workerGroup.isEmpty() ? QStringLiteral("no worker group") : s.workerGroup;
        const QString title = (s.generation ? s.generation->name : QStringLiteral("unknown generation")) + kDot + groupName;
        int g = groupIndex.value(title, -1);
        if (g < 0) {
            g = int(groups.size());
            groupIndex.insert(title, g);
            Group group;
            group.title = title;
            group.rank = tpu::generationOrder(s.generation);
            group.workerGroup = s.workerGroup;
            groups << group;
        }
        e.group = g;
        groups[g].entries << i;
        groups[g].chips += e.chips;
        groups[g].reserved += e.reserved;
        groups[g].ready += e.status == SliceStatus::Ready;

        QStringList words{s.name, genName, topo, genName + u' ' + topo, s.podType, groupName, toText(e.status), toText(e.use)};
        if (s.generation)
            words << s.generation->displayName;
        words << holderNames << s.problems;
        e.haystack = words.join(u'\n').toLower();
        entries << e;
    }
    // Generation display order, then worker group by name (slices without one last); the entries of
    // a group keep the snapshot's natural name order.
    QList<int> order(groups.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        const Group &ga = groups[a], &gb = groups[b];
        if (ga.rank != gb.rank)
            return ga.rank < gb.rank;
        if (ga.workerGroup.isEmpty() != gb.workerGroup.isEmpty())
            return gb.workerGroup.isEmpty();
        return naturalLess(ga.workerGroup, gb.workerGroup);
    });
    QList<Group> sorted;
    QList<int> newIndex(groups.size());
    for (int k = 0; k < order.size(); ++k) {
        newIndex[order[k]] = k;
        sorted << groups[order[k]];
    }
    groups = sorted;
    for (Entry &e : entries)
        e.group = newIndex[e.group];
}

void FleetOverview::Private::applyFilter()
{
    filterDirty = false;
    layoutDirty = true;
    shown.clear();
    for (const Group &g : std::as_const(groups))
        for (int i : g.entries) {
            const Entry &e = entries[i];
            if (!statusFilter.isEmpty() && !statusFilter.contains(e.status))
                continue;
            const bool matches = std::all_of(filterTerms.cbegin(), filterTerms.cend(),
                                             [&](const QString &term) { return e.haystack.contains(term); });
            if (matches)
                shown << i;
        }
}

// --- layout ------------------------------------------------------------------------------------

Layout FleetOverview::Private::computeLayout(int width) const
{
    const Metrics &m = metrics;
    Layout l;
    const int left = m.margin, right = std::max(left + m.em * 8, width - m.margin);
    const int inner = right - left;
    int y = m.margin;

    if (snapshot && !entries.isEmpty()) {
        // The summary band: fleet KPIs, one card per shape, a legend of the tile's colours.
        const int bandTop = y;
        const int bx = left + m.pad, bright = right - m.pad;
        y += m.pad;
        l.fleetCaption = QRect(bx, y, bright - bx, QFontMetrics(m.caption).height());
        y += l.fleetCaption.height() + m.gap / 2;
        const FleetCounts &t = stats.total;
        auto kpi = [&](const QString &value, const QString &caption, const QString &tooltip, const QColor &dot, bool alarm) {
            Layout::Kpi k{QRect(), value, caption, tooltip, dot, alarm};
            l.kpis << k;
        };
        kpi(QString::number(t.slices), QStringLiteral("slices"),
            QStringLiteral("TPU slices in this snapshot, of %1 shapes").arg(stats.shapes.size()), QColor(), false);
        kpi(QString::number(t.ready), QStringLiteral("ready"),
            QStringLiteral("Intact slices with nothing held: a slice placement group can take them now"), theme.ready, false);
        kpi(QStringLiteral("%1 / %2").arg(t.reservedChips).arg(t.chips), QStringLiteral("chips reserved"),
            QStringLiteral("Chips held by placement groups, of all chips the slices stand for"), theme.reserved, false);
        kpi(QString::number(t.availableChips), QStringLiteral("chips on ready slices"),
            QStringLiteral("Free chips a slice placement group can take: those of ready slices"), theme.ready, false);
        kpi(QString::number(t.strandedChips), QStringLiteral("chips stranded"),
            QStringLiteral("Free chips no slice placement group can take, because their slice is partly used (%1), "
                           "degraded (%2) or still provisioning (%3)")
                .arg(t.strandedPartlyUsed)
                .arg(t.strandedDegraded)
                .arg(t.strandedProvisioning),
            theme.degraded, t.strandedChips > 0);
        const QFontMetrics valueFm(m.kpiValue), captionFm(m.small);
        int x = bx;
        const int kpiHeight = valueFm.height() + captionFm.height();
        for (Layout::Kpi &k : l.kpis) {
            const int w = std::max(valueFm.horizontalAdvance(k.value), captionFm.horizontalAdvance(k.caption)) + 2 * m.em;
            if (x > bx && x + w > bright) {
                x = bx;
                y += kpiHeight + m.gap;
            }
            k.rect = QRect(x, y, w, kpiHeight);
            x += w + m.gap;
        }
        y += kpiHeight + m.gap;

        l.shapeCaption = QRect(bx, y, bright - bx, QFontMetrics(m.caption).height());
        y += l.shapeCaption.height() + m.gap / 2;
        const int cardsPerRow = std::max(1, (bright - bx + m.gap) / (m.cardWidth + m.gap));
        const int cardWidth = std::min(m.cardWidth * 3 / 2, (bright - bx - (cardsPerRow - 1) * m.gap) / cardsPerRow);
        for (int i = 0; i < stats.shapes.size(); ++i) {
            const int col = i % cardsPerRow, row = i / cardsPerRow;
            l.cards << Layout::Card{QRect(bx + col * (cardWidth + m.gap), y + row * (m.cardHeight + m.gap), cardWidth, m.cardHeight), int(i)};
        }
        const int rows = int((stats.shapes.size() + cardsPerRow - 1) / cardsPerRow);
        y += rows * (m.cardHeight + m.gap);

        // Legend: what the colours of a tile mean, in the order the eye meets them.
        struct Item {
            QString label;
            QColor color;
            Swatch style;
        };
        const QList<Item> items{
            {QStringLiteral("reserved chips"), theme.reserved, Swatch::Box},
            {QStringLiteral("free chips"), theme.freeChip, Swatch::Box},
            {QStringLiteral("chips of a host that is not up"), theme.absentChip, Swatch::Hatched},
            {QStringLiteral("host alive"), theme.alive, Swatch::Box},
            {QStringLiteral("dead"), theme.dead, Swatch::Box},
            {QStringLiteral("pending"), theme.pending, Swatch::Box},
            {QStringLiteral("missing"), theme.missing, Swatch::Box},
            {QStringLiteral("current slice"), theme.selection, Swatch::Outline},
        };
        QList<Item> shownItems = items;
        if (!highlighted.isEmpty()) // explained only while a plan is shown
            shownItems.append({QStringLiteral("in the plan"), theme.hover, Swatch::DashedOutline});
        const QFontMetrics smallFm(m.small);
        const int lh = smallFm.height();
        x = bx;
        for (const Item &it : std::as_const(shownItems)) {
            const int w = swatchWidth(it.style, lh) + m.em / 3 + smallFm.horizontalAdvance(it.label);
            if (x > bx && x + w > bright) {
                x = bx;
                y += lh + m.gap / 2;
            }
            l.legend << Layout::LegendItem{QRect(x, y, w, lh), it.label, it.color, it.style};
            x += w + m.em;
        }
        y += lh + m.pad;
        l.band = QRect(left, bandTop, inner, y - bandTop);
        y += m.margin;
    }

    // Groups and their tiles. Columns fill the width; tiles stretch to the column width.
    const int columns = std::max(1, (inner + m.gap) / (m.tileMinWidth + m.gap));
    const int tileWidth = (inner - (columns - 1) * m.gap) / columns;
    int lastGroup = -1, col = 0;
    for (int entryIndex : shown) {
        const Entry &e = entries[entryIndex];
        if (e.group != lastGroup) {
            if (lastGroup >= 0)
                y += m.tileHeight + m.margin; // close the previous group's last row
            lastGroup = e.group;
            col = 0;
            l.headers << Layout::Header{e.group, QRect(left, y, inner, m.headerHeight), 0};
            y += m.headerHeight + m.gap / 2;
        } else if (col == columns) {
            col = 0;
            y += m.tileHeight + m.gap;
        }
        ++l.headers.last().shown;
        l.tiles << Layout::Tile{entryIndex, QRect(left + col * (tileWidth + m.gap), y, tileWidth, m.tileHeight)};
        ++col;
    }
    if (lastGroup >= 0)
        y += m.tileHeight + m.margin;
    else {
        l.message = QRect(left, y, inner, m.em * 4);
        y += l.message.height() + m.margin;
    }
    l.height = y;
    return l;
}

int FleetOverview::Private::viewportWidth() const
{
    return q->width() - (scrollable() ? scrollBar->width() : 0);
}

void FleetOverview::Private::relayout()
{
    layoutDirty = false;
    const int barWidth = q->style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, q);
    // With the scroll bar the tiles get narrower, which can make the content taller, never shorter.
    layout = computeLayout(q->width());
    const bool needBar = layout.height > q->height();
    if (needBar)
        layout = computeLayout(q->width() - barWidth);
    scrollBar->setGeometry(q->width() - barWidth, 0, barWidth, q->height());
    scrollBar->setRange(0, std::max(0, layout.height - q->height()));
    scrollBar->setPageStep(q->height());
    scrollBar->setSingleStep(metrics.tileHeight / 3);
    scrollBar->setVisible(needBar);
    tileOfSlice.clear();
    for (int i = 0; i < layout.tiles.size(); ++i)
        tileOfSlice.insert(snapshot->slices[entries[layout.tiles[i].entry].slice].name, i);
}

void FleetOverview::Private::ensureLayout()
{
    if (modelDirty)
        rebuildEntries();
    if (filterDirty)
        applyFilter();
    if (layoutDirty)
        relayout();
}

int FleetOverview::Private::tileAt(QPoint widgetPos) const
{
    if (widgetPos.x() >= viewportWidth())
        return -1;
    const QPoint p = widgetPos + QPoint(0, scroll());
    // Tiles are in row order: skip the rows entirely above the point, then test the rest of the row.
    auto it = std::lower_bound(layout.tiles.cbegin(), layout.tiles.cend(), p.y(),
                               [](const Layout::Tile &t, int y) { return t.rect.bottom() < y; });
    for (; it != layout.tiles.cend() && it->rect.top() <= p.y(); ++it)
        if (it->rect.contains(p))
            return int(it - layout.tiles.cbegin());
    return -1;
}

void FleetOverview::Private::ensureVisible(const QRect &r)
{
    const int top = scroll(), viewHeight = q->height();
    const int margin = metrics.gap;
    if (r.top() - margin < top)
        scrollBar->setValue(r.top() - metrics.headerHeight - margin);
    else if (r.bottom() + margin > top + viewHeight)
        scrollBar->setValue(r.bottom() + margin - viewHeight);
}

void FleetOverview::Private::setCurrent(const QString &name, bool scrollTo)
{
    if (name != current) {
        current = name;
        q->update();
        Q_EMIT q->currentSliceChanged(current);
    }
    if (scrollTo) {
        ensureLayout();
        if (const int t = tileOfSlice.value(current, -1); t >= 0)
            ensureVisible(layout.tiles[t].rect);
    }
}

void FleetOverview::Private::moveCurrent(int key)
{
    ensureLayout();
    const QList<Layout::Tile> &tiles = layout.tiles;
    if (tiles.isEmpty())
        return;
    const int from = tileOfSlice.value(current, -1);
    int to = from;
    if (from < 0) {
        to = key == Qt::Key_End ? int(tiles.size()) - 1 : 0; // nothing current yet: start at an end
    } else if (key == Qt::Key_Left) {
        to = std::max(0, from - 1);
    } else if (key == Qt::Key_Right) {
        to = std::min(int(tiles.size()) - 1, from + 1);
    } else if (key == Qt::Key_Home) {
        to = 0;
    } else if (key == Qt::Key_End) {
        to = int(tiles.size()) - 1;
    } else if (key == Qt::Key_Up || key == Qt::Key_Down) {
        // The nearest tile by x in the next row up or down, across group headers.
        const QRect &r = tiles[from].rect;
        int rowTop = -1;
        for (const Layout::Tile &t : tiles) {
            if (key == Qt::Key_Down && t.rect.top() > r.top() && (rowTop < 0 || t.rect.top() < rowTop))
                rowTop = t.rect.top();
            if (key == Qt::Key_Up && t.rect.top() < r.top() && t.rect.top() > rowTop)
                rowTop = t.rect.top();
        }
        if (rowTop >= 0) {
            int best = -1, bestDistance = 0;
            for (int i = 0; i < tiles.size(); ++i) {
                if (tiles[i].rect.top() != rowTop)
                    continue;
                const int d = std::abs(tiles[i].rect.center().x() - r.center().x());
                if (best < 0 || d < bestDistance)
                    best = i, bestDistance = d;
            }
            to = best;
        }
    }
    setCurrent(snapshot->slices[entries[tiles[to].entry].slice].name, true);
}

// --- tooltips ----------------------------------------------------------------------------------

QString FleetOverview::Private::tooltipFor(const Entry &e) const
{
    const Slice &s = sliceOf(e);
    QString html = QStringLiteral("<b>%1</b> &mdash; %2").arg(s.name.toHtmlEscaped(), toText(e.status));
    if (e.use != SliceUse::Ready && toText(e.use) != toText(e.status))
        html += QStringLiteral(" (%1)").arg(toText(e.use));
    html += QStringLiteral("<br>%1 %2").arg(s.generation ? s.generation->displayName.toHtmlEscaped() : QStringLiteral("unknown generation"), e.shapeText.toHtmlEscaped());
    if (!s.podType.isEmpty())
        html += QStringLiteral(", pod type %1").arg(s.podType.toHtmlEscaped());
    html += QStringLiteral("<br>Worker group: %1").arg(s.workerGroup.isEmpty() ? QStringLiteral("none") : s.workerGroup.toHtmlEscaped());
    html += QStringLiteral("<br>Chips: %1 of %2 reserved, %3 free").arg(e.reserved).arg(e.chips).arg(e.chips - e.reserved);
    if (e.down > 0)
        html += QStringLiteral(" (%1 on hosts that are not up)").arg(e.down);
    if (e.stranded > 0)
        html += QStringLiteral("<br><b>%1 chips stranded</b>: no slice placement group can take a %2 slice").arg(e.stranded).arg(toText(e.use));
    int counts[4] = {0, 0, 0, 0};
    for (const Host &h : s.hosts)
        ++counts[int(h.state)];
    QStringList hostParts;
    for (HostState st : {HostState::Alive, HostState::Dead, HostState::Pending, HostState::Missing})
        if (counts[int(st)] > 0)
            hostParts << QStringLiteral("%1 %2").arg(counts[int(st)]).arg(toText(st).toLower());
    html += QStringLiteral("<br>Hosts: %1").arg(hostParts.join(QStringLiteral(", ")));
    html += QStringLiteral("<br>Held by: %1").arg(e.holders.isEmpty() ? QStringLiteral("nobody") : e.holders.toHtmlEscaped());
    if (!s.problems.isEmpty()) {
        constexpr int kShown = 8;
        html += QStringLiteral("<br>Problems:<ul style=\"margin:0\">");
        for (int i = 0; i < std::min<qsizetype>(kShown, s.problems.size()); ++i)
            html += QStringLiteral("<li>%1</li>").arg(s.problems[i].toHtmlEscaped());
        if (s.problems.size() > kShown)
            html += QStringLiteral("<li>&hellip; and %1 more</li>").arg(s.problems.size() - kShown);
        html += QStringLiteral("</ul>");
    }
    if (highlightedSet.contains(s.name))
        html += QStringLiteral("<br>Part of the plan being composed.");
    html += QStringLiteral("<br><i>Click or press Enter to open it in the slice view.</i>");
    return html;
}

QString FleetOverview::Private::tooltipAt(QPoint widgetPos) const
{
    if (const int t = tileAt(widgetPos); t >= 0)
        return tooltipFor(entries[layout.tiles[t].entry]);
    const QPoint p = widgetPos + QPoint(0, scroll());
    for (const Layout::Kpi &k : layout.kpis)
        if (k.rect.contains(p))
            return k.tooltip;
    for (const Layout::Card &c : layout.cards)
        if (c.rect.contains(p)) {
            const ShapeStats &sh = stats.shapes[c.shape];
            const FleetCounts &n = sh.counts;
            QString html = QStringLiteral("<b>%1</b><br>%2").arg(sh.label.toHtmlEscaped(), describe(sh).toHtmlEscaped());
            html += QStringLiteral("<br>Chips: %1 of %2 reserved; %3 free on ready slices").arg(n.reservedChips).arg(n.chips).arg(n.availableChips);
            if (n.claimedChips > 0)
                html += QStringLiteral("; %1 claimed").arg(n.claimedChips);
            if (n.strandedChips > 0)
                html += QStringLiteral("<br>Stranded (free, but no slice placement group can take them): %1 on partly used, "
                                       "%2 on degraded, %3 on provisioning slices")
                            .arg(n.strandedPartlyUsed)
                            .arg(n.strandedDegraded)
                            .arg(n.strandedProvisioning);
            return html;
        }
    for (const Layout::Header &h : layout.headers)
        if (h.rect.contains(p)) {
            const Group &g = groups[h.group];
            return QStringLiteral("%1<br>%2 slices, %3 ready; %4 of %5 chips reserved")
                .arg(g.title.toHtmlEscaped())
                .arg(g.entries.size())
                .arg(g.ready)
                .arg(g.reserved)
                .arg(g.chips);
        }
    return {};
}

// --- painting ----------------------------------------------------------------------------------

void FleetOverview::Private::drawSwatch(QPainter &p, const QRect &r, const QColor &color, Swatch style) const
{
    p.save();
    switch (style) {
    case Swatch::Box:
        p.setPen(Qt::NoPen);
        p.setBrush(color);
        p.drawRoundedRect(r, 2, 2);
        break;
    case Swatch::Hatched:
        p.setPen(Qt::NoPen);
        p.setBrush(theme.freeChip);
        p.drawRoundedRect(r, 2, 2);
        p.setBrush(QBrush(color.darker(theme.window.lightness() > 128 ? 140 : 70), Qt::BDiagPattern));
        p.drawRoundedRect(r, 2, 2);
        break;
    case Swatch::Outline:
        p.setPen(QPen(color, 2));
        p.setBrush(Qt::NoBrush);
        p.drawRoundedRect(QRectF(r).adjusted(1, 1, -1, -1), 3, 3);
        break;
    case Swatch::DashedOutline:
        p.setPen(QPen(color, 2, Qt::DashLine));
        p.setBrush(Qt::NoBrush);
        p.drawRoundedRect(QRectF(r).adjusted(1, 1, -1, -1), 3, 3);
        break;
    }
    p.restore();
}

void FleetOverview::Private::drawBadge(QPainter &p, const QString &text, const QColor &color, const QRect &r, Qt::Alignment align) const
{
    const QFontMetrics fm(metrics.badge);
    const int w = fm.horizontalAdvance(text) + metrics.em * 9 / 10;
    const int h = fm.height() + 2;
    const int x = align & Qt::AlignRight ? r.right() - w + 1 : r.left();
    const QRect pill(x, r.top() + (r.height() - h) / 2, w, h);
    p.setPen(Qt::NoPen);
    p.setBrush(color);
    p.drawRoundedRect(pill, h / 2.0, h / 2.0);
    p.setPen(textOn(color));
    p.setFont(metrics.badge);
    p.drawText(pill, Qt::AlignCenter, text);
}

void FleetOverview::Private::drawBand(QPainter &p, const QRect &exposed) const
{
    if (!layout.band.isValid() || !layout.band.intersects(exposed))
        return;
    const Metrics &m = metrics;
    p.setPen(theme.border);
    p.setBrush(theme.panel);
    p.drawRoundedRect(QRectF(layout.band).adjusted(0.5, 0.5, -0.5, -0.5), m.radius, m.radius);

    p.setFont(m.caption);
    p.setPen(theme.mutedText);
    p.drawText(layout.fleetCaption, Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("FLEET"));
    p.drawText(layout.shapeCaption, Qt::AlignLeft | Qt::AlignVCenter,
               QStringLiteral("READY SLICES AND FRAGMENTATION, BY SHAPE"));

    const QFontMetrics valueFm(m.kpiValue);
    for (const Layout::Kpi &k : layout.kpis) {
        QRect valueRect(k.rect.left(), k.rect.top(), k.rect.width(), valueFm.height());
        int x = valueRect.left();
        if (k.dot.isValid()) {
            const int d = m.em * 6 / 10;
            p.setPen(Qt::NoPen);
            p.setBrush(k.dot);
            p.drawEllipse(QRect(x, valueRect.center().y() - d / 2, d, d));
            x += d + m.em / 3;
        }
        p.setFont(m.kpiValue);
        p.setPen(k.alarm ? theme.degraded : theme.text);
        p.drawText(QRect(x, valueRect.top(), k.rect.right() - x, valueRect.height()), Qt::AlignLeft | Qt::AlignVCenter, k.value);
        p.setFont(m.small);
        p.setPen(theme.mutedText);
        p.drawText(QRect(k.rect.left(), valueRect.bottom() + 1, k.rect.width(), k.rect.bottom() - valueRect.bottom()),
                   Qt::AlignLeft | Qt::AlignTop, k.caption);
    }

    const QFontMetrics boldFm(m.bold), smallFm(m.small);
    for (const Layout::Card &c : layout.cards) {
        const ShapeStats &sh = stats.shapes[c.shape];
        const FleetCounts &n = sh.counts;
        const QRect r = c.rect;
        p.setPen(theme.border);
        p.setBrush(theme.window);
        p.drawRoundedRect(QRectF(r).adjusted(0.5, 0.5, -0.5, -0.5), m.radius, m.radius);
        const QRect in = r.adjusted(m.pad, m.pad, -m.pad, -m.pad);
        int y = in.top();
        // Line 1: the shape, and how many slices of it exist.
        const QString count = n.slices == 1 ? QStringLiteral("1 slice") : QStringLiteral("%1 slices").arg(n.slices);
        p.setFont(m.small);
        p.setPen(theme.mutedText);
        const int countWidth = smallFm.horizontalAdvance(count);
        p.drawText(QRect(in.right() - countWidth, y, countWidth + 1, m.lineName), Qt::AlignRight | Qt::AlignVCenter, count);
        p.setFont(m.bold);
        p.setPen(theme.text);
        p.drawText(QRect(in.left(), y, in.width() - countWidth - m.em / 2, m.lineName), Qt::AlignLeft | Qt::AlignVCenter,
                   boldFm.elidedText(sh.label, Qt::ElideRight, in.width() - countWidth - m.em / 2));
        y += m.lineName + m.gap / 3;
        // Line 2: the slices of this shape as a bar, one segment per use, in status colours.
        struct Segment {
            int n;
            QColor color;
        };
        const QColor partly = mix(theme.reserved, theme.window, 0.5);
        const Segment segments[] = {{n.ready, theme.ready}, {n.fullyReserved, theme.reserved}, {n.claimed, theme.reserved}, {n.partlyUsed, partly}, {n.degraded, theme.degraded}, {n.provisioning, theme.provisioning}};
        const QRect bar(in.left(), y, in.width(), m.barHeight);
        p.setPen(Qt::NoPen);
        p.setBrush(theme.freeChip);
        p.drawRoundedRect(bar, 2, 2);
        double x = bar.left();
        for (const Segment &s : segments) {
            if (s.n <= 0 || n.slices <= 0)
                continue;
            const double w = double(bar.width()) * s.n / n.slices;
            p.setBrush(s.color);
            p.drawRect(QRectF(x, bar.top(), std::max(1.0, w - 1), bar.height()));
            x += w;
        }
        y += m.barHeight + m.gap / 3;
        // Line 3: the counts behind the bar; line 4: what is stranded.
        QStringList parts{QStringLiteral("%1 of %2 ready").arg(n.ready).arg(n.slices)};
        // The same exclusive categories as the bar, so the numbers add up to the slices.
        if (n.fullyReserved + n.claimed > 0)
            parts << QStringLiteral("%1 reserved").arg(n.fullyReserved + n.claimed);
        if (n.partlyUsed > 0)
            parts << QStringLiteral("%1 partly used").arg(n.partlyUsed);
        if (n.degraded > 0)
            parts << QStringLiteral("%1 degraded").arg(n.degraded);
        if (n.provisioning > 0)
            parts << QStringLiteral("%1 provisioning").arg(n.provisioning);
        // Packed into at most two lines, breaking only between parts.
        QStringList lines{QString()};
        for (const QString &part : std::as_const(parts)) {
            const QString joined = lines.last().isEmpty() ? part : lines.last() + kDot + part;
            if (lines.last().isEmpty() || smallFm.horizontalAdvance(joined) <= in.width() || lines.size() == 2)
                lines.last() = joined;
            else
                lines << part;
        }
        p.setFont(m.small);
        p.setPen(theme.text);
        for (const QString &line : std::as_const(lines)) {
            p.drawText(QRect(in.left(), y, in.width(), m.lineSmall), Qt::AlignLeft | Qt::AlignVCenter,
                       smallFm.elidedText(line, Qt::ElideRight, in.width()));
            y += m.lineSmall;
        }
        if (lines.size() == 1)
            y += m.lineSmall;
        const QString stranded = n.strandedChips > 0
                                     ? QStringLiteral("%1 of %2 free chips stranded").arg(n.strandedChips).arg(n.freeChips)
                                     : QStringLiteral("no stranded chips");
        p.setFont(n.strandedChips > 0 ? m.smallBold : m.small);
        p.setPen(n.strandedChips > 0 ? theme.degraded : theme.mutedText);
        p.drawText(QRect(in.left(), y, in.width(), m.lineSmall), Qt::AlignLeft | Qt::AlignVCenter,
                   QFontMetrics(p.font()).elidedText(stranded, Qt::ElideRight, in.width()));
    }

    p.setFont(m.small);
    for (const Layout::LegendItem &it : layout.legend) {
        const int h = it.rect.height() - 4, w = swatchWidth(it.style, it.rect.height());
        drawSwatch(p, QRect(it.rect.left(), it.rect.top() + 2, w, h), it.color, it.style);
        p.setPen(theme.mutedText);
        p.drawText(it.rect.adjusted(w + m.em / 3, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter, it.label);
    }
}

void FleetOverview::Private::drawHeader(QPainter &p, const Layout::Header &h) const
{
    const Metrics &m = metrics;
    const Group &g = groups[h.group];
    const QRect r = h.rect.adjusted(0, 0, 0, -3);
    QString counts = QStringLiteral("%1 %2").arg(g.entries.size()).arg(g.entries.size() == 1 ? QStringLiteral("slice") : QStringLiteral("slices"));
    if (h.shown != g.entries.size())
        counts = QStringLiteral("%1 of ").arg(h.shown) + counts + QStringLiteral(" shown");
    counts += kDot + QStringLiteral("%1 ready").arg(g.ready) + kDot + QStringLiteral("%1 / %2 chips reserved").arg(g.reserved).arg(g.chips);
    const QFontMetrics smallFm(m.small), headerFm(m.header);
    // The counts follow the title (no eye travel across a wide window); the title keeps at least
    // half the width, the counts elide first.
    const QString title = headerFm.elidedText(g.title, Qt::ElideMiddle, std::max(r.width() / 2, r.width() - smallFm.horizontalAdvance(counts) - m.em));
    const int titleWidth = headerFm.horizontalAdvance(title);
    p.setFont(m.header);
    p.setPen(theme.text);
    p.drawText(QRect(r.left(), r.top(), titleWidth + 1, r.height()), Qt::AlignLeft | Qt::AlignVCenter, title);
    const int countsLeft = r.left() + titleWidth + m.em;
    if (r.right() - countsLeft > m.em * 3) {
        p.setFont(m.small);
        p.setPen(theme.mutedText);
        p.drawText(QRect(countsLeft, r.top(), r.right() - countsLeft + 1, r.height()), Qt::AlignLeft | Qt::AlignVCenter,
                   smallFm.elidedText(counts, Qt::ElideRight, r.right() - countsLeft + 1));
    }
    p.setPen(QPen(theme.border, 1));
    p.drawLine(h.rect.left(), h.rect.bottom(), h.rect.right(), h.rect.bottom());
}

void FleetOverview::Private::drawOccupancy(QPainter &p, const Entry &e, const QRect &r) const
{
    const Metrics &m = metrics;
    const QFontMetrics fm(m.small);
    const QString text = QStringLiteral("%1/%2 reserved").arg(e.reserved).arg(e.chips);
    const int textWidth = fm.horizontalAdvance(text);
    const QRect bar(r.left(), r.center().y() - m.barHeight / 2, std::max(m.em * 2, r.width() - textWidth - m.em / 2), m.barHeight);
    p.setPen(Qt::NoPen);
    p.setBrush(theme.freeChip);
    p.drawRoundedRect(bar, 2, 2);
    if (e.chips > 0) {
        const double unit = double(bar.width()) / e.chips;
        if (e.reserved > 0) {
            p.setBrush(theme.reserved);
            p.drawRect(QRectF(bar.left(), bar.top(), std::max(2.0, unit * e.reserved), bar.height()));
        }
        if (e.down > 0) {
            // Free chips on a host that is not up: hatched, at the end of the bar.
            const QRectF down(bar.right() + 1 - unit * e.down, bar.top(), unit * e.down, bar.height());
            p.setBrush(QBrush(theme.absentChip.darker(theme.window.lightness() > 128 ? 140 : 70), Qt::BDiagPattern));
            p.drawRect(down);
        }
    }
    p.setFont(m.small);
    p.setPen(theme.mutedText);
    p.drawText(QRect(r.right() - textWidth, r.top(), textWidth + 1, r.height()), Qt::AlignRight | Qt::AlignVCenter, text);
}

void FleetOverview::Private::drawHostStrip(QPainter &p, const Slice &s, const QRect &r) const
{
    const Metrics &m = metrics;
    const QFontMetrics fm(m.small);
    const QString label = QStringLiteral("hosts");
    p.setFont(m.small);
    p.setPen(theme.mutedText);
    p.drawText(r, Qt::AlignLeft | Qt::AlignVCenter, label);
    const int x0 = r.left() + fm.horizontalAdvance(label) + m.em / 2;
    const int width = r.right() - x0 + 1;
    const int n = int(s.hosts.size());
    if (n == 0 || width <= 0)
        return;
    const int h = m.cellHeight;
    const int top = r.center().y() - h / 2;
    p.setPen(Qt::NoPen);
    const double pitch = double(width) / n;
    if (pitch >= 3) {
        // One cell per host, a pixel apart, no wider than a square.
        const double cell = std::min(pitch, double(h) * 1.4 + 1);
        for (int i = 0; i < n; ++i) {
            p.setBrush(hostStateColor(s.hosts[i].state, theme));
            p.drawRect(QRectF(x0 + i * cell, top, cell - 1, h));
        }
        return;
    }
    // More hosts than pixels allow: each pixel column shows the worst host it covers, so one dead
    // host among thousands is still visible. Runs of one colour are drawn as one rectangle.
    int runStart = 0;
    HostState runState = HostState::Alive;
    for (int x = 0; x <= width; ++x) {
        HostState worst = HostState::Alive;
        if (x < width) {
            const int first = int(qint64(x) * n / width), last = std::max(first + 1, int(qint64(x + 1) * n / width));
            for (int i = first; i < last && i < n; ++i)
                if (severity(s.hosts[i].state) > severity(worst))
                    worst = s.hosts[i].state;
        }
        if (x == width || (x > 0 && worst != runState)) {
            p.setBrush(hostStateColor(runState, theme));
            p.drawRect(QRect(x0 + runStart, top, x - runStart, h));
            runStart = x;
        }
        runState = worst;
    }
}

void FleetOverview::Private::drawTile(QPainter &p, const Layout::Tile &t) const
{
    const Metrics &m = metrics;
    const Entry &e = entries[t.entry];
    const Slice &s = sliceOf(e);
    const QRect r = t.rect;
    const bool isCurrent = s.name == current, isHovered = s.name == hovered, isPlanned = highlightedSet.contains(s.name);
    const QColor statusColor = sliceStatusColor(e.status, theme);

    if (isPlanned) {
        p.setPen(QPen(theme.hover, 2, Qt::DashLine));
        p.setBrush(Qt::NoBrush);
        p.drawRoundedRect(QRectF(r).adjusted(-3.5, -3.5, 3.5, 3.5), m.radius + 3, m.radius + 3);
    }
    const QColor background = isCurrent   ? mix(theme.panel, theme.selection, 0.10)
                              : isHovered ? mix(theme.panel, theme.text, 0.05)
                                          : theme.panel;
    p.setPen(QPen(isCurrent ? theme.selection : isHovered ? theme.mutedText
                                                          : theme.border,
                  isCurrent ? 2 : 1));
    p.setBrush(background);
    const QRectF frame = QRectF(r).adjusted(isCurrent ? 1 : 0.5, isCurrent ? 1 : 0.5, isCurrent ? -1 : -0.5, isCurrent ? -1 : -0.5);
    p.drawRoundedRect(frame, m.radius, m.radius);
    // A stripe in the status colour down the left edge: the fleet reads as colour at a glance.
    {
        QPainterPath clip;
        clip.addRoundedRect(frame, m.radius, m.radius);
        p.save();
        p.setClipPath(clip);
        p.fillRect(QRect(r.left(), r.top(), std::max(3, m.em / 4), r.height()), statusColor);
        p.restore();
    }

    const QRect in = r.adjusted(m.pad + m.em / 4, m.pad, -m.pad, -m.pad);
    int y = in.top();
    // Line 1: name and status badge.
    const QString status = toText(e.status);
    const int badgeWidth = QFontMetrics(m.badge).horizontalAdvance(status) + m.em;
    const QRect nameLine(in.left(), y, in.width(), m.lineName);
    drawBadge(p, status, statusColor, nameLine, Qt::AlignRight);
    p.setFont(m.bold);
    p.setPen(theme.text);
    const int nameWidth = in.width() - badgeWidth - m.em / 2;
    p.drawText(QRect(in.left(), y, nameWidth, m.lineName), Qt::AlignLeft | Qt::AlignVCenter,
               QFontMetrics(m.bold).elidedText(s.name, Qt::ElideMiddle, nameWidth));
    y += m.lineName + m.gap / 2;
    // Line 2: the shape.
    const QFontMetrics smallFm(m.small);
    p.setFont(m.small);
    p.setPen(theme.mutedText);
    p.drawText(QRect(in.left(), y, in.width(), m.lineSmall), Qt::AlignLeft | Qt::AlignVCenter,
               smallFm.elidedText(e.shapeText, Qt::ElideRight, in.width()));
    y += m.lineSmall;
    // Line 3: chips reserved; line 4: hosts by state.
    drawOccupancy(p, e, QRect(in.left(), y, in.width(), m.lineSmall));
    y += m.lineSmall;
    drawHostStrip(p, s, QRect(in.left(), y, in.width(), m.lineSmall));
    y += m.lineSmall + m.gap / 2;
    // Line 5: why it is not usable, or who holds it.
    const bool trouble = e.status == SliceStatus::Degraded || e.status == SliceStatus::Provisioning || e.stranded > 0;
    int x = in.left();
    if (trouble) {
        const int d = std::max(5, m.em / 2);
        p.setPen(Qt::NoPen);
        p.setBrush(e.status == SliceStatus::Reserved ? theme.degraded : statusColor);
        p.drawEllipse(QRect(x, y + (m.lineSmall - d) / 2, d, d));
        x += d + m.em / 3;
    }
    p.setFont(m.small);
    p.setPen(trouble ? theme.text : theme.mutedText);
    const int suffixWidth = smallFm.horizontalAdvance(e.noteSuffix);
    const QString note = smallFm.elidedText(e.note, Qt::ElideRight, std::max(0, in.right() - x + 1 - suffixWidth));
    p.drawText(QRect(x, y, in.right() - x + 1, m.lineSmall), Qt::AlignLeft | Qt::AlignVCenter, note);
    if (!e.noteSuffix.isEmpty()) {
        p.setPen(theme.mutedText);
        p.drawText(QRect(x + smallFm.horizontalAdvance(note), y, suffixWidth + 1, m.lineSmall), Qt::AlignLeft | Qt::AlignVCenter,
                   e.noteSuffix);
    }

    if (isPlanned) {
        const QString tag = QStringLiteral("in plan");
        const QFontMetrics fm(m.badge);
        const QRect tagRect(r.left() + m.pad, r.top() - fm.height() / 2 - 1, fm.horizontalAdvance(tag) + m.em * 9 / 10, fm.height() + 2);
        drawBadge(p, tag, theme.hover, tagRect, Qt::AlignLeft);
    }
}

// --- the widget --------------------------------------------------------------------------------

FleetOverview::FleetOverview(QWidget *parent)
    : QWidget(parent)
    , d(std::make_unique<Private>(this))
{
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    d->metrics = Metrics(font());
    d->scrollBar = new QScrollBar(Qt::Vertical, this);
    d->scrollBar->hide();
    d->scrollBar->setFocusPolicy(Qt::NoFocus);
    connect(d->scrollBar, &QScrollBar::valueChanged, this, [this] {
        d->hovered.clear();
        update();
    });
}

FleetOverview::~FleetOverview() = default;

void FleetOverview::setSnapshot(const SnapshotPtr &snapshot)
{
    // Coalesced: the work happens once, at the next paint or query, and not while hidden.
    d->snapshot = snapshot;
    d->modelDirty = d->filterDirty = d->layoutDirty = true;
    update();
}

void FleetOverview::setTheme(const Theme &theme)
{
    d->theme = theme;
    update();
}

void FleetOverview::setFilterText(const QString &text)
{
    if (text == d->filterText)
        return;
    d->filterText = text;
    d->filterTerms = text.toLower().split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts);
    d->filterDirty = d->layoutDirty = true;
    update();
}

QString FleetOverview::filterText() const
{
    return d->filterText;
}

void FleetOverview::setStatusFilter(const QList<SliceStatus> &shown)
{
    if (shown == d->statusFilter)
        return;
    d->statusFilter = shown;
    d->filterDirty = d->layoutDirty = true;
    update();
}

QList<SliceStatus> FleetOverview::statusFilter() const
{
    return d->statusFilter;
}

void FleetOverview::setHighlightedSlices(const QStringList &names)
{
    const bool legendChanges = names.isEmpty() != d->highlighted.isEmpty();
    d->highlighted = names;
    d->highlightedSet = QSet<QString>(names.cbegin(), names.cend());
    d->layoutDirty = d->layoutDirty || legendChanges;
    update();
}

QStringList FleetOverview::highlightedSlices() const
{
    return d->highlighted;
}

void FleetOverview::setCurrentSlice(const QString &name)
{
    // Scroll only when the slice changes: the window re-sets the same slice on every refresh, and
    // that must not pull the view back while someone scrolls elsewhere.
    d->setCurrent(name, name != d->current);
}

QString FleetOverview::currentSlice() const
{
    return d->current;
}

QStringList FleetOverview::shownSlices() const
{
    d->ensureLayout();
    QStringList names;
    names.reserve(d->layout.tiles.size());
    for (const Layout::Tile &t : std::as_const(d->layout.tiles))
        names << d->snapshot->slices[d->entries[t.entry].slice].name;
    return names;
}

QStringList FleetOverview::groupTitles() const
{
    d->ensureLayout();
    QStringList titles;
    for (const Layout::Header &h : std::as_const(d->layout.headers))
        titles << d->groups[h.group].title;
    return titles;
}

FleetStats FleetOverview::stats() const
{
    d->ensureLayout();
    return d->stats;
}

QString FleetOverview::sliceAt(QPoint position) const
{
    d->ensureLayout();
    const int t = d->tileAt(position);
    return t < 0 ? QString() : d->snapshot->slices[d->entries[d->layout.tiles[t].entry].slice].name;
}

QRect FleetOverview::tileRect(const QString &sliceName) const
{
    d->ensureLayout();
    const int t = d->tileOfSlice.value(sliceName, -1);
    return t < 0 ? QRect() : d->layout.tiles[t].rect.translated(0, -d->scroll());
}

void FleetOverview::scrollToSlice(const QString &sliceName)
{
    d->ensureLayout();
    if (const int t = d->tileOfSlice.value(sliceName, -1); t >= 0)
        d->ensureVisible(d->layout.tiles[t].rect);
}

QString FleetOverview::toolTipAt(QPoint position) const
{
    d->ensureLayout();
    return d->tooltipAt(position);
}

QSize FleetOverview::sizeHint() const
{
    return QSize(d->metrics.em * 70, d->metrics.em * 48);
}

QSize FleetOverview::minimumSizeHint() const
{
    return QSize(d->metrics.em * 20, d->metrics.em * 12);
}

int FleetOverview::heightForWidth(int width) const
{
    d->ensureLayout();
    return d->computeLayout(width).height;
}

void FleetOverview::paintEvent(QPaintEvent *event)
{
    d->ensureLayout();
    QPainter p(this);
    const int scroll = d->scroll();
    const QRect exposed = event->rect().translated(0, scroll);
    p.fillRect(event->rect(), d->theme.window);
    p.setRenderHint(QPainter::Antialiasing);
    p.translate(0, -scroll);

    d->drawBand(p, exposed);
    for (const Layout::Header &h : std::as_const(d->layout.headers))
        if (h.rect.intersects(exposed))
            d->drawHeader(p, h);
    // Only the tiles that meet the exposed rectangle: find the first row by binary search.
    const QList<Layout::Tile> &tiles = d->layout.tiles;
    const int margin = 6; // the plan outline and tag reach a little outside a tile
    auto it = std::lower_bound(tiles.cbegin(), tiles.cend(), exposed.top() - margin,
                               [](const Layout::Tile &t, int y) { return t.rect.bottom() < y; });
    for (; it != tiles.cend() && it->rect.top() - margin <= exposed.bottom(); ++it)
        if (it->rect.adjusted(-margin, -margin, margin, margin).intersects(exposed))
            d->drawTile(p, *it);

    if (d->layout.message.isValid()) {
        QString text;
        if (!d->snapshot)
            text = tr("Waiting for the first snapshot\u2026");
        else if (d->entries.isEmpty())
            text = tr("No TPU slices in this cluster.");
        else
            text = tr("No slice matches the filter (%1 slices hidden).").arg(d->entries.size());
        p.setFont(d->metrics.base);
        p.setPen(d->theme.mutedText);
        p.drawText(d->layout.message, Qt::AlignCenter | Qt::TextWordWrap, text);
    }
}

void FleetOverview::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    d->layoutDirty = true;
}

void FleetOverview::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::FontChange) {
        d->metrics = Metrics(font());
        d->layoutDirty = true;
        updateGeometry();
    }
    QWidget::changeEvent(event);
}

bool FleetOverview::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        const auto *help = static_cast<QHelpEvent *>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

void FleetOverview::mouseMoveEvent(QMouseEvent *event)
{
    const QString name = sliceAt(event->position().toPoint());
    if (name != d->hovered) {
        const QRect before = tileRect(d->hovered), after = tileRect(name);
        d->hovered = name;
        update(before.adjusted(-2, -2, 2, 2));
        update(after.adjusted(-2, -2, 2, 2));
        setCursor(name.isEmpty() ? Qt::ArrowCursor : Qt::PointingHandCursor);
    }
    QWidget::mouseMoveEvent(event);
}

void FleetOverview::leaveEvent(QEvent *event)
{
    if (!d->hovered.isEmpty()) {
        update(tileRect(d->hovered).adjusted(-2, -2, 2, 2));
        d->hovered.clear();
    }
    QWidget::leaveEvent(event);
}

void FleetOverview::mousePressEvent(QMouseEvent *event)
{
    if (event->button() == Qt::LeftButton) {
        const QString name = sliceAt(event->position().toPoint());
        if (!name.isEmpty()) {
            d->setCurrent(name, false);
            Q_EMIT sliceActivated(name);
            event->accept();
            return;
        }
    }
    QWidget::mousePressEvent(event);
}

void FleetOverview::wheelEvent(QWheelEvent *event)
{
    d->ensureLayout();
    if (!d->scrollable())
        return QWidget::wheelEvent(event);
    // Hand the wheel to the scroll bar: it knows the platform's lines-per-notch and pixel deltas.
    QCoreApplication::sendEvent(d->scrollBar, event);
}

void FleetOverview::keyPressEvent(QKeyEvent *event)
{
    switch (event->key()) {
    case Qt::Key_Left:
    case Qt::Key_Right:
    case Qt::Key_Up:
    case Qt::Key_Down:
    case Qt::Key_Home:
    case Qt::Key_End:
        d->moveCurrent(event->key());
        return;
    case Qt::Key_PageUp:
    case Qt::Key_PageDown:
        d->ensureLayout();
        d->scrollBar->triggerAction(event->key() == Qt::Key_PageUp ? QAbstractSlider::SliderPageStepSub
                                                                   : QAbstractSlider::SliderPageStepAdd);
        return;
    case Qt::Key_Return:
    case Qt::Key_Enter:
        d->ensureLayout();
        if (d->tileOfSlice.contains(d->current)) {
            Q_EMIT sliceActivated(d->current);
            return;
        }
        break;
    default:
        break;
    }
    QWidget::keyPressEvent(event);
}

} // namespace slicescope
