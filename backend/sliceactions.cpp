// SPDX-License-Identifier: GPL-3.0-or-later
#include "sliceactions.h"

#include "slicepgjob.h"
#include "tpu.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace slicescope {

QString rawPlacementGroupState(const QByteArray &body, const QString &id)
{
    const QJsonArray items = QJsonDocument::fromJson(body).object().value(QLatin1String("data")).toObject().value(QLatin1String("result")).toObject().value(QLatin1String("result")).toArray();
    for (const QJsonValue &v : items)
        if (v.toObject().value(QLatin1String("placement_group_id")).toString() == id)
            return v.toObject().value(QLatin1String("state")).toString();
    return {};
}

bool jobCreatedBySliceScope(const QByteArray &jobsBody, const QString &jobId)
{
    for (const QJsonValue &v : QJsonDocument::fromJson(jobsBody).array()) {
        const QJsonObject job = v.toObject();
        if (job.value(QLatin1String("job_id")).toString() == jobId)
            return job.value(QLatin1String("metadata")).toObject().value(QLatin1String("slicescope")).toString() == QLatin1String("slice-pg");
    }
    return false;
}

QString findReleaseTarget(const Capture &capture, const QString &wanted, const QString &where, ReleaseTarget &target)
{
    const SnapshotPtr snap = buildSnapshot(capture);
    int matches = 0;
    for (const PlacementGroup &g : snap->placementGroups)
        matches += g.id == wanted || g.name == wanted;
    const int index = snap->placementGroupIndex(wanted);
    if (index < 0) {
        const QString removed = rawPlacementGroupState(capture.rayPlacementGroups, wanted);
        return removed == QLatin1String("REMOVED") ? QStringLiteral("placement group %1 is already REMOVED").arg(wanted)
                                                   : QStringLiteral("%1 has no live placement group named or with id \"%2\"").arg(where, wanted);
    }
    if (matches > 1 && snap->placementGroups[index].id != wanted)
        return QStringLiteral("%1 live placement groups are named \"%2\" (in different namespaces): name one by its id").arg(matches).arg(wanted);
    target = ReleaseTarget{};
    target.group = snap->placementGroups[index];
    const PlacementGroup &group = target.group;

    // Who holds it: the job that created it, and whether that job is one of ours.
    for (const QJsonValue &v : QJsonDocument::fromJson(capture.rayJobs).array()) {
        const QJsonObject job = v.toObject();
        if (job.value(QLatin1String("job_id")).toString() != group.creatorJobId)
            continue;
        target.holderSubmissionId = job.value(QLatin1String("submission_id")).toString();
        target.holderStatus = job.value(QLatin1String("status")).toString();
        target.holderEntrypoint = job.value(QLatin1String("entrypoint")).toString();
        target.createdBySliceScope = job.value(QLatin1String("metadata")).toObject().value(QLatin1String("slicescope")).toString() == QLatin1String("slice-pg");
    }
    target.description = QStringLiteral("placement group %1%2 (%3, %4, slices: %5; %6 bundles)")
                             .arg(group.id, group.name.isEmpty() ? QString() : QStringLiteral(" \"%1\"").arg(group.name), group.state,
                                  group.detached ? QStringLiteral("detached") : QStringLiteral("held by its job"),
                                  group.slices.isEmpty() ? QStringLiteral("none") : group.slices.join(QStringLiteral(", ")))
                             .arg(group.bundles.size());
    target.stopHolder = target.createdBySliceScope && !group.detached
                        && (target.holderStatus == QLatin1String("RUNNING") || target.holderStatus == QLatin1String("PENDING"));
    return {};
}

QString reservationProgress(const ClusterSnapshot &snap, const QString &submissionId)
{
    const Job *job = nullptr;
    for (const Job &j : snap.jobs)
        if (j.submissionId == submissionId)
            job = &j;
    if (!job)
        return {};
    if (job->status == QLatin1String("PENDING"))
        return QStringLiteral("job %1 PENDING: the driver is starting").arg(job->submissionId);
    if (job->status != QLatin1String("RUNNING"))
        return QStringLiteral("job %1 %2").arg(job->submissionId, job->status);
    int heads = 0, placed = 0;
    QString scheduling;
    for (const PlacementGroup &pg : snap.placementGroups)
        if (pg.creatorJobId == job->jobId && pg.kind == PlacementGroupKind::SliceHead) {
            ++heads;
            placed += pg.state == QLatin1String("CREATED");
            if (pg.state != QLatin1String("CREATED"))
                scheduling = pg.schedulingState;
        }
    if (heads == 0)
        return QStringLiteral("job %1 RUNNING: reserving").arg(job->submissionId);
    if (placed < heads)
        return QStringLiteral("pending head reservation: %1 of %2 slice heads reserved%3")
            .arg(placed)
            .arg(heads)
            .arg(scheduling.isEmpty() ? QString() : QStringLiteral(" (scheduling state %1)").arg(scheduling));
    return QStringLiteral("all %1 slice heads reserved; creating the slice placement group").arg(heads);
}

QString recheckSubmission(const ClusterSnapshot &newest, const SlicePlacementRequest &request)
{
    const PlanResult plan = planSlicePlacement(newest, planRequestFor(request));
    if (!plan.requestError.isEmpty())
        return QStringLiteral("%1; nothing submitted").arg(plan.requestError);
    if (const int g = newest.placementGroupIndex(request.name); g >= 0)
        return QStringLiteral("a placement group named \"%1\" already exists (%2, %3); nothing submitted")
            .arg(request.name, newest.placementGroups[g].id, newest.placementGroups[g].state);
    if (plan.feasible)
        return {};
    QStringList reasons;
    for (const QString &r : plan.reasons)
        if (const QString t = r.simplified(); !t.isEmpty())
            reasons << (t.endsWith(u':') ? t.chopped(1) : t);
    return QStringLiteral("the newest snapshot says %1 %2 x%3 no longer fits (%4); nothing submitted")
        .arg(plan.generation->name, plan.topology.toString())
        .arg(plan.numSlices)
        .arg(reasons.join(QStringLiteral("; ")));
}

SlicePgRequest toSlicePgRequest(const SlicePlacementRequest &request)
{
    SlicePgRequest r;
    const tpu::Generation *gen = tpu::findGeneration(request.accelerator);
    r.acceleratorVersion = gen ? gen->podTypePrefix : request.accelerator; // Ray's spelling: v6e, v5litepod...
    const auto topology = tpu::parseTopology(request.topology);
    r.topology = topology ? topology->toString() : request.topology;
    r.numSlices = request.numSlices;
    r.name = request.name;
    r.detached = request.detached;
    r.cpuPerBundle = request.cpuPerBundle;
    r.tpuPerBundle = request.tpuPerBundle;
    r.chipsPerVm = request.chipsPerVm;
    r.strategy = request.strategy;
    r.timeoutS = request.timeoutSeconds;
    return r;
}

QString describeSliceJob(const SlicePlacementRequest &request, const QString &entrypoint)
{
    return QStringLiteral("Ray job: entrypoint %1\n%2=%3")
        .arg(entrypoint, QLatin1String(kRequestEnvVar),
             QString::fromUtf8(QJsonDocument(createRequestJson(toSlicePgRequest(request))).toJson(QJsonDocument::Compact)));
}

} // namespace slicescope
