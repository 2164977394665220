// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Table models over a ClusterSnapshot for the window's tables. Each receives a whole snapshot
// inside a reset bracket: views never see a half-updated state.

#include "snapshot.h"

#include <QAbstractTableModel>

namespace slicescope {

class SnapshotTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Role
    {
        SortRole = Qt::UserRole + 1, // numbers as numbers, names in natural order
        KeyRole,                     // the row's stable key: slice name, "slice/worker", PG id, group path
    };

    explicit SnapshotTableModel(QObject *parent = nullptr);

    // Applies only what changed: when the rows this model shows are equal in the new snapshot
    // (a live poll where nothing moved), it swaps the snapshot without a reset, so views keep
    // their selection, scroll position and sort.
    void setSnapshot(SnapshotPtr snapshot);
    const SnapshotPtr &snapshot() const { return m_snapshot; }
    // The row whose KeyRole equals key, or -1.
    int rowOfKey(const QString &key) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

protected:
    // True when `a` and `b` show the same rows and cells in this model.
    virtual bool sameContent(const ClusterSnapshot &a, const ClusterSnapshot &b) const = 0;
    virtual void rebuildRows() { }
    virtual int rows() const = 0;
    virtual QStringList headers() const = 0;
    virtual QVariant cell(int row, int column, int role) const = 0;
    virtual QString key(int row) const = 0;

    SnapshotPtr m_snapshot;

private:
    // Views and proxies ask columnCount() for every cell: build the header texts once.
    const QStringList &cachedHeaders() const
    {
        if (m_headers.isEmpty())
            m_headers = headers();
        return m_headers;
    }
    mutable QStringList m_headers;
};

class SliceTableModel : public SnapshotTableModel
{
    Q_OBJECT
public:
    using SnapshotTableModel::SnapshotTableModel;
    enum Column
    {
        Name,
        Generation,
        Topology,
        PodType,
        Hosts,
        Chips,
        Status,
        Reserved,
        Source,
        WorkerGroup,
        Problems,
        ColumnCount
    };

protected:
    bool sameContent(const ClusterSnapshot &a, const ClusterSnapshot &b) const override { return a.slices == b.slices; }
    int rows() const override;
    QStringList headers() const override;
    QVariant cell(int row, int column, int role) const override;
    QString key(int row) const override;
};

class HostTableModel : public SnapshotTableModel
{
    Q_OBJECT
public:
    using SnapshotTableModel::SnapshotTableModel;
    enum Column
    {
        Slice,
        Worker,
        State,
        RayNode,
        Ip,
        Pod,
        KubeNode,
        NodePool,
        Chips,
        Reserved,
        ColumnCount
    };

protected:
    bool sameContent(const ClusterSnapshot &a, const ClusterSnapshot &b) const override
    {
        return a.slices == b.slices && a.rayNodes == b.rayNodes && a.pods == b.pods && a.kubeNodes == b.kubeNodes;
    }
    void rebuildRows() override;
    int rows() const override { return int(m_rows.size()); }
    QStringList headers() const override;
    QVariant cell(int row, int column, int role) const override;
    QString key(int row) const override;

private:
    QList<std::pair<int, int>> m_rows; // (slice, host)
};

class PlacementGroupTableModel : public SnapshotTableModel
{
    Q_OBJECT
public:
    using SnapshotTableModel::SnapshotTableModel;
    enum Column
    {
        Name,
        Id,
        State,
        Kind,
        Bundles,
        Tpu,
        Slices,
        Detached,
        Scheduling,
        ColumnCount
    };

protected:
    bool sameContent(const ClusterSnapshot &a, const ClusterSnapshot &b) const override;
    int rows() const override;
    QStringList headers() const override;
    QVariant cell(int row, int column, int role) const override;
    QString key(int row) const override;
};

class WorkerGroupTableModel : public SnapshotTableModel
{
    Q_OBJECT
public:
    using SnapshotTableModel::SnapshotTableModel;
    enum Column
    {
        Group,
        Cluster,
        Accelerator,
        Topology,
        Replicas,
        Min,
        Max,
        HostsPerSlice,
        ChipsPerHost,
        Autoscaling,
        Slices,
        ColumnCount
    };

protected:
    bool sameContent(const ClusterSnapshot &a, const ClusterSnapshot &b) const override { return a.workerGroups == b.workerGroups; }
    int rows() const override;
    QStringList headers() const override;
    QVariant cell(int row, int column, int role) const override;
    QString key(int row) const override;
};

} // namespace slicescope
