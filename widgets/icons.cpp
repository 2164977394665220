// SPDX-License-Identifier: GPL-3.0-or-later
#include "icons.h"

#include "look.h"

#include <QGuiApplication>
#include <QIconEngine>
#include <QPainter>
#include <QPainterPath>
#include <QPalette>
#include <QPixmap>

#include <cmath>

namespace slicescope {

namespace {

constexpr double kStroke = 2.0; // grid units

QPainterPath roundedRect(double x, double y, double w, double h, double r)
{
    QPainterPath p;
    p.addRoundedRect(QRectF(x, y, w, h), r, r);
    return p;
}

// The shape of each icon on the 24-unit grid: strokes, and the parts that are filled.
struct Shape {
    QPainterPath stroke;
    QPainterPath fill;
};

Shape shapeOf(IconKind kind)
{
    Shape s;
    QPainterPath &p = s.stroke;
    switch (kind) {
    case IconKind::Overview: // a 2x2 grid of tiles
        p.addPath(roundedRect(3.5, 3.5, 7.5, 7.5, 1.5));
        p.addPath(roundedRect(13, 3.5, 7.5, 7.5, 1.5));
        p.addPath(roundedRect(3.5, 13, 7.5, 7.5, 1.5));
        p.addPath(roundedRect(13, 13, 7.5, 7.5, 1.5));
        break;
    case IconKind::Slice: { // an isometric cube
        const QPointF top(12, 2.5), right(20.5, 7.2), bottomRight(20.5, 16.8), bottom(12, 21.5), bottomLeft(3.5, 16.8),
            left(3.5, 7.2), centre(12, 12);
        p.moveTo(top);
        p.lineTo(right);
        p.lineTo(bottomRight);
        p.lineTo(bottom);
        p.lineTo(bottomLeft);
        p.lineTo(left);
        p.closeSubpath();
        p.moveTo(left);
        p.lineTo(centre);
        p.lineTo(right);
        p.moveTo(centre);
        p.lineTo(bottom);
        break;
    }
    case IconKind::Tables: // a table: frame, header rule, rows, one column rule
        p.addPath(roundedRect(3, 4, 18, 16, 2));
        p.moveTo(3, 9);
        p.lineTo(21, 9);
        p.moveTo(3, 14.5);
        p.lineTo(21, 14.5);
        p.moveTo(9.5, 9);
        p.lineTo(9.5, 20);
        break;
    case IconKind::History: // a chart: axes and a line
        p.moveTo(3.5, 3.5);
        p.lineTo(3.5, 20.5);
        p.lineTo(20.5, 20.5);
        p.moveTo(6.5, 16);
        p.lineTo(10.5, 10.5);
        p.lineTo(14, 13.5);
        p.lineTo(19.5, 6);
        break;
    case IconKind::Timeline: // a clock
        p.addEllipse(QPointF(12, 12), 8.5, 8.5);
        p.moveTo(12, 7);
        p.lineTo(12, 12);
        p.lineTo(15.5, 14);
        break;
    case IconKind::Problems: // a warning triangle, outlined
    case IconKind::Degraded: // the same, filled (status)
        p.moveTo(12, 3.5);
        p.lineTo(21, 19.5);
        p.lineTo(3, 19.5);
        p.closeSubpath();
        p.moveTo(12, 9.5);
        p.lineTo(12, 13.5);
        p.moveTo(12, 16.5);
        p.lineTo(12, 16.6);
        break;
    case IconKind::JobLog: // a terminal prompt
        p.addPath(roundedRect(3, 4, 18, 16, 2));
        p.moveTo(7, 9.5);
        p.lineTo(10, 12);
        p.lineTo(7, 14.5);
        p.moveTo(12, 15);
        p.lineTo(16.5, 15);
        break;
    case IconKind::WhyPending: // a question mark in a circle
        p.addEllipse(QPointF(12, 12), 8.5, 8.5);
        p.moveTo(9.5, 9.7);
        p.cubicTo(9.5, 6.5, 14.5, 6.5, 14.5, 9.7);
        p.cubicTo(14.5, 11.5, 12, 11.5, 12, 13.8);
        p.moveTo(12, 16.8);
        p.lineTo(12, 16.9);
        break;
    case IconKind::Reserve: // a plus in a tile
        p.addPath(roundedRect(3.5, 3.5, 17, 17, 3));
        p.moveTo(12, 8);
        p.lineTo(12, 16);
        p.moveTo(8, 12);
        p.lineTo(16, 12);
        break;
    case IconKind::Release: // a minus in a tile
        p.addPath(roundedRect(3.5, 3.5, 17, 17, 3));
        p.moveTo(8, 12);
        p.lineTo(16, 12);
        break;
    case IconKind::Scale: // up and down arrows beside stacked hosts
        p.addPath(roundedRect(3, 4, 9, 5, 1.2));
        p.addPath(roundedRect(3, 15, 9, 5, 1.2));
        p.moveTo(17.5, 4);
        p.lineTo(17.5, 20);
        p.moveTo(14.5, 7);
        p.lineTo(17.5, 4);
        p.lineTo(20.5, 7);
        p.moveTo(14.5, 17);
        p.lineTo(17.5, 20);
        p.lineTo(20.5, 17);
        break;
    case IconKind::Search: // a magnifier
        p.addEllipse(QPointF(10.5, 10.5), 6, 6);
        p.moveTo(15, 15);
        p.lineTo(20.5, 20.5);
        break;
    case IconKind::Copy: // two sheets
        p.addPath(roundedRect(8.5, 8.5, 12, 12, 2));
        p.moveTo(15.5, 5.5);
        p.lineTo(15.5, 5);
        p.cubicTo(15.5, 4, 15, 3.5, 14, 3.5);
        p.lineTo(5, 3.5);
        p.cubicTo(4, 3.5, 3.5, 4, 3.5, 5);
        p.lineTo(3.5, 14);
        p.cubicTo(3.5, 15, 4, 15.5, 5, 15.5);
        p.lineTo(5.5, 15.5);
        break;
    case IconKind::OpenExternal: // an arrow leaving a box
        p.moveTo(11, 4.5);
        p.lineTo(6, 4.5);
        p.cubicTo(5, 4.5, 4.5, 5, 4.5, 6);
        p.lineTo(4.5, 18);
        p.cubicTo(4.5, 19, 5, 19.5, 6, 19.5);
        p.lineTo(18, 19.5);
        p.cubicTo(19, 19.5, 19.5, 19, 19.5, 18);
        p.lineTo(19.5, 13);
        p.moveTo(14, 4.5);
        p.lineTo(19.5, 4.5);
        p.lineTo(19.5, 10);
        p.moveTo(19.5, 4.5);
        p.lineTo(11.5, 12.5);
        break;
    case IconKind::RayDashboard: // a gauge: an arc, its ticks and a needle
        p.moveTo(3.5, 17);
        p.arcTo(QRectF(3.5, 5, 17, 17), 180, -180);
        p.lineTo(20.5, 17);
        p.moveTo(12, 13.5);
        p.lineTo(16.5, 9);
        p.moveTo(6.5, 13.5);
        p.lineTo(7.6, 13.5);
        p.moveTo(12, 8);
        p.lineTo(12, 9.1);
        s.fill.addEllipse(QPointF(12, 13.5), 1.6, 1.6);
        break;
    case IconKind::CloudConsole: // a cloud
        p.moveTo(7, 18.5);
        p.cubicTo(4.5, 18.5, 3, 16.8, 3, 14.8);
        p.cubicTo(3, 12.8, 4.6, 11.2, 6.6, 11.2);
        p.cubicTo(7, 8, 9.4, 5.5, 12.5, 5.5);
        p.cubicTo(15.6, 5.5, 18, 8, 18.2, 11);
        p.cubicTo(20, 11.3, 21, 12.9, 21, 14.7);
        p.cubicTo(21, 16.8, 19.5, 18.5, 17.2, 18.5);
        p.closeSubpath();
        break;
    case IconKind::Open: // a folder
        p.moveTo(3.5, 18.5);
        p.lineTo(3.5, 6);
        p.lineTo(9.5, 6);
        p.lineTo(11.5, 8.5);
        p.lineTo(20.5, 8.5);
        p.lineTo(20.5, 18.5);
        p.closeSubpath();
        break;
    case IconKind::Save: // an arrow into a tray
        p.moveTo(12, 3.5);
        p.lineTo(12, 14.5);
        p.moveTo(7.5, 10);
        p.lineTo(12, 14.5);
        p.lineTo(16.5, 10);
        p.moveTo(3.5, 15);
        p.lineTo(3.5, 20.5);
        p.lineTo(20.5, 20.5);
        p.lineTo(20.5, 15);
        break;
    case IconKind::Export: // a picture
        p.addPath(roundedRect(3, 4.5, 18, 15, 2));
        p.moveTo(3.5, 17);
        p.lineTo(9, 11.5);
        p.lineTo(13, 15.5);
        p.lineTo(15.5, 13);
        p.lineTo(20.5, 18);
        s.fill.addEllipse(QPointF(15.5, 8.8), 1.7, 1.7);
        break;
    case IconKind::Live: // a dot in a ring
        p.addEllipse(QPointF(12, 12), 8.5, 8.5);
        s.fill.addEllipse(QPointF(12, 12), 4, 4);
        break;
    case IconKind::Keyboard: // a keyboard
        p.addPath(roundedRect(2.5, 6, 19, 12, 2));
        for (double x : {6.5, 10.0, 13.5, 17.0}) {
            p.moveTo(x, 10);
            p.lineTo(x + 0.1, 10);
        }
        p.moveTo(8, 14);
        p.lineTo(16, 14);
        break;
    case IconKind::Ready: // a tick in a disc
        s.fill.addEllipse(QPointF(12, 12), 9.5, 9.5);
        p.moveTo(7.5, 12.2);
        p.lineTo(10.7, 15.3);
        p.lineTo(16.5, 9);
        break;
    case IconKind::Reserved: // a padlock
        p.moveTo(8, 10.5);
        p.lineTo(8, 7.5);
        p.cubicTo(8, 2.5, 16, 2.5, 16, 7.5);
        p.lineTo(16, 10.5);
        s.fill.addRoundedRect(QRectF(4.5, 10, 15, 11), 2, 2);
        break;
    case IconKind::Provisioning: // an hourglass
        p.moveTo(6.5, 3.5);
        p.lineTo(17.5, 3.5);
        p.moveTo(6.5, 20.5);
        p.lineTo(17.5, 20.5);
        p.moveTo(7.5, 3.5);
        p.cubicTo(7.5, 9, 12, 10, 12, 12);
        p.cubicTo(12, 14, 7.5, 15, 7.5, 20.5);
        p.moveTo(16.5, 3.5);
        p.cubicTo(16.5, 9, 12, 10, 12, 12);
        p.cubicTo(12, 14, 16.5, 15, 16.5, 20.5);
        s.fill.moveTo(9, 20.5);
        s.fill.cubicTo(9, 17.5, 12, 16, 12, 16);
        s.fill.cubicTo(12, 16, 15, 17.5, 15, 20.5);
        s.fill.closeSubpath();
        break;
    case IconKind::Dead: // a cross in a disc
        s.fill.addEllipse(QPointF(12, 12), 9.5, 9.5);
        p.moveTo(8.5, 8.5);
        p.lineTo(15.5, 15.5);
        p.moveTo(15.5, 8.5);
        p.lineTo(8.5, 15.5);
        break;
    }
    return s;
}

// The white of a mark drawn on a filled status shape (the tick, the cross, the exclamation mark):
// readable on every status colour of both themes.
constexpr QRgb kMarkColor = 0xffffffff;

// Status icons are a filled shape with a white mark; the others are outlines.
bool markIsOnFill(IconKind kind)
{
    return kind == IconKind::Ready || kind == IconKind::Dead;
}

bool isDarkPalette(const QPalette &palette)
{
    return palette.color(QPalette::Window).lightnessF() < 0.5;
}

class DrawnIconEngine : public QIconEngine
{
public:
    DrawnIconEngine(IconKind kind, std::optional<SliceStatus> status)
        : m_kind(kind)
        , m_status(status)
    { }

    void paint(QPainter *painter, const QRect &rect, QIcon::Mode mode, QIcon::State) override
    {
        const QPalette palette = QGuiApplication::palette();
        QColor color;
        if (m_status)
            color = sliceStatusColor(*m_status, isDarkPalette(palette) ? Theme::dark() : Theme::light());
        else if (mode == QIcon::Selected)
            color = palette.color(QPalette::HighlightedText);
        else
            color = palette.color(QPalette::WindowText);
        if (mode == QIcon::Disabled)
            color = mix(color, palette.color(QPalette::Window), 0.55);
        const int side = std::min(rect.width(), rect.height());
        const QRectF square(rect.x() + (rect.width() - side) / 2.0, rect.y() + (rect.height() - side) / 2.0, side, side);
        paintIcon(*painter, square, m_kind, color);
    }

    // QIcon asks for the pixmap in device pixels (the logical size times the device pixel ratio)
    // and sets the ratio on it: the icon is drawn at that size, so a HiDPI screen gets a sharp
    // icon, not a scaled one.
    QPixmap pixmap(const QSize &size, QIcon::Mode mode, QIcon::State state) override
    {
        QPixmap pm(size);
        pm.fill(Qt::transparent);
        QPainter painter(&pm);
        paint(&painter, QRect(QPoint(0, 0), size), mode, state);
        return pm;
    }

    QSize actualSize(const QSize &size, QIcon::Mode, QIcon::State) override { return size; }
    QIconEngine *clone() const override { return new DrawnIconEngine(m_kind, m_status); }
    QString key() const override { return QStringLiteral("slicescope-drawn"); }
    QString iconName() override { return QString(); }
    bool isNull() override { return false; }

private:
    IconKind m_kind;
    std::optional<SliceStatus> m_status;
};

} // namespace

void paintIcon(QPainter &painter, const QRectF &rect, IconKind kind, const QColor &color)
{
    const Shape shape = shapeOf(kind);
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing);
    painter.translate(rect.topLeft());
    painter.scale(rect.width() / 24.0, rect.height() / 24.0);
    if (kind == IconKind::Degraded) {
        // Filled triangle, the mark knocked out of it.
        QPainterPath triangle;
        triangle.moveTo(12, 2.5);
        triangle.lineTo(22, 20.5);
        triangle.lineTo(2, 20.5);
        triangle.closeSubpath();
        painter.setPen(QPen(color, 1.2, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
        painter.setBrush(color);
        painter.drawPath(triangle);
        QPainterPath mark;
        mark.moveTo(12, 9);
        mark.lineTo(12, 13.5);
        mark.moveTo(12, 16.8);
        mark.lineTo(12, 16.9);
        painter.setPen(QPen(QColor::fromRgba(kMarkColor), 2.4, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
        painter.setBrush(Qt::NoBrush);
        painter.drawPath(mark);
        painter.restore();
        return;
    }
    if (!shape.fill.isEmpty()) {
        painter.setPen(Qt::NoPen);
        painter.setBrush(color);
        painter.drawPath(shape.fill);
    }
    painter.setPen(QPen(markIsOnFill(kind) ? QColor::fromRgba(kMarkColor) : color, kStroke, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    painter.setBrush(Qt::NoBrush);
    painter.drawPath(shape.stroke);
    painter.restore();
}

QIcon icon(IconKind kind)
{
    return QIcon(new DrawnIconEngine(kind, std::nullopt));
}

IconKind statusIconKind(SliceStatus status)
{
    switch (status) {
    case SliceStatus::Ready: return IconKind::Ready;
    case SliceStatus::Reserved: return IconKind::Reserved;
    case SliceStatus::Degraded: return IconKind::Degraded;
    case SliceStatus::Provisioning: return IconKind::Provisioning;
    }
    Q_UNREACHABLE();
}

QIcon statusIcon(SliceStatus status)
{
    return QIcon(new DrawnIconEngine(statusIconKind(status), status));
}

} // namespace slicescope
