// SPDX-License-Identifier: GPL-3.0-or-later
// The slice view driven the way a person drives it: QTest mouse, wheel and key events on a
// SliceView showing slices of the demo cluster, checked through the projection it exposes, the
// tooltips it shows, the hosts it selects and the pixels it paints.

#include "democluster.h"
#include "look.h"
#include "sliceview.h"

#include <QApplication>
#include <QHelpEvent>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPainter>
#include <QPicture>
#include <QSignalSpy>
#include <QTest>
#include <QToolTip>

#include <cmath>

using namespace slicescope;
using tpu::ChipCoord;

namespace QTest {
template<>
char *toString(const ChipCoord &c)
{
    return qstrdup(QByteArray("(" + QByteArray::number(c.x) + ", " + QByteArray::number(c.y) + ", " + QByteArray::number(c.z) + ")").constData());
}
} // namespace QTest

namespace {

SnapshotPtr demoSnapshot()
{
    static const SnapshotPtr snapshot = buildSnapshot(DemoCluster().capture());
    return snapshot;
}

const Slice &sliceOf(const SnapshotPtr &snapshot, const QString &name)
{
    const int i = snapshot->sliceIndex(name);
    Q_ASSERT(i >= 0);
    return snapshot->slices[i];
}

// Drops one host of a slice from every body, so the snapshot reports it MISSING.
SnapshotPtr withMissingHost(const QString &sliceName, int workerId)
{
    Capture capture = DemoCluster().capture();
    QJsonObject nodes = QJsonDocument::fromJson(capture.rayNodes).object();
    QJsonObject data = nodes[QStringLiteral("data")].toObject();
    QJsonObject result = data[QStringLiteral("result")].toObject();
    QJsonArray kept;
    for (const QJsonValue &n : result[QStringLiteral("result")].toArray()) {
        const QJsonObject labels = n[QStringLiteral("labels")].toObject();
        if (labels[QStringLiteral("ray.io/tpu-slice-name")].toString() == sliceName
            && labels[QStringLiteral("ray.io/tpu-worker-id")].toString() == QString::number(workerId))
            continue;
        kept.append(n);
    }
    result[QStringLiteral("result")] = kept;
    data[QStringLiteral("result")] = result;
    nodes[QStringLiteral("data")] = data;
    capture.rayNodes = QJsonDocument(nodes).toJson(QJsonDocument::Compact);
    QJsonObject pods = QJsonDocument::fromJson(capture.kubePods).object();
    QJsonArray keptPods;
    for (const QJsonValue &p : pods[QStringLiteral("items")].toArray()) {
        const QJsonDocument doc(p.toObject());
        const QByteArray text = doc.toJson(QJsonDocument::Compact);
        // The pod of that host names the slice in TPU_NAME and its index in TPU_WORKER_ID.
        const bool same = text.contains("\"" + sliceName.toUtf8() + "\"")
                          && (text.contains("\"TPU_WORKER_ID\",\"value\":\"" + QByteArray::number(workerId) + "\"")
                              || text.contains("\"ray.io/replica-host-index\":\"" + QByteArray::number(workerId) + "\""));
        if (!same)
            keptPods.append(p);
    }
    pods[QStringLiteral("items")] = keptPods;
    capture.kubePods = QJsonDocument(pods).toJson(QJsonDocument::Compact);
    return buildSnapshot(capture);
}

// The top-centre of a chip on screen: where its colour shows undimmed.
QPoint topOf(const SliceProjection &p, ChipCoord c)
{
    return p.map(p.worldPosition(c) + QVector3D(0, 0, p.chipHalfExtents().z() * 0.999f)).toPoint();
}

QImage renderOf(SliceView &view, QSize size = QSize(900, 650))
{
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    QPainter painter(&image);
    view.render(painter, size);
    painter.end();
    return image;
}

bool similar(QColor a, QColor b, int tolerance)
{
    return std::abs(a.red() - b.red()) <= tolerance && std::abs(a.green() - b.green()) <= tolerance && std::abs(a.blue() - b.blue()) <= tolerance;
}

void sendMove(QWidget *w, QPoint pos)
{
    QMouseEvent move(QEvent::MouseMove, pos, w->mapToGlobal(pos), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(w, &move);
}

void sendWheel(QWidget *w, QPoint pos, int delta)
{
    QWheelEvent wheel(pos, w->mapToGlobal(pos), QPoint(), QPoint(0, delta), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(w, &wheel);
}

void drag(QWidget *w, Qt::MouseButton button, QPoint from, QPoint to, Qt::KeyboardModifiers modifiers = {})
{
    QTest::mousePress(w, button, modifiers, from);
    for (int i = 1; i <= 8; ++i)
        QTest::mouseMove(w, from + (to - from) * i / 8);
    QTest::mouseRelease(w, button, modifiers, to);
}

// A v4 16x16x16 slice (4096 chips, 1024 hosts of 2x2x1), as the render benchmark's: the biggest
// cube GKE makes, built from a Ray node list alone.
SnapshotPtr bigCubeSnapshot()
{
    static const SnapshotPtr snapshot = [] {
        QJsonArray nodes;
        for (int w = 0; w < 1024; ++w) {
            const QString id = QStringLiteral("%1").arg(w + 1, 56, 16, QLatin1Char('0'));
            QJsonObject resources{{QStringLiteral("CPU"), 240.0}, {QStringLiteral("TPU"), 4.0}, {QStringLiteral("v4-16x16x16"), 1.0}};
            if (w == 0)
                resources.insert(QStringLiteral("TPU-v4-8192-head"), 1.0);
            nodes.append(QJsonObject{
                {QStringLiteral("node_id"), id},
                {QStringLiteral("node_ip"), QStringLiteral("10.30.%1.%2").arg(w / 256).arg(w % 256)},
                {QStringLiteral("is_head_node"), false},
                {QStringLiteral("state"), QStringLiteral("ALIVE")},
                {QStringLiteral("resources_total"), resources},
                {QStringLiteral("labels"), QJsonObject{{QStringLiteral("ray.io/accelerator-type"), QStringLiteral("TPU-V4")},
                                                       {QStringLiteral("ray.io/tpu-pod-type"), QStringLiteral("v4-8192")},
                                                       {QStringLiteral("ray.io/tpu-slice-name"), QStringLiteral("v4-16x16x16")},
                                                       {QStringLiteral("ray.io/tpu-worker-id"), QString::number(w)},
                                                       {QStringLiteral("ray.io/tpu-topology"), QStringLiteral("16x16x16")}}},
            });
        }
        const QJsonObject list{{QStringLiteral("total"), nodes.size()}, {QStringLiteral("num_after_truncation"), nodes.size()}, {QStringLiteral("result"), nodes}};
        Capture capture;
        capture.capturedAt = QDateTime(QDate(2026, 11, 29), QTime(18, 0), Qt::UTC);
        capture.rayNodes = QJsonDocument(QJsonObject{{QStringLiteral("result"), true}, {QStringLiteral("data"), QJsonObject{{QStringLiteral("result"), list}}}})
                               .toJson(QJsonDocument::Compact);
        return buildSnapshot(capture);
    }();
    return snapshot;
}

// Why not every visible chip of `view` lies inside it, clear of the title block at its top and
// the layout line at its bottom (empty when they do): what "framed" means.
QString chipsOutside(const SliceView &view)
{
    const SliceProjection &p = view.projection();
    const int line = view.fontMetrics().height();
    const QRectF canvas = QRectF(view.rect()).adjusted(0, 12 + line * 2.6, 0, -(14 + line));
    const tpu::Dims dims = p.dims();
    for (int z = p.layerFirst(); z <= p.layerLast(); ++z)
        for (int y = 0; y < dims.y; ++y)
            for (int x = 0; x < dims.x; ++x) {
                const QRectF chip = p.chipOutline(ChipCoord{x, y, z}).boundingRect();
                if (!canvas.contains(chip))
                    return QStringLiteral("chip (%1, %2, %3) at %4,%5 %6x%7 is outside %8x%9 (yaw %10, pitch %11, scale %12)")
                        .arg(x)
                        .arg(y)
                        .arg(z)
                        .arg(chip.x())
                        .arg(chip.y())
                        .arg(chip.width())
                        .arg(chip.height())
                        .arg(view.width())
                        .arg(view.height())
                        .arg(p.yaw())
                        .arg(p.pitch())
                        .arg(p.scale());
            }
    return {};
}

} // namespace

class TestSliceView : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<SliceView> m_view;
    SliceView *view() { return m_view.get(); }
    void show(const QString &slice, ColorMode mode = ColorMode::Bundle, const SnapshotPtr &snapshot = demoSnapshot());

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void showsTheSliceFitted();
    void dragRotates();
    void panWithRightOrShiftDrag();
    void wheelZoomsAboutTheCursor();
    void hoverTooltip_data();
    void hoverTooltip();
    void tooltipOverEmptySpace();
    void hoverHighlightsAChip();
    void clickSelectsTheHost_data();
    void clickSelectsTheHost();
    void clickOnEmptySpaceKeepsTheSelection();
    void keyboardMovesTheSelection();
    void keyboardTurnsAndZooms();
    void presetsAndReset();
    void doubleClickResets();
    void layerKeysBrowseLayers();
    void explodeAndLinkKeys();
    void newerSnapshotKeepsTheCamera();
    void anotherSliceResetsTheCamera();
    void paintsChipsWhereTheProjectionSays();
    void spritesMatchPolygons_data();
    void spritesMatchPolygons();
    void vectorOutputMatchesRaster();
    void missingHostIsAGhost();
    void renderAtAnotherSizeKeepsTheView();
    void renderWithoutShowing();
    void highlightedHostsAreMarked();
    void hidingTheLegendGivesTheSliceRoom();
    void fitsEveryCanvas_data();
    void fitsEveryCanvas();
    void manualZoomStopsFitting();
    void turningKeepsTheWorkerLabels();
    void focusRingFromTheKeyboard();
    void crispAtTheDevicePixelRatio();
};

void TestSliceView::initTestCase()
{
    QVERIFY(QGuiApplication::platformName() == QLatin1String("offscreen") || qEnvironmentVariableIsSet("DISPLAY"));
    applyLook(*qApp, Theme::light());
}

void TestSliceView::init()
{
    m_view = std::make_unique<SliceView>();
    m_view->resize(900, 650);
    m_view->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
}

void TestSliceView::cleanup()
{
    QToolTip::hideText();
    m_view.reset();
}

void TestSliceView::show(const QString &slice, ColorMode mode, const SnapshotPtr &snapshot)
{
    view()->setColorMode(mode);
    view()->setSlice(snapshot, slice);
    QCOMPARE(view()->sliceName(), slice);
}

void TestSliceView::showsTheSliceFitted()
{
    show(QStringLiteral("v5p-4x4x4-0"));
    const SliceProjection &p = view()->projection();
    QCOMPARE(p.dims(), (tpu::Dims{4, 4, 4}));
    QCOMPARE(p.viewport(), view()->size());
    QCOMPARE(p.yaw(), -45.0);
    // Every chip on screen, clear of the title at the top.
    const QRectF box = p.boundingRect();
    QVERIFY(QRectF(view()->rect()).contains(box));
    QVERIFY(box.top() > view()->fontMetrics().height() * 2);
    QCOMPARE(view()->layerFirst(), 0);
    QCOMPARE(view()->layerLast(), 3);
}

void TestSliceView::dragRotates()
{
    show(QStringLiteral("v6e-4x4-0"));
    QSignalSpy changed(view(), &SliceView::projectionChanged);
    QSignalSpy selected(view(), &SliceView::hostSelected);
    const SliceProjection before = view()->projection();
    const QPoint start(450, 330);
    drag(view(), Qt::LeftButton, start, start + QPoint(60, 20));
    const SliceProjection after = view()->projection();
    // Half a degree per pixel; the first pixels of a drag only decide it is one.
    QVERIFY2(std::abs(after.yaw() - (before.yaw() + 30)) < 0.01, qPrintable(QString::number(after.yaw())));
    QVERIFY(std::abs(after.pitch() - (before.pitch() + 10)) < 0.01);
    // The view still frames the slice (nobody zoomed or panned): the turned slice is refitted.
    QVERIFY(QRectF(view()->rect()).contains(after.boundingRect()));
    QVERIFY(changed.count() >= 2);
    QCOMPARE(selected.count(), 0); // a drag is not a click
}

void TestSliceView::panWithRightOrShiftDrag()
{
    show(QStringLiteral("v6e-4x4-0"));
    const SliceProjection before = view()->projection();
    drag(view(), Qt::RightButton, QPoint(400, 300), QPoint(440, 270));
    QCOMPARE(view()->projection().pan(), before.pan() + QPointF(40, -30));
    QCOMPARE(view()->projection().yaw(), before.yaw());
    drag(view(), Qt::LeftButton, QPoint(400, 300), QPoint(390, 320), Qt::ShiftModifier);
    QCOMPARE(view()->projection().pan(), before.pan() + QPointF(30, -10));
    drag(view(), Qt::MiddleButton, QPoint(400, 300), QPoint(400, 310));
    QCOMPARE(view()->projection().pan(), before.pan() + QPointF(30, 0));
    QCOMPARE(view()->projection().pitch(), before.pitch());
}

void TestSliceView::wheelZoomsAboutTheCursor()
{
    show(QStringLiteral("v5p-4x4x4-0"));
    const SliceProjection before = view()->projection();
    const ChipCoord corner{3, 0, 3}; // the front-most chip of the isometric view
    const QPoint cursor = before.chipCenter(corner).toPoint() + QPoint(4, 3);
    QCOMPARE(*before.hitTest(cursor), corner);
    sendWheel(view(), cursor, 120);
    const SliceProjection after = view()->projection();
    QVERIFY(std::abs(after.scale() / before.scale() - std::pow(2.0, 0.25)) < 1e-9);
    QCOMPARE(*after.hitTest(cursor), corner); // the chip under the cursor stays under it
    QVERIFY(QLineF(after.chipCenter(corner) + QPointF(4, 3) * (after.scale() / before.scale()), cursor).length() < 1.0);
    sendWheel(view(), cursor, -120);
    QVERIFY(std::abs(view()->projection().scale() - before.scale()) < 1e-9);
}

void TestSliceView::hoverTooltip_data()
{
    QTest::addColumn<QString>("slice");
    QTest::addColumn<int>("worker");
    QTest::addColumn<int>("chip");
    QTest::addColumn<QStringList>("expected"); // beyond what every tooltip has

    QTest::newRow("v6e-2x4 chip held by notebook-alice") << QStringLiteral("v6e-2x4-0") << 0 << 1
                                                         << QStringList{QStringLiteral("bundle 0 of placement group notebook-alice (CREATED)")};
    QTest::newRow("v6e-2x4 free chip") << QStringLiteral("v6e-2x4-0") << 0 << 5 << QStringList{QStringLiteral("free: no placement group holds this chip")};
    QTest::newRow("v6e-4x4-0 worker 3 held by llm-train") << QStringLiteral("v6e-4x4-0") << 3 << 2
                                                          << QStringList{QStringLiteral("bundle 3 of placement group llm-train (CREATED)")};
    QTest::newRow("v6e-4x4-0 worker 0 holds the slice head") << QStringLiteral("v6e-4x4-0") << 0 << 0
                                                             << QStringList{QStringLiteral("slice head resource held by")};
    QTest::newRow("v6e-4x4-3 dead worker") << QStringLiteral("v6e-4x4-3") << 2 << 3
                                           << QStringList{QStringLiteral("· DEAD"), QStringLiteral("raylet failed its health check")};
    QTest::newRow("v5p top layer") << QStringLiteral("v5p-4x4x4-0") << 13 << 3 << QStringList{QStringLiteral("free: no placement group")};
    QTest::newRow("v4 rl-rollout") << QStringLiteral("v4-2x2x2-0") << 1 << 0 << QStringList{QStringLiteral("placement group rl-rollout (CREATED)")};
}

void TestSliceView::hoverTooltip()
{
    QFETCH(QString, slice);
    QFETCH(int, worker);
    QFETCH(int, chip);
    QFETCH(QStringList, expected);
    show(slice);
    const SnapshotPtr snapshot = demoSnapshot();
    const Slice &s = sliceOf(snapshot, slice);
    const Host &host = s.hosts[worker];
    const ChipCoord c = s.layout.chipPosition(worker, chip);
    const QPoint at = topOf(view()->projection(), c);
    QCOMPARE(*view()->projection().hitTest(at), c); // the test aims at a chip nobody covers

    const QString text = view()->tooltipAt(at);
    // What every chip's tooltip says: where it is and who holds it.
    QStringList must{QStringLiteral("%1 · chip (%2, %3, %4)").arg(slice).arg(c.x).arg(c.y).arg(c.z),
                     QStringLiteral("worker %1 · chip %2 of %3").arg(worker).arg(chip).arg(s.layout.chipsPerHost())};
    if (host.rayNode >= 0)
        must << QStringLiteral("Ray node %1").arg(snapshot->rayNodes[host.rayNode].id);
    if (host.pod >= 0)
        must << QStringLiteral("pod %1").arg(snapshot->pods[host.pod].qualifiedName());
    if (host.kubeNode >= 0)
        must << QStringLiteral("Kubernetes node %1 · node pool %2").arg(snapshot->kubeNodes[host.kubeNode].name, snapshot->kubeNodes[host.kubeNode].nodePool);
    QVERIFY(host.rayNode >= 0 && host.pod >= 0);
    for (const QString &line : must + expected)
        QVERIFY2(text.contains(line), qPrintable(QStringLiteral("missing \"%1\" in:\n%2").arg(line, text)));

    // The real thing: the mouse rests there and Qt asks for a tooltip.
    sendMove(view(), at);
    QHelpEvent help(QEvent::ToolTip, at, view()->mapToGlobal(at));
    QApplication::sendEvent(view(), &help);
    QTRY_VERIFY(QToolTip::isVisible());
    QCOMPARE(QToolTip::text(), text);
}

void TestSliceView::tooltipOverEmptySpace()
{
    show(QStringLiteral("v6e-4x4-0"));
    QVERIFY(view()->tooltipAt(QPoint(5, view()->height() / 2)).isEmpty());
    QHelpEvent help(QEvent::ToolTip, QPoint(5, 300), view()->mapToGlobal(QPoint(5, 300)));
    QApplication::sendEvent(view(), &help);
    QVERIFY(!QToolTip::isVisible());
    // Nothing shown, nothing answers.
    view()->setSlice(demoSnapshot(), QString());
    QVERIFY(view()->tooltipAt(QPoint(450, 325)).isEmpty());
}

void TestSliceView::hoverHighlightsAChip()
{
    show(QStringLiteral("v6e-4x4-0"));
    const Slice &s = sliceOf(demoSnapshot(), QStringLiteral("v6e-4x4-0"));
    const ChipCoord c = s.layout.chipPosition(1, 0);
    const QImage plain = renderOf(*view(), view()->size());
    sendMove(view(), topOf(view()->projection(), c));
    const QImage hovered = renderOf(*view(), view()->size());
    QVERIFY(plain != hovered);
    // The outline is drawn around that chip and nowhere else.
    const QRect chipBox = view()->projection().chipOutline(c).boundingRect().toAlignedRect().adjusted(-3, -3, 3, 3);
    for (int y = 0; y < plain.height(); y += 2)
        for (int x = 0; x < plain.width(); x += 2)
            if (plain.pixel(x, y) != hovered.pixel(x, y))
                QVERIFY2(chipBox.contains(x, y), qPrintable(QStringLiteral("pixel %1,%2 changed").arg(x).arg(y)));
}

void TestSliceView::clickSelectsTheHost_data()
{
    QTest::addColumn<QString>("slice");
    QTest::addColumn<int>("worker");
    QTest::addColumn<int>("chip");
    QTest::newRow("v6e-4x4-0 worker 2") << QStringLiteral("v6e-4x4-0") << 2 << 1;
    QTest::newRow("v6e-4x4-0 worker 1") << QStringLiteral("v6e-4x4-0") << 1 << 3;
    QTest::newRow("v6e-2x4-0 single host") << QStringLiteral("v6e-2x4-0") << 0 << 6;
    QTest::newRow("v5p top layer worker 14") << QStringLiteral("v5p-4x4x4-0") << 14 << 2;
    QTest::newRow("v5p front face worker 1") << QStringLiteral("v5p-4x4x4-0") << 1 << 1;
    QTest::newRow("v4 top host") << QStringLiteral("v4-2x2x2-0") << 1 << 3;
}

void TestSliceView::clickSelectsTheHost()
{
    QFETCH(QString, slice);
    QFETCH(int, worker);
    QFETCH(int, chip);
    show(slice);
    const Slice &s = sliceOf(demoSnapshot(), slice);
    const ChipCoord c = s.layout.chipPosition(worker, chip);
    const SliceProjection &p = view()->projection();
    const QPoint at = p.chipCenter(c).toPoint();
    QCOMPARE(*p.hitTest(at), c);
    QSignalSpy selected(view(), &SliceView::hostSelected);
    QTest::mouseClick(view(), Qt::LeftButton, {}, at);
    QCOMPARE(selected.count(), 1);
    QCOMPARE(selected.first().at(0).toString(), slice);
    QCOMPARE(selected.first().at(1).toInt(), worker);
    QCOMPARE(view()->selectedHost(), worker);
    // Clicking the same host again changes nothing.
    QTest::mouseClick(view(), Qt::LeftButton, {}, at);
    QCOMPARE(selected.count(), 1);
}

void TestSliceView::clickOnEmptySpaceKeepsTheSelection()
{
    show(QStringLiteral("v6e-4x4-0"));
    view()->selectHost(2);
    QSignalSpy selected(view(), &SliceView::hostSelected);
    QTest::mouseClick(view(), Qt::LeftButton, {}, QPoint(5, 300));
    QCOMPARE(view()->selectedHost(), 2);
    QCOMPARE(selected.count(), 0);
    view()->selectHost(99); // no such host
    QCOMPARE(view()->selectedHost(), -1);
}

void TestSliceView::keyboardMovesTheSelection()
{
    show(QStringLiteral("v5p-4x4x4-0"));
    QSignalSpy selected(view(), &SliceView::hostSelected);
    QTest::keyClick(view(), Qt::Key_Tab);
    QCOMPARE(view()->selectedHost(), 0);
    QTest::keyClick(view(), Qt::Key_Tab);
    QTest::keyClick(view(), Qt::Key_Tab);
    QCOMPARE(view()->selectedHost(), 2);
    QTest::keyClick(view(), Qt::Key_Backtab, Qt::ShiftModifier);
    QCOMPARE(view()->selectedHost(), 1);
    QTest::keyClick(view(), Qt::Key_BracketLeft);
    QTest::keyClick(view(), Qt::Key_BracketLeft);
    QCOMPARE(view()->selectedHost(), 15); // wraps to the last worker
    QTest::keyClick(view(), Qt::Key_BracketRight);
    QCOMPARE(view()->selectedHost(), 0);
    QCOMPARE(selected.count(), 7);
    QCOMPARE(selected.last().at(0).toString(), QStringLiteral("v5p-4x4x4-0"));
    QCOMPARE(selected.last().at(1).toInt(), 0);
    QVERIFY(view()->hasFocus() || !view()->isActiveWindow()); // Tab did not move focus away
    QTest::keyClick(view(), Qt::Key_Escape);
    QCOMPARE(view()->selectedHost(), -1);
    QCOMPARE(selected.last().at(1).toInt(), -1);
}

void TestSliceView::keyboardTurnsAndZooms()
{
    show(QStringLiteral("v5p-4x4x4-0"));
    const SliceProjection start = view()->projection();
    QTest::keyClick(view(), Qt::Key_Left);
    QCOMPARE(view()->projection().yaw(), start.yaw() - 15);
    QTest::keyClick(view(), Qt::Key_Right);
    QTest::keyClick(view(), Qt::Key_Right);
    QCOMPARE(view()->projection().yaw(), start.yaw() + 15);
    QTest::keyClick(view(), Qt::Key_Down);
    QVERIFY(std::abs(view()->projection().pitch() - (start.pitch() + 15)) < 1e-9);
    QTest::keyClick(view(), Qt::Key_Up);
    QVERIFY(std::abs(view()->projection().pitch() - start.pitch()) < 1e-9);
    const double turned = view()->projection().scale(); // refitted as it turned
    QTest::keyClick(view(), Qt::Key_Plus);
    QVERIFY(std::abs(view()->projection().scale() - turned * 1.25) < 1e-6);
    QTest::keyClick(view(), Qt::Key_Minus);
    QVERIFY(std::abs(view()->projection().scale() - turned) < 1e-6);
}

void TestSliceView::presetsAndReset()
{
    show(QStringLiteral("v5p-4x4x4-0"));
    QSignalSpy changed(view(), &SliceView::projectionChanged);
    QTest::keyClick(view(), Qt::Key_2);
    QCOMPARE(view()->projection().yaw(), 0.0);
    QCOMPARE(view()->projection().pitch(), 90.0);
    QTest::keyClick(view(), Qt::Key_3);
    QCOMPARE(view()->projection().pitch(), 0.0);
    QTest::keyClick(view(), Qt::Key_1);
    QCOMPARE(view()->projection().yaw(), -45.0);
    view()->setPreset(SliceView::Preset::Top);
    QCOMPARE(view()->projection().pitch(), 90.0);
    QCOMPARE(changed.count(), 4);
    // Every preset frames the whole slice.
    QVERIFY(QRectF(view()->rect()).contains(view()->projection().boundingRect()));

    const SliceProjection fresh = [&] {
        view()->resetView();
        return view()->projection();
    }();
    drag(view(), Qt::LeftButton, QPoint(450, 300), QPoint(520, 340));
    sendWheel(view(), QPoint(300, 300), 240);
    view()->setLayerRange(1, 2);
    QVERIFY(!(view()->projection() == fresh));
    QTest::keyClick(view(), Qt::Key_Home);
    QCOMPARE(view()->projection(), fresh);
}

void TestSliceView::doubleClickResets()
{
    show(QStringLiteral("v6e-4x4-0"));
    const SliceProjection fresh = view()->projection();
    drag(view(), Qt::LeftButton, QPoint(450, 300), QPoint(380, 260));
    drag(view(), Qt::RightButton, QPoint(450, 300), QPoint(470, 310));
    QVERIFY(!(view()->projection() == fresh));
    QTest::mouseDClick(view(), Qt::LeftButton, {}, QPoint(20, 300));
    QCOMPARE(view()->projection(), fresh);
}

void TestSliceView::layerKeysBrowseLayers()
{
    show(QStringLiteral("v5p-4x4x4-0"));
    QTest::keyClick(view(), Qt::Key_PageDown); // the whole slice -> its top layer alone
    QCOMPARE(view()->layerFirst(), 3);
    QCOMPARE(view()->layerLast(), 3);
    QTest::keyClick(view(), Qt::Key_PageDown);
    QCOMPARE(view()->layerFirst(), 2);
    QCOMPARE(view()->layerLast(), 2);
    // An interior layer shown alone: its chips answer hover, not the hidden ones above.
    const SliceProjection &p = view()->projection();
    const ChipCoord inner{1, 2, 2};
    QVERIFY(view()->tooltipAt(topOf(p, inner)).contains(QLatin1String("chip (1, 2, 2)")));
    QTest::keyClick(view(), Qt::Key_PageUp);
    QTest::keyClick(view(), Qt::Key_PageUp); // already at the top: stays
    QCOMPARE(view()->layerFirst(), 3);
    view()->setLayerRange(0, 1);
    QTest::keyClick(view(), Qt::Key_PageUp); // a range keeps its width
    QCOMPARE(view()->layerFirst(), 1);
    QCOMPARE(view()->layerLast(), 2);
    QTest::keyClick(view(), Qt::Key_Home);
    QCOMPARE(view()->layerFirst(), 0);
    QCOMPARE(view()->layerLast(), 3);
    QTest::keyClick(view(), Qt::Key_PageUp); // the whole slice -> its bottom layer
    QCOMPARE(view()->layerLast(), 0);
    // A 2D slice has one layer: nothing to browse.
    show(QStringLiteral("v6e-4x4-0"));
    QTest::keyClick(view(), Qt::Key_PageDown);
    QCOMPARE(view()->layerFirst(), 0);
    QCOMPARE(view()->layerLast(), 0);
}

void TestSliceView::explodeAndLinkKeys()
{
    show(QStringLiteral("v5p-4x4x4-0"));
    QCOMPARE(view()->explode(), 0.0);
    QTest::keyClick(view(), Qt::Key_E);
    QCOMPARE(view()->explode(), 1.0);
    QCOMPARE(view()->projection().explode(), 1.0);
    QVERIFY(QRectF(view()->rect()).contains(view()->projection().boundingRect())); // reframed
    QTest::keyClick(view(), Qt::Key_E);
    QCOMPARE(view()->explode(), 0.0);
    QVERIFY(view()->linksVisible());
    const QImage with = renderOf(*view());
    QTest::keyClick(view(), Qt::Key_L);
    QVERIFY(!view()->linksVisible());
    QVERIFY(renderOf(*view()) != with);
    QTest::keyClick(view(), Qt::Key_L);
    QVERIFY(view()->linksVisible());
}

void TestSliceView::newerSnapshotKeepsTheCamera()
{
    DemoCluster demo;
    show(QStringLiteral("v5p-4x4x4-0"), ColorMode::Bundle, buildSnapshot(demo.capture()));
    drag(view(), Qt::LeftButton, QPoint(450, 300), QPoint(500, 280));
    sendWheel(view(), QPoint(400, 320), 120);
    view()->setExplode(0.5);
    view()->setLayerRange(1, 3);
    view()->selectHost(5);
    const SliceProjection camera = view()->projection();

    // Time passes and a placement group appears on that slice: a newer snapshot of it.
    SlicePlacementRequest request;
    request.accelerator = QStringLiteral("v5p");
    request.topology = QStringLiteral("4x4x4");
    request.name = QStringLiteral("later");
    QVERIFY(demo.submitSlicePlacementGroup(request).ok);
    demo.advance(10000);
    const SnapshotPtr newer = buildSnapshot(demo.capture());
    QVERIFY(sliceOf(newer, QStringLiteral("v5p-4x4x4-0")).reservedChips > 0);
    QSignalSpy changed(view(), &SliceView::projectionChanged);
    view()->setSlice(newer, QStringLiteral("v5p-4x4x4-0"));
    QCOMPARE(view()->projection(), camera);
    QCOMPARE(view()->selectedHost(), 5);
    QCOMPARE(changed.count(), 0);
    // The new data shows: the tooltip names the new group.
    const Slice &s = sliceOf(newer, QStringLiteral("v5p-4x4x4-0"));
    const ChipCoord c = s.layout.chipPosition(15, 3);
    const QPoint at = topOf(view()->projection(), c);
    QCOMPARE(*view()->projection().hitTest(at), c);
    QVERIFY2(view()->tooltipAt(at).contains(QLatin1String("placement group later (CREATED)")), qPrintable(view()->tooltipAt(at)));
}

void TestSliceView::anotherSliceResetsTheCamera()
{
    show(QStringLiteral("v5p-4x4x4-0"));
    drag(view(), Qt::LeftButton, QPoint(450, 300), QPoint(500, 280));
    view()->selectHost(3);
    view()->setExplode(1);
    show(QStringLiteral("v6e-4x4-1"));
    QCOMPARE(view()->projection().yaw(), -45.0);
    QCOMPARE(view()->projection().dims(), (tpu::Dims{4, 4, 1}));
    QCOMPARE(view()->selectedHost(), -1);
    QCOMPARE(view()->explode(), 1.0); // a display setting, not part of the camera
    QVERIFY(view()->projection().chipHeight() < SliceProjection::kChipSize); // flat tiles for a 2D slice
}

void TestSliceView::paintsChipsWhereTheProjectionSays()
{
    show(QStringLiteral("v6e-2x4-0"), ColorMode::Bundle);
    const SnapshotPtr snapshot = demoSnapshot();
    const Slice &s = sliceOf(snapshot, QStringLiteral("v6e-2x4-0"));
    const QImage image = renderOf(*view(), view()->size());
    const QColor alice = placementGroupColor(snapshot->placementGroups[snapshot->placementGroupIndex(u"notebook-alice")].id);
    const Theme theme = Theme::light();
    for (int chip = 0; chip < 8; ++chip) {
        const QPoint at = topOf(view()->projection(), s.layout.chipPosition(0, chip));
        const QColor expected = chip < 2 ? alice : theme.freeChip; // a host with 2 of 8 chips reserved shows exactly 2
        QVERIFY2(similar(image.pixelColor(at), expected, 6),
                 qPrintable(QStringLiteral("chip %1 at %2,%3 is %4, expected %5").arg(chip).arg(at.x()).arg(at.y()).arg(image.pixelColor(at).name(), expected.name())));
    }
    // By worker id in a 4-host slice: each host's chips in its own colour.
    show(QStringLiteral("v6e-4x4-1"), ColorMode::WorkerId);
    const QImage byWorker = renderOf(*view(), view()->size());
    const Slice &s2 = sliceOf(snapshot, QStringLiteral("v6e-4x4-1"));
    for (int w = 0; w < 4; ++w)
        for (int chip = 0; chip < 4; ++chip)
            QVERIFY(similar(byWorker.pixelColor(topOf(view()->projection(), s2.layout.chipPosition(w, chip))), workerColor(w), 6));
}

void TestSliceView::spritesMatchPolygons_data()
{
    QTest::addColumn<QString>("slice");
    QTest::addColumn<double>("explode");
    QTest::addColumn<double>("yaw");
    QTest::newRow("v5p solid") << QStringLiteral("v5p-4x4x4-0") << 0.0 << -45.0;
    QTest::newRow("v5p exploded, turned") << QStringLiteral("v5p-4x4x4-0") << 1.0 << 120.0;
    QTest::newRow("v6e 4x4") << QStringLiteral("v6e-4x4-3") << 0.0 << -45.0;
    QTest::newRow("v6e 4x4 from behind") << QStringLiteral("v6e-4x4-0") << 0.0 << 160.0;
}

void TestSliceView::spritesMatchPolygons()
{
    // The fast path (sprites, hidden chips skipped) paints what the naive one does, give or
    // take antialiasing and half-pixel placement at chip edges.
    QFETCH(QString, slice);
    QFETCH(double, explode);
    QFETCH(double, yaw);
    show(slice, ColorMode::WorkerId);
    view()->setExplode(explode);
    SliceProjection p = view()->projection();
    p.setRotation(yaw, p.pitch());
    view()->setProjection(p);
    QCOMPARE(view()->chipPainting(), SliceView::ChipPainting::Sprites);
    const QImage sprites = renderOf(*view(), view()->size());
    view()->setChipPainting(SliceView::ChipPainting::Polygons);
    const QImage polygons = renderOf(*view(), view()->size());
    int differing = 0, painted = 0;
    const QRgb background = Theme::light().window.rgb();
    for (int y = 0; y < sprites.height(); ++y)
        for (int x = 0; x < sprites.width(); ++x) {
            const QColor a = sprites.pixelColor(x, y), b = polygons.pixelColor(x, y);
            painted += b.rgb() != background;
            differing += !similar(a, b, 48);
        }
    QVERIFY(painted > 20000);
    QVERIFY2(differing < painted / 25, qPrintable(QStringLiteral("%1 of %2 pixels differ").arg(differing).arg(painted)));
}

void TestSliceView::vectorOutputMatchesRaster()
{
    // Export to SVG goes through a non-raster paint engine: polygons and real text instead of
    // sprites and cached panels. Recorded in a QPicture and replayed, it must show the same.
    show(QStringLiteral("v5p-4x4x4-0"), ColorMode::State);
    view()->setExplode(1);
    view()->selectHost(6);
    QPicture picture;
    QPainter recorder(&picture);
    view()->render(recorder, view()->size());
    recorder.end();
    QImage replayed(view()->size(), QImage::Format_ARGB32_Premultiplied);
    replayed.fill(Qt::white);
    QPainter player(&replayed);
    player.drawPicture(0, 0, picture);
    player.end();
    const QImage raster = renderOf(*view(), view()->size());
    int differing = 0;
    for (int y = 0; y < raster.height(); ++y)
        for (int x = 0; x < raster.width(); ++x)
            differing += !similar(raster.pixelColor(x, y), replayed.pixelColor(x, y), 48);
    QVERIFY2(differing < raster.width() * raster.height() / 50, qPrintable(QStringLiteral("%1 pixels differ").arg(differing)));
}

void TestSliceView::missingHostIsAGhost()
{
    const SnapshotPtr snapshot = withMissingHost(QStringLiteral("v6e-4x4-1"), 3);
    const Slice &s = sliceOf(snapshot, QStringLiteral("v6e-4x4-1"));
    QCOMPARE(s.hosts[3].state, HostState::Missing);
    show(QStringLiteral("v6e-4x4-1"), ColorMode::Bundle, snapshot);
    const ChipCoord c = s.layout.chipPosition(3, 0);
    const QString text = view()->tooltipAt(topOf(view()->projection(), c));
    QVERIFY2(text.contains(QStringLiteral("worker 3 · chip 0 of 4 · MISSING")), qPrintable(text));
    QVERIFY(text.contains(QLatin1String("Ray node: none")));
    // Hollow: mostly the background and the host's tray show through its top.
    const QImage image = renderOf(*view(), view()->size());
    const QColor seen = image.pixelColor(topOf(view()->projection(), c));
    QVERIFY2(!similar(seen, Theme::light().absentChip, 12), qPrintable(seen.name()));
    // A present host's chip is solid.
    const QPoint solid = topOf(view()->projection(), s.layout.chipPosition(0, 0));
    QVERIFY(similar(image.pixelColor(solid), Theme::light().freeChip, 6) || view()->tooltipAt(solid).contains(QLatin1String("placement group")));
}

void TestSliceView::renderAtAnotherSizeKeepsTheView()
{
    show(QStringLiteral("v5p-4x4x4-0"));
    drag(view(), Qt::LeftButton, QPoint(450, 300), QPoint(480, 300));
    sendWheel(view(), QPoint(450, 325), -120); // the user placed the camera: a smaller render scales it
    const SliceProjection p = view()->projection();
    const QImage half = renderOf(*view(), QSize(450, 325));
    const QImage full = renderOf(*view(), QSize(900, 650));
    QCOMPARE(view()->projection(), p); // rendering never moves the camera
    // The scaled-down picture is the big one, scaled: compare the colour at one chip.
    const ChipCoord corner{3, 0, 3};
    const QPoint big = topOf(p, corner);
    QVERIFY(similar(half.pixelColor(big / 2), full.pixelColor(big), 30));
}

void TestSliceView::renderWithoutShowing()
{
    // Screenshots and benchmarks render widgets nobody showed: the view frames itself for the size.
    SliceView hidden;
    hidden.setSlice(demoSnapshot(), QStringLiteral("v6e-4x4-0"));
    const QImage image = renderOf(hidden, QSize(640, 480));
    const Slice &s = sliceOf(demoSnapshot(), QStringLiteral("v6e-4x4-0"));
    const QColor train = placementGroupColor(demoSnapshot()->placementGroups[demoSnapshot()->placementGroupIndex(u"llm-train")].id);
    int trainPixels = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            trainPixels += similar(image.pixelColor(x, y), train, 4);
    QVERIFY2(trainPixels > 640 * 480 / 20, qPrintable(QString::number(trainPixels))); // the 16 chips' tops, at least
    QVERIFY(s.hosts.size() == 4);
    QCOMPARE(hidden.projection().viewport(), QSize()); // rendering did not move its own camera
}

void TestSliceView::highlightedHostsAreMarked()
{
    show(QStringLiteral("v6e-4x4-0"));
    const QImage plain = renderOf(*view(), view()->size());
    const QStringList plainLegend = view()->legendTexts();
    view()->setHighlightedHosts({2});
    const QImage marked = renderOf(*view(), view()->size());
    // The legend says what the dashed outline means, with the count of hosts.
    QCOMPARE(view()->legendTexts(), plainLegend + QStringList{QStringLiteral("in the composer's plan · 1 host")});
    const Slice &s = sliceOf(demoSnapshot(), QStringLiteral("v6e-4x4-0"));
    QRectF host2;
    for (int chip = 0; chip < 4; ++chip)
        host2 |= view()->projection().chipOutline(s.layout.chipPosition(2, chip)).boundingRect();
    host2.adjust(-12, -12, 12, 12);
    // At this size the legend sits beside the slice: its new line moves nothing else.
    const QRectF legend = view()->legendRect().adjusted(-2, -2, 2, 2);
    QVERIFY(!legend.isEmpty());
    QVERIFY(!legend.intersects(host2));
    int changed = 0;
    for (int y = 0; y < plain.height(); ++y)
        for (int x = 0; x < plain.width(); ++x)
            if (plain.pixel(x, y) != marked.pixel(x, y) && !legend.contains(x, y)) {
                ++changed;
                QVERIFY2(host2.contains(x, y), qPrintable(QStringLiteral("pixel %1,%2 changed").arg(x).arg(y)));
            }
    QVERIFY(changed > 1000);
    view()->setHighlightedHosts({});
    QCOMPARE(renderOf(*view(), view()->size()), plain);
}

void TestSliceView::hidingTheLegendGivesTheSliceRoom()
{
    show(QStringLiteral("v6e-4x4-0"));
    const double withLegend = view()->projection().scale();
    view()->setLegendVisible(false);
    QVERIFY(view()->projection().scale() > withLegend);
    view()->setLegendVisible(true);
    QCOMPARE(view()->projection().scale(), withLegend);
}

void TestSliceView::fitsEveryCanvas_data()
{
    QTest::addColumn<QString>("slice");
    QTest::addColumn<QSize>("size");
    // A short window, the central view of a 1024x700 window with the composer open and without,
    // a full-HD one, and a tall, narrow one (below the view's minimum width, as a squeezed splitter).
    const QList<QSize> sizes = {QSize(300, 200), QSize(390, 604), QSize(700, 604), QSize(1024, 700), QSize(1920, 1080), QSize(200, 600), QSize(1400, 240)};
    for (const char *slice : {"v6e-4x4-0", "v6e-2x4-0", "v5p-4x4x4-0", "v4-2x2x2-0", "v4-16x16x16"})
        for (QSize size : sizes)
            QTest::addRow("%s %dx%d", slice, size.width(), size.height()) << QString::fromLatin1(slice) << size;
}

void TestSliceView::fitsEveryCanvas()
{
    QFETCH(QString, slice);
    QFETCH(QSize, size);
    const SnapshotPtr snapshot = slice == QLatin1String("v4-16x16x16") ? bigCubeSnapshot() : demoSnapshot();
    view()->setMinimumSize(0, 0);
    view()->resize(size);
    QCOMPARE(view()->size(), size);
    // On open.
    show(slice, ColorMode::Bundle, snapshot);
    QVERIFY2(chipsOutside(*view()).isEmpty(), qPrintable(chipsOutside(*view())));
    // Turned by the keyboard and the mouse, still framed: a turned slice covers another shape.
    for (Qt::Key key : {Qt::Key_Left, Qt::Key_Left, Qt::Key_Up, Qt::Key_Up, Qt::Key_Up, Qt::Key_Right, Qt::Key_Down, Qt::Key_Down, Qt::Key_Down,
                        Qt::Key_Down, Qt::Key_Down, Qt::Key_Down, Qt::Key_Right}) {
        QTest::keyClick(view(), key);
        QVERIFY2(chipsOutside(*view()).isEmpty(), qPrintable(chipsOutside(*view())));
    }
    const QPoint middle(size.width() / 2, size.height() / 2);
    drag(view(), Qt::LeftButton, middle, middle + QPoint(size.width() / 4, -size.height() / 5));
    QVERIFY2(chipsOutside(*view()).isEmpty(), qPrintable(chipsOutside(*view())));
    // Exploded, with a colour mode whose legend is another width.
    QTest::keyClick(view(), Qt::Key_E);
    view()->setColorMode(ColorMode::WorkerId);
    QVERIFY2(chipsOutside(*view()).isEmpty(), qPrintable(chipsOutside(*view())));
    // Resized to every other canvas, turned as it is.
    QTest::keyClick(view(), Qt::Key_1);
    for (QSize other : {QSize(1920, 1080), QSize(200, 600), QSize(300, 200), size}) {
        view()->resize(other);
        QVERIFY2(chipsOutside(*view()).isEmpty(), qPrintable(chipsOutside(*view())));
    }
    // Browsing the layers does not move the framing of the whole slice.
    const SliceProjection before = view()->projection();
    QTest::keyClick(view(), Qt::Key_PageDown);
    view()->resize(size + QSize(1, 1));
    view()->resize(size);
    QCOMPARE(view()->projection().scale(), before.scale());
    QTest::keyClick(view(), Qt::Key_Home);
    // Another slice, in a view whose camera the user had placed: framed again.
    sendWheel(view(), middle, 480);
    show(slice == QLatin1String("v6e-4x4-0") ? QStringLiteral("v5p-4x4x4-0") : QStringLiteral("v6e-4x4-0"), ColorMode::Bundle, demoSnapshot());
    QVERIFY2(chipsOutside(*view()).isEmpty(), qPrintable(chipsOutside(*view())));
}

void TestSliceView::manualZoomStopsFitting()
{
    show(QStringLiteral("v5p-4x4x4-0"));
    const SliceProjection fitted = view()->projection();
    // Zoomed in by the wheel: the user placed the camera. Resizing, turning and the legend leave
    // its scale alone (pan is kept relative to the centre).
    sendWheel(view(), QPoint(450, 325), 480);
    const SliceProjection zoomed = view()->projection();
    QVERIFY(zoomed.scale() > fitted.scale() * 1.9);
    view()->resize(600, 400);
    QCOMPARE(view()->projection().scale(), zoomed.scale());
    QCOMPARE(view()->projection().pan(), zoomed.pan());
    QTest::keyClick(view(), Qt::Key_Left);
    view()->setLegendVisible(false);
    view()->setLegendVisible(true);
    view()->setColorMode(ColorMode::WorkerId);
    QCOMPARE(view()->projection().scale(), zoomed.scale());
    QVERIFY(!chipsOutside(*view()).isEmpty()); // zoomed in this far, some chips are off the canvas
    // Home frames it again, and so does every resize after it.
    QTest::keyClick(view(), Qt::Key_Home);
    QVERIFY2(chipsOutside(*view()).isEmpty(), qPrintable(chipsOutside(*view())));
    const double small = view()->projection().scale();
    view()->resize(1400, 1000);
    QVERIFY(view()->projection().scale() > small);
    QVERIFY2(chipsOutside(*view()).isEmpty(), qPrintable(chipsOutside(*view())));
    // Panned (right drag): no refit either; a double click frames it again.
    drag(view(), Qt::RightButton, QPoint(400, 300), QPoint(900, 300));
    const SliceProjection panned = view()->projection();
    view()->resize(900, 650);
    QCOMPARE(view()->projection().pan(), panned.pan());
    QCOMPARE(view()->projection().scale(), panned.scale());
    QVERIFY(!chipsOutside(*view()).isEmpty());
    QTest::mouseDClick(view(), Qt::LeftButton, {}, QPoint(20, 300));
    QVERIFY2(chipsOutside(*view()).isEmpty(), qPrintable(chipsOutside(*view())));
    view()->resize(300, 200);
    QVERIFY2(chipsOutside(*view()).isEmpty(), qPrintable(chipsOutside(*view())));
}

void TestSliceView::turningKeepsTheWorkerLabels()
{
    // The "w0".."w3" labels sit on the hosts' tops: turning about z (and the refit it brings)
    // keeps them, and they are drawn where the hosts now are.
    view()->setTheme(Theme::dark()); // a dark background: only the labels' text is near white
    show(QStringLiteral("v6e-4x4-1"), ColorMode::WorkerId);
    const Slice &s = sliceOf(demoSnapshot(), QStringLiteral("v6e-4x4-1"));
    auto labelPixels = [&] {
        const QImage image = renderOf(*view(), view()->size());
        // A label is white text on a dark box: count near-white pixels over each host's top.
        QList<int> counts;
        for (int w = 0; w < 4; ++w) {
            QRectF top;
            for (int chip = 0; chip < 4; ++chip)
                top |= view()->projection().chipOutline(s.layout.chipPosition(w, chip)).boundingRect();
            int white = 0;
            const QRect r = top.toAlignedRect().intersected(image.rect());
            for (int y = r.top(); y <= r.bottom(); ++y)
                for (int x = r.left(); x <= r.right(); ++x)
                    white += similar(image.pixelColor(x, y), Qt::white, 30);
            counts << white;
        }
        return counts;
    };
    for (int turn = 0; turn < 24; ++turn) {
        const QList<int> counts = labelPixels();
        for (int w = 0; w < 4; ++w)
            QVERIFY2(counts[w] > 12, qPrintable(QStringLiteral("after %1 turns (yaw %2) host %3 shows %4 label pixels").arg(turn).arg(view()->projection().yaw()).arg(w).arg(counts[w])));
        QTest::keyClick(view(), Qt::Key_Right);
    }
}

// A visible focus ring (issue 17) when the keyboard brought the focus, or a key was pressed since;
// a click alone shows none, and leaving takes it away.
void TestSliceView::focusRingFromTheKeyboard()
{
    show(QStringLiteral("v6e-4x4-0"));
    view()->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(view()));
    const QColor selection = Theme::light().selection;
    const auto edge = [this] {
        const QImage image = view()->grab().toImage();
        return image.pixelColor(2, image.height() / 2);
    };
    view()->clearFocus();
    QVERIFY(!view()->showsFocusRing());
    QVERIFY(edge() != selection);
    view()->setFocus(Qt::TabFocusReason);
    QTRY_VERIFY(view()->hasFocus());
    QVERIFY(view()->showsFocusRing());
    QCOMPARE(edge(), selection);
    view()->clearFocus();
    QVERIFY(edge() != selection);
    // A click gives the focus without the ring; the first key shows it.
    QTest::mouseClick(view(), Qt::LeftButton, {}, QPoint(view()->width() - 20, view()->height() - 20));
    QTRY_VERIFY(view()->hasFocus());
    QVERIFY(!view()->showsFocusRing());
    QVERIFY(edge() != selection);
    QTest::keyClick(view(), Qt::Key_Shift);
    QVERIFY(view()->showsFocusRing());
    QCOMPARE(edge(), selection);
}

// On a HiDPI screen (device pixel ratio 2) the chips, labels and panels are drawn at the screen's
// resolution (issue 17): the same picture as at ratio 1, with detail a scaled-up ratio-1 image
// does not have.
void TestSliceView::crispAtTheDevicePixelRatio()
{
    show(QStringLiteral("v6e-4x4-3"), ColorMode::WorkerId);
    const QSize logical(900, 650);
    const QImage low = renderOf(*view(), logical);
    QImage high(logical * 2, QImage::Format_ARGB32_Premultiplied);
    high.setDevicePixelRatio(2);
    {
        QPainter painter(&high);
        view()->render(painter, logical);
    }
    // The same picture: averaged back to ratio 1, it is within a few levels of the ratio-1 render.
    const QImage down = high.scaled(logical, Qt::IgnoreAspectRatio, Qt::SmoothTransformation).convertToFormat(low.format());
    qint64 far = 0;
    for (int y = 0; y < logical.height(); ++y)
        for (int x = 0; x < logical.width(); ++x)
            far += !similar(down.pixelColor(x, y), low.pixelColor(x, y), 48);
    QVERIFY2(far < logical.width() * logical.height() / 100, qPrintable(QStringLiteral("%1 pixels differ").arg(far)));
    // Drawn, not scaled: against the ratio-1 render scaled up (either way), many pixels differ.
    const QImage highPlain = high.convertToFormat(low.format());
    for (Qt::TransformationMode mode : {Qt::FastTransformation, Qt::SmoothTransformation}) {
        const QImage up = low.scaled(logical * 2, Qt::IgnoreAspectRatio, mode);
        qint64 differ = 0;
        for (int y = 0; y < up.height(); ++y)
            for (int x = 0; x < up.width(); ++x)
                differ += !similar(up.pixelColor(x, y), highPlain.pixelColor(x, y), 16);
        QVERIFY2(differ > 20000, qPrintable(QStringLiteral("%1 pixels differ from the scaled-up image").arg(differ)));
    }
}

QTEST_MAIN(TestSliceView)
#include "tst_sliceview.moc"
