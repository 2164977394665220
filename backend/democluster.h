// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The demo cluster: a seeded, deterministic simulation of a team's KubeRay + TPU cluster that
// answers with the same bodies Ray's dashboard and the Kubernetes API would, so it enters the
// product through the one Capture -> buildSnapshot path. Time is simulated (advance()), so tests
// drive it step by step; DemoSource ticks it in real time for the window.

#include "capture.h"
#include "clusteractions.h"
#include "source.h"

#include <QDateTime>
#include <QHash>
#include <QList>
#include <QMap>
#include <QRandomGenerator>
#include <QString>
#include <QStringList>

#include <functional>

class QTimer;

namespace slicescope {

struct ActionResult {
    bool ok = false;
    QString message;              // what happened, or why not
    QString jobId;                // the submission id of the job that holds a placement group
    QString placementGroupId;
};

class DemoCluster
{
public:
    explicit DemoCluster(quint32 seed = 42, QDateTime start = QDateTime(QDate(2026, 11, 29), QTime(9, 0), Qt::UTC));

    // Moves simulated time forward, applying every transition that falls due, in order.
    void advance(qint64 ms);
    qint64 elapsedMs() const { return m_now; }
    QDateTime now() const { return m_start.addMSecs(m_now); }

    // The current state as the APIs would answer it.
    Capture capture() const;

    // Actions, as an operator would take them. Each validates first and changes nothing on error.
    ActionResult submitSlicePlacementGroup(const SlicePlacementRequest &request);
    ActionResult releasePlacementGroup(const QString &nameOrId);
    ActionResult scaleWorkerGroup(const QString &qualifiedGroup, int replicas);
    ActionResult removeSlice(const QString &sliceName);

    // Simulated delays (ms), public so tests can reason about them.
    static constexpr qint64 kHeadReserveDelay = 1500;  // head PG pending -> placed
    static constexpr qint64 kSliceReserveDelay = 1000; // then the slice PG
    static constexpr qint64 kPodStartDelay = 3000;     // pod Pending -> Running
    static constexpr qint64 kRayJoinDelay = 2000;      // Running -> Ray node ALIVE
    static constexpr qint64 kPodStopDelay = 1000;      // deletion -> gone, Ray node DEAD
    // The demo's story (simulated ms from the start): worker 1 of v6e-4x4-2 dies; "batch-infer"
    // asks for two v6e 4x4 slices and waits (one is ready); v6e-4x4 scales up by a slice, which
    // lets it through; the degraded v6e-4x4-2 is removed.
    static constexpr qint64 kStoryHostDiesMs = 90000;
    static constexpr qint64 kStoryGroupPendsMs = 120000;
    static constexpr qint64 kStoryScaleUpMs = 150000;
    static constexpr qint64 kStoryRemoveDegradedMs = 210000;
    // Chip activity (democlusteractivity.cpp, Ray's GET /nodes?view=summary in every capture):
    // "llm-train"'s slice trains at 70-95 % duty cycle with ~70 % of its HBM used; the detached
    // "rl-rollout" group holds v4-2x2x2-0 at 0-2 % (reserved but idle); a job with no placement
    // group runs v6e-4x4-2 at 60-85 % until the host above dies, then its other hosts stall at
    // 0-3 % (a collective waiting for the dead peer); v5p-4x4x4-0's hosts run without the TPU
    // device plugin (`tpus: []`, unknown); every other chip idles at 0 %.
    static constexpr qint64 kReporterIntervalMs = 5000; // Ray's REPORTER_UPDATE_INTERVAL_MS
    // The demo's Prometheus: every capture also carries its answer to promql::windowMaxQuery over
    // this window (what `--prometheus` adds to a live source), computed from the same samples the
    // node summary shows. It answers only for chips whose work it saw whole (the query's `and ...
    // offset` proof): the scenario's hosts held what they hold since before the demo started, so
    // the detached "rl-rollout" group is reserved and idle for the whole window from the first
    // capture; chips that changed hands during the demo wait out the window.
    static constexpr int kWindowSeconds = 600;

private:
    struct Node;
    struct Pod;
    struct Group;
    struct Bundle;
    struct PlacementGroup;
    struct Job;

    struct Node {
        QString id, ip, name, sliceName, podType, topology, acceleratorType, nodeGroup;
        int workerId = -1;
        bool alive = true;
        bool isHead = false;
        double tpu = 0, cpu = 0;
        bool sliceHead = false;
        QString stateMessage;
        qint64 startMs = 0, endMs = 0;
    };
    struct Pod {
        QString ns, name, cluster, group, phase = QStringLiteral("Pending"), ip, nodeName, tpuName, replicaName;
        QString accelerator, topology;
        int hostIndex = -1, replicaIndex = -1, tpuChips = 0;
        bool head = false, ready = false, terminating = false;
        qint64 createdMs = 0;
    };
    struct KubeNode {
        QString name, accelerator, topology, pool;
        int tpu = 0;
    };
    struct Group {
        QString ns, cluster, name, accelerator, topology;
        int numOfHosts = 1, chipsPerHost = 4, replicas = 0, minReplicas = 0, maxReplicas = 1;
        QStringList workersToDelete;
        QList<int> replicaIndices; // live replicas, in creation order
        int nextIndex = 0;
    };
    struct Cluster {
        QString ns, name;
        bool autoscaling = false;
        qint64 generation = 1;
    };
    struct Bundle {
        QMap<QString, double> resources;
        QString nodeId;
        QMap<QString, QString> selector;
    };
    struct PlacementGroup {
        QString id, name, state = QStringLiteral("PENDING"), jobId, schedulingState = QStringLiteral("QUEUED");
        bool detached = false;
        QList<Bundle> bundles;
        // For slice requests: what it waits for.
        QString headPodType;     // non-empty: a head PG claiming one slice of this pod type
        QString forRequest;      // the request (job) it belongs to
    };
    struct Job {
        QString submissionId, jobId, status = QStringLiteral("PENDING"), entrypoint, message;
        qint64 startMs = 0, endMs = 0;
        // Slice request bookkeeping.
        SlicePlacementRequest request;
        QString podType;
        int hostsPerSlice = 0, chipsPerHost = 0;  // as Ray counts them (chips_per_vm or its default)
        int tpuPerBundle = 0, bundlesPerSlice = 0;
        qint64 deadlineMs = 0;
    };

    void buildScenario();
    void scheduleStory();
    Cluster &addCluster(const QString &ns, const QString &name, bool autoscaling);
    Group &addGroup(const Cluster &cluster, const QString &name, const QString &accelerator, const QString &topology,
                    int numOfHosts, int chipsPerHost, int minReplicas, int maxReplicas);
    void addReplica(Group &group, bool startRunning);
    void startPod(const QString &podName);
    void joinRay(const QString &podName);
    void stopReplicaPods(const QStringList &podNames, const QString &reason);
    void killNode(Node &node, const QString &message);
    Node &addNode(const QString &ip, const QString &name);
    PlacementGroup &addPlacementGroup(const QString &name, const QString &jobId, bool detached);
    Job &addJob(const QString &submissionId, const QString &entrypoint);

    void schedule(qint64 delayMs, std::function<void()> action);
    void progressRequests();
    bool tryReserve(Job &job);
    void failRequest(Job &job, const QString &message);
    QString readySliceFor(const QString &podType, const QString &topology, const QStringList &exclude) const;
    QStringList slicesHeldByRequests() const;
    QList<Node *> sliceNodes(const QString &sliceName);
    Group *groupOfSlice(const QString &sliceName);

    QString hex(int digits);
    QString nextIp();
    QByteArray nodeSummaryBody() const; // democlusteractivity.cpp
    QByteArray windowMaxBody(int seconds) const; // democlusteractivity.cpp
    // What each alive TPU node's chips are doing, as small numbers (democlusteractivity.cpp's
    // Work), and since when: noteWork() marks the nodes whose chips changed hands since it last
    // looked as changed at `sinceMs`. Called after every transition and action.
    QHash<QString, QList<int>> chipWorkByNode() const;
    void noteWork(qint64 sinceMs);
    struct WorkMark {
        QList<int> work;
        qint64 sinceMs = 0;
    };
    QHash<QString, WorkMark> m_workSince;
    // Notes the work when an action returns, whichever way it returns.
    struct NoteWorkOnReturn {
        DemoCluster &cluster;
        ~NoteWorkOnReturn() { cluster.noteWork(cluster.m_now); }
    };

    quint32 m_seed = 0;
    QRandomGenerator m_random;
    QDateTime m_start;
    qint64 m_now = 0;
    int m_ipCounter = 0;
    int m_jobCounter = 0;
    QList<Cluster> m_clusters;
    QList<Group> m_groups;
    QList<Node> m_nodes;
    QList<Pod> m_pods;
    QList<KubeNode> m_kubeNodes;
    QList<PlacementGroup> m_groupsPg;
    QList<Job> m_jobs;
    struct Timer {
        qint64 at;
        quint64 order;
        std::function<void()> action;
    };
    QList<Timer> m_timers;
    quint64 m_timerOrder = 0;
};

// The demo in real time: ticks the simulation once a second and emits a capture each tick.
class DemoSource : public Source
{
    Q_OBJECT
public:
    explicit DemoSource(quint32 seed = 42, QObject *parent = nullptr);
    QString description() const override;
    void start() override;

    DemoCluster &cluster() { return m_cluster; }
    // Moves simulated time forward and emits the capture that shows it (what a tick does; tests
    // call it to step time without waiting).
    void advance(qint64 ms);
    // Runs an action and emits the capture that shows its first effect.
    ActionResult act(const std::function<ActionResult(DemoCluster &)> &action);

private:
    void tick();

    DemoCluster m_cluster;
    QTimer *m_timer = nullptr;
};

} // namespace slicescope
