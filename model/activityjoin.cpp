// SPDX-License-Identifier: GPL-3.0-or-later
// joinActivity(): the capture's activity bodies (Ray's node summary, Prometheus answers) read and
// joined to the exact chip of each host (model/activity.h says from where and how).
#include "activity.h"

#include "snapshot.h"
#include "snapshotread_p.h"

#include <QHash>

#include <algorithm>
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
    int host = -1;
};

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

class Joiner
{
public:
    Joiner(ClusterSnapshot &s, const Capture &c)
        : m_s(s)
        , m_c(c)
        , m_builder(s)
        , m_nowMs(c.capturedAt.isValid() ? c.capturedAt.toMSecsSinceEpoch() : 0)
    {
        for (int si = 0; si < s.slices.size(); ++si) {
            const Slice &slice = s.slices[si];
            for (int hi = 0; hi < slice.hosts.size(); ++hi) {
                const Host &h = slice.hosts[hi];
                if (h.rayNode >= 0) m_byNode.insert(s.rayNodes[h.rayNode].id.toLower(), {si, hi});
                if (h.pod >= 0) m_byPod.insert(s.pods[h.pod].qualifiedName(), {si, hi});
            }
        }
        // Several Ray nodes may share an IP (docs/facts.md 1.1): an IP names a node only when one
        // alive node has it.
        for (const RayNode &n : std::as_const(s.rayNodes)) {
            if (!n.alive || n.ip.isEmpty()) continue;
            auto it = m_nodeByIp.find(n.ip);
            if (it == m_nodeByIp.end())
                m_nodeByIp.insert(n.ip, n.id.toLower());
            else
                it->clear(); // ambiguous
        }
    }

    void run()
    {
        readNodeSummary();
        for (const Capture::PrometheusAnswer &a : m_c.prometheus) {
            if (a.query == QLatin1String(promql::kRayTpu))
                readPrometheus(a, ActivitySource::RayMetrics);
            else if (a.query == QLatin1String(promql::kDevicePlugin))
                readPrometheus(a, ActivitySource::DevicePlugin);
            else if (const int window = promql::windowOfQuery(a.query); window > 0)
                readPrometheus(a, ActivitySource::RayMetrics, window);
        }
        applyDevicePlugin();
        if (!m_c.rayNodeSummaryError.isEmpty()) m_problems << m_c.rayNodeSummaryError;
        if (!m_c.prometheusError.isEmpty()) m_problems << m_c.prometheusError;
        explainUnknownHosts();
        ActivityTable &t = m_builder.table();
        t.sources = m_sources;
        t.problems = m_problems;
        m_s.activity = m_builder.finish();
        for (const QString &p : std::as_const(m_problems))
            m_s.warnings << QStringLiteral("activity: %1").arg(p);
    }

private:
    bool takesActivity(const HostRef &ref) const
    {
        const Host &h = m_s.slices[ref.slice].hosts[ref.host];
        return h.state == HostState::Alive && !h.chips.isEmpty();
    }

    ChipActivity *chipOf(const HostRef &ref, int index) { return m_builder.chip(ref.slice, ref.host, index); }

    bool fresh(qint64 atMs) const { return atMs <= 0 || m_nowMs <= 0 || m_nowMs - atMs <= kMaxSampleAgeMs; }

    void stale(const HostRef &ref, qint64 atMs)
    {
        m_builder.setUnknownReason(ref.slice, ref.host, QStringLiteral("its newest TPU sample is %1 min old: the source stopped reporting").arg((m_nowMs - atMs) / 60000));
    }

    // GET /nodes?view=summary: {"result", "msg", "data": {"summary": [ {"now", "ip", "raylet": {"nodeId",
    // "nodeManagerAddress", "metricsExportPort", ...}, "tpus": [...] }, ...]}}.
    void readNodeSummary()
    {
        if (m_c.rayNodeSummary.isEmpty()) return;
        QStringList errors, warnings;
        int entries = 0, tpuNodes = 0, reportingNodes = 0, unknownNodes = 0, outOfRange = 0;
        const bool ok = parseBody(m_c.rayNodeSummary, "ray.node_summary", errors, warnings, [&](od::value root) -> QString {
            if (typeOf(root) != od::json_type::object) return QStringLiteral("expected an object, got %1").arg(describeType(root));
            bool sawSummary = false;
            forEachMember(root, [&](std::string_view k, od::value v) {
                if (k != "data") return;
                forEachMember(v, [&](std::string_view k2, od::value list) {
                    if (k2 != "summary") return;
                    sawSummary = typeOf(list) == od::json_type::array;
                    forEachElement(
                        list,
                        [&](od::value entry) {
                            ++entries;
                            readSummaryEntry(entry, tpuNodes, reportingNodes, unknownNodes, outOfRange);
                        },
                        limits::kMaxListItems);
                });
            });
            return sawSummary ? QString() : QStringLiteral("no data.summary list (is this GET /nodes?view=summary?)");
        });
        m_problems += errors;
        m_problems += warnings;
        if (!ok) return;
        m_sources << QStringLiteral("Ray node summary: %1 of %2 TPU host%3 report chip metrics").arg(reportingNodes).arg(tpuNodes).arg(tpuNodes == 1 ? QString() : QStringLiteral("s"));
        if (unknownNodes)
            m_problems << QStringLiteral("Ray node summary: %1 entr%2 name no Ray node of the node list").arg(unknownNodes).arg(unknownNodes == 1 ? QStringLiteral("y") : QStringLiteral("ies"));
        if (outOfRange) m_problems << QStringLiteral("Ray node summary: %1 chip value%2 out of range not taken").arg(outOfRange).arg(outOfRange == 1 ? QString() : QStringLiteral("s"));
    }

    struct SummaryChip {
        int index = -1;
        double values[5] = {0, 0, 0, 0, 0}; // duty, tensorcore, hbm bw, used, total
        bool has[5] = {false, false, false, false, false};
    };

    void readSummaryEntry(od::value entry, int &tpuNodes, int &reportingNodes, int &unknownNodes, int &outOfRange)
    {
        QString nodeId, address;
        qint64 port = -1;
        double now = 0;
        bool dead = false;
        std::vector<SummaryChip> chips;
        bool sawTpus = false;
        forEachMember(entry, [&](std::string_view k, od::value v) {
            if (k == "now") {
                toFiniteNumber(v, &now);
            } else if (k == "raylet") {
                forEachMember(v, [&](std::string_view rk, od::value rv) {
                    if (rk == "nodeId" || rk == "node_id") nodeId = toString(rv).toLower();
                    else if (rk == "nodeManagerAddress" || rk == "node_manager_address") address = toString(rv);
                    else if (rk == "metricsExportPort" || rk == "metrics_export_port") port = toInt(rv, -1);
                    else if (rk == "state") dead = toString(rv) == QLatin1String("DEAD");
                });
            } else if (k == "tpus") {
                sawTpus = typeOf(v) == od::json_type::array;
                forEachElement(v, [&](od::value tv) {
                    SummaryChip c;
                    forEachMember(tv, [&](std::string_view tk, od::value x) {
                        int slot = -1;
                        if (tk == "index") c.index = int(toInt(x, -1));
                        else if (tk == "dutyCycle" || tk == "duty_cycle") slot = 0;
                        else if (tk == "tensorcoreUtilization" || tk == "tensorcore_utilization") slot = 1;
                        else if (tk == "hbmUtilization" || tk == "hbm_utilization") slot = 2;
                        else if (tk == "memoryUsed" || tk == "memory_used") slot = 3;
                        else if (tk == "memoryTotal" || tk == "memory_total") slot = 4;
                        if (slot >= 0) c.has[slot] = toFiniteNumber(x, &c.values[slot]);
                    });
                    if (c.index >= 0 && c.index < limits::kMaxChipsPerHost) chips.push_back(c);
                });
            }
        });
        // A dead node keeps its address and port in the summary, and its successor often has
        // both: only a live node names an instance.
        if (!dead && !nodeId.isEmpty() && !address.isEmpty() && port > 0 && port < 65536)
            m_nodeByInstance.insert(QStringLiteral("%1:%2").arg(address).arg(port), nodeId);
        const auto it = m_byNode.constFind(nodeId);
        if (it == m_byNode.constEnd()) {
            if (!nodeId.isEmpty() && !chips.empty()) ++unknownNodes;
            return;
        }
        const HostRef ref = *it;
        ++tpuNodes;
        if (!takesActivity(ref)) return;
        if (!sawTpus || chips.empty()) {
            m_builder.setUnknownReason(ref.slice, ref.host,
                                       QStringLiteral("Ray reports no TPU metrics for this node: its reporter agent has no TPU_DEVICE_PLUGIN_ADDR, "
                                                      "or could not reach the device plugin when it first asked (it then never asks again "
                                                      "until the node restarts)"));
            return;
        }
        const qint64 atMs = now > 0 ? qint64(now * 1000) : 0;
        if (!fresh(atMs)) {
            stale(ref, atMs);
            return;
        }
        ++reportingNodes;
        static constexpr Metric order[5] = {Metric::DutyCycle, Metric::Tensorcore, Metric::HbmBandwidth, Metric::HbmUsed, Metric::HbmTotal};
        for (const SummaryChip &sc : chips) {
            ChipActivity *c = chipOf(ref, sc.index);
            if (!c || c->reports()) continue;
            // Ray writes 0 for what the plugin did not report: all runtime numbers 0 with no HBM
            // total means no runtime metrics (some TPU types have none), not an idle chip.
            const bool runtime = !(sc.values[0] == 0 && sc.values[3] == 0 && sc.values[4] == 0);
            for (int m = 0; m < 5; ++m) {
                if (!sc.has[m] || (!runtime && isRuntimeMetric(order[m]))) continue;
                if (!valueFits(order[m], sc.values[m])) {
                    ++outOfRange;
                    continue;
                }
                setMetric(*c, order[m], sc.values[m]);
            }
            c->source = ActivitySource::RayNodeSummary;
            c->sampledAtMs = atMs;
        }
    }

    struct Series {
        Metric metric = Metric::None;
        QString ip, instance, pod, ns;
        int index = -1;        // TpuIndex (Ray: local) or the accelerator_id's (plugin: slice-wide for runtime metrics)
        double value = 0;
        qint64 atMs = 0;
        bool valueOk = false;
    };

    // {"status": "success"|"error", "errorType", "error", "data": {"resultType": "vector", "result":
    // [{"metric": {...}, "value": [ts, "v"]}]}}
    void readPrometheus(const Capture::PrometheusAnswer &answer, ActivitySource source, int window = 0)
    {
        QStringList errors, warnings;
        QString status, errorType, error, resultType;
        std::vector<Series> series;
        // Room for as many series as the body could hold (one takes 64 bytes at the least), so a
        // big answer is not moved series by series as the list grows; untouched room costs nothing.
        series.reserve(size_t(std::min<qsizetype>(kMaxSeries, answer.body.size() / 64)));
        const bool rayNames = source == ActivitySource::RayMetrics;
        const QString what = window     ? QStringLiteral("Prometheus (%1 s window)").arg(window)
                             : rayNames ? QStringLiteral("Prometheus ray_tpu_*")
                                        : QStringLiteral("Prometheus device-plugin series");
        const bool ok = parseBody(answer.body, "prometheus", errors, warnings, [&](od::value root) -> QString {
            if (typeOf(root) != od::json_type::object) return QStringLiteral("expected an object, got %1").arg(describeType(root));
            forEachMember(root, [&](std::string_view k, od::value v) {
                if (k == "status") status = toString(v);
                else if (k == "errorType") errorType = toString(v);
                else if (k == "error") error = toString(v).left(200);
                else if (k == "data")
                    forEachMember(v, [&](std::string_view dk, od::value dv) {
                        if (dk == "resultType") resultType = toString(dv);
                        else if (dk == "result")
                            forEachElement(dv, [&](od::value item) { series.push_back(readSeries(item, rayNames, window > 0)); }, kMaxSeries);
                    });
            });
            return {};
        });
        for (const QString &e : std::as_const(errors))
            m_problems << QStringLiteral("%1: %2").arg(what, e);
        if (!ok) return;
        if (status != QLatin1String("success")) {
            m_problems << QStringLiteral("%1: the server answered %2%3").arg(what, status.isEmpty() ? QStringLiteral("without a status") : status, error.isEmpty() ? QString() : QStringLiteral(" (%1: %2)").arg(errorType, error.left(200)));
            return;
        }
        if (resultType != QLatin1String("vector")) {
            m_problems << QStringLiteral("%1: expected an instant vector, got \"%2\"").arg(what, resultType.left(40));
            return;
        }
        if (series.empty() && !window) {
            // The device plugin's own series are optional (most setups have none): only Ray's say something.
            if (rayNames)
                m_problems << QStringLiteral("%1: the answer holds no series: is Prometheus scraping the Ray nodes' metrics export ports "
                                             "(with Ray's metrics collection on), and does the device plugin feed Ray?")
                                  .arg(what);
            return;
        }
        int joined = 0, unmatched = 0, ambiguous = 0, bad = 0, staleCount = 0;
        QString firstUnmatched, firstAmbiguous;
        for (const Series &x : series) {
            if (x.metric == Metric::None || x.index < 0 || !x.valueOk || !valueFits(x.metric, x.value)) {
                ++bad;
                continue;
            }
            HostRef ref;
            if (source == ActivitySource::DevicePlugin) {
                const auto it = m_byPod.constFind(x.ns + u'/' + x.pod);
                if (x.pod.isEmpty() || it == m_byPod.constEnd()) {
                    if (firstUnmatched.isEmpty()) firstUnmatched = x.pod.isEmpty() ? QStringLiteral("a series without a pod label") : x.ns + u'/' + x.pod;
                    ++unmatched;
                    continue;
                }
                ref = *it;
            } else {
                QString node = m_nodeByInstance.value(x.instance);
                if (node.isEmpty()) {
                    const auto ip = m_nodeByIp.constFind(x.ip);
                    if (ip != m_nodeByIp.constEnd() && ip->isEmpty()) {
                        if (firstAmbiguous.isEmpty()) firstAmbiguous = x.ip;
                        ++ambiguous;
                        continue;
                    }
                    if (ip != m_nodeByIp.constEnd()) node = *ip;
                }
                const auto it = m_byNode.constFind(node);
                if (node.isEmpty() || it == m_byNode.constEnd()) {
                    if (firstUnmatched.isEmpty()) firstUnmatched = x.instance.isEmpty() ? x.ip : x.instance;
                    ++unmatched;
                    continue;
                }
                ref = *it;
            }
            if (!takesActivity(ref)) continue;
            if (!fresh(x.atMs)) {
                ++staleCount;
                continue;
            }
            if (source == ActivitySource::DevicePlugin) {
                m_plugin.push_back({ref, x});
                ++joined;
                continue;
            }
            ChipActivity *c = chipOf(ref, x.index);
            if (!c) {
                ++bad;
                continue;
            }
            ++joined;
            if (window) {
                c->windowMaxDutyCycle = float(std::min(x.value, 100.0));
                c->windowSeconds = window;
                continue;
            }
            if (c->source != ActivitySource::None && c->source != source) continue; // an earlier source said it
            setMetric(*c, x.metric, x.value);
            c->source = source;
            c->sampledAtMs = std::max(c->sampledAtMs, x.atMs);
        }
        m_sources << QStringLiteral("%1: %2 of %3 series joined to chips").arg(what).arg(joined).arg(series.size());
        if (unmatched) m_problems << QStringLiteral("%1: %2 series name no host SliceScope knows (the first: %3)").arg(what).arg(unmatched).arg(firstUnmatched.left(120));
        if (ambiguous)
            m_problems << QStringLiteral("%1: %2 series from %3 cannot be told apart: several Ray nodes share that IP and no node summary gives their metrics ports")
                              .arg(what)
                              .arg(ambiguous)
                              .arg(firstAmbiguous.left(64));
        if (bad) m_problems << QStringLiteral("%1: %2 series without a usable chip index or value not taken").arg(what).arg(bad);
        if (staleCount) m_problems << QStringLiteral("%1: %2 series older than 5 min not taken").arg(what).arg(staleCount);
    }

    Series readSeries(od::value item, bool rayNames, bool window)
    {
        Series x;
        forEachMember(item, [&](std::string_view k, od::value v) {
            if (k == "metric") {
                forEachMember(v, [&](std::string_view lk, od::value lv) {
                    std::string_view text;
                    if (typeOf(lv) != od::json_type::string || lv.get_string().get(text) != simdjson::SUCCESS) return;
                    if (lk == "__name__") x.metric = metricOf(text, rayNames);
                    else if (lk == "ip") x.ip = qstr(text.substr(0, 64));
                    else if (lk == "instance") x.instance = qstr(text.substr(0, 128));
                    else if (lk == "pod") x.pod = qstr(text.substr(0, 253));
                    else if (lk == "namespace") x.ns = qstr(text.substr(0, 63));
                    else if (lk == "TpuIndex" && rayNames) x.index = smallIndex(text);
                    else if (lk == "accelerator_id" && !rayNames) x.index = acceleratorIndex(text);
                });
            } else if (k == "value") {
                int i = 0;
                forEachElement(v, [&](od::value e) {
                    double d = 0;
                    if (i == 0 && toFiniteNumber(e, &d)) x.atMs = qint64(d * 1000);
                    if (i == 1) x.valueOk = toFiniteNumber(e, &x.value);
                    ++i;
                });
            }
        });
        if (window) x.metric = Metric::DutyCycle; // max_over_time drops the name
        return x;
    }

    // The device plugin's runtime metrics are indexed slice-wide: mapped onto the host's chips in
    // index order, as Ray's reporter agent does; its host metrics are already local.
    void applyDevicePlugin()
    {
        QHash<quint64, std::vector<int>> runtimeIndices;
        auto key = [](const HostRef &r) {
            return (quint64(quint32(r.slice)) << 32) | quint32(r.host);
        };
        for (const auto &[ref, x] : m_plugin)
            if (isRuntimeMetric(x.metric)) runtimeIndices[key(ref)].push_back(x.index);
        for (auto &v : runtimeIndices) {
            std::sort(v.begin(), v.end());
            v.erase(std::unique(v.begin(), v.end()), v.end());
        }
        for (const auto &[ref, x] : m_plugin) {
            int local = x.index;
            if (isRuntimeMetric(x.metric)) {
                const std::vector<int> &v = runtimeIndices[key(ref)];
                local = int(std::lower_bound(v.begin(), v.end(), x.index) - v.begin());
            }
            ChipActivity *c = chipOf(ref, local);
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

    ClusterSnapshot &m_s;
    const Capture &m_c;
    ActivityTableBuilder m_builder;
    qint64 m_nowMs = 0;
    QHash<QString, HostRef> m_byNode;         // Ray node id (lower case) -> host
    QHash<QString, HostRef> m_byPod;          // "ns/pod" -> host
    QHash<QString, QString> m_nodeByIp;       // IP -> node id; empty when several alive nodes share it
    QHash<QString, QString> m_nodeByInstance; // "address:metrics-port" -> node id (from the summary)
    std::vector<std::pair<HostRef, Series>> m_plugin;
    QStringList m_sources, m_problems;
};

} // namespace

void joinActivity(ClusterSnapshot &snapshot, const Capture &capture)
{
    if (!capture.hasActivity()) return;
    Joiner(snapshot, capture).run();
}

} // namespace slicescope
