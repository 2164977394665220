// SPDX-License-Identifier: GPL-3.0-or-later
#include "eventnavigation.h"

#include "fleettables.h"
#include "itemmodels.h"
#include "workspace.h"

#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>

namespace slicescope {

namespace {

bool selectPlacementGroupInTables(Workspace &workspace, const QString &id)
{
    QTabWidget *tabs = workspace.tables()->tabs();
    for (int t = 0; t < tabs->count(); ++t) {
        auto *view = qobject_cast<QTableView *>(tabs->widget(t));
        auto *proxy = view ? qobject_cast<QSortFilterProxyModel *>(view->model()) : nullptr;
        if (!proxy || !qobject_cast<PlacementGroupTableModel *>(proxy->sourceModel()))
            continue;
        workspace.showPage(Workspace::Page::Tables);
        tabs->setCurrentIndex(t);
        const QModelIndexList found = proxy->match(proxy->index(0, 0), SnapshotTableModel::KeyRole, id, 1, Qt::MatchExactly);
        if (found.isEmpty()) {
            view->clearSelection();
            return false;
        }
        view->selectionModel()->setCurrentIndex(found.first(), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        view->scrollTo(found.first(), QAbstractItemView::PositionAtCenter);
        return true;
    }
    return false;
}

} // namespace

QString showEventSubject(Workspace &workspace, const HistoryEvent &event)
{
    const SnapshotPtr shown = workspace.snapshot();
    if (!event.selectPlacementGroup.isEmpty()) {
        if (!event.selectSlice.isEmpty() && shown && shown->sliceIndex(event.selectSlice) >= 0)
            workspace.showSlice(event.selectSlice);
        return selectPlacementGroupInTables(workspace, event.selectPlacementGroup) ? QString() : event.subject;
    }
    if (event.selectSlice.isEmpty())
        return {};
    if (!workspace.showSlice(event.selectSlice))
        return event.selectSlice;
    workspace.showPage(Workspace::Page::Slice);
    // A host's event names its worker ("tpu-v6e-3 worker 2"): select that host too.
    switch (event.kind) {
    case HistoryEventKind::HostDied:
    case HistoryEventKind::HostRemoved:
    case HistoryEventKind::HostUp:
    case HistoryEventKind::HostMissing:
    case HistoryEventKind::HostPending: {
        static const QRegularExpression worker(QStringLiteral("\\bworker (\\d+)\\b"));
        if (const QRegularExpressionMatch m = worker.match(event.subject); m.hasMatch())
            workspace.selectHost(m.captured(1).toInt());
        break;
    }
    default:
        break;
    }
    return {};
}

} // namespace slicescope
