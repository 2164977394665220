// SPDX-License-Identifier: GPL-3.0-or-later
// slicescope-bench: figures, not pass/fail (TESTING.md, "Benchmarks"). These machines are shared
// and noisy, so every figure is a ratio measured side by side in one run, interleaved, against a
// baseline doing the same irreducible work, plus the absolute times.
//
//   slicescope-bench ingest [--nodes N] [--placement-groups N] [--runs R] [--seed S] [--kubernetes] [--json]

#include "clustergenerator.h"
#include "snapshot.h"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <chrono>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#define SLICESCOPE_STR2(x) #x
#define SLICESCOPE_STR(x) SLICESCOPE_STR2(x)
// The on-demand kernel this binary was compiled with (fallback = scalar; see the root CMakeLists).
static const char *const kSimdjsonKernel = SLICESCOPE_STR(SIMDJSON_BUILTIN_IMPLEMENTATION);

namespace {

using namespace slicescope;
namespace od = simdjson::ondemand;

// ---- Baseline: a raw simdjson on-demand walk -----------------------------------------------
//
// Reads exactly what buildSnapshot() reads from the same bodies, the same way (unescaped keys,
// the same key comparisons, get_string/get_double/get_int64/get_bool after a type check, strings
// of digits converted), but builds nothing: no QString, no lists, no join. Whatever the ingest
// spends above this is the cost of our own code. Keep it in step with model/snapshotbuilder.cpp.

struct WalkTotals {
    qint64 items = 0;        // list entries visited (nodes, groups, pods)
    qint64 bundles = 0;
    qint64 stringBytes = 0;  // sums so the compiler cannot drop the reads
    double numbers = 0;
    qint64 flags = 0;
};

template<typename T>
T must(simdjson::simdjson_result<T> &&result)
{
    T value;
    if (const auto err = std::move(result).get(value); err != simdjson::SUCCESS)
        throw simdjson::simdjson_error(err);
    return value;
}

od::json_type typeOf(od::value &v)
{
    od::json_type t;
    return v.type().get(t) == simdjson::SUCCESS ? t : od::json_type::null;
}

class Walker
{
public:
    explicit Walker(WalkTotals &t) : m_t(t) {}

    // The same tolerant reads as model/jsonread_p.h, minus the QString.
    void text(od::value v)
    {
        switch (typeOf(v)) {
        case od::json_type::string: m_t.stringBytes += qint64(must(v.get_string()).size()); break;
        case od::json_type::number:
        case od::json_type::boolean: m_t.stringBytes += qint64(v.raw_json_token().size()); break;
        default: break;
        }
    }
    void number(od::value v)
    {
        switch (typeOf(v)) {
        case od::json_type::number: m_t.numbers += must(v.get_double()); break;
        case od::json_type::string: {
            const std::string_view s = must(v.get_string());
            double d = 0;
            std::from_chars(s.data(), s.data() + s.size(), d);
            m_t.numbers += d;
            break;
        }
        default: break;
        }
    }
    void integer(od::value v)
    {
        switch (typeOf(v)) {
        case od::json_type::number: m_t.numbers += double(must(v.get_int64())); break;
        case od::json_type::string: {
            const std::string_view s = must(v.get_string());
            long long i = 0;
            std::from_chars(s.data(), s.data() + s.size(), i);
            m_t.numbers += double(i);
            break;
        }
        default: break;
        }
    }
    void boolean(od::value v)
    {
        switch (typeOf(v)) {
        case od::json_type::boolean: m_t.flags += must(v.get_bool()); break;
        case od::json_type::string: m_t.flags += must(v.get_string()) == "true"; break;
        default: break;
        }
    }

    template<typename F>
    void members(od::value v, F &&f)
    {
        if (typeOf(v) != od::json_type::object)
            return;
        for (auto member : must(v.get_object())) {
            od::field field = must(std::move(member));
            const std::string_view key = must(field.unescaped_key());
            f(key, field.value());
        }
    }
    template<typename F>
    void elements(od::value v, F &&f)
    {
        if (typeOf(v) != od::json_type::array)
            return;
        for (auto element : must(v.get_array()))
            f(must(std::move(element)));
    }

    static bool isHeadResource(std::string_view r)
    {
        return r.size() > 9 && r.substr(0, 4) == "TPU-" && r.substr(r.size() - 5) == "-head";
    }

    // {"result", "msg", "data": {"result": {"total", "num_filtered", "partial_failure_warning", "result": [...]}}}
    template<typename F>
    void stateList(od::value root, F &&item)
    {
        members(root, [&](std::string_view key, od::value v) {
            if (key == "result") boolean(v);
            else if (key == "msg") text(v);
            else if (key == "data")
                members(v, [&](std::string_view k2, od::value inner) {
                    if (k2 != "result")
                        return;
                    members(inner, [&](std::string_view k3, od::value list) {
                        if (k3 == "total" || k3 == "num_filtered") integer(list);
                        else if (k3 == "partial_failure_warning") text(list);
                        else if (k3 == "result")
                            elements(list, [&](od::value element) {
                                if (typeOf(element) != od::json_type::object)
                                    return;
                                ++m_t.items;
                                item(element);
                            });
                    });
                });
        });
    }

    void rayNode(od::value node)
    {
        members(node, [&](std::string_view key, od::value v) {
            if (key == "node_id" || key == "node_ip" || key == "node_name" || key == "state_message") text(v);
            else if (key == "is_head_node") boolean(v);
            else if (key == "state") {
                std::string_view s;
                m_t.flags += v.get_string().get(s) == simdjson::SUCCESS && s == "ALIVE";
            }
            else if (key == "start_time_ms" || key == "end_time_ms") integer(v);
            else if (key == "resources_total")
                members(v, [&](std::string_view r, od::value amount) {
                    if (r == "TPU" || r == "CPU" || isHeadResource(r))
                        number(amount);
                });
            else if (key == "labels")
                members(v, [&](std::string_view l, od::value value) {
                    if (l.size() < 7 || l.substr(0, 7) != "ray.io/")
                        return;
                    if (l == "ray.io/tpu-worker-id") integer(value);
                    else if (l == "ray.io/tpu-slice-name" || l == "ray.io/tpu-pod-type" || l == "ray.io/tpu-topology"
                             || l == "ray.io/accelerator-type" || l == "ray.io/node-group")
                        text(value);
                });
        });
    }

    void bundle(od::value b)
    {
        ++m_t.bundles;
        members(b, [&](std::string_view key, od::value v) {
            if (key == "bundle_id")
                members(v, [&](std::string_view k, od::value x) {
                    if (k == "bundle_index") integer(x);
                });
            else if (key == "node_id") text(v);
            else if (key == "unit_resources")
                members(v, [&](std::string_view r, od::value amount) {
                    if (r == "TPU" || r == "CPU") number(amount);
                    else if (isHeadResource(r)) m_t.stringBytes += qint64(r.size());
                });
            else if (key == "label_selector")
                members(v, [&](std::string_view l, od::value sel) {
                    if (l == "ray.io/tpu-slice-name") text(sel);
                });
        });
    }

    void placementGroup(od::value g)
    {
        members(g, [&](std::string_view key, od::value v) {
            if (key == "placement_group_id" || key == "name" || key == "creator_job_id" || key == "state") text(v);
            else if (key == "is_detached") boolean(v);
            else if (key == "stats")
                members(v, [&](std::string_view k, od::value x) {
                    if (k == "scheduling_state") text(x);
                });
            else if (key == "bundles")
                elements(v, [&](od::value element) {
                    if (typeOf(element) == od::json_type::object)
                        bundle(element);
                });
        });
    }

    // {"kind", "status", "message", "metadata": {"continue"}, "items": [...]}
    void podList(od::value root)
    {
        members(root, [&](std::string_view key, od::value v) {
            if (key == "kind" || key == "status" || key == "message") text(v);
            else if (key == "metadata")
                members(v, [&](std::string_view k, od::value x) {
                    if (k == "continue") text(x);
                });
            else if (key == "items")
                elements(v, [&](od::value element) {
                    if (typeOf(element) != od::json_type::object)
                        return;
                    ++m_t.items;
                    pod(element);
                });
        });
    }

    void pod(od::value p)
    {
        members(p, [&](std::string_view key, od::value v) {
            if (key == "metadata")
                members(v, [&](std::string_view k, od::value x) {
                    if (k == "name" || k == "namespace") text(x);
                    else if (k == "deletionTimestamp") m_t.flags += typeOf(x) == od::json_type::string;
                    else if (k == "labels")
                        members(x, [&](std::string_view l, od::value lv) {
                            if (l == "ray.io/cluster" || l == "ray.io/group" || l == "ray.io/node-type"
                                || l == "ray.io/worker-group-replica-name" || l == "ray.io/worker-group-replica-index"
                                || l == "replicaIndex" || l == "ray.io/replica-host-index")
                                text(lv);
                        });
                });
            else if (key == "spec")
                members(v, [&](std::string_view k, od::value x) {
                    if (k == "nodeName") text(x);
                    else if (k == "nodeSelector")
                        members(x, [&](std::string_view s, od::value sv) {
                            if (s == "cloud.google.com/gke-tpu-accelerator" || s == "cloud.google.com/gke-tpu-topology")
                                text(sv);
                        });
                    else if (k == "containers")
                        elements(x, [&](od::value c) {
                            members(c, [&](std::string_view ck, od::value cv) {
                                if (ck == "resources")
                                    members(cv, [&](std::string_view, od::value list) {
                                        members(list, [&](std::string_view r, od::value q) {
                                            if (r == "google.com/tpu") number(q);
                                        });
                                    });
                                else if (ck == "env")
                                    elements(cv, [&](od::value e) {
                                        members(e, [&](std::string_view ek, od::value ev) {
                                            if (ek == "name" || ek == "value") text(ev);
                                        });
                                    });
                            });
                        });
                });
            else if (key == "status")
                members(v, [&](std::string_view k, od::value x) {
                    if (k == "phase" || k == "podIP") text(x);
                    else if (k == "conditions")
                        elements(x, [&](od::value c) {
                            members(c, [&](std::string_view ck, od::value cv) {
                                if (ck == "type" || ck == "status") text(cv);
                            });
                        });
                });
        });
    }

private:
    WalkTotals &m_t;
};

// One reused parser, as the ingest reuses its own; the bodies already carry the padding.
WalkTotals simdjsonWalk(od::parser &parser, const Capture &capture)
{
    WalkTotals totals;
    Walker walker(totals);
    auto walkBody = [&](const QByteArray &body, const std::function<void(od::value)> &walk) {
        if (body.isEmpty())
            return;
        const simdjson::padded_string_view view(body.constData(), size_t(body.size()), size_t(body.capacity()));
        od::document doc = must(parser.iterate(view));
        walk(must(doc.get_value()));
    };
    walkBody(capture.rayVersion, [&](od::value root) {
        walker.members(root, [&](std::string_view k, od::value v) {
            if (k == "ray_version") walker.text(v);
        });
    });
    walkBody(capture.rayNodes, [&](od::value root) { walker.stateList(root, [&](od::value n) { walker.rayNode(n); }); });
    walkBody(capture.rayPlacementGroups, [&](od::value root) {
        walker.stateList(root, [&](od::value g) { walker.placementGroup(g); });
    });
    walkBody(capture.kubePods, [&](od::value root) { walker.podList(root); });
    return totals;
}

// ---- Command line -----------------------------------------------------------------------------

constexpr const char *kUsage =
    "usage: slicescope-bench ingest [--nodes N] [--placement-groups N] [--runs R] [--seed S] [--kubernetes] [--json]\n"
    "\n"
    "  ingest   time buildSnapshot() against a raw simdjson walk of the same generated bodies\n";

int usageError(const std::string &message)
{
    std::fprintf(stderr, "slicescope-bench: %s\n%s", message.c_str(), kUsage);
    return 2;
}

struct Stats {
    double median = 0, min = 0, max = 0;
};

Stats statsOf(std::vector<double> v)
{
    Stats s;
    if (v.empty())
        return s;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    s.min = v.front();
    s.max = v.back();
    return s;
}

// Parses "--name N" / "--name=N" options; returns false (with a message) on bad input.
class Args
{
public:
    Args(int argc, char **argv, int first) : m_args(argv + first, argv + argc) {}

    bool next(std::string &option)
    {
        if (m_pos >= m_args.size())
            return false;
        option = m_args[m_pos++];
        m_inline.reset();
        if (const auto eq = option.find('='); option.starts_with("--") && eq != std::string::npos) {
            m_inline = option.substr(eq + 1);
            option.resize(eq);
        }
        return true;
    }
    bool intValue(const std::string &option, int min, int max, int &out, std::string &error)
    {
        std::string text;
        if (m_inline) {
            text = *m_inline;
        } else if (m_pos < m_args.size()) {
            text = m_args[m_pos++];
        } else {
            error = option + " needs a value";
            return false;
        }
        long long value = 0;
        const auto res = std::from_chars(text.data(), text.data() + text.size(), value);
        if (res.ec != std::errc() || res.ptr != text.data() + text.size() || value < min || value > max) {
            error = option + " wants a whole number from " + std::to_string(min) + " to " + std::to_string(max) + ", not '" + text + "'";
            return false;
        }
        out = int(value);
        return true;
    }
    bool hasInlineValue() const { return m_inline.has_value(); }

private:
    std::vector<std::string> m_args;
    size_t m_pos = 0;
    std::optional<std::string> m_inline;
};

int runIngest(int argc, char **argv)
{
    bench::GeneratorOptions options;
    int runs = 15;
    bool json = false;
    Args args(argc, argv, 2);
    std::string option, error;
    while (args.next(option)) {
        int seed = 0;
        bool ok = true;
        if (option == "--nodes") ok = args.intValue(option, 0, 1000000, options.nodes, error);
        else if (option == "--placement-groups") ok = args.intValue(option, 0, 1000000, options.placementGroups, error);
        else if (option == "--runs") ok = args.intValue(option, 1, 100000, runs, error);
        else if (option == "--seed") { ok = args.intValue(option, 0, INT_MAX, seed, error); options.seed = quint32(seed); }
        else if (option == "--kubernetes" && !args.hasInlineValue()) options.kubernetes = true;
        else if (option == "--json" && !args.hasInlineValue()) json = true;
        else return usageError("unknown option for ingest: " + option);
        if (!ok)
            return usageError(error);
    }

    bench::GeneratedCounts expected;
    const Capture capture = bench::generateCluster(options, &expected);
    const qint64 expectedLive = expected.placementGroups - expected.removedPlacementGroups;

    // A broken ingest must not produce pretty numbers: check every snapshot against what the
    // generator put in, and the walk against the same counts.
    auto checkSnapshot = [&](const ClusterSnapshot &s) -> std::string {
        if (!s.errors.isEmpty())
            return "the ingest reported errors: " + s.errors.join(QStringLiteral("; ")).toStdString();
        if (s.rayNodes.size() != expected.rayNodes)
            return "the ingest found " + std::to_string(s.rayNodes.size()) + " Ray nodes, expected " + std::to_string(expected.rayNodes);
        if (s.slices.size() != expected.slices)
            return "the ingest found " + std::to_string(s.slices.size()) + " slices, expected " + std::to_string(expected.slices);
        if (s.placementGroups.size() != expectedLive)
            return "the ingest kept " + std::to_string(s.placementGroups.size()) + " placement groups, expected "
                 + std::to_string(expectedLive) + " (REMOVED ones dropped)";
        if (s.pods.size() != expected.pods)
            return "the ingest found " + std::to_string(s.pods.size()) + " pods, expected " + std::to_string(expected.pods);
        int heads = 0, sliceGroups = 0, reserved = 0;
        for (const PlacementGroup &g : s.placementGroups) {
            heads += g.kind == PlacementGroup::Kind::SliceHead;
            sliceGroups += g.kind == PlacementGroup::Kind::Slice;
        }
        for (const Slice &slice : s.slices)
            reserved += slice.reservedChips;
        if (heads != expected.sliceHeadGroups || sliceGroups != expected.sliceGroups)
            return "the ingest classified " + std::to_string(heads) + " slice-head and " + std::to_string(sliceGroups)
                 + " slice placement groups, expected " + std::to_string(expected.sliceHeadGroups) + " and "
                 + std::to_string(expected.sliceGroups);
        if (reserved != expected.reservedChips)
            return "the ingest placed bundles on " + std::to_string(reserved) + " chips, expected " + std::to_string(expected.reservedChips);
        return {};
    };
    auto checkWalk = [&](const WalkTotals &t) -> std::string {
        const qint64 items = qint64(expected.rayNodes) + expected.placementGroups + expected.pods;
        if (t.items != items || t.bundles != expected.bundles)
            return "the simdjson walk visited " + std::to_string(t.items) + " items and " + std::to_string(t.bundles)
                 + " bundles, expected " + std::to_string(items) + " and " + std::to_string(expected.bundles);
        return {};
    };
    auto fail = [](const std::string &message) {
        std::fprintf(stderr, "slicescope-bench ingest: %s\n", message.c_str());
        return 1;
    };

    od::parser parser;
    using Clock = std::chrono::steady_clock;
    auto ms = [](Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); };
    std::vector<double> ingestMs, walkMs, ratios;
    int slices = 0, warnings = 0;
    try {
        // One untimed round first: both sides allocate their parser's buffers on first use.
        for (int run = -1; run < runs; ++run) {
            const auto t0 = Clock::now();
            SnapshotPtr snap = buildSnapshot(capture);
            const auto t1 = Clock::now();
            const WalkTotals totals = simdjsonWalk(parser, capture);
            const auto t2 = Clock::now();
            if (const std::string problem = checkSnapshot(*snap); !problem.empty())
                return fail(problem);
            if (const std::string problem = checkWalk(totals); !problem.empty())
                return fail(problem);
            slices = int(snap->slices.size());
            warnings = int(snap->warnings.size());
            snap.reset(); // freed outside the timed regions
            if (run < 0)
                continue;
            ingestMs.push_back(ms(t1 - t0));
            walkMs.push_back(ms(t2 - t1));
            // The ratio of each side-by-side pair: noise from a busy neighbour hits both halves alike.
            ratios.push_back(ingestMs.back() / walkMs.back());
        }
    } catch (const simdjson::simdjson_error &e) {
        return fail(std::string("the simdjson walk failed on the generated bodies: ") + e.what());
    }

    const Stats ingest = statsOf(ingestMs), walk = statsOf(walkMs), ratio = statsOf(ratios);
    const qint64 bytes = capture.byteSize();
    if (json) {
        // One object on one line, for scripts.
        std::printf("{\"bytes\": %lld, \"bytes_nodes\": %lld, \"bytes_placement_groups\": %lld, \"bytes_pods\": %lld, "
                    "\"nodes\": %d, \"placement_groups\": %d, \"pods\": %d, \"seed\": %u, \"runs\": %d, "
                    "\"slices\": %d, \"live_placement_groups\": %lld, \"warnings\": %d, "
                    "\"ingest_ms_median\": %.3f, \"ingest_ms_min\": %.3f, \"ingest_ms_max\": %.3f, "
                    "\"simdjson_walk_ms_median\": %.3f, \"simdjson_walk_ms_min\": %.3f, \"simdjson_walk_ms_max\": %.3f, "
                    "\"ratio_median\": %.3f, \"ratio_min\": %.3f, \"ratio_max\": %.3f, \"simdjson_kernel\": \"%s\"}\n",
                    (long long)bytes, (long long)capture.rayNodes.size(), (long long)capture.rayPlacementGroups.size(),
                    (long long)capture.kubePods.size(), expected.rayNodes, expected.placementGroups, expected.pods,
                    unsigned(options.seed), runs, slices, (long long)expectedLive, warnings,
                    ingest.median, ingest.min, ingest.max, walk.median, walk.min, walk.max,
                    ratio.median, ratio.min, ratio.max, kSimdjsonKernel);
        return 0;
    }
    std::printf("ingest: %d Ray nodes, %d placement groups, %d pods; %.2f MB (nodes %.2f MB, groups %.2f MB, pods %.2f MB)\n",
                expected.rayNodes, expected.placementGroups, expected.pods, double(bytes) / 1e6,
                double(capture.rayNodes.size()) / 1e6, double(capture.rayPlacementGroups.size()) / 1e6,
                double(capture.kubePods.size()) / 1e6);
    std::printf("found %d slices, %lld live placement groups, %d warnings; %d interleaved runs\n\n",
                slices, (long long)expectedLive, warnings, runs);
    std::printf("%-28s %10s %10s %10s\n", "", "median", "min", "max");
    std::printf("%-28s %10.2f %10.2f %10.2f\n", "buildSnapshot (ms)", ingest.median, ingest.min, ingest.max);
    std::printf("%-28s %10.2f %10.2f %10.2f\n", "simdjson walk (ms)", walk.median, walk.min, walk.max);
    std::printf("%-28s %10.2f %10.2f %10.2f\n", "ratio ingest / walk", ratio.median, ratio.min, ratio.max);
    std::printf("%-28s %10.0f\n", "ingest throughput (MB/s)", double(bytes) / 1e3 / ingest.median);
    std::printf("simdjson kernel compiled in: %s\n", kSimdjsonKernel);
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 2)
        return usageError("name a benchmark");
    const std::string_view command = argv[1];
    if (command == "--help" || command == "-h" || command == "help") {
        std::fputs(kUsage, stdout);
        return 0;
    }
    if (command == "ingest")
        return runIngest(argc, argv);
    return usageError("unknown benchmark '" + std::string(command) + "'");
}
