// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The seam through which widgets ask for changes to a cluster (reserve slices, release a
// placement group) without knowing who carries them out. It lives in model/ because both sides
// need it and it does no I/O itself: backend/ implements it (the demo simulator, live Ray through
// a job), app/ picks the implementation for the source, widgets only call it and listen.

#include "planner.h"
#include "scaleplan.h"
#include "snapshot.h"

#include <QObject>
#include <QString>

namespace slicescope {

// A slice placement group as an operator composes it (the composer, the demo, the live path).
struct SlicePlacementRequest {
    QString accelerator;          // "v6e", "TPU-V6E"...: any spelling tpu::findGeneration() accepts
    QString topology;             // "4x4"
    int numSlices = 1;
    QString name;                 // placement group name; required
    bool detached = false;
    double cpuPerBundle = 1;      // bundle = {CPU, TPU}
    int tpuPerBundle = 0;         // 0: the host's chips (what slice_placement_group asks for)
    int chipsPerVm = 0;           // 0: Ray's default for the shape (chips_per_vm not sent)
    QString strategy = QStringLiteral("SPREAD");
    int timeoutSeconds = 20;      // how long the driver waits for the reservation
    QString rayCluster;           // the RayCluster ("ns/name") whose Ray makes it, in a view of several (issue 16)
    QString context;              // and its Kubernetes context, in a fleet of several
    friend bool operator==(const SlicePlacementRequest &, const SlicePlacementRequest &) = default;
};

// The planner's question for this request: the same shape, bundles and strategy Ray is sent.
inline PlanRequest planRequestFor(const SlicePlacementRequest &r)
{
    return PlanRequest{r.accelerator, r.topology, r.numSlices, r.tpuPerBundle, r.chipsPerVm, r.strategy, r.cpuPerBundle, r.rayCluster, r.context};
}

class ClusterActions : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;

    // Empty when this source can change its cluster; otherwise why it cannot (a capture file).
    virtual QString unavailableReason() const = 0;
    // What will run for this request, for people to read before they confirm: the job, its
    // entrypoint and the request exactly as the driver receives it.
    virtual QString describeSubmission(const SlicePlacementRequest &request) const = 0;
    // How this group would be released (stop its job, or a removal job), for the confirmation.
    virtual QString describeRelease(const ClusterSnapshot &snapshot, const PlacementGroup &group) const = 0;
    // Whether SliceScope created the group; others need a stronger confirmation to release.
    virtual bool createdBySliceScope(const ClusterSnapshot &snapshot, const PlacementGroup &group) const = 0;

    // Each starts an action under the caller's `actionId` and returns at once. Signals for it
    // arrive later from the event loop, never from inside the call, so a caller can connect or
    // record state after calling.
    virtual void submitSlicePlacementGroup(const QString &actionId, const SlicePlacementRequest &request) = 0;
    virtual void releasePlacementGroup(const QString &actionId, const QString &nameOrId, bool force) = 0;

    // Scaling KubeRay worker groups (docs/facts.md 4.1). Empty when `group` may be scaled from here;
    // else why not, in words for a disabled control's tooltip: "a capture file cannot be changed",
    // "your Kubernetes user may not patch rayclusters.ray.io in namespace x (RBAC)", "checking
    // permissions...". availabilityChanged() says when the answer may have changed.
    virtual QString scaleUnavailableReason(const WorkerGroup &group) const
    {
        Q_UNUSED(group);
        return tr("this source cannot scale worker groups");
    }
    // Carries out a plan made with planScale() on the snapshot the operator looked at. Progress
    // and the outcome come as actionProgress / actionFinished; when someone else changed the group
    // in between, actionConflict comes instead of actionFinished and nothing was written.
    virtual void scaleWorkerGroup(const QString &actionId, const ScalePlan &plan)
    {
        const QString reason = scaleUnavailableReason(plan.group);
        QMetaObject::invokeMethod(this, [this, actionId, reason] { Q_EMIT actionFinished(actionId, false, reason); }, Qt::QueuedConnection);
    }

Q_SIGNALS:
    // A step of the action, as observed: "job RUNNING", "head reservation 1 of 2 pending"...
    void actionProgress(const QString &actionId, const QString &text);
    // The action now runs as the Ray job `submissionId` (live Ray only): the window tails its
    // log, so the driver's own words are in sight while Ray reserves.
    void actionJobSubmitted(const QString &actionId, const QString &submissionId);
    // The outcome observed, or the failure with the job's own message.
    void actionFinished(const QString &actionId, bool ok, const QString &message);
    // The group changed between the preview and the patch (a failed JSON Patch test, 409): nothing
    // was written; `changes` says what differs ("replicas 2 -> 3"). Re-plan on the newest
    // snapshot and ask the operator again.
    void actionConflict(const QString &actionId, const QStringList &changes, const QString &message);
    // scaleUnavailableReason() may answer differently now (an RBAC check came back).
    void availabilityChanged();
};

} // namespace slicescope
