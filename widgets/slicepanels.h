// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The text around the slice in the slice view (sliceview.h): the legend, the title and the
// footer, each drawn into a panel image once and blitted while it stays the same, the tooltip of
// a chip, and the rectangle all that leaves for the slice itself. Inputs are a SliceScene
// (slicepaint.h); colours come from its theme (look.h).

#include "slicepaint.h"

#include <QRect>

#include <functional>

class QFontMetrics;

namespace slicescope::slicepaint {

// Where the legend goes and the rectangle the slice is framed in, clear of the title and footer.
// The legend sits top right beside the slice when that leaves the slice most of the width; in a
// narrow view it goes under the title and the slice under it; when neither leaves room (short and
// narrow) it sits top right over the slice's area.
struct PanelLayout {
    QRectF legend; // empty when there is none
    QRectF area;   // the slice's
    bool legendUnderTitle = false;
};
PanelLayout panelLayout(const SliceScene &scene, QSize size, const QFontMetrics &fm);
// The legend's lines: what the slice's colours mean (cached per data version), then the plan.
QList<LegendEntry> legendEntries(const SliceScene &scene);
QRectF sceneArea(const SliceScene &scene, QSize size, const QFontMetrics &fm);
QRectF legendRect(const SliceScene &scene, QSize size, const QFontMetrics &fm);

void legend(QPainter &painter, const SliceScene &scene, QSize size);
// The slice's name, shape, hosts, status and the layers shown.
void title(QPainter &painter, const SliceScene &scene, const SliceProjection &p, QSize size);
// The "logical layout" line and the key hints.
void layoutLabel(QPainter &painter, const SliceScene &scene, QSize size);

// Blits `draw`'s picture of `rect` from `cache`, redrawing it when `key` (with the rectangle,
// font and data version) changed; vector devices get `draw` itself, so their text stays text.
void panel(QPainter &painter, const SliceScene &scene, PanelImage &cache, const QByteArray &key, const QRect &rect,
           const std::function<void(QPainter &)> &draw);

// The text hover shows for chip `c` (a tooltip): its host, Ray node, pod, node and bundle, and,
// when the snapshot has activity, activityTooltipLines().
QString chipTooltip(const SliceScene &scene, tpu::ChipCoord c);
// Chip `chipIndex` of host `hostIndex` (of the scene's slice): duty cycle, TensorCore and HBM
// bandwidth, HBM used of total (GiB), where from and how old ("5 s ago" against the snapshot's
// time), or "activity unknown: <why>"; and whether it is idle while reserved. Empty when the
// snapshot has no activity table.
QStringList activityTooltipLines(const SliceScene &scene, int hostIndex, int chipIndex);

} // namespace slicescope::slicepaint
