// SPDX-License-Identifier: GPL-3.0-or-later
// What `slicescope screenshot` draws from a capture: parseCapture, buildSnapshot, then the whole
// main window rendered offscreen (renderScreenshot, the function the verb and the golden tests
// use) on the overview, the tables and the first slices of the capture, in each colour mode and
// both themes. The painting code (the slice view's projection and sprites, the fleet overview's
// tiles, the item models behind the tables) meets every shape the readers let through.
//
// Checked: a capture that builds without errors renders to an image of the size asked; a view
// naming a slice of the snapshot never fails.

#include "fuzz_common.h"

#include "capturefile.h"
#include "look.h"
#include "screenshot.h"
#include "snapshot.h"

#include <QApplication>

using namespace slicescope;

namespace {

void ensureGuiApp()
{
    static QApplication *app = [] {
        pinRenderingEnvironment(true); // offscreen, fixed DPI and fonts: what the verb does
        qInstallMessageHandler(fuzz::quietMessages);
        static int argc = 1;
        static char name[] = "slicescope-fuzz-render";
        static char *argv[] = {name, nullptr};
        auto *a = new QApplication(argc, argv);
        applyLook(*a, Theme::named(QStringLiteral("light")));
        return a;
    }();
    (void)app;
}

// A small window: the layout code still runs in full, the pixels cost less.
const QSize kSize(640, 400);

void render(const Capture &capture, const QString &view, ColorMode color, const QString &theme)
{
    ScreenshotOptions options;
    options.view = view;
    options.color = color;
    options.size = kSize;
    options.theme = theme;
    options.sourceDescription = QStringLiteral("capture fuzz.json");
    QString error;
    const QImage image = renderScreenshot(capture, options, &error);
    FUZZ_CHECK(!image.isNull());
    FUZZ_CHECK(image.width() >= kSize.width() && image.height() >= kSize.height());
}

} // namespace

// The application, its fonts and the first window are made before any input, so what Qt and
// fontconfig cache once (and keep) is not counted against an input as a leak.
extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
    ensureGuiApp();
    render(Capture(), QStringLiteral("overview"), ColorMode::Bundle, QStringLiteral("light"));
    render(Capture(), QStringLiteral("tables"), ColorMode::State, QStringLiteral("dark"));
    fuzz::dropDeferred();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ensureGuiApp();
    const CaptureReadResult read = parseCapture(fuzz::bytesOf(data, size), QStringLiteral("fuzz.json"));
    if (!read.ok() || read.captures.isEmpty())
        return 0;
    const Capture &capture = read.captures.first();
    const SnapshotPtr snapshot = buildSnapshot(capture);
    FUZZ_CHECK(snapshot);
    if (!snapshot->errors.isEmpty())
        return 0; // the verb stops here too, with the errors
    render(capture, QStringLiteral("overview"), ColorMode::Bundle, QStringLiteral("light"));
    render(capture, QStringLiteral("tables"), ColorMode::State, QStringLiteral("dark"));
    int shown = 0;
    for (const Slice &slice : snapshot->slices) {
        if (shown++ == 2)
            break;
        render(capture, QStringLiteral("slice:") + slice.name, shown == 1 ? ColorMode::WorkerId : ColorMode::Bundle,
               shown == 1 ? QStringLiteral("light") : QStringLiteral("dark"));
    }
    fuzz::dropDeferred();
    return 0;
}
