// SPDX-License-Identifier: GPL-3.0-or-later
// The composer against the real Ray the harness starts (tests/integration/ray-harness.sh),
// driven with QTest as an operator would: a v6e 4x4 group is planned, reviewed, confirmed,
// CREATED on one intact slice and highlighted there; then released with its confirmation.

#include "../common/rayharness.h"
#include "livesource.h"
#include "rayclusteractions.h"
#include "slicecomposer.h"

#include <QApplication>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSet>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>

using namespace slicescope;

class TestComposerLive : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void reserveAndReleaseFromTheComposer()
    {
        testing::RayHarness harness;
        SLICESCOPE_FIND_RAY_HARNESS(harness);
        RayToken token;
        QCOMPARE(resolveRayToken(harness.tokenFile, token), QString());

        LiveRaySource source(QUrl(harness.url), token);
        source.setInterval(std::chrono::milliseconds(500));
        RayClusterActions actions(&source);
        SliceComposer composer;
        QObject::connect(&source, &Source::captureReceived, &composer, [&](const Capture &c) { composer.setSnapshot(buildSnapshot(c)); });
        composer.setActions(&actions);
        composer.resize(420, 780);
        composer.show();
        QSignalSpy finished(&actions, &ClusterActions::actionFinished);
        source.start();
        QTRY_VERIFY_WITH_TIMEOUT(composer.plan().feasible, 30000); // v6e 4x4 x1 is the default shape

        const QString name = QStringLiteral("composer-live-%1").arg(QCoreApplication::applicationPid());
        QTest::keyClicks(composer.findChild<QLineEdit *>(QStringLiteral("name")), name);
        auto *review = composer.findChild<QPushButton *>(QStringLiteral("review"));
        QTRY_VERIFY(review->isEnabled());
        QTest::mouseClick(review, Qt::LeftButton);
        QTest::mouseClick(composer.findChild<QPushButton *>(QStringLiteral("confirm")), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 150000);
        QVERIFY2(finished.first().at(1).toBool(), qPrintable(finished.first().at(2).toString()));
        QVERIFY2(composer.messageText().contains(QLatin1String("CREATED")), qPrintable(composer.messageText()));
        // The observed slice is highlighted once a poll shows the group.
        QTRY_VERIFY_WITH_TIMEOUT(composer.highlightedSlices().size() == 1, 10000);
        QVERIFY2(composer.highlightedSlices().first().startsWith(QLatin1String("tpu-v6e-4x4-")), qPrintable(composer.highlightedSlices().join(u',')));

        // Released through the same review: ours, so the click is enough; gone is observed.
        composer.reviewRelease(name);
        QVERIFY(composer.isReviewing());
        QTest::mouseClick(composer.findChild<QPushButton *>(QStringLiteral("confirm")), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 2, 120000);
        QVERIFY2(finished.last().at(1).toBool(), qPrintable(finished.last().at(2).toString()));
        source.stop();
    }

    // The composer's TPU-per-bundle choice reaches Ray: 16 one-chip bundles (0.25 CPU each: the
    // harness's hosts have 1 CPU) on one v6e 4x4, the outcome stays, the new group is chosen for
    // release, and its release goes through the same review.
    void sixteenOneChipBundlesFromTheComposer()
    {
        testing::RayHarness harness;
        SLICESCOPE_FIND_RAY_HARNESS(harness);
        RayToken token;
        QCOMPARE(resolveRayToken(harness.tokenFile, token), QString());

        LiveRaySource source(QUrl(harness.url), token);
        source.setInterval(std::chrono::milliseconds(500));
        RayClusterActions actions(&source);
        SliceComposer composer;
        SnapshotPtr last;
        QObject::connect(&source, &Source::captureReceived, &composer, [&](const Capture &c) {
            last = buildSnapshot(c);
            composer.setSnapshot(last);
        });
        composer.setActions(&actions);
        composer.resize(420, 780);
        composer.show();
        QSignalSpy finished(&actions, &ClusterActions::actionFinished);
        source.start();
        QTRY_VERIFY_WITH_TIMEOUT(composer.plan().feasible, 30000);

        auto *tpu = composer.findChild<QComboBox *>(QStringLiteral("tpuPerBundle"));
        tpu->setCurrentIndex(tpu->findData(1));
        composer.findChild<QDoubleSpinBox *>(QStringLiteral("cpuPerBundle"))->setValue(0.25);
        QTRY_VERIFY(composer.plan().feasible);
        QCOMPARE(composer.plan().bundles(), 16);
        const QString name = QStringLiteral("composer-16-%1").arg(QCoreApplication::applicationPid());
        QTest::keyClicks(composer.findChild<QLineEdit *>(QStringLiteral("name")), name);
        auto *review = composer.findChild<QPushButton *>(QStringLiteral("review"));
        QTRY_VERIFY(review->isEnabled());
        QTest::mouseClick(review, Qt::LeftButton);
        const QString shown = composer.findChild<QPlainTextEdit *>(QStringLiteral("reviewText"))->toPlainText();
        QVERIFY2(shown.contains(QLatin1String("Ray will reserve 16 bundles x {CPU: 0.25, TPU: 1} on tpu-v6e-4x4-")), qPrintable(shown));
        QTest::mouseClick(composer.findChild<QPushButton *>(QStringLiteral("confirm")), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 150000);
        QVERIFY2(finished.first().at(1).toBool(), qPrintable(finished.first().at(2).toString()));
        // The next polls keep the outcome in sight and choose the new group in the release list.
        QTRY_VERIFY_WITH_TIMEOUT(!composer.selectedReleaseGroup().isEmpty(), 10000);
        const int g = last->placementGroupIndex(name);
        QVERIFY(g >= 0);
        QCOMPARE(composer.selectedReleaseGroup(), last->placementGroups[g].id);
        QCOMPARE(last->placementGroups[g].bundles.size(), 16);
        QSet<int> indexes;
        const int s = last->sliceIndex(last->placementGroups[g].slices.value(0));
        QVERIFY(s >= 0);
        for (const Host &h : last->slices[s].hosts)
            for (const ChipUse &c : h.chips) {
                QCOMPARE(c.placementGroup, g);
                indexes.insert(c.bundleIndex);
            }
        QCOMPARE(indexes.size(), 16);
        QVERIFY2(composer.findChild<QLabel *>(QStringLiteral("plan"))->text().contains(QLatin1String("Reserved:")),
                 qPrintable(composer.findChild<QLabel *>(QStringLiteral("plan"))->text()));

        QTest::mouseClick(composer.findChild<QPushButton *>(QStringLiteral("release")), Qt::LeftButton);
        QVERIFY(composer.isReviewing());
        QTest::mouseClick(composer.findChild<QPushButton *>(QStringLiteral("confirm")), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 2, 120000);
        QVERIFY2(finished.last().at(1).toBool(), qPrintable(finished.last().at(2).toString()));
        QTRY_VERIFY_WITH_TIMEOUT(composer.selectedReleaseGroup().isEmpty(), 10000);
        source.stop();
    }
};

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    TestComposerLive test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_composer_live.moc"
