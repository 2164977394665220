// SPDX-License-Identifier: GPL-3.0-or-later
// SnapshotHistory::Private's writing side: add() (a handle for every object, each list compared
// with the newest entry's, changed objects encoded and checked by decoding them, the entry's
// texts and point packed), the eviction of the oldest entries the policy no longer allows, and
// clear(). The state and the stored form are in history_p.h.

#include "history_p.h"
#include "logging.h"

#include <QHash>

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace slicescope {

using namespace historydetail;

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
        && prev->errors == s.errors && prev->warnings == s.warnings && prev->contexts == s.contexts && prev->contextStates == s.contextStates
        && prev->rayViews == s.rayViews)
        return entries.back().top;
    Top t;
    t.rayVersion = s.rayVersion;
    t.kubeContext = s.kubeContext;
    t.clusterStatusText = s.clusterStatusText;
    t.hasRay = s.hasRay;
    t.hasKubernetes = s.hasKubernetes;
    t.errors = s.errors;
    t.warnings = s.warnings;
    t.contexts = s.contexts;
    t.contextStates = s.contextStates;
    t.rayViews = s.rayViews;
    bytes += heapBlock(sizeof(Top) + 16);
    for (const QString &c : t.contexts)
        bytes += stringBytes(c);
    for (const ContextState &c : t.contextStates)
        bytes += stringBytes(c.context) + stringBytes(c.error);
    for (const RayViewState &v : t.rayViews)
        bytes += stringBytes(v.context) + stringBytes(v.cluster) + stringBytes(v.error);
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
    e.activity = s.activity;
    if (s.activity) {
        const ActivityTable *previous = entries.empty() ? nullptr : entries.back().activity.get();
        if (previous && *previous == *s.activity)
            e.activity = entries.back().activity; // one table for the run of entries that repeat it
        else
            e.textBytes += s.activity->bytes();
    }
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
    bool byAge = false;
    while (entries.size() > 1) {
        const QDateTime &newest = entries.back().capturedAt;
        const QDateTime &oldest = entries.front().capturedAt;
        const bool tooOld = policy.maxAgeSeconds > 0 && newest.isValid() && oldest.isValid()
                            && oldest.msecsTo(newest) > policy.maxAgeSeconds * 1000;
        const bool tooBig = policy.maxBytes > 0 && bytesHeld() > policy.maxBytes;
        if (!tooOld && !tooBig)
            break;
        byAge = byAge || tooOld;
        popFront();
        ++evicted;
    }
    if (evicted > 0)
        qCDebug(lcHistory).noquote() << QStringLiteral("evicted the oldest %1 entr%2 (%3); %4 kept, %5 KB held of at most %6 KB, from serial %7")
                                            .arg(evicted)
                                            .arg(evicted == 1 ? QStringLiteral("y") : QStringLiteral("ies"))
                                            .arg(byAge ? QStringLiteral("older than %1 s").arg(policy.maxAgeSeconds) : QStringLiteral("over the memory bound"))
                                            .arg(entries.size())
                                            .arg(bytesHeld() >> 10)
                                            .arg(policy.maxBytes >> 10)
                                            .arg(entries.front().serial);
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

} // namespace slicescope
