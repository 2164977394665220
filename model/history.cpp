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

SnapshotHistory::Private::Private()
{
    forEachColumn([this](auto &c, auto) {
        c.account.strings = &strings;
        c.account.arena = &arena;
    });
    pods.ids.compositeKeys = workerGroups.ids.compositeKeys = rayClusters.ids.compositeKeys = true;
}

// The handle of every item of a new list. Lists mostly keep their order, so the previous
// list is walked alongside and only items out of step are looked up by key.
template<typename T>
std::vector<quint32> SnapshotHistory::Private::acquireHandles(Column<T> &c, const QList<T> *previous, const std::vector<quint32> &previousHandles,
                                                              const QList<T> &list, qint64 serial)
{
    std::vector<quint32> handles(size_t(list.size()));
    const qsizetype n = previous ? previous->size() : 0;
    qsizetype j = 0;
    for (qsizetype i = 0; i < list.size(); ++i) {
        const T &item = list[i];
        quint32 h = 0;
        bool found = false;
        for (qsizetype k = j; k < std::min(j + 2, n) && !found; ++k) {
            if (Codec<T>::sameKey(item, (*previous)[k]) && c.ids.lastSerial[previousHandles[size_t(k)]] != serial) {
                h = previousHandles[size_t(k)];
                c.ids.lastSerial[h] = serial;
                j = k + 1;
                found = true;
            }
        }
        if (!found) {
            h = c.ids.acquire(Codec<T>::key(item), serial);
            if (h < c.headIndex.size() && c.headIndex[h] >= 0)
                j = c.headIndex[h] + 1;
        }
        handles[size_t(i)] = h;
    }
    if (c.headIndex.size() < c.ids.size())
        c.headIndex.resize(c.ids.size(), -1);
    return handles;
}

// A new version of `value`: encoded, checked by decoding it back, else a plain copy.
template<typename T>
Ref<T> SnapshotHistory::Private::encode(Column<T> &c, const T &value, quint32 handle, const HandleMaps &handles, const IndexMaps &indexes)
{
    scratch.clear();
    Writer w(scratch, strings, handles);
    Codec<T>::fields(w, value);
    VersionHeader *h = nullptr;
    if (w.ok && scratch.size() < VersionHeader::kPlain) {
        void *mem = arena.allocate(sizeof(VersionHeader) + scratch.size());
        h = new (mem) VersionHeader;
        h->size = quint32(scratch.size());
        std::memcpy(const_cast<uchar *>(h->data()), scratch.data(), scratch.size());
        h->account = &c.account;
        if (decode<T>(h, indexes) == value) {
            h->bytes = qint32(Arena::blockSize(sizeof(VersionHeader) + scratch.size()));
        } else {
            releaseStrings<T>(h);
            h->~VersionHeader();
            arena.release(mem, sizeof(VersionHeader) + scratch.size());
            h = nullptr;
        }
    } else {
        Reader<true> release(scratch.data(), quint32(scratch.size()), strings, nullptr);
        T ignored;
        Codec<T>::fields(release, ignored);
    }
    if (!h) {
        // The codec does not carry this value exactly (a field it does not know yet): keep a copy.
        void *mem = ::operator new(plainOffset<T>() + sizeof(T));
        h = new (mem) VersionHeader;
        h->size = VersionHeader::kPlain;
        T *v = new (static_cast<char *>(mem) + plainOffset<T>()) T(value);
        Codec<T>::toHandles(*v, handles);
        h->account = &c.account;
        h->bytes = qint32(std::min<qint64>(heapBlock(qint64(plainOffset<T>() + sizeof(T))) + deepBytes(*v),
                                           std::numeric_limits<qint32>::max()));
        ++c.account.plain;
    }
    h->handle = handle;
    c.account.bytes += h->bytes;
    ++c.account.count;
    return Ref<T>(h);
}

// Matches a new list against the newest entry's by identity; fills the entry's changes and
// list operations and moves the head on. Returns false if the list was reordered (the entry
// must then be a keyframe).
template<typename T>
bool SnapshotHistory::Private::diff(Column<T> &c, const QList<T> *previous, const QList<T> &list, const std::vector<quint32> &handles,
                                    const HandleMaps &newMaps, const HandleMaps &oldMaps, const IndexMaps &newIndexes, Delta<T> &d)
{
    std::vector<Ref<T>> next, added;
    next.reserve(size_t(list.size()));
    std::vector<char> kept(c.head.size(), 0);
    Ops opsBytes;
    OpsWriter ops(opsBytes);
    bool inOrder = true;
    for (qsizetype i = 0; i < list.size(); ++i) {
        const quint32 h = handles[size_t(i)];
        const int oldIndex = c.headIndex[h];
        if (oldIndex >= 0) {
            kept[size_t(oldIndex)] = 1;
            if (Codec<T>::same(list[i], newMaps, (*previous)[oldIndex], oldMaps)) {
                // Moved, not copied: an unchanged version's header (somewhere in the hour's
                // memory) is then not touched at all, so add() costs the same however long
                // the history is. Each old index is kept at most once (identities are unique).
                next.push_back(std::move(c.head[size_t(oldIndex)]));
                inOrder = ops.copy(oldIndex) && inOrder;
                continue;
            }
        }
        Ref<T> version = encode(c, list[i], h, newMaps, newIndexes);
        ops.take();
        added.push_back(version);
        next.push_back(std::move(version));
    }
    ops.finish(int(c.head.size()));
    d.ops = Packed<uchar>(std::move(opsBytes));
    d.added = Packed<Ref<T>>(std::move(added));
    const std::vector<quint32> &oldHandles = *oldMaps.of[Codec<T>::kind];
    std::vector<quint32> gone;
    for (size_t j = 0; j < c.head.size(); ++j)
        if (!kept[j])
            gone.push_back(oldHandles[j]);
    if (!gone.empty())
        d.rareData().gone = Packed<quint32>(std::move(gone));
    for (quint32 h : *oldMaps.of[Codec<T>::kind])
        c.headIndex[h] = -1;
    for (size_t i = 0; i < handles.size(); ++i)
        c.headIndex[handles[i]] = int(i);
    c.headHandles = handles;
    c.head = std::move(next);
    return inOrder;
}

std::shared_ptr<const Top> SnapshotHistory::Private::makeTop(const ClusterSnapshot &s, qint64 &bytes) const
{
    const Top *prev = entries.empty() ? nullptr : entries.back().top.get();
    if (prev && prev->rayVersion == s.rayVersion && prev->kubeContext == s.kubeContext
        && prev->clusterStatusText == s.clusterStatusText && prev->hasRay == s.hasRay && prev->hasKubernetes == s.hasKubernetes
        && prev->errors == s.errors && prev->warnings == s.warnings)
        return entries.back().top;
    Top t;
    t.rayVersion = s.rayVersion;
    t.kubeContext = s.kubeContext;
    t.clusterStatusText = s.clusterStatusText;
    t.hasRay = s.hasRay;
    t.hasKubernetes = s.hasKubernetes;
    t.errors = s.errors;
    t.warnings = s.warnings;
    bytes += heapBlock(sizeof(Top) + 16);
    auto keep = [&](QString &x, const QString *old) {
        if (old && x == *old)
            x = *old;
        else
            bytes += stringBytes(x);
    };
    auto keepList = [&](QStringList &x, const QStringList *old) {
        if (old && x == *old) {
            x = *old;
            return;
        }
        bytes += arrayBytes(x);
        QHash<QString, int> previous;
        if (old)
            for (int i = 0; i < old->size(); ++i)
                previous.insert(old->at(i), i);
        for (QString &w : x) {
            const auto it = previous.constFind(w);
            if (it != previous.constEnd())
                w = old->at(*it);
            else
                bytes += stringBytes(w);
        }
    };
    keep(t.rayVersion, prev ? &prev->rayVersion : nullptr);
    keep(t.kubeContext, prev ? &prev->kubeContext : nullptr);
    keep(t.clusterStatusText, prev ? &prev->clusterStatusText : nullptr);
    keepList(t.errors, prev ? &prev->errors : nullptr);
    keepList(t.warnings, prev ? &prev->warnings : nullptr);
    return std::make_shared<const Top>(std::move(t));
}

// The aggregates of one snapshot, sharing lists with the previous point where they are equal.
HistoryPoint SnapshotHistory::Private::makePoint(const ClusterSnapshot &s, qint64 serial, const std::vector<quint32> &groupHandles,
                                                 const std::vector<quint32> &workerGroupHandles, qint64 &bytes)
{
    HistoryPoint p;
    p.serial = serial;
    p.time = s.capturedAt;
    const FleetStats stats = fleetStats(s);
    p.fleet = stats.total;
    p.generations = stats.generations;

    PlacementGroupCounts &g = p.placementGroups;
    const qint64 now = s.capturedAt.toMSecsSinceEpoch();
    if (pendingSince.size() < placementGroups.ids.size())
        pendingSince.resize(placementGroups.ids.size(), -1);
    qint64 oldest = -1;
    quint32 oldestHandle = 0;
    for (qsizetype i = 0; i < s.placementGroups.size(); ++i) {
        const PlacementGroup &pg = s.placementGroups[i];
        const quint32 h = groupHandles[size_t(i)];
        if (pg.state == QLatin1String("PENDING")) {
            ++g.pending;
            if (pendingSince[h] < 0)
                pendingSince[h] = now;
            if (oldest < 0 || pendingSince[h] < oldest) {
                oldest = pendingSince[h];
                oldestHandle = h;
            }
            continue;
        }
        pendingSince[h] = -1;
        if (pg.state == QLatin1String("CREATED")) ++g.created;
        else if (pg.state == QLatin1String("PREPARED")) ++g.prepared;
        else if (pg.state == QLatin1String("RESCHEDULING")) ++g.rescheduling;
        else ++g.other;
    }
    if (oldest >= 0) {
        g.oldestPendingMs = now - oldest;
        g.oldestPendingId = placementGroups.ids.keys[oldestHandle]; // shares the identity's text
    }

    if (!s.workerGroups.isEmpty()) {
        QHash<QString, std::pair<int, int>> sliceCounts; // group -> (slices, intact ones)
        for (const Slice &sl : s.slices) {
            if (sl.workerGroup.isEmpty())
                continue;
            auto &counts = sliceCounts[sl.workerGroup];
            ++counts.first;
            counts.second += sl.intact;
        }
        p.workerGroups.reserve(s.workerGroups.size());
        for (qsizetype i = 0; i < s.workerGroups.size(); ++i) {
            const WorkerGroup &wg = s.workerGroups[i];
            WorkerGroupPoint w;
            w.qualifiedName = workerGroups.ids.keys[workerGroupHandles[size_t(i)]];
            w.desired = wg.replicas;
            w.minReplicas = wg.minReplicas;
            w.maxReplicas = wg.maxReplicas;
            const auto counts = sliceCounts.value(w.qualifiedName);
            w.slices = counts.first;
            w.ready = counts.second;
            p.workerGroups.append(std::move(w));
        }
    }

    Q_UNUSED(bytes);
    return p;
}

// Packs a point (checking that it unpacks to the same), sharing the worker group names with
// the previous entry's when they are the same.
PackedPoint SnapshotHistory::Private::pack(const HistoryPoint &p, qint64 &bytes)
{
    PackedPoint packed;
    HandleMaps none;
    Writer w(packed.data, strings, none);
    PackedPoint::fields(w, p);
    packed.data.shrink_to_fit();
    bytes += vectorBytes(packed.data);
    for (const WorkerGroupPoint &g : p.workerGroups)
        packed.workerGroupNames << g.qualifiedName;
    const PackedPoint *prev = entries.empty() ? nullptr : &entries.back().point;
    if (prev && packed.workerGroupNames == prev->workerGroupNames)
        packed.workerGroupNames = prev->workerGroupNames;
    else
        bytes += arrayBytes(packed.workerGroupNames);
    packed.oldestPendingId = p.placementGroups.oldestPendingId;
    if (!w.ok || unpack(packed, p.serial, p.time) != p) {
        packed.data = {};
        packed.plain = std::make_unique<HistoryPoint>(p);
        bytes += qint64(sizeof(HistoryPoint)) + arrayBytes(p.generations) + arrayBytes(p.workerGroups);
    }
    return packed;
}

HistoryPoint SnapshotHistory::Private::unpack(const PackedPoint &packed, qint64 serial, const QDateTime &time) const
{
    if (packed.plain)
        return *packed.plain;
    HistoryPoint p;
    p.serial = serial;
    p.time = time;
    IndexMaps none;
    Reader<false> r(packed.data.data(), quint32(packed.data.size()), const_cast<StringTable &>(strings), &none);
    PackedPoint::fields(r, p);
    for (GenerationStats &g : p.generations)
        g.label = g.generation ? g.generation->name : QStringLiteral("unknown");
    for (qsizetype i = 0; i < p.workerGroups.size() && i < packed.workerGroupNames.size(); ++i)
        p.workerGroups[i].qualifiedName = packed.workerGroupNames[i];
    p.placementGroups.oldestPendingId = packed.oldestPendingId;
    return p;
}

qint64 SnapshotHistory::Private::add(const SnapshotPtr &snapshot)
{
    const ClusterSnapshot &s = *snapshot;
    const ClusterSnapshot *prev = latest.get();
    const qint64 serial = nextSerial++;

    // The previous snapshot's index -> handle maps (taken from the heads, which diff() moves
    // on), then the new one's.
    std::vector<quint32> oldHandles[KindCount];
    HandleMaps oldMaps;
    forEachColumn([&](auto &c, auto) {
        const Kind kind = std::remove_reference_t<decltype(c)>::kind;
        oldHandles[kind] = std::move(c.headHandles);
        c.headHandles = {};
        oldMaps.of[kind] = &oldHandles[kind];
    });
    const auto hRay = acquireHandles(rayNodes, prev ? &prev->rayNodes : nullptr, oldHandles[Column<RayNode>::kind], s.rayNodes, serial);
    const auto hPods = acquireHandles(pods, prev ? &prev->pods : nullptr, oldHandles[Column<Pod>::kind], s.pods, serial);
    const auto hKube = acquireHandles(kubeNodes, prev ? &prev->kubeNodes : nullptr, oldHandles[Column<KubeNode>::kind], s.kubeNodes, serial);
    const auto hSlices = acquireHandles(slices, prev ? &prev->slices : nullptr, oldHandles[Column<Slice>::kind], s.slices, serial);
    const auto hGroups = acquireHandles(placementGroups, prev ? &prev->placementGroups : nullptr, oldHandles[Column<PlacementGroup>::kind], s.placementGroups, serial);
    const auto hWorkerGroups = acquireHandles(workerGroups, prev ? &prev->workerGroups : nullptr, oldHandles[Column<WorkerGroup>::kind], s.workerGroups, serial);
    const auto hClusters = acquireHandles(rayClusters, prev ? &prev->rayClusters : nullptr, oldHandles[Column<RayClusterInfo>::kind], s.rayClusters, serial);
    const auto hJobs = acquireHandles(jobs, prev ? &prev->jobs : nullptr, oldHandles[Column<Job>::kind], s.jobs, serial);
    HandleMaps newMaps;
    newMaps.of[RayNodes] = &hRay;
    newMaps.of[Pods] = &hPods;
    newMaps.of[KubeNodes] = &hKube;
    newMaps.of[Slices] = &hSlices;
    newMaps.of[PlacementGroups] = &hGroups;
    // Handle -> new index, to check encodings by decoding them.
    IndexMaps newIndexes;
    auto invert = [&](Kind kind, const std::vector<quint32> &handles, quint32 size) {
        std::vector<int> &m = newIndexes.of[kind];
        m.assign(size, -1);
        for (size_t i = 0; i < handles.size(); ++i)
            m[handles[i]] = int(i);
    };
    invert(RayNodes, hRay, rayNodes.ids.size());
    invert(Pods, hPods, pods.ids.size());
    invert(KubeNodes, hKube, kubeNodes.ids.size());
    invert(Slices, hSlices, slices.ids.size());
    invert(PlacementGroups, hGroups, placementGroups.ids.size());

    Entry e;
    e.serial = serial;
    bool inOrder = true;
    inOrder = diff(rayNodes, prev ? &prev->rayNodes : nullptr, s.rayNodes, hRay, newMaps, oldMaps, newIndexes, e.rayNodes) && inOrder;
    inOrder = diff(pods, prev ? &prev->pods : nullptr, s.pods, hPods, newMaps, oldMaps, newIndexes, e.pods) && inOrder;
    inOrder = diff(kubeNodes, prev ? &prev->kubeNodes : nullptr, s.kubeNodes, hKube, newMaps, oldMaps, newIndexes, e.kubeNodes) && inOrder;
    inOrder = diff(slices, prev ? &prev->slices : nullptr, s.slices, hSlices, newMaps, oldMaps, newIndexes, e.slices) && inOrder;
    inOrder = diff(placementGroups, prev ? &prev->placementGroups : nullptr, s.placementGroups, hGroups, newMaps, oldMaps,
                   newIndexes, e.placementGroups)
              && inOrder;
    inOrder = diff(workerGroups, prev ? &prev->workerGroups : nullptr, s.workerGroups, hWorkerGroups, newMaps, oldMaps,
                   newIndexes, e.workerGroups)
              && inOrder;
    inOrder = diff(rayClusters, prev ? &prev->rayClusters : nullptr, s.rayClusters, hClusters, newMaps, oldMaps, newIndexes,
                   e.rayClusters)
              && inOrder;
    inOrder = diff(jobs, prev ? &prev->jobs : nullptr, s.jobs, hJobs, newMaps, oldMaps, newIndexes, e.jobs) && inOrder;

    // A keyframe every kKeyframeEvery entries, when a list was reordered, or when the
    // operations are no longer much smaller than a keyframe would be.
    qint64 objects = 0, opsBytes = 0;
    forEachColumn([&](const auto &c, auto member) {
        objects += qint64(c.head.size());
        opsBytes += qint64((e.*member).ops.size());
    });
    e.keyframe = entries.empty() || !inOrder || sinceKeyframe + 1 >= kKeyframeEvery || opsBytes > objects * 2;
    if (e.keyframe) {
        forEachColumn([&](auto &c, auto member) {
            if (!c.head.empty())
                (e.*member).rareData().keyframe = c.head;
            (e.*member).ops = {};
        });
        sinceKeyframe = 0;
    } else {
        ++sinceKeyframe;
    }

    for (quint32 h : e.placementGroups.gone())
        if (h < pendingSince.size())
            pendingSince[h] = -1;
    e.capturedAt = s.capturedAt;
    e.top = makeTop(s, e.textBytes);
    e.point = pack(makePoint(s, serial, hGroups, hWorkerGroups, e.textBytes), e.textBytes);
    entryBytes += e.ownBytes();
    keyframeBytes += e.keyframeBytes();
    deltaBytes += e.deltaBytes();
    entries.push_back(std::move(e));
    latest = snapshot;
    return serial;
}

// Drops the oldest entry; the next one becomes a keyframe if it was not.
void SnapshotHistory::Private::popFront()
{
    Q_ASSERT(!entries.empty() && entries.front().keyframe);
    Entry &front = entries.front();
    if (entries.size() > 1 && !entries[1].keyframe) {
        Entry &next = entries[1];
        keyframeBytes -= next.keyframeBytes();
        deltaBytes -= next.deltaBytes();
        forEachColumn([&](auto &, auto member) {
            const auto &base = (front.*member).keyframe();
            auto &d = next.*member;
            std::remove_const_t<std::remove_reference_t<decltype(base)>> list;
            if (d.ops.empty()) {
                list = base; // unchanged
            } else {
                list.reserve(base.size() + d.added.size());
                replayOps(
                    d.ops, [&](int first, int n) { list.insert(list.end(), base.begin() + first, base.begin() + first + n); },
                    [&](int first, int n) { list.insert(list.end(), d.added.begin() + first, d.added.begin() + first + n); });
            }
            list.shrink_to_fit();
            if (!list.empty())
                d.rareData().keyframe = std::move(list);
            d.ops = {};
        });
        next.keyframe = true;
        keyframeBytes += next.keyframeBytes();
        deltaBytes += next.deltaBytes();
    }
    entryBytes -= front.ownBytes();
    keyframeBytes -= front.keyframeBytes();
    deltaBytes -= front.deltaBytes();
    entries.pop_front();
}

int SnapshotHistory::Private::evict()
{
    int evicted = 0;
    while (entries.size() > 1) {
        const QDateTime &newest = entries.back().capturedAt;
        const QDateTime &oldest = entries.front().capturedAt;
        const bool tooOld = policy.maxAgeSeconds > 0 && newest.isValid() && oldest.isValid()
                            && oldest.msecsTo(newest) > policy.maxAgeSeconds * 1000;
        const bool tooBig = policy.maxBytes > 0 && bytesHeld() > policy.maxBytes;
        if (!tooOld && !tooBig)
            break;
        popFront();
        ++evicted;
    }
    // Now and then, forget identities no kept entry (nor the one before the oldest) has.
    if (!entries.empty() && entries.front().serial - lastSweepSerial >= kKeyframeEvery) {
        lastSweepSerial = entries.front().serial;
        forEachColumn([&](auto &c, auto) { c.ids.sweep(lastSweepSerial - 1); });
        for (quint32 h = 0; h < pendingSince.size() && h < placementGroups.ids.size(); ++h)
            if (placementGroups.ids.lastSerial[h] < 0)
                pendingSince[h] = -1;
    }
    return evicted;
}

void SnapshotHistory::Private::clear()
{
    entries.clear();
    latest.reset();
    cached.reset();
    cachedSerial = -1;
    forEachColumn([](auto &c, auto) {
        c.head = {};
        c.headIndex = {};
        c.headHandles = {};
        c.ids.clear();
    });
    pendingSince = {};
    sinceKeyframe = 0;
    entryBytes = keyframeBytes = deltaBytes = 0;
    lastSweepSerial = nextSerial;
    arena.trim();
}

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
