// SPDX-License-Identifier: GPL-3.0-or-later
// The history charts panel (widgets/historycharts.h) over a SnapshotHistory recorded from the demo
// cluster while an operator acts on it: series equal the history's points, throttled redraws,
// the cursor line, hover text, clicks, decimation of long histories (with the redraw figures for
// 1800 entries printed, not asserted), and golden images in the light and dark themes. The
// legends' values following the hover on all five charts, and the zoom: a drag (QTest mouse
// events on a chart's viewport) narrows all five x axes, a click under the threshold still
// scrubs, the button, a double click and Escape reset it, live entries follow or not. The chip
// activity chart (chart 5) also over a scripted history: gaps where nothing reports or an entry
// has no activity table, never a 0.
//
// The process runs in a non-UTC zone (TZ set in main) so the goldens also prove the time labels
// are UTC. Re-record the goldens with SLICESCOPE_RECORD_GOLDENS=1, then LOOK at them.

#include "../common/golden.h"
#include "democluster.h"
#include "history.h"
#include "historychartdata_p.h"
#include "historycharts.h"
#include "look.h"
#include "snapshot.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>
#include <QtCharts/QAreaSeries>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QDateTimeAxis>
#include <QtCharts/QLineSeries>
#include <QtCharts/QValueAxis>

#include <QtCharts/QLegend>
#include <QtCharts/QLegendMarker>

#include <QComboBox>
#include <QGraphicsRectItem>
#include <QLabel>
#include <QToolButton>

#include <algorithm>
#include <cmath>
#include <optional>

using namespace slicescope;
using Chart = HistoryChartsPanel::Chart;

namespace {

const QSize kGoldenSize(1200, 760);

const QString kV5pGroup = QStringLiteral("ml/tpu-team/v5p-4x4x4");
const QString kV6eGroup = QStringLiteral("ml/tpu-team/v6e-4x4");

// Three simulated minutes of the demo, one snapshot every 2 s, while an operator acts:
//  t=20 s  asks for two v5p 4x4x4 slices (one exists: its second head group waits, PENDING);
//  t=60 s  scales the v5p worker group to 2 (a slice provisions, then the request is served);
//  t=100 s scales v6e-4x4 from 4 to 6 slices;
//  t=140 s releases llm-train (a v6e slice becomes free).
// `steps` snapshots after the first; past 180 s the cluster just ticks on.
// `rebuildEvery` > 1 parses a capture only every that many steps and re-adds the last snapshot
// with the new time in between (parsing 1800 captures in a Debug build takes most of a minute).
void recordStory(SnapshotHistory &history, int steps = 90, int rebuildEvery = 1)
{
    DemoCluster demo;
    SnapshotPtr last;
    for (int step = 0; step <= steps; ++step) {
        const qint64 at = demo.elapsedMs();
        if (at == 20 * 1000) {
            SlicePlacementRequest request;
            request.accelerator = QStringLiteral("v5p");
            request.topology = QStringLiteral("4x4x4");
            request.numSlices = 2;
            request.name = QStringLiteral("sweep-v5p");
            request.timeoutSeconds = 600;
            QVERIFY(demo.submitSlicePlacementGroup(request).ok);
        } else if (at == 60 * 1000) {
            QVERIFY(demo.scaleWorkerGroup(kV5pGroup, 2).ok);
        } else if (at == 100 * 1000) {
            QVERIFY(demo.scaleWorkerGroup(kV6eGroup, 6).ok);
        } else if (at == 140 * 1000) {
            QVERIFY(demo.releasePlacementGroup(QStringLiteral("llm-train")).ok);
        }
        if (!last || step % rebuildEvery == 0 || at <= 180 * 1000) {
            last = buildSnapshot(demo.capture());
        } else {
            auto copy = std::make_shared<ClusterSnapshot>(*last);
            copy->capturedAt = demo.now();
            last = copy;
        }
        history.add(last);
        demo.advance(2000);
    }
}

// A series by object name; area series are found by name too, and their upper/lower lines.
QAbstractSeries *findSeries(QChart *chart, const QString &name)
{
    for (QAbstractSeries *s : chart->series()) {
        if (s->objectName() == name)
            return s;
        if (auto *area = qobject_cast<QAreaSeries *>(s)) {
            if (area->upperSeries() && area->upperSeries()->objectName() == name)
                return area->upperSeries();
            if (area->lowerSeries() && area->lowerSeries()->objectName() == name)
                return area->lowerSeries();
        }
    }
    return nullptr;
}

QXYSeries *line(HistoryChartsPanel &panel, Chart chart, const QString &name)
{
    return qobject_cast<QXYSeries *>(findSeries(panel.chart(chart), name));
}

QStringList seriesNames(QChart *chart)
{
    QStringList names;
    for (QAbstractSeries *s : chart->series())
        names << s->objectName();
    return names;
}

// Every series of a line with gaps (historycharts.h: one per run, all with the line's name).
QList<QXYSeries *> runsOf(HistoryChartsPanel &panel, Chart chart, const QString &name)
{
    QList<QXYSeries *> runs;
    for (QAbstractSeries *s : panel.chart(chart)->series())
        if (s->objectName() == name)
            runs << qobject_cast<QXYSeries *>(s);
    return runs;
}

// Those runs' points, one list, in time order.
QList<QPointF> pointsOf(HistoryChartsPanel &panel, Chart chart, const QString &name)
{
    QList<QPointF> all;
    for (QXYSeries *run : runsOf(panel, chart, name))
        all << run->points();
    std::sort(all.begin(), all.end(), [](const QPointF &a, const QPointF &b) { return a.x() < b.x(); });
    return all;
}

// What a line should hold: entry i's value at its time, no point where the value is NaN.
QList<QPointF> expectedPoints(const SnapshotHistory &history, const std::function<double(int)> &value)
{
    QList<QPointF> points;
    for (int i = 0; i < history.size(); ++i)
        if (const double v = value(i); !std::isnan(v))
            points << QPointF(HistoryChartsPanel::axisValue(history.time(i)), v);
    return points;
}

// `base` at time `at` with an activity table in which every chip of slice `slice` reports duty
// cycle `duty` and no other chip reports; a NaN duty: a table where no chip reports; no duty: no
// activity table at all (a capture from before issue 15).
SnapshotPtr scripted(const SnapshotPtr &base, const QDateTime &at, const QString &slice, std::optional<float> duty)
{
    auto copy = std::make_shared<ClusterSnapshot>(*base);
    copy->capturedAt = at;
    copy->activity = nullptr;
    if (duty) {
        ActivityTableBuilder builder(*copy);
        const int s = copy->sliceIndex(slice);
        for (int h = 0; !std::isnan(*duty) && h < copy->slices[s].hosts.size(); ++h)
            for (int c = 0; c < copy->slices[s].hosts[h].chips.size(); ++c) {
                ChipActivity *a = builder.chip(s, h, c);
                a->dutyCycle = *duty;
                a->source = ActivitySource::RayNodeSummary;
            }
        copy->activity = builder.finish();
    }
    return copy;
}

QChartView *viewOf(HistoryChartsPanel &panel, Chart chart)
{
    return panel.findChild<QChartView *>(QStringLiteral("chart%1").arg(int(chart)));
}

// Where time `t` is on chart `chart`, in its view's viewport: the x Qt Charts maps it to, the
// plot's middle height.
QPoint viewportPosAt(HistoryChartsPanel &panel, Chart chart, const QDateTime &t)
{
    QChart *c = panel.chart(chart);
    const QPointF inChart(c->mapToPosition(QPointF(HistoryChartsPanel::axisValue(t), 0), c->series().first()).x(), c->plotArea().center().y());
    QChartView *view = viewOf(panel, chart);
    return view->mapFromScene(c->mapToScene(inChart));
}

// A mouse move with no button held. (QTest::mouseMove without a button moves the platform
// cursor instead, which the offscreen platform does not turn into an event for the viewport.)
void hover(QWidget *viewport, QPoint pos)
{
    QMouseEvent move(QEvent::MouseMove, QPointF(pos), viewport->mapToGlobal(QPointF(pos)), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(viewport, &move);
}

// Pressing at `from`, moving to the middle and then to `to`, releasing there.
void drag(QWidget *viewport, QPoint from, QPoint to)
{
    QTest::mousePress(viewport, Qt::LeftButton, {}, from);
    QTest::mouseMove(viewport, (from + to) / 2);
    QTest::mouseMove(viewport, to);
    QTest::mouseRelease(viewport, Qt::LeftButton, {}, to);
}

// The five x axes' ranges.
QList<std::pair<QDateTime, QDateTime>> xRanges(HistoryChartsPanel &panel)
{
    QList<std::pair<QDateTime, QDateTime>> ranges;
    for (int c = 0; c < HistoryChartsPanel::kChartCount; ++c) {
        auto *axis = qobject_cast<QDateTimeAxis *>(panel.chart(Chart(c))->axes(Qt::Horizontal).first());
        ranges << std::pair(axis->min(), axis->max());
    }
    return ranges;
}

// Whether chart `chart` draws a selection band (a visible rectangle item over its plot).
bool bandShown(HistoryChartsPanel &panel, Chart chart)
{
    const QList<QGraphicsItem *> items = panel.chart(chart)->childItems();
    return std::any_of(items.cbegin(), items.cend(), [](QGraphicsItem *i) { return i->data(0).toString() == QLatin1String("zoom-band") && i->isVisible(); });
}

struct Figures {
    double median = 0, min = 0, max = 0;
};

Figures figures(QList<double> samples)
{
    std::sort(samples.begin(), samples.end());
    return {samples[samples.size() / 2], samples.first(), samples.last()};
}

} // namespace

class TestHistoryCharts : public QObject
{
    Q_OBJECT
private:
    SnapshotHistory m_story; // recorded once, read by most tests

private Q_SLOTS:
    void initTestCase()
    {
        applyLook(*qApp, Theme::light());
        recordStory(m_story);
        QCOMPARE(m_story.size(), 91);
    }

    // UTC on every machine: the axis value of a time prints as its UTC wall clock even though
    // this process runs at UTC+5:30 (main sets TZ), and maps back to the same instant.
    void axisValuesAreUtc()
    {
        const QDateTime t(QDate(2026, 11, 29), QTime(9, 1, 30), Qt::UTC);
        const qreal x = HistoryChartsPanel::axisValue(t);
        QCOMPARE(QDateTime::fromMSecsSinceEpoch(qint64(x)).toString(QStringLiteral("HH:mm:ss")), QStringLiteral("09:01:30"));
        QCOMPARE(HistoryChartsPanel::timeOfAxisValue(x), t);
        QVERIFY2(QDateTime::currentDateTime().offsetFromUtc() == 5 * 3600 + 1800, "main() runs the test at UTC+5:30");
    }

    // The chart data's value functions (historychartdata_p.h), without a chart.
    void niceRanges_data()
    {
        QTest::addColumn<double>("maxValue");
        QTest::addColumn<double>("max");
        QTest::addColumn<int>("ticks");
        QTest::addColumn<double>("step");
        QTest::newRow("nothing: 0..2 in ones") << 0.0 << 2.0 << 3 << 1.0;
        QTest::newRow("5: headroom makes it 6") << 5.0 << 6.0 << 7 << 1.0;
        QTest::newRow("10: in twos") << 10.0 << 12.0 << 7 << 2.0;
        QTest::newRow("100: in twenties") << 100.0 << 120.0 << 7 << 20.0;
    }

    void niceRanges()
    {
        QFETCH(double, maxValue);
        const historychart::NiceRange range = historychart::niceRange(maxValue);
        QTEST(range.max, "max");
        QTEST(range.ticks, "ticks");
        QTEST(range.step, "step");
    }

    void timeAxes_data()
    {
        QTest::addColumn<QList<qint64>>("ms");
        QTest::addColumn<qint64>("lo");
        QTest::addColumn<qint64>("hi");
        QTest::addColumn<qint64>("step");
        QTest::addColumn<QString>("format");
        QTest::newRow("no entries: the first minute") << QList<qint64>{} << qint64(0) << qint64(60000) << qint64(10000) << QStringLiteral("HH:mm:ss");
        QTest::newRow("one entry: a minute around it") << QList<qint64>{90000} << qint64(60000) << qint64(120000) << qint64(10000) << QStringLiteral("HH:mm:ss");
        QTest::newRow("an hour: 10 min steps") << QList<qint64>{0, 3600000} << qint64(0) << qint64(3600000) << qint64(600000) << QStringLiteral("HH:mm");
        QTest::newRow("three days: 12 h steps, dated") << QList<qint64>{0, 259200000} << qint64(0) << qint64(259200000) << qint64(43200000) << QStringLiteral("MM-dd HH:mm");
    }

    void timeAxes()
    {
        QFETCH(QList<qint64>, ms);
        const historychart::TimeAxis axis = historychart::timeAxis(int(ms.size()), ms);
        QTEST(axis.loMs, "lo");
        QTEST(axis.hiMs, "hi");
        QTEST(axis.stepMs, "step");
        QTEST(axis.format, "format");
    }

    void keptRowsAreExact()
    {
        QList<double> t;
        for (int i = 0; i < 10; ++i)
            t << i;
        // A straight line needs its ends only; a spike keeps itself and its feet.
        QCOMPARE(historychart::keptRows(t, {t}, 5), (QList<int>{0, 9}));
        QList<double> spike(10, 0.0);
        spike[5] = 10;
        QCOMPARE(historychart::keptRows(t, {spike}, 5), (QList<int>{0, 4, 5, 6, 9}));
        QCOMPARE(historychart::keptRows(t, {spike}, 10).size(), 10); // few enough: every row
    }

    void empty()
    {
        HistoryChartsPanel panel;
        panel.resize(kGoldenSize);
        panel.refreshNow();
        for (int c = 0; c < HistoryChartsPanel::kChartCount; ++c) {
            QChart *chart = panel.chart(Chart(c));
            for (QAbstractSeries *s : chart->series())
                if (auto *xy = qobject_cast<QXYSeries *>(s))
                    QCOMPARE(xy->count(), 0);
            QVERIFY(chart->title().contains(QStringLiteral("no history yet")));
        }
        panel.setCursorTime(QDateTime(QDate(2026, 11, 29), QTime(9, 0), Qt::UTC));
        QVERIFY(panel.cursorLine(Chart::Chips).isNull());
        QVERIFY(panel.toolTipAt(QPoint(300, 200)).isEmpty());
    }

    // One entry: every series has its one point, drawn as a dot, with a minute of axis around it.
    void singleEntry()
    {
        SnapshotHistory history;
        DemoCluster demo;
        history.add(buildSnapshot(demo.capture()));
        HistoryChartsPanel panel;
        panel.resize(kGoldenSize);
        panel.setHistory(&history);
        panel.refreshNow();
        QXYSeries *reserved = line(panel, Chart::Chips, QStringLiteral("reserved:v6e"));
        QVERIFY(reserved);
        QCOMPARE(reserved->count(), 1);
        QVERIFY(reserved->pointsVisible());
        QCOMPARE(reserved->at(0).y(), double(history.point(0).generation(u"v6e")->counts.reservedChips));
        auto *axis = qobject_cast<QDateTimeAxis *>(panel.chart(Chart::Chips)->axes(Qt::Horizontal).first());
        QVERIFY(axis->min().toMSecsSinceEpoch() < qint64(reserved->at(0).x()));
        QVERIFY(axis->max().toMSecsSinceEpoch() > qint64(reserved->at(0).x()));
        panel.setCursorTime(history.time(0));
        QVERIFY(!panel.cursorLine(Chart::Slices).isNull());
    }

    // Each series is the history's points, entry by entry.
    void seriesEqualPoints()
    {
        HistoryChartsPanel panel;
        panel.resize(kGoldenSize);
        panel.setHistory(&m_story);
        panel.refreshNow();
        const int n = m_story.size();

        QCOMPARE(panel.generations(), (QStringList{QStringLiteral("v4"), QStringLiteral("v5p"), QStringLiteral("v6e")}));
        QCOMPARE(panel.workerGroups().size(), 4);
        QVERIFY(panel.workerGroups().contains(kV5pGroup));

        for (const QString &g : panel.generations()) {
            QXYSeries *reserved = line(panel, Chart::Chips, QStringLiteral("reserved:") + g);
            QXYSeries *free = line(panel, Chart::Chips, QStringLiteral("free:") + g);
            QVERIFY2(reserved && free, qPrintable(g));
            QCOMPARE(reserved->count(), n);
            QCOMPARE(free->count(), n);
            for (int i = 0; i < n; ++i) {
                const GenerationStats *stats = m_story.point(i).generation(g);
                QCOMPARE(reserved->at(i).x(), HistoryChartsPanel::axisValue(m_story.time(i)));
                QCOMPARE(reserved->at(i).y(), double(stats ? stats->counts.reservedChips : 0));
                QCOMPARE(free->at(i).y(), double(stats ? stats->counts.freeChips : 0));
            }
        }
        // The story moved the series: v5p went from 64 to 128 chips reserved, v6e lost llm-train.
        QXYSeries *v5p = line(panel, Chart::Chips, QStringLiteral("reserved:v5p"));
        QCOMPARE(v5p->at(0).y(), 0.0);
        QCOMPARE(v5p->at(n - 1).y(), 128.0);

        // Slices by use, stacked: each layer's top is the running sum; the top layer is every slice.
        const QStringList layers{QStringLiteral("ready"), QStringLiteral("partly-used"), QStringLiteral("reserved"),
                                 QStringLiteral("provisioning"), QStringLiteral("degraded")};
        QCOMPARE(seriesNames(panel.chart(Chart::Slices)), QStringList({QStringLiteral("slices:ready"), QStringLiteral("slices:partly-used"),
                                                                       QStringLiteral("slices:reserved"), QStringLiteral("slices:provisioning"),
                                                                       QStringLiteral("slices:degraded")}));
        QXYSeries *ready = line(panel, Chart::Slices, QStringLiteral("slices:ready:upper"));
        QXYSeries *provisioningTop = line(panel, Chart::Slices, QStringLiteral("slices:provisioning:upper"));
        QXYSeries *reservedTop = line(panel, Chart::Slices, QStringLiteral("slices:reserved:upper"));
        QXYSeries *top = line(panel, Chart::Slices, QStringLiteral("slices:degraded:upper"));
        QXYSeries *degradedBottom = line(panel, Chart::Slices, QStringLiteral("slices:degraded:lower"));
        QVERIFY(ready && provisioningTop && reservedTop && top && degradedBottom);
        QCOMPARE(top->count(), n);
        bool sawProvisioning = false;
        for (int i = 0; i < n; ++i) {
            const FleetCounts &f = m_story.point(i).fleet;
            QCOMPARE(ready->at(i).y(), double(f.ready));
            QCOMPARE(top->at(i).y(), double(f.slices));
            QCOMPARE(degradedBottom->at(i).y(), double(f.slices - f.degraded));
            QCOMPARE(provisioningTop->at(i).y() - reservedTop->at(i).y(), double(f.provisioning));
            sawProvisioning = sawProvisioning || f.provisioning > 0;
        }
        QVERIFY(sawProvisioning);

        // Placement groups: PENDING and the oldest pending age (seconds: the history is 3 minutes).
        QXYSeries *pending = line(panel, Chart::PlacementGroups, QStringLiteral("pg:PENDING"));
        QXYSeries *created = line(panel, Chart::PlacementGroups, QStringLiteral("pg:CREATED"));
        QXYSeries *age = line(panel, Chart::PlacementGroups, QStringLiteral("pg:oldest-pending"));
        QVERIFY(pending && created && age);
        int maxPending = 0;
        for (int i = 0; i < n; ++i) {
            const PlacementGroupCounts &g = m_story.point(i).placementGroups;
            QCOMPARE(pending->at(i).y(), double(g.pending));
            QCOMPARE(created->at(i).y(), double(g.created));
            QCOMPARE(age->at(i).y(), g.oldestPendingMs < 0 ? 0.0 : double(g.oldestPendingMs) / 1000.0);
            maxPending = std::max(maxPending, g.pending);
        }
        QVERIFY(maxPending >= 2); // eval-8x8 and sweep-v5p's second head group
        QVERIFY(age->attachedAxes().contains(panel.chart(Chart::PlacementGroups)->axes(Qt::Vertical, age).first()));
        auto *ageAxis = qobject_cast<QValueAxis *>(panel.chart(Chart::PlacementGroups)->axes(Qt::Vertical, age).first());
        QVERIFY(ageAxis->titleText().contains(QStringLiteral("(s)")));
        QVERIFY(ageAxis->max() >= age->at(n - 1).y());

        // Worker groups: all summed by default, then the v5p group alone (desired 1 -> 2).
        QXYSeries *desired = line(panel, Chart::WorkerGroups, QStringLiteral("wg:desired"));
        QVERIFY(desired);
        for (int i = 0; i < n; ++i) {
            int sum = 0;
            for (const WorkerGroupPoint &w : m_story.point(i).workerGroups)
                sum += w.desired;
            QCOMPARE(desired->at(i).y(), double(sum));
        }
        panel.setWorkerGroup(kV5pGroup);
        QVERIFY(panel.chart(Chart::WorkerGroups)->title().contains(kV5pGroup));
        desired = line(panel, Chart::WorkerGroups, QStringLiteral("wg:desired"));
        QXYSeries *wgReady = line(panel, Chart::WorkerGroups, QStringLiteral("wg:ready"));
        for (int i = 0; i < n; ++i) {
            const WorkerGroupPoint *w = m_story.point(i).workerGroup(kV5pGroup);
            QVERIFY(w);
            QCOMPARE(desired->at(i).y(), double(w->desired));
            QCOMPARE(wgReady->at(i).y(), double(w->ready));
        }
        QCOMPARE(desired->at(0).y(), 1.0);
        QCOMPARE(desired->at(n - 1).y(), 2.0);
        QCOMPARE(wgReady->at(n - 1).y(), 2.0);
    }

    // Fewer points allowed than entries: min/max per time bucket keeps each series' extremes.
    void decimationKeepsExtremes()
    {
        HistoryChartsPanel panel;
        panel.resize(kGoldenSize);
        panel.setHistory(&m_story);
        panel.setMaxPointsPerSeries(24);
        panel.refreshNow();
        for (const QString &name : {QStringLiteral("reserved:v5p"), QStringLiteral("free:v6e"), QStringLiteral("reserved:v6e")}) {
            QXYSeries *s = line(panel, Chart::Chips, name);
            QVERIFY(s->count() <= 24);
            double lo = 1e9, hi = -1e9, wantLo = 1e9, wantHi = -1e9;
            for (const QPointF &p : s->points()) {
                lo = std::min(lo, p.y());
                hi = std::max(hi, p.y());
            }
            for (int i = 0; i < m_story.size(); ++i) {
                const double v = name.startsWith(u'r') ? m_story.point(i).generation(name.mid(9))->counts.reservedChips
                                                       : m_story.point(i).generation(name.mid(5))->counts.freeChips;
                wantLo = std::min(wantLo, v);
                wantHi = std::max(wantHi, v);
            }
            QCOMPARE(lo, wantLo);
            QCOMPARE(hi, wantHi);
            QCOMPARE(s->at(0).x(), HistoryChartsPanel::axisValue(m_story.time(0)));
            QCOMPARE(s->at(s->count() - 1).x(), HistoryChartsPanel::axisValue(m_story.time(m_story.size() - 1)));
        }
    }

    void generationPicker()
    {
        HistoryChartsPanel panel;
        panel.resize(kGoldenSize);
        panel.setHistory(&m_story);
        panel.refreshNow();
        QCOMPARE(panel.chart(Chart::Chips)->series().size(), 6);
        panel.setGeneration(QStringLiteral("v6e"));
        QCOMPARE(seriesNames(panel.chart(Chart::Chips)), (QStringList{QStringLiteral("reserved:v6e"), QStringLiteral("free:v6e")}));
        QVERIFY(panel.chart(Chart::Chips)->title().contains(QStringLiteral("v6e")));
        panel.setGeneration(QString());
        QCOMPARE(panel.chart(Chart::Chips)->series().size(), 6);
    }

    // Entries arriving in a stream redraw at most every 250 ms; a burst redraws once.
    void throttling()
    {
        SnapshotHistory history;
        DemoCluster demo;
        history.add(buildSnapshot(demo.capture()));
        QList<SnapshotPtr> snapshots;
        for (int i = 0; i < 100; ++i) {
            demo.advance(2000);
            snapshots << buildSnapshot(demo.capture());
        }

        HistoryChartsPanel panel;
        QCOMPARE(panel.refreshInterval(), 250);
        panel.resize(kGoldenSize);
        panel.setHistory(&history);
        panel.show();
        panel.refreshNow();
        QXYSeries *reserved = line(panel, Chart::Chips, QStringLiteral("reserved:v6e"));
        QCOMPARE(reserved->count(), 1);

        // 50 entries with the event loop running between them, over about 300 ms.
        int before = panel.refreshCount();
        QElapsedTimer clock;
        clock.start();
        for (int i = 0; i < 50; ++i) {
            history.add(snapshots[i]);
            QTest::qWait(6);
        }
        const qint64 streamMs = clock.elapsed();
        QTRY_COMPARE(line(panel, Chart::Chips, QStringLiteral("reserved:v6e"))->count(), 51);
        const int streamRedraws = panel.refreshCount() - before;
        qInfo("50 entries over %lld ms: %d redraws", streamMs, streamRedraws);
        QVERIFY2(streamRedraws >= 1 && streamRedraws <= int(streamMs / 250) + 2, qPrintable(QString::number(streamRedraws)));

        // 50 entries at once (no event loop in between): one redraw.
        QTest::qWait(300);
        before = panel.refreshCount();
        for (int i = 50; i < 100; ++i)
            history.add(snapshots[i]);
        QCOMPARE(panel.refreshCount(), before); // nothing yet: the redraw is queued
        QTRY_COMPARE(line(panel, Chart::Chips, QStringLiteral("reserved:v6e"))->count(), 101);
        QTest::qWait(300);
        QCOMPARE(panel.refreshCount() - before, 1);

        // Hidden (another tab): nothing is redrawn until it shows again.
        panel.hide();
        before = panel.refreshCount();
        history.clear();
        QTest::qWait(300);
        QCOMPARE(panel.refreshCount(), before);
        panel.show();
        QTRY_COMPARE(panel.refreshCount(), before + 1);
        QCOMPARE(line(panel, Chart::Chips, QStringLiteral("reserved:v6e")), nullptr); // no generation left
    }

    // Eviction shifts every index: the series follow.
    void eviction()
    {
        HistoryPolicy policy;
        policy.maxAgeSeconds = 60; // 31 entries at 2 s
        SnapshotHistory history(policy);
        HistoryChartsPanel panel;
        panel.resize(kGoldenSize);
        panel.setHistory(&history);
        QSignalSpy evicted(&history, &SnapshotHistory::entriesEvicted);
        recordStory(history, 60);
        QVERIFY(evicted.count() > 0);
        panel.refreshNow();
        QXYSeries *pending = line(panel, Chart::PlacementGroups, QStringLiteral("pg:PENDING"));
        QCOMPARE(pending->count(), history.size());
        QCOMPARE(pending->at(0).x(), HistoryChartsPanel::axisValue(history.time(0)));
        QCOMPARE(pending->at(history.size() - 1).y(), double(history.point(history.size() - 1).placementGroups.pending));
    }

    // Chart 5 over the story: the fleet's mean duty cycle, the chips reporting one and the chips
    // counted, entry by entry, as the history's activity tables say.
    void activitySeriesFollowTheHistory()
    {
        HistoryChartsPanel panel;
        panel.resize(kGoldenSize);
        panel.setHistory(&m_story);
        panel.refreshNow();
        for (int i = 0; i < m_story.size(); ++i)
            QVERIFY2(m_story.activity(i), "the demo reports chip activity in every capture");
        QCOMPARE(panel.activityScope(), QString());
        QCOMPARE(seriesNames(panel.chart(Chart::Activity)), (QStringList{QStringLiteral("activity:mean"), QStringLiteral("activity:reporting"), QStringLiteral("activity:chips")}));
        const auto fleet = [this](int i) {
            return m_story.activity(i)->fleet;
        };
        QCOMPARE(pointsOf(panel, Chart::Activity, QStringLiteral("activity:mean")), expectedPoints(m_story, [&](int i) { return fleet(i).meanDutyCycle(); }));
        QCOMPARE(pointsOf(panel, Chart::Activity, QStringLiteral("activity:reporting")), expectedPoints(m_story, [&](int i) { return double(fleet(i).withDutyCycle); }));
        QCOMPARE(pointsOf(panel, Chart::Activity, QStringLiteral("activity:chips")), expectedPoints(m_story, [&](int i) { return double(fleet(i).chips); }));
        // Something happens in the story: the mean moves, and it is a percentage on a 0..100 axis.
        const QList<QPointF> mean = pointsOf(panel, Chart::Activity, QStringLiteral("activity:mean"));
        const auto [lo, hi] = std::minmax_element(mean.cbegin(), mean.cend(), [](const QPointF &a, const QPointF &b) { return a.y() < b.y(); });
        QVERIFY2(lo->y() > 0 && hi->y() < 100 && hi->y() - lo->y() > 1, qPrintable(QStringLiteral("%1..%2").arg(lo->y()).arg(hi->y())));
        auto *axis = qobject_cast<QValueAxis *>(panel.chart(Chart::Activity)->axes(Qt::Vertical, runsOf(panel, Chart::Activity, QStringLiteral("activity:mean")).first()).first());
        QCOMPARE(axis->max(), 100.0);
        QVERIFY(panel.chart(Chart::Activity)->title().contains(QStringLiteral("whole fleet")));
    }

    // The picker: the whole fleet, the slices (natural order) and the placement groups the
    // tables have seen, a released group still named; picking one plots its chips, gaps where it
    // held none.
    void activityPicker()
    {
        HistoryChartsPanel panel;
        panel.resize(kGoldenSize);
        panel.setHistory(&m_story);
        panel.refreshNow();
        const QStringList scopes = panel.activityScopes();
        QStringList slices, groups;
        for (const QString &scope : scopes)
            (scope.startsWith(QLatin1String("slice:")) ? slices : groups) << scope;
        QCOMPARE(scopes, slices + groups); // slices first
        QVERIFY(slices.contains(QStringLiteral("slice:v6e-4x4-3")));
        QVERIFY2(slices.indexOf(QStringLiteral("slice:v6e-4x4-5")) < slices.indexOf(QStringLiteral("slice:v6e-4x4-10")) || !slices.contains(QStringLiteral("slice:v6e-4x4-10")), qPrintable(slices.join(u' ')));
        for (const QString &g : groups)
            QVERIFY2(g.startsWith(QLatin1String("pg:")), qPrintable(g));
        // llm-train is released at 140 s: gone from the newest snapshot, still in the picker by name.
        const SnapshotPtr first = m_story.snapshot(0);
        const int llm = first->placementGroupIndex(u"llm-train");
        QVERIFY(llm >= 0);
        const QString llmId = first->placementGroups[llm].id;
        QCOMPARE(m_story.snapshot(m_story.size() - 1)->placementGroupIndex(llmId), -1);
        const QString llmScope = QStringLiteral("pg:") + llmId;
        QVERIFY2(groups.contains(llmScope), qPrintable(groups.join(u' ')));
        QCOMPARE(panel.activityScopeLabel(llmScope), QStringLiteral("group llm-train"));
        QCOMPARE(panel.activityScopeLabel(QString()), QStringLiteral("whole fleet"));
        QCOMPARE(panel.activityScopeLabel(QStringLiteral("slice:v6e-4x4-3")), QStringLiteral("slice v6e-4x4-3"));
        auto *box = panel.findChild<QComboBox *>(QStringLiteral("activityScope"));
        QVERIFY(box && box->isEnabled());
        QCOMPARE(box->count(), scopes.size() + 1);
        QCOMPARE(box->itemText(0), QStringLiteral("whole fleet"));
        QCOMPARE(box->itemData(box->findText(QStringLiteral("group llm-train"))).toString(), llmScope);

        // The picked group: its chips while it held them, a gap (no 0) once it is gone.
        box->setCurrentIndex(box->findData(llmScope));
        Q_EMIT box->activated(box->currentIndex());
        QCOMPARE(panel.activityScope(), llmScope);
        QVERIFY(panel.chart(Chart::Activity)->title().contains(QStringLiteral("group llm-train")));
        const auto counts = [this, &llmId](int i) {
            return m_story.activity(i)->byPlacementGroup.value(llmId);
        };
        const QList<QPointF> mean = pointsOf(panel, Chart::Activity, QStringLiteral("activity:mean"));
        QCOMPARE(mean, expectedPoints(m_story, [&](int i) { return counts(i).meanDutyCycle(); }));
        QVERIFY(mean.size() > 10 && mean.size() < m_story.size());
        QCOMPARE(mean.last().x() < HistoryChartsPanel::axisValue(m_story.time(m_story.size() - 1)), true);
        QCOMPARE(pointsOf(panel, Chart::Activity, QStringLiteral("activity:chips")).last().y(), 0.0); // it holds none now

        panel.setActivityScope(QStringLiteral("slice:v6e-4x4-3"));
        QCOMPARE(pointsOf(panel, Chart::Activity, QStringLiteral("activity:reporting")),
                 expectedPoints(m_story, [this](int i) { return double(m_story.activity(i)->bySlice.value(QStringLiteral("v6e-4x4-3")).withDutyCycle); }));
        // A pick the history does not hold falls back to the fleet.
        panel.setActivityScope(QStringLiteral("slice:no-such-slice"));
        QCOMPARE(panel.activityScope(), QString());
    }

    // Gaps: an entry where no chip reports and one without an activity table put no point on
    // the mean (never a 0); the count says 0 chips report where a table says so, and nothing
    // where there is no table. The line is one series per run, in the legend once.
    void activityGaps()
    {
        DemoCluster demo;
        const SnapshotPtr base = buildSnapshot(demo.capture());
        const QString slice = QStringLiteral("v6e-4x4-1");
        const int chips = base->slices[base->sliceIndex(slice)].layout.chipCount();
        const float nan = std::numeric_limits<float>::quiet_NaN();
        const QList<std::optional<float>> duty{40.0f, nan, std::nullopt, 60.0f, 60.0f, 80.0f};
        SnapshotHistory history;
        for (int i = 0; i < duty.size(); ++i)
            history.add(scripted(base, base->capturedAt.addSecs(2 * i), slice, duty[i]));
        HistoryChartsPanel panel;
        panel.resize(kGoldenSize);
        panel.setHistory(&history);
        panel.show();
        panel.refreshNow();
        const auto x = [&](int i) {
            return HistoryChartsPanel::axisValue(history.time(i));
        };

        const QList<QXYSeries *> mean = runsOf(panel, Chart::Activity, QStringLiteral("activity:mean"));
        QCOMPARE(mean.size(), 2);
        QCOMPARE(mean[0]->points(), (QList<QPointF>{{x(0), 40}}));
        QVERIFY(mean[0]->pointsVisible()); // a lone value is a dot
        QCOMPARE(mean[1]->points(), (QList<QPointF>{{x(3), 60}, {x(4), 60}, {x(5), 80}}));
        QVERIFY(!mean[1]->pointsVisible());
        const QList<QXYSeries *> reporting = runsOf(panel, Chart::Activity, QStringLiteral("activity:reporting"));
        QCOMPARE(reporting.size(), 2);
        QCOMPARE(reporting[0]->points(), (QList<QPointF>{{x(0), double(chips)}, {x(1), 0}}));
        QCOMPARE(reporting[1]->points().first(), QPointF(x(3), double(chips)));
        // In the legend once, whatever its runs; its value at the newest entry while nothing is
        // hovered or scrubbed.
        const QString chipsText = QString::number(chips);
        QCOMPARE(panel.legendTexts(Chart::Activity),
                 (QStringList{QStringLiteral("mean duty cycle 80.0 %"), QStringLiteral("chips reporting ") + chipsText,
                              QStringLiteral("chips ") + QString::number(history.activity(5)->fleet.chips)}));
        // Unknown is "\u2013", never 0: no chip reports (a table) and no table at all.
        panel.setCursorTime(history.time(1));
        QCOMPARE(panel.legendTexts(Chart::Activity),
                 (QStringList{QStringLiteral("mean duty cycle \u2013"), QStringLiteral("chips reporting 0"), QStringLiteral("chips ") + QString::number(history.activity(1)->fleet.chips)}));
        panel.setCursorTime(history.time(2));
        QCOMPARE(panel.legendTexts(Chart::Activity),
                 (QStringList{QStringLiteral("mean duty cycle \u2013"), QStringLiteral("chips reporting \u2013"), QStringLiteral("chips \u2013")}));

        // Hovering says why there is no point.
        panel.setCursorTime(history.time(1));
        QString tip = panel.toolTipAt(panel.cursorLine(Chart::Activity).center().toPoint());
        QVERIFY2(tip.contains(QStringLiteral("mean duty cycle</td><td align=\"right\">unknown: no chip reports")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("chips reporting</td><td align=\"right\">0 of %1").arg(history.activity(1)->fleet.chips)), qPrintable(tip));
        panel.setCursorTime(history.time(2));
        tip = panel.toolTipAt(panel.cursorLine(Chart::Activity).center().toPoint());
        QVERIFY2(tip.contains(QStringLiteral("no activity in this capture")), qPrintable(tip));
        panel.setCursorTime(history.time(5));
        tip = panel.toolTipAt(panel.cursorLine(Chart::Activity).center().toPoint());
        QVERIFY2(tip.contains(QStringLiteral("mean duty cycle</td><td align=\"right\">80.0 %")), qPrintable(tip));

        // The gap survives decimation: exact first (the runs' ends and the gap's edges stay),
        // then by bucket (one gap row per bucket).
        QList<double> t, c;
        for (int i = 0; i < 20; ++i) {
            t << i;
            c << (i >= 8 && i <= 11 ? std::numeric_limits<double>::quiet_NaN() : double(i));
        }
        QCOMPARE(historychart::keptRows(t, {c}, 10), (QList<int>{0, 7, 8, 11, 12, 19}));
        const QList<int> few = historychart::keptRows(t, {c}, 4);
        QVERIFY(few.size() <= 4 && few.first() == 0 && few.last() == 19);
        QVERIFY(std::any_of(few.cbegin(), few.cend(), [&](int r) { return std::isnan(c[r]); }));
    }

    // A history without chip activity (captures from before issue 15): the chart says so and
    // draws nothing, certainly not a flat 0.
    void noActivityInHistory()
    {
        DemoCluster demo;
        const SnapshotPtr base = buildSnapshot(demo.capture());
        SnapshotHistory history;
        for (int i = 0; i < 3; ++i)
            history.add(scripted(base, base->capturedAt.addSecs(2 * i), QString(), std::nullopt));
        HistoryChartsPanel panel;
        panel.resize(kGoldenSize);
        panel.setHistory(&history);
        panel.refreshNow();
        QVERIFY(panel.chart(Chart::Activity)->series().isEmpty());
        QVERIFY2(panel.chart(Chart::Activity)->title().contains(QStringLiteral("no chip activity in this history")), qPrintable(panel.chart(Chart::Activity)->title()));
        QVERIFY(panel.activityScopes().isEmpty());
        QVERIFY(!panel.findChild<QComboBox *>(QStringLiteral("activityScope"))->isEnabled());
        QVERIFY(!panel.chart(Chart::Chips)->series().isEmpty()); // the other charts as ever
    }

    // The cursor: a vertical line on every chart, at the x the chart itself maps the time to.
    void cursorLine()
    {
        HistoryChartsPanel panel;
        panel.resize(kGoldenSize);
        panel.setHistory(&m_story);
        panel.show();
        panel.refreshNow();
        const QDateTime at = m_story.time(45);
        panel.setCursorTime(at);
        QCOMPARE(panel.cursorTime(), at);
        const QImage image = panel.grab().toImage().convertToFormat(QImage::Format_RGB32);
        for (int c = 0; c < HistoryChartsPanel::kChartCount; ++c) {
            const QLineF l = panel.cursorLine(Chart(c));
            QVERIFY2(!l.isNull(), qPrintable(QString::number(c)));
            QCOMPARE(l.x1(), l.x2());
            QVERIFY(l.length() > 100);
            // Where QtCharts puts that time, through any series of the chart.
            QChart *chart = panel.chart(Chart(c));
            QAbstractSeries *series = chart->series().first();
            const QPointF inChart = chart->mapToPosition(QPointF(HistoryChartsPanel::axisValue(at), 0), series);
            auto *view = panel.findChild<QChartView *>(QStringLiteral("chart%1").arg(c));
            const QPoint inPanel = view->viewport()->mapTo(&panel, view->mapFromScene(chart->mapToScene(inChart)));
            QVERIFY2(std::abs(inPanel.x() - l.x1()) <= 1.0, qPrintable(QStringLiteral("%1 vs %2").arg(inPanel.x()).arg(l.x1())));
            // And it is painted, 2 pixels wide on whole pixels: the theme's text colour just
            // left of x, a little above the bottom of the plot.
            const QColor painted = image.pixelColor(int(std::lround(l.x1())) - 1, int(l.y2()) - 3);
            QCOMPARE(painted, panel.theme().text);
        }
        panel.setCursorTime(QDateTime());
        QVERIFY(panel.cursorLine(Chart::Chips).isNull());
        panel.setCursorTime(m_story.time(0).addSecs(-3600)); // before the axis
        QVERIFY(panel.cursorLine(Chart::Chips).isNull());
    }

    // Hovering shows the entry nearest the mouse: its UTC time and the chart's values; a click
    // asks the window to scrub there.
    void hoverAndClick()
    {
        HistoryChartsPanel panel;
        panel.resize(kGoldenSize);
        panel.setHistory(&m_story);
        panel.show();
        panel.refreshNow();
        const int i = 45;
        panel.setCursorTime(m_story.time(i));
        const HistoryPoint &p = m_story.point(i);

        const QLineF chips = panel.cursorLine(Chart::Chips);
        const QString tip = panel.toolTipAt(chips.center().toPoint());
        QVERIFY2(tip.contains(m_story.time(i).toUTC().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")) + QStringLiteral(" UTC")), qPrintable(tip));
        QVERIFY(tip.contains(QStringLiteral("v6e reserved</td><td align=\"right\">%1 chips").arg(p.generation(u"v6e")->counts.reservedChips)));

        const QString pgTip = panel.toolTipAt(panel.cursorLine(Chart::PlacementGroups).center().toPoint());
        QVERIFY2(pgTip.contains(QStringLiteral("oldest pending")), qPrintable(pgTip));
        QVERIFY(pgTip.contains(p.placementGroups.oldestPendingId.left(12)));

        const QString slicesTip = panel.toolTipAt(panel.cursorLine(Chart::Slices).center().toPoint());
        QVERIFY(slicesTip.contains(QStringLiteral("ready</td><td align=\"right\">%1 slice").arg(p.fleet.ready)));

        const QString activityTip = panel.toolTipAt(panel.cursorLine(Chart::Activity).center().toPoint());
        const ActivityCounts fleet = m_story.activity(i)->fleet;
        QVERIFY2(activityTip.contains(QStringLiteral("mean duty cycle</td><td align=\"right\">%1 %").arg(fleet.meanDutyCycle(), 0, 'f', 1)), qPrintable(activityTip));
        QVERIFY(activityTip.contains(QStringLiteral("chips reporting</td><td align=\"right\">%1 of %2").arg(fleet.withDutyCycle).arg(fleet.chips)));

        QVERIFY(panel.toolTipAt(QPoint(2, 2)).isEmpty()); // the picker bar

        QSignalSpy requested(&panel, &HistoryChartsPanel::cursorTimeRequested);
        auto *view = panel.findChild<QChartView *>(QStringLiteral("chart1"));
        const QLineF slices = panel.cursorLine(Chart::Slices);
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->viewport()->mapFrom(&panel, slices.center().toPoint()));
        QCOMPARE(requested.count(), 1);
        QCOMPARE(requested.first().first().toDateTime(), m_story.time(i));
        // The activity chart scrubs too.
        auto *activityView = panel.findChild<QChartView *>(QStringLiteral("chart4"));
        const QLineF activity = panel.cursorLine(Chart::Activity);
        QTest::mouseClick(activityView->viewport(), Qt::LeftButton, {}, activityView->viewport()->mapFrom(&panel, activity.center().toPoint()));
        QCOMPARE(requested.count(), 2);
        QCOMPARE(requested.last().first().toDateTime(), m_story.time(i));
    }

    // Hovering a chart: every legend entry of all five charts shows its value at the entry nearest
    // the mouse, and a hover line marks that time on all five; off the plots, the legends show
    // the newest entry, or the scrubbed one.
    void legendValuesFollowTheHover()
    {
        HistoryChartsPanel panel;
        panel.resize(kGoldenSize);
        panel.setHistory(&m_story);
        panel.setWorkerGroup(kV5pGroup);
        panel.show();
        panel.refreshNow();
        const int n = m_story.size();
        auto expected = [this](int i) {
            const HistoryPoint &p = m_story.point(i);
            const WorkerGroupPoint *w = p.workerGroup(kV5pGroup);
            return std::array<QStringList, 3>{
                QStringList{QStringLiteral("v4 reserved %1").arg(p.generation(u"v4")->counts.reservedChips),
                            QStringLiteral("v4 free %1").arg(p.generation(u"v4")->counts.freeChips),
                            QStringLiteral("v5p reserved %1").arg(p.generation(u"v5p") ? p.generation(u"v5p")->counts.reservedChips : 0),
                            QStringLiteral("v5p free %1").arg(p.generation(u"v5p") ? p.generation(u"v5p")->counts.freeChips : 0),
                            QStringLiteral("v6e reserved %1").arg(p.generation(u"v6e")->counts.reservedChips),
                            QStringLiteral("v6e free %1").arg(p.generation(u"v6e")->counts.freeChips)},
                QStringList{QStringLiteral("ready %1").arg(p.fleet.ready), QStringLiteral("partly used %1").arg(p.fleet.partlyUsed),
                            QStringLiteral("reserved %1").arg(p.fleet.fullyReserved + p.fleet.claimed),
                            QStringLiteral("provisioning %1").arg(p.fleet.provisioning), QStringLiteral("degraded %1").arg(p.fleet.degraded)},
                QStringList{QStringLiteral("desired %1").arg(w->desired), QStringLiteral("ready %1").arg(w->ready),
                            QStringLiteral("present (any state) %1").arg(w->slices)}};
        };
        auto shown = [&panel] {
            return std::array<QStringList, 3>{panel.legendTexts(Chart::Chips), panel.legendTexts(Chart::Slices), panel.legendTexts(Chart::WorkerGroups)};
        };
        // Nothing hovered or scrubbed: the newest entry.
        QCOMPARE(shown(), expected(n - 1));
        QVERIFY(!panel.hoverTime().isValid());
        QVERIFY(panel.hoverLine(Chart::Chips).isNull());

        // Over chart 1 at entry 12 (v5p has no slice yet: 0 reserved, the worker group wants 1).
        QChartView *view = viewOf(panel, Chart::Slices);
        hover(view->viewport(), viewportPosAt(panel, Chart::Slices, m_story.time(12)));
        QCOMPARE(panel.hoverTime(), m_story.time(12));
        QCOMPARE(shown(), expected(12));
        QVERIFY(panel.legendTexts(Chart::Chips).contains(QStringLiteral("v5p reserved 0")));
        // The placement groups and their oldest pending age in seconds, as its axis counts them.
        const PlacementGroupCounts &g = m_story.point(12).placementGroups;
        QCOMPARE(panel.legendTexts(Chart::PlacementGroups),
                 (QStringList{QStringLiteral("pending %1").arg(g.pending), QStringLiteral("created %1").arg(g.created),
                              QStringLiteral("oldest pending %1 s").arg(std::lround(double(g.oldestPendingMs) / 1000))}));
        QCOMPARE(panel.legendTexts(Chart::Activity).first(),
                 QStringLiteral("mean duty cycle %1 %").arg(m_story.activity(12)->fleet.meanDutyCycle(), 0, 'f', 1));
        // The hover line at that time on all five charts, where each chart maps it.
        QList<QLineF> lines;
        for (int c = 0; c < HistoryChartsPanel::kChartCount; ++c) {
            lines << panel.hoverLine(Chart(c));
            QVERIFY2(!lines.last().isNull() && lines.last().x1() == lines.last().x2(), qPrintable(QString::number(c)));
            const QPoint at = viewOf(panel, Chart(c))->viewport()->mapTo(&panel, viewportPosAt(panel, Chart(c), m_story.time(12)));
            QVERIFY2(std::abs(lines.last().x1() - at.x()) <= 1.0, qPrintable(QStringLiteral("chart %1: %2 vs %3").arg(c).arg(lines.last().x1()).arg(at.x())));
        }

        // On to entry 70, over another chart: every legend follows.
        QChartView *activity = viewOf(panel, Chart::Activity);
        hover(activity->viewport(), viewportPosAt(panel, Chart::Activity, m_story.time(70)));
        QCOMPARE(shown(), expected(70));

        // The mouse leaves: no hover line, the newest entry again; scrubbed: the scrubbed entry.
        QEvent leave(QEvent::Leave);
        QApplication::sendEvent(activity, &leave);
        QVERIFY(!panel.hoverTime().isValid());
        QVERIFY(panel.hoverLine(Chart::Slices).isNull());
        QCOMPARE(shown(), expected(n - 1));
        panel.setCursorTime(m_story.time(30));
        QCOMPARE(shown(), expected(30));
        // Over the picker bar, off every plot: no hover.
        hover(view->viewport(), QPoint(2, 2));
        QVERIFY(!panel.hoverTime().isValid());
        QCOMPARE(shown(), expected(30));
    }

    // Dragging across a chart zooms all five into that range: the same x range on every axis,
    // narrower than the history, the y axes fitted to the values shown, the range named beside a
    // Reset zoom button. No scrub on the way.
    void dragZoomsEveryChart()
    {
        HistoryChartsPanel panel;
        panel.resize(kGoldenSize);
        panel.setHistory(&m_story);
        panel.show();
        panel.refreshNow();
        const auto whole = xRanges(panel);
        const QDateTime from = m_story.time(0).addSecs(60), to = m_story.time(0).addSecs(120); // 09:01:00 .. 09:02:00
        auto *ageAxis = qobject_cast<QValueAxis *>(panel.chart(Chart::PlacementGroups)->axes(Qt::Vertical, line(panel, Chart::PlacementGroups, QStringLiteral("pg:oldest-pending"))).first());
        QCOMPARE(ageAxis->max(), 200.0); // the age reaches 180 s by the end
        QSignalSpy requested(&panel, &HistoryChartsPanel::cursorTimeRequested);
        QSignalSpy changed(&panel, &HistoryChartsPanel::timeRangeChanged);

        QChartView *view = viewOf(panel, Chart::WorkerGroups);
        const QPoint a = viewportPosAt(panel, Chart::WorkerGroups, from.addSecs(3)), b = viewportPosAt(panel, Chart::WorkerGroups, to.addSecs(-3));
        QTest::mousePress(view->viewport(), Qt::LeftButton, {}, a);
        QTest::mouseMove(view->viewport(), (a + b) / 2);
        QVERIFY(bandShown(panel, Chart::WorkerGroups)); // the band while dragging
        QVERIFY(!bandShown(panel, Chart::Chips));       // on the dragged chart only
        QTest::mouseMove(view->viewport(), b);
        QTest::mouseRelease(view->viewport(), Qt::LeftButton, {}, b);
        QVERIFY(!bandShown(panel, Chart::WorkerGroups));
        QCOMPARE(requested.count(), 0);
        QCOMPARE(changed.count(), 1);

        QVERIFY(panel.isZoomed());
        QVERIFY(!panel.zoomFollowsLive());
        // Round ticks around the selection (09:01:03 .. 09:01:57): 09:01:00 .. 09:02:00, on all five.
        QCOMPARE(panel.shownFrom(), from);
        QCOMPARE(panel.shownTo(), to);
        const auto zoomed = xRanges(panel);
        for (int c = 0; c < HistoryChartsPanel::kChartCount; ++c) {
            QCOMPARE(zoomed[c], zoomed[0]);
            QVERIFY(zoomed[c].first > whole[c].first && zoomed[c].second < whole[c].second);
        }
        QCOMPARE(HistoryChartsPanel::timeOfAxisValue(qreal(zoomed[0].first.toMSecsSinceEpoch())), from);
        QCOMPARE(HistoryChartsPanel::timeOfAxisValue(qreal(zoomed[0].second.toMSecsSinceEpoch())), to);
        // The series hold the shown entries (09:01:00 .. 09:02:00: 31) and a neighbour each side.
        QXYSeries *v6e = line(panel, Chart::Chips, QStringLiteral("reserved:v6e"));
        QCOMPARE(v6e->count(), 33);
        QCOMPARE(v6e->at(0).x(), HistoryChartsPanel::axisValue(from.addSecs(-2)));
        QCOMPARE(v6e->at(32).x(), HistoryChartsPanel::axisValue(to.addSecs(2)));
        // The age axis refits: at most 120 s is shown.
        QCOMPARE(ageAxis->max(), 150.0);
        // The label names the range; the button is there.
        auto *label = panel.findChild<QLabel *>(QStringLiteral("zoomRange"));
        auto *reset = panel.findChild<QToolButton *>(QStringLiteral("resetZoom"));
        QVERIFY(label->isVisible() && reset->isVisible());
        QVERIFY(!panel.findChild<QLabel *>(QStringLiteral("summary"))->isVisible());
        QCOMPARE(label->text(), QStringLiteral("09:01:00 \u2013 09:02:00 UTC"));
        // Nothing hovered or scrubbed: the legends show the newest entry shown (09:02:00).
        QCOMPARE(panel.legendTexts(Chart::Chips).last(), QStringLiteral("v6e free %1").arg(m_story.point(60).generation(u"v6e")->counts.freeChips));

        // Back to the whole history: the button, a double click, Escape on a chart.
        auto expectWhole = [&] {
            QVERIFY(!panel.isZoomed());
            QCOMPARE(xRanges(panel), whole);
            QCOMPARE(line(panel, Chart::Chips, QStringLiteral("reserved:v6e"))->count(), m_story.size());
            QCOMPARE(ageAxis->max(), 200.0);
            QVERIFY(!label->isVisible() && !reset->isVisible());
        };
        QTest::mouseClick(reset, Qt::LeftButton);
        expectWhole();
        drag(view->viewport(), a, b);
        QVERIFY(panel.isZoomed());
        QTest::mouseDClick(viewOf(panel, Chart::Chips)->viewport(), Qt::LeftButton, {}, viewportPosAt(panel, Chart::Chips, from.addSecs(30)));
        expectWhole();
        drag(view->viewport(), a, b);
        QVERIFY(panel.isZoomed());
        QVERIFY(view->focusPolicy() & Qt::ClickFocus); // the drag gave the chart the keys
        QTest::keyClick(view, Qt::Key_Escape);
        expectWhole();
        QTest::keyClick(view, Qt::Key_Escape); // nothing to reset: Escape goes on to the window
        QVERIFY(!panel.isZoomed());
        QCOMPARE(changed.count(), 6);
    }

    // A press and release that moved less than the threshold across is a click: it scrubs, and
    // does not zoom.
    void smallMoveStillScrubs()
    {
        HistoryChartsPanel panel;
        panel.resize(kGoldenSize);
        panel.setHistory(&m_story);
        panel.show();
        panel.refreshNow();
        QSignalSpy requested(&panel, &HistoryChartsPanel::cursorTimeRequested);
        QChartView *view = viewOf(panel, Chart::Chips);
        const QPoint at = viewportPosAt(panel, Chart::Chips, m_story.time(40));
        const QPoint nearBy = at + QPoint(HistoryChartsPanel::kDragThreshold - 1, 3);
        QTest::mousePress(view->viewport(), Qt::LeftButton, {}, at);
        QTest::mouseMove(view->viewport(), nearBy);
        QVERIFY(!bandShown(panel, Chart::Chips));
        QTest::mouseRelease(view->viewport(), Qt::LeftButton, {}, nearBy);
        QVERIFY(!panel.isZoomed());
        QCOMPARE(requested.count(), 1);
        QCOMPARE(requested.first().first().toDateTime(), m_story.time(40)); // where it was pressed
        // At the threshold it is a drag: a zoom, no scrub.
        drag(view->viewport(), at, at + QPoint(HistoryChartsPanel::kDragThreshold, 0));
        QVERIFY(panel.isZoomed());
        QCOMPARE(requested.count(), 1);
        // A selection narrower than kMinZoomMs is widened about its middle.
        QVERIFY(panel.shownFrom().msecsTo(panel.shownTo()) >= HistoryChartsPanel::kMinZoomMs);
    }

    // Zoomed in, the shown range is decimated afresh: more of its entries are drawn than the
    // whole history's decimation kept there.
    void zoomShowsDetail()
    {
        HistoryChartsPanel panel;
        panel.resize(kGoldenSize);
        panel.setHistory(&m_story);
        panel.setMaxPointsPerSeries(12);
        panel.show();
        panel.refreshNow();
        const QDateTime from = m_story.time(30), to = m_story.time(60);
        auto inRange = [&](QXYSeries *s) {
            int k = 0;
            for (const QPointF &p : s->points())
                k += p.x() >= HistoryChartsPanel::axisValue(from) && p.x() <= HistoryChartsPanel::axisValue(to);
            return k;
        };
        QXYSeries *mean = runsOf(panel, Chart::Activity, QStringLiteral("activity:mean")).first();
        QVERIFY(mean->count() <= 12);
        const int before = inRange(mean);
        panel.setTimeRange(from, to);
        QCOMPARE(panel.shownFrom(), from);
        QCOMPARE(panel.shownTo(), to);
        mean = runsOf(panel, Chart::Activity, QStringLiteral("activity:mean")).first();
        QVERIFY(mean->count() <= 12); // still bounded
        QVERIFY2(inRange(mean) > before, qPrintable(QStringLiteral("%1 vs %2").arg(inRange(mean)).arg(before)));
    }

    // New entries while zoomed: a range that reached the newest entry follows it (same width);
    // any other range stays; a range the history no longer holds ends the zoom.
    void liveEntriesWhileZoomed()
    {
        SnapshotHistory history;
        for (int i = 0; i < 60; ++i)
            history.add(m_story.snapshot(i));
        HistoryChartsPanel panel;
        panel.resize(kGoldenSize);
        panel.setHistory(&history);
        panel.show();
        panel.refreshNow();
        const QDateTime t0 = history.time(0);
        // Dragged from 09:01:10 to past the newest entry (09:01:58): follows live.
        QChartView *view = viewOf(panel, Chart::Chips);
        const QRectF plot = panel.chart(Chart::Chips)->plotArea();
        const QPoint right = view->mapFromScene(panel.chart(Chart::Chips)->mapToScene(QPointF(plot.right() + 20, plot.center().y())));
        drag(view->viewport(), viewportPosAt(panel, Chart::Chips, t0.addSecs(71)), right);
        QVERIFY(panel.isZoomed());
        QVERIFY(panel.zoomFollowsLive());
        QCOMPARE(panel.shownFrom(), t0.addSecs(70));
        QCOMPARE(panel.shownTo(), t0.addSecs(120));
        QVERIFY(panel.findChild<QLabel *>(QStringLiteral("zoomRange"))->text().endsWith(QStringLiteral("following live")));
        for (int i = 60; i < 80; ++i) // to 09:02:38
            history.add(m_story.snapshot(i));
        panel.refreshNow();
        QVERIFY(panel.isZoomed());
        QCOMPARE(panel.shownTo(), t0.addSecs(160)); // the newest entry, rounded to the next tick
        QVERIFY(panel.shownFrom() >= t0.addSecs(100) && panel.shownFrom() <= t0.addSecs(110));
        QCOMPARE(xRanges(panel)[int(Chart::Activity)], xRanges(panel)[int(Chart::Chips)]);
        QCOMPARE(line(panel, Chart::Chips, QStringLiteral("reserved:v6e"))->points().last().x(), HistoryChartsPanel::axisValue(history.time(79)));
        QCOMPARE(panel.legendTexts(Chart::Slices).first(), QStringLiteral("ready %1").arg(history.point(79).fleet.ready));

        // A range in the past stays put as entries arrive.
        panel.setTimeRange(t0.addSecs(20), t0.addSecs(50));
        QVERIFY(!panel.zoomFollowsLive());
        const auto fixed = xRanges(panel);
        for (int i = 80; i < 91; ++i)
            history.add(m_story.snapshot(i));
        panel.refreshNow();
        QVERIFY(panel.isZoomed());
        QCOMPARE(xRanges(panel), fixed);
        QCOMPARE(panel.shownFrom(), t0.addSecs(20));
        QCOMPARE(panel.shownTo(), t0.addSecs(50));

        // The history cleared (another cluster): the zoom ends.
        QSignalSpy changed(&panel, &HistoryChartsPanel::timeRangeChanged);
        history.clear();
        history.add(m_story.snapshot(0));
        panel.refreshNow();
        QVERIFY(!panel.isZoomed());
        QCOMPARE(changed.count(), 1);
    }

    // An hour of 2-second snapshots (1800 entries): decimation keeps every series under the cap
    // without losing a peak, and the figures for redrawing it are printed.
    void longHistory()
    {
        SnapshotHistory history;
        QElapsedTimer clock;
        clock.start();
        recordStory(history, 1799, 10);
        QCOMPARE(history.size(), 1800);
        qInfo("recorded 1800 entries in %lld ms", clock.elapsed());

        HistoryChartsPanel panel;
        panel.resize(kGoldenSize);
        panel.setHistory(&history);
        panel.show();
        panel.refreshNow();

        int series = 0;
        for (int c = 0; c < HistoryChartsPanel::kChartCount; ++c)
            for (QAbstractSeries *s : panel.chart(Chart(c))->series()) {
                QXYSeries *xy = qobject_cast<QXYSeries *>(s);
                if (auto *area = qobject_cast<QAreaSeries *>(s))
                    xy = area->upperSeries();
                QVERIFY(xy->count() <= panel.maxPointsPerSeries());
                QVERIFY(xy->count() >= 2);
                ++series;
            }
        // Exact decimation: the line still passes through each entry's value (ages ramp linearly).
        QXYSeries *v6e = line(panel, Chart::Chips, QStringLiteral("reserved:v6e"));
        int maxReserved = 0;
        for (int i = 0; i < history.size(); ++i)
            maxReserved = std::max(maxReserved, history.point(i).generation(u"v6e")->counts.reservedChips);
        double seriesMax = 0;
        for (const QPointF &pt : v6e->points())
            seriesMax = std::max(seriesMax, pt.y());
        QCOMPARE(seriesMax, double(maxReserved));
        QXYSeries *age = line(panel, Chart::PlacementGroups, QStringLiteral("pg:oldest-pending"));
        QVERIFY(age->count() < 50); // a straight ramp needs its ends and its breaks only
        auto *ageAxis = qobject_cast<QValueAxis *>(panel.chart(Chart::PlacementGroups)->axes(Qt::Vertical, age).first());
        QVERIFY2(ageAxis->titleText().contains(QStringLiteral("(min)")), qPrintable(ageAxis->titleText()));

        // The figures: a rebuild (read points, decimate, replace) and a full paint of the panel,
        // decimated (default cap) and not (cap above 1800), side by side, 7 runs each.
        bool painted = true;
        auto measure = [&](int cap, const char *what) -> std::pair<double, double> {
            panel.setMaxPointsPerSeries(cap);
            panel.refreshNow();
            QList<double> rebuild, paint;
            for (int run = 0; run < 7; ++run) {
                panel.refreshNow();
                rebuild << panel.lastRefreshMs();
                QElapsedTimer t;
                t.start();
                const QPixmap pixmap = panel.grab();
                paint << double(t.nsecsElapsed()) / 1e6;
                painted = painted && !pixmap.isNull();
            }
            int pts = 0;
            for (int c = 0; c < HistoryChartsPanel::kChartCount; ++c)
                for (QAbstractSeries *s : panel.chart(Chart(c))->series()) {
                    QXYSeries *xy = qobject_cast<QXYSeries *>(s);
                    if (auto *area = qobject_cast<QAreaSeries *>(s))
                        xy = area->upperSeries();
                    pts += int(xy->count());
                }
            const Figures r = figures(rebuild), p = figures(paint);
            qInfo("1800 entries, %s: %d series, %d points; rebuild median %.1f ms (min %.1f, max %.1f); "
                  "paint 1200x760 median %.1f ms (min %.1f, max %.1f)",
                  what, series, pts, r.median, r.min, r.max, p.median, p.min, p.max);
            return std::pair(r.median, p.median);
        };
        const auto decimated = measure(HistoryChartsPanel::kDefaultMaxPointsPerSeries, "decimated");
        const auto full = measure(100000, "every entry");
        QVERIFY(painted);
        qInfo("ratio every entry / decimated: rebuild %.2f, paint %.2f", full.first / decimated.first, full.second / decimated.second);
    }

    void goldens_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("theme");
        QTest::addColumn<QSize>("size");
        QTest::newRow("light") << QStringLiteral("history-charts") << QStringLiteral("light") << kGoldenSize;
        QTest::newRow("dark") << QStringLiteral("history-charts-dark") << QStringLiteral("dark") << kGoldenSize;
        // As the History dock holds it under the views of a 1024x700 and a 1920x1080 window (issue 17).
        QTest::newRow("1024 wide dock") << QStringLiteral("history-dock-1024") << QStringLiteral("light") << QSize(1024, 500);
        QTest::newRow("1920 wide dock, dark") << QStringLiteral("history-dock-1920-dark") << QStringLiteral("dark") << QSize(1920, 520);
        QTest::newRow("1024 wide dock, dark") << QStringLiteral("history-dock-1024-dark") << QStringLiteral("dark") << QSize(1024, 500);
        QTest::newRow("1920 wide dock") << QStringLiteral("history-dock-1920") << QStringLiteral("light") << QSize(1920, 520);
    }

    // The panel over the story, the v5p worker group picked, the cursor at 01:30 into it.
    void goldens()
    {
        QFETCH(QString, name);
        QFETCH(QString, theme);
        QFETCH(QSize, size);
        const Theme look = Theme::named(theme);
        applyLook(*qApp, look);
        HistoryChartsPanel panel;
        panel.setTheme(look);
        panel.setHistory(&m_story);
        panel.resize(size);
        panel.show();
        panel.setWorkerGroup(kV5pGroup);
        panel.setCursorTime(m_story.time(45));
        panel.refreshNow();
        const QImage actual = panel.grab().toImage().convertToFormat(QImage::Format_RGB32);
        applyLook(*qApp, Theme::light());
        QCOMPARE(actual.size(), size);
        SLICESCOPE_VERIFY_GOLDEN(name, actual);
    }
};

int main(int argc, char **argv)
{
    // A zone that is not UTC (a POSIX rule: no tzdata needed): the charts must still print UTC.
    qputenv("TZ", "XST-5:30");
    pinRenderingEnvironment(true);
    QApplication app(argc, argv);
    TestHistoryCharts test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_historycharts.moc"
