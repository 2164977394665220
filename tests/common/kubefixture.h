// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Making Kubernetes objects on the harness's API server (tests/integration/kube-harness.sh) the way
// KubeRay and GKE would make them on a real TPU cluster (docs/facts.md 4): TPU nodes with GKE's labels,
// RayClusters with TPU worker groups, and worker pods with KubeRay's labels and the env GKE's TPU
// webhook injects. The harness runs no scheduler, controller-manager or kubelet, so nothing happens
// by itself: a test binds pods to nodes and marks them Running here, and what it did not create does
// not exist.
//
// Test code only: every call blocks (its own QEventLoop, 10 s at most), which the product never may.
// Every value a test would otherwise repeat (label keys, accelerator names, images, port numbers)
// lives in `kube::` below, so a test reads as the fleet it builds.
//
// Nothing the product relies on is deleted by the harness between tests: give each test its own
// namespace (uniqueNamespace()). Without a namespace controller a deleted namespace stays
// Terminating forever, so there is no point deleting one.

#include "kubeharness.h"

#include <QDateTime>
#include <QEventLoop>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QRandomGenerator>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslKey>
#include <QStringList>
#include <QTimer>
#include <QUrl>

#include <memory>

namespace slicescope::testing {

// The value at a path of keys in a Kubernetes object (Null when any key is missing).
inline QJsonValue jsonAt(const QJsonObject &o, const QStringList &path)
{
    QJsonValue v = o;
    for (const QString &key : path)
        v = v.toObject().value(key);
    return v;
}

// True when status.conditions holds `type` with status "True" (Ready, PodScheduled...).
inline bool hasTrueCondition(const QJsonObject &object, const QString &type)
{
    for (const QJsonValue &c : jsonAt(object, {QStringLiteral("status"), QStringLiteral("conditions")}).toArray())
        if (c.toObject().value(QLatin1String("type")).toString() == type)
            return c.toObject().value(QLatin1String("status")).toString() == QLatin1String("True");
    return false;
}

namespace kube {

using namespace Qt::StringLiterals;

// GKE's node labels and the TPU extended resource.
inline const QString labelAccelerator = u"cloud.google.com/gke-tpu-accelerator"_s;
inline const QString labelTopology = u"cloud.google.com/gke-tpu-topology"_s;
inline const QString labelNodePool = u"cloud.google.com/gke-nodepool"_s;
inline const QString resourceTpu = u"google.com/tpu"_s;

// GKE's accelerator label values.
inline const QString v4 = u"tpu-v4-podslice"_s;
inline const QString v5e = u"tpu-v5-lite-podslice"_s;
inline const QString v5p = u"tpu-v5p-slice"_s;
inline const QString v6e = u"tpu-v6e-slice"_s;

// KubeRay's pod labels.
inline const QString labelCluster = u"ray.io/cluster"_s;
inline const QString labelGroup = u"ray.io/group"_s;
inline const QString labelNodeType = u"ray.io/node-type"_s;
inline const QString labelIsRayNode = u"ray.io/is-ray-node"_s;
inline const QString labelReplicaIndex = u"ray.io/worker-group-replica-index"_s;
inline const QString labelReplicaName = u"ray.io/worker-group-replica-name"_s;
inline const QString labelHostIndex = u"ray.io/replica-host-index"_s;
inline const QString headGroup = u"headgroup"_s;

inline const QString rayVersion = u"2.60.0"_s;
inline const QString rayImage = u"rayproject/ray:2.60.0"_s;
inline const QString headContainer = u"ray-head"_s;
inline const QString workerContainer = u"ray-worker"_s;
inline constexpr int dashboardPort = 8265;
inline constexpr int gcsPort = 6379;
inline constexpr int clientPort = 10001;

// One worker group of a RayCluster (spec.workerGroupSpecs[]). Every host of a TPU slice is one pod
// asking for chipsPerHost chips; chipsPerHost * numOfHosts is the topology's chip count.
struct WorkerGroup {
    QString name;
    QString accelerator = v6e;
    QString topology = u"2x4"_s;
    int numOfHosts = 2;
    int chipsPerHost = 4;
    int replicas = 1;
    int minReplicas = 0;
    int maxReplicas = 2;
};

inline QString rayClustersPath(const QString &ns) { return u"/apis/ray.io/v1/namespaces/"_s + ns + u"/rayclusters"_s; }
inline QString rayClusterPath(const QString &ns, const QString &name) { return rayClustersPath(ns) + u'/' + name; }
inline QString podsPath(const QString &ns) { return u"/api/v1/namespaces/"_s + ns + u"/pods"_s; }
inline QString podPath(const QString &ns, const QString &name) { return podsPath(ns) + u'/' + name; }
inline QString servicePath(const QString &ns, const QString &name) { return u"/api/v1/namespaces/"_s + ns + u"/services/"_s + name; }
inline QString nodePath(const QString &name) { return u"/api/v1/nodes/"_s + name; }

// TPU_NAME as GKE's webhook sets it: the slice name Ray reports (docs/facts.md 4).
inline QString sliceName(const QString &group, int replicaIndex) { return group + u'-' + QString::number(replicaIndex); }

// ray.io/worker-group-replica-name: KubeRay makes it <group>-<5 random characters>. Here the
// characters come from a hash of where the replica is, so both hosts of a slice (and a rerun) agree,
// and the name differs from TPU_NAME as it does on a real cluster.
inline QString replicaName(const QString &ns, const QString &cluster, const QString &group, int replicaIndex)
{
    quint32 h = 2166136261u; // FNV-1a
    for (const QChar c : QString(ns + u'/' + cluster + u'/' + group + u'/' + QString::number(replicaIndex))) {
        h ^= c.unicode();
        h *= 16777619u;
    }
    static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789"; // KubeRay's (k8s rand.String) alphabet
    QString suffix;
    for (int i = 0; i < 5; ++i) {
        suffix += QLatin1Char(alphabet[h % 27]);
        h /= 27;
    }
    return group + u'-' + suffix;
}

// Chips in a topology: "2x4" -> 8, "2x2x2" -> 8.
inline int topologyChips(const QString &topology)
{
    int chips = 1;
    for (const QString &d : topology.split(u'x'))
        chips *= d.toInt();
    return chips;
}

// TPU_ACCELERATOR_TYPE as GKE sets it: v4 and v5p count TensorCores (two per chip), the others chips.
inline QString acceleratorType(const QString &accelerator, const QString &topology)
{
    const int chips = topologyChips(topology);
    if (accelerator == v4)
        return u"v4-"_s + QString::number(chips * 2);
    if (accelerator == v5p)
        return u"v5p-"_s + QString::number(chips * 2);
    if (accelerator == v5e)
        return u"v5litepod-"_s + QString::number(chips);
    if (accelerator == v6e)
        return u"v6e-"_s + QString::number(chips);
    return {};
}

inline QString nowRfc3339() { return QDateTime::currentDateTimeUtc().toString(Qt::ISODate); }

} // namespace kube

struct KubeResponse {
    int status = 0;   // 0: no HTTP answer (see error)
    QByteArray body;
    QString error;    // Qt's error text when the request failed at the network level

    bool ok() const { return status >= 200 && status < 300; }
    QJsonObject json() const { return QJsonDocument::fromJson(body).object(); }
    QString name() const { return json().value(QLatin1String("metadata")).toObject().value(QLatin1String("name")).toString(); }
    // For QVERIFY2: "HTTP 422: {...}" (the body cut short).
    QString describe() const
    {
        if (status == 0)
            return QStringLiteral("no answer: ") + error;
        return QStringLiteral("HTTP %1: %2").arg(status).arg(QString::fromUtf8(body.left(600)));
    }
};

class KubeFixture
{
public:
    static constexpr int timeoutMs = 10000;

    // The harness's admin (system:masters).
    explicit KubeFixture(const KubeHarness &h)
        : KubeFixture(h.server, h.caFile, h.adminToken)
    {
    }

    // Any bearer token (e.g. the harness's viewerToken); an empty one sends none.
    KubeFixture(const QString &server, const QString &caFile, const QByteArray &token)
        : m_server(server)
        , m_token(token)
        , m_nam(std::make_unique<QNetworkAccessManager>())
    {
        m_ssl = QSslConfiguration::defaultConfiguration();
        m_ssl.setCaCertificates(QSslCertificate::fromPath(caFile));
    }

    // Authenticates with a client certificate instead of a token. The key's algorithm is read from
    // its PEM header ("EC PRIVATE KEY", "RSA PRIVATE KEY"; PKCS#8 "PRIVATE KEY" tried as both).
    bool useClientCertificate(const QString &certFile, const QString &keyFile)
    {
        const QList<QSslCertificate> certs = QSslCertificate::fromPath(certFile);
        QFile f(keyFile);
        if (certs.isEmpty() || !f.open(QIODevice::ReadOnly))
            return false;
        const QByteArray pem = f.readAll();
        QSslKey key;
        if (pem.contains("EC PRIVATE KEY"))
            key = QSslKey(pem, QSsl::Ec);
        else if (pem.contains("RSA PRIVATE KEY"))
            key = QSslKey(pem, QSsl::Rsa);
        else if (key = QSslKey(pem, QSsl::Rsa); key.isNull())
            key = QSslKey(pem, QSsl::Ec);
        if (key.isNull())
            return false;
        m_ssl.setLocalCertificate(certs.first());
        m_ssl.setPrivateKey(key);
        m_token.clear();
        m_nam = std::make_unique<QNetworkAccessManager>(); // no TLS session reused from before
        return true;
    }

    // --- plain REST --------------------------------------------------------------------------------

    // `path` starts with / and may carry a query (?labelSelector=...). Blocks up to timeoutMs.
    KubeResponse request(const QByteArray &method, const QString &path, const QByteArray &body = {},
                         const QByteArray &contentType = "application/json")
    {
        QNetworkRequest req(QUrl(m_server + path));
        req.setSslConfiguration(m_ssl);
        // HTTP/1.1: one connection per call is all a fixture needs, and it keeps failures plain.
        req.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
        req.setTransferTimeout(timeoutMs);
        req.setRawHeader("Accept", "application/json");
        if (!m_token.isEmpty())
            req.setRawHeader("Authorization", "Bearer " + m_token);
        if (!body.isEmpty())
            req.setHeader(QNetworkRequest::ContentTypeHeader, contentType);
        QNetworkReply *reply = m_nam->sendCustomRequest(req, method, body);
        QEventLoop loop;
        QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
        QTimer::singleShot(timeoutMs + 1000, &loop, [reply] { reply->abort(); });
        if (!reply->isFinished())
            loop.exec();
        KubeResponse r;
        r.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        r.body = reply->readAll();
        if (reply->error() != QNetworkReply::NoError)
            r.error = reply->errorString();
        reply->deleteLater();
        return r;
    }

    KubeResponse get(const QString &path) { return request("GET", path); }
    KubeResponse post(const QString &path, const QJsonObject &object)
    {
        return request("POST", path, QJsonDocument(object).toJson(QJsonDocument::Compact));
    }
    KubeResponse mergePatch(const QString &path, const QJsonObject &patch)
    {
        return request("PATCH", path, QJsonDocument(patch).toJson(QJsonDocument::Compact), "application/merge-patch+json");
    }
    KubeResponse jsonPatch(const QString &path, const QJsonArray &ops)
    {
        return request("PATCH", path, QJsonDocument(ops).toJson(QJsonDocument::Compact), "application/json-patch+json");
    }
    // Immediately: a bound pod would otherwise wait, forever, for a kubelet to confirm it stopped.
    KubeResponse deleteObject(const QString &path)
    {
        return request("DELETE", path, R"({"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0})");
    }

    // --- objects as KubeRay and GKE make them ------------------------------------------------------

    // A fresh namespace name per test: "<prefix>-<6 hex digits>".
    static QString uniqueNamespace(const QString &prefix)
    {
        return prefix + u'-' + QString::number(QRandomGenerator::global()->bounded(0x100000, 0xffffff), 16);
    }

    KubeResponse createNamespace(const QString &ns)
    {
        using namespace Qt::StringLiterals;
        return post(u"/api/v1/namespaces"_s, QJsonObject{{u"apiVersion"_s, u"v1"_s}, {u"kind"_s, u"Namespace"_s}, {u"metadata"_s, QJsonObject{{u"name"_s, ns}}}});
    }

    // A GKE TPU node: labels, the TPU taint, capacity and allocatable google.com/tpu = chips, and
    // Ready. Status is a subresource: a create ignores it, so it is patched in a second call.
    KubeResponse createTpuNode(const QString &name, const QString &accelerator, const QString &topology,
                               const QString &nodePool, int chips = 4, const QString &internalIp = {})
    {
        using namespace Qt::StringLiterals;
        const QJsonObject node{
            {u"apiVersion"_s, u"v1"_s},
            {u"kind"_s, u"Node"_s},
            {u"metadata"_s, QJsonObject{{u"name"_s, name},
                                        {u"labels"_s, QJsonObject{{kube::labelAccelerator, accelerator},
                                                                  {kube::labelTopology, topology},
                                                                  {kube::labelNodePool, nodePool},
                                                                  {u"kubernetes.io/hostname"_s, name},
                                                                  {u"kubernetes.io/os"_s, u"linux"_s}}}}},
            {u"spec"_s, QJsonObject{{u"taints"_s, QJsonArray{QJsonObject{{u"key"_s, kube::resourceTpu},
                                                                         {u"value"_s, u"present"_s},
                                                                         {u"effect"_s, u"NoSchedule"_s}}}}}},
        };
        KubeResponse created = post(u"/api/v1/nodes"_s, node);
        if (!created.ok())
            return created;
        const QJsonObject resources{{kube::resourceTpu, QString::number(chips)},
                                    {u"cpu"_s, u"180"_s},
                                    {u"memory"_s, u"720Gi"_s},
                                    {u"pods"_s, u"110"_s}};
        QJsonObject status{{u"capacity"_s, resources},
                           {u"allocatable"_s, resources},
                           {u"conditions"_s, QJsonArray{QJsonObject{{u"type"_s, u"Ready"_s},
                                                                    {u"status"_s, u"True"_s},
                                                                    {u"reason"_s, u"KubeletReady"_s},
                                                                    {u"lastHeartbeatTime"_s, kube::nowRfc3339()},
                                                                    {u"lastTransitionTime"_s, kube::nowRfc3339()}}}}};
        if (!internalIp.isEmpty())
            status.insert(u"addresses"_s, QJsonArray{QJsonObject{{u"type"_s, u"InternalIP"_s}, {u"address"_s, internalIp}}});
        return mergePatch(kube::nodePath(name) + u"/status"_s, QJsonObject{{u"status"_s, status}});
    }

    // A RayCluster as a user writes it for KubeRay: a CPU head and the given TPU worker groups.
    // `managedBy` "kueue.x-k8s.io/multikueue" keeps the harness's KubeRay operator away from it, so
    // a test can play the operator itself (make and delete the pods).
    KubeResponse createRayCluster(const QString &ns, const QString &name, const QList<kube::WorkerGroup> &groups,
                                  bool enableInTreeAutoscaling = false, const QString &managedBy = {})
    {
        using namespace Qt::StringLiterals;
        QJsonArray workers;
        for (const kube::WorkerGroup &g : groups) {
            workers.append(QJsonObject{
                {u"groupName"_s, g.name},
                {u"replicas"_s, g.replicas},
                {u"minReplicas"_s, g.minReplicas},
                {u"maxReplicas"_s, g.maxReplicas},
                {u"numOfHosts"_s, g.numOfHosts},
                {u"rayStartParams"_s, QJsonObject{}},
                {u"template"_s, QJsonObject{{u"spec"_s, workerPodSpec(g)}}},
            });
        }
        QJsonObject spec{
            {u"rayVersion"_s, kube::rayVersion},
            {u"headGroupSpec"_s, QJsonObject{{u"rayStartParams"_s, QJsonObject{{u"dashboard-host"_s, u"0.0.0.0"_s}}},
                                             {u"template"_s, QJsonObject{{u"spec"_s, headPodSpec()}}}}},
            {u"workerGroupSpecs"_s, workers},
        };
        if (enableInTreeAutoscaling)
            spec.insert(u"enableInTreeAutoscaling"_s, true);
        if (!managedBy.isEmpty())
            spec.insert(u"managedBy"_s, managedBy);
        return post(kube::rayClustersPath(ns), QJsonObject{{u"apiVersion"_s, u"ray.io/v1"_s},
                                                           {u"kind"_s, u"RayCluster"_s},
                                                           {u"metadata"_s, QJsonObject{{u"name"_s, name}, {u"namespace"_s, ns}}},
                                                           {u"spec"_s, spec}});
    }

    // What the operator writes into status (docs/facts.md 4), e.g. {"state": "ready", "readyWorkerReplicas": 2}.
    KubeResponse setRayClusterStatus(const QString &ns, const QString &name, const QJsonObject &status)
    {
        using namespace Qt::StringLiterals;
        return mergePatch(kube::rayClusterPath(ns, name) + u"/status"_s, QJsonObject{{u"status"_s, status}});
    }

    // One host of one slice of a TPU worker group, as KubeRay (v1.6 multi-host indexing) creates it
    // and GKE's TPU webhook completes it. The name is generated by the API server, as KubeRay's are
    // (<cluster>-<group>-worker-xxxxx, no index in it): read it from the response's name().
    KubeResponse createWorkerPod(const QString &ns, const QString &cluster, const kube::WorkerGroup &group,
                                 int replicaIndex, int hostIndex)
    {
        using namespace Qt::StringLiterals;
        const QString slice = kube::sliceName(group.name, replicaIndex);
        const QString headless = cluster + u"-headless-worker-svc"_s;
        QStringList hostnames;
        for (int h = 0; h < group.numOfHosts; ++h)
            hostnames << slice + u'-' + QString::number(h) + u'.' + headless;

        QJsonObject labels{{kube::labelCluster, cluster},
                           {kube::labelGroup, group.name},
                           {kube::labelNodeType, u"worker"_s},
                           {kube::labelIsRayNode, u"yes"_s},
                           {kube::labelReplicaIndex, QString::number(replicaIndex)}};
        if (group.numOfHosts > 1) {
            labels.insert(kube::labelReplicaName, kube::replicaName(ns, cluster, group.name, replicaIndex));
            labels.insert(kube::labelHostIndex, QString::number(hostIndex));
        }

        QJsonObject spec = workerPodSpec(group);
        spec.insert(u"hostname"_s, slice + u'-' + QString::number(hostIndex));
        spec.insert(u"subdomain"_s, headless);
        QJsonArray containers = spec.value(u"containers"_s).toArray();
        QJsonObject container = containers.at(0).toObject();
        QJsonArray env{envVar(u"TPU_NAME"_s, slice),
                       envVar(u"TPU_WORKER_ID"_s, QString::number(hostIndex)),
                       envVar(u"TPU_WORKER_HOSTNAMES"_s, hostnames.join(u',')),
                       envVar(u"TPU_TOPOLOGY"_s, group.topology)};
        const QString type = kube::acceleratorType(group.accelerator, group.topology);
        if (!type.isEmpty())
            env.append(envVar(u"TPU_ACCELERATOR_TYPE"_s, type));
        container.insert(u"env"_s, env);
        containers.replace(0, container);
        spec.insert(u"containers"_s, containers);

        return post(kube::podsPath(ns),
                    QJsonObject{{u"apiVersion"_s, u"v1"_s},
                                {u"kind"_s, u"Pod"_s},
                                {u"metadata"_s, QJsonObject{{u"generateName"_s, cluster + u'-' + group.name + u"-worker-"_s},
                                                            {u"namespace"_s, ns},
                                                            {u"labels"_s, labels}}},
                                {u"spec"_s, spec}});
    }

    // The head pod (<cluster>-head-xxxxx): no TPU.
    KubeResponse createHeadPod(const QString &ns, const QString &cluster)
    {
        using namespace Qt::StringLiterals;
        return post(kube::podsPath(ns),
                    QJsonObject{{u"apiVersion"_s, u"v1"_s},
                                {u"kind"_s, u"Pod"_s},
                                {u"metadata"_s, QJsonObject{{u"generateName"_s, cluster + u"-head-"_s},
                                                            {u"namespace"_s, ns},
                                                            {u"labels"_s, QJsonObject{{kube::labelCluster, cluster},
                                                                                      {kube::labelGroup, kube::headGroup},
                                                                                      {kube::labelNodeType, u"head"_s},
                                                                                      {kube::labelIsRayNode, u"yes"_s}}}}},
                                {u"spec"_s, headPodSpec()}});
    }

    // KubeRay's <cluster>-head-svc, selecting the head pod; the API server allocates its ClusterIP.
    KubeResponse createHeadService(const QString &ns, const QString &cluster)
    {
        using namespace Qt::StringLiterals;
        const auto port = [](const QString &name, int number) {
            return QJsonObject{{u"name"_s, name}, {u"port"_s, number}, {u"targetPort"_s, number}, {u"protocol"_s, u"TCP"_s}};
        };
        return post(u"/api/v1/namespaces/"_s + ns + u"/services"_s,
                    QJsonObject{{u"apiVersion"_s, u"v1"_s},
                                {u"kind"_s, u"Service"_s},
                                {u"metadata"_s, QJsonObject{{u"name"_s, headServiceName(cluster)},
                                                            {u"namespace"_s, ns},
                                                            {u"labels"_s, QJsonObject{{kube::labelCluster, cluster},
                                                                                      {kube::labelNodeType, u"head"_s}}}}},
                                {u"spec"_s, QJsonObject{{u"selector"_s, QJsonObject{{kube::labelCluster, cluster},
                                                                                    {kube::labelNodeType, u"head"_s}}},
                                                        {u"ports"_s, QJsonArray{port(u"gcs-server"_s, kube::gcsPort),
                                                                                port(u"dashboard"_s, kube::dashboardPort),
                                                                                port(u"client"_s, kube::clientPort)}}}}});
    }
    static QString headServiceName(const QString &cluster) { return cluster + QStringLiteral("-head-svc"); }

    // What the scheduler would do: sets spec.nodeName.
    KubeResponse bindPod(const QString &ns, const QString &pod, const QString &node)
    {
        using namespace Qt::StringLiterals;
        return post(kube::podPath(ns, pod) + u"/binding"_s,
                    QJsonObject{{u"apiVersion"_s, u"v1"_s},
                                {u"kind"_s, u"Binding"_s},
                                {u"metadata"_s, QJsonObject{{u"name"_s, pod}}},
                                {u"target"_s, QJsonObject{{u"apiVersion"_s, u"v1"_s}, {u"kind"_s, u"Node"_s}, {u"name"_s, node}}}});
    }

    // What the kubelet would report once the container runs: phase Running, Ready, the pod's IP.
    KubeResponse setPodRunning(const QString &ns, const QString &pod, const QString &ip, const QString &hostIp = {})
    {
        using namespace Qt::StringLiterals;
        const QString now = kube::nowRfc3339();
        const auto condition = [&now](const QString &type) {
            return QJsonObject{{u"type"_s, type}, {u"status"_s, u"True"_s}, {u"lastTransitionTime"_s, now}};
        };
        const KubeResponse current = get(kube::podPath(ns, pod));
        if (!current.ok())
            return current;
        const QJsonObject spec = current.json().value(u"spec"_s).toObject();
        const QJsonObject container = spec.value(u"containers"_s).toArray().at(0).toObject();
        QJsonObject status{
            {u"phase"_s, u"Running"_s},
            {u"podIP"_s, ip},
            {u"podIPs"_s, QJsonArray{QJsonObject{{u"ip"_s, ip}}}},
            {u"startTime"_s, now},
            {u"conditions"_s, QJsonArray{condition(u"PodScheduled"_s), condition(u"Initialized"_s),
                                         condition(u"ContainersReady"_s), condition(u"Ready"_s)}},
            {u"containerStatuses"_s,
             QJsonArray{QJsonObject{{u"name"_s, container.value(u"name"_s)},
                                    {u"image"_s, container.value(u"image"_s)},
                                    {u"imageID"_s, QString()},
                                    {u"ready"_s, true},
                                    {u"started"_s, true},
                                    {u"restartCount"_s, 0},
                                    {u"state"_s, QJsonObject{{u"running"_s, QJsonObject{{u"startedAt"_s, now}}}}}}}},
        };
        if (!hostIp.isEmpty()) {
            status.insert(u"hostIP"_s, hostIp);
            status.insert(u"hostIPs"_s, QJsonArray{QJsonObject{{u"ip"_s, hostIp}}});
        }
        return mergePatch(kube::podPath(ns, pod) + u"/status"_s, QJsonObject{{u"status"_s, status}});
    }

    // One whole slice: numOfHosts pods of `group`'s replica `replicaIndex`, host h bound to nodes[h]
    // and Running with ips[h]. Returns the pod names by host index; empty (and `error` filled) if
    // any step failed.
    QStringList createRunningSlice(const QString &ns, const QString &cluster, const kube::WorkerGroup &group, int replicaIndex,
                                   const QStringList &nodes, const QStringList &ips, QString *error = nullptr)
    {
        QStringList names;
        const auto fail = [&](const QString &step, const KubeResponse &r) {
            if (error)
                *error = step + QStringLiteral(": ") + r.describe();
            return QStringList();
        };
        if (nodes.size() != group.numOfHosts || ips.size() != group.numOfHosts)
            return fail(QStringLiteral("createRunningSlice"), KubeResponse{0, {}, QStringLiteral("one node and one IP per host")});
        for (int h = 0; h < group.numOfHosts; ++h) {
            const KubeResponse created = createWorkerPod(ns, cluster, group, replicaIndex, h);
            if (!created.ok())
                return fail(QStringLiteral("create pod"), created);
            const QString name = created.name();
            if (const KubeResponse r = bindPod(ns, name, nodes.at(h)); !r.ok())
                return fail(QStringLiteral("bind ") + name, r);
            if (const KubeResponse r = setPodRunning(ns, name, ips.at(h)); !r.ok())
                return fail(QStringLiteral("run ") + name, r);
            names << name;
        }
        return names;
    }

private:
    static QJsonObject envVar(const QString &name, const QString &value)
    {
        return QJsonObject{{QStringLiteral("name"), name}, {QStringLiteral("value"), value}};
    }

    static QJsonObject headPodSpec()
    {
        using namespace Qt::StringLiterals;
        const auto port = [](const QString &name, int number) {
            return QJsonObject{{u"name"_s, name}, {u"containerPort"_s, number}};
        };
        return QJsonObject{{u"containers"_s, QJsonArray{QJsonObject{
                                                 {u"name"_s, kube::headContainer},
                                                 {u"image"_s, kube::rayImage},
                                                 {u"resources"_s, QJsonObject{{u"requests"_s, QJsonObject{{u"cpu"_s, u"2"_s}, {u"memory"_s, u"8Gi"_s}}}}},
                                                 {u"ports"_s, QJsonArray{port(u"gcs-server"_s, kube::gcsPort), port(u"dashboard"_s, kube::dashboardPort),
                                                                         port(u"client"_s, kube::clientPort)}},
                                             }}}};
    }

    // The pod template of a TPU worker group: GKE's nodeSelector for the slice's type and shape,
    // the TPU toleration, and chipsPerHost chips (an extended resource: request == limit).
    static QJsonObject workerPodSpec(const kube::WorkerGroup &g)
    {
        using namespace Qt::StringLiterals;
        const QJsonObject tpu{{kube::resourceTpu, QString::number(g.chipsPerHost)}};
        return QJsonObject{
            {u"nodeSelector"_s, QJsonObject{{kube::labelAccelerator, g.accelerator}, {kube::labelTopology, g.topology}}},
            {u"tolerations"_s, QJsonArray{QJsonObject{{u"key"_s, kube::resourceTpu},
                                                      {u"operator"_s, u"Exists"_s},
                                                      {u"effect"_s, u"NoSchedule"_s}}}},
            {u"containers"_s, QJsonArray{QJsonObject{{u"name"_s, kube::workerContainer},
                                                     {u"image"_s, kube::rayImage},
                                                     {u"resources"_s, QJsonObject{{u"requests"_s, tpu}, {u"limits"_s, tpu}}}}}},
        };
    }

    QString m_server;
    QByteArray m_token;
    QSslConfiguration m_ssl;
    std::unique_ptr<QNetworkAccessManager> m_nam;
};

} // namespace slicescope::testing
