// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// When each alert began, for the timeline's alert ticks (issue 15): a log fed the AlertEngine's
// active alerts after every snapshot, in time order, that keeps one AlertTick per alert id that
// was not active at the snapshot before (an alert that clears and fires again ticks again).
//
// It follows the SnapshotHistory it sits beside: each tick names the history entry (serial) it
// began in, dropBefore() forgets those of evicted entries, and a hard cap bounds it whatever the
// history's policy (the oldest go first). The "+N more" rollups are no alerts of their own and
// never tick; an alert hidden in a rollup ticks when it is first listed.

#include "alerts.h"

#include <QDateTime>
#include <QList>
#include <QMetaType>
#include <QSet>
#include <QString>

#include <deque>

namespace slicescope {

struct AlertTick {
    qint64 serial = -1; // the history entry in which the alert was first active
    qint64 timeMs = 0;  // that entry's time, ms since the epoch (where the tick is drawn)
    AlertKind kind = AlertKind::SliceDegraded;
    AlertSeverity severity = AlertSeverity::Warning;
    AlertSubjectKind subjectKind = AlertSubjectKind::Slice;
    QString subject;              // as Alert::subject
    QString text;                 // the alert's sentence when it began
    QString selectSlice;          // what clicking the tick selects (either may be empty)
    QString selectPlacementGroup;
    QString id;                   // Alert::id
    QDateTime since;              // when its condition began (may be before the tick: an idle run)
    friend bool operator==(const AlertTick &, const AlertTick &) = default;
};

class AlertTickLog
{
public:
    // 8192 ticks of ~300 bytes: ~2.5 MB at most, however long the session.
    static constexpr int kDefaultMaxTicks = 8192;
    explicit AlertTickLog(int maxTicks = kDefaultMaxTicks);

    // The engine's alerts after the snapshot of history entry `serial` taken at `time`: an alert
    // whose id was not in the previous call's list adds a tick. Serials and times are expected in
    // order. Returns how many ticks were added.
    int record(const QList<Alert> &active, qint64 serial, const QDateTime &time);
    // Forgets the ticks of entries before `serial` (the history's oldest kept entry); returns how
    // many. The alerts active now are still remembered: they do not tick again.
    int dropBefore(qint64 serial);
    // Forgets everything, the alerts active included (a new source, a new engine).
    void clear();

    const std::deque<AlertTick> &ticks() const { return m_ticks; }
    int size() const { return int(m_ticks.size()); }
    bool isEmpty() const { return m_ticks.empty(); }
    int maxTicks() const { return m_maxTicks; }

private:
    std::deque<AlertTick> m_ticks; // oldest first
    QSet<QString> m_active;        // ids listed at the last record()
    int m_maxTicks;
};

} // namespace slicescope

Q_DECLARE_METATYPE(slicescope::AlertTick)
