// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What one SnapshotHistory entry keeps (history.cpp says why): per kind a Delta (the versions new
// in it, the handles of objects gone, and either a keyframe or the operations that rebuild its
// list from the previous entry's), the snapshot's own texts (Top) and its point packed as varints
// (PackedPoint); per kind a Column (the identities and the newest entry's versions); and the list
// operations: OpsWriter writes them, replayOps() reads them, advance() and versions() walk a
// kind's list from a keyframe to an entry. Private to model/.

#include "history.h"
#include "history_kinds_p.h"

#include <QDateTime>
#include <QStringList>

#include <deque>
#include <memory>
#include <vector>

namespace slicescope::historydetail {

// ---- Entries ------------------------------------------------------------------------------------

// How an entry's list is rebuilt from the previous entry's: triples of varints (skip n old
// items, copy n old items, take the next n changed versions). Empty: the list did not change.
using Ops = std::vector<uchar>;

template<typename T>
struct Delta {
    Packed<Ref<T>> added;              // versions new here (changed or appeared), in the list's order
    Packed<uchar> ops;                 // unless a keyframe
    struct Rare {
        std::vector<Ref<T>> keyframe;  // the whole list, in keyframe entries
        Packed<quint32> gone;          // handles of the objects no longer listed, in the old order
    };
    std::unique_ptr<Rare> rare;        // only when there is a keyframe or something went

    const std::vector<Ref<T>> &keyframe() const
    {
        static const std::vector<Ref<T>> none;
        return rare ? rare->keyframe : none;
    }
    const Packed<quint32> &gone() const
    {
        static const Packed<quint32> none;
        return rare ? rare->gone : none;
    }
    Rare &rareData()
    {
        if (!rare)
            rare = std::make_unique<Rare>();
        return *rare;
    }
    qint64 keyframeBytes() const { return rare ? vectorBytes(rare->keyframe) : 0; }
    qint64 deltaBytes() const { return added.bytes() + ops.bytes() + (rare ? heapBlock(sizeof(Rare)) + rare->gone.bytes() : 0); }
    size_t changeCount() const { return added.size() + gone().size(); }
};

class OpsWriter
{
public:
    explicit OpsWriter(Ops &ops)
        : m_ops(ops)
    { }
    // The next item of the new list is old item `oldIndex`, unchanged; false if it moved back.
    bool copy(int oldIndex)
    {
        if (oldIndex < m_oldPos)
            return false;
        if (oldIndex > m_oldPos || m_take > 0) {
            if (m_copy > 0 || m_take > 0)
                flush();
            m_skip = oldIndex - m_oldPos;
        }
        ++m_copy;
        m_oldPos = oldIndex + 1;
        return true;
    }
    // The next item of the new list is the next changed version.
    void take() { ++m_take; }
    // `oldSize`: the previous list's length. Leaves no operations if the list is unchanged.
    void finish(int oldSize)
    {
        const bool unchanged = m_ops.empty() && m_skip == 0 && m_take == 0 && m_copy == oldSize;
        if (m_oldPos < oldSize && !m_take && !m_copy && !m_skip && m_ops.empty())
            m_skip = oldSize; // everything went
        if (!unchanged && (m_skip || m_copy || m_take))
            flush();
    }

private:
    void flush()
    {
        putVarint(m_ops, quint64(m_skip));
        putVarint(m_ops, quint64(m_copy));
        putVarint(m_ops, quint64(m_take));
        m_skip = m_copy = m_take = 0;
    }
    Ops &m_ops;
    int m_oldPos = 0;
    int m_skip = 0, m_copy = 0, m_take = 0;
};

// Calls copy(first, count) and take(count) as the operations say.
template<typename Copy, typename Take>
void replayOps(const Packed<uchar> &ops, Copy &&copy, Take &&take)
{
    const uchar *p = ops.begin(), *end = ops.end();
    auto next = [&]() {
        return int(getVarint(p, end));
    };
    int oldPos = 0, changed = 0;
    while (p < end) {
        const int skip = next(), n = next(), t = next();
        oldPos += skip;
        if (n)
            copy(oldPos, n);
        oldPos += n;
        if (t)
            take(changed, t);
        changed += t;
    }
}

// A snapshot's own texts; entries share one while they do not change.
struct Top {
    QString rayVersion;
    QString kubeContext;
    QString clusterStatusText;
    bool hasRay = false;
    bool hasKubernetes = false;
    QStringList errors;
    QStringList warnings;
    // The fleet (issue 16): which contexts and Ray views the snapshot covers, and their state.
    QStringList contexts;
    QList<ContextState> contextStates;
    QList<RayViewState> rayViews;
};

// An entry's HistoryPoint as a few varints; decoded when asked for. Names of worker groups are
// shared with the previous entry's list while the groups stay the same.
struct PackedPoint {
    std::vector<uchar> data;
    QStringList workerGroupNames;
    QString oldestPendingId;
    std::unique_ptr<HistoryPoint> plain; // if packing would lose something (a type in fleetstats.h grew)

    template<typename A, typename C>
    static void counts(A &a, C &c)
    {
        a.integer(c.slices);
        a.integer(c.ready);
        a.integer(c.fullyReserved);
        a.integer(c.partlyUsed);
        a.integer(c.claimed);
        a.integer(c.degraded);
        a.integer(c.provisioning);
        a.integer(c.chips);
        a.integer(c.reservedChips);
        a.integer(c.freeChips);
        a.integer(c.availableChips);
        a.integer(c.claimedChips);
        a.integer(c.strandedChips);
        a.integer(c.strandedPartlyUsed);
        a.integer(c.strandedDegraded);
        a.integer(c.strandedProvisioning);
    }
    template<typename A, typename P>
    static void fields(A &a, P &p)
    {
        counts(a, p.fleet);
        a.list(p.generations, [&](auto &g) {
            a.generation(g.generation);
            counts(a, g.counts);
        });
        a.integer(p.placementGroups.pending);
        a.integer(p.placementGroups.prepared);
        a.integer(p.placementGroups.created);
        a.integer(p.placementGroups.rescheduling);
        a.integer(p.placementGroups.other);
        a.integer(p.placementGroups.oldestPendingMs);
        a.list(p.workerGroups, [&](auto &w) {
            a.integer(w.desired);
            a.integer(w.minReplicas);
            a.integer(w.maxReplicas);
            a.integer(w.slices);
            a.integer(w.ready);
        });
    }
};

struct Entry {
    qint64 serial = 0;
    bool keyframe = false;
    QDateTime capturedAt;
    std::shared_ptr<const Top> top;
    // The snapshot's chip activity as it was (shared with the entry before while the same table);
    // its bytes count in textBytes where this entry holds it first.
    std::shared_ptr<const ActivityTable> activity;
    PackedPoint point;
    Delta<RayNode> rayNodes;
    Delta<Pod> pods;
    Delta<KubeNode> kubeNodes;
    Delta<Slice> slices;
    Delta<PlacementGroup> placementGroups;
    Delta<WorkerGroup> workerGroups;
    Delta<RayClusterInfo> rayClusters;
    Delta<Job> jobs;
    qint64 textBytes = 0;      // top-level texts and the point's lists, where this entry holds them first

    qint64 keyframeBytes() const
    {
        return rayNodes.keyframeBytes() + pods.keyframeBytes() + kubeNodes.keyframeBytes() + slices.keyframeBytes()
               + placementGroups.keyframeBytes() + workerGroups.keyframeBytes() + rayClusters.keyframeBytes() + jobs.keyframeBytes();
    }
    qint64 deltaBytes() const
    {
        return rayNodes.deltaBytes() + pods.deltaBytes() + kubeNodes.deltaBytes() + slices.deltaBytes()
               + placementGroups.deltaBytes() + workerGroups.deltaBytes() + rayClusters.deltaBytes() + jobs.deltaBytes();
    }
    qint64 ownBytes() const { return qint64(sizeof(Entry)) + textBytes; }
};

constexpr int kKeyframeEvery = 128;

// Per kind: the identities, the newest entry's versions (aligned with the newest snapshot's
// list) and where each handle sits in it.
template<typename T>
struct Column {
    static constexpr Kind kind = Codec<T>::kind;
    Account account;             // first: outlives every Ref below
    HandleTable ids;
    std::vector<Ref<T>> head;
    std::vector<int> headIndex;  // by handle: position in head (and in the newest snapshot's list), or -1
    std::vector<quint32> headHandles; // by position: the handle

    qint64 bytes() const { return ids.bytes() + vectorBytes(head) + vectorBytes(headIndex) + vectorBytes(headHandles); }
};

// Moves a list (raw pointers: the entries keep the versions alive) on to the next entry.
template<typename T>
void advance(std::vector<const VersionHeader *> &list, const Delta<T> &d, bool keyframe, std::vector<const VersionHeader *> &scratch)
{
    if (keyframe) {
        list.clear();
        for (const Ref<T> &r : d.keyframe())
            list.push_back(r.get());
        return;
    }
    if (d.ops.empty())
        return; // unchanged
    scratch.clear();
    replayOps(
        d.ops, [&](int first, int n) { scratch.insert(scratch.end(), list.begin() + first, list.begin() + first + n); },
        [&](int first, int n) {
            for (int i = 0; i < n; ++i)
                scratch.push_back(d.added[size_t(first + i)].get());
        });
    list.swap(scratch);
}

// The versions of entry `index`'s list of one kind.
template<typename T>
std::vector<const VersionHeader *> versions(const std::deque<Entry> &entries, int key, int index, Delta<T> Entry::*member)
{
    std::vector<const VersionHeader *> list, scratch;
    const Delta<T> &k = entries[size_t(key)].*member;
    list.reserve(k.keyframe().size());
    for (const Ref<T> &r : k.keyframe())
        list.push_back(r.get());
    for (int j = key + 1; j <= index; ++j)
        advance(list, entries[size_t(j)].*member, false, scratch);
    return list;
}

} // namespace slicescope::historydetail
