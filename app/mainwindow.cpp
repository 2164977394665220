// SPDX-License-Identifier: GPL-3.0-or-later
#include "mainwindow.h"

#include "capturefile.h"
#include "fleettables.h"
#include "source.h"

#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QLabel>
#include <QListWidget>
#include <QMenuBar>
#include <QSettings>
#include <QStatusBar>

namespace slicescope {

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent), m_tables(new FleetTables(this)), m_problems(new QListWidget(this)), m_status(new QLabel(this))
{
    setWindowTitle(tr("SliceScope"));
    setCentralWidget(m_tables);
    statusBar()->addWidget(m_status, 1);

    auto *dock = new QDockWidget(tr("Problems"), this);
    dock->setObjectName(QStringLiteral("problemsDock"));
    dock->setWidget(m_problems);
    addDockWidget(Qt::BottomDockWidgetArea, dock);

    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open capture..."), QKeySequence::Open, this, &MainWindow::openCapture);
    file->addAction(tr("&Save capture..."), QKeySequence::Save, this, &MainWindow::saveCapture);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
    QMenu *view = menuBar()->addMenu(tr("&View"));
    view->addAction(dock->toggleViewAction());

    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    if (!settings.contains(QStringLiteral("window/geometry")))
        resize(1280, 800);
    updateStatus();
}

MainWindow::~MainWindow() = default;

void MainWindow::setSource(std::unique_ptr<Source> source)
{
    m_source = std::move(source);
    m_lastError.clear();
    connect(m_source.get(), &Source::captureReceived, this, &MainWindow::onCapture);
    connect(m_source.get(), &Source::failed, this, &MainWindow::onSourceFailed);
    m_source->start();
    updateStatus();
}

void MainWindow::onCapture(const Capture &capture)
{
    SnapshotPtr snap = buildSnapshot(capture);
    if (!snap->errors.isEmpty()) {
        onSourceFailed(snap->errors.join(QStringLiteral("; ")));
        return; // keep the last good view
    }
    m_lastCapture = capture;
    m_snapshot = std::move(snap);
    m_lastError.clear();
    m_tables->setSnapshot(m_snapshot);
    m_problems->clear();
    for (const Slice &s : m_snapshot->slices)
        if (!s.problems.isEmpty())
            m_problems->addItem(tr("%1: %2").arg(s.name, s.problems.join(QStringLiteral(", "))));
    m_problems->addItems(m_snapshot->warnings);
    updateStatus();
}

void MainWindow::onSourceFailed(const QString &message)
{
    m_lastError = message;
    updateStatus();
}

void MainWindow::updateStatus()
{
    QStringList parts;
    parts << (m_source ? tr("Source: %1").arg(m_source->description()) : tr("No source"));
    if (m_snapshot) {
        parts << tr("%1 slices, %2 placement groups").arg(m_snapshot->slices.size()).arg(m_snapshot->placementGroups.size());
        parts << tr("last refresh %1").arg(m_snapshot->capturedAt.toLocalTime().toString(QStringLiteral("HH:mm:ss")));
    }
    if (!m_lastError.isEmpty())
        parts << tr("Error: %1 (showing the last good data)").arg(m_lastError);
    m_status->setText(parts.join(QStringLiteral("  ·  ")));
}

void MainWindow::openCapture()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open capture"), QString(),
                                                      tr("SliceScope captures (*.slicescope.json *.slicescope.jsonl *.json *.jsonl)"));
    if (!path.isEmpty())
        setSource(std::make_unique<CaptureFileSource>(path));
}

void MainWindow::saveCapture()
{
    if (!m_snapshot)
        return;
    const QString path = QFileDialog::getSaveFileName(this, tr("Save capture"), QStringLiteral("cluster.slicescope.json"),
                                                      tr("SliceScope captures (*.slicescope.json)"));
    if (path.isEmpty())
        return;
    if (const QString error = writeCaptureFile(path, m_lastCapture); !error.isEmpty())
        onSourceFailed(error);
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    event->accept();
}

} // namespace slicescope
