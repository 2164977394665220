// SPDX-License-Identifier: GPL-3.0-or-later
#include "historychartdata_p.h"

#include "history.h"
#include "naturalsort.h"
#include "tpu.h"

#include <QHash>
#include <QSet>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>

namespace slicescope::historychart {

namespace {

// The panel's translation context, as when this code was part of it.
QString tr(const char *text)
{
    return HistoryChartsPanel::tr(text);
}

QString ageText(qint64 ms)
{
    const qint64 s = ms / 1000;
    if (s < 60)
        return QStringLiteral("%1 s").arg(s);
    if (s < 3600)
        return QStringLiteral("%1 min %2 s").arg(s / 60).arg(s % 60);
    return QStringLiteral("%1 h %2 min").arg(s / 3600).arg((s % 3600) / 60);
}

// Round time steps for the x axis, in seconds.
constexpr std::array<qint64, 20> kTimeSteps{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200,
                                            10800, 21600, 43200, 86400, 172800, 604800};

// Chart 5: the scope's counts of each entry, by serial (what a Column's functions get is the
// HistoryPoint); an entry without an activity table has none.
using ActivityBySerial = QHash<qint64, std::optional<ActivityCounts>>;

QList<Column> activityColumns(const SnapshotHistory &history, int n, const ActivityScope &scope, const Theme &theme)
{
    auto rows = std::make_shared<ActivityBySerial>();
    rows->reserve(n);
    bool any = false;
    for (int i = 0; i < n; ++i) {
        const std::shared_ptr<const ActivityTable> table = history.activity(i);
        std::optional<ActivityCounts> counts;
        if (table) {
            counts = countsIn(*table, scope);
            any = true;
        }
        rows->insert(history.serial(i), counts);
    }
    if (!any)
        return {};
    auto countsOf = [rows](const HistoryPoint &p) {
        return rows->value(p.serial);
    };
    const QColor counted = theme.mutedText;
    QList<Column> cols;
    cols << Column{QStringLiteral("activity:mean"), tr("mean duty cycle"), dutyColor(theme), Qt::SolidLine, 2, false,
                   [countsOf](const HistoryPoint &p) {
                       const std::optional<ActivityCounts> c = countsOf(p);
                       return c ? c->meanDutyCycle() : std::numeric_limits<double>::quiet_NaN();
                   },
                   [countsOf](const HistoryPoint &p) {
                       const std::optional<ActivityCounts> c = countsOf(p);
                       if (!c)
                           return tr("no activity in this capture");
                       if (c->withDutyCycle == 0)
                           return tr("unknown: no chip reports");
                       return QStringLiteral("%1 %").arg(c->meanDutyCycle(), 0, 'f', 1);
                   }};
    cols.last().decimals = 1;
    cols.last().unit = QStringLiteral(" %");
    cols << Column{QStringLiteral("activity:reporting"), tr("chips reporting"), counted, Qt::SolidLine, 1.5, true,
                   [countsOf](const HistoryPoint &p) {
                       const std::optional<ActivityCounts> c = countsOf(p);
                       return c ? double(c->withDutyCycle) : std::numeric_limits<double>::quiet_NaN();
                   },
                   [countsOf](const HistoryPoint &p) {
                       const std::optional<ActivityCounts> c = countsOf(p);
                       return c ? tr("%1 of %2").arg(c->withDutyCycle).arg(c->chips) : QStringLiteral("\u2013");
                   }};
    cols << Column{QStringLiteral("activity:chips"), tr("chips"), mix(counted, theme.panel, 0.35), Qt::DotLine, 1.5, true,
                   [countsOf](const HistoryPoint &p) {
                       const std::optional<ActivityCounts> c = countsOf(p);
                       return c ? double(c->chips) : std::numeric_limits<double>::quiet_NaN();
                   },
                   [countsOf](const HistoryPoint &p) {
                       const std::optional<ActivityCounts> c = countsOf(p);
                       return c ? QString::number(c->chips) : QStringLiteral("\u2013");
                   }};
    return cols;
}

} // namespace

QColor generationColor(const QString &label, const Theme &theme)
{
    static const std::array<QRgb, 6> light{0x0f8b8d, 0xc2680a, 0x7c3aed, 0x2563eb, 0x65a30d, 0x0891b2};
    static const std::array<QRgb, 6> dark{0x2dd4bf, 0xfbbf24, 0xa78bfa, 0x60a5fa, 0xa3e635, 0x22d3ee};
    const QList<tpu::Generation> &all = tpu::generations();
    for (int i = 0; i < all.size(); ++i)
        if (all[i].name == label)
            return QColor(theme.isDark ? dark[size_t(i) % dark.size()] : light[size_t(i) % light.size()]);
    return theme.mutedText; // "unknown"
}

QColor ageColor(const Theme &theme) { return theme.isDark ? QColor(0xf472b6) : QColor(0xdb2777); }

// The activity scale's mid-point (look.h): the hue the Activity colour mode gives a chip at about
// half duty, dark enough on the light theme's panel, lightened on the dark one's.
QColor dutyColor(const Theme &theme) { return theme.isDark ? activityColor(0.75) : activityColor(0.35); }

QString legendValue(const Column &column, const HistoryPoint &p)
{
    const double v = column.value(p);
    if (std::isnan(v))
        return QStringLiteral("\u2013");
    return QString::number(v, 'f', column.decimals) + column.unit;
}

QString counted(int n, const QString &one, const QString &many)
{
    return n == 1 ? QStringLiteral("1 ") + one : QStringLiteral("%1 ").arg(n) + many;
}

QList<Column> columnsFor(Chart kind, const SnapshotHistory &history, int n, const ChartChoices &choices, const Theme &theme,
                         AgeUnit &ageUnit)
{
    QList<Column> cols;
    auto count = [](int v) {
        return QString::number(v);
    };
    switch (kind) {
    case Chart::Chips: {
        const QStringList shown = choices.generation.isEmpty() ? choices.generations : QStringList{choices.generation};
        for (const QString &g : shown) {
            const QColor color = generationColor(g, theme);
            auto reserved = [g](const HistoryPoint &p) {
                const GenerationStats *s = p.generation(g);
                return s ? s->counts.reservedChips : 0;
            };
            auto free = [g](const HistoryPoint &p) {
                const GenerationStats *s = p.generation(g);
                return s ? s->counts.freeChips : 0;
            };
            cols << Column{QStringLiteral("reserved:") + g, tr("%1 reserved").arg(g), color, Qt::SolidLine, 2, false,
                           [reserved](const HistoryPoint &p) { return double(reserved(p)); },
                           [reserved, count](const HistoryPoint &p) { return tr("%1 chips").arg(count(reserved(p))); }};
            cols << Column{QStringLiteral("free:") + g, tr("%1 free").arg(g), color, Qt::DashLine, 2, false,
                           [free](const HistoryPoint &p) { return double(free(p)); },
                           [free, count](const HistoryPoint &p) { return tr("%1 chips").arg(count(free(p))); }};
        }
        break;
    }
    case Chart::Slices: {
        struct Use {
            const char *key;
            QString label;
            QColor color;
            int (*value)(const FleetCounts &);
        };
        const QColor partly = mix(theme.reserved, theme.panel, 0.5);
        const std::array<Use, 5> uses{{
            {"ready", tr("ready"), theme.ready, [](const FleetCounts &f) { return f.ready; }},
            {"partly-used", tr("partly used"), partly, [](const FleetCounts &f) { return f.partlyUsed; }},
            {"reserved", tr("reserved"), theme.reserved, [](const FleetCounts &f) { return f.fullyReserved + f.claimed; }},
            {"provisioning", tr("provisioning"), theme.provisioning, [](const FleetCounts &f) { return f.provisioning; }},
            {"degraded", tr("degraded"), theme.degraded, [](const FleetCounts &f) { return f.degraded; }},
        }};
        for (const Use &u : uses) {
            auto value = u.value;
            cols << Column{QStringLiteral("slices:") + QLatin1String(u.key), u.label, u.color, Qt::SolidLine, 1, false,
                           [value](const HistoryPoint &p) { return double(value(p.fleet)); },
                           [value](const HistoryPoint &p) { return counted(value(p.fleet), tr("slice"), tr("slices")); }};
        }
        break;
    }
    case Chart::PlacementGroups: {
        // PENDING and CREATED always; the rarer states only when the history has them.
        bool prepared = false, rescheduling = false, other = false;
        qint64 maxAge = 0;
        for (int i = 0; i < n; ++i) {
            const PlacementGroupCounts &g = history.point(i).placementGroups;
            prepared = prepared || g.prepared > 0;
            rescheduling = rescheduling || g.rescheduling > 0;
            other = other || g.other > 0;
            maxAge = std::max(maxAge, g.oldestPendingMs);
        }
        // Seconds up to 5 minutes, minutes up to 5 hours, then hours: axis labels stay short.
        ageUnit.ms = maxAge < 300 * 1000 ? 1000 : maxAge < 300 * 60 * 1000 ? 60 * 1000
                                                                           : 3600 * 1000;
        ageUnit.text = ageUnit.ms == 1000 ? tr("s") : ageUnit.ms == 60 * 1000 ? tr("min")
                                                                              : tr("h");
        auto groups = [](int v) {
            return counted(v, tr("group"), tr("groups"));
        };
        cols << Column{QStringLiteral("pg:PENDING"), tr("pending"), theme.pending, Qt::SolidLine, 2, false,
                       [](const HistoryPoint &p) { return double(p.placementGroups.pending); },
                       [groups](const HistoryPoint &p) { return groups(p.placementGroups.pending); }};
        if (prepared)
            cols << Column{QStringLiteral("pg:PREPARED"), tr("prepared"), theme.iciLink, Qt::SolidLine, 2, false,
                           [](const HistoryPoint &p) { return double(p.placementGroups.prepared); },
                           [groups](const HistoryPoint &p) { return groups(p.placementGroups.prepared); }};
        cols << Column{QStringLiteral("pg:CREATED"), tr("created"), theme.reserved, Qt::SolidLine, 2, false,
                       [](const HistoryPoint &p) { return double(p.placementGroups.created); },
                       [groups](const HistoryPoint &p) { return groups(p.placementGroups.created); }};
        if (rescheduling)
            cols << Column{QStringLiteral("pg:RESCHEDULING"), tr("rescheduling"), theme.degraded, Qt::SolidLine, 2, false,
                           [](const HistoryPoint &p) { return double(p.placementGroups.rescheduling); },
                           [groups](const HistoryPoint &p) { return groups(p.placementGroups.rescheduling); }};
        if (other)
            cols << Column{QStringLiteral("pg:other"), tr("other"), theme.mutedText, Qt::SolidLine, 2, false,
                           [](const HistoryPoint &p) { return double(p.placementGroups.other); },
                           [groups](const HistoryPoint &p) { return groups(p.placementGroups.other); }};
        const double unit = double(ageUnit.ms);
        cols << Column{QStringLiteral("pg:oldest-pending"), tr("oldest pending"), ageColor(theme), Qt::DashLine, 2, true,
                       [unit](const HistoryPoint &p) { return p.placementGroups.oldestPendingMs < 0 ? 0.0 : double(p.placementGroups.oldestPendingMs) / unit; },
                       [](const HistoryPoint &p) {
                           const PlacementGroupCounts &g = p.placementGroups;
                           return g.oldestPendingMs < 0 ? tr("none pending") : tr("%1 (%2)").arg(ageText(g.oldestPendingMs), g.oldestPendingId.left(12));
                       }};
        cols.last().decimals = ageUnit.ms == 1000 ? 0 : 1; // "63 s", "2.5 min"
        cols.last().unit = QLatin1Char(' ') + ageUnit.text;
        break;
    }
    case Chart::WorkerGroups: {
        const QString group = choices.workerGroup;
        // Summed over all groups, or the picked group's (0 while it does not exist).
        auto read = [group](const HistoryPoint &p, int WorkerGroupPoint::*member) {
            if (!group.isEmpty()) {
                const WorkerGroupPoint *w = p.workerGroup(group);
                return w ? w->*member : 0;
            }
            int sum = 0;
            for (const WorkerGroupPoint &w : p.workerGroups)
                sum += w.*member;
            return sum;
        };
        struct Line {
            const char *key;
            QString label;
            QColor color;
            Qt::PenStyle style;
            qreal width;
            int WorkerGroupPoint::*member;
        };
        const std::array<Line, 3> lines{{
            {"desired", tr("desired"), theme.reserved, Qt::DashLine, 2, &WorkerGroupPoint::desired},
            {"ready", tr("ready"), theme.ready, Qt::SolidLine, 2, &WorkerGroupPoint::ready},
            {"slices", tr("present (any state)"), theme.mutedText, Qt::DotLine, 1.5, &WorkerGroupPoint::slices},
        }};
        for (const Line &l : lines) {
            const auto member = l.member;
            cols << Column{QStringLiteral("wg:") + QLatin1String(l.key), l.label, l.color, l.style, l.width, false,
                           [read, member](const HistoryPoint &p) { return double(read(p, member)); },
                           [read, member](const HistoryPoint &p) { return counted(read(p, member), tr("slice"), tr("slices")); }};
        }
        break;
    }
    case Chart::Activity:
        cols = activityColumns(history, n, parseActivityScope(choices.activityScope), theme);
        break;
    }
    return cols;
}

SeenInHistory seenIn(const SnapshotHistory *history, int n)
{
    QStringList gens, groups;
    QSet<QString> seenGroups;
    for (int i = 0; i < n; ++i) {
        const HistoryPoint &p = history->point(i);
        for (const GenerationStats &g : p.generations)
            if (!gens.contains(g.label))
                gens << g.label;
        for (const WorkerGroupPoint &w : p.workerGroups)
            if (!seenGroups.contains(w.qualifiedName)) {
                seenGroups.insert(w.qualifiedName);
                groups << w.qualifiedName;
            }
    }
    std::stable_sort(gens.begin(), gens.end(), [](const QString &a, const QString &b) { return tpu::generationOrder(tpu::findGeneration(a)) < tpu::generationOrder(tpu::findGeneration(b)); });

    // The activity scopes. Consecutive entries often share one table (history.h): read each once.
    QSet<QString> slices, seenIds;
    QStringList groupIds;
    bool anyActivity = false;
    const ActivityTable *previous = nullptr;
    for (int i = 0; i < n; ++i) {
        const std::shared_ptr<const ActivityTable> table = history->activity(i);
        if (!table || table.get() == previous)
            continue;
        previous = table.get();
        anyActivity = true;
        for (auto it = table->bySlice.constBegin(); it != table->bySlice.constEnd(); ++it)
            slices.insert(it.key());
        QStringList fresh; // a hash's order is no order: the new ids of one entry by id
        for (auto it = table->byPlacementGroup.constBegin(); it != table->byPlacementGroup.constEnd(); ++it)
            if (!seenIds.contains(it.key()))
                fresh << it.key();
        std::sort(fresh.begin(), fresh.end());
        for (const QString &id : std::as_const(fresh))
            seenIds.insert(id);
        groupIds << fresh;
    }
    QStringList sliceNames(slices.cbegin(), slices.cend());
    std::sort(sliceNames.begin(), sliceNames.end(), [](const QString &a, const QString &b) { return naturalLess(a, b); }); // the model's order, as the tables sort
    QStringList scopes;
    scopes.reserve(sliceNames.size() + groupIds.size());
    for (const QString &name : std::as_const(sliceNames))
        scopes << QStringLiteral("slice:") + name;
    for (const QString &id : std::as_const(groupIds))
        scopes << QStringLiteral("pg:") + id;
    return {gens, groups, scopes, anyActivity};
}

ActivityScope parseActivityScope(const QString &scope)
{
    if (scope.startsWith(QLatin1String("slice:")))
        return {ActivityScope::Kind::Slice, scope.mid(6)};
    if (scope.startsWith(QLatin1String("pg:")))
        return {ActivityScope::Kind::PlacementGroup, scope.mid(3)};
    return {};
}

ActivityCounts countsIn(const ActivityTable &table, const ActivityScope &scope)
{
    switch (scope.kind) {
    case ActivityScope::Kind::Fleet:
        return table.fleet;
    case ActivityScope::Kind::Slice:
        return table.bySlice.value(scope.key);
    case ActivityScope::Kind::PlacementGroup:
        return table.byPlacementGroup.value(scope.key);
    }
    Q_UNREACHABLE();
}

void learnPlacementGroupNames(const SnapshotHistory &history, int n, QHash<QString, QString> &names, int rebuildBudget)
{
    auto learn = [&names](const ClusterSnapshot &s) {
        for (const PlacementGroup &g : s.placementGroups)
            names.insert(g.id, g.name);
    };
    if (n <= 0)
        return;
    if (const SnapshotPtr newest = history.snapshot(n - 1))
        learn(*newest);
    const ActivityTable *previous = nullptr;
    for (int i = n - 1; i >= 0 && rebuildBudget > 0; --i) {
        const std::shared_ptr<const ActivityTable> table = history.activity(i);
        if (!table || table.get() == previous)
            continue;
        previous = table.get();
        bool unknown = false;
        for (auto it = table->byPlacementGroup.constBegin(); it != table->byPlacementGroup.constEnd() && !unknown; ++it)
            unknown = !names.contains(it.key());
        if (!unknown)
            continue;
        if (const SnapshotPtr s = history.snapshot(i))
            learn(*s);
        --rebuildBudget;
    }
}

QString activityScopeLabel(const QString &scope, const QHash<QString, QString> &placementGroupNames)
{
    const ActivityScope s = parseActivityScope(scope);
    switch (s.kind) {
    case ActivityScope::Kind::Fleet:
        return tr("whole fleet");
    case ActivityScope::Kind::Slice:
        return tr("slice %1").arg(s.key);
    case ActivityScope::Kind::PlacementGroup: {
        const QString name = placementGroupNames.value(s.key);
        return tr("group %1").arg(name.isEmpty() ? s.key.left(PlacementGroup::kDisplayIdChars) : name);
    }
    }
    Q_UNREACHABLE();
}

EntryTimes entryTimes(const SnapshotHistory *history, int n)
{
    // The local-time offset that axisValue() undoes changes at most on the hour: compute it once per hour of history.
    EntryTimes times{QList<qint64>(n), QList<double>(n), QList<double>(n)};
    QList<qint64> &ms = times.ms;
    QList<double> &t = times.t, &xs = times.xs;
    QHash<qint64, qint64> offsetOfHour;
    for (int i = 0; i < n; ++i) {
        const QDateTime time = history->time(i);
        ms[i] = time.toMSecsSinceEpoch();
        t[i] = double(ms[i] - ms[0]);
        const qint64 hour = ms[i] / (3600 * 1000);
        auto it = offsetOfHour.constFind(hour);
        if (it == offsetOfHour.constEnd())
            it = offsetOfHour.insert(hour, qint64(HistoryChartsPanel::axisValue(QDateTime::fromMSecsSinceEpoch(hour * 3600 * 1000, Qt::UTC))) - hour * 3600 * 1000);
        xs[i] = double(ms[i] + it.value());
    }
    return times;
}

TimeAxis timeAxis(int n, const QList<qint64> &ms)
{
    qint64 first = 0, last = 60 * 1000;
    if (n > 0) {
        first = ms.first();
        last = ms.last();
        if (last - first < 10 * 1000) { // one entry, or a few close together: a minute around them
            const qint64 middle = first + (last - first) / 2;
            first = middle - 30 * 1000;
            last = middle + 30 * 1000;
        }
    }
    return roundedAxis(first, last);
}

TimeAxis roundedAxis(qint64 first, qint64 last)
{
    // Ticks on round UTC times: the smallest round step that needs at most 6 intervals.
    qint64 step = kTimeSteps.back() * 1000, lo = first, hi = last;
    for (qint64 s : kTimeSteps) {
        const qint64 stepMs = s * 1000;
        const qint64 a = qint64(std::floor(double(first) / double(stepMs))) * stepMs;
        const qint64 b = qint64(std::ceil(double(last) / double(stepMs))) * stepMs;
        if ((b - a) / stepMs <= 6) {
            step = stepMs;
            lo = a;
            hi = b == a ? a + stepMs : b;
            break;
        }
    }
    const QString format = step < 60 * 1000 ? QStringLiteral("HH:mm:ss") : hi - lo > 86400 * 1000 ? QStringLiteral("MM-dd HH:mm")
                                                                                                  : QStringLiteral("HH:mm");
    return {lo, hi, step, format};
}

Rows rowsIn(const QList<qint64> &ms, qint64 loMs, qint64 hiMs)
{
    const int n = int(ms.size());
    if (n == 0)
        return {};
    const int a = int(std::lower_bound(ms.cbegin(), ms.cend(), loMs) - ms.cbegin());     // the first shown
    const int b = int(std::upper_bound(ms.cbegin(), ms.cend(), hiMs) - ms.cbegin()) - 1; // the last shown
    Rows rows;
    rows.first = std::max(0, a - 1);
    rows.last = std::min(n - 1, b + 1);
    // None shown (a range between two entries): fit the two the lines pass between.
    rows.fitFirst = a <= b ? a : rows.first;
    rows.fitLast = a <= b ? b : rows.last;
    return rows;
}

NiceRange niceRange(double maxValue, int maxIntervals)
{
    const double v = std::max(maxValue, 1.0) * 1.05; // a little headroom: the top line stays visible
    for (double magnitude = 1;; magnitude *= 10) {
        for (double m : {1.0, 2.0, 5.0}) {
            const double step = m * magnitude;
            const double intervals = std::ceil(v / step - 1e-9);
            if (intervals <= maxIntervals)
                return {intervals * step, int(intervals) + 1, step};
        }
    }
}

QList<int> keptRows(const QList<double> &t, const QList<QList<double>> &columns, int maxPoints)
{
    const int n = int(t.size());
    QList<int> rows;
    if (n <= maxPoints) {
        rows.resize(n);
        std::iota(rows.begin(), rows.end(), 0);
        return rows;
    }
    rows.reserve(n);
    rows.append(0);
    for (int i = 1; i + 1 < n; ++i) {
        bool keep = false;
        for (const QList<double> &c : columns) {
            const bool gapBefore = std::isnan(c[i - 1]), gap = std::isnan(c[i]), gapAfter = std::isnan(c[i + 1]);
            if (gap || gapBefore || gapAfter) {
                // A gap's row goes only inside a longer gap; a known value beside one ends a run.
                if (!(gap && gapBefore && gapAfter)) {
                    keep = true;
                    break;
                }
                continue;
            }
            const double lhs = (c[i] - c[i - 1]) * (t[i + 1] - t[i - 1]);
            const double rhs = (c[i + 1] - c[i - 1]) * (t[i] - t[i - 1]);
            if (std::abs(lhs - rhs) > 1e-9 * std::max(std::abs(lhs), std::abs(rhs)) + 1e-12) {
                keep = true;
                break;
            }
        }
        if (keep)
            rows.append(i);
    }
    rows.append(n - 1);
    if (rows.size() <= maxPoints)
        return rows;

    const double t0 = t.first(), span = std::max(t.last() - t.first(), 1.0);
    for (int buckets = std::max(1, maxPoints / 2);; buckets = std::max(1, buckets / 2)) {
        QList<int> out;
        out.reserve(maxPoints + 2);
        out.append(0);
        int i = 0;
        while (i < n) {
            const int bucket = std::min(buckets - 1, int((t[i] - t0) / span * buckets));
            int end = i + 1;
            while (end < n && std::min(buckets - 1, int((t[end] - t0) / span * buckets)) == bucket)
                ++end;
            QList<int> picks;
            for (const QList<double> &c : columns) {
                // The extremes of the known values, and the bucket's first gap (NaN compares
                // false, so it is never an extreme once a known value is found).
                int lo = -1, hi = -1, gap = -1;
                for (int r = i; r < end; ++r) {
                    if (std::isnan(c[r])) {
                        if (gap < 0)
                            gap = r;
                        continue;
                    }
                    if (lo < 0 || c[r] < c[lo])
                        lo = r;
                    if (hi < 0 || c[r] > c[hi])
                        hi = r;
                }
                for (int r : {lo, hi, gap})
                    if (r >= 0)
                        picks << r;
            }
            std::sort(picks.begin(), picks.end());
            for (int r : std::as_const(picks))
                if (r != out.last())
                    out.append(r);
            i = end;
        }
        if (out.last() != n - 1)
            out.append(n - 1);
        if (out.size() <= maxPoints || buckets == 1)
            return out;
    }
}

} // namespace slicescope::historychart
