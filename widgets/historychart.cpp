// SPDX-License-Identifier: GPL-3.0-or-later
#include "historychart_p.h"

#include "history.h"
#include "timelinegeometry.h"
#include "timetext.h"

#include <QFontInfo>
#include <QFontMetricsF>
#include <QGraphicsLineItem>
#include <QGraphicsRectItem>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QtCharts/QAreaSeries>
#include <QtCharts/QChart>
#include <QtCharts/QDateTimeAxis>
#include <QtCharts/QLegend>
#include <QtCharts/QLineSeries>
#include <QtCharts/QValueAxis>

#include <QResizeEvent>

#include <algorithm>
#include <cmath>
#include <limits>
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
    setFocusPolicy(Qt::ClickFocus); // Escape on a chart the operator clicked or dragged resets the zoom
}

void ChartView::mouseMoveEvent(QMouseEvent *event)
{
    QChartView::mouseMoveEvent(event);
    const QPoint pos = event->position().toPoint();
    if (m_pressed && (event->buttons() & Qt::LeftButton)) {
        if (!m_dragging && std::abs(pos.x() - m_pressPos.x()) >= kDragThreshold)
            m_dragging = true;
        if (m_dragging && dragged)
            dragged(m_pressPos.x(), pos.x());
    }
    if (hovered)
        hovered(pos);
}

void ChartView::mousePressEvent(QMouseEvent *event)
{
    QChartView::mousePressEvent(event);
    if (event->button() != Qt::LeftButton)
        return;
    // Nothing happens yet: the release tells a click (scrub) from a drag (zoom).
    m_pressed = true;
    m_dragging = false;
    m_pressPos = event->position().toPoint();
}

void ChartView::mouseReleaseEvent(QMouseEvent *event)
{
    QChartView::mouseReleaseEvent(event);
    if (event->button() != Qt::LeftButton || !m_pressed)
        return;
    const bool wasDrag = m_dragging;
    m_pressed = m_dragging = false;
    const QPoint pos = event->position().toPoint();
    if (wasDrag) {
        if (selected)
            selected(m_pressPos.x(), pos.x());
    } else if (clicked) {
        clicked(m_pressPos);
    }
}

void ChartView::mouseDoubleClickEvent(QMouseEvent *event)
{
    // Not QChartView's (which would start a press): the double click resets the zoom. The click
    // before it has scrubbed, as any click does.
    m_pressed = m_dragging = false;
    if (event->button() == Qt::LeftButton && resetRequested)
        resetRequested();
    event->accept();
}

void ChartView::keyPressEvent(QKeyEvent *event)
{
    if (event->key() == Qt::Key_Escape && event->modifiers() == Qt::NoModifier) {
        if (m_dragging) { // Escape during a drag drops the selection
            m_pressed = m_dragging = false;
            if (dragged)
                dragged(0, 0);
            event->accept();
            return;
        }
        if (resetRequested && resetRequested()) {
            event->accept();
            return;
        }
    }
    event->ignore(); // on to the window (Escape elsewhere means something else)
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
    if (resized)
        resized();
}

void ChartView::leaveEvent(QEvent *event)
{
    QChartView::leaveEvent(event);
    if (left)
        left();
}

ChartLegend::ChartLegend(QGraphicsItem *parent)
    : QGraphicsItem(parent)
{
}

void ChartLegend::setEntries(const QList<Entry> &entries)
{
    m_entries = entries;
    m_values = QStringList(entries.size());
}

void ChartLegend::setValues(const QStringList &values)
{
    if (values == m_values)
        return;
    m_values = values;
    m_values.resize(m_entries.size());
    update();
}

void ChartLegend::setLook(const QFont &font, const QColor &text)
{
    m_font = font;
    m_text = text;
    update();
}

qreal ChartLegend::layout(qreal width)
{
    prepareGeometryChange();
    const QFontMetricsF fm(m_font);
    const qreal rowHeight = std::ceil(fm.height()) + 2, gap = std::round(fm.height() * 1.2), inner = 5;
    m_rects.clear();
    m_valueBox.clear();
    QList<QList<int>> rows{{}};
    QList<qreal> rowWidths{0};
    for (int i = 0; i < m_entries.size(); ++i) {
        const Entry &e = m_entries[i];
        const qreal box = e.widest.isEmpty() ? 0 : std::ceil(std::max(fm.horizontalAdvance(e.widest), fm.horizontalAdvance(QStringLiteral("\u2013"))));
        const qreal w = kSwatchWidth + inner + std::ceil(fm.horizontalAdvance(e.label)) + (box > 0 ? inner + box : 0);
        m_valueBox << box;
        m_rects << QRectF(0, 0, w, rowHeight);
        if (!rows.last().isEmpty() && rowWidths.last() + gap + w > width) {
            rows.append(QList<int>());
            rowWidths.append(0);
        }
        rowWidths.last() += (rows.last().isEmpty() ? 0 : gap) + w;
        rows.last().append(i);
    }
    if (m_entries.isEmpty()) {
        m_size = QSizeF(width, 0);
        return 0;
    }
    for (int r = 0; r < rows.size(); ++r) {
        qreal x = std::round((width - rowWidths[r]) / 2);
        for (int i : std::as_const(rows[r])) {
            m_rects[i].moveTo(x, r * rowHeight);
            x += m_rects[i].width() + gap;
        }
    }
    m_size = QSizeF(width, rows.size() * rowHeight);
    update();
    return m_size.height();
}

QStringList ChartLegend::texts() const
{
    QStringList out;
    for (int i = 0; i < m_entries.size(); ++i)
        out << (m_values.value(i).isEmpty() ? m_entries[i].label : m_entries[i].label + QLatin1Char(' ') + m_values[i]);
    return out;
}

QRectF ChartLegend::boundingRect() const { return QRectF(QPointF(0, 0), m_size); }

void ChartLegend::paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *)
{
    painter->setFont(m_font);
    const QFontMetricsF fm(m_font);
    for (int i = 0; i < m_entries.size() && i < m_rects.size(); ++i) {
        const Entry &e = m_entries[i];
        const QRectF r = m_rects[i];
        const qreal midY = std::round(r.center().y()) + 0.5;
        if (e.fill.style() != Qt::NoBrush) {
            const qreal side = std::round(fm.height() * 0.6);
            painter->setPen(e.pen);
            painter->setBrush(e.fill);
            painter->drawRect(QRectF(r.left() + (kSwatchWidth - side) / 2, std::round(r.center().y() - side / 2), side, side));
        } else {
            painter->setPen(e.pen);
            painter->drawLine(QPointF(r.left(), midY), QPointF(r.left() + kSwatchWidth, midY));
        }
        painter->setPen(m_text);
        const qreal labelX = r.left() + kSwatchWidth + 5;
        painter->drawText(QRectF(labelX, r.top(), r.right() - labelX, r.height()), Qt::AlignLeft | Qt::AlignVCenter, e.label);
        const QString value = m_values.value(i);
        if (!value.isEmpty() && m_valueBox[i] > 0)
            painter->drawText(QRectF(r.right() - m_valueBox[i], r.top(), m_valueBox[i], r.height()), Qt::AlignRight | Qt::AlignVCenter, value);
    }
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
    chart->legend()->setVisible(false); // ChartLegend instead: it wraps, and shows values
    legend = new ChartLegend(chart);
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
    hoverLine = new QGraphicsLineItem(chart);
    hoverLine->setZValue(999);
    hoverLine->setVisible(false);
    band = new QGraphicsRectItem(chart);
    band->setZValue(998);
    band->setData(0, QStringLiteral("zoom-band")); // how tests find it
    band->setVisible(false);
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
    legend->setLook(scaledFont(base, 0.9, false), theme.text);
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
    // The hovered time: thinner and muted, so the scrubbed time stays the one that stands out.
    QPen hoverPen(theme.mutedText, 1);
    hoverPen.setCapStyle(Qt::FlatCap);
    hoverLine->setPen(hoverPen);
    // The selection band: the theme's selection colour, see-through so the lines read under it.
    QColor fill = theme.selection;
    fill.setAlphaF(theme.isDark ? 0.25 : 0.18);
    band->setBrush(fill);
    band->setPen(QPen(theme.selection, 1));
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

void ChartState::fill(const SnapshotHistory *history, int n, const EntryTimes &times, const Rows &rows, int maxPoints,
                      const QString &ageUnitText)
{
    const int columnCount = int(columns.size());
    const int count = rows.last >= rows.first ? rows.last - rows.first + 1 : 0;
    // The drawn rows' values, column by column (stacked: running sums, bottom layer first), and
    // each column's largest value over the whole history (how wide its legend value can get).
    QList<QList<double>> values(columnCount);
    for (int k = 0; k < columnCount; ++k)
        values[k].resize(count);
    QList<double> largest(columnCount, std::numeric_limits<double>::quiet_NaN());
    for (int i = 0; i < n; ++i) {
        const HistoryPoint &p = history->point(i);
        const bool drawn = i >= rows.first && i <= rows.last;
        double below = 0;
        for (int k = 0; k < columnCount; ++k) {
            const double v = columns[k].value(p);
            if (!std::isnan(v) && !(v <= largest[k])) // NaN compares false: the first known value wins
                largest[k] = v;
            if (drawn) {
                double &cell = values[k][i - rows.first];
                cell = stacked ? below + v : v;
                below = cell;
            }
        }
    }
    widest.clear();
    for (int k = 0; k < columnCount; ++k)
        widest << (std::isnan(largest[k]) ? QStringLiteral("\u2013") : QString::number(largest[k], 'f', columns[k].decimals) + columns[k].unit);
    const QList<int> kept = keptRows(times.t.mid(rows.first, count), values, maxPoints);
    double maxLeft = 0, maxRight = 0;
    QList<QPointF> previous;
    for (int k = 0; k < columnCount; ++k) {
        // The kept rows as runs of known values (a NaN ends one); a line without gaps is one run.
        QList<QList<QPointF>> pieces(1);
        pieces.first().reserve(kept.size());
        for (int r : kept) {
            const double v = values[k][r];
            if (std::isnan(v)) {
                if (!pieces.last().isEmpty())
                    pieces.append(QList<QPointF>());
                continue;
            }
            pieces.last().append(QPointF(times.xs[rows.first + r], v));
        }
        if (pieces.size() > 1 && pieces.last().isEmpty())
            pieces.removeLast();
        // The y range fits the shown entries (a zoom refits it).
        double &axisMax = columns[k].secondary ? maxRight : maxLeft;
        for (int i = rows.fitFirst; i <= rows.fitLast && count > 0; ++i)
            axisMax = std::max(axisMax, values[k][i - rows.first]); // NaN compares false: skipped
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
        more << run; // the legend (ChartLegend) has one entry per column, whatever its runs
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

namespace {

// A vertical line item at `time` over the plot, or hidden (no time, no data, off the axis).
void placeLine(QGraphicsLineItem *item, const QChart *chart, double xMin, double xMax, const QDateTime &time, bool hasData,
               double offset)
{
    if (!time.isValid() || !hasData) {
        item->setVisible(false);
        return;
    }
    const double x = HistoryChartsPanel::axisValue(time);
    const QRectF plot = chart->plotArea();
    if (x < xMin || x > xMax || xMax <= xMin || plot.isEmpty()) {
        item->setVisible(false);
        return;
    }
    // On a whole pixel: a crisp line (2 pixels wide: the pixel's edge; 1 wide: its middle), not a blur.
    const double px = std::round(plot.left() + (x - xMin) / (xMax - xMin) * plot.width()) + offset;
    item->setLine(QLineF(px, plot.top(), px, plot.bottom()));
    item->setVisible(true);
}

} // namespace

void ChartState::updateCursor(const QDateTime &time, bool hasData)
{
    placeLine(cursor, chart, xMin, xMax, time, hasData, 0);
}

void ChartState::updateHover(const QDateTime &time, bool hasData)
{
    placeLine(hoverLine, chart, xMin, xMax, time, hasData, 0.5);
}

void ChartState::showBand(int fromX, int toX)
{
    const QRectF plot = chart->plotArea();
    auto toChart = [this](int x) {
        return chart->mapFromScene(view->mapToScene(QPoint(x, 0))).x();
    };
    const double a = std::clamp(toChart(std::min(fromX, toX)), plot.left(), plot.right());
    const double b = std::clamp(toChart(std::max(fromX, toX)), plot.left(), plot.right());
    if (plot.isEmpty() || b - a < 1) {
        band->setVisible(false);
        return;
    }
    band->setRect(QRectF(std::round(a) + 0.5, plot.top() + 0.5, std::round(b - a), plot.height() - 1));
    band->setVisible(true);
}

void ChartState::hideBand() { band->setVisible(false); }

QDateTime ChartState::timeAt(QPoint viewportPos, bool clamp) const
{
    const QPointF p = chart->mapFromScene(view->mapToScene(viewportPos));
    const QRectF plot = chart->plotArea();
    if (plot.width() <= 0)
        return {};
    if (!clamp && !plot.adjusted(-2, -2, 2, 2).contains(p))
        return {};
    const double fraction = std::clamp((p.x() - plot.left()) / plot.width(), 0.0, 1.0);
    return HistoryChartsPanel::timeOfAxisValue(xMin + fraction * (xMax - xMin));
}

void ChartState::setLegendEntries(const Theme &theme)
{
    QList<ChartLegend::Entry> entries;
    for (int k = 0; k < columns.size(); ++k) {
        const Column &col = columns[k];
        ChartLegend::Entry e;
        e.label = col.label;
        e.widest = widest.value(k);
        if (stacked) { // as the area is drawn: its fill, its outline
            e.fill = mix(col.color, theme.panel, 0.2);
            e.pen = QPen(col.color.darker(theme.isDark ? 90 : 115), 1);
        } else {
            e.pen = QPen(col.color, col.width, col.style);
            e.pen.setCapStyle(Qt::FlatCap);
        }
        entries << e;
    }
    legend->setEntries(entries);
    layoutLegend();
}

void ChartState::setLegendValues(const SnapshotHistory *history, int entry)
{
    QStringList values;
    const bool known = history && entry >= 0 && entry < history->size();
    for (const Column &col : std::as_const(columns))
        values << (known ? legendValue(col, history->point(entry)) : QString());
    legend->setValues(values);
}

void ChartState::layoutLegend()
{
    constexpr int kMargin = 4;
    const QSizeF size = chart->size();
    const qreal height = legend->layout(std::max<qreal>(0, size.width() - 4 * kMargin));
    legend->setPos(2 * kMargin, size.height() - kMargin - height - (height > 0 ? 2 : 0));
    const QMargins margins(kMargin, kMargin, kMargin, kMargin + int(std::ceil(height)) + (height > 0 ? 4 : 0));
    if (chart->margins() != margins)
        chart->setMargins(margins);
}

int ChartState::entryAt(const SnapshotHistory *history, QPoint viewportPos) const
{
    if (!history || history->isEmpty())
        return -1;
    const QDateTime time = timeAt(viewportPos, false);
    return time.isValid() ? nearestEntry(*history, time) : -1;
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

QLineF ChartState::lineIn(const QGraphicsLineItem *item, const QWidget *panel) const
{
    if (!item->isVisible())
        return {};
    const QLineF line = item->line();
    auto toPanel = [&](QPointF p) {
        const QPoint inViewport = view->mapFromScene(chart->mapToScene(p));
        return QPointF(view->viewport()->mapTo(panel, inViewport));
    };
    return QLineF(toPanel(line.p1()), toPanel(line.p2()));
}

} // namespace slicescope::historychart
