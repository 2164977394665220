// SPDX-License-Identifier: GPL-3.0-or-later
// FleetTileLayout::place(): group headers and tiles from sizes and counts.
#include "fleettilelayout.h"

#include <algorithm>

namespace slicescope {

FleetTileLayout FleetTileLayout::place(const FleetTileSizes &m, int left, int width, int top, const QList<Run> &runs)
{
    FleetTileLayout l;
    const int columnWidth = std::max(m.tileMinWidth, std::min(width / 5, m.tileRoomyWidth));
    l.columns = std::max(1, (width + m.gap) / (columnWidth + m.gap));
    l.tileWidth = (width - (l.columns - 1) * m.gap) / l.columns;
    int y = top;
    bool rowOpen = false; // tiles were placed since the last header: their last row needs closing
    int lastSection = -1, sectionHeader = -1;
    int shelfTop = top, shelfUsed = 0; // the open row's header line, and the columns its groups take
    auto closeRow = [&]() {
        if (rowOpen)
            y += m.tileHeight + m.margin;
        rowOpen = false;
    };
    for (const Run &run : runs) {
        if (run.tiles <= 0)
            continue;
        if (run.section >= 0 && run.section != lastSection) {
            closeRow();
            if (!l.headers.isEmpty() && l.headers.last().group >= 0 && l.headers.last().collapsed)
                y += m.margin / 2; // a collapsed group closed the previous section
            lastSection = run.section;
            sectionHeader = int(l.headers.size());
            l.headers << Header{-1, QRect(left, y, width, m.sectionHeight), 0, run.section, run.sectionCollapsed};
            y += m.sectionHeight + m.gap / 2;
        }
        if (run.section >= 0) {
            l.headers[sectionHeader].shown += run.tiles;
            if (run.sectionCollapsed)
                continue;
        }
        // A group that fits in one row shares it with the groups before it while their columns
        // last (a wide window is not half empty); its header spans its own columns only.
        const bool oneRow = !run.collapsed && run.tiles <= l.columns;
        if (oneRow && rowOpen && shelfUsed + run.tiles <= l.columns) {
            const int x = left + shelfUsed * (l.tileWidth + m.gap);
            const int span = run.tiles * l.tileWidth + (run.tiles - 1) * m.gap;
            l.headers << Header{run.group, QRect(x, shelfTop, span, m.headerHeight), run.tiles, run.section, run.collapsed};
            for (int i = 0; i < run.tiles; ++i)
                l.tiles << QRect(x + i * (l.tileWidth + m.gap), y, l.tileWidth, m.tileHeight);
            shelfUsed += run.tiles;
            continue;
        }
        closeRow();
        const int span = oneRow ? run.tiles * l.tileWidth + (run.tiles - 1) * m.gap : width;
        shelfTop = y;
        shelfUsed = oneRow ? run.tiles : l.columns; // after a longer group, or a folded one, a new row
        l.headers << Header{run.group, QRect(left, y, span, m.headerHeight), run.tiles, run.section, run.collapsed};
        y += m.headerHeight + m.gap / 2;
        if (run.collapsed)
            continue;
        for (int i = 0; i < run.tiles; ++i) {
            const int col = i % l.columns;
            if (i > 0 && col == 0)
                y += m.tileHeight + m.gap;
            l.tiles << QRect(left + col * (l.tileWidth + m.gap), y, l.tileWidth, m.tileHeight);
        }
        rowOpen = true;
    }
    if (!l.headers.isEmpty()) {
        y += rowOpen ? 0 : m.margin / 2; // after a folded header, half a margin
        closeRow();
    } else {
        l.message = QRect(left, y, width, m.messageHeight);
        y += l.message.height() + m.margin;
    }
    l.bottom = y;
    return l;
}

} // namespace slicescope
