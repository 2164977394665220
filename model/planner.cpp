// SPDX-License-Identifier: GPL-3.0-or-later
#include "planner.h"

#include <limits>

namespace slicescope {

namespace {

QString holderText(const ClusterSnapshot &snap, int pg)
{
    const PlacementGroup &g = snap.placementGroups[pg];
    const QString who = g.name.isEmpty() ? g.id : QStringLiteral("%1 (%2)").arg(g.name, g.id.left(8));
    return QStringLiteral("placement group %1, %2").arg(who, g.state);
}

QString whyNotReady(const ClusterSnapshot &snap, const Slice &s)
{
    switch (s.status()) {
    case SliceStatus::Ready:
        return {};
    case SliceStatus::Degraded:
        return QStringLiteral("%1 is degraded: %2").arg(s.name, s.problems.join(QStringLiteral(", ")));
    case SliceStatus::Provisioning:
        return QStringLiteral("%1 is still provisioning: %2").arg(s.name, s.problems.join(QStringLiteral(", ")));
    case SliceStatus::Reserved: {
        QStringList holders;
        QList<int> seen;
        for (const Host &h : s.hosts)
            for (const ChipUse &c : h.chips)
                if (c.placementGroup >= 0 && !seen.contains(c.placementGroup)) {
                    seen << c.placementGroup;
                    holders << holderText(snap, c.placementGroup);
                }
        QString text = QStringLiteral("%1 is in use: %2 of %3 chips reserved").arg(s.name).arg(s.reservedChips).arg(s.chips());
        if (!holders.isEmpty())
            text += QStringLiteral(" by ") + holders.join(QStringLiteral("; "));
        if (s.headHeldBy >= 0 && !seen.contains(s.headHeldBy))
            text += QStringLiteral("; its head (worker 0) is claimed by %1").arg(holderText(snap, s.headHeldBy));
        return text;
    }
    }
    Q_UNREACHABLE();
}

} // namespace

PlanResult planSlicePlacement(const ClusterSnapshot &snap, const PlanRequest &request)
{
    PlanResult r;
    r.numSlices = request.numSlices;
    if (request.numSlices < 1) {
        r.requestError = QStringLiteral("--num-slices must be at least 1");
        return r;
    }
    r.generation = tpu::findGeneration(request.accelerator);
    if (!r.generation) {
        QStringList known;
        for (const auto &g : tpu::generations())
            known << g.name;
        r.requestError = QStringLiteral("unknown TPU accelerator \"%1\" (known: %2)").arg(request.accelerator, known.join(QStringLiteral(", ")));
        return r;
    }
    const auto topo = tpu::parseTopology(request.topology);
    if (!topo) {
        r.requestError = QStringLiteral("\"%1\" is not a topology (write AxB or AxBxC)").arg(request.topology);
        return r;
    }
    r.topology = *topo;
    if (const QString problem = tpu::topologyProblem(*r.generation, r.topology); !problem.isEmpty()) {
        r.requestError = problem;
        return r;
    }
    r.podType = tpu::podType(*r.generation, r.topology);
    r.chipsPerHost = tpu::defaultChipsPerHost(*r.generation, r.topology);
    r.hostsPerSlice = r.topology.chips() / r.chipsPerHost;
    const QString shape = QStringLiteral("%1 %2").arg(r.generation->name, r.topology.toString());

    QStringList notReady;
    int sameShape = 0;
    QStringList samePodTypeOtherShape;
    for (const Slice &s : snap.slices) {
        if (s.generation != r.generation)
            continue;
        if (s.topology.dims != r.topology.dims) {
            if (s.podType == r.podType)
                samePodTypeOtherShape << QStringLiteral("%1 (%2)").arg(s.name, s.topology.toString());
            continue;
        }
        ++sameShape;
        if (snap.hasRay && s.source == SliceSource::Kubernetes && s.isReady())
            // Ray cannot place bundles on hosts it does not list (another RayCluster's slice).
            notReady << QStringLiteral("%1 is not part of this Ray cluster (known only from Kubernetes)").arg(s.name);
        else if (s.isReady())
            r.candidates << s.name;
        else
            notReady << whyNotReady(snap, s);
    }
    r.wouldTake = r.candidates.mid(0, r.numSlices);
    r.feasible = r.candidates.size() >= r.numSlices;

    for (const WorkerGroup &g : snap.workerGroups) {
        if (tpu::findGeneration(g.accelerator) != r.generation)
            continue;
        const auto groupTopo = tpu::parseTopology(g.topology);
        if (!groupTopo || groupTopo->dims != r.topology.dims)
            continue;
        // A suspended group makes no slices until resumed; an unbounded one can add what is missing.
        const bool unbounded = g.maxReplicas == std::numeric_limits<int>::max();
        const int canAdd = g.suspended ? 0 : unbounded ? std::max(1, r.numSlices - int(r.candidates.size()))
                                                       : std::max(0, g.maxReplicas - g.replicas);
        r.growth << GroupGrowth{g.qualifiedName(), g.replicas, g.maxReplicas, canAdd, g.autoscaling, g.suspended};
    }
    if (r.feasible)
        return r;

    const int missing = r.numSlices - int(r.candidates.size());
    r.reasons << QStringLiteral("needs %1 ready %2 slice%3 (%4, %5 host%6 of %7 chips); %8 ready%9")
                     .arg(r.numSlices).arg(shape, r.numSlices == 1 ? QString() : QStringLiteral("s"), r.podType)
                     .arg(r.hostsPerSlice).arg(r.hostsPerSlice == 1 ? QString() : QStringLiteral("s")).arg(r.chipsPerHost)
                     .arg(r.candidates.isEmpty() ? QStringLiteral("none is")
                          : r.candidates.size() == 1 ? QStringLiteral("1 is") : QStringLiteral("%1 are").arg(r.candidates.size()))
                     .arg(r.candidates.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(r.candidates.join(QStringLiteral(", "))));
    if (sameShape == 0)
        r.reasons << QStringLiteral("no %1 slice exists in this cluster").arg(shape);
    else if (!notReady.isEmpty()) // when all of them are ready, there are just too few: the line above says so
        r.reasons << QStringLiteral("%1 of %2 %3 slices are not ready:").arg(notReady.size()).arg(sameShape).arg(shape);
    for (const QString &why : std::as_const(notReady))
        r.reasons << QStringLiteral("  ") + why;
    if (!samePodTypeOtherShape.isEmpty())
        r.reasons << QStringLiteral("same pod type %1 but another topology, so not usable: %2")
                         .arg(r.podType, samePodTypeOtherShape.join(QStringLiteral(", ")));
    int growable = 0;
    for (const GroupGrowth &g : std::as_const(r.growth)) {
        growable += g.canAdd;
        if (g.suspended)
            r.reasons << QStringLiteral("worker group %1 is suspended: resume it to get slices").arg(g.workerGroup);
        else if (g.maxReplicas == std::numeric_limits<int>::max())
            r.reasons << QStringLiteral("worker group %1 has no maxReplicas: it can add the missing slices (replicas %2)").arg(g.workerGroup).arg(g.replicas);
        else if (g.canAdd == 0)
            r.reasons << QStringLiteral("worker group %1 is at its maxReplicas (%2): raise maxReplicas to add slices").arg(g.workerGroup).arg(g.maxReplicas);
        else if (g.autoscaling)
            r.reasons << QStringLiteral("worker group %1 is autoscaled: the Ray autoscaler can add up to %2 slice%3 (replicas %4, maxReplicas %5) while the request waits")
                             .arg(g.workerGroup).arg(g.canAdd).arg(g.canAdd == 1 ? QString() : QStringLiteral("s")).arg(g.replicas).arg(g.maxReplicas);
        else
            r.reasons << QStringLiteral("worker group %1 can add %2 slice%3 (replicas %4 -> up to maxReplicas %5)")
                             .arg(g.workerGroup).arg(g.canAdd).arg(g.canAdd == 1 ? QString() : QStringLiteral("s")).arg(g.replicas).arg(g.maxReplicas);
    }
    if (r.growth.isEmpty() && snap.hasKubernetes)
        r.reasons << QStringLiteral("no worker group makes %1 slices: add one with numOfHosts %2, google.com/tpu %3 and nodeSelector %4=%5, %6=%7")
                         .arg(shape).arg(r.hostsPerSlice).arg(r.chipsPerHost)
                         .arg(QStringLiteral("cloud.google.com/gke-tpu-accelerator"), r.generation->gkeAccelerator,
                              QStringLiteral("cloud.google.com/gke-tpu-topology"), r.topology.toString());
    else if (!r.growth.isEmpty() && growable < missing)
        r.reasons << QStringLiteral("even at maxReplicas the worker groups add only %1 of the %2 missing slice%3")
                         .arg(growable).arg(missing).arg(missing == 1 ? QString() : QStringLiteral("s"));
    return r;
}

} // namespace slicescope
