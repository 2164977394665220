// SPDX-License-Identifier: GPL-3.0-or-later
#include "snapshot.h"

#include <algorithm>

#include <QDebug>

namespace slicescope {

QString toText(HostState state)
{
    switch (state) {
    case HostState::Alive: return QStringLiteral("ALIVE");
    case HostState::Dead: return QStringLiteral("DEAD");
    case HostState::Pending: return QStringLiteral("PENDING");
    case HostState::Missing: return QStringLiteral("MISSING");
    }
    Q_UNREACHABLE();
}

QString toText(SliceSource source)
{
    switch (source) {
    case SliceSource::Ray: return QStringLiteral("ray");
    case SliceSource::Kubernetes: return QStringLiteral("kubernetes");
    case SliceSource::Both: return QStringLiteral("both");
    }
    Q_UNREACHABLE();
}

QString toText(SliceStatus status)
{
    switch (status) {
    case SliceStatus::Ready: return QStringLiteral("ready");
    case SliceStatus::Reserved: return QStringLiteral("reserved");
    case SliceStatus::Degraded: return QStringLiteral("degraded");
    case SliceStatus::Provisioning: return QStringLiteral("provisioning");
    }
    Q_UNREACHABLE();
}

QString toText(PlacementGroup::Kind kind)
{
    switch (kind) {
    case PlacementGroup::Kind::SliceHead: return QStringLiteral("slice-head");
    case PlacementGroup::Kind::Slice: return QStringLiteral("slice");
    case PlacementGroup::Kind::Other: return QStringLiteral("other");
    }
    Q_UNREACHABLE();
}

QString Pod::statusText() const
{
    return reason.isEmpty() ? message : message.isEmpty() ? reason
                                                          : reason + QStringLiteral(": ") + message;
}

QString Pod::lifecycleText() const
{
    QStringList parts;
    if (!phase.isEmpty() && phase != QLatin1String("Running"))
        parts << phase;
    if (!reason.isEmpty())
        parts << reason;
    if (!message.isEmpty())
        parts << message;
    if (terminating)
        parts << QStringLiteral("being deleted");
    return parts.join(QStringLiteral(": "));
}

int Host::reservedChips() const
{
    int n = unplacedReservedChips;
    for (const ChipUse &c : chips)
        n += c.placementGroup >= 0;
    return n;
}

SliceStatus Slice::status() const
{
    if (intact)
        return isReady() ? SliceStatus::Ready : SliceStatus::Reserved;
    bool anyPending = false, anyBroken = hosts.isEmpty() || !layout.isValid();
    for (const Host &h : hosts) {
        anyPending = anyPending || h.state == HostState::Pending;
        anyBroken = anyBroken || h.state == HostState::Dead || h.state == HostState::Missing;
    }
    // A slice whose hosts are only pending (none dead or missing) is still coming up.
    return anyPending && !anyBroken ? SliceStatus::Provisioning : SliceStatus::Degraded;
}

int ClusterSnapshot::sliceIndex(QStringView name) const
{
    for (int i = 0; i < slices.size(); ++i)
        if (slices[i].name == name)
            return i;
    return -1;
}

int ClusterSnapshot::placementGroupIndex(QStringView idOrName) const
{
    for (int i = 0; i < placementGroups.size(); ++i)
        if (placementGroups[i].id == idOrName)
            return i;
    for (int i = 0; i < placementGroups.size(); ++i)
        if (!placementGroups[i].name.isEmpty() && placementGroups[i].name == idOrName)
            return i;
    return -1;
}

const PlacementGroup *ClusterSnapshot::headPartner(const PlacementGroup &g) const
{
    if (!g.name.isEmpty() || g.kind != PlacementGroup::Kind::SliceHead || g.creatorJobId.isEmpty())
        return nullptr;
    const PlacementGroup *partner = nullptr;
    int partners = 0;
    for (const PlacementGroup &o : placementGroups) {
        if (o.kind != PlacementGroup::Kind::Slice || o.name.isEmpty() || o.creatorJobId != g.creatorJobId || o.context != g.context)
            continue;
        // The head goes with the group on its slice; both unplaced, with the job's only one.
        const bool sameSlices = g.slices.isEmpty() ? o.slices.isEmpty()
                                                   : std::any_of(g.slices.cbegin(), g.slices.cend(), [&o](const QString &s) { return o.slices.contains(s); });
        if (sameSlices) {
            partner = &o;
            ++partners;
        }
    }
    return partners == 1 ? partner : nullptr;
}

QString ClusterSnapshot::groupLabel(const PlacementGroup &g) const
{
    if (!g.name.isEmpty())
        return g.name;
    const QString id = g.id.left(PlacementGroup::kDisplayIdChars);
    if (const PlacementGroup *partner = headPartner(g))
        return QStringLiteral("head of %1 (%2)").arg(partner->name, id);
    const QString kind = g.kind == PlacementGroup::Kind::SliceHead ? QStringLiteral("unnamed slice head")
                         : g.kind == PlacementGroup::Kind::Slice   ? QStringLiteral("unnamed slice group")
                                                                   : QStringLiteral("unnamed group");
    return g.creatorJobId.isEmpty() ? QStringLiteral("%1 (%2)").arg(kind, id) : QStringLiteral("%1, job %2 (%3)").arg(kind, g.creatorJobId, id);
}

int ClusterSnapshot::workerGroupIndex(QStringView key) const
{
    int byName = -1, named = 0;
    for (int i = 0; i < workerGroups.size(); ++i) {
        const WorkerGroup &g = workerGroups[i];
        if (g.fleetKey() == key)
            return i;
        if (g.qualifiedName() == key) {
            byName = i;
            ++named;
        }
    }
    // A bare "ns/cluster/group" names a group only when one context has it: never a guess.
    return named == 1 ? byName : -1;
}

int ClusterSnapshot::workerGroupOf(const Slice &slice) const
{
    if (slice.workerGroup.isEmpty())
        return -1;
    for (int i = 0; i < workerGroups.size(); ++i)
        if (workerGroups[i].context == slice.context && workerGroups[i].qualifiedName() == slice.workerGroup)
            return i;
    return -1;
}

QDebug operator<<(QDebug debug, const Slice &slice)
{
    QDebugStateSaver saver(debug);
    debug.nospace() << "Slice(" << slice.name << ", " << (slice.generation ? slice.generation->name : QStringLiteral("?"))
                    << ' ' << slice.topology.toString() << ", " << slice.hosts.size() << " hosts, "
                    << toText(slice.status()) << ", reserved " << slice.reservedChips << ')';
    return debug;
}

QDebug operator<<(QDebug debug, const PlacementGroup &group)
{
    QDebugStateSaver saver(debug);
    debug.nospace() << "PlacementGroup(" << group.id << ", " << group.name << ", " << group.state << ", "
                    << group.bundles.size() << " bundles, slices " << group.slices << ')';
    return debug;
}

} // namespace slicescope
