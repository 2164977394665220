// SPDX-License-Identifier: GPL-3.0-or-later
#include "kubeclusteractions.h"

#include "kubescaler.h"
#include "kubesource.h"
#include "kubeconfig.h"
#include "livesource.h"
#include "rayclusteractions.h"

#include <QTimer>

namespace slicescope {

KubeClusterActions::KubeClusterActions(KubeSource *source, QObject *parent)
    : ClusterActions(parent)
    , m_source(source)
{
    // Asked up front for the namespace watched; with all namespaces, each is asked about the first
    // time a control asks for one of its groups.
    checkNamespace(source->watchedNamespace());
}

KubeClusterActions::~KubeClusterActions() = default;

void KubeClusterActions::checkNamespace(const QString &ns)
{
    if (ns.isEmpty() || m_patch.contains(ns))
        return;
    m_patch.insert(ns, {});
    QPointer<KubeClusterActions> self(this);
    m_source->client()->checkAccess(QStringLiteral("patch"), QStringLiteral("ray.io"), QStringLiteral("rayclusters"), ns, {},
                                    [self, ns](bool allowed, const QString &reason) {
                                        if (!self)
                                            return;
                                        self->m_patch.insert(ns, {allowed ? Access::Allowed : Access::Denied, reason});
                                        Q_EMIT self->availabilityChanged();
                                    });
}

RayClusterActions *KubeClusterActions::ray(const QString &cluster) const
{
    LiveRaySource *source = cluster.isEmpty() ? m_source->raySource() : m_source->raySourceFor(cluster);
    if (!source)
        return nullptr;
    // One RayClusterActions per Ray source, owned by it: a view dropped (its RayCluster deleted)
    // takes its actions along, never leaving them pointing at a source that is gone.
    if (auto *existing = source->findChild<RayClusterActions *>(QString(), Qt::FindDirectChildrenOnly))
        return existing;
    return new RayClusterActions(source, source);
}

RayClusterActions *KubeClusterActions::rayFor(const QString &cluster, QString *why) const
{
    if (RayClusterActions *r = ray(cluster))
        return r;
    const QStringList viewed = m_source->rayClustersViewed();
    if (!cluster.isEmpty())
        *why = tr("RayCluster %1 has no Ray dashboard in this view (%2)")
                   .arg(cluster, viewed.isEmpty() ? tr("no RayCluster here has a head service") : tr("Ray is read from %1").arg(viewed.join(QStringLiteral(", "))));
    else if (viewed.size() > 1)
        *why = tr("%1 RayClusters have a Ray dashboard here (%2): the request must name the one to reserve in").arg(viewed.size()).arg(viewed.join(QStringLiteral(", ")));
    else
        *why = unavailableReason();
    return nullptr;
}

RayClusterActions *KubeClusterActions::rayHolding(const QString &nameOrId, QString *why) const
{
    if (RayClusterActions *only = ray())
        return only;
    const QStringList where = m_source->rayClustersListing(nameOrId);
    if (where.size() == 1)
        if (RayClusterActions *r = ray(where.first())) return r;
    *why = where.isEmpty() ? tr("no RayCluster's Ray here lists placement group %1").arg(nameOrId)
                           : tr("placement group %1 is listed by %2 RayClusters (%3): give its id").arg(nameOrId).arg(where.size()).arg(where.join(QStringLiteral(", ")));
    return nullptr;
}

void KubeClusterActions::relay(RayClusterActions *r)
{
    connect(r, &ClusterActions::actionProgress, this, &ClusterActions::actionProgress, Qt::UniqueConnection);
    connect(r, &ClusterActions::actionJobSubmitted, this, &ClusterActions::actionJobSubmitted, Qt::UniqueConnection);
    connect(r, &ClusterActions::actionFinished, this, &ClusterActions::actionFinished, Qt::UniqueConnection);
}

QString KubeClusterActions::unavailableReason() const
{
    if (RayClusterActions *r = ray())
        return r->unavailableReason();
    const QStringList viewed = m_source->rayClustersViewed();
    if (viewed.size() > 1) {
        for (const QString &cluster : viewed)
            if (RayClusterActions *r = ray(cluster); r && r->unavailableReason().isEmpty())
                return {}; // each request names its cluster (rayFor says when it does not)
        return ray(viewed.first())->unavailableReason();
    }
    return tr("no Ray dashboard found: no RayCluster here has a head service yet (placement groups need Ray)");
}

QString KubeClusterActions::describeSubmission(const SlicePlacementRequest &request) const
{
    QString why;
    RayClusterActions *r = rayFor(request.rayCluster, &why);
    if (!r)
        return why;
    const QString text = r->describeSubmission(request);
    return request.rayCluster.isEmpty() ? text : tr("In RayCluster %1 (context %2):\n%3").arg(request.rayCluster, m_source->client()->config().contextName, text);
}

QString KubeClusterActions::describeRelease(const ClusterSnapshot &snapshot, const PlacementGroup &group) const
{
    QString why;
    RayClusterActions *r = group.rayCluster.isEmpty() ? rayHolding(group.id, &why) : rayFor(group.rayCluster, &why);
    if (!r)
        return why;
    const QString text = r->describeRelease(snapshot, group);
    return group.rayCluster.isEmpty() ? text : tr("In RayCluster %1 (context %2):\n%3").arg(group.rayCluster, m_source->client()->config().contextName, text);
}

bool KubeClusterActions::createdBySliceScope(const ClusterSnapshot &snapshot, const PlacementGroup &group) const
{
    QString why;
    RayClusterActions *r = group.rayCluster.isEmpty() ? rayHolding(group.id, &why) : rayFor(group.rayCluster, &why);
    return r && r->createdBySliceScope(snapshot, group);
}

void KubeClusterActions::submitSlicePlacementGroup(const QString &actionId, const SlicePlacementRequest &request)
{
    QString why;
    if (RayClusterActions *r = rayFor(request.rayCluster, &why)) {
        relay(r); // its signals as ours
        r->submitSlicePlacementGroup(actionId, request);
        return;
    }
    QTimer::singleShot(0, this, [this, actionId, why] { Q_EMIT actionFinished(actionId, false, why); });
}

void KubeClusterActions::releasePlacementGroup(const QString &actionId, const QString &nameOrId, bool force)
{
    QString why;
    if (RayClusterActions *r = rayHolding(nameOrId, &why)) {
        relay(r);
        r->releasePlacementGroup(actionId, nameOrId, force);
        return;
    }
    QTimer::singleShot(0, this, [this, actionId, why] { Q_EMIT actionFinished(actionId, false, why); });
}

QString KubeClusterActions::scaleUnavailableReason(const WorkerGroup &group) const
{
    const auto it = m_patch.constFind(group.ns);
    if (it == m_patch.constEnd()) {
        const_cast<KubeClusterActions *>(this)->checkNamespace(group.ns);
        return tr("checking whether you may patch RayClusters in namespace %1...").arg(group.ns);
    }
    switch (it->access) {
    case Access::Checking:
        return tr("checking whether you may patch RayClusters in namespace %1...").arg(group.ns);
    case Access::Denied:
        return it->reason;
    case Access::Allowed:
        break;
    }
    for (const auto &scaler : m_scalers) {
        if (scaler && scaler->isRunning())
            return tr("another scaling action is still running");
    }
    return {};
}

void KubeClusterActions::scaleWorkerGroup(const QString &actionId, const ScalePlan &plan)
{
    if (const QString reason = scaleUnavailableReason(plan.group); !reason.isEmpty()) {
        QTimer::singleShot(0, this, [this, actionId, reason] { Q_EMIT actionFinished(actionId, false, reason); });
        return;
    }
    auto *scaler = new KubeScaler(m_source->client(), this);
    m_scalers.insert(actionId, scaler);
    connect(scaler, &KubeScaler::progress, this, [this, actionId](const QString &text) { Q_EMIT actionProgress(actionId, text); });
    connect(scaler, &KubeScaler::finished, this, [this, actionId, scaler](const ScaleOutcome &outcome) {
        m_scalers.remove(actionId);
        scaler->deleteLater();
        if (outcome.result == ScaleOutcome::Result::Conflict)
            Q_EMIT actionConflict(actionId, outcome.changedSinceRead, outcome.message);
        else
            Q_EMIT actionFinished(actionId, outcome.result == ScaleOutcome::Result::Applied, outcome.message);
        Q_EMIT availabilityChanged();
    });
    scaler->run(plan, m_scaleWait);
    Q_EMIT availabilityChanged();
}

} // namespace slicescope
