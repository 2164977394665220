// SPDX-License-Identifier: GPL-3.0-or-later
// The joiner: Ray nodes, pods and Kubernetes nodes into slices (grouped by slice name and
// replica, split where one name is claimed twice, history dropped by isRemoved), bundles placed
// on chips, worker groups attached. Works on a ClusterSnapshot the readers have filled.

#include "snapshotjoin_p.h"

#include "naturalsort.h"
#include "snapshotread_p.h"

#include <QHash>
#include <QSet>
#include <QVarLengthArray>

#include <algorithm>
#include <numeric>
#include <optional>

namespace slicescope {

using snapshotread::addUnrecognised;
using snapshotread::kSliceNameLabel;
using snapshotread::kWorkerIdLabel;

namespace {

struct SliceParts {
    QList<int> rayNodes;
    QList<int> pods;
};

// The better of two Ray nodes claiming the same worker: alive beats dead, then the newest.
bool betterNode(const RayNode &a, const RayNode &b)
{
    if (a.alive != b.alive) return a.alive;
    return a.startTimeMs > b.startTimeMs;
}

// The better of two pods claiming the same worker: one still there beats one gone or going (Failed,
// Succeeded, being deleted), then Running beats the rest, then the newer pod (a replacement).
bool betterPod(const Pod &a, const Pod &b)
{
    if (a.isGone() != b.isGone()) return !a.isGone();
    const bool aRunning = a.phase == QLatin1String("Running"), bRunning = b.phase == QLatin1String("Running");
    if (aRunning != bRunning) return aRunning;
    if (a.created != b.created) return a.created > b.created;
    return a.name < b.name;
}

class Joiner
{
public:
    explicit Joiner(ClusterSnapshot &s, bool hasRayNodes, bool podsRead)
        : m_s(s)
        , m_hasRayNodes(hasRayNodes)
        , m_podsRead(podsRead)
    { }

    void run(const QList<QString> &podReplicaKeys)
    {
        for (int i = 0; i < m_s.kubeNodes.size(); ++i)
            m_kubeNodeByName.insert(m_s.kubeNodes[i].name, i);
        indexRayNodes();
        groupPodsIntoSlices(podReplicaKeys);
        splitSharedNames(podReplicaKeys);
        buildSlices();
        placeBundles();
        attachWorkerGroups();
    }

private:
    void indexRayNodes()
    {
        m_nodeById.reserve(m_s.rayNodes.size());
        for (int i = 0; i < m_s.rayNodes.size(); ++i) {
            const RayNode &n = m_s.rayNodes[i];
            m_nodeById.insert(n.id, i);
            if (!n.ip.isEmpty() && !m_s.pods.isEmpty()) // only pods join nodes (and clusters) by IP
                m_nodesByIp.insert(n.ip, i);
            if (!n.sliceName.isEmpty()) m_parts[n.sliceName].rayNodes.append(i);
            else if (n.tpu > 0 && !n.isHead)
                m_s.warnings << QStringLiteral("Ray node %1 (%2) has TPU %3 but no %4 label: not part of any slice")
                                    .arg(n.id.left(12), n.ip)
                                    .arg(n.tpu)
                                    .arg(QLatin1String(kSliceNameLabel.data()));
        }
    }

    void groupPodsIntoSlices(const QList<QString> &podReplicaKeys)
    {
        // Which RayClusters the Ray bodies describe: those with a pod whose IP a Ray node has.
        // (A Kubernetes capture may span many RayClusters; the Ray dashboard is one of them.)
        for (const Pod &p : std::as_const(m_s.pods))
            if (!p.podIp.isEmpty() && m_nodesByIp.contains(p.podIp)) m_rayClusters.insert(p.ns + u'/' + p.cluster);

        // Pods are grouped by replica first (docs/facts.md 4), then the group is named by TPU_NAME.
        QHash<QString, QList<int>> byReplica;
        QStringList order;
        for (int i = 0; i < m_s.pods.size(); ++i) {
            const Pod &p = m_s.pods[i];
            if (p.isHead || (p.tpuChips <= 0 && p.accelerator.isEmpty())) continue;
            const QString key = p.ns + u'/' + p.cluster + u'/' + p.group + u'/' + podReplicaKeys[i];
            if (!byReplica.contains(key)) order << key;
            byReplica[key].append(i);
        }
        for (const QString &key : std::as_const(order)) {
            const QList<int> &members = byReplica[key];
            QString name;
            for (int i : members)
                if (!m_s.pods[i].tpuName.isEmpty()) {
                    name = m_s.pods[i].tpuName;
                    break;
                }
            if (name.isEmpty()) name = m_s.pods[members.first()].replicaKey;
            if (name.isEmpty()) {
                m_s.warnings << QStringLiteral("pod %1 has a TPU request but nothing names its slice (no replica label, no TPU_NAME)")
                                    .arg(m_s.pods[members.first()].qualifiedName());
                continue;
            }
            // TPU_NAME is unique within one RayCluster only. When another cluster's replica (or
            // Ray's slice of that name, for a cluster Ray does not describe) already has the name,
            // qualify it as ns/cluster/name rather than merging two slices into one.
            const Pod &first = m_s.pods[members.first()];
            const QString cluster = first.ns + u'/' + first.cluster;
            const QString owner = m_nameOwner.value(name);
            const bool rayHasName = m_parts.contains(name) && !m_parts[name].rayNodes.isEmpty();
            if ((!owner.isEmpty() && owner != cluster) || (owner.isEmpty() && rayHasName && !m_rayClusters.contains(cluster))) name = cluster + u'/' + name;
            else m_nameOwner.insert(name, cluster);
            for (int i : members)
                m_s.pods[i].replicaKey = name;
            m_parts[name].pods += members;
        }
    }

    // The hosts a slice of these parts should have, from its labels (0 when unknown).
    // What a slice's Ray nodes and pods say about its shape: the first topology, pod type and
    // accelerator any of them names (Ray's first), Ray's largest TPU count, the pods' chips.
    struct ShapeLabels {
        QString topology, podType, accelerator;
        int rayTpu = 0;
        int firstPodChips = 0; // the first pod that names a chip count
        int maxPodChips = 0;
    };
    ShapeLabels shapeLabels(const SliceParts &parts) const
    {
        ShapeLabels l;
        for (int i : parts.rayNodes) {
            const RayNode &n = m_s.rayNodes[i];
            if (l.topology.isEmpty()) l.topology = n.topology;
            if (l.podType.isEmpty()) l.podType = n.podType;
            if (l.accelerator.isEmpty()) l.accelerator = n.acceleratorType;
            l.rayTpu = std::max(l.rayTpu, int(std::clamp(n.tpu, 0.0, 1e6) + 0.5));
        }
        for (int i : parts.pods) {
            const Pod &p = m_s.pods[i];
            if (l.topology.isEmpty()) l.topology = p.topology;
            if (l.accelerator.isEmpty()) l.accelerator = p.accelerator;
            if (l.firstPodChips == 0) l.firstPodChips = p.tpuChips;
            l.maxPodChips = std::max(l.maxPodChips, p.tpuChips);
        }
        return l;
    }

    int expectedHosts(const SliceParts &parts) const
    {
        const ShapeLabels labels = shapeLabels(parts);
        const QString &topology = labels.topology, &podType = labels.podType, &accelerator = labels.accelerator;
        int perHost = labels.maxPodChips;
        const int rayTpu = labels.rayTpu;
        const tpu::Generation *gen = !podType.isEmpty() ? tpu::generationOfPodType(podType) : nullptr;
        if (!gen) gen = tpu::findGeneration(accelerator);
        const auto topo = tpu::parseTopology(topology);
        if (!gen || !topo) return 0;
        tpu::Topology t = *topo;
        if (t.rank == 2 && gen->is3D) t.rank = 3;
        if (!tpu::fitsGeneration(*gen, t)) return 0;
        if (perHost == 0) perHost = rayTpu;
        tpu::SliceLayout layout(*gen, t, perHost > 0 ? perHost : tpu::defaultChipsPerHost(*gen, t));
        if (!layout.isValid()) layout = tpu::SliceLayout(*gen, t, tpu::defaultChipsPerHost(*gen, t));
        return layout.isValid() ? layout.hostCount() : 0;
    }

    // One slice name claimed by two live sets of hosts is two slices, never one (docs/facts.md
    // 4.5: the webhook's fallback counter can hand a replacement pod the TPU_NAME, even the worker
    // ids, of a live slice; Ray keys single-host slices by node, so many may share a name). Sets
    // of hosts are told apart by KubeRay's replica labels, by a worker id claimed twice, and by
    // worker ids beyond the slice's hosts. Pods of one replica stay together; the rest go, oldest
    // first, into the first set that has no live host for their worker id. The oldest keeps the
    // name, the others are "NAME (2)", "NAME (3)"..., and every pod and Ray node stays visible.
    void splitSharedNames(const QList<QString> &podReplicaKeys)
    {
        struct Member {
            int pod = -1;
            int node = -1;
            int worker = -1;
            bool live = false;
            bool overflow = false; // claims a worker id beyond the slice's hosts
            QString key;   // replica identity, when the pod's labels carry one
            QString order; // age: creationTimestamp, else the Ray node's start time
        };
        QStringList names = m_parts.keys();
        std::sort(names.begin(), names.end());
        for (const QString &name : std::as_const(names)) {
            const SliceParts parts = m_parts.value(name);
            if (parts.rayNodes.size() + parts.pods.size() < 2) continue;
            const int hosts = expectedHosts(parts);
            const bool singleHost = hosts == 1;
            QList<Member> members;
            QHash<QString, int> memberOfIp;
            for (int i : parts.pods) {
                const Pod &p = m_s.pods[i];
                Member m{i, -1, p.hostIndex, !p.isGone(), false, {}, p.created};
                if (i < podReplicaKeys.size() && !podReplicaKeys[i].startsWith(QLatin1String("tpu="))) m.key = podReplicaKeys[i];
                if (!p.podIp.isEmpty() && (m.live || !memberOfIp.contains(p.podIp))) memberOfIp.insert(p.podIp, int(members.size()));
                members.append(m);
            }
            // Alive Ray nodes join their pods first: a host whose Ray node died and came back on
            // the same pod (its IP) has a DEAD node and an ALIVE one, and the pod is the live one's.
            QList<int> rayNodes = parts.rayNodes;
            std::stable_partition(rayNodes.begin(), rayNodes.end(), [&](int n) { return m_s.rayNodes[n].alive; });
            for (int n : std::as_const(rayNodes)) {
                const RayNode &rn = m_s.rayNodes[n];
                const int at = memberOfIp.value(rn.ip, -1);
                if (at >= 0 && members[at].node < 0) { // the pod's IP is the join; its host index wins
                    members[at].node = n;
                    continue;
                }
                members.append(Member{-1, n, rn.workerId, rn.alive, false, {}, QStringLiteral("ray:%1").arg(rn.startTimeMs, 16, 10, QLatin1Char('0'))});
            }
            QHash<int, int> liveClaims;
            QSet<QString> liveKeys;
            int live = 0;
            bool conflict = false;
            for (Member &m : members) {
                if (!m.live) continue;
                ++live;
                // Only pods can say a host belongs elsewhere (the webhook's counter); a Ray node
                // with a stray worker id stays a problem of its slice.
                m.overflow = !singleHost && hosts > 0 && m.worker >= hosts && m.pod >= 0;
                conflict = conflict || m.overflow;
                if (!m.key.isEmpty()) liveKeys.insert(m.key);
                if (!singleHost && m.worker >= 0 && ++liveClaims[m.worker] > 1) conflict = true;
            }
            conflict = conflict || liveKeys.size() > 1 || (singleHost && live > 1);
            if (!conflict) continue;

            // Live first, then sets that stay within the slice, replicas that name themselves
            // first, then oldest first.
            QList<int> order(members.size());
            std::iota(order.begin(), order.end(), 0);
            std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
                const Member &x = members[a], &y = members[b];
                if (x.live != y.live) return x.live;
                if (x.overflow != y.overflow) return !x.overflow;
                if (x.key.isEmpty() != y.key.isEmpty()) return !x.key.isEmpty();
                return x.order < y.order;
            });
            QList<SliceParts> split;
            QList<QSet<int>> taken;
            QList<bool> overflowSet;
            QHash<QString, int> ofKey;
            auto fresh = [&](bool overflow) {
                split.append(SliceParts{});
                taken.append(QSet<int>{});
                overflowSet.append(overflow);
                return int(split.size()) - 1;
            };
            for (int mi : std::as_const(order)) {
                const Member &m = members[mi];
                int into = -1;
                if (m.live && singleHost) {
                    into = fresh(false);
                } else if (m.live) {
                    const QString key = m.key.isEmpty() ? QString() : m.key + (m.overflow ? QStringLiteral("#overflow") : QString());
                    if (!key.isEmpty()) into = ofKey.value(key, -1);
                    for (int k = 0; k < split.size() && into < 0; ++k)
                        if (overflowSet[k] == m.overflow && !taken[k].contains(m.worker) && (m.key.isEmpty() || !ofKey.values().contains(k))) into = k;
                    if (into < 0) into = fresh(m.overflow);
                    if (!key.isEmpty() && !ofKey.contains(key)) ofKey.insert(key, into);
                } else { // a gone host stays beside the live ones of its worker id; it never wins over them
                    for (int k = 0; k < split.size() && into < 0; ++k)
                        if (!overflowSet[k] && !taken[k].contains(m.worker)) into = k;
                    if (into < 0) into = split.isEmpty() ? fresh(false) : 0;
                }
                if (m.pod >= 0) split[into].pods.append(m.pod);
                if (m.node >= 0) split[into].rayNodes.append(m.node);
                if (m.live && m.worker >= 0) taken[into].insert(singleHost ? 0 : m.worker);
            }
            // Ray can confuse the parts only where two of them have alive Ray nodes with the name.
            int partsInRay = 0;
            for (const SliceParts &part : std::as_const(split))
                partsInRay += std::any_of(part.rayNodes.cbegin(), part.rayNodes.cend(), [&](int n) { return m_s.rayNodes[n].alive; });
            m_parts.remove(name);
            QStringList partNames;
            for (int k = 0; k < split.size(); ++k) {
                QString part = k == 0 ? name : QStringLiteral("%1 (%2)").arg(name).arg(k + 1);
                while (m_parts.contains(part)) // never merge into an unrelated slice of that name
                    part += u'\'';
                std::sort(split[k].pods.begin(), split[k].pods.end());
                std::sort(split[k].rayNodes.begin(), split[k].rayNodes.end());
                for (int i : std::as_const(split[k].pods))
                    m_s.pods[i].replicaKey = part;
                m_parts.insert(part, split[k]);
                const bool inRay = std::any_of(split[k].rayNodes.cbegin(), split[k].rayNodes.cend(), [&](int n) { return m_s.rayNodes[n].alive; });
                m_sharedName.insert(part, SharedName{name, int(split.size()), !singleHost && inRay && partsInRay > 1});
                partNames << part;
            }
            m_s.warnings << QStringLiteral("slice name %1 is claimed by %2 live %3 (the TPU webhook's fallback counter can do this): shown as %4")
                                .arg(name)
                                .arg(split.size())
                                .arg(singleHost ? QStringLiteral("single-host slices") : QStringLiteral("sets of hosts"), partNames.join(QStringLiteral(", ")));
        }
    }

    const tpu::Generation *groupGeneration(const QString &qualifiedGroup) const
    {
        for (const WorkerGroup &g : m_s.workerGroups)
            if (g.qualifiedName() == qualifiedGroup) return tpu::findGeneration(g.accelerator);
        return nullptr;
    }

    void buildSlices()
    {
        QStringList names = m_parts.keys();
        std::sort(names.begin(), names.end(), naturalLess);
        m_s.slices.reserve(names.size());
        m_sliceOfNode.fill(-1, m_s.rayNodes.size());
        for (const QString &name : std::as_const(names)) {
            const SliceParts &parts = m_parts[name];
            if (isRemoved(parts)) continue;
            for (int node : parts.rayNodes)
                m_sliceOfNode[node] = int(m_s.slices.size());
            m_s.slices.append(buildSlice(name, parts));
        }
    }

    // A slice KubeRay has removed: no pod left and every Ray node it had is dead. Ray keeps dead
    // nodes listed for a long time; they are history, not a degraded slice (their nodes stay in
    // the node list). Without Kubernetes, a slice whose every node ended the way Ray words an
    // asked-for end (a deleted pod, an idle drain) is gone too; one that crashed stays degraded.
    bool isRemoved(const SliceParts &parts) const
    {
        if (!parts.pods.isEmpty() || parts.rayNodes.isEmpty()) return false;
        for (int i : parts.rayNodes)
            if (m_s.rayNodes[i].alive) return false;
        if (m_podsRead) return true;
        // Ray's compose_state_message (dashboard/utils.py): EXPECTED_TERMINATION and
        // AUTOSCALER_DRAIN_IDLE are asked-for ends; a crash or a preemption is not.
        for (int i : parts.rayNodes) {
            const QString &why = m_s.rayNodes[i].stateMessage;
            if (!why.startsWith(QLatin1String("Expected termination")) && !why.startsWith(QLatin1String("Terminated due to idle"))) return false;
        }
        return true;
    }

    Slice buildSlice(const QString &name, const SliceParts &parts)
    {
        Slice s;
        s.name = name;
        if (const auto shared = m_sharedName.constFind(name); shared != m_sharedName.constEnd()) {
            s.rayName = shared->rayName;
            if (shared->conflict)
                s.problems << QStringLiteral("%1 other live set%2 of hosts also call%3 itself %4: a placement group pinned to %4 may land on either")
                                  .arg(shared->parts - 1)
                                  .arg(shared->parts > 2 ? QStringLiteral("s") : QString(), shared->parts > 2 ? QString() : QStringLiteral("s"),
                                       shared->rayName);
        }
        const bool fromRay = !parts.rayNodes.isEmpty(), fromKube = !parts.pods.isEmpty();
        s.source = fromRay && fromKube ? SliceSource::Both : fromRay ? SliceSource::Ray
                                                                     : SliceSource::Kubernetes;

        // Members whose values are out of range (model/inputlimits.h) make the slice unrecognised;
        // the values themselves were never taken.
        auto unrecognised = [&](const QString &why) {
            addUnrecognised(s.unrecognised, why);
        };
        for (int i : parts.rayNodes)
            if (!m_s.rayNodes[i].unrecognised.isEmpty())
                unrecognised(QStringLiteral("Ray node %1: %2").arg(m_s.rayNodes[i].id.left(12), m_s.rayNodes[i].unrecognised));
        for (int i : parts.pods)
            if (!m_s.pods[i].unrecognised.isEmpty())
                unrecognised(QStringLiteral("pod %1: %2").arg(m_s.pods[i].qualifiedName().left(128), m_s.pods[i].unrecognised));

        const ShapeLabels labels = shapeLabels(parts);
        const QString &topologyText = labels.topology, &podTypeText = labels.podType, &accelerator = labels.accelerator;
        const int rayTpu = labels.rayTpu, podChips = labels.firstPodChips;
        int chipsPerHost = 0;
        for (int i : parts.pods) {
            const Pod &p = m_s.pods[i];
            if (s.workerGroup.isEmpty() && !p.cluster.isEmpty()) s.workerGroup = p.ns + u'/' + p.cluster + u'/' + p.group;
        }
        if (s.workerGroup.isEmpty() && m_s.pods.isEmpty()) {
            // Ray alone: the node-group label names the group; use it if exactly one cluster has it.
            // With pods known, a slice without pods is no longer a replica of any group (removed).
            QString nodeGroup;
            for (int i : parts.rayNodes)
                if (!m_s.rayNodes[i].nodeGroup.isEmpty()) {
                    nodeGroup = m_s.rayNodes[i].nodeGroup;
                    break;
                }
            int matches = 0;
            for (const WorkerGroup &g : m_s.workerGroups)
                if (!nodeGroup.isEmpty() && g.group == nodeGroup) {
                    ++matches;
                    s.workerGroup = g.qualifiedName();
                }
            if (matches != 1) s.workerGroup.clear();
        }

        if (!podTypeText.isEmpty()) s.generation = memo(m_generationByPodType, podTypeText, [&] { return tpu::generationOfPodType(podTypeText); });
        if (!s.generation && !accelerator.isEmpty())
            s.generation = memo(m_generationByAccelerator, accelerator, [&] { return tpu::findGeneration(accelerator); });
        if (!s.generation && !s.workerGroup.isEmpty()) s.generation = groupGeneration(s.workerGroup);
        if (!s.generation) {
            // Name what could not be read, so an operator can tell a new GKE value from a typo.
            QStringList seen;
            if (!podTypeText.isEmpty()) seen << QStringLiteral("pod type '%1'").arg(podTypeText);
            if (!accelerator.isEmpty()) seen << QStringLiteral("accelerator '%1'").arg(accelerator);
            if (!seen.isEmpty())
                m_s.warnings << QStringLiteral("slice %1: unknown TPU generation (%2): its chips are not drawn").arg(name, seen.join(QStringLiteral(", ")));
            s.unknownGeneration = seen.join(QStringLiteral(", "));
        }
        if (const auto t = memo(m_topologyByText, topologyText, [&] { return tpu::parseTopology(topologyText); })) s.topology = *t;
        else if (!topologyText.isEmpty()) s.problems << QStringLiteral("topology '%1' cannot be read").arg(topologyText.left(64));
        if (s.generation && s.topology.chips() > 0 && s.topology.rank == 2 && s.generation->is3D)
            s.topology.rank = 3; // Ray reports "2x2x1"; GKE sometimes "2x2"
        // A shape beyond the generation's largest slice is checked before it sizes anything.
        const bool shapeFits = s.generation && s.topology.chips() > 0 && tpu::fitsGeneration(*s.generation, s.topology);
        if (s.generation && s.topology.chips() > 0 && !shapeFits)
            unrecognised(QStringLiteral("topology %1 is beyond the largest %2 slice (%3, %4 chips)")
                             .arg(s.topology.toString(), s.generation->name, tpu::Topology{s.generation->largest, s.generation->is3D ? 3 : 2}.toString())
                             .arg(s.generation->maxChips));
        if (shapeFits) {
            s.podType = memo(m_podTypeByShape, qMakePair(s.generation, s.topology.chips()), [&] { return tpu::podType(*s.generation, s.topology); });
            // Physical chips per host: the pod's google.com/tpu when known, else Ray's TPU count.
            // With RAY_TPU_RESOURCE_PER_CHIP (docs/facts.md 2.4) a host's TPU is chips x that
            // factor: a count that is a multiple of the pod's chips, or that no host of this
            // generation can have while the default host divides it, is read that way.
            chipsPerHost = podChips > 0 ? podChips : rayTpu;
            if (podChips > 0 && rayTpu > podChips && rayTpu % podChips == 0) {
                s.tpuPerChip = rayTpu / podChips;
            } else if (podChips == 0 && rayTpu > 0 && !tpu::hostBlock(*s.generation, s.topology, rayTpu)) {
                const int host = tpu::defaultChipsPerHost(*s.generation, s.topology);
                if (rayTpu > host && rayTpu % host == 0) {
                    chipsPerHost = host;
                    s.tpuPerChip = rayTpu / host;
                }
            }
            if (s.tpuPerChip > limits::kMaxTpuPerChip) {
                unrecognised(QStringLiteral("Ray reports TPU %1 per host: %2 units per chip, more than the %3 SliceScope reads")
                                 .arg(rayTpu)
                                 .arg(s.tpuPerChip)
                                 .arg(limits::kMaxTpuPerChip));
                s.tpuPerChip = 1;
                chipsPerHost = podChips;
            }
            if (chipsPerHost == 0) chipsPerHost = tpu::defaultChipsPerHost(*s.generation, s.topology);
            s.layout = tpu::SliceLayout(*s.generation, s.topology, chipsPerHost);
            if (!s.layout.isValid())
                s.problems << QStringLiteral("hosts with %1 chips cannot tile a %2 %3").arg(chipsPerHost).arg(s.generation->name, s.topology.toString());
        } else {
            s.podType = podTypeText;
            chipsPerHost = podChips > 0 ? podChips : rayTpu;
            if (!s.generation)
                s.problems << (s.unknownGeneration.isEmpty() ? QStringLiteral("TPU generation unknown")
                                                             : QStringLiteral("TPU generation unknown (%1)").arg(s.unknownGeneration));
            if (s.topology.chips() == 0) s.problems << QStringLiteral("topology unknown");
        }
        s.chipsPerHost = chipsPerHost;

        // Hosts: one per expected worker id; the best Ray node and pod for each. Without a known
        // shape the reported ids decide, within the most hosts a slice of the generation has (of
        // any generation when none is known) and within the capture's budget of such hosts: an id
        // beyond either makes the slice unrecognised and is not used to size it.
        int hostCount = s.layout.isValid() ? s.layout.hostCount() : 0;
        if (!s.layout.isValid()) {
            const int bound = s.generation ? tpu::maxHostsPerSlice(*s.generation) : limits::kMaxHostsPerSlice;
            const QString slices = s.generation ? QStringLiteral("a %1 slice has").arg(s.generation->name) : QStringLiteral("any TPU slice has");
            int members = 0;
            auto reported = [&](int id, const QString &who) {
                if (id < 0) return;
                ++members;
                if (id < bound) {
                    hostCount = std::max(hostCount, id + 1);
                    return;
                }
                unrecognised(QStringLiteral("%1 reports worker id %2, beyond the %3 hosts %4").arg(who).arg(id).arg(bound).arg(slices));
                m_s.warnings << QStringLiteral("slice %1: %2 reports worker id %3, beyond the %4 hosts %5: not placed, the slice is unrecognised")
                                    .arg(name, who)
                                    .arg(id)
                                    .arg(bound)
                                    .arg(slices);
            };
            for (int i : parts.rayNodes)
                reported(m_s.rayNodes[i].workerId, QStringLiteral("Ray node %1").arg(m_s.rayNodes[i].id.left(12)));
            for (int i : parts.pods)
                reported(m_s.pods[i].hostIndex, QStringLiteral("pod %1").arg(m_s.pods[i].qualifiedName()));
            const int invented = std::max(0, hostCount - members);
            if (m_inventedHosts + invented > limits::kMaxInventedHostsPerCapture) {
                unrecognised(QStringLiteral("its worker ids would make %1 MISSING hosts no topology describes, past the %2 a capture may have")
                                 .arg(invented)
                                 .arg(limits::kMaxInventedHostsPerCapture));
                m_s.warnings << QStringLiteral("slice %1: worker ids up to %2 without a topology: more MISSING hosts than SliceScope invents per capture (%3); "
                                               "none listed, the slice is unrecognised")
                                    .arg(name)
                                    .arg(hostCount - 1)
                                    .arg(limits::kMaxInventedHostsPerCapture);
                hostCount = 0;
            } else {
                m_inventedHosts += invented;
            }
        }
        const int expectedHosts = hostCount;
        // Callers test `id >= hostCount` first, so the message is only built for real strays.
        auto stray = [&](int id, const QString &who) {
            if (!s.layout.isValid() && !s.unrecognised.isEmpty()) // named as unrecognised above
                return true;
            s.problems << QStringLiteral("%1 reports worker %2, but %3 has %4 hosts").arg(who).arg(id).arg(s.topology.toString()).arg(hostCount);
            m_s.warnings << QStringLiteral("slice %1: %2 reports worker id %3 outside its %4 hosts").arg(name, who).arg(id).arg(hostCount);
            return true;
        };
        s.hosts.resize(hostCount);
        for (int w = 0; w < hostCount; ++w)
            s.hosts[w].workerId = w;
        // A single-host slice has one host whatever worker id its pod was given: on KubeRay 1.6
        // the webhook counts single-host pods with its fallback counter (docs/facts.md 4.5), and
        // Ray keys single-host slices by node.
        auto singleHostWorker = [&](int id, const QString &who) {
            if (id <= 0 || !s.layout.isValid() || s.layout.hostCount() != 1) return id;
            m_s.warnings << QStringLiteral("slice %1: %2 reports worker id %3 on a single-host slice: taken as its host").arg(name, who).arg(id);
            return 0;
        };
        // A Ray node whose pod (same IP) has a host index sits on that host: on v7x the webhook
        // gives each TPU container its own TPU_WORKER_ID, so Ray's worker id is host x containers.
        QHash<QString, int> hostOfPodIp;
        for (int i : parts.pods) {
            const Pod &p = m_s.pods[i];
            if (!p.podIp.isEmpty() && p.hostIndex >= 0 && (!p.isGone() || !hostOfPodIp.contains(p.podIp))) hostOfPodIp.insert(p.podIp, p.hostIndex);
        }
        QMultiHash<int, int> nodesOfWorker; // worker -> every Ray node that claims it
        for (int i : parts.rayNodes) {
            const RayNode &n = m_s.rayNodes[i];
            if (n.workerId < 0) {
                if (n.unrecognised.isEmpty()) // an out-of-range id was named when it was read
                    m_s.warnings
                        << QStringLiteral("slice %1: Ray node %2 has no usable %3 label").arg(name, n.id.left(12), QLatin1String(kWorkerIdLabel.data()));
                continue;
            }
            const bool oneHost = s.layout.isValid() && s.layout.hostCount() == 1;
            const int byPod = n.ip.isEmpty() || oneHost ? -1 : hostOfPodIp.value(n.ip, -1);
            if (byPod >= 0 && byPod != n.workerId)
                m_s.warnings << QStringLiteral(
                                    "slice %1: Ray node %2 says worker %3, its pod is host %4 (taken; the webhook numbers TPU containers, not hosts, on v7x)")
                                    .arg(name, n.id.left(12))
                                    .arg(n.workerId)
                                    .arg(byPod);
            const int worker = byPod >= 0 ? byPod : singleHostWorker(n.workerId, QStringLiteral("Ray node %1").arg(n.id.left(12)));
            if (worker >= hostCount && stray(worker, QStringLiteral("Ray node %1").arg(n.id.left(12)))) continue;
            nodesOfWorker.insert(worker, i);
            Host &h = s.hosts[worker];
            if (h.rayNode < 0 || betterNode(n, m_s.rayNodes[h.rayNode])) {
                if (h.rayNode >= 0 && m_s.rayNodes[h.rayNode].alive && n.alive)
                    m_s.warnings << QStringLiteral("slice %1: two alive Ray nodes claim worker %2").arg(name).arg(n.workerId);
                h.rayNode = i;
            }
        }
        for (int i : parts.pods) {
            const Pod &p = m_s.pods[i];
            if (p.hostIndex < 0) {
                if (p.unrecognised.isEmpty())
                    m_s.warnings << QStringLiteral("slice %1: pod %2 has no host index (no ray.io/replica-host-index label, no TPU_WORKER_ID)")
                                        .arg(name, p.qualifiedName());
                continue;
            }
            const int worker = singleHostWorker(p.hostIndex, QStringLiteral("pod %1").arg(p.qualifiedName()));
            if (worker >= hostCount && stray(worker, QStringLiteral("pod %1").arg(p.qualifiedName()))) continue;
            Host &h = s.hosts[worker];
            if (h.pod < 0 || betterPod(p, m_s.pods[h.pod])) h.pod = i;
        }

        const QHash<int, int> replacedNodeOf = detachReplacedNodes(s, nodesOfWorker);

        // A pod whose Ray node carries no slice labels still joins it by pod IP, when the IP is unique.
        for (Host &h : s.hosts) {
            if (h.rayNode >= 0 || h.pod < 0 || m_s.pods[h.pod].podIp.isEmpty()) continue;
            const QList<int> sameIp = m_nodesByIp.values(m_s.pods[h.pod].podIp);
            if (sameIp.size() == 1 && m_s.rayNodes[sameIp.first()].sliceName.isEmpty()) h.rayNode = sameIp.first();
        }

        QString podCluster;
        for (int i : parts.pods)
            if (podCluster.isEmpty()) podCluster = m_s.pods[i].ns + u'/' + m_s.pods[i].cluster;
        const bool rayDescribes = m_hasRayNodes && (fromRay || m_rayClusters.contains(podCluster));

        int reportedChips = 0;
        for (Host &h : s.hosts) {
            const RayNode *n = h.rayNode >= 0 ? &m_s.rayNodes[h.rayNode] : nullptr;
            const Pod *p = h.pod >= 0 ? &m_s.pods[h.pod] : nullptr;
            if (p && n && !n->ip.isEmpty() && !p->podIp.isEmpty() && n->ip != p->podIp && n->alive)
                m_s.warnings << QStringLiteral("slice %1 worker %2: pod %3 has IP %4 but the Ray node has %5")
                                    .arg(name)
                                    .arg(h.workerId)
                                    .arg(p->qualifiedName(), p->podIp, n->ip);
            if (p && !p->nodeName.isEmpty()) h.kubeNode = m_kubeNodeByName.value(p->nodeName, -1);
            h.state = hostState(n, p, rayDescribes);
            h.reportedChips = n ? int(std::clamp(n->tpu, 0.0, 1e6) + 0.5) / s.tpuPerChip : p ? p->tpuChips
                                                                                             : 0;
            if (h.state == HostState::Alive) reportedChips += h.reportedChips;
            if (s.layout.isValid()) h.chips.resize(s.layout.chipsPerHost());
            switch (h.state) {
            case HostState::Alive: break;
            case HostState::Dead:
                if (p && p->isGone()) s.problems << QStringLiteral("worker %1 is DEAD (pod %2 %3)").arg(h.workerId).arg(p->qualifiedName(), p->lifecycleText());
                else s.problems << QStringLiteral("worker %1 is DEAD").arg(h.workerId);
                break;
            case HostState::Pending: {
                QString text = p ? QStringLiteral("worker %1 is PENDING (pod %2)").arg(h.workerId).arg(p->phase.isEmpty() ? QStringLiteral("not running") : p->phase)
                                 : QStringLiteral("worker %1 is PENDING").arg(h.workerId);
                if (const int old = replacedNodeOf.value(h.workerId, -1); old >= 0) { // kept as evidence, never as the host's state
                    const RayNode &dead = m_s.rayNodes[old];
                    const QString why = dead.stateMessage.simplified().left(300);
                    text += QStringLiteral(": it replaces worker %1's pod whose Ray node %2 (%3) died%4")
                                .arg(h.workerId)
                                .arg(dead.id.left(12), dead.ip, why.isEmpty() ? QString() : QStringLiteral(": ") + why);
                }
                s.problems << text;
                break;
            }
            case HostState::Missing: s.problems << QStringLiteral("worker %1 is MISSING").arg(h.workerId); break;
            }
        }
        bool allAlive = !s.hosts.isEmpty();
        for (const Host &h : s.hosts)
            allAlive = allAlive && h.state == HostState::Alive;
        if (allAlive && s.topology.chips() > 0 && reportedChips != s.topology.chips()) {
            if (fromRay && podChips > rayTpu && rayTpu > 0) // KubeRay passes Ray only the Ray container's google.com/tpu
                s.problems << QStringLiteral("Ray advertises %1 TPU per host, but each pod holds %2 chips (%3 of %4 chips usable through Ray; KubeRay gives "
                                             "Ray only the Ray container's google.com/tpu)")
                                  .arg(rayTpu)
                                  .arg(podChips)
                                  .arg(reportedChips)
                                  .arg(s.topology.chips());
            else s.problems << QStringLiteral("hosts report %1 TPU chips; %2 needs %3").arg(reportedChips).arg(s.topology.toString()).arg(s.topology.chips());
        }
        const bool strays = std::any_of(s.problems.cbegin(), s.problems.cend(), [](const QString &p) { return p.contains(QLatin1String(" reports worker ")); });
        const bool nameShared = m_sharedName.value(name).conflict;
        s.intact = allAlive && !strays && !nameShared && s.unrecognised.isEmpty() && s.layout.isValid() && hostCount == expectedHosts
                   && reportedChips == s.topology.chips();
        if (!s.unrecognised.isEmpty()) s.problems.prepend(QStringLiteral("unrecognised: %1").arg(s.unrecognised));
        if (s.problems.size() > limits::kMaxProblemsPerSlice) {
            const qsizetype more = s.problems.size() - (limits::kMaxProblemsPerSlice - 1);
            s.problems.resize(limits::kMaxProblemsPerSlice - 1);
            s.problems << QStringLiteral("... and %1 more problems").arg(more);
        }
        return s;
    }

    // KubeRay replaces a worker pod under the same TPU_NAME and worker id (docs/facts.md 4.5), so
    // the DEAD Ray node of the pod it replaced claims the host too. That node is the host's only
    // when it belonged to the pod now in the host's place, and the one signal that ties a Ray node
    // to a pod is its IP (Ray 2.60 labels a node with no pod name or uid, docs/facts.md 2.1; the
    // node name is the IP unless --node-name is given). So: a host whose best Ray node is DEAD and
    // whose pod is still there with another IP takes that pod's own Ray node when one of its
    // claimants has the pod's IP (it died too: an alive one would have won), else none: the pod
    // is provisioning until a raylet with its IP joins. The dead node is returned per worker, as
    // evidence for the host's problem text. When either IP is unknown nothing says which pod the
    // node was, so the host keeps the dead node and today's answer (DEAD for a Running pod, never
    // a guess).
    QHash<int, int> detachReplacedNodes(Slice &s, const QMultiHash<int, int> &nodesOfWorker) const
    {
        QHash<int, int> replaced;
        for (Host &h : s.hosts) {
            if (h.rayNode < 0 || h.pod < 0) continue;
            const RayNode &n = m_s.rayNodes[h.rayNode];
            const Pod &p = m_s.pods[h.pod];
            if (n.alive || p.isGone() || n.ip.isEmpty() || p.podIp.isEmpty() || n.ip == p.podIp) continue;
            int own = -1;
            const auto [from, to] = nodesOfWorker.equal_range(h.workerId);
            for (auto it = from; it != to; ++it)
                if (m_s.rayNodes[*it].ip == p.podIp && (own < 0 || betterNode(m_s.rayNodes[*it], m_s.rayNodes[own]))) own = *it;
            if (own < 0) replaced.insert(h.workerId, h.rayNode);
            h.rayNode = own;
        }
        return replaced;
    }

    // rayDescribes: the Ray bodies cover this slice's cluster, so a missing Ray node means "not joined".
    HostState hostState(const RayNode *n, const Pod *p, bool rayDescribes) const
    {
        // A pod that Failed or Succeeded (evicted, its node shut down) or is being deleted never
        // comes back as it was: the host is DEAD or going, whatever Ray has not noticed yet.
        if (p && p->isGone()) return HostState::Dead;
        if (n && n->alive) return HostState::Alive;
        if (!rayDescribes && p) // Kubernetes alone: a running, ready pod is the best evidence there is
            return p->phase == QLatin1String("Running") && p->ready ? HostState::Alive : HostState::Pending;
        if (n) // dead in Ray: a replacement pod still starting makes it pending again
            return p && p->phase == QLatin1String("Pending") ? HostState::Pending : HostState::Dead;
        if (p) return HostState::Pending; // pod up, Ray not joined yet
        return HostState::Missing;
    }

    void placeBundles()
    {
        for (int g = 0; g < m_s.placementGroups.size(); ++g) {
            PlacementGroup &pg = m_s.placementGroups[g];
            bool anyHead = false, allSelectSlices = !pg.bundles.isEmpty();
            QVarLengthArray<int, 4> occupied; // slice indexes, first seen first
            for (Bundle &b : pg.bundles) {
                anyHead = anyHead || !b.headResource.isEmpty();
                allSelectSlices = allSelectSlices && !b.selectorSlice.isEmpty();
                if (b.nodeId.isEmpty()) continue;
                b.rayNode = m_nodeById.value(b.nodeId, -1);
                if (b.rayNode < 0) {
                    m_s.warnings << QStringLiteral("placement group %1 bundle %2 is on node %3, which the node list lacks")
                                        .arg(pg.id)
                                        .arg(b.index)
                                        .arg(b.nodeId.left(12));
                    continue;
                }
                const RayNode &n = m_s.rayNodes[b.rayNode];
                if (n.sliceName.isEmpty()) continue;
                b.slice = m_sliceOfNode[b.rayNode];
                b.workerId = n.workerId;
                if (b.slice < 0) continue;
                Slice &s = m_s.slices[b.slice];
                if (!occupied.contains(b.slice)) occupied.append(b.slice);
                if (!b.headResource.isEmpty()) s.headHeldBy = g;
                if (b.tpu <= 0 || b.workerId < 0 || b.workerId >= s.hosts.size()) continue;
                Host &h = s.hosts[b.workerId];
                if (h.rayNode != b.rayNode) // a bundle on a replaced (dead) node no longer holds chips
                    continue;
                // A bundle's TPU units are logical: RAY_TPU_RESOURCE_PER_CHIP of them make a chip.
                const int bundleChips = (b.tpu + s.tpuPerChip - 1) / s.tpuPerChip;
                if (!s.layout.isValid()) { // counted, never drawn at a guessed position
                    h.unplacedReservedChips += bundleChips;
                    s.reservedChips += bundleChips;
                    continue;
                }
                int toPlace = bundleChips;
                for (ChipUse &chip : h.chips) {
                    if (toPlace == 0) break;
                    if (chip.placementGroup >= 0) continue;
                    chip = ChipUse{g, b.index};
                    --toPlace;
                    ++s.reservedChips;
                }
                if (toPlace > 0)
                    m_s.warnings << QStringLiteral("slice %1 worker %2: bundles reserve more TPU than the host's %3 chips")
                                        .arg(s.name)
                                        .arg(h.workerId)
                                        .arg(h.chips.size());
            }
            QStringList slices;
            slices.reserve(occupied.size());
            for (int i : occupied)
                slices << m_s.slices[i].name;
            std::sort(slices.begin(), slices.end(), naturalLess);
            pg.slices = slices;
            // Ray's SlicePlacementGroup pins multi-host bundles by slice name; on a single-host
            // slice it adds neither a head group nor a selector (docs/facts.md 2.4): every bundle
            // asks for TPU and every placed one sits on a single-host slice.
            bool singleHostSlices = !occupied.isEmpty() && !anyHead;
            for (const Bundle &b : std::as_const(pg.bundles))
                singleHostSlices = singleHostSlices && b.tpu > 0 && b.selectorSlice.isEmpty()
                                   && (b.nodeId.isEmpty() || (b.slice >= 0 && m_s.slices[b.slice].hostCount() == 1));
            pg.kind = anyHead                               ? PlacementGroup::Kind::SliceHead
                      : allSelectSlices || singleHostSlices ? PlacementGroup::Kind::Slice
                                                            : PlacementGroup::Kind::Other;
        }
        groupReservations();
    }

    // slice_placement_group(pg_per_slice=True) names its groups "<name>_slice_<i>": one reservation.
    void groupReservations()
    {
        QHash<QString, QList<int>> byBase;
        for (int g = 0; g < m_s.placementGroups.size(); ++g) {
            const PlacementGroup &pg = m_s.placementGroups[g];
            const qsizetype at = pg.name.lastIndexOf(QLatin1String("_slice_"));
            if (at <= 0 || pg.kind == PlacementGroup::Kind::SliceHead) continue;
            bool ok = false;
            const int part = pg.name.mid(at + 7).toInt(&ok);
            if (ok && part >= 0 && QStringView(pg.name).mid(at + 7) == QString::number(part)) byBase[pg.name.left(at)].append(g);
        }
        for (auto it = byBase.cbegin(); it != byBase.cend(); ++it)
            for (int g : it.value()) {
                PlacementGroup &pg = m_s.placementGroups[g];
                pg.reservation = it.key();
                pg.reservationSize = int(it.value().size());
            }
    }

    void attachWorkerGroups()
    {
        QHash<QString, int> groupByName;
        for (int i = 0; i < m_s.workerGroups.size(); ++i)
            groupByName.insert(m_s.workerGroups[i].qualifiedName(), i);
        for (const Slice &s : std::as_const(m_s.slices)) {
            const int g = groupByName.value(s.workerGroup, -1);
            if (g >= 0) m_s.workerGroups[g].slices << s.name; // slices are already in natural order
        }
    }

    ClusterSnapshot &m_s;
    bool m_hasRayNodes;
    bool m_podsRead;
    QHash<QString, int> m_kubeNodeByName;
    QHash<QString, int> m_nodeById;
    QMultiHash<QString, int> m_nodesByIp;
    QSet<QString> m_rayClusters;        // "ns/cluster" of the RayClusters the Ray bodies describe
    QHash<QString, QString> m_nameOwner; // slice name -> "ns/cluster" whose pods use it
    QList<int> m_sliceOfNode; // Ray node index -> index of its slice, or -1
    int m_inventedHosts = 0;  // MISSING hosts listed for slices no topology describes, so far

    // Thousands of slices share a handful of pod types, accelerator names and topologies: each
    // tpu:: lookup (they lower-case, split and format strings) runs once per distinct text.
    template<typename Cache, typename Key, typename Compute>
    static typename Cache::mapped_type memo(Cache &cache, const Key &key, Compute &&compute)
    {
        auto it = cache.constFind(key);
        if (it == cache.constEnd()) it = cache.insert(key, compute());
        return it.value();
    }
    QHash<QString, const tpu::Generation *> m_generationByPodType;
    QHash<QString, const tpu::Generation *> m_generationByAccelerator;
    QHash<QString, std::optional<tpu::Topology>> m_topologyByText;
    QHash<QPair<const tpu::Generation *, int>, QString> m_podTypeByShape;
    QHash<QString, SliceParts> m_parts;
    struct SharedName {
        QString rayName;      // the name every part shares
        int parts = 0;        // how many slices it was split into
        bool conflict = false; // multi-host: Ray cannot tell the parts' hosts apart
    };
    QHash<QString, SharedName> m_sharedName; // slices split by splitSharedNames()
};

} // namespace

void joinSnapshot(ClusterSnapshot &s, bool rayNodesRead, bool podsRead, const QList<QString> &podReplicaKeys)
{
    Joiner(s, rayNodesRead, podsRead).run(podReplicaKeys);
}

} // namespace slicescope
