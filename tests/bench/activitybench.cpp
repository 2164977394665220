// SPDX-License-Identifier: GPL-3.0-or-later
// `slicescope-bench activity`: the cost of chip activity (issue 15) next to the allocation ingest
// it rides on. The 10k-node generated capture gets what a live source would add: Ray's node
// summary (GET /nodes?view=summary, every Ray node listed, `tpus` per chip of each live TPU host)
// and Prometheus's answers to the queries the poller asks (model/activity.h): promql::kRayTpu (5
// ray_tpu_* series per chip, with the labels the query keeps, as Prometheus 2.42 returns them) and
// the idle window (one series per chip). Measured side by side in each run:
//  - ingest: buildSnapshot() of the allocation capture (no activity body);
//  - activity: joinActivity() alone, all three bodies freshly received (copies of the bytes, so
//    nothing parsed before is reused), on a copy of that snapshot (copies made outside the timed
//    region): what a capture with new bodies costs. That is wall time: a new node summary is parsed
//    while a second thread parses the window answer (model/activityparse_p.h, SideTask), so the
//    CPU time of the same join (the process's, both threads) is printed beside it;
//  - activity per poll: the mean over a cycle of the live cadence (a poll every 2 s, Ray's node
//    summary and Prometheus's answers new every 10 s: one capture in five brings new bodies, the
//    other four the same buffers, whose parse and join the model keeps): what the window pays per
//    capture of a steady cluster. Where the allocation changes between polls the kept join does
//    not apply and each such poll pays for applying the kept parses (docs/testing.md 4);
//  - prometheus / summary: joinActivity() with only that source's bodies (Prometheus: both answers);
//  - prometheus, every label: the answer to the query recordings made before (every label Ray's
//    exporter adds), for the ratio of the two query shapes.
// The target (issue 15): activity <= 25 % of the ingest, per poll; the fresh figure says what a
// single capture with new bodies costs next to it.
#include "benchstats.h"
#include "clustergenerator.h"
#include "historybench.h"
#include "snapshot.h"
#include "tpu.h"

#include <QByteArray>

#include <charconv>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

namespace slicescope::bench {

namespace {

constexpr int kMetricsExportPort = 8080;
constexpr double kGiB = 1024.0 * 1024 * 1024;

quint64 mix(quint64 x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

void appendNumber(QByteArray &out, double v)
{
    char buf[32];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, res.ptr - buf);
}

void appendInt(QByteArray &out, qint64 v)
{
    char buf[24];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, res.ptr - buf);
}

// One chip's five numbers, seeded by (seed, host, chip): a fleet where most chips train, some
// idle, a few sit at exactly 0.
struct Numbers {
    double duty, tensorcore, bandwidth, used, total;
};
Numbers numbersFor(quint64 seed, int host, int chip, double hbmTotal)
{
    const quint64 h = mix(seed ^ mix(quint64(host) * 64 + quint64(chip)));
    const double u = double(h >> 11) * 0x1.0p-53;
    const double busy = (h & 3) ? 60 + 35 * u : 2 * u;
    const double duty = std::round(busy * 10) / 10;
    return {duty, std::round(duty * 7.8) / 10, std::round(duty * 5) / 10, std::round(hbmTotal * (duty > 10 ? 0.7 : 0.02)), hbmTotal};
}

double hbmOf(const Slice &s)
{
    if (!s.generation) return 32 * kGiB;
    if (s.generation->name == QLatin1String("v5p")) return 95 * kGiB;
    if (s.generation->name == QLatin1String("v5e")) return 16 * kGiB;
    return 32 * kGiB;
}

struct ActivityBodies {
    QByteArray summary, prometheus, window, prometheusAllLabels;
    int chips = 0;     // chips the bodies report (live TPU hosts' chips)
    int series = 0;
};

// Both bodies for the hosts of `s` (its slices' Ray nodes), sampled at `at`.
ActivityBodies makeBodies(const ClusterSnapshot &s, quint32 seed, const QDateTime &at)
{
    ActivityBodies b;
    const double now = double(at.toMSecsSinceEpoch()) / 1000 - 1.5;
    const QByteArray session = "session_2026-11-29_09-00-00_000000_1";
    // Which slice host each Ray node is.
    std::vector<std::pair<int, int>> hostOf(size_t(s.rayNodes.size()), {-1, -1});
    for (int si = 0; si < s.slices.size(); ++si)
        for (int hi = 0; hi < s.slices[si].hosts.size(); ++hi)
            if (const int n = s.slices[si].hosts[hi].rayNode; n >= 0)
                hostOf[size_t(n)] = {si, hi};

    QByteArray &sum = b.summary;
    QByteArray &prom = b.prometheusAllLabels;
    QByteArray &kept = b.prometheus;
    QByteArray &window = b.window;
    sum.reserve(qsizetype(s.rayNodes.size()) * 1500);
    prom.reserve(qsizetype(s.rayNodes.size()) * 4 * 5 * 420);
    kept.reserve(qsizetype(s.rayNodes.size()) * 4 * 5 * 140);
    window.reserve(qsizetype(s.rayNodes.size()) * 4 * 120);
    sum.append(R"({"result": true, "msg": "Node summary fetched.", "data": {"summary": [)");
    for (QByteArray *answer : {&prom, &kept, &window})
        answer->append(R"({"status":"success","data":{"resultType":"vector","result":[)");
    bool firstSeries = true;
    for (int ni = 0; ni < s.rayNodes.size(); ++ni) {
        const RayNode &n = s.rayNodes[ni];
        const QByteArray id = n.id.toLatin1(), ip = n.ip.toLatin1(), instance = ip + ':' + QByteArray::number(kMetricsExportPort);
        if (ni) sum.append(", ");
        sum.append('{');
        if (n.alive) {
            sum.append(R"("now": )");
            appendNumber(sum, now);
            sum.append(R"(, "hostname": ")").append(n.name.toLatin1()).append(R"(", "ip": ")").append(ip).append(R"(", )");
            // What else a real entry carries (the join must skip it).
            sum.append(R"("cpu": 12.5, "cpus": [32, 16], "mem": [135291469824, 101468602368, 25.0, 33822867456], "bootTime": 1795900000.0, )"
                       R"("loadAvg": [[1.1, 0.9, 0.8], [0.03, 0.03, 0.02]], "disk": {"/": {"total": 101241290752, "used": 40496516300, "free": 60744774452, "percent": 40.0}}, )");
        }
        sum.append(R"("raylet": {"nodeId": ")").append(id).append(R"(", "nodeManagerAddress": ")").append(ip);
        sum.append(R"(", "metricsExportPort": )");
        appendInt(sum, kMetricsExportPort);
        sum.append(R"(, "state": ")").append(n.alive ? "ALIVE" : "DEAD").append(R"(", "objectStoreUsedMemory": 0}, "tpus": [)");
        const auto [si, hi] = hostOf[size_t(ni)];
        if (n.alive && si >= 0) {
            const Slice &slice = s.slices[si];
            const Host &host = slice.hosts[hi];
            const QByteArray type = slice.generation ? slice.generation->gkeAccelerator.toLatin1() : QByteArray("tpu-v6e-slice");
            const QByteArray topology = slice.topology.toString().toLatin1();
            const QByteArray uid = QByteArray::number(1000000000000000000ULL + mix(seed ^ quint64(si)) % 8000000000000000000ULL);
            for (int c = 0; c < host.chips.size(); ++c) {
                const Numbers v = numbersFor(seed, ni, c, hbmOf(slice));
                const QByteArray name = uid + '-' + QByteArray::number(c);
                if (c) sum.append(", ");
                sum.append(R"({"index": )");
                appendInt(sum, c);
                sum.append(R"(, "name": ")").append(name).append(R"(", "tpuType": ")").append(type).append(R"(", "tpuTopology": ")").append(topology);
                sum.append(R"(", "tensorcoreUtilization": )");
                appendNumber(sum, v.tensorcore);
                sum.append(R"(, "hbmUtilization": )");
                appendNumber(sum, v.bandwidth);
                sum.append(R"(, "dutyCycle": )");
                appendNumber(sum, v.duty);
                sum.append(R"(, "memoryUsed": )");
                appendInt(sum, qint64(v.used));
                sum.append(R"(, "memoryTotal": )");
                appendInt(sum, qint64(v.total));
                sum.append('}');
                ++b.chips;
                const std::pair<const char *, double> metrics[5] = {{"ray_tpu_duty_cycle", v.duty},
                                                                    {"ray_tpu_tensorcore_utilization", v.tensorcore},
                                                                    {"ray_tpu_memory_bandwidth_utilization", v.bandwidth},
                                                                    {"ray_tpu_memory_used", v.used},
                                                                    {"ray_tpu_memory_total", v.total}};
                // The window answer: labels sorted as Prometheus sorts them (capitals first).
                if (!firstSeries) window.append(',');
                window.append(R"({"metric":{"TpuIndex":")");
                appendInt(window, c);
                window.append(R"(","instance":")").append(instance).append(R"(","ip":")").append(ip).append(R"("},"value":[)");
                appendNumber(window, now + 0.5);
                window.append(R"(,")");
                appendNumber(window, v.duty > 10 ? 100 : v.duty + 0.5);
                window.append(R"("]})");
                for (const auto &[metric, value] : metrics) {
                    if (!firstSeries) {
                        prom.append(',');
                        kept.append(',');
                    }
                    firstSeries = false;
                    kept.append(R"({"metric":{"TpuIndex":")");
                    appendInt(kept, c);
                    kept.append(R"(","__name__":")").append(metric).append(R"(","instance":")").append(instance).append(R"(","ip":")").append(ip);
                    kept.append(R"("},"value":[)");
                    appendNumber(kept, now + 0.5);
                    kept.append(R"(,")");
                    appendNumber(kept, value);
                    kept.append(R"("]})");
                    prom.append(R"({"metric":{"__name__":")").append(metric);
                    prom.append(R"(","IsHeadNode":"false","RayNodeType":"worker","SessionName":")").append(session);
                    prom.append(R"(","TpuDeviceName":")").append(name).append(R"(","TpuIndex":")");
                    appendInt(prom, c);
                    prom.append(R"(","TpuTopology":")").append(topology).append(R"(","TpuType":")").append(type);
                    prom.append(R"(","Version":"2.60.0","instance":")").append(instance).append(R"(","ip":")").append(ip);
                    prom.append(R"(","job":"ray"},"value":[)");
                    appendNumber(prom, now + 0.5);
                    prom.append(R"(,")");
                    appendNumber(prom, value);
                    prom.append(R"("]})");
                    ++b.series;
                }
            }
        }
        sum.append("]}");
    }
    sum.append("], \"node_logical_resources\": {}}}");
    for (QByteArray *answer : {&prom, &kept, &window}) {
        answer->append("]}}");
        reserveParsePadding(*answer);
    }
    reserveParsePadding(b.summary);
    return b;
}

} // namespace

int runActivityBenchmark(int argc, char **argv, int first, const std::function<int(const std::string &)> &usageError)
{
    GeneratorOptions options;
    int runs = 15;
    bool json = false;
    for (int i = first; i < argc; ++i) {
        const std::string option = argv[i];
        auto intArg = [&](int min, int max, int &out) {
            if (i + 1 >= argc) return false;
            const std::string text = argv[++i];
            long long v = 0;
            const auto res = std::from_chars(text.data(), text.data() + text.size(), v);
            if (res.ec != std::errc() || res.ptr != text.data() + text.size() || v < min || v > max) return false;
            out = int(v);
            return true;
        };
        int seed = 0;
        if (option == "--nodes") {
            if (!intArg(1, 1000000, options.nodes)) return usageError("--nodes wants a whole number from 1 to 1000000");
        } else if (option == "--placement-groups") {
            if (!intArg(0, 1000000, options.placementGroups)) return usageError("--placement-groups wants a whole number from 0 to 1000000");
        } else if (option == "--runs") {
            if (!intArg(1, 100000, runs)) return usageError("--runs wants a whole number from 1 to 100000");
        } else if (option == "--seed") {
            if (!intArg(0, INT_MAX, seed)) return usageError("--seed wants a whole number from 0");
            options.seed = quint32(seed);
        } else if (option == "--json") {
            json = true;
        } else {
            return usageError("unknown option for activity: " + option);
        }
    }
    auto fail = [](const std::string &message) {
        std::fprintf(stderr, "slicescope-bench activity: %s\n", message.c_str());
        return 1;
    };

    GeneratedCounts expected;
    const Capture allocation = generateCluster(options, &expected);
    const SnapshotPtr base = buildSnapshot(allocation);
    if (!base->errors.isEmpty())
        return fail("the ingest reported errors: " + base->errors.join(QStringLiteral("; ")).toStdString());
    const ActivityBodies bodies = makeBodies(*base, options.seed, allocation.capturedAt);
    if (bodies.chips == 0)
        return fail("the generated cluster has no live TPU host");

    Capture both = allocation, promOnly = allocation, summaryOnly = allocation, promAllLabels = allocation;
    both.rayNodeSummary = summaryOnly.rayNodeSummary = bodies.summary;
    both.prometheusUrl = promOnly.prometheusUrl = promAllLabels.prometheusUrl = QStringLiteral("http://127.0.0.1:9090");
    constexpr int kWindowSeconds = 600;
    both.prometheus = promOnly.prometheus = {Capture::PrometheusAnswer{QString::fromLatin1(promql::kRayTpu), bodies.prometheus},
                                             Capture::PrometheusAnswer{promql::windowMaxQuery(kWindowSeconds), bodies.window}};
    promAllLabels.prometheus = {Capture::PrometheusAnswer{QString::fromLatin1(promql::kRayTpuAllLabels), bodies.prometheusAllLabels}};

    // A broken join must not produce pretty numbers: every chip the bodies name must report, from
    // the source expected, with no problem.
    auto check = [&](const ClusterSnapshot &s, ActivitySource source, const char *what) -> std::string {
        if (!s.activity) return std::string(what) + ": no activity table";
        if (!s.activity->problems.isEmpty()) return std::string(what) + ": " + s.activity->problems.join(QStringLiteral("; ")).toStdString();
        if (s.activity->reportingChips() != bodies.chips)
            return std::string(what) + ": " + std::to_string(s.activity->reportingChips()) + " chips report, the bodies name " + std::to_string(bodies.chips);
        for (int si = 0; si < s.slices.size(); ++si)
            for (int hi = 0; hi < s.slices[si].hosts.size(); ++hi)
                for (int c = 0; c < s.slices[si].hosts[hi].chips.size(); ++c)
                    if (const ChipActivity *a = s.activity->chip(si, hi, c); a && a->reports() && (a->source != source || !a->hasDutyCycle()))
                        return std::string(what) + ": a chip reports from " + toText(a->source).toStdString() + " without a duty cycle or from the wrong source";
        return {};
    };
    // Where the window was asked, every reporting chip has its covered maximum.
    auto checkWindow = [&](const ClusterSnapshot &s, const char *what) -> std::string {
        int withWindow = 0;
        for (int si = 0; si < s.slices.size(); ++si)
            for (int hi = 0; hi < s.slices[si].hosts.size(); ++hi)
                for (int c = 0; c < s.slices[si].hosts[hi].chips.size(); ++c)
                    if (const ChipActivity *a = s.activity->chip(si, hi, c); a && a->windowSeconds == kWindowSeconds && a->windowCovered && !std::isnan(a->windowMaxDutyCycle))
                        ++withWindow;
        return withWindow == bodies.chips ? std::string() : std::string(what) + ": " + std::to_string(withWindow) + " chips have the window's maximum, the bodies name " + std::to_string(bodies.chips);
    };

    using Clock = std::chrono::steady_clock;
    auto ms = [](Clock::duration d) {
        return std::chrono::duration<double, std::milli>(d).count();
    };
    // The CPU time of every thread of this process, in ms.
    auto cpuMs = [] {
        timespec ts{};
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
    };
    // New bodies: the same bytes in buffers of their own, so the join's parse cache (keyed by
    // the buffer) cannot answer; made outside the timed regions.
    auto fresh = [](Capture c) {
        auto copyOf = [](const QByteArray &b) {
            QByteArray out(b.constData(), b.size());
            reserveParsePadding(out);
            return out;
        };
        c.rayNodeSummary = copyOf(c.rayNodeSummary);
        for (Capture::PrometheusAnswer &a : c.prometheus)
            a.body = copyOf(a.body);
        return c;
    };
    constexpr int kPollsPerRefresh = 5; // 10 s bodies over 2 s polls
    std::vector<double> ingestMs, withMs, addedMs, addedCpuMs, addedRatios, rejoinMs, activityMs, activityCpuMs, promMs, summaryMs, promAllMs, ratios, perPollMs, perPollRatios;
    for (int run = -1; run < runs; ++run) { // one untimed round first: the parsers size their buffers
        // The allocation's ingest, and the same with the three activity bodies new, as a live
        // capture brings them every 10 s: buildSnapshot() parses them beside the allocation's read
        // and joins them after it. In turn which goes first, so that neither always pays for what
        // the run before left to free.
        const Capture withNow = fresh(both);
        double i0 = 0, i1 = 0, wc0 = 0, wc1 = 0;
        Clock::time_point t0, t1, w0, w1;
        for (int half = 0; half < 2; ++half) {
            if ((half == 0) == (run % 2 == 0)) {
                i0 = cpuMs();
                t0 = Clock::now();
                SnapshotPtr snap = buildSnapshot(allocation);
                t1 = Clock::now();
                i1 = cpuMs();
            } else {
                wc0 = cpuMs();
                w0 = Clock::now();
                SnapshotPtr with = buildSnapshot(withNow);
                w1 = Clock::now();
                wc1 = cpuMs();
                if (const std::string problem = check(*with, ActivitySource::RayNodeSummary, "ingest with activity"); !problem.empty())
                    return fail(problem);
                if (const std::string problem = checkWindow(*with, "ingest with activity"); !problem.empty())
                    return fail(problem);
            }
        }

        ClusterSnapshot a = *base, p = *base, q = *base, r = *base, changed = *base; // copies made outside the timed regions
        const Capture bothNow = fresh(both), promNow = fresh(promOnly), summaryNow = fresh(summaryOnly), promAllNow = fresh(promAllLabels);
        const double cpu0 = cpuMs();
        const auto t2 = Clock::now();
        joinActivity(a, bothNow);
        const auto t3 = Clock::now();
        const double cpu1 = cpuMs();
        // The parses kept (the bodies are bothNow's, parsed above) but the allocation changed (a
        // placement group's id, which the join's memo keys on): the join made anew from them.
        if (!changed.placementGroups.isEmpty()) changed.placementGroups[0].id += QStringLiteral("-changed");
        const auto j0 = Clock::now();
        joinActivity(changed, bothNow);
        const auto j1 = Clock::now();
        if (const std::string problem = check(changed, ActivitySource::RayNodeSummary, "parses kept, allocation changed"); !problem.empty())
            return fail(problem);
        const auto t3b = Clock::now();
        joinActivity(p, promNow);
        const auto t4 = Clock::now();
        joinActivity(q, summaryNow);
        const auto t5 = Clock::now();
        joinActivity(r, promAllNow);
        const auto t6 = Clock::now();
        // One cycle of the live cadence: new bodies, then the same buffers four times.
        double cycleMs = 0;
        const Capture cycleBodies = fresh(both);
        for (int poll = 0; poll < kPollsPerRefresh; ++poll) {
            ClusterSnapshot s = *base;
            const auto c0 = Clock::now();
            joinActivity(s, cycleBodies);
            cycleMs += ms(Clock::now() - c0);
            if (const std::string problem = check(s, ActivitySource::RayNodeSummary, "per poll"); !problem.empty())
                return fail(problem);
        }
        for (const auto &[s, source, what] : {std::tuple{&a, ActivitySource::RayNodeSummary, "node summary + prometheus"},
                                              std::tuple{&p, ActivitySource::RayMetrics, "prometheus"},
                                              std::tuple{&q, ActivitySource::RayNodeSummary, "node summary"},
                                              std::tuple{&r, ActivitySource::RayMetrics, "prometheus, every label"}})
            if (const std::string problem = check(*s, source, what); !problem.empty())
                return fail(problem);
        for (const auto &[s, what] : {std::pair{&a, "node summary + prometheus"}, std::pair{&p, "prometheus"}})
            if (const std::string problem = checkWindow(*s, what); !problem.empty())
                return fail(problem);
        if (run < 0)
            continue;
        ingestMs.push_back(ms(t1 - t0));
        withMs.push_back(ms(w1 - w0));
        addedMs.push_back(withMs.back() - ingestMs.back());
        addedRatios.push_back(addedMs.back() / ingestMs.back());
        addedCpuMs.push_back((wc1 - wc0) - (i1 - i0));
        rejoinMs.push_back(ms(j1 - j0));
        activityMs.push_back(ms(t3 - t2));
        activityCpuMs.push_back(cpu1 - cpu0);
        promMs.push_back(ms(t4 - t3b));
        summaryMs.push_back(ms(t5 - t4));
        promAllMs.push_back(ms(t6 - t5));
        perPollMs.push_back(cycleMs / kPollsPerRefresh);
        perPollRatios.push_back(perPollMs.back() / ingestMs.back());
        ratios.push_back(activityMs.back() / ingestMs.back());
    }
    const Stats ingest = statsOf(ingestMs), activity = statsOf(activityMs), activityCpu = statsOf(activityCpuMs), prom = statsOf(promMs), summary = statsOf(summaryMs), promAll = statsOf(promAllMs),
                ratio = statsOf(ratios), withActivity = statsOf(withMs), added = statsOf(addedMs), addedCpu = statsOf(addedCpuMs), addedRatio = statsOf(addedRatios), rejoin = statsOf(rejoinMs), perPoll = statsOf(perPollMs), perPollRatio = statsOf(perPollRatios);
    if (json) {
        // activity_ms: what the new bodies add to the capture's ingest, the figure the target is
        // read on (issue 15: "ingest of activity ... with the 10k-node capture"); join_ms: the
        // join called alone on new bodies (what activity_ms measured before the parse moved beside
        // the allocation's read); per poll: over the live cadence.
        std::printf("{\"chips\": %d, \"nodes\": %d, \"series\": %d, \"runs\": %d, \"seed\": %u, "
                    "\"bytes_allocation\": %lld, \"bytes_node_summary\": %lld, \"bytes_prometheus\": %lld, \"bytes_prometheus_window\": %lld, "
                    "\"bytes_prometheus_every_label\": %lld, "
                    "\"ingest_ms_median\": %.3f, \"ingest_ms_min\": %.3f, \"ingest_ms_max\": %.3f, "
                    "\"ingest_with_activity_ms_median\": %.3f, "
                    "\"activity_ms_median\": %.3f, \"activity_ms_min\": %.3f, \"activity_ms_max\": %.3f, \"activity_cpu_ms_median\": %.3f, "
                    "\"ratio\": %.3f, \"ratio_min\": %.3f, \"ratio_max\": %.3f, \"target_ratio\": 0.25, "
                    "\"activity_ms_per_poll_median\": %.3f, \"ratio_per_poll\": %.3f, \"ratio_per_poll_max\": %.3f, "
                    "\"join_ms_median\": %.3f, \"join_ms_min\": %.3f, \"join_ms_max\": %.3f, \"join_cpu_ms_median\": %.3f, \"ratio_join\": %.3f, "
                    "\"rejoin_ms_median\": %.3f, "
                    "\"prometheus_ms_median\": %.3f, \"node_summary_ms_median\": %.3f, \"prometheus_every_label_ms_median\": %.3f, "
                    "\"activity_measures\": \"activity: buildSnapshot() of the capture with its node summary, ray_tpu_* answer and window answer all new, less buildSnapshot() of "
                    "the allocation alone, interleaved (wall time; activity_cpu_ms: the difference in the CPU time of both threads); per poll: the join's mean over one new capture and four "
                    "with the same bodies; join: joinActivity() alone on new bodies; rejoin: joinActivity() with the parses kept and the allocation changed\"}\n",
                    bodies.chips, expected.rayNodes, bodies.series, runs, unsigned(options.seed),
                    (long long)allocation.byteSize(), (long long)bodies.summary.size(), (long long)bodies.prometheus.size(), (long long)bodies.window.size(),
                    (long long)bodies.prometheusAllLabels.size(), ingest.median, ingest.min, ingest.max, withActivity.median,
                    added.median, added.min, added.max, addedCpu.median, addedRatio.median, addedRatio.min, addedRatio.max,
                    perPoll.median, perPollRatio.median, perPollRatio.max,
                    activity.median, activity.min, activity.max, activityCpu.median, ratio.median,
                    rejoin.median, prom.median, summary.median, promAll.median);
        return 0;
    }
    std::printf("activity: %d Ray nodes, %d chips reporting, %d Prometheus series; node summary %.2f MB, Prometheus %.2f MB + window %.2f MB "
                "(every label: %.2f MB), allocation %.2f MB\n",
                expected.rayNodes, bodies.chips, bodies.series, double(bodies.summary.size()) / 1e6, double(bodies.prometheus.size()) / 1e6,
                double(bodies.window.size()) / 1e6, double(bodies.prometheusAllLabels.size()) / 1e6, double(allocation.byteSize()) / 1e6);
    std::printf("%d interleaved runs\n\n%-40s %10s %10s %10s\n", runs, "", "median", "min", "max");
    std::printf("%-40s %10.2f %10.2f %10.2f\n", "buildSnapshot, allocation only (ms)", ingest.median, ingest.min, ingest.max);
    std::printf("%-40s %10.2f %10.2f %10.2f\n", "buildSnapshot, with new activity (ms)", withActivity.median, withActivity.min, withActivity.max);
    std::printf("%-40s %10.2f %10.2f %10.2f\n", "  added by the activity (ms)", added.median, added.min, added.max);
    std::printf("%-40s %10.2f %10.2f %10.2f\n", "  its CPU time, both threads (ms)", addedCpu.median, addedCpu.min, addedCpu.max);
    std::printf("%-40s %10.2f %10.2f %10.2f\n", "joinActivity alone, new bodies (ms)", activity.median, activity.min, activity.max);
    std::printf("%-40s %10.2f %10.2f %10.2f\n", "  its CPU time, both threads (ms)", activityCpu.median, activityCpu.min, activityCpu.max);
    std::printf("%-40s %10.2f %10.2f %10.2f\n", "joinActivity, prometheus only (ms)", prom.median, prom.min, prom.max);
    std::printf("%-40s %10.2f %10.2f %10.2f\n", "joinActivity, node summary only (ms)", summary.median, summary.min, summary.max);
    std::printf("%-40s %10.2f %10.2f %10.2f\n", "joinActivity, prometheus every label (ms)", promAll.median, promAll.min, promAll.max);
    std::printf("%-40s %10.2f %10.2f %10.2f\n", "joinActivity per poll, 1 in 5 new (ms)", perPoll.median, perPoll.min, perPoll.max);
    std::printf("%-40s %10.2f %10.2f %10.2f\n", "joinActivity, parses kept, new shape (ms)", rejoin.median, rejoin.min, rejoin.max);
    std::printf("%-40s %10.3f %10.3f %10.3f   (target <= 0.25)\n", "ratio added by new activity / ingest", addedRatio.median, addedRatio.min, addedRatio.max);
    std::printf("%-40s %10.3f %10.3f %10.3f   (target <= 0.25)\n", "ratio activity per poll / ingest", perPollRatio.median, perPollRatio.min, perPollRatio.max);
    std::printf("%-40s %10.3f %10.3f %10.3f\n", "ratio join alone (new bodies) / ingest", ratio.median, ratio.min, ratio.max);
    return 0;
}

} // namespace slicescope::bench
