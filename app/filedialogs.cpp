// SPDX-License-Identifier: GPL-3.0-or-later
// The desktop's file dialogs and SVG writer (filedialogs.h); the browser's are filedialogs_wasm.cpp.
#include "filedialogs.h"

#include <QCoreApplication>
#include <QFileDialog>
#include <QPainter>
#include <QSvgGenerator>

namespace slicescope::filedialogs {

void chooseOpenFile(QWidget *parent, const QString &title, const QString &filter, std::function<void(const QString &path)> opened,
                    std::function<void(const QString &error)> failed)
{
    Q_UNUSED(failed); // a path on disk is read by whoever opens it
    const QString path = QFileDialog::getOpenFileName(parent, title, QString(), filter);
    if (!path.isEmpty())
        opened(path);
}

void chooseSaveFile(QWidget *parent, const QString &title, const QString &suggestedName, const QString &filter,
                    std::function<void(const QString &path)> save)
{
    // open(), not exec(): no nested event loop.
    auto *dialog = new QFileDialog(parent, title, suggestedName, filter);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setAcceptMode(QFileDialog::AcceptSave);
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
