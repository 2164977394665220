// SPDX-License-Identifier: GPL-3.0-or-later
#include "historycharts.h"

#include "history.h"
#include "tpu.h"

#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFontInfo>
#include <QGraphicsLayout>
#include <QGraphicsLineItem>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHash>
#include <QLabel>
#include <QMouseEvent>
#include <QPointer>
#include <QSet>
#include <QShowEvent>
#include <QTimer>
#include <QToolTip>
#include <QVBoxLayout>
#include <QtCharts/QAreaSeries>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QDateTimeAxis>
#include <QtCharts/QLegend>
#include <QtCharts/QLineSeries>
#include <QtCharts/QValueAxis>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>

namespace slicescope {

namespace {

using Chart = HistoryChartsPanel::Chart;

// A stable colour per TPU generation, keyed by its place in tpu::generations() (never by the
// order a history happens to meet them), so v6e is the same blue in every chart and screenshot.
QColor generationColor(const QString &label, const Theme &theme)
{
    static const std::array<QRgb, 6> light{0x0f8b8d, 0xc2680a, 0x7c3aed, 0x2563eb, 0x65a30d, 0x0891b2};
    static const std::array<QRgb, 6> dark{0x2dd4bf, 0xfbbf24, 0xa78bfa, 0x60a5fa, 0xa3e635, 0x22d3ee};
    const QList<tpu::Generation> &all = tpu::generations();
    for (int i = 0; i < all.size(); ++i)
        if (all[i].name == label)
            return QColor(theme.isDark ? dark[size_t(i) % dark.size()] : light[size_t(i) % light.size()]);
    return theme.mutedText; // "unknown"
}

QColor ageColor(const Theme &theme) { return theme.isDark ? QColor(0xf472b6) : QColor(0xdb2777); }

// "1 slice", "3 slices": English, like the rest of the UI (no translations ship yet).
QString counted(int n, const QString &one, const QString &many)
{
    return n == 1 ? QStringLiteral("1 ") + one : QStringLiteral("%1 ").arg(n) + many;
}

QString utcText(const QDateTime &time, const QString &format) { return time.toUTC().toString(format); }

QString ageText(qint64 ms)
{
    const qint64 s = ms / 1000;
    if (s < 60)
        return QStringLiteral("%1 s").arg(s);
    if (s < 3600)
        return QStringLiteral("%1 min %2 s").arg(s / 60).arg(s % 60);
    return QStringLiteral("%1 h %2 min").arg(s / 3600).arg((s % 3600) / 60);
}

// One plotted quantity: a line (or a stacked area) and how to read it from a point.
struct Column {
    QString key;            // the series' object name
    QString label;          // legend and hover text
    QColor color;
    Qt::PenStyle style = Qt::SolidLine;
    qreal width = 2;
    bool secondary = false; // on the right-hand axis (chart 3's oldest pending age)
    std::function<double(const HistoryPoint &)> value;
    std::function<QString(const HistoryPoint &)> text; // hover text of the value
};

// An axis range with round ticks.
struct NiceRange {
    double max = 1;
    int ticks = 2;
    double step = 1;
};

// Whole steps only: every axis counts things, or ages in a unit picked so they run past 5
// (no "1, 1, 2" labels from rounding halves).
NiceRange niceRange(double maxValue, int maxIntervals = 6)
{
    const double v = std::max(maxValue, 1.0) * 1.05; // a little headroom: the top line stays visible
    for (double magnitude = 1;; magnitude *= 10) {
        for (double m : {1.0, 2.0, 5.0}) {
            const double step = m * magnitude;
            const double intervals = std::ceil(v / step - 1e-9);
            if (intervals <= maxIntervals)
                return {intervals * step, int(intervals) + 1, step};
        }
    }
}

// Round time steps for the x axis, in seconds.
constexpr std::array<qint64, 20> kTimeSteps{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200,
                                            10800, 21600, 43200, 86400, 172800, 604800};

// Which rows of a table to draw, when there are more than `maxPoints`: first the rows whose
// every column lies on the straight line between its neighbours go (exact: the polyline does not
// change); then, if still too many, per time bucket the rows holding each column's minimum and
// maximum (spikes survive), with fewer buckets until the rows fit.
QList<int> keptRows(const QList<double> &t, const QList<QList<double>> &columns, int maxPoints)
{
    const int n = int(t.size());
    QList<int> rows;
    if (n <= maxPoints) {
        rows.resize(n);
        std::iota(rows.begin(), rows.end(), 0);
        return rows;
    }
    rows.reserve(n);
    rows.append(0);
    for (int i = 1; i + 1 < n; ++i) {
        bool keep = false;
        for (const QList<double> &c : columns) {
            const double lhs = (c[i] - c[i - 1]) * (t[i + 1] - t[i - 1]);
            const double rhs = (c[i + 1] - c[i - 1]) * (t[i] - t[i - 1]);
            if (std::abs(lhs - rhs) > 1e-9 * std::max(std::abs(lhs), std::abs(rhs)) + 1e-12) {
                keep = true;
                break;
            }
        }
        if (keep)
            rows.append(i);
    }
    rows.append(n - 1);
    if (rows.size() <= maxPoints)
        return rows;

    const double t0 = t.first(), span = std::max(t.last() - t.first(), 1.0);
    for (int buckets = std::max(1, maxPoints / 2);; buckets = std::max(1, buckets / 2)) {
        QList<int> out;
        out.reserve(maxPoints + 2);
        out.append(0);
        int i = 0;
        while (i < n) {
            const int bucket = std::min(buckets - 1, int((t[i] - t0) / span * buckets));
            int end = i + 1;
            while (end < n && std::min(buckets - 1, int((t[end] - t0) / span * buckets)) == bucket)
                ++end;
            QList<int> picks;
            for (const QList<double> &c : columns) {
                int lo = i, hi = i;
                for (int r = i + 1; r < end; ++r) {
                    if (c[r] < c[lo])
                        lo = r;
                    if (c[r] > c[hi])
                        hi = r;
                }
                picks << lo << hi;
            }
            std::sort(picks.begin(), picks.end());
            for (int r : std::as_const(picks))
                if (r != out.last())
                    out.append(r);
            i = end;
        }
        if (out.last() != n - 1)
            out.append(n - 1);
        if (out.size() <= maxPoints || buckets == 1)
            return out;
    }
}

// The chart's view: forwards hover and clicks to the panel.
class ChartView : public QChartView
{
public:
    ChartView(QChart *chart, QWidget *parent)
        : QChartView(chart, parent)
    {
        setMouseTracking(true);
        setRenderHint(QPainter::Antialiasing);
        setFrameShape(QFrame::NoFrame);
        setRubberBand(QChartView::NoRubberBand);
        setDragMode(QGraphicsView::NoDrag);
        setFocusPolicy(Qt::NoFocus);
    }
    std::function<void(QPoint)> hovered;
    std::function<void(QPoint)> clicked;
    std::function<void()> left;

protected:
    void mouseMoveEvent(QMouseEvent *event) override
    {
        QChartView::mouseMoveEvent(event);
        if (hovered)
            hovered(event->position().toPoint());
    }
    void mousePressEvent(QMouseEvent *event) override
    {
        QChartView::mousePressEvent(event);
        if (event->button() == Qt::LeftButton && clicked)
            clicked(event->position().toPoint());
    }
    void leaveEvent(QEvent *event) override
    {
        QChartView::leaveEvent(event);
        if (left)
            left();
    }
};

// One of the four charts and what was last drawn in it.
struct ChartState {
    Chart kind = Chart::Chips;
    QString unit;                 // "chips", "slices", "groups"
    bool stacked = false;
    QChart *chart = nullptr;
    ChartView *view = nullptr;
    QDateTimeAxis *axisX = nullptr;
    QValueAxis *axisY = nullptr;
    QValueAxis *axisY2 = nullptr; // placement groups: oldest pending age
    QGraphicsLineItem *cursor = nullptr;
    QList<Column> columns;
    QStringList builtFor;         // column keys + labels the current series were made for
    QList<QXYSeries *> lines;     // per column: the line, or the area's upper line
    QList<QAreaSeries *> areas;   // stacked: per column
    QList<QLineSeries *> lowers;  // stacked: per column (the first one is null: the baseline)
    double xMin = 0, xMax = 1;    // axis values
};

} // namespace

struct HistoryChartsPanel::Private {
    HistoryChartsPanel *q;
    QPointer<const SnapshotHistory> history;
    QList<QMetaObject::Connection> connections;
    Theme theme = Theme::light();
    QDateTime cursor;
    QString generation, workerGroup;
    QStringList generations, workerGroups;
    int refreshInterval = kDefaultRefreshIntervalMs;
    int maxPoints = kDefaultMaxPointsPerSeries;
    int refreshCount = 0;
    double lastRefreshMs = 0;
    bool dirty = true;
    QTimer timer;
    QElapsedTimer sinceRefresh;
    std::array<ChartState, kChartCount> charts;
    QComboBox *generationBox = nullptr;
    QComboBox *workerGroupBox = nullptr;
    QLabel *summary = nullptr;
    // The age axis' unit, picked per refresh from the longest wait in the history.
    qint64 ageUnitMs = 1000;
    QString ageUnitText = QStringLiteral("s");

    explicit Private(HistoryChartsPanel *owner)
        : q(owner)
    { }

    ChartState &state(Chart c) { return charts[size_t(c)]; }
    const ChartState &state(Chart c) const { return charts[size_t(c)]; }

    void buildUi();
    void styleChart(ChartState &c);
    void scheduleRefresh();
    void refresh();
    void updatePickers(int n);
    QList<Column> columnsFor(Chart kind, int n);
    void rebuildSeries(ChartState &c, bool dots);
    void fill(ChartState &c, int n, const QList<double> &t, const QList<double> &xs);
    void setTimeRange(int n, const QList<qint64> &ms);
    void updateCursor(ChartState &c);
    void updateCursors()
    {
        for (ChartState &c : charts)
            updateCursor(c);
    }
    int entryAt(const ChartState &c, QPoint viewportPos) const;
    QString hoverText(const ChartState &c, QPoint viewportPos) const;
    QFont font(double factor, bool bold) const
    {
        QFont f = q->font();
        f.setPixelSize(std::max(8, int(std::lround(std::max(9, QFontInfo(q->font()).pixelSize()) * factor))));
        f.setBold(bold);
        return f;
    }
};

void HistoryChartsPanel::Private::buildUi()
{
    auto *outer = new QVBoxLayout(q);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->setSpacing(4);

    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(6, 4, 6, 0);
    auto *generationLabel = new QLabel(tr("Generation"), q);
    generationBox = new QComboBox(q);
    generationBox->setObjectName(QStringLiteral("generation"));
    generationBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    generationLabel->setBuddy(generationBox);
    auto *groupLabel = new QLabel(tr("Worker group"), q);
    workerGroupBox = new QComboBox(q);
    workerGroupBox->setObjectName(QStringLiteral("workerGroup"));
    workerGroupBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    groupLabel->setBuddy(workerGroupBox);
    summary = new QLabel(q);
    summary->setObjectName(QStringLiteral("summary"));
    summary->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    bar->addWidget(generationLabel);
    bar->addWidget(generationBox);
    bar->addSpacing(12);
    bar->addWidget(groupLabel);
    bar->addWidget(workerGroupBox);
    bar->addStretch(1);
    bar->addWidget(summary);
    outer->addLayout(bar);

    QObject::connect(generationBox, &QComboBox::activated, q, [this](int index) {
        q->setGeneration(generationBox->itemData(index).toString());
    });
    QObject::connect(workerGroupBox, &QComboBox::activated, q, [this](int index) {
        q->setWorkerGroup(workerGroupBox->itemData(index).toString());
    });

    auto *grid = new QGridLayout;
    grid->setContentsMargins(4, 0, 4, 4);
    grid->setSpacing(4);
    const std::array<std::pair<Chart, QString>, kChartCount> kinds{{
        {Chart::Chips, tr("chips")},
        {Chart::Slices, tr("slices")},
        {Chart::PlacementGroups, tr("groups")},
        {Chart::WorkerGroups, tr("slices")},
    }};
    for (int i = 0; i < kChartCount; ++i) {
        ChartState &c = charts[size_t(i)];
        c.kind = kinds[size_t(i)].first;
        c.unit = kinds[size_t(i)].second;
        c.stacked = c.kind == Chart::Slices;
        c.chart = new QChart;
        c.chart->setAnimationOptions(QChart::NoAnimation);
        c.chart->setMargins(QMargins(4, 4, 4, 4));
        c.chart->setBackgroundRoundness(6);
        c.chart->legend()->setAlignment(Qt::AlignBottom);
        // Lines show solid vs dashed in the legend; areas keep filled squares.
        c.chart->legend()->setMarkerShape(c.kind == Chart::Slices ? QLegend::MarkerShapeRectangle : QLegend::MarkerShapeFromSeries);
        c.axisX = new QDateTimeAxis(c.chart);
        c.axisY = new QValueAxis(c.chart);
        c.axisY->setLabelFormat(QStringLiteral("%.0f"));
        c.axisY->setTitleText(c.unit);
        c.chart->addAxis(c.axisX, Qt::AlignBottom);
        c.chart->addAxis(c.axisY, Qt::AlignLeft);
        if (c.kind == Chart::PlacementGroups) {
            c.axisY2 = new QValueAxis(c.chart);
            c.axisY2->setLabelFormat(QStringLiteral("%.0f"));
            c.chart->addAxis(c.axisY2, Qt::AlignRight);
        }
        c.cursor = new QGraphicsLineItem(c.chart);
        c.cursor->setZValue(1000);
        c.cursor->setVisible(false);
        c.view = new ChartView(c.chart, q);
        c.view->setObjectName(QStringLiteral("chart%1").arg(i));
        c.view->setMinimumSize(240, 180);
        const Chart kind = c.kind;
        c.view->hovered = [this, kind](QPoint pos) {
            const ChartState &s = state(kind);
            const QString text = hoverText(s, pos);
            if (text.isEmpty())
                QToolTip::hideText();
            else
                QToolTip::showText(s.view->viewport()->mapToGlobal(pos), text, s.view->viewport());
        };
        c.view->clicked = [this, kind](QPoint pos) {
            const int entry = entryAt(state(kind), pos);
            if (entry >= 0)
                Q_EMIT q->cursorTimeRequested(history->time(entry));
        };
        c.view->left = [] {
            QToolTip::hideText();
        };
        QObject::connect(c.chart, &QChart::plotAreaChanged, q, [this, kind] { updateCursor(state(kind)); });
        grid->addWidget(c.view, i / 2, i % 2);
    }
    grid->setRowStretch(0, 1);
    grid->setRowStretch(1, 1);
    grid->setColumnStretch(0, 1);
    grid->setColumnStretch(1, 1);
    outer->addLayout(grid, 1);

    timer.setSingleShot(true);
    QObject::connect(&timer, &QTimer::timeout, q, [this] { refresh(); });
}

void HistoryChartsPanel::Private::styleChart(ChartState &c)
{
    const QColor grid = mix(theme.border, theme.panel, theme.isDark ? 0.25 : 0.45);
    c.chart->setBackgroundBrush(theme.panel);
    c.chart->setBackgroundPen(QPen(theme.border, 1));
    c.chart->setPlotAreaBackgroundVisible(false);
    c.chart->setTitleBrush(theme.text);
    c.chart->setTitleFont(font(1.05, true));
    c.chart->legend()->setLabelColor(theme.text);
    c.chart->legend()->setFont(font(0.9, false));
    c.chart->legend()->setBrush(Qt::NoBrush);
    c.chart->legend()->setPen(Qt::NoPen);
    QList<QAbstractAxis *> axes{c.axisX, c.axisY};
    if (c.axisY2)
        axes << c.axisY2;
    for (QAbstractAxis *axis : std::as_const(axes)) {
        axis->setLabelsBrush(theme.mutedText);
        axis->setLabelsFont(font(0.9, false));
        axis->setTitleBrush(theme.mutedText);
        axis->setTitleFont(font(0.9, false));
        axis->setLinePen(QPen(theme.border, 1));
        axis->setGridLineColor(grid);
        axis->setMinorGridLineVisible(false);
        axis->setShadesVisible(false);
    }
    if (c.axisY2) {
        c.axisY2->setGridLineVisible(false);
        c.axisY2->setLabelsBrush(ageColor(theme));
        c.axisY2->setTitleBrush(ageColor(theme));
    }
    // The cursor in the text colour: every hue is taken by a series (the selection blue is v6e's
    // and "reserved"'s), and a neutral line reads as "now" against all of them.
    QPen pen(theme.text, 2);
    pen.setCapStyle(Qt::FlatCap);
    c.cursor->setPen(pen);
    c.view->setBackgroundBrush(theme.window);
}

void HistoryChartsPanel::Private::scheduleRefresh()
{
    dirty = true;
    if (!q->isVisible()) // hidden (another tab): showEvent() catches up
        return;
    if (timer.isActive())
        return; // a redraw is due already; it will read everything that arrived until then
    const qint64 since = sinceRefresh.isValid() ? sinceRefresh.elapsed() : std::numeric_limits<qint64>::max();
    timer.start(int(std::clamp<qint64>(refreshInterval - since, 0, refreshInterval)));
}

void HistoryChartsPanel::Private::updatePickers(int n)
{
    QStringList gens, groups;
    QSet<QString> seenGroups;
    for (int i = 0; i < n; ++i) {
        const HistoryPoint &p = history->point(i);
        for (const GenerationStats &g : p.generations)
            if (!gens.contains(g.label))
                gens << g.label;
        for (const WorkerGroupPoint &w : p.workerGroups)
            if (!seenGroups.contains(w.qualifiedName)) {
                seenGroups.insert(w.qualifiedName);
                groups << w.qualifiedName;
            }
    }
    std::stable_sort(gens.begin(), gens.end(), [](const QString &a, const QString &b) { return tpu::generationOrder(tpu::findGeneration(a)) < tpu::generationOrder(tpu::findGeneration(b)); });
    // A pick the history no longer holds falls back to "all".
    if (!generation.isEmpty() && !gens.contains(generation))
        generation.clear();
    if (!workerGroup.isEmpty() && !groups.contains(workerGroup))
        workerGroup.clear();

    auto fillBox = [](QComboBox *box, const QString &allText, const QStringList &items, const QString &current) {
        const QSignalBlocker blocker(box);
        QStringList present;
        for (int i = 1; i < box->count(); ++i)
            present << box->itemData(i).toString();
        if (box->count() == 0 || present != items || box->itemText(0) != allText) {
            box->clear();
            box->addItem(allText, QString());
            for (const QString &item : items)
                box->addItem(item, item);
        }
        box->setCurrentIndex(std::max(0, box->findData(current)));
    };
    fillBox(generationBox, tr("every generation"), gens, generation);
    fillBox(workerGroupBox, tr("all groups (sum)"), groups, workerGroup);
    generations = gens;
    workerGroups = groups;
}

QList<Column> HistoryChartsPanel::Private::columnsFor(Chart kind, int n)
{
    QList<Column> cols;
    auto count = [](int v) {
        return QString::number(v);
    };
    switch (kind) {
    case Chart::Chips: {
        const QStringList shown = generation.isEmpty() ? generations : QStringList{generation};
        for (const QString &g : shown) {
            const QColor color = generationColor(g, theme);
            auto reserved = [g](const HistoryPoint &p) {
                const GenerationStats *s = p.generation(g);
                return s ? s->counts.reservedChips : 0;
            };
            auto free = [g](const HistoryPoint &p) {
                const GenerationStats *s = p.generation(g);
                return s ? s->counts.freeChips : 0;
            };
            cols << Column{QStringLiteral("reserved:") + g, tr("%1 reserved").arg(g), color, Qt::SolidLine, 2, false,
                           [reserved](const HistoryPoint &p) { return double(reserved(p)); },
                           [reserved, count](const HistoryPoint &p) { return tr("%1 chips").arg(count(reserved(p))); }};
            cols << Column{QStringLiteral("free:") + g, tr("%1 free").arg(g), color, Qt::DashLine, 2, false,
                           [free](const HistoryPoint &p) { return double(free(p)); },
                           [free, count](const HistoryPoint &p) { return tr("%1 chips").arg(count(free(p))); }};
        }
        break;
    }
    case Chart::Slices: {
        struct Use {
            const char *key;
            QString label;
            QColor color;
            int (*value)(const FleetCounts &);
        };
        const QColor partly = mix(theme.reserved, theme.panel, 0.5);
        const std::array<Use, 5> uses{{
            {"ready", tr("ready"), theme.ready, [](const FleetCounts &f) { return f.ready; }},
            {"partly-used", tr("partly used"), partly, [](const FleetCounts &f) { return f.partlyUsed; }},
            {"reserved", tr("reserved"), theme.reserved, [](const FleetCounts &f) { return f.fullyReserved + f.claimed; }},
            {"provisioning", tr("provisioning"), theme.provisioning, [](const FleetCounts &f) { return f.provisioning; }},
            {"degraded", tr("degraded"), theme.degraded, [](const FleetCounts &f) { return f.degraded; }},
        }};
        for (const Use &u : uses) {
            auto value = u.value;
            cols << Column{QStringLiteral("slices:") + QLatin1String(u.key), u.label, u.color, Qt::SolidLine, 1, false,
                           [value](const HistoryPoint &p) { return double(value(p.fleet)); },
                           [value](const HistoryPoint &p) { return counted(value(p.fleet), tr("slice"), tr("slices")); }};
        }
        break;
    }
    case Chart::PlacementGroups: {
        // PENDING and CREATED always; the rarer states only when the history has them.
        bool prepared = false, rescheduling = false, other = false;
        qint64 maxAge = 0;
        for (int i = 0; i < n; ++i) {
            const PlacementGroupCounts &g = history->point(i).placementGroups;
            prepared = prepared || g.prepared > 0;
            rescheduling = rescheduling || g.rescheduling > 0;
            other = other || g.other > 0;
            maxAge = std::max(maxAge, g.oldestPendingMs);
        }
        // Seconds up to 5 minutes, minutes up to 5 hours, then hours: axis labels stay short.
        ageUnitMs = maxAge < 300 * 1000 ? 1000 : maxAge < 300 * 60 * 1000 ? 60 * 1000
                                                                          : 3600 * 1000;
        ageUnitText = ageUnitMs == 1000 ? tr("s") : ageUnitMs == 60 * 1000 ? tr("min")
                                                                           : tr("h");
        auto groups = [](int v) {
            return counted(v, tr("group"), tr("groups"));
        };
        cols << Column{QStringLiteral("pg:PENDING"), tr("pending"), theme.pending, Qt::SolidLine, 2, false,
                       [](const HistoryPoint &p) { return double(p.placementGroups.pending); },
                       [groups](const HistoryPoint &p) { return groups(p.placementGroups.pending); }};
        if (prepared)
            cols << Column{QStringLiteral("pg:PREPARED"), tr("prepared"), theme.iciLink, Qt::SolidLine, 2, false,
                           [](const HistoryPoint &p) { return double(p.placementGroups.prepared); },
                           [groups](const HistoryPoint &p) { return groups(p.placementGroups.prepared); }};
        cols << Column{QStringLiteral("pg:CREATED"), tr("created"), theme.reserved, Qt::SolidLine, 2, false,
                       [](const HistoryPoint &p) { return double(p.placementGroups.created); },
                       [groups](const HistoryPoint &p) { return groups(p.placementGroups.created); }};
        if (rescheduling)
            cols << Column{QStringLiteral("pg:RESCHEDULING"), tr("rescheduling"), theme.degraded, Qt::SolidLine, 2, false,
                           [](const HistoryPoint &p) { return double(p.placementGroups.rescheduling); },
                           [groups](const HistoryPoint &p) { return groups(p.placementGroups.rescheduling); }};
        if (other)
            cols << Column{QStringLiteral("pg:other"), tr("other"), theme.mutedText, Qt::SolidLine, 2, false,
                           [](const HistoryPoint &p) { return double(p.placementGroups.other); },
                           [groups](const HistoryPoint &p) { return groups(p.placementGroups.other); }};
        const double unit = double(ageUnitMs);
        cols << Column{QStringLiteral("pg:oldest-pending"), tr("oldest pending"), ageColor(theme), Qt::DashLine, 2, true,
                       [unit](const HistoryPoint &p) { return p.placementGroups.oldestPendingMs < 0 ? 0.0 : double(p.placementGroups.oldestPendingMs) / unit; },
                       [](const HistoryPoint &p) {
                           const PlacementGroupCounts &g = p.placementGroups;
                           return g.oldestPendingMs < 0 ? tr("none pending") : tr("%1 (%2)").arg(ageText(g.oldestPendingMs), g.oldestPendingId.left(12));
                       }};
        break;
    }
    case Chart::WorkerGroups: {
        const QString group = workerGroup;
        // Summed over all groups, or the picked group's (0 while it does not exist).
        auto read = [group](const HistoryPoint &p, int WorkerGroupPoint::*member) {
            if (!group.isEmpty()) {
                const WorkerGroupPoint *w = p.workerGroup(group);
                return w ? w->*member : 0;
            }
            int sum = 0;
            for (const WorkerGroupPoint &w : p.workerGroups)
                sum += w.*member;
            return sum;
        };
        struct Line {
            const char *key;
            QString label;
            QColor color;
            Qt::PenStyle style;
            qreal width;
            int WorkerGroupPoint::*member;
        };
        const std::array<Line, 3> lines{{
            {"desired", tr("desired"), theme.reserved, Qt::DashLine, 2, &WorkerGroupPoint::desired},
            {"ready", tr("ready"), theme.ready, Qt::SolidLine, 2, &WorkerGroupPoint::ready},
            {"slices", tr("present (any state)"), theme.mutedText, Qt::DotLine, 1.5, &WorkerGroupPoint::slices},
        }};
        for (const Line &l : lines) {
            const auto member = l.member;
            cols << Column{QStringLiteral("wg:") + QLatin1String(l.key), l.label, l.color, l.style, l.width, false,
                           [read, member](const HistoryPoint &p) { return double(read(p, member)); },
                           [read, member](const HistoryPoint &p) { return counted(read(p, member), tr("slice"), tr("slices")); }};
        }
        break;
    }
    }
    return cols;
}

void HistoryChartsPanel::Private::rebuildSeries(ChartState &c, bool dots)
{
    QStringList signature{dots ? QStringLiteral("dots") : QStringLiteral("lines")};
    for (const Column &col : std::as_const(c.columns))
        signature << col.key << col.label << col.color.name();
    if (signature == c.builtFor)
        return;
    c.builtFor = signature;
    c.chart->removeAllSeries(); // deletes them
    c.lines.clear();
    c.areas.clear();
    c.lowers.clear();
    QLineSeries *previous = nullptr;
    for (const Column &col : std::as_const(c.columns)) {
        auto *line = new QLineSeries;
        line->setObjectName(c.stacked ? col.key + QStringLiteral(":upper") : col.key);
        QPen pen(col.color, col.width, col.style);
        pen.setCapStyle(Qt::FlatCap);
        line->setPen(pen);
        if (c.stacked) {
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
            c.chart->addSeries(area);
            line->setParent(area);
            if (lower)
                lower->setParent(area);
            area->attachAxis(c.axisX);
            area->attachAxis(c.axisY);
            c.areas << area;
            c.lowers << lower;
            previous = line;
        } else {
            line->setName(col.label);
            c.chart->addSeries(line);
            line->attachAxis(c.axisX);
            line->attachAxis(col.secondary && c.axisY2 ? c.axisY2 : c.axisY);
        }
        c.lines << line;
    }
}

void HistoryChartsPanel::Private::fill(ChartState &c, int n, const QList<double> &t, const QList<double> &xs)
{
    const int columns = int(c.columns.size());
    // The plotted values, column by column (stacked: running sums, bottom layer first).
    QList<QList<double>> values(columns);
    for (int k = 0; k < columns; ++k)
        values[k].resize(n);
    for (int i = 0; i < n; ++i) {
        const HistoryPoint &p = history->point(i);
        double below = 0;
        for (int k = 0; k < columns; ++k) {
            const double v = c.columns[k].value(p);
            values[k][i] = c.stacked ? below + v : v;
            below = values[k][i];
        }
    }
    const QList<int> rows = keptRows(t, values, maxPoints);
    double maxLeft = 0, maxRight = 0;
    QList<QPointF> previous;
    for (int k = 0; k < columns; ++k) {
        QList<QPointF> points;
        points.reserve(rows.size());
        for (int r : rows)
            points.append(QPointF(xs[r], values[k][r]));
        double &axisMax = c.columns[k].secondary ? maxRight : maxLeft;
        for (double v : std::as_const(values[k]))
            axisMax = std::max(axisMax, v);
        c.lines[k]->replace(points);
        c.lines[k]->setPointsVisible(n == 1); // one entry: a dot, not an invisible zero-length line
        // The marker size also sets how long a legend line is (too short to show dashes): only the
        // lone dots change it, and the series are made anew when a second entry arrives.
#ifndef Q_OS_WASM // the browser's Qt Charts is 5.15's (installer/web/toolchain.sh): no QXYSeries::setMarkerSize
        if (n == 1)
            c.lines[k]->setMarkerSize(7);
#endif
        if (c.stacked) {
            if (c.lowers[k])
                c.lowers[k]->replace(previous);
            c.areas[k]->setPointsVisible(n == 1);
            previous = std::move(points);
        }
    }
    const NiceRange left = niceRange(maxLeft);
    c.axisY->setRange(0, left.max);
    c.axisY->setTickCount(left.ticks);
    if (c.axisY2) {
        const NiceRange right = niceRange(maxRight);
        c.axisY2->setRange(0, right.max);
        c.axisY2->setTickCount(right.ticks);
        c.axisY2->setTitleText(tr("oldest pending (%1)").arg(ageUnitText));
    }
}

void HistoryChartsPanel::Private::setTimeRange(int n, const QList<qint64> &ms)
{
    qint64 first = 0, last = 60 * 1000;
    if (n > 0) {
        first = ms.first();
        last = ms.last();
        if (last - first < 10 * 1000) { // one entry, or a few close together: a minute around them
            const qint64 middle = first + (last - first) / 2;
            first = middle - 30 * 1000;
            last = middle + 30 * 1000;
        }
    }
    // Ticks on round UTC times: the smallest round step that needs at most 6 intervals.
    qint64 step = kTimeSteps.back() * 1000, lo = first, hi = last;
    for (qint64 s : kTimeSteps) {
        const qint64 stepMs = s * 1000;
        const qint64 a = qint64(std::floor(double(first) / double(stepMs))) * stepMs;
        const qint64 b = qint64(std::ceil(double(last) / double(stepMs))) * stepMs;
        if ((b - a) / stepMs <= 6) {
            step = stepMs;
            lo = a;
            hi = b == a ? a + stepMs : b;
            break;
        }
    }
    const QString format = step < 60 * 1000 ? QStringLiteral("HH:mm:ss") : hi - lo > 86400 * 1000 ? QStringLiteral("MM-dd HH:mm")
                                                                                                  : QStringLiteral("HH:mm");
    const qreal xMin = axisValue(QDateTime::fromMSecsSinceEpoch(lo, Qt::UTC));
    const qreal xMax = axisValue(QDateTime::fromMSecsSinceEpoch(hi, Qt::UTC));
    for (ChartState &c : charts) {
        c.xMin = xMin;
        c.xMax = xMax;
        c.axisX->setFormat(format);
        c.axisX->setTickCount(int((hi - lo) / step) + 1);
        c.axisX->setRange(QDateTime::fromMSecsSinceEpoch(qint64(xMin)), QDateTime::fromMSecsSinceEpoch(qint64(xMax)));
        c.axisX->setLabelsVisible(n > 0);
        c.axisX->setTitleText(n > 0 ? tr("UTC") : QString());
    }
}

void HistoryChartsPanel::Private::refresh()
{
    QElapsedTimer clock;
    clock.start();
    timer.stop();
    dirty = false;
    ++refreshCount;
    const int n = history ? history->size() : 0;

    // Times as epoch ms (decimation) and as axis values. The local-time offset that axisValue()
    // undoes changes at most on the hour: compute it once per hour of history.
    QList<qint64> ms(n);
    QList<double> t(n), xs(n);
    QHash<qint64, qint64> offsetOfHour;
    for (int i = 0; i < n; ++i) {
        const QDateTime time = history->time(i);
        ms[i] = time.toMSecsSinceEpoch();
        t[i] = double(ms[i] - ms[0]);
        const qint64 hour = ms[i] / (3600 * 1000);
        auto it = offsetOfHour.constFind(hour);
        if (it == offsetOfHour.constEnd())
            it = offsetOfHour.insert(hour, qint64(axisValue(QDateTime::fromMSecsSinceEpoch(hour * 3600 * 1000, Qt::UTC))) - hour * 3600 * 1000);
        xs[i] = double(ms[i] + it.value());
    }

    if (history)
        updatePickers(n);
    else
        updatePickers(0);

    const std::array<QString, kChartCount> titles{
        tr("TPU chips: reserved (solid) vs free (dashed)"), tr("Slices by use"),
        tr("Placement groups by state, and the oldest pending"), tr("Worker group slices: desired vs ready")};
    for (ChartState &c : charts) {
        // No entries, no series: the empty charts show their axes and "no history yet" only.
        c.columns = n > 0 ? columnsFor(c.kind, n) : QList<Column>();
        rebuildSeries(c, n == 1);
        fill(c, n, t, xs);
        QString title = titles[size_t(c.kind)];
        if (c.kind == Chart::Chips && !generation.isEmpty())
            title += QStringLiteral(" \u00b7 ") + generation;
        if (c.kind == Chart::WorkerGroups)
            title += QStringLiteral(" \u00b7 ") + (workerGroup.isEmpty() ? tr("all groups") : workerGroup);
        if (n == 0)
            title += QStringLiteral(" \u00b7 ") + tr("no history yet");
        c.chart->setTitle(title);
    }
    setTimeRange(n, ms);

    if (n == 0)
        summary->setText(tr("no snapshots yet"));
    else
        summary->setText((counted(n, tr("snapshot"), tr("snapshots")) + tr(", %1 \u2013 %2 UTC").arg(utcText(history->time(0), QStringLiteral("HH:mm:ss")), utcText(history->time(n - 1), QStringLiteral("HH:mm:ss")))));
    updateCursors();
    lastRefreshMs = double(clock.nsecsElapsed()) / 1e6;
    sinceRefresh.start();
}

void HistoryChartsPanel::Private::updateCursor(ChartState &c)
{
    const bool hasData = history && !history->isEmpty();
    if (!cursor.isValid() || !hasData) {
        c.cursor->setVisible(false);
        return;
    }
    const double x = axisValue(cursor);
    const QRectF plot = c.chart->plotArea();
    if (x < c.xMin || x > c.xMax || c.xMax <= c.xMin || plot.isEmpty()) {
        c.cursor->setVisible(false);
        return;
    }
    // On a whole pixel: a crisp 2-pixel line, not a blur across three.
    const double px = std::round(plot.left() + (x - c.xMin) / (c.xMax - c.xMin) * plot.width());
    c.cursor->setLine(QLineF(px, plot.top(), px, plot.bottom()));
    c.cursor->setVisible(true);
}

int HistoryChartsPanel::Private::entryAt(const ChartState &c, QPoint viewportPos) const
{
    if (!history || history->isEmpty())
        return -1;
    const QPointF p = c.chart->mapFromScene(c.view->mapToScene(viewportPos));
    const QRectF plot = c.chart->plotArea();
    if (!plot.adjusted(-2, -2, 2, 2).contains(p) || plot.width() <= 0)
        return -1;
    const double x = c.xMin + (p.x() - plot.left()) / plot.width() * (c.xMax - c.xMin);
    const QDateTime time = timeOfAxisValue(x);
    int i = history->indexAt(time);
    if (i < 0)
        return -1;
    if (i + 1 < history->size() && std::abs(history->time(i + 1).msecsTo(time)) < std::abs(history->time(i).msecsTo(time)))
        ++i;
    return i;
}

QString HistoryChartsPanel::Private::hoverText(const ChartState &c, QPoint viewportPos) const
{
    const int i = entryAt(c, viewportPos);
    if (i < 0)
        return {};
    const HistoryPoint &p = history->point(i);
    QString html = QStringLiteral("<b>%1 UTC</b><table cellspacing=\"2\">").arg(utcText(p.time, QStringLiteral("yyyy-MM-dd HH:mm:ss")));
    // Stacked areas read top layer first, as they are drawn.
    QList<int> order(c.columns.size());
    std::iota(order.begin(), order.end(), 0);
    if (c.stacked)
        std::reverse(order.begin(), order.end());
    for (int k : std::as_const(order)) {
        const Column &col = c.columns[k];
        html += QStringLiteral("<tr><td><span style=\"color:%1\">\u25a0</span> %2</td><td align=\"right\">%3</td></tr>")
                    .arg(col.color.name(), col.label.toHtmlEscaped(), col.text(p).toHtmlEscaped());
    }
    html += QStringLiteral("</table>");
    return html;
}

HistoryChartsPanel::HistoryChartsPanel(QWidget *parent)
    : QWidget(parent)
    , d(std::make_unique<Private>(this))
{
    d->buildUi();
    for (ChartState &c : d->charts)
        d->styleChart(c);
    d->refresh();
}

HistoryChartsPanel::~HistoryChartsPanel() = default;

void HistoryChartsPanel::setHistory(const SnapshotHistory *history)
{
    if (d->history == history)
        return;
    for (const QMetaObject::Connection &c : std::as_const(d->connections))
        disconnect(c);
    d->connections.clear();
    d->history = history;
    if (history) {
        auto changed = [this] {
            d->scheduleRefresh();
        };
        d->connections << connect(history, &SnapshotHistory::entryAdded, this, changed)
                       << connect(history, &SnapshotHistory::entriesEvicted, this, changed)
                       << connect(history, &SnapshotHistory::cleared, this, changed)
                       << connect(history, &QObject::destroyed, this, changed);
    }
    d->scheduleRefresh();
}

const SnapshotHistory *HistoryChartsPanel::history() const { return d->history; }

void HistoryChartsPanel::setTheme(const Theme &theme)
{
    d->theme = theme;
    for (ChartState &c : d->charts) {
        d->styleChart(c);
        c.builtFor.clear(); // series colours come from the theme: make them again
    }
    d->refresh();
}

const Theme &HistoryChartsPanel::theme() const { return d->theme; }

void HistoryChartsPanel::setCursorTime(const QDateTime &time)
{
    d->cursor = time;
    d->updateCursors();
}

QDateTime HistoryChartsPanel::cursorTime() const { return d->cursor; }

QStringList HistoryChartsPanel::generations() const { return d->generations; }

void HistoryChartsPanel::setGeneration(const QString &label)
{
    if (d->generation == label)
        return;
    d->generation = label;
    d->refresh(); // the operator picked it: show it now
}

QString HistoryChartsPanel::generation() const { return d->generation; }

QStringList HistoryChartsPanel::workerGroups() const { return d->workerGroups; }

void HistoryChartsPanel::setWorkerGroup(const QString &qualifiedName)
{
    if (d->workerGroup == qualifiedName)
        return;
    d->workerGroup = qualifiedName;
    d->refresh();
}

QString HistoryChartsPanel::workerGroup() const { return d->workerGroup; }

void HistoryChartsPanel::setRefreshInterval(int ms) { d->refreshInterval = std::max(0, ms); }
int HistoryChartsPanel::refreshInterval() const { return d->refreshInterval; }

void HistoryChartsPanel::setMaxPointsPerSeries(int maxPoints)
{
    d->maxPoints = std::max(2, maxPoints);
    d->scheduleRefresh();
}

int HistoryChartsPanel::maxPointsPerSeries() const { return d->maxPoints; }

void HistoryChartsPanel::refreshNow()
{
    d->refresh();
    // Lay the charts out now, so plot areas (and the cursor lines) are where a paint puts them.
    // A hidden panel (a screenshot, a test) gets its resize events only when shown or grabbed.
    layout()->activate();
    for (ChartState &c : d->charts) {
        if (c.view->testAttribute(Qt::WA_PendingResizeEvent)) {
            QResizeEvent resize(c.view->size(), QSize());
            QApplication::sendEvent(c.view, &resize);
        }
        c.chart->layout()->activate();
    }
    d->updateCursors();
}

int HistoryChartsPanel::refreshCount() const { return d->refreshCount; }
double HistoryChartsPanel::lastRefreshMs() const { return d->lastRefreshMs; }

QChart *HistoryChartsPanel::chart(Chart which) const { return d->state(which).chart; }

QLineF HistoryChartsPanel::cursorLine(Chart which) const
{
    const ChartState &c = d->state(which);
    if (!c.cursor->isVisible())
        return {};
    const QLineF line = c.cursor->line();
    auto toPanel = [&](QPointF p) {
        const QPoint inViewport = c.view->mapFromScene(c.chart->mapToScene(p));
        return QPointF(c.view->viewport()->mapTo(this, inViewport));
    };
    return QLineF(toPanel(line.p1()), toPanel(line.p2()));
}

QString HistoryChartsPanel::toolTipAt(QPoint position) const
{
    for (const ChartState &c : d->charts) {
        const QPoint inViewport = c.view->viewport()->mapFrom(this, position);
        if (c.view->viewport()->rect().contains(inViewport))
            return d->hoverText(c, inViewport);
    }
    return {};
}

qreal HistoryChartsPanel::axisValue(const QDateTime &time)
{
    // QDateTimeAxis prints QDateTime::fromMSecsSinceEpoch(value) in local time; hand it the
    // local-time instant whose wall clock reads the UTC time.
    const QDateTime utc = time.toUTC();
    return qreal(QDateTime(utc.date(), utc.time(), Qt::LocalTime).toMSecsSinceEpoch());
}

QDateTime HistoryChartsPanel::timeOfAxisValue(qreal value)
{
    const QDateTime local = QDateTime::fromMSecsSinceEpoch(qint64(std::llround(value)), Qt::LocalTime);
    return QDateTime(local.date(), local.time(), Qt::UTC);
}

QSize HistoryChartsPanel::sizeHint() const { return {1000, 680}; }
QSize HistoryChartsPanel::minimumSizeHint() const { return {500, 400}; }

void HistoryChartsPanel::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (d->dirty)
        d->scheduleRefresh();
}

} // namespace slicescope
