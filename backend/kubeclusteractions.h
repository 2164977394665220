// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// ClusterActions for a Kubernetes source: scaling worker groups and removing slices through the API
// server (KubeScaler), offered only where RBAC allows (SelfSubjectAccessReview, asked once per
// namespace); slice placement groups through the Ray dashboard behind the service proxy, once the
// source has found one (RayClusterActions).

#include "clusteractions.h"

#include <QHash>
#include <QPointer>

#include <memory>

namespace slicescope {

class KubeSource;
class KubeScaler;
class RayClusterActions;

class KubeClusterActions : public ClusterActions
{
    Q_OBJECT
public:
    explicit KubeClusterActions(KubeSource *source, QObject *parent = nullptr);
    ~KubeClusterActions() override;

    QString unavailableReason() const override;
    QString describeSubmission(const SlicePlacementRequest &request) const override;
    QString describeRelease(const ClusterSnapshot &snapshot, const PlacementGroup &group) const override;
    bool createdBySliceScope(const ClusterSnapshot &snapshot, const PlacementGroup &group) const override;
    void submitSlicePlacementGroup(const QString &actionId, const SlicePlacementRequest &request) override;
    void releasePlacementGroup(const QString &actionId, const QString &nameOrId, bool force) override;

    QString scaleUnavailableReason(const WorkerGroup &group) const override;
    void scaleWorkerGroup(const QString &actionId, const ScalePlan &plan) override;

    // How long a scale watches its outcome (default 120 s).
    void setScaleWait(std::chrono::milliseconds wait) { m_scaleWait = wait; }

private:
    void checkNamespace(const QString &ns);
    RayClusterActions *ray() const;

    KubeSource *m_source;
    mutable std::unique_ptr<RayClusterActions> m_ray;
    enum class Access
    {
        Checking,
        Allowed,
        Denied
    };
    struct Permission {
        Access access = Access::Checking;
        QString reason;
    };
    mutable QHash<QString, Permission> m_patch; // namespace -> may patch rayclusters there
    QHash<QString, QPointer<KubeScaler>> m_scalers;
    std::chrono::milliseconds m_scaleWait{120000};
};

} // namespace slicescope
