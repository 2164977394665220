// SPDX-License-Identifier: GPL-3.0-or-later
#include "sliceprojection.h"

#include <QDebug>
#include <QtMath>

#include <algorithm>
#include <cmath>

namespace slicescope {

using tpu::ChipCoord;

namespace {

constexpr double kIsometricPitch = 35.26438968275465; // atan(1/sqrt(2)) in degrees

double cross(QPointF o, QPointF a, QPointF b)
{
    return (a.x() - o.x()) * (b.y() - o.y()) - (a.y() - o.y()) * (b.x() - o.x());
}

// Andrew's monotone chain; collinear and repeated points dropped, so axis-aligned views give a
// rectangle rather than a degenerate hexagon.
QPolygonF convexHull(std::array<QPointF, 8> p)
{
    std::sort(p.begin(), p.end(), [](QPointF a, QPointF b) { return a.x() < b.x() || (a.x() == b.x() && a.y() < b.y()); });
    constexpr double kEps = 1e-9;
    QPolygonF hull;
    hull.reserve(16);
    for (int pass = 0; pass < 2; ++pass) {
        const qsizetype start = hull.size();
        for (int k = 0; k < 8; ++k) {
            const QPointF pt = pass == 0 ? p[size_t(k)] : p[size_t(7 - k)];
            while (hull.size() >= start + 2 && cross(hull[hull.size() - 2], hull[hull.size() - 1], pt) <= kEps)
                hull.removeLast();
            hull.append(pt);
        }
        hull.removeLast(); // the last point of each chain starts the other
    }
    return hull;
}

} // namespace

SliceProjection::SliceProjection(tpu::Dims dims)
{
    setDims(dims);
}

void SliceProjection::setDims(tpu::Dims dims)
{
    dims.x = std::max(1, dims.x);
    dims.y = std::max(1, dims.y);
    dims.z = std::max(1, dims.z);
    if (dims == m_dims && m_layerLast < dims.z)
        return;
    m_dims = dims;
    m_layerFirst = 0;
    m_layerLast = dims.z - 1;
}

void SliceProjection::setRotation(double yawDegrees, double pitchDegrees)
{
    // Keep yaw in (-180, 180] so equal views compare equal whichever way the user turned.
    double yaw = std::fmod(yawDegrees, 360.0);
    if (yaw <= -180)
        yaw += 360;
    else if (yaw > 180)
        yaw -= 360;
    m_yaw = yaw;
    m_pitch = std::clamp(pitchDegrees, -90.0, 90.0);
}

std::pair<double, double> SliceProjection::presetRotation(Preset preset)
{
    switch (preset) {
    case Preset::Isometric: return {-45.0, kIsometricPitch};
    case Preset::Top: return {0.0, 90.0};
    case Preset::Front: return {0.0, 0.0};
    }
    Q_UNREACHABLE();
}

void SliceProjection::applyPreset(Preset preset)
{
    const auto [yaw, pitch] = presetRotation(preset);
    setRotation(yaw, pitch);
}

void SliceProjection::setScale(double pixelsPerPitch)
{
    m_scale = std::clamp(pixelsPerPitch, kMinScale, kMaxScale);
}

void SliceProjection::zoomAbout(QPointF screenPoint, double factor)
{
    const QPointF centre(m_viewport.width() / 2.0, m_viewport.height() / 2.0);
    const QPointF inPlane = (screenPoint - centre - m_pan) / m_scale;
    setScale(m_scale * factor);
    m_pan = screenPoint - centre - inPlane * m_scale;
}

void SliceProjection::setExplode(double gap)
{
    m_explode = std::clamp(gap, 0.0, 8.0);
}

void SliceProjection::setLayerRange(int first, int last)
{
    first = std::clamp(first, 0, m_dims.z - 1);
    last = std::clamp(last, 0, m_dims.z - 1);
    if (first > last)
        std::swap(first, last);
    m_layerFirst = first;
    m_layerLast = last;
}

bool SliceProjection::isVisible(ChipCoord c) const
{
    return c.x >= 0 && c.x < m_dims.x && c.y >= 0 && c.y < m_dims.y && c.z >= m_layerFirst && c.z <= m_layerLast;
}

SliceProjection::Basis SliceProjection::basis() const
{
    const double psi = qDegreesToRadians(m_yaw);
    const double theta = qDegreesToRadians(m_pitch);
    const float cp = float(std::cos(psi)), sp = float(std::sin(psi));
    const float ct = float(std::cos(theta)), st = float(std::sin(theta));
    // Turn the slice by yaw about z, then tilt it towards the viewer by pitch.
    return Basis{QVector3D(cp, -sp, 0), QVector3D(sp * st, cp * st, ct), QVector3D(-sp * ct, -cp * ct, st)};
}

QVector3D SliceProjection::towardViewer() const
{
    return basis().toward;
}

QVector3D SliceProjection::worldPosition(ChipCoord c) const
{
    return QVector3D(float(c.x - (m_dims.x - 1) / 2.0), float(c.y - (m_dims.y - 1) / 2.0),
                     float((c.z - (m_dims.z - 1) / 2.0) * layerPitch()));
}

QPointF SliceProjection::mapVector(const QVector3D &v) const
{
    const Basis b = basis();
    return QPointF(m_scale * double(QVector3D::dotProduct(b.right, v)), -m_scale * double(QVector3D::dotProduct(b.up, v)));
}

QPointF SliceProjection::map(const QVector3D &world) const
{
    return QPointF(m_viewport.width() / 2.0, m_viewport.height() / 2.0) + m_pan + mapVector(world);
}

std::array<QPointF, 3> SliceProjection::axisSteps() const
{
    return {mapVector(QVector3D(1, 0, 0)), mapVector(QVector3D(0, 1, 0)), mapVector(QVector3D(0, 0, float(layerPitch())))};
}

double SliceProjection::depth(const QVector3D &world) const
{
    return double(QVector3D::dotProduct(basis().toward, world));
}

void SliceProjection::setChipHeight(double height)
{
    m_chipHeight = std::clamp(height, 0.05, 1.0);
}

QVector3D SliceProjection::chipHalfExtents() const
{
    return QVector3D(float(kChipSize / 2), float(kChipSize / 2), float(m_chipHeight / 2));
}

std::array<QPointF, 8> SliceProjection::chipCorners(ChipCoord c) const
{
    const QVector3D centre = worldPosition(c);
    const QVector3D h = chipHalfExtents();
    std::array<QPointF, 8> corners;
    for (int i = 0; i < 8; ++i)
        corners[size_t(i)] = map(centre + QVector3D(i & 1 ? h.x() : -h.x(), i & 2 ? h.y() : -h.y(), i & 4 ? h.z() : -h.z()));
    return corners;
}

QPolygonF SliceProjection::boxSilhouette(const QVector3D &h) const
{
    std::array<QPointF, 8> corners;
    for (int i = 0; i < 8; ++i)
        corners[size_t(i)] = mapVector(QVector3D(i & 1 ? h.x() : -h.x(), i & 2 ? h.y() : -h.y(), i & 4 ? h.z() : -h.z()));
    return convexHull(corners);
}

bool SliceProjection::faceVisible(int axis, int sign) const
{
    const QVector3D t = towardViewer();
    return sign * double(t[axis]) > 1e-9;
}

std::array<int, 3> SliceProjection::backToFrontSteps() const
{
    const QVector3D t = towardViewer();
    // A component of (almost) zero means no occlusion along that axis: either direction is right.
    return {t.x() >= 0 ? 1 : -1, t.y() >= 0 ? 1 : -1, t.z() >= 0 ? 1 : -1};
}

QList<ChipCoord> SliceProjection::depthOrder() const
{
    QList<ChipCoord> order;
    order.reserve(qsizetype(m_dims.x) * m_dims.y * (m_layerLast - m_layerFirst + 1));
    const auto steps = backToFrontSteps();
    const int zn = m_layerLast - m_layerFirst + 1;
    for (int iz = 0; iz < zn; ++iz) {
        const int z = steps[2] > 0 ? m_layerFirst + iz : m_layerLast - iz;
        for (int iy = 0; iy < m_dims.y; ++iy) {
            const int y = steps[1] > 0 ? iy : m_dims.y - 1 - iy;
            for (int ix = 0; ix < m_dims.x; ++ix)
                order.append(ChipCoord{steps[0] > 0 ? ix : m_dims.x - 1 - ix, y, z});
        }
    }
    return order;
}

std::optional<ChipCoord> SliceProjection::hitTest(QPointF screenPoint, const ChipFilter &accept) const
{
    if (m_dims.volume() <= 0)
        return std::nullopt;
    const QPolygonF hull = chipSilhouette();
    double radius = 0;
    for (const QPointF &p : hull)
        radius = std::max(radius, std::hypot(p.x(), p.y()));
    // The hull's orientation on screen, so the inside test works whichever way it winds.
    double area = 0;
    for (qsizetype i = 0; i < hull.size(); ++i)
        area += cross(QPointF(), hull[i], hull[(i + 1) % hull.size()]);
    const double orientation = area >= 0 ? 1 : -1;
    auto inside = [&](QPointF d) {
        for (qsizetype i = 0; i < hull.size(); ++i)
            if (orientation * cross(hull[i], hull[(i + 1) % hull.size()], d) < -1e-9)
                return false;
        return true;
    };

    const auto steps = axisSteps();
    const QPointF origin = chipCenter(ChipCoord{0, 0, 0});
    const auto order = backToFrontSteps();
    const int zn = m_layerLast - m_layerFirst + 1;
    // Front to back: the reverse of painter's order, so the first hit is the chip on top.
    for (int iz = 0; iz < zn; ++iz) {
        const int z = order[2] > 0 ? m_layerLast - iz : m_layerFirst + iz;
        for (int iy = 0; iy < m_dims.y; ++iy) {
            const int y = order[1] > 0 ? m_dims.y - 1 - iy : iy;
            for (int ix = 0; ix < m_dims.x; ++ix) {
                const int x = order[0] > 0 ? m_dims.x - 1 - ix : ix;
                const QPointF centre = origin + steps[0] * x + steps[1] * y + steps[2] * z;
                const QPointF d = screenPoint - centre;
                if (std::abs(d.x()) > radius || std::abs(d.y()) > radius || !inside(d))
                    continue;
                const ChipCoord c{x, y, z};
                if (!accept || accept(c))
                    return c;
            }
        }
    }
    return std::nullopt;
}

QRectF SliceProjection::boundingRect(double halfExtent) const
{
    const QVector3D lo = worldPosition(ChipCoord{0, 0, m_layerFirst});
    const QVector3D hi = worldPosition(ChipCoord{m_dims.x - 1, m_dims.y - 1, m_layerLast});
    const float h = float(halfExtent);
    double x0 = 1e300, y0 = 1e300, x1 = -1e300, y1 = -1e300;
    for (int i = 0; i < 8; ++i) {
        const QVector3D corner(i & 1 ? hi.x() + h : lo.x() - h, i & 2 ? hi.y() + h : lo.y() - h, i & 4 ? hi.z() + h : lo.z() - h);
        const QPointF p = map(corner);
        x0 = std::min(x0, p.x());
        x1 = std::max(x1, p.x());
        y0 = std::min(y0, p.y());
        y1 = std::max(y1, p.y());
    }
    return QRectF(QPointF(x0, y0), QPointF(x1, y1));
}

void SliceProjection::fit(QRectF area, double halfExtent, double maxScale)
{
    if (area.isEmpty())
        area = QRectF(QPointF(0, 0), QSizeF(m_viewport)).adjusted(8, 8, -8, -8);
    if (area.width() <= 1 || area.height() <= 1)
        return;
    // Measure at scale 1 with no pan, then scale and centre.
    SliceProjection unit = *this;
    unit.m_scale = 1;
    unit.m_pan = QPointF();
    const QRectF box = unit.boundingRect(halfExtent);
    const double w = std::max(box.width(), 1e-6), h = std::max(box.height(), 1e-6);
    setScale(std::min({area.width() / w, area.height() / h, std::max(kMinScale, maxScale)}));
    const QPointF centre(m_viewport.width() / 2.0, m_viewport.height() / 2.0);
    // box.center() at scale 1 is centre + u; at scale s it is centre + s*u.
    m_pan = area.center() - centre - (box.center() - centre) * m_scale;
}

QDebug operator<<(QDebug debug, const SliceProjection &p)
{
    const QDebugStateSaver saver(debug);
    debug.nospace() << "SliceProjection(" << p.dims().x << 'x' << p.dims().y << 'x' << p.dims().z
                    << " yaw " << p.yaw() << " pitch " << p.pitch() << " scale " << p.scale() << " pan " << p.pan()
                    << " viewport " << p.viewport() << " explode " << p.explode() << " chip height " << p.chipHeight()
                    << " layers " << p.layerFirst()
                    << ".." << p.layerLast() << ')';
    return debug;
}

} // namespace slicescope
