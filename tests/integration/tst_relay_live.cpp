// SPDX-License-Identifier: GPL-3.0-or-later
// The relay against a live source: `slicescope serve --kubeconfig` on the real API server of
// tests/integration/kube-harness.sh, read through RelaySource. The relay snapshot latency end to end
// (a RayCluster changed at the API server -> the capture showing it at the relay's client), and a
// scale carried out through the relay, then one that conflicts with a concurrent writer.

#include "../common/kubefixture.h"
#include "../common/kubeharness.h"
#include "../common/relayprocess.h"
#include "relaysource.h"
#include "scaleplan.h"
#include "snapshot.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QSignalSpy>
#include <QTest>

#include <algorithm>

using namespace slicescope;
using namespace slicescope::testing;

namespace {
const QString kMulti = QStringLiteral("kueue.x-k8s.io/multikueue"); // the harness's operator leaves it alone
}

class TestRelayLive : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        SLICESCOPE_FIND_KUBE_HARNESS(m_harness);
        m_fx = std::make_unique<KubeFixture>(m_harness);
        m_ns = KubeFixture::uniqueNamespace(QStringLiteral("relay"));
        QVERIFY(m_fx->createNamespace(m_ns).ok());
        m_group.name = QStringLiteral("v6e");
        m_group.replicas = 1;
        m_group.maxReplicas = 2;
        QVERIFY(m_fx->createRayCluster(m_ns, QStringLiteral("ray"), {m_group}, false, kMulti).ok());

        QVERIFY2(m_serve.start({QStringLiteral("--kubeconfig"), m_harness.kubeconfig, QStringLiteral("-n"), m_ns}), m_serve.readErr().constData());
        m_url = m_serve.url;
    }

    void cleanupTestCase()
    {
        m_serve.stop();
        // What the relay logged (its log never holds the token; the URL line is left out here anyway).
        for (const QByteArray &line : m_serve.err.split('\n'))
            if (!line.contains("token=") && !line.isEmpty())
                qInfo("relay: %s", line.constData());
        if (m_fx && !m_ns.isEmpty())
            m_fx->deleteObject(QStringLiteral("/api/v1/namespaces/") + m_ns);
    }

    void snapshotLatency()
    {
        RelaySource source(m_url);
        source.start();
        const QString qualified = m_ns + QStringLiteral("/ray/v6e");
        auto maxReplicas = [&]() -> int {
            const SnapshotPtr s = buildSnapshot(source.lastCapture());
            const int i = s->workerGroupIndex(qualified);
            return i < 0 ? -1 : s->workerGroups[i].maxReplicas;
        };
        QTRY_COMPARE_WITH_TIMEOUT(maxReplicas(), 2, 20000);
        QList<double> ms;
        for (int i = 0; i < 10; ++i) {
            const int wanted = 3 + i;
            QElapsedTimer clock;
            qint64 seenNs = -1;
            const auto stamp = connect(&source, &Source::captureReceived, this, [&] {
                if (seenNs < 0 && maxReplicas() == wanted)
                    seenNs = clock.nsecsElapsed();
            });
            clock.start();
            QVERIFY(m_fx->jsonPatch(kube::rayClusterPath(m_ns, QStringLiteral("ray")),
                                    QJsonArray{QJsonObject{{QStringLiteral("op"), QStringLiteral("replace")},
                                                           {QStringLiteral("path"), QStringLiteral("/spec/workerGroupSpecs/0/maxReplicas")},
                                                           {QStringLiteral("value"), wanted}}})
                        .ok());
            QTRY_VERIFY_WITH_TIMEOUT(seenNs >= 0, 10000);
            disconnect(stamp);
            ms << double(seenNs) / 1e6;
        }
        std::sort(ms.begin(), ms.end());
        qInfo("relay snapshot latency, live Kubernetes (JSON Patch at the API server -> watch -> relay -> RelaySource): "
              "median %.1f ms, min %.1f ms, max %.1f ms over %lld changes",
              ms[ms.size() / 2], ms.first(), ms.last(), static_cast<long long>(ms.size()));
    }

    void scaleThroughTheRelay()
    {
        RelaySource source(m_url);
        RelayClusterActions actions(&source);
        source.start();
        const QString qualified = m_ns + QStringLiteral("/ray/v6e");
        auto group = [&]() -> WorkerGroup {
            const SnapshotPtr s = buildSnapshot(source.lastCapture());
            const int i = s->workerGroupIndex(qualified);
            return i < 0 ? WorkerGroup{} : s->workerGroups[i];
        };
        QTRY_VERIFY_WITH_TIMEOUT(!group().group.isEmpty(), 20000);
        // The relay's own RBAC check answers (the admin may patch).
        QTRY_COMPARE_WITH_TIMEOUT(actions.scaleUnavailableReason(group()), QString(), 20000);

        QSignalSpy finished(&actions, &ClusterActions::actionFinished);
        QSignalSpy conflicts(&actions, &ClusterActions::actionConflict);
        QSignalSpy progress(&actions, &ClusterActions::actionProgress);
        const int before = group().maxReplicas;
        ScaleRequest request;
        request.mode = ScaleRequest::Mode::Bounds;
        request.workerGroup = qualified;
        request.minReplicas = 0;

        // Planned on this view; someone else changes the group; then the operator confirms: the
        // relay carries it out and the API server's JSON Patch test op refuses it: a conflict.
        request.maxReplicas = before + 7;
        ScalePlan plan = planScale(*buildSnapshot(source.lastCapture()), request);
        QVERIFY2(plan.allowed, qPrintable(plan.refusal));
        QVERIFY(m_fx->jsonPatch(kube::rayClusterPath(m_ns, QStringLiteral("ray")),
                                QJsonArray{QJsonObject{{QStringLiteral("op"), QStringLiteral("replace")},
                                                       {QStringLiteral("path"), QStringLiteral("/spec/workerGroupSpecs/0/maxReplicas")},
                                                       {QStringLiteral("value"), before + 6}}})
                    .ok());
        QTRY_COMPARE_WITH_TIMEOUT(group().maxReplicas, before + 6, 10000);
        actions.scaleWorkerGroup(QStringLiteral("s1"), plan);
        QTRY_COMPARE_WITH_TIMEOUT(finished.size() + conflicts.size(), 1, 30000);
        QVERIFY2(conflicts.size() == 1, qPrintable(finished.value(0).value(2).toString()));
        QCOMPARE(conflicts.first().at(0).toString(), QStringLiteral("s1"));
        QTest::qWait(500);
        QCOMPARE(group().maxReplicas, before + 6); // nothing written

        // A patch the relay's rules would never write (no test ops), as a forged page might send
        // it: refused as a conflict with every view the relay served, never applied.
        QSignalSpy messages(&source, &RelaySource::messageReceived);
        const QByteArray forgedPatch = R"([{"op":"replace","path":"/spec/workerGroupSpecs/0/maxReplicas","value":1000}])";
        QVERIFY(source.send({{QStringLiteral("type"), QStringLiteral("scale")}, {QStringLiteral("id"), QStringLiteral("s2")}, {QStringLiteral("confirmed"), true}, {QStringLiteral("workerGroup"), qualified}, {QStringLiteral("toReplicas"), 1}, {QStringLiteral("toMin"), 0}, {QStringLiteral("toMax"), 1000}, {QStringLiteral("slicesRemoved"), QJsonArray()}, {QStringLiteral("patch"), QString::fromUtf8(forgedPatch)}}));
        auto answered = [&]() -> QString {
            for (const QList<QVariant> &m : messages) {
                const QJsonObject o = m.first().toJsonObject();
                if (o.value(QLatin1String("id")) == QLatin1String("s2"))
                    return o.value(QLatin1String("type")).toString();
            }
            return {};
        };
        QTRY_COMPARE_WITH_TIMEOUT(answered(), QStringLiteral("conflict"), 10000);
        QTest::qWait(500);
        QCOMPARE(group().maxReplicas, before + 6);

        // The plan made on the newest view: patched, and the relayed view shows it. (Its outcome
        // waits for KubeRay to observe the generation, which a harness without the operator, or a
        // RayCluster it does not manage, never does: the patch is what is checked here.)
        request.maxReplicas = before + 9;
        plan = planScale(*buildSnapshot(source.lastCapture()), request);
        QVERIFY(plan.allowed);
        progress.clear();
        finished.clear();
        conflicts.clear(); // s2's, which RelayClusterActions passed on as well
        actions.scaleWorkerGroup(QStringLiteral("s3"), plan);
        QTRY_COMPARE_WITH_TIMEOUT(group().maxReplicas, before + 9, 20000);
        QVERIFY(!progress.isEmpty());
        QCOMPARE(progress.first().at(0).toString(), QStringLiteral("s3"));
        QVERIFY(conflicts.isEmpty());
        QVERIFY(finished.isEmpty() || finished.first().at(1).toBool());
    }

private:
    KubeHarness m_harness;
    std::unique_ptr<KubeFixture> m_fx;
    kube::WorkerGroup m_group;
    QString m_ns;
    RelayProcess m_serve;
    QUrl m_url;
};

QTEST_GUILESS_MAIN(TestRelayLive)
#include "tst_relay_live.moc"
