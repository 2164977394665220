// SPDX-License-Identifier: GPL-3.0-or-later
#include "democlusteractions.h"

#include "democluster.h"
#include "scaleplan.h"
#include "sliceactions.h"
#include "tpu.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTimer>

namespace slicescope {

DemoClusterActions::DemoClusterActions(DemoSource *source, QObject *parent)
    : ClusterActions(parent)
    , m_source(source)
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
    // The last look before sending, over the demo's newest state (as the live path does).
    if (const QString refusal = recheckSubmission(*buildSnapshot(m_source->cluster().capture()), request); !refusal.isEmpty()) {
        finishLater(actionId, false, refusal);
        return;
    }
    const ActionResult result = m_source->act([&](DemoCluster &c) { return c.submitSlicePlacementGroup(request); });
    if (!result.ok) {
        finishLater(actionId, false, result.message);
        return;
    }
    m_pending.append(Pending{actionId, Kind::Submit, request.name, result.jobId, {}, {}, {}, 0});
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
    m_pending.append(Pending{actionId, Kind::Release, group.name.isEmpty() ? group.id : group.name, result.jobId, group.id, {}, {}, 0});
    QTimer::singleShot(0, this, [this, actionId, message = result.message] {
        Q_EMIT actionProgress(actionId, message);
        observe();
    });
}

QString DemoClusterActions::scaleUnavailableReason(const WorkerGroup &group) const
{
    const SnapshotPtr snap = m_last ? m_last : buildSnapshot(m_source->cluster().capture());
    if (snap->workerGroupIndex(group.fleetKey()) < 0)
        return tr("the demo cluster has no worker group %1").arg(group.qualifiedName());
    return {};
}

void DemoClusterActions::scaleWorkerGroup(const QString &actionId, const ScalePlan &plan)
{
    if (!plan.allowed) {
        finishLater(actionId, false, plan.refusal.isEmpty() ? tr("the plan was refused") : plan.refusal);
        return;
    }
    if (const QString why = scaleUnavailableReason(plan.group); !why.isEmpty()) {
        finishLater(actionId, false, why);
        return;
    }
    // What the JSON Patch's `test` ops would check on a live cluster, checked on the demo's own
    // RayCluster body with the same rule: a group changed since the preview is not touched.
    const Capture now = m_source->cluster().capture();
    QJsonObject rayCluster;
    for (const QJsonValue &item : QJsonDocument::fromJson(now.kubeRayClusters).object().value(QLatin1String("items")).toArray()) {
        const QJsonObject meta = item.toObject().value(QLatin1String("metadata")).toObject();
        if (meta.value(QLatin1String("namespace")).toString() == plan.group.ns && meta.value(QLatin1String("name")).toString() == plan.group.cluster)
            rayCluster = item.toObject();
    }
    if (const QStringList changes = changedSincePlan(plan, rayCluster); !changes.isEmpty()) {
        const QString message = tr("%1 changed since the preview (%2); nothing was changed. Look again and confirm the new plan.")
                                    .arg(plan.group.qualifiedName(), changes.join(QStringLiteral("; ")));
        QTimer::singleShot(0, this, [this, actionId, changes, message] { Q_EMIT actionConflict(actionId, changes, message); });
        return;
    }
    // And what the real scaler checks on the pods: a slice to remove is still the one reviewed.
    if (const QStringList changes = removalTargetChanges(plan, *buildSnapshot(now)); !changes.isEmpty()) {
        const QString message = tr("%1 since the preview; nothing was changed. Choose the slice again.").arg(changes.join(QStringLiteral("; ")));
        QTimer::singleShot(0, this, [this, actionId, changes, message] { Q_EMIT actionConflict(actionId, changes, message); });
        return;
    }
    if (plan.toMin != plan.fromMin || plan.toMax != plan.fromMax) {
        finishLater(actionId, false, tr("the demo has no autoscaler and keeps minReplicas/maxReplicas fixed; %1 was not changed").arg(plan.group.qualifiedName()));
        return;
    }
    if (plan.noChange) {
        finishLater(actionId, true, tr("%1 already is as asked; nothing to do").arg(plan.group.qualifiedName()));
        return;
    }

    // Slices named for removal go as named (what workersToDelete makes KubeRay do); otherwise the
    // demo's operator adds or drops replicas itself.
    const bool named = !plan.podsToDelete.isEmpty() && plan.toReplicas < plan.fromReplicas
                       && plan.slicesRemoved.size() == plan.fromReplicas - plan.toReplicas;
    const ActionResult result = m_source->act([&](DemoCluster &c) {
        if (!named)
            return c.scaleWorkerGroup(plan.group.qualifiedName(), plan.toReplicas);
        ActionResult last;
        QStringList messages;
        for (const QString &slice : plan.slicesRemoved) {
            last = c.removeSlice(slice);
            if (!last.ok)
                return last;
            messages << last.message;
        }
        last.message = messages.join(QStringLiteral("; "));
        return last;
    });
    if (!result.ok) {
        finishLater(actionId, false, result.message);
        return;
    }
    // Observed only once what the demo did is said: a tick may come before the queued signal.
    m_pending.append(Pending{actionId, Kind::Scale, plan.group.qualifiedName(), {}, {}, {}, plan, m_source->cluster().elapsedMs() + kScaleSettleMs, false});
    QTimer::singleShot(0, this, [this, actionId, message = result.message] {
        for (Pending &p : m_pending)
            if (p.actionId == actionId)
                p.announced = true;
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
        bool done = false;
        switch (p.kind) {
        case Kind::Submit: done = observeSubmit(*m_last, p); break;
        case Kind::Release: done = observeRelease(*m_last, p); break;
        case Kind::Scale: done = observeScale(*m_last, p); break;
        }
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
    Q_EMIT actionFinished(p.actionId, true, p.submissionId.isEmpty() ? tr("placement group %1 REMOVED").arg(p.name) : tr("placement group %1 REMOVED; job %2 STOPPED").arg(p.name, p.submissionId));
    return true;
}

bool DemoClusterActions::observeScale(const ClusterSnapshot &snap, Pending &p)
{
    if (!p.announced)
        return false;
    const ScalePlan &plan = p.plan;
    const int gi = snap.workerGroupIndex(plan.group.fleetKey());
    if (gi < 0) {
        Q_EMIT actionFinished(p.actionId, false, tr("worker group %1 is gone").arg(plan.group.qualifiedName()));
        return true;
    }
    const WorkerGroup &g = snap.workerGroups[gi];
    // Done when the group has its new slices up in Ray and the removed slices' pods are gone.
    QStringList waiting, added;
    int settled = 0; // the group's slices that stay and are up
    for (const QString &name : g.slices) {
        if (plan.slicesRemoved.contains(name))
            continue;
        const bool isNew = !plan.group.slices.contains(name);
        if (isNew)
            added << name;
        const int si = snap.sliceIndex(name);
        if (!isNew || si < 0 || snap.slices[si].status() != SliceStatus::Provisioning) {
            ++settled;
            continue;
        }
        int up = 0;
        for (const Host &h : snap.slices[si].hosts)
            up += h.state == HostState::Alive ? 1 : 0;
        waiting << tr("%1: %2 of %3 hosts up").arg(name).arg(up).arg(plan.hostsPerSlice);
    }
    for (const QString &name : plan.slicesRemoved) {
        int left = 0;
        for (const Pod &pod : snap.pods)
            left += pod.ns == g.ns && pod.cluster == g.cluster && pod.group == g.group && pod.replicaKey == name ? 1 : 0;
        if (left > 0 || g.slices.contains(name))
            waiting << tr("%1: %2 pod%3 terminating").arg(name).arg(left).arg(left == 1 ? QString() : QStringLiteral("s"));
    }
    if (waiting.isEmpty() && g.slices.size() == plan.toReplicas) {
        QString message = tr("%1 now has %2").arg(g.qualifiedName(), describeReplicas(int(g.slices.size()), plan.hostsPerSlice, plan.chipsPerHost));
        if (!added.isEmpty())
            message += tr("; %1 joined Ray").arg(added.join(QStringLiteral(", ")));
        if (!plan.slicesRemoved.isEmpty())
            message += tr("; %1 removed").arg(plan.slicesRemoved.join(QStringLiteral(", ")));
        Q_EMIT actionFinished(p.actionId, true, message);
        return true;
    }
    if (m_source->cluster().elapsedMs() > p.deadlineMs) {
        Q_EMIT actionFinished(p.actionId, false, tr("%1 did not settle within %2 s: %3").arg(g.qualifiedName()).arg(kScaleSettleMs / 1000).arg(waiting.isEmpty() ? tr("%1 slices, expected %2").arg(g.slices.size()).arg(plan.toReplicas) : waiting.join(QStringLiteral("; "))));
        return true;
    }
    const QString text = tr("%1: %2 of %3 slices; waiting for %4")
                             .arg(g.group)
                             .arg(settled)
                             .arg(plan.toReplicas)
                             .arg(waiting.isEmpty() ? tr("the operator") : waiting.join(QStringLiteral("; ")));
    if (text != p.lastText) {
        p.lastText = text;
        Q_EMIT actionProgress(p.actionId, text);
    }
    return false;
}

} // namespace slicescope
