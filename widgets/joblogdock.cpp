// SPDX-License-Identifier: GPL-3.0-or-later
#include "joblogdock.h"

#include "joblogsource.h"
#include "joblogview.h"
#include "jobtablemodel.h"

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QStackedWidget>
#include <QTreeView>

namespace slicescope {

JobLogDock::JobLogDock(QWidget *parent)
    : QDockWidget(tr("Job log"), parent)
    , m_jobs(new JobTableModel(this))
{
    setObjectName(QStringLiteral("jobLogDock"));
    auto *panel = new QSplitter(Qt::Vertical, this);
    m_jobList = new QTreeView(panel);
    m_jobList->setObjectName(QStringLiteral("jobList"));
    m_jobList->setModel(m_jobs);
    m_jobList->setRootIsDecorated(false);
    m_jobList->setUniformRowHeights(true);
    m_jobList->setSelectionMode(QAbstractItemView::SingleSelection);
    m_jobList->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_jobList->header()->setSectionResizeMode(JobTableModel::Id, QHeaderView::ResizeToContents);
    m_jobList->header()->setSectionResizeMode(JobTableModel::Status, QHeaderView::ResizeToContents);
    m_jobList->header()->setStretchLastSection(true);
    m_log = new JobLogView(panel);
    m_log->setObjectName(QStringLiteral("jobLogView"));
    panel->addWidget(m_jobList);
    panel->addWidget(m_log);
    panel->setStretchFactor(1, 3);
    m_empty = new QLabel(this);
    m_empty->setObjectName(QStringLiteral("jobLogEmpty"));
    m_empty->setWordWrap(true);
    m_empty->setAlignment(Qt::AlignCenter);
    m_stack = new QStackedWidget(this);
    m_stack->addWidget(panel);
    m_stack->addWidget(m_empty);
    setWidget(m_stack);

    connect(m_jobList->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        if (m_fillingJobList) // the poll refreshed the rows: the reader picked nothing
            return;
        if (const QModelIndexList picked = m_jobList->selectionModel()->selectedRows(); !picked.isEmpty())
            followJob(m_jobs->idAt(picked.first().row()));
    });
    // The view only asks; the source of the moment (if any) answers.
    connect(m_log, &JobLogView::pauseRequested, this, [this](bool paused) {
        if (m_source)
            m_source->setPaused(paused);
    });
    connect(m_log, &JobLogView::fullLogRequested, this, [this] {
        if (m_source)
            m_source->fetchFullLog();
    });
    setLogSource(nullptr, {});
}

JobLogDock::~JobLogDock() = default;

void JobLogDock::setLogSource(JobLogSource *source, const QString &unavailableReason)
{
    if (m_source) { // no longer heard, by the dock or the view
        disconnect(m_source, nullptr, this, nullptr);
        disconnect(m_source, nullptr, m_log, nullptr);
    }
    m_source = source;
    m_followedJob.clear();
    m_log->clear();
    m_unavailable = source ? QString() : unavailableReason;
    if (source) {
        connect(source, &JobLogSource::linesReceived, m_log, &JobLogView::appendLines);
        connect(source, &JobLogSource::linesDropped, m_log, &JobLogView::noteDroppedLines);
        connect(source, &JobLogSource::fullLogReceived, m_log, &JobLogView::showFullLog);
        connect(source, &JobLogSource::fullLogFailed, this, [this](const QString &message) { m_log->setStatus(tr("Full log: %1").arg(message)); });
        connect(source, &JobLogSource::connectedChanged, this, [this, source](bool connected) {
            m_log->setStatus(connected ? tr("Following job %1").arg(source->submissionId())
                                       : tr("Job %1: the connection dropped; reconnecting...").arg(source->submissionId()));
        });
        connect(source, &JobLogSource::finished, this, [this, source] { m_log->setStatus(tr("Job %1 finished").arg(source->submissionId())); });
        connect(source, &JobLogSource::failed, m_log, &JobLogView::setStatus);
    }
    m_empty->setText(m_unavailable);
    m_stack->setCurrentIndex(m_unavailable.isEmpty() ? 0 : 1);
    updateJobList();
}

void JobLogDock::setSnapshot(const SnapshotPtr &snapshot)
{
    m_snapshot = snapshot;
    updateJobList();
}

void JobLogDock::followJob(const QString &submissionId)
{
    if (!m_source || submissionId.isEmpty())
        return;
    // Picking the job already followed again keeps its log; picking it after its source stopped
    // (finished, failed) reads it again from the start, which is what a retry wants.
    if (submissionId != m_followedJob || !m_source->isRunning()) {
        m_followedJob = submissionId;
        m_log->clear();
        m_log->setStatus(tr("Job %1: connecting...").arg(submissionId));
        m_source->setPaused(m_log->isPaused());
        m_source->start(submissionId);
    }
    updateJobList(); // selects its row when the snapshot lists it
}

void JobLogDock::updateJobList()
{
    m_fillingJobList = true;
    // Only jobs whose log can be followed are listed: nothing to pick that could not be.
    m_jobs->setSnapshot(m_source ? m_snapshot : SnapshotPtr());
    if (const int row = m_jobs->rowOf(m_followedJob); row >= 0) {
        const QModelIndex index = m_jobs->index(row, JobTableModel::Id);
        if (!m_jobList->selectionModel()->isRowSelected(row)) {
            m_jobList->setCurrentIndex(index);
            m_jobList->scrollTo(index);
        }
    }
    m_fillingJobList = false;
}

} // namespace slicescope
