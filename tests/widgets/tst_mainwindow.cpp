// SPDX-License-Identifier: GPL-3.0-or-later
// The window keeps the last good view when a capture cannot be read, and says what failed.

#include "democluster.h"
#include "joblogview.h"
#include "mainwindow.h"
#include "source.h"
#include "workspace.h"

#include <QApplication>
#include <QFile>
#include <QDockWidget>
#include <QImage>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QStatusBar>
#include <QStackedWidget>
#include <QTreeView>
#include <QTemporaryDir>
#include <QTest>

using namespace slicescope;

namespace {

// A source whose captures the test pushes.
class PushSource : public Source
{
public:
    QString description() const override { return QStringLiteral("test source"); }
    void start() override { }
    void push(const Capture &c) { Q_EMIT captureReceived(c); }
    void fail(const QString &m) { Q_EMIT failed(m); }
};

} // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void aVanishedKubeContextIsNeverSubstituted()
    {
        MainWindow window(MainWindow::Mode::Screenshot);
        QStringList made; // the contexts sources were made for, in order
        auto make = [&made](const QString &context, QString *) -> std::unique_ptr<Source> {
            made << context;
            return std::make_unique<StaticSource>(DemoCluster().capture(), QStringLiteral("context %1").arg(context));
        };
        window.setSource(make(QStringLiteral("prod-a"), nullptr));
        made.clear();
        window.setKubeContexts({QStringLiteral("prod-a"), QStringLiteral("prod-b"), QStringLiteral("prod-c")}, QStringLiteral("prod-a"), make);
        auto *menu = window.findChild<QMenu *>(QStringLiteral("kubeContextMenu"));
        QVERIFY(menu && menu->isEnabled());
        auto checked = [menu] {
            QStringList names;
            for (QAction *a : menu->actions())
                if (a->isChecked())
                    names << a->data().toString();
            return names;
        };
        QCOMPARE(checked(), QStringList{QStringLiteral("prod-a")});
        menu->actions().at(1)->trigger();
        QCOMPARE(window.kubeContext(), QStringLiteral("prod-b"));
        QCOMPARE(made, QStringList{QStringLiteral("prod-b")});

        // The kubeconfig is read again: prod-b is gone from it, and its current-context says prod-a.
        window.setKubeContexts({QStringLiteral("prod-a"), QStringLiteral("prod-c")}, QStringLiteral("prod-a"), make);
        QCOMPARE(window.kubeContext(), QStringLiteral("prod-b")); // still the one in use, not its neighbour
        QCOMPARE(made, QStringList{QStringLiteral("prod-b")});    // and no other source was made
        QCOMPARE(checked(), QStringList{QStringLiteral("prod-b")});
        QAction *gone = menu->actions().last();
        QCOMPARE(gone->data().toString(), QStringLiteral("prod-b"));
        QVERIFY(!gone->isEnabled());
        QVERIFY2(gone->text().contains(QLatin1String("no longer in the kubeconfig")), qPrintable(gone->text()));
        QVERIFY2(window.statusBar()->currentMessage().contains(QLatin1String("prod-b is no longer in the kubeconfig")),
                 qPrintable(window.statusBar()->currentMessage()));

        // A context asked for by a name that is no longer listed is refused, not replaced.
        window.switchKubeContext(QStringLiteral("prod-gone"));
        QCOMPARE(window.kubeContext(), QStringLiteral("prod-b"));
        QCOMPARE(made, QStringList{QStringLiteral("prod-b")});
        QVERIFY2(window.statusText().contains(QLatin1String("context prod-gone is no longer in the kubeconfig; still on prod-b")),
                 qPrintable(window.statusText()));
        QCOMPARE(checked(), QStringList{QStringLiteral("prod-b")});

        // One still listed switches as asked.
        for (QAction *a : menu->actions())
            if (a->data().toString() == QLatin1String("prod-c"))
                a->trigger();
        QCOMPARE(window.kubeContext(), QStringLiteral("prod-c"));
        QCOMPARE(made, (QStringList{QStringLiteral("prod-b"), QStringLiteral("prod-c")}));
        QCOMPARE(checked(), QStringList{QStringLiteral("prod-c")});
    }

    void theJobLogDockSaysWhyItIsEmptyWithoutLiveRay()
    {
        // Only a live Ray has logs to tail: the demo and recordings get a sentence, not an empty list.
        MainWindow window(MainWindow::Mode::Screenshot);
        auto *dock = window.findChild<QDockWidget *>(QStringLiteral("jobLogDock"));
        QVERIFY(dock);
        auto *stack = qobject_cast<QStackedWidget *>(dock->widget());
        QVERIFY(stack);
        auto *empty = window.findChild<QLabel *>(QStringLiteral("jobLogEmpty"));
        QVERIFY(empty);
        QVERIFY(window.jobLogUnavailableReason().contains(QLatin1String("No source")));

        window.setSource(std::make_unique<DemoSource>());
        QVERIFY2(window.jobLogUnavailableReason().contains(QLatin1String("demo")), qPrintable(window.jobLogUnavailableReason()));
        QCOMPARE(empty->text(), window.jobLogUnavailableReason());
        QCOMPARE(stack->currentWidget(), empty);

        auto owned = std::make_unique<PushSource>();
        PushSource *source = owned.get();
        window.setSource(std::move(owned));
        source->push(DemoCluster().capture());
        QVERIFY2(window.jobLogUnavailableReason().contains(QLatin1String("test source is a recording")), qPrintable(window.jobLogUnavailableReason()));
        QCOMPARE(stack->currentWidget(), empty);
        QCOMPARE(window.jobList()->model()->rowCount(), 0); // nothing to pick that could not be followed
        window.followJob(QStringLiteral("raysubmit_x")); // and asking does nothing
        QVERIFY(window.followedJob().isEmpty());
        QVERIFY(window.jobLog()->text().isEmpty());
    }

    void badCaptureKeepsTheLastGoodView()
    {
        MainWindow window(MainWindow::Mode::Screenshot);
        auto owned = std::make_unique<PushSource>();
        PushSource *source = owned.get();
        window.setSource(std::move(owned));
        source->push(DemoCluster().capture());
        const SnapshotPtr good = window.snapshot();
        QVERIFY(good);
        QVERIFY(window.workspace()->showSlice(QStringLiteral("v6e-4x4-1")));

        Capture broken = DemoCluster().capture();
        broken.rayNodes.chop(broken.rayNodes.size() / 2); // cut mid-body
        source->push(broken);
        QCOMPARE(window.snapshot(), good); // not replaced
        QCOMPARE(window.workspace()->currentSlice(), QStringLiteral("v6e-4x4-1"));
        QVERIFY2(window.statusText().contains(QLatin1String("ray.nodes")) && window.statusText().contains(QLatin1String("last good")),
                 qPrintable(window.statusText()));

        source->fail(QStringLiteral("GET http://127.0.0.1:8265/api/v0/nodes: connection refused"));
        QCOMPARE(window.snapshot(), good);
        QVERIFY(window.statusText().contains(QLatin1String("connection refused")));

        // The next good capture clears the error and keeps the slice the operator was looking at.
        DemoCluster later;
        later.advance(5000);
        source->push(later.capture());
        QVERIFY(window.snapshot() != good);
        QVERIFY(!window.statusText().contains(QLatin1String("Error")));
        QCOMPARE(window.workspace()->currentSlice(), QStringLiteral("v6e-4x4-1"));
    }

    // Found by the soak (issue 13): every failed retry of a long outage added a row to the
    // problems list. One row per distinct error, the newest on top, at most eight.
    void aLongOutageKeepsTheProblemsListBounded()
    {
        MainWindow window(MainWindow::Mode::Screenshot);
        auto owned = std::make_unique<PushSource>();
        PushSource *source = owned.get();
        window.setSource(std::move(owned));
        source->push(DemoCluster().capture());
        auto *problems = window.findChild<QListWidget *>(QStringLiteral("problems"));
        QVERIFY(problems);
        const int before = problems->count();
        for (int i = 0; i < 500; ++i)
            source->fail(QStringLiteral("GET http://127.0.0.1:8265/api/v0/nodes: connection refused"));
        QCOMPARE(problems->count(), before + 1);
        QVERIFY(problems->item(0)->text().contains(QLatin1String("connection refused")));
        for (int i = 0; i < 20; ++i)
            source->fail(QStringLiteral("watch %1 was cut").arg(i));
        QCOMPARE(problems->count(), before + 8);
        QVERIFY(problems->item(0)->text().contains(QLatin1String("watch 19 was cut")));
        DemoCluster later;
        later.advance(5000);
        source->push(later.capture()); // a good snapshot clears them
        for (int row = 0; row < problems->count(); ++row)
            QVERIFY(!problems->item(row)->text().startsWith(QLatin1String("Error:")));
    }

    void exportsTheSliceViewAsPngAndSvg()
    {
        MainWindow window(MainWindow::Mode::Screenshot);
        window.setSource(std::make_unique<StaticSource>(DemoCluster().capture(), QStringLiteral("demo")));
        QTemporaryDir dir;
        QVERIFY(window.workspace()->showSlice(QStringLiteral("v6e-2x4-0")));
        const QString png = dir.filePath(QStringLiteral("s.png")), svg = dir.filePath(QStringLiteral("s.svg"));
        QCOMPARE(window.exportSliceViewTo(png, QSize(800, 500)), QString());
        QCOMPARE(QImage(png).size(), QSize(800, 500));
        QCOMPARE(window.exportSliceViewTo(svg, QSize(800, 500)), QString());
        QFile f(svg);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray text = f.readAll();
        QVERIFY(text.contains("<svg"));
        QVERIFY(text.contains("v6e-2x4-0")); // real text, not a bitmap
        QVERIFY2(text.count("<path") + text.count("<polygon") + text.count("<polyline") > 8, "chips are vector shapes");
    }
};

int main(int argc, char **argv)
{
    pinRenderingEnvironment(true);
    QApplication app(argc, argv);
    TestMainWindow test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_mainwindow.moc"
