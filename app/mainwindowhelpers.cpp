// SPDX-License-Identifier: GPL-3.0-or-later
// The window's side of the workspace's helpers (issue 17): the first-run hints' links and the
// details panel's Copy and links, said in the status bar.
#include "mainwindow.h"

#include "detailspanel.h"
#include "workspace.h"

#include <QDesktopServices>
#include <QSettings>
#include <QStatusBar>

namespace slicescope {

void MainWindow::connectWorkspaceHelpers()
{
    // The first-run hints (issue 17): their links do what they say; dismissed for good at once.
    connect(m_workspace, &Workspace::hintLinkActivated, this, [this](const QString &link) {
        if (link == QLatin1String("slice")) {
            // The slice most worth a look: the first degraded one, else the one already current.
            if (m_snapshot)
                for (const Slice &s : m_snapshot->slices)
                    if (s.status() == SliceStatus::Degraded) {
                        m_workspace->showSlice(s.name);
                        break;
                    }
            m_workspace->showPage(Workspace::Page::Slice);
        } else if (link == QLatin1String("palette")) {
            openCommandPalette();
        } else if (link == QLatin1String("reserve")) {
            openComposer();
        }
    });
    connect(m_workspace, &Workspace::firstRunHintDismissed, this, [this] {
        if (m_mode == Mode::Interactive)
            QSettings().setValue(QStringLiteral("hints/firstRunDismissed"), true);
    });
    // The details panel's Copy and links (issue 17): said in the status bar; pages open in the browser.
    connect(m_workspace->details(), &DetailsPanel::notice, this, [this](const QString &text) { statusBar()->showMessage(text, 8000); });
    connect(m_workspace->details(), &DetailsPanel::openRequested, this, [this](const QUrl &url) {
        if (QDesktopServices::openUrl(url))
            statusBar()->showMessage(tr("Opened %1 in the browser").arg(url.toDisplayString()), 8000);
        else
            statusBar()->showMessage(tr("Could not open %1: no browser answered").arg(url.toDisplayString()), 15000);
    });
}

} // namespace slicescope
