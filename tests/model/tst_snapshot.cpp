// SPDX-License-Identifier: GPL-3.0-or-later
// The model tier over fixture captures (tests/data/captures, described in its README.md): every
// fixture goes through readCaptureFixture() (readCaptureFile() without the file bounds) and buildSnapshot(), exactly the path live data takes.
// Expected values are worked out by hand from docs/facts.md (labels, pod grouping, the canonical chip
// layout of section 3, intactness of section 2.2) and the fixture text, never copied from output.

#include "capturefixture.h"
#include "inspectjson.h"
#include "snapshot.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTest>

using namespace slicescope;

namespace {

// The fixtures use readable ids: a Ray node id is a short hex tag padded with zeros to 56 hex
// digits, a placement group id a tag padded to 28 digits plus the job id 02000000.
QString nodeId(const char *tag)
{
    return QString::fromLatin1(tag).leftJustified(56, u'0');
}

QString pgId(const char *tag)
{
    return QString::fromLatin1(tag).leftJustified(28, u'0') + QStringLiteral("02000000");
}

QString capturePath(const QString &name)
{
    return QStringLiteral(SLICESCOPE_TEST_DATA "/captures/") + name + QStringLiteral(".slicescope.json");
}

// Reads one fixture; on failure returns an empty capture and says why in *error.
Capture loadCapture(const QString &name, QString *error)
{
    CaptureReadResult read = testfixture::readCaptureFixture(capturePath(name));
    if (!read.ok()) {
        *error = read.error;
        return {};
    }
    if (read.captures.size() != 1) {
        *error = QStringLiteral("%1: expected one capture, got %2").arg(name).arg(read.captures.size());
        return {};
    }
    return read.captures.first();
}

#define LOAD_SNAPSHOT(var, name) \
    SnapshotPtr var; \
    do { \
        QString loadError_; \
        const Capture capture_ = loadCapture(name, &loadError_); \
        QVERIFY2(loadError_.isEmpty(), qPrintable(loadError_)); \
        var = buildSnapshot(capture_); \
        QVERIFY(var); \
    } while (false)

QStringList sliceNames(const ClusterSnapshot &s)
{
    QStringList names;
    for (const Slice &slice : s.slices)
        names << slice.name;
    return names;
}

// "ALIVE,ALIVE,DEAD,MISSING": host states in worker-id order.
QString hostStates(const Slice &slice)
{
    QStringList states;
    for (const Host &h : slice.hosts)
        states << toText(h.state);
    return states.join(u',');
}

// Who holds each chip of one host: "2b/1" = placement group with id tag 2b, bundle 1; "-" = free.
// The tag is the part of the id before the zero padding (see pgId()).
QString chipOwners(const ClusterSnapshot &s, const Host &h)
{
    QStringList owners;
    for (const ChipUse &c : h.chips) {
        if (c.placementGroup < 0) {
            owners << QStringLiteral("-");
            continue;
        }
        QString tag = s.placementGroups[c.placementGroup].id;
        tag.chop(8); // job id
        while (tag.endsWith(u'0'))
            tag.chop(1);
        owners << QStringLiteral("%1/%2").arg(tag).arg(c.bundleIndex);
    }
    return owners.join(u',');
}

bool anyContains(const QStringList &list, const QStringList &needles)
{
    for (const QString &line : list) {
        bool all = true;
        for (const QString &n : needles)
            all = all && line.contains(n);
        if (all)
            return true;
    }
    return false;
}

QString rayNodeIdOf(const ClusterSnapshot &s, const Host &h)
{
    return h.rayNode >= 0 ? s.rayNodes[h.rayNode].id : QString();
}

QString podOf(const ClusterSnapshot &s, const Host &h)
{
    return h.pod >= 0 ? s.pods[h.pod].qualifiedName() : QString();
}

const Slice *findSlice(const ClusterSnapshot &s, const QString &name)
{
    const int i = s.sliceIndex(name);
    return i >= 0 ? &s.slices[i] : nullptr;
}

#define FIND_SLICE(var, snap, name) \
    const Slice *var = findSlice(*(snap), name); \
    QVERIFY2(var, qPrintable(QStringLiteral("no slice %1 in %2").arg(name, sliceNames(*(snap)).join(u' '))))

const QStringList kFixtures = {
    QStringLiteral("ray-v6e-two-slices"),
    QStringLiteral("ray-shared-ip"),
    QStringLiteral("ray-dead-hosts"),
    QStringLiteral("ray-partial-host"),
    QStringLiteral("ray-string-numbers"),
    QStringLiteral("ray-incomplete-lists"),
    QStringLiteral("bad-wrong-types"),
    QStringLiteral("ray-no-tpu-labels"),
    QStringLiteral("kube-kuberay"),
    QStringLiteral("kube-legacy-env"),
    QStringLiteral("mixed-ray-kube"),
    QStringLiteral("ray-v4-2x2x2"),
    QStringLiteral("ray-v5p-4x4x4"),
    QStringLiteral("ray-v7x"),
    QStringLiteral("ray-v5e-16"),
};

} // namespace

class TestSnapshot : public QObject
{
    Q_OBJECT

private slots:
    void fixturesLoad_data();
    void fixturesLoad();
    void sliceShape_data();
    void sliceShape();
    void chipCoordinates_data();
    void chipCoordinates();
    void layoutCoversEveryChipOnce_data();
    void layoutCoversEveryChipOnce();
    void chipOwners_data();
    void chipOwners();
    void hostNodes_data();
    void hostNodes();

    void twoSlicesPlacementGroups();
    void twoSlicesJobsAndStatus();
    void sharedIpKeysOnNodeId();
    void deadHosts();
    void partialHost();
    void stringNumbers();
    void incompleteLists();
    void wrongTypes();
    void noTpuLabels();
    void truncatedBody_data();
    void truncatedBody();

    void kubeWorkerGroups();
    void kubeHosts();
    void kubeLegacyEnv();
    void kubeLegacyReplicaIndexLabel();
    void mixedJoin();
    void v5pCoordinatesByHand();

    void inspectJsonSchema();
    void groupLabels();
};

// Every fixture parses as one capture at the advertised time; only the bad-* ones have errors.
void TestSnapshot::fixturesLoad_data()
{
    QTest::addColumn<QString>("name");
    for (const QString &f : kFixtures)
        QTest::newRow(qPrintable(f)) << f;
    // A new fixture must be added to kFixtures (and to the README) to be covered.
    const QStringList onDisk = QDir(QStringLiteral(SLICESCOPE_TEST_DATA "/captures"))
                                   .entryList({QStringLiteral("*.slicescope.json")}, QDir::Files);
    QCOMPARE(onDisk.size(), kFixtures.size());
}

void TestSnapshot::fixturesLoad()
{
    QFETCH(QString, name);
    QString error;
    const Capture capture = loadCapture(name, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(capture.capturedAt, QDateTime(QDate(2026, 11, 29), QTime(18, 0), Qt::UTC));
    const SnapshotPtr snap = buildSnapshot(capture);
    QCOMPARE(snap->capturedAt, capture.capturedAt);
    if (!name.startsWith(QLatin1String("bad-")))
        QVERIFY2(snap->errors.isEmpty(), qPrintable(snap->errors.join(u'\n')));
}

void TestSnapshot::sliceShape_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("slice");
    QTest::addColumn<QString>("generation");
    QTest::addColumn<QString>("topology");
    QTest::addColumn<QList<int>>("dims");
    QTest::addColumn<QString>("podType");
    QTest::addColumn<int>("chips");
    QTest::addColumn<int>("hostCount");
    QTest::addColumn<int>("chipsPerHost");
    QTest::addColumn<QString>("states");
    QTest::addColumn<bool>("intact");
    QTest::addColumn<int>("reservedChips");
    QTest::addColumn<QString>("status");
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("workerGroup");

    const QString A4 = QStringLiteral("ALIVE,ALIVE,ALIVE,ALIVE");
    const QString A2 = QStringLiteral("ALIVE,ALIVE");
    const QString none;
    // Two v6e 4x4 slices, 4 hosts x 4 chips; tpu-v6e-0 wholly held by the slice PG (4 x TPU 4).
    QTest::newRow("v6e 4x4 reserved") << "ray-v6e-two-slices" << "tpu-v6e-0" << "v6e" << "4x4" << QList<int>{4, 4, 1}
                                      << "v6e-16" << 16 << 4 << 4 << A4 << true << 16 << "reserved" << "ray" << none;
    // The REMOVED group's bundles on tpu-v6e-1 must not count.
    QTest::newRow("v6e 4x4 ready") << "ray-v6e-two-slices" << "tpu-v6e-1" << "v6e" << "4x4" << QList<int>{4, 4, 1}
                                   << "v6e-16" << 16 << 4 << 4 << A4 << true << 0 << "ready" << "ray" << none;
    QTest::newRow("shared ip 4x4") << "ray-shared-ip" << "local-0" << "v6e" << "4x4" << QList<int>{4, 4, 1}
                                   << "v6e-16" << 16 << 4 << 4 << A4 << true << 16 << "reserved" << "ray" << none;
    QTest::newRow("shared ip 2x2") << "ray-shared-ip" << "local-1" << "v6e" << "2x2" << QList<int>{2, 2, 1}
                                   << "v6e-4" << 4 << 1 << 4 << "ALIVE" << true << 4 << "reserved" << "ray" << none;
    // Worker 1 replaced (alive), worker 2 dead, worker 3 never reported. Only worker 0's bundle
    // holds chips: worker 1's bundle sits on the dead node the replacement took over from.
    QTest::newRow("dead hosts") << "ray-dead-hosts" << "tpu-v6e-0" << "v6e" << "4x4" << QList<int>{4, 4, 1}
                                << "v6e-16" << 16 << 4 << 4 << "ALIVE,ALIVE,DEAD,MISSING" << false << 4 << "degraded" << "ray" << none;
    // One 8-chip v6e host (2x4 block) with a TPU 2 bundle.
    QTest::newRow("partial host") << "ray-partial-host" << "tpu-v6e-8-0" << "v6e" << "2x4" << QList<int>{2, 4, 1}
                                  << "v6e-8" << 8 << 1 << 8 << "ALIVE" << true << 2 << "reserved" << "ray" << none;
    // v6e 2x4 on two 4-chip hosts; numbers as strings.
    QTest::newRow("string numbers") << "ray-string-numbers" << "pair-0" << "v6e" << "2x4" << QList<int>{2, 4, 1}
                                    << "v6e-8" << 8 << 2 << 4 << A2 << true << 8 << "reserved" << "ray" << none;
    QTest::newRow("wrong types: the good node") << "bad-wrong-types" << "tpu-v6e-4-0" << "v6e" << "2x2" << QList<int>{2, 2, 1}
                                                << "v6e-4" << 4 << 1 << 4 << "ALIVE" << true << 0 << "ready" << "ray" << none;
    // Kubernetes alone: a running, ready pod is an ALIVE host; chips per host from google.com/tpu "4".
    QTest::newRow("kube replica 0") << "kube-kuberay" << "v6e-4x4-0" << "v6e" << "4x4" << QList<int>{4, 4, 1}
                                    << "v6e-16" << 16 << 4 << 4 << A4 << true << 0 << "ready" << "kubernetes" << "ml/tpu-cluster/v6e-4x4";
    // Host 2 running but not ready, host 3 Pending (unschedulable): still coming up.
    QTest::newRow("kube replica 1") << "kube-kuberay" << "v6e-4x4-1" << "v6e" << "4x4" << QList<int>{4, 4, 1}
                                    << "v6e-16" << 16 << 4 << 4 << "ALIVE,ALIVE,PENDING,PENDING" << false << 0 << "provisioning" << "kubernetes"
                                    << "ml/tpu-cluster/v6e-4x4";
    // Every pod terminating (the replica being removed): the hosts are going away, not coming up.
    QTest::newRow("kube replica 2 deleting") << "kube-kuberay" << "v6e-4x4-2" << "v6e" << "4x4" << QList<int>{4, 4, 1}
                                             << "v6e-16" << 16 << 4 << 4 << "DEAD,DEAD,DEAD,DEAD" << false << 0 << "degraded" << "kubernetes"
                                             << "ml/tpu-cluster/v6e-4x4";
    // Legacy pods: slice from env TPU_NAME, host from env TPU_WORKER_ID, TPU from limits only.
    QTest::newRow("kube legacy v5e") << "kube-legacy-env" << "v5e-group-0" << "v5e" << "4x4" << QList<int>{4, 4, 1}
                                     << "v5litepod-16" << 16 << 4 << 4 << A4 << true << 0 << "ready" << "kubernetes"
                                     << "research/legacy-cluster/v5e-group";
    // Ray and Kubernetes joined: head resource and both chips held.
    QTest::newRow("mixed 0") << "mixed-ray-kube" << "tpu-group-0" << "v6e" << "2x4" << QList<int>{2, 4, 1}
                             << "v6e-8" << 8 << 2 << 4 << A2 << true << 8 << "reserved" << "both" << "default/tpu-train/tpu-group";
    // Worker 1's Ray node has no slice labels; its pod finds it by IP.
    QTest::newRow("mixed 1 ip join") << "mixed-ray-kube" << "tpu-group-1" << "v6e" << "2x4" << QList<int>{2, 4, 1}
                                     << "v6e-8" << 8 << 2 << 4 << A2 << true << 0 << "ready" << "both" << "default/tpu-train/tpu-group";
    // Worker 1's pod runs but its Ray node has not joined yet.
    QTest::newRow("mixed 2 not joined") << "mixed-ray-kube" << "tpu-group-2" << "v6e" << "2x4" << QList<int>{2, 4, 1}
                                        << "v6e-8" << 8 << 2 << 4 << "ALIVE,PENDING" << false << 0 << "provisioning" << "both"
                                        << "default/tpu-train/tpu-group";
    // Pods being deleted: both hosts are going (DEAD), though Ray still lists worker 0 alive
    // (issue 12: a pod with a deletionTimestamp is not a live host).
    QTest::newRow("mixed 3 deleting") << "mixed-ray-kube" << "tpu-group-3" << "v6e" << "2x4" << QList<int>{2, 4, 1}
                                      << "v6e-8" << 8 << 2 << 4 << "DEAD,DEAD" << false << 0 << "degraded" << "both" << "default/tpu-train/tpu-group";
    // v4: the pod type counts TensorCores, 2 per chip: 8 chips -> v4-16. 4-chip hosts -> 2 hosts.
    QTest::newRow("v4 2x2x2") << "ray-v4-2x2x2" << "tpu-v4-0" << "v4" << "2x2x2" << QList<int>{2, 2, 2}
                              << "v4-16" << 8 << 2 << 4 << A2 << true << 0 << "ready" << "ray" << none;
    // v5p 4x4x4: 64 chips, 128 TensorCores, 16 hosts; the head PG holds TPU-v5p-128-head only.
    QTest::newRow("v5p 4x4x4") << "ray-v5p-4x4x4" << "tpu-v5p-0" << "v5p" << "4x4x4" << QList<int>{4, 4, 4}
                               << "v5p-128" << 64 << 16 << 4 << QStringList(16, QStringLiteral("ALIVE")).join(u',') << true << 0 << "reserved"
                               << "ray" << none;
    // v7x 2x2x2 = 8 chips = 16 TensorCores; "tpu7x-16" (un-normalised) means the same as "v7x-16".
    QTest::newRow("v7x") << "ray-v7x" << "ironwood-0" << "v7x" << "2x2x2" << QList<int>{2, 2, 2}
                         << "v7x-16" << 8 << 2 << 4 << A2 << true << 0 << "ready" << "ray" << none;
    QTest::newRow("tpu7x") << "ray-v7x" << "ironwood-legacy-0" << "v7x" << "2x2x2" << QList<int>{2, 2, 2}
                           << "v7x-16" << 8 << 2 << 4 << A2 << true << 0 << "ready" << "ray" << none;
    // v5e counts one TensorCore per chip: 16 chips -> v5litepod-16.
    QTest::newRow("v5e 4x4") << "ray-v5e-16" << "tpu-v5e-0" << "v5e" << "4x4" << QList<int>{4, 4, 1}
                             << "v5litepod-16" << 16 << 4 << 4 << A4 << true << 0 << "ready" << "ray" << none;
}

void TestSnapshot::sliceShape()
{
    QFETCH(QString, file);
    QFETCH(QString, slice);
    QFETCH(QString, generation);
    QFETCH(QString, topology);
    QFETCH(QList<int>, dims);
    QFETCH(QString, podType);
    QFETCH(int, chips);
    QFETCH(int, hostCount);
    QFETCH(int, chipsPerHost);
    QFETCH(QString, states);
    QFETCH(bool, intact);
    QFETCH(int, reservedChips);
    QFETCH(QString, status);
    QFETCH(QString, source);
    QFETCH(QString, workerGroup);

    LOAD_SNAPSHOT(snap, file);
    FIND_SLICE(s, snap, slice);
    QVERIFY(s->generation);
    QCOMPARE(s->generation->name, generation);
    QCOMPARE(s->topology.toString(), topology);
    QCOMPARE((QList<int>{s->topology.dims.x, s->topology.dims.y, s->topology.dims.z}), dims);
    QCOMPARE(s->podType, podType);
    QCOMPARE(s->chips(), chips);
    QCOMPARE(s->hostCount(), hostCount);
    QCOMPARE(s->chipsPerHost, chipsPerHost);
    QVERIFY(s->layout.isValid());
    QCOMPARE(s->layout.hostCount(), hostCount);
    QCOMPARE(hostStates(*s), states);
    for (int w = 0; w < s->hosts.size(); ++w) {
        QCOMPARE(s->hosts[w].workerId, w);
        QCOMPARE(s->hosts[w].chips.size(), chipsPerHost);
    }
    QCOMPARE(s->intact, intact);
    QCOMPARE(s->problems.isEmpty(), intact);
    QCOMPARE(s->reservedChips, reservedChips);
    int perHost = 0;
    for (const Host &h : s->hosts)
        perHost += h.reservedChips();
    QCOMPARE(perHost, reservedChips);
    QCOMPARE(toText(s->status()), status);
    QCOMPARE(toText(s->source), source);
    QCOMPARE(s->workerGroup, workerGroup);
}

// Chip positions, worked out from docs/facts.md 3: host w sits at host-grid (bx, by, bz) with
// w = bx + by*Bx + bz*Bx*By, chip c at its block offset, x fastest.
void TestSnapshot::chipCoordinates_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("slice");
    QTest::addColumn<int>("worker");
    QTest::addColumn<int>("chip");
    QTest::addColumn<QList<int>>("xyz");

    // v6e 4x4, 2x2 blocks, host grid 2x2.
    QTest::newRow("v6e w0 c0") << "ray-v6e-two-slices" << "tpu-v6e-0" << 0 << 0 << QList<int>{0, 0, 0};
    QTest::newRow("v6e w0 c3") << "ray-v6e-two-slices" << "tpu-v6e-0" << 0 << 3 << QList<int>{1, 1, 0};
    QTest::newRow("v6e w1 c0") << "ray-v6e-two-slices" << "tpu-v6e-0" << 1 << 0 << QList<int>{2, 0, 0};
    QTest::newRow("v6e w1 c2") << "ray-v6e-two-slices" << "tpu-v6e-0" << 1 << 2 << QList<int>{2, 1, 0};
    QTest::newRow("v6e w2 c1") << "ray-v6e-two-slices" << "tpu-v6e-0" << 2 << 1 << QList<int>{1, 2, 0};
    QTest::newRow("v6e w3 c3") << "ray-v6e-two-slices" << "tpu-v6e-0" << 3 << 3 << QList<int>{3, 3, 0};
    // v6e 2x4 on one 8-chip host: the block is the whole slice, 2 wide.
    QTest::newRow("2x4 one host c2") << "ray-partial-host" << "tpu-v6e-8-0" << 0 << 2 << QList<int>{0, 1, 0};
    QTest::newRow("2x4 one host c5") << "ray-partial-host" << "tpu-v6e-8-0" << 0 << 5 << QList<int>{1, 2, 0};
    QTest::newRow("2x4 one host c7") << "ray-partial-host" << "tpu-v6e-8-0" << 0 << 7 << QList<int>{1, 3, 0};
    // v6e 2x4 on two 4-chip hosts: host grid 1x2, worker 1 owns y = 2..3.
    QTest::newRow("2x4 two hosts w1 c0") << "ray-string-numbers" << "pair-0" << 1 << 0 << QList<int>{0, 2, 0};
    QTest::newRow("2x4 two hosts w1 c3") << "ray-string-numbers" << "pair-0" << 1 << 3 << QList<int>{1, 3, 0};
    // v4 2x2x2: 2x2x1 blocks stacked in z.
    QTest::newRow("v4 w0 c2") << "ray-v4-2x2x2" << "tpu-v4-0" << 0 << 2 << QList<int>{0, 1, 0};
    QTest::newRow("v4 w1 c0") << "ray-v4-2x2x2" << "tpu-v4-0" << 1 << 0 << QList<int>{0, 0, 1};
    QTest::newRow("v4 w1 c3") << "ray-v4-2x2x2" << "tpu-v4-0" << 1 << 3 << QList<int>{1, 1, 1};
    QTest::newRow("v7x w1 c1") << "ray-v7x" << "ironwood-legacy-0" << 1 << 1 << QList<int>{1, 0, 1};
    // v5p 4x4x4: host grid Bx=2, By=2, Bz=4.
    // w5 = 1 + 0*2 + 1*4 -> (bx,by,bz) = (1,0,1) -> origin (2,0,1).
    QTest::newRow("v5p w5 c0") << "ray-v5p-4x4x4" << "tpu-v5p-0" << 5 << 0 << QList<int>{2, 0, 1};
    QTest::newRow("v5p w5 c3") << "ray-v5p-4x4x4" << "tpu-v5p-0" << 5 << 3 << QList<int>{3, 1, 1};
    // w10 = 0 + 1*2 + 2*4 -> (0,1,2) -> origin (0,2,2).
    QTest::newRow("v5p w10 c2") << "ray-v5p-4x4x4" << "tpu-v5p-0" << 10 << 2 << QList<int>{0, 3, 2};
    // w3 = 1 + 1*2 + 0 -> (1,1,0) -> origin (2,2,0).
    QTest::newRow("v5p w3 c0") << "ray-v5p-4x4x4" << "tpu-v5p-0" << 3 << 0 << QList<int>{2, 2, 0};
    // w15 = 1 + 1*2 + 3*4 -> (1,1,3) -> origin (2,2,3); chip 3 at +(1,1,0).
    QTest::newRow("v5p w15 c3") << "ray-v5p-4x4x4" << "tpu-v5p-0" << 15 << 3 << QList<int>{3, 3, 3};
    // v5e 4x4 like v6e.
    QTest::newRow("v5e w2 c0") << "ray-v5e-16" << "tpu-v5e-0" << 2 << 0 << QList<int>{0, 2, 0};
}

void TestSnapshot::chipCoordinates()
{
    QFETCH(QString, file);
    QFETCH(QString, slice);
    QFETCH(int, worker);
    QFETCH(int, chip);
    QFETCH(QList<int>, xyz);

    LOAD_SNAPSHOT(snap, file);
    FIND_SLICE(s, snap, slice);
    QVERIFY(s->layout.isValid());
    QVERIFY(worker < s->hosts.size());
    QVERIFY(chip < s->hosts[worker].chips.size());
    const tpu::ChipCoord c = s->layout.chipPosition(worker, chip);
    QCOMPARE((QList<int>{c.x, c.y, c.z}), xyz);
    // The inverse agrees.
    QCOMPARE(s->layout.workerAt(c), worker);
    QCOMPARE(s->layout.chipIndexAt(c), chip);

    // And inspect prints the same coordinates.
    const QJsonObject doc = inspectJson(*snap);
    const QJsonObject js = doc[QLatin1String("slices")].toArray()[snap->sliceIndex(slice)].toObject();
    const QJsonObject jc = js[QLatin1String("hosts")].toArray()[worker].toObject()[QLatin1String("chips")].toArray()[chip].toObject();
    QCOMPARE((QList<int>{jc[QLatin1String("x")].toInt(), jc[QLatin1String("y")].toInt(), jc[QLatin1String("z")].toInt()}), xyz);
}

// The hosts' blocks tile the topology: every coordinate belongs to exactly one (host, chip).
void TestSnapshot::layoutCoversEveryChipOnce_data()
{
    QTest::addColumn<QString>("file");
    for (const QString &f : kFixtures)
        QTest::newRow(qPrintable(f)) << f;
}

void TestSnapshot::layoutCoversEveryChipOnce()
{
    QFETCH(QString, file);
    LOAD_SNAPSHOT(snap, file);
    for (const Slice &s : snap->slices) {
        if (!s.layout.isValid())
            continue;
        QSet<int> seen;
        const tpu::Dims d = s.layout.dims();
        for (int w = 0; w < s.layout.hostCount(); ++w) {
            QVERIFY(w < s.hosts.size());
            for (int c = 0; c < s.hosts[w].chips.size(); ++c) {
                const tpu::ChipCoord at = s.layout.chipPosition(w, c);
                QVERIFY(at.x >= 0 && at.x < d.x && at.y >= 0 && at.y < d.y && at.z >= 0 && at.z < d.z);
                const int key = at.x + at.y * d.x + at.z * d.x * d.y;
                QVERIFY2(!seen.contains(key), qPrintable(QStringLiteral("%1: chip (%2,%3,%4) twice").arg(s.name).arg(at.x).arg(at.y).arg(at.z)));
                seen.insert(key);
            }
        }
        QCOMPARE(int(seen.size()), s.chips());
    }
}

// Which placement group bundle holds each chip, host by host ("-" = free). A bundle's TPU units
// fill its host's chips in chip order (ARCHITECTURE.md, inspect).
void TestSnapshot::chipOwners_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("slice");
    QTest::addColumn<QStringList>("hosts");

    auto all = [](const char *owner, int n) {
        return QStringList(n, QString::fromLatin1(owner)).join(u',');
    };
    // The slice PG 2b put bundle 0 on worker 0, 1 on worker 2, 2 on worker 1, 3 on worker 3.
    QTest::newRow("v6e slice pg") << "ray-v6e-two-slices" << "tpu-v6e-0"
                                  << QStringList{all("2b/0", 4), all("2b/2", 4), all("2b/1", 4), all("2b/3", 4)};
    QTest::newRow("v6e removed pg ignored") << "ray-v6e-two-slices" << "tpu-v6e-1"
                                            << QStringList{all("-", 4), all("-", 4), all("-", 4), all("-", 4)};
    // Same IP everywhere: bundles are matched to hosts by node id (5b reversed them).
    QTest::newRow("shared ip") << "ray-shared-ip" << "local-0"
                               << QStringList{all("5b/3", 4), all("5b/2", 4), all("5b/1", 4), all("5b/0", 4)};
    QTest::newRow("shared ip single host") << "ray-shared-ip" << "local-1" << QStringList{all("5c/0", 4)};
    // Bundle 1 sits on the dead node e9 that e1 replaced: it holds nothing on worker 1.
    QTest::newRow("dead hosts") << "ray-dead-hosts" << "tpu-v6e-0"
                                << QStringList{all("6a/0", 4), all("-", 4), all("-", 4), all("-", 4)};
    // TPU 2 of bundle 1 take the first two chips of the 8.
    QTest::newRow("partial host") << "ray-partial-host" << "tpu-v6e-8-0"
                                  << QStringList{QStringLiteral("7a/1,7a/1,-,-,-,-,-,-")};
    // Bundle 0 ("TPU": "4") is on worker 1, bundle "1" on worker 0.
    QTest::newRow("string numbers") << "ray-string-numbers" << "pair-0" << QStringList{all("8a/1", 4), all("8a/0", 4)};
    QTest::newRow("mixed") << "mixed-ray-kube" << "tpu-group-0" << QStringList{all("ab/1", 4), all("ab/0", 4)};
    // The head PG holds a resource, not chips.
    QTest::newRow("v5p head only") << "ray-v5p-4x4x4" << "tpu-v5p-0" << QStringList(16, all("-", 4));
}

void TestSnapshot::chipOwners()
{
    QFETCH(QString, file);
    QFETCH(QString, slice);
    QFETCH(QStringList, hosts);
    LOAD_SNAPSHOT(snap, file);
    FIND_SLICE(s, snap, slice);
    QStringList actual;
    for (const Host &h : s->hosts)
        actual << ::chipOwners(*snap, h);
    QCOMPARE(actual, hosts);
}

// Which Ray node and pod each host joined (empty = none).
void TestSnapshot::hostNodes_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("slice");
    QTest::addColumn<QStringList>("rayNodes");
    QTest::addColumn<QStringList>("pods");

    const QStringList noPods4(4, QString()), noPods2(2, QString());
    QTest::newRow("two slices a") << "ray-v6e-two-slices" << "tpu-v6e-0"
                                  << QStringList{nodeId("a0"), nodeId("a1"), nodeId("a2"), nodeId("a3")} << noPods4;
    QTest::newRow("two slices b") << "ray-v6e-two-slices" << "tpu-v6e-1"
                                  << QStringList{nodeId("b0"), nodeId("b1"), nodeId("b2"), nodeId("b3")} << noPods4;
    QTest::newRow("shared ip") << "ray-shared-ip" << "local-0"
                               << QStringList{nodeId("c0"), nodeId("c1"), nodeId("c2"), nodeId("c3")} << noPods4;
    // e1 (alive, newer) wins worker 1 over e9 (dead); e2 is dead with no replacement.
    QTest::newRow("dead hosts") << "ray-dead-hosts" << "tpu-v6e-0"
                                << QStringList{nodeId("e0"), nodeId("e1"), nodeId("e2"), QString()} << noPods4;
    QTest::newRow("string numbers") << "ray-string-numbers" << "pair-0" << QStringList{nodeId("90"), nodeId("91")} << noPods2;
    // v5p node ids are 5 followed by the hex digit of 7*w mod 16: not in worker order.
    QStringList v5p;
    for (int w = 0; w < 16; ++w)
        v5p << QStringLiteral("5%1").arg(7 * w % 16, 0, 16).leftJustified(56, u'0');
    QTest::newRow("v5p") << "ray-v5p-4x4x4" << "tpu-v5p-0" << v5p << QStringList(16, QString());
    QTest::newRow("kube replica 0") << "kube-kuberay" << "v6e-4x4-0" << QStringList(4, QString())
                                    << QStringList{QStringLiteral("ml/tpu-cluster-v6e-4x4-worker-q2w3e"), QStringLiteral("ml/tpu-cluster-v6e-4x4-worker-r4t5y"),
                                                   QStringLiteral("ml/tpu-cluster-v6e-4x4-worker-u6i7o"), QStringLiteral("ml/tpu-cluster-v6e-4x4-worker-p8a9s")};
    QTest::newRow("kube replica 1") << "kube-kuberay" << "v6e-4x4-1" << QStringList(4, QString())
                                    << QStringList{QStringLiteral("ml/tpu-cluster-v6e-4x4-worker-d1f2g"), QStringLiteral("ml/tpu-cluster-v6e-4x4-worker-h3j4k"),
                                                   QStringLiteral("ml/tpu-cluster-v6e-4x4-worker-l5z6x"), QStringLiteral("ml/tpu-cluster-v6e-4x4-worker-c7v8b")};
    QTest::newRow("kube legacy") << "kube-legacy-env" << "v5e-group-0" << QStringList(4, QString())
                                 << QStringList{QStringLiteral("research/legacy-cluster-v5e-group-worker-k2j3h"),
                                                QStringLiteral("research/legacy-cluster-v5e-group-worker-g4f5d"),
                                                QStringLiteral("research/legacy-cluster-v5e-group-worker-s6a7p"),
                                                QStringLiteral("research/legacy-cluster-v5e-group-worker-o8i9u")};
    const QString podPrefix = QStringLiteral("default/tpu-train-tpu-group-worker-");
    QTest::newRow("mixed 0") << "mixed-ray-kube" << "tpu-group-0" << QStringList{nodeId("a0"), nodeId("a1")}
                             << QStringList{podPrefix + QStringLiteral("0aaaa"), podPrefix + QStringLiteral("0bbbb")};
    // b1 carries no slice labels: joined by pod IP 10.4.1.11.
    QTest::newRow("mixed 1") << "mixed-ray-kube" << "tpu-group-1" << QStringList{nodeId("b0"), nodeId("b1")}
                             << QStringList{podPrefix + QStringLiteral("1aaaa"), podPrefix + QStringLiteral("1bbbb")};
    QTest::newRow("mixed 2") << "mixed-ray-kube" << "tpu-group-2" << QStringList{nodeId("c0"), QString()}
                             << QStringList{podPrefix + QStringLiteral("2aaaa"), podPrefix + QStringLiteral("2bbbb")};
    QTest::newRow("mixed 3") << "mixed-ray-kube" << "tpu-group-3" << QStringList{nodeId("d0"), nodeId("d1")}
                             << QStringList{podPrefix + QStringLiteral("3aaaa"), podPrefix + QStringLiteral("3bbbb")};
}

void TestSnapshot::hostNodes()
{
    QFETCH(QString, file);
    QFETCH(QString, slice);
    QFETCH(QStringList, rayNodes);
    QFETCH(QStringList, pods);
    LOAD_SNAPSHOT(snap, file);
    FIND_SLICE(s, snap, slice);
    QStringList actualNodes, actualPods;
    for (const Host &h : s->hosts) {
        actualNodes << rayNodeIdOf(*snap, h);
        actualPods << podOf(*snap, h);
    }
    QCOMPARE(actualNodes, rayNodes);
    QCOMPARE(actualPods, pods);
}

void TestSnapshot::twoSlicesPlacementGroups()
{
    LOAD_SNAPSHOT(snap, QStringLiteral("ray-v6e-two-slices"));
    QCOMPARE(snap->errors, QStringList());
    QCOMPARE(snap->warnings, QStringList());
    QCOMPARE(sliceNames(*snap), (QStringList{QStringLiteral("tpu-v6e-0"), QStringLiteral("tpu-v6e-1")}));

    // Four listed, the REMOVED one (3c) dropped; the rest keep the API's order.
    QCOMPARE(snap->placementGroups.size(), 3);
    const PlacementGroup &head = snap->placementGroups[0];
    const PlacementGroup &slice = snap->placementGroups[1];
    const PlacementGroup &pending = snap->placementGroups[2];
    QCOMPARE(head.id, pgId("1a"));
    QCOMPARE(slice.id, pgId("2b"));
    QCOMPARE(pending.id, pgId("4d"));
    QCOMPARE(snap->placementGroupIndex(pgId("3c")), -1);
    QCOMPARE(snap->placementGroupIndex(u"old-run"), -1);
    QCOMPARE(snap->placementGroupIndex(u"train-slice"), 1);

    // The head PG: one bundle {"TPU-v6e-16-head": 1} on worker 0 of tpu-v6e-0; no chips.
    QCOMPARE(toText(head.kind), QStringLiteral("slice-head"));
    QCOMPARE(head.state, QStringLiteral("CREATED"));
    QCOMPARE(head.slices, QStringList{QStringLiteral("tpu-v6e-0")});
    QCOMPARE(head.bundles.size(), 1);
    QCOMPARE(head.bundles[0].headResource, QStringLiteral("TPU-v6e-16-head"));
    QCOMPARE(head.bundles[0].tpu, 0);
    QCOMPARE(head.bundles[0].nodeId, nodeId("a0"));
    QCOMPARE(head.bundles[0].slice, 0);
    QCOMPARE(head.bundles[0].workerId, 0);
    QCOMPARE(snap->slices[0].headHeldBy, 0);
    QCOMPARE(snap->slices[1].headHeldBy, -1);
    QVERIFY(!snap->slices[0].isReady());
    QVERIFY(snap->slices[1].isReady());

    // The slice PG: 4 bundles {CPU 1, TPU 4}, each selecting tpu-v6e-0 by name.
    QCOMPARE(toText(slice.kind), QStringLiteral("slice"));
    QCOMPARE(slice.name, QStringLiteral("train-slice"));
    QVERIFY(slice.detached);
    QCOMPARE(slice.schedulingState, QStringLiteral("FINISHED"));
    QCOMPARE(slice.slices, QStringList{QStringLiteral("tpu-v6e-0")});
    QCOMPARE(slice.bundles.size(), 4);
    const QList<int> workers{0, 2, 1, 3};
    for (int i = 0; i < 4; ++i) {
        const Bundle &b = slice.bundles[i];
        QCOMPARE(b.index, i);
        QCOMPARE(b.slice, 0);
        QCOMPARE(b.workerId, workers[i]);
        QCOMPARE(b.tpu, 4);
        QCOMPARE(b.cpu, 1.0);
        QCOMPARE(b.selectorSlice, QStringLiteral("tpu-v6e-0"));
        QVERIFY(b.headResource.isEmpty());
    }

    // The PENDING group: bundles unplaced (node_id null, "", missing, null) hold nothing.
    QCOMPARE(pending.state, QStringLiteral("PENDING"));
    QCOMPARE(pending.schedulingState, QStringLiteral("NO_RESOURCES"));
    QCOMPARE(pending.creatorJobId, QStringLiteral("03000000"));
    QCOMPARE(toText(pending.kind), QStringLiteral("slice"));
    QCOMPARE(pending.slices, QStringList());
    QCOMPARE(pending.bundles.size(), 4);
    for (const Bundle &b : pending.bundles) {
        QVERIFY(b.nodeId.isEmpty());
        QCOMPARE(b.rayNode, -1);
        QCOMPARE(b.slice, -1);
        QCOMPARE(b.workerId, -1);
        QCOMPARE(b.tpu, 4);
    }
}

void TestSnapshot::twoSlicesJobsAndStatus()
{
    LOAD_SNAPSHOT(snap, QStringLiteral("ray-v6e-two-slices"));
    QVERIFY(snap->hasRay);
    QVERIFY(!snap->hasKubernetes);
    QCOMPARE(snap->rayVersion, QStringLiteral("2.60.0"));
    QCOMPARE(snap->rayNodes.size(), 9);
    QVERIFY(snap->rayNodes[0].isHead);
    QCOMPARE(snap->rayNodes[0].tpu, 0.0);
    QCOMPARE(snap->rayNodes[1].sliceName, QStringLiteral("tpu-v6e-0"));
    QVERIFY(snap->rayNodes[1].hasSliceHeadResource);  // worker 0
    QVERIFY(!snap->rayNodes[2].hasSliceHeadResource); // worker 1
    QCOMPARE(snap->rayNodes[2].workerId, 1);
    QCOMPARE(snap->rayNodes[2].cpu, 180.0);
    QCOMPARE(snap->jobs.size(), 2);
    QCOMPARE(snap->jobs[0].submissionId, QStringLiteral("raysubmit_kF3tq8vZ2mN1"));
    QCOMPARE(snap->jobs[0].status, QStringLiteral("RUNNING"));
    QCOMPARE(snap->jobs[0].startTimeMs, Q_INT64_C(1795960060000));
    QCOMPARE(snap->jobs[1].status, QStringLiteral("SUCCEEDED"));
    QCOMPARE(snap->jobs[1].endTimeMs, Q_INT64_C(1795960050000));
    QVERIFY(snap->clusterStatusText.startsWith(QLatin1String("======== Autoscaler status")));
}

void TestSnapshot::sharedIpKeysOnNodeId()
{
    LOAD_SNAPSHOT(snap, QStringLiteral("ray-shared-ip"));
    QCOMPARE(snap->rayNodes.size(), 6);
    for (const RayNode &n : snap->rayNodes)
        QCOMPARE(n.ip, QStringLiteral("127.0.0.1"));
    // Nothing odd: no "two alive nodes claim a worker", no IP mismatch.
    QCOMPARE(snap->warnings, QStringList());
    QCOMPARE(snap->errors, QStringList());
    QCOMPARE(sliceNames(*snap), (QStringList{QStringLiteral("local-0"), QStringLiteral("local-1")}));
    QCOMPARE(snap->slices[0].headHeldBy, 0);
    QCOMPARE(snap->placementGroups.size(), 3);
    QCOMPARE(toText(snap->placementGroups[2].kind), QStringLiteral("slice"));
    QCOMPARE(snap->placementGroups[2].slices, QStringList{QStringLiteral("local-1")});
}

void TestSnapshot::deadHosts()
{
    LOAD_SNAPSHOT(snap, QStringLiteral("ray-dead-hosts"));
    QCOMPARE(snap->errors, QStringList());
    QCOMPARE(snap->warnings, QStringList());
    FIND_SLICE(s, snap, QStringLiteral("tpu-v6e-0"));
    QVERIFY(anyContains(s->problems, {QStringLiteral("2"), QStringLiteral("DEAD")}));
    QVERIFY(anyContains(s->problems, {QStringLiteral("3"), QStringLiteral("MISSING")}));
    QCOMPARE(s->hosts[3].reportedChips, 0);
    QCOMPARE(s->hosts[1].reportedChips, 4);

    QCOMPARE(snap->placementGroups.size(), 1);
    const PlacementGroup &g = snap->placementGroups[0];
    QCOMPARE(g.state, QStringLiteral("RESCHEDULING"));
    QCOMPARE(toText(g.kind), QStringLiteral("slice"));
    QCOMPARE(g.slices, QStringList{QStringLiteral("tpu-v6e-0")});
    // Bundle 1 still names the dead node e9 (worker 1 before the replacement).
    QCOMPARE(g.bundles[1].nodeId, nodeId("e9"));
    QCOMPARE(g.bundles[1].slice, 0);
    QCOMPARE(g.bundles[1].workerId, 1);
    QCOMPARE(g.bundles[2].slice, -1);
    QCOMPARE(g.bundles[3].slice, -1);
    // The dead node keeps its end time and message.
    const RayNode &dead = snap->rayNodes[snap->slices[0].hosts[2].rayNode];
    QVERIFY(!dead.alive);
    QCOMPARE(dead.endTimeMs, Q_INT64_C(1795963500000));
    QVERIFY(dead.stateMessage.contains(QLatin1String("health check failed")));
}

void TestSnapshot::partialHost()
{
    LOAD_SNAPSHOT(snap, QStringLiteral("ray-partial-host"));
    QCOMPARE(snap->warnings, QStringList());
    FIND_SLICE(s, snap, QStringLiteral("tpu-v6e-8-0"));
    QCOMPARE(s->hosts[0].reservedChips(), 2);
    QCOMPARE(s->hosts[0].reportedChips, 8);
    const PlacementGroup &g = snap->placementGroups[0];
    QCOMPARE(toText(g.kind), QStringLiteral("other")); // bundle 0 selects nothing
    QCOMPARE(g.slices, QStringList{QStringLiteral("tpu-v6e-8-0")});
    // Bundle 0 ({CPU: 1}) is on the head: no slice, no worker.
    QCOMPARE(g.bundles[0].nodeId, nodeId("01"));
    QCOMPARE(g.bundles[0].rayNode, 0);
    QCOMPARE(g.bundles[0].slice, -1);
    QCOMPARE(g.bundles[0].workerId, -1);
    QCOMPARE(g.bundles[1].slice, 0);
    QCOMPARE(g.bundles[1].workerId, 0);
    QCOMPARE(g.bundles[1].tpu, 2);
}

void TestSnapshot::stringNumbers()
{
    LOAD_SNAPSHOT(snap, QStringLiteral("ray-string-numbers"));
    QCOMPARE(snap->errors, QStringList());
    // total/num_filtered "3" as strings equal the 3 items: no truncation warning.
    QCOMPARE(snap->warnings, QStringList());
    QCOMPARE(snap->rayNodes.size(), 3);
    QCOMPARE(snap->rayNodes[0].startTimeMs, Q_INT64_C(1795959400123));
    QCOMPARE(snap->rayNodes[0].endTimeMs, Q_INT64_C(0));
    QCOMPARE(snap->rayNodes[1].startTimeMs, Q_INT64_C(1795960000456));
    QCOMPARE(snap->rayNodes[1].tpu, 4.0);       // "4.0"
    QCOMPARE(snap->rayNodes[1].workerId, 0);    // "0"
    QCOMPARE(snap->rayNodes[2].startTimeMs, Q_INT64_C(1795960000789));
    QCOMPARE(snap->rayNodes[2].workerId, 1);    // 1, a number
    const PlacementGroup &g = snap->placementGroups[0];
    QCOMPARE(g.bundles[0].tpu, 4);              // "4"
    QCOMPARE(g.bundles[1].index, 1);            // "1"
    QCOMPARE(g.bundles[1].cpu, 1.0);            // "1.0"
}

void TestSnapshot::incompleteLists()
{
    LOAD_SNAPSHOT(snap, QStringLiteral("ray-incomplete-lists"));
    QCOMPARE(snap->errors, QStringList());
    QCOMPARE(snap->rayNodes.size(), 2);
    QVERIFY(snap->slices.isEmpty());
    QVERIFY(snap->hasKubernetes);
    QCOMPARE(snap->kubeContext, QStringLiteral("gke_demo_us-east5_big"));
    // num_filtered 10003 against 2 items returned; a partial failure; a continue token left unfollowed.
    QCOMPARE(snap->warnings.size(), 3);
    QVERIFY2(anyContains(snap->warnings, {QStringLiteral("ray.nodes"), QStringLiteral("truncated"), QStringLiteral("2 of 10003")}),
             qPrintable(snap->warnings.join(u'\n')));
    QVERIFY(anyContains(snap->warnings, {QStringLiteral("ray.placement_groups"), QStringLiteral("GCS timed out after 30 seconds")}));
    QVERIFY(anyContains(snap->warnings, {QStringLiteral("kubernetes.pods"), QStringLiteral("continue")}));
}

void TestSnapshot::wrongTypes()
{
    LOAD_SNAPSHOT(snap, QStringLiteral("bad-wrong-types"));
    // Three bodies unreadable as a whole, named in parse order; each left out whole.
    QCOMPARE(snap->errors.size(), 3);
    QVERIFY(snap->errors[0].startsWith(QLatin1String("ray.placement_groups: ")));
    QVERIFY(snap->errors[0].contains(QLatin1String("data.result")));
    QVERIFY(snap->errors[0].contains(QLatin1String("a string")));
    QVERIFY(snap->errors[1].startsWith(QLatin1String("ray.jobs: ")));
    QVERIFY(snap->errors[1].contains(QLatin1String("an object")));
    QVERIFY(snap->errors[2].startsWith(QLatin1String("kubernetes.pods: ")));
    QVERIFY(snap->errors[2].contains(QLatin1String("pods is forbidden")));
    QVERIFY(snap->placementGroups.isEmpty());
    QVERIFY(snap->jobs.isEmpty());
    QVERIFY(snap->pods.isEmpty());
    QVERIFY(!snap->hasKubernetes);
    QCOMPARE(snap->kubeContext, QStringLiteral("gke_demo_us-east5_ml"));

    // The node list is still read: the number item is skipped, the node with labels as an array
    // is kept without labels (so its TPU belongs to no slice).
    QVERIFY(snap->hasRay);
    QCOMPARE(snap->rayNodes.size(), 3);
    QCOMPARE(snap->rayNodes[2].id, nodeId("d1"));
    QVERIFY(snap->rayNodes[2].sliceName.isEmpty());
    QCOMPARE(snap->rayNodes[2].workerId, -1);
    QCOMPARE(snap->warnings.size(), 3);
    QVERIFY2(anyContains(snap->warnings, {QStringLiteral("ray.nodes"), QStringLiteral("1"), QStringLiteral("entry 1 is a number")}),
             qPrintable(snap->warnings.join(u'\n')));
    // The wrong-typed labels are named, not dropped without a word (issue 13).
    QVERIFY(anyContains(snap->warnings, {nodeId("d1").left(12), QStringLiteral("\"labels\" is an array, expected an object")}));
    QVERIFY(anyContains(snap->warnings, {nodeId("d1").left(12), QStringLiteral("10.8.1.11"), QStringLiteral("ray.io/tpu-slice-name")}));
    QCOMPARE(sliceNames(*snap), QStringList{QStringLiteral("tpu-v6e-4-0")});
}

void TestSnapshot::noTpuLabels()
{
    LOAD_SNAPSHOT(snap, QStringLiteral("ray-no-tpu-labels"));
    QCOMPARE(snap->errors, QStringList());
    QVERIFY(snap->slices.isEmpty());
    QCOMPARE(snap->rayNodes.size(), 4);
    // The head and the CPU workers are not worth a word; the node with TPU 4 and no slice label is.
    QCOMPARE(snap->warnings.size(), 1);
    QVERIFY2(anyContains(snap->warnings, {nodeId("f7").left(12), QStringLiteral("10.8.3.7"), QStringLiteral("ray.io/tpu-slice-name")}),
             qPrintable(snap->warnings.join(u'\n')));
    QCOMPARE(snap->placementGroups.size(), 1);
    QCOMPARE(toText(snap->placementGroups[0].kind), QStringLiteral("other"));
    QCOMPARE(snap->placementGroups[0].slices, QStringList());
    for (const Bundle &b : snap->placementGroups[0].bundles) {
        QVERIFY(b.rayNode >= 0);
        QCOMPARE(b.slice, -1);
    }
}

// A body cut anywhere is one error naming it; that body is left out whole, the others still count.
void TestSnapshot::truncatedBody_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("body");
    QTest::addColumn<int>("cutPercent");
    for (int cut : {1, 30, 50, 75, 99, 100}) {
        // 100 = everything but the last byte (the closing brace).
        const QByteArray pct = QByteArray::number(cut);
        QTest::newRow(("ray.nodes " + pct).constData()) << "ray-v6e-two-slices" << "ray.nodes" << cut;
        QTest::newRow(("ray.placement_groups " + pct).constData()) << "ray-v6e-two-slices" << "ray.placement_groups" << cut;
        QTest::newRow(("kubernetes.pods " + pct).constData()) << "kube-kuberay" << "kubernetes.pods" << cut;
        QTest::newRow(("kubernetes.rayclusters " + pct).constData()) << "kube-kuberay" << "kubernetes.rayclusters" << cut;
    }
}

void TestSnapshot::truncatedBody()
{
    QFETCH(QString, file);
    QFETCH(QString, body);
    QFETCH(int, cutPercent);
    QString error;
    Capture capture = loadCapture(file, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QByteArray *slot = body == QLatin1String("ray.nodes")              ? &capture.rayNodes
                       : body == QLatin1String("ray.placement_groups") ? &capture.rayPlacementGroups
                       : body == QLatin1String("kubernetes.pods")      ? &capture.kubePods
                                                                       : &capture.kubeRayClusters;
    const qsizetype keep = cutPercent >= 100 ? slot->size() - 1 : slot->size() * cutPercent / 100;
    slot->truncate(keep);

    const SnapshotPtr snap = buildSnapshot(capture);
    QCOMPARE(snap->errors.size(), 1);
    QVERIFY2(snap->errors[0].startsWith(body + QStringLiteral(": ")), qPrintable(snap->errors[0]));

    if (body == QLatin1String("ray.nodes")) {
        QVERIFY(snap->rayNodes.isEmpty());
        QVERIFY(snap->slices.isEmpty());
        QCOMPARE(snap->placementGroups.size(), 3); // still read, just not placed
        QCOMPARE(snap->jobs.size(), 2);
    } else if (body == QLatin1String("ray.placement_groups")) {
        QVERIFY(snap->placementGroups.isEmpty());
        QCOMPARE(sliceNames(*snap), (QStringList{QStringLiteral("tpu-v6e-0"), QStringLiteral("tpu-v6e-1")}));
        for (const Slice &s : snap->slices) {
            QCOMPARE(s.reservedChips, 0);
            QCOMPARE(toText(s.status()), QStringLiteral("ready"));
        }
    } else if (body == QLatin1String("kubernetes.pods")) {
        QVERIFY(snap->pods.isEmpty());
        QVERIFY(snap->slices.isEmpty());
        QCOMPARE(snap->workerGroups.size(), 2);
        QCOMPARE(snap->kubeNodes.size(), 11);
    } else {
        QVERIFY(snap->workerGroups.isEmpty());
        QVERIFY(snap->rayClusters.isEmpty());
        QCOMPARE(snap->pods.size(), 14);
        QCOMPARE(sliceNames(*snap), (QStringList{QStringLiteral("v6e-4x4-0"), QStringLiteral("v6e-4x4-1"), QStringLiteral("v6e-4x4-2")}));
        // The pods still name their group; the slice shape comes from the pods' nodeSelector.
        QCOMPARE(snap->slices[0].workerGroup, QStringLiteral("ml/tpu-cluster/v6e-4x4"));
        QCOMPARE(snap->slices[0].hostCount(), 4);
        QVERIFY(snap->slices[0].intact);
    }
}

void TestSnapshot::kubeWorkerGroups()
{
    LOAD_SNAPSHOT(snap, QStringLiteral("kube-kuberay"));
    QVERIFY(!snap->hasRay);
    QVERIFY(snap->hasKubernetes);
    QCOMPARE(snap->errors, QStringList());
    QCOMPARE(snap->warnings, QStringList());
    QCOMPARE(snap->kubeContext, QStringLiteral("gke_demo-project_us-east5_tpu-cluster"));

    QCOMPARE(snap->rayClusters.size(), 1);
    const RayClusterInfo &rc = snap->rayClusters[0];
    QCOMPARE(rc.ns, QStringLiteral("ml"));
    QCOMPARE(rc.name, QStringLiteral("tpu-cluster"));
    QCOMPARE(rc.state, QStringLiteral("ready"));
    QCOMPARE(rc.headServiceName, QStringLiteral("tpu-cluster-head-svc"));
    QCOMPARE(rc.generation, 7);
    QCOMPARE(rc.observedGeneration, 7);
    QVERIFY(!rc.autoscaling);

    QCOMPARE(snap->workerGroups.size(), 2);
    const WorkerGroup &cpu = snap->workerGroups[0];
    QCOMPARE(cpu.qualifiedName(), QStringLiteral("ml/tpu-cluster/cpu-workers"));
    QCOMPARE(cpu.replicas, 1);
    QCOMPARE(cpu.minReplicas, 0);
    QCOMPARE(cpu.maxReplicas, 2);
    QCOMPARE(cpu.numOfHosts, 1);
    QCOMPARE(cpu.chipsPerHost, 0);
    QVERIFY(!cpu.isTpu());
    QCOMPARE(cpu.slices, QStringList());

    const WorkerGroup &tpu = snap->workerGroups[1];
    QCOMPARE(snap->workerGroupIndex(u"ml/tpu-cluster/v6e-4x4"), 1);
    QCOMPARE(tpu.qualifiedCluster(), QStringLiteral("ml/tpu-cluster"));
    QCOMPARE(tpu.group, QStringLiteral("v6e-4x4"));
    QCOMPARE(tpu.replicas, 2);
    QCOMPARE(tpu.minReplicas, 0);
    QCOMPARE(tpu.maxReplicas, 4);
    QCOMPARE(tpu.numOfHosts, 4);
    QCOMPARE(tpu.accelerator, QStringLiteral("tpu-v6e-slice"));
    QCOMPARE(tpu.topology, QStringLiteral("4x4"));
    QCOMPARE(tpu.chipsPerHost, 4); // "4", a string quantity
    QVERIFY(!tpu.autoscaling);
    QVERIFY(!tpu.suspended);
    QCOMPARE(tpu.workersToDelete, QStringList{QStringLiteral("tpu-cluster-v6e-4x4-worker-tm9rd")});
    // Three replicas have pods (the third is being removed), in replica order.
    QCOMPARE(tpu.slices, (QStringList{QStringLiteral("v6e-4x4-0"), QStringLiteral("v6e-4x4-1"), QStringLiteral("v6e-4x4-2")}));
}

void TestSnapshot::kubeHosts()
{
    LOAD_SNAPSHOT(snap, QStringLiteral("kube-kuberay"));
    QCOMPARE(snap->pods.size(), 14);
    QCOMPARE(snap->kubeNodes.size(), 11);
    // Only TPU worker pods make slices: not the head, not the CPU worker.
    QCOMPARE(sliceNames(*snap), (QStringList{QStringLiteral("v6e-4x4-0"), QStringLiteral("v6e-4x4-1"), QStringLiteral("v6e-4x4-2")}));
    const Pod &headPod = snap->pods[0];
    QVERIFY(headPod.isHead);
    QCOMPARE(headPod.group, QStringLiteral("headgroup"));

    FIND_SLICE(s0, snap, QStringLiteral("v6e-4x4-0"));
    for (const Host &h : s0->hosts) {
        QVERIFY(h.kubeNode >= 0);
        const KubeNode &n = snap->kubeNodes[h.kubeNode];
        QCOMPARE(n.name, QStringLiteral("gke-tpu-cluster-v6e-pool-0-7e8f9a0b-%1").arg(h.workerId));
        QCOMPARE(n.nodePool, QStringLiteral("v6e-pool-0"));
        QCOMPARE(n.accelerator, QStringLiteral("tpu-v6e-slice"));
        QCOMPARE(n.topology, QStringLiteral("4x4"));
        QCOMPARE(n.tpuCapacity, 4);
        QVERIFY(n.ready);
        QCOMPARE(h.reportedChips, 4);
        const Pod &p = snap->pods[h.pod];
        QCOMPARE(p.tpuName, QStringLiteral("v6e-4x4-0"));
        QCOMPARE(p.hostIndex, h.workerId);
        QCOMPARE(p.podIp, QStringLiteral("10.4.1.%1").arg(10 + h.workerId));
    }

    FIND_SLICE(s1, snap, QStringLiteral("v6e-4x4-1"));
    const Pod &notReady = snap->pods[s1->hosts[2].pod];
    QCOMPARE(notReady.phase, QStringLiteral("Running"));
    QVERIFY(!notReady.ready);
    const Pod &pending = snap->pods[s1->hosts[3].pod];
    QCOMPARE(pending.phase, QStringLiteral("Pending"));
    QVERIFY(pending.podIp.isEmpty());
    QVERIFY(pending.nodeName.isEmpty());
    QCOMPARE(s1->hosts[3].kubeNode, -1);

    FIND_SLICE(s2, snap, QStringLiteral("v6e-4x4-2"));
    for (const Host &h : s2->hosts)
        QVERIFY(snap->pods[h.pod].terminating);
}

void TestSnapshot::kubeLegacyEnv()
{
    LOAD_SNAPSHOT(snap, QStringLiteral("kube-legacy-env"));
    QCOMPARE(snap->errors, QStringList());
    QCOMPARE(snap->warnings, QStringList());
    QCOMPARE(snap->workerGroups.size(), 1);
    const WorkerGroup &g = snap->workerGroups[0];
    QCOMPARE(g.qualifiedName(), QStringLiteral("research/legacy-cluster/v5e-group"));
    QCOMPARE(g.replicas, 1);
    QCOMPARE(g.minReplicas, 1);
    QCOMPARE(g.maxReplicas, 2);
    QCOMPARE(g.numOfHosts, 4);
    QCOMPARE(g.accelerator, QStringLiteral("tpu-v5-lite-podslice"));
    QCOMPARE(g.topology, QStringLiteral("4x4"));
    QCOMPARE(g.chipsPerHost, 4); // from limits: requests omitted
    QVERIFY(g.autoscaling);      // spec.enableInTreeAutoscaling: true
    QCOMPARE(g.slices, QStringList{QStringLiteral("v5e-group-0")});
    QCOMPARE(snap->rayClusters.size(), 1);
    QVERIFY(snap->rayClusters[0].autoscaling);
    FIND_SLICE(s, snap, QStringLiteral("v5e-group-0"));
    for (const Host &h : s->hosts) {
        QCOMPARE(snap->pods[h.pod].hostIndex, h.workerId); // env TPU_WORKER_ID
        QCOMPARE(snap->kubeNodes[h.kubeNode].nodePool, QStringLiteral("v5e-pool"));
    }
}

// The legacy webhook labels each pod `replicaIndex: <group>-<index>` (the same string as TPU_NAME).
// When no pod of a replica carries TPU_NAME, that label value is the slice's name.
void TestSnapshot::kubeLegacyReplicaIndexLabel()
{
    auto podJson = [](int host, const char *ip) {
        return QStringLiteral(R"({"metadata": {"name": "c-g-worker-%1", "namespace": "ns",
            "labels": {"ray.io/cluster": "c", "ray.io/group": "g", "ray.io/node-type": "worker", "replicaIndex": "g-0"}},
          "spec": {"nodeSelector": {"cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice", "cloud.google.com/gke-tpu-topology": "2x4"},
            "containers": [{"name": "ray-worker", "env": [{"name": "TPU_WORKER_ID", "value": "%2"}],
              "resources": {"requests": {"google.com/tpu": "4"}}}]},
          "status": {"phase": "Running", "podIP": "%3", "conditions": [{"type": "Ready", "status": "True"}]}})")
            .arg(host)
            .arg(host)
            .arg(QLatin1String(ip));
    };
    Capture capture;
    capture.kubePods = (QStringLiteral(R"({"kind": "PodList", "apiVersion": "v1", "metadata": {}, "items": [)")
                        + podJson(0, "10.0.0.1") + u',' + podJson(1, "10.0.0.2") + QStringLiteral("]}"))
                           .toUtf8();
    const SnapshotPtr snap = buildSnapshot(capture);
    QCOMPARE(snap->errors, QStringList());
    QCOMPARE(sliceNames(*snap), QStringList{QStringLiteral("g-0")});
    QCOMPARE(snap->slices[0].hostCount(), 2);
    QCOMPARE(hostStates(snap->slices[0]), QStringLiteral("ALIVE,ALIVE"));
    QCOMPARE(snap->slices[0].workerGroup, QStringLiteral("ns/c/g"));
}

void TestSnapshot::mixedJoin()
{
    LOAD_SNAPSHOT(snap, QStringLiteral("mixed-ray-kube"));
    QVERIFY(snap->hasRay);
    QVERIFY(snap->hasKubernetes);
    QCOMPARE(snap->errors, QStringList());
    QCOMPARE(snap->rayNodes.size(), 8);
    QCOMPARE(snap->pods.size(), 9);
    QCOMPARE(snap->kubeNodes.size(), 8);
    QVERIFY(snap->jobs.isEmpty());
    // The one oddity: b1 has TPU but no slice label (its pod still finds it by IP).
    QCOMPARE(snap->warnings.size(), 1);
    QVERIFY(anyContains(snap->warnings, {nodeId("b1").left(12), QStringLiteral("10.4.1.11")}));
    QCOMPARE(sliceNames(*snap), (QStringList{QStringLiteral("tpu-group-0"), QStringLiteral("tpu-group-1"),
                                             QStringLiteral("tpu-group-2"), QStringLiteral("tpu-group-3")}));

    QCOMPARE(snap->workerGroups.size(), 1);
    const WorkerGroup &g = snap->workerGroups[0];
    QCOMPARE(g.qualifiedName(), QStringLiteral("default/tpu-train/tpu-group"));
    QCOMPARE(g.replicas, 3);
    QCOMPARE(g.minReplicas, 0);
    QCOMPARE(g.maxReplicas, 4);
    QCOMPARE(g.numOfHosts, 2);
    QCOMPARE(g.chipsPerHost, 4);
    QCOMPARE(g.topology, QStringLiteral("2x4"));
    QCOMPARE(g.workersToDelete, QStringList{QStringLiteral("tpu-train-tpu-group-worker-3aaaa")});
    QCOMPARE(g.slices, sliceNames(*snap));

    QCOMPARE(snap->placementGroups.size(), 2);
    QCOMPARE(toText(snap->placementGroups[0].kind), QStringLiteral("slice-head"));
    QCOMPARE(toText(snap->placementGroups[1].kind), QStringLiteral("slice"));
    QCOMPARE(snap->slices[0].headHeldBy, 0);

    // Nodes of each joined host match their pod's GKE node and pool.
    for (const Slice &s : snap->slices) {
        for (const Host &h : s.hosts) {
            QVERIFY(h.kubeNode >= 0);
            QCOMPARE(snap->kubeNodes[h.kubeNode].nodePool, QStringLiteral("tpu-group-pool-%1").arg(s.name.right(1)));
        }
    }
}

// A few v5p chips by hand, through the slice's hosts (not just the layout).
void TestSnapshot::v5pCoordinatesByHand()
{
    LOAD_SNAPSHOT(snap, QStringLiteral("ray-v5p-4x4x4"));
    FIND_SLICE(s, snap, QStringLiteral("tpu-v5p-0"));
    QCOMPARE(s->layout.hostGrid(), (tpu::Dims{2, 2, 4}));
    QCOMPARE(s->layout.block(), (tpu::Dims{2, 2, 1}));
    // The chip at (3,2,1): bx=1, by=1, bz=1 -> w = 1 + 2 + 4 = 7; offset (1,0,0) -> chip 1.
    QCOMPARE(s->layout.workerAt(tpu::ChipCoord{3, 2, 1}), 7);
    QCOMPARE(s->layout.chipIndexAt(tpu::ChipCoord{3, 2, 1}), 1);
    // The chip at (0,3,3): bx=0, by=1, bz=3 -> w = 2 + 12 = 14; offset (0,1,0) -> chip 2.
    QCOMPARE(s->layout.workerAt(tpu::ChipCoord{0, 3, 3}), 14);
    QCOMPARE(s->layout.chipIndexAt(tpu::ChipCoord{0, 3, 3}), 2);
    // Worker 7's node is 5 + hex(49 mod 16 = 1).
    QCOMPARE(snap->rayNodes[s->hosts[7].rayNode].id, nodeId("51"));
    QCOMPARE(snap->rayNodes[s->hosts[14].rayNode].id, nodeId("52")); // 98 mod 16 = 2
    QCOMPARE(s->headHeldBy, 0);
}

// The inspect document of the mixed fixture has every key ARCHITECTURE.md lists, with its JSON type.
void TestSnapshot::inspectJsonSchema()
{
    LOAD_SNAPSHOT(snap, QStringLiteral("mixed-ray-kube"));
    // Through text and back, as another tool would read it.
    const QByteArray text = QJsonDocument(inspectJson(*snap)).toJson();
    QJsonParseError parseError;
    const QJsonDocument parsed = QJsonDocument::fromJson(text, &parseError);
    QCOMPARE(parseError.error, QJsonParseError::NoError);
    const QJsonObject doc = parsed.object();

    enum Kind
    {
        Str,
        Num,
        Int,
        Bool,
        Arr,
        Obj,
        StrOrNull,
        IntOrNull
    };
    auto check = [](const QJsonObject &o, const char *key, Kind kind, const QString &where) -> QString {
        const QString k = QString::fromLatin1(key);
        if (!o.contains(k))
            return QStringLiteral("%1: no \"%2\"").arg(where, k);
        const QJsonValue v = o.value(k);
        const bool isInt = v.isDouble() && v.toDouble() == double(qint64(v.toDouble()));
        bool ok = false;
        switch (kind) {
        case Str: ok = v.isString(); break;
        case Num: ok = v.isDouble(); break;
        case Int: ok = isInt; break;
        case Bool: ok = v.isBool(); break;
        case Arr: ok = v.isArray(); break;
        case Obj: ok = v.isObject(); break;
        case StrOrNull: ok = v.isString() || v.isNull(); break;
        case IntOrNull: ok = isInt || v.isNull(); break;
        }
        return ok ? QString() : QStringLiteral("%1: \"%2\" has the wrong type").arg(where, k);
    };
#define CHECK_KEY(obj, key, kind, where) \
    do { \
        const QString problem_ = check(obj, key, kind, where); \
        QVERIFY2(problem_.isEmpty(), qPrintable(problem_)); \
    } while (false)

    CHECK_KEY(doc, "slices", Arr, QStringLiteral("root"));
    CHECK_KEY(doc, "placementGroups", Arr, QStringLiteral("root"));
    CHECK_KEY(doc, "workerGroups", Arr, QStringLiteral("root"));

    const QJsonArray slices = doc[QLatin1String("slices")].toArray();
    QCOMPARE(slices.size(), 4);
    const QStringList states{QStringLiteral("ALIVE"), QStringLiteral("DEAD"), QStringLiteral("PENDING"), QStringLiteral("MISSING")};
    for (const QJsonValue &sv : slices) {
        QVERIFY(sv.isObject());
        const QJsonObject s = sv.toObject();
        const QString where = QStringLiteral("slice ") + s[QLatin1String("name")].toString();
        CHECK_KEY(s, "name", Str, where);
        CHECK_KEY(s, "generation", Str, where);
        CHECK_KEY(s, "topology", Str, where);
        CHECK_KEY(s, "dims", Arr, where);
        const QJsonArray dims = s[QLatin1String("dims")].toArray();
        QCOMPARE(dims.size(), 3);
        for (const QJsonValue &d : dims)
            QVERIFY(d.isDouble());
        CHECK_KEY(s, "podType", Str, where);
        CHECK_KEY(s, "chips", Int, where);
        CHECK_KEY(s, "hostCount", Int, where);
        CHECK_KEY(s, "chipsPerHost", Int, where);
        CHECK_KEY(s, "intact", Bool, where);
        CHECK_KEY(s, "reservedChips", Int, where);
        CHECK_KEY(s, "source", Str, where);
        QVERIFY((QStringList{QStringLiteral("ray"), QStringLiteral("kubernetes"), QStringLiteral("both")}).contains(s[QLatin1String("source")].toString()));
        CHECK_KEY(s, "workerGroup", StrOrNull, where);
        CHECK_KEY(s, "hosts", Arr, where);
        const QJsonArray hosts = s[QLatin1String("hosts")].toArray();
        QCOMPARE(hosts.size(), s[QLatin1String("hostCount")].toInt());
        for (const QJsonValue &hv : hosts) {
            QVERIFY(hv.isObject());
            const QJsonObject h = hv.toObject();
            const QString hwhere = where + QStringLiteral(" host ") + QString::number(h[QLatin1String("workerId")].toInt());
            CHECK_KEY(h, "workerId", Int, hwhere);
            CHECK_KEY(h, "state", Str, hwhere);
            QVERIFY(states.contains(h[QLatin1String("state")].toString()));
            CHECK_KEY(h, "rayNodeId", StrOrNull, hwhere);
            CHECK_KEY(h, "pod", StrOrNull, hwhere);
            CHECK_KEY(h, "chips", Arr, hwhere);
            const QJsonArray chips = h[QLatin1String("chips")].toArray();
            QCOMPARE(chips.size(), s[QLatin1String("chipsPerHost")].toInt());
            for (const QJsonValue &cv : chips) {
                QVERIFY(cv.isObject());
                const QJsonObject c = cv.toObject();
                CHECK_KEY(c, "x", Int, hwhere);
                CHECK_KEY(c, "y", Int, hwhere);
                CHECK_KEY(c, "z", Int, hwhere);
                CHECK_KEY(c, "placementGroup", StrOrNull, hwhere);
                CHECK_KEY(c, "bundleIndex", IntOrNull, hwhere);
                QCOMPARE(c[QLatin1String("placementGroup")].isNull(), c[QLatin1String("bundleIndex")].isNull());
            }
        }
    }

    const QJsonArray groups = doc[QLatin1String("placementGroups")].toArray();
    QCOMPARE(groups.size(), 2);
    for (const QJsonValue &gv : groups) {
        QVERIFY(gv.isObject());
        const QJsonObject g = gv.toObject();
        const QString where = QStringLiteral("placement group ") + g[QLatin1String("id")].toString();
        CHECK_KEY(g, "id", Str, where);
        CHECK_KEY(g, "name", Str, where);
        CHECK_KEY(g, "state", Str, where);
        CHECK_KEY(g, "slices", Arr, where);
        for (const QJsonValue &name : g[QLatin1String("slices")].toArray())
            QVERIFY(name.isString());
        CHECK_KEY(g, "bundles", Arr, where);
        for (const QJsonValue &bv : g[QLatin1String("bundles")].toArray()) {
            QVERIFY(bv.isObject());
            const QJsonObject b = bv.toObject();
            CHECK_KEY(b, "index", Int, where);
            CHECK_KEY(b, "rayNodeId", StrOrNull, where);
            CHECK_KEY(b, "slice", StrOrNull, where);
            CHECK_KEY(b, "workerId", IntOrNull, where);
            CHECK_KEY(b, "tpu", Int, where);
        }
    }

    const QJsonArray workerGroups = doc[QLatin1String("workerGroups")].toArray();
    QCOMPARE(workerGroups.size(), 1);
    const QJsonObject wg = workerGroups[0].toObject();
    const QString where = QStringLiteral("worker group");
    CHECK_KEY(wg, "cluster", Str, where);
    CHECK_KEY(wg, "group", Str, where);
    CHECK_KEY(wg, "replicas", Int, where);
    CHECK_KEY(wg, "minReplicas", Int, where);
    CHECK_KEY(wg, "maxReplicas", Int, where);
    CHECK_KEY(wg, "numOfHosts", Int, where);
    CHECK_KEY(wg, "accelerator", Str, where);
    CHECK_KEY(wg, "topology", Str, where);
    CHECK_KEY(wg, "chipsPerHost", Int, where);
    CHECK_KEY(wg, "autoscaling", Bool, where);
    CHECK_KEY(wg, "slices", Arr, where);
#undef CHECK_KEY

    // And the values, by hand from the fixture.
    QCOMPARE(wg[QLatin1String("cluster")].toString(), QStringLiteral("default/tpu-train"));
    QCOMPARE(wg[QLatin1String("group")].toString(), QStringLiteral("tpu-group"));
    QCOMPARE(wg[QLatin1String("replicas")].toInt(), 3);
    QCOMPARE(wg[QLatin1String("maxReplicas")].toInt(), 4);
    QCOMPARE(wg[QLatin1String("numOfHosts")].toInt(), 2);
    QCOMPARE(wg[QLatin1String("accelerator")].toString(), QStringLiteral("tpu-v6e-slice"));
    QCOMPARE(wg[QLatin1String("slices")].toArray().size(), 4);

    const QJsonObject s0 = slices[0].toObject();
    QCOMPARE(s0[QLatin1String("name")].toString(), QStringLiteral("tpu-group-0"));
    QCOMPARE(s0[QLatin1String("generation")].toString(), QStringLiteral("v6e"));
    QCOMPARE(s0[QLatin1String("topology")].toString(), QStringLiteral("2x4"));
    QCOMPARE(s0[QLatin1String("dims")].toArray(), (QJsonArray{2, 4, 1}));
    QCOMPARE(s0[QLatin1String("podType")].toString(), QStringLiteral("v6e-8"));
    QCOMPARE(s0[QLatin1String("chips")].toInt(), 8);
    QCOMPARE(s0[QLatin1String("source")].toString(), QStringLiteral("both"));
    QCOMPARE(s0[QLatin1String("workerGroup")].toString(), QStringLiteral("default/tpu-train/tpu-group"));
    QCOMPARE(s0[QLatin1String("intact")].toBool(), true);
    QCOMPARE(s0[QLatin1String("reservedChips")].toInt(), 8);
    const QJsonObject h0 = s0[QLatin1String("hosts")].toArray()[0].toObject();
    QCOMPARE(h0[QLatin1String("workerId")].toInt(), 0);
    QCOMPARE(h0[QLatin1String("state")].toString(), QStringLiteral("ALIVE"));
    QCOMPARE(h0[QLatin1String("rayNodeId")].toString(), nodeId("a0"));
    QCOMPARE(h0[QLatin1String("pod")].toString(), QStringLiteral("default/tpu-train-tpu-group-worker-0aaaa"));
    // Worker 0's chips are held by bundle 1 of PG ab; chip 1 of a 2x2 block is at (1,0,0).
    const QJsonObject c1 = h0[QLatin1String("chips")].toArray()[1].toObject();
    QCOMPARE(c1[QLatin1String("x")].toInt(), 1);
    QCOMPARE(c1[QLatin1String("y")].toInt(), 0);
    QCOMPARE(c1[QLatin1String("z")].toInt(), 0);
    QCOMPARE(c1[QLatin1String("placementGroup")].toString(), pgId("ab"));
    QCOMPARE(c1[QLatin1String("bundleIndex")].toInt(), 1);
    // Worker 1 of tpu-group-2: a pod but no Ray node yet.
    const QJsonObject s2h1 = slices[2].toObject()[QLatin1String("hosts")].toArray()[1].toObject();
    QCOMPARE(s2h1[QLatin1String("state")].toString(), QStringLiteral("PENDING"));
    QVERIFY(s2h1[QLatin1String("rayNodeId")].isNull());
    QCOMPARE(s2h1[QLatin1String("pod")].toString(), QStringLiteral("default/tpu-train-tpu-group-worker-2bbbb"));
    // Free chips say null, not -1.
    const QJsonObject freeChip = slices[1].toObject()[QLatin1String("hosts")].toArray()[0].toObject()[QLatin1String("chips")].toArray()[0].toObject();
    QVERIFY(freeChip[QLatin1String("placementGroup")].isNull());
    QVERIFY(freeChip[QLatin1String("bundleIndex")].isNull());

    const QJsonObject headPg = groups[0].toObject();
    QCOMPARE(headPg[QLatin1String("id")].toString(), pgId("aa"));
    QCOMPARE(headPg[QLatin1String("name")].toString(), QString());
    QCOMPARE(headPg[QLatin1String("state")].toString(), QStringLiteral("CREATED"));
    QCOMPARE(headPg[QLatin1String("slices")].toArray(), QJsonArray{QStringLiteral("tpu-group-0")});
    const QJsonObject hb = headPg[QLatin1String("bundles")].toArray()[0].toObject();
    QCOMPARE(hb[QLatin1String("index")].toInt(), 0);
    QCOMPARE(hb[QLatin1String("rayNodeId")].toString(), nodeId("a0"));
    QCOMPARE(hb[QLatin1String("slice")].toString(), QStringLiteral("tpu-group-0"));
    QCOMPARE(hb[QLatin1String("workerId")].toInt(), 0);
    QCOMPARE(hb[QLatin1String("tpu")].toInt(), 0);
}

// The names people read for placement groups (ClusterSnapshot::groupLabel): a slice head with no
// name goes by the one named group of its job on its slice; never by a neighbour's name.
void TestSnapshot::groupLabels()
{
    using Kind = PlacementGroup::Kind;
    auto group = [](const char *id, const char *name, Kind kind, const char *job, QStringList slices) {
        PlacementGroup g;
        g.id = QString::fromLatin1(id);
        g.name = QString::fromLatin1(name);
        g.kind = kind;
        g.creatorJobId = QString::fromLatin1(job);
        g.slices = slices;
        return g;
    };
    const QStringList a{QStringLiteral("v6e-4x4-0")}, b{QStringLiteral("v6e-4x4-1")};
    ClusterSnapshot snap;
    snap.placementGroups = {
        group("aaaaaaaaaaaaaaaaaaaa", "", Kind::SliceHead, "02000000", a),   // 0: goes with train
        group("bbbbbbbbbbbbbbbbbbbb", "train", Kind::Slice, "02000000", a),  // 1
        group("cccccccccccccccccccc", "", Kind::SliceHead, "02000000", b),   // 2: same job, other slice, no partner there
        group("dddddddddddddddddddd", "", Kind::SliceHead, "03000000", {}),  // 3: pending, with its pending partner
        group("eeeeeeeeeeeeeeeeeeee", "infer", Kind::Slice, "03000000", {}), // 4
        group("ffffffffffffffffffff", "", Kind::SliceHead, "04000000", {}),  // 5: two pending named groups: ambiguous
        group("gggggggggggggggggggg", "x", Kind::Slice, "04000000", {}),
        group("hhhhhhhhhhhhhhhhhhhh", "y", Kind::Slice, "04000000", {}),
        group("iiiiiiiiiiiiiiiiiiii", "", Kind::Other, "", {}),              // 8
        group("jjjjjjjjjjjjjjjjjjjj", "", Kind::Slice, "05000000", a),       // 9
    };
    QCOMPARE(snap.groupLabel(snap.placementGroups[0]), QStringLiteral("head of train (aaaaaaaaaaaa)"));
    QCOMPARE(snap.groupLabel(snap.placementGroups[1]), QStringLiteral("train"));
    QCOMPARE(snap.groupLabel(snap.placementGroups[2]), QStringLiteral("unnamed slice head, job 02000000 (cccccccccccc)"));
    QCOMPARE(snap.groupLabel(snap.placementGroups[3]), QStringLiteral("head of infer (dddddddddddd)"));
    QCOMPARE(snap.groupLabel(snap.placementGroups[5]), QStringLiteral("unnamed slice head, job 04000000 (ffffffffffff)"));
    QCOMPARE(snap.groupLabel(snap.placementGroups[8]), QStringLiteral("unnamed group (iiiiiiiiiiii)"));
    QCOMPARE(snap.groupLabel(snap.placementGroups[9]), QStringLiteral("unnamed slice group, job 05000000 (jjjjjjjjjjjj)"));
    // Another context's group of the same job id is not a partner (job ids repeat across clusters).
    snap.placementGroups[1].context = QStringLiteral("other");
    QCOMPARE(snap.groupLabel(snap.placementGroups[0]), QStringLiteral("unnamed slice head, job 02000000 (aaaaaaaaaaaa)"));
}

QTEST_GUILESS_MAIN(TestSnapshot)
#include "tst_snapshot.moc"
