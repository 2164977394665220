// SPDX-License-Identifier: GPL-3.0-or-later
#include "timeline.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QSplitter>
#include <QTimer>
#include <QToolButton>
#include <QToolTip>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

namespace slicescope {

namespace {

constexpr int kCachedEntries = 48;      // events of this many entries kept built for the list
constexpr qint64 kScanSliceNs = 5'000'000;
constexpr int kLaneLabelWidth = 62;
constexpr int kRightMargin = 12;
constexpr int kTopMargin = 10;          // room for the cursor's handle
constexpr int kAxisHeight = 16;

QString utcText(const QDateTime &time, const QString &format)
{
    return time.toUTC().toString(format);
}

QString laneName(int lane)
{
    switch (TimelineLane(lane)) {
    case TimelineLane::Slices: return QObject::tr("Slices");
    case TimelineLane::Hosts: return QObject::tr("Hosts");
    case TimelineLane::PlacementGroups: return QObject::tr("PGs");
    case TimelineLane::Scaling: return QObject::tr("Scaling");
    }
    Q_UNREACHABLE();
}

QString laneToolTip(int lane)
{
    switch (TimelineLane(lane)) {
    case TimelineLane::Slices: return QObject::tr("Slices added, removed, or changing status (ready, reserved, degraded, provisioning)");
    case TimelineLane::Hosts: return QObject::tr("Hosts and Ray nodes dying, coming up, going missing; pods changing phase");
    case TimelineLane::PlacementGroups: return QObject::tr("Placement groups created, pending, rescheduling, removed");
    case TimelineLane::Scaling: return QObject::tr("RayClusters and worker groups added, removed or scaled");
    }
    Q_UNREACHABLE();
}

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

QString agoText(const QDateTime &time, const QDateTime &reference)
{
    const qint64 s = std::max<qint64>(0, time.secsTo(reference));
    if (s < 60)
        return QObject::tr("%1 s ago").arg(s);
    if (s < 3600)
        return QObject::tr("%1 min ago").arg(s / 60);
    if (s < 86400)
        return s % 3600 >= 60 ? QObject::tr("%1 h %2 min ago").arg(s / 3600).arg(s % 3600 / 60) : QObject::tr("%1 h ago").arg(s / 3600);
    return QObject::tr("%1 d %2 h ago").arg(s / 86400).arg(s % 86400 / 3600);
}

// ---- Geometry -----------------------------------------------------------------------------------

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

HistoryEvent HistoryEventModel::event(int row) const
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
    const HistoryEvent e = event(index.row());
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

// ---- TimelineTrack ------------------------------------------------------------------------------

TimelineTrack::TimelineTrack(QWidget *parent)
    : QWidget(parent)
{
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(false);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    setAccessibleName(tr("History timeline"));
}

void TimelineTrack::setModel(const HistoryEventModel *model, const SnapshotHistory *history)
{
    if (m_model)
        disconnect(m_model, nullptr, this, nullptr);
    m_model = model;
    m_history = history;
    if (m_model)
        connect(m_model, &HistoryEventModel::entriesChanged, this, &TimelineTrack::invalidate);
    invalidate();
}

void TimelineTrack::setTheme(const Theme &theme)
{
    m_theme = theme;
    invalidate();
}

void TimelineTrack::setCursor(int index, bool live)
{
    if (index == m_cursor && live == m_live)
        return;
    m_cursor = index;
    m_live = live;
    update();
}

void TimelineTrack::invalidate()
{
    m_cache = QPixmap();
    update();
}

QSize TimelineTrack::sizeHint() const
{
    return {600, kTopMargin + kTimelineLaneCount * 15 + kAxisHeight + 4};
}

QSize TimelineTrack::minimumSizeHint() const
{
    return {240, kTopMargin + kTimelineLaneCount * 11 + kAxisHeight + 4};
}

int TimelineTrack::laneHeight() const
{
    return std::max(8, (height() - kTopMargin - kAxisHeight - 4) / kTimelineLaneCount);
}

int TimelineTrack::laneTop(int lane) const
{
    return kTopMargin + lane * laneHeight();
}

TimelineGeometry TimelineTrack::geometry() const
{
    const QRect plot(kLaneLabelWidth, kTopMargin, std::max(1, width() - kLaneLabelWidth - kRightMargin), laneHeight() * kTimelineLaneCount);
    if (!m_history || m_history->isEmpty())
        return TimelineGeometry::forSpan(plot, {}, QDateTime::fromMSecsSinceEpoch(60'000, Qt::UTC));
    return TimelineGeometry::forSpan(plot, m_history->time(0), m_history->time(m_history->size() - 1));
}

int TimelineTrack::entryAtX(double x) const
{
    if (!m_history || m_history->isEmpty())
        return -1;
    const TimelineGeometry g = geometry();
    const qint64 ms = g.msAt(x);
    const int at = std::max(0, m_history->indexAt(QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC)));
    // indexAt() is the newest at or before; the next one may be nearer.
    if (at + 1 < m_history->size()) {
        const qint64 before = ms - m_history->time(at).toMSecsSinceEpoch();
        const qint64 after = m_history->time(at + 1).toMSecsSinceEpoch() - ms;
        if (after < before)
            return at + 1;
    }
    return at;
}

void TimelineTrack::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    m_cache = QPixmap();
}

void TimelineTrack::paintEvent(QPaintEvent *)
{
    const TimelineGeometry g = geometry();
    const qreal dpr = devicePixelRatioF();
    if (m_cache.isNull() || m_cache.size() != size() * dpr) {
        m_cache = QPixmap(size() * dpr);
        m_cache.setDevicePixelRatio(dpr);
        m_cache.fill(m_theme.window);
        QPainter cache(&m_cache);
        drawBackground(cache, g);
        drawTicks(cache, g);
        drawAxis(cache, g);
    }
    QPainter painter(this);
    painter.drawPixmap(0, 0, m_cache);
    drawCursor(painter, g);
    if (hasFocus()) {
        painter.setPen(QPen(m_theme.selection, 1, Qt::DotLine));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(rect().adjusted(0, 0, -1, -1));
    }
}

void TimelineTrack::drawBackground(QPainter &painter, const TimelineGeometry &g) const
{
    painter.setPen(Qt::NoPen);
    for (int lane = 0; lane < kTimelineLaneCount; ++lane) {
        const QRect row(g.plot.left(), laneTop(lane), g.plot.width(), laneHeight());
        painter.fillRect(row, lane % 2 ? m_theme.window : m_theme.panel);
    }
    painter.setPen(m_theme.mutedText);
    QFont font = painter.font();
    font.setPixelSize(std::clamp(laneHeight() - 3, 9, 12));
    painter.setFont(font);
    for (int lane = 0; lane < kTimelineLaneCount; ++lane)
        painter.drawText(QRect(4, laneTop(lane), kLaneLabelWidth - 8, laneHeight()), Qt::AlignVCenter | Qt::AlignRight, laneName(lane));
    painter.setPen(m_theme.border);
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(g.plot.adjusted(0, 0, -1, -1));
}

void TimelineTrack::drawAxis(QPainter &painter, const TimelineGeometry &g) const
{
    QFont font = painter.font();
    font.setPixelSize(11);
    painter.setFont(font);
    const QFontMetrics fm(font);
    const qint64 step = g.labelStepMs(fm.horizontalAdvance(QStringLiteral("00:00:00")) + 24);
    const QString format = step >= 86'400'000 ? QStringLiteral("MM-dd") : step >= 60'000 ? QStringLiteral("HH:mm")
                                                                                         : QStringLiteral("HH:mm:ss");
    const int baseline = g.plot.bottom() + 2;
    // The first round time at or after the start (round in UTC: steps divide a day).
    qint64 t = (g.firstMs / step + (g.firstMs % step ? 1 : 0)) * step;
    for (; t <= g.lastMs; t += step) {
        const double x = g.xOf(t);
        painter.setPen(QPen(m_theme.border, 1, Qt::DotLine));
        painter.drawLine(QPointF(x, g.plot.top() + 1), QPointF(x, g.plot.bottom()));
        painter.setPen(m_theme.mutedText);
        painter.drawLine(QPointF(x, baseline - 1), QPointF(x, baseline + 2));
        const QString label = utcText(QDateTime::fromMSecsSinceEpoch(t, Qt::UTC), format);
        const int w = fm.horizontalAdvance(label);
        // Centred on its tick, but never into the lane labels' gutter nor past the right edge.
        const int left = std::clamp(int(x) - w / 2, g.plot.left() - 2, width() - w - 1);
        painter.drawText(QRect(left, baseline + 2, w + 1, kAxisHeight), Qt::AlignHCenter | Qt::AlignTop, label);
    }
    // "UTC" once, in the gutter, so every label need not say it.
    painter.setPen(m_theme.mutedText);
    painter.drawText(QRect(4, baseline + 2, kLaneLabelWidth - 8, kAxisHeight), Qt::AlignRight | Qt::AlignTop, QStringLiteral("UTC"));
}

void TimelineTrack::drawTicks(QPainter &painter, const TimelineGeometry &g) const
{
    if (!m_model || !m_history)
        return;
    // One column per pixel and lane, holding the worst tone of the entries drawn there: a long
    // history of a busy cluster costs the plot's width, not its event count (docs/style.md 11).
    const int w = g.plot.width();
    std::vector<std::array<EventTone, kTimelineLaneCount>> columns(size_t(std::max(1, w)));
    for (auto &c : columns)
        c.fill(EventTone::None);
    for (const auto &entry : m_model->entries()) {
        if (entry.events == 0)
            continue;
        const int x = std::clamp(int(std::lround(g.xOf(entry.timeMs))) - g.plot.left(), 0, w - 1);
        for (int lane = 0; lane < kTimelineLaneCount; ++lane)
            columns[size_t(x)][size_t(lane)] = std::max(columns[size_t(x)][size_t(lane)], entry.lanes[lane]);
    }
    painter.setPen(Qt::NoPen);
    for (int lane = 0; lane < kTimelineLaneCount; ++lane) {
        const int top = laneTop(lane) + 2, h = laneHeight() - 4;
        for (int x = 0; x < w; ++x) {
            const EventTone tone = columns[size_t(x)][size_t(lane)];
            if (tone == EventTone::None)
                continue;
            // Neutral changes are drawn shorter: the eye should go to the coloured ones.
            const int inset = tone == EventTone::Neutral ? h / 4 : 0;
            painter.fillRect(QRect(g.plot.left() + x - 1, top + inset, 3, h - 2 * inset), eventToneColor(tone, m_theme));
        }
    }
}

void TimelineTrack::drawCursor(QPainter &painter, const TimelineGeometry &g) const
{
    if (!m_history || m_cursor < 0 || m_cursor >= m_history->size())
        return;
    painter.setRenderHint(QPainter::Antialiasing, true);
    const double x = std::round(g.xOf(m_history->time(m_cursor).toMSecsSinceEpoch())) + 0.5;
    const QColor color = m_live ? m_theme.ready : m_theme.selection;
    painter.setPen(QPen(color, 2));
    painter.drawLine(QPointF(x, g.plot.top() - 2), QPointF(x, g.plot.bottom() + 1));
    QPainterPath handle;
    handle.moveTo(x - 6, 1);
    handle.lineTo(x + 6, 1);
    handle.lineTo(x, kTopMargin - 1);
    handle.closeSubpath();
    painter.setPen(Qt::NoPen);
    painter.setBrush(color);
    painter.drawPath(handle);
    painter.setRenderHint(QPainter::Antialiasing, false);
}

void TimelineTrack::mousePressEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton)
        return QWidget::mousePressEvent(event);
    m_dragging = true;
    if (const int i = entryAtX(event->position().x()); i >= 0)
        Q_EMIT scrubbed(i);
}

void TimelineTrack::mouseMoveEvent(QMouseEvent *event)
{
    if (!m_dragging)
        return QWidget::mouseMoveEvent(event);
    if (const int i = entryAtX(event->position().x()); i >= 0)
        Q_EMIT scrubbed(i);
}

void TimelineTrack::mouseReleaseEvent(QMouseEvent *event)
{
    if (!m_dragging || event->button() != Qt::LeftButton)
        return QWidget::mouseReleaseEvent(event);
    m_dragging = false;
    if (const int i = entryAtX(event->position().x()); i >= 0)
        Q_EMIT released(i);
}

void TimelineTrack::keyPressEvent(QKeyEvent *event)
{
    switch (event->key()) {
    case Qt::Key_Left: Q_EMIT keyStep(-1); return;
    case Qt::Key_Right: Q_EMIT keyStep(+1); return;
    case Qt::Key_PageUp: Q_EMIT keyStep(-2); return;
    case Qt::Key_PageDown: Q_EMIT keyStep(+2); return;
    case Qt::Key_Home: Q_EMIT homePressed(); return;
    case Qt::Key_End: Q_EMIT endPressed(); return;
    default: QWidget::keyPressEvent(event);
    }
}

bool TimelineTrack::event(QEvent *event)
{
    if (event->type() != QEvent::ToolTip)
        return QWidget::event(event);
    // Built at hover time (docs/style.md 12): the entry nearest the mouse and what changed in it.
    auto *help = static_cast<QHelpEvent *>(event);
    const TimelineGeometry g = geometry();
    if (help->pos().x() < g.plot.left()) {
        for (int lane = 0; lane < kTimelineLaneCount; ++lane)
            if (help->pos().y() >= laneTop(lane) && help->pos().y() < laneTop(lane) + laneHeight()) {
                QToolTip::showText(help->globalPos(), laneToolTip(lane), this);
                return true;
            }
    }
    const int i = entryAtX(help->pos().x());
    if (i < 0) {
        QToolTip::hideText();
        return true;
    }
    QStringList lines{QStringLiteral("<b>%1 UTC</b>").arg(utcText(m_history->time(i), QStringLiteral("yyyy-MM-dd HH:mm:ss")))};
    const QList<HistoryEvent> events = m_history->events(i);
    constexpr int kShown = 8;
    for (int k = 0; k < std::min<int>(kShown, int(events.size())); ++k)
        lines << events[k].text.toHtmlEscaped();
    if (events.size() > kShown)
        lines << tr("... and %n more", nullptr, int(events.size()) - kShown);
    if (events.isEmpty())
        lines << tr("nothing changed");
    QToolTip::showText(help->globalPos(), lines.join(QStringLiteral("<br>")), this);
    return true;
}

// ---- Timeline -----------------------------------------------------------------------------------

Timeline::Timeline(QWidget *parent)
    : QWidget(parent)
{
    m_model = new HistoryEventModel(this);
    m_track = new TimelineTrack(this);
    m_track->setObjectName(QStringLiteral("timelineTrack"));

    m_liveButton = new QToolButton(this);
    m_liveButton->setObjectName(QStringLiteral("liveButton"));
    m_liveButton->setText(tr("Live"));
    m_liveButton->setCheckable(true);
    m_liveButton->setChecked(true);
    m_previousChange = new QToolButton(this);
    m_previousChange->setText(tr("◀ Change"));
    m_previousChange->setToolTip(tr("Previous moment something changed (PageUp on the track)"));
    m_nextChange = new QToolButton(this);
    m_nextChange->setText(tr("Change ▶"));
    m_nextChange->setToolTip(tr("Next moment something changed (PageDown on the track)"));
    m_positionLabel = new QLabel(this);
    m_positionLabel->setObjectName(QStringLiteral("timelinePosition"));
    m_positionLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_spanLabel = new QLabel(this);
    m_spanLabel->setObjectName(QStringLiteral("timelineSpan"));
    m_spanLabel->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    // Long texts must not widen the dock past the window: they are cut where space runs out.
    m_positionLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_positionLabel->setMinimumWidth(40);

    m_controls = new QHBoxLayout;
    m_controls->setContentsMargins(0, 0, 0, 0);
    m_controls->setSpacing(6);
    m_controls->addWidget(m_liveButton);
    m_controls->addWidget(m_previousChange);
    m_controls->addWidget(m_nextChange);
    m_controls->addSpacing(4);
    m_controls->addWidget(m_positionLabel, 1);

    auto *scrubber = new QWidget(this);
    auto *scrubberLayout = new QVBoxLayout(scrubber);
    scrubberLayout->setContentsMargins(6, 4, 4, 4);
    scrubberLayout->setSpacing(4);
    scrubberLayout->addLayout(m_controls);
    scrubberLayout->addWidget(m_track, 1);

    m_filter = new QLineEdit(this);
    m_filter->setObjectName(QStringLiteral("eventFilter"));
    m_filter->setPlaceholderText(tr("Filter events: slice, host, group, \"degraded\", \"host-died\"..."));
    m_filter->setClearButtonEnabled(true);
    m_list = new QTreeView(this);
    m_list->setObjectName(QStringLiteral("eventList"));
    m_list->setModel(m_model);
    m_list->setRootIsDecorated(false);
    m_list->setUniformRowHeights(true); // the list may hold many thousand rows: never measure them
    m_list->setAlternatingRowColors(true);
    m_list->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_list->setSelectionMode(QAbstractItemView::SingleSelection);
    m_list->setAllColumnsShowFocus(true);
    m_list->setIconSize(QSize(10, 10));
    m_list->setToolTip(tr("Click an event to see the cluster as it was then, with what changed selected"));
    const QFontMetrics fm = m_list->fontMetrics();
    m_list->header()->setStretchLastSection(true);
    m_list->header()->setSectionResizeMode(QHeaderView::Interactive);
    m_list->header()->resizeSection(HistoryEventModel::Time, fm.horizontalAdvance(QStringLiteral("00:00:00")) + 24);
    m_list->header()->resizeSection(HistoryEventModel::Kind, fm.horizontalAdvance(QStringLiteral("placement-group-added")) + 30);
    m_list->header()->setMinimumSectionSize(40);

    auto *events = new QWidget(this);
    auto *eventsLayout = new QVBoxLayout(events);
    eventsLayout->setContentsMargins(4, 4, 6, 4);
    eventsLayout->setSpacing(4);
    auto *filterRow = new QHBoxLayout;
    filterRow->setSpacing(6);
    filterRow->addWidget(m_filter, 1);
    filterRow->addWidget(m_spanLabel);
    eventsLayout->addLayout(filterRow);
    eventsLayout->addWidget(m_list, 1);

    auto *splitter = new QSplitter(Qt::Horizontal, this);
    splitter->setObjectName(QStringLiteral("timelineSplitter"));
    splitter->addWidget(scrubber);
    splitter->addWidget(events);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({640, 560}); // the events need room to say what changed
    splitter->setChildrenCollapsible(false);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);

    m_track->setModel(m_model, nullptr);
    connect(m_model, &HistoryEventModel::entriesChanged, this, &Timeline::onEntriesChanged);
    connect(m_liveButton, &QToolButton::clicked, this, [this] { goLive(); });
    connect(m_previousChange, &QToolButton::clicked, this, [this] { stepToChange(-1); });
    connect(m_nextChange, &QToolButton::clicked, this, [this] { stepToChange(+1); });
    connect(m_filter, &QLineEdit::textChanged, m_model, &HistoryEventModel::setFilterText);
    connect(m_model, &QAbstractItemModel::modelReset, this, &Timeline::updateCounts);
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &Timeline::updateCounts);
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, &Timeline::updateCounts);
    connect(m_track, &TimelineTrack::scrubbed, this, [this](int index) { setPosition(index); });
    connect(m_track, &TimelineTrack::released, this, [this](int index) {
        // Dropped on the newest entry: the reader wants now.
        if (m_history && index == m_history->size() - 1)
            goLive();
        else
            setPosition(index);
    });
    connect(m_track, &TimelineTrack::keyStep, this, [this](int step) {
        if (step == -2 || step == 2) {
            stepToChange(step / 2);
            return;
        }
        const int at = position();
        if (at < 0)
            return;
        const int next = std::clamp(at + step, 0, m_history->size() - 1);
        if (!m_live || next != at)
            setPosition(next);
    });
    connect(m_track, &TimelineTrack::homePressed, this, [this] {
        if (m_history && !m_history->isEmpty())
            setPosition(0);
    });
    connect(m_track, &TimelineTrack::endPressed, this, &Timeline::goLive);
    // Clicking a row is the documented gesture; Enter and double-click activate too.
    connect(m_list, &QTreeView::clicked, this, [this](const QModelIndex &index) { activateEventRow(index.row()); });
    connect(m_list, &QTreeView::activated, this, [this](const QModelIndex &index) { activateEventRow(index.row()); });
    setTheme(m_theme);
    onEntriesChanged();
}

void Timeline::setHistory(const SnapshotHistory *history)
{
    if (m_history)
        disconnect(m_history, nullptr, this, nullptr);
    m_history = history;
    if (m_history) // before the model's own handler, which tells this widget the entries changed
        connect(m_history, &QObject::destroyed, this, [this] {
            m_history = nullptr;
            m_track->setModel(m_model, nullptr);
        });
    m_live = true;
    m_serial = -1;
    m_model->setHistory(history); // emits entriesChanged -> onEntriesChanged
    m_track->setModel(m_model, history);
    onEntriesChanged();
}

void Timeline::setTheme(const Theme &theme)
{
    m_theme = theme;
    m_model->setTheme(theme);
    m_track->setTheme(theme);
    updateLiveButton();
}

int Timeline::position() const
{
    if (!m_history || m_history->isEmpty())
        return -1;
    if (m_live)
        return m_history->size() - 1;
    return std::max(0, m_history->indexOfSerial(m_serial));
}

qint64 Timeline::positionSerial() const
{
    const int at = position();
    return at < 0 ? -1 : m_history->serial(at);
}

QDateTime Timeline::positionTime() const
{
    const int at = position();
    return at < 0 ? QDateTime() : m_history->time(at);
}

void Timeline::setPosition(int index)
{
    moveTo(index, false);
}

void Timeline::moveTo(int index, bool emitAlways)
{
    if (!m_history || index < 0 || index >= m_history->size())
        return;
    const qint64 serial = m_history->serial(index);
    const bool changed = m_live || serial != m_serial;
    m_serial = serial;
    if (m_live)
        setLive(false);
    syncCursor();
    if (changed) {
        if (const int row = m_model->firstRowAtOrBefore(serial); row >= 0)
            m_list->scrollTo(m_model->index(row, 0), QAbstractItemView::PositionAtTop);
    }
    if (changed || emitAlways)
        Q_EMIT positionChanged(index);
}

void Timeline::scrubToTime(const QDateTime &time)
{
    if (!m_history || m_history->isEmpty() || !time.isValid())
        return;
    int at = std::max(0, m_history->indexAt(time));
    if (at + 1 < m_history->size() && time.msecsTo(m_history->time(at + 1)) < m_history->time(at).msecsTo(time))
        ++at;
    setPosition(at);
}

void Timeline::goLive()
{
    if (m_live) {
        updateLiveButton(); // a click on the checked button unchecks it: check it again
        return;
    }
    setLive(true);
    syncCursor();
    if (const int row = m_model->rowCount(); row > 0)
        m_list->scrollToTop();
}

bool Timeline::stepToChange(int direction)
{
    const int at = position();
    if (at < 0)
        return false;
    const auto &entries = m_model->entries();
    for (int i = at + direction; i >= 0 && i < int(entries.size()); i += direction) {
        if (entries[size_t(i)].events > 0) {
            setPosition(i);
            return true;
        }
    }
    return false;
}

void Timeline::activateEventRow(int row)
{
    const HistoryEvent event = m_model->event(row);
    if (!m_history || event.serial < 0)
        return;
    const int index = m_history->indexOfSerial(event.serial);
    if (index < 0)
        return;
    moveTo(index, true);
    const QModelIndex at = m_model->index(row, 0);
    if (m_list->currentIndex().row() != row)
        m_list->setCurrentIndex(at);
    Q_EMIT eventActivated(event);
}

void Timeline::addControl(QWidget *widget)
{
    m_controls->addWidget(widget);
}

void Timeline::setLive(bool live)
{
    if (m_live == live)
        return;
    m_live = live;
    if (live)
        m_serial = -1;
    updateLiveButton();
    Q_EMIT liveChanged(live);
}

void Timeline::onEntriesChanged()
{
    if (!m_history || m_history->isEmpty()) {
        if (!m_live)
            setLive(true);
    } else if (!m_live && m_history->indexOfSerial(m_serial) < 0) {
        // The entry being looked at was evicted: show the oldest one kept.
        m_serial = m_history->serial(0);
        syncCursor();
        Q_EMIT positionChanged(0);
    }
    syncCursor();
}

void Timeline::syncCursor()
{
    const int at = position();
    m_track->setCursor(at, m_live);
    m_model->setCurrentSerial(at < 0 ? -1 : m_history->serial(at));
    m_positionLabel->setText(positionText());
    const bool any = m_history && !m_history->isEmpty();
    updateCounts();
    const auto &entries = m_model->entries();
    bool before = false, after = false;
    for (int i = at - 1; any && i >= 0 && !before; --i)
        before = entries[size_t(i)].events > 0;
    for (int i = at + 1; any && i < int(entries.size()) && !after; ++i)
        after = entries[size_t(i)].events > 0;
    m_previousChange->setEnabled(before);
    m_nextChange->setEnabled(after);
}

void Timeline::updateCounts()
{
    if (!m_history || m_history->isEmpty()) {
        m_spanLabel->clear();
        return;
    }
    const QDateTime first = m_history->time(0), last = m_history->time(m_history->size() - 1);
    const QString events = m_model->filterText().isEmpty() ? tr("%n event(s)", nullptr, m_model->rowCount())
                                                           : tr("%n match(es)", nullptr, m_model->rowCount());
    m_spanLabel->setText(events + QStringLiteral(" · ") + tr("%n snapshot(s)", nullptr, m_history->size()));
    m_spanLabel->setToolTip(tr("The history kept: %1 to %2 UTC (View > History settings... bounds it)")
                                .arg(utcText(first, QStringLiteral("yyyy-MM-dd HH:mm:ss")), utcText(last, QStringLiteral("yyyy-MM-dd HH:mm:ss"))));
}

QString Timeline::positionText() const
{
    const int at = position();
    if (at < 0)
        return tr("No history yet: it fills as captures arrive");
    const QDateTime time = m_history->time(at);
    const QString when = utcText(time, QStringLiteral("yyyy-MM-dd HH:mm:ss")) + QStringLiteral(" UTC");
    if (m_live)
        return tr("%1 · following the newest capture").arg(when);
    return tr("%1 · %2").arg(when, agoText(time, m_history->time(m_history->size() - 1)));
}

void Timeline::updateLiveButton()
{
    m_liveButton->setChecked(m_live);
    // Lit while live, plain when scrubbed back: the reader sees at a glance which one it is.
    m_liveButton->setStyleSheet(m_live ? QStringLiteral("QToolButton#liveButton { background: %1; color: white; font-weight: bold;"
                                                        " border: 1px solid %2; border-radius: 3px; padding: 2px 10px; }")
                                             .arg(m_theme.ready.name(), m_theme.ready.darker(130).name())
                                       : QStringLiteral("QToolButton#liveButton { font-weight: bold; padding: 2px 10px; }"));
    m_liveButton->setToolTip(m_live ? tr("Following the newest capture") : tr("Return to now: follow the newest capture (End on the track)"));
}

} // namespace slicescope
