// SPDX-License-Identifier: GPL-3.0-or-later
#include "historyeventmodel.h"

#include "timetext.h"

#include <QElapsedTimer>
#include <QFont>
#include <QTimer>

#include <algorithm>
#include <limits>

namespace slicescope {

namespace {

constexpr int kCachedEntries = 48;      // events of this many entries kept built for the list
constexpr qint64 kScanSliceNs = 5'000'000;

} // namespace

// ---- Classification -----------------------------------------------------------------------------

TimelineLane timelineLane(HistoryEventKind kind)
{
    switch (kind) {
    case HistoryEventKind::SliceAdded:
    case HistoryEventKind::SliceRemoved:
    case HistoryEventKind::SliceStatusChanged:
        return TimelineLane::Slices;
    case HistoryEventKind::HostDied:
    case HistoryEventKind::HostRemoved:
    case HistoryEventKind::HostUp:
    case HistoryEventKind::HostMissing:
    case HistoryEventKind::HostPending:
    case HistoryEventKind::RayNodeDied:
    case HistoryEventKind::RayNodeUp:
    case HistoryEventKind::PodAdded:
    case HistoryEventKind::PodRemoved:
    case HistoryEventKind::PodPhaseChanged:
        return TimelineLane::Hosts;
    case HistoryEventKind::PlacementGroupAdded:
    case HistoryEventKind::PlacementGroupStateChanged:
    case HistoryEventKind::PlacementGroupRemoved:
        return TimelineLane::PlacementGroups;
    case HistoryEventKind::RayClusterAdded:
    case HistoryEventKind::RayClusterRemoved:
    case HistoryEventKind::RayClusterStateChanged:
    case HistoryEventKind::WorkerGroupAdded:
    case HistoryEventKind::WorkerGroupRemoved:
    case HistoryEventKind::WorkerGroupScaled:
        return TimelineLane::Scaling;
    }
    Q_UNREACHABLE();
}

EventTone eventTone(const HistoryEvent &event)
{
    const QString to = event.to.toLower();
    switch (event.kind) {
    case HistoryEventKind::SliceStatusChanged:
        if (to == QLatin1String("degraded"))
            return EventTone::Bad;
        if (to == QLatin1String("provisioning"))
            return EventTone::Warning;
        if (to == QLatin1String("ready") || to == QLatin1String("reserved"))
            return EventTone::Good;
        return EventTone::Neutral;
    case HistoryEventKind::HostDied:
    case HistoryEventKind::HostMissing:
    case HistoryEventKind::RayNodeDied:
        return EventTone::Bad;
    case HistoryEventKind::HostPending:
        return EventTone::Warning;
    case HistoryEventKind::HostRemoved: // asked for (a scale-down or a removal), not a failure
        return EventTone::Neutral;
    case HistoryEventKind::HostUp:
    case HistoryEventKind::RayNodeUp:
        return EventTone::Good;
    case HistoryEventKind::PlacementGroupAdded:
    case HistoryEventKind::PlacementGroupStateChanged:
        if (to == QLatin1String("pending") || to == QLatin1String("rescheduling"))
            return EventTone::Warning;
        if (to == QLatin1String("created"))
            return EventTone::Good;
        return EventTone::Neutral;
    case HistoryEventKind::PodPhaseChanged:
        if (to == QLatin1String("failed") || to == QLatin1String("unknown"))
            return EventTone::Bad;
        if (to == QLatin1String("pending"))
            return EventTone::Warning;
        if (to == QLatin1String("running") || to == QLatin1String("succeeded"))
            return EventTone::Good;
        return EventTone::Neutral;
    case HistoryEventKind::RayClusterStateChanged:
        if (to.contains(QLatin1String("fail")))
            return EventTone::Bad;
        if (to == QLatin1String("ready"))
            return EventTone::Good;
        return EventTone::Neutral;
    case HistoryEventKind::SliceAdded:
    case HistoryEventKind::SliceRemoved:
    case HistoryEventKind::PlacementGroupRemoved:
    case HistoryEventKind::PodAdded:
    case HistoryEventKind::PodRemoved:
    case HistoryEventKind::RayClusterAdded:
    case HistoryEventKind::RayClusterRemoved:
    case HistoryEventKind::WorkerGroupAdded:
    case HistoryEventKind::WorkerGroupRemoved:
    case HistoryEventKind::WorkerGroupScaled:
        return EventTone::Neutral;
    }
    Q_UNREACHABLE();
}

QColor eventToneColor(EventTone tone, const Theme &theme)
{
    switch (tone) {
    case EventTone::None: return theme.panel;
    case EventTone::Neutral: return theme.mutedText;
    case EventTone::Good: return theme.ready;
    case EventTone::Warning: return theme.provisioning;
    case EventTone::Bad: return theme.degraded;
    }
    Q_UNREACHABLE();
}

// ---- HistoryEventModel --------------------------------------------------------------------------

HistoryEventModel::HistoryEventModel(QObject *parent)
    : QAbstractTableModel(parent)
{ }

void HistoryEventModel::setHistory(const SnapshotHistory *history)
{
    if (m_history)
        disconnect(m_history, nullptr, this, nullptr);
    m_history = history;
    if (m_history) {
        connect(m_history, &SnapshotHistory::entryAdded, this, &HistoryEventModel::onEntryAdded);
        connect(m_history, &SnapshotHistory::entriesEvicted, this, &HistoryEventModel::onEntriesEvicted);
        connect(m_history, &SnapshotHistory::cleared, this, &HistoryEventModel::rebuild);
        connect(m_history, &QObject::destroyed, this, [this] {
            m_history = nullptr;
            rebuild();
        });
    }
    rebuild();
}

void HistoryEventModel::setTheme(const Theme &theme)
{
    m_theme = theme;
    if (rowCount() > 0)
        Q_EMIT dataChanged(index(0, Kind), index(rowCount() - 1, Kind), {Qt::DecorationRole});
}

void HistoryEventModel::setCurrentSerial(qint64 serial)
{
    if (serial == m_currentSerial)
        return;
    m_currentSerial = serial;
    if (rowCount() > 0)
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1), {Qt::FontRole, Qt::ForegroundRole});
}

HistoryEventModel::EntrySummary HistoryEventModel::summarize(int index) const
{
    EntrySummary s;
    s.serial = m_history->serial(index);
    s.timeMs = m_history->time(index).toMSecsSinceEpoch();
    const QList<HistoryEvent> events = m_history->events(index);
    s.events = int(events.size());
    for (const HistoryEvent &e : events) {
        EventTone &lane = s.lanes[int(timelineLane(e.kind))];
        lane = std::max(lane, eventTone(e));
    }
    // The list shows the newest entry first: keep what was just built.
    m_cache.prepend({s.serial, events});
    if (m_cache.size() > kCachedEntries)
        m_cache.removeLast();
    return s;
}

void HistoryEventModel::rebuild()
{
    beginResetModel();
    m_entries.clear();
    m_cache.clear();
    m_matches.clear();
    m_evictedEvents = 0;
    m_scanNext = -1;
    ++m_scanGeneration;
    if (m_history) {
        qint64 upTo = 0;
        for (int i = 0; i < m_history->size(); ++i) {
            EntrySummary s = summarize(i);
            upTo += s.events;
            s.eventsUpTo = upTo;
            m_entries.push_back(s);
        }
    }
    endResetModel();
    if (!m_filter.isEmpty() && !m_entries.empty()) {
        m_scanNext = int(m_entries.size()) - 1;
        QTimer::singleShot(0, this, [this, generation = m_scanGeneration] {
            if (generation == m_scanGeneration)
                scanSlice();
        });
    }
    Q_EMIT entriesChanged();
}

qint64 HistoryEventModel::totalEvents() const
{
    return m_entries.empty() ? m_evictedEvents : m_entries.back().eventsUpTo;
}

qint64 HistoryEventModel::eventsBefore(size_t entry) const
{
    return entry == 0 ? m_evictedEvents : m_entries[entry - 1].eventsUpTo;
}

void HistoryEventModel::onEntryAdded(qint64 serial)
{
    const int index = m_history->indexOfSerial(serial);
    if (index < 0 || index != int(m_entries.size())) { // out of step (never expected): start over
        rebuild();
        return;
    }
    EntrySummary s = summarize(index);
    s.eventsUpTo = totalEvents() + s.events;
    if (m_filter.isEmpty()) {
        if (s.events > 0)
            beginInsertRows({}, 0, s.events - 1);
        m_entries.push_back(s);
        if (s.events > 0)
            endInsertRows();
    } else {
        m_entries.push_back(s);
        QList<HistoryEvent> found;
        for (const HistoryEvent &e : eventsOf(index))
            if (matches(e))
                found << e;
        if (!found.isEmpty()) {
            beginInsertRows({}, 0, int(found.size()) - 1);
            m_matches = found + m_matches;
            endInsertRows();
        }
    }
    Q_EMIT entriesChanged();
}

void HistoryEventModel::onEntriesEvicted(int count)
{
    count = std::min(count, int(m_entries.size()));
    if (count <= 0)
        return;
    const qint64 gone = m_entries[size_t(count - 1)].eventsUpTo - m_evictedEvents;
    const qint64 firstKept = size_t(count) < m_entries.size() ? m_entries[size_t(count)].serial : std::numeric_limits<qint64>::max();
    if (m_filter.isEmpty()) {
        const int rows = rowCount();
        if (gone > 0)
            beginRemoveRows({}, rows - int(gone), rows - 1);
        m_evictedEvents = m_entries[size_t(count - 1)].eventsUpTo;
        m_entries.erase(m_entries.begin(), m_entries.begin() + count);
        if (gone > 0)
            endRemoveRows();
    } else {
        m_evictedEvents = m_entries[size_t(count - 1)].eventsUpTo;
        m_entries.erase(m_entries.begin(), m_entries.begin() + count);
        qsizetype keep = m_matches.size();
        while (keep > 0 && m_matches[keep - 1].serial < firstKept)
            --keep;
        if (keep < m_matches.size()) {
            beginRemoveRows({}, int(keep), int(m_matches.size()) - 1);
            m_matches.resize(keep);
            endRemoveRows();
        }
        if (m_scanNext >= 0)
            m_scanNext = m_scanNext - count; // -1 and below: the scan is done
        if (m_scanNext < 0)
            m_scanNext = -1;
    }
    Q_EMIT entriesChanged();
}

std::pair<int, int> HistoryEventModel::locate(int row) const
{
    // Row r (newest first) is event number t = total - r counting from the oldest, 1-based; its
    // entry is the first whose running total reaches t, and within it the events keep the
    // history's order.
    const qint64 t = totalEvents() - row;
    const auto it = std::lower_bound(m_entries.begin(), m_entries.end(), t, [](const EntrySummary &s, qint64 v) { return s.eventsUpTo < v; });
    if (it == m_entries.end())
        return {-1, -1};
    return {int(it - m_entries.begin()), int(it->eventsUpTo - t)};
}

const QList<HistoryEvent> &HistoryEventModel::eventsOf(int entry) const
{
    const qint64 serial = m_entries[size_t(entry)].serial;
    for (qsizetype i = 0; i < m_cache.size(); ++i) {
        if (m_cache[i].first == serial) {
            if (i > 0)
                m_cache.move(i, 0);
            return m_cache.first().second;
        }
    }
    m_cache.prepend({serial, m_history->events(entry)});
    if (m_cache.size() > kCachedEntries)
        m_cache.removeLast();
    return m_cache.first().second;
}

HistoryEvent HistoryEventModel::eventAt(int row) const
{
    if (row < 0 || row >= rowCount())
        return {};
    if (!m_filter.isEmpty())
        return m_matches[row];
    const auto [entry, k] = locate(row);
    if (entry < 0)
        return {};
    const QList<HistoryEvent> &events = eventsOf(entry);
    return k >= 0 && k < events.size() ? events[k] : HistoryEvent{};
}

int HistoryEventModel::firstRowAtOrBefore(qint64 serial) const
{
    if (!m_filter.isEmpty()) {
        const auto it = std::find_if(m_matches.begin(), m_matches.end(), [serial](const HistoryEvent &e) { return e.serial <= serial; });
        return it == m_matches.end() ? -1 : int(it - m_matches.begin());
    }
    // Entries are in serial order; the rows of entry e start at (events of newer entries).
    const auto it = std::upper_bound(m_entries.begin(), m_entries.end(), serial, [](qint64 v, const EntrySummary &s) { return v < s.serial; });
    if (it == m_entries.begin())
        return -1;
    const qint64 row = totalEvents() - std::prev(it)->eventsUpTo;
    return row < rowCount() ? int(row) : -1;
}

bool HistoryEventModel::matches(const HistoryEvent &e) const
{
    return e.text.contains(m_filter, Qt::CaseInsensitive) || e.subject.contains(m_filter, Qt::CaseInsensitive)
           || toText(e.kind).contains(m_filter, Qt::CaseInsensitive);
}

void HistoryEventModel::setFilterText(const QString &text)
{
    const QString filter = text.trimmed();
    if (filter == m_filter)
        return;
    beginResetModel();
    m_filter = filter;
    m_matches.clear();
    ++m_scanGeneration;
    m_scanNext = m_filter.isEmpty() || m_entries.empty() ? -1 : int(m_entries.size()) - 1;
    endResetModel();
    if (m_scanNext >= 0)
        scanSlice(); // the newest matches at once, the rest in slices
}

void HistoryEventModel::scanSlice()
{
    if (m_scanNext < 0 || !m_history)
        return;
    QElapsedTimer clock;
    clock.start();
    QList<HistoryEvent> found;
    while (m_scanNext >= 0 && (found.isEmpty() || clock.nsecsElapsed() < kScanSliceNs)) {
        if (m_entries[size_t(m_scanNext)].events > 0)
            for (const HistoryEvent &e : m_history->events(m_scanNext)) // not through the cache: a scan would flush it
                if (matches(e))
                    found << e;
        --m_scanNext;
        if (clock.nsecsElapsed() >= kScanSliceNs)
            break;
    }
    if (!found.isEmpty()) {
        const int first = int(m_matches.size());
        beginInsertRows({}, first, first + int(found.size()) - 1);
        m_matches += found;
        endInsertRows();
    }
    if (m_scanNext >= 0)
        QTimer::singleShot(0, this, [this, generation = m_scanGeneration] {
            if (generation == m_scanGeneration)
                scanSlice();
        });
}

int HistoryEventModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid())
        return 0;
    if (!m_filter.isEmpty())
        return int(m_matches.size());
    return int(std::min<qint64>(totalEvents() - m_evictedEvents, std::numeric_limits<int>::max()));
}

int HistoryEventModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant HistoryEventModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const HistoryEvent e = eventAt(index.row());
    switch (role) {
    case Qt::DisplayRole:
        switch (Column(index.column())) {
        case Time: return utcText(e.time, QStringLiteral("HH:mm:ss"));
        case Kind: return toText(e.kind);
        case Text: return e.text;
        case ColumnCount: break;
        }
        return {};
    case Qt::ToolTipRole: {
        QString tip = QStringLiteral("%1 UTC · %2\n%3").arg(utcText(e.time, QStringLiteral("yyyy-MM-dd HH:mm:ss")), toText(e.kind), e.text);
        if (!e.from.isEmpty() || !e.to.isEmpty())
            tip += QStringLiteral("\n%1 → %2").arg(e.from.isEmpty() ? tr("(new)") : e.from, e.to.isEmpty() ? tr("(gone)") : e.to);
        return tip;
    }
    case Qt::DecorationRole:
        if (index.column() == Kind)
            return eventToneColor(eventTone(e), m_theme);
        return {};
    case Qt::ForegroundRole:
        // Scrubbed back, what had not happened yet at the cursor is drawn muted.
        if (m_currentSerial >= 0 && e.serial > m_currentSerial)
            return m_theme.mutedText;
        return {};
    case Qt::FontRole:
        if (e.serial == m_currentSerial) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        return {};
    case SerialRole:
        return e.serial;
    case ToneRole:
        return int(eventTone(e));
    default:
        return {};
    }
}

QVariant HistoryEventModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case Time: return tr("Time (UTC)");
    case Kind: return tr("Kind");
    case Text: return tr("What changed");
    case ColumnCount: break;
    }
    return {};
}

} // namespace slicescope
