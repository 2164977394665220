// SPDX-License-Identifier: GPL-3.0-or-later
// FleetTileLayout::place(): group headers and tiles from sizes and counts.
#include "fleettilelayout.h"

#include <algorithm>

namespace slicescope {

FleetTileLayout FleetTileLayout::place(const FleetTileSizes &m, int left, int width, int top, const QList<Run> &runs)
{
    FleetTileLayout l;
    l.columns = std::max(1, (width + m.gap) / (m.tileMinWidth + m.gap));
    l.tileWidth = (width - (l.columns - 1) * m.gap) / l.columns;
    int y = top;
    bool rowOpen = false; // tiles were placed since the last header: their last row needs closing
    int lastSection = -1, sectionHeader = -1;
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
        closeRow();
        l.headers << Header{run.group, QRect(left, y, width, m.headerHeight), run.tiles, run.section, run.collapsed};
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
