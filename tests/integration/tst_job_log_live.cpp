// SPDX-License-Identifier: GPL-3.0-or-later
// A Ray job's log over the dashboard's /api/jobs/{id}/logs/tail WebSocket, against the real Ray
// that tests/integration/ray-harness.sh starts (token auth on): a job that prints numbered lines
// with short sleeps is tailed through JobLogTail into the JobLogView the window shows; every line
// must arrive, in order, and finished() must fire when Ray closes the socket. A wrong token fails
// with the clear message. Found through SLICESCOPE_RAY_DIR, like the other integration tests.

#include "../common/rayharness.h"
#include "joblogview.h"
#include "livesource.h"
#include "logtail.h"
#include "mainwindow.h"
#include "rayclient.h"

#include <QApplication>
#include <QDateTime>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <QTreeView>

#include <algorithm>

using namespace slicescope;

namespace {

using testing::readFile;

constexpr int kLines = 25;

} // namespace

class TestJobLogLive : public QObject
{
    Q_OBJECT

    QString m_url;
    QByteArray m_token;

    // Submits a job printing "line i <unix time>" kLines times, 0.15 s apart; returns its id.
    QString submitCountingJob(RayClient &client)
    {
        const QJsonObject body{
            {QStringLiteral("entrypoint"),
             QStringLiteral("python -u -c \"import time\nfor i in range(1, %1):\n    print('line %d %.3f' % (i, time.time()), flush=True)\n    time.sleep(0.15)\"")
                 .arg(kLines + 1)},
            {QStringLiteral("metadata"), QJsonObject{{QStringLiteral("test"), QStringLiteral("tst_job_log_live")}}},
        };
        QString error, id;
        bool done = false;
        client.submitJob(body, [&](const QString &e, int, const QByteArray &reply) {
            error = e;
            id = QJsonDocument::fromJson(reply).object().value(QLatin1String("submission_id")).toString();
            done = true;
        });
        [&] {
            QTRY_VERIFY_WITH_TIMEOUT(done, 30000);
        }();
        if (!error.isEmpty())
            qWarning("%s", qPrintable(error));
        return id;
    }

private Q_SLOTS:
    void initTestCase()
    {
        testing::RayHarness harness;
        SLICESCOPE_FIND_RAY_HARNESS(harness);
        m_url = harness.url;
        m_token = harness.token;
    }

    void theLogPanelReceivesEveryLineInOrder()
    {
        RayClient client{QUrl(m_url)};
        client.setToken({m_token, QStringLiteral("test")});
        const QString id = submitCountingJob(client);
        QVERIFY(!id.isEmpty());

        JobLogTail tail(&client);
        JobLogView view;
        view.resize(640, 400);
        // Wired as app/ wires them.
        connect(&tail, &JobLogTail::linesReceived, &view, &JobLogView::appendLines);
        connect(&tail, &JobLogTail::fullLogReceived, &view, &JobLogView::showFullLog);
        connect(&view, &JobLogView::pauseRequested, &tail, &JobLogTail::setPaused);
        connect(&view, &JobLogView::fullLogRequested, &tail, &JobLogTail::fetchFullLog);
        QStringList lines;
        QList<double> latencies;
        connect(&tail, &JobLogTail::linesReceived, this, [&](const QString &chunk) {
            const double now = double(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
            for (const QString &line : chunk.split(u'\n')) {
                if (!line.startsWith(QLatin1String("line ")))
                    continue; // Ray's own lines, if any
                lines << line.section(u' ', 0, 1);
                latencies << now - line.section(u' ', 2, 2).toDouble();
            }
        });
        QSignalSpy finished(&tail, &JobLogTail::finished);
        QSignalSpy failed(&tail, &JobLogTail::failed);
        tail.start(id);

        // Pause half way: nothing shows, then everything held back arrives on resume.
        QTRY_VERIFY_WITH_TIMEOUT(lines.size() >= 3 || !failed.isEmpty(), 60000);
        QVERIFY2(failed.isEmpty(), qPrintable(failed.value(0).value(0).toString()));
        view.setPaused(true);
        const qsizetype seenWhenPaused = lines.size();
        QTest::qWait(1500);
        QCOMPARE(lines.size(), seenWhenPaused);
        view.setPaused(false);

        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty() || !failed.isEmpty(), 60000);
        QVERIFY2(failed.isEmpty(), qPrintable(failed.value(0).value(0).toString()));
        QStringList expected;
        for (int i = 1; i <= kLines; ++i)
            expected << QStringLiteral("line %1").arg(i);
        QCOMPARE(lines, expected);
        QVERIFY(view.text().contains(QLatin1String("line 1 ")) && view.text().contains(QStringLiteral("line %1 ").arg(kLines)));
        QCOMPARE(tail.reconnects(), 0);

        // Print-to-panel latency, for the notes (Ray polls the log file once a second).
        std::sort(latencies.begin(), latencies.end());
        qInfo("log latency over %d lines (the lines held by the pause included): median %.3f s, min %.3f s, max %.3f s",
              int(latencies.size()), latencies.value(latencies.size() / 2), latencies.value(0), latencies.value(latencies.size() - 1));

        // The full log on demand replaces the pane with the same lines.
        view.clear();
        view.textPane()->setPlainText(QString());
        QSignalSpy full(&tail, &JobLogTail::fullLogReceived);
        QTest::mouseClick(view.findChild<QPushButton *>(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(full.size(), 1, 30000);
        for (const QString &line : expected)
            QVERIFY2(view.text().contains(line + u' '), qPrintable(line));
    }

    void theWindowFollowsTheJobPickedInItsList()
    {
        // The window as it runs against a live Ray: the job appears in the "Job log" dock's list
        // with a poll, picking it tails it into the dock's log view.
        MainWindow window(MainWindow::Mode::Screenshot);
        window.setSource(std::make_unique<LiveRaySource>(QUrl(m_url), RayToken{m_token, QStringLiteral("test")}));
        QVERIFY2(window.jobLogUnavailableReason().isEmpty(), qPrintable(window.jobLogUnavailableReason()));

        RayClient client{QUrl(m_url)};
        client.setToken({m_token, QStringLiteral("test")});
        const QString id = submitCountingJob(client);
        QVERIFY(!id.isEmpty());
        QTreeView *list = window.jobList();
        auto rowOf = [&]() -> int {
            for (int i = 0; i < list->model()->rowCount(); ++i)
                if (list->model()->index(i, 0).data().toString() == id)
                    return i;
            return -1;
        };
        auto cell = [&](int column) {
            return list->model()->index(rowOf(), column).data().toString();
        };
        QTRY_VERIFY_WITH_TIMEOUT(rowOf() >= 0, 30000);
        QVERIFY(cell(2).contains(QLatin1String("python -u -c")));
        list->setCurrentIndex(list->model()->index(rowOf(), 0)); // as a click does
        QCOMPARE(window.followedJob(), id);
        QTRY_VERIFY_WITH_TIMEOUT(window.jobLog()->text().contains(QStringLiteral("line %1 ").arg(kLines)), 60000);
        QTRY_VERIFY_WITH_TIMEOUT(window.jobLog()->status().contains(QLatin1String("finished")), 30000);
        for (int i = 1; i <= kLines; ++i)
            QVERIFY2(window.jobLog()->text().contains(QStringLiteral("line %1 ").arg(i)), qPrintable(QString::number(i)));
        // Later polls (the status turning SUCCEEDED) keep the row picked and the log as it is.
        QTRY_COMPARE_WITH_TIMEOUT(cell(1), QStringLiteral("SUCCEEDED"), 30000);
        QVERIFY(list->selectionModel()->isRowSelected(rowOf()));
        QVERIFY(window.jobLog()->text().contains(QStringLiteral("line %1 ").arg(kLines)));
    }

    void aWrongTokenFailsClearly()
    {
        RayClient good{QUrl(m_url)};
        good.setToken({m_token, QStringLiteral("test")});
        const QString id = submitCountingJob(good);
        QVERIFY(!id.isEmpty());

        RayClient client{QUrl(m_url)};
        client.setToken({QByteArrayLiteral("not-the-token"), QStringLiteral("--ray-token-file wrong")});
        JobLogTail tail(&client);
        QSignalSpy failed(&tail, &JobLogTail::failed);
        QSignalSpy lines(&tail, &JobLogTail::linesReceived);
        tail.start(id);
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 30000);
        const QString message = failed.first().value(0).toString();
        QVERIFY2(message.contains(QLatin1String("did not accept the token from --ray-token-file wrong")), qPrintable(message));
        QVERIFY2(!message.contains(QLatin1String("not-the-token")) && !message.contains(u'\n'), qPrintable(message));
        QVERIFY(lines.isEmpty());
        QVERIFY(!tail.isRunning());

        // The right token on the same job works (it may have finished by now: the replay has it all).
        JobLogTail right(&good);
        QSignalSpy finished(&right, &JobLogTail::finished);
        QStringList got;
        connect(&right, &JobLogTail::linesReceived, this, [&](const QString &chunk) { got << chunk.split(u'\n'); });
        right.start(id);
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 60000);
        // (Ray's log also echoes the entrypoint, whose Python mentions 'line %d'.)
        const auto numbered = std::count_if(got.begin(), got.end(), [](const QString &l) { return l.startsWith(QLatin1String("line ")); });
        QVERIFY2(numbered == kLines, qPrintable(got.join(u'|')));
    }
};

QTEST_MAIN(TestJobLogLive)
#include "tst_job_log_live.moc"
