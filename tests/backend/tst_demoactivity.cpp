// SPDX-License-Identifier: GPL-3.0-or-later
// The demo's chip activity (issue 15): Ray's node summary in every capture, read by the one join
// (Capture -> buildSnapshot -> snapshot.activity), with the story a new user sees in the first
// simulated minute: a detached group's chips reserved but idle, a training slice busy, a slice
// whose hosts report nothing, and a slice that stalls when one of its hosts dies.

#include "alerts.h"
#include "capturefile.h"
#include "democluster.h"
#include "snapshot.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <algorithm>
#include <cmath>

using namespace slicescope;

namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

SnapshotPtr snap(const DemoCluster &demo)
{
    SnapshotPtr s = buildSnapshot(demo.capture());
    [&] {
        QVERIFY2(s->errors.isEmpty(), qPrintable(s->errors.join(u'\n')));
        QVERIFY2(s->warnings.isEmpty(), qPrintable(s->warnings.join(u'\n')));
        QVERIFY(s->activity);
    }();
    return s;
}

int sliceOf(const ClusterSnapshot &s, const QString &name)
{
    const int i = s.sliceIndex(name);
    [&] {
        QVERIFY2(i >= 0, qPrintable(name));
    }();
    return i;
}

// Every chip of a slice's hosts, as the table holds them (host position, chip index, numbers).
struct ChipRef {
    int host, chip;
    const ChipActivity *a;
};
QList<ChipRef> chipsOf(const ClusterSnapshot &s, int slice)
{
    QList<ChipRef> out;
    const Slice &sl = s.slices[slice];
    for (int h = 0; h < sl.hosts.size(); ++h)
        for (int c = 0; c < sl.hosts[h].chips.size(); ++c)
            out.append({h, c, s.activity->chip(slice, h, c)});
    return out;
}

QString describe(const ChipRef &r)
{
    return QStringLiteral("host %1 chip %2: duty %3 source %4").arg(r.host).arg(r.chip).arg(r.a ? double(r.a->dutyCycle) : -1.0).arg(r.a ? toText(r.a->source) : QStringLiteral("null"));
}

} // namespace

class TestDemoActivity : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // The story as the activity table tells it, within the first simulated minute.
    void storyInTheFirstMinute()
    {
        DemoCluster demo;
        demo.advance(30000);
        const SnapshotPtr s = snap(demo);
        const ActivityTable &t = *s->activity;

        // rl-rollout (detached) holds v4-2x2x2-0, whose chips stay under 5 %: reserved but idle.
        const int idle = sliceOf(*s, QStringLiteral("v4-2x2x2-0"));
        QCOMPARE(s->slices[idle].reservedChips, 8);
        for (const ChipRef &r : chipsOf(*s, idle)) {
            QVERIFY(r.a);
            QCOMPARE(r.a->source, ActivitySource::RayNodeSummary);
            QVERIFY2(r.a->hasDutyCycle() && r.a->dutyCycle < 5, qPrintable(describe(r)));
            QCOMPARE(r.a->hbmTotalBytes, 32 * kGiB);
        }

        // llm-train's slice trains: over 50 % (70-95 %), ~70 % of 32 GiB HBM used per chip.
        const int train = sliceOf(*s, QStringLiteral("v6e-4x4-0"));
        QCOMPARE(chipsOf(*s, train).size(), 16);
        for (const ChipRef &r : chipsOf(*s, train)) {
            QVERIFY(r.a && r.a->hasDutyCycle());
            QVERIFY2(r.a->dutyCycle > 50 && r.a->dutyCycle >= 70 && r.a->dutyCycle <= 95, qPrintable(describe(r)));
            QCOMPARE(r.a->hbmTotalBytes, 32 * kGiB);
            QVERIFY2(std::abs(r.a->hbmUsedBytes / r.a->hbmTotalBytes - 0.70) < 0.02, qPrintable(describe(r)));
            QVERIFY(r.a->tensorcoreUtilization > 0 && r.a->tensorcoreUtilization <= r.a->dutyCycle);
            QVERIFY(r.a->hbmBandwidthUtilization > 0);
            // The sample is the reporter's newest, at most one reporting interval old.
            QVERIFY(r.a->ageSeconds(s->capturedAt) >= 0 && r.a->ageSeconds(s->capturedAt) <= DemoCluster::kReporterIntervalMs / 1000);
        }
        QVERIFY(t.sliceCounts(train).meanDutyCycle() > 70);
        QVERIFY(t.sliceCounts(idle).meanDutyCycle() < 2);

        // v5p-4x4x4-0's agents have no device plugin: every chip unknown, and the table says why.
        const int noPlugin = sliceOf(*s, QStringLiteral("v5p-4x4x4-0"));
        QCOMPARE(s->slices[noPlugin].hosts.size(), 16);
        for (const ChipRef &r : chipsOf(*s, noPlugin)) {
            QVERIFY(r.a);
            QVERIFY2(!r.a->reports() && !r.a->hasDutyCycle(), qPrintable(describe(r)));
        }
        for (int h = 0; h < 16; ++h)
            QVERIFY2(t.unknownReason(noPlugin, h).contains(QLatin1String("TPU_DEVICE_PLUGIN_ADDR")), qPrintable(t.unknownReason(noPlugin, h)));
        QCOMPARE(t.sliceCounts(noPlugin).reporting, 0);
        QVERIFY(std::isnan(t.sliceCounts(noPlugin).meanDutyCycle()));

        // The notebook's 2 chips of v6e-2x4-0 report; its 6 free chips idle at exactly 0 %.
        const int notebook = sliceOf(*s, QStringLiteral("v6e-2x4-0"));
        for (const ChipRef &r : chipsOf(*s, notebook)) {
            QVERIFY2(r.a && r.a->reports() && r.a->hasDutyCycle(), qPrintable(describe(r)));
            if (r.chip >= 2)
                QCOMPARE(r.a->dutyCycle, 0.0f);
        }

        // The slice degraded from the start: its dead host's chips unknown because it is dead;
        // the others report (idle).
        const int degraded = sliceOf(*s, QStringLiteral("v6e-4x4-3"));
        for (const ChipRef &r : chipsOf(*s, degraded)) {
            if (r.host == 2) {
                QVERIFY(!r.a->reports());
                QVERIFY2(t.unknownReason(degraded, 2).contains(QLatin1String("dead"), Qt::CaseInsensitive), qPrintable(t.unknownReason(degraded, 2)));
            } else {
                QVERIFY2(r.a->reports() && r.a->dutyCycle == 0, qPrintable(describe(r)));
            }
        }

        // The fleet: every chip but v5p's 64 and the dead host's 4 reports.
        QCOMPARE(t.reportingChips(), t.chipCount() - 64 - 4);
        QVERIFY(t.problems.isEmpty());
    }

    // The demo's Prometheus has watched the scenario's hosts since before the demo began: the
    // detached rl-rollout group is reserved and idle for the whole window on the very first
    // capture, so a new user sees the alert and the outlines at once, with the default thresholds.
    // Chips that change hands during the demo (batch-infer's, placed at about 150 s) get no window
    // answer until it has seen their new work whole.
    void idleReservationShowsAtOnce()
    {
        DemoCluster demo;
        const SnapshotPtr s = snap(demo);
        const int idle = sliceOf(*s, QStringLiteral("v4-2x2x2-0"));
        for (const ChipRef &r : chipsOf(*s, idle)) {
            QCOMPARE(r.a->windowSeconds, DemoCluster::kWindowSeconds);
            QVERIFY2(r.a->windowCovered && r.a->windowMaxDutyCycle <= 2, qPrintable(describe(r))); // 0-2 %, rounded
        }
        for (const ChipRef &r : chipsOf(*s, sliceOf(*s, QStringLiteral("v6e-4x4-0"))))
            QVERIFY2(r.a->windowCovered && r.a->windowMaxDutyCycle >= 70, qPrintable(describe(r))); // training all along
        QVERIFY2(s->activity->sources.join(u'|').contains(QLatin1String("Prometheus (600 s window)")), qPrintable(s->activity->sources.join(u'|')));

        AlertEngine engine; // the defaults: under 5 % for 10 min
        engine.observe(*s);
        QStringList idleSlices;
        for (const Alert &a : engine.alerts())
            if (a.kind == AlertKind::ReservedIdle) {
                idleSlices << a.subject;
                QCOMPARE(a.since, s->capturedAt.addSecs(-DemoCluster::kWindowSeconds));
            }
        QVERIFY2(idleSlices.contains(QStringLiteral("v4-2x2x2-0")), qPrintable(idleSlices.join(u',')));
        QVERIFY(!idleSlices.contains(QStringLiteral("v6e-4x4-0")));
        QCOMPARE(engine.idleChips().value(QStringLiteral("v4-2x2x2-0")).size(), 8);

        // Chips that change hands during the demo (rl-rollout released: nothing else in the story
        // wants v4): for the window's length the demo's Prometheus has no answer for them, so
        // nothing is claimed over work it did not see whole; once it has, it answers again.
        DemoCluster later;
        QVERIFY(later.releasePlacementGroup(QStringLiteral("rl-rollout")).ok);
        later.advance(30000);
        const SnapshotPtr released = snap(later);
        for (const ChipRef &r : chipsOf(*released, sliceOf(*released, QStringLiteral("v4-2x2x2-0"))))
            QVERIFY2(std::isnan(r.a->windowMaxDutyCycle) && r.a->hasDutyCycle(), qPrintable(describe(r)));
        later.advance(DemoCluster::kWindowSeconds * 1000);
        const SnapshotPtr seenWhole = snap(later);
        for (const ChipRef &r : chipsOf(*seenWhole, sliceOf(*seenWhole, QStringLiteral("v4-2x2x2-0"))))
            QVERIFY2(r.a->windowCovered && r.a->windowMaxDutyCycle == 0, qPrintable(describe(r))); // idle, unreserved: 0 %
    }

    // A job runs v6e-4x4-2 with no placement group; when worker 1 dies its other hosts stall.
    void hostDeathStallsItsSlice()
    {
        DemoCluster demo;
        demo.advance(DemoCluster::kStoryHostDiesMs - 10000);
        SnapshotPtr s = snap(demo);
        int slice = sliceOf(*s, QStringLiteral("v6e-4x4-2"));
        QCOMPARE(s->slices[slice].reservedChips, 0); // busy but unreserved
        const double before = s->activity->sliceCounts(slice).meanDutyCycle();
        QVERIFY2(before > 50, qPrintable(QString::number(before)));
        for (const ChipRef &r : chipsOf(*s, slice))
            QVERIFY2(r.a->dutyCycle >= 60 && r.a->dutyCycle <= 85, qPrintable(describe(r)));

        // One reporting interval after the death every live host has sampled the stall.
        demo.advance(10000 + DemoCluster::kReporterIntervalMs);
        s = snap(demo);
        slice = sliceOf(*s, QStringLiteral("v6e-4x4-2"));
        QCOMPARE(s->slices[slice].hosts[1].state, HostState::Dead);
        for (const ChipRef &r : chipsOf(*s, slice)) {
            if (r.host == 1) {
                QVERIFY2(!r.a->reports(), qPrintable(describe(r)));
                continue;
            }
            QVERIFY2(r.a->reports() && r.a->dutyCycle < 5, qPrintable(describe(r)));
            QVERIFY2(r.a->hbmUsedBytes > 0.5 * r.a->hbmTotalBytes, qPrintable(describe(r))); // the stalled job still holds its HBM
        }
        const double after = s->activity->sliceCounts(slice).meanDutyCycle();
        QVERIFY2(after < 5 && after < before / 10, qPrintable(QStringLiteral("%1 -> %2").arg(before).arg(after)));
        // The training slice is not touched by another slice's death.
        QVERIFY(s->activity->sliceCounts(sliceOf(*s, QStringLiteral("v6e-4x4-0"))).meanDutyCycle() > 70);
    }

    // The training slice's numbers wobble from report to report, always within 70-95 %; a
    // reporter's value holds until its next report.
    void trainingWobblesWithinItsBand()
    {
        DemoCluster demo;
        QList<float> seen;
        for (int i = 0; i < 24; ++i) {
            demo.advance(DemoCluster::kReporterIntervalMs);
            const SnapshotPtr s = snap(demo);
            const ChipActivity *a = s->activity->chip(sliceOf(*s, QStringLiteral("v6e-4x4-0")), 0, 0);
            QVERIFY(a && a->dutyCycle >= 70 && a->dutyCycle <= 95);
            seen << a->dutyCycle;
        }
        const auto [lo, hi] = std::minmax_element(seen.begin(), seen.end());
        QVERIFY2(*hi - *lo > 5, qPrintable(QStringLiteral("%1..%2").arg(*lo).arg(*hi)));

        // Between two reports of a node its entry does not change (the dashboard serves the
        // newest report), so a poll faster than the reporter sees the same numbers again.
        DemoCluster held;
        held.advance(20000);
        const QJsonArray first = QJsonDocument::fromJson(held.capture().rayNodeSummary)[QLatin1String("data")][QLatin1String("summary")].toArray();
        held.advance(1000);
        const QJsonArray second = QJsonDocument::fromJson(held.capture().rayNodeSummary)[QLatin1String("data")][QLatin1String("summary")].toArray();
        QCOMPARE(first.size(), second.size());
        int same = 0, moved = 0;
        for (int i = 0; i < first.size(); ++i) {
            const QJsonObject x = first[i].toObject(), y = second[i].toObject();
            if (!x.contains(QLatin1String("now")))
                continue;
            if (x.value(QLatin1String("now")) == y.value(QLatin1String("now"))) {
                ++same;
                QCOMPARE(x, y);
            } else {
                ++moved;
                const double step = y.value(QLatin1String("now")).toDouble() - x.value(QLatin1String("now")).toDouble();
                QVERIFY2(std::abs(step - DemoCluster::kReporterIntervalMs / 1000.0) < 1e-3, qPrintable(QString::number(step)));
            }
        }
        QVERIFY(same > 0 && moved > 0);
    }

    // Seeded and deterministic like the rest of the demo; only the activity depends on time
    // between reports, and the other bodies are what they were without it.
    void seededAndDeterministic()
    {
        DemoCluster a(7), b(7), c(8);
        a.advance(42000);
        b.advance(20000);
        b.advance(22000);
        c.advance(42000);
        QCOMPARE(a.capture().rayNodeSummary, b.capture().rayNodeSummary);
        QVERIFY(a.capture().rayNodeSummary != c.capture().rayNodeSummary);
        QCOMPARE(a.capture().prometheus, b.capture().prometheus); // the demo's Prometheus window alike
        // Activity takes nothing from the simulation's generator: the ids of every later node
        // and group are the same as they would be with no activity at all, so the allocation
        // view of a capture without its node summary is the view with it.
        Capture withActivity = a.capture();
        Capture without = withActivity;
        without.rayNodeSummary.clear();
        without.prometheus.clear();
        const SnapshotPtr sa = buildSnapshot(withActivity), sb = buildSnapshot(without);
        QVERIFY(sa->activity && !sb->activity);
        QCOMPARE(sa->warnings, sb->warnings);
        QCOMPARE(sa->slices.size(), sb->slices.size());
        for (int i = 0; i < sa->slices.size(); ++i) {
            QCOMPARE(sa->slices[i].name, sb->slices[i].name);
            QCOMPARE(sa->slices[i].status(), sb->slices[i].status());
            QCOMPARE(sa->slices[i].reservedChips, sb->slices[i].reservedChips);
        }
        // A capture file carries it through (recordings, --capture files).
        const CaptureReadResult read = parseCapture(serializeCapture(withActivity), QStringLiteral("memory"));
        QVERIFY2(read.ok() && read.captures.size() == 1, qPrintable(read.error));
        const SnapshotPtr fromFile = buildSnapshot(read.captures.first());
        QVERIFY(fromFile->activity);
        QCOMPARE(*fromFile->activity, *sa->activity);
    }

    // A dead node's summary entry keeps its address and metrics port, which its successor on the
    // same IP has too: Prometheus series for that instance belong to the live node, whichever
    // entry comes last (the join once let the dead entry win).
    void deadEntryDoesNotTakeALiveNodesInstance()
    {
        DemoCluster demo;
        demo.advance(30000);
        Capture c = demo.capture();
        const SnapshotPtr before = snap(demo);
        const int train = sliceOf(*before, QStringLiteral("v6e-4x4-0"));
        const RayNode &node = before->rayNodes[before->slices[train].hosts[0].rayNode];

        QJsonObject root = QJsonDocument::fromJson(c.rayNodeSummary).object();
        QJsonObject data = root.value(QLatin1String("data")).toObject();
        QJsonArray summary = data.value(QLatin1String("summary")).toArray();
        for (int i = 0; i < summary.size(); ++i) {
            QJsonObject e = summary[i].toObject();
            if (e.value(QLatin1String("raylet")).toObject().value(QLatin1String("nodeId")).toString() == node.id) {
                e.insert(QStringLiteral("tpus"), QJsonArray()); // its numbers come from Prometheus only
                summary[i] = e;
            }
        }
        summary.append(QJsonObject{{QStringLiteral("raylet"), QJsonObject{{QStringLiteral("nodeId"), QString(56, u'f')},
                                                                          {QStringLiteral("nodeManagerAddress"), node.ip},
                                                                          {QStringLiteral("metricsExportPort"), 8080},
                                                                          {QStringLiteral("state"), QStringLiteral("DEAD")}}},
                                   {QStringLiteral("tpus"), QJsonArray()}});
        data.insert(QStringLiteral("summary"), summary);
        root.insert(QStringLiteral("data"), data);
        c.rayNodeSummary = QJsonDocument(root).toJson(QJsonDocument::Compact);
        const QString ts = QString::number(double(c.capturedAt.toMSecsSinceEpoch()) / 1000, 'f', 3);
        c.prometheusUrl = QStringLiteral("http://127.0.0.1:9090");
        c.prometheus = {Capture::PrometheusAnswer{
            QString::fromLatin1(promql::kRayTpu),
            QStringLiteral(R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"__name__":"ray_tpu_duty_cycle","instance":"%1:8080","ip":"%1","TpuIndex":"2"},"value":[%2,"61.5"]}]}})")
                .arg(node.ip, ts)
                .toUtf8()}};
        const SnapshotPtr s = buildSnapshot(c);
        QVERIFY2(s->activity && s->activity->problems.isEmpty(), s->activity ? qPrintable(s->activity->problems.join(u'\n')) : "no table");
        const ChipActivity *a = s->activity->chip(sliceOf(*s, QStringLiteral("v6e-4x4-0")), 0, 2);
        QVERIFY(a);
        QCOMPARE(a->source, ActivitySource::RayMetrics);
        QCOMPARE(a->dutyCycle, 61.5f);
    }

    // The body is Ray 2.60's shape: an entry per node the GCS knows, joined by the state API's
    // node id; a dead node's entry has no stats; the head (no TPU) reports `tpus: []`.
    void bodyIsRaysShape()
    {
        DemoCluster demo;
        demo.advance(DemoCluster::kStoryHostDiesMs + 10000);
        const Capture c = demo.capture();
        const QJsonObject root = QJsonDocument::fromJson(c.rayNodeSummary).object();
        QCOMPARE(root.value(QLatin1String("result")).toBool(), true);
        QCOMPARE(root.value(QLatin1String("msg")).toString(), QStringLiteral("Node summary fetched."));
        const QJsonArray summary = root.value(QLatin1String("data")).toObject().value(QLatin1String("summary")).toArray();
        const QJsonArray nodes = QJsonDocument::fromJson(c.rayNodes).object()[QLatin1String("data")][QLatin1String("result")][QLatin1String("result")].toArray();
        QCOMPARE(summary.size(), nodes.size());
        int dead = 0, withChips = 0;
        for (int i = 0; i < nodes.size(); ++i) {
            const QJsonObject n = nodes[i].toObject(), e = summary[i].toObject();
            const QJsonObject raylet = e.value(QLatin1String("raylet")).toObject();
            QCOMPARE(raylet.value(QLatin1String("nodeId")).toString(), n.value(QLatin1String("node_id")).toString());
            QCOMPARE(raylet.value(QLatin1String("state")).toString(), n.value(QLatin1String("state")).toString());
            QVERIFY(e.value(QLatin1String("tpus")).isArray());
            if (n.value(QLatin1String("state")).toString() == QLatin1String("DEAD")) {
                ++dead;
                QVERIFY(!e.contains(QLatin1String("now")));
                QVERIFY(e.value(QLatin1String("tpus")).toArray().isEmpty());
                continue;
            }
            QCOMPARE(e.value(QLatin1String("ip")).toString(), n.value(QLatin1String("node_ip")).toString());
            const double now = e.value(QLatin1String("now")).toDouble();
            QVERIFY(now * 1000 <= double(c.capturedAt.toMSecsSinceEpoch()) + 1 && now * 1000 > double(c.capturedAt.toMSecsSinceEpoch() - DemoCluster::kReporterIntervalMs));
            if (n.value(QLatin1String("is_head_node")).toBool())
                QVERIFY(e.value(QLatin1String("tpus")).toArray().isEmpty());
            const QJsonArray tpus = e.value(QLatin1String("tpus")).toArray();
            for (int k = 0; k < tpus.size(); ++k) {
                const QJsonObject chip = tpus[k].toObject();
                QCOMPARE(chip.value(QLatin1String("index")).toInt(), k);
                QVERIFY(chip.value(QLatin1String("name")).toString().endsWith(QStringLiteral("-%1").arg(k)));
                QVERIFY(chip.value(QLatin1String("tpuType")).toString().startsWith(QLatin1String("tpu-")));
                for (const char *key : {"tensorcoreUtilization", "hbmUtilization", "dutyCycle", "memoryUsed", "memoryTotal", "tpuTopology"})
                    QVERIFY2(chip.contains(QLatin1String(key)), key);
            }
            withChips += !tpus.isEmpty();
        }
        QCOMPARE(dead, 2); // v6e-4x4-3's worker 2 from the start, v6e-4x4-2's worker 1 at 90 s
        QCOMPARE(withChips, 14 + 1 + 2); // v6e 4x4 hosts alive, v6e-2x4-0, v4-2x2x2-0 (not v5p, not the head)
    }
};

QTEST_GUILESS_MAIN(TestDemoActivity)
#include "tst_demoactivity.moc"
