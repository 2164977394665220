// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli.h"
#include "cli_p.h"

#include "boundedfile.h"
#include "capturefile.h"
#include "democluster.h"
#include "history.h"
#include "livesource.h"
#include "inspectjson.h"
#include "planner.h"
#include "rayclient.h"
#include "relaysource.h"
#include "screenshot.h"
#include "slicepgjob.h"
#include "snapshot.h"
#include "sliceactions.h"
#include "sourceoptions.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTextStream>
#include <QThread>
#include <QTimer>
#include <QUrl>

#include <cmath>
#include <functional>
#include <utility>

#include <cstdio>

namespace slicescope::cli {

namespace {

const QStringList kVerbs = {QStringLiteral("inspect"), QStringLiteral("plan"), QStringLiteral("screenshot"),
                            QStringLiteral("submit-slice-pg"), QStringLiteral("release-pg"), QStringLiteral("record"),
                            QStringLiteral("scale"), QStringLiteral("serve")};
// Verbs of the contract that later work adds; named here so the message is precise.
const QStringList kPlannedVerbs = {};

} // namespace

namespace {

void quietMessageHandler(QtMsgType type, const QMessageLogContext &, const QString &message)
{
    // Qt's warnings (a plugin, a socket, a process) are not the verb's to say; a fatal one is
    // the last thing said before the abort, so it is said, as one line.
    if (type == QtFatalMsg) {
        const QByteArray line = sanitizeForMessage(message, kMaxStderrLineChars).toLocal8Bit();
        std::fprintf(stderr, "slicescope: fatal: %s\n", line.constData());
        std::fflush(stderr);
    }
}

} // namespace

void installQuietMessageHandler()
{
    if (qEnvironmentVariableIsEmpty("SLICESCOPE_DEBUG"))
        qInstallMessageHandler(quietMessageHandler);
}

// One line on stderr, always: whatever a message quotes (a server's words, a file's value) has its
// control characters escaped and the line is cut to a bound.
void printLine(const QString &message)
{
    QTextStream(stderr) << "slicescope: " << sanitizeForMessage(message, kMaxStderrLineChars) << Qt::endl;
}

int fail(ExitCode code, const QString &message)
{
    printLine(message);
    return code;
}

// What a changing verb is about to do, said before it does it (one line each).
void notice(const QString &message)
{
    printLine(message);
}

void printJson(const QJsonObject &object)
{
    const QByteArray bytes = QJsonDocument(object).toJson(QJsonDocument::Indented);
    std::fwrite(bytes.constData(), 1, size_t(bytes.size()), stdout);
    std::fflush(stdout);
}

// Parses verb options plus the shared SOURCE options. Returns -1 to continue, or an exit code.
int parse(QCommandLineParser &parser, const QStringList &arguments, const QString &verb, SourceSpec &spec, int positionals)
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
    if (parser.positionalArguments().size() > positionals)
        return fail(BadUsage, QStringLiteral("unexpected argument \"%1\"").arg(parser.positionalArguments().value(positionals)));
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
                               : spec.usesKubernetes()                    ? QStringLiteral("Kubernetes: ")
                               : spec.kind == SourceSpec::Kind::Live      ? QStringLiteral("Ray at %1: ").arg(spec.rayUrl)
                                                                          : QString();
        return fail(Failed, origin + snapshot->errors.join(QStringLiteral("; ")));
    }
    return -1;
}

namespace {

// `inspect --capture REC --step N`: capture N of a recording (0 the first, -1 the last), as the
// window's history rebuilds it after reading the whole recording, so the answer is the one an
// operator scrubbing to that step sees.
int loadRecordingStep(const SourceSpec &spec, const QString &stepText, SnapshotPtr &snapshot)
{
    bool ok = false;
    int step = stepText.toInt(&ok);
    if (!ok)
        return fail(BadUsage, QStringLiteral("--step wants a capture number (0 the first, -1 the last), not \"%1\"").arg(stepText));
    if (spec.kind != SourceSpec::Kind::CaptureFile)
        return fail(BadUsage, QStringLiteral("--step goes with --capture FILE (a recording)"));
    const CaptureReadResult read = readCaptureFile(spec.capturePath);
    if (!read.ok())
        return fail(Failed, read.error);
    const int count = int(read.captures.size());
    if (step < -count || step >= count)
        return fail(BadUsage, QStringLiteral("--step %1: %2 holds %3 capture(s) (steps 0 to %4, or -1 to -%3)")
                                  .arg(stepText, spec.capturePath)
                                  .arg(count)
                                  .arg(count - 1));
    if (step < 0)
        step += count;
    SnapshotHistory history(HistoryPolicy{0, 0}); // the whole recording, however long
    for (int i = 0; i < count; ++i) {
        const SnapshotPtr built = buildSnapshot(read.captures[i]);
        if (!built->errors.isEmpty())
            return fail(Failed, QStringLiteral("%1: capture %2: %3").arg(spec.capturePath).arg(i).arg(built->errors.join(QStringLiteral("; "))));
        history.add(built);
    }
    snapshot = history.snapshot(step);
    return -1;
}

int inspect(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.addOption({QStringLiteral("step"), QStringLiteral("With --capture REC: the recording's capture N (0 the first, -1 the last), as the window's history rebuilds it."),
                      QStringLiteral("N")});
    SourceSpec spec;
    if (const int code = parse(parser, arguments, QStringLiteral("inspect"), spec); code >= 0)
        return code;
    SnapshotPtr snap;
    if (parser.isSet(QStringLiteral("step"))) {
        if (const int code = loadRecordingStep(spec, parser.value(QStringLiteral("step")), snap); code >= 0)
            return code;
    } else if (const int code = loadSnapshot(spec, snap); code >= 0) {
        return code;
    }
    if (parser.isSet(QStringLiteral("json"))) {
        printJson(inspectJson(*snap));
        return Success;
    }
    QTextStream out(stdout);
    out << QStringLiteral("%1 slices, %2 placement groups, %3 worker groups\n")
               .arg(snap->slices.size())
               .arg(snap->placementGroups.size())
               .arg(snap->workerGroups.size());
    for (const Slice &s : snap->slices)
        out << QStringLiteral("  %1  %2 %3  %4 hosts  %5  %6/%7 chips reserved%8\n")
                   .arg(s.name, -24)
                   .arg(s.generation ? s.generation->name : QStringLiteral("?"))
                   .arg(s.topology.toString(), -7)
                   .arg(s.hostCount(), 2)
                   .arg(toText(s.status()), -12)
                   .arg(s.reservedChips)
                   .arg(s.chips())
                   .arg(s.problems.isEmpty() ? QString() : QStringLiteral("  (") + s.problems.join(QStringLiteral(", ")) + u')');
    for (const QString &w : snap->warnings)
        out << "warning: " << w << '\n';
    return Success;
}

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
    out << "  " << describeBundles(result) << '\n';
    for (const QString &r : result.reasons)
        out << "  " << r << '\n';
    for (const QString &n : result.notes)
        out << "  note: " << n << '\n';
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
    // The status bar names the source as the window would (LiveRaySource says "Ray at URL").
    switch (spec.kind) {
    case SourceSpec::Kind::CaptureFile:
        options.sourceDescription = QStringLiteral("capture %1").arg(spec.capturePath.section(u'/', -1));
        break;
    case SourceSpec::Kind::Live:
        if (spec.usesKubernetes())
            options.sourceDescription = capture.kubeContext.isEmpty()
                                            ? QStringLiteral("Kubernetes in-cluster")
                                            : QStringLiteral("Kubernetes context %1%2").arg(capture.kubeContext, spec.allNamespaces ? QStringLiteral(" (all namespaces)") : spec.ns.isEmpty() ? QString()
                                                                                                                                                                                              : QStringLiteral(" (namespace %1)").arg(spec.ns));
        else
            options.sourceDescription = QStringLiteral("Ray at %1").arg(spec.rayUrl.isEmpty() ? qEnvironmentVariable("RAY_ADDRESS") : spec.rayUrl);
        break;
    case SourceSpec::Kind::Relay:
        options.sourceDescription = RelaySource(QUrl(spec.relayUrl)).description();
        break;
    case SourceSpec::Kind::None:
    case SourceSpec::Kind::Demo:
        options.sourceDescription = QStringLiteral("demo cluster");
        break;
    }
    QString error;
    const QImage image = renderScreenshot(capture, options, &error);
    if (image.isNull())
        return fail(BadUsage, error);
    if (!image.save(output, "PNG"))
        return fail(Failed, QStringLiteral("%1: could not write the PNG").arg(output));
    if (parser.isSet(QStringLiteral("json")))
        printJson(QJsonObject{{QStringLiteral("output"), output}, {QStringLiteral("width"), image.width()}, {QStringLiteral("height"), image.height()}, {QStringLiteral("view"), options.view}});
    return Success;
}

// The verbs that change the cluster talk to Ray themselves: a live --ray source only.
int needLiveRay(const SourceSpec &spec, const QString &verb, RayToken &token)
{
    if (spec.kind != SourceSpec::Kind::Live || spec.rayUrl.isEmpty())
        return fail(BadUsage, QStringLiteral("%1 needs --ray URL (the Ray dashboard it changes)").arg(verb));
    if (const QString problem = resolveRayToken(spec.rayTokenFile, token); !problem.isEmpty())
        return fail(Failed, problem);
    return -1;
}

} // namespace

int runLoop(const std::function<void()> &begin)
{
    if (QThread::currentThread()->loopLevel() > 0)
        return fail(Failed, QStringLiteral("internal error: a verb ran its loop from inside the event loop"));
    QTimer::singleShot(0, QCoreApplication::instance(), begin); // exit() before exec() would be lost
    return QCoreApplication::exec();
}

namespace {

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
    QTextStream(stdout) << QStringLiteral("%1 %2 %3 on %4 (job %5)\n")
                               .arg(result.value(QLatin1String("placementGroupId")).toString(), name,
                                    result.value(QLatin1String("state")).toString(),
                                    result.value(QLatin1String("slices")).toVariant().toStringList().join(QStringLiteral(", ")), submissionId);
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
    QTextStream(stdout) << QStringLiteral("%1 %2\n").arg(group.id, report.value(QLatin1String("state")).toString());
    return Success;
}

// "500ms", "2s", "1m" (and a bare number of seconds) -> milliseconds; -1 when unreadable.
qint64 parseDurationMs(const QString &text)
{
    // A year at most: a longer one (1e30s, inf) is a typo, and converting it would overflow.
    constexpr double kMaxMs = 366.0 * 24 * 3600 * 1000;
    auto toMs = [](bool ok, double value, double unitMs) -> qint64 {
        const double ms = value * unitMs;
        return ok && std::isfinite(ms) && ms >= 0 && ms <= kMaxMs ? qint64(ms) : -1;
    };
    const QString t = text.trimmed();
    struct Unit {
        const char *suffix;
        double ms;
    };
    for (const Unit unit : {Unit{"ms", 1}, Unit{"s", 1000}, Unit{"m", 60000}, Unit{"h", 3600000}}) {
        if (!t.endsWith(QLatin1String(unit.suffix)))
            continue;
        bool ok = false;
        const double v = t.chopped(qsizetype(qstrlen(unit.suffix))).toDouble(&ok);
        return toMs(ok, v, unit.ms);
    }
    bool ok = false;
    const double seconds = t.toDouble(&ok);
    return toMs(ok, seconds, 1000);
}

// Writes one capture per line and flushes it, so a recording cut short (a failed source, a
// kill) is still valid JSON Lines up to its last complete line.
class RecordingWriter
{
public:
    explicit RecordingWriter(const QString &path)
        : m_file(path)
    { }
    QString open()
    {
        return m_file.open(QIODevice::WriteOnly | QIODevice::Truncate)
                   ? QString()
                   : QStringLiteral("%1: cannot write the recording (%2)").arg(m_file.fileName(), m_file.errorString());
    }
    QString write(const Capture &capture)
    {
        QByteArray line = serializeCapture(capture);
        line.append('\n');
        if (m_file.write(line) != line.size() || !m_file.flush())
            return QStringLiteral("%1: writing the recording failed (%2)").arg(m_file.fileName(), m_file.errorString());
        ++m_count;
        m_bytes += line.size();
        return {};
    }
    int count() const { return m_count; }
    qint64 bytes() const { return m_bytes; }

private:
    QFile m_file;
    int m_count = 0;
    qint64 m_bytes = 0;
};

int record(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.addOptions({
        {QStringLiteral("interval"), QStringLiteral("Time between captures: 500ms, 2s, 1m (default 2s)."), QStringLiteral("T"), QStringLiteral("2s")},
        {QStringLiteral("duration"), QStringLiteral("How long to record (default 60s): duration/interval captures."), QStringLiteral("T"), QStringLiteral("60s")},
        {{QStringLiteral("o"), QStringLiteral("output")}, QStringLiteral("The recording to write (*.slicescope.jsonl)."), QStringLiteral("FILE")},
    });
    // For tests: the demo's simulated time advances one interval per capture, without waiting.
    QCommandLineOption demoFast(QStringLiteral("demo-fast"));
    demoFast.setFlags(QCommandLineOption::HiddenFromHelp);
    parser.addOption(demoFast);
    SourceSpec spec;
    if (const int code = parse(parser, arguments, QStringLiteral("record"), spec); code >= 0)
        return code;
    const qint64 intervalMs = parseDurationMs(parser.value(QStringLiteral("interval")));
    if (intervalMs < 100)
        return fail(BadUsage, QStringLiteral("--interval wants a time of at least 100ms, like 500ms, 2s or 1m, not \"%1\"").arg(parser.value(QStringLiteral("interval"))));
    const qint64 durationMs = parseDurationMs(parser.value(QStringLiteral("duration")));
    if (durationMs <= 0)
        return fail(BadUsage, QStringLiteral("--duration wants a time like 500ms, 2s or 1m, not \"%1\"").arg(parser.value(QStringLiteral("duration"))));
    const QString output = parser.value(QStringLiteral("output"));
    if (output.isEmpty())
        return fail(BadUsage, QStringLiteral("record needs -o FILE.slicescope.jsonl"));
    if (parser.isSet(demoFast) && spec.kind != SourceSpec::Kind::Demo)
        return fail(BadUsage, QStringLiteral("--demo-fast goes with --demo"));
    const int wanted = int(std::max<qint64>(1, durationMs / intervalMs));

    RecordingWriter writer(output);
    QString failure;
    QElapsedTimer clock;
    clock.start();
    switch (spec.kind) {
    case SourceSpec::Kind::None:
    case SourceSpec::Kind::Demo: {
        DemoCluster demo(spec.demoSeed);
        demo.advance(spec.demoAdvanceMs);
        if (const QString error = writer.open(); !error.isEmpty())
            return fail(Failed, error);
        if (parser.isSet(demoFast)) {
            for (int i = 0; i < wanted && failure.isEmpty(); ++i) {
                if (i > 0)
                    demo.advance(intervalMs);
                failure = writer.write(demo.capture());
            }
            break;
        }
        // Real time, like the window: the simulation moves by the time that actually passed.
        QTimer tick;
        QElapsedTimer sinceLast;
        QObject::connect(&tick, &QTimer::timeout, &tick, [&] {
            demo.advance(sinceLast.restart());
            failure = writer.write(demo.capture());
            if (!failure.isEmpty() || writer.count() >= wanted)
                QCoreApplication::exit(failure.isEmpty() ? 0 : 1);
        });
        runLoop([&] {
            sinceLast.start();
            failure = writer.write(demo.capture());
            if (!failure.isEmpty() || writer.count() >= wanted)
                QCoreApplication::exit(failure.isEmpty() ? 0 : 1);
            else
                tick.start(int(intervalMs));
        });
        break;
    }
    case SourceSpec::Kind::CaptureFile: {
        // A copy: every capture of the file, as it is (a recording's own timing is kept).
        const CaptureReadResult read = readCaptureFile(spec.capturePath);
        if (!read.ok())
            return fail(Failed, read.error);
        if (const QString error = writer.open(); !error.isEmpty())
            return fail(Failed, error);
        for (const Capture &c : read.captures) {
            if (failure = writer.write(c); !failure.isEmpty())
                break;
        }
        break;
    }
    case SourceSpec::Kind::Relay:
        return fail(BadUsage, QStringLiteral("record reads a cluster directly; run it where the relay runs, with the relay's SOURCE"));
    case SourceSpec::Kind::Live: {
        if (spec.rayUrl.isEmpty() || !spec.kubeconfig.isEmpty())
            return fail(Failed, spec.kubeconfig.isEmpty() ? QStringLiteral("--ray wants the dashboard's URL")
                                                          : QStringLiteral("Kubernetes sources (--kubeconfig) are not available in this build yet; use --ray URL"));
        RayToken token;
        if (const QString problem = resolveRayToken(spec.rayTokenFile, token); !problem.isEmpty())
            return fail(Failed, problem);
        if (const QString error = writer.open(); !error.isEmpty())
            return fail(Failed, error);
        LiveRaySource source{QUrl(spec.rayUrl), std::move(token)};
        source.setInterval(std::chrono::milliseconds(intervalMs));
        QObject::connect(&source, &Source::captureReceived, &source, [&](const Capture &capture) {
            failure = writer.write(capture);
            if (!failure.isEmpty() || writer.count() >= wanted)
                QCoreApplication::exit(failure.isEmpty() ? 0 : 1);
        });
        // A recording with holes would look like a quiet cluster: stop at the first failure.
        QObject::connect(&source, &Source::failed, &source, [&](const QString &message) {
            failure = message;
            QCoreApplication::exit(1);
        });
        runLoop([&] { source.start(); });
        source.stop();
        break;
    }
    }
    const QJsonObject summary{
        {QStringLiteral("output"), output},
        {QStringLiteral("captures"), writer.count()},
        {QStringLiteral("bytes"), writer.bytes()},
        {QStringLiteral("intervalMs"), intervalMs},
        {QStringLiteral("seconds"), double(clock.elapsed()) / 1000.0},
        {QStringLiteral("complete"), failure.isEmpty()},
    };
    if (!failure.isEmpty()) {
        // The lines written so far stay: each is a complete capture.
        return fail(Failed, QStringLiteral("%1 (kept the %2 capture(s) recorded so far in %3)").arg(failure).arg(writer.count()).arg(output));
    }
    if (parser.isSet(QStringLiteral("json")))
        printJson(summary);
    else
        QTextStream(stdout) << QStringLiteral("%1: %2 captures, %3 bytes\n").arg(output).arg(writer.count()).arg(writer.bytes());
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
    if (verb == QLatin1String("submit-slice-pg"))
        return submitSlicePg(arguments);
    if (verb == QLatin1String("release-pg"))
        return releasePg(arguments);
    if (verb == QLatin1String("record"))
        return record(arguments);
    if (verb == QLatin1String("scale"))
        return scale(arguments);
#ifndef Q_OS_WASM
    if (verb == QLatin1String("serve"))
        return serve(arguments);
#endif
    if (kPlannedVerbs.contains(verb))
        return fail(Failed, QStringLiteral("the \"%1\" verb is not available in this build yet").arg(verb));
    return fail(BadUsage, QStringLiteral("unknown verb \"%1\" (verbs: %2)").arg(verb, kVerbs.join(QStringLiteral(", "))));
}

} // namespace slicescope::cli
