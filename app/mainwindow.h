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

class Source;
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

    Mode m_mode;
    std::unique_ptr<Source> m_source;
    SnapshotPtr m_snapshot;
    Capture m_lastCapture;
    QString m_lastError;
    Workspace *m_workspace = nullptr;
    QListWidget *m_problems = nullptr;
    QLabel *m_status = nullptr;
    QActionGroup *m_themeGroup = nullptr;
    QActionGroup *m_colorGroup = nullptr;
};

} // namespace slicescope
