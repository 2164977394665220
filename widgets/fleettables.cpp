// SPDX-License-Identifier: GPL-3.0-or-later
#include "fleettables.h"

#include "itemmodels.h"
#include "searchfield.h"

#include <QHeaderView>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace slicescope {

FleetTables::FleetTables(QWidget *parent)
    : QWidget(parent)
    , m_filter(new QLineEdit(this))
    , m_tabs(new QTabWidget(this))
{
    m_filter->setPlaceholderText(tr("Filter (any column)"));
    makeSearchField(m_filter);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_filter);
    layout->addWidget(m_tabs);

    QTableView *slices = addTable(new SliceTableModel(this), tr("Slices"));
    QTableView *hosts = addTable(new HostTableModel(this), tr("Hosts"));
    addTable(new PlacementGroupTableModel(this), tr("Placement groups"));
    addTable(new WorkerGroupTableModel(this), tr("Worker groups"));
    connect(m_tabs, &QTabWidget::currentChanged, this, &FleetTables::refreshVisible);
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
    m_stale.append(false);
    m_sized.append(false);
    return view;
}

void FleetTables::setSnapshot(const SnapshotPtr &snapshot)
{
    // Only the table in sight is refilled now; the others when they come into sight. Scrubbing
    // the timeline or a poll of a 10k-host cluster then pays for one table, and none while the
    // tables page is hidden.
    m_snapshot = snapshot;
    m_stale.fill(true, m_models.size());
    refreshVisible();
}

void FleetTables::refreshVisible()
{
    // In sight, or would be when its window is shown (a window rendered without being shown).
    if (!isVisibleTo(window()))
        return;
    const int i = m_tabs->currentIndex();
    if (i < 0 || i >= m_models.size() || !m_stale[i])
        return;
    m_stale[i] = false;
    m_models[i]->setSnapshot(m_snapshot);
    // Columns are sized to their contents once, when the table first has rows: sizing them again
    // on every snapshot would walk the rows each time and make the columns jump under the reader.
    auto *view = qobject_cast<QTableView *>(m_tabs->widget(i));
    if (view && !m_sized[i] && m_models[i]->rowCount() > 0) {
        m_sized[i] = true;
        view->resizeColumnsToContents();
    }
}

void FleetTables::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    refreshVisible();
}

} // namespace slicescope
