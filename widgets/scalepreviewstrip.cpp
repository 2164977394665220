// SPDX-License-Identifier: GPL-3.0-or-later
#include "scalepreviewstrip.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

namespace slicescope {

int ScaleStripGeometry::columns() const
{
    const int usable = width - 2 * kMargin + kSpacing;
    return std::max(1, usable / (kTileWidth + kSpacing));
}

int ScaleStripGeometry::rows() const
{
    return count == 0 ? 0 : (count + columns() - 1) / columns();
}

int ScaleStripGeometry::height() const
{
    const int r = std::max(1, rows()); // an empty strip keeps one row's room, so the dialog does not jump
    return 2 * kMargin + r * kTileHeight + (r - 1) * kSpacing;
}

QRect ScaleStripGeometry::tileRect(int index) const
{
    if (index < 0 || index >= count)
        return {};
    const int c = columns();
    return {kMargin + (index % c) * (kTileWidth + kSpacing), kMargin + (index / c) * (kTileHeight + kSpacing), kTileWidth, kTileHeight};
}

int ScaleStripGeometry::tileAt(QPoint pos) const
{
    if (pos.x() < kMargin || pos.y() < kMargin)
        return -1;
    const int col = (pos.x() - kMargin) / (kTileWidth + kSpacing);
    const int row = (pos.y() - kMargin) / (kTileHeight + kSpacing);
    if (col >= columns())
        return -1;
    const int index = row * columns() + col;
    return tileRect(index).contains(pos) ? index : -1;
}

QList<ScaleTile> scaleTiles(const ClusterSnapshot &snapshot, const ScalePlan &plan)
{
    QList<ScaleTile> tiles;
    const int gi = snapshot.workerGroupIndex(plan.group.fleetKey());
    if (plan.group.group.isEmpty() || gi < 0)
        return tiles;
    for (const QString &name : snapshot.workerGroups[gi].slices) {
        ScaleTile t;
        t.name = name;
        t.kind = plan.slicesRemoved.contains(name) ? ScaleTile::Kind::Removed : ScaleTile::Kind::Existing;
        if (const int si = snapshot.sliceIndex(name); si >= 0)
            t.status = snapshot.slices[si].status();
        for (const PlacementGroup &pg : snapshot.placementGroups)
            if (pg.slices.contains(name))
                t.placementGroups << pg.displayLabel();
        tiles << t;
    }
    for (int i = 0; i < plan.slicesAdded; ++i)
        tiles << ScaleTile{ScaleTile::Kind::Added, {}, SliceStatus::Provisioning, {}};
    return tiles;
}

ScalePreviewStrip::ScalePreviewStrip(QWidget *parent)
    : QWidget(parent)
{
    QSizePolicy policy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    policy.setHeightForWidth(true);
    setSizePolicy(policy);
    setMouseTracking(true);
}

void ScalePreviewStrip::setTiles(const QList<ScaleTile> &tiles)
{
    if (tiles == m_tiles)
        return;
    const bool rowsChanged = geometry().rows() != ScaleStripGeometry{width(), int(tiles.size())}.rows();
    m_tiles = tiles;
    if (rowsChanged)
        updateGeometry();
    update();
}

void ScalePreviewStrip::setTheme(const Theme &theme)
{
    m_theme = theme;
    update();
}

int ScalePreviewStrip::heightForWidth(int width) const
{
    return ScaleStripGeometry{width, int(m_tiles.size())}.height();
}

QSize ScalePreviewStrip::sizeHint() const
{
    const int w = 2 * ScaleStripGeometry::kMargin + 4 * ScaleStripGeometry::kTileWidth + 3 * ScaleStripGeometry::kSpacing;
    return {w, heightForWidth(w)};
}

QSize ScalePreviewStrip::minimumSizeHint() const
{
    return {2 * ScaleStripGeometry::kMargin + ScaleStripGeometry::kTileWidth, ScaleStripGeometry{0, 0}.height()};
}

void ScalePreviewStrip::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    const ScaleStripGeometry geo = geometry();
    if (m_tiles.isEmpty()) {
        painter.setPen(m_theme.mutedText);
        painter.drawText(rect().adjusted(ScaleStripGeometry::kMargin, 0, 0, 0), Qt::AlignVCenter | Qt::AlignLeft, tr("No slices in this group."));
        return;
    }
    for (int i = 0; i < m_tiles.size(); ++i)
        drawTile(painter, geo.tileRect(i), m_tiles[i]);
}

void ScalePreviewStrip::drawTile(QPainter &painter, const QRect &rect, const ScaleTile &tile) const
{
    const QRectF box = QRectF(rect).adjusted(1, 1, -1, -1);
    const QColor status = sliceStatusColor(tile.status, m_theme);
    QString title = tile.name, subtitle = toText(tile.status);
    QColor titleColor = m_theme.text, subtitleColor = m_theme.mutedText;
    switch (tile.kind) {
    case ScaleTile::Kind::Existing: {
        painter.setPen(QPen(status.darker(125), 1));
        painter.setBrush(status);
        painter.drawRoundedRect(box, 4, 4);
        titleColor = subtitleColor = status.lightnessF() > 0.62 ? QColor(0x1d232b) : QColor(Qt::white);
        break;
    }
    case ScaleTile::Kind::Added: {
        // A ghost: what the plan would create, not there yet.
        QPen pen(m_theme.mutedText, 1.5, Qt::DashLine);
        painter.setPen(pen);
        QColor fill = m_theme.ready;
        fill.setAlpha(28);
        painter.setBrush(fill);
        painter.drawRoundedRect(box, 4, 4);
        title = tr("new");
        subtitle = tr("to be added");
        break;
    }
    case ScaleTile::Kind::Removed: {
        QColor fill = status;
        fill.setAlpha(60);
        painter.setBrush(fill);
        painter.setPen(QPen(m_theme.dead, 2));
        painter.drawRoundedRect(box, 4, 4);
        QColor cross = m_theme.dead;
        cross.setAlpha(150);
        painter.setPen(QPen(cross, 2));
        painter.drawLine(box.topLeft() + QPointF(4, 4), box.bottomRight() - QPointF(4, 4));
        painter.drawLine(box.bottomLeft() + QPointF(4, -4), box.topRight() + QPointF(-4, 4));
        subtitle = tr("removed");
        subtitleColor = m_theme.dead;
        break;
    }
    }
    // Text only where it fits: names are elided to the tile.
    const QRect text = rect.adjusted(6, 4, -6, -4);
    QFont bold = font();
    bold.setBold(true);
    painter.setFont(bold);
    painter.setPen(titleColor);
    const QFontMetrics fm(bold);
    painter.drawText(QRect(text.left(), text.top(), text.width(), text.height() / 2), Qt::AlignLeft | Qt::AlignVCenter,
                     fm.elidedText(title, Qt::ElideMiddle, text.width()));
    painter.setFont(font());
    painter.setPen(subtitleColor);
    painter.drawText(QRect(text.left(), text.top() + text.height() / 2, text.width(), text.height() / 2), Qt::AlignLeft | Qt::AlignVCenter,
                     QFontMetrics(font()).elidedText(subtitle, Qt::ElideRight, text.width()));
}

QString ScalePreviewStrip::toolTipFor(const ScaleTile &tile) const
{
    switch (tile.kind) {
    case ScaleTile::Kind::Added:
        return tr("A new slice: KubeRay creates its pods, GKE its TPU hosts, then they join Ray.");
    case ScaleTile::Kind::Existing:
    case ScaleTile::Kind::Removed: {
        QString text = tr("%1: %2").arg(tile.name, toText(tile.status));
        if (!tile.placementGroups.isEmpty())
            text += tr("\nplacement groups: %1").arg(tile.placementGroups.join(QStringLiteral(", ")));
        if (tile.kind == ScaleTile::Kind::Removed)
            text += tile.placementGroups.isEmpty() ? tr("\nwill be removed") : tr("\nwill be removed: these placement groups lose their hosts");
        return text;
    }
    }
    Q_UNREACHABLE();
}

bool ScalePreviewStrip::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        // Built at hover time, from the same geometry that painted the tile.
        auto *help = static_cast<QHelpEvent *>(event);
        const int index = geometry().tileAt(help->pos());
        if (index >= 0)
            QToolTip::showText(help->globalPos(), toolTipFor(m_tiles[index]), this, geometry().tileRect(index));
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

} // namespace slicescope
