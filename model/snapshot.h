// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The joined, immutable picture of a cluster at one moment: Ray nodes, Kubernetes pods and
// nodes, TPU slices down to chips, placement groups, worker groups. Built only by
// buildSnapshot(); shared read-only (SnapshotPtr) by item models, views and verbs.

#include "activity.h"
#include "capture.h"
#include "tpu.h"

#include <QDateTime>
#include <QHash>
#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>

#include <memory>

class QDebug;

namespace slicescope {
// Registers the enums below with the meta-object system, so QTest and QDebug print them by name.
Q_NAMESPACE

enum class HostState
{
    Alive,
    Dead,
    Pending,
    Missing
};
Q_ENUM_NS(HostState)
// The contract spellings ("ALIVE", "DEAD", "PENDING", "MISSING"). Named toText, not toString,
// so QTest's toString() overloads still find the enum by argument-dependent lookup.
QString toText(HostState state);

// Where a slice is known from.
enum class SliceSource
{
    Ray,
    Kubernetes,
    Both
};
Q_ENUM_NS(SliceSource)
QString toText(SliceSource source); // "ray", "kubernetes", "both"

// What an operator wants to know first about a slice. Derived from intactness and occupancy.
enum class SliceStatus
{
    Ready,        // intact, nothing reserved: a slice placement group can take it
    Reserved,     // intact, some or all chips (or the head resource) held
    Degraded,     // a host is dead or missing, or the chip count does not add up
    Provisioning, // hosts still pending (pods not running or Ray not joined yet)
};
Q_ENUM_NS(SliceStatus)
QString toText(SliceStatus status); // "ready", "reserved", "degraded", "provisioning"

enum class PlacementGroupKind
{
    SliceHead, // claims one slice's TPU-<pod-type>-head resource (step 1 of a slice placement group)
    Slice,     // every bundle pinned to a slice by ray.io/tpu-slice-name
    Other,
};
Q_ENUM_NS(PlacementGroupKind)
QString toText(PlacementGroupKind kind); // "slice-head", "slice", "other"

struct RayNode {
    QString id;              // node_id, hex; the only key (several nodes may share an IP)
    QString ip;
    QString name;
    bool isHead = false;
    bool alive = false;
    QString stateMessage;
    double tpu = 0;          // resources_total.TPU
    double cpu = 0;
    bool hasSliceHeadResource = false; // TPU-<pod-type>-head: worker 0 only
    // Default TPU labels (docs/facts.md 2.1); empty when absent.
    QString sliceName;
    QString podType;
    QString topology;
    QString acceleratorType;
    QString nodeGroup;
    QStringList subslices;   // ray.io/tpu-subslice-<shape> labels as "<shape>=<value>" (docs/facts.md 2.4)
    int workerId = -1;
    qint64 startTimeMs = 0;
    qint64 endTimeMs = 0;
    // Why a TPU value of this node is out of range (model/inputlimits.h), e.g. "TPU 1e+30 is outside
    // 0..128"; the value is not taken and the node's slice is unrecognised. Empty when all is well.
    QString unrecognised;
    QString rayCluster;      // "namespace/name" of the RayCluster whose dashboard listed it, when known (issue 16)
    friend bool operator==(const RayNode &, const RayNode &) = default;
};

struct Pod {
    QString ns;
    QString name;
    QString phase;           // Pending, Running, Succeeded, Failed, Unknown
    QString reason;          // status.reason ("Evicted", "Terminated"...)
    QString message;         // status.message, cut to a few hundred characters
    bool ready = false;
    bool terminating = false; // metadata.deletionTimestamp is set
    QString created;         // metadata.creationTimestamp (RFC 3339, compared as text)
    QString podIp;
    QString nodeName;        // spec.nodeName
    QString cluster;         // ray.io/cluster
    QString group;           // ray.io/group
    bool isHead = false;
    QString replicaKey;      // what groups this pod into a slice (replica name, replicaIndex, TPU_NAME)
    QString tpuName;         // env TPU_NAME
    int hostIndex = -1;      // ray.io/replica-host-index, else env TPU_WORKER_ID
    int tpuChips = 0;        // google.com/tpu request (or limit)
    QString accelerator;     // nodeSelector cloud.google.com/gke-tpu-accelerator
    QString topology;        // nodeSelector cloud.google.com/gke-tpu-topology
    QStringList megascale;   // the multislice env the webhook injects: "MEGASCALE_NUM_SLICES=2", ...
    QString unrecognised;    // why a TPU value of this pod is out of range (its slice is unrecognised)
    QString qualifiedName() const { return ns + u'/' + name; }
    // Failed or Succeeded (evicted, shut down with its node...) or being deleted: this pod's host is
    // gone or going and never comes back as it was (docs/facts.md 4.5).
    bool isGone() const
    {
        return terminating || phase == QLatin1String("Failed") || phase == QLatin1String("Succeeded");
    }
    // "Failed: Evicted: The node was low on resource: memory." / "being deleted"
    QString lifecycleText() const;
    // What the pod's status says, without its phase: "Evicted: The node was low on resource:
    // memory.", either part alone, or empty.
    QString statusText() const;
    friend bool operator==(const Pod &, const Pod &) = default;
};

struct KubeNode {
    QString name;
    QString accelerator;     // cloud.google.com/gke-tpu-accelerator
    QString topology;        // cloud.google.com/gke-tpu-topology
    QString nodePool;        // cloud.google.com/gke-nodepool
    int tpuCapacity = 0;
    bool ready = false;
    friend bool operator==(const KubeNode &, const KubeNode &) = default;
};

// Which placement-group bundle holds one chip (indices into ClusterSnapshot lists).
struct ChipUse {
    int placementGroup = -1;
    int bundleIndex = -1;
    friend bool operator==(const ChipUse &, const ChipUse &) = default;
};

struct Host {
    int workerId = 0;
    HostState state = HostState::Missing;
    int rayNode = -1;        // index into ClusterSnapshot::rayNodes
    int pod = -1;            // index into ClusterSnapshot::pods
    int kubeNode = -1;       // index into ClusterSnapshot::kubeNodes
    int reportedChips = 0;   // TPU the host reports (Ray resources_total, else the pod's request)
    QList<ChipUse> chips;    // in chip order; chip i sits at layout.chipPosition(workerId, i); empty when
                             // the slice cannot be laid out (no chip is ever given a guessed position)
    int unplacedReservedChips = 0; // TPU bundles hold on a host whose chips cannot be laid out
    int reservedChips() const;
    friend bool operator==(const Host &, const Host &) = default;
};

struct Slice {
    QString name;                                // unique in a snapshot; "NAME (2)" when hosts share NAME
    QString rayName;                             // the shared ray.io/tpu-slice-name when split, else empty
    const tpu::Generation *generation = nullptr; // null when no label names one
    tpu::Topology topology;                      // chips() == 0 when unknown
    QString podType;
    int chipsPerHost = 0;                        // physical chips
    int tpuPerChip = 1;                          // Ray TPU units per chip (RAY_TPU_RESOURCE_PER_CHIP)
    tpu::SliceLayout layout;                     // invalid when the shape is unknown
    SliceSource source = SliceSource::Ray;
    QString workerGroup;                         // "ns/cluster/group" or empty
    QList<Host> hosts;                           // by worker id, 0..hostCount-1 (plus strays)
    bool intact = false;
    int reservedChips = 0;
    int headHeldBy = -1;                         // placement group holding TPU-<pod-type>-head
    QStringList problems;                        // why it is not intact, in words
    QString unknownGeneration;                   // the pod type / accelerator text no generation matched
    // Why the slice cannot be recognised: a member reports a value out of range (model/inputlimits.h),
    // e.g. "Ray node 1a2b3c: worker id 9999 is beyond the 2304 hosts of any TPU slice". Such a
    // slice is never intact; the offending value is left out, never used to size anything.
    QString unrecognised;
    // Identity in a fleet (issue 16): the Kubernetes context and the RayCluster ("namespace/name")
    // the slice belongs to; empty when the capture does not say.
    QString context;
    QString rayCluster;

    int hostCount() const { return int(hosts.size()); }
    int chips() const { return topology.chips(); }
    bool isReady() const { return intact && reservedChips == 0 && headHeldBy < 0; }
    SliceStatus status() const;
    friend bool operator==(const Slice &, const Slice &) = default;
};

struct Bundle {
    int index = 0;
    QString nodeId;          // empty while unplaced
    int rayNode = -1;
    int slice = -1;          // index into ClusterSnapshot::slices
    int workerId = -1;
    int tpu = 0;
    double cpu = 0;
    QString selectorSlice;   // label_selector ray.io/tpu-slice-name, if any
    QString headResource;    // "TPU-v6e-16-head" when this bundle claims a slice head
    friend bool operator==(const Bundle &, const Bundle &) = default;
};

struct PlacementGroup {
    using Kind = PlacementGroupKind;
    QString id;
    QString name;
    QString state;           // PENDING, PREPARED, CREATED, RESCHEDULING (REMOVED ones are dropped)
    QString creatorJobId;
    QString schedulingState; // stats.scheduling_state
    bool detached = false;
    Kind kind = Kind::Other;
    QList<Bundle> bundles;
    QStringList slices;      // slices its placed bundles occupy, by name, sorted
    // slice_placement_group(pg_per_slice=True) makes "<name>_slice_<i>", one group per slice: the
    // reservation's <name> and how many of its groups the snapshot has; empty/0 otherwise.
    QString reservation;
    int reservationSize = 0;
    QString context;         // identity in a fleet (issue 16): the context and RayCluster of its Ray
    QString rayCluster;
    // How the UI names the group in a list, legend or sentence: its name, else the first 12
    // characters of its id (Ray's ids are 36 hex digits; 12 tell them apart in one cluster).
    // Where an id must be exact (scale --json, actions, the relay) the id itself is used.
    QString displayLabel() const { return name.isEmpty() ? id.left(kDisplayIdChars) : name; }
    static constexpr int kDisplayIdChars = 12;
    friend bool operator==(const PlacementGroup &, const PlacementGroup &) = default;
};

struct WorkerGroup {
    QString ns;
    QString cluster;
    QString group;
    int replicas = 0;
    int minReplicas = 0;
    int maxReplicas = 0;
    int numOfHosts = 1;
    QString accelerator;     // GKE accelerator label from the pod template's nodeSelector
    QString topology;
    int chipsPerHost = 0;    // google.com/tpu per pod
    bool autoscaling = false;
    bool suspended = false;
    QStringList workersToDelete;
    QStringList slices;      // sorted by replica order
    int specIndex = -1;      // position in spec.workerGroupSpecs (a JSON Patch path needs it)
    bool replicasSet = true; // spec names replicas (else KubeRay takes minReplicas)
    QString context;         // the Kubernetes context it was read from (issue 16)
    QString qualifiedCluster() const { return ns + u'/' + cluster; }
    QString qualifiedName() const { return ns + u'/' + cluster + u'/' + group; }
    // Unique in a fleet, where the same ns/cluster/group can be in several contexts: "context:ns/
    // cluster/group" (the form a fleet's slice names take), "ns/cluster/group" without a context.
    QString fleetKey() const { return context.isEmpty() ? qualifiedName() : context + u':' + qualifiedName(); }
    bool isTpu() const { return !accelerator.isEmpty() || chipsPerHost > 0; }
    friend bool operator==(const WorkerGroup &, const WorkerGroup &) = default;
};

struct RayClusterInfo {
    QString ns;
    QString name;
    QString state;
    QString headServiceName;
    qint64 generation = 0;
    qint64 observedGeneration = 0;
    QString resourceVersion;
    bool autoscaling = false;
    QString context;         // the Kubernetes context it was read from (issue 16)
    friend bool operator==(const RayClusterInfo &, const RayClusterInfo &) = default;
};

struct Job {
    QString submissionId;
    QString jobId;
    QString status;
    QString entrypoint;
    QString message;
    qint64 startTimeMs = 0;
    qint64 endTimeMs = 0;
    QString context;         // identity in a fleet (issue 16)
    QString rayCluster;
    friend bool operator==(const Job &, const Job &) = default;
};

// One Ray dashboard the capture asked (issue 16): a RayCluster's own view, reached or not.
struct RayViewState {
    QString context;
    QString cluster;         // "namespace/name"; empty for a dashboard given directly (--ray)
    QString error;           // why its newest poll failed; empty when it answered
    bool answered = false;   // its bodies are in the capture (possibly older, when error is set)
    friend bool operator==(const RayViewState &, const RayViewState &) = default;
};

// One Kubernetes context of a fleet (issue 16) and why it could not be read lately, if so.
struct ContextState {
    QString context;
    QString error;
    friend bool operator==(const ContextState &, const ContextState &) = default;
};

struct ClusterSnapshot {
    QDateTime capturedAt;
    QString rayVersion;            // ray_version from /api/version
    QString kubeContext;
    bool hasRay = false;
    bool hasKubernetes = false;
    QString clusterStatusText;     // `ray status`

    QList<RayNode> rayNodes;
    QList<Pod> pods;
    QList<KubeNode> kubeNodes;
    QList<Slice> slices;           // sorted by name
    QList<PlacementGroup> placementGroups; // as the API listed them, REMOVED dropped
    QList<WorkerGroup> workerGroups;
    QList<RayClusterInfo> rayClusters;
    QList<Job> jobs;
    // The fleet (issue 16): every context the snapshot covers (one for a single-context capture,
    // none when it holds no Kubernetes), and each RayCluster's Ray view with its state.
    QStringList contexts;
    QList<ContextState> contextStates; // per context, its error (a context that answered has none)
    QList<RayViewState> rayViews;
    // Every chip's activity, in this snapshot's slice/host order (model/activity.h); null when the
    // capture holds no activity body (nothing was asked: not "idle").
    std::shared_ptr<const ActivityTable> activity;

    QStringList errors;            // a body that could not be read at all (it was left out whole)
    QStringList warnings;          // items skipped or oddities (truncated lists, unknown labels...)

    int sliceIndex(QStringView name) const;
    int placementGroupIndex(QStringView idOrName) const;
    // A worker group by WorkerGroup::fleetKey(), or by "ns/cluster/group" when exactly one context
    // has it; -1 otherwise (unknown, or in several contexts: planScale() says which).
    int workerGroupIndex(QStringView key) const;
    // The worker group a slice belongs to (its context's), or -1.
    int workerGroupOf(const Slice &slice) const;
    // How the UI names a placement group where a person reads it (details, legends, lists): a named
    // group by its name; an unnamed slice-head reservation by the one named slice group of the same
    // job (and context) on the same slices, "head of NAME (ID)"; another unnamed group by its kind,
    // job and id, "unnamed slice head, job J (ID)". ID is displayLabel()'s 12 characters.
    QString groupLabel(const PlacementGroup &g) const;
    // The named slice group an unnamed slice-head reservation goes with (the rule above), or null
    // when there is none or more than one, or `g` is named or not a slice head.
    const PlacementGroup *headPartner(const PlacementGroup &g) const;
};

using SnapshotPtr = std::shared_ptr<const ClusterSnapshot>;

// The one parser and joiner of captures. Never fails: a body that cannot be read is named in
// `errors` and left out whole; odd items are skipped and named in `warnings`.
SnapshotPtr buildSnapshot(const Capture &capture);

QDebug operator<<(QDebug debug, const Slice &slice);
QDebug operator<<(QDebug debug, const PlacementGroup &group);

} // namespace slicescope

Q_DECLARE_METATYPE(slicescope::SnapshotPtr)
