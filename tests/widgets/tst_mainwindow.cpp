// SPDX-License-Identifier: GPL-3.0-or-later
// The window keeps the last good view when a capture cannot be read, and says what failed. A
// recording opened from a file gets its alert ticks; View > Alert thresholds... edits the
// engine's thresholds, keeps them in the settings, and refuses what it cannot read.

#include "alertthresholdsdialog.h"
#include "../model/fleetcapturefixture.h"
#include "capturefile.h"
#include "democluster.h"
#include "fleetoverview.h"
#include "fleettables.h"
#include "itemmodels.h"
#include "joblogview.h"
#include "connectdialog.h"
#include "commandpalette.h"
#include "detailspanel.h"
#include "mainwindow.h"
#include "messagebar.h"
#include "navrail.h"
#include "source.h"
#include "sliceview.h"
#include "timeline.h"
#include "workspace.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDesktopServices>
#include <QFile>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QStyleOptionComboBox>
#include <QStandardPaths>
#include <QStackedWidget>
#include <QTableView>
#include <QToolButton>
#include <QTreeView>
#include <QTreeWidget>
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

// The demo cluster in a shown 1280x800 window (the tests that type into it need it exposed).
bool showDemo(MainWindow &window)
{
    window.setSource(std::make_unique<StaticSource>(DemoCluster().capture(), QStringLiteral("demo")));
    window.resize(1280, 800);
    window.show();
    return QTest::qWaitForWindowExposed(&window);
}

// SLICESCOPE_SAVE_GRABS=DIR keeps what a test saw as DIR/NAME.png, to look at (not compared).
void saveGrab(QWidget &widget, const QString &name)
{
    if (const QString dir = qEnvironmentVariable("SLICESCOPE_SAVE_GRABS"); !dir.isEmpty())
        widget.grab().save(dir + u'/' + name + QStringLiteral(".png"));
}

// Takes the URLs the window would open in a browser (QDesktopServices::setUrlHandler).
class UrlCatcher : public QObject
{
    Q_OBJECT
public:
    QList<QUrl> urls;
public Q_SLOTS:
    void open(const QUrl &url) { urls << url; }
};

} // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // the settings tests must not touch the user's
        QCoreApplication::setOrganizationName(QStringLiteral("SliceScopeTests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_mainwindow"));
        QSettings().clear();
    }

    void aRecordingGetsItsAlertTicks()
    {
        // Three minutes of the demo, a capture every 15 s, as `record` writes them: a host dies
        // under a reservation at 09:01:30.
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("story.slicescope.jsonl"));
        QList<Capture> story;
        {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            DemoCluster demo;
            for (int i = 0; i < 13; ++i) {
                if (i > 0)
                    demo.advance(15000);
                story << demo.capture();
                file.write(serializeCapture(story.last()) + '\n');
            }
        }
        MainWindow window(MainWindow::Mode::Screenshot);
        window.setSource(std::make_unique<CaptureFileSource>(path));
        QTRY_COMPARE(window.history()->size(), story.size());
        const AlertTickLog &ticks = window.timeline()->alertTicks();
        // Every capture went through the engine in order: the ticks are where alerts began.
        QStringList began;
        for (const AlertTick &t : ticks.ticks())
            began << QStringLiteral("%1 %2").arg(window.history()->indexOfSerial(t.serial)).arg(t.id);
        AlertEngine replay;
        QSet<QString> before;
        QStringList expected;
        for (int i = 0; i < story.size(); ++i) {
            replay.observe(*buildSnapshot(story[i]));
            QSet<QString> now;
            for (const Alert &a : replay.alerts()) {
                if (a.rollup)
                    continue;
                now.insert(a.id);
                if (!before.contains(a.id))
                    expected << QStringLiteral("%1 %2").arg(i).arg(a.id);
            }
            before = now;
        }
        QCOMPARE(began, expected);
        // The host that dies at 09:01:30 degrades its slice there (v6e-4x4-3 was degraded from the start).
        const qint64 death = QDateTime(QDate(2026, 11, 29), QTime(9, 1, 30), Qt::UTC).toMSecsSinceEpoch();
        const auto died = std::find_if(ticks.ticks().begin(), ticks.ticks().end(), [&](const AlertTick &t) { return t.kind == AlertKind::SliceDegraded && t.timeMs == death; });
        QVERIFY2(died != ticks.ticks().end(), qPrintable(began.join(u'\n')));
        QCOMPARE(died->selectSlice, QStringLiteral("v6e-4x4-2"));
        QCOMPARE(died->text, QStringLiteral("v6e-4x4-2 is degraded: worker 1 is DEAD"));
        QCOMPARE(window.history()->time(0), QDateTime(QDate(2026, 11, 29), QTime(9, 0), Qt::UTC));
        QVERIFY(std::any_of(ticks.ticks().begin(), ticks.ticks().end(), [&](const AlertTick &t) { return t.selectSlice == QLatin1String("v6e-4x4-3") && t.serial == window.history()->serial(0); }));
        // The engine's alerts are the recording's end, as `alerts --capture` reports them.
        QCOMPARE(window.alerts().alerts(), replay.alerts());
    }

    // File > Connect (issue 16): the kubeconfig's contexts as checkboxes, the current one checked
    // the first time; Connect makes the source for exactly the contexts checked, and the choice comes
    // back checked the next time. A namespace that is no DNS label cannot be sent.
    void connectDialogWatchesTheChosenContexts()
    {
        QSettings().clear();
        MainWindow window(MainWindow::Mode::Interactive);
        auto *action = window.findChild<QAction *>(QStringLiteral("connectAction"));
        QVERIFY(action);
        QVERIFY(!action->isVisible()); // no connector: the browser build
        QList<ConnectChoice> made;
        MainWindow::KubeConnector connector;
        connector.list = [](QStringList *contexts, QString *current, QStringList *files) {
            *contexts = {QStringLiteral("gke_us"), QStringLiteral("gke_eu"), QStringLiteral("kind-dev")};
            *current = QStringLiteral("gke_eu");
            *files = {QStringLiteral("/home/op/.kube/config")};
            return QString();
        };
        connector.connect = [&made](const ConnectChoice &choice, QString *) -> std::unique_ptr<Source> {
            made << choice;
            return std::make_unique<StaticSource>(DemoCluster().capture(), QStringLiteral("contexts %1").arg(choice.contexts.join(u',')));
        };
        window.setKubeConnector(connector);
        QVERIFY(action->isVisible());

        action->trigger();
        auto *dialog = window.findChild<ConnectDialog *>(QStringLiteral("connectDialog"));
        QVERIFY(dialog);
        QTRY_VERIFY(dialog->isVisible());
        QCOMPARE(dialog->choice().contexts, QStringList{QStringLiteral("gke_eu")}); // the current one, the first time
        auto *list = dialog->findChild<QListWidget *>(QStringLiteral("contexts"));
        list->item(0)->setCheckState(Qt::Checked);
        auto *connectButton = dialog->findChild<QPushButton *>(QStringLiteral("connect"));
        auto *ns = dialog->findChild<QLineEdit *>(QStringLiteral("namespace"));
        ns->setText(QStringLiteral("Team_A")); // not a DNS label: refused before anything is sent
        QVERIFY(!connectButton->isEnabled());
        QVERIFY(dialog->findChild<QLabel *>(QStringLiteral("connectStatus"))->text().contains(QLatin1String("Team_A")));
        ns->setText(QStringLiteral("team-a"));
        QVERIFY(connectButton->isEnabled());
        QTest::mouseClick(connectButton, Qt::LeftButton);
        QCOMPARE(made.size(), 1);
        QCOMPARE(made.first().contexts, (QStringList{QStringLiteral("gke_us"), QStringLiteral("gke_eu")}));
        QCOMPARE(made.first().ns, QStringLiteral("team-a"));
        QTRY_VERIFY2(window.statusText().contains(QLatin1String("Source: contexts gke_us,gke_eu")), qPrintable(window.statusText()));

        // Remembered: the next time the same contexts come checked.
        action->trigger();
        QTRY_VERIFY(dialog->isVisible());
        QCOMPARE(dialog->choice().contexts, (QStringList{QStringLiteral("gke_us"), QStringLiteral("gke_eu")}));
        QCOMPARE(dialog->choice().ns, QStringLiteral("team-a"));
        dialog->findChild<QPushButton *>(QStringLiteral("checkNone"))->click();
        QVERIFY(!connectButton->isEnabled()); // nothing checked: nothing to connect to
        dialog->reject();
        QCOMPARE(made.size(), 1);
    }

    void alertThresholdsRoundTrip()
    {
        QSettings().clear();
        MainWindow window(MainWindow::Mode::Interactive);
        QCOMPARE(window.alertThresholds(), AlertThresholds());
        auto open = [&window]() -> AlertThresholdsDialog * {
            auto *action = window.findChild<QAction *>(QStringLiteral("alertThresholdsAction"));
            if (!action)
                return nullptr;
            action->trigger();
            return window.findChild<AlertThresholdsDialog *>(QStringLiteral("alertThresholdsDialog"));
        };
        AlertThresholdsDialog *dialog = open();
        QVERIFY(dialog);
        QTRY_VERIFY(dialog->isVisible());
        QCOMPARE(dialog->windowModality(), Qt::WindowModal); // open(), not exec(): no nested loop
        // The fields say the defaults as the CLI's options would be given.
        QStringList shown;
        for (const ThresholdField f : kThresholdFields)
            shown << dialog->findChild<QLineEdit *>(optionName(f))->text();
        QCOMPARE(shown, (QStringList{QStringLiteral("5"), QStringLiteral("10m"), QStringLiteral("5m"), QStringLiteral("1m"), QStringLiteral("1m"), QStringLiteral("50")}));

        dialog->field(ThresholdField::IdleBelow)->setText(QStringLiteral("2.5%"));
        dialog->field(ThresholdField::IdleAfter)->setText(QStringLiteral("90s"));
        dialog->field(ThresholdField::PendingAfter)->setText(QStringLiteral("0s"));
        dialog->field(ThresholdField::MetricsMissingAfter)->setText(QStringLiteral("2h"));
        dialog->field(ThresholdField::ClearHold)->setText(QStringLiteral("1500ms"));
        dialog->field(ThresholdField::MaxPerKind)->setText(QStringLiteral("7"));
        dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->click();
        AlertThresholds wanted;
        wanted.idleBelowPercent = 2.5;
        wanted.idleAfterMs = 90000;
        wanted.pendingAfterMs = 0;
        wanted.metricsMissingAfterMs = 2 * 3600 * 1000;
        wanted.clearHoldMs = 1500;
        wanted.maxPerKind = 7;
        QCOMPARE(window.alertThresholds(), wanted);
        QCOMPARE(window.alerts().thresholds(), wanted);
        QTRY_VERIFY(!window.findChild<AlertThresholdsDialog *>()); // closed and deleted
        {
            QSettings settings;
            QCOMPARE(settings.value(QStringLiteral("alerts/idle-below")).toString(), QStringLiteral("2.5"));
            QCOMPARE(settings.value(QStringLiteral("alerts/idle-after")).toString(), QStringLiteral("90s"));
            QCOMPARE(settings.value(QStringLiteral("alerts/pending-after")).toString(), QStringLiteral("0s"));
            QCOMPARE(settings.value(QStringLiteral("alerts/metrics-missing-after")).toString(), QStringLiteral("2h"));
            QCOMPARE(settings.value(QStringLiteral("alerts/clear-hold")).toString(), QStringLiteral("1500ms"));
            QCOMPARE(settings.value(QStringLiteral("alerts/max-per-kind")).toString(), QStringLiteral("7"));
        }
        // The next window starts with them.
        QCOMPARE(MainWindow(MainWindow::Mode::Interactive).alertThresholds(), wanted);
        // A screenshot is deterministic: the defaults, whatever the settings say.
        QCOMPARE(MainWindow(MainWindow::Mode::Screenshot).alertThresholds(), AlertThresholds());

        // What cannot be read is refused, named, and nothing is applied or kept.
        dialog = open();
        QVERIFY(dialog);
        QTRY_VERIFY(dialog->isVisible());
        QCOMPARE(dialog->field(ThresholdField::IdleAfter)->text(), QStringLiteral("90s"));
        dialog->field(ThresholdField::IdleAfter)->setText(QStringLiteral("soon"));
        dialog->field(ThresholdField::IdleBelow)->setText(QStringLiteral("1"));
        dialog->field(ThresholdField::MaxPerKind)->setText(QStringLiteral("0"));
        dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->click();
        QVERIFY(dialog->isVisible());
        auto *message = dialog->findChild<MessageBar *>(QStringLiteral("alertThresholdsMessage"));
        QVERIFY(message && message->isVisible());
        QCOMPARE(message->kind(), MessageBar::Kind::Error);
        QVERIFY2(message->text().contains(QLatin1String("Idle after wants a time like 0s, 90s, 5m or 1h, not \"soon\"")), qPrintable(message->text()));
        QVERIFY2(message->text().contains(QLatin1String("Max per kind wants a count from 1 to 100000, not \"0\"")), qPrintable(message->text()));
        QCOMPARE(window.alertThresholds(), wanted); // the good idle-below was not applied either
        QCOMPARE(QSettings().value(QStringLiteral("alerts/idle-below")).toString(), QStringLiteral("2.5"));
        // Restore defaults fills the fields (and clears the message); Cancel applies nothing.
        dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::RestoreDefaults)->click();
        QCOMPARE(dialog->field(ThresholdField::IdleAfter)->text(), QStringLiteral("10m"));
        QVERIFY(!message->isVisible());
        dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Cancel)->click();
        QCOMPARE(window.alertThresholds(), wanted);
        QSettings().clear();
    }

    void thresholdsChangeWhatFires()
    {
        // The demo's reservations are idle at first. Its Prometheus has seen rl-rollout idle for
        // its 10 min window, which the default idle-after (10 min) takes at once; asked for 20
        // min, nothing has been seen that long, and with idle-after 0s every idle one fires.
        MainWindow window(MainWindow::Mode::Screenshot);
        auto owned = std::make_unique<PushSource>();
        PushSource *source = owned.get();
        window.setSource(std::move(owned));
        auto idle = [&window] {
            return std::count_if(window.alerts().alerts().begin(), window.alerts().alerts().end(), [](const Alert &a) { return a.kind == AlertKind::ReservedIdle; });
        };
        AlertThresholds longer;
        longer.idleAfterMs = 20 * 60 * 1000;
        window.setAlertThresholds(longer);
        source->push(DemoCluster().capture());
        QCOMPARE(idle(), 0);
        AlertThresholds now;
        now.idleAfterMs = 0;
        window.setAlertThresholds(now);
        DemoCluster later;
        later.advance(5000);
        source->push(later.capture());
        QVERIFY(idle() > 0);
        // And it ticks where it began.
        QVERIFY(std::any_of(window.timeline()->alertTicks().ticks().begin(), window.timeline()->alertTicks().ticks().end(),
                            [&](const AlertTick &t) { return t.kind == AlertKind::ReservedIdle && t.serial == window.history()->serial(1); }));
    }

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

    // Ctrl+K (issue 17): the palette finds a slice by typing and opens it on Enter; actions and
    // views are there by their menu text, disabled ones are not.
    void thePaletteFindsASliceAndOpensIt()
    {
        MainWindow window(MainWindow::Mode::Screenshot);
        QVERIFY(showDemo(window));
        auto *action = window.findChild<QAction *>(QStringLiteral("commandPaletteAction"));
        QVERIFY(action);
        QCOMPARE(action->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_K));
        action->trigger();
        CommandPalette *palette = window.commandPalette();
        QVERIFY(palette && palette->isVisible());
        QTRY_VERIFY(palette->input()->hasFocus());
        QTest::keyClicks(palette->input(), QStringLiteral("v6e 2x4-0"));
        QVERIFY(palette->list()->count() >= 1);
        const PaletteEntry &first = palette->entries()[palette->currentEntry()];
        QCOMPARE(first.text, QStringLiteral("v6e-2x4-0"));
        QCOMPARE(first.kind, QStringLiteral("Slice"));
        QTest::keyClick(palette->input(), Qt::Key_Return);
        QVERIFY(!palette->isVisible());
        QCOMPARE(window.workspace()->page(), Workspace::Page::Slice);
        QCOMPARE(window.workspace()->currentSlice(), QStringLiteral("v6e-2x4-0"));

        // Opened again: a fresh list; the views and enabled actions by their menu text.
        action->trigger();
        QVERIFY(palette->input()->text().isEmpty());
        QTest::keyClicks(palette->input(), QStringLiteral("overview"));
        QVERIFY(palette->list()->count() >= 1);
        const PaletteEntry &view = palette->entries()[palette->currentEntry()];
        QCOMPARE(view.text, QStringLiteral("Overview"));
        QCOMPARE(view.kind, QStringLiteral("View"));
        QVERIFY(!view.shortcut.isEmpty());
        QTest::keyClick(palette->input(), Qt::Key_Return);
        QCOMPARE(window.workspace()->page(), Workspace::Page::Overview);
        // A disabled action is not offered (the capture file has no one to carry out a release).
        QAction *release = nullptr;
        for (QAction *a : window.findChildren<QAction *>())
            if (a->text() == QLatin1String("R&elease placement group...")) release = a;
        QVERIFY(release && !release->isEnabled());
        for (const PaletteEntry &e : window.paletteEntries())
            QVERIFY2(!e.text.startsWith(QLatin1String("Release placement group")), qPrintable(e.text));
        // Nothing matches: said, and Enter does nothing.
        action->trigger();
        QTest::keyClicks(palette->input(), QStringLiteral("no-such-thing-anywhere"));
        QCOMPARE(palette->list()->count(), 0);
        QVERIFY(palette->findChild<QLabel *>(QStringLiteral("paletteMore"))->text().contains(QLatin1String("Nothing matches")));
        QTest::keyClick(palette->input(), Qt::Key_Return);
        QVERIFY(palette->isVisible());
        QTest::keyClick(palette->input(), Qt::Key_Escape);
        QVERIFY(!palette->isVisible());
    }

    // Escape clears a search or filter box that has the focus (issue 17): the overview's search, the
    // tables' filter and the events filter; the overview shows every slice again.
    void escapeClearsTheSearch()
    {
        MainWindow window(MainWindow::Mode::Screenshot);
        QVERIFY(showDemo(window));
        auto *search = window.findChild<QLineEdit *>(QStringLiteral("overviewSearch"));
        QVERIFY(search);
        const int all = window.workspace()->overview()->shownSlices().size();
        QVERIFY(all > 1);
        search->setFocus();
        QTest::keyClicks(search, QStringLiteral("v6e-2x4"));
        QCOMPARE(window.workspace()->overview()->shownSlices().size(), 1);
        QTest::keyClick(search, Qt::Key_Escape);
        QVERIFY(search->text().isEmpty());
        QCOMPARE(window.workspace()->overview()->shownSlices().size(), all);
        auto *events = window.findChild<QLineEdit *>(QStringLiteral("eventFilter"));
        QVERIFY(events);
        window.findChild<QDockWidget *>(QStringLiteral("timelineDock"))->show();
        events->setText(QStringLiteral("degraded"));
        events->setFocus();
        QTRY_VERIFY(events->hasFocus());
        QTest::keyClick(events, Qt::Key_Escape);
        QVERIFY(events->text().isEmpty());
    }

    // Issue 17's layout rules: with every dock open a 1024x700 window keeps its size and its central
    // view keeps a usable one; View > Reset layout brings back the first run's docks.
    void docksNeverCrushTheCentralView()
    {
        MainWindow window(MainWindow::Mode::Screenshot);
        QVERIFY(showDemo(window));
        window.resize(1024, 700);
        QTRY_COMPARE(window.size(), QSize(1024, 700));
        const QList<QDockWidget *> docks = window.findChildren<QDockWidget *>();
        QVERIFY(docks.size() >= 6);
        QStringList shownAtFirst;
        for (QDockWidget *dock : docks)
            if (dock->isVisible())
                shownAtFirst << dock->objectName();
        for (QDockWidget *dock : docks)
            dock->show();
        QTest::qWait(50); // the layout settles
        for (QDockWidget *dock : docks)
            QVERIFY2(dock->isVisible(), qPrintable(dock->objectName()));
        QCOMPARE(window.size(), QSize(1024, 700));
        const QSize central = window.workspace()->size();
        const QSize minimum = window.centralMinimumSize();
        QVERIFY2(central.width() >= minimum.width() && central.height() >= minimum.height(),
                 qPrintable(QStringLiteral("central %1x%2, minimum %3x%4").arg(central.width()).arg(central.height()).arg(minimum.width()).arg(minimum.height())));
        QVERIFY(minimum.width() >= 300 && minimum.height() >= 200); // a usable size, not a token one
        saveGrab(window, QStringLiteral("every-dock-1024x700"));

        // Closing docks one by one (what each dock's close button does) never resizes or moves the
        // window, and the central view only gains room: nothing outside the closed dock's place
        // shifts under the pointer.
        const QRect frame = window.geometry();
        for (QDockWidget *dock : docks) {
            const QSize before = window.workspace()->size();
            dock->close();
            QTest::qWait(20);
            QCOMPARE(window.geometry(), frame);
            const QSize after = window.workspace()->size();
            QVERIFY2(after.width() >= before.width() && after.height() >= before.height(),
                     qPrintable(QStringLiteral("closing %1: central %2x%3 -> %4x%5").arg(dock->objectName()).arg(before.width()).arg(before.height()).arg(after.width()).arg(after.height())));
        }
        for (QDockWidget *dock : docks)
            dock->show();

        auto *reset = window.findChild<QAction *>(QStringLiteral("resetLayoutAction"));
        QVERIFY(reset);
        reset->trigger();
        QStringList shown;
        QTRY_VERIFY((shown = [&] {
                        QStringList out;
                        for (QDockWidget *dock : docks)
                            if (dock->isVisible())
                                out << dock->objectName();
                        return out;
                    }())
                    == shownAtFirst);
        QVERIFY(window.statusBar()->currentMessage().contains(QStringLiteral("Layout reset")));
    }

    // Issue 17: at 1024x700 with the composer open the slice page is about 390 px wide. Its bar
    // wraps rather than squeezes: every control keeps its size hint, inside the bar, none over
    // another, and every combo shows its whole current text ("v6" and "Bu" were all of "v6e-4x4-1"
    // and "Bundles" once). The slice is framed in what is left.
    void theSliceBarHoldsAt1024x700WithTheComposer_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<bool>("composer");
        QTest::addColumn<bool>("fleet");    // a fleet's long qualified slice names
        QTest::addColumn<bool>("activity"); // the activity colours add a third combo
        for (QSize size : {QSize(1024, 700), QSize(1920, 1080)})
            for (bool composer : {true, false})
                for (bool fleet : {false, true})
                    for (bool activity : {false, true})
                        QTest::addRow("%dx%d%s%s%s", size.width(), size.height(), composer ? " composer" : "", fleet ? " fleet" : "", activity ? " activity" : "")
                            << size << composer << fleet << activity;
    }
    void theSliceBarHoldsAt1024x700WithTheComposer()
    {
        QFETCH(QSize, size);
        QFETCH(bool, composer);
        QFETCH(bool, fleet);
        QFETCH(bool, activity);
        MainWindow window(MainWindow::Mode::Screenshot);
        const Capture capture = fleet ? testfixture::fleetOf({testfixture::twoClusterContext(QStringLiteral("gke_europe-west4")), testfixture::twoClusterContext(QStringLiteral("gke_us-central2"))})
                                      : DemoCluster().capture();
        window.setSource(std::make_unique<StaticSource>(capture, QStringLiteral("test")));
        window.resize(size);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        Workspace *ws = window.workspace();
        QString longest;
        for (const Slice &s : ws->snapshot()->slices)
            if (s.name.size() > longest.size())
                longest = s.name;
        QVERIFY(ws->showSlice(longest));
        ws->showPage(Workspace::Page::Slice);
        ws->setColorMode(activity ? ColorMode::Activity : ColorMode::Bundle);
        if (composer)
            window.openComposer();
        QTRY_COMPARE(window.size(), size);
        QTest::qWait(50); // the layout settles
        saveGrab(window, QStringLiteral("slice-bar-%1x%2%3%4").arg(size.width()).arg(size.height()).arg(composer ? QStringLiteral("-composer") : QString(), fleet ? QStringLiteral("-fleet") : QString()));

        auto *bar = ws->findChild<QWidget *>(QStringLiteral("sliceBar"));
        QVERIFY(bar);
        QVERIFY(bar->isVisible());
        if (composer && size.width() == 1024)
            QVERIFY2(bar->width() < 480, qPrintable(QString::number(bar->width()))); // the cramped case is the one tested
        QList<QWidget *> controls;
        for (QWidget *w : bar->findChildren<QWidget *>(Qt::FindDirectChildrenOnly))
            if (w->isVisible())
                controls << w;
        QVERIFY(controls.size() >= 6);
        for (qsizetype i = 0; i < controls.size(); ++i) {
            QWidget *w = controls[i];
            const QString what = QStringLiteral("%1 %2 at %3,%4 %5x%6 (hint %7 wide) in a bar %8x%9")
                                     .arg(QLatin1String(w->metaObject()->className()), w->objectName())
                                     .arg(w->x())
                                     .arg(w->y())
                                     .arg(w->width())
                                     .arg(w->height())
                                     .arg(w->sizeHint().width())
                                     .arg(bar->width())
                                     .arg(bar->height());
            QVERIFY2(bar->rect().contains(w->geometry()), qPrintable(what));
            QVERIFY2(w->width() >= w->sizeHint().width() && w->height() >= std::min(w->sizeHint().height(), bar->height()), qPrintable(what));
            for (qsizetype j = i + 1; j < controls.size(); ++j)
                QVERIFY2(!w->geometry().intersects(controls[j]->geometry()), qPrintable(what));
            // Inside a labelled group too (Gap and its slider; z and its range).
            for (QWidget *part : w->findChildren<QWidget *>(Qt::FindDirectChildrenOnly))
                if (part->isVisible() && !qobject_cast<QComboBox *>(w) && !qobject_cast<QAbstractButton *>(w))
                    QVERIFY2(part->width() >= std::min(part->sizeHint().width(), part->maximumWidth()), qPrintable(what + QStringLiteral(": ") + QLatin1String(part->metaObject()->className())));
        }
        int combos = 0;
        for (QComboBox *combo : bar->findChildren<QComboBox *>()) {
            if (!combo->isVisible())
                continue;
            ++combos;
            QStyleOptionComboBox option;
            option.initFrom(combo);
            option.editable = combo->isEditable();
            option.frame = combo->hasFrame();
            option.currentText = combo->currentText();
            const QRect field = combo->style()->subControlRect(QStyle::CC_ComboBox, &option, QStyle::SC_ComboBoxEditField, combo);
            const int text = combo->fontMetrics().horizontalAdvance(combo->currentText());
            QVERIFY2(!combo->currentText().isEmpty() && text <= field.width(),
                     qPrintable(QStringLiteral("\"%1\" needs %2 px, its combo shows %3").arg(combo->currentText()).arg(text).arg(field.width())));
            QVERIFY2(combo->width() >= combo->sizeHint().width(), qPrintable(combo->currentText()));
        }
        QCOMPARE(combos, activity ? 3 : 2);
        QCOMPARE(bar->findChild<QComboBox *>()->currentText(), longest);
        // Under the bar, the whole slice is in view.
        const SliceView *view = ws->sliceView();
        QVERIFY(view->geometry().top() >= bar->geometry().bottom());
        QVERIFY2(QRectF(view->rect()).contains(view->projection().boundingRect()), qPrintable(QStringLiteral("view %1x%2").arg(view->width()).arg(view->height())));
    }

    // Issue 17: File > Open, Save and Export follow the theme. They are Qt's own dialogs (a native
    // one follows the desktop's theme, not the window's), in the window's palette, and drawn dark
    // in the dark theme; in the light one, light.
    void fileDialogsFollowTheTheme_data()
    {
        QTest::addColumn<QString>("action");
        QTest::addColumn<QString>("dialogName");
        QTest::newRow("open") << QStringLiteral("&Open capture or recording...") << QStringLiteral("openFileDialog");
        QTest::newRow("save") << QStringLiteral("&Save capture...") << QStringLiteral("saveFileDialog");
        QTest::newRow("history") << QStringLiteral("Save &history as recording...") << QStringLiteral("saveFileDialog");
        QTest::newRow("export png") << QStringLiteral("Export slice view as &PNG...") << QStringLiteral("saveFileDialog");
        QTest::newRow("export svg") << QStringLiteral("Export slice view as S&VG...") << QStringLiteral("saveFileDialog");
    }
    void fileDialogsFollowTheTheme()
    {
        QFETCH(QString, action);
        QFETCH(QString, dialogName);
        MainWindow window(MainWindow::Mode::Screenshot);
        QVERIFY(showDemo(window));
        QAction *trigger = nullptr;
        for (QAction *a : window.findChildren<QAction *>())
            if (a->text() == action)
                trigger = a;
        QVERIFY2(trigger, qPrintable(action));
        auto meanLightness = [](const QImage &image) {
            qint64 sum = 0;
            for (int y = 0; y < image.height(); ++y)
                for (int x = 0; x < image.width(); ++x)
                    sum += image.pixelColor(x, y).lightness();
            return double(sum) / (qint64(image.width()) * image.height());
        };
        for (const Theme &theme : {Theme::dark(), Theme::light()}) {
            window.setTheme(theme);
            trigger->trigger();
            QFileDialog *dialog = nullptr;
            QTRY_VERIFY((dialog = window.findChild<QFileDialog *>(dialogName)) && dialog->isVisible());
            QVERIFY(dialog->testOption(QFileDialog::DontUseNativeDialog));
            QVERIFY(dialog->isModal()); // open(): window-modal, no nested event loop
            QCOMPARE(dialog->palette().color(QPalette::Window), theme.window);
            QCOMPARE(dialog->palette().color(QPalette::Base), theme.panel);
            QCOMPARE(dialog->palette().color(QPalette::WindowText), theme.text);
            const QImage image = dialog->grab().toImage();
            QCOMPARE(image.pixelColor(2, image.height() / 2), theme.window); // its background, at its left edge
            const double lightness = meanLightness(image);
            QVERIFY2(theme.isDark ? lightness < 90 : lightness > 170, qPrintable(QStringLiteral("mean lightness %1").arg(lightness)));
            saveGrab(*dialog, QStringLiteral("file-dialog-%1-%2").arg(dialogName, theme.isDark ? QStringLiteral("dark") : QStringLiteral("light")));
            dialog->reject();
            QTRY_VERIFY(!window.findChild<QFileDialog *>(dialogName)); // deleted on close
        }
    }

    // From the search box, Tab reaches the tiles (past the status filters); arrows move, Enter opens.
    void tabReachesTheTiles()
    {
        MainWindow window(MainWindow::Mode::Screenshot);
        QVERIFY(showDemo(window));
        FleetOverview *overview = window.workspace()->overview();
        auto *search = window.findChild<QLineEdit *>(QStringLiteral("overviewSearch"));
        search->setFocus();
        QTRY_VERIFY(search->hasFocus());
        int tabs = 0;
        for (; tabs < 10 && !overview->hasFocus(); ++tabs)
            QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
        QVERIFY2(overview->hasFocus(), qPrintable(QStringLiteral("after %1 tabs: %2").arg(tabs).arg(QApplication::focusWidget()->objectName())));
        const QString first = overview->currentSlice();
        QTest::keyClick(overview, Qt::Key_Right);
        QVERIFY(overview->currentSlice() != first);
        const QString chosen = overview->currentSlice();
        QTest::keyClick(overview, Qt::Key_Return);
        QCOMPARE(window.workspace()->page(), Workspace::Page::Slice);
        QCOMPARE(window.workspace()->currentSlice(), chosen);
    }

    // The navigation rail (issue 17): a click or the keyboard shows a page and the rail follows a
    // page shown any other way; its History entry shows and hides the History dock.
    void railNavigates()
    {
        MainWindow window(MainWindow::Mode::Screenshot);
        QVERIFY(showDemo(window));
        window.resize(1024, 700);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        Workspace *workspace = window.workspace();
        NavRail *rail = workspace->rail();
        QCOMPARE(rail->currentPage(), int(Workspace::Page::Overview));
        auto *slice = rail->findChild<NavRailButton *>(QStringLiteral("railSlice"));
        auto *tables = rail->findChild<NavRailButton *>(QStringLiteral("railTables"));
        QVERIFY(slice && tables);
        QTest::mouseClick(slice, Qt::LeftButton);
        QCOMPARE(workspace->page(), Workspace::Page::Slice);
        QVERIFY(slice->isChecked());
        // A page shown from elsewhere (the menu's Ctrl+1, a tile's Enter) moves the rail's pill.
        workspace->showPage(Workspace::Page::Overview);
        QCOMPARE(rail->currentPage(), int(Workspace::Page::Overview));
        QVERIFY(!slice->isChecked());
        // Keyboard: the arrows walk the rail, Enter picks.
        slice->setFocus(Qt::TabFocusReason);
        QTRY_VERIFY(slice->hasFocus());
        QTest::keyClick(slice, Qt::Key_Down);
        QVERIFY(tables->hasFocus());
        QTest::keyClick(tables, Qt::Key_Return);
        QCOMPARE(workspace->page(), Workspace::Page::Tables);
        // History toggles the dock, and follows it when the dock is closed another way.
        auto *history = workspace->historyButton();
        auto *dock = window.findChild<QDockWidget *>(QStringLiteral("historyDock"));
        QVERIFY(history->isVisible());
        QVERIFY(dock->isHidden());
        QVERIFY(!history->isChecked());
        QTest::mouseClick(history, Qt::LeftButton);
        QTRY_VERIFY(dock->isVisible());
        QVERIFY(history->isChecked());
        dock->close();
        QTRY_VERIFY(!history->isChecked());
        // A page entry is still the page shown: the History toggle is no page.
        QCOMPARE(workspace->page(), Workspace::Page::Tables);
        // The rail never takes the focus by a click: the view being driven keeps it.
        workspace->overview()->setFocus();
        QTRY_VERIFY(workspace->overview()->hasFocus());
        QTest::mouseClick(slice, Qt::LeftButton);
        QVERIFY(!slice->hasFocus());
    }

    // The details panel's Copy, Ray dashboard and Cloud console (issue 17): whole ids to the
    // clipboard, said in the status bar; pages opened only when they can be made, else why not.
    void detailsCopyAndLinks()
    {
        MainWindow window(MainWindow::Mode::Screenshot);
        QVERIFY(showDemo(window));
        Workspace *workspace = window.workspace();
        QVERIFY(workspace->showSlice(QStringLiteral("v6e-4x4-3")));
        workspace->selectHost(2);
        DetailsPanel *details = workspace->details();
        const QList<QAction *> copies = details->copyButton()->menu()->actions();
        QVERIFY(copies.size() >= 4);
        copies.first()->trigger();
        QCOMPARE(QGuiApplication::clipboard()->text(), QStringLiteral("v6e-4x4-3"));
        QVERIFY2(window.statusBar()->currentMessage().contains(u"v6e-4x4-3"), qPrintable(window.statusBar()->currentMessage()));
        // The Ray node id goes whole (the panel's text shows its first 16 characters).
        const SnapshotPtr snap = workspace->snapshot();
        const Slice &slice = snap->slices[snap->sliceIndex(QStringLiteral("v6e-4x4-3"))];
        const QString nodeId = snap->rayNodes[slice.hosts[2].rayNode].id;
        bool copiedNode = false;
        for (QAction *a : copies)
            if (a->text().startsWith(u"Ray node id")) {
                a->trigger();
                copiedNode = QGuiApplication::clipboard()->text() == nodeId;
            }
        QVERIFY(copiedNode);
        // The demo is no dashboard URL and no GKE context: both links off, each says why.
        QVERIFY(!details->rayButton()->isEnabled());
        QVERIFY(details->rayButton()->toolTip().contains(u"--ray"));
        QVERIFY(!details->consoleButton()->isEnabled());
        // A Ray dashboard source: the selected worker's node page opens.
        UrlCatcher catcher;
        QDesktopServices::setUrlHandler(QStringLiteral("http"), &catcher, "open");
        details->setRayDashboard(QUrl(QStringLiteral("http://127.0.0.1:8265")));
        QVERIFY(details->rayButton()->isEnabled());
        QTest::mouseClick(details->rayButton(), Qt::LeftButton);
        QDesktopServices::unsetUrlHandler(QStringLiteral("http"));
        QCOMPARE(catcher.urls, QList<QUrl>{QUrl(QStringLiteral("http://127.0.0.1:8265/#/cluster/nodes/") + nodeId)});
        QVERIFY(window.statusBar()->currentMessage().startsWith(u"Opened http://127.0.0.1:8265/"));

        // A narrow panel shows the three actions as icons, never as cut words; a wide one names
        // them. Their names stay in the accessible names either way.
        DetailsPanel lone;
        lone.resize(180, 300);
        lone.setVisible(true);
        QVERIFY(QTest::qWaitForWindowExposed(&lone));
        for (QToolButton *b : {lone.copyButton(), lone.rayButton(), lone.consoleButton()}) {
            QCOMPARE(b->toolButtonStyle(), Qt::ToolButtonIconOnly);
            QVERIFY(!b->accessibleName().isEmpty());
        }
        lone.resize(480, 300);
        QTRY_COMPARE(lone.consoleButton()->toolButtonStyle(), Qt::ToolButtonTextBesideIcon);
        const QToolButton *console = lone.consoleButton();
        QTRY_VERIFY(console->width() >= console->sizeHint().width()); // "Console" whole
        QCOMPARE(console->accessibleName(), QStringLiteral("Console"));
    }

    // The first-run hints (issue 17): shown to a new user above the overview, their links do what
    // they say, dismissed for good, and Help > Getting started hints brings them back.
    void firstRunHints()
    {
        QSettings().clear();
        {
            MainWindow window(MainWindow::Mode::Interactive);
            QVERIFY(showDemo(window));
            Workspace *workspace = window.workspace();
            QVERIFY(workspace->isFirstRunHintVisible());
            QVERIFY(workspace->firstRunHint()->isVisible());
            saveGrab(window, QStringLiteral("first-run-hints"));
            auto *text = workspace->firstRunHint()->findChild<QLabel *>(QStringLiteral("firstRunHintText"));
            QVERIFY(text);
            QVERIFY(text->text().contains(u"href=\"reserve\""));
            Q_EMIT text->linkActivated(QStringLiteral("reserve"));
            QTRY_VERIFY(window.findChild<QDockWidget *>(QStringLiteral("composerDock"))->isVisible());
            Q_EMIT text->linkActivated(QStringLiteral("slice"));
            QCOMPARE(workspace->page(), Workspace::Page::Slice);
            QCOMPARE(workspace->currentSlice(), QStringLiteral("v6e-4x4-3")); // the demo's degraded slice
            workspace->showPage(Workspace::Page::Overview);
            QTest::mouseClick(workspace->firstRunHint()->findChild<QToolButton *>(QStringLiteral("firstRunHintClose")), Qt::LeftButton);
            QVERIFY(!workspace->isFirstRunHintVisible());
            QVERIFY(QSettings().value(QStringLiteral("hints/firstRunDismissed")).toBool());
        }
        MainWindow again(MainWindow::Mode::Interactive);
        QVERIFY(!again.workspace()->isFirstRunHintVisible());
        again.findChild<QAction *>(QStringLiteral("gettingStartedAction"))->trigger();
        QVERIFY(again.workspace()->isFirstRunHintVisible());
        QVERIFY(!QSettings().contains(QStringLiteral("hints/firstRunDismissed")));
        // Screenshots and goldens never show them.
        MainWindow shot(MainWindow::Mode::Screenshot);
        QVERIFY(!shot.workspace()->isFirstRunHintVisible());
        QSettings().clear();
    }

    // The tables' state columns are pills in the status colours, the same in every view (docs/design.md 1).
    void tableStatesArePills()
    {
        const Theme light = Theme::light(), dark = Theme::dark();
        QCOMPARE(FleetTables::stateColor(QStringLiteral("ready"), light), light.ready);
        QCOMPARE(FleetTables::stateColor(QStringLiteral("DEAD"), light), light.degraded);
        QCOMPARE(FleetTables::stateColor(QStringLiteral("PENDING"), dark), dark.provisioning);
        QCOMPARE(FleetTables::stateColor(QStringLiteral("reserved"), dark), dark.reserved);
        QCOMPARE(FleetTables::stateColor(QStringLiteral("MISSING"), light), light.missing);
        QVERIFY(!FleetTables::stateColor(QStringLiteral("both"), light).isValid()); // no state: plain text
        MainWindow window(MainWindow::Mode::Screenshot);
        QVERIFY(showDemo(window));
        FleetTables *tables = window.workspace()->tables();
        const auto table = [tables](int tab) {
            return qobject_cast<QTableView *>(tables->tabs()->widget(tab));
        };
        QVERIFY(table(0)->itemDelegateForColumn(SliceTableModel::Status));
        QVERIFY(table(1)->itemDelegateForColumn(HostTableModel::State));
        QVERIFY(table(2)->itemDelegateForColumn(PlacementGroupTableModel::State));
        QVERIFY(!table(0)->itemDelegateForColumn(SliceTableModel::Status - 1));
        window.setTheme(Theme::dark());
        QVERIFY(tables->theme().isDark); // the pills follow the theme
    }

    // Help > Keyboard shortcuts (? and F1) lists every menu shortcut and the views' keys; "?" typed
    // into a search box stays text.
    void shortcutsHelp()
    {
        MainWindow window(MainWindow::Mode::Screenshot);
        QVERIFY(showDemo(window));
        const QList<MainWindow::ShortcutRow> rows = window.shortcutRows();
        auto has = [&rows](const QString &text, const QKeySequence &keys) {
            for (const MainWindow::ShortcutRow &r : rows)
                if (r.text == text && r.keys.contains(keys.toString(QKeySequence::NativeText)))
                    return true;
            return false;
        };
        QVERIFY(has(QStringLiteral("Go to"), QKeySequence(Qt::CTRL | Qt::Key_K)));
        QVERIFY(has(QStringLiteral("Reserve slices"), QKeySequence(Qt::CTRL | Qt::Key_R)));
        QVERIFY(has(QStringLiteral("Keyboard shortcuts"), QKeySequence(Qt::Key_Question)));
        QVERIFY(has(QStringLiteral("Clear the search"), QKeySequence(Qt::Key_Escape)));
        for (const MainWindow::ShortcutRow &r : rows)
            QVERIFY2(!r.text.contains(u'&') && !r.keys.isEmpty(), qPrintable(r.text));

        auto *search = window.findChild<QLineEdit *>(QStringLiteral("overviewSearch"));
        search->setFocus();
        QTRY_VERIFY(search->hasFocus());
        QTest::keyClick(search, Qt::Key_Question, Qt::ShiftModifier);
        QCOMPARE(search->text(), QStringLiteral("?"));
        QVERIFY(!window.findChild<QDialog *>(QStringLiteral("shortcutsHelp")));
        search->clear();
        window.workspace()->overview()->setFocus();
        QTRY_VERIFY(window.workspace()->overview()->hasFocus());
        QTest::keyClick(window.workspace()->overview(), Qt::Key_Question, Qt::ShiftModifier);
        auto *help = window.findChild<QDialog *>(QStringLiteral("shortcutsHelp"));
        QVERIFY(help && help->isVisible());
        auto *list = help->findChild<QTreeWidget *>(QStringLiteral("shortcutsList"));
        QVERIFY(list && list->topLevelItemCount() >= 4); // File, View, Cluster, Help, then the views
        saveGrab(*help, QStringLiteral("shortcuts-help"));
    }

    // The palette's ranking rules, as data.
    void paletteRanking_data()
    {
        QTest::addColumn<QString>("query");
        QTest::addColumn<QStringList>("expected"); // the texts, best first
        const auto texts = [](std::initializer_list<const char *> list) {
            QStringList out;
            for (const char *t : list)
                out << QString::fromLatin1(t);
            return out;
        };
        QTest::newRow("empty: all, as given") << QString() << texts({"tpu-v6e-0", "train", "Scale worker group...", "v6e-2x4-1"});
        QTest::newRow("prefix before contains") << QStringLiteral("v6e") << texts({"v6e-2x4-1", "tpu-v6e-0"});
        QTest::newRow("case and spaces ignored") << QStringLiteral("  SCALE   worker ") << texts({"Scale worker group..."});
        QTest::newRow("words in text before detail") << QStringLiteral("train team-a") << texts({"train"});
        QTest::newRow("every word must match") << QStringLiteral("v6e zzz") << texts({});
        QTest::newRow("kind matches") << QStringLiteral("placement") << texts({"train"});
    }
    void paletteRanking()
    {
        QFETCH(QString, query);
        QFETCH(QStringList, expected);
        const QList<PaletteEntry> entries{
            {QStringLiteral("tpu-v6e-0"), QStringLiteral("Slice"), QStringLiteral("context a"), {}, {}},
            {QStringLiteral("train"), QStringLiteral("Placement group"), QStringLiteral("CREATED, RayCluster team-a/llm"), {}, {}},
            {QStringLiteral("Scale worker group..."), QStringLiteral("Action"), QStringLiteral("Cluster"), QStringLiteral("Ctrl+Shift+S"), {}},
            {QStringLiteral("v6e-2x4-1"), QStringLiteral("Slice"), QStringLiteral("ready"), {}, {}},
        };
        QStringList got;
        for (int i : CommandPalette::rank(entries, query))
            got << entries[i].text;
        QCOMPARE(got, expected);
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
