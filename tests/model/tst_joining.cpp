// SPDX-License-Identifier: GPL-3.0-or-later
// Joining Ray and Kubernetes when the input is not one tidy cluster: several RayClusters in one
// Kubernetes capture (the Ray dashboard describes one of them), slice names reused across
// namespaces, and worker ids outside the topology.

#include "capturefixture.h"
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
