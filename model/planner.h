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
    int hostsPerSlice = 0;
    int chipsPerHost = 0;
    bool feasible = false;
    QStringList candidates;        // every ready slice of that shape, in name order
    QStringList wouldTake;         // the first numSlices candidates
    QStringList reasons;           // when infeasible: sentences a person can act on
    QList<GroupGrowth> growth;     // worker groups that make slices of this shape
};

PlanResult planSlicePlacement(const ClusterSnapshot &snapshot, const PlanRequest &request);

} // namespace slicescope
