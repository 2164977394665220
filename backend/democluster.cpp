// SPDX-License-Identifier: GPL-3.0-or-later
// The demo cluster: a deterministic simulation of a KubeRay cluster with TPU slices (its story
// of failures and recoveries, placement-group requests, scaling), advanced by the clock it is
// given; what the APIs would answer is in democlusterbodies.cpp.
#include "democluster.h"
#include "democluster_p.h"

#include "tpu.h"

#include <QTimer>

#include <algorithm>
#include <limits>

namespace slicescope {

using demo::kClusterName;
using demo::kNamespace;
using demo::s;

DemoCluster::DemoCluster(quint32 seed, QDateTime start)
    : m_seed(seed)
    , m_random(seed)
    , m_start(std::move(start))
{
    buildScenario();
    scheduleStory();
    // What the scenario holds it has held since long before the demo started (its own set-up
    // went through the actions, which noted the work as of now: forget that).
    m_workSince.clear();
    noteWork(std::numeric_limits<qint64>::min() / 4);
}

void DemoCluster::scheduleStory()
{
    // What happens to the demo fleet over its first minutes, so the history, the charts and the
    // timeline have something real to show (issue 6). Scripted through the same actions an
    // operator takes; each step is skipped if the operator already changed what it needs.
    schedule(kStoryHostDiesMs, [this] {
        for (Node &n : m_nodes)
            if (n.alive && n.sliceName == QLatin1String("v6e-4x4-2") && n.workerId == 1)
                killNode(n, s("Unexpected termination: the TPU host stopped answering (simulated hardware fault)"));
    });
    schedule(kStoryGroupPendsMs, [this] {
        SlicePlacementRequest request;
        request.accelerator = s("v6e");
        request.topology = s("4x4");
        request.numSlices = 2;
        request.name = s("batch-infer");
        request.timeoutSeconds = 600; // waits for the slices the scale-up below brings
        submitSlicePlacementGroup(request);
    });
    schedule(kStoryScaleUpMs, [this] {
        const QString group = QStringLiteral("%1/%2/v6e-4x4").arg(s(kNamespace), s(kClusterName));
        for (const Group &g : std::as_const(m_groups))
            if (g.name == QLatin1String("v6e-4x4"))
                scaleWorkerGroup(group, g.replicas + 1);
    });
    schedule(kStoryRemoveDegradedMs, [this] { removeSlice(s("v6e-4x4-2")); });
}

QString DemoCluster::hex(int digits)
{
    static const char alphabet[] = "0123456789abcdef";
    QString out(digits, u'0');
    for (int i = 0; i < digits; ++i)
        out[i] = QLatin1Char(alphabet[m_random.bounded(16)]);
    return out;
}

QString DemoCluster::nextIp()
{
    ++m_ipCounter;
    return QStringLiteral("10.8.%1.%2").arg(m_ipCounter / 200).arg(m_ipCounter % 200 + 10);
}

void DemoCluster::buildScenario()
{
    const Cluster &cluster = addCluster(s(kNamespace), s(kClusterName), false);
    const Cluster clusterCopy = cluster; // addGroup appends to m_groups only, but keep no reference across it

    // The Ray head and its pod.
    Pod headPod;
    headPod.ns = clusterCopy.ns;
    headPod.cluster = clusterCopy.name;
    headPod.group = s("headgroup");
    headPod.head = true;
    headPod.name = QStringLiteral("%1-head-%2").arg(clusterCopy.name, hex(5));
    headPod.phase = s("Running");
    headPod.ready = true;
    headPod.ip = nextIp();
    headPod.nodeName = QStringLiteral("gke-%1-default-pool-%2").arg(clusterCopy.name, hex(4));
    m_pods.append(headPod);
    Node &head = addNode(headPod.ip, headPod.name);
    head.isHead = true;
    head.cpu = 8;

    Group &v6e = addGroup(clusterCopy, s("v6e-4x4"), s("tpu-v6e-slice"), s("4x4"), 4, 4, 0, 6);
    for (int i = 0; i < 4; ++i)
        addReplica(v6e, true);
    Group &v6eSingle = addGroup(clusterCopy, s("v6e-2x4"), s("tpu-v6e-slice"), s("2x4"), 1, 8, 0, 2);
    addReplica(v6eSingle, true);
    Group &v4 = addGroup(clusterCopy, s("v4-2x2x2"), s("tpu-v4-podslice"), s("2x2x2"), 2, 4, 0, 2);
    addReplica(v4, true);
    Group &v5p = addGroup(clusterCopy, s("v5p-4x4x4"), s("tpu-v5p-slice"), s("4x4x4"), 16, 4, 0, 2);
    addReplica(v5p, true);

    // One degraded slice: worker 2 of v6e-4x4-3 lost its raylet; the pod is still there.
    for (Node &n : m_nodes)
        if (n.sliceName == QLatin1String("v6e-4x4-3") && n.workerId == 2)
            killNode(n, s("Unexpected termination: the node's raylet failed its health check"));

    // Placement groups a real team would have.
    auto placeSlice = [this](PlacementGroup &pg, const QString &slice, double cpu) {
        for (Node *n : sliceNodes(slice)) {
            Bundle b;
            b.resources = {{s("CPU"), cpu}, {s("TPU"), n->tpu}};
            b.nodeId = n->id;
            b.selector = {{s("ray.io/tpu-slice-name"), slice}};
            pg.bundles.append(b);
        }
        pg.state = s("CREATED");
        pg.schedulingState = s("FINISHED");
    };
    auto headFor = [this](const QString &slice, const QString &podType, const QString &jobId) {
        PlacementGroup &pg = addPlacementGroup(QString(), jobId, false);
        Bundle b;
        b.resources = {{QStringLiteral("TPU-%1-head").arg(podType), 1}};
        b.selector = {{s("ray.io/tpu-worker-id"), s("0")}, {s("ray.io/tpu-pod-type"), podType}};
        for (Node *n : sliceNodes(slice))
            if (n->workerId == 0)
                b.nodeId = n->id;
        pg.bundles.append(b);
        pg.state = s("CREATED");
        pg.schedulingState = s("FINISHED");
        pg.headPodType = podType;
    };

    Job &train = addJob(QStringLiteral("raysubmit_%1").arg(hex(16)), s("python train_llm.py --slices 1"));
    train.status = s("RUNNING");
    train.startMs = -3600 * 1000;
    headFor(s("v6e-4x4-0"), s("v6e-16"), train.jobId);
    placeSlice(addPlacementGroup(s("llm-train"), train.jobId, false), s("v6e-4x4-0"), 1);

    Job &rl = addJob(QStringLiteral("raysubmit_%1").arg(hex(16)), s("python rl_rollout.py"));
    rl.status = s("RUNNING");
    rl.startMs = -1200 * 1000;
    headFor(s("v4-2x2x2-0"), s("v4-16"), rl.jobId);
    placeSlice(addPlacementGroup(s("rl-rollout"), rl.jobId, true), s("v4-2x2x2-0"), 2);

    Job &notebook = addJob(QStringLiteral("raysubmit_%1").arg(hex(16)), s("python -m notebook_kernel"));
    notebook.status = s("RUNNING");
    notebook.startMs = -600 * 1000;
    {
        PlacementGroup &pg = addPlacementGroup(s("notebook-alice"), notebook.jobId, false);
        Bundle b;
        b.resources = {{s("CPU"), 1}, {s("TPU"), 2}};
        b.nodeId = sliceNodes(s("v6e-2x4-0")).first()->id;
        pg.bundles.append(b);
        pg.state = s("CREATED");
        pg.schedulingState = s("FINISHED");
    }
    {
        PlacementGroup &pg = addPlacementGroup(s("serve-cpu"), notebook.jobId, true);
        Bundle b;
        b.resources = {{s("CPU"), 2}};
        b.nodeId = m_nodes.first().id;
        pg.bundles.append(b);
        pg.state = s("CREATED");
        pg.schedulingState = s("FINISHED");
    }
    {
        PlacementGroup &pg = addPlacementGroup(s("old-sweep"), notebook.jobId, false);
        Bundle b;
        b.resources = {{s("CPU"), 1}};
        pg.bundles.append(b);
        pg.state = s("REMOVED");
        pg.schedulingState = s("REMOVED");
    }

    // A slice request nobody can serve: no worker group makes v6e 8x8 slices.
    SlicePlacementRequest eval;
    eval.accelerator = s("v6e");
    eval.topology = s("8x8");
    eval.name = s("eval-8x8");
    eval.timeoutSeconds = 24 * 3600;
    submitSlicePlacementGroup(eval);
    advance(kHeadReserveDelay + kSliceReserveDelay);
    m_now = 0; // the scenario starts "now"; the settling above is history
    for (Job &j : m_jobs)
        if (j.request.name == QLatin1String("eval-8x8"))
            j.startMs = -300 * 1000;
}

DemoCluster::Cluster &DemoCluster::addCluster(const QString &ns, const QString &name, bool autoscaling)
{
    m_clusters.append(Cluster{ns, name, autoscaling, 1});
    return m_clusters.last();
}

DemoCluster::Group &DemoCluster::addGroup(const Cluster &cluster, const QString &name, const QString &accelerator,
                                          const QString &topology, int numOfHosts, int chipsPerHost, int minReplicas, int maxReplicas)
{
    Group g;
    g.ns = cluster.ns;
    g.cluster = cluster.name;
    g.name = name;
    g.accelerator = accelerator;
    g.topology = topology;
    g.numOfHosts = numOfHosts;
    g.chipsPerHost = chipsPerHost;
    g.minReplicas = minReplicas;
    g.maxReplicas = maxReplicas;
    m_groups.append(g);
    return m_groups.last();
}

void DemoCluster::addReplica(Group &group, bool startRunning)
{
    const int index = group.nextIndex++;
    group.replicaIndices.append(index);
    group.replicas = int(group.replicaIndices.size());
    const QString replicaName = QStringLiteral("%1-%2-%3").arg(group.cluster, group.name, hex(5));
    const QString pool = QStringLiteral("%1-pool-%2").arg(group.name).arg(index);
    const QString poolSuffix = hex(4);
    for (int h = 0; h < group.numOfHosts; ++h) {
        Pod p;
        p.ns = group.ns;
        p.cluster = group.cluster;
        p.group = group.name;
        p.name = QStringLiteral("%1-%2-worker-%3").arg(group.cluster, group.name, hex(5));
        p.tpuName = QStringLiteral("%1-%2").arg(group.name).arg(index);
        p.replicaName = replicaName;
        p.replicaIndex = index;
        p.hostIndex = h;
        p.tpuChips = group.chipsPerHost;
        p.accelerator = group.accelerator;
        p.topology = group.topology;
        p.createdMs = m_now;
        KubeNode kn;
        kn.name = QStringLiteral("gke-%1-%2-%3-%4").arg(group.cluster, pool, poolSuffix).arg(h);
        kn.accelerator = group.accelerator;
        kn.topology = group.topology;
        kn.pool = pool;
        kn.tpu = group.chipsPerHost;
        m_kubeNodes.append(kn);
        p.nodeName = kn.name;
        m_pods.append(p);
        if (startRunning) {
            startPod(p.name);
            joinRay(p.name);
        } else {
            const QString name = p.name;
            schedule(kPodStartDelay, [this, name] { startPod(name); });
            schedule(kPodStartDelay + kRayJoinDelay, [this, name] { joinRay(name); });
        }
    }
}

void DemoCluster::startPod(const QString &podName)
{
    for (Pod &p : m_pods)
        if (p.name == podName && !p.terminating) {
            p.phase = s("Running");
            p.ready = true;
            p.ip = nextIp();
        }
}

void DemoCluster::joinRay(const QString &podName)
{
    for (const Pod &p : std::as_const(m_pods)) {
        if (p.name != podName || p.terminating || p.phase != QLatin1String("Running"))
            continue;
        const tpu::Generation *gen = tpu::findGeneration(p.accelerator);
        const auto topo = tpu::parseTopology(p.topology);
        Node &n = addNode(p.ip, p.name);
        n.tpu = p.tpuChips;
        n.cpu = 8;
        n.sliceName = p.tpuName;
        n.workerId = p.hostIndex;
        n.topology = p.topology;
        n.nodeGroup = p.group;
        if (gen && topo) {
            tpu::Topology t = *topo;
            n.podType = tpu::podType(*gen, t);
            n.acceleratorType = gen->rayAcceleratorType;
            // Ray adds TPU-<pod-type>-head on worker 0 of multi-host slices only.
            n.sliceHead = p.hostIndex == 0 && t.chips() / std::max(1, p.tpuChips) > 1;
        }
        return;
    }
}

DemoCluster::Node &DemoCluster::addNode(const QString &ip, const QString &name)
{
    Node n;
    n.id = hex(56);
    n.ip = ip;
    n.name = name;
    n.startMs = m_now;
    m_nodes.append(n);
    return m_nodes.last();
}

void DemoCluster::killNode(Node &node, const QString &message)
{
    if (!node.alive)
        return;
    node.alive = false;
    node.stateMessage = message;
    node.endMs = m_now;
    // Ray reschedules placement groups that lose a node: their bundles there become unplaced.
    for (PlacementGroup &pg : m_groupsPg) {
        if (pg.state == QLatin1String("REMOVED"))
            continue;
        bool touched = false;
        for (Bundle &b : pg.bundles)
            if (b.nodeId == node.id) {
                b.nodeId.clear();
                touched = true;
            }
        if (touched) {
            pg.state = s("RESCHEDULING");
            pg.schedulingState = s("NO_RESOURCES");
        }
    }
}

void DemoCluster::stopReplicaPods(const QStringList &podNames, const QString &reason)
{
    for (Pod &p : m_pods)
        if (podNames.contains(p.name))
            p.terminating = true;
    schedule(kPodStopDelay, [this, podNames, reason] {
        for (const Pod &p : std::as_const(m_pods)) {
            if (!podNames.contains(p.name))
                continue;
            for (Node &n : m_nodes)
                if (n.name == p.name && n.alive)
                    killNode(n, reason);
            m_kubeNodes.removeIf([&](const KubeNode &k) { return k.name == p.nodeName; });
        }
        m_pods.removeIf([&](const Pod &p) { return podNames.contains(p.name); });
    });
}

DemoCluster::PlacementGroup &DemoCluster::addPlacementGroup(const QString &name, const QString &jobId, bool detached)
{
    PlacementGroup pg;
    pg.id = hex(36);
    pg.name = name;
    pg.jobId = jobId;
    pg.detached = detached;
    m_groupsPg.append(pg);
    return m_groupsPg.last();
}

DemoCluster::Job &DemoCluster::addJob(const QString &submissionId, const QString &entrypoint)
{
    Job j;
    j.submissionId = submissionId;
    j.jobId = QStringLiteral("%1000000").arg(++m_jobCounter + 1, 2, 10, QLatin1Char('0'));
    j.entrypoint = entrypoint;
    j.startMs = m_now;
    m_jobs.append(j);
    return m_jobs.last();
}

void DemoCluster::schedule(qint64 delayMs, std::function<void()> action)
{
    m_timers.append(Timer{m_now + delayMs, m_timerOrder++, std::move(action)});
}

void DemoCluster::advance(qint64 ms)
{
    const qint64 target = m_now + std::max<qint64>(0, ms);
    for (;;) {
        // The earliest due timer, ties in the order they were scheduled: fully deterministic.
        auto next = std::min_element(m_timers.begin(), m_timers.end(), [](const Timer &a, const Timer &b) {
            return a.at != b.at ? a.at < b.at : a.order < b.order;
        });
        if (next == m_timers.end() || next->at > target)
            break;
        m_now = std::max(m_now, next->at);
        auto action = std::move(next->action);
        m_timers.erase(next);
        action();
        progressRequests();
        noteWork(m_now);
    }
    m_now = target;
    progressRequests();
    noteWork(m_now);
}

QList<DemoCluster::Node *> DemoCluster::sliceNodes(const QString &sliceName)
{
    QList<Node *> out;
    for (Node &n : m_nodes)
        if (n.alive && n.sliceName == sliceName)
            out.append(&n);
    std::sort(out.begin(), out.end(), [](const Node *a, const Node *b) { return a->workerId < b->workerId; });
    return out;
}

DemoCluster::Group *DemoCluster::groupOfSlice(const QString &sliceName)
{
    for (Group &g : m_groups)
        for (int index : std::as_const(g.replicaIndices))
            if (QStringLiteral("%1-%2").arg(g.name).arg(index) == sliceName)
                return &g;
    return nullptr;
}

QStringList DemoCluster::slicesHeldByRequests() const
{
    QStringList held;
    QHash<QString, QString> sliceOfNode;
    for (const Node &n : m_nodes)
        sliceOfNode.insert(n.id, n.sliceName);
    for (const PlacementGroup &pg : m_groupsPg) {
        if (pg.state == QLatin1String("REMOVED"))
            continue;
        for (const Bundle &b : pg.bundles) {
            const bool holds = b.resources.value(s("TPU")) > 0 || !pg.headPodType.isEmpty();
            if (holds && !b.nodeId.isEmpty())
                held << sliceOfNode.value(b.nodeId);
            if (b.selector.contains(s("ray.io/tpu-slice-name")))
                held << b.selector.value(s("ray.io/tpu-slice-name"));
        }
    }
    return held;
}

QString DemoCluster::readySliceFor(const QString &podType, const QString &topology, const QStringList &exclude) const
{
    const QStringList held = slicesHeldByRequests() + exclude;
    QMap<QString, QList<const Node *>> bySlice;
    for (const Node &n : m_nodes)
        if (n.alive && n.podType == podType && n.topology == topology)
            bySlice[n.sliceName].append(&n);
    for (auto it = bySlice.cbegin(); it != bySlice.cend(); ++it) {
        if (held.contains(it.key()))
            continue;
        double chips = 0;
        bool hasWorker0 = false;
        for (const Node *n : it.value()) {
            chips += n->tpu;
            hasWorker0 = hasWorker0 || n->workerId == 0;
        }
        const auto topo = tpu::parseTopology(topology);
        if (hasWorker0 && topo && int(chips) == topo->chips())
            return it.key();
    }
    return {};
}

ActionResult DemoCluster::submitSlicePlacementGroup(const SlicePlacementRequest &request)
{
    const NoteWorkOnReturn note{*this};
    const tpu::Generation *gen = tpu::findGeneration(request.accelerator);
    if (!gen)
        return {false, QStringLiteral("unknown TPU accelerator \"%1\"").arg(request.accelerator), {}, {}};
    const auto topo = tpu::parseTopology(request.topology);
    if (!topo)
        return {false, QStringLiteral("\"%1\" is not a topology").arg(request.topology), {}, {}};
    if (const QString problem = tpu::topologyProblem(*gen, *topo); !problem.isEmpty())
        return {false, QStringLiteral("ValueError: %1").arg(problem), {}, {}};
    if (request.numSlices < 1)
        return {false, s("num_slices must be at least 1"), {}, {}};
    // Bundles as slice_placement_group makes them: chips / TPU per bundle, hosts by chips_per_vm;
    // what Ray refuses, the demo refuses with Ray's words (the planner holds them).
    const PlanResult shape = planSlicePlacement(ClusterSnapshot{}, planRequestFor(request));
    if (!shape.requestError.isEmpty())
        return {false, QStringLiteral("ValueError: %1").arg(shape.requestError), {}, {}};
    if (request.name.isEmpty())
        return {false, s("a slice placement group needs a name"), {}, {}};
    for (const PlacementGroup &pg : std::as_const(m_groupsPg))
        if (pg.name == request.name && pg.state != QLatin1String("REMOVED"))
            return {false, QStringLiteral("a placement group named \"%1\" already exists").arg(request.name), {}, {}};

    Job &job = addJob(QStringLiteral("slicescope-%1-%2").arg(request.name, hex(6)),
                      s("python -m slicescope_driver  # reserves a slice placement group; request in SLICESCOPE_REQUEST"));
    job.request = request;
    job.podType = tpu::podType(*gen, *topo);
    job.chipsPerHost = shape.chipsPerHost;
    job.hostsPerSlice = shape.hostsPerSlice;
    job.tpuPerBundle = shape.tpuPerBundle;
    job.bundlesPerSlice = shape.bundlesPerSlice;
    job.deadlineMs = m_now + qint64(request.timeoutSeconds) * 1000;
    const QString submissionId = job.submissionId;
    const bool multiHost = !shape.singleHost;
    schedule(500, [this, submissionId, multiHost] {
        for (Job &j : m_jobs)
            if (j.submissionId == submissionId && j.status == QLatin1String("PENDING")) {
                j.status = s("RUNNING");
                // Step 1 of slice_placement_group (docs/facts.md 2.2): one head PG per slice.
                if (multiHost)
                    for (int i = 0; i < j.request.numSlices; ++i) {
                        PlacementGroup &pg = addPlacementGroup(QString(), j.jobId, false);
                        Bundle b;
                        b.resources = {{QStringLiteral("TPU-%1-head").arg(j.podType), 1}};
                        b.selector = {{s("ray.io/tpu-worker-id"), s("0")}, {s("ray.io/tpu-pod-type"), j.podType}};
                        pg.bundles.append(b);
                        pg.headPodType = j.podType;
                        pg.forRequest = j.submissionId;
                    }
            }
    });
    return {true, QStringLiteral("submitted job %1 to reserve %2 %3 %4 slice(s)").arg(submissionId).arg(request.numSlices).arg(gen->name, topo->toString()), submissionId, {}};
}

void DemoCluster::progressRequests()
{
    for (Job &job : m_jobs) {
        if (job.status != QLatin1String("RUNNING") || job.request.name.isEmpty() || job.deadlineMs == 0)
            continue;
        if (m_now >= job.deadlineMs) {
            failRequest(job, QStringLiteral("TimeoutError: slice placement group '%1' was not ready within %2 s: no ready %3 slice with topology %4 was free")
                                 .arg(job.request.name)
                                 .arg(job.request.timeoutSeconds)
                                 .arg(job.podType, job.request.topology));
            continue;
        }
        tryReserve(job);
    }
}

bool DemoCluster::tryReserve(Job &job)
{
    // Already reserved?
    for (const PlacementGroup &pg : std::as_const(m_groupsPg))
        if (pg.forRequest == job.submissionId && pg.name == job.request.name)
            return true;
    const qint64 waited = m_now - job.startMs;
    if (waited < 500 + kHeadReserveDelay)
        return false;

    QStringList claimed;
    bool allHeads = true;
    const bool multiHost = job.hostsPerSlice > 1;
    if (multiHost) {
        for (PlacementGroup &pg : m_groupsPg) {
            if (pg.forRequest != job.submissionId || pg.headPodType.isEmpty() || pg.state == QLatin1String("REMOVED"))
                continue;
            if (pg.state == QLatin1String("CREATED")) {
                for (const Node &n : std::as_const(m_nodes))
                    if (n.id == pg.bundles.first().nodeId)
                        claimed << n.sliceName;
                continue;
            }
            const QString slice = readySliceFor(job.podType, job.request.topology, claimed);
            if (slice.isEmpty()) {
                // Ray tells "never" (no node type has the resource) from "not now".
                bool anyGroup = false;
                for (const Group &g : std::as_const(m_groups))
                    anyGroup = anyGroup || (tpu::findGeneration(g.accelerator) == tpu::findGeneration(job.request.accelerator) && g.topology == job.request.topology);
                pg.schedulingState = anyGroup ? s("NO_RESOURCES") : s("INFEASIBLE");
                allHeads = false;
                continue;
            }
            for (Node *n : sliceNodes(slice))
                if (n->workerId == 0)
                    pg.bundles.first().nodeId = n->id;
            pg.state = s("CREATED");
            pg.schedulingState = s("FINISHED");
            claimed << slice;
        }
    } else {
        for (int i = 0; i < job.request.numSlices; ++i) {
            const QString slice = readySliceFor(job.podType, job.request.topology, claimed);
            if (slice.isEmpty()) {
                allHeads = false;
                break;
            }
            claimed << slice;
        }
    }
    if (!allHeads || claimed.size() < job.request.numSlices)
        return false;
    if (waited < 500 + kHeadReserveDelay + kSliceReserveDelay)
        return false;
    // Step 3: the slice placement group itself, chips / TPU-per-bundle bundles per slice (one per
    // host by default), pinned by slice name; a host takes as many as its chips hold, in worker order.
    PlacementGroup &pg = addPlacementGroup(job.request.name, job.jobId, job.request.detached);
    pg.forRequest = job.submissionId;
    for (const QString &slice : std::as_const(claimed)) {
        const QList<Node *> hosts = sliceNodes(slice);
        int placed = 0;
        for (Node *n : hosts) {
            for (int held = 0; placed < job.bundlesPerSlice && held + job.tpuPerBundle <= int(n->tpu); held += job.tpuPerBundle, ++placed) {
                Bundle b;
                b.resources = {{s("CPU"), job.request.cpuPerBundle}, {s("TPU"), double(job.tpuPerBundle)}};
                b.nodeId = n->id;
                if (multiHost) // Ray pins no slice for a single-host shape
                    b.selector = {{s("ray.io/tpu-slice-name"), slice}};
                pg.bundles.append(b);
            }
        }
    }
    pg.state = s("CREATED");
    pg.schedulingState = s("FINISHED");
    return true;
}

void DemoCluster::failRequest(Job &job, const QString &message)
{
    job.status = s("FAILED");
    job.message = message;
    job.endMs = m_now;
    for (PlacementGroup &pg : m_groupsPg)
        if (pg.forRequest == job.submissionId) {
            pg.state = s("REMOVED");
            pg.schedulingState = s("REMOVED");
        }
}

ActionResult DemoCluster::releasePlacementGroup(const QString &nameOrId)
{
    const NoteWorkOnReturn note{*this};
    PlacementGroup *target = nullptr;
    for (PlacementGroup &pg : m_groupsPg)
        if (pg.state != QLatin1String("REMOVED") && (pg.id == nameOrId || (!pg.name.isEmpty() && pg.name == nameOrId)))
            target = &pg;
    if (!target)
        return {false, QStringLiteral("no placement group named or with id \"%1\"").arg(nameOrId), {}, {}};
    const QString jobId = target->jobId, id = target->id;
    const bool detached = target->detached;
    QString stoppedJob;
    // Removing the group removes its head reservations too; a non-detached group lives with its
    // driver, so stop the job that holds it.
    for (PlacementGroup &pg : m_groupsPg)
        if (pg.id == id || (pg.jobId == jobId && !pg.headPodType.isEmpty())) {
            pg.state = s("REMOVED");
            pg.schedulingState = s("REMOVED");
        }
    if (!detached)
        for (Job &j : m_jobs)
            if (j.jobId == jobId && (j.status == QLatin1String("RUNNING") || j.status == QLatin1String("PENDING"))) {
                j.status = s("STOPPED");
                j.message = s("Job was intentionally stopped.");
                j.endMs = m_now;
                stoppedJob = j.submissionId;
            }
    return {true, stoppedJob.isEmpty() ? QStringLiteral("removed placement group %1").arg(nameOrId) : QStringLiteral("removed placement group %1 and stopped job %2").arg(nameOrId, stoppedJob),
            stoppedJob, id};
}

ActionResult DemoCluster::scaleWorkerGroup(const QString &qualifiedGroup, int replicas)
{
    const NoteWorkOnReturn note{*this};
    Group *group = nullptr;
    for (Group &g : m_groups)
        if (QStringLiteral("%1/%2/%3").arg(g.ns, g.cluster, g.name) == qualifiedGroup || g.name == qualifiedGroup)
            group = &g;
    if (!group)
        return {false, QStringLiteral("no worker group \"%1\"").arg(qualifiedGroup), {}, {}};
    for (const Cluster &c : std::as_const(m_clusters))
        if (c.name == group->cluster && c.autoscaling)
            return {false, QStringLiteral("%1 is autoscaled: the Ray autoscaler owns replicas; edit minReplicas/maxReplicas instead").arg(qualifiedGroup), {}, {}};
    if (replicas < group->minReplicas || replicas > group->maxReplicas)
        return {false, QStringLiteral("replicas %1 is outside %2..%3 (minReplicas..maxReplicas)").arg(replicas).arg(group->minReplicas).arg(group->maxReplicas), {}, {}};
    const int before = group->replicas;
    while (group->replicas < replicas)
        addReplica(*group, false);
    if (replicas < group->replicas) {
        QStringList pods;
        while (group->replicaIndices.size() > replicas) {
            const QString slice = QStringLiteral("%1-%2").arg(group->name).arg(group->replicaIndices.takeLast());
            for (const Pod &p : std::as_const(m_pods))
                if (p.tpuName == slice)
                    pods << p.name;
        }
        group->replicas = int(group->replicaIndices.size());
        stopReplicaPods(pods, s("Expected termination: the worker group was scaled down"));
    }
    for (Cluster &c : m_clusters)
        if (c.name == group->cluster)
            ++c.generation;
    return {true, QStringLiteral("%1: replicas %2 -> %3").arg(qualifiedGroup).arg(before).arg(replicas), {}, {}};
}

ActionResult DemoCluster::removeSlice(const QString &sliceName)
{
    const NoteWorkOnReturn note{*this};
    Group *group = groupOfSlice(sliceName);
    if (!group)
        return {false, QStringLiteral("no worker group owns a slice named \"%1\"").arg(sliceName), {}, {}};
    if (group->replicas - 1 < group->minReplicas)
        return {false, QStringLiteral("removing %1 would take %2 below minReplicas %3").arg(sliceName, group->name).arg(group->minReplicas), {}, {}};
    QStringList pods;
    for (const Pod &p : std::as_const(m_pods))
        if (p.tpuName == sliceName)
            pods << p.name;
    const int index = sliceName.section(u'-', -1).toInt();
    group->replicaIndices.removeAll(index);
    group->replicas = int(group->replicaIndices.size());
    group->workersToDelete = pods;
    for (Cluster &c : m_clusters)
        if (c.name == group->cluster)
            ++c.generation;
    stopReplicaPods(pods, s("Expected termination: the slice was removed from its worker group"));
    const QString groupName = group->name;
    schedule(kPodStopDelay + 500, [this, groupName] {
        for (Group &g : m_groups)
            if (g.name == groupName)
                g.workersToDelete.clear();
    });
    return {true, QStringLiteral("removing %1 (%2 pods) from %3").arg(sliceName).arg(pods.size()).arg(group->name), {}, {}};
}

// ---- DemoSource ----

DemoSource::DemoSource(quint32 seed, QObject *parent)
    : Source(parent)
    , m_cluster(seed)
    , m_timer(new QTimer(this))
{
    m_timer->setInterval(1000);
    connect(m_timer, &QTimer::timeout, this, &DemoSource::tick);
}

QString DemoSource::description() const
{
    return tr("demo cluster");
}

void DemoSource::start()
{
    Q_EMIT captureReceived(m_cluster.capture());
    m_timer->start();
}

void DemoSource::tick()
{
    advance(m_timer->interval());
}

void DemoSource::advance(qint64 ms)
{
    m_cluster.advance(ms);
    Q_EMIT captureReceived(m_cluster.capture());
}

ActionResult DemoSource::act(const std::function<ActionResult(DemoCluster &)> &action)
{
    ActionResult result = action(m_cluster);
    Q_EMIT captureReceived(m_cluster.capture());
    return result;
}

} // namespace slicescope
