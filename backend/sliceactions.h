// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What `slicescope release-pg`, the window's release and the progress shown while Ray reserves
// have in common, kept in one place so the command line and the window decide alike.

#include "capture.h"
#include "clusteractions.h"
#include "snapshot.h"

#include <QString>

namespace slicescope {

// A placement group about to be released, and who holds it.
struct ReleaseTarget {
    PlacementGroup group;
    QString holderSubmissionId;  // the job that created it, when Ray still lists that job
    QString holderStatus;
    QString holderEntrypoint;
    bool createdBySliceScope = false; // its creator job carries metadata {"slicescope": "slice-pg"}
    bool stopHolder = false;     // release by stopping its (running, non-detached) job; else a removal job
    QString description;         // one line for people: id, name, state, who holds it, slices, bundles
};

// Finds the live group named or with id `wanted` in a capture (`where` names the cluster in
// messages, e.g. "Ray at http://...") and who holds it. Returns an error sentence, or empty.
[[nodiscard]] QString findReleaseTarget(const Capture &capture, const QString &wanted, const QString &where, ReleaseTarget &target);

// The raw state of one group in a GET /api/v0/placement_groups body ("" when it is not listed:
// Ray drops removed groups after a while).
QString rawPlacementGroupState(const QByteArray &placementGroupsBody, const QString &id);

// Whether the job with this job id was submitted by SliceScope to create a slice placement group,
// by its metadata in a GET /api/jobs/ body.
bool jobCreatedBySliceScope(const QByteArray &jobsBody, const QString &jobId);

// Progress of a slice request while Ray reserves it, read from a snapshot: the job's state, then
// how many of its slice-head reservations are placed. Empty when the job is not listed yet.
QString reservationProgress(const ClusterSnapshot &snapshot, const QString &submissionId);

// The last look before a submit is sent: the request planned over the newest snapshot. Empty
// when it still fits; otherwise one line saying why nothing is submitted (an invalid request in
// Ray's words, a name already taken, or the planner's reasons it no longer fits).
QString recheckSubmission(const ClusterSnapshot &newest, const SlicePlacementRequest &request);

struct SlicePgRequest;
// The composer's request as the driver takes it (Ray's accelerator spelling, canonical topology).
SlicePgRequest toSlicePgRequest(const SlicePlacementRequest &request);

// A job's entrypoint and the request its driver receives, as people read it before confirming.
QString describeSliceJob(const SlicePlacementRequest &request, const QString &entrypoint);

} // namespace slicescope
