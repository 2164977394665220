// SPDX-License-Identifier: GPL-3.0-or-later
// `slicescope-bench alerts`: what AlertEngine::observe() costs per snapshot of the generated
// 10k-node cluster (issue 15: alert evaluation over an hour's history). A ClusterSimulation moves
// on 2 s per step (~1 % of nodes and groups changing), each capture is built into a snapshot and
// given a table in which every chip of an alive host reports (reserved chips of every fifth slice
// at 1 %, the rest busy, 2 % unknown), and only observe() is timed. The snapshots are built here
// once each, as the window's live path builds them; evaluate(history) would add the history's
// rebuild of each entry (history.h: 10-20 ms) on top of the figures printed.

#include "benchstats.h"
#include "historybench.h"

#include "alerts.h"
#include "clustergenerator.h"
#include "snapshot.h"

#include <charconv>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <time.h>

namespace slicescope::bench {

namespace {

// This thread's CPU time in ms: on a shared machine the wall clock also counts others' work.
double threadCpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1000 + double(ts.tv_nsec) / 1e6;
}

std::shared_ptr<const ActivityTable> scriptedActivity(const ClusterSnapshot &s)
{
    ActivityTableBuilder b(s);
    const qint64 at = s.capturedAt.toMSecsSinceEpoch();
    quint32 n = 0;
    for (int si = 0; si < s.slices.size(); ++si) {
        const Slice &slice = s.slices[si];
        for (int hi = 0; hi < slice.hosts.size(); ++hi) {
            if (slice.hosts[hi].state != HostState::Alive) continue;
            for (int c = 0; c < slice.hosts[hi].chips.size(); ++c) {
                ChipActivity *a = b.chip(si, hi, c);
                if (!a || (++n % 50) == 0) continue; // 2 % unknown
                const bool idle = si % 5 == 0 && slice.hosts[hi].chips[c].placementGroup >= 0;
                a->dutyCycle = idle ? 1.0f : 40.0f + float((n * 7) % 50);
                a->tensorcoreUtilization = a->dutyCycle / 2;
                a->hbmUsedBytes = 8e9;
                a->hbmTotalBytes = 3.2e10;
                a->source = ActivitySource::RayNodeSummary;
                a->sampledAtMs = at;
            }
        }
    }
    return b.finish();
}

} // namespace

int runAlertsBenchmark(int argc, char **argv, int first, const std::function<int(const std::string &)> &usageError)
{
    GeneratorOptions options;
    int steps = 1800;
    bool json = false;
    for (int i = first; i < argc; ++i) {
        const std::string_view a = argv[i];
        auto intArg = [&](int &out, int lo, int hi) {
            if (i + 1 >= argc) return false;
            const std::string_view v = argv[++i];
            const auto r = std::from_chars(v.data(), v.data() + v.size(), out);
            return r.ec == std::errc() && r.ptr == v.data() + v.size() && out >= lo && out <= hi;
        };
        if (a == "--json") json = true;
        else if (a == "--nodes") {
            if (!intArg(options.nodes, 1, 1000000)) return usageError("--nodes wants a count from 1 to 1000000");
        } else if (a == "--placement-groups") {
            if (!intArg(options.placementGroups, 0, 1000000)) return usageError("--placement-groups wants a count from 0 to 1000000");
        } else if (a == "--steps") {
            if (!intArg(steps, 1, 100000)) return usageError("--steps wants a count from 1 to 100000");
        } else {
            return usageError("alerts: unknown option " + std::string(a));
        }
    }
    ClusterSimulation sim(options);
    AlertEngine engine;
    std::vector<double> observeMs, observeCpuMs;
    observeMs.reserve(size_t(steps));
    observeCpuMs.reserve(size_t(steps));
    int chips = 0;
    double buildMsTotal = 0;
    for (int i = 0; i < steps; ++i) {
        if (i > 0) sim.step(0.01, 2000);
        const auto b0 = std::chrono::steady_clock::now();
        auto snap = std::make_shared<ClusterSnapshot>(*buildSnapshot(sim.capture()));
        snap->activity = scriptedActivity(*snap);
        buildMsTotal += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - b0).count();
        chips = snap->activity->chipCount();
        const auto t0 = std::chrono::steady_clock::now();
        const double c0 = threadCpuMs();
        engine.observe(*snap);
        observeCpuMs.push_back(threadCpuMs() - c0);
        observeMs.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    double total = 0;
    for (double v : observeMs)
        total += v;
    const Stats s = statsOf(observeMs);
    const Stats cpu = statsOf(observeCpuMs);
    int idle = 0;
    for (const QList<IdleChip> &l : engine.idleChips())
        idle += int(l.size());
    if (json)
        std::printf("{\"nodes\": %d, \"chips\": %d, \"snapshots\": %d, \"observe_ms_median\": %.3f, \"observe_ms_p90\": %.3f, \"observe_ms_max\": %.3f, "
                    "\"observe_ms_total\": %.1f, \"observe_cpu_ms_median\": %.3f, \"observe_cpu_ms_p90\": %.3f, \"observe_cpu_ms_max\": %.3f, "
                    "\"build_ms_mean\": %.1f, \"alerts\": %d, \"idle_chips\": %d, \"engine_bytes\": %lld}\n",
                    options.nodes, chips, steps, s.median, s.p90, s.max, total, cpu.median, cpu.p90, cpu.max, buildMsTotal / steps, int(engine.alerts().size()), idle, static_cast<long long>(engine.bytes()));
    else
        std::printf("alerts: %d chips, %d snapshots: observe() median %.3f ms (CPU %.3f ms), p90 %.3f ms (CPU %.3f ms), max %.3f ms, total %.1f ms; "
                    "%d alerts listed, %d idle chips, engine %lld bytes\n",
                    chips, steps, s.median, cpu.median, s.p90, cpu.p90, s.max, total, int(engine.alerts().size()), idle, static_cast<long long>(engine.bytes()));
    return 0;
}

} // namespace slicescope::bench
