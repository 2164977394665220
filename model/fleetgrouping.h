// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The fleet overview's content without a widget: every slice of a snapshot as an entry carrying
// what its tile says (shape line, note, holders) and the text the filter searches
// (model/fleetfilter.h), grouped by generation and worker group in display order. Computed once
// per snapshot; painting and filtering only read it.

#include "fleetstats.h"
#include "snapshot.h"

#include <QList>
#include <QString>

namespace slicescope {

// One slice and what its tile shows.
struct FleetEntry {
    int slice = -1; // index into ClusterSnapshot::slices
    int group = -1; // index into FleetGrouping::groups
    SliceStatus status = SliceStatus::Ready;
    SliceUse use = SliceUse::Ready;
    int chips = 0, reserved = 0, down = 0, stranded = 0; // down: free chips on hosts that are not up
    QString shapeText;  // "4x4 · 4 hosts × 4 chips"
    QString note;       // the tile's last line
    QString noteSuffix; // kept when the note elides: " (+3 more)"
    QString holders;    // "llm-train (16 chips)", for the tooltip
    QString haystack;   // lower case: what the filter searches (fleetSearchText)
};

// The slices of one generation and worker group.
struct FleetGroup {
    QString title;      // "v6e · ml/tpu-team/v6e-4x4"
    int rank = 0;       // tpu::generationOrder
    QString workerGroup;
    QString context, rayCluster; // the fleet identity of its slices (issue 16)
    QList<int> entries; // all of its slices (indexes into FleetGrouping::entries), in name order
    int chips = 0, reserved = 0, ready = 0;
};

struct FleetGrouping {
    QList<FleetEntry> entries; // one per slice, in the snapshot's order
    // Generation display order, then worker group in natural name order, slices without one last.
    QList<FleetGroup> groups;
};

FleetGrouping groupFleet(const ClusterSnapshot &snapshot);

// The words a slice is shown and found by, with their fallbacks.
QString fleetGenerationName(const Slice &slice); // "v6e", or "unknown generation"
QString fleetTopologyText(const Slice &slice);   // "4x4", or "topology unknown"
QString fleetWorkerGroupText(const Slice &slice); // "ml/tpu-team/v6e-4x4", or "no worker group"

} // namespace slicescope
