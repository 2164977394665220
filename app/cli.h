// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The headless verbs of `slicescope` (ARCHITECTURE.md, "Command line"). They print JSON with
// --json, need no display, and exit 0 on success, 1 on a failed operation, 2 on bad usage, with
// one clear line on stderr; `alerts` exits 3 when an alert at or above --fail-on is active.

#include <QStringList>

namespace slicescope::cli {

enum ExitCode
{
    Success = 0,
    Failed = 1,
    BadUsage = 2,
    AlertsFired = 3 // `alerts`: an alert at or above --fail-on is active
};

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
