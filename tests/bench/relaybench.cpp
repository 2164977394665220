// SPDX-License-Identifier: GPL-3.0-or-later
// `slicescope-bench relay`: the relay (`slicescope serve --demo`, its own process) under the load of
// issue 30: 1,000 idle connections without the token (reopened as the relay closes them, at most 100
// a second), a client that sends its header a byte every 500 ms, and a client that POSTs a 100 GiB
// body as fast as the relay takes it (reconnecting a second after each refusal), while a good client
// with the token asks for the page every 5 s. Prints the relay's resident memory (its VmRSS sampled
// every 200 ms and its VmHWM at the end, from /proc) against its idle baseline, the good client's
// served ratio and latency, and what the attackers got. A figure, not a pass/fail test.

#include "benchstats.h"
#include "historybench.h"

#include "../common/procmemory.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTcpSocket>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <sys/resource.h>

namespace slicescope::bench {

namespace {

struct Figures {
    double baselineRss = 0, maxRss = 0, peakHwm = 0;
    int goodAttempts = 0, goodServed = 0;
    std::vector<double> goodLatencyMs;
    std::vector<std::string> goodFailures; // "at 6.0 s: ..." for each good request not served
    int idleOpened = 0, idleClosedByRelay = 0;
    int slowCutoffs = 0;
    double slowLongestMs = 0;
    qint64 bodyBytesSent = 0;
    int bodyRefusals413 = 0, bodyConnections = 0;
};

class Load : public QObject
{
public:
    Load(quint16 port, QByteArray token, qint64 pid, int idleTarget, int seconds, Figures &f)
        : m_port(port)
        , m_token(std::move(token))
        , m_pid(pid)
        , m_idleTarget(idleTarget)
        , m_seconds(seconds)
        , m_f(f)
    { }

    void start()
    {
        m_clock.start();
        for (int i = 0; i < m_idleTarget; ++i)
            openIdle();
        auto *reopen = new QTimer(this);
        connect(reopen, &QTimer::timeout, this, [this] {
            for (int i = 0; i < 10 && m_idleOpen < m_idleTarget; ++i) // at most 100 a second
                openIdle();
        });
        reopen->start(100);
        openSlow();
        openBody();
        auto *good = new QTimer(this);
        connect(good, &QTimer::timeout, this, &Load::goodRequest);
        good->start(5000);
        QTimer::singleShot(1000, this, &Load::goodRequest);
        auto *sample = new QTimer(this);
        connect(sample, &QTimer::timeout, this, [this] { m_f.maxRss = std::max(m_f.maxRss, testing::procStatusMiB("VmRSS", m_pid)); });
        sample->start(200);
    }

private:
    QTcpSocket *open()
    {
        auto *s = new QTcpSocket(this);
        s->connectToHost(QHostAddress::LocalHost, m_port);
        return s;
    }
    void openIdle()
    {
        QTcpSocket *s = open();
        ++m_idleOpen;
        ++m_f.idleOpened;
        connect(s, &QTcpSocket::disconnected, this, [this, s] {
            --m_idleOpen;
            ++m_f.idleClosedByRelay;
            s->deleteLater();
        });
        connect(s, &QTcpSocket::errorOccurred, this, [this, s] {
            if (s->state() == QAbstractSocket::UnconnectedState && s->property("counted").isNull()) {
                s->setProperty("counted", true);
                if (s->error() != QAbstractSocket::RemoteHostClosedError) {
                    --m_idleOpen;
                    s->deleteLater();
                }
            }
        });
    }
    void openSlow()
    {
        QTcpSocket *s = open();
        auto *clock = new QElapsedTimer;
        clock->start();
        auto *drip = new QTimer(s);
        const QByteArray head = "GET / HTTP/1.1\r\nHost: 127.0.0.1:" + QByteArray::number(m_port) + "\r\nX-Slow: ";
        auto sent = std::make_shared<qsizetype>(0);
        connect(drip, &QTimer::timeout, s, [s, head, sent] { s->write(*sent < head.size() ? head.mid((*sent)++, 1) : QByteArray("a")); });
        connect(s, &QTcpSocket::connected, drip, [drip] { drip->start(500); });
        connect(s, &QTcpSocket::disconnected, this, [this, s, clock] {
            ++m_f.slowCutoffs;
            m_f.slowLongestMs = std::max(m_f.slowLongestMs, double(clock->elapsed()));
            delete clock;
            s->deleteLater();
            QTimer::singleShot(100, this, &Load::openSlow);
        });
    }
    void openBody()
    {
        QTcpSocket *s = open();
        ++m_f.bodyConnections;
        auto got = std::make_shared<QByteArray>();
        const QByteArray chunk(64 * 1024, 'b');
        auto pump = [this, s, chunk] {
            while (s->state() == QAbstractSocket::ConnectedState && s->bytesToWrite() < (1 << 20)) {
                s->write(chunk);
                m_f.bodyBytesSent += chunk.size();
            }
        };
        connect(s, &QTcpSocket::connected, s, [s, this, pump] {
            s->write("POST / HTTP/1.1\r\nHost: 127.0.0.1:" + QByteArray::number(m_port)
                     + "\r\nOrigin: http://evil.example\r\nContent-Length: 107374182400\r\n\r\n");
            pump();
        });
        connect(s, &QTcpSocket::bytesWritten, s, pump);
        connect(s, &QTcpSocket::readyRead, s, [s, got] {
            if (got->size() < 4096)
                *got += s->read(4096);
            else
                s->readAll();
        });
        connect(s, &QTcpSocket::disconnected, this, [this, s, got] {
            if (got->startsWith("HTTP/1.1 413"))
                ++m_f.bodyRefusals413;
            s->deleteLater();
            QTimer::singleShot(1000, this, &Load::openBody);
        });
    }
    void goodRequest()
    {
        if (m_clock.elapsed() > m_seconds * 1000)
            return; // the load is over; the last request has its 5 s to finish
        ++m_f.goodAttempts;
        QTcpSocket *s = open();
        auto *clock = new QElapsedTimer;
        clock->start();
        auto got = std::make_shared<QByteArray>();
        connect(s, &QTcpSocket::connected, s, [this, s] {
            s->write("GET /?token=" + m_token + " HTTP/1.1\r\nHost: 127.0.0.1:" + QByteArray::number(m_port) + "\r\nConnection: close\r\n\r\n");
        });
        connect(s, &QTcpSocket::readyRead, s, [this, s, got, clock] {
            *got += s->readAll();
            if (got->startsWith("HTTP/1.1 200") && got->contains("</p>") && !s->property("served").toBool()) {
                s->setProperty("served", true);
                ++m_f.goodServed;
                m_f.goodLatencyMs.push_back(double(clock->nsecsElapsed()) / 1e6);
            }
        });
        const double at = double(m_clock.elapsed()) / 1000;
        QTimer::singleShot(5000, s, [this, s, clock, got, at] {
            if (!s->property("served").toBool()) {
                const char *what = s->state() == QAbstractSocket::ConnectedState ? "no answer in 5 s"
                                   : got->isEmpty()                              ? "closed without an answer"
                                                                                 : "a wrong answer";
                char line[160];
                std::snprintf(line, sizeof line, "at %.1f s: %s (%s)", at, what, got->left(40).simplified().constData());
                m_f.goodFailures.push_back(line);
            }
            delete clock;
            s->abort();
            s->deleteLater();
        });
    }

    quint16 m_port;
    QByteArray m_token;
    qint64 m_pid;
    int m_idleTarget;
    int m_seconds;
    int m_idleOpen = 0;
    QElapsedTimer m_clock;
    Figures &m_f;
};

} // namespace

int runRelayBenchmark(int argc, char **argv, int first, const std::function<int(const std::string &)> &usageError)
{
    int seconds = 60, idle = 1000;
    bool json = false;
    QString binary = QStringLiteral(SLICESCOPE_BINARY);
    for (int i = first; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (a == "--seconds" && i + 1 < argc) seconds = std::max(6, std::atoi(argv[++i]));
        else if (a == "--idle" && i + 1 < argc) idle = std::clamp(std::atoi(argv[++i]), 0, 20000);
        else if (a == "--binary" && i + 1 < argc) binary = QString::fromLocal8Bit(argv[++i]);
        else if (a == "--json") json = true;
        else return usageError("relay: unknown option '" + std::string(a) + "'");
    }
    int qargc = 1;
    char *qargv[] = {argv[0], nullptr};
    QCoreApplication app(qargc, qargv);
    rlimit limit{};
    getrlimit(RLIMIT_NOFILE, &limit);
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
    if (rlim_t(idle) + 64 > limit.rlim_cur) {
        const int fit = std::max(0, int(limit.rlim_cur) - 64);
        std::fprintf(stderr, "slicescope-bench relay: %d idle connections need more open files than this process may have (%llu); using %d\n",
                     idle, (unsigned long long)limit.rlim_cur, fit);
        idle = fit;
    }

    QProcess relay;
    relay.setProcessChannelMode(QProcess::SeparateChannels);
    relay.start(binary, {QStringLiteral("serve"), QStringLiteral("--demo"), QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0")});
    static const QRegularExpression line(QStringLiteral(R"( at http://127\.0\.0\.1:(\d+)/\?token=([A-Za-z0-9_-]{43}))"));
    QByteArray err;
    QRegularExpressionMatch m;
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < 20000 && !m.hasMatch() && relay.state() != QProcess::NotRunning) {
        relay.waitForReadyRead(200);
        err += relay.readAllStandardError();
        m = line.match(QString::fromUtf8(err));
    }
    if (!m.hasMatch()) {
        std::fprintf(stderr, "slicescope-bench relay: %s serve printed no URL line: %s\n", qPrintable(binary), err.constData());
        return 1;
    }
    relay.closeReadChannel(QProcess::StandardError); // its log of every refusal is not read here
    const qint64 pid = relay.processId();
    Figures f;
    QTimer::singleShot(1500, &app, [&] { f.baselineRss = testing::procStatusMiB("VmRSS", pid); }); // once its first capture is made
    Load *load = nullptr;
    QTimer::singleShot(2000, &app, [&] {
        load = new Load(quint16(m.captured(1).toUInt()), m.captured(2).toLatin1(), pid, idle, seconds, f);
        load->start();
    });
    QTimer::singleShot(2000 + seconds * 1000 + 5500, &app, &QCoreApplication::quit); // the last good request's 5 s
    app.exec();
    f.peakHwm = testing::procStatusMiB("VmHWM", pid);
    delete load;
    relay.terminate();
    relay.waitForFinished(5000);

    std::sort(f.goodLatencyMs.begin(), f.goodLatencyMs.end());
    const double ratio = f.goodAttempts ? double(f.goodServed) / f.goodAttempts : 0;
    const double latencyMax = f.goodLatencyMs.empty() ? -1 : f.goodLatencyMs.back();
    const double latencyMedian = f.goodLatencyMs.empty() ? -1 : f.goodLatencyMs[f.goodLatencyMs.size() / 2];
    std::printf("relay under load for %d s: %d idle connections, a slow-header client, a 100 GiB body\n", seconds, idle);
    std::printf("  relay resident memory: baseline %.1f MiB, max sampled %.1f MiB, peak (VmHWM) %.1f MiB, growth %.1f MiB\n", f.baselineRss,
                f.maxRss, f.peakHwm, f.maxRss - f.baselineRss);
    std::printf("  good client: served %d of %d (ratio %.2f), latency median %.1f ms, max %.1f ms\n", f.goodServed, f.goodAttempts, ratio,
                latencyMedian, latencyMax);
    std::printf("  idle: %d opened, %d closed by the relay; slow header: cut %d times, longest %.1f s; body: %.1f MiB sent over %d "
                "connections, %d answered 413\n",
                f.idleOpened, f.idleClosedByRelay, f.slowCutoffs, f.slowLongestMs / 1000, double(f.bodyBytesSent) / (1 << 20),
                f.bodyConnections, f.bodyRefusals413);
    for (const std::string &failure : f.goodFailures)
        std::printf("  good request not served %s\n", failure.c_str());
    if (json)
        std::printf("{\"bench\":\"relay\",\"seconds\":%d,\"idle\":%d,\"relay_baseline_rss_mb\":%.1f,\"relay_max_rss_mb\":%.1f,"
                    "\"relay_peak_hwm_mb\":%.1f,\"served\":%d,\"attempts\":%d,\"served_ratio\":%.3f,\"good_latency_median_ms\":%.1f,"
                    "\"good_latency_max_ms\":%.1f,\"idle_opened\":%d,\"idle_closed_by_relay\":%d,\"slow_header_cutoffs\":%d,"
                    "\"slow_header_longest_s\":%.1f,\"body_mb_sent\":%.1f,\"body_connections\":%d,\"body_refused_413\":%d}\n",
                    seconds, idle, f.baselineRss, f.maxRss, f.peakHwm, f.goodServed, f.goodAttempts, ratio, latencyMedian, latencyMax,
                    f.idleOpened, f.idleClosedByRelay, f.slowCutoffs, f.slowLongestMs / 1000, double(f.bodyBytesSent) / (1 << 20),
                    f.bodyConnections, f.bodyRefusals413);
    return 0;
}

} // namespace slicescope::bench
