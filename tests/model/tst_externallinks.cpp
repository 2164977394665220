// SPDX-License-Identifier: GPL-3.0-or-later
// Where an operator goes next (model/externallinks.h): what can be copied, the Ray dashboard's
// node page and the Cloud console's node pool, node and pod pages; a link that cannot be made
// says why, and nothing from the cluster reaches a URL unchecked.

#include "externallinks.h"

#include <QTest>

using namespace slicescope;

namespace {

// One slice of two hosts in context `context`, each with a Ray node, a pod and a node of pool `pool`.
ClusterSnapshot snapshot(const QString &context, const QString &pool = QStringLiteral("tpu-pool-1"))
{
    ClusterSnapshot snap;
    snap.contexts = {context};
    Slice s;
    s.name = QStringLiteral("v6e-2x4-0");
    s.workerGroup = QStringLiteral("ml/llm/tpu");
    for (int w = 0; w < 2; ++w) {
        RayNode n;
        n.id = QStringLiteral("%1a0b").arg(w).repeated(14);
        n.ip = QStringLiteral("10.0.0.%1").arg(w + 1);
        snap.rayNodes << n;
        Pod p;
        p.ns = QStringLiteral("ml");
        p.name = QStringLiteral("llm-tpu-worker-%1").arg(w);
        snap.pods << p;
        KubeNode k;
        k.name = QStringLiteral("gke-prod-tpu-pool-1-node-%1").arg(w);
        k.nodePool = pool;
        snap.kubeNodes << k;
        Host h;
        h.workerId = w;
        h.rayNode = w;
        h.pod = w;
        h.kubeNode = w;
        s.hosts << h;
    }
    snap.slices << s;
    return snap;
}

} // namespace

class TestExternalLinks : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void gkeContexts_data()
    {
        QTest::addColumn<QString>("context");
        QTest::addColumn<QString>("parsed"); // "project|location|cluster", or empty: not GKE
        QTest::newRow("zone") << "gke_my-proj_us-central2-b_tpu-prod" << "my-proj|us-central2-b|tpu-prod";
        QTest::newRow("region") << "gke_p1_europe-west4_c" << "p1|europe-west4|c";
        QTest::newRow("kind") << "kind-kind" << "";
        QTest::newRow("empty") << "" << "";
        QTest::newRow("too few parts") << "gke_p_us-east1" << "";
        QTest::newRow("too many parts") << "gke_p_us-east1_c_extra" << "";
        QTest::newRow("upper case") << "gke_P_us-east1_c" << "";
        QTest::newRow("a slash") << "gke_p_us-east1_c/../x" << "";
        QTest::newRow("a query") << "gke_p?x=1_us-east1_c" << "";
        QTest::newRow("empty part") << "gke__us-east1_c" << "";
        QTest::newRow("not gke") << "eks_p_us-east1_c" << "";
    }
    void gkeContexts()
    {
        QFETCH(QString, context);
        QFETCH(QString, parsed);
        const auto gke = gkeClusterOfContext(context);
        const QString got = gke ? QStringList({gke->project, gke->location, gke->cluster}).join(u'|') : QString();
        QCOMPARE(got, parsed);
    }

    void copyItemsAreWhole()
    {
        const ClusterSnapshot snap = snapshot(QStringLiteral("gke_p_us-east5-a_c"));
        QList<CopyItem> items = copyItems(snap, QStringLiteral("v6e-2x4-0"));
        QCOMPARE(items.size(), 2);
        QCOMPARE(items[0].text, QStringLiteral("v6e-2x4-0"));
        QCOMPARE(items[1].text, QStringLiteral("ml/llm/tpu"));
        items = copyItems(snap, QStringLiteral("v6e-2x4-0"), 1);
        QStringList texts;
        for (const CopyItem &i : std::as_const(items))
            texts << i.text;
        QCOMPARE(texts, (QStringList{QStringLiteral("v6e-2x4-0"), QStringLiteral("ml/llm/tpu"), snap.rayNodes[1].id, QStringLiteral("10.0.0.2"),
                                     QStringLiteral("ml/llm-tpu-worker-1"), QStringLiteral("gke-prod-tpu-pool-1-node-1")}));
        QCOMPARE(snap.rayNodes[1].id.size(), 56); // the whole id, never the 16 characters the panel shows
        QVERIFY(copyItems(snap, QStringLiteral("nope")).isEmpty());
    }

    void rayDashboard()
    {
        const ClusterSnapshot snap = snapshot(QString());
        const QString slice = QStringLiteral("v6e-2x4-0");
        ExternalLink link = rayDashboardLink(QUrl(QStringLiteral("http://127.0.0.1:8265")), snap, slice, 1);
        QCOMPARE(link.url.toString(), QStringLiteral("http://127.0.0.1:8265/#/cluster/nodes/") + snap.rayNodes[1].id);
        // Under a path prefix (a proxy), credentials and query left out.
        link = rayDashboardLink(QUrl(QStringLiteral("https://user:secret@ray.example/dash?token=x")), snap, slice);
        QCOMPARE(link.url.toString(), QStringLiteral("https://ray.example/dash/#/cluster"));
        QVERIFY(!link.url.toString().contains(u"secret"));
        // No dashboard: the reason, no URL.
        link = rayDashboardLink(QUrl(), snap, slice, 0);
        QVERIFY(!link.url.isValid());
        QVERIFY(link.whyNot.contains(u"--ray"));
        link = rayDashboardLink(QUrl(QStringLiteral("file:///etc/passwd")), snap, slice, 0);
        QVERIFY(!link.url.isValid());
        // A node id that is not hex never reaches the URL.
        ClusterSnapshot odd = snap;
        odd.rayNodes[0].id = QStringLiteral("../../x");
        link = rayDashboardLink(QUrl(QStringLiteral("http://h:8265")), odd, slice, 0);
        QVERIFY(!link.url.isValid());
        QVERIFY(!link.whyNot.isEmpty());
        odd.slices[0].hosts[0].rayNode = -1;
        link = rayDashboardLink(QUrl(QStringLiteral("http://h:8265")), odd, slice, 0);
        QCOMPARE(link.whyNot, QStringLiteral("worker 0 has no Ray node"));
    }

    void cloudConsole()
    {
        const ClusterSnapshot snap = snapshot(QStringLiteral("gke_my-proj_us-east5-a_tpu-prod"));
        const QString slice = QStringLiteral("v6e-2x4-0");
        QList<ExternalLink> links = cloudConsoleLinks(snap, slice);
        QCOMPARE(links.size(), 1);
        QCOMPARE(links[0].url.toString(), QStringLiteral("https://console.cloud.google.com/kubernetes/nodepool/us-east5-a/tpu-prod/tpu-pool-1?project=my-proj"));
        links = cloudConsoleLinks(snap, slice, 1);
        QCOMPARE(links.size(), 3);
        QCOMPARE(links[1].url.toString(),
                 QStringLiteral("https://console.cloud.google.com/kubernetes/node/us-east5-a/tpu-prod/gke-prod-tpu-pool-1-node-1/summary?project=my-proj"));
        QCOMPARE(links[2].url.toString(),
                 QStringLiteral("https://console.cloud.google.com/kubernetes/pod/us-east5-a/tpu-prod/ml/llm-tpu-worker-1/details?project=my-proj"));
        // The slice's own context wins over the snapshot's (a fleet).
        ClusterSnapshot fleet = snap;
        fleet.contexts = {QStringLiteral("a"), QStringLiteral("b")};
        fleet.slices[0].context = QStringLiteral("gke_other_europe-west4_c2");
        QVERIFY(cloudConsoleLinks(fleet, slice)[0].url.toString().contains(u"/europe-west4/c2/"));
        fleet.slices[0].context.clear();
        QCOMPARE(cloudConsoleLinks(fleet, slice)[0].whyNot, QStringLiteral("no Kubernetes context is known for this slice"));
        // Not GKE: every link says so.
        for (const ExternalLink &l : cloudConsoleLinks(snapshot(QStringLiteral("kind-kind")), slice, 0)) {
            QVERIFY(!l.url.isValid());
            QVERIFY2(l.whyNot.contains(u"not a GKE one"), qPrintable(l.whyNot));
        }
        // Two pools in one slice: no pool is guessed.
        ClusterSnapshot split = snap;
        split.kubeNodes[1].nodePool = QStringLiteral("other");
        QCOMPARE(cloudConsoleLinks(split, slice)[0].whyNot, QStringLiteral("the slice's nodes are in several node pools"));
        // A name that is no Kubernetes name never reaches the URL.
        ClusterSnapshot bad = snap;
        bad.pods[0].name = QStringLiteral("x/../../y?z");
        const QList<ExternalLink> badLinks = cloudConsoleLinks(bad, slice, 0);
        QVERIFY(!badLinks[2].url.isValid());
        QVERIFY(badLinks[1].url.isValid()); // the node's link is still made
    }
};

QTEST_GUILESS_MAIN(TestExternalLinks)
#include "tst_externallinks.moc"
