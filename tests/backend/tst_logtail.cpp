// SPDX-License-Identifier: GPL-3.0-or-later
// JobLogTail against what a real Ray will not do on demand (docs/testing.md, backend tier): chunks that
// end inside a line, a tail connection that drops abruptly mid-stream, a dashboard that does not
// come back. A fake dashboard on 127.0.0.1 serves both the plain HTTP reads (GET /api/jobs/{id},
// GET /api/jobs/{id}/logs) and the /api/jobs/{id}/logs/tail WebSocket on one port, as Ray does:
// a QTcpServer peeks each request's head and hands an upgrade to a QWebSocketServer. Every tail
// connection replays the log from its first character, as Ray's does. The happy path against a
// real Ray is tests/integration/tst_job_log_live.cpp.

#include "logtail.h"
#include "rayclient.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>
#include <QTimer>
#include <QWebSocket>
#include <QWebSocketServer>

#include <chrono>

using namespace slicescope;
using namespace std::chrono_literals;

namespace {

const QString kJob = QStringLiteral("raysubmit_tail1");

struct Request {
    QByteArray method, path;
    QMap<QByteArray, QByteArray> headers; // names lower-cased
};

// The log a job writes: lines of varying length, some not ASCII, and no newline after the last.
QString makeLog(int lines)
{
    QString log;
    for (int i = 1; i <= lines; ++i) {
        log += QStringLiteral("line %1 d\u00e9j\u00e0 %2").arg(i).arg(QString(i % 17, u'x'));
        if (i < lines)
            log += u'\n';
    }
    return log;
}

QStringList expectedLines(int lines)
{
    return makeLog(lines).split(u'\n');
}

class FakeRay : public QObject
{
public:
    QString log;                       // everything the job will write
    qsizetype written = 0;             // how much of it is written so far
    QString status = QStringLiteral("RUNNING");
    qsizetype firstTailStopsAt = -1;   // the first tail connection sends no further than this
    QList<Request> requests;           // HTTP reads and upgrade requests, in order
    int tailConnections = 0;

    FakeRay()
    {
        QVERIFY(m_tcp.listen(QHostAddress::LocalHost, 0));
        connect(&m_tcp, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = m_tcp.nextPendingConnection()) {
                connect(socket, &QTcpSocket::readyRead, this, [this, socket] { onReadyRead(socket); });
                connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
        connect(&m_ws, &QWebSocketServer::newConnection, this, [this] {
            while (QWebSocket *ws = m_ws.nextPendingConnection()) {
                ws->setParent(this);
                m_tails.append({ws, 0, tailConnections == 0 ? firstTailStopsAt : -1});
                ++tailConnections;
                connect(ws, &QWebSocket::disconnected, ws, &QObject::deleteLater);
            }
        });
        // Ray's file_tail_iterator polls the file and sends what it finds, at most so much a
        // chunk: here a few chunks a tick, of sizes that keep changing so chunks end mid-line.
        m_pump.setTimerType(Qt::PreciseTimer);
        m_pump.setInterval(1);
        connect(&m_pump, &QTimer::timeout, this, [this] { pump(); });
        m_pump.start();
    }
    quint16 port() const { return m_tcp.serverPort(); }
    QUrl url() const { return QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port())); }
    int count(const QByteArray &path) const
    {
        return int(std::count_if(requests.begin(), requests.end(), [&](const Request &r) { return r.path == path; }));
    }
    // The job writes the rest of its log and ends; open tails send it and close normally.
    void finishJob()
    {
        written = log.size();
        status = QStringLiteral("SUCCEEDED");
    }
    // Every open tail connection is cut without a close frame (a proxy restart, a lost route).
    void dropTails()
    {
        for (const Tail &t : std::as_const(m_tails))
            if (t.socket)
                t.socket->abort();
        m_tails.clear();
    }
    // The dashboard goes away and stays away: the port refuses connections.
    void goAway()
    {
        m_tcp.close();
        dropTails();
    }

private:
    struct Tail {
        QPointer<QWebSocket> socket;
        qsizetype pos;   // every connection starts again at the first character
        qsizetype limit; // -1: as far as the job has written
    };

    void pump()
    {
        for (qsizetype i = 0; i < m_tails.size(); ++i) {
            Tail &t = m_tails[i];
            if (!t.socket) {
                m_tails.remove(i--);
                continue;
            }
            const qsizetype end = t.limit >= 0 ? std::min(t.limit, written) : written;
            if (t.pos < end) {
                for (int k = 0; k < 4 && t.pos < end; ++k) {
                    const qsizetype n = std::min<qsizetype>(end - t.pos, 1 + (m_chunkSeed = (m_chunkSeed * 7 + 3) % 53));
                    t.socket->sendTextMessage(log.mid(t.pos, n));
                    t.pos += n;
                }
            } else if (t.limit < 0 && t.pos == log.size() && status == QLatin1String("SUCCEEDED")) {
                t.socket->close(QWebSocketProtocol::CloseCodeNormal);
                m_tails.remove(i--);
            }
        }
    }

    void onReadyRead(QTcpSocket *socket)
    {
        // Peek: an upgrade must reach the QWebSocketServer with its bytes still unread.
        const QByteArray head = socket->peek(socket->bytesAvailable());
        const qsizetype end = head.indexOf("\r\n\r\n");
        if (end < 0)
            return;
        Request r;
        const QList<QByteArray> lines = head.left(end).split('\n');
        const QList<QByteArray> first = lines.value(0).trimmed().split(' ');
        r.method = first.value(0);
        r.path = first.value(1);
        for (qsizetype i = 1; i < lines.size(); ++i) {
            const qsizetype colon = lines[i].indexOf(':');
            if (colon > 0)
                r.headers.insert(lines[i].left(colon).trimmed().toLower(), lines[i].mid(colon + 1).trimmed());
        }
        requests.append(r);
        if (r.headers.value("upgrade").toLower() == "websocket") {
            socket->disconnect(this);
            disconnect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            m_ws.handleConnection(socket);
            return;
        }
        socket->read(end + 4); // GETs have no body
        int code = 200;
        QByteArray body;
        const QByteArray job = "/api/jobs/" + kJob.toLatin1();
        if (r.method == "GET" && r.path == job) {
            body = QJsonDocument(QJsonObject{{QStringLiteral("submission_id"), kJob}, {QStringLiteral("status"), status}})
                       .toJson(QJsonDocument::Compact);
        } else if (r.method == "GET" && r.path == job + "/logs") {
            body = QJsonDocument(QJsonObject{{QStringLiteral("logs"), log.left(written)}}).toJson(QJsonDocument::Compact);
        } else {
            code = 404;
            body = "Not Found";
        }
        socket->write("HTTP/1.1 " + QByteArray::number(code) + " X\r\nContent-Type: application/json\r\nConnection: close\r\n"
                                                               "Content-Length: "
                      + QByteArray::number(body.size()) + "\r\n\r\n" + body);
        socket->disconnectFromHost();
    }

    QTcpServer m_tcp;
    QWebSocketServer m_ws{QStringLiteral("fake-ray"), QWebSocketServer::NonSecureMode};
    QList<Tail> m_tails;
    QTimer m_pump;
    int m_chunkSeed = 11;
};

RayToken testToken()
{
    return {QByteArrayLiteral("s3cr3t-t0ken"), QStringLiteral("RAY_AUTH_TOKEN")};
}

// A tail with quick reconnects, and everything it emits.
struct Harness {
    RayClient client;
    JobLogTail tail{&client};
    QStringList lines;
    QList<bool> connectedStates;
    QSignalSpy finished{&tail, &JobLogTail::finished};
    QSignalSpy failed{&tail, &JobLogTail::failed};

    explicit Harness(const QUrl &url)
        : client(url)
    {
        client.setToken(testToken());
        client.setTransferTimeout(3s);
        tail.setReconnectPolicy(20ms, 3);
        tail.setHandshakeTimeout(3s);
        QObject::connect(&tail, &JobLogTail::linesReceived, &tail, [this](const QString &chunk) { lines += chunk.split(u'\n'); });
        QObject::connect(&tail, &JobLogTail::connectedChanged, &tail, [this](bool connected) { connectedStates << connected; });
    }
    bool done() const { return !finished.isEmpty() || !failed.isEmpty(); }
    QString failure() const { return failed.value(0).value(0).toString(); }
};

constexpr int kLines = 300;

} // namespace

class TestLogTail : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void everyLineArrivesOnceInOrder()
    {
        FakeRay server;
        server.log = makeLog(kLines);
        server.written = server.log.indexOf(QLatin1String("line 120 ")) + 4; // inside line 120
        Harness h(server.url());
        h.tail.start(kJob);
        QVERIFY(h.lines.isEmpty()); // never synchronous

        // What the job has written so far arrives, up to the last whole line.
        QTRY_COMPARE_WITH_TIMEOUT(h.tail.deliveredChars(), qint64(server.written), 5000);
        QCOMPARE(h.lines, expectedLines(119));
        QVERIFY(!h.done());

        server.finishJob();
        QTRY_VERIFY_WITH_TIMEOUT(h.done(), 5000);
        QVERIFY2(h.failed.isEmpty(), qPrintable(h.failure()));
        QCOMPARE(h.finished.size(), 1);
        QCOMPARE(h.lines, expectedLines(kLines)); // the last one too, though no newline ends it
        QCOMPARE(h.tail.deliveredChars(), qint64(server.log.size()));
        QCOMPARE(h.tail.reconnects(), 0);
        QCOMPARE(server.tailConnections, 1);
        QCOMPARE(h.connectedStates, QList<bool>{true});
        QVERIFY(!h.tail.isRunning());
        // The job was read before the socket opened, and again to tell a finish from a drop.
        QCOMPARE(server.requests.value(0).path, "/api/jobs/" + kJob.toLatin1());
        QCOMPARE(server.count("/api/jobs/" + kJob.toLatin1()), 2);
        QCOMPARE(server.count("/api/jobs/" + kJob.toLatin1() + "/logs"), 0);
    }

    void anAbruptDropLosesAndRepeatsNothing()
    {
        FakeRay server;
        server.log = makeLog(kLines);
        server.written = server.log.indexOf(QLatin1String("line 200 ")) + 6;
        server.firstTailStopsAt = server.log.indexOf(QLatin1String("line 80 ")) + 3; // mid-line
        Harness h(server.url());
        h.tail.start(kJob);
        QTRY_COMPARE_WITH_TIMEOUT(h.tail.deliveredChars(), qint64(server.firstTailStopsAt), 5000);
        QCOMPARE(h.lines, expectedLines(79));

        // Cut mid-stream: the reconnect replays from the first character and GET .../logs fills
        // the gap; each line still arrives exactly once.
        server.dropTails();
        QTRY_COMPARE_WITH_TIMEOUT(h.tail.deliveredChars(), qint64(server.written), 5000);
        QCOMPARE(h.lines, expectedLines(199));
        server.finishJob();
        QTRY_VERIFY_WITH_TIMEOUT(h.done(), 5000);
        QVERIFY2(h.failed.isEmpty(), qPrintable(h.failure()));
        QCOMPARE(h.lines, expectedLines(kLines));
        QCOMPARE(h.finished.size(), 1);
        QCOMPARE(server.tailConnections, 2);
        QCOMPARE(h.tail.reconnects(), 1);
        QCOMPARE(h.connectedStates, (QList<bool>{true, false, true}));
        QCOMPARE(server.count("/api/jobs/" + kJob.toLatin1() + "/logs"), 1);
    }

    void aDropAfterTheJobEndedIsFilledFromTheFullLog()
    {
        // The job ends while the tail is behind, and the tail is cut before it catches up.
        FakeRay server;
        server.log = makeLog(kLines);
        server.written = server.log.size();
        server.firstTailStopsAt = server.log.indexOf(QLatin1String("line 50 ")) + 2;
        Harness h(server.url());
        h.tail.start(kJob);
        QTRY_COMPARE_WITH_TIMEOUT(h.tail.deliveredChars(), qint64(server.firstTailStopsAt), 5000);
        server.finishJob();
        server.dropTails();
        QTRY_VERIFY_WITH_TIMEOUT(h.done(), 5000);
        QVERIFY2(h.failed.isEmpty(), qPrintable(h.failure()));
        QCOMPARE(h.lines, expectedLines(kLines));
        QCOMPARE(h.finished.size(), 1);
        QCOMPARE(server.count("/api/jobs/" + kJob.toLatin1() + "/logs"), 1);
    }

    void aDashboardThatStaysAwayFailsNamingTheUrl()
    {
        FakeRay server;
        server.log = makeLog(kLines);
        server.written = server.log.size() / 2;
        Harness h(server.url());
        h.tail.start(kJob);
        QTRY_COMPARE_WITH_TIMEOUT(h.tail.deliveredChars(), qint64(server.written), 5000);
        const QStringList before = h.lines;

        // logtail.h: after maxAttempts failed reconnects in a row, failed(); each reconnect
        // first reads the job, so the last error is RayClient's, naming the method and URL.
        const quint16 port = server.port();
        server.goAway();
        QTRY_VERIFY_WITH_TIMEOUT(h.done(), 5000);
        QVERIFY(h.finished.isEmpty());
        QCOMPARE(h.failed.size(), 1);
        const QString message = h.failure();
        QVERIFY2(message.contains(QStringLiteral("job %1: the log tail dropped and 3 reconnects failed").arg(kJob)), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("GET http://127.0.0.1:%1/api/jobs/%2").arg(port).arg(kJob)), qPrintable(message));
        QVERIFY2(message.contains(QLatin1String("connection refused")), qPrintable(message));
        QVERIFY(!message.contains(QLatin1String("s3cr3t")));
        QCOMPARE(h.lines, before); // nothing invented, nothing repeated
        QCOMPARE(h.connectedStates, (QList<bool>{true, false}));
        QVERIFY(!h.tail.isRunning());
    }

    void theUpgradeCarriesTheTokenAndOurUserAgent()
    {
        FakeRay server;
        server.log = makeLog(5);
        server.finishJob();
        Harness h(server.url());
        h.tail.start(kJob);
        QTRY_VERIFY_WITH_TIMEOUT(h.done(), 5000);
        QVERIFY2(h.failed.isEmpty(), qPrintable(h.failure()));
        QCOMPARE(h.lines, expectedLines(5));

        const auto upgrade = std::find_if(server.requests.cbegin(), server.requests.cend(),
                                          [](const Request &r) { return r.headers.contains("upgrade"); });
        QVERIFY(upgrade != server.requests.cend());
        QCOMPARE(upgrade->method, QByteArray("GET"));
        QCOMPARE(upgrade->path, "/api/jobs/" + kJob.toLatin1() + "/logs/tail");
        QCOMPARE(upgrade->headers.value("upgrade").toLower(), QByteArray("websocket"));
        QCOMPARE(upgrade->headers.value("authorization"), QByteArray("Bearer s3cr3t-t0ken"));
        // The dashboard treats "Mozilla..." as a browser.
        QCOMPARE(upgrade->headers.value("user-agent"), slicescopeUserAgent());
        QVERIFY(!upgrade->headers.value("user-agent").startsWith("Mozilla"));
        for (const Request &r : std::as_const(server.requests)) {
            QCOMPARE(r.headers.value("authorization"), QByteArray("Bearer s3cr3t-t0ken"));
            QCOMPARE(r.headers.value("user-agent"), slicescopeUserAgent());
        }
    }
};

QTEST_GUILESS_MAIN(TestLogTail)
#include "tst_logtail.moc"
