// SPDX-License-Identifier: GPL-3.0-or-later
// MainWindow's layout rules and its shortcut help (issue 17): the central view keeps a usable size
// whatever docks are open, opening a dock never grows the window past its screen, View > Reset
// layout brings back a first run's arrangement, and Help > Keyboard shortcuts lists every key.
#include "mainwindow.h"

#include "menutext.h"
#include "workspace.h"

#include <QAction>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QHeaderView>
#include <QMenu>
#include <QMenuBar>
#include <QScreen>
#include <QSplitter>
#include <QStatusBar>
#include <QTimer>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace slicescope {

namespace {

// "&Reserve slices..." -> "Reserve slices": the list names what a key does, not that it asks more.
QString plainText(const QString &text)
{
    QString menuText = plainMenuText(text);
    if (menuText.endsWith(QLatin1String("...")))
        menuText.chop(3);
    return menuText;
}

void collectShortcuts(QMenu *menu, const QString &section, QList<MainWindow::ShortcutRow> &out)
{
    for (QAction *a : menu->actions()) {
        if (a->isSeparator() || !a->isVisible())
            continue;
        if (a->menu()) {
            collectShortcuts(a->menu(), section, out);
            continue;
        }
        // The first two of an action's keys ("?, F1"); a third is a keyboard layout's variant.
        QStringList keys;
        for (const QKeySequence &k : a->shortcuts().mid(0, 2))
            keys << k.toString(QKeySequence::NativeText);
        if (!keys.isEmpty())
            out.append({section, plainText(a->text()), keys.join(QStringLiteral(", "))});
    }
}

} // namespace

QSize MainWindow::centralMinimumSize() const
{
    // About 60 characters by 16 lines of the UI font: a tile row of the overview, or a slice's
    // chips and its legend, stay readable (1024x700 still leaves room for a side dock).
    const QFontMetrics fm(font());
    return {fm.averageCharWidth() * 60, fm.height() * 16};
}

void MainWindow::applyLayoutRules()
{
    m_workspace->setMinimumSize(centralMinimumSize());
    // The docks share what is left: each asks for a few lines only (its own layout would ask for
    // all its rows), so every dock fits open at once in 1024x700 beside the central view.
    const QSize dockMinimum(fontMetrics().averageCharWidth() * 36, fontMetrics().height() * 4);
    const QList<QDockWidget *> docks = findChildren<QDockWidget *>(Qt::FindDirectChildrenOnly);
    for (QDockWidget *dock : docks) {
        if (QWidget *w = dock->widget())
            w->setMinimumSize(dockMinimum);
        connect(dock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
            if (visible)
                QTimer::singleShot(0, this, [this, before = size()] { keepOnScreen(before); });
        });
    }
    // The first run's arrangement, for View > Reset layout (saved before any setting is restored).
    m_defaultLayout = saveState();
    m_defaultSplitter = m_workspace->splitter()->saveState();
}

void MainWindow::keepOnScreen(QSize before)
{
    // A dock may grow the window while its screen has room; past that, back to the size it had.
    const QScreen *s = screen();
    if (!s || isMaximized() || isFullScreen())
        return;
    const QSize frame = frameGeometry().size() - size(); // the window manager's frame
    const QSize limit = before.expandedTo(s->availableGeometry().size() - frame);
    if (width() > limit.width() || height() > limit.height())
        resize(size().boundedTo(limit).expandedTo(minimumSize()));
}

void MainWindow::resetLayout()
{
    restoreState(m_defaultLayout);
    m_workspace->splitter()->restoreState(m_defaultSplitter);
    statusBar()->showMessage(tr("Layout reset: the docks are where a first run puts them"), 5000);
}

QList<MainWindow::ShortcutRow> MainWindow::shortcutRows() const
{
    QList<ShortcutRow> rows;
    const QList<QAction *> menus = menuBar()->actions();
    for (QAction *a : menus)
        if (a->menu())
            collectShortcuts(a->menu(), plainText(a->text()), rows);
    const QString overview = tr("Overview");
    rows.append({overview, tr("Move between slices"), tr("Arrow keys")});
    rows.append({overview, tr("First or last slice"), tr("Home, End")});
    rows.append({overview, tr("Open the slice"), tr("Enter")});
    rows.append({overview, tr("Reach the slices from the search box"), tr("Tab")});
    const QString search = tr("Search and filter boxes");
    rows.append({search, tr("Clear the search"), tr("Escape")});
    const QString slice = tr("Slice view");
    rows.append({slice, tr("Turn the slice"), tr("Drag, or arrow keys")});
    rows.append({slice, tr("Zoom"), tr("Wheel, + and -")});
    rows.append({slice, tr("Isometric, top or front view"), tr("1, 2, 3")});
    rows.append({slice, tr("Fit the slice again"), tr("Home")});
    rows.append({slice, tr("One z-layer at a time"), tr("Page Up, Page Down")});
    rows.append({slice, tr("Pull the layers apart, or together"), tr("E")});
    rows.append({slice, tr("Show or hide the links"), tr("L")});
    rows.append({slice, tr("Next or previous host"), tr("], [")});
    rows.append({slice, tr("Clear the host chosen"), tr("Escape")});
    return rows;
}

void MainWindow::openShortcutsHelp()
{
    auto *dialog = new QDialog(this);
    dialog->setObjectName(QStringLiteral("shortcutsHelp"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("Keyboard shortcuts"));
    auto *layout = new QVBoxLayout(dialog);
    auto *tree = new QTreeWidget(dialog);
    tree->setObjectName(QStringLiteral("shortcutsList"));
    tree->setColumnCount(2);
    tree->setHeaderLabels({tr("What"), tr("Keys")});
    tree->setRootIsDecorated(false);
    tree->setUniformRowHeights(true);
    QTreeWidgetItem *section = nullptr;
    for (const ShortcutRow &row : shortcutRows()) {
        if (!section || section->text(0) != row.section) {
            section = new QTreeWidgetItem(tree, {row.section});
            QFont bold = section->font(0);
            bold.setBold(true);
            section->setFont(0, bold);
            section->setFirstColumnSpanned(true);
            section->setFlags(Qt::ItemIsEnabled);
        }
        new QTreeWidgetItem(section, {row.text, row.keys});
    }
    tree->expandAll();
    tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    layout->addWidget(tree);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    layout->addWidget(buttons);
    dialog->resize(fontMetrics().averageCharWidth() * 70, fontMetrics().height() * 30);
    dialog->show();
}

} // namespace slicescope
