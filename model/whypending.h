// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Why a placement group is PENDING, in one place: Ray's own scheduling state, the planner's
// answer for the slice shape the group asks for, and the autoscaler's status text.

#include "planner.h"
#include "snapshot.h"

namespace slicescope {

struct PendingExplanation {
    QString schedulingState;     // stats.scheduling_state, as Ray reports it
    QString schedulingMeaning;   // what that state means, in words
    QList<PlanRequest> shapes;   // the slice shapes its bundles ask for (empty: not a TPU slice group)
    QList<PlanResult> plans;     // the planner's answer for each shape
    QString autoscalerStatus;    // `ray status`, verbatim
    QString toText() const;      // all of the above, for people
};

// The slice shape a group asks for comes from its bundles: a head resource
// TPU-<pod-type>-head, or a ray.io/tpu-slice-name selector naming a known slice.
PendingExplanation explainPendingGroup(const ClusterSnapshot &snapshot, const PlacementGroup &group);

} // namespace slicescope
