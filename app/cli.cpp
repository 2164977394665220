// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli.h"

#include "inspectjson.h"
#include "planner.h"
#include "snapshot.h"
#include "sourceoptions.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QJsonDocument>
#include <QTextStream>

#include <cstdio>

namespace slicescope::cli {

namespace {

const QStringList kVerbs = {QStringLiteral("inspect"), QStringLiteral("plan")};
// Verbs of the contract that later work adds; named here so the message is precise.
const QStringList kPlannedVerbs = {QStringLiteral("screenshot"), QStringLiteral("submit-slice-pg"), QStringLiteral("release-pg"),
                                   QStringLiteral("scale"), QStringLiteral("record"), QStringLiteral("serve")};

int fail(ExitCode code, const QString &message)
{
    QTextStream(stderr) << "slicescope: " << message << Qt::endl;
    return code;
}

void printJson(const QJsonObject &object)
{
    const QByteArray bytes = QJsonDocument(object).toJson(QJsonDocument::Indented);
    std::fwrite(bytes.constData(), 1, size_t(bytes.size()), stdout);
    std::fflush(stdout);
}

// Parses verb options plus the shared SOURCE options. Returns -1 to continue, or an exit code.
int parse(QCommandLineParser &parser, const QStringList &arguments, const QString &verb, SourceSpec &spec)
{
    parser.setApplicationDescription(QStringLiteral("slicescope %1").arg(verb));
    addSourceOptions(parser);
    parser.addOption({QStringLiteral("json"), QStringLiteral("Print JSON.")});
    parser.addHelpOption();
    // Drop the verb so the parser sees "slicescope --demo ...".
    QStringList args = arguments;
    args.removeAt(1);
    if (!parser.parse(args))
        return fail(BadUsage, parser.errorText());
    if (parser.isSet(QStringLiteral("help"))) {
        QTextStream(stdout) << parser.helpText();
        return Success;
    }
    if (!parser.positionalArguments().isEmpty())
        return fail(BadUsage, QStringLiteral("unexpected argument \"%1\"").arg(parser.positionalArguments().first()));
    if (const QString problem = readSourceOptions(parser, spec); !problem.isEmpty())
        return fail(BadUsage, problem);
    if (spec.kind == SourceSpec::Kind::None)
        return fail(BadUsage, QStringLiteral("%1 needs a SOURCE: --demo, --capture FILE, or --ray URL / --kubeconfig PATH").arg(verb));
    return -1;
}

// Loads and builds the snapshot, failing loudly on a body that could not be read.
int loadSnapshot(const SourceSpec &spec, SnapshotPtr &snapshot)
{
    Capture capture;
    if (const QString error = loadCapture(spec, capture); !error.isEmpty())
        return fail(Failed, error);
    snapshot = buildSnapshot(capture);
    if (!snapshot->errors.isEmpty()) {
        const QString origin = spec.kind == SourceSpec::Kind::CaptureFile ? spec.capturePath + QStringLiteral(": ") : QString();
        return fail(Failed, origin + snapshot->errors.join(QStringLiteral("; ")));
    }
    return -1;
}

int inspect(const QStringList &arguments)
{
    QCommandLineParser parser;
    SourceSpec spec;
    if (const int code = parse(parser, arguments, QStringLiteral("inspect"), spec); code >= 0)
        return code;
    SnapshotPtr snap;
    if (const int code = loadSnapshot(spec, snap); code >= 0)
        return code;
    if (parser.isSet(QStringLiteral("json"))) {
        printJson(inspectJson(*snap));
        return Success;
    }
    QTextStream out(stdout);
    out << QStringLiteral("%1 slices, %2 placement groups, %3 worker groups\n")
               .arg(snap->slices.size()).arg(snap->placementGroups.size()).arg(snap->workerGroups.size());
    for (const Slice &s : snap->slices)
        out << QStringLiteral("  %1  %2 %3  %4 hosts  %5  %6/%7 chips reserved%8\n")
                   .arg(s.name, -24).arg(s.generation ? s.generation->name : QStringLiteral("?"))
                   .arg(s.topology.toString(), -7)
                   .arg(s.hostCount(), 2).arg(toText(s.status()), -12).arg(s.reservedChips).arg(s.chips())
                   .arg(s.problems.isEmpty() ? QString() : QStringLiteral("  (") + s.problems.join(QStringLiteral(", ")) + u')');
    for (const QString &w : snap->warnings)
        out << "warning: " << w << '\n';
    return Success;
}

int plan(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.addOptions({
        {QStringLiteral("topology"), QStringLiteral("Slice topology, e.g. 4x4 or 2x2x2."), QStringLiteral("T")},
        {QStringLiteral("accelerator"), QStringLiteral("TPU version: v4, v5e, v5p, v6e, v7x (or TPU-V6E, tpu7x...)."), QStringLiteral("V")},
        {QStringLiteral("num-slices"), QStringLiteral("Number of slices (default 1)."), QStringLiteral("N"), QStringLiteral("1")},
    });
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
    if (result.feasible)
        out << "fits: " << shape << " would take " << result.wouldTake.join(QStringLiteral(", ")) << '\n';
    else
        out << "does not fit: " << shape << '\n';
    for (const QString &r : result.reasons)
        out << "  " << r << '\n';
    return Success;
}

} // namespace

bool isHeadlessVerb(const QStringList &arguments)
{
    return arguments.size() > 1 && (kVerbs.contains(arguments[1]) || kPlannedVerbs.contains(arguments[1]));
}

int run(const QStringList &arguments)
{
    const QString verb = arguments.value(1);
    if (verb == QLatin1String("inspect"))
        return inspect(arguments);
    if (verb == QLatin1String("plan"))
        return plan(arguments);
    if (kPlannedVerbs.contains(verb))
        return fail(Failed, QStringLiteral("the \"%1\" verb is not available in this build yet").arg(verb));
    return fail(BadUsage, QStringLiteral("unknown verb \"%1\" (verbs: %2)").arg(verb, kVerbs.join(QStringLiteral(", "))));
}

} // namespace slicescope::cli
