// SPDX-License-Identifier: GPL-3.0-or-later
// `slicescope submit-slice-pg` and `release-pg`: the verbs that change a live Ray's placement
// groups through SliceScope's driver job (backend/slicepgjob.h), checked first as the window
// checks, said before done, and confirmed against Ray's state API afterwards.

#include "cli_p.h"

#include "inspectjson.h"
#include "planner.h"
#include "rayclient.h"
#include "slicepgjob.h"
#include "sliceactions.h"
#include "sourceoptions.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTextStream>
#include <QTimer>
#include <QUrl>

#include <functional>

namespace slicescope::cli {

namespace {

// The verbs that change the cluster talk to Ray themselves: a live --ray source only.
int needLiveRay(const SourceSpec &spec, const QString &verb, RayToken &token)
{
    if (spec.kind != SourceSpec::Kind::Live || spec.rayUrl.isEmpty())
        return fail(BadUsage, QStringLiteral("%1 needs --ray URL (the Ray dashboard it changes)").arg(verb));
    if (const QString problem = resolveRayToken(spec.rayTokenFile, token); !problem.isEmpty())
        return fail(Failed, problem);
    return -1;
}

int readWait(const QCommandLineParser &parser, int &seconds)
{
    bool ok = false;
    seconds = parser.value(QStringLiteral("wait")).toInt(&ok);
    if (!ok || seconds < 1 || seconds > 3600)
        return fail(BadUsage, QStringLiteral("--wait wants whole seconds from 1 to 3600, not \"%1\"").arg(parser.value(QStringLiteral("wait"))));
    return -1;
}

// A Ray job needs a moment to start its driver (a Python process, `import ray`, connecting)
// before the driver's own timeout starts counting.
constexpr int kJobStartAllowanceS = 30;

// The planner's reasons as one line (they are written as an indented list).
QString reasonsLine(const PlanResult &plan)
{
    QStringList parts;
    for (QString r : plan.reasons) {
        r = r.simplified();
        if (r.endsWith(u':'))
            r.chop(1);
        if (!r.isEmpty())
            parts << r;
    }
    return parts.join(QStringLiteral("; "));
}

} // namespace

int submitSlicePg(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.addOptions({
        {QStringLiteral("topology"), QStringLiteral("Slice topology, e.g. 4x4 or 2x2x2."), QStringLiteral("T")},
        {QStringLiteral("accelerator"), QStringLiteral("TPU version: v4, v5e, v5p, v6e, v7x (or TPU-V6E, tpu7x...)."), QStringLiteral("V")},
        {QStringLiteral("num-slices"), QStringLiteral("Number of slices (default 1)."), QStringLiteral("N"), QStringLiteral("1")},
        {QStringLiteral("name"), QStringLiteral("Name of the placement group."), QStringLiteral("NAME")},
        {QStringLiteral("detached"), QStringLiteral("The group outlives its job (release it with release-pg).")},
        {QStringLiteral("wait"), QStringLiteral("Seconds Ray may take to reserve the slices (default 60)."), QStringLiteral("S"), QStringLiteral("60")},
        {QStringLiteral("force"), QStringLiteral("Submit even when the planner says it does not fit, and let Ray decide.")},
    });
    parser.addOptions(bundleOptions());
    SourceSpec spec;
    if (const int code = parse(parser, arguments, QStringLiteral("submit-slice-pg"), spec); code >= 0)
        return code;
    RayToken token;
    if (spec.kind != SourceSpec::Kind::Live || spec.rayUrl.isEmpty())
        return fail(BadUsage, QStringLiteral("submit-slice-pg needs --ray URL (the Ray dashboard it changes)"));

    // Everything about the request itself is checked before anything touches the cluster.
    PlanRequest planRequest;
    planRequest.topology = parser.value(QStringLiteral("topology"));
    planRequest.accelerator = parser.value(QStringLiteral("accelerator"));
    const QString name = parser.value(QStringLiteral("name"));
    if (planRequest.topology.isEmpty() || planRequest.accelerator.isEmpty() || name.isEmpty())
        return fail(BadUsage, QStringLiteral("submit-slice-pg needs --topology T, --accelerator V and --name NAME"));
    bool ok = false;
    planRequest.numSlices = parser.value(QStringLiteral("num-slices")).toInt(&ok);
    if (!ok || planRequest.numSlices < 1 || planRequest.numSlices > 1024)
        return fail(BadUsage, QStringLiteral("--num-slices wants a whole number from 1 to 1024, not \"%1\"").arg(parser.value(QStringLiteral("num-slices"))));
    if (const int code = readBundleOptions(parser, planRequest); code >= 0)
        return code;
    // The planner's request checks (generation, topology rules, what Ray refuses about the
    // bundles, in Ray's words) need no cluster.
    if (const PlanResult check = planSlicePlacement(ClusterSnapshot{}, planRequest); !check.requestError.isEmpty())
        return fail(BadUsage, check.requestError);
    SlicePgRequest request;
    request.name = name;
    request.numSlices = planRequest.numSlices;
    request.detached = parser.isSet(QStringLiteral("detached"));
    if (const int code = readWait(parser, request.timeoutS); code >= 0)
        return code;
    request.cpuPerBundle = planRequest.cpuPerBundle;
    request.strategy = planRequest.strategy;
    request.tpuPerBundle = planRequest.tpuPerBundle;
    request.chipsPerVm = planRequest.chipsPerVm;
    if (const int code = needLiveRay(spec, QStringLiteral("submit-slice-pg"), token); code >= 0)
        return code;

    // The plan over a fresh snapshot: what Ray will most likely take, or why it cannot.
    SnapshotPtr snap;
    if (const int code = loadSnapshot(spec, snap); code >= 0)
        return code;
    const PlanResult plan = planSlicePlacement(*snap, planRequest);
    request.topology = plan.topology.toString();
    request.acceleratorVersion = plan.generation->podTypePrefix; // Ray's spelling: v6e, v5litepod...
    const QString shape = QStringLiteral("%1 %2 x%3").arg(plan.generation->name, request.topology).arg(request.numSlices);
    if (const int existing = snap->placementGroupIndex(name); existing >= 0)
        return fail(Failed, QStringLiteral("a placement group named \"%1\" already exists (%2, %3); nothing submitted")
                                .arg(name, snap->placementGroups[existing].id, snap->placementGroups[existing].state));
    if (!plan.feasible && !parser.isSet(QStringLiteral("force")))
        return fail(Failed, QStringLiteral("%1 does not fit: %2; nothing submitted (--force submits anyway and lets Ray decide)")
                                .arg(shape, reasonsLine(plan)));

    const QString submissionId = newSliceJobSubmissionId();
    const QJsonObject jobBody = sliceJobBody(createRequestJson(request), submissionId, name);
    const QJsonObject shownJob = sliceJobForDisplay(jobBody);
    notice(plan.feasible ? QStringLiteral("plan: %1 fits; the planner would take %2 (Ray picks the slices itself)").arg(shape, plan.wouldTake.join(QStringLiteral(", ")))
                         : QStringLiteral("plan: %1 does not fit (%2); submitting anyway (--force)").arg(shape, reasonsLine(plan)));
    notice(QStringLiteral("Ray will reserve %1").arg(describeBundles(plan)));
    for (const QString &n : plan.notes)
        notice(QStringLiteral("note: ") + n);
    notice(QStringLiteral("submitting Ray job %1 to %2: entrypoint %3 in working_dir %4; runtime_env.env_vars %5=%6")
               .arg(submissionId, spec.rayUrl, slicePgEntrypoint(), slicePgDriverPackage().uri(), QLatin1String(kRequestEnvVar),
                    QString::fromUtf8(QJsonDocument(createRequestJson(request)).toJson(QJsonDocument::Compact))));

    RayClient client{QUrl(spec.rayUrl)};
    client.setToken(token);
    SliceJobFollower follower(&client);
    QJsonObject result;
    QString failure;
    QElapsedTimer clock;
    QObject::connect(&follower, &SliceJobFollower::resultReceived, &follower, [&](const QJsonObject &r) {
        result = r;
        QCoreApplication::exit(0);
    });
    QObject::connect(&follower, &SliceJobFollower::failed, &follower, [&](const QString &message) {
        failure = message;
        QCoreApplication::exit(1);
    });
    runLoop([&] {
        clock.start();
        follower.start(jobBody, std::chrono::seconds(request.timeoutS + kJobStartAllowanceS));
    });
    if (!failure.isEmpty())
        return fail(Failed, failure);
    result.remove(QStringLiteral("ok"));
    result.remove(QStringLiteral("mode"));
    result.insert(QStringLiteral("job"), shownJob);
    result.insert(QStringLiteral("plan"), planJson(plan));
    result.insert(QStringLiteral("seconds"), double(clock.elapsed()) / 1000.0);
    if (parser.isSet(QStringLiteral("json"))) {
        printJson(result);
        return Success;
    }
    QTextStream(stdout) << forTerminal(QStringLiteral("%1 %2 %3 on %4 (job %5)")
                                           .arg(result.value(QLatin1String("placementGroupId")).toString(), name,
                                                result.value(QLatin1String("state")).toString(),
                                                result.value(QLatin1String("slices")).toVariant().toStringList().join(QStringLiteral(", ")), submissionId))
                        << '\n';
    return Success;
}

int releasePg(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.addPositionalArgument(QStringLiteral("NAME"), QStringLiteral("The placement group's name or id."));
    parser.addOptions({
        {QStringLiteral("force"), QStringLiteral("Also remove a group SliceScope did not create.")},
        {QStringLiteral("wait"), QStringLiteral("Seconds to wait for Ray to remove it (default 60)."), QStringLiteral("S"), QStringLiteral("60")},
    });
    SourceSpec spec;
    if (const int code = parse(parser, arguments, QStringLiteral("release-pg"), spec, 1); code >= 0)
        return code;
    const QString wanted = parser.positionalArguments().value(0);
    if (wanted.isEmpty())
        return fail(BadUsage, QStringLiteral("release-pg needs the placement group's NAME (or id)"));
    int waitS = 60;
    if (const int code = readWait(parser, waitS); code >= 0)
        return code;
    RayToken token;
    if (const int code = needLiveRay(spec, QStringLiteral("release-pg"), token); code >= 0)
        return code;

    Capture capture;
    if (const QString error = loadCapture(spec, capture); !error.isEmpty())
        return fail(Failed, error);
    // Which group, who holds it, and whether SliceScope created it: decided as the window decides.
    ReleaseTarget target;
    if (const QString error = findReleaseTarget(capture, wanted, QStringLiteral("Ray at %1").arg(spec.rayUrl), target); !error.isEmpty())
        return fail(Failed, error);
    const PlacementGroup &group = target.group;
    const QString &holderSubmissionId = target.holderSubmissionId;
    const bool ours = target.createdBySliceScope;
    const QString &what = target.description;
    if (!ours && !parser.isSet(QStringLiteral("force")))
        return fail(Failed, QStringLiteral("%1 was not created by SliceScope (creator job %2%3); not released: add --force to remove it anyway")
                                .arg(what, group.creatorJobId, target.holderEntrypoint.isEmpty() ? QString() : QStringLiteral(", entrypoint \"%1\"").arg(target.holderEntrypoint)));
    const bool stopHolder = target.stopHolder;

    RayClient client{QUrl(spec.rayUrl)};
    client.setToken(token);
    SliceJobFollower remover(&client);
    QJsonObject report{
        {QStringLiteral("placementGroupId"), group.id},
        {QStringLiteral("name"), group.name},
        {QStringLiteral("stateBefore"), group.state},
        {QStringLiteral("detached"), group.detached},
        {QStringLiteral("slices"), QJsonArray::fromStringList(group.slices)},
        {QStringLiteral("createdBySliceScope"), ours},
        {QStringLiteral("creatorJob"), holderSubmissionId.isEmpty() ? QJsonValue() : QJsonValue(holderSubmissionId)},
    };
    QJsonObject removalBody;
    if (stopHolder) {
        report.insert(QStringLiteral("action"), QStringLiteral("stop-job"));
        notice(QStringLiteral("releasing %1: stopping Ray job %2, which holds it").arg(what, holderSubmissionId));
    } else {
        const QString removalId = newSliceJobSubmissionId();
        const QJsonObject removeRequest = removeRequestJson(group.id, group.name, waitS);
        removalBody = sliceJobBody(removeRequest, removalId, group.name);
        report.insert(QStringLiteral("action"), QStringLiteral("removal-job"));
        report.insert(QStringLiteral("job"), sliceJobForDisplay(removalBody));
        notice(QStringLiteral("releasing %1%2: submitting removal job %3: entrypoint %4; %5=%6")
                   .arg(what, ours ? QString() : QStringLiteral(", which SliceScope did not create (--force)"), removalId, slicePgEntrypoint(),
                        QLatin1String(kRequestEnvVar), QString::fromUtf8(QJsonDocument(removeRequest).toJson(QJsonDocument::Compact))));
    }

    // After the job is stopped or the removal job reports, the state API must say REMOVED.
    QString failure;
    QElapsedTimer clock;
    QTimer confirmTimer;
    confirmTimer.setSingleShot(true);
    std::function<void()> confirm = [&] {
        client.request(QByteArrayLiteral("GET"), QStringLiteral("api/v0/placement_groups?detail=true&limit=10000"), QByteArray(),
                       [&](const QString &error, int, const QByteArray &body) {
                           if (!error.isEmpty()) {
                               failure = error;
                               QCoreApplication::exit(1);
                               return;
                           }
                           const QString state = rawPlacementGroupState(body, group.id);
                           if (state == QLatin1String("REMOVED") || state.isEmpty()) {
                               report.insert(QStringLiteral("state"), state.isEmpty() ? QStringLiteral("GONE") : state);
                               QCoreApplication::exit(0);
                           } else if (clock.elapsed() > qint64(waitS) * 1000) {
                               failure = QStringLiteral("%1 was still %2 after %3 s").arg(what, state).arg(waitS);
                               QCoreApplication::exit(1);
                           } else {
                               confirmTimer.start(300);
                           }
                       });
    };
    QObject::connect(&confirmTimer, &QTimer::timeout, &confirmTimer, [&] { confirm(); });
    QObject::connect(&remover, &SliceJobFollower::resultReceived, &remover, [&](const QJsonObject &r) {
        report.insert(QStringLiteral("removalJob"), r.value(QLatin1String("jobId")));
        confirm();
    });
    QObject::connect(&remover, &SliceJobFollower::failed, &remover, [&](const QString &message) {
        failure = message;
        QCoreApplication::exit(1);
    });
    runLoop([&] {
        clock.start();
        if (stopHolder) {
            client.stopJob(holderSubmissionId, [&](const QString &error, int, const QByteArray &) {
                if (!error.isEmpty()) {
                    failure = error;
                    QCoreApplication::exit(1);
                    return;
                }
                confirm();
            });
        } else {
            remover.start(removalBody, std::chrono::seconds(waitS + kJobStartAllowanceS));
        }
    });
    if (!failure.isEmpty())
        return fail(Failed, failure);
    report.insert(QStringLiteral("seconds"), double(clock.elapsed()) / 1000.0);
    if (parser.isSet(QStringLiteral("json"))) {
        printJson(report);
        return Success;
    }
    QTextStream(stdout) << forTerminal(QStringLiteral("%1 %2").arg(group.id, report.value(QLatin1String("state")).toString())) << '\n';
    return Success;
}

} // namespace slicescope::cli
