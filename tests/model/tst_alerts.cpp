// SPDX-License-Identifier: GPL-3.0-or-later
// The alert rules over time (model/alerts.h): scripted sequences of snapshots, each built from
// capture bodies by buildSnapshot() (capturefixture.h) and given chip activity with
// ActivityTableBuilder, fed to an AlertEngine in time order. Fires at exactly N, clears after the
// hold, flapping keeps `since`, unknown is never idle, a Prometheus window decides, each kind
// fires at least once, the per-kind bound rolls up, and a history replays to the same answer.

#include "alerts.h"
#include "capturefixture.h"
#include "history.h"
#include "snapshot.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <functional>

using namespace slicescope;
using namespace slicescope::testfixture;

namespace {

const QDateTime kStart(QDate(2026, 11, 29), QTime(18, 0), Qt::UTC);
constexpr qint64 kMin = 60 * 1000;

QString pgId(const QString &tag) { return hexId(tag, 28) + QStringLiteral("02000000"); }

// Two v6e 4x4 slices of four 4-chip hosts: "tpu-a" held whole by the detached slice group
// "train-a", "tpu-b" free. Options change one thing each.
struct World {
    QList<int> deadA;          // workers of tpu-a whose Ray node is DEAD
    QList<int> missingB;       // workers of tpu-b nobody reports
    bool pendingGroup = false; // a PENDING group "waiting" wanting a v6e slice
    bool headOnB = false;      // a head group holding tpu-b's TPU-v6e-16-head
    bool slicePgOnB = false;   // ... and a pending slice group selecting tpu-b

    SnapshotPtr build() const { return buildSnapshot(capture()); }

    Capture capture() const
    {
        CaptureBuilder b;
        b.addHeadNode(QStringLiteral("head0"), QStringLiteral("10.0.0.1"));
        const QStringList a = b.addSlice({QStringLiteral("tpu-a"), QStringLiteral("TPU-V6E"), QStringLiteral("v6e-16"), QStringLiteral("4x4"), {}, 4, 4, deadA, {}, {}, {}});
        const QStringList bIds = b.addSlice({QStringLiteral("tpu-b"), QStringLiteral("TPU-V6E"), QStringLiteral("v6e-16"), QStringLiteral("4x4"), {}, 4, 4, {}, missingB, {}, {}});
        b.addSlicePlacementGroup(pgId(QStringLiteral("train-a")), QStringLiteral("train-a"), QStringLiteral("tpu-a"), a, 4);
        if (pendingGroup)
            b.addPlacementGroup(pgId(QStringLiteral("waiting")), QStringLiteral("waiting"), QStringLiteral("PENDING"), QStringLiteral("NO_RESOURCES"), false,
                                QJsonArray{CaptureBuilder::bundle(pgId(QStringLiteral("waiting")), 0, QJsonObject{{QStringLiteral("TPU"), 4.0}}, {}),
                                           CaptureBuilder::bundle(pgId(QStringLiteral("waiting")), 1, QJsonObject{{QStringLiteral("TPU"), 4.0}}, {})});
        if (headOnB) b.addHeadPlacementGroup(pgId(QStringLiteral("head-b")), QString(), QStringLiteral("v6e-16"), bIds.value(0));
        if (slicePgOnB)
            b.addSlicePlacementGroup(pgId(QStringLiteral("slice-b")), QStringLiteral("slice-b"), QStringLiteral("tpu-b"), {QString(), QString(), QString(), QString()}, 4,
                                     QStringLiteral("PENDING"));
        return b.capture(false);
    }
};

// A Prometheus instant-vector answer: one series per chip of tpu-a (its nodes are 10.1.0.1-4 in
// CaptureBuilder), `name` empty for max_over_time (which drops it).
QByteArray promAnswer(const QString &name, double value, const QDateTime &time)
{
    QJsonArray result;
    for (int host = 0; host < 4; ++host)
        for (int chip = 0; chip < 4; ++chip) {
            QJsonObject metric{{QStringLiteral("ip"), QStringLiteral("10.1.0.%1").arg(host + 1)}, {QStringLiteral("TpuIndex"), QString::number(chip)}};
            if (!name.isEmpty()) metric.insert(QStringLiteral("__name__"), name);
            result.append(QJsonObject{{QStringLiteral("metric"), metric},
                                      {QStringLiteral("value"), QJsonArray{double(time.toSecsSinceEpoch()), QString::number(value)}}});
        }
    return QJsonDocument(QJsonObject{{QStringLiteral("status"), QStringLiteral("success")},
                                     {QStringLiteral("data"), QJsonObject{{QStringLiteral("resultType"), QStringLiteral("vector")}, {QStringLiteral("result"), result}}}})
        .toJson(QJsonDocument::Compact);
}

// What each chip reports at one moment: duty cycle per slice (NaN: unknown), optionally a window.
struct Activity {
    float dutyA = kUnknownActivity;
    float dutyB = kUnknownActivity;
    int windowSeconds = 0;
    float windowMaxA = kUnknownActivity;
    bool windowCovered = true; // Prometheus saw the whole window (promql::windowMaxQuery's proof)
};

// `base` at kStart + `atMs`, with a table whose chips say what `act` says.
ClusterSnapshot at(const SnapshotPtr &base, qint64 atMs, const Activity &act, bool withTable = true)
{
    ClusterSnapshot s = *base;
    s.capturedAt = kStart.addMSecs(atMs);
    s.activity.reset();
    if (!withTable) return s;
    ActivityTableBuilder b(s);
    for (int si = 0; si < s.slices.size(); ++si) {
        const bool isA = s.slices[si].name == QLatin1String("tpu-a");
        const float duty = isA ? act.dutyA : act.dutyB;
        for (int hi = 0; hi < s.slices[si].hosts.size(); ++hi) {
            if (s.slices[si].hosts[hi].state != HostState::Alive) continue;
            for (int c = 0; c < s.slices[si].hosts[hi].chips.size(); ++c) {
                ChipActivity *chip = b.chip(si, hi, c);
                if (!chip) continue;
                if (isA && act.windowSeconds > 0) {
                    chip->windowSeconds = act.windowSeconds;
                    chip->windowMaxDutyCycle = act.windowMaxA;
                    chip->windowCovered = act.windowCovered;
                    chip->source = ActivitySource::RayMetrics;
                }
                if (std::isnan(duty)) continue;
                chip->dutyCycle = duty;
                chip->source = ActivitySource::RayNodeSummary;
                chip->sampledAtMs = s.capturedAt.toMSecsSinceEpoch();
            }
        }
    }
    s.activity = b.finish();
    return s;
}

QList<Alert> ofKind(const AlertEngine &e, AlertKind kind)
{
    QList<Alert> out;
    for (const Alert &a : e.alerts())
        if (a.kind == kind) out << a;
    return out;
}

AlertThresholds thresholds(qint64 idleAfterMs = 10 * kMin, qint64 holdMs = 0)
{
    AlertThresholds t;
    t.idleAfterMs = idleAfterMs;
    t.clearHoldMs = holdMs;
    return t;
}

} // namespace

class TestAlerts : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void spellings()
    {
        QCOMPARE(toText(AlertKind::SliceDegraded), QStringLiteral("slice-degraded"));
        QCOMPARE(toText(AlertKind::HostMissing), QStringLiteral("host-missing"));
        QCOMPARE(toText(AlertKind::PlacementGroupPending), QStringLiteral("placement-group-pending"));
        QCOMPARE(toText(AlertKind::HeadReservationOrphaned), QStringLiteral("head-reservation-orphaned"));
        QCOMPARE(toText(AlertKind::ReservedIdle), QStringLiteral("reserved-idle"));
        QCOMPARE(toText(AlertKind::MetricsMissing), QStringLiteral("metrics-missing"));
        QCOMPARE(toText(AlertKind::WorkerIdGap), QStringLiteral("worker-id-gap"));
        QCOMPARE(toText(AlertKind::BusyUnreserved), QStringLiteral("busy-unreserved"));
        QVERIFY(AlertSeverity::Info < AlertSeverity::Warning && AlertSeverity::Warning < AlertSeverity::Critical);
        AlertSeverity s = AlertSeverity::Info;
        QVERIFY(severityFromText(u"critical", &s));
        QCOMPARE(s, AlertSeverity::Critical);
        QVERIFY(!severityFromText(u"severe", &s));
        QCOMPARE(s, AlertSeverity::Critical);
        QCOMPARE(alertDurationText(45 * 1000), QStringLiteral("45 s"));
        QCOMPARE(alertDurationText(12 * kMin), QStringLiteral("12 min"));
        QCOMPARE(alertDurationText(125 * kMin), QStringLiteral("2 h 5 min"));
    }

    // Reserved chips at 1 % sampled every minute: nothing before idle-after, the alert at exactly it.
    void reservedIdleFiresAtExactlyN_data()
    {
        QTest::addColumn<int>("idleAfterMin");
        QTest::newRow("10 min") << 10;
        QTest::newRow("3 min") << 3;
        QTest::newRow("0s: now") << 0;
    }
    void reservedIdleFiresAtExactlyN()
    {
        QFETCH(int, idleAfterMin);
        const SnapshotPtr base = World{}.build();
        AlertEngine e(thresholds(idleAfterMin * kMin));
        for (int m = 0; m <= idleAfterMin + 2; ++m) {
            e.observe(at(base, m * kMin, {1.0f, 50.0f}));
            const QList<Alert> idle = ofKind(e, AlertKind::ReservedIdle);
            if (m < idleAfterMin) {
                QVERIFY2(idle.isEmpty(), qPrintable(QStringLiteral("fired at minute %1").arg(m)));
                QVERIFY(e.idleChips().isEmpty());
                continue;
            }
            QCOMPARE(idle.size(), 1);
            const Alert &a = idle.first();
            QCOMPARE(a.subject, QStringLiteral("tpu-a"));
            QCOMPARE(a.subjectKind, AlertSubjectKind::Slice);
            QCOMPARE(a.selectSlice, QStringLiteral("tpu-a"));
            QCOMPARE(a.selectPlacementGroup, pgId(QStringLiteral("train-a")));
            QCOMPARE(a.severity, AlertSeverity::Warning);
            QCOMPARE(a.since, kStart);
            QCOMPARE(a.count, 16);
            QCOMPARE(a.text, QStringLiteral("tpu-a: 16 reserved chips idle (duty cycle under 5 %) for %1, held by group train-a")
                                 .arg(m == 0 ? QStringLiteral("0 s") : QStringLiteral("%1 min").arg(m)));
            QCOMPARE(e.idleChips().value(QStringLiteral("tpu-a")).size(), 16);
            QCOMPARE(e.idleChips().value(QStringLiteral("tpu-a")).first(), (IdleChip{0, 0, kStart}));
            QVERIFY(!e.idleChips().contains(QStringLiteral("tpu-b"))); // free chips are never "reserved idle"
        }
    }

    // Busy at 5 % exactly (the threshold is "under"), and free idle chips: no reserved-idle.
    void thresholdIsUnder()
    {
        const SnapshotPtr base = World{}.build();
        AlertEngine e(thresholds(0));
        e.observe(at(base, 0, {5.0f, 0.0f}));
        QVERIFY(ofKind(e, AlertKind::ReservedIdle).isEmpty());
        e.observe(at(base, kMin, {4.9f, 0.0f}));
        QCOMPARE(ofKind(e, AlertKind::ReservedIdle).size(), 1);
    }

    // The condition false: the alert stays for the hold, then clears; the idle outline goes at once.
    void clearsAfterTheHold()
    {
        const SnapshotPtr base = World{}.build();
        AlertEngine e(thresholds(2 * kMin, 2 * kMin));
        for (int m = 0; m <= 2; ++m)
            e.observe(at(base, m * kMin, {1.0f, 50.0f}));
        QCOMPARE(ofKind(e, AlertKind::ReservedIdle).size(), 1);
        e.observe(at(base, 3 * kMin, {60.0f, 50.0f}));
        QCOMPARE(ofKind(e, AlertKind::ReservedIdle).size(), 1); // within the hold
        QVERIFY(e.idleChips().isEmpty());                       // but no chip is idle now
        e.observe(at(base, 4 * kMin + 59 * 1000, {60.0f, 50.0f}));
        QCOMPARE(ofKind(e, AlertKind::ReservedIdle).size(), 1); // 1 min 59 s false
        e.observe(at(base, 5 * kMin, {60.0f, 50.0f}));
        QVERIFY(ofKind(e, AlertKind::ReservedIdle).isEmpty()); // 2 min false: cleared
        QCOMPARE(e.activeCount(AlertKind::ReservedIdle), 0);
    }

    // A host that dies, comes back and dies again within the hold: one alert, its first since.
    void flappingKeepsSince()
    {
        const SnapshotPtr healthy = World{}.build();
        const SnapshotPtr dead = World{{2}}.build();
        AlertEngine e(thresholds(10 * kMin, 3 * kMin));
        const QList<std::pair<int, bool>> script = {{0, false}, {1, true}, {2, false}, {3, true}, {4, false}, {5, true}};
        for (const auto &[minute, isDead] : script) {
            e.observe(at(isDead ? dead : healthy, minute * kMin, {60.0f, 50.0f}));
            const QList<Alert> degraded = ofKind(e, AlertKind::SliceDegraded);
            if (minute == 0) {
                QVERIFY(degraded.isEmpty());
                continue;
            }
            QCOMPARE(degraded.size(), 1);
            QCOMPARE(degraded.first().since, kStart.addMSecs(kMin));
            QCOMPARE(degraded.first().severity, AlertSeverity::Critical); // 16 chips reserved on it
            QVERIFY2(degraded.first().text.startsWith(QStringLiteral("tpu-a is degraded with 16 reserved chips: worker 2 is DEAD")), qPrintable(degraded.first().text));
            const QList<Alert> host = ofKind(e, AlertKind::HostMissing);
            QCOMPARE(host.size(), 1);
            QCOMPARE(host.first().subject, QStringLiteral("tpu-a worker 2"));
            QCOMPARE(host.first().subjectKind, AlertSubjectKind::Host);
            QCOMPARE(host.first().since, kStart.addMSecs(kMin));
        }
        // Healthy for the whole hold (from minute 6, the first healthy snapshot): cleared at 9;
        // the next death is a new alert with a new since.
        for (int m = 6; m <= 9; ++m) {
            e.observe(at(healthy, m * kMin, {60.0f, 50.0f}));
            QCOMPARE(ofKind(e, AlertKind::SliceDegraded).isEmpty(), m == 9);
        }
        e.observe(at(dead, 10 * kMin, {60.0f, 50.0f}));
        QCOMPARE(ofKind(e, AlertKind::SliceDegraded).value(0).since, kStart.addMSecs(10 * kMin));
    }

    // A busy blip shorter than the hold keeps a reserved-idle alert and its since, while the
    // chips' own runs restart (they are not outlined until idle-after again).
    void idleBlipWithinTheHold()
    {
        const SnapshotPtr base = World{}.build();
        AlertEngine e(thresholds(2 * kMin, 5 * kMin));
        for (int m = 0; m <= 2; ++m)
            e.observe(at(base, m * kMin, {1.0f, 50.0f}));
        e.observe(at(base, 3 * kMin, {80.0f, 50.0f}));
        for (int m = 4; m <= 6; ++m) {
            e.observe(at(base, m * kMin, {1.0f, 50.0f}));
            QCOMPARE(ofKind(e, AlertKind::ReservedIdle).size(), 1);
            QCOMPARE(ofKind(e, AlertKind::ReservedIdle).first().since, kStart);
            QCOMPARE(e.idleChips().isEmpty(), m < 6); // the run restarted at minute 4
        }
        QCOMPARE(e.idleChips().value(QStringLiteral("tpu-a")).first().since, kStart.addMSecs(4 * kMin));
    }

    // Unknown duty cycles never count as idle and break a run.
    void unknownIsNeverIdle()
    {
        const SnapshotPtr base = World{}.build();
        AlertEngine e(thresholds(10 * kMin));
        for (int m = 0; m <= 20; ++m)
            e.observe(at(base, m * kMin, {}));
        QVERIFY(ofKind(e, AlertKind::ReservedIdle).isEmpty());
        QVERIFY(e.idleChips().isEmpty());

        AlertEngine broken(thresholds(10 * kMin));
        for (int m = 0; m <= 5; ++m)
            broken.observe(at(base, m * kMin, {1.0f, 50.0f}));
        broken.observe(at(base, 6 * kMin, {kUnknownActivity, 50.0f})); // one unknown sample
        for (int m = 7; m <= 16; ++m) {
            broken.observe(at(base, m * kMin, {1.0f, 50.0f}));
            QCOMPARE(ofKind(broken, AlertKind::ReservedIdle).isEmpty(), m < 17);
        }
        broken.observe(at(base, 17 * kMin, {1.0f, 50.0f}));
        QCOMPARE(ofKind(broken, AlertKind::ReservedIdle).value(0).since, kStart.addMSecs(7 * kMin));

        // No table at all (nothing was asked): neither idle nor metrics-missing.
        AlertEngine none(thresholds(0));
        none.observe(at(base, 0, {}, false));
        QVERIFY(ofKind(none, AlertKind::ReservedIdle).isEmpty());
        QVERIFY(ofKind(none, AlertKind::MetricsMissing).isEmpty());
    }

    // Prometheus's max_over_time over a window at least idle-after long decides on one snapshot.
    void windowFromPrometheus_data()
    {
        QTest::addColumn<int>("windowSeconds");
        QTest::addColumn<float>("windowMax");
        QTest::addColumn<float>("duty");
        QTest::addColumn<bool>("covered");
        QTest::addColumn<bool>("fires");
        QTest::newRow("600 s under") << 600 << 2.0f << 1.0f << true << true;
        QTest::newRow("900 s under, no current sample") << 900 << 2.0f << kUnknownActivity << true << true;
        QTest::newRow("600 s with a spike") << 600 << 40.0f << 1.0f << true << false;
        QTest::newRow("300 s: shorter than idle-after") << 300 << 2.0f << 1.0f << true << false;
        QTest::newRow("600 s under, busy now") << 600 << 2.0f << 30.0f << true << false;
        // Prometheus has scraped for less than the window: its maximum says nothing of the rest.
        QTest::newRow("600 s under, not seen whole") << 600 << 2.0f << 1.0f << false << false;
        QTest::newRow("600 s spike, not seen whole") << 600 << 40.0f << 1.0f << false << false;
    }
    void windowFromPrometheus()
    {
        QFETCH(int, windowSeconds);
        QFETCH(float, windowMax);
        QFETCH(float, duty);
        QFETCH(bool, covered);
        QFETCH(bool, fires);
        const SnapshotPtr base = World{}.build();
        AlertEngine e(thresholds(10 * kMin));
        Activity act{duty, 50.0f, windowSeconds, windowMax, covered};
        e.observe(at(base, 30 * kMin, act));
        const QList<Alert> idle = ofKind(e, AlertKind::ReservedIdle);
        QCOMPARE(idle.size(), fires ? 1 : 0);
        if (fires) {
            QCOMPARE(idle.first().since, kStart.addSecs(30 * 60 - windowSeconds));
            QCOMPARE(idle.first().count, 16);
        }
    }

    // The same through the capture's own bodies: Prometheus's ray_tpu_duty_cycle and its
    // max_over_time answer, joined by buildSnapshot() to tpu-a's chips.
    void windowThroughTheCaptureJoin()
    {
        Capture c = World{}.capture();
        c.prometheusUrl = QStringLiteral("http://127.0.0.1:9090");
        c.prometheus = {{QString::fromLatin1(promql::kRayTpu), promAnswer(QStringLiteral("ray_tpu_duty_cycle"), 1.0, c.capturedAt)},
                        {promql::windowMaxQuery(900), promAnswer(QString(), 2.5, c.capturedAt)}};
        const SnapshotPtr s = buildSnapshot(c);
        QVERIFY(s->activity);
        const int a = s->sliceIndex(u"tpu-a");
        QCOMPARE(s->activity->chip(a, 3, 3)->windowSeconds, 900);
        QVERIFY(s->activity->chip(a, 3, 3)->windowCovered);
        QCOMPARE(s->activity->chip(a, 3, 3)->dutyCycle, 1.0f);
        AlertEngine e(thresholds(10 * kMin));
        e.observe(*s);
        const QList<Alert> idle = ofKind(e, AlertKind::ReservedIdle);
        QCOMPARE(idle.size(), 1);
        QCOMPARE(idle.first().count, 16);
        QCOMPARE(idle.first().since, c.capturedAt.addSecs(-900));
        QVERIFY2(idle.first().text.contains(QStringLiteral("for 15 min")), qPrintable(idle.first().text));
        // tpu-b reports nothing while tpu-a does, but only for now: metrics-missing waits its minute.
        QVERIFY(ofKind(e, AlertKind::MetricsMissing).isEmpty());
    }

    // A window Prometheus did not see whole (it started scraping 2 minutes ago, or a recording
    // made before the proof was asked) never claims the whole window idle: the engine's own run
    // decides, and fires once it has seen idle-after itself.
    void uncoveredWindowWaitsForOwnRun()
    {
        const SnapshotPtr base = World{}.build();
        AlertEngine e(thresholds(10 * kMin));
        for (int m = 0; m <= 10; ++m) {
            e.observe(at(base, m * kMin, {1.0f, 50.0f, 600, 2.0f, false}));
            QCOMPARE(ofKind(e, AlertKind::ReservedIdle).size(), m < 10 ? 0 : 1);
        }
        QCOMPARE(ofKind(e, AlertKind::ReservedIdle).value(0).since, kStart);

        // The same answer through the capture: the form recordings made before is read, uncovered.
        Capture c = World{}.capture();
        c.prometheusUrl = QStringLiteral("http://127.0.0.1:9090");
        c.prometheus = {{QString::fromLatin1(promql::kRayTpuAllLabels), promAnswer(QStringLiteral("ray_tpu_duty_cycle"), 1.0, c.capturedAt)},
                        {QStringLiteral("max_over_time(ray_tpu_duty_cycle[900s])"), promAnswer(QString(), 2.5, c.capturedAt)}};
        const SnapshotPtr s = buildSnapshot(c);
        const int a = s->sliceIndex(u"tpu-a");
        QCOMPARE(s->activity->chip(a, 3, 3)->windowSeconds, 900);
        QVERIFY(!s->activity->chip(a, 3, 3)->windowCovered);
        AlertEngine once(thresholds(10 * kMin));
        once.observe(*s);
        QVERIFY(ofKind(once, AlertKind::ReservedIdle).isEmpty());
    }

    // A spike inside the window beats the engine's own (sparser) samples.
    void windowSpikeBeatsOwnSamples()
    {
        const SnapshotPtr base = World{}.build();
        AlertEngine e(thresholds(10 * kMin));
        for (int m = 0; m <= 15; ++m)
            e.observe(at(base, m * kMin, {1.0f, 50.0f}));
        QCOMPARE(ofKind(e, AlertKind::ReservedIdle).size(), 1);
        e.observe(at(base, 16 * kMin, {1.0f, 50.0f, 600, 35.0f}));
        QVERIFY(e.idleChips().isEmpty());
    }

    void placementGroupPendingAtN()
    {
        World w;
        w.pendingGroup = true;
        const SnapshotPtr base = w.build();
        AlertThresholds t = thresholds();
        t.pendingAfterMs = 5 * kMin;
        AlertEngine e(t);
        for (int m = 0; m <= 6; ++m) {
            e.observe(at(base, m * kMin, {60.0f, 50.0f}));
            const QList<Alert> pending = ofKind(e, AlertKind::PlacementGroupPending);
            QCOMPARE(pending.size(), m >= 5 ? 1 : 0);
            if (m < 5) continue;
            QCOMPARE(pending.first().subject, QStringLiteral("waiting"));
            QCOMPARE(pending.first().subjectKind, AlertSubjectKind::PlacementGroup);
            QCOMPARE(pending.first().selectPlacementGroup, pgId(QStringLiteral("waiting")));
            QCOMPARE(pending.first().since, kStart);
            QCOMPARE(pending.first().count, 2);
            QCOMPARE(pending.first().text, QStringLiteral("placement group waiting has been PENDING for %1 min (2 bundles, 8 TPU; Ray says NO_RESOURCES)").arg(m));
        }
        // Created: cleared (hold 0), and the first-seen time is forgotten.
        e.observe(at(World{}.build(), 7 * kMin, {60.0f, 50.0f}));
        QVERIFY(ofKind(e, AlertKind::PlacementGroupPending).isEmpty());
        e.observe(at(base, 8 * kMin, {60.0f, 50.0f}));
        QVERIFY(ofKind(e, AlertKind::PlacementGroupPending).isEmpty());
    }

    void headReservationOrphaned()
    {
        World w;
        w.headOnB = true;
        const SnapshotPtr orphan = w.build();
        QVERIFY(sliceNamed(*orphan, QStringLiteral("tpu-b")).headHeldBy >= 0);
        AlertThresholds t = thresholds();
        t.pendingAfterMs = 2 * kMin;
        AlertEngine e(t);
        for (int m = 0; m <= 2; ++m)
            e.observe(at(orphan, m * kMin, {60.0f, 50.0f}));
        const QList<Alert> o = ofKind(e, AlertKind::HeadReservationOrphaned);
        QCOMPARE(o.size(), 1);
        QCOMPARE(o.first().selectSlice, QStringLiteral("tpu-b"));
        QCOMPARE(o.first().subjectKind, AlertSubjectKind::PlacementGroup);
        QCOMPARE(o.first().selectPlacementGroup, pgId(QStringLiteral("head-b")));
        QCOMPARE(o.first().subject, pgId(QStringLiteral("head-b")).left(12)); // unnamed: its short id
        QVERIFY2(o.first().text.contains(QStringLiteral("TPU-v6e-16-head for 2 min")), qPrintable(o.first().text));

        // The reservation at work: its slice group (pending, selecting tpu-b) exists.
        w.slicePgOnB = true;
        const SnapshotPtr reserving = w.build();
        AlertEngine ok(t);
        for (int m = 0; m <= 5; ++m)
            ok.observe(at(reserving, m * kMin, {60.0f, 50.0f}));
        QVERIFY(ofKind(ok, AlertKind::HeadReservationOrphaned).isEmpty());
    }

    void missingHostsAndWorkerIdGap()
    {
        World w;
        w.missingB = {1, 2};
        AlertEngine e(thresholds());
        e.observe(at(w.build(), 0, {60.0f, 50.0f}));
        const QList<Alert> hosts = ofKind(e, AlertKind::HostMissing);
        QCOMPARE(hosts.size(), 2);
        QCOMPARE(hosts[0].subject, QStringLiteral("tpu-b worker 1"));
        QCOMPARE(hosts[1].subject, QStringLiteral("tpu-b worker 2"));
        QVERIFY(hosts[0].text.contains(QLatin1String("MISSING")));
        const QList<Alert> gap = ofKind(e, AlertKind::WorkerIdGap);
        QCOMPARE(gap.size(), 1);
        QCOMPARE(gap.first().count, 2);
        QVERIFY2(gap.first().text.startsWith(QStringLiteral("tpu-b: worker ids 1, 2 are missing while worker 3 reports")), qPrintable(gap.first().text));

        // The last worker missing is no gap (nothing above it reports).
        World tail;
        tail.missingB = {3};
        AlertEngine e2(thresholds());
        e2.observe(at(tail.build(), 0, {60.0f, 50.0f}));
        QCOMPARE(ofKind(e2, AlertKind::HostMissing).size(), 1);
        QVERIFY(ofKind(e2, AlertKind::WorkerIdGap).isEmpty());
    }

    void metricsMissingAndBusyUnreserved()
    {
        const SnapshotPtr base = World{}.build();
        AlertThresholds t = thresholds();
        t.metricsMissingAfterMs = 2 * kMin;
        AlertEngine e(t);
        for (int m = 0; m <= 2; ++m) {
            e.observe(at(base, m * kMin, {60.0f, kUnknownActivity}));
            const QList<Alert> missing = ofKind(e, AlertKind::MetricsMissing);
            QCOMPARE(missing.size(), m >= 2 ? 1 : 0);
        }
        const Alert silent = ofKind(e, AlertKind::MetricsMissing).first();
        QCOMPARE(silent.subject, QStringLiteral("tpu-b"));
        QCOMPARE(silent.severity, AlertSeverity::Warning); // tpu-a reports
        QCOMPARE(silent.count, 16);
        QCOMPARE(silent.since, kStart);

        // Nobody reports: info, on both slices.
        AlertEngine dark(t);
        for (int m = 0; m <= 2; ++m)
            dark.observe(at(base, m * kMin, {}));
        QCOMPARE(ofKind(dark, AlertKind::MetricsMissing).size(), 2);
        QCOMPARE(ofKind(dark, AlertKind::MetricsMissing).first().severity, AlertSeverity::Info);

        // tpu-b free and busy: busy-unreserved, info, 16 chips; tpu-a held and busy: nothing.
        AlertEngine busy(t);
        busy.observe(at(base, 0, {90.0f, 80.0f}));
        const QList<Alert> b = ofKind(busy, AlertKind::BusyUnreserved);
        QCOMPARE(b.size(), 1);
        QCOMPARE(b.first().subject, QStringLiteral("tpu-b"));
        QCOMPARE(b.first().severity, AlertSeverity::Info);
        QCOMPARE(b.first().count, 16);
        QCOMPARE(busy.alerts().size(), 1);
    }

    // Most severe first; each kind bounded with one "+N more" rollup.
    void orderAndBound()
    {
        World w;
        w.deadA = {0};
        w.missingB = {0, 1, 2};
        AlertThresholds t = thresholds();
        t.maxPerKind = 2;
        AlertEngine e(t);
        e.observe(at(w.build(), 0, {60.0f, 50.0f}));
        QCOMPARE(e.activeCount(AlertKind::HostMissing), 4);
        const QList<Alert> host = ofKind(e, AlertKind::HostMissing);
        QCOMPARE(host.size(), 3);
        QVERIFY(!host[0].rollup && !host[1].rollup);
        QVERIFY(host[2].rollup);
        QCOMPARE(host[2].count, 2);
        QCOMPARE(host[2].subject, QStringLiteral("+2 more"));
        QCOMPARE(e.alerts().first().severity, AlertSeverity::Critical);
        for (int i = 1; i < e.alerts().size(); ++i)
            if (!e.alerts()[i].rollup && !e.alerts()[i - 1].rollup) QVERIFY(e.alerts()[i - 1].severity >= e.alerts()[i].severity);
    }

    // An undated or earlier snapshot counts as taken at the last time: no run goes backwards.
    void timeNeverGoesBack()
    {
        const SnapshotPtr base = World{}.build();
        AlertEngine e(thresholds(10 * kMin));
        e.observe(at(base, 10 * kMin, {1.0f, 50.0f}));
        e.observe(at(base, 0, {1.0f, 50.0f}));
        QCOMPARE(e.lastObservedAt(), kStart.addMSecs(10 * kMin));
        QVERIFY(ofKind(e, AlertKind::ReservedIdle).isEmpty());
    }

    // A history replays to what observing live gave.
    void historyReplaysToTheSameAlerts()
    {
        const SnapshotPtr healthy = World{}.build();
        const SnapshotPtr dead = World{{1}}.build();
        SnapshotHistory history(HistoryPolicy{0, 0});
        AlertEngine live(thresholds(5 * kMin, kMin));
        for (int m = 0; m <= 12; ++m) {
            auto s = std::make_shared<ClusterSnapshot>(at(m % 4 == 3 ? dead : healthy, m * kMin, {1.0f, m > 8 ? 70.0f : 50.0f}));
            live.observe(*s);
            history.add(s);
        }
        AlertEngine replay(thresholds(5 * kMin, kMin));
        replay.evaluate(history);
        QCOMPARE(replay.alerts(), live.alerts());
        QCOMPARE(replay.idleChips(), live.idleChips());
        QVERIFY(!replay.alerts().isEmpty());
    }

    // The engine forgets what is gone: a slice leaves, its chip memory goes.
    void boundedMemory()
    {
        const SnapshotPtr base = World{}.build();
        AlertEngine e(thresholds());
        e.observe(at(base, 0, {1.0f, 50.0f}));
        const qint64 withSlice = e.bytes();
        ClusterSnapshot empty = at(base, kMin, {});
        empty.slices.clear();
        empty.placementGroups.clear();
        empty.activity.reset();
        e.observe(empty);
        QVERIFY(e.bytes() < withSlice);
        QVERIFY(e.alerts().isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestAlerts)
#include "tst_alerts.moc"
