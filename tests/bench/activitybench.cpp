// SPDX-License-Identifier: GPL-3.0-or-later
// `slicescope-bench activity`: the cost of chip activity (issue 15) next to the allocation ingest
// it rides on. The 10k-node generated capture gets what a live source would add: Ray's node
// summary (GET /nodes?view=summary, every Ray node listed, `tpus` per chip of each live TPU host)
// and a Prometheus answer to promql::kRayTpu (5 ray_tpu_* series per chip, labelled as Ray's
// reporter agent tags them and Prometheus 2.42 returns them). Measured side by side in each run:
//  - ingest: buildSnapshot() of the allocation capture (no activity body);
//  - activity: joinActivity() alone, both bodies, on a copy of that snapshot (the copy is made
//    outside the timed region); the figure buildSnapshot() adds for activity;
//  - prometheus / summary: joinActivity() with only that body.
// The target (issue 15): activity <= 25 % of the ingest.
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
    QByteArray summary, prometheus;
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
    QByteArray &prom = b.prometheus;
    sum.reserve(qsizetype(s.rayNodes.size()) * 1500);
    prom.reserve(qsizetype(s.rayNodes.size()) * 4 * 5 * 420);
    sum.append(R"({"result": true, "msg": "Node summary fetched.", "data": {"summary": [)");
    prom.append(R"({"status":"success","data":{"resultType":"vector","result":[)");
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
                for (const auto &[metric, value] : metrics) {
                    if (!firstSeries) prom.append(',');
                    firstSeries = false;
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
    prom.append("]}}");
    reserveParsePadding(b.summary);
    reserveParsePadding(b.prometheus);
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

    Capture both = allocation, promOnly = allocation, summaryOnly = allocation;
    both.rayNodeSummary = summaryOnly.rayNodeSummary = bodies.summary;
    both.prometheusUrl = promOnly.prometheusUrl = QStringLiteral("http://127.0.0.1:9090");
    both.prometheus = promOnly.prometheus = {Capture::PrometheusAnswer{QString::fromLatin1(promql::kRayTpu), bodies.prometheus}};

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

    using Clock = std::chrono::steady_clock;
    auto ms = [](Clock::duration d) {
        return std::chrono::duration<double, std::milli>(d).count();
    };
    std::vector<double> ingestMs, activityMs, promMs, summaryMs, ratios;
    for (int run = -1; run < runs; ++run) { // one untimed round first: the parsers size their buffers
        const auto t0 = Clock::now();
        SnapshotPtr snap = buildSnapshot(allocation);
        const auto t1 = Clock::now();
        snap.reset();

        ClusterSnapshot a = *base, p = *base, q = *base; // copies made outside the timed regions
        const auto t2 = Clock::now();
        joinActivity(a, both);
        const auto t3 = Clock::now();
        joinActivity(p, promOnly);
        const auto t4 = Clock::now();
        joinActivity(q, summaryOnly);
        const auto t5 = Clock::now();
        for (const auto &[s, source, what] : {std::tuple{&a, ActivitySource::RayNodeSummary, "node summary + prometheus"},
                                              std::tuple{&p, ActivitySource::RayMetrics, "prometheus"},
                                              std::tuple{&q, ActivitySource::RayNodeSummary, "node summary"}})
            if (const std::string problem = check(*s, source, what); !problem.empty())
                return fail(problem);
        if (run < 0)
            continue;
        ingestMs.push_back(ms(t1 - t0));
        activityMs.push_back(ms(t3 - t2));
        promMs.push_back(ms(t4 - t3));
        summaryMs.push_back(ms(t5 - t4));
        ratios.push_back(activityMs.back() / ingestMs.back());
    }
    const Stats ingest = statsOf(ingestMs), activity = statsOf(activityMs), prom = statsOf(promMs), summary = statsOf(summaryMs), ratio = statsOf(ratios);
    if (json) {
        std::printf("{\"chips\": %d, \"nodes\": %d, \"series\": %d, \"runs\": %d, \"seed\": %u, "
                    "\"bytes_allocation\": %lld, \"bytes_node_summary\": %lld, \"bytes_prometheus\": %lld, "
                    "\"activity_ms_median\": %.3f, \"activity_ms_min\": %.3f, \"activity_ms_max\": %.3f, "
                    "\"ingest_ms_median\": %.3f, \"ingest_ms_min\": %.3f, \"ingest_ms_max\": %.3f, "
                    "\"ratio\": %.3f, \"ratio_min\": %.3f, \"ratio_max\": %.3f, \"target_ratio\": 0.25, "
                    "\"prometheus_ms_median\": %.3f, \"node_summary_ms_median\": %.3f, "
                    "\"activity_measures\": \"joinActivity() alone on a copy of the allocation snapshot, node summary + ray_tpu_* answer\"}\n",
                    bodies.chips, expected.rayNodes, bodies.series, runs, unsigned(options.seed),
                    (long long)allocation.byteSize(), (long long)bodies.summary.size(), (long long)bodies.prometheus.size(),
                    activity.median, activity.min, activity.max, ingest.median, ingest.min, ingest.max,
                    ratio.median, ratio.min, ratio.max, prom.median, summary.median);
        return 0;
    }
    std::printf("activity: %d Ray nodes, %d chips reporting, %d Prometheus series; node summary %.2f MB, Prometheus %.2f MB, allocation %.2f MB\n",
                expected.rayNodes, bodies.chips, bodies.series, double(bodies.summary.size()) / 1e6, double(bodies.prometheus.size()) / 1e6,
                double(allocation.byteSize()) / 1e6);
    std::printf("%d interleaved runs\n\n%-40s %10s %10s %10s\n", runs, "", "median", "min", "max");
    std::printf("%-40s %10.2f %10.2f %10.2f\n", "buildSnapshot, allocation only (ms)", ingest.median, ingest.min, ingest.max);
    std::printf("%-40s %10.2f %10.2f %10.2f\n", "joinActivity, summary + prometheus (ms)", activity.median, activity.min, activity.max);
    std::printf("%-40s %10.2f %10.2f %10.2f\n", "joinActivity, prometheus only (ms)", prom.median, prom.min, prom.max);
    std::printf("%-40s %10.2f %10.2f %10.2f\n", "joinActivity, node summary only (ms)", summary.median, summary.min, summary.max);
    std::printf("%-40s %10.3f %10.3f %10.3f   (target <= 0.25)\n", "ratio activity / ingest", ratio.median, ratio.min, ratio.max);
    return 0;
}

} // namespace slicescope::bench
