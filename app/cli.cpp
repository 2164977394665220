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
#include <QJsonDocument>
#include <QTextStream>
#include <QThread>
#include <QTimer>

#include <functional>

#include <cstdio>

namespace slicescope::cli {

namespace {

const QStringList kVerbs = {QStringLiteral("inspect"), QStringLiteral("plan"), QStringLiteral("screenshot"),
                            QStringLiteral("submit-slice-pg"), QStringLiteral("release-pg"), QStringLiteral("record"),
                            QStringLiteral("scale"), QStringLiteral("serve"), QStringLiteral("alerts")};
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
    if (verb == QLatin1String("alerts"))
        return alerts(arguments);
#ifndef Q_OS_WASM
    if (verb == QLatin1String("serve"))
        return serve(arguments);
#endif
    if (kPlannedVerbs.contains(verb))
        return fail(Failed, QStringLiteral("the \"%1\" verb is not available in this build yet").arg(verb));
    return fail(BadUsage, QStringLiteral("unknown verb \"%1\" (verbs: %2)").arg(verb, kVerbs.join(QStringLiteral(", "))));
}

} // namespace slicescope::cli
