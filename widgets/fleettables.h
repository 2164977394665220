// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The fleet as four filterable, sortable tables: slices, hosts, placement groups, worker groups.

#include "look.h"
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

    // Replaces what every table shows, in one step (each table refills when it is next in sight).
    void setSnapshot(const SnapshotPtr &snapshot);
    QTabWidget *tabs() const { return m_tabs; }
    // Fills the table in sight if the snapshot changed since (setSnapshot() and showing it do this).
    void refreshVisible();
    // The state columns (a slice's status, a host's state, a group's state) are drawn as pills in
    // the theme's status colours (docs/design.md 1).
    void setTheme(const Theme &theme);
    const Theme &theme() const { return m_theme; }
    // The status colour a state cell's pill gets (stateTextColor()), or an invalid colour for a text that is no state.
    static QColor stateColor(const QString &state, const Theme &theme);

Q_SIGNALS:
    // The user picked a slice (in the slice or host table).
    void sliceActivated(const QString &sliceName);

protected:
    void showEvent(QShowEvent *event) override;

private:
    QTableView *addTable(SnapshotTableModel *model, const QString &title, int stateColumn);

    QLineEdit *m_filter = nullptr;
    QTabWidget *m_tabs = nullptr;
    QList<SnapshotTableModel *> m_models;
    SnapshotPtr m_snapshot;
    QList<bool> m_stale; // per table: the snapshot changed since it was filled
    QList<bool> m_sized; // per table: columns sized to their contents once
    Theme m_theme = Theme::light();
};

} // namespace slicescope
