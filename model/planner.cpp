// SPDX-License-Identifier: GPL-3.0-or-later
#include "planner.h"

#include "naturalsort.h"

#include <QSet>

#include <algorithm>
#include <limits>
#include <utility>

namespace slicescope {

namespace {

QString holderText(const ClusterSnapshot &snap, int pg)
{
    const PlacementGroup &g = snap.placementGroups[pg];
    const QString who = g.name.isEmpty() ? g.displayLabel() : QStringLiteral("%1 (%2)").arg(g.name, g.id.left(PlacementGroup::kDisplayIdChars));
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

// What slice_placement_group makes of the request (Ray 2.60, ray/util/tpu.py: SlicePlacementGroup
// and get_tpu_worker_resources), and what it refuses, in Ray's own words. Returns an error or "".
QString resolveBundles(const tpu::Generation &gen, const PlanRequest &request, PlanResult &r)
{
    static const QStringList strategies = {QStringLiteral("PACK"), QStringLiteral("SPREAD"), QStringLiteral("STRICT_PACK"), QStringLiteral("STRICT_SPREAD")};
    r.strategy = request.strategy.isEmpty() ? QStringLiteral("SPREAD") : request.strategy;
    if (!strategies.contains(r.strategy))
        return QStringLiteral("strategy \"%1\" is not one of %2").arg(r.strategy, strategies.join(QStringLiteral(", ")));
    const QString rayRefuses = QStringLiteral("Ray refuses this request: ");
    if (request.chipsPerVm < 0)
        return rayRefuses + QStringLiteral("chips_per_vm must be positive.");
    if (request.tpuPerBundle < 0)
        return rayRefuses + QStringLiteral("TPU resources must be positive.");
    if (request.cpuPerBundle < 0)
        return QStringLiteral("CPU per bundle must not be negative");
    r.cpuPerBundle = request.cpuPerBundle;
    if (request.chipsPerVm > 0 && !tpu::hostBlock(gen, r.topology, request.chipsPerVm)) {
        // Ray would take any positive number and count chips / chips_per_vm hosts; VMs of that
        // size do not exist (or cannot tile the topology), so the count would be fiction.
        QStringList sizes;
        for (int c : gen.chipsPerHostOptions)
            if (tpu::hostBlock(gen, r.topology, c))
                sizes << QString::number(c);
        return QStringLiteral("chips per VM %1 does not fit a %2 %3: its VMs have %4 chips")
            .arg(request.chipsPerVm)
            .arg(gen.name, r.topology.toString(), sizes.join(QStringLiteral(" or ")));
    }
    const int chips = r.topology.chips();
    r.chipsPerHost = request.chipsPerVm > 0 ? request.chipsPerVm : tpu::defaultChipsPerHost(gen, r.topology);
    r.hostsPerSlice = std::max(1, chips / r.chipsPerHost);
    r.singleHost = chips <= r.chipsPerHost;
    r.tpuPerBundle = request.tpuPerBundle > 0 ? request.tpuPerBundle : r.chipsPerHost;
    const qint64 total = qint64(chips) * r.numSlices;
    if (total % r.tpuPerBundle != 0)
        return rayRefuses + QStringLiteral("Total TPU resources (%1) not divisible by TPUs requested per worker (%2).").arg(total).arg(r.tpuPerBundle);
    if (chips % r.tpuPerBundle != 0)
        return rayRefuses + QStringLiteral("The requested resources per worker (%1 TPU devices) do not divide evenly into the TPU devices "
                                           "available per slice (%2). This configuration results in an uneven distribution of workers "
                                           "across slices, which is not supported.")
                                .arg(r.tpuPerBundle)
                                .arg(chips);
    r.bundlesPerSlice = chips / r.tpuPerBundle;
    return {};
}

// Whether a ready slice's real hosts can hold the request's bundles under its strategy, by their
// chips and their CPU totals. Ray accepts a request whose bundles fit no host (TPU 8 on 4-chip
// hosts, 4 bundles of 1 CPU on 1-CPU hosts) and leaves it PENDING (NO_RESOURCES).
QString bundleFitProblem(const ClusterSnapshot &snap, const Slice &s, const PlanResult &r)
{
    const int hosts = s.hostCount();
    const int byChips = s.chipsPerHost > 0 ? s.chipsPerHost / r.tpuPerBundle : 0;
    if (byChips == 0)
        return QStringLiteral("%1 is ready, but a bundle of %2 TPU does not fit on its hosts of %3 chips").arg(s.name).arg(r.tpuPerBundle).arg(s.chipsPerHost);
    // Bundles a host holds: as many as its chips take, fewer when its CPU runs out first (the
    // node's total: what others use of it is not in the state API).
    int perHost = byChips, capacity = 0;
    double fewestCpu = -1;
    for (const Host &h : s.hosts) {
        int holds = byChips;
        if (r.cpuPerBundle > 0 && h.rayNode >= 0) {
            const double cpu = snap.rayNodes[h.rayNode].cpu;
            holds = std::min(holds, int(cpu / r.cpuPerBundle + 1e-9));
            fewestCpu = fewestCpu < 0 ? cpu : std::min(fewestCpu, cpu);
        }
        perHost = std::min(perHost, holds);
        capacity += holds;
    }
    if (perHost == 0 || capacity < r.bundlesPerSlice) {
        if (perHost < byChips && fewestCpu >= 0)
            return QStringLiteral("%1 is ready, but its hosts hold only %2 of the %3 bundles of {CPU: %4, TPU: %5}: a host has %6 CPU (lower CPU per bundle)")
                .arg(s.name)
                .arg(capacity)
                .arg(r.bundlesPerSlice)
                .arg(r.cpuPerBundle)
                .arg(r.tpuPerBundle)
                .arg(fewestCpu);
    }
    if (r.strategy == QLatin1String("STRICT_SPREAD") && r.bundlesPerSlice > hosts)
        return QStringLiteral("%1 is ready, but STRICT_SPREAD puts each of its %2 bundles on a node of its own and it has %3 host%4")
            .arg(s.name)
            .arg(r.bundlesPerSlice)
            .arg(hosts)
            .arg(hosts == 1 ? QString() : QStringLiteral("s"));
    if (r.strategy == QLatin1String("STRICT_PACK") && r.bundles() > perHost)
        return QStringLiteral("%1 is ready, but STRICT_PACK puts all %2 bundles on one node and its hosts hold %3 each")
            .arg(s.name)
            .arg(r.bundles())
            .arg(perHost);
    if (capacity < r.bundlesPerSlice)
        return QStringLiteral("%1 is ready, but its %2 host%3 hold only %4 of the %5 bundles").arg(s.name).arg(hosts).arg(hosts == 1 ? QString() : QStringLiteral("s")).arg(capacity).arg(r.bundlesPerSlice);
    return {};
}

} // namespace

QString describeBundles(const PlanResult &plan)
{
    const double cpuPerBundle = plan.cpuPerBundle;
    if (!plan.generation || plan.bundlesPerSlice <= 0)
        return {};
    const int n = plan.bundles();
    QString text = QStringLiteral("%1 bundle%2 x {CPU: %3, TPU: %4}").arg(n).arg(n == 1 ? QString() : QStringLiteral("s")).arg(cpuPerBundle).arg(plan.tpuPerBundle);
    if (!plan.wouldTake.isEmpty())
        text += QStringLiteral(" on ") + plan.wouldTake.join(QStringLiteral(", "));
    if (plan.numSlices > 1)
        text += QStringLiteral(" (%1 per slice)").arg(plan.bundlesPerSlice);
    return text;
}

namespace {

// Which slices and worker groups a plan may use: a placement group lives in one Ray cluster.
struct PlanScope {
    enum class Mode
    {
        Everything,
        Named,
        Exact
    };
    Mode mode = Mode::Everything;
    QString context;
    QString rayCluster;
    // Named: the request's RayCluster and context, each only when given (issue 16). Exact: one Ray
    // cluster as the snapshot names it, empty names included (issue 31).
    bool excludes(const QString &ctx, const QString &cluster) const
    {
        switch (mode) {
        case Mode::Everything:
            return false;
        case Mode::Named:
            return (!rayCluster.isEmpty() && cluster != rayCluster) || (!context.isEmpty() && ctx != context);
        case Mode::Exact:
            return ctx != context || cluster != rayCluster;
        }
        Q_UNREACHABLE();
    }
};

// The plan within one scope: its candidates, growth and reasons, on a result whose request part
// (shape, bundles) is filled in.
void planWithin(const ClusterSnapshot &snap, PlanResult &r, const PlanScope &scope, const QString &shape)
{
    QStringList notReady, otherVmSize;
    int sameShape = 0;
    QStringList samePodTypeOtherShape;
    for (const Slice &s : snap.slices) {
        if (s.generation != r.generation)
            continue;
        if (scope.excludes(s.context, s.rayCluster))
            continue; // another RayCluster's Ray cannot place these bundles
        if (s.topology.dims != r.topology.dims) {
            if (s.podType == r.podType)
                samePodTypeOtherShape << QStringLiteral("%1 (%2)").arg(s.name, s.topology.toString());
            continue;
        }
        ++sameShape;
        if (snap.hasRay && s.source == SliceSource::Kubernetes && s.isReady())
            // Ray cannot place bundles on hosts it does not list (another RayCluster's slice).
            notReady << QStringLiteral("%1 is not part of this Ray cluster (known only from Kubernetes)").arg(s.name);
        else if (!s.isReady())
            notReady << whyNotReady(snap, s);
        else if (const QString misfit = bundleFitProblem(snap, s, r); !misfit.isEmpty())
            notReady << misfit;
        else
            r.candidates << s.name;
        if (s.isReady() && s.chipsPerHost > 0 && s.chipsPerHost != r.chipsPerHost)
            otherVmSize << QStringLiteral("%1 (%2 host%3 of %4 chips)").arg(s.name).arg(s.hostCount()).arg(s.hostCount() == 1 ? QString() : QStringLiteral("s")).arg(s.chipsPerHost);
    }
    if (!otherVmSize.isEmpty())
        r.notes << QStringLiteral("chips per VM %1: Ray counts %2 host%3 of %1 chips per slice, but %4 %5 VMs of another size")
                       .arg(r.chipsPerHost)
                       .arg(r.hostsPerSlice)
                       .arg(r.hostsPerSlice == 1 ? QString() : QStringLiteral("s"))
                       .arg(otherVmSize.join(QStringLiteral(", ")), otherVmSize.size() == 1 ? QStringLiteral("has") : QStringLiteral("have"));
    if (r.singleHost && r.bundles() > 1 && r.strategy != QLatin1String("STRICT_PACK"))
        r.notes << QStringLiteral("a single-host %1 reserves no slice head and pins no slice: Ray may place its %2 bundles on any nodes with free TPU (%3 %4); STRICT_PACK keeps them on one host")
                       .arg(shape)
                       .arg(r.bundles())
                       .arg(r.strategy,
                            r.strategy == QLatin1String("STRICT_SPREAD") ? QStringLiteral("puts each on a node of its own")
                                                                         : QStringLiteral("prefers distinct nodes"));
    r.wouldTake = r.candidates.mid(0, r.numSlices);
    r.feasible = r.candidates.size() >= r.numSlices;

    for (const WorkerGroup &g : snap.workerGroups) {
        if (tpu::findGeneration(g.accelerator) != r.generation)
            continue;
        if (scope.excludes(g.context, g.qualifiedCluster()))
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
        return;

    const int missing = r.numSlices - int(r.candidates.size());
    r.reasons << QStringLiteral("needs %1 ready %2 slice%3 (%4, %5 host%6 of %7 chips, %8 bundle%9 of %10 TPU each); %11 ready%12")
                     .arg(r.numSlices)
                     .arg(shape, r.numSlices == 1 ? QString() : QStringLiteral("s"), r.podType)
                     .arg(r.hostsPerSlice)
                     .arg(r.hostsPerSlice == 1 ? QString() : QStringLiteral("s"))
                     .arg(r.chipsPerHost)
                     .arg(r.bundlesPerSlice)
                     .arg(r.bundlesPerSlice == 1 ? QString() : QStringLiteral("s"))
                     .arg(r.tpuPerBundle)
                     .arg(r.candidates.isEmpty()     ? QStringLiteral("none is")
                          : r.candidates.size() == 1 ? QStringLiteral("1 is")
                                                     : QStringLiteral("%1 are").arg(r.candidates.size()))
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
                             .arg(g.workerGroup)
                             .arg(g.canAdd)
                             .arg(g.canAdd == 1 ? QString() : QStringLiteral("s"))
                             .arg(g.replicas)
                             .arg(g.maxReplicas);
        else
            r.reasons << QStringLiteral("worker group %1 can add %2 slice%3 (replicas %4 -> up to maxReplicas %5)")
                             .arg(g.workerGroup)
                             .arg(g.canAdd)
                             .arg(g.canAdd == 1 ? QString() : QStringLiteral("s"))
                             .arg(g.replicas)
                             .arg(g.maxReplicas);
    }
    if (r.growth.isEmpty() && snap.hasKubernetes)
        r.reasons << QStringLiteral("no worker group makes %1 slices: add one with numOfHosts %2, google.com/tpu %3 and nodeSelector %4=%5, %6=%7")
                         .arg(shape)
                         .arg(r.hostsPerSlice)
                         .arg(r.chipsPerHost)
                         .arg(QStringLiteral("cloud.google.com/gke-tpu-accelerator"), r.generation->gkeAccelerator,
                              QStringLiteral("cloud.google.com/gke-tpu-topology"), r.topology.toString());
    else if (!r.growth.isEmpty() && growable < missing)
        r.reasons << QStringLiteral("even at maxReplicas the worker groups add only %1 of the %2 missing slice%3")
                         .arg(growable)
                         .arg(missing)
                         .arg(missing == 1 ? QString() : QStringLiteral("s"));
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
    if (const QString problem = resolveBundles(*r.generation, request, r); !problem.isEmpty()) {
        r.requestError = problem;
        return r;
    }
    const QString shape = QStringLiteral("%1 %2").arg(r.generation->name, r.topology.toString());

    // The Ray clusters holding slices of the shape, in name order, each planned on its own.
    using Key = std::pair<QString, QString>; // context, RayCluster
    QList<Key> keys;
    for (const Slice &s : snap.slices)
        if (s.generation == r.generation && s.topology.dims == r.topology.dims && !keys.contains(Key{s.context, s.rayCluster}))
            keys << Key{s.context, s.rayCluster};
    std::sort(keys.begin(), keys.end(), [](const Key &a, const Key &b) {
        return a.first != b.first ? naturalLess(a.first, b.first) : naturalLess(a.second, b.second);
    });
    QList<PlanResult> plans;
    for (const Key &k : std::as_const(keys)) {
        PlanResult p = r;
        planWithin(snap, p, PlanScope{PlanScope::Mode::Exact, k.first, k.second}, shape);
        r.clusters << ClusterFit{k.first, k.second, p.candidates, p.feasible};
        plans << std::move(p);
    }
    QSet<QString> contexts;
    for (const Key &k : std::as_const(keys))
        contexts.insert(k.first);
    const bool withContext = contexts.size() > 1;
    auto label = [withContext](const Key &k) {
        QString text = k.second.isEmpty() ? QStringLiteral("a Ray cluster of no known RayCluster") : k.second;
        if (withContext && !k.first.isEmpty())
            text += QStringLiteral(" (context %1)").arg(k.first);
        return text;
    };

    // The clusters the request may use: the one it names (a name without a context may match one
    // in each context), or every one.
    const bool named = !request.rayCluster.isEmpty() || !request.context.isEmpty();
    const PlanScope requested{named ? PlanScope::Mode::Named : PlanScope::Mode::Everything, request.context, request.rayCluster};
    QList<int> inScope;
    for (int i = 0; i < keys.size(); ++i)
        if (!requested.excludes(keys[i].first, keys[i].second))
            inScope << i;

    PlanResult out;
    if (inScope.size() <= 1) {
        // One Ray cluster (or none with the shape): planned as it always was, growth included.
        out = r;
        planWithin(snap, out, requested, shape);
        out.context = inScope.isEmpty() ? request.context : keys[inScope.front()].first;
        out.rayCluster = inScope.isEmpty() ? request.rayCluster : keys[inScope.front()].second;
    } else {
        // Several: the first where it fits, else the closest (the most ready slices); never a
        // group made of two clusters' slices.
        int chosen = -1;
        for (int i : std::as_const(inScope))
            if (plans[i].feasible) {
                chosen = i;
                break;
            }
        if (chosen < 0) {
            chosen = inScope.front();
            for (int i : std::as_const(inScope))
                if (plans[i].candidates.size() > plans[chosen].candidates.size())
                    chosen = i;
        }
        out = plans[chosen];
        out.context = keys[chosen].first;
        out.rayCluster = keys[chosen].second;
        if (out.feasible) {
            QStringList also;
            for (int i : std::as_const(inScope))
                if (i != chosen && plans[i].feasible)
                    also << QStringLiteral("%1 (%2)").arg(label(keys[i]), plans[i].candidates.join(QStringLiteral(", ")));
            if (!also.isEmpty())
                out.notes << QStringLiteral("planned in %1, the first of %2 Ray clusters where it fits; it also fits in %3 (a request naming a RayCluster plans there)")
                                 .arg(label(keys[chosen]))
                                 .arg(also.size() + 1)
                                 .arg(also.join(QStringLiteral(", ")));
        } else {
            QStringList counts;
            qsizetype together = 0;
            for (int i : std::as_const(inScope)) {
                together += plans[i].candidates.size();
                if (counts.isEmpty())
                    counts << QStringLiteral("%1 has %2 of the %3 slice%4 needed")
                                  .arg(label(keys[i]))
                                  .arg(plans[i].candidates.size())
                                  .arg(r.numSlices)
                                  .arg(r.numSlices == 1 ? QString() : QStringLiteral("s"));
                else
                    counts << QStringLiteral("%1 has %2").arg(label(keys[i])).arg(plans[i].candidates.size());
            }
            QString summary = QStringLiteral("fits in no single Ray cluster: %1").arg(counts.join(QStringLiteral(", ")));
            summary += together >= r.numSlices ? QStringLiteral("; together they would, but a placement group lives in one Ray cluster")
                                               : QStringLiteral("; a placement group lives in one Ray cluster");
            summary += QStringLiteral("; below, the closest: %1").arg(label(keys[chosen]));
            out.reasons.prepend(summary);
        }
    }
    out.clusters = r.clusters;

    // A named cluster that cannot take it while another could: say where (never used for it).
    if (named && !out.feasible) {
        QStringList others;
        for (int i = 0; i < keys.size(); ++i)
            if (!inScope.contains(i) && !plans[i].candidates.isEmpty())
                others << QStringLiteral("%1 has %2 (%3)").arg(label(keys[i])).arg(plans[i].candidates.size()).arg(plans[i].candidates.join(QStringLiteral(", ")));
        if (!others.isEmpty())
            out.reasons << QStringLiteral("other Ray clusters hold ready %1 slices, which a group in %2 cannot use: %3")
                               .arg(shape, describeRayCluster(request.context, request.rayCluster, !request.context.isEmpty()), others.join(QStringLiteral("; ")));
    }
    return out;
}

QString describeRayCluster(const QString &context, const QString &rayCluster, bool withContext)
{
    QString text = rayCluster.isEmpty() ? QStringLiteral("the Ray cluster") : QStringLiteral("RayCluster %1").arg(rayCluster);
    if (withContext && !context.isEmpty())
        text += rayCluster.isEmpty() ? QStringLiteral(" of context %1").arg(context) : QStringLiteral(" (context %1)").arg(context);
    return text;
}

QString planClusterText(const PlanResult &plan)
{
    if (plan.rayCluster.isEmpty() && plan.context.isEmpty())
        return {};
    QSet<QString> contexts;
    for (const ClusterFit &c : plan.clusters)
        contexts.insert(c.context);
    return describeRayCluster(plan.context, plan.rayCluster, contexts.size() > 1 || plan.rayCluster.isEmpty());
}

} // namespace slicescope
