// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The events of a SnapshotHistory as an item model (the timeline's events list), and how an event
// is classified for the track: its lane (what kind of thing changed) and its tone (how it reads
// at a glance). Events are built by the history lazily, for the rows on screen (docs/style.md 9,
// 12): the model keeps one small summary per entry, not the events themselves.
//
// It lives in widgets/, not model/: its rows are coloured from the Theme (look.h, the widgets'
// single source of colour, whose look.cpp needs QtWidgets), and model/ must not depend on widgets.

#include "history.h"
#include "look.h"

#include <QAbstractTableModel>

#include <deque>

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

    HistoryEvent eventAt(int row) const;
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

} // namespace slicescope
