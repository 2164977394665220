// SPDX-License-Identifier: GPL-3.0-or-later
#include "navrail.h"

#include <QButtonGroup>
#include <QKeyEvent>
#include <QPainter>
#include <QPainterPath>
#include <QVBoxLayout>

namespace slicescope {

namespace {

// Sizes in the font's height (em), as docs/design.md asks.
constexpr double kPillWidthEm = 3.6;
constexpr double kPillHeightEm = 1.9;
constexpr double kIconEm = 1.35;
constexpr double kLabelScale = 0.85;

QFont labelFont(const QFont &base)
{
    QFont f = base;
    if (f.pixelSize() > 0)
        f.setPixelSize(std::max(8, int(f.pixelSize() * kLabelScale + 0.5)));
    else
        f.setPointSizeF(f.pointSizeF() * kLabelScale);
    return f;
}

} // namespace

NavRailButton::NavRailButton(IconKind icon, const QString &label, QWidget *parent)
    : QAbstractButton(parent)
    , m_icon(icon)
{
    setText(label);
    setCheckable(true);
    setFocusPolicy(Qt::TabFocus); // a click leaves the focus where it was (the view being driven)
    setCursor(Qt::PointingHandCursor);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

void NavRailButton::setTheme(const Theme &theme)
{
    m_theme = theme;
    update();
}

QSize NavRailButton::sizeHint() const
{
    const int em = fontMetrics().height();
    const QFontMetrics small(labelFont(font()));
    const int width = std::max(int(kPillWidthEm * em), small.horizontalAdvance(text())) + em / 2;
    const int height = int(kPillHeightEm * em) + small.height() + em / 2;
    return {width, height};
}

void NavRailButton::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const int em = fontMetrics().height();
    const QRectF pill((width() - kPillWidthEm * em) / 2.0, em / 4.0, kPillWidthEm * em, kPillHeightEm * em);
    const bool on = isChecked();
    QColor fill;
    if (on)
        fill = mix(m_theme.panel, m_theme.selection, m_theme.isDark ? 0.35 : 0.16);
    else if (m_hovered || isDown())
        fill = mix(m_theme.panel, m_theme.text, 0.08);
    if (fill.isValid()) {
        p.setPen(Qt::NoPen);
        p.setBrush(fill);
        p.drawRoundedRect(pill, pill.height() / 2, pill.height() / 2);
    }
    if (hasFocus()) { // the keyboard's focus ring
        p.setPen(QPen(m_theme.selection, 2));
        p.setBrush(Qt::NoBrush);
        p.drawRoundedRect(pill.adjusted(-1, -1, 1, 1), pill.height() / 2 + 1, pill.height() / 2 + 1);
    }
    const QColor ink = on ? (m_theme.isDark ? m_theme.text : m_theme.selection) : (isEnabled() ? m_theme.text : m_theme.mutedText);
    const double side = kIconEm * em;
    paintIcon(p, QRectF(pill.center().x() - side / 2, pill.center().y() - side / 2, side, side), m_icon, ink);
    p.setFont(labelFont(font()));
    p.setPen(on ? ink : m_theme.mutedText);
    const QRectF label(0, pill.bottom() + em / 8.0, width(), QFontMetrics(p.font()).height());
    p.drawText(label, Qt::AlignHCenter | Qt::AlignTop, text());
}

void NavRailButton::enterEvent(QEnterEvent *event)
{
    m_hovered = true;
    update();
    QAbstractButton::enterEvent(event);
}

void NavRailButton::leaveEvent(QEvent *event)
{
    m_hovered = false;
    update();
    QAbstractButton::leaveEvent(event);
}

void NavRailButton::keyPressEvent(QKeyEvent *event)
{
    // Arrows walk the rail (every entry, pages and toggles alike); Enter picks, as Space does.
    if (event->key() == Qt::Key_Down || event->key() == Qt::Key_Up) {
        QWidget *next = event->key() == Qt::Key_Down ? nextInFocusChain() : previousInFocusChain();
        if (qobject_cast<NavRailButton *>(next) && next->parentWidget() == parentWidget())
            next->setFocus(Qt::TabFocusReason);
        return;
    }
    if (event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter) {
        click();
        return;
    }
    QAbstractButton::keyPressEvent(event);
}

NavRail::NavRail(QWidget *parent)
    : QWidget(parent)
    , m_layout(new QVBoxLayout(this))
    , m_pages(new QButtonGroup(this))
{
    setObjectName(QStringLiteral("navRail"));
    m_layout->setContentsMargins(2, 6, 3, 6);
    m_layout->setSpacing(2);
    m_layout->addStretch(1);
    m_pages->setExclusive(true);
    connect(m_pages, &QButtonGroup::idClicked, this, &NavRail::pageChosen);
    setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Preferred);
}

NavRailButton *NavRail::add(IconKind icon, const QString &label, const QString &toolTip)
{
    auto *b = new NavRailButton(icon, label, this);
    b->setToolTip(toolTip);
    b->setAccessibleName(label);
    b->setTheme(m_theme);
    m_layout->insertWidget(m_layout->count() - 1, b); // before the stretch
    m_buttons << b;
    return b;
}

NavRailButton *NavRail::addPage(IconKind icon, const QString &label, const QString &toolTip)
{
    NavRailButton *b = add(icon, label, toolTip);
    m_pages->addButton(b, int(m_pages->buttons().size()));
    if (m_pages->buttons().size() == 1)
        b->setChecked(true);
    return b;
}

NavRailButton *NavRail::addToggle(IconKind icon, const QString &label, const QString &toolTip)
{
    return add(icon, label, toolTip);
}

void NavRail::setCurrentPage(int index)
{
    if (QAbstractButton *b = m_pages->button(index))
        b->setChecked(true);
}

int NavRail::currentPage() const
{
    return m_pages->checkedId();
}

NavRailButton *NavRail::pageButton(int index) const
{
    return static_cast<NavRailButton *>(m_pages->button(index));
}

void NavRail::setTheme(const Theme &theme)
{
    m_theme = theme;
    for (NavRailButton *b : std::as_const(m_buttons))
        b->setTheme(theme);
    update();
}

void NavRail::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.fillRect(rect(), m_theme.panel);
    p.setPen(m_theme.border);
    p.drawLine(width() - 1, 0, width() - 1, height());
}

} // namespace slicescope
