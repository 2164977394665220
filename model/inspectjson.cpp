// SPDX-License-Identifier: GPL-3.0-or-later
#include "inspectjson.h"

#include <QJsonArray>

#include <cmath>

namespace slicescope {

namespace {

QJsonValue orNull(const QString &s) { return s.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(s); }
QJsonValue orNull(int i) { return i < 0 ? QJsonValue(QJsonValue::Null) : QJsonValue(i); }

QJsonArray strings(const QStringList &list)
{
    QJsonArray a;
    for (const QString &s : list)
        a.append(s);
    return a;
}

QJsonValue number(double v) { return std::isnan(v) ? QJsonValue() : QJsonValue(v); }
// Percentages are held as floats: printed as the float's own digits (0.1, not 0.10000000149011612).
QJsonValue percent(double v) { return std::isnan(v) ? QJsonValue() : QJsonValue(std::round(v * 1e4) / 1e4); }

// A chip's activity (model/activity.h): null when no source reports it; null members unknown.
QJsonValue activityJson(const ClusterSnapshot &snap, const ChipActivity *a)
{
    if (!a || !a->reports())
        return QJsonValue();
    const qint64 age = a->ageSeconds(snap.capturedAt);
    return QJsonObject{
        {QStringLiteral("dutyCycle"), percent(a->dutyCycle)},
        {QStringLiteral("tensorcoreUtilization"), percent(a->tensorcoreUtilization)},
        {QStringLiteral("hbmBandwidthUtilization"), percent(a->hbmBandwidthUtilization)},
        {QStringLiteral("hbmUsedBytes"), number(a->hbmUsedBytes)},
        {QStringLiteral("hbmTotalBytes"), number(a->hbmTotalBytes)},
        {QStringLiteral("ageSeconds"), age < 0 ? QJsonValue() : QJsonValue(age)},
        {QStringLiteral("source"), toText(a->source)},
        // Prometheus's idle window, when it was asked and answered for this chip: the highest duty
        // cycle over it, and whether Prometheus saw the whole window (only then can it prove idle).
        {QStringLiteral("window"), a->windowSeconds <= 0 || std::isnan(a->windowMaxDutyCycle)
                                       ? QJsonValue()
                                       : QJsonValue(QJsonObject{{QStringLiteral("seconds"), a->windowSeconds},
                                                                {QStringLiteral("maxDutyCycle"), percent(a->windowMaxDutyCycle)},
                                                                {QStringLiteral("covered"), a->windowCovered}})},
    };
}

// The top-level `activity`: how many chips report and their mean duty cycle; null when nothing was asked.
QJsonValue activitySummaryJson(const ClusterSnapshot &snap)
{
    const ActivityTable *t = snap.activity.get();
    if (!t)
        return QJsonValue();
    double sum = 0;
    int withDutyCycle = 0;
    for (int s = 0; s < snap.slices.size(); ++s) {
        const ActivityCounts c = t->sliceCounts(s);
        sum += c.dutyCycleSum;
        withDutyCycle += c.withDutyCycle;
    }
    return QJsonObject{
        {QStringLiteral("chips"), t->chipCount()},
        {QStringLiteral("reporting"), t->reportingChips()},
        {QStringLiteral("meanDutyCycle"), withDutyCycle ? percent(sum / withDutyCycle) : QJsonValue()},
        {QStringLiteral("sources"), strings(t->sources)},
        {QStringLiteral("problems"), strings(t->problems)},
    };
}

QJsonObject hostJson(const ClusterSnapshot &snap, const Slice &slice, const Host &h, int si, int hi)
{
    const ActivityTable *activity = snap.activity.get();
    const RayNode *node = h.rayNode >= 0 ? &snap.rayNodes[h.rayNode] : nullptr;
    const Pod *pod = h.pod >= 0 ? &snap.pods[h.pod] : nullptr;
    const KubeNode *kubeNode = h.kubeNode >= 0 ? &snap.kubeNodes[h.kubeNode] : nullptr;
    QJsonArray chips;
    for (int c = 0; c < h.chips.size(); ++c) {
        const tpu::ChipCoord at = slice.layout.chipPosition(h.workerId, c);
        const ChipUse &use = h.chips[c];
        chips.append(QJsonObject{
            {QStringLiteral("x"), at.x},
            {QStringLiteral("y"), at.y},
            {QStringLiteral("z"), at.z},
            {QStringLiteral("placementGroup"), use.placementGroup >= 0 ? QJsonValue(snap.placementGroups[use.placementGroup].id) : QJsonValue()},
            {QStringLiteral("bundleIndex"), orNull(use.bundleIndex)},
            {QStringLiteral("activity"), activityJson(snap, activity ? activity->chip(si, hi, c) : nullptr)},
        });
    }
    return QJsonObject{
        {QStringLiteral("workerId"), h.workerId},
        {QStringLiteral("state"), toText(h.state)},
        {QStringLiteral("rayNodeId"), node ? QJsonValue(node->id) : QJsonValue()},
        {QStringLiteral("pod"), pod ? QJsonValue(pod->qualifiedName()) : QJsonValue()},
        {QStringLiteral("nodeIp"), node ? orNull(node->ip) : pod ? orNull(pod->podIp)
                                                                 : QJsonValue()},
        {QStringLiteral("kubeNode"), kubeNode ? QJsonValue(kubeNode->name) : pod ? orNull(pod->nodeName)
                                                                                 : QJsonValue()},
        {QStringLiteral("nodePool"), kubeNode ? orNull(kubeNode->nodePool) : QJsonValue()},
        {QStringLiteral("reportedChips"), h.reportedChips},
        {QStringLiteral("reservedChips"), h.reservedChips()},
        {QStringLiteral("podStatus"), pod ? orNull(pod->lifecycleText()) : QJsonValue()},
        {QStringLiteral("megascale"), pod ? strings(pod->megascale) : QJsonArray()},
        {QStringLiteral("subslices"), node ? strings(node->subslices) : QJsonArray()},
        {QStringLiteral("chips"), chips},
        {QStringLiteral("activityUnknownReason"), activity ? orNull(activity->unknownReason(si, hi)) : QJsonValue()},
        {QStringLiteral("context"), orNull(slice.context)},
        {QStringLiteral("rayCluster"), orNull(slice.rayCluster)},
    };
}

QJsonObject sliceJson(const ClusterSnapshot &snap, const Slice &s)
{
    QJsonArray hosts;
    const int si = int(&s - snap.slices.constData());
    for (int hi = 0; hi < s.hosts.size(); ++hi)
        hosts.append(hostJson(snap, s, s.hosts[hi], si, hi));
    const tpu::Dims d = s.topology.dims;
    const bool known = s.topology.chips() > 0;
    return QJsonObject{
        {QStringLiteral("name"), s.name},
        {QStringLiteral("rayName"), s.rayName.isEmpty() ? QJsonValue(s.name) : QJsonValue(s.rayName)},
        {QStringLiteral("generation"), s.generation ? QJsonValue(s.generation->name) : QJsonValue()},
        {QStringLiteral("topology"), known ? QJsonValue(s.topology.toString()) : QJsonValue()},
        {QStringLiteral("dims"), known ? QJsonValue(QJsonArray{d.x, d.y, d.z}) : QJsonValue()},
        {QStringLiteral("podType"), orNull(s.podType)},
        {QStringLiteral("chips"), s.chips()},
        {QStringLiteral("hostCount"), s.hostCount()},
        {QStringLiteral("chipsPerHost"), s.chipsPerHost},
        {QStringLiteral("tpuPerChip"), s.tpuPerChip},
        {QStringLiteral("intact"), s.intact},
        {QStringLiteral("ready"), s.isReady()},
        {QStringLiteral("status"), toText(s.status())},
        {QStringLiteral("reservedChips"), s.reservedChips},
        {QStringLiteral("headReservedBy"), s.headHeldBy >= 0 ? QJsonValue(snap.placementGroups[s.headHeldBy].id) : QJsonValue()},
        {QStringLiteral("source"), toText(s.source)},
        {QStringLiteral("workerGroup"), orNull(s.workerGroup)},
        {QStringLiteral("context"), orNull(s.context)},
        {QStringLiteral("rayCluster"), orNull(s.rayCluster)},
        {QStringLiteral("problems"), strings(s.problems)},
        {QStringLiteral("unrecognised"), s.unrecognised.isEmpty() ? QJsonValue() : QJsonValue(s.unrecognised)},
        {QStringLiteral("hosts"), hosts},
    };
}

QJsonObject placementGroupJson(const ClusterSnapshot &snap, const PlacementGroup &g)
{
    QJsonArray bundles;
    for (const Bundle &b : g.bundles) {
        bundles.append(QJsonObject{
            {QStringLiteral("index"), b.index},
            {QStringLiteral("rayNodeId"), orNull(b.nodeId)},
            {QStringLiteral("slice"), b.slice >= 0 ? QJsonValue(snap.slices[b.slice].name) : QJsonValue()},
            {QStringLiteral("workerId"), b.slice >= 0 ? orNull(b.workerId) : QJsonValue()},
            {QStringLiteral("tpu"), b.tpu},
            {QStringLiteral("cpu"), b.cpu},
            {QStringLiteral("selectorSlice"), orNull(b.selectorSlice)},
            {QStringLiteral("headResource"), orNull(b.headResource)},
        });
    }
    return QJsonObject{
        {QStringLiteral("id"), g.id},
        {QStringLiteral("name"), g.name},
        {QStringLiteral("state"), g.state},
        {QStringLiteral("kind"), toText(g.kind)},
        {QStringLiteral("detached"), g.detached},
        {QStringLiteral("schedulingState"), orNull(g.schedulingState)},
        {QStringLiteral("creatorJobId"), orNull(g.creatorJobId)},
        {QStringLiteral("slices"), strings(g.slices)},
        {QStringLiteral("reservation"), orNull(g.reservation)},
        {QStringLiteral("context"), orNull(g.context)},
        {QStringLiteral("rayCluster"), orNull(g.rayCluster)},
        {QStringLiteral("bundles"), bundles},
    };
}

QJsonObject workerGroupJson(const WorkerGroup &g)
{
    const tpu::Generation *gen = tpu::findGeneration(g.accelerator);
    return QJsonObject{
        {QStringLiteral("cluster"), g.qualifiedCluster()},
        {QStringLiteral("group"), g.group},
        {QStringLiteral("replicas"), g.replicas},
        {QStringLiteral("minReplicas"), g.minReplicas},
        {QStringLiteral("maxReplicas"), g.maxReplicas},
        {QStringLiteral("numOfHosts"), g.numOfHosts},
        {QStringLiteral("accelerator"), orNull(g.accelerator)},
        {QStringLiteral("generation"), gen ? QJsonValue(gen->name) : QJsonValue()},
        {QStringLiteral("topology"), orNull(g.topology)},
        {QStringLiteral("chipsPerHost"), g.chipsPerHost},
        {QStringLiteral("autoscaling"), g.autoscaling},
        {QStringLiteral("suspended"), g.suspended},
        {QStringLiteral("workersToDelete"), strings(g.workersToDelete)},
        {QStringLiteral("slices"), strings(g.slices)},
        {QStringLiteral("context"), orNull(g.context)},
        {QStringLiteral("rayCluster"), g.qualifiedCluster()},
    };
}

} // namespace

QJsonObject alertJson(const Alert &a)
{
    return QJsonObject{
        {QStringLiteral("kind"), toText(a.kind)},
        {QStringLiteral("severity"), toText(a.severity)},
        {QStringLiteral("subject"), a.subject},
        {QStringLiteral("subjectKind"), toText(a.subjectKind)},
        {QStringLiteral("since"), a.since.isValid() ? QJsonValue(a.since.toUTC().toString(Qt::ISODate)) : QJsonValue()},
        {QStringLiteral("text"), a.text},
        {QStringLiteral("slice"), orNull(a.selectSlice)},
        {QStringLiteral("placementGroup"), orNull(a.selectPlacementGroup)},
        {QStringLiteral("count"), a.count},
        {QStringLiteral("rollup"), a.rollup},
        {QStringLiteral("id"), a.id},
        {QStringLiteral("context"), orNull(a.context)},
        {QStringLiteral("rayCluster"), orNull(a.rayCluster)},
    };
}

QJsonArray alertsJson(const QList<Alert> &alerts)
{
    QJsonArray out;
    for (const Alert &a : alerts)
        out.append(alertJson(a));
    return out;
}

QJsonObject inspectJson(const ClusterSnapshot &snap)
{
    AlertEngine engine;
    engine.observe(snap);
    return inspectJson(snap, engine.alerts());
}

QJsonObject inspectJson(const ClusterSnapshot &snap, const QList<Alert> &alerts)
{
    QJsonArray slices, groups, workerGroups, rayViews, contextStates;
    for (const ContextState &c : snap.contextStates)
        contextStates.append(QJsonObject{{QStringLiteral("context"), c.context}, {QStringLiteral("error"), orNull(c.error)}});
    for (const RayViewState &v : snap.rayViews)
        rayViews.append(QJsonObject{
            {QStringLiteral("context"), orNull(v.context)},
            {QStringLiteral("rayCluster"), orNull(v.cluster)},
            {QStringLiteral("answered"), v.answered},
            {QStringLiteral("error"), orNull(v.error)},
        });
    for (const Slice &s : snap.slices)
        slices.append(sliceJson(snap, s));
    for (const PlacementGroup &g : snap.placementGroups)
        groups.append(placementGroupJson(snap, g));
    for (const WorkerGroup &g : snap.workerGroups)
        workerGroups.append(workerGroupJson(g));
    return QJsonObject{
        {QStringLiteral("slices"), slices},
        {QStringLiteral("placementGroups"), groups},
        {QStringLiteral("workerGroups"), workerGroups},
        {QStringLiteral("capturedAt"), snap.capturedAt.isValid() ? QJsonValue(snap.capturedAt.toUTC().toString(Qt::ISODate)) : QJsonValue()},
        {QStringLiteral("rayVersion"), orNull(snap.rayVersion)},
        {QStringLiteral("kubeContext"), orNull(snap.kubeContext)},
        {QStringLiteral("warnings"), strings(snap.warnings)},
        {QStringLiteral("errors"), strings(snap.errors)},
        {QStringLiteral("activity"), activitySummaryJson(snap)},
        {QStringLiteral("alerts"), alertsJson(alerts)},
        {QStringLiteral("contexts"), strings(snap.contexts)},
        {QStringLiteral("contextStates"), contextStates},
        {QStringLiteral("rayViews"), rayViews},
    };
}

QJsonObject planJson(const PlanResult &plan)
{
    QJsonArray growth;
    for (const GroupGrowth &g : plan.growth)
        growth.append(QJsonObject{
            {QStringLiteral("workerGroup"), g.workerGroup},
            {QStringLiteral("replicas"), g.replicas},
            {QStringLiteral("maxReplicas"), g.maxReplicas},
            {QStringLiteral("canAdd"), g.canAdd},
            {QStringLiteral("autoscaling"), g.autoscaling},
            {QStringLiteral("suspended"), g.suspended},
        });
    QJsonArray clusters;
    for (const ClusterFit &c : plan.clusters)
        clusters.append(QJsonObject{
            {QStringLiteral("rayCluster"), orNull(c.rayCluster)},
            {QStringLiteral("context"), orNull(c.context)},
            {QStringLiteral("feasible"), c.feasible},
            {QStringLiteral("candidates"), strings(c.candidates)},
        });
    return QJsonObject{
        {QStringLiteral("feasible"), plan.feasible},
        {QStringLiteral("request"), QJsonObject{
                                        {QStringLiteral("generation"), plan.generation ? QJsonValue(plan.generation->name) : QJsonValue()},
                                        {QStringLiteral("topology"), plan.topology.toString()},
                                        {QStringLiteral("podType"), plan.podType},
                                        {QStringLiteral("numSlices"), plan.numSlices},
                                        {QStringLiteral("hostsPerSlice"), plan.hostsPerSlice},
                                        {QStringLiteral("chipsPerHost"), plan.chipsPerHost},
                                        {QStringLiteral("tpuPerBundle"), plan.tpuPerBundle},
                                        {QStringLiteral("bundlesPerSlice"), plan.bundlesPerSlice},
                                        {QStringLiteral("bundles"), plan.bundles()},
                                        {QStringLiteral("strategy"), plan.strategy},
                                        {QStringLiteral("singleHost"), plan.singleHost},
                                    }},
        {QStringLiteral("candidates"), strings(plan.candidates)},
        {QStringLiteral("wouldTake"), strings(plan.wouldTake)},
        {QStringLiteral("reasons"), strings(plan.reasons)},
        {QStringLiteral("growth"), growth},
        {QStringLiteral("notes"), strings(plan.notes)},
        {QStringLiteral("rayCluster"), orNull(plan.rayCluster)},
        {QStringLiteral("context"), orNull(plan.context)},
        {QStringLiteral("clusters"), clusters},
    };
}

} // namespace slicescope
