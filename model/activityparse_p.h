// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The activity join's parse side (model/activityparse.cpp): Ray's node summary and each Prometheus
// answer read once into the values the join needs (model/activityjoin.cpp joins them to chips).
#include "activity.h"
#include "capture.h"
#include "inputlimits.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <cmath>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace slicescope::activityparse {

// What a chip may claim: percentages 0..100 (a hair over from rounding is allowed), bytes below 1 PB.
constexpr double kMaxPercent = 100.5;
constexpr double kMaxBytes = 1e15;
// Series one answer may hold: 5 metrics of 8 chips on 10k hosts, with room.
constexpr int kMaxSeries = 1 << 19;

// Maps keyed by the bytes of a body: looked up with the parser's string_views, no QString per
// series (the join's time follows the answers' size: 195k series for a 10k-node cluster).
struct ViewHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};
template<typename V>
using ViewMap = std::unordered_map<std::string, V, ViewHash, std::equal_to<>>;

enum class Metric
{
    None,
    DutyCycle,
    Tensorcore,
    HbmBandwidth,
    HbmUsed,
    HbmTotal
};

inline bool isRuntimeMetric(Metric m)
{
    return m == Metric::DutyCycle || m == Metric::HbmUsed || m == Metric::HbmTotal;
}

inline bool valueFits(Metric m, double v)
{
    if (!std::isfinite(v) || v < 0)
        return false;
    return m == Metric::HbmUsed || m == Metric::HbmTotal ? v < kMaxBytes : v <= kMaxPercent;
}

// Sets one metric on a chip unless a source before this one already said it.
inline void setMetric(ChipActivity &c, Metric m, double v)
{
    switch (m) {
    case Metric::DutyCycle:
        if (std::isnan(c.dutyCycle)) c.dutyCycle = float(std::min(v, 100.0));
        break;
    case Metric::Tensorcore:
        if (std::isnan(c.tensorcoreUtilization)) c.tensorcoreUtilization = float(std::min(v, 100.0));
        break;
    case Metric::HbmBandwidth:
        if (std::isnan(c.hbmBandwidthUtilization)) c.hbmBandwidthUtilization = float(std::min(v, 100.0));
        break;
    case Metric::HbmUsed:
        if (std::isnan(c.hbmUsedBytes)) c.hbmUsedBytes = v;
        break;
    case Metric::HbmTotal:
        if (std::isnan(c.hbmTotalBytes)) c.hbmTotalBytes = v;
        break;
    case Metric::None: break;
    }
}

// Prometheus writes "status" first: an answer that starts so is a success worth reading in full
// only when it can change something (see Joiner::run()); anything else is read and explained.
bool startsAsSuccess(const QByteArray &body);

// ---- The parse of each body, kept while captures carry the same body ----------------------
// RayClient refreshes the node summary at most every 10 s and the Prometheus poller its answers
// every 10 s, while captures come every 2 s: most captures carry the very bodies (the same shared
// buffers) the one before did. Each body is parsed once into the values the join needs; the join
// itself then costs a lookup per node and per series. The newest parse of each kind is kept with
// a reference to its body, so "the same buffer" is a pointer comparison that cannot be fooled by
// a freed buffer's address coming back (docs/architecture.md, the data path).

struct SummaryChip {
    int index = -1;
    double values[5] = {0, 0, 0, 0, 0}; // duty, tensorcore, hbm bw, used, total
    bool has[5] = {false, false, false, false, false};
};

// One entry of GET /nodes?view=summary, as the join needs it. Its chips are kept in one list for
// the whole summary (most entries of a cluster are no TPU host, and a fixed array of
// kMaxChipsPerHost chips per entry made the list 5 MB for 10k nodes, copied as it grew).
struct SummaryEntry {
    QString nodeId;       // lower case, as the snapshot's node ids are keyed
    std::string instance; // "address:metrics-port" of a live node, else empty
    double now = 0;
    bool sawTpus = false;
    int firstChip = 0; // its chips are ParsedSummary::chips[firstChip, firstChip + chipCount)
    int chipCount = 0; // at most limits::kMaxChipsPerHost
};

struct ParsedSummary {
    QByteArray body; // held: its buffer names this parse
    bool ok = false;
    QStringList errors, warnings;
    std::vector<SummaryEntry> entries;
    std::vector<SummaryChip> chips; // every entry's chips, in entry order
    ViewMap<int> byInstance; // "address:metrics-port" -> the live entry that has it (the last, as Ray lists them)
};

// One series of a Prometheus answer: its labels as indices into the answer's strings (0: absent).
struct ParsedSeries {
    quint32 ip = 0, instance = 0, pod = 0, ns = 0;
    double value = 0;
    qint64 atMs = 0;
    Metric metric = Metric::None;
    qint32 index = -1; // TpuIndex (Ray: local) or the accelerator_id's (plugin: slice-wide for runtime metrics)
    bool valueOk = false;
};

struct ParsedAnswer {
    QString query;
    QByteArray body; // held: its buffer names this parse
    bool rayNames = false, window = false;
    bool ok = false;
    QStringList errors, warnings;
    QString status, errorType, error, resultType;
    std::vector<ParsedSeries> series;
    std::deque<std::string> strings{std::string()}; // [0] is "absent"; a deque: views into it stay put
};

// The parse of a body, kept while captures carry the same buffer (the newest of each kind, process-wide).
std::shared_ptr<const ParsedSummary> cachedSummary(const QByteArray &body);
std::shared_ptr<const ParsedAnswer> cachedAnswer(const Capture::PrometheusAnswer &answer, bool rayNames, bool window);
// Whether the cache holds that body's parse already (a parse started elsewhere would gain nothing).
bool hasCachedSummary(const QByteArray &body);
bool hasCachedAnswer(const Capture::PrometheusAnswer &answer, bool rayNames, bool window);

// Work done beside the caller's: on a second thread where Qt has threads, so that the node summary
// and the Prometheus window answer, both new, are parsed at the same time (they are independent;
// their parses are the join's time). The browser's Qt has no threads: there, and whenever the
// second thread is busy with another join's work, the work runs in wait(), on the caller's thread,
// so the result is the same either way. wait() rethrows what the work threw.
// Drops `held` (an earlier join's bodies and table, a parse the cache let go: tens of MB and 10k
// strings, milliseconds to free) on the second thread once it has nothing else to do, so that
// neither the caller nor the side work of a join waits for it; in place where Qt has no threads.
void releaseBeside(std::shared_ptr<const void> held);

class SideTask
{
public:
    explicit SideTask(std::function<void()> work);
    ~SideTask(); // waits
    SideTask(const SideTask &) = delete;
    SideTask &operator=(const SideTask &) = delete;
    void wait();

private:
    struct State;
    std::unique_ptr<State> m_state; // stays put: the second thread holds its address
};

} // namespace slicescope::activityparse
