// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The fragmentation summary of a fleet: per slice shape and per generation, how many slices a
// slice placement group could take right now, how many are held whole or in part, and how many
// free chips are stranded where no slice placement group can reach them.
//
// Definitions (each slice falls in exactly one SliceUse; its chips are counted once):
//  - chips: the chips of the slice's topology, hosts that are dead or missing included (the
//    capacity the slice stands for); for a slice of unknown topology, the chips its hosts carry.
//  - reserved chips: chips held by placement-group bundles (Slice::reservedChips).
//  - free chips: chips - reserved chips.
//  - available chips: the free chips of Ready slices. A slice placement group takes whole
//    slices (docs/facts.md 2.2), so only these can serve one.
//  - claimed chips: the free chips of Claimed slices (only TPU-<pod-type>-head is held: a slice
//    placement group between its steps 1 and 3). Spoken for, so neither available nor stranded.
//  - stranded chips: the free chips of a slice that no slice placement group can take, because
//    the slice is PartlyUsed (its head or some chips are held: another slice placement group
//    cannot claim it, though plain tasks may still use the chips), Degraded (not intact: it is
//    unusable whole until repaired; the chips of its dead or missing hosts count, they are paid
//    for) or Provisioning (not up yet; transient, reported apart so it can be told from waste).
//  Hence free = available + claimed + stranded, and
//  stranded = strandedPartlyUsed + strandedDegraded + strandedProvisioning.

#include "snapshot.h"
#include "tpu.h"

#include <QList>
#include <QMetaType>
#include <QString>

class QDebug;

namespace slicescope {

// SliceStatus split the way fragmentation needs it. Reserved becomes FullyReserved, PartlyUsed or
// Claimed; the others map one to one.
enum class SliceUse
{
    Ready,         // intact, nothing held: a slice placement group can take it
    FullyReserved, // intact, every chip held
    PartlyUsed,    // intact, some chips held and some free
    Claimed,       // intact, no chip held but the head resource is (slice placement group step 1)
    Degraded,      // a host dead or missing, or the chips do not add up
    Provisioning,  // hosts still pending
};
QString toText(SliceUse use); // "ready", "fully reserved", "partly used", "claimed", "degraded", "provisioning"

SliceUse sliceUse(const Slice &slice);
// The chips a slice stands for (see the definitions above).
int sliceChips(const Slice &slice);
// The stranded chips of one slice (see the definitions above); 0 unless PartlyUsed, Degraded or Provisioning.
int strandedChips(const Slice &slice);

struct FleetCounts {
    int slices = 0;
    // Slices by SliceUse; fullyReserved + partlyUsed + claimed are the slices whose status() is Reserved.
    int ready = 0;
    int fullyReserved = 0;
    int partlyUsed = 0;
    int claimed = 0;
    int degraded = 0;
    int provisioning = 0;
    // Chips, as defined at the top of this file.
    int chips = 0;
    int reservedChips = 0;
    int freeChips = 0;
    int availableChips = 0;
    int claimedChips = 0;
    int strandedChips = 0;
    int strandedPartlyUsed = 0;
    int strandedDegraded = 0;
    int strandedProvisioning = 0;

    int reserved() const { return fullyReserved + partlyUsed + claimed; }
    void add(const Slice &slice);
    friend bool operator==(const FleetCounts &, const FleetCounts &) = default;
};

// One slice shape: generation + topology ("v6e 4x4"). A v6e 2x4 on one 8-chip host and one on two
// 4-chip hosts are the same shape: a slice placement group asks for generation and topology only.
struct ShapeStats {
    const tpu::Generation *generation = nullptr; // null: generation unknown
    tpu::Topology topology;                      // chips() == 0: topology unknown
    QString label;                               // "v6e 4x4", "v6e (topology unknown)", "unknown 4x4"
    FleetCounts counts;
    friend bool operator==(const ShapeStats &, const ShapeStats &) = default;
};

struct GenerationStats {
    const tpu::Generation *generation = nullptr; // null: generation unknown
    QString label;                               // "v6e", or "unknown"
    FleetCounts counts;
    friend bool operator==(const GenerationStats &, const GenerationStats &) = default;
};

struct FleetStats {
    // In tpu::generations() order (unknown last); shapes of a generation smallest first.
    QList<ShapeStats> shapes;
    QList<GenerationStats> generations;
    FleetCounts total;

    const ShapeStats *shape(QStringView label) const;            // by label, or null
    const GenerationStats *generation(QStringView label) const;  // by label, or null
    friend bool operator==(const FleetStats &, const FleetStats &) = default;
};

FleetStats fleetStats(const ClusterSnapshot &snapshot);

// One line an operator reads at a glance; only the non-zero parts:
// "v6e 4x4: 2 of 4 ready · 1 reserved · 1 degraded · 16 chips stranded".
QString describe(const ShapeStats &shape);
// The same for a generation or the whole fleet, with a caller's label: "fleet: 3 of 7 ready · ...".
QString describe(const QString &label, const FleetCounts &counts);

QDebug operator<<(QDebug debug, SliceUse use);
QDebug operator<<(QDebug debug, const FleetCounts &counts);
QDebug operator<<(QDebug debug, const ShapeStats &shape);

} // namespace slicescope

Q_DECLARE_METATYPE(slicescope::FleetStats)
