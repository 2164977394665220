// SPDX-License-Identifier: GPL-3.0-or-later
// SliceDrawOrder: what the slice view draws and in which order, built from the projection and the
// slice's chips without a widget. Every expected count is worked out by hand from the geometry in
// the row's comment, in "near distances": along each axis, a chip's a = how many chips lie
// between it and the slice's face nearest the viewer (0 on that face). With every chip opaque a
// chip is culled exactly when a >= 2 on all three axes (a chip two steps under the surface
// everywhere cannot show); it is "surface" (links, a tray for its host) when some a is 0.

#include "slicedraworder.h"

#include <QTest>

#include <algorithm>

using namespace slicescope;
using tpu::ChipCoord;
using Item = SliceDrawOrder::Item;

namespace {

const double kIsometricPitch = SliceProjection::presetRotation(SliceProjection::Preset::Isometric).second;

// A slice of `topology` on hosts of `chipsPerHost` chips, every host alive but `missing`.
Slice makeSlice(const QString &generation, const QString &topology, int chipsPerHost, const QList<int> &missing = {})
{
    const tpu::Generation *gen = tpu::findGeneration(generation);
    Q_ASSERT(gen);
    Slice slice;
    slice.name = QStringLiteral("s");
    slice.generation = gen;
    slice.topology = *tpu::parseTopology(topology);
    slice.chipsPerHost = chipsPerHost;
    slice.layout = tpu::SliceLayout(*gen, slice.topology, chipsPerHost);
    for (int w = 0; w < slice.layout.hostCount(); ++w) {
        Host h;
        h.workerId = w;
        h.state = missing.contains(w) ? HostState::Missing : HostState::Alive;
        slice.hosts.append(h);
    }
    return slice;
}

SliceProjection makeProjection(const Slice &slice, double yaw, double pitch, double explode = 0, int zFirst = 0, int zLast = -1)
{
    SliceProjection p(slice.layout.dims());
    p.setViewport(QSize(800, 600));
    p.setRotation(yaw, pitch);
    p.setExplode(explode);
    p.setLayerRange(zFirst, zLast < 0 ? slice.layout.dims().z - 1 : zLast);
    return p;
}

// How many chips of the order carry each stub bit, over all axes.
int stubCount(const SliceDrawOrder &order, SliceDrawOrder::StubBit bit)
{
    int n = 0;
    for (const Item &it : order.items())
        for (int axis = 0; axis < 3; ++axis)
            if (it.kind == Item::Chip && (it.stubs >> SliceDrawOrder::stubShift(axis)) & bit)
                ++n;
    return n;
}

// The worker whose 2x2x1 block sits in the corner farthest from the viewer in x and y, in the
// layer `layersUnderTop` under the near (top) one: derived from the projection's walk directions.
int farCornerWorker(const Slice &slice, const SliceProjection &p, int layersUnderTop)
{
    const auto steps = p.backToFrontSteps();
    const tpu::Dims d = slice.layout.dims();
    // steps > 0 walks towards increasing coordinates, so the far end is coordinate 0.
    const int x = steps[0] > 0 ? 0 : d.x - 1;
    const int y = steps[1] > 0 ? 0 : d.y - 1;
    const int z = steps[2] > 0 ? d.z - 1 - layersUnderTop : layersUnderTop;
    return slice.layout.workerAt(ChipCoord{x, y, z});
}

} // namespace

class TestSliceDrawOrder : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void counts_data();
    void counts();
    void paintersOrder();
    void buriedHosts_data();
    void buriedHosts();
    void keyFollowsOnlyWhatTheOrderDependsOn_data();
    void keyFollowsOnlyWhatTheOrderDependsOn();
    void emptyChipsDrawNothing();
};

void TestSliceDrawOrder::counts_data()
{
    QTest::addColumn<QString>("generation");
    QTest::addColumn<QString>("topology");
    QTest::addColumn<double>("pitch");
    QTest::addColumn<double>("explode");
    QTest::addColumn<int>("zFirst");
    QTest::addColumn<int>("zLast");
    QTest::addColumn<bool>("cull");
    QTest::addColumn<int>("missingFarCornerLayer"); // -1: every host alive
    QTest::addColumn<int>("chips");
    QTest::addColumn<int>("trays");
    QTest::addColumn<int>("labels");
    QTest::addColumn<int>("frontLinks");
    QTest::addColumn<int>("frontWraps");
    QTest::addColumn<int>("backWraps");

    // v4 4x4x4 on 4-chip hosts: 2x2x1 blocks, 16 hosts (4 per layer), every axis wraps.
    // Culled: a >= 2 everywhere leaves 2^3 = 8 chips out, 56 drawn. Surface chips (some a = 0):
    // 64 - 3^3 = 37. Hosts without a surface chip: the far x-y quadrant (a_x, a_y in {2, 3}) of
    // the three layers under the top: 3, so 13 trays. Labels: the top layer's 4 hosts.
    // Front links (a neighbour nearer the viewer, per axis): surface chips with a >= 1 on that
    // axis, 37 - 16 = 21, times 3. Front wraps: the 16 chips of each near face, times 3. Back
    // wraps: far-face chips (a = 3) that are surface, 4 + 4 - 1 = 7, times 3.
    QTest::newRow("4x4x4 isometric, culled: 56 drawn") << "v4" << "4x4x4" << kIsometricPitch << 0.0 << 0 << 3 << true << -1
                                                       << 56 << 13 << 4 << 63 << 48 << 21;
    // Nothing culled: every chip is surface, every host has a tray. Front links: 48 chips with
    // a >= 1 per axis; every chip on a near or far face carries its wrap.
    QTest::newRow("4x4x4 isometric, not culled: 64 drawn") << "v4" << "4x4x4" << kIsometricPitch << 0.0 << 0 << 3 << false << -1
                                                           << 64 << 16 << 4 << 144 << 48 << 48;
    // Exploded layers show every top: all surface, and every layer's hosts are labelled.
    QTest::newRow("4x4x4 exploded: 64 drawn, 16 labels") << "v4" << "4x4x4" << kIsometricPitch << 1.0 << 0 << 3 << true << -1
                                                         << 64 << 16 << 16 << 144 << 48 << 48;
    // From below the near face is the bottom: the same counts by symmetry, but no labels (they sit
    // on the tops, which face away).
    QTest::newRow("4x4x4 from below, culled: 56 drawn, no labels") << "v4" << "4x4x4" << -kIsometricPitch << 0.0 << 0 << 3 << true << -1
                                                                   << 56 << 13 << 0 << 63 << 48 << 21;
    // Straight down: the cull looks at all three axes whatever the camera, so the same as isometric.
    QTest::newRow("4x4x4 top view, culled: 56 drawn") << "v4" << "4x4x4" << 90.0 << 0.0 << 0 << 3 << true << -1
                                                      << 56 << 13 << 4 << 63 << 48 << 21;
    // Layers z=1..2 only: z=3 is empty space above, so layer 2 has a_z = 0 and layer 1 a_z = 1
    // with nothing two steps up: nothing culled (32). Surface: layer 2's 16 and layer 1's chips
    // with a_x = 0 or a_y = 0 (7): 23. Trays: layer 2's 4 hosts and 3 of layer 1's (not the far
    // quadrant). Labels: layer 2's 4. Front links: 15 in x, 15 in y (surface chips with a >= 1
    // there), 7 in z (layer 1's surface chips; layer 2's neighbour above is not shown). Front
    // wraps: the near x and y faces' surface chips, 8 each; the z wrap runs between z=3 and z=0,
    // both hidden. Back wraps: far x face 4 + 1, far y face likewise.
    QTest::newRow("4x4x4 layers 1-2, culled: 32 drawn") << "v4" << "4x4x4" << kIsometricPitch << 0.0 << 1 << 2 << true << -1
                                                        << 32 << 7 << 4 << 37 << 16 << 10;
    // The host in the far corner one layer under the top (a_x, a_y in {2, 3}, a_z = 1) is
    // MISSING: its ghosts hide nothing. The 4 chips under it (a_z = 2) become surface, the 4
    // below those (a_z = 3) see the ghosts two steps up: all 64 drawn. Of the ghosts, 3 are
    // surface (each has another ghost one step nearer) and the one at a_x = a_y = 2 is not. Trays:
    // only the a_z = 3 far host has no surface chip: 15. Front links: the 4 new surface chips link
    // in x and y (their z neighbour is a ghost, and ghosts carry none): 63 + 8. Back wraps: 2 of
    // them sit on the far x face and 2 on the far y face: 21 + 4.
    QTest::newRow("4x4x4 with a missing host, culled: 64 drawn") << "v4" << "4x4x4" << kIsometricPitch << 0.0 << 0 << 3 << true << 1
                                                                 << 64 << 15 << 4 << 71 << 48 << 25;
    // v4 16x16x16 (the benchmark's slice): 4096 - 14^3 = 1352 drawn; surface 4096 - 15^3 = 721.
    // Hosts (1024, 64 per layer) without a surface chip: blocks with a >= 1 everywhere, 7 x 7
    // per layer under the top, 15 layers: 735, so 289 trays. Labels: 64. Front links
    // (721 - 256) x 3; front wraps 256 x 3; back wraps (16 + 16 - 1) x 3.
    QTest::newRow("16x16x16 isometric, culled: 1352 drawn") << "v4" << "16x16x16" << kIsometricPitch << 0.0 << 0 << 15 << true << -1
                                                            << 1352 << 289 << 64 << 1395 << 768 << 93;
    // 2D slices: one layer, every chip on the top face, nothing culled. v5e 4x4 on 4-chip hosts:
    // 2x2 blocks, 4 hosts; links 12 per axis in x and y; no axis of 4 wraps on v5e.
    QTest::newRow("v5e 4x4 (2D), culled: 16 drawn") << "v5e" << "4x4" << kIsometricPitch << 0.0 << 0 << 0 << true << -1
                                                    << 16 << 4 << 4 << 24 << 0 << 0;
    // v5e 16x16: both axes of 16 wrap. 64 hosts, all labelled (<= 128). Links 16 x 15 per axis;
    // wraps: each near and each far face's 16 chips, in x and y.
    QTest::newRow("v5e 16x16 (2D) wraps, culled: 256 drawn") << "v5e" << "16x16" << kIsometricPitch << 0.0 << 0 << 0 << true << -1
                                                             << 256 << 64 << 64 << 480 << 32 << 32;
}

void TestSliceDrawOrder::counts()
{
    QFETCH(QString, generation);
    QFETCH(QString, topology);
    QFETCH(double, pitch);
    QFETCH(double, explode);
    QFETCH(int, zFirst);
    QFETCH(int, zLast);
    QFETCH(bool, cull);
    QFETCH(int, missingFarCornerLayer);

    Slice slice = makeSlice(generation, topology, 4);
    QVERIFY(slice.layout.isValid());
    const SliceProjection p = makeProjection(slice, -45, pitch, explode, zFirst, zLast);
    if (missingFarCornerLayer >= 0)
        slice.hosts[farCornerWorker(slice, p, missingFarCornerLayer)].state = HostState::Missing;
    const SliceChips chips = SliceChips::build(ClusterSnapshot{}, slice, ColorMode::State, Theme::light());
    const SliceDrawOrder order(p, chips, cull);

    QTEST(order.count(Item::Chip), "chips");
    QTEST(order.count(Item::Tray), "trays");
    QTEST(order.count(Item::Label), "labels");
    QTEST(stubCount(order, SliceDrawOrder::FrontLink), "frontLinks");
    QTEST(stubCount(order, SliceDrawOrder::FrontWrap), "frontWraps");
    QTEST(stubCount(order, SliceDrawOrder::BackWrap), "backWraps");
    // drawn() says the same as the chip items, and only chips in the shown layers are drawn.
    QCOMPARE(int(std::count(order.drawn().cbegin(), order.drawn().cend(), true)), order.count(Item::Chip));
    QCOMPARE(int(order.drawn().size()), slice.layout.chipCount());
    for (const Item &it : order.items())
        if (it.kind == Item::Chip) {
            QVERIFY(order.isDrawn(ChipCoord{it.x, it.y, it.z}));
            QVERIFY(p.isVisible(ChipCoord{it.x, it.y, it.z}));
        }
}

void TestSliceDrawOrder::paintersOrder()
{
    // Walking the items, no chip comes after a chip it can hide: one that is at least as near
    // the viewer on every axis (and nearer on one) comes later. Trays come before their layer's
    // chips seen from above, after them from below; a label right after its block's last chip.
    const Slice slice = makeSlice(QStringLiteral("v4"), QStringLiteral("4x4x8"), 4);
    const SliceChips chips = SliceChips::build(ClusterSnapshot{}, slice, ColorMode::State, Theme::light());
    for (const double yaw : {-135.0, -45.0, 45.0, 135.0})
        for (const double pitch : {kIsometricPitch, -kIsometricPitch}) {
            const SliceProjection p = makeProjection(slice, yaw, pitch);
            const SliceDrawOrder order(p, chips, false);
            const auto steps = p.backToFrontSteps();
            auto nearness = [&](const Item &it, int axis) {
                const int c = axis == 0 ? it.x : axis == 1 ? it.y
                                                           : it.z;
                return steps[size_t(axis)] > 0 ? c : -c;
            };
            std::vector<Item> seen;
            for (size_t i = 0; i < order.items().size(); ++i) {
                const Item &it = order.items()[i];
                if (it.kind == Item::Chip) {
                    for (const Item &before : seen)
                        QVERIFY2(!(nearness(before, 0) >= nearness(it, 0) && nearness(before, 1) >= nearness(it, 1) && nearness(before, 2) >= nearness(it, 2)),
                                 qPrintable(QStringLiteral("yaw %1 pitch %2: a chip drawn after one it can hide").arg(yaw).arg(pitch)));
                    seen.push_back(it);
                } else if (it.kind == Item::Tray) {
                    // Above: the tray's layer has no chip drawn yet; below: all 4 of its chips are.
                    int chipsOfLayer = 0;
                    for (const Item &before : seen)
                        chipsOfLayer += before.z == it.z;
                    QCOMPARE(chipsOfLayer, steps[2] > 0 ? 0 : 16);
                } else {
                    QVERIFY(steps[2] > 0);
                    QVERIFY(i > 0);
                    const Item &prev = order.items()[i - 1];
                    QCOMPARE(prev.kind, Item::Chip);
                    QCOMPARE(chips.chips[size_t(prev.ref)].host, it.ref);
                }
            }
            QCOMPARE(int(seen.size()), 128);
        }
}

void TestSliceDrawOrder::buriedHosts_data()
{
    QTest::addColumn<QString>("topology");
    QTest::addColumn<double>("explode");
    QTest::addColumn<int>("zFirst");
    QTest::addColumn<int>("zLast");
    QTest::addColumn<int>("buried");

    // A selected host none of whose chips is drawn gets the view's dashed box instead: which are
    // they? 4x4x4: the culled 2x2x2 far corner is the far x-y quadrant of the two bottom layers,
    // two 2x2x1 blocks.
    QTest::newRow("4x4x4 isometric: 2 buried") << "4x4x4" << 0.0 << 0 << 3 << 2;
    QTest::newRow("4x4x4 exploded: none buried") << "4x4x4" << 1.0 << 0 << 3 << 0;
    // Two layers shown: nothing is culled, and hosts of hidden layers are not drawn either.
    QTest::newRow("4x4x4 layers 1-2: the 8 hosts of layers 0 and 3") << "4x4x4" << 0.0 << 1 << 2 << 8;
    // 16x16x16: blocks with a >= 2 on every chip: 7 x 7 blocks per layer (a in 2..15), 14 layers.
    QTest::newRow("16x16x16 isometric: 686 buried") << "16x16x16" << 0.0 << 0 << 15 << 686;
}

void TestSliceDrawOrder::buriedHosts()
{
    QFETCH(QString, topology);
    QFETCH(double, explode);
    QFETCH(int, zFirst);
    QFETCH(int, zLast);

    const Slice slice = makeSlice(QStringLiteral("v4"), topology, 4);
    const SliceChips chips = SliceChips::build(ClusterSnapshot{}, slice, ColorMode::State, Theme::light());
    const SliceDrawOrder order(makeProjection(slice, -45, kIsometricPitch, explode, zFirst, zLast), chips, true);
    int buried = 0;
    for (const Host &h : slice.hosts) {
        bool any = false;
        for (int i = 0; i < slice.layout.chipsPerHost(); ++i)
            any = any || order.isDrawn(slice.layout.chipPosition(h.workerId, i));
        buried += !any;
    }
    QTEST(buried, "buried");
}

void TestSliceDrawOrder::keyFollowsOnlyWhatTheOrderDependsOn_data()
{
    QTest::addColumn<double>("yaw");
    QTest::addColumn<double>("pitch");
    QTest::addColumn<double>("zoom");
    QTest::addColumn<QPointF>("pan");
    QTest::addColumn<double>("explode");
    QTest::addColumn<bool>("sameOrder");

    // Against the isometric camera at yaw -45: only the octant (the walk directions), the layers
    // and exploding matter.
    QTest::newRow("zoomed in") << -45.0 << kIsometricPitch << 4.0 << QPointF() << 0.0 << true;
    QTest::newRow("panned") << -45.0 << kIsometricPitch << 1.0 << QPointF(120, -80) << 0.0 << true;
    QTest::newRow("zoomed and panned") << -45.0 << kIsometricPitch << 0.25 << QPointF(-300, 40) << 0.0 << true;
    QTest::newRow("turned within the octant") << -30.0 << 50.0 << 1.0 << QPointF() << 0.0 << true;
    QTest::newRow("turned into another octant") << 45.0 << kIsometricPitch << 1.0 << QPointF() << 0.0 << false;
    QTest::newRow("seen from below") << -45.0 << -20.0 << 1.0 << QPointF() << 0.0 << false;
    QTest::newRow("exploded") << -45.0 << kIsometricPitch << 1.0 << QPointF() << 0.5 << false;
}

void TestSliceDrawOrder::keyFollowsOnlyWhatTheOrderDependsOn()
{
    QFETCH(double, yaw);
    QFETCH(double, pitch);
    QFETCH(double, zoom);
    QFETCH(QPointF, pan);
    QFETCH(double, explode);
    QFETCH(bool, sameOrder);

    const Slice slice = makeSlice(QStringLiteral("v4"), QStringLiteral("4x4x4"), 4);
    const SliceChips chips = SliceChips::build(ClusterSnapshot{}, slice, ColorMode::State, Theme::light());
    const SliceProjection base = makeProjection(slice, -45, kIsometricPitch);
    SliceProjection moved = makeProjection(slice, yaw, pitch, explode);
    moved.setScale(base.scale() * zoom);
    moved.setPan(pan);
    QCOMPARE(SliceDrawOrder::keyFor(moved, true, 1) == SliceDrawOrder::keyFor(base, true, 1), sameOrder);
    const SliceDrawOrder a(base, chips, true, 1), b(moved, chips, true, 1);
    if (sameOrder) {
        QCOMPARE(b.items().size(), a.items().size());
        for (size_t i = 0; i < a.items().size(); ++i) {
            QCOMPARE(b.items()[i].kind, a.items()[i].kind);
            QCOMPARE(b.items()[i].ref, a.items()[i].ref);
            QCOMPARE(b.items()[i].stubs, a.items()[i].stubs);
        }
    }
    // Another data version is always another order.
    QVERIFY(!(SliceDrawOrder::keyFor(base, true, 2) == SliceDrawOrder::keyFor(base, true, 1)));
}

void TestSliceDrawOrder::emptyChipsDrawNothing()
{
    // A slice that cannot be laid out has no chips: the order is empty but still sized to the
    // grid, so hit-testing against it answers "not drawn" everywhere.
    const SliceProjection p(tpu::Dims{2, 2, 2});
    const SliceDrawOrder order(p, SliceChips{}, true);
    QVERIFY(order.items().empty());
    QCOMPARE(int(order.drawn().size()), 8);
    QVERIFY(!order.isDrawn(ChipCoord{0, 0, 0}));
    QVERIFY(!order.isDrawn(ChipCoord{5, 0, 0}));
}

QTEST_GUILESS_MAIN(TestSliceDrawOrder)
#include "tst_slicedraworder.moc"
