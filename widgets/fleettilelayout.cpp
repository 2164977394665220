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
    for (const Run &run : runs) {
        if (run.tiles <= 0)
            continue;
        if (!l.headers.isEmpty())
            y += m.tileHeight + m.margin; // close the previous group's last row
        l.headers << Header{run.group, QRect(left, y, width, m.headerHeight), run.tiles};
        y += m.headerHeight + m.gap / 2;
        for (int i = 0; i < run.tiles; ++i) {
            const int col = i % l.columns;
            if (i > 0 && col == 0)
                y += m.tileHeight + m.gap;
            l.tiles << QRect(left + col * (l.tileWidth + m.gap), y, l.tileWidth, m.tileHeight);
        }
    }
    if (!l.headers.isEmpty()) {
        y += m.tileHeight + m.margin;
    } else {
        l.message = QRect(left, y, width, m.messageHeight);
        y += l.message.height() + m.margin;
    }
    l.bottom = y;
    return l;
}

} // namespace slicescope
