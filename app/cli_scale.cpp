// SPDX-License-Identifier: GPL-3.0-or-later
// `slicescope scale`: scale a KubeRay TPU worker group, change its bounds, or remove one chosen
// slice (ARCHITECTURE.md "Command line"; docs/facts.md 4.1). Reads the cluster, checks the request
// with the same rules as the window (model/scaleplan), prints what will change, and only with
// --yes patches it and reports what it then observed.

#include "cli_p.h"

#include "boundedfile.h"
#include "kubeclient.h"
#include "kubenames.h"
#include "kubescaler.h"
#include "scaleplan.h"
#include "sourceoptions.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QJsonArray>
#include <QTextStream>

#include <limits>

namespace slicescope::cli {

namespace {

QJsonObject planJson(const ScalePlan &plan)
{
    auto bound = [](int v) {
        return v == std::numeric_limits<int>::max() ? QJsonValue() : QJsonValue(v);
    };
    return {
        {QStringLiteral("workerGroup"), plan.group.qualifiedName()},
        {QStringLiteral("allowed"), plan.allowed},
        {QStringLiteral("refusal"), plan.refusal},
        {QStringLiteral("summary"), plan.summary},
        {QStringLiteral("replicas"), QJsonObject{{QStringLiteral("from"), plan.fromReplicas}, {QStringLiteral("to"), plan.toReplicas}}},
        {QStringLiteral("minReplicas"), QJsonObject{{QStringLiteral("from"), plan.fromMin}, {QStringLiteral("to"), plan.toMin}}},
        {QStringLiteral("maxReplicas"), QJsonObject{{QStringLiteral("from"), bound(plan.fromMax)}, {QStringLiteral("to"), bound(plan.toMax)}}},
        {QStringLiteral("hostsPerSlice"), plan.hostsPerSlice},
        {QStringLiteral("chipsPerHost"), plan.chipsPerHost},
        {QStringLiteral("autoscaling"), plan.group.autoscaling},
        {QStringLiteral("slicesAdded"), plan.slicesAdded},
        {QStringLiteral("slicesRemoved"), QJsonArray::fromStringList(plan.slicesRemoved)},
        {QStringLiteral("workersToDelete"), QJsonArray::fromStringList(plan.podsToDelete)},
        {QStringLiteral("displacedPlacementGroups"), QJsonArray::fromStringList(plan.displacedGroups)},
        {QStringLiteral("notes"), QJsonArray::fromStringList(plan.notes)},
    };
}

int readCount(const QCommandLineParser &parser, const QString &name, int &value)
{
    bool ok = false;
    value = parser.value(name).toInt(&ok);
    if (!ok || value < 0)
        return fail(BadUsage, QStringLiteral("--%1 wants a whole number >= 0, not \"%2\"").arg(name, parser.value(name)));
    return -1;
}

} // namespace

int scale(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.addOptions({
        {QStringLiteral("cluster"), QStringLiteral("RayCluster name."), QStringLiteral("C")},
        {QStringLiteral("group"), QStringLiteral("Worker group name."), QStringLiteral("G")},
        {QStringLiteral("replicas"), QStringLiteral("Slices wanted (one replica is one slice)."), QStringLiteral("N")},
        {QStringLiteral("min"), QStringLiteral("New minReplicas (with --max)."), QStringLiteral("N")},
        {QStringLiteral("max"), QStringLiteral("New maxReplicas (with --min)."), QStringLiteral("N")},
        {QStringLiteral("remove-slice"), QStringLiteral("Remove this slice (its pods go in workersToDelete)."), QStringLiteral("SLICE")},
        {QStringLiteral("yes"), QStringLiteral("Apply the change (without it: only show what would change).")},
        {QStringLiteral("wait"), QStringLiteral("Seconds to watch the outcome after patching (default 120; 0: do not wait)."),
         QStringLiteral("S"), QStringLiteral("120")},
    });
    SourceSpec spec;
    if (const int code = parse(parser, arguments, QStringLiteral("scale"), spec); code >= 0)
        return code;
    if (!spec.usesKubernetes())
        return fail(BadUsage, QStringLiteral("scale changes a RayCluster: it needs --kubeconfig PATH (or --context C, --in-cluster)"));
    // One change, in one cluster: the context it is sent to is the one it was planned in.
    if (spec.isFleet())
        return fail(BadUsage, QStringLiteral("scale changes one RayCluster: give one --context, not several or --all-contexts"));
    const QString cluster = parser.value(QStringLiteral("cluster"));
    const QString group = parser.value(QStringLiteral("group"));
    if (cluster.isEmpty() || group.isEmpty())
        return fail(BadUsage, QStringLiteral("scale needs --cluster NAME and --group NAME"));
    // The cluster goes into the RayCluster's path, the group into a label selector.
    if (const QString rule = dns1123SubdomainProblem(cluster); !rule.isEmpty())
        return fail(BadUsage, QStringLiteral("--cluster \"%1\" %2").arg(sanitizeForMessage(cluster, 80), rule));
    if (const QString rule = labelValueProblem(group); !rule.isEmpty())
        return fail(BadUsage, QStringLiteral("--group \"%1\" %2").arg(sanitizeForMessage(group, 80), rule));

    ScaleRequest request;
    const bool replicas = parser.isSet(QStringLiteral("replicas"));
    const bool bounds = parser.isSet(QStringLiteral("min")) || parser.isSet(QStringLiteral("max"));
    const bool remove = parser.isSet(QStringLiteral("remove-slice"));
    if (int(replicas) + int(bounds) + int(remove) != 1)
        return fail(BadUsage, QStringLiteral("say one of --replicas N, --min N --max N, or --remove-slice SLICE"));
    if (replicas) {
        request.mode = ScaleRequest::Mode::Replicas;
        if (const int code = readCount(parser, QStringLiteral("replicas"), request.replicas); code >= 0)
            return code;
    } else if (bounds) {
        if (!parser.isSet(QStringLiteral("min")) || !parser.isSet(QStringLiteral("max")))
            return fail(BadUsage, QStringLiteral("--min and --max go together"));
        request.mode = ScaleRequest::Mode::Bounds;
        if (const int code = readCount(parser, QStringLiteral("min"), request.minReplicas); code >= 0)
            return code;
        if (const int code = readCount(parser, QStringLiteral("max"), request.maxReplicas); code >= 0)
            return code;
    } else {
        request.mode = ScaleRequest::Mode::RemoveSlice;
        request.slice = parser.value(QStringLiteral("remove-slice"));
    }
    int waitSeconds = 0;
    if (const int code = readCount(parser, QStringLiteral("wait"), waitSeconds); code >= 0)
        return code;

    KubeConfig config;
    if (const QString problem = resolveKubeConfig(spec, config); !problem.isEmpty())
        return fail(Failed, problem);
    const QString ns = spec.ns.isEmpty() ? config.ns : spec.ns;
    request.workerGroup = ns + u'/' + cluster + u'/' + group;
    spec.ns = ns;

    SnapshotPtr snap;
    if (const int code = loadSnapshot(spec, snap); code >= 0)
        return code;
    const ScalePlan plan = planScale(*snap, request);
    const bool json = parser.isSet(QStringLiteral("json"));
    QJsonObject result{{QStringLiteral("plan"), planJson(plan)}, {QStringLiteral("applied"), false}};
    if (!plan.allowed) {
        if (json)
            printJson(result);
        return fail(Failed, plan.refusal);
    }

    // Say what will change before changing it.
    notice(plan.summary);
    if (plan.slicesAdded > 0)
        notice(QStringLiteral("adds %1 slice%2 (new pods, then new Ray nodes)").arg(plan.slicesAdded).arg(plan.slicesAdded == 1 ? QString() : QStringLiteral("s")));
    if (!plan.slicesRemoved.isEmpty())
        notice(QStringLiteral("removes %1%2").arg(plan.slicesRemoved.join(QStringLiteral(", ")), plan.podsToDelete.isEmpty() ? QString() : QStringLiteral(" (workersToDelete: %1)").arg(plan.podsToDelete.join(QStringLiteral(", ")))));
    for (const QString &note : plan.notes)
        notice(note);
    if (!parser.isSet(QStringLiteral("yes"))) {
        notice(QStringLiteral("dry run: nothing was changed; run again with --yes to apply"));
        if (json)
            printJson(result);
        return Success;
    }

    KubeClient client(config);
    KubeScaler scaler(&client);
    ScaleOutcome outcome;
    QObject::connect(&scaler, &KubeScaler::progress, &scaler, [](const QString &text) { notice(text); });
    QObject::connect(&scaler, &KubeScaler::finished, &scaler, [&](const ScaleOutcome &o) {
        outcome = o;
        QCoreApplication::exit(0);
    });
    runLoop([&] { scaler.run(plan, std::chrono::seconds(waitSeconds)); });

    result.insert(QStringLiteral("applied"), outcome.result == ScaleOutcome::Result::Applied);
    result.insert(QStringLiteral("outcome"), outcome.toJson());
    if (json)
        printJson(result);
    if (outcome.result != ScaleOutcome::Result::Applied)
        return fail(Failed, outcome.message);
    if (!json)
        QTextStream(stdout) << forTerminal(outcome.message) << Qt::endl;
    else
        notice(outcome.message);
    return Success;
}

} // namespace slicescope::cli
