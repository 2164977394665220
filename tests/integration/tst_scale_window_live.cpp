// SPDX-License-Identifier: GPL-3.0-or-later
// The window on a REAL Kubernetes API server with the real KubeRay operator (kube-harness.sh): the
// scale dialog driven with QTest scales a TPU worker group and sees KubeRay's pods arrive; a user
// whose RBAC forbids patching gets the dialog's actions disabled with the reason; the Kubernetes
// context menu switches between the kubeconfig's contexts.

#include "../common/kubefixture.h"
#include "../common/kubeharness.h"
#include "kubeconfig.h"
#include "kubesource.h"
#include "mainwindow.h"
#include "scaledialog.h"

#include <QAction>
#include <QFile>
#include <QMenu>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

using namespace slicescope;
using namespace slicescope::testing;

class TestScaleWindowLive : public QObject
{
    Q_OBJECT

    KubeHarness h;
    std::unique_ptr<KubeFixture> fx;
    QString ns;

    std::unique_ptr<Source> sourceFor(const QString &kubeconfig, const QString &context = {})
    {
        KubeConfig config;
        if (const QString e = loadKubeConfig({kubeconfig}, context, ns, config); !e.isEmpty()) {
            qWarning("%s", qPrintable(e));
            return nullptr;
        }
        return std::make_unique<KubeSource>(config, KubeSourceOptions{});
    }

    int runningWorkers()
    {
        int n = 0;
        const QString selector = QStringLiteral("?labelSelector=ray.io%2Fcluster%3Dwin,ray.io%2Fnode-type%3Dworker");
        for (const QJsonValue &p : fx->get(kube::podsPath(ns) + selector).json()[u"items"].toArray())
            n += p[u"status"][u"phase"].toString() == QLatin1String("Running")
                 && !p[u"metadata"].toObject().contains(QStringLiteral("deletionTimestamp"));
        return n;
    }

private Q_SLOTS:
    void initTestCase()
    {
        SLICESCOPE_FIND_KUBE_HARNESS(h);
        fx = std::make_unique<KubeFixture>(h);
        ns = KubeFixture::uniqueNamespace(QStringLiteral("win"));
        QVERIFY(fx->createNamespace(ns).ok());
        kube::WorkerGroup group{QStringLiteral("v6e"), kube::v6e, QStringLiteral("2x4"), 2, 4, 1, 0, 3};
        QVERIFY(fx->createRayCluster(ns, QStringLiteral("win"), {group}).ok()); // the operator's
        QTRY_COMPARE_WITH_TIMEOUT(runningWorkers(), 2, 20000);
    }

    void cleanupTestCase()
    {
        if (fx)
            fx->deleteObject(kube::rayClusterPath(ns, QStringLiteral("win")));
    }

    void dialogScalesThroughKubeRay()
    {
        MainWindow window(MainWindow::Mode::Screenshot);
        window.resize(1280, 800);
        window.setSource(sourceFor(h.kubeconfig));
        const QString group = ns + QStringLiteral("/win/v6e");
        QTRY_VERIFY_WITH_TIMEOUT(window.snapshot() && window.snapshot()->workerGroupIndex(group) >= 0, 10000);
        window.openScaleDialog();
        ScaleDialog *dialog = window.scaleDialog();
        QVERIFY(dialog);
        QVERIFY(dialog->setWorkerGroup(group));
        // Permission is asked of the API server before anything is offered.
        QTRY_VERIFY_WITH_TIMEOUT(dialog->unavailableText().isEmpty(), 10000);

        dialog->findChild<QSpinBox *>(QStringLiteral("replicas"))->setValue(2);
        QCOMPARE(dialog->plan().slicesAdded, 1);
        QTest::mouseClick(dialog->findChild<QPushButton *>(QStringLiteral("review")), Qt::LeftButton);
        QVERIFY(dialog->isReviewing());
        QCOMPARE(fx->get(kube::rayClusterPath(ns, QStringLiteral("win"))).json()[u"spec"][u"workerGroupSpecs"][0][u"replicas"].toInt(), 1);
        QElapsedTimer clock;
        clock.start();
        QTest::mouseClick(dialog->findChild<QPushButton *>(QStringLiteral("confirm")), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!dialog->isRunning(), 30000);
        qInfo("dialog: confirm -> outcome in %lld ms: %s", clock.elapsed(), qPrintable(dialog->messageText()));
        QCOMPARE(fx->get(kube::rayClusterPath(ns, QStringLiteral("win"))).json()[u"spec"][u"workerGroupSpecs"][0][u"replicas"].toInt(), 2);
        QCOMPARE(runningWorkers(), 4);
        QVERIFY2(dialog->messageText().contains(QStringLiteral("done")), qPrintable(dialog->messageText()));
        // The window follows: two slices of that group.
        QTRY_COMPARE_WITH_TIMEOUT(window.snapshot()->workerGroups[window.snapshot()->workerGroupIndex(group)].slices.size(), 2, 5000);
    }

    void forbiddenUserGetsActionsDisabled()
    {
        MainWindow window(MainWindow::Mode::Screenshot);
        window.setSource(sourceFor(h.kubeconfigViewer));
        const QString group = ns + QStringLiteral("/win/v6e");
        QTRY_VERIFY_WITH_TIMEOUT(window.snapshot() && window.snapshot()->workerGroupIndex(group) >= 0, 10000);
        window.openScaleDialog();
        ScaleDialog *dialog = window.scaleDialog();
        QVERIFY(dialog->setWorkerGroup(group));
        QTRY_VERIFY_WITH_TIMEOUT(dialog->unavailableText().contains(QStringLiteral("RBAC")), 10000);
        QVERIFY2(dialog->unavailableText().contains(QStringLiteral("patch rayclusters.ray.io")), qPrintable(dialog->unavailableText()));
        dialog->findChild<QSpinBox *>(QStringLiteral("replicas"))->setValue(3);
        auto *review = dialog->findChild<QPushButton *>(QStringLiteral("review"));
        QVERIFY(!review->isEnabled());
        QVERIFY(review->toolTip().contains(QStringLiteral("RBAC")));
    }

    void contextMenuSwitchesContexts()
    {
        // One kubeconfig, two contexts: the admin's and the viewer's.
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("config"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QStringLiteral("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: %1\n    certificate-authority: %2\n"
                               "users:\n- name: admin\n  user:\n    token: %3\n- name: viewer\n  user:\n    token: %4\n"
                               "contexts:\n- name: prod-admin\n  context: {cluster: c, user: admin, namespace: %5}\n"
                               "- name: prod-viewer\n  context: {cluster: c, user: viewer, namespace: %5}\ncurrent-context: prod-admin\n")
                    .arg(h.server, h.caFile, QString::fromUtf8(h.adminToken), QString::fromUtf8(h.viewerToken), ns)
                    .toUtf8());
        f.close();
        MainWindow window(MainWindow::Mode::Screenshot);
        window.setSource(sourceFor(path));
        window.setKubeContexts({QStringLiteral("prod-admin"), QStringLiteral("prod-viewer")}, QStringLiteral("prod-admin"),
                               [&](const QString &context, QString *error) {
                                   std::unique_ptr<Source> s = sourceFor(path, context);
                                   if (!s)
                                       *error = QStringLiteral("no such context");
                                   return s;
                               });
        QTRY_VERIFY_WITH_TIMEOUT(window.snapshot() && !window.snapshot()->workerGroups.isEmpty(), 10000);
        QCOMPARE(window.snapshot()->kubeContext, QStringLiteral("prod-admin"));
        auto *menu = window.findChild<QMenu *>(QStringLiteral("kubeContextMenu"));
        QVERIFY(menu && menu->isEnabled());
        QCOMPARE(menu->actions().size(), 2);
        menu->actions().at(1)->trigger();
        QCOMPARE(window.kubeContext(), QStringLiteral("prod-viewer"));
        QTRY_VERIFY_WITH_TIMEOUT(window.snapshot() && window.snapshot()->kubeContext == QLatin1String("prod-viewer"), 10000);
        QVERIFY(window.statusText().contains(QStringLiteral("prod-viewer")));
    }
};

QTEST_MAIN(TestScaleWindowLive)
#include "tst_scale_window_live.moc"
