// SPDX-License-Identifier: GPL-3.0-or-later
#include "jobtablemodel.h"

#include <algorithm>

namespace slicescope {

namespace {

QString idOf(const Job &job)
{
    return job.submissionId.isEmpty() ? job.jobId : job.submissionId;
}

} // namespace

JobTableModel::JobTableModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void JobTableModel::setSnapshot(const SnapshotPtr &snapshot)
{
    QList<Job> jobs;
    if (snapshot)
        jobs = snapshot->jobs;
    std::stable_sort(jobs.begin(), jobs.end(), [](const Job &a, const Job &b) { return a.startTimeMs > b.startTimeMs; });

    bool sameRows = jobs.size() == m_jobs.size();
    for (qsizetype i = 0; sameRows && i < jobs.size(); ++i)
        sameRows = idOf(jobs[i]) == idOf(m_jobs[i]);
    if (!sameRows) {
        beginResetModel();
        m_jobs = std::move(jobs);
        endResetModel();
        return;
    }
    if (jobs == m_jobs)
        return;
    m_jobs = std::move(jobs);
    Q_EMIT dataChanged(index(0, Status), index(rowCount() - 1, Entrypoint));
}

QString JobTableModel::idAt(int row) const
{
    return row >= 0 && row < m_jobs.size() ? idOf(m_jobs[row]) : QString();
}

int JobTableModel::rowOf(const QString &id) const
{
    for (int row = 0; row < m_jobs.size(); ++row)
        if (idOf(m_jobs[row]) == id)
            return row;
    return -1;
}

int JobTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_jobs.size());
}

int JobTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant JobTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Id:
        return tr("Submission id");
    case Status:
        return tr("Status");
    case Entrypoint:
        return tr("Entrypoint");
    default:
        return {};
    }
}

QVariant JobTableModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Job &job = m_jobs[index.row()];
    if (role == IdRole)
        return idOf(job);
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Id:
            return idOf(job);
        case Status:
            return job.status;
        case Entrypoint:
            return job.entrypoint;
        default:
            return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        if (index.column() == Status)
            return job.message;
        if (index.column() == Entrypoint)
            return job.entrypoint;
    }
    return {};
}

} // namespace slicescope
