// SPDX-License-Identifier: GPL-3.0-or-later
// The alert rules and the engine's memory between snapshots (model/alerts.h says what each rule is).
#include "alerts.h"

#include "history.h"

#include <QSet>

#include <algorithm>
#include <array>
#include <cmath>

namespace slicescope {

QString toText(AlertKind kind)
{
    switch (kind) {
    case AlertKind::SliceDegraded: return QStringLiteral("slice-degraded");
    case AlertKind::HostMissing: return QStringLiteral("host-missing");
    case AlertKind::PlacementGroupPending: return QStringLiteral("placement-group-pending");
    case AlertKind::HeadReservationOrphaned: return QStringLiteral("head-reservation-orphaned");
    case AlertKind::ReservedIdle: return QStringLiteral("reserved-idle");
    case AlertKind::MetricsMissing: return QStringLiteral("metrics-missing");
    case AlertKind::WorkerIdGap: return QStringLiteral("worker-id-gap");
    case AlertKind::BusyUnreserved: return QStringLiteral("busy-unreserved");
    }
    return QStringLiteral("slice-degraded");
}

QString toText(AlertSeverity severity)
{
    switch (severity) {
    case AlertSeverity::Info: return QStringLiteral("info");
    case AlertSeverity::Warning: return QStringLiteral("warning");
    case AlertSeverity::Critical: return QStringLiteral("critical");
    }
    return QStringLiteral("warning");
}

bool severityFromText(QStringView text, AlertSeverity *severity)
{
    for (const AlertSeverity s : {AlertSeverity::Info, AlertSeverity::Warning, AlertSeverity::Critical}) {
        if (text == toText(s)) {
            *severity = s;
            return true;
        }
    }
    return false;
}

QString toText(AlertSubjectKind kind)
{
    switch (kind) {
    case AlertSubjectKind::Slice: return QStringLiteral("slice");
    case AlertSubjectKind::Host: return QStringLiteral("host");
    case AlertSubjectKind::PlacementGroup: return QStringLiteral("placement-group");
    case AlertSubjectKind::WorkerGroup: return QStringLiteral("worker-group");
    }
    return QStringLiteral("slice");
}

QString alertDurationText(qint64 ms)
{
    const qint64 s = std::max<qint64>(0, ms / 1000);
    if (s < 60) return QStringLiteral("%1 s").arg(s);
    const qint64 min = s / 60;
    if (min < 60) return QStringLiteral("%1 min").arg(min);
    const qint64 h = min / 60;
    return min % 60 ? QStringLiteral("%1 h %2 min").arg(h).arg(min % 60) : QStringLiteral("%1 h").arg(h);
}

namespace {

QString plural(int n, const char *one, const char *many)
{
    return QStringLiteral("%1 %2").arg(n).arg(QLatin1String(n == 1 ? one : many));
}

QString percentText(double p)
{
    return QString::number(p, 'g', 3);
}

// One alert condition the engine remembers: since when it holds and when it last did.
struct Condition {
    qint64 sinceMs = 0;
    qint64 falseSinceMs = -1; // the first snapshot it was false in since it last held; -1 while it holds
    quint64 lastRound = 0;
    Alert alert;
};

// Per slice with reserved chips: the start of each chip's idle run (ms since the epoch; 0: none),
// in host/chip order.
struct SliceTrack {
    int hosts = -1;
    int chips = -1;
    std::vector<qint64> idleSinceMs;
};

} // namespace

struct AlertEngine::Private {
    AlertThresholds thresholds;
    QHash<QString, Condition> conditions;
    QHash<QString, SliceTrack> slices;
    QHash<QString, qint64> pendingSince;  // group id -> first seen PENDING/RESCHEDULING
    QHash<QString, qint64> orphanSince;   // "<group id>|<slice>" -> first seen orphaned
    QHash<QString, qint64> silentSince;   // slice -> first seen without any reporting chip
    QHash<QString, QList<IdleChip>> idle;
    QList<Alert> listed;
    std::array<int, kAlertKinds> active{};
    qint64 nowMs = 0;
    quint64 round = 0;

    // Marks a condition true now; `since` is when it began as this snapshot says (kept when it
    // began earlier). `build` fills the alert, given the condition's since.
    template<typename Build>
    void raise(const QString &id, qint64 sinceMs, Build &&build)
    {
        auto it = conditions.find(id);
        if (it == conditions.end())
            it = conditions.insert(id, Condition{sinceMs, -1, round, {}});
        else
            it->sinceMs = std::min(it->sinceMs, sinceMs);
        it->falseSinceMs = -1;
        it->lastRound = round;
        Alert a = build(it->sinceMs);
        a.id = id;
        a.since = QDateTime::fromMSecsSinceEpoch(it->sinceMs, Qt::UTC);
        it->alert = std::move(a);
    }

    void observeSlices(const ClusterSnapshot &snap);
    void observeGroups(const ClusterSnapshot &snap);
    void sweepAndList();
};

AlertEngine::AlertEngine(const AlertThresholds &thresholds)
    : d(std::make_unique<Private>())
{
    d->thresholds = thresholds;
}

AlertEngine::~AlertEngine() = default;
AlertEngine::AlertEngine(AlertEngine &&) noexcept = default;
AlertEngine &AlertEngine::operator=(AlertEngine &&) noexcept = default;

const AlertThresholds &AlertEngine::thresholds() const { return d->thresholds; }
void AlertEngine::setThresholds(const AlertThresholds &thresholds) { d->thresholds = thresholds; }

void AlertEngine::reset()
{
    const AlertThresholds t = d->thresholds;
    d = std::make_unique<Private>();
    d->thresholds = t;
}

const QList<Alert> &AlertEngine::alerts() const { return d->listed; }
int AlertEngine::activeCount(AlertKind kind) const { return d->active[size_t(kind)]; }
const QHash<QString, QList<IdleChip>> &AlertEngine::idleChips() const { return d->idle; }
QDateTime AlertEngine::lastObservedAt() const
{
    return d->round ? QDateTime::fromMSecsSinceEpoch(d->nowMs, Qt::UTC) : QDateTime();
}

qint64 AlertEngine::bytes() const
{
    qint64 n = sizeof(Private);
    for (const SliceTrack &t : std::as_const(d->slices))
        n += 64 + qint64(t.idleSinceMs.capacity()) * 8;
    n += qint64(d->conditions.size()) * (sizeof(Condition) + 160) + qint64(d->pendingSince.size() + d->orphanSince.size() + d->silentSince.size()) * 96;
    for (const QList<IdleChip> &l : std::as_const(d->idle))
        n += 64 + qint64(l.size()) * qint64(sizeof(IdleChip));
    return n + qint64(d->listed.size()) * (sizeof(Alert) + 160);
}

void AlertEngine::observe(const ClusterSnapshot &snapshot)
{
    const qint64 t = snapshot.capturedAt.isValid() ? snapshot.capturedAt.toMSecsSinceEpoch() : d->nowMs;
    d->nowMs = d->round ? std::max(d->nowMs, t) : t;
    ++d->round;
    d->idle.clear();
    d->observeSlices(snapshot);
    d->observeGroups(snapshot);
    d->sweepAndList();
    // Identity (issue 16): each alert says the context and RayCluster of what it is about.
    for (Alert &a : d->listed) {
        if (const int si = a.selectSlice.isEmpty() ? -1 : snapshot.sliceIndex(a.selectSlice); si >= 0) {
            a.context = snapshot.slices[si].context;
            a.rayCluster = snapshot.slices[si].rayCluster;
        } else if (const int gi = a.selectPlacementGroup.isEmpty() ? -1 : snapshot.placementGroupIndex(a.selectPlacementGroup); gi >= 0) {
            a.context = snapshot.placementGroups[gi].context;
            a.rayCluster = snapshot.placementGroups[gi].rayCluster;
        }
    }
}

void AlertEngine::evaluate(const SnapshotHistory &history)
{
    reset();
    for (int i = 0; i < history.size(); ++i)
        observe(*history.snapshot(i));
}

void AlertEngine::Private::observeSlices(const ClusterSnapshot &snap)
{
    const ActivityTable *table = snap.activity.get();
    const AlertThresholds &th = thresholds;
    const float below = float(th.idleBelowPercent);
    const bool fleetReports = table && table->reportingChips() > 0;
    QSet<QString> present;
    present.reserve(snap.slices.size());

    // Chips of one slice held by one group and idle long enough.
    struct IdleGroup {
        int group = -1;
        int chips = 0;
        qint64 sinceMs = 0;
    };
    std::vector<IdleGroup> idleGroups;

    for (int si = 0; si < snap.slices.size(); ++si) {
        const Slice &s = snap.slices[si];
        present.insert(s.name);

        // slice-degraded
        if (s.status() == SliceStatus::Degraded) {
            int down = 0;
            for (const Host &h : s.hosts)
                down += h.state != HostState::Alive;
            const bool held = s.reservedChips > 0 || s.headHeldBy >= 0;
            raise(QStringLiteral("slice-degraded|") + s.name, nowMs, [&](qint64) {
                Alert a;
                a.kind = AlertKind::SliceDegraded;
                a.subject = a.selectSlice = s.name;
                a.severity = held ? AlertSeverity::Critical : AlertSeverity::Warning;
                QStringList why = s.problems.mid(0, 3);
                if (s.problems.size() > 3) why << QStringLiteral("%1 more").arg(s.problems.size() - 3);
                a.text = QStringLiteral("%1 is degraded%2: %3")
                             .arg(s.name, s.reservedChips > 0 ? QStringLiteral(" with %1").arg(plural(s.reservedChips, "reserved chip", "reserved chips")) : held ? QStringLiteral(" with its head reserved")
                                                                                                                                                                  : QString(),
                                  why.isEmpty() ? QStringLiteral("its hosts do not add up to its topology") : why.join(QStringLiteral("; ")));
                a.count = down;
                return a;
            });
        }

        // host-missing and worker-id-gap
        int highestPresent = -1;
        for (const Host &h : s.hosts)
            if (h.state != HostState::Missing) highestPresent = std::max(highestPresent, h.workerId);
        QList<int> gaps;
        for (const Host &h : s.hosts) {
            if (h.state == HostState::Missing && h.workerId < highestPresent) gaps << h.workerId;
            if (h.state != HostState::Missing && h.state != HostState::Dead) continue;
            raise(QStringLiteral("host-missing|%1|%2").arg(s.name).arg(h.workerId), nowMs, [&](qint64) {
                Alert a;
                a.kind = AlertKind::HostMissing;
                a.subjectKind = AlertSubjectKind::Host;
                a.subject = QStringLiteral("%1 worker %2").arg(s.name).arg(h.workerId);
                a.selectSlice = s.name;
                a.severity = AlertSeverity::Warning;
                a.text = h.state == HostState::Dead ? QStringLiteral("%1 is DEAD: Ray lost the node (or its pod is gone)").arg(a.subject)
                                                    : QStringLiteral("%1 is MISSING: no Ray node or pod reports that worker").arg(a.subject);
                a.count = 1;
                return a;
            });
        }
        const bool strays = std::any_of(s.problems.cbegin(), s.problems.cend(), [](const QString &p) { return p.contains(QLatin1String(" reports worker ")); });
        if (!gaps.isEmpty() || strays) {
            raise(QStringLiteral("worker-id-gap|") + s.name, nowMs, [&](qint64) {
                Alert a;
                a.kind = AlertKind::WorkerIdGap;
                a.subject = a.selectSlice = s.name;
                a.severity = AlertSeverity::Warning;
                QStringList ids;
                for (int g : std::as_const(gaps))
                    ids << QString::number(g);
                a.text = !gaps.isEmpty() ? QStringLiteral("%1: worker id%2 %3 missing while worker %4 reports: a host joined with the wrong TPU_WORKER_ID, or one never came")
                                               .arg(s.name, gaps.size() == 1 ? QString() : QStringLiteral("s"), ids.join(QStringLiteral(", ")) + (gaps.size() == 1 ? QStringLiteral(" is") : QStringLiteral(" are")))
                                               .arg(highestPresent)
                                         : QStringLiteral("%1: a host reports a worker id beyond the slice's %2 hosts").arg(s.name).arg(s.hostCount());
                a.count = int(gaps.size());
                return a;
            });
        }

        // Chips: idle runs, busy-unreserved, metrics-missing.
        int chipCount = 0;
        for (const Host &h : s.hosts)
            chipCount += int(h.chips.size());
        SliceTrack *track = nullptr;
        if (s.reservedChips > 0 && chipCount > 0) {
            track = &slices[s.name];
            if (track->hosts != s.hostCount() || track->chips != chipCount) {
                track->hosts = s.hostCount();
                track->chips = chipCount;
                track->idleSinceMs.assign(size_t(chipCount), 0);
            }
        } else {
            slices.remove(s.name);
        }
        idleGroups.clear();
        int aliveChips = 0, aliveReporting = 0, busyFree = 0;
        QString silentReason;
        int at = 0;
        for (int hi = 0; hi < s.hosts.size(); ++hi) {
            const Host &h = s.hosts[hi];
            const bool alive = h.state == HostState::Alive;
            if (alive && table && !h.chips.isEmpty() && silentReason.isEmpty()) silentReason = table->unknownReason(si, hi);
            for (int c = 0; c < h.chips.size(); ++c, ++at) {
                const ChipActivity *a = table ? table->chip(si, hi, c) : nullptr;
                const bool reserved = h.chips[c].placementGroup >= 0;
                if (alive) {
                    ++aliveChips;
                    aliveReporting += a && a->reports();
                }
                const bool known = a && a->hasDutyCycle();
                if (!reserved && known && a->dutyCycle >= below) ++busyFree;
                if (!track) continue;
                qint64 &run = track->idleSinceMs[size_t(at)];
                if (!reserved) {
                    run = 0;
                    continue;
                }
                const bool window = a && a->windowSeconds > 0 && !std::isnan(a->windowMaxDutyCycle) && qint64(a->windowSeconds) * 1000 >= th.idleAfterMs;
                // Only a window Prometheus saw whole (windowCovered) proves idle for all of it; any
                // window's maximum over the threshold proves the chip busy within it.
                const bool busyInWindow = a && a->windowSeconds > 0 && !std::isnan(a->windowMaxDutyCycle) && a->windowMaxDutyCycle >= below;
                if (window && a->windowCovered && !busyInWindow && (!known || a->dutyCycle < below)) {
                    const qint64 start = nowMs - qint64(a->windowSeconds) * 1000;
                    run = run ? std::min(run, start) : start;
                } else if (window && busyInWindow) {
                    run = known && a->dutyCycle < below ? nowMs : 0;
                } else if (known && a->dutyCycle < below) {
                    if (!run) run = nowMs;
                } else {
                    run = 0; // busy, or unknown: unknown is never idle
                }
                if (run && nowMs - run >= th.idleAfterMs) {
                    idle[s.name].append(IdleChip{hi, c, QDateTime::fromMSecsSinceEpoch(run, Qt::UTC)});
                    const int g = h.chips[c].placementGroup;
                    auto ig = std::find_if(idleGroups.begin(), idleGroups.end(), [g](const IdleGroup &x) { return x.group == g; });
                    if (ig == idleGroups.end()) idleGroups.push_back({g, 1, run});
                    else {
                        ++ig->chips;
                        ig->sinceMs = std::min(ig->sinceMs, run);
                    }
                }
            }
        }
        for (const IdleGroup &ig : idleGroups) {
            const PlacementGroup &g = snap.placementGroups[ig.group];
            raise(QStringLiteral("reserved-idle|%1|%2").arg(s.name, g.id), ig.sinceMs, [&](qint64 since) {
                Alert a;
                a.kind = AlertKind::ReservedIdle;
                a.subject = a.selectSlice = s.name;
                a.selectPlacementGroup = g.id;
                a.severity = AlertSeverity::Warning;
                a.text = QStringLiteral("%1: %2 idle (duty cycle under %3 %) for %4, held by group %5")
                             .arg(s.name, plural(ig.chips, "reserved chip", "reserved chips"), percentText(th.idleBelowPercent), alertDurationText(nowMs - since), g.displayLabel());
                a.count = ig.chips;
                return a;
            });
        }
        if (busyFree > 0) {
            raise(QStringLiteral("busy-unreserved|") + s.name, nowMs, [&](qint64) {
                Alert a;
                a.kind = AlertKind::BusyUnreserved;
                a.subject = a.selectSlice = s.name;
                a.severity = AlertSeverity::Info;
                a.text = QStringLiteral("%1: %2 busy (duty cycle %3 % or more) that no placement group holds")
                             .arg(s.name, plural(busyFree, "chip", "chips"), percentText(th.idleBelowPercent));
                a.count = busyFree;
                return a;
            });
        }
        if (table && aliveChips > 0 && aliveReporting == 0) {
            auto it = silentSince.find(s.name);
            if (it == silentSince.end()) it = silentSince.insert(s.name, nowMs);
            if (nowMs - *it >= th.metricsMissingAfterMs) {
                raise(QStringLiteral("metrics-missing|") + s.name, *it, [&](qint64 since) {
                    Alert a;
                    a.kind = AlertKind::MetricsMissing;
                    a.subject = a.selectSlice = s.name;
                    a.severity = fleetReports ? AlertSeverity::Warning : AlertSeverity::Info;
                    a.text = QStringLiteral("%1: none of its %2 on alive hosts reports activity for %3%4")
                                 .arg(s.name, plural(aliveChips, "chip", "chips"), alertDurationText(nowMs - since),
                                      silentReason.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(silentReason));
                    a.count = aliveChips;
                    return a;
                });
            }
        } else {
            silentSince.remove(s.name);
        }
    }
    // Forget slices that are gone.
    for (auto it = slices.begin(); it != slices.end();)
        it = present.contains(it.key()) ? std::next(it) : slices.erase(it);
    for (auto it = silentSince.begin(); it != silentSince.end();)
        it = present.contains(it.key()) ? std::next(it) : silentSince.erase(it);
}

void AlertEngine::Private::observeGroups(const ClusterSnapshot &snap)
{
    const AlertThresholds &th = thresholds;
    // Slices some slice placement group pins (placed bundles, or a label selector while pending).
    QSet<QString> pinned;
    bool anyHead = false;
    for (const PlacementGroup &g : snap.placementGroups) {
        anyHead = anyHead || g.kind == PlacementGroupKind::SliceHead;
        if (g.kind != PlacementGroupKind::Slice) continue;
        for (const QString &s : g.slices)
            pinned.insert(s);
        for (const Bundle &b : g.bundles)
            if (!b.selectorSlice.isEmpty()) pinned.insert(b.selectorSlice);
    }
    QSet<QString> pendingNow, orphanNow;
    for (int gi = 0; gi < snap.placementGroups.size(); ++gi) {
        const PlacementGroup &g = snap.placementGroups[gi];
        if (g.state == QLatin1String("PENDING") || g.state == QLatin1String("RESCHEDULING")) {
            pendingNow.insert(g.id);
            auto it = pendingSince.find(g.id);
            if (it == pendingSince.end()) it = pendingSince.insert(g.id, nowMs);
            if (nowMs - *it < th.pendingAfterMs) continue;
            int tpu = 0;
            QString selector;
            for (const Bundle &b : g.bundles) {
                tpu += b.tpu;
                if (selector.isEmpty()) selector = b.selectorSlice;
            }
            raise(QStringLiteral("placement-group-pending|") + g.id, *it, [&](qint64 since) {
                Alert a;
                a.kind = AlertKind::PlacementGroupPending;
                a.subjectKind = AlertSubjectKind::PlacementGroup;
                a.subject = g.displayLabel();
                a.selectPlacementGroup = g.id;
                a.selectSlice = snap.sliceIndex(selector) >= 0 ? selector : QString();
                a.severity = AlertSeverity::Warning;
                a.text = QStringLiteral("placement group %1 has been %2 for %3 (%4, %5 TPU%6)")
                             .arg(g.displayLabel(), g.state, alertDurationText(nowMs - since), plural(int(g.bundles.size()), "bundle", "bundles"))
                             .arg(tpu)
                             .arg(g.schedulingState.isEmpty() ? QString() : QStringLiteral("; Ray says ") + g.schedulingState);
                a.count = int(g.bundles.size());
                return a;
            });
        }
    }
    if (anyHead) {
        for (const Slice &s : snap.slices) {
            if (s.headHeldBy < 0 || s.headHeldBy >= snap.placementGroups.size()) continue;
            const PlacementGroup &g = snap.placementGroups[s.headHeldBy];
            if (g.kind != PlacementGroupKind::SliceHead) continue;
            const QString rayName = s.rayName.isEmpty() ? s.name : s.rayName;
            if (pinned.contains(s.name) || pinned.contains(rayName)) continue;
            const QString key = g.id + u'|' + s.name;
            orphanNow.insert(key);
            auto it = orphanSince.find(key);
            if (it == orphanSince.end()) it = orphanSince.insert(key, nowMs);
            if (nowMs - *it < th.pendingAfterMs) continue;
            raise(QStringLiteral("head-reservation-orphaned|") + key, *it, [&](qint64 since) {
                Alert a;
                a.kind = AlertKind::HeadReservationOrphaned;
                a.subjectKind = AlertSubjectKind::PlacementGroup;
                a.subject = g.displayLabel();
                a.selectPlacementGroup = g.id;
                a.selectSlice = s.name;
                a.severity = AlertSeverity::Warning;
                a.text = QStringLiteral("head group %1 has held %2's TPU-%3-head for %4 with no slice placement group on %2: "
                                        "its reservation's slice group is gone or never came; releasing the head group frees the slice")
                             .arg(g.displayLabel(), s.name, s.podType.isEmpty() ? QStringLiteral("<pod>") : s.podType, alertDurationText(nowMs - since));
                a.count = 1;
                return a;
            });
        }
    }
    for (auto it = pendingSince.begin(); it != pendingSince.end();)
        it = pendingNow.contains(it.key()) ? std::next(it) : pendingSince.erase(it);
    for (auto it = orphanSince.begin(); it != orphanSince.end();)
        it = orphanNow.contains(it.key()) ? std::next(it) : orphanSince.erase(it);
}

void AlertEngine::Private::sweepAndList()
{
    // Conditions false now clear once false for the hold (counted from the first snapshot that
    // found them false); until then they stay as last said.
    for (auto it = conditions.begin(); it != conditions.end();) {
        if (it->lastRound != round) {
            if (it->falseSinceMs < 0) it->falseSinceMs = nowMs;
            if (nowMs - it->falseSinceMs >= thresholds.clearHoldMs) {
                it = conditions.erase(it);
                continue;
            }
        }
        ++it;
    }
    std::vector<const Alert *> all;
    all.reserve(size_t(conditions.size()));
    active.fill(0);
    for (const Condition &c : std::as_const(conditions)) {
        all.push_back(&c.alert);
        ++active[size_t(c.alert.kind)];
    }
    std::sort(all.begin(), all.end(), [](const Alert *a, const Alert *b) {
        if (a->severity != b->severity) return a->severity > b->severity;
        if (a->kind != b->kind) return a->kind < b->kind;
        if (a->since != b->since) return a->since < b->since;
        return a->id < b->id;
    });
    const int cap = std::max(1, thresholds.maxPerKind);
    std::array<int, kAlertKinds> shown{};
    std::array<Alert, kAlertKinds> rest{};
    listed.clear();
    for (const Alert *a : all) {
        const size_t k = size_t(a->kind);
        if (shown[k] < cap) {
            ++shown[k];
            listed.append(*a);
            continue;
        }
        Alert &r = rest[k];
        if (!r.rollup) {
            r = *a;
            r.rollup = true;
            r.count = 0;
            r.selectSlice.clear();
            r.selectPlacementGroup.clear();
        }
        ++r.count;
        r.severity = std::max(r.severity, a->severity);
        r.since = std::min(r.since, a->since);
    }
    for (Alert &r : rest) {
        if (!r.rollup) continue;
        r.subject = QStringLiteral("+%1 more").arg(r.count);
        r.id = toText(r.kind) + QStringLiteral("|+more");
        r.text = QStringLiteral("+%1 more %2 alerts not listed").arg(r.count).arg(toText(r.kind));
        listed.append(std::move(r));
    }
}

} // namespace slicescope
