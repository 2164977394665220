// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The snapshot's Ray jobs as a table for the "Job log" dock: newest first (the job just submitted
// on top, where the reader looks), one row per job keyed by its submission id (its job id when it
// has none). A new snapshot listing the same jobs in the same order only updates the cells, so a
// view keeps its selection and scroll position through a poll that changed a status.

#include "snapshot.h"

#include <QAbstractTableModel>

namespace slicescope {

class JobTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        Id,         // submission id, else job id; tooltip: none
        Status,     // tooltip: the job's message
        Entrypoint, // tooltip: the whole entrypoint
        ColumnCount
    };
    enum Role
    {
        IdRole = Qt::UserRole + 1, // the row's id, whatever the column
    };

    explicit JobTableModel(QObject *parent = nullptr);

    // Null: no rows.
    void setSnapshot(const SnapshotPtr &snapshot);
    // The id of `row`, or empty; the row of `id`, or -1.
    QString idAt(int row) const;
    int rowOf(const QString &id) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

private:
    QList<Job> m_jobs; // newest first
};

} // namespace slicescope
