// SPDX-License-Identifier: GPL-3.0-or-later
#include "tpu.h"

#include "inputlimits.h"

#include <algorithm>
#include <tuple>

namespace slicescope::tpu {

namespace {

Dims d2(int x, int y) { return Dims{x, y, 1}; }
Dims d3(int x, int y, int z) { return Dims{x, y, z}; }

// Ray's _get_larger_3d_topologies(maxX, maxY, maxZ): every AxBxC with each axis a multiple of 4
// up to its bound, in any axis order.
QList<Dims> larger3d(int maxX, int maxY, int maxZ)
{
    QList<Dims> out;
    for (int x = 4; x <= maxX; x += 4)
        for (int y = 4; y <= maxY; y += 4)
            for (int z = 4; z <= maxZ; z += 4)
                out.append(Dims{x, y, z});
    return out;
}

QList<Generation> makeGenerations()
{
    const QList<Dims> smallCube = {d3(2, 2, 1), d3(2, 2, 2), d3(2, 2, 4), d3(2, 4, 4)};
    const QList<Dims> planar = {d2(1, 1), d2(2, 2), d2(2, 4), d2(4, 4), d2(4, 8), d2(8, 8), d2(8, 16), d2(16, 16)};
    QList<Generation> g;
    g.append({QStringLiteral("v4"), QStringLiteral("TPU v4"), QStringLiteral("v4"), QStringLiteral("tpu-v4-podslice"), QStringLiteral("TPU-V4"), {QStringLiteral("tpu-v4")}, true, 2, {4}, d3(16, 16, 16), 4096, smallCube, WrapRule::FullCube});
    g.append({QStringLiteral("v5e"), QStringLiteral("TPU v5e"), QStringLiteral("v5litepod"), QStringLiteral("tpu-v5-lite-podslice"), QStringLiteral("TPU-V5LITEPOD"), {QStringLiteral("v5lite"), QStringLiteral("tpu-v5e"), QStringLiteral("tpu-v5-lite"),
                                                                                                                                                                       // GKE's single-host v5e machines (ct5l-*): the same chips, one host per slice.
                                                                                                                                                                       QStringLiteral("tpu-v5-lite-device")},
              false,
              1,
              {1, 4, 8},
              d2(16, 16),
              256,
              planar,
              WrapRule::Axis16});
    g.append({QStringLiteral("v5p"), QStringLiteral("TPU v5p"), QStringLiteral("v5p"), QStringLiteral("tpu-v5p-slice"), QStringLiteral("TPU-V5P"), {QStringLiteral("tpu-v5p")}, true, 2, {4}, d3(16, 20, 28), 8960, smallCube, WrapRule::FullCube});
    g.append({QStringLiteral("v6e"), QStringLiteral("TPU v6e (Trillium)"), QStringLiteral("v6e"), QStringLiteral("tpu-v6e-slice"), QStringLiteral("TPU-V6E"), {QStringLiteral("trillium"), QStringLiteral("tpu-v6e")}, false, 1, {1, 4, 8}, d2(16, 16), 256, planar, WrapRule::Axis16});
    g.append({QStringLiteral("v7x"), QStringLiteral("TPU v7x (Ironwood)"), QStringLiteral("v7x"), QStringLiteral("tpu7x"), QStringLiteral("TPU-V7X"), {QStringLiteral("ironwood"), QStringLiteral("tpu-v7x")}, true, 2, {1, 4}, d3(16, 24, 24), 9216, QList<Dims>{d3(1, 1, 1)} + smallCube, WrapRule::FullCube});
    // VALID_TPU_TOPOLOGY of Ray 2.60 (docs/facts.md 3). v5e and v6e add 2x8 (one v6e-16 shape
    // GKE does not document); v4 stops at 12x12x16 and v5p at 16x16x24 where GKE goes further;
    // v7x is an explicit list without 1x1x1.
    g[0].rayTopologies = smallCube + larger3d(12, 12, 16);
    g[1].rayTopologies = planar;
    g[1].rayTopologies.insert(3, d2(2, 8));
    g[2].rayTopologies = smallCube + larger3d(16, 16, 24);
    g[3].rayTopologies = g[1].rayTopologies;
    g[4].rayTopologies = smallCube + QList<Dims>{d3(4, 4, 4), d3(4, 4, 8), d3(4, 8, 8), d3(8, 8, 8), d3(8, 8, 16), d3(8, 16, 16)};
    return g;
}

bool ascending(Dims d, int rank) { return d.x <= d.y && (rank == 2 || d.y <= d.z); }

Dims sortedDims(Dims d, int rank)
{
    std::array<int, 3> s{d.x, d.y, d.z};
    std::sort(s.begin(), s.begin() + rank);
    return Dims{s[0], s[1], rank == 3 ? s[2] : 1};
}

QString dimsText(Dims d, int rank)
{
    return rank == 2 ? QStringLiteral("%1x%2").arg(d.x).arg(d.y)
                     : QStringLiteral("%1x%2x%3").arg(d.x).arg(d.y).arg(d.z);
}

} // namespace

const QList<Generation> &generations()
{
    static const QList<Generation> table = makeGenerations();
    return table;
}

int generationOrder(const Generation *generation)
{
    const QList<Generation> &all = generations();
    if (generation)
        for (int i = 0; i < all.size(); ++i)
            if (all[i].name == generation->name)
                return i;
    return int(all.size());
}

const Generation *findGeneration(QStringView anySpelling)
{
    const QString spelled = anySpelling.trimmed().toString().toLower();
    QString key = spelled;
    if (key.startsWith(QLatin1String("tpu-")) && !key.endsWith(QLatin1String("slice"))
        && !key.endsWith(QLatin1String("device")))
        key = key.mid(4); // "TPU-V6E" -> "v6e", but keep "tpu-v6e-slice" and "tpu-v5-lite-device" whole
    for (const Generation &g : generations()) {
        // Aliases are compared as spelled too: stripping "tpu-" would make "tpu-v5-lite" unreachable.
        if (key == g.name || key == g.podTypePrefix || key == g.gkeAccelerator
            || key == g.rayAcceleratorType.toLower() || key == g.rayAcceleratorType.toLower().mid(4)
            || g.aliases.contains(key) || g.aliases.contains(spelled))
            return &g;
    }
    // GKE also writes machine-type-suffixed values ("tpu7x-standard-4t"): a known GKE accelerator
    // value followed by '-' names that generation. Only GKE spellings (they start with "tpu") are
    // extended this way, so "v6e-16" (a pod type) never passes for a generation name.
    if (!spelled.startsWith(QLatin1String("tpu")))
        return nullptr;
    const Generation *best = nullptr;
    qsizetype bestLength = 0;
    for (const Generation &g : generations()) {
        QStringList gkeSpellings = {g.gkeAccelerator};
        for (const QString &alias : g.aliases)
            if (alias.startsWith(QLatin1String("tpu-")) && (alias.endsWith(QLatin1String("slice")) || alias.endsWith(QLatin1String("device"))))
                gkeSpellings << alias;
        for (const QString &known : std::as_const(gkeSpellings))
            if (known.size() > bestLength && spelled.size() > known.size() && spelled.startsWith(known)
                && spelled.at(known.size()) == u'-') {
                best = &g;
                bestLength = known.size();
            }
    }
    return best;
}

const Generation *generationOfPodType(QStringView podType, int *tensorCores)
{
    const qsizetype dash = podType.lastIndexOf(u'-');
    if (dash <= 0)
        return nullptr;
    bool ok = false;
    const int cores = podType.mid(dash + 1).toInt(&ok);
    if (!ok || cores <= 0)
        return nullptr;
    const Generation *gen = findGeneration(podType.left(dash));
    if (gen && tensorCores)
        *tensorCores = cores;
    return gen;
}

QString Topology::toString() const
{
    return dimsText(dims, rank);
}

std::optional<Topology> parseTopology(QStringView text)
{
    const auto parts = text.trimmed().split(u'x', Qt::KeepEmptyParts, Qt::CaseInsensitive);
    if (parts.size() < 2 || parts.size() > 3)
        return std::nullopt;
    int v[3] = {1, 1, 1};
    for (qsizetype i = 0; i < parts.size(); ++i) {
        bool ok = false;
        v[i] = parts[i].toInt(&ok);
        if (!ok || v[i] <= 0 || v[i] > limits::kMaxTopologyAxis)
            return std::nullopt;
    }
    return Topology{Dims{v[0], v[1], v[2]}, int(parts.size())};
}

QString topologyProblem(const Generation &gen, const Topology &t)
{
    const int wantRank = gen.is3D ? 3 : 2;
    if (t.rank != wantRank)
        return QStringLiteral("%1 slices are %2D: write the topology as %3, not %4")
            .arg(gen.name)
            .arg(wantRank)
            .arg(wantRank == 3 ? QStringLiteral("AxBxC") : QStringLiteral("AxB"), t.toString());
    if (gen.rayTopologies.contains(t.dims))
        return {};
    // What Ray accepts, in GKE's spelling (ascending axes), at most a dozen shapes.
    QStringList accepted;
    Dims bound{0, 0, 0}; // per sorted axis, the largest Ray accepts
    for (const Dims &d : gen.rayTopologies) {
        if (!ascending(d, wantRank) && !gen.smallTopologies.contains(d)) // 2x2x1 is GKE's spelling too
            continue;
        if (accepted.size() < 12)
            accepted << dimsText(d, wantRank);
        bound = Dims{std::max(bound.x, d.x), std::max(bound.y, d.y), std::max(bound.z, d.z)};
    }
    const QString acceptedText = accepted.join(QStringLiteral(", ")) + (accepted.size() == 12 ? QStringLiteral(", ...") : QString());
    const Dims sorted = sortedDims(t.dims, wantRank);
    if (gen.rayTopologies.contains(sorted))
        return QStringLiteral("%1 is not a %2 topology Ray accepts: write its axes in ascending order (did you mean %3?)")
            .arg(t.toString(), gen.name, dimsText(sorted, wantRank));
    if (sorted.x > bound.x || sorted.y > bound.y || sorted.z > bound.z) {
        Dims largest{0, 0, 0};
        for (const Dims &d : gen.rayTopologies)
            if (ascending(d, wantRank) && d.volume() > largest.volume())
                largest = d;
        QString text = QStringLiteral("%1 is larger than Ray 2.60 accepts for %2: its axes go up to %3 (the largest slice it takes is %4, %5 chips)")
                           .arg(t.toString(), gen.name, dimsText(bound, wantRank), dimsText(largest, wantRank))
                           .arg(largest.volume());
        if (gen.is3D && sorted.x <= gen.largest.x && sorted.y <= gen.largest.y && sorted.z <= gen.largest.z
            && t.chips() <= gen.maxChips && !(sorted.x % 4 || sorted.y % 4 || sorted.z % 4))
            text += QStringLiteral("; GKE makes %1 slices up to %2, but slice_placement_group refuses this one")
                        .arg(gen.name, dimsText(gen.largest, 3));
        return text;
    }
    if (gen.is3D && !gen.smallTopologies.contains(sorted) && (sorted.x % 4 || sorted.y % 4 || sorted.z % 4))
        return QStringLiteral("%1 is not a %2 topology: beyond 2x4x4 every axis must be a multiple of 4").arg(t.toString(), gen.name);
    return QStringLiteral("%1 is not a %2 topology Ray accepts (%3)").arg(t.toString(), gen.name, acceptedText);
}

QString topologyNote(const Generation &gen, const Topology &t)
{
    if (!topologyProblem(gen, t).isEmpty())
        return {};
    const int rank = gen.is3D ? 3 : 2;
    if (!ascending(t.dims, rank))
        return QStringLiteral("Ray accepts %1 in this axis order; GKE names this shape %2")
            .arg(t.toString(), dimsText(sortedDims(t.dims, rank), rank));
    if (!gen.is3D && !gen.smallTopologies.contains(t.dims)) {
        QStringList gke;
        for (const Dims &d : gen.smallTopologies)
            if (d.volume() == t.chips())
                gke << dimsText(d, 2);
        return QStringLiteral("Ray accepts %1 %2; GKE documents no such node pool%3")
            .arg(gen.name, t.toString(), gke.isEmpty() ? QString() : QStringLiteral(" (its %1 is %2)").arg(podType(gen, t), gke.join(QStringLiteral(" or "))));
    }
    return {};
}

QList<Topology> validTopologies(const Generation &gen)
{
    const int rank = gen.is3D ? 3 : 2;
    QList<Topology> out;
    for (const Dims &d : gen.rayTopologies)
        out.append(Topology{d, rank});
    std::stable_sort(out.begin(), out.end(), [rank](const Topology &a, const Topology &b) {
        if (a.chips() != b.chips())
            return a.chips() < b.chips();
        if (ascending(a.dims, rank) != ascending(b.dims, rank))
            return ascending(a.dims, rank);
        return std::tie(a.dims.x, a.dims.y, a.dims.z) < std::tie(b.dims.x, b.dims.y, b.dims.z);
    });
    return out;
}

bool fitsGeneration(const Generation &gen, const Topology &topology)
{
    const int rank = gen.is3D ? 3 : 2;
    if (topology.rank > rank || topology.chips() <= 0 || topology.chips() > gen.maxChips)
        return false;
    // Axes compared in ascending order; a 2D shape written with rank 3 ("2x2x1") compares alike.
    auto ascending3 = [](Dims d) {
        int a = d.x, b = d.y, c = d.z;
        if (a > b) std::swap(a, b);
        if (b > c) std::swap(b, c);
        if (a > b) std::swap(a, b);
        return Dims{a, b, c};
    };
    const Dims s = ascending3(topology.dims), l = ascending3(gen.largest);
    return s.x <= l.x && s.y <= l.y && s.z <= l.z;
}

int maxHostsPerSlice(const Generation &gen)
{
    const Topology largest{gen.largest, gen.is3D ? 3 : 2};
    return std::max(1, gen.maxChips / defaultChipsPerHost(gen, largest));
}

QString podType(const Generation &gen, const Topology &topology)
{
    return QStringLiteral("%1-%2").arg(gen.podTypePrefix).arg(topology.chips() * gen.tensorCoresPerChip);
}

int defaultChipsPerHost(const Generation &gen, const Topology &topology)
{
    if (topology.chips() == 1)
        return 1;
    if (!gen.is3D && topology.chips() == 8 && gen.chipsPerHostOptions.contains(8))
        return 8;
    return 4;
}

std::optional<Dims> hostBlock(const Generation &gen, const Topology &topology, int chipsPerHost)
{
    if (!gen.chipsPerHostOptions.contains(chipsPerHost))
        return std::nullopt;
    Dims block;
    switch (chipsPerHost) {
    case 1: block = Dims{1, 1, 1}; break;
    case 4: block = Dims{2, 2, 1}; break;
    case 8: block = Dims{2, 4, 1}; break;
    default: return std::nullopt;
    }
    const Dims d = topology.dims;
    if (d.x % block.x || d.y % block.y || d.z % block.z)
        return std::nullopt;
    return block;
}

std::array<bool, 3> wrapAxes(const Generation &gen, const Topology &topology)
{
    const Dims d = topology.dims;
    std::array<bool, 3> w{false, false, false};
    switch (gen.wrap) {
    case WrapRule::FullCube:
        if (d.x >= 4 && d.y >= 4 && d.z >= 4)
            for (int a = 0; a < 3; ++a)
                w[a] = d[a] % 4 == 0;
        return w;
    case WrapRule::Axis16:
        for (int a = 0; a < 3; ++a)
            w[a] = d[a] == 16;
        return w;
    }
    Q_UNREACHABLE();
}

SliceLayout::SliceLayout(const Generation &gen, const Topology &topology, int chipsPerHost)
    : m_topology(topology)
{
    const auto block = hostBlock(gen, topology, chipsPerHost);
    if (!block)
        return;
    m_block = *block;
    m_hostGrid = Dims{topology.dims.x / m_block.x, topology.dims.y / m_block.y, topology.dims.z / m_block.z};
    m_wraps = wrapAxes(gen, topology);
    m_valid = true;
}

ChipCoord SliceLayout::chipPosition(int workerId, int chipIndex) const
{
    const int bx = workerId % m_hostGrid.x;
    const int by = (workerId / m_hostGrid.x) % m_hostGrid.y;
    const int bz = workerId / (m_hostGrid.x * m_hostGrid.y);
    const int cx = chipIndex % m_block.x;
    const int cy = (chipIndex / m_block.x) % m_block.y;
    const int cz = chipIndex / (m_block.x * m_block.y);
    return ChipCoord{bx * m_block.x + cx, by * m_block.y + cy, bz * m_block.z + cz};
}

int SliceLayout::workerAt(ChipCoord c) const
{
    const int bx = c.x / m_block.x, by = c.y / m_block.y, bz = c.z / m_block.z;
    return bx + by * m_hostGrid.x + bz * m_hostGrid.x * m_hostGrid.y;
}

int SliceLayout::chipIndexAt(ChipCoord c) const
{
    const int cx = c.x % m_block.x, cy = c.y % m_block.y, cz = c.z % m_block.z;
    return cx + cy * m_block.x + cz * m_block.x * m_block.y;
}

QList<IciLink> SliceLayout::iciLinks() const
{
    QList<IciLink> links;
    const Dims d = dims();
    for (int z = 0; z < d.z; ++z)
        for (int y = 0; y < d.y; ++y)
            for (int x = 0; x < d.x; ++x) {
                const int at[3] = {x, y, z};
                for (int axis = 0; axis < 3; ++axis) {
                    const int n = d[axis];
                    if (n < 2)
                        continue;
                    int next[3] = {x, y, z};
                    if (at[axis] + 1 < n) {
                        next[axis] = at[axis] + 1;
                        links.append({ChipCoord{x, y, z}, ChipCoord{next[0], next[1], next[2]}, axis, false});
                    } else if (m_wraps[axis] && n > 2) {
                        next[axis] = 0;
                        links.append({ChipCoord{x, y, z}, ChipCoord{next[0], next[1], next[2]}, axis, true});
                    }
                }
            }
    return links;
}

bool isValidTpuRequest(int chips)
{
    return chips == 1 || chips == 2 || chips == 4 || chips == 8;
}

} // namespace slicescope::tpu
