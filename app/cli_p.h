// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the verbs share (app/cli.cpp) and the verbs, each family in a file of its own. Internal.

#include "cli.h"
#include "snapshot.h"
#include "thresholdtext.h" // parseDurationMs(), shared with the window

#include <QCommandLineOption>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <functional>

class QCommandLineParser;

namespace slicescope {
struct PlanRequest;
struct SourceSpec;
} // namespace slicescope

namespace slicescope::cli {

// The one stderr line's bound: what a message quotes is escaped (boundedfile.h) and cut to this.
inline constexpr qsizetype kMaxStderrLineChars = 2000;
// Prints "slicescope: <message>" on stderr, as one line however the message came out.
void printLine(const QString &message);
// The bound on one line of a verb's text output (stdout); longer lines end in "...".
inline constexpr qsizetype kMaxStdoutLineChars = 16384;
// One line of a verb's text output as it may reach a terminal: every control character a server
// or a file put in it (an escape sequence in a slice name, a label, an error string) made visible
// the way stderr's lines show them (sanitizeForMessage(), boundedfile.h: ESC is "\x1b"), and cut
// to kMaxStdoutLineChars. No newline is added. JSON output needs none of this: JSON escapes them.
QString forTerminal(const QString &line);
// Prints "slicescope: <message>" on stderr and returns `code`.
int fail(ExitCode code, const QString &message);
// What a changing verb is about to do, said before it does it.
void notice(const QString &message);
void printJson(const QJsonObject &object);
// The sources of a live snapshot that gave nothing usable (issue 30: Prometheus down, refusing,
// redirecting, answering too much or garbage; ActivityTable::sourceErrors). Empty for a demo or a
// capture file (what a file recorded stays in its activity problems: the file itself answered).
QList<ActivityTable::SourceError> sourceErrors(const SourceSpec &spec, const ClusterSnapshot &snapshot);
// `sourceErrors` in --json: [{"source": "prometheus", "message": "..."}].
QJsonArray sourceErrorsJson(const QList<ActivityTable::SourceError> &errors);
// Each on stderr, one line each.
void reportSourceErrors(const QList<ActivityTable::SourceError> &errors);
// Parses verb options plus the shared SOURCE options. Returns -1 to continue, or an exit code.
int parse(QCommandLineParser &parser, const QStringList &arguments, const QString &verb, SourceSpec &spec, int positionals = 0);
// Loads and builds the snapshot, failing loudly on a body that could not be read. -1 to continue.
int loadSnapshot(const SourceSpec &spec, SnapshotPtr &snapshot);
// Runs the application's one top-level event loop until `begin`'s work calls
// QCoreApplication::exit(). Called from a verb, where no loop runs yet: never nested.
int runLoop(const std::function<void()> &begin);

// The bundle options plan and submit-slice-pg share, so a what-if asks what a submit sends
// (cli_plan.cpp). readBundleOptions() returns -1 to continue, or an exit code.
QList<QCommandLineOption> bundleOptions();
int readBundleOptions(const QCommandLineParser &parser, PlanRequest &request);
// `--step N` of a recording, which inspect and alerts share (cli_inspect.cpp): readStepOption()
// reads the number (0 the first, -1 the last) and checks the SOURCE is --capture; resolveStep()
// checks it against the `count` captures read and makes a negative one count from the end.
// Each returns -1 to continue, or an exit code (bad usage, with one line on stderr).
int readStepOption(const QString &text, const SourceSpec &spec, int *step);
int resolveStep(const QString &text, const SourceSpec &spec, int count, int *step);

// The verbs, each `slicescope VERB ...` with argv as given.
int inspect(const QStringList &arguments);       // cli_inspect.cpp
int plan(const QStringList &arguments);          // cli_plan.cpp
int screenshot(const QStringList &arguments);    // cli_screenshot.cpp
int submitSlicePg(const QStringList &arguments); // cli_pg.cpp
int releasePg(const QStringList &arguments);     // cli_pg.cpp
int record(const QStringList &arguments);        // cli_record.cpp
int scale(const QStringList &arguments);         // cli_scale.cpp
int serve(const QStringList &arguments);         // cli_serve.cpp, native only
int alerts(const QStringList &arguments);        // cli_alerts.cpp

} // namespace slicescope::cli
