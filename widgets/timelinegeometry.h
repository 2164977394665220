// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Where a time sits on a time axis, as a value type: the timeline track's projection between time
// and x, and the entry of a history nearest to a time (what the track, the timeline's
// scrubToTime() and the history charts all snap to).

#include <QDateTime>
#include <QRect>

namespace slicescope {

class SnapshotHistory;

// The track's projection between time and x, shared by painting, the mouse and the tests
// (docs/style.md 10). Times are ms since the epoch; the span is never empty.
struct TimelineGeometry {
    QRect plot;            // where ticks are drawn, in widget coordinates
    qint64 firstMs = 0;    // the time at plot.left()
    qint64 lastMs = 0;     // the time at plot.right()

    // A span for `first`..`last` that is never empty: a single entry (or none) gets one minute
    // ending at it, so it sits at the right edge like the newest entry of any history.
    static TimelineGeometry forSpan(const QRect &plot, const QDateTime &first, const QDateTime &last);
    double xOf(qint64 ms) const;
    qint64 msAt(double x) const;   // clamped to the span
    // Axis labels: a round step (1 s ... 1 day) that leaves at least `minSpacingPx` between them.
    qint64 labelStepMs(int minSpacingPx) const;
};

// The entry of `history` nearest to `time` (the newest one at or before it, or the next one when
// that is nearer); 0 for a time before every entry, -1 when the history is empty.
int nearestEntry(const SnapshotHistory &history, const QDateTime &time);

} // namespace slicescope
