// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// ClusterActions over the demo simulator. Progress is what the demo's next captures show (the
// job starting, head reservations, the group CREATED), observed the same way a live cluster's
// outcome is: from snapshots, not from what the action hoped for.

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

private:
    struct Pending {
        QString actionId;
        bool release = false;
        QString name;            // the group asked for (submit) or released
        QString submissionId;    // the job that reserves it (submit)
        QString placementGroupId;
        QString lastText;
    };
    void onCapture(const Capture &capture);
    void observe();
    // Returns true when the action has finished.
    bool observeSubmit(const ClusterSnapshot &snap, Pending &p);
    bool observeRelease(const ClusterSnapshot &snap, Pending &p);
    void finishLater(const QString &actionId, bool ok, const QString &message);

    DemoSource *m_source;
    SnapshotPtr m_last;
    QList<Pending> m_pending;
};

} // namespace slicescope
