// SPDX-License-Identifier: GPL-3.0-or-later
// The fleet (issue 16) in the model: a context's capture with a Ray view per RayCluster, each joined
// to its own cluster's pods only; a fleet capture of several contexts; identity on every slice,
// group and alert; repeated names never merged; the capture format's added members round-tripped.

#include "capturecodec.h"
#include "capturefixture.h"
#include "fleetcapturefixture.h"
#include "fleetfilter.h"
#include "fleetgrouping.h"
#include "inspectjson.h"
#include "snapshot.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

using namespace slicescope;
using namespace slicescope::testfixture;

namespace {

const Slice *findSlice(const ClusterSnapshot &s, const QString &rayCluster, const QString &context = {})
{
    for (const Slice &slice : s.slices)
        if (slice.rayCluster == rayCluster && (context.isEmpty() || slice.context == context)) return &slice;
    return nullptr;
}

// A context with one RayCluster, team-a/llm, and its Ray view (with `ray status` saying `status`).
Capture oneClusterContext(const QString &context, const QString &status, const QString &pg = {})
{
    CaptureBuilder kube;
    addCluster(kube, QStringLiteral("team-a"), QStringLiteral("llm"), QStringLiteral("10.1.0."), QStringLiteral("gke-a-"));
    Capture c = kubeOnly(kube, context);
    c.rayClusters = {rayView(QStringLiteral("team-a/llm"), QStringLiteral("10.1.0."), context, pg)};
    c.rayClusters[0].rayClusterStatus = R"({"result":true,"msg":"","data":{"clusterStatus":")" + status.toUtf8() + R"("}})";
    return c;
}

// The same bytes in buffers of their own, as the next poll's answers are.
Capture detached(Capture c)
{
    for (QByteArray *b : {&c.rayVersion, &c.rayNodes, &c.rayPlacementGroups, &c.rayJobs, &c.rayClusterStatus, &c.rayNodeSummary, &c.kubeRayClusters, &c.kubePods, &c.kubeNodes})
        *b = QByteArray(b->constData(), b->size());
    for (Capture &view : c.rayClusters)
        view = detached(view);
    for (Capture &member : c.fleet)
        member = detached(member);
    return c;
}

} // namespace

class TestFleet : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // Before issue 16 the second cluster's chips looked unreserved whatever its Ray said: now each
    // view is joined to its own cluster's pods, and a group of one never lands on the other.
    void eachRayClusterJoinsItsOwnSlices()
    {
        const SnapshotPtr s = buildSnapshot(twoClusterContext(QStringLiteral("gke_us")));
        QVERIFY2(s->errors.isEmpty(), qPrintable(s->errors.join(u'\n')));
        QCOMPARE(s->slices.size(), 2);
        const Slice *a = findSlice(*s, QStringLiteral("team-a/llm"));
        const Slice *b = findSlice(*s, QStringLiteral("team-b/rl"));
        QVERIFY(a && b);
        // The same TPU_NAME in two clusters: two slices, named by cluster, the Ray name kept.
        QCOMPARE(a->name, QStringLiteral("team-a/llm/tpu-0"));
        QCOMPARE(b->name, QStringLiteral("team-b/rl/tpu-0"));
        QCOMPARE(a->rayName, QStringLiteral("tpu-0"));
        QCOMPARE(a->source, SliceSource::Both);
        QCOMPARE(b->source, SliceSource::Both);
        QVERIFY(a->intact && b->intact);
        QCOMPARE(a->reservedChips, 16);
        QCOMPARE(b->reservedChips, 0);
        QCOMPARE(a->context, QStringLiteral("gke_us"));
        QCOMPARE(a->workerGroup, QStringLiteral("team-a/llm/tpu"));
        // Every host of each slice is its own cluster's Ray node and pod.
        for (const Slice *slice : {a, b})
            for (const Host &h : slice->hosts) {
                QVERIFY(h.rayNode >= 0 && h.pod >= 0 && h.kubeNode >= 0);
                QCOMPARE(s->rayNodes[h.rayNode].rayCluster, slice->rayCluster);
                QCOMPARE(s->pods[h.pod].ns + u'/' + s->pods[h.pod].cluster, slice->rayCluster);
                QCOMPARE(s->kubeNodes[h.kubeNode].name, s->pods[h.pod].nodeName);
            }
        QCOMPARE(s->placementGroups.size(), 1);
        const PlacementGroup &g = s->placementGroups.first();
        QCOMPARE(g.rayCluster, QStringLiteral("team-a/llm"));
        QCOMPARE(g.slices, QStringList{QStringLiteral("team-a/llm/tpu-0")});
        for (const Bundle &bundle : g.bundles)
            QCOMPARE(s->slices[bundle.slice].name, a->name);
        QCOMPARE(s->kubeNodes.size(), 2 * kHosts); // listed once, though each scope read them
        QCOMPARE(s->contexts, QStringList{QStringLiteral("gke_us")});
        QCOMPARE(s->rayViews.size(), 2);
        QVERIFY(s->rayViews[0].answered && s->rayViews[1].answered);
        QCOMPARE(s->workerGroups.size(), 2);
        QCOMPARE(s->workerGroups[1].context, QStringLiteral("gke_us"));
    }

    // A head that does not answer is that cluster's problem alone: its slice stays, known from
    // Kubernetes, with the reason; the other cluster's view is whole.
    void anUnreachableHeadDegradesOnlyItsCluster()
    {
        Capture c = twoClusterContext(QStringLiteral("gke_us"));
        Capture &b = c.rayClusters[1];
        b.rayNodes.clear();
        b.rayPlacementGroups.clear();
        b.rayVersion.clear();
        b.rayError = QStringLiteral("connection refused");
        const SnapshotPtr s = buildSnapshot(c);
        QCOMPARE(s->slices.size(), 2);
        const Slice *a = findSlice(*s, QStringLiteral("team-a/llm"));
        const Slice *rl = findSlice(*s, QStringLiteral("team-b/rl"));
        QVERIFY(a && rl);
        QCOMPARE(a->source, SliceSource::Both);
        QCOMPARE(a->reservedChips, 16);
        QCOMPARE(rl->source, SliceSource::Kubernetes);
        QCOMPARE(s->rayViews.size(), 2);
        QCOMPARE(s->rayViews[1].cluster, QStringLiteral("team-b/rl"));
        QVERIFY(!s->rayViews[1].answered);
        QCOMPARE(s->rayViews[1].error, QStringLiteral("connection refused"));
        QVERIFY2(s->warnings.contains(QStringLiteral("RayCluster team-b/rl: connection refused")), qPrintable(s->warnings.join(u'\n')));
        QVERIFY2(s->errors.isEmpty(), qPrintable(s->errors.join(u'\n'))); // a part down is no unreadable body
        // ... and rl's tile says so; llm's does not.
        // It never answered: its tile says its reservations are unknown, not that a last view is shown.
        const FleetGrouping grouping = groupFleet(*s);
        for (const FleetEntry &e : grouping.entries)
            QCOMPARE(e.note == QLatin1String("Ray not answering, reservations unknown: connection refused"), s->slices[e.slice].rayCluster == QLatin1String("team-b/rl"));
        // One context, two RayClusters: a section each, the one whose Ray is down says why.
        QCOMPARE(grouping.sections.size(), 2);
        QCOMPARE(grouping.sections[0].title, QStringLiteral("RayCluster team-a/llm"));
        QVERIFY(grouping.sections[0].down.isEmpty());
        QCOMPARE(grouping.sections[1].title, QStringLiteral("RayCluster team-b/rl"));
        QCOMPARE(grouping.sections[1].down, QStringLiteral("connection refused"));

        // Once it has answered, a later failure keeps its last view and says so.
        Capture again = twoClusterContext(QStringLiteral("gke_us"));
        again.rayClusters[1].rayError = QStringLiteral("connection refused");
        const SnapshotPtr later = buildSnapshot(again);
        QVERIFY(later->rayViews[1].answered);
        for (const FleetEntry &e : groupFleet(*later).entries)
            QCOMPARE(e.note == QLatin1String("Ray not answering, last view shown: connection refused"), later->slices[e.slice].rayCluster == QLatin1String("team-b/rl"));
    }

    // Two contexts with the same namespaces, clusters, slices and node names: four slices, none
    // merged, each with its context; Kubernetes nodes are per context.
    void contextsOfAFleetNeverMerge()
    {
        const Capture fleet = fleetOf({twoClusterContext(QStringLiteral("gke_us")), twoClusterContext(QStringLiteral("gke_eu"))});
        const SnapshotPtr s = buildSnapshot(fleet);
        QVERIFY2(s->errors.isEmpty(), qPrintable(s->errors.join(u'\n')));
        QCOMPARE(s->slices.size(), 4);
        QCOMPARE(s->contexts, (QStringList{QStringLiteral("gke_us"), QStringLiteral("gke_eu")}));
        QVERIFY(s->kubeContext.isEmpty()); // several
        QCOMPARE(s->kubeNodes.size(), 4 * kHosts);
        QStringList names;
        for (const Slice &slice : s->slices) {
            names << slice.name;
            QCOMPARE(slice.rayName, QStringLiteral("tpu-0"));
            QCOMPARE(slice.reservedChips, slice.rayCluster == QLatin1String("team-a/llm") ? 16 : 0);
        }
        QCOMPARE(names, (QStringList{QStringLiteral("gke_eu:team-a/llm/tpu-0"), QStringLiteral("gke_eu:team-b/rl/tpu-0"), QStringLiteral("gke_us:team-a/llm/tpu-0"),
                                     QStringLiteral("gke_us:team-b/rl/tpu-0")}));
        QCOMPARE(s->placementGroups.size(), 2);
        for (const PlacementGroup &g : s->placementGroups) {
            QCOMPARE(g.slices.size(), 1);
            const Slice &held = s->slices[s->sliceIndex(g.slices.first())];
            QCOMPARE(held.context, g.context);
            QCOMPARE(held.rayCluster, QStringLiteral("team-a/llm"));
            for (const Bundle &bundle : g.bundles)
                QCOMPARE(bundle.slice, s->sliceIndex(held.name));
        }
        // inspect --json: context and rayCluster on slices, hosts, groups, worker groups and alerts.
        const QJsonObject doc = inspectJson(*s);
        for (const QJsonValue &v : doc.value(QLatin1String("slices")).toArray()) {
            const QJsonObject slice = v.toObject();
            QVERIFY(slice.value(QLatin1String("name")).toString().startsWith(slice.value(QLatin1String("context")).toString() + u':'));
            QCOMPARE(slice.value(QLatin1String("rayName")).toString(), QStringLiteral("tpu-0"));
            for (const QJsonValue &h : slice.value(QLatin1String("hosts")).toArray())
                QCOMPARE(h.toObject().value(QLatin1String("rayCluster")), slice.value(QLatin1String("rayCluster")));
        }
        for (const QJsonValue &v : doc.value(QLatin1String("placementGroups")).toArray())
            QCOMPARE(v.toObject().value(QLatin1String("rayCluster")).toString(), QStringLiteral("team-a/llm"));
        QCOMPARE(doc.value(QLatin1String("workerGroups")).toArray().size(), 4);
        QCOMPARE(doc.value(QLatin1String("workerGroups")).toArray().at(2).toObject().value(QLatin1String("context")).toString(), QStringLiteral("gke_eu"));
        QCOMPARE(doc.value(QLatin1String("contexts")).toArray().size(), 2);
        QCOMPARE(doc.value(QLatin1String("rayViews")).toArray().size(), 4);
    }

    // The overview of a fleet: context first, then cluster, then generation; the search box finds
    // a context or a cluster by name.
    void overviewGroupsByContextThenCluster()
    {
        const Capture fleet = fleetOf({twoClusterContext(QStringLiteral("gke_us")), twoClusterContext(QStringLiteral("gke_eu"))});
        const SnapshotPtr s = buildSnapshot(fleet);
        const FleetGrouping grouping = groupFleet(*s);
        QStringList titles;
        for (const FleetGroup &g : grouping.groups)
            titles << g.title;
        // Under a header per context, with its fleet figures: the group titles leave the context out.
        QCOMPARE(titles, (QStringList{QStringLiteral("v6e · team-a/llm/tpu"), QStringLiteral("v6e · team-b/rl/tpu"), QStringLiteral("v6e · team-a/llm/tpu"),
                                      QStringLiteral("v6e · team-b/rl/tpu")}));
        QCOMPARE(grouping.sections.size(), 2);
        QCOMPARE(grouping.sections[0].title, QStringLiteral("gke_eu"));
        QCOMPARE(grouping.sections[1].title, QStringLiteral("gke_us"));
        for (const FleetSection &section : grouping.sections) {
            QCOMPARE(section.counts.slices, 2);
            QCOMPARE(section.groups.size(), 2);
            QCOMPARE(section.counts.reserved(), 1); // llm's slice is held
            QCOMPARE(section.counts.reservedChips, 16);
            QCOMPARE(section.counts.chips, 32);
            QVERIFY(section.down.isEmpty());
            for (int g : section.groups)
                QCOMPARE(grouping.groups[g].context, section.title);
        }
        QVERIFY(grouping.groups[0].key != grouping.groups[2].key); // same title, two contexts

        // Generation first: one section per generation, the groups name their context.
        const FleetGrouping byGeneration = groupFleet(*s, FleetOrder::GenerationFirst);
        QCOMPARE(byGeneration.sections.size(), 1);
        QCOMPARE(byGeneration.sections[0].title, QStringLiteral("v6e"));
        QCOMPARE(byGeneration.sections[0].counts.slices, 4);
        titles.clear();
        for (const FleetGroup &g : byGeneration.groups)
            titles << g.title;
        QCOMPARE(titles, (QStringList{QStringLiteral("gke_eu · team-a/llm/tpu"), QStringLiteral("gke_eu · team-b/rl/tpu"), QStringLiteral("gke_us · team-a/llm/tpu"),
                                      QStringLiteral("gke_us · team-b/rl/tpu")}));
        int matchesUs = 0, matchesRl = 0;
        for (const FleetEntry &e : grouping.entries) {
            matchesUs += e.haystack.contains(QLatin1String("gke_us"));
            matchesRl += e.haystack.contains(QLatin1String("team-b/rl"));
        }
        QCOMPARE(matchesUs, 2);
        QCOMPARE(matchesRl, 2);
    }

    // An alert says whose slice it is about.
    void alertsCarryTheirIdentity()
    {
        Capture eu = twoClusterContext(QStringLiteral("gke_eu"));
        // rl's worker 2 dead in Ray: rl's slice is degraded in eu only.
        CaptureBuilder ray;
        SliceSpec spec{QStringLiteral("tpu-0"), QStringLiteral("TPU-V6E"), QStringLiteral("v6e-16"), QStringLiteral("4x4"), QStringLiteral("tpu"), kHosts, 4, {2}, {}, hexId(QStringLiteral("eu-rl"), 48), QStringLiteral("10.2.0.")};
        ray.addSlice(spec);
        eu.rayClusters[1] = ray.capture(false);
        eu.rayClusters[1].rayCluster = QStringLiteral("team-b/rl");
        const Capture fleet = fleetOf({twoClusterContext(QStringLiteral("gke_us")), eu});
        const SnapshotPtr s = buildSnapshot(fleet);
        const QJsonArray alerts = inspectJson(*s).value(QLatin1String("alerts")).toArray();
        bool found = false;
        for (const QJsonValue &v : alerts) {
            const QJsonObject a = v.toObject();
            if (a.value(QLatin1String("kind")).toString() != QLatin1String("slice-degraded")) continue;
            found = true;
            QCOMPARE(a.value(QLatin1String("context")).toString(), QStringLiteral("gke_eu"));
            QCOMPARE(a.value(QLatin1String("rayCluster")).toString(), QStringLiteral("team-b/rl"));
            QCOMPARE(a.value(QLatin1String("slice")).toString(), QStringLiteral("gke_eu:team-b/rl/tpu-0"));
        }
        QVERIFY2(found, "no slice-degraded alert");
    }

    // The added members (ray.cluster, ray.error, rayClusters, fleet) survive a file; the snapshot of
    // the read capture is the snapshot of the written one.
    void fleetCaptureRoundTrip()
    {
        Capture us = twoClusterContext(QStringLiteral("gke_us"));
        us.rayClusters[1].rayError = QStringLiteral("HTTP 503 from the service proxy");
        const Capture fleet = fleetOf({us, twoClusterContext(QStringLiteral("gke_eu"))});
        const QByteArray bytes = serializeCapture(fleet);
        QVERIFY(!bytes.contains('\n'));
        const CaptureReadResult read = parseCapture(bytes, QStringLiteral("fleet.slicescope.json"));
        QVERIFY2(read.ok(), qPrintable(read.error));
        const Capture &back = read.captures.first();
        QCOMPARE(back.fleet.size(), 2);
        QCOMPARE(back.fleet[0].kubeContext, QStringLiteral("gke_us"));
        QCOMPARE(back.fleet[0].rayClusters.size(), 2);
        QCOMPARE(back.fleet[0].rayClusters[1].rayCluster, QStringLiteral("team-b/rl"));
        QCOMPARE(back.fleet[0].rayClusters[1].rayError, QStringLiteral("HTTP 503 from the service proxy"));
        QCOMPARE(back.fleet[1].capturedAt, fleet.capturedAt);
        QCOMPARE(inspectJson(*buildSnapshot(back)), inspectJson(*buildSnapshot(fleet)));
        QCOMPARE(serializeCapture(back), bytes);
    }

    // A context whose bodies did not change is not built again (the lists of the snapshot before are
    // the very lists of the next: implicit sharing), though every poll brings new buffers and a new
    // `ray status` (its first line is a time); its new status text is shown all the same. A changed
    // list, chip activity (whose ages run from the capture's time) or a status that cannot be read
    // is built again.
    void anUnchangedContextIsNotBuiltAgain()
    {
        const QString ctx = QStringLiteral("gke_memo");
        Capture first = fleetOf({oneClusterContext(ctx, QStringLiteral("status at 10:00:00"), QStringLiteral("train"))});
        const SnapshotPtr s1 = buildSnapshot(first);
        QVERIFY2(s1->errors.isEmpty(), qPrintable(s1->errors.join(u'\n')));
        QCOMPARE(s1->clusterStatusText, QStringLiteral("status at 10:00:00"));
        QCOMPARE(s1->placementGroups.size(), 1);
        QCOMPARE(s1->slices.size(), 1);
        QCOMPARE(s1->slices[0].reservedChips, 16);

        Capture second = fleetOf({detached(oneClusterContext(ctx, QStringLiteral("status at 10:00:02"), QStringLiteral("train")))});
        second.capturedAt = first.capturedAt.addSecs(2);
        second.fleet[0].capturedAt = second.capturedAt;
        const SnapshotPtr s2 = buildSnapshot(second);
        QCOMPARE(s2->slices.constData(), s1->slices.constData());
        QCOMPARE(s2->rayNodes.constData(), s1->rayNodes.constData());
        QCOMPARE(s2->clusterStatusText, QStringLiteral("status at 10:00:02"));
        QCOMPARE(s2->capturedAt, second.capturedAt);
        QCOMPARE(inspectJson(*s2).value(QStringLiteral("slices")), inspectJson(*s1).value(QStringLiteral("slices")));

        // The group is gone from Ray's list: built again, and the slice is free.
        Capture third = fleetOf({oneClusterContext(ctx, QStringLiteral("status at 10:00:04"))});
        third.capturedAt = second.capturedAt.addSecs(2);
        const SnapshotPtr s3 = buildSnapshot(third);
        QVERIFY(s3->slices.constData() != s2->slices.constData());
        QCOMPARE(s3->placementGroups.size(), 0);
        QCOMPARE(s3->slices[0].reservedChips, 0);
        QCOMPARE(s3->clusterStatusText, QStringLiteral("status at 10:00:04"));

        // A status body that cannot be read: built again, and said.
        Capture fourth = detached(third);
        fourth.capturedAt = third.capturedAt.addSecs(2);
        fourth.fleet[0].rayClusters[0].rayClusterStatus = "{\"data\": ";
        const SnapshotPtr s4 = buildSnapshot(fourth);
        QVERIFY(s4->slices.constData() != s3->slices.constData());
        QVERIFY2(s4->errors.join(u'\n').contains(QLatin1String("ray.cluster_status")), qPrintable(s4->errors.join(u'\n')));

        // Chip activity depends on the time: the same bytes at a later time are built again.
        Capture fifth = fleetOf({oneClusterContext(ctx, QStringLiteral("status"))});
        fifth.fleet[0].rayClusters[0].rayNodeSummary = R"({"result":true,"msg":"","data":{"summary":[]}})";
        const SnapshotPtr s5 = buildSnapshot(fifth);
        Capture sixth = detached(fifth);
        sixth.capturedAt = fifth.capturedAt.addSecs(2);
        sixth.fleet[0].capturedAt = sixth.capturedAt;
        const SnapshotPtr s6 = buildSnapshot(sixth);
        QVERIFY(s6->slices.constData() != s5->slices.constData());
        QCOMPARE(s6->capturedAt, sixth.capturedAt);
    }

    // A fleet inside a fleet, or Ray views inside a Ray view, is refused with its place named.
    void nestingIsBounded()
    {
        const QByteArray nested = R"({"format":"slicescope-capture/1","fleet":[{"fleet":[]}]})";
        const CaptureReadResult r = parseCapture(nested, QStringLiteral("n.json"));
        QVERIFY(!r.ok());
        QVERIFY2(r.error.contains(QLatin1String("fleet[0].fleet")) && r.error.contains(QLatin1String("cannot hold a fleet")), qPrintable(r.error));
        const QByteArray notAnArray = R"({"format":"slicescope-capture/1","rayClusters":{"cluster":"a/b"}})";
        const CaptureReadResult r2 = parseCapture(notAnArray, QStringLiteral("n.json"));
        QVERIFY2(!r2.ok() && r2.error.contains(QLatin1String("rayClusters: expected an array")), qPrintable(r2.error));
    }
};

QTEST_GUILESS_MAIN(TestFleet)
#include "tst_fleet.moc"
