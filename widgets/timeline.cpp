// SPDX-License-Identifier: GPL-3.0-or-later
#include "timeline.h"

#include "history.h"
#include "searchfield.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSplitter>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>

namespace slicescope {

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
    makeSearchField(m_filter);
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
    m_track->setAlertTicks(&m_alertTicks);
    connect(m_track, &TimelineTrack::alertTickClicked, this, &Timeline::activateAlertTick);
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
    m_alertTicks.clear(); // another history's alerts
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
    setPosition(nearestEntry(*m_history, time));
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
    const HistoryEvent event = m_model->eventAt(row);
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

void Timeline::recordAlerts(const QList<Alert> &active, qint64 serial)
{
    const int index = m_history ? m_history->indexOfSerial(serial) : -1;
    if (index < 0)
        return;
    if (m_alertTicks.record(active, serial, m_history->time(index)) > 0)
        m_track->alertTicksChanged();
}

void Timeline::activateAlertTick(int index)
{
    if (!m_history || index < 0 || index >= m_alertTicks.size())
        return;
    const AlertTick tick = m_alertTicks.ticks()[size_t(index)]; // a copy: the log may change under the signal
    const int entry = m_history->indexOfSerial(tick.serial);
    if (entry < 0)
        return;
    moveTo(entry, true);
    Q_EMIT alertTickActivated(tick);
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
    // The ticks follow the history: a cleared one (a new source) forgets them and the alerts
    // active, an evicted entry takes its ticks along.
    if (!m_history || m_history->isEmpty())
        m_alertTicks.clear();
    else if (m_alertTicks.dropBefore(m_history->serial(0)) > 0)
        m_track->alertTicksChanged();
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
