// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// SnapshotHistory::Private: the history's state (the arena and the string table the versions use,
// one Column per kind, the entries, the newest snapshot) and the byte accounting bytesHeld() and
// memory() report. Its writing side (add, evict, clear) is in history_record.cpp, the rebuild of
// an entry in history.cpp, the events in history_events.cpp. Private to model/.

#include "history.h"
#include "history_entries_p.h"

#include <deque>
#include <memory>
#include <utility>
#include <vector>

namespace slicescope {

struct SnapshotHistory::Private {
    template<typename T>
    using Column = historydetail::Column<T>;
    using Entry = historydetail::Entry;

    HistoryPolicy policy;
    historydetail::Arena arena;       // before the columns: versions return their memory to it
    historydetail::StringTable strings; // and release their texts into this
    // Columns before entries: entries are destroyed first, then the versions' accounts.
    Column<RayNode> rayNodes;
    Column<Pod> pods;
    Column<KubeNode> kubeNodes;
    Column<Slice> slices;
    Column<PlacementGroup> placementGroups;
    Column<WorkerGroup> workerGroups;
    Column<RayClusterInfo> rayClusters;
    Column<Job> jobs;
    std::deque<Entry> entries;
    SnapshotPtr latest;         // the newest snapshot, as added (head is aligned with its lists)
    qint64 nextSerial = 0;
    int sinceKeyframe = 0;
    qint64 entryBytes = 0;      // sum of the entries' ownBytes()
    qint64 keyframeBytes = 0;
    qint64 deltaBytes = 0;
    qint64 lastSweepSerial = 0;
    std::vector<uchar> scratch; // the encoder's buffer
    // Per placement-group handle: when it was first seen PENDING (ms since epoch), or -1.
    std::vector<qint64> pendingSince;
    // The last rebuilt snapshot, while somebody holds it.
    mutable std::weak_ptr<const ClusterSnapshot> cached;
    mutable qint64 cachedSerial = -1;

    Private();

    template<typename F>
    void forEachColumn(F &&f)
    { forEachColumnOf(*this, std::forward<F>(f)); }
    template<typename F>
    void forEachColumn(F &&f) const
    { forEachColumnOf(*this, std::forward<F>(f)); }
    // Each column with the Entry member it fills, for the const and the non-const walk alike.
    template<typename Self, typename F>
    static void forEachColumnOf(Self &self, F &&f)
    {
        f(self.rayNodes, &Entry::rayNodes);
        f(self.pods, &Entry::pods);
        f(self.kubeNodes, &Entry::kubeNodes);
        f(self.slices, &Entry::slices);
        f(self.placementGroups, &Entry::placementGroups);
        f(self.workerGroups, &Entry::workerGroups);
        f(self.rayClusters, &Entry::rayClusters);
        f(self.jobs, &Entry::jobs);
    }

    qint64 identityBytes() const
    {
        qint64 b = historydetail::vectorBytes(pendingSince);
        forEachColumn([&](const auto &c, auto) { b += c.bytes(); });
        return b;
    }
    qint64 objectBytes() const
    {
        qint64 b = 0;
        forEachColumn([&](const auto &c, auto) { b += c.account.bytes; });
        return b;
    }
    // Everything but the arena's free room (which eviction cannot shrink: freed versions' blocks
    // wait there for new ones, and it never exceeds what was once in use).
    qint64 bytesHeld() const
    {
        return objectBytes() + strings.bytes() + identityBytes() + entryBytes + keyframeBytes + deltaBytes;
    }

    // ---- Writing: history_record.cpp

    template<typename T>
    std::vector<quint32> acquireHandles(Column<T> &c, const QList<T> *previous, const std::vector<quint32> &previousHandles,
                                        const QList<T> &list, qint64 serial);
    template<typename T>
    historydetail::Ref<T> encode(Column<T> &c, const T &value, quint32 handle, const historydetail::HandleMaps &handles,
                                 const historydetail::IndexMaps &indexes);
    template<typename T>
    bool diff(Column<T> &c, const QList<T> *previous, const QList<T> &list, const std::vector<quint32> &handles,
              const historydetail::HandleMaps &newMaps, const historydetail::HandleMaps &oldMaps,
              const historydetail::IndexMaps &newIndexes, historydetail::Delta<T> &d);
    std::shared_ptr<const historydetail::Top> makeTop(const ClusterSnapshot &s, qint64 &bytes) const;
    HistoryPoint makePoint(const ClusterSnapshot &s, qint64 serial, const std::vector<quint32> &groupHandles,
                           const std::vector<quint32> &workerGroupHandles, qint64 &bytes);
    historydetail::PackedPoint pack(const HistoryPoint &p, qint64 &bytes);
    HistoryPoint unpack(const historydetail::PackedPoint &packed, qint64 serial, const QDateTime &time) const;
    qint64 add(const SnapshotPtr &snapshot);
    void popFront();
    int evict();
    void clear();

    // ---- Reading: history.cpp

    SnapshotPtr rebuild(int index) const;
};

} // namespace slicescope
