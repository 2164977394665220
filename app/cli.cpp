// SPDX-License-Identifier: GPL-3.0-or-later
// The verbs' dispatcher and what they share (cli_p.h): the one-line stderr, JSON on stdout, the
// SOURCE options, the one event loop. Each verb family is a file of its own: cli_inspect.cpp,
// cli_plan.cpp, cli_screenshot.cpp, cli_pg.cpp, cli_record.cpp, cli_scale.cpp, cli_serve.cpp,
// cli_alerts.cpp.
#include "cli.h"
#include "cli_p.h"

#include "boundedfile.h"
#include "snapshot.h"
#include "sourceoptions.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFileInfo>
#include <QJsonDocument>
#include <QTextStream>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <functional>

#include <cstdio>

namespace slicescope::cli {

namespace {

// Verbs of the contract that later work adds; named here so the message is precise.
const QStringList kPlannedVerbs = {};

} // namespace

const QList<Verb> &verbs()
{
    static const QList<Verb> table = {
        {QStringLiteral("inspect"), QStringLiteral("Print the joined model of a SOURCE: slices, hosts, chips, placement groups, worker groups, alerts.")},
        {QStringLiteral("plan"), QStringLiteral("Say whether a slice placement group of a shape fits now, which slices it would take, or why not.")},
        {QStringLiteral("screenshot"), QStringLiteral("Render what the window shows of a SOURCE as a PNG, without a display.")},
        {QStringLiteral("submit-slice-pg"), QStringLiteral("Reserve TPU slices: submit a slice placement group to Ray as a job and follow it.")},
        {QStringLiteral("release-pg"), QStringLiteral("Release a placement group: stop the job holding it, or remove a detached one.")},
        {QStringLiteral("record"), QStringLiteral("Record a SOURCE's captures into a recording (*.slicescope.jsonl) to replay later.")},
        {QStringLiteral("scale"), QStringLiteral("Scale a KubeRay TPU worker group or remove a slice from it (a dry run unless --yes).")},
        {QStringLiteral("serve"), QStringLiteral("Serve the web bundle and the relay that browsers and --relay read a SOURCE through.")},
        {QStringLiteral("alerts"), QStringLiteral("Print the active alerts of a SOURCE; exit 3 when one is at or above --fail-on.")},
    };
    return table;
}

QStringList verbNames()
{
    QStringList names;
    for (const Verb &verb : verbs())
        names << verb.name;
    return names;
}

QString verbsHelp()
{
    qsizetype width = 0;
    for (const Verb &verb : verbs())
        width = std::max(width, verb.name.size());
    QString text = QStringLiteral("Verbs (slicescope VERB --help lists the options of each):");
    for (const Verb &verb : verbs())
        text += QStringLiteral("\n  %1  %2").arg(verb.name.leftJustified(width), verb.summary);
    return text;
}

bool isKubectlPlugin(const QStringList &arguments)
{
    return QFileInfo(arguments.value(0)).fileName() == QLatin1String("kubectl-slicescope");
}

QString commandName(const QStringList &arguments)
{
    return isKubectlPlugin(arguments) ? QStringLiteral("kubectl slicescope") : QStringLiteral("slicescope");
}

QString helpText(const QCommandLineParser &parser, const QStringList &arguments, const QString &verb)
{
    QString text = parser.helpText();
    const QString usage = QStringLiteral("Usage: ") + QCoreApplication::arguments().value(0);
    if (text.startsWith(usage))
        text.replace(0, usage.size(), QStringLiteral("Usage: ") + commandName(arguments) + (verb.isEmpty() ? QString() : QStringLiteral(" ") + verb));
    return text;
}

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

QString forTerminal(const QString &line)
{
    return sanitizeForMessage(line, kMaxStdoutLineChars);
}

QList<ActivityTable::SourceError> sourceErrors(const SourceSpec &spec, const ClusterSnapshot &snapshot)
{
    if ((spec.kind != SourceSpec::Kind::Live && spec.kind != SourceSpec::Kind::Relay) || !snapshot.activity)
        return {};
    return snapshot.activity->sourceErrors;
}

QJsonArray sourceErrorsJson(const QList<ActivityTable::SourceError> &errors)
{
    QJsonArray out;
    for (const ActivityTable::SourceError &e : errors)
        out.append(QJsonObject{{QStringLiteral("source"), e.source}, {QStringLiteral("message"), e.message}});
    return out;
}

void reportSourceErrors(const QList<ActivityTable::SourceError> &errors)
{
    for (const ActivityTable::SourceError &e : errors)
        printLine(e.message);
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
    for (const Verb &known : verbs())
        if (known.name == verb)
            parser.setApplicationDescription(known.summary);
    addSourceOptions(parser);
    parser.addOption({QStringLiteral("json"), QStringLiteral("Print JSON.")});
    parser.addHelpOption();
    // Drop the verb so the parser sees "slicescope --demo ...".
    QStringList args = arguments;
    args.removeAt(1);
    if (!parser.parse(args))
        return fail(BadUsage, parser.errorText());
    if (parser.isSet(QStringLiteral("help")) || parser.isSet(QStringLiteral("help-all"))) {
        QTextStream(stdout) << helpText(parser, arguments, verb);
        return Success;
    }
    if (parser.positionalArguments().size() > positionals)
        return fail(BadUsage, QStringLiteral("unexpected argument \"%1\"").arg(parser.positionalArguments().value(positionals)));
    const DefaultSource fallback = isKubectlPlugin(arguments) ? DefaultSource::Kubeconfig : DefaultSource::None;
    if (const QString problem = readSourceOptions(parser, spec, fallback); !problem.isEmpty())
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
    // Parts of a fleet that are down (a context, a RayCluster's Ray) are in the output with their
    // reason; the rest is whole. Said on stderr too, one line each, so a script sees it.
    for (const ContextState &c : snapshot->contextStates)
        if (!c.error.isEmpty()) printLine(QStringLiteral("context %1 is not answering; its last view is shown: %2").arg(c.context, c.error));
    for (const RayViewState &v : snapshot->rayViews)
        if (!v.error.isEmpty()) printLine(QStringLiteral("the Ray of %1 is not answering%2: %3").arg(v.cluster.isEmpty() ? QStringLiteral("the cluster") : QStringLiteral("RayCluster ") + v.cluster, v.answered ? QStringLiteral(" (its last view is shown)") : QString(), v.error));
    return -1;
}

int runLoop(const std::function<void()> &begin)
{
    if (QThread::currentThread()->loopLevel() > 0)
        return fail(Failed, QStringLiteral("internal error: a verb ran its loop from inside the event loop"));
    QTimer::singleShot(0, QCoreApplication::instance(), begin); // exit() before exec() would be lost
    return QCoreApplication::exec();
}

bool needsWidgets(const QStringList &arguments)
{
    return arguments.value(1) == QLatin1String("screenshot");
}

bool isHeadlessVerb(const QStringList &arguments)
{
    return arguments.size() > 1 && (verbNames().contains(arguments[1]) || kPlannedVerbs.contains(arguments[1]));
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
    if (verb == QLatin1String("alerts"))
        return alerts(arguments);
#ifndef Q_OS_WASM
    if (verb == QLatin1String("serve"))
        return serve(arguments);
#endif
    if (kPlannedVerbs.contains(verb))
        return fail(Failed, QStringLiteral("the \"%1\" verb is not available in this build yet").arg(verb));
    return fail(BadUsage, QStringLiteral("unknown verb \"%1\" (verbs: %2)").arg(verb, verbNames().join(QStringLiteral(", "))));
}

} // namespace slicescope::cli
