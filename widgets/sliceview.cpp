// SPDX-License-Identifier: GPL-3.0-or-later
#include "sliceview.h"

#include <QApplication>
#include <QHash>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPaintEngine>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <vector>

namespace slicescope {

using tpu::ChipCoord;

namespace {

// ---- Sprites ------------------------------------------------------------------------------------
//
// A sprite is a small premultiplied image plus the pixel (anchor) where the thing it shows is
// centred. Blitting at integer positions keeps QPainter on its untransformed blend path; the
// price is at most half a pixel of placement error, invisible at any zoom.

struct Sprite {
    QImage image;
    QPoint anchor;
    bool isNull() const { return image.isNull(); }
};

template<typename Paint>
Sprite renderSprite(const QRectF &bounds, Paint &&paint)
{
    const QRect r = bounds.adjusted(-2, -2, 2, 2).toAlignedRect();
    Sprite s;
    s.image = QImage(r.size().expandedTo(QSize(1, 1)), QImage::Format_ARGB32_Premultiplied);
    s.image.fill(Qt::transparent);
    s.anchor = -r.topLeft();
    QPainter p(&s.image);
    p.setRenderHint(QPainter::Antialiasing);
    p.translate(s.anchor);
    paint(p);
    return s;
}

// Tints a grey template: every channel times the colour, alpha kept. Far cheaper than painting
// the cube again per colour, so rotating with many colours (worker mode) stays smooth.
QImage colourize(const QImage &grey, QColor colour)
{
    QImage out(grey.size(), grey.format());
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

// The faces of a box (half sizes h) that face the viewer, as polygons around screen origin.
struct Face {
    QPolygonF polygon;
    double shade = 1;
};
QList<Face> visibleFaces(const SliceProjection &p, const QVector3D &h, const QVector3D &offset = {})
{
    std::array<QPointF, 8> corner;
    for (int i = 0; i < 8; ++i)
        corner[size_t(i)] = p.mapVector(offset + QVector3D(i & 1 ? h.x() : -h.x(), i & 2 ? h.y() : -h.y(), i & 4 ? h.z() : -h.z()));
    QList<Face> faces;
    for (int f = 0; f < 6; ++f) {
        const int axis = f / 2, sign = f % 2 ? 1 : -1;
        if (!p.faceVisible(axis, sign))
            continue;
        QVector3D n;
        n[axis] = float(sign);
        Face face;
        for (int k = 0; k < 4; ++k)
            face.polygon << corner[size_t(kFaceCorners[f][k])];
        face.shade = faceShade(p, n);
        faces.append(face);
    }
    return faces;
}

QRectF boundsOf(const QList<Face> &faces)
{
    QRectF r;
    for (const Face &f : faces)
        r = r.united(f.polygon.boundingRect());
    return r;
}

// Per axis, 3 bits of link stubs a chip carries: a link to its neighbour nearer the viewer, a
// wrap edge leaving its near face, a wrap edge leaving its far face.
enum StubBit : quint16
{
    FrontLink = 1,
    FrontWrap = 2,
    BackWrap = 4
};
constexpr int stubShift(int axis) { return axis * 3; }

// What the paint loop walks, already in painter's order.
struct DrawItem {
    enum Kind : quint8
    {
        Chip,
        Tray,
        Label
    };
    Kind kind = Chip;
    quint16 stubs = 0;
    qint16 x = 0, y = 0, z = 0; // chip; for trays and labels, the host block's lowest corner
    qint32 ref = 0;             // chip index (Chip) or host index (Tray, Label)
};

constexpr double kTrayInset = 0.03;    // pitches between a tray's edge and its cell boundary
constexpr double kTrayGap = 0.03;      // between a chip's bottom and its tray's top
constexpr double kTrayThickness = 0.06;
constexpr double kWrapStub = 0.30;     // how far a wrap edge sticks out, in pitches
constexpr double kFlatChip = 0.30;     // chip height when a slice has one layer: tiles on a board
constexpr int kMaxLabels = 128;        // host labels beyond this are clutter, not information

enum TrayKind
{
    TrayNormal,
    TrayDead,
    TrayPending,
    TrayMissing,
    TraySelected,
    TrayKinds
};

} // namespace

// ---- Private -----------------------------------------------------------------------------------

struct SliceView::Private {
    SliceView *q = nullptr;

    SnapshotPtr snapshot;
    QString sliceName;
    const Slice *slice = nullptr; // inside snapshot; null when nothing is shown
    ColorMode mode = ColorMode::Bundle;
    Theme theme = Theme::light();
    SliceProjection projection;
    bool autoFit = true; // refit on resize until the user zooms or pans
    bool linksVisible = true;
    bool legendVisible = true;
    int selected = -1;
    QList<int> highlighted;
    std::optional<ChipCoord> hovered;
    ChipPainting painting = ChipPainting::Sprites;

    // Mouse.
    enum class Drag
    {
        None,
        Rotate,
        Pan
    };
    Drag drag = Drag::None;
    QPoint pressPos, lastPos;
    bool dragMoved = false;

    // What every chip shows, by chip index x + X*(y + Y*z); rebuilt when data, mode or theme change.
    struct ChipInfo {
        qint32 host = -1;     // index into slice->hosts
        qint32 palette = 0;   // index into palette
        qint16 chipIndex = 0; // within its host
        bool ghost = false;   // its host is MISSING: drawn hollow, hides nothing
        // Its ICI links, from layout.iciLinks(): bit 2*axis for the one to the + side, bit
        // 2*axis+1 for the one to the - side; `wraps` likewise for torus wrap edges.
        quint8 links = 0;
        quint8 wraps = 0;
    };
    std::vector<ChipInfo> chips;
    QList<QColor> palette;
    std::vector<int> hostOfWorker; // worker id -> index into slice->hosts

    // Painter's order with hidden chips dropped; rebuilt when the view octant, the layers, the
    // explode state or the data change, never while merely turning within an octant.
    struct OrderKey {
        std::array<int, 3> steps{};
        int first = -1, last = -1;
        bool exploded = false;
        bool culled = true;
        quint64 dataVersion = 0;
        bool operator==(const OrderKey &) const = default;
    };
    struct DrawOrder {
        OrderKey key;
        std::vector<DrawItem> items;
        std::vector<bool> drawn; // by chip index: among `items` (hit-testing ignores the rest)
    };
    // [0]: every chip (the naive baseline); [1]: hidden chips skipped. Both kept, so the render
    // benchmark can alternate paths without rebuilding either.
    std::array<DrawOrder, 2> orders;
    quint64 dataVersion = 1;

    // Sprites for one camera orientation and zoom.
    struct SpriteKey {
        double yaw = 0, pitch = 0, scale = 0, explode = 0, chipHeight = 0;
        QRgb link = 0, wrap = 0, outline = 0, window = 0, selection = 0, dead = 0, pending = 0;
        tpu::Dims block;
        quint64 dataVersion = 0;
        bool operator==(const SpriteKey &) const = default;
    };
    SpriteKey spriteKey;
    QImage chipTemplate, ghostTemplate;
    QPoint chipAnchor, ghostAnchor;
    std::vector<Sprite> chipSprites, ghostSprites; // by palette index, built on first use
    std::array<Sprite, 3> frontLink, frontWrap, backWrap;
    std::array<bool, 3> stubsShown{}, wrapsShown{};
    quint16 stubsMask = 0; // the stub bits long enough to show, all axes
    std::vector<Sprite> chipsWithStubs; // by palette index * 512 + stub bits, built on first use
    std::array<Sprite, TrayKinds> trays;

    // ---- Data ----
    void setData(const SnapshotPtr &snap, const QString &name);
    void rebuildChips();
    int chipIndexOf(ChipCoord c) const
    {
        const tpu::Dims d = projection.dims();
        return c.x + d.x * (c.y + d.y * c.z);
    }
    const Host *hostAt(ChipCoord c) const;
    int workerAt(ChipCoord c) const;

    // ---- Camera ----
    QRectF sceneArea(QSize size, const QFontMetrics &fm) const;
    void fitCamera();
    double fitExtent() const;
    void cameraChanged(bool userMoved);

    // ---- Order and sprites ----
    const DrawOrder &ensureOrder(const SliceProjection &p, bool cull);
    OrderKey orderKeyFor(const SliceProjection &p, bool cull) const
    {
        return OrderKey{p.backToFrontSteps(), p.layerFirst(), p.layerLast(), p.explode() > 0, cull, dataVersion};
    }
    // The order the picture on screen was painted from, when it matches `p`; else null.
    const DrawOrder *shownOrder(const SliceProjection &p) const
    {
        const DrawOrder &o = orders[painting == ChipPainting::Sprites ? 1 : 0];
        return o.key == orderKeyFor(p, painting == ChipPainting::Sprites) && o.drawn.size() == chips.size() ? &o : nullptr;
    }
    void ensureSprites(const SliceProjection &p);
    const Sprite &chipSprite(int paletteIndex, bool ghost);
    const Sprite &chipWithStubs(int paletteIndex, quint16 stubs);
    TrayKind trayKindOf(int hostIndex) const;

    // ---- Painting ----
    void paint(QPainter &painter, const SliceProjection &p, QSize size);
    void drawBackground(QPainter &painter, QSize size) const;
    void drawMessage(QPainter &painter, QSize size, const QString &text) const;
    void drawScene(QPainter &painter, const SliceProjection &p);
    void drawSceneWithPolygons(QPainter &painter, const SliceProjection &p);
    // Host labels: what they say (empty when nothing fits `room`), and where they go.
    QString hostLabelText(const Host &host, const QFontMetricsF &fm, double room) const;
    QPointF hostLabelCentre(const SliceProjection &p, const DrawItem &item) const;
    void paintHostLabel(QPainter &painter, QPointF centre, const Host &host, const QString &text) const;
    void drawHostLabel(QPainter &painter, const SliceProjection &p, const DrawItem &item, double room, bool cached);
    struct LabelSprite {
        QString text;
        Sprite sprite;
    };
    QByteArray labelKey;
    std::vector<LabelSprite> labelSprites; // by host index

    // Text panels (legend, title, footer) rendered once and blitted: shaping text is the
    // costliest thing per pixel a frame would otherwise do.
    struct Panel {
        QByteArray key;
        QImage image;
        QPoint at;
    };
    std::array<Panel, 3> panels;
    template<typename Draw>
    void drawPanel(QPainter &painter, Panel &panel, const QByteArray &key, const QRect &rect, Draw &&draw);
    void drawSliceFrame(QPainter &painter, const SliceProjection &p) const;
    void drawHighlights(QPainter &painter, const SliceProjection &p) const;
    void drawSelection(QPainter &painter, const SliceProjection &p) const;
    void drawHover(QPainter &painter, const SliceProjection &p) const;
    void drawLegend(QPainter &painter, QSize size) const;
    void drawTitle(QPainter &painter, QSize size) const;
    void drawLayoutLabel(QPainter &painter, QSize size) const;
    void drawAxes(QPainter &painter, const SliceProjection &p, QSize size) const;
    QPolygonF hostOutline(const SliceProjection &p, int hostIndex) const;
    QRectF legendRect(QSize size, const QFontMetrics &fm) const;
    QList<LegendEntry> legendEntries() const;
    mutable quint64 legendVersion = 0; // legendEntries() is asked several times a frame
    mutable QList<LegendEntry> legendCache;
    QString legendHeading() const
    {
        return mode == ColorMode::WorkerId ? tr("Colour: worker id") : mode == ColorMode::Bundle ? tr("Colour: placement group")
                                                                                                 : tr("Colour: host state");
    }
    double labelRoom(const SliceProjection &p) const;

    // ---- Interaction ----
    std::optional<ChipCoord> chipAt(QPointF pos);
    void setHovered(std::optional<ChipCoord> chip);
    void pickHost(int workerId);
    QString tooltipFor(ChipCoord c) const;
};

// ---- Data --------------------------------------------------------------------------------------

void SliceView::Private::setData(const SnapshotPtr &snap, const QString &name)
{
    const bool sameSlice = !name.isEmpty() && name == sliceName && slice;
    const tpu::Dims oldDims = projection.dims();
    snapshot = snap;
    sliceName = name;
    slice = nullptr;
    if (snapshot && !name.isEmpty()) {
        const int i = snapshot->sliceIndex(name);
        if (i >= 0)
            slice = &snapshot->slices[i];
    }
    ++dataVersion;
    if (!sameSlice || !slice || !(slice->layout.dims() == oldDims))
        hovered.reset(); // a refresh of the same slice keeps the chip under the mouse outlined
    if (!slice || !slice->layout.isValid()) {
        selected = -1;
        chips.clear();
        return;
    }
    const tpu::Dims dims = slice->layout.dims();
    if (!sameSlice || !(dims == oldDims)) {
        // A different slice (or a reshaped one): a fresh camera. Explode is a display setting the
        // user chose, so it carries over.
        const double explode = projection.explode();
        const QSize viewport = projection.viewport();
        projection = SliceProjection(dims);
        projection.setViewport(viewport);
        projection.setChipHeight(dims.z == 1 ? kFlatChip : SliceProjection::kChipSize);
        projection.setExplode(explode);
        projection.applyPreset(SliceProjection::Preset::Isometric);
        if (!sameSlice)
            selected = -1;
        autoFit = true;
        fitCamera();
    }
    if (selected >= slice->hosts.size())
        selected = -1;
    rebuildChips();
}

void SliceView::Private::rebuildChips()
{
    ++dataVersion;
    chips.clear();
    palette.clear();
    hostOfWorker.clear();
    if (!slice || !slice->layout.isValid())
        return;
    const tpu::SliceLayout &layout = slice->layout;
    chips.assign(size_t(layout.chipCount()), ChipInfo{});
    hostOfWorker.assign(size_t(layout.hostCount()), -1);
    QHash<QRgb, int> paletteIndex;
    auto colourIndex = [&](const QColor &c) {
        const auto it = paletteIndex.constFind(c.rgba());
        if (it != paletteIndex.cend())
            return *it;
        palette.append(c);
        paletteIndex.insert(c.rgba(), int(palette.size() - 1));
        return int(palette.size() - 1);
    };
    // Chips no host claims (cannot happen for a valid layout, but never paint garbage): ghosts.
    const int absent = colourIndex(theme.absentChip);
    for (ChipInfo &c : chips) {
        c.palette = absent;
        c.ghost = true;
    }
    for (int h = 0; h < slice->hosts.size(); ++h) {
        const Host &host = slice->hosts[h];
        if (host.workerId < 0 || host.workerId >= layout.hostCount())
            continue;
        hostOfWorker[size_t(host.workerId)] = h;
        for (int i = 0; i < layout.chipsPerHost(); ++i) {
            const ChipCoord c = layout.chipPosition(host.workerId, i);
            ChipInfo &info = chips[size_t(chipIndexOf(c))];
            info.host = h;
            info.chipIndex = qint16(i);
            info.ghost = host.state == HostState::Missing;
            info.palette = colourIndex(chipColor(*snapshot, host, i, mode, theme));
        }
    }
    // Links come from the layout's own list, so the view shows exactly the torus it computes.
    for (const tpu::IciLink &l : layout.iciLinks()) {
        ChipInfo &a = chips[size_t(chipIndexOf(l.a))];
        ChipInfo &b = chips[size_t(chipIndexOf(l.b))];
        if (l.wrap) { // a sits at the high end of the axis, b at 0
            a.wraps |= quint8(1 << (2 * l.axis));
            b.wraps |= quint8(1 << (2 * l.axis + 1));
        } else {
            a.links |= quint8(1 << (2 * l.axis));
            b.links |= quint8(1 << (2 * l.axis + 1));
        }
    }
}

const Host *SliceView::Private::hostAt(ChipCoord c) const
{
    if (!slice || chips.empty() || !projection.isVisible(c))
        return nullptr;
    const int h = chips[size_t(chipIndexOf(c))].host;
    return h >= 0 ? &slice->hosts[h] : nullptr;
}

int SliceView::Private::workerAt(ChipCoord c) const
{
    const Host *h = hostAt(c);
    return h ? h->workerId : -1;
}

// ---- Camera ------------------------------------------------------------------------------------

QRectF SliceView::Private::sceneArea(QSize size, const QFontMetrics &fm) const
{
    const double top = 14 + fm.height() * 2.6;   // title and its detail line
    const double bottom = 14 + fm.height() * 1.4; // the "logical layout" line
    QRectF area(16, top, size.width() - 32, size.height() - top - bottom);
    const QRectF legend = legendRect(size, fm);
    // Keep the slice clear of the legend when there is room beside it; otherwise share.
    if (!legend.isEmpty() && area.width() - legend.width() - 16 > area.width() * 0.55)
        area.setRight(legend.left() - 12);
    return area;
}

double SliceView::Private::fitExtent() const
{
    // Around each chip centre: its tray, and the wrap edges sticking out of the slice's faces.
    const bool wraps = slice && slice->layout.isValid()
                       && (slice->layout.axisWraps(0) || slice->layout.axisWraps(1) || slice->layout.axisWraps(2));
    return wraps && linksVisible ? SliceProjection::kChipSize / 2 + kWrapStub + 0.08 : 0.55;
}

void SliceView::Private::fitCamera()
{
    const QSize size = projection.viewport();
    if (size.isEmpty())
        return;
    projection.fit(sceneArea(size, q->fontMetrics()), fitExtent());
}

void SliceView::Private::cameraChanged(bool userMoved)
{
    if (userMoved)
        autoFit = false;
    q->update();
    Q_EMIT q->projectionChanged();
}

// ---- Order and sprites ---------------------------------------------------------------------------

const SliceView::Private::DrawOrder &SliceView::Private::ensureOrder(const SliceProjection &p, bool cull)
{
    DrawOrder &o = orders[cull ? 1 : 0];
    const OrderKey key = orderKeyFor(p, cull);
    if (key == o.key && !o.items.empty())
        return o;
    o.key = key;
    std::vector<DrawItem> &order = o.items;
    std::vector<bool> &drawn = o.drawn;
    order.clear();
    const tpu::Dims d = p.dims();
    drawn.assign(size_t(d.volume()), false);
    if (chips.empty())
        return o;
    const auto steps = key.steps;
    auto opaque = [&](int x, int y, int z) {
        if (x < 0 || y < 0 || x >= d.x || y >= d.y || z < key.first || z > key.last)
            return false;
        return !chips[size_t(x + d.x * (y + d.y * z))].ghost;
    };
    // How deep under the visible surface a chip lies: 0 when some chip one step nearer the
    // viewer (along any mix of axes) is missing, transparent or hidden, so part of it faces the
    // viewer; 1 when that holds two steps out; 2 beyond. Depth 2 is skipped: nothing of it can
    // show. Depth 1 is drawn, because the gaps between surface chips show slivers of it, but
    // without links or trays, which only slivers of would show. Exploded layers show every
    // chip's top, so there everything is surface.
    auto coverDepth = [&](int x, int y, int z) {
        if (!cull || key.exploded)
            return 0;
        int depth = 2;
        for (int dz = 0; dz <= 2; ++dz)
            for (int dy = 0; dy <= 2; ++dy)
                for (int dx = 0; dx <= 2; ++dx) {
                    if ((!dx && !dy && !dz) || opaque(x + dx * steps[0], y + dy * steps[1], z + dz * steps[2]))
                        continue;
                    if (dx < 2 && dy < 2 && dz < 2)
                        return 0;
                    depth = 1;
                }
        return depth;
    };
    std::vector<quint8> depth(size_t(d.volume()), 2);

    // Which hosts show at all (their trays and labels follow their chips).
    const int hostCount = int(slice->hosts.size());
    std::vector<int> lastChipItem(size_t(hostCount), -1);
    std::vector<bool> hostShown(size_t(hostCount), false);
    const tpu::Dims block = slice->layout.block();
    const int zn = key.last - key.first + 1;
    order.reserve(size_t(d.x) * size_t(d.y) * size_t(zn) + size_t(hostCount) * 2);

    // Hosts by the layer their block starts in, with that corner.
    std::vector<std::vector<std::pair<int, ChipCoord>>> hostsByLayer(size_t(d.z));
    for (int h = 0; h < hostCount; ++h) {
        const Host &host = slice->hosts[h];
        if (host.workerId < 0 || host.workerId >= slice->layout.hostCount())
            continue;
        const ChipCoord origin = slice->layout.chipPosition(host.workerId, 0);
        hostsByLayer[size_t(origin.z)].push_back({h, origin});
    }
    auto emitTrays = [&](int z) {
        // Trays lie on the far side of their layer, so they go before the layer's chips when the
        // camera is above and after them when it is below.
        for (const auto &[h, origin] : hostsByLayer[size_t(z)]) {
            if (!hostShown[size_t(h)])
                continue;
            DrawItem t;
            t.kind = DrawItem::Tray;
            t.x = qint16(origin.x);
            t.y = qint16(origin.y);
            t.z = qint16(origin.z);
            t.ref = h;
            order.push_back(t);
        }
    };

    // First decide what is drawn, so trays know whether their host shows.
    for (int z = key.first; z <= key.last; ++z)
        for (int y = 0; y < d.y; ++y)
            for (int x = 0; x < d.x; ++x) {
                const int i = x + d.x * (y + d.y * z);
                depth[size_t(i)] = quint8(coverDepth(x, y, z));
                if (depth[size_t(i)] >= 2)
                    continue;
                drawn[size_t(i)] = true;
                if (chips[size_t(i)].host >= 0 && depth[size_t(i)] == 0)
                    hostShown[size_t(chips[size_t(i)].host)] = true;
            }

    for (int iz = 0; iz < zn; ++iz) {
        const int z = steps[2] > 0 ? key.first + iz : key.last - iz;
        if (steps[2] > 0)
            emitTrays(z);
        for (int iy = 0; iy < d.y; ++iy) {
            const int y = steps[1] > 0 ? iy : d.y - 1 - iy;
            for (int ix = 0; ix < d.x; ++ix) {
                const int x = steps[0] > 0 ? ix : d.x - 1 - ix;
                const int i = x + d.x * (y + d.y * z);
                if (!drawn[size_t(i)])
                    continue;
                const ChipInfo &info = chips[size_t(i)];
                DrawItem item;
                item.x = qint16(x);
                item.y = qint16(y);
                item.z = qint16(z);
                item.ref = i;
                const int at[3] = {x, y, z};
                // A missing host has no links to show: none from its chips, none to them.
                for (int axis = 0; axis < 3 && depth[size_t(i)] == 0 && !info.ghost; ++axis) {
                    // Which side of the chip faces the viewer along this axis: + when steps > 0.
                    const int nearBit = steps[axis] > 0 ? 2 * axis : 2 * axis + 1;
                    const int farBit = steps[axis] > 0 ? 2 * axis + 1 : 2 * axis;
                    int next[3] = {x, y, z};
                    next[axis] = at[axis] + steps[axis];
                    const bool neighbourShown = p.isVisible(ChipCoord{next[0], next[1], next[2]})
                                                && !chips[size_t(next[0] + d.x * (next[1] + d.y * next[2]))].ghost;
                    if ((info.links >> nearBit & 1) && neighbourShown)
                        item.stubs |= quint16(FrontLink << stubShift(axis));
                    if (info.wraps >> nearBit & 1)
                        item.stubs |= quint16(FrontWrap << stubShift(axis));
                    if (info.wraps >> farBit & 1)
                        item.stubs |= quint16(BackWrap << stubShift(axis));
                }
                order.push_back(item);
                if (info.host >= 0)
                    lastChipItem[size_t(info.host)] = int(order.size() - 1);
            }
        }
        if (steps[2] < 0)
            emitTrays(z);
    }

    // Host labels sit on top of their block, so they go right after the block's last chip:
    // chips nearer the viewer, drawn later, still cover them as they should. Only blocks whose
    // top nobody covers get one: the top visible layer, and every layer when exploded unless
    // that makes too many to read.
    if (steps[2] > 0) {
        std::vector<int> labelAfter(order.size(), -1);
        int labels = 0;
        auto labelLayers = [&](bool allLayers) {
            std::fill(labelAfter.begin(), labelAfter.end(), -1);
            labels = 0;
            for (int z = key.first; z <= key.last; ++z)
                for (const auto &[h, origin] : hostsByLayer[size_t(z)]) {
                    const bool top = origin.z + block.z - 1 == key.last;
                    if (lastChipItem[size_t(h)] < 0 || !hostShown[size_t(h)] || !(top || allLayers))
                        continue;
                    labelAfter[size_t(lastChipItem[size_t(h)])] = h;
                    ++labels;
                }
        };
        labelLayers(key.exploded);
        if (labels > kMaxLabels && key.exploded)
            labelLayers(false);
        if (labels > 0 && labels <= kMaxLabels) {
            std::vector<DrawItem> withLabels;
            withLabels.reserve(order.size() + size_t(labels));
            for (size_t i = 0; i < order.size(); ++i) {
                withLabels.push_back(order[i]);
                if (labelAfter[i] >= 0) {
                    const ChipCoord origin = slice->layout.chipPosition(slice->hosts[labelAfter[i]].workerId, 0);
                    DrawItem l;
                    l.kind = DrawItem::Label;
                    l.x = qint16(origin.x);
                    l.y = qint16(origin.y);
                    l.z = qint16(origin.z);
                    l.ref = labelAfter[i];
                    withLabels.push_back(l);
                }
            }
            order.swap(withLabels);
        }
    }
    return o;
}

void SliceView::Private::ensureSprites(const SliceProjection &p)
{
    const SpriteKey key{p.yaw(), p.pitch(), p.scale(), p.explode(), p.chipHeight(), theme.iciLink.rgba(), theme.wrapLink.rgba(),
                        theme.hostOutline.rgba(), theme.window.rgba(), theme.selection.rgba(), theme.dead.rgba(),
                        theme.pending.rgba(), slice ? slice->layout.block() : tpu::Dims{}, dataVersion};
    if (key == spriteKey && !chipTemplate.isNull())
        return;
    spriteKey = key;
    const double s = p.scale();
    const QVector3D half = p.chipHalfExtents();

    // The chip, in grey: top full brightness so the top shows exactly the chip's colour.
    const QList<Face> faces = visibleFaces(p, half);
    const double top = std::max_element(faces.cbegin(), faces.cend(), [](const Face &a, const Face &b) { return a.shade < b.shade; })->shade;
    const double edgeWidth = std::clamp(s / 40, 0.6, 1.4);
    Sprite chip = renderSprite(boundsOf(faces), [&](QPainter &painter) {
        for (const Face &f : faces) {
            const int grey = int(255 * f.shade / top + 0.5);
            painter.setBrush(QColor(grey, grey, grey));
            painter.setPen(QPen(QColor(grey * 62 / 100, grey * 62 / 100, grey * 62 / 100), edgeWidth));
            painter.drawPolygon(f.polygon);
        }
    });
    chipTemplate = chip.image;
    chipAnchor = chip.anchor;
    // A ghost (MISSING host): a faint body and a dashed outline, so what is behind shows through.
    Sprite ghost = renderSprite(boundsOf(faces), [&](QPainter &painter) {
        for (const Face &f : faces) {
            const int grey = int(255 * f.shade / top + 0.5);
            painter.setBrush(QColor(grey, grey, grey, 46));
            QPen pen(QColor(200, 200, 200, 235), std::max(1.0, edgeWidth));
            pen.setDashPattern({3, 2});
            painter.setPen(pen);
            painter.drawPolygon(f.polygon);
        }
    });
    ghostTemplate = ghost.image;
    ghostAnchor = ghost.anchor;
    chipSprites.assign(size_t(palette.size()), Sprite{});
    ghostSprites.assign(size_t(palette.size()), Sprite{});
    chipsWithStubs.assign(size_t(palette.size()) * 512, Sprite{});

    // Link stubs per axis: a link spans the gap to the neighbour nearer the viewer; a wrap edge
    // sticks out of the slice's face, dashed and in the wrap colour, ending in a ring.
    const auto steps = p.backToFrontSteps();
    const double lineWidth = std::clamp(s * 0.05, 1.0, 3.0);
    const double wrapWidth = std::clamp(s * 0.03, 1.0, 2.0);
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
        frontLink[size_t(axis)] = renderSprite(QRectF(a, b).normalized().adjusted(-lineWidth, -lineWidth, lineWidth, lineWidth), [&](QPainter &painter) {
            painter.setPen(QPen(theme.iciLink, lineWidth, Qt::SolidLine, Qt::FlatCap));
            painter.drawLine(a, b);
        });
        auto wrapStub = [&](float direction) {
            // Short, thin and dashed: a 16x16x16 torus has 1536 of them and they must not drown
            // the chips; the small open end says "continues on the far side".
            const QPointF from = p.mapVector(unit * h * direction);
            const QPointF to = p.mapVector(unit * float(h + kWrapStub) * direction);
            const double ring = std::max(1.2, wrapWidth);
            return renderSprite(QRectF(from, to).normalized().adjusted(-ring - 1, -ring - 1, ring + 1, ring + 1), [&](QPainter &painter) {
                QPen pen(theme.wrapLink, wrapWidth, Qt::SolidLine, Qt::FlatCap);
                pen.setDashPattern({2, 1.5});
                painter.setPen(pen);
                painter.drawLine(from, to);
                painter.setPen(QPen(theme.wrapLink, 1.0));
                painter.setBrush(Qt::NoBrush);
                painter.drawEllipse(to, ring, ring);
            });
        };
        frontWrap[size_t(axis)] = wrapStub(1);
        backWrap[size_t(axis)] = wrapStub(-1);
    }
    stubsMask = 0;
    for (int axis = 0; axis < 3; ++axis)
        stubsMask |= quint16(((stubsShown[size_t(axis)] ? FrontLink : 0) | (wrapsShown[size_t(axis)] ? FrontWrap | BackWrap : 0)) << stubShift(axis));

    // Trays: the board each host's chips sit on, its colour saying what is wrong with the host.
    trays = {};
    if (slice) {
        const tpu::Dims b = slice->layout.block();
        const QVector3D trayHalf(float(b.x / 2.0 - kTrayInset), float(b.y / 2.0 - kTrayInset), float(kTrayThickness / 2));
        const QVector3D centre(0, 0, float(-kTrayThickness / 2)); // the anchor is the tray's top centre
        const QList<Face> trayFaces = visibleFaces(p, trayHalf, centre);
        const QColor board = mix(theme.window, theme.hostOutline, theme.isDark ? 0.22 : 0.38);
        auto tray = [&](const QColor &fill, const QColor &edge, bool dashed) {
            return renderSprite(boundsOf(trayFaces), [&](QPainter &painter) {
                for (const Face &f : trayFaces) {
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
        trays[TrayNormal] = tray(board, edge, false);
        trays[TrayDead] = tray(theme.dead, theme.dead.darker(140), false);
        trays[TrayPending] = tray(theme.pending, theme.pending.darker(140), false);
        QColor ghostFill = theme.absentChip;
        ghostFill.setAlpha(40);
        trays[TrayMissing] = tray(ghostFill, theme.absentChip.darker(120), true);
        trays[TraySelected] = tray(theme.selection, theme.selection.darker(140), false);
    }
}

const Sprite &SliceView::Private::chipSprite(int paletteIndex, bool ghost)
{
    std::vector<Sprite> &cache = ghost ? ghostSprites : chipSprites;
    if (size_t(paletteIndex) >= cache.size())
        cache.resize(size_t(palette.size()));
    Sprite &s = cache[size_t(paletteIndex)];
    if (s.isNull()) {
        s.image = colourize(ghost ? ghostTemplate : chipTemplate, palette[paletteIndex]);
        s.anchor = ghost ? ghostAnchor : chipAnchor;
    }
    return s;
}

const Sprite &SliceView::Private::chipWithStubs(int paletteIndex, quint16 stubs)
{
    const size_t slot = size_t(paletteIndex) * 512 + stubs;
    if (slot >= chipsWithStubs.size())
        chipsWithStubs.resize(size_t(palette.size()) * 512);
    Sprite &s = chipsWithStubs[slot];
    if (!s.isNull())
        return s;
    const Sprite &chip = chipSprite(paletteIndex, false);
    // Everything relative to the chip centre; the union of the parts is the sprite.
    QRect bounds(-chip.anchor, chip.image.size());
    auto each = [&](auto &&use) {
        for (int axis = 0; axis < 3; ++axis) {
            const int bits = stubs >> stubShift(axis);
            if (bits & BackWrap)
                use(backWrap[size_t(axis)], true);
            if (bits & FrontLink)
                use(frontLink[size_t(axis)], false);
            if (bits & FrontWrap)
                use(frontWrap[size_t(axis)], false);
        }
    };
    each([&](const Sprite &part, bool) { bounds |= QRect(-part.anchor, part.image.size()); });
    s.image = QImage(bounds.size(), QImage::Format_ARGB32_Premultiplied);
    s.image.fill(Qt::transparent);
    s.anchor = -bounds.topLeft();
    QPainter painter(&s.image);
    painter.translate(s.anchor);
    // Wrap edges leaving the far faces go behind the chip, the rest in front, as if drawn one by one.
    each([&](const Sprite &part, bool behind) {
        if (behind)
            painter.drawImage(-part.anchor, part.image);
    });
    painter.drawImage(-chip.anchor, chip.image);
    each([&](const Sprite &part, bool behind) {
        if (!behind)
            painter.drawImage(-part.anchor, part.image);
    });
    return s;
}

TrayKind SliceView::Private::trayKindOf(int hostIndex) const
{
    const Host &h = slice->hosts[hostIndex];
    if (h.workerId == selected)
        return TraySelected;
    // In state mode the chips already say it; the tray would only repeat it louder.
    if (mode != ColorMode::State) {
        switch (h.state) {
        case HostState::Alive: break;
        case HostState::Dead: return TrayDead;
        case HostState::Pending: return TrayPending;
        case HostState::Missing: return TrayMissing;
        }
    }
    return h.state == HostState::Missing ? TrayMissing : TrayNormal;
}

// ---- Painting ----------------------------------------------------------------------------------

void SliceView::Private::paint(QPainter &painter, const SliceProjection &p, QSize size)
{
    painter.save();
    drawBackground(painter, size);
    if (!slice) {
        drawMessage(painter, size, sliceName.isEmpty() ? tr("No slice selected") : tr("Slice %1 is not in this snapshot").arg(sliceName));
        painter.restore();
        return;
    }
    if (!slice->layout.isValid() || chips.empty()) {
        drawTitle(painter, size);
        drawMessage(painter, size, tr("The shape of this slice is unknown (%1), so its chips cannot be laid out.").arg(slice->problems.join(QStringLiteral("; "))));
        painter.restore();
        return;
    }
    // Vector devices (SVG) get polygons: thousands of embedded bitmaps would make a poor SVG.
    const bool raster = painter.paintEngine() && painter.paintEngine()->type() == QPaintEngine::Raster;
    if (painting == ChipPainting::Sprites && raster)
        drawScene(painter, p);
    else
        drawSceneWithPolygons(painter, p);
    drawSliceFrame(painter, p);
    drawHighlights(painter, p);
    drawSelection(painter, p);
    drawHover(painter, p);
    const QFontMetrics fm(q->font());
    const QByteArray links = linksVisible ? "links" : "nolinks";
    drawPanel(painter, panels[0], "legend " + links, legendRect(size, fm).toAlignedRect().adjusted(-1, -1, 1, 1),
              [&](QPainter &pp) { drawLegend(pp, size); });
    const QByteArray layers = QByteArray::number(p.layerFirst()) + ".." + QByteArray::number(p.layerLast());
    drawPanel(painter, panels[1], "title " + links + ' ' + layers, QRect(0, 0, size.width(), int(12 + fm.height() * 2.6)),
              [&](QPainter &pp) { drawTitle(pp, size); });
    drawPanel(painter, panels[2], "footer", QRect(0, size.height() - 14 - fm.height(), size.width(), fm.height() + 4),
              [&](QPainter &pp) { drawLayoutLabel(pp, size); });
    drawAxes(painter, p, size);
    painter.restore();
}

void SliceView::Private::drawBackground(QPainter &painter, QSize size) const
{
    painter.fillRect(QRect(QPoint(0, 0), size), theme.window);
}

void SliceView::Private::drawMessage(QPainter &painter, QSize size, const QString &text) const
{
    painter.setPen(theme.mutedText);
    painter.setFont(q->font());
    painter.drawText(QRect(QPoint(0, 0), size).adjusted(24, 24, -24, -24), Qt::AlignCenter | Qt::TextWordWrap, text);
}

double SliceView::Private::labelRoom(const SliceProjection &p) const
{
    // The shorter projected side of a host block's top: what a label must fit in.
    const tpu::Dims b = slice->layout.block();
    const auto steps = p.axisSteps();
    const double top = std::abs(p.towardViewer().z());
    if (top < 0.35) // looking at the side: tops are slivers
        return 0;
    return std::min(std::hypot(steps[0].x(), steps[0].y()) * b.x, std::hypot(steps[1].x(), steps[1].y()) * b.y);
}

QString SliceView::Private::hostLabelText(const Host &host, const QFontMetricsF &fm, double room) const
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

QPointF SliceView::Private::hostLabelCentre(const SliceProjection &p, const DrawItem &item) const
{
    // The middle of the top of the host's block.
    const tpu::Dims b = slice->layout.block();
    const auto steps = p.axisSteps();
    return p.chipCenter(ChipCoord{0, 0, 0}) + steps[0] * (item.x + (b.x - 1) / 2.0) + steps[1] * (item.y + (b.y - 1) / 2.0)
           + steps[2] * (item.z + b.z - 1) + p.mapVector(QVector3D(0, 0, p.chipHalfExtents().z()));
}

void SliceView::Private::paintHostLabel(QPainter &painter, QPointF centre, const Host &host, const QString &text) const
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

void SliceView::Private::drawHostLabel(QPainter &painter, const SliceProjection &p, const DrawItem &item, double room, bool cached)
{
    const Host &host = slice->hosts[item.ref];
    const QString text = hostLabelText(host, QFontMetricsF(painter.font()), room);
    if (text.isEmpty())
        return;
    const QPointF centre = hostLabelCentre(p, item);
    if (!cached) {
        paintHostLabel(painter, centre, host, text);
        return;
    }
    const QByteArray key = painter.font().key().toUtf8() + ' ' + QByteArray::number(dataVersion);
    if (key != labelKey) {
        labelKey = key;
        labelSprites.assign(slice->hosts.size(), LabelSprite{});
    }
    LabelSprite &label = labelSprites[size_t(item.ref)];
    if (label.text != text) {
        const QFontMetricsF fm(painter.font());
        const QFont font = painter.font();
        label.text = text;
        label.sprite = renderSprite(QRectF(-fm.horizontalAdvance(text) / 2 - 5, -fm.height() / 2 - 2, fm.horizontalAdvance(text) + 10, fm.height() + 4),
                                    [&](QPainter &lp) {
                                        lp.setFont(font);
                                        paintHostLabel(lp, QPointF(0, 0), host, text);
                                    });
    }
    painter.drawImage(QPoint(int(std::lround(centre.x())), int(std::lround(centre.y()))) - label.sprite.anchor, label.sprite.image);
}

template<typename Draw>
void SliceView::Private::drawPanel(QPainter &painter, Panel &panel, const QByteArray &key, const QRect &rect, Draw &&draw)
{
    if (rect.isEmpty())
        return;
    const bool raster = painter.paintEngine() && painter.paintEngine()->type() == QPaintEngine::Raster;
    if (!raster) { // vector output keeps its text as text
        draw(painter);
        return;
    }
    const QByteArray fullKey = key + ' ' + QByteArray::number(rect.x()) + ',' + QByteArray::number(rect.y()) + ' '
                               + QByteArray::number(rect.width()) + 'x' + QByteArray::number(rect.height()) + ' '
                               + q->font().key().toUtf8() + ' ' + QByteArray::number(dataVersion);
    if (fullKey != panel.key) {
        panel.key = fullKey;
        panel.at = rect.topLeft();
        panel.image = QImage(rect.size(), QImage::Format_ARGB32_Premultiplied);
        panel.image.fill(Qt::transparent);
        QPainter p(&panel.image);
        p.translate(-rect.topLeft());
        draw(p);
    }
    painter.drawImage(panel.at, panel.image);
}

void SliceView::Private::drawScene(QPainter &painter, const SliceProjection &p)
{
    const DrawOrder &order = ensureOrder(p, true);
    ensureSprites(p);
    const auto steps = p.axisSteps();
    const QPointF origin = p.chipCenter(ChipCoord{0, 0, 0});
    const tpu::Dims b = slice->layout.block();
    // Trays are anchored at their top centre, just under the chips of their lowest layer.
    const QPointF trayOffset = steps[0] * ((b.x - 1) / 2.0) + steps[1] * ((b.y - 1) / 2.0)
                               + p.mapVector(QVector3D(0, 0, -p.chipHalfExtents().z() - float(kTrayGap)));
    const QPolygonF outline = p.chipSilhouette();
    const QPen selectionPen(theme.selection, 2.5);
    // Boards are seen from above; from below they would hide every chip, edge-on they are a line.
    const bool trays = p.towardViewer().z() > 0.05;
    const bool links = linksVisible;
    const double room = labelRoom(p);
    QFont labelFont = q->font();
    labelFont.setPixelSize(std::clamp(int(p.scale() * 0.32), 9, 13));
    painter.setFont(labelFont);
    painter.setRenderHint(QPainter::Antialiasing, false);
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false);

    auto at = [&](const DrawItem &it) {
        const QPointF c = origin + steps[0] * it.x + steps[1] * it.y + steps[2] * it.z;
        return QPoint(int(std::lround(c.x())), int(std::lround(c.y())));
    };
    for (const DrawItem &it : order.items) {
        switch (it.kind) {
        case DrawItem::Tray: {
            if (!trays)
                break;
            const Sprite &s = this->trays[trayKindOf(it.ref)];
            const QPointF c = origin + steps[0] * it.x + steps[1] * it.y + steps[2] * it.z + trayOffset;
            painter.drawImage(QPoint(int(std::lround(c.x())), int(std::lround(c.y()))) - s.anchor, s.image);
            break;
        }
        case DrawItem::Chip: {
            const QPoint c = at(it);
            const ChipInfo &info = chips[size_t(it.ref)];
            // One blit per chip: its link stubs are baked into the sprite (per colour and set of
            // stubs), as a slice has only a few dozen such combinations but thousands of chips.
            const quint16 stubs = links ? quint16(it.stubs & stubsMask) : 0;
            const Sprite &s = stubs ? chipWithStubs(info.palette, stubs) : chipSprite(info.palette, info.ghost);
            painter.drawImage(c - s.anchor, s.image);
            if (info.host >= 0 && slice->hosts[info.host].workerId == selected) {
                // Outlined right after the chip, so chips in front still cover it.
                painter.setRenderHint(QPainter::Antialiasing, true);
                painter.setPen(selectionPen);
                painter.setBrush(Qt::NoBrush);
                painter.drawPolygon(outline.translated(c));
                painter.setRenderHint(QPainter::Antialiasing, false);
            }
            break;
        }
        case DrawItem::Label:
            if (room > 0)
                drawHostLabel(painter, p, it, room, true);
            break;
        }
    }
}

void SliceView::Private::drawSceneWithPolygons(QPainter &painter, const SliceProjection &p)
{
    // The naive baseline when painting to a raster device (everything drawn, nothing cached), and
    // the vector path for SVG (hidden chips still skipped: an SVG is read, not benchmarked).
    const bool raster = painter.paintEngine() && painter.paintEngine()->type() == QPaintEngine::Raster;
    const DrawOrder &drawOrder = ensureOrder(p, !raster);
    const auto steps = p.axisSteps();
    const QPointF origin = p.chipCenter(ChipCoord{0, 0, 0});
    const QVector3D half = p.chipHalfExtents();
    const QList<Face> faces = visibleFaces(p, half);
    double top = 0;
    for (const Face &f : faces)
        top = std::max(top, f.shade);
    const tpu::Dims b = slice->layout.block();
    const QList<Face> trayFaces = visibleFaces(p, QVector3D(float(b.x / 2.0 - kTrayInset), float(b.y / 2.0 - kTrayInset), float(kTrayThickness / 2)),
                                               QVector3D(float((b.x - 1) / 2.0), float((b.y - 1) / 2.0),
                                                         -half.z() - float(kTrayGap + kTrayThickness / 2)));
    const QPolygonF outline = p.chipSilhouette();
    const bool trays = p.towardViewer().z() > 0.05;
    const QColor board = mix(theme.window, theme.hostOutline, theme.isDark ? 0.22 : 0.38);
    const double room = labelRoom(p);
    QFont labelFont = q->font();
    labelFont.setPixelSize(std::clamp(int(p.scale() * 0.32), 9, 13));
    painter.setFont(labelFont);
    painter.setRenderHint(QPainter::Antialiasing, true);
    const double edgeWidth = std::clamp(p.scale() / 40, 0.6, 1.4);
    const double lineWidth = std::clamp(p.scale() * 0.05, 1.0, 3.0);
    QPen wrapPen(theme.wrapLink, std::clamp(p.scale() * 0.03, 1.0, 2.0), Qt::SolidLine, Qt::FlatCap);
    wrapPen.setDashPattern({2, 1.5});

    const auto order = p.backToFrontSteps();
    auto stub = [&](QPointF c, int axis, double from, double to, bool wrap) {
        QVector3D unit;
        unit[axis] = float(order[size_t(axis)]);
        const QLineF line(c + p.mapVector(unit * float(from)), c + p.mapVector(unit * float(to)));
        if (line.length() < (wrap ? 3 : 2.5)) // as the sprites: nothing under a couple of pixels
            return;
        painter.setPen(wrap ? wrapPen : QPen(theme.iciLink, lineWidth, Qt::SolidLine, Qt::FlatCap));
        painter.drawLine(line);
    };
    for (const DrawItem &it : drawOrder.items) {
        const QPointF c = origin + steps[0] * it.x + steps[1] * it.y + steps[2] * it.z;
        switch (it.kind) {
        case DrawItem::Tray: {
            if (!trays)
                break;
            const TrayKind kind = trayKindOf(it.ref);
            const QColor fill = kind == TrayDead ? theme.dead : kind == TrayPending ? theme.pending
                                                            : kind == TraySelected  ? theme.selection
                                                                                    : board;
            for (const Face &f : trayFaces) {
                painter.setBrush(kind == TrayMissing ? QColor(Qt::transparent) : fill.darker(int(100 + (1 - f.shade) * 60)));
                painter.setPen(QPen(kind == TrayNormal ? theme.hostOutline : fill.darker(140), 1.0));
                painter.drawPolygon(f.polygon.translated(c));
            }
            break;
        }
        case DrawItem::Chip: {
            const ChipInfo &info = chips[size_t(it.ref)];
            const double pitch = 1 + p.explode();
            if (linksVisible)
                for (int axis = 0; axis < 3; ++axis)
                    if ((it.stubs >> stubShift(axis)) & BackWrap)
                        stub(c, axis, -half[axis], -(half[axis] + kWrapStub), true);
            const QColor colour = palette[info.palette];
            for (const Face &f : faces) {
                const double shade = f.shade / top;
                QColor fill = QColor::fromRgbF(float(colour.redF() * shade), float(colour.greenF() * shade), float(colour.blueF() * shade),
                                               info.ghost ? 0.18f : 1.0f);
                painter.setBrush(fill);
                QPen pen(QColor::fromRgbF(float(fill.redF() * 0.62), float(fill.greenF() * 0.62), float(fill.blueF() * 0.62)), edgeWidth);
                if (info.ghost)
                    pen.setStyle(Qt::DashLine);
                painter.setPen(pen);
                painter.drawPolygon(f.polygon.translated(c));
            }
            if (info.host >= 0 && slice->hosts[info.host].workerId == selected) {
                painter.setPen(QPen(theme.selection, 2.5));
                painter.setBrush(Qt::NoBrush);
                painter.drawPolygon(outline.translated(c));
            }
            if (linksVisible)
                for (int axis = 0; axis < 3; ++axis) {
                    const int bits = it.stubs >> stubShift(axis);
                    if (bits & FrontLink)
                        stub(c, axis, half[axis], (axis == 2 ? pitch : 1.0) - half[axis], false);
                    if (bits & FrontWrap)
                        stub(c, axis, half[axis], half[axis] + kWrapStub, true);
                }
            break;
        }
        case DrawItem::Label:
            if (room > 0)
                drawHostLabel(painter, p, it, room, false);
            break;
        }
    }
}

void SliceView::Private::drawSliceFrame(QPainter &painter, const SliceProjection &p) const
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
    QColor colour = theme.mutedText;
    colour.setAlpha(150);
    QPen pen(colour, 1, Qt::DotLine);
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setPen(pen);
    for (int i = 0; i < 8; ++i)
        for (int bit = 1; bit < 8; bit <<= 1)
            if (!(i & bit))
                painter.drawLine(c[size_t(i)], c[size_t(i | bit)]);
}

QPolygonF SliceView::Private::hostOutline(const SliceProjection &p, int hostIndex) const
{
    const Host &host = slice->hosts[hostIndex];
    const tpu::SliceLayout &layout = slice->layout;
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

void SliceView::Private::drawHighlights(QPainter &painter, const SliceProjection &p) const
{
    if (highlighted.isEmpty())
        return;
    painter.setRenderHint(QPainter::Antialiasing, true);
    QColor fill = theme.ready;
    fill.setAlpha(50);
    QPen pen(theme.ready, 2, Qt::DashLine);
    painter.setPen(pen);
    painter.setBrush(fill);
    for (int w : highlighted)
        if (w >= 0 && size_t(w) < hostOfWorker.size() && hostOfWorker[size_t(w)] >= 0)
            painter.drawPolygon(hostOutline(p, hostOfWorker[size_t(w)]));
}

void SliceView::Private::drawSelection(QPainter &painter, const SliceProjection &p) const
{
    if (selected < 0 || size_t(selected) >= hostOfWorker.size() || hostOfWorker[size_t(selected)] < 0)
        return;
    // Its chips were outlined in depth order. A host buried inside a solid slice has none on
    // screen: then a dashed box drawn over everything still says where it is.
    const int hostIndex = hostOfWorker[size_t(selected)];
    const tpu::SliceLayout &layout = slice->layout;
    const DrawOrder *shown = shownOrder(p);
    for (int i = 0; i < layout.chipsPerHost(); ++i) {
        const ChipCoord c = layout.chipPosition(selected, i);
        if (p.isVisible(c) && (!shown || shown->drawn[size_t(chipIndexOf(c))]))
            return;
    }
    const QPolygonF outline = hostOutline(p, hostIndex);
    if (outline.isEmpty())
        return;
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setBrush(Qt::NoBrush);
    painter.setPen(QPen(theme.selection, 2, Qt::DashLine));
    painter.drawPolygon(outline);
}

void SliceView::Private::drawHover(QPainter &painter, const SliceProjection &p) const
{
    if (!hovered || !p.isVisible(*hovered))
        return;
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setBrush(Qt::NoBrush);
    painter.setPen(QPen(theme.hover, 2));
    painter.drawPolygon(p.chipOutline(*hovered));
}

QList<LegendEntry> SliceView::Private::legendEntries() const
{
    if (legendVersion == dataVersion)
        return legendCache;
    QList<LegendEntry> entries = legendFor(*snapshot, *slice, mode, theme);
    // What the view adds on top of chip colours: tray colours and links.
    if (mode != ColorMode::State) {
        bool dead = false, pending = false;
        for (const Host &h : slice->hosts) {
            dead = dead || h.state == HostState::Dead;
            pending = pending || h.state == HostState::Pending;
        }
        if (dead)
            entries.append({theme.dead, tr("red base: DEAD host")});
        if (pending)
            entries.append({theme.pending, tr("amber base: PENDING host")});
    }
    legendVersion = dataVersion;
    legendCache = entries;
    return entries;
}

QRectF SliceView::Private::legendRect(QSize size, const QFontMetrics &fm) const
{
    if (!legendVisible || !slice || !snapshot || !slice->layout.isValid())
        return {};
    const QList<LegendEntry> entries = legendEntries();
    QFont bold = q->font();
    bold.setBold(true);
    int textWidth = QFontMetrics(bold).horizontalAdvance(legendHeading()) - 20;
    for (const LegendEntry &e : entries)
        textWidth = std::max(textWidth, fm.horizontalAdvance(e.label));
    textWidth = std::max(textWidth, fm.horizontalAdvance(tr("wraparound: none here")));
    const double width = std::min(double(textWidth + 44), std::max(120.0, size.width() * 0.34));
    const int lines = int(entries.size()) + 1 + (linksVisible ? 2 : 0);
    const double height = std::min(double(lines * (fm.height() + 5) + 16), size.height() - 60.0);
    return QRectF(size.width() - width - 12, 12, width, height);
}

void SliceView::Private::drawLegend(QPainter &painter, QSize size) const
{
    const QFontMetrics fm(q->font());
    const QRectF box = legendRect(size, fm);
    if (box.isEmpty() || box.height() < fm.height() * 2)
        return;
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setFont(q->font());
    QColor panel = theme.panel;
    panel.setAlpha(235);
    painter.setBrush(panel);
    painter.setPen(QPen(theme.border, 1));
    painter.drawRoundedRect(box, 6, 6);

    const double line = fm.height() + 5;
    const double textLeft = box.left() + 30;
    const double textWidth = box.right() - 8 - textLeft;
    double y = box.top() + 8;
    QFont bold = q->font();
    bold.setBold(true);
    painter.setFont(bold);
    painter.setPen(theme.text);
    const QString heading = legendHeading();
    painter.drawText(QRectF(box.left() + 10, y, box.width() - 20, line), Qt::AlignVCenter | Qt::AlignLeft,
                     QFontMetrics(bold).elidedText(heading, Qt::ElideRight, int(box.width() - 20)));
    painter.setFont(q->font());
    y += line;

    const QList<LegendEntry> entries = legendEntries();
    const int extra = linksVisible ? 2 : 0;
    const int room = int((box.bottom() - 8 - y) / line);
    const int shown = int(entries.size()) + extra <= room ? int(entries.size()) : std::max(0, room - extra - 1);
    for (int i = 0; i < shown; ++i) {
        const LegendEntry &e = entries[i];
        const QRectF swatch(box.left() + 10, y + (line - 13) / 2, 13, 13);
        if (e.ghost) {
            QPen pen(e.color, 1.5, Qt::DashLine);
            painter.setPen(pen);
            painter.setBrush(Qt::NoBrush);
        } else {
            painter.setPen(QPen(e.color.darker(150), 1));
            painter.setBrush(e.color);
        }
        painter.drawRoundedRect(swatch, 2, 2);
        painter.setPen(theme.text);
        painter.drawText(QRectF(textLeft, y, textWidth, line), Qt::AlignVCenter | Qt::AlignLeft,
                         fm.elidedText(e.label, Qt::ElideRight, int(textWidth)));
        y += line;
    }
    if (shown < entries.size()) {
        painter.setPen(theme.mutedText);
        painter.drawText(QRectF(textLeft, y, textWidth, line), Qt::AlignVCenter | Qt::AlignLeft,
                         tr("… and %1 more").arg(entries.size() - shown));
        y += line;
    }
    if (extra && y + 2 * line <= box.bottom()) {
        const bool wraps = slice->layout.axisWraps(0) || slice->layout.axisWraps(1) || slice->layout.axisWraps(2);
        auto linkRow = [&](const QPen &pen, const QString &label) {
            painter.setPen(pen);
            painter.drawLine(QPointF(box.left() + 8, y + line / 2), QPointF(box.left() + 25, y + line / 2));
            painter.setPen(theme.text);
            painter.drawText(QRectF(textLeft, y, textWidth, line), Qt::AlignVCenter | Qt::AlignLeft, fm.elidedText(label, Qt::ElideRight, int(textWidth)));
            y += line;
        };
        linkRow(QPen(theme.iciLink, 2, Qt::SolidLine, Qt::FlatCap), tr("ICI link"));
        QPen wrapPen(theme.wrapLink, 2, Qt::SolidLine, Qt::FlatCap);
        wrapPen.setDashPattern({2.5, 1.5});
        linkRow(wrapPen, wraps ? tr("wraparound link") : tr("wraparound: none here"));
    }
}

void SliceView::Private::drawTitle(QPainter &painter, QSize size) const
{
    QFont bold = q->font();
    bold.setBold(true);
    bold.setPixelSize(std::max(12, QFontInfo(q->font()).pixelSize() + 3));
    const QFontMetrics bfm(bold), fm(q->font());
    const QRectF legend = legendRect(size, fm);
    const double right = (legend.isEmpty() ? size.width() : legend.left()) - 12;
    const double width = std::max(40.0, right - 16);
    painter.setFont(bold);
    painter.setPen(theme.text);
    painter.drawText(QRectF(16, 12, width, bfm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                     bfm.elidedText(slice->name, Qt::ElideMiddle, int(width)));

    QStringList parts;
    if (slice->generation)
        parts << slice->generation->displayName;
    if (slice->topology.chips() > 0)
        parts << tr("%1 (%2 chips)").arg(slice->topology.toString()).arg(slice->topology.chips());
    const int hosts = int(slice->hosts.size());
    parts << (hosts == 1 ? tr("1 host") : tr("%1 hosts").arg(hosts))
                 + (slice->chipsPerHost > 0 ? tr(" × %1 chips").arg(slice->chipsPerHost) : QString());
    QString status = toText(slice->status()).toUpper();
    if (!slice->problems.isEmpty() && !slice->intact)
        status += QStringLiteral(": ") + slice->problems.first();
    parts << status;
    if (slice->layout.isValid() && !projection.isFullLayerRange())
        parts << (projection.layerFirst() == projection.layerLast()
                      ? tr("showing layer z=%1 of 0–%2").arg(projection.layerFirst()).arg(projection.dims().z - 1)
                      : tr("showing layers z=%1–%2 of 0–%3").arg(projection.layerFirst()).arg(projection.layerLast()).arg(projection.dims().z - 1));
    painter.setFont(q->font());
    painter.setPen(theme.mutedText);
    painter.drawText(QRectF(16, 14 + bfm.height(), width, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                     fm.elidedText(parts.join(QStringLiteral(" · ")), Qt::ElideRight, int(width)));
}

void SliceView::Private::drawAxes(QPainter &painter, const SliceProjection &p, QSize size) const
{
    const QFontMetrics fm(q->font());
    const double baseline = size.height() - 12 - fm.height();

    // An axis gizmo, so the "x, y, z" of tooltips can be found on screen. Foreshortened like
    // the slice: an axis pointing at the viewer is short.
    const QPointF centre(40, baseline - 40);
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setFont(q->font());
    const char *names[3] = {"x", "y", "z"};
    for (int axis = 0; axis < 3; ++axis) {
        QVector3D v;
        v[axis] = 1;
        const QPointF d = p.mapVector(v) / p.scale() * 26; // unit length on screen: 26 px
        const double len = std::hypot(d.x(), d.y());
        painter.setPen(QPen(theme.mutedText, 1.5, Qt::SolidLine, Qt::RoundCap));
        if (len > 1)
            painter.drawLine(centre, centre + d);
        painter.setPen(theme.text);
        const QPointF tip = len > 1 ? centre + d * ((len + 9) / len) : centre + QPointF(-9, 9);
        painter.drawText(QRectF(tip.x() - 8, tip.y() - 8, 16, 16), Qt::AlignCenter, QLatin1String(names[axis]));
    }
}

void SliceView::Private::drawLayoutLabel(QPainter &painter, QSize size) const
{
    const QFontMetrics fm(q->font());
    const double baseline = size.height() - 12 - fm.height();
    painter.setFont(q->font());
    const QString label = tr("Logical layout: chips placed by worker id (no API reports physical positions)");
    const QString hints = tr("drag: turn · wheel: zoom · right-drag: pan · E: explode · PgUp/PgDn: layers · L: links · Home: reset");
    const int labelWidth = fm.horizontalAdvance(label);
    painter.setPen(theme.mutedText);
    painter.drawText(QRectF(16, baseline, size.width() - 32, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                     fm.elidedText(label, Qt::ElideRight, size.width() - 32));
    if (labelWidth + fm.horizontalAdvance(hints) + 64 < size.width())
        painter.drawText(QRectF(16, baseline, size.width() - 32, fm.height()), Qt::AlignRight | Qt::AlignVCenter, hints);
}

// ---- Interaction -------------------------------------------------------------------------------

std::optional<ChipCoord> SliceView::Private::chipAt(QPointF pos)
{
    if (!slice || chips.empty())
        return std::nullopt;
    // Only chips the picture shows: a chip skipped as hidden must not answer through a gap.
    const DrawOrder &shown = ensureOrder(projection, painting == ChipPainting::Sprites);
    return projection.hitTest(pos, [&](ChipCoord c) { return bool(shown.drawn[size_t(chipIndexOf(c))]); });
}

void SliceView::Private::setHovered(std::optional<ChipCoord> chip)
{
    if (chip == hovered)
        return;
    hovered = chip;
    q->update();
}

void SliceView::Private::pickHost(int workerId)
{
    if (workerId == selected)
        return;
    selected = workerId;
    q->update();
    Q_EMIT q->hostSelected(sliceName, workerId);
}

QString SliceView::Private::tooltipFor(ChipCoord c) const
{
    const ChipInfo &info = chips[size_t(chipIndexOf(c))];
    QStringList lines;
    lines << tr("%1 · chip (%2, %3, %4)").arg(slice->name).arg(c.x).arg(c.y).arg(c.z);
    if (info.host < 0) {
        lines << tr("no host owns this position");
        return lines.join(u'\n');
    }
    const Host &host = slice->hosts[info.host];
    lines << tr("worker %1 · chip %2 of %3 · %4").arg(host.workerId).arg(info.chipIndex).arg(slice->layout.chipsPerHost()).arg(toText(host.state));
    if (host.rayNode >= 0) {
        const RayNode &n = snapshot->rayNodes[host.rayNode];
        lines << tr("Ray node %1%2").arg(n.id, n.ip.isEmpty() ? QString() : QStringLiteral(" · ") + n.ip);
        if (!n.alive && !n.stateMessage.isEmpty())
            lines << n.stateMessage;
    } else {
        lines << tr("Ray node: none reports worker %1").arg(host.workerId);
    }
    if (host.pod >= 0) {
        const Pod &pod = snapshot->pods[host.pod];
        lines << tr("pod %1 (%2)").arg(pod.qualifiedName(), pod.phase.isEmpty() ? tr("phase unknown") : pod.phase);
    } else {
        lines << tr("pod: none known");
    }
    if (host.kubeNode >= 0) {
        const KubeNode &k = snapshot->kubeNodes[host.kubeNode];
        lines << tr("Kubernetes node %1 · node pool %2").arg(k.name, k.nodePool.isEmpty() ? tr("unknown") : k.nodePool);
    } else if (host.pod >= 0 && !snapshot->pods[host.pod].nodeName.isEmpty()) {
        lines << tr("Kubernetes node %1 · node pool unknown").arg(snapshot->pods[host.pod].nodeName);
    } else {
        lines << tr("Kubernetes node: none known");
    }
    const ChipUse use = info.chipIndex < host.chips.size() ? host.chips[info.chipIndex] : ChipUse{};
    if (use.placementGroup >= 0) {
        const PlacementGroup &g = snapshot->placementGroups[use.placementGroup];
        lines << tr("bundle %1 of placement group %2 (%3)").arg(use.bundleIndex).arg(g.name.isEmpty() ? g.id : g.name, g.state);
    } else {
        lines << tr("free: no placement group holds this chip");
    }
    if (host.workerId == 0 && slice->headHeldBy >= 0) {
        const PlacementGroup &g = snapshot->placementGroups[slice->headHeldBy];
        lines << tr("slice head resource held by %1 (%2)").arg(g.name.isEmpty() ? g.id : g.name, g.state);
    }
    return lines.join(u'\n');
}

// ---- SliceView ---------------------------------------------------------------------------------

SliceView::SliceView(QWidget *parent)
    : QWidget(parent)
    , d(std::make_unique<Private>())
{
    d->q = this;
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_OpaquePaintEvent); // every pixel is painted: skip Qt's background fill
    setMinimumSize(240, 180);
}

SliceView::~SliceView() = default;

void SliceView::setSlice(const SnapshotPtr &snapshot, const QString &sliceName)
{
    const SliceProjection before = d->projection;
    d->setData(snapshot, sliceName);
    update();
    if (!(before == d->projection))
        Q_EMIT projectionChanged();
}

QString SliceView::sliceName() const
{
    return d->sliceName;
}

void SliceView::setColorMode(ColorMode mode)
{
    if (d->mode == mode)
        return;
    d->mode = mode;
    d->rebuildChips();
    update();
}

ColorMode SliceView::colorMode() const
{
    return d->mode;
}

void SliceView::setTheme(const Theme &theme)
{
    d->theme = theme;
    d->rebuildChips(); // colours come from the theme; sprites follow via their key
    update();
}

void SliceView::setPreset(Preset preset)
{
    switch (preset) {
    case Preset::Isometric: d->projection.applyPreset(SliceProjection::Preset::Isometric); break;
    case Preset::Top: d->projection.applyPreset(SliceProjection::Preset::Top); break;
    case Preset::Front: d->projection.applyPreset(SliceProjection::Preset::Front); break;
    }
    d->autoFit = true;
    d->fitCamera();
    d->cameraChanged(false);
}

void SliceView::resetView()
{
    d->projection.applyPreset(SliceProjection::Preset::Isometric);
    d->projection.setLayerRange(0, d->projection.dims().z - 1);
    d->autoFit = true;
    d->fitCamera();
    d->cameraChanged(false);
}

const SliceProjection &SliceView::projection() const
{
    return d->projection;
}

void SliceView::setProjection(const SliceProjection &projection)
{
    SliceProjection p = projection;
    p.setDims(d->projection.dims());
    p.setViewport(d->projection.viewport());
    if (p == d->projection)
        return;
    d->projection = p;
    d->cameraChanged(true);
}

void SliceView::setExplode(double gap)
{
    const double before = d->projection.explode();
    d->projection.setExplode(gap);
    if (d->projection.explode() == before)
        return;
    // Exploding makes a 3D slice taller: reframe unless the user placed the camera.
    if (d->autoFit)
        d->fitCamera();
    d->cameraChanged(false);
}

double SliceView::explode() const
{
    return d->projection.explode();
}

void SliceView::setLayerRange(int zFirst, int zLast)
{
    const int first = d->projection.layerFirst(), last = d->projection.layerLast();
    d->projection.setLayerRange(zFirst, zLast);
    if (first == d->projection.layerFirst() && last == d->projection.layerLast())
        return;
    d->cameraChanged(false);
}

int SliceView::layerFirst() const
{
    return d->projection.layerFirst();
}

int SliceView::layerLast() const
{
    return d->projection.layerLast();
}

void SliceView::setLinksVisible(bool visible)
{
    if (d->linksVisible == visible)
        return;
    d->linksVisible = visible;
    update();
}

bool SliceView::linksVisible() const
{
    return d->linksVisible;
}

void SliceView::setLegendVisible(bool visible)
{
    if (d->legendVisible == visible)
        return;
    d->legendVisible = visible;
    if (d->autoFit)
        d->fitCamera();
    update();
}

void SliceView::selectHost(int workerId)
{
    if (!d->slice || workerId < 0 || workerId >= d->slice->hosts.size())
        workerId = -1;
    if (d->selected == workerId)
        return;
    d->selected = workerId;
    update();
}

int SliceView::selectedHost() const
{
    return d->selected;
}

void SliceView::setHighlightedHosts(const QList<int> &workerIds)
{
    d->highlighted = workerIds;
    update();
}

QList<int> SliceView::highlightedHosts() const
{
    return d->highlighted;
}

QString SliceView::tooltipAt(QPoint position) const
{
    const auto chip = d->chipAt(position);
    return chip ? d->tooltipFor(*chip) : QString();
}

void SliceView::render(QPainter &painter, QSize size)
{
    SliceProjection p = d->projection;
    if (p.viewport() != size) {
        const QSize old = p.viewport();
        p.setViewport(size);
        if (old.isEmpty() || d->autoFit) {
            // Not yet laid out (a hidden widget, a headless render): frame the slice for `size`.
            p.fit(d->sceneArea(size, fontMetrics()), d->fitExtent());
        } else {
            const double k = std::min(double(size.width()) / old.width(), double(size.height()) / old.height());
            p.setScale(p.scale() * k);
            p.setPan(p.pan() * k);
        }
    }
    d->paint(painter, p, size);
}

void SliceView::setChipPainting(ChipPainting painting)
{
    if (d->painting == painting)
        return;
    d->painting = painting;
    update();
}

SliceView::ChipPainting SliceView::chipPainting() const
{
    return d->painting;
}

QSize SliceView::sizeHint() const
{
    return QSize(900, 640);
}

void SliceView::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    if (d->projection.viewport() != size())
        d->projection.setViewport(size());
    d->paint(painter, d->projection, size());
}

void SliceView::resizeEvent(QResizeEvent *)
{
    const QSize old = d->projection.viewport();
    d->projection.setViewport(size());
    if (d->autoFit || old.isEmpty())
        d->fitCamera();
    // Otherwise pan is relative to the centre: the slice stays where it was relative to it.
}

void SliceView::mousePressEvent(QMouseEvent *event)
{
    setFocus(Qt::MouseFocusReason);
    d->pressPos = d->lastPos = event->position().toPoint();
    d->dragMoved = false;
    const bool pan = event->button() == Qt::RightButton || event->button() == Qt::MiddleButton
                     || (event->button() == Qt::LeftButton && (event->modifiers() & Qt::ShiftModifier));
    d->drag = pan ? Private::Drag::Pan : event->button() == Qt::LeftButton ? Private::Drag::Rotate
                                                                           : Private::Drag::None;
    event->accept();
}

void SliceView::mouseMoveEvent(QMouseEvent *event)
{
    const QPoint pos = event->position().toPoint();
    if (d->drag == Private::Drag::None) {
        d->setHovered(d->chipAt(pos));
        return;
    }
    if (!d->dragMoved && (pos - d->pressPos).manhattanLength() < QApplication::startDragDistance())
        return;
    if (!d->dragMoved) {
        d->dragMoved = true;
        QToolTip::hideText();
        d->setHovered(std::nullopt);
    }
    const QPoint delta = pos - d->lastPos;
    d->lastPos = pos;
    if (d->drag == Private::Drag::Rotate) {
        // Half a degree per pixel: a drag across a typical view turns the slice about once.
        d->projection.rotateBy(delta.x() * 0.5, delta.y() * 0.5);
        d->cameraChanged(false);
    } else {
        d->projection.setPan(d->projection.pan() + QPointF(delta));
        d->cameraChanged(true);
    }
}

void SliceView::mouseReleaseEvent(QMouseEvent *event)
{
    const bool click = !d->dragMoved && d->drag != Private::Drag::None && event->button() == Qt::LeftButton
                       && !(event->modifiers() & Qt::ShiftModifier);
    d->drag = Private::Drag::None;
    if (click)
        if (const auto chip = d->chipAt(event->position())) {
            const int w = d->workerAt(*chip);
            if (w >= 0)
                d->pickHost(w);
        }
    d->setHovered(d->chipAt(event->position()));
}

void SliceView::wheelEvent(QWheelEvent *event)
{
    const QPoint steps = event->angleDelta();
    if (steps.y() == 0) {
        event->ignore();
        return;
    }
    // One notch (120) zooms by about 19%, about the point under the cursor.
    d->projection.zoomAbout(event->position(), std::pow(2.0, steps.y() / 480.0));
    d->setHovered(std::nullopt);
    d->cameraChanged(true);
    event->accept();
}

void SliceView::keyPressEvent(QKeyEvent *event)
{
    SliceProjection &p = d->projection;
    constexpr double kTurn = 15;
    const QPointF centre(width() / 2.0, height() / 2.0);
    switch (event->key()) {
    // Arrows turn the slice the way dragging in that direction does.
    case Qt::Key_Left:
        p.rotateBy(-kTurn, 0);
        d->cameraChanged(false);
        break;
    case Qt::Key_Right:
        p.rotateBy(kTurn, 0);
        d->cameraChanged(false);
        break;
    case Qt::Key_Up:
        p.rotateBy(0, -kTurn);
        d->cameraChanged(false);
        break;
    case Qt::Key_Down:
        p.rotateBy(0, kTurn);
        d->cameraChanged(false);
        break;
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        p.zoomAbout(centre, 1.25);
        d->cameraChanged(true);
        break;
    case Qt::Key_Minus:
    case Qt::Key_Underscore:
        p.zoomAbout(centre, 1 / 1.25);
        d->cameraChanged(true);
        break;
    case Qt::Key_1: setPreset(Preset::Isometric); break;
    case Qt::Key_2: setPreset(Preset::Top); break;
    case Qt::Key_3: setPreset(Preset::Front); break;
    case Qt::Key_Home: resetView(); break;
    case Qt::Key_PageUp:
    case Qt::Key_PageDown: {
        // Browse layers: from the whole slice, PageDown shows the top layer alone and PageUp the
        // bottom one; after that both move the shown range by one layer, keeping its width.
        const int z = p.dims().z;
        if (z <= 1)
            break;
        const bool down = event->key() == Qt::Key_PageDown;
        if (p.isFullLayerRange()) {
            setLayerRange(down ? z - 1 : 0, down ? z - 1 : 0);
        } else {
            const int shift = down ? -1 : 1;
            if (p.layerFirst() + shift >= 0 && p.layerLast() + shift < z)
                setLayerRange(p.layerFirst() + shift, p.layerLast() + shift);
        }
        break;
    }
    case Qt::Key_E: setExplode(p.explode() > 0 ? 0.0 : 1.0); break;
    case Qt::Key_L: setLinksVisible(!d->linksVisible); break;
    case Qt::Key_BracketRight:
    case Qt::Key_BracketLeft: {
        if (!d->slice || d->slice->hosts.isEmpty())
            break;
        const int n = int(d->slice->hosts.size());
        const int step = event->key() == Qt::Key_BracketRight ? 1 : -1;
        d->pickHost(d->selected < 0 ? (step > 0 ? 0 : n - 1) : ((d->selected + step) % n + n) % n);
        break;
    }
    case Qt::Key_Escape:
        if (d->selected >= 0)
            d->pickHost(-1);
        else
            event->ignore();
        break;
    default: QWidget::keyPressEvent(event); return;
    }
}

bool SliceView::event(QEvent *event)
{
    switch (event->type()) {
    case QEvent::ToolTip: {
        // Built only now, for the one chip under the cursor.
        auto *help = static_cast<QHelpEvent *>(event);
        const auto chip = d->chipAt(help->pos());
        if (!chip) {
            QToolTip::hideText();
            event->ignore();
            return true;
        }
        // The tooltip stays while the cursor is on this chip's outline.
        QToolTip::showText(help->globalPos(), d->tooltipFor(*chip), this, d->projection.chipOutline(*chip).boundingRect().toAlignedRect());
        return true;
    }
    case QEvent::KeyPress: {
        // Tab moves the selection between hosts rather than focus between widgets.
        auto *key = static_cast<QKeyEvent *>(event);
        if ((key->key() == Qt::Key_Tab || key->key() == Qt::Key_Backtab) && !(key->modifiers() & (Qt::ControlModifier | Qt::AltModifier))
            && d->slice && !d->slice->hosts.isEmpty()) {
            const bool back = key->key() == Qt::Key_Backtab || (key->modifiers() & Qt::ShiftModifier);
            QKeyEvent bracket(QEvent::KeyPress, back ? Qt::Key_BracketLeft : Qt::Key_BracketRight, Qt::NoModifier);
            keyPressEvent(&bracket);
            return true;
        }
        break;
    }
    case QEvent::MouseButtonDblClick:
        if (static_cast<QMouseEvent *>(event)->button() == Qt::LeftButton) {
            resetView();
            return true;
        }
        break;
    case QEvent::Leave:
        d->setHovered(std::nullopt);
        break;
    default: break;
    }
    return QWidget::event(event);
}

} // namespace slicescope
