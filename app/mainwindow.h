// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "look.h"
#include "snapshot.h"

#include <QMainWindow>

#include <memory>

class QActionGroup;
class QLabel;
class QListWidget;

namespace slicescope {

class ClusterActions;
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
    void setTheme(const Theme &theme);
    Workspace *workspace() const { return m_workspace; }
    SliceComposer *composer() const { return m_composer; }
    WhyPendingPanel *whyPending() const { return m_whyPending; }
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
    QAction *m_reserveAction = nullptr;
    QAction *m_releaseAction = nullptr;
    QLabel *m_status = nullptr;
    QActionGroup *m_themeGroup = nullptr;
    QActionGroup *m_colorGroup = nullptr;
};

} // namespace slicescope
