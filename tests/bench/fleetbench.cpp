// SPDX-License-Identifier: GPL-3.0-or-later
// `slicescope-bench fleet`: many contexts at once (issue 16) through scripted servers. A child
// process (`slicescope-bench fleet-serve`, so its CPU is not counted) plays N API servers on
// 127.0.0.1, each with one RayCluster of M TPU nodes (the seeded generator's bodies: RayClusterList,
// PodList, and, behind the service proxy path, that cluster's Ray: version, nodes, placement groups,
// jobs), watches held open and silent. Like a real Ray, every `ray status` differs from the one
// before (its first line is a time), and the first --churn contexts (default 2) change their node and
// placement group lists every 2 s (a simulation's steps: hosts replaced, groups created and removed). This process runs what the window runs: a FleetSource of N
// KubeSources (each with its RayCluster's Ray view polled every 2 s through the proxy), every fleet
// capture built into a snapshot. Measured:
//  - first_frame_ms: from start() to the overview painted from the first fleet snapshot in which
//    every context's Ray answered (first_snapshot_ms: to that snapshot built);
//  - rss_mb: resident memory after the run (VmRSS);
//  - poll_cpu_ms_median: this process's CPU (user + system) per 2 s poll cycle, over the cycles
//    after the first frame (the polls, the captures, the snapshot builds).
// Targets: first frame <= 2 s, RSS <= 400 MB, a poll cycle's CPU <= 20 % of one core (400 ms per 2 s).
#include "benchstats.h"
#include "clustergenerator.h"
#include "fleetoverview.h"
#include "fleetsource.h"
#include "kubeconfig.h"
#include "kubesource.h"
#include "procstats.h"
#include "snapshot.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QSocketNotifier>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTimer>

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace slicescope::bench {

namespace {

struct ContextBodies {
    QByteArray rayClusters, pods, nodes, rayVersion;
    // The Ray lists, one pair per 2 s of the clock: a steady context has one pair, a churning one a
    // simulation's successive steps (hosts die and are replaced, groups are created and removed).
    QList<QByteArray> rayNodes, rayGroups;
    qsizetype now() const { return qsizetype(QDateTime::currentSecsSinceEpoch() / 2 % rayNodes.size()); }
};

// `ray status` as a real Ray answers it: the text's first line is the time of the autoscaler's
// report, so the body differs from one poll to the next even on an idle cluster.
QByteArray clusterStatus()
{
    const QByteArray time = QDateTime::currentDateTime().toString(QStringLiteral("yyyy-MM-dd hh:mm:ss.zzz")).toUtf8();
    return R"({"result":true,"msg":"","data":{"clusterStatus":"======== Autoscaler status: )" + time
           + R"( ========\nNode status\n---------------------------------------------------------------\nActive:\n (no active nodes)\n"}})";
}

QByteArray answer(int status, const QByteArray &body, bool keepOpen = false)
{
    QByteArray out = "HTTP/1.1 " + QByteArray::number(status) + (status == 200 ? " OK" : " Not Found") + "\r\nContent-Type: application/json\r\n";
    if (keepOpen) return out + "Transfer-Encoding: chunked\r\n\r\n"; // a watch: open and silent
    return out + "Content-Length: " + QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
}

// One scripted API server: lists, silent watches, and the Ray of its one RayCluster behind the
// service proxy path. One request per connection.
void serveContext(QTcpServer *server, const ContextBodies *b)
{
    QObject::connect(server, &QTcpServer::newConnection, server, [server, b] {
        while (QTcpSocket *socket = server->nextPendingConnection()) {
            auto buffer = std::make_shared<QByteArray>();
            QObject::connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            QObject::connect(socket, &QTcpSocket::readyRead, socket, [socket, buffer, b] {
                buffer->append(socket->readAll());
                if (!buffer->contains("\r\n\r\n")) return;
                const QByteArray target = buffer->left(buffer->indexOf("\r\n")).split(' ').value(1);
                const QByteArray path = target.left(target.indexOf('?') < 0 ? target.size() : target.indexOf('?'));
                const bool watch = target.contains("watch=1") || target.contains("watch=true");
                QByteArray reply;
                if (const qsizetype proxy = path.indexOf("/proxy/"); proxy >= 0) {
                    const QByteArray ray = path.mid(proxy + 7);
                    if (ray == "api/authentication_mode") reply = answer(200, R"({"authentication_mode":"disabled"})");
                    else if (ray == "api/version") reply = answer(200, b->rayVersion);
                    else if (ray == "api/v0/nodes") reply = answer(200, b->rayNodes[b->now()]);
                    else if (ray == "api/v0/placement_groups") reply = answer(200, b->rayGroups[b->now()]);
                    else if (ray == "api/jobs/") reply = answer(200, "[]");
                    else if (ray == "api/cluster_status") reply = answer(200, clusterStatus());
                    else reply = answer(404, R"({"result":false,"msg":"not scripted"})");
                } else if (path.endsWith("/rayclusters")) {
                    reply = watch ? answer(200, {}, true) : answer(200, b->rayClusters);
                } else if (path.endsWith("/pods")) {
                    reply = watch ? answer(200, {}, true) : answer(200, b->pods);
                } else if (path.endsWith("/nodes")) {
                    reply = watch ? answer(200, {}, true) : answer(200, b->nodes);
                } else {
                    reply = answer(404, R"({"kind":"Status","status":"Failure","reason":"NotFound"})");
                }
                socket->write(reply);
                if (!watch || path.contains("/proxy/")) socket->disconnectFromHost();
            });
        }
    });
}

double cpuMs()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return (double(u.ru_utime.tv_sec) + double(u.ru_stime.tv_sec)) * 1000.0 + (double(u.ru_utime.tv_usec) + double(u.ru_stime.tv_usec)) / 1000.0;
}

} // namespace

// The child: prints one port per context, then serves until its stdin closes. The first `churn`
// contexts' Ray lists change every 2 s.
int runFleetServe(int contexts, int nodes, int churn)
{
    std::vector<ContextBodies> bodies(static_cast<size_t>(contexts));
    std::vector<std::unique_ptr<QTcpServer>> servers;
    for (int i = 0; i < contexts; ++i) {
        GeneratorOptions o;
        o.nodes = nodes;
        o.placementGroups = std::max(1, nodes / 5);
        o.seed = quint32(i + 1);
        o.kubernetes = true;
        ClusterSimulation sim(o);
        const Capture c = sim.capture();
        ContextBodies &b = bodies[size_t(i)];
        b.rayClusters = c.kubeRayClusters;
        b.pods = c.kubePods;
        b.nodes = R"({"apiVersion":"v1","kind":"NodeList","metadata":{"resourceVersion":"1"},"items":[]})";
        b.rayVersion = c.rayVersion;
        b.rayNodes << c.rayNodes;
        b.rayGroups << c.rayPlacementGroups;
        for (int step = 1; i < churn && step < 8; ++step) {
            sim.step(0.01);
            const Capture next = sim.capture();
            b.rayNodes << next.rayNodes;
            b.rayGroups << next.rayPlacementGroups;
        }
        auto server = std::make_unique<QTcpServer>();
        if (!server->listen(QHostAddress::LocalHost, 0)) return 1;
        serveContext(server.get(), &b);
        std::printf("%u\n", unsigned(server->serverPort()));
        servers.push_back(std::move(server));
    }
    std::fflush(stdout);
    // The parent closes our stdin (or dies): stop.
    QSocketNotifier *notifier = new QSocketNotifier(0, QSocketNotifier::Read, qApp);
    QObject::connect(notifier, &QSocketNotifier::activated, [notifier] {
        char c;
        if (::read(0, &c, 1) <= 0) {
            notifier->setEnabled(false);
            QCoreApplication::exit(0);
        }
    });
    return QCoreApplication::exec();
}

int runFleetBenchmark(int argc, char **argv, int first, const std::function<int(const std::string &)> &usageError)
{
    int contexts = 20, nodes = 500, seconds = 20, churn = 2;
    bool json = false;
    for (int i = first; i < argc; ++i) {
        const std::string option = argv[i];
        auto value = [&](int &out) {
            if (i + 1 >= argc) return false;
            out = std::atoi(argv[++i]);
            return out > 0;
        };
        if (option == "--json") json = true;
        else if (option == "--contexts" && value(contexts)) continue;
        else if (option == "--nodes" && value(nodes)) continue;
        else if (option == "--seconds" && value(seconds)) continue;
        else if (option == "--churn" && i + 1 < argc) churn = std::clamp(std::atoi(argv[++i]), 0, contexts);
        else return usageError("unknown or bad option for fleet: " + option);
    }
    if (contexts > 64) return usageError("--contexts: at most 64 (the window's bound)");

    QProcess servers;
    servers.setProgram(QCoreApplication::applicationFilePath());
    servers.setArguments({QStringLiteral("fleet-serve"), QStringLiteral("--contexts"), QString::number(contexts), QStringLiteral("--nodes"), QString::number(nodes),
                          QStringLiteral("--churn"), QString::number(churn)});
    servers.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    servers.start();
    QList<quint16> ports;
    QElapsedTimer waiting;
    waiting.start();
    while (ports.size() < contexts && waiting.elapsed() < 120000 && servers.state() != QProcess::NotRunning) {
        servers.waitForReadyRead(1000);
        while (servers.canReadLine())
            ports << quint16(servers.readLine().trimmed().toUInt());
    }
    if (ports.size() < contexts) {
        std::fprintf(stderr, "slicescope-bench fleet: the scripted servers did not start (%d of %d)\n", int(ports.size()), contexts);
        return 1;
    }

    // One kubeconfig, a context per server.
    QTemporaryDir dir;
    QByteArray yaml = "apiVersion: v1\nkind: Config\ncurrent-context: c0\nclusters:\n";
    for (int i = 0; i < contexts; ++i)
        yaml += "- name: c" + QByteArray::number(i) + "\n  cluster:\n    server: http://127.0.0.1:" + QByteArray::number(ports[i]) + "\n";
    yaml += "users:\n- name: u\n  user:\n    token: bench\ncontexts:\n";
    for (int i = 0; i < contexts; ++i)
        yaml += "- name: c" + QByteArray::number(i) + "\n  context:\n    cluster: c" + QByteArray::number(i) + "\n    user: u\n    namespace: ray\n";
    const QString kubeconfig = dir.filePath(QStringLiteral("kubeconfig"));
    {
        QFile f(kubeconfig);
        if (!f.open(QIODevice::WriteOnly) || f.write(yaml) != yaml.size()) return 1;
    }

    std::vector<std::unique_ptr<KubeSource>> sources;
    for (int i = 0; i < contexts; ++i) {
        KubeConfig config;
        if (const QString problem = loadKubeConfig({kubeconfig}, QStringLiteral("c%1").arg(i), {}, config); !problem.isEmpty()) {
            std::fprintf(stderr, "slicescope-bench fleet: %s\n", qPrintable(problem));
            return 1;
        }
        KubeSourceOptions options;
        options.allNamespaces = true;
        sources.push_back(std::make_unique<KubeSource>(config, options));
    }
    FleetSource fleet(std::move(sources));
    QElapsedTimer clock;
    double firstFrameMs = -1, firstSnapshotMs = -1;
    FleetOverview overview; // the window's overview, painted once for the first frame
    overview.resize(1920, 1080);
    int snapshots = 0, slices = 0, clusters = 0, views = 0;
    QString problem;
    QObject::connect(&fleet, &Source::captureReceived, &fleet, [&](const Capture &c) {
        const SnapshotPtr s = buildSnapshot(c);
        ++snapshots;
        slices = int(s->slices.size());
        clusters = int(s->rayClusters.size());
        views = 0;
        for (const RayViewState &v : s->rayViews)
            views += v.answered && v.error.isEmpty();
        if (firstFrameMs < 0 && views == contexts) {
            firstSnapshotMs = double(clock.nsecsElapsed()) / 1e6;
            overview.setSnapshot(s);
            QImage frame(overview.size(), QImage::Format_ARGB32_Premultiplied);
            overview.render(&frame);
            firstFrameMs = double(clock.nsecsElapsed()) / 1e6;
        }
    });
    QObject::connect(&fleet, &Source::failed, &fleet, [&](const QString &m) { problem = m; });

    // CPU per 2 s cycle, once every context's Ray answered.
    std::vector<double> cycleCpu;
    double lastCpu = 0;
    QTimer cycle;
    QObject::connect(&cycle, &QTimer::timeout, &cycle, [&] {
        const double now = cpuMs();
        if (firstFrameMs >= 0 && lastCpu > 0) cycleCpu.push_back(now - lastCpu);
        lastCpu = firstFrameMs >= 0 ? now : 0;
    });
    clock.start();
    fleet.start();
    cycle.start(2000);
    QTimer::singleShot(seconds * 1000, qApp, [] { QCoreApplication::exit(0); });
    QCoreApplication::exec();
    fleet.stop();
    const Rss rss = readRss();
    servers.closeWriteChannel();
    if (!servers.waitForFinished(5000)) servers.kill();

    if (firstFrameMs < 0) {
        std::fprintf(stderr, "slicescope-bench fleet: no snapshot with every context's Ray within %d s (%d answering; %s)\n", seconds, views, qPrintable(problem));
        return 1;
    }
    const Stats cpu = statsOf(cycleCpu);
    if (json) {
        std::printf("{\"contexts\": %d, \"churning_contexts\": %d, \"clusters\": %d, \"nodes\": %d, \"first_frame_ms\": %.1f, \"first_snapshot_ms\": %.1f, \"rss_mb\": %.1f, \"poll_cpu_ms_median\": %.1f, "
                    "\"poll_cpu_ms_max\": %.1f, \"poll_interval_ms\": 2000, \"cycles\": %d, \"snapshots\": %d, \"slices\": %d, "
                    "\"targets\": {\"first_frame_ms\": 2000, \"rss_mb\": 400, \"poll_cpu_ms_median\": 400}, "
                    "\"measures\": \"a FleetSource of KubeSources against scripted API servers in a child process (its CPU not counted); first frame: start to the overview painted (1920x1080, offscreen) from the first fleet snapshot with every context's Ray\"}\n",
                    contexts, churn, clusters, contexts * nodes, firstFrameMs, firstSnapshotMs, rss.current, cpu.median, cpu.max, int(cycleCpu.size()), snapshots, slices);
        return 0;
    }
    std::printf("fleet: %d contexts x %d Ray nodes (%d changing every 2 s), %d RayClusters, %d slices\n", contexts, nodes, churn, clusters, slices);
    std::printf("first frame (every context's Ray in one snapshot, the overview painted): %.1f ms   (target <= 2000; snapshot built at %.1f ms)\n", firstFrameMs,
                firstSnapshotMs);
    std::printf("resident memory: %.1f MB   (target <= 400)\n", rss.current);
    std::printf("CPU per 2 s poll cycle: median %.1f ms, max %.1f ms over %d cycles   (target <= 400: 20 %% of a core); %d snapshots built\n", cpu.median, cpu.max,
                int(cycleCpu.size()), snapshots);
    return 0;
}

} // namespace slicescope::bench
