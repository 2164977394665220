// SPDX-License-Identifier: GPL-3.0-or-later
// The demo cluster as Ray's state and jobs APIs and the Kubernetes API would answer it: one
// capture of bodies in the real servers' shapes (docs/facts.md), built from the simulation.
#include "democluster.h"
#include "democluster_p.h"

#include "activity.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace slicescope {

using demo::kClusterName;
using demo::kNamespace;
using demo::s;

namespace {

QJsonObject toJson(const QMap<QString, double> &m)
{
    QJsonObject o;
    for (auto it = m.cbegin(); it != m.cend(); ++it)
        o.insert(it.key(), it.value());
    return o;
}

QJsonObject toJson(const QMap<QString, QString> &m)
{
    QJsonObject o;
    for (auto it = m.cbegin(); it != m.cend(); ++it)
        o.insert(it.key(), it.value());
    return o;
}

QByteArray body(const QJsonDocument &doc)
{
    QByteArray bytes = doc.toJson(QJsonDocument::Compact);
    reserveParsePadding(bytes);
    return bytes;
}

QByteArray stateApiBody(const QJsonArray &items)
{
    return body(QJsonDocument(QJsonObject{
        {s("result"), true},
        {s("msg"), QString()},
        {s("data"), QJsonObject{{s("result"), QJsonObject{
                                                  {s("total"), items.size()},
                                                  {s("num_after_truncation"), items.size()},
                                                  {s("num_filtered"), items.size()},
                                                  {s("result"), items},
                                                  {s("partial_failure_warning"), QString()},
                                                  {s("warnings"), QJsonValue()},
                                              }}}},
    }));
}

QByteArray kubeListBody(const char *kind, const char *apiVersion, const QJsonArray &items, qint64 resourceVersion)
{
    return body(QJsonDocument(QJsonObject{
        {s("kind"), s(kind)},
        {s("apiVersion"), s(apiVersion)},
        {s("metadata"), QJsonObject{{s("resourceVersion"), QString::number(resourceVersion)}}},
        {s("items"), items},
    }));
}

} // namespace

Capture DemoCluster::capture() const
{
    Capture c;
    c.capturedAt = now();
    const qint64 epoch = m_start.toMSecsSinceEpoch();

    c.rayVersion = body(QJsonDocument(QJsonObject{
        {s("version"), s("5")}, {s("ray_version"), s("2.60.0")}, {s("ray_commit"), s("0000000000000000000000000000000000000000")}, {s("session_name"), s("session_2026-11-29_09-00-00_000000_1")}}));

    QJsonArray nodes;
    QList<const Node *> sorted;
    for (const Node &n : m_nodes)
        sorted.append(&n);
    std::sort(sorted.begin(), sorted.end(), [](const Node *a, const Node *b) { return a->id < b->id; }); // the API sorts by id
    for (const Node *n : std::as_const(sorted)) {
        QMap<QString, double> resources{{s("CPU"), n->cpu}, {s("memory"), 32.0 * 1024 * 1024 * 1024}, {s("object_store_memory"), 8.0 * 1024 * 1024 * 1024}, {QStringLiteral("node:%1").arg(n->ip), 1}};
        QMap<QString, QString> labels{{s("ray.io/node-id"), n->id}};
        if (n->isHead)
            resources.insert(s("node:__internal_head__"), 1);
        if (n->tpu > 0) {
            resources.insert(s("TPU"), n->tpu);
            resources.insert(QStringLiteral("accelerator_type:%1").arg(n->acceleratorType), 1);
            resources.insert(n->sliceName, 1);
            if (n->sliceHead)
                resources.insert(QStringLiteral("TPU-%1-head").arg(n->podType), 1);
            labels.insert(s("ray.io/accelerator-type"), n->acceleratorType);
            labels.insert(s("ray.io/tpu-pod-type"), n->podType);
            labels.insert(s("ray.io/tpu-slice-name"), n->sliceName);
            labels.insert(s("ray.io/tpu-worker-id"), QString::number(n->workerId));
            labels.insert(s("ray.io/tpu-topology"), n->topology);
            labels.insert(s("ray.io/node-group"), n->nodeGroup);
        } else {
            labels.insert(s("ray.io/node-group"), n->isHead ? s("headgroup") : s("cpu"));
        }
        nodes.append(QJsonObject{
            {s("node_id"), n->id},
            {s("node_ip"), n->ip},
            {s("is_head_node"), n->isHead},
            {s("state"), n->alive ? s("ALIVE") : s("DEAD")},
            {s("state_message"), n->stateMessage.isEmpty() ? QJsonValue() : QJsonValue(n->stateMessage)},
            {s("node_name"), n->ip},
            {s("resources_total"), toJson(resources)},
            {s("labels"), toJson(labels)},
            {s("start_time_ms"), QString::number(epoch + n->startMs)}, // 64-bit numbers may be strings
            {s("end_time_ms"), n->alive ? 0 : epoch + n->endMs},
        });
    }
    c.rayNodes = stateApiBody(nodes);

    QJsonArray groups;
    for (const PlacementGroup &pg : m_groupsPg) {
        QJsonArray bundles;
        for (int i = 0; i < pg.bundles.size(); ++i) {
            const Bundle &b = pg.bundles[i];
            bundles.append(QJsonObject{
                {s("bundle_id"), QJsonObject{{s("placement_group_id"), pg.id}, {s("bundle_index"), i}}},
                {s("unit_resources"), toJson(b.resources)},
                {s("node_id"), b.nodeId.isEmpty() ? QJsonValue() : QJsonValue(b.nodeId)},
                {s("label_selector"), toJson(b.selector)},
            });
        }
        groups.append(QJsonObject{
            {s("placement_group_id"), pg.id},
            {s("name"), pg.name},
            {s("creator_job_id"), pg.jobId},
            {s("state"), pg.state},
            {s("is_detached"), pg.detached},
            {s("stats"), QJsonObject{{s("scheduling_state"), pg.schedulingState}, {s("scheduling_attempt"), 1}}},
            {s("bundles"), bundles},
        });
    }
    c.rayPlacementGroups = stateApiBody(groups);

    QJsonArray jobs;
    for (const Job &j : m_jobs)
        jobs.append(QJsonObject{
            {s("type"), s("SUBMISSION")},
            {s("submission_id"), j.submissionId},
            {s("job_id"), j.jobId},
            {s("status"), j.status},
            {s("entrypoint"), j.entrypoint},
            {s("message"), j.message},
            {s("start_time"), epoch + j.startMs},
            {s("end_time"), j.endMs ? QJsonValue(epoch + j.endMs) : QJsonValue()},
            // Slice requests carry the metadata SliceScope's real jobs carry (sliceJobBody()), so
            // "created by SliceScope" is decided the same way for the demo and a live Ray.
            {s("metadata"), j.request.name.isEmpty() ? QJsonObject()
                                                     : QJsonObject{{s("slicescope"), s("slice-pg")}, {s("name"), j.request.name}}},
        });
    c.rayJobs = body(QJsonDocument(jobs));
    c.rayNodeSummary = nodeSummaryBody(); // chip activity: democlusteractivity.cpp
    c.prometheus = {{promql::windowMaxQuery(kWindowSeconds), windowMaxBody(kWindowSeconds)}};

    // Kubernetes.
    c.kubeContext = s("demo");
    QJsonArray clusters;
    for (const Cluster &cl : m_clusters) {
        QJsonArray specs;
        for (const Group &g : m_groups) {
            if (g.cluster != cl.name)
                continue;
            QJsonObject spec{
                {s("groupName"), g.name},
                {s("replicas"), g.replicas},
                {s("minReplicas"), g.minReplicas},
                {s("maxReplicas"), g.maxReplicas},
                {s("numOfHosts"), g.numOfHosts},
                {s("rayStartParams"), QJsonObject()},
                {s("template"), QJsonObject{{s("spec"), QJsonObject{
                                                            {s("nodeSelector"), QJsonObject{{s("cloud.google.com/gke-tpu-accelerator"), g.accelerator},
                                                                                            {s("cloud.google.com/gke-tpu-topology"), g.topology}}},
                                                            {s("containers"), QJsonArray{QJsonObject{
                                                                                  {s("name"), s("ray-worker")},
                                                                                  {s("image"), s("rayproject/ray:2.60.0-py311")},
                                                                                  {s("resources"), QJsonObject{
                                                                                                       {s("requests"), QJsonObject{{s("google.com/tpu"), QString::number(g.chipsPerHost)}}},
                                                                                                       {s("limits"), QJsonObject{{s("google.com/tpu"), QString::number(g.chipsPerHost)}}}}},
                                                                              }}},
                                                        }}}},
            };
            if (!g.workersToDelete.isEmpty())
                spec.insert(s("scaleStrategy"), QJsonObject{{s("workersToDelete"), QJsonArray::fromStringList(g.workersToDelete)}});
            specs.append(spec);
        }
        clusters.append(QJsonObject{
            {s("apiVersion"), s("ray.io/v1")},
            {s("kind"), s("RayCluster")},
            {s("metadata"), QJsonObject{{s("name"), cl.name}, {s("namespace"), cl.ns}, {s("generation"), cl.generation}}},
            {s("spec"), QJsonObject{{s("enableInTreeAutoscaling"), cl.autoscaling}, {s("workerGroupSpecs"), specs}, {s("headGroupSpec"), QJsonObject{{s("rayStartParams"), QJsonObject()}}}}},
            {s("status"), QJsonObject{{s("state"), s("ready")}, {s("observedGeneration"), cl.generation}, {s("head"), QJsonObject{{s("serviceName"), cl.name + s("-head-svc")}}}, {s("endpoints"), QJsonObject{{s("dashboard"), s("8265")}}}}},
        });
    }
    c.kubeRayClusters = kubeListBody("RayClusterList", "ray.io/v1", clusters, 1000 + m_now / 100);

    QJsonArray pods;
    for (const Pod &p : m_pods) {
        QJsonObject labels{{s("ray.io/cluster"), p.cluster}, {s("ray.io/group"), p.group}, {s("ray.io/node-type"), p.head ? s("head") : s("worker")}, {s("ray.io/is-ray-node"), s("yes")}};
        QJsonObject spec{{s("nodeName"), p.nodeName}};
        QJsonArray env;
        QJsonObject resources;
        if (!p.head) {
            labels.insert(s("ray.io/worker-group-replica-index"), QString::number(p.replicaIndex));
            labels.insert(s("ray.io/worker-group-replica-name"), p.replicaName);
            labels.insert(s("ray.io/replica-host-index"), QString::number(p.hostIndex));
            spec.insert(s("nodeSelector"), QJsonObject{{s("cloud.google.com/gke-tpu-accelerator"), p.accelerator},
                                                       {s("cloud.google.com/gke-tpu-topology"), p.topology}});
            env = QJsonArray{QJsonObject{{s("name"), s("TPU_NAME")}, {s("value"), p.tpuName}},
                             QJsonObject{{s("name"), s("TPU_WORKER_ID")}, {s("value"), QString::number(p.hostIndex)}}};
            resources = QJsonObject{{s("requests"), QJsonObject{{s("google.com/tpu"), QString::number(p.tpuChips)}}},
                                    {s("limits"), QJsonObject{{s("google.com/tpu"), QString::number(p.tpuChips)}}}};
        }
        spec.insert(s("containers"), QJsonArray{QJsonObject{{s("name"), p.head ? s("ray-head") : s("ray-worker")},
                                                            {s("env"), env},
                                                            {s("resources"), resources}}});
        QJsonObject metadata{{s("name"), p.name}, {s("namespace"), p.ns}, {s("labels"), labels}, {s("creationTimestamp"), m_start.addMSecs(p.createdMs).toString(Qt::ISODate)}};
        if (p.terminating)
            metadata.insert(s("deletionTimestamp"), now().toString(Qt::ISODate));
        QJsonObject status{{s("phase"), p.phase},
                           {s("conditions"), QJsonArray{QJsonObject{{s("type"), s("Ready")}, {s("status"), p.ready ? s("True") : s("False")}}}}};
        if (!p.ip.isEmpty())
            status.insert(s("podIP"), p.ip);
        pods.append(QJsonObject{{s("metadata"), metadata}, {s("spec"), spec}, {s("status"), status}});
    }
    c.kubePods = kubeListBody("PodList", "v1", pods, 2000 + m_now / 100);

    QJsonArray kubeNodes;
    for (const KubeNode &n : m_kubeNodes)
        kubeNodes.append(QJsonObject{
            {s("metadata"), QJsonObject{{s("name"), n.name}, {s("labels"), QJsonObject{{s("cloud.google.com/gke-tpu-accelerator"), n.accelerator}, {s("cloud.google.com/gke-tpu-topology"), n.topology}, {s("cloud.google.com/gke-nodepool"), n.pool}}}}},
            {s("status"), QJsonObject{{s("capacity"), QJsonObject{{s("google.com/tpu"), QString::number(n.tpu)}}},
                                      {s("conditions"), QJsonArray{QJsonObject{{s("type"), s("Ready")}, {s("status"), s("True")}}}}}},
        });
    c.kubeNodes = kubeListBody("NodeList", "v1", kubeNodes, 3000 + m_now / 100);
    return c;
}

} // namespace slicescope
