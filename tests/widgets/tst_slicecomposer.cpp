// SPDX-License-Identifier: GPL-3.0-or-later
// The slice composer against the demo cluster: the live what-if answer and its highlights, the
// topologies offered, submit -> progress -> CREATED with demo time driven by the test (no
// sleeps), release with the plain and the stronger confirmation, and the why-pending text.

#include "../model/fleetcapturefixture.h"
#include "democluster.h"
#include "democlusteractions.h"
#include "elidingcombobox.h"
#include "fleetoverview.h"
#include "mainwindow.h"
#include "screenshot.h"
#include "slicecomposer.h"
#include "sliceview.h"
#include "tpu.h"
#include "workspace.h"

#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSet>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>

using namespace slicescope;

namespace {

// The composer wired as the window wires it, over a demo source that the test ticks by hand.
struct Rig {
    DemoSource source;
    Workspace workspace;
    SliceComposer composer;
    DemoClusterActions actions{&source};

    Rig()
    {
        QObject::connect(&source, &Source::captureReceived, &composer, [this](const Capture &c) {
            const SnapshotPtr snap = buildSnapshot(c);
            workspace.setSnapshot(snap);
            composer.setSnapshot(snap);
        });
        composer.setWorkspace(&workspace);
        composer.setActions(&actions);
        source.advance(0); // the first capture, without starting the real-time timer
        workspace.resize(1000, 700);
        composer.resize(420, 780);
        composer.show(); // laid out, so clicks land on the buttons people see
    }
    template<typename T>
    T *find(const char *name) const
    { return composer.findChild<T *>(QLatin1String(name)); }
    void choose(const QString &accelerator, const QString &topology, int slices)
    {
        auto *acc = find<QComboBox>("accelerator");
        acc->setCurrentIndex(acc->findData(accelerator));
        auto *topo = find<QComboBox>("topology");
        topo->setCurrentIndex(topo->findText(topology));
        find<QSpinBox>("numSlices")->setValue(slices);
    }
    QString planText() const { return find<QLabel>("plan")->text(); }
    // Demo time moves in steps, letting queued signals run between them, as ticks would.
    void advance(qint64 ms)
    {
        for (qint64 t = 0; t < ms; t += 250) {
            source.advance(250);
            QCoreApplication::processEvents();
        }
    }
};

// What people see: the layout requests a text change posts have run.
QImage grabLaidOut(QWidget &w)
{
    QCoreApplication::processEvents();
    return w.grab().toImage();
}

const QStringList kTwoSlices = {QStringLiteral("v6e-4x4-1"), QStringLiteral("v6e-4x4-2")};

} // namespace

class TestSliceComposer : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // A fleet (issue 16): the reserve review names the RayCluster and context chosen; a release's
    // review names the group's own.
    // Long RayCluster names with their contexts never widen the composer nor show cut words: the
    // combo shows the name elided in the middle, with the whole of it in the tooltip (issue 17).
    void longClusterNamesElide()
    {
        const QString eu = QStringLiteral("gke_my-long-project-name_europe-west4_tpu-fleet-a");
        const QString us = QStringLiteral("gke_my-long-project-name_us-central2_tpu-fleet-b");
        const Capture fleet = testfixture::fleetOf({testfixture::twoClusterContext(eu), testfixture::twoClusterContext(us)});
        SliceComposer composer;
        composer.resize(380, 780);
        composer.show();
        QVERIFY(QTest::qWaitForWindowExposed(&composer));
        composer.setSnapshot(buildSnapshot(fleet));
        auto *cluster = composer.findChild<ElidingComboBox *>(QStringLiteral("rayCluster"));
        QVERIFY(cluster && !cluster->isHidden());
        const QString whole = QStringLiteral("team-b/rl (context %1)").arg(us);
        cluster->setCurrentIndex(cluster->findText(whole));
        QCOMPARE(cluster->currentText(), whole);
        QCOMPARE(cluster->toolTip(), whole);
        // The combo asks for about 14 characters, whatever its entries; the composer's other rows
        // set its minimum width (about 370 px), as they do without a fleet.
        QVERIFY2(cluster->minimumSizeHint().width() < 220, qPrintable(QString::number(cluster->minimumSizeHint().width())));
        QVERIFY2(composer.minimumSizeHint().width() <= 380, qPrintable(QString::number(composer.minimumSizeHint().width())));
        QTRY_VERIFY(cluster->geometry().right() < composer.width());
        const QString shown = cluster->shownText();
        QVERIFY2(shown.contains(QChar(0x2026)) && shown.startsWith(u"team-b/rl") && shown.size() < whole.size(), qPrintable(shown));
        // Room enough: the whole text.
        composer.resize(900, 780);
        QTRY_COMPARE(cluster->shownText(), whole);
    }

    void fleetReviewsNameTheCluster()
    {
        const Capture fleet = testfixture::fleetOf({testfixture::twoClusterContext(QStringLiteral("gke_eu")), testfixture::twoClusterContext(QStringLiteral("gke_us"))});
        const SnapshotPtr snap = buildSnapshot(fleet);
        DemoSource source;
        DemoClusterActions actions(&source);
        SliceComposer composer;
        composer.setActions(&actions);
        composer.resize(420, 780);
        composer.show();
        composer.setSnapshot(snap);
        auto *cluster = composer.findChild<QComboBox *>(QStringLiteral("rayCluster"));
        QVERIFY(!cluster->isHidden());
        const int rl = cluster->findText(QStringLiteral("team-b/rl (context gke_us)"));
        QVERIFY2(rl >= 0, qPrintable(QStringLiteral("%1 items").arg(cluster->count())));
        // What the window does when the composer opens on a slice of team-b/rl in gke_us.
        QVERIFY(composer.chooseRayCluster(QStringLiteral("gke_us"), QStringLiteral("team-b/rl")));
        QCOMPARE(cluster->currentIndex(), rl);
        QVERIFY(!composer.chooseRayCluster(QStringLiteral("gke_us"), QStringLiteral("team-z/none")));
        QCOMPARE(cluster->currentIndex(), rl);
        auto *acc = composer.findChild<QComboBox *>(QStringLiteral("accelerator"));
        acc->setCurrentIndex(acc->findData(QStringLiteral("v6e")));
        auto *topo = composer.findChild<QComboBox *>(QStringLiteral("topology"));
        topo->setCurrentIndex(topo->findText(QStringLiteral("4x4")));
        QTest::keyClicks(composer.findChild<QLineEdit *>(QStringLiteral("name")), QStringLiteral("team-b-run"));
        QVERIFY2(composer.plan().feasible, qPrintable(composer.findChild<QLabel *>(QStringLiteral("plan"))->text()));
        QCOMPARE(composer.plan().wouldTake, QStringList{QStringLiteral("gke_us:team-b/rl/tpu-0")});
        QTest::mouseClick(composer.findChild<QPushButton *>(QStringLiteral("review")), Qt::LeftButton);
        QVERIFY(composer.isReviewing());
        QString shown = composer.findChild<QPlainTextEdit *>(QStringLiteral("reviewText"))->toPlainText();
        QVERIFY2(shown.contains(QLatin1String("on RayCluster team-b/rl in context gke_us")), qPrintable(shown));
        composer.findChild<QPushButton *>(QStringLiteral("cancel"))->click();

        QString trainInEu;
        for (const PlacementGroup &g : snap->placementGroups)
            if (g.context == QLatin1String("gke_eu")) trainInEu = g.id;
        QVERIFY(!trainInEu.isEmpty());
        composer.reviewRelease(trainInEu);
        QVERIFY(composer.isReviewing());
        shown = composer.findChild<QPlainTextEdit *>(QStringLiteral("reviewText"))->toPlainText();
        QVERIFY2(shown.contains(QLatin1String("on RayCluster team-a/llm in context gke_eu")), qPrintable(shown));
    }

    // Issue 31: two RayClusters known from Kubernetes only (no Ray view names one, so the composer
    // offers no choice), one free v6e 4x4 slice each. The preview plans in one Ray cluster: two
    // slices fit in none, one fits in the first and the preview names it.
    void previewPlansInOneRayCluster()
    {
        Capture c = testfixture::twoFreeClusterContext(QStringLiteral("gke_eu"));
        c.rayClusters.clear();
        const SnapshotPtr snap = buildSnapshot(c);
        QCOMPARE(snap->slices.size(), 2);
        SliceComposer composer;
        composer.resize(420, 780);
        composer.show();
        composer.setSnapshot(snap);
        QVERIFY(composer.findChild<QComboBox *>(QStringLiteral("rayCluster"))->isHidden());
        auto *acc = composer.findChild<QComboBox *>(QStringLiteral("accelerator"));
        acc->setCurrentIndex(acc->findData(QStringLiteral("v6e")));
        auto *topo = composer.findChild<QComboBox *>(QStringLiteral("topology"));
        topo->setCurrentIndex(topo->findText(QStringLiteral("4x4")));
        composer.findChild<QSpinBox *>(QStringLiteral("numSlices"))->setValue(2);
        const QString two = composer.findChild<QLabel *>(QStringLiteral("plan"))->text();
        QVERIFY2(!composer.plan().feasible, qPrintable(two));
        QVERIFY2(two.contains(QLatin1String("Does not fit in any single Ray cluster")) && two.contains(QLatin1String("team-a/llm has 1 of the 2"))
                     && two.contains(QLatin1String("team-b/rl has 1")),
                 qPrintable(two));
        composer.findChild<QSpinBox *>(QStringLiteral("numSlices"))->setValue(1);
        const QString one = composer.findChild<QLabel *>(QStringLiteral("plan"))->text();
        QVERIFY2(composer.plan().feasible, qPrintable(one));
        QCOMPARE(composer.plan().wouldTake.size(), 1);
        const int taken = snap->sliceIndex(composer.plan().wouldTake.first());
        QVERIFY(taken >= 0);
        QCOMPARE(snap->slices[taken].rayCluster, QStringLiteral("team-a/llm"));
        QVERIFY2(one.contains(QLatin1String("Feasible in RayCluster team-a/llm")), qPrintable(one));
    }

    void twoV6eSlicesFitAndAreHighlighted()
    {
        Rig rig;
        rig.choose(QStringLiteral("v6e"), QStringLiteral("4x4"), 2);
        QVERIFY(rig.composer.plan().feasible);
        QCOMPARE(rig.composer.plan().wouldTake, kTwoSlices);
        QVERIFY2(rig.planText().contains(QLatin1String("Feasible")), qPrintable(rig.planText()));
        QCOMPARE(rig.workspace.overview()->highlightedSlices(), kTwoSlices);
        // The 3D view marks the hosts when the shown slice is one the plan takes, and only then.
        QVERIFY(rig.workspace.showSlice(QStringLiteral("v6e-4x4-1")));
        QCOMPARE(rig.workspace.sliceView()->highlightedHosts(), (QList<int>{0, 1, 2, 3}));
        QVERIFY(rig.workspace.showSlice(QStringLiteral("v6e-4x4-0")));
        QVERIFY(rig.workspace.sliceView()->highlightedHosts().isEmpty());
        // Without a name there is nothing to submit yet.
        QVERIFY(!rig.find<QPushButton>("review")->isEnabled());
    }

    void threeV6eSlicesSayWhyNot()
    {
        Rig rig;
        rig.choose(QStringLiteral("v6e"), QStringLiteral("4x4"), 3);
        QVERIFY(!rig.composer.plan().feasible);
        const QString text = rig.planText();
        QVERIFY2(text.contains(QLatin1String("Does not fit")), qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("v6e-4x4-3 is degraded")), qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("v6e-4x4-0 is in use")) && text.contains(QLatin1String("llm-train")), qPrintable(text));
        QVERIFY(rig.workspace.overview()->highlightedSlices().isEmpty());
        QTest::keyClicks(rig.find<QLineEdit>("name"), QStringLiteral("too-many"));
        QVERIFY(!rig.find<QPushButton>("review")->isEnabled());
    }

    void onlyValidTopologiesAreOffered()
    {
        Rig rig;
        auto *acc = rig.find<QComboBox>("accelerator");
        auto *topo = rig.find<QComboBox>("topology");
        QCOMPARE(acc->count(), tpu::generations().size());
        for (int i = 0; i < acc->count(); ++i) {
            acc->setCurrentIndex(i);
            const tpu::Generation *gen = tpu::findGeneration(acc->itemData(i).toString());
            QVERIFY(gen);
            QStringList expected, offered;
            for (const tpu::Topology &t : tpu::validTopologies(*gen))
                expected << t.toString();
            for (int j = 0; j < topo->count(); ++j)
                offered << topo->itemText(j);
            QCOMPARE(offered, expected);
        }
        // Ray's list (docs/facts.md 3) offers v6e 2x8, which GKE does not document: the item says so.
        rig.choose(QStringLiteral("v6e"), QStringLiteral("2x8"), 1);
        QCOMPARE(topo->currentText(), QStringLiteral("2x8"));
        QVERIFY2(topo->itemData(topo->currentIndex(), Qt::ToolTipRole).toString().contains(QLatin1String("GKE documents no such node pool")),
                 qPrintable(topo->itemData(topo->currentIndex(), Qt::ToolTipRole).toString()));
        QVERIFY(topo->itemData(topo->findText(QStringLiteral("4x4")), Qt::ToolTipRole).toString().isEmpty());
        // TPU per bundle follows the host: 8 on a v6e 2x4 (one host), 4 on a 4x4.
        rig.choose(QStringLiteral("v6e"), QStringLiteral("2x4"), 1);
        QCOMPARE(rig.find<QComboBox>("tpuPerBundle")->currentData().toInt(), 8);
        rig.choose(QStringLiteral("v6e"), QStringLiteral("4x4"), 1);
        QCOMPARE(rig.find<QComboBox>("tpuPerBundle")->currentData().toInt(), 4);
    }

    void submitOnTheDemoShowsProgressThenTheResult()
    {
        Rig rig;
        QSignalSpy progress(&rig.actions, &ClusterActions::actionProgress);
        QSignalSpy finished(&rig.actions, &ClusterActions::actionFinished);
        rig.choose(QStringLiteral("v6e"), QStringLiteral("4x4"), 2);
        QTest::keyClicks(rig.find<QLineEdit>("name"), QStringLiteral("team-a"));
        auto *review = rig.find<QPushButton>("review");
        QVERIFY2(review->isEnabled(), qPrintable(review->toolTip()));
        QTest::mouseClick(review, Qt::LeftButton);
        QVERIFY(rig.composer.isReviewing());
        // Exactly what will change and the job that will run, before anything does.
        const QString shown = rig.find<QPlainTextEdit>("reviewText")->toPlainText();
        QVERIFY2(shown.contains(QLatin1String("v6e-4x4-1, v6e-4x4-2")), qPrintable(shown));
        QVERIFY2(shown.contains(QLatin1String("SLICESCOPE_REQUEST=")) && shown.contains(QLatin1String("\"name\":\"team-a\"")), qPrintable(shown));
        QVERIFY(rig.source.cluster().capture().rayJobs.indexOf("team-a") < 0); // nothing submitted yet

        QTest::mouseClick(rig.find<QPushButton>("confirm"), Qt::LeftButton);
        QVERIFY(!rig.composer.isReviewing());
        QVERIFY(progress.isEmpty()); // signals never arrive from inside the call
        QCoreApplication::processEvents();
        QVERIFY(!progress.isEmpty());
        QVERIFY2(progress.at(0).at(1).toString().contains(QLatin1String("submitted job")), qPrintable(progress.at(0).at(1).toString()));
        QVERIFY2(rig.composer.messageText().contains(QLatin1String("PENDING")), qPrintable(rig.composer.messageText()));

        rig.advance(DemoCluster::kHeadReserveDelay); // job running, heads being reserved
        QStringList texts;
        for (const QList<QVariant> &args : std::as_const(progress))
            texts << args.at(1).toString();
        QVERIFY2(texts.join(u'\n').contains(QLatin1String("pending head reservation")), qPrintable(texts.join(u'\n')));
        QVERIFY(finished.isEmpty());

        rig.advance(DemoCluster::kSliceReserveDelay + 1000);
        QCOMPARE(finished.size(), 1);
        QCOMPARE(finished.at(0).at(1).toBool(), true);
        const QString outcome = rig.composer.messageText();
        QVERIFY2(outcome.contains(QLatin1String("CREATED")) && outcome.contains(QLatin1String("v6e-4x4-1, v6e-4x4-2")), qPrintable(outcome));
        // The observed group's slices stay highlighted after the capture that shows them.
        rig.advance(1000);
        QCOMPARE(rig.composer.highlightedSlices(), kTwoSlices);
        QCOMPARE(rig.workspace.overview()->highlightedSlices(), kTwoSlices);
    }

    // 16 one-chip bundles: the composer's TPU choice is sent, the review says exactly what Ray
    // reserves per bundle, the demo makes those bundles; the success stays in sight and the new
    // group is the release list's choice.
    void sixteenOneChipBundlesAreSentReviewedAndKept()
    {
        Rig rig;
        QSignalSpy finished(&rig.actions, &ClusterActions::actionFinished);
        rig.choose(QStringLiteral("v6e"), QStringLiteral("4x4"), 1);
        auto *tpu = rig.find<QComboBox>("tpuPerBundle");
        QStringList offered;
        for (int i = 0; i < tpu->count(); ++i)
            offered << tpu->itemText(i);
        QCOMPARE(offered, (QStringList{QStringLiteral("1"), QStringLiteral("2"), QStringLiteral("4")})); // divide 16, fit a 4-chip VM
        tpu->setCurrentIndex(tpu->findData(1));
        QCOMPARE(rig.composer.request().tpuPerBundle, 1);
        QCOMPARE(rig.composer.plan().bundlesPerSlice, 16);
        QTest::keyClicks(rig.find<QLineEdit>("name"), QStringLiteral("one-chip"));
        QTest::mouseClick(rig.find<QPushButton>("review"), Qt::LeftButton);
        const QString shown = rig.find<QPlainTextEdit>("reviewText")->toPlainText();
        QVERIFY2(shown.contains(QLatin1String("Ray will reserve 16 bundles x {CPU: 1, TPU: 1} on v6e-4x4-1")), qPrintable(shown));
        QVERIFY2(shown.contains(QLatin1String("\"resources_per_bundle\":{\"CPU\":1,\"TPU\":1}")), qPrintable(shown));
        QTest::mouseClick(rig.find<QPushButton>("confirm"), Qt::LeftButton);
        rig.advance(DemoCluster::kHeadReserveDelay + DemoCluster::kSliceReserveDelay + 1000);
        QCOMPARE(finished.size(), 1);
        QVERIFY2(finished.at(0).at(1).toBool(), qPrintable(finished.at(0).at(2).toString()));
        // The demo made what Ray makes: 16 bundles of 1 TPU, each chip of the slice its own bundle.
        const SnapshotPtr snap = buildSnapshot(rig.source.cluster().capture());
        const int g = snap->placementGroupIndex(QStringLiteral("one-chip"));
        QVERIFY(g >= 0);
        QCOMPARE(snap->placementGroups[g].bundles.size(), 16);
        QSet<int> indexes;
        for (const Host &h : snap->slices[snap->sliceIndex(QStringLiteral("v6e-4x4-1"))].hosts)
            for (const ChipUse &c : h.chips) {
                QCOMPARE(c.placementGroup, g);
                indexes.insert(c.bundleIndex);
            }
        QCOMPARE(indexes.size(), 16);
        // Later snapshots do not replace the success with the what-if of the same request.
        rig.advance(2000);
        QVERIFY2(rig.planText().contains(QLatin1String("Reserved:")) && !rig.planText().contains(QLatin1String("Does not fit")), qPrintable(rig.planText()));
        QVERIFY2(rig.composer.messageText().contains(QLatin1String("CREATED")), qPrintable(rig.composer.messageText()));
        QCOMPARE(rig.composer.selectedReleaseGroup(), snap->placementGroups[g].id);
        QCOMPARE(rig.find<QComboBox>("releaseGroup")->currentData().toString(), snap->placementGroups[g].id);
        // Editing brings the what-if back.
        rig.find<QSpinBox>("numSlices")->setValue(2);
        QVERIFY2(!rig.planText().contains(QLatin1String("Reserved:")), qPrintable(rig.planText()));
    }

    void chipsPerVmIsOfferedForAmbiguousShapesAndSent()
    {
        Rig rig;
        rig.choose(QStringLiteral("v6e"), QStringLiteral("2x4"), 1);
        auto *vm = rig.find<QComboBox>("chipsPerVm");
        QVERIFY(vm->isEnabled());
        QCOMPARE(vm->currentData().toInt(), 0); // Ray's default (8)
        QCOMPARE(rig.composer.plan().hostsPerSlice, 1);
        vm->setCurrentIndex(vm->findData(4));
        QCOMPARE(rig.composer.request().chipsPerVm, 4);
        QCOMPARE(rig.composer.plan().hostsPerSlice, 2);
        QCOMPARE(rig.find<QComboBox>("tpuPerBundle")->currentData().toInt(), 4); // a bundle per VM
        rig.choose(QStringLiteral("v6e"), QStringLiteral("4x4"), 1);
        QCOMPARE(rig.composer.request().chipsPerVm, 0); // a new shape starts from Ray's default
    }

    // The release list is keyed by id: a chosen group that vanishes clears the choice, withdraws
    // its review and says so; it never slides to another row.
    void aVanishedGroupClearsTheChoiceAndDisarmsTheRelease()
    {
        Rig rig;
        const SnapshotPtr before = buildSnapshot(rig.source.cluster().capture());
        const int g = before->placementGroupIndex(QStringLiteral("llm-train"));
        QVERIFY(g >= 0);
        const QString id = before->placementGroups[g].id;
        rig.composer.reviewRelease(QStringLiteral("llm-train"));
        QCOMPARE(rig.composer.selectedReleaseGroup(), id);
        QTest::keyClicks(rig.find<QLineEdit>("typeName"), QStringLiteral("llm-train"));
        QVERIFY(rig.find<QPushButton>("confirm")->isEnabled());
        // Someone else releases it meanwhile.
        QVERIFY(rig.source.act([](DemoCluster &c) { return c.releasePlacementGroup(QStringLiteral("llm-train")); }).ok);
        rig.advance(250);
        QVERIFY(!rig.composer.isReviewing());
        QCOMPARE(rig.composer.selectedReleaseGroup(), QString());
        QCOMPARE(rig.find<QComboBox>("releaseGroup")->currentIndex(), -1);
        QVERIFY(!rig.find<QPushButton>("release")->isEnabled());
        QVERIFY2(rig.composer.messageText().contains(id) && rig.composer.messageText().contains(QLatin1String("gone")), qPrintable(rig.composer.messageText()));
    }

    void aChangedGroupClearsTheChoiceToo()
    {
        Rig rig;
        QSignalSpy finished(&rig.actions, &ClusterActions::actionFinished);
        SlicePlacementRequest r;
        r.accelerator = QStringLiteral("v6e");
        r.topology = QStringLiteral("4x4");
        r.name = QStringLiteral("moving");
        rig.actions.submitSlicePlacementGroup(QStringLiteral("setup"), r);
        rig.advance(500); // the job runs; the group is not there yet
        rig.advance(DemoCluster::kHeadReserveDelay + DemoCluster::kSliceReserveDelay + 1000);
        QCOMPARE(finished.size(), 1);
        const SnapshotPtr snap = buildSnapshot(rig.source.cluster().capture());
        const QString id = snap->placementGroups[snap->placementGroupIndex(QStringLiteral("moving"))].id;
        rig.composer.reviewRelease(id);
        QVERIFY(rig.composer.isReviewing());
        // Its slice loses a host: the group is no longer the one the operator looked at.
        QVERIFY(rig.source.act([&](DemoCluster &c) { return c.removeSlice(snap->placementGroups[snap->placementGroupIndex(id)].slices.first()); }).ok);
        for (int step = 0; step < 120 && rig.composer.isReviewing(); ++step)
            rig.advance(250); // the slice's pods terminate and its nodes die over demo seconds
        QVERIFY(!rig.composer.isReviewing());
        QCOMPARE(rig.composer.selectedReleaseGroup(), QString());
        QVERIFY2(rig.composer.messageText().contains(id), qPrintable(rig.composer.messageText()));
    }

    // The last look before sending: when the newest snapshot moves the plan to other slices,
    // the click refuses and asks for a new review instead of sending what was not shown.
    void aSubmitWhosePlanMovedIsRefusedAtConfirm()
    {
        Rig rig;
        QSignalSpy finished(&rig.actions, &ClusterActions::actionFinished);
        rig.choose(QStringLiteral("v6e"), QStringLiteral("4x4"), 1);
        QTest::keyClicks(rig.find<QLineEdit>("name"), QStringLiteral("late"));
        QTest::mouseClick(rig.find<QPushButton>("review"), Qt::LeftButton);
        QVERIFY(rig.composer.isReviewing());
        QCOMPARE(rig.composer.plan().wouldTake, QStringList{QStringLiteral("v6e-4x4-1")});
        // Someone takes that slice between the review and the click.
        SlicePlacementRequest other;
        other.accelerator = QStringLiteral("v6e");
        other.topology = QStringLiteral("4x4");
        other.name = QStringLiteral("someone-else");
        QVERIFY(rig.source.act([&](DemoCluster &c) { return c.submitSlicePlacementGroup(other); }).ok);
        rig.advance(DemoCluster::kHeadReserveDelay + DemoCluster::kSliceReserveDelay + 1000);
        QCOMPARE(rig.composer.plan().wouldTake, QStringList{QStringLiteral("v6e-4x4-2")});
        QTest::mouseClick(rig.find<QPushButton>("confirm"), Qt::LeftButton);
        QVERIFY(!rig.composer.isReviewing());
        QVERIFY2(rig.composer.messageText().contains(QLatin1String("Not submitted")) && rig.composer.messageText().contains(QLatin1String("v6e-4x4-1 -> v6e-4x4-2")),
                 qPrintable(rig.composer.messageText()));
        QCoreApplication::processEvents();
        QVERIFY(finished.isEmpty());
        QVERIFY(rig.source.cluster().capture().rayJobs.indexOf("late") < 0);
    }

    void releaseAsksFirstAndMoreForOthersGroups()
    {
        Rig rig;
        QSignalSpy finished(&rig.actions, &ClusterActions::actionFinished);
        // A group SliceScope did not create: the name must be typed.
        rig.composer.reviewRelease(QStringLiteral("llm-train"));
        QVERIFY(rig.composer.isReviewing());
        auto *confirm = rig.find<QPushButton>("confirm");
        auto *typeName = rig.find<QLineEdit>("typeName");
        QVERIFY(!typeName->isHidden());
        QVERIFY2(rig.find<QPlainTextEdit>("reviewText")->toPlainText().contains(QLatin1String("v6e-4x4-0")),
                 qPrintable(rig.find<QPlainTextEdit>("reviewText")->toPlainText()));
        QVERIFY(!confirm->isEnabled());
        QTest::keyClicks(typeName, QStringLiteral("llm-trai"));
        QVERIFY(!confirm->isEnabled());
        QTest::keyClick(typeName, Qt::Key_X);
        QVERIFY(!confirm->isEnabled()); // close is not enough
        typeName->clear();
        QTest::keyClicks(typeName, QStringLiteral("llm-train"));
        QVERIFY(confirm->isEnabled());
        // Cancel changes nothing.
        QTest::mouseClick(rig.find<QPushButton>("cancel"), Qt::LeftButton);
        QVERIFY(!rig.composer.isReviewing());
        QCoreApplication::processEvents();
        QVERIFY(finished.isEmpty());

        rig.composer.reviewRelease(QStringLiteral("llm-train"));
        QTest::keyClicks(typeName, QStringLiteral("llm-train"));
        QTest::mouseClick(confirm, Qt::LeftButton);
        QTRY_COMPARE(finished.size(), 1);
        QVERIFY2(finished.at(0).at(1).toBool(), qPrintable(finished.at(0).at(2).toString()));
        QVERIFY2(rig.composer.messageText().contains(QLatin1String("REMOVED")), qPrintable(rig.composer.messageText()));
        rig.advance(250);
        rig.choose(QStringLiteral("v6e"), QStringLiteral("4x4"), 3); // v6e-4x4-0 is free now
        QVERIFY2(rig.composer.plan().feasible, qPrintable(rig.planText()));
    }

    void releasingOurOwnGroupNeedsOnlyTheClick()
    {
        Rig rig;
        QSignalSpy finished(&rig.actions, &ClusterActions::actionFinished);
        SlicePlacementRequest r;
        r.accelerator = QStringLiteral("v6e");
        r.topology = QStringLiteral("4x4");
        r.name = QStringLiteral("mine");
        rig.actions.submitSlicePlacementGroup(QStringLiteral("setup"), r);
        rig.advance(DemoCluster::kHeadReserveDelay + DemoCluster::kSliceReserveDelay + 1000);
        QCOMPARE(finished.size(), 1);
        rig.composer.reviewRelease(QStringLiteral("mine"));
        QVERIFY(rig.composer.isReviewing());
        QVERIFY(rig.find<QLineEdit>("typeName")->isHidden());
        const QString shown = rig.find<QPlainTextEdit>("reviewText")->toPlainText();
        QVERIFY2(shown.contains(QLatin1String("Stop Ray job slicescope-mine-")), qPrintable(shown));
        QTest::mouseClick(rig.find<QPushButton>("confirm"), Qt::LeftButton);
        QTRY_COMPARE(finished.size(), 2);
        QVERIFY2(finished.at(1).at(1).toBool(), qPrintable(finished.at(1).at(2).toString()));
        QVERIFY2(rig.composer.messageText().contains(QLatin1String("REMOVED; job slicescope-mine-")), qPrintable(rig.composer.messageText()));
        rig.advance(250);
        QVERIFY(rig.source.cluster().capture().rayPlacementGroups.contains("\"REMOVED\""));
    }

    void sourcesThatCannotActSayWhy()
    {
        Rig rig;
        rig.composer.setActions(nullptr, QStringLiteral("capture demo.slicescope.json is a recording: it cannot be changed"));
        rig.choose(QStringLiteral("v6e"), QStringLiteral("4x4"), 2);
        QTest::keyClicks(rig.find<QLineEdit>("name"), QStringLiteral("x"));
        QVERIFY(rig.composer.plan().feasible); // the what-if still answers
        QVERIFY(!rig.find<QPushButton>("review")->isEnabled());
        QVERIFY(!rig.find<QPushButton>("release")->isEnabled());
        QVERIFY(rig.composer.messageText().contains(QLatin1String("recording")));
    }

    void whyPendingJoinsRayThePlannerAndTheAutoscaler()
    {
        DemoCluster demo;
        const SnapshotPtr snap = buildSnapshot(demo.capture());
        QString head;
        for (const PlacementGroup &g : snap->placementGroups)
            for (const Bundle &b : g.bundles)
                if (g.state == QLatin1String("PENDING") && b.headResource == QLatin1String("TPU-v6e-64-head"))
                    head = g.id;
        QVERIFY2(!head.isEmpty(), "the demo's eval-8x8 request has a pending head group");
        WhyPendingPanel panel;
        panel.setSnapshot(snap);
        QVERIFY(panel.showGroup(head));
        const QString text = panel.text();
        QVERIFY2(text.contains(QLatin1String("INFEASIBLE")), qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("no worker group makes v6e 8x8 slices")), qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("Autoscaler")), qPrintable(text));
        if (!snap->clusterStatusText.trimmed().isEmpty())
            QVERIFY(text.contains(snap->clusterStatusText.trimmed().left(40)));
    }

    void renderForPeople()
    {
        // Not a pass/fail check: writes the composer as the window shows it, to look at.
        Rig rig;
        rig.choose(QStringLiteral("v6e"), QStringLiteral("4x4"), 2);
        QTest::keyClicks(rig.find<QLineEdit>("name"), QStringLiteral("team-a"));
        rig.composer.show();
        const QString out = QDir::currentPath() + QStringLiteral("/slicecomposer.png");
        QVERIFY(grabLaidOut(rig.composer).save(out));
        rig.choose(QStringLiteral("v6e"), QStringLiteral("4x4"), 3);
        QVERIFY(grabLaidOut(rig.composer).save(QDir::currentPath() + QStringLiteral("/slicecomposer-infeasible.png")));
        QTest::mouseClick(rig.find<QPushButton>("review"), Qt::LeftButton);
        rig.choose(QStringLiteral("v6e"), QStringLiteral("4x4"), 2);
        QTest::mouseClick(rig.find<QPushButton>("review"), Qt::LeftButton);
        QVERIFY(grabLaidOut(rig.composer).save(QDir::currentPath() + QStringLiteral("/slicecomposer-review.png")));
    }

    // Issue 17: the default plan's "in plan" highlight shows the moment the composer opens, before
    // any edit, in a window on screen and in one only rendered (screenshots, goldens); closing
    // the dock takes it away and opening it again brings it back.
    void highlightsThePlanAsSoonAsItOpens_data()
    {
        QTest::addColumn<bool>("onScreen");
        QTest::newRow("window shown") << true;
        QTest::newRow("window rendered only") << false;
    }
    void highlightsThePlanAsSoonAsItOpens()
    {
        QFETCH(bool, onScreen);
        MainWindow window(MainWindow::Mode::Screenshot);
        window.setSource(std::make_unique<DemoSource>());
        window.resize(1280, 800);
        if (onScreen) {
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
        }
        Workspace *ws = window.workspace();
        QVERIFY(ws->showSlice(QStringLiteral("v6e-4x4-1")));
        ws->showPage(Workspace::Page::Slice);
        SliceComposer *composer = window.composer();
        // Closed: the plan is made (the default request, one v6e 4x4) but not drawn.
        QVERIFY(composer->plan().feasible);
        QCOMPARE(composer->plan().wouldTake, QStringList{QStringLiteral("v6e-4x4-1")});
        QVERIFY(!composer->isOpen());
        QVERIFY(ws->overview()->highlightedSlices().isEmpty());
        QVERIFY(ws->sliceView()->highlightedHosts().isEmpty());

        window.openComposer(); // no edit, no event loop turn
        QVERIFY(composer->isOpen());
        QCOMPARE(ws->overview()->highlightedSlices(), QStringList{QStringLiteral("v6e-4x4-1")});
        QCOMPARE(ws->sliceView()->highlightedHosts(), (QList<int>{0, 1, 2, 3}));

        auto *dock = window.findChild<QDockWidget *>(QStringLiteral("composerDock"));
        dock->hide();
        QVERIFY(!composer->isOpen());
        QVERIFY(ws->overview()->highlightedSlices().isEmpty());
        QVERIFY(ws->sliceView()->highlightedHosts().isEmpty());
        window.openComposer();
        QCOMPARE(ws->sliceView()->highlightedHosts(), (QList<int>{0, 1, 2, 3}));
        // Another slice the plan does not take: nothing marked on it; back: marked again.
        QVERIFY(ws->showSlice(QStringLiteral("v6e-4x4-0")));
        QVERIFY(ws->sliceView()->highlightedHosts().isEmpty());
        QVERIFY(ws->showSlice(QStringLiteral("v6e-4x4-1")));
        QCOMPARE(ws->sliceView()->highlightedHosts(), (QList<int>{0, 1, 2, 3}));
    }

    void theWindowOffersItForTheDemoOnly()
    {
        MainWindow window(MainWindow::Mode::Screenshot);
        window.setSource(std::make_unique<DemoSource>());
        QVERIFY(qobject_cast<DemoClusterActions *>(window.clusterActions()));
        window.resize(1280, 800);
        window.show();
        QAction *reserve = nullptr;
        for (QAction *a : window.findChildren<QAction *>())
            if (a->text() == QLatin1String("&Reserve slices..."))
                reserve = a;
        QVERIFY(reserve);
        reserve->trigger();
        SliceComposer *composer = window.composer();
        QVERIFY(composer->isVisible());
        auto *slices = composer->findChild<QSpinBox *>(QStringLiteral("numSlices"));
        slices->setValue(2);
        QCOMPARE(window.workspace()->overview()->highlightedSlices(), kTwoSlices);
        QVERIFY(grabLaidOut(window).save(QDir::currentPath() + QStringLiteral("/slicecomposer-window.png")));

        // A recording cannot be changed: the composer still plans, and says why it cannot submit.
        window.setSource(std::make_unique<StaticSource>(DemoCluster().capture(), QStringLiteral("capture demo.slicescope.json")));
        QVERIFY(!window.clusterActions());
        QVERIFY2(composer->messageText().contains(QLatin1String("recording")), qPrintable(composer->messageText()));
        QVERIFY(composer->plan().feasible);
    }
};

int main(int argc, char **argv)
{
    pinRenderingEnvironment(true);
    QApplication app(argc, argv);
    TestSliceComposer test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_slicecomposer.moc"
