// SPDX-License-Identifier: GPL-3.0-or-later
// slicescope-bench soak (ISSUE 13): the window's whole path, run for a long simulated time, to see
// that nothing grows that should not. The real MainWindow (offscreen, 1280x800, the timeline and
// history docks open) is given a source that polls a generated 10k-node cluster on a simulated
// clock: one capture per simulated 2-second interval, as fast as the machine allows, each changing
// ~1% of the cluster (hosts die and come back as new nodes and pods, placement groups are
// requested, placed, rescheduled and removed, worker groups are scaled). So every poll goes
// source -> buildSnapshot -> SnapshotHistory + capture spool -> workspace, composer, why-pending,
// timeline and charts, exactly as in the app; every few polls the window is painted (grab()),
// cycling the overview, slice and tables pages, and now and then the timeline is scrubbed back and
// returned to live. Once a simulated minute a fault is injected, in turn: a body that is not JSON
// (a proxy's HTML page), a source error (the dashboard refusing connections for three polls), a
// truncated body. Each must keep the last good view (same snapshot, the status bar saying so, the
// history untouched) and clear on the next good poll: that is one of errors_recovered.
//
// Memory and descriptors are read after a warm-up, once the history is full at its age bound and
// the spool at its byte bound (their steady state), and again at the end: the target over 60
// simulated minutes is RSS growth <= 5 % and no descriptor growth. Figures, not pass/fail; the run
// does fail (exit 1) when the path itself misbehaves (a fault not recovered, a view not painted, a
// snapshot not holding what the generator made).

#include "historybench.h"

#include "benchstats.h"
#include "procstats.h"

#include "capturefile.h"
#include "clustergenerator.h"
#include "history.h"
#include "look.h"
#include "mainwindow.h"
#include "snapshot.h"
#include "source.h"
#include "timeline.h"
#include "workspace.h"

#include <QApplication>
#include <QDockWidget>
#include <QListWidget>
#include <QPixmap>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTimer>

#include <charconv>
#include <chrono>
#include <climits>
#include <cstdio>
#include <string>
#include <vector>

namespace slicescope::bench {

namespace {

using Clock = std::chrono::steady_clock;

enum class Fault
{
    None,
    NotJson,
    Outage,
    Truncated
};

const char *faultName(Fault f)
{
    switch (f) {
    case Fault::NotJson: return "a body that is not JSON";
    case Fault::Outage: return "a source error";
    case Fault::Truncated: return "a truncated body";
    case Fault::None: break;
    }
    return "none";
}

// A live source as the window sees one, polling the simulated cluster on the simulated clock:
// poll() moves the cluster on one interval and emits what a poll would have received.
class SoakSource : public Source
{
public:
    SoakSource(ClusterSimulation &sim, double fraction, qint64 intervalMs)
        : m_sim(sim)
        , m_fraction(fraction)
        , m_intervalMs(intervalMs)
    { }
    QString description() const override { return QStringLiteral("soak: a generated cluster on a simulated clock"); }
    void start() override { Q_EMIT captureReceived(m_sim.capture()); }

    void poll(Fault fault)
    {
        m_sim.step(m_fraction, m_intervalMs);
        if (fault == Fault::Outage) {
            Q_EMIT failed(QStringLiteral("Ray at http://127.0.0.1:8265: connection refused (soak fault)"));
            return;
        }
        Capture capture = m_sim.capture();
        if (fault == Fault::NotJson) {
            capture.rayNodes = QByteArrayLiteral("<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>\n");
            reserveParsePadding(capture.rayNodes);
        } else if (fault == Fault::Truncated) {
            // Cut mid-list, as a connection dropped after the headers would leave it.
            QByteArray &body = capture.kubePods.isEmpty() ? capture.rayPlacementGroups : capture.kubePods;
            body.truncate(body.size() / 2);
            reserveParsePadding(body);
        }
        Q_EMIT captureReceived(capture);
    }

private:
    ClusterSimulation &m_sim;
    double m_fraction;
    qint64 m_intervalMs;
};

struct Options {
    GeneratorOptions generator;
    int minutes = 60;
    int warmupMinutes = -1; // -1: the history's age bound plus one minute
    int historyMinutes = 5;
    int intervalMs = 2000;
    double changePercent = 1.0;
    int renderEvery = 5;    // polls between two paintings of the window
    int scrubEvery = 150;   // polls between two scrubs back in the timeline
    bool json = false;
};

struct Sample {
    Rss rss;
    int fds = 0;
    int historyEntries = 0;
    double historyMb = 0;
    int spoolCaptures = 0;
    double spoolMb = 0;
};

std::string listText(const std::vector<double> &v, const char *format)
{
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) {
        char buf[32];
        std::snprintf(buf, sizeof buf, format, v[i]);
        out += (i ? ", " : "") + std::string(buf);
    }
    return out;
}

} // namespace

int runSoakBenchmark(int argc, char **argv, int first, const std::function<int(const std::string &)> &usageError)
{
    Options o;
    o.generator.kubernetes = true; // pods too: they come and go with their hosts
    std::vector<std::string> args(argv + first, argv + argc);
    for (size_t i = 0; i < args.size(); ++i) {
        std::string option = args[i], value;
        const bool flag = option == "--json" || option == "--without-pods";
        if (const auto eq = option.find('='); option.starts_with("--") && eq != std::string::npos) {
            value = option.substr(eq + 1);
            option.resize(eq);
        } else if (!flag && i + 1 < args.size()) {
            value = args[++i];
        }
        long long n = 0;
        auto number = [&](long long lo, long long hi) {
            const auto res = std::from_chars(value.data(), value.data() + value.size(), n);
            return res.ec == std::errc() && res.ptr == value.data() + value.size() && n >= lo && n <= hi;
        };
        bool ok = true;
        if (option == "--json") o.json = true;
        else if (option == "--without-pods") o.generator.kubernetes = false;
        else if (option == "--minutes") {
            ok = number(1, 100000);
            o.minutes = int(n);
        } else if (option == "--warmup-minutes") {
            ok = number(0, 100000);
            o.warmupMinutes = int(n);
        } else if (option == "--history-minutes") {
            ok = number(1, 100000);
            o.historyMinutes = int(n);
        } else if (option == "--nodes") {
            ok = number(1, 1000000);
            o.generator.nodes = int(n);
        } else if (option == "--placement-groups") {
            ok = number(0, 1000000);
            o.generator.placementGroups = int(n);
        } else if (option == "--seed") {
            ok = number(0, INT_MAX);
            o.generator.seed = quint32(n);
        } else if (option == "--render-every") {
            ok = number(1, 1000000);
            o.renderEvery = int(n);
        } else if (option == "--change-percent") {
            char *end = nullptr;
            o.changePercent = std::strtod(value.c_str(), &end);
            ok = !value.empty() && end == value.c_str() + value.size() && o.changePercent >= 0 && o.changePercent <= 100;
        } else {
            return usageError("unknown option for soak: " + option);
        }
        if (!ok)
            return usageError("bad value for " + option + ": '" + value + "'");
    }
    if (o.warmupMinutes < 0)
        o.warmupMinutes = o.historyMinutes + 1;
    const int pollsPerMinute = 60000 / o.intervalMs;
    const int warmupPolls = o.warmupMinutes * pollsPerMinute;
    const int totalPolls = warmupPolls + o.minutes * pollsPerMinute;

    // The capture spool goes where the app's goes (the cache directory), here a directory of our
    // own, removed at the end.
    QTemporaryDir cache;
    if (!cache.isValid()) {
        std::fprintf(stderr, "slicescope-bench soak: cannot make a temporary directory: %s\n", qPrintable(cache.errorString()));
        return 1;
    }
    qputenv("XDG_CACHE_HOME", cache.path().toLocal8Bit());
    pinRenderingEnvironment(true);
    // The offscreen platform says this once per window it cannot size: noise, not a finding.
    static const QtMessageHandler previousHandler = qInstallMessageHandler([](QtMsgType type, const QMessageLogContext &context, const QString &message) {
        if (!message.contains(QLatin1String("does not support propagateSizeHints")))
            previousHandler(type, context, message);
    });
    int qargc = 1;
    char *qargv[] = {argv[0], nullptr};
    QApplication app(qargc, qargv);
    QCoreApplication::setApplicationName(QStringLiteral("slicescope-bench-soak"));
    applyLook(app, Theme::light());

    // One poll per event-loop turn (started below), so whatever the window posts (timeline
    // scans, deferred deletes, chart updates) runs between polls as it does in the app.
    QTimer ticker;
    ticker.setInterval(0);
    auto fail = [&](const std::string &message) {
        std::fprintf(stderr, "slicescope-bench soak: %s\n", message.c_str());
        ticker.stop();
        app.exit(1);
    };

    const auto wall0 = Clock::now();
    ClusterSimulation sim(o.generator);
    // Screenshot mode reads and writes no settings; the docks a user would have open are opened.
    MainWindow window(MainWindow::Mode::Screenshot);
    window.setAttribute(Qt::WA_DontShowOnScreen);
    window.resize(1280, 800);
    for (const char *dock : {"timelineDock", "historyDock"})
        if (auto *d = window.findChild<QDockWidget *>(QLatin1String(dock)))
            d->show();
    HistoryPolicy policy = window.historyPolicy();
    policy.maxAgeSeconds = qint64(o.historyMinutes) * 60;
    window.setHistoryPolicy(policy);
    window.show();
    auto *problems = qobject_cast<QListWidget *>(window.findChild<QDockWidget *>(QStringLiteral("problemsDock"))->widget());

    auto *source = new SoakSource(sim, o.changePercent / 100.0, o.intervalMs);
    window.setSource(std::unique_ptr<Source>(source));
    if (!window.snapshot())
        return fail("the first capture gave no snapshot"), 1;

    auto sample = [&] {
        Sample s;
        s.rss = readRss();
        s.fds = openFileDescriptors();
        s.historyEntries = window.history()->size();
        s.historyMb = double(window.history()->memory().total()) / (1 << 20);
        s.spoolCaptures = window.captureSpool().count();
        s.spoolMb = double(window.captureSpool().bytes()) / (1 << 20);
        return s;
    };
    auto showsError = [&] {
        if (!window.statusText().contains(QStringLiteral("showing the last good data")))
            return false;
        return problems && problems->count() > 0 && problems->item(0)->text().startsWith(QStringLiteral("Error: "));
    };

    Sample start, end;
    std::vector<double> rssByMinute, fdsByMinute, historyMbByMinute, pollMs;
    int poll = 0, snapshots = 1, renders = 0, scrubs = 0, injected = 0, recovered = 0;
    Fault pending = Fault::None; // the fault whose recovery is awaited
    int outageLeft = 0;
    SnapshotPtr lastGood = window.snapshot();
    QRandomGenerator rng(o.generator.seed);
    const Workspace::Page pages[] = {Workspace::Page::Overview, Workspace::Page::Slice, Workspace::Page::Tables};

    QObject::connect(&ticker, &QTimer::timeout, &app, [&] {
        if (poll >= totalPolls) {
            ticker.stop();
            app.exit(0);
            return;
        }
        ++poll;
        const auto t0 = Clock::now();
        // The fault of this minute, half way through it; an outage lasts three polls.
        Fault fault = Fault::None;
        if (outageLeft > 0) {
            fault = Fault::Outage;
            --outageLeft;
        } else if (poll % pollsPerMinute == pollsPerMinute / 2) {
            static constexpr Fault kCycle[] = {Fault::NotJson, Fault::Outage, Fault::Truncated};
            fault = kCycle[(poll / pollsPerMinute) % 3];
            if (fault == Fault::Outage)
                outageLeft = 2;
            ++injected;
            pending = fault;
        }
        const int entriesBefore = window.history()->size();
        source->poll(fault);
        const SnapshotPtr now = window.snapshot();
        if (fault != Fault::None) {
            // The last good view stays, the status bar and the problems list say why, the
            // history takes nothing.
            if (now != lastGood || window.viewedSnapshot() != lastGood)
                return fail("poll " + std::to_string(poll) + ": " + faultName(fault) + " replaced the last good view");
            if (!showsError())
                return fail("poll " + std::to_string(poll) + ": " + faultName(fault) + " is not shown as an error");
            if (window.history()->size() != entriesBefore)
                return fail("poll " + std::to_string(poll) + ": " + faultName(fault) + " went into the history");
        } else {
            if (now == lastGood || !now->errors.isEmpty())
                return fail("poll " + std::to_string(poll) + ": a good capture gave no new snapshot");
            if (window.viewedSnapshot() != now)
                return fail("poll " + std::to_string(poll) + ": the views do not show the newest snapshot");
            const GeneratedCounts expected = sim.expected();
            // Slices are not compared: a dead host whose pod is gone is shown as a slice of its own
            // beside its pods' (the generator counts one), and a small cluster can lose one whole.
            if (now->rayNodes.size() != expected.rayNodes || now->slices.isEmpty()
                || now->placementGroups.size() != expected.placementGroups - expected.removedPlacementGroups)
                return fail("poll " + std::to_string(poll) + ": the snapshot does not hold what the generator made ("
                            + std::to_string(now->rayNodes.size()) + " Ray nodes, " + std::to_string(now->slices.size()) + " slices, "
                            + std::to_string(now->placementGroups.size()) + " placement groups; expected "
                            + std::to_string(expected.rayNodes) + ", " + std::to_string(expected.slices) + ", "
                            + std::to_string(expected.placementGroups - expected.removedPlacementGroups) + ")");
            if (pending != Fault::None) {
                if (showsError())
                    return fail("poll " + std::to_string(poll) + ": still showing an error after " + faultName(pending));
                ++recovered;
                pending = Fault::None;
            }
            lastGood = now;
            ++snapshots;
        }

        if (poll % o.renderEvery == 0) {
            window.workspace()->showPage(pages[renders % 3]);
            const QPixmap frame = window.grab();
            if (frame.isNull() || frame.width() != window.width())
                return fail("poll " + std::to_string(poll) + ": the window did not paint");
            ++renders;
        }
        if (poll % o.scrubEvery == 0 && window.history()->size() > 1) {
            // Back to a random kept moment, painted, and live again.
            window.timeline()->setPosition(int(rng.bounded(window.history()->size() - 1)));
            if (window.viewedSnapshot() == window.snapshot() || window.grab().isNull())
                return fail("poll " + std::to_string(poll) + ": scrubbing back did not show the past");
            window.timeline()->goLive();
            if (window.viewedSnapshot() != window.snapshot())
                return fail("poll " + std::to_string(poll) + ": going live did not show the newest snapshot");
            ++scrubs;
        }
        pollMs.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());

        if (poll % pollsPerMinute == 0) {
            const Sample s = sample();
            rssByMinute.push_back(s.rss.current);
            fdsByMinute.push_back(s.fds);
            historyMbByMinute.push_back(s.historyMb);
            // Progress on stderr (stdout keeps the one JSON object).
            std::fprintf(stderr, "soak: minute %d%s: RSS %.1f MB, %d fds, history %d entries %.1f MB, spool %d captures\n",
                         poll / pollsPerMinute, poll <= warmupPolls ? " (warm-up)" : "", s.rss.current, s.fds,
                         s.historyEntries, s.historyMb, s.spoolCaptures);
        }
        if (poll == warmupPolls)
            start = sample();
    });
    if (warmupPolls == 0)
        start = sample();
    ticker.start();
    if (const int status = app.exec(); status != 0)
        return status;
    end = sample();
    const double wallSeconds = std::chrono::duration<double>(Clock::now() - wall0).count();
    if (recovered != injected)
        return fail(std::to_string(injected) + " faults injected, " + std::to_string(recovered) + " recovered from"), 1;

    const double growthPct = start.rss.current > 0 ? 100.0 * (end.rss.current - start.rss.current) / start.rss.current : 0.0;
    const Stats ms = statsOf(pollMs);
    const SnapshotPtr last = window.snapshot();
    char out[4096];
    std::snprintf(out, sizeof out,
                  "{\"minutes\": %d, \"rss_mb_start\": %.1f, \"rss_mb_end\": %.1f, \"fds_start\": %d, \"fds_end\": %d, "
                  "\"snapshots\": %d, \"errors_recovered\": %d, "
                  "\"rss_growth_pct\": %.2f, \"rss_mb_peak\": %.1f, \"heap_mb_start\": %.1f, \"heap_mb_end\": %.1f, "
                  "\"start_after\": \"a warm-up of %d simulated minutes: the history full at its %d-minute bound\", "
                  "\"warmup_minutes\": %d, \"history_minutes\": %d, \"polls\": %d, \"errors_injected\": %d, "
                  "\"renders\": %d, \"scrubs\": %d, "
                  "\"history_entries_start\": %d, \"history_entries_end\": %d, \"history_mb_start\": %.1f, \"history_mb_end\": %.1f, "
                  "\"spool_captures_start\": %d, \"spool_captures_end\": %d, \"spool_mb_start\": %.1f, \"spool_mb_end\": %.1f, "
                  "\"poll_ms_median\": %.1f, \"poll_ms_p90\": %.1f, \"poll_ms_max\": %.1f, "
                  "\"ray_nodes\": %lld, \"slices\": %lld, \"placement_groups\": %lld, \"pods\": %lld, "
                  "\"rss_mb_by_minute\": [%s], \"fds_by_minute\": [%s], \"history_mb_by_minute\": [%s], "
                  "\"interval_ms\": %d, \"change_percent\": %.2f, \"seed\": %u, \"wall_seconds\": %.1f}\n",
                  o.minutes, start.rss.current, end.rss.current, start.fds, end.fds, snapshots, recovered,
                  growthPct, end.rss.peak, start.rss.heapInUse, end.rss.heapInUse,
                  o.warmupMinutes, o.historyMinutes, o.warmupMinutes, o.historyMinutes, poll, injected, renders, scrubs,
                  start.historyEntries, end.historyEntries, start.historyMb, end.historyMb,
                  start.spoolCaptures, end.spoolCaptures, start.spoolMb, end.spoolMb,
                  ms.median, ms.p90, ms.max,
                  (long long)last->rayNodes.size(), (long long)last->slices.size(), (long long)last->placementGroups.size(), (long long)last->pods.size(),
                  listText(rssByMinute, "%.1f").c_str(), listText(fdsByMinute, "%.0f").c_str(), listText(historyMbByMinute, "%.1f").c_str(),
                  o.intervalMs, o.changePercent, unsigned(o.generator.seed), wallSeconds);
    if (o.json) {
        std::fputs(out, stdout);
        return 0;
    }
    std::printf("soak: %d simulated minutes after a %d-minute warm-up (history bound %d minutes), %d polls every %d ms "
                "(simulated) in %.0f s of wall time\n"
                "%lld Ray nodes, %lld slices, %lld placement groups, %lld pods; %d snapshots, %d renders, %d scrubs\n\n",
                o.minutes, o.warmupMinutes, o.historyMinutes, poll, o.intervalMs, wallSeconds,
                (long long)last->rayNodes.size(), (long long)last->slices.size(), (long long)last->placementGroups.size(),
                (long long)last->pods.size(), snapshots, renders, scrubs);
    std::printf("resident memory: %.1f MB -> %.1f MB (%+.2f %%; peak %.1f), heap in use %.1f -> %.1f MB\n",
                start.rss.current, end.rss.current, growthPct, end.rss.peak, start.rss.heapInUse, end.rss.heapInUse);
    std::printf("file descriptors: %d -> %d\n", start.fds, end.fds);
    std::printf("history: %d -> %d entries, %.1f -> %.1f MB; spool: %d -> %d captures, %.0f -> %.0f MB\n",
                start.historyEntries, end.historyEntries, start.historyMb, end.historyMb, start.spoolCaptures, end.spoolCaptures,
                start.spoolMb, end.spoolMb);
    std::printf("faults: %d injected, %d recovered from\n", injected, recovered);
    std::printf("one poll (capture, snapshot, history, views, painting when due): median %.1f ms, p90 %.1f, worst %.1f\n",
                ms.median, ms.p90, ms.max);
    return 0;
}

} // namespace slicescope::bench
