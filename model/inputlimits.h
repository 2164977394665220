// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Every bound the model puts on what a capture may make it do, in one place. A capture is
// whatever a server, a proxy or a file handed us: a stray label (`TPU: 1e30`, a worker id of
// 9999) must cost no more than a sensible value. Values are checked against these bounds (and
// against the generation table in tpu.h) when they are read, before anything is sized by them;
// a value out of range is a warning naming the node and the slice is shown as unrecognised,
// never a crash and never a guess. Whatever a bound cuts is named in the snapshot's warnings.

namespace slicescope::limits {

// ---- Per host and per slice (checked against the generation table too) ----------------------

// Physical chips one TPU host has: the largest machine GKE offers (v5e/v6e ct*-8t); a host must
// also have one of its generation's chipsPerHostOptions to be laid out.
inline constexpr int kMaxChipsPerHost = 8;
// Ray TPU units per physical chip (RAY_TPU_RESOURCE_PER_CHIP, docs/facts.md 2.4). Ray leaves it
// open; no configuration we know of goes past a handful, this is SliceScope's bound.
inline constexpr int kMaxTpuPerChip = 16;
// The `TPU` resource one Ray node (or one pod's google.com/tpu) may report. Anything above, any
// negative, NaN or infinite amount makes the node unrecognised.
inline constexpr int kMaxTpuUnitsPerHost = kMaxChipsPerHost * kMaxTpuPerChip;
// Hosts of the largest slice in the generation table (v7x 16x24x24 on 4-chip hosts). A slice's
// own bound is tpu::maxHostsPerSlice(generation); this one holds when no generation is known.
inline constexpr int kMaxHostsPerSlice = 2304;
// A Ray worker id counts TPU containers on v7x (docs/facts.md 4.5), so it may exceed the host
// count by the containers per host; an id beyond this is out of range for any slice.
inline constexpr int kMaxWorkerId = kMaxHostsPerSlice * kMaxChipsPerHost - 1;
// Longest topology axis parseTopology() reads; the generation table's longest is 28. Keeps every
// volume far inside int.
inline constexpr int kMaxTopologyAxis = 256;

// ---- Total work per capture -------------------------------------------------------------------

// Items read from one list body (Ray nodes, placement groups, jobs; Kubernetes items). Ray's
// state API returns at most 10000 (limit=10000); Kubernetes lists of a large cluster stay well
// under this. Items beyond are skipped (still checked for well-formed JSON) and counted.
inline constexpr int kMaxListItems = 50000;
// Elements read from a list inside one object: bundles of a placement group, containers, env
// variables, conditions, workersToDelete, worker group specs.
inline constexpr int kMaxNestedListItems = 16384;
// Members read from one object: labels, resources, annotations, any map.
inline constexpr int kMaxMembersPerObject = 1024;
// Characters kept of one string value (names, labels, messages); longer values are cut.
inline constexpr int kMaxStringLength = 4096;
// MISSING hosts listed, over the whole capture, for slices no topology describes (their worker
// ids alone say how many hosts there are): a stray id on each of many nodes must not list
// thousands of hosts per node. A slice past it lists no hosts and is unrecognised.
inline constexpr int kMaxInventedHostsPerCapture = 4096;
// Problems listed per slice before the rest are summed up in one line.
inline constexpr int kMaxProblemsPerSlice = 64;

} // namespace slicescope::limits
