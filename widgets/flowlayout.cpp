// SPDX-License-Identifier: GPL-3.0-or-later
#include "flowlayout.h"

#include <QWidget>

#include <algorithm>

namespace slicescope {

FlowLayout::FlowLayout(QWidget *parent, int horizontalSpacing, int verticalSpacing)
    : QLayout(parent)
    , m_hSpacing(horizontalSpacing)
    , m_vSpacing(verticalSpacing)
{
}

FlowLayout::~FlowLayout()
{
    while (QLayoutItem *item = takeAt(0))
        delete item;
}

void FlowLayout::setLastItemTrailing(bool trailing)
{
    m_lastTrailing = trailing;
    invalidate();
}

void FlowLayout::addItem(QLayoutItem *item)
{
    m_items.append(item);
}

int FlowLayout::count() const
{
    return int(m_items.size());
}

QLayoutItem *FlowLayout::itemAt(int index) const
{
    return index >= 0 && index < m_items.size() ? m_items[index] : nullptr;
}

QLayoutItem *FlowLayout::takeAt(int index)
{
    return index >= 0 && index < m_items.size() ? m_items.takeAt(index) : nullptr;
}

Qt::Orientations FlowLayout::expandingDirections() const
{
    return {};
}

bool FlowLayout::hasHeightForWidth() const
{
    return true;
}

int FlowLayout::heightForWidth(int width) const
{
    return arrange(QRect(0, 0, width, 0), true);
}

int FlowLayout::rowCountForWidth(int width) const
{
    int rows = 0;
    arrange(QRect(0, 0, width, 0), true, &rows);
    return std::max(rows, 1);
}

QSize FlowLayout::minimumSize() const
{
    // As wide as the widest item: every item fits a row of its own.
    QSize size;
    for (const QLayoutItem *item : m_items)
        if (!item->isEmpty())
            size = size.expandedTo(item->minimumSize()).expandedTo(QSize(item->sizeHint().width(), 0));
    const QMargins m = contentsMargins();
    return size + QSize(m.left() + m.right(), m.top() + m.bottom());
}

QSize FlowLayout::sizeHint() const
{
    // One row of everything.
    int width = 0, height = 0, shown = 0;
    for (const QLayoutItem *item : m_items) {
        if (item->isEmpty())
            continue;
        const QSize hint = item->sizeHint();
        width += hint.width() + (shown++ > 0 ? m_hSpacing : 0);
        height = std::max(height, hint.height());
    }
    const QMargins m = contentsMargins();
    return QSize(width + m.left() + m.right(), height + m.top() + m.bottom());
}

void FlowLayout::setGeometry(const QRect &rect)
{
    QLayout::setGeometry(rect);
    arrange(rect, false);
}

int FlowLayout::arrange(const QRect &rect, bool measureOnly, int *rows) const
{
    const QRect area = rect.marginsRemoved(contentsMargins());
    QList<QLayoutItem *> shown;
    for (QLayoutItem *item : m_items)
        if (!item->isEmpty())
            shown.append(item);
    const QMargins m = contentsMargins();
    if (shown.isEmpty()) {
        if (rows)
            *rows = 0;
        return m.top() + m.bottom();
    }
    // Break into rows first, then place each row, its items centred in its height.
    QList<qsizetype> rowStarts{0};
    int x = 0;
    for (qsizetype i = 0; i < shown.size(); ++i) {
        const int w = std::min(shown[i]->sizeHint().width(), std::max(area.width(), 1));
        if (x > 0 && x + m_hSpacing + w > area.width()) {
            rowStarts.append(i);
            x = w;
        } else {
            x += (x > 0 ? m_hSpacing : 0) + w;
        }
    }
    rowStarts.append(shown.size());
    int y = area.top();
    for (qsizetype r = 0; r + 1 < rowStarts.size(); ++r) {
        int height = 0;
        for (qsizetype i = rowStarts[r]; i < rowStarts[r + 1]; ++i)
            height = std::max(height, shown[i]->sizeHint().height());
        if (!measureOnly) {
            int left = area.left();
            for (qsizetype i = rowStarts[r]; i < rowStarts[r + 1]; ++i) {
                const QSize hint = shown[i]->sizeHint();
                const int w = std::min(hint.width(), std::max(area.width(), 1));
                const int h = std::min(hint.height(), height);
                if (m_lastTrailing && i == shown.size() - 1)
                    left = std::max(left, area.right() + 1 - w);
                shown[i]->setGeometry(QRect(left, y + (height - h) / 2, w, h));
                left += w + m_hSpacing;
            }
        }
        y += height + m_vSpacing;
    }
    if (rows)
        *rows = int(rowStarts.size() - 1);
    return y - m_vSpacing - area.top() + m.top() + m.bottom();
}

} // namespace slicescope
