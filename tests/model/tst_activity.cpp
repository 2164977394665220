// SPDX-License-Identifier: GPL-3.0-or-later
// Chip activity (model/activity.h): Ray's node summary and Prometheus answers joined to the exact
// chip, unknown kept unknown, and what went wrong said. Bodies in Ray's and Prometheus's shapes;
// tests/data/activity holds ones captured from a real Ray 2.60 and a real Prometheus.

#include "../common/activityfixture.h"
#include "activity.h"
#include "capturecodec.h"
#include "snapshot.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace slicescope;
using testing::chipAt;

namespace {

struct FakeNode {
    QString id;
    QString ip;
    QString slice;
    int worker = 0;
    bool alive = true;
};

// Two v6e 4x4 slices of 4 hosts (4 chips each) unless told otherwise: the state API's node list.
QByteArray nodesBody(const QList<FakeNode> &nodes)
{
    QJsonArray items;
    for (const FakeNode &n : nodes) {
        items.append(QJsonObject{
            {QStringLiteral("node_id"), n.id},
            {QStringLiteral("node_ip"), n.ip},
            {QStringLiteral("is_head_node"), false},
            {QStringLiteral("state"), n.alive ? QStringLiteral("ALIVE") : QStringLiteral("DEAD")},
            {QStringLiteral("resources_total"), QJsonObject{{QStringLiteral("TPU"), 4}, {QStringLiteral("CPU"), 1}}},
            {QStringLiteral("labels"), QJsonObject{{QStringLiteral("ray.io/tpu-slice-name"), n.slice},
                                                   {QStringLiteral("ray.io/tpu-worker-id"), QString::number(n.worker)},
                                                   {QStringLiteral("ray.io/tpu-pod-type"), QStringLiteral("v6e-16")},
                                                   {QStringLiteral("ray.io/tpu-topology"), QStringLiteral("4x4")},
                                                   {QStringLiteral("ray.io/accelerator-type"), QStringLiteral("TPU-V6E")}}},
        });
    }
    const QJsonObject result{{QStringLiteral("total"), items.size()}, {QStringLiteral("num_after_truncation"), items.size()}, {QStringLiteral("num_filtered"), items.size()}, {QStringLiteral("result"), items}};
    return QJsonDocument(QJsonObject{{QStringLiteral("result"), true}, {QStringLiteral("msg"), QString()}, {QStringLiteral("data"), QJsonObject{{QStringLiteral("result"), result}}}})
        .toJson(QJsonDocument::Compact);
}

QList<FakeNode> twoSlices(bool sharedIp = false)
{
    QList<FakeNode> nodes;
    for (int s = 0; s < 2; ++s)
        for (int w = 0; w < 4; ++w)
            nodes.append({QStringLiteral("%1%2").arg(s ? QStringLiteral("bb") : QStringLiteral("aa")).arg(w, 54, 10, QLatin1Char('0')),
                          sharedIp ? QStringLiteral("127.0.0.1") : QStringLiteral("10.0.%1.%2").arg(s).arg(w + 1),
                          QStringLiteral("tpu-%1").arg(s), w});
    return nodes;
}

struct FakeChip {
    int index = 0;
    double duty = 0, tensorcore = 0, hbm = 0, used = 0, total = 0;
};

// GET /nodes?view=summary, one entry per node: {"now", "ip", "raylet": {...}, "tpus": [...]}.
QByteArray summaryBody(const QList<FakeNode> &nodes, const QHash<QString, QList<FakeChip>> &chips, double now, int metricsPortBase = 0)
{
    QJsonArray summary;
    int i = 0;
    for (const FakeNode &n : nodes) {
        QJsonArray tpus;
        for (const FakeChip &c : chips.value(n.id))
            tpus.append(QJsonObject{{QStringLiteral("index"), c.index},
                                    {QStringLiteral("name"), QStringLiteral("4804690994094478883-%1").arg(c.index)},
                                    {QStringLiteral("tpuType"), QStringLiteral("tpu-v6e-slice")},
                                    {QStringLiteral("tpuTopology"), QStringLiteral("4x4")},
                                    {QStringLiteral("tensorcoreUtilization"), c.tensorcore},
                                    {QStringLiteral("hbmUtilization"), c.hbm},
                                    {QStringLiteral("dutyCycle"), c.duty},
                                    {QStringLiteral("memoryUsed"), c.used},
                                    {QStringLiteral("memoryTotal"), c.total}});
        QJsonObject raylet{{QStringLiteral("nodeId"), n.id}, {QStringLiteral("nodeManagerAddress"), n.ip}, {QStringLiteral("state"), QStringLiteral("ALIVE")}};
        if (metricsPortBase) raylet.insert(QStringLiteral("metricsExportPort"), metricsPortBase + i);
        summary.append(QJsonObject{{QStringLiteral("now"), now}, {QStringLiteral("ip"), n.ip}, {QStringLiteral("raylet"), raylet}, {QStringLiteral("tpus"), tpus}});
        ++i;
    }
    return QJsonDocument(QJsonObject{{QStringLiteral("result"), true}, {QStringLiteral("msg"), QStringLiteral("Node summary fetched.")}, {QStringLiteral("data"), QJsonObject{{QStringLiteral("summary"), summary}}}})
        .toJson(QJsonDocument::Compact);
}

QList<FakeChip> fourChips(double duty, double total = 34359738368.0)
{
    QList<FakeChip> chips;
    for (int c = 0; c < 4; ++c)
        chips.append({c, duty + c, 10.0 + c, 20.0 + c, total / 2, total});
    return chips;
}

struct PromSeries {
    QString name;
    QHash<QString, QString> labels;
    double value = 0;
};

QByteArray promBody(const QList<PromSeries> &series, double ts)
{
    QJsonArray result;
    for (const PromSeries &x : series) {
        QJsonObject metric;
        if (!x.name.isEmpty()) metric.insert(QStringLiteral("__name__"), x.name);
        for (auto it = x.labels.begin(); it != x.labels.end(); ++it)
            metric.insert(it.key(), it.value());
        result.append(QJsonObject{{QStringLiteral("metric"), metric}, {QStringLiteral("value"), QJsonArray{ts, QString::number(x.value)}}});
    }
    // In Prometheus's own order, "status" first (QJsonDocument would sort "data" before it).
    return "{\"status\":\"success\",\"data\":"
           + QJsonDocument(QJsonObject{{QStringLiteral("resultType"), QStringLiteral("vector")}, {QStringLiteral("result"), result}}).toJson(QJsonDocument::Compact) + '}';
}

const QDateTime kAt = QDateTime::fromString(QStringLiteral("2026-12-02T01:00:00Z"), Qt::ISODate);

} // namespace

class TestActivity : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void noActivityBodiesNoTable();
    void nodeSummaryLandsOnTheRightChip();
    void nodeIdsJoinWhateverTheirCase();
    void missingRuntimeMetricsAreUnknownNotIdle();
    void hostWithoutMetricsSaysWhy();
    void staleSummaryIsNotTaken();
    void outOfRangeValuesAreRefused();
    void prometheusJoinsByIp();
    void prometheusJoinsByInstanceWhenIpsAreShared();
    void sharedIpWithoutSummaryIsAmbiguous();
    void devicePluginRemapsSliceWideIndices();
    void windowMaxIsKept();
    void windowQueryForms();
    void summaryCoveringEveryChipLeavesPrometheusUnread();
    void summaryGapsAreFilledFromPrometheus();
    void newSummaryAndWindowsParsedTogether();
    void legacyQueryAnswersStillRead();
    void keptParsesNeverGoStale();
    void keptJoinOnlyWhileNothingChanged();
    void prometheusErrorsAreExplained_data();
    void prometheusErrorsAreExplained();
    void captureFileRoundTrip();
    void realRayAndPrometheusBodies();
    void realDistinctAddressesJoinByIp();
};

void TestActivity::noActivityBodiesNoTable()
{
    Capture c;
    c.capturedAt = kAt;
    c.rayNodes = nodesBody(twoSlices());
    const SnapshotPtr s = buildSnapshot(c);
    QCOMPARE(s->slices.size(), 2);
    QVERIFY(!s->activity); // nothing was asked: not "idle", not "unknown"
}

void TestActivity::nodeSummaryLandsOnTheRightChip()
{
    const QList<FakeNode> nodes = twoSlices();
    QHash<QString, QList<FakeChip>> chips;
    for (const FakeNode &n : nodes)
        chips.insert(n.id, fourChips(n.slice == QLatin1String("tpu-1") ? 80 + n.worker : 1));
    Capture c;
    c.capturedAt = kAt;
    c.rayNodes = nodesBody(nodes);
    c.rayNodeSummary = summaryBody(nodes, chips, kAt.toSecsSinceEpoch() - 3);
    const SnapshotPtr s = buildSnapshot(c);
    QVERIFY(s->activity);
    QCOMPARE(s->activity->chipCount(), 32);
    QCOMPARE(s->activity->reportingChips(), 32);
    const ChipActivity *a = chipAt(*s, QStringLiteral("tpu-1"), 2, 3);
    QVERIFY(a);
    QCOMPARE(a->dutyCycle, 82.0f + 3); // worker 2's base 82, chip 3 adds 3
    QCOMPARE(a->tensorcoreUtilization, 13.0f);
    QCOMPARE(a->hbmBandwidthUtilization, 23.0f);
    QCOMPARE(a->hbmTotalBytes, 34359738368.0);
    QCOMPARE(a->source, ActivitySource::RayNodeSummary);
    QCOMPARE(a->ageSeconds(kAt), 3);
    QCOMPARE(chipAt(*s, QStringLiteral("tpu-0"), 0, 0)->dutyCycle, 1.0f);
    const ActivityCounts busy = s->activity->sliceCounts(s->sliceIndex(u"tpu-1"));
    QCOMPARE(busy.withDutyCycle, 16);
    QCOMPARE(busy.meanDutyCycle(), (80 + 81 + 82 + 83) / 4.0 + 1.5);
    QVERIFY2(s->activity->sources.join(u' ').contains(QLatin1String("8 of 8 TPU hosts")), qPrintable(s->activity->sources.join(u'|')));
    // The summaries the charts read without walking chips.
    QCOMPARE(s->activity->bySlice.value(QStringLiteral("tpu-1")), busy);
    QCOMPARE(s->activity->fleet.chips, 32);
    QCOMPARE(s->activity->fleet.withDutyCycle, 32);
    QCOMPARE(s->activity->fleet.hbmUsedFraction(), 0.5);
}

void TestActivity::nodeIdsJoinWhateverTheirCase()
{
    // Ray writes node ids in lower-case hex, but a body may spell them in capitals: the state
    // API's list does for one slice's hosts here, the node summary for the other's.
    const QList<FakeNode> nodes = twoSlices();
    QList<FakeNode> listed = nodes, summarised = nodes;
    QHash<QString, QList<FakeChip>> chips;
    for (int i = 0; i < nodes.size(); ++i) {
        chips.insert(nodes[i].id, fourChips(10 * (i + 1)));
        if (nodes[i].slice == QLatin1String("tpu-0")) listed[i].id = nodes[i].id.toUpper();
        else summarised[i].id = nodes[i].id.toUpper();
    }
    QHash<QString, QList<FakeChip>> summarisedChips;
    for (int i = 0; i < nodes.size(); ++i)
        summarisedChips.insert(summarised[i].id, chips.value(nodes[i].id));
    Capture c;
    c.capturedAt = kAt;
    c.rayNodes = nodesBody(listed);
    c.rayNodeSummary = summaryBody(summarised, summarisedChips, kAt.toSecsSinceEpoch());
    const SnapshotPtr s = buildSnapshot(c);
    QVERIFY(s->activity);
    QCOMPARE(s->activity->reportingChips(), 32);
    QCOMPARE(chipAt(*s, QStringLiteral("tpu-0"), 1, 2)->dutyCycle, 20.0f + 2); // node 1
    QCOMPARE(chipAt(*s, QStringLiteral("tpu-1"), 3, 0)->dutyCycle, 80.0f); // node 7
    QVERIFY2(s->activity->problems.isEmpty(), qPrintable(s->activity->problems.join(u'|')));
}

void TestActivity::missingRuntimeMetricsAreUnknownNotIdle()
{
    const QList<FakeNode> nodes = twoSlices();
    QHash<QString, QList<FakeChip>> chips;
    // Ray writes 0 for what the plugin did not report: host metrics only.
    chips.insert(nodes[0].id, {{0, 0, 35, 12, 0, 0}, {1, 0, 36, 13, 0, 0}, {2, 0, 37, 14, 0, 0}, {3, 0, 38, 15, 0, 0}});
    Capture c;
    c.capturedAt = kAt;
    c.rayNodes = nodesBody(nodes);
    c.rayNodeSummary = summaryBody(nodes, chips, kAt.toSecsSinceEpoch());
    const SnapshotPtr s = buildSnapshot(c);
    const ChipActivity *a = chipAt(*s, QStringLiteral("tpu-0"), 0, 1);
    QVERIFY(a && a->reports());
    QVERIFY(!a->hasDutyCycle());
    QVERIFY(std::isnan(a->hbmTotalBytes));
    QCOMPARE(a->tensorcoreUtilization, 36.0f);
}

void TestActivity::hostWithoutMetricsSaysWhy()
{
    const QList<FakeNode> nodes = twoSlices();
    QHash<QString, QList<FakeChip>> chips;
    for (int i = 1; i < nodes.size(); ++i)
        chips.insert(nodes[i].id, fourChips(50));
    Capture c;
    c.capturedAt = kAt;
    c.rayNodes = nodesBody(nodes);
    c.rayNodeSummary = summaryBody(nodes, chips, kAt.toSecsSinceEpoch()); // worker 0 of tpu-0: "tpus": []
    const SnapshotPtr s = buildSnapshot(c);
    const int si = s->sliceIndex(u"tpu-0");
    QVERIFY(!chipAt(*s, QStringLiteral("tpu-0"), 0, 0)->reports());
    QVERIFY2(s->activity->unknownReason(si, 0).contains(QLatin1String("TPU_DEVICE_PLUGIN_ADDR")), qPrintable(s->activity->unknownReason(si, 0)));
    QCOMPARE(s->activity->reportingChips(), 28);
    QCOMPARE(s->activity->sliceCounts(si).reporting, 12);
}

void TestActivity::staleSummaryIsNotTaken()
{
    const QList<FakeNode> nodes = twoSlices();
    QHash<QString, QList<FakeChip>> chips;
    for (const FakeNode &n : nodes)
        chips.insert(n.id, fourChips(50));
    Capture c;
    c.capturedAt = kAt;
    c.rayNodes = nodesBody(nodes);
    c.rayNodeSummary = summaryBody(nodes, chips, kAt.toSecsSinceEpoch() - 7 * 60);
    const SnapshotPtr s = buildSnapshot(c);
    QCOMPARE(s->activity->reportingChips(), 0);
    QVERIFY(s->activity->unknownReason(0, 0).contains(QLatin1String("7 min old")));
}

void TestActivity::outOfRangeValuesAreRefused()
{
    const QList<FakeNode> nodes = twoSlices();
    QHash<QString, QList<FakeChip>> chips;
    chips.insert(nodes[0].id, {{0, 1e30, 10, 10, 1, 2}, {1, -4, 10, 10, 1, 2}, {2, 50, 10, 10, 1e300, 2}, {99, 50, 10, 10, 1, 2}});
    Capture c;
    c.capturedAt = kAt;
    c.rayNodes = nodesBody(nodes);
    c.rayNodeSummary = summaryBody(nodes, chips, kAt.toSecsSinceEpoch());
    const SnapshotPtr s = buildSnapshot(c);
    QVERIFY(!chipAt(*s, QStringLiteral("tpu-0"), 0, 0)->hasDutyCycle());
    QVERIFY(!chipAt(*s, QStringLiteral("tpu-0"), 0, 1)->hasDutyCycle());
    QVERIFY(std::isnan(chipAt(*s, QStringLiteral("tpu-0"), 0, 2)->hbmUsedBytes));
    QCOMPARE(chipAt(*s, QStringLiteral("tpu-0"), 0, 2)->dutyCycle, 50.0f);
    QVERIFY(s->activity->problems.join(u' ').contains(QLatin1String("3 chip values out of range")));
    QVERIFY(s->errors.isEmpty()); // the allocation view is untouched
}

void TestActivity::prometheusJoinsByIp()
{
    const QList<FakeNode> nodes = twoSlices();
    QList<PromSeries> series;
    for (const FakeNode &n : nodes)
        for (int chip = 0; chip < 4; ++chip)
            series.append({QStringLiteral("ray_tpu_duty_cycle"), {{QStringLiteral("ip"), n.ip}, {QStringLiteral("TpuIndex"), QString::number(chip)}, {QStringLiteral("instance"), n.ip + QStringLiteral(":8080")}}, double(n.worker * 10 + chip)});
    Capture c;
    c.capturedAt = kAt;
    c.rayNodes = nodesBody(nodes);
    c.prometheus.append({QLatin1String(promql::kRayTpu), promBody(series, kAt.toSecsSinceEpoch() - 1)});
    const SnapshotPtr s = buildSnapshot(c);
    QCOMPARE(s->activity->reportingChips(), 32);
    QCOMPARE(chipAt(*s, QStringLiteral("tpu-1"), 3, 2)->dutyCycle, 32.0f);
    QCOMPARE(chipAt(*s, QStringLiteral("tpu-1"), 3, 2)->source, ActivitySource::RayMetrics);
    QVERIFY(std::isnan(chipAt(*s, QStringLiteral("tpu-1"), 3, 2)->tensorcoreUtilization)); // not asked: unknown
}

void TestActivity::prometheusJoinsByInstanceWhenIpsAreShared()
{
    const QList<FakeNode> nodes = twoSlices(true);
    QList<PromSeries> series;
    int i = 0;
    for (const FakeNode &n : nodes) {
        for (int chip = 0; chip < 4; ++chip)
            series.append({QStringLiteral("ray_tpu_memory_used"),
                           {{QStringLiteral("ip"), n.ip}, {QStringLiteral("TpuIndex"), QString::number(chip)}, {QStringLiteral("instance"), QStringLiteral("127.0.0.1:%1").arg(20000 + i)}},
                           double(1000 * i + chip)});
        ++i;
    }
    Capture c;
    c.capturedAt = kAt;
    c.rayNodes = nodesBody(nodes);
    c.rayNodeSummary = summaryBody(nodes, {}, kAt.toSecsSinceEpoch(), 20000); // no tpus: only the ports
    c.prometheus.append({QLatin1String(promql::kRayTpu), promBody(series, kAt.toSecsSinceEpoch())});
    const SnapshotPtr s = buildSnapshot(c);
    QCOMPARE(s->activity->reportingChips(), 32);
    QCOMPARE(chipAt(*s, QStringLiteral("tpu-1"), 1, 3)->hbmUsedBytes, 5003.0); // node 5 (tpu-1 worker 1), chip 3
}

void TestActivity::sharedIpWithoutSummaryIsAmbiguous()
{
    const QList<FakeNode> nodes = twoSlices(true);
    QList<PromSeries> series{{QStringLiteral("ray_tpu_duty_cycle"), {{QStringLiteral("ip"), QStringLiteral("127.0.0.1")}, {QStringLiteral("TpuIndex"), QStringLiteral("0")}}, 50}};
    Capture c;
    c.capturedAt = kAt;
    c.rayNodes = nodesBody(nodes);
    c.prometheus.append({QLatin1String(promql::kRayTpu), promBody(series, kAt.toSecsSinceEpoch())});
    const SnapshotPtr s = buildSnapshot(c);
    QCOMPARE(s->activity->reportingChips(), 0); // never a guess at which node
    QVERIFY(s->activity->problems.join(u' ').contains(QLatin1String("cannot be told apart")));
}

void TestActivity::devicePluginRemapsSliceWideIndices()
{
    // Kubernetes only: pods on the hosts, the plugin's series labelled by pod (as GKE scrapes them).
    const QByteArray pods = R"({"kind":"PodList","items":[
      {"metadata":{"name":"w1","namespace":"ml","labels":{"ray.io/cluster":"c","ray.io/group":"g","ray.io/worker-group-replica-name":"g-r0"}},
       "spec":{"nodeName":"n1","nodeSelector":{"cloud.google.com/gke-tpu-accelerator":"tpu-v6e-slice","cloud.google.com/gke-tpu-topology":"2x4"},
               "containers":[{"name":"ray-worker","env":[{"name":"TPU_NAME","value":"g-0"},{"name":"TPU_WORKER_ID","value":"1"}],
                              "resources":{"limits":{"google.com/tpu":"4"}}}]},
       "status":{"phase":"Running","podIP":"10.1.0.2","conditions":[{"type":"Ready","status":"True"}]}},
      {"metadata":{"name":"w0","namespace":"ml","labels":{"ray.io/cluster":"c","ray.io/group":"g","ray.io/worker-group-replica-name":"g-r0"}},
       "spec":{"nodeName":"n0","nodeSelector":{"cloud.google.com/gke-tpu-accelerator":"tpu-v6e-slice","cloud.google.com/gke-tpu-topology":"2x4"},
               "containers":[{"name":"ray-worker","env":[{"name":"TPU_NAME","value":"g-0"},{"name":"TPU_WORKER_ID","value":"0"}],
                              "resources":{"limits":{"google.com/tpu":"4"}}}]},
       "status":{"phase":"Running","podIP":"10.1.0.1","conditions":[{"type":"Ready","status":"True"}]}}]})";
    QList<PromSeries> series;
    for (int chip = 0; chip < 4; ++chip) {
        // Host metrics: local 0..3; runtime metrics: slice-wide 4..7 on worker 1.
        series.append({QStringLiteral("tensorcore_utilization"), {{QStringLiteral("pod"), QStringLiteral("w1")}, {QStringLiteral("namespace"), QStringLiteral("ml")}, {QStringLiteral("accelerator_id"), QStringLiteral("77-%1").arg(chip)}}, 40.0 + chip});
        series.append({QStringLiteral("duty_cycle"), {{QStringLiteral("pod"), QStringLiteral("w1")}, {QStringLiteral("namespace"), QStringLiteral("ml")}, {QStringLiteral("accelerator_id"), QStringLiteral("77-%1").arg(4 + chip)}}, 60.0 + chip});
    }
    Capture c;
    c.capturedAt = kAt;
    c.kubePods = pods;
    c.prometheus.append({QLatin1String(promql::kDevicePlugin), promBody(series, kAt.toSecsSinceEpoch())});
    const SnapshotPtr s = buildSnapshot(c);
    QVERIFY2(s->errors.isEmpty(), qPrintable(s->errors.join(u'\n')));
    QCOMPARE(s->slices.size(), 1);
    const ChipActivity *a = chipAt(*s, QStringLiteral("g-0"), 1, 2);
    QVERIFY(a);
    QCOMPARE(a->dutyCycle, 62.0f); // slice-wide index 6 -> local chip 2
    QCOMPARE(a->tensorcoreUtilization, 42.0f);
    QCOMPARE(a->source, ActivitySource::DevicePlugin);
    QVERIFY(!chipAt(*s, QStringLiteral("g-0"), 0, 0)->reports());
}

void TestActivity::windowMaxIsKept()
{
    const QList<FakeNode> nodes = twoSlices();
    QList<PromSeries> series;
    for (int chip = 0; chip < 4; ++chip)
        series.append({QString(), {{QStringLiteral("ip"), nodes[0].ip}, {QStringLiteral("TpuIndex"), QString::number(chip)}}, 2.5});
    Capture c;
    c.capturedAt = kAt;
    c.rayNodes = nodesBody(nodes);
    c.prometheus.append({promql::windowMaxQuery(600), promBody(series, kAt.toSecsSinceEpoch())});
    const SnapshotPtr s = buildSnapshot(c);
    const ChipActivity *a = chipAt(*s, QStringLiteral("tpu-0"), 0, 3);
    QCOMPARE(a->windowMaxDutyCycle, 2.5f);
    QCOMPARE(a->windowSeconds, 600);
    QVERIFY(a->windowCovered); // the query asks only for series that existed 600 s ago
    QVERIFY(std::isnan(chipAt(*s, QStringLiteral("tpu-0"), 1, 0)->windowMaxDutyCycle)); // not in the answer
}

void TestActivity::windowQueryForms()
{
    bool covered = false;
    QCOMPARE(promql::windowMaxQuery(600),
             QStringLiteral("max by (instance, ip, TpuIndex) (max_over_time(ray_tpu_duty_cycle[600s]) and ray_tpu_duty_cycle offset 600s)"));
    QCOMPARE(promql::windowOfQuery(promql::windowMaxQuery(600), &covered), 600);
    QVERIFY(covered);
    // What recordings made before asked: read, but it never proved the window was seen whole.
    QCOMPARE(promql::windowOfQuery(QStringLiteral("max_over_time(ray_tpu_duty_cycle[900s])"), &covered), 900);
    QVERIFY(!covered);
    QCOMPARE(promql::windowOfQuery(QStringLiteral("max_over_time(ray_tpu_duty_cycle[abc])")), 0);
    QCOMPARE(promql::windowOfQuery(QStringLiteral("max_over_time(ray_tpu_duty_cycle[0s])")), 0);
    QCOMPARE(promql::windowOfQuery(QStringLiteral("max_over_time(ray_tpu_duty_cycle[600s]) * 2")), 0);
    QCOMPARE(promql::windowOfQuery(QStringLiteral("max by (instance, ip, TpuIndex) (max_over_time(ray_tpu_duty_cycle[600s]) and ray_tpu_duty_cycle offset 60s)")), 0);
}

void TestActivity::summaryCoveringEveryChipLeavesPrometheusUnread()
{
    const QList<FakeNode> nodes = twoSlices();
    QHash<QString, QList<FakeChip>> chips;
    for (const FakeNode &n : nodes)
        chips.insert(n.id, fourChips(30));
    QList<PromSeries> series;
    for (const FakeNode &n : nodes)
        for (int chip = 0; chip < 4; ++chip)
            series.append({QStringLiteral("ray_tpu_duty_cycle"), {{QStringLiteral("ip"), n.ip}, {QStringLiteral("TpuIndex"), QString::number(chip)}}, 99.0});
    Capture c;
    c.capturedAt = kAt;
    c.rayNodes = nodesBody(nodes);
    c.rayNodeSummary = summaryBody(nodes, chips, kAt.toSecsSinceEpoch());
    c.prometheus.append({QLatin1String(promql::kRayTpu), promBody(series, kAt.toSecsSinceEpoch())});
    const SnapshotPtr s = buildSnapshot(c);
    QCOMPARE(s->activity->reportingChips(), 32);
    QCOMPARE(chipAt(*s, QStringLiteral("tpu-1"), 2, 1)->dutyCycle, 31.0f); // the summary's, never Prometheus's 99
    QCOMPARE(chipAt(*s, QStringLiteral("tpu-1"), 2, 1)->source, ActivitySource::RayNodeSummary);
    QVERIFY2(s->activity->sources.join(u'|').contains(QLatin1String("Prometheus ray_tpu_*: not read: Ray's node summary reports every chip")),
             qPrintable(s->activity->sources.join(u'|')));
    QVERIFY(s->activity->problems.isEmpty());

    // A failed answer is still read and explained, however complete the summary.
    c.prometheus = {{QLatin1String(promql::kRayTpu), QByteArray(R"({"status":"error","errorType":"bad_data","error":"parse error"})")}};
    const SnapshotPtr failed = buildSnapshot(c);
    QCOMPARE(failed->activity->reportingChips(), 32);
    QVERIFY2(failed->activity->problems.join(u' ').contains(QLatin1String("bad_data: parse error")), qPrintable(failed->activity->problems.join(u'|')));
}

void TestActivity::newSummaryAndWindowsParsedTogether()
{
    // buildSnapshot() parses new activity bodies beside the allocation's read (ActivityPrefetch);
    // joinActivity() called alone parses a new node summary while a second thread parses the window
    // answers (where Qt has threads); with the summary's parse kept, the same answers are parsed
    // one after the other. All three give the same table, errors included: a window answer cut
    // short, one sound.
    const QList<FakeNode> nodes = twoSlices();
    QHash<QString, QList<FakeChip>> chips;
    for (const FakeNode &n : nodes)
        chips.insert(n.id, fourChips(30));
    QList<PromSeries> series;
    for (const FakeNode &n : nodes)
        for (int chip = 0; chip < 4; ++chip)
            series.append({QString(), {{QStringLiteral("ip"), n.ip}, {QStringLiteral("TpuIndex"), QString::number(chip)}}, 5.0 + chip});
    const QByteArray window = promBody(series, kAt.toSecsSinceEpoch());
    Capture c;
    c.capturedAt = kAt;
    c.rayNodes = nodesBody(nodes);
    c.rayNodeSummary = summaryBody(nodes, chips, kAt.toSecsSinceEpoch());
    c.prometheus = {{promql::windowMaxQuery(300), window.left(window.size() / 2)}, {promql::windowMaxQuery(600), window}};
    const SnapshotPtr together = buildSnapshot(c);
    for (Capture::PrometheusAnswer &a : c.prometheus)
        a.body = QByteArray(a.body.constData(), a.body.size()); // new buffers: parsed again, the summary's parse kept
    const SnapshotPtr inTurn = buildSnapshot(c);
    QVERIFY(together->activity && inTurn->activity);
    QCOMPARE(*together->activity, *inTurn->activity);
    QCOMPARE(together->warnings, inTurn->warnings);
    Capture allocation = c;
    allocation.rayNodeSummary.clear();
    allocation.prometheus.clear();
    ClusterSnapshot alone = *buildSnapshot(allocation);
    QVERIFY(!alone.activity);
    Capture fresh = c;
    fresh.rayNodeSummary = QByteArray(c.rayNodeSummary.constData(), c.rayNodeSummary.size());
    for (Capture::PrometheusAnswer &a : fresh.prometheus)
        a.body = QByteArray(a.body.constData(), a.body.size());
    joinActivity(alone, fresh);
    QVERIFY(alone.activity);
    QCOMPARE(*alone.activity, *together->activity);
    QCOMPARE(alone.warnings, together->warnings);
    QCOMPARE(together->activity->reportingChips(), 32);
    const ChipActivity *a = chipAt(*together, QStringLiteral("tpu-1"), 2, 3);
    QCOMPARE(a->dutyCycle, 33.0f);
    QCOMPARE(a->windowMaxDutyCycle, 8.0f);
    QCOMPARE(a->windowSeconds, 600);
    QVERIFY2(together->activity->problems.join(u'|').contains(QLatin1String("Prometheus (300 s window): prometheus: ")),
             qPrintable(together->activity->problems.join(u'|')));
}

void TestActivity::summaryGapsAreFilledFromPrometheus()
{
    // The summary lacks tpu-0 worker 2 (its agent never reached the plugin): Prometheus is read,
    // fills that host alone, and leaves the summary's chips as the summary said.
    const QList<FakeNode> nodes = twoSlices();
    QHash<QString, QList<FakeChip>> chips;
    for (const FakeNode &n : nodes)
        if (!(n.slice == QLatin1String("tpu-0") && n.worker == 2)) chips.insert(n.id, fourChips(30));
    QList<PromSeries> series;
    for (const FakeNode &n : nodes)
        for (int chip = 0; chip < 4; ++chip)
            series.append({QStringLiteral("ray_tpu_duty_cycle"), {{QStringLiteral("ip"), n.ip}, {QStringLiteral("TpuIndex"), QString::number(chip)}}, 70.0 + chip});
    Capture c;
    c.capturedAt = kAt;
    c.rayNodes = nodesBody(nodes);
    c.rayNodeSummary = summaryBody(nodes, chips, kAt.toSecsSinceEpoch());
    c.prometheus.append({QLatin1String(promql::kRayTpu), promBody(series, kAt.toSecsSinceEpoch())});
    const SnapshotPtr s = buildSnapshot(c);
    QCOMPARE(s->activity->reportingChips(), 32);
    QCOMPARE(chipAt(*s, QStringLiteral("tpu-0"), 2, 3)->dutyCycle, 73.0f);
    QCOMPARE(chipAt(*s, QStringLiteral("tpu-0"), 2, 3)->source, ActivitySource::RayMetrics);
    QCOMPARE(chipAt(*s, QStringLiteral("tpu-0"), 1, 3)->dutyCycle, 33.0f);
    QCOMPARE(chipAt(*s, QStringLiteral("tpu-0"), 1, 3)->source, ActivitySource::RayNodeSummary);
    QVERIFY2(s->activity->sources.join(u'|').contains(QLatin1String("Prometheus ray_tpu_*: 32 of 32 series joined")), qPrintable(s->activity->sources.join(u'|')));
}

void TestActivity::legacyQueryAnswersStillRead()
{
    // A recording made before the queries kept only the labels they read: the every-label answers.
    const QList<FakeNode> nodes = twoSlices();
    QList<PromSeries> series;
    for (const FakeNode &n : nodes)
        for (int chip = 0; chip < 4; ++chip)
            series.append({QStringLiteral("ray_tpu_duty_cycle"),
                           {{QStringLiteral("ip"), n.ip}, {QStringLiteral("TpuIndex"), QString::number(chip)}, {QStringLiteral("SessionName"), QStringLiteral("session_x")}, {QStringLiteral("TpuDeviceName"), QStringLiteral("77-%1").arg(chip)}, {QStringLiteral("job"), QStringLiteral("ray")}},
                           double(n.worker * 10 + chip)});
    Capture c;
    c.capturedAt = kAt;
    c.rayNodes = nodesBody(nodes);
    c.prometheus.append({QLatin1String(promql::kRayTpuAllLabels), promBody(series, kAt.toSecsSinceEpoch())});
    const SnapshotPtr s = buildSnapshot(c);
    QCOMPARE(s->activity->reportingChips(), 32);
    QCOMPARE(chipAt(*s, QStringLiteral("tpu-0"), 3, 1)->dutyCycle, 31.0f);
}

// The join keeps the parse of the bodies the last capture carried (captures every 2 s share the
// node summary and Prometheus's answers, new every 10 s): a capture with other bytes, or the same
// bytes edited in place (a detached copy), never gets an old parse.
void TestActivity::keptParsesNeverGoStale()
{
    const QList<FakeNode> nodes = twoSlices();
    auto summaryAt = [&](double duty) {
        QHash<QString, QList<FakeChip>> chips;
        for (const FakeNode &n : nodes)
            chips.insert(n.id, fourChips(duty));
        return summaryBody(nodes, chips, kAt.toSecsSinceEpoch());
    };
    auto promAt = [&](double duty) {
        QList<PromSeries> series;
        for (const FakeNode &n : nodes)
            for (int chip = 0; chip < 4; ++chip)
                series.append({QStringLiteral("ray_tpu_duty_cycle"), {{QStringLiteral("ip"), n.ip}, {QStringLiteral("TpuIndex"), QString::number(chip)}}, duty});
        return promBody(series, kAt.toSecsSinceEpoch());
    };
    Capture a;
    a.capturedAt = kAt;
    a.rayNodes = nodesBody(nodes);
    a.rayNodeSummary = summaryAt(10);
    Capture b = a;
    b.rayNodeSummary = summaryAt(50);
    const auto dutyOf = [](const Capture &c) {
        return chipAt(*buildSnapshot(c), QStringLiteral("tpu-1"), 2, 0)->dutyCycle;
    };
    QCOMPARE(dutyOf(a), 10.0f);
    QCOMPARE(dutyOf(a), 10.0f); // the same buffer again
    QCOMPARE(dutyOf(b), 50.0f);
    QCOMPARE(dutyOf(a), 10.0f);
    Capture edited = a;
    edited.rayNodeSummary.replace("\"dutyCycle\":10", "\"dutyCycle\":77"); // detaches: a buffer of its own
    QCOMPARE(dutyOf(edited), 77.0f);
    QCOMPARE(dutyOf(a), 10.0f);

    // Prometheus's answers alike, per query.
    Capture p;
    p.capturedAt = kAt;
    p.rayNodes = nodesBody(nodes);
    p.prometheus = {{QLatin1String(promql::kRayTpu), promAt(20)}, {promql::windowMaxQuery(600), promBody({}, kAt.toSecsSinceEpoch())}};
    Capture q = p;
    q.prometheus[0].body = promAt(30);
    QCOMPARE(dutyOf(p), 20.0f);
    QCOMPARE(dutyOf(q), 30.0f);
    QCOMPARE(dutyOf(p), 20.0f);
    // The same bytes under another query are read as that query's.
    Capture legacy = p;
    legacy.prometheus[0].query = QLatin1String(promql::kRayTpuAllLabels);
    QCOMPARE(dutyOf(legacy), 20.0f);
}

// The whole join is kept while captures carry the same bodies over a snapshot of the same shape,
// and only until its oldest sample would turn stale.
void TestActivity::keptJoinOnlyWhileNothingChanged()
{
    QList<FakeNode> nodes = twoSlices();
    QHash<QString, QList<FakeChip>> chips;
    for (const FakeNode &n : nodes)
        chips.insert(n.id, fourChips(20));
    Capture c;
    c.capturedAt = kAt;
    c.rayNodes = nodesBody(nodes);
    c.rayNodeSummary = summaryBody(nodes, chips, kAt.toSecsSinceEpoch());
    const SnapshotPtr first = buildSnapshot(c), again = buildSnapshot(c);
    QCOMPARE(again->activity.get(), first->activity.get()); // the same table: nothing changed
    QCOMPARE(again->activity->reportingChips(), 32);

    // A host died (the snapshot's shape changed): joined anew, its chips no longer taken.
    nodes[5].alive = false;
    Capture died = c;
    died.rayNodes = nodesBody(nodes);
    const SnapshotPtr afterDeath = buildSnapshot(died);
    QVERIFY(afterDeath->activity.get() != first->activity.get());
    QCOMPARE(afterDeath->activity->reportingChips(), 28);

    // Six minutes on with the same bodies: the samples are stale, so the kept join is not used.
    Capture later = c;
    later.capturedAt = kAt.addSecs(6 * 60);
    const SnapshotPtr stale = buildSnapshot(later);
    QCOMPARE(stale->activity->reportingChips(), 0);
    QVERIFY(stale->activity->unknownReason(0, 0).contains(QLatin1String("min old")));
}

void TestActivity::prometheusErrorsAreExplained_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QString>("error");
    QTest::addColumn<QString>("expected");
    QTest::newRow("dead server") << QByteArray() << QStringLiteral("Prometheus http://127.0.0.1:9: connection refused: is Prometheus running there?")
                                 << QStringLiteral("connection refused");
    QTest::newRow("401") << QByteArray() << QStringLiteral("Prometheus http://p: HTTP 401: the server wants a token and none was given: pass --prometheus-token-file F")
                         << QStringLiteral("--prometheus-token-file");
    QTest::newRow("empty answer") << QByteArray(R"({"status":"success","data":{"resultType":"vector","result":[]}})") << QString()
                                  << QStringLiteral("holds no series");
    QTest::newRow("query error") << QByteArray(R"({"status":"error","errorType":"bad_data","error":"parse error at char 3"})") << QString()
                                 << QStringLiteral("bad_data: parse error");
    QTest::newRow("not json") << QByteArray("<html>proxy says no</html>") << QString() << QStringLiteral("not JSON");
    QTest::newRow("matrix") << QByteArray(R"({"status":"success","data":{"resultType":"matrix","result":[]}})") << QString() << QStringLiteral("instant vector");
}

void TestActivity::prometheusErrorsAreExplained()
{
    QFETCH(QByteArray, body);
    QFETCH(QString, error);
    QFETCH(QString, expected);
    Capture c;
    c.capturedAt = kAt;
    c.rayNodes = nodesBody(twoSlices());
    if (!body.isEmpty()) c.prometheus.append({QLatin1String(promql::kRayTpu), body});
    c.prometheusError = error;
    const SnapshotPtr s = buildSnapshot(c);
    QCOMPARE(s->slices.size(), 2); // the allocation view stays
    QVERIFY(s->errors.isEmpty());
    QVERIFY(s->activity);
    QCOMPARE(s->activity->reportingChips(), 0);
    QVERIFY2(s->activity->problems.join(u' ').contains(expected), qPrintable(s->activity->problems.join(u'|')));
    QVERIFY(s->warnings.join(u' ').contains(expected));
    QVERIFY(s->activity->unknownReason(0, 0).size() > 0);
}

void TestActivity::captureFileRoundTrip()
{
    const QList<FakeNode> nodes = twoSlices();
    QHash<QString, QList<FakeChip>> chips;
    chips.insert(nodes[0].id, fourChips(42));
    Capture c;
    c.capturedAt = kAt;
    c.rayNodes = nodesBody(nodes);
    c.rayNodeSummary = summaryBody(nodes, chips, kAt.toSecsSinceEpoch());
    c.rayNodeSummaryError = QStringLiteral("GET http://h/nodes?view=summary: HTTP 500 \"quoted\"\n");
    c.prometheusUrl = QStringLiteral("http://127.0.0.1:9090");
    c.prometheusError = QStringLiteral("Prometheus: HTTP 401");
    c.prometheus.append({QLatin1String(promql::kRayTpu), promBody({}, 1)});
    c.prometheus.append({promql::windowMaxQuery(300), QByteArray()});
    const QByteArray bytes = serializeCapture(c);
    QVERIFY(!bytes.contains('\n'));
    const CaptureReadResult read = parseCapture(bytes, QStringLiteral("round trip"));
    QVERIFY2(read.ok(), qPrintable(read.error));
    const Capture &r = read.captures.front();
    QCOMPARE(r.rayNodeSummary.trimmed(), c.rayNodeSummary.trimmed());
    QCOMPARE(r.rayNodeSummaryError, c.rayNodeSummaryError);
    QCOMPARE(r.prometheusUrl, c.prometheusUrl);
    QCOMPARE(r.prometheusError, c.prometheusError);
    QCOMPARE(r.prometheus.size(), 2);
    QCOMPARE(r.prometheus[0].query, QLatin1String(promql::kRayTpu));
    QCOMPARE(r.prometheus[0].body.trimmed(), c.prometheus[0].body.trimmed());
    QCOMPARE(r.prometheus[1].query, promql::windowMaxQuery(300));
    QCOMPARE(chipAt(*buildSnapshot(r), QStringLiteral("tpu-0"), 0, 1)->dutyCycle, 43.0f);
}

// Bodies a real Ray 2.60 and a real Prometheus 2.42 served on the harness, with the fake device
// plugin scripted as tests/data/activity/README.md says. The state API's node list is not among
// them: it is made here from the same summary's `raylet` members (node id, state, labels, TPU).
namespace {
QByteArray fixture(const QString &name)
{
    QFile f(QStringLiteral(SLICESCOPE_TEST_DATA "/activity/") + name);
    if (!f.open(QIODevice::ReadOnly)) qFatal("missing fixture %s", qPrintable(name));
    return f.readAll();
}

Capture captureOfFixtures(const QString &dir, bool withSummary)
{
    const QByteArray summary = fixture(dir + QStringLiteral("nodes-summary.json"));
    QList<FakeNode> nodes;
    double newest = 0;
    const QJsonArray entries = QJsonDocument::fromJson(summary).object().value(QLatin1String("data")).toObject().value(QLatin1String("summary")).toArray();
    QJsonArray items;
    for (const QJsonValue &v : entries) {
        const QJsonObject e = v.toObject();
        const QJsonObject r = e.value(QLatin1String("raylet")).toObject();
        newest = std::max(newest, e.value(QLatin1String("now")).toDouble());
        QJsonObject resources{{QStringLiteral("CPU"), 1}};
        if (r.value(QLatin1String("resourcesTotal")).toObject().contains(QLatin1String("TPU")))
            resources.insert(QStringLiteral("TPU"), r.value(QLatin1String("resourcesTotal")).toObject().value(QLatin1String("TPU")));
        items.append(QJsonObject{{QStringLiteral("node_id"), r.value(QLatin1String("nodeId"))},
                                 {QStringLiteral("node_ip"), r.value(QLatin1String("nodeManagerAddress"))},
                                 {QStringLiteral("is_head_node"), r.value(QLatin1String("isHeadNode"))},
                                 {QStringLiteral("state"), r.value(QLatin1String("state"))},
                                 {QStringLiteral("resources_total"), resources},
                                 {QStringLiteral("labels"), r.value(QLatin1String("labels"))}});
    }
    const QJsonObject result{{QStringLiteral("total"), items.size()}, {QStringLiteral("num_after_truncation"), items.size()}, {QStringLiteral("num_filtered"), items.size()}, {QStringLiteral("result"), items}};
    Capture c;
    c.capturedAt = QDateTime::fromMSecsSinceEpoch(qint64(newest * 1000) + 5000, Qt::UTC);
    c.rayNodes = QJsonDocument(QJsonObject{{QStringLiteral("result"), true}, {QStringLiteral("data"), QJsonObject{{QStringLiteral("result"), result}}}}).toJson(QJsonDocument::Compact);
    if (withSummary) c.rayNodeSummary = summary;
    // Each gauge was asked on its own when recorded; SliceScope asks them in one query, whose answer
    // is these series together: each is given under that query.
    for (const char *m : {"duty-cycle", "tensorcore-utilization", "memory-bandwidth-utilization", "memory-used", "memory-total"}) {
        const QString name = dir + QStringLiteral("prom-%1.json").arg(QLatin1String(m));
        if (QFile::exists(QStringLiteral(SLICESCOPE_TEST_DATA "/activity/") + name)) c.prometheus.append({QLatin1String(promql::kRayTpu), fixture(name)});
    }
    return c;
}
} // namespace

void TestActivity::realRayAndPrometheusBodies()
{
    // Ray's node summary alone.
    Capture c = captureOfFixtures(QString(), true);
    const QList<Capture::PrometheusAnswer> answers = c.prometheus;
    c.prometheus.clear();
    SnapshotPtr s = buildSnapshot(c);
    QVERIFY2(s->errors.isEmpty(), qPrintable(s->errors.join(u'\n')));
    QCOMPARE(s->slices.size(), 4);
    QCOMPARE(s->activity->chipCount(), 48);
    // 48 chips less: the host whose plugin answers 500 (4), the deleted chip (1), the host Ray gave
    // up on when its plugin dropped the first connection (8).
    QCOMPARE(s->activity->reportingChips(), 35);
    auto duty = [&](const char *slice, int w, int chip) {
        const ChipActivity *a = chipAt(*s, QLatin1String(slice), w, chip);
        return a && a->hasDutyCycle() ? double(a->dutyCycle) : -1.0;
    };
    QCOMPARE(duty("tpu-v6e-4x4-1", 0, 0), 97.5);
    QCOMPARE(duty("tpu-v6e-4x4-0", 0, 1), 0.0);  // scripted 0: a real 0
    QCOMPARE(duty("tpu-v6e-4x4-0", 0, 2), 12.0); // the default pattern, 10 + g
    QCOMPARE(duty("tpu-v6e-4x4-0", 1, 2), -1.0); // deleted: unknown
    const int si = s->sliceIndex(u"tpu-v6e-2x4-0");
    QVERIFY(s->activity->unknownReason(si, 0).contains(QLatin1String("never asks again")));
    const ChipActivity *v4 = chipAt(*s, QStringLiteral("tpu-v4-2x2x2-0"), 0, 2);
    QCOMPARE(v4->hbmUsedBytes, 0.0); // memory_used dropped: Ray's 0
    QCOMPARE(v4->hbmTotalBytes, 34359738368.0);

    // Prometheus alone, joined through the summary's metrics ports (every node shares 127.0.0.1).
    c.prometheus = answers;
    c.rayNodeSummary = testing::withoutSummaryTpus(fixture(QStringLiteral("nodes-summary.json")));
    s = buildSnapshot(c);
    QCOMPARE(s->activity->reportingChips(), 35);
    QCOMPARE(duty("tpu-v6e-4x4-1", 0, 0), 97.5);
    QCOMPARE(chipAt(*s, QStringLiteral("tpu-v6e-4x4-1"), 0, 0)->source, ActivitySource::RayMetrics);
    QCOMPARE(duty("tpu-v6e-4x4-0", 3, 0), -1.0); // the 500 host: its gauges had expired
    QCOMPARE(duty("tpu-v6e-4x4-1", 2, 3), 0.0);  // a dropped duty_cycle series: Ray exports 0 (docs/facts.md 2.5)
    QCOMPARE(duty("tpu-v4-2x2x2-0", 1, 3), double(10 + 32 + 4 + 3));
    QVERIFY(!std::isnan(chipAt(*s, QStringLiteral("tpu-v4-2x2x2-0"), 1, 3)->tensorcoreUtilization));
    for (const QString &p : s->activity->problems)
        QVERIFY2(!p.contains(QLatin1String("cannot be told apart")) && !p.contains(QLatin1String("name no host")), qPrintable(p));
}

void TestActivity::realDistinctAddressesJoinByIp()
{
    // No node summary at all: the hosts of tpu-v6e-4x4-1 have addresses of their own (127.0.0.2-5)
    // and join by `ip`; every other node shares 127.0.0.1 and stays unknown, said, never guessed.
    const Capture c = captureOfFixtures(QStringLiteral("distinct-ips/"), false);
    const SnapshotPtr s = buildSnapshot(c);
    QVERIFY2(s->errors.isEmpty(), qPrintable(s->errors.join(u'\n')));
    const int si = s->sliceIndex(u"tpu-v6e-4x4-1");
    QVERIFY(si >= 0);
    QCOMPARE(s->activity->bySlice.value(QStringLiteral("tpu-v6e-4x4-1")).withDutyCycle, 16);
    for (int w = 0; w < 4; ++w)
        for (int chip = 0; chip < 4; ++chip) {
            const ChipActivity *a = chipAt(*s, QStringLiteral("tpu-v6e-4x4-1"), w, chip);
            QVERIFY(a && a->hasDutyCycle());
            QCOMPARE(a->source, ActivitySource::RayMetrics);
        }
    QCOMPARE(s->activity->reportingChips(), 16);
    QVERIFY(s->activity->problems.join(u' ').contains(QLatin1String("cannot be told apart")));
}

QTEST_GUILESS_MAIN(TestActivity)
#include "tst_activity.moc"
