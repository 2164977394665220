// SPDX-License-Identifier: GPL-3.0-or-later
// What real clusters do, read right (issue 12): captures shaped after Ray 2.60, KubeRay 1.5/1.6
// and the GKE Ray TPU webhook (tests/data/captures/real-world/README.md says where each comes
// from and what a correct tool shows), and small variations of them (../conventions/). Each goes
// through readCaptureFixture() (readCaptureFile() without the file bounds) and buildSnapshot(), exactly the path live data takes.

#include "capturefixture.h"
#include "history.h"
#include "inspectjson.h"
#include "planner.h"
#include "snapshot.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace slicescope;
using slicescope::testfixture::sliceNamed;

namespace {

SnapshotPtr load(const QString &relative, QString *error);
SnapshotPtr load(const char *relative, QString *error) { return load(QString::fromUtf8(relative), error); }

SnapshotPtr load(const QString &relative, QString *error)
{
    CaptureReadResult read = testfixture::readCaptureFixture(QStringLiteral(SLICESCOPE_TEST_DATA "/captures/") + relative + QStringLiteral(".slicescope.json"));
    if (!read.ok() || read.captures.size() != 1) {
        *error = read.ok() ? QStringLiteral("%1: not one capture").arg(relative) : read.error;
        return {};
    }
    return buildSnapshot(read.captures.first());
}

#define LOAD(var, name) \
    QString loadError_; \
    const SnapshotPtr var = load(name, &loadError_); \
    QVERIFY2(var, qPrintable(loadError_)); \
    QVERIFY2(var->errors.isEmpty(), qPrintable(var->errors.join(u'\n')))

// "name status generation topology hosts x chips reserved: states", one per slice, in order.
QStringList summary(const ClusterSnapshot &s)
{
    QStringList out;
    for (const Slice &slice : s.slices) {
        QStringList states;
        for (const Host &h : slice.hosts)
            states << toText(h.state);
        out << QStringLiteral("%1 %2 %3 %4 %5x%6 %7: %8")
                   .arg(slice.name, toText(slice.status()), slice.generation ? slice.generation->name : QStringLiteral("?"),
                        slice.topology.chips() ? slice.topology.toString() : QStringLiteral("?"))
                   .arg(slice.hostCount())
                   .arg(slice.chipsPerHost)
                   .arg(slice.reservedChips)
                   .arg(states.join(u','));
    }
    return out;
}

QStringList L(std::initializer_list<const char *> items)
{
    QStringList out;
    for (const char *s : items)
        out << QString::fromUtf8(s);
    return out;
}

bool anyContains(const QStringList &list, const QString &part)
{
    return std::any_of(list.cbegin(), list.cend(), [&](const QString &s) { return s.contains(part); });
}

} // namespace

class TestConventions : public QObject
{
    Q_OBJECT

private slots:
    void slices_data();
    void slices();

    void unknownAcceleratorDrawsNoChips();
    void failedAndEvictedPodsSayWhy();
    void terminatingPodsAreNotCapacity();
    void sharedNamesAreNeverMerged();
    void placementGroupsRayMakes();
    void unitsPerChip();
    void v7xContainersAndRayWorkerIds();
    void multisliceEnvIsShown();
    void clampedReplicasAreSaid();
    void aRemovalReadsAsARemoval();
    void aRestartedRayNodeIsOneHost();
};

// Every fixture, slice by slice: names, status, shape, hosts and their states. Expectations are
// the README's "a correct tool must show", derived from the sources, not from program output.
void TestConventions::slices_data()
{
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<QStringList>("expected");

    QTest::newRow("KubeRay 1.6 v6e 4x4") << "real-world/kuberay16-v6e-4x4"
                                         << L({"tpu-group-0 reserved v6e 4x4 4x4 16: ALIVE,ALIVE,ALIVE,ALIVE"});
    QTest::newRow("KubeRay 1.5 v4 legacy labels") << "real-world/kuberay15-v4-2x2x2-legacy"
                                                  << L({"tpu-group-0 ready v4 2x2x2 2x4 0: ALIVE,ALIVE"});
    // Three single-host replicas, two of them named tpu-group-2 by the webhook's counter: three
    // slices (Ray keys single-host slices by node); the dead replica 1 is history.
    QTest::newRow("single-host name collision") << "real-world/kuberay16-singlehost-name-collision"
                                                << L({"tpu-group-0 ready v6e 2x2 1x4 0: ALIVE", "tpu-group-2 ready v6e 2x2 1x4 0: ALIVE",
                                                      "tpu-group-2 (2) ready v6e 2x2 1x4 0: ALIVE"});
    // google.com/tpu summed over two containers: 2 hosts of 4 chips; Ray's worker id 2 is host 1.
    // Ray advertises only the Ray container's 2 TPU, so Ray cannot use the slice whole: degraded.
    QTest::newRow("v7x two containers") << "real-world/webhook-v7x-two-containers"
                                        << L({"tpu-group-0 degraded v7x 2x2x2 2x4 0: ALIVE,ALIVE"});
    QTest::newRow("single-host slice placement group") << "real-world/ray-single-host-slice-pg"
                                                       << L({"tpu-group-0 ready v6e 2x2 1x4 0: ALIVE", "tpu-group-1 reserved v6e 2x2 1x4 4: ALIVE"});
    QTest::newRow("pg_per_slice") << "real-world/ray-pg-per-slice"
                                  << L({"tpu-group-0 reserved v6e 4x4 4x4 16: ALIVE,ALIVE,ALIVE,ALIVE",
                                        "tpu-group-1 reserved v6e 4x4 4x4 16: ALIVE,ALIVE,ALIVE,ALIVE"});
    QTest::newRow("16 one-chip bundles") << "real-world/ray-one-chip-bundles"
                                         << L({"tpu-group-0 reserved v6e 4x4 4x4 16: ALIVE,ALIVE,ALIVE,ALIVE"});
    QTest::newRow("pod Failed in a node shutdown") << "real-world/kube-failed-node-shutdown"
                                                   << L({"tpu-group-0 degraded v6e 4x4 4x4 0: ALIVE,ALIVE,DEAD,ALIVE"});
    QTest::newRow("pod evicted") << "real-world/kube-evicted"
                                 << L({"tpu-group-0 ready v6e 2x2 1x4 0: ALIVE", "tpu-group-1 degraded v6e 2x2 1x4 0: DEAD"});
    // Pods with a deletionTimestamp, Ray nodes still alive: going away, never free capacity.
    QTest::newRow("pods being deleted") << "real-world/kube-terminating-workerstodelete"
                                        << L({"tpu-group-0 ready v6e 4x4 4x4 0: ALIVE,ALIVE,ALIVE,ALIVE",
                                              "tpu-group-1 degraded v6e 4x4 4x4 0: DEAD,DEAD,DEAD,DEAD"});
    QTest::newRow("observedGeneration stale") << "real-world/kuberay-observed-generation-stale"
                                              << L({"tpu-group-0 ready v6e 4x4 4x4 0: ALIVE,ALIVE,ALIVE,ALIVE"});
    QTest::newRow("multislice") << "real-world/webhook-multislice-megascale"
                                << L({"tpu-group-0 ready v4 2x2x2 2x4 0: ALIVE,ALIVE", "tpu-group-1 ready v4 2x2x2 2x4 0: ALIVE,ALIVE"});
    QTest::newRow("tpu-v5-lite-device") << "real-world/gke-v5e-lite-device"
                                        << L({"tpu-group-0 ready v5e 2x4 1x8 0: ALIVE"});
    QTest::newRow("RAY_TPU_RESOURCE_PER_CHIP") << "real-world/ray-v7x-resource-per-chip"
                                               << L({"tpu-group-0 reserved v7x 2x2x2 2x4 8: ALIVE,ALIVE"});
    // The replacement pods the webhook named after the live tpu-group-2 (worker ids 2 and 3 of a
    // 2-host slice) are a set of their own; the live slice stays ready; replica 1 is history.
    QTest::newRow("multi-host name collision") << "real-world/kuberay15-v4-multihost-name-collision"
                                               << L({"tpu-group-0 ready v4 2x2x2 2x4 0: ALIVE,ALIVE", "tpu-group-2 ready v4 2x2x2 2x4 0: ALIVE,ALIVE",
                                                     "tpu-group-2 (2) degraded v4 2x2x2 2x4 0: MISSING,MISSING"});
    QTest::newRow("removed slice, Ray only") << "conventions/ray-removed-slice"
                                             << L({"tpu-group-0 reserved v6e 4x4 4x4 16: ALIVE,ALIVE,ALIVE,ALIVE",
                                                   "tpu-group-2 degraded v6e 4x4 4x4 0: DEAD,DEAD,DEAD,DEAD"});
    QTest::newRow("removed slice, with Kubernetes") << "conventions/kube-removed-slice"
                                                    << L({"tpu-group-0 reserved v6e 4x4 4x4 16: ALIVE,ALIVE,ALIVE,ALIVE"});
}

void TestConventions::slices()
{
    QFETCH(QString, fixture);
    QFETCH(QStringList, expected);
    LOAD(snap, fixture);
    QCOMPARE(summary(*snap), expected);
    // inspect --json never lists two chips at one coordinate, nor a chip of an unlaid slice.
    const QJsonObject json = inspectJson(*snap);
    for (const QJsonValue &sv : json.value(QStringLiteral("slices")).toArray()) {
        QSet<QString> seen;
        for (const QJsonValue &hv : sv.toObject().value(QStringLiteral("hosts")).toArray())
            for (const QJsonValue &cv : hv.toObject().value(QStringLiteral("chips")).toArray()) {
                const QJsonObject c = cv.toObject();
                const QString at = QStringLiteral("%1,%2,%3").arg(c.value(QStringLiteral("x")).toInt()).arg(c.value(QStringLiteral("y")).toInt()).arg(c.value(QStringLiteral("z")).toInt());
                QVERIFY2(!seen.contains(at), qPrintable(sv.toObject().value(QStringLiteral("name")).toString() + QLatin1String(" twice at ") + at));
                seen.insert(at);
            }
    }
}

void TestConventions::unknownAcceleratorDrawsNoChips()
{
    LOAD(snap, "conventions/unknown-accelerator");
    QCOMPARE(snap->slices.size(), 1);
    const Slice &s = snap->slices.first();
    QVERIFY(!s.generation);
    QVERIFY(!s.layout.isValid());
    QCOMPARE(s.hostCount(), 4);
    for (const Host &h : s.hosts)
        QVERIFY2(h.chips.isEmpty(), "a slice that cannot be laid out gets no chip positions");
    QVERIFY2(anyContains(s.problems, QStringLiteral("tpu-v9-hyperslice")), qPrintable(s.problems.join(u';')));
    QVERIFY2(anyContains(snap->warnings, QStringLiteral("'tpu-v9-hyperslice'")), qPrintable(snap->warnings.join(u';')));
    const QJsonObject slice = inspectJson(*snap).value(QStringLiteral("slices")).toArray().first().toObject();
    for (const QJsonValue &h : slice.value(QStringLiteral("hosts")).toArray())
        QCOMPARE(h.toObject().value(QStringLiteral("chips")).toArray().size(), 0);
}

void TestConventions::failedAndEvictedPodsSayWhy()
{
    {
        LOAD(snap, "real-world/kube-failed-node-shutdown");
        const Slice &s = sliceNamed(*snap, QStringLiteral("tpu-group-0"));
        QVERIFY2(anyContains(s.problems, QStringLiteral("worker 2 is DEAD (pod ")) && anyContains(s.problems, QStringLiteral("Failed: Terminated: Pod was terminated in response to imminent node shutdown.")),
                 qPrintable(s.problems.join(u';')));
        const QJsonObject host = inspectJson(*snap).value(QStringLiteral("slices")).toArray().first().toObject().value(QStringLiteral("hosts")).toArray().at(2).toObject();
        QVERIFY2(host.value(QStringLiteral("podStatus")).toString().startsWith(QLatin1String("Failed: Terminated")), qPrintable(host.value(QStringLiteral("podStatus")).toString()));
    }
    {
        LOAD(snap, "real-world/kube-evicted");
        const Slice &s = sliceNamed(*snap, QStringLiteral("tpu-group-1"));
        QVERIFY2(anyContains(s.problems, QStringLiteral("Failed: Evicted: The node was low on resource: memory.")), qPrintable(s.problems.join(u';')));
        // The planner names the reason, not a bare "DEAD".
        const PlanResult plan = planSlicePlacement(*snap, PlanRequest{QStringLiteral("v6e"), QStringLiteral("2x2"), 2});
        QVERIFY(!plan.feasible);
        QVERIFY2(anyContains(plan.reasons, QStringLiteral("Evicted")), qPrintable(plan.reasons.join(u'\n')));
    }
}

void TestConventions::terminatingPodsAreNotCapacity()
{
    LOAD(snap, "real-world/kube-terminating-workerstodelete");
    const Slice &going = sliceNamed(*snap, QStringLiteral("tpu-group-1"));
    QVERIFY(!going.isReady());
    QVERIFY2(anyContains(going.problems, QStringLiteral("being deleted")), qPrintable(going.problems.join(u';')));
    const PlanResult plan = planSlicePlacement(*snap, PlanRequest{QStringLiteral("v6e"), QStringLiteral("4x4"), 1});
    QCOMPARE(plan.wouldTake, QStringList{QStringLiteral("tpu-group-0")});
}

void TestConventions::sharedNamesAreNeverMerged()
{
    {
        LOAD(snap, "real-world/kuberay16-singlehost-name-collision");
        // Every live Ray node and pod is some slice's host: none folded away.
        QSet<int> nodes, pods;
        for (const Slice &s : snap->slices)
            for (const Host &h : s.hosts) {
                if (h.rayNode >= 0) nodes.insert(h.rayNode);
                if (h.pod >= 0) pods.insert(h.pod);
            }
        for (int i = 0; i < snap->rayNodes.size(); ++i)
            if (snap->rayNodes[i].alive && !snap->rayNodes[i].sliceName.isEmpty())
                QVERIFY2(nodes.contains(i), qPrintable(snap->rayNodes[i].id));
        for (int i = 0; i < snap->pods.size(); ++i)
            if (!snap->pods[i].isHead && !snap->pods[i].isGone())
                QVERIFY2(pods.contains(i), qPrintable(snap->pods[i].name));
        QCOMPARE(sliceNamed(*snap, QStringLiteral("tpu-group-2 (2)")).rayName, QStringLiteral("tpu-group-2"));
        QVERIFY(anyContains(snap->warnings, QStringLiteral("slice name tpu-group-2 is claimed by 2 live single-host slices")));
        // The scaler finds each part's pods by the part's own name.
        const int g = snap->workerGroupIndex(u"default/raycluster-tpu-v6e-singlehost/tpu-group");
        QVERIFY(g >= 0);
        QCOMPARE(snap->workerGroups[g].slices.size(), 3);
    }
    {
        LOAD(snap, "real-world/kuberay15-v4-multihost-name-collision");
        const Slice &live = sliceNamed(*snap, QStringLiteral("tpu-group-2"));
        QVERIFY(live.isReady());
        const Slice &replacement = sliceNamed(*snap, QStringLiteral("tpu-group-2 (2)"));
        QVERIFY2(anyContains(replacement.problems, QStringLiteral("reports worker 2")), qPrintable(replacement.problems.join(u';')));
        // The planner offers the two ready slices and blames nothing on the live one.
        const PlanResult plan = planSlicePlacement(*snap, PlanRequest{QStringLiteral("v4"), QStringLiteral("2x2x2"), 2});
        QCOMPARE(plan.wouldTake, (QStringList{QStringLiteral("tpu-group-0"), QStringLiteral("tpu-group-2")}));
    }
}

void TestConventions::placementGroupsRayMakes()
{
    {
        LOAD(snap, "real-world/ray-single-host-slice-pg");
        const int g = snap->placementGroupIndex(u"sh-serve");
        QVERIFY(g >= 0);
        QCOMPARE(snap->placementGroups[g].kind, PlacementGroupKind::Slice);
    }
    {
        LOAD(snap, "real-world/ray-pg-per-slice");
        for (const char *name : {"train_slice_0", "train_slice_1"}) {
            const int g = snap->placementGroupIndex(QString::fromLatin1(name));
            QVERIFY(g >= 0);
            QCOMPARE(snap->placementGroups[g].reservation, QStringLiteral("train"));
            QCOMPARE(snap->placementGroups[g].reservationSize, 2);
        }
        // Slice index is not slice-name order: train_slice_0 sits on tpu-group-1.
        QCOMPARE(snap->placementGroups[snap->placementGroupIndex(u"train_slice_0")].slices, QStringList{QStringLiteral("tpu-group-1")});
    }
    {
        // 16 one-chip bundles: every chip of the slice held by a bundle of its own.
        LOAD(snap, "real-world/ray-one-chip-bundles");
        const Slice &s = sliceNamed(*snap, QStringLiteral("tpu-group-0"));
        QSet<int> bundles;
        for (const Host &h : s.hosts)
            for (const ChipUse &c : h.chips) {
                QVERIFY(c.placementGroup >= 0);
                if (snap->placementGroups[c.placementGroup].name == QLatin1String("one-chip"))
                    bundles.insert(c.bundleIndex);
            }
        QCOMPARE(bundles.size(), 16);
    }
}

void TestConventions::unitsPerChip()
{
    LOAD(snap, "real-world/ray-v7x-resource-per-chip");
    const Slice &s = sliceNamed(*snap, QStringLiteral("tpu-group-0"));
    QCOMPARE(s.chipsPerHost, 4);
    QCOMPARE(s.tpuPerChip, 2);
    QVERIFY2(s.problems.isEmpty(), qPrintable(s.problems.join(u';')));
    QCOMPARE(s.reservedChips, 8);
    QCOMPARE(inspectJson(*snap).value(QStringLiteral("slices")).toArray().first().toObject().value(QStringLiteral("tpuPerChip")).toInt(), 2);
}

void TestConventions::v7xContainersAndRayWorkerIds()
{
    LOAD(snap, "real-world/webhook-v7x-two-containers");
    const Slice &s = sliceNamed(*snap, QStringLiteral("tpu-group-0"));
    QCOMPARE(s.chipsPerHost, 4); // 2 + 2, summed as the webhook does
    QVERIFY(s.hosts[1].rayNode >= 0);
    QVERIFY(snap->rayNodes[s.hosts[1].rayNode].workerId == 2); // Ray's id counts containers
    QVERIFY2(anyContains(s.problems, QStringLiteral("Ray advertises 2 TPU per host, but each pod holds 4 chips")), qPrintable(s.problems.join(u';')));
    QCOMPARE(snap->workerGroups.size(), 1);
    QCOMPARE(snap->workerGroups.first().chipsPerHost, 4);
}

void TestConventions::multisliceEnvIsShown()
{
    LOAD(snap, "real-world/webhook-multislice-megascale");
    const Slice &s = sliceNamed(*snap, QStringLiteral("tpu-group-1"));
    QVERIFY(s.hosts[0].pod >= 0);
    const QStringList env = snap->pods[s.hosts[0].pod].megascale;
    QVERIFY2(env.contains(QStringLiteral("MEGASCALE_SLICE_ID=1")) && env.contains(QStringLiteral("MEGASCALE_NUM_SLICES=2")), qPrintable(env.join(u' ')));
    const QJsonObject host = inspectJson(*snap).value(QStringLiteral("slices")).toArray().at(1).toObject().value(QStringLiteral("hosts")).toArray().first().toObject();
    QVERIFY(host.value(QStringLiteral("megascale")).toArray().contains(QStringLiteral("MEGASCALE_SLICE_ID=1")));
}

void TestConventions::clampedReplicasAreSaid()
{
    LOAD(snap, "real-world/kuberay-observed-generation-stale");
    QVERIFY2(anyContains(snap->warnings, QStringLiteral("asks for 2 replicas outside 0..1: KubeRay makes 1")), qPrintable(snap->warnings.join(u';')));
}

// KubeRay deleting a slice's pods (a removal, workersToDelete) is told as a removal in the history,
// never as hosts dying; once the pods are gone the slice is gone, though Ray lists its dead nodes.
void TestConventions::aRemovalReadsAsARemoval()
{
    CaptureReadResult read = testfixture::readCaptureFixture(QStringLiteral(SLICESCOPE_TEST_DATA "/captures/real-world/kube-terminating-workerstodelete.slicescope.json"));
    QVERIFY2(read.ok() && read.captures.size() == 1, qPrintable(read.error));
    const Capture deleting = read.captures.first();
    QJsonObject pods = QJsonDocument::fromJson(deleting.kubePods).object();
    QJsonObject nodes = QJsonDocument::fromJson(deleting.rayNodes).object();
    auto podItems = [&](auto &&keep) {
        QJsonArray out;
        for (const QJsonValue &v : pods.value(QStringLiteral("items")).toArray())
            if (QJsonObject o = v.toObject(); keep(o))
                out.append(o);
        return out;
    };
    auto terminating = [](const QJsonObject &pod) {
        return pod.value(QStringLiteral("metadata")).toObject().contains(QStringLiteral("deletionTimestamp"));
    };

    // Before: the same pods, none being deleted.
    Capture before = deleting;
    {
        QJsonObject p = pods;
        p.insert(QStringLiteral("items"), podItems([](QJsonObject &o) {
                     QJsonObject meta = o.value(QStringLiteral("metadata")).toObject();
                     meta.remove(QStringLiteral("deletionTimestamp"));
                     o.insert(QStringLiteral("metadata"), meta);
                     return true;
                 }));
        before.kubePods = QJsonDocument(p).toJson(QJsonDocument::Compact);
        before.capturedAt = deleting.capturedAt.addSecs(-2);
    }
    // After: those pods gone, their Ray nodes dead (Ray lists them for a while).
    Capture after = deleting;
    after.capturedAt = deleting.capturedAt.addSecs(30);
    {
        QJsonObject p = pods;
        p.insert(QStringLiteral("items"), podItems([&](QJsonObject &o) { return !terminating(o); }));
        after.kubePods = QJsonDocument(p).toJson(QJsonDocument::Compact);
        QJsonObject data = nodes.value(QStringLiteral("data")).toObject(), result = data.value(QStringLiteral("result")).toObject();
        QJsonArray list;
        for (const QJsonValue &v : result.value(QStringLiteral("result")).toArray()) {
            QJsonObject n = v.toObject();
            if (n.value(QStringLiteral("labels")).toObject().value(QStringLiteral("ray.io/tpu-slice-name")).toString() == QLatin1String("tpu-group-1")) {
                n.insert(QStringLiteral("state"), QStringLiteral("DEAD"));
                n.insert(QStringLiteral("state_message"), QStringLiteral("Expected termination: received SIGTERM"));
            }
            list.append(n);
        }
        result.insert(QStringLiteral("result"), list);
        data.insert(QStringLiteral("result"), result);
        QJsonObject body = nodes;
        body.insert(QStringLiteral("data"), data);
        after.rayNodes = QJsonDocument(body).toJson(QJsonDocument::Compact);
    }

    SnapshotHistory history;
    history.add(buildSnapshot(before));
    history.add(buildSnapshot(deleting));
    const SnapshotPtr last = buildSnapshot(after);
    history.add(last);
    QCOMPARE(last->sliceIndex(u"tpu-group-1"), -1);

    QStringList going, removed;
    for (const HistoryEvent &e : history.events(1)) {
        QVERIFY2(e.kind != HistoryEventKind::HostDied, qPrintable(e.text));
        if (e.kind == HistoryEventKind::HostRemoved)
            going << e.text;
    }
    QCOMPARE(going.size(), 4);
    QVERIFY2(going.first().startsWith(QLatin1String("tpu-group-1 worker 0 is being removed (pod default/")), qPrintable(going.first()));
    for (const HistoryEvent &e : history.events(2))
        if (e.kind == HistoryEventKind::SliceRemoved)
            removed << e.text;
    QCOMPARE(removed, QStringList{QStringLiteral("slice tpu-group-1 was removed (it was degraded)")});
}

QTEST_GUILESS_MAIN(TestConventions)
// Found by the soak (issue 13): a host whose Ray node died and came back on the same pod (same IP,
// a new node id) was read as two live sets of hosts claiming the slice name: the DEAD node, listed
// first, took the pod's IP join, and the ALIVE one then claimed the worker id a second time. The
// live Ray node is the pod's; the dead one is its past.
void TestConventions::aRestartedRayNodeIsOneHost()
{
    using testfixture::CaptureBuilder;
    using testfixture::SliceSpec;
    CaptureBuilder b;
    b.addHeadNode(QStringLiteral("head"), QStringLiteral("10.0.0.1"));
    SliceSpec old{QStringLiteral("tpu-group-0"), QStringLiteral("TPU-V6E"), QStringLiteral("v6e-16"), QStringLiteral("4x4"), {}, 4, 4};
    old.dead = {1};
    old.idPrefix = QStringLiteral("old-");
    old.ipPrefix = QStringLiteral("10.1.0.");
    b.addSlice(old);
    SliceSpec restarted = old;
    restarted.dead.clear();
    restarted.missing = {0, 2, 3};
    restarted.idPrefix = QStringLiteral("new-");
    b.addSlice(restarted);
    b.addRayCluster(QStringLiteral("default"), QStringLiteral("rc"), false,
                    QJsonArray{CaptureBuilder::workerGroup(QStringLiteral("tpu-group"), 1, 0, 2, 4, QStringLiteral("tpu-v6e-slice"),
                                                           QStringLiteral("4x4"), 4)});
    for (int w = 0; w < 4; ++w)
        b.addTpuPod(QStringLiteral("default"), QStringLiteral("rc-tpu-group-worker-%1").arg(w), QStringLiteral("rc"), QStringLiteral("tpu-group"),
                    QStringLiteral("tpu-group-abcde"), QStringLiteral("tpu-group-0"), w, QStringLiteral("10.1.0.%1").arg(w + 1),
                    QStringLiteral("gke-node-%1").arg(w), QStringLiteral("tpu-v6e-slice"), QStringLiteral("4x4"), 4);
    const SnapshotPtr snap = buildSnapshot(b.capture(true));
    QVERIFY2(snap->errors.isEmpty(), qPrintable(snap->errors.join(u'\n')));
    QStringList names;
    for (const Slice &slice : snap->slices)
        names << slice.name;
    QCOMPARE(names, QStringList{QStringLiteral("tpu-group-0")});
    const Slice &s = sliceNamed(*snap, QStringLiteral("tpu-group-0"));
    QVERIFY2(s.isReady(), qPrintable(summary(*snap).join(u'\n')));
    QCOMPARE(snap->rayNodes[s.hosts[1].rayNode].id, QStringLiteral("new-1"));
    QVERIFY(!anyContains(snap->warnings, QStringLiteral("claimed by")));
}

#include "tst_conventions.moc"
