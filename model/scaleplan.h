// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Scale rules for KubeRay TPU worker groups (FACTS.md 4, 4.1): one replica is one slice. Given a
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
    enum class Mode { Replicas, Bounds, RemoveSlice };
    Mode mode = Mode::Replicas;
    QString workerGroup;      // "ns/cluster/group"
    int replicas = 0;         // Mode::Replicas
    int minReplicas = 0;      // Mode::Bounds
    int maxReplicas = 0;
    QString slice;            // Mode::RemoveSlice: the slice's name
    friend bool operator==(const ScaleRequest &, const ScaleRequest &) = default;
};

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

} // namespace slicescope
