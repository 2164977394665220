// SPDX-License-Identifier: GPL-3.0-or-later
// A kubeconfig alone gives both views: the RayCluster's head service is reached through the real
// API server's service proxy (docs/facts.md 4.3), and behind it answers the real Ray of ray-harness.sh.
// Needs both harnesses (SLICESCOPE_KUBE_DIR and SLICESCOPE_RAY_DIR).
//
// Without kubelet and endpoint controllers the test does their part: the head pod is Running with
// an IP of this machine, and an EndpointSlice names it. The API server proxies only to pod IPs
// that are not loopback, and the Ray harness listens on 127.0.0.1 only, so a forwarder on the
// interface address carries the bytes to the real dashboard.

#include "../common/kubefixture.h"
#include "../common/kubeharness.h"
#include "../common/rayharness.h"
#include "../common/tcpforwarder.h"
#include "kubeconfig.h"
#include "kubesource.h"
#include "snapshot.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QNetworkInterface>
#include <QSignalSpy>
#include <QTest>

using namespace slicescope;
using namespace slicescope::testing;

class TestKubeRayLive : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void rayThroughTheServiceProxy()
    {
        KubeHarness kh;
        SLICESCOPE_FIND_KUBE_HARNESS(kh);
        RayHarness rh;
        SLICESCOPE_FIND_RAY_HARNESS(rh);

        QHostAddress ip;
        for (const QHostAddress &a : QNetworkInterface::allAddresses())
            if (a.protocol() == QAbstractSocket::IPv4Protocol && !a.isLoopback() && !a.isLinkLocal()) {
                ip = a;
                break;
            }
        QVERIFY2(!ip.isNull(), "this machine has no non-loopback IPv4 address for the head pod");
        TcpForwarder dashboard(QHostAddress::LocalHost, quint16(QUrl(rh.url).port()));
        QVERIFY(dashboard.listen(ip));

        KubeFixture fx(kh);
        const QString ns = KubeFixture::uniqueNamespace(QStringLiteral("proxy"));
        QVERIFY(fx.createNamespace(ns).ok());
        const kube::WorkerGroup group{QStringLiteral("v6e"), kube::v6e, QStringLiteral("4x4"), 4, 4, 2, 0, 4};
        QVERIFY(fx.createRayCluster(ns, QStringLiteral("ray"), {group}, false, QStringLiteral("kueue.x-k8s.io/multikueue")).ok());
        const KubeResponse head = fx.createHeadPod(ns, QStringLiteral("ray"));
        QVERIFY2(head.ok(), qPrintable(head.describe()));
        QVERIFY(fx.setPodRunning(ns, head.name(), ip.toString()).ok());
        QVERIFY(fx.createHeadService(ns, QStringLiteral("ray")).ok());
        const QJsonObject slice{
            {QStringLiteral("apiVersion"), QStringLiteral("discovery.k8s.io/v1")},
            {QStringLiteral("kind"), QStringLiteral("EndpointSlice")},
            {QStringLiteral("metadata"), QJsonObject{{QStringLiteral("name"), QStringLiteral("ray-head-svc-x")},
                                                     {QStringLiteral("labels"), QJsonObject{{QStringLiteral("kubernetes.io/service-name"),
                                                                                             KubeFixture::headServiceName(QStringLiteral("ray"))}}}}},
            {QStringLiteral("addressType"), QStringLiteral("IPv4")},
            {QStringLiteral("endpoints"), QJsonArray{QJsonObject{
                                              {QStringLiteral("addresses"), QJsonArray{ip.toString()}},
                                              {QStringLiteral("conditions"), QJsonObject{{QStringLiteral("ready"), true}}},
                                              {QStringLiteral("targetRef"), QJsonObject{{QStringLiteral("kind"), QStringLiteral("Pod")},
                                                                                        {QStringLiteral("name"), head.name()},
                                                                                        {QStringLiteral("namespace"), ns}}}}}},
            {QStringLiteral("ports"), QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("dashboard")},
                                                             {QStringLiteral("port"), int(dashboard.serverPort())},
                                                             {QStringLiteral("protocol"), QStringLiteral("TCP")}}}},
        };
        const KubeResponse created = fx.post(QStringLiteral("/apis/discovery.k8s.io/v1/namespaces/%1/endpointslices").arg(ns), slice);
        QVERIFY2(created.ok(), qPrintable(created.describe()));
        // What KubeRay writes once the head is up.
        QVERIFY(fx.setRayClusterStatus(ns, QStringLiteral("ray"),
                                       QJsonObject{{QStringLiteral("state"), QStringLiteral("ready")},
                                                   {QStringLiteral("head"), QJsonObject{{QStringLiteral("serviceName"),
                                                                                         KubeFixture::headServiceName(QStringLiteral("ray"))}}},
                                                   {QStringLiteral("endpoints"), QJsonObject{{QStringLiteral("dashboard"), QStringLiteral("8265")}}}})
                    .ok());

        // In process: the source finds the head service and shows Ray's view next to Kubernetes'.
        KubeConfig config;
        QVERIFY(loadKubeConfig({kh.kubeconfig}, {}, ns, config).isEmpty());
        KubeSourceOptions options;
        options.rayToken = {rh.token, QStringLiteral("the Ray harness")};
        KubeSource source(config, options);
        QSignalSpy captures(&source, &Source::captureReceived);
        source.start();
        QTRY_VERIFY_WITH_TIMEOUT(!captures.isEmpty(), 20000);
        const Capture capture = captures.last().at(0).value<Capture>();
        QVERIFY2(capture.hasRay(), qPrintable(source.description()));
        QVERIFY2(source.description().contains(QStringLiteral("service proxy")), qPrintable(source.description()));
        const SnapshotPtr snap = buildSnapshot(capture);
        QVERIFY(snap->hasKubernetes);
        QVERIFY(snap->sliceIndex(u"tpu-v6e-4x4-0") >= 0);
        QCOMPARE(snap->slices[snap->sliceIndex(u"tpu-v6e-4x4-0")].hostCount(), 4);
        QVERIFY(!capture.rayNodes.contains(rh.token));

        // Through the CLI: the kubeconfig and Ray's token, no URL of the dashboard anywhere. (Run
        // without blocking: the forwarder lives on this test's event loop.)
        QProcess cli;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("RAY_ADDRESS"));
        env.insert(QStringLiteral("RAY_AUTH_TOKEN"), QString::fromUtf8(rh.token));
        cli.setProcessEnvironment(env);
        cli.start(QStringLiteral(SLICESCOPE_BINARY), {QStringLiteral("inspect"), QStringLiteral("--kubeconfig"), kh.kubeconfig,
                                                      QStringLiteral("-n"), ns, QStringLiteral("--json")});
        QTRY_VERIFY_WITH_TIMEOUT(cli.state() == QProcess::NotRunning, 60000);
        QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
        QStringList names;
        for (const QJsonValue &s : QJsonDocument::fromJson(cli.readAllStandardOutput()).object().value(QStringLiteral("slices")).toArray())
            names << s.toObject().value(QStringLiteral("name")).toString();
        QVERIFY2(names.contains(QStringLiteral("tpu-v4-2x2x2-0")) && names.contains(QStringLiteral("tpu-v6e-4x4-1")), qPrintable(names.join(u' ')));
        fx.deleteObject(QStringLiteral("/api/v1/namespaces/") + ns);
    }
};

QTEST_GUILESS_MAIN(TestKubeRayLive)
#include "tst_kube_ray_live.moc"
