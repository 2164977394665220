// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// ClusterActions over a live Ray: reserving submits SliceScope's driver job and follows it
// (SliceJobFollower, as `slicescope submit-slice-pg` does); releasing stops the holding job or
// runs a removal job (as `slicescope release-pg` does, deciding through findReleaseTarget()).
// Progress comes from the live source's polls; the outcome from the driver's result line and
// then from the state API showing the group CREATED or gone.

#include "clusteractions.h"

#include <QElapsedTimer>
#include <QList>
#include <QPointer>

namespace slicescope {

class LiveRaySource;
class SliceJobFollower;

class RayClusterActions : public ClusterActions
{
    Q_OBJECT
public:
    explicit RayClusterActions(LiveRaySource *source, QObject *parent = nullptr);

    QString unavailableReason() const override;
    QString describeSubmission(const SlicePlacementRequest &request) const override;
    QString describeRelease(const ClusterSnapshot &snapshot, const PlacementGroup &group) const override;
    bool createdBySliceScope(const ClusterSnapshot &snapshot, const PlacementGroup &group) const override;
    void submitSlicePlacementGroup(const QString &actionId, const SlicePlacementRequest &request) override;
    void releasePlacementGroup(const QString &actionId, const QString &nameOrId, bool force) override;

    // Seconds Ray may take to remove a group once asked (the CLI's --wait default).
    void setReleaseWait(int seconds) { m_releaseWaitS = seconds; }

private:
    struct Pending {
        QString actionId;
        bool release = false;
        QString name;
        QString submissionId;      // submit: the reserving job, for progress from the polls
        QString placementGroupId;  // release: the group that must disappear
        QString lastText;
        QElapsedTimer clock;
        QPointer<SliceJobFollower> follower;
    };
    void onCapture(const Capture &capture);
    void finishLater(const QString &actionId, bool ok, const QString &message);
    void finish(const QString &actionId, bool ok, const QString &message);
    Pending *pending(const QString &actionId);

    LiveRaySource *m_source;
    Capture m_last;
    int m_releaseWaitS = 60;
    QList<Pending> m_pending;
};

} // namespace slicescope
