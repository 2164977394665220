// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Scale rules for KubeRay TPU worker groups (docs/facts.md 4, 4.1): one replica is one slice. Given a
// snapshot and what the operator asks for, says whether it is allowed and what would happen (the
// slices added or removed, the placement groups displaced) and writes the JSON Patch that does it
// without overwriting anyone else's change. Pure: no I/O, so the window, the CLI and the relay
// preview and check exactly the same way.

#include "snapshot.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace slicescope {

struct ScaleRequest {
    enum class Mode
    {
        Replicas,
        Bounds,
        RemoveSlice
    };
    Mode mode = Mode::Replicas;
    QString workerGroup;      // "ns/cluster/group", or WorkerGroup::fleetKey() ("context:ns/cluster/group") in a fleet
    int replicas = 0;         // Mode::Replicas
    int minReplicas = 0;      // Mode::Bounds
    int maxReplicas = 0;
    QString slice;            // Mode::RemoveSlice: the slice's name
    friend bool operator==(const ScaleRequest &, const ScaleRequest &) = default;
};

// One slice a plan removes, as the plan saw it: what the operator reviewed. A removal is carried
// out only while the slice still looks like this (its hosts, state and the placement groups on
// it); a slice that changed or vanished is refused, never swapped for another.
struct SliceTarget {
    QString name;
    QString workerGroup;          // "ns/cluster/group"
    SliceStatus status = SliceStatus::Provisioning;
    QStringList hosts;            // one per host: "worker 0 ALIVE, pod p, Ray node n"
    QStringList pods;             // the pods workersToDelete would name, sorted
    QStringList placementGroups;  // on the slice (name, else id), in the snapshot's order
    friend bool operator==(const SliceTarget &, const SliceTarget &) = default;
};

// `name` in `snapshot` as a SliceTarget; its name is empty when the snapshot has no such slice.
SliceTarget sliceTarget(const ClusterSnapshot &snapshot, const QString &name);

// What differs between `before` and the slice of that name in `now` (an empty `now.name`: it
// vanished), in words: "state ready -> reserved", "worker 1 ALIVE, pod a -> worker 1 DEAD, pod a",
// "placement groups none -> llm-train". Empty when it is the same slice. With `podsOnly`, only the
// pods are compared (a Kubernetes-only read knows nothing of Ray's states).
QStringList sliceTargetChanges(const SliceTarget &before, const SliceTarget &now, bool podsOnly = false);

struct ScalePlan {
    bool allowed = false;
    QString refusal;              // why not, one sentence (exit 1 in the CLI)
    bool noChange = false;        // allowed, but nothing would change
    WorkerGroup group;            // as the snapshot shows it
    int fromReplicas = 0, toReplicas = 0;
    int fromMin = 0, toMin = 0, fromMax = 0, toMax = 0;
    int hostsPerSlice = 1, chipsPerHost = 0;
    int slicesAdded = 0;          // drawn as ghosts
    QStringList slicesRemoved;    // by name, in the order chosen
    QStringList podsToDelete;     // scaleStrategy.workersToDelete: the removed slices' pods
    QStringList displacedGroups;  // placement groups (name, else id) on removed slices
    QList<SliceTarget> removedTargets; // each removed slice as this plan saw it
    QStringList notes;            // things worth saying (autoscaler owns replicas, clamp...)
    QString summary;              // "tpu-team/ray/v6e: 2 -> 3 slices (3 x 4 hosts x 4 chips = 48 chips)"

    // The JSON Patch (application/json-patch+json) for this plan: `test` ops pin what the
    // operator saw (group name at its index, and the values being changed), then the changes.
    QByteArray jsonPatch() const;
    // The patch that clears workersToDelete once those pods are gone (tests it still holds ours).
    QByteArray clearWorkersToDeletePatch() const;
};

// Slices x hosts x chips, e.g. "3 slices x 4 hosts x 4 chips = 48 chips".
QString describeReplicas(int replicas, int hostsPerSlice, int chipsPerHost);

// Checks and previews `request` on `snapshot`. When lowering replicas, SliceScope chooses the
// slices to go (and names their pods in workersToDelete, so KubeRay does not pick at random):
// provisioning or degraded slices first, then ready ones, then reserved ones (whose placement
// groups are named as displaced), each time the highest replica first.
ScalePlan planScale(const ClusterSnapshot &snapshot, const ScaleRequest &request);

// What differs between the group a plan saw and the group in a RayCluster JSON just read ("replicas
// 2 -> 3", "the group at index 1 is now \"cpu\""); empty when nothing that matters changed.
QStringList changedSincePlan(const ScalePlan &plan, const QJsonObject &rayCluster);

// Whether the slices `plan` removes by name (those its workersToDelete names) are still what it
// saw, checked on `newest` right before sending: one line per slice that changed or vanished
// ("v6e-4x4-1 vanished from the cluster", "v6e-4x4-1 changed: state ready -> reserved"); empty
// when the removal may go ahead. Plans that name no pods (scale-ups, the autoscaler's own
// choice) have no target to check. `podsOnly` as in sliceTargetChanges().
QStringList removalTargetChanges(const ScalePlan &plan, const ClusterSnapshot &newest, bool podsOnly = false);

} // namespace slicescope
