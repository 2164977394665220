// SPDX-License-Identifier: GPL-3.0-or-later
// SliceScope against a REAL Kubernetes API server (tests/integration/kube-harness.sh): kubeconfig
// auth (token, EC and RSA client certificates, exec plugin), RBAC, watch latency into the window,
// a cut watch stream, the scale verb, a concurrent writer between read and patch, and removing a
// chosen slice. The RayClusters here are marked managedBy MultiKueue so the harness's KubeRay
// operator leaves them alone and the test plays the operator (pods made and deleted by hand).

#include "../common/clirun.h"
#include "kubeclient.h"
#include "kubeclusteractions.h"
#include "kubeconfig.h"
#include "../common/kubefixture.h"
#include "../common/kubeharness.h"
#include "../common/tcpforwarder.h"
#include "kubescaler.h"
#include "kubesource.h"
#include "mainwindow.h"
#include "scaleplan.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QSignalSpy>
#include <QTest>

using namespace slicescope;
using namespace slicescope::testing;

namespace {

const QString kMulti = QStringLiteral("kueue.x-k8s.io/multikueue");

QStringList stringList(const QJsonValue &v)
{
    QStringList out;
    for (const QJsonValue &x : v.toArray())
        out << x.toString();
    return out;
}

} // namespace

class TestKubeLive : public QObject
{
    Q_OBJECT

    KubeHarness h;
    std::unique_ptr<KubeFixture> fx;
    QString ns;
    QStringList nodes;
    kube::WorkerGroup v6e{QStringLiteral("v6e"), kube::v6e, QStringLiteral("2x4"), 2, 4, 2, 1, 3};
    QHash<int, QStringList> slicePods; // replica index -> pod names of RayCluster "ray"
    int nextIp = 10;

    KubeConfig adminConfig()
    {
        KubeConfig c;
        if (const QString e = loadKubeConfig({h.kubeconfig}, {}, ns, c); !e.isEmpty())
            qWarning("%s", qPrintable(e));
        return c;
    }

    QStringList makeSlice(const QString &cluster, int replica)
    {
        QStringList sliceNodes, ips;
        for (int host = 0; host < v6e.numOfHosts; ++host) {
            const QString node = QStringLiteral("%1-%2-%3-%4").arg(ns, cluster).arg(replica).arg(host);
            const KubeResponse r = fx->createTpuNode(node, kube::v6e, QStringLiteral("2x4"), QStringLiteral("%1-pool-%2").arg(cluster).arg(replica), 4);
            if (!r.ok())
                qWarning("node: %s", qPrintable(r.describe()));
            nodes << node;
            sliceNodes << node;
            ips << QStringLiteral("10.77.%1.%2").arg(nextIp / 250).arg(nextIp % 250 + 1);
            ++nextIp;
        }
        QString error;
        const QStringList pods = fx->createRunningSlice(ns, cluster, v6e, replica, sliceNodes, ips, &error);
        if (pods.isEmpty())
            qWarning("slice: %s", qPrintable(error));
        return pods;
    }

    CliRun cli(QStringList args, const QString &kubeconfig = {})
    {
        args.insert(1, QStringLiteral("--kubeconfig"));
        args.insert(2, kubeconfig.isEmpty() ? h.kubeconfig : kubeconfig);
        args << QStringLiteral("-n") << ns;
        return runCli(args, {}, {}, 60000);
    }

private Q_SLOTS:
    void initTestCase()
    {
        SLICESCOPE_FIND_KUBE_HARNESS(h);
        fx = std::make_unique<KubeFixture>(h);
        ns = KubeFixture::uniqueNamespace(QStringLiteral("live"));
        QVERIFY2(fx->createNamespace(ns).ok(), "namespace");
        QVERIFY(fx->createRayCluster(ns, QStringLiteral("ray"), {v6e}, false, kMulti).ok());
        slicePods[0] = makeSlice(QStringLiteral("ray"), 0);
        slicePods[1] = makeSlice(QStringLiteral("ray"), 1);
        QCOMPARE(slicePods[1].size(), 2);
        kube::WorkerGroup autoGroup = v6e;
        autoGroup.replicas = 1;
        autoGroup.minReplicas = 0;
        autoGroup.maxReplicas = 2;
        QVERIFY(fx->createRayCluster(ns, QStringLiteral("auto"), {autoGroup}, true, kMulti).ok());
        QVERIFY(fx->createRayCluster(ns, QStringLiteral("cli"), {v6e}, false, kMulti).ok());
        QVERIFY(fx->createRayCluster(ns, QStringLiteral("race"), {v6e}, false, kMulti).ok());
    }

    void cleanupTestCase()
    {
        if (!fx)
            return;
        for (const QString &n : std::as_const(nodes))
            fx->deleteObject(kube::nodePath(n));
    }

    // The same server, four ways to prove who you are (docs/facts.md 4.3).
    void authenticates_data()
    {
        QTest::addColumn<QString>("kubeconfig");
        QTest::newRow("token") << QStringLiteral("kubeconfig");
        QTest::newRow("client certificate, EC key, relative paths") << QStringLiteral("kubeconfig-cert");
        QTest::newRow("client certificate, RSA key, inline data") << QStringLiteral("kubeconfig-cert-rsa");
        QTest::newRow("exec plugin v1") << QStringLiteral("kubeconfig-exec");
        QTest::newRow("viewer (read-only RBAC)") << QStringLiteral("kubeconfig-viewer");
    }
    void authenticates()
    {
        QFETCH(QString, kubeconfig);
        const auto runs = [this] {
            const QByteArray text = readFile(h.execPluginRuns);
            return text.isEmpty() ? 0 : int(text.count('\n')) + 1;
        };
        const int runsBefore = runs();
        const CliRun r = cli({QStringLiteral("inspect"), QStringLiteral("--json")}, h.file(kubeconfig));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject j = r.json();
        QJsonObject group;
        for (const QJsonValue &g : j.value(QStringLiteral("workerGroups")).toArray())
            if (g.toObject().value(QStringLiteral("cluster")).toString() == ns + QStringLiteral("/ray"))
                group = g.toObject();
        QCOMPARE(stringList(group.value(QStringLiteral("slices"))), (QStringList{QStringLiteral("v6e-0"), QStringLiteral("v6e-1")}));
        QVERIFY2(!r.err.contains(h.adminToken) && !r.out.contains(h.adminToken), "a token reached the output");
        if (kubeconfig == QLatin1String("kubeconfig-exec")) {
            // One process, one plugin run (cached for all three watches), asked non-interactively.
            QCOMPARE(runs() - runsBefore, 1);
            QVERIFY(readFile(h.execPluginInfo).contains("\"interactive\":false"));
        }
    }

    // A user who may read but not patch: told why, up front, and the patch is refused if tried.
    void rbacDisablesScaling()
    {
        KubeConfig viewer;
        QVERIFY(loadKubeConfig({h.kubeconfigViewer}, {}, ns, viewer).isEmpty());
        KubeSource viewerSource(viewer, {});
        KubeClusterActions viewerActions(&viewerSource);
        KubeSource adminSource(adminConfig(), {});
        KubeClusterActions adminActions(&adminSource);
        WorkerGroup g;
        g.ns = ns;
        QTRY_VERIFY_WITH_TIMEOUT(!viewerActions.scaleUnavailableReason(g).startsWith(QStringLiteral("checking")), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(!adminActions.scaleUnavailableReason(g).startsWith(QStringLiteral("checking")), 10000);
        const QString reason = viewerActions.scaleUnavailableReason(g);
        QVERIFY2(reason.contains(QStringLiteral("may not patch rayclusters.ray.io in namespace ") + ns) && reason.contains(QStringLiteral("RBAC")),
                 qPrintable(reason));
        QCOMPARE(adminActions.scaleUnavailableReason(g), QString());

        const CliRun r = cli({QStringLiteral("scale"), QStringLiteral("--cluster"), QStringLiteral("cli"), QStringLiteral("--group"),
                              QStringLiteral("v6e"), QStringLiteral("--replicas"), QStringLiteral("3"), QStringLiteral("--yes")},
                             h.kubeconfigViewer);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.lastErrLine().contains(QStringLiteral("403")), r.err.constData());
        QCOMPARE(fx->get(kube::rayClusterPath(ns, QStringLiteral("cli"))).json()[u"spec"][u"workerGroupSpecs"][0][u"replicas"].toInt(), 2);
    }

    // A change on the server reaches the window within a second (watch, not poll).
    void watchChangeReachesTheWindow()
    {
        auto source = std::make_unique<KubeSource>(adminConfig(), KubeSourceOptions{});
        KubeSource *src = source.get();
        MainWindow window(MainWindow::Mode::Screenshot);
        window.resize(1280, 800);
        window.setSource(std::move(source));
        QTRY_VERIFY_WITH_TIMEOUT(window.snapshot() && window.snapshot()->sliceIndex(u"v6e-1") >= 0, 10000);

        // A third slice starts provisioning: its first pod appears (Pending, no node).
        QElapsedTimer clock;
        clock.start();
        const KubeResponse created = fx->createWorkerPod(ns, QStringLiteral("ray"), v6e, 2, 0);
        QVERIFY(created.ok());
        const qint64 sent = clock.elapsed();
        QTRY_VERIFY_WITH_TIMEOUT(window.snapshot()->sliceIndex(u"v6e-2") >= 0, 5000);
        const qint64 seen = clock.elapsed();
        window.grab(); // the frame that shows it
        const qint64 drawn = clock.elapsed();
        qInfo("watch event to window snapshot %lld ms, to a drawn frame %lld ms (request itself %lld ms); %d captures",
              seen - sent, drawn - sent, sent, src->capturesEmitted());
        QVERIFY2(drawn - sent < 1000, "a watch change took a second or more to reach the screen");
        // With its second host's pod too (both Pending, no Ray node), the slice is being provisioned.
        const KubeResponse second = fx->createWorkerPod(ns, QStringLiteral("ray"), v6e, 2, 1);
        QVERIFY(second.ok());
        QTRY_COMPARE_WITH_TIMEOUT(window.snapshot()->slices[window.snapshot()->sliceIndex(u"v6e-2")].status(), SliceStatus::Provisioning, 5000);
        fx->deleteObject(kube::podPath(ns, created.name()));
        fx->deleteObject(kube::podPath(ns, second.name()));
        QTRY_VERIFY_WITH_TIMEOUT(window.snapshot()->sliceIndex(u"v6e-2") < 0, 5000);
    }

    // Cut every connection: the watches notice, resume from their resourceVersion, and a change
    // made while they were cut is not lost.
    void cutStreamIsNoticedAndRecovered()
    {
        const quint16 upstream = quint16(QUrl(h.server).port());
        TcpForwarder proxy(QHostAddress::LocalHost, upstream); // cuts on the wire; the peer is the real server
        QVERIFY(proxy.listen(QHostAddress::LocalHost));
        KubeConfig config = adminConfig();
        config.server.setPort(proxy.serverPort());
        KubeSource source(config, {});
        QSignalSpy captures(&source, &Source::captureReceived);
        QSignalSpy failures(&source, &Source::failed);
        QSignalSpy recoveries(&source, &KubeSource::watchRecovered);
        for (KubeWatch *w : {source.rayClusterWatch(), source.podWatch(), source.nodeWatch()})
            w->setRetryDelay(std::chrono::milliseconds(200));
        source.start();
        QTRY_VERIFY_WITH_TIMEOUT(captures.size() >= 1 && source.podWatch()->isWatching() && source.nodeWatch()->isWatching(), 10000);
        const QString rvBefore = source.podWatch()->lastResourceVersion();

        QElapsedTimer clock;
        clock.start();
        proxy.cutAll();
        QTRY_VERIFY_WITH_TIMEOUT(!failures.isEmpty(), 5000);
        const qint64 noticed = clock.elapsed();
        // Changed while the watch is down.
        const KubeResponse created = fx->createWorkerPod(ns, QStringLiteral("ray"), v6e, 2, 1);
        QVERIFY(created.ok());
        QTRY_VERIFY_WITH_TIMEOUT(recoveries.size() >= 3, 10000);
        const qint64 recovered = clock.elapsed();
        QVERIFY2(failures.first().at(0).toString().contains(QStringLiteral("cut")), qPrintable(failures.first().at(0).toString()));
        QTRY_VERIFY_WITH_TIMEOUT(buildSnapshot(captures.last().at(0).value<Capture>())->sliceIndex(u"v6e-2") >= 0, 5000);
        qInfo("cut noticed after %lld ms; all three watches streaming again after %lld ms; lists %d (no relist needed), watches %d",
              noticed, recovered, source.podWatch()->listCount(), source.podWatch()->watchCount());
        QCOMPARE(source.podWatch()->listCount(), 1); // resumed from %s, not relisted
        QVERIFY(rvBefore != source.podWatch()->lastResourceVersion());
        fx->deleteObject(kube::podPath(ns, created.name()));
    }

    void scaleVerb()
    {
        // Out of range: refused before anything is sent.
        CliRun r = cli({QStringLiteral("scale"), QStringLiteral("--cluster"), QStringLiteral("cli"), QStringLiteral("--group"),
                        QStringLiteral("v6e"), QStringLiteral("--replicas"), QStringLiteral("4"), QStringLiteral("--yes")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.lastErrLine().contains(QStringLiteral("outside minReplicas..maxReplicas (1..3)")), r.err.constData());
        // Without --yes: what would change, and nothing changes.
        r = cli({QStringLiteral("scale"), QStringLiteral("--cluster"), QStringLiteral("cli"), QStringLiteral("--group"),
                 QStringLiteral("v6e"), QStringLiteral("--replicas"), QStringLiteral("3"), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(r.json()[u"applied"].toBool(), false);
        QCOMPARE(r.json()[u"plan"][u"slicesAdded"].toInt(), 1);
        QVERIFY(r.err.contains("dry run"));
        QCOMPARE(fx->get(kube::rayClusterPath(ns, QStringLiteral("cli"))).json()[u"spec"][u"workerGroupSpecs"][0][u"replicas"].toInt(), 2);
        // Applied.
        r = cli({QStringLiteral("scale"), QStringLiteral("--cluster"), QStringLiteral("cli"), QStringLiteral("--group"),
                 QStringLiteral("v6e"), QStringLiteral("--replicas"), QStringLiteral("3"), QStringLiteral("--yes"), QStringLiteral("--wait"),
                 QStringLiteral("0"), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(r.json()[u"applied"].toBool(), true);
        const QJsonObject rc = fx->get(kube::rayClusterPath(ns, QStringLiteral("cli"))).json();
        QCOMPARE(rc[u"spec"][u"workerGroupSpecs"][0][u"replicas"].toInt(), 3);
        QCOMPARE(r.json()[u"outcome"][u"generation"].toInteger(), rc[u"metadata"][u"generation"].toInteger());

        // Autoscaled: replicas belongs to the autoscaler; the bounds can change.
        r = cli({QStringLiteral("scale"), QStringLiteral("--cluster"), QStringLiteral("auto"), QStringLiteral("--group"),
                 QStringLiteral("v6e"), QStringLiteral("--replicas"), QStringLiteral("2"), QStringLiteral("--yes")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.lastErrLine().contains(QStringLiteral("autoscaler")), r.err.constData());
        r = cli({QStringLiteral("scale"), QStringLiteral("--cluster"), QStringLiteral("auto"), QStringLiteral("--group"),
                 QStringLiteral("v6e"), QStringLiteral("--min"), QStringLiteral("1"), QStringLiteral("--max"), QStringLiteral("3"),
                 QStringLiteral("--yes"), QStringLiteral("--wait"), QStringLiteral("0")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject autoGroup = fx->get(kube::rayClusterPath(ns, QStringLiteral("auto"))).json()[u"spec"][u"workerGroupSpecs"][0].toObject();
        QCOMPARE(autoGroup[u"minReplicas"].toInt(), 1);
        QCOMPARE(autoGroup[u"maxReplicas"].toInt(), 3);
        QCOMPARE(autoGroup[u"replicas"].toInt(), 1); // untouched
    }

    // Someone writes between our read and our patch: the test ops make the server refuse ours,
    // theirs stays, and the outcome says what changed.
    void concurrentWriterIsNotOverwritten()
    {
        KubeSource source(adminConfig(), {});
        QSignalSpy captures(&source, &Source::captureReceived);
        source.start();
        QTRY_VERIFY_WITH_TIMEOUT(!captures.isEmpty(), 10000);
        const SnapshotPtr snap = buildSnapshot(captures.last().at(0).value<Capture>());
        const ScalePlan plan = planScale(*snap, {ScaleRequest::Mode::Replicas, ns + QStringLiteral("/race/v6e"), 1});
        QVERIFY2(plan.allowed, qPrintable(plan.refusal));

        KubeClient client(adminConfig());
        KubeScaler scaler(&client);
        bool wrote = false;
        connect(&scaler, &KubeScaler::progress, this, [&](const QString &text) {
            if (text.startsWith(QStringLiteral("patching")) && !wrote) {
                wrote = true; // the other writer, right between our read-back and our patch
                const KubeResponse r = fx->jsonPatch(kube::rayClusterPath(ns, QStringLiteral("race")),
                                                     QJsonArray{QJsonObject{{QStringLiteral("op"), QStringLiteral("replace")},
                                                                            {QStringLiteral("path"), QStringLiteral("/spec/workerGroupSpecs/0/replicas")},
                                                                            {QStringLiteral("value"), 3}}});
                QVERIFY(r.ok());
            }
        });
        QSignalSpy finished(&scaler, &KubeScaler::finished);
        scaler.run(plan, std::chrono::seconds(0));
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 10000);
        const ScaleOutcome outcome = finished.first().at(0).value<ScaleOutcome>();
        QVERIFY(wrote);
        QCOMPARE(outcome.result, ScaleOutcome::Result::Conflict);
        QCOMPARE(outcome.httpStatus, 422);
        QCOMPARE(outcome.changedSinceRead, QStringList{QStringLiteral("replicas 2 -> 3")});
        QCOMPARE(fx->get(kube::rayClusterPath(ns, QStringLiteral("race"))).json()[u"spec"][u"workerGroupSpecs"][0][u"replicas"].toInt(), 3);

        // The same stale plan again: caught by the read-back before any patch is sent.
        QSignalSpy again(&scaler, &KubeScaler::finished);
        scaler.run(plan, std::chrono::seconds(0));
        QTRY_VERIFY_WITH_TIMEOUT(!again.isEmpty(), 10000);
        const ScaleOutcome second = again.first().at(0).value<ScaleOutcome>();
        QCOMPARE(second.result, ScaleOutcome::Result::Conflict);
        QCOMPARE(second.httpStatus, 0);
        QVERIFY(second.message.contains(QStringLiteral("nothing was written")));
    }

    // With the real KubeRay operator (kube-harness.sh runs it, and a fake kubelet runs its pods):
    // `scale` reports the outcome it observed, pods appearing and going, not the one it hoped for.
    void operatorScalesThroughTheCli()
    {
        kube::WorkerGroup group = v6e;
        group.replicas = 1;
        QVERIFY(fx->createRayCluster(ns, QStringLiteral("op"), {group}).ok()); // no managedBy: KubeRay's
        const QString selector = QStringLiteral("?labelSelector=ray.io%2Fcluster%3Dop,ray.io%2Fnode-type%3Dworker");
        auto runningWorkers = [&] {
            int n = 0;
            for (const QJsonValue &p : fx->get(kube::podsPath(ns) + selector).json()[u"items"].toArray())
                n += p[u"status"][u"phase"].toString() == QLatin1String("Running") && !p[u"metadata"].toObject().contains(QStringLiteral("deletionTimestamp"));
            return n;
        };
        QTRY_COMPARE_WITH_TIMEOUT(runningWorkers(), 2, 20000);

        CliRun r = cli({QStringLiteral("scale"), QStringLiteral("--cluster"), QStringLiteral("op"), QStringLiteral("--group"),
                        QStringLiteral("v6e"), QStringLiteral("--replicas"), QStringLiteral("2"), QStringLiteral("--yes"),
                        QStringLiteral("--wait"), QStringLiteral("30"), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QJsonObject outcome = r.json()[u"outcome"].toObject();
        QVERIFY2(outcome[u"complete"].toBool(), QJsonDocument(outcome).toJson().constData());
        QCOMPARE(outcome[u"podsNow"].toInt(), 4);
        QVERIFY(outcome[u"observedGeneration"].toInteger() >= outcome[u"generation"].toInteger());
        qInfo("scale 1 -> 2 through KubeRay: observed complete after %lld ms", outcome[u"elapsedMs"].toInteger());
        QCOMPARE(runningWorkers(), 4);

        // Remove the first slice by name, as inspect shows it.
        r = cli({QStringLiteral("inspect"), QStringLiteral("--json")});
        QString first;
        for (const QJsonValue &g : r.json()[u"workerGroups"].toArray())
            if (g[u"cluster"].toString() == ns + QStringLiteral("/op"))
                first = g[u"slices"].toArray().at(0).toString();
        QVERIFY(!first.isEmpty());
        r = cli({QStringLiteral("scale"), QStringLiteral("--cluster"), QStringLiteral("op"), QStringLiteral("--group"),
                 QStringLiteral("v6e"), QStringLiteral("--remove-slice"), first, QStringLiteral("--yes"), QStringLiteral("--wait"),
                 QStringLiteral("30"), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        outcome = r.json()[u"outcome"].toObject();
        QVERIFY2(outcome[u"complete"].toBool() && outcome[u"workersToDeleteCleared"].toBool(), QJsonDocument(outcome).toJson().constData());
        QCOMPARE(outcome[u"podsToDeleteLeft"].toInt(), 0);
        qInfo("remove-slice %s through KubeRay: pods gone and workersToDelete cleared after %lld ms", qPrintable(first),
              outcome[u"elapsedMs"].toInteger());
        QCOMPARE(runningWorkers(), 2);
        fx->deleteObject(kube::rayClusterPath(ns, QStringLiteral("op")));
    }

    // One patch lowers replicas and names that slice's pods; once they are gone, it is cleared.
    void removeSlicePatchAndCleanup()
    {
        QStringList args{QStringLiteral("scale"), QStringLiteral("--kubeconfig"), h.kubeconfig, QStringLiteral("-n"), ns,
                         QStringLiteral("--cluster"), QStringLiteral("ray"), QStringLiteral("--group"), QStringLiteral("v6e"),
                         QStringLiteral("--remove-slice"), QStringLiteral("v6e-1"), QStringLiteral("--yes"), QStringLiteral("--wait"),
                         QStringLiteral("30"), QStringLiteral("--json")};
        QProcess p;
        p.start(QStringLiteral(SLICESCOPE_BINARY), args);
        QVERIFY(p.waitForStarted());
        const QString path = kube::rayClusterPath(ns, QStringLiteral("ray"));
        QJsonObject group;
        QTRY_VERIFY_WITH_TIMEOUT((group = fx->get(path).json()[u"spec"][u"workerGroupSpecs"][0].toObject())
                                     .value(QStringLiteral("scaleStrategy"))
                                     .toObject()
                                     .contains(QStringLiteral("workersToDelete")),
                                 15000);
        QStringList expected = slicePods[1];
        expected.sort();
        QCOMPARE(stringList(group[u"scaleStrategy"][u"workersToDelete"]), expected);
        QCOMPARE(group[u"replicas"].toInt(), 1);

        // Playing KubeRay: see the new generation, delete the named pods.
        const qint64 generation = fx->get(path).json()[u"metadata"][u"generation"].toInteger();
        QVERIFY(fx->setRayClusterStatus(ns, QStringLiteral("ray"), QJsonObject{{QStringLiteral("observedGeneration"), generation}}).ok());
        for (const QString &pod : std::as_const(slicePods[1]))
            QVERIFY(fx->deleteObject(kube::podPath(ns, pod)).ok());

        QVERIFY(p.waitForFinished(40000));
        const QByteArray err = p.readAllStandardError();
        QVERIFY2(p.exitCode() == 0, err.constData());
        const QJsonObject out = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
        QCOMPARE(out[u"plan"][u"slicesRemoved"].toArray().size(), 1);
        QVERIFY2(out[u"outcome"][u"complete"].toBool(), QJsonDocument(out[u"outcome"].toObject()).toJson().constData());
        QCOMPARE(out[u"outcome"][u"workersToDeleteCleared"].toBool(), true);
        group = fx->get(path).json()[u"spec"][u"workerGroupSpecs"][0].toObject();
        QVERIFY2(!group[u"scaleStrategy"].toObject().contains(QStringLiteral("workersToDelete")),
                 QJsonDocument(group[u"scaleStrategy"].toObject()).toJson().constData());
        qInfo("remove-slice: %s", err.trimmed().replace('\n', " | ").constData());
    }
};

QTEST_MAIN(TestKubeLive)
#include "tst_kube_live.moc"
