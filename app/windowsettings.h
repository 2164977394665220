// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the interactive window keeps between runs, in QSettings: its geometry, dock layout and
// splitter (window/...), the colour mode and theme (view/...), the history's bounds
// (history/maxAgeSeconds, history/maxBytes), and the alert thresholds (alerts/idle-below,
// alerts/idle-after, ...: the `alerts` verb's option names, holding what the option would be
// given, "10m"). Screenshot mode reads and writes none of it.

#include "alerts.h"
#include "history.h"

namespace slicescope {

class MainWindow;

HistoryPolicy readHistoryPolicy();
void writeHistoryPolicy(const HistoryPolicy &policy);
// A stored threshold that does not read back (edited by hand) keeps its default.
AlertThresholds readAlertThresholds();
void writeAlertThresholds(const AlertThresholds &thresholds);
// Restores the layout, colour mode and theme last saved (a first run: the default size).
void restoreWindowSettings(MainWindow &window);
void saveWindowSettings(const MainWindow &window);

} // namespace slicescope
