// SPDX-License-Identifier: GPL-3.0-or-later
// slicescope-bench scrub: what the timeline's scrubber costs on a large cluster (ISSUE 6: "scrubbing
// to any point renders in under 50 ms"). A history of generated 10k-node, 10k-group snapshots is
// filled; then the window's workspace (1280x800, offscreen) is scrubbed to random entries on each
// of its pages, timing the whole path the window takes: SnapshotHistory::snapshot(i) (rebuilding
// the entry from keyframe + deltas), Workspace::setSnapshot() and painting the page (grab()).
// Side by side, in the same run: the same entry built again from its capture (what a history of
// raw captures would pay instead of rebuilding).

#include "historybench.h"

#include "benchstats.h"

#include "clustergenerator.h"
#include "history.h"
#include "look.h"
#include "snapshot.h"
#include "workspace.h"

#include <QApplication>
#include <QPixmap>
#include <QRandomGenerator>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <vector>

namespace slicescope::bench {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

} // namespace

int runScrubBenchmark(int argc, char **argv, int first, const std::function<int(const std::string &)> &usageError)
{
    GeneratorOptions generator;
    int snapshots = 120, scrubs = 24;
    bool json = false;
    for (int i = first; i < argc; ++i) {
        const std::string option = argv[i];
        auto value = [&](int lo, int hi, int &out) {
            if (i + 1 >= argc)
                return false;
            char *end = nullptr;
            const long v = std::strtol(argv[++i], &end, 10);
            if (*end || v < lo || v > hi)
                return false;
            out = int(v);
            return true;
        };
        bool ok = true;
        if (option == "--json") json = true;
        else if (option == "--nodes") ok = value(1, 1000000, generator.nodes);
        else if (option == "--placement-groups") ok = value(0, 1000000, generator.placementGroups);
        else if (option == "--snapshots") ok = value(2, 100000, snapshots);
        else if (option == "--scrubs") ok = value(1, 10000, scrubs);
        else return usageError("unknown option for scrub: " + option);
        if (!ok)
            return usageError("bad value for " + option);
    }

    pinRenderingEnvironment(true);
    int qargc = 1;
    char *qargv[] = {argv[0], nullptr};
    QApplication app(qargc, qargv);
    applyLook(app, Theme::light());

    // The history, and the captures of the entries that will be scrubbed to (for the side-by-side
    // rebuild from a capture; only those few are kept).
    QRandomGenerator rng(7);
    std::vector<int> targets;
    for (int i = 0; i < scrubs; ++i)
        targets.push_back(int(rng.bounded(snapshots)));
    std::map<int, Capture> captures;
    for (int t : targets)
        captures.emplace(t, Capture());

    ClusterSimulation sim(generator);
    HistoryPolicy policy;
    policy.maxAgeSeconds = 365 * 24 * 3600;
    SnapshotHistory history(policy);
    for (int i = 0; i < snapshots; ++i) {
        if (i > 0)
            sim.step(0.01, 2000);
        Capture capture = sim.capture();
        history.add(buildSnapshot(capture));
        if (auto it = captures.find(i); it != captures.end())
            it->second = std::move(capture);
    }

    Workspace workspace;
    workspace.setAttribute(Qt::WA_DontShowOnScreen);
    workspace.resize(1280, 800);
    workspace.show();
    workspace.setSnapshot(history.snapshot(history.size() - 1));
    (void)workspace.grab();
    QCoreApplication::processEvents();

    struct PageResult {
        const char *name;
        std::vector<double> total, rebuild, set, paint, fromCapture;
    };
    std::vector<PageResult> pages = {{"overview", {}, {}, {}, {}, {}}, {"slice", {}, {}, {}, {}, {}}, {"tables", {}, {}, {}, {}, {}}};
    const Workspace::Page pageOf[] = {Workspace::Page::Overview, Workspace::Page::Slice, Workspace::Page::Tables};
    for (size_t p = 0; p < pages.size(); ++p) {
        workspace.showPage(pageOf[p]);
        (void)workspace.grab();
        QCoreApplication::processEvents();
        for (int target : targets) {
            const auto t0 = Clock::now();
            const SnapshotPtr snap = history.snapshot(target);
            const double rebuild = msSince(t0);
            const auto t1 = Clock::now();
            workspace.setSnapshot(snap);
            const double set = msSince(t1);
            const auto t2 = Clock::now();
            const QPixmap frame = workspace.grab();
            const double paint = msSince(t2);
            pages[p].rebuild.push_back(rebuild);
            pages[p].set.push_back(set);
            pages[p].paint.push_back(paint);
            pages[p].total.push_back(rebuild + set + paint);
            if (frame.isNull() || snap->slices.isEmpty()) {
                std::fprintf(stderr, "slicescope-bench scrub: entry %d did not render\n", target);
                return 1;
            }
            // Side by side: the same entry parsed again from its capture.
            const auto t3 = Clock::now();
            const SnapshotPtr parsed = buildSnapshot(captures.at(target));
            pages[p].fromCapture.push_back(msSince(t3));
            if (parsed->slices.size() != snap->slices.size() || parsed->placementGroups.size() != snap->placementGroups.size()) {
                std::fprintf(stderr, "slicescope-bench scrub: entry %d was not rebuilt as it was added\n", target);
                return 1;
            }
        }
    }

    const SnapshotPtr last = history.snapshot(history.size() - 1);
    if (json) {
        std::printf("{\"snapshots\": %d, \"scrubs_per_page\": %d, \"ray_nodes\": %lld, \"slices\": %lld, \"placement_groups\": %lld, \"pages\": {",
                    history.size(), scrubs, (long long)last->rayNodes.size(), (long long)last->slices.size(), (long long)last->placementGroups.size());
        for (size_t p = 0; p < pages.size(); ++p) {
            const Stats t = statsOf(pages[p].total), r = statsOf(pages[p].rebuild), s = statsOf(pages[p].set),
                        d = statsOf(pages[p].paint), c = statsOf(pages[p].fromCapture);
            std::printf("%s\"%s\": {\"scrub_ms_median\": %.2f, \"scrub_ms_p90\": %.2f, \"scrub_ms_max\": %.2f, "
                        "\"rebuild_ms_median\": %.2f, \"set_snapshot_ms_median\": %.2f, \"paint_ms_median\": %.2f, "
                        "\"from_capture_ms_median\": %.2f, \"rebuild_speedup\": %.2f}",
                        p ? ", " : "", pages[p].name, t.median, t.p90, t.max, r.median, s.median, d.median, c.median,
                        r.median > 0 ? c.median / r.median : 0.0);
        }
        std::printf("}}\n");
        return 0;
    }
    std::printf("scrub: %d snapshots of %lld Ray nodes, %lld slices, %lld placement groups; the workspace at 1280x800,\n"
                "%d scrubs per page to random entries (rebuild from the history + setSnapshot + paint)\n\n",
                history.size(), (long long)last->rayNodes.size(), (long long)last->slices.size(), (long long)last->placementGroups.size(), scrubs);
    std::printf("%-9s %26s %10s %12s %8s %16s %9s\n", "page", "scrub ms (med/p90/max)", "rebuild", "setSnapshot", "paint", "from capture", "speedup");
    for (const PageResult &r : pages) {
        const Stats t = statsOf(r.total), rb = statsOf(r.rebuild), c = statsOf(r.fromCapture);
        std::printf("%-9s %10.2f %7.2f %7.2f %10.2f %12.2f %8.2f %16.2f %8.1fx\n", r.name, t.median, t.p90, t.max, rb.median,
                    statsOf(r.set).median, statsOf(r.paint).median, c.median, rb.median > 0 ? c.median / rb.median : 0.0);
    }
    return 0;
}

} // namespace slicescope::bench
