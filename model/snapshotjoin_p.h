// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The joiner's entry point (model/snapshotjoin.cpp), for buildSnapshot().

#include "snapshot.h"

#include <QList>
#include <QString>

namespace slicescope {

// Joins what the readers put in `s` (Ray nodes, placement groups, pods, Kubernetes nodes, worker
// groups) into its slices. `rayNodesRead`/`podsRead`: whether those bodies parsed (an absent body
// says nothing about what exists); `podReplicaKeys`: per pod in s.pods, the key that groups the
// pods of one replica (docs/facts.md 4).
void joinSnapshot(ClusterSnapshot &s, bool rayNodesRead, bool podsRead, const QList<QString> &podReplicaKeys);

} // namespace slicescope
