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
//
// The widget only says where the reader wants to be (positionChanged, liveChanged); the window
// shows the snapshot. Events are built by the history lazily, for the rows on screen (docs/style.md
// 9, 12): the list keeps one small summary per entry, not the events themselves.

#include "history.h"
#include "look.h"

#include <QAbstractTableModel>
#include <QDateTime>
#include <QPixmap>
#include <QRect>
#include <QWidget>

#include <deque>

class QLabel;
class QLineEdit;
class QHBoxLayout;
class QToolButton;
class QTreeView;

namespace slicescope {

// The lanes of the track, top to bottom.
enum class TimelineLane
{
    Slices,
    Hosts,
    PlacementGroups,
    Scaling
};
inline constexpr int kTimelineLaneCount = 4;
TimelineLane timelineLane(HistoryEventKind kind);

// How an event reads at a glance, for its tick and its row's swatch.
enum class EventTone
{
    None,
    Neutral,
    Good,
    Warning,
    Bad
};
EventTone eventTone(const HistoryEvent &event);
QColor eventToneColor(EventTone tone, const Theme &theme);

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

// The events of a history as rows, newest entry first, each entry's events in the history's
// order. Rows are built when asked for (a few entries' events are cached), so a long history of
// a large cluster costs one small summary per entry. With a filter text set, only events whose
// kind, subject or text contain it are rows, found by a scan done in slices of a few ms.
class HistoryEventModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        Time,
        Kind,
        Text,
        ColumnCount
    };
    enum Role
    {
        SerialRole = Qt::UserRole + 1,
        ToneRole
    };

    explicit HistoryEventModel(QObject *parent = nullptr);

    void setHistory(const SnapshotHistory *history);
    void setTheme(const Theme &theme);
    // Rows of this entry are bold (the entry under the scrubber); -1 for none.
    void setCurrentSerial(qint64 serial);
    void setFilterText(const QString &text);
    QString filterText() const { return m_filter; }
    bool isScanning() const { return m_scanNext >= 0; } // a filter scan is still running

    HistoryEvent event(int row) const;
    // The first row (newest first) of the newest entry at or before `serial`, or -1.
    int firstRowAtOrBefore(qint64 serial) const;

    // Per entry, what the track draws: the worst tone per lane and how many events there were.
    struct EntrySummary {
        qint64 serial = -1;
        qint64 timeMs = 0;
        int events = 0;
        qint64 eventsUpTo = 0;  // events of every entry added so far up to this one, for row lookup
        EventTone lanes[kTimelineLaneCount] = {};
    };
    const std::deque<EntrySummary> &entries() const { return m_entries; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

Q_SIGNALS:
    // The per-entry summaries changed (entries added, evicted, or all of them replaced).
    void entriesChanged();

private:
    void rebuild();
    void onEntryAdded(qint64 serial);
    void onEntriesEvicted(int count);
    EntrySummary summarize(int index) const;
    qint64 totalEvents() const;
    qint64 eventsBefore(size_t entry) const;
    // Where an unfiltered row lives: the entry (deque index) and the event within it.
    std::pair<int, int> locate(int row) const;
    const QList<HistoryEvent> &eventsOf(int entry) const;
    bool matches(const HistoryEvent &event) const;
    void scanSlice();

    const SnapshotHistory *m_history = nullptr;
    Theme m_theme = Theme::light();
    std::deque<EntrySummary> m_entries;       // parallel to the history's indexes
    qint64 m_evictedEvents = 0;               // events of entries evicted so far
    qint64 m_currentSerial = -1;
    QString m_filter;
    QList<HistoryEvent> m_matches;            // filtered mode: newest first
    int m_scanNext = -1;                      // the next entry index the filter scan reads, or -1
    qint64 m_scanGeneration = 0;
    mutable QList<std::pair<qint64, QList<HistoryEvent>>> m_cache; // serial -> events, most recent first
};

// The painted track (the scrubber proper). Its cursor is the Timeline's position.
class TimelineTrack : public QWidget
{
    Q_OBJECT
public:
    explicit TimelineTrack(QWidget *parent = nullptr);

    void setModel(const HistoryEventModel *model, const SnapshotHistory *history);
    void setTheme(const Theme &theme);
    // The entry under the cursor (-1: none) and whether the cursor follows the newest one.
    void setCursor(int index, bool live);
    TimelineGeometry geometry() const;
    // The nearest entry to an x position, or -1 when the history is empty.
    int entryAtX(double x) const;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    // The user pressed or dragged to this entry (index), or released the mouse there.
    void scrubbed(int index);
    void released(int index);
    // Keyboard: step entries (+1/-1), changes (+2/-2 as "next/previous change"), Home, End.
    void keyStep(int step);
    void homePressed();
    void endPressed();

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    bool event(QEvent *event) override;

private:
    void drawBackground(QPainter &painter, const TimelineGeometry &g) const;
    void drawAxis(QPainter &painter, const TimelineGeometry &g) const;
    void drawTicks(QPainter &painter, const TimelineGeometry &g) const;
    void drawCursor(QPainter &painter, const TimelineGeometry &g) const;
    int laneTop(int lane) const;
    int laneHeight() const;
    void invalidate();

    const HistoryEventModel *m_model = nullptr;
    const SnapshotHistory *m_history = nullptr;
    Theme m_theme = Theme::light();
    int m_cursor = -1;
    bool m_live = true;
    bool m_dragging = false;
    QPixmap m_cache; // background, lanes, ticks and axis: redrawn only when the history changes
};

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

    // Appends a widget at the right end of the controls row (the window's "Charts" toggle).
    void addControl(QWidget *widget);

    TimelineTrack *track() const { return m_track; }
    QTreeView *eventList() const { return m_list; }
    HistoryEventModel *eventModel() const { return m_model; }
    QLineEdit *eventFilter() const { return m_filter; }
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

// "4 min ago", "2 h 5 min ago", "12 s ago": how long before `reference` a time was.
QString agoText(const QDateTime &time, const QDateTime &reference);

} // namespace slicescope
