// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// SliceScope's icons: a small set drawn here as vector paths on a 24-unit grid (2-unit strokes,
// round caps), not files. The browser build has no Qt Svg, and drawn icons are crisp at every size
// and device pixel ratio and take the theme's colours: an icon made by icon() paints in the
// application palette's text colour when it is painted (so it follows a theme switch without being
// made again), muted when disabled; a status icon keeps its status colour (look.h).

#include "snapshot.h"

#include <QColor>
#include <QIcon>

class QPainter;
class QRectF;

namespace slicescope {

enum class IconKind
{
    // views
    Overview,
    Slice,
    Tables,
    History,
    Timeline,
    Problems,
    JobLog,
    WhyPending,
    // actions
    Reserve,
    Release,
    Scale,
    Search,
    Copy,
    OpenExternal,
    RayDashboard, // the Ray dashboard's page of a node
    CloudConsole, // the cloud provider's console page of a VM
    Open,
    Save,
    Export,
    Live,
    Keyboard,
    // statuses (drawn in their status colours by statusIcon())
    Ready,
    Reserved,
    Degraded,
    Provisioning,
    Dead,
};

// Draws `kind` into `rect` (square; the 24-unit grid is scaled to it) in `color`.
void paintIcon(QPainter &painter, const QRectF &rect, IconKind kind, const QColor &color);

// An icon in the palette's text colour (muted when disabled; the highlight colour when selected).
QIcon icon(IconKind kind);
// A slice status's icon, in its status colour of the theme the palette is (look.h).
QIcon statusIcon(SliceStatus status);
// The icon kind of a slice status.
IconKind statusIconKind(SliceStatus status);

} // namespace slicescope
