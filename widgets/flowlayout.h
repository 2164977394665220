// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A layout that places its items left to right at their size hints and wraps to a new row where
// the next one does not fit (issue 17: the slice page's bar at 1024x700 with the composer open).
// Nothing is squeezed below its size hint, so no control is cut off: a narrow bar is two rows,
// never a row of clipped combos. Rows are as tall as their tallest item, items centred in them;
// the last item may keep to the right end of its row (a bar's trailing button). Hidden widgets
// take no room. Height for width, so a box layout gives the bar the rows it needs.

#include <QLayout>
#include <QList>

namespace slicescope {

class FlowLayout : public QLayout
{
public:
    explicit FlowLayout(QWidget *parent = nullptr, int horizontalSpacing = 6, int verticalSpacing = 4);
    ~FlowLayout() override;

    // The last visible item at the right end of its row (default: after the one before it).
    void setLastItemTrailing(bool trailing);

    // How many rows the items take at `width` (margins included), at least 1.
    int rowCountForWidth(int width) const;

    void addItem(QLayoutItem *item) override;
    int count() const override;
    QLayoutItem *itemAt(int index) const override;
    QLayoutItem *takeAt(int index) override;
    Qt::Orientations expandingDirections() const override;
    bool hasHeightForWidth() const override;
    int heightForWidth(int width) const override;
    QSize minimumSize() const override;
    QSize sizeHint() const override;
    void setGeometry(const QRect &rect) override;

private:
    // Lays the items out in `rect` (placing them unless `measureOnly`); returns the height used
    // and the rows in `rows`.
    int arrange(const QRect &rect, bool measureOnly, int *rows = nullptr) const;

    QList<QLayoutItem *> m_items;
    int m_hSpacing;
    int m_vSpacing;
    bool m_lastTrailing = false;
};

} // namespace slicescope
