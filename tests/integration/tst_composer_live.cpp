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
#include <QLineEdit>
#include <QPushButton>
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
};

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    TestComposerLive test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_composer_live.moc"
