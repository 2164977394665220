// SPDX-License-Identifier: GPL-3.0-or-later
#include "timelinegeometry.h"

#include "history.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace slicescope {

TimelineGeometry TimelineGeometry::forSpan(const QRect &plot, const QDateTime &first, const QDateTime &last)
{
    TimelineGeometry g;
    g.plot = plot;
    g.lastMs = last.isValid() ? last.toMSecsSinceEpoch() : 0;
    g.firstMs = first.isValid() ? first.toMSecsSinceEpoch() : g.lastMs;
    if (g.lastMs - g.firstMs < 1000) // one entry, or entries a moment apart: a minute ending there
        g.firstMs = g.lastMs - 60'000;
    return g;
}

double TimelineGeometry::xOf(qint64 ms) const
{
    const double span = double(lastMs - firstMs);
    return plot.left() + (double(ms - firstMs) / span) * std::max(0, plot.width() - 1);
}

qint64 TimelineGeometry::msAt(double x) const
{
    const double w = std::max(1, plot.width() - 1);
    const double t = std::clamp((x - plot.left()) / w, 0.0, 1.0);
    return firstMs + qint64(std::llround(t * double(lastMs - firstMs)));
}

qint64 TimelineGeometry::labelStepMs(int minSpacingPx) const
{
    static constexpr std::array<qint64, 19> steps{1'000, 2'000, 5'000, 10'000, 15'000, 30'000, 60'000, 120'000, 300'000, 600'000,
                                                  900'000, 1'800'000, 3'600'000, 7'200'000, 10'800'000, 21'600'000, 43'200'000,
                                                  86'400'000, 7 * 86'400'000LL};
    const double pxPerMs = double(std::max(1, plot.width())) / double(std::max<qint64>(1, lastMs - firstMs));
    for (qint64 step : steps)
        if (double(step) * pxPerMs >= minSpacingPx)
            return step;
    return steps.back();
}

int nearestEntry(const SnapshotHistory &history, const QDateTime &time)
{
    if (history.isEmpty())
        return -1;
    const int at = std::max(0, history.indexAt(time));
    // indexAt() is the newest at or before; the next one may be nearer.
    if (at + 1 < history.size() && time.msecsTo(history.time(at + 1)) < history.time(at).msecsTo(time))
        return at + 1;
    return at;
}

} // namespace slicescope
