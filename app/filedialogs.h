// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the window does with files that differs between the desktop and the browser: picking a
// file to open, picking where to save, and writing SVG. filedialogs.cpp is the desktop's (Qt's
// own file dialogs, never the platform's, so they follow the window's theme; opened without a
// nested event loop; Qt Svg), filedialogs_wasm.cpp the browser's
// (its own file picker and downloads, the page's in-memory file system; no Qt Svg). CMake
// compiles one of the two (app/CMakeLists.txt); both implement exactly these functions.

#include <QSize>
#include <QString>

#include <functional>

class QPainter;
class QWidget;

namespace slicescope::filedialogs {

// Asks for a file to open and calls `opened` with a path it can be read from (in the browser, a
// copy in the page's memory), or `failed` with an error sentence; neither when cancelled.
void chooseOpenFile(QWidget *parent, const QString &title, const QString &filter, std::function<void(const QString &path)> opened,
                    std::function<void(const QString &error)> failed);
// Asks where to save and calls `save` with the path chosen; in the browser, saves into the page's
// memory and offers the file as a download.
void chooseSaveFile(QWidget *parent, const QString &title, const QString &suggestedName, const QString &filter,
                    std::function<void(const QString &path)> save);

// Whether writeSvg() can write (not in the browser build).
bool canWriteSvg();
// Writes an SVG of `size` titled `title` that `paint` draws into. Returns an error sentence or empty.
QString writeSvg(const QString &path, QSize size, const QString &title, const std::function<void(QPainter &painter)> &paint);

} // namespace slicescope::filedialogs
