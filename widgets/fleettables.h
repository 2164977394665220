// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The fleet as four filterable, sortable tables: slices, hosts, placement groups, worker groups.

#include "snapshot.h"

#include <QWidget>

class QLineEdit;
class QTabWidget;
class QTableView;

namespace slicescope {

class SnapshotTableModel;

class FleetTables : public QWidget
{
    Q_OBJECT
public:
    explicit FleetTables(QWidget *parent = nullptr);

    // Replaces what every table shows, in one step.
    void setSnapshot(const SnapshotPtr &snapshot);
    QTabWidget *tabs() const { return m_tabs; }

Q_SIGNALS:
    // The user picked a slice (in the slice or host table).
    void sliceActivated(const QString &sliceName);

private:
    QTableView *addTable(SnapshotTableModel *model, const QString &title);

    QLineEdit *m_filter = nullptr;
    QTabWidget *m_tabs = nullptr;
    QList<SnapshotTableModel *> m_models;
};

} // namespace slicescope
