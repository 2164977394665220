// SPDX-License-Identifier: GPL-3.0-or-later
#include "fleettables.h"

#include "itemmodels.h"

#include <QHeaderView>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace slicescope {

FleetTables::FleetTables(QWidget *parent)
    : QWidget(parent), m_filter(new QLineEdit(this)), m_tabs(new QTabWidget(this))
{
    m_filter->setPlaceholderText(tr("Filter (any column)"));
    m_filter->setClearButtonEnabled(true);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_filter);
    layout->addWidget(m_tabs);

    QTableView *slices = addTable(new SliceTableModel(this), tr("Slices"));
    QTableView *hosts = addTable(new HostTableModel(this), tr("Hosts"));
    addTable(new PlacementGroupTableModel(this), tr("Placement groups"));
    addTable(new WorkerGroupTableModel(this), tr("Worker groups"));
    for (QTableView *view : {slices, hosts})
        connect(view, &QTableView::activated, this, [this](const QModelIndex &index) {
            const QString key = index.data(SnapshotTableModel::KeyRole).toString();
            Q_EMIT sliceActivated(key.section(u'/', 0, 0));
        });
}

QTableView *FleetTables::addTable(SnapshotTableModel *model, const QString &title)
{
    auto *proxy = new QSortFilterProxyModel(this);
    proxy->setSourceModel(model);
    proxy->setSortRole(SnapshotTableModel::SortRole);
    proxy->setFilterKeyColumn(-1);
    proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    connect(m_filter, &QLineEdit::textChanged, proxy, &QSortFilterProxyModel::setFilterFixedString);
    auto *view = new QTableView(this);
    view->setModel(proxy);
    view->setSortingEnabled(true);
    view->sortByColumn(0, Qt::AscendingOrder);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setAlternatingRowColors(true);
    view->verticalHeader()->hide();
    // Compact rows: tables of thousands of hosts should read like a list, not a form.
    view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 6);
    view->horizontalHeader()->setStretchLastSection(true);
    m_tabs->addTab(view, title);
    m_models.append(model);
    return view;
}

void FleetTables::setSnapshot(const SnapshotPtr &snapshot)
{
    for (SnapshotTableModel *model : std::as_const(m_models))
        model->setSnapshot(snapshot);
    for (int i = 0; i < m_tabs->count(); ++i)
        if (auto *view = qobject_cast<QTableView *>(m_tabs->widget(i)))
            view->resizeColumnsToContents();
}

} // namespace slicescope
