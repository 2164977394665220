// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The headless verbs of `slicescope` (ARCHITECTURE.md, "Command line"). They print JSON with
// --json, need no display, and exit 0 on success, 1 on a failed operation, 2 on bad usage, with
// one clear line on stderr; `alerts` exits 3 when an alert at or above --fail-on is active.

#include <QList>
#include <QStringList>

class QCommandLineParser;

namespace slicescope::cli {

enum ExitCode
{
    Success = 0,
    Failed = 1,
    BadUsage = 2,
    AlertsFired = 3 // `alerts`: an alert at or above --fail-on is active
};

// The verbs, in the order `slicescope --help` lists them, each with the sentence its own --help
// starts with. installer/cli_docs.py turns those help texts into the man pages and the shell
// completions at build time, so what is installed is what the parser accepts.
struct Verb {
    QString name;
    QString summary;
};
const QList<Verb> &verbs();
QStringList verbNames();
// The verb list as `slicescope --help` prints it: a heading, then one aligned line per verb (no
// newline after the last).
QString verbsHelp();

// kubectl runs a plugin `kubectl slicescope ...` as the executable kubectl-slicescope (the .deb
// installs that name as a link to slicescope, krew the binary itself under it). Called so, the
// SOURCE is kubectl's: the kubeconfig's current context unless another source is named.
bool isKubectlPlugin(const QStringList &arguments);
// "slicescope", or "kubectl slicescope" when run as kubectl's plugin.
QString commandName(const QStringList &arguments);
// The parser's help text with the usage line naming the command as a person types it (Qt's names
// argv[0] as given: a path, and without the verb, which the verbs' parsers never see).
QString helpText(const QCommandLineParser &parser, const QStringList &arguments, const QString &verb);

// True when argv names a headless verb (then no QApplication/display is needed).
bool isHeadlessVerb(const QStringList &arguments);

// True for verbs that draw (screenshot): they need a QApplication, on the offscreen platform.
bool needsWidgets(const QStringList &arguments);

// For the headless verbs: keeps Qt's own chatter (qWarning and friends, from Qt or a plugin) out
// of stderr, where each verb says one line. SLICESCOPE_DEBUG=1 lets it through, for debugging.
// Fatal messages are still printed (as one line) before Qt aborts.
void installQuietMessageHandler();

// Runs the verb; QCoreApplication (QApplication for needsWidgets()) must exist.
int run(const QStringList &arguments);

} // namespace slicescope::cli
