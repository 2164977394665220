// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The what-if planner: would a slice placement group of this shape fit right now, which slices
// would it take, and if not, what a person can do about it.

#include "snapshot.h"

namespace slicescope {

struct PlanRequest {
    QString accelerator;   // any spelling findGeneration() accepts: "v6e", "TPU-V6E", "tpu7x"...
    QString topology;      // "4x4", "2x2x2"
    int numSlices = 1;
    // What slice_placement_group's resources_per_bundle and chips_per_vm will say (Ray 2.60,
    // ray/util/tpu.py get_tpu_worker_resources): 0 leaves each to Ray's default, which is the
    // host's chips per bundle and get_chips_per_host() (8 for a v5e/v6e 2x4, else 4 or fewer).
    int tpuPerBundle = 0;
    int chipsPerVm = 0;
    QString strategy = QStringLiteral("SPREAD"); // PACK, SPREAD, STRICT_PACK, STRICT_SPREAD
    double cpuPerBundle = 1;       // resources_per_bundle.CPU (Ray's default 1); checked against hosts' CPU totals
    // In a view of several RayClusters (issue 16): only the slices and worker groups of this one
    // ("ns/name", and its context in a fleet) can take the request. Empty: the planner plans in
    // each Ray cluster on its own and answers for one (PlanResult::rayCluster says which): a
    // placement group lives in one Ray cluster, so its slices never come from two (issue 31).
    QString rayCluster;
    QString context;
};

// One Ray cluster holding slices of the requested shape, and what it alone could give.
struct ClusterFit {
    QString context;       // its Kubernetes context; empty when the capture does not say
    QString rayCluster;    // "ns/name"; empty when the capture does not say
    QStringList candidates; // its ready slices of the shape, in name order
    bool feasible = false; // it alone holds numSlices of them
    friend bool operator==(const ClusterFit &, const ClusterFit &) = default;
};

// How much a worker group could grow to help.
struct GroupGrowth {
    QString workerGroup;   // ns/cluster/group
    int replicas = 0;
    int maxReplicas = 0;
    int canAdd = 0;
    bool autoscaling = false;
    bool suspended = false;
    friend bool operator==(const GroupGrowth &, const GroupGrowth &) = default;
};

struct PlanResult {
    QString requestError;          // non-empty: the request itself is invalid (bad accelerator or topology)
    const tpu::Generation *generation = nullptr;
    tpu::Topology topology;
    QString podType;
    int numSlices = 1;
    int hostsPerSlice = 0;         // chips / chipsPerHost, as Ray counts them (at least 1)
    int chipsPerHost = 0;          // chips per VM: the request's chipsPerVm, or Ray's default
    int tpuPerBundle = 0;          // TPU in each bundle: the request's, or chipsPerHost
    int bundlesPerSlice = 0;       // chips / tpuPerBundle
    double cpuPerBundle = 1;
    QString strategy;
    bool singleHost = false;       // chips <= chipsPerHost: Ray reserves no head and pins no slice
    bool feasible = false;
    QStringList candidates;        // every ready slice of that shape, in name order
    QStringList wouldTake;         // the first numSlices candidates
    QStringList reasons;           // when infeasible: sentences a person can act on
    QList<GroupGrowth> growth;     // worker groups that make slices of this shape
    QStringList notes;             // true either way, worth knowing before submitting
    // The Ray cluster this plan is for (issue 31): the one the request names; else the first (in
    // name order) where the request fits; else the one with the most ready slices of the shape.
    // Empty when the capture does not name it (one Ray, no RayCluster known).
    QString rayCluster;
    QString context;
    // Every Ray cluster with slices of the shape, in name order, each planned on its own.
    QList<ClusterFit> clusters;
    int bundles() const { return bundlesPerSlice * numSlices; }
};

// What Ray will reserve per bundle, for people: "16 bundles x {CPU: 1, TPU: 1} on v6e-4x4-1".
QString describeBundles(const PlanResult &plan);

// "RayCluster ns/name" (with " (context C)" when `withContext`), or "the Ray cluster" unnamed.
QString describeRayCluster(const QString &context, const QString &rayCluster, bool withContext);
// The cluster a plan is for, for people: "RayCluster ns/name (context C)"; empty when unnamed.
// The context is said when the plan's clusters span several contexts or the request named one.
QString planClusterText(const PlanResult &plan);

PlanResult planSlicePlacement(const ClusterSnapshot &snapshot, const PlanRequest &request);

} // namespace slicescope
