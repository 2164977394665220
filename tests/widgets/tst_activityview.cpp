// SPDX-License-Identifier: GPL-3.0-or-later
// How chip activity looks (issue 15): the slice view's Activity colour mode (scale colours that
// follow each chip's value, unknown chips hatched, idle chips outlined, the legend, tooltips),
// the overview tiles' duty figure and alert badge, and the window's pickers. The snapshot comes
// from a capture holding Ray's node summary body (GET /nodes?view=summary), joined by the model.

#include "../common/golden.h"
#include "../model/capturefixture.h"
#include "fleetoverview.h"
#include "look.h"
#include "screenshot.h"
#include "sliceview.h"
#include "workspace.h"

#include <QApplication>
#include <QComboBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPainter>
#include <QResizeEvent>
#include <QTest>

#include <cmath>

using namespace slicescope;
using namespace slicescope::testfixture;
using tpu::ChipCoord;

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
const QString k2d = QStringLiteral("v6e-a-0");
const QString k3d = QStringLiteral("v5p-b-0");

// Duty cycles of the 2D slice's hosts, chip by chip; host 2 reports nothing (unknown).
constexpr double kDuty2d[4][4] = {{5, 30, 60, 95}, {0, 12, 45, 80}, {0, 0, 0, 0}, {20, 3, 70, 100}};

double duty3d(int worker, int chip)
{
    return double((worker * 17 + chip * 29) % 101);
}

QJsonObject tpu(int index, double duty, double hbmShare, double totalGiB, const QString &type, const QString &topology)
{
    return QJsonObject{
        {QStringLiteral("index"), index},
        {QStringLiteral("name"), QStringLiteral("uid-%1").arg(index)},
        {QStringLiteral("tpuType"), type},
        {QStringLiteral("tpuTopology"), topology},
        {QStringLiteral("tensorcoreUtilization"), duty * 0.8},
        {QStringLiteral("hbmUtilization"), duty * 0.4},
        {QStringLiteral("dutyCycle"), duty},
        {QStringLiteral("memoryUsed"), hbmShare * totalGiB * kGiB},
        {QStringLiteral("memoryTotal"), totalGiB * kGiB},
    };
}

// A node summary entry: sampled 5 s before the capture's time; `tpus` empty: Ray has no TPU metrics.
QJsonObject summaryEntry(const QString &nodeId, const QString &ip, const QJsonArray &tpus, const QDateTime &capturedAt)
{
    return QJsonObject{
        {QStringLiteral("now"), double(capturedAt.toMSecsSinceEpoch() - 5000) / 1000.0},
        {QStringLiteral("ip"), ip},
        {QStringLiteral("raylet"), QJsonObject{{QStringLiteral("nodeId"), nodeId}, {QStringLiteral("nodeManagerAddress"), ip}, {QStringLiteral("metricsExportPort"), 8080}}},
        {QStringLiteral("tpus"), tpus},
    };
}

// A v6e 4x4 (four hosts of 2x2 chips) held by "train" on workers 0, 1 and 3, its worker 2 without
// TPU metrics; a v5p 4x4x4 with a dead worker 5 and workers 9 and 12 without TPU metrics.
Capture activityCapture()
{
    CaptureBuilder b;
    b.addHeadNode(hexId(QStringLiteral("head"), 56), QStringLiteral("10.0.0.2"));
    const QStringList a = b.addSlice({k2d, QStringLiteral("TPU-V6E"), QStringLiteral("v6e-16"), QStringLiteral("4x4"), QStringLiteral("v6e-a"), 4, 4, {}, {}, {}, {}});
    const QStringList v = b.addSlice({k3d, QStringLiteral("TPU-V5P"), QStringLiteral("v5p-128"), QStringLiteral("4x4x4"), QStringLiteral("v5p-b"), 16, 4, {5}, {}, {}, {}});
    const QString train = hexId(QStringLiteral("pg/train"), 36);
    QJsonArray bundles;
    for (int w : {0, 1, 3})
        bundles.append(CaptureBuilder::bundle(train, int(bundles.size()), QJsonObject{{QStringLiteral("CPU"), 1.0}, {QStringLiteral("TPU"), 4.0}}, a[w]));
    b.addPlacementGroup(train, QStringLiteral("train"), QStringLiteral("CREATED"), QStringLiteral("FINISHED"), false, bundles);
    Capture c = b.capture(false);

    QJsonArray summary;
    for (int w = 0; w < 4; ++w) {
        QJsonArray tpus;
        if (w != 2)
            for (int i = 0; i < 4; ++i)
                tpus.append(tpu(i, kDuty2d[w][i], (i + 1) / 5.0, 32, QStringLiteral("tpu-v6e-slice"), QStringLiteral("4x4")));
        summary.append(summaryEntry(a[w], QStringLiteral("10.1.0.%1").arg(w + 1), tpus, c.capturedAt));
    }
    for (int w = 0; w < 16; ++w) {
        if (w == 5)
            continue; // dead: its agent is gone
        QJsonArray tpus;
        if (w != 9 && w != 12)
            for (int i = 0; i < 4; ++i)
                tpus.append(tpu(i, duty3d(w, i), 0.25 + 0.15 * i, 95, QStringLiteral("tpu-v5p-slice"), QStringLiteral("4x4x4")));
        summary.append(summaryEntry(v[w], QStringLiteral("10.2.0.%1").arg(w + 1), tpus, c.capturedAt));
    }
    c.rayNodeSummary = QJsonDocument(QJsonObject{{QStringLiteral("result"), true},
                                                 {QStringLiteral("msg"), QString()},
                                                 {QStringLiteral("data"), QJsonObject{{QStringLiteral("summary"), summary}}}})
                           .toJson(QJsonDocument::Compact);
    return c;
}

SnapshotPtr activitySnapshot()
{
    static const SnapshotPtr snapshot = buildSnapshot(activityCapture());
    return snapshot;
}

int hostOf(const Slice &slice, int workerId)
{
    for (int h = 0; h < slice.hosts.size(); ++h)
        if (slice.hosts[h].workerId == workerId)
            return h;
    return -1;
}

// `base` with chip `chip` of worker `worker` of slice `sliceName` at duty cycle `duty`, every other
// number as it was.
SnapshotPtr withDutyCycle(const SnapshotPtr &base, const QString &sliceName, int worker, int chip, float duty)
{
    auto copy = std::make_shared<ClusterSnapshot>(*base);
    ActivityTableBuilder builder(*copy);
    for (int s = 0; s < copy->slices.size(); ++s)
        for (int h = 0; h < copy->slices[s].hosts.size(); ++h) {
            const QString reason = base->activity->unknownReason(s, h);
            if (!reason.isEmpty())
                builder.setUnknownReason(s, h, reason);
            for (int c = 0; c < copy->slices[s].hosts[h].chips.size(); ++c)
                *builder.chip(s, h, c) = *base->activity->chip(s, h, c);
        }
    const int s = copy->sliceIndex(sliceName);
    ChipActivity *a = builder.chip(s, hostOf(copy->slices[s], worker), chip);
    a->dutyCycle = duty;
    copy->activity = builder.finish();
    return copy;
}

// The top-centre of a chip on screen: where its colour shows undimmed.
QPoint topOf(const SliceProjection &p, ChipCoord c)
{
    return p.map(p.worldPosition(c) + QVector3D(0, 0, p.chipHalfExtents().z() * 0.999f)).toPoint();
}

// Sizes a view that is never shown as a shown one would be: the resize reaches it now, so its
// projection is framed for `size` (what render() and the test's own geometry then share).
void place(QWidget &view, QSize size)
{
    view.resize(size);
    QResizeEvent resize(size, QSize());
    QApplication::sendEvent(&view, &resize);
}

QImage renderOf(SliceView &view, QSize size)
{
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    QPainter painter(&image);
    view.render(painter, size);
    painter.end();
    return image.convertToFormat(QImage::Format_RGB32);
}

bool similar(QColor a, QColor b, int tolerance)
{
    return std::abs(a.red() - b.red()) <= tolerance && std::abs(a.green() - b.green()) <= tolerance && std::abs(a.blue() - b.blue()) <= tolerance;
}

// Pixels of `image` inside `area` within `tolerance` of `colour`.
int countNear(const QImage &image, const QRect &area, QColor colour, int tolerance)
{
    int n = 0;
    const QRect r = area.intersected(image.rect());
    for (int y = r.top(); y <= r.bottom(); ++y)
        for (int x = r.left(); x <= r.right(); ++x)
            n += similar(image.pixelColor(x, y), colour, tolerance);
    return n;
}

// The idle chips the goldens show: 2D worker 1 chip 0 and worker 3 chip 1 (both under 5 %); 3D
// all of worker 2 and worker 14 chip 1.
QList<IdleChip> idleChipsOf(const QString &sliceName)
{
    const Slice &s = sliceNamed(*activitySnapshot(), sliceName);
    const QDateTime since = activitySnapshot()->capturedAt.addSecs(-14 * 60);
    if (sliceName == k2d)
        return {IdleChip{hostOf(s, 1), 0, since}, IdleChip{hostOf(s, 3), 1, since}};
    QList<IdleChip> idle;
    for (int c = 0; c < 4; ++c)
        idle.append(IdleChip{hostOf(s, 2), c, since});
    idle.append(IdleChip{hostOf(s, 14), 1, QDateTime()});
    return idle;
}

} // namespace

class TestActivityView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(QGuiApplication::platformName() == QLatin1String("offscreen") || qEnvironmentVariableIsSet("DISPLAY"));
        applyLook(*qApp, Theme::light());
        QVERIFY2(activitySnapshot()->activity, qPrintable(activitySnapshot()->errors.join(u'\n') + activitySnapshot()->warnings.join(u'\n')));
    }

    // The scale: dark to light in even steps (the lightness a grey print or a colour-blind eye
    // reads), its ends far apart, unknown as no colour, and the steps bounded.
    void scaleIsSequential()
    {
        double last = -1;
        for (int i = 0; i < kActivitySteps; ++i) {
            const QColor c = activityStepColor(i);
            const double luminance = 0.2126 * c.redF() + 0.7152 * c.greenF() + 0.0722 * c.blueF();
            QVERIFY2(luminance > last, qPrintable(QStringLiteral("step %1 is not lighter than step %2").arg(i).arg(i - 1)));
            last = luminance;
        }
        QCOMPARE(activityStep(0.0), 0);
        QCOMPARE(activityStep(1.0), kActivitySteps - 1);
        QCOMPARE(activityStep(7.0), kActivitySteps - 1);
        QCOMPARE(activityStep(-1.0), 0);
        QCOMPARE(activityStep(std::nan("")), -1);
        QVERIFY(!activityColor(std::nan("")).isValid());
        QVERIFY(activityColor(0.0).lightness() < 80);
        QVERIFY(activityColor(1.0).lightness() > 150);
        // Blue at the bottom, yellow at the top.
        QVERIFY(activityColor(0.0).blue() > activityColor(0.0).red() + 40);
        QVERIFY(activityColor(1.0).red() > 200 && activityColor(1.0).green() > 200 && activityColor(1.0).blue() < 120);
        for (const Theme &t : {Theme::light(), Theme::dark()})
            for (int i = 0; i < kActivitySteps; ++i)
                QVERIFY2(!similar(activityStepColor(i), t.unknownChip, 20), "the unknown neutral must not read as a scale colour");
    }

    // What the model joined is what the views read: the fraction of each metric, unknown as NaN.
    void fractionsOfTheJoinedSnapshot()
    {
        const SnapshotPtr snap = activitySnapshot();
        const int s = snap->sliceIndex(k2d);
        const Slice &slice = snap->slices[s];
        const ChipActivity *a = snap->activity->chip(s, hostOf(slice, 0), 3);
        QVERIFY(a);
        QCOMPARE(activityFraction(*a, ActivityMetric::DutyCycle), 0.95);
        QVERIFY(std::abs(activityFraction(*a, ActivityMetric::HbmUsed) - 0.8) < 1e-9);
        const ChipActivity *unknown = snap->activity->chip(s, hostOf(slice, 2), 0);
        QVERIFY(unknown);
        QVERIFY(std::isnan(activityFraction(*unknown, ActivityMetric::DutyCycle)));
        QVERIFY(!snap->activity->unknownReason(s, hostOf(slice, 2)).isEmpty());
        const ActivityLook look = activityLook(*snap, s, hostOf(slice, 2), 0, ActivityMetric::DutyCycle, Theme::light());
        QVERIFY(look.hatched);
        QCOMPARE(look.color, Theme::light().unknownChip);
        // A dead host's chips keep the look of a host that is not alive, never hatched or scaled.
        const int v = snap->sliceIndex(k3d);
        const ActivityLook dead = activityLook(*snap, v, hostOf(snap->slices[v], 5), 0, ActivityMetric::DutyCycle, Theme::light());
        QVERIFY(!dead.hatched);
        QCOMPARE(dead.color, Theme::light().absentChip);
        QCOMPARE(chipColor(*snap, slice.hosts[hostOf(slice, 0)], 3, ColorMode::Activity, Theme::light()), activityColor(0.95));
    }

    // Set one chip's duty cycle: that chip shows the scale's colour of its value; no other changes.
    void chipColourFollowsItsValue_data()
    {
        QTest::addColumn<int>("worker");
        QTest::addColumn<int>("chip");
        QTest::addColumn<float>("duty");
        QTest::newRow("w1 chip 1 at 90 %") << 1 << 1 << 90.0f;
        QTest::newRow("w0 chip 2 at 0 %") << 0 << 2 << 0.0f;
        QTest::newRow("w3 chip 0 at 50 %") << 3 << 0 << 50.0f;
        QTest::newRow("w3 chip 3 from 100 % to 33 %") << 3 << 3 << 33.0f;
    }
    void chipColourFollowsItsValue()
    {
        QFETCH(int, worker);
        QFETCH(int, chip);
        QFETCH(float, duty);
        const QSize size(900, 640);
        SliceView view;
        view.setColorMode(ColorMode::Activity);
        view.setLegendVisible(false);
        view.setSlice(activitySnapshot(), k2d);
        place(view, size);
        const QImage before = renderOf(view, size);
        view.setSlice(withDutyCycle(activitySnapshot(), k2d, worker, chip, duty), k2d);
        const QImage after = renderOf(view, size);

        const Slice &slice = sliceNamed(*activitySnapshot(), k2d);
        const SliceProjection &p = view.projection();
        int checked = 0;
        for (const Host &h : slice.hosts)
            for (int i = 0; i < slice.layout.chipsPerHost(); ++i) {
                const ChipCoord c = slice.layout.chipPosition(h.workerId, i);
                const QPoint at = topOf(p, c);
                if (h.workerId == worker && i == chip) {
                    QVERIFY2(similar(after.pixelColor(at), activityColor(duty / 100.0), 3),
                             qPrintable(QStringLiteral("chip shows %1, the scale's %2 % is %3").arg(after.pixelColor(at).name()).arg(duty).arg(activityColor(duty / 100.0).name())));
                    if (std::abs(duty - float(kDuty2d[worker][chip])) > 3)
                        QVERIFY(!similar(before.pixelColor(at), after.pixelColor(at), 3));
                } else {
                    QCOMPARE(after.pixelColor(at), before.pixelColor(at));
                    if (h.workerId != 2) // a known chip shows its own value's colour
                        QVERIFY(similar(before.pixelColor(at), activityColor(kDuty2d[h.workerId][i] / 100.0), 3));
                }
                ++checked;
            }
        QCOMPARE(checked, 16);
    }

    // HBM used of total: the same chips, coloured by the other metric.
    void hbmMetricColoursByHbmShare()
    {
        const QSize size(900, 640);
        SliceView view;
        view.setColorMode(ColorMode::Activity);
        view.setActivityMetric(ActivityMetric::HbmUsed);
        view.setLegendVisible(false);
        view.setSlice(activitySnapshot(), k2d);
        place(view, size);
        const QImage image = renderOf(view, size);
        const Slice &slice = sliceNamed(*activitySnapshot(), k2d);
        for (int i = 0; i < 4; ++i) {
            const QPoint at = topOf(view.projection(), slice.layout.chipPosition(0, i));
            QVERIFY2(similar(image.pixelColor(at), activityColor((i + 1) / 5.0), 3), qPrintable(image.pixelColor(at).name()));
        }
    }

    // Unknown chips are hatched (the neutral and the hatch colour both show, no scale colour);
    // idle chips get the outline colour around them; the legend counts both.
    void unknownHatchedIdleOutlined_data()
    {
        QTest::addColumn<QString>("theme");
        QTest::newRow("light") << QStringLiteral("light");
        QTest::newRow("dark") << QStringLiteral("dark");
    }
    void unknownHatchedIdleOutlined()
    {
        QFETCH(QString, theme);
        const Theme t = Theme::named(theme);
        const QSize size(900, 640);
        SliceView view;
        view.setTheme(t);
        view.setColorMode(ColorMode::Activity);
        view.setSlice(activitySnapshot(), k2d);
        place(view, size);
        view.setPreset(SliceView::Preset::Top);
        const Slice &slice = sliceNamed(*activitySnapshot(), k2d);
        const QImage plain = renderOf(view, size);
        view.setIdleChips(idleChipsOf(k2d));
        QCOMPARE(view.idleChips().size(), 2);
        const QImage image = renderOf(view, size);
        const SliceProjection &p = view.projection();

        // Worker 2's chips: neutral with hatch lines, nothing from the scale.
        const QRect unknownArea = p.chipOutline(slice.layout.chipPosition(2, 0)).boundingRect().toAlignedRect().adjusted(6, 6, -6, -6);
        QVERIFY2(countNear(image, unknownArea, t.unknownChip, 6) > unknownArea.width() * unknownArea.height() / 4, "too little of the neutral");
        QVERIFY2(countNear(image, unknownArea, t.unknownHatch, 30) > unknownArea.width() * 2, "no hatch lines");

        // Idle chips: the outline colour along their edge, which was not there before.
        for (const IdleChip &idle : view.idleChips()) {
            const QRect edge = p.chipOutline(slice.layout.chipPosition(slice.hosts[idle.host].workerId, idle.chip)).boundingRect().toAlignedRect().adjusted(-3, -3, 3, 3);
            QVERIFY2(countNear(image, edge, t.idleOutline, 40) > edge.width() * 2, qPrintable(QStringLiteral("no outline around worker %1 chip %2").arg(slice.hosts[idle.host].workerId).arg(idle.chip)));
            QCOMPARE(countNear(plain, edge, t.idleOutline, 40), 0);
        }
        // A chip not idle keeps no outline.
        const QRect other = p.chipOutline(slice.layout.chipPosition(0, 3)).boundingRect().toAlignedRect().adjusted(2, 2, -2, -2);
        QCOMPARE(countNear(image, other, t.idleOutline, 40), 0);
    }

    void legendSaysWhatReports()
    {
        const SnapshotPtr snap = activitySnapshot();
        const Slice &slice3d = sliceNamed(*snap, k3d);
        const QList<LegendEntry> entries = legendFor(*snap, slice3d, ColorMode::Activity, Theme::light());
        QStringList labels;
        for (const LegendEntry &e : entries)
            labels << e.label;
        // 16 hosts x 4: the dead worker 5 and the silent 9 and 12 do not report.
        QCOMPARE(labels.value(0), QStringLiteral("52 of 64 chips report duty cycle"));
        QVERIFY2(labels.contains(QStringLiteral("unknown · 8 chips")), qPrintable(labels.join(u'|')));
        QVERIFY2(labels.contains(QStringLiteral("host not alive · 4 chips")), qPrintable(labels.join(u'|')));
        for (const LegendEntry &e : entries)
            if (e.label.startsWith(QLatin1String("unknown")))
                QVERIFY(e.hatched);
        const QList<LegendEntry> hbm = legendFor(*snap, sliceNamed(*snap, k2d), ColorMode::Activity, Theme::light(), ActivityMetric::HbmUsed);
        QCOMPARE(hbm.value(0).label, QStringLiteral("12 of 16 chips report HBM used"));
    }

    void tooltipsGiveTheNumbersAndTheirAge()
    {
        const QSize size(900, 640);
        SliceView view;
        view.setColorMode(ColorMode::Activity);
        view.setSlice(activitySnapshot(), k2d);
        place(view, size);
        view.setIdleChips(idleChipsOf(k2d));
        const Slice &slice = sliceNamed(*activitySnapshot(), k2d);
        const SliceProjection &p = view.projection();
        const QString known = view.tooltipAt(topOf(p, slice.layout.chipPosition(0, 3)));
        QVERIFY2(known.contains(QStringLiteral("duty cycle 95 % · TensorCore 76 % · HBM bandwidth 38 %")), qPrintable(known));
        QVERIFY2(known.contains(QStringLiteral("HBM 25.6 of 32.0 GiB used")), qPrintable(known));
        QVERIFY2(known.contains(QStringLiteral("from Ray's node summary, sampled 5 s ago")), qPrintable(known));
        QVERIFY(!known.contains(QStringLiteral("idle")));
        const QString unknown = view.tooltipAt(topOf(p, slice.layout.chipPosition(2, 1)));
        QVERIFY2(unknown.contains(QStringLiteral("activity unknown: Ray reports no TPU metrics for this node")), qPrintable(unknown));
        const QString idle = view.tooltipAt(topOf(p, slice.layout.chipPosition(1, 0)));
        QVERIFY2(idle.contains(QStringLiteral("idle while reserved since 17:46 UTC (14 min ago)")), qPrintable(idle));
        QVERIFY2(idle.contains(QStringLiteral("duty cycle 0.0 %")), qPrintable(idle));
    }

    // The tile: the slice's mean duty cycle and reporting chips, in the tooltip and on the tile;
    // the alert count badge.
    void overviewTilesShowActivityAndAlerts()
    {
        FleetOverview overview;
        overview.resize(1100, 700);
        overview.setSnapshot(activitySnapshot());
        const QRect tile = overview.tileRect(k2d);
        QVERIFY(tile.isValid());
        QString tip = overview.toolTipAt(tile.center());
        // 12 reporting chips: (5+30+60+95) + (0+12+45+80) + (20+3+70+100) = 520, / 12.
        QVERIFY2(tip.contains(QStringLiteral("mean duty cycle 43 % over the 12 of 16 chips that report")), qPrintable(tip));
        QVERIFY(!tip.contains(QStringLiteral("alert")));
        const QImage plain = overview.grab().toImage();
        overview.setAlertCounts({{k2d, 2}});
        QCOMPARE(overview.alertCounts().value(k2d), 2);
        tip = overview.toolTipAt(tile.center());
        QVERIFY2(tip.contains(QStringLiteral("2 active alerts")), qPrintable(tip));
        const QImage badged = overview.grab().toImage();
        // The badge sits on the tile's top edge in the degraded colour; other tiles are untouched.
        const QRect edge(tile.left(), tile.top() - 10, tile.width(), 20);
        QVERIFY(countNear(badged, edge, Theme::light().degraded, 10) > 40);
        QCOMPARE(countNear(plain, edge, Theme::light().degraded, 10), 0);
        const QRect otherTile = overview.tileRect(k3d);
        QCOMPARE(badged.copy(otherTile), plain.copy(otherTile));
    }

    // The window offers the mode: "Activity" in the colour picker, and the metric picker beside it
    // only in that mode, driving the view.
    void workspacePickers()
    {
        Workspace ws;
        ws.resize(1200, 800);
        ws.setSnapshot(activitySnapshot());
        QVERIFY(ws.showSlice(k2d));
        auto *metric = ws.findChild<QComboBox *>(QStringLiteral("activityMetric"));
        QVERIFY(metric);
        QVERIFY(metric->isHidden());
        ws.setColorMode(ColorMode::Activity);
        QCOMPARE(ws.sliceView()->colorMode(), ColorMode::Activity);
        QVERIFY(!metric->isHidden());
        metric->setCurrentIndex(metric->findData(int(ActivityMetric::HbmUsed)));
        Q_EMIT metric->activated(metric->currentIndex());
        QCOMPARE(ws.sliceView()->activityMetric(), ActivityMetric::HbmUsed);
        ws.setIdleChips({{k2d, idleChipsOf(k2d)}});
        QVERIFY(ws.sliceView()->idleChips() == idleChipsOf(k2d));
        QVERIFY(ws.showSlice(k3d));
        QVERIFY(ws.sliceView()->idleChips().isEmpty());
        ws.setColorMode(ColorMode::Bundle);
        QVERIFY(metric->isHidden());
        QVERIFY(colorModeFromText(u"activity") == ColorMode::Activity);
        QVERIFY(activityMetricFromText(u"hbm") == ActivityMetric::HbmUsed);
        QVERIFY(!activityMetricFromText(u"pink"));
    }

    // Goldens: the 2D and the 3D slice in the activity mode, some chips known, some unknown
    // (hatched), some idle (outlined), a dead host, on both themes.
    void goldens_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("slice");
        QTest::addColumn<QString>("theme");
        QTest::newRow("2D light") << QStringLiteral("activity-v6e-4x4") << k2d << QStringLiteral("light");
        QTest::newRow("2D dark") << QStringLiteral("activity-v6e-4x4-dark") << k2d << QStringLiteral("dark");
        QTest::newRow("3D light") << QStringLiteral("activity-v5p-4x4x4") << k3d << QStringLiteral("light");
        QTest::newRow("3D dark") << QStringLiteral("activity-v5p-4x4x4-dark") << k3d << QStringLiteral("dark");
    }
    void goldens()
    {
        QFETCH(QString, name);
        QFETCH(QString, slice);
        QFETCH(QString, theme);
        const Theme t = Theme::named(theme);
        applyLook(*qApp, t);
        const QSize size(900, 640);
        SliceView view;
        view.setTheme(t);
        view.setColorMode(ColorMode::Activity);
        view.setSlice(activitySnapshot(), slice);
        view.setIdleChips(idleChipsOf(slice));
        place(view, size);
        SLICESCOPE_VERIFY_GOLDEN(name, renderOf(view, size));
        applyLook(*qApp, Theme::light());
    }

    // The whole window through `screenshot --color activity [--activity hbm]`: the overview's
    // tiles with their duty figure; the slice page with both pickers in its bar.
    void screenshots_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("view");
        QTest::addColumn<int>("metric");
        QTest::addColumn<QString>("theme");
        QTest::newRow("overview") << QStringLiteral("activity-overview") << QStringLiteral("overview") << int(ActivityMetric::DutyCycle) << QStringLiteral("light");
        QTest::newRow("3D slice, HBM, dark") << QStringLiteral("activity-window-v5p-hbm-dark") << QStringLiteral("slice:") + k3d << int(ActivityMetric::HbmUsed)
                                             << QStringLiteral("dark");
    }
    void screenshots()
    {
        QFETCH(QString, name);
        QFETCH(QString, view);
        QFETCH(int, metric);
        QFETCH(QString, theme);
        ScreenshotOptions options;
        options.view = view;
        options.color = ColorMode::Activity;
        options.activity = ActivityMetric(metric);
        options.theme = theme;
        options.size = QSize(1280, 800);
        options.sourceDescription = QStringLiteral("capture activity.slicescope.json");
        QString error;
        const QImage actual = renderScreenshot(activityCapture(), options, &error);
        QVERIFY2(!actual.isNull(), qPrintable(error));
        SLICESCOPE_VERIFY_GOLDEN(name, actual);
        applyLook(*qApp, Theme::light());
    }
};

int main(int argc, char **argv)
{
    pinRenderingEnvironment(true);
    QApplication app(argc, argv);
    TestActivityView test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_activityview.moc"
