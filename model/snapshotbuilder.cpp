// SPDX-License-Identifier: GPL-3.0-or-later
// buildSnapshot(): parse the captured bodies (simdjson on-demand, one pass each, with the readers
// of snapshotreaders.cpp), then hand them to the joiner (snapshotjoin.cpp), which joins Ray nodes,
// pods and Kubernetes nodes into slices, places bundles on chips and builds worker groups.
// Each body is parsed into temporaries first and kept only if it parsed whole, so a truncated body
// never leaves half a list behind.

#include "snapshot.h"

#include "snapshotjoin_p.h"
#include "snapshotread_p.h"

#include <algorithm>

namespace slicescope {

using namespace snapshotread;

void reserveParsePadding(QByteArray &body)
{
    if (body.capacity() - body.size() < qsizetype(simdjson::SIMDJSON_PADDING)) body.reserve(body.size() + qsizetype(simdjson::SIMDJSON_PADDING));
}

SnapshotPtr buildSnapshot(const Capture &capture)
{
    auto snap = std::make_shared<ClusterSnapshot>();
    ClusterSnapshot &s = *snap;
    s.capturedAt = capture.capturedAt;
    s.kubeContext = capture.kubeContext;

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
                if (!typeProblems.isEmpty()) warnings << QStringLiteral("ray.nodes: %1: %2: ignored").arg(who, typeProblems.join(QStringLiteral("; ")));
                if (!n.unrecognised.isEmpty())
                    warnings << QStringLiteral("ray.nodes: %1: %2: the value is not taken and its slice is unrecognised").arg(who, n.unrecognised);
                nodes.append(std::move(n));
            });
        });
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
    parseBody(capture.rayClusterStatus, "ray.cluster_status", s.errors, s.warnings, [&](od::value root) -> QString {
        forEachMember(root, [&](std::string_view k, od::value v) {
            if (k == "data")
                forEachMember(v, [&](std::string_view k2, od::value text) {
                    if (k2 == "clusterStatus") s.clusterStatusText = toString(text);
                });
        });
        return {};
    });

    {
        QList<RawCluster> clusters;
        QStringList warnings;
        if (parseBody(capture.kubeRayClusters, "kubernetes.rayclusters", s.errors, warnings, [&](od::value root) {
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
                    s.workerGroups.append(std::move(g));
                }
                s.rayClusters.append(rc.info);
            }
            s.warnings += warnings;
            s.hasKubernetes = true;
        }
    }
    QList<QString> podReplicaKeys;
    bool podsRead = false;
    {
        QList<Pod> pods;
        QStringList warnings;
        if (parseBody(capture.kubePods, "kubernetes.pods", s.errors, warnings, [&](od::value root) {
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
                    podReplicaKeys.append(key);
                    pods.append(std::move(p));
                });
            })) {
            s.pods = std::move(pods);
            s.warnings += warnings;
            s.hasKubernetes = true;
            podsRead = true;
        } else {
            podReplicaKeys.clear();
        }
    }
    {
        QList<KubeNode> nodes;
        QStringList warnings;
        if (parseBody(capture.kubeNodes, "kubernetes.nodes", s.errors, warnings, [&](od::value root) {
                return readKubeList(root, "kubernetes.nodes", warnings, [&](od::value item) {
                    KubeNode n;
                    readKubeNode(item, n);
                    nodes.append(std::move(n));
                });
            })) {
            s.kubeNodes = std::move(nodes);
            s.warnings += warnings;
            s.hasKubernetes = true;
        }
    }

    joinSnapshot(s, rayNodesRead, podsRead, podReplicaKeys);
    joinActivity(s, capture);
    return snap;
}

} // namespace slicescope
