// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// ClusterActions for a fleet of contexts (issue 16): every action goes to the context it is about
// (the worker group's, the placement group's, the request's) and that context's own actions
// (KubeClusterActions, with its credentials and RBAC answers). An action that names no context, or
// one the fleet does not watch, is refused with the reason, never sent to a neighbour.

#include "clusteractions.h"

#include <QHash>

namespace slicescope {

class FleetSource;
class KubeClusterActions;

class FleetClusterActions : public ClusterActions
{
    Q_OBJECT
public:
    explicit FleetClusterActions(FleetSource *source, QObject *parent = nullptr);
    ~FleetClusterActions() override;

    QString unavailableReason() const override;
    QString describeSubmission(const SlicePlacementRequest &request) const override;
    QString describeRelease(const ClusterSnapshot &snapshot, const PlacementGroup &group) const override;
    bool createdBySliceScope(const ClusterSnapshot &snapshot, const PlacementGroup &group) const override;
    void submitSlicePlacementGroup(const QString &actionId, const SlicePlacementRequest &request) override;
    void releasePlacementGroup(const QString &actionId, const QString &nameOrId, bool force) override;
    QString scaleUnavailableReason(const WorkerGroup &group) const override;
    void scaleWorkerGroup(const QString &actionId, const ScalePlan &plan) override;

    // The actions of one context (null: the fleet does not watch it).
    KubeClusterActions *context(const QString &name) const;

private:
    KubeClusterActions *forContext(const QString &name, QString *why) const;
    void refuseLater(const QString &actionId, const QString &why);

    FleetSource *m_source;
    QHash<QString, KubeClusterActions *> m_contexts; // by context name; children of this
};

} // namespace slicescope
