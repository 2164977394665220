// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "snapshot.h"

#include <QMainWindow>

#include <memory>

class QLabel;
class QListWidget;

namespace slicescope {

class FleetTables;
class Source;

// The composition of the window: a source feeds captures, each becomes a snapshot, the views show
// the last good one. A capture that cannot be read leaves the last good view in place.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    void setSource(std::unique_ptr<Source> source);
    const SnapshotPtr &snapshot() const { return m_snapshot; }

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void onCapture(const Capture &capture);
    void onSourceFailed(const QString &message);
    void openCapture();
    void saveCapture();
    void updateStatus();

    std::unique_ptr<Source> m_source;
    SnapshotPtr m_snapshot;
    Capture m_lastCapture;
    QString m_lastError;
    FleetTables *m_tables = nullptr;
    QListWidget *m_problems = nullptr;
    QLabel *m_status = nullptr;
};

} // namespace slicescope
