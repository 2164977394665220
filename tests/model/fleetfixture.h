// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A small fleet stated slice by slice (no capture, no parser), one slice of each kind the fleet
// overview tells apart, for the model's fleet grouping and filter tests. In display order:
//   v4  · no worker group      v4-2x2x2-0    claimed (only the head, by unnamed group "abcdef01...")
//   v5p · ml/v5p-pool          v5p-2x2x2-0   provisioning (both hosts pending)
//   v6e · ml/v6e-pool-9        v6e-2x4-0     reserved, partly used (2 of 8 chips, job 02000000's group)
//   v6e · ml/v6e-pool-10       v6e-4x4-0     reserved, fully (llm-train holds all 16 chips)
//                              v6e-4x4-1     ready
//                              v6e-4x4-2     degraded (worker 2 DEAD)
//   unknown generation · ml/odd  mystery-0   degraded (no generation, no topology)

#include "snapshot.h"
#include "tpu.h"

#include <QStringList>

namespace slicescope::fleetfixture {

inline Slice slice(const char *name, const char *generation, const char *topology, int chipsPerHost, const char *workerGroup)
{
    Slice s;
    s.name = QString::fromUtf8(name);
    s.workerGroup = QString::fromUtf8(workerGroup);
    s.chipsPerHost = chipsPerHost;
    s.generation = tpu::findGeneration(QString::fromUtf8(generation));
    if (const auto topo = tpu::parseTopology(QString::fromUtf8(topology)); topo && s.generation) {
        s.topology = *topo;
        s.podType = tpu::podType(*s.generation, s.topology);
        s.layout = tpu::SliceLayout(*s.generation, s.topology, chipsPerHost);
    }
    const int hosts = s.layout.isValid() ? s.layout.hostCount() : 1;
    s.hosts.resize(hosts);
    for (int w = 0; w < hosts; ++w) {
        s.hosts[w].workerId = w;
        s.hosts[w].state = HostState::Alive;
        s.hosts[w].chips.resize(chipsPerHost);
    }
    s.intact = s.layout.isValid();
    return s;
}

// Gives `chips` chips of `s`, in chip order, to placement group `pg`.
inline void hold(Slice &s, int pg, int chips)
{
    for (Host &h : s.hosts)
        for (ChipUse &c : h.chips)
            if (chips > 0) {
                c.placementGroup = pg;
                c.bundleIndex = 0;
                --chips;
                ++s.reservedChips;
            }
}

inline ClusterSnapshot fleet()
{
    ClusterSnapshot snap;
    PlacementGroup train;
    train.id = QStringLiteral("1111111111111111");
    train.name = QStringLiteral("llm-train");
    PlacementGroup byJob;
    byJob.id = QStringLiteral("2222222222222222");
    byJob.creatorJobId = QStringLiteral("02000000");
    PlacementGroup anonymous;
    anonymous.id = QStringLiteral("abcdef0123456789");
    snap.placementGroups = {train, byJob, anonymous};

    // Snapshot order is not display order: the grouping sorts.
    Slice full = slice("v6e-4x4-0", "v6e", "4x4", 4, "ml/v6e-pool-10");
    hold(full, 0, 16);
    Slice ready = slice("v6e-4x4-1", "v6e", "4x4", 4, "ml/v6e-pool-10");
    Slice degraded = slice("v6e-4x4-2", "v6e", "4x4", 4, "ml/v6e-pool-10");
    degraded.intact = false;
    degraded.hosts[2].state = HostState::Dead;
    degraded.problems << QStringLiteral("worker 2 is DEAD") << QStringLiteral("3 of 4 hosts alive");
    Slice mystery = slice("mystery-0", "", "", 4, "ml/odd");
    mystery.problems << QStringLiteral("no generation label");
    Slice partly = slice("v6e-2x4-0", "v6e", "2x4", 4, "ml/v6e-pool-9");
    hold(partly, 1, 2);
    Slice provisioning = slice("v5p-2x2x2-0", "v5p", "2x2x2", 4, "ml/v5p-pool");
    provisioning.intact = false;
    for (Host &h : provisioning.hosts)
        h.state = HostState::Pending;
    provisioning.problems << QStringLiteral("worker 0 is PENDING") << QStringLiteral("worker 1 is PENDING");
    Slice claimed = slice("v4-2x2x2-0", "v4", "2x2x2", 4, "");
    claimed.headHeldBy = 2;
    snap.slices = {full, ready, degraded, mystery, partly, provisioning, claimed};
    return snap;
}

inline const QStringList kDisplayOrder{QStringLiteral("v4-2x2x2-0"), QStringLiteral("v5p-2x2x2-0"), QStringLiteral("v6e-2x4-0"),
                                       QStringLiteral("v6e-4x4-0"), QStringLiteral("v6e-4x4-1"), QStringLiteral("v6e-4x4-2"),
                                       QStringLiteral("mystery-0")};

} // namespace slicescope::fleetfixture
