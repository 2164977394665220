// SPDX-License-Identifier: GPL-3.0-or-later
#include "itemmodels.h"

#include <limits>

namespace slicescope {

namespace {

QVariant display(int role, const QVariant &shown, const QVariant &sortKey = {})
{
    if (role == Qt::DisplayRole)
        return shown;
    if (role == SnapshotTableModel::SortRole)
        return sortKey.isValid() ? sortKey : shown;
    return {};
}

QString maxText(int max) { return max == std::numeric_limits<int>::max() ? QStringLiteral("unbounded") : QString::number(max); }

} // namespace

SnapshotTableModel::SnapshotTableModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void SnapshotTableModel::setSnapshot(SnapshotPtr snapshot)
{
    if (m_snapshot && snapshot && sameContent(*m_snapshot, *snapshot)) {
        m_snapshot = std::move(snapshot); // same rows and cells: nothing for views to redo
        return;
    }
    beginResetModel();
    m_snapshot = std::move(snapshot);
    rebuildRows();
    endResetModel();
}

int SnapshotTableModel::rowOfKey(const QString &k) const
{
    // rowCount(), not rows(): there may be no snapshot yet (a view restoring its selection early).
    for (int r = 0; r < rowCount(); ++r)
        if (key(r) == k)
            return r;
    return -1;
}

int SnapshotTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_snapshot ? 0 : rows();
}

int SnapshotTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(cachedHeaders().size());
}

QVariant SnapshotTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    const QStringList &h = cachedHeaders();
    return section >= 0 && section < h.size() ? QVariant(h[section]) : QVariant();
}

QVariant SnapshotTableModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) || !m_snapshot)
        return {};
    if (role == KeyRole)
        return key(index.row());
    return cell(index.row(), index.column(), role);
}

// ---- slices ----

int SliceTableModel::rows() const { return int(m_snapshot->slices.size()); }

QStringList SliceTableModel::headers() const
{
    return {tr("Slice"), tr("Generation"), tr("Topology"), tr("Pod type"), tr("Hosts"), tr("Chips"),
            tr("Status"), tr("Reserved"), tr("Source"), tr("Worker group"), tr("Problems")};
}

QString SliceTableModel::key(int row) const { return m_snapshot->slices[row].name; }

QVariant SliceTableModel::cell(int row, int column, int role) const
{
    const Slice &s = m_snapshot->slices[row];
    switch (Column(column)) {
    case Name: return display(role, s.name, row);
    case Generation: return display(role, s.generation ? s.generation->name : QString());
    case Topology: return display(role, s.topology.chips() ? s.topology.toString() : QString(), s.chips());
    case PodType: return display(role, s.podType);
    case Hosts: return display(role, s.hostCount());
    case Chips: return display(role, s.chips());
    case Status: return display(role, toText(s.status()), int(s.status()));
    case Reserved: return display(role, QStringLiteral("%1/%2").arg(s.reservedChips).arg(s.chips()), s.reservedChips);
    case Source: return display(role, toText(s.source));
    case WorkerGroup: return display(role, s.workerGroup);
    case Problems: return display(role, s.problems.join(QStringLiteral("; ")));
    case ColumnCount: break;
    }
    return {};
}

// ---- hosts ----

void HostTableModel::rebuildRows()
{
    m_rows.clear();
    if (!m_snapshot)
        return;
    for (int s = 0; s < m_snapshot->slices.size(); ++s)
        for (int h = 0; h < m_snapshot->slices[s].hosts.size(); ++h)
            m_rows.append({s, h});
}

QStringList HostTableModel::headers() const
{
    return {tr("Slice"), tr("Worker"), tr("State"), tr("Ray node"), tr("IP"), tr("Pod"), tr("Kubernetes node"),
            tr("Node pool"), tr("Chips"), tr("Reserved")};
}

QString HostTableModel::key(int row) const
{
    const auto [s, h] = m_rows[row];
    return m_snapshot->slices[s].name + u'/' + QString::number(m_snapshot->slices[s].hosts[h].workerId);
}

QVariant HostTableModel::cell(int row, int column, int role) const
{
    const auto [si, hi] = m_rows[row];
    const slicescope::Slice &s = m_snapshot->slices[si];
    const Host &h = s.hosts[hi];
    const slicescope::RayNode *n = h.rayNode >= 0 ? &m_snapshot->rayNodes[h.rayNode] : nullptr;
    const slicescope::Pod *p = h.pod >= 0 ? &m_snapshot->pods[h.pod] : nullptr;
    const slicescope::KubeNode *k = h.kubeNode >= 0 ? &m_snapshot->kubeNodes[h.kubeNode] : nullptr;
    switch (Column(column)) {
    case Slice: return display(role, s.name, row);
    case Worker: return display(role, h.workerId);
    case State: return display(role, toText(h.state), int(h.state));
    case RayNode: return display(role, n ? n->id : QString());
    case Ip: return display(role, n ? n->ip : p ? p->podIp
                                                : QString());
    case Pod: return display(role, p ? p->qualifiedName() : QString());
    case KubeNode: return display(role, k ? k->name : p ? p->nodeName
                                                        : QString());
    case NodePool: return display(role, k ? k->nodePool : QString());
    case Chips: return display(role, int(h.chips.size()));
    case Reserved: return display(role, h.reservedChips());
    case ColumnCount: break;
    }
    return {};
}

// ---- placement groups ----

int PlacementGroupTableModel::rows() const { return int(m_snapshot->placementGroups.size()); }

QStringList PlacementGroupTableModel::headers() const
{
    return {tr("Name"), tr("ID"), tr("State"), tr("Kind"), tr("Bundles"), tr("TPU"), tr("Slices"), tr("Detached"), tr("Scheduling")};
}

// The cells this table shows, not the whole PlacementGroup: its bundles carry indices into the
// slice list, which shift whenever another slice comes or goes.
bool PlacementGroupTableModel::sameContent(const ClusterSnapshot &a, const ClusterSnapshot &b) const
{
    if (a.placementGroups.size() != b.placementGroups.size())
        return false;
    for (qsizetype i = 0; i < a.placementGroups.size(); ++i) {
        const PlacementGroup &x = a.placementGroups[i], &y = b.placementGroups[i];
        int tpuX = 0, tpuY = 0;
        for (const Bundle &bundle : x.bundles)
            tpuX += bundle.tpu;
        for (const Bundle &bundle : y.bundles)
            tpuY += bundle.tpu;
        if (x.id != y.id || x.name != y.name || x.state != y.state || x.kind != y.kind || x.detached != y.detached
            || x.schedulingState != y.schedulingState || x.slices != y.slices || x.bundles.size() != y.bundles.size() || tpuX != tpuY)
            return false;
    }
    return true;
}

QString PlacementGroupTableModel::key(int row) const { return m_snapshot->placementGroups[row].id; }

QVariant PlacementGroupTableModel::cell(int row, int column, int role) const
{
    const PlacementGroup &g = m_snapshot->placementGroups[row];
    switch (Column(column)) {
    case Name: return display(role, g.name);
    case Id: return display(role, g.id);
    case State: return display(role, g.state);
    case Kind: return display(role, toText(g.kind));
    case Bundles: return display(role, int(g.bundles.size()));
    case Tpu: {
        int tpu = 0;
        for (const Bundle &b : g.bundles)
            tpu += b.tpu;
        return display(role, tpu);
    }
    case Slices: return display(role, g.slices.join(QStringLiteral(", ")));
    case Detached: return display(role, g.detached ? tr("yes") : tr("no"), g.detached);
    case Scheduling: return display(role, g.schedulingState);
    case ColumnCount: break;
    }
    return {};
}

// ---- worker groups ----

int WorkerGroupTableModel::rows() const { return int(m_snapshot->workerGroups.size()); }

QStringList WorkerGroupTableModel::headers() const
{
    return {tr("Group"), tr("Cluster"), tr("Accelerator"), tr("Topology"), tr("Replicas"), tr("Min"), tr("Max"),
            tr("Hosts/slice"), tr("Chips/host"), tr("Autoscaling"), tr("Slices")};
}

QString WorkerGroupTableModel::key(int row) const { return m_snapshot->workerGroups[row].qualifiedName(); }

QVariant WorkerGroupTableModel::cell(int row, int column, int role) const
{
    const WorkerGroup &g = m_snapshot->workerGroups[row];
    switch (Column(column)) {
    case Group: return display(role, g.group);
    case Cluster: return display(role, g.qualifiedCluster());
    case Accelerator: return display(role, g.accelerator);
    case Topology: return display(role, g.topology);
    case Replicas: return display(role, g.replicas);
    case Min: return display(role, g.minReplicas);
    case Max: return display(role, maxText(g.maxReplicas), g.maxReplicas);
    case HostsPerSlice: return display(role, g.numOfHosts);
    case ChipsPerHost: return display(role, g.chipsPerHost);
    case Autoscaling: return display(role, g.autoscaling ? tr("on") : tr("off"), g.autoscaling);
    case Slices: return display(role, g.slices.join(QStringLiteral(", ")), int(g.slices.size()));
    case ColumnCount: break;
    }
    return {};
}

} // namespace slicescope
