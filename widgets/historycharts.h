// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// How the fleet changed: five QtCharts charts over a SnapshotHistory (model/history.h).
//  1. chips reserved vs free, per TPU generation (every generation, or the one picked);
//  2. slices by use, stacked: ready, partly used, reserved, provisioning, degraded;
//  3. placement groups by state, and on a second axis how long the oldest PENDING one has waited;
//  4. worker groups: slices desired (spec replicas) vs ready, all groups summed or the one picked;
//  5. chip activity (issue 15): the mean duty cycle of the whole fleet, one slice or one placement
//     group's chips, and on a second axis how many chips report one against how many there are
//     (the honest count: an unknown chip is not idle). Where no chip reports, or an entry has no
//     activity table (an older capture), the mean has no point: the line breaks, it never drops
//     to 0. A history without any activity says so in the chart's title and draws no series.
// A vertical cursor line marks the time the window's scrubber is at; clicking a chart asks to scrub
// there.
//
// Hover (as Grafana does it): the mouse over any chart picks the entry nearest in time. A thin
// line marks its time in all five charts, every legend entry shows its series' value there
// ("v6e reserved 48", in the chart's unit; "\u2013" where the value is unknown, never 0), and a
// tooltip lists them with the time. Without the mouse over a plot, the legends show the scrubbed
// entry, or while the window is live the newest entry shown. Each legend value keeps a box as wide
// as its widest value in the history, so the legends do not move as the numbers change.
//
// Zoom: dragging across a chart (more than kDragThreshold pixels; less is a click) draws a band
// in the theme's selection colour and, on release, shows that time range in all five charts: the
// x axes (rounded out to round ticks) agree, the y axes refit to the values shown, and the shown
// range is decimated afresh (so zooming in shows detail). A label names the range beside a Reset
// zoom button; a double click, Escape on a chart, or the button shows the whole history again.
// New entries while zoomed: a range that reached the newest entry follows the live edge (same
// width, its end at the newest entry); any other range stays put; a range the history no longer
// holds (evicted, cleared) ends the zoom.
//
// Responsiveness (docs/style.md 6 and 9): the history's signals only mark the panel dirty; a redraw
// follows at most every refreshInterval() ms (bursts coalesce into one), rebuilds every series
// from the history's points with one QXYSeries::replace() each, and waits while the panel is
// hidden. Long histories are decimated exactly first (points on a straight line between their
// neighbours are dropped: counts are mostly flat), then, only if still too many, by min/max
// per time bucket, so a spike is never lost.
//
// Times are UTC on every machine (the axis labels, the hover text), so renders are reproducible
// and agree with the window's status line. No animations.

#include "look.h"

#include <QDateTime>
#include <QLineF>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <memory>

QT_BEGIN_NAMESPACE
class QChart;
QT_END_NAMESPACE

namespace slicescope {

class SnapshotHistory;

class HistoryChartsPanel : public QWidget
{
    Q_OBJECT
public:
    enum class Chart
    {
        Chips,
        Slices,
        PlacementGroups,
        WorkerGroups,
        Activity
    };
    Q_ENUM(Chart)
    static constexpr int kChartCount = 5;
    static constexpr int kDefaultRefreshIntervalMs = 250;
    static constexpr int kDefaultMaxPointsPerSeries = 600;

    explicit HistoryChartsPanel(QWidget *parent = nullptr);
    ~HistoryChartsPanel() override;

    // The history to chart; not owned, may be null (the charts empty). The panel follows its
    // entryAdded/entriesEvicted/cleared signals and forgets it when it is destroyed.
    void setHistory(const SnapshotHistory *history);
    const SnapshotHistory *history() const;

    void setTheme(const Theme &theme);
    const Theme &theme() const;

    // The scrubbed time: a vertical line on every chart. An invalid time (the window is live)
    // hides the lines; a time outside the charted range hides them too.
    void setCursorTime(const QDateTime &time);
    QDateTime cursorTime() const;

    // Chart 1's picker: the generations the history has seen ("v6e", ...; tpu::generations()
    // order, "unknown" last) and the one shown, empty for every generation (the default).
    QStringList generations() const;
    void setGeneration(const QString &label);
    QString generation() const;

    // Chart 4's picker: the worker groups the history has seen ("ns/cluster/group", in the order
    // they first appeared) and the one shown, empty for all groups summed (the default).
    QStringList workerGroups() const;
    void setWorkerGroup(const QString &qualifiedName);
    QString workerGroup() const;

    // Chart 5's picker: whose chips the activity chart averages. Empty is the whole fleet (the
    // default); "slice:NAME" one slice; "pg:ID" the chips one placement group's bundles hold. The
    // scopes offered are those the history's activity tables have seen: slices by name (natural
    // order), then placement groups in the order they first appeared. A pick the history no
    // longer holds falls back to the fleet.
    QStringList activityScopes() const;
    void setActivityScope(const QString &scope);
    QString activityScope() const;
    // How the picker and the title name a scope: "whole fleet", "slice tpu-v6e-4x4-0",
    // "group llm-train" (a group's name, else its short id; names are read from the newest
    // snapshot, then from older ones where a group is gone).
    QString activityScopeLabel(const QString &scope) const;

    // At most one redraw per this many ms while entries keep arriving (>= 0; 0 redraws on the
    // next event-loop turn, still coalescing a burst).
    void setRefreshInterval(int ms);
    int refreshInterval() const;
    // Above this many entries a series is decimated (see the top of this file); >= 2.
    void setMaxPointsPerSeries(int maxPoints);
    int maxPointsPerSeries() const;

    // Applies pending changes at once (screenshots, tests, before grab()).
    void refreshNow();
    // How many times the series were rebuilt (the throttling test hook), and how long the last
    // rebuild took in ms (reading the points, decimating, replacing; painting is extra).
    int refreshCount() const;
    double lastRefreshMs() const;

    // The chart behind each panel, for tests and screenshots; the panel owns it. Series carry
    // object names: "reserved:v6e", "free:v6e", "slices:ready" (the stacked area; its upper
    // line series is "slices:ready:upper"), "pg:PENDING", "pg:oldest-pending", "wg:desired",
    // "wg:ready", "wg:slices", "activity:mean" (percent), "activity:reporting" and
    // "activity:chips" (chips, the right-hand axis). A line with gaps (unknown values) is drawn
    // as one series per run of known values, every run with the line's name, the first one in
    // the legend; a run of one value shows as a dot.
    QChart *chart(Chart which) const;
    // A chart's cursor line in panel coordinates; a null line when it is hidden.
    QLineF cursorLine(Chart which) const;
    // The hovered entry's time (invalid when the mouse is not over a plot) and a chart's hover
    // line in panel coordinates (a null line when hidden).
    QDateTime hoverTime() const;
    QLineF hoverLine(Chart which) const;
    // A chart's legend as drawn: "label value" per entry, or the label alone without data.
    QStringList legendTexts(Chart which) const;

    // The zoom (see the top of this file). setTimeRange() shows from..to (at least
    // kMinZoomMs wide, widened about its middle), as a drag does; resetTimeRange() the whole history.
    void setTimeRange(const QDateTime &from, const QDateTime &to);
    void resetTimeRange();
    bool isZoomed() const;
    bool zoomFollowsLive() const;
    // What the x axes show (the same on all five charts).
    QDateTime shownFrom() const;
    QDateTime shownTo() const;
    static constexpr int kDragThreshold = 5;    // pixels across: below, a click
    static constexpr qint64 kMinZoomMs = 4000;
    // What hovering shows at a panel position (HTML: the entry nearest in time, its UTC time and
    // the chart's values there); empty when the position is not over a plot or there is no data.
    QString toolTipAt(QPoint position) const;

    // The x value the series use for a time: UTC wall-clock time, as QDateTimeAxis (which
    // formats in local time) must see it to print UTC. Equal to toMSecsSinceEpoch() when the
    // process runs in UTC.
    static qreal axisValue(const QDateTime &time);
    static QDateTime timeOfAxisValue(qreal value); // the inverse, in UTC

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    // A chart was clicked: the time under the mouse, for the window to scrub there.
    void cursorTimeRequested(const QDateTime &time);
    // The shown time range changed (a zoom, its reset, or the end of a zoom the history left).
    void timeRangeChanged();

protected:
    void showEvent(QShowEvent *event) override;

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace slicescope
