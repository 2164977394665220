// SPDX-License-Identifier: GPL-3.0-or-later
#include "whypending.h"

#include "tpu.h"

namespace slicescope {

namespace {

QString meaningOf(const QString &state)
{
    // The states of Ray's PlacementGroupStats.SchedulingState.
    if (state == QLatin1String("INFEASIBLE"))
        return QStringLiteral("no node in the cluster, nor any node type the autoscaler can add, has the resources its bundles ask for");
    if (state == QLatin1String("NO_RESOURCES"))
        return QStringLiteral("nodes of the right kind exist, but their resources are in use now");
    if (state == QLatin1String("QUEUED"))
        return QStringLiteral("waiting for Ray's scheduler to look at it");
    if (state == QLatin1String("SCHEDULING_STARTED"))
        return QStringLiteral("Ray is placing its bundles now");
    if (state == QLatin1String("WAITING_FOR_SCHEDULING"))
        return QStringLiteral("waiting behind other placement groups");
    if (state == QLatin1String("FINISHED"))
        return QStringLiteral("scheduling finished");
    return state.isEmpty() ? QStringLiteral("Ray did not report a scheduling state") : QStringLiteral("reported by Ray as is");
}

} // namespace

PendingExplanation explainPendingGroup(const ClusterSnapshot &snapshot, const PlacementGroup &group)
{
    PendingExplanation e;
    e.schedulingState = group.schedulingState;
    e.schedulingMeaning = meaningOf(group.schedulingState);
    e.autoscalerStatus = snapshot.clusterStatusText;

    // One PlanRequest per distinct shape, counting the slices asked for: each head bundle is one
    // slice; bundles pinned to a slice count that slice once.
    QStringList pinnedSlices;
    auto addShape = [&](const tpu::Generation *gen, const tpu::Topology &topology) {
        for (PlanRequest &r : e.shapes)
            if (r.accelerator == gen->name && r.topology == topology.toString()) {
                ++r.numSlices;
                return;
            }
        // Planned in the group's own Ray cluster, when known: it cannot take another's slices.
        PlanRequest r{gen->name, topology.toString(), 1};
        r.rayCluster = group.rayCluster;
        r.context = group.context;
        e.shapes.append(r);
    };
    for (const Bundle &b : group.bundles) {
        if (!b.headResource.isEmpty()) {
            // TPU-<pod-type>-head: the pod type counts TensorCores; only its chip count is known,
            // so every valid topology of that size is a candidate shape (one, for 2D generations).
            QString podType = b.headResource.mid(4);
            podType.chop(5);
            int cores = 0;
            const tpu::Generation *gen = tpu::generationOfPodType(podType, &cores);
            if (!gen || cores <= 0)
                continue;
            const int chips = cores / std::max(1, gen->tensorCoresPerChip);
            for (const tpu::Topology &t : tpu::validTopologies(*gen))
                if (t.chips() == chips)
                    addShape(gen, t);
        } else if (!b.selectorSlice.isEmpty() && !pinnedSlices.contains(b.selectorSlice)) {
            pinnedSlices << b.selectorSlice;
            if (const int s = snapshot.sliceIndex(b.selectorSlice); s >= 0 && snapshot.slices[s].generation)
                addShape(snapshot.slices[s].generation, snapshot.slices[s].topology);
        }
    }
    for (const PlanRequest &r : std::as_const(e.shapes))
        e.plans.append(planSlicePlacement(snapshot, r));
    return e;
}

QString PendingExplanation::toText() const
{
    QStringList lines;
    lines << QStringLiteral("Ray's scheduling state: %1 (%2).").arg(schedulingState.isEmpty() ? QStringLiteral("unknown") : schedulingState, schedulingMeaning);
    if (shapes.isEmpty())
        lines << QStringLiteral("Its bundles name no TPU slice shape, so the planner has nothing to add.");
    for (qsizetype i = 0; i < plans.size(); ++i) {
        const PlanResult &p = plans[i];
        const QString shape = QStringLiteral("%1 %2 x%3").arg(shapes[i].accelerator, shapes[i].topology).arg(shapes[i].numSlices);
        if (p.feasible)
            lines << QStringLiteral("Planner: %1 fits now (would take %2); Ray should place it shortly.").arg(shape, p.wouldTake.join(QStringLiteral(", ")));
        else
            lines << QStringLiteral("Planner: %1 does not fit:").arg(shape);
        for (const QString &r : p.reasons)
            lines << QStringLiteral("  - ") + r.trimmed();
    }
    lines << QStringLiteral("Autoscaler (ray status):");
    lines << (autoscalerStatus.trimmed().isEmpty() ? QStringLiteral("  (not reported)") : autoscalerStatus.trimmed());
    return lines.join(u'\n');
}

} // namespace slicescope
