// SPDX-License-Identifier: GPL-3.0-or-later
// `slicescope alerts` and the activity members of `inspect --json`, through the real binary: a
// recording whose reserved chips stay idle (Ray's node summary says 1 % for every chip of a slice
// a group holds), replayed capture by capture; exit codes 0 / 2 / 3 and --fail-on; the JSON keys.
// `inspect --step N` and `alerts --step N` give the alerts as they stood at capture N: those of an
// engine fed captures 0..N, compared with that replay done here.

#include "../common/clirun.h"
#include "../common/fakedashboard.h"
#include "../model/capturefixture.h"
#include "alerts.h"
#include "capturecodec.h"
#include "capturefile.h"
#include "inspectjson.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace slicescope;
using namespace slicescope::testfixture;

namespace {

using Run = testing::CliRun;

Run runSlicescope(const QStringList &args)
{
    return testing::runCli(args, {}, {}, 60000);
}

// While this test's fake servers answer (they live in this process).
Run runAgainstFakes(const QStringList &args)
{
    return testing::runCliAsync(QStringLiteral(SLICESCOPE_BINARY), args, {}, 30000);
}

// How a Prometheus fails, for the rows of the tests of issue 30 (items 9 and 10).
testing::HttpResponse prometheusFault(const QString &fault)
{
    if (fault == QLatin1String("401"))
        return {401, "Unauthorized"};
    if (fault == QLatin1String("302")) {
        testing::HttpResponse r{302, {}};
        r.reason = "Found";
        r.headers.append({QByteArrayLiteral("Location"), QByteArrayLiteral("https://sso.example/oauth2/start")});
        return r;
    }
    if (fault == QLatin1String("garbage"))
        return {200, "<!doctype html><html><body>Sign in</body></html>"};
    if (fault == QLatin1String("too much")) {
        testing::HttpResponse r{200, "{"};
        r.lazyBytes = qint64(300) << 20;
        return r;
    }
    return {200, R"({"status":"success","data":{"resultType":"vector","result":[]}})"}; // "answers"
}

// tpu-a (v6e 4x4, four hosts) held whole by the detached group "train-a"; tpu-b free. Ray's node
// summary reports every chip of tpu-a at `duty` %, taken at the capture's time; tpu-b reports
// nothing. `deadWorker` >= 0: that worker of tpu-a is DEAD.
Capture worldAt(const QDateTime &at, double duty, int deadWorker = -1)
{
    CaptureBuilder b;
    b.addHeadNode(QStringLiteral("head0"), QStringLiteral("10.0.0.1"));
    QList<int> dead;
    if (deadWorker >= 0) dead << deadWorker;
    const QStringList a = b.addSlice({QStringLiteral("tpu-a"), QStringLiteral("TPU-V6E"), QStringLiteral("v6e-16"), QStringLiteral("4x4"), {}, 4, 4, dead, {}, {}, {}});
    b.addSlice({QStringLiteral("tpu-b"), QStringLiteral("TPU-V6E"), QStringLiteral("v6e-16"), QStringLiteral("4x4"), {}, 4, 4, {}, {}, {}, {}});
    const QString pg = hexId(QStringLiteral("train-a"), 28) + QStringLiteral("02000000");
    b.addSlicePlacementGroup(pg, QStringLiteral("train-a"), QStringLiteral("tpu-a"), a, 4);
    Capture c = b.capture(false);
    c.capturedAt = at;
    QJsonArray summary;
    for (int w = 0; w < a.size(); ++w) {
        QJsonArray tpus;
        for (int chip = 0; chip < 4; ++chip)
            tpus.append(QJsonObject{{QStringLiteral("index"), chip},
                                    {QStringLiteral("name"), QStringLiteral("tpu%1").arg(chip)},
                                    {QStringLiteral("tpuType"), QStringLiteral("TPU-V6E")},
                                    {QStringLiteral("dutyCycle"), duty},
                                    {QStringLiteral("tensorcoreUtilization"), duty / 2},
                                    {QStringLiteral("hbmUtilization"), 3.0},
                                    {QStringLiteral("memoryUsed"), 4.0e9},
                                    {QStringLiteral("memoryTotal"), 3.2e10}});
        summary.append(QJsonObject{{QStringLiteral("now"), double(at.toMSecsSinceEpoch()) / 1000},
                                   {QStringLiteral("ip"), QStringLiteral("10.1.0.%1").arg(w + 1)},
                                   {QStringLiteral("raylet"), QJsonObject{{QStringLiteral("nodeId"), a[w]}, {QStringLiteral("nodeManagerAddress"), QStringLiteral("10.1.0.%1").arg(w + 1)}}},
                                   {QStringLiteral("tpus"), tpus}});
    }
    c.rayNodeSummary = QJsonDocument(QJsonObject{{QStringLiteral("result"), true},
                                                 {QStringLiteral("msg"), QString()},
                                                 {QStringLiteral("data"), QJsonObject{{QStringLiteral("summary"), summary}}}})
                           .toJson(QJsonDocument::Compact);
    return c;
}

const QDateTime kStart(QDate(2026, 11, 29), QTime(18, 0), Qt::UTC);

QString writeFile(const QTemporaryDir &dir, const QString &name, const QList<Capture> &captures)
{
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) qFatal("cannot write %s", qPrintable(path));
    for (const Capture &c : captures)
        f.write(serializeCapture(c) + '\n');
    return path;
}

QList<QJsonObject> alertsOfKind(const QJsonObject &doc, const QString &kind)
{
    QList<QJsonObject> out;
    for (const QJsonValue &v : doc.value(QLatin1String("alerts")).toArray())
        if (v.toObject().value(QLatin1String("kind")).toString() == kind) out << v.toObject();
    return out;
}

} // namespace

class TestCliAlerts : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QList<Capture> idle;
        for (int m = 0; m <= 12; ++m)
            idle << worldAt(kStart.addSecs(m * 60), 1.0);
        m_idleRecording = writeFile(m_dir, QStringLiteral("idle.slicescope.jsonl"), idle);
        m_oneCapture = writeFile(m_dir, QStringLiteral("one.slicescope.json"), {worldAt(kStart, 1.0)});
        m_deadCapture = writeFile(m_dir, QStringLiteral("dead.slicescope.json"), {worldAt(kStart, 60.0, 2)});
    }

    // Twelve minutes of idle reserved chips: reserved-idle fires (exit 3), since the first capture.
    void recordingReplaysToReservedIdle()
    {
        const Run r = runSlicescope({QStringLiteral("alerts"), QStringLiteral("--capture"), m_idleRecording, QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 3, r.err.constData());
        QVERIFY2(r.err.isEmpty(), r.err.constData());
        const QJsonObject doc = r.json();
        QCOMPARE(doc.value(QLatin1String("snapshots")).toInt(), 13);
        QCOMPARE(doc.value(QLatin1String("fired")).toBool(), true);
        QCOMPARE(doc.value(QLatin1String("failOn")).toString(), QStringLiteral("info"));
        QCOMPARE(doc.value(QLatin1String("idleChips")).toInt(), 16);
        QCOMPARE(doc.value(QLatin1String("evaluatedAt")).toString(), kStart.addSecs(12 * 60).toString(Qt::ISODate));
        QCOMPARE(doc.value(QLatin1String("byKind")).toObject().value(QLatin1String("reserved-idle")).toInt(), 1);
        QCOMPARE(doc.value(QLatin1String("thresholds")).toObject().value(QLatin1String("idleAfterSeconds")).toDouble(), 600.0);
        const QList<QJsonObject> idle = alertsOfKind(doc, QStringLiteral("reserved-idle"));
        QCOMPARE(idle.size(), 1);
        const QJsonObject a = idle.first();
        QCOMPARE(a.value(QLatin1String("severity")).toString(), QStringLiteral("warning"));
        QCOMPARE(a.value(QLatin1String("subject")).toString(), QStringLiteral("tpu-a"));
        QCOMPARE(a.value(QLatin1String("subjectKind")).toString(), QStringLiteral("slice"));
        QCOMPARE(a.value(QLatin1String("slice")).toString(), QStringLiteral("tpu-a"));
        QCOMPARE(a.value(QLatin1String("placementGroup")).toString(), hexId(QStringLiteral("train-a"), 28) + QStringLiteral("02000000"));
        QCOMPARE(a.value(QLatin1String("since")).toString(), kStart.toString(Qt::ISODate));
        QCOMPARE(a.value(QLatin1String("count")).toInt(), 16);
        QCOMPARE(a.value(QLatin1String("text")).toString(), QStringLiteral("tpu-a: 16 reserved chips idle (duty cycle under 5 %) for 12 min, held by group train-a"));
        // tpu-b's hosts are alive and report nothing while tpu-a's do.
        const QList<QJsonObject> missing = alertsOfKind(doc, QStringLiteral("metrics-missing"));
        QCOMPARE(missing.size(), 1);
        QCOMPARE(missing.first().value(QLatin1String("subject")).toString(), QStringLiteral("tpu-b"));
        for (const QJsonValue &v : doc.value(QLatin1String("alerts")).toArray())
            for (const char *k : {"kind", "severity", "subject", "subjectKind", "since", "text", "slice", "placementGroup", "count", "rollup", "id"})
                QVERIFY2(v.toObject().contains(QLatin1String(k)), k);

        // Only warnings fire: --fail-on critical passes, --fail-on warning does not.
        QCOMPARE(runSlicescope({QStringLiteral("alerts"), QStringLiteral("--capture"), m_idleRecording, QStringLiteral("--fail-on"), QStringLiteral("critical")}).exitCode, 0);
        QCOMPARE(runSlicescope({QStringLiteral("alerts"), QStringLiteral("--capture"), m_idleRecording, QStringLiteral("--fail-on"), QStringLiteral("warning")}).exitCode, 3);
        // A longer idle-after: not yet.
        const Run later = runSlicescope({QStringLiteral("alerts"), QStringLiteral("--capture"), m_idleRecording, QStringLiteral("--json"), QStringLiteral("--idle-after"), QStringLiteral("13m")});
        QVERIFY(alertsOfKind(later.json(), QStringLiteral("reserved-idle")).isEmpty());
    }

    // Plain text: one line per alert, severity and kind first.
    void plainText()
    {
        const Run r = runSlicescope({QStringLiteral("alerts"), QStringLiteral("--capture"), m_idleRecording});
        QCOMPARE(r.exitCode, 3);
        const QString out = QString::fromUtf8(r.out);
        QVERIFY2(out.contains(QStringLiteral("WARNING   reserved-idle")), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("16 reserved chips idle")), qPrintable(out));
    }

    // One capture: no history, so reserved-idle waits; "0s" means now.
    void oneCaptureAndZeroMeansNow()
    {
        const Run wait = runSlicescope({QStringLiteral("alerts"), QStringLiteral("--capture"), m_oneCapture, QStringLiteral("--json"), QStringLiteral("--metrics-missing-after"), QStringLiteral("5m")});
        QVERIFY2(wait.exitCode == 0, wait.out.constData());
        QCOMPARE(wait.json().value(QLatin1String("alerts")).toArray().size(), 0);
        QCOMPARE(wait.json().value(QLatin1String("fired")).toBool(), false);
        const Run now = runSlicescope({QStringLiteral("alerts"), QStringLiteral("--capture"), m_oneCapture, QStringLiteral("--json"), QStringLiteral("--idle-after"), QStringLiteral("0s"),
                                       QStringLiteral("--metrics-missing-after"), QStringLiteral("5m")});
        QCOMPARE(now.exitCode, 3);
        QCOMPARE(alertsOfKind(now.json(), QStringLiteral("reserved-idle")).size(), 1);
        QCOMPARE(now.json().value(QLatin1String("thresholds")).toObject().value(QLatin1String("idleAfterSeconds")).toDouble(), 0.0);
        // The idle threshold moves: at 0.5 % nothing at 1 % is idle.
        const Run below = runSlicescope({QStringLiteral("alerts"), QStringLiteral("--capture"), m_oneCapture, QStringLiteral("--json"), QStringLiteral("--idle-after"), QStringLiteral("0s"),
                                         QStringLiteral("--idle-below"), QStringLiteral("0.5")});
        QVERIFY(alertsOfKind(below.json(), QStringLiteral("reserved-idle")).isEmpty());
    }

    // A dead host under a reservation is critical.
    void deadHostIsCritical()
    {
        const Run r = runSlicescope({QStringLiteral("alerts"), QStringLiteral("--capture"), m_deadCapture, QStringLiteral("--json"), QStringLiteral("--fail-on"), QStringLiteral("critical")});
        QCOMPARE(r.exitCode, 3);
        const QList<QJsonObject> degraded = alertsOfKind(r.json(), QStringLiteral("slice-degraded"));
        QCOMPARE(degraded.size(), 1);
        QCOMPARE(degraded.first().value(QLatin1String("severity")).toString(), QStringLiteral("critical"));
        const QList<QJsonObject> host = alertsOfKind(r.json(), QStringLiteral("host-missing"));
        QCOMPARE(host.size(), 1);
        QCOMPARE(host.first().value(QLatin1String("subject")).toString(), QStringLiteral("tpu-a worker 2"));
        QCOMPARE(host.first().value(QLatin1String("subjectKind")).toString(), QStringLiteral("host"));
    }

    void demoRuns()
    {
        const Run r = runSlicescope({QStringLiteral("alerts"), QStringLiteral("--demo"), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0 || r.exitCode == 3, r.err.constData());
        const QJsonObject doc = r.json();
        for (const char *k : {"alerts", "active", "byKind", "idleChips", "failOn", "fired", "snapshots", "evaluatedAt", "thresholds"})
            QVERIFY2(doc.contains(QLatin1String(k)), k);
        QCOMPARE(r.exitCode == 3, doc.value(QLatin1String("fired")).toBool());
    }

    void badUsage_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("severity") << QStringList{QStringLiteral("--fail-on"), QStringLiteral("severe")} << QStringLiteral("--fail-on wants info, warning or critical, not \"severe\"");
        QTest::newRow("idle-after") << QStringList{QStringLiteral("--idle-after"), QStringLiteral("soon")} << QStringLiteral("--idle-after wants a time");
        QTest::newRow("negative pending-after") << QStringList{QStringLiteral("--pending-after"), QStringLiteral("-5m")} << QStringLiteral("--pending-after wants a time");
        QTest::newRow("idle-below 0") << QStringList{QStringLiteral("--idle-below"), QStringLiteral("0")} << QStringLiteral("--idle-below wants a duty cycle");
        QTest::newRow("idle-below 101") << QStringList{QStringLiteral("--idle-below"), QStringLiteral("101")} << QStringLiteral("--idle-below");
        QTest::newRow("max-per-kind") << QStringList{QStringLiteral("--max-per-kind"), QStringLiteral("0")} << QStringLiteral("--max-per-kind");
    }
    void badUsage()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, mentions);
        const Run r = runSlicescope(QStringList{QStringLiteral("alerts"), QStringLiteral("--demo")} + args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.out.isEmpty());
        const QString err = QString::fromUtf8(r.err).trimmed();
        QVERIFY2(!err.contains(u'\n') && err.startsWith(QLatin1String("slicescope: ")) && err.contains(mentions), qPrintable(err));
        QCOMPARE(runSlicescope({QStringLiteral("alerts")}).exitCode, 2); // no SOURCE
    }

    // inspect --json: per-chip activity, the host's reason, the summary and the alerts.
    void inspectCarriesActivityAndAlerts()
    {
        const Run r = runSlicescope({QStringLiteral("inspect"), QStringLiteral("--capture"), m_oneCapture, QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject doc = r.json();
        const QJsonObject summary = doc.value(QLatin1String("activity")).toObject();
        QCOMPARE(summary.value(QLatin1String("chips")).toInt(), 32);
        QCOMPARE(summary.value(QLatin1String("reporting")).toInt(), 16);
        QCOMPARE(summary.value(QLatin1String("meanDutyCycle")).toDouble(), 1.0);
        QVERIFY(summary.value(QLatin1String("sources")).isArray() && !summary.value(QLatin1String("sources")).toArray().isEmpty());
        QVERIFY(summary.value(QLatin1String("problems")).isArray());
        QVERIFY(doc.value(QLatin1String("alerts")).isArray());
        bool sawA = false, sawB = false;
        for (const QJsonValue &sv : doc.value(QLatin1String("slices")).toArray()) {
            const QJsonObject s = sv.toObject();
            const bool isA = s.value(QLatin1String("name")).toString() == QLatin1String("tpu-a");
            for (const QJsonValue &hv : s.value(QLatin1String("hosts")).toArray()) {
                const QJsonObject h = hv.toObject();
                QVERIFY(h.contains(QLatin1String("activityUnknownReason")));
                QCOMPARE(h.value(QLatin1String("activityUnknownReason")).isNull(), isA);
                for (const QJsonValue &cv : h.value(QLatin1String("chips")).toArray()) {
                    const QJsonObject c = cv.toObject();
                    QVERIFY(c.contains(QLatin1String("activity")));
                    if (!isA) {
                        QVERIFY(c.value(QLatin1String("activity")).isNull());
                        sawB = true;
                        continue;
                    }
                    const QJsonObject act = c.value(QLatin1String("activity")).toObject();
                    QCOMPARE(act.value(QLatin1String("dutyCycle")).toDouble(), 1.0);
                    QCOMPARE(act.value(QLatin1String("tensorcoreUtilization")).toDouble(), 0.5);
                    QCOMPARE(act.value(QLatin1String("hbmBandwidthUtilization")).toDouble(), 3.0);
                    QCOMPARE(act.value(QLatin1String("hbmUsedBytes")).toDouble(), 4.0e9);
                    QCOMPARE(act.value(QLatin1String("hbmTotalBytes")).toDouble(), 3.2e10);
                    QCOMPARE(act.value(QLatin1String("ageSeconds")).toInt(), 0);
                    QCOMPARE(act.value(QLatin1String("source")).toString(), QStringLiteral("ray-node-summary"));
                    sawA = true;
                }
            }
        }
        QVERIFY(sawA && sawB);
        // The one-snapshot alerts of inspect: a dead host under a reservation.
        const Run demo = runSlicescope({QStringLiteral("inspect"), QStringLiteral("--capture"), m_deadCapture, QStringLiteral("--json")});
        QVERIFY(demo.json().value(QLatin1String("activity")).isObject());
        QCOMPARE(alertsOfKind(demo.json(), QStringLiteral("slice-degraded")).size(), 1);
    }

    // The idle recording at each step: reserved-idle is absent until ten minutes of idle have
    // passed (step 10) and present from then on; both verbs agree with the replay done here.
    void stepReplaysTheAlertsUpToIt()
    {
        const CaptureReadResult read = readCaptureFile(m_idleRecording);
        QVERIFY2(read.ok(), qPrintable(read.error));
        QCOMPARE(read.captures.size(), 13);
        AlertEngine engine;
        int firstIdle = -1;
        for (int step = 0; step < read.captures.size(); ++step) {
            engine.observe(*buildSnapshot(read.captures[step]));
            const QJsonArray expected = alertsJson(engine.alerts());
            const Run inspect = runSlicescope({QStringLiteral("inspect"), QStringLiteral("--capture"), m_idleRecording, QStringLiteral("--step"), QString::number(step),
                                               QStringLiteral("--json")});
            QVERIFY2(inspect.exitCode == 0, inspect.err.constData());
            QCOMPARE(inspect.json().value(QLatin1String("alerts")).toArray(), expected);
            const Run alerts = runSlicescope({QStringLiteral("alerts"), QStringLiteral("--capture"), m_idleRecording, QStringLiteral("--step"), QString::number(step),
                                              QStringLiteral("--json")});
            QVERIFY2(alerts.exitCode == 0 || alerts.exitCode == 3, alerts.err.constData());
            QCOMPARE(alerts.json().value(QLatin1String("alerts")).toArray(), expected);
            QCOMPARE(alerts.json().value(QLatin1String("snapshots")).toInt(), step + 1);
            QCOMPARE(alerts.json().value(QLatin1String("evaluatedAt")).toString(), kStart.addSecs(step * 60).toString(Qt::ISODate));
            const bool idle = !alertsOfKind(inspect.json(), QStringLiteral("reserved-idle")).isEmpty();
            QCOMPARE(!alertsOfKind(alerts.json(), QStringLiteral("reserved-idle")).isEmpty(), idle);
            if (idle && firstIdle < 0)
                firstIdle = step;
            QCOMPARE(idle, firstIdle >= 0); // once fired it stays: the chips stay idle
        }
        QCOMPARE(firstIdle, 10); // idle since 18:00, ten minutes at 18:10
        // -1 is the last step, and the last step is what the verbs say without --step.
        const Run last = runSlicescope({QStringLiteral("inspect"), QStringLiteral("--capture"), m_idleRecording, QStringLiteral("--step=-1"), QStringLiteral("--json")});
        const Run plain = runSlicescope({QStringLiteral("inspect"), QStringLiteral("--capture"), m_idleRecording, QStringLiteral("--json")});
        const Run verb = runSlicescope({QStringLiteral("alerts"), QStringLiteral("--capture"), m_idleRecording, QStringLiteral("--json")});
        QCOMPARE(last.json(), plain.json());
        QCOMPARE(plain.json().value(QLatin1String("alerts")).toArray(), alertsJson(engine.alerts()));
        QCOMPARE(plain.json().value(QLatin1String("alerts")), verb.json().value(QLatin1String("alerts")));
        // The thresholds still apply with --step: a shorter idle-after fires earlier.
        const Run early = runSlicescope({QStringLiteral("alerts"), QStringLiteral("--capture"), m_idleRecording, QStringLiteral("--step"), QStringLiteral("3"),
                                         QStringLiteral("--idle-after"), QStringLiteral("3m"), QStringLiteral("--json")});
        QCOMPARE(alertsOfKind(early.json(), QStringLiteral("reserved-idle")).size(), 1);
    }

    void stepBadUsage_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("past the end") << QStringList{QStringLiteral("--step"), QStringLiteral("13")} << QStringLiteral("holds 13 capture(s) (steps 0 to 12, or -1 to -13)");
        QTest::newRow("before the start") << QStringList{QStringLiteral("--step=-14")} << QStringLiteral("steps 0 to 12");
        QTest::newRow("not a number") << QStringList{QStringLiteral("--step"), QStringLiteral("last")} << QStringLiteral("--step wants a capture number");
        QTest::newRow("no value") << QStringList{QStringLiteral("--step")} << QStringLiteral("Missing value after '--step'");
    }
    void stepBadUsage()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, mentions);
        const Run r = runSlicescope(QStringList{QStringLiteral("alerts"), QStringLiteral("--capture"), m_idleRecording, QStringLiteral("--json")} + args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.out.isEmpty());
        const QString err = QString::fromUtf8(r.err).trimmed();
        QVERIFY2(!err.contains(u'\n') && err.startsWith(QLatin1String("slicescope: ")) && err.contains(mentions), qPrintable(err));
        // Only a recording has steps.
        const Run demo = runSlicescope({QStringLiteral("alerts"), QStringLiteral("--demo"), QStringLiteral("--step"), QStringLiteral("0")});
        QCOMPARE(demo.exitCode, 2);
        QVERIFY2(demo.lastErrLine().contains(QLatin1String("--step goes with --capture")), demo.err.constData());
    }

    // Issue 30, item 9: a --prometheus that is down, refuses, redirects, answers too much or answers
    // garbage. Before: exit 0, "no alerts", nothing on stderr or in --json: a cron job's check
    // passed seeing nothing. After: exit 1, the reason on stderr and in `sourceErrors`. A
    // Prometheus that answers (the control row) fails nothing.
    void aFailedPrometheusFailsTheCheck_data()
    {
        QTest::addColumn<QString>("fault");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("says");
        QTest::newRow("down") << QStringLiteral("down") << 1 << QStringLiteral("connection refused: is Prometheus running there?");
        QTest::newRow("401") << QStringLiteral("401") << 1 << QStringLiteral("HTTP 401: the server wants a token and none was given");
        QTest::newRow("302") << QStringLiteral("302") << 1 << QStringLiteral("HTTP 302 Found: redirects are refused (to https://sso.example/oauth2/start)");
        QTest::newRow("too much") << QStringLiteral("too much") << 1 << QStringLiteral("the answer is larger than 128 MiB");
        QTest::newRow("garbage") << QStringLiteral("garbage") << 1 << QStringLiteral("not JSON (looks like an HTML page)");
        QTest::newRow("answers") << QStringLiteral("answers") << 0 << QString();
    }
    void aFailedPrometheusFailsTheCheck()
    {
        QFETCH(QString, fault);
        QFETCH(int, exitCode);
        QFETCH(QString, says);
        const Capture world = worldAt(kStart, 1.0);
        testing::FakeHttpServer ray, prometheus;
        ray.script = [&](const testing::HttpRequest &r) {
            return testing::dashboardFor(world, r);
        };
        prometheus.script = [&](const testing::HttpRequest &) {
            return prometheusFault(fault);
        };
        if (fault == QLatin1String("down"))
            prometheus.goAway();
        const QStringList source{QStringLiteral("--ray"), ray.url().toString(), QStringLiteral("--prometheus"), prometheus.url().toString()};

        const Run json = runAgainstFakes(QStringList{QStringLiteral("alerts")} + source + QStringList{QStringLiteral("--json"), QStringLiteral("--fail-on"), QStringLiteral("warning"), QStringLiteral("--metrics-missing-after"), QStringLiteral("5m")});
        qInfo("%s: exit %d: %s", qPrintable(fault), json.exitCode, json.err.trimmed().constData());
        QCOMPARE(json.exitCode, exitCode);
        const QJsonObject doc = json.json();
        QCOMPARE(doc.value(QLatin1String("fired")).toBool(), false);
        QVERIFY2(doc.value(QLatin1String("sourceErrors")).isArray(), json.out.constData());
        const QJsonArray errors = doc.value(QLatin1String("sourceErrors")).toArray();
        QCOMPARE(errors.isEmpty(), says.isEmpty());
        if (says.isEmpty()) {
            QVERIFY2(json.err.isEmpty(), json.err.constData());
            // inspect --json stays what inspectJson() gives when nothing failed: no sourceErrors key.
            const Run inspect = runAgainstFakes(QStringList{QStringLiteral("inspect"), QStringLiteral("--json")} + source);
            QCOMPARE(inspect.exitCode, 0);
            QVERIFY(!inspect.json().contains(QLatin1String("sourceErrors")));
            return;
        }
        for (const QJsonValue &e : errors) {
            QCOMPARE(e.toObject().value(QLatin1String("source")).toString(), QStringLiteral("prometheus"));
            QVERIFY2(e.toObject().value(QLatin1String("message")).toString().contains(prometheus.url().toString()), json.out.constData());
        }
        QVERIFY2(errors.first().toObject().value(QLatin1String("message")).toString().contains(says), json.out.constData());
        const QString err = QString::fromUtf8(json.err);
        QVERIFY2(err.startsWith(QStringLiteral("slicescope: Prometheus %1").arg(prometheus.url().toString())) && err.contains(says), qPrintable(err));

        // The text form says it too, and does not say a plain "no alerts".
        const Run text = runAgainstFakes(QStringList{QStringLiteral("alerts")} + source + QStringList{QStringLiteral("--fail-on"), QStringLiteral("warning"), QStringLiteral("--metrics-missing-after"), QStringLiteral("5m")});
        QCOMPARE(text.exitCode, 1);
        QVERIFY2(QString::fromUtf8(text.err).contains(says), text.err.constData());
        QVERIFY2(QString::fromUtf8(text.out).startsWith(QLatin1String("no alerts from the data that arrived (1 snapshot); 1 source(s) failed")), text.out.constData());
    }

    // An alert at or above --fail-on that fired from the data that did arrive wins: exit 3, and
    // the failed source is still said, on stderr and in --json.
    void aFiredAlertWinsOverAFailedSource()
    {
        const Capture world = worldAt(kStart, 60.0, 2); // worker 2 of a reserved slice is dead
        testing::FakeHttpServer ray, prometheus;
        ray.script = [&](const testing::HttpRequest &r) {
            return testing::dashboardFor(world, r);
        };
        prometheus.script = [](const testing::HttpRequest &) {
            return prometheusFault(QStringLiteral("302"));
        };
        const Run r = runAgainstFakes({QStringLiteral("alerts"), QStringLiteral("--ray"), ray.url().toString(), QStringLiteral("--prometheus"), prometheus.url().toString(),
                                       QStringLiteral("--json"), QStringLiteral("--fail-on"), QStringLiteral("critical")});
        QCOMPARE(r.exitCode, 3);
        QCOMPARE(r.json().value(QLatin1String("fired")).toBool(), true);
        QCOMPARE(alertsOfKind(r.json(), QStringLiteral("slice-degraded")).size(), 1);
        QCOMPARE(r.json().value(QLatin1String("sourceErrors")).toArray().size(), 1);
        QVERIFY2(QString::fromUtf8(r.err).contains(QLatin1String("redirects are refused")), r.err.constData());
    }

    // inspect and record hold the same way: what arrived is printed (inspect) or kept (record),
    // and the verb exits 1 with the reason on stderr and in --json `sourceErrors`.
    void inspectAndRecordFailWithTheSource()
    {
        const Capture world = worldAt(kStart, 1.0);
        testing::FakeHttpServer ray, prometheus;
        ray.script = [&](const testing::HttpRequest &r) {
            return testing::dashboardFor(world, r);
        };
        prometheus.script = [](const testing::HttpRequest &) {
            return prometheusFault(QStringLiteral("garbage"));
        };
        const QStringList source{QStringLiteral("--ray"), ray.url().toString(), QStringLiteral("--prometheus"), prometheus.url().toString()};

        const Run inspect = runAgainstFakes(QStringList{QStringLiteral("inspect"), QStringLiteral("--json")} + source);
        QCOMPARE(inspect.exitCode, 1);
        QCOMPARE(inspect.json().value(QLatin1String("slices")).toArray().size(), 2); // what arrived
        const QJsonArray inspectErrors = inspect.json().value(QLatin1String("sourceErrors")).toArray();
        QCOMPARE(inspectErrors.size(), 1); // the round: its answers were sign-in pages
        QVERIFY2(inspectErrors.first().toObject().value(QLatin1String("message")).toString().contains(QLatin1String("not JSON")), inspect.out.constData());
        QVERIFY2(QString::fromUtf8(inspect.err).contains(QLatin1String("not JSON (looks like an HTML page)")), inspect.err.constData());

        const QString out = m_dir.filePath(QStringLiteral("prom-failed.slicescope.jsonl"));
        const Run record = runAgainstFakes(QStringList{QStringLiteral("record"), QStringLiteral("--json"), QStringLiteral("--interval"), QStringLiteral("500ms"),
                                                       QStringLiteral("--duration"), QStringLiteral("5s"), QStringLiteral("-o"), out}
                                           + source);
        QCOMPARE(record.exitCode, 1);
        QVERIFY2(QString::fromUtf8(record.err).contains(QLatin1String("not JSON (looks like an HTML page)"))
                     && QString::fromUtf8(record.err).contains(QLatin1String("kept the 1 capture(s) recorded so far")),
                 record.err.constData());
        QCOMPARE(record.json().value(QLatin1String("complete")).toBool(true), false);
        QCOMPARE(record.json().value(QLatin1String("captures")).toInt(), 1);
        QCOMPARE(record.json().value(QLatin1String("sourceErrors")).toArray().size(), 1);
        const CaptureReadResult kept = readCaptureFile(out);
        QVERIFY2(kept.ok(), qPrintable(kept.error));
        QCOMPARE(kept.captures.size(), 1); // the capture that says what Prometheus answered
    }

    void captureWithoutActivity()
    {
        Capture c = worldAt(kStart, 1.0);
        c.rayNodeSummary.clear();
        const QString path = writeFile(m_dir, QStringLiteral("bare.slicescope.json"), {c});
        const Run r = runSlicescope({QStringLiteral("inspect"), QStringLiteral("--capture"), path, QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.json().value(QLatin1String("activity")).isNull());
        const QJsonObject chip = r.json()
                                     .value(QLatin1String("slices"))
                                     .toArray()
                                     .first()
                                     .toObject()
                                     .value(QLatin1String("hosts"))
                                     .toArray()
                                     .first()
                                     .toObject()
                                     .value(QLatin1String("chips"))
                                     .toArray()
                                     .first()
                                     .toObject();
        QVERIFY(chip.contains(QLatin1String("activity")) && chip.value(QLatin1String("activity")).isNull());
    }

private:
    QTemporaryDir m_dir;
    QString m_idleRecording, m_oneCapture, m_deadCapture;
};

QTEST_GUILESS_MAIN(TestCliAlerts)
#include "tst_cli_alerts.moc"
