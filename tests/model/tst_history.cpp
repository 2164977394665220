// SPDX-License-Identifier: GPL-3.0-or-later
// SnapshotHistory (model/history.h): bounds by age and by bytes evict the oldest first; structural
// sharing (a snapshot that changes one host costs about that host, an unchanged one about nothing,
// measured with the history's own estimate and with the real heap); every entry rebuilds to the
// snapshot that was added, through keyframes, list edits and evictions; the events between
// snapshots come out as expected and in a fixed order; the per-entry aggregates the charts read.
//
// The clusters are stated with CaptureBuilder (capturefixture.h) and go through buildSnapshot(),
// so the history sees what production parsing makes: Ray nodes, placement groups, a RayCluster
// with a TPU worker group, its pods and Kubernetes nodes, and jobs.

#include "capturefixture.h"
#include "history.h"
#include "inspectjson.h"
#include "snapshot.h"

#include <QJsonDocument>
#include <QSignalSpy>
#include <QTest>

#include <map>
#include <set>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

using namespace slicescope;
using namespace slicescope::testfixture;

namespace {

// ---- A small cluster that changes ------------------------------------------------------------

const QDateTime kStart(QDate(2026, 11, 29), QTime(18, 0), Qt::UTC);

struct PlacementSpec {
    QString name;
    int slice = 0;
    QString state = QStringLiteral("CREATED"); // PENDING groups are not placed yet
};

// A RayCluster "ray/tpu-cluster" with one TPU worker group "tpu-group" of v6e 4x4 slices (four
// hosts each), every host a Ray node, a pod and a Kubernetes node; slice placement groups; jobs.
struct World {
    int slices = 4;
    int replicas = -1;                 // -1: as many as there are slices
    std::set<std::pair<int, int>> dead; // (slice, worker): the Ray node is DEAD
    std::set<std::pair<int, int>> podPending; // (slice, worker): the pod is Pending, no Ray node yet
    std::map<QString, PlacementSpec> groups; // by id
    QStringList jobStatuses{QStringLiteral("RUNNING")};
    QString clusterState = QStringLiteral("ready");
    int seconds = 0;                   // since kStart

    static QString sliceName(int s) { return QStringLiteral("tpu-group-%1").arg(s); }
    static QString groupId(const QString &tag) { return hexId(tag, 28) + QStringLiteral("02000000"); }

    Capture capture() const
    {
        CaptureBuilder b;
        b.addHeadNode(hexId(QStringLiteral("head"), 56), QStringLiteral("10.0.0.1"));
        QList<QStringList> nodeIds;
        for (int s = 0; s < slices; ++s) {
            SliceSpec spec;
            spec.name = sliceName(s);
            spec.acceleratorType = QStringLiteral("TPU-V6E");
            spec.podType = QStringLiteral("v6e-16");
            spec.topology = QStringLiteral("4x4");
            spec.nodeGroup = QStringLiteral("tpu-group");
            spec.hosts = 4;
            spec.chipsPerHost = 4;
            for (int w = 0; w < 4; ++w) {
                if (dead.count({s, w}))
                    spec.dead << w;
                if (podPending.count({s, w}))
                    spec.missing << w;
            }
            nodeIds << b.addSlice(spec);
            for (int w = 0; w < 4; ++w) {
                const QString pod = QStringLiteral("tpu-cluster-tpu-group-worker-%1-%2").arg(s).arg(w);
                const QString ip = QStringLiteral("10.%1.0.%2").arg(s + 1).arg(w + 1);
                const QString node = QStringLiteral("gke-tpu-%1-%2").arg(s).arg(w);
                b.addTpuPod(QStringLiteral("ray"), pod, QStringLiteral("tpu-cluster"), QStringLiteral("tpu-group"),
                            QStringLiteral("tpu-group-%1").arg(s), sliceName(s), w, ip, node,
                            QStringLiteral("tpu-v6e-slice"), QStringLiteral("4x4"), 4);
                b.addKubeNode(node, QStringLiteral("tpu-v6e-slice"), QStringLiteral("4x4"), QStringLiteral("tpu-pool"), 4);
            }
        }
        for (const auto &[id, g] : groups) {
            const QStringList placed = g.state == QLatin1String("PENDING") ? QStringList(4, QString()) : nodeIds.value(g.slice);
            b.addSlicePlacementGroup(id, g.name, sliceName(g.slice), placed, 4, g.state);
        }
        const int wanted = replicas < 0 ? slices : replicas;
        b.addRayCluster(QStringLiteral("ray"), QStringLiteral("tpu-cluster"), false,
                        QJsonArray{CaptureBuilder::workerGroup(QStringLiteral("tpu-group"), wanted, 0, 8, 4,
                                                               QStringLiteral("tpu-v6e-slice"), QStringLiteral("4x4"), 4)});
        Capture c = b.capture(true);
        c.capturedAt = kStart.addSecs(seconds);
        QJsonArray jobs;
        for (int j = 0; j < jobStatuses.size(); ++j)
            jobs.append(QJsonObject{{QStringLiteral("submission_id"), QStringLiteral("raysubmit_%1").arg(j)},
                                    {QStringLiteral("job_id"), QStringLiteral("0%1000000").arg(j + 1)},
                                    {QStringLiteral("status"), jobStatuses[j]},
                                    {QStringLiteral("entrypoint"), QStringLiteral("python train.py --step %1").arg(j)},
                                    {QStringLiteral("start_time"), 1764439200000.0 + j}});
        c.rayJobs = QJsonDocument(jobs).toJson(QJsonDocument::Compact);
        // The pods of pending hosts are Pending, and not ready: patch the PodList text.
        if (!podPending.empty()) {
            QJsonObject list = QJsonDocument::fromJson(c.kubePods).object();
            QJsonArray items = list.value(QStringLiteral("items")).toArray();
            for (qsizetype i = 0; i < items.size(); ++i) {
                QJsonObject pod = items[i].toObject();
                const QString name = pod.value(QStringLiteral("metadata")).toObject().value(QStringLiteral("name")).toString();
                for (const auto &[s, w] : podPending)
                    if (name == QStringLiteral("tpu-cluster-tpu-group-worker-%1-%2").arg(s).arg(w))
                        pod.insert(QStringLiteral("status"), QJsonObject{{QStringLiteral("phase"), QStringLiteral("Pending")}});
                items[i] = pod;
            }
            list.insert(QStringLiteral("items"), items);
            c.kubePods = QJsonDocument(list).toJson(QJsonDocument::Compact);
        }
        if (clusterState != QLatin1String("ready")) {
            c.kubeRayClusters.replace(QByteArrayLiteral("\"state\":\"ready\""), QStringLiteral("\"state\":\"%1\"").arg(clusterState).toUtf8());
        }
        return c;
    }
    SnapshotPtr snapshot() const { return buildSnapshot(capture()); }
};

// ---- Comparing snapshots ----------------------------------------------------------------------

QByteArray inspectText(const ClusterSnapshot &s)
{
    return QJsonDocument(inspectJson(s)).toJson(QJsonDocument::Indented);
}

// Everything a ClusterSnapshot holds, compared member by member (it has no operator==).
bool sameSnapshot(const ClusterSnapshot &a, const ClusterSnapshot &b, QString *why)
{
    auto differ = [&](const char *what) {
        *why = QString::fromLatin1(what);
        return false;
    };
    if (a.capturedAt != b.capturedAt) return differ("capturedAt");
    if (a.rayVersion != b.rayVersion) return differ("rayVersion");
    if (a.kubeContext != b.kubeContext) return differ("kubeContext");
    if (a.hasRay != b.hasRay || a.hasKubernetes != b.hasKubernetes) return differ("hasRay/hasKubernetes");
    if (a.clusterStatusText != b.clusterStatusText) return differ("clusterStatusText");
    if (a.rayNodes != b.rayNodes) return differ("rayNodes");
    if (a.pods != b.pods) return differ("pods");
    if (a.kubeNodes != b.kubeNodes) return differ("kubeNodes");
    if (a.slices != b.slices) return differ("slices");
    if (a.placementGroups != b.placementGroups) return differ("placementGroups");
    if (a.workerGroups != b.workerGroups) return differ("workerGroups");
    if (a.rayClusters != b.rayClusters) return differ("rayClusters");
    if (a.jobs != b.jobs) return differ("jobs");
    if (a.errors != b.errors) return differ("errors");
    if (a.warnings != b.warnings) return differ("warnings");
    if (inspectText(a) != inspectText(b)) return differ("inspect --json");
    return true;
}

// Bytes malloc has handed out and not taken back (glibc), or -1 where that is not known.
qint64 heapInUse()
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    const struct mallinfo2 info = mallinfo2();
    return qint64(info.uordblks + info.hblkhd);
#else
    return -1;
#endif
}

QStringList kinds(const QList<HistoryEvent> &events)
{
    QStringList out;
    for (const HistoryEvent &e : events)
        out << toText(e.kind) + u' ' + e.subject;
    return out;
}

} // namespace

class tst_History : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void boundsByAge();
    void boundsByBytes();
    void oneHostAllocatesAboutOneHost();
    void rebuildsEveryEntry();
    void rebuildsAfterEviction();
    void eventsOfAScriptedSequence();
    void eventsInOneStepAreOrdered();
    void filteringEvents();
    void pointsForTheCharts();
    void oldestPendingAge();
    void indexesAndSerials();
};

void tst_History::boundsByAge()
{
    HistoryPolicy policy;
    policy.maxAgeSeconds = 10;
    policy.maxBytes = 0;
    SnapshotHistory history(policy);
    QSignalSpy evicted(&history, &SnapshotHistory::entriesEvicted);
    World world;
    for (int i = 0; i <= 15; ++i) {
        world.seconds = 2 * i;
        if (i == 7)
            world.dead.insert({1, 2});
        history.add(world.snapshot());
    }
    // Kept: the newest (30 s) and everything at most 10 s older (20, 22, ..., 30).
    QCOMPARE(history.size(), 6);
    QCOMPARE(history.time(0), kStart.addSecs(20));
    QCOMPARE(history.time(5), kStart.addSecs(30));
    QCOMPARE(history.serial(0), 10);
    int total = 0;
    for (const QList<QVariant> &args : evicted)
        total += args.at(0).toInt();
    QCOMPARE(total, 10);

    // Tighter bounds apply at once; the newest entry always stays.
    policy.maxAgeSeconds = 1;
    history.setPolicy(policy);
    QCOMPARE(history.size(), 1);
    QCOMPARE(history.serial(0), 15);
}

void tst_History::boundsByBytes()
{
    HistoryPolicy unbounded;
    unbounded.maxAgeSeconds = 0;
    unbounded.maxBytes = 0;
    SnapshotHistory reference(unbounded);
    World world;
    world.slices = 8;
    QList<SnapshotPtr> snapshots;
    qint64 first = 0;
    for (int i = 0; i < 40; ++i) {
        world.seconds = 2 * i;
        world.dead.clear();
        world.dead.insert({i % 8, i % 4}); // one host down, a different one each time
        snapshots << world.snapshot();
        reference.add(snapshots.last());
        if (i == 0)
            first = reference.bytesHeld();
    }
    const qint64 all = reference.bytesHeld();

    // The newest snapshot's objects are held whatever the bound; half of what the changes cost on top.
    HistoryPolicy policy = unbounded;
    policy.maxBytes = first + (all - first) / 2;
    SnapshotHistory history(policy);
    qint64 firstSerial = 0;
    for (int i = 0; i < snapshots.size(); ++i) {
        history.add(snapshots[i]);
        QVERIFY2(history.bytesHeld() <= policy.maxBytes || history.size() == 1,
                 qPrintable(QStringLiteral("%1 bytes held, bound %2").arg(history.bytesHeld()).arg(policy.maxBytes)));
        // The oldest go first: the kept entries are always the newest ones, in order.
        QVERIFY(history.serial(0) >= firstSerial);
        firstSerial = history.serial(0);
        QCOMPARE(history.serial(history.size() - 1), qint64(i));
        QCOMPARE(history.size(), int(history.serial(history.size() - 1) - history.serial(0) + 1));
    }
    QVERIFY(history.size() > 1);
    QVERIFY(history.size() < snapshots.size());
    // What is kept still rebuilds exactly.
    QString why;
    const int offset = int(history.serial(0));
    for (int i = 0; i < history.size(); ++i)
        QVERIFY2(sameSnapshot(*history.snapshot(i), *snapshots[offset + i], &why), qPrintable(why));

    // The estimate is the sum of its parts.
    const HistoryMemory m = history.memory();
    QCOMPARE(m.total() - m.versionSlack, history.bytesHeld());
    QCOMPARE(m.plainVersions, 0); // the compact encoding carries every field of snapshot.h
}

// The heart of the design: "a snapshot that changes one host allocates about one host, not a
// cluster". Measured twice: by the history's own estimate (what HistoryPolicy::maxBytes bounds)
// and by the heap (bytes malloc handed out during add() and not taken back), each averaged over
// eight adds.
void tst_History::oneHostAllocatesAboutOneHost()
{
    World world;
    world.slices = 64; // 64 slices of 4 hosts: 257 Ray nodes, 256 pods and Kubernetes nodes
    world.groups[World::groupId(QStringLiteral("a"))] = {QStringLiteral("train-a"), 3};
    world.groups[World::groupId(QStringLiteral("b"))] = {QStringLiteral("train-b"), 9};
    HistoryPolicy unbounded;
    unbounded.maxAgeSeconds = 0;
    unbounded.maxBytes = 0;
    SnapshotHistory history(unbounded);

    // Built up front and kept alive, so the heap figures are the history's own.
    constexpr int kAdds = 8;
    const SnapshotPtr first = world.snapshot();
    QList<SnapshotPtr> unchanged, oneHostEach;
    for (int i = 0; i < kAdds; ++i) {
        world.seconds += 2;
        unchanged << world.snapshot(); // the same cluster, a new time
    }
    for (int i = 0; i < kAdds; ++i) {
        world.seconds += 2;
        world.dead.insert({10 + i, i % 4}); // one more host dies each time
        oneHostEach << world.snapshot();
    }

    const qint64 heap0 = heapInUse(), est0 = history.bytesHeld();
    history.add(first);
    const qint64 heap1 = heapInUse(), est1 = history.bytesHeld(), versions1 = history.memory().objectVersions;
    for (const SnapshotPtr &s : unchanged)
        history.add(s);
    const qint64 heap2 = heapInUse(), est2 = history.bytesHeld(), versions2 = history.memory().objectVersions;
    for (const SnapshotPtr &s : oneHostEach)
        history.add(s);
    const qint64 heap3 = heapInUse(), est3 = history.bytesHeld(), versions3 = history.memory().objectVersions;

    const qint64 cluster = est1 - est0, perUnchanged = (est2 - est1) / kAdds, perOneHost = (est3 - est2) / kAdds;
    qInfo("estimate: first snapshot %lld bytes then per snapshot: "
          "unchanged %lld, one host dead %lld",
          cluster, perUnchanged, perOneHost);
    // An unchanged snapshot costs an entry's bookkeeping (about half a KB), nothing per object.
    QVERIFY2(perUnchanged < 1024, qPrintable(QString::number(perUnchanged)));
    // One host dead: its Ray node and its slice get a new version (around 100 bytes each).
    QVERIFY2(perOneHost - perUnchanged < 512, qPrintable(QString::number(perOneHost - perUnchanged)));
    QVERIFY2(perOneHost * 200 < cluster, qPrintable(QStringLiteral("%1 of %2").arg(perOneHost).arg(cluster)));
    // Exactly: one version per object at first, none more for unchanged snapshots, two (the Ray
    // node and its slice) per snapshot with one more dead host.
    const qint64 objects = first->rayNodes.size() + first->pods.size() + first->kubeNodes.size() + first->slices.size()
                           + first->placementGroups.size() + first->workerGroups.size() + first->rayClusters.size() + first->jobs.size();
    QCOMPARE(versions1, objects);
    QCOMPARE(versions2, versions1);
    QCOMPARE(versions3, versions2 + 2 * kAdds);

    if (heap0 < 0 || heap1 <= heap0) // not glibc, or a sanitizer's allocator (mallinfo2() then says 0)
        QSKIP("the heap figures need glibc's own malloc and mallinfo2(); the estimate above was checked");
    const qint64 heapCluster = heap1 - heap0, heapUnchanged = (heap2 - heap1) / kAdds, heapOneHost = (heap3 - heap2) / kAdds;
    qInfo("heap: first snapshot %lld bytes, then per snapshot: unchanged %lld, one host dead %lld", heapCluster,
          heapUnchanged, heapOneHost);
    QVERIFY2(heapUnchanged < 1024, qPrintable(QString::number(heapUnchanged)));
    QVERIFY2(heapOneHost - heapUnchanged < 512, qPrintable(QString::number(heapOneHost - heapUnchanged)));
    QVERIFY2(heapOneHost * 200 < heapCluster, qPrintable(QStringLiteral("%1 of %2").arg(heapOneHost).arg(heapCluster)));
}

// Every entry rebuilds to the snapshot added, across more than one keyframe interval, with
// objects appearing, changing, disappearing and coming back.
void tst_History::rebuildsEveryEntry()
{
    HistoryPolicy unbounded;
    unbounded.maxAgeSeconds = 0;
    unbounded.maxBytes = 0;
    SnapshotHistory history(unbounded);
    QList<SnapshotPtr> snapshots;
    World world;
    world.slices = 6;
    for (int i = 0; i < 300; ++i) {
        world.seconds = 2 * i;
        // Hosts die and come back, a pod is pending, slices come and go, groups are requested,
        // placed and removed, replicas change, jobs finish and start.
        if (i % 7 == 3)
            world.dead.insert({i % world.slices, i % 4});
        if (i % 7 == 6)
            world.dead.clear();
        world.podPending.clear();
        if (i % 11 == 5)
            world.podPending.insert({(i / 11) % world.slices, 1});
        if (i % 50 == 25)
            world.slices = 7;
        if (i % 50 == 45)
            world.slices = 6;
        const QString id = World::groupId(QStringLiteral("g%1").arg(i / 5));
        if (i % 5 == 0)
            world.groups[id] = {QStringLiteral("job-%1").arg(i / 5), (i / 5) % 6, QStringLiteral("PENDING")};
        if (i % 5 == 2)
            world.groups[id].state = QStringLiteral("CREATED");
        if (i % 5 == 4 && world.groups.size() > 3)
            world.groups.erase(world.groups.begin());
        world.replicas = i % 13 == 0 ? -1 : (i % 13 < 6 ? 6 : 7);
        if (i % 17 == 0)
            world.jobStatuses << QStringLiteral("PENDING");
        if (i % 17 == 8)
            world.jobStatuses.last() = QStringLiteral("SUCCEEDED");
        world.clusterState = i % 40 < 35 ? QStringLiteral("ready") : QStringLiteral("suspended");
        snapshots << world.snapshot();
        history.add(snapshots.last());
    }
    QCOMPARE(history.size(), snapshots.size());
    QString why;
    for (int i = 0; i < history.size(); ++i) {
        const SnapshotPtr rebuilt = history.snapshot(i);
        QVERIFY(rebuilt);
        QVERIFY2(sameSnapshot(*rebuilt, *snapshots[i], &why), qPrintable(QStringLiteral("entry %1: %2").arg(i).arg(why)));
    }
    QCOMPARE(history.snapshot(history.size() - 1), snapshots.last()); // the newest is the one added
    QCOMPARE(history.memory().plainVersions, 0);
    // Rebuilt snapshots hold nothing of the history: they outlive it.
    const SnapshotPtr kept = history.snapshot(123);
    history.clear();
    QVERIFY(history.isEmpty());
    QCOMPARE(history.memory().objectVersions, 0);
    QVERIFY2(history.bytesHeld() < 64 * 1024, qPrintable(QString::number(history.bytesHeld()))); // tables' spare room only
    QVERIFY2(sameSnapshot(*kept, *snapshots[123], &why), qPrintable(why));
}

// Evicting the oldest entries turns the next one into a keyframe; the rest still rebuild.
void tst_History::rebuildsAfterEviction()
{
    HistoryPolicy policy;
    policy.maxAgeSeconds = 100; // 51 entries at 2-second steps
    policy.maxBytes = 0;
    SnapshotHistory history(policy);
    QList<SnapshotPtr> snapshots;
    World world;
    for (int i = 0; i < 420; ++i) {
        world.seconds = 2 * i;
        world.dead.clear();
        if (i % 3 == 0)
            world.dead.insert({i % world.slices, (i / 3) % 4});
        const QString id = World::groupId(QStringLiteral("e%1").arg(i / 4));
        if (i % 4 == 0)
            world.groups = {{id, {QStringLiteral("e"), i % world.slices, QStringLiteral("PENDING")}}};
        else
            world.groups[id].state = QStringLiteral("CREATED");
        snapshots << world.snapshot();
        history.add(snapshots.last());
        if (i % 37 == 0 || i == 419) {
            QString why;
            const int offset = int(history.serial(0));
            for (int j = 0; j < history.size(); ++j)
                QVERIFY2(sameSnapshot(*history.snapshot(j), *snapshots[offset + j], &why),
                         qPrintable(QStringLiteral("after %1 adds, entry %2: %3").arg(i + 1).arg(j).arg(why)));
        }
    }
    QCOMPARE(history.size(), 51);
}

void tst_History::eventsOfAScriptedSequence()
{
    SnapshotHistory history;
    World world;
    world.replicas = 2;
    world.slices = 4;
    const QString train = World::groupId(QStringLiteral("train"));
    world.groups[train] = {QStringLiteral("train"), 3, QStringLiteral("PENDING")};
    history.add(world.snapshot());
    QVERIFY(history.events(0).isEmpty()); // the first snapshot is the baseline, not news

    // A host dies: the host event, then its slice's status, with the reason.
    world.seconds = 2;
    world.dead.insert({1, 2});
    history.add(world.snapshot());
    QList<HistoryEvent> events = history.events(1);
    QCOMPARE(kinds(events), (QStringList{QStringLiteral("host-died tpu-group-1 worker 2"),
                                         QStringLiteral("slice-status-changed tpu-group-1")}));
    QCOMPARE(events[0].from, QStringLiteral("ALIVE"));
    QCOMPARE(events[0].to, QStringLiteral("DEAD"));
    QCOMPARE(events[0].selectSlice, QStringLiteral("tpu-group-1"));
    QVERIFY2(events[0].text.startsWith(QStringLiteral("tpu-group-1 worker 2 died (Ray node ")), qPrintable(events[0].text));
    QVERIFY2(events[0].text.contains(QStringLiteral("health check failed")), qPrintable(events[0].text));
    QCOMPARE(events[1].from, QStringLiteral("ready"));
    QCOMPARE(events[1].to, QStringLiteral("degraded"));
    QCOMPARE(events[1].text, QStringLiteral("tpu-group-1 became degraded: worker 2 is DEAD"));
    QCOMPARE(events[1].time, kStart.addSecs(2));
    QCOMPARE(events[1].serial, history.serial(1));

    // The pending placement group is placed: the slice it takes, then the group.
    world.seconds = 4;
    world.groups[train].state = QStringLiteral("CREATED");
    history.add(world.snapshot());
    events = history.events(2);
    QCOMPARE(kinds(events), (QStringList{QStringLiteral("slice-status-changed tpu-group-3"),
                                         QStringLiteral("placement-group-state-changed train (") + train.left(12) + u')'}));
    QCOMPARE(events[0].text, QStringLiteral("tpu-group-3 became reserved (16 of 16 chips held)"));
    QCOMPARE(events[1].from, QStringLiteral("PENDING"));
    QCOMPARE(events[1].to, QStringLiteral("CREATED"));
    QCOMPARE(events[1].selectPlacementGroup, train);
    QCOMPARE(events[1].selectSlice, QStringLiteral("tpu-group-3"));
    QCOMPARE(events[1].text, QStringLiteral("placement group train (%1): PENDING → CREATED on tpu-group-3").arg(train.left(12)));

    // The worker group is scaled from 2 to 3 replicas.
    world.seconds = 6;
    world.replicas = 3;
    history.add(world.snapshot());
    events = history.events(3);
    QCOMPARE(kinds(events), QStringList{QStringLiteral("worker-group-scaled ray/tpu-cluster/tpu-group")});
    QCOMPARE(events[0].from, QStringLiteral("2"));
    QCOMPARE(events[0].to, QStringLiteral("3"));
    QCOMPARE(events[0].text, QStringLiteral("ray/tpu-cluster/tpu-group: replicas 2 → 3"));

    // The host comes back; the group is removed; a pod goes Pending: each says so.
    world.seconds = 8;
    world.dead.clear();
    world.groups.clear();
    history.add(world.snapshot());
    QCOMPARE(kinds(history.events(4)),
             (QStringList{QStringLiteral("host-up tpu-group-1 worker 2"), QStringLiteral("slice-status-changed tpu-group-1"),
                          QStringLiteral("slice-status-changed tpu-group-3"),
                          QStringLiteral("placement-group-removed train (") + train.left(12) + u')'}));
    world.seconds = 10;
    world.podPending.insert({0, 3});
    history.add(world.snapshot());
    QCOMPARE(kinds(history.events(5)), (QStringList{QStringLiteral("host-pending tpu-group-0 worker 3"),
                                                    QStringLiteral("slice-status-changed tpu-group-0"),
                                                    QStringLiteral("pod-phase-changed ray/tpu-cluster-tpu-group-worker-0-3")}));
    QCOMPARE(history.events(5)[1].to, QStringLiteral("provisioning"));

    // The whole run at once, oldest first, is the concatenation.
    QCOMPARE(history.events(0, history.size() - 1).size(),
             history.events(1).size() + history.events(2).size() + history.events(3).size() + history.events(4).size()
                 + history.events(5).size());
}

// Everything in one step: RayCluster, worker groups, slices (each slice's hosts, then its status),
// placement groups, pods; removals after the rest of their kind.
void tst_History::eventsInOneStepAreOrdered()
{
    SnapshotHistory history;
    World world;
    world.replicas = 2;
    const QString train = World::groupId(QStringLiteral("train")), old = World::groupId(QStringLiteral("old"));
    world.groups[train] = {QStringLiteral("train"), 3, QStringLiteral("PENDING")};
    world.groups[old] = {QStringLiteral("old"), 0, QStringLiteral("CREATED")};
    history.add(world.snapshot());
    world.seconds = 2;
    world.clusterState = QStringLiteral("suspended");
    world.replicas = 3;
    world.dead.insert({2, 1});
    world.dead.insert({1, 3});
    world.groups[train].state = QStringLiteral("CREATED");
    world.groups.erase(old);
    history.add(world.snapshot());
    const QList<HistoryEvent> events = history.events(1);
    QCOMPARE(kinds(events), (QStringList{
                                QStringLiteral("raycluster-state-changed ray/tpu-cluster"),
                                QStringLiteral("worker-group-scaled ray/tpu-cluster/tpu-group"),
                                QStringLiteral("slice-status-changed tpu-group-0"), // freed by the removed group
                                QStringLiteral("host-died tpu-group-1 worker 3"),
                                QStringLiteral("slice-status-changed tpu-group-1"),
                                QStringLiteral("host-died tpu-group-2 worker 1"),
                                QStringLiteral("slice-status-changed tpu-group-2"),
                                QStringLiteral("slice-status-changed tpu-group-3"),
                                QStringLiteral("placement-group-state-changed train (") + train.left(12) + u')',
                                QStringLiteral("placement-group-removed old (") + old.left(12) + u')',
                            }));
    QCOMPARE(events[0].text, QStringLiteral("RayCluster ray/tpu-cluster: ready → suspended"));
    QCOMPARE(events[2].to, QStringLiteral("ready"));
    // Asking again gives the same list.
    QCOMPARE(history.events(1), events);
}

void tst_History::filteringEvents()
{
    SnapshotHistory history;
    World world;
    const QString train = World::groupId(QStringLiteral("train"));
    history.add(world.snapshot());
    for (int i = 1; i <= 6; ++i) {
        world.seconds = 2 * i;
        world.dead.clear();
        world.dead.insert({i % 2, i % 4});
        if (i == 3)
            world.groups[train] = {QStringLiteral("train"), 3, QStringLiteral("PENDING")};
        if (i == 5)
            world.groups[train].state = QStringLiteral("CREATED");
        history.add(world.snapshot());
    }
    HistoryEventFilter bySlice;
    bySlice.slice = QStringLiteral("tpu-group-1");
    const QList<HistoryEvent> sliceEvents = history.events(0, history.size() - 1, bySlice);
    QVERIFY(!sliceEvents.isEmpty());
    for (const HistoryEvent &e : sliceEvents)
        QCOMPARE(e.selectSlice, bySlice.slice);
    // "When did this slice stop being ready, and why?"
    HistoryEventFilter degraded = bySlice;
    degraded.kinds = {HistoryEventKind::SliceStatusChanged};
    const QList<HistoryEvent> status = history.events(0, history.size() - 1, degraded);
    QCOMPARE(status.first().time, kStart.addSecs(2));
    QCOMPARE(status.first().text, QStringLiteral("tpu-group-1 became degraded: worker 1 is DEAD"));

    HistoryEventFilter byGroup;
    byGroup.placementGroup = train;
    QCOMPARE(kinds(history.events(0, history.size() - 1, byGroup)),
             (QStringList{QStringLiteral("placement-group-added train (") + train.left(12) + u')',
                          QStringLiteral("placement-group-state-changed train (") + train.left(12) + u')'}));
}

void tst_History::pointsForTheCharts()
{
    SnapshotHistory history;
    World world;
    world.replicas = 5;
    world.slices = 4;
    world.groups[World::groupId(QStringLiteral("a"))] = {QStringLiteral("a"), 0, QStringLiteral("CREATED")};
    world.groups[World::groupId(QStringLiteral("b"))] = {QStringLiteral("b"), 1, QStringLiteral("PENDING")};
    world.dead.insert({2, 0});
    world.podPending.insert({3, 1});
    history.add(world.snapshot());
    const HistoryPoint &p = history.point(0);
    QCOMPARE(p.serial, 0);
    QCOMPARE(p.time, kStart);
    QCOMPARE(p.fleet.slices, 4);
    QCOMPARE(p.fleet.ready, 1);          // tpu-group-1 (its group is only pending)
    QCOMPARE(p.fleet.fullyReserved, 1);  // tpu-group-0
    QCOMPARE(p.fleet.degraded, 1);       // tpu-group-2
    QCOMPARE(p.fleet.provisioning, 1);   // tpu-group-3
    QCOMPARE(p.fleet.chips, 64);
    QCOMPARE(p.fleet.reservedChips, 16);
    QCOMPARE(p.fleet.freeChips, 48);
    QCOMPARE(p.generations.size(), 1);
    QCOMPARE(p.generations[0].label, QStringLiteral("v6e"));
    QVERIFY(p.generation(u"v6e"));
    QCOMPARE(p.generation(u"v6e")->counts.reservedChips, 16);
    QCOMPARE(p.placementGroups.created, 1);
    QCOMPARE(p.placementGroups.pending, 1);
    QCOMPARE(p.placementGroups.total(), 2);
    QCOMPARE(p.workerGroups.size(), 1);
    QCOMPARE(p.workerGroups[0].qualifiedName, QStringLiteral("ray/tpu-cluster/tpu-group"));
    QCOMPARE(p.workerGroups[0].desired, 5);
    QCOMPARE(p.workerGroups[0].slices, 4);
    QCOMPARE(p.workerGroups[0].ready, 2);  // intact: tpu-group-0 (reserved) and tpu-group-1
    QCOMPARE(p.workerGroups[0].maxReplicas, 8);
    QVERIFY(p.workerGroup(u"ray/tpu-cluster/tpu-group"));

    // Points of later entries share the lists that did not change.
    world.seconds = 2;
    world.dead.clear();
    history.add(world.snapshot());
    QCOMPARE(history.point(1).fleet.degraded, 0);
    QCOMPARE(history.point(1).fleet.ready, 2);
    QCOMPARE(history.point(1).workerGroups[0].ready, 3);
}

void tst_History::oldestPendingAge()
{
    SnapshotHistory history;
    World world;
    const QString a = World::groupId(QStringLiteral("a")), b = World::groupId(QStringLiteral("b"));
    history.add(world.snapshot());
    QCOMPARE(history.point(0).placementGroups.oldestPendingMs, -1);
    world.seconds = 2;
    world.groups[a] = {QStringLiteral("a"), 0, QStringLiteral("PENDING")};
    history.add(world.snapshot());
    QCOMPARE(history.point(1).placementGroups.oldestPendingMs, 0);
    QCOMPARE(history.point(1).placementGroups.oldestPendingId, a);
    world.seconds = 10;
    world.groups[b] = {QStringLiteral("b"), 1, QStringLiteral("PENDING")};
    history.add(world.snapshot());
    QCOMPARE(history.point(2).placementGroups.oldestPendingMs, 8000);
    QCOMPARE(history.point(2).placementGroups.oldestPendingId, a);
    world.seconds = 14;
    world.groups[a].state = QStringLiteral("CREATED");
    history.add(world.snapshot());
    QCOMPARE(history.point(3).placementGroups.oldestPendingMs, 4000); // now b, pending since 10 s
    QCOMPARE(history.point(3).placementGroups.oldestPendingId, b);
    world.seconds = 16;
    world.groups.erase(b);
    history.add(world.snapshot());
    world.seconds = 18;
    world.groups[b] = {QStringLiteral("b"), 1, QStringLiteral("PENDING")}; // back: pending anew
    history.add(world.snapshot());
    QCOMPARE(history.point(5).placementGroups.oldestPendingMs, 0);
}

void tst_History::indexesAndSerials()
{
    HistoryPolicy policy;
    policy.maxAgeSeconds = 6;
    policy.maxBytes = 0;
    SnapshotHistory history(policy);
    QCOMPARE(history.indexAt(kStart), -1);
    QVERIFY(!history.snapshot(0));
    World world;
    for (int i = 0; i < 8; ++i) {
        world.seconds = 2 * i;
        QCOMPARE(history.add(world.snapshot()), qint64(i));
    }
    // Kept: 8, 10, 12, 14 seconds (serials 4..7).
    QCOMPARE(history.size(), 4);
    QCOMPARE(history.indexOfSerial(3), -1);
    QCOMPARE(history.indexOfSerial(5), 1);
    QCOMPARE(history.indexOfSerial(8), -1);
    QCOMPARE(history.indexAt(kStart), 0);
    QCOMPARE(history.indexAt(kStart.addSecs(11)), 1);
    QCOMPARE(history.indexAt(kStart.addSecs(12)), 2);
    QCOMPARE(history.indexAt(kStart.addSecs(60)), 3);
}

QTEST_GUILESS_MAIN(tst_History)
#include "tst_history.moc"
