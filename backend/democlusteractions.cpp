// SPDX-License-Identifier: GPL-3.0-or-later
#include "democlusteractions.h"

#include "democluster.h"
#include "sliceactions.h"
#include "tpu.h"

#include <QTimer>

namespace slicescope {

DemoClusterActions::DemoClusterActions(DemoSource *source, QObject *parent)
    : ClusterActions(parent), m_source(source)
{
    connect(source, &Source::captureReceived, this, &DemoClusterActions::onCapture);
    m_last = buildSnapshot(source->cluster().capture());
}

QString DemoClusterActions::describeSubmission(const SlicePlacementRequest &request) const
{
    return describeSliceJob(request, QStringLiteral("python -m slicescope_driver (demo simulator)"));
}

QString DemoClusterActions::describeRelease(const ClusterSnapshot &, const PlacementGroup &group) const
{
    ReleaseTarget target;
    if (const QString error = findReleaseTarget(m_source->cluster().capture(), group.id, tr("the demo cluster"), target); !error.isEmpty())
        return error;
    return target.stopHolder
               ? tr("Stop Ray job %1, which holds %2; Ray removes the group with its job.").arg(target.holderSubmissionId, target.description)
               : tr("Run a removal job for %1.").arg(target.description);
}

bool DemoClusterActions::createdBySliceScope(const ClusterSnapshot &, const PlacementGroup &group) const
{
    return jobCreatedBySliceScope(m_source->cluster().capture().rayJobs, group.creatorJobId);
}

void DemoClusterActions::finishLater(const QString &actionId, bool ok, const QString &message)
{
    QTimer::singleShot(0, this, [this, actionId, ok, message] { Q_EMIT actionFinished(actionId, ok, message); });
}

void DemoClusterActions::submitSlicePlacementGroup(const QString &actionId, const SlicePlacementRequest &request)
{
    const ActionResult result = m_source->act([&](DemoCluster &c) { return c.submitSlicePlacementGroup(request); });
    if (!result.ok) {
        finishLater(actionId, false, result.message);
        return;
    }
    m_pending.append(Pending{actionId, false, request.name, result.jobId, {}, {}});
    QTimer::singleShot(0, this, [this, actionId, message = result.message] {
        Q_EMIT actionProgress(actionId, message);
        observe();
    });
}

void DemoClusterActions::releasePlacementGroup(const QString &actionId, const QString &nameOrId, bool force)
{
    const int index = m_last ? m_last->placementGroupIndex(nameOrId) : -1;
    if (index < 0) {
        finishLater(actionId, false, tr("no live placement group named or with id \"%1\"").arg(nameOrId));
        return;
    }
    const PlacementGroup group = m_last->placementGroups[index];
    if (!force && !createdBySliceScope(*m_last, group)) {
        finishLater(actionId, false, tr("placement group %1 was not created by SliceScope; not released without the stronger confirmation").arg(nameOrId));
        return;
    }
    const ActionResult result = m_source->act([&](DemoCluster &c) { return c.releasePlacementGroup(group.id); });
    if (!result.ok) {
        finishLater(actionId, false, result.message);
        return;
    }
    m_pending.append(Pending{actionId, true, group.name.isEmpty() ? group.id : group.name, result.jobId, group.id, {}});
    QTimer::singleShot(0, this, [this, actionId, message = result.message] {
        Q_EMIT actionProgress(actionId, message);
        observe();
    });
}

void DemoClusterActions::onCapture(const Capture &capture)
{
    m_last = buildSnapshot(capture);
    observe();
}

void DemoClusterActions::observe()
{
    if (!m_last)
        return;
    for (qsizetype i = 0; i < m_pending.size();) {
        Pending &p = m_pending[i];
        const bool done = p.release ? observeRelease(*m_last, p) : observeSubmit(*m_last, p);
        if (done)
            m_pending.removeAt(i);
        else
            ++i;
    }
}

bool DemoClusterActions::observeSubmit(const ClusterSnapshot &snap, Pending &p)
{
    const Job *job = nullptr;
    for (const Job &j : snap.jobs)
        if (j.submissionId == p.submissionId)
            job = &j;
    if (!job)
        return false;
    if (const int g = snap.placementGroupIndex(p.name); g >= 0 && snap.placementGroups[g].creatorJobId == job->jobId
                                                       && snap.placementGroups[g].state == QLatin1String("CREATED")) {
        const PlacementGroup &group = snap.placementGroups[g];
        Q_EMIT actionFinished(p.actionId, true, tr("placement group %1 (%2) CREATED on %3").arg(group.name, group.id, group.slices.join(QStringLiteral(", "))));
        return true;
    }
    if (job->status == QLatin1String("FAILED") || job->status == QLatin1String("STOPPED")) {
        Q_EMIT actionFinished(p.actionId, false, tr("job %1 %2: %3").arg(job->submissionId, job->status, job->message));
        return true;
    }
    const QString text = reservationProgress(snap, p.submissionId);
    if (text != p.lastText) {
        p.lastText = text;
        Q_EMIT actionProgress(p.actionId, text);
    }
    return false;
}

bool DemoClusterActions::observeRelease(const ClusterSnapshot &snap, Pending &p)
{
    if (snap.placementGroupIndex(p.placementGroupId) >= 0)
        return false;
    Q_EMIT actionFinished(p.actionId, true, p.submissionId.isEmpty()
                                                ? tr("placement group %1 REMOVED").arg(p.name)
                                                : tr("placement group %1 REMOVED; job %2 STOPPED").arg(p.name, p.submissionId));
    return true;
}

} // namespace slicescope
