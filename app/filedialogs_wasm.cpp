// SPDX-License-Identifier: GPL-3.0-or-later
// The browser's file dialogs (filedialogs.h): the page has no file system of its own, so what is
// opened is copied into the page's memory and what is saved is offered as a download. No Qt Svg
// in the browser build. The desktop's are filedialogs.cpp.
#include "filedialogs.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>

namespace slicescope::filedialogs {

void chooseOpenFile(QWidget *parent, const QString &title, const QString &filter, std::function<void(const QString &path)> opened,
                    std::function<void(const QString &error)> failed)
{
    // The browser's own file picker; the file is copied into the page's memory and read from there
    // like any capture file, entirely in the page.
    Q_UNUSED(parent);
    Q_UNUSED(title);
    QFileDialog::getOpenFileContent(filter, [opened = std::move(opened), failed = std::move(failed)](const QString &name, const QByteArray &bytes) {
        if (name.isEmpty())
            return; // cancelled
        const QString path = QDir::tempPath() + u'/' + QFileInfo(name).fileName();
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(bytes) != bytes.size()) {
            failed(QCoreApplication::translate("slicescope::MainWindow", "%1: could not be read into the page").arg(name));
            return;
        }
        file.close();
        opened(path);
    });
}

void chooseSaveFile(QWidget *parent, const QString &title, const QString &suggestedName, const QString &filter,
                    std::function<void(const QString &path)> save)
{
    // The page has no file system to save to: write into its memory, then the browser offers the
    // file as a download.
    Q_UNUSED(parent);
    Q_UNUSED(title);
    Q_UNUSED(filter);
    const QString path = QDir::tempPath() + u'/' + suggestedName;
    QFile::remove(path);
    save(path);
    QFile file(path);
    if (file.open(QIODevice::ReadOnly))
        QFileDialog::saveFileContent(file.readAll(), suggestedName);
}

bool canWriteSvg()
{
    return false;
}

QString writeSvg(const QString &path, QSize size, const QString &title, const std::function<void(QPainter &painter)> &paint)
{
    Q_UNUSED(path);
    Q_UNUSED(size);
    Q_UNUSED(title);
    Q_UNUSED(paint);
    return QCoreApplication::translate("slicescope::MainWindow", "SVG export is not in the browser build; export a PNG");
}

} // namespace slicescope::filedialogs
