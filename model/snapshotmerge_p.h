// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Snapshots of several scopes (a RayCluster's Ray view with its pods; a Kubernetes context) made
// one (issue 16; model/snapshotmerge.cpp). For buildSnapshot() only.

#include "snapshot.h"

#include <QDateTime>
#include <QList>

namespace slicescope {

// Every list of every part, in part order, with the indices between them moved along. Kubernetes
// nodes repeat across the scopes of one context and are kept once per context. A slice name that
// another part also has is qualified ("ns/cluster/name", then "context:ns/cluster/name"), its Ray
// name kept in Slice::rayName, so names that repeat across clusters never merge. Errors and
// warnings of several scopes name their scope. Activity tables are carried chip by chip.
SnapshotPtr mergeSnapshots(const QList<SnapshotPtr> &parts, const QDateTime &capturedAt);

} // namespace slicescope
