// SPDX-License-Identifier: GPL-3.0-or-later
// joinActivity(): the capture's activity bodies (Ray's node summary, Prometheus answers) read and
// joined to the exact chip of each host (model/activity.h says from where and how).
#include "activity.h"
#include "activityparse_p.h"

#include "snapshot.h"
#include "snapshotread_p.h"

#include <QHash>
#include <QMutex>
#include <QMutexLocker>

#include <algorithm>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace slicescope {

using namespace snapshotread;
using namespace activityparse;

namespace {

// A sample older than this (against the capture's time) is not taken: the source stopped.
constexpr qint64 kMaxSampleAgeMs = 5 * 60 * 1000;
struct HostRef {
    int slice = -1;
    int host = -1; // -1: a Ray node SliceScope knows that is no slice host
};

// What an IP names: one alive Ray node (its host, or none when it is no slice host), or several.
struct IpEntry {
    HostRef ref;
    bool ambiguous = false;
};

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

// A Ray node id as the join keys it, lower case. Ray writes them in lower-case hex: such an id is
// shared as it is. QString::toLower() finds that too, but through Unicode's case tables: 0.85 ms
// for 10k ids here, against 0.33 ms.
QString lowerId(const QString &id)
{
    for (const QChar ch : id)
        if (ch.unicode() >= 0x80 || (ch >= u'A' && ch <= u'Z')) return id.toLower();
    return id;
}

class Joiner
{
public:
    // Reads `s` through a const reference only (a snapshot that shares its lists with another
    // must not copy them), and sets its activity and warnings at the end. `letGo`: what an earlier
    // join kept, dropped on the second thread after the join's side work (releaseBeside(), JoinMemo::release()).
    Joiner(ClusterSnapshot &s, const Capture &c, std::shared_ptr<void> letGo)
        : m_letGo(std::move(letGo))
        , m_s(s)
        , m_out(s)
        , m_c(c)
        , m_builder(s)
        , m_nowMs(c.capturedAt.isValid() ? c.capturedAt.toMSecsSinceEpoch() : 0)
    {
    }

    // A sample was refused as stale: the join's result then depends on the time beyond its samples.
    bool sawStale() const { return m_sawStale; }
    // The oldest sample taken (ms since the epoch, 0: none): the first to turn stale.
    qint64 oldestTakenMs() const { return m_oldestTakenMs; }

    // The snapshot's shape (shapeOf()), as run() found it.
    size_t shape() const { return m_shape; }

    void run()
    {
        // A new node summary's parse is most of the join's time. What does not need it is done
        // beside it, on a second thread (model/activityparse_p.h, SideTask): the parse of the
        // window answers (read whatever the summary says), the snapshot's node index and shape.
        std::shared_ptr<const ParsedSummary> summary;
        std::optional<SideTask> shapeBeside;
        if (!m_c.rayNodeSummary.isEmpty() && !hasCachedSummary(m_c.rayNodeSummary)) {
            std::vector<const Capture::PrometheusAnswer *> windows;
            for (const Capture::PrometheusAnswer &a : m_c.prometheus)
                if (promql::windowOfQuery(a.query) > 0 && !hasCachedAnswer(a, true, true)) windows.push_back(&a);
            SideTask beside([this, windows] {
                for (const Capture::PrometheusAnswer *a : windows)
                    cachedAnswer(*a, true, true);
                indexSnapshot();
                m_shape = shapeOf(m_s);
            });
            releaseBeside(std::move(m_letGo)); // after the side work, while this thread joins
            summary = cachedSummary(m_c.rayNodeSummary);
            beside.wait();
        } else {
            // The bodies are parsed (an earlier capture's, or ActivityPrefetch's): the join is all
            // that is left, and the shape (the memo's key, wanted at the end) is hashed beside it.
            shapeBeside.emplace([this] { m_shape = shapeOf(m_s); });
            releaseBeside(std::move(m_letGo));
            indexSnapshot();
            if (!m_c.rayNodeSummary.isEmpty()) summary = cachedSummary(m_c.rayNodeSummary);
        }
        if (summary) readNodeSummary(summary);
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
        if (!m_c.prometheusError.isEmpty()) {
            m_problems << m_c.prometheusError;
            m_sourceErrors.append({QStringLiteral("prometheus"), m_c.prometheusError});
        }
        explainUnknownHosts();
        if (shapeBeside) shapeBeside->wait(); // before the snapshot is written to
        ActivityTable &t = m_builder.table();
        t.sources = m_sources;
        t.problems = m_problems;
        t.sourceErrors = m_sourceErrors;
        m_out.activity = m_builder.finish();
        for (const QString &p : std::as_const(m_problems))
            m_out.warnings << QStringLiteral("activity: %1").arg(p);
    }

private:
    // Read from indexSnapshot()'s flat list: a host's own record is three dependent loads away
    // (the slice, its host list, the host), a cache miss each for 10k hosts in summary order.
    bool takesActivity(const HostRef &ref) const { return m_hostTakes[size_t(m_sliceFirstHost[size_t(ref.slice)] + ref.host)]; }

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
                const auto [it, inserted] = m_byIp.try_emplace(n.ip.toStdString(), IpEntry{hostOfNode(lowerId(n.id)), false});
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

    // What the snapshot alone gives: its Ray nodes' hosts, its shape. Reads `m_s` only (run() may
    // call it on the second thread).
    void indexSnapshot()
    {
        // The ids are the snapshot's own strings (lowerId() shares one that is lower case already).
        m_byNode.reserve(m_s.rayNodes.size());
        m_sliceFirstHost.reserve(size_t(m_s.slices.size()));
        for (int si = 0; si < m_s.slices.size(); ++si) {
            const Slice &slice = m_s.slices[si];
            m_sliceFirstHost.push_back(int(m_hostTakes.size()));
            for (int hi = 0; hi < slice.hosts.size(); ++hi) {
                const Host &h = slice.hosts[hi];
                m_hostTakes.push_back(h.state == HostState::Alive && !h.chips.isEmpty());
                if (const int n = h.rayNode; n >= 0) m_byNode.insert(lowerId(m_s.rayNodes[n].id), HostRef{si, hi});
            }
        }
    }

    void readNodeSummary(const std::shared_ptr<const ParsedSummary> &parsed)
    {
        m_problems += parsed->errors;
        m_problems += parsed->warnings;
        if (!parsed->ok) return;
        m_summary = parsed;
        m_entryHost.resize(parsed->entries.size());
        SummaryCounts counts;
        for (size_t i = 0; i < parsed->entries.size(); ++i)
            m_entryHost[i] = applySummaryEntry(parsed->entries[i], parsed->chips.data() + parsed->entries[i].firstChip, counts);
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
    HostRef applySummaryEntry(const SummaryEntry &e, const SummaryChip *chips, SummaryCounts &counts)
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
            const SummaryChip &sc = chips[i];
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
        if (answer.body.isEmpty()) { // what a redirect or a lost answer leaves: nothing was said
            answerFailed(QStringLiteral("%1: the answer is empty").arg(what));
            return;
        }
        const std::shared_ptr<const ParsedAnswer> parsed = cachedAnswer(answer, rayNames, window > 0);
        for (const QString &e : parsed->errors)
            answerFailed(QStringLiteral("%1: %2").arg(what, e));
        if (!parsed->ok) return;
        if (parsed->status != QLatin1String("success")) {
            answerFailed(QStringLiteral("%1: the server answered %2%3")
                             .arg(what, parsed->status.isEmpty() ? QStringLiteral("without a status") : parsed->status,
                                  parsed->error.isEmpty() ? QString() : QStringLiteral(" (%1: %2)").arg(parsed->errorType, parsed->error.left(200))));
            return;
        }
        if (parsed->resultType != QLatin1String("vector")) {
            answerFailed(QStringLiteral("%1: expected an instant vector, got \"%2\"").arg(what, parsed->resultType.left(40)));
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

    std::shared_ptr<void> m_letGo;
    const ClusterSnapshot &m_s;
    ClusterSnapshot &m_out;
    size_t m_shape = 0;
    const Capture &m_c;
    ActivityTableBuilder m_builder;
    qint64 m_nowMs = 0;
    QHash<QString, HostRef> m_byNode; // Ray node id (lower case) -> host
    std::vector<int> m_sliceFirstHost; // per slice, its first host's place in m_hostTakes
    std::vector<char> m_hostTakes;     // per host (slice by slice): takes activity (alive, with chips)
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
    QList<ActivityTable::SourceError> m_sourceErrors;
    // An answer Prometheus gave that says nothing usable: a problem, and the source's failure.
    void answerFailed(const QString &problem)
    {
        m_problems << problem;
        // "Prometheus ray_tpu_*: ..." as "Prometheus http://host:9090: ray_tpu_*: ...": the URL first, as the poller's own errors say it.
        static const QString kPrefix = QStringLiteral("Prometheus ");
        const QString message = m_c.prometheusUrl.isEmpty() || !problem.startsWith(kPrefix) ? problem : kPrefix + m_c.prometheusUrl + QStringLiteral(": ") + problem.mid(kPrefix.size());
        m_sourceErrors.append({QStringLiteral("prometheus"), message});
    }
};

} // namespace

namespace {

// The last join, reused while a capture carries the same bodies (the same buffers) and errors, the
// snapshot has the same shape, and none of the samples taken has aged past the limit since: the
// common case of a live window, whose 2 s captures share the node summary and Prometheus's
// answers for 10 s. A join that refused a stale sample is not kept (its reasons name its age).
class JoinMemo
{
public:
    // `shape`: the snapshot's shapeOf(), asked only when the rest matches (new bodies need none).
    template<typename Shape>
    std::shared_ptr<const ActivityTable> find(const Capture &c, Shape &&shape, qint64 nowMs)
    {
        QMutexLocker lock(&m_mutex);
        if (!m_table || nowMs <= 0 || nowMs > m_validUntilMs || !sameBodies(c) || shape() != m_shape) return {};
        return m_table;
    }
    // Lets go of the kept join before a new one is made, and returns what it held for the caller to
    // drop where that costs least: an earlier capture's bodies are tens of MB, milliseconds to free.
    std::shared_ptr<void> release()
    {
        QMutexLocker lock(&m_mutex);
        auto held = std::make_shared<std::pair<Capture, std::shared_ptr<const ActivityTable>>>(std::move(m_capture), std::move(m_table));
        m_capture = Capture();
        m_table.reset();
        return held;
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

struct ActivityPrefetch::State {
    explicit State(std::function<void()> work)
        : task(std::move(work))
    {
    }
    SideTask task;
};

ActivityPrefetch::ActivityPrefetch(const Capture &capture)
{
    if (!capture.hasActivity()) return;
    // What run() will ask the parse cache for whatever the snapshot is (copies share the buffers,
    // so the cache knows them for the capture's).
    QByteArray summary;
    if (!capture.rayNodeSummary.isEmpty() && !hasCachedSummary(capture.rayNodeSummary)) summary = capture.rayNodeSummary;
    struct Wanted {
        Capture::PrometheusAnswer answer;
        bool rayNames = true, window = false;
    };
    std::vector<Wanted> answers;
    for (const Capture::PrometheusAnswer &a : capture.prometheus) {
        Wanted w{a};
        if (promql::windowOfQuery(a.query) > 0) {
            w.window = true;
        } else if (!capture.rayNodeSummary.isEmpty()) {
            continue; // read only where the summary leaves chips unknown: that needs the snapshot
        } else if (a.query == QLatin1String(promql::kDevicePlugin) || a.query == QLatin1String(promql::kDevicePluginAllLabels)) {
            w.rayNames = false;
        } else if (a.query != QLatin1String(promql::kRayTpu) && a.query != QLatin1String(promql::kRayTpuAllLabels)) {
            continue;
        }
        if (!hasCachedAnswer(a, w.rayNames, w.window)) answers.push_back(std::move(w));
    }
    if (summary.isEmpty() && answers.empty()) return;
    m_state = std::make_unique<State>([summary, answers = std::move(answers)] {
        if (!summary.isEmpty()) cachedSummary(summary);
        for (const Wanted &w : answers)
            cachedAnswer(w.answer, w.rayNames, w.window);
    });
}

ActivityPrefetch::~ActivityPrefetch() = default; // SideTask's destructor waits

void ActivityPrefetch::wait()
{
    if (m_state) m_state->task.wait();
}

void joinActivity(ClusterSnapshot &snapshot, const Capture &capture)
{
    if (!capture.hasActivity()) return;
    const qint64 nowMs = capture.capturedAt.isValid() ? capture.capturedAt.toMSecsSinceEpoch() : 0;
    if (std::shared_ptr<const ActivityTable> kept = joinMemo().find(capture, [&] { return shapeOf(snapshot); }, nowMs)) {
        snapshot.activity = kept;
        for (const QString &p : kept->problems)
            snapshot.warnings << QStringLiteral("activity: %1").arg(p);
        return;
    }
    Joiner joiner(snapshot, capture, joinMemo().release());
    joiner.run();
    joinMemo().store(capture, joiner.shape(), nowMs, snapshot.activity, joiner.sawStale(), joiner.oldestTakenMs());
}

} // namespace slicescope
