// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The window's "Job log" dock: picking a job and reading its log sit together, the snapshot's
// jobs on top (JobTableModel, refreshed with every poll) and the log of the one picked below
// (JobLogView). It follows logs through a JobLogSource (model/joblogsource.h) that app/ chooses
// for the source; without one the dock says why it is empty instead of showing an empty list.

#include "snapshot.h"

#include <QDockWidget>
#include <QPointer>

class QLabel;
class QStackedWidget;
class QTreeView;

namespace slicescope {

class JobLogSource;
class JobLogView;
class JobTableModel;

class JobLogDock : public QDockWidget
{
    Q_OBJECT
public:
    // Named "jobLogDock" (the key saveState()/restoreState() keep its place under).
    explicit JobLogDock(QWidget *parent = nullptr);
    ~JobLogDock() override;

    // What follows logs now (not owned; the caller keeps it alive or sets another first), or null
    // with `unavailableReason` saying why. Forgets the job followed and clears the log.
    void setLogSource(JobLogSource *source, const QString &unavailableReason);
    // The jobs to list (listed only while a log source can follow them).
    void setSnapshot(const SnapshotPtr &snapshot);
    // Follows job `submissionId` (nothing without a log source); the list selects it when listed.
    void followJob(const QString &submissionId);
    QString followedJob() const { return m_followedJob; }
    // Why the dock is empty, or empty when it can follow logs.
    QString unavailableReason() const { return m_unavailable; }

    QTreeView *jobList() const { return m_jobList; }
    JobTableModel *jobModel() const { return m_jobs; }
    JobLogView *logView() const { return m_log; }

private:
    void updateJobList();

    QPointer<JobLogSource> m_source;
    SnapshotPtr m_snapshot;
    JobTableModel *m_jobs;
    QTreeView *m_jobList;
    JobLogView *m_log;
    QLabel *m_empty;
    QStackedWidget *m_stack;
    QString m_unavailable;
    QString m_followedJob;
    bool m_fillingJobList = false;
};

} // namespace slicescope
