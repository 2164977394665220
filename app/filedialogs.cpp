// SPDX-License-Identifier: GPL-3.0-or-later
// The desktop's file dialogs and SVG writer (filedialogs.h); the browser's are filedialogs_wasm.cpp.
#include "filedialogs.h"

#include <QCoreApplication>
#include <QFileDialog>
#include <QPainter>
#include <QSvgGenerator>

namespace slicescope::filedialogs {

namespace {

// Qt's own dialog, never the platform's: a native one (GTK's, the XDG portal's, KDE's) follows
// the desktop's theme rather than the window's, so in the dark theme it would open as a light box
// over a dark window (issue 17). Qt's dialog is widgets and takes the application palette that
// applyLook() sets, in either theme. Opened with open(): no nested event loop.
QFileDialog *themedDialog(QWidget *parent, const QString &title, const QString &start, const QString &filter, QFileDialog::AcceptMode mode)
{
    auto *dialog = new QFileDialog(parent, title, start, filter);
    dialog->setObjectName(mode == QFileDialog::AcceptOpen ? QStringLiteral("openFileDialog") : QStringLiteral("saveFileDialog"));
    dialog->setOption(QFileDialog::DontUseNativeDialog, true);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setAcceptMode(mode);
    dialog->setFileMode(mode == QFileDialog::AcceptOpen ? QFileDialog::ExistingFile : QFileDialog::AnyFile);
    return dialog;
}

} // namespace

void chooseOpenFile(QWidget *parent, const QString &title, const QString &filter, std::function<void(const QString &path)> opened,
                    std::function<void(const QString &error)> failed)
{
    Q_UNUSED(failed); // a path on disk is read by whoever opens it
    QFileDialog *dialog = themedDialog(parent, title, QString(), filter, QFileDialog::AcceptOpen);
    QObject::connect(dialog, &QFileDialog::fileSelected, parent, [opened = std::move(opened)](const QString &path) {
        if (!path.isEmpty())
            opened(path);
    });
    dialog->open();
}

void chooseSaveFile(QWidget *parent, const QString &title, const QString &suggestedName, const QString &filter,
                    std::function<void(const QString &path)> save)
{
    QFileDialog *dialog = themedDialog(parent, title, suggestedName, filter, QFileDialog::AcceptSave);
    QObject::connect(dialog, &QFileDialog::fileSelected, parent, std::move(save));
    dialog->open();
}

bool canWriteSvg()
{
    return true;
}

QString writeSvg(const QString &path, QSize size, const QString &title, const std::function<void(QPainter &painter)> &paint)
{
    QSvgGenerator generator;
    generator.setFileName(path);
    generator.setSize(size);
    generator.setViewBox(QRect(QPoint(0, 0), size));
    generator.setTitle(title);
    QPainter painter;
    if (!painter.begin(&generator))
        return QCoreApplication::translate("slicescope::MainWindow", "%1: could not write the SVG").arg(path);
    paint(painter);
    return {};
}

} // namespace slicescope::filedialogs
