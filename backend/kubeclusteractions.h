// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// ClusterActions for a Kubernetes source: scaling worker groups and removing slices through the API
// server (KubeScaler), offered only where RBAC allows (SelfSubjectAccessReview, asked once per
// namespace); slice placement groups through the Ray dashboard behind the service proxy, once the
// source has found one (RayClusterActions): with several RayClusters' views (issue 16), the one the
// request names, and for a release the one whose Ray lists the group; never a guess.

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
    // The Ray actions of a RayCluster's view ("ns/name"), or of the only Ray there is (empty).
    RayClusterActions *ray(const QString &cluster = {}) const;
    // Which Ray a request or a group goes to, or why none can be chosen.
    RayClusterActions *rayFor(const QString &cluster, QString *why) const;
    RayClusterActions *rayHolding(const QString &nameOrId, QString *why) const;
    void relay(RayClusterActions *r);

    KubeSource *m_source;
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
