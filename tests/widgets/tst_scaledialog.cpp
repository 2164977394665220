// SPDX-License-Identifier: GPL-3.0-or-later
// The scale dialog against the demo cluster, with demo time driven by the test (no sleeps): the
// live preview (ghosts for new slices, removed ones marked), bounds that make out-of-range values
// impossible, the review with the exact JSON Patch, confirm -> progress -> observed outcome,
// removing a chosen slice; and with fake executors: a source that may not scale says why, and a
// conflict is shown and asked about again, never re-sent by itself.

#include "../model/fleetcapturefixture.h"
#include "democluster.h"
#include "democlusteractions.h"
#include "fleetoverview.h"
#include "mainwindow.h"
#include "scaledialog.h"
#include "workspace.h"

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QMenu>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>

#include <functional>

using namespace slicescope;

namespace {

const QString kGroup = QStringLiteral("ml/tpu-team/v6e-4x4");

// The dialog wired as the window wires it, over a demo source that the test ticks by hand.
struct Rig {
    DemoSource source;
    ScaleDialog dialog;
    DemoClusterActions actions{&source};

    Rig()
    {
        QObject::connect(&source, &Source::captureReceived, &dialog, [this](const Capture &c) { dialog.setSnapshot(buildSnapshot(c)); });
        dialog.setActions(&actions);
        dialog.resize(560, 720);
        dialog.show(); // laid out, so clicks land on the buttons people see
        source.advance(0); // the first capture, without starting the real-time timer
        dialog.setWorkerGroup(kGroup);
    }
    template<typename T>
    T *find(const char *name) const
    { return dialog.findChild<T *>(QLatin1String(name)); }
    QString planText() const { return find<QLabel>("plan")->text(); }
    QString reviewText() const { return find<QPlainTextEdit>("reviewText")->toPlainText(); }
    // Demo time moves in steps, letting queued signals run between them, as ticks would.
    void advance(qint64 ms)
    {
        for (qint64 t = 0; t < ms; t += 250) {
            source.advance(250);
            QCoreApplication::processEvents();
        }
    }
    int demoReplicas()
    {
        const SnapshotPtr snap = buildSnapshot(source.cluster().capture());
        return snap->workerGroups[snap->workerGroupIndex(kGroup)].replicas;
    }
    QStringList demoSlices()
    {
        const SnapshotPtr snap = buildSnapshot(source.cluster().capture());
        return snap->workerGroups[snap->workerGroupIndex(kGroup)].slices;
    }
};

int countKind(const QList<ScaleTile> &tiles, ScaleTile::Kind kind)
{
    return int(std::count_if(tiles.begin(), tiles.end(), [kind](const ScaleTile &t) { return t.kind == kind; }));
}

// An executor the test controls: whether it may scale, and what it answers.
class FakeActions : public ClusterActions
{
public:
    QString reason;
    QList<std::pair<QString, ScalePlan>> calls;

    QString unavailableReason() const override { return {}; }
    QString describeSubmission(const SlicePlacementRequest &) const override { return {}; }
    QString describeRelease(const ClusterSnapshot &, const PlacementGroup &) const override { return {}; }
    bool createdBySliceScope(const ClusterSnapshot &, const PlacementGroup &) const override { return false; }
    void submitSlicePlacementGroup(const QString &, const SlicePlacementRequest &) override { }
    void releasePlacementGroup(const QString &, const QString &, bool) override { }
    QString scaleUnavailableReason(const WorkerGroup &) const override { return reason; }
    void scaleWorkerGroup(const QString &actionId, const ScalePlan &plan) override { calls.append({actionId, plan}); }
    void setReason(const QString &why)
    {
        reason = why;
        Q_EMIT availabilityChanged();
    }
    void conflict(const QStringList &changes)
    {
        Q_EMIT actionConflict(calls.last().first, changes, QStringLiteral("a JSON Patch test failed (422)"));
    }
};

// The demo's cluster with in-tree autoscaling turned on, as KubeRay would show it.
Capture autoscaledCapture()
{
    Capture c = DemoCluster().capture();
    c.kubeRayClusters.replace("\"enableInTreeAutoscaling\":false", "\"enableInTreeAutoscaling\":true");
    return c;
}

// `snap` as a later snapshot would show it after `change`: the slices, hosts and groups edited
// in place (a pod replaced, a host dying, a slice gone), everything else as it was.
SnapshotPtr edited(const SnapshotPtr &snap, const std::function<void(ClusterSnapshot &)> &change)
{
    ClusterSnapshot copy = *snap;
    change(copy);
    return std::make_shared<const ClusterSnapshot>(std::move(copy));
}

void dropSlice(ClusterSnapshot &s, const QString &name)
{
    s.slices.removeAt(s.sliceIndex(name));
    for (WorkerGroup &g : s.workerGroups)
        g.slices.removeAll(name);
    for (PlacementGroup &pg : s.placementGroups)
        pg.slices.removeAll(name);
}

// The dialog over a fixed demo snapshot with an executor that only records what it is sent: the
// test feeds every later snapshot itself.
struct PickerRig {
    FakeActions fake;
    DemoCluster demo;
    ScaleDialog dialog;
    SnapshotPtr first;

    PickerRig()
    {
        dialog.setActions(&fake);
        dialog.resize(560, 720);
        dialog.show();
        first = buildSnapshot(demo.capture());
        dialog.setSnapshot(first);
        dialog.setWorkerGroup(kGroup);
        QTest::mouseClick(find<QRadioButton>("modeRemove"), Qt::LeftButton);
    }
    template<typename T>
    T *find(const char *name) const
    { return dialog.findChild<T *>(QLatin1String(name)); }
    QComboBox *picker() const { return find<QComboBox>("removeSlice"); }
    void choose(const QString &slice) const
    {
        const int row = picker()->findData(slice);
        QVERIFY2(row >= 0, qPrintable(slice));
        picker()->setCurrentIndex(row);
    }
    void review() const { QTest::mouseClick(find<QPushButton>("review"), Qt::LeftButton); }
    void confirm() const { QTest::mouseClick(find<QPushButton>("confirm"), Qt::LeftButton); }
    QString chosen() const { return picker()->currentData().toString(); }
};

QImage grabLaidOut(QWidget &w)
{
    QCoreApplication::processEvents();
    return w.grab().toImage();
}

} // namespace

class TestScaleDialog : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // A fleet of two contexts with the same RayClusters (issue 16): the group offered, planned, reviewed
    // and sent is the chosen context's, a bare name that two contexts have chooses nothing, and the
    // review names the context.
    void aFleetScalesTheChosenContextsGroup()
    {
        const Capture fleet = testfixture::fleetOf({testfixture::twoClusterContext(QStringLiteral("gke_eu")), testfixture::twoClusterContext(QStringLiteral("gke_us"))});
        const SnapshotPtr snap = buildSnapshot(fleet);
        FakeActions actions;
        ScaleDialog dialog;
        dialog.setActions(&actions);
        dialog.resize(560, 720);
        dialog.show();
        dialog.setSnapshot(snap);
        QVERIFY(!dialog.setWorkerGroup(QStringLiteral("team-b/rl/tpu"))); // in two contexts: which is not ours to guess
        QVERIFY(dialog.preselectSlice(QStringLiteral("gke_us:team-b/rl/tpu-0")));
        QCOMPARE(dialog.workerGroup(), QStringLiteral("gke_us:team-b/rl/tpu"));
        auto *groups = dialog.findChild<QComboBox *>(QStringLiteral("workerGroup"));
        QVERIFY2(groups->currentText().contains(QLatin1String("in context gke_us")), qPrintable(groups->currentText()));
        dialog.findChild<QSpinBox *>(QStringLiteral("replicas"))->setValue(2);
        QTest::mouseClick(dialog.findChild<QPushButton *>(QStringLiteral("review")), Qt::LeftButton);
        const QString shown = dialog.findChild<QPlainTextEdit *>(QStringLiteral("reviewText"))->toPlainText();
        QVERIFY2(shown.contains(QLatin1String("JSON Patch to RayCluster team-b/rl in context gke_us")), qPrintable(shown));
        QTest::mouseClick(dialog.findChild<QPushButton *>(QStringLiteral("confirm")), Qt::LeftButton);
        QCOMPARE(actions.calls.size(), 1);
        QCOMPARE(actions.calls.first().second.group.context, QStringLiteral("gke_us"));
        QCOMPARE(actions.calls.first().second.group.qualifiedName(), QStringLiteral("team-b/rl/tpu"));
        QCOMPARE(actions.calls.first().second.toReplicas, 2);

        // The planner itself: a bare name in two contexts is refused with both keys; a key is not.
        const ScalePlan bare = planScale(*snap, ScaleRequest{ScaleRequest::Mode::Replicas, QStringLiteral("team-b/rl/tpu"), 2, 0, 0, {}});
        QVERIFY(!bare.allowed);
        QVERIFY2(bare.refusal.contains(QLatin1String("gke_eu:team-b/rl/tpu or gke_us:team-b/rl/tpu")), qPrintable(bare.refusal));
        const ScalePlan keyed = planScale(*snap, ScaleRequest{ScaleRequest::Mode::Replicas, QStringLiteral("gke_eu:team-b/rl/tpu"), 2, 0, 0, {}});
        QVERIFY2(keyed.allowed, qPrintable(keyed.refusal));
        QCOMPARE(keyed.group.context, QStringLiteral("gke_eu"));
    }

    void stripGeometryWrapsAndHitTests_data()
    {
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("count");
        QTest::addColumn<int>("columns");
        QTest::addColumn<int>("rows");
        QTest::newRow("one row") << 560 << 5 << 5 << 1;
        QTest::newRow("wraps") << 300 << 5 << 2 << 3;
        QTest::newRow("narrower than a tile") << 50 << 3 << 1 << 3;
        QTest::newRow("empty") << 560 << 0 << 5 << 0;
    }
    void stripGeometryWrapsAndHitTests()
    {
        QFETCH(int, width);
        QFETCH(int, count);
        QFETCH(int, columns);
        QFETCH(int, rows);
        const ScaleStripGeometry geo{width, count};
        QCOMPARE(geo.columns(), columns);
        QCOMPARE(geo.rows(), rows);
        for (int i = 0; i < count; ++i) {
            const QRect r = geo.tileRect(i);
            QCOMPARE(geo.tileAt(r.center()), i);
            QVERIFY(r.bottom() < geo.height());
        }
        QCOMPARE(geo.tileAt(QPoint(1, 1)), -1); // the margin
    }

    void plusOneShowsOneGhost()
    {
        Rig rig;
        QCOMPARE(rig.dialog.workerGroup(), kGroup);
        auto *replicas = rig.find<QSpinBox>("replicas");
        QCOMPARE(replicas->value(), 4);
        QVERIFY(!replicas->isReadOnly());
        QVERIFY(rig.find<QLabel>("current")->text().contains(QLatin1String("4 slices x 4 hosts x 4 chips = 64 chips")));
        QVERIFY(rig.dialog.plan().noChange);
        QVERIFY(!rig.find<QPushButton>("review")->isEnabled()); // nothing to review yet

        replicas->setValue(5);
        const ScalePlan &plan = rig.dialog.plan();
        QVERIFY2(plan.allowed, qPrintable(plan.refusal));
        QCOMPARE(plan.slicesAdded, 1);
        const QString summary = QStringLiteral("ml/tpu-team/v6e-4x4: 4 slices x 4 hosts x 4 chips = 64 chips -> 5 slices x 4 hosts x 4 chips = 80 chips");
        QCOMPARE(plan.summary, summary);
        QVERIFY2(rig.planText().contains(summary.toHtmlEscaped()), qPrintable(rig.planText()));
        const QList<ScaleTile> &tiles = rig.find<ScalePreviewStrip>("previewStrip")->tiles();
        QCOMPARE(tiles.size(), 5);
        QCOMPARE(countKind(tiles, ScaleTile::Kind::Added), 1);
        QCOMPARE(countKind(tiles, ScaleTile::Kind::Removed), 0);
        QCOMPARE(tiles.first().name, QStringLiteral("v6e-4x4-0"));
        QCOMPARE(tiles.first().status, SliceStatus::Reserved);
        QCOMPARE(tiles.at(3).status, SliceStatus::Degraded);
        QVERIFY(rig.find<QPushButton>("review")->isEnabled());

        // Going down marks the slices that go: the degraded one first, then the highest ready one.
        replicas->setValue(2);
        QCOMPARE(rig.dialog.plan().slicesRemoved, (QStringList{QStringLiteral("v6e-4x4-3"), QStringLiteral("v6e-4x4-2")}));
        const QList<ScaleTile> &down = rig.find<ScalePreviewStrip>("previewStrip")->tiles();
        QCOMPARE(countKind(down, ScaleTile::Kind::Removed), 2);
        QCOMPARE(countKind(down, ScaleTile::Kind::Added), 0);
    }

    void outOfRangeIsImpossibleOrRefused()
    {
        Rig rig;
        auto *replicas = rig.find<QSpinBox>("replicas");
        QCOMPARE(replicas->minimum(), 0);
        QCOMPARE(replicas->maximum(), 6); // maxReplicas
        replicas->setValue(7);
        QCOMPARE(replicas->value(), 6);
        replicas->selectAll();
        QTest::keyClicks(replicas, QStringLiteral("9"));
        QVERIFY(replicas->value() <= 6);
        // Bounds are the cluster's: read-only for a group without in-tree autoscaling.
        QVERIFY(rig.find<QSpinBox>("minReplicas")->isReadOnly());
        QVERIFY(rig.find<QSpinBox>("maxReplicas")->isReadOnly());
        QVERIFY(rig.find<QLabel>("autoscalerNote")->isHidden());

        // A removal while another is still in progress is refused, in red, with the reason.
        rig.find<QRadioButton>("modeRemove")->setChecked(true);
        auto *slice = rig.find<QComboBox>("removeSlice");
        slice->setCurrentIndex(slice->findData(QStringLiteral("v6e-4x4-1")));
        QVERIFY(rig.dialog.plan().allowed);
        QVERIFY(rig.source.cluster().removeSlice(QStringLiteral("v6e-4x4-2")).ok); // someone else, meanwhile
        rig.source.advance(0);
        QVERIFY(!rig.dialog.plan().allowed);
        QVERIFY2(rig.planText().contains(QLatin1String("Refused")) && rig.planText().contains(QLatin1String("a removal is still in progress")),
                 qPrintable(rig.planText()));
        QVERIFY(!rig.find<QPushButton>("review")->isEnabled());
    }

    void reviewShowsThePatchAndSendsNothing()
    {
        Rig rig;
        QSignalSpy finished(&rig.actions, &ClusterActions::actionFinished);
        rig.find<QSpinBox>("replicas")->setValue(5);
        QTest::mouseClick(rig.find<QPushButton>("review"), Qt::LeftButton);
        QVERIFY(rig.dialog.isReviewing());
        QVERIFY(rig.find<QWidget>("reviewArea")->isVisible());
        const QString text = rig.reviewText();
        const QString title = rig.find<QLabel>("reviewTitle")->text();
        QVERIFY2(title.contains(rig.dialog.plan().summary.toHtmlEscaped()), qPrintable(title));
        QVERIFY2(text.contains(QLatin1String("replicas 4 -> 5")), qPrintable(text));
        QVERIFY2(text.contains(QLatin1String(R"({"op":"test","path":"/spec/workerGroupSpecs/0/groupName","value":"v6e-4x4"})")), qPrintable(text));
        QVERIFY2(text.contains(QLatin1String(R"({"op":"test","path":"/spec/workerGroupSpecs/0/replicas","value":4})")), qPrintable(text));
        QVERIFY2(text.contains(QLatin1String(R"({"op":"add","path":"/spec/workerGroupSpecs/0/replicas","value":5})")), qPrintable(text));
        auto *confirm = rig.find<QPushButton>("confirm");
        QCOMPARE(confirm->text(), QStringLiteral("Scale to 5 slices"));
        QVERIFY(confirm->isEnabled());
        // The request is held while it is under review.
        QVERIFY(!rig.find<QSpinBox>("replicas")->isEnabled());
        QVERIFY(!rig.find<QPushButton>("review")->isEnabled());

        rig.advance(2000); // snapshots arrive; nothing is sent without the click
        QVERIFY(rig.dialog.isReviewing());
        QCOMPARE(rig.demoReplicas(), 4);
        QTest::mouseClick(rig.find<QPushButton>("cancel"), Qt::LeftButton);
        QVERIFY(!rig.dialog.isReviewing());
        QVERIFY(rig.find<QSpinBox>("replicas")->isEnabled());
        QCoreApplication::processEvents();
        QVERIFY(finished.isEmpty());
        QCOMPARE(rig.demoReplicas(), 4);
    }

    void confirmScalesTheDemoAndReportsTheOutcome()
    {
        Rig rig;
        QSignalSpy progress(&rig.actions, &ClusterActions::actionProgress);
        QSignalSpy finished(&rig.actions, &ClusterActions::actionFinished);
        QSignalSpy status(&rig.dialog, &ScaleDialog::actionStatusChanged);
        rig.find<QSpinBox>("replicas")->setValue(5);
        QTest::mouseClick(rig.find<QPushButton>("review"), Qt::LeftButton);
        QTest::mouseClick(rig.find<QPushButton>("confirm"), Qt::LeftButton);
        QVERIFY(rig.dialog.isRunning());
        QVERIFY(!rig.dialog.isReviewing());
        QCOMPARE(rig.demoReplicas(), 5); // the demo's operator took it at once...
        QVERIFY(progress.isEmpty());     // ...and signals never arrive from inside the call
        QCoreApplication::processEvents();
        QVERIFY(!progress.isEmpty());

        rig.advance(DemoCluster::kPodStartDelay); // pods running, not yet in Ray
        QVERIFY(finished.isEmpty());
        const QString log = rig.find<QPlainTextEdit>("progressLog")->toPlainText();
        QVERIFY2(log.contains(QLatin1String("v6e-4x4-4: 0 of 4 hosts up")), qPrintable(log));
        QVERIFY2(rig.dialog.messageText().contains(QLatin1String("4 of 5 slices")), qPrintable(rig.dialog.messageText()));

        rig.advance(DemoCluster::kRayJoinDelay + 500);
        QCOMPARE(finished.size(), 1);
        QVERIFY2(finished.at(0).at(1).toBool(), qPrintable(finished.at(0).at(2).toString()));
        QVERIFY(!rig.dialog.isRunning());
        const QString outcome = rig.dialog.messageText();
        QVERIFY2(outcome.contains(QLatin1String("now has 5 slices x 4 hosts x 4 chips = 80 chips"))
                     && outcome.contains(QLatin1String("v6e-4x4-4 joined Ray")),
                 qPrintable(outcome));
        QVERIFY(!status.isEmpty());
        // The controls start again from the group as it is now.
        QCOMPARE(rig.find<QSpinBox>("replicas")->value(), 5);
        QVERIFY(rig.dialog.plan().noChange);
        rig.advance(2000);
        QCOMPARE(finished.size(), 1); // reported once
    }

    void removeAChosenSlice()
    {
        Rig rig;
        QSignalSpy finished(&rig.actions, &ClusterActions::actionFinished);
        rig.find<QRadioButton>("modeRemove")->setChecked(true);
        auto *slice = rig.find<QComboBox>("removeSlice");
        QCOMPARE(slice->count(), 4);
        // The one holding llm-train: the preview names who loses their hosts.
        slice->setCurrentIndex(slice->findData(QStringLiteral("v6e-4x4-0")));
        QCOMPARE(rig.dialog.plan().displacedGroups.size(), 2); // the slice group and its head reservation
        QVERIFY2(rig.planText().contains(QLatin1String("llm-train")), qPrintable(rig.planText()));

        slice->setCurrentIndex(slice->findData(QStringLiteral("v6e-4x4-1")));
        const ScalePlan &plan = rig.dialog.plan();
        QVERIFY2(plan.allowed, qPrintable(plan.refusal));
        QCOMPARE(plan.slicesRemoved, QStringList{QStringLiteral("v6e-4x4-1")});
        QCOMPARE(plan.podsToDelete.size(), 4);
        const QList<ScaleTile> &tiles = rig.find<ScalePreviewStrip>("previewStrip")->tiles();
        QCOMPARE(countKind(tiles, ScaleTile::Kind::Removed), 1);
        QCOMPARE(tiles.at(1).kind, ScaleTile::Kind::Removed);

        QTest::mouseClick(rig.find<QPushButton>("review"), Qt::LeftButton);
        QCOMPARE(rig.find<QPushButton>("confirm")->text(), QStringLiteral("Remove slice v6e-4x4-1"));
        const QString text = rig.reviewText();
        QVERIFY2(text.contains(QLatin1String(R"({"op":"add","path":"/spec/workerGroupSpecs/0/replicas","value":3})")), qPrintable(text));
        QVERIFY2(text.contains(QLatin1String(R"("path":"/spec/workerGroupSpecs/0/scaleStrategy","value":{"workersToDelete":[)")), qPrintable(text));
        QVERIFY2(text.contains(plan.podsToDelete.first()), qPrintable(text));
        QTest::mouseClick(rig.find<QPushButton>("confirm"), Qt::LeftButton);
        rig.advance(DemoCluster::kPodStopDelay + 1000);
        QCOMPARE(finished.size(), 1);
        QVERIFY2(finished.at(0).at(1).toBool(), qPrintable(finished.at(0).at(2).toString()));
        QVERIFY2(rig.dialog.messageText().contains(QLatin1String("v6e-4x4-1 removed")), qPrintable(rig.dialog.messageText()));
        // That slice went, and no other: the degraded one KubeRay might have picked is still there.
        QCOMPARE(rig.demoSlices(), (QStringList{QStringLiteral("v6e-4x4-0"), QStringLiteral("v6e-4x4-2"), QStringLiteral("v6e-4x4-3")}));
    }

    void preselectsTheSliceBeingLookedAt()
    {
        Rig rig;
        QVERIFY(rig.dialog.preselectSlice(QStringLiteral("v6e-4x4-2")));
        QCOMPARE(rig.find<QComboBox>("removeSlice")->currentData().toString(), QStringLiteral("v6e-4x4-2"));
        // The v4 slice is held by a placement group: its group comes up, the slice is not chosen.
        QVERIFY(rig.dialog.preselectSlice(QStringLiteral("v4-2x2x2-0")));
        QCOMPARE(rig.dialog.workerGroup(), QStringLiteral("ml/tpu-team/v4-2x2x2"));
        QCOMPARE(rig.find<QComboBox>("removeSlice")->currentData().toString(), QString());
        QVERIFY2(rig.dialog.messageText().startsWith(QLatin1String("v4-2x2x2-0 is not preselected for removal")), qPrintable(rig.dialog.messageText()));
        QCOMPARE(rig.find<QSpinBox>("replicas")->value(), 1);
        QCOMPARE(rig.find<QSpinBox>("replicas")->maximum(), 2);
        QVERIFY(!rig.dialog.preselectSlice(QStringLiteral("no-such-slice")));
    }

    void autoscaledGroupsEditBoundsInstead()
    {
        ScaleDialog dialog;
        dialog.setActions(nullptr, QStringLiteral("capture x.slicescope.json is a recording: it cannot be changed"));
        dialog.show();
        dialog.setSnapshot(buildSnapshot(autoscaledCapture()));
        QVERIFY(dialog.setWorkerGroup(kGroup));
        auto *replicas = dialog.findChild<QSpinBox *>(QStringLiteral("replicas"));
        auto *max = dialog.findChild<QSpinBox *>(QStringLiteral("maxReplicas"));
        QVERIFY(replicas->isReadOnly());
        QVERIFY(!dialog.findChild<QLabel *>(QStringLiteral("autoscalerNote"))->isHidden());
        QVERIFY(!max->isReadOnly());
        QCOMPARE(dialog.request().mode, ScaleRequest::Mode::Bounds);
        max->setValue(3);
        QVERIFY2(dialog.plan().allowed, qPrintable(dialog.plan().refusal));
        QCOMPARE(dialog.plan().toMax, 3);
        QCOMPARE(dialog.plan().slicesRemoved.size(), 1); // the autoscaler's, SliceScope's guess
        QVERIFY(dialog.plan().podsToDelete.isEmpty());
        dialog.resize(560, 720);
        QVERIFY(grabLaidOut(dialog).save(QDir::tempPath() + QStringLiteral("/scaledialog-autoscaled.png")));
        // The what-if answers; sending is off, and says why.
        QVERIFY(!dialog.findChild<QPushButton *>(QStringLiteral("review"))->isEnabled());
        QVERIFY2(dialog.unavailableText().contains(QLatin1String("recording")), qPrintable(dialog.unavailableText()));
        // Removing one chosen slice is the autoscaler's business here.
        dialog.findChild<QRadioButton *>(QStringLiteral("modeRemove"))->setChecked(true);
        QVERIFY(!dialog.plan().allowed);
        QVERIFY(dialog.plan().refusal.contains(QLatin1String("autoscaler")));
    }

    void unavailableDisablesSendingAndSaysWhy()
    {
        FakeActions fake;
        const QString rbac = QStringLiteral("your Kubernetes user may not patch rayclusters.ray.io in namespace ml (RBAC)");
        fake.reason = rbac;
        ScaleDialog dialog;
        dialog.setActions(&fake);
        dialog.show();
        dialog.setSnapshot(buildSnapshot(DemoCluster().capture()));
        dialog.setWorkerGroup(kGroup);
        auto *review = dialog.findChild<QPushButton *>(QStringLiteral("review"));
        auto *confirm = dialog.findChild<QPushButton *>(QStringLiteral("confirm"));
        dialog.findChild<QSpinBox *>(QStringLiteral("replicas"))->setValue(5);
        QVERIFY(dialog.plan().allowed); // the preview still answers
        QVERIFY(!review->isEnabled());
        QCOMPARE(review->toolTip(), rbac);
        QVERIFY(!dialog.findChild<QLabel *>(QStringLiteral("unavailable"))->isHidden());
        QVERIFY2(dialog.unavailableText().contains(rbac), qPrintable(dialog.unavailableText()));

        fake.setReason({}); // the RBAC check came back allowed
        QVERIFY(dialog.unavailableText().isEmpty());
        QVERIFY(review->isEnabled());
        QTest::mouseClick(review, Qt::LeftButton);
        QVERIFY(confirm->isEnabled());
        fake.setReason(rbac); // and was withdrawn while the review was open
        QVERIFY(!confirm->isEnabled());
        QCOMPARE(confirm->toolTip(), rbac);
        QTest::mouseClick(confirm, Qt::LeftButton);
        QVERIFY(fake.calls.isEmpty());
        QVERIFY(dialog.unavailableText().contains(rbac));
    }

    void aConflictIsShownAndAskedAgain()
    {
        FakeActions fake;
        DemoCluster demo;
        ScaleDialog dialog;
        dialog.setActions(&fake);
        dialog.resize(560, 720);
        dialog.show();
        dialog.setSnapshot(buildSnapshot(demo.capture()));
        dialog.setWorkerGroup(kGroup);
        dialog.findChild<QSpinBox *>(QStringLiteral("replicas"))->setValue(6);
        QTest::mouseClick(dialog.findChild<QPushButton *>(QStringLiteral("review")), Qt::LeftButton);
        auto *confirm = dialog.findChild<QPushButton *>(QStringLiteral("confirm"));
        QTest::mouseClick(confirm, Qt::LeftButton);
        QCOMPARE(fake.calls.size(), 1);
        QCOMPARE(fake.calls.at(0).second.fromReplicas, 4);
        QCOMPARE(fake.calls.at(0).second.toReplicas, 6);
        QVERIFY(dialog.isRunning());

        // Someone else scaled to 5 between the preview and the patch.
        fake.conflict({QStringLiteral("replicas 4 -> 5")});
        QVERIFY(!dialog.isRunning());
        QVERIFY2(dialog.messageText().contains(QLatin1String("replicas 4 -> 5 (someone else changed it)")), qPrintable(dialog.messageText()));
        QVERIFY(dialog.isReviewing());
        QVERIFY(confirm->isVisible());
        QVERIFY(confirm->isEnabled());
        QVERIFY(dialog.findChild<QLabel *>(QStringLiteral("reviewTitle"))->text().contains(QLatin1String("Someone else changed the group")));
        QCoreApplication::processEvents();
        QCOMPARE(fake.calls.size(), 1); // never re-sent by itself

        // The newest snapshot shows their change: the review follows it, and still waits.
        QVERIFY(demo.scaleWorkerGroup(kGroup, 5).ok);
        dialog.setSnapshot(buildSnapshot(demo.capture()));
        QVERIFY(dialog.isReviewing());
        QCOMPARE(confirm->text(), QStringLiteral("Scale to 6 slices"));
        const QString text = dialog.findChild<QPlainTextEdit *>(QStringLiteral("reviewText"))->toPlainText();
        QVERIFY2(text.contains(QLatin1String(R"({"op":"test","path":"/spec/workerGroupSpecs/0/replicas","value":5})")), qPrintable(text));
        QVERIFY2(dialog.findChild<QLabel *>(QStringLiteral("reviewTitle"))->text().contains(QLatin1String("replicas 4 -&gt; 5")),
                 qPrintable(dialog.findChild<QLabel *>(QStringLiteral("reviewTitle"))->text()));
        QCoreApplication::processEvents();
        QCOMPARE(fake.calls.size(), 1);

        QVERIFY(grabLaidOut(dialog).save(QDir::tempPath() + QStringLiteral("/scaledialog-conflict.png")));
        QTest::mouseClick(confirm, Qt::LeftButton); // asked again, confirmed again
        QCOMPARE(fake.calls.size(), 2);
        QCOMPARE(fake.calls.at(1).second.fromReplicas, 5);
        QCOMPARE(fake.calls.at(1).second.toReplicas, 6);
    }

    void theDemoRefusesABoundsChangeAndReportsConflicts()
    {
        DemoSource source;
        DemoClusterActions actions(&source);
        source.advance(0);
        QSignalSpy finished(&actions, &ClusterActions::actionFinished);
        QSignalSpy conflicts(&actions, &ClusterActions::actionConflict);
        const SnapshotPtr snap = buildSnapshot(source.cluster().capture());
        const WorkerGroup &g = snap->workerGroups[snap->workerGroupIndex(kGroup)];
        QVERIFY(actions.scaleUnavailableReason(g).isEmpty());

        ScaleRequest bounds{ScaleRequest::Mode::Bounds, kGroup, 0, 1, 6, {}};
        actions.scaleWorkerGroup(QStringLiteral("b"), planScale(*snap, bounds));
        QTRY_COMPARE(finished.size(), 1);
        QVERIFY(!finished.at(0).at(1).toBool());
        QVERIFY2(finished.at(0).at(2).toString().contains(QLatin1String("no autoscaler")), qPrintable(finished.at(0).at(2).toString()));

        // A plan made before someone else's change is not applied: the demo checks like the patch's tests.
        const ScalePlan stale = planScale(*snap, ScaleRequest{ScaleRequest::Mode::Replicas, kGroup, 6, 0, 0, {}});
        QVERIFY(source.cluster().scaleWorkerGroup(kGroup, 5).ok);
        actions.scaleWorkerGroup(QStringLiteral("c"), stale);
        QTRY_COMPARE(conflicts.size(), 1);
        QCOMPARE(conflicts.at(0).at(1).toStringList(), QStringList{QStringLiteral("replicas 4 -> 5")});
        QCOMPARE(finished.size(), 1);
        QCOMPARE(buildSnapshot(source.cluster().capture())->workerGroups[snap->workerGroupIndex(kGroup)].replicas, 5);
    }

    void thePickerStartsWithNoSliceChosen()
    {
        PickerRig rig;
        QVERIFY(rig.find<QWidget>("removeSlice")->isVisible());
        QCOMPARE(rig.picker()->currentIndex(), -1); // not the first row (v6e-4x4-0, which llm-train holds)
        QCOMPARE(rig.chosen(), QString());
        QVERIFY(rig.dialog.request().slice.isEmpty());
        QVERIFY(!rig.dialog.plan().allowed);
        QVERIFY(!rig.find<QPushButton>("review")->isEnabled());
        QVERIFY2(rig.find<QLabel>("plan")->text().contains(QLatin1String("No slice chosen")), qPrintable(rig.find<QLabel>("plan")->text()));
        QVERIFY(grabLaidOut(rig.dialog).save(QDir::tempPath() + QStringLiteral("/scaledialog-remove-none-chosen.png")));

        // Another group and back: nothing is picked on the way.
        QVERIFY(rig.dialog.setWorkerGroup(QStringLiteral("ml/tpu-team/v4-2x2x2")));
        QCOMPARE(rig.chosen(), QString());
        rig.choose(QStringLiteral("v4-2x2x2-0"));
        QVERIFY(rig.dialog.setWorkerGroup(kGroup));
        QCOMPARE(rig.chosen(), QString());
        QVERIFY(!rig.find<QPushButton>("review")->isEnabled());
    }

    void aHeldSliceIsNeverPreselected()
    {
        PickerRig rig;
        // Looking at the slice llm-train holds: its group comes up, the slice is not chosen for removal.
        QVERIFY(rig.dialog.preselectSlice(QStringLiteral("v6e-4x4-0")));
        QCOMPARE(rig.dialog.workerGroup(), kGroup);
        QCOMPARE(rig.chosen(), QString());
        QVERIFY2(rig.dialog.messageText().contains(QLatin1String("v6e-4x4-0 is not preselected for removal: placement group"))
                     && rig.dialog.messageText().contains(QLatin1String("llm-train")),
                 qPrintable(rig.dialog.messageText()));
        // Its unnamed head reservation is named by what it is, not by a 36-digit id.
        QVERIFY2(rig.dialog.messageText().contains(QLatin1String("head of llm-train (")), qPrintable(rig.dialog.messageText()));
        QVERIFY(!rig.find<QPushButton>("review")->isEnabled());
        // Chosen by hand it may still be removed, and the note goes.
        rig.choose(QStringLiteral("v6e-4x4-0"));
        QVERIFY(rig.dialog.plan().allowed);
        QVERIFY(rig.dialog.messageText().isEmpty());
        // An idle slice is preselected.
        QVERIFY(rig.dialog.preselectSlice(QStringLiteral("v6e-4x4-2")));
        QCOMPARE(rig.chosen(), QStringLiteral("v6e-4x4-2"));
    }

    void aSliceThatVanishesMidReviewDisarmsIt()
    {
        PickerRig rig;
        rig.choose(QStringLiteral("v6e-4x4-1"));
        rig.review();
        QVERIFY(rig.dialog.isReviewing());
        QCOMPARE(rig.find<QPushButton>("confirm")->text(), QStringLiteral("Remove slice v6e-4x4-1"));

        // Its pods went (someone deleted them) before KubeRay made new ones: the slice is gone.
        rig.dialog.setSnapshot(edited(rig.first, [](ClusterSnapshot &s) { dropSlice(s, QStringLiteral("v6e-4x4-1")); }));
        QVERIFY(!rig.dialog.isReviewing());
        QVERIFY(!rig.find<QWidget>("reviewArea")->isVisible());
        QVERIFY(!rig.find<QPushButton>("confirm")->isEnabled());
        QCOMPARE(rig.dialog.messageText(), QStringLiteral("v6e-4x4-1 vanished from the cluster while you reviewed its removal; choose again"));
        // The choice is cleared, not moved to the slice now in its row.
        QCOMPARE(rig.picker()->currentIndex(), -1);
        QCOMPARE(rig.chosen(), QString());
        QVERIFY(rig.dialog.request().slice.isEmpty());
        QVERIFY(!rig.find<QPushButton>("review")->isEnabled());
        rig.confirm();
        QCoreApplication::processEvents();
        QVERIFY(rig.fake.calls.isEmpty());
        QVERIFY(grabLaidOut(rig.dialog).save(QDir::tempPath() + QStringLiteral("/scaledialog-vanished.png")));

        // It comes back under the same name: still no choice until the operator makes one.
        rig.dialog.setSnapshot(rig.first);
        QCOMPARE(rig.chosen(), QString());
        QVERIFY(rig.fake.calls.isEmpty());
    }

    void aSliceThatChangesMidReviewDisarmsIt_data()
    {
        QTest::addColumn<QString>("what");
        QTest::addColumn<QString>("says");
        QTest::newRow("a host died") << QStringLiteral("host") << QStringLiteral("-> [worker 2 DEAD, pod ");
        QTest::newRow("its pod was replaced") << QStringLiteral("pod") << QStringLiteral("pods ");
        QTest::newRow("a placement group took it") << QStringLiteral("pg") << QStringLiteral("state ready -> reserved; placement groups none -> ");
    }
    void aSliceThatChangesMidReviewDisarmsIt()
    {
        QFETCH(QString, what);
        QFETCH(QString, says);
        PickerRig rig;
        rig.choose(QStringLiteral("v6e-4x4-1"));
        rig.review();
        QVERIFY(rig.dialog.isReviewing());
        QVERIFY(rig.find<QPushButton>("confirm")->isEnabled());

        SnapshotPtr next;
        if (what == QLatin1String("pg")) {
            // Someone reserved it meanwhile: the real demo places their group on the idle slice.
            SlicePlacementRequest r;
            r.accelerator = QStringLiteral("v6e");
            r.topology = QStringLiteral("4x4");
            r.name = QStringLiteral("other-team");
            QVERIFY(rig.demo.submitSlicePlacementGroup(r).ok);
            rig.demo.advance(DemoCluster::kHeadReserveDelay + DemoCluster::kSliceReserveDelay + 500);
            next = buildSnapshot(rig.demo.capture());
            const PlacementGroup &pg = next->placementGroups[next->placementGroupIndex(QStringLiteral("other-team"))];
            QCOMPARE(pg.slices, QStringList{QStringLiteral("v6e-4x4-1")});
        } else {
            next = edited(rig.first, [what](ClusterSnapshot &s) {
                Host &h = s.slices[s.sliceIndex(QStringLiteral("v6e-4x4-1"))].hosts[2];
                if (what == QLatin1String("host")) {
                    h.state = HostState::Dead;
                } else {
                    Pod replacement = s.pods[h.pod];
                    replacement.name += QStringLiteral("-new");
                    s.pods.append(replacement);
                    s.pods[h.pod].replicaKey.clear(); // the old one belongs to nobody now
                    h.pod = int(s.pods.size()) - 1;
                }
            });
        }
        rig.dialog.setSnapshot(next);
        QVERIFY(!rig.dialog.isReviewing());
        QVERIFY(!rig.find<QPushButton>("confirm")->isEnabled());
        const QString message = rig.dialog.messageText();
        QVERIFY2(message.startsWith(QLatin1String("v6e-4x4-1 changed while you reviewed its removal (")) && message.contains(says)
                     && (what != QLatin1String("pg") || message.contains(QLatin1String("other-team")))
                     && message.endsWith(QLatin1String("nothing was sent. Choose again")),
                 qPrintable(message));
        QCOMPARE(rig.chosen(), QString());
        rig.confirm();
        QCoreApplication::processEvents();
        QVERIFY(rig.fake.calls.isEmpty());
    }

    void theChoiceFollowsTheNameWhenRowsReorder()
    {
        PickerRig rig;
        rig.choose(QStringLiteral("v6e-4x4-1"));
        const int row = rig.picker()->currentIndex();
        QCOMPARE(row, 1);
        rig.review();
        // The same cluster, the group's slices listed the other way round: v6e-4x4-2 sits in row 1.
        rig.dialog.setSnapshot(edited(rig.first, [](ClusterSnapshot &s) {
            QStringList &slices = s.workerGroups[s.workerGroupIndex(kGroup)].slices;
            std::reverse(slices.begin(), slices.end());
        }));
        QCOMPARE(rig.picker()->itemData(row).toString(), QStringLiteral("v6e-4x4-2"));
        QCOMPARE(rig.chosen(), QStringLiteral("v6e-4x4-1"));
        QVERIFY(rig.picker()->currentText().startsWith(QLatin1String("v6e-4x4-1")));
        QVERIFY(rig.dialog.isReviewing());
        QCOMPARE(rig.find<QPushButton>("confirm")->text(), QStringLiteral("Remove slice v6e-4x4-1"));
        rig.confirm();
        QCOMPARE(rig.fake.calls.size(), 1);
        const ScalePlan &sent = rig.fake.calls.at(0).second;
        QCOMPARE(sent.slicesRemoved, QStringList{QStringLiteral("v6e-4x4-1")});
        QCOMPARE(sent.podsToDelete.size(), 4);
        for (const QString &pod : sent.podsToDelete)
            QVERIFY2(pod.contains(QLatin1String("v6e-4x4")), qPrintable(pod));
        const Slice &s = rig.first->slices[rig.first->sliceIndex(QStringLiteral("v6e-4x4-1"))];
        QStringList pods;
        for (const Host &h : s.hosts)
            pods << rig.first->pods[h.pod].name;
        pods.sort();
        QCOMPARE(sent.podsToDelete, pods);
    }

    void aChangeWhileNotReviewingClearsTheChoiceToo()
    {
        PickerRig rig;
        rig.choose(QStringLiteral("v6e-4x4-2"));
        QVERIFY(rig.dialog.plan().allowed);
        rig.dialog.setSnapshot(edited(rig.first, [](ClusterSnapshot &s) { dropSlice(s, QStringLiteral("v6e-4x4-2")); }));
        QCOMPARE(rig.chosen(), QString());
        QCOMPARE(rig.dialog.messageText(), QStringLiteral("v6e-4x4-2 vanished from the cluster while it was chosen for removal; choose again"));
        QVERIFY(!rig.find<QPushButton>("review")->isEnabled());
    }

    void theDemoRefusesARemovalWhoseSliceChanged()
    {
        // The executor checks again right before it acts: a plan reviewed on an older snapshot
        // whose slice has changed since is refused, and the cluster is left alone.
        DemoSource source;
        DemoClusterActions actions(&source);
        source.advance(0);
        QSignalSpy conflicts(&actions, &ClusterActions::actionConflict);
        QSignalSpy finished(&actions, &ClusterActions::actionFinished);
        const SnapshotPtr snap = buildSnapshot(source.cluster().capture());
        const ScalePlan stale = planScale(*snap, ScaleRequest{ScaleRequest::Mode::RemoveSlice, kGroup, 0, 0, 0, QStringLiteral("v6e-4x4-1")});
        QVERIFY2(stale.allowed, qPrintable(stale.refusal));
        SlicePlacementRequest r;
        r.accelerator = QStringLiteral("v6e");
        r.topology = QStringLiteral("4x4");
        r.name = QStringLiteral("other-team");
        QVERIFY(source.cluster().submitSlicePlacementGroup(r).ok);
        source.advance(DemoCluster::kHeadReserveDelay + DemoCluster::kSliceReserveDelay + 500);
        actions.scaleWorkerGroup(QStringLiteral("r"), stale);
        QTRY_COMPARE(conflicts.size(), 1);
        const QStringList changes = conflicts.at(0).at(1).toStringList();
        QCOMPARE(changes.size(), 1);
        QVERIFY2(changes.first().startsWith(QLatin1String("v6e-4x4-1 changed: ")) && changes.first().contains(QLatin1String("other-team")),
                 qPrintable(changes.first()));
        QVERIFY(finished.isEmpty());
        QCOMPARE(buildSnapshot(source.cluster().capture())->workerGroups[snap->workerGroupIndex(kGroup)].replicas, 4);
    }

    void renderForPeople()
    {
        // Not a pass/fail check: writes the dialog as people see it, to look at.
        Rig rig;
        rig.find<QSpinBox>("replicas")->setValue(6);
        QVERIFY(grabLaidOut(rig.dialog).save(QDir::tempPath() + QStringLiteral("/scaledialog-grow.png")));
        rig.find<QRadioButton>("modeRemove")->setChecked(true);
        auto *slice = rig.find<QComboBox>("removeSlice");
        slice->setCurrentIndex(slice->findData(QStringLiteral("v6e-4x4-0")));
        QVERIFY(grabLaidOut(rig.dialog).save(QDir::tempPath() + QStringLiteral("/scaledialog-remove.png")));
        QTest::mouseClick(rig.find<QPushButton>("review"), Qt::LeftButton);
        QVERIFY(grabLaidOut(rig.dialog).save(QDir::tempPath() + QStringLiteral("/scaledialog-review.png")));
        QTest::mouseClick(rig.find<QPushButton>("confirm"), Qt::LeftButton);
        rig.advance(500);
        QVERIFY(grabLaidOut(rig.dialog).save(QDir::tempPath() + QStringLiteral("/scaledialog-running.png")));
    }

    void theWindowOffersIt()
    {
        MainWindow window(MainWindow::Mode::Screenshot);
        QAction *scale = window.findChild<QAction *>(QStringLiteral("scaleWorkerGroupAction"));
        QVERIFY(scale);
        QVERIFY(!scale->isEnabled()); // no source, no groups
        QCOMPARE(scale->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
        window.setSource(std::make_unique<DemoSource>());
        QTRY_VERIFY(window.snapshot());
        QVERIFY(scale->isEnabled());
        window.resize(1280, 800);
        window.show();
        QVERIFY(window.workspace()->showSlice(QStringLiteral("v6e-4x4-2")));
        scale->trigger();
        ScaleDialog *dialog = window.scaleDialog();
        QVERIFY(dialog);
        QVERIFY(dialog->isVisible());
        QCOMPARE(dialog->workerGroup(), kGroup);
        QCOMPARE(dialog->findChild<QComboBox *>(QStringLiteral("removeSlice"))->currentData().toString(), QStringLiteral("v6e-4x4-2"));
        QVERIFY(dialog->unavailableText().isEmpty());
        dialog->close();

        // The overview's tiles offer it for their own group.
        FleetOverview *overview = window.workspace()->overview();
        window.workspace()->showPage(Workspace::Page::Overview);
        QCoreApplication::processEvents();
        const QRect tile = overview->tileRect(QStringLiteral("v4-2x2x2-0"));
        QVERIFY(tile.isValid());
        Q_EMIT overview->customContextMenuRequested(tile.center());
        QMenu *menu = nullptr;
        for (QMenu *m : window.findChildren<QMenu *>())
            if (m->isVisible() && m->actions().size() == 1)
                menu = m;
        QVERIFY(menu);
        QCOMPARE(menu->actions().first()->text(), QStringLiteral("Scale worker group v4-2x2x2..."));
        menu->actions().first()->trigger();
        QVERIFY(dialog->isVisible());
        QCOMPARE(dialog->workerGroup(), QStringLiteral("ml/tpu-team/v4-2x2x2"));
        // A placement group holds that slice: the picker starts empty and says why.
        QCOMPARE(dialog->findChild<QComboBox *>(QStringLiteral("removeSlice"))->currentData().toString(), QString());
        QVERIFY2(dialog->messageText().startsWith(QLatin1String("v4-2x2x2-0 is not preselected for removal")), qPrintable(dialog->messageText()));
        menu->close();

        // A recording cannot be changed: the dialog still previews, and says why it cannot send.
        window.setSource(std::make_unique<StaticSource>(DemoCluster().capture(), QStringLiteral("capture demo.slicescope.json")));
        QTRY_VERIFY(window.snapshot() && !window.clusterActions());
        QVERIFY2(dialog->unavailableText().contains(QLatin1String("recording")), qPrintable(dialog->unavailableText()));
        dialog->findChild<QSpinBox *>(QStringLiteral("replicas"))->setValue(5);
        QVERIFY(dialog->plan().allowed);
        QVERIFY(!dialog->findChild<QPushButton *>(QStringLiteral("review"))->isEnabled());
    }
};

int main(int argc, char **argv)
{
    pinRenderingEnvironment(true);
    QApplication app(argc, argv);
    TestScaleDialog test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_scaledialog.moc"
