// SPDX-License-Identifier: GPL-3.0-or-later
#include "fleetclusteractions.h"

#include "fleetsource.h"
#include "kubeclusteractions.h"

#include <QTimer>

namespace slicescope {

FleetClusterActions::FleetClusterActions(FleetSource *source, QObject *parent)
    : ClusterActions(parent)
    , m_source(source)
{
    for (int i = 0; i < source->contextCount(); ++i) {
        KubeSource *kube = source->context(i);
        auto *actions = new KubeClusterActions(kube, this);
        m_contexts.insert(kube->client()->config().contextName, actions);
        connect(actions, &ClusterActions::actionProgress, this, &ClusterActions::actionProgress);
        connect(actions, &ClusterActions::actionJobSubmitted, this, &ClusterActions::actionJobSubmitted);
        connect(actions, &ClusterActions::actionFinished, this, &ClusterActions::actionFinished);
        connect(actions, &ClusterActions::actionConflict, this, &ClusterActions::actionConflict);
        connect(actions, &ClusterActions::availabilityChanged, this, &ClusterActions::availabilityChanged);
    }
}

FleetClusterActions::~FleetClusterActions() = default;

KubeClusterActions *FleetClusterActions::context(const QString &name) const
{
    return m_contexts.value(name);
}

KubeClusterActions *FleetClusterActions::forContext(const QString &name, QString *why) const
{
    if (name.isEmpty()) {
        *why = tr("this view holds %n Kubernetes context(s): the action must name its own", nullptr, int(m_contexts.size()));
        return nullptr;
    }
    if (KubeClusterActions *a = m_contexts.value(name))
        return a;
    *why = tr("context %1 is not watched here (%2)").arg(name, QStringList(m_contexts.keys()).join(QStringLiteral(", ")));
    return nullptr;
}

void FleetClusterActions::refuseLater(const QString &actionId, const QString &why)
{
    QTimer::singleShot(0, this, [this, actionId, why] { Q_EMIT actionFinished(actionId, false, why); });
}

QString FleetClusterActions::unavailableReason() const
{
    // Available when any context can act; each action then names its context.
    QString first;
    for (KubeClusterActions *a : m_contexts) {
        const QString why = a->unavailableReason();
        if (why.isEmpty()) return {};
        if (first.isEmpty()) first = why;
    }
    return first;
}

QString FleetClusterActions::describeSubmission(const SlicePlacementRequest &request) const
{
    QString why;
    KubeClusterActions *a = forContext(request.context, &why);
    return a ? a->describeSubmission(request) : why;
}

QString FleetClusterActions::describeRelease(const ClusterSnapshot &snapshot, const PlacementGroup &group) const
{
    QString why;
    KubeClusterActions *a = forContext(group.context, &why);
    return a ? a->describeRelease(snapshot, group) : why;
}

bool FleetClusterActions::createdBySliceScope(const ClusterSnapshot &snapshot, const PlacementGroup &group) const
{
    QString why;
    KubeClusterActions *a = forContext(group.context, &why);
    return a && a->createdBySliceScope(snapshot, group);
}

void FleetClusterActions::submitSlicePlacementGroup(const QString &actionId, const SlicePlacementRequest &request)
{
    QString why;
    if (KubeClusterActions *a = forContext(request.context, &why)) {
        a->submitSlicePlacementGroup(actionId, request);
        return;
    }
    refuseLater(actionId, why);
}

void FleetClusterActions::releasePlacementGroup(const QString &actionId, const QString &nameOrId, bool force)
{
    // A release names the group only: the context whose Ray lists it by that id (ids are unique
    // across Rays; a name may not be), and only when exactly one does.
    QStringList holders;
    for (auto it = m_contexts.cbegin(); it != m_contexts.cend(); ++it) {
        if (const KubeSource *kube = m_source->contextNamed(it.key()); kube && !kube->rayClustersListing(nameOrId).isEmpty()) holders << it.key();
    }
    if (holders.size() == 1) {
        m_contexts.value(holders.first())->releasePlacementGroup(actionId, nameOrId, force);
        return;
    }
    refuseLater(actionId, holders.isEmpty() ? tr("no context's Ray lists placement group %1").arg(nameOrId)
                                            : tr("placement group %1 is listed in %2 contexts (%3): give its id").arg(nameOrId).arg(holders.size()).arg(holders.join(QStringLiteral(", "))));
}

QString FleetClusterActions::scaleUnavailableReason(const WorkerGroup &group) const
{
    QString why;
    KubeClusterActions *a = forContext(group.context, &why);
    return a ? a->scaleUnavailableReason(group) : why;
}

void FleetClusterActions::scaleWorkerGroup(const QString &actionId, const ScalePlan &plan)
{
    QString why;
    if (KubeClusterActions *a = forContext(plan.group.context, &why)) {
        a->scaleWorkerGroup(actionId, plan);
        return;
    }
    refuseLater(actionId, why);
}

} // namespace slicescope
