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

#include "history.h"
#include "history_kinds_p.h"

#include <QDebug>
#include <QHash>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <limits>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace slicescope {

using namespace historydetail;

namespace {

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
        quint64 v = 0;
        int shift = 0;
        while (p < end) {
            const uchar b = *p++;
            v |= quint64(b & 0x7f) << shift;
            if (!(b & 0x80))
                break;
            shift += 7;
        }
        return int(v);
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
QString shortId(const QString &id)
{
    return id.left(12);
}

QString placementGroupLabel(const PlacementGroup &g)
{
    return g.name.isEmpty() ? shortId(g.id) : g.name + QStringLiteral(" (") + shortId(g.id) + u')';
}

QString sliceStatusText(const Slice &s)
{
    switch (s.status()) {
    case SliceStatus::Ready: return QStringLiteral("ready");
    case SliceStatus::Reserved:
        if (s.reservedChips == 0)
            return QStringLiteral("reserved (head claimed)");
        return QStringLiteral("reserved (%1 of %2 chips held)").arg(s.reservedChips).arg(sliceChips(s));
    case SliceStatus::Degraded:
        return s.problems.isEmpty() ? QStringLiteral("degraded") : QStringLiteral("degraded: ") + s.problems.join(QStringLiteral("; "));
    case SliceStatus::Provisioning:
        return s.problems.isEmpty() ? QStringLiteral("provisioning") : QStringLiteral("provisioning: ") + s.problems.join(QStringLiteral("; "));
    }
    Q_UNREACHABLE();
}

} // namespace

// ---- SnapshotHistory ------------------------------------------------------------------------------

struct SnapshotHistory::Private {
    HistoryPolicy policy;
    Arena arena;                // before the columns: versions return their memory to it
    StringTable strings;        // and release their texts into this
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

    Private()
    {
        forEachColumn([this](auto &c, auto) {
            c.account.strings = &strings;
            c.account.arena = &arena;
        });
        pods.ids.compositeKeys = workerGroups.ids.compositeKeys = rayClusters.ids.compositeKeys = true;
    }

    template<typename F>
    void forEachColumn(F &&f)
    {
        f(rayNodes, &Entry::rayNodes);
        f(pods, &Entry::pods);
        f(kubeNodes, &Entry::kubeNodes);
        f(slices, &Entry::slices);
        f(placementGroups, &Entry::placementGroups);
        f(workerGroups, &Entry::workerGroups);
        f(rayClusters, &Entry::rayClusters);
        f(jobs, &Entry::jobs);
    }
    template<typename F>
    void forEachColumn(F &&f) const
    {
        f(rayNodes, &Entry::rayNodes);
        f(pods, &Entry::pods);
        f(kubeNodes, &Entry::kubeNodes);
        f(slices, &Entry::slices);
        f(placementGroups, &Entry::placementGroups);
        f(workerGroups, &Entry::workerGroups);
        f(rayClusters, &Entry::rayClusters);
        f(jobs, &Entry::jobs);
    }

    qint64 identityBytes() const
    {
        qint64 b = vectorBytes(pendingSince);
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

    // The handle of every item of a new list. Lists mostly keep their order, so the previous
    // list is walked alongside and only items out of step are looked up by key.
    template<typename T>
    std::vector<quint32> acquireHandles(Column<T> &c, const QList<T> *previous, const std::vector<quint32> &previousHandles,
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
    Ref<T> encode(Column<T> &c, const T &value, quint32 handle, const HandleMaps &handles, const IndexMaps &indexes)
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
    bool diff(Column<T> &c, const QList<T> *previous, const QList<T> &list, const std::vector<quint32> &handles,
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

    std::shared_ptr<const Top> makeTop(const ClusterSnapshot &s, qint64 &bytes) const
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
    HistoryPoint makePoint(const ClusterSnapshot &s, qint64 serial, const std::vector<quint32> &groupHandles,
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
    PackedPoint pack(const HistoryPoint &p, qint64 &bytes)
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

    HistoryPoint unpack(const PackedPoint &packed, qint64 serial, const QDateTime &time) const
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

    qint64 add(const SnapshotPtr &snapshot)
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
    void popFront()
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

    int evict()
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

    // Moves a list (raw pointers: the entries keep the versions alive) on to the next entry.
    template<typename T>
    static void advance(std::vector<const VersionHeader *> &list, const Delta<T> &d, bool keyframe, std::vector<const VersionHeader *> &scratch)
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
    static std::vector<const VersionHeader *> versions(const std::deque<Entry> &entries, int key, int index, Delta<T> Entry::*member)
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

    template<typename T>
    static QList<T> materialize(const std::vector<const VersionHeader *> &list, const IndexMaps &maps)
    {
        QList<T> out;
        out.reserve(qsizetype(list.size()));
        for (const VersionHeader *h : list)
            out.append(decode<T>(h, maps));
        return out;
    }

    SnapshotPtr rebuild(int index) const
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

    void clear()
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
};

// ---- Events -------------------------------------------------------------------------------------

namespace {

class EventWriter
{
public:
    EventWriter(qint64 serial, const QDateTime &time, const HistoryEventFilter &filter, QList<HistoryEvent> &out)
        : m_serial(serial)
        , m_time(time)
        , m_filter(filter)
        , m_out(out)
    {
    }

    // Adds an event if the filter wants it; `describe` fills subject, text, from and to.
    template<typename F>
    void add(HistoryEventKind kind, const QString &slice, const QString &placementGroup, F &&describe)
    {
        if (!m_filter.kinds.isEmpty() && !m_filter.kinds.contains(kind))
            return;
        if (!m_filter.slice.isEmpty() && slice != m_filter.slice)
            return;
        if (!m_filter.placementGroup.isEmpty() && placementGroup != m_filter.placementGroup)
            return;
        HistoryEvent e;
        e.serial = m_serial;
        e.time = m_time;
        e.kind = kind;
        e.selectSlice = slice;
        e.selectPlacementGroup = placementGroup;
        describe(e);
        m_out.append(std::move(e));
    }

private:
    qint64 m_serial;
    QDateTime m_time;
    const HistoryEventFilter &m_filter;
    QList<HistoryEvent> &m_out;
};

HistoryEventKind hostEventKind(HostState state)
{
    switch (state) {
    case HostState::Alive: return HistoryEventKind::HostUp;
    case HostState::Dead: return HistoryEventKind::HostDied;
    case HostState::Pending: return HistoryEventKind::HostPending;
    case HostState::Missing: return HistoryEventKind::HostMissing;
    }
    Q_UNREACHABLE();
}

// The slice's own sentence about a worker ("worker 2 is DEAD"), if it has one.
QString workerProblem(const Slice &s, int worker)
{
    const QString prefix = QStringLiteral("worker %1 ").arg(worker);
    for (const QString &p : s.problems)
        if (p.startsWith(prefix))
            return p;
    return {};
}

// The previous entry's versions by handle, per kind, built when first asked for.
class Before
{
public:
    std::vector<const VersionHeader *> lists[KindCount];

    const VersionHeader *find(Kind kind, quint32 handle)
    {
        std::vector<const VersionHeader *> &byHandle = m_byHandle[kind];
        if (!m_built[kind]) {
            m_built[kind] = true;
            for (const VersionHeader *h : m_filled[kind]) // clears only what was set (handles run high)
                byHandle[h->handle] = nullptr;
            for (const VersionHeader *h : lists[kind]) {
                if (h->handle >= byHandle.size())
                    byHandle.resize(h->handle + 1, nullptr);
                byHandle[h->handle] = h;
            }
            m_filled[kind] = lists[kind];
        }
        return handle < byHandle.size() ? byHandle[handle] : nullptr;
    }
    // The lists moved on to the next entry.
    void invalidate() { std::fill(std::begin(m_built), std::end(m_built), false); }

private:
    std::vector<const VersionHeader *> m_byHandle[KindCount];
    std::vector<const VersionHeader *> m_filled[KindCount];
    bool m_built[KindCount] = {};
};

// Calls f(before, after) for each new version of one kind (before null: it appeared), then
// f(before, null) for each object gone; values decoded with references left as handles.
template<typename T, typename F>
void forEachChange(const Delta<T> &d, Before &before, const IndexMaps &handles, F &&f)
{
    for (const Ref<T> &r : d.added) {
        const VersionHeader *b = before.find(Codec<T>::kind, r->handle);
        const std::optional<T> was = b ? std::optional<T>(decode<T>(b, handles)) : std::nullopt;
        const T now = decode<T>(r.get(), handles);
        f(was ? &*was : nullptr, &now);
    }
    for (quint32 h : d.gone())
        if (const VersionHeader *b = before.find(Codec<T>::kind, h)) {
            const T was = decode<T>(b, handles);
            f(&was, nullptr);
        }
}

void writeEvents(const Entry &e, Before &before, const HistoryEventFilter &filter, QList<HistoryEvent> &out)
{
    EventWriter w(e.serial, e.capturedAt, filter, out);
    IndexMaps handles; // references stay handles: events compare them and look Ray nodes up by them
    handles.identity = true;

    forEachChange(e.rayClusters, before, handles, [&](const RayClusterInfo *a, const RayClusterInfo *b) {
        const RayClusterInfo &any = b ? *b : *a;
        const QString name = any.ns + u'/' + any.name;
        if (!a) {
            w.add(HistoryEventKind::RayClusterAdded, {}, {}, [&](HistoryEvent &ev) {
                ev.subject = name;
                ev.to = b->state;
                ev.text = QStringLiteral("RayCluster %1 appeared%2").arg(name, b->state.isEmpty() ? QString() : QStringLiteral(": ") + b->state);
            });
        } else if (!b) {
            w.add(HistoryEventKind::RayClusterRemoved, {}, {}, [&](HistoryEvent &ev) {
                ev.subject = name;
                ev.from = a->state;
                ev.text = QStringLiteral("RayCluster %1 was deleted").arg(name);
            });
        } else if (a->state != b->state) {
            w.add(HistoryEventKind::RayClusterStateChanged, {}, {}, [&](HistoryEvent &ev) {
                ev.subject = name;
                ev.from = a->state;
                ev.to = b->state;
                ev.text = QStringLiteral("RayCluster %1: %2 → %3").arg(name, a->state.isEmpty() ? QStringLiteral("(no state)") : a->state, b->state.isEmpty() ? QStringLiteral("(no state)") : b->state);
            });
        }
    });

    auto range = [](int lo, int hi) {
        return hi == std::numeric_limits<int>::max() ? QStringLiteral("%1..").arg(lo) : QStringLiteral("%1..%2").arg(lo).arg(hi);
    };
    forEachChange(e.workerGroups, before, handles, [&](const WorkerGroup *a, const WorkerGroup *b) {
        const QString name = (b ? b : a)->qualifiedName();
        if (!a) {
            w.add(HistoryEventKind::WorkerGroupAdded, {}, {}, [&](HistoryEvent &ev) {
                ev.subject = name;
                ev.to = QString::number(b->replicas);
                ev.text = QStringLiteral("worker group %1 appeared: %2 replicas (%3)").arg(name).arg(b->replicas).arg(range(b->minReplicas, b->maxReplicas));
            });
        } else if (!b) {
            w.add(HistoryEventKind::WorkerGroupRemoved, {}, {}, [&](HistoryEvent &ev) {
                ev.subject = name;
                ev.from = QString::number(a->replicas);
                ev.text = QStringLiteral("worker group %1 was removed").arg(name);
            });
        } else if (a->replicas != b->replicas || a->minReplicas != b->minReplicas || a->maxReplicas != b->maxReplicas) {
            w.add(HistoryEventKind::WorkerGroupScaled, {}, {}, [&](HistoryEvent &ev) {
                ev.subject = name;
                ev.from = QString::number(a->replicas);
                ev.to = QString::number(b->replicas);
                QStringList parts;
                if (a->replicas != b->replicas)
                    parts << QStringLiteral("replicas %1 → %2").arg(a->replicas).arg(b->replicas);
                if (a->minReplicas != b->minReplicas || a->maxReplicas != b->maxReplicas)
                    parts << QStringLiteral("range %1 → %2").arg(range(a->minReplicas, a->maxReplicas), range(b->minReplicas, b->maxReplicas));
                ev.text = name + QStringLiteral(": ") + parts.join(QStringLiteral(", "));
            });
        }
    });

    // Ray nodes changed in this entry, by handle: what a host's event can say about its node.
    std::optional<RayNode> nodeScratch;
    auto node = [&](int handle) -> const RayNode * {
        for (const Ref<RayNode> &r : e.rayNodes.added)
            if (handle >= 0 && r->handle == quint32(handle)) {
                nodeScratch = decode<RayNode>(r.get(), handles);
                return &*nodeScratch;
            }
        return nullptr;
    };
    // Pods changed in this entry, likewise: a host turned DEAD by its pod says why.
    std::optional<Pod> podScratch;
    auto pod = [&](int handle) -> const Pod * {
        for (const Ref<Pod> &r : e.pods.added)
            if (handle >= 0 && r->handle == quint32(handle)) {
                podScratch = decode<Pod>(r.get(), handles);
                return &*podScratch;
            }
        return nullptr;
    };
    forEachChange(e.slices, before, handles, [&](const Slice *a, const Slice *b) {
        if (!a) {
            w.add(HistoryEventKind::SliceAdded, b->name, {}, [&](HistoryEvent &ev) {
                ev.subject = b->name;
                ev.to = toText(b->status());
                ev.text = QStringLiteral("slice %1 appeared: %2").arg(b->name, sliceStatusText(*b));
            });
            return;
        }
        if (!b) {
            w.add(HistoryEventKind::SliceRemoved, a->name, {}, [&](HistoryEvent &ev) {
                ev.subject = a->name;
                ev.from = toText(a->status());
                ev.text = QStringLiteral("slice %1 was removed (it was %2)").arg(a->name, toText(a->status()));
            });
            return;
        }
        for (const Host &hb : b->hosts) {
            const Host *ha = nullptr;
            for (const Host &x : a->hosts)
                if (x.workerId == hb.workerId) {
                    ha = &x;
                    break;
                }
            if (!ha || ha->state == hb.state)
                continue;
            const Pod *going = hb.state == HostState::Dead ? pod(hb.pod) : nullptr;
            const bool removed = going && going->terminating;
            w.add(removed ? HistoryEventKind::HostRemoved : hostEventKind(hb.state), b->name, {}, [&](HistoryEvent &ev) {
                ev.subject = QStringLiteral("%1 worker %2").arg(b->name).arg(hb.workerId);
                ev.from = toText(ha->state);
                ev.to = toText(hb.state);
                const RayNode *n = node(hb.rayNode);
                QString detail;
                switch (hb.state) {
                case HostState::Dead:
                    if (removed) {
                        ev.text = ev.subject + QStringLiteral(" is being removed");
                        detail = QStringLiteral("pod %1 is being deleted").arg(going->qualifiedName());
                        break;
                    }
                    ev.text = ev.subject + QStringLiteral(" died");
                    if (going && going->isGone())
                        detail = QStringLiteral("pod %1 %2").arg(going->qualifiedName(), going->lifecycleText());
                    else if (n)
                        detail = QStringLiteral("Ray node %1 (%2)%3").arg(shortId(n->id), n->ip, n->stateMessage.isEmpty() ? QString() : QStringLiteral(": ") + n->stateMessage);
                    break;
                case HostState::Alive:
                    ev.text = ev.subject + QStringLiteral(" is up");
                    if (n && ha->rayNode != hb.rayNode)
                        detail = QStringLiteral("new Ray node %1 (%2)").arg(shortId(n->id), n->ip);
                    break;
                case HostState::Missing:
                    ev.text = ev.subject + QStringLiteral(" is missing: no Ray node or pod reports it");
                    break;
                case HostState::Pending:
                    ev.text = ev.subject + QStringLiteral(" is pending");
                    detail = workerProblem(*b, hb.workerId);
                    break;
                }
                if (!detail.isEmpty())
                    ev.text += QStringLiteral(" (") + detail + u')';
            });
        }
        const SliceStatus from = a->status(), to = b->status();
        if (from != to) {
            w.add(HistoryEventKind::SliceStatusChanged, b->name, {}, [&](HistoryEvent &ev) {
                ev.subject = b->name;
                ev.from = toText(from);
                ev.to = toText(to);
                ev.text = QStringLiteral("%1 became %2").arg(b->name, sliceStatusText(*b));
            });
        }
    });

    forEachChange(e.rayNodes, before, handles, [&](const RayNode *a, const RayNode *b) {
        if (!b || !b->sliceName.isEmpty() || (a && !a->sliceName.isEmpty()))
            return; // slice hosts speak through their slice; a dead node purged from the list is no news
        const bool wasAlive = a && a->alive;
        if (wasAlive == b->alive || (!a && !b->alive))
            return;
        const QString subject = QStringLiteral("Ray node %1 (%2)").arg(b->ip, shortId(b->id));
        w.add(b->alive ? HistoryEventKind::RayNodeUp : HistoryEventKind::RayNodeDied, {}, {}, [&](HistoryEvent &ev) {
            ev.subject = subject;
            ev.from = a ? (a->alive ? QStringLiteral("ALIVE") : QStringLiteral("DEAD")) : QString();
            ev.to = b->alive ? QStringLiteral("ALIVE") : QStringLiteral("DEAD");
            ev.text = b->alive ? (a ? subject + QStringLiteral(" is alive again") : subject + QStringLiteral(" joined"))
                               : subject + QStringLiteral(" died") + (b->stateMessage.isEmpty() ? QString() : QStringLiteral(": ") + b->stateMessage);
        });
    });

    forEachChange(e.placementGroups, before, handles, [&](const PlacementGroup *a, const PlacementGroup *b) {
        const PlacementGroup &any = b ? *b : *a;
        const QString slice = any.slices.value(0);
        auto on = [](const PlacementGroup &g) {
            return g.slices.isEmpty() ? QString() : QStringLiteral(" on ") + g.slices.join(QStringLiteral(", "));
        };
        auto why = [](const PlacementGroup &g) {
            return g.state == QLatin1String("PENDING") && !g.schedulingState.isEmpty() ? QStringLiteral(" (") + g.schedulingState + u')' : QString();
        };
        if (!a) {
            w.add(HistoryEventKind::PlacementGroupAdded, slice, b->id, [&](HistoryEvent &ev) {
                ev.subject = placementGroupLabel(*b);
                ev.to = b->state;
                ev.text = QStringLiteral("placement group %1 appeared: %2%3%4").arg(ev.subject, b->state, why(*b), on(*b));
            });
        } else if (!b) {
            w.add(HistoryEventKind::PlacementGroupRemoved, slice, a->id, [&](HistoryEvent &ev) {
                ev.subject = placementGroupLabel(*a);
                ev.from = a->state;
                ev.text = QStringLiteral("placement group %1 was removed (it was %2%3)").arg(ev.subject, a->state, on(*a));
            });
        } else if (a->state != b->state) {
            w.add(HistoryEventKind::PlacementGroupStateChanged, slice, b->id, [&](HistoryEvent &ev) {
                ev.subject = placementGroupLabel(*b);
                ev.from = a->state;
                ev.to = b->state;
                ev.text = QStringLiteral("placement group %1: %2 → %3%4%5").arg(ev.subject, a->state, b->state, why(*b), on(*b));
            });
        }
    });

    forEachChange(e.pods, before, handles, [&](const Pod *a, const Pod *b) {
        const Pod &any = b ? *b : *a;
        const QString name = any.qualifiedName();
        if (!a) {
            w.add(HistoryEventKind::PodAdded, b->replicaKey, {}, [&](HistoryEvent &ev) {
                ev.subject = name;
                ev.to = b->phase;
                ev.text = QStringLiteral("pod %1 appeared: %2").arg(name, b->phase.isEmpty() ? QStringLiteral("(no phase)") : b->phase);
            });
        } else if (!b) {
            w.add(HistoryEventKind::PodRemoved, a->replicaKey, {}, [&](HistoryEvent &ev) {
                ev.subject = name;
                ev.from = a->phase;
                ev.text = QStringLiteral("pod %1 was deleted (it was %2)").arg(name, a->phase.isEmpty() ? QStringLiteral("without a phase") : a->phase);
            });
        } else if (a->phase != b->phase) {
            w.add(HistoryEventKind::PodPhaseChanged, b->replicaKey, {}, [&](HistoryEvent &ev) {
                ev.subject = name;
                ev.from = a->phase;
                ev.to = b->phase;
                ev.text = QStringLiteral("pod %1: %2 → %3").arg(name, a->phase, b->phase);
            });
        }
    });
}

} // namespace

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

QList<HistoryEvent> SnapshotHistory::events(int index) const
{
    return events(index, index);
}

QList<HistoryEvent> SnapshotHistory::events(int first, int last, const HistoryEventFilter &filter) const
{
    QList<HistoryEvent> out;
    first = std::max(first, 1); // the oldest entry has nothing kept to compare with
    last = std::min(last, size() - 1);
    if (first > last)
        return out;
    // The lists of the entry before `first`, then moved on entry by entry.
    Before before;
    int key = first - 1;
    while (!d->entries[size_t(key)].keyframe)
        --key;
    d->forEachColumn([&](const auto &c, auto member) {
        before.lists[std::remove_reference_t<decltype(c)>::kind] = Private::versions(d->entries, key, first - 1, member);
    });
    std::vector<const VersionHeader *> scratch;
    for (int i = first; i <= last; ++i) {
        const Entry &e = d->entries[size_t(i)];
        writeEvents(e, before, filter, out);
        if (i == last)
            break;
        d->forEachColumn([&](const auto &c, auto member) {
            Private::advance(before.lists[std::remove_reference_t<decltype(c)>::kind], e.*member, e.keyframe, scratch);
        });
        before.invalidate();
    }
    return out;
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

QString toText(HistoryEventKind kind)
{
    switch (kind) {
    case HistoryEventKind::RayClusterAdded: return QStringLiteral("raycluster-added");
    case HistoryEventKind::RayClusterRemoved: return QStringLiteral("raycluster-removed");
    case HistoryEventKind::RayClusterStateChanged: return QStringLiteral("raycluster-state-changed");
    case HistoryEventKind::WorkerGroupAdded: return QStringLiteral("worker-group-added");
    case HistoryEventKind::WorkerGroupRemoved: return QStringLiteral("worker-group-removed");
    case HistoryEventKind::WorkerGroupScaled: return QStringLiteral("worker-group-scaled");
    case HistoryEventKind::SliceAdded: return QStringLiteral("slice-added");
    case HistoryEventKind::SliceRemoved: return QStringLiteral("slice-removed");
    case HistoryEventKind::SliceStatusChanged: return QStringLiteral("slice-status-changed");
    case HistoryEventKind::HostDied: return QStringLiteral("host-died");
    case HistoryEventKind::HostRemoved: return QStringLiteral("host-removed");
    case HistoryEventKind::HostUp: return QStringLiteral("host-up");
    case HistoryEventKind::HostMissing: return QStringLiteral("host-missing");
    case HistoryEventKind::HostPending: return QStringLiteral("host-pending");
    case HistoryEventKind::RayNodeDied: return QStringLiteral("ray-node-died");
    case HistoryEventKind::RayNodeUp: return QStringLiteral("ray-node-up");
    case HistoryEventKind::PlacementGroupAdded: return QStringLiteral("placement-group-added");
    case HistoryEventKind::PlacementGroupStateChanged: return QStringLiteral("placement-group-state-changed");
    case HistoryEventKind::PlacementGroupRemoved: return QStringLiteral("placement-group-removed");
    case HistoryEventKind::PodAdded: return QStringLiteral("pod-added");
    case HistoryEventKind::PodRemoved: return QStringLiteral("pod-removed");
    case HistoryEventKind::PodPhaseChanged: return QStringLiteral("pod-phase-changed");
    }
    Q_UNREACHABLE();
}

QDebug operator<<(QDebug debug, HistoryEventKind kind)
{
    QDebugStateSaver saver(debug);
    debug.noquote() << toText(kind);
    return debug;
}

QDebug operator<<(QDebug debug, const HistoryEvent &event)
{
    QDebugStateSaver saver(debug);
    debug.nospace().noquote() << "HistoryEvent(" << event.serial << ", " << toText(event.kind) << ", " << event.text << ')';
    return debug;
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
