// SPDX-License-Identifier: GPL-3.0-or-later
// `slicescope plan`: would a slice placement group of this shape fit the cluster now (the
// planner's what-if), and the bundle options plan shares with submit-slice-pg.

#include "cli_p.h"

#include "inspectjson.h"
#include "planner.h"
#include "sourceoptions.h"

#include <QCommandLineParser>
#include <QTextStream>

#include <utility>

namespace slicescope::cli {

// The bundle options plan and submit-slice-pg share, so a what-if asks what a submit sends.
QList<QCommandLineOption> bundleOptions()
{
    return {
        {QStringLiteral("tpu-per-bundle"), QStringLiteral("TPU chips per bundle (default: the host's chips); chips / N bundles per slice."), QStringLiteral("N")},
        {QStringLiteral("chips-per-vm"), QStringLiteral("Chips per TPU VM, for shapes with more than one (v6e 2x4: 8 or 4; default: Ray's)."), QStringLiteral("N")},
        {QStringLiteral("strategy"), QStringLiteral("PACK, SPREAD, STRICT_PACK or STRICT_SPREAD (default SPREAD)."), QStringLiteral("S"), QStringLiteral("SPREAD")},
        {QStringLiteral("cpu-per-bundle"), QStringLiteral("CPUs per bundle besides its TPU (default 1)."), QStringLiteral("C"), QStringLiteral("1")},
    };
}

int readBundleOptions(const QCommandLineParser &parser, PlanRequest &request)
{
    for (const auto &[option, target] : {std::pair{QStringLiteral("tpu-per-bundle"), &request.tpuPerBundle},
                                         std::pair{QStringLiteral("chips-per-vm"), &request.chipsPerVm}}) {
        if (!parser.isSet(option))
            continue;
        bool ok = false;
        *target = parser.value(option).toInt(&ok);
        if (!ok || *target < 1 || *target > 4096)
            return fail(BadUsage, QStringLiteral("--%1 wants a whole number of chips from 1 to 4096, not \"%2\"").arg(option, parser.value(option)));
    }
    bool ok = false;
    request.cpuPerBundle = parser.value(QStringLiteral("cpu-per-bundle")).toDouble(&ok);
    if (!ok || request.cpuPerBundle < 0 || request.cpuPerBundle > 1024)
        return fail(BadUsage, QStringLiteral("--cpu-per-bundle wants a number from 0 to 1024, not \"%1\"").arg(parser.value(QStringLiteral("cpu-per-bundle"))));
    request.strategy = parser.value(QStringLiteral("strategy")).toUpper();
    if (!QStringList{QStringLiteral("PACK"), QStringLiteral("SPREAD"), QStringLiteral("STRICT_PACK"), QStringLiteral("STRICT_SPREAD")}.contains(request.strategy))
        return fail(BadUsage, QStringLiteral("--strategy wants PACK, SPREAD, STRICT_PACK or STRICT_SPREAD, not \"%1\"").arg(parser.value(QStringLiteral("strategy"))));
    return -1;
}

int plan(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.addOptions({
        {QStringLiteral("topology"), QStringLiteral("Slice topology, e.g. 4x4 or 2x2x2."), QStringLiteral("T")},
        {QStringLiteral("accelerator"), QStringLiteral("TPU version: v4, v5e, v5p, v6e, v7x (or TPU-V6E, tpu7x...)."), QStringLiteral("V")},
        {QStringLiteral("num-slices"), QStringLiteral("Number of slices (default 1)."), QStringLiteral("N"), QStringLiteral("1")},
        {QStringLiteral("ray-cluster"), QStringLiteral("Plan in this RayCluster only, as NS/NAME (CONTEXT:NS/NAME in a fleet); default: each Ray cluster on its own, the first where it fits."), QStringLiteral("C")},
    });
    parser.addOptions(bundleOptions());
    SourceSpec spec;
    if (const int code = parse(parser, arguments, QStringLiteral("plan"), spec); code >= 0)
        return code;
    PlanRequest request;
    request.topology = parser.value(QStringLiteral("topology"));
    request.accelerator = parser.value(QStringLiteral("accelerator"));
    if (request.topology.isEmpty() || request.accelerator.isEmpty())
        return fail(BadUsage, QStringLiteral("plan needs --topology T and --accelerator V"));
    bool ok = false;
    request.numSlices = parser.value(QStringLiteral("num-slices")).toInt(&ok);
    if (!ok || request.numSlices < 1)
        return fail(BadUsage, QStringLiteral("--num-slices wants a whole number >= 1, not \"%1\"").arg(parser.value(QStringLiteral("num-slices"))));
    if (const int code = readBundleOptions(parser, request); code >= 0)
        return code;
    if (parser.isSet(QStringLiteral("ray-cluster"))) {
        // A context may hold ':' (an EKS ARN); "ns/name" never does.
        const QString target = parser.value(QStringLiteral("ray-cluster"));
        const qsizetype colon = target.lastIndexOf(u':');
        request.context = colon < 0 ? QString() : target.left(colon);
        request.rayCluster = target.mid(colon + 1);
        if (request.rayCluster.count(u'/') != 1 || request.rayCluster.startsWith(u'/') || request.rayCluster.endsWith(u'/') || (colon >= 0 && request.context.isEmpty()))
            return fail(BadUsage, QStringLiteral("--ray-cluster wants NS/NAME or CONTEXT:NS/NAME, not \"%1\"").arg(target));
    }
    SnapshotPtr snap;
    if (const int code = loadSnapshot(spec, snap); code >= 0)
        return code;
    const PlanResult result = planSlicePlacement(*snap, request);
    if (!result.requestError.isEmpty())
        return fail(BadUsage, result.requestError);
    if (parser.isSet(QStringLiteral("json"))) {
        printJson(planJson(result));
        return Success;
    }
    QTextStream out(stdout);
    const QString shape = QStringLiteral("%1 %2 x%3").arg(result.generation->name, result.topology.toString()).arg(result.numSlices);
    // Slice names and reasons quote what Ray and Kubernetes said: forTerminal() on every line.
    // Which Ray cluster the plan is for (issue 31): a placement group lives in one.
    const QString where = planClusterText(result);
    const bool inNone = !result.feasible && request.rayCluster.isEmpty() && result.clusters.size() > 1;
    const QString in = inNone ? QStringLiteral(" in any single Ray cluster") : where.isEmpty() ? QString()
                                                                                               : QStringLiteral(" in ") + where;
    if (result.feasible)
        out << forTerminal(QStringLiteral("fits") + in + QStringLiteral(": ") + shape + QStringLiteral(" would take ") + result.wouldTake.join(QStringLiteral(", "))) << '\n';
    else
        out << forTerminal(QStringLiteral("does not fit") + in + QStringLiteral(": ") + shape) << '\n';
    out << forTerminal(QStringLiteral("  ") + describeBundles(result)) << '\n';
    for (const QString &r : result.reasons)
        out << forTerminal(QStringLiteral("  ") + r) << '\n';
    for (const QString &n : result.notes)
        out << forTerminal(QStringLiteral("  note: ") + n) << '\n';
    return Success;
}

} // namespace slicescope::cli
