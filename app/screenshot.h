// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// `slicescope screenshot`: the window as it would show a given view, rendered without a display.
// The golden-image tests call renderScreenshot() too, so what they check is what the verb writes.

#include "capture.h"
#include "look.h"

#include <QImage>
#include <QSize>
#include <QString>

#include <memory>

namespace slicescope {

class MainWindow;
class Source;

struct ScreenshotOptions {
    QString view = QStringLiteral("overview"); // "overview", "tables", or "slice:NAME"
    ColorMode color = ColorMode::Bundle;
    ActivityMetric activity = ActivityMetric::DutyCycle; // what --color activity shows
    QSize size{1280, 800};
    QString theme = QStringLiteral("light");
    double explode = 0;                        // slice view: gap between z-layers
    int selectHost = -1;                       // slice view: a selected worker id
    QString sourceDescription = QStringLiteral("demo cluster");
    QString open;                              // "composer" (its dock) or "scale" (its dialog, over the window)
};

// Renders the main window on `capture`. Needs a QApplication (offscreen is fine) with applyLook().
// Returns a null image and sets *error when the view names no slice of the capture.
QImage renderScreenshot(const Capture &capture, const ScreenshotOptions &options, QString *error);

// Puts `window` (a MainWindow::Mode::Screenshot, made after applyLook()) into the state a screenshot
// shows: theme, size, `source` started, colour mode and view. renderScreenshot() grabs the result;
// the browser build shows it, which is why its first frame matches the desktop's goldens. Returns
// false and sets *error when the view names no slice of the source's first capture.
bool setUpScreenshotWindow(MainWindow &window, std::unique_ptr<Source> source, const ScreenshotOptions &options, QString *error);

} // namespace slicescope
