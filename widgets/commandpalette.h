// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The command palette (Ctrl+K, issue 17): one box that finds any slice, placement group, worker
// group, action or view by typing, and runs it on Enter. The window gives it its entries each time
// it opens (MainWindow::openCommandPalette()); the palette only filters, ranks and runs them.

#include <QDialog>
#include <QList>
#include <QString>

#include <functional>

class QLineEdit;
class QListWidget;
class QLabel;

namespace slicescope {

struct PaletteEntry {
    QString text;     // what is typed for: a slice's name, an action's menu text without '&'
    QString kind;     // "Slice", "Placement group", "Worker group", "Action", "View"
    QString detail;   // where it is and what it is: "context gke_us, RayCluster team-a/llm, 4x4, ready"
    QString shortcut; // the action's shortcut as the menu shows it, if any
    std::function<void()> run;
};

class CommandPalette : public QDialog
{
    Q_OBJECT
public:
    // Rows shown at most; the rest are counted ("+N more: type more to narrow").
    static constexpr int kMaxRows = 200;

    explicit CommandPalette(QWidget *parent = nullptr);

    void setEntries(QList<PaletteEntry> entries);
    const QList<PaletteEntry> &entries() const { return m_entries; }

    // The entries matching `query`, best first, as indices into `entries`. Every word of the query
    // must appear, in any case, in the entry's text, kind or detail. Ranked: the text starting with
    // the whole query, then the text holding it, then every word in the text, then the rest; within
    // a rank, in the order given. An empty query matches everything, in the order given.
    static QList<int> rank(const QList<PaletteEntry> &entries, const QString &query);

    QLineEdit *input() const { return m_input; }
    QListWidget *list() const { return m_list; }
    // The entry the current row shows (-1: none).
    int currentEntry() const;

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void refilter();
    void runCurrent();

    QLineEdit *m_input;
    QListWidget *m_list;
    QLabel *m_more;
    QList<PaletteEntry> m_entries;
};

} // namespace slicescope
