// SPDX-License-Identifier: GPL-3.0-or-later
#include "mainwindow.h"

#include "capturefile.h"
#include "democluster.h"
#include "fleetoverview.h"
#include "fleettables.h"
#include "historycharts.h"
#include "itemmodels.h"
#include "joblogview.h"
#ifndef Q_OS_WASM // the browser cannot reach Ray or Kubernetes itself (backend/CMakeLists.txt)
#include "kubesource.h"
#include "livesource.h"
#endif
#include "logtail.h"
#include "relaysource.h"
#include "scaledialog.h"
#include "slicecomposer.h"
#include "source.h"
#include "sourceoptions.h"
#include "sliceview.h"
#include "timeline.h"
#include "workspace.h"

#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QPushButton>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QMenu>
#include <QMenuBar>
#include <QPainter>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#ifndef Q_OS_WASM
#include <QSvgGenerator>
#endif
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace slicescope {

namespace {

const QString kMaxAgeKey = QStringLiteral("history/maxAgeSeconds");
const QString kMaxBytesKey = QStringLiteral("history/maxBytes");

QString utcTime(const QDateTime &time)
{
    return time.toUTC().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

QString megabytes(qint64 bytes)
{
    return QLocale::c().toString(double(bytes) / (1 << 20), 'f', bytes < (10 << 20) ? 1 : 0);
}

} // namespace

MainWindow::MainWindow(Mode mode, QWidget *parent)
    : QMainWindow(parent)
    , m_mode(mode)
    , m_workspace(new Workspace(this))
    , m_problems(new QListWidget(this))
    , m_status(new QLabel(this))
{
    // The history first: the docks built below follow it. A screenshot keeps the default bounds.
    HistoryPolicy policy;
    if (m_mode == Mode::Interactive) {
        QSettings settings;
        policy.maxAgeSeconds = settings.value(kMaxAgeKey, policy.maxAgeSeconds).toLongLong();
        policy.maxBytes = settings.value(kMaxBytesKey, policy.maxBytes).toLongLong();
    }
    m_history = new SnapshotHistory(policy, this);
    m_spool = std::make_unique<CaptureSpool>();
    // The spool forgets what the history forgets (the oldest entries, never the newest).
    connect(m_history, &SnapshotHistory::entriesEvicted, this, [this] {
        if (!m_history->isEmpty())
            m_spool->dropBefore(m_history->serial(0));
    });

    setWindowTitle(tr("SliceScope"));
    setCentralWidget(m_workspace);
    statusBar()->addWidget(m_status, 1);
    statusBar()->setSizeGripEnabled(false);

    m_problems->setObjectName(QStringLiteral("problems"));
    auto *dock = makeDock(tr("Problems"), QStringLiteral("problemsDock"), m_problems);
    addDockWidget(Qt::BottomDockWidgetArea, dock);
    dock->hide(); // opened from View, or when a source fails

    // Reserving and explaining are docks, not dialogs: the overview and the slice view stay in
    // sight while the what-if answer is drawn on them.
    m_composer = new SliceComposer(this);
    m_composer->setWorkspace(m_workspace);
    auto *composerDock = makeDock(tr("Reserve slices"), QStringLiteral("composerDock"), m_composer);
    addDockWidget(Qt::RightDockWidgetArea, composerDock);
    composerDock->hide();
    connect(m_composer, &SliceComposer::actionStatusChanged, this, [this](const QString &text) { statusBar()->showMessage(text, 10000); });
    m_whyPending = new WhyPendingPanel(this);
    auto *whyDock = makeDock(tr("Why pending"), QStringLiteral("whyPendingDock"), m_whyPending);
    addDockWidget(Qt::RightDockWidgetArea, whyDock);
    whyDock->hide();
    buildJobLogDock();
    buildHistoryDocks();
    buildMenus();

    if (m_mode == Mode::Interactive) {
        QSettings settings;
        restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
        restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
        m_workspace->splitter()->restoreState(settings.value(QStringLiteral("window/splitter")).toByteArray());
        if (const auto mode = colorModeFromText(settings.value(QStringLiteral("view/color")).toString()))
            m_workspace->setColorMode(*mode);
        setTheme(Theme::named(settings.value(QStringLiteral("view/theme"), QStringLiteral("light")).toString()));
        if (!settings.contains(QStringLiteral("window/geometry")))
            resize(1280, 800);
    }
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
    chartsButton->setToolTip(tr("Show the history as charts: chips, slices, placement groups, worker groups over time"));
    connect(chartsButton, &QToolButton::clicked, chartsDock, [chartsDock](bool on) {
        chartsDock->setVisible(on);
        if (on)
            chartsDock->raise();
    });
    connect(chartsDock->toggleViewAction(), &QAction::toggled, chartsButton, &QToolButton::setChecked);
    m_timeline->addControl(chartsButton);
}

void MainWindow::buildMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open capture or recording..."), QKeySequence::Open, this, &MainWindow::openCapture);
    file->addAction(tr("&Save capture..."), QKeySequence::Save, this, &MainWindow::saveCapture);
    file->addAction(tr("Save &history as recording..."), this, &MainWindow::saveHistoryRecording)->setObjectName(QStringLiteral("saveHistoryAction"));
    file->addSeparator();
    file->addAction(tr("Export slice view as &PNG..."), this, [this] { exportSliceView(false); });
#ifndef Q_OS_WASM // no Qt Svg in the browser build
    file->addAction(tr("Export slice view as S&VG..."), this, [this] { exportSliceView(true); });
#endif
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu *view = menuBar()->addMenu(tr("&View"));
    view->addAction(tr("&Overview"), QKeySequence(Qt::CTRL | Qt::Key_1), this, [this] { m_workspace->showPage(Workspace::Page::Overview); });
    view->addAction(tr("&Slice"), QKeySequence(Qt::CTRL | Qt::Key_2), this, [this] { m_workspace->showPage(Workspace::Page::Slice); });
    view->addAction(tr("&Tables"), QKeySequence(Qt::CTRL | Qt::Key_3), this, [this] { m_workspace->showPage(Workspace::Page::Tables); });
    view->addSeparator();
    QMenu *color = view->addMenu(tr("&Colour chips by"));
    m_colorGroup = new QActionGroup(this);
    for (auto [mode, label] : {std::pair{ColorMode::WorkerId, tr("&Worker id")}, std::pair{ColorMode::Bundle, tr("&Bundle occupancy")},
                               std::pair{ColorMode::State, tr("&State")}}) {
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
    view->addSeparator();
    view->addAction(findChild<QDockWidget *>(QStringLiteral("problemsDock"))->toggleViewAction());
    view->addAction(findChild<QDockWidget *>(QStringLiteral("jobLogDock"))->toggleViewAction());
    view->addSeparator();
    view->addAction(findChild<QDockWidget *>(QStringLiteral("timelineDock"))->toggleViewAction());
    view->addAction(findChild<QDockWidget *>(QStringLiteral("historyDock"))->toggleViewAction());
    view->addAction(tr("&Live"), QKeySequence(Qt::CTRL | Qt::Key_L), m_timeline, &Timeline::goLive);
    view->addAction(tr("History se&ttings..."), this, &MainWindow::openHistorySettings)->setObjectName(QStringLiteral("historySettingsAction"));

    QMenu *cluster = menuBar()->addMenu(tr("&Cluster"));
    m_reserveAction = cluster->addAction(tr("&Reserve slices..."), QKeySequence(Qt::CTRL | Qt::Key_R), this, &MainWindow::openComposer);
    m_releaseAction = cluster->addAction(tr("R&elease placement group..."), this, [this] {
        openComposer();
        m_composer->reviewRelease(placementGroupToRelease());
    });
    cluster->addAction(findChild<QDockWidget *>(QStringLiteral("whyPendingDock"))->toggleViewAction());
    cluster->addSeparator();
    // The kubeconfig's contexts, when the source is Kubernetes (setKubeContexts()).
    m_contextMenu = cluster->addMenu(tr("Kubernetes &context"));
    m_contextMenu->setObjectName(QStringLiteral("kubeContextMenu"));
    m_contextMenu->setEnabled(false);
    m_contextMenu->setToolTip(tr("Start with --kubeconfig to switch between its contexts"));
    m_scaleAction = cluster->addAction(tr("&Scale worker group..."), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S), this,
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
            if (!m_logTail)
                return;
            followJob(submissionId);
            findChild<QDockWidget *>(QStringLiteral("jobLogDock"))->show();
        });
    }
    for (QAction *a : {m_reserveAction, m_releaseAction}) {
        // Reserving still opens, to show the what-if plan; releasing needs someone to do it.
        a->setStatusTip(reason);
        a->setToolTip(reason.isEmpty() ? a->text() : reason);
    }
    m_releaseAction->setEnabled(m_actions != nullptr);
}

void MainWindow::buildJobLogDock()
{
    // Picking a job and reading its log sit together: the snapshot's jobs on top, refreshed with
    // every poll, and the log of the one picked below. Only a live Ray has logs to tail; for the
    // others the dock says why it is empty instead of showing an empty list.
    auto *panel = new QSplitter(Qt::Vertical, this);
    m_jobList = new QTreeWidget(panel);
    m_jobList->setObjectName(QStringLiteral("jobList"));
    m_jobList->setHeaderLabels({tr("Submission id"), tr("Status"), tr("Entrypoint")});
    m_jobList->setRootIsDecorated(false);
    m_jobList->setUniformRowHeights(true);
    m_jobList->setSelectionMode(QAbstractItemView::SingleSelection);
    m_jobList->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_jobList->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_jobList->header()->setStretchLastSection(true);
    m_jobLog = new JobLogView(panel);
    m_jobLog->setObjectName(QStringLiteral("jobLogView"));
    panel->addWidget(m_jobList);
    panel->addWidget(m_jobLog);
    panel->setStretchFactor(1, 3);
    m_jobLogEmpty = new QLabel(this);
    m_jobLogEmpty->setObjectName(QStringLiteral("jobLogEmpty"));
    m_jobLogEmpty->setWordWrap(true);
    m_jobLogEmpty->setAlignment(Qt::AlignCenter);
    m_jobLogStack = new QStackedWidget(this);
    m_jobLogStack->addWidget(panel);
    m_jobLogStack->addWidget(m_jobLogEmpty);

    auto *dock = makeDock(tr("Job log"), QStringLiteral("jobLogDock"), m_jobLogStack);
    addDockWidget(Qt::BottomDockWidgetArea, dock);
    dock->hide(); // opened from View, or when a submit starts a job

    connect(m_jobList, &QTreeWidget::itemSelectionChanged, this, [this] {
        if (m_fillingJobList) // the poll refreshed the rows: the reader picked nothing
            return;
        if (const QList<QTreeWidgetItem *> picked = m_jobList->selectedItems(); !picked.isEmpty())
            followJob(picked.first()->text(0));
    });
    // The view only asks; the tail of the moment (if any) answers.
#ifndef Q_OS_WASM // the browser build has no log tail (m_logTail stays null)
    connect(m_jobLog, &JobLogView::pauseRequested, this, [this](bool paused) {
        if (m_logTail)
            m_logTail->setPaused(paused);
    });
    connect(m_jobLog, &JobLogView::fullLogRequested, this, [this] {
        if (m_logTail)
            m_logTail->fetchFullLog();
    });
#endif
    chooseJobLog();
}

void MainWindow::chooseJobLog()
{
    m_logTail.reset();
    m_followedJob.clear();
    m_jobLog->clear();
    m_jobLogUnavailable.clear();
#ifndef Q_OS_WASM // live Ray and Kubernetes sources are desktop-only
    if (auto *live = qobject_cast<LiveRaySource *>(m_source.get())) {
        m_logTail = std::make_unique<JobLogTail>(live->client());
        JobLogTail *tail = m_logTail.get();
        connect(tail, &JobLogTail::linesReceived, m_jobLog, &JobLogView::appendLines);
        connect(tail, &JobLogTail::linesDropped, m_jobLog, &JobLogView::noteDroppedLines);
        connect(tail, &JobLogTail::fullLogReceived, m_jobLog, &JobLogView::showFullLog);
        connect(tail, &JobLogTail::fullLogFailed, this, [this](const QString &message) { m_jobLog->setStatus(tr("Full log: %1").arg(message)); });
        connect(tail, &JobLogTail::connectedChanged, this, [this, tail](bool connected) {
            m_jobLog->setStatus(connected ? tr("Following job %1").arg(tail->submissionId())
                                          : tr("Job %1: the connection dropped; reconnecting...").arg(tail->submissionId()));
        });
        connect(tail, &JobLogTail::finished, this, [this, tail] { m_jobLog->setStatus(tr("Job %1 finished").arg(tail->submissionId())); });
        connect(tail, &JobLogTail::failed, m_jobLog, &JobLogView::setStatus);
    } else if (qobject_cast<KubeSource *>(m_source.get())) {
        m_jobLogUnavailable = tr("Job logs are not followed through the Kubernetes service proxy yet. "
                                 "Add --ray URL (a port-forward to the head's dashboard) to follow a job's log.");
    } else
#endif
        if (qobject_cast<RelaySource *>(m_source.get())) {
        m_jobLogUnavailable = tr("Job logs are not carried by the relay yet: follow them where the relay runs (--ray URL).");
    } else if (qobject_cast<DemoSource *>(m_source.get())) {
        m_jobLogUnavailable = tr("The demo cluster runs no Ray jobs, so there are no logs to follow. "
                                 "Connect to a live Ray (--ray URL) to follow a job's log.");
    } else if (m_source) {
        m_jobLogUnavailable = tr("%1 is a recording: it lists jobs but holds none of their logs. "
                                 "Connect to the live Ray (--ray URL) to follow a job's log.")
                                  .arg(m_source->description());
    } else {
        m_jobLogUnavailable = tr("No source. Connect to a live Ray (--ray URL) to follow a job's log.");
    }
    m_jobLogEmpty->setText(m_jobLogUnavailable);
    m_jobLogStack->setCurrentIndex(m_jobLogUnavailable.isEmpty() ? 0 : 1);
    updateJobList();
}

void MainWindow::followJob(const QString &submissionId)
{
#ifndef Q_OS_WASM
    if (!m_logTail || submissionId.isEmpty())
        return;
    // Picking the job already followed again keeps its log; picking it after its tail stopped
    // (finished, failed) reads it again from the start, which is what a retry wants.
    if (submissionId != m_followedJob || !m_logTail->isRunning()) {
        m_followedJob = submissionId;
        m_jobLog->clear();
        m_jobLog->setStatus(tr("Job %1: connecting...").arg(submissionId));
        m_logTail->setPaused(m_jobLog->isPaused());
        m_logTail->start(submissionId);
    }
#else
    Q_UNUSED(submissionId);
#endif
    updateJobList(); // selects its row when the snapshot lists it
}

void MainWindow::updateJobList()
{
    QList<Job> jobs;
    if (m_logTail && m_snapshot)
        jobs = m_snapshot->jobs;
    // Newest first: the job just submitted is on top, where the reader looks.
    std::stable_sort(jobs.begin(), jobs.end(), [](const Job &a, const Job &b) { return a.startTimeMs > b.startTimeMs; });
    auto idOf = [](const Job &j) {
        return j.submissionId.isEmpty() ? j.jobId : j.submissionId;
    };

    m_fillingJobList = true;
    // Every poll refreshes the list: rows are rebuilt only when the set of jobs changed, so the
    // selection and the scroll position survive a poll that only changed a status.
    bool sameRows = m_jobList->topLevelItemCount() == jobs.size();
    for (int i = 0; sameRows && i < jobs.size(); ++i)
        sameRows = m_jobList->topLevelItem(i)->text(0) == idOf(jobs[i]);
    if (!sameRows) {
        m_jobList->clear();
        for (const Job &j : std::as_const(jobs))
            m_jobList->addTopLevelItem(new QTreeWidgetItem(QStringList{idOf(j)}));
    }
    for (int i = 0; i < jobs.size(); ++i) {
        QTreeWidgetItem *item = m_jobList->topLevelItem(i);
        const Job &j = jobs[i];
        item->setText(1, j.status);
        item->setText(2, j.entrypoint);
        item->setToolTip(1, j.message);
        item->setToolTip(2, j.entrypoint);
        if (item->text(0) == m_followedJob && !item->isSelected()) {
            m_jobList->setCurrentItem(item);
            m_jobList->scrollToItem(item);
        }
    }
    m_fillingJobList = false;
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

void MainWindow::setSource(std::unique_ptr<Source> source)
{
    // The actions and the log tail refer to the old source: let them go first.
    m_composer->setActions(nullptr);
    if (m_scaleDialog)
        m_scaleDialog->setActions(nullptr);
    m_actions.reset();
    m_logTail.reset();
    m_source = std::move(source);
    m_lastError.clear();
    // A new source is another cluster (or another recording): its past starts now.
    m_history->clear();
    m_spool->clear();
    m_spoolError.clear();
    m_loadingText.clear();
    m_timeline->goLive();
    if (auto *file = qobject_cast<CaptureFileSource *>(m_source.get())) {
        // A recording is read in slices; its captures are shown once all are in the history.
        connect(file, &CaptureFileSource::progressChanged, this, [this, file](int captures, int percent) {
            m_loadingText = file->isLoading() ? tr("reading the recording: %n capture(s), %1%", nullptr, captures).arg(percent) : QString();
            updateStatus();
        });
        connect(file, &CaptureFileSource::loadingFinished, this, [this](int captures) {
            m_loadingText.clear();
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
    if (const QString error = m_spool->append(serial, capture); !error.isEmpty() && m_spoolError.isEmpty()) {
        m_spoolError = error; // said once: the history goes on, saving it will lack these captures
        m_problems->insertItem(0, tr("History spool: %1").arg(error));
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
    m_problems->clear();
    for (const Slice &s : m_snapshot->slices)
        if (!s.problems.isEmpty())
            m_problems->addItem(tr("%1: %2").arg(s.name, s.problems.join(QStringLiteral(", "))));
    m_problems->addItems(m_snapshot->warnings);
    if (!m_spoolError.isEmpty())
        m_problems->insertItem(0, tr("History spool: %1").arg(m_spoolError));
    updateJobList();
    updateStatus();
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
    m_lastScrubMs = double(clock.nsecsElapsed()) / 1e6;
    m_charts->setCursorTime(m_history->time(index));
    updateStatus();
}

void MainWindow::onLiveChanged(bool live)
{
    if (live) {
        if (m_snapshot)
            m_workspace->setSnapshot(m_snapshot);
        m_charts->setCursorTime({});
    }
    updateStatus();
}

void MainWindow::onEventActivated(const HistoryEvent &event)
{
    // The timeline has moved the views to the event's moment: select what changed there.
    const SnapshotPtr shown = m_workspace->snapshot();
    auto absent = [this](const QString &what) {
        statusBar()->showMessage(tr("%1 is not in the cluster at this moment (the event removed it)").arg(what), 10000);
    };
    if (!event.selectPlacementGroup.isEmpty()) {
        if (!event.selectSlice.isEmpty() && shown && shown->sliceIndex(event.selectSlice) >= 0)
            m_workspace->showSlice(event.selectSlice);
        if (!selectPlacementGroupInTables(event.selectPlacementGroup))
            absent(event.subject);
        return;
    }
    if (event.selectSlice.isEmpty())
        return;
    if (!m_workspace->showSlice(event.selectSlice)) {
        absent(event.selectSlice);
        return;
    }
    m_workspace->showPage(Workspace::Page::Slice);
    // A host's event names its worker ("tpu-v6e-3 worker 2"): select that host too.
    switch (event.kind) {
    case HistoryEventKind::HostDied:
    case HistoryEventKind::HostRemoved:
    case HistoryEventKind::HostUp:
    case HistoryEventKind::HostMissing:
    case HistoryEventKind::HostPending: {
        static const QRegularExpression worker(QStringLiteral("\\bworker (\\d+)\\b"));
        if (const QRegularExpressionMatch m = worker.match(event.subject); m.hasMatch())
            m_workspace->selectHost(m.captured(1).toInt());
        break;
    }
    default:
        break;
    }
}

bool MainWindow::selectPlacementGroupInTables(const QString &id)
{
    QTabWidget *tabs = m_workspace->tables()->tabs();
    for (int t = 0; t < tabs->count(); ++t) {
        auto *view = qobject_cast<QTableView *>(tabs->widget(t));
        auto *proxy = view ? qobject_cast<QSortFilterProxyModel *>(view->model()) : nullptr;
        if (!proxy || !qobject_cast<PlacementGroupTableModel *>(proxy->sourceModel()))
            continue;
        m_workspace->showPage(Workspace::Page::Tables);
        tabs->setCurrentIndex(t);
        const QModelIndexList found = proxy->match(proxy->index(0, 0), SnapshotTableModel::KeyRole, id, 1, Qt::MatchExactly);
        if (found.isEmpty()) {
            view->clearSelection();
            return false;
        }
        view->selectionModel()->setCurrentIndex(found.first(), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        view->scrollTo(found.first(), QAbstractItemView::PositionAtCenter);
        return true;
    }
    return false;
}

HistoryPolicy MainWindow::historyPolicy() const
{
    return m_history->policy();
}

void MainWindow::setHistoryPolicy(const HistoryPolicy &policy)
{
    m_history->setPolicy(policy);
    if (m_mode == Mode::Interactive) {
        QSettings settings;
        settings.setValue(kMaxAgeKey, policy.maxAgeSeconds);
        settings.setValue(kMaxBytesKey, policy.maxBytes);
    }
    updateStatus();
}

void MainWindow::openHistorySettings()
{
    auto *dialog = new QDialog(this);
    dialog->setObjectName(QStringLiteral("historySettingsDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("History settings"));
    const HistoryPolicy policy = m_history->policy();

    auto *age = new QSpinBox(dialog);
    age->setObjectName(QStringLiteral("maxAgeMinutes"));
    age->setRange(0, 30 * 24 * 60);
    age->setSuffix(tr(" min"));
    age->setSpecialValueText(tr("no limit"));
    age->setValue(policy.maxAgeSeconds > 0 ? int(std::min<qint64>(age->maximum(), (policy.maxAgeSeconds + 59) / 60)) : 0);
    age->setToolTip(tr("Snapshots older than this, counted back from the newest, are dropped"));
    auto *memory = new QSpinBox(dialog);
    memory->setObjectName(QStringLiteral("maxMegabytes"));
    memory->setRange(0, 1 << 20);
    memory->setSingleStep(64);
    memory->setSuffix(tr(" MB"));
    memory->setSpecialValueText(tr("no limit"));
    memory->setValue(policy.maxBytes > 0 ? int(std::min<qint64>(memory->maximum(), (policy.maxBytes + (1 << 20) - 1) >> 20)) : 0);
    memory->setToolTip(tr("The oldest snapshots are dropped when the history would hold more than this"));

    QString held;
    if (m_history->isEmpty()) {
        held = tr("The history is empty.");
    } else {
        held = tr("Now holding %n snapshot(s), %1 to %2 UTC, in about %3 MB of memory.", nullptr, m_history->size())
                   .arg(utcTime(m_history->time(0)), utcTime(m_history->time(m_history->size() - 1)), megabytes(m_history->bytesHeld()));
    }
    held += u' ' + tr("Their raw captures are kept on disk for File > Save history as recording: %n capture(s), %1 MB in %2.", nullptr, m_spool->count()).arg(megabytes(m_spool->bytes()), m_spool->directory());
    auto *info = new QLabel(held, dialog);
    info->setObjectName(QStringLiteral("historyHeld"));
    info->setWordWrap(true);
    info->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *form = new QFormLayout;
    form->addRow(tr("Keep snapshots for"), age);
    form->addRow(tr("Use at most"), memory);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel | QDialogButtonBox::RestoreDefaults, dialog);
    connect(buttons->button(QDialogButtonBox::RestoreDefaults), &QPushButton::clicked, dialog, [age, memory] {
        const HistoryPolicy defaults;
        age->setValue(int(defaults.maxAgeSeconds / 60));
        memory->setValue(int(defaults.maxBytes >> 20));
    });
    connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    connect(buttons, &QDialogButtonBox::accepted, dialog, [this, dialog, age, memory] {
        HistoryPolicy chosen;
        chosen.maxAgeSeconds = qint64(age->value()) * 60;
        chosen.maxBytes = qint64(memory->value()) << 20;
        setHistoryPolicy(chosen);
        dialog->accept();
    });
    auto *layout = new QVBoxLayout(dialog);
    layout->addLayout(form);
    layout->addWidget(info);
    layout->addWidget(buttons);
    dialog->resize(460, dialog->sizeHint().height());
    dialog->open();
}

QString MainWindow::saveHistoryAsRecording(const QString &path, int *written) const
{
    QList<qint64> serials;
    serials.reserve(m_history->size());
    for (int i = 0; i < m_history->size(); ++i)
        serials << m_history->serial(i);
    return m_spool->writeRecording(path, serials, written);
}

void MainWindow::chooseSaveFile(const QString &title, const QString &suggestedName, const QString &filter,
                                std::function<void(const QString &path)> save)
{
#ifdef Q_OS_WASM
    // The page has no file system to save to: write into its memory, then the browser offers the
    // file as a download.
    Q_UNUSED(title);
    Q_UNUSED(filter);
    const QString path = QDir::tempPath() + u'/' + suggestedName;
    QFile::remove(path);
    save(path);
    QFile file(path);
    if (file.open(QIODevice::ReadOnly))
        QFileDialog::saveFileContent(file.readAll(), suggestedName);
#else
    // open(), not exec(): no nested event loop.
    auto *dialog = new QFileDialog(this, title, suggestedName, filter);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setAcceptMode(QFileDialog::AcceptSave);
    connect(dialog, &QFileDialog::fileSelected, this, std::move(save));
    dialog->open();
#endif
}

void MainWindow::saveHistoryRecording()
{
    if (m_history->isEmpty())
        return;
    chooseSaveFile(tr("Save history as recording"), QStringLiteral("history.slicescope.jsonl"),
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
    // A source fails again at every retry through a long outage: each distinct error keeps one
    // row, the newest on top, and only the last few are kept (the next good snapshot clears them).
    constexpr int kMaxErrorRows = 8;
    constexpr int kErrorRole = Qt::UserRole + 1;
    const QString text = tr("Error: %1").arg(message);
    for (int row = 0; row < m_problems->count(); ++row) {
        if (m_problems->item(row)->data(kErrorRole).toBool() && m_problems->item(row)->text() == text) {
            delete m_problems->takeItem(row);
            break;
        }
    }
    auto *item = new QListWidgetItem(text);
    item->setData(kErrorRole, true);
    m_problems->insertItem(0, item);
    int errors = 0;
    for (int row = 0; row < m_problems->count();) {
        if (m_problems->item(row)->data(kErrorRole).toBool() && ++errors > kMaxErrorRows)
            delete m_problems->takeItem(row);
        else
            ++row;
    }
    updateStatus();
}

QString MainWindow::statusText() const
{
    return m_status->text();
}

void MainWindow::setKubeContexts(const QStringList &contexts, const QString &current,
                                 std::function<std::unique_ptr<Source>(const QString &context, QString *error)> makeSource)
{
    // Called again when the kubeconfig is read anew: the context in use stays in use, whatever
    // the file now calls current. One that vanished from the file is not swapped for another; it
    // stays listed, marked, until the operator chooses one.
    const bool refresh = m_makeKubeSource && !m_kubeContext.isEmpty();
    const QString inUse = refresh ? m_kubeContext : current;
    m_contextMenu->clear();
    m_makeKubeSource = std::move(makeSource);
    m_kubeContexts = contexts;
    auto *group = new QActionGroup(m_contextMenu);
    auto addContext = [&](const QString &name, const QString &text) {
        QAction *a = m_contextMenu->addAction(text);
        a->setData(name);
        a->setCheckable(true);
        a->setChecked(name == inUse);
        group->addAction(a);
        return a;
    };
    for (const QString &name : contexts) {
        QAction *a = addContext(name, name);
        connect(a, &QAction::triggered, this, [this, name] { switchKubeContext(name); });
    }
    if (!inUse.isEmpty() && !contexts.contains(inUse)) {
        addContext(inUse, tr("%1 (in use; no longer in the kubeconfig)").arg(inUse))->setEnabled(false);
        if (refresh)
            statusBar()->showMessage(tr("Kubernetes context %1 is no longer in the kubeconfig; still showing it until you choose another")
                                         .arg(inUse),
                                     10000);
    }
    m_contextMenu->setEnabled(!contexts.isEmpty() && m_makeKubeSource);
    m_kubeContext = inUse;
}

void MainWindow::switchKubeContext(const QString &context)
{
    if (!m_makeKubeSource || context == m_kubeContext)
        return;
    auto keepChecks = [this] {
        // The check mark stays on the context still in use.
        for (QAction *a : m_contextMenu->actions())
            a->setChecked(a->data().toString() == m_kubeContext);
    };
    if (!m_kubeContexts.contains(context)) {
        // Asked for by name, and that name is gone: refused, never replaced by a neighbour.
        onSourceFailed(tr("context %1 is no longer in the kubeconfig; still on %2").arg(context, m_kubeContext));
        keepChecks();
        return;
    }
    QString error;
    std::unique_ptr<Source> source = m_makeKubeSource(context, &error);
    if (!source) {
        onSourceFailed(tr("context %1: %2").arg(context, error));
        keepChecks();
        return;
    }
    m_kubeContext = context;
    // The view belongs to the old cluster: do not show it under the new name.
    m_snapshot.reset();
    m_workspace->setSnapshot(std::make_shared<const ClusterSnapshot>());
    setSource(std::move(source));
}

void MainWindow::updateStatus()
{
    QStringList parts;
    parts << (m_source ? tr("Source: %1").arg(m_source->description()) : tr("No source"));
    if (!m_loadingText.isEmpty())
        parts << m_loadingText;
    if (!m_timeline->isLive() && m_timeline->position() >= 0) {
        const QDateTime viewed = m_timeline->positionTime();
        parts << tr("viewing %1 UTC (%2) — press Live to return").arg(utcTime(viewed), agoText(viewed, m_history->time(m_history->size() - 1)));
    }
    if (m_snapshot) {
        parts << tr("%1 slices, %2 placement groups").arg(m_snapshot->slices.size()).arg(m_snapshot->placementGroups.size());
        if (m_snapshot->capturedAt.isValid()) // UTC: the same text on every machine and in screenshots
            parts << tr("last refresh %1 UTC").arg(m_snapshot->capturedAt.toUTC().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")));
    }
    if (!m_lastError.isEmpty())
        parts << tr("Error: %1 (showing the last good data)").arg(m_lastError);
    m_status->setText(parts.join(QStringLiteral("  ·  ")));
}

void MainWindow::openCapture()
{
    const QString filter = tr("SliceScope captures (*.slicescope.json *.slicescope.jsonl *.json *.jsonl)");
#ifdef Q_OS_WASM
    // The browser's own file picker; the file is copied into the page's memory and read from there
    // like any capture file, entirely in the page.
    QFileDialog::getOpenFileContent(filter, [this](const QString &name, const QByteArray &bytes) {
        if (name.isEmpty())
            return; // cancelled
        const QString path = QDir::tempPath() + u'/' + QFileInfo(name).fileName();
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(bytes) != bytes.size()) {
            onSourceFailed(tr("%1: could not be read into the page").arg(name));
            return;
        }
        file.close();
        setSource(std::make_unique<CaptureFileSource>(path));
    });
#else
    const QString path = QFileDialog::getOpenFileName(this, tr("Open capture"), QString(), filter);
    if (!path.isEmpty())
        setSource(std::make_unique<CaptureFileSource>(path));
#endif
}

void MainWindow::saveCapture()
{
    if (!m_snapshot)
        return;
    chooseSaveFile(tr("Save capture"), QStringLiteral("cluster.slicescope.json"), tr("SliceScope captures (*.slicescope.json)"),
                   [this, capture = m_lastCapture](const QString &path) {
                       if (const QString error = writeCaptureFile(path, capture); !error.isEmpty())
                           onSourceFailed(error);
                   });
}

void MainWindow::exportSliceView(bool svg)
{
    const QString base = (m_workspace->currentSlice().isEmpty() ? QStringLiteral("slice") : m_workspace->currentSlice());
    chooseSaveFile(svg ? tr("Export as SVG") : tr("Export as PNG"), base + (svg ? QStringLiteral(".svg") : QStringLiteral(".png")),
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
#ifdef Q_OS_WASM
        return tr("SVG export is not in the browser build; export a PNG");
#else
        QSvgGenerator generator;
        generator.setFileName(path);
        generator.setSize(size);
        generator.setViewBox(QRect(QPoint(0, 0), size));
        generator.setTitle(tr("SliceScope: %1 (logical layout)").arg(m_workspace->currentSlice()));
        QPainter painter;
        if (!painter.begin(&generator))
            return tr("%1: could not write the SVG").arg(path);
        view->render(painter, size);
        return {};
#endif
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
    if (m_mode == Mode::Interactive) {
        QSettings settings;
        settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
        settings.setValue(QStringLiteral("window/state"), saveState());
        settings.setValue(QStringLiteral("window/splitter"), m_workspace->splitter()->saveState());
        settings.setValue(QStringLiteral("view/color"), toText(m_workspace->colorMode()));
        settings.setValue(QStringLiteral("view/theme"), m_workspace->theme().isDark ? QStringLiteral("dark") : QStringLiteral("light"));
    }
    event->accept();
}

} // namespace slicescope
