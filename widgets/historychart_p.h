// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One of the history panel's five charts (historycharts.h), private to it: the QChart, its view,
// axes, series and cursor line; how they are styled from the theme, filled from the chart data
// (historychartdata_p.h, decimated; a line with unknown values split into runs), and read back
// under the mouse (the entry nearest in time, the hover text). The panel owns five of these and
// decides when they are refreshed.

#include "historychartdata_p.h"

#include <QDateTime>
#include <QLineF>
#include <QtCharts/QChartView>

#include <functional>

QT_BEGIN_NAMESPACE
class QAreaSeries;
class QDateTimeAxis;
class QGraphicsLineItem;
class QLineSeries;
class QValueAxis;
class QXYSeries;
QT_END_NAMESPACE

namespace slicescope {

class SnapshotHistory;

namespace historychart {

// The chart's view: forwards hover and clicks to the panel.
class ChartView : public QChartView
{
public:
    ChartView(QChart *chart, QWidget *parent);
    std::function<void(QPoint)> hovered;
    std::function<void(QPoint)> clicked;
    std::function<void()> left;

protected:
    void mouseMoveEvent(QMouseEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void leaveEvent(QEvent *event) override;
    // A short chart (a History dock under the views of a small window) drops its axis titles, so
    // the plot keeps room for the axes' labels (Qt Charts cuts them to "..." otherwise).
    void resizeEvent(QResizeEvent *event) override;

public:
    static constexpr int kCompactHeight = 200; // below this many pixels: no axis titles
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
    QList<Column> columns;
    QStringList builtFor;         // column keys + labels the current series were made for
    QList<QXYSeries *> lines;     // per column: the line, or the area's upper line
    QList<QAreaSeries *> areas;   // stacked: per column
    QList<QLineSeries *> lowers;  // stacked: per column (the first one is null: the baseline)
    QList<QList<QLineSeries *>> runs; // per column: its line's further runs past a gap (same name, no legend marker)
    double xMin = 0, xMax = 1;    // axis values

    // Makes the chart, its axes, cursor line and view (object name "chart<index>") in `parent`.
    void build(Chart chartKind, const QString &chartUnit, int index, QWidget *parent);
    // Colours and fonts from the theme; `base` is the panel's font.
    void style(const Theme &theme, const QFont &base);
    // Makes the series anew when the columns (or dots vs lines) changed since the last time.
    void rebuildSeries(const Theme &theme, bool dots);
    // The columns' values over the first `n` entries, decimated to `maxPoints`, and the y ranges.
    // A column's NaN values break its line into runs (one series each).
    void fill(const SnapshotHistory *history, int n, const EntryTimes &times, int maxPoints, const QString &ageUnitText);
    // Every series drawing column `k`: its line, then its further runs.
    QList<QXYSeries *> seriesOf(int k) const;
    // Makes or drops column `k`'s further runs until it has `extra` of them.
    void setRuns(int k, int extra);
    void setTimeAxis(const TimeAxis &axis, int n);
    // The cursor line at `time` (hidden when invalid, off the axis, or without data).
    void updateCursor(const QDateTime &time, bool hasData);
    // The entry nearest in time to a viewport position over the plot, or -1.
    int entryAt(const SnapshotHistory *history, QPoint viewportPos) const;
    // What hovering there shows (HTML), empty when entryAt() is -1.
    QString hoverText(const SnapshotHistory *history, QPoint viewportPos) const;
    // The cursor line in `panel`'s coordinates; a null line when it is hidden.
    QLineF cursorLineIn(const QWidget *panel) const;
};

} // namespace historychart
} // namespace slicescope
