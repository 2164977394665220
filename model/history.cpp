// SPDX-License-Identifier: GPL-3.0-or-later
// SnapshotHistory's stored form (history.h says why it exists):
//  - Identities: per kind, a key (Ray node id, pod ns/name, slice name, placement group id...)
//    gets a handle, a small number that stays the same while the object lives. Cross references
//    (Host::rayNode, ChipUse::placementGroup, Bundle::slice...) are stored as handles, so a list
//    gaining or losing an item elsewhere does not change the objects that point into it.
//  - Versions: one object as it was between two changes, encoded compactly (varints; every text
//    is an id into one reference-counted string table, so a text is held once however many
//    versions and objects repeat it). Each encoding is decoded and compared with the original
//    before it is kept; anything the codec does not reproduce exactly (a field added to
//    snapshot.h and not yet encoded here) is kept as a plain copy instead, so rebuilt snapshots
//    always equal the originals.
//  - Entries: per kind, the versions new in the entry, the handles of objects gone, and either
//    every version of the list (a keyframe, every kKeyframeEvery entries) or a few bytes of
//    operations that rebuild the list from the previous entry's (skip n, copy n, take n new ones).
//    What an object was before a change is found in the previous entry's list.
// A new snapshot is compared with the previous one (kept as `latest`, with indexes mapped to
// handles on both sides): only objects that differ are encoded, the rest reuse their version.
// Encoded versions live in an arena of their own (see Arena); texts in the string table.
//
// Where the bytes go, measured (slicescope-bench history, an hour of 2-second snapshots of a
// 10k-node, 10k-group cluster with 1% of objects changing each time: 64 MB in all, 36 KB per
// snapshot): versions 42% (~95 bytes each, ~150 new per snapshot), texts 32% (mostly the new
// ids of placement groups and Ray nodes), identities 12%, list operations and change lists 6%,
// entries 4%, keyframes 4%.
//
// Where the parts live: the building blocks (string table, identities, arena, Ref) in
// history_storage_p.h, the archives in history_codec_p.h, the field list of each kind in
// history_kinds_p.h, an entry's stored form in history_entries_p.h, the state in history_p.h;
// adding a snapshot and evicting in history_record.cpp, the events in history_events.cpp, and
// here the public API and the rebuild of an entry's snapshot.

#include "history_p.h"

#include <QDebug>

#include <algorithm>
#include <memory>
#include <vector>

namespace slicescope {

using namespace historydetail;

namespace {

template<typename T>
QList<T> materialize(const std::vector<const VersionHeader *> &list, const IndexMaps &maps)
{
    QList<T> out;
    out.reserve(qsizetype(list.size()));
    for (const VersionHeader *h : list)
        out.append(decode<T>(h, maps));
    return out;
}

} // namespace

// ---- SnapshotHistory ------------------------------------------------------------------------------

SnapshotPtr SnapshotHistory::Private::rebuild(int index) const
{
    int key = index;
    while (!entries[size_t(key)].keyframe)
        --key;
    const auto lRay = versions(entries, key, index, &Entry::rayNodes);
    const auto lPods = versions(entries, key, index, &Entry::pods);
    const auto lKube = versions(entries, key, index, &Entry::kubeNodes);
    const auto lSlices = versions(entries, key, index, &Entry::slices);
    const auto lGroups = versions(entries, key, index, &Entry::placementGroups);
    const auto lWorkerGroups = versions(entries, key, index, &Entry::workerGroups);
    const auto lClusters = versions(entries, key, index, &Entry::rayClusters);
    const auto lJobs = versions(entries, key, index, &Entry::jobs);

    IndexMaps maps;
    auto indexList = [&](Kind kind, const std::vector<const VersionHeader *> &list, const HandleTable &ids) {
        std::vector<int> &m = maps.of[kind];
        m.assign(ids.size(), -1);
        for (size_t i = 0; i < list.size(); ++i)
            m[list[i]->handle] = int(i);
    };
    indexList(RayNodes, lRay, rayNodes.ids);
    indexList(Pods, lPods, pods.ids);
    indexList(KubeNodes, lKube, kubeNodes.ids);
    indexList(Slices, lSlices, slices.ids);
    indexList(PlacementGroups, lGroups, placementGroups.ids);

    const Entry &e = entries[size_t(index)];
    auto snap = std::make_shared<ClusterSnapshot>();
    snap->capturedAt = e.capturedAt;
    snap->rayVersion = e.top->rayVersion;
    snap->kubeContext = e.top->kubeContext;
    snap->clusterStatusText = e.top->clusterStatusText;
    snap->hasRay = e.top->hasRay;
    snap->hasKubernetes = e.top->hasKubernetes;
    snap->errors = e.top->errors;
    snap->warnings = e.top->warnings;
    snap->contexts = e.top->contexts;
    snap->contextStates = e.top->contextStates;
    snap->rayViews = e.top->rayViews;
    snap->activity = e.activity;
    snap->rayNodes = materialize<RayNode>(lRay, maps);
    snap->pods = materialize<Pod>(lPods, maps);
    snap->kubeNodes = materialize<KubeNode>(lKube, maps);
    snap->slices = materialize<Slice>(lSlices, maps);
    snap->placementGroups = materialize<PlacementGroup>(lGroups, maps);
    snap->workerGroups = materialize<WorkerGroup>(lWorkerGroups, maps);
    snap->rayClusters = materialize<RayClusterInfo>(lClusters, maps);
    snap->jobs = materialize<Job>(lJobs, maps);
    return snap;
}

SnapshotHistory::SnapshotHistory(QObject *parent)
    : SnapshotHistory(HistoryPolicy(), parent)
{ }

SnapshotHistory::SnapshotHistory(const HistoryPolicy &policy, QObject *parent)
    : QObject(parent)
    , d(std::make_unique<Private>())
{
    d->policy = policy;
}

SnapshotHistory::~SnapshotHistory() = default;

HistoryPolicy SnapshotHistory::policy() const
{
    return d->policy;
}

void SnapshotHistory::setPolicy(const HistoryPolicy &policy)
{
    d->policy = policy;
    if (const int evicted = d->evict())
        Q_EMIT entriesEvicted(evicted);
}

qint64 SnapshotHistory::add(const SnapshotPtr &snapshot)
{
    Q_ASSERT(snapshot);
    if (!snapshot)
        return -1;
    const qint64 serial = d->add(snapshot);
    if (const int evicted = d->evict())
        Q_EMIT entriesEvicted(evicted);
    Q_EMIT entryAdded(serial);
    return serial;
}

void SnapshotHistory::clear()
{
    d->clear();
    Q_EMIT cleared();
}

int SnapshotHistory::size() const
{
    return int(d->entries.size());
}

qint64 SnapshotHistory::serial(int index) const
{
    return d->entries.at(size_t(index)).serial;
}

QDateTime SnapshotHistory::time(int index) const
{
    return d->entries.at(size_t(index)).capturedAt;
}

int SnapshotHistory::indexOfSerial(qint64 serial) const
{
    if (d->entries.empty())
        return -1;
    const qint64 i = serial - d->entries.front().serial; // serials of kept entries are consecutive
    return i >= 0 && i < qint64(d->entries.size()) ? int(i) : -1;
}

int SnapshotHistory::indexAt(const QDateTime &time) const
{
    if (d->entries.empty())
        return -1;
    const auto it = std::upper_bound(d->entries.begin(), d->entries.end(), time,
                                     [](const QDateTime &t, const Entry &e) { return t < e.capturedAt; });
    return std::max(0, int(it - d->entries.begin()) - 1);
}

HistoryPoint SnapshotHistory::point(int index) const
{
    const Entry &e = d->entries.at(size_t(index));
    return d->unpack(e.point, e.serial, e.capturedAt);
}

std::shared_ptr<const ActivityTable> SnapshotHistory::activity(int index) const
{
    if (index < 0 || index >= size())
        return nullptr;
    return d->entries.at(size_t(index)).activity;
}

SnapshotPtr SnapshotHistory::snapshot(int index) const
{
    if (index < 0 || index >= size())
        return {};
    if (index == size() - 1 && d->latest)
        return d->latest;
    const qint64 serial = d->entries[size_t(index)].serial;
    if (d->cachedSerial == serial)
        if (SnapshotPtr cached = d->cached.lock())
            return cached;
    SnapshotPtr snap = d->rebuild(index);
    d->cached = snap;
    d->cachedSerial = serial;
    return snap;
}

qint64 SnapshotHistory::bytesHeld() const
{
    return d->bytesHeld();
}

HistoryMemory SnapshotHistory::memory() const
{
    HistoryMemory m;
    m.rayNodes = d->rayNodes.account.bytes;
    m.pods = d->pods.account.bytes;
    m.kubeNodes = d->kubeNodes.account.bytes;
    m.slices = d->slices.account.bytes;
    m.placementGroups = d->placementGroups.account.bytes;
    m.workerGroups = d->workerGroups.account.bytes;
    m.rayClusters = d->rayClusters.account.bytes;
    m.jobs = d->jobs.account.bytes;
    d->forEachColumn([&](const auto &c, auto) {
        m.objectVersions += c.account.count;
        m.plainVersions += c.account.plain;
    });
    m.texts = d->strings.bytes();
    m.versionSlack = d->arena.slack();
    for (size_t i = 1; i < d->entries.size(); ++i) {
        const Entry &e = d->entries[i];
        m.changes += qint64(e.rayNodes.changeCount() + e.pods.changeCount() + e.kubeNodes.changeCount() + e.slices.changeCount()
                            + e.placementGroups.changeCount() + e.workerGroups.changeCount() + e.rayClusters.changeCount()
                            + e.jobs.changeCount());
    }
    m.keyframes = d->keyframeBytes;
    m.deltas = d->deltaBytes;
    m.entries = d->entryBytes;
    m.identities = d->identityBytes();
    return m;
}

const GenerationStats *HistoryPoint::generation(QStringView label) const
{
    for (const GenerationStats &g : generations)
        if (g.label == label)
            return &g;
    return nullptr;
}

const WorkerGroupPoint *HistoryPoint::workerGroup(QStringView qualifiedName) const
{
    for (const WorkerGroupPoint &g : workerGroups)
        if (g.qualifiedName == qualifiedName)
            return &g;
    return nullptr;
}

QDebug operator<<(QDebug debug, const HistoryPoint &point)
{
    QDebugStateSaver saver(debug);
    debug.nospace() << "HistoryPoint(" << point.serial << ", " << point.time.toString(Qt::ISODate) << ", " << point.fleet
                    << ", placement groups pending " << point.placementGroups.pending << " created "
                    << point.placementGroups.created << ')';
    return debug;
}

} // namespace slicescope
