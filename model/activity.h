// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Chip activity: what each TPU chip is doing, as Ray's reporter agents and Prometheus say
// (docs/facts.md 2.5), joined to the exact chip of the canonical layout. The numbers come from
// three places, each stored verbatim in the capture:
//  - Ray's node summary (GET /nodes?view=summary): each node's `tpus`, per local chip index;
//  - Prometheus, Ray's gauges `ray_tpu_*` (tags `ip`, `instance`, `TpuIndex`), joined to a Ray
//    node through its metrics export address (from the node summary) or its IP when unique;
//  - Prometheus, the GKE TPU device plugin's own series (labels `pod`, `namespace`,
//    `accelerator_id` = "<uid>-<index>"), joined to the pod's host; runtime metrics are indexed
//    slice-wide and mapped onto the host's chips in index order, as Ray does.
// A chip no source reports is unknown, never idle and never busy; the table says why per host.
// Ray's summary writes 0 for a metric the plugin did not report: a chip whose runtime metrics
// are all 0 with no HBM total has no runtime metrics (its duty cycle is unknown, not 0).

#include <QDateTime>
#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

#include <cmath>
#include <limits>
#include <memory>

namespace slicescope {

struct ClusterSnapshot;
struct Capture;

enum class ActivitySource : quint8
{
    None,
    RayNodeSummary, // GET /nodes?view=summary
    RayMetrics,     // Prometheus: ray_tpu_* gauges
    DevicePlugin,   // Prometheus: the device plugin's own series
};
QString toText(ActivitySource source); // "none", "ray-node-summary", "ray-metrics", "device-plugin"

inline constexpr float kUnknownActivity = std::numeric_limits<float>::quiet_NaN();

// One chip's numbers. Percentages are 0..100; NaN is unknown (the source did not say).
struct ChipActivity {
    float dutyCycle = kUnknownActivity;
    float tensorcoreUtilization = kUnknownActivity;
    float hbmBandwidthUtilization = kUnknownActivity;
    double hbmUsedBytes = std::numeric_limits<double>::quiet_NaN();
    double hbmTotalBytes = std::numeric_limits<double>::quiet_NaN();
    // The highest duty cycle over the window Prometheus was asked about (max_over_time), NaN when
    // not asked; windowSeconds says which window. windowCovered: the answer proves the chip's
    // series already existed at the window's start (promql::windowMaxQuery asks only for those), so
    // the maximum speaks for the whole window; without it (a Prometheus that has scraped for less
    // than the window, or a recording made before the proof was asked) it speaks only for the part
    // Prometheus saw: it can prove a chip busy, never idle for the whole window.
    float windowMaxDutyCycle = kUnknownActivity;
    qint32 windowSeconds = 0;
    bool windowCovered = false;
    qint64 sampledAtMs = 0; // when the source took the numbers (ms since the epoch); 0 unknown
    ActivitySource source = ActivitySource::None;

    bool reports() const { return source != ActivitySource::None; }
    bool hasDutyCycle() const { return !std::isnan(dutyCycle); }
    // Seconds between the sample and `at`; -1 when the sample time is unknown.
    qint64 ageSeconds(const QDateTime &at) const;
    friend bool operator==(const ChipActivity &a, const ChipActivity &b);
};

// Counts over some chips (a slice, a placement group's chips, a worker group, the fleet).
struct ActivityCounts {
    int chips = 0;          // chips counted
    int reporting = 0;      // of those, with any number
    int withDutyCycle = 0;  // of those, with a duty cycle
    double dutyCycleSum = 0;
    double hbmUsedBytes = 0;
    double hbmTotalBytes = 0;
    // Mean duty cycle of the chips that report one; NaN when none does.
    double meanDutyCycle() const { return withDutyCycle ? dutyCycleSum / withDutyCycle : std::numeric_limits<double>::quiet_NaN(); }
    double hbmUsedFraction() const { return hbmTotalBytes > 0 ? hbmUsedBytes / hbmTotalBytes : std::numeric_limits<double>::quiet_NaN(); }
    void add(const ChipActivity &a);
    void merge(const ActivityCounts &other);
    friend bool operator==(const ActivityCounts &, const ActivityCounts &) = default;
};

// The activity of every chip of one snapshot, in the snapshot's slice/host/chip order. Built by
// buildSnapshot() from the capture's activity bodies; absent (null) when the capture has none.
class ActivityTable
{
public:
    // Chip `chip` of host `host` (an index into Slice::hosts) of slice `slice`; null when out of
    // range (a host that cannot be laid out has no chips).
    const ChipActivity *chip(int slice, int host, int chip) const;
    // Why a host's chips are unknown (empty when they report, or the host has no chips).
    QString unknownReason(int slice, int host) const;
    ActivityCounts sliceCounts(int slice) const;
    ActivityCounts hostCounts(int slice, int host) const;
    int chipCount() const { return int(m_chips.size()); }
    int reportingChips() const { return m_reporting; }

    // Where the numbers came from and what went wrong on the way, in words: "ray node summary:
    // 11 of 12 nodes report TPU metrics", "prometheus: 3 series name no known Ray node".
    QStringList sources;
    QStringList problems;
    // The sources asked that gave nothing usable (issue 30): Prometheus down, refusing, redirecting,
    // answering too much, not JSON or an error status. Each is in `problems` too; the headless verbs
    // fail on these (exit 1, `sourceErrors`), never on the other problems.
    struct SourceError {
        QString source;  // "prometheus"
        QString message; // the whole reason, with the URL or the query's name
        friend bool operator==(const SourceError &, const SourceError &) = default;
    };
    QList<SourceError> sourceErrors;
    QDateTime newestSampleAt;

    // Per slice (by name), per placement group (by id: the chips its bundles hold) and per worker
    // group ("ns/cluster/group"), and the whole fleet; filled when the table is finished.
    QHash<QString, ActivityCounts> bySlice;
    QHash<QString, ActivityCounts> byPlacementGroup;
    QHash<QString, ActivityCounts> byWorkerGroup;
    ActivityCounts fleet;

    qint64 bytes() const; // an estimate of the memory it holds (for the history's bound)
    friend bool operator==(const ActivityTable &, const ActivityTable &) = default;

private:
    friend class ActivityTableBuilder;
    QList<qint32> m_sliceFirstHost; // per slice, its first host's position; one more at the end
    QList<qint32> m_hostFirstChip;  // per host position, its first chip's index; one more at the end
    QList<qint32> m_hostReason;     // per host position, an index into m_reasons, or -1
    QStringList m_reasons;
    QList<ChipActivity> m_chips;
    int m_reporting = 0;
};

// Fills an ActivityTable shaped like a snapshot's slices and hosts (the join, the demo's tests,
// the widgets' tests). Every chip starts unknown.
class ActivityTableBuilder
{
public:
    explicit ActivityTableBuilder(const ClusterSnapshot &snapshot);
    ChipActivity *chip(int slice, int host, int chip); // null when out of range
    void setUnknownReason(int slice, int host, const QString &reason);
    ActivityTable &table() { return m_table; }
    std::shared_ptr<const ActivityTable> finish(); // counts the reporting chips; the builder is spent

private:
    const ClusterSnapshot &m_snapshot;
    ActivityTable m_table;
};

// A chip judged idle while reserved (model/alerts.h decides, over time): the views outline it.
struct IdleChip {
    int host = -1;       // position in Slice::hosts
    int chip = -1;       // chip index on that host
    QDateTime since;     // since when its duty cycle stayed under the threshold (invalid: unknown)
    friend bool operator==(const IdleChip &, const IdleChip &) = default;
};

// Joins the capture's activity bodies to the snapshot's chips and sets snapshot.activity (left
// null when the capture holds no activity body). Called by buildSnapshot() after the join.
void joinActivity(ClusterSnapshot &snapshot, const Capture &capture);

// The parse of a capture's new activity bodies, started beside the caller (on the join's second
// thread, model/activityparse_p.h) while the caller builds the allocation they are joined to:
// buildSnapshot() makes one first, and joinActivity() then finds the bodies parsed. It parses
// only bodies no earlier capture carried, and only those the join reads whatever the allocation
// is: the node summary and the window answers, and the current answers when there is no summary.
// Where Qt has no threads (the browser) it parses in wait(). The result is the same either way.
class ActivityPrefetch
{
public:
    explicit ActivityPrefetch(const Capture &capture);
    ~ActivityPrefetch(); // waits
    ActivityPrefetch(const ActivityPrefetch &) = delete;
    ActivityPrefetch &operator=(const ActivityPrefetch &) = delete;
    void wait(); // rethrows what the parse threw

private:
    struct State;
    std::unique_ptr<State> m_state; // null: nothing to parse
};

// The Prometheus queries SliceScope asks (and the only ones it interprets in a capture). Each asks
// for the labels the join reads and nothing else (max by ...): one series per chip and metric,
// about a quarter of the bytes of the same series with every label Ray's exporter adds (it is the
// answers' size that the join's time follows; docs/facts.md 2.5).
namespace promql {
inline constexpr char kRayTpu[] = "max by (__name__, instance, ip, TpuIndex) "
                                  "({__name__=~\"ray_tpu_(duty_cycle|tensorcore_utilization|memory_bandwidth_utilization|memory_used|memory_total)\"})";
inline constexpr char kDevicePlugin[] = "max by (__name__, namespace, pod, accelerator_id) "
                                        "({__name__=~\"duty_cycle|tensorcore_utilization|memory_bandwidth_utilization|memory_used|memory_total\",accelerator_id!=\"\"})";
// What recordings made before the queries above asked (every label); still read.
inline constexpr char kRayTpuAllLabels[] = "{__name__=~\"ray_tpu_(duty_cycle|tensorcore_utilization|memory_bandwidth_utilization|memory_used|memory_total)\"}";
inline constexpr char kDevicePluginAllLabels[] = "{__name__=~\"duty_cycle|tensorcore_utilization|memory_bandwidth_utilization|memory_used|memory_total\",accelerator_id!=\"\"}";
// The highest duty cycle of each chip over `seconds`, for the chips whose series already existed
// `seconds` ago (the `and ... offset` half: a Prometheus that started scraping 2 minutes ago has
// no answer for a 10 minute window, rather than a 2 minute one passed off as 10):
// "max by (instance, ip, TpuIndex) (max_over_time(ray_tpu_duty_cycle[600s]) and ray_tpu_duty_cycle offset 600s)".
QString windowMaxQuery(int seconds);
// The window of a query windowMaxQuery() makes (covered: true), or of the form recordings made
// before asked, "max_over_time(ray_tpu_duty_cycle[600s])" (covered: false); 0 for anything else.
int windowOfQuery(const QString &query, bool *covered = nullptr);
} // namespace promql

} // namespace slicescope
