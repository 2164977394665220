// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The fleet overview's tile grid as a value: from sizes and counts only (no fonts, no snapshot),
// where each group's header and each tile go. Columns fill the width; tiles stretch to the column
// width. A group that fits in one row shares the row with the groups before it while columns are left
// (its header spans its own columns); a longer group starts a new row under a full-width header. In a fleet, a section header (a context, a
// RayCluster or a generation, with its figures) comes before its first group. A collapsed group keeps
// its header and shows no tile; a collapsed section keeps only its own header. Painting,
// hit-testing and keyboard moves all read the rects this places.

#include <QList>
#include <QRect>

namespace slicescope {

struct FleetTileSizes {
    int tileMinWidth = 0, tileHeight = 0;
    int gap = 0;           // between tiles, and (half of it) under a header
    int margin = 0;        // under a group's last row
    int headerHeight = 0;
    int messageHeight = 0; // the "no slice matches" box, when there is no tile
    int sectionHeight = 0; // a section's header (fleet figures): taller than a group's
    // Tiles grow with the window: a column is at least a fifth of the width, up to this (0: no growth),
    // so a wide window shows fewer, roomier tiles whose texts are not cut.
    int tileRoomyWidth = 0;
};

struct FleetTileLayout {
    // `tiles` tiles of group `group`, shown one run after the other.
    struct Run {
        int group = -1;
        int tiles = 0;
        int section = -1;       // -1: none (one cluster); runs of a section come one after the other
        bool collapsed = false; // the group shows its header only
        bool sectionCollapsed = false; // the section shows its header only (same for all its runs)
    };
    struct Header {
        int group = -1;   // -1 for a section's header
        QRect rect;
        int shown = 0;    // tiles it stands for (passing the filter), drawn or collapsed
        int section = -1; // the section it heads or belongs to
        bool collapsed = false;
    };

    int columns = 1, tileWidth = 0;
    QList<Header> headers;
    QList<QRect> tiles; // in run order; top() never decreases
    QRect message;      // valid only when there is no tile
    int bottom = 0;     // the y below everything placed, margin included

    // Places `runs` in the columns [left, left + width), starting at `top`. A run of no tiles
    // gets no header. `tiles` holds a rect for every tile of a run that is not collapsed.
    static FleetTileLayout place(const FleetTileSizes &sizes, int left, int width, int top, const QList<Run> &runs);
};

} // namespace slicescope
