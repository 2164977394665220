// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The one table of TPU generations and the topology maths built on it
// (docs/facts.md sections 2 and 3). The slice view, the planner, the snapshot
// builder and `inspect` all ask this file; nothing else knows a TPU rule.

#include <QList>
#include <QString>
#include <QStringList>

#include <array>
#include <optional>

namespace slicescope::tpu {

// Wraparound ICI links differ by family.
enum class WrapRule
{
    FullCube,   // v4, v5p, v7x: only slices of at least 4x4x4; every axis that is a multiple of 4 wraps
    Axis16,     // v5e, v6e: an axis of length 16 wraps
};

struct Dims {
    int x = 1;
    int y = 1;
    int z = 1;
    int volume() const { return x * y * z; }
    int operator[](int axis) const { return axis == 0 ? x : axis == 1 ? y
                                                                      : z; }
    friend bool operator==(const Dims &, const Dims &) = default;
};

struct Generation {
    QString name;                 // canonical short name: "v6e"
    QString displayName;          // "TPU v6e (Trillium)"
    QString podTypePrefix;        // what Ray's ray.io/tpu-pod-type starts with: "v6e", "v5litepod"
    QString gkeAccelerator;       // cloud.google.com/gke-tpu-accelerator: "tpu-v6e-slice"
    QString rayAcceleratorType;   // ray.io/accelerator-type: "TPU-V6E"
    QStringList aliases;          // lower-case spellings users type, besides the names above
    bool is3D = false;
    int tensorCoresPerChip = 1;   // the pod-type suffix counts TensorCores
    QList<int> chipsPerHostOptions; // machine shapes GKE offers
    Dims largest;                 // largest slice GKE makes, axes in ascending order
    int maxChips = 0;
    QList<Dims> smallTopologies;  // the enumerated small shapes (2D: all of them)
    WrapRule wrap = WrapRule::FullCube;
    // Ray 2.60's VALID_TPU_TOPOLOGY for this generation (ray/_private/accelerators/tpu.py,
    // docs/facts.md 3): what slice_placement_group accepts, so what plan, the composer and the
    // scaler offer. Existing slices of other shapes are still laid out and drawn.
    QList<Dims> rayTopologies;
};

// All generations, in display order (v4, v5e, v5p, v6e, v7x).
const QList<Generation> &generations();

// Finds a generation by any spelling: "v6e", "V6E", "TPU-V6E", "v5litepod", "v5e",
// "tpu7x", "tpu-v6e-slice", "trillium"... Returns nullptr when unknown.
const Generation *findGeneration(QStringView anySpelling);

// A generation's place in generations(), for sorting; null (unknown) after every known one.
int generationOrder(const Generation *generation);

// Parses a Ray/GKE pod type ("v6e-16", "v5litepod-8", "tpu7x-16") into its generation and
// TensorCore count. Returns nullptr when the prefix is unknown.
const Generation *generationOfPodType(QStringView podType, int *tensorCores = nullptr);

struct Topology {
    Dims dims{0, 0, 0};           // all zero when unknown, so chips() == 0
    int rank = 2;                 // 2 for "4x4", 3 for "2x2x2"
    int chips() const { return dims.volume(); }
    QString toString() const;
    friend bool operator==(const Topology &, const Topology &) = default;
};

// Parses "AxB" or "AxBxC" (x=A, y=B, z=C), each axis 1..limits::kMaxTopologyAxis. Returns nullopt
// for anything else.
std::optional<Topology> parseTopology(QStringView text);

// Empty when Ray 2.60 accepts `topology` for `gen` (docs/facts.md 3); otherwise a sentence saying
// why not and what would do.
[[nodiscard]] QString topologyProblem(const Generation &gen, const Topology &topology);
// For a valid topology GKE does not document as such (v6e 2x8, a 3D shape written in another
// axis order): a sentence saying so, for tooltips and plan output. Empty otherwise.
QString topologyNote(const Generation &gen, const Topology &topology);
inline bool isValidTopology(const Generation &gen, const Topology &t) { return topologyProblem(gen, t).isEmpty(); }

// Every topology Ray accepts for a generation, smallest first; of equal size the GKE spelling
// (ascending axes) first (the composer's list).
QList<Topology> validTopologies(const Generation &gen);

// Whether a slice of this shape fits the generation's largest (axes compared in ascending order,
// chips within maxChips): the bound a topology label is checked against before it sizes anything.
bool fitsGeneration(const Generation &gen, const Topology &topology);

// The most hosts one slice of this generation has (its largest slice on GKE's default hosts).
int maxHostsPerSlice(const Generation &gen);

// "v6e-16" for v6e 4x4; "v5litepod-16"; "v4-16" for v4 2x2x2 (TensorCores, not chips).
QString podType(const Generation &gen, const Topology &topology);

// The host machine GKE uses by default for this topology: 8 for a v5e/v6e 2x4, 1 for 1x1, else 4.
int defaultChipsPerHost(const Generation &gen, const Topology &topology);

// The chip block one host owns, given chips per host. Returns nullopt when such hosts cannot
// tile the topology (e.g. 8-chip hosts on a 2x2).
std::optional<Dims> hostBlock(const Generation &gen, const Topology &topology, int chipsPerHost);

struct ChipCoord {
    int x = 0, y = 0, z = 0;
    friend bool operator==(const ChipCoord &, const ChipCoord &) = default;
};

// One ICI link between neighbouring chips; `wrap` marks a torus wrap edge.
struct IciLink {
    ChipCoord a;
    ChipCoord b;
    int axis = 0;
    bool wrap = false;
    friend bool operator==(const IciLink &, const IciLink &) = default;
};

// The canonical logical layout of one slice (docs/facts.md 3): host blocks tile the topology,
// host w sits at host-grid (bx, by, bz) with w = bx + by*Bx + bz*Bx*By, and inside a host
// chip c sits at its block offset in x-fastest order. The single source of chip positions.
class SliceLayout
{
public:
    SliceLayout() = default;
    // Returns an invalid layout when chipsPerHost cannot tile the topology.
    SliceLayout(const Generation &gen, const Topology &topology, int chipsPerHost);

    bool isValid() const { return m_valid; }
    const Topology &topology() const { return m_topology; }
    Dims dims() const { return m_topology.dims; }
    Dims block() const { return m_block; }
    Dims hostGrid() const { return m_hostGrid; }
    int chipsPerHost() const { return m_block.volume(); }
    int hostCount() const { return m_hostGrid.volume(); }
    int chipCount() const { return m_topology.chips(); }

    ChipCoord chipPosition(int workerId, int chipIndex) const;
    // The inverse: which host and which of its chips sit at a coordinate.
    int workerAt(ChipCoord c) const;
    int chipIndexAt(ChipCoord c) const;

    bool axisWraps(int axis) const { return m_wraps[axis]; }
    // Neighbour links along every axis, wrap edges included where the generation has them.
    QList<IciLink> iciLinks() const;

    friend bool operator==(const SliceLayout &, const SliceLayout &) = default;

private:
    Topology m_topology;
    Dims m_block;
    Dims m_hostGrid;
    std::array<bool, 3> m_wraps{false, false, false};
    bool m_valid = false;
};

// Which axes wrap for a slice of this shape (docs/facts.md 3, "wraparound").
std::array<bool, 3> wrapAxes(const Generation &gen, const Topology &topology);

// Ray accepts 1, 2, 4 or 8 chips per task or bundle.
bool isValidTpuRequest(int chips);

} // namespace slicescope::tpu
