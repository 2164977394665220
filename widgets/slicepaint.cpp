// SPDX-License-Identifier: GPL-3.0-or-later
#include "slicepaint.h"

#include "slicepanels.h"

#include <QFontMetrics>
#include <QPaintEngine>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace slicescope {

using tpu::ChipCoord;

namespace {

TrayKind trayKindOf(const SliceScene &scene, int hostIndex)
{
    const Host &h = scene.slice->hosts[hostIndex];
    if (h.workerId == scene.selected)
        return TraySelected;
    // In state mode the chips already say it; the tray would only repeat it louder.
    if (scene.mode != ColorMode::State) {
        switch (h.state) {
        case HostState::Alive: break;
        case HostState::Dead: return TrayDead;
        case HostState::Pending: return TrayPending;
        case HostState::Missing: return TrayMissing;
        }
    }
    return h.state == HostState::Missing ? TrayMissing : TrayNormal;
}

double labelRoom(const SliceScene &scene, const SliceProjection &p)
{
    // The shorter projected side of a host block's top: what a label must fit in.
    const tpu::Dims b = scene.slice->layout.block();
    const auto steps = p.axisSteps();
    const double top = std::abs(p.towardViewer().z());
    if (top < 0.35) // looking at the side: tops are slivers
        return 0;
    return std::min(std::hypot(steps[0].x(), steps[0].y()) * b.x, std::hypot(steps[1].x(), steps[1].y()) * b.y);
}

QString hostLabelText(const Host &host, const QFontMetricsF &fm, double room)
{
    // A host that is not alive says so on its label, whatever the colour mode: in worker or
    // bundle colours a dead host would otherwise look like any other.
    const QString name = QStringLiteral("w%1").arg(host.workerId);
    if (fm.height() + 2 > room * 0.6)
        return {};
    if (host.state != HostState::Alive) {
        const QString withState = name + QStringLiteral(" ") + toText(host.state);
        if (fm.horizontalAdvance(withState) + 8 <= room * 0.95)
            return withState;
    }
    return fm.horizontalAdvance(name) + 8 <= room * 0.95 ? name : QString(); // text only where it fits
}

QPointF hostLabelCentre(const SliceScene &scene, const SliceProjection &p, const SliceDrawOrder::Item &item)
{
    // The middle of the top of the host's block.
    const tpu::Dims b = scene.slice->layout.block();
    const auto steps = p.axisSteps();
    return p.chipCenter(ChipCoord{0, 0, 0}) + steps[0] * (item.x + (b.x - 1) / 2.0) + steps[1] * (item.y + (b.y - 1) / 2.0)
           + steps[2] * (item.z + b.z - 1) + p.mapVector(QVector3D(0, 0, p.chipHalfExtents().z()));
}

void paintHostLabel(QPainter &painter, const Theme &theme, QPointF centre, const Host &host, const QString &text)
{
    const QFontMetricsF fm(painter.font());
    const double w = fm.horizontalAdvance(text) + 8, h = fm.height() + 2;
    const QRectF box(centre.x() - w / 2, centre.y() - h / 2, w, h);
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setPen(Qt::NoPen);
    painter.setBrush(host.state == HostState::Alive ? QColor(0, 0, 0, 150) : hostStateColor(host.state, theme).darker(125));
    painter.drawRoundedRect(box, 4, 4);
    painter.setPen(Qt::white);
    painter.drawText(box, Qt::AlignCenter, text);
}

void drawHostLabel(QPainter &painter, const SliceScene &scene, const SliceProjection &p, const SliceDrawOrder::Item &item, double room, LabelSprites *cache)
{
    const Host &host = scene.slice->hosts[item.ref];
    const QString text = hostLabelText(host, QFontMetricsF(painter.font()), room);
    if (text.isEmpty())
        return;
    const QPointF centre = hostLabelCentre(scene, p, item);
    if (!cache) {
        paintHostLabel(painter, scene.theme, centre, host, text);
        return;
    }
    const qreal dpr = slicepaint::deviceRatio(painter);
    const QByteArray key = painter.font().key().toUtf8() + ' ' + QByteArray::number(scene.dataVersion) + ' ' + QByteArray::number(dpr);
    if (key != cache->key) {
        cache->key = key;
        cache->labels.assign(scene.slice->hosts.size(), LabelSprites::Label{});
    }
    LabelSprites::Label &label = cache->labels[size_t(item.ref)];
    if (label.text != text) {
        const QFontMetricsF fm(painter.font());
        const QFont font = painter.font();
        label.text = text;
        label.sprite = renderSprite(dpr, QRectF(-fm.horizontalAdvance(text) / 2 - 5, -fm.height() / 2 - 2, fm.horizontalAdvance(text) + 10, fm.height() + 4),
                                    [&](QPainter &lp) {
                                        lp.setFont(font);
                                        paintHostLabel(lp, scene.theme, QPointF(0, 0), host, text);
                                    });
    }
    painter.drawImage(QPoint(int(std::lround(centre.x())), int(std::lround(centre.y()))) - label.sprite.anchor, label.sprite.image);
}

QPolygonF hostOutline(const SliceScene &scene, const SliceProjection &p, int hostIndex)
{
    const Host &host = scene.slice->hosts[hostIndex];
    const tpu::SliceLayout &layout = scene.slice->layout;
    if (host.workerId < 0 || host.workerId >= layout.hostCount())
        return {};
    const tpu::Dims b = layout.block();
    const ChipCoord lo = layout.chipPosition(host.workerId, 0);
    ChipCoord hi{lo.x + b.x - 1, lo.y + b.y - 1, lo.z + b.z - 1};
    // Only the visible layers of the block.
    const int z0 = std::max(lo.z, p.layerFirst()), z1 = std::min(hi.z, p.layerLast());
    if (z0 > z1)
        return {};
    const QVector3D e = p.chipHalfExtents() + QVector3D(0.06f, 0.06f, 0.06f);
    const QVector3D a = p.worldPosition(ChipCoord{lo.x, lo.y, z0}) - e;
    const QVector3D c = p.worldPosition(ChipCoord{hi.x, hi.y, z1}) + e;
    QList<QPointF> points;
    for (int i = 0; i < 8; ++i)
        points << p.map(QVector3D(i & 1 ? c.x() : a.x(), i & 2 ? c.y() : a.y(), i & 4 ? c.z() : a.z()));
    // The convex hull of 8 points: gift wrapping is plenty.
    QPolygonF hull;
    int start = 0;
    for (int i = 1; i < 8; ++i)
        if (points[i].x() < points[start].x() || (points[i].x() == points[start].x() && points[i].y() < points[start].y()))
            start = i;
    int current = start;
    for (int guard = 0; guard < 9; ++guard) {
        hull << points[current];
        int next = (current + 1) % 8;
        for (int i = 0; i < 8; ++i) {
            const QPointF u = points[next] - points[current], v = points[i] - points[current];
            const double cr = u.x() * v.y() - u.y() * v.x();
            if (cr < -1e-9 || (std::abs(cr) <= 1e-9 && QPointF::dotProduct(v, v) > QPointF::dotProduct(u, u)))
                next = i;
        }
        current = next;
        if (current == start)
            break;
    }
    return hull;
}

} // namespace

const SliceDrawOrder &SliceFrameCache::order(const SliceScene &scene, const SliceProjection &p, bool cull)
{
    SliceDrawOrder &o = orders[cull ? 1 : 0];
    if (!(o.key() == SliceDrawOrder::keyFor(p, cull, scene.dataVersion)) || o.items().empty())
        o = SliceDrawOrder(p, scene.chips, cull, scene.dataVersion);
    return o;
}

const SliceDrawOrder *SliceFrameCache::shown(const SliceScene &scene, const SliceProjection &p, bool cull) const
{
    const SliceDrawOrder &o = orders[cull ? 1 : 0];
    return o.key() == SliceDrawOrder::keyFor(p, cull, scene.dataVersion) && o.drawn().size() == scene.chips.chips.size() ? &o : nullptr;
}

namespace slicepaint {

void frame(QPainter &painter, const SliceScene &scene, const SliceProjection &p, QSize size, bool sprites, SliceFrameCache &cache)
{
    painter.save();
    background(painter, scene, size);
    if (!scene.slice) {
        message(painter, scene, size, scene.sliceName.isEmpty() ? Tr::tr("No slice selected") : Tr::tr("Slice %1 is not in this snapshot").arg(scene.sliceName));
        painter.restore();
        return;
    }
    if (!scene.slice->layout.isValid() || scene.chips.isEmpty()) {
        title(painter, scene, p, size);
        message(painter, scene, size, Tr::tr("The shape of this slice is unknown (%1), so its chips cannot be laid out.").arg(scene.slice->problems.join(QStringLiteral("; "))));
        painter.restore();
        return;
    }
    // Vector devices (SVG) get polygons: thousands of embedded bitmaps would make a poor SVG.
    const bool raster = painter.paintEngine() && painter.paintEngine()->type() == QPaintEngine::Raster;
    if (sprites && raster)
        chipsWithSprites(painter, scene, p, cache.order(scene, p, true), cache.sprites, cache.labels);
    else
        chipsWithPolygons(painter, scene, p, cache.order(scene, p, !raster));
    sliceFrame(painter, scene, p);
    highlights(painter, scene, p);
    selection(painter, scene, p, cache.shown(scene, p, sprites));
    hover(painter, scene, p);
    const QFontMetrics fm(scene.font);
    const QByteArray links = scene.linksVisible ? "links" : "nolinks";
    panel(painter, scene, cache.panels[0], "legend " + links, legendRect(scene, size, fm).toAlignedRect().adjusted(-1, -1, 1, 1),
          [&](QPainter &pp) { legend(pp, scene, size); });
    const QByteArray layers = QByteArray::number(p.layerFirst()) + ".." + QByteArray::number(p.layerLast());
    panel(painter, scene, cache.panels[1], "title " + links + ' ' + layers, QRect(0, 0, size.width(), int(12 + fm.height() * 2.6)),
          [&](QPainter &pp) { title(pp, scene, p, size); });
    panel(painter, scene, cache.panels[2], "footer", QRect(0, size.height() - 14 - fm.height(), size.width(), fm.height() + 4),
          [&](QPainter &pp) { layoutLabel(pp, scene, size); });
    axes(painter, scene, p, size);
    painter.restore();
}

double fitExtent(const SliceScene &scene)
{
    // Around each chip centre: its tray, and the wrap edges sticking out of the slice's faces.
    const bool wraps = scene.slice && scene.slice->layout.isValid()
                       && (scene.slice->layout.axisWraps(0) || scene.slice->layout.axisWraps(1) || scene.slice->layout.axisWraps(2));
    return wraps && scene.linksVisible ? SliceProjection::kChipSize / 2 + kWrapStub + 0.08 : 0.55;
}

void background(QPainter &painter, const SliceScene &scene, QSize size)
{
    painter.fillRect(QRect(QPoint(0, 0), size), scene.theme.window);
}

void message(QPainter &painter, const SliceScene &scene, QSize size, const QString &text)
{
    painter.setPen(scene.theme.mutedText);
    painter.setFont(scene.font);
    painter.drawText(QRect(QPoint(0, 0), size).adjusted(24, 24, -24, -24), Qt::AlignCenter | Qt::TextWordWrap, text);
}

void chipsWithSprites(QPainter &painter, const SliceScene &scene, const SliceProjection &p, const SliceDrawOrder &order,
                      SliceSprites &sprites, LabelSprites &labels)
{
    sprites.ensure(p, scene.theme, scene.chips.palette, scene.chips.block, scene.dataVersion, scene.chips.hatched, deviceRatio(painter));
    const auto steps = p.axisSteps();
    const QPointF origin = p.chipCenter(ChipCoord{0, 0, 0});
    const tpu::Dims b = scene.slice->layout.block();
    // Trays are anchored at their top centre, just under the chips of their lowest layer.
    const QPointF trayOffset = steps[0] * ((b.x - 1) / 2.0) + steps[1] * ((b.y - 1) / 2.0)
                               + p.mapVector(QVector3D(0, 0, -p.chipHalfExtents().z() - float(kTrayGap)));
    const QPolygonF outline = p.chipSilhouette();
    const QPen selectionPen(scene.theme.selection, 2.5);
    // Boards are seen from above; from below they would hide every chip, edge-on they are a line.
    const bool trays = p.towardViewer().z() > 0.05;
    const bool links = scene.linksVisible;
    const double room = labelRoom(scene, p);
    QFont labelFont = scene.font;
    labelFont.setPixelSize(std::clamp(int(p.scale() * 0.32), 9, 13));
    painter.setFont(labelFont);
    painter.setRenderHint(QPainter::Antialiasing, false);
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false);

    auto at = [&](const SliceDrawOrder::Item &it) {
        const QPointF c = origin + steps[0] * it.x + steps[1] * it.y + steps[2] * it.z;
        return QPoint(int(std::lround(c.x())), int(std::lround(c.y())));
    };
    for (const SliceDrawOrder::Item &it : order.items()) {
        switch (it.kind) {
        case SliceDrawOrder::Item::Tray: {
            if (!trays)
                break;
            const Sprite &s = sprites.tray(trayKindOf(scene, it.ref));
            const QPointF c = origin + steps[0] * it.x + steps[1] * it.y + steps[2] * it.z + trayOffset;
            painter.drawImage(QPoint(int(std::lround(c.x())), int(std::lround(c.y()))) - s.anchor, s.image);
            break;
        }
        case SliceDrawOrder::Item::Chip: {
            const QPoint c = at(it);
            const SliceChips::Chip &info = scene.chips.chips[size_t(it.ref)];
            // One blit per chip: its link stubs are baked into the sprite (per colour and set of
            // stubs), as a slice has only a few dozen such combinations but thousands of chips.
            const quint16 stubs = links ? quint16(it.stubs & sprites.stubsMask()) : 0;
            const Sprite &s = stubs ? sprites.chipWithStubs(info.palette, stubs) : sprites.chip(info.palette, info.ghost);
            painter.drawImage(c - s.anchor, s.image);
            if (info.idle) {
                painter.setRenderHint(QPainter::Antialiasing, true);
                idleOutline(painter, scene.theme, outline.translated(c));
                painter.setRenderHint(QPainter::Antialiasing, false);
            }
            if (info.host >= 0 && scene.slice->hosts[info.host].workerId == scene.selected) {
                // Outlined right after the chip, so chips in front still cover it.
                painter.setRenderHint(QPainter::Antialiasing, true);
                painter.setPen(selectionPen);
                painter.setBrush(Qt::NoBrush);
                painter.drawPolygon(outline.translated(c));
                painter.setRenderHint(QPainter::Antialiasing, false);
            }
            break;
        }
        case SliceDrawOrder::Item::Label:
            if (room > 0)
                drawHostLabel(painter, scene, p, it, room, &labels);
            break;
        }
    }
}

void chipsWithPolygons(QPainter &painter, const SliceScene &scene, const SliceProjection &p, const SliceDrawOrder &drawOrder)
{
    // The naive baseline when painting to a raster device (everything drawn, nothing cached), and
    // the vector path for SVG (hidden chips still skipped: an SVG is read, not benchmarked).
    const auto steps = p.axisSteps();
    const QPointF origin = p.chipCenter(ChipCoord{0, 0, 0});
    const QVector3D half = p.chipHalfExtents();
    const QList<BoxFace> faces = visibleFaces(p, half);
    const double top = brightestShade(faces);
    const tpu::Dims b = scene.slice->layout.block();
    const QList<BoxFace> trayFaces = visibleFaces(p, QVector3D(float(b.x / 2.0 - kTrayInset), float(b.y / 2.0 - kTrayInset), float(kTrayThickness / 2)),
                                                  QVector3D(float((b.x - 1) / 2.0), float((b.y - 1) / 2.0),
                                                            -half.z() - float(kTrayGap + kTrayThickness / 2)));
    const QPolygonF outline = p.chipSilhouette();
    const bool trays = p.towardViewer().z() > 0.05;
    const QColor board = mix(scene.theme.window, scene.theme.hostOutline, scene.theme.isDark ? 0.22 : 0.38);
    const double room = labelRoom(scene, p);
    QFont labelFont = scene.font;
    labelFont.setPixelSize(std::clamp(int(p.scale() * 0.32), 9, 13));
    painter.setFont(labelFont);
    painter.setRenderHint(QPainter::Antialiasing, true);
    const double edgeWidth = std::clamp(p.scale() / 40, 0.6, 1.4);
    const double lineWidth = std::clamp(p.scale() * 0.05, 1.0, 3.0);
    QPen wrapPen(scene.theme.wrapLink, std::clamp(p.scale() * 0.03, 1.0, 2.0), Qt::SolidLine, Qt::FlatCap);
    wrapPen.setDashPattern({2, 1.5});

    const auto order = p.backToFrontSteps();
    auto stub = [&](QPointF c, int axis, double from, double to, bool wrap) {
        QVector3D unit;
        unit[axis] = float(order[size_t(axis)]);
        const QLineF line(c + p.mapVector(unit * float(from)), c + p.mapVector(unit * float(to)));
        if (line.length() < (wrap ? 3 : 2.5)) // as the sprites: nothing under a couple of pixels
            return;
        painter.setPen(wrap ? wrapPen : QPen(scene.theme.iciLink, lineWidth, Qt::SolidLine, Qt::FlatCap));
        painter.drawLine(line);
    };
    for (const SliceDrawOrder::Item &it : drawOrder.items()) {
        const QPointF c = origin + steps[0] * it.x + steps[1] * it.y + steps[2] * it.z;
        switch (it.kind) {
        case SliceDrawOrder::Item::Tray: {
            if (!trays)
                break;
            const TrayKind kind = trayKindOf(scene, it.ref);
            const QColor fill = kind == TrayDead ? scene.theme.dead : kind == TrayPending ? scene.theme.pending
                                                                  : kind == TraySelected  ? scene.theme.selection
                                                                                          : board;
            for (const BoxFace &f : trayFaces) {
                painter.setBrush(kind == TrayMissing ? QColor(Qt::transparent) : fill.darker(int(100 + (1 - f.shade) * 60)));
                painter.setPen(QPen(kind == TrayNormal ? scene.theme.hostOutline : fill.darker(140), 1.0));
                painter.drawPolygon(f.polygon.translated(c));
            }
            break;
        }
        case SliceDrawOrder::Item::Chip: {
            const SliceChips::Chip &info = scene.chips.chips[size_t(it.ref)];
            const double pitch = 1 + p.explode();
            if (scene.linksVisible)
                for (int axis = 0; axis < 3; ++axis)
                    if ((it.stubs >> SliceDrawOrder::stubShift(axis)) & SliceDrawOrder::BackWrap)
                        stub(c, axis, -half[axis], -(half[axis] + kWrapStub), true);
            const QColor colour = scene.chips.palette[info.palette];
            for (const BoxFace &f : faces) {
                const double shade = f.shade / top;
                QColor fill = QColor::fromRgbF(float(colour.redF() * shade), float(colour.greenF() * shade), float(colour.blueF() * shade),
                                               info.ghost ? 0.18f : 1.0f);
                painter.setBrush(fill);
                QPen pen(QColor::fromRgbF(float(fill.redF() * 0.62), float(fill.greenF() * 0.62), float(fill.blueF() * 0.62)), edgeWidth);
                if (info.ghost)
                    pen.setStyle(Qt::DashLine);
                painter.setPen(pen);
                painter.drawPolygon(f.polygon.translated(c));
                if (!info.ghost && scene.chips.hatched.value(info.palette)) {
                    painter.setBrush(QBrush(scene.theme.unknownHatch, Qt::BDiagPattern));
                    painter.setPen(Qt::NoPen);
                    painter.drawPolygon(f.polygon.translated(c));
                }
            }
            if (info.idle)
                idleOutline(painter, scene.theme, outline.translated(c));
            if (info.host >= 0 && scene.slice->hosts[info.host].workerId == scene.selected) {
                painter.setPen(QPen(scene.theme.selection, 2.5));
                painter.setBrush(Qt::NoBrush);
                painter.drawPolygon(outline.translated(c));
            }
            if (scene.linksVisible)
                for (int axis = 0; axis < 3; ++axis) {
                    const int bits = it.stubs >> SliceDrawOrder::stubShift(axis);
                    if (bits & SliceDrawOrder::FrontLink)
                        stub(c, axis, half[axis], (axis == 2 ? pitch : 1.0) - half[axis], false);
                    if (bits & SliceDrawOrder::FrontWrap)
                        stub(c, axis, half[axis], half[axis] + kWrapStub, true);
                }
            break;
        }
        case SliceDrawOrder::Item::Label:
            if (room > 0)
                drawHostLabel(painter, scene, p, it, room, nullptr);
            break;
        }
    }
}

void sliceFrame(QPainter &painter, const SliceScene &scene, const SliceProjection &p)
{
    // With only some layers shown, a faint outline of the whole slice keeps them in context.
    if (p.isFullLayerRange())
        return;
    SliceProjection whole = p;
    whole.setLayerRange(0, p.dims().z - 1);
    const tpu::Dims d = p.dims();
    const float e = 0.5f;
    const QVector3D lo = whole.worldPosition(ChipCoord{0, 0, 0}) - QVector3D(e, e, e);
    const QVector3D hi = whole.worldPosition(ChipCoord{d.x - 1, d.y - 1, d.z - 1}) + QVector3D(e, e, e);
    std::array<QPointF, 8> c;
    for (int i = 0; i < 8; ++i)
        c[size_t(i)] = p.map(QVector3D(i & 1 ? hi.x() : lo.x(), i & 2 ? hi.y() : lo.y(), i & 4 ? hi.z() : lo.z()));
    QColor colour = scene.theme.mutedText;
    colour.setAlpha(150);
    QPen pen(colour, 1, Qt::DotLine);
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setPen(pen);
    for (int i = 0; i < 8; ++i)
        for (int bit = 1; bit < 8; bit <<= 1)
            if (!(i & bit))
                painter.drawLine(c[size_t(i)], c[size_t(i | bit)]);
}

void highlights(QPainter &painter, const SliceScene &scene, const SliceProjection &p)
{
    if (scene.highlighted.isEmpty())
        return;
    painter.setRenderHint(QPainter::Antialiasing, true);
    QColor fill = scene.theme.ready;
    fill.setAlpha(50);
    QPen pen(scene.theme.ready, 2, Qt::DashLine);
    painter.setPen(pen);
    painter.setBrush(fill);
    for (int w : scene.highlighted)
        if (w >= 0 && size_t(w) < scene.chips.hostOfWorker.size() && scene.chips.hostOfWorker[size_t(w)] >= 0)
            painter.drawPolygon(hostOutline(scene, p, scene.chips.hostOfWorker[size_t(w)]));
}

void selection(QPainter &painter, const SliceScene &scene, const SliceProjection &p, const SliceDrawOrder *shown)
{
    if (scene.selected < 0 || size_t(scene.selected) >= scene.chips.hostOfWorker.size() || scene.chips.hostOfWorker[size_t(scene.selected)] < 0)
        return;
    // Its chips were outlined in depth order. A host buried inside a solid slice has none on
    // screen: then a dashed box drawn over everything still says where it is.
    const int hostIndex = scene.chips.hostOfWorker[size_t(scene.selected)];
    const tpu::SliceLayout &layout = scene.slice->layout;
    for (int i = 0; i < layout.chipsPerHost(); ++i) {
        const ChipCoord c = layout.chipPosition(scene.selected, i);
        if (p.isVisible(c) && (!shown || shown->drawn()[size_t(scene.chips.indexOf(c))]))
            return;
    }
    const QPolygonF outline = hostOutline(scene, p, hostIndex);
    if (outline.isEmpty())
        return;
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setBrush(Qt::NoBrush);
    painter.setPen(QPen(scene.theme.selection, 2, Qt::DashLine));
    painter.drawPolygon(outline);
}

void hover(QPainter &painter, const SliceScene &scene, const SliceProjection &p)
{
    if (!scene.hovered || !p.isVisible(*scene.hovered))
        return;
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setBrush(Qt::NoBrush);
    painter.setPen(QPen(scene.theme.hover, 2));
    painter.drawPolygon(p.chipOutline(*scene.hovered));
}

void idleOutline(QPainter &painter, const Theme &theme, const QPolygonF &silhouette)
{
    painter.setBrush(Qt::NoBrush);
    painter.setPen(QPen(theme.idleHalo, 4.5, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    painter.drawPolygon(silhouette);
    painter.setPen(QPen(theme.idleOutline, 2.2, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    painter.drawPolygon(silhouette);
}

void axes(QPainter &painter, const SliceScene &scene, const SliceProjection &p, QSize size)
{
    const QFontMetrics fm(scene.font);
    const double baseline = size.height() - 12 - fm.height();

    // An axis gizmo, so the "x, y, z" of tooltips can be found on screen. Foreshortened like
    // the slice: an axis pointing at the viewer is short.
    const QPointF centre(40, baseline - 40);
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setFont(scene.font);
    const char *names[3] = {"x", "y", "z"};
    for (int axis = 0; axis < 3; ++axis) {
        QVector3D v;
        v[axis] = 1;
        const QPointF d = p.mapVector(v) / p.scale() * 26; // unit length on screen: 26 px
        const double len = std::hypot(d.x(), d.y());
        painter.setPen(QPen(scene.theme.mutedText, 1.5, Qt::SolidLine, Qt::RoundCap));
        if (len > 1)
            painter.drawLine(centre, centre + d);
        painter.setPen(scene.theme.text);
        const QPointF tip = len > 1 ? centre + d * ((len + 9) / len) : centre + QPointF(-9, 9);
        painter.drawText(QRectF(tip.x() - 8, tip.y() - 8, 16, 16), Qt::AlignCenter, QLatin1String(names[axis]));
    }
}

} // namespace slicepaint

} // namespace slicescope
