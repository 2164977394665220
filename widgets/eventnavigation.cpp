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

// Shows `slice` (and worker `host` when >= 0), or selects placement group `pg` in the tables with
// its slice shown first; empty when shown, else the name of what is not in the snapshot.
QString showSubject(Workspace &workspace, const QString &slice, const QString &pg, const QString &subject, int host)
{
    const SnapshotPtr shown = workspace.snapshot();
    if (!pg.isEmpty()) {
        if (!slice.isEmpty() && shown && shown->sliceIndex(slice) >= 0)
            workspace.showSlice(slice);
        return selectPlacementGroupInTables(workspace, pg) ? QString() : subject;
    }
    if (slice.isEmpty())
        return {};
    if (!workspace.showSlice(slice))
        return slice;
    workspace.showPage(Workspace::Page::Slice);
    if (host >= 0)
        workspace.selectHost(host);
    return {};
}

// The worker a host's subject names ("tpu-v6e-3 worker 2"), or -1.
int workerOf(const QString &subject)
{
    static const QRegularExpression worker(QStringLiteral("\\bworker (\\d+)\\b"));
    const QRegularExpressionMatch m = worker.match(subject);
    return m.hasMatch() ? m.captured(1).toInt() : -1;
}

} // namespace

QString showEventSubject(Workspace &workspace, const HistoryEvent &event)
{
    int host = -1;
    switch (event.kind) {
    case HistoryEventKind::HostDied:
    case HistoryEventKind::HostRemoved:
    case HistoryEventKind::HostUp:
    case HistoryEventKind::HostMissing:
    case HistoryEventKind::HostPending: host = workerOf(event.subject); break;
    default: break;
    }
    return showSubject(workspace, event.selectSlice, event.selectPlacementGroup, event.subject, host);
}

QString showAlertSubject(Workspace &workspace, const AlertTick &tick)
{
    // A slice's alert that names its holding group (reserved-idle) is about the slice: show that.
    const bool aboutGroup = tick.subjectKind == AlertSubjectKind::PlacementGroup;
    const int host = tick.subjectKind == AlertSubjectKind::Host ? workerOf(tick.subject) : -1;
    return showSubject(workspace, tick.selectSlice, aboutGroup ? tick.selectPlacementGroup : QString(), tick.subject, host);
}

} // namespace slicescope
