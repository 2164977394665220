// SPDX-License-Identifier: GPL-3.0-or-later
#include "slicesprites.h"

#include "slicedraworder.h"

#include <algorithm>
#include <cmath>

namespace slicescope {

namespace {

// Tints a grey template: every channel times the colour, alpha kept. Far cheaper than painting
// the cube again per colour, so rotating with many colours (worker mode) stays smooth.
QImage colourize(const QImage &grey, QColor colour)
{
    QImage out(grey.size(), grey.format());
    out.setDevicePixelRatio(grey.devicePixelRatio());
    const QRgb c = colour.rgba();
    const quint32 ca = qAlpha(c);
    // Premultiply the colour once; a template pixel's grey level already carries its alpha.
    const quint32 r = qRed(c) * ca / 255, g = qGreen(c) * ca / 255, b = qBlue(c) * ca / 255;
    for (int y = 0; y < grey.height(); ++y) {
        const auto *src = reinterpret_cast<const quint32 *>(grey.constScanLine(y));
        auto *dst = reinterpret_cast<quint32 *>(out.scanLine(y));
        for (int x = 0; x < grey.width(); ++x) {
            const quint32 px = src[x];
            const quint32 a = (px >> 24) * ca / 255;
            const quint32 v = px & 0xff;
            dst[x] = (a << 24) | ((v * r / 255) << 16) | ((v * g / 255) << 8) | (v * b / 255);
        }
    }
    return out;
}

// Corners of a box are numbered i = (x bit 0, y bit 1, z bit 2); faces list their corners in order.
constexpr int kFaceCorners[6][4] = {
    {0, 2, 6, 4},
    {1, 3, 7, 5}, // -x, +x
    {0, 1, 5, 4},
    {2, 3, 7, 6}, // -y, +y
    {0, 1, 3, 2},
    {4, 5, 7, 6}, // -z, +z
};

// Brightness of a face with outward normal n: a fixed light above, left of and in front of the
// camera, so the top reads brightest and the two sides stay distinguishable at every angle.
double faceShade(const SliceProjection &p, const QVector3D &n)
{
    const QPointF screen = p.mapVector(n) / p.scale(); // (right, -up)
    const double towards = double(QVector3D::dotProduct(p.towardViewer(), n));
    const double lx = -0.35, ly = 0.80, lz = 0.49; // right, up, towards: roughly unit length
    const double lit = std::max(0.0, screen.x() * lx - screen.y() * ly + towards * lz);
    return std::min(1.0, 0.58 + 0.44 * lit);
}

} // namespace

void hatchPainted(QPainter &painter, const QRect &area, const QColor &colour, double pitch)
{
    painter.save();
    painter.setCompositionMode(QPainter::CompositionMode_SourceAtop);
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setPen(QPen(colour, std::max(1.0, pitch * 0.22), Qt::SolidLine, Qt::FlatCap));
    const double span = area.width() + area.height();
    for (double x = area.left() - area.height(); x < area.left() + span; x += pitch)
        painter.drawLine(QPointF(x, area.bottom() + 1), QPointF(x + area.height() + 1, area.top()));
    painter.restore();
}

QList<BoxFace> visibleFaces(const SliceProjection &p, const QVector3D &h, const QVector3D &offset)
{
    std::array<QPointF, 8> corner;
    for (int i = 0; i < 8; ++i)
        corner[size_t(i)] = p.mapVector(offset + QVector3D(i & 1 ? h.x() : -h.x(), i & 2 ? h.y() : -h.y(), i & 4 ? h.z() : -h.z()));
    QList<BoxFace> faces;
    for (int f = 0; f < 6; ++f) {
        const int axis = f / 2, sign = f % 2 ? 1 : -1;
        if (!p.faceVisible(axis, sign))
            continue;
        QVector3D n;
        n[axis] = float(sign);
        BoxFace face;
        for (int k = 0; k < 4; ++k)
            face.polygon << corner[size_t(kFaceCorners[f][k])];
        face.shade = faceShade(p, n);
        faces.append(face);
    }
    return faces;
}

QRectF boundsOf(const QList<BoxFace> &faces)
{
    QRectF r;
    for (const BoxFace &f : faces)
        r = r.united(f.polygon.boundingRect());
    return r;
}

double brightestShade(const QList<BoxFace> &faces)
{
    double top = 0;
    for (const BoxFace &f : faces)
        top = std::max(top, f.shade);
    return top;
}

void SliceSprites::ensure(const SliceProjection &p, const Theme &theme, const QList<QColor> &palette, tpu::Dims block, quint64 dataVersion,
                          const QList<bool> &hatched, qreal dpr)
{
    const Key key{p.yaw(), p.pitch(), p.scale(), p.explode(), p.chipHeight(), dpr, theme.iciLink.rgba(), theme.wrapLink.rgba(),
                  theme.hostOutline.rgba(), theme.window.rgba(), theme.selection.rgba(), theme.dead.rgba(),
                  theme.pending.rgba(), block, dataVersion};
    if (key == m_key && !m_chipTemplate.isNull())
        return;
    m_key = key;
    m_dpr = dpr;
    m_palette = palette;
    m_hatched = hatched;
    m_hatchColour = theme.unknownHatch;
    const double s = p.scale();
    m_hatchPitch = std::clamp(s * 0.11, 4.0, 9.0);

    // The chip, in grey: top full brightness so the top shows exactly the chip's colour.
    const QList<BoxFace> faces = visibleFaces(p, p.chipHalfExtents());
    const double top = brightestShade(faces);
    const double edgeWidth = std::clamp(s / 40, 0.6, 1.4);
    Sprite chip = renderSprite(m_dpr, boundsOf(faces), [&](QPainter &painter) {
        for (const BoxFace &f : faces) {
            const int grey = int(255 * f.shade / top + 0.5);
            painter.setBrush(QColor(grey, grey, grey));
            painter.setPen(QPen(QColor(grey * 62 / 100, grey * 62 / 100, grey * 62 / 100), edgeWidth));
            painter.drawPolygon(f.polygon);
        }
    });
    m_chipTemplate = chip.image;
    m_chipAnchor = chip.anchor;
    // A ghost (MISSING host): a faint body and a dashed outline, so what is behind shows through.
    Sprite ghost = renderSprite(m_dpr, boundsOf(faces), [&](QPainter &painter) {
        for (const BoxFace &f : faces) {
            const int grey = int(255 * f.shade / top + 0.5);
            painter.setBrush(QColor(grey, grey, grey, 46));
            QPen pen(QColor(200, 200, 200, 235), std::max(1.0, edgeWidth));
            pen.setDashPattern({3, 2});
            painter.setPen(pen);
            painter.drawPolygon(f.polygon);
        }
    });
    m_ghostTemplate = ghost.image;
    m_ghostAnchor = ghost.anchor;
    m_chipSprites.assign(size_t(palette.size()), Sprite{});
    m_ghostSprites.assign(size_t(palette.size()), Sprite{});
    m_chipsWithStubs.assign(size_t(palette.size()) * 512, Sprite{});
    buildStubs(p, theme);
    buildTrays(p, theme, block);
}

void SliceSprites::buildStubs(const SliceProjection &p, const Theme &theme)
{
    // Link stubs per axis: a link spans the gap to the neighbour nearer the viewer; a wrap edge
    // sticks out of the slice's face, dashed and in the wrap colour, ending in a ring.
    const double s = p.scale();
    const QVector3D half = p.chipHalfExtents();
    const auto steps = p.backToFrontSteps();
    const double lineWidth = std::clamp(s * 0.05, 1.0, 3.0);
    const double wrapWidth = std::clamp(s * 0.03, 1.0, 2.0);
    std::array<bool, 3> stubsShown{}, wrapsShown{};
    for (int axis = 0; axis < 3; ++axis) {
        QVector3D unit;
        unit[axis] = float(steps[axis]);
        const double pitch = axis == 2 ? 1 + p.explode() : 1.0;
        const float h = half[axis];
        const QPointF a = p.mapVector(unit * h);
        const QPointF b = p.mapVector(unit * float(pitch - h));
        // Nothing under a pixel: a gap a couple of pixels long shows no link.
        stubsShown[size_t(axis)] = QLineF(a, b).length() >= 2.5;
        // A wrap edge pointing at the viewer would be a ring over the chip's middle: skip it.
        wrapsShown[size_t(axis)] = QLineF(p.mapVector(unit * h), p.mapVector(unit * float(h + kWrapStub))).length() >= 3;
        m_frontLink[size_t(axis)] = renderSprite(m_dpr, QRectF(a, b).normalized().adjusted(-lineWidth, -lineWidth, lineWidth, lineWidth), [&](QPainter &painter) {
            painter.setPen(QPen(theme.iciLink, lineWidth, Qt::SolidLine, Qt::FlatCap));
            painter.drawLine(a, b);
        });
        auto wrapStub = [&](float direction) {
            // Short, thin and dashed: a 16x16x16 torus has 1536 of them and they must not drown
            // the chips; the small open end says "continues on the far side".
            const QPointF from = p.mapVector(unit * h * direction);
            const QPointF to = p.mapVector(unit * float(h + kWrapStub) * direction);
            const double ring = std::max(1.2, wrapWidth);
            return renderSprite(m_dpr, QRectF(from, to).normalized().adjusted(-ring - 1, -ring - 1, ring + 1, ring + 1), [&](QPainter &painter) {
                QPen pen(theme.wrapLink, wrapWidth, Qt::SolidLine, Qt::FlatCap);
                pen.setDashPattern({2, 1.5});
                painter.setPen(pen);
                painter.drawLine(from, to);
                painter.setPen(QPen(theme.wrapLink, 1.0));
                painter.setBrush(Qt::NoBrush);
                painter.drawEllipse(to, ring, ring);
            });
        };
        m_frontWrap[size_t(axis)] = wrapStub(1);
        m_backWrap[size_t(axis)] = wrapStub(-1);
    }
    using Order = SliceDrawOrder;
    m_stubsMask = 0;
    for (int axis = 0; axis < 3; ++axis)
        m_stubsMask |= quint16(((stubsShown[size_t(axis)] ? Order::FrontLink : 0) | (wrapsShown[size_t(axis)] ? Order::FrontWrap | Order::BackWrap : 0)) << Order::stubShift(axis));
}

void SliceSprites::buildTrays(const SliceProjection &p, const Theme &theme, tpu::Dims b)
{
    // Trays: the board each host's chips sit on, its colour saying what is wrong with the host.
    const QVector3D trayHalf(float(b.x / 2.0 - kTrayInset), float(b.y / 2.0 - kTrayInset), float(kTrayThickness / 2));
    const QVector3D centre(0, 0, float(-kTrayThickness / 2)); // the anchor is the tray's top centre
    const QList<BoxFace> trayFaces = visibleFaces(p, trayHalf, centre);
    const QColor board = mix(theme.window, theme.hostOutline, theme.isDark ? 0.22 : 0.38);
    auto tray = [&](const QColor &fill, const QColor &edge, bool dashed) {
        return renderSprite(m_dpr, boundsOf(trayFaces), [&](QPainter &painter) {
            for (const BoxFace &f : trayFaces) {
                QColor c = fill;
                if (c.alpha() == 255)
                    c = c.darker(int(100 + (1 - f.shade) * 60));
                painter.setBrush(c);
                QPen pen(edge, 1.0);
                if (dashed)
                    pen.setDashPattern({3, 2});
                painter.setPen(pen);
                painter.drawPolygon(f.polygon);
            }
        });
    };
    QColor edge = theme.hostOutline;
    edge.setAlpha(150);
    m_trays[TrayNormal] = tray(board, edge, false);
    m_trays[TrayDead] = tray(theme.dead, theme.dead.darker(140), false);
    m_trays[TrayPending] = tray(theme.pending, theme.pending.darker(140), false);
    QColor ghostFill = theme.absentChip;
    ghostFill.setAlpha(40);
    m_trays[TrayMissing] = tray(ghostFill, theme.absentChip.darker(120), true);
    m_trays[TraySelected] = tray(theme.selection, theme.selection.darker(140), false);
}

const Sprite &SliceSprites::chip(int paletteIndex, bool ghost)
{
    std::vector<Sprite> &cache = ghost ? m_ghostSprites : m_chipSprites;
    if (size_t(paletteIndex) >= cache.size())
        cache.resize(size_t(m_palette.size()));
    Sprite &s = cache[size_t(paletteIndex)];
    if (s.isNull()) {
        s.image = colourize(ghost ? m_ghostTemplate : m_chipTemplate, m_palette[paletteIndex]);
        s.anchor = ghost ? m_ghostAnchor : m_chipAnchor;
        if (!ghost && m_hatched.value(paletteIndex)) {
            QPainter painter(&s.image);
            hatchPainted(painter, QRect(QPoint(0, 0), logicalSize(s.image)), m_hatchColour, m_hatchPitch);
        }
    }
    return s;
}

const Sprite &SliceSprites::chipWithStubs(int paletteIndex, quint16 stubs)
{
    const size_t slot = size_t(paletteIndex) * 512 + stubs;
    if (slot >= m_chipsWithStubs.size())
        m_chipsWithStubs.resize(size_t(m_palette.size()) * 512);
    Sprite &s = m_chipsWithStubs[slot];
    if (!s.isNull())
        return s;
    const Sprite &body = chip(paletteIndex, false);
    // Everything relative to the chip centre; the union of the parts is the sprite.
    QRect bounds(-body.anchor, logicalSize(body.image));
    auto each = [&](auto &&use) {
        for (int axis = 0; axis < 3; ++axis) {
            const int bits = stubs >> SliceDrawOrder::stubShift(axis);
            if (bits & SliceDrawOrder::BackWrap)
                use(m_backWrap[size_t(axis)], true);
            if (bits & SliceDrawOrder::FrontLink)
                use(m_frontLink[size_t(axis)], false);
            if (bits & SliceDrawOrder::FrontWrap)
                use(m_frontWrap[size_t(axis)], false);
        }
    };
    each([&](const Sprite &part, bool) { bounds |= QRect(-part.anchor, logicalSize(part.image)); });
    s.image = transparentImage(bounds.size(), m_dpr);
    s.anchor = -bounds.topLeft();
    QPainter painter(&s.image);
    painter.translate(s.anchor);
    // Wrap edges leaving the far faces go behind the chip, the rest in front, as if drawn one by one.
    each([&](const Sprite &part, bool behind) {
        if (behind)
            painter.drawImage(-part.anchor, part.image);
    });
    painter.drawImage(-body.anchor, body.image);
    each([&](const Sprite &part, bool behind) {
        if (!behind)
            painter.drawImage(-part.anchor, part.image);
    });
    return s;
}

} // namespace slicescope
