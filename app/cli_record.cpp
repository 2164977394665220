// SPDX-License-Identifier: GPL-3.0-or-later
// `slicescope record`: a SOURCE's captures, one per interval for a duration, written as a JSON
// Lines recording the window reads back (File > Open) and `inspect --step` scrubs. A recording
// with holes would look like a quiet cluster: it stops at the first failure of a source (Ray, the
// Kubernetes API, or --prometheus down, refusing, redirecting, answering too much or garbage:
// issue 30), keeps what it wrote, exits 1 and says why on stderr and in --json `sourceErrors`.

#include "cli_p.h"

#include "capturefile.h"
#include "democluster.h"
#include "livesource.h"
#include "rayclient.h"
#include "sourceoptions.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QTextStream>
#include <QTimer>
#include <QUrl>

#include <algorithm>
#include <optional>

namespace slicescope::cli {

namespace {

// Writes one capture per line and flushes it, so a recording cut short (a failed source, a
// kill) is still valid JSON Lines up to its last complete line.
class RecordingWriter
{
public:
    explicit RecordingWriter(const QString &path)
        : m_file(path)
    { }
    QString open()
    {
        return m_file.open(QIODevice::WriteOnly | QIODevice::Truncate)
                   ? QString()
                   : QStringLiteral("%1: cannot write the recording (%2)").arg(m_file.fileName(), m_file.errorString());
    }
    QString write(const Capture &capture)
    {
        QByteArray line = serializeCapture(capture);
        line.append('\n');
        if (m_file.write(line) != line.size() || !m_file.flush())
            return QStringLiteral("%1: writing the recording failed (%2)").arg(m_file.fileName(), m_file.errorString());
        ++m_count;
        m_bytes += line.size();
        return {};
    }
    int count() const { return m_count; }
    qint64 bytes() const { return m_bytes; }

private:
    QFile m_file;
    int m_count = 0;
    qint64 m_bytes = 0;
};

} // namespace

int record(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.addOptions({
        {QStringLiteral("interval"), QStringLiteral("Time between captures: 500ms, 2s, 1m (default 2s)."), QStringLiteral("T"), QStringLiteral("2s")},
        {QStringLiteral("duration"), QStringLiteral("How long to record (default 60s): duration/interval captures."), QStringLiteral("T"), QStringLiteral("60s")},
        {{QStringLiteral("o"), QStringLiteral("output")}, QStringLiteral("The recording to write (*.slicescope.jsonl)."), QStringLiteral("FILE")},
    });
    // For tests: the demo's simulated time advances one interval per capture, without waiting.
    QCommandLineOption demoFast(QStringLiteral("demo-fast"));
    demoFast.setFlags(QCommandLineOption::HiddenFromHelp);
    parser.addOption(demoFast);
    SourceSpec spec;
    if (const int code = parse(parser, arguments, QStringLiteral("record"), spec); code >= 0)
        return code;
    const qint64 intervalMs = parseDurationMs(parser.value(QStringLiteral("interval")));
    if (intervalMs < 100)
        return fail(BadUsage, QStringLiteral("--interval wants a time of at least 100ms, like 500ms, 2s or 1m, not \"%1\"").arg(parser.value(QStringLiteral("interval"))));
    const qint64 durationMs = parseDurationMs(parser.value(QStringLiteral("duration")));
    if (durationMs <= 0)
        return fail(BadUsage, QStringLiteral("--duration wants a time like 500ms, 2s or 1m, not \"%1\"").arg(parser.value(QStringLiteral("duration"))));
    const QString output = parser.value(QStringLiteral("output"));
    if (output.isEmpty())
        return fail(BadUsage, QStringLiteral("record needs -o FILE.slicescope.jsonl"));
    if (parser.isSet(demoFast) && spec.kind != SourceSpec::Kind::Demo)
        return fail(BadUsage, QStringLiteral("--demo-fast goes with --demo"));
    const int wanted = int(std::max<qint64>(1, durationMs / intervalMs));

    RecordingWriter writer(output);
    QString failure;
    QList<ActivityTable::SourceError> failedSources;
    // With --prometheus, each capture's answers are read as the join reads them: one that failed
    // (the round's error, or an answer that says nothing usable) ends the recording after it.
    auto prometheusFailed = [&](const Capture &capture) {
        if (spec.prometheusUrl.isEmpty())
            return false;
        failedSources = sourceErrors(spec, *buildSnapshot(capture));
        QStringList messages;
        for (const ActivityTable::SourceError &e : std::as_const(failedSources))
            messages << e.message;
        failure = messages.join(QStringLiteral("; "));
        return !failedSources.isEmpty();
    };
    QElapsedTimer clock;
    clock.start();
    switch (spec.kind) {
    case SourceSpec::Kind::None:
    case SourceSpec::Kind::Demo: {
        DemoCluster demo(spec.demoSeed);
        demo.advance(spec.demoAdvanceMs);
        if (const QString error = writer.open(); !error.isEmpty())
            return fail(Failed, error);
        if (parser.isSet(demoFast)) {
            for (int i = 0; i < wanted && failure.isEmpty(); ++i) {
                if (i > 0)
                    demo.advance(intervalMs);
                failure = writer.write(demo.capture());
            }
            break;
        }
        // Real time, like the window: the simulation moves by the time that actually passed.
        QTimer tick;
        QElapsedTimer sinceLast;
        QObject::connect(&tick, &QTimer::timeout, &tick, [&] {
            demo.advance(sinceLast.restart());
            failure = writer.write(demo.capture());
            if (!failure.isEmpty() || writer.count() >= wanted)
                QCoreApplication::exit(failure.isEmpty() ? 0 : 1);
        });
        runLoop([&] {
            sinceLast.start();
            failure = writer.write(demo.capture());
            if (!failure.isEmpty() || writer.count() >= wanted)
                QCoreApplication::exit(failure.isEmpty() ? 0 : 1);
            else
                tick.start(int(intervalMs));
        });
        break;
    }
    case SourceSpec::Kind::CaptureFile: {
        // A copy: every capture of the file, as it is (a recording's own timing is kept).
        const CaptureReadResult read = readCaptureFile(spec.capturePath);
        if (!read.ok())
            return fail(Failed, read.error);
        if (const QString error = writer.open(); !error.isEmpty())
            return fail(Failed, error);
        for (const Capture &c : read.captures) {
            if (failure = writer.write(c); !failure.isEmpty())
                break;
        }
        break;
    }
    case SourceSpec::Kind::Relay:
        return fail(BadUsage, QStringLiteral("record reads a cluster directly; run it where the relay runs, with the relay's SOURCE"));
    case SourceSpec::Kind::Live: {
        if (spec.usesKubernetes()) {
            // Kubernetes sources (one context or a fleet) send a capture when something changes:
            // the newest is written every interval, stamped with the time it was taken.
            QString error;
            std::unique_ptr<Source> source = makeSource(spec, &error);
            if (!source)
                return fail(Failed, error);
            if (const QString openError = writer.open(); !openError.isEmpty())
                return fail(Failed, openError);
            std::optional<Capture> newest;
            QTimer tick;
            auto writeNewest = [&] {
                Capture c = *newest;
                c.capturedAt = QDateTime::currentDateTimeUtc();
                failure = writer.write(c);
                if (failure.isEmpty() && prometheusFailed(c))
                    QCoreApplication::exit(1);
                else if (!failure.isEmpty() || writer.count() >= wanted)
                    QCoreApplication::exit(failure.isEmpty() ? 0 : 1);
            };
            QObject::connect(&tick, &QTimer::timeout, &tick, writeNewest);
            QObject::connect(source.get(), &Source::captureReceived, source.get(), [&](const Capture &capture) {
                const bool first = !newest;
                newest = capture;
                if (first) {
                    writeNewest();
                    tick.start(int(intervalMs));
                }
            });
            QObject::connect(source.get(), &Source::failed, source.get(), [&](const QString &message) {
                failure = message;
                failedSources = {{QStringLiteral("kubernetes"), message}};
                QCoreApplication::exit(1);
            });
            runLoop([&] { source->start(); });
            tick.stop();
            break;
        }
        if (spec.rayUrl.isEmpty())
            return fail(Failed, QStringLiteral("--ray wants the dashboard's URL"));
        RayToken token;
        if (const QString problem = resolveRayToken(spec.rayTokenFile, token); !problem.isEmpty())
            return fail(Failed, problem);
        if (const QString error = writer.open(); !error.isEmpty())
            return fail(Failed, error);
        QString promProblem;
        std::unique_ptr<PrometheusPoller> prometheus = makePrometheus(spec, &promProblem);
        if (!promProblem.isEmpty())
            return fail(Failed, promProblem);
        LiveRaySource source{QUrl(spec.rayUrl), std::move(token)};
        source.setInterval(std::chrono::milliseconds(intervalMs));
        source.setPrometheus(std::move(prometheus));
        QObject::connect(&source, &Source::captureReceived, &source, [&](const Capture &capture) {
            failure = writer.write(capture);
            if (failure.isEmpty() && prometheusFailed(capture))
                QCoreApplication::exit(1);
            else if (!failure.isEmpty() || writer.count() >= wanted)
                QCoreApplication::exit(failure.isEmpty() ? 0 : 1);
        });
        // A recording with holes would look like a quiet cluster: stop at the first failure.
        QObject::connect(&source, &Source::failed, &source, [&](const QString &message) {
            failure = message;
            failedSources = {{QStringLiteral("ray"), message}};
            QCoreApplication::exit(1);
        });
        runLoop([&] { source.start(); });
        source.stop();
        break;
    }
    }
    const QJsonObject summary{
        {QStringLiteral("output"), output},
        {QStringLiteral("captures"), writer.count()},
        {QStringLiteral("bytes"), writer.bytes()},
        {QStringLiteral("intervalMs"), intervalMs},
        {QStringLiteral("seconds"), double(clock.elapsed()) / 1000.0},
        {QStringLiteral("complete"), failure.isEmpty()},
        {QStringLiteral("sourceErrors"), sourceErrorsJson(failedSources)},
    };
    if (!failure.isEmpty()) {
        // The lines written so far stay: each is a complete capture. A source's failure is in
        // --json too (the summary, "complete": false), as alerts and inspect give theirs.
        if (parser.isSet(QStringLiteral("json")) && !failedSources.isEmpty())
            printJson(summary);
        return fail(Failed, QStringLiteral("%1 (kept the %2 capture(s) recorded so far in %3)").arg(failure).arg(writer.count()).arg(output));
    }
    if (parser.isSet(QStringLiteral("json")))
        printJson(summary);
    else
        QTextStream(stdout) << QStringLiteral("%1: %2 captures, %3 bytes\n").arg(output).arg(writer.count()).arg(writer.bytes());
    return Success;
}

} // namespace slicescope::cli
