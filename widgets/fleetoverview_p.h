// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The fleet overview's insides, shared by its source files: fleetoverview.cpp (the content, the
// layout, the widget's API and events), fleetoverviewpaint.cpp (painting and tooltips) and
// fleetoverviewfold.cpp (a fleet's sections, folding, the nesting order).
// Not a public header: nothing outside widgets/fleetoverview*.cpp includes it.

#include "fleetfilter.h"
#include "fleetgrouping.h"
#include "fleetoverview.h"
#include "fleettilelayout.h"

#include <QColor>
#include <QFont>
#include <QFontInfo>
#include <QFontMetrics>
#include <QHash>
#include <QList>
#include <QPointF>
#include <QPolygonF>
#include <QRect>
#include <QScrollBar>
#include <QSet>
#include <QString>

#include <algorithm>
#include <cmath>

class QPainter;

namespace slicescope {

namespace fleetoverviewdetail {

// Legend swatches: colour boxes are squares; outlines (current, plan) are drawn tile-shaped.
enum class Swatch
{
    Box,
    Hatched,
    Outline,
    DashedOutline
};

inline int swatchWidth(Swatch style, int lineHeight)
{
    return style == Swatch::Outline || style == Swatch::DashedOutline ? lineHeight * 2 : lineHeight - 4;
}

// Font-derived sizes: everything scales with the application font, nothing is a fixed pixel size.
struct Metrics {
    int em = 13;
    int margin = 13, gap = 8, pad = 8, radius = 6;
    QFont base, bold, small, smallBold, badge, header, kpiValue, caption;
    int tileMinWidth = 208, tileRoomyWidth = 294, tileHeight = 100;
    int lineName = 17, lineSmall = 15, barHeight = 7, cellHeight = 9;
    int headerHeight = 26, sectionHeight = 44;
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
        tileRoomyWidth = em * 24;
        // name, shape, bar, host strip, note
        tileHeight = 2 * pad + lineName + 4 * lineSmall + 2 * (gap / 2);
        headerHeight = QFontMetrics(header).height() + em / 2;
        sectionHeight = 2 * pad + QFontMetrics(header).height() + lineSmall + em / 4; // title, then its figures
        cardWidth = em * 17;
        cardHeight = 2 * pad + lineName + barHeight + 3 * lineSmall + gap; // name, bar, counts (up to 2 lines), stranded
    }
};

// The geometry shared by painting, hit-testing, tooltips and keyboard navigation. Content
// coordinates: y grows down from the top of the scrolled content; x as in the widget.
struct Layout {
    struct Tile {
        int entry;
        QRect rect;
    };
    using Header = FleetTileLayout::Header;
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

} // namespace fleetoverviewdetail

using namespace fleetoverviewdetail;

struct FleetOverview::Private {
    FleetOverview *q;
    SnapshotPtr snapshot;
    Theme theme = Theme::light();
    FleetFilter filter;
    QStringList highlighted;
    QSet<QString> highlightedSet; // what painting asks, tile by tile
    QHash<QString, int> alertCounts; // active alerts by slice name
    QHash<QString, QList<QPointF>> activityHistory; // recent mean duty cycle by slice name
    QString current;
    QString hovered;
    FleetStats stats;
    FleetGrouping fleet;
    FleetOrder order = FleetOrder::ContextFirst;
    QSet<QString> collapsed;        // keys of collapsed groups and sections (FleetGroup::key, FleetSection::key)
    QList<int> shown;               // entries passing the filter, in display order
    QHash<QString, int> tileOfSlice; // slice name -> index in layout.tiles
    Layout layout;
    Metrics metrics{QFont()};
    QScrollBar *scrollBar = nullptr;
    bool modelDirty = true, filterDirty = true, layoutDirty = true;

    explicit Private(FleetOverview *owner)
        : q(owner)
    { }

    const Slice &sliceOf(const FleetEntry &e) const { return snapshot->slices[e.slice]; }

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
    int headerAt(QPoint widgetPos) const; // index into layout.headers, or -1
    QString headerKey(const Layout::Header &h) const;
    QString headerTitle(const Layout::Header &h) const;
    QString sectionFigures(const FleetSection &s) const; // "12 slices · 8 ready · ..."
    bool isCollapsed(int entry) const; // its group or section is
    void expandFor(const QString &sliceName);
    void ensureVisible(const QRect &contentRect);
    void setCurrent(const QString &name, bool scrollTo);
    void moveCurrent(int key);

    QString tooltipFor(const FleetEntry &e) const;
    QString tooltipAt(QPoint widgetPos) const;

    void drawBand(QPainter &p, const QRect &exposed) const;
    void drawHeader(QPainter &p, const Layout::Header &h) const;
    void drawSectionHeader(QPainter &p, const Layout::Header &h) const;
    void drawChevron(QPainter &p, const QRect &r, bool collapsed) const;
    void drawTile(QPainter &p, const Layout::Tile &t) const;
    void drawHostStrip(QPainter &p, const Slice &s, const QRect &r) const;
    void drawOccupancy(QPainter &p, const FleetEntry &e, const QRect &r) const;
    // Where a tile's second line (shape, activity figure) is, for its rectangle.
    QRect activityLineOf(const QRect &tile) const;
    // The activity figure of a tile's second line `r`: its text, and the gauge left of it, a
    // sparkline when the slice has a recent history of at least 2 known values. `width` is 0 when
    // the snapshot has no activity or the figure does not fit.
    struct ActivityFigure {
        int width = 0;
        QString text;
        double mean = 0; // NaN: unknown
        QRect gauge, label;
        QList<QPolygonF> sparkline; // in the painter's coordinates; empty: the plain gauge
    };
    ActivityFigure activityFigure(const FleetEntry &e, const QRect &r) const;
    // The slice's mean duty cycle and reporting chips, right-aligned in `r`; returns its width
    // (0 when the snapshot has no activity).
    int drawActivity(QPainter &p, const FleetEntry &e, const QRect &r) const;
    void drawBadge(QPainter &p, const QString &text, const QColor &color, const QRect &r, Qt::Alignment align) const;
    void drawSwatch(QPainter &p, const QRect &r, const QColor &color, Swatch style) const;
};

} // namespace slicescope
