// SPDX-License-Identifier: GPL-3.0-or-later
// Golden images of the main views, rendered through the same renderScreenshot() the
// `slicescope screenshot` verb uses. The environment is pinned (offscreen, 96 DPI, scale 1,
// Fusion, fixed palette, the DejaVu Sans resource font, no animations). Comparison tolerates small
// per-channel differences on a small share of pixels; a failure writes the actual image and a diff
// next to the build. Re-record with SLICESCOPE_RECORD_GOLDENS=1, then LOOK at every image.

#include "../common/golden.h"
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

// A v6e 4x4 held by two groups and partly free (worker 2: 2 of 4 chips), a v5p 4x4x4 with a dead
// host, and a v6e 4x4 with a missing host: the states the demo does not show at start.
Capture goldenCluster()
{
    CaptureBuilder b;
    b.addHeadNode(hexId(QStringLiteral("head"), 56), QStringLiteral("10.0.0.2"));
    const QStringList a = b.addSlice({QStringLiteral("v6e-a-0"), QStringLiteral("TPU-V6E"), QStringLiteral("v6e-16"), QStringLiteral("4x4"), QStringLiteral("v6e-a"), 4, 4, {}, {}, {}, {}});
    b.addSlice({QStringLiteral("v5p-b-0"), QStringLiteral("TPU-V5P"), QStringLiteral("v5p-128"), QStringLiteral("4x4x4"), QStringLiteral("v5p-b"), 16, 4, {5}, {}, {}, {}});
    b.addSlice({QStringLiteral("v6e-c-0"), QStringLiteral("TPU-V6E"), QStringLiteral("v6e-16"), QStringLiteral("4x4"), QStringLiteral("v6e-c"), 4, 4, {}, {3}, {}, {}});
    const QString train = hexId(QStringLiteral("pg/train"), 36), notebook = hexId(QStringLiteral("pg/notebook"), 36);
    QJsonArray trainBundles;
    for (int w = 0; w < 2; ++w)
        trainBundles.append(CaptureBuilder::bundle(train, w, QJsonObject{{QStringLiteral("CPU"), 1.0}, {QStringLiteral("TPU"), 4.0}}, a[w]));
    b.addPlacementGroup(train, QStringLiteral("train"), QStringLiteral("CREATED"), QStringLiteral("FINISHED"), false, trainBundles);
    b.addPlacementGroup(notebook, QStringLiteral("notebook"), QStringLiteral("CREATED"), QStringLiteral("FINISHED"), false,
                        QJsonArray{CaptureBuilder::bundle(notebook, 0, QJsonObject{{QStringLiteral("CPU"), 1.0}, {QStringLiteral("TPU"), 2.0}}, a[2])});
    return b.capture(false);
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
        QTest::addColumn<QSize>("size");
        QTest::addColumn<QString>("open");
        QTest::newRow("demo overview") << QStringLiteral("demo-overview") << true << QStringLiteral("overview") << QStringLiteral("bundle")
                                       << QStringLiteral("light") << 0.0 << -1 << QSize(1280, 800) << QString();
        QTest::newRow("v6e 4x4 by worker") << QStringLiteral("v6e-4x4-worker") << false << QStringLiteral("slice:v6e-a-0")
                                           << QStringLiteral("worker") << QStringLiteral("light") << 0.0 << 2 << QSize(1280, 800) << QString();
        QTest::newRow("v6e 4x4 by bundle, partly reserved host") << QStringLiteral("v6e-4x4-bundle") << false << QStringLiteral("slice:v6e-a-0")
                                                                 << QStringLiteral("bundle") << QStringLiteral("light") << 0.0 << 2 << QSize(1280, 800) << QString();
        QTest::newRow("v5p 4x4x4 exploded by state, dead host") << QStringLiteral("v5p-4x4x4-state-exploded") << false << QStringLiteral("slice:v5p-b-0")
                                                                << QStringLiteral("state") << QStringLiteral("light") << 1.0 << 5 << QSize(1280, 800) << QString();
        QTest::newRow("missing host") << QStringLiteral("v6e-missing-host") << false << QStringLiteral("slice:v6e-c-0")
                                      << QStringLiteral("worker") << QStringLiteral("light") << 0.0 << -1 << QSize(1280, 800) << QString();
        QTest::newRow("dark overview") << QStringLiteral("demo-overview-dark") << true << QStringLiteral("overview") << QStringLiteral("bundle")
                                       << QStringLiteral("dark") << 0.0 << -1 << QSize(1280, 800) << QString();
        QTest::newRow("dark slice") << QStringLiteral("demo-slice-dark") << true << QStringLiteral("slice:v6e-2x4-0") << QStringLiteral("bundle")
                                    << QStringLiteral("dark") << 0.0 << 0 << QSize(1280, 800) << QString();
        // Issue 17: a small laptop and a wide monitor, light and dark; with the composer dock and
        // the scale dialog open (the dialog drawn over the window's middle).
        const QSize small(1024, 700), wide(1920, 1080);
        const QString overview = QStringLiteral("overview"), slice = QStringLiteral("slice:v6e-4x4-3");
        const QString bundle = QStringLiteral("bundle"), light = QStringLiteral("light"), dark = QStringLiteral("dark");
        QTest::newRow("overview 1024x700") << QStringLiteral("overview-1024x700") << true << overview << bundle << light << 0.0 << -1 << small << QString();
        QTest::newRow("overview 1024x700 dark") << QStringLiteral("overview-1024x700-dark") << true << overview << bundle << dark << 0.0 << -1 << small << QString();
        QTest::newRow("overview 1920x1080") << QStringLiteral("overview-1920x1080") << true << overview << bundle << light << 0.0 << -1 << wide << QString();
        QTest::newRow("overview 1920x1080 dark") << QStringLiteral("overview-1920x1080-dark") << true << overview << bundle << dark << 0.0 << -1 << wide << QString();
        QTest::newRow("degraded slice 1024x700") << QStringLiteral("slice-degraded-1024x700") << true << slice << QStringLiteral("state") << light << 0.0 << 2 << small << QString();
        QTest::newRow("degraded slice 1920x1080 dark") << QStringLiteral("slice-degraded-1920x1080-dark") << true << slice << QStringLiteral("state") << dark << 0.0 << 2 << wide << QString();
        QTest::newRow("composer 1024x700") << QStringLiteral("composer-open-1024x700") << true << QStringLiteral("slice:v6e-4x4-1") << bundle << light << 0.0 << -1 << small << QStringLiteral("composer");
        QTest::newRow("composer 1920x1080 dark") << QStringLiteral("composer-open-1920x1080-dark") << true << QStringLiteral("slice:v6e-4x4-1") << bundle << dark << 0.0 << -1 << wide << QStringLiteral("composer");
        QTest::newRow("scale dialog 1024x700 dark") << QStringLiteral("scale-open-1024x700-dark") << true << overview << bundle << dark << 0.0 << -1 << small << QStringLiteral("scale");
        QTest::newRow("scale dialog 1920x1080") << QStringLiteral("scale-open-1920x1080") << true << overview << bundle << light << 0.0 << -1 << wide << QStringLiteral("scale");
        // The other theme of each at each size: every view at both sizes, light and dark.
        QTest::newRow("degraded slice 1024x700 dark") << QStringLiteral("slice-degraded-1024x700-dark") << true << slice << QStringLiteral("state") << dark << 0.0 << 2 << small << QString();
        QTest::newRow("degraded slice 1920x1080") << QStringLiteral("slice-degraded-1920x1080") << true << slice << QStringLiteral("state") << light << 0.0 << 2 << wide << QString();
        QTest::newRow("composer 1024x700 dark") << QStringLiteral("composer-open-1024x700-dark") << true << QStringLiteral("slice:v6e-4x4-1") << bundle << dark << 0.0 << -1 << small << QStringLiteral("composer");
        QTest::newRow("composer 1920x1080") << QStringLiteral("composer-open-1920x1080") << true << QStringLiteral("slice:v6e-4x4-1") << bundle << light << 0.0 << -1 << wide << QStringLiteral("composer");
        QTest::newRow("scale dialog 1024x700") << QStringLiteral("scale-open-1024x700") << true << overview << bundle << light << 0.0 << -1 << small << QStringLiteral("scale");
        QTest::newRow("scale dialog 1920x1080 dark") << QStringLiteral("scale-open-1920x1080-dark") << true << overview << bundle << dark << 0.0 << -1 << wide << QStringLiteral("scale");
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
        QFETCH(QSize, size);
        QFETCH(QString, open);

        ScreenshotOptions options;
        options.view = view;
        options.color = *colorModeFromText(color);
        options.theme = theme;
        options.explode = explode;
        options.selectHost = selectHost;
        options.size = size;
        options.open = open;
        options.sourceDescription = demo ? QStringLiteral("demo cluster") : QStringLiteral("capture golden.slicescope.json");
        QString error;
        const QImage actual = renderScreenshot(demo ? DemoCluster().capture() : goldenCluster(), options, &error);
        QVERIFY2(!actual.isNull(), qPrintable(error));

        SLICESCOPE_VERIFY_GOLDEN(name, actual);
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
        SLICESCOPE_VERIFY_GOLDEN(QStringLiteral("composer-v6e-4x4-x2"), composer.grab().toImage().convertToFormat(QImage::Format_RGB32));
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
