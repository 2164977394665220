// SPDX-License-Identifier: GPL-3.0-or-later
// Scale rules (model/scaleplan.h): range checks, the autoscaler's ownership of replicas, which
// slices a scale-down removes, the placement groups it displaces, and the exact JSON Patch.

#include "capturefixture.h"
#include "scaleplan.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace slicescope;
using namespace slicescope::testfixture;

namespace {

const QString kGroup = QStringLiteral("tpu-team/ray/v6e");

// What happened to v6e-1 since a plan was made (fleet()'s `edit`).
enum class Edit
{
    None,
    V6e1Gone,
    V6e1PodReplaced,
    V6e1Reserved
};

// RayCluster tpu-team/ray: a CPU group at index 0, the v6e 2x4 group (2 hosts x 4 chips) at index
// 1 with 3 slices v6e-0..2 (min 1, max 4); Ray knows all three and a placement group holds v6e-2.
Capture fleet(bool autoscaling, const QStringList &workersToDelete = {}, Edit edit = Edit::None)
{
    CaptureBuilder b;
    b.addHeadNode(QStringLiteral("head"), QStringLiteral("10.0.0.1"));
    QJsonObject tpuGroup = CaptureBuilder::workerGroup(QStringLiteral("v6e"), 3, 1, 4, 2, QStringLiteral("tpu-v6e-slice"),
                                                       QStringLiteral("2x4"), 4);
    if (!workersToDelete.isEmpty())
        tpuGroup.insert(QStringLiteral("scaleStrategy"),
                        QJsonObject{{QStringLiteral("workersToDelete"), QJsonArray::fromStringList(workersToDelete)}});
    b.addRayCluster(QStringLiteral("tpu-team"), QStringLiteral("ray"), autoscaling,
                    QJsonArray{CaptureBuilder::workerGroup(QStringLiteral("cpu"), 2, 0, 10, 1, {}, {}, 0), tpuGroup});
    QStringList slice1, slice2;
    for (int r = 0; r < 3; ++r) {
        if (r == 1 && edit == Edit::V6e1Gone)
            continue;
        const QString name = QStringLiteral("v6e-%1").arg(r);
        const QString ipPrefix = QStringLiteral("10.1.%1.").arg(r);
        const QStringList ids = b.addSlice({name, QStringLiteral("TPU-V6E"), QStringLiteral("v6e-8"), QStringLiteral("2x4"), QStringLiteral("v6e"), 2, 4, {}, {}, name + u'-', ipPrefix});
        if (r == 1)
            slice1 = ids;
        if (r == 2)
            slice2 = ids;
        for (int h = 0; h < 2; ++h)
            b.addTpuPod(QStringLiteral("tpu-team"),
                        QStringLiteral("ray-v6e-worker-%1%2%3").arg(QChar(u'a' + r)).arg(h).arg(r == 1 && h == 1 && edit == Edit::V6e1PodReplaced ? QStringLiteral("-new") : QString()),
                        QStringLiteral("ray"),
                        QStringLiteral("v6e"), name, name, h, ipPrefix + QString::number(h + 1), QStringLiteral("node-%1-%2").arg(r).arg(h),
                        QStringLiteral("tpu-v6e-slice"), QStringLiteral("2x4"), 4);
    }
    b.addSlicePlacementGroup(QStringLiteral("pg2"), QStringLiteral("llm-train"), QStringLiteral("v6e-2"), slice2, 4);
    if (edit == Edit::V6e1Reserved)
        b.addSlicePlacementGroup(QStringLiteral("pg1"), QStringLiteral("other-team"), QStringLiteral("v6e-1"), slice1, 4);
    return b.capture(true);
}

// What KubeScaler reads right before patching: the RayCluster and the group's pods, no Ray.
Capture kubernetesOnly(Capture c)
{
    c.rayVersion.clear();
    c.rayNodes.clear();
    c.rayPlacementGroups.clear();
    c.kubeNodes.clear();
    return c;
}

QJsonArray ops(const QByteArray &patch)
{
    return QJsonDocument::fromJson(patch).array();
}

} // namespace

class TestScalePlan : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void snapshotKnowsSpecIndex()
    {
        const SnapshotPtr snap = buildSnapshot(fleet(false));
        const int g = snap->workerGroupIndex(kGroup);
        QVERIFY(g >= 0);
        QCOMPARE(snap->workerGroups[g].specIndex, 1);
        QCOMPARE(snap->workerGroups[g].slices, (QStringList{QStringLiteral("v6e-0"), QStringLiteral("v6e-1"), QStringLiteral("v6e-2")}));
    }

    void scaleUpAddsGhostsAndTestsTheOldValue()
    {
        const ScalePlan plan = planScale(*buildSnapshot(fleet(false)), {ScaleRequest::Mode::Replicas, kGroup, 4});
        QVERIFY2(plan.allowed, qPrintable(plan.refusal));
        QCOMPARE(plan.slicesAdded, 1);
        QVERIFY(plan.slicesRemoved.isEmpty());
        QCOMPARE(plan.summary, QStringLiteral("tpu-team/ray/v6e: 3 slices x 2 hosts x 4 chips = 24 chips -> 4 slices x 2 hosts x 4 chips = 32 chips"));
        const QJsonArray p = ops(plan.jsonPatch());
        QCOMPARE(p.size(), 3);
        QCOMPARE(p[0].toObject(), (QJsonObject{{QStringLiteral("op"), QStringLiteral("test")},
                                               {QStringLiteral("path"), QStringLiteral("/spec/workerGroupSpecs/1/groupName")},
                                               {QStringLiteral("value"), QStringLiteral("v6e")}}));
        QCOMPARE(p[1].toObject(), (QJsonObject{{QStringLiteral("op"), QStringLiteral("test")},
                                               {QStringLiteral("path"), QStringLiteral("/spec/workerGroupSpecs/1/replicas")},
                                               {QStringLiteral("value"), 3}}));
        QCOMPARE(p[2].toObject(), (QJsonObject{{QStringLiteral("op"), QStringLiteral("add")},
                                               {QStringLiteral("path"), QStringLiteral("/spec/workerGroupSpecs/1/replicas")},
                                               {QStringLiteral("value"), 4}}));
    }

    void outOfRangeIsRefused()
    {
        const SnapshotPtr snap = buildSnapshot(fleet(false));
        for (int n : {0, 5}) {
            const ScalePlan plan = planScale(*snap, {ScaleRequest::Mode::Replicas, kGroup, n});
            QVERIFY(!plan.allowed);
            QVERIFY2(plan.refusal.contains(QStringLiteral("outside minReplicas..maxReplicas (1..4)")), qPrintable(plan.refusal));
        }
    }

    void scaleDownRemovesIdleSlicesFirstAndNamesTheirPods()
    {
        const SnapshotPtr snap = buildSnapshot(fleet(false));
        ScalePlan plan = planScale(*snap, {ScaleRequest::Mode::Replicas, kGroup, 2});
        QVERIFY2(plan.allowed, qPrintable(plan.refusal));
        // v6e-2 is the highest replica but holds llm-train: the idle v6e-1 goes instead.
        QCOMPARE(plan.slicesRemoved, QStringList{QStringLiteral("v6e-1")});
        QCOMPARE(plan.podsToDelete, (QStringList{QStringLiteral("ray-v6e-worker-b0"), QStringLiteral("ray-v6e-worker-b1")}));
        QVERIFY(plan.displacedGroups.isEmpty());
        const QJsonArray p = ops(plan.jsonPatch());
        QCOMPARE(p.last().toObject().value(QStringLiteral("path")).toString(), QStringLiteral("/spec/workerGroupSpecs/1/scaleStrategy"));
        QCOMPARE(p.last().toObject().value(QStringLiteral("value")).toObject().value(QStringLiteral("workersToDelete")).toArray().size(), 2);

        plan = planScale(*snap, {ScaleRequest::Mode::Replicas, kGroup, 1});
        QCOMPARE(plan.slicesRemoved, (QStringList{QStringLiteral("v6e-1"), QStringLiteral("v6e-0")}));
    }

    void removeSliceDisplacesItsPlacementGroups()
    {
        const ScalePlan plan = planScale(*buildSnapshot(fleet(false)), {ScaleRequest::Mode::RemoveSlice, kGroup, 0, 0, 0, QStringLiteral("v6e-2")});
        QVERIFY2(plan.allowed, qPrintable(plan.refusal));
        QCOMPARE(plan.toReplicas, 2);
        QCOMPARE(plan.slicesRemoved, QStringList{QStringLiteral("v6e-2")});
        QCOMPARE(plan.podsToDelete, (QStringList{QStringLiteral("ray-v6e-worker-c0"), QStringLiteral("ray-v6e-worker-c1")}));
        QCOMPARE(plan.displacedGroups, QStringList{QStringLiteral("llm-train")});
        QVERIFY(plan.notes.join(u' ').contains(QStringLiteral("llm-train")));

        // Clearing tests that workersToDelete still holds exactly ours before emptying it.
        const QJsonArray clear = ops(plan.clearWorkersToDeletePatch());
        QCOMPARE(clear[1].toObject().value(QStringLiteral("op")).toString(), QStringLiteral("test"));
        QCOMPARE(clear[1].toObject().value(QStringLiteral("value")).toArray().size(), 2);
    }

    void removeSliceRefusals()
    {
        ScalePlan plan = planScale(*buildSnapshot(fleet(false)), {ScaleRequest::Mode::RemoveSlice, kGroup, 0, 0, 0, QStringLiteral("v6e-9")});
        QVERIFY(!plan.allowed);
        QVERIFY2(plan.refusal.contains(QStringLiteral("v6e-0, v6e-1, v6e-2")), qPrintable(plan.refusal));

        plan = planScale(*buildSnapshot(fleet(false, {QStringLiteral("ray-v6e-worker-a0")})),
                         {ScaleRequest::Mode::RemoveSlice, kGroup, 0, 0, 0, QStringLiteral("v6e-1")});
        QVERIFY(!plan.allowed);
        QVERIFY2(plan.refusal.contains(QStringLiteral("in progress")), qPrintable(plan.refusal));
    }

    void noSliceChosenIsRefusedByName()
    {
        const ScalePlan plan = planScale(*buildSnapshot(fleet(false)), {ScaleRequest::Mode::RemoveSlice, kGroup, 0, 0, 0, {}});
        QVERIFY(!plan.allowed);
        QCOMPARE(plan.refusal, QStringLiteral("tpu-team/ray/v6e: no slice chosen to remove (its slices: v6e-0, v6e-1, v6e-2)"));
        QVERIFY(plan.slicesRemoved.isEmpty());
    }

    void aRemovalTargetIsTheSliceAsReviewed_data()
    {
        QTest::addColumn<int>("edit");
        QTest::addColumn<QString>("full");     // removalTargetChanges() on the newest full snapshot
        QTest::addColumn<QString>("podsOnly"); // and on what KubeScaler reads from Kubernetes
        QTest::newRow("unchanged") << int(Edit::None) << QString() << QString();
        QTest::newRow("gone") << int(Edit::V6e1Gone) << QStringLiteral("v6e-1 vanished from the cluster")
                              << QStringLiteral("v6e-1 vanished from the cluster");
        QTest::newRow("a pod replaced")
            << int(Edit::V6e1PodReplaced)
            << QStringLiteral("v6e-1 changed: pods ray-v6e-worker-b0, ray-v6e-worker-b1 -> ray-v6e-worker-b0, ray-v6e-worker-b1-new; hosts [")
            << QStringLiteral("v6e-1 changed: pods ray-v6e-worker-b0, ray-v6e-worker-b1 -> ray-v6e-worker-b0, ray-v6e-worker-b1-new");
        QTest::newRow("reserved meanwhile") << int(Edit::V6e1Reserved)
                                            << QStringLiteral("v6e-1 changed: state ready -> reserved; placement groups none -> other-team")
                                            << QString(); // Kubernetes cannot see placement groups: the window and relay check them
    }
    void aRemovalTargetIsTheSliceAsReviewed()
    {
        QFETCH(int, edit);
        QFETCH(QString, full);
        QFETCH(QString, podsOnly);
        const ScalePlan plan = planScale(*buildSnapshot(fleet(false)), {ScaleRequest::Mode::RemoveSlice, kGroup, 0, 0, 0, QStringLiteral("v6e-1")});
        QVERIFY2(plan.allowed, qPrintable(plan.refusal));
        QCOMPARE(plan.removedTargets.size(), 1);
        const SliceTarget &t = plan.removedTargets.first();
        QCOMPARE(t.name, QStringLiteral("v6e-1"));
        QCOMPARE(t.workerGroup, kGroup);
        QCOMPARE(t.status, SliceStatus::Ready);
        QCOMPARE(t.pods, plan.podsToDelete);
        QCOMPARE(t.hosts.size(), 2);
        QVERIFY2(t.hosts.first().startsWith(QLatin1String("worker 0 ALIVE, pod ray-v6e-worker-b0, Ray node ")), qPrintable(t.hosts.first()));
        QVERIFY(t.placementGroups.isEmpty());

        const Capture after = fleet(false, {}, Edit(edit));
        const QStringList fullChanges = removalTargetChanges(plan, *buildSnapshot(after));
        const QStringList podChanges = removalTargetChanges(plan, *buildSnapshot(kubernetesOnly(after)), true);
        QCOMPARE(fullChanges.size(), full.isEmpty() ? 0 : 1);
        if (!full.isEmpty())
            QVERIFY2(fullChanges.first().startsWith(full), qPrintable(fullChanges.first()));
        QCOMPARE(podChanges, podsOnly.isEmpty() ? QStringList() : QStringList{podsOnly});
    }

    void onlyNamedRemovalsHaveATarget()
    {
        // A scale-up removes nothing; the autoscaler's own scale-down names no pods: nothing to check.
        const SnapshotPtr before = buildSnapshot(fleet(true));
        const ScalePlan bounds = planScale(*before, {ScaleRequest::Mode::Bounds, kGroup, 0, 1, 2});
        QVERIFY2(bounds.allowed, qPrintable(bounds.refusal));
        QCOMPARE(bounds.slicesRemoved.size(), 1);
        QVERIFY(removalTargetChanges(bounds, *buildSnapshot(fleet(true, {}, Edit::V6e1Gone))).isEmpty());
        // Scale-down by replicas names its slices' pods: those are checked like a chosen slice.
        const ScalePlan down = planScale(*buildSnapshot(fleet(false)), {ScaleRequest::Mode::Replicas, kGroup, 2});
        QCOMPARE(down.slicesRemoved, QStringList{QStringLiteral("v6e-1")});
        QCOMPARE(removalTargetChanges(down, *buildSnapshot(fleet(false, {}, Edit::V6e1Gone))), QStringList{QStringLiteral("v6e-1 vanished from the cluster")});
    }

    void autoscaledGroupsChangeBoundsNotReplicas()
    {
        const SnapshotPtr snap = buildSnapshot(fleet(true));
        ScalePlan plan = planScale(*snap, {ScaleRequest::Mode::Replicas, kGroup, 2});
        QVERIFY(!plan.allowed);
        QVERIFY2(plan.refusal.contains(QStringLiteral("autoscaler")) && plan.refusal.contains(QStringLiteral("--min")), qPrintable(plan.refusal));

        plan = planScale(*snap, {ScaleRequest::Mode::Bounds, kGroup, 0, 4, 6});
        QVERIFY2(plan.allowed, qPrintable(plan.refusal));
        QCOMPARE(plan.slicesAdded, 1); // the autoscaler will raise 3 to the new minimum 4
        const QJsonArray p = ops(plan.jsonPatch());
        QStringList paths;
        for (const QJsonValue &o : p)
            paths << o.toObject().value(QStringLiteral("op")).toString() + u' ' + o.toObject().value(QStringLiteral("path")).toString().section(u'/', -1);
        QCOMPARE(paths, (QStringList{QStringLiteral("test groupName"), QStringLiteral("test minReplicas"), QStringLiteral("add minReplicas"),
                                     QStringLiteral("test maxReplicas"), QStringLiteral("add maxReplicas")}));
    }

    void boundsThatWouldClampAreRefused()
    {
        const ScalePlan plan = planScale(*buildSnapshot(fleet(false)), {ScaleRequest::Mode::Bounds, kGroup, 0, 0, 2});
        QVERIFY(!plan.allowed);
        QVERIFY2(plan.refusal.contains(QStringLiteral("clamp")), qPrintable(plan.refusal));
    }

    void unknownGroupNamesTheKnownOnes()
    {
        const ScalePlan plan = planScale(*buildSnapshot(fleet(false)), {ScaleRequest::Mode::Replicas, QStringLiteral("tpu-team/ray/nope"), 1});
        QVERIFY(!plan.allowed);
        QVERIFY2(plan.refusal.contains(QStringLiteral("tpu-team/ray/cpu")) && plan.refusal.contains(kGroup), qPrintable(plan.refusal));
    }
};

QTEST_GUILESS_MAIN(TestScalePlan)
#include "tst_scaleplan.moc"
