// SPDX-License-Identifier: GPL-3.0-or-later
#include "rayclusteractions.h"

#include "livesource.h"
#include "sliceactions.h"
#include "slicepgjob.h"
#include "tpu.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTimer>

namespace slicescope {

namespace {
// A Ray job needs a moment to start its driver (a Python process, `import ray`, connecting)
// before the driver's own timeout starts counting (the CLI allows the same).
constexpr int kJobStartAllowanceS = 30;
} // namespace

RayClusterActions::RayClusterActions(LiveRaySource *source, QObject *parent)
    : ClusterActions(parent)
    , m_source(source)
{
    connect(source, &Source::captureReceived, this, &RayClusterActions::onCapture);
}

QString RayClusterActions::unavailableReason() const
{
    // Always available: until the first poll answers there is no snapshot to plan against, so
    // the composer has nothing to submit, and a release finds no group; both say so themselves.
    return {};
}

QString RayClusterActions::describeSubmission(const SlicePlacementRequest &request) const
{
    // The body POST /api/jobs/ will carry, as sliceJobForDisplay() shows it (the driver by its
    // hash, the request as the JSON the driver reads). The submission id is drawn at submit.
    const QJsonObject body = sliceJobBody(createRequestJson(toSlicePgRequest(request)), QStringLiteral("slicescope-<assigned at submit>"), request.name);
    return tr("POST %1/api/jobs/\n%2").arg(m_source->client()->displayUrl(), QString::fromUtf8(QJsonDocument(sliceJobForDisplay(body)).toJson(QJsonDocument::Indented)));
}

QString RayClusterActions::describeRelease(const ClusterSnapshot &, const PlacementGroup &group) const
{
    ReleaseTarget target;
    if (const QString error = findReleaseTarget(m_last, group.id, m_source->description(), target); !error.isEmpty())
        return error;
    if (target.stopHolder)
        return tr("Stop Ray job %1, which holds %2; Ray removes the group with its job.").arg(target.holderSubmissionId, target.description);
    return tr("Submit a removal job (entrypoint %1, %2=%3) for %4.")
        .arg(slicePgEntrypoint(), QLatin1String(kRequestEnvVar),
             QString::fromUtf8(QJsonDocument(removeRequestJson(group.id, group.name, m_releaseWaitS)).toJson(QJsonDocument::Compact)),
             target.description);
}

bool RayClusterActions::createdBySliceScope(const ClusterSnapshot &, const PlacementGroup &group) const
{
    return jobCreatedBySliceScope(m_last.rayJobs, group.creatorJobId);
}

void RayClusterActions::finishLater(const QString &actionId, bool ok, const QString &message)
{
    QTimer::singleShot(0, this, [this, actionId, ok, message] { finish(actionId, ok, message); });
}

void RayClusterActions::finish(const QString &actionId, bool ok, const QString &message)
{
    for (qsizetype i = 0; i < m_pending.size(); ++i)
        if (m_pending[i].actionId == actionId) {
            if (m_pending[i].follower)
                m_pending[i].follower->deleteLater();
            m_pending.removeAt(i);
            break;
        }
    Q_EMIT actionFinished(actionId, ok, message);
}

RayClusterActions::Pending *RayClusterActions::pending(const QString &actionId)
{
    for (Pending &p : m_pending)
        if (p.actionId == actionId)
            return &p;
    return nullptr;
}

void RayClusterActions::submitSlicePlacementGroup(const QString &actionId, const SlicePlacementRequest &request)
{
    const tpu::Generation *gen = tpu::findGeneration(request.accelerator);
    const auto topology = tpu::parseTopology(request.topology);
    if (!gen || !topology) {
        finishLater(actionId, false, tr("\"%1 %2\" is not a TPU slice shape").arg(request.accelerator, request.topology));
        return;
    }
    // The last look before sending: the plan over the newest poll still fits (and the request is
    // one Ray takes), or nothing is sent. Before the first poll there is nothing to plan against
    // (the composer offers no submit then); the driver and Ray still check the request.
    // The newest poll is this one Ray's own and names no RayCluster; a request naming one was sent
    // here by it (KubeClusterActions::rayFor), so its slices are that cluster's: planned as the
    // composer planned them, in that cluster (issue 31), not refused for naming it.
    Capture own = m_last;
    if (own.rayCluster.isEmpty())
        own.rayCluster = request.rayCluster;
    if (own.kubeContext.isEmpty())
        own.kubeContext = request.context;
    if (const QString refusal = m_last.hasRay() ? recheckSubmission(*buildSnapshot(own), request) : QString(); !refusal.isEmpty()) {
        finishLater(actionId, false, refusal);
        return;
    }
    const QString submissionId = newSliceJobSubmissionId();
    const QJsonObject body = sliceJobBody(createRequestJson(toSlicePgRequest(request)), submissionId, request.name);
    auto *follower = new SliceJobFollower(m_source->client(), this);
    Pending p;
    p.actionId = actionId;
    p.name = request.name;
    p.submissionId = submissionId;
    p.follower = follower;
    p.clock.start();
    m_pending.append(p);
    connect(follower, &SliceJobFollower::submitted, this, [this, actionId](const QString &id) {
        Q_EMIT actionProgress(actionId, tr("job %1 submitted; waiting for Ray to reserve the slices").arg(id));
        Q_EMIT actionJobSubmitted(actionId, id);
    });
    connect(follower, &SliceJobFollower::statusChanged, this, [this, actionId, submissionId](const QString &status) {
        Q_EMIT actionProgress(actionId, tr("job %1 %2").arg(submissionId, status));
    });
    connect(follower, &SliceJobFollower::resultReceived, this, [this, actionId, submissionId](const QJsonObject &r) {
        QStringList slices;
        for (const QJsonValue &v : r.value(QLatin1String("slices")).toArray())
            slices << v.toString();
        finish(actionId, true, tr("placement group %1 (%2) %3 on %4 (job %5)").arg(r.value(QLatin1String("name")).toString(), r.value(QLatin1String("placementGroupId")).toString(), r.value(QLatin1String("state")).toString(), slices.join(QStringLiteral(", ")), submissionId));
    });
    connect(follower, &SliceJobFollower::failed, this, [this, actionId](const QString &message) { finish(actionId, false, message); });
    // Started from the event loop: no signal of this action arrives inside this call.
    QTimer::singleShot(0, follower, [follower, body, timeout = request.timeoutSeconds] {
        follower->start(body, std::chrono::seconds(timeout + kJobStartAllowanceS));
    });
}

void RayClusterActions::releasePlacementGroup(const QString &actionId, const QString &nameOrId, bool force)
{
    ReleaseTarget target;
    if (const QString error = findReleaseTarget(m_last, nameOrId, m_source->description(), target); !error.isEmpty()) {
        finishLater(actionId, false, error);
        return;
    }
    if (!target.createdBySliceScope && !force) {
        finishLater(actionId, false, tr("%1 was not created by SliceScope; not released without the stronger confirmation").arg(target.description));
        return;
    }
    Pending p;
    p.actionId = actionId;
    p.release = true;
    p.name = target.group.name.isEmpty() ? target.group.id : target.group.name;
    p.placementGroupId = target.group.id;
    p.clock.start();
    if (target.stopHolder) {
        const QString holder = target.holderSubmissionId;
        m_pending.append(p);
        QTimer::singleShot(0, this, [this, actionId, holder] {
            Q_EMIT actionProgress(actionId, tr("stopping Ray job %1, which holds the group").arg(holder));
            m_source->client()->stopJob(holder, [this, actionId](const QString &error, int, const QByteArray &) {
                if (!error.isEmpty() && pending(actionId))
                    finish(actionId, false, error);
                // Otherwise the polls show the group gone (onCapture).
            });
        });
        return;
    }
    const QJsonObject body = sliceJobBody(removeRequestJson(target.group.id, target.group.name, m_releaseWaitS), newSliceJobSubmissionId(), target.group.name);
    auto *remover = new SliceJobFollower(m_source->client(), this);
    p.follower = remover;
    m_pending.append(p);
    connect(remover, &SliceJobFollower::submitted, this, [this, actionId](const QString &id) {
        Q_EMIT actionProgress(actionId, tr("removal job %1 submitted").arg(id));
        Q_EMIT actionJobSubmitted(actionId, id);
    });
    connect(remover, &SliceJobFollower::resultReceived, this, [this, actionId](const QJsonObject &) {
        Q_EMIT actionProgress(actionId, tr("the removal job reports the group removed; waiting for the state API to agree"));
    });
    connect(remover, &SliceJobFollower::failed, this, [this, actionId](const QString &message) { finish(actionId, false, message); });
    QTimer::singleShot(0, remover, [remover, body, wait = m_releaseWaitS] { remover->start(body, std::chrono::seconds(wait + kJobStartAllowanceS)); });
}

void RayClusterActions::onCapture(const Capture &capture)
{
    m_last = capture;
    if (m_pending.isEmpty())
        return;
    const SnapshotPtr snap = buildSnapshot(capture);
    QList<std::pair<QString, QString>> removed;
    for (Pending &p : m_pending) {
        if (p.release) {
            // The outcome observed, not hoped for: the state API says REMOVED, or no longer lists it.
            const QString state = rawPlacementGroupState(capture.rayPlacementGroups, p.placementGroupId);
            if (state.isEmpty() || state == QLatin1String("REMOVED"))
                removed.append({p.actionId, tr("placement group %1 %2").arg(p.name, state.isEmpty() ? QStringLiteral("GONE") : state)});
            else if (p.clock.elapsed() > qint64(m_releaseWaitS + kJobStartAllowanceS) * 1000)
                removed.append({p.actionId, QString()});
            continue;
        }
        const QString text = reservationProgress(*snap, p.submissionId);
        if (!text.isEmpty() && text != p.lastText) {
            p.lastText = text;
            Q_EMIT actionProgress(p.actionId, text);
        }
    }
    for (const auto &[id, message] : removed)
        finish(id, !message.isEmpty(), message.isEmpty() ? tr("the placement group was still listed after %1 s").arg(m_releaseWaitS + kJobStartAllowanceS) : message);
}

} // namespace slicescope
