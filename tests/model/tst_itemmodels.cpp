// SPDX-License-Identifier: GPL-3.0-or-later
// The four table models over snapshots built from captures written here: QAbstractItemModelTester
// watches every reset, and a text snapshot (header + DisplayRole cells joined with " | ") pins the
// contents. The expected tables are worked out by hand from the fixtures, not pasted from output.

#include "capturefixture.h"
#include "itemmodels.h"
#include "snapshot.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

#include <limits>
#include <memory>

using namespace slicescope;
using namespace slicescope::testfixture;

namespace {

// Snapshot A, Ray + Kubernetes, namespace "ml":
//   tpu-a-0  v6e 2x4 as two 4-chip hosts (docs/facts.md 3), nodes a00/a01 at 10.1.0.1/.2, pods and GKE
//            nodes known; placement group "train" holds all 8 chips.
//   lite-0   v5e 1x1, one 1-chip host b00 at 10.2.0.1, Ray only, in no worker group.
//   a PENDING unnamed placement group with one unplaced CPU bundle; a REMOVED one (dropped).
//   RayCluster ml/ray-v6e (no autoscaling): tpu-a (1 replica, 0..2) and a CPU group.
SnapshotPtr snapshotA()
{
    CaptureBuilder b;
    b.addHeadNode(QStringLiteral("h0"), QStringLiteral("10.0.0.2"));
    const QStringList a = b.addSlice({QStringLiteral("tpu-a-0"), QStringLiteral("TPU-V6E"), QStringLiteral("v6e-8"), QStringLiteral("2x4"), QStringLiteral("tpu-a"), 2, 4, {}, {}, QStringLiteral("a0"), QStringLiteral("10.1.0.")});
    b.addSlice({QStringLiteral("lite-0"), QStringLiteral("TPU-V5LITEPOD"), QStringLiteral("v5litepod-1"), QStringLiteral("1x1"), QStringLiteral("lite"), 1, 1, {}, {}, QStringLiteral("b0"), QStringLiteral("10.2.0.")});
    b.addSlicePlacementGroup(QStringLiteral("1a00000001"), QStringLiteral("train"), QStringLiteral("tpu-a-0"), a, 4);
    b.addPlacementGroup(QStringLiteral("1a00000002"), QString(), QStringLiteral("PENDING"), QStringLiteral("NO_RESOURCES"), false,
                        {CaptureBuilder::bundle(QStringLiteral("1a00000002"), 0, QJsonObject{{QStringLiteral("CPU"), 2.0}}, QString())});
    b.addSlicePlacementGroup(QStringLiteral("1a00000003"), QStringLiteral("gone"), QStringLiteral("lite-0"), {QStringLiteral("b00")}, 1,
                             QStringLiteral("REMOVED"));

    const QString gke = QStringLiteral("tpu-v6e-slice");
    b.addRayCluster(QStringLiteral("ml"), QStringLiteral("ray-v6e"), false,
                    {CaptureBuilder::workerGroup(QStringLiteral("tpu-a"), 1, 0, 2, 2, gke, QStringLiteral("2x4"), 4),
                     CaptureBuilder::workerGroup(QStringLiteral("cpu"), 2, 0, 4, 1, {}, {}, 0)});
    for (int w = 0; w < 2; ++w) {
        const QString pod = w == 0 ? QStringLiteral("ray-v6e-tpu-a-worker-4qz8d") : QStringLiteral("ray-v6e-tpu-a-worker-9mk2c");
        const QString node = QStringLiteral("gke-tpu-a-node-%1").arg(w);
        b.addTpuPod(QStringLiteral("ml"), pod, QStringLiteral("ray-v6e"), QStringLiteral("tpu-a"), QStringLiteral("tpu-a-x7k2p"),
                    QStringLiteral("tpu-a-0"), w, QStringLiteral("10.1.0.%1").arg(w + 1), node, gke, QStringLiteral("2x4"), 4);
        b.addKubeNode(node, gke, QStringLiteral("2x4"), QStringLiteral("tpu-a-pool"), 4);
    }
    return buildSnapshot(b.capture(true));
}

// Snapshot B, Ray + a RayClusterList without pods, namespace "research":
//   v4-0     v4 2x2x2, worker 1 DEAD (c00 10.3.0.1 alive, c01 10.3.0.2 dead); head PG "v4-head" on c00.
//   iron-0   v7x 2x2x2, worker 1 has no Ray node (MISSING); d00 at 10.4.0.1.
//   RayCluster research/rc, autoscaled: v4 (no maxReplicas: unbounded) and ironwood (0..2).
//   Without pods, slices find their group through the ray.io/node-group label.
SnapshotPtr snapshotB()
{
    CaptureBuilder b;
    const QStringList v4 = b.addSlice({QStringLiteral("v4-0"), QStringLiteral("TPU-V4"), QStringLiteral("v4-16"), QStringLiteral("2x2x2"), QStringLiteral("v4"), 2, 4, {1}, {}, QStringLiteral("c0"), QStringLiteral("10.3.0.")});
    b.addSlice({QStringLiteral("iron-0"), QStringLiteral("TPU-V7X"), QStringLiteral("v7x-16"), QStringLiteral("2x2x2"), QStringLiteral("ironwood"), 2, 4, {}, {1}, QStringLiteral("d0"), QStringLiteral("10.4.0.")});
    b.addHeadPlacementGroup(QStringLiteral("2b00000001"), QStringLiteral("v4-head"), QStringLiteral("v4-16"), v4[0]);
    b.addRayCluster(QStringLiteral("research"), QStringLiteral("rc"), true,
                    {CaptureBuilder::workerGroup(QStringLiteral("v4"), 1, 1, -1, 2, QStringLiteral("tpu-v4-podslice"), QStringLiteral("2x2x2"), 4),
                     CaptureBuilder::workerGroup(QStringLiteral("ironwood"), 1, 0, 2, 2, QStringLiteral("tpu7x"), QStringLiteral("2x2x2"), 4)});
    return buildSnapshot(b.capture(true));
}

std::unique_ptr<SnapshotTableModel> makeModel(const QString &kind)
{
    if (kind == QLatin1String("slices"))
        return std::make_unique<SliceTableModel>();
    if (kind == QLatin1String("hosts"))
        return std::make_unique<HostTableModel>();
    if (kind == QLatin1String("placementGroups"))
        return std::make_unique<PlacementGroupTableModel>();
    if (kind == QLatin1String("workerGroups"))
        return std::make_unique<WorkerGroupTableModel>();
    qFatal("test bug: no model %s", qPrintable(kind));
    return nullptr;
}

QStringList textSnapshot(const QAbstractItemModel &model)
{
    QStringList lines;
    QStringList cells;
    for (int c = 0; c < model.columnCount(); ++c)
        cells << model.headerData(c, Qt::Horizontal).toString();
    lines << cells.join(QStringLiteral(" | "));
    for (int r = 0; r < model.rowCount(); ++r) {
        cells.clear();
        for (int c = 0; c < model.columnCount(); ++c)
            cells << model.index(r, c).data().toString();
        lines << cells.join(QStringLiteral(" | "));
    }
    return lines;
}

QStringList lines(std::initializer_list<const char *> list)
{
    QStringList out;
    for (const char *l : list)
        out << QString::fromUtf8(l);
    return out;
}

QStringList keysOf(const SnapshotTableModel &model)
{
    QStringList keys;
    for (int r = 0; r < model.rowCount(); ++r)
        keys << model.index(r, 0).data(SnapshotTableModel::KeyRole).toString();
    return keys;
}

} // namespace

class TestItemModels : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void fixturesParse();
    void contents_data();
    void contents();
    void sortRole_data();
    void sortRole();

private:
    SnapshotPtr m_a;
    SnapshotPtr m_b;
};

void TestItemModels::initTestCase()
{
    m_a = snapshotA();
    m_b = snapshotB();
}

void TestItemModels::fixturesParse()
{
    QVERIFY2(m_a->errors.isEmpty(), qPrintable(m_a->errors.join(u'\n')));
    QVERIFY2(m_b->errors.isEmpty(), qPrintable(m_b->errors.join(u'\n')));
}

void TestItemModels::contents_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QStringList>("header");
    QTest::addColumn<QStringList>("rowsA");
    QTest::addColumn<QStringList>("keysA");
    QTest::addColumn<QStringList>("rowsB");
    QTest::addColumn<QStringList>("keysB");

    // Slices in natural name order. tpu-a-0: pods and Ray nodes -> "both"; its 8 chips are held by
    // "train" -> reserved 8/8. lite-0: one alive 1-chip host, nothing held -> ready; with pods in
    // the capture, a slice without pods belongs to no group. B: v4-0 worker 1 dead, iron-0 worker 1
    // missing -> both degraded; without pods the node-group label names their groups.
    QTest::newRow("slices")
        << "slices"
        << lines({"Slice | Generation | Topology | Pod type | Hosts | Chips | Status | Reserved | Source | Worker group | Problems"})
        << lines({"lite-0 | v5e | 1x1 | v5litepod-1 | 1 | 1 | ready | 0/1 | ray |  | ",
                  "tpu-a-0 | v6e | 2x4 | v6e-8 | 2 | 8 | reserved | 8/8 | both | ml/ray-v6e/tpu-a | "})
        << lines({"lite-0", "tpu-a-0"})
        << lines({"iron-0 | v7x | 2x2x2 | v7x-16 | 2 | 8 | degraded | 0/8 | ray | research/rc/ironwood | worker 1 is MISSING",
                  "v4-0 | v4 | 2x2x2 | v4-16 | 2 | 8 | degraded | 0/8 | ray | research/rc/v4 | worker 1 is DEAD"})
        << lines({"iron-0", "v4-0"});

    // One row per host slot; a MISSING host still has its 4 chip slots in the layout.
    QTest::newRow("hosts")
        << "hosts"
        << lines({"Slice | Worker | State | Ray node | IP | Pod | Kubernetes node | Node pool | Chips | Reserved"})
        << lines({"lite-0 | 0 | ALIVE | b00 | 10.2.0.1 |  |  |  | 1 | 0",
                  "tpu-a-0 | 0 | ALIVE | a00 | 10.1.0.1 | ml/ray-v6e-tpu-a-worker-4qz8d | gke-tpu-a-node-0 | tpu-a-pool | 4 | 4",
                  "tpu-a-0 | 1 | ALIVE | a01 | 10.1.0.2 | ml/ray-v6e-tpu-a-worker-9mk2c | gke-tpu-a-node-1 | tpu-a-pool | 4 | 4"})
        << lines({"lite-0/0", "tpu-a-0/0", "tpu-a-0/1"})
        << lines({"iron-0 | 0 | ALIVE | d00 | 10.4.0.1 |  |  |  | 4 | 0",
                  "iron-0 | 1 | MISSING |  |  |  |  |  | 4 | 0",
                  "v4-0 | 0 | ALIVE | c00 | 10.3.0.1 |  |  |  | 4 | 0",
                  "v4-0 | 1 | DEAD | c01 | 10.3.0.2 |  |  |  | 4 | 0"})
        << lines({"iron-0/0", "iron-0/1", "v4-0/0", "v4-0/1"});

    // As the API lists them, REMOVED dropped. "train": 2 bundles of TPU 4 = 8, every bundle selects
    // a slice -> kind "slice". The unnamed PENDING one selects nothing -> "other". v4-head claims
    // TPU-v4-16-head -> "slice-head", no TPU, but it sits on v4-0.
    QTest::newRow("placementGroups")
        << "placementGroups"
        << lines({"Name | ID | State | Kind | Bundles | TPU | Slices | Detached | Scheduling"})
        << lines({"train | 1a00000001 | CREATED | slice | 2 | 8 | tpu-a-0 | yes | FINISHED",
                  " | 1a00000002 | PENDING | other | 1 | 0 |  | no | NO_RESOURCES"})
        << lines({"1a00000001", "1a00000002"})
        << lines({"v4-head | 2b00000001 | CREATED | slice-head | 1 | 0 | v4-0 | no | FINISHED"})
        << lines({"2b00000001"});

    // In spec order. A group without maxReplicas is unbounded (KubeRay's default).
    QTest::newRow("workerGroups")
        << "workerGroups"
        << lines({"Group | Cluster | Accelerator | Topology | Replicas | Min | Max | Hosts/slice | Chips/host | Autoscaling | Slices"})
        << lines({"tpu-a | ml/ray-v6e | tpu-v6e-slice | 2x4 | 1 | 0 | 2 | 2 | 4 | off | tpu-a-0",
                  "cpu | ml/ray-v6e |  |  | 2 | 0 | 4 | 1 | 0 | off | "})
        << lines({"ml/ray-v6e/tpu-a", "ml/ray-v6e/cpu"})
        << lines({"v4 | research/rc | tpu-v4-podslice | 2x2x2 | 1 | 1 | unbounded | 2 | 4 | on | v4-0",
                  "ironwood | research/rc | tpu7x | 2x2x2 | 1 | 0 | 2 | 2 | 4 | on | iron-0"})
        << lines({"research/rc/v4", "research/rc/ironwood"});
}

void TestItemModels::contents()
{
    QFETCH(QString, kind);
    QFETCH(QStringList, header);
    QFETCH(QStringList, rowsA);
    QFETCH(QStringList, keysA);
    QFETCH(QStringList, rowsB);
    QFETCH(QStringList, keysB);

    const auto model = makeModel(kind);
    // Attached before any data arrives, so it sees every reset.
    QAbstractItemModelTester tester(model.get(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy resets(model.get(), &QAbstractItemModel::modelReset);

    QCOMPARE(textSnapshot(*model), header); // no snapshot yet: columns, no rows

    model->setSnapshot(m_a);
    QCOMPARE(textSnapshot(*model), header + rowsA);
    QCOMPARE(keysOf(*model), keysA);

    model->setSnapshot(m_b);
    QCOMPARE(textSnapshot(*model), header + rowsB);
    QCOMPARE(keysOf(*model), keysB);
    for (int r = 0; r < keysB.size(); ++r) {
        QCOMPARE(model->rowOfKey(keysB[r]), r);
        for (int c = 0; c < model->columnCount(); ++c) // every cell of a row carries the row's key
            QCOMPARE(model->index(r, c).data(SnapshotTableModel::KeyRole).toString(), keysB[r]);
    }
    for (const QString &gone : keysA)
        if (!keysB.contains(gone))
            QCOMPARE(model->rowOfKey(gone), -1);
    QCOMPARE(model->rowOfKey(QStringLiteral("no-such-row")), -1);

    model->setSnapshot(buildSnapshot(Capture{}));
    QCOMPARE(textSnapshot(*model), header);
    QCOMPARE(model->rowOfKey(keysB.first()), -1);

    model->setSnapshot(m_a); // and back, from empty
    QCOMPARE(textSnapshot(*model), header + rowsA);
    QCOMPARE(model->rowOfKey(keysA.last()), int(keysA.size()) - 1);

    model->setSnapshot(nullptr);
    QCOMPARE(textSnapshot(*model), header);
    QCOMPARE(model->rowOfKey(keysA.first()), -1);

    // Each setSnapshot() is one whole reset, never a partial update.
    QCOMPARE(resets.size(), 5);
}

void TestItemModels::sortRole_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<bool>("useB");
    QTest::addColumn<QString>("key");
    QTest::addColumn<int>("column");
    QTest::addColumn<int>("expected");

    // Numeric columns sort as numbers: "10" after "9", "unbounded" after any count.
    QTest::newRow("slice hosts") << "slices" << false << "tpu-a-0" << int(SliceTableModel::Hosts) << 2;
    QTest::newRow("slice chips") << "slices" << false << "tpu-a-0" << int(SliceTableModel::Chips) << 8;
    QTest::newRow("slice reserved") << "slices" << false << "tpu-a-0" << int(SliceTableModel::Reserved) << 8;
    QTest::newRow("slice reserved none") << "slices" << false << "lite-0" << int(SliceTableModel::Reserved) << 0;
    QTest::newRow("slice topology by chips") << "slices" << true << "v4-0" << int(SliceTableModel::Topology) << 8;
    QTest::newRow("slice status") << "slices" << true << "v4-0" << int(SliceTableModel::Status) << int(SliceStatus::Degraded);
    QTest::newRow("host worker") << "hosts" << false << "tpu-a-0/1" << int(HostTableModel::Worker) << 1;
    QTest::newRow("host chips") << "hosts" << false << "tpu-a-0/1" << int(HostTableModel::Chips) << 4;
    QTest::newRow("host reserved") << "hosts" << false << "tpu-a-0/1" << int(HostTableModel::Reserved) << 4;
    QTest::newRow("host state") << "hosts" << true << "v4-0/1" << int(HostTableModel::State) << int(HostState::Dead);
    QTest::newRow("pg bundles") << "placementGroups" << false << "1a00000001" << int(PlacementGroupTableModel::Bundles) << 2;
    QTest::newRow("pg tpu") << "placementGroups" << false << "1a00000001" << int(PlacementGroupTableModel::Tpu) << 8;
    QTest::newRow("pg tpu none") << "placementGroups" << false << "1a00000002" << int(PlacementGroupTableModel::Tpu) << 0;
    QTest::newRow("group replicas") << "workerGroups" << false << "ml/ray-v6e/cpu" << int(WorkerGroupTableModel::Replicas) << 2;
    QTest::newRow("group min") << "workerGroups" << true << "research/rc/v4" << int(WorkerGroupTableModel::Min) << 1;
    QTest::newRow("group max") << "workerGroups" << false << "ml/ray-v6e/cpu" << int(WorkerGroupTableModel::Max) << 4;
    QTest::newRow("group max unbounded") << "workerGroups" << true << "research/rc/v4" << int(WorkerGroupTableModel::Max)
                                         << std::numeric_limits<int>::max();
    QTest::newRow("group hosts") << "workerGroups" << false << "ml/ray-v6e/tpu-a" << int(WorkerGroupTableModel::HostsPerSlice) << 2;
    QTest::newRow("group chips") << "workerGroups" << false << "ml/ray-v6e/tpu-a" << int(WorkerGroupTableModel::ChipsPerHost) << 4;
    QTest::newRow("group slices by count") << "workerGroups" << false << "ml/ray-v6e/tpu-a" << int(WorkerGroupTableModel::Slices) << 1;
}

void TestItemModels::sortRole()
{
    QFETCH(QString, kind);
    QFETCH(bool, useB);
    QFETCH(QString, key);
    QFETCH(int, column);
    QFETCH(int, expected);

    const auto model = makeModel(kind);
    model->setSnapshot(useB ? m_b : m_a);
    const int row = model->rowOfKey(key);
    QVERIFY(row >= 0);
    const QVariant v = model->index(row, column).data(SnapshotTableModel::SortRole);
    QCOMPARE(v.typeId(), int(QMetaType::Int));
    QCOMPARE(v.toInt(), expected);
}

QTEST_GUILESS_MAIN(TestItemModels)
#include "tst_itemmodels.moc"
