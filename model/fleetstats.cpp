// SPDX-License-Identifier: GPL-3.0-or-later
#include "fleetstats.h"

#include <QDebug>
#include <QHash>

#include <algorithm>
#include <tuple>

namespace slicescope {

namespace {

QString generationLabel(const tpu::Generation *gen)
{
    return gen ? gen->name : QStringLiteral("unknown");
}

QString shapeLabel(const tpu::Generation *gen, const tpu::Topology &topology)
{
    if (topology.chips() == 0)
        return generationLabel(gen) + QStringLiteral(" (topology unknown)");
    return generationLabel(gen) + u' ' + topology.toString();
}

} // namespace

QString toText(SliceUse use)
{
    switch (use) {
    case SliceUse::Ready: return QStringLiteral("ready");
    case SliceUse::FullyReserved: return QStringLiteral("fully reserved");
    case SliceUse::PartlyUsed: return QStringLiteral("partly used");
    case SliceUse::Claimed: return QStringLiteral("claimed");
    case SliceUse::Degraded: return QStringLiteral("degraded");
    case SliceUse::Provisioning: return QStringLiteral("provisioning");
    }
    Q_UNREACHABLE();
}

int sliceChips(const Slice &slice)
{
    if (slice.chips() > 0)
        return slice.chips();
    int n = 0;
    for (const Host &h : slice.hosts)
        n += int(h.chips.size());
    return n;
}

SliceUse sliceUse(const Slice &slice)
{
    switch (slice.status()) {
    case SliceStatus::Ready: return SliceUse::Ready;
    case SliceStatus::Degraded: return SliceUse::Degraded;
    case SliceStatus::Provisioning: return SliceUse::Provisioning;
    case SliceStatus::Reserved:
        if (slice.reservedChips >= sliceChips(slice))
            return SliceUse::FullyReserved;
        // Reserved with no chip held: only the head resource is, which a slice placement group
        // takes first and then fills the slice; not a leftover.
        return slice.reservedChips > 0 ? SliceUse::PartlyUsed : SliceUse::Claimed;
    }
    Q_UNREACHABLE();
}

int strandedChips(const Slice &slice)
{
    switch (sliceUse(slice)) {
    case SliceUse::PartlyUsed:
    case SliceUse::Degraded:
    case SliceUse::Provisioning:
        return std::max(0, sliceChips(slice) - slice.reservedChips);
    case SliceUse::Ready:
    case SliceUse::FullyReserved:
    case SliceUse::Claimed:
        return 0;
    }
    Q_UNREACHABLE();
}

void FleetCounts::add(const Slice &slice)
{
    const int total = sliceChips(slice);
    const int held = std::clamp(slice.reservedChips, 0, total);
    const int free = total - held;
    ++slices;
    chips += total;
    reservedChips += held;
    freeChips += free;
    switch (sliceUse(slice)) {
    case SliceUse::Ready:
        ++ready;
        availableChips += free;
        return;
    case SliceUse::FullyReserved:
        ++fullyReserved;
        return;
    case SliceUse::Claimed:
        ++claimed;
        claimedChips += free;
        return;
    case SliceUse::PartlyUsed:
        ++partlyUsed;
        strandedPartlyUsed += free;
        strandedChips += free;
        return;
    case SliceUse::Degraded:
        ++degraded;
        strandedDegraded += free;
        strandedChips += free;
        return;
    case SliceUse::Provisioning:
        ++provisioning;
        strandedProvisioning += free;
        strandedChips += free;
        return;
    }
    Q_UNREACHABLE();
}

const ShapeStats *FleetStats::shape(QStringView label) const
{
    for (const ShapeStats &s : shapes)
        if (s.label == label)
            return &s;
    return nullptr;
}

const GenerationStats *FleetStats::generation(QStringView label) const
{
    for (const GenerationStats &g : generations)
        if (g.label == label)
            return &g;
    return nullptr;
}

FleetStats fleetStats(const ClusterSnapshot &snapshot)
{
    FleetStats stats;
    QHash<QString, qsizetype> shapeAt;      // label -> index in stats.shapes
    QHash<QString, qsizetype> generationAt; // label -> index in stats.generations
    for (const Slice &slice : snapshot.slices) {
        const QString label = shapeLabel(slice.generation, slice.topology);
        qsizetype s = shapeAt.value(label, -1);
        if (s < 0) {
            s = stats.shapes.size();
            shapeAt.insert(label, s);
            stats.shapes.append(ShapeStats{slice.generation, slice.topology, label, {}});
        }
        stats.shapes[s].counts.add(slice);

        const QString genLabel = generationLabel(slice.generation);
        qsizetype g = generationAt.value(genLabel, -1);
        if (g < 0) {
            g = stats.generations.size();
            generationAt.insert(genLabel, g);
            stats.generations.append(GenerationStats{slice.generation, genLabel, {}});
        }
        stats.generations[g].counts.add(slice);
        stats.total.add(slice);
    }
    // A stable order independent of slice names: generation, then size, then the axes.
    std::sort(stats.shapes.begin(), stats.shapes.end(), [](const ShapeStats &a, const ShapeStats &b) {
        const tpu::Dims &da = a.topology.dims, &db = b.topology.dims;
        return std::tuple(tpu::generationOrder(a.generation), a.topology.chips(), da.x, da.y, da.z, a.label)
               < std::tuple(tpu::generationOrder(b.generation), b.topology.chips(), db.x, db.y, db.z, b.label);
    });
    std::sort(stats.generations.begin(), stats.generations.end(), [](const GenerationStats &a, const GenerationStats &b) {
        return std::tuple(tpu::generationOrder(a.generation), a.label) < std::tuple(tpu::generationOrder(b.generation), b.label);
    });
    return stats;
}

QString describe(const QString &label, const FleetCounts &c)
{
    QStringList parts;
    parts << QStringLiteral("%1 of %2 ready").arg(c.ready).arg(c.slices);
    auto add = [&](int n, const char *what) {
        if (n > 0)
            parts << QStringLiteral("%1 %2").arg(n).arg(QLatin1String(what));
    };
    add(c.fullyReserved, "fully reserved");
    add(c.partlyUsed, "partly used");
    add(c.claimed, "claimed");
    add(c.degraded, "degraded");
    add(c.provisioning, "provisioning");
    if (c.strandedChips > 0)
        parts << QStringLiteral("%1 chips stranded").arg(c.strandedChips);
    return label + QStringLiteral(": ") + parts.join(QStringLiteral(" \u00b7 "));
}

QString describe(const ShapeStats &shape)
{
    return describe(shape.label, shape.counts);
}

QDebug operator<<(QDebug debug, SliceUse use)
{
    QDebugStateSaver saver(debug);
    debug.noquote() << toText(use);
    return debug;
}

QDebug operator<<(QDebug debug, const FleetCounts &c)
{
    QDebugStateSaver saver(debug);
    debug.nospace() << "FleetCounts(slices " << c.slices << ": ready " << c.ready << ", fully reserved " << c.fullyReserved
                    << ", partly used " << c.partlyUsed << ", claimed " << c.claimed << ", degraded " << c.degraded
                    << ", provisioning " << c.provisioning << "; chips " << c.chips << ": reserved " << c.reservedChips
                    << ", free " << c.freeChips << ", available " << c.availableChips << ", claimed " << c.claimedChips
                    << ", stranded " << c.strandedChips << " (partly used " << c.strandedPartlyUsed << ", degraded "
                    << c.strandedDegraded << ", provisioning " << c.strandedProvisioning << "))";
    return debug;
}

QDebug operator<<(QDebug debug, const ShapeStats &shape)
{
    QDebugStateSaver saver(debug);
    debug.nospace() << "ShapeStats(" << shape.label << ", " << shape.counts << ')';
    return debug;
}

} // namespace slicescope
