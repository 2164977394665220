// SPDX-License-Identifier: GPL-3.0-or-later
// The demo cluster: deterministic, realistic, and reacting to actions the way Ray and KubeRay do,
// observed only through what every source produces (Capture -> buildSnapshot).

#include "capturefile.h"
#include "democluster.h"
#include "itemmodels.h"
#include "planner.h"
#include "snapshot.h"

#include <QSignalSpy>
#include <QTest>

#include <memory>

using namespace slicescope;

namespace {

SnapshotPtr snap(const DemoCluster &demo)
{
    SnapshotPtr s = buildSnapshot(demo.capture());
    [&] {
        QVERIFY2(s->errors.isEmpty(), qPrintable(s->errors.join(u'\n')));
    }();
    return s;
}

const Slice *slice(const ClusterSnapshot &s, const QString &name)
{
    const int i = s.sliceIndex(name);
    return i < 0 ? nullptr : &s.slices[i];
}

const PlacementGroup *group(const ClusterSnapshot &s, const QString &name)
{
    for (const PlacementGroup &g : s.placementGroups)
        if (g.name == name)
            return &g;
    return nullptr;
}

const Job *jobOf(const ClusterSnapshot &s, const QString &submissionId)
{
    for (const Job &j : s.jobs)
        if (j.submissionId == submissionId)
            return &j;
    return nullptr;
}

} // namespace

class TestDemoSimulator : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // A live poll where nothing moved must not reset the tables (selection, scroll and sort stay);
    // a poll where something moved resets exactly the models whose rows changed.
    void unchangedPollsDoNotReset()
    {
        DemoCluster demo;
        SliceTableModel slices;
        PlacementGroupTableModel groups;
        WorkerGroupTableModel workers;
        HostTableModel hosts;
        QList<SnapshotTableModel *> models{&slices, &groups, &workers, &hosts};
        for (SnapshotTableModel *m : models)
            m->setSnapshot(buildSnapshot(demo.capture()));
        QList<std::shared_ptr<QSignalSpy>> resets;
        for (SnapshotTableModel *m : models)
            resets << std::make_shared<QSignalSpy>(m, &QAbstractItemModel::modelReset);

        demo.advance(2000); // time passes, nothing changes
        const SnapshotPtr same = buildSnapshot(demo.capture());
        for (SnapshotTableModel *m : models)
            m->setSnapshot(same);
        for (int i = 0; i < models.size(); ++i)
            QCOMPARE(resets[i]->count(), 0);
        QCOMPARE(slices.snapshot(), same); // but the models read the newest snapshot

        QVERIFY(demo.scaleWorkerGroup(QStringLiteral("ml/tpu-team/v6e-2x4"), 2).ok);
        const SnapshotPtr scaled = buildSnapshot(demo.capture());
        for (SnapshotTableModel *m : models)
            m->setSnapshot(scaled);
        QCOMPARE(resets[0]->count(), 1); // a new slice
        QCOMPARE(resets[1]->count(), 0); // no placement group changed
        QCOMPARE(resets[2]->count(), 1); // replicas 1 -> 2
        QCOMPARE(resets[3]->count(), 1); // new hosts
    }

    void deterministic()
    {
        DemoCluster a(7), b(7), c(8);
        QCOMPARE(serializeCapture(a.capture()), serializeCapture(b.capture()));
        QVERIFY(serializeCapture(a.capture()) != serializeCapture(c.capture()));
        a.advance(5000);
        b.advance(2000);
        b.advance(3000);
        QCOMPARE(serializeCapture(a.capture()), serializeCapture(b.capture()));
    }

    void defaultScenarioLooksLikeATeamCluster()
    {
        DemoCluster demo;
        const SnapshotPtr s = snap(demo);
        QVERIFY(s->warnings.isEmpty());
        int v6e4x4 = 0;
        for (const Slice &sl : s->slices)
            v6e4x4 += sl.generation && sl.generation->name == QLatin1String("v6e") && sl.topology.toString() == QLatin1String("4x4");
        QVERIFY(v6e4x4 >= 3);
        QCOMPARE(slice(*s, QStringLiteral("v6e-2x4-0"))->hostCount(), 1);
        QCOMPARE(slice(*s, QStringLiteral("v6e-2x4-0"))->chipsPerHost, 8);
        QCOMPARE(slice(*s, QStringLiteral("v4-2x2x2-0"))->hostCount(), 2);
        QCOMPARE(slice(*s, QStringLiteral("v5p-4x4x4-0"))->hostCount(), 16);
        QCOMPARE(slice(*s, QStringLiteral("v5p-4x4x4-0"))->status(), SliceStatus::Ready);

        // One degraded slice, with a dead host.
        const Slice *degraded = slice(*s, QStringLiteral("v6e-4x4-3"));
        QCOMPARE(degraded->status(), SliceStatus::Degraded);
        QCOMPARE(degraded->hosts[2].state, HostState::Dead);
        // A partly used host: 2 of its 8 chips.
        QCOMPARE(slice(*s, QStringLiteral("v6e-2x4-0"))->hosts[0].reservedChips(), 2);
        // A slice placement group holding a whole slice, with its head reservation.
        const PlacementGroup *train = group(*s, QStringLiteral("llm-train"));
        QVERIFY(train);
        QCOMPARE(train->kind, PlacementGroup::Kind::Slice);
        QCOMPARE(train->slices, QStringList{QStringLiteral("v6e-4x4-0")});
        QCOMPARE(slice(*s, QStringLiteral("v6e-4x4-0"))->reservedChips, 16);
        QVERIFY(slice(*s, QStringLiteral("v6e-4x4-0"))->headHeldBy >= 0);
        // A pending group, and no REMOVED group.
        bool pending = false;
        for (const PlacementGroup &g : s->placementGroups) {
            pending = pending || g.state == QLatin1String("PENDING");
            QVERIFY(g.state != QLatin1String("REMOVED"));
        }
        QVERIFY(pending);
        QCOMPARE(s->workerGroups.size(), 4);
    }

    void submitReservesAReadySliceAfterAHeadReservation()
    {
        DemoCluster demo;
        SlicePlacementRequest req;
        req.accelerator = QStringLiteral("TPU-V6E");
        req.topology = QStringLiteral("4x4");
        req.name = QStringLiteral("exp-1");
        const ActionResult r = demo.submitSlicePlacementGroup(req);
        QVERIFY2(r.ok, qPrintable(r.message));

        demo.advance(1000); // job running, head PG waiting
        SnapshotPtr s = snap(demo);
        QCOMPARE(jobOf(*s, r.jobId)->status, QStringLiteral("RUNNING"));
        QVERIFY(!group(*s, QStringLiteral("exp-1")));
        int pendingHeads = 0;
        for (const PlacementGroup &g : s->placementGroups)
            pendingHeads += g.kind == PlacementGroup::Kind::SliceHead && g.state == QLatin1String("PENDING");
        QCOMPARE(pendingHeads, 2); // eval-8x8's and ours

        demo.advance(DemoCluster::kHeadReserveDelay + DemoCluster::kSliceReserveDelay);
        s = snap(demo);
        const PlacementGroup *pg = group(*s, QStringLiteral("exp-1"));
        QVERIFY(pg);
        QCOMPARE(pg->state, QStringLiteral("CREATED"));
        QCOMPARE(pg->bundles.size(), 4);
        QCOMPARE(pg->slices, QStringList{QStringLiteral("v6e-4x4-1")}); // the first ready one
        const Slice *taken = slice(*s, QStringLiteral("v6e-4x4-1"));
        QCOMPARE(taken->reservedChips, 16);
        QVERIFY(taken->headHeldBy >= 0);

        // The planner now sees one ready v6e 4x4 slice fewer.
        const PlanResult plan = planSlicePlacement(*s, {QStringLiteral("v6e"), QStringLiteral("4x4"), 1});
        QCOMPARE(plan.candidates, QStringList{QStringLiteral("v6e-4x4-2")});
    }

    void submitFailsWhenNothingFits()
    {
        DemoCluster demo;
        SlicePlacementRequest req;
        req.accelerator = QStringLiteral("v5p");
        req.topology = QStringLiteral("4x4x4");
        req.numSlices = 2; // there is one v5p 4x4x4 slice
        req.name = QStringLiteral("too-big");
        req.timeoutSeconds = 10;
        const ActionResult r = demo.submitSlicePlacementGroup(req);
        QVERIFY(r.ok);
        demo.advance(5000);
        SnapshotPtr s = snap(demo);
        QCOMPARE(jobOf(*s, r.jobId)->status, QStringLiteral("RUNNING"));
        QVERIFY(!group(*s, QStringLiteral("too-big")));
        demo.advance(6000);
        s = snap(demo);
        const Job *job = jobOf(*s, r.jobId);
        QCOMPARE(job->status, QStringLiteral("FAILED"));
        QVERIFY2(job->message.contains(QLatin1String("too-big")) && job->message.contains(QLatin1String("not ready within 10 s")), qPrintable(job->message));
        // All-or-nothing: the head reservation it got is gone again.
        QCOMPARE(slice(*s, QStringLiteral("v5p-4x4x4-0"))->status(), SliceStatus::Ready);
    }

    void invalidRequestsChangeNothing()
    {
        DemoCluster demo;
        const QByteArray before = serializeCapture(demo.capture());
        SlicePlacementRequest req;
        req.accelerator = QStringLiteral("v6e");
        req.topology = QStringLiteral("3x3"); // no topology Ray accepts for v6e (2x8 it does)
        req.name = QStringLiteral("x");
        ActionResult r = demo.submitSlicePlacementGroup(req);
        QVERIFY(!r.ok);
        QVERIFY2(r.message.contains(QLatin1String("ValueError")), qPrintable(r.message));
        r = demo.scaleWorkerGroup(QStringLiteral("ml/tpu-team/v6e-4x4"), 7);
        QVERIFY(!r.ok);
        QVERIFY2(r.message.contains(QLatin1String("0..6")), qPrintable(r.message));
        r = demo.removeSlice(QStringLiteral("nope-0"));
        QVERIFY(!r.ok);
        r = demo.releasePlacementGroup(QStringLiteral("nope"));
        QVERIFY(!r.ok);
        QCOMPARE(serializeCapture(demo.capture()), before);
    }

    void releaseStopsTheHoldingJob()
    {
        DemoCluster demo;
        const ActionResult r = demo.releasePlacementGroup(QStringLiteral("llm-train"));
        QVERIFY2(r.ok, qPrintable(r.message));
        const SnapshotPtr s = snap(demo);
        QVERIFY(!group(*s, QStringLiteral("llm-train")));
        QCOMPARE(jobOf(*s, r.jobId)->status, QStringLiteral("STOPPED"));
        QCOMPARE(slice(*s, QStringLiteral("v6e-4x4-0"))->status(), SliceStatus::Ready); // head released too
    }

    void scaleUpGoesThroughPendingPods()
    {
        DemoCluster demo;
        const ActionResult r = demo.scaleWorkerGroup(QStringLiteral("ml/tpu-team/v6e-4x4"), 5);
        QVERIFY2(r.ok, qPrintable(r.message));
        SnapshotPtr s = snap(demo);
        const Slice *fresh = slice(*s, QStringLiteral("v6e-4x4-4"));
        QVERIFY(fresh);
        QCOMPARE(fresh->status(), SliceStatus::Provisioning);
        QCOMPARE(fresh->source, SliceSource::Kubernetes);
        QCOMPARE(s->workerGroups[s->workerGroupIndex(QStringLiteral("ml/tpu-team/v6e-4x4"))].replicas, 5);
        demo.advance(DemoCluster::kPodStartDelay);
        s = snap(demo);
        QCOMPARE(slice(*s, QStringLiteral("v6e-4x4-4"))->status(), SliceStatus::Provisioning); // running, Ray not joined
        demo.advance(DemoCluster::kRayJoinDelay);
        s = snap(demo);
        fresh = slice(*s, QStringLiteral("v6e-4x4-4"));
        QCOMPARE(fresh->status(), SliceStatus::Ready);
        QCOMPARE(fresh->source, SliceSource::Both);
    }

    void scaleDownAndRemoveASlice()
    {
        DemoCluster demo;
        ActionResult r = demo.removeSlice(QStringLiteral("v6e-4x4-3"));
        QVERIFY2(r.ok, qPrintable(r.message));
        SnapshotPtr s = snap(demo);
        const WorkerGroup &g = s->workerGroups[s->workerGroupIndex(QStringLiteral("ml/tpu-team/v6e-4x4"))];
        QCOMPARE(g.replicas, 3);
        QCOMPARE(g.workersToDelete.size(), 4);
        demo.advance(DemoCluster::kPodStopDelay + 1000);
        s = snap(demo);
        const WorkerGroup &after = s->workerGroups[s->workerGroupIndex(QStringLiteral("ml/tpu-team/v6e-4x4"))];
        QVERIFY(after.workersToDelete.isEmpty());
        QCOMPARE(after.slices, (QStringList{QStringLiteral("v6e-4x4-0"), QStringLiteral("v6e-4x4-1"), QStringLiteral("v6e-4x4-2")}));
        // Ray still lists the dead nodes of the removed slice, as it does for a while, but with
        // its pods gone the slice is history, not a degraded slice (issue 12).
        QVERIFY(!slice(*s, QStringLiteral("v6e-4x4-3")));
        const bool deadNodesListed = std::any_of(s->rayNodes.cbegin(), s->rayNodes.cend(), [](const RayNode &n) {
            return n.sliceName == QLatin1String("v6e-4x4-3") && !n.alive;
        });
        QVERIFY(deadNodesListed);

        r = demo.scaleWorkerGroup(QStringLiteral("v4-2x2x2"), 0);
        QVERIFY2(r.ok, qPrintable(r.message));
        demo.advance(DemoCluster::kPodStopDelay);
        s = snap(demo);
        // rl-rollout loses its hosts: Ray reschedules it.
        QCOMPARE(group(*s, QStringLiteral("rl-rollout"))->state, QStringLiteral("RESCHEDULING"));
    }

    // Out of the box the demo tells a story over its first minutes (issue 6): a host dies, a group
    // waits for slices, the worker group scales up and lets it through, the broken slice goes.
    void storyUnfolds()
    {
        DemoCluster demo;
        demo.advance(DemoCluster::kStoryHostDiesMs - 1000);
        QCOMPARE(slice(*snap(demo), QStringLiteral("v6e-4x4-2"))->status(), SliceStatus::Ready);
        demo.advance(2000);
        SnapshotPtr s = snap(demo);
        QCOMPARE(slice(*s, QStringLiteral("v6e-4x4-2"))->status(), SliceStatus::Degraded);
        QCOMPARE(slice(*s, QStringLiteral("v6e-4x4-2"))->hosts[1].state, HostState::Dead);

        demo.advance(DemoCluster::kStoryGroupPendsMs - demo.elapsedMs() + 5000);
        s = snap(demo);
        QVERIFY(group(*s, QStringLiteral("batch-infer")) == nullptr || group(*s, QStringLiteral("batch-infer"))->state != QLatin1String("CREATED"));
        QVERIFY2(std::any_of(s->placementGroups.begin(), s->placementGroups.end(),
                             [](const PlacementGroup &g) { return g.state == QLatin1String("PENDING"); }),
                 "nothing is pending while batch-infer waits for a second slice");

        demo.advance(DemoCluster::kStoryScaleUpMs - demo.elapsedMs() + 1000);
        s = snap(demo);
        QCOMPARE(s->workerGroups[s->workerGroupIndex(u"ml/tpu-team/v6e-4x4")].replicas, 5);
        QCOMPARE(slice(*s, QStringLiteral("v6e-4x4-4"))->status(), SliceStatus::Provisioning);

        demo.advance(DemoCluster::kPodStartDelay + DemoCluster::kRayJoinDelay + 5000);
        s = snap(demo);
        QVERIFY(group(*s, QStringLiteral("batch-infer")));
        QCOMPARE(group(*s, QStringLiteral("batch-infer"))->state, QStringLiteral("CREATED"));
        QCOMPARE(group(*s, QStringLiteral("batch-infer"))->slices, (QStringList{QStringLiteral("v6e-4x4-1"), QStringLiteral("v6e-4x4-4")}));

        demo.advance(DemoCluster::kStoryRemoveDegradedMs - demo.elapsedMs() + 5000);
        s = snap(demo);
        const WorkerGroup &g = s->workerGroups[s->workerGroupIndex(u"ml/tpu-team/v6e-4x4")];
        QCOMPARE(g.replicas, 4);
        QVERIFY2(!g.slices.contains(QStringLiteral("v6e-4x4-2")), qPrintable(g.slices.join(u' '))); // its pods are gone (Ray's dead nodes linger)
    }

    void sourceEmitsCapturesOnActions()
    {
        DemoSource source;
        QSignalSpy spy(&source, &Source::captureReceived);
        source.start();
        QCOMPARE(spy.count(), 1);
        const ActionResult r = source.act([](DemoCluster &c) { return c.scaleWorkerGroup(QStringLiteral("v6e-2x4"), 2); });
        QVERIFY(r.ok);
        QCOMPARE(spy.count(), 2);
        const SnapshotPtr s = buildSnapshot(spy.last().first().value<Capture>());
        QVERIFY(s->sliceIndex(QStringLiteral("v6e-2x4-1")) >= 0);
    }
};

QTEST_GUILESS_MAIN(TestDemoSimulator)
#include "tst_demosimulator.moc"
