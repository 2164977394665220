// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The geometry of the slice view as a plain value, shared by painting, tooltips and mouse
// handling so the three can never disagree about where a chip is (docs/style.md 10).
//
// Conventions. World space is measured in chip pitches, with the layout's own axes (docs/facts.md 3):
// x to the right, y away from the viewer, z up. Chip (x, y, z) of an X x Y x Z slice is a box
// kChipSize wide and deep and chipHeight() tall (a cube unless set otherwise) centred at
//     ( x - (X-1)/2,  y - (Y-1)/2,  (z - (Z-1)/2) * (1 + explode) ),
// so the slice sits on the origin and "explode" opens gaps of `explode` pitches between z-layers
// without moving the layers' centre. The camera is orthographic: yaw turns the slice about z
// (positive yaw turns it counter-clockwise seen from above), pitch raises the camera (0 looks
// horizontally along +y: the front view; 90 looks straight down: the top view; negative pitch
// looks from below). A world point p maps to
//     screen = viewport centre + pan + scale * (u(p), -v(p))
// where u is the camera's right and v its up, both in world units, and scale is pixels per pitch.
// Depth grows towards the viewer. Chip positions come from tpu::SliceLayout; this type only knows
// the grid, never which host owns which chip.

#include "tpu.h"

#include <QPointF>
#include <QPolygonF>
#include <QRectF>
#include <QSize>
#include <QVector3D>

#include <array>
#include <functional>
#include <optional>

class QDebug;

namespace slicescope {

class SliceProjection
{
public:
    enum class Preset
    {
        Isometric, // yaw -45, pitch atan(1/sqrt 2): x runs right and down, y right and up, z up
        Top,       // looking down z: x right, y up
        Front,     // looking along +y: x right, z up
    };

    static constexpr double kChipSize = 0.74; // chip width and depth, in pitches: the rest is the gap links cross
    static constexpr double kMinScale = 2;    // pixels per pitch
    static constexpr double kMaxScale = 400;

    SliceProjection() = default;
    explicit SliceProjection(tpu::Dims dims);

    // The grid. Setting different dims shows every layer again.
    tpu::Dims dims() const { return m_dims; }
    void setDims(tpu::Dims dims);
    int chipCount() const { return m_dims.volume(); }

    // Camera, in degrees. Yaw is kept in (-180, 180], pitch clamped to [-90, 90].
    double yaw() const { return m_yaw; }
    double pitch() const { return m_pitch; }
    void setRotation(double yawDegrees, double pitchDegrees);
    void rotateBy(double yawDegrees, double pitchDegrees) { setRotation(m_yaw + yawDegrees, m_pitch + pitchDegrees); }
    void applyPreset(Preset preset); // rotation only; call fit() afterwards to frame the slice
    static std::pair<double, double> presetRotation(Preset preset); // {yaw, pitch}

    double scale() const { return m_scale; } // pixels per chip pitch, clamped to [kMinScale, kMaxScale]
    void setScale(double pixelsPerPitch);
    QPointF pan() const { return m_pan; }    // offset of the slice centre from the viewport centre
    void setPan(QPointF pan) { m_pan = pan; }
    QSize viewport() const { return m_viewport; }
    void setViewport(QSize size) { m_viewport = size; }
    // Zooms by `factor` keeping the world point under `screenPoint` where it is.
    void zoomAbout(QPointF screenPoint, double factor);

    // How tall a chip is, in pitches (default kChipSize: a cube). Flat tiles read better when a
    // slice has one layer.
    double chipHeight() const { return m_chipHeight; }
    void setChipHeight(double height);
    QVector3D chipHalfExtents() const;

    // Interior visibility.
    double explode() const { return m_explode; } // extra pitches between z-layers, >= 0
    void setExplode(double gap);
    int layerFirst() const { return m_layerFirst; }
    int layerLast() const { return m_layerLast; }
    void setLayerRange(int first, int last);     // clamped to the grid; first <= last
    bool isFullLayerRange() const { return m_layerFirst == 0 && m_layerLast == m_dims.z - 1; }
    bool isVisible(tpu::ChipCoord c) const;      // inside the grid and the layer range

    // Frames the visible chips inside `area` (default: the viewport less a small margin),
    // centring them. `halfExtent` is how far around each chip centre must stay inside, in pitches.
    void fit(QRectF area = {}, double halfExtent = 0.62, double maxScale = 160);
    // The screen rectangle the visible chips cover, each taken as a cube of half edge `halfExtent`.
    QRectF boundingRect(double halfExtent = kChipSize / 2) const;

    // World -> screen.
    QVector3D worldPosition(tpu::ChipCoord c) const;
    QPointF map(const QVector3D &world) const;
    QPointF chipCenter(tpu::ChipCoord c) const { return map(worldPosition(c)); }
    // Screen offset of one step along each grid axis (z includes the explode gap).
    std::array<QPointF, 3> axisSteps() const;
    // Screen offset of a world-space vector (no pan, no viewport centre).
    QPointF mapVector(const QVector3D &v) const;
    double depth(const QVector3D &world) const; // larger is nearer the viewer
    QVector3D towardViewer() const;             // unit vector, world space

    // The 8 corners of chip c's box, corner i = (i&1 ? +x : -x, i&2 ? +y : -y, i&4 ? +z : -z).
    std::array<QPointF, 8> chipCorners(tpu::ChipCoord c) const;
    // The outline of an axis-aligned box with these half extents centred on the screen origin:
    // a convex hexagon (a rectangle in axis-aligned views).
    QPolygonF boxSilhouette(const QVector3D &halfExtents) const;
    QPolygonF chipSilhouette() const { return boxSilhouette(chipHalfExtents()); }
    QPolygonF chipOutline(tpu::ChipCoord c) const { return chipSilhouette().translated(chipCenter(c)); }
    // Whether the face of a cube whose outward normal is +axis (sign > 0) or -axis faces the viewer.
    bool faceVisible(int axis, int sign) const;

    // Painter's order. For axis-aligned boxes on a grid, A can hide B only if A is at least as
    // near the viewer along every axis, so walking z, then y, then x (outermost first), each from
    // its far end to its near end, draws every chip after all chips it can hide. The direction
    // along each axis depends only on the rotation: +1 walks increasing coordinates.
    std::array<int, 3> backToFrontSteps() const;
    // Every visible chip in that order.
    QList<tpu::ChipCoord> depthOrder() const;

    // The front-most visible chip whose box covers `screenPoint`, among those `accept` allows
    // (default: all visible chips); nullopt over empty space.
    using ChipFilter = std::function<bool(tpu::ChipCoord)>;
    std::optional<tpu::ChipCoord> hitTest(QPointF screenPoint, const ChipFilter &accept = {}) const;

    friend bool operator==(const SliceProjection &, const SliceProjection &) = default;

private:
    struct Basis {
        QVector3D right, up, toward; // camera axes in world space
    };
    Basis basis() const;
    double layerPitch() const { return 1.0 + m_explode; }

    tpu::Dims m_dims;
    double m_yaw = -45;
    double m_pitch = 35.26438968; // atan(1/sqrt(2)): the true isometric elevation
    double m_scale = 20;
    QPointF m_pan;
    QSize m_viewport;
    double m_explode = 0;
    double m_chipHeight = kChipSize;
    int m_layerFirst = 0;
    int m_layerLast = 0;
};

QDebug operator<<(QDebug debug, const SliceProjection &projection);

} // namespace slicescope
