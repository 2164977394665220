// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// SnapshotHistory: every snapshot a source produced, kept for the charts, the timeline scrubber
// and the events list (ARCHITECTURE.md, "The one data path"). Bounded by age and by an estimate
// of the bytes it holds (HistoryPolicy, shown in settings); the oldest entries go first.
//
// What it answers, none of it by rebuilding snapshots unless asked:
//  - point(i): small aggregates of entry i, computed once when it was added (chips reserved and
//    free per generation, slices by use, placement groups by state and the age of the oldest
//    pending one, worker groups desired vs ready). The charts read these.
//  - events(i): what changed from entry i-1 to entry i (slice became degraded and why, host died,
//    placement group state changed, replicas changed...), in a fixed order, each with what the UI
//    should select when the event is clicked. events(first, last, filter) for a range.
//  - snapshot(i): the whole ClusterSnapshot of entry i, equal to the one added (the newest is the
//    very snapshot added; an older one is rebuilt in some 10-20 ms for a 10k-node cluster).
//
// Structural sharing (why this is not a list of SnapshotPtr): consecutive snapshots mostly repeat
// each other. Each object (Ray node, pod, Kubernetes node, slice, placement group, worker group,
// RayCluster, job) is stored once per version and shared by every entry it is unchanged in; a
// version is a compact encoding (about 50-130 bytes) whose texts are ids into one table, so a
// text repeated by many objects and versions is held once. An entry keeps only the versions new
// in it, the identities of objects gone, and a few bytes saying how to rebuild its lists from the
// entry before; every 128th entry is a keyframe holding one pointer per object. So a snapshot in
// which one host died costs that host's Ray node and slice (a couple of hundred bytes) plus about
// 500 bytes of bookkeeping, not another cluster (tests/model/tst_history.cpp measures it).
// Cross references inside a snapshot (Host::rayNode, ChipUse::placementGroup...) are indexes
// that shift when a list gains or loses an item; they are stored as stable identities and turned
// back into indexes when a snapshot is rebuilt. Every encoding is checked by decoding it before it
// is kept; a value the encoding cannot carry (a field added to snapshot.h and not yet to
// history.cpp) is kept as a plain copy instead, so rebuilt snapshots always equal the originals
// (HistoryMemory::plainVersions counts them; the tests expect none).
//
// Entries are addressed by index (0 = oldest kept, size()-1 = newest), which shifts down when the
// oldest are evicted, or by serial: a number given to each added snapshot that never changes.
// Not thread-safe: use it from one thread (the GUI thread). Snapshots it returns are ordinary
// SnapshotPtr values, independent of the history (they may outlive it) and may go anywhere.

#include "fleetstats.h"
#include "snapshot.h"

#include <QDateTime>
#include <QList>
#include <QMetaType>
#include <QObject>
#include <QString>

#include <memory>

class QDebug;

namespace slicescope {

// How much history to keep. A plain value the settings dialog shows and edits.
struct HistoryPolicy {
    qint64 maxAgeSeconds = 6 * 3600;   // entries older than the newest minus this go; <= 0: no age limit
    qint64 maxBytes = 256LL << 20;     // bound on bytesHeld(); <= 0: no memory limit. A 10k-node
                                       // cluster with 1% changing every 2 s takes ~40 KB a snapshot
    friend bool operator==(const HistoryPolicy &, const HistoryPolicy &) = default;
};

// Placement groups of one entry by state, and how long the oldest PENDING one has waited.
struct PlacementGroupCounts {
    int pending = 0;
    int prepared = 0;
    int created = 0;
    int rescheduling = 0;
    int other = 0;                     // any state Ray adds later
    // Age of the oldest PENDING group at this entry, in ms, counted from the first entry in which
    // the history saw it pending (so at most the age of the history); -1 when none is pending.
    qint64 oldestPendingMs = -1;
    QString oldestPendingId;           // that group's id
    int total() const { return pending + prepared + created + rescheduling + other; }
    friend bool operator==(const PlacementGroupCounts &, const PlacementGroupCounts &) = default;
};

// One worker group at one entry: what KubeRay was asked for against what is up.
struct WorkerGroupPoint {
    QString qualifiedName;             // "ns/cluster/group"
    int desired = 0;                   // spec replicas (slices wanted)
    int minReplicas = 0;
    int maxReplicas = 0;
    int slices = 0;                    // slices of the group present, in any state
    int ready = 0;                     // of those, intact ones (status Ready or Reserved: up and usable)
    friend bool operator==(const WorkerGroupPoint &, const WorkerGroupPoint &) = default;
};

// The aggregates of one entry, computed once when it is added. Everything a chart plots.
struct HistoryPoint {
    qint64 serial = -1;
    QDateTime time;                    // the snapshot's capturedAt
    FleetCounts fleet;                 // the whole fleet: slices by SliceUse, chips reserved/free/stranded
    QList<GenerationStats> generations;// per TPU generation (fleetstats.h order), same counts
    PlacementGroupCounts placementGroups;
    QList<WorkerGroupPoint> workerGroups; // in the snapshot's order
    const GenerationStats *generation(QStringView label) const; // "v6e", or null
    const WorkerGroupPoint *workerGroup(QStringView qualifiedName) const; // or null
    friend bool operator==(const HistoryPoint &, const HistoryPoint &) = default;
};

enum class HistoryEventKind
{
    RayClusterAdded,
    RayClusterRemoved,
    RayClusterStateChanged,     // status.state
    WorkerGroupAdded,
    WorkerGroupRemoved,
    WorkerGroupScaled,          // replicas, minReplicas or maxReplicas changed
    SliceAdded,
    SliceRemoved,
    SliceStatusChanged,         // ready / reserved / degraded / provisioning (SliceStatus)
    HostDied,                   // a slice host became DEAD
    HostUp,                     // a slice host became ALIVE (came back, or was replaced)
    HostMissing,                // a slice host became MISSING (nobody reports that worker)
    HostPending,                // a slice host became PENDING (pod starting, Ray not joined)
    RayNodeDied,                // a Ray node outside any slice (head, CPU worker) became DEAD
    RayNodeUp,                  // ... became ALIVE, or joined alive
    PlacementGroupAdded,
    PlacementGroupStateChanged, // PENDING -> CREATED, CREATED -> RESCHEDULING...
    PlacementGroupRemoved,      // gone from the list (Ray reports it REMOVED, or it was purged)
    PodAdded,
    PodRemoved,
    PodPhaseChanged,
    HostRemoved,                // a slice host became DEAD because its pod is being deleted (scale-down, removal)
};
// "slice-status-changed", "host-died", ...: stable spellings for logs, filters and tests.
QString toText(HistoryEventKind kind);

// One change between two consecutive entries.
struct HistoryEvent {
    qint64 serial = -1;            // the entry it happened in (the later of the two)
    QDateTime time;                // that entry's time
    HistoryEventKind kind = HistoryEventKind::SliceStatusChanged;
    QString subject;               // what changed, as shown: a slice name, "tpu-v6e-3 worker 2",
                                   // a placement group's name or short id, "ns/cluster/group", "ns/pod"
    QString text;                  // one line: "tpu-v6e-3 became degraded: worker 2 is DEAD"
    QString from;                  // the state before ("ready", "PENDING", "2"); empty if it appeared
    QString to;                    // the state after; empty if it went away
    // What the UI selects when the event is clicked (either may be empty).
    QString selectSlice;           // a slice name
    QString selectPlacementGroup;  // a placement group id
    friend bool operator==(const HistoryEvent &, const HistoryEvent &) = default;
};

// Narrows events(first, last, filter) before any text is built; empty members match everything.
struct HistoryEventFilter {
    QString slice;                 // events whose selectSlice is this slice
    QString placementGroup;        // events whose selectPlacementGroup is this id
    QList<HistoryEventKind> kinds;
};

// Where the estimated bytes go (bytesHeld() == total() - versionSlack).
struct HistoryMemory {
    // Stored object versions, each counted once however many entries share it.
    qint64 rayNodes = 0, pods = 0, kubeNodes = 0, slices = 0, placementGroups = 0,
           workerGroups = 0, rayClusters = 0, jobs = 0;
    qint64 objectVersions = 0;     // how many versions are stored (all kinds)
    qint64 changes = 0;            // objects that appeared, changed or went, summed over the entries
    qint64 plainVersions = 0;      // of those, kept as plain copies: a field the compact encoding
                                   // does not carry yet (0 unless snapshot.h grew; see history.cpp)
    qint64 versionSlack = 0;       // room in the versions' memory chunks not in use right now (freed
                                   // versions' blocks, kept for the next ones; never more than was
                                   // once in use); not in bytesHeld(): evicting cannot shrink it
    qint64 texts = 0;              // the table of texts the versions share (each text once)
    qint64 keyframes = 0;          // per-object pointer arrays of keyframe entries
    qint64 deltas = 0;             // per-entry change lists and list-rebuild operations
    qint64 entries = 0;            // per-entry headers, points and top-level texts (warnings...)
    qint64 identities = 0;         // object identities and the newest entry's lists
    qint64 objects() const { return rayNodes + pods + kubeNodes + slices + placementGroups + workerGroups + rayClusters + jobs; }
    qint64 total() const { return objects() + versionSlack + texts + keyframes + deltas + entries + identities; }
};

class SnapshotHistory : public QObject
{
    Q_OBJECT
public:
    explicit SnapshotHistory(QObject *parent = nullptr);
    explicit SnapshotHistory(const HistoryPolicy &policy, QObject *parent = nullptr);
    ~SnapshotHistory() override;

    HistoryPolicy policy() const;
    // Evicts at once when the new bounds are tighter.
    void setPolicy(const HistoryPolicy &policy);

    // Appends a snapshot as the newest entry and returns its serial, then evicts the oldest entries
    // the policy no longer allows (never the newest). Snapshots are expected in time order; age is
    // measured from the newest entry's time. Costs about a quarter of what buildSnapshot() took
    // (12-20 ms for a 10k-node cluster): the unchanged objects are only compared.
    qint64 add(const SnapshotPtr &snapshot);
    void clear();

    int size() const;
    bool isEmpty() const { return size() == 0; }
    qint64 serial(int index) const;
    QDateTime time(int index) const;
    int indexOfSerial(qint64 serial) const;      // -1 when evicted or never added
    // The newest entry at or before `time` (the scrubber's position); 0 when `time` is before every
    // entry, -1 when the history is empty.
    int indexAt(const QDateTime &time) const;

    // Unpacked from a few dozen bytes per entry: cheap, but take it once per entry and redraw.
    HistoryPoint point(int index) const;

    // The whole snapshot of an entry, equal to the one added. The newest is returned as added; an
    // older one is rebuilt from shared parts (well under 50 ms for a 10k-node cluster) and shares
    // its texts with the history, so holding it costs little beyond its lists.
    SnapshotPtr snapshot(int index) const;
    // The chip activity of an entry as it was (null when its capture had none), without rebuilding
    // the snapshot: the charts read its per-slice and per-group summaries.
    std::shared_ptr<const ActivityTable> activity(int index) const;

    // What changed when entry `index` arrived (from index-1 to index), in this order: RayClusters,
    // worker groups, slices (by name; each slice's host events by worker, then its status), Ray
    // nodes outside slices, placement groups, pods; within a kind in list order, removals last.
    // The oldest entry has none (there is nothing kept to compare it with). Costs a few ms: the
    // previous entry's lists are rebuilt to find what each object was.
    QList<HistoryEvent> events(int index) const;
    // Events of entries first..last (inclusive), oldest first, narrowed by `filter`. Walks the
    // entries once: an hour of a busy 10k-node cluster (330k events) takes about a second, half
    // that for one slice's status changes; page through long ranges rather than ask at once.
    QList<HistoryEvent> events(int first, int last, const HistoryEventFilter &filter = {}) const;

    // The estimate of the bytes this history holds (what HistoryPolicy::maxBytes bounds): stored
    // versions and their texts, keyframes, deltas, points, identities. Heap blocks are counted
    // with the allocator's rounding and headers. Not counted: the newest snapshot, shared with the
    // caller (the live view holds it anyway), and HistoryMemory::versionSlack.
    qint64 bytesHeld() const;
    HistoryMemory memory() const;

Q_SIGNALS:
    // Emitted after add(), once eviction is done; the newest entry is index size()-1.
    void entryAdded(qint64 serial);
    // The `count` oldest entries are gone; every index moved down by `count`. Emitted before
    // entryAdded() when an add() evicts.
    void entriesEvicted(int count);
    void cleared();

private:
    struct Private;
    std::unique_ptr<Private> d;
};

QDebug operator<<(QDebug debug, const HistoryEvent &event);
QDebug operator<<(QDebug debug, HistoryEventKind kind);
QDebug operator<<(QDebug debug, const HistoryPoint &point);

} // namespace slicescope

Q_DECLARE_METATYPE(slicescope::HistoryPolicy)
Q_DECLARE_METATYPE(slicescope::HistoryEvent)
Q_DECLARE_METATYPE(slicescope::HistoryPoint)
