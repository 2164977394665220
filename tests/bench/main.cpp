// SPDX-License-Identifier: GPL-3.0-or-later
// slicescope-bench: figures, not pass/fail (docs/testing.md, "Benchmarks"). These machines are shared
// and noisy, so every figure is a ratio measured side by side in one run, interleaved, against a
// baseline doing the same irreducible work, plus the absolute times.
//
//   slicescope-bench ingest [--nodes N] [--placement-groups N] [--runs R] [--seed S] [--kubernetes] [--json]
//   slicescope-bench render [--runs R] [--json] [--png PREFIX]
//   (and poll, history, scrub, soak: see kUsage)

#include "clustergenerator.h"
#include "democluster.h"
#include "benchstats.h"
#include "historybench.h"
#include "look.h"
#include "sliceview.h"
#include "snapshot.h"

#include <QApplication>
#include <QCoreApplication>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPainter>

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
using bench::Stats;
using bench::statsOf;

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
    explicit Walker(WalkTotals &t)
        : m_t(t)
    { }

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
            } else if (key == "start_time_ms" || key == "end_time_ms") integer(v);
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
    "       slicescope-bench render [--runs R] [--json] [--png PREFIX]\n"
    "       slicescope-bench poll [--nodes N] [--placement-groups N] [--runs R] [--seed S] [--json]\n"
    "       slicescope-bench history [--nodes N] [--placement-groups N] [--snapshots N] [--interval-ms MS]\n"
    "                                [--change-percent P] [--max-mb MB] [--seed S] [--without-history] [--json]\n"
    "       slicescope-bench scrub [--nodes N] [--placement-groups N] [--snapshots N] [--scrubs N] [--json]\n"
    "       slicescope-bench soak [--minutes N] [--warmup-minutes N] [--history-minutes N] [--nodes N]\n"
    "                             [--placement-groups N] [--change-percent P] [--render-every N] [--seed S]\n"
    "                             [--without-pods] [--json]\n"
    "       slicescope-bench activity [--nodes N] [--placement-groups N] [--runs R] [--seed S] [--json]\n"
    "       slicescope-bench fleet [--contexts N] [--nodes N] [--churn N] [--seconds S] [--json]\n"
    "       slicescope-bench relay [--seconds S] [--idle N] [--binary PATH] [--json]\n"
    "\n"
    "  ingest   time buildSnapshot() against a raw simdjson walk of the same generated bodies\n"
    "  poll     the cost of one poll: bytes received and buildSnapshot() time, for the demo cluster's\n"
    "           capture and a generated one (default 10000 nodes, 10000 placement groups)\n"
    "  render   time the slice view's sprite painting against naive antialiased polygons, 1920x1080;\n"
    "           --png writes the frames measured as PREFIX-<slice>-{sprites,naive}.png, to look at\n"
    "  history  an hour of 2-second snapshots (default 1800) of a generated 10000-node, 10000-group\n"
    "           cluster changing ~1% per snapshot, kept in a SnapshotHistory: memory, ingest time at\n"
    "           the start and the end, rebuilding entries for the scrubber\n"
    "  scrub    the timeline's scrubber on that cluster: rebuild an entry, show it and paint the\n"
    "           workspace (overview, slice, tables) at 1280x800, against parsing its capture again\n"
    "  activity chip activity on the generated cluster (default 10000 nodes x 4 chips): Ray's node\n"
    "           summary and a Prometheus ray_tpu_* answer joined by joinActivity(), timed against the\n"
    "           allocation's buildSnapshot() in the same runs (target: activity <= 25% of the ingest);\n"
    "           wall time, with new bodies parsed on two threads: the join's CPU time is printed too\n"
    "  soak     the window's whole path (source, snapshot, history and spool, views) on a generated\n"
    "           10000-node cluster with pods, ~1% changing per simulated 2 s poll, run as fast as the\n"
    "           machine allows: N simulated minutes (default 60) after a warm-up (default: the history's\n"
    "           age bound, --history-minutes, default 5, plus one minute), the window painted every\n"
    "           --render-every polls (default 5), a fault once a simulated minute (a body that is not\n"
    "           JSON, a source error, a truncated body) that must keep the last good view and clear\n"
    "           on the next poll; prints RSS and open descriptors at the end of the warm-up and at the\n"
    "           end (target: RSS growth <= 5%, no descriptor growth); exits 1 if a fault is not recovered\n"
    "  fleet    N contexts (default 20) of one RayCluster of --nodes TPU nodes (default 500) through\n"
    "           scripted API servers in a child process: first fleet snapshot, RSS, CPU per 2 s poll cycle\n"
    "           over --seconds (default 20); every `ray status` changes (as a real Ray's does) and --churn\n"
    "           contexts (default 2) change their Ray lists every 2 s; targets 2 s, 400 MB, 20 % of a core\n"
    "  alerts   AlertEngine::observe() per snapshot of that cluster with every chip's activity\n"
    "           (--steps N, default 1800: an hour of 2 s snapshots; --nodes, --placement-groups, --json)\n"
    "  relay    `slicescope serve --demo` (its own process) for --seconds (default 60) under --idle N\n"
    "           idle connections (default 1000), a slow-header client and a 100 GiB body, while a good\n"
    "           client with the token asks every 5 s: the relay's peak RSS and the served ratio\n";

int usageError(const std::string &message)
{
    std::fprintf(stderr, "slicescope-bench: %s\n%s", message.c_str(), kUsage);
    return 2;
}

// Parses "--name N" / "--name=N" options; returns false (with a message) on bad input.
class Args
{
public:
    Args(int argc, char **argv, int first)
        : m_args(argv + first, argv + argc)
    { }

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
    bool stringValue(const std::string &option, std::string &out, std::string &error)
    {
        if (m_inline) {
            out = *m_inline;
        } else if (m_pos < m_args.size()) {
            out = m_args[m_pos++];
        } else {
            error = option + " needs a value";
            return false;
        }
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
        else if (option == "--seed") {
            ok = args.intValue(option, 0, INT_MAX, seed, error);
            options.seed = quint32(seed);
        } else if (option == "--kubernetes" && !args.hasInlineValue()) options.kubernetes = true;
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
    auto ms = [](Clock::duration d) {
        return std::chrono::duration<double, std::milli>(d).count();
    };
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

// ---- render ------------------------------------------------------------------------------------
//
// Two large slices built as Ray would report them (docs/facts.md 2.1, 2.2) and joined by the real
// buildSnapshot(), so the view paints production data: whole-slice training groups, a sweep
// holding 2 of 4 chips per host, a notebook holding 1, the slice head claimed, one dead host.

struct RenderCase {
    const char *name;          // also the slice name
    const char *generation;    // pod-type prefix
    const char *accelerator;   // ray.io/accelerator-type
    const char *topology;
    int x, y, z;
};
constexpr RenderCase kRenderCases[] = {
    {"v4-16x16x16", "v4", "TPU-V4", "16x16x16", 16, 16, 16},
    {"v5p-16x20x28", "v5p", "TPU-V5P", "16x20x28", 16, 20, 28},
};

QByteArray stateList(const QJsonArray &items)
{
    QJsonObject list{{QStringLiteral("total"), items.size()}, {QStringLiteral("num_after_truncation"), items.size()}, {QStringLiteral("num_filtered"), items.size()}, {QStringLiteral("result"), items}};
    return QJsonDocument(QJsonObject{{QStringLiteral("result"), true}, {QStringLiteral("msg"), QString()}, {QStringLiteral("data"), QJsonObject{{QStringLiteral("result"), list}}}})
        .toJson(QJsonDocument::Compact);
}

Capture renderCapture(const RenderCase &c, int *deadWorker)
{
    constexpr int kChipsPerHost = 4; // 2x2x1 blocks
    const int chips = c.x * c.y * c.z;
    const int hosts = chips / kChipsPerHost;
    const QString slice = QLatin1String(c.name);
    const QString podType = QStringLiteral("%1-%2").arg(QLatin1String(c.generation)).arg(chips * 2); // TensorCores
    // A fixed, plausible-looking hex id per index: the ids only have to be distinct and stable.
    auto hexId = [](quint64 seed, int index) {
        quint64 z = seed + quint64(index) * 0x9e3779b97f4a7c15ull;
        QString id;
        for (int i = 0; i < 4; ++i) {
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
            id += QStringLiteral("%1").arg(z ^ (z >> 31), 16, 16, QLatin1Char('0'));
        }
        return id.left(56);
    };
    *deadWorker = hosts * 5 / 8 + 3;
    QJsonArray nodes;
    QStringList nodeIds;
    for (int w = 0; w < hosts; ++w) {
        const QString id = hexId(0x5eed, w);
        nodeIds << id;
        QJsonObject resources{{QStringLiteral("CPU"), 208.0}, {QStringLiteral("TPU"), double(kChipsPerHost)}, {slice, 1.0}, {QStringLiteral("accelerator_type:%1").arg(QLatin1String(c.accelerator)), 1.0}};
        if (w == 0)
            resources.insert(QStringLiteral("TPU-%1-head").arg(podType), 1.0);
        const bool dead = w == *deadWorker;
        nodes.append(QJsonObject{
            {QStringLiteral("node_id"), id},
            {QStringLiteral("node_ip"), QStringLiteral("10.%1.%2.%3").arg(20 + w / 65536).arg((w / 256) % 256).arg(w % 256)},
            {QStringLiteral("is_head_node"), false},
            {QStringLiteral("state"), dead ? QStringLiteral("DEAD") : QStringLiteral("ALIVE")},
            {QStringLiteral("state_message"), dead ? QStringLiteral("Unexpected termination: health check failed") : QString()},
            {QStringLiteral("node_name"), QStringLiteral("%1-worker-%2").arg(slice).arg(w)},
            {QStringLiteral("resources_total"), resources},
            {QStringLiteral("labels"), QJsonObject{
                                           {QStringLiteral("ray.io/accelerator-type"), QLatin1String(c.accelerator)},
                                           {QStringLiteral("ray.io/tpu-pod-type"), podType},
                                           {QStringLiteral("ray.io/tpu-slice-name"), slice},
                                           {QStringLiteral("ray.io/tpu-worker-id"), QString::number(w)},
                                           {QStringLiteral("ray.io/tpu-topology"), QLatin1String(c.topology)},
                                           {QStringLiteral("ray.io/node-group"), QStringLiteral("%1-group").arg(QLatin1String(c.generation))}}},
        });
    }
    QJsonArray groups;
    int groupIndex = 0;
    auto addGroup = [&](const QString &name, int firstHost, int lastHost, int tpu, const QString &headResource = {}) {
        const QString id = hexId(0x9a11, groupIndex++).left(36);
        QJsonArray bundles;
        for (int w = firstHost; w <= lastHost; ++w) {
            QJsonObject unit{{QStringLiteral("CPU"), 1.0}};
            QJsonObject selector;
            if (headResource.isEmpty()) {
                unit.insert(QStringLiteral("TPU"), double(tpu));
                selector.insert(QStringLiteral("ray.io/tpu-slice-name"), slice);
            } else {
                unit = QJsonObject{{headResource, 1.0}};
                selector.insert(QStringLiteral("ray.io/tpu-worker-id"), QStringLiteral("0"));
            }
            bundles.append(QJsonObject{
                {QStringLiteral("bundle_id"), QJsonObject{{QStringLiteral("placement_group_id"), id}, {QStringLiteral("bundle_index"), w - firstHost}}},
                {QStringLiteral("unit_resources"), unit},
                {QStringLiteral("node_id"), nodeIds[w]},
                {QStringLiteral("label_selector"), selector},
            });
        }
        groups.append(QJsonObject{
            {QStringLiteral("placement_group_id"), id},
            {QStringLiteral("name"), name},
            {QStringLiteral("creator_job_id"), QStringLiteral("0a000000")},
            {QStringLiteral("state"), QStringLiteral("CREATED")},
            {QStringLiteral("is_detached"), false},
            {QStringLiteral("stats"), QJsonObject{{QStringLiteral("scheduling_state"), QStringLiteral("FINISHED")}}},
            {QStringLiteral("bundles"), bundles},
        });
    };
    addGroup(QString(), 0, 0, 0, QStringLiteral("TPU-%1-head").arg(podType));
    addGroup(QStringLiteral("llm-train-a"), 0, hosts / 4 - 1, kChipsPerHost);
    addGroup(QStringLiteral("llm-train-b"), hosts / 4, hosts / 2 - 1, kChipsPerHost);
    addGroup(QStringLiteral("sweep-17"), hosts / 2, hosts / 2 + hosts / 8 - 1, 2);
    addGroup(QStringLiteral("notebook-bob"), hosts - 5, hosts - 3, 1);

    Capture capture;
    capture.capturedAt = QDateTime(QDate(2026, 11, 29), QTime(18, 0), Qt::UTC);
    capture.rayVersion = QByteArrayLiteral(R"({"version": "5", "ray_version": "2.60.0"})");
    capture.rayNodes = stateList(nodes);
    capture.rayPlacementGroups = stateList(groups);
    return capture;
}

int runRender(int argc, char **argv)
{
    int runs = 15;
    bool json = false;
    std::string pngPrefix;
    Args args(argc, argv, 2);
    std::string option, error;
    while (args.next(option)) {
        bool ok = true;
        if (option == "--runs") ok = args.intValue(option, 1, 100000, runs, error);
        else if (option == "--json" && !args.hasInlineValue()) json = true;
        else if (option == "--png") ok = args.stringValue(option, pngPrefix, error);
        else return usageError("unknown option for render: " + option);
        if (!ok)
            return usageError(error);
    }
    auto fail = [](const std::string &message) {
        std::fprintf(stderr, "slicescope-bench render: %s\n", message.c_str());
        return 1;
    };

    // Offscreen, 96 DPI, the UI font: the same pixels on every machine.
    pinRenderingEnvironment(true);
    int qargc = 1;
    char *qargv[] = {argv[0], nullptr};
    QApplication app(qargc, qargv);
    applyLook(app, Theme::light());

    const QSize size(1920, 1080);
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    using Clock = std::chrono::steady_clock;
    auto ms = [](Clock::duration d) {
        return std::chrono::duration<double, std::milli>(d).count();
    };
    auto renderOnce = [&](SliceView &view) {
        const auto t0 = Clock::now();
        QPainter painter(&image);
        view.render(painter, size);
        painter.end();
        return ms(Clock::now() - t0);
    };

    struct Result {
        std::string name;
        int chips = 0;
        Stats optimized, naive, speedup;
    };
    std::vector<Result> results;
    std::vector<double> rotateMs;
    for (const RenderCase &c : kRenderCases) {
        int deadWorker = -1;
        const SnapshotPtr snapshot = buildSnapshot(renderCapture(c, &deadWorker));
        // A broken build of the data must not produce pretty numbers.
        const int si = snapshot->sliceIndex(QString::fromLatin1(c.name));
        if (si < 0)
            return fail(std::string("the snapshot lacks slice ") + c.name);
        const Slice &slice = snapshot->slices[si];
        if (!slice.layout.isValid() || slice.chips() != c.x * c.y * c.z || slice.hosts.size() != slice.chips() / 4)
            return fail(std::string("slice ") + c.name + " was not laid out as " + c.topology);
        if (slice.hosts[deadWorker].state != HostState::Dead || slice.reservedChips == 0)
            return fail(std::string("slice ") + c.name + " lacks its dead host or its reservations");

        SliceView view;
        view.setAttribute(Qt::WA_DontShowOnScreen);
        view.resize(size);
        view.show(); // a real widget at its real size; nothing reaches a screen
        view.setColorMode(ColorMode::Bundle);
        view.setSlice(snapshot, QLatin1String(c.name));
        view.setPreset(SliceView::Preset::Isometric);

        // One untimed frame per path: both build their caches on first use.
        view.setChipPainting(SliceView::ChipPainting::Polygons);
        renderOnce(view);
        view.setChipPainting(SliceView::ChipPainting::Sprites);
        renderOnce(view);

        std::vector<double> optimized, naive, speedups;
        for (int run = 0; run < runs; ++run) {
            view.setChipPainting(SliceView::ChipPainting::Sprites);
            optimized.push_back(renderOnce(view));
            view.setChipPainting(SliceView::ChipPainting::Polygons);
            naive.push_back(renderOnce(view));
            // Side by side: a busy neighbour slows both halves of a pair alike.
            speedups.push_back(naive.back() / optimized.back());
        }
        if (!pngPrefix.empty()) {
            const QString base = QString::fromStdString(pngPrefix) + u'-' + QLatin1String(c.name);
            renderOnce(view);
            image.save(base + QStringLiteral("-naive.png"));
            view.setChipPainting(SliceView::ChipPainting::Sprites);
            renderOnce(view);
            image.save(base + QStringLiteral("-sprites.png"));
        }
        view.setChipPainting(SliceView::ChipPainting::Sprites);
        results.push_back({c.name, slice.chips(), statsOf(optimized), statsOf(naive), statsOf(speedups)});

        // Turning the 4096-chip slice: every step a new orientation, so sprites are rebuilt and the
        // draw order too whenever the view crosses into another octant.
        if (c.x * c.y * c.z == 4096) {
            SliceProjection p = view.projection();
            const double yaw0 = p.yaw();
            for (int step = 1; step <= 36; ++step) {
                p.setRotation(yaw0 + step * 10.0, p.pitch());
                view.setProjection(p);
                rotateMs.push_back(renderOnce(view));
            }
        }
    }
    const Stats rotate = statsOf(rotateMs);

    if (json) {
        std::string out = "{\"width\": 1920, \"height\": 1080, \"runs\": " + std::to_string(runs) + ", \"cases\": [";
        char buf[512];
        for (size_t i = 0; i < results.size(); ++i) {
            const Result &r = results[i];
            std::snprintf(buf, sizeof buf,
                          "%s{\"name\": \"%s\", \"chips\": %d, \"optimized_ms_median\": %.3f, \"optimized_ms_min\": %.3f, "
                          "\"optimized_ms_max\": %.3f, \"naive_ms_median\": %.3f, \"naive_ms_min\": %.3f, \"naive_ms_max\": %.3f, "
                          "\"speedup_median\": %.2f, \"speedup_min\": %.2f, \"speedup_max\": %.2f}",
                          i ? ", " : "", r.name.c_str(), r.chips, r.optimized.median, r.optimized.min, r.optimized.max,
                          r.naive.median, r.naive.min, r.naive.max, r.speedup.median, r.speedup.min, r.speedup.max);
            out += buf;
        }
        std::snprintf(buf, sizeof buf, "], \"rotate_chips\": 4096, \"rotate_steps\": %zu, \"rotate_worst_ms\": %.3f, \"rotate_median_ms\": %.3f}\n",
                      rotateMs.size(), rotate.max, rotate.median);
        out += buf;
        std::fputs(out.c_str(), stdout);
        return 0;
    }
    std::printf("render: slice view at 1920x1080, isometric, bundle colours; %d interleaved runs per path\n\n", runs);
    std::printf("%-16s %6s %26s %26s %22s\n", "", "chips", "sprites ms (med/min/max)", "naive ms (med/min/max)", "speedup (med/min/max)");
    for (const Result &r : results)
        std::printf("%-16s %6d %10.2f %7.2f %7.2f %10.2f %7.2f %7.2f %8.1f %6.1f %6.1f\n", r.name.c_str(), r.chips,
                    r.optimized.median, r.optimized.min, r.optimized.max, r.naive.median, r.naive.min, r.naive.max,
                    r.speedup.median, r.speedup.min, r.speedup.max);
    std::printf("\nturning the 4096-chip slice in %zu steps of 10 degrees: worst frame %.2f ms, median %.2f ms\n",
                rotateMs.size(), rotate.max, rotate.median);
    return 0;
}

// The cost of one poll as the window pays it every interval: the bytes of every body, and the
// time buildSnapshot() takes to turn them into a snapshot. The demo is what a small team's cluster
// looks like (Ray and Kubernetes bodies); the generated capture is the large end (Ray bodies only,
// no jobs list or status text: those stay small however large the fleet is).
int runPoll(int argc, char **argv)
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
        else if (option == "--seed") {
            ok = args.intValue(option, 0, INT_MAX, seed, error);
            options.seed = quint32(seed);
        } else if (option == "--json" && !args.hasInlineValue()) json = true;
        else return usageError("unknown option for poll: " + option);
        if (!ok)
            return usageError(error);
    }

    struct Case {
        std::string name;
        Capture capture;
        int expectedSlices = -1; // -1: not known up front
    };
    std::vector<Case> cases;
    {
        // The demo as the window first shows it, then a minute on: groups placed, pods running.
        DemoCluster demo;
        demo.advance(60000);
        cases.push_back({"demo", demo.capture(), -1});
        bench::GeneratedCounts expected;
        Capture generated = bench::generateCluster(options, &expected);
        cases.push_back({"generated-" + std::to_string(options.nodes) + "-nodes-" + std::to_string(options.placementGroups) + "-groups",
                         std::move(generated), expected.slices});
    }

    using Clock = std::chrono::steady_clock;
    struct Result {
        std::string name;
        qint64 bytes = 0;
        qint64 rayBytes = 0;
        qint64 kubeBytes = 0;
        int rayNodes = 0, slices = 0, placementGroups = 0, jobs = 0;
        Stats ms;
    };
    std::vector<Result> results;
    for (const Case &c : cases) {
        Result r;
        r.name = c.name;
        r.bytes = c.capture.byteSize();
        r.kubeBytes = c.capture.kubeRayClusters.size() + c.capture.kubePods.size() + c.capture.kubeNodes.size();
        r.rayBytes = r.bytes - r.kubeBytes;
        std::vector<double> ms;
        // One untimed round first: the parser allocates its buffers on first use.
        for (int run = -1; run < runs; ++run) {
            const auto t0 = Clock::now();
            SnapshotPtr snap = buildSnapshot(c.capture);
            const auto t1 = Clock::now();
            // A broken ingest must not produce pretty numbers.
            if (!snap->errors.isEmpty()) {
                std::fprintf(stderr, "slicescope-bench poll: %s: %s\n", c.name.c_str(), snap->errors.join(QStringLiteral("; ")).toStdString().c_str());
                return 1;
            }
            if (c.expectedSlices >= 0 && snap->slices.size() != c.expectedSlices) {
                std::fprintf(stderr, "slicescope-bench poll: %s: found %d slices, expected %d\n", c.name.c_str(), int(snap->slices.size()), c.expectedSlices);
                return 1;
            }
            r.rayNodes = int(snap->rayNodes.size());
            r.slices = int(snap->slices.size());
            r.placementGroups = int(snap->placementGroups.size());
            r.jobs = int(snap->jobs.size());
            snap.reset(); // freed outside the timed region
            if (run >= 0)
                ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
        }
        r.ms = statsOf(ms);
        results.push_back(r);
    }

#ifdef NDEBUG
    const char *build = "release";
#else
    const char *build = "debug"; // parse times of a debug build are several times a release build's
#endif
    if (json) {
        std::string out = "{\"runs\": " + std::to_string(runs) + ", \"build\": \"" + build + "\", \"cases\": [";
        char buf[768];
        for (size_t i = 0; i < results.size(); ++i) {
            const Result &r = results[i];
            std::snprintf(buf, sizeof buf,
                          "%s{\"name\": \"%s\", \"bytes\": %lld, \"ray_bytes\": %lld, \"kubernetes_bytes\": %lld, "
                          "\"ray_nodes\": %d, \"slices\": %d, \"placement_groups\": %d, \"jobs\": %d, "
                          "\"build_snapshot_ms_median\": %.3f, \"build_snapshot_ms_min\": %.3f, \"build_snapshot_ms_max\": %.3f}",
                          i ? ", " : "", r.name.c_str(), (long long)r.bytes, (long long)r.rayBytes, (long long)r.kubeBytes,
                          r.rayNodes, r.slices, r.placementGroups, r.jobs, r.ms.median, r.ms.min, r.ms.max);
            out += buf;
        }
        out += "]}\n";
        std::fputs(out.c_str(), stdout);
        return 0;
    }
    std::printf("poll: the bytes of one poll and buildSnapshot() on them; %d runs, %s build\n\n", runs, build);
    std::printf("%-40s %12s %8s %8s %8s %28s\n", "", "bytes", "nodes", "slices", "groups", "buildSnapshot ms (med/min/max)");
    for (const Result &r : results)
        std::printf("%-40s %12lld %8d %8d %8d %10.2f %8.2f %8.2f\n", r.name.c_str(), (long long)r.bytes, r.rayNodes, r.slices,
                    r.placementGroups, r.ms.median, r.ms.min, r.ms.max);
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
    if (command == "render")
        return runRender(argc, argv);
    if (command == "poll")
        return runPoll(argc, argv);
    if (command == "history")
        return bench::runHistoryBenchmark(argc, argv, 2, usageError);
    if (command == "scrub")
        return bench::runScrubBenchmark(argc, argv, 2, usageError);
    if (command == "soak")
        return bench::runSoakBenchmark(argc, argv, 2, usageError);
    if (command == "alerts")
        return bench::runAlertsBenchmark(argc, argv, 2, usageError);
    if (command == "activity")
        return bench::runActivityBenchmark(argc, argv, 2, usageError);
    if (command == "relay")
        return bench::runRelayBenchmark(argc, argv, 2, usageError);
    if (command == "fleet") {
        // The first frame is the overview painted (offscreen, as the window would paint it).
        pinRenderingEnvironment(true);
        int qargc = 1;
        char *qargv[] = {argv[0], nullptr};
        QApplication app(qargc, qargv);
        applyLook(app, Theme::light());
        return bench::runFleetBenchmark(argc, argv, 2, usageError);
    }
    if (command == "fleet-serve") {
        QCoreApplication app(argc, argv); // sockets and timers
        int contexts = 20, nodes = 500, churn = 0;
        for (int i = 2; i + 1 < argc; i += 2) {
            if (std::string_view(argv[i]) == "--contexts") contexts = std::max(1, std::atoi(argv[i + 1]));
            else if (std::string_view(argv[i]) == "--nodes") nodes = std::max(1, std::atoi(argv[i + 1]));
            else if (std::string_view(argv[i]) == "--churn") churn = std::max(0, std::atoi(argv[i + 1]));
        }
        return bench::runFleetServe(contexts, nodes, churn);
    }
    return usageError("unknown benchmark '" + std::string(command) + "'");
}
