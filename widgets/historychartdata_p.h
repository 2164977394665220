// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The data side of the history charts (historycharts.h), private to them: what each chart plots
// and how each quantity is read from a HistoryPoint or the entry's activity table (its key, label,
// colour and hover text), the
// times of the entries as axis values, the x axis' round UTC ticks, the y axes' round ranges, and
// the exact decimation of long histories. No QtCharts here: values in, values out.

#include "activity.h"
#include "historycharts.h"
#include "look.h"

#include <QColor>
#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

#include <functional>

namespace slicescope {

class SnapshotHistory;
struct HistoryPoint;

namespace historychart {

using Chart = HistoryChartsPanel::Chart;

// A stable colour per TPU generation, keyed by its place in tpu::generations() (never by the
// order a history happens to meet them), so v6e is the same blue in every chart and screenshot.
QColor generationColor(const QString &label, const Theme &theme);
// The oldest pending placement group's age line and axis.
QColor ageColor(const Theme &theme);
// The activity chart's mean duty cycle line.
QColor dutyColor(const Theme &theme);
// "1 slice", "3 slices": English, like the rest of the UI (no translations ship yet).
QString counted(int n, const QString &one, const QString &many);

// One plotted quantity: a line (or a stacked area) and how to read it from a point.
struct Column {
    QString key;            // the series' object name
    QString label;          // legend and hover text
    QColor color;
    Qt::PenStyle style = Qt::SolidLine;
    qreal width = 2;
    bool secondary = false; // on the right-hand axis (chart 3's oldest pending age, chart 5's chips)
    // NaN where the entry has no value: the line breaks there (historycharts.h, chart 5).
    std::function<double(const HistoryPoint &)> value;
    std::function<QString(const HistoryPoint &)> text; // hover text of the value
    // How the legend prints the value (legendValue()): decimals and a unit after the number.
    int decimals = 0;
    QString unit;
};

// The legend's value of `column` at `p`: the number in the chart's unit ("48", "40.0 %",
// "63 s"), or "\u2013" where the value is unknown (NaN), never 0.
QString legendValue(const Column &column, const HistoryPoint &p);

// What the pickers chose, and the age axis' unit (picked per refresh from the longest wait).
struct ChartChoices {
    QString generation;       // chart 1: empty for every generation
    QStringList generations;  // chart 1: the generations the history has seen
    QString workerGroup;      // chart 4: empty for all groups summed
    QString activityScope;    // chart 5: empty for the whole fleet, "slice:NAME" or "pg:ID"
};
struct AgeUnit {
    qint64 ms = 1000;
    QString text = QStringLiteral("s");
};

// The quantities chart `kind` plots over the first `n` entries of `history` (n > 0). Chart 3's
// also pick the age unit (seconds up to 5 minutes, minutes up to 5 hours, then hours). Chart 5's
// are none when no entry has an activity table.
QList<Column> columnsFor(Chart kind, const SnapshotHistory &history, int n, const ChartChoices &choices, const Theme &theme,
                         AgeUnit &ageUnit);

// What the pickers can offer: the generations (tpu::generations() order, "unknown" last) and the
// worker groups (in the order they first appeared) of the first `n` entries; the activity
// scopes ("slice:NAME" in natural order, then "pg:ID" in the order they first appeared, ids of
// one entry by id) and whether any entry has an activity table.
struct SeenInHistory {
    QStringList generations;
    QStringList workerGroups;
    QStringList activityScopes;
    bool anyActivity = false;
};
SeenInHistory seenIn(const SnapshotHistory *history, int n);

// "slice:NAME" / "pg:ID" / "" (the whole fleet), taken apart.
struct ActivityScope {
    enum class Kind
    {
        Fleet,
        Slice,
        PlacementGroup
    };
    Kind kind = Kind::Fleet;
    QString key; // the slice's name or the group's id
};
ActivityScope parseActivityScope(const QString &scope);
// The scope's counts in `table`: zero counts when the slice or group is not in it.
ActivityCounts countsIn(const ActivityTable &table, const ActivityScope &scope);

// Placement group names by id, learnt from snapshots: the newest entry's (as added, no cost),
// then for ids the activity tables name and `names` does not know, older entries rebuilt, newest
// first, at most `rebuildBudget` of them (each names every group it holds).
void learnPlacementGroupNames(const SnapshotHistory &history, int n, QHash<QString, QString> &names, int rebuildBudget);
// "whole fleet", "slice NAME", "group NAME" (or the id's first 12 characters when unnamed).
QString activityScopeLabel(const QString &scope, const QHash<QString, QString> &placementGroupNames);

// The entries' times: epoch ms, ms since the first entry (decimation), and axis values
// (HistoryChartsPanel::axisValue, the local-time offset computed once per hour of history).
struct EntryTimes {
    QList<qint64> ms;
    QList<double> t;
    QList<double> xs;
};
EntryTimes entryTimes(const SnapshotHistory *history, int n);

// The x axis over times `ms` (n of them): round UTC bounds and step (at most 6 intervals), a
// minute around one entry or a few close together, and the label format for that step.
struct TimeAxis {
    qint64 loMs = 0, hiMs = 0, stepMs = 0;
    QString format;
};
TimeAxis timeAxis(int n, const QList<qint64> &ms);
// The same round bounds and step around the range first..last (first < last), without widening
// a short range to a minute: the axis of a zoomed chart.
TimeAxis roundedAxis(qint64 first, qint64 last);

// The entries a chart draws (first..last, inclusive: the shown ones and a neighbour on each side,
// so lines run on to the plot's edges) and those its y ranges fit (fitFirst..fitLast: the shown
// ones). Empty when last < first.
struct Rows {
    int first = 0, last = -1;
    int fitFirst = 0, fitLast = -1;
};
// The rows of entries at times `ms` (sorted) shown in loMs..hiMs.
Rows rowsIn(const QList<qint64> &ms, qint64 loMs, qint64 hiMs);

// An axis range with round ticks.
struct NiceRange {
    double max = 1;
    int ticks = 2;
    double step = 1;
};
// Whole steps only: every axis counts things, or ages in a unit picked so they run past 5
// (no "1, 1, 2" labels from rounding halves).
NiceRange niceRange(double maxValue, int maxIntervals = 6);

// Which rows of a table to draw, when there are more than `maxPoints`: first the rows whose
// every column lies on the straight line between its neighbours go (exact: the polyline does not
// change); then, if still too many, per time bucket the rows holding each column's minimum and
// maximum (spikes survive), with fewer buckets until the rows fit. NaN values (gaps) are kept,
// and the known values beside them (a run's ends); buckets keep one NaN row each, so a gap
// narrows at worst, it never closes.
QList<int> keptRows(const QList<double> &t, const QList<QList<double>> &columns, int maxPoints);

} // namespace historychart
} // namespace slicescope
