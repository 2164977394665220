// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli.h"

#include "inspectjson.h"
#include "planner.h"
#include "screenshot.h"
#include "snapshot.h"
#include "sourceoptions.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QJsonDocument>
#include <QTextStream>

#include <cstdio>

namespace slicescope::cli {

namespace {

const QStringList kVerbs = {QStringLiteral("inspect"), QStringLiteral("plan"), QStringLiteral("screenshot")};
// Verbs of the contract that later work adds; named here so the message is precise.
const QStringList kPlannedVerbs = {QStringLiteral("submit-slice-pg"), QStringLiteral("release-pg"),
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
        const QString origin = spec.kind == SourceSpec::Kind::CaptureFile ? spec.capturePath + QStringLiteral(": ")
                             : spec.kind == SourceSpec::Kind::Live        ? QStringLiteral("Ray at %1: ").arg(spec.rayUrl)
                                                                          : QString();
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

int screenshot(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.addOptions({
        {QStringLiteral("view"), QStringLiteral("overview, tables, or slice:NAME (default overview)."), QStringLiteral("V"), QStringLiteral("overview")},
        {QStringLiteral("color"), QStringLiteral("Chip colours: worker, bundle or state (default bundle)."), QStringLiteral("C"), QStringLiteral("bundle")},
        {QStringLiteral("size"), QStringLiteral("Window size WxH (default 1280x800)."), QStringLiteral("WxH"), QStringLiteral("1280x800")},
        {QStringLiteral("theme"), QStringLiteral("light or dark (default light)."), QStringLiteral("T"), QStringLiteral("light")},
        {QStringLiteral("explode"), QStringLiteral("Slice view: gap between z-layers, 0..2 (default 0)."), QStringLiteral("G"), QStringLiteral("0")},
        {QStringLiteral("select-host"), QStringLiteral("Slice view: select this worker id."), QStringLiteral("W")},
        {{QStringLiteral("o"), QStringLiteral("output")}, QStringLiteral("The PNG to write."), QStringLiteral("FILE")},
    });
    SourceSpec spec;
    if (const int code = parse(parser, arguments, QStringLiteral("screenshot"), spec); code >= 0)
        return code;
    ScreenshotOptions options;
    options.view = parser.value(QStringLiteral("view"));
    const auto color = colorModeFromText(parser.value(QStringLiteral("color")));
    if (!color)
        return fail(BadUsage, QStringLiteral("--color wants worker, bundle or state, not \"%1\"").arg(parser.value(QStringLiteral("color"))));
    options.color = *color;
    const QStringList size = parser.value(QStringLiteral("size")).split(u'x');
    const int w = size.value(0).toInt(), h = size.value(1).toInt();
    if (size.size() != 2 || w < 200 || h < 150 || w > 8192 || h > 8192)
        return fail(BadUsage, QStringLiteral("--size wants WxH between 200x150 and 8192x8192, not \"%1\"").arg(parser.value(QStringLiteral("size"))));
    options.size = QSize(w, h);
    options.theme = parser.value(QStringLiteral("theme"));
    if (options.theme != QLatin1String("light") && options.theme != QLatin1String("dark"))
        return fail(BadUsage, QStringLiteral("--theme wants light or dark, not \"%1\"").arg(options.theme));
    bool ok = false;
    options.explode = parser.value(QStringLiteral("explode")).toDouble(&ok);
    if (!ok || options.explode < 0 || options.explode > 2)
        return fail(BadUsage, QStringLiteral("--explode wants a number from 0 to 2"));
    if (parser.isSet(QStringLiteral("select-host"))) {
        options.selectHost = parser.value(QStringLiteral("select-host")).toInt(&ok);
        if (!ok || options.selectHost < 0)
            return fail(BadUsage, QStringLiteral("--select-host wants a worker id"));
    }
    const QString output = parser.value(QStringLiteral("output"));
    if (output.isEmpty())
        return fail(BadUsage, QStringLiteral("screenshot needs -o FILE.png"));
    Capture capture;
    if (const QString error = loadCapture(spec, capture); !error.isEmpty())
        return fail(Failed, error);
    if (const SnapshotPtr snap = buildSnapshot(capture); !snap->errors.isEmpty())
        return fail(Failed, snap->errors.join(QStringLiteral("; ")));
    options.sourceDescription = spec.kind == SourceSpec::Kind::CaptureFile ? QStringLiteral("capture %1").arg(spec.capturePath.section(u'/', -1))
                                                                            : QStringLiteral("demo cluster");
    QString error;
    const QImage image = renderScreenshot(capture, options, &error);
    if (image.isNull())
        return fail(BadUsage, error);
    if (!image.save(output, "PNG"))
        return fail(Failed, QStringLiteral("%1: could not write the PNG").arg(output));
    if (parser.isSet(QStringLiteral("json")))
        printJson(QJsonObject{{QStringLiteral("output"), output}, {QStringLiteral("width"), image.width()}, {QStringLiteral("height"), image.height()},
                              {QStringLiteral("view"), options.view}});
    return Success;
}

} // namespace

bool needsWidgets(const QStringList &arguments)
{
    return arguments.value(1) == QLatin1String("screenshot");
}

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
    if (verb == QLatin1String("screenshot"))
        return screenshot(arguments);
    if (kPlannedVerbs.contains(verb))
        return fail(Failed, QStringLiteral("the \"%1\" verb is not available in this build yet").arg(verb));
    return fail(BadUsage, QStringLiteral("unknown verb \"%1\" (verbs: %2)").arg(verb, kVerbs.join(QStringLiteral(", "))));
}

} // namespace slicescope::cli
