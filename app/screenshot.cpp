// SPDX-License-Identifier: GPL-3.0-or-later
#include "screenshot.h"

#include "mainwindow.h"
#include "scaledialog.h"
#include "sliceview.h"
#include "source.h"
#include "workspace.h"

#include <QApplication>
#include <QPainter>

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
    if (options.open == QLatin1String("composer")) {
        window.openComposer();
    } else if (options.open == QLatin1String("scale")) {
        window.openScaleDialog();
    } else if (!options.open.isEmpty()) {
        *error = QStringLiteral("--open wants composer or scale, not \"%1\"").arg(options.open);
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
    QImage image = window.grab().toImage().convertToFormat(QImage::Format_RGB32);
    if (QWidget *dialog = window.scaleDialog(); dialog && options.open == QLatin1String("scale")) {
        // A dialog is a window of its own: drawn over the main window's middle, as a desktop shows it.
        dialog->adjustSize();
        dialog->resize(dialog->size().boundedTo(image.size() - QSize(40, 40)));
        QPainter p(&image);
        const QImage d = dialog->grab().toImage();
        const QPoint at((image.width() - d.width()) / 2, (image.height() - d.height()) / 2);
        p.fillRect(QRect(at + QPoint(3, 3), d.size()), QColor(0, 0, 0, 60)); // a shadow
        p.drawImage(at, d);
        p.setPen(QColor(0, 0, 0, 90));
        p.drawRect(QRect(at, d.size()).adjusted(0, 0, -1, -1));
    }
    return image;
}

} // namespace slicescope
