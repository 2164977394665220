// SPDX-License-Identifier: GPL-3.0-or-later
#include "scaleplan.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <limits>

namespace slicescope {

namespace {

constexpr int kUnbounded = std::numeric_limits<int>::max();

QString bound(int value)
{
    return value == kUnbounded ? QStringLiteral("unbounded") : QString::number(value);
}

QString groupPath(const WorkerGroup &g)
{
    return QStringLiteral("/spec/workerGroupSpecs/%1").arg(g.specIndex);
}

QJsonObject op(const char *name, const QString &path, const QJsonValue &value)
{
    return {{QStringLiteral("op"), QLatin1String(name)}, {QStringLiteral("path"), path}, {QStringLiteral("value"), value}};
}

// Lower is removed first: idle and broken slices go before ones doing work.
int removalRank(const Slice &s)
{
    switch (s.status()) {
    case SliceStatus::Provisioning:
        return 0;
    case SliceStatus::Degraded:
        return s.reservedChips == 0 && s.headHeldBy < 0 ? 1 : 3;
    case SliceStatus::Ready:
        return 2;
    case SliceStatus::Reserved:
        return 4;
    }
    return 4;
}

QStringList podsOfSlice(const ClusterSnapshot &snap, const WorkerGroup &g, const Slice &s)
{
    QStringList pods;
    for (const Host &h : s.hosts) {
        if (h.pod >= 0)
            pods << snap.pods[h.pod].name;
    }
    for (const Pod &p : snap.pods) {
        if (p.ns == g.ns && p.cluster == g.cluster && p.group == g.group && p.replicaKey == s.name && !pods.contains(p.name))
            pods << p.name;
    }
    std::sort(pods.begin(), pods.end());
    return pods;
}

QStringList groupsOnSlice(const ClusterSnapshot &snap, const QString &slice)
{
    QStringList names;
    for (const PlacementGroup &pg : snap.placementGroups) {
        if (pg.slices.contains(slice))
            names << (pg.name.isEmpty() ? pg.id : pg.name);
    }
    return names;
}

QString listOrNone(const QStringList &items)
{
    return items.isEmpty() ? QStringLiteral("none") : items.join(QStringLiteral(", "));
}

} // namespace

SliceTarget sliceTarget(const ClusterSnapshot &snap, const QString &name)
{
    SliceTarget t;
    const int si = name.isEmpty() ? -1 : snap.sliceIndex(name);
    if (si < 0)
        return t;
    const Slice &s = snap.slices[si];
    t.name = s.name;
    t.workerGroup = s.workerGroup;
    t.status = s.status();
    for (const Host &h : s.hosts) {
        const QString pod = h.pod >= 0 ? snap.pods[h.pod].name : QStringLiteral("no pod");
        const QString node = h.rayNode >= 0 ? snap.rayNodes[h.rayNode].id : QStringLiteral("none");
        t.hosts << QStringLiteral("worker %1 %2, pod %3, Ray node %4").arg(h.workerId).arg(toText(h.state), pod, node);
    }
    if (const int gi = snap.workerGroupOf(s); gi >= 0)
        t.pods = podsOfSlice(snap, snap.workerGroups[gi], s);
    else
        for (const Host &h : s.hosts)
            if (h.pod >= 0)
                t.pods << snap.pods[h.pod].name;
    t.pods.sort();
    t.placementGroups = groupsOnSlice(snap, s.name);
    return t;
}

QStringList sliceTargetChanges(const SliceTarget &before, const SliceTarget &now, bool podsOnly)
{
    QStringList changes;
    if (now.name.isEmpty())
        return {QStringLiteral("it vanished from the cluster")};
    if (now.workerGroup != before.workerGroup)
        changes << QStringLiteral("worker group %1 -> %2").arg(before.workerGroup, now.workerGroup.isEmpty() ? QStringLiteral("none") : now.workerGroup);
    if (now.pods != before.pods)
        changes << QStringLiteral("pods %1 -> %2").arg(listOrNone(before.pods), listOrNone(now.pods));
    if (podsOnly)
        return changes;
    if (now.status != before.status)
        changes << QStringLiteral("state %1 -> %2").arg(toText(before.status), toText(now.status));
    if (now.hosts != before.hosts) {
        QStringList gone, came;
        for (const QString &h : before.hosts)
            if (!now.hosts.contains(h))
                gone << h;
        for (const QString &h : now.hosts)
            if (!before.hosts.contains(h))
                came << h;
        changes << QStringLiteral("hosts [%1] -> [%2]").arg(gone.isEmpty() ? QStringLiteral("same") : gone.join(QStringLiteral("; ")), came.isEmpty() ? QStringLiteral("same") : came.join(QStringLiteral("; ")));
    }
    if (now.placementGroups != before.placementGroups)
        changes << QStringLiteral("placement groups %1 -> %2").arg(listOrNone(before.placementGroups), listOrNone(now.placementGroups));
    return changes;
}

QStringList removalTargetChanges(const ScalePlan &plan, const ClusterSnapshot &newest, bool podsOnly)
{
    QStringList lines;
    if (plan.podsToDelete.isEmpty())
        return lines;
    for (const SliceTarget &before : plan.removedTargets) {
        const SliceTarget now = sliceTarget(newest, before.name);
        const QStringList changes = sliceTargetChanges(before, now, podsOnly);
        if (now.name.isEmpty())
            lines << QStringLiteral("%1 vanished from the cluster").arg(before.name);
        else if (!changes.isEmpty())
            lines << QStringLiteral("%1 changed: %2").arg(before.name, changes.join(QStringLiteral("; ")));
    }
    return lines;
}

QString describeReplicas(int replicas, int hostsPerSlice, int chipsPerHost)
{
    QString text = QStringLiteral("%1 slice%2 x %3 host%4").arg(replicas).arg(replicas == 1 ? QString() : QStringLiteral("s")).arg(hostsPerSlice).arg(hostsPerSlice == 1 ? QString() : QStringLiteral("s"));
    if (chipsPerHost > 0)
        text += QStringLiteral(" x %1 chips = %2 chips").arg(chipsPerHost).arg(qint64(replicas) * hostsPerSlice * chipsPerHost);
    return text;
}

ScalePlan planScale(const ClusterSnapshot &snap, const ScaleRequest &request)
{
    ScalePlan plan;
    const int gi = snap.workerGroupIndex(request.workerGroup);
    QStringList keys; // the contexts' groups a bare "ns/cluster/group" could mean
    for (const WorkerGroup &g : snap.workerGroups)
        if (g.qualifiedName() == request.workerGroup)
            keys << g.fleetKey();
    if (gi < 0 && keys.size() > 1) {
        // The same ns/cluster/group in several contexts: which one is the operator's choice, not ours.
        plan.refusal = QStringLiteral("worker group %1 is in %2 contexts: name one as %3").arg(request.workerGroup).arg(keys.size()).arg(keys.join(QStringLiteral(" or ")));
        return plan;
    }
    if (gi < 0) {
        QStringList known;
        for (const WorkerGroup &g : snap.workerGroups)
            known << g.fleetKey();
        plan.refusal = QStringLiteral("no worker group %1 (known: %2)")
                           .arg(request.workerGroup, known.isEmpty() ? QStringLiteral("none") : known.join(QStringLiteral(", ")));
        return plan;
    }
    const WorkerGroup &g = snap.workerGroups[gi];
    plan.group = g;
    plan.hostsPerSlice = g.numOfHosts;
    plan.chipsPerHost = g.chipsPerHost;
    plan.fromReplicas = plan.toReplicas = g.replicas;
    plan.fromMin = plan.toMin = g.minReplicas;
    plan.fromMax = plan.toMax = g.maxReplicas;
    if (g.specIndex < 0) {
        plan.refusal = QStringLiteral("%1: its position in the RayCluster spec is unknown").arg(g.qualifiedName());
        return plan;
    }
    if (g.suspended)
        plan.notes << QStringLiteral("the group is suspended: KubeRay keeps no pods for it until it is resumed");

    // Slices currently in the group, highest replica first.
    QList<const Slice *> slices;
    for (const QString &name : g.slices) {
        const int si = snap.sliceIndex(name);
        if (si >= 0)
            slices.prepend(&snap.slices[si]);
    }

    auto removeSlices = [&](int count) {
        QList<const Slice *> order = slices;
        std::stable_sort(order.begin(), order.end(), [](const Slice *a, const Slice *b) { return removalRank(*a) < removalRank(*b); });
        for (const Slice *s : order) {
            if (plan.slicesRemoved.size() >= count)
                break;
            plan.slicesRemoved << s->name;
            plan.removedTargets << sliceTarget(snap, s->name);
            plan.podsToDelete << podsOfSlice(snap, g, *s);
            plan.displacedGroups << groupsOnSlice(snap, s->name);
        }
    };

    switch (request.mode) {
    case ScaleRequest::Mode::Replicas: {
        if (g.autoscaling) {
            plan.refusal = QStringLiteral("%1: replicas is owned by the Ray autoscaler (enableInTreeAutoscaling: true) and "
                                          "would be overwritten; change minReplicas/maxReplicas instead (--min N --max N)")
                               .arg(g.qualifiedName());
            return plan;
        }
        const int n = request.replicas;
        if (n < g.minReplicas || n > g.maxReplicas) {
            plan.refusal = QStringLiteral("%1: %2 replicas is outside minReplicas..maxReplicas (%3..%4); KubeRay would "
                                          "silently clamp it. Change the bounds first (--min/--max)")
                               .arg(g.qualifiedName())
                               .arg(n)
                               .arg(g.minReplicas)
                               .arg(bound(g.maxReplicas));
            return plan;
        }
        plan.toReplicas = n;
        if (n > g.replicas)
            plan.slicesAdded = n - g.replicas;
        else if (n < g.replicas)
            removeSlices(g.replicas - n);
        break;
    }
    case ScaleRequest::Mode::Bounds: {
        const int lo = request.minReplicas, hi = request.maxReplicas;
        if (lo < 0 || hi < lo) {
            plan.refusal = QStringLiteral("%1: wants 0 <= min <= max, not min %2, max %3").arg(g.qualifiedName()).arg(lo).arg(hi);
            return plan;
        }
        plan.toMin = lo;
        plan.toMax = hi;
        if (!g.autoscaling && (g.replicas < lo || g.replicas > hi)) {
            plan.refusal = QStringLiteral("%1: replicas is %2, outside the new bounds %3..%4, and KubeRay would silently clamp "
                                          "it; set --replicas inside them first")
                               .arg(g.qualifiedName())
                               .arg(g.replicas)
                               .arg(lo)
                               .arg(hi);
            return plan;
        }
        if (g.autoscaling) {
            if (g.replicas < lo) {
                plan.slicesAdded = lo - g.replicas;
                plan.notes << QStringLiteral("the autoscaler will raise replicas to the new minimum, %1").arg(lo);
            } else if (g.replicas > hi) {
                removeSlices(g.replicas - hi);
                plan.notes << QStringLiteral("the autoscaler will lower replicas to the new maximum, %1; it picks the slices, "
                                             "those shown are SliceScope's guess (idle first)")
                                  .arg(hi);
                plan.podsToDelete.clear(); // the autoscaler chooses; we name nothing
            }
        }
        break;
    }
    case ScaleRequest::Mode::RemoveSlice: {
        if (g.autoscaling) {
            plan.refusal = QStringLiteral("%1: the Ray autoscaler owns replicas (enableInTreeAutoscaling: true) and would "
                                          "replace a removed slice; lower --max, or let the autoscaler remove idle slices")
                               .arg(g.qualifiedName());
            return plan;
        }
        if (request.slice.isEmpty()) {
            plan.refusal = QStringLiteral("%1: no slice chosen to remove (its slices: %2)")
                               .arg(g.qualifiedName(), g.slices.isEmpty() ? QStringLiteral("none") : g.slices.join(QStringLiteral(", ")));
            return plan;
        }
        const auto it = std::find_if(slices.begin(), slices.end(), [&](const Slice *s) { return s->name == request.slice; });
        if (it == slices.end()) {
            plan.refusal = QStringLiteral("%1 has no slice %2 (its slices: %3)")
                               .arg(g.qualifiedName(), request.slice,
                                    g.slices.isEmpty() ? QStringLiteral("none") : g.slices.join(QStringLiteral(", ")));
            return plan;
        }
        if (g.replicas - 1 < g.minReplicas) {
            plan.refusal = QStringLiteral("%1: removing a slice would leave %2 replicas, below minReplicas %3; lower --min first")
                               .arg(g.qualifiedName())
                               .arg(g.replicas - 1)
                               .arg(g.minReplicas);
            return plan;
        }
        if (!g.workersToDelete.isEmpty()) {
            plan.refusal = QStringLiteral("%1: a removal is still in progress (workersToDelete names %2); wait for it to finish")
                               .arg(g.qualifiedName(), g.workersToDelete.join(QStringLiteral(", ")));
            return plan;
        }
        plan.toReplicas = g.replicas - 1;
        plan.slicesRemoved << (*it)->name;
        plan.removedTargets << sliceTarget(snap, (*it)->name);
        plan.podsToDelete = podsOfSlice(snap, g, **it);
        plan.displacedGroups = groupsOnSlice(snap, (*it)->name);
        if (plan.podsToDelete.isEmpty()) {
            plan.refusal = QStringLiteral("%1: slice %2 has no pods to name in workersToDelete").arg(g.qualifiedName(), request.slice);
            return plan;
        }
        break;
    }
    }

    if (request.mode != ScaleRequest::Mode::Bounds && !plan.podsToDelete.isEmpty() && !g.workersToDelete.isEmpty()) {
        plan.refusal = QStringLiteral("%1: a removal is still in progress (workersToDelete names %2); wait for it to finish")
                           .arg(g.qualifiedName(), g.workersToDelete.join(QStringLiteral(", ")));
        return plan;
    }
    plan.allowed = true;
    plan.noChange = plan.toReplicas == plan.fromReplicas && plan.toMin == plan.fromMin && plan.toMax == plan.fromMax;
    if (request.mode == ScaleRequest::Mode::Bounds)
        plan.summary = QStringLiteral("%1: bounds %2..%3 -> %4..%5 (replicas %6, %7)")
                           .arg(g.qualifiedName())
                           .arg(plan.fromMin)
                           .arg(bound(plan.fromMax))
                           .arg(plan.toMin)
                           .arg(bound(plan.toMax))
                           .arg(g.replicas)
                           .arg(g.autoscaling ? QStringLiteral("set by the autoscaler") : QStringLiteral("unchanged"));
    else
        plan.summary = QStringLiteral("%1: %2 -> %3")
                           .arg(g.qualifiedName(), describeReplicas(plan.fromReplicas, plan.hostsPerSlice, plan.chipsPerHost),
                                describeReplicas(plan.toReplicas, plan.hostsPerSlice, plan.chipsPerHost));
    if (!plan.displacedGroups.isEmpty())
        plan.notes << QStringLiteral("placement groups on the removed slices lose their hosts: %1")
                          .arg(plan.displacedGroups.join(QStringLiteral(", ")));
    return plan;
}

QByteArray ScalePlan::jsonPatch() const
{
    const QString base = groupPath(group);
    QJsonArray ops;
    ops.append(op("test", base + QStringLiteral("/groupName"), group.group));
    if (toReplicas != fromReplicas) {
        if (group.replicasSet)
            ops.append(op("test", base + QStringLiteral("/replicas"), fromReplicas));
        ops.append(op("add", base + QStringLiteral("/replicas"), toReplicas));
    }
    if (toMin != fromMin) {
        ops.append(op("test", base + QStringLiteral("/minReplicas"), fromMin));
        ops.append(op("add", base + QStringLiteral("/minReplicas"), toMin));
    }
    if (toMax != fromMax) {
        if (fromMax != kUnbounded)
            ops.append(op("test", base + QStringLiteral("/maxReplicas"), fromMax));
        ops.append(op("add", base + QStringLiteral("/maxReplicas"), toMax));
    }
    if (!podsToDelete.isEmpty() && toReplicas < fromReplicas)
        ops.append(op("add", base + QStringLiteral("/scaleStrategy"),
                      QJsonObject{{QStringLiteral("workersToDelete"), QJsonArray::fromStringList(podsToDelete)}}));
    return QJsonDocument(ops).toJson(QJsonDocument::Compact);
}

QByteArray ScalePlan::clearWorkersToDeletePatch() const
{
    const QString base = groupPath(group);
    QJsonArray ops;
    ops.append(op("test", base + QStringLiteral("/groupName"), group.group));
    ops.append(op("test", base + QStringLiteral("/scaleStrategy/workersToDelete"), QJsonArray::fromStringList(podsToDelete)));
    ops.append(op("add", base + QStringLiteral("/scaleStrategy"), QJsonObject{}));
    return QJsonDocument(ops).toJson(QJsonDocument::Compact);
}

namespace {

QJsonObject workerGroupSpecAt(const QJsonObject &rayCluster, int index)
{
    return rayCluster.value(QLatin1String("spec")).toObject().value(QLatin1String("workerGroupSpecs")).toArray().at(index).toObject();
}

int intOrFallback(const QJsonObject &o, const char *key, int fallback)
{
    const QJsonValue v = o.value(QLatin1String(key));
    return v.isDouble() ? v.toInt() : fallback;
}

} // namespace

QStringList changedSincePlan(const ScalePlan &plan, const QJsonObject &rayCluster)
{
    QStringList changes;
    const WorkerGroup &g = plan.group;
    const QJsonObject spec = workerGroupSpecAt(rayCluster, g.specIndex);
    const QString name = spec.value(QLatin1String("groupName")).toString();
    if (name != g.group) {
        changes << (name.isEmpty() ? QStringLiteral("the RayCluster has no worker group at index %1 any more").arg(g.specIndex)
                                   : QStringLiteral("the worker group at index %1 is now \"%2\", not \"%3\"").arg(g.specIndex).arg(name, g.group));
        return changes;
    }
    const int min = intOrFallback(spec, "minReplicas", 0);
    const int max = intOrFallback(spec, "maxReplicas", std::numeric_limits<int>::max());
    const int replicas = intOrFallback(spec, "replicas", min);
    if (replicas != plan.fromReplicas)
        changes << QStringLiteral("replicas %1 -> %2").arg(plan.fromReplicas).arg(replicas);
    if (min != plan.fromMin)
        changes << QStringLiteral("minReplicas %1 -> %2").arg(plan.fromMin).arg(min);
    if (max != plan.fromMax)
        changes << QStringLiteral("maxReplicas %1 -> %2").arg(plan.fromMax).arg(max);
    const bool autoscaling = rayCluster.value(QLatin1String("spec")).toObject().value(QLatin1String("enableInTreeAutoscaling")).toBool();
    if (autoscaling != g.autoscaling)
        changes << QStringLiteral("enableInTreeAutoscaling %1 -> %2").arg(g.autoscaling ? QLatin1String("true") : QLatin1String("false"), autoscaling ? QLatin1String("true") : QLatin1String("false"));
    QStringList workers;
    for (const QJsonValue &v : spec.value(QLatin1String("scaleStrategy")).toObject().value(QLatin1String("workersToDelete")).toArray())
        workers << v.toString();
    if (workers != g.workersToDelete)
        changes << QStringLiteral("workersToDelete [%1] -> [%2]").arg(g.workersToDelete.join(QStringLiteral(", ")), workers.join(QStringLiteral(", ")));
    return changes;
}

} // namespace slicescope
