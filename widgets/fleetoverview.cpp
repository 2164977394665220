// SPDX-License-Identifier: GPL-3.0-or-later
// The fleet overview: its content (model/fleetgrouping.h, filtered by model/fleetfilter.h), the
// layout of the summary band and the tile grid (widgets/fleettilelayout.h), scrolling, keyboard
// and mouse, and the public API. Painting and tooltips: fleetoverviewpaint.cpp; sections and
// folding: fleetoverviewfold.cpp.
#include "fleetoverview.h"

#include "fleetoverview_p.h"
#include "history.h"

#include <QCoreApplication>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QStyle>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

namespace slicescope {

// --- model -------------------------------------------------------------------------------------

void FleetOverview::Private::rebuildEntries()
{
    modelDirty = false;
    filterDirty = true;
    stats = snapshot ? fleetStats(*snapshot) : FleetStats{};
    fleet = snapshot ? groupFleet(*snapshot, order) : FleetGrouping{};
}

void FleetOverview::Private::applyFilter()
{
    filterDirty = false;
    layoutDirty = true;
    shown = filter.shownEntries(fleet);
}

// --- layout ------------------------------------------------------------------------------------

Layout FleetOverview::Private::computeLayout(int width) const
{
    const Metrics &m = metrics;
    Layout l;
    const int left = m.margin, right = std::max(left + m.em * 8, width - m.margin);
    const int inner = right - left;
    int y = m.margin;

    if (snapshot && !fleet.entries.isEmpty()) {
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

    // Groups and their tiles: the shown entries are in display order, so each group is one run.
    // A collapsed group or section keeps its header (with its count) and places no tile.
    QList<FleetTileLayout::Run> runs;
    QList<int> placed; // the shown entries that get a tile, in order
    placed.reserve(shown.size());
    for (int entryIndex : shown) {
        const int group = fleet.entries[entryIndex].group;
        if (runs.isEmpty() || runs.last().group != group) {
            const FleetGroup &g = fleet.groups[group];
            const bool sectionCollapsed = g.section >= 0 && collapsed.contains(fleet.sections[g.section].key);
            runs << FleetTileLayout::Run{group, 0, g.section, collapsed.contains(g.key), sectionCollapsed};
        }
        ++runs.last().tiles;
        if (!runs.last().collapsed && !runs.last().sectionCollapsed)
            placed << entryIndex;
    }
    FleetTileSizes sizes{m.tileMinWidth, m.tileHeight, m.gap, m.margin, m.headerHeight, m.em * 4, m.sectionHeight, m.tileRoomyWidth};
    const FleetTileLayout grid = FleetTileLayout::place(sizes, left, inner, y, runs);
    l.headers = grid.headers;
    l.tiles.reserve(grid.tiles.size());
    for (int k = 0; k < grid.tiles.size(); ++k)
        l.tiles << Layout::Tile{placed[k], grid.tiles[k]};
    l.message = grid.message;
    l.height = grid.bottom;
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
        tileOfSlice.insert(snapshot->slices[fleet.entries[layout.tiles[i].entry].slice].name, i);
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
        expandFor(current);
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
    setCurrent(snapshot->slices[fleet.entries[tiles[to].entry].slice].name, true);
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
    if (text == d->filter.text())
        return;
    d->filter.setText(text);
    d->filterDirty = d->layoutDirty = true;
    update();
}

QString FleetOverview::filterText() const
{
    return d->filter.text();
}

void FleetOverview::setStatusFilter(const QList<SliceStatus> &shown)
{
    if (shown == d->filter.statuses())
        return;
    d->filter.setStatuses(shown);
    d->filterDirty = d->layoutDirty = true;
    update();
}

QList<SliceStatus> FleetOverview::statusFilter() const
{
    return d->filter.statuses();
}

void FleetOverview::setHighlightedSlices(const QStringList &names)
{
    if (names == d->highlighted)
        return;
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

void FleetOverview::setAlertCounts(const QHash<QString, int> &bySlice)
{
    if (d->alertCounts == bySlice)
        return;
    d->alertCounts = bySlice;
    update();
}

QHash<QString, int> FleetOverview::alertCounts() const
{
    return d->alertCounts;
}

void FleetOverview::setActivityHistory(const QHash<QString, QList<QPointF>> &bySlice)
{
    // NaN != NaN: an equal history with gaps compares unequal and repaints, which is harmless.
    if (d->activityHistory == bySlice)
        return;
    d->activityHistory = bySlice;
    update();
}

QHash<QString, QList<QPointF>> FleetOverview::activityHistory() const
{
    return d->activityHistory;
}

QHash<QString, QList<QPointF>> FleetOverview::recentActivity(const SnapshotHistory &history, int last, int maxEntries, qint64 maxSpanMs)
{
    QHash<QString, QList<QPointF>> bySlice;
    if (last < 0 || last >= history.size() || maxEntries < 1)
        return bySlice;
    const std::shared_ptr<const ActivityTable> newest = history.activity(last);
    if (!newest)
        return bySlice;
    const qint64 lastMs = history.time(last).toMSecsSinceEpoch();
    int first = last;
    while (first > 0 && last - first + 1 < maxEntries && lastMs - history.time(first - 1).toMSecsSinceEpoch() <= maxSpanMs)
        --first;
    QList<std::shared_ptr<const ActivityTable>> tables;
    QList<double> times;
    for (int i = first; i <= last; ++i) {
        tables << history.activity(i);
        times << double(history.time(i).toMSecsSinceEpoch());
    }
    constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();
    bySlice.reserve(newest->bySlice.size());
    for (auto it = newest->bySlice.constBegin(); it != newest->bySlice.constEnd(); ++it) {
        QList<QPointF> points;
        points.reserve(tables.size());
        for (int k = 0; k < tables.size(); ++k) {
            // No table, or the slice not in it: unknown (a slice absent has no chips to average).
            const auto found = tables[k] ? tables[k]->bySlice.constFind(it.key()) : newest->bySlice.constEnd();
            points << QPointF(times[k], tables[k] && found != tables[k]->bySlice.constEnd() ? found->meanDutyCycle() : kUnknown);
        }
        bySlice.insert(it.key(), points);
    }
    return bySlice;
}

QList<QPolygonF> FleetOverview::sparkline(const QString &sliceName) const
{
    d->ensureLayout();
    const int t = d->tileOfSlice.value(sliceName, -1);
    if (t < 0 || !d->snapshot)
        return {};
    const Layout::Tile &tile = d->layout.tiles[t];
    const Private::ActivityFigure f = d->activityFigure(d->fleet.entries[tile.entry], d->activityLineOf(tile.rect));
    QList<QPolygonF> runs = f.width > 0 ? f.sparkline : QList<QPolygonF>();
    for (QPolygonF &run : runs)
        run.translate(0, -d->scroll());
    return runs;
}

void FleetOverview::setCurrentSlice(const QString &name)
{
    // Scroll only when the slice changes: the window re-sets the same slice on every refresh, and
    // that must not pull the view back while someone scrolls elsewhere. The first slice made current
    // does not scroll either: the overview opens at the fleet's summary.
    d->setCurrent(name, name != d->current && !d->current.isEmpty());
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
        names << d->snapshot->slices[d->fleet.entries[t.entry].slice].name;
    return names;
}

QStringList FleetOverview::groupTitles() const
{
    d->ensureLayout();
    QStringList titles;
    for (const Layout::Header &h : std::as_const(d->layout.headers))
        if (h.group >= 0)
            titles << d->fleet.groups[h.group].title;
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
    return t < 0 ? QString() : d->snapshot->slices[d->fleet.entries[d->layout.tiles[t].entry].slice].name;
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
    d->expandFor(sliceName);
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
        else if (d->fleet.entries.isEmpty())
            text = tr("No TPU slices in this cluster.");
        else
            text = tr("No slice matches the filter (%1 slices hidden).").arg(d->fleet.entries.size());
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
        // A click on a group's or a section's header folds it (or opens it again).
        if (const int h = d->headerAt(event->position().toPoint()); h >= 0) {
            const Layout::Header header = d->layout.headers[h];
            setCollapsed(d->headerTitle(header), !header.collapsed);
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
