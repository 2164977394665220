// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Time travel: a scrubber over a SnapshotHistory's time span and the events list beside it.
//
//  - The track shows the history's span in UTC with one lane per kind of change (slices, hosts,
//    placement groups, scaling); a tick marks each entry in which something of that kind changed,
//    coloured by what it became (bad, warning, good, neutral). Clicking or dragging moves the
//    cursor to the nearest entry; the keyboard steps entries (Left/Right), changes (PageUp/Down),
//    the oldest entry (Home) and live (End).
//  - "Live" follows the newest entry and is highlighted while it does. Scrubbed back, new entries
//    keep arriving in the history (the track and the list grow) but the cursor stays where it was.
//    Dropping the cursor on the newest entry, or pressing End, returns to live.
//  - The events list holds every event of the history, newest first, filterable by text; the rows
//    of the entry under the cursor are bold, newer ones (not yet happened at the cursor) muted.
//    Activating a row (click, Enter) moves the cursor to its entry and emits eventActivated() so
//    the window can select what changed.
//  - Alert ticks: the window hands over the alert engine's active alerts after each capture
//    (recordAlerts()); the timeline keeps when each began (AlertTickLog, model/alertticks.h) for
//    as long as the history keeps that entry, and the track draws them above the lanes. Clicking
//    one moves the cursor to its entry and emits alertTickActivated().
//
// The widget only says where the reader wants to be (positionChanged, liveChanged); the window
// shows the snapshot. Events are built by the history lazily, for the rows on screen (docs/style.md
// 9, 12): the list keeps one small summary per entry, not the events themselves.
//
// The pieces: historyeventmodel.h (the events list's model, the lanes and tones),
// timelinegeometry.h (time <-> x), timelinetrack.h (the painted track), timetext.h (UTC and
// "ago" texts); this file holds the container that joins them.

#include "alertticks.h"
#include "historyeventmodel.h"
#include "look.h"
#include "timelinetrack.h"
#include "timetext.h"

#include <QDateTime>
#include <QWidget>

class QLabel;
class QLineEdit;
class QHBoxLayout;
class QToolButton;
class QTreeView;

namespace slicescope {

class SnapshotHistory;

// The scrubber, its controls and the events list: what the window docks under its views.
class Timeline : public QWidget
{
    Q_OBJECT
public:
    explicit Timeline(QWidget *parent = nullptr);

    // Not owned; may be null. Resets to live.
    void setHistory(const SnapshotHistory *history);
    const SnapshotHistory *history() const { return m_history; }
    void setTheme(const Theme &theme);

    bool isLive() const { return m_live; }
    // The entry shown: the newest while live, -1 when the history is empty.
    int position() const;
    qint64 positionSerial() const;
    QDateTime positionTime() const;

    // Moves the cursor to entry `index` and leaves live (even at the newest entry: the view then
    // stays there while new entries arrive). Emits positionChanged() when the entry changed.
    void setPosition(int index);
    // The entry nearest to `time` (the charts ask for this when clicked).
    void scrubToTime(const QDateTime &time);
    void goLive();
    // Moves to the previous/next entry in which something changed; false when there is none.
    bool stepToChange(int direction);

    // Moves to the event's entry and emits eventActivated() (what clicking its row does).
    void activateEventRow(int row);

    // The alerts active after the history's entry `serial` was added (the newest): those not
    // active at the previous call begin there. Ignored for an entry the history no longer holds.
    void recordAlerts(const QList<Alert> &active, qint64 serial);
    const AlertTickLog &alertTicks() const { return m_alertTicks; }
    // Moves to tick `index`'s entry and emits alertTickActivated() (what clicking it does).
    void activateAlertTick(int index);

    // Appends a widget at the right end of the controls row (the window's "Charts" toggle).
    void addControl(QWidget *widget);

    TimelineTrack *track() const { return m_track; }
    QTreeView *eventList() const { return m_list; }
    HistoryEventModel *eventModel() const { return m_model; }
    QLineEdit *filterEdit() const { return m_filter; }
    QToolButton *liveButton() const { return m_liveButton; }
    QString positionText() const; // the label next to the Live button
    // Short: the views above it matter more; the list scrolls and the track's lanes shrink.
    QSize sizeHint() const override { return {1000, 190}; }

Q_SIGNALS:
    // The reader moved the cursor to entry `index` (not emitted for entries arriving while live).
    void positionChanged(int index);
    // Live was entered or left.
    void liveChanged(bool live);
    // An event was activated; positionChanged() to its entry came first.
    void eventActivated(const slicescope::HistoryEvent &event);
    // An alert tick was activated; positionChanged() to its entry came first.
    void alertTickActivated(const slicescope::AlertTick &tick);

private:
    void onEntriesChanged();
    void syncCursor();
    void updateCounts();
    void updateLiveButton();
    void setLive(bool live);
    void moveTo(int index, bool emitAlways);

    const SnapshotHistory *m_history = nullptr;
    Theme m_theme = Theme::light();
    bool m_live = true;
    qint64 m_serial = -1;          // the entry shown when not live
    AlertTickLog m_alertTicks;     // follows the history: evicted entries take their ticks along
    HistoryEventModel *m_model = nullptr;
    TimelineTrack *m_track = nullptr;
    QTreeView *m_list = nullptr;
    QLineEdit *m_filter = nullptr;
    QToolButton *m_liveButton = nullptr;
    QToolButton *m_previousChange = nullptr;
    QToolButton *m_nextChange = nullptr;
    QLabel *m_positionLabel = nullptr;
    QLabel *m_spanLabel = nullptr;
    QHBoxLayout *m_controls = nullptr;
};

} // namespace slicescope
