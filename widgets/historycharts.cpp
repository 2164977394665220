// SPDX-License-Identifier: GPL-3.0-or-later
#include "historycharts.h"

#include "history.h"
#include "historychart_p.h"
#include "historychartdata_p.h"
#include "timelinegeometry.h"
#include "timetext.h"

#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QGraphicsLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHash>
#include <QLabel>
#include <QPointer>
#include <QShowEvent>
#include <QTimer>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <QtCharts/QChart>

#include <algorithm>
#include <array>
#include <limits>

// The panel: the pickers, the refresh policy (coalesced, throttled, paused while hidden) and the
// public API. What the charts plot is historychartdata_p.h; one chart's Qt Charts objects,
// styling, filling and hit-testing are historychart_p.h.

namespace slicescope {

using historychart::AgeUnit;
using historychart::ChartState;
using historychart::Column;
using historychart::EntryTimes;
using historychart::Rows;
using historychart::SeenInHistory;
using historychart::TimeAxis;

struct HistoryChartsPanel::Private {
    HistoryChartsPanel *q;
    QPointer<const SnapshotHistory> history;
    QList<QMetaObject::Connection> connections;
    Theme theme = Theme::light();
    QDateTime cursor;
    QString generation, workerGroup, activityScope;
    QStringList generations, workerGroups, activityScopes;
    bool anyActivity = false;
    QHash<QString, QString> placementGroupNames; // by id, learnt as the history grows (activity picker)
    int refreshInterval = kDefaultRefreshIntervalMs;
    int maxPoints = kDefaultMaxPointsPerSeries;
    int refreshCount = 0;
    double lastRefreshMs = 0;
    bool dirty = true;
    QTimer timer;
    QElapsedTimer sinceRefresh;
    std::array<ChartState, kChartCount> charts;
    QComboBox *generationBox = nullptr;
    QComboBox *workerGroupBox = nullptr;
    QComboBox *activityBox = nullptr;
    QLabel *summary = nullptr;
    QLabel *zoomLabel = nullptr;
    QToolButton *resetZoomButton = nullptr;
    // The age axis' unit, picked per refresh from the longest wait in the history.
    AgeUnit ageUnit;
    QDateTime hovered; // the hovered entry's time; invalid when the mouse is off the plots
    // The zoom: the range picked (epoch ms, UTC), and whether it follows the newest entry.
    struct Zoom {
        bool on = false;
        bool followsLive = false;
        qint64 loMs = 0, hiMs = 0;
    } zoom;
    TimeAxis shown;        // what the x axes show
    int lastShownEntry = -1; // the newest entry shown: the legends' values when nothing is hovered or scrubbed

    explicit Private(HistoryChartsPanel *owner)
        : q(owner)
    { }

    ChartState &state(Chart c) { return charts[size_t(c)]; }
    const ChartState &state(Chart c) const { return charts[size_t(c)]; }

    void buildUi();
    void scheduleRefresh();
    void refresh();
    void updatePickers(int n);
    bool hasData() const { return history && !history->isEmpty(); }
    void updateCursor(ChartState &c)
    {
        c.updateCursor(cursor, hasData());
        c.updateHover(hovered, hasData());
    }
    void updateCursors()
    {
        for (ChartState &c : charts)
            updateCursor(c);
    }
    void setHover(const QDateTime &time);
    void updateLegends();
    void zoomTo(qint64 loMs, qint64 hiMs);
    bool resetZoom();
};

void HistoryChartsPanel::Private::setHover(const QDateTime &time)
{
    if (time == hovered)
        return;
    hovered = time;
    for (ChartState &c : charts)
        c.updateHover(hovered, hasData());
    updateLegends();
}

void HistoryChartsPanel::Private::updateLegends()
{
    int entry = -1;
    if (hasData()) {
        if (hovered.isValid())
            entry = nearestEntry(*history, hovered);
        else if (cursor.isValid())
            entry = nearestEntry(*history, cursor);
        else
            entry = std::clamp(lastShownEntry, 0, history->size() - 1);
    }
    for (ChartState &c : charts)
        c.setLegendValues(history, entry);
}

void HistoryChartsPanel::Private::zoomTo(qint64 loMs, qint64 hiMs)
{
    if (!hasData())
        return;
    if (hiMs < loMs)
        std::swap(loMs, hiMs);
    if (hiMs - loMs < kMinZoomMs) { // a few entries at least, and round ticks of a second
        const qint64 middle = loMs + (hiMs - loMs) / 2;
        loMs = middle - kMinZoomMs / 2;
        hiMs = loMs + kMinZoomMs;
    }
    zoom.on = true;
    zoom.loMs = loMs;
    zoom.hiMs = hiMs;
    // A range reaching the newest entry follows it as entries arrive.
    zoom.followsLive = hiMs >= history->time(history->size() - 1).toMSecsSinceEpoch();
    refresh();
    Q_EMIT q->timeRangeChanged();
}

bool HistoryChartsPanel::Private::resetZoom()
{
    if (!zoom.on)
        return false;
    zoom = Zoom();
    refresh();
    Q_EMIT q->timeRangeChanged();
    return true;
}

void HistoryChartsPanel::Private::buildUi()
{
    auto *outer = new QVBoxLayout(q);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->setSpacing(4);

    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(6, 4, 6, 0);
    auto *generationLabel = new QLabel(tr("Generation"), q);
    generationBox = new QComboBox(q);
    generationBox->setObjectName(QStringLiteral("generation"));
    generationBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    generationLabel->setBuddy(generationBox);
    auto *groupLabel = new QLabel(tr("Worker group"), q);
    workerGroupBox = new QComboBox(q);
    workerGroupBox->setObjectName(QStringLiteral("workerGroup"));
    workerGroupBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    groupLabel->setBuddy(workerGroupBox);
    auto *activityLabel = new QLabel(tr("Chip activity of"), q);
    activityBox = new QComboBox(q);
    activityBox->setObjectName(QStringLiteral("activityScope"));
    activityBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    activityBox->setMaximumWidth(320); // a long slice or group name is elided, not the bar pushed wide
    activityLabel->setBuddy(activityBox);
    summary = new QLabel(q);
    summary->setObjectName(QStringLiteral("summary"));
    summary->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    summary->setToolTip(tr("Drag across a chart to zoom into a time range"));
    // While zoomed: the range shown and the way back (the summary makes room for them).
    zoomLabel = new QLabel(q);
    zoomLabel->setObjectName(QStringLiteral("zoomRange"));
    zoomLabel->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    zoomLabel->setToolTip(tr("Double-click a chart or press Escape on it to see the whole history"));
    zoomLabel->hide();
    resetZoomButton = new QToolButton(q);
    resetZoomButton->setObjectName(QStringLiteral("resetZoom"));
    resetZoomButton->setText(tr("Reset zoom"));
    resetZoomButton->setToolTip(tr("Show the whole history (double-click a chart, or Escape)"));
    resetZoomButton->hide();
    QObject::connect(resetZoomButton, &QToolButton::clicked, q, [this] { resetZoom(); });
    bar->addWidget(generationLabel);
    bar->addWidget(generationBox);
    bar->addSpacing(12);
    bar->addWidget(groupLabel);
    bar->addWidget(workerGroupBox);
    bar->addSpacing(12);
    bar->addWidget(activityLabel);
    bar->addWidget(activityBox);
    bar->addStretch(1);
    bar->addWidget(summary);
    bar->addWidget(zoomLabel);
    bar->addWidget(resetZoomButton);
    outer->addLayout(bar);

    QObject::connect(generationBox, &QComboBox::activated, q, [this](int index) {
        q->setGeneration(generationBox->itemData(index).toString());
    });
    QObject::connect(workerGroupBox, &QComboBox::activated, q, [this](int index) {
        q->setWorkerGroup(workerGroupBox->itemData(index).toString());
    });
    QObject::connect(activityBox, &QComboBox::activated, q, [this](int index) {
        q->setActivityScope(activityBox->itemData(index).toString());
    });

    auto *grid = new QGridLayout;
    grid->setContentsMargins(4, 0, 4, 4);
    grid->setSpacing(4);
    const std::array<std::pair<Chart, QString>, kChartCount> kinds{{
        {Chart::Chips, tr("chips")},
        {Chart::Slices, tr("slices")},
        {Chart::PlacementGroups, tr("groups")},
        {Chart::WorkerGroups, tr("slices")},
        {Chart::Activity, tr("duty cycle (%)")},
    }};
    for (int i = 0; i < kChartCount; ++i) {
        ChartState &c = charts[size_t(i)];
        c.build(kinds[size_t(i)].first, kinds[size_t(i)].second, i, q);
        const Chart kind = c.kind;
        c.view->hovered = [this, kind](QPoint pos) {
            const ChartState &s = state(kind);
            const QDateTime time = s.timeAt(pos, false);
            setHover(time.isValid() && hasData() ? history->time(nearestEntry(*history, time)) : QDateTime());
            const QString text = s.band->isVisible() ? QString() : s.hoverText(history, pos); // no tooltip over a selection
            if (text.isEmpty())
                QToolTip::hideText();
            else
                QToolTip::showText(s.view->viewport()->mapToGlobal(pos), text, s.view->viewport());
        };
        c.view->clicked = [this, kind](QPoint pos) {
            const int entry = state(kind).entryAt(history, pos);
            if (entry >= 0)
                Q_EMIT q->cursorTimeRequested(history->time(entry));
        };
        c.view->left = [this] {
            QToolTip::hideText();
            setHover(QDateTime());
        };
        c.view->dragged = [this, kind](int fromX, int toX) {
            ChartState &s = state(kind);
            if (fromX == toX) {
                s.hideBand();
                return;
            }
            QToolTip::hideText();
            s.showBand(fromX, toX);
        };
        c.view->selected = [this, kind](int fromX, int toX) {
            ChartState &s = state(kind);
            const bool shown = s.band->isVisible(); // a drag wholly beside the plot selects nothing
            s.hideBand();
            const QDateTime a = s.timeAt(QPoint(fromX, 0), true), b = s.timeAt(QPoint(toX, 0), true);
            if (shown && a.isValid() && b.isValid() && a != b)
                zoomTo(a.toMSecsSinceEpoch(), b.toMSecsSinceEpoch());
        };
        c.view->resetRequested = [this] {
            return resetZoom();
        };
        c.view->resized = [this, kind] {
            ChartState &s = state(kind);
            s.layoutLegend();
            updateCursor(s);
        };
        QObject::connect(c.chart, &QChart::plotAreaChanged, q, [this, kind] { updateCursor(state(kind)); });
        // Two by two; the activity chart, the one read over time most, across the whole width.
        if (kind == Chart::Activity)
            grid->addWidget(c.view, 2, 0, 1, 2);
        else
            grid->addWidget(c.view, i / 2, i % 2);
    }
    grid->setRowStretch(0, 1);
    grid->setRowStretch(1, 1);
    grid->setRowStretch(2, 1);
    grid->setColumnStretch(0, 1);
    grid->setColumnStretch(1, 1);
    outer->addLayout(grid, 1);

    timer.setSingleShot(true);
    QObject::connect(&timer, &QTimer::timeout, q, [this] { refresh(); });
}

void HistoryChartsPanel::Private::scheduleRefresh()
{
    dirty = true;
    if (!q->isVisible()) // hidden (another tab): showEvent() catches up
        return;
    if (timer.isActive())
        return; // a redraw is due already; it will read everything that arrived until then
    const qint64 since = sinceRefresh.isValid() ? sinceRefresh.elapsed() : std::numeric_limits<qint64>::max();
    timer.start(int(std::clamp<qint64>(refreshInterval - since, 0, refreshInterval)));
}

void HistoryChartsPanel::Private::updatePickers(int n)
{
    const SeenInHistory seen = historychart::seenIn(history, n);
    const QStringList &gens = seen.generations, &groups = seen.workerGroups;
    // A pick the history no longer holds falls back to "all".
    if (!generation.isEmpty() && !gens.contains(generation))
        generation.clear();
    if (!workerGroup.isEmpty() && !groups.contains(workerGroup))
        workerGroup.clear();
    if (!activityScope.isEmpty() && !seen.activityScopes.contains(activityScope))
        activityScope.clear();
    // Group names for the activity picker: the newest snapshot's, older ones' for groups gone (a
    // few rebuilt per refresh at most; a group not named yet shows its short id until then).
    if (history && seen.anyActivity)
        historychart::learnPlacementGroupNames(*history, n, placementGroupNames, 2);

    auto fillBox = [](QComboBox *box, const QString &allText, const QStringList &items, const QStringList &texts, const QString &current) {
        const QSignalBlocker blocker(box);
        QStringList present;
        for (int i = 1; i < box->count(); ++i)
            present << box->itemData(i).toString() << box->itemText(i);
        QStringList wanted;
        for (int i = 0; i < items.size(); ++i)
            wanted << items[i] << texts[i];
        if (box->count() == 0 || present != wanted || box->itemText(0) != allText) {
            box->clear();
            box->addItem(allText, QString());
            for (int i = 0; i < items.size(); ++i)
                box->addItem(texts[i], items[i]);
        }
        box->setCurrentIndex(std::max(0, box->findData(current)));
    };
    fillBox(generationBox, tr("every generation"), gens, gens, generation);
    fillBox(workerGroupBox, tr("all groups (sum)"), groups, groups, workerGroup);
    QStringList scopeTexts;
    for (const QString &scope : seen.activityScopes)
        scopeTexts << historychart::activityScopeLabel(scope, placementGroupNames);
    fillBox(activityBox, historychart::activityScopeLabel(QString(), placementGroupNames), seen.activityScopes, scopeTexts, activityScope);
    activityBox->setEnabled(seen.anyActivity);
    generations = gens;
    workerGroups = groups;
    activityScopes = seen.activityScopes;
    anyActivity = seen.anyActivity;
}

void HistoryChartsPanel::Private::refresh()
{
    QElapsedTimer clock;
    clock.start();
    timer.stop();
    dirty = false;
    ++refreshCount;
    const int n = history ? history->size() : 0;

    const EntryTimes times = historychart::entryTimes(history, n);

    updatePickers(n);

    const std::array<QString, kChartCount> titles{
        tr("TPU chips: reserved (solid) vs free (dashed)"), tr("Slices by use"),
        tr("Placement groups by state, and the oldest pending"), tr("Worker group slices: desired vs ready"),
        tr("Chip activity: mean duty cycle, and chips reporting one")};
    // The range shown: the whole history, or the zoom's (following the newest entry if it did;
    // ended when the history no longer holds it).
    const bool wasZoomed = zoom.on;
    TimeAxis axis = historychart::timeAxis(n, times.ms);
    Rows rows{0, n - 1, 0, n - 1};
    if (zoom.on && n > 0 && zoom.followsLive) {
        const qint64 width = zoom.hiMs - zoom.loMs;
        zoom.hiMs = std::max(zoom.hiMs, times.ms.last());
        zoom.loMs = zoom.hiMs - width;
    }
    if (zoom.on && (n == 0 || zoom.hiMs < times.ms.first() || zoom.loMs > times.ms.last()))
        zoom = Zoom();
    if (zoom.on) {
        axis = historychart::roundedAxis(zoom.loMs, zoom.hiMs);
        rows = historychart::rowsIn(times.ms, axis.loMs, axis.hiMs);
    }
    shown = axis;
    lastShownEntry = rows.fitLast;

    for (ChartState &c : charts) {
        // No entries, no series: the empty charts show their axes and "no history yet" only.
        c.columns = n > 0 ? historychart::columnsFor(c.kind, *history, n, {generation, generations, workerGroup, activityScope}, theme, ageUnit) : QList<Column>();
        c.rebuildSeries(theme, n == 1);
        c.fill(history, n, times, rows, maxPoints, ageUnit.text);
        c.setLegendEntries(theme);
        QString title = titles[size_t(c.kind)];
        if (c.kind == Chart::Chips && !generation.isEmpty())
            title += QStringLiteral(" \u00b7 ") + generation;
        if (c.kind == Chart::WorkerGroups)
            title += QStringLiteral(" \u00b7 ") + (workerGroup.isEmpty() ? tr("all groups") : workerGroup);
        if (c.kind == Chart::Activity && n > 0)
            title += QStringLiteral(" \u00b7 ") + (anyActivity ? historychart::activityScopeLabel(activityScope, placementGroupNames) : tr("no chip activity in this history"));
        if (n == 0)
            title += QStringLiteral(" \u00b7 ") + tr("no history yet");
        c.chart->setTitle(title);
    }
    for (ChartState &c : charts)
        c.setTimeAxis(axis, n);

    if (n == 0)
        summary->setText(tr("no snapshots yet"));
    else
        summary->setText((historychart::counted(n, tr("snapshot"), tr("snapshots")) + tr(", %1 \u2013 %2 UTC").arg(utcText(history->time(0), QStringLiteral("HH:mm:ss")), utcText(history->time(n - 1), QStringLiteral("HH:mm:ss")))));
    if (zoom.on) {
        const QString format = axis.hiMs - axis.loMs > 86400 * 1000 ? QStringLiteral("MM-dd HH:mm") : QStringLiteral("HH:mm:ss");
        auto text = [&format](qint64 ms) {
            return utcText(QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC), format);
        };
        zoomLabel->setText(tr("%1 \u2013 %2 UTC").arg(text(axis.loMs), text(axis.hiMs)) + (zoom.followsLive ? tr(", following live") : QString()));
    }
    summary->setVisible(!zoom.on);
    zoomLabel->setVisible(zoom.on);
    resetZoomButton->setVisible(zoom.on);
    updateCursors();
    updateLegends();
    lastRefreshMs = double(clock.nsecsElapsed()) / 1e6;
    sinceRefresh.start();
    if (wasZoomed && !zoom.on)
        Q_EMIT q->timeRangeChanged();
}

HistoryChartsPanel::HistoryChartsPanel(QWidget *parent)
    : QWidget(parent)
    , d(std::make_unique<Private>(this))
{
    d->buildUi();
    for (ChartState &c : d->charts)
        c.style(d->theme, font());
    d->refresh();
}

HistoryChartsPanel::~HistoryChartsPanel() = default;

void HistoryChartsPanel::setHistory(const SnapshotHistory *history)
{
    if (d->history == history)
        return;
    for (const QMetaObject::Connection &c : std::as_const(d->connections))
        disconnect(c);
    d->connections.clear();
    d->history = history;
    if (history) {
        auto changed = [this] {
            d->scheduleRefresh();
        };
        d->connections << connect(history, &SnapshotHistory::entryAdded, this, changed)
                       << connect(history, &SnapshotHistory::entriesEvicted, this, changed)
                       << connect(history, &SnapshotHistory::cleared, this, changed)
                       << connect(history, &QObject::destroyed, this, changed);
    }
    d->scheduleRefresh();
}

const SnapshotHistory *HistoryChartsPanel::history() const { return d->history; }

void HistoryChartsPanel::setTheme(const Theme &theme)
{
    d->theme = theme;
    for (ChartState &c : d->charts) {
        c.style(d->theme, font());
        c.builtFor.clear(); // series colours come from the theme: make them again
    }
    d->refresh();
}

const Theme &HistoryChartsPanel::theme() const { return d->theme; }

void HistoryChartsPanel::setCursorTime(const QDateTime &time)
{
    d->cursor = time;
    d->updateCursors();
    d->updateLegends();
}

QDateTime HistoryChartsPanel::cursorTime() const { return d->cursor; }

QStringList HistoryChartsPanel::generations() const { return d->generations; }

void HistoryChartsPanel::setGeneration(const QString &label)
{
    if (d->generation == label)
        return;
    d->generation = label;
    d->refresh(); // the operator picked it: show it now
}

QString HistoryChartsPanel::generation() const { return d->generation; }

QStringList HistoryChartsPanel::workerGroups() const { return d->workerGroups; }

void HistoryChartsPanel::setWorkerGroup(const QString &qualifiedName)
{
    if (d->workerGroup == qualifiedName)
        return;
    d->workerGroup = qualifiedName;
    d->refresh();
}

QString HistoryChartsPanel::workerGroup() const { return d->workerGroup; }

QStringList HistoryChartsPanel::activityScopes() const { return d->activityScopes; }

void HistoryChartsPanel::setActivityScope(const QString &scope)
{
    if (d->activityScope == scope)
        return;
    d->activityScope = scope;
    d->refresh();
}

QString HistoryChartsPanel::activityScope() const { return d->activityScope; }

QString HistoryChartsPanel::activityScopeLabel(const QString &scope) const
{
    return historychart::activityScopeLabel(scope, d->placementGroupNames);
}

void HistoryChartsPanel::setRefreshInterval(int ms) { d->refreshInterval = std::max(0, ms); }
int HistoryChartsPanel::refreshInterval() const { return d->refreshInterval; }

void HistoryChartsPanel::setMaxPointsPerSeries(int maxPoints)
{
    d->maxPoints = std::max(2, maxPoints);
    d->scheduleRefresh();
}

int HistoryChartsPanel::maxPointsPerSeries() const { return d->maxPoints; }

void HistoryChartsPanel::refreshNow()
{
    d->refresh();
    // Lay the charts out now, so plot areas (and the cursor lines) are where a paint puts them.
    // A hidden panel (a screenshot, a test) gets its resize events only when shown or grabbed.
    layout()->activate();
    for (ChartState &c : d->charts) {
        if (c.view->testAttribute(Qt::WA_PendingResizeEvent)) {
            QResizeEvent resize(c.view->size(), QSize());
            QApplication::sendEvent(c.view, &resize);
        }
        c.chart->layout()->activate();
    }
    d->updateCursors();
}

int HistoryChartsPanel::refreshCount() const { return d->refreshCount; }
double HistoryChartsPanel::lastRefreshMs() const { return d->lastRefreshMs; }

QChart *HistoryChartsPanel::chart(Chart which) const { return d->state(which).chart; }

QLineF HistoryChartsPanel::cursorLine(Chart which) const
{
    return d->state(which).cursorLineIn(this);
}

QDateTime HistoryChartsPanel::hoverTime() const { return d->hovered; }

QLineF HistoryChartsPanel::hoverLine(Chart which) const
{
    const ChartState &c = d->state(which);
    return c.lineIn(c.hoverLine, this);
}

QStringList HistoryChartsPanel::legendTexts(Chart which) const { return d->state(which).legend->texts(); }

void HistoryChartsPanel::setTimeRange(const QDateTime &from, const QDateTime &to)
{
    d->zoomTo(from.toMSecsSinceEpoch(), to.toMSecsSinceEpoch());
}

void HistoryChartsPanel::resetTimeRange() { d->resetZoom(); }
bool HistoryChartsPanel::isZoomed() const { return d->zoom.on; }
bool HistoryChartsPanel::zoomFollowsLive() const { return d->zoom.on && d->zoom.followsLive; }
QDateTime HistoryChartsPanel::shownFrom() const { return QDateTime::fromMSecsSinceEpoch(d->shown.loMs, Qt::UTC); }
QDateTime HistoryChartsPanel::shownTo() const { return QDateTime::fromMSecsSinceEpoch(d->shown.hiMs, Qt::UTC); }

QString HistoryChartsPanel::toolTipAt(QPoint position) const
{
    for (const ChartState &c : d->charts) {
        const QPoint inViewport = c.view->viewport()->mapFrom(this, position);
        if (c.view->viewport()->rect().contains(inViewport))
            return c.hoverText(d->history, inViewport);
    }
    return {};
}

qreal HistoryChartsPanel::axisValue(const QDateTime &time)
{
    // QDateTimeAxis prints QDateTime::fromMSecsSinceEpoch(value) in local time; hand it the
    // local-time instant whose wall clock reads the UTC time.
    const QDateTime utc = time.toUTC();
    return qreal(QDateTime(utc.date(), utc.time(), Qt::LocalTime).toMSecsSinceEpoch());
}

QDateTime HistoryChartsPanel::timeOfAxisValue(qreal value)
{
    const QDateTime local = QDateTime::fromMSecsSinceEpoch(qint64(std::llround(value)), Qt::LocalTime);
    return QDateTime(local.date(), local.time(), Qt::UTC);
}

QSize HistoryChartsPanel::sizeHint() const { return {1000, 760}; }
QSize HistoryChartsPanel::minimumSizeHint() const { return {500, 480}; }

void HistoryChartsPanel::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (d->dirty)
        d->scheduleRefresh();
}

} // namespace slicescope
