// SPDX-License-Identifier: GPL-3.0-or-later
// A recording written by `slicescope record` replays, step by step, to the same `inspect --json`
// as each of its captures inspected on its own: through SnapshotHistory (what the window's
// timeline shows when scrubbed there) and through `inspect --capture REC --step N`, whose alerts
// are those of the recording replayed up to that step (a capture alone has no past). Also the
// pieces a window uses to open and save recordings: CaptureFileSource emits every capture in
// order, and CaptureSpool keeps captures on disk and writes them back byte for byte.

#include "../common/clirun.h"
#include "alerts.h"
#include "capturefile.h"
#include "democluster.h"
#include "history.h"
#include "inspectjson.h"
#include "snapshot.h"
#include "source.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace slicescope;

namespace {

using Run = testing::CliRun;

Run runSlicescope(const QStringList &args)
{
    return testing::runCli(args, {}, {}, 120000);
}

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// The demo advanced step by step, written as the `record` verb writes (one serialized capture
// per line).
QString writeDemoRecording(const QTemporaryDir &dir, const QString &name, int captures, qint64 intervalMs)
{
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    DemoCluster demo;
    for (int i = 0; i < captures; ++i) {
        if (i > 0)
            demo.advance(intervalMs);
        f.write(serializeCapture(demo.capture()) + '\n');
    }
    return path;
}

} // namespace

class TestRecordingReplay : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // Ten minutes of the demo, a capture every 30 s, through the real verb.
        m_recording = m_dir.filePath(QStringLiteral("demo.slicescope.jsonl"));
        const Run r = runSlicescope({QStringLiteral("record"), QStringLiteral("--demo"), QStringLiteral("--demo-fast"), QStringLiteral("--interval"), QStringLiteral("30s"),
                                     QStringLiteral("--duration"), QStringLiteral("10m"), QStringLiteral("-o"), m_recording, QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const CaptureReadResult read = readCaptureFile(m_recording);
        QVERIFY2(read.ok(), qPrintable(read.error));
        m_captures = read.captures;
        QCOMPARE(m_captures.size(), 20);
    }

    void historyRebuildsEveryStepAsInspectSeesIt()
    {
        SnapshotHistory history(HistoryPolicy{0, 0});
        for (const Capture &c : std::as_const(m_captures))
            history.add(buildSnapshot(c));
        QCOMPARE(history.size(), m_captures.size());
        int events = 0;
        for (int i = 0; i < history.size(); ++i) {
            const QJsonObject expected = inspectJson(*buildSnapshot(m_captures[i]));
            const QJsonObject rebuilt = inspectJson(*history.snapshot(i));
            if (rebuilt != expected)
                QFAIL(qPrintable(QStringLiteral("step %1 differs:\n%2\nexpected:\n%3").arg(i).arg(QString::fromUtf8(QJsonDocument(rebuilt).toJson()), QString::fromUtf8(QJsonDocument(expected).toJson()))));
            QCOMPARE(history.time(i), m_captures[i].capturedAt);
            events += int(history.events(i).size());
        }
        // The recording must show a changing cluster, or the comparison proves little.
        QVERIFY(inspectJson(*history.snapshot(0)) != inspectJson(*history.snapshot(history.size() - 1)));
        qInfo("%d steps, %d events", int(history.size()), events);
    }

    void inspectStepEqualsInspectOfThatCapture()
    {
        // The cluster of step i is capture i's; its alerts are an engine's fed captures 0..i.
        auto withoutAlerts = [](QJsonObject doc) {
            doc.remove(QStringLiteral("alerts"));
            return doc;
        };
        AlertEngine replay;
        bool alertsDiffer = false;
        for (int i = 0; i < m_captures.size(); ++i) {
            replay.observe(*buildSnapshot(m_captures[i]));
            const QString single = m_dir.filePath(QStringLiteral("step-%1.slicescope.json").arg(i));
            QCOMPARE(writeCaptureFile(single, m_captures[i]), QString());
            const Run alone = runSlicescope({QStringLiteral("inspect"), QStringLiteral("--capture"), single, QStringLiteral("--json")});
            QVERIFY2(alone.exitCode == 0, alone.err.constData());
            const Run step = runSlicescope({QStringLiteral("inspect"), QStringLiteral("--capture"), m_recording, QStringLiteral("--step"), QString::number(i),
                                            QStringLiteral("--json")});
            QVERIFY2(step.exitCode == 0, step.err.constData());
            QVERIFY2(withoutAlerts(step.json()) == withoutAlerts(alone.json()), qPrintable(QStringLiteral("step %1 differs").arg(i)));
            QCOMPARE(step.json().value(QLatin1String("alerts")).toArray(), alertsJson(replay.alerts()));
            alertsDiffer = alertsDiffer || step.json().value(QLatin1String("alerts")) != alone.json().value(QLatin1String("alerts"));
            if (i == m_captures.size() - 1) {
                // -1 is the last, and the last is what inspect shows without --step.
                const Run last = runSlicescope({QStringLiteral("inspect"), QStringLiteral("--capture"), m_recording, QStringLiteral("--step=-1"), QStringLiteral("--json")});
                QCOMPARE(last.json(), step.json());
                const Run plain = runSlicescope({QStringLiteral("inspect"), QStringLiteral("--capture"), m_recording, QStringLiteral("--json")});
                QCOMPARE(plain.json(), step.json());
            }
        }
        // Ten minutes of the demo have alerts a single capture cannot show (a placement group
        // pending past five minutes), or this test proves nothing about the replay.
        QVERIFY(alertsDiffer);
    }

    void stepBadUsage_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("stderrMentions");
        QTest::newRow("past the end") << QStringList{QStringLiteral("--step"), QStringLiteral("20")} << QStringLiteral("holds 20 capture(s)");
        QTest::newRow("before the start") << QStringList{QStringLiteral("--step=-21")} << QStringLiteral("steps 0 to 19");
        QTest::newRow("not a number") << QStringList{QStringLiteral("--step"), QStringLiteral("last")} << QStringLiteral("--step wants a capture number");
    }

    void stepBadUsage()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, stderrMentions);
        const Run r = runSlicescope(QStringList{QStringLiteral("inspect"), QStringLiteral("--capture"), m_recording, QStringLiteral("--json")} + args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.out.isEmpty());
        const QString err = QString::fromUtf8(r.err).trimmed();
        QVERIFY2(err.startsWith(QLatin1String("slicescope: ")) && err.contains(stderrMentions) && !err.contains(u'\n'), qPrintable(err));
    }

    void stepWantsARecording()
    {
        const Run r = runSlicescope({QStringLiteral("inspect"), QStringLiteral("--demo"), QStringLiteral("--step"), QStringLiteral("0")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.lastErrLine().contains(QLatin1String("--step goes with --capture")), r.err.constData());
    }

    void captureFileSourceEmitsEveryCaptureInOrder()
    {
        CaptureFileSource source(m_recording);
        QList<QDateTime> times;
        QList<bool> loading;
        connect(&source, &Source::captureReceived, this, [&](const Capture &c) {
            times << c.capturedAt;
            loading << source.isLoading();
        });
        QSignalSpy finished(&source, &CaptureFileSource::loadingFinished);
        QSignalSpy failed(&source, &Source::failed);
        source.start();
        QTRY_COMPARE(finished.size(), 1);
        QCOMPARE(failed.size(), 0);
        QCOMPARE(finished.first().first().toInt(), m_captures.size());
        QCOMPARE(times.size(), m_captures.size());
        for (int i = 0; i < m_captures.size(); ++i)
            QCOMPARE(times[i], m_captures[i].capturedAt);
        // More follow while it says loading; the last one says it is done.
        QCOMPARE(loading.count(true), m_captures.size() - 1);
        QVERIFY(!loading.last());
        QVERIFY(!source.isLoading());
    }

    void aSingleCaptureArrivesInsideStart()
    {
        const QString single = m_dir.filePath(QStringLiteral("single.slicescope.json"));
        QCOMPARE(writeCaptureFile(single, m_captures[3]), QString());
        CaptureFileSource source(single);
        QSignalSpy received(&source, &Source::captureReceived);
        QSignalSpy finished(&source, &CaptureFileSource::loadingFinished);
        source.start();
        QCOMPARE(received.size(), 1); // synchronously, as before recordings were replayed
        QCOMPARE(finished.size(), 1);
        QVERIFY(!source.isLoading());
    }

    void aLongRecordingIsReadInSlices()
    {
        // 400 captures cannot all be read inside start(): the event loop gets turns in between.
        const QString path = writeDemoRecording(m_dir, QStringLiteral("long.slicescope.jsonl"), 400, 2000);
        QVERIFY(!path.isEmpty());
        CaptureFileSource source(path);
        QSignalSpy received(&source, &Source::captureReceived);
        QSignalSpy progress(&source, &CaptureFileSource::progressChanged);
        QSignalSpy finished(&source, &CaptureFileSource::loadingFinished);
        source.start();
        QVERIFY(received.size() < 400);
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 30000);
        QCOMPARE(received.size(), 400);
        QVERIFY(progress.size() >= 2);
        QCOMPARE(progress.last().at(1).toInt(), 100);
        qInfo("read in %d slices", int(progress.size()));
    }

    void aBadLineStopsWithItsPlaceAfterTheGoodOnes()
    {
        QByteArray bytes = readAll(m_recording);
        QList<QByteArray> lines = bytes.split('\n');
        lines[3] = lines[3].left(lines[3].size() / 2); // the fourth capture cut mid-body
        const QString path = m_dir.filePath(QStringLiteral("cut.slicescope.jsonl"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(lines.join('\n'));
        f.close();
        CaptureFileSource source(path);
        QSignalSpy received(&source, &Source::captureReceived);
        QSignalSpy failed(&source, &Source::failed);
        QSignalSpy finished(&source, &CaptureFileSource::loadingFinished);
        source.start();
        QTRY_COMPARE(failed.size(), 1);
        QCOMPARE(received.size(), 3);
        QCOMPARE(finished.size(), 0);
        const QString message = failed.first().first().toString();
        QVERIFY2(message.contains(path) && message.contains(QLatin1String("line 4")) && message.contains(QLatin1String("3 capture")), qPrintable(message));
        QVERIFY(!source.isLoading());
    }

    void spoolKeepsCapturesOnDiskAndWritesThemBack()
    {
        QTemporaryDir spoolDir;
        {
            // A segment per capture, so dropping shows in the files.
            CaptureSpool spool(spoolDir.path(), 1);
            for (int i = 0; i < 6; ++i)
                QCOMPARE(spool.append(100 + i, m_captures[i]), QString());
            QCOMPARE(spool.count(), 6);
            QCOMPARE(spool.files().size(), 6);
            QCOMPARE(spool.firstSerial(), 100);
            Capture back;
            QCOMPARE(spool.read(103, back), QString());
            QCOMPARE(serializeCapture(back), serializeCapture(m_captures[3]));
            QCOMPARE(inspectJson(*buildSnapshot(back)), inspectJson(*buildSnapshot(m_captures[3])));

            // The history evicted the two oldest: their files go.
            const QStringList before = spool.files();
            spool.dropBefore(102);
            QCOMPARE(spool.count(), 4);
            QVERIFY(!spool.contains(101));
            QVERIFY(!QFile::exists(before[0]) && !QFile::exists(before[1]) && QFile::exists(before[2]));

            // Saved as a recording: the `record` verb's bytes for the same captures.
            const QString saved = m_dir.filePath(QStringLiteral("saved.slicescope.jsonl"));
            int written = 0;
            QCOMPARE(spool.writeRecording(saved, {100, 101, 102, 103, 104, 105}, &written), QString());
            QCOMPARE(written, 4);
            const QList<QByteArray> recorded = readAll(m_recording).split('\n');
            QCOMPARE(readAll(saved), recorded.mid(2, 4).join('\n') + '\n');

            // A bound on bytes drops the oldest, never the newest.
            spool.setMaxBytes(1);
            QCOMPARE(spool.count(), 1);
            QCOMPARE(spool.firstSerial(), 105);
            QCOMPARE(spool.files().size(), 1);
        }
        // Gone with the spool.
        QCOMPARE(QDir(spoolDir.path()).entryList(QDir::Files).size(), 0);
    }

    void spoolSegmentsHoldManyCaptures()
    {
        QTemporaryDir spoolDir;
        const qint64 line = serializeCapture(m_captures[0]).size() + 1;
        CaptureSpool spool(spoolDir.path(), 3 * line); // about three captures a segment
        for (int i = 0; i < m_captures.size(); ++i)
            QCOMPARE(spool.append(i, m_captures[i]), QString());
        QVERIFY2(spool.files().size() >= 5 && spool.files().size() <= 10, qPrintable(QString::number(spool.files().size())));
        const QString saved = m_dir.filePath(QStringLiteral("all.slicescope.jsonl"));
        QList<qint64> serials;
        for (int i = 0; i < m_captures.size(); ++i)
            serials << i;
        QCOMPARE(spool.writeRecording(saved, serials), QString());
        QCOMPARE(readAll(saved), readAll(m_recording));
        spool.dropBefore(qint64(m_captures.size())); // everything
        QCOMPARE(spool.count(), 0);
        QVERIFY(spool.files().size() <= 1);
        QCOMPARE(spool.append(1000, m_captures[0]), QString()); // and on it goes
        Capture back;
        QCOMPARE(spool.read(1000, back), QString());
        QCOMPARE(back.capturedAt, m_captures[0].capturedAt);
        QVERIFY(!spool.writeRecording(saved, {1, 2}).isEmpty()); // nothing held: an error, not an empty file
    }

private:
    QTemporaryDir m_dir;
    QString m_recording;
    QList<Capture> m_captures;
};

QTEST_GUILESS_MAIN(TestRecordingReplay)
#include "tst_recording_replay.moc"
