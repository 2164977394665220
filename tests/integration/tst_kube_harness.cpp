// SPDX-License-Identifier: GPL-3.0-or-later
// The Kubernetes harness itself (tests/integration/kube-harness.sh): does the real API server it starts
// serve what SliceScope relies on (docs/facts.md 4), and do the fixture's objects (tests/common/kubefixture.h)
// read back as KubeRay and GKE would have made them? If this fails, every Kubernetes integration test
// after it would fail for the harness's sake, not the product's.
//
// The test finds the harness through SLICESCOPE_KUBE_DIR. Without it the test fails in CI (CI=true)
// and skips, loudly, elsewhere. Everything it creates lives in a namespace of its own, except the
// cluster-scoped nodes, and is deleted again in cleanupTestCase() so that tests listing every
// RayCluster or TPU node of the shared harness do not see it.

#include "../common/kubefixture.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QSet>
#include <QTest>

#include <memory>

using namespace slicescope::testing;
using namespace Qt::StringLiterals;

namespace {

QString envOf(const QJsonObject &pod, const QString &name)
{
    const QJsonArray containers = jsonAt(pod, {u"spec"_s, u"containers"_s}).toArray();
    for (const QJsonValue &e : containers.at(0).toObject().value(u"env"_s).toArray())
        if (e.toObject().value(u"name"_s).toString() == name)
            return e.toObject().value(u"value"_s).toString();
    return {};
}

} // namespace

class TestKubeHarness : public QObject
{
    Q_OBJECT

    KubeHarness m_h;
    std::unique_ptr<KubeFixture> m_admin;
    std::unique_ptr<KubeFixture> m_viewer;
    QString m_ns;
    QString m_suffix;          // makes cluster-scoped names unique per run
    QStringList m_toDelete;    // paths, deleted last to first in cleanupTestCase()

    kube::WorkerGroup v6e2x4() const
    {
        kube::WorkerGroup g;
        g.name = u"tpu-v6e-2x4"_s;
        g.accelerator = kube::v6e;
        g.topology = u"2x4"_s;
        g.numOfHosts = 2;
        g.chipsPerHost = 4;
        g.replicas = 1;
        g.minReplicas = 0;
        g.maxReplicas = 3;
        return g;
    }

    // A RayCluster with the one v6e 2x4 group, deleted after the test case.
    bool makeCluster(const QString &name)
    {
        // Marked for MultiKueue so the harness's KubeRay operator leaves it alone: this test makes the pods.
        const KubeResponse r = m_admin->createRayCluster(m_ns, name, {v6e2x4()}, false, QStringLiteral("kueue.x-k8s.io/multikueue"));
        if (!r.ok()) {
            qWarning("createRayCluster %s: %s", qPrintable(name), qPrintable(r.describe()));
            return false;
        }
        m_toDelete << kube::rayClusterPath(m_ns, name);
        return true;
    }

    QJsonObject selfSubjectReview(KubeFixture &as)
    {
        const KubeResponse r = as.post(u"/apis/authentication.k8s.io/v1/selfsubjectreviews"_s,
                                       QJsonObject{{u"apiVersion"_s, u"authentication.k8s.io/v1"_s}, {u"kind"_s, u"SelfSubjectReview"_s}});
        return r.ok() ? jsonAt(r.json(), {u"status"_s, u"userInfo"_s}).toObject() : QJsonObject{{u"error"_s, r.describe()}};
    }

private slots:
    void initTestCase()
    {
        SLICESCOPE_FIND_KUBE_HARNESS(m_h);
        m_admin = std::make_unique<KubeFixture>(m_h);
        m_viewer = std::make_unique<KubeFixture>(m_h.server, m_h.caFile, m_h.viewerToken);
        m_ns = KubeFixture::uniqueNamespace(u"harness-smoke"_s);
        m_suffix = m_ns.section(u'-', -1);
        const KubeResponse r = m_admin->createNamespace(m_ns);
        QVERIFY2(r.ok(), qPrintable(r.describe()));
    }

    void cleanupTestCase()
    {
        if (!m_admin)
            return;
        for (auto it = m_toDelete.crbegin(); it != m_toDelete.crend(); ++it) {
            const KubeResponse r = m_admin->deleteObject(*it);
            if (!r.ok() && r.status != 404)
                qWarning("could not delete %s: %s", qPrintable(*it), qPrintable(r.describe()));
        }
    }

    // The KubeRay CRD is installed and served: ray.io/v1 lists rayclusters with every verb SliceScope
    // uses, and only a status subresource (docs/facts.md 4: no scale).
    void crdIsServed()
    {
        const KubeResponse r = m_admin->get(u"/apis/ray.io/v1"_s);
        QVERIFY2(r.ok(), qPrintable(r.describe()));
        QJsonObject rayclusters;
        QStringList subresources;
        for (const QJsonValue &v : r.json().value(u"resources"_s).toArray()) {
            const QString name = v.toObject().value(u"name"_s).toString();
            if (name == u"rayclusters"_s)
                rayclusters = v.toObject();
            else if (name.startsWith(u"rayclusters/"_s))
                subresources << name;
        }
        QVERIFY2(!rayclusters.isEmpty(), r.body.constData());
        QCOMPARE(rayclusters.value(u"namespaced"_s).toBool(), true);
        QCOMPARE(rayclusters.value(u"kind"_s).toString(), u"RayCluster"_s);
        QStringList verbs;
        for (const QJsonValue &v : rayclusters.value(u"verbs"_s).toArray())
            verbs << v.toString();
        for (const QString &verb : {u"get"_s, u"list"_s, u"watch"_s, u"patch"_s, u"update"_s})
            QVERIFY2(verbs.contains(verb), qPrintable(verb));
        QCOMPARE(subresources, QStringList{u"rayclusters/status"_s});

        const KubeResponse crd = m_admin->get(u"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/rayclusters.ray.io"_s);
        QVERIFY2(crd.ok(), qPrintable(crd.describe()));
        QVERIFY(hasTrueCondition(crd.json(), u"Established"_s));
    }

    // Two GKE TPU nodes of one node pool, a RayCluster with one 2-host v6e 2x4 group, and the slice's
    // two pods bound and Running: everything reads back as made.
    void tpuSliceReadsBack()
    {
        const QString cluster = u"smoke"_s;
        const kube::WorkerGroup group = v6e2x4();
        const QString pool = u"np-v6e-2x4-"_s + m_suffix;
        const QStringList nodes{u"gke-v6e-2x4-"_s + m_suffix + u"-0"_s, u"gke-v6e-2x4-"_s + m_suffix + u"-1"_s};
        const QStringList ips{u"10.8.0.10"_s, u"10.8.0.11"_s};
        for (const QString &node : nodes) {
            const KubeResponse r = m_admin->createTpuNode(node, group.accelerator, group.topology, pool, group.chipsPerHost);
            QVERIFY2(r.ok(), qPrintable(node + u": "_s + r.describe()));
            m_toDelete << kube::nodePath(node);
        }
        QVERIFY(makeCluster(cluster));
        QString error;
        const QStringList pods = m_admin->createRunningSlice(m_ns, cluster, group, 0, nodes, ips, &error);
        for (const QString &pod : pods)
            m_toDelete << kube::podPath(m_ns, pod);
        QVERIFY2(pods.size() == 2, qPrintable(error));

        // The nodes, found the way SliceScope watches them.
        const KubeResponse nodeList = m_admin->get(u"/api/v1/nodes?labelSelector="_s + kube::labelNodePool + u"%3D"_s + pool);
        QVERIFY2(nodeList.ok(), qPrintable(nodeList.describe()));
        const QJsonArray nodeItems = nodeList.json().value(u"items"_s).toArray();
        QCOMPARE(nodeItems.size(), 2);
        for (const QJsonValue &v : nodeItems) {
            const QJsonObject node = v.toObject();
            const QJsonObject labels = jsonAt(node, {u"metadata"_s, u"labels"_s}).toObject();
            QCOMPARE(labels.value(kube::labelAccelerator).toString(), u"tpu-v6e-slice"_s);
            QCOMPARE(labels.value(kube::labelTopology).toString(), u"2x4"_s);
            QCOMPARE(jsonAt(node, {u"status"_s, u"capacity"_s, kube::resourceTpu}).toString(), u"4"_s);
            QCOMPARE(jsonAt(node, {u"status"_s, u"allocatable"_s, kube::resourceTpu}).toString(), u"4"_s);
            QVERIFY(hasTrueCondition(node, u"Ready"_s));
        }

        // The RayCluster as written.
        const KubeResponse rc = m_admin->get(kube::rayClusterPath(m_ns, cluster));
        QVERIFY2(rc.ok(), qPrintable(rc.describe()));
        const QJsonObject wg = jsonAt(rc.json(), {u"spec"_s, u"workerGroupSpecs"_s}).toArray().at(0).toObject();
        QCOMPARE(wg.value(u"groupName"_s).toString(), group.name);
        QCOMPARE(wg.value(u"numOfHosts"_s).toInt(), 2);
        QCOMPARE(wg.value(u"replicas"_s).toInt(), 1);
        QCOMPARE(jsonAt(wg, {u"template"_s, u"spec"_s, u"nodeSelector"_s, kube::labelTopology}).toString(), u"2x4"_s);
        QCOMPARE(jsonAt(rc.json(), {u"metadata"_s, u"generation"_s}).toInt(), 1);

        // The pods, found the way SliceScope watches them, one per host of the one slice.
        const KubeResponse podList = m_admin->get(kube::podsPath(m_ns) + u"?labelSelector="_s + kube::labelIsRayNode + u"%3Dyes,"_s + kube::labelCluster + u"%3D"_s + cluster);
        QVERIFY2(podList.ok(), qPrintable(podList.describe()));
        const QJsonArray podItems = podList.json().value(u"items"_s).toArray();
        QCOMPARE(podItems.size(), 2);
        QSet<QString> replicaNames;
        for (const QJsonValue &v : podItems) {
            const QJsonObject pod = v.toObject();
            const QString name = jsonAt(pod, {u"metadata"_s, u"name"_s}).toString();
            const QJsonObject labels = jsonAt(pod, {u"metadata"_s, u"labels"_s}).toObject();
            const int host = labels.value(kube::labelHostIndex).toString().toInt();
            QVERIFY2(name.startsWith(u"smoke-tpu-v6e-2x4-worker-"_s), qPrintable(name));
            QCOMPARE(pods.indexOf(name), host);
            QCOMPARE(labels.value(kube::labelCluster).toString(), cluster);
            QCOMPARE(labels.value(kube::labelGroup).toString(), group.name);
            QCOMPARE(labels.value(kube::labelNodeType).toString(), u"worker"_s);
            QCOMPARE(labels.value(kube::labelIsRayNode).toString(), u"yes"_s);
            QCOMPARE(labels.value(kube::labelReplicaIndex).toString(), u"0"_s);
            replicaNames << labels.value(kube::labelReplicaName).toString();
            QCOMPARE(jsonAt(pod, {u"spec"_s, u"nodeName"_s}).toString(), nodes.at(host));
            QCOMPARE(jsonAt(pod, {u"status"_s, u"phase"_s}).toString(), u"Running"_s);
            QCOMPARE(jsonAt(pod, {u"status"_s, u"podIP"_s}).toString(), ips.at(host));
            QVERIFY(hasTrueCondition(pod, u"Ready"_s));
            QCOMPARE(envOf(pod, u"TPU_NAME"_s), u"tpu-v6e-2x4-0"_s);
            QCOMPARE(envOf(pod, u"TPU_WORKER_ID"_s), QString::number(host));
            QCOMPARE(envOf(pod, u"TPU_WORKER_HOSTNAMES"_s).split(u',').size(), 2);
            QCOMPARE(envOf(pod, u"TPU_ACCELERATOR_TYPE"_s), u"v6e-8"_s);
            const QJsonObject resources = jsonAt(pod, {u"spec"_s, u"containers"_s}).toArray().at(0).toObject().value(u"resources"_s).toObject();
            QCOMPARE(jsonAt(resources, {u"limits"_s, kube::resourceTpu}).toString(), u"4"_s);
        }
        // Both hosts carry the same slice name, and it is not the TPU_NAME.
        QCOMPARE(replicaNames.size(), 1);
        QVERIFY(replicaNames.begin()->startsWith(u"tpu-v6e-2x4-"_s));
        QVERIFY(*replicaNames.begin() != u"tpu-v6e-2x4-0"_s);
    }

    // The viewer reads everything SliceScope shows and changes nothing; SelfSubjectAccessReview (how
    // SliceScope asks up front, docs/facts.md 4.3) agrees with what the server then does.
    void viewerCanListButNotPatch()
    {
        const QString cluster = u"viewed"_s;
        QVERIFY(makeCluster(cluster));

        const KubeResponse list = m_viewer->get(kube::rayClustersPath(m_ns));
        QVERIFY2(list.ok(), qPrintable(list.describe()));
        QStringList listed;
        for (const QJsonValue &v : list.json().value(u"items"_s).toArray())
            listed << jsonAt(v.toObject(), {u"metadata"_s, u"name"_s}).toString();
        QVERIFY2(listed.contains(cluster), qPrintable(listed.join(u", "_s)));
        for (const QString &path : {u"/apis/ray.io/v1/rayclusters"_s, u"/api/v1/nodes"_s, kube::podsPath(m_ns),
                                    u"/api/v1/namespaces/"_s + m_ns + u"/events"_s}) {
            const KubeResponse r = m_viewer->get(path);
            QVERIFY2(r.ok(), qPrintable(path + u": "_s + r.describe()));
        }

        const QJsonArray scale{QJsonObject{{u"op"_s, u"add"_s}, {u"path"_s, u"/spec/workerGroupSpecs/0/replicas"_s}, {u"value"_s, 2}}};
        const KubeResponse patched = m_viewer->jsonPatch(kube::rayClusterPath(m_ns, cluster), scale);
        QVERIFY2(patched.status == 403, qPrintable(patched.describe()));
        QCOMPARE(patched.json().value(u"reason"_s).toString(), u"Forbidden"_s);

        const auto allowed = [&](const QString &verb) {
            const KubeResponse r = m_viewer->post(
                u"/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"_s,
                QJsonObject{{u"apiVersion"_s, u"authorization.k8s.io/v1"_s},
                            {u"kind"_s, u"SelfSubjectAccessReview"_s},
                            {u"spec"_s, QJsonObject{{u"resourceAttributes"_s, QJsonObject{{u"group"_s, u"ray.io"_s},
                                                                                          {u"resource"_s, u"rayclusters"_s},
                                                                                          {u"verb"_s, verb},
                                                                                          {u"namespace"_s, m_ns}}}}}});
            if (!r.ok())
                return -r.status; // shows up in the QCOMPARE as the HTTP status
            return jsonAt(r.json(), {u"status"_s, u"allowed"_s}).toBool() ? 1 : 0;
        };
        QCOMPARE(allowed(u"list"_s), 1);
        QCOMPARE(allowed(u"watch"_s), 1);
        QCOMPARE(allowed(u"patch"_s), 0);

        // The admin's same patch goes through: the refusal was RBAC, not the patch.
        const KubeResponse admin = m_admin->jsonPatch(kube::rayClusterPath(m_ns, cluster), scale);
        QVERIFY2(admin.ok(), qPrintable(admin.describe()));
    }

    // Scaling safely (docs/facts.md 4.1): a JSON Patch whose `test` fails is refused with 422 and changes
    // nothing; with the right `test` it applies and bumps metadata.generation.
    void failedJsonPatchTestIs422()
    {
        const QString cluster = u"patched"_s;
        QVERIFY(makeCluster(cluster));
        const QString path = kube::rayClusterPath(m_ns, cluster);
        const auto scaleTo = [](const QString &expectGroup, int replicas) {
            return QJsonArray{QJsonObject{{u"op"_s, u"test"_s}, {u"path"_s, u"/spec/workerGroupSpecs/0/groupName"_s}, {u"value"_s, expectGroup}},
                              QJsonObject{{u"op"_s, u"add"_s}, {u"path"_s, u"/spec/workerGroupSpecs/0/replicas"_s}, {u"value"_s, replicas}}};
        };

        const KubeResponse refused = m_admin->jsonPatch(path, scaleTo(u"some-other-group"_s, 3));
        QVERIFY2(refused.status == 422, qPrintable(refused.describe()));
        const KubeResponse unchanged = m_admin->get(path);
        QCOMPARE(jsonAt(unchanged.json(), {u"spec"_s, u"workerGroupSpecs"_s}).toArray().at(0).toObject().value(u"replicas"_s).toInt(), 1);
        QCOMPARE(jsonAt(unchanged.json(), {u"metadata"_s, u"generation"_s}).toInt(), 1);

        // A stale resourceVersion in a `test` is refused the same way.
        const QJsonArray stale{QJsonObject{{u"op"_s, u"test"_s}, {u"path"_s, u"/metadata/resourceVersion"_s}, {u"value"_s, u"1"_s}},
                               scaleTo(v6e2x4().name, 3).at(1)};
        const KubeResponse staleRefused = m_admin->jsonPatch(path, stale);
        QVERIFY2(staleRefused.status == 422, qPrintable(staleRefused.describe()));

        const KubeResponse applied = m_admin->jsonPatch(path, scaleTo(v6e2x4().name, 3));
        QVERIFY2(applied.ok(), qPrintable(applied.describe()));
        QCOMPARE(jsonAt(applied.json(), {u"spec"_s, u"workerGroupSpecs"_s}).toArray().at(0).toObject().value(u"replicas"_s).toInt(), 3);
        QCOMPARE(jsonAt(applied.json(), {u"metadata"_s, u"generation"_s}).toInt(), 2);
    }

    // The harness's client certificates (an EC and an RSA key) authenticate through Qt's TLS, as the
    // product's kubeconfig loader will present them.
    void clientCertificatesAuthenticate_data()
    {
        QTest::addColumn<QString>("user");
        QTest::newRow("EC P-256") << u"cert-admin"_s;
        QTest::newRow("RSA") << u"cert-rsa"_s;
    }
    void clientCertificatesAuthenticate()
    {
        QFETCH(QString, user);
        KubeFixture asCert(m_h.server, m_h.caFile, {});
        QVERIFY(asCert.useClientCertificate(m_h.file(user + u".crt"_s), m_h.file(user + u".key"_s)));
        const QJsonObject info = selfSubjectReview(asCert);
        QCOMPARE(info.value(u"username"_s).toString(), user);
        QVERIFY2(info.value(u"groups"_s).toArray().contains(u"system:masters"_s), QJsonDocument(info).toJson().constData());

        QCOMPARE(selfSubjectReview(*m_admin).value(u"username"_s).toString(), u"admin"_s);
        QCOMPARE(selfSubjectReview(*m_viewer).value(u"username"_s).toString(), u"viewer"_s);
    }
};

QTEST_GUILESS_MAIN(TestKubeHarness)
#include "tst_kube_harness.moc"
