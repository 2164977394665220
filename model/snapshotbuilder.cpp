// SPDX-License-Identifier: GPL-3.0-or-later
// buildSnapshot(): parse the captured bodies (simdjson on-demand, one pass each, with the readers
// of snapshotreaders.cpp), then hand them to the joiner (snapshotjoin.cpp), which joins Ray nodes,
// pods and Kubernetes nodes into slices, places bundles on chips and builds worker groups.
// Each body is parsed into temporaries first and kept only if it parsed whole, so a truncated body
// never leaves half a list behind.
// A context's capture with a Ray view per RayCluster (issue 16) is built as one scope per view
// (that cluster's pods, its own Ray bodies), the Kubernetes bodies read once; a fleet capture as
// one such build per context; the scopes are then merged (snapshotmerge.cpp).

#include "snapshot.h"

#include "snapshotjoin_p.h"
#include "snapshotmerge_p.h"
#include "snapshotread_p.h"

#include <QMutex>
#include <QMutexLocker>
#include <QSet>

#include <algorithm>
#include <functional>

namespace slicescope {

using namespace snapshotread;

void reserveParsePadding(QByteArray &body)
{
    if (body.capacity() - body.size() < qsizetype(simdjson::SIMDJSON_PADDING)) body.reserve(body.size() + qsizetype(simdjson::SIMDJSON_PADDING));
}

namespace {

// The Kubernetes bodies of a capture, read once whatever the number of scopes built from them.
struct KubeParsed {
    QStringList errors;
    bool clustersRead = false, podsRead = false, nodesRead = false;
    QList<RayClusterInfo> clusters;
    QList<WorkerGroup> groups;
    QStringList clusterWarnings;
    QList<Pod> pods;
    QList<QString> podReplicaKeys;
    QStringList podWarnings;
    QList<KubeNode> nodes;
    QStringList nodeWarnings;
};

// Which RayClusters ("namespace/name") a scope holds; null: all.
using ScopeFilter = std::function<bool(const QString &qualifiedCluster)>;

// `ray status` (the dashboard's /api/cluster_status) into `text`; whether it parsed with no message.
bool readClusterStatus(const QByteArray &body, QStringList &errors, QStringList &warnings, QString &text)
{
    const qsizetype messages = errors.size() + warnings.size();
    parseBody(body, "ray.cluster_status", errors, warnings, [&](od::value root) -> QString {
        forEachMember(root, [&](std::string_view k, od::value v) {
            if (k == "data")
                forEachMember(v, [&](std::string_view k2, od::value value) {
                    if (k2 == "clusterStatus") text = toString(value);
                });
        });
        return {};
    });
    return errors.size() + warnings.size() == messages;
}

// The Ray bodies of `capture` into `s`; whether the node list parsed.
bool readRay(const Capture &capture, ClusterSnapshot &s)
{
    parseBody(capture.rayVersion, "ray.version", s.errors, s.warnings, [&](od::value root) -> QString {
        forEachMember(root, [&](std::string_view k, od::value v) {
            if (k == "ray_version") s.rayVersion = toString(v);
        });
        return {};
    });

    bool rayNodesRead = false;
    {
        QList<RayNode> nodes;
        QStringList warnings;
        int index = -1;
        // A node id names one node: a list that repeats one (a state API answer seen with the same
        // node 50 times) would count its host again, and the extra hosts would look like the TPU
        // webhook's fallback names. The first entry of an id is kept; the repeats are counted.
        QSet<QString> seenIds;
        int repeated = 0;
        QString firstRepeated;
        rayNodesRead = parseBody(capture.rayNodes, "ray.nodes", s.errors, warnings, [&](od::value root) {
            return readStateList(root, "ray.nodes", warnings, [&](od::object obj) {
                ++index;
                RayNode n;
                QStringList typeProblems;
                readRayNode(obj, n, typeProblems);
                const QString who = n.id.isEmpty()
                                        ? QStringLiteral("entry %1%2").arg(index).arg(n.ip.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(n.ip.left(64)))
                                        : QStringLiteral("node %1 (%2)").arg(n.id.left(12), n.ip.left(64));
                if (n.id.isEmpty()) {
                    warnings << QStringLiteral("ray.nodes: skipped %1: %2")
                                    .arg(who, typeProblems.isEmpty() ? QStringLiteral("no node_id") : typeProblems.join(QStringLiteral("; ")));
                    return;
                }
                const qsizetype before = seenIds.size();
                seenIds.insert(n.id);
                if (seenIds.size() == before) {
                    if (repeated++ == 0) firstRepeated = n.id.left(64);
                    return;
                }
                if (!typeProblems.isEmpty()) warnings << QStringLiteral("ray.nodes: %1: %2: ignored").arg(who, typeProblems.join(QStringLiteral("; ")));
                if (!n.unrecognised.isEmpty())
                    warnings << QStringLiteral("ray.nodes: %1: %2: the value is not taken and its slice is unrecognised").arg(who, n.unrecognised);
                nodes.append(std::move(n));
            });
        });
        if (repeated > 0)
            warnings << QStringLiteral("ray.nodes: %1 entr%2 repeat a node id listed before (the first: %3); each node is counted once")
                            .arg(repeated)
                            .arg(repeated == 1 ? QStringLiteral("y") : QStringLiteral("ies"), firstRepeated);
        // Every Ray poll fetches the node list beside the others: an empty node list body with
        // the rest present is a body lost on the way (an empty 200), not a cluster without nodes.
        if (capture.rayNodes.isEmpty()
            && (!capture.rayVersion.isEmpty() || !capture.rayPlacementGroups.isEmpty() || !capture.rayJobs.isEmpty() || !capture.rayClusterStatus.isEmpty()))
            s.errors << QStringLiteral("ray.nodes: the body is empty (expected the state API's node list): no Ray node or slice can be shown");
        if (rayNodesRead) {
            s.rayNodes = std::move(nodes);
            s.warnings += warnings;
            s.hasRay = true;
        }
    }
    {
        QList<PlacementGroup> groups;
        QStringList warnings;
        if (parseBody(capture.rayPlacementGroups, "ray.placement_groups", s.errors, warnings, [&](od::value root) {
                return readStateList(root, "ray.placement_groups", warnings, [&](od::object obj) {
                    RawPlacementGroup raw;
                    readPlacementGroup(obj, raw);
                    if (!raw.removed && !raw.group.id.isEmpty()) {
                        for (const QString &problem : std::as_const(raw.problems))
                            warnings << QStringLiteral("ray.placement_groups: %1 %2: its TPU is not counted").arg(raw.group.id.left(64), problem);
                        groups.append(std::move(raw.group));
                    }
                });
            })) {
            s.placementGroups = std::move(groups);
            s.warnings += warnings;
            s.hasRay = true;
        }
    }
    {
        QList<Job> jobs;
        if (parseBody(capture.rayJobs, "ray.jobs", s.errors, s.warnings, [&](od::value root) -> QString {
                if (typeOf(root) != od::json_type::array) return QStringLiteral("expected an array of jobs, got %1").arg(describeType(root));
                const auto readOne = [&](od::value v) {
                    if (typeOf(v) != od::json_type::object) return;
                    Job j;
                    readJob(take(v.get_object()), j);
                    jobs.append(std::move(j));
                };
                forEachElement(root, readOne, limits::kMaxListItems);
                return {};
            })) {
            s.jobs = std::move(jobs);
            s.hasRay = true;
        }
    }
    readClusterStatus(capture.rayClusterStatus, s.errors, s.warnings, s.clusterStatusText);

    return rayNodesRead;
}

KubeParsed readKube(const Capture &capture)
{
    KubeParsed k;
    {
        QList<RawCluster> clusters;
        QStringList warnings;
        if (parseBody(capture.kubeRayClusters, "kubernetes.rayclusters", k.errors, warnings, [&](od::value root) {
                return readKubeList(root, "kubernetes.rayclusters", warnings, [&](od::value item) {
                    RawCluster rc;
                    readRayCluster(item, rc);
                    clusters.append(std::move(rc));
                });
            })) {
            for (RawCluster &rc : clusters) {
                for (WorkerGroup &g : rc.groups) {
                    g.ns = rc.info.ns;
                    g.cluster = rc.info.name;
                    g.autoscaling = rc.info.autoscaling;
                    // KubeRay clamps silently, and then writes no status: observedGeneration
                    // stays behind generation for good (docs/facts.md 4.1, 4.6).
                    if (g.replicasSet && g.minReplicas <= g.maxReplicas && (g.replicas < g.minReplicas || g.replicas > g.maxReplicas))
                        warnings << QStringLiteral("worker group %1 asks for %2 replicas outside %3..%4: KubeRay makes %5")
                                        .arg(g.qualifiedName())
                                        .arg(g.replicas)
                                        .arg(g.minReplicas)
                                        .arg(g.maxReplicas)
                                        .arg(std::clamp(g.replicas, g.minReplicas, g.maxReplicas));
                    k.groups.append(std::move(g));
                }
                k.clusters.append(rc.info);
            }
            k.clusterWarnings = warnings;
            k.clustersRead = true;
        }
    }
    {
        QList<Pod> pods;
        QStringList warnings;
        if (parseBody(capture.kubePods, "kubernetes.pods", k.errors, warnings, [&](od::value root) {
                return readKubeList(root, "kubernetes.pods", warnings, [&](od::value item) {
                    Pod p;
                    QString replicaName, legacyIndex, replicaIndex;
                    readPod(item, p, replicaName, legacyIndex, replicaIndex);
                    if (!p.unrecognised.isEmpty())
                        warnings << QStringLiteral("kubernetes.pods: pod %1: %2: the value is not taken and its slice is unrecognised")
                                        .arg(p.qualifiedName().left(128), p.unrecognised);
                    // The key that groups pods of one replica (docs/facts.md 4): KubeRay's own
                    // labels first (replica name, then replica index: single-host pods on 1.6
                    // carry only the index), then the webhook's replicaIndex label, which comes
                    // from its fallback counter and can repeat a live replica's (4.5).
                    QString key = !replicaName.isEmpty()    ? replicaName
                                  : !replicaIndex.isEmpty() ? QStringLiteral("index=") + replicaIndex
                                  : !legacyIndex.isEmpty()  ? QStringLiteral("replicaIndex=") + legacyIndex
                                                            : QStringLiteral("tpu=") + p.tpuName;
                    // Named fallback, used only when no pod of the replica carries TPU_NAME. The
                    // legacy webhook's replicaIndex label already holds "<group>-<index>" (TPU_NAME).
                    p.replicaKey = !replicaName.isEmpty() ? replicaName : !replicaIndex.isEmpty() ? p.group + u'-' + replicaIndex
                                                                                                  : legacyIndex;
                    k.podReplicaKeys.append(key);
                    pods.append(std::move(p));
                });
            })) {
            k.pods = std::move(pods);
            k.podWarnings = warnings;
            k.podsRead = true;
        } else {
            k.podReplicaKeys.clear();
        }
    }
    {
        QList<KubeNode> nodes;
        QStringList warnings;
        if (parseBody(capture.kubeNodes, "kubernetes.nodes", k.errors, warnings, [&](od::value root) {
                return readKubeList(root, "kubernetes.nodes", warnings, [&](od::value item) {
                    KubeNode n;
                    readKubeNode(item, n);
                    nodes.append(std::move(n));
                });
            })) {
            k.nodes = std::move(nodes);
            k.nodeWarnings = warnings;
            k.nodesRead = true;
        }
    }

    return k;
}

} // namespace

namespace {

// The RayCluster a slice's pods name ("namespace/name"), else empty.
QString clusterOfPods(const ClusterSnapshot &s, const Slice &slice)
{
    for (const Host &h : slice.hosts)
        if (h.pod >= 0 && h.pod < s.pods.size() && !s.pods[h.pod].cluster.isEmpty()) return s.pods[h.pod].ns + u'/' + s.pods[h.pod].cluster;
    return {};
}

// Identity (issue 16): every slice, group and job says its context and RayCluster.
void stampIdentity(ClusterSnapshot &s, const Capture &rayPart, const QString &kubeError)
{
    const QString &scope = rayPart.rayCluster;
    for (RayNode &n : s.rayNodes)
        n.rayCluster = scope;
    for (Slice &slice : s.slices) {
        slice.context = s.kubeContext;
        slice.rayCluster = clusterOfPods(s, slice);
        if (slice.rayCluster.isEmpty()) slice.rayCluster = scope;
    }
    for (PlacementGroup &g : s.placementGroups) {
        g.context = s.kubeContext;
        g.rayCluster = scope;
        if (!g.rayCluster.isEmpty()) continue;
        // A dashboard not named by the capture: the cluster of the slices it holds, when they agree.
        QString agreed;
        bool one = true;
        for (const QString &name : std::as_const(g.slices))
            if (const int si = s.sliceIndex(name); si >= 0 && !s.slices[si].rayCluster.isEmpty()) {
                if (agreed.isEmpty()) agreed = s.slices[si].rayCluster;
                else one = one && agreed == s.slices[si].rayCluster;
            }
        if (one) g.rayCluster = agreed;
    }
    for (Job &j : s.jobs) {
        j.context = s.kubeContext;
        j.rayCluster = scope;
    }
    if ((s.hasKubernetes || !kubeError.isEmpty()) && !s.kubeContext.isEmpty()) {
        s.contexts = {s.kubeContext};
        s.contextStates = {ContextState{s.kubeContext, kubeError}};
    }
    const bool asked = s.hasRay || !rayPart.rayError.isEmpty() || !rayPart.rayCluster.isEmpty();
    if (asked) s.rayViews.append(RayViewState{s.kubeContext, scope, rayPart.rayError, s.hasRay});
}

// A context's Kubernetes lists, read once while they stay the same: its watches keep them as they
// were (the very buffers) while its Ray views change every poll, so a context rebuilt for its Ray
// bodies does not read its pods again. "The same" is the same buffer, held here so a freed one's
// address coming back cannot fool it; a copy of the bytes is read anew (so the benchmarks that
// time a first read, on copies, time one).
class KubeMemo
{
public:
    std::shared_ptr<const KubeParsed> read(const Capture &capture)
    {
        {
            QMutexLocker lock(&m_mutex);
            for (const Entry &e : m_entries)
                if (same(e.rayClusters, capture.kubeRayClusters) && same(e.pods, capture.kubePods) && same(e.nodes, capture.kubeNodes)) return e.parsed;
        }
        auto parsed = std::make_shared<const KubeParsed>(readKube(capture));
        QMutexLocker lock(&m_mutex);
        m_entries.erase(std::remove_if(m_entries.begin(), m_entries.end(), [&](const Entry &e) { return e.context == capture.kubeContext; }), m_entries.end());
        if (m_entries.size() >= kMaxEntries) m_entries.erase(m_entries.begin());
        m_entries.push_back({capture.kubeContext, capture.kubeRayClusters, capture.kubePods, capture.kubeNodes, parsed});
        return parsed;
    }

private:
    static constexpr size_t kMaxEntries = 64; // the contexts a window watches at most
    static bool same(const QByteArray &a, const QByteArray &b) { return a.size() == b.size() && a.constData() == b.constData(); }
    struct Entry {
        QString context;
        QByteArray rayClusters, pods, nodes; // held
        std::shared_ptr<const KubeParsed> parsed;
    };
    QMutex m_mutex; // buildSnapshot() may run on any thread
    std::vector<Entry> m_entries;
};

std::shared_ptr<const KubeParsed> readKubeOnce(const Capture &capture)
{
    if (capture.kubeRayClusters.isEmpty() && capture.kubePods.isEmpty() && capture.kubeNodes.isEmpty())
        return std::make_shared<const KubeParsed>();
    static KubeMemo memo;
    return memo.read(capture);
}

// One scope: `rayPart`'s Ray bodies, the Kubernetes items `filter` keeps, the activity of
// `activity` (null: none), whose new bodies `prefetch` may be parsing (started before the
// allocation is read, which they need nothing of; waited for before the join).
std::shared_ptr<ClusterSnapshot> buildScope(const Capture &rayPart, const QString &context, const QDateTime &at, const KubeParsed &kube,
                                            const ScopeFilter &filter, const Capture *activity, const QString &kubeError, ActivityPrefetch &prefetch)
{
    auto snap = std::make_shared<ClusterSnapshot>();
    ClusterSnapshot &s = *snap;
    s.capturedAt = at;
    s.kubeContext = context;
    const bool rayNodesRead = readRay(rayPart, s);
    if (filter && !rayPart.rayCluster.isEmpty()) { // one RayCluster's view: its messages say whose
        for (QString &e : s.errors)
            e = QStringLiteral("RayCluster %1: %2").arg(rayPart.rayCluster, e);
        for (QString &w : s.warnings)
            w = QStringLiteral("RayCluster %1: %2").arg(rayPart.rayCluster, w);
    }
    // A dashboard or a context that does not answer is a part of the view that is down, not a body
    // that could not be read: a warning (and rayViews/contextStates), so the rest stays usable.
    if (!rayPart.rayError.isEmpty())
        s.warnings << (rayPart.rayCluster.isEmpty() ? QStringLiteral("Ray: %1").arg(rayPart.rayError) : QStringLiteral("RayCluster %1: %2").arg(rayPart.rayCluster, rayPart.rayError));

    s.errors += kube.errors;
    if (!kubeError.isEmpty()) s.warnings << QStringLiteral("Kubernetes context %1: %2").arg(context.isEmpty() ? QStringLiteral("(in-cluster)") : context, kubeError);
    auto keep = [&](const QString &ns, const QString &cluster) {
        return !filter || filter(ns + u'/' + cluster);
    };
    if (kube.clustersRead) {
        for (const RayClusterInfo &info : kube.clusters)
            if (keep(info.ns, info.name)) {
                s.rayClusters.append(info);
                s.rayClusters.back().context = context;
            }
        for (const WorkerGroup &g : kube.groups)
            if (keep(g.ns, g.cluster)) {
                s.workerGroups.append(g);
                s.workerGroups.back().context = context;
            }
        s.warnings += kube.clusterWarnings;
        s.hasKubernetes = true;
    }
    QList<QString> podReplicaKeys;
    if (kube.podsRead) {
        for (qsizetype i = 0; i < kube.pods.size(); ++i)
            if (keep(kube.pods[i].ns, kube.pods[i].cluster)) {
                s.pods.append(kube.pods[i]);
                podReplicaKeys.append(kube.podReplicaKeys.value(i));
            }
        s.warnings += kube.podWarnings;
        s.hasKubernetes = true;
    }
    if (kube.nodesRead) {
        s.kubeNodes = kube.nodes;
        s.warnings += kube.nodeWarnings;
        s.hasKubernetes = true;
    }

    joinSnapshot(s, rayNodesRead, kube.podsRead, podReplicaKeys);
    stampIdentity(s, rayPart, kubeError);
    if (activity) {
        prefetch.wait();
        joinActivity(s, *activity);
    }
    return snap;
}

// A context's capture: one scope per RayCluster's Ray view, and one for the rest (its own Ray
// bodies, if any, and the pods of clusters without a view), merged.
SnapshotPtr buildContext(const Capture &capture)
{
    // With one Ray view, its node summary (and the answers, read where the context is one scope,
    // as it most often is then) parsed ahead. Not with several: the parse cache keeps the newest
    // summary only, so each would push out the one before it.
    Capture ahead;
    if (capture.rayClusters.size() == 1 && capture.rayNodeSummary.isEmpty()) {
        ahead.rayNodeSummary = capture.rayClusters.front().rayNodeSummary;
        ahead.prometheus = capture.prometheus;
    }
    ActivityPrefetch prefetch(ahead); // nothing to parse without activity bodies
    const std::shared_ptr<const KubeParsed> kubeRead = readKubeOnce(capture);
    const KubeParsed &kube = *kubeRead;
    const QString context = capture.kubeContext;
    QStringList viewed;
    for (const Capture &view : capture.rayClusters)
        if (!view.rayCluster.isEmpty()) viewed << view.rayCluster;
    // What is left for the rest scope: pods and RayClusters of clusters without a Ray view.
    const bool restHasPods = std::any_of(kube.pods.cbegin(), kube.pods.cend(), [&](const Pod &p) { return !viewed.contains(p.ns + u'/' + p.cluster); });
    const bool restHasClusters = std::any_of(kube.clusters.cbegin(), kube.clusters.cend(), [&](const RayClusterInfo &c) { return !viewed.contains(c.ns + u'/' + c.name); });
    // Prometheus's answers cover every cluster: joined when the context is one scope; with several,
    // each scope's node summary says its chips' activity (the series are not split by cluster yet).
    const bool oneScope = capture.rayClusters.size() == 1 && !restHasPods;
    QList<SnapshotPtr> scopes;
    for (const Capture &view : capture.rayClusters) {
        Capture activity;
        activity.capturedAt = capture.capturedAt;
        activity.rayNodeSummary = view.rayNodeSummary;
        activity.rayNodeSummaryError = view.rayNodeSummaryError;
        if (oneScope) {
            activity.prometheusUrl = capture.prometheusUrl;
            activity.prometheus = capture.prometheus;
            activity.prometheusError = capture.prometheusError;
        }
        const QString cluster = view.rayCluster;
        scopes << buildScope(view, context, capture.capturedAt, kube, [cluster](const QString &c) { return c == cluster; }, activity.hasActivity() ? &activity : nullptr, capture.kubeError, prefetch);
    }
    if (scopes.isEmpty() || restHasPods || restHasClusters || capture.hasRay()) {
        Capture rest = capture;
        rest.rayClusters.clear();
        if (!oneScope) {
            rest.prometheus.clear();
            rest.prometheusUrl.clear();
            rest.prometheusError.clear();
        }
        scopes << buildScope(rest, context, capture.capturedAt, kube, [viewed](const QString &c) { return !viewed.contains(c); }, rest.hasActivity() ? &rest : nullptr, capture.kubeError, prefetch);
    }
    SnapshotPtr merged = mergeSnapshots(scopes, capture.capturedAt);
    if (!oneScope && !capture.prometheus.isEmpty() && merged->activity) {
        auto copy = std::make_shared<ClusterSnapshot>(*merged);
        auto table = std::make_shared<ActivityTable>(*copy->activity);
        table->sources << QStringLiteral("Prometheus: not joined while the view holds several RayClusters' Ray views (each node summary is)");
        copy->activity = table;
        merged = copy;
    }
    return merged;
}

// A fleet's captures mostly carry member captures whose bodies did not change since the one
// before: a context's watches keep its Kubernetes lists, and an idle Ray answers the same bytes
// every poll, but for `ray status`, whose first line is the time the autoscaler wrote it. Such a
// context is not rebuilt. Its last build is kept with the capture it was built from, compared by
// content (the buffers are kept, so nothing freed can be mistaken for them):
//  - every body and message the same: the build stands (with the new time, when nothing in it
//    depends on the time: chip activity does, its samples' ages and staleness are measured from it);
//  - only `ray status` changed, and the context has one such body (one RayCluster's view, or a
//    dashboard given directly) in the same place before and now, both read with no message: the
//    build stands with the new text, as the merge of its scopes would give it (one text, unprefixed).
// Anything else is built again.
class MemberMemo
{
public:
    SnapshotPtr find(const Capture &member)
    {
        QMutexLocker lock(&m_mutex);
        for (const Entry &e : m_entries) {
            if (e.capture.kubeContext != member.kubeContext) continue;
            if (!sameBodies(e.capture, member)) return nullptr;
            if (member.hasActivity() && e.capture.capturedAt != member.capturedAt) return nullptr;
            const QList<const QByteArray *> before = statusBodies(e.capture), now = statusBodies(member);
            bool sameStatus = before.size() == now.size();
            for (qsizetype i = 0; sameStatus && i < before.size(); ++i)
                sameStatus = *before[i] == *now[i];
            if (sameStatus) {
                if (e.snapshot->capturedAt == member.capturedAt) return e.snapshot;
                auto copy = std::make_shared<ClusterSnapshot>(*e.snapshot);
                copy->capturedAt = member.capturedAt;
                return copy;
            }
            const qsizetype at = onlyStatusBody(now);
            if (before.size() != now.size() || at < 0 || onlyStatusBody(before) != at) return nullptr;
            QStringList errors, warnings;
            QString oldText, newText;
            if (!readClusterStatus(*before[at], errors, warnings, oldText) || !readClusterStatus(*now[at], errors, warnings, newText)
                || oldText != e.snapshot->clusterStatusText)
                return nullptr;
            auto copy = std::make_shared<ClusterSnapshot>(*e.snapshot);
            copy->capturedAt = member.capturedAt;
            copy->clusterStatusText = newText;
            return copy;
        }
        return nullptr;
    }
    void keep(const Capture &member, SnapshotPtr snapshot)
    {
        QMutexLocker lock(&m_mutex);
        m_entries.erase(std::remove_if(m_entries.begin(), m_entries.end(), [&](const Entry &e) { return e.capture.kubeContext == member.kubeContext; }), m_entries.end());
        if (m_entries.size() >= kMaxEntries) m_entries.erase(m_entries.begin());
        m_entries.push_back({member, std::move(snapshot)});
    }

private:
    static constexpr size_t kMaxEntries = 64; // the contexts a window watches at most
    struct Entry {
        Capture capture; // holds the buffers
        SnapshotPtr snapshot;
    };
    // The `ray status` bodies, in the order the build reads them: the context's own, then each view's.
    static QList<const QByteArray *> statusBodies(const Capture &c)
    {
        QList<const QByteArray *> out{&c.rayClusterStatus};
        for (const Capture &view : c.rayClusters)
            out << &view.rayClusterStatus;
        return out;
    }
    // The index of the one non-empty body; -1 when none or several.
    static qsizetype onlyStatusBody(const QList<const QByteArray *> &bodies)
    {
        qsizetype at = -1;
        for (qsizetype i = 0; i < bodies.size(); ++i) {
            if (bodies[i]->isEmpty()) continue;
            if (at >= 0) return -1;
            at = i;
        }
        return at;
    }
    // A shared buffer (a watched list kept as it was) is the same without reading it.
    static bool same(const QByteArray &a, const QByteArray &b) { return a.size() == b.size() && (a.constData() == b.constData() || a == b); }
    // Every body and message but `ray status` and the time.
    static bool sameRay(const Capture &a, const Capture &b)
    {
        return same(a.rayVersion, b.rayVersion) && same(a.rayNodes, b.rayNodes) && same(a.rayPlacementGroups, b.rayPlacementGroups) && same(a.rayJobs, b.rayJobs)
               && same(a.rayNodeSummary, b.rayNodeSummary) && a.rayNodeSummaryError == b.rayNodeSummaryError && a.rayCluster == b.rayCluster && a.rayError == b.rayError;
    }
    static bool sameBodies(const Capture &a, const Capture &b)
    {
        if (a.kubeError != b.kubeError || !same(a.kubeRayClusters, b.kubeRayClusters) || !same(a.kubePods, b.kubePods) || !same(a.kubeNodes, b.kubeNodes) || !sameRay(a, b)
            || a.rayClusters.size() != b.rayClusters.size() || a.prometheus != b.prometheus || a.prometheusError != b.prometheusError
            || a.prometheusUrl != b.prometheusUrl)
            return false;
        for (qsizetype i = 0; i < a.rayClusters.size(); ++i)
            if (!sameRay(a.rayClusters[i], b.rayClusters[i])) return false;
        return true;
    }
    QMutex m_mutex; // buildSnapshot() may run on any thread
    std::vector<Entry> m_entries;
};

MemberMemo &memberMemo()
{
    static MemberMemo memo;
    return memo;
}

} // namespace

SnapshotPtr buildSnapshot(const Capture &capture)
{
    if (capture.isFleet()) {
        QList<SnapshotPtr> contexts;
        contexts.reserve(capture.fleet.size());
        for (const Capture &member : capture.fleet) {
            Capture one = member;
            one.fleet.clear(); // a fleet holds contexts, never fleets (the codec refuses them too)
            if (!one.capturedAt.isValid()) one.capturedAt = capture.capturedAt;
            SnapshotPtr built = memberMemo().find(one);
            if (!built) {
                built = buildSnapshot(one);
                memberMemo().keep(one, built);
            }
            contexts << built;
        }
        return mergeSnapshots(contexts, capture.capturedAt);
    }
    if (!capture.rayClusters.isEmpty()) return buildContext(capture);
    ActivityPrefetch prefetch(capture); // its new activity bodies parsed beside the allocation's read
    const KubeParsed kube = readKube(capture);
    return buildScope(capture, capture.kubeContext, capture.capturedAt, kube, {}, &capture, capture.kubeError, prefetch);
}

} // namespace slicescope
