// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The fleet overview's tile grid as a value: from sizes and counts only (no fonts, no snapshot),
// where each group's header and each tile go. Columns fill the width; tiles stretch to the column
// width; each group starts a new row under its header. Painting, hit-testing and keyboard moves
// all read the rects this places.

#include <QList>
#include <QRect>

namespace slicescope {

struct FleetTileSizes {
    int tileMinWidth = 0, tileHeight = 0;
    int gap = 0;           // between tiles, and (half of it) under a header
    int margin = 0;        // under a group's last row
    int headerHeight = 0;
    int messageHeight = 0; // the "no slice matches" box, when there is no tile
};

struct FleetTileLayout {
    // `tiles` tiles of group `group`, shown one run after the other.
    struct Run {
        int group = -1;
        int tiles = 0;
    };
    struct Header {
        int group = -1;
        QRect rect;
        int shown = 0; // tiles under it
    };

    int columns = 1, tileWidth = 0;
    QList<Header> headers;
    QList<QRect> tiles; // in run order; top() never decreases
    QRect message;      // valid only when there is no tile
    int bottom = 0;     // the y below everything placed, margin included

    // Places `runs` in the columns [left, left + width), starting at `top`. A run of no tiles
    // gets no header.
    static FleetTileLayout place(const FleetTileSizes &sizes, int left, int width, int top, const QList<Run> &runs);
};

} // namespace slicescope
