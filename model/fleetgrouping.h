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
    QString tileName;   // the slice's name as its tile shows it: without the context and RayCluster its
                        // section and group header already name ("tpu-0" for "gke_us:team-a/llm/tpu-0")
    QString shapeText;  // "4x4 · 4 hosts × 4 chips"
    QStringList shorterShapes; // what a narrow tile shows instead, longest first: "4x4 · 4 hosts", "4x4"
    QString note;       // the tile's last line
    QString noteSuffix; // kept when the note elides: " (+3 more)"
    QString holders;    // "llm-train (16 chips)", for the tooltip
    QString haystack;   // lower case: what the filter searches (fleetSearchText)
};

// The top level of a fleet's overview (issue 16): one context (or, in one context, one RayCluster),
// or one generation when the overview is switched to generation first, with its fleet header's
// figures. A snapshot of one cluster has no section.
struct FleetSection {
    QString key;   // unique: what collapse state and tests name it by ("context\ngke_us", "generation\nv6e")
    QString title; // "gke_us", "RayCluster team-a/llm", "v6e"
    QString down;  // why this context or RayCluster does not answer (its last view is shown); empty when it does
    FleetCounts counts; // its slices, as the fleet summary counts them (model/fleetstats.h)
    QList<int> groups; // indexes into FleetGrouping::groups, in display order
};

// How the overview nests a fleet: context -> RayCluster -> generation (the default), or generation
// -> context -> RayCluster. The same for a snapshot of one cluster.
enum class FleetOrder
{
    ContextFirst,
    GenerationFirst
};

// The slices of one generation and worker group.
struct FleetGroup {
    QString key;        // unique within the grouping (two contexts may show the same title)
    QString title;      // "v6e · ml/tpu-team/v6e-4x4"; in a section, without the section's own words
    int section = -1;   // index into FleetGrouping::sections; -1 when there are none
    int rank = 0;       // tpu::generationOrder
    QString workerGroup;
    QString context, rayCluster; // the fleet identity of its slices (issue 16)
    QList<int> entries; // all of its slices (indexes into FleetGrouping::entries), in name order
    int chips = 0, reserved = 0, ready = 0;
};

struct FleetGrouping {
    QList<FleetEntry> entries; // one per slice, in the snapshot's order
    // Generation display order, then worker group in natural name order, slices without one last;
    // in a fleet, section by section.
    QList<FleetGroup> groups;
    QList<FleetSection> sections; // empty for one cluster in one context
};

FleetGrouping groupFleet(const ClusterSnapshot &snapshot, FleetOrder order = FleetOrder::ContextFirst);

// The words a slice is shown and found by, with their fallbacks.
QString fleetGenerationName(const Slice &slice); // "v6e", or "unknown generation"
QString fleetTopologyText(const Slice &slice);   // "4x4", or "topology unknown"
QString fleetWorkerGroupText(const Slice &slice); // "ml/tpu-team/v6e-4x4", or "no worker group"

} // namespace slicescope
