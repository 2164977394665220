// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// ClusterActions over the demo simulator. Progress is what the demo's next captures show (the
// job starting, head reservations, the group CREATED, a new slice's hosts joining Ray), observed
// the same way a live cluster's outcome is: from snapshots, not from what the action hoped for.

#include "clusteractions.h"

#include <QList>

namespace slicescope {

class DemoSource;

class DemoClusterActions : public ClusterActions
{
    Q_OBJECT
public:
    explicit DemoClusterActions(DemoSource *source, QObject *parent = nullptr);

    QString unavailableReason() const override { return {}; }
    QString describeSubmission(const SlicePlacementRequest &request) const override;
    QString describeRelease(const ClusterSnapshot &snapshot, const PlacementGroup &group) const override;
    bool createdBySliceScope(const ClusterSnapshot &snapshot, const PlacementGroup &group) const override;
    void submitSlicePlacementGroup(const QString &actionId, const SlicePlacementRequest &request) override;
    void releasePlacementGroup(const QString &actionId, const QString &nameOrId, bool force) override;
    // Every worker group of the demo may be scaled; its minReplicas/maxReplicas are fixed (the
    // demo runs no autoscaler), so a plan that changes them finishes with ok = false.
    QString scaleUnavailableReason(const WorkerGroup &group) const override;
    void scaleWorkerGroup(const QString &actionId, const ScalePlan &plan) override;

    // How long (demo time) a scale may take to settle before it is reported as not settled.
    static constexpr qint64 kScaleSettleMs = 60 * 1000;

private:
    enum class Kind
    {
        Submit,
        Release,
        Scale
    };
    struct Pending {
        QString actionId;
        Kind kind = Kind::Submit;
        QString name;            // the group asked for (submit) or released
        QString submissionId;    // the job that reserves it (submit)
        QString placementGroupId;
        QString lastText;
        ScalePlan plan;          // Kind::Scale: what was applied
        qint64 deadlineMs = 0;   // Kind::Scale: demo time by which it should have settled
        bool announced = true;   // its first progress (what the demo did) has been emitted
    };
    void onCapture(const Capture &capture);
    void observe();
    // Returns true when the action has finished.
    bool observeSubmit(const ClusterSnapshot &snap, Pending &p);
    bool observeRelease(const ClusterSnapshot &snap, Pending &p);
    bool observeScale(const ClusterSnapshot &snap, Pending &p);
    void finishLater(const QString &actionId, bool ok, const QString &message);

    DemoSource *m_source;
    SnapshotPtr m_last;
    QList<Pending> m_pending;
};

} // namespace slicescope
