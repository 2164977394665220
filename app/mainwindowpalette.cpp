// SPDX-License-Identifier: GPL-3.0-or-later
// MainWindow's command palette (View > Go to..., Ctrl+K; issue 17): its entries are read afresh each
// time it opens, from the snapshot the views show and from the menus, so it can never offer a
// slice that is gone or an action that is disabled.
#include "mainwindow.h"

#include "commandpalette.h"
#include "menutext.h"
#include "tpu.h"
#include "workspace.h"

#include <QAction>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>

namespace slicescope {

namespace {

QString where(const QString &context, const QString &rayCluster)
{
    QStringList parts;
    if (!context.isEmpty()) parts << QObject::tr("context %1").arg(context);
    if (!rayCluster.isEmpty()) parts << QObject::tr("RayCluster %1").arg(rayCluster);
    return parts.join(QStringLiteral(", "));
}

// Every enabled, visible action of `menu` and its submenus, named "Menu > Submenu".
void collectActions(QMenu *menu, const QString &path, QList<PaletteEntry> &out)
{
    for (QAction *a : menu->actions()) {
        if (a->isSeparator() || !a->isVisible()) continue;
        if (QMenu *sub = a->menu()) {
            collectActions(sub, path + QStringLiteral(" > ") + plainMenuText(sub->title()), out);
            continue;
        }
        if (!a->isEnabled() || a->text().isEmpty()) continue;
        PaletteEntry e;
        e.text = plainMenuText(a->text());
        if (a->isCheckable()) e.text += a->isChecked() ? QObject::tr(" (on)") : QString();
        e.kind = path.startsWith(QObject::tr("View")) ? QObject::tr("View") : QObject::tr("Action");
        e.detail = path;
        e.shortcut = a->shortcut().toString(QKeySequence::NativeText);
        e.run = [action = QPointer<QAction>(a)] {
            if (action && action->isEnabled()) action->trigger();
        };
        out << e;
    }
}

} // namespace

QList<PaletteEntry> MainWindow::paletteEntries()
{
    QList<PaletteEntry> out;
    const SnapshotPtr shown = viewedSnapshot();
    if (shown) {
        const ClusterSnapshot &s = *shown;
        for (const Slice &slice : s.slices) {
            PaletteEntry e;
            e.text = slice.name;
            e.kind = tr("Slice");
            QStringList detail;
            if (const QString w = where(slice.context, slice.rayCluster); !w.isEmpty()) detail << w;
            if (slice.generation) detail << QStringLiteral("%1 %2").arg(slice.generation->name, slice.topology.toString());
            detail << toText(slice.status());
            if (slice.reservedChips > 0) detail << tr("%1 chips reserved").arg(slice.reservedChips);
            e.detail = detail.join(QStringLiteral(", "));
            e.run = [this, name = slice.name] {
                if (m_workspace->showSlice(name)) m_workspace->showPage(Workspace::Page::Slice);
            };
            out << e;
        }
        for (const PlacementGroup &g : s.placementGroups) {
            PaletteEntry e;
            e.text = s.groupLabel(g);
            e.kind = tr("Placement group");
            QStringList detail{g.state};
            if (!g.name.isEmpty()) detail << tr("id %1").arg(g.id.left(PlacementGroup::kDisplayIdChars));
            if (const QString w = where(g.context, g.rayCluster); !w.isEmpty()) detail << w;
            if (!g.slices.isEmpty()) detail << tr("on %1").arg(g.slices.join(QStringLiteral(", ")));
            e.detail = detail.join(QStringLiteral(", "));
            // Opens the first slice it holds; a group holding none (pending) opens the tables.
            e.run = [this, slices = g.slices] {
                if (!slices.isEmpty() && m_workspace->showSlice(slices.first())) m_workspace->showPage(Workspace::Page::Slice);
                else m_workspace->showPage(Workspace::Page::Tables);
            };
            out << e;
        }
        for (const WorkerGroup &g : s.workerGroups) {
            if (!g.isTpu()) continue;
            PaletteEntry e;
            e.text = g.qualifiedName();
            e.kind = tr("Worker group");
            QStringList detail;
            if (!g.context.isEmpty()) detail << tr("context %1").arg(g.context);
            detail << tr("%n replica(s)", nullptr, g.replicas);
            if (!g.topology.isEmpty()) detail << g.topology;
            detail << tr("scale...");
            e.detail = detail.join(QStringLiteral(", "));
            e.run = [this, slice = g.slices.value(0)] {
                openScaleDialog(slice);
            };
            out << e;
        }
    }
    for (QAction *a : menuBar()->actions())
        if (QMenu *menu = a->menu(); menu && a->isVisible()) collectActions(menu, plainMenuText(menu->title()), out);
    return out;
}

void MainWindow::openCommandPalette()
{
    if (!m_palette) m_palette = new CommandPalette(this);
    m_palette->setEntries(paletteEntries());
    m_palette->input()->clear();
    // Centred on the window, near its top, as wide as it sensibly can be.
    const int width = std::clamp(this->width() * 2 / 3, 360, 760);
    const int height = std::clamp(this->height() * 2 / 3, 240, 520);
    m_palette->resize(width, height);
    m_palette->move(mapToGlobal(QPoint((this->width() - width) / 2, std::min(80, this->height() / 8))));
    m_palette->show();
    m_palette->raise();
    m_palette->activateWindow();
    m_palette->input()->setFocus();
}

} // namespace slicescope
