// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "alerts.h"
#include "commandpalette.h"
#include "connectdialog.h"
#include "fleetgrouping.h"
#include "history.h"
#include "look.h"
#include "snapshot.h"

#include <QMainWindow>
#include <QPointer>
#include <QSet>

#include <functional>
#include <memory>

class QActionGroup;
class QDockWidget;
class QLabel;
class QMenu;
class QProgressBar;
class QTreeView;

class QSystemTrayIcon;

namespace slicescope {

struct AlertTick;
class CaptureSpool;
class ClusterActions;
class CommandPalette;
class HistoryChartsPanel;
class JobLogDock;
class JobLogSource;
class JobLogView;
class KubeContextMenu;
class ProblemsList;
class ScaleDialog;
class SliceComposer;
class Source;
class Timeline;
class WhyPendingPanel;
class Workspace;

// The composition of the window: a source feeds captures, each becomes a snapshot, the workspace
// shows the last good one. A capture that cannot be read leaves the last good view in place.
//
// Every good snapshot also goes into a SnapshotHistory (cleared when the source changes, bounded
// by the policy in the settings) and its raw capture into a disk spool, so the "Timeline" dock can
// show the fleet as it was at any kept moment, the "History" dock can chart it, and the history
// can be saved as a recording. Scrubbed back, the workspace shows the past while actions (reserve,
// release, scale), the problems list and the job list keep working on the live snapshot.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    enum class Mode
    {
        Interactive, // remembers layout and settings
        Screenshot,  // deterministic: no settings read or written
    };

    explicit MainWindow(Mode mode = Mode::Interactive, QWidget *parent = nullptr);
    ~MainWindow() override;

    void setSource(std::unique_ptr<Source> source);
    // The kubeconfig's contexts for the Cluster > Kubernetes context menu; choosing one replaces
    // the source with `makeSource(context)`. Called again (the kubeconfig re-read), the context in
    // use stays in use: one gone from the list stays shown, marked, and is never swapped for another.
    void setKubeContexts(const QStringList &contexts, const QString &current,
                         std::function<std::unique_ptr<Source>(const QString &context, QString *error)> makeSource);
    // File > Connect (issue 16): `list` reads the kubeconfig's contexts afresh each time the dialog
    // opens; `connect` makes the source for the contexts chosen (one: that context; several: a
    // fleet). The choice is remembered (QSettings "connect/..."). Without a connector (the browser
    // build) the action is hidden.
    struct KubeConnector {
        std::function<QString(QStringList *contexts, QString *current, QStringList *files)> list; // returns a problem, or empty
        std::function<std::unique_ptr<Source>(const ConnectChoice &choice, QString *error)> connect;
        // After connecting to one context: the context menu's factory for the others.
        std::function<std::unique_ptr<Source>(const QString &context, QString *error)> makeOne;
    };
    void setKubeConnector(KubeConnector connector);
    // View > Go to... (Ctrl+K, issue 17): the command palette over every slice, placement group and
    // worker group of the snapshot shown, and every action and view of the menus (mainwindowpalette.cpp).
    // Non-modal; the palette, once opened (null before).
    void openCommandPalette();
    CommandPalette *commandPalette() const { return m_palette; }
    QList<PaletteEntry> paletteEntries();
    // Cluster > Reserve slices (Ctrl+R): shows the composer dock on the slice looked at.
    void openComposer();
    // The layout rules (issue 17, mainwindowlayout.cpp): docks never crush the central view below
    // centralMinimumSize() nor grow the window past its screen; View > Reset layout (resetLayout())
    // puts every dock back where a first run has it.
    QSize centralMinimumSize() const;
    void resetLayout();
    // Help > Keyboard shortcuts (?, F1): every shortcut of the menus and the views, in one list.
    void openShortcutsHelp();
    // (section, what it does, keys), in menu order, then the views' own keys.
    struct ShortcutRow {
        QString section, text, keys;
    };
    QList<ShortcutRow> shortcutRows() const;
    // Opens File > Connect (non-modal); connectTo() is what its Connect button does.
    void openConnectDialog();
    bool connectTo(const ConnectChoice &choice);
    // Refused (with a line in the status bar) for a context no longer in the list.
    void switchKubeContext(const QString &context);
    QString kubeContext() const;
    void setTheme(const Theme &theme);
    void setOverviewOrder(FleetOrder order); // the overview's nesting, and the View menu's check
    Workspace *workspace() const { return m_workspace; }
    SliceComposer *composer() const { return m_composer; }
    WhyPendingPanel *whyPending() const { return m_whyPending; }
    // The "Job log" dock (JobLogDock): the snapshot's jobs (a JobTableModel, column 0 the
    // submission id) and the log of the one followed.
    QTreeView *jobList() const;
    JobLogView *jobLog() const;
    // Why the dock is empty ("no source", "the demo runs no Ray jobs"...), or empty when it can tail.
    QString jobLogUnavailableReason() const;
    // Tails job `submissionId` into the log pane (live Ray only); the list selects it when listed.
    void followJob(const QString &submissionId);
    QString followedJob() const;
    // The "Scale worker group" dialog, once opened (null before); it follows every new snapshot.
    ScaleDialog *scaleDialog() const { return m_scaleDialog; }
    // Opens it on the worker group of `sliceName` (preselected for removal), else on the group of
    // the slice being looked at, else on the first TPU group.
    void openScaleDialog(const QString &sliceName = {});
    // Who carries out cluster changes for the current source (null for capture files).
    ClusterActions *clusterActions() const { return m_actions.get(); }
    // The newest good snapshot (what actions work on), whatever the views show.
    const SnapshotPtr &snapshot() const { return m_snapshot; }
    // What the views show: the newest snapshot while live, else the history's entry scrubbed to.
    SnapshotPtr viewedSnapshot() const;
    QString statusText() const;

    // Time travel. The history of this source's snapshots, the scrubber and events list, and the
    // charts (null until a HistoryChartsPanel exists in the build).
    SnapshotHistory *history() const { return m_history; }
    // The alerts of the live snapshots so far (every capture observed in order; a new source resets it).
    const AlertEngine &alerts() const { return m_alerts; }
    // The engine's thresholds: in interactive mode read from the settings at start. Set, they
    // apply from the next capture and, in interactive mode, are kept (windowsettings.h).
    AlertThresholds alertThresholds() const { return m_alerts.thresholds(); }
    void setAlertThresholds(const AlertThresholds &thresholds);
    // View > Alert thresholds...: shows and edits them (window-modal, no nested loop).
    void openAlertThresholds();
    // Desktop notifications of new warning/critical alerts (View > Notify about new alerts; off by default).
    void setNotifyAlerts(bool on);
    bool notifyAlerts() const;
    Timeline *timeline() const { return m_timeline; }
    HistoryChartsPanel *historyCharts() const { return m_charts; }
    const CaptureSpool &captureSpool() const { return *m_spool; }
    HistoryPolicy historyPolicy() const;
    // Applies the bounds (evicting at once when tighter) and, in interactive mode, keeps them in
    // the settings (history/maxAgeSeconds, history/maxBytes).
    void setHistoryPolicy(const HistoryPolicy &policy);
    // View > History settings...: shows and edits the policy (window-modal, no nested loop).
    void openHistorySettings();
    // Writes the captures of the history still held by the spool as a JSON Lines recording (the
    // `record` verb's format). Returns an error sentence or empty; *written counts the captures.
    QString saveHistoryAsRecording(const QString &path, int *written = nullptr) const;
    // How long the last scrub took to rebuild the snapshot and hand it to the views, in ms.
    double lastScrubMs() const { return m_lastScrubMs; }
    // Writes the slice view as PNG or SVG (by the file's suffix); returns an error or empty.
    QString exportSliceViewTo(const QString &path, QSize size = {});

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void buildMenus();
    // A dock holding `widget`, named for saveState()/restoreState(); the caller places it.
    QDockWidget *makeDock(const QString &title, const QString &objectName, QWidget *widget);
    void buildHistoryDocks();
    void connectWorkspaceHelpers(); // mainwindowhelpers.cpp
    void applyLayoutRules(); // after the docks and menus exist, before the settings restore a layout
    void keepOnScreen(QSize before); // after a dock opened: no larger than its screen's work area, or than before
    void onCapture(const Capture &capture);
    void applyLiveSnapshot();
    void notifyNewAlerts();
    void showHistoryEntry(int index);
    void onLiveChanged(bool live);
    void onEventActivated(const HistoryEvent &event);
    void onAlertTickActivated(const AlertTick &tick);
    void saveHistoryRecording();
    void onSourceFailed(const QString &message);
    void openCapture();
    void saveCapture();
    void exportSliceView(bool svg);
    void updateStatus();
    void chooseClusterActions();
    QString placementGroupToRelease() const;
    void chooseJobLog();
    void updateScaleAction();
    // The status bar's progress: a percentage, kBusy (under way, no end known) or kNoProgress (hidden).
    static constexpr int kBusy = -1;
    static constexpr int kNoProgress = -2;
    void showProgress(int percent);

    Mode m_mode;
    std::unique_ptr<Source> m_source;
    SnapshotPtr m_snapshot;
    Capture m_lastCapture;
    QString m_lastError;
    Workspace *m_workspace = nullptr;
    QProgressBar *m_progress = nullptr;
    ProblemsList *m_problems = nullptr;
    SliceComposer *m_composer = nullptr;
    WhyPendingPanel *m_whyPending = nullptr;
    std::unique_ptr<ClusterActions> m_actions; // declared after m_source: destroyed first
    std::unique_ptr<JobLogSource> m_logSource; // uses the live source's client: also destroyed first
    JobLogDock *m_jobLogDock = nullptr;
    KubeContextMenu *m_contextMenu = nullptr;
    QAction *m_reserveAction = nullptr;
    QAction *m_releaseAction = nullptr;
    QAction *m_scaleAction = nullptr;
    ScaleDialog *m_scaleDialog = nullptr;
    CommandPalette *m_palette = nullptr;
    QByteArray m_defaultLayout, m_defaultSplitter; // a first run's docks and splitter (resetLayout())
    QString m_actionsUnavailable; // why m_actions is null, for the scale dialog
    QLabel *m_status = nullptr;
    SnapshotHistory *m_history = nullptr;
    AlertEngine m_alerts;
    QSet<QString> m_notifiedAlerts; // ids of the alerts active at the last capture
    QAction *m_notifyAction = nullptr;
    QSystemTrayIcon *m_tray = nullptr;
    std::unique_ptr<CaptureSpool> m_spool;
    QString m_spoolError;              // the first spool failure of this source, said once
    QString m_loadingText;             // "reading the recording: ..." while a file source reads
    Timeline *m_timeline = nullptr;
    HistoryChartsPanel *m_charts = nullptr;
    double m_lastScrubMs = 0;
    QActionGroup *m_themeGroup = nullptr;
    QActionGroup *m_orderGroup = nullptr; // View > Group overview by
    QAction *m_connectAction = nullptr;    // File > Connect, shown once a connector is set
    KubeConnector m_connector;
    QPointer<ConnectDialog> m_connectDialog;
    QActionGroup *m_colorGroup = nullptr;
};

} // namespace slicescope
