// SPDX-License-Identifier: GPL-3.0-or-later
// slicescope-bench history: an hour of 2-second snapshots of a large, busy cluster kept in one
// SnapshotHistory (ISSUE 6). Figures, not pass/fail (docs/testing.md, "Benchmarks"):
//  - resident memory at the end (and its peak), against the process before the history held
//    anything (generator, one capture, one snapshot), and the history's own estimate, by part;
//  - the per-snapshot ingest (buildSnapshot + SnapshotHistory::add) at the start and at the end,
//    medians of the first and last few, and per tenth of the run (no slowdown as it fills);
//  - rebuilding entries for the scrubber (SnapshotHistory::snapshot(i)), checked against
//    fingerprints of the snapshots as they were added.
// --without-history runs the same loop keeping only the newest snapshot: the process's memory
// and parse times without any history, to compare with (the generator, the capture bodies and the
// parser's buffers are a large share of the resident memory).

#include "historybench.h"

#include "benchstats.h"
#include "procstats.h"

#include "clustergenerator.h"
#include "history.h"
#include "snapshot.h"

#include <QCryptographicHash>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <climits>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <time.h>

namespace slicescope::bench {

namespace {

using Clock = std::chrono::steady_clock;

double msBetween(Clock::time_point a, Clock::time_point b)
{
    return std::chrono::duration<double, std::milli>(b - a).count();
}

// CPU time of this thread, ms: unlike wall time, not inflated when other processes share the cores
// (the history's own cost, not the machine's load, is what "no slowdown as it fills" is about).
double threadCpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

// Medians of each tenth of a run.
std::vector<double> tenths(const std::vector<double> &v)
{
    std::vector<double> out;
    for (size_t d = 0; d < 10; ++d) {
        const size_t a = v.size() * d / 10, b = v.size() * (d + 1) / 10;
        if (b > a)
            out.push_back(median(std::vector<double>(v.begin() + long(a), v.begin() + long(b))));
    }
    return out;
}

std::string listText(const std::vector<double> &v)
{
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%s%.2f", i ? ", " : "", v[i]);
        out += buf;
    }
    return out;
}

// A hash of every field of a snapshot, fed object by object (no big transient document, so the
// checks do not show in the resident memory measured while ingesting).
class Fingerprint
{
public:
    void text(const QString &s)
    {
        const qint64 n = s.size();
        m_h.addData(QByteArrayView(reinterpret_cast<const char *>(&n), sizeof n));
        m_h.addData(QByteArrayView(reinterpret_cast<const char *>(s.constData()), s.size() * qsizetype(sizeof(QChar))));
    }
    template<typename N>
    void number(N v)
    { m_h.addData(QByteArrayView(reinterpret_cast<const char *>(&v), sizeof v)); }
    void texts(const QStringList &l)
    {
        number(l.size());
        for (const QString &s : l)
            text(s);
    }
    QByteArray result() { return m_h.result().toHex(); }

private:
    QCryptographicHash m_h{QCryptographicHash::Sha1};
};

QByteArray fingerprint(const ClusterSnapshot &s)
{
    Fingerprint f;
    f.number(s.capturedAt.toMSecsSinceEpoch());
    f.text(s.rayVersion);
    f.text(s.kubeContext);
    f.text(s.clusterStatusText);
    f.number(s.hasRay);
    f.number(s.hasKubernetes);
    f.texts(s.errors);
    f.texts(s.warnings);
    for (const RayNode &n : s.rayNodes) {
        f.text(n.id);
        f.text(n.ip);
        f.text(n.name);
        f.number(n.isHead);
        f.number(n.alive);
        f.text(n.stateMessage);
        f.number(n.tpu);
        f.number(n.cpu);
        f.number(n.hasSliceHeadResource);
        f.text(n.sliceName);
        f.text(n.podType);
        f.text(n.topology);
        f.text(n.acceleratorType);
        f.text(n.nodeGroup);
        f.number(n.workerId);
        f.number(n.startTimeMs);
        f.number(n.endTimeMs);
    }
    for (const Slice &sl : s.slices) {
        f.text(sl.name);
        f.text(sl.generation ? sl.generation->name : QString());
        f.text(sl.topology.toString());
        f.text(sl.podType);
        f.number(sl.chipsPerHost);
        f.number(sl.layout.isValid());
        f.number(int(sl.source));
        f.text(sl.workerGroup);
        f.number(sl.intact);
        f.number(sl.reservedChips);
        f.number(sl.headHeldBy);
        f.texts(sl.problems);
        for (const Host &h : sl.hosts) {
            f.number(h.workerId);
            f.number(int(h.state));
            f.number(h.rayNode);
            f.number(h.pod);
            f.number(h.kubeNode);
            f.number(h.reportedChips);
            for (const ChipUse &c : h.chips) {
                f.number(c.placementGroup);
                f.number(c.bundleIndex);
            }
        }
    }
    for (const PlacementGroup &g : s.placementGroups) {
        f.text(g.id);
        f.text(g.name);
        f.text(g.state);
        f.text(g.creatorJobId);
        f.text(g.schedulingState);
        f.number(g.detached);
        f.number(int(g.kind));
        f.texts(g.slices);
        for (const Bundle &b : g.bundles) {
            f.number(b.index);
            f.text(b.nodeId);
            f.number(b.rayNode);
            f.number(b.slice);
            f.number(b.workerId);
            f.number(b.tpu);
            f.number(b.cpu);
            f.text(b.selectorSlice);
            f.text(b.headResource);
        }
    }
    for (const WorkerGroup &g : s.workerGroups) {
        f.text(g.qualifiedName());
        f.number(g.replicas);
        f.number(g.minReplicas);
        f.number(g.maxReplicas);
        f.number(g.numOfHosts);
        f.text(g.accelerator);
        f.text(g.topology);
        f.number(g.chipsPerHost);
        f.texts(g.slices);
        f.number(g.specIndex);
    }
    for (const RayClusterInfo &c : s.rayClusters) {
        f.text(c.ns);
        f.text(c.name);
        f.text(c.state);
        f.number(c.generation);
        f.text(c.resourceVersion);
    }
    f.number(s.pods.size());
    f.number(s.kubeNodes.size());
    f.number(s.jobs.size());
    return f.result();
}

struct Options {
    GeneratorOptions generator;
    int snapshots = 1800;
    int intervalMs = 2000;
    double changePercent = 1.0;
    qint64 maxMb = 0;     // 0: keep the whole run
    bool json = false;
    bool withoutHistory = false; // the same loop keeping only the newest snapshot: the baseline
};

} // namespace

int runHistoryBenchmark(int argc, char **argv, int first, const std::function<int(const std::string &)> &usageError)
{
    Options o;
    std::vector<std::string> args(argv + first, argv + argc);
    for (size_t i = 0; i < args.size(); ++i) {
        std::string option = args[i], value;
        if (const auto eq = option.find('='); option.starts_with("--") && eq != std::string::npos) {
            value = option.substr(eq + 1);
            option.resize(eq);
        } else if (option != "--json" && option != "--without-history" && i + 1 < args.size()) {
            value = args[++i];
        }
        auto number = [&](long long lo, long long hi, long long &out) {
            const auto res = std::from_chars(value.data(), value.data() + value.size(), out);
            return res.ec == std::errc() && res.ptr == value.data() + value.size() && out >= lo && out <= hi;
        };
        long long n = 0;
        bool ok = true;
        if (option == "--json") o.json = true;
        else if (option == "--without-history") o.withoutHistory = true;
        else if (option == "--nodes") {
            ok = number(0, 1000000, n);
            o.generator.nodes = int(n);
        } else if (option == "--placement-groups") {
            ok = number(0, 1000000, n);
            o.generator.placementGroups = int(n);
        } else if (option == "--snapshots") {
            ok = number(1, 1000000, n);
            o.snapshots = int(n);
        } else if (option == "--interval-ms") {
            ok = number(1, 3600000, n);
            o.intervalMs = int(n);
        } else if (option == "--seed") {
            ok = number(0, INT_MAX, n);
            o.generator.seed = quint32(n);
        } else if (option == "--max-mb") {
            ok = number(0, 1000000, n);
            o.maxMb = n;
        } else if (option == "--change-percent") {
            char *end = nullptr;
            o.changePercent = std::strtod(value.c_str(), &end);
            ok = !value.empty() && end == value.c_str() + value.size() && o.changePercent >= 0 && o.changePercent <= 100;
        } else {
            return usageError("unknown option for history: " + option);
        }
        if (!ok)
            return usageError("bad value for " + option + ": '" + value + "'");
    }
    auto fail = [](const std::string &message) {
        std::fprintf(stderr, "slicescope-bench history: %s\n", message.c_str());
        return 1;
    };

    const auto wall0 = Clock::now();
    // Where the process's memory is before any history: the generator, a capture, the parser's
    // buffers and a snapshot (heap in use after each, MB).
    const Rss atStart = readRss();
    ClusterSimulation sim(o.generator);
    const Rss afterGenerator = readRss();
    Rss afterCapture, afterFirstBuild;
    HistoryPolicy policy;
    policy.maxAgeSeconds = qint64(o.snapshots) * o.intervalMs / 1000 + 3600; // keep the whole run
    policy.maxBytes = o.maxMb * 1024 * 1024;
    SnapshotHistory history(policy);

    // Entries whose rebuild is timed and checked: the first, keyframes and their neighbours,
    // the middle, the one before the newest; fingerprints are taken as they are added.
    std::map<int, QByteArray> samples;
    for (int i : {0, 1, 62, 63, 64, 65, 127, o.snapshots / 3, o.snapshots / 2, o.snapshots - 65, o.snapshots - 2})
        if (i >= 0 && i < o.snapshots - 1)
            samples.emplace(i, QByteArray());

    std::vector<double> buildMs, addMs, ingestMs, rssByTenth, captureKb, objectCounts;
    std::vector<double> buildCpuMs, addCpuMs, ingestCpuMs;
    SnapshotPtr newest, beforeLast, last; // the last two snapshots, for the side-by-side below
    buildMs.reserve(size_t(o.snapshots));
    Rss baseline;
    qint64 changedPrimary = 0;
    int slices = 0, placementGroups = 0, workerGroups = 0, rayNodes = 0;
    for (int i = 0; i < o.snapshots; ++i) {
        if (i > 0)
            changedPrimary += sim.step(o.changePercent / 100.0, o.intervalMs).total();
        SnapshotPtr snap;
        Clock::time_point t0, t1;
        double c0 = 0, c1 = 0;
        {
            // The capture is not needed once parsed (a source drops it too).
            const Capture capture = sim.capture();
            captureKb.push_back(double(capture.byteSize()) / 1024.0);
            if (i == 0)
                afterCapture = readRss();
            c0 = threadCpuMs();
            t0 = Clock::now();
            snap = buildSnapshot(capture);
            t1 = Clock::now();
            c1 = threadCpuMs();
            if (i == 0)
                afterFirstBuild = readRss();
        }
        if (i == 0)
            baseline = readRss(); // the generator, the parser's buffers and one snapshot; no history yet
        // The history lets go of the previous snapshot here; freeing it is the source's cost, not
        // the history's, so it happens after the timed region (as when the window drops it).
        SnapshotPtr previous = i > 0 ? (o.withoutHistory ? newest : history.snapshot(history.size() - 1)) : SnapshotPtr();
        if (o.withoutHistory)
            newest = snap; // what the history would hold at least
        else
            history.add(snap);
        const auto t2 = Clock::now();
        const double c2 = threadCpuMs();
        previous.reset();
        if (i >= o.snapshots - 2)
            (i == o.snapshots - 2 ? beforeLast : last) = snap;
        buildCpuMs.push_back(c1 - c0);
        addCpuMs.push_back(c2 - c1);
        ingestCpuMs.push_back(c2 - c0);
        buildMs.push_back(msBetween(t0, t1));
        addMs.push_back(msBetween(t1, t2));
        ingestMs.push_back(msBetween(t0, t2));

        // A broken ingest must not produce pretty numbers.
        if (!snap->errors.isEmpty())
            return fail("snapshot " + std::to_string(i) + ": " + snap->errors.join(QStringLiteral("; ")).toStdString());
        const GeneratedCounts expected = sim.expected();
        if (snap->rayNodes.size() != expected.rayNodes || snap->slices.size() != expected.slices
            || snap->placementGroups.size() != expected.placementGroups - expected.removedPlacementGroups)
            return fail("snapshot " + std::to_string(i) + " does not hold what the generator made: " + std::to_string(snap->rayNodes.size()) + " Ray nodes of "
                        + std::to_string(expected.rayNodes) + ", " + std::to_string(snap->slices.size()) + " slices of " + std::to_string(expected.slices) + ", "
                        + std::to_string(snap->placementGroups.size()) + " placement groups of " + std::to_string(expected.placementGroups - expected.removedPlacementGroups));
        objectCounts.push_back(double(snap->rayNodes.size() + snap->placementGroups.size() + snap->slices.size()
                                      + snap->pods.size() + snap->kubeNodes.size()));
        rayNodes = int(snap->rayNodes.size());
        slices = int(snap->slices.size());
        placementGroups = int(snap->placementGroups.size());
        workerGroups = int(snap->workerGroups.size());
        if (const auto it = samples.find(i); it != samples.end())
            it->second = fingerprint(*snap);
        if ((i + 1) % std::max(1, o.snapshots / 10) == 0)
            rssByTenth.push_back(readRss().current);
    }
    const double ingestSeconds = std::chrono::duration<double>(Clock::now() - wall0).count();
    // "rss_mb" is the process at the end of the hour; the checks below (rebuilding entries,
    // inspect --json fingerprints, events) then use memory of their own.
    const Rss afterIngest = readRss();
    const HistoryMemory memory = history.memory();
    const int entries = history.size(); // before the side-by-side adds below
    if (o.withoutHistory) {
        const Rss end = readRss();
        std::string rssTenths;
        for (size_t t = 0; t < rssByTenth.size(); ++t)
            rssTenths += (t ? ", " : "") + std::to_string(int(rssByTenth[t] + 0.5));
        std::printf("{\"snapshots\": %d, \"without_history\": true, \"rss_mb\": %.1f, \"rss_peak_mb\": %.1f, \"heap_in_use_mb\": %.1f, "
                    "\"rss_mb_by_tenth\": [%s], \"build_ms\": %.2f, \"build_ms_by_tenth\": [%s], "
                    "\"build_cpu_ms_by_tenth\": [%s], \"capture_kb_by_tenth\": [%s], \"objects_by_tenth\": [%s]}\n",
                    o.snapshots, end.current, end.peak, end.heapInUse, rssTenths.c_str(), median(buildMs), listText(tenths(buildMs)).c_str(),
                    listText(tenths(buildCpuMs)).c_str(), listText(tenths(captureKb)).c_str(), listText(tenths(objectCounts)).c_str());
        return 0;
    }
    if (history.size() != o.snapshots && o.maxMb == 0)
        return fail("the history kept " + std::to_string(history.size()) + " of " + std::to_string(o.snapshots) + " snapshots");

    // Scrubbing: rebuild sampled entries (nobody holds the result, so no cache helps), check them.
    std::vector<double> rebuildMs;
    int checked = 0;
    const int offset = o.snapshots - history.size(); // entries evicted under --max-mb
    for (const auto &[i, print] : samples) {
        const int index = i - offset;
        if (index < 0)
            continue;
        const auto t0 = Clock::now();
        SnapshotPtr snap = history.snapshot(index);
        rebuildMs.push_back(msBetween(t0, Clock::now()));
        if (fingerprint(*snap) != print)
            return fail("entry " + std::to_string(i) + " was not rebuilt as it was added");
        ++checked;
    }
    // And a sweep over every 97th entry, timed only.
    for (int index = 0; index + 1 < history.size(); index += 97) {
        const auto t0 = Clock::now();
        SnapshotPtr snap = history.snapshot(index);
        rebuildMs.push_back(msBetween(t0, Clock::now()));
    }
    // Events: the whole run walked once, a tenth at a time (as an events list pages through it);
    // one entry's (what the scrubber shows beside the view); and "when did this slice stop being
    // ready, and why" over the whole run.
    const auto e0 = Clock::now();
    int events = 0;
    const int page = std::max(1, history.size() / 10);
    for (int first = 1; first < history.size(); first += page)
        events += int(history.events(first, std::min(history.size() - 1, first + page - 1)).size());
    const double eventsMs = msBetween(e0, Clock::now());
    std::vector<double> entryEventsMs;
    for (int index = 1; index < history.size(); index += std::max(1, history.size() / 25)) {
        const auto t0 = Clock::now();
        (void)history.events(index);
        entryEventsMs.push_back(msBetween(t0, Clock::now()));
    }
    // A slice whose status changed lately (the question is asked about a slice in trouble).
    HistoryEventFilter sliceQuery;
    sliceQuery.kinds = {HistoryEventKind::SliceStatusChanged};
    for (int index = history.size() - 1; index > 0 && sliceQuery.slice.isEmpty(); --index)
        for (const HistoryEvent &e : history.events(index))
            if (e.kind == HistoryEventKind::SliceStatusChanged) {
                sliceQuery.slice = e.selectSlice;
                break;
            }
    const auto q0 = Clock::now();
    const int sliceEvents = int(history.events(0, history.size() - 1, sliceQuery).size());
    const double sliceQueryMs = msBetween(q0, Clock::now());
    const Rss end = readRss();

    // "No slowdown as the history fills", side by side: the same add() into the full history and
    // into a history holding only the same newest entry, interleaved so that whatever else the
    // machine does slows both alike. The two alternate between the last two snapshots (each add
    // then has a real delta, ~1% of the objects).
    std::vector<double> addFullMs, addEmptyMs, addRatio;
    if (beforeLast && last) {
        SnapshotHistory fresh(policy);
        fresh.add(beforeLast);
        fresh.add(last);
        for (int r = 0; r < 24; ++r) {
            const SnapshotPtr &next = r % 2 ? last : beforeLast;
            double c = threadCpuMs();
            history.add(next);
            addFullMs.push_back(threadCpuMs() - c);
            c = threadCpuMs();
            fresh.add(next);
            addEmptyMs.push_back(threadCpuMs() - c);
            addRatio.push_back(addFullMs.back() / std::max(1e-6, addEmptyMs.back()));
        }
    }

    const size_t k = std::min<size_t>(20, ingestMs.size());
    auto head = [&](const std::vector<double> &v) {
        return median(std::vector<double>(v.begin(), v.begin() + long(k)));
    };
    auto tail = [&](const std::vector<double> &v) {
        return median(std::vector<double>(v.end() - long(k), v.end()));
    };
    const std::vector<double> deciles = tenths(ingestMs), buildDeciles = tenths(buildMs), addDeciles = tenths(addMs);
    const double mb = 1024.0 * 1024.0;
    // Objects that appeared, changed or went per snapshot, as the history counted them, and their
    // share of the objects a snapshot holds (Ray nodes, placement groups, slices, worker groups...).
    const double changedPerSnapshot = entries > 1 ? double(memory.changes) / (entries - 1) : 0.0;
    const double changedPercent = 100.0 * changedPerSnapshot / std::max(1, rayNodes + placementGroups + slices + workerGroups + 1);
    const double perEntryKb = entries > 1 ? double(memory.total()) / entries / 1024.0 : 0;

#ifdef NDEBUG
    const char *build = "release";
#else
    const char *build = "debug";
#endif
    const std::string decileText = listText(deciles), buildText = listText(buildDeciles), addText = listText(addDeciles);
    std::string rssText;
    for (size_t t = 0; t < rssByTenth.size(); ++t)
        rssText += (t ? ", " : "") + std::to_string(int(rssByTenth[t] + 0.5));
    char out[8192];
    if (o.json) {
        std::snprintf(out, sizeof out,
                      "{\"snapshots\": %d, \"rss_mb\": %.1f, \"first_ingest_ms\": %.2f, \"last_ingest_ms\": %.2f, "
                      "\"first_ingest_cpu_ms\": %.2f, \"last_ingest_cpu_ms\": %.2f, \"ingest_cpu_ms_by_tenth\": [%s], "
                      "\"build_cpu_ms_by_tenth\": [%s], \"add_cpu_ms_by_tenth\": [%s], \"capture_kb_by_tenth\": [%s], "
                      "\"add_full_history_cpu_ms\": %.2f, \"add_fresh_history_cpu_ms\": %.2f, \"add_full_vs_fresh_ratio\": %.2f, "
                      "\"rss_peak_mb\": %.1f, \"rss_before_history_mb\": %.1f, \"rss_after_checks_mb\": %.1f, "
                      "\"heap_in_use_mb\": %.1f, \"heap_in_use_before_history_mb\": %.1f, "
                      "\"heap_generator_mb\": %.1f, \"heap_capture_mb\": %.1f, \"heap_parser_and_snapshot_mb\": %.1f, "
                      "\"history_mb_estimate\": %.1f, \"history_kb_per_snapshot\": %.1f, "
                      "\"history_objects_mb\": %.1f, \"history_keyframes_mb\": %.1f, \"history_deltas_mb\": %.1f, "
                      "\"history_entries_mb\": %.1f, \"history_identities_mb\": %.1f, \"history_texts_mb\": %.1f, \"history_version_slack_mb\": %.1f, "
                      "\"object_versions\": %lld, \"plain_versions\": %lld, "
                      "\"first_build_ms\": %.2f, \"last_build_ms\": %.2f, \"first_add_ms\": %.2f, \"last_add_ms\": %.2f, "
                      "\"ingest_ms_by_tenth\": [%s], \"build_ms_by_tenth\": [%s], \"add_ms_by_tenth\": [%s], \"rss_mb_by_tenth\": [%s], "
                      "\"reconstruct_ms\": %.2f, \"reconstruct_max_ms\": %.2f, \"reconstructs\": %zu, \"reconstructs_checked\": %d, "
                      "\"events\": %d, \"events_ms\": %.1f, \"events_of_one_entry_ms\": %.2f, \"slice_query_ms\": %.1f, "
                      "\"slice_query_events\": %d, \"changed_objects_per_snapshot\": %.1f, \"changed_percent\": %.2f, "
                      "\"generator_actions_per_step\": %.1f, "
                      "\"ray_nodes\": %d, \"slices\": %d, \"placement_groups\": %d, \"worker_groups\": %d, "
                      "\"interval_ms\": %d, \"change_percent\": %.2f, \"seed\": %u, \"seconds\": %.1f, \"build\": \"%s\"}\n",
                      entries, afterIngest.current, head(ingestMs), tail(ingestMs),
                      head(ingestCpuMs), tail(ingestCpuMs), listText(tenths(ingestCpuMs)).c_str(), listText(tenths(buildCpuMs)).c_str(),
                      listText(tenths(addCpuMs)).c_str(), listText(tenths(captureKb)).c_str(),
                      median(addFullMs), median(addEmptyMs), median(addRatio),
                      afterIngest.peak, baseline.current, end.current, afterIngest.heapInUse, baseline.heapInUse,
                      afterGenerator.heapInUse - atStart.heapInUse, afterCapture.heapInUse - afterGenerator.heapInUse,
                      afterFirstBuild.heapInUse - afterCapture.heapInUse,
                      memory.total() / mb, perEntryKb,
                      memory.objects() / mb, memory.keyframes / mb, memory.deltas / mb, memory.entries / mb, memory.identities / mb,
                      memory.texts / mb, memory.versionSlack / mb, (long long)memory.objectVersions, (long long)memory.plainVersions,
                      head(buildMs), tail(buildMs), head(addMs), tail(addMs), decileText.c_str(), buildText.c_str(), addText.c_str(), rssText.c_str(),
                      median(rebuildMs), rebuildMs.empty() ? 0.0 : *std::max_element(rebuildMs.begin(), rebuildMs.end()), rebuildMs.size(), checked,
                      events, eventsMs, median(entryEventsMs), sliceQueryMs, sliceEvents, changedPerSnapshot, changedPercent, o.snapshots > 1 ? double(changedPrimary) / (o.snapshots - 1) : 0.0,
                      rayNodes, slices, placementGroups, workerGroups, o.intervalMs, o.changePercent, unsigned(o.generator.seed),
                      ingestSeconds, build);
        std::fputs(out, stdout);
        return 0;
    }
    std::printf("history: %d snapshots every %d ms of %d Ray nodes, %d placement groups, %d slices, %d worker groups;\n"
                "%.1f objects (%.2f%%) appeared, changed or went per snapshot (asked for %.2f%%), %s build, %.0f s\n\n",
                entries, o.intervalMs, rayNodes, placementGroups, slices, workerGroups, changedPerSnapshot, changedPercent,
                o.changePercent, build, ingestSeconds);
    std::printf("resident memory: %.1f MB at the end of the run (peak %.1f; %.1f after the checks below), "
                "%.1f MB before the history held anything\n",
                afterIngest.current, afterIngest.peak, end.current, baseline.current);
    std::printf("heap in use (malloc): %.1f MB at the end of the run, %.1f MB before the history held anything\n",
                afterIngest.heapInUse, baseline.heapInUse);
    std::printf("before any history (heap MB): libraries and start %.1f, generator %.1f, one capture %.1f, "
                "parser buffers and one snapshot %.1f\n",
                atStart.heapInUse, afterGenerator.heapInUse - atStart.heapInUse, afterCapture.heapInUse - afterGenerator.heapInUse,
                afterFirstBuild.heapInUse - afterCapture.heapInUse);
    std::printf("history estimate: %.1f MB (%.1f KB per snapshot): versions %.1f (Ray nodes %.1f, slices %.1f, groups %.1f, "
                "worker groups %.2f), free room among versions %.1f, texts %.1f, keyframes %.1f, deltas %.1f, entries %.1f, identities %.1f;\n"
                "%lld object versions (%lld plain copies)\n",
                memory.total() / mb, perEntryKb, memory.objects() / mb, memory.rayNodes / mb, memory.slices / mb,
                memory.placementGroups / mb, memory.workerGroups / mb, memory.versionSlack / mb, memory.texts / mb, memory.keyframes / mb, memory.deltas / mb,
                memory.entries / mb, memory.identities / mb, (long long)memory.objectVersions, (long long)memory.plainVersions);
    std::printf("ingest (buildSnapshot + add), medians of the first and last %zu: %.2f ms -> %.2f ms "
                "(build %.2f -> %.2f, add %.2f -> %.2f)\n",
                k, head(ingestMs), tail(ingestMs),
                head(buildMs), tail(buildMs), head(addMs), tail(addMs));
    std::printf("ingest median per tenth of the run: %s ms\n  of which buildSnapshot: %s ms\n  and add: %s ms\n",
                decileText.c_str(), buildText.c_str(), addText.c_str());
    std::printf("ingest CPU time of this thread (not inflated by other processes), medians of the first and last %zu: "
                "%.2f ms -> %.2f ms\n  per tenth: %s ms\n  of which buildSnapshot: %s ms\n  and add: %s ms\n",
                k, head(ingestCpuMs), tail(ingestCpuMs), listText(tenths(ingestCpuMs)).c_str(),
                listText(tenths(buildCpuMs)).c_str(), listText(tenths(addCpuMs)).c_str());
    std::printf("resident memory at each tenth of the run: %s MB\n", rssText.c_str());
    std::printf("side by side, add() of the same snapshots into the full history and into a fresh one (CPU, interleaved): "
                "%.2f ms vs %.2f ms, ratio %.2f (median of %zu pairs)\n",
                median(addFullMs), median(addEmptyMs), median(addRatio), addRatio.size());
    std::printf("rebuilding an entry: median %.2f ms, worst %.2f ms over %zu (%d checked against the originals)\n",
                median(rebuildMs), rebuildMs.empty() ? 0.0 : *std::max_element(rebuildMs.begin(), rebuildMs.end()),
                rebuildMs.size(), checked);
    std::printf("events: %d over the run, listed in %.1f ms (a tenth at a time); one entry's: %.2f ms (median);\n"
                "one slice's status changes over the whole run: %d, found in %.1f ms\n",
                events, eventsMs, median(entryEventsMs), sliceEvents, sliceQueryMs);
    return 0;
}

} // namespace slicescope::bench
