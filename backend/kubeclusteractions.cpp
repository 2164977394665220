// SPDX-License-Identifier: GPL-3.0-or-later
#include "kubeclusteractions.h"

#include "kubescaler.h"
#include "kubesource.h"
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

RayClusterActions *KubeClusterActions::ray() const
{
    if (!m_ray && m_source->raySource())
        m_ray = std::make_unique<RayClusterActions>(m_source->raySource());
    return m_ray.get();
}

QString KubeClusterActions::unavailableReason() const
{
    if (RayClusterActions *r = ray())
        return r->unavailableReason();
    return tr("no Ray dashboard found: no RayCluster here has a head service yet (placement groups need Ray)");
}

QString KubeClusterActions::describeSubmission(const SlicePlacementRequest &request) const
{
    RayClusterActions *r = ray();
    return r ? r->describeSubmission(request) : unavailableReason();
}

QString KubeClusterActions::describeRelease(const ClusterSnapshot &snapshot, const PlacementGroup &group) const
{
    RayClusterActions *r = ray();
    return r ? r->describeRelease(snapshot, group) : unavailableReason();
}

bool KubeClusterActions::createdBySliceScope(const ClusterSnapshot &snapshot, const PlacementGroup &group) const
{
    RayClusterActions *r = ray();
    return r && r->createdBySliceScope(snapshot, group);
}

void KubeClusterActions::submitSlicePlacementGroup(const QString &actionId, const SlicePlacementRequest &request)
{
    if (RayClusterActions *r = ray()) {
        // Relay its signals as ours.
        connect(r, &ClusterActions::actionProgress, this, &ClusterActions::actionProgress, Qt::UniqueConnection);
        connect(r, &ClusterActions::actionJobSubmitted, this, &ClusterActions::actionJobSubmitted, Qt::UniqueConnection);
        connect(r, &ClusterActions::actionFinished, this, &ClusterActions::actionFinished, Qt::UniqueConnection);
        r->submitSlicePlacementGroup(actionId, request);
        return;
    }
    const QString reason = unavailableReason();
    QTimer::singleShot(0, this, [this, actionId, reason] { Q_EMIT actionFinished(actionId, false, reason); });
}

void KubeClusterActions::releasePlacementGroup(const QString &actionId, const QString &nameOrId, bool force)
{
    if (RayClusterActions *r = ray()) {
        connect(r, &ClusterActions::actionProgress, this, &ClusterActions::actionProgress, Qt::UniqueConnection);
        connect(r, &ClusterActions::actionJobSubmitted, this, &ClusterActions::actionJobSubmitted, Qt::UniqueConnection);
        connect(r, &ClusterActions::actionFinished, this, &ClusterActions::actionFinished, Qt::UniqueConnection);
        r->releasePlacementGroup(actionId, nameOrId, force);
        return;
    }
    const QString reason = unavailableReason();
    QTimer::singleShot(0, this, [this, actionId, reason] { Q_EMIT actionFinished(actionId, false, reason); });
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
