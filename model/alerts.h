// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Alerts: what an operator should look at, derived from snapshots over time (issue 15). The
// AlertEngine is fed every snapshot in time order (observe()) and keeps what a rule needs to
// remember between them: since when a placement group is pending, since when each reserved chip
// has been idle, since when an alert's condition holds and when it last did.
//
// Rules (AlertKind), each evaluated on every snapshot:
//  - slice-degraded: a slice's status is degraded (critical when something is reserved on it);
//  - host-missing: a slice host is MISSING or DEAD (subject "<slice> worker N");
//  - placement-group-pending: a group PENDING (or RESCHEDULING) for pendingAfter, counted from the
//    first snapshot the engine saw it pending in;
//  - head-reservation-orphaned: a slice-head group holds a slice's TPU-<pod>-head while no slice
//    group of any state pins that slice, for pendingAfter (ray.util.tpu creates the slice group
//    right after the head group: a short gap is the reservation at work, a long one a leak);
//  - reserved-idle: chips held by a placement-group bundle whose duty cycle stayed under
//    idleBelowPercent for idleAfter; one alert per slice and holding group. A chip is idle-since
//    the first of an unbroken run of snapshots in which it was held and under the threshold; when
//    Prometheus answered max_over_time over a window at least idleAfter long, that window decides:
//    over the threshold, busy within it; under it, idle since at least the window's start, but
//    only when Prometheus saw the whole window (ChipActivity::windowCovered: the series existed at
//    its start), else the observed run decides. An unknown duty cycle breaks the run: unknown is
//    never idle;
//  - metrics-missing: activity was asked (the snapshot has a table) and no chip of a slice's alive
//    hosts reports, for metricsMissingAfter (warning when other slices report, info when none does);
//  - worker-id-gap: a slice whose present hosts' worker ids skip one (a MISSING worker below a
//    present one), or a host reports a worker id beyond the slice's hosts;
//  - busy-unreserved (info): chips whose duty cycle is at or over idleBelowPercent that no
//    placement group holds.
// Flapping is damped: an alert clears only once its condition has been false for clearHold
// (counted from the first snapshot that found it false); one that holds again within the hold
// keeps its `since`. Durations of 0 mean "now".
//
// Bounds: alerts() lists at most maxPerKind alerts of each kind (the most severe, then the
// oldest), then one "+N more" rollup of that kind. The engine keeps 8 bytes per chip of a slice
// with reserved chips (40k chips: ~320 KB) and one record per alert condition and per pending
// group; slices, groups and conditions that are gone are forgotten.

#include "activity.h"
#include "snapshot.h"

#include <QDateTime>
#include <QHash>
#include <QList>
#include <QString>

#include <memory>
#include <vector>

namespace slicescope {

class SnapshotHistory;

enum class AlertKind : quint8
{
    SliceDegraded,
    HostMissing,
    PlacementGroupPending,
    HeadReservationOrphaned,
    ReservedIdle,
    MetricsMissing,
    WorkerIdGap,
    BusyUnreserved,
};
// "slice-degraded", "host-missing", "placement-group-pending", "head-reservation-orphaned",
// "reserved-idle", "metrics-missing", "worker-id-gap", "busy-unreserved"
QString toText(AlertKind kind);
inline constexpr int kAlertKinds = 8;

// Ordered: Info < Warning < Critical.
enum class AlertSeverity : quint8
{
    Info,
    Warning,
    Critical,
};
QString toText(AlertSeverity severity); // "info", "warning", "critical"
// Reads "info" / "warning" / "critical"; false (and *severity untouched) for anything else.
bool severityFromText(QStringView text, AlertSeverity *severity);

enum class AlertSubjectKind : quint8
{
    Slice,
    Host,
    PlacementGroup,
    WorkerGroup,
};
QString toText(AlertSubjectKind kind); // "slice", "host", "placement-group", "worker-group"

struct AlertThresholds {
    double idleBelowPercent = 5;              // a duty cycle under this is idle; at or over it is busy
    qint64 idleAfterMs = 10 * 60 * 1000;      // reserved and idle this long: reserved-idle
    qint64 pendingAfterMs = 5 * 60 * 1000;    // pending this long: placement-group-pending (and the head grace)
    qint64 metricsMissingAfterMs = 60 * 1000; // a slice silent this long: metrics-missing
    qint64 clearHoldMs = 60 * 1000;           // an alert clears after its condition was false this long
    int maxPerKind = 50;                      // alerts listed per kind before the "+N more" rollup
    friend bool operator==(const AlertThresholds &, const AlertThresholds &) = default;
};

struct Alert {
    AlertKind kind = AlertKind::SliceDegraded;
    AlertSubjectKind subjectKind = AlertSubjectKind::Slice;
    QString subject;              // as shown: a slice name, "<slice> worker N", a group's displayLabel()
    QString selectSlice;          // what the UI selects when the alert is clicked (either may be empty)
    QString selectPlacementGroup; // a placement group id
    QDateTime since;              // when the condition began (idle: the idle run's start)
    AlertSeverity severity = AlertSeverity::Warning;
    QString text;                 // one sentence
    int count = 0;                // chips (reserved-idle, busy-unreserved, metrics-missing), hosts
                                  // (slice-degraded, worker-id-gap), bundles (pending); the rollup: alerts rolled up
    bool rollup = false;          // the "+N more" entry of its kind
    QString id;                   // stable identity of the condition ("reserved-idle|<slice>|<group id>")
    QString context;              // the fleet identity of its slice or group (issue 16), when known
    QString rayCluster;
    friend bool operator==(const Alert &, const Alert &) = default;
};

class AlertEngine
{
public:
    explicit AlertEngine(const AlertThresholds &thresholds = {});
    ~AlertEngine();
    AlertEngine(AlertEngine &&) noexcept;
    AlertEngine &operator=(AlertEngine &&) noexcept;

    const AlertThresholds &thresholds() const;
    // Takes effect from the next observe(); what was remembered (first-seen times, idle runs) stays.
    void setThresholds(const AlertThresholds &thresholds);

    // Feeds the next snapshot. Snapshots are expected in time order; one dated before the last
    // (or undated) counts as taken at the last one's time.
    void observe(const ClusterSnapshot &snapshot);
    // Forgets everything, as a new engine.
    void reset();
    // Replays every entry of a history through a fresh state (reset() first); the alerts are then
    // those at its newest entry.
    void evaluate(const SnapshotHistory &history);

    // The active alerts after the last observe(): most severe first, then kind, then oldest, each
    // kind bounded by maxPerKind plus one rollup.
    const QList<Alert> &alerts() const;
    // Every active alert of a kind (not bounded), e.g. for counts on tiles.
    int activeCount(AlertKind kind) const;
    // Reserved chips judged idle at the last observe(), per slice name (the 3D view outlines them).
    const QHash<QString, QList<IdleChip>> &idleChips() const;
    QDateTime lastObservedAt() const;
    qint64 bytes() const; // an estimate of what the engine holds

private:
    struct Private;
    std::unique_ptr<Private> d;
};

// "45 s", "12 min", "2 h 5 min": a duration as alert sentences say it.
QString alertDurationText(qint64 ms);

} // namespace slicescope
