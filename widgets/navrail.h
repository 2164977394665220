// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The navigation rail at the workspace's left edge: one entry per view (Overview, Slice, Tables),
// an icon over a short label, the current one on a pill in the selection colour; and toggles for
// panels that are not pages (History). Keyboard: Tab reaches it, arrows move along it, Space or
// Enter picks. Painted from the theme (look.h) with drawn icons (icons.h), so it looks the same on
// the desktop, offscreen and in the browser.

#include "icons.h"
#include "look.h"

#include <QAbstractButton>
#include <QList>
#include <QWidget>

class QButtonGroup;
class QVBoxLayout;

namespace slicescope {

class NavRailButton : public QAbstractButton
{
    Q_OBJECT
public:
    NavRailButton(IconKind icon, const QString &label, QWidget *parent);
    IconKind iconKind() const { return m_icon; }
    void setTheme(const Theme &theme);
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;
    void enterEvent(QEnterEvent *event) override;
    void leaveEvent(QEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;

private:
    IconKind m_icon;
    Theme m_theme = Theme::light();
    bool m_hovered = false;
};

class NavRail : public QWidget
{
    Q_OBJECT
public:
    explicit NavRail(QWidget *parent = nullptr);

    // A page entry (exclusive with the other pages); its index is its order among the pages.
    NavRailButton *addPage(IconKind icon, const QString &label, const QString &toolTip);
    // An entry that toggles something that is not a page (checked while it is shown).
    NavRailButton *addToggle(IconKind icon, const QString &label, const QString &toolTip);

    void setCurrentPage(int index); // emits nothing
    int currentPage() const;
    NavRailButton *pageButton(int index) const;
    void setTheme(const Theme &theme);

Q_SIGNALS:
    void pageChosen(int index); // by a click or the keyboard

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    NavRailButton *add(IconKind icon, const QString &label, const QString &toolTip);

    QVBoxLayout *m_layout = nullptr;
    QButtonGroup *m_pages = nullptr;
    QList<NavRailButton *> m_buttons;
    Theme m_theme = Theme::light();
};

} // namespace slicescope
