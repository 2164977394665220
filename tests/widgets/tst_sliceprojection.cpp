// SPDX-License-Identifier: GPL-3.0-or-later
// SliceProjection: the geometry paint, tooltips and mouse handling share (docs/style.md 10). Pure
// maths, so every row states its expectation as numbers worked out by hand or as a property
// checked over every chip.

#include "sliceprojection.h"

#include <QDebug>
#include <QTest>

#include <cmath>

using namespace slicescope;
using tpu::ChipCoord;
using tpu::Dims;
using Preset = SliceProjection::Preset;

namespace QTest {
template<>
char *toString(const ChipCoord &c)
{
    return qstrdup(QByteArray("(" + QByteArray::number(c.x) + ", " + QByteArray::number(c.y) + ", " + QByteArray::number(c.z) + ")").constData());
}
} // namespace QTest

namespace {

SliceProjection make(Dims dims, Preset preset, QSize viewport = QSize(200, 100), double scale = 10)
{
    SliceProjection p(dims);
    p.applyPreset(preset);
    p.setViewport(viewport);
    p.setScale(scale);
    return p;
}

QString dimsText(Dims d)
{
    return QStringLiteral("%1x%2x%3").arg(d.x).arg(d.y).arg(d.z);
}

bool near(QPointF a, QPointF b, double eps = 1e-3)
{
    return std::abs(a.x() - b.x()) < eps && std::abs(a.y() - b.y()) < eps;
}

double polygonArea(const QPolygonF &p)
{
    double a = 0;
    for (qsizetype i = 0; i < p.size(); ++i)
        a += p[i].x() * p[(i + 1) % p.size()].y() - p[(i + 1) % p.size()].x() * p[i].y();
    return std::abs(a) / 2;
}

bool contains(const QPolygonF &polygon, QPointF point)
{
    return polygon.containsPoint(point, Qt::OddEvenFill);
}

} // namespace

Q_DECLARE_METATYPE(Dims)
Q_DECLARE_METATYPE(ChipCoord)
Q_DECLARE_METATYPE(Preset)

class TestSliceProjection : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void projectsKnownPoints_data();
    void projectsKnownPoints();
    void presetsHaveTheirRotations();
    void rotationIsNormalised();
    void depthOrderIsBackToFront_data();
    void depthOrderIsBackToFront();
    void depthOrderDependsOnlyOnRotation();
    void hitTestReturnsTheFrontChip_data();
    void hitTestReturnsTheFrontChip();
    void hitTestOverEmptySpace();
    void explodeOpensGapsBetweenLayers_data();
    void explodeOpensGapsBetweenLayers();
    void layerRangeHidesLayers();
    void fitKeepsEveryChipInside_data();
    void fitKeepsEveryChipInside();
    void inverseConsistency_data();
    void inverseConsistency();
    void zoomAboutKeepsThePointUnderTheCursor();
    void silhouettes();
    void valueSemantics();
};

void TestSliceProjection::projectsKnownPoints_data()
{
    QTest::addColumn<Preset>("preset");
    QTest::addColumn<Dims>("dims");
    QTest::addColumn<QPointF>("pan");
    QTest::addColumn<double>("explode");
    QTest::addColumn<ChipCoord>("chip");
    QTest::addColumn<QPointF>("expected");

    // Viewport 200x100 (centre 100, 50), 10 px per pitch. Top: x right, y up the screen.
    QTest::newRow("top 4x4 origin") << Preset::Top << Dims{4, 4, 1} << QPointF() << 0.0 << ChipCoord{0, 0, 0} << QPointF(85, 65);
    QTest::newRow("top 4x4 far corner") << Preset::Top << Dims{4, 4, 1} << QPointF() << 0.0 << ChipCoord{3, 3, 0} << QPointF(115, 35);
    QTest::newRow("top 2x4 x=1 y=0") << Preset::Top << Dims{2, 4, 1} << QPointF() << 0.0 << ChipCoord{1, 0, 0} << QPointF(105, 65);
    QTest::newRow("top ignores z") << Preset::Top << Dims{4, 4, 4} << QPointF() << 0.0 << ChipCoord{0, 0, 3} << QPointF(85, 65);
    // Front: x right, z up; y is depth.
    QTest::newRow("front origin") << Preset::Front << Dims{4, 4, 4} << QPointF() << 0.0 << ChipCoord{0, 0, 0} << QPointF(85, 65);
    QTest::newRow("front x=3 z=3") << Preset::Front << Dims{4, 4, 4} << QPointF() << 0.0 << ChipCoord{3, 0, 3} << QPointF(115, 35);
    QTest::newRow("front ignores y") << Preset::Front << Dims{4, 4, 4} << QPointF() << 0.0 << ChipCoord{0, 3, 0} << QPointF(85, 65);
    QTest::newRow("front explode 1") << Preset::Front << Dims{4, 4, 4} << QPointF() << 1.0 << ChipCoord{0, 0, 3} << QPointF(85, 20);
    QTest::newRow("front pan") << Preset::Front << Dims{4, 4, 4} << QPointF(10, -5) << 0.0 << ChipCoord{0, 0, 0} << QPointF(95, 60);
    // Isometric (yaw -45, pitch atan(1/sqrt 2)): right = (1, 1, 0)/sqrt2, up = (-1, 1, 2)/sqrt6.
    // Chip (1,1,1) of a 2x2x2 is at world (0.5, 0.5, 0.5): u = 1/sqrt2, v = 1/sqrt6.
    QTest::newRow("iso 2x2x2 top corner") << Preset::Isometric << Dims{2, 2, 2} << QPointF() << 0.0 << ChipCoord{1, 1, 1}
                                          << QPointF(100 + 10 / std::sqrt(2.0), 50 - 10 / std::sqrt(6.0));
    // Chip (1,0,0) at (0.5, -0.5, -0.5): u = 0, v = (-0.5 - 0.5 - 1)/sqrt6 = -2/sqrt6.
    QTest::newRow("iso 2x2x2 front bottom") << Preset::Isometric << Dims{2, 2, 2} << QPointF() << 0.0 << ChipCoord{1, 0, 0}
                                            << QPointF(100, 50 + 20 / std::sqrt(6.0));
    // Chip (0,0,0) at (-0.5, -0.5, -0.5): u = -1/sqrt2, v = (0.5 - 0.5 - 1)/sqrt6.
    QTest::newRow("iso 2x2x2 left bottom") << Preset::Isometric << Dims{2, 2, 2} << QPointF() << 0.0 << ChipCoord{0, 0, 0}
                                           << QPointF(100 - 10 / std::sqrt(2.0), 50 + 10 / std::sqrt(6.0));
}

void TestSliceProjection::projectsKnownPoints()
{
    QFETCH(Preset, preset);
    QFETCH(Dims, dims);
    QFETCH(QPointF, pan);
    QFETCH(double, explode);
    QFETCH(ChipCoord, chip);
    QFETCH(QPointF, expected);
    SliceProjection p = make(dims, preset);
    p.setPan(pan);
    p.setExplode(explode);
    const QPointF got = p.chipCenter(chip);
    QVERIFY2(near(got, expected), qPrintable(QStringLiteral("got (%1, %2)").arg(got.x()).arg(got.y())));
    // The same point through the public pieces: map(worldPosition) and the axis steps.
    const auto steps = p.axisSteps();
    const QPointF viaSteps = p.chipCenter(ChipCoord{0, 0, 0}) + steps[0] * chip.x + steps[1] * chip.y + steps[2] * chip.z;
    QVERIFY(near(viaSteps, expected));
}

void TestSliceProjection::presetsHaveTheirRotations()
{
    SliceProjection p(Dims{4, 4, 4});
    p.applyPreset(Preset::Top);
    QCOMPARE(p.yaw(), 0.0);
    QCOMPARE(p.pitch(), 90.0);
    QVERIFY(p.faceVisible(2, 1));
    QVERIFY(!p.faceVisible(0, 1) && !p.faceVisible(0, -1) && !p.faceVisible(1, -1));
    p.applyPreset(Preset::Front);
    QCOMPARE(p.pitch(), 0.0);
    QVERIFY(p.faceVisible(1, -1)); // the camera stands at -y
    QVERIFY(!p.faceVisible(2, 1) && !p.faceVisible(0, 1));
    p.applyPreset(Preset::Isometric);
    QCOMPARE(p.yaw(), -45.0);
    QVERIFY(std::abs(p.pitch() - 35.2643897) < 1e-6);
    // Isometric sees +x, -y and the top, all three at the same angle.
    const QVector3D t = p.towardViewer();
    QVERIFY(std::abs(t.x() - 1 / std::sqrt(3.0f)) < 1e-5f);
    QVERIFY(std::abs(t.y() + 1 / std::sqrt(3.0f)) < 1e-5f);
    QVERIFY(std::abs(t.z() - 1 / std::sqrt(3.0f)) < 1e-5f);
}

void TestSliceProjection::rotationIsNormalised()
{
    SliceProjection p(Dims{2, 2, 2});
    p.setRotation(190, 120);
    QCOMPARE(p.yaw(), -170.0);
    QCOMPARE(p.pitch(), 90.0);
    p.setRotation(-540, -100);
    QCOMPARE(p.yaw(), 180.0);
    QCOMPARE(p.pitch(), -90.0);
    p.setRotation(0, 0);
    p.rotateBy(370, 10);
    QCOMPARE(p.yaw(), 10.0);
    QCOMPARE(p.pitch(), 10.0);
}

void TestSliceProjection::depthOrderIsBackToFront_data()
{
    QTest::addColumn<Dims>("dims");
    QTest::addColumn<double>("yaw");
    QTest::addColumn<double>("pitch");
    QTest::addColumn<double>("explode");
    const std::pair<double, double> rotations[] = {{-45, 35.26}, {30, 20}, {135, 60}, {-120, 10}, {170, -30}, {0, 90}, {0, 0}, {90, 45}, {-10, -80}};
    for (const Dims d : {Dims{4, 4, 4}, Dims{2, 4, 3}, Dims{4, 4, 1}})
        for (const auto &[yaw, pitch] : rotations)
            for (double explode : {0.0, 1.0})
                QTest::addRow("%s yaw %g pitch %g explode %g", qPrintable(dimsText(d)), yaw, pitch, explode) << d << yaw << pitch << explode;
}

void TestSliceProjection::depthOrderIsBackToFront()
{
    QFETCH(Dims, dims);
    QFETCH(double, yaw);
    QFETCH(double, pitch);
    QFETCH(double, explode);
    SliceProjection p(dims);
    p.setRotation(yaw, pitch);
    p.setExplode(explode);
    p.setViewport(QSize(800, 600));
    p.setScale(40);
    const QList<ChipCoord> order = p.depthOrder();
    QCOMPARE(order.size(), dims.volume());
    // Every chip exactly once.
    QSet<int> seen;
    for (const ChipCoord &c : order)
        seen.insert(c.x + dims.x * (c.y + dims.y * c.z));
    QCOMPARE(seen.size(), dims.volume());
    // Painter's algorithm: whenever two chips overlap on screen, the one nearer the viewer comes later.
    for (qsizetype i = 0; i < order.size(); ++i) {
        const QPolygonF a = p.chipOutline(order[i]);
        const double da = p.depth(p.worldPosition(order[i]));
        for (qsizetype j = i + 1; j < order.size(); ++j) {
            const QPolygonF b = p.chipOutline(order[j]);
            if (!a.boundingRect().intersects(b.boundingRect()))
                continue;
            if (polygonArea(a.intersected(b)) < 1e-3)
                continue;
            const double db = p.depth(p.worldPosition(order[j]));
            if (db < da - 1e-6)
                QFAIL(qPrintable(QStringLiteral("chip (%1,%2,%3) is drawn after (%4,%5,%6) though it is behind it")
                                     .arg(order[j].x)
                                     .arg(order[j].y)
                                     .arg(order[j].z)
                                     .arg(order[i].x)
                                     .arg(order[i].y)
                                     .arg(order[i].z)));
        }
    }
}

void TestSliceProjection::depthOrderDependsOnlyOnRotation()
{
    SliceProjection a(Dims{4, 4, 4});
    a.setRotation(30, 25);
    SliceProjection b = a;
    b.setScale(77);
    b.setPan(QPointF(13, -40));
    b.setViewport(QSize(1234, 567));
    b.setExplode(2.5);
    QCOMPARE(b.depthOrder(), a.depthOrder());
    QCOMPARE(b.backToFrontSteps(), a.backToFrontSteps());
    b.setRotation(40, 30); // same octant
    QCOMPARE(b.depthOrder(), a.depthOrder());
    b.setRotation(-150, 30); // another octant
    QVERIFY(b.depthOrder() != a.depthOrder());
}

void TestSliceProjection::hitTestReturnsTheFrontChip_data()
{
    QTest::addColumn<Preset>("preset");
    QTest::addColumn<Dims>("dims");
    QTest::addColumn<ChipCoord>("aimAt");   // the point tested is this chip's centre
    QTest::addColumn<ChipCoord>("expected");

    // Top: the top layer covers every column.
    QTest::newRow("top over (1,2,0) of 4x4x4") << Preset::Top << Dims{4, 4, 4} << ChipCoord{1, 2, 0} << ChipCoord{1, 2, 3};
    QTest::newRow("top over (3,0,3)") << Preset::Top << Dims{4, 4, 4} << ChipCoord{3, 0, 3} << ChipCoord{3, 0, 3};
    QTest::newRow("top 2D") << Preset::Top << Dims{4, 4, 1} << ChipCoord{2, 1, 0} << ChipCoord{2, 1, 0};
    // Front: the camera stands at -y, so y = 0 is in front.
    QTest::newRow("front over (2,3,1)") << Preset::Front << Dims{4, 4, 4} << ChipCoord{2, 3, 1} << ChipCoord{2, 0, 1};
    // Isometric looks along (-1, 1, -1): the chip one step towards the viewer on every axis
    // projects onto the same point, and the front-most of that diagonal wins.
    QTest::newRow("iso over the centre (1,2,1)") << Preset::Isometric << Dims{4, 4, 4} << ChipCoord{1, 2, 1} << ChipCoord{3, 0, 3};
    QTest::newRow("iso over (0,2,1)") << Preset::Isometric << Dims{4, 4, 4} << ChipCoord{0, 2, 1} << ChipCoord{2, 0, 3};
    QTest::newRow("iso over (2,1,0), short diagonal") << Preset::Isometric << Dims{4, 4, 4} << ChipCoord{2, 1, 0} << ChipCoord{3, 0, 1};
    QTest::newRow("iso over (0,3,0)") << Preset::Isometric << Dims{4, 4, 4} << ChipCoord{0, 3, 0} << ChipCoord{3, 0, 3};
    QTest::newRow("iso over the front corner") << Preset::Isometric << Dims{4, 4, 4} << ChipCoord{3, 0, 3} << ChipCoord{3, 0, 3};
}

void TestSliceProjection::hitTestReturnsTheFrontChip()
{
    QFETCH(Preset, preset);
    QFETCH(Dims, dims);
    QFETCH(ChipCoord, aimAt);
    QFETCH(ChipCoord, expected);
    const SliceProjection p = make(dims, preset, QSize(800, 600), 40);
    const auto hit = p.hitTest(p.chipCenter(aimAt));
    QVERIFY(hit);
    QCOMPARE(*hit, expected);
    // A filter sees past chips it rejects: only the aimed-at chip is acceptable, so it is found.
    const auto filtered = p.hitTest(p.chipCenter(aimAt), [&](ChipCoord c) { return c == aimAt; });
    QVERIFY(filtered);
    QCOMPARE(*filtered, aimAt);
}

void TestSliceProjection::hitTestOverEmptySpace()
{
    const SliceProjection p = make(Dims{4, 4, 1}, Preset::Top, QSize(800, 600), 40);
    QVERIFY(!p.hitTest(QPointF(5, 5)));
    // The gap between two chips (chip edge 0.74, pitch 1) belongs to nobody.
    const QPointF between = (p.chipCenter(ChipCoord{1, 1, 0}) + p.chipCenter(ChipCoord{2, 1, 0})) / 2;
    QVERIFY(!p.hitTest(between));
    QCOMPARE(*p.hitTest(between + QPointF(-0.2 * 40, 0)), (ChipCoord{1, 1, 0}));
}

void TestSliceProjection::explodeOpensGapsBetweenLayers_data()
{
    QTest::addColumn<double>("explode");
    QTest::addColumn<double>("chipHeight");
    QTest::newRow("solid cubes") << 0.0 << SliceProjection::kChipSize;
    QTest::newRow("half a pitch") << 0.5 << SliceProjection::kChipSize;
    QTest::newRow("one pitch") << 1.0 << SliceProjection::kChipSize;
    QTest::newRow("flat chips, three pitches") << 3.0 << 0.3;
}

void TestSliceProjection::explodeOpensGapsBetweenLayers()
{
    QFETCH(double, explode);
    QFETCH(double, chipHeight);
    SliceProjection p = make(Dims{4, 4, 4}, Preset::Front, QSize(800, 600), 20);
    p.setChipHeight(chipHeight);
    p.setExplode(explode);
    // Layer pitch on screen, straight up in the front view.
    const QPointF step = p.chipCenter(ChipCoord{0, 0, 1}) - p.chipCenter(ChipCoord{0, 0, 0});
    QVERIFY(near(step, QPointF(0, -20 * (1 + explode))));
    QVERIFY(near(p.axisSteps()[2], step));
    // The empty space between a layer's top and the next one's bottom.
    const auto lower = p.chipCorners(ChipCoord{0, 0, 0});
    const auto upper = p.chipCorners(ChipCoord{0, 0, 1});
    const double gap = lower[4].y() - upper[0].y(); // corner 4 = top of the lower chip, 0 = bottom of the upper
    QVERIFY2(std::abs(gap - 20 * (1 + explode - chipHeight)) < 1e-3, qPrintable(QString::number(gap)));
    // x and y spacing do not change, and the middle stays put.
    QVERIFY(near(p.axisSteps()[0], QPointF(20, 0)));
    const QPointF mid = (p.chipCenter(ChipCoord{0, 0, 0}) + p.chipCenter(ChipCoord{3, 3, 3})) / 2;
    QVERIFY(near(mid, QPointF(400, 300)));
}

void TestSliceProjection::layerRangeHidesLayers()
{
    SliceProjection p = make(Dims{4, 4, 4}, Preset::Isometric, QSize(800, 600), 40);
    p.setLayerRange(1, 2);
    QCOMPARE(p.layerFirst(), 1);
    QCOMPARE(p.layerLast(), 2);
    QVERIFY(!p.isFullLayerRange());
    const QList<ChipCoord> order = p.depthOrder();
    QCOMPARE(order.size(), 32);
    for (const ChipCoord &c : order)
        QVERIFY(c.z == 1 || c.z == 2);
    QVERIFY(!p.isVisible(ChipCoord{0, 0, 3}));
    QVERIFY(p.isVisible(ChipCoord{0, 0, 2}));
    // Where the top layer would answer, the highest shown layer does.
    const auto hit = p.hitTest(p.chipCenter(ChipCoord{3, 0, 3}));
    QVERIFY(hit);
    QCOMPARE(hit->z, 2);
    // Out-of-range requests are clamped and ordered.
    p.setLayerRange(9, -3);
    QCOMPARE(p.layerFirst(), 0);
    QCOMPARE(p.layerLast(), 3);
    QVERIFY(p.isFullLayerRange());
    // A new shape shows all its layers.
    p.setLayerRange(2, 2);
    p.setDims(Dims{2, 2, 8});
    QCOMPARE(p.layerFirst(), 0);
    QCOMPARE(p.layerLast(), 7);
}

void TestSliceProjection::fitKeepsEveryChipInside_data()
{
    QTest::addColumn<Dims>("dims");
    QTest::addColumn<Preset>("preset");
    QTest::addColumn<double>("explode");
    QTest::addColumn<QSize>("viewport");
    for (const Dims d : {Dims{1, 1, 1}, Dims{2, 4, 1}, Dims{16, 16, 1}, Dims{4, 4, 4}, Dims{16, 16, 16}, Dims{16, 20, 28}})
        for (Preset preset : {Preset::Isometric, Preset::Top, Preset::Front})
            for (double explode : {0.0, 1.0})
                for (QSize size : {QSize(1920, 1080), QSize(400, 900)})
                    QTest::addRow("%s preset %d explode %g %dx%d", qPrintable(dimsText(d)), int(preset), explode, size.width(), size.height())
                        << d << preset << explode << size;
}

void TestSliceProjection::fitKeepsEveryChipInside()
{
    QFETCH(Dims, dims);
    QFETCH(Preset, preset);
    QFETCH(double, explode);
    QFETCH(QSize, viewport);
    SliceProjection p = make(dims, preset, viewport, 3);
    p.setExplode(explode);
    p.setPan(QPointF(500, -200)); // fit must undo any pan
    const QRectF area = QRectF(QPointF(0, 0), QSizeF(viewport)).adjusted(20, 60, -200, -30);
    p.fit(area, SliceProjection::kChipSize / 2, SliceProjection::kMaxScale);
    QRectF covered;
    for (const ChipCoord &c : p.depthOrder())
        covered = covered.united(p.chipOutline(c).boundingRect());
    QVERIFY2(area.adjusted(-0.01, -0.01, 0.01, 0.01).contains(covered),
             qPrintable(QStringLiteral("covered %1,%2 %3x%4").arg(covered.x()).arg(covered.y()).arg(covered.width()).arg(covered.height())));
    // Framed, not merely inside: one side spans the area (unless the zoom limit stopped it).
    if (p.scale() < SliceProjection::kMaxScale)
        QVERIFY(covered.width() > area.width() * 0.98 || covered.height() > area.height() * 0.98);
    QVERIFY(std::abs(covered.center().x() - area.center().x()) < 1 && std::abs(covered.center().y() - area.center().y()) < 1);
    const QRectF box = p.boundingRect(); // the same, from the 8 corners of the visible block
    QVERIFY(near(box.topLeft(), covered.topLeft(), 1e-2) && near(box.bottomRight(), covered.bottomRight(), 1e-2));
}

void TestSliceProjection::inverseConsistency_data()
{
    QTest::addColumn<Dims>("dims");
    QTest::addColumn<double>("yaw");
    QTest::addColumn<double>("pitch");
    QTest::addColumn<double>("explode");
    for (const Dims d : {Dims{4, 4, 1}, Dims{2, 4, 1}, Dims{2, 2, 2}, Dims{4, 4, 4}, Dims{8, 4, 6}})
        for (const auto &[yaw, pitch] : {std::pair{-45.0, 35.26}, std::pair{0.0, 90.0}, std::pair{0.0, 0.0}, std::pair{120.0, 50.0}, std::pair{-70.0, -25.0}})
            for (double explode : {0.0, 1.5})
                QTest::addRow("%s yaw %g pitch %g explode %g", qPrintable(dimsText(d)), yaw, pitch, explode) << d << yaw << pitch << explode;
}

void TestSliceProjection::inverseConsistency()
{
    QFETCH(Dims, dims);
    QFETCH(double, yaw);
    QFETCH(double, pitch);
    QFETCH(double, explode);
    SliceProjection p(dims);
    p.setRotation(yaw, pitch);
    p.setExplode(explode);
    p.setViewport(QSize(1000, 800));
    p.fit();
    const QList<ChipCoord> order = p.depthOrder();
    for (const ChipCoord &c : order) {
        const QPointF at = p.chipCenter(c);
        // Whatever answers covers the point and is not behind the chip aimed at.
        const auto hit = p.hitTest(at);
        QVERIFY(hit);
        QVERIFY(contains(p.chipOutline(*hit), at));
        QVERIFY(p.depth(p.worldPosition(*hit)) >= p.depth(p.worldPosition(c)) - 1e-6);
        // Asked for that chip alone, the inverse finds it.
        const auto self = p.hitTest(at, [&](ChipCoord h) { return h == c; });
        QVERIFY(self && *self == c);
    }
    // One layer seen from above: every chip answers for its own centre.
    p.setRotation(yaw, 90);
    for (int z = 0; z < dims.z; ++z) {
        p.setLayerRange(z, z);
        for (const ChipCoord &c : p.depthOrder())
            QCOMPARE(*p.hitTest(p.chipCenter(c)), c);
    }
}

void TestSliceProjection::zoomAboutKeepsThePointUnderTheCursor()
{
    SliceProjection p = make(Dims{4, 4, 4}, Preset::Isometric, QSize(800, 600), 30);
    p.setPan(QPointF(12, 7));
    const ChipCoord chip{3, 0, 3};
    const QPointF cursor = p.chipCenter(chip) + QPointF(3, -2);
    p.zoomAbout(cursor, 1.7);
    QCOMPARE(p.scale(), 51.0);
    QVERIFY(near(p.chipCenter(chip) + QPointF(3, -2) * 1.7, cursor));
    QCOMPARE(*p.hitTest(cursor), chip);
    p.zoomAbout(cursor, 1e-6); // clamped
    QCOMPARE(p.scale(), SliceProjection::kMinScale);
}

void TestSliceProjection::silhouettes()
{
    SliceProjection p = make(Dims{2, 2, 2}, Preset::Top, QSize(100, 100), 10);
    // Axis-aligned: a square of the chip's width, not a degenerate hexagon.
    QPolygonF top = p.chipSilhouette();
    QCOMPARE(top.size(), 4);
    QVERIFY(std::abs(polygonArea(top) - 7.4 * 7.4) < 1e-3);
    p.applyPreset(Preset::Isometric);
    const QPolygonF iso = p.chipSilhouette();
    QCOMPARE(iso.size(), 6);
    // A cube's isometric outline is a regular hexagon of area sqrt(3) * edge^2 (in pitches).
    QVERIFY(std::abs(polygonArea(iso) - std::sqrt(3.0) * 7.4 * 7.4) < 1e-2);
    // Flat chips give a lower outline.
    p.setChipHeight(0.3);
    QVERIFY(polygonArea(p.chipSilhouette()) < polygonArea(iso));
    QCOMPARE(p.chipHalfExtents(), QVector3D(0.37f, 0.37f, 0.15f));
}

void TestSliceProjection::valueSemantics()
{
    SliceProjection a = make(Dims{4, 4, 4}, Preset::Isometric);
    SliceProjection b = a;
    QCOMPARE(a, b);
    b.setExplode(1);
    QVERIFY(!(a == b));
    b = a;
    b.setLayerRange(0, 1);
    QVERIFY(!(a == b));
    QString text;
    QDebug(&text) << a;
    QVERIFY2(text.contains(QLatin1String("SliceProjection(4x4x4 yaw -45")), qPrintable(text));
    QVERIFY(text.contains(QLatin1String("layers 0..3")));
}

QTEST_GUILESS_MAIN(TestSliceProjection)
#include "tst_sliceprojection.moc"
