// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the interactive window keeps between runs, in QSettings: its geometry, dock layout and
// splitter (window/...), the colour mode and theme (view/...), and the history's bounds
// (history/maxAgeSeconds, history/maxBytes). Screenshot mode reads and writes none of it.

#include "history.h"

namespace slicescope {

class MainWindow;

HistoryPolicy readHistoryPolicy();
void writeHistoryPolicy(const HistoryPolicy &policy);
// Restores the layout, colour mode and theme last saved (a first run: the default size).
void restoreWindowSettings(MainWindow &window);
void saveWindowSettings(const MainWindow &window);

} // namespace slicescope
