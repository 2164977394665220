// SPDX-License-Identifier: GPL-3.0-or-later
// Joining Ray and Kubernetes when the input is not one tidy cluster: several RayClusters in one
// Kubernetes capture (the Ray dashboard describes one of them), slice names reused across
// namespaces, and worker ids outside the topology.

#include "capturefixture.h"
#include "inspectjson.h"
#include "snapshot.h"

#include <QTest>

using namespace slicescope;
using namespace slicescope::testfixture;

namespace {

// A TPU worker pod as KubeRay and the GKE webhook make it (docs/facts.md 4).
QJsonObject tpuPod(const QString &ns, const QString &cluster, const QString &group, int replica, int host,
                   const QString &ip, const QString &phase, bool ready)
{
    const QString tpuName = QStringLiteral("%1-%2").arg(group).arg(replica);
    QJsonObject status{{QStringLiteral("phase"), phase},
                       {QStringLiteral("conditions"), QJsonArray{QJsonObject{{QStringLiteral("type"), QStringLiteral("Ready")},
                                                                             {QStringLiteral("status"), ready ? QStringLiteral("True") : QStringLiteral("False")}}}}};
    if (!ip.isEmpty())
        status.insert(QStringLiteral("podIP"), ip);
    return QJsonObject{
        {QStringLiteral("metadata"), QJsonObject{
                                         {QStringLiteral("name"), QStringLiteral("%1-%2-worker-r%3h%4").arg(cluster, group).arg(replica).arg(host)},
                                         {QStringLiteral("namespace"), ns},
                                         {QStringLiteral("labels"), QJsonObject{{QStringLiteral("ray.io/cluster"), cluster}, {QStringLiteral("ray.io/group"), group}, {QStringLiteral("ray.io/node-type"), QStringLiteral("worker")}, {QStringLiteral("ray.io/worker-group-replica-name"), QStringLiteral("%1-%2-rep%3").arg(cluster, group).arg(replica)}, {QStringLiteral("ray.io/replica-host-index"), QString::number(host)}}}}},
        {QStringLiteral("spec"), QJsonObject{{QStringLiteral("nodeSelector"), QJsonObject{{QStringLiteral("cloud.google.com/gke-tpu-accelerator"), QStringLiteral("tpu-v6e-slice")}, {QStringLiteral("cloud.google.com/gke-tpu-topology"), QStringLiteral("4x4")}}}, {QStringLiteral("containers"), QJsonArray{QJsonObject{{QStringLiteral("env"), QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("TPU_NAME")}, {QStringLiteral("value"), tpuName}}, QJsonObject{{QStringLiteral("name"), QStringLiteral("TPU_WORKER_ID")}, {QStringLiteral("value"), QString::number(host)}}}}, {QStringLiteral("resources"), QJsonObject{{QStringLiteral("requests"), QJsonObject{{QStringLiteral("google.com/tpu"), QStringLiteral("4")}}}}}}}}}},
        {QStringLiteral("status"), status},
    };
}

QJsonObject headPod(const QString &ns, const QString &cluster, const QString &ip)
{
    return QJsonObject{
        {QStringLiteral("metadata"), QJsonObject{{QStringLiteral("name"), cluster + QStringLiteral("-head")}, {QStringLiteral("namespace"), ns}, {QStringLiteral("labels"), QJsonObject{{QStringLiteral("ray.io/cluster"), cluster}, {QStringLiteral("ray.io/node-type"), QStringLiteral("head")}}}}},
        {QStringLiteral("status"), QJsonObject{{QStringLiteral("phase"), QStringLiteral("Running")}, {QStringLiteral("podIP"), ip}}},
    };
}

// Edits the Ray node list of a capture in place (the bodies stay as the state API shapes them).
template<typename Edit>
void editRayNodes(Capture &c, Edit edit)
{
    QJsonObject body = QJsonDocument::fromJson(c.rayNodes).object();
    QJsonObject data = body.value(QStringLiteral("data")).toObject();
    QJsonObject list = data.value(QStringLiteral("result")).toObject();
    QJsonArray nodes = list.value(QStringLiteral("result")).toArray();
    edit(nodes);
    list.insert(QStringLiteral("result"), nodes);
    for (const char *count : {"total", "num_after_truncation", "num_filtered"})
        list.insert(QLatin1String(count), nodes.size());
    data.insert(QStringLiteral("result"), list);
    body.insert(QStringLiteral("data"), data);
    c.rayNodes = QJsonDocument(body).toJson(QJsonDocument::Compact);
}

} // namespace

class TestJoining : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void twoRayClustersShareSliceNames()
    {
        // Ray describes ml/rc-a (its head pod's IP is the Ray head's). teamb/rc-b has a worker
        // group of the same name, so its slice is also called tpu-0 by TPU_NAME.
        CaptureBuilder b;
        b.addHeadNode(hexId(QStringLiteral("head"), 56), QStringLiteral("10.1.0.100"));
        b.addSlice({QStringLiteral("tpu-0"), QStringLiteral("TPU-V6E"), QStringLiteral("v6e-16"), QStringLiteral("4x4"), QStringLiteral("tpu"), 4, 4, {}, {}, {}, QStringLiteral("10.1.0.")});
        QJsonArray pods{headPod(QStringLiteral("ml"), QStringLiteral("rc-a"), QStringLiteral("10.1.0.100")),
                        headPod(QStringLiteral("teamb"), QStringLiteral("rc-b"), QStringLiteral("10.2.0.100"))};
        for (int h = 0; h < 4; ++h) {
            pods.append(tpuPod(QStringLiteral("ml"), QStringLiteral("rc-a"), QStringLiteral("tpu"), 0, h, QStringLiteral("10.1.0.%1").arg(h + 1), QStringLiteral("Running"), true));
            // A new replica of rc-a: running, Ray has not joined yet.
            pods.append(tpuPod(QStringLiteral("ml"), QStringLiteral("rc-a"), QStringLiteral("tpu"), 1, h, QStringLiteral("10.1.1.%1").arg(h + 1), QStringLiteral("Running"), true));
            pods.append(tpuPod(QStringLiteral("teamb"), QStringLiteral("rc-b"), QStringLiteral("tpu"), 0, h, QStringLiteral("10.2.0.%1").arg(h + 1), QStringLiteral("Running"), true));
        }
        Capture c = b.capture(false);
        c.kubePods = kubeList(QStringLiteral("PodList"), pods);
        const SnapshotPtr s = buildSnapshot(c);
        QVERIFY2(s->errors.isEmpty(), qPrintable(s->errors.join(u'\n')));

        const Slice &a0 = sliceNamed(*s, QStringLiteral("tpu-0"));
        QCOMPARE(a0.source, SliceSource::Both);
        QCOMPARE(a0.workerGroup, QStringLiteral("ml/rc-a/tpu"));
        QVERIFY(a0.intact);
        for (const Host &h : a0.hosts)
            QVERIFY(s->pods[h.pod].ns == QLatin1String("ml")); // no pod of teamb merged in

        // rc-a's new replica: Ray describes rc-a, so running pods without Ray nodes are PENDING.
        const Slice &a1 = sliceNamed(*s, QStringLiteral("tpu-1"));
        QCOMPARE(a1.status(), SliceStatus::Provisioning);
        QCOMPARE(a1.hosts[0].state, HostState::Pending);

        // teamb's slice keeps its own identity and, Ray not describing rc-b, its pods decide.
        const Slice &b0 = sliceNamed(*s, QStringLiteral("teamb/rc-b/tpu-0"));
        QCOMPARE(b0.source, SliceSource::Kubernetes);
        QCOMPARE(b0.workerGroup, QStringLiteral("teamb/rc-b/tpu"));
        QCOMPARE(b0.hostCount(), 4);
        QVERIFY(b0.intact);
        QCOMPARE(b0.hosts[3].state, HostState::Alive);
    }

    // KubeRay replaces a failed worker pod under the same TPU_NAME and worker id, with a new IP
    // (docs/facts.md 4.5). The DEAD Ray node of the pod it replaced belongs to the host only while
    // that pod (its IP) is the one in the host's place; a replacement whose raylet has not joined
    // is PENDING. Rows marked "failed before" were DEAD before the join looked at IPs.
    void replacementPodAndDeadRayNode_data()
    {
        QTest::addColumn<QString>("podIp");       // worker 2's pod now; empty: not in the pod's status
        QTest::addColumn<QString>("deadNodeIp");  // worker 2's DEAD Ray node; empty: the node has none
        QTest::addColumn<QString>("newRaylet");   // "", "labelled" or "unlabelled": an ALIVE node with the pod's IP
        QTest::addColumn<HostState>("state");
        QTest::addColumn<QString>("rayNode");     // the host's Ray node: "dead", "new" or "none"

        const QString oldIp = QStringLiteral("10.1.0.3"), newIp = QStringLiteral("10.1.0.33");
        // (a) failed before: the replacement was joined to the dead node and shown DEAD.
        QTest::newRow("replacement running, its raylet not joined: provisioning")
            << newIp << oldIp << QString() << HostState::Pending << QStringLiteral("none");
        // (b) a raylet with the new IP joined: ALIVE on it (the alive node won before too).
        QTest::newRow("replacement's raylet joined: alive")
            << newIp << oldIp << QStringLiteral("labelled") << HostState::Alive << QStringLiteral("new");
        // (b) failed before: the dead node held the host, so the join by IP never ran.
        QTest::newRow("replacement's raylet joined without TPU labels: alive by its IP")
            << newIp << oldIp << QStringLiteral("unlabelled") << HostState::Alive << QStringLiteral("new");
        // (c) the pod whose raylet died is still the host's pod.
        QTest::newRow("the pod whose Ray node died is still there: dead")
            << oldIp << oldIp << QString() << HostState::Dead << QStringLiteral("dead");
        // (d) nothing says which pod the dead node was: today's answer, no guess.
        QTest::newRow("pod IP unknown: dead as before")
            << QString() << oldIp << QString() << HostState::Dead << QStringLiteral("dead");
        QTest::newRow("dead node's IP unknown: dead as before")
            << newIp << QString() << QString() << HostState::Dead << QStringLiteral("dead");
    }

    void replacementPodAndDeadRayNode()
    {
        QFETCH(QString, podIp);
        QFETCH(QString, deadNodeIp);
        QFETCH(QString, newRaylet);
        QFETCH(HostState, state);
        QFETCH(QString, rayNode);

        CaptureBuilder b;
        b.addHeadNode(hexId(QStringLiteral("head"), 56), QStringLiteral("10.1.0.100"));
        const QStringList ids = b.addSlice({QStringLiteral("tpu-0"), QStringLiteral("TPU-V6E"), QStringLiteral("v6e-16"), QStringLiteral("4x4"), QStringLiteral("tpu"), 4, 4, {2}, {}, {}, QStringLiteral("10.1.0.")});
        const QString deadId = ids[2], newId = hexId(QStringLiteral("tpu-0/2/replacement"), 56);
        Capture c = b.capture(false);
        editRayNodes(c, [&](QJsonArray &nodes) {
            for (int i = 0; i < nodes.size(); ++i) {
                QJsonObject n = nodes[i].toObject();
                if (n.value(QStringLiteral("node_id")).toString() != deadId) continue;
                QCOMPARE(n.value(QStringLiteral("node_ip")).toString(), QStringLiteral("10.1.0.3"));
                n.insert(QStringLiteral("state_message"), QStringLiteral("Expected termination: received SIGTERM"));
                if (deadNodeIp.isEmpty()) n.remove(QStringLiteral("node_ip"));
                if (!newRaylet.isEmpty()) { // the replacement's raylet: alive, the pod's IP, started later
                    QJsonObject fresh = n;
                    fresh.insert(QStringLiteral("node_id"), newId);
                    fresh.insert(QStringLiteral("node_ip"), podIp);
                    fresh.insert(QStringLiteral("node_name"), podIp);
                    fresh.insert(QStringLiteral("state"), QStringLiteral("ALIVE"));
                    fresh.insert(QStringLiteral("state_message"), QJsonValue());
                    fresh.insert(QStringLiteral("start_time_ms"), 1764439950000.0);
                    fresh.insert(QStringLiteral("end_time_ms"), 0.0);
                    QJsonObject labels = n.value(QStringLiteral("labels")).toObject(); // same slice and worker id
                    if (newRaylet == QLatin1String("unlabelled")) labels = QJsonObject{};
                    labels.insert(QStringLiteral("ray.io/node-id"), newId);
                    fresh.insert(QStringLiteral("labels"), labels);
                    nodes.append(fresh);
                }
                nodes.replace(i, n);
                break;
            }
        });
        QJsonArray pods{headPod(QStringLiteral("ml"), QStringLiteral("rc-a"), QStringLiteral("10.1.0.100"))};
        for (int h = 0; h < 4; ++h) {
            QJsonObject pod = tpuPod(QStringLiteral("ml"), QStringLiteral("rc-a"), QStringLiteral("tpu"), 0, h,
                                     h == 2 ? podIp : QStringLiteral("10.1.0.%1").arg(h + 1), QStringLiteral("Running"), true);
            if (h == 2 && podIp != QLatin1String("10.1.0.3")) { // KubeRay's replacement: a new pod in the old one's place
                QJsonObject meta = pod.value(QStringLiteral("metadata")).toObject();
                meta.insert(QStringLiteral("name"), meta.value(QStringLiteral("name")).toString() + QStringLiteral("-x7k2p"));
                meta.insert(QStringLiteral("creationTimestamp"), QStringLiteral("2026-11-29T17:59:00Z"));
                pod.insert(QStringLiteral("metadata"), meta);
            }
            pods.append(pod);
        }
        c.kubePods = kubeList(QStringLiteral("PodList"), pods);
        const SnapshotPtr s = buildSnapshot(c);
        QVERIFY2(s->errors.isEmpty(), qPrintable(s->errors.join(u'\n')));

        const Slice &slice = sliceNamed(*s, QStringLiteral("tpu-0"));
        QCOMPARE(slice.hostCount(), 4);
        const Host &h = slice.hosts[2];
        QVERIFY(h.pod >= 0);
        QCOMPARE(s->pods[h.pod].podIp, podIp);
        QCOMPARE(h.state, state);
        const QString nodeId = h.rayNode >= 0 ? s->rayNodes[h.rayNode].id : QString();
        QCOMPARE(nodeId, rayNode == QLatin1String("dead") ? deadId : rayNode == QLatin1String("new") ? newId
                                                                                                     : QString());
        for (int w : {0, 1, 3})
            QCOMPARE(slice.hosts[w].state, HostState::Alive);

        // The `inspect --json` host (docs/architecture.md): the same keys whatever the state, and
        // the host's Ray node and IP are its own pod's, never the replaced pod's.
        const QJsonArray slices = inspectJson(*s).value(QStringLiteral("slices")).toArray();
        QJsonObject hostJson;
        for (const QJsonValue &v : slices)
            if (v.toObject().value(QStringLiteral("name")).toString() == QLatin1String("tpu-0"))
                hostJson = v.toObject().value(QStringLiteral("hosts")).toArray().at(2).toObject();
        QCOMPARE(hostJson.keys(), inspectJson(*s).value(QStringLiteral("slices")).toArray().at(0).toObject().value(QStringLiteral("hosts")).toArray().at(0).toObject().keys());
        QCOMPARE(hostJson.value(QStringLiteral("state")).toString(), toText(state));
        QCOMPARE(hostJson.value(QStringLiteral("rayNodeId")), nodeId.isEmpty() ? QJsonValue() : QJsonValue(nodeId));
        if (state != HostState::Dead)
            QCOMPARE(hostJson.value(QStringLiteral("nodeIp")).toString(), podIp);

        const QString problems = slice.problems.join(u';');
        switch (state) {
        case HostState::Pending:
            // Provisioning, not degraded; the dead node stays as evidence in the host's problem.
            QCOMPARE(slice.status(), SliceStatus::Provisioning);
            QVERIFY2(problems.startsWith(QStringLiteral("worker 2 is PENDING (pod Running): it replaces worker 2's pod whose Ray node %1 (10.1.0.3) died: "
                                                        "Expected termination: received SIGTERM")
                                             .arg(deadId.left(12))),
                     qPrintable(problems));
            QVERIFY(!problems.contains(QLatin1String("DEAD")));
            break;
        case HostState::Alive:
            QVERIFY(slice.intact);
            QVERIFY2(slice.problems.isEmpty(), qPrintable(problems));
            break;
        default:
            QCOMPARE(slice.status(), SliceStatus::Degraded);
            QVERIFY2(problems.startsWith(QLatin1String("worker 2 is DEAD")), qPrintable(problems));
            QVERIFY(!problems.contains(QLatin1String("replaces")));
            break;
        }
    }

    void workerIdsOutsideTheTopology_data()
    {
        QTest::addColumn<int>("workerId");
        QTest::newRow("one past the end") << 4;
        QTest::newRow("absurd") << 2147483000;
    }

    void workerIdsOutsideTheTopology()
    {
        QFETCH(int, workerId);
        CaptureBuilder b;
        const QStringList ids = b.addSlice({QStringLiteral("s-0"), QStringLiteral("TPU-V6E"), QStringLiteral("v6e-16"), QStringLiteral("4x4"), QString(), 4, 4, {}, {}, {}, {}});
        Capture c = b.capture(false);
        // Relabel worker 3 with an id the 4-host topology does not have.
        c.rayNodes.replace(QByteArray("\"ray.io/tpu-worker-id\":\"3\""), QByteArray("\"ray.io/tpu-worker-id\":\"") + QByteArray::number(workerId) + '"');
        QVERIFY(c.rayNodes.contains(QByteArray::number(workerId)));
        const SnapshotPtr s = buildSnapshot(c);
        const Slice &slice = sliceNamed(*s, QStringLiteral("s-0"));
        QCOMPARE(slice.hostCount(), 4); // listed by the topology, never sized by a bad id
        QCOMPARE(slice.hosts[3].state, HostState::Missing);
        QVERIFY(!slice.intact);
        QVERIFY2(slice.problems.join(u';').contains(QString::number(workerId)), qPrintable(slice.problems.join(u';')));
        QVERIFY2(s->warnings.join(u';').contains(QStringLiteral("worker id %1").arg(workerId)), qPrintable(s->warnings.join(u';')));
    }
};

QTEST_GUILESS_MAIN(TestJoining)
#include "tst_joining.moc"
