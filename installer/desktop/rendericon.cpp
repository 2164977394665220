// SPDX-License-Identifier: GPL-3.0-or-later
// Build-time tool: the icon's SVG rendered as the PNG sizes of the hicolor theme, with Qt Svg (the
// renderer the app's window icon goes through), so no PNG is committed or drawn twice.
//   slicescope-rendericon ICON.svg SIZE:OUT.png [SIZE:OUT.png ...]

#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QSvgRenderer>
#include <QTextStream>

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen"); // a build machine has no display
    // Qt's notes about the machine (no XDG_RUNTIME_DIR) are not the build's business; its errors are.
    qInstallMessageHandler([](QtMsgType type, const QMessageLogContext &, const QString &message) {
        if (type == QtCriticalMsg || type == QtFatalMsg)
            QTextStream(stderr) << "slicescope-rendericon: " << message << Qt::endl;
    });
    QGuiApplication app(argc, argv);
    const QStringList args = app.arguments();
    if (args.size() < 3) {
        QTextStream(stderr) << "usage: slicescope-rendericon ICON.svg SIZE:OUT.png [SIZE:OUT.png ...]" << Qt::endl;
        return 2;
    }
    QSvgRenderer svg(args[1]);
    if (!svg.isValid()) {
        QTextStream(stderr) << "slicescope-rendericon: " << args[1] << " is not an SVG Qt can draw" << Qt::endl;
        return 1;
    }
    const QStringList targets = args.mid(2);
    for (const QString &target : targets) {
        bool ok = false;
        const int size = target.section(u':', 0, 0).toInt(&ok);
        const QString path = target.section(u':', 1);
        if (!ok || size < 8 || size > 1024 || path.isEmpty()) {
            QTextStream(stderr) << "slicescope-rendericon: \"" << target << "\" is not SIZE:OUT.png" << Qt::endl;
            return 2;
        }
        QImage image(size, size, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::transparent);
        QPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing);
        svg.render(&painter, QRectF(0, 0, size, size));
        painter.end();
        if (!image.convertToFormat(QImage::Format_ARGB32).save(path, "PNG")) {
            QTextStream(stderr) << "slicescope-rendericon: cannot write " << path << Qt::endl;
            return 1;
        }
    }
    return 0;
}
