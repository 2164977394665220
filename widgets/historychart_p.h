// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One of the history panel's five charts (historycharts.h), private to it: the QChart, its view,
// axes, series, legend, cursor and hover lines and the zoom's selection band; how they are styled
// from the theme, filled from the chart data (historychartdata_p.h, the shown range decimated; a
// line with unknown values split into runs), and read back under the mouse (the entry nearest in
// time, the hover text). The panel owns five of these and decides when they are refreshed, which
// entry the legends show and which time range the charts show.

#include "historychartdata_p.h"

#include <QDateTime>
#include <QFont>
#include <QGraphicsItem>
#include <QLineF>
#include <QPen>
#include <QtCharts/QChartView>

#include <functional>

QT_BEGIN_NAMESPACE
class QAreaSeries;
class QDateTimeAxis;
class QGraphicsLineItem;
class QGraphicsRectItem;
class QLineSeries;
class QValueAxis;
class QXYSeries;
QT_END_NAMESPACE

namespace slicescope {

class SnapshotHistory;

namespace historychart {

// The chart's view: forwards hover, clicks, drags and the reset keys to the panel. A press and
// release that moved less than kDragThreshold pixels across is a click; more is a drag, which
// selects a time range.
class ChartView : public QChartView
{
public:
    ChartView(QChart *chart, QWidget *parent);
    std::function<void(QPoint)> hovered;
    std::function<void(QPoint)> clicked;
    std::function<void()> left;
    std::function<void(int fromX, int toX)> dragged;  // while dragging: the press's and the mouse's viewport x
    std::function<void(int fromX, int toX)> selected; // a drag released there
    std::function<bool()> resetRequested;             // double click or Escape; false: nothing to reset
    std::function<void()> resized;

    static constexpr int kCompactHeight = 200; // below this many pixels: no axis titles
    static constexpr int kDragThreshold = HistoryChartsPanel::kDragThreshold; // pixels across: a drag, not a click

protected:
    void mouseMoveEvent(QMouseEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void leaveEvent(QEvent *event) override;
    // A short chart (a History dock under the views of a small window) drops its axis titles, so
    // the plot keeps room for the axes' labels (Qt Charts cuts them to "..." otherwise).
    void resizeEvent(QResizeEvent *event) override;

private:
    bool m_pressed = false;
    bool m_dragging = false;
    QPoint m_pressPos;
};

// The chart's legend, drawn in the chart under its axes instead of QLegend (which keeps one row
// and cuts labels, values included, to "..."): entries in centred rows that wrap, each a swatch
// (the series' pen, or an area's filled square), its label and its value. Each value has a box
// as wide as the widest value its column can take, right-aligned in it, so the legend does not
// move while the numbers change under the mouse.
class ChartLegend : public QGraphicsItem
{
public:
    struct Entry {
        QString label;
        QPen pen;
        QBrush fill = Qt::NoBrush; // an area: a filled square
        QString widest;            // the widest value text it can show
    };
    explicit ChartLegend(QGraphicsItem *parent);
    void setEntries(const QList<Entry> &entries); // takes effect at the next layout()
    void setValues(const QStringList &values);    // one per entry; empty: no value shown
    void setLook(const QFont &font, const QColor &text);
    // Lays the entries out in rows at most `width` wide; the height they take.
    qreal layout(qreal width);
    // "label value" per entry (or the label alone), as drawn.
    QStringList texts() const;
    QRectF boundingRect() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

    static constexpr int kSwatchWidth = 18;

private:
    QList<Entry> m_entries;
    QStringList m_values;
    QList<QRectF> m_rects;   // per entry, in item coordinates
    QList<qreal> m_valueBox; // per entry: the value's box width
    QFont m_font;
    QColor m_text;
    QSizeF m_size;
};

// One of the five charts and what was last drawn in it.
struct ChartState {
    Chart kind = Chart::Chips;
    QString unit;                 // "chips", "slices", "groups", "duty cycle (%)"
    bool stacked = false;
    QChart *chart = nullptr;
    ChartView *view = nullptr;
    QDateTimeAxis *axisX = nullptr;
    QValueAxis *axisY = nullptr;
    QValueAxis *axisY2 = nullptr; // placement groups: oldest pending age; activity: chips
    QGraphicsLineItem *cursor = nullptr;
    QGraphicsLineItem *hoverLine = nullptr; // the hovered entry's time, in every chart
    QGraphicsRectItem *band = nullptr;      // the time range being selected by a drag
    ChartLegend *legend = nullptr;
    QList<Column> columns;
    QStringList builtFor;         // column keys + labels the current series were made for
    QList<QXYSeries *> lines;     // per column: the line, or the area's upper line
    QList<QAreaSeries *> areas;   // stacked: per column
    QList<QLineSeries *> lowers;  // stacked: per column (the first one is null: the baseline)
    QList<QList<QLineSeries *>> runs; // per column: its line's further runs past a gap (same name, no legend marker)
    QStringList widest;           // per column: its widest legend value over the history
    double xMin = 0, xMax = 1;    // axis values

    // Makes the chart, its axes, cursor line and view (object name "chart<index>") in `parent`.
    void build(Chart chartKind, const QString &chartUnit, int index, QWidget *parent);
    // Colours and fonts from the theme; `base` is the panel's font.
    void style(const Theme &theme, const QFont &base);
    // Makes the series anew when the columns (or dots vs lines) changed since the last time.
    void rebuildSeries(const Theme &theme, bool dots);
    // The columns' values over entries rows.first..rows.last (of the first `n`), decimated to
    // `maxPoints`, and the y ranges fitted to entries rows.fitFirst..rows.fitLast (the shown ones).
    // A column's NaN values break its line into runs (one series each).
    void fill(const SnapshotHistory *history, int n, const EntryTimes &times, const Rows &rows, int maxPoints,
              const QString &ageUnitText);
    // The legend's entries for the columns (after fill(): it knows their widest values).
    void setLegendEntries(const Theme &theme);
    // The legend's values at `entry` (none when -1).
    void setLegendValues(const SnapshotHistory *history, int entry);
    // Lays the legend out for the chart's width and keeps room for it under the axes.
    void layoutLegend();
    // Every series drawing column `k`: its line, then its further runs.
    QList<QXYSeries *> seriesOf(int k) const;
    // Makes or drops column `k`'s further runs until it has `extra` of them.
    void setRuns(int k, int extra);
    void setTimeAxis(const TimeAxis &axis, int n);
    // The cursor line at `time` (hidden when invalid, off the axis, or without data).
    void updateCursor(const QDateTime &time, bool hasData);
    // The hover line, the same way.
    void updateHover(const QDateTime &time, bool hasData);
    // The selection band between two viewport x positions (clamped to the plot); hidden by hideBand().
    void showBand(int fromX, int toX);
    void hideBand();
    // The time at a viewport x position: invalid off the plot, unless `clamp` (then the plot's edge).
    QDateTime timeAt(QPoint viewportPos, bool clamp) const;
    // The entry nearest in time to a viewport position over the plot, or -1.
    int entryAt(const SnapshotHistory *history, QPoint viewportPos) const;
    // What hovering there shows (HTML), empty when entryAt() is -1.
    QString hoverText(const SnapshotHistory *history, QPoint viewportPos) const;
    // The cursor line (or another line item) in `panel`'s coordinates; a null line when hidden.
    QLineF cursorLineIn(const QWidget *panel) const { return lineIn(cursor, panel); }
    QLineF lineIn(const QGraphicsLineItem *item, const QWidget *panel) const;
};

} // namespace historychart
} // namespace slicescope
