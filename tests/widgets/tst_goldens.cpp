// SPDX-License-Identifier: GPL-3.0-or-later
// Golden images of the main views, rendered through the same renderScreenshot() the
// `slicescope screenshot` verb uses. The environment is pinned (offscreen, 96 DPI, scale 1,
// Fusion, fixed palette, the DejaVu Sans resource font, no animations). Comparison tolerates small
// per-channel differences on a small share of pixels; a failure writes the actual image and a diff
// next to the build. Re-record with SLICESCOPE_RECORD_GOLDENS=1, then LOOK at every image.

#include "../model/capturefixture.h"
#include "democluster.h"
#include "democlusteractions.h"
#include "slicecomposer.h"
#include "screenshot.h"

#include <QApplication>
#include <QDir>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTest>

using namespace slicescope;
using namespace slicescope::testfixture;

namespace {

constexpr int kChannelTolerance = 24;      // antialiasing may differ by a few levels between CPUs
constexpr double kMaxDifferingShare = 0.002; // 0.2% of pixels

QString goldenDir() { return QStringLiteral(SLICESCOPE_TEST_DATA "/golden"); }

// A v6e 4x4 held by two groups and partly free (worker 2: 2 of 4 chips), a v5p 4x4x4 with a dead
// host, and a v6e 4x4 with a missing host: the states the demo does not show at start.
Capture goldenCluster()
{
    CaptureBuilder b;
    b.addHeadNode(hexId(QStringLiteral("head"), 56), QStringLiteral("10.0.0.2"));
    const QStringList a = b.addSlice({QStringLiteral("v6e-a-0"), QStringLiteral("TPU-V6E"), QStringLiteral("v6e-16"), QStringLiteral("4x4"),
                                      QStringLiteral("v6e-a"), 4, 4, {}, {}, {}, {}});
    b.addSlice({QStringLiteral("v5p-b-0"), QStringLiteral("TPU-V5P"), QStringLiteral("v5p-128"), QStringLiteral("4x4x4"),
                QStringLiteral("v5p-b"), 16, 4, {5}, {}, {}, {}});
    b.addSlice({QStringLiteral("v6e-c-0"), QStringLiteral("TPU-V6E"), QStringLiteral("v6e-16"), QStringLiteral("4x4"),
                QStringLiteral("v6e-c"), 4, 4, {}, {3}, {}, {}});
    const QString train = hexId(QStringLiteral("pg/train"), 36), notebook = hexId(QStringLiteral("pg/notebook"), 36);
    QJsonArray trainBundles;
    for (int w = 0; w < 2; ++w)
        trainBundles.append(CaptureBuilder::bundle(train, w, QJsonObject{{QStringLiteral("CPU"), 1.0}, {QStringLiteral("TPU"), 4.0}}, a[w]));
    b.addPlacementGroup(train, QStringLiteral("train"), QStringLiteral("CREATED"), QStringLiteral("FINISHED"), false, trainBundles);
    b.addPlacementGroup(notebook, QStringLiteral("notebook"), QStringLiteral("CREATED"), QStringLiteral("FINISHED"), false,
                        QJsonArray{CaptureBuilder::bundle(notebook, 0, QJsonObject{{QStringLiteral("CPU"), 1.0}, {QStringLiteral("TPU"), 2.0}}, a[2])});
    return b.capture(false);
}

struct Comparison {
    bool same = false;
    QString message;
};

Comparison compare(const QImage &actual, const QImage &golden, QImage *diff)
{
    if (actual.size() != golden.size())
        return {false, QStringLiteral("size %1x%2, golden %3x%4").arg(actual.width()).arg(actual.height()).arg(golden.width()).arg(golden.height())};
    *diff = QImage(actual.size(), QImage::Format_RGB32);
    diff->fill(Qt::white);
    qint64 differing = 0;
    int worst = 0;
    for (int y = 0; y < actual.height(); ++y) {
        const QRgb *a = reinterpret_cast<const QRgb *>(actual.constScanLine(y));
        const QRgb *g = reinterpret_cast<const QRgb *>(golden.constScanLine(y));
        QRgb *d = reinterpret_cast<QRgb *>(diff->scanLine(y));
        for (int x = 0; x < actual.width(); ++x) {
            const int delta = std::max({std::abs(qRed(a[x]) - qRed(g[x])), std::abs(qGreen(a[x]) - qGreen(g[x])), std::abs(qBlue(a[x]) - qBlue(g[x]))});
            worst = std::max(worst, delta);
            if (delta > kChannelTolerance) {
                ++differing;
                d[x] = qRgb(255, 0, 0);
            } else if (delta > 0) {
                d[x] = qRgb(255, 200, 200);
            }
        }
    }
    const double share = double(differing) / double(actual.width() * actual.height());
    return {share <= kMaxDifferingShare,
            QStringLiteral("%1 pixels (%2%) differ by more than %3; worst channel delta %4")
                .arg(differing).arg(share * 100, 0, 'f', 3).arg(kChannelTolerance).arg(worst)};
}

} // namespace

class TestGoldens : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void views_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("demo");
        QTest::addColumn<QString>("view");
        QTest::addColumn<QString>("color");
        QTest::addColumn<QString>("theme");
        QTest::addColumn<double>("explode");
        QTest::addColumn<int>("selectHost");
        QTest::newRow("demo overview") << QStringLiteral("demo-overview") << true << QStringLiteral("overview") << QStringLiteral("bundle")
                                       << QStringLiteral("light") << 0.0 << -1;
        QTest::newRow("v6e 4x4 by worker") << QStringLiteral("v6e-4x4-worker") << false << QStringLiteral("slice:v6e-a-0")
                                           << QStringLiteral("worker") << QStringLiteral("light") << 0.0 << 2;
        QTest::newRow("v6e 4x4 by bundle, partly reserved host") << QStringLiteral("v6e-4x4-bundle") << false << QStringLiteral("slice:v6e-a-0")
                                                                 << QStringLiteral("bundle") << QStringLiteral("light") << 0.0 << 2;
        QTest::newRow("v5p 4x4x4 exploded by state, dead host") << QStringLiteral("v5p-4x4x4-state-exploded") << false << QStringLiteral("slice:v5p-b-0")
                                                                << QStringLiteral("state") << QStringLiteral("light") << 1.0 << 5;
        QTest::newRow("missing host") << QStringLiteral("v6e-missing-host") << false << QStringLiteral("slice:v6e-c-0")
                                      << QStringLiteral("worker") << QStringLiteral("light") << 0.0 << -1;
        QTest::newRow("dark overview") << QStringLiteral("demo-overview-dark") << true << QStringLiteral("overview") << QStringLiteral("bundle")
                                       << QStringLiteral("dark") << 0.0 << -1;
        QTest::newRow("dark slice") << QStringLiteral("demo-slice-dark") << true << QStringLiteral("slice:v6e-2x4-0") << QStringLiteral("bundle")
                                    << QStringLiteral("dark") << 0.0 << 0;
    }

    void views()
    {
        QFETCH(QString, name);
        QFETCH(bool, demo);
        QFETCH(QString, view);
        QFETCH(QString, color);
        QFETCH(QString, theme);
        QFETCH(double, explode);
        QFETCH(int, selectHost);

        ScreenshotOptions options;
        options.view = view;
        options.color = *colorModeFromText(color);
        options.theme = theme;
        options.explode = explode;
        options.selectHost = selectHost;
        options.size = QSize(1280, 800);
        options.sourceDescription = demo ? QStringLiteral("demo cluster") : QStringLiteral("capture golden.slicescope.json");
        QString error;
        const QImage actual = renderScreenshot(demo ? DemoCluster().capture() : goldenCluster(), options, &error);
        QVERIFY2(!actual.isNull(), qPrintable(error));

        checkGolden(name, actual);
    }

    // The composer with the demo, as an operator sees it before confirming: v6e 4x4 x2 fits,
    // the review lists the slices and the exact job.
    void composer()
    {
        applyLook(*qApp, Theme::light());
        DemoSource source; // never started: its clock does not move
        DemoClusterActions actions(&source);
        SliceComposer composer;
        composer.setActions(&actions);
        composer.setSnapshot(buildSnapshot(source.cluster().capture()));
        composer.resize(420, 780);
        composer.findChild<QSpinBox *>(QStringLiteral("numSlices"))->setValue(2);
        composer.findChild<QLineEdit *>(QStringLiteral("name"))->setText(QStringLiteral("team-a"));
        composer.findChild<QPushButton *>(QStringLiteral("review"))->click();
        QVERIFY(composer.isReviewing());
        checkGolden(QStringLiteral("composer-v6e-4x4-x2"), composer.grab().toImage().convertToFormat(QImage::Format_RGB32));
    }

private:
    void checkGolden(const QString &name, const QImage &actual)
    {
        const QString goldenPath = goldenDir() + u'/' + name + QStringLiteral(".png");
        if (qEnvironmentVariableIntValue("SLICESCOPE_RECORD_GOLDENS") == 1) {
            QDir().mkpath(goldenDir());
            QVERIFY(actual.save(goldenPath));
            qWarning("recorded %s: look at it before committing", qPrintable(goldenPath));
            return;
        }
        const QImage golden(goldenPath);
        QVERIFY2(!golden.isNull(), qPrintable(QStringLiteral("no golden %1: record with SLICESCOPE_RECORD_GOLDENS=1").arg(goldenPath)));
        QImage diff;
        const Comparison c = compare(actual, golden.convertToFormat(QImage::Format_RGB32), &diff);
        if (!c.same) {
            const QString out = QDir::currentPath() + u'/' + name;
            actual.save(out + QStringLiteral(".actual.png"));
            if (!diff.isNull())
                diff.save(out + QStringLiteral(".diff.png"));
            QFAIL(qPrintable(QStringLiteral("%1: %2 (wrote %3.actual.png and .diff.png)").arg(name, c.message, out)));
        }
    }
};

int main(int argc, char **argv)
{
    pinRenderingEnvironment(true);
    QApplication app(argc, argv);
    TestGoldens test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_goldens.moc"
