// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The slice view's sprite cache: every chip, ghost, link stub and host tray pre-rendered once per
// camera orientation, zoom and theme, so a frame is a walk of blits (slicepaint.h); also the
// caches of host labels and text panels, and the shaded faces of a box both paths draw.
//
// A sprite is a small premultiplied image plus the pixel (anchor) where the thing it shows is
// centred. Blitting at integer positions keeps QPainter on its untransformed blend path; the
// price is at most half a pixel of placement error, invisible at any zoom.

#include "look.h"
#include "sliceprojection.h"

#include <QByteArray>
#include <QImage>

#include <cmath>
#include <QList>
#include <QPainter>
#include <QPolygonF>

#include <array>
#include <vector>

namespace slicescope {

// Sizes of what is drawn around chips, in pitches.
constexpr double kTrayInset = 0.03; // between a tray's edge and its cell boundary
constexpr double kTrayGap = 0.03;   // between a chip's bottom and its tray's top
constexpr double kTrayThickness = 0.06;
constexpr double kWrapStub = 0.30; // how far a wrap edge sticks out

struct Sprite {
    QImage image;
    QPoint anchor;
    bool isNull() const { return image.isNull(); }
};

// Lays a diagonal hatch (lines rising to the right, `pitch` pixels apart) over what `painter`
// has painted so far, only where it painted (its device must have an alpha channel).
void hatchPainted(QPainter &painter, const QRect &area, const QColor &colour, double pitch);

// The size of `image` in device-independent pixels (what it covers when drawn), rounded up.
inline QSize logicalSize(const QImage &image)
{
    const QSizeF size = image.deviceIndependentSize();
    return QSize(int(std::ceil(size.width() - 1e-6)), int(std::ceil(size.height() - 1e-6)));
}

// A transparent image covering `logical` device-independent pixels at `dpr` device pixels each.
inline QImage transparentImage(QSize logical, qreal dpr)
{
    QImage image(int(std::ceil(logical.width() * dpr)), int(std::ceil(logical.height() * dpr)), QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(dpr);
    image.fill(Qt::transparent);
    return image;
}

// Paints `paint` (in coordinates centred on the anchor, device-independent pixels) into a sprite
// covering `bounds`, at `dpr` device pixels per pixel: on a HiDPI screen sprites are drawn at the
// screen's resolution, never scaled up from a low-resolution image.
template<typename Paint>
Sprite renderSprite(qreal dpr, const QRectF &bounds, Paint &&paint)
{
    const QRect r = bounds.adjusted(-2, -2, 2, 2).toAlignedRect();
    Sprite s;
    s.image = transparentImage(r.size().expandedTo(QSize(1, 1)), dpr);
    s.anchor = -r.topLeft();
    QPainter p(&s.image);
    p.setRenderHint(QPainter::Antialiasing);
    p.translate(s.anchor);
    paint(p);
    return s;
}

// The faces of a box (half sizes h, centred at `offset` from the screen origin) that face the
// viewer, each with its brightness under the view's fixed light.
struct BoxFace {
    QPolygonF polygon;
    double shade = 1;
};
QList<BoxFace> visibleFaces(const SliceProjection &p, const QVector3D &h, const QVector3D &offset = {});
QRectF boundsOf(const QList<BoxFace> &faces);
// The brightest shade among `faces` (the top, seen from above): chip colours are scaled by it.
double brightestShade(const QList<BoxFace> &faces);

// A host's tray, by what it says about the host.
enum TrayKind
{
    TrayNormal,
    TrayDead,
    TrayPending,
    TrayMissing,
    TraySelected,
    TrayKinds
};

class SliceSprites
{
public:
    // Rebuilds the templates, stubs and trays when anything they depend on changed (orientation,
    // zoom, explode, chip height, theme, host block, data); colour sprites are then made on first
    // use from `palette`, hatched (theme.unknownHatch) where `hatched` says so.
    void ensure(const SliceProjection &p, const Theme &theme, const QList<QColor> &palette, tpu::Dims block, quint64 dataVersion,
                const QList<bool> &hatched = {}, qreal dpr = 1);

    const Sprite &chip(int paletteIndex, bool ghost);
    // A chip with its link stubs (SliceDrawOrder::StubBit per axis) baked in.
    const Sprite &chipWithStubs(int paletteIndex, quint16 stubs);
    const Sprite &tray(TrayKind kind) const { return m_trays[kind]; }
    // The stub bits long enough to show at this zoom, all axes.
    quint16 stubsMask() const { return m_stubsMask; }

private:
    struct Key {
        double yaw = 0, pitch = 0, scale = 0, explode = 0, chipHeight = 0, dpr = 1;
        QRgb link = 0, wrap = 0, outline = 0, window = 0, selection = 0, dead = 0, pending = 0;
        tpu::Dims block;
        quint64 dataVersion = 0;
        bool operator==(const Key &) const = default;
    };
    void buildStubs(const SliceProjection &p, const Theme &theme);
    void buildTrays(const SliceProjection &p, const Theme &theme, tpu::Dims block);

    Key m_key;
    QList<QColor> m_palette;
    QList<bool> m_hatched;
    QColor m_hatchColour;
    double m_hatchPitch = 6;
    qreal m_dpr = 1;
    QImage m_chipTemplate, m_ghostTemplate;
    QPoint m_chipAnchor, m_ghostAnchor;
    std::vector<Sprite> m_chipSprites, m_ghostSprites; // by palette index, built on first use
    std::array<Sprite, 3> m_frontLink, m_frontWrap, m_backWrap;
    quint16 m_stubsMask = 0;
    std::vector<Sprite> m_chipsWithStubs; // by palette index * 512 + stub bits, built on first use
    std::array<Sprite, TrayKinds> m_trays;
};

// Host labels rendered once per text, by host index; dropped when `key` (font, data) changes.
struct LabelSprites {
    struct Label {
        QString text;
        Sprite sprite;
    };
    QByteArray key;
    std::vector<Label> labels;
};

// A text panel (legend, title, footer) rendered once and blitted: shaping text is the costliest
// thing per pixel a frame would otherwise do. Rebuilt when its key changes.
struct PanelImage {
    QByteArray key;
    QImage image;
    QPoint at;
};

} // namespace slicescope
