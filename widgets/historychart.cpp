// SPDX-License-Identifier: GPL-3.0-or-later
#include "historychart_p.h"

#include "history.h"
#include "timelinegeometry.h"
#include "timetext.h"

#include <QFontInfo>
#include <QGraphicsLineItem>
#include <QMouseEvent>
#include <QtCharts/QAreaSeries>
#include <QtCharts/QChart>
#include <QtCharts/QDateTimeAxis>
#include <QtCharts/QLegend>
#include <QtCharts/QLegendMarker>
#include <QtCharts/QLineSeries>
#include <QtCharts/QValueAxis>

#include <QResizeEvent>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace slicescope::historychart {

namespace {

QFont scaledFont(const QFont &base, double factor, bool bold)
{
    QFont f = base;
    f.setPixelSize(std::max(8, int(std::lround(std::max(9, QFontInfo(base).pixelSize()) * factor))));
    f.setBold(bold);
    return f;
}

} // namespace

ChartView::ChartView(QChart *chart, QWidget *parent)
    : QChartView(chart, parent)
{
    setMouseTracking(true);
    setRenderHint(QPainter::Antialiasing);
    setFrameShape(QFrame::NoFrame);
    setRubberBand(QChartView::NoRubberBand);
    setDragMode(QGraphicsView::NoDrag);
    setFocusPolicy(Qt::NoFocus);
}

void ChartView::mouseMoveEvent(QMouseEvent *event)
{
    QChartView::mouseMoveEvent(event);
    if (hovered)
        hovered(event->position().toPoint());
}

void ChartView::mousePressEvent(QMouseEvent *event)
{
    QChartView::mousePressEvent(event);
    if (event->button() == Qt::LeftButton && clicked)
        clicked(event->position().toPoint());
}

namespace {

// A value axis's tick count: the nice one fill() chose (kept as a property), or in a short chart
// at most three (0, the middle, the top) so their labels fit; the middle only where it is one of
// the nice ticks (a whole step), else just 0 and the top.
void applyTicks(QValueAxis *axis, bool compact)
{
    const int nice = axis->property("niceTicks").toInt();
    if (nice <= 0)
        return;
    const int ticks = !compact ? nice : (nice - 1) % 2 == 0 ? std::min(nice, 3)
                                                            : 2;
    if (axis->tickCount() != ticks)
        axis->setTickCount(ticks);
}

void setNiceTicks(QValueAxis *axis, int ticks, const QWidget *view)
{
    axis->setProperty("niceTicks", ticks);
    applyTicks(axis, view && view->height() < ChartView::kCompactHeight);
}

} // namespace

void ChartView::resizeEvent(QResizeEvent *event)
{
    const bool compact = event->size().height() < kCompactHeight;
    const QList<QAbstractAxis *> axes = chart()->axes();
    for (QAbstractAxis *axis : axes) {
        if (axis->isTitleVisible() == compact)
            axis->setTitleVisible(!compact);
        if (auto *value = qobject_cast<QValueAxis *>(axis))
            applyTicks(value, compact);
    }
    QChartView::resizeEvent(event);
}

void ChartView::leaveEvent(QEvent *event)
{
    QChartView::leaveEvent(event);
    if (left)
        left();
}

void ChartState::build(Chart chartKind, const QString &chartUnit, int index, QWidget *parent)
{
    kind = chartKind;
    unit = chartUnit;
    stacked = kind == Chart::Slices;
    chart = new QChart;
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->setBackgroundRoundness(6);
    chart->legend()->setAlignment(Qt::AlignBottom);
    // Lines show solid vs dashed in the legend; areas keep filled squares.
    chart->legend()->setMarkerShape(kind == Chart::Slices ? QLegend::MarkerShapeRectangle : QLegend::MarkerShapeFromSeries);
    axisX = new QDateTimeAxis(chart);
    axisY = new QValueAxis(chart);
    axisY->setLabelFormat(QStringLiteral("%.0f"));
    axisY->setTitleText(unit);
    chart->addAxis(axisX, Qt::AlignBottom);
    chart->addAxis(axisY, Qt::AlignLeft);
    if (kind == Chart::PlacementGroups || kind == Chart::Activity) {
        axisY2 = new QValueAxis(chart);
        axisY2->setLabelFormat(QStringLiteral("%.0f"));
        chart->addAxis(axisY2, Qt::AlignRight);
    }
    cursor = new QGraphicsLineItem(chart);
    cursor->setZValue(1000);
    cursor->setVisible(false);
    view = new ChartView(chart, parent);
    view->setObjectName(QStringLiteral("chart%1").arg(index));
    view->setMinimumSize(240, 150);
}

void ChartState::style(const Theme &theme, const QFont &base)
{
    const QColor grid = mix(theme.border, theme.panel, theme.isDark ? 0.25 : 0.45);
    chart->setBackgroundBrush(theme.panel);
    chart->setBackgroundPen(QPen(theme.border, 1));
    chart->setPlotAreaBackgroundVisible(false);
    chart->setTitleBrush(theme.text);
    chart->setTitleFont(scaledFont(base, 1.05, true));
    chart->legend()->setLabelColor(theme.text);
    chart->legend()->setFont(scaledFont(base, 0.9, false));
    chart->legend()->setBrush(Qt::NoBrush);
    chart->legend()->setPen(Qt::NoPen);
    QList<QAbstractAxis *> axes{axisX, axisY};
    if (axisY2)
        axes << axisY2;
    for (QAbstractAxis *axis : std::as_const(axes)) {
        axis->setLabelsBrush(theme.mutedText);
        axis->setLabelsFont(scaledFont(base, 0.9, false));
        axis->setTitleBrush(theme.mutedText);
        axis->setTitleFont(scaledFont(base, 0.9, false));
        axis->setLinePen(QPen(theme.border, 1));
        axis->setGridLineColor(grid);
        axis->setMinorGridLineVisible(false);
        axis->setShadesVisible(false);
    }
    if (axisY2) {
        axisY2->setGridLineVisible(false);
        if (kind == Chart::PlacementGroups) {
            axisY2->setLabelsBrush(ageColor(theme));
            axisY2->setTitleBrush(ageColor(theme));
        }
    }
    // The cursor in the text colour: every hue is taken by a series (the selection blue is v6e's
    // and "reserved"'s), and a neutral line reads as "now" against all of them.
    QPen pen(theme.text, 2);
    pen.setCapStyle(Qt::FlatCap);
    cursor->setPen(pen);
    view->setBackgroundBrush(theme.window);
}

void ChartState::rebuildSeries(const Theme &theme, bool dots)
{
    QStringList signature{dots ? QStringLiteral("dots") : QStringLiteral("lines")};
    for (const Column &col : std::as_const(columns))
        signature << col.key << col.label << col.color.name();
    if (signature == builtFor)
        return;
    builtFor = signature;
    chart->removeAllSeries(); // deletes them
    lines.clear();
    areas.clear();
    lowers.clear();
    runs.clear();
    runs.resize(columns.size());
    QLineSeries *previous = nullptr;
    for (const Column &col : std::as_const(columns)) {
        auto *line = new QLineSeries;
        line->setObjectName(stacked ? col.key + QStringLiteral(":upper") : col.key);
        QPen pen(col.color, col.width, col.style);
        pen.setCapStyle(Qt::FlatCap);
        line->setPen(pen);
        if (stacked) {
            QLineSeries *lower = nullptr;
            if (previous) {
                lower = new QLineSeries;
                lower->setObjectName(col.key + QStringLiteral(":lower"));
            }
            // An area series does not own its lines: it does here, so removeAllSeries() frees them.
            auto *area = new QAreaSeries;
            area->setUpperSeries(line);
            area->setLowerSeries(lower);
            area->setObjectName(col.key);
            area->setName(col.label);
            area->setBrush(mix(col.color, theme.panel, 0.2));
            area->setPen(QPen(col.color.darker(theme.isDark ? 90 : 115), 1));
            chart->addSeries(area);
            line->setParent(area);
            if (lower)
                lower->setParent(area);
            area->attachAxis(axisX);
            area->attachAxis(axisY);
            areas << area;
            lowers << lower;
            previous = line;
        } else {
            line->setName(col.label);
            chart->addSeries(line);
            line->attachAxis(axisX);
            line->attachAxis(col.secondary && axisY2 ? axisY2 : axisY);
        }
        lines << line;
    }
}

void ChartState::fill(const SnapshotHistory *history, int n, const EntryTimes &times, int maxPoints, const QString &ageUnitText)
{
    const int columnCount = int(columns.size());
    // The plotted values, column by column (stacked: running sums, bottom layer first).
    QList<QList<double>> values(columnCount);
    for (int k = 0; k < columnCount; ++k)
        values[k].resize(n);
    for (int i = 0; i < n; ++i) {
        const HistoryPoint &p = history->point(i);
        double below = 0;
        for (int k = 0; k < columnCount; ++k) {
            const double v = columns[k].value(p);
            values[k][i] = stacked ? below + v : v;
            below = values[k][i];
        }
    }
    const QList<int> rows = keptRows(times.t, values, maxPoints);
    double maxLeft = 0, maxRight = 0;
    QList<QPointF> previous;
    for (int k = 0; k < columnCount; ++k) {
        // The kept rows as runs of known values (a NaN ends one); a line without gaps is one run.
        QList<QList<QPointF>> pieces(1);
        pieces.first().reserve(rows.size());
        for (int r : rows) {
            const double v = values[k][r];
            if (std::isnan(v)) {
                if (!pieces.last().isEmpty())
                    pieces.append(QList<QPointF>());
                continue;
            }
            pieces.last().append(QPointF(times.xs[r], v));
        }
        if (pieces.size() > 1 && pieces.last().isEmpty())
            pieces.removeLast();
        double &axisMax = columns[k].secondary ? maxRight : maxLeft;
        for (double v : std::as_const(values[k]))
            axisMax = std::max(axisMax, v); // NaN compares false: skipped
        setRuns(k, int(pieces.size()) - 1);
        const QList<QXYSeries *> drawn = seriesOf(k);
        for (int j = 0; j < drawn.size(); ++j) {
            QXYSeries *line = drawn[j];
            const bool lone = n == 1 || pieces[j].size() == 1; // a dot, not an invisible zero-length line
            line->replace(pieces[j]);
            line->setPointsVisible(lone);
            // The marker size also sets how long a legend line is (too short to show dashes): only
            // lone dots change it (one entry: the series are made anew when a second arrives; a
            // lone run: the activity lines, solid, or a run without a legend marker).
#ifndef Q_OS_WASM // the browser's Qt Charts is 5.15's (installer/web/toolchain.sh): no QXYSeries::setMarkerSize
            if (lone)
                line->setMarkerSize(7);
#endif
        }
        QList<QPointF> points = pieces.first();
        if (stacked) {
            if (lowers[k])
                lowers[k]->replace(previous);
            areas[k]->setPointsVisible(n == 1);
            previous = std::move(points);
        }
    }
    if (kind == Chart::Activity) {
        axisY->setRange(0, 100); // a percentage: the whole scale, so 40 % looks like 40 %
        setNiceTicks(axisY, 6, view);
    } else {
        const NiceRange left = niceRange(maxLeft);
        axisY->setRange(0, left.max);
        setNiceTicks(axisY, left.ticks, view);
    }
    if (axisY2) {
        const NiceRange right = niceRange(maxRight);
        axisY2->setRange(0, right.max);
        setNiceTicks(axisY2, right.ticks, view);
        axisY2->setTitleText(kind == Chart::Activity ? HistoryChartsPanel::tr("chips") : HistoryChartsPanel::tr("oldest pending (%1)").arg(ageUnitText));
    }
}

void ChartState::setRuns(int k, int extra)
{
    QList<QLineSeries *> &more = runs[k];
    while (more.size() > extra) {
        QLineSeries *run = more.takeLast();
        chart->removeSeries(run); // a series still in a chart must not be deleted
        delete run;
    }
    while (more.size() < extra) {
        QXYSeries *first = lines[k];
        auto *run = new QLineSeries;
        run->setObjectName(first->objectName());
        run->setName(first->name());
        run->setPen(first->pen());
        chart->addSeries(run);
        const QList<QAbstractAxis *> axes = first->attachedAxes();
        for (QAbstractAxis *axis : axes)
            run->attachAxis(axis);
        const QList<QLegendMarker *> markers = chart->legend()->markers(run);
        for (QLegendMarker *marker : markers)
            marker->setVisible(false); // the line is in the legend once
        more << run;
    }
}

QList<QXYSeries *> ChartState::seriesOf(int k) const
{
    QList<QXYSeries *> all{lines[k]};
    for (QLineSeries *run : runs[k])
        all << run;
    return all;
}

void ChartState::setTimeAxis(const TimeAxis &axis, int n)
{
    xMin = HistoryChartsPanel::axisValue(QDateTime::fromMSecsSinceEpoch(axis.loMs, Qt::UTC));
    xMax = HistoryChartsPanel::axisValue(QDateTime::fromMSecsSinceEpoch(axis.hiMs, Qt::UTC));
    axisX->setFormat(axis.format);
    axisX->setTickCount(int((axis.hiMs - axis.loMs) / axis.stepMs) + 1);
    axisX->setRange(QDateTime::fromMSecsSinceEpoch(qint64(xMin)), QDateTime::fromMSecsSinceEpoch(qint64(xMax)));
    axisX->setLabelsVisible(n > 0);
    axisX->setTitleText(n > 0 ? HistoryChartsPanel::tr("UTC") : QString());
}

void ChartState::updateCursor(const QDateTime &time, bool hasData)
{
    if (!time.isValid() || !hasData) {
        cursor->setVisible(false);
        return;
    }
    const double x = HistoryChartsPanel::axisValue(time);
    const QRectF plot = chart->plotArea();
    if (x < xMin || x > xMax || xMax <= xMin || plot.isEmpty()) {
        cursor->setVisible(false);
        return;
    }
    // On a whole pixel: a crisp 2-pixel line, not a blur across three.
    const double px = std::round(plot.left() + (x - xMin) / (xMax - xMin) * plot.width());
    cursor->setLine(QLineF(px, plot.top(), px, plot.bottom()));
    cursor->setVisible(true);
}

int ChartState::entryAt(const SnapshotHistory *history, QPoint viewportPos) const
{
    if (!history || history->isEmpty())
        return -1;
    const QPointF p = chart->mapFromScene(view->mapToScene(viewportPos));
    const QRectF plot = chart->plotArea();
    if (!plot.adjusted(-2, -2, 2, 2).contains(p) || plot.width() <= 0)
        return -1;
    const double x = xMin + (p.x() - plot.left()) / plot.width() * (xMax - xMin);
    const QDateTime time = HistoryChartsPanel::timeOfAxisValue(x);
    return nearestEntry(*history, time);
}

QString ChartState::hoverText(const SnapshotHistory *history, QPoint viewportPos) const
{
    const int i = entryAt(history, viewportPos);
    if (i < 0)
        return {};
    const HistoryPoint &p = history->point(i);
    QString html = QStringLiteral("<b>%1 UTC</b><table cellspacing=\"2\">").arg(utcText(p.time, QStringLiteral("yyyy-MM-dd HH:mm:ss")));
    // Stacked areas read top layer first, as they are drawn.
    QList<int> order(columns.size());
    std::iota(order.begin(), order.end(), 0);
    if (stacked)
        std::reverse(order.begin(), order.end());
    for (int k : std::as_const(order)) {
        const Column &col = columns[k];
        html += QStringLiteral("<tr><td><span style=\"color:%1\">\u25a0</span> %2</td><td align=\"right\">%3</td></tr>")
                    .arg(col.color.name(), col.label.toHtmlEscaped(), col.text(p).toHtmlEscaped());
    }
    html += QStringLiteral("</table>");
    return html;
}

QLineF ChartState::cursorLineIn(const QWidget *panel) const
{
    if (!cursor->isVisible())
        return {};
    const QLineF line = cursor->line();
    auto toPanel = [&](QPointF p) {
        const QPoint inViewport = view->mapFromScene(chart->mapToScene(p));
        return QPointF(view->viewport()->mapTo(panel, inViewport));
    };
    return QLineF(toPanel(line.p1()), toPanel(line.p2()));
}

} // namespace slicescope::historychart
