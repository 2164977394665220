// SPDX-License-Identifier: GPL-3.0-or-later
// joinActivity(): the capture's activity bodies (Ray's node summary, Prometheus answers) read and
// joined to the exact chip of each host (model/activity.h says from where and how).
#include "activity.h"

#include "snapshot.h"
#include "snapshotread_p.h"

#include <QHash>
#include <QMutex>
#include <QMutexLocker>

#include <algorithm>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace slicescope {

using namespace snapshotread;

namespace {

// A sample older than this (against the capture's time) is not taken: the source stopped.
constexpr qint64 kMaxSampleAgeMs = 5 * 60 * 1000;
// What a chip may claim: percentages 0..100 (a hair over from rounding is allowed), bytes below 1 PB.
constexpr double kMaxPercent = 100.5;
constexpr double kMaxBytes = 1e15;
// Series one answer may hold: 5 metrics of 8 chips on 10k hosts, with room.
constexpr int kMaxSeries = 1 << 19;

struct HostRef {
    int slice = -1;
    int host = -1; // -1: a Ray node SliceScope knows that is no slice host
};

// Maps keyed by the bytes of a body: looked up with the parser's string_views, no QString per
// series (the join's time follows the answers' size: 195k series for a 10k-node cluster).
struct ViewHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};
template<typename V>
using ViewMap = std::unordered_map<std::string, V, ViewHash, std::equal_to<>>;

// What an IP names: one alive Ray node (its host, or none when it is no slice host), or several.
struct IpEntry {
    HostRef ref;
    bool ambiguous = false;
};

// Ray node ids are hex; a body may spell them in capitals.
std::string lowered(std::string_view s)
{
    std::string out(s.substr(0, 128));
    for (char &ch : out)
        if (ch >= 'A' && ch <= 'Z') ch = char(ch - 'A' + 'a');
    return out;
}

// The bodies read here are big (a 10k-node cluster's summary is 14 MB, Prometheus's answers 30 MB)
// and their keys plain ASCII names: walking them with keys and label values as written, rather
// than unescaped into the parser's buffer, halves the join's time. A key with an escape in it
// matches none of the names looked for; a value with one is unescaped as usual.

// The key of a member as written (it ends at the first quote: a key with an escaped quote keeps
// its backslash, and so matches nothing).
inline std::string_view plainKey(const od::raw_json_string &key)
{
    const char *p = key.raw();
    size_t n = 0;
    while (p[n] != '"') // the parser checked that the string is closed
        ++n;
    return {p, n};
}

// Like json::forEachMember (bounded alike), with plainKey() keys.
template<typename F>
void forEachPlainMember(od::value v, F &&f)
{
    if (typeOf(v) != od::json_type::object) return;
    const char *at = v.raw_json_token().data();
    od::object obj = take(v.get_object());
    int seen = 0;
    for (auto member : obj) {
        od::field field = take(std::move(member));
        if (++seen > limits::kMaxMembersPerObject) {
            if (seen == limits::kMaxMembersPerObject + 1) CutLog::note(&CutLog::members, &CutLog::firstMembers, at);
            continue;
        }
        f(plainKey(field.key()), field.value());
    }
}

// A string value's text: as written when it holds no escape (the common case), else unescaped by
// the parser. False for anything but a string.
inline bool textOf(od::value &v, std::string_view &out)
{
    std::string_view t = v.raw_json_token();
    if (t.empty() || t.front() != '"') return false;
    while (t.size() > 1 && t.back() != '"') // the token runs on over the spaces after it
        t.remove_suffix(1);
    if (t.size() < 2) return false;
    t = t.substr(1, t.size() - 2);
    if (t.find('\\') == std::string_view::npos) {
        out = t;
        return true;
    }
    return v.get_string().get(out) == simdjson::SUCCESS;
}

// Prometheus writes "status" first: an answer that starts so is a success worth reading in full
// only when it can change something (see Joiner::run()); anything else is read and explained.
bool startsAsSuccess(const QByteArray &body)
{
    return body.startsWith(R"({"status":"success")");
}

enum class Metric
{
    None,
    DutyCycle,
    Tensorcore,
    HbmBandwidth,
    HbmUsed,
    HbmTotal
};

Metric metricOf(std::string_view name, bool rayPrefix)
{
    if (rayPrefix) {
        if (name.substr(0, 8) != "ray_tpu_")
            return Metric::None;
        name.remove_prefix(8);
    }
    if (name == "duty_cycle") return Metric::DutyCycle;
    if (name == "tensorcore_utilization") return Metric::Tensorcore;
    if (name == "memory_bandwidth_utilization") return Metric::HbmBandwidth;
    if (name == "memory_used") return Metric::HbmUsed;
    if (name == "memory_total") return Metric::HbmTotal;
    return Metric::None;
}

bool isRuntimeMetric(Metric m)
{
    return m == Metric::DutyCycle || m == Metric::HbmUsed || m == Metric::HbmTotal;
}

bool valueFits(Metric m, double v)
{
    if (!std::isfinite(v) || v < 0)
        return false;
    return m == Metric::HbmUsed || m == Metric::HbmTotal ? v < kMaxBytes : v <= kMaxPercent;
}

// Sets one metric on a chip unless a source before this one already said it.
void setMetric(ChipActivity &c, Metric m, double v)
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

// "4804690994094478883-3" -> 3 (the device plugin's accelerator_id; Ray takes what follows the dash).
int acceleratorIndex(std::string_view id)
{
    const size_t dash = id.rfind('-');
    if (dash == std::string_view::npos || dash + 1 >= id.size())
        return -1;
    int i = -1;
    const auto res = std::from_chars(id.data() + dash + 1, id.data() + id.size(), i);
    return res.ec == std::errc() && res.ptr == id.data() + id.size() && i >= 0 && i < limits::kMaxChipsPerHost * limits::kMaxHostsPerSlice ? i : -1;
}

int smallIndex(std::string_view text)
{
    int i = -1;
    const auto res = std::from_chars(text.data(), text.data() + text.size(), i);
    return res.ec == std::errc() && res.ptr == text.data() + text.size() && i >= 0 && i < limits::kMaxChipsPerHost ? i : -1;
}

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

// One entry of GET /nodes?view=summary, as the join needs it.
struct SummaryEntry {
    QString nodeId;       // lower case, as the snapshot's node ids are keyed
    std::string instance; // "address:metrics-port" of a live node, else empty
    double now = 0;
    bool sawTpus = false;
    int chipCount = 0;
    SummaryChip chips[limits::kMaxChipsPerHost];
};

struct ParsedSummary {
    QByteArray body; // held: its buffer names this parse
    bool ok = false;
    QStringList errors, warnings;
    std::vector<SummaryEntry> entries;
    ViewMap<int> byInstance; // "address:metrics-port" -> the live entry that has it (the last, as Ray lists them)
};

// GET /nodes?view=summary: {"result", "msg", "data": {"summary": [ {"now", "ip", "raylet": {"nodeId",
// "nodeManagerAddress", "metricsExportPort", ...}, "tpus": [...] }, ...]}}.
void readSummaryEntry(od::value entry, SummaryEntry &e)
{
    std::string_view address;
    qint64 port = -1;
    bool dead = false;
    forEachPlainMember(entry, [&](std::string_view k, od::value v) {
        if (k == "now") {
            toFiniteNumber(v, &e.now);
        } else if (k == "raylet") {
            forEachPlainMember(v, [&](std::string_view rk, od::value rv) {
                std::string_view text;
                if (rk == "metricsExportPort" || rk == "metrics_export_port") port = toInt(rv, -1);
                else if (!textOf(rv, text)) return;
                else if (rk == "nodeId" || rk == "node_id") e.nodeId = QString::fromLatin1(lowered(text));
                else if (rk == "nodeManagerAddress" || rk == "node_manager_address") address = text.substr(0, 128);
                else if (rk == "state") dead = text == "DEAD";
            });
        } else if (k == "tpus") {
            e.sawTpus = typeOf(v) == od::json_type::array;
            forEachElement(v, [&](od::value tv) {
                SummaryChip c;
                forEachPlainMember(tv, [&](std::string_view tk, od::value x) {
                    int slot = -1;
                    if (tk == "index") c.index = int(toInt(x, -1));
                    else if (tk == "dutyCycle" || tk == "duty_cycle") slot = 0;
                    else if (tk == "tensorcoreUtilization" || tk == "tensorcore_utilization") slot = 1;
                    else if (tk == "hbmUtilization" || tk == "hbm_utilization") slot = 2;
                    else if (tk == "memoryUsed" || tk == "memory_used") slot = 3;
                    else if (tk == "memoryTotal" || tk == "memory_total") slot = 4;
                    if (slot >= 0) c.has[slot] = toFiniteNumber(x, &c.values[slot]);
                });
                // A host has at most kMaxChipsPerHost chips: the rest could name none of them.
                if (c.index >= 0 && c.index < limits::kMaxChipsPerHost && e.chipCount < limits::kMaxChipsPerHost) e.chips[e.chipCount++] = c;
            });
        }
    });
    // A dead node keeps its address and port in the summary, and its successor often has both:
    // only a live node names an instance.
    if (!dead && !e.nodeId.isEmpty() && !address.empty() && port > 0 && port < 65536) {
        e.instance.assign(address);
        e.instance += ':';
        e.instance += std::to_string(port);
    }
}

std::shared_ptr<const ParsedSummary> parseSummary(const QByteArray &body)
{
    auto out = std::make_shared<ParsedSummary>();
    out->body = body;
    bool sawSummary = false;
    out->ok = parseBody(body, "ray.node_summary", out->errors, out->warnings, [&](od::value root) -> QString {
        if (typeOf(root) != od::json_type::object) return QStringLiteral("expected an object, got %1").arg(describeType(root));
        forEachPlainMember(root, [&](std::string_view k, od::value v) {
            if (k != "data") return;
            forEachPlainMember(v, [&](std::string_view k2, od::value list) {
                if (k2 != "summary") return;
                sawSummary = typeOf(list) == od::json_type::array;
                forEachElement(
                    list,
                    [&](od::value entry) {
                        out->entries.emplace_back();
                        readSummaryEntry(entry, out->entries.back());
                    },
                    limits::kMaxListItems);
            });
        });
        return sawSummary ? QString() : QStringLiteral("no data.summary list (is this GET /nodes?view=summary?)");
    });
    if (!out->ok) out->entries.clear();
    for (size_t i = 0; i < out->entries.size(); ++i)
        if (!out->entries[i].instance.empty()) out->byInstance.insert_or_assign(out->entries[i].instance, int(i));
    return out;
}

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

// Label values, each kept once per answer (10k hosts' addresses over 200k series).
class Interner
{
public:
    explicit Interner(std::deque<std::string> &strings)
        : m_strings(strings)
    {
    }
    quint32 operator()(std::string_view text)
    {
        if (text.empty()) return 0;
        if (const auto it = m_index.find(text); it != m_index.end()) return it->second;
        m_strings.emplace_back(text);
        const auto id = quint32(m_strings.size() - 1);
        m_index.emplace(std::string_view(m_strings.back()), id);
        return id;
    }

private:
    std::deque<std::string> &m_strings;
    std::unordered_map<std::string_view, quint32> m_index;
};

ParsedSeries readSeries(od::value item, bool rayNames, bool window, Interner &intern)
{
    ParsedSeries x;
    forEachPlainMember(item, [&](std::string_view k, od::value v) {
        if (k == "metric") {
            forEachPlainMember(v, [&](std::string_view lk, od::value lv) {
                std::string_view text;
                if (!textOf(lv, text)) return;
                if (lk == "__name__") x.metric = metricOf(text, rayNames);
                else if (lk == "ip") x.ip = intern(text.substr(0, 64));
                else if (lk == "instance") x.instance = intern(text.substr(0, 128));
                else if (lk == "pod") x.pod = intern(text.substr(0, 253));
                else if (lk == "namespace") x.ns = intern(text.substr(0, 63));
                else if (lk == "TpuIndex" && rayNames) x.index = smallIndex(text);
                else if (lk == "accelerator_id" && !rayNames) x.index = acceleratorIndex(text);
            });
        } else if (k == "value") {
            int i = 0;
            forEachElement(v, [&](od::value e) {
                double d = 0;
                if (i == 0 && toFiniteNumber(e, &d)) x.atMs = doubleToInt(d * 1000, 0); // saturated: a timestamp of 1e300 is no UB
                if (i == 1) x.valueOk = toFiniteNumber(e, &x.value);
                ++i;
            });
        }
    });
    if (window) x.metric = Metric::DutyCycle; // max_over_time drops the name
    return x;
}

// {"status": "success"|"error", "errorType", "error", "data": {"resultType": "vector", "result":
// [{"metric": {...}, "value": [ts, "v"]}]}}
std::shared_ptr<const ParsedAnswer> parseAnswer(const Capture::PrometheusAnswer &answer, bool rayNames, bool window)
{
    auto out = std::make_shared<ParsedAnswer>();
    out->query = answer.query;
    out->body = answer.body;
    out->rayNames = rayNames;
    out->window = window;
    Interner intern(out->strings);
    out->ok = parseBody(answer.body, "prometheus", out->errors, out->warnings, [&](od::value root) -> QString {
        if (typeOf(root) != od::json_type::object) return QStringLiteral("expected an object, got %1").arg(describeType(root));
        forEachPlainMember(root, [&](std::string_view k, od::value v) {
            if (k == "status") out->status = toString(v);
            else if (k == "errorType") out->errorType = toString(v);
            else if (k == "error") out->error = toString(v).left(200);
            else if (k == "data")
                forEachPlainMember(v, [&](std::string_view dk, od::value dv) {
                    if (dk == "resultType") out->resultType = toString(dv);
                    else if (dk == "result")
                        forEachElement(dv, [&](od::value item) { out->series.push_back(readSeries(item, rayNames, window, intern)); }, kMaxSeries);
                });
        });
        return {};
    });
    if (!out->ok) out->series.clear(); // a body cut in the middle leaves no half of its numbers behind
    return out;
}

// The newest parse of the node summary and of each query's answer (a handful of queries).
class ParseCache
{
public:
    std::shared_ptr<const ParsedSummary> summary(const QByteArray &body)
    {
        {
            QMutexLocker lock(&m_mutex);
            if (m_summary && sameBuffer(m_summary->body, body)) return m_summary;
        }
        auto parsed = parseSummary(body);
        QMutexLocker lock(&m_mutex);
        m_summary = parsed;
        return parsed;
    }

    std::shared_ptr<const ParsedAnswer> answer(const Capture::PrometheusAnswer &a, bool rayNames, bool window)
    {
        {
            QMutexLocker lock(&m_mutex);
            for (const auto &p : m_answers)
                if (p->query == a.query && p->rayNames == rayNames && p->window == window && sameBuffer(p->body, a.body)) return p;
        }
        auto parsed = parseAnswer(a, rayNames, window);
        QMutexLocker lock(&m_mutex);
        m_answers.erase(std::remove_if(m_answers.begin(), m_answers.end(), [&](const auto &p) { return p->query == a.query; }), m_answers.end());
        if (m_answers.size() >= kMaxAnswers) m_answers.erase(m_answers.begin());
        m_answers.push_back(parsed);
        return parsed;
    }

private:
    static constexpr size_t kMaxAnswers = 8;
    // Equal bytes are not enough to be cheap: only the same buffer is known equal for free.
    static bool sameBuffer(const QByteArray &a, const QByteArray &b) { return !a.isEmpty() && a.size() == b.size() && a.constData() == b.constData(); }

    QMutex m_mutex; // buildSnapshot() may run on any thread; a QMutex also builds for the browser's single-threaded Qt
    std::shared_ptr<const ParsedSummary> m_summary;
    std::vector<std::shared_ptr<const ParsedAnswer>> m_answers;
};

ParseCache &parseCache()
{
    static ParseCache cache;
    return cache;
}

class Joiner
{
public:
    // Reads `s` through a const reference only (a snapshot that shares its lists with another
    // must not copy them), and sets its activity and warnings at the end.
    Joiner(ClusterSnapshot &s, const Capture &c)
        : m_s(s)
        , m_out(s)
        , m_c(c)
        , m_builder(s)
        , m_nowMs(c.capturedAt.isValid() ? c.capturedAt.toMSecsSinceEpoch() : 0)
    {
        // The ids are the snapshot's own strings (toLower() shares one that is lower case already).
        const ClusterSnapshot &cs = s;
        m_byNode.reserve(cs.rayNodes.size());
        for (int si = 0; si < cs.slices.size(); ++si) {
            const Slice &slice = cs.slices[si];
            for (int hi = 0; hi < slice.hosts.size(); ++hi)
                if (const int n = slice.hosts[hi].rayNode; n >= 0) m_byNode.insert(cs.rayNodes[n].id.toLower(), HostRef{si, hi});
        }
    }

    // A sample was refused as stale: the join's result then depends on the time beyond its samples.
    bool sawStale() const { return m_sawStale; }
    // The oldest sample taken (ms since the epoch, 0: none): the first to turn stale.
    qint64 oldestTakenMs() const { return m_oldestTakenMs; }

    void run()
    {
        readNodeSummary();
        // Ray's node summary is first-hand and wins chip by chip; Prometheus's copies of the same
        // numbers fill only the chips it left unknown. When it left none, a successful current
        // answer can change nothing and is not read (the window answer is: only Prometheus has it).
        const bool summaryCoversAll = !m_c.rayNodeSummary.isEmpty() && everyChipReports();
        for (const Capture::PrometheusAnswer &a : m_c.prometheus) {
            bool covered = false;
            const bool rayTpu = a.query == QLatin1String(promql::kRayTpu) || a.query == QLatin1String(promql::kRayTpuAllLabels);
            const bool plugin = !rayTpu && (a.query == QLatin1String(promql::kDevicePlugin) || a.query == QLatin1String(promql::kDevicePluginAllLabels));
            if ((rayTpu || plugin) && summaryCoversAll && startsAsSuccess(a.body)) {
                m_sources << QStringLiteral("%1: not read: Ray's node summary reports every chip").arg(rayTpu ? QStringLiteral("Prometheus ray_tpu_*") : QStringLiteral("Prometheus device-plugin series"));
                continue;
            }
            if (rayTpu)
                readPrometheus(a, ActivitySource::RayMetrics);
            else if (plugin)
                readPrometheus(a, ActivitySource::DevicePlugin);
            else if (const int window = promql::windowOfQuery(a.query, &covered); window > 0)
                readPrometheus(a, ActivitySource::RayMetrics, window, covered);
        }
        applyDevicePlugin();
        if (!m_c.rayNodeSummaryError.isEmpty()) m_problems << m_c.rayNodeSummaryError;
        if (!m_c.prometheusError.isEmpty()) m_problems << m_c.prometheusError;
        explainUnknownHosts();
        ActivityTable &t = m_builder.table();
        t.sources = m_sources;
        t.problems = m_problems;
        m_out.activity = m_builder.finish();
        for (const QString &p : std::as_const(m_problems))
            m_out.warnings << QStringLiteral("activity: %1").arg(p);
    }

private:
    bool takesActivity(const HostRef &ref) const
    {
        const Host &h = m_s.slices[ref.slice].hosts[ref.host];
        return h.state == HostState::Alive && !h.chips.isEmpty();
    }

    HostRef hostOfNode(const QString &nodeId) const { return m_byNode.value(nodeId); }

    // Built when an answer first needs them (most captures need neither).
    const ViewMap<HostRef> &byPod()
    {
        if (!m_byPodBuilt) {
            m_byPodBuilt = true;
            for (int si = 0; si < m_s.slices.size(); ++si)
                for (int hi = 0; hi < m_s.slices[si].hosts.size(); ++hi)
                    if (const int p = m_s.slices[si].hosts[hi].pod; p >= 0) m_byPod.insert_or_assign(m_s.pods[p].qualifiedName().toStdString(), HostRef{si, hi});
        }
        return m_byPod;
    }
    // Several Ray nodes may share an IP (docs/facts.md 1.1): an IP names a node only when one
    // alive node has it.
    const ViewMap<IpEntry> &byIp()
    {
        if (!m_byIpBuilt) {
            m_byIpBuilt = true;
            for (const RayNode &n : m_s.rayNodes) {
                if (!n.alive || n.ip.isEmpty()) continue;
                const auto [it, inserted] = m_byIp.try_emplace(n.ip.toStdString(), IpEntry{hostOfNode(n.id.toLower()), false});
                if (!inserted) it->second.ambiguous = true;
            }
        }
        return m_byIp;
    }
    // The host of the live node that exports metrics at `instance`, per the node summary; null
    // when the summary does not name it (or there is none).
    const HostRef *byInstance(std::string_view instance) const
    {
        if (!m_summary) return nullptr;
        const auto it = m_summary->byInstance.find(instance);
        return it == m_summary->byInstance.end() ? nullptr : &m_entryHost[size_t(it->second)];
    }

    // Every chip of every host that takes activity has its numbers (and there is such a chip).
    bool everyChipReports()
    {
        int chips = 0;
        for (int si = 0; si < m_s.slices.size(); ++si)
            for (int hi = 0; hi < m_s.slices[si].hosts.size(); ++hi) {
                if (!takesActivity({si, hi})) continue;
                for (int c = 0; c < m_s.slices[si].hosts[hi].chips.size(); ++c, ++chips)
                    if (const ChipActivity *a = m_builder.chip(si, hi, c); !a || !a->reports()) return false;
            }
        return chips > 0;
    }

    ChipActivity *chipOf(const HostRef &ref, int index) { return m_builder.chip(ref.slice, ref.host, index); }

    bool fresh(qint64 atMs) const { return atMs <= 0 || m_nowMs <= 0 || m_nowMs - atMs <= kMaxSampleAgeMs; }

    void stale(const HostRef &ref, qint64 atMs)
    {
        m_sawStale = true;
        m_builder.setUnknownReason(ref.slice, ref.host, QStringLiteral("its newest TPU sample is %1 min old: the source stopped reporting").arg((m_nowMs - atMs) / 60000));
    }

    void readNodeSummary()
    {
        if (m_c.rayNodeSummary.isEmpty()) return;
        const std::shared_ptr<const ParsedSummary> parsed = parseCache().summary(m_c.rayNodeSummary);
        m_problems += parsed->errors;
        m_problems += parsed->warnings;
        if (!parsed->ok) return;
        m_summary = parsed;
        m_entryHost.resize(parsed->entries.size());
        SummaryCounts counts;
        for (size_t i = 0; i < parsed->entries.size(); ++i)
            m_entryHost[i] = applySummaryEntry(parsed->entries[i], counts);
        m_sources << QStringLiteral("Ray node summary: %1 of %2 TPU host%3 report chip metrics").arg(counts.reportingNodes).arg(counts.tpuNodes).arg(counts.tpuNodes == 1 ? QString() : QStringLiteral("s"));
        if (counts.unknownNodes)
            m_problems << QStringLiteral("Ray node summary: %1 entr%2 name no Ray node of the node list").arg(counts.unknownNodes).arg(counts.unknownNodes == 1 ? QStringLiteral("y") : QStringLiteral("ies"));
        if (counts.outOfRange)
            m_problems << QStringLiteral("Ray node summary: %1 chip value%2 out of range not taken").arg(counts.outOfRange).arg(counts.outOfRange == 1 ? QString() : QStringLiteral("s"));
    }

    struct SummaryCounts {
        int tpuNodes = 0, reportingNodes = 0, unknownNodes = 0, outOfRange = 0;
    };

    // Sets the chips of the entry's host; returns that host (none when it is no slice host).
    HostRef applySummaryEntry(const SummaryEntry &e, SummaryCounts &counts)
    {
        const HostRef ref = hostOfNode(e.nodeId);
        if (ref.slice < 0) {
            if (!e.nodeId.isEmpty() && e.chipCount > 0) ++counts.unknownNodes;
            return ref;
        }
        ++counts.tpuNodes;
        if (!takesActivity(ref)) return ref;
        if (!e.sawTpus || e.chipCount == 0) {
            m_builder.setUnknownReason(ref.slice, ref.host,
                                       QStringLiteral("Ray reports no TPU metrics for this node: its reporter agent has no TPU_DEVICE_PLUGIN_ADDR, "
                                                      "or could not reach the device plugin when it first asked (it then never asks again "
                                                      "until the node restarts)"));
            return ref;
        }
        const qint64 atMs = e.now > 0 ? doubleToInt(e.now * 1000, 0) : 0;
        if (!fresh(atMs)) {
            stale(ref, atMs);
            return ref;
        }
        ++counts.reportingNodes;
        took(atMs);
        static constexpr Metric order[5] = {Metric::DutyCycle, Metric::Tensorcore, Metric::HbmBandwidth, Metric::HbmUsed, Metric::HbmTotal};
        for (int i = 0; i < e.chipCount; ++i) {
            const SummaryChip &sc = e.chips[i];
            ChipActivity *c = chipOf(ref, sc.index);
            if (!c || c->reports()) continue;
            // Ray writes 0 for what the plugin did not report: all runtime numbers 0 with no HBM
            // total means no runtime metrics (some TPU types have none), not an idle chip.
            const bool runtime = !(sc.values[0] == 0 && sc.values[3] == 0 && sc.values[4] == 0);
            for (int m = 0; m < 5; ++m) {
                if (!sc.has[m] || (!runtime && isRuntimeMetric(order[m]))) continue;
                if (!valueFits(order[m], sc.values[m])) {
                    ++counts.outOfRange;
                    continue;
                }
                setMetric(*c, order[m], sc.values[m]);
            }
            c->source = ActivitySource::RayNodeSummary;
            c->sampledAtMs = atMs;
        }
        return ref;
    }

    // A number joined to its chip, applied once its whole answer proved sound.
    struct Taken {
        ChipActivity *chip = nullptr;
        Metric metric = Metric::None;
        double value = 0;
        qint64 atMs = 0;
    };

    // What one answer's series came to, for the sources and problems lines.
    struct AnswerCounts {
        int series = 0, joined = 0, unmatched = 0, ambiguous = 0, bad = 0, stale = 0;
        QString firstUnmatched, firstAmbiguous;
    };

    void readPrometheus(const Capture::PrometheusAnswer &answer, ActivitySource source, int window = 0, bool covered = false)
    {
        const bool rayNames = source == ActivitySource::RayMetrics;
        const QString what = window     ? QStringLiteral("Prometheus (%1 s window)").arg(window)
                             : rayNames ? QStringLiteral("Prometheus ray_tpu_*")
                                        : QStringLiteral("Prometheus device-plugin series");
        const std::shared_ptr<const ParsedAnswer> parsed = parseCache().answer(answer, rayNames, window > 0);
        for (const QString &e : parsed->errors)
            m_problems << QStringLiteral("%1: %2").arg(what, e);
        if (!parsed->ok) return;
        if (parsed->status != QLatin1String("success")) {
            m_problems << QStringLiteral("%1: the server answered %2%3")
                              .arg(what, parsed->status.isEmpty() ? QStringLiteral("without a status") : parsed->status,
                                   parsed->error.isEmpty() ? QString() : QStringLiteral(" (%1: %2)").arg(parsed->errorType, parsed->error.left(200)));
            return;
        }
        if (parsed->resultType != QLatin1String("vector")) {
            m_problems << QStringLiteral("%1: expected an instant vector, got \"%2\"").arg(what, parsed->resultType.left(40));
            return;
        }
        AnswerCounts n;
        n.series = int(parsed->series.size());
        if (n.series == 0 && !window) {
            // The device plugin's own series are optional (most setups have none): only Ray's say something.
            if (rayNames)
                m_problems << QStringLiteral("%1: the answer holds no series: is Prometheus scraping the Ray nodes' metrics export ports "
                                             "(with Ray's metrics collection on), and does the device plugin feed Ray?")
                                  .arg(what);
            return;
        }
        // Each distinct label value is looked up once (a host's address names its 20 series).
        m_byInstanceValue.assign(parsed->strings.size(), Resolution{});
        m_byIpValue.assign(parsed->strings.size(), Resolution{});
        for (const ParsedSeries &x : parsed->series)
            joinSeries(*parsed, x, source, window, covered, n);
        m_sources << QStringLiteral("%1: %2 of %3 series joined to chips").arg(what).arg(n.joined).arg(n.series);
        if (n.unmatched) m_problems << QStringLiteral("%1: %2 series name no host SliceScope knows (the first: %3)").arg(what).arg(n.unmatched).arg(n.firstUnmatched.left(120));
        if (n.ambiguous)
            m_problems << QStringLiteral("%1: %2 series from %3 cannot be told apart: several Ray nodes share that IP and no node summary gives their metrics ports")
                              .arg(what)
                              .arg(n.ambiguous)
                              .arg(n.firstAmbiguous.left(64));
        if (n.bad) m_problems << QStringLiteral("%1: %2 series without a usable chip index or value not taken").arg(what).arg(n.bad);
        if (n.stale) m_problems << QStringLiteral("%1: %2 series older than 5 min not taken").arg(what).arg(n.stale);
    }

    // What a label value of the answer names, found once per value.
    struct Resolution {
        enum State : quint8
        {
            NotYet,
            Host,      // a slice host
            NotHost,   // a Ray node that is no slice host
            Missing,   // the map has no such key
            Ambiguous, // an IP several alive nodes share
        } state = NotYet;
        HostRef ref;
    };

    // The host a Ray series names: its instance through the summary's metrics addresses, else its
    // IP when one alive node has it.
    Resolution resolveRay(const ParsedAnswer &a, const ParsedSeries &x)
    {
        if (x.instance) {
            Resolution &r = m_byInstanceValue[x.instance];
            if (r.state == Resolution::NotYet) {
                if (const HostRef *host = byInstance(a.strings[x.instance]); !host) r.state = Resolution::Missing;
                else {
                    r.ref = *host;
                    r.state = r.ref.slice >= 0 ? Resolution::Host : Resolution::NotHost;
                }
            }
            if (r.state != Resolution::Missing) return r;
        }
        if (x.ip) {
            Resolution &r = m_byIpValue[x.ip];
            if (r.state == Resolution::NotYet) {
                const ViewMap<IpEntry> &ips = byIp();
                const auto it = ips.find(std::string_view(a.strings[x.ip]));
                if (it == ips.end()) r.state = Resolution::Missing;
                else if (it->second.ambiguous) r.state = Resolution::Ambiguous;
                else {
                    r.ref = it->second.ref;
                    r.state = r.ref.slice >= 0 ? Resolution::Host : Resolution::NotHost;
                }
            }
            if (r.state != Resolution::Missing) return r;
        }
        return Resolution{Resolution::Missing, {}};
    }

    // Finds a series' chip (or, for the device plugin, its host: its runtime indices are mapped
    // once every series is in) and sets it; counts what could not be joined.
    void joinSeries(const ParsedAnswer &a, const ParsedSeries &x, ActivitySource source, int window, bool covered, AnswerCounts &n)
    {
        if (x.metric == Metric::None || x.index < 0 || !x.valueOk || !valueFits(x.metric, x.value)) {
            ++n.bad;
            return;
        }
        HostRef ref;
        if (source == ActivitySource::DevicePlugin) {
            m_key.assign(a.strings[x.ns]);
            m_key += '/';
            m_key += a.strings[x.pod];
            const ViewMap<HostRef> &pods = byPod();
            const auto it = !x.pod ? pods.end() : pods.find(std::string_view(m_key));
            if (it == pods.end()) {
                if (n.firstUnmatched.isEmpty()) n.firstUnmatched = !x.pod ? QStringLiteral("a series without a pod label") : qstr(m_key);
                ++n.unmatched;
                return;
            }
            ref = it->second;
        } else {
            const Resolution r = resolveRay(a, x);
            if (r.state == Resolution::Ambiguous) {
                if (n.firstAmbiguous.isEmpty()) n.firstAmbiguous = qstr(a.strings[x.ip]);
                ++n.ambiguous;
                return;
            }
            if (r.state != Resolution::Host) {
                if (n.firstUnmatched.isEmpty()) n.firstUnmatched = qstr(x.instance ? a.strings[x.instance] : a.strings[x.ip]);
                ++n.unmatched;
                return;
            }
            ref = r.ref;
        }
        if (!takesActivity(ref)) return;
        if (!fresh(x.atMs)) {
            ++n.stale;
            m_sawStale = true;
            return;
        }
        took(x.atMs);
        if (source == ActivitySource::DevicePlugin) {
            m_plugin.push_back({ref, x.metric, x.index, x.value, x.atMs});
            ++n.joined;
            return;
        }
        ChipActivity *c = chipOf(ref, x.index);
        if (!c) {
            ++n.bad;
            return;
        }
        ++n.joined;
        if (window) {
            c->windowMaxDutyCycle = float(std::min(x.value, 100.0));
            c->windowSeconds = window;
            c->windowCovered = covered;
            return;
        }
        if (c->source != ActivitySource::None && c->source != source) return; // an earlier source said it
        setMetric(*c, x.metric, x.value);
        c->source = source;
        c->sampledAtMs = std::max(c->sampledAtMs, x.atMs);
    }

    // The device plugin's runtime metrics are indexed slice-wide: mapped onto the host's chips in
    // index order, as Ray's reporter agent does; its host metrics are already local.
    void applyDevicePlugin()
    {
        QHash<quint64, std::vector<int>> runtimeIndices;
        auto key = [](const HostRef &r) {
            return (quint64(quint32(r.slice)) << 32) | quint32(r.host);
        };
        for (const PluginSample &x : m_plugin)
            if (isRuntimeMetric(x.metric)) runtimeIndices[key(x.ref)].push_back(x.index);
        for (auto &v : runtimeIndices) {
            std::sort(v.begin(), v.end());
            v.erase(std::unique(v.begin(), v.end()), v.end());
        }
        for (const PluginSample &x : m_plugin) {
            int local = x.index;
            if (isRuntimeMetric(x.metric)) {
                const std::vector<int> &v = runtimeIndices[key(x.ref)];
                local = int(std::lower_bound(v.begin(), v.end(), x.index) - v.begin());
            }
            ChipActivity *c = chipOf(x.ref, local);
            if (!c || (c->source != ActivitySource::None && c->source != ActivitySource::DevicePlugin)) continue;
            setMetric(*c, x.metric, x.value);
            c->source = ActivitySource::DevicePlugin;
            c->sampledAtMs = std::max(c->sampledAtMs, x.atMs);
        }
    }

    void explainUnknownHosts()
    {
        const bool anySource = !m_c.rayNodeSummary.isEmpty() || !m_c.prometheus.isEmpty();
        for (int si = 0; si < m_s.slices.size(); ++si) {
            const Slice &slice = m_s.slices[si];
            for (int hi = 0; hi < slice.hosts.size(); ++hi) {
                const Host &h = slice.hosts[hi];
                if (h.chips.isEmpty() || !m_builder.table().unknownReason(si, hi).isEmpty()) continue;
                if (h.state != HostState::Alive) {
                    m_builder.setUnknownReason(si, hi, QStringLiteral("the host is %1: no activity is taken from it").arg(toText(h.state)));
                    continue;
                }
                int reporting = 0;
                for (int c = 0; c < h.chips.size(); ++c)
                    if (const ChipActivity *a = m_builder.chip(si, hi, c); a && a->reports()) ++reporting;
                if (reporting == 0)
                    m_builder.setUnknownReason(si, hi, anySource ? QStringLiteral("no source reports this host's chips") : QStringLiteral("no activity source answered"));
                else if (reporting < h.chips.size())
                    m_builder.setUnknownReason(si, hi, QStringLiteral("%1 of its %2 chips report nothing").arg(h.chips.size() - reporting).arg(h.chips.size()));
            }
        }
    }

    // A device-plugin number joined to its host, waiting for the host's runtime indices.
    struct PluginSample {
        HostRef ref;
        Metric metric = Metric::None;
        int index = -1;
        double value = 0;
        qint64 atMs = 0;
    };

    const ClusterSnapshot &m_s;
    ClusterSnapshot &m_out;
    const Capture &m_c;
    ActivityTableBuilder m_builder;
    qint64 m_nowMs = 0;
    QHash<QString, HostRef> m_byNode; // Ray node id (lower case) -> host
    ViewMap<HostRef> m_byPod;         // "ns/pod" -> host (byPod())
    ViewMap<IpEntry> m_byIp;          // IP -> the one alive node's host, or ambiguous (byIp())
    bool m_byPodBuilt = false, m_byIpBuilt = false;
    bool m_sawStale = false;
    qint64 m_oldestTakenMs = 0;
    void took(qint64 atMs)
    {
        if (atMs > 0 && (!m_oldestTakenMs || atMs < m_oldestTakenMs)) m_oldestTakenMs = atMs;
    }
    std::shared_ptr<const ParsedSummary> m_summary; // the node summary read, when one was
    std::vector<HostRef> m_entryHost;               // per summary entry, its host (none: no slice host)
    std::vector<PluginSample> m_plugin;
    std::vector<Resolution> m_byInstanceValue, m_byIpValue; // per label value of the answer being joined
    std::string m_key; // scratch for "ns/pod"
    QStringList m_sources, m_problems;
};

} // namespace

namespace {

// What the join reads of a snapshot, hashed: the slices' hosts (state, Ray node, pod, chips and
// who holds each), the placement groups' ids and the Ray nodes' addresses.
size_t shapeOf(const ClusterSnapshot &s)
{
    size_t h = qHashMulti(0, s.slices.size(), s.placementGroups.size(), s.rayNodes.size(), s.pods.size());
    for (const Slice &slice : s.slices) {
        h = qHashMulti(h, slice.name, slice.workerGroup, slice.hosts.size());
        for (const Host &host : slice.hosts) {
            h = qHashMulti(h, int(host.state), host.rayNode, host.pod, host.chips.size());
            for (const ChipUse &chip : host.chips)
                h = qHashMulti(h, chip.placementGroup);
        }
    }
    for (const PlacementGroup &g : s.placementGroups)
        h = qHashMulti(h, g.id);
    for (const RayNode &n : s.rayNodes)
        h = qHashMulti(h, n.id, n.alive, n.ip);
    for (const Pod &p : s.pods)
        h = qHashMulti(h, p.ns, p.name);
    return h;
}

// The last join, reused while a capture carries the same bodies (the same buffers) and errors, the
// snapshot has the same shape, and none of the samples taken has aged past the limit since: the
// common case of a live window, whose 2 s captures share the node summary and Prometheus's
// answers for 10 s. A join that refused a stale sample is not kept (its reasons name its age).
class JoinMemo
{
public:
    std::shared_ptr<const ActivityTable> find(const Capture &c, size_t shape, qint64 nowMs)
    {
        QMutexLocker lock(&m_mutex);
        if (!m_table || nowMs <= 0 || nowMs > m_validUntilMs || shape != m_shape || !sameBodies(c)) return {};
        return m_table;
    }
    // `oldestSampleMs`: the oldest sample the table took (0: none), which turns stale first.
    void store(const Capture &c, size_t shape, qint64 nowMs, std::shared_ptr<const ActivityTable> table, bool sawStale, qint64 oldestSampleMs)
    {
        QMutexLocker lock(&m_mutex);
        m_table.reset();
        if (!table || sawStale || nowMs <= 0) return;
        m_validUntilMs = oldestSampleMs > 0 ? oldestSampleMs + kMaxSampleAgeMs : std::numeric_limits<qint64>::max();
        m_shape = shape;
        m_capture = c; // holds the bodies: "the same buffer" cannot be a freed one come back
        m_table = std::move(table);
    }

private:
    static bool same(const QByteArray &a, const QByteArray &b) { return a.size() == b.size() && a.constData() == b.constData(); }
    bool sameBodies(const Capture &c) const
    {
        if (!same(c.rayNodeSummary, m_capture.rayNodeSummary) || c.rayNodeSummaryError != m_capture.rayNodeSummaryError
            || c.prometheusError != m_capture.prometheusError || c.prometheus.size() != m_capture.prometheus.size())
            return false;
        for (qsizetype i = 0; i < c.prometheus.size(); ++i)
            if (c.prometheus[i].query != m_capture.prometheus[i].query || !same(c.prometheus[i].body, m_capture.prometheus[i].body)) return false;
        return true;
    }

    QMutex m_mutex;
    Capture m_capture;
    size_t m_shape = 0;
    qint64 m_validUntilMs = 0;
    std::shared_ptr<const ActivityTable> m_table;
};

JoinMemo &joinMemo()
{
    static JoinMemo memo;
    return memo;
}

} // namespace

void joinActivity(ClusterSnapshot &snapshot, const Capture &capture)
{
    if (!capture.hasActivity()) return;
    const size_t shape = shapeOf(snapshot);
    const qint64 nowMs = capture.capturedAt.isValid() ? capture.capturedAt.toMSecsSinceEpoch() : 0;
    if (std::shared_ptr<const ActivityTable> kept = joinMemo().find(capture, shape, nowMs)) {
        snapshot.activity = kept;
        for (const QString &p : kept->problems)
            snapshot.warnings << QStringLiteral("activity: %1").arg(p);
        return;
    }
    Joiner joiner(snapshot, capture);
    joiner.run();
    joinMemo().store(capture, shape, nowMs, snapshot.activity, joiner.sawStale(), joiner.oldestTakenMs());
}

} // namespace slicescope
