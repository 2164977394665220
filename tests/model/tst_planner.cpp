// SPDX-License-Identifier: GPL-3.0-or-later
// planSlicePlacement() over snapshots built by buildSnapshot() from captures written here.
// Reasons are checked for their substance (slice names, groups, numbers), never as whole sentences,
// so wording can improve without breaking the tests.

#include "capturefixture.h"
#include "fleetcapturefixture.h"
#include "inspectjson.h"
#include "planner.h"
#include "snapshot.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>
#include <QTest>

using namespace slicescope;
using namespace slicescope::testfixture;

namespace {

QString pgId(const QString &seed) { return hexId(QStringLiteral("pg/") + seed, 36); }

// The cluster most rows plan against. Namespace "ml":
//   RayCluster ray-v6e (no autoscaling):
//     tpu-a    v6e 4x4, 4 hosts x 4 chips, replicas 6, max 8  -> can add 2
//     wide     v6e 2x8, 4 hosts x 4 chips, replicas 1, max 1
//     lite     v5e 2x4, 1 host x 8 chips,  replicas 1, max 1  -> at max
//     cpu      no TPU
//   RayCluster ray-auto (enableInTreeAutoscaling):
//     ironwood v7x 2x2x2, 2 hosts x 4 chips, replicas 1, max 3 -> the autoscaler may add 2
// Slices (Ray):
//   tpu-a-0, tpu-a-1  v6e 4x4 ready (a REMOVED placement group still lists tpu-a-1's nodes)
//   tpu-a-2           v6e 4x4, all 16 chips held by placement group "train"
//   tpu-a-3           v6e 4x4, head resource held by the head placement group "sweep-head"
//   tpu-a-4           v6e 4x4, worker 2 DEAD
//   tpu-a-5           v6e 4x4, worker 3 missing
//   wide-0            v6e 2x8 (pod type v6e-16 like 4x4)
//   lite-0            v5e 2x4 on one 8-chip host, ready
//   ironwood-0        v7x 2x2x2 ready
//   v4-0              v4 2x2x2 ready; no worker group makes v4 slices
SnapshotPtr mixedCluster(bool withKubernetes = true)
{
    CaptureBuilder b;
    b.addHeadNode(hexId(QStringLiteral("head"), 56), QStringLiteral("10.0.0.2"));
    auto v6e = [&](const QString &name, QList<int> dead = {}, QList<int> missing = {}) {
        return b.addSlice({name, QStringLiteral("TPU-V6E"), QStringLiteral("v6e-16"), QStringLiteral("4x4"), QStringLiteral("tpu-a"), 4, 4, dead, missing, {}, {}});
    };
    v6e(QStringLiteral("tpu-a-0"));
    const QStringList a1 = v6e(QStringLiteral("tpu-a-1"));
    const QStringList a2 = v6e(QStringLiteral("tpu-a-2"));
    const QStringList a3 = v6e(QStringLiteral("tpu-a-3"));
    v6e(QStringLiteral("tpu-a-4"), {2});
    v6e(QStringLiteral("tpu-a-5"), {}, {3});
    b.addSlice({QStringLiteral("wide-0"), QStringLiteral("TPU-V6E"), QStringLiteral("v6e-16"), QStringLiteral("2x8"), QStringLiteral("wide"), 4, 4, {}, {}, {}, {}});
    b.addSlice({QStringLiteral("lite-0"), QStringLiteral("TPU-V5LITEPOD"), QStringLiteral("v5litepod-8"), QStringLiteral("2x4"), QStringLiteral("lite"), 1, 8, {}, {}, {}, {}});
    b.addSlice({QStringLiteral("ironwood-0"), QStringLiteral("TPU-V7X"), QStringLiteral("v7x-16"), QStringLiteral("2x2x2"), QStringLiteral("ironwood"), 2, 4, {}, {}, {}, {}});
    b.addSlice({QStringLiteral("v4-0"), QStringLiteral("TPU-V4"), QStringLiteral("v4-16"), QStringLiteral("2x2x2"), QStringLiteral("v4"), 2, 4, {}, {}, {}, {}});

    b.addSlicePlacementGroup(pgId(QStringLiteral("old")), QStringLiteral("old-train"), QStringLiteral("tpu-a-1"), a1, 4,
                             QStringLiteral("REMOVED"));
    b.addSlicePlacementGroup(pgId(QStringLiteral("train")), QStringLiteral("train"), QStringLiteral("tpu-a-2"), a2, 4);
    b.addHeadPlacementGroup(pgId(QStringLiteral("sweep")), QStringLiteral("sweep-head"), QStringLiteral("v6e-16"), a3[0]);

    const QString v6eGke = QStringLiteral("tpu-v6e-slice");
    b.addRayCluster(QStringLiteral("ml"), QStringLiteral("ray-v6e"), false,
                    {CaptureBuilder::workerGroup(QStringLiteral("tpu-a"), 6, 0, 8, 4, v6eGke, QStringLiteral("4x4"), 4),
                     CaptureBuilder::workerGroup(QStringLiteral("wide"), 1, 0, 1, 4, v6eGke, QStringLiteral("2x8"), 4),
                     CaptureBuilder::workerGroup(QStringLiteral("lite"), 1, 1, 1, 1, QStringLiteral("tpu-v5-lite-podslice"),
                                                 QStringLiteral("2x4"), 8),
                     CaptureBuilder::workerGroup(QStringLiteral("cpu"), 2, 0, 4, 1, {}, {}, 0)});
    b.addRayCluster(QStringLiteral("ml"), QStringLiteral("ray-auto"), true,
                    {CaptureBuilder::workerGroup(QStringLiteral("ironwood"), 1, 0, 3, 2, QStringLiteral("tpu7x"),
                                                 QStringLiteral("2x2x2"), 4)});
    return buildSnapshot(b.capture(withKubernetes));
}

// True when one reason holds every needle as a whole token ("tpu-a-1" does not match "tpu-a-10",
// "2" does not match "12").
bool hasReason(const QStringList &reasons, const QStringList &needles)
{
    for (const QString &r : reasons) {
        bool all = true;
        for (const QString &n : needles) {
            const QRegularExpression token(QStringLiteral("(?<![\\w.-])%1(?![\\w-])").arg(QRegularExpression::escape(n)));
            all = all && token.match(r).hasMatch();
        }
        if (all)
            return true;
    }
    return false;
}

QString growthText(const PlanResult &r)
{
    QStringList parts;
    for (const GroupGrowth &g : r.growth)
        parts << QStringLiteral("%1 %2/%3 +%4%5").arg(g.workerGroup).arg(g.replicas).arg(g.maxReplicas).arg(g.canAdd).arg(g.autoscaling ? QStringLiteral(" auto") : QString());
    return parts.join(QStringLiteral(", "));
}

using Needles = QList<QStringList>;

QStringList words(std::initializer_list<const char *> list)
{
    QStringList out;
    for (const char *w : list)
        out << QString::fromUtf8(w);
    return out;
}

Needles needles(std::initializer_list<std::initializer_list<const char *>> lists)
{
    Needles out;
    for (const auto &l : lists)
        out << words(l);
    return out;
}

} // namespace

Q_DECLARE_METATYPE(Needles)

class TestPlanner : public QObject
{
    Q_OBJECT

private slots:
    void fixtureIsWhatTheTestsAssume();
    void plan_data();
    void plan();
    void requestErrors_data();
    void requestErrors();
    void bundles_data();
    void bundles();
    void headPlacementGroup_data();
    void headPlacementGroup();
    void rayOnlyGivesNoGroupAdvice();
    void suspendedAndUnboundedGroups();
    void kubernetesOnlySliceOfAnotherClusterIsNoCandidate();
    void planJsonHasTheContractKeys();
    // Issue 31: a placement group lives in one Ray cluster.
    void twoSlicesInTwoClustersFitInNone();
    void oneSliceIsPlannedWithinOneCluster();
    void aNamedClusterIsTheOnlyOneUsed();
    void aNameInTwoContextsNeverJoinsThem();
    void oneClusterPlansAsBefore();
};

// Guards the fixture: if the snapshot builder read it differently, the plan rows would mislead.
void TestPlanner::fixtureIsWhatTheTestsAssume()
{
    const SnapshotPtr snap = mixedCluster();
    QVERIFY2(snap->errors.isEmpty(), qPrintable(snap->errors.join(u'\n')));
    QStringList status;
    for (const Slice &s : snap->slices)
        status << s.name + u'=' + toText(s.status());
    QCOMPARE(status.join(u' '), QStringLiteral("ironwood-0=ready lite-0=ready tpu-a-0=ready tpu-a-1=ready tpu-a-2=reserved "
                                               "tpu-a-3=reserved tpu-a-4=degraded tpu-a-5=degraded v4-0=ready wide-0=ready"));
    // REMOVED groups are dropped, so only "train" and "sweep-head" remain.
    QCOMPARE(snap->placementGroups.size(), 2);
    QCOMPARE(snap->workerGroups.size(), 5);
}

void TestPlanner::plan_data()
{
    QTest::addColumn<QString>("accelerator");
    QTest::addColumn<QString>("topology");
    QTest::addColumn<int>("numSlices");
    QTest::addColumn<bool>("feasible");
    QTest::addColumn<QString>("candidates");
    QTest::addColumn<QString>("wouldTake");
    QTest::addColumn<QString>("growth");   // "group replicas/max +canAdd [auto]"
    QTest::addColumn<Needles>("reasons");  // each: one reason holds all of these tokens
    QTest::addColumn<QStringList>("absent"); // tokens no reason may hold

    const QString twoReady = QStringLiteral("tpu-a-0, tpu-a-1");

    QTest::newRow("v6e 4x4, one slice")
        << "v6e" << "4x4" << 1 << true << twoReady << "tpu-a-0" << "ml/ray-v6e/tpu-a 6/8 +2" << needles({}) << words({});
    QTest::newRow("TPU-V6E 4x4, two slices")
        << "TPU-V6E" << "4x4" << 2 << true << twoReady << twoReady << "ml/ray-v6e/tpu-a 6/8 +2" << needles({}) << words({});

    // Three wanted, two ready: every other 4x4 slice explains itself; tpu-a can add the one missing.
    QTest::newRow("v6e 4x4, three slices")
        << "v6e" << "4x4" << 3 << false << twoReady << twoReady << "ml/ray-v6e/tpu-a 6/8 +2"
        << needles({{"3", "v6e 4x4", "v6e-16", "4 hosts", "4 chips", "tpu-a-0", "tpu-a-1"},
                    {"4 of 6", "v6e 4x4"},
                    {"tpu-a-2", "16 of 16", "train"},
                    {"tpu-a-3", "sweep-head"},
                    {"tpu-a-4", "worker 2", "DEAD"},
                    {"tpu-a-5", "worker 3", "MISSING"},
                    {"wide-0", "2x8", "v6e-16"},
                    {"ml/ray-v6e/tpu-a", "2", "6", "8"}})
        << words({"ml/ray-v6e/wide", "ml/ray-v6e/lite", "ml/ray-auto/ironwood", "ironwood-0", "lite-0", "v4-0", "old-train"});

    // Five wanted: 3 missing, but tpu-a can only grow by 2 before maxReplicas.
    QTest::newRow("v6e 4x4, five slices")
        << "v6e" << "4x4" << 5 << false << twoReady << twoReady << "ml/ray-v6e/tpu-a 6/8 +2"
        << needles({{"5", "v6e 4x4"}, {"ml/ray-v6e/tpu-a", "2", "8"}, {"maxReplicas", "2", "3"}}) << words({});

    QTest::newRow("v5litepod 2x4, two slices: group at max")
        << "v5litepod" << "2x4" << 2 << false << "lite-0" << "lite-0" << "ml/ray-v6e/lite 1/1 +0"
        << needles({{"2", "v5e 2x4", "v5litepod-8", "1 host", "8 chips", "lite-0"}, {"ml/ray-v6e/lite", "maxReplicas", "1"}, {"maxReplicas", "0", "1"}})
        << words({"ml/ray-v6e/tpu-a", "tpu-a-0"});
    QTest::newRow("TPU-V5LITEPOD 2x4, one slice")
        << "TPU-V5LITEPOD" << "2x4" << 1 << true << "lite-0" << "lite-0" << "ml/ray-v6e/lite 1/1 +0" << needles({}) << words({});

    // The Ray autoscaler owns replicas of ray-auto: say so rather than suggest a scale.
    QTest::newRow("tpu7x 2x2x2, three slices: autoscaled group")
        << "tpu7x" << "2x2x2" << 3 << false << "ironwood-0" << "ironwood-0" << "ml/ray-auto/ironwood 1/3 +2 auto"
        << needles({{"3", "v7x 2x2x2", "v7x-16", "2 hosts", "ironwood-0"}, {"ml/ray-auto/ironwood", "autoscaled", "2", "1", "3"}})
        << words({"even"});

    QTest::newRow("v4 2x2x2, two slices: no worker group")
        << "v4" << "2x2x2" << 2 << false << "v4-0" << "v4-0" << ""
        << needles({{"2", "v4 2x2x2", "v4-16", "v4-0"},
                    {"no worker group", "v4 2x2x2", "numOfHosts 2", "google.com/tpu 4", "tpu-v4-podslice", "2x2x2"}})
        << words({"ml/ray-v6e/tpu-a"});
    QTest::newRow("v4 2x2x2, one slice") << "v4" << "2x2x2" << 1 << true << "v4-0" << "v4-0" << "" << needles({}) << words({});

    // No slice of the shape at all; v6e 8x8 is 64 chips = 16 hosts of 4.
    QTest::newRow("v6e 8x8: none exists")
        << "v6e" << "8x8" << 1 << false << "" << "" << ""
        << needles({{"v6e 8x8", "v6e-64", "16 hosts"}, {"no", "v6e 8x8", "exists"}, {"no worker group", "numOfHosts 16", "google.com/tpu 4", "tpu-v6e-slice", "8x8"}})
        << words({"tpu-a-0", "wide-0"});
    // Same chips as a v6e 2x4 slice would have, other generation: v5e is not v6e.
    QTest::newRow("v6e 2x4: the v5e slice does not count")
        << "v6e" << "2x4" << 1 << false << "" << "" << ""
        << needles({{"v6e 2x4", "v6e-8", "1", "8 chips"}, {"no worker group", "numOfHosts 1", "google.com/tpu 8"}})
        << words({"lite-0", "ml/ray-v6e/lite"});
}

void TestPlanner::plan()
{
    QFETCH(QString, accelerator);
    QFETCH(QString, topology);
    QFETCH(int, numSlices);
    QFETCH(bool, feasible);
    QFETCH(QString, candidates);
    QFETCH(QString, wouldTake);
    QFETCH(QString, growth);
    QFETCH(Needles, reasons);
    QFETCH(QStringList, absent);

    static const SnapshotPtr snap = mixedCluster();
    const PlanResult r = planSlicePlacement(*snap, PlanRequest{accelerator, topology, numSlices});
    const QByteArray all = r.reasons.join(u'\n').toUtf8();
    QVERIFY2(r.requestError.isEmpty(), qPrintable(r.requestError));
    QCOMPARE(r.feasible, feasible);
    QCOMPARE(r.candidates.join(QStringLiteral(", ")), candidates);
    QCOMPARE(r.wouldTake.join(QStringLiteral(", ")), wouldTake);
    QCOMPARE(growthText(r), growth);
    QCOMPARE(r.numSlices, numSlices);
    QCOMPARE(r.podType, tpu::podType(*r.generation, r.topology));
    if (feasible)
        QVERIFY2(r.reasons.isEmpty(), all.constData());
    else
        QVERIFY(!r.reasons.isEmpty());
    for (const QStringList &needles : reasons)
        QVERIFY2(hasReason(r.reasons, needles),
                 qPrintable(QStringLiteral("no reason holds [%1] in:\n%2").arg(needles.join(QStringLiteral(", ")), QString::fromUtf8(all))));
    // A heading line ("4 of 6 ... are not ready:") always has its details under it.
    for (qsizetype i = 0; i < r.reasons.size(); ++i)
        if (r.reasons[i].endsWith(u':'))
            QVERIFY2(i + 1 < r.reasons.size() && r.reasons[i + 1].startsWith(QLatin1String("  ")),
                     qPrintable(QStringLiteral("heading without details: ") + r.reasons[i]));
    for (const QString &token : absent)
        QVERIFY2(!hasReason(r.reasons, {token}), qPrintable(QStringLiteral("%1 should not be mentioned:\n%2").arg(token, QString::fromUtf8(all))));
}

void TestPlanner::requestErrors_data()
{
    QTest::addColumn<QString>("accelerator");
    QTest::addColumn<QString>("topology");
    QTest::addColumn<int>("numSlices");
    QTest::addColumn<QString>("mentions");

    QTest::newRow("unknown accelerator") << "v9" << "4x4" << 1 << "v9";
    QTest::newRow("a GPU") << "nvidia-l4" << "4x4" << 1 << "nvidia-l4";
    QTest::newRow("no accelerator") << "" << "4x4" << 1 << "v6e"; // the error lists the known ones
    QTest::newRow("not a topology") << "v6e" << "4by4" << 1 << "4by4";
    QTest::newRow("empty topology") << "v6e" << "" << 1 << "AxB";
    QTest::newRow("3D topology for v6e") << "v6e" << "4x4x4" << 1 << "2D";
    QTest::newRow("2D topology for v4") << "v4" << "4x4" << 1 << "3D";
    // Ray 2.60 accepts v6e 2x8 and v4 8x4x4 (docs/facts.md 3), so the planner does too.
    QTest::newRow("v6e 2x4x1 is no 2D topology") << "v6e" << "2x4x1" << 1 << "AxB";
    QTest::newRow("v5p axis not a multiple of 4") << "v5p" << "4x4x6" << 1 << "multiple of 4";
    QTest::newRow("v7x axes out of order") << "v7x" << "8x4x4" << 1 << "4x4x8";
    QTest::newRow("v7x beyond Ray's largest") << "v7x" << "24x24x24" << 1 << "8x16x16";
    QTest::newRow("zero slices") << "v6e" << "4x4" << 0 << "1";
    QTest::newRow("negative slices") << "v6e" << "4x4" << -2 << "1";
}

void TestPlanner::requestErrors()
{
    QFETCH(QString, accelerator);
    QFETCH(QString, topology);
    QFETCH(int, numSlices);
    QFETCH(QString, mentions);
    static const SnapshotPtr snap = mixedCluster();
    const PlanResult r = planSlicePlacement(*snap, PlanRequest{accelerator, topology, numSlices});
    QVERIFY(!r.requestError.isEmpty());
    QVERIFY2(r.requestError.contains(mentions), qPrintable(r.requestError));
    QVERIFY(!r.feasible);
    QVERIFY(r.candidates.isEmpty());
    QVERIFY(r.wouldTake.isEmpty());
    QVERIFY(r.reasons.isEmpty());
}

// Bundles as Ray 2.60's slice_placement_group builds them (ray/util/tpu.py, get_tpu_worker_resources):
// chips / TPU-per-bundle per slice, hosts by chips_per_vm, what Ray refuses in its words, and
// whether the ready slices' real hosts (8 CPU each in this fixture) hold them.
void TestPlanner::bundles_data()
{
    QTest::addColumn<QString>("accelerator");
    QTest::addColumn<QString>("topology");
    QTest::addColumn<int>("numSlices");
    QTest::addColumn<int>("tpuPerBundle");
    QTest::addColumn<int>("chipsPerVm");
    QTest::addColumn<QString>("strategy");
    QTest::addColumn<double>("cpu");
    QTest::addColumn<QString>("error");     // a part of the request error; empty: a valid request
    QTest::addColumn<QString>("shape");     // "hosts x chipsPerHost, bundles per slice x TPU"
    QTest::addColumn<bool>("feasible");
    QTest::addColumn<QString>("wouldTake");
    QTest::addColumn<QStringList>("reason"); // one reason holds all of these; empty: none asked
    QTest::addColumn<QString>("note");      // a part of some note; empty: no note at all

    const QString spread = QStringLiteral("SPREAD");
    QTest::newRow("v6e 4x4, Ray's default") << "v6e" << "4x4" << 1 << 0 << 0 << spread << 1.0 << "" << "4x4, 4x4" << true << "tpu-a-0" << QStringList() << "";
    QTest::newRow("v6e 4x4, TPU 1: 16 bundles") << "v6e" << "4x4" << 1 << 1 << 0 << spread << 1.0 << "" << "4x4, 16x1" << true << "tpu-a-0" << QStringList() << "";
    QTest::newRow("v6e 4x4 x2, TPU 2: 8 bundles a slice") << "v6e" << "4x4" << 2 << 2 << 0 << spread << 1.0 << "" << "4x4, 8x2" << true << "tpu-a-0, tpu-a-1" << QStringList() << "";
    QTest::newRow("TPU 3 does not divide 16: Ray's total check")
        << "v6e" << "4x4" << 1 << 3 << 0 << spread << 1.0 << "Total TPU resources (16) not divisible by TPUs requested per worker (3)." << "" << false << "" << QStringList() << "";
    QTest::newRow("x3, TPU 3: the total divides, a slice does not")
        << "v6e" << "4x4" << 3 << 3 << 0 << spread << 1.0 << "The requested resources per worker (3 TPU devices) do not divide evenly into the TPU devices available per slice (16)."
        << "" << false << "" << QStringList() << "";
    QTest::newRow("TPU 0 is no request: Ray's default") << "v6e" << "4x4" << 1 << 0 << 0 << spread << 1.0 << "" << "4x4, 4x4" << true << "tpu-a-0" << QStringList() << "";
    QTest::newRow("negative TPU") << "v6e" << "4x4" << 1 << -1 << 0 << spread << 1.0 << "TPU resources must be positive." << "" << false << "" << QStringList() << "";
    QTest::newRow("negative chips per VM") << "v6e" << "4x4" << 1 << 0 << -4 << spread << 1.0 << "chips_per_vm must be positive." << "" << false << "" << QStringList() << "";
    QTest::newRow("no 3-chip VMs") << "v6e" << "4x4" << 1 << 0 << 3 << spread << 1.0 << "chips per VM 3 does not fit a v6e 4x4" << "" << false << "" << QStringList() << "";
    QTest::newRow("an unknown strategy") << "v6e" << "4x4" << 1 << 0 << 0 << "SCATTER" << 1.0 << "SCATTER" << "" << false << "" << QStringList() << "";
    // Ray takes these, and the group would stay PENDING: the planner says so first.
    QTest::newRow("TPU 8 on 4-chip hosts") << "v6e" << "4x4" << 1 << 8 << 0 << spread << 1.0 << "" << "4x4, 2x8" << false << ""
                                           << words({"tpu-a-0", "8 TPU", "4 chips"}) << "";
    QTest::newRow("TPU 16: one bundle no host holds") << "v6e" << "4x4" << 1 << 16 << 0 << spread << 1.0 << "" << "4x4, 1x16" << false << ""
                                                      << words({"tpu-a-1", "16 TPU"}) << "";
    QTest::newRow("chips per VM 8 on a v6e 4x4 of 4-chip hosts") << "v6e" << "4x4" << 1 << 0 << 8 << spread << 1.0 << "" << "2x8, 2x8" << false << ""
                                                                 << words({"tpu-a-0", "8 TPU", "4 chips"}) << "chips per VM 8";
    QTest::newRow("16 bundles of 4 CPU on 8-CPU hosts") << "v6e" << "4x4" << 1 << 1 << 0 << spread << 4.0 << "" << "4x4, 16x1" << false << ""
                                                        << words({"tpu-a-0", "8", "16", "8 CPU"}) << "";
    QTest::newRow("16 bundles of 2 CPU fill 8-CPU hosts") << "v6e" << "4x4" << 1 << 1 << 0 << spread << 2.0 << "" << "4x4, 16x1" << true << "tpu-a-0" << QStringList() << "";
    QTest::newRow("no CPU at all") << "v6e" << "4x4" << 1 << 1 << 0 << spread << 0.0 << "" << "4x4, 16x1" << true << "tpu-a-0" << QStringList() << "";
    QTest::newRow("STRICT_SPREAD: 16 bundles, 4 hosts") << "v6e" << "4x4" << 1 << 1 << 0 << "STRICT_SPREAD" << 1.0 << "" << "4x4, 16x1" << false << ""
                                                        << words({"STRICT_SPREAD", "16", "4 hosts"}) << "";
    // v5e 2x4: one 8-chip VM by Ray's default, or two 4-chip VMs when asked.
    QTest::newRow("v5e 2x4, Ray's default: one 8-chip VM") << "v5litepod" << "2x4" << 1 << 0 << 0 << spread << 1.0 << "" << "1x8, 1x8" << true << "lite-0" << QStringList() << "";
    QTest::newRow("v5e 2x4, chips per VM 4: two bundles on the 8-chip host") << "v5litepod" << "2x4" << 1 << 0 << 4 << spread << 1.0 << "" << "2x4, 2x4" << true << "lite-0"
                                                                             << QStringList() << "chips per VM 4: Ray counts 2 hosts";
    QTest::newRow("v5e 2x4, TPU 1: single host, Ray may spread") << "v5litepod" << "2x4" << 1 << 1 << 0 << spread << 1.0 << "" << "1x8, 8x1" << true << "lite-0"
                                                                 << QStringList() << "may place its 8 bundles on any nodes";
    QTest::newRow("v5e 2x4, TPU 1, STRICT_PACK: one host") << "v5litepod" << "2x4" << 1 << 1 << 0 << "STRICT_PACK" << 1.0 << "" << "1x8, 8x1" << true << "lite-0" << QStringList() << "";
}

void TestPlanner::bundles()
{
    QFETCH(QString, accelerator);
    QFETCH(QString, topology);
    QFETCH(int, numSlices);
    QFETCH(int, tpuPerBundle);
    QFETCH(int, chipsPerVm);
    QFETCH(QString, strategy);
    QFETCH(double, cpu);
    QFETCH(QString, error);
    QFETCH(QString, shape);
    QFETCH(bool, feasible);
    QFETCH(QString, wouldTake);
    QFETCH(QStringList, reason);
    QFETCH(QString, note);
    static const SnapshotPtr snap = mixedCluster();
    const PlanResult r = planSlicePlacement(*snap, PlanRequest{accelerator, topology, numSlices, tpuPerBundle, chipsPerVm, strategy, cpu});
    if (!error.isEmpty()) {
        QVERIFY2(r.requestError.contains(error), qPrintable(r.requestError));
        QVERIFY(!r.feasible && r.candidates.isEmpty());
        return;
    }
    QVERIFY2(r.requestError.isEmpty(), qPrintable(r.requestError));
    QCOMPARE(QStringLiteral("%1x%2, %3x%4").arg(r.hostsPerSlice).arg(r.chipsPerHost).arg(r.bundlesPerSlice).arg(r.tpuPerBundle), shape);
    QCOMPARE(r.bundles(), r.bundlesPerSlice * numSlices);
    QCOMPARE(r.feasible, feasible);
    QCOMPARE(r.wouldTake.join(QStringLiteral(", ")), wouldTake);
    if (!reason.isEmpty())
        QVERIFY2(hasReason(r.reasons, reason), qPrintable(r.reasons.join(u'\n')));
    if (note.isEmpty())
        QVERIFY2(r.notes.isEmpty(), qPrintable(r.notes.join(u'\n')));
    else
        QVERIFY2(r.notes.join(u'\n').contains(note), qPrintable(r.notes.join(u'\n')));
    if (feasible)
        QCOMPARE(describeBundles(r), QStringLiteral("%1 bundle%2 x {CPU: %3, TPU: %4} on %5%6")
                                         .arg(r.bundles())
                                         .arg(r.bundles() == 1 ? QString() : QStringLiteral("s"))
                                         .arg(cpu)
                                         .arg(r.tpuPerBundle)
                                         .arg(wouldTake, numSlices > 1 ? QStringLiteral(" (%1 per slice)").arg(r.bundlesPerSlice) : QString()));
}

void TestPlanner::headPlacementGroup_data()
{
    QTest::addColumn<QString>("state");
    QTest::addColumn<QString>("nodeId");
    QTest::addColumn<bool>("held");

    const QString worker0 = QStringLiteral("a1b2c3d4e5f60718293a4b5c6d7e8f9012345678901234567890abcd");
    QTest::newRow("CREATED head PG on worker 0") << "CREATED" << worker0 << true;
    QTest::newRow("REMOVED head PG") << "REMOVED" << worker0 << false;
    QTest::newRow("PENDING head PG, not placed") << "PENDING" << "" << false;
}

// Step 1 of slice_placement_group (docs/facts.md 2.2) holds no chip, only TPU-<pod-type>-head on
// worker 0; while it stands the slice is claimed. Bodies written out as the API sends them.
void TestPlanner::headPlacementGroup()
{
    QFETCH(QString, state);
    QFETCH(QString, nodeId);
    QFETCH(bool, held);

    const char *nodes = R"({"result": true, "msg": "", "data": {"result": {"total": 2, "num_after_truncation": 2, "num_filtered": 2,
      "result": [
        {"node_id": "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678901234567890abcd", "node_ip": "10.8.0.11", "is_head_node": false,
         "state": "ALIVE", "state_message": null, "node_name": "10.8.0.11",
         "resources_total": {"CPU": 240.0, "TPU": 4.0, "accelerator_type:TPU-V4": 1.0, "v4-a": 1.0, "TPU-v4-16-head": 1.0,
                             "memory": 4.0e11, "node:10.8.0.11": 1.0},
         "labels": {"ray.io/node-id": "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678901234567890abcd",
                    "ray.io/accelerator-type": "TPU-V4", "ray.io/tpu-pod-type": "v4-16", "ray.io/tpu-slice-name": "v4-a",
                    "ray.io/tpu-worker-id": "0", "ray.io/tpu-topology": "2x2x2"},
         "start_time_ms": "1764439200000", "end_time_ms": "0"},
        {"node_id": "b1b2c3d4e5f60718293a4b5c6d7e8f9012345678901234567890abcd", "node_ip": "10.8.0.12", "is_head_node": false,
         "state": "ALIVE", "state_message": null, "node_name": "10.8.0.12",
         "resources_total": {"CPU": 240.0, "TPU": 4.0, "accelerator_type:TPU-V4": 1.0, "v4-a": 1.0,
                             "memory": 4.0e11, "node:10.8.0.12": 1.0},
         "labels": {"ray.io/node-id": "b1b2c3d4e5f60718293a4b5c6d7e8f9012345678901234567890abcd",
                    "ray.io/accelerator-type": "TPU-V4", "ray.io/tpu-pod-type": "v4-16", "ray.io/tpu-slice-name": "v4-a",
                    "ray.io/tpu-worker-id": "1", "ray.io/tpu-topology": "2x2x2"},
         "start_time_ms": "1764439200001", "end_time_ms": "0"}
      ], "partial_failure_warning": "", "warnings": null}}})";
    const QString pgs = QStringLiteral(R"({"result": true, "msg": "", "data": {"result": {"total": 1, "num_after_truncation": 1, "num_filtered": 1,
      "result": [
        {"placement_group_id": "7f3e0c1d2b4a59687a8b9c0d1e2f30415263", "name": "grab-head", "creator_job_id": "03000000",
         "state": "%1", "is_detached": false,
         "stats": {"scheduling_state": "FINISHED", "scheduling_attempt": 1, "end_to_end_creation_latency_ms": 12.5},
         "bundles": [{"bundle_id": {"placement_group_id": "7f3e0c1d2b4a59687a8b9c0d1e2f30415263", "bundle_index": 0},
                      "unit_resources": {"TPU-v4-16-head": 1.0}, "node_id": %2,
                      "label_selector": {"ray.io/tpu-worker-id": "0", "ray.io/tpu-pod-type": "v4-16"}}]}
      ], "partial_failure_warning": "", "warnings": null}}})")
                            .arg(state, nodeId.isEmpty() ? QStringLiteral("null") : u'"' + nodeId + u'"');
    Capture capture;
    capture.rayNodes = nodes;
    capture.rayPlacementGroups = pgs.toUtf8();
    const SnapshotPtr snap = buildSnapshot(capture);
    QVERIFY2(snap->errors.isEmpty(), qPrintable(snap->errors.join(u'\n')));
    QCOMPARE(snap->slices.size(), 1);
    const Slice &slice = snap->slices.first();
    QVERIFY(slice.intact);
    QCOMPARE(slice.reservedChips, 0); // the head resource is no chip
    QCOMPARE(slice.headHeldBy >= 0, held);

    const PlanResult r = planSlicePlacement(*snap, PlanRequest{QStringLiteral("v4"), QStringLiteral("2x2x2"), 1});
    QVERIFY(r.requestError.isEmpty());
    QCOMPARE(r.feasible, !held);
    QCOMPARE(r.candidates, held ? QStringList{} : QStringList{QStringLiteral("v4-a")});
    if (held) {
        QVERIFY2(hasReason(r.reasons, {QStringLiteral("v4-a"), QStringLiteral("grab-head")}), qPrintable(r.reasons.join(u'\n')));
        QVERIFY2(hasReason(r.reasons, {QStringLiteral("1 of 1"), QStringLiteral("v4 2x2x2")}), qPrintable(r.reasons.join(u'\n')));
    }
}

// Without Kubernetes nobody knows the worker groups: the planner must not claim there are none.
void TestPlanner::rayOnlyGivesNoGroupAdvice()
{
    const SnapshotPtr snap = mixedCluster(false);
    QVERIFY(!snap->hasKubernetes);
    const PlanResult r = planSlicePlacement(*snap, PlanRequest{QStringLiteral("v6e"), QStringLiteral("4x4"), 3});
    QVERIFY(!r.feasible);
    QCOMPARE(r.candidates, (QStringList{QStringLiteral("tpu-a-0"), QStringLiteral("tpu-a-1")}));
    QVERIFY(r.growth.isEmpty());
    QVERIFY2(!hasReason(r.reasons, {QStringLiteral("worker group")}), qPrintable(r.reasons.join(u'\n')));
    QVERIFY(hasReason(r.reasons, {QStringLiteral("tpu-a-4"), QStringLiteral("worker 2"), QStringLiteral("DEAD")}));
}

// KubeRay defaults maxReplicas to "unbounded" and may suspend a group: neither may produce
// nonsense like "can add 2147483641 slices" or advice to grow a group that makes nothing.
void TestPlanner::suspendedAndUnboundedGroups()
{
    CaptureBuilder b;
    b.addHeadNode(hexId(QStringLiteral("head"), 56), QStringLiteral("10.0.0.2"));
    b.addSlice({QStringLiteral("open-0"), QStringLiteral("TPU-V6E"), QStringLiteral("v6e-16"), QStringLiteral("4x4"), QStringLiteral("open"), 4, 4, {2}, {}, {}, {}});
    QJsonObject open = CaptureBuilder::workerGroup(QStringLiteral("open"), 1, 0, 0, 4, QStringLiteral("tpu-v6e-slice"), QStringLiteral("4x4"), 4);
    open.remove(QStringLiteral("maxReplicas"));
    QJsonObject paused = CaptureBuilder::workerGroup(QStringLiteral("paused"), 0, 0, 4, 4, QStringLiteral("tpu-v6e-slice"), QStringLiteral("4x4"), 4);
    paused.insert(QStringLiteral("suspend"), true);
    b.addRayCluster(QStringLiteral("ml"), QStringLiteral("c"), false, {open, paused});
    const SnapshotPtr snap = buildSnapshot(b.capture(true));
    const PlanResult r = planSlicePlacement(*snap, PlanRequest{QStringLiteral("v6e"), QStringLiteral("4x4"), 2});
    QVERIFY(!r.feasible);
    QCOMPARE(r.growth.size(), 2);
    QCOMPARE(r.growth[0].workerGroup, QStringLiteral("ml/c/open"));
    QCOMPARE(r.growth[0].canAdd, 2); // what is missing, not INT_MAX - 1
    QCOMPARE(r.growth[1].canAdd, 0);
    QVERIFY(r.growth[1].suspended);
    const QString all = r.reasons.join(u'\n');
    QVERIFY2(hasReason(r.reasons, {QStringLiteral("ml/c/open"), QStringLiteral("no maxReplicas")}), qPrintable(all));
    QVERIFY2(hasReason(r.reasons, {QStringLiteral("ml/c/paused"), QStringLiteral("suspended")}), qPrintable(all));
    QVERIFY2(!all.contains(QLatin1String("2147483")), qPrintable(all));
}

// With Ray data present, a slice that only Kubernetes knows (another RayCluster's, or one whose
// Ray hosts have not joined) cannot take this cluster's placement group.
void TestPlanner::kubernetesOnlySliceOfAnotherClusterIsNoCandidate()
{
    SnapshotPtr snap = mixedCluster();
    ClusterSnapshot copy = *snap;
    const int i = copy.sliceIndex(QStringLiteral("tpu-a-0"));
    QVERIFY(i >= 0);
    copy.slices[i].source = SliceSource::Kubernetes;
    const PlanResult r = planSlicePlacement(copy, PlanRequest{QStringLiteral("v6e"), QStringLiteral("4x4"), 1});
    QCOMPARE(r.candidates, QStringList{QStringLiteral("tpu-a-1")});
    const PlanResult two = planSlicePlacement(copy, PlanRequest{QStringLiteral("v6e"), QStringLiteral("4x4"), 2});
    QVERIFY2(hasReason(two.reasons, {QStringLiteral("tpu-a-0"), QStringLiteral("Kubernetes")}), qPrintable(two.reasons.join(u'\n')));
}

void TestPlanner::planJsonHasTheContractKeys()
{
    const SnapshotPtr snap = mixedCluster();
    for (int n : {1, 3}) {
        const PlanResult r = planSlicePlacement(*snap, PlanRequest{QStringLiteral("v6e"), QStringLiteral("4x4"), n});
        const QJsonObject o = planJson(r);
        QVERIFY(o.value(QStringLiteral("feasible")).isBool());
        QCOMPARE(o.value(QStringLiteral("feasible")).toBool(), r.feasible);
        QVERIFY(o.value(QStringLiteral("candidates")).isArray());
        QVERIFY(o.value(QStringLiteral("reasons")).isArray());
        QCOMPARE(o.value(QStringLiteral("candidates")).toArray(), (QJsonArray{QStringLiteral("tpu-a-0"), QStringLiteral("tpu-a-1")}));
        QCOMPARE(o.value(QStringLiteral("reasons")).toArray().size(), r.reasons.size());
        QCOMPARE(o.value(QStringLiteral("reasons")).toArray().isEmpty(), n == 1);
        const QJsonObject request = o.value(QStringLiteral("request")).toObject();
        QCOMPARE(request.value(QStringLiteral("podType")).toString(), QStringLiteral("v6e-16"));
        QCOMPARE(request.value(QStringLiteral("numSlices")).toInt(), n);
    }
}

namespace {

const QString kLlmSlice = QStringLiteral("team-a/llm/tpu-0");
const QString kRlSlice = QStringLiteral("team-b/rl/tpu-0");

// The RayCluster each named slice belongs to, so a test can say "all from one".
QSet<QString> clustersOf(const ClusterSnapshot &snap, const QStringList &slices)
{
    QSet<QString> out;
    for (const QString &name : slices)
        if (const int i = snap.sliceIndex(name); i >= 0)
            out.insert(snap.slices[i].context + u':' + snap.slices[i].rayCluster);
    return out;
}

PlanRequest v6e4x4(int numSlices, const QString &rayCluster = {}, const QString &context = {})
{
    PlanRequest r{QStringLiteral("v6e"), QStringLiteral("4x4"), numSlices};
    r.rayCluster = rayCluster;
    r.context = context;
    return r;
}

} // namespace

// Two free 4x4 slices, one in each RayCluster: two slices fit in neither, and the answer names
// both clusters and what each has. Before issue 31 the planner said "fits" and took both.
void TestPlanner::twoSlicesInTwoClustersFitInNone()
{
    const SnapshotPtr snap = buildSnapshot(twoFreeClusterContext(QStringLiteral("gke_eu")));
    QVERIFY2(snap->errors.isEmpty(), qPrintable(snap->errors.join(u'\n')));
    QCOMPARE(clustersOf(*snap, {kLlmSlice, kRlSlice}).size(), 2); // the fixture: one ready slice in each
    QVERIFY(snap->slices[snap->sliceIndex(kLlmSlice)].isReady() && snap->slices[snap->sliceIndex(kRlSlice)].isReady());

    const PlanResult r = planSlicePlacement(*snap, v6e4x4(2));
    QVERIFY(r.requestError.isEmpty());
    QVERIFY2(!r.feasible, qPrintable(r.wouldTake.join(u',')));
    QVERIFY2(clustersOf(*snap, r.wouldTake).size() <= 1, qPrintable(r.wouldTake.join(u',')));
    QVERIFY2(clustersOf(*snap, r.candidates).size() <= 1, qPrintable(r.candidates.join(u',')));
    const QString all = r.reasons.join(u'\n');
    QVERIFY2(hasReason(r.reasons, {QStringLiteral("no single Ray cluster"), QStringLiteral("team-a/llm"), QStringLiteral("1 of the 2"), QStringLiteral("team-b/rl")}), qPrintable(all));
    // The JSON says which cluster the detail is for, and lists each with what it alone has.
    const QJsonObject o = planJson(r);
    QCOMPARE(o.value(QStringLiteral("feasible")).toBool(), false);
    QCOMPARE(o.value(QStringLiteral("rayCluster")).toString(), QStringLiteral("team-a/llm"));
    QCOMPARE(o.value(QStringLiteral("context")).toString(), QStringLiteral("gke_eu"));
    const QJsonArray clusters = o.value(QStringLiteral("clusters")).toArray();
    QCOMPARE(clusters.size(), 2);
    QCOMPARE(clusters[0].toObject().value(QStringLiteral("rayCluster")).toString(), QStringLiteral("team-a/llm"));
    QCOMPARE(clusters[0].toObject().value(QStringLiteral("candidates")).toArray(), QJsonArray{kLlmSlice});
    QCOMPARE(clusters[0].toObject().value(QStringLiteral("feasible")).toBool(), false);
    QCOMPARE(clusters[1].toObject().value(QStringLiteral("rayCluster")).toString(), QStringLiteral("team-b/rl"));
    QCOMPARE(clusters[1].toObject().value(QStringLiteral("candidates")).toArray(), QJsonArray{kRlSlice});
}

// One slice fits in either: the plan takes it from one cluster, names that cluster (the first in
// name order) and says the other would do too.
void TestPlanner::oneSliceIsPlannedWithinOneCluster()
{
    const SnapshotPtr snap = buildSnapshot(twoFreeClusterContext(QStringLiteral("gke_eu")));
    const PlanResult r = planSlicePlacement(*snap, v6e4x4(1));
    QVERIFY(r.feasible);
    QCOMPARE(r.wouldTake, QStringList{kLlmSlice});
    QCOMPARE(r.candidates, QStringList{kLlmSlice}); // its cluster's only
    const QJsonObject o = planJson(r);
    QCOMPARE(o.value(QStringLiteral("rayCluster")).toString(), QStringLiteral("team-a/llm"));
    QCOMPARE(o.value(QStringLiteral("context")).toString(), QStringLiteral("gke_eu"));
    QCOMPARE(o.value(QStringLiteral("clusters")).toArray().size(), 2);
    QCOMPARE(o.value(QStringLiteral("clusters")).toArray()[1].toObject().value(QStringLiteral("feasible")).toBool(), true);
    QVERIFY2(hasReason(r.notes, {QStringLiteral("team-a/llm"), QStringLiteral("team-b/rl"), kRlSlice}), qPrintable(r.notes.join(u'\n')));
}

// A request naming a cluster plans there only: its slice, its name; and when it does not fit
// there, the other cluster's slices are named as elsewhere, never taken.
void TestPlanner::aNamedClusterIsTheOnlyOneUsed()
{
    const SnapshotPtr snap = buildSnapshot(twoFreeClusterContext(QStringLiteral("gke_eu")));
    const PlanResult one = planSlicePlacement(*snap, v6e4x4(1, QStringLiteral("team-b/rl")));
    QVERIFY(one.feasible);
    QCOMPARE(one.wouldTake, QStringList{kRlSlice});
    QCOMPARE(planJson(one).value(QStringLiteral("rayCluster")).toString(), QStringLiteral("team-b/rl"));

    const PlanResult two = planSlicePlacement(*snap, v6e4x4(2, QStringLiteral("team-b/rl"), QStringLiteral("gke_eu")));
    QVERIFY(!two.feasible);
    QCOMPARE(two.candidates, QStringList{kRlSlice});
    QCOMPARE(planJson(two).value(QStringLiteral("rayCluster")).toString(), QStringLiteral("team-b/rl"));
    QVERIFY2(hasReason(two.reasons, {QStringLiteral("team-b/rl"), QStringLiteral("team-a/llm"), kLlmSlice}), qPrintable(two.reasons.join(u'\n')));
}

// The same RayCluster name in two contexts is two Ray clusters: a request naming team-b/rl
// without a context plans in one of them, never across both.
void TestPlanner::aNameInTwoContextsNeverJoinsThem()
{
    const SnapshotPtr snap = buildSnapshot(fleetOf({twoFreeClusterContext(QStringLiteral("gke_eu")), twoFreeClusterContext(QStringLiteral("gke_us"))}));
    QVERIFY2(snap->errors.isEmpty(), qPrintable(snap->errors.join(u'\n')));
    const PlanResult r = planSlicePlacement(*snap, v6e4x4(2, QStringLiteral("team-b/rl")));
    QVERIFY2(!r.feasible, qPrintable(r.wouldTake.join(u',')));
    QVERIFY2(clustersOf(*snap, r.candidates).size() == 1, qPrintable(r.candidates.join(u',')));
    QVERIFY2(hasReason(r.reasons, {QStringLiteral("no single Ray cluster"), QStringLiteral("gke_eu"), QStringLiteral("gke_us")}), qPrintable(r.reasons.join(u'\n')));
    const QJsonObject o = planJson(r);
    QCOMPARE(o.value(QStringLiteral("rayCluster")).toString(), QStringLiteral("team-b/rl"));
    QCOMPARE(o.value(QStringLiteral("context")).toString(), QStringLiteral("gke_eu"));
    const PlanResult one = planSlicePlacement(*snap, v6e4x4(1, QStringLiteral("team-b/rl"), QStringLiteral("gke_us")));
    QVERIFY(one.feasible);
    QCOMPARE(one.wouldTake, QStringList{QStringLiteral("gke_us:") + kRlSlice});
}

// A capture with one RayCluster plans as it did: its slices, its groups' growth; the JSON names it.
void TestPlanner::oneClusterPlansAsBefore()
{
    CaptureBuilder kube;
    addCluster(kube, QStringLiteral("team-a"), QStringLiteral("llm"), QStringLiteral("10.1.0."), QStringLiteral("gke-a-"));
    Capture c = kubeOnly(kube, QStringLiteral("gke_eu"));
    c.rayClusters = {rayView(QStringLiteral("team-a/llm"), QStringLiteral("10.1.0."), QStringLiteral("a"))};
    const SnapshotPtr snap = buildSnapshot(c);
    const PlanResult one = planSlicePlacement(*snap, v6e4x4(1));
    QVERIFY(one.feasible);
    QCOMPARE(one.wouldTake, QStringList{QStringLiteral("tpu-0")});
    QVERIFY(one.notes.isEmpty());
    QCOMPARE(planJson(one).value(QStringLiteral("rayCluster")).toString(), QStringLiteral("team-a/llm"));
    const PlanResult two = planSlicePlacement(*snap, v6e4x4(2));
    QVERIFY(!two.feasible);
    QVERIFY2(!hasReason(two.reasons, {QStringLiteral("no single Ray cluster")}), qPrintable(two.reasons.join(u'\n')));
    QCOMPARE(two.growth.size(), 1);
    QCOMPARE(two.growth[0].workerGroup, QStringLiteral("team-a/llm/tpu"));
    // A capture that names no RayCluster (one Ray): the plan names none.
    const PlanResult mixed = planSlicePlacement(*mixedCluster(), v6e4x4(2));
    QVERIFY(mixed.feasible);
    QVERIFY(planJson(mixed).value(QStringLiteral("rayCluster")).isNull());
    QCOMPARE(planJson(mixed).value(QStringLiteral("clusters")).toArray().size(), 1);
}

QTEST_GUILESS_MAIN(TestPlanner)
#include "tst_planner.moc"
