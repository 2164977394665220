// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "look.h"
#include "snapshot.h"

#include <QMainWindow>

#include <functional>
#include <memory>

class QActionGroup;
class QLabel;
class QMenu;
class QListWidget;
class QStackedWidget;
class QTreeWidget;

namespace slicescope {

class ClusterActions;
class JobLogTail;
class JobLogView;
class ScaleDialog;
class SliceComposer;
class Source;
class WhyPendingPanel;
class Workspace;

// The composition of the window: a source feeds captures, each becomes a snapshot, the workspace
// shows the last good one. A capture that cannot be read leaves the last good view in place.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    enum class Mode {
        Interactive, // remembers layout and settings
        Screenshot,  // deterministic: no settings read or written
    };

    explicit MainWindow(Mode mode = Mode::Interactive, QWidget *parent = nullptr);
    ~MainWindow() override;

    void setSource(std::unique_ptr<Source> source);
    // The kubeconfig's contexts for the Cluster > Kubernetes context menu; choosing one replaces
    // the source with `makeSource(context)`.
    void setKubeContexts(const QStringList &contexts, const QString &current,
                         std::function<std::unique_ptr<Source>(const QString &context, QString *error)> makeSource);
    void switchKubeContext(const QString &context);
    QString kubeContext() const { return m_kubeContext; }
    void setTheme(const Theme &theme);
    Workspace *workspace() const { return m_workspace; }
    SliceComposer *composer() const { return m_composer; }
    WhyPendingPanel *whyPending() const { return m_whyPending; }
    // The "Job log" dock: the snapshot's jobs (column 0 the submission id) and the log of the one followed.
    QTreeWidget *jobList() const { return m_jobList; }
    JobLogView *jobLog() const { return m_jobLog; }
    // Why the dock is empty ("no source", "the demo runs no Ray jobs"...), or empty when it can tail.
    QString jobLogUnavailableReason() const { return m_jobLogUnavailable; }
    // Tails job `submissionId` into the log pane (live Ray only); the list selects it when listed.
    void followJob(const QString &submissionId);
    QString followedJob() const { return m_followedJob; }
    // The "Scale worker group" dialog, once opened (null before); it follows every new snapshot.
    ScaleDialog *scaleDialog() const { return m_scaleDialog; }
    // Opens it on the worker group of `sliceName` (preselected for removal), else on the group of
    // the slice being looked at, else on the first TPU group.
    void openScaleDialog(const QString &sliceName = {});
    // Who carries out cluster changes for the current source (null for capture files).
    ClusterActions *clusterActions() const { return m_actions.get(); }
    const SnapshotPtr &snapshot() const { return m_snapshot; }
    QString statusText() const;
    // Writes the slice view as PNG or SVG (by the file's suffix); returns an error or empty.
    QString exportSliceViewTo(const QString &path, QSize size = {});

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void buildMenus();
    void onCapture(const Capture &capture);
    void onSourceFailed(const QString &message);
    void openCapture();
    void saveCapture();
    void exportSliceView(bool svg);
    void updateStatus();
    void chooseClusterActions();
    void openComposer();
    QString placementGroupToRelease() const;
    void buildJobLogDock();
    void chooseJobLog();
    void updateJobList();
    void updateScaleAction();

    Mode m_mode;
    std::unique_ptr<Source> m_source;
    SnapshotPtr m_snapshot;
    Capture m_lastCapture;
    QString m_lastError;
    Workspace *m_workspace = nullptr;
    QListWidget *m_problems = nullptr;
    SliceComposer *m_composer = nullptr;
    WhyPendingPanel *m_whyPending = nullptr;
    std::unique_ptr<ClusterActions> m_actions; // declared after m_source: destroyed first
    std::unique_ptr<JobLogTail> m_logTail;     // uses the live source's client: also destroyed first
    QTreeWidget *m_jobList = nullptr;
    JobLogView *m_jobLog = nullptr;
    QLabel *m_jobLogEmpty = nullptr;
    QStackedWidget *m_jobLogStack = nullptr;
    QString m_jobLogUnavailable;
    QString m_followedJob;
    bool m_fillingJobList = false;
    QMenu *m_contextMenu = nullptr;
    QString m_kubeContext;
    std::function<std::unique_ptr<Source>(const QString &, QString *)> m_makeKubeSource;
    QAction *m_reserveAction = nullptr;
    QAction *m_releaseAction = nullptr;
    QAction *m_scaleAction = nullptr;
    ScaleDialog *m_scaleDialog = nullptr;
    QString m_actionsUnavailable; // why m_actions is null, for the scale dialog
    QLabel *m_status = nullptr;
    QActionGroup *m_themeGroup = nullptr;
    QActionGroup *m_colorGroup = nullptr;
};

} // namespace slicescope
