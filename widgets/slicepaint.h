// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The paint steps of the slice view (sliceview.h): each paints one kind of thing (chips from a
// SliceDrawOrder, trays, labels, the selection, highlights, the axes) from a SliceScene, the
// view's state as plain values, with every colour from the theme (look.h) and every position
// from the SliceProjection. None of them knows a widget; the view calls them in order for each
// frame. The text around the slice (legend, title, footer, tooltips) is slicepanels.h's.

#include "look.h"
#include "slicedraworder.h"
#include "sliceprojection.h"
#include "slicesprites.h"
#include "snapshot.h"

#include <QCoreApplication>
#include <QFont>
#include <QList>
#include <QPaintDevice>
#include <QPainter>
#include <QString>

#include <array>
#include <optional>

class QPainter;

namespace slicescope {

// What a frame shows, apart from the camera: the slice and what every chip of it shows, the
// theme, the font, the selection, highlights and the chip under the mouse.
struct SliceScene {
    SnapshotPtr snapshot;
    QString sliceName;
    const Slice *slice = nullptr; // inside snapshot; null when nothing is shown
    SliceChips chips;             // empty when the slice cannot be laid out
    ColorMode mode = ColorMode::Bundle;
    ActivityMetric metric = ActivityMetric::DutyCycle; // what Activity mode shows
    int sliceIndex = -1;                                // of `slice` in the snapshot
    QList<IdleChip> idle;                               // chips outlined as reserved but idle
    Theme theme = Theme::light();
    QFont font; // the view's
    bool linksVisible = true;
    bool legendVisible = true;
    int selected = -1; // worker id
    QList<int> highlighted;
    std::optional<tpu::ChipCoord> hovered;
    quint64 dataVersion = 1; // bumped whenever the slice, the colours or the theme change

    // The legend's entries, asked several times a frame: kept for one data version.
    mutable quint64 legendVersion = 0;
    mutable QList<LegendEntry> legendCache;
};

// What one frame keeps for the next: the draw orders, the sprites and the text panels.
struct SliceFrameCache {
    // Painter's order, rebuilt when the view octant, the layers, the explode state or the data
    // change, never while merely turning within an octant. [0]: every chip (the naive
    // baseline); [1]: hidden chips skipped. Both kept, so the render benchmark can alternate
    // paths without rebuilding either.
    std::array<SliceDrawOrder, 2> orders;
    SliceSprites sprites;
    LabelSprites labels;
    std::array<PanelImage, 3> panels; // legend, title, footer

    // The order for `p`, built now if the one kept is for another key.
    const SliceDrawOrder &order(const SliceScene &scene, const SliceProjection &p, bool cull);
    // The order kept for `p` when it matches (the one the picture was painted from); else null.
    const SliceDrawOrder *shown(const SliceScene &scene, const SliceProjection &p, bool cull) const;
};

namespace slicepaint {

// The device pixels per pixel of what `painter` paints on (a HiDPI screen's widget: 2; an image
// made at 1): sprites and panels are rendered at it.
inline qreal deviceRatio(const QPainter &painter)
{
    return painter.device() ? painter.device()->devicePixelRatioF() : 1.0;
}

// The view's words, translated in the view's context.
struct Tr {
    Q_DECLARE_TR_FUNCTIONS(slicescope::SliceView)
};

// One whole frame in `size`, calling the steps below and slicepanels.h's in order. Chips are
// blitted from sprites when `sprites` is set and the device is raster, else drawn as polygons
// (culled only on vector devices: on a raster one that is the naive baseline).
void frame(QPainter &painter, const SliceScene &scene, const SliceProjection &p, QSize size, bool sprites, SliceFrameCache &cache);

// How far around each chip centre framing must keep inside, in pitches (trays, wrap edges).
double fitExtent(const SliceScene &scene);

void background(QPainter &painter, const SliceScene &scene, QSize size);
void message(QPainter &painter, const SliceScene &scene, QSize size, const QString &text);
// The chips, trays and labels of `order`, blitted from `sprites` (raster devices only).
void chipsWithSprites(QPainter &painter, const SliceScene &scene, const SliceProjection &p, const SliceDrawOrder &order,
                      SliceSprites &sprites, LabelSprites &labels);
// The same as antialiased polygons: the naive baseline, and the vector (SVG) path.
void chipsWithPolygons(QPainter &painter, const SliceScene &scene, const SliceProjection &p, const SliceDrawOrder &order);
// A faint outline of the whole slice when only some layers show.
void sliceFrame(QPainter &painter, const SliceScene &scene, const SliceProjection &p);
void highlights(QPainter &painter, const SliceScene &scene, const SliceProjection &p);
// A dashed box around the selected host when none of its chips is on screen (`shown`: the order
// the chips were painted from, when it matches `p`; null counts every visible chip as shown).
void selection(QPainter &painter, const SliceScene &scene, const SliceProjection &p, const SliceDrawOrder *shown);
void hover(QPainter &painter, const SliceScene &scene, const SliceProjection &p);
// The outline of a chip reserved but idle: a bright line over a halo, visible on either theme
// and over any colour of the activity scale.
void idleOutline(QPainter &painter, const Theme &theme, const QPolygonF &silhouette);
void axes(QPainter &painter, const SliceScene &scene, const SliceProjection &p, QSize size);

} // namespace slicepaint

} // namespace slicescope
