// SPDX-License-Identifier: GPL-3.0-or-later
#include "screenshot.h"

#include "mainwindow.h"
#include "sliceview.h"
#include "source.h"
#include "workspace.h"

#include <QApplication>

namespace slicescope {

bool setUpScreenshotWindow(MainWindow &window, std::unique_ptr<Source> source, const ScreenshotOptions &options, QString *error)
{
    window.setTheme(Theme::named(options.theme));
    window.resize(options.size);
    window.setSource(std::move(source));
    Workspace *ws = window.workspace();
    ws->setColorMode(options.color);
    ws->setActivityMetric(options.activity);
    if (options.view == QLatin1String("overview")) {
        ws->showPage(Workspace::Page::Overview);
    } else if (options.view == QLatin1String("tables")) {
        ws->showPage(Workspace::Page::Tables);
    } else if (options.view.startsWith(QLatin1String("slice:"))) {
        const QString name = options.view.mid(6);
        if (!ws->showSlice(name)) {
            QStringList names;
            if (ws->snapshot())
                for (const Slice &s : ws->snapshot()->slices)
                    names << s.name;
            *error = QStringLiteral("no slice \"%1\" in this source (slices: %2)").arg(name, names.join(QStringLiteral(", ")));
            return false;
        }
        ws->sliceView()->setExplode(options.explode);
        if (options.selectHost >= 0)
            ws->selectHost(options.selectHost);
        ws->showPage(Workspace::Page::Slice);
    } else {
        *error = QStringLiteral("--view wants overview, tables or slice:NAME, not \"%1\"").arg(options.view);
        return false;
    }
    return true;
}

QImage renderScreenshot(const Capture &capture, const ScreenshotOptions &options, QString *error)
{
    // The look (style, palette, UI font) must be in place before any widget exists: widgets
    // created earlier keep what they resolved then, and text would render differently from a
    // fresh process. The window, the verb and the golden tests all come through here.
    if (auto *app = qobject_cast<QApplication *>(QCoreApplication::instance()))
        applyLook(*app, Theme::named(options.theme));
    MainWindow window(MainWindow::Mode::Screenshot);
    if (!setUpScreenshotWindow(window, std::make_unique<StaticSource>(capture, options.sourceDescription), options, error))
        return {};
    // grab() polishes and lays out a hidden window at its size; showing it is not needed (and
    // would make the offscreen platform warn about size hints).
    return window.grab().toImage().convertToFormat(QImage::Format_RGB32);
}

} // namespace slicescope
