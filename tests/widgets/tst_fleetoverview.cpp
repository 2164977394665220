// SPDX-License-Identifier: GPL-3.0-or-later
// The fleet overview with the demo cluster (backend/democluster.cpp): tiles, grouping, geometry,
// filtering, mouse and keyboard, tooltips, scrolling, the tiles' duty-cycle sparkline (and the
// recent history Workspace feeds it from a SnapshotHistory), and a 2,500-slice fleet that must
// lay out and paint quickly (the time is printed, not asserted: these machines are shared).
//
// The demo's slices, in the order the overview shows them (generation, then worker group):
//   v4  · ml/tpu-team/v4-2x2x2    v4-2x2x2-0                                  reserved
//   v5p · ml/tpu-team/v5p-4x4x4   v5p-4x4x4-0                                 ready
//   v6e · ml/tpu-team/v6e-2x4     v6e-2x4-0                                   reserved (2 of 8 chips)
//   v6e · ml/tpu-team/v6e-4x4     v6e-4x4-0 (reserved), -1, -2 (ready), -3 (degraded: worker 2 DEAD)

#include "../model/fleetcapturefixture.h"
#include "democluster.h"
#include "fleetoverview.h"
#include "history.h"
#include "look.h"
#include "workspace.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QSignalSpy>
#include <QTest>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace slicescope;

namespace {

QString s(const char *text) { return QString::fromUtf8(text); }

SnapshotPtr demoSnapshot()
{
    static const SnapshotPtr snapshot = [] {
        DemoCluster demo;
        return buildSnapshot(demo.capture());
    }();
    return snapshot;
}

const QStringList kDisplayOrder{s("v4-2x2x2-0"), s("v5p-4x4x4-0"), s("v6e-2x4-0"), s("v6e-4x4-0"),
                                s("v6e-4x4-1"), s("v6e-4x4-2"), s("v6e-4x4-3")};

// A fleet of `count` slices: the demo's seven copied under new names across 40 worker groups per
// generation, so every tile kind (ready, reserved, partly used, degraded) repeats.
SnapshotPtr largeSnapshot(int count)
{
    const SnapshotPtr demo = demoSnapshot();
    auto big = std::make_shared<ClusterSnapshot>(*demo);
    big->slices.clear();
    for (int copy = 0; big->slices.size() < count; ++copy)
        for (const Slice &slice : demo->slices) {
            if (big->slices.size() == count)
                break;
            Slice c = slice;
            c.name = QStringLiteral("%1-c%2").arg(slice.name).arg(copy);
            c.workerGroup = QStringLiteral("%1-%2").arg(slice.workerGroup).arg(copy % 40);
            big->slices << c;
        }
    return big;
}

// The largest v5p slice (16x20x28: 2,240 hosts) with one host in `state`: far more hosts than a
// tile has pixels for its host strip.
Slice hugeSlice(HostState oddHost)
{
    Slice slice;
    slice.name = s("v5p-16x20x28-0");
    slice.generation = tpu::findGeneration(u"v5p");
    slice.topology = *tpu::parseTopology(u"16x20x28");
    slice.chipsPerHost = 4;
    slice.podType = tpu::podType(*slice.generation, slice.topology);
    slice.layout = tpu::SliceLayout(*slice.generation, slice.topology, 4);
    slice.hosts.resize(slice.layout.hostCount());
    for (int w = 0; w < slice.hosts.size(); ++w) {
        slice.hosts[w].workerId = w;
        slice.hosts[w].state = HostState::Alive;
        slice.hosts[w].chips.resize(4);
    }
    slice.hosts[1000].state = oddHost;
    slice.problems << QStringLiteral("worker 1000 is %1").arg(toText(oddHost));
    return slice;
}

int countPixels(const QImage &image, const QRect &area, const QColor &color)
{
    int n = 0;
    const QRect r = area & image.rect();
    for (int y = r.top(); y <= r.bottom(); ++y)
        for (int x = r.left(); x <= r.right(); ++x)
            n += image.pixelColor(x, y) == color;
    return n;
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A slice's recent mean duty cycle, one value every 2 s (NaN: unknown), as setActivityHistory() takes it.
QList<QPointF> recent(std::initializer_list<double> values)
{
    QList<QPointF> points;
    const double t0 = double(QDateTime(QDate(2026, 11, 29), QTime(18, 0), Qt::UTC).toMSecsSinceEpoch());
    for (double v : values)
        points << QPointF(t0 + 2000.0 * double(points.size()), v);
    return points;
}

// Equal series, NaN equal to NaN (QPointF's == says no).
bool sameSeries(const QList<QPointF> &a, const QList<QPointF> &b)
{
    if (a.size() != b.size())
        return false;
    for (qsizetype i = 0; i < a.size(); ++i)
        if (a[i].x() != b[i].x() || (std::isnan(a[i].y()) ? !std::isnan(b[i].y()) : a[i].y() != b[i].y()))
            return false;
    return true;
}

// The pixel nearest `colour` (largest channel delta) in the 3x3 around `at`: a thin antialiased
// line may fall between pixels.
int nearestDelta(const QImage &image, QPointF at, const QColor &colour)
{
    int best = 256;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
            const QColor c = image.pixelColor(int(at.x()) + dx, int(at.y()) + dy);
            best = std::min(best, std::max({std::abs(c.red() - colour.red()), std::abs(c.green() - colour.green()), std::abs(c.blue() - colour.blue())}));
        }
    return best;
}

// Demo snapshots every 2 s, `count` of them, in a history.
void record(SnapshotHistory &history, int count)
{
    DemoCluster demo;
    for (int i = 0; i < count; ++i) {
        history.add(buildSnapshot(demo.capture()));
        demo.advance(2000);
    }
}

QImage renderOf(FleetOverview &overview)
{
    QImage image(overview.size(), QImage::Format_ARGB32);
    image.fill(Qt::transparent);
    overview.render(&image);
    return image;
}

} // namespace

class TestFleetOverview : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everySliceHasATile()
    {
        FleetOverview overview;
        overview.resize(1280, 800);
        overview.setSnapshot(demoSnapshot());
        QCOMPARE(overview.shownSlices().size(), demoSnapshot()->slices.size());
        for (const Slice &slice : demoSnapshot()->slices) {
            const QRect r = overview.tileRect(slice.name);
            QVERIFY2(r.isValid(), qPrintable(slice.name));
            QVERIFY2(overview.rect().contains(r), qPrintable(slice.name)); // the demo fits in 1280x800
        }
        QVERIFY(!overview.tileRect(s("no-such-slice")).isValid());
    }

    void groupingOrder()
    {
        FleetOverview overview;
        overview.resize(1280, 800);
        overview.setSnapshot(demoSnapshot());
        QCOMPARE(overview.groupTitles(), (QStringList{s("v4 \u00b7 ml/tpu-team/v4-2x2x2"), s("v5p \u00b7 ml/tpu-team/v5p-4x4x4"),
                                                      s("v6e \u00b7 ml/tpu-team/v6e-2x4"), s("v6e \u00b7 ml/tpu-team/v6e-4x4")}));
        QCOMPARE(overview.shownSlices(), kDisplayOrder);
        // Groups of one row share a row while columns last (v4 | v5p | v6e 2x4); v6e 4x4's four
        // tiles do not fit beside them and start below. Inside a group tiles flow left to right.
        QCOMPARE(overview.tileRect(s("v5p-4x4x4-0")).top(), overview.tileRect(s("v4-2x2x2-0")).top());
        QVERIFY(overview.tileRect(s("v5p-4x4x4-0")).left() > overview.tileRect(s("v4-2x2x2-0")).right());
        QCOMPARE(overview.tileRect(s("v6e-2x4-0")).top(), overview.tileRect(s("v5p-4x4x4-0")).top());
        QVERIFY(overview.tileRect(s("v6e-2x4-0")).left() > overview.tileRect(s("v5p-4x4x4-0")).right());
        QVERIFY(overview.tileRect(s("v6e-4x4-0")).top() > overview.tileRect(s("v6e-2x4-0")).bottom());
        QCOMPARE(overview.tileRect(s("v6e-4x4-0")).left(), overview.tileRect(s("v4-2x2x2-0")).left());
        QCOMPARE(overview.tileRect(s("v6e-4x4-1")).top(), overview.tileRect(s("v6e-4x4-0")).top());
        QVERIFY(overview.tileRect(s("v6e-4x4-1")).left() > overview.tileRect(s("v6e-4x4-0")).right());
    }

    void geometryAgrees_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::newRow("500 wide") << QSize(500, 700);
        QTest::newRow("800 wide, scrolled") << QSize(800, 300);
        QTest::newRow("1280x800") << QSize(1280, 800);
        QTest::newRow("1920x1080") << QSize(1920, 1080);
    }
    void geometryAgrees()
    {
        QFETCH(QSize, size);
        FleetOverview overview;
        overview.resize(size);
        overview.setSnapshot(demoSnapshot());
        QList<QRect> seen;
        for (const QString &name : kDisplayOrder) {
            overview.scrollToSlice(name);
            const QRect r = overview.tileRect(name);
            QVERIFY2(r.isValid(), qPrintable(name));
            QVERIFY2(overview.rect().contains(r), qPrintable(name)); // scrolled into view, clear of the scroll bar
            QCOMPARE(overview.sliceAt(r.center()), name);
            QCOMPARE(overview.sliceAt(r.topLeft()), name);
            QCOMPARE(overview.sliceAt(r.bottomRight()), name);
            QCOMPARE(overview.sliceAt(r.topLeft() - QPoint(1, 1)), QString()); // the gap around a tile
        }
        // No two tiles overlap (compared in one scroll position).
        overview.scrollToSlice(kDisplayOrder.first());
        for (const QString &name : kDisplayOrder) {
            const QRect r = overview.tileRect(name);
            for (const QRect &other : std::as_const(seen))
                QVERIFY2(!r.intersects(other), qPrintable(name));
            seen << r;
        }
        QCOMPARE(overview.sliceAt(QPoint(2, 2)), QString()); // the margin, above the summary
    }

    void narrowerIsTaller()
    {
        FleetOverview overview;
        overview.setSnapshot(demoSnapshot());
        const int wide = overview.heightForWidth(1920), narrow = overview.heightForWidth(500);
        QVERIFY2(narrow > wide, qPrintable(QStringLiteral("%1 at 500 px, %2 at 1920 px").arg(narrow).arg(wide)));
    }

    void clickActivates()
    {
        FleetOverview overview;
        overview.resize(1280, 800);
        overview.setSnapshot(demoSnapshot());
        overview.show();
        QVERIFY(QTest::qWaitForWindowExposed(&overview));
        QSignalSpy activated(&overview, &FleetOverview::sliceActivated);
        QSignalSpy current(&overview, &FleetOverview::currentSliceChanged);
        QTest::mouseClick(&overview, Qt::LeftButton, {}, overview.tileRect(s("v6e-4x4-3")).center());
        QCOMPARE(activated.size(), 1);
        QCOMPARE(activated.first().first().toString(), s("v6e-4x4-3"));
        QCOMPARE(overview.currentSlice(), s("v6e-4x4-3"));
        QCOMPARE(current.size(), 1);
        QTest::mouseClick(&overview, Qt::LeftButton, {}, overview.tileRect(s("v5p-4x4x4-0")).center());
        QCOMPARE(activated.size(), 2);
        QCOMPARE(activated.last().first().toString(), s("v5p-4x4x4-0"));
        // Between tiles nothing happens.
        QTest::mouseClick(&overview, Qt::LeftButton, {}, overview.tileRect(s("v6e-4x4-0")).topRight() + QPoint(2, 0));
        QCOMPARE(activated.size(), 2);
        QCOMPARE(overview.currentSlice(), s("v5p-4x4x4-0"));
    }

    // A click on a group's header folds it: its header stays with its count, its tiles go, the tiles
    // below move up; a second click opens it. Opening a folded slice (search, the window) unfolds it.
    void headersFold()
    {
        FleetOverview overview;
        overview.resize(1280, 800);
        overview.setSnapshot(demoSnapshot());
        overview.show();
        QVERIFY(QTest::qWaitForWindowExposed(&overview));
        const QString group = s("v6e \u00b7 ml/tpu-team/v6e-4x4");
        QVERIFY(overview.sectionTitles().isEmpty()); // one cluster: no section
        const QRect header = overview.headerRect(group);
        QVERIFY(header.isValid());
        QVERIFY(overview.tileRect(s("v6e-4x4-3")).isValid());
        const int slicesBefore = int(overview.shownSlices().size());
        const int heightBefore = overview.heightForWidth(overview.width());
        QSignalSpy changed(&overview, &FleetOverview::collapsedChanged);
        QTest::mouseClick(&overview, Qt::LeftButton, {}, header.center());
        QCOMPARE(changed.size(), 1);
        QVERIFY(overview.isCollapsed(group));
        QCOMPARE(overview.shownSlices().size(), slicesBefore - 4);
        QVERIFY(!overview.tileRect(s("v6e-4x4-3")).isValid());
        QVERIFY(overview.groupTitles().contains(group)); // the header stays
        QVERIFY(overview.heightForWidth(overview.width()) < heightBefore);
        QCOMPARE(overview.collapsedKeys().size(), 1);
        QVERIFY(overview.toolTipAt(overview.headerRect(group).center()).contains(s("Click to show its slices")));
        // The folded header is painted with its fold mark left of the title, in the margin.
        const QImage folded = renderOf(overview);
        const QRect h = overview.headerRect(group);
        bool markDrawn = false;
        for (int y = h.top(); y <= h.bottom() && !markDrawn; ++y)
            for (int x = 1; x < h.left(); ++x)
                markDrawn = markDrawn || nearestDelta(folded, QPointF(x, y), Theme::light().mutedText) < 40;
        QVERIFY(markDrawn);

        QTest::mouseClick(&overview, Qt::LeftButton, {}, overview.headerRect(group).center());
        QVERIFY(!overview.isCollapsed(group));
        QCOMPARE(overview.shownSlices().size(), slicesBefore);

        overview.setCollapsed(group, true);
        overview.scrollToSlice(s("v6e-4x4-2")); // what the window does when a slice is opened
        QVERIFY(!overview.isCollapsed(group));
        QVERIFY(overview.tileRect(s("v6e-4x4-2")).isValid());

        // Saved and restored by key, as the window does between runs.
        overview.setCollapsed(group, true);
        const QStringList keys = overview.collapsedKeys();
        FleetOverview again;
        again.resize(1280, 800);
        again.setSnapshot(demoSnapshot());
        again.setCollapsedKeys(keys);
        QVERIFY(again.isCollapsed(group));
        QCOMPARE(again.shownSlices(), overview.shownSlices());
    }

    // A fleet of two contexts: a section header per context with its figures, the groups under it
    // without the context's name; a folded section hides all its groups; generation first nests the
    // other way. A context that does not answer says so on its header.
    void fleetSections()
    {
        Capture eu = testfixture::twoClusterContext(s("gke_eu"));
        eu.kubeError = s("GET https://eu.example/api/v1/pods: connection refused");
        const Capture fleet = testfixture::fleetOf({testfixture::twoClusterContext(s("gke_us")), eu});
        const SnapshotPtr snapshot = buildSnapshot(fleet);
        QCOMPARE(snapshot->slices.size(), 4);
        FleetOverview overview;
        overview.resize(1280, 800);
        overview.setSnapshot(snapshot);
        overview.show();
        QVERIFY(QTest::qWaitForWindowExposed(&overview));
        QCOMPARE(overview.sectionTitles(), (QStringList{s("gke_eu"), s("gke_us")}));
        QCOMPARE(overview.sectionText(s("gke_us")), s("2 slices \u00b7 1 ready \u00b7 1 reserved \u00b7 16 / 32 chips reserved \u00b7 0 chips stranded"));
        QCOMPARE(overview.groupTitles(), (QStringList{s("v6e \u00b7 team-a/llm/tpu"), s("v6e \u00b7 team-b/rl/tpu"), s("v6e \u00b7 team-a/llm/tpu"), s("v6e \u00b7 team-b/rl/tpu")}));
        const QString euTip = overview.toolTipAt(overview.headerRect(s("gke_eu")).center());
        QVERIFY2(euTip.contains(s("Not answering: GET https://eu.example/api/v1/pods: connection refused")), qPrintable(euTip));
        QVERIFY(!overview.toolTipAt(overview.headerRect(s("gke_us")).center()).contains(s("Not answering")));
        // The down context's header is drawn in the alarm colour (its border), the other's is not.
        const QImage image = renderOf(overview);
        auto borderIsAlarm = [&](const QString &title) {
            const QRect r = overview.headerRect(title);
            return nearestDelta(image, QPointF(r.center().x(), r.top() + 0.5), Theme::light().degraded) < 40;
        };
        QVERIFY(borderIsAlarm(s("gke_eu")));
        QVERIFY(!borderIsAlarm(s("gke_us")));

        // Fold gke_eu: its two groups and slices go, its header stays.
        QTest::mouseClick(&overview, Qt::LeftButton, {}, overview.headerRect(s("gke_eu")).center());
        QVERIFY(overview.isCollapsed(s("gke_eu")));
        QCOMPARE(overview.sectionTitles(), (QStringList{s("gke_eu"), s("gke_us")}));
        QCOMPARE(overview.groupTitles().size(), 2);
        for (const QString &name : overview.shownSlices())
            QVERIFY2(name.startsWith(s("gke_us:")), qPrintable(name));

        // Generation first: one section "v6e", the groups name their context.
        overview.setOrder(FleetOrder::GenerationFirst);
        QCOMPARE(overview.sectionTitles(), QStringList{s("v6e")});
        QCOMPARE(overview.sectionText(s("v6e")).left(9), s("4 slices "));
        QCOMPARE(overview.groupTitles().first(), s("gke_eu \u00b7 team-a/llm/tpu"));
        QCOMPARE(overview.shownSlices().size(), 4); // gke_eu's fold was of its context section
    }

    void filterText_data()
    {
        QTest::addColumn<QString>("filter");
        QTest::addColumn<QStringList>("shown");
        QTest::newRow("status word") << s("degraded") << QStringList{s("v6e-4x4-3")};
        QTest::newRow("case-insensitive name part") << s("V5P") << QStringList{s("v5p-4x4x4-0")};
        QTest::newRow("shape") << s("v6e 4x4") << QStringList{s("v6e-4x4-0"), s("v6e-4x4-1"), s("v6e-4x4-2"), s("v6e-4x4-3")};
        QTest::newRow("topology") << s("2x2x2") << QStringList{s("v4-2x2x2-0")};
        QTest::newRow("worker group") << s("tpu-team/v6e-2x4") << QStringList{s("v6e-2x4-0")};
        QTest::newRow("holder") << s("notebook-alice") << QStringList{s("v6e-2x4-0")};
        QTest::newRow("problem") << s("dead") << QStringList{s("v6e-4x4-3")};
        QTest::newRow("use word") << s("partly used") << QStringList{s("v6e-2x4-0")};
        QTest::newRow("ready") << s("ready") << QStringList{s("v5p-4x4x4-0"), s("v6e-4x4-1"), s("v6e-4x4-2")};
        QTest::newRow("every word must match") << s("v6e ready") << QStringList{s("v6e-4x4-1"), s("v6e-4x4-2")};
        QTest::newRow("generation display name") << s("trillium") << QStringList{s("v6e-2x4-0"), s("v6e-4x4-0"), s("v6e-4x4-1"), s("v6e-4x4-2"), s("v6e-4x4-3")};
        QTest::newRow("nothing") << s("zzz") << QStringList{};
        QTest::newRow("blank is everything") << s("  ") << kDisplayOrder;
    }
    void filterText()
    {
        QFETCH(QString, filter);
        QFETCH(QStringList, shown);
        FleetOverview overview;
        overview.resize(1280, 800);
        overview.setSnapshot(demoSnapshot());
        overview.setFilterText(filter);
        QCOMPARE(overview.shownSlices(), shown);
        for (const QString &name : kDisplayOrder)
            QCOMPARE(overview.tileRect(name).isValid(), shown.contains(name));
        // Hidden tiles are not hit either; a filtered-out slice's old place is empty or another tile.
        if (shown.isEmpty()) {
            QVERIFY(overview.groupTitles().isEmpty());
            QVERIFY(!renderOf(overview).isNull()); // the "no slice matches" message paints
        }
    }

    void statusFilter()
    {
        FleetOverview overview;
        overview.resize(1280, 800);
        overview.setSnapshot(demoSnapshot());
        overview.setStatusFilter({SliceStatus::Ready});
        QCOMPARE(overview.shownSlices(), (QStringList{s("v5p-4x4x4-0"), s("v6e-4x4-1"), s("v6e-4x4-2")}));
        QCOMPARE(overview.groupTitles(), (QStringList{s("v5p \u00b7 ml/tpu-team/v5p-4x4x4"), s("v6e \u00b7 ml/tpu-team/v6e-4x4")}));
        overview.setStatusFilter({SliceStatus::Reserved, SliceStatus::Degraded});
        QCOMPARE(overview.shownSlices(), (QStringList{s("v4-2x2x2-0"), s("v6e-2x4-0"), s("v6e-4x4-0"), s("v6e-4x4-3")}));
        overview.setStatusFilter({SliceStatus::Provisioning});
        QVERIFY(overview.shownSlices().isEmpty());
        // Both filters at once: a slice must pass each.
        overview.setStatusFilter({SliceStatus::Reserved});
        overview.setFilterText(s("v6e"));
        QCOMPARE(overview.shownSlices(), (QStringList{s("v6e-2x4-0"), s("v6e-4x4-0")}));
        overview.setStatusFilter({});
        QCOMPARE(overview.shownSlices().size(), 5);
    }

    void keyboard()
    {
        // At 1280 px, four columns: v4 | v5p | v6e 2x4 share the first row, v6e 4x4's four tiles the second.
        FleetOverview overview;
        overview.resize(1280, 800);
        overview.setSnapshot(demoSnapshot());
        overview.show();
        QVERIFY(QTest::qWaitForWindowExposed(&overview));
        QSignalSpy activated(&overview, &FleetOverview::sliceActivated);
        QSignalSpy current(&overview, &FleetOverview::currentSliceChanged);
        QTest::keyClick(&overview, Qt::Key_Right); // nothing current yet: the first tile
        QCOMPARE(overview.currentSlice(), s("v4-2x2x2-0"));
        QTest::keyClick(&overview, Qt::Key_Right); // across groups, in reading order
        QCOMPARE(overview.currentSlice(), s("v5p-4x4x4-0"));
        QTest::keyClick(&overview, Qt::Key_Right);
        QCOMPARE(overview.currentSlice(), s("v6e-2x4-0"));
        QTest::keyClick(&overview, Qt::Key_Down); // the nearest tile in the row below: the third column
        QCOMPARE(overview.currentSlice(), s("v6e-4x4-2"));
        QTest::keyClick(&overview, Qt::Key_Right);
        QCOMPARE(overview.currentSlice(), s("v6e-4x4-3"));
        QTest::keyClick(&overview, Qt::Key_Left);
        QCOMPARE(overview.currentSlice(), s("v6e-4x4-2"));
        QTest::keyClick(&overview, Qt::Key_Up);
        QCOMPARE(overview.currentSlice(), s("v6e-2x4-0"));
        QTest::keyClick(&overview, Qt::Key_Left);
        QCOMPARE(overview.currentSlice(), s("v5p-4x4x4-0"));
        QTest::keyClick(&overview, Qt::Key_Down);
        QCOMPARE(overview.currentSlice(), s("v6e-4x4-1"));
        QTest::keyClick(&overview, Qt::Key_End);
        QCOMPARE(overview.currentSlice(), s("v6e-4x4-3"));
        QTest::keyClick(&overview, Qt::Key_Right); // the last tile stays
        QCOMPARE(overview.currentSlice(), s("v6e-4x4-3"));
        QCOMPARE(activated.size(), 0); // moving never opens a slice
        QTest::keyClick(&overview, Qt::Key_Return);
        QCOMPARE(activated.size(), 1);
        QCOMPARE(activated.first().first().toString(), s("v6e-4x4-3"));
        QTest::keyClick(&overview, Qt::Key_Home);
        QTest::keyClick(&overview, Qt::Key_Enter);
        QCOMPARE(activated.last().first().toString(), s("v4-2x2x2-0"));
        QCOMPARE(current.size(), 11); // Right x3, Down, Right, Left, Up, Left, Down, End, Home (the last Right did not move)
    }

    void keyboardScrolls()
    {
        FleetOverview overview;
        overview.resize(520, 260); // far shorter than the content
        overview.setSnapshot(demoSnapshot());
        overview.show();
        QVERIFY(QTest::qWaitForWindowExposed(&overview));
        QTest::keyClick(&overview, Qt::Key_End);
        QCOMPARE(overview.currentSlice(), s("v6e-4x4-3"));
        QVERIFY(overview.rect().contains(overview.tileRect(s("v6e-4x4-3"))));
        QCOMPARE(overview.sliceAt(overview.tileRect(s("v6e-4x4-3")).center()), s("v6e-4x4-3"));
        QVERIFY(!overview.rect().intersects(overview.tileRect(s("v4-2x2x2-0"))));
        QTest::keyClick(&overview, Qt::Key_Home);
        QVERIFY(overview.rect().contains(overview.tileRect(s("v4-2x2x2-0"))));
    }

    // The window sets the current slice again on every refresh; that must not undo the user's scrolling.
    void scrollingSticksAcrossRefresh()
    {
        FleetOverview overview;
        overview.resize(520, 260);
        overview.setSnapshot(demoSnapshot());
        overview.show();
        QVERIFY(QTest::qWaitForWindowExposed(&overview));
        overview.setCurrentSlice(s("v4-2x2x2-0")); // the first current slice: the overview stays at its top
        const QRect firstAtTop = overview.tileRect(s("v4-2x2x2-0")); // not scrolled yet
        {
            // Whichever slice the window makes current first, the overview opens at its top (the
            // fleet's summary), even when that tile is further down.
            FleetOverview fresh;
            fresh.resize(520, 260);
            fresh.setSnapshot(demoSnapshot());
            fresh.setCurrentSlice(s("v6e-4x4-3"));
            QCOMPARE(fresh.tileRect(s("v4-2x2x2-0")), firstAtTop);
        }
        overview.setCurrentSlice(s("v6e-4x4-3")); // a new current slice scrolls into view
        QVERIFY(overview.rect().contains(overview.tileRect(s("v6e-4x4-3"))));
        const QPoint at = overview.rect().center();
        for (int i = 0; i < 40; ++i) { // the wheel, upwards, all the way
            QWheelEvent wheel(at, overview.mapToGlobal(at), QPoint(), QPoint(0, 120), Qt::NoButton, Qt::NoModifier,
                              Qt::NoScrollPhase, false);
            QApplication::sendEvent(&overview, &wheel);
        }
        QCOMPARE(overview.tileRect(s("v4-2x2x2-0")), firstAtTop);
        overview.setSnapshot(demoSnapshot());
        overview.setCurrentSlice(s("v6e-4x4-3"));
        QCOMPARE(overview.tileRect(s("v4-2x2x2-0")), firstAtTop);
        QVERIFY(!overview.rect().intersects(overview.tileRect(s("v6e-4x4-3"))));
    }

    void currentSurvivesRefresh()
    {
        FleetOverview overview;
        overview.resize(1280, 800);
        overview.setSnapshot(demoSnapshot());
        overview.setCurrentSlice(s("v6e-4x4-2"));
        overview.setHighlightedSlices({s("v6e-4x4-1")});
        DemoCluster demo;
        demo.advance(5000);
        overview.setSnapshot(buildSnapshot(demo.capture()));
        QCOMPARE(overview.currentSlice(), s("v6e-4x4-2"));
        QCOMPARE(overview.highlightedSlices(), QStringList{s("v6e-4x4-1")});
        QCOMPARE(overview.shownSlices(), kDisplayOrder);
    }

    void tooltips()
    {
        FleetOverview overview;
        overview.resize(1280, 800);
        overview.setSnapshot(demoSnapshot());
        const QString degraded = overview.toolTipAt(overview.tileRect(s("v6e-4x4-3")).center());
        QVERIFY2(degraded.contains(s("v6e-4x4-3")) && degraded.contains(s("degraded")) && degraded.contains(s("worker 2 is DEAD")),
                 qPrintable(degraded));
        QVERIFY2(degraded.contains(s("1 dead")) && degraded.contains(s("3 alive")), qPrintable(degraded));
        const QString held = overview.toolTipAt(overview.tileRect(s("v6e-4x4-0")).center());
        QVERIFY2(held.contains(s("llm-train (16 chips)")) && held.contains(s("16 of 16 reserved")), qPrintable(held));
        const QString partly = overview.toolTipAt(overview.tileRect(s("v6e-2x4-0")).center());
        QVERIFY2(partly.contains(s("notebook-alice (2 chips)")) && partly.contains(s("6 chips stranded")), qPrintable(partly));
        QCOMPARE(overview.toolTipAt(QPoint(2, 2)), QString());

        // What hovering shows is that text.
        overview.show();
        QVERIFY(QTest::qWaitForWindowExposed(&overview));
        const QPoint at = overview.tileRect(s("v6e-4x4-3")).center();
        QHelpEvent help(QEvent::ToolTip, at, overview.mapToGlobal(at));
        QApplication::sendEvent(&overview, &help);
        QTRY_VERIFY(QToolTip::isVisible());
        QVERIFY(QToolTip::text().contains(s("worker 2 is DEAD")));
        QToolTip::hideText();
    }

    void themesPaint_data()
    {
        QTest::addColumn<QString>("theme");
        QTest::newRow("light") << s("light");
        QTest::newRow("dark") << s("dark");
    }
    void themesPaint()
    {
        QFETCH(QString, theme);
        const Theme t = Theme::named(theme);
        FleetOverview overview;
        overview.resize(1280, 800);
        overview.setTheme(t);
        overview.setSnapshot(demoSnapshot());
        const QImage image = renderOf(overview);
        // The window colour fills the gaps, each tile has the panel colour, and the degraded
        // tile's badge its status colour.
        QVERIFY(countPixels(image, QRect(0, 0, 4, 4), t.window) == 16);
        QVERIFY(countPixels(image, overview.tileRect(s("v6e-4x4-1")), t.panel) > 1000);
        QVERIFY(countPixels(image, overview.tileRect(s("v6e-4x4-3")), sliceStatusColor(SliceStatus::Degraded, t)) > 100);

        // The current tile is framed in the selection colour, planned tiles in the hover colour.
        const QRect around = overview.tileRect(s("v6e-4x4-2")).adjusted(-8, -8, 8, 8);
        QCOMPARE(countPixels(image, around, t.selection), 0);
        QCOMPARE(countPixels(image, around, t.hover), 0);
        overview.setCurrentSlice(s("v6e-4x4-2"));
        overview.setHighlightedSlices({s("v6e-4x4-2")});
        const QImage marked = renderOf(overview);
        QVERIFY(countPixels(marked, around, t.selection) > 100);
        QVERIFY(countPixels(marked, around, t.hover) > 100);
    }

    // The sparkline: the slice's recent mean duty cycle in place of the small gauge, 0 % at the
    // bottom, x by time, broken where it was unknown, the newest value a dot in its scale colour.
    void sparklineDrawn()
    {
        const Theme t = Theme::light();
        FleetOverview overview;
        overview.resize(1280, 800);
        overview.setSnapshot(demoSnapshot());
        QVERIFY(demoSnapshot()->activity);
        const QString name = s("v6e-4x4-1");
        const QRect tile = overview.tileRect(name);
        const QImage plain = renderOf(overview);
        QVERIFY(overview.sparkline(name).isEmpty());

        overview.setActivityHistory({{name, recent({20, kNaN, 60, 80})}});
        const QList<QPolygonF> runs = overview.sparkline(name);
        QCOMPARE(runs.size(), 2); // 20 | gap | 60, 80
        QCOMPARE(runs[0].size(), 1);
        QCOMPARE(runs[1].size(), 2);
        for (const QPolygonF &run : runs)
            for (const QPointF &p : run)
                QVERIFY(QRectF(tile).contains(p));
        // Evenly spaced times: the gap is a third of the width; higher duty is higher up.
        const double step = runs[1][1].x() - runs[1][0].x();
        QVERIFY(step > 5);
        QVERIFY(std::abs((runs[1][0].x() - runs[0][0].x()) - 2 * step) < 0.01);
        QVERIFY(runs[1][1].y() < runs[1][0].y() && runs[1][0].y() < runs[0][0].y());
        // 20 % to 80 % is 60 % of the height: three times the 60-to-80 rise.
        QVERIFY(std::abs((runs[0][0].y() - runs[1][1].y()) - 3 * (runs[1][0].y() - runs[1][1].y())) < 0.01);

        const QImage drawn = renderOf(overview);
        // The line in the text colour halfway from 60 to 80, the dot of 20 %, nothing in the gap.
        QVERIFY(nearestDelta(drawn, (runs[1][0] + runs[1][1]) / 2, t.text) < 60);
        QVERIFY(nearestDelta(drawn, runs[0][0], t.text) < 60);
        const QPointF gap((runs[0][0].x() + runs[1][0].x()) / 2, (runs[0][0].y() + runs[1][0].y()) / 2);
        QVERIFY(nearestDelta(drawn, gap, t.text) > 100);
        QVERIFY(nearestDelta(drawn, runs[1][1] + QPointF(0.5, 0.5), activityColor(0.8)) < 40);
        // Only that tile changed.
        const QRect other = overview.tileRect(s("v6e-4x4-2"));
        QCOMPARE(drawn.copy(other), plain.copy(other));
        QVERIFY(drawn.copy(tile) != plain.copy(tile));
        const QString tip = overview.toolTipAt(tile.center());
        QVERIFY2(tip.contains(s("Over the last 6 s (the sparkline): mean duty cycle 20 % to 80 %, unknown in 1 of 4 snapshots")), qPrintable(tip));
    }

    // Fewer than 2 known values is no history: the tile keeps its gauge, pixel for pixel (goldens
    // of a single snapshot do not change).
    void sparklineNeedsTwoKnownValues_data()
    {
        QTest::addColumn<QList<QPointF>>("history");
        QTest::newRow("none") << QList<QPointF>();
        QTest::newRow("one value") << recent({50});
        QTest::newRow("one known, one unknown") << recent({50, kNaN});
        QTest::newRow("all unknown") << recent({kNaN, kNaN, kNaN});
    }
    void sparklineNeedsTwoKnownValues()
    {
        QFETCH(QList<QPointF>, history);
        FleetOverview overview;
        overview.resize(1280, 800);
        overview.setSnapshot(demoSnapshot());
        const QString name = s("v6e-4x4-1");
        const QImage plain = renderOf(overview);
        overview.setActivityHistory({{name, history}});
        QVERIFY(overview.sparkline(name).isEmpty());
        QCOMPARE(renderOf(overview), plain);
        QVERIFY(!overview.toolTipAt(overview.tileRect(name).center()).contains(s("sparkline")));
    }

    // A narrow tile's shape line drops whole parts, chips per host first, then the host count
    // (FleetEntry::shorterShapes), and ends in "…" only when the topology alone does not fit.
    void shapeLineLosesWholeParts()
    {
        const QFontMetrics fm(QApplication::font());
        const QString full = s("4x4x4 \u00b7 16 hosts \u00d7 4 chips"), hosts = s("4x4x4 \u00b7 16 hosts"), topology = s("4x4x4");
        const QStringList shapes{full, hosts, topology};
        const int wide = fm.horizontalAdvance(full);
        QCOMPARE(FleetOverview::fittedShape(shapes, fm, wide), full);
        QCOMPARE(FleetOverview::fittedShape(shapes, fm, wide - 1), hosts);
        QCOMPARE(FleetOverview::fittedShape(shapes, fm, fm.horizontalAdvance(hosts)), hosts);
        QCOMPARE(FleetOverview::fittedShape(shapes, fm, fm.horizontalAdvance(hosts) - 1), topology);
        QCOMPARE(FleetOverview::fittedShape(shapes, fm, fm.horizontalAdvance(topology)), topology);
        const QString cut = FleetOverview::fittedShape(shapes, fm, fm.horizontalAdvance(topology) - 1);
        QVERIFY2(cut.endsWith(QChar(0x2026)) && fm.horizontalAdvance(cut) < fm.horizontalAdvance(topology), qPrintable(cut));
        // Without chips per host (unknown), the host count is the first to go.
        QCOMPARE(FleetOverview::fittedShape({hosts, topology}, fm, fm.horizontalAdvance(hosts) - 1), topology);
    }

    // What Workspace feeds the tiles: each slice's mean over the entries up to the shown one (at
    // most 30, at most 15 minutes back), NaN where unknown, none without an activity table.
    void recentActivityOfAHistory()
    {
        SnapshotHistory history;
        record(history, 40);
        const QString name = s("v6e-4x4-0");
        const QHash<QString, QList<QPointF>> all = FleetOverview::recentActivity(history, 39);
        QCOMPARE(all.size(), history.activity(39)->bySlice.size());
        const QList<QPointF> series = all.value(name);
        QCOMPARE(series.size(), FleetOverview::kSparklineEntries);
        for (int k = 0; k < series.size(); ++k) {
            const int i = 10 + k;
            QCOMPARE(series[k].x(), double(history.time(i).toMSecsSinceEpoch()));
            const double mean = history.activity(i)->bySlice.value(name).meanDutyCycle();
            QVERIFY(std::isnan(mean) ? std::isnan(series[k].y()) : series[k].y() == mean);
        }
        QCOMPARE(FleetOverview::recentActivity(history, 39, 30, 10 * 1000).value(name).size(), 6); // 10 s back
        QCOMPARE(FleetOverview::recentActivity(history, 5).value(name).size(), 6);                 // from the start
        QVERIFY(FleetOverview::recentActivity(history, 40).isEmpty());

        // An entry without an activity table is a gap; the newest without one: no sparklines.
        SnapshotHistory gappy;
        for (int i = 0; i < 4; ++i) {
            auto copy = std::make_shared<ClusterSnapshot>(*history.snapshot(i));
            if (i == 1 || i == 3)
                copy->activity = nullptr;
            gappy.add(copy);
        }
        const QList<QPointF> withGap = FleetOverview::recentActivity(gappy, 2).value(name);
        QCOMPARE(withGap.size(), 3);
        QVERIFY(!std::isnan(withGap[0].y()) && std::isnan(withGap[1].y()) && !std::isnan(withGap[2].y()));
        QVERIFY(FleetOverview::recentActivity(gappy, 3).isEmpty());
    }

    // Workspace reads the history on every snapshot: up to the shown entry (live or scrubbed),
    // nothing for a snapshot that is not one of its entries or once the history is cleared.
    void workspaceFeedsTheTiles()
    {
        SnapshotHistory history;
        record(history, 12);
        Workspace ws;
        ws.resize(1280, 800);
        ws.show(); // lays the overview out at its size
        QVERIFY(QTest::qWaitForWindowExposed(&ws));
        ws.setSnapshot(history.snapshot(11));
        QVERIFY(ws.overview()->activityHistory().isEmpty()); // no history yet
        ws.setHistory(&history);
        QCOMPARE(ws.history(), &history);
        QVERIFY(ws.overview()->activityHistory().size() > 0);
        const QString name = s("v6e-4x4-0");
        QVERIFY(sameSeries(ws.overview()->activityHistory().value(name), FleetOverview::recentActivity(history, 11).value(name)));
        QVERIFY(!ws.overview()->sparkline(name).isEmpty());
        ws.setSnapshot(history.snapshot(4)); // scrubbed back
        QVERIFY(sameSeries(ws.overview()->activityHistory().value(name), FleetOverview::recentActivity(history, 4).value(name)));
        auto elsewhere = std::make_shared<ClusterSnapshot>(*history.snapshot(11));
        elsewhere->capturedAt = elsewhere->capturedAt.addSecs(1);
        ws.setSnapshot(elsewhere);
        QVERIFY(ws.overview()->activityHistory().isEmpty());
        ws.setSnapshot(history.snapshot(11));
        QVERIFY(!ws.overview()->activityHistory().isEmpty());
        history.clear();
        QVERIFY(ws.overview()->activityHistory().isEmpty());
    }

    // One dead host among 2,240 must still show in the host strip: the tile of a slice with one DEAD
    // host has more pixels in the dead colour than the same slice with one MISSING host (both are
    // degraded, so badge, stripe and note dot are identical).
    void deadHostVisibleAmongThousands()
    {
        const Theme t = Theme::light();
        int red[2] = {0, 0};
        for (int i = 0; i < 2; ++i) {
            auto snap = std::make_shared<ClusterSnapshot>();
            snap->slices << hugeSlice(i == 0 ? HostState::Dead : HostState::Missing);
            FleetOverview overview;
            overview.resize(800, 600);
            overview.setTheme(t);
            overview.setSnapshot(snap);
            QCOMPARE(overview.shownSlices(), QStringList{s("v5p-16x20x28-0")});
            const QImage image = renderOf(overview);
            red[i] = countPixels(image, overview.tileRect(s("v5p-16x20x28-0")), t.dead);
        }
        QVERIFY2(red[0] > red[1], qPrintable(QStringLiteral("dead: %1 px, missing: %2 px").arg(red[0]).arg(red[1])));
    }

    void largeFleet()
    {
        const SnapshotPtr big = largeSnapshot(2500);
        QCOMPARE(big->slices.size(), 2500);
        QElapsedTimer timer;
        timer.start();
        FleetOverview overview;
        overview.resize(1920, 1080);
        overview.setSnapshot(big);
        QCOMPARE(overview.shownSlices().size(), 2500); // builds the tiles and lays them out
        const qint64 layout = timer.elapsed();
        timer.restart();
        QImage image(overview.size(), QImage::Format_ARGB32_Premultiplied);
        overview.render(&image);
        const qint64 firstPaint = timer.elapsed();
        QVERIFY(overview.groupTitles().size() >= 40);
        const QString last = overview.shownSlices().last();
        QVERIFY(!overview.rect().intersects(overview.tileRect(last))); // far below: it scrolls

        timer.restart();
        overview.scrollToSlice(last);
        overview.render(&image);
        const qint64 scrolledPaint = timer.elapsed();
        QVERIFY(overview.rect().contains(overview.tileRect(last)));
        QCOMPARE(overview.sliceAt(overview.tileRect(last).center()), last);
        QVERIFY(countPixels(image, overview.tileRect(last), Theme::light().panel) > 1000); // it painted

        timer.restart();
        overview.setFilterText(s("degraded"));
        overview.render(&image);
        const qint64 filteredPaint = timer.elapsed();
        QCOMPARE(overview.shownSlices().size(), 2500 / 7 + (2500 % 7 > 6 ? 1 : 0)); // every 7th is v6e-4x4-3
        qInfo("2,500 slices at 1920x1080 (informational, not asserted): build and lay out %lld ms, paint %lld ms; "
              "scroll to the end and paint %lld ms; filter and paint %lld ms",
              layout, firstPaint, scrolledPaint, filteredPaint);
    }
};

int main(int argc, char **argv)
{
    pinRenderingEnvironment(true);
    QApplication app(argc, argv);
    applyLook(app, Theme::light());
    TestFleetOverview test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_fleetoverview.moc"
