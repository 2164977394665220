// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The data side of the history charts (historycharts.h), private to them: what each chart plots
// and how each quantity is read from a HistoryPoint (its key, label, colour and hover text), the
// times of the entries as axis values, the x axis' round UTC ticks, the y axes' round ranges, and
// the exact decimation of long histories. No QtCharts here: values in, values out.

#include "historycharts.h"
#include "look.h"

#include <QColor>
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
// "1 slice", "3 slices": English, like the rest of the UI (no translations ship yet).
QString counted(int n, const QString &one, const QString &many);

// One plotted quantity: a line (or a stacked area) and how to read it from a point.
struct Column {
    QString key;            // the series' object name
    QString label;          // legend and hover text
    QColor color;
    Qt::PenStyle style = Qt::SolidLine;
    qreal width = 2;
    bool secondary = false; // on the right-hand axis (chart 3's oldest pending age)
    std::function<double(const HistoryPoint &)> value;
    std::function<QString(const HistoryPoint &)> text; // hover text of the value
};

// What the pickers chose, and the age axis' unit (picked per refresh from the longest wait).
struct ChartChoices {
    QString generation;       // chart 1: empty for every generation
    QStringList generations;  // chart 1: the generations the history has seen
    QString workerGroup;      // chart 4: empty for all groups summed
};
struct AgeUnit {
    qint64 ms = 1000;
    QString text = QStringLiteral("s");
};

// The quantities chart `kind` plots over the first `n` entries of `history` (n > 0). Chart 3's
// also pick the age unit (seconds up to 5 minutes, minutes up to 5 hours, then hours).
QList<Column> columnsFor(Chart kind, const SnapshotHistory &history, int n, const ChartChoices &choices, const Theme &theme,
                         AgeUnit &ageUnit);

// What the pickers can offer: the generations (tpu::generations() order, "unknown" last) and the
// worker groups (in the order they first appeared) of the first `n` entries.
struct SeenInHistory {
    QStringList generations;
    QStringList workerGroups;
};
SeenInHistory seenIn(const SnapshotHistory *history, int n);

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
// maximum (spikes survive), with fewer buckets until the rows fit.
QList<int> keptRows(const QList<double> &t, const QList<QList<double>> &columns, int maxPoints);

} // namespace historychart
} // namespace slicescope
