// SPDX-License-Identifier: GPL-3.0-or-later
#include "mainwindow.h"

#include "alertthresholdsdialog.h"
#include "capturefile.h"
#include "detailspanel.h"
#include "eventnavigation.h"
#include "filedialogs.h"
#include "fleetoverview.h"
#include "historycharts.h"
#include "historysettingsdialog.h"
#include "icons.h"
#include "joblogdock.h"
#include "joblogs.h"
#include "kubecontextmenu.h"
#include "navrail.h"
#include "problemslist.h"
#include "scaledialog.h"
#include "slicecomposer.h"
#include "source.h"
#include "sliceview.h"
#include "timeline.h"
#include "windowsettings.h"
#include "workspace.h"

#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QPainter>
#include <QProgressBar>
#include <QSettings>
#include <QStatusBar>
#include <QSystemTrayIcon>
#include <QToolButton>
#include <QTreeView>

#include <tuple>

namespace slicescope {

MainWindow::MainWindow(Mode mode, QWidget *parent)
    : QMainWindow(parent)
    , m_mode(mode)
    , m_workspace(new Workspace(this))
    , m_problems(new ProblemsList(this))
    , m_status(new QLabel(this))
{
    // The history first: the docks built below follow it. A screenshot keeps the default bounds
    // and thresholds.
    m_history = new SnapshotHistory(m_mode == Mode::Interactive ? readHistoryPolicy() : HistoryPolicy(), this);
    if (m_mode == Mode::Interactive)
        m_alerts.setThresholds(readAlertThresholds());
    m_spool = std::make_unique<CaptureSpool>();
    // The spool forgets what the history forgets (the oldest entries, never the newest).
    connect(m_history, &SnapshotHistory::entriesEvicted, this, [this] {
        if (!m_history->isEmpty())
            m_spool->dropBefore(m_history->serial(0));
    });

    setWindowTitle(tr("SliceScope"));
    setCentralWidget(m_workspace);
    m_workspace->setHistory(m_history); // the tiles' duty sparklines
    statusBar()->addWidget(m_status, 1);
    statusBar()->setSizeGripEnabled(false);
    // Long actions (a reservation, a scale, reading a recording) show progress here too (issue 17).
    m_progress = new QProgressBar(this);
    m_progress->setObjectName(QStringLiteral("actionProgress"));
    m_progress->setMaximumWidth(fontMetrics().averageCharWidth() * 16);
    m_progress->setMaximumHeight(fontMetrics().height());
    m_progress->setTextVisible(false);
    m_progress->hide();
    statusBar()->addPermanentWidget(m_progress);
    connectWorkspaceHelpers();

    auto *dock = makeDock(tr("Problems"), QStringLiteral("problemsDock"), m_problems);
    addDockWidget(Qt::BottomDockWidgetArea, dock);
    dock->hide(); // opened from View, or when a source fails
    dock->toggleViewAction()->setIcon(icon(IconKind::Problems));
    // An alert row names its slice: clicking it shows that slice.
    connect(m_problems, &QListWidget::itemActivated, this, [this](QListWidgetItem *item) {
        if (const QString slice = ProblemsList::sliceOfRow(item); !slice.isEmpty())
            m_workspace->showSlice(slice);
    });

    // Reserving and explaining are docks, not dialogs: the overview and the slice view stay in
    // sight while the what-if answer is drawn on them.
    m_composer = new SliceComposer(this);
    m_composer->setWorkspace(m_workspace);
    auto *composerDock = makeDock(tr("Reserve slices"), QStringLiteral("composerDock"), m_composer);
    addDockWidget(Qt::RightDockWidgetArea, composerDock);
    composerDock->hide();
    connect(m_composer, &SliceComposer::actionStatusChanged, this, [this](const QString &text) { statusBar()->showMessage(text, 10000); });
    connect(m_composer, &SliceComposer::actionUnderWay, this, [this](bool busy) { showProgress(busy ? kBusy : kNoProgress); });
    m_whyPending = new WhyPendingPanel(this);
    auto *whyDock = makeDock(tr("Why pending"), QStringLiteral("whyPendingDock"), m_whyPending);
    addDockWidget(Qt::RightDockWidgetArea, whyDock);
    whyDock->hide();
    whyDock->toggleViewAction()->setIcon(icon(IconKind::WhyPending));
    m_jobLogDock = new JobLogDock(this);
    addDockWidget(Qt::BottomDockWidgetArea, m_jobLogDock);
    m_jobLogDock->hide(); // opened from View, or when a submit starts a job
    m_jobLogDock->toggleViewAction()->setIcon(icon(IconKind::JobLog));
    chooseJobLog();
    buildHistoryDocks();
    buildMenus();
    applyLayoutRules();

    if (m_mode == Mode::Interactive)
        restoreWindowSettings(*this);
    updateStatus();
}

MainWindow::~MainWindow()
{
    // The docks point at the history, which is destroyed with the other children.
    m_timeline->setHistory(nullptr);
    m_charts->setHistory(nullptr);
}

QDockWidget *MainWindow::makeDock(const QString &title, const QString &objectName, QWidget *widget)
{
    auto *dock = new QDockWidget(title, this);
    dock->setObjectName(objectName); // the key saveState()/restoreState() keep its place under
    dock->setWidget(widget);
    return dock;
}

void MainWindow::buildHistoryDocks()
{
    // The scrubber and the events list sit under the views (a dock, so it can be hidden or moved);
    // the charts above it, hidden until asked for (View, or the "Charts" button on the timeline).
    m_timeline = new Timeline(this);
    m_timeline->setHistory(m_history);
    auto *timelineDock = makeDock(tr("Timeline"), QStringLiteral("timelineDock"), m_timeline);
    connect(m_timeline, &Timeline::positionChanged, this, &MainWindow::showHistoryEntry);
    connect(m_timeline, &Timeline::liveChanged, this, &MainWindow::onLiveChanged);
    connect(m_timeline, &Timeline::eventActivated, this, &MainWindow::onEventActivated);
    connect(m_timeline, &Timeline::alertTickActivated, this, &MainWindow::onAlertTickActivated);

    m_charts = new HistoryChartsPanel(this);
    m_charts->setHistory(m_history);
    auto *chartsDock = makeDock(tr("History"), QStringLiteral("historyDock"), m_charts);
    connect(m_charts, &HistoryChartsPanel::cursorTimeRequested, m_timeline, &Timeline::scrubToTime);

    addDockWidget(Qt::BottomDockWidgetArea, chartsDock, Qt::Vertical);
    addDockWidget(Qt::BottomDockWidgetArea, timelineDock, Qt::Vertical);
    chartsDock->hide();
    if (m_mode == Mode::Screenshot)
        timelineDock->hide(); // `screenshot` shows one capture: nothing to scrub
    resizeDocks({timelineDock}, {m_timeline->sizeHint().height()}, Qt::Vertical);

    auto *chartsButton = new QToolButton(m_timeline);
    chartsButton->setObjectName(QStringLiteral("chartsButton"));
    chartsButton->setText(tr("Charts"));
    chartsButton->setCheckable(true);
    chartsButton->setToolTip(tr("Show the history as charts: chips, slices, placement groups, worker groups and chip activity over time"));
    connect(chartsButton, &QToolButton::clicked, chartsDock, [chartsDock](bool on) {
        chartsDock->setVisible(on);
        if (on)
            chartsDock->raise();
    });
    connect(chartsDock->toggleViewAction(), &QAction::toggled, chartsButton, &QToolButton::setChecked);
    m_timeline->addControl(chartsButton);

    // The workspace's rail has a History entry: it shows and hides this dock, and is checked while
    // the dock is shown.
    NavRailButton *railHistory = m_workspace->historyButton();
    railHistory->setVisible(true);
    railHistory->setChecked(!chartsDock->isHidden());
    connect(railHistory, &QAbstractButton::clicked, chartsDock, [chartsDock](bool on) {
        chartsDock->setVisible(on);
        if (on)
            chartsDock->raise();
    });
    connect(chartsDock->toggleViewAction(), &QAction::toggled, railHistory, &QAbstractButton::setChecked);
    chartsDock->toggleViewAction()->setIcon(icon(IconKind::History));
    timelineDock->toggleViewAction()->setIcon(icon(IconKind::Timeline));
}

void MainWindow::buildMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    m_connectAction = file->addAction(tr("&Connect to Kubernetes..."), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O), this, &MainWindow::openConnectDialog);
    m_connectAction->setObjectName(QStringLiteral("connectAction"));
    m_connectAction->setVisible(false); // until setKubeConnector()
    file->addAction(icon(IconKind::Open), tr("&Open capture or recording..."), QKeySequence::Open, this, &MainWindow::openCapture);
    file->addAction(icon(IconKind::Save), tr("&Save capture..."), QKeySequence::Save, this, &MainWindow::saveCapture);
    file->addAction(tr("Save &history as recording..."), this, &MainWindow::saveHistoryRecording)->setObjectName(QStringLiteral("saveHistoryAction"));
    file->addSeparator();
    file->addAction(icon(IconKind::Export), tr("Export slice view as &PNG..."), this, [this] { exportSliceView(false); });
    if (filedialogs::canWriteSvg()) // no Qt Svg in the browser build
        file->addAction(tr("Export slice view as S&VG..."), this, [this] { exportSliceView(true); });
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu *view = menuBar()->addMenu(tr("&View"));
    view->addAction(icon(IconKind::Overview), tr("&Overview"), QKeySequence(Qt::CTRL | Qt::Key_1), this,
                    [this] { m_workspace->showPage(Workspace::Page::Overview); });
    view->addAction(icon(IconKind::Slice), tr("&Slice"), QKeySequence(Qt::CTRL | Qt::Key_2), this, [this] { m_workspace->showPage(Workspace::Page::Slice); });
    view->addAction(icon(IconKind::Tables), tr("&Tables"), QKeySequence(Qt::CTRL | Qt::Key_3), this,
                    [this] { m_workspace->showPage(Workspace::Page::Tables); });
    view->addAction(icon(IconKind::Search), tr("&Go to..."), QKeySequence(Qt::CTRL | Qt::Key_K), this, &MainWindow::openCommandPalette)
        ->setObjectName(QStringLiteral("commandPaletteAction"));
    view->addSeparator();
    QMenu *color = view->addMenu(tr("&Colour chips by"));
    m_colorGroup = new QActionGroup(this);
    for (auto [mode, label] : {std::pair{ColorMode::WorkerId, tr("&Worker id")}, std::pair{ColorMode::Bundle, tr("&Bundle occupancy")},
                               std::pair{ColorMode::State, tr("&State")}, std::pair{ColorMode::Activity, tr("&Activity")}}) {
        QAction *a = color->addAction(label);
        a->setCheckable(true);
        a->setChecked(m_workspace->colorMode() == mode);
        m_colorGroup->addAction(a);
        connect(a, &QAction::triggered, this, [this, mode = mode] { m_workspace->setColorMode(mode); }); // init-capture: clang 14 (wasm)
    }
    QMenu *theme = view->addMenu(tr("T&heme"));
    m_themeGroup = new QActionGroup(this);
    for (auto [name, label] : {std::pair{QStringLiteral("light"), tr("&Light")}, std::pair{QStringLiteral("dark"), tr("&Dark")}}) {
        QAction *a = theme->addAction(label);
        a->setCheckable(true);
        a->setData(name);
        a->setChecked(name == QLatin1String("light"));
        m_themeGroup->addAction(a);
        connect(a, &QAction::triggered, this, [this, name = name] { setTheme(Theme::named(name)); });
    }
    // How the overview nests a fleet (issue 16): context -> RayCluster -> generation, or generation
    // first. Remembered (app/windowsettings.cpp).
    QMenu *nesting = view->addMenu(tr("&Group overview by"));
    m_orderGroup = new QActionGroup(this);
    for (auto [order, label, name] : {std::tuple{FleetOrder::ContextFirst, tr("&Context, then RayCluster, then generation"), QStringLiteral("orderContextFirst")},
                                      std::tuple{FleetOrder::GenerationFirst, tr("&Generation first"), QStringLiteral("orderGenerationFirst")}}) {
        QAction *a = nesting->addAction(label);
        a->setObjectName(name);
        a->setCheckable(true);
        a->setData(int(order));
        a->setChecked(m_workspace->overview()->order() == order);
        m_orderGroup->addAction(a);
        connect(a, &QAction::triggered, this, [this, order = order] { setOverviewOrder(order); }); // init-capture: clang 14 (wasm)
    }
    view->addSeparator();
    view->addAction(findChild<QDockWidget *>(QStringLiteral("problemsDock"))->toggleViewAction());
    view->addAction(findChild<QDockWidget *>(QStringLiteral("jobLogDock"))->toggleViewAction());
    view->addSeparator();
    view->addAction(findChild<QDockWidget *>(QStringLiteral("timelineDock"))->toggleViewAction());
    view->addAction(findChild<QDockWidget *>(QStringLiteral("historyDock"))->toggleViewAction());
    view->addAction(icon(IconKind::Live), tr("&Live"), QKeySequence(Qt::CTRL | Qt::Key_L), m_timeline, &Timeline::goLive);
    view->addAction(tr("History se&ttings..."), this, &MainWindow::openHistorySettings)->setObjectName(QStringLiteral("historySettingsAction"));
    view->addAction(tr("&Alert thresholds..."), this, &MainWindow::openAlertThresholds)->setObjectName(QStringLiteral("alertThresholdsAction"));
    // Desktop notifications of new warning and critical alerts: opt in, remembered.
    m_notifyAction = view->addAction(tr("&Notify about new alerts"));
    m_notifyAction->setObjectName(QStringLiteral("notifyAlertsAction"));
    m_notifyAction->setCheckable(true);
    view->addSeparator();
    view->addAction(tr("&Reset layout"), this, &MainWindow::resetLayout)->setObjectName(QStringLiteral("resetLayoutAction"));

    QMenu *cluster = menuBar()->addMenu(tr("&Cluster"));
    m_reserveAction = cluster->addAction(icon(IconKind::Reserve), tr("&Reserve slices..."), QKeySequence(Qt::CTRL | Qt::Key_R), this, &MainWindow::openComposer);
    m_releaseAction = cluster->addAction(icon(IconKind::Release), tr("R&elease placement group..."), this, [this] {
        openComposer();
        m_composer->reviewRelease(placementGroupToRelease());
    });
    cluster->addAction(findChild<QDockWidget *>(QStringLiteral("whyPendingDock"))->toggleViewAction());
    cluster->addSeparator();
    // The kubeconfig's contexts, when the source is Kubernetes (setKubeContexts()).
    m_contextMenu = new KubeContextMenu(tr("Kubernetes &context"), cluster);
    cluster->addMenu(m_contextMenu);
    connect(m_contextMenu, &KubeContextMenu::contextTriggered, this, &MainWindow::switchKubeContext);
    m_scaleAction = cluster->addAction(icon(IconKind::Scale), tr("&Scale worker group..."), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S), this,
                                       [this] { openScaleDialog(); });
    m_scaleAction->setObjectName(QStringLiteral("scaleWorkerGroupAction"));

    // The overview's tiles offer it too, on the group of the tile clicked. popup(), not exec():
    // no nested event loop.
    FleetOverview *overview = m_workspace->overview();
    overview->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(overview, &QWidget::customContextMenuRequested, this, [this, overview](QPoint pos) {
        const QString slice = overview->sliceAt(pos);
        const int si = m_snapshot && !slice.isEmpty() ? m_snapshot->sliceIndex(slice) : -1;
        if (si < 0 || m_snapshot->slices[si].workerGroup.isEmpty() || !m_scaleAction->isEnabled())
            return;
        auto *menu = new QMenu(this);
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->addAction(tr("Scale worker group %1...").arg(m_snapshot->slices[si].workerGroup.section(u'/', -1)), this,
                        [this, slice] { openScaleDialog(slice); });
        menu->popup(overview->mapToGlobal(pos));
    });
    chooseClusterActions();
    updateScaleAction();

    // Help > Keyboard shortcuts (issue 17, mainwindowlayout.cpp).
    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Getting started hints"), this, [this] {
            m_workspace->showPage(Workspace::Page::Overview);
            m_workspace->setFirstRunHintVisible(true);
            if (m_mode == Mode::Interactive)
                QSettings().remove(QStringLiteral("hints/firstRunDismissed"));
        })
        ->setObjectName(QStringLiteral("gettingStartedAction"));
    QAction *keys = help->addAction(icon(IconKind::Keyboard), tr("&Keyboard shortcuts..."), this, &MainWindow::openShortcutsHelp);
    keys->setObjectName(QStringLiteral("shortcutsHelpAction"));
    // "?" as on the web dashboards people know, and F1; a search box takes "?" as text first.
    // (Shift+? too: where the keyboard's layout does not say that Shift makes "?", the key arrives so.)
    keys->setShortcuts({QKeySequence(Qt::Key_Question), QKeySequence(Qt::Key_F1), QKeySequence(Qt::SHIFT | Qt::Key_Question)});
}

void MainWindow::showProgress(int percent)
{
    m_progress->setVisible(percent != kNoProgress);
    if (percent == kBusy) {
        m_progress->setRange(0, 0); // under way, no end known: Qt's busy bar
    } else if (percent >= 0) {
        m_progress->setRange(0, 100);
        m_progress->setValue(percent);
    }
}

void MainWindow::updateScaleAction()
{
    bool tpuGroups = false;
    if (m_snapshot)
        for (const WorkerGroup &g : m_snapshot->workerGroups)
            tpuGroups = tpuGroups || g.isTpu();
    m_scaleAction->setEnabled(tpuGroups);
    m_scaleAction->setStatusTip(tpuGroups ? QString() : tr("No KubeRay TPU worker groups in this cluster"));
}

void MainWindow::openScaleDialog(const QString &sliceName)
{
    if (!m_scaleDialog) {
        m_scaleDialog = new ScaleDialog(this);
        m_scaleDialog->setTheme(m_workspace->theme());
        m_scaleDialog->setActions(m_actions.get(), m_actionsUnavailable);
        connect(m_scaleDialog, &ScaleDialog::actionStatusChanged, this, [this](const QString &text) { statusBar()->showMessage(text, 10000); });
        connect(m_scaleDialog, &ScaleDialog::actionUnderWay, this, [this](bool busy) { showProgress(busy ? kBusy : kNoProgress); });
    }
    m_scaleDialog->setSnapshot(m_snapshot);
    // The slice asked for, else the one being looked at: its group comes up, the slice preselected.
    if (!m_scaleDialog->preselectSlice(sliceName.isEmpty() ? m_workspace->currentSlice() : sliceName) && !sliceName.isEmpty())
        m_scaleDialog->preselectSlice(m_workspace->currentSlice());
    m_scaleDialog->show();
    m_scaleDialog->raise();
    m_scaleDialog->activateWindow();
}

QString MainWindow::placementGroupToRelease() const
{
    // The group holding chips of the slice being looked at (details panel, slice view), else the
    // one picked in the composer's list.
    if (m_snapshot)
        if (const int s = m_snapshot->sliceIndex(m_workspace->currentSlice()); s >= 0)
            for (const Host &h : m_snapshot->slices[s].hosts)
                for (const ChipUse &c : h.chips)
                    if (c.placementGroup >= 0)
                        return m_snapshot->placementGroups[c.placementGroup].id;
    return m_composer->selectedReleaseGroup();
}

void MainWindow::openComposer()
{
    auto *dock = findChild<QDockWidget *>(QStringLiteral("composerDock"));
    // In a fleet it reserves on the cluster of the slice being looked at (issue 16); the operator
    // can choose another in its "Ray cluster" box, and the review names the one chosen.
    if (m_snapshot)
        if (const int si = m_snapshot->sliceIndex(m_workspace->currentSlice()); si >= 0)
            m_composer->chooseRayCluster(m_snapshot->slices[si].context, m_snapshot->slices[si].rayCluster);
    dock->show();
    dock->raise();
}

void MainWindow::chooseClusterActions()
{
    // The composer works against whatever executes actions for this source; a file is the past.
    m_composer->setActions(nullptr);
    m_actions.reset();
    // The demo, live Ray, Kubernetes, or the relay a --relay source reads from (sourceoptions).
    QString reason;
    m_actions = makeClusterActions(m_source.get(), &reason);
    m_composer->setActions(m_actions.get(), reason);
    m_actionsUnavailable = reason;
    if (m_scaleDialog)
        m_scaleDialog->setActions(m_actions.get(), reason);
    if (m_actions) {
        // The job a submit or release starts is the one worth reading while Ray works on it.
        connect(m_actions.get(), &ClusterActions::actionJobSubmitted, this, [this](const QString &, const QString &submissionId) {
            if (!m_logSource)
                return;
            followJob(submissionId);
            m_jobLogDock->show();
        });
    }
    for (QAction *a : {m_reserveAction, m_releaseAction}) {
        // Reserving still opens, to show the what-if plan; releasing needs someone to do it.
        a->setStatusTip(reason);
        a->setToolTip(reason.isEmpty() ? a->text() : reason);
    }
    m_releaseAction->setEnabled(m_actions != nullptr);
}

void MainWindow::chooseJobLog()
{
    // Only a live Ray has logs to tail; for the others the dock says why it is empty.
    m_jobLogDock->setLogSource(nullptr, {});
    m_jobLogDock->setSnapshot(m_snapshot);
    QString reason;
    m_logSource = makeJobLogSource(m_source.get(), &reason);
    m_jobLogDock->setLogSource(m_logSource.get(), reason);
}

void MainWindow::followJob(const QString &submissionId)
{
    m_jobLogDock->followJob(submissionId);
}

QTreeView *MainWindow::jobList() const
{
    return m_jobLogDock->jobList();
}

JobLogView *MainWindow::jobLog() const
{
    return m_jobLogDock->logView();
}

QString MainWindow::jobLogUnavailableReason() const
{
    return m_jobLogDock->unavailableReason();
}

QString MainWindow::followedJob() const
{
    return m_jobLogDock->followedJob();
}

void MainWindow::setTheme(const Theme &theme)
{
    if (auto *app = qobject_cast<QApplication *>(QCoreApplication::instance()))
        applyLook(*app, theme);
    m_workspace->setTheme(theme);
    m_timeline->setTheme(theme);
    m_charts->setTheme(theme);
    m_composer->setTheme(theme);
    if (m_scaleDialog)
        m_scaleDialog->setTheme(theme);
    for (QAction *a : m_themeGroup->actions())
        a->setChecked(a->data().toString() == (theme.isDark ? QLatin1String("dark") : QLatin1String("light")));
}

void MainWindow::setOverviewOrder(FleetOrder order)
{
    m_workspace->overview()->setOrder(order);
    for (QAction *a : m_orderGroup->actions())
        a->setChecked(a->data().toInt() == int(order));
}

void MainWindow::setSource(std::unique_ptr<Source> source)
{
    // The actions and the log tail refer to the old source: let them go first.
    m_composer->setActions(nullptr);
    if (m_scaleDialog)
        m_scaleDialog->setActions(nullptr);
    m_actions.reset();
    m_jobLogDock->setLogSource(nullptr, {});
    m_logSource.reset();
    m_source = std::move(source);
    m_lastError.clear();
    // A new source is another cluster (or another recording): its past starts now.
    m_history->clear();
    m_alerts.reset();
    m_notifiedAlerts.clear();
    m_spool->clear();
    m_spoolError.clear();
    m_loadingText.clear();
    m_timeline->goLive();
    m_workspace->details()->setRayDashboard(m_source ? m_source->rayDashboardUrl() : QUrl());
    if (auto *file = qobject_cast<CaptureFileSource *>(m_source.get())) {
        // A recording is read in slices; its captures are shown once all are in the history.
        connect(file, &CaptureFileSource::progressChanged, this, [this, file](int captures, int percent) {
            m_loadingText = file->isLoading() ? tr("reading the recording: %n capture(s), %1%", nullptr, captures).arg(percent) : QString();
            showProgress(file->isLoading() ? std::clamp(percent, 0, 100) : kNoProgress);
            updateStatus();
        });
        connect(file, &CaptureFileSource::loadingFinished, this, [this](int captures) {
            m_loadingText.clear();
            showProgress(kNoProgress);
            applyLiveSnapshot();
            if (captures > 1)
                statusBar()->showMessage(tr("Read %n captures: drag the timeline to see the cluster at any of them", nullptr, captures), 15000);
        });
        // Before onSourceFailed() (connected below), which puts the error on top of the problems.
        connect(file, &Source::failed, this, [this] {
            m_loadingText.clear();
            applyLiveSnapshot(); // what was read before the bad line
        });
    }
    connect(m_source.get(), &Source::captureReceived, this, &MainWindow::onCapture);
    connect(m_source.get(), &Source::failed, this, &MainWindow::onSourceFailed);
    chooseClusterActions();
    chooseJobLog();
    m_source->start();
    updateStatus();
}

void MainWindow::onCapture(const Capture &capture)
{
    SnapshotPtr snap = buildSnapshot(capture);
    if (!snap->errors.isEmpty()) {
        onSourceFailed(snap->errors.join(QStringLiteral("; ")));
        return; // keep the last good view
    }
    m_lastCapture = capture;
    m_snapshot = std::move(snap);
    m_lastError.clear();
    const qint64 serial = m_history->add(m_snapshot);
    m_alerts.observe(*m_snapshot); // every capture in order, a recording's too
    m_timeline->recordAlerts(m_alerts.alerts(), serial);
    notifyNewAlerts();
    if (const QString error = m_spool->append(serial, capture); !error.isEmpty() && m_spoolError.isEmpty()) {
        m_spoolError = error; // said once: the history goes on, saving it will lack these captures
        m_problems->addSpoolError(error);
    }
    auto *file = qobject_cast<CaptureFileSource *>(m_source.get());
    if (file && file->isLoading())
        return; // more captures of the recording follow at once: show the last of them
    applyLiveSnapshot();
}

void MainWindow::applyLiveSnapshot()
{
    if (!m_snapshot)
        return;
    // Scrubbed back, the views stay in the past; everything that acts stays live.
    if (m_timeline->isLive())
        m_workspace->setSnapshot(m_snapshot);
    m_composer->setSnapshot(m_snapshot);
    m_whyPending->setSnapshot(m_snapshot);
    if (m_scaleDialog)
        m_scaleDialog->setSnapshot(m_snapshot);
    updateScaleAction();
    m_problems->showSnapshot(*m_snapshot, m_spoolError, m_alerts.alerts());
    // The live alerts on the views: idle chips outlined, a count on each slice's tile.
    QHash<QString, int> alertsBySlice;
    for (const Alert &a : m_alerts.alerts())
        if (!a.selectSlice.isEmpty() && !a.rollup)
            ++alertsBySlice[a.selectSlice];
    m_workspace->setIdleChips(m_alerts.idleChips());
    m_workspace->setAlertCounts(alertsBySlice);
    m_jobLogDock->setSnapshot(m_snapshot);
    updateStatus();
}

void MainWindow::setNotifyAlerts(bool on)
{
    m_notifyAction->setChecked(on);
}

bool MainWindow::notifyAlerts() const
{
    return m_notifyAction->isChecked();
}

void MainWindow::notifyNewAlerts()
{
    QSet<QString> active;
    QList<const Alert *> fresh;
    for (const Alert &a : m_alerts.alerts()) {
        active.insert(a.id);
        if (a.severity >= AlertSeverity::Warning && !a.rollup && !m_notifiedAlerts.contains(a.id))
            fresh.append(&a);
    }
    const bool wanted = m_notifyAction && m_notifyAction->isChecked();
    const bool loading = qobject_cast<CaptureFileSource *>(m_source.get()) != nullptr; // a file's alerts are history, not news
    if (wanted && !loading && !fresh.isEmpty()) {
        const QString title = fresh.size() == 1 ? tr("SliceScope: %1").arg(toText(fresh.front()->kind)) : tr("SliceScope: %n new alerts", nullptr, int(fresh.size()));
        const QString text = fresh.size() == 1 ? fresh.front()->text : fresh.front()->text + tr(" (and %n more)", nullptr, int(fresh.size()) - 1);
        if (QSystemTrayIcon::isSystemTrayAvailable()) {
            if (!m_tray) {
                m_tray = new QSystemTrayIcon(windowIcon(), this);
                m_tray->show();
            }
            m_tray->showMessage(title, text, fresh.front()->severity == AlertSeverity::Critical ? QSystemTrayIcon::Critical : QSystemTrayIcon::Warning);
        } else {
            statusBar()->showMessage(tr("%1: %2 (no system tray for desktop notifications here)").arg(title, text), 15000);
        }
    }
    m_notifiedAlerts = active; // a cleared alert that fires again is news again
}

SnapshotPtr MainWindow::viewedSnapshot() const
{
    return m_workspace->snapshot();
}

void MainWindow::showHistoryEntry(int index)
{
    if (index < 0 || index >= m_history->size())
        return;
    // What a scrub costs the reader: rebuilding the entry and every view taking it.
    QElapsedTimer clock;
    clock.start();
    m_workspace->setSnapshot(m_history->snapshot(index));
    // The alert engine judges the live cluster: its idle chips and counts are not the past's.
    m_workspace->setIdleChips({});
    m_workspace->setAlertCounts({});
    m_lastScrubMs = double(clock.nsecsElapsed()) / 1e6;
    m_charts->setCursorTime(m_history->time(index));
    updateStatus();
}

void MainWindow::onLiveChanged(bool live)
{
    if (live) {
        if (m_snapshot)
            m_workspace->setSnapshot(m_snapshot);
        applyLiveSnapshot(); // the live alerts back on the views
        m_charts->setCursorTime({});
    }
    updateStatus();
}

void MainWindow::onEventActivated(const HistoryEvent &event)
{
    // The timeline has moved the views to the event's moment: select what changed there.
    if (const QString absent = showEventSubject(*m_workspace, event); !absent.isEmpty())
        statusBar()->showMessage(tr("%1 is not in the cluster at this moment (the event removed it)").arg(absent), 10000);
}

void MainWindow::onAlertTickActivated(const AlertTick &tick)
{
    // As an event: the timeline has moved the views to when the alert began.
    if (const QString absent = showAlertSubject(*m_workspace, tick); !absent.isEmpty())
        statusBar()->showMessage(tr("%1 is not in the cluster at this moment").arg(absent), 10000);
}

void MainWindow::setAlertThresholds(const AlertThresholds &thresholds)
{
    m_alerts.setThresholds(thresholds);
    if (m_mode == Mode::Interactive)
        writeAlertThresholds(thresholds);
    // The engine judges the next snapshot by them; what it already said stands until then.
    statusBar()->showMessage(qobject_cast<CaptureFileSource *>(m_source.get())
                                 ? tr("Alert thresholds set: they apply to captures read from now on (open the recording again to replay it with them)")
                                 : tr("Alert thresholds set: they apply from the next capture"),
                             10000);
}

void MainWindow::openAlertThresholds()
{
    auto *dialog = new AlertThresholdsDialog(m_alerts.thresholds(), m_workspace->theme(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &AlertThresholdsDialog::thresholdsChosen, this, &MainWindow::setAlertThresholds);
    dialog->open(); // window-modal, no nested event loop
}

HistoryPolicy MainWindow::historyPolicy() const
{
    return m_history->policy();
}

void MainWindow::setHistoryPolicy(const HistoryPolicy &policy)
{
    m_history->setPolicy(policy);
    if (m_mode == Mode::Interactive)
        writeHistoryPolicy(policy);
    updateStatus();
}

void MainWindow::openHistorySettings()
{
    auto *dialog = new HistorySettingsDialog(*m_history, *m_spool, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &HistorySettingsDialog::policyChosen, this, &MainWindow::setHistoryPolicy);
    dialog->open(); // window-modal, no nested event loop
}

QString MainWindow::saveHistoryAsRecording(const QString &path, int *written) const
{
    QList<qint64> serials;
    serials.reserve(m_history->size());
    for (int i = 0; i < m_history->size(); ++i)
        serials << m_history->serial(i);
    return m_spool->writeRecording(path, serials, written);
}

void MainWindow::saveHistoryRecording()
{
    if (m_history->isEmpty())
        return;
    filedialogs::chooseSaveFile(this, tr("Save history as recording"), QStringLiteral("history.slicescope.jsonl"),
                                tr("SliceScope recordings (*.slicescope.jsonl)"), [this](const QString &path) {
                                    int written = 0;
                                    if (const QString error = saveHistoryAsRecording(path, &written); !error.isEmpty()) {
                                        onSourceFailed(error);
                                        return;
                                    }
                                    const int missing = m_history->size() - written;
                                    statusBar()->showMessage(missing > 0 ? tr("Saved %n capture(s) to %1; the oldest %2 had left the disk spool", nullptr, written).arg(path).arg(missing)
                                                                         : tr("Saved %n capture(s) to %1", nullptr, written).arg(path),
                                                             15000);
                                });
}

void MainWindow::onSourceFailed(const QString &message)
{
    m_lastError = message;
    m_problems->addSourceError(message);
    updateStatus();
}

QString MainWindow::statusText() const
{
    return m_status->text();
}

void MainWindow::updateStatus()
{
    QStringList parts;
    parts << (m_source ? tr("Source: %1").arg(m_source->description()) : tr("No source"));
    if (!m_loadingText.isEmpty())
        parts << m_loadingText;
    auto utc = [](const QDateTime &time) {
        return time.toUTC().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
    };
    if (!m_timeline->isLive() && m_timeline->position() >= 0) {
        const QDateTime viewed = m_timeline->positionTime();
        parts << tr("viewing %1 UTC (%2) — press Live to return").arg(utc(viewed), agoText(viewed, m_history->time(m_history->size() - 1)));
    }
    if (m_snapshot) {
        parts << tr("%1 slices, %2 placement groups").arg(m_snapshot->slices.size()).arg(m_snapshot->placementGroups.size());
        if (m_snapshot->capturedAt.isValid()) // UTC: the same text on every machine and in screenshots
            parts << tr("last refresh %1 UTC").arg(utc(m_snapshot->capturedAt));
    }
    if (!m_lastError.isEmpty())
        parts << tr("Error: %1 (showing the last good data)").arg(m_lastError);
    m_status->setText(parts.join(QStringLiteral("  ·  ")));
}

void MainWindow::openCapture()
{
    filedialogs::chooseOpenFile(
        this, tr("Open capture"), tr("SliceScope captures (*.slicescope.json *.slicescope.jsonl *.json *.jsonl)"),
        [this](const QString &path) { setSource(std::make_unique<CaptureFileSource>(path)); }, [this](const QString &error) { onSourceFailed(error); });
}

void MainWindow::saveCapture()
{
    if (!m_snapshot)
        return;
    filedialogs::chooseSaveFile(this, tr("Save capture"), QStringLiteral("cluster.slicescope.json"), tr("SliceScope captures (*.slicescope.json)"),
                                [this, capture = m_lastCapture](const QString &path) {
                                    if (const QString error = writeCaptureFile(path, capture); !error.isEmpty())
                                        onSourceFailed(error);
                                });
}

void MainWindow::exportSliceView(bool svg)
{
    const QString base = (m_workspace->currentSlice().isEmpty() ? QStringLiteral("slice") : m_workspace->currentSlice());
    filedialogs::chooseSaveFile(this, svg ? tr("Export as SVG") : tr("Export as PNG"), base + (svg ? QStringLiteral(".svg") : QStringLiteral(".png")),
                                svg ? tr("SVG images (*.svg)") : tr("PNG images (*.png)"), [this](const QString &path) {
                                    if (const QString error = exportSliceViewTo(path); !error.isEmpty())
                                        onSourceFailed(error);
                                });
}

QString MainWindow::exportSliceViewTo(const QString &path, QSize size)
{
    SliceView *view = m_workspace->sliceView();
    if (m_workspace->currentSlice().isEmpty())
        return tr("no slice to export: open one in the slice view first");
    if (size.isEmpty())
        size = view->size().isEmpty() ? QSize(1280, 800) : view->size();
    if (path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive)) {
        if (!filedialogs::canWriteSvg())
            return tr("SVG export is not in the browser build; export a PNG");
        return filedialogs::writeSvg(path, size, tr("SliceScope: %1 (logical layout)").arg(m_workspace->currentSlice()),
                                     [view, size](QPainter &painter) { view->render(painter, size); });
    }
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    {
        QPainter painter(&image);
        view->render(painter, size);
    }
    return image.save(path) ? QString() : tr("%1: could not write the PNG").arg(path);
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (m_mode == Mode::Interactive)
        saveWindowSettings(*this);
    event->accept();
}

} // namespace slicescope
