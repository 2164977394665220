// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Builds Capture bodies shaped like the real APIs (docs/facts.md 1.1 state API envelopes with the TPU
// labels and resources of 2.1; KubeRay RayClusterList, PodList and NodeList of section 4), so a
// test states a cluster in a few lines and still goes through buildSnapshot()'s real parser.

#include "capture.h"
#include "capturecodec.h"
#include "snapshot.h"

#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

namespace slicescope::testfixture {

// A capture file of tests/data, read as readCaptureFile() reads it (the model tier does not link
// the backend, whose reader adds only the file bounds, tested in tests/backend).
inline CaptureReadResult readCaptureFixture(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        CaptureReadResult result;
        result.error = QStringLiteral("%1: %2").arg(path, file.errorString());
        return result;
    }
    return parseCaptureOrRecording(file.readAll(), path, path.endsWith(QLatin1String(".jsonl")));
}

inline QString hexId(const QString &seed, int length)
{
    return QString::fromLatin1(QCryptographicHash::hash(seed.toUtf8(), QCryptographicHash::Sha224).toHex().left(length));
}

// The state API envelope around a list (docs/facts.md 1.1): counts agree, so nothing looks truncated.
inline QByteArray stateEnvelope(const QJsonArray &items)
{
    const QJsonObject list{
        {QStringLiteral("total"), items.size()},
        {QStringLiteral("num_after_truncation"), items.size()},
        {QStringLiteral("num_filtered"), items.size()},
        {QStringLiteral("result"), items},
        {QStringLiteral("partial_failure_warning"), QString()},
        {QStringLiteral("warnings"), QJsonValue()},
    };
    const QJsonObject body{
        {QStringLiteral("result"), true},
        {QStringLiteral("msg"), QStringLiteral("")},
        {QStringLiteral("data"), QJsonObject{{QStringLiteral("result"), list}}},
    };
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

inline QByteArray kubeList(const QString &kind, const QJsonArray &items)
{
    return QJsonDocument(QJsonObject{
                             {QStringLiteral("apiVersion"), kind == QLatin1String("RayClusterList") ? QStringLiteral("ray.io/v1") : QStringLiteral("v1")},
                             {QStringLiteral("kind"), kind},
                             {QStringLiteral("metadata"), QJsonObject{{QStringLiteral("resourceVersion"), QStringLiteral("4711")}}},
                             {QStringLiteral("items"), items},
                         })
        .toJson(QJsonDocument::Compact);
}

// One TPU slice as Ray sees it: one node per host, labelled and resourced as docs/facts.md 2.1 says.
struct SliceSpec {
    QString name;              // ray.io/tpu-slice-name (TPU_NAME)
    QString acceleratorType;   // ray.io/accelerator-type: "TPU-V6E"
    QString podType;           // ray.io/tpu-pod-type: "v6e-16"
    QString topology;          // ray.io/tpu-topology: "4x4"
    QString nodeGroup;         // ray.io/node-group
    int hosts = 1;
    int chipsPerHost = 4;
    QList<int> dead;           // workers whose Ray node is DEAD
    QList<int> missing;        // workers with no Ray node at all
    QString idPrefix;          // node id = idPrefix + worker; empty: a 56-hex-digit id like Ray's
    QString ipPrefix;          // node ip = ipPrefix + (worker + 1); empty: 10.<slice#>.0.<worker + 1>
};

class CaptureBuilder
{
public:
    // Adds the Ray head node (no TPU).
    void addHeadNode(const QString &id, const QString &ip)
    {
        m_nodes.append(QJsonObject{
            {QStringLiteral("node_id"), id},
            {QStringLiteral("node_ip"), ip},
            {QStringLiteral("is_head_node"), true},
            {QStringLiteral("state"), QStringLiteral("ALIVE")},
            {QStringLiteral("state_message"), QJsonValue()},
            {QStringLiteral("node_name"), ip},
            {QStringLiteral("resources_total"), QJsonObject{{QStringLiteral("CPU"), 8.0}, {QStringLiteral("memory"), 3.2e10}, {QStringLiteral("node:__internal_head__"), 1.0}, {QStringLiteral("node:") + ip, 1.0}}},
            {QStringLiteral("labels"), QJsonObject{{QStringLiteral("ray.io/node-id"), id}}},
            {QStringLiteral("start_time_ms"), QStringLiteral("1764439200000")}, // 64-bit counters may be strings
            {QStringLiteral("end_time_ms"), 0},
        });
    }

    // Adds the Ray nodes of one slice; returns the node id of each worker ("" for missing ones).
    QStringList addSlice(const SliceSpec &s)
    {
        ++m_sliceCount;
        QStringList ids;
        for (int w = 0; w < s.hosts; ++w) {
            if (s.missing.contains(w)) {
                ids << QString();
                continue;
            }
            const QString id = s.idPrefix.isEmpty() ? hexId(s.name + u'/' + QString::number(w), 56) : s.idPrefix + QString::number(w);
            const QString ip = (s.ipPrefix.isEmpty() ? QStringLiteral("10.%1.0.").arg(m_sliceCount) : s.ipPrefix) + QString::number(w + 1);
            const bool alive = !s.dead.contains(w);
            QJsonObject resources{
                {QStringLiteral("CPU"), 8.0},
                {QStringLiteral("memory"), 1.6e11},
                {QStringLiteral("object_store_memory"), 5.0e10},
                {QStringLiteral("TPU"), double(s.chipsPerHost)},
                {QStringLiteral("accelerator_type:") + s.acceleratorType, 1.0},
                {s.name, 1.0},
                {QStringLiteral("node:") + ip, 1.0},
            };
            if (w == 0) // TPU-<pod-type>-head: worker 0 only
                resources.insert(QStringLiteral("TPU-%1-head").arg(s.podType), 1.0);
            QJsonObject labels{
                {QStringLiteral("ray.io/node-id"), id},
                {QStringLiteral("ray.io/accelerator-type"), s.acceleratorType},
                {QStringLiteral("ray.io/tpu-pod-type"), s.podType},
                {QStringLiteral("ray.io/tpu-slice-name"), s.name},
                {QStringLiteral("ray.io/tpu-worker-id"), QString::number(w)},
                {QStringLiteral("ray.io/tpu-topology"), s.topology},
                {QStringLiteral("ray.io/market-type"), QStringLiteral("on-demand")}, // a label we do not know
            };
            if (!s.nodeGroup.isEmpty())
                labels.insert(QStringLiteral("ray.io/node-group"), s.nodeGroup);
            m_nodes.append(QJsonObject{
                {QStringLiteral("node_id"), id},
                {QStringLiteral("node_ip"), ip},
                {QStringLiteral("is_head_node"), false},
                {QStringLiteral("state"), alive ? QStringLiteral("ALIVE") : QStringLiteral("DEAD")},
                {QStringLiteral("state_message"), alive ? QJsonValue() : QJsonValue(QStringLiteral("health check failed"))},
                {QStringLiteral("node_name"), ip},
                {QStringLiteral("resources_total"), resources},
                {QStringLiteral("labels"), labels},
                {QStringLiteral("start_time_ms"), 1764439200000.0 + w},
                {QStringLiteral("end_time_ms"), alive ? 0.0 : 1764439900000.0},
            });
            ids << id;
        }
        return ids;
    }

    static QJsonObject bundle(const QString &pgId, int index, const QJsonObject &resources, const QString &nodeId,
                              const QJsonObject &selector = {})
    {
        return QJsonObject{
            {QStringLiteral("bundle_id"), QJsonObject{{QStringLiteral("placement_group_id"), pgId}, {QStringLiteral("bundle_index"), index}}},
            {QStringLiteral("unit_resources"), resources},
            {QStringLiteral("node_id"), nodeId.isEmpty() ? QJsonValue() : QJsonValue(nodeId)},
            {QStringLiteral("label_selector"), selector},
        };
    }

    void addPlacementGroup(const QString &id, const QString &name, const QString &state, const QString &schedulingState,
                           bool detached, const QJsonArray &bundles)
    {
        m_pgs.append(QJsonObject{
            {QStringLiteral("placement_group_id"), id},
            {QStringLiteral("name"), name},
            {QStringLiteral("creator_job_id"), QStringLiteral("02000000")},
            {QStringLiteral("state"), state},
            {QStringLiteral("is_detached"), detached},
            {QStringLiteral("stats"), QJsonObject{{QStringLiteral("scheduling_state"), schedulingState},
                                                  {QStringLiteral("scheduling_attempt"), 1}}},
            {QStringLiteral("bundles"), bundles},
        });
    }

    // The real PG of ray.util.tpu.slice_placement_group (docs/facts.md 2.2): one bundle per host,
    // {"CPU": 1, "TPU": chips}, each selecting the slice by name.
    void addSlicePlacementGroup(const QString &id, const QString &name, const QString &slice, const QStringList &nodeIds, int tpu,
                                const QString &state = QStringLiteral("CREATED"), bool detached = true)
    {
        QJsonArray bundles;
        for (int i = 0; i < nodeIds.size(); ++i)
            bundles.append(bundle(id, i, QJsonObject{{QStringLiteral("CPU"), 1.0}, {QStringLiteral("TPU"), double(tpu)}}, nodeIds[i],
                                  QJsonObject{{QStringLiteral("ray.io/tpu-slice-name"), slice}}));
        addPlacementGroup(id, name, state, QStringLiteral("FINISHED"), detached, bundles);
    }

    // The head PG of step 1 (docs/facts.md 2.2): claims one slice through TPU-<pod-type>-head on worker 0.
    void addHeadPlacementGroup(const QString &id, const QString &name, const QString &podType, const QString &worker0)
    {
        addPlacementGroup(id, name, QStringLiteral("CREATED"), QStringLiteral("FINISHED"), false,
                          QJsonArray{bundle(id, 0, QJsonObject{{QStringLiteral("TPU-%1-head").arg(podType), 1.0}}, worker0,
                                            QJsonObject{{QStringLiteral("ray.io/tpu-worker-id"), QStringLiteral("0")},
                                                        {QStringLiteral("ray.io/tpu-pod-type"), podType}})});
    }

    static QJsonObject workerGroup(const QString &group, int replicas, int minReplicas, int maxReplicas, int numOfHosts,
                                   const QString &accelerator, const QString &topology, int tpuPerPod)
    {
        QJsonObject requests{{QStringLiteral("cpu"), QStringLiteral("8")}, {QStringLiteral("memory"), QStringLiteral("32Gi")}};
        QJsonObject spec;
        if (tpuPerPod > 0) {
            requests.insert(QStringLiteral("google.com/tpu"), QString::number(tpuPerPod));
            spec.insert(QStringLiteral("nodeSelector"), QJsonObject{{QStringLiteral("cloud.google.com/gke-tpu-accelerator"), accelerator},
                                                                    {QStringLiteral("cloud.google.com/gke-tpu-topology"), topology}});
        }
        spec.insert(QStringLiteral("containers"),
                    QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("ray-worker")},
                                           {QStringLiteral("image"), QStringLiteral("rayproject/ray:2.60.0-py311")},
                                           {QStringLiteral("resources"), QJsonObject{{QStringLiteral("requests"), requests},
                                                                                     {QStringLiteral("limits"), requests}}}}});
        QJsonObject g{
            {QStringLiteral("groupName"), group},
            {QStringLiteral("replicas"), replicas},
            {QStringLiteral("minReplicas"), minReplicas},
            {QStringLiteral("numOfHosts"), numOfHosts},
            {QStringLiteral("rayStartParams"), QJsonObject{}},
            {QStringLiteral("template"), QJsonObject{{QStringLiteral("spec"), spec}}},
        };
        if (maxReplicas >= 0) // -1: leave maxReplicas out, as a manifest may
            g.insert(QStringLiteral("maxReplicas"), maxReplicas);
        return g;
    }

    void addRayCluster(const QString &ns, const QString &name, bool autoscaling, const QJsonArray &workerGroups)
    {
        m_clusters.append(QJsonObject{
            {QStringLiteral("apiVersion"), QStringLiteral("ray.io/v1")},
            {QStringLiteral("kind"), QStringLiteral("RayCluster")},
            {QStringLiteral("metadata"), QJsonObject{{QStringLiteral("name"), name}, {QStringLiteral("namespace"), ns}, {QStringLiteral("generation"), 3}}},
            {QStringLiteral("spec"), QJsonObject{{QStringLiteral("enableInTreeAutoscaling"), autoscaling},
                                                 {QStringLiteral("rayVersion"), QStringLiteral("2.60.0")},
                                                 {QStringLiteral("workerGroupSpecs"), workerGroups}}},
            {QStringLiteral("status"), QJsonObject{{QStringLiteral("state"), QStringLiteral("ready")},
                                                   {QStringLiteral("observedGeneration"), 3},
                                                   {QStringLiteral("head"), QJsonObject{{QStringLiteral("serviceName"), name + QStringLiteral("-head-svc")}}}}},
        });
    }

    // A running TPU worker pod as KubeRay and the GKE TPU webhook leave it (docs/facts.md 4).
    void addTpuPod(const QString &ns, const QString &name, const QString &cluster, const QString &group, const QString &replicaName,
                   const QString &tpuName, int worker, const QString &podIp, const QString &nodeName, const QString &accelerator,
                   const QString &topology, int tpu)
    {
        const QJsonObject tpuRequest{{QStringLiteral("google.com/tpu"), QString::number(tpu)}};
        m_pods.append(QJsonObject{
            {QStringLiteral("metadata"), QJsonObject{
                                             {QStringLiteral("name"), name},
                                             {QStringLiteral("namespace"), ns},
                                             {QStringLiteral("labels"), QJsonObject{
                                                                            {QStringLiteral("ray.io/cluster"), cluster},
                                                                            {QStringLiteral("ray.io/group"), group},
                                                                            {QStringLiteral("ray.io/node-type"), QStringLiteral("worker")},
                                                                            {QStringLiteral("ray.io/is-ray-node"), QStringLiteral("yes")},
                                                                            {QStringLiteral("ray.io/worker-group-replica-name"), replicaName},
                                                                            {QStringLiteral("ray.io/replica-host-index"), QString::number(worker)},
                                                                        }},
                                         }},
            {QStringLiteral("spec"), QJsonObject{
                                         {QStringLiteral("nodeName"), nodeName},
                                         {QStringLiteral("nodeSelector"), QJsonObject{{QStringLiteral("cloud.google.com/gke-tpu-accelerator"), accelerator}, {QStringLiteral("cloud.google.com/gke-tpu-topology"), topology}}},
                                         {QStringLiteral("containers"), QJsonArray{QJsonObject{
                                                                            {QStringLiteral("name"), QStringLiteral("ray-worker")},
                                                                            {QStringLiteral("env"), QJsonArray{
                                                                                                        QJsonObject{{QStringLiteral("name"), QStringLiteral("TPU_NAME")}, {QStringLiteral("value"), tpuName}},
                                                                                                        QJsonObject{{QStringLiteral("name"), QStringLiteral("TPU_WORKER_ID")}, {QStringLiteral("value"), QString::number(worker)}},
                                                                                                    }},
                                                                            {QStringLiteral("resources"), QJsonObject{{QStringLiteral("requests"), tpuRequest}, {QStringLiteral("limits"), tpuRequest}}},
                                                                        }}},
                                     }},
            {QStringLiteral("status"), QJsonObject{
                                           {QStringLiteral("phase"), QStringLiteral("Running")},
                                           {QStringLiteral("podIP"), podIp},
                                           {QStringLiteral("conditions"), QJsonArray{QJsonObject{{QStringLiteral("type"), QStringLiteral("Ready")}, {QStringLiteral("status"), QStringLiteral("True")}}}},
                                       }},
        });
    }

    void addKubeNode(const QString &name, const QString &accelerator, const QString &topology, const QString &nodePool, int tpu)
    {
        m_kubeNodes.append(QJsonObject{
            {QStringLiteral("metadata"), QJsonObject{
                                             {QStringLiteral("name"), name},
                                             {QStringLiteral("labels"), QJsonObject{{QStringLiteral("cloud.google.com/gke-tpu-accelerator"), accelerator},
                                                                                    {QStringLiteral("cloud.google.com/gke-tpu-topology"), topology},
                                                                                    {QStringLiteral("cloud.google.com/gke-nodepool"), nodePool}}},
                                         }},
            {QStringLiteral("status"), QJsonObject{
                                           {QStringLiteral("capacity"), QJsonObject{{QStringLiteral("google.com/tpu"), QString::number(tpu)}}},
                                           {QStringLiteral("conditions"), QJsonArray{QJsonObject{{QStringLiteral("type"), QStringLiteral("Ready")}, {QStringLiteral("status"), QStringLiteral("True")}}}},
                                       }},
        });
    }

    // withKubernetes: also capture the Kubernetes lists (empty ones if nothing was added).
    Capture capture(bool withKubernetes) const
    {
        Capture c;
        c.capturedAt = QDateTime(QDate(2026, 11, 29), QTime(18, 0), Qt::UTC);
        c.rayVersion = R"({"version": "5", "ray_version": "2.60.0", "ray_commit": "0123abc", "session_name": "session_x"})";
        c.rayNodes = stateEnvelope(m_nodes);
        c.rayPlacementGroups = stateEnvelope(m_pgs);
        if (withKubernetes) {
            c.kubeContext = QStringLiteral("gke_test");
            c.kubeRayClusters = kubeList(QStringLiteral("RayClusterList"), m_clusters);
            c.kubePods = kubeList(QStringLiteral("PodList"), m_pods);
            c.kubeNodes = kubeList(QStringLiteral("NodeList"), m_kubeNodes);
        }
        return c;
    }

private:
    QJsonArray m_nodes;
    QJsonArray m_pgs;
    QJsonArray m_clusters;
    QJsonArray m_pods;
    QJsonArray m_kubeNodes;
    int m_sliceCount = 0;
};

// The slice of that name; a test bug (fatal) when there is none.
inline const Slice &sliceNamed(const ClusterSnapshot &s, const QString &name)
{
    const int i = s.sliceIndex(name);
    if (i < 0)
        qFatal("no slice %s", qPrintable(name));
    return s.slices[i];
}

} // namespace slicescope::testfixture
