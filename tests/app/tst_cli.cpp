// SPDX-License-Identifier: GPL-3.0-or-later
// `slicescope inspect` and `slicescope plan` as other tools call them: the real binary, its exit
// codes, its one stderr line, and the JSON contract of ARCHITECTURE.md.

#include "../common/clirun.h"
#include "../model/fleetcapturefixture.h"
#include "capturefile.h"
#include "democluster.h"
#include "snapshot.h"
#include "inspectjson.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

using namespace slicescope;

namespace {

using Run = testing::CliRun;

Run runSlicescope(const QStringList &args)
{
    return testing::runCli(args, {}, {}, 60000);
}

void checkType(const QJsonObject &o, const char *key, QJsonValue::Type type, bool nullable = false)
{
    const QJsonValue v = o.value(QLatin1String(key));
    QVERIFY2(o.contains(QLatin1String(key)), key);
    QVERIFY2(v.type() == type || (nullable && v.isNull()), key);
}

} // namespace

class TestCli : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void inspectDemoFollowsTheContract()
    {
        const Run r = runSlicescope({QStringLiteral("inspect"), QStringLiteral("--demo"), QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.isEmpty(), r.err.constData());
        const QJsonObject doc = r.json();
        const QJsonArray slices = doc.value(QLatin1String("slices")).toArray();
        QVERIFY(slices.size() >= 6);
        for (const QJsonValue &sv : slices) {
            const QJsonObject s = sv.toObject();
            checkType(s, "name", QJsonValue::String);
            checkType(s, "generation", QJsonValue::String, true);
            checkType(s, "topology", QJsonValue::String, true);
            checkType(s, "dims", QJsonValue::Array, true);
            checkType(s, "podType", QJsonValue::String, true);
            for (const char *k : {"chips", "hostCount", "chipsPerHost", "reservedChips"})
                checkType(s, k, QJsonValue::Double);
            checkType(s, "intact", QJsonValue::Bool);
            checkType(s, "source", QJsonValue::String);
            QVERIFY(QStringList({QStringLiteral("ray"), QStringLiteral("kubernetes"), QStringLiteral("both")}).contains(s.value(QLatin1String("source")).toString()));
            checkType(s, "workerGroup", QJsonValue::String, true);
            const QJsonArray hosts = s.value(QLatin1String("hosts")).toArray();
            QCOMPARE(hosts.size(), s.value(QLatin1String("hostCount")).toInt());
            int chips = 0, reserved = 0;
            for (int w = 0; w < hosts.size(); ++w) {
                const QJsonObject h = hosts[w].toObject();
                QCOMPARE(h.value(QLatin1String("workerId")).toInt(), w); // listed by worker id
                QVERIFY(QStringList({QStringLiteral("ALIVE"), QStringLiteral("DEAD"), QStringLiteral("PENDING"), QStringLiteral("MISSING")})
                            .contains(h.value(QLatin1String("state")).toString()));
                checkType(h, "rayNodeId", QJsonValue::String, true);
                checkType(h, "pod", QJsonValue::String, true);
                for (const QJsonValue &cv : h.value(QLatin1String("chips")).toArray()) {
                    const QJsonObject c = cv.toObject();
                    for (const char *k : {"x", "y", "z"})
                        checkType(c, k, QJsonValue::Double);
                    checkType(c, "placementGroup", QJsonValue::String, true);
                    checkType(c, "bundleIndex", QJsonValue::Double, true);
                    ++chips;
                    reserved += c.value(QLatin1String("placementGroup")).isString();
                }
            }
            QCOMPARE(chips, s.value(QLatin1String("chips")).toInt());
            QCOMPARE(reserved, s.value(QLatin1String("reservedChips")).toInt());
        }
        for (const QJsonValue &gv : doc.value(QLatin1String("placementGroups")).toArray()) {
            const QJsonObject g = gv.toObject();
            for (const char *k : {"id", "name", "state"})
                checkType(g, k, QJsonValue::String);
            checkType(g, "slices", QJsonValue::Array);
            for (const QJsonValue &bv : g.value(QLatin1String("bundles")).toArray()) {
                const QJsonObject b = bv.toObject();
                checkType(b, "index", QJsonValue::Double);
                checkType(b, "rayNodeId", QJsonValue::String, true);
                checkType(b, "slice", QJsonValue::String, true);
                checkType(b, "workerId", QJsonValue::Double, true);
                checkType(b, "tpu", QJsonValue::Double);
            }
        }
        const QJsonArray groups = doc.value(QLatin1String("workerGroups")).toArray();
        QCOMPARE(groups.size(), 4);
        for (const QJsonValue &gv : groups) {
            const QJsonObject g = gv.toObject();
            for (const char *k : {"cluster", "group", "accelerator", "topology"})
                checkType(g, k, QJsonValue::String);
            for (const char *k : {"replicas", "minReplicas", "maxReplicas", "numOfHosts", "chipsPerHost"})
                checkType(g, k, QJsonValue::Double);
            checkType(g, "autoscaling", QJsonValue::Bool);
            QCOMPARE(g.value(QLatin1String("slices")).toArray().size(), g.value(QLatin1String("replicas")).toInt());
        }
    }

    void captureFileGivesTheSameAnswerAsTheLiveSource()
    {
        // The one data path: the demo's capture written to a file inspects exactly like the demo.
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("demo.slicescope.json"));
        DemoCluster demo;
        QCOMPARE(writeCaptureFile(path, demo.capture()), QString());
        const Run fromDemo = runSlicescope({QStringLiteral("inspect"), QStringLiteral("--demo"), QStringLiteral("--json")});
        const Run fromFile = runSlicescope({QStringLiteral("inspect"), QStringLiteral("--capture"), path, QStringLiteral("--json")});
        QCOMPARE(fromFile.exitCode, 0);
        QCOMPARE(fromFile.json(), fromDemo.json());
    }

    void plan_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<bool>("feasible");
        QTest::addColumn<int>("candidates");
        QTest::addColumn<QString>("reasonMentions");
        QTest::newRow("two v6e 4x4 fit") << QStringList{QStringLiteral("--topology"), QStringLiteral("4x4"), QStringLiteral("--accelerator"), QStringLiteral("v6e"), QStringLiteral("--num-slices"), QStringLiteral("2")}
                                         << true << 2 << QString();
        QTest::newRow("three do not") << QStringList{QStringLiteral("--topology"), QStringLiteral("4x4"), QStringLiteral("--accelerator"), QStringLiteral("TPU-V6E"), QStringLiteral("--num-slices"), QStringLiteral("3")}
                                      << false << 2 << QStringLiteral("v6e-4x4-3 is degraded");
        QTest::newRow("v4 is held") << QStringList{QStringLiteral("--topology"), QStringLiteral("2x2x2"), QStringLiteral("--accelerator"), QStringLiteral("v4")}
                                    << false << 0 << QStringLiteral("rl-rollout");
        QTest::newRow("v5p fits") << QStringList{QStringLiteral("--topology"), QStringLiteral("4x4x4"), QStringLiteral("--accelerator"), QStringLiteral("v5p")}
                                  << true << 1 << QString();
        QTest::newRow("no 8x8 anywhere") << QStringList{QStringLiteral("--topology"), QStringLiteral("8x8"), QStringLiteral("--accelerator"), QStringLiteral("v6e")}
                                         << false << 0 << QStringLiteral("no worker group makes v6e 8x8");
        QTest::newRow("TPU 8 fits no 4-chip host") << QStringList{QStringLiteral("--topology"), QStringLiteral("4x4"), QStringLiteral("--accelerator"), QStringLiteral("v6e"),
                                                                  QStringLiteral("--tpu-per-bundle"), QStringLiteral("8")}
                                                   << false << 0 << QStringLiteral("a bundle of 8 TPU does not fit on its hosts of 4 chips");
    }

    // plan asks what submit-slice-pg sends: the same bundle options, in the JSON.
    void planWithBundleOptions()
    {
        const Run r = runSlicescope({QStringLiteral("plan"), QStringLiteral("--demo"), QStringLiteral("--json"), QStringLiteral("--topology"), QStringLiteral("4x4"),
                                     QStringLiteral("--accelerator"), QStringLiteral("v6e"), QStringLiteral("--tpu-per-bundle"), QStringLiteral("1"),
                                     QStringLiteral("--cpu-per-bundle"), QStringLiteral("0.5"), QStringLiteral("--strategy"), QStringLiteral("pack")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject request = r.json().value(QLatin1String("request")).toObject();
        QCOMPARE(request.value(QLatin1String("tpuPerBundle")).toInt(), 1);
        QCOMPARE(request.value(QLatin1String("bundlesPerSlice")).toInt(), 16);
        QCOMPARE(request.value(QLatin1String("bundles")).toInt(), 16);
        QCOMPARE(request.value(QLatin1String("hostsPerSlice")).toInt(), 4);
        QCOMPARE(request.value(QLatin1String("strategy")).toString(), QStringLiteral("PACK"));
        QVERIFY(r.json().value(QLatin1String("notes")).isArray());
        const Run text = runSlicescope({QStringLiteral("plan"), QStringLiteral("--demo"), QStringLiteral("--topology"), QStringLiteral("2x4"),
                                        QStringLiteral("--accelerator"), QStringLiteral("v6e"), QStringLiteral("--chips-per-vm"), QStringLiteral("4")});
        QVERIFY2(text.exitCode == 0, text.err.constData());
        QVERIFY2(text.out.contains("2 bundles x {CPU: 1, TPU: 4}"), text.out.constData());
    }

    // Issue 31: two RayClusters, one free v6e 4x4 slice in each. A placement group lives in one
    // Ray cluster: two slices fit in neither and the answer names both; one fits and the answer
    // names the cluster it is for; --ray-cluster plans in that one only.
    void planIsPerRayCluster()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("two.slicescope.json"));
        {
            QFile f(file);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(serializeCapture(testfixture::twoFreeClusterContext(QStringLiteral("gke_eu"))));
        }
        const QStringList shape{QStringLiteral("plan"), QStringLiteral("--capture"), file, QStringLiteral("--topology"), QStringLiteral("4x4"), QStringLiteral("--accelerator"), QStringLiteral("v6e")};
        const Run two = runSlicescope(shape + QStringList{QStringLiteral("--num-slices"), QStringLiteral("2"), QStringLiteral("--json")});
        QVERIFY2(two.exitCode == 0, two.err.constData());
        QCOMPARE(two.json().value(QLatin1String("feasible")).toBool(), false);
        QCOMPARE(two.json().value(QLatin1String("rayCluster")).toString(), QStringLiteral("team-a/llm"));
        QCOMPARE(two.json().value(QLatin1String("clusters")).toArray().size(), 2);
        const QString firstReason = two.json().value(QLatin1String("reasons")).toArray().first().toString();
        QVERIFY2(firstReason.contains(QLatin1String("no single Ray cluster")) && firstReason.contains(QLatin1String("team-a/llm has 1 of the 2"))
                     && firstReason.contains(QLatin1String("team-b/rl has 1")),
                 qPrintable(firstReason));
        const Run twoText = runSlicescope(shape + QStringList{QStringLiteral("--num-slices"), QStringLiteral("2")});
        QVERIFY2(twoText.out.startsWith("does not fit in any single Ray cluster: v6e 4x4 x2\n"), twoText.out.constData());

        const Run one = runSlicescope(shape + QStringList{QStringLiteral("--json")});
        QVERIFY2(one.exitCode == 0, one.err.constData());
        QCOMPARE(one.json().value(QLatin1String("feasible")).toBool(), true);
        QCOMPARE(one.json().value(QLatin1String("wouldTake")).toArray(), QJsonArray{QStringLiteral("team-a/llm/tpu-0")});
        QCOMPARE(one.json().value(QLatin1String("rayCluster")).toString(), QStringLiteral("team-a/llm"));
        QCOMPARE(one.json().value(QLatin1String("context")).toString(), QStringLiteral("gke_eu"));
        const Run oneText = runSlicescope(shape);
        QVERIFY2(oneText.out.startsWith("fits in RayCluster team-a/llm: v6e 4x4 x1 would take team-a/llm/tpu-0\n"), oneText.out.constData());

        const Run named = runSlicescope(shape + QStringList{QStringLiteral("--ray-cluster"), QStringLiteral("gke_eu:team-b/rl"), QStringLiteral("--json")});
        QVERIFY2(named.exitCode == 0, named.err.constData());
        QCOMPARE(named.json().value(QLatin1String("wouldTake")).toArray(), QJsonArray{QStringLiteral("team-b/rl/tpu-0")});
        QCOMPARE(named.json().value(QLatin1String("rayCluster")).toString(), QStringLiteral("team-b/rl"));
        const Run bad = runSlicescope(shape + QStringList{QStringLiteral("--ray-cluster"), QStringLiteral("rl")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("--ray-cluster wants NS/NAME"), bad.err.constData());
    }

    void plan()
    {
        QFETCH(QStringList, args);
        QFETCH(bool, feasible);
        QFETCH(int, candidates);
        QFETCH(QString, reasonMentions);
        const Run r = runSlicescope(QStringList{QStringLiteral("plan"), QStringLiteral("--demo"), QStringLiteral("--json")} + args);
        QCOMPARE(r.exitCode, 0);
        const QJsonObject doc = r.json();
        QCOMPARE(doc.value(QLatin1String("feasible")).toBool(), feasible);
        QCOMPARE(doc.value(QLatin1String("candidates")).toArray().size(), candidates);
        const QJsonArray reasons = doc.value(QLatin1String("reasons")).toArray();
        QCOMPARE(reasons.isEmpty(), feasible);
        if (!reasonMentions.isEmpty()) {
            QString all;
            for (const QJsonValue &v : reasons)
                all += v.toString() + u'\n';
            QVERIFY2(all.contains(reasonMentions), qPrintable(all));
        }
    }

    void recordingTheFastDemoReplaysAsTheDemoAdvanced()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString out = dir.filePath(QStringLiteral("demo.slicescope.jsonl"));
        const Run r = runSlicescope({QStringLiteral("record"), QStringLiteral("--demo"), QStringLiteral("--demo-fast"), QStringLiteral("--demo-advance"), QStringLiteral("5"),
                                     QStringLiteral("--interval"), QStringLiteral("1m"), QStringLiteral("--duration"), QStringLiteral("4m"),
                                     QStringLiteral("-o"), out, QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(r.json().value(QLatin1String("captures")).toInt(), 4);
        const CaptureReadResult read = readCaptureFile(out);
        QVERIFY2(read.ok(), qPrintable(read.error));
        QCOMPARE(read.captures.size(), 4);
        QCOMPARE(qint64(r.json().value(QLatin1String("bytes")).toDouble()), QFileInfo(out).size());
        // Step i is the demo advanced by 5 s and then i minutes, exactly, through the same path.
        DemoCluster demo;
        demo.advance(5000);
        for (int i = 0; i < 4; ++i) {
            if (i > 0)
                demo.advance(60000);
            QCOMPARE(inspectJson(*buildSnapshot(read.captures[i])), inspectJson(*buildSnapshot(demo.capture())));
            QCOMPARE(read.captures[i].capturedAt, demo.now());
        }
        // The demo changed over those minutes (or the comparison above proves little).
        QVERIFY(inspectJson(*buildSnapshot(read.captures[0])) != inspectJson(*buildSnapshot(read.captures[3])));
    }

    void recordDurations_data()
    {
        QTest::addColumn<QStringList>("timing");
        QTest::addColumn<int>("captures");
        QTest::newRow("500ms over 1.5s") << QStringList{QStringLiteral("--interval"), QStringLiteral("500ms"), QStringLiteral("--duration"), QStringLiteral("1500ms")} << 3;
        QTest::newRow("2s over 1m") << QStringList{QStringLiteral("--interval"), QStringLiteral("2s"), QStringLiteral("--duration"), QStringLiteral("1m")} << 30;
        QTest::newRow("duration shorter than interval") << QStringList{QStringLiteral("--interval"), QStringLiteral("1m"), QStringLiteral("--duration"), QStringLiteral("2s")} << 1;
    }

    void recordDurations()
    {
        QFETCH(QStringList, timing);
        QFETCH(int, captures);
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("d.slicescope.jsonl"));
        const Run r = runSlicescope(QStringList{QStringLiteral("record"), QStringLiteral("--demo"), QStringLiteral("--demo-fast"), QStringLiteral("-o"), out, QStringLiteral("--json")} + timing);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(r.json().value(QLatin1String("captures")).toInt(), captures);
    }

    void recordCopiesACaptureFile()
    {
        QTemporaryDir dir;
        const QString first = dir.filePath(QStringLiteral("a.slicescope.jsonl")), copy = dir.filePath(QStringLiteral("b.slicescope.jsonl"));
        QCOMPARE(runSlicescope({QStringLiteral("record"), QStringLiteral("--demo"), QStringLiteral("--demo-fast"), QStringLiteral("--interval"), QStringLiteral("1s"),
                                QStringLiteral("--duration"), QStringLiteral("2s"), QStringLiteral("-o"), first})
                     .exitCode,
                 0);
        const Run r = runSlicescope({QStringLiteral("record"), QStringLiteral("--capture"), first, QStringLiteral("-o"), copy});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QFile a(first), b(copy);
        QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
        QCOMPARE(b.readAll(), a.readAll());
    }

    void exitCodes_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("stderrMentions");
        QTest::newRow("no source") << QStringList{QStringLiteral("inspect"), QStringLiteral("--json")} << 2 << QStringLiteral("needs a SOURCE");
        QTest::newRow("unknown option") << QStringList{QStringLiteral("inspect"), QStringLiteral("--demo"), QStringLiteral("--frobnicate")} << 2 << QStringLiteral("frobnicate");
        QTest::newRow("two sources") << QStringList{QStringLiteral("inspect"), QStringLiteral("--demo"), QStringLiteral("--capture"), QStringLiteral("x.json")} << 2 << QStringLiteral("one source");
        QTest::newRow("unknown verb") << QStringList{QStringLiteral("frob"), QStringLiteral("--demo")} << 2 << QStringLiteral("frob");
        QTest::newRow("plan without topology") << QStringList{QStringLiteral("plan"), QStringLiteral("--demo"), QStringLiteral("--accelerator"), QStringLiteral("v6e")} << 2 << QStringLiteral("--topology");
        QTest::newRow("plan invalid topology") << QStringList{QStringLiteral("plan"), QStringLiteral("--demo"), QStringLiteral("--accelerator"), QStringLiteral("v6e"), QStringLiteral("--topology"), QStringLiteral("3x3")} << 2 << QStringLiteral("3x3 is not a v6e topology");
        QTest::newRow("plan unknown accelerator") << QStringList{QStringLiteral("plan"), QStringLiteral("--demo"), QStringLiteral("--accelerator"), QStringLiteral("v9z"), QStringLiteral("--topology"), QStringLiteral("4x4")} << 2 << QStringLiteral("v9z");
        QTest::newRow("plan zero slices") << QStringList{QStringLiteral("plan"), QStringLiteral("--demo"), QStringLiteral("--accelerator"), QStringLiteral("v6e"), QStringLiteral("--topology"), QStringLiteral("4x4"), QStringLiteral("--num-slices"), QStringLiteral("0")} << 2 << QStringLiteral("--num-slices");
        QTest::newRow("plan TPU not dividing the slice") << QStringList{QStringLiteral("plan"), QStringLiteral("--demo"), QStringLiteral("--accelerator"), QStringLiteral("v6e"), QStringLiteral("--topology"), QStringLiteral("4x4"), QStringLiteral("--tpu-per-bundle"), QStringLiteral("3")} << 2 << QStringLiteral("Ray refuses this request: Total TPU resources (16) not divisible by TPUs requested per worker (3).");
        QTest::newRow("plan no such VM size") << QStringList{QStringLiteral("plan"), QStringLiteral("--demo"), QStringLiteral("--accelerator"), QStringLiteral("v6e"), QStringLiteral("--topology"), QStringLiteral("2x2"), QStringLiteral("--chips-per-vm"), QStringLiteral("8")} << 2 << QStringLiteral("chips per VM 8 does not fit a v6e 2x2");
        QTest::newRow("plan chips per VM zero") << QStringList{QStringLiteral("plan"), QStringLiteral("--demo"), QStringLiteral("--accelerator"), QStringLiteral("v6e"), QStringLiteral("--topology"), QStringLiteral("4x4"), QStringLiteral("--chips-per-vm"), QStringLiteral("0")} << 2 << QStringLiteral("--chips-per-vm wants a whole number");
        QTest::newRow("submit TPU not dividing the slice") << QStringList{QStringLiteral("submit-slice-pg"), QStringLiteral("--ray"), QStringLiteral("http://127.0.0.1:1"), QStringLiteral("--accelerator"), QStringLiteral("v6e"), QStringLiteral("--topology"), QStringLiteral("4x4"), QStringLiteral("--name"), QStringLiteral("x"), QStringLiteral("--tpu-per-bundle"), QStringLiteral("5")} << 2 << QStringLiteral("not divisible by TPUs requested per worker (5)");
        QTest::newRow("ray URL not http") << QStringList{QStringLiteral("inspect"), QStringLiteral("--ray"), QStringLiteral("ftp://head:8265")} << 2 << QStringLiteral("http:// or https://");
        QTest::newRow("ray URL with credentials") << QStringList{QStringLiteral("inspect"), QStringLiteral("--ray"), QStringLiteral("http://me:pw@head:8265")} << 2 << QStringLiteral("--ray-token-file");
        QTest::newRow("missing kubeconfig") << QStringList{QStringLiteral("inspect"), QStringLiteral("--kubeconfig"), QStringLiteral("/nonexistent/kubeconfig")} << 1 << QStringLiteral("/nonexistent/kubeconfig does not exist");
        QTest::newRow("scale without Kubernetes") << QStringList{QStringLiteral("scale"), QStringLiteral("--demo"), QStringLiteral("--cluster"), QStringLiteral("c"), QStringLiteral("--group"), QStringLiteral("g"), QStringLiteral("--replicas"), QStringLiteral("1")} << 2 << QStringLiteral("needs --kubeconfig");
        QTest::newRow("scale two modes") << QStringList{QStringLiteral("scale"), QStringLiteral("--kubeconfig"), QStringLiteral("/nonexistent/k"), QStringLiteral("--cluster"), QStringLiteral("c"), QStringLiteral("--group"), QStringLiteral("g"), QStringLiteral("--replicas"), QStringLiteral("1"), QStringLiteral("--remove-slice"), QStringLiteral("s")} << 2 << QStringLiteral("say one of");
        QTest::newRow("missing token file") << QStringList{QStringLiteral("plan"), QStringLiteral("--ray"), QStringLiteral("127.0.0.1:1"), QStringLiteral("--ray-token-file"), QStringLiteral("/nonexistent/token"), QStringLiteral("--topology"), QStringLiteral("4x4"), QStringLiteral("--accelerator"), QStringLiteral("v6e")} << 1 << QStringLiteral("cannot read --ray-token-file /nonexistent/token (");
        QTest::newRow("missing file") << QStringList{QStringLiteral("inspect"), QStringLiteral("--capture"), QStringLiteral("/nonexistent/x.slicescope.json")} << 1 << QStringLiteral("/nonexistent/x.slicescope.json: cannot read the file (");
        // Issue 13: every name that reaches a request path is checked first (exit 2, naming the
        // flag and the rule): `-n ..` turned a namespaced LIST into a cluster-wide one.
        const QStringList kube{QStringLiteral("inspect"), QStringLiteral("--kubeconfig"), QStringLiteral("/nonexistent/k")};
        QTest::newRow("-n ..") << kube + QStringList{QStringLiteral("-n"), QStringLiteral("..")} << 2
                               << QStringLiteral("-n/--namespace \"..\" must be a DNS-1123 label: 1 to 63 lowercase letters, digits or '-', starting and ending with a letter or digit");
        QTest::newRow("-n a/b") << kube + QStringList{QStringLiteral("-n"), QStringLiteral("a/b")} << 2 << QStringLiteral("-n/--namespace \"a/b\" must be a DNS-1123 label");
        QTest::newRow("--namespace with a newline") << kube + QStringList{QStringLiteral("--namespace"), QStringLiteral("a\nb")} << 2
                                                    << QStringLiteral("-n/--namespace \"a\\nb\" must be");
        QTest::newRow("-n empty") << kube + QStringList{QStringLiteral("-n"), QString()} << 2 << QStringLiteral("-n/--namespace \"\" must be");
        const QStringList scale{QStringLiteral("scale"), QStringLiteral("--kubeconfig"), QStringLiteral("/nonexistent/k"), QStringLiteral("--replicas"), QStringLiteral("1")};
        QTest::newRow("scale --cluster ..") << scale + QStringList{QStringLiteral("--cluster"), QStringLiteral(".."), QStringLiteral("--group"), QStringLiteral("g")} << 2
                                            << QStringLiteral("--cluster \"..\" must be a DNS-1123 subdomain");
        QTest::newRow("scale --cluster a/b") << scale + QStringList{QStringLiteral("--cluster"), QStringLiteral("a/b"), QStringLiteral("--group"), QStringLiteral("g")} << 2
                                             << QStringLiteral("--cluster \"a/b\" must be a DNS-1123 subdomain");
        QTest::newRow("scale --group with a space") << scale + QStringList{QStringLiteral("--cluster"), QStringLiteral("c"), QStringLiteral("--group"), QStringLiteral("a b")} << 2
                                                    << QStringLiteral("--group \"a b\" must be a Kubernetes label value");
        QTest::newRow("bad --timeout") << QStringList{QStringLiteral("inspect"), QStringLiteral("--ray"), QStringLiteral("127.0.0.1:1"), QStringLiteral("--timeout"), QStringLiteral("soon")} << 2
                                       << QStringLiteral("--timeout wants seconds");
        // The changing verbs check the request before touching any cluster: port 1 has no dashboard,
        // so reaching it would fail with "connection refused", not with the usage line.
        const QStringList submit{QStringLiteral("submit-slice-pg"), QStringLiteral("--ray"), QStringLiteral("127.0.0.1:1"), QStringLiteral("--accelerator"), QStringLiteral("v6e"), QStringLiteral("--name"), QStringLiteral("n")};
        QTest::newRow("submit invalid topology") << submit + QStringList{QStringLiteral("--topology"), QStringLiteral("3x3")} << 2 << QStringLiteral("3x3 is not a v6e topology");
        QTest::newRow("submit without name") << QStringList{QStringLiteral("submit-slice-pg"), QStringLiteral("--ray"), QStringLiteral("127.0.0.1:1"), QStringLiteral("--accelerator"), QStringLiteral("v6e"), QStringLiteral("--topology"), QStringLiteral("4x4")} << 2 << QStringLiteral("--name NAME");
        QTest::newRow("submit bad wait") << submit + QStringList{QStringLiteral("--topology"), QStringLiteral("4x4"), QStringLiteral("--wait"), QStringLiteral("soon")} << 2 << QStringLiteral("--wait");
        QTest::newRow("submit bad strategy") << submit + QStringList{QStringLiteral("--topology"), QStringLiteral("4x4"), QStringLiteral("--strategy"), QStringLiteral("RANDOM")} << 2 << QStringLiteral("--strategy");
        QTest::newRow("submit to a demo") << QStringList{QStringLiteral("submit-slice-pg"), QStringLiteral("--demo"), QStringLiteral("--accelerator"), QStringLiteral("v6e"), QStringLiteral("--topology"), QStringLiteral("4x4"), QStringLiteral("--name"), QStringLiteral("n")} << 2 << QStringLiteral("needs --ray URL");
        QTest::newRow("submit, no dashboard") << submit + QStringList{QStringLiteral("--topology"), QStringLiteral("4x4")} << 1 << QStringLiteral("connection refused");
        QTest::newRow("release without a name") << QStringList{QStringLiteral("release-pg"), QStringLiteral("--ray"), QStringLiteral("127.0.0.1:1")} << 2 << QStringLiteral("NAME");
        QTest::newRow("release two names") << QStringList{QStringLiteral("release-pg"), QStringLiteral("--ray"), QStringLiteral("127.0.0.1:1"), QStringLiteral("a"), QStringLiteral("b")} << 2 << QStringLiteral("\"b\"");
        QTest::newRow("record without output") << QStringList{QStringLiteral("record"), QStringLiteral("--demo")} << 2 << QStringLiteral("-o FILE");
        QTest::newRow("record bad interval") << QStringList{QStringLiteral("record"), QStringLiteral("--demo"), QStringLiteral("--interval"), QStringLiteral("2 fortnights"), QStringLiteral("-o"), QStringLiteral("/tmp/x")} << 2 << QStringLiteral("--interval");
        QTest::newRow("record bad duration") << QStringList{QStringLiteral("record"), QStringLiteral("--demo"), QStringLiteral("--duration"), QStringLiteral("-1s"), QStringLiteral("-o"), QStringLiteral("/tmp/x")} << 2 << QStringLiteral("--duration");
        // Issue 13 (UBSan): converting these to milliseconds overflowed a qint64.
        QTest::newRow("record absurd duration") << QStringList{QStringLiteral("record"), QStringLiteral("--demo"), QStringLiteral("--duration"), QStringLiteral("1e30s"), QStringLiteral("-o"), QStringLiteral("/tmp/x")} << 2 << QStringLiteral("--duration");
        QTest::newRow("record infinite interval") << QStringList{QStringLiteral("record"), QStringLiteral("--demo"), QStringLiteral("--interval"), QStringLiteral("inf"), QStringLiteral("-o"), QStringLiteral("/tmp/x")} << 2 << QStringLiteral("--interval");
        QTest::newRow("record, no dashboard") << QStringList{QStringLiteral("record"), QStringLiteral("--ray"), QStringLiteral("127.0.0.1:1"), QStringLiteral("-o"), QStringLiteral("/tmp/slicescope-tst-cli-dead.jsonl")} << 1 << QStringLiteral("kept the 0 capture(s)");
        QTest::newRow("release from a capture") << QStringList{QStringLiteral("release-pg"), QStringLiteral("--demo"), QStringLiteral("a")} << 2 << QStringLiteral("needs --ray URL");
    }

    void exitCodes()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, stderrMentions);
        const Run r = runSlicescope(args);
        QCOMPARE(r.exitCode, exitCode);
        QVERIFY(r.out.isEmpty());
        const QString err = QString::fromUtf8(r.err).trimmed();
        QVERIFY2(!err.contains(u'\n'), qPrintable(err)); // one clear line
        QVERIFY2(err.startsWith(QLatin1String("slicescope: ")) && err.contains(stderrMentions), qPrintable(err));
    }

    void screenshotWritesThePng()
    {
        QTemporaryDir dir;
        const QString png = dir.filePath(QStringLiteral("v5p.png"));
        const Run r = runSlicescope({QStringLiteral("screenshot"), QStringLiteral("--demo"), QStringLiteral("--view"), QStringLiteral("slice:v5p-4x4x4-0"),
                                     QStringLiteral("--color"), QStringLiteral("state"), QStringLiteral("--size"), QStringLiteral("900x600"),
                                     QStringLiteral("-o"), png});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QImage image(png);
        QCOMPARE(image.size(), QSize(900, 600));
        // Not blank: a slice view has many colours.
        QSet<QRgb> colors;
        for (int y = 0; y < image.height(); y += 7)
            for (int x = 0; x < image.width(); x += 7)
                colors.insert(image.pixel(x, y));
        QVERIFY2(colors.size() > 20, qPrintable(QString::number(colors.size())));
    }

    void screenshotBadUsage_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("stderrMentions");
        QTest::newRow("unknown slice") << QStringList{QStringLiteral("--view"), QStringLiteral("slice:nope")} << QStringLiteral("v6e-4x4-0");
        QTest::newRow("unknown view") << QStringList{QStringLiteral("--view"), QStringLiteral("sideways")} << QStringLiteral("sideways");
        QTest::newRow("bad colour") << QStringList{QStringLiteral("--color"), QStringLiteral("pink")} << QStringLiteral("pink");
        QTest::newRow("bad size") << QStringList{QStringLiteral("--size"), QStringLiteral("10x10")} << QStringLiteral("--size");
    }

    void screenshotBadUsage()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, stderrMentions);
        QTemporaryDir dir;
        const Run r = runSlicescope(QStringList{QStringLiteral("screenshot"), QStringLiteral("--demo"), QStringLiteral("-o"), dir.filePath(QStringLiteral("x.png"))} + args);
        QCOMPARE(r.exitCode, 2);
        const QString err = QString::fromUtf8(r.err).trimmed();
        QVERIFY2(err.startsWith(QLatin1String("slicescope: ")) && err.contains(stderrMentions) && !err.contains(u'\n'), qPrintable(err));
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("x.png"))));
    }

    void malformedCaptureNamesFileAndBody()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bad.slicescope.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        // Container well formed, the nodes body inside is not what the state API returns.
        f.write(R"({"format": "slicescope-capture/1", "ray": {"nodes": {"result": true, "data": {"result": "oops"}}}})");
        f.close();
        const Run r = runSlicescope({QStringLiteral("inspect"), QStringLiteral("--capture"), path, QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 1);
        const QString err = QString::fromUtf8(r.err).trimmed();
        QVERIFY2(err.contains(path) && err.contains(QLatin1String("ray.nodes")) && err.contains(QLatin1String("data.result")), qPrintable(err));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
