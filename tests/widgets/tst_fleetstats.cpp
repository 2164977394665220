// SPDX-License-Identifier: GPL-3.0-or-later
// fleetStats() over the demo cluster, with every expected number derived by hand from the
// scenario in backend/democluster.cpp (not read back from the code under test):
//
//   slice          shape          hosts x chips  held by                     SliceUse        free  stranded
//   v4-2x2x2-0     v4 2x2x2       2 x 4          rl-rollout (8 chips + head)  fully reserved     0         0
//   v5p-4x4x4-0    v5p 4x4x4      16 x 4         -                            ready             64         0
//   v6e-2x4-0      v6e 2x4        1 x 8          notebook-alice (2 chips)     partly used        6         6
//   v6e-4x4-0      v6e 4x4        4 x 4          llm-train (16 chips + head)  fully reserved     0         0
//   v6e-4x4-1      v6e 4x4        4 x 4          -                            ready             16         0
//   v6e-4x4-2      v6e 4x4        4 x 4          -                            ready             16         0
//   v6e-4x4-3      v6e 4x4        4 x 4          - (worker 2 DEAD)            degraded          16        16
//
// Lives in the widgets tier because it is the overview's input and links the demo (backend).

#include "democluster.h"
#include "fleetstats.h"
#include "snapshot.h"

#include <QDebug>
#include <QTest>

using namespace slicescope;

// Readable QCOMPARE failures (QTest finds these by argument-dependent lookup).
namespace slicescope {
char *toString(SliceUse use)
{
    return qstrdup(qPrintable(toText(use)));
}
char *toString(const FleetCounts &counts)
{
    QString text;
    QDebug(&text) << counts;
    return qstrdup(qPrintable(text));
}
} // namespace slicescope

namespace {

SnapshotPtr demoSnapshot(DemoCluster &demo)
{
    return buildSnapshot(demo.capture());
}

FleetCounts counts(int slices, int ready, int fullyReserved, int partlyUsed, int claimed, int degraded, int provisioning,
                   int chips, int reservedChips, int availableChips, int claimedChips,
                   int strandedPartlyUsed, int strandedDegraded, int strandedProvisioning)
{
    FleetCounts c;
    c.slices = slices;
    c.ready = ready;
    c.fullyReserved = fullyReserved;
    c.partlyUsed = partlyUsed;
    c.claimed = claimed;
    c.degraded = degraded;
    c.provisioning = provisioning;
    c.chips = chips;
    c.reservedChips = reservedChips;
    c.freeChips = chips - reservedChips;
    c.availableChips = availableChips;
    c.claimedChips = claimedChips;
    c.strandedPartlyUsed = strandedPartlyUsed;
    c.strandedDegraded = strandedDegraded;
    c.strandedProvisioning = strandedProvisioning;
    c.strandedChips = strandedPartlyUsed + strandedDegraded + strandedProvisioning;
    return c;
}

// The accounting identities of the header, for every row of a FleetStats.
void checkIdentities(const FleetCounts &c, const char *what)
{
    QVERIFY2(c.freeChips == c.availableChips + c.claimedChips + c.strandedChips, what);
    QVERIFY2(c.strandedChips == c.strandedPartlyUsed + c.strandedDegraded + c.strandedProvisioning, what);
    QVERIFY2(c.chips == c.reservedChips + c.freeChips, what);
    QVERIFY2(c.slices == c.ready + c.reserved() + c.degraded + c.provisioning, what);
}

void checkAllIdentities(const FleetStats &stats)
{
    for (const ShapeStats &s : stats.shapes)
        checkIdentities(s.counts, qPrintable(s.label));
    for (const GenerationStats &g : stats.generations)
        checkIdentities(g.counts, qPrintable(g.label));
    checkIdentities(stats.total, "total");
}

} // namespace

class TestFleetStats : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void demoSlices_data()
    {
        QTest::addColumn<QString>("slice");
        QTest::addColumn<SliceUse>("use");
        QTest::addColumn<int>("chips");
        QTest::addColumn<int>("stranded");
        QTest::newRow("v4 held whole") << QStringLiteral("v4-2x2x2-0") << SliceUse::FullyReserved << 8 << 0;
        QTest::newRow("v5p ready") << QStringLiteral("v5p-4x4x4-0") << SliceUse::Ready << 64 << 0;
        QTest::newRow("v6e 2x4 partly") << QStringLiteral("v6e-2x4-0") << SliceUse::PartlyUsed << 8 << 6;
        QTest::newRow("v6e 4x4 held") << QStringLiteral("v6e-4x4-0") << SliceUse::FullyReserved << 16 << 0;
        QTest::newRow("v6e 4x4 ready 1") << QStringLiteral("v6e-4x4-1") << SliceUse::Ready << 16 << 0;
        QTest::newRow("v6e 4x4 ready 2") << QStringLiteral("v6e-4x4-2") << SliceUse::Ready << 16 << 0;
        // The dead host's 4 chips count: the slice stands for 16 chips nobody can take whole.
        QTest::newRow("v6e 4x4 degraded") << QStringLiteral("v6e-4x4-3") << SliceUse::Degraded << 16 << 16;
    }
    void demoSlices()
    {
        QFETCH(QString, slice);
        QFETCH(SliceUse, use);
        QFETCH(int, chips);
        QFETCH(int, stranded);
        DemoCluster demo;
        const SnapshotPtr snap = demoSnapshot(demo);
        QCOMPARE(snap->slices.size(), 7);
        const int i = snap->sliceIndex(slice);
        QVERIFY2(i >= 0, qPrintable(slice));
        const Slice &s = snap->slices[i];
        QCOMPARE(sliceUse(s), use);
        QCOMPARE(sliceChips(s), chips);
        QCOMPARE(strandedChips(s), stranded);
    }

    void demoShapes()
    {
        DemoCluster demo;
        const FleetStats stats = fleetStats(*demoSnapshot(demo));
        QStringList labels;
        for (const ShapeStats &s : stats.shapes)
            labels << s.label;
        // Generation display order (v4, v5e, v5p, v6e, v7x), then size: 2x4 (8 chips) before 4x4.
        QCOMPARE(labels, (QStringList{QStringLiteral("v4 2x2x2"), QStringLiteral("v5p 4x4x4"),
                                      QStringLiteral("v6e 2x4"), QStringLiteral("v6e 4x4")}));
        //                                     sl rdy full part clm deg prov chips res  avail clm  sP sD sPr
        QCOMPARE(stats.shape(u"v4 2x2x2")->counts, counts(1, 0, 1, 0, 0, 0, 0, 8, 8, 0, 0, 0, 0, 0));
        QCOMPARE(stats.shape(u"v5p 4x4x4")->counts, counts(1, 1, 0, 0, 0, 0, 0, 64, 0, 64, 0, 0, 0, 0));
        QCOMPARE(stats.shape(u"v6e 2x4")->counts, counts(1, 0, 0, 1, 0, 0, 0, 8, 2, 0, 0, 6, 0, 0));
        QCOMPARE(stats.shape(u"v6e 4x4")->counts, counts(4, 2, 1, 0, 0, 1, 0, 64, 16, 32, 0, 0, 16, 0));
        QCOMPARE(stats.shape(u"v6e 4x4")->counts.reserved(), 1);
        QVERIFY(!stats.shape(u"v6e 8x8")); // the unserved eval-8x8 request makes no slice
        checkAllIdentities(stats);
    }

    void demoGenerationsAndTotal()
    {
        DemoCluster demo;
        const FleetStats stats = fleetStats(*demoSnapshot(demo));
        QStringList labels;
        for (const GenerationStats &g : stats.generations)
            labels << g.label;
        QCOMPARE(labels, (QStringList{QStringLiteral("v4"), QStringLiteral("v5p"), QStringLiteral("v6e")}));
        QCOMPARE(stats.generation(u"v4")->counts, counts(1, 0, 1, 0, 0, 0, 0, 8, 8, 0, 0, 0, 0, 0));
        QCOMPARE(stats.generation(u"v5p")->counts, counts(1, 1, 0, 0, 0, 0, 0, 64, 0, 64, 0, 0, 0, 0));
        // v6e = 2x4 + 4x4: 5 slices, 72 chips, 2 + 16 reserved, 6 + 16 stranded.
        QCOMPARE(stats.generation(u"v6e")->counts, counts(5, 2, 1, 1, 0, 1, 0, 72, 18, 32, 0, 6, 16, 0));
        // Fleet: 7 slices, 8 + 64 + 72 = 144 chips, 8 + 18 = 26 reserved, 64 + 32 = 96 available.
        QCOMPARE(stats.total, counts(7, 3, 2, 1, 0, 1, 0, 144, 26, 96, 0, 6, 16, 0));
        QCOMPARE(stats.total.freeChips, 118);
        QCOMPARE(stats.total.strandedChips, 22);
        checkAllIdentities(stats);
    }

    void describeLines()
    {
        DemoCluster demo;
        const FleetStats stats = fleetStats(*demoSnapshot(demo));
        QCOMPARE(describe(*stats.shape(u"v6e 4x4")),
                 QStringLiteral("v6e 4x4: 2 of 4 ready \u00b7 1 fully reserved \u00b7 1 degraded \u00b7 16 chips stranded"));
        QCOMPARE(describe(*stats.shape(u"v6e 2x4")),
                 QStringLiteral("v6e 2x4: 0 of 1 ready \u00b7 1 partly used \u00b7 6 chips stranded"));
        QCOMPARE(describe(*stats.shape(u"v5p 4x4x4")), QStringLiteral("v5p 4x4x4: 1 of 1 ready"));
        QCOMPARE(describe(QStringLiteral("fleet"), stats.total),
                 QStringLiteral("fleet: 3 of 7 ready \u00b7 2 fully reserved \u00b7 1 partly used \u00b7 1 degraded \u00b7 22 chips stranded"));
    }

    // A slice placement group on its way (docs/facts.md 2.2): the head claimed first, the chips a second
    // later. In between the slice is Claimed: spoken for, neither available nor stranded.
    void claimedThenReserved()
    {
        DemoCluster demo;
        SlicePlacementRequest request;
        request.accelerator = QStringLiteral("v6e");
        request.topology = QStringLiteral("4x4");
        request.name = QStringLiteral("probe");
        QVERIFY(demo.submitSlicePlacementGroup(request).ok);
        // Job starts at 500 ms, the head is placed once 500 + kHeadReserveDelay have passed.
        demo.advance(500 + DemoCluster::kHeadReserveDelay);
        {
            const SnapshotPtr snap = demoSnapshot(demo);
            const Slice &s = snap->slices[snap->sliceIndex(u"v6e-4x4-1")]; // the first ready v6e 4x4
            QCOMPARE(s.status(), SliceStatus::Reserved);
            QCOMPARE(sliceUse(s), SliceUse::Claimed);
            QCOMPARE(strandedChips(s), 0);
            const FleetStats stats = fleetStats(*snap);
            QCOMPARE(stats.shape(u"v6e 4x4")->counts, counts(4, 1, 1, 0, 1, 1, 0, 64, 16, 16, 16, 0, 16, 0));
            checkAllIdentities(stats);
        }
        demo.advance(DemoCluster::kSliceReserveDelay);
        const SnapshotPtr snap = demoSnapshot(demo);
        QCOMPARE(sliceUse(snap->slices[snap->sliceIndex(u"v6e-4x4-1")]), SliceUse::FullyReserved);
        const FleetStats stats = fleetStats(*snap);
        QCOMPARE(stats.shape(u"v6e 4x4")->counts, counts(4, 1, 2, 0, 0, 1, 0, 64, 32, 16, 0, 0, 16, 0));
        checkAllIdentities(stats);
    }

    // Scaling the v6e 4x4 group up adds v6e-4x4-4 whose pods are still pending: its 16 chips are
    // stranded, counted apart as provisioning; once Ray joins them the slice is ready.
    void provisioning()
    {
        DemoCluster demo;
        QVERIFY(demo.scaleWorkerGroup(QStringLiteral("ml/tpu-team/v6e-4x4"), 5).ok);
        {
            const SnapshotPtr snap = demoSnapshot(demo);
            const int i = snap->sliceIndex(u"v6e-4x4-4");
            QVERIFY(i >= 0);
            QCOMPARE(sliceUse(snap->slices[i]), SliceUse::Provisioning);
            const FleetStats stats = fleetStats(*snap);
            QCOMPARE(stats.shape(u"v6e 4x4")->counts, counts(5, 2, 1, 0, 0, 1, 1, 80, 16, 32, 0, 0, 16, 16));
            QCOMPARE(stats.shape(u"v6e 4x4")->counts.strandedChips, 32);
            checkAllIdentities(stats);
        }
        demo.advance(DemoCluster::kPodStartDelay + DemoCluster::kRayJoinDelay);
        const FleetStats stats = fleetStats(*demoSnapshot(demo));
        QCOMPARE(stats.shape(u"v6e 4x4")->counts, counts(5, 3, 1, 0, 0, 1, 0, 80, 16, 48, 0, 0, 16, 0));
        checkAllIdentities(stats);
    }

    // Shapes nothing names: counted under their own labels, chips from what the hosts carry.
    void unknownShape()
    {
        ClusterSnapshot snap;
        Slice s;
        s.name = QStringLiteral("mystery-0");
        s.topology.dims = {0, 0, 0}; // snapshot.h: "chips() == 0 when unknown"
        s.hosts.resize(2);
        for (Host &h : s.hosts) {
            h.state = HostState::Alive;
            h.chips.resize(4);
        }
        s.problems << QStringLiteral("TPU generation unknown") << QStringLiteral("topology unknown");
        snap.slices << s;
        const FleetStats stats = fleetStats(snap);
        QCOMPARE(stats.shapes.size(), 1);
        QCOMPARE(stats.shapes.first().label, QStringLiteral("unknown (topology unknown)"));
        QCOMPARE(stats.generations.first().label, QStringLiteral("unknown"));
        // Not intact (no layout): degraded, its 8 chips stranded.
        QCOMPARE(stats.total, counts(1, 0, 0, 0, 0, 1, 0, 8, 0, 0, 0, 0, 8, 0));
    }

    void empty()
    {
        const FleetStats stats = fleetStats(ClusterSnapshot{});
        QVERIFY(stats.shapes.isEmpty());
        QVERIFY(stats.generations.isEmpty());
        QCOMPARE(stats.total, FleetCounts{});
    }
};

QTEST_GUILESS_MAIN(TestFleetStats)
#include "tst_fleetstats.moc"
