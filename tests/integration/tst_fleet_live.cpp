// SPDX-License-Identifier: GPL-3.0-or-later
// Every RayCluster's own Ray view (issue 16), against real peers: the real API server of
// kube-harness.sh holds RayClusters in three namespaces; two of them have a head service, each
// reached through the API server's service proxy, behind which answer two real Ray heads (the full
// Ray harness, SLICESCOPE_RAY_DIR, and a second, small one started with SLICESCOPE_RAY_FLEET=small,
// SLICESCOPE_RAY2_DIR). Both Rays have a slice named tpu-v6e-2x4-0: two slices, never one. A placement
// group made on the second Ray lands on that cluster's slice only; the second head becoming
// unreachable degrades that cluster alone, and its return is seen.
//
// As in tst_kube_ray_live: no kubelet or endpoint controller runs for these namespaces (the
// RayClusters are managed by "another controller", so KubeRay leaves them be); the test makes each
// head pod Running with this machine's address and names it in an EndpointSlice, and a forwarder
// on that address carries the bytes to the Ray harness on 127.0.0.1.

#include "../common/kubefixture.h"
#include "../common/kubeharness.h"
#include "../common/rayharness.h"
#include "../common/tcpforwarder.h"
#include "fleetsource.h"
#include "kubeconfig.h"
#include "kubesource.h"
#include "snapshot.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkInterface>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace slicescope;
using namespace slicescope::testing;

namespace {

QHostAddress interfaceAddress()
{
    for (const QHostAddress &a : QNetworkInterface::allAddresses())
        if (a.protocol() == QAbstractSocket::IPv4Protocol && !a.isLoopback() && !a.isLinkLocal()) return a;
    return {};
}

// A RayCluster whose head answers at ip:port (a forwarder), as KubeRay leaves it once the head is up.
QString setUpCluster(KubeFixture &fx, const QString &ns, const QString &name, const QHostAddress &ip, quint16 port, bool withHead)
{
    if (!fx.createNamespace(ns).ok()) return QStringLiteral("namespace %1 not created").arg(ns);
    const kube::WorkerGroup group{QStringLiteral("v6e"), kube::v6e, QStringLiteral("2x4"), 8, 1, 1, 0, 2};
    if (const KubeResponse r = fx.createRayCluster(ns, name, {group}, false, QStringLiteral("kueue.x-k8s.io/multikueue")); !r.ok()) return r.describe();
    if (!withHead) return {};
    const KubeResponse head = fx.createHeadPod(ns, name);
    if (!head.ok()) return head.describe();
    if (const KubeResponse r = fx.setPodRunning(ns, head.name(), ip.toString()); !r.ok()) return r.describe();
    if (const KubeResponse r = fx.createHeadService(ns, name); !r.ok()) return r.describe();
    const QJsonObject slice{
        {QStringLiteral("apiVersion"), QStringLiteral("discovery.k8s.io/v1")},
        {QStringLiteral("kind"), QStringLiteral("EndpointSlice")},
        {QStringLiteral("metadata"), QJsonObject{{QStringLiteral("name"), name + QStringLiteral("-head-svc-x")},
                                                 {QStringLiteral("labels"), QJsonObject{{QStringLiteral("kubernetes.io/service-name"), KubeFixture::headServiceName(name)}}}}},
        {QStringLiteral("addressType"), QStringLiteral("IPv4")},
        {QStringLiteral("endpoints"), QJsonArray{QJsonObject{{QStringLiteral("addresses"), QJsonArray{ip.toString()}},
                                                             {QStringLiteral("conditions"), QJsonObject{{QStringLiteral("ready"), true}}},
                                                             {QStringLiteral("targetRef"), QJsonObject{{QStringLiteral("kind"), QStringLiteral("Pod")},
                                                                                                       {QStringLiteral("name"), head.name()},
                                                                                                       {QStringLiteral("namespace"), ns}}}}}},
        {QStringLiteral("ports"), QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("dashboard")}, {QStringLiteral("port"), int(port)}, {QStringLiteral("protocol"), QStringLiteral("TCP")}}}},
    };
    if (const KubeResponse r = fx.post(QStringLiteral("/apis/discovery.k8s.io/v1/namespaces/%1/endpointslices").arg(ns), slice); !r.ok()) return r.describe();
    const KubeResponse status = fx.setRayClusterStatus(
        ns, name,
        QJsonObject{{QStringLiteral("state"), QStringLiteral("ready")},
                    {QStringLiteral("head"), QJsonObject{{QStringLiteral("serviceName"), KubeFixture::headServiceName(name)}}},
                    {QStringLiteral("endpoints"), QJsonObject{{QStringLiteral("dashboard"), QStringLiteral("8265")}}}});
    return status.ok() ? QString() : status.describe();
}

const RayViewState *viewOf(const ClusterSnapshot &s, const QString &cluster)
{
    for (const RayViewState &v : s.rayViews)
        if (v.cluster == cluster) return &v;
    return nullptr;
}

QStringList slicesOf(const ClusterSnapshot &s, const QString &cluster)
{
    QStringList out;
    for (const Slice &slice : s.slices)
        if (slice.rayCluster == cluster) out << slice.name;
    return out;
}

// Runs the CLI without blocking this test's event loop (the forwarders live on it).
struct CliResult {
    int exitCode = -1;
    QByteArray out, err;
};
CliResult runCli(const QStringList &arguments, const QByteArray &rayToken = {})
{
    QProcess cli;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("RAY_ADDRESS"));
    if (!rayToken.isEmpty()) env.insert(QStringLiteral("RAY_AUTH_TOKEN"), QString::fromUtf8(rayToken));
    cli.setProcessEnvironment(env);
    cli.start(QStringLiteral(SLICESCOPE_BINARY), arguments);
    if (!QTest::qWaitFor([&] { return cli.state() == QProcess::NotRunning; }, 120000)) {
        cli.kill();
        cli.waitForFinished(5000);
    }
    return {cli.exitStatus() == QProcess::NormalExit ? cli.exitCode() : -1, cli.readAllStandardOutput(), cli.readAllStandardError()};
}

} // namespace

class TestFleetLive : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyRayClusterHasItsOwnRay()
    {
        KubeHarness kh;
        SLICESCOPE_FIND_KUBE_HARNESS(kh);
        RayHarness ray1;
        SLICESCOPE_FIND_RAY_HARNESS(ray1);
        const QString dir2 = qEnvironmentVariable("SLICESCOPE_RAY2_DIR");
        QVERIFY2(!dir2.isEmpty(), "SLICESCOPE_RAY2_DIR is not set: the second, small Ray of the fleet tests "
                                  "(SLICESCOPE_RAY_FLEET=small tests/integration/ray-harness.sh up DIR; tests/run-all.sh starts it)");
        RayHarness ray2{dir2, QString::fromUtf8(readFile(dir2 + QStringLiteral("/dashboard-url"))), dir2 + QStringLiteral("/token"), readFile(dir2 + QStringLiteral("/token"))};
        QVERIFY2(!ray2.url.isEmpty() && !ray2.token.isEmpty(), qPrintable(dir2 + QStringLiteral(" holds no dashboard-url or token: is the second Ray up?")));
        // One Ray token reaches every RayCluster's dashboard (RAY_AUTH_TOKEN / --ray-token-file): the
        // second harness shares the first one's.
        QVERIFY2(ray1.token == ray2.token, "the two Ray harnesses have different tokens: start the second with SLICESCOPE_RAY_TOKEN_FROM=DIR1/token");

        const QHostAddress ip = interfaceAddress();
        QVERIFY2(!ip.isNull(), "this machine has no non-loopback IPv4 address for the head pods");
        TcpForwarder toRay1(QHostAddress::LocalHost, quint16(QUrl(ray1.url).port()));
        TcpForwarder toRay2(QHostAddress::LocalHost, quint16(QUrl(ray2.url).port()));
        QVERIFY(toRay1.listen(ip));
        QVERIFY(toRay2.listen(ip));
        const quint16 port2 = toRay2.serverPort();

        KubeFixture fx(kh);
        const QString nsA = KubeFixture::uniqueNamespace(QStringLiteral("fleet-a")), nsB = KubeFixture::uniqueNamespace(QStringLiteral("fleet-b")),
                      nsC = KubeFixture::uniqueNamespace(QStringLiteral("fleet-c"));
        const QString alpha = nsA + QStringLiteral("/alpha"), beta = nsB + QStringLiteral("/beta");
        QString problem = setUpCluster(fx, nsA, QStringLiteral("alpha"), ip, toRay1.serverPort(), true);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        problem = setUpCluster(fx, nsB, QStringLiteral("beta"), ip, port2, true);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        problem = setUpCluster(fx, nsC, QStringLiteral("gamma"), ip, 0, false); // no head: no Ray view
        QVERIFY2(problem.isEmpty(), qPrintable(problem));

        KubeConfig config;
        QVERIFY(loadKubeConfig({kh.kubeconfig}, {}, {}, config).isEmpty());
        KubeSourceOptions options;
        options.allNamespaces = true;
        options.rayToken = {ray1.token, QStringLiteral("the Ray harness")};
        KubeSource source(config, options);
        SnapshotPtr snap;
        connect(&source, &Source::captureReceived, this, [&](const Capture &c) { snap = buildSnapshot(c); });
        source.start();
        auto answered = [&](const QString &cluster) {
            const RayViewState *v = snap ? viewOf(*snap, cluster) : nullptr;
            return v && v->answered && v->error.isEmpty();
        };
        QTRY_VERIFY2_WITH_TIMEOUT(answered(alpha) && answered(beta), qPrintable(source.description()), 30000);
        QVERIFY(!viewOf(*snap, nsC + QStringLiteral("/gamma")));
        // (Other tests' RayClusters may be in the harness too: the count of answering views is theirs as well.)
        QVERIFY2(source.description().contains(QStringLiteral(" answering (service proxy)")), qPrintable(source.description()));

        // Each Ray's slices belong to its own cluster; the name both Rays use is two slices.
        const QStringList ofAlpha = slicesOf(*snap, alpha), ofBeta = slicesOf(*snap, beta);
        QCOMPARE(ofAlpha.size(), 4);
        QCOMPARE(ofBeta, QStringList{beta + QStringLiteral("/tpu-v6e-2x4-0")});
        QVERIFY2(ofAlpha.contains(alpha + QStringLiteral("/tpu-v6e-2x4-0")), qPrintable(ofAlpha.join(u' ')));
        QStringList alphaRayNames; // as Ray names them (a slice whose name repeats elsewhere is qualified)
        for (const Slice &slice : snap->slices)
            if (slice.rayCluster == alpha) alphaRayNames << (slice.rayName.isEmpty() ? slice.name : slice.rayName);
        alphaRayNames.sort();
        QCOMPARE(alphaRayNames, (QStringList{QStringLiteral("tpu-v4-2x2x2-0"), QStringLiteral("tpu-v6e-2x4-0"), QStringLiteral("tpu-v6e-4x4-0"), QStringLiteral("tpu-v6e-4x4-1")}));
        const int alphaSmall = snap->sliceIndex(QString(alpha + QStringLiteral("/tpu-v6e-2x4-0")));
        const int betaSmall = snap->sliceIndex(QString(beta + QStringLiteral("/tpu-v6e-2x4-0")));
        QVERIFY(alphaSmall >= 0 && betaSmall >= 0);
        QCOMPARE(snap->slices[betaSmall].rayName, QStringLiteral("tpu-v6e-2x4-0"));
        QCOMPARE(snap->slices[betaSmall].context, config.contextName);
        const int alphaReservedBefore = snap->slices[alphaSmall].reservedChips;
        QCOMPARE(snap->slices[betaSmall].reservedChips, 0);

        // A placement group made on the second Ray appears on beta's slice only.
        const QString pgName = QStringLiteral("fleet-%1").arg(QRandomGenerator::global()->bounded(0x10000, 0xfffff), 0, 16);
        CliResult submit = runCli({QStringLiteral("submit-slice-pg"), QStringLiteral("--ray"), ray2.url, QStringLiteral("--topology"), QStringLiteral("2x4"),
                                   QStringLiteral("--accelerator"), QStringLiteral("v6e"), QStringLiteral("--name"), pgName, QStringLiteral("--detached"), QStringLiteral("--json")},
                                  ray2.token);
        QVERIFY2(submit.exitCode == 0, submit.err.constData());
        auto heldBy = [&](int slice) {
            return snap && slice < snap->slices.size() ? snap->slices[slice].reservedChips : -1;
        };
        QTRY_VERIFY2_WITH_TIMEOUT(snap->sliceIndex(QString(beta + QStringLiteral("/tpu-v6e-2x4-0"))) >= 0
                                      && snap->slices[snap->sliceIndex(QString(beta + QStringLiteral("/tpu-v6e-2x4-0")))].reservedChips == 8,
                                  "the second Ray's group never showed on beta's slice", 30000);
        const int pg = snap->placementGroupIndex(pgName);
        QVERIFY(pg >= 0);
        QCOMPARE(snap->placementGroups[pg].rayCluster, beta);
        QCOMPARE(snap->placementGroups[pg].slices, QStringList{beta + QStringLiteral("/tpu-v6e-2x4-0")});
        QCOMPARE(heldBy(snap->sliceIndex(QString(alpha + QStringLiteral("/tpu-v6e-2x4-0")))), alphaReservedBefore);

        // The second head unreachable: beta's view says so; alpha's stays live; beta's slice stays
        // (its last bodies) with the reason. Then it returns.
        toRay2.close();
        toRay2.cutAll();
        QTRY_VERIFY2_WITH_TIMEOUT(snap && viewOf(*snap, beta) && !viewOf(*snap, beta)->error.isEmpty(), "beta's Ray never showed as unreachable", 30000);
        QVERIFY(answered(alpha));
        QVERIFY(snap->sliceIndex(QString(beta + QStringLiteral("/tpu-v6e-2x4-0"))) >= 0);
        QCOMPARE(slicesOf(*snap, alpha).size(), 4);
        QVERIFY2(snap->warnings.join(u'\n').contains(QStringLiteral("RayCluster ") + beta), qPrintable(snap->warnings.join(u'\n')));
        qInfo("fleet: beta unreachable: %s", qPrintable(viewOf(*snap, beta)->error));
        QElapsedTimer back;
        back.start();
        QVERIFY(toRay2.listen(ip, port2));
        QTRY_VERIFY2_WITH_TIMEOUT(answered(beta), "beta's Ray did not come back", 45000);
        qInfo("fleet: beta answered again %lld ms after its head returned", back.elapsed());

        // The CLI: every namespace, each slice with its context and cluster.
        const CliResult inspect = runCli({QStringLiteral("inspect"), QStringLiteral("--kubeconfig"), kh.kubeconfig, QStringLiteral("--all-namespaces"), QStringLiteral("--json")}, ray1.token);
        QVERIFY2(inspect.exitCode == 0, inspect.err.constData());
        const QJsonObject doc = QJsonDocument::fromJson(inspect.out).object();
        QHash<QString, QString> clusterOf;
        for (const QJsonValue &v : doc.value(QLatin1String("slices")).toArray())
            clusterOf.insert(v.toObject().value(QLatin1String("name")).toString(), v.toObject().value(QLatin1String("rayCluster")).toString());
        QCOMPARE(clusterOf.value(beta + QStringLiteral("/tpu-v6e-2x4-0")), beta);
        QCOMPARE(clusterOf.value(alpha + QStringLiteral("/tpu-v6e-2x4-0")), alpha);
        QVERIFY(clusterOf.values().count(alpha) == 4);
        bool pgListed = false;
        for (const QJsonValue &v : doc.value(QLatin1String("placementGroups")).toArray())
            if (v.toObject().value(QLatin1String("name")).toString() == pgName) {
                pgListed = true;
                QCOMPARE(v.toObject().value(QLatin1String("rayCluster")).toString(), beta);
            }
        QVERIFY(pgListed);

        const CliResult release = runCli({QStringLiteral("release-pg"), QStringLiteral("--ray"), ray2.url, pgName, QStringLiteral("--json")}, ray2.token);
        QVERIFY2(release.exitCode == 0, release.err.constData());
        source.stop();
    }

    // Two real API servers as two contexts of one kubeconfig, with different users: one fleet, each
    // slice with its context, and one API server going away degrades that context alone.
    void severalContextsAtOnce()
    {
        KubeHarness kh1;
        SLICESCOPE_FIND_KUBE_HARNESS(kh1);
        RayHarness ray1;
        SLICESCOPE_FIND_RAY_HARNESS(ray1);
        const QString dir2 = qEnvironmentVariable("SLICESCOPE_KUBE2_DIR");
        QVERIFY2(!dir2.isEmpty(), "SLICESCOPE_KUBE2_DIR is not set: the second API server of the fleet tests "
                                  "(SLICESCOPE_KUBE_OPERATOR=0 tests/integration/kube-harness.sh up DIR; tests/run-all.sh starts it)");
        KubeHarness kh2;
        kh2.dir = dir2;
        kh2.server = QString::fromUtf8(readFile(kh2.file(QStringLiteral("server-url"))));
        kh2.caFile = kh2.file(QStringLiteral("ca.crt"));
        kh2.adminToken = readFile(kh2.file(QStringLiteral("admin-token")));
        kh2.kubeconfig = kh2.file(QStringLiteral("kubeconfig"));
        QVERIFY2(!kh2.server.isEmpty() && !kh2.adminToken.isEmpty(), qPrintable(dir2 + QStringLiteral(" holds no server-url or admin-token: is the second API server up?")));
        const QString dirRay2 = qEnvironmentVariable("SLICESCOPE_RAY2_DIR");
        QVERIFY2(!dirRay2.isEmpty(), "SLICESCOPE_RAY2_DIR is not set");
        const QString ray2Url = QString::fromUtf8(readFile(dirRay2 + QStringLiteral("/dashboard-url")));

        const QHostAddress ip = interfaceAddress();
        QVERIFY(!ip.isNull());
        TcpForwarder toRay1(QHostAddress::LocalHost, quint16(QUrl(ray1.url).port()));
        TcpForwarder toRay2(QHostAddress::LocalHost, quint16(QUrl(ray2Url).port()));
        QVERIFY(toRay1.listen(ip));
        QVERIFY(toRay2.listen(ip));
        // The second API server behind a forwarder, so the test can take it away and bring it back.
        TcpForwarder toServer2(QHostAddress::LocalHost, quint16(QUrl(kh2.server).port()));
        QVERIFY(toServer2.listen(QHostAddress::LocalHost));
        const quint16 server2Port = toServer2.serverPort();

        KubeFixture fx1(kh1), fx2(kh2);
        const QString ns1 = KubeFixture::uniqueNamespace(QStringLiteral("ctx-one")), ns2 = KubeFixture::uniqueNamespace(QStringLiteral("ctx-two"));
        QString problem = setUpCluster(fx1, ns1, QStringLiteral("tpu"), ip, toRay1.serverPort(), true);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        problem = setUpCluster(fx2, ns2, QStringLiteral("tpu"), ip, toRay2.serverPort(), true); // the same cluster name in both
        QVERIFY2(problem.isEmpty(), qPrintable(problem));

        // One kubeconfig, two contexts, two users.
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString kubeconfig = tmp.filePath(QStringLiteral("fleet-kubeconfig"));
        {
            QFile f(kubeconfig);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QStringLiteral("apiVersion: v1\nkind: Config\ncurrent-context: one\n"
                                   "clusters:\n"
                                   "- name: one\n  cluster:\n    server: %1\n    certificate-authority: %2\n"
                                   "- name: two\n  cluster:\n    server: https://127.0.0.1:%3\n    certificate-authority: %4\n"
                                   "users:\n- name: admin-one\n  user:\n    token: %5\n- name: admin-two\n  user:\n    token: %6\n"
                                   "contexts:\n"
                                   "- name: one\n  context:\n    cluster: one\n    user: admin-one\n    namespace: default\n"
                                   "- name: two\n  context:\n    cluster: two\n    user: admin-two\n    namespace: default\n")
                        .arg(kh1.server, kh1.caFile)
                        .arg(server2Port)
                        .arg(kh2.caFile, QString::fromUtf8(kh1.adminToken), QString::fromUtf8(kh2.adminToken))
                        .toUtf8());
        }

        // The CLI over both contexts.
        const CliResult inspect = runCli({QStringLiteral("inspect"), QStringLiteral("--kubeconfig"), kubeconfig, QStringLiteral("--all-contexts"), QStringLiteral("--all-namespaces"),
                                          QStringLiteral("--json")},
                                         ray1.token);
        QVERIFY2(inspect.exitCode == 0, inspect.err.constData());
        const QJsonObject doc = QJsonDocument::fromJson(inspect.out).object();
        QCOMPARE(doc.value(QLatin1String("contexts")).toArray().size(), 2);
        // Each context's own cluster: its slices carry that context and cluster (other tests' clusters
        // may be in the first API server's namespaces too).
        QHash<QString, QStringList> byContext;
        for (const QJsonValue &v : doc.value(QLatin1String("slices")).toArray()) {
            const QJsonObject slice = v.toObject();
            const QString context = slice.value(QLatin1String("context")).toString(), cluster = slice.value(QLatin1String("rayCluster")).toString();
            if (cluster == ns1 + QStringLiteral("/tpu") || cluster == ns2 + QStringLiteral("/tpu")) {
                QCOMPARE(context, cluster.startsWith(ns1) ? QStringLiteral("one") : QStringLiteral("two"));
                byContext[context] << slice.value(QLatin1String("name")).toString();
            }
        }
        QVERIFY2(byContext.value(QStringLiteral("one")).size() == 4, qPrintable(byContext.value(QStringLiteral("one")).join(u' ')));
        QVERIFY2(byContext.value(QStringLiteral("two")).size() == 1, qPrintable(byContext.value(QStringLiteral("two")).join(u' ')));
        // tpu-v6e-2x4-0 is in both contexts' Rays: two slices, each named by its cluster, never merged.
        QVERIFY2(byContext.value(QStringLiteral("two")).contains(QStringLiteral("%1/tpu/tpu-v6e-2x4-0").arg(ns2)), qPrintable(byContext.value(QStringLiteral("two")).join(u' ')));
        QVERIFY2(byContext.value(QStringLiteral("one")).contains(QStringLiteral("%1/tpu/tpu-v6e-2x4-0").arg(ns1)), qPrintable(byContext.value(QStringLiteral("one")).join(u' ')));

        // A fleet recorded, then read offline: the same contexts and slices.
        const QString recording = tmp.filePath(QStringLiteral("fleet.slicescope.jsonl"));
        const CliResult record = runCli({QStringLiteral("record"), QStringLiteral("--kubeconfig"), kubeconfig, QStringLiteral("--all-contexts"), QStringLiteral("--all-namespaces"),
                                         QStringLiteral("--interval"), QStringLiteral("1s"), QStringLiteral("--duration"), QStringLiteral("3s"), QStringLiteral("-o"), recording},
                                        ray1.token);
        QVERIFY2(record.exitCode == 0, record.err.constData());
        const CliResult offline = runCli({QStringLiteral("inspect"), QStringLiteral("--capture"), recording, QStringLiteral("--json")});
        QVERIFY2(offline.exitCode == 0, offline.err.constData());
        const QJsonObject replayed = QJsonDocument::fromJson(offline.out).object();
        QCOMPARE(replayed.value(QLatin1String("contexts")).toArray().size(), 2);
        QCOMPARE(replayed.value(QLatin1String("slices")).toArray().size(), doc.value(QLatin1String("slices")).toArray().size());

        // In process: the second API server goes away; context one stays live and two says why.
        std::vector<std::unique_ptr<KubeSource>> contexts;
        for (const QString &name : {QStringLiteral("one"), QStringLiteral("two")}) {
            KubeConfig config;
            QVERIFY(loadKubeConfig({kubeconfig}, name, {}, config).isEmpty());
            KubeSourceOptions options;
            options.allNamespaces = true;
            options.rayToken = {ray1.token, QStringLiteral("the Ray harness")};
            contexts.push_back(std::make_unique<KubeSource>(config, options));
        }
        auto fleet = std::make_unique<FleetSource>(std::move(contexts));
        SnapshotPtr snap;
        connect(fleet.get(), &Source::captureReceived, this, [&](const Capture &c) { snap = buildSnapshot(c); });
        fleet->start();
        auto contextError = [&](const QString &context) -> QString {
            if (!snap) return QStringLiteral("(no snapshot)");
            for (const ContextState &c : snap->contextStates)
                if (c.context == context) return c.error;
            return QStringLiteral("(not listed)");
        };
        QTRY_VERIFY_WITH_TIMEOUT(snap && snap->contexts.size() == 2 && contextError(QStringLiteral("one")).isEmpty() && contextError(QStringLiteral("two")).isEmpty(), 30000);
        const qsizetype slicesBefore = snap->slices.size();
        toServer2.close();
        toServer2.cutAll();
        QTRY_VERIFY2_WITH_TIMEOUT(!contextError(QStringLiteral("two")).isEmpty(), "the second context never showed as down", 30000);
        qInfo("fleet: context two down: %s", qPrintable(contextError(QStringLiteral("two"))));
        QVERIFY(contextError(QStringLiteral("one")).isEmpty());
        QCOMPARE(snap->slices.size(), slicesBefore); // its last bodies stay, with the reason
        QElapsedTimer back;
        back.start();
        QVERIFY(toServer2.listen(QHostAddress::LocalHost, server2Port));
        QTRY_VERIFY2_WITH_TIMEOUT(contextError(QStringLiteral("two")).isEmpty(), "the second context did not come back", 60000);
        qInfo("fleet: context two answered again %lld ms after its API server returned", back.elapsed());
    }
};

QTEST_GUILESS_MAIN(TestFleetLive)
#include "tst_fleet_live.moc"
