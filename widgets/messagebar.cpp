// SPDX-License-Identifier: GPL-3.0-or-later
#include "messagebar.h"

#include <QPainter>

namespace slicescope {

namespace {
constexpr int kBorder = 1; // the box's line, inside the widget's rect
constexpr int kMargin = 6; // between the line and the text
} // namespace

MessageBar::MessageBar(QWidget *parent)
    : QLabel(parent)
{
    setWordWrap(true);
    setContentsMargins(kBorder, kBorder, kBorder, kBorder);
    setMargin(kMargin);
    applyColors();
}

const MessageColors &MessageBar::colorsFor(const Theme &theme, Kind kind)
{
    switch (kind) {
    case Kind::Info: return theme.info;
    case Kind::Warning: return theme.warning;
    case Kind::Error: return theme.error;
    case Kind::Success: return theme.success;
    }
    Q_UNREACHABLE();
}

void MessageBar::setTheme(const Theme &theme)
{
    m_theme = theme;
    applyColors();
}

void MessageBar::setKind(Kind kind)
{
    m_kind = kind;
    applyColors();
}

void MessageBar::showMessage(Kind kind, const QString &text)
{
    setKind(kind);
    setText(text);
    show();
}

void MessageBar::applyColors()
{
    // The text in the kind's colour in every colour group: a disabled panel's message stays readable.
    QPalette p = palette();
    p.setColor(QPalette::WindowText, colors().text);
    setPalette(p);
    update();
}

void MessageBar::paintEvent(QPaintEvent *event)
{
    {
        QPainter painter(this);
        const MessageColors &c = colors();
        painter.fillRect(rect(), c.background);
        painter.setPen(QPen(c.border, kBorder));
        painter.drawRect(rect().adjusted(0, 0, -kBorder, -kBorder));
    }
    QLabel::paintEvent(event); // the text, inside the contents margins
}

} // namespace slicescope
