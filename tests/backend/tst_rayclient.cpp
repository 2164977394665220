// SPDX-License-Identifier: GPL-3.0-or-later
// RayClient's handling of what a real Ray will not do on demand (docs/testing.md, backend tier): 429
// storms, 5xx, bodies past the size bound, a server that never answers, a server that echoes the
// token. A scripted HTTP server on 127.0.0.1 plays the dashboard, so the requests go through Qt's
// real HTTP stack and the test sees the headers as a server would. The protocol itself is proven
// against a real Ray in tests/integration/tst_ray_live.cpp.

#include "../common/fakehttpserver.h"
#include "livesource.h"
#include "rayclient.h"
#include "slicepgjob.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

#include <QElapsedTimer>
#include <QTemporaryDir>

#include <functional>

#include <sys/stat.h>

using namespace slicescope;

namespace {

using Request = testing::HttpRequest;
using Response = testing::HttpResponse;

const QByteArray kNodes = R"({"result": true, "msg": "", "data": {"result": {"total": 0, "num_after_truncation": 0, "num_filtered": 0, "result": []}}})";

Response dashboard(const Request &r)
{
    if (r.path == "/api/authentication_mode")
        return {200, R"({"authentication_mode": "token"})"};
    if (r.path == "/api/version")
        return {200, R"({"version": "4", "ray_version": "2.60.0", "ray_commit": "x", "session_name": "s"})"};
    if (r.path.startsWith("/api/v0/nodes") || r.path.startsWith("/api/v0/placement_groups"))
        return {200, kNodes};
    if (r.path == "/api/jobs/")
        return {200, "[]"};
    if (r.path.startsWith("/api/cluster_status"))
        return {200, R"({"result": true, "msg": "", "data": {"clusterStatus": "ok"}})"};
    if (r.path == "/nodes?view=summary")
        return {200, R"({"result": true, "msg": "Node summary fetched.", "data": {"summary": []}})"};
    return {404, "Not Found"};
}

// The fake answering like a healthy dashboard unless a test scripts otherwise.
class FakeDashboard : public testing::FakeHttpServer
{
public:
    FakeDashboard() { script = dashboard; }
};

RayToken testToken()
{
    return {QByteArrayLiteral("s3cr3t-t0ken"), QStringLiteral("RAY_AUTH_TOKEN")};
}

} // namespace

class TestRayClient : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void onePollIsOneCompleteCapture()
    {
        FakeDashboard server;
        RayClient client(server.url());
        client.setToken(testToken());
        QSignalSpy captures(&client, &RayClient::captureReceived);
        QSignalSpy failures(&client, &RayClient::pollFailed);
        QVERIFY(client.poll());
        QVERIFY(!client.poll()); // never two polls at once
        QVERIFY(captures.isEmpty()); // never synchronous
        QTRY_COMPARE(captures.size() + failures.size(), 1);
        QVERIFY2(failures.isEmpty(), qPrintable(failures.value(0).value(0).toString()));
        const Capture c = captures.first().value(0).value<Capture>();
        QCOMPARE(c.rayNodes, kNodes);
        QCOMPARE(c.rayPlacementGroups, kNodes);
        QCOMPARE(c.rayJobs, QByteArray("[]"));
        QVERIFY(c.rayVersion.contains("2.60.0"));
        QVERIFY(c.rayClusterStatus.contains("clusterStatus"));
        QVERIFY(c.capturedAt.isValid());
        QCOMPARE(client.rayVersion(), QStringLiteral("2.60.0"));
        QCOMPARE(client.authenticationMode(), QStringLiteral("token"));

        // The order that gates features: the auth mode, then the version, then the lists.
        QCOMPARE(server.requests.size(), 7);
        QCOMPARE(server.requests[0].path, QByteArray("/api/authentication_mode"));
        QCOMPARE(server.requests[1].path, QByteArray("/api/version"));
        QCOMPARE(server.count("/api/v0/nodes?detail=true&limit=10000"), 1);
        QCOMPARE(server.count("/api/v0/placement_groups?detail=true&limit=10000"), 1);
        QCOMPARE(server.count("/api/jobs/"), 1);
        QCOMPARE(server.count("/api/cluster_status?format=1"), 1);
        QCOMPARE(server.count("/nodes?view=summary"), 1); // chip activity (docs/facts.md 2.5)
        QVERIFY(c.rayNodeSummary.contains("Node summary fetched."));
        QVERIFY(c.rayNodeSummaryError.isEmpty());
        for (const Request &r : server.requests) {
            QCOMPARE(r.method, QByteArray("GET"));
            // The dashboard treats "Mozilla..." as a browser; Qt's default would say that.
            QCOMPARE(r.headers.value("user-agent"), slicescopeUserAgent());
            QVERIFY(r.headers.value("user-agent").startsWith("slicescope/"));
            QCOMPARE(r.headers.value("authorization"), QByteArray("Bearer s3cr3t-t0ken"));
            QVERIFY(!r.headers.contains("origin") && !r.headers.contains("referer"));
        }

        // The second poll knows the auth mode already.
        QVERIFY(client.poll());
        QTRY_COMPARE(captures.size(), 2);
        QCOMPARE(server.count("/api/authentication_mode"), 1);
        QCOMPARE(server.count("/api/version"), 2);
    }

    // The node summary is the heavy route: fetched at most once per interval, and its failure is
    // said in the capture without failing the poll (the allocation view stays live).
    void nodeSummaryIsOptionalAndThrottled()
    {
        FakeDashboard server;
        server.script = [](const Request &r) -> Response {
            if (r.path == "/nodes?view=summary")
                return {500, "Internal Server Error: agent gone"};
            return dashboard(r);
        };
        RayClient client(server.url());
        client.setToken(testToken());
        QSignalSpy captures(&client, &RayClient::captureReceived);
        QSignalSpy failures(&client, &RayClient::pollFailed);
        QVERIFY(client.poll());
        QTRY_COMPARE(captures.size() + failures.size(), 1);
        QVERIFY2(failures.isEmpty(), qPrintable(failures.value(0).value(0).toString()));
        Capture c = captures.takeFirst().value(0).value<Capture>();
        QVERIFY(c.rayNodeSummary.isEmpty());
        QVERIFY2(c.rayNodeSummaryError.contains(u"nodes?view=summary") && c.rayNodeSummaryError.contains(u"500"), qPrintable(c.rayNodeSummaryError));
        QVERIFY(!c.rayNodes.isEmpty());
        QCOMPARE(server.count("/nodes?view=summary"), 1);

        server.script = dashboard; // healthy again, but the interval has not passed
        QVERIFY(client.poll());
        QTRY_COMPARE(captures.size(), 1);
        c = captures.takeFirst().value(0).value<Capture>();
        QCOMPARE(server.count("/nodes?view=summary"), 1);
        QVERIFY(!c.rayNodeSummaryError.isEmpty()); // the newest fetch's outcome, carried

        client.setNodeSummaryInterval(std::chrono::milliseconds(1)); // due at once
        QTest::qWait(5);
        QVERIFY(client.poll());
        QTRY_COMPARE(captures.size(), 1);
        c = captures.takeFirst().value(0).value<Capture>();
        QCOMPARE(server.count("/nodes?view=summary"), 2);
        QVERIFY(c.rayNodeSummaryError.isEmpty());
        QVERIFY(c.rayNodeSummary.contains("summary"));

        client.setNodeSummaryInterval(std::chrono::milliseconds(0)); // never: no body either
        QVERIFY(client.poll());
        QTRY_COMPARE(captures.size(), 1);
        c = captures.takeFirst().value(0).value<Capture>();
        QCOMPARE(server.count("/nodes?view=summary"), 2);
        QVERIFY(c.rayNodeSummary.isEmpty());
    }

    void aPathPrefixIsKept()
    {
        // A dashboard behind a proxy path (the Kubernetes API server's service proxy).
        FakeDashboard server;
        server.script = [](const Request &r) {
            const QByteArray prefix = "/api/v1/namespaces/ns/services/head:8265/proxy";
            if (!r.path.startsWith(prefix))
                return Response{404, "no"};
            Request inner = r;
            inner.path = r.path.mid(prefix.size());
            return dashboard(inner);
        };
        RayClient client(QUrl(server.url().toString() + QStringLiteral("/api/v1/namespaces/ns/services/head:8265/proxy/")));
        client.setToken(testToken());
        QSignalSpy captures(&client, &RayClient::captureReceived);
        QSignalSpy failures(&client, &RayClient::pollFailed);
        client.poll();
        QTRY_COMPARE(captures.size() + failures.size(), 1);
        QVERIFY2(failures.isEmpty(), qPrintable(failures.value(0).value(0).toString()));
    }

    void tooManyRequestsIsRetried()
    {
        FakeDashboard server;
        int refusals = 2;
        server.script = [&](const Request &r) {
            if (r.path.startsWith("/api/v0/nodes") && refusals-- > 0)
                return Response{429, "Too many requests", {{"Retry-After", "0"}}};
            return dashboard(r);
        };
        RayClient client(server.url());
        client.setToken(testToken());
        client.setRetryPolicy(4, std::chrono::milliseconds(10));
        QSignalSpy captures(&client, &RayClient::captureReceived);
        QSignalSpy failures(&client, &RayClient::pollFailed);
        client.poll();
        QTRY_COMPARE(captures.size() + failures.size(), 1);
        QVERIFY2(failures.isEmpty(), qPrintable(failures.value(0).value(0).toString()));
        QCOMPARE(server.count("/api/v0/nodes"), 3);
    }

    void failures_data()
    {
        QTest::addColumn<QByteArray>("failingPath");
        QTest::addColumn<int>("status");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<bool>("stall");
        QTest::addColumn<bool>("withToken");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("429 storm") << QByteArray("/api/v0/nodes") << 429 << QByteArray("Too many") << false << true
                                   << QStringLiteral("HTTP 429: the Ray dashboard is overloaded (too many state requests); gave up after 3 tries");
        QTest::newRow("500 with a message") << QByteArray("/api/v0/placement_groups") << 500 << QByteArray("Internal Server Error: limit must be <= 10000\nTraceback...") << false << true
                                            << QStringLiteral("GET %1/api/v0/placement_groups?detail=true&limit=10000: HTTP 500 X (the server said \"Internal Server Error: limit must be <= 10000\")");
        QTest::newRow("503 on jobs") << QByteArray("/api/jobs/") << 503 << QByteArray() << false << true << QStringLiteral("/api/jobs/: HTTP 503");
        QTest::newRow("401 without a token") << QByteArray("/api/version") << 401 << QByteArray("Unauthorized: Missing authentication token") << false << false
                                             << QStringLiteral("HTTP 401: the Ray dashboard wants a token and none was found");
        QTest::newRow("403 wrong token") << QByteArray("/api/v0/nodes") << 403 << QByteArray("Forbidden: Invalid authentication token") << false << true
                                         << QStringLiteral("HTTP 403: the Ray dashboard did not accept the token from RAY_AUTH_TOKEN");
        QTest::newRow("not a dashboard") << QByteArray("/api/version") << 404 << QByteArray("nope") << false << true
                                         << QStringLiteral("HTTP 404: this is not a Ray dashboard");
        QTest::newRow("no ray_version") << QByteArray("/api/version") << 200 << QByteArray("<html>hello</html>") << false << true
                                        << QStringLiteral("/api/version: the answer has no ray_version");
        QTest::newRow("too large") << QByteArray("/api/v0/nodes") << 200 << QByteArray(5000, ' ') << false << true
                                   << QStringLiteral("the answer is larger than 1000 bytes; not read");
        QTest::newRow("never answers") << QByteArray("/api/cluster_status") << 200 << QByteArray() << true << true
                                       << QStringLiteral("/api/cluster_status?format=1: no answer for 0.3 s");
        QTest::newRow("echoes the token") << QByteArray("/api/jobs/") << 500 << QByteArray("bad header Bearer s3cr3t-t0ken") << false << true
                                          << QStringLiteral("Bearer <token>");
    }

    void failures()
    {
        QFETCH(QByteArray, failingPath);
        QFETCH(int, status);
        QFETCH(QByteArray, body);
        QFETCH(bool, stall);
        QFETCH(bool, withToken);
        QFETCH(QString, mentions);
        FakeDashboard server;
        server.script = [&](const Request &r) {
            if (r.path.startsWith(failingPath)) {
                Response answer{status, body};
                answer.stall = stall;
                return answer;
            }
            Response answer = dashboard(r);
            if (!withToken && r.path == "/api/authentication_mode")
                answer.body = R"({"authentication_mode": "disabled"})"; // so the 401 comes from the server
            return answer;
        };
        RayClient client(server.url());
        if (withToken)
            client.setToken(testToken());
        client.setRetryPolicy(2, std::chrono::milliseconds(1));
        client.setMaxBodyBytes(1000);
        client.setTransferTimeout(std::chrono::milliseconds(300));
        QSignalSpy captures(&client, &RayClient::captureReceived);
        QSignalSpy failures(&client, &RayClient::pollFailed);
        client.poll();
        QTRY_COMPARE_WITH_TIMEOUT(captures.size() + failures.size(), 1, 10000);
        QCOMPARE(captures.size(), 0); // all or nothing
        const QString message = failures.first().value(0).toString();
        const QString expected = mentions.contains(QLatin1String("%1")) ? mentions.arg(server.url().toString()) : mentions;
        QVERIFY2(message.contains(expected), qPrintable(message));
        QVERIFY2(message.contains(server.url().toString()), qPrintable(message));
        QVERIFY2(!message.contains(u'\n'), qPrintable(message));
        QVERIFY2(!message.contains(QLatin1String("s3cr3t")), qPrintable(message));
        QVERIFY(!client.isPolling());
        // Nothing arrives later from the abandoned requests.
        QTest::qWait(50);
        QCOMPARE(captures.size() + failures.size(), 1);
    }

    void aTokenModeClusterWithoutATokenIsToldSoFirst()
    {
        FakeDashboard server;
        RayClient client(server.url());
        QSignalSpy failures(&client, &RayClient::pollFailed);
        client.poll();
        QTRY_COMPARE(failures.size(), 1);
        const QString message = failures.first().value(0).toString();
        QVERIFY2(message.contains(QLatin1String("wants a token")) && message.contains(QLatin1String("--ray-token-file")), qPrintable(message));
        QCOMPARE(server.requests.size(), 1); // asked nothing else
    }

    void deadPort()
    {
        QTcpServer probe;
        QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
        const QUrl url(QStringLiteral("http://127.0.0.1:%1").arg(probe.serverPort()));
        probe.close();
        RayClient client(url);
        QSignalSpy failures(&client, &RayClient::pollFailed);
        client.poll();
        QTRY_COMPARE(failures.size(), 1);
        const QString message = failures.first().value(0).toString();
        QVERIFY2(message.contains(url.toString()) && message.contains(QLatin1String("connection refused")), qPrintable(message));
    }

    void tokenResolutionOrder()
    {
        QTemporaryDir dir;
        auto write = [&](const QString &name, const QByteArray &bytes) {
            QFile f(dir.filePath(name));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(bytes);
        };
        write(QStringLiteral("explicit"), "explicit-token\n");
        write(QStringLiteral("frompath"), "path-token");
        write(QStringLiteral("empty"), "  \n");
        write(QStringLiteral("two words"), "two words");
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("home/.ray")));
        write(QStringLiteral("home/.ray/auth_token"), "home-token");
        const QByteArray oldHome = qgetenv("HOME");
        qputenv("HOME", dir.filePath(QStringLiteral("home")).toLocal8Bit());
        qputenv("RAY_AUTH_TOKEN", "env-token");
        qputenv("RAY_AUTH_TOKEN_PATH", dir.filePath(QStringLiteral("frompath")).toLocal8Bit());
        RayToken t;
        QCOMPARE(resolveRayToken(dir.filePath(QStringLiteral("explicit")), t), QString());
        QCOMPARE(t.value, QByteArray("explicit-token"));
        QVERIFY(t.origin.startsWith(QLatin1String("--ray-token-file")));
        QCOMPARE(resolveRayToken(QString(), t), QString());
        QCOMPARE(t.value, QByteArray("env-token"));
        qunsetenv("RAY_AUTH_TOKEN");
        QCOMPARE(resolveRayToken(QString(), t), QString());
        QCOMPARE(t.value, QByteArray("path-token"));
        qunsetenv("RAY_AUTH_TOKEN_PATH");
        QCOMPARE(resolveRayToken(QString(), t), QString());
        QCOMPARE(t.value, QByteArray("home-token"));
        QCOMPARE(t.origin, QStringLiteral("~/.ray/auth_token"));
        QFile::remove(dir.filePath(QStringLiteral("home/.ray/auth_token")));
        QCOMPARE(resolveRayToken(QString(), t), QString());
        QVERIFY(t.isEmpty()); // none anywhere is not an error
        QVERIFY(resolveRayToken(dir.filePath(QStringLiteral("missing")), t).contains(QLatin1String("cannot read")));
        QVERIFY(resolveRayToken(dir.filePath(QStringLiteral("empty")), t).contains(QLatin1String("empty")));
        const QString twoWords = resolveRayToken(dir.filePath(QStringLiteral("two words")), t);
        QVERIFY2(twoWords.contains(QLatin1String("one word")) && !twoWords.contains(QLatin1String("two words\"")), qPrintable(twoWords));
        qputenv("HOME", oldHome);
    }

    // Issue 13: a --ray-token-file (or RAY_AUTH_TOKEN_PATH) that is a device read without bound,
    // one that is a FIFO blocked forever. Both are refused at once, naming the file and why.
    void tokenFilesThatAreNotFilesAreRefused()
    {
        QTemporaryDir dir;
        const QString fifo = dir.filePath(QStringLiteral("fifo"));
        QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
        const QByteArray oldToken = qgetenv("RAY_AUTH_TOKEN");
        qunsetenv("RAY_AUTH_TOKEN");
        RayToken t;
        QElapsedTimer timer;
        timer.start();
        QCOMPARE(resolveRayToken(QStringLiteral("/dev/zero"), t),
                 QStringLiteral("--ray-token-file /dev/zero is a character device, not a regular file; not read"));
        QCOMPARE(resolveRayToken(fifo, t), QStringLiteral("--ray-token-file %1 is a FIFO (named pipe), not a regular file; not read").arg(fifo));
        QCOMPARE(resolveRayToken(dir.path(), t), QStringLiteral("--ray-token-file %1 is a directory, not a regular file; not read").arg(dir.path()));
        qputenv("RAY_AUTH_TOKEN_PATH", "/dev/zero");
        QCOMPARE(resolveRayToken(QString(), t),
                 QStringLiteral("RAY_AUTH_TOKEN_PATH /dev/zero is a character device, not a regular file; not read"));
        qunsetenv("RAY_AUTH_TOKEN_PATH");
        const QString big = dir.filePath(QStringLiteral("big"));
        QFile f(big);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray(100000, 'a'));
        f.close();
        QCOMPARE(resolveRayToken(big, t), QStringLiteral("--ray-token-file %1 is larger than 64 KiB (100000 bytes); not read").arg(big));
        qInfo("five refusals in %lld ms", timer.elapsed());
        QVERIFY(timer.elapsed() < 2000);
        QVERIFY(t.isEmpty());
        if (!oldToken.isEmpty())
            qputenv("RAY_AUTH_TOKEN", oldToken);
    }

    // Issue 13: answers whose messages misled. A redirect read "HTTP 302 Found" without saying it
    // was refused; a cut body read "HTTP 200 OK (the server said ...)"; control characters and
    // 100 KB values went raw into the one line.
    void answersThatMisled_data()
    {
        QTest::addColumn<int>("status");
        QTest::addColumn<QByteArray>("reason");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<qint64>("contentLength");
        QTest::addColumn<QByteArray>("location");
        QTest::addColumn<QString>("says");
        QTest::newRow("redirect elsewhere") << 302 << QByteArray("Found") << QByteArray("moved") << qint64(-1)
                                            << QByteArray("http://elsewhere.example:8265/api/v0/nodes")
                                            << QStringLiteral("HTTP 302 Found: redirects are refused (to http://elsewhere.example:8265/api/v0/nodes)");
        QTest::newRow("redirect same origin") << 301 << QByteArray("Moved Permanently") << QByteArray() << qint64(-1) << QByteArray("/api/v0/nodes2")
                                              << QStringLiteral("HTTP 301 Moved Permanently: redirects are refused (to %1/api/v0/nodes2)");
        QTest::newRow("cut body") << 200 << QByteArray("OK") << QByteArray("{\"result\": true, \"da") << qint64(4096) << QByteArray()
                                  << QStringLiteral("HTTP 200 OK, but the body was cut short after 20 of 4096 bytes (the connection ended early)");
        QTest::newRow("control characters") << 500 << QByteArray("Internal Server Error") << QByteArray("bad \x1b[31mred\x07 \r and\ttab")
                                            << qint64(-1) << QByteArray()
                                            << QStringLiteral("HTTP 500 Internal Server Error (the server said \"bad \\x1b[31mred\\x07 \\r and\\ttab\")");
        QTest::newRow("100 KB value") << 500 << QByteArray("Internal Server Error") << QByteArray(100 * 1024, 'A') << qint64(-1) << QByteArray()
                                      << QStringLiteral("HTTP 500 Internal Server Error (the server said \"AAAA");
    }

    void answersThatMisled()
    {
        QFETCH(int, status);
        QFETCH(QByteArray, reason);
        QFETCH(QByteArray, body);
        QFETCH(qint64, contentLength);
        QFETCH(QByteArray, location);
        QFETCH(QString, says);
        FakeDashboard server;
        server.script = [&](const Request &r) {
            if (!r.path.startsWith("/api/v0/nodes"))
                return dashboard(r);
            Response answer{status, body};
            answer.reason = reason;
            answer.contentLength = contentLength;
            if (!location.isEmpty())
                answer.headers.append({QByteArrayLiteral("Location"), location});
            return answer;
        };
        RayClient client(server.url());
        client.setToken(testToken());
        client.setRetryPolicy(0, std::chrono::milliseconds(1));
        QSignalSpy failures(&client, &RayClient::pollFailed);
        client.poll();
        QTRY_COMPARE_WITH_TIMEOUT(failures.size(), 1, 10000);
        const QString message = failures.first().value(0).toString();
        qInfo("%s", qPrintable(message.left(300)));
        QVERIFY2(message.contains(says.contains(QLatin1String("%1")) ? says.arg(server.url().toString()) : says), qPrintable(message.left(600)));
        QVERIFY2(message.startsWith(QStringLiteral("GET %1/api/v0/nodes").arg(server.url().toString())), qPrintable(message.left(300)));
        QVERIFY2(!message.contains(QLatin1String("HTTP 200 OK (the server said")), qPrintable(message));
        QVERIFY(message.size() < 600);
        for (const QChar c : message)
            QVERIFY2(c.unicode() >= 0x20, qPrintable(message.left(300)));
        QCOMPARE(server.count("/api/v0/nodes2"), 0); // never followed
    }

    // Issue 13: a server that trickles one byte a second kept every idle timer happy, so nothing
    // ended the request. The overall deadline does, and the message names the URL.
    void aTricklingServerMeetsTheOverallDeadline()
    {
        FakeDashboard server;
        server.script = [](const Request &r) {
            Response answer = dashboard(r);
            if (r.path.startsWith("/api/v0/nodes"))
                answer.trickleMs = 1000;
            return answer;
        };
        RayClient client(server.url());
        client.setToken(testToken());
        client.setDeadlines(std::chrono::milliseconds(0), std::chrono::milliseconds(2500));
        QSignalSpy captures(&client, &RayClient::captureReceived);
        QSignalSpy failures(&client, &RayClient::pollFailed);
        QElapsedTimer timer;
        timer.start();
        client.poll();
        QTRY_COMPARE_WITH_TIMEOUT(failures.size(), 1, 15000);
        const qint64 ms = timer.elapsed();
        const QString message = failures.first().value(0).toString();
        qInfo("trickle: failed after %lld ms: %s", ms, qPrintable(message));
        QCOMPARE(captures.size(), 0);
        QVERIFY2(message.startsWith(QStringLiteral("GET %1/api/v0/nodes?detail=true&limit=10000: the answer did not complete within 2.5 s "
                                                   "(overall deadline; ")
                                        .arg(server.url().toString())),
                 qPrintable(message));
        QVERIFY2(ms >= 2400 && ms < 6000, qPrintable(QString::number(ms)));
    }

    // The connect bound: a server that takes the TCP connection and then never speaks TLS keeps
    // the request from ever being sent; the connect timeout ends it, not the 30 s idle one.
    void aServerThatNeverShakesHandsMeetsTheConnectTimeout()
    {
        QTcpServer silent;
        QVERIFY(silent.listen(QHostAddress::LocalHost, 0));
        QList<QTcpSocket *> held;
        connect(&silent, &QTcpServer::newConnection, this, [&] {
            while (QTcpSocket *s = silent.nextPendingConnection())
                held.append(s); // accepted, never answered
        });
        const QUrl url(QStringLiteral("https://127.0.0.1:%1").arg(silent.serverPort()));
        RayClient client(url);
        client.setDeadlines(std::chrono::milliseconds(700), std::chrono::milliseconds(0));
        QSignalSpy failures(&client, &RayClient::pollFailed);
        QElapsedTimer timer;
        timer.start();
        client.poll();
        QTRY_COMPARE_WITH_TIMEOUT(failures.size(), 1, 15000);
        const QString message = failures.first().value(0).toString();
        qInfo("connect: failed after %lld ms: %s", timer.elapsed(), qPrintable(message));
        QVERIFY2(message == QStringLiteral("GET %1/api/authentication_mode: no connection within 0.7 s (connect timeout)").arg(url.toString()),
                 qPrintable(message));
        QVERIFY(timer.elapsed() < 5000);
        qDeleteAll(held);
    }

    // Issue 13: a name that reaches a path cannot climb it: a job id ".." would have asked
    // /api/jobs/.. (QUrl decodes %2E, so escaping cannot help); it is refused before sending.
    void jobIdsCannotClimbThePath()
    {
        FakeDashboard server;
        RayClient client(server.url());
        QString error;
        bool called = false;
        client.getJob(QStringLiteral(".."), [&](const QString &e, int, const QByteArray &) {
            called = true;
            error = e;
        });
        QTRY_VERIFY(called);
        QVERIFY2(error.contains(QLatin1String("holds a \"..\" segment, which would name another resource; not sent")), qPrintable(error));
        QCOMPARE(server.requests.size(), 0);
        // A slash in an id stays inside its segment.
        called = false;
        client.getJob(QStringLiteral("a/b"), [&](const QString &, int, const QByteArray &) { called = true; });
        QTRY_VERIFY(called);
        QCOMPARE(server.requests.size(), 1);
        QCOMPARE(server.requests.first().path, QByteArray("/api/jobs/a%2Fb"));
    }

    // The Job Submission API (docs/facts.md 1.3): a POST that does not look like a browser's (the
    // dashboard answers 405 to those), with the token, a JSON body, and one-line failures.
    void jobRequestsLookLikeNoBrowser()
    {
        FakeDashboard server;
        server.script = [](const Request &r) {
            if (r.method == "POST" && r.path == "/api/jobs/")
                return Response{200, R"({"submission_id": "slicescope-1"})"};
            if (r.method == "GET" && r.path == "/api/jobs/slicescope-1")
                return Response{200, R"({"status": "RUNNING"})"};
            if (r.method == "POST" && r.path == "/api/jobs/slicescope-1/stop")
                return Response{200, R"({"stopped": true})"};
            if (r.method == "GET" && r.path == "/api/jobs/slicescope-1/logs")
                return Response{200, R"({"logs": "hello\n"})"};
            return Response{404, "Not Found"};
        };
        RayClient client(server.url());
        client.setToken(testToken());
        QStringList answers;
        auto collect = [&](const QString &error, int status, const QByteArray &body) {
            answers << (error.isEmpty() ? QStringLiteral("%1 %2").arg(status).arg(QString::fromUtf8(body)) : error);
        };
        client.submitJob(QJsonObject{{QStringLiteral("entrypoint"), QStringLiteral("echo hi")}}, collect);
        client.getJob(QStringLiteral("slicescope-1"), collect);
        client.stopJob(QStringLiteral("slicescope-1"), collect);
        client.getJobLogs(QStringLiteral("slicescope-1"), collect);
        QVERIFY(answers.isEmpty()); // never synchronous
        QTRY_COMPARE(answers.size(), 4);
        QVERIFY2(answers.contains(QStringLiteral("200 {\"submission_id\": \"slicescope-1\"}")), qPrintable(answers.join(u'|')));
        QVERIFY(answers.contains(QStringLiteral("200 {\"stopped\": true}")));
        QVERIFY(answers.contains(QStringLiteral("200 {\"logs\": \"hello\\n\"}")));
        QCOMPARE(server.requests.size(), 4);
        for (const Request &r : server.requests) {
            QCOMPARE(r.headers.value("user-agent"), slicescopeUserAgent());
            QCOMPARE(r.headers.value("authorization"), QByteArray("Bearer s3cr3t-t0ken"));
            QVERIFY(!r.headers.contains("origin") && !r.headers.contains("referer"));
            for (auto it = r.headers.begin(); it != r.headers.end(); ++it)
                QVERIFY2(!it.key().startsWith("sec-fetch-"), it.key().constData());
        }
        const Request &post = *std::find_if(server.requests.begin(), server.requests.end(), [](const Request &r) { return r.path == "/api/jobs/"; });
        QCOMPARE(post.method, QByteArray("POST"));
        QCOMPARE(post.headers.value("content-type"), QByteArray("application/json"));
        QCOMPARE(QJsonDocument::fromJson(post.body).object().value(QLatin1String("entrypoint")).toString(), QStringLiteral("echo hi"));
    }

    void jobFailuresAreOneLineWithoutTheToken()
    {
        FakeDashboard server;
        // Ray answers a bad submission with a plain-text traceback; this one echoes the token.
        server.script = [](const Request &) {
            return Response{400, "Traceback (most recent call last):\n  s3cr3t-t0ken\nValueError: bad"};
        };
        RayClient client(server.url());
        client.setToken(testToken());
        QString error;
        int status = 0;
        client.submitJob(QJsonObject{}, [&](const QString &e, int s, const QByteArray &) { error = e; status = s; });
        QTRY_VERIFY(!error.isEmpty());
        QCOMPARE(status, 400);
        QVERIFY2(error.startsWith(QStringLiteral("POST %1/api/jobs/: HTTP 400").arg(server.url().toString())), qPrintable(error));
        QVERIFY2(!error.contains(u'\n') && !error.contains(QLatin1String("s3cr3t")), qPrintable(error));

        server.script = [](const Request &) {
            return Response{405, "Method Not Allowed"};
        };
        error.clear();
        client.stopJob(QStringLiteral("x"), [&](const QString &e, int, const QByteArray &) { error = e; });
        QTRY_VERIFY(!error.isEmpty());
        QVERIFY2(error.contains(QLatin1String("looks like it came from a browser")), qPrintable(error));
    }

    void theJobCarriesTheRequestOnlyAsData()
    {
        // Quotes, a newline and Python in a name must reach the driver as a string, not as code.
        SlicePgRequest request;
        request.topology = QStringLiteral("4x4");
        request.acceleratorVersion = QStringLiteral("v6e");
        request.name = QStringLiteral("x'\"); import os; os.system('rm -rf /') #\n$(reboot)");
        const QJsonObject driverRequest = createRequestJson(request);
        const QJsonObject body = sliceJobBody(driverRequest, QStringLiteral("slicescope-0123"), request.name);
        QCOMPARE(body.value(QLatin1String("entrypoint")).toString(), QStringLiteral("python slice_pg_driver.py"));
        QCOMPARE(body.value(QLatin1String("submission_id")).toString(), QStringLiteral("slicescope-0123"));
        const QJsonObject runtimeEnv = body.value(QLatin1String("runtime_env")).toObject();
        const QJsonObject env = runtimeEnv.value(QLatin1String("env_vars")).toObject();
        QCOMPARE(env.keys(), QStringList{QStringLiteral("SLICESCOPE_REQUEST")});
        QCOMPARE(QJsonDocument::fromJson(env.value(QLatin1String("SLICESCOPE_REQUEST")).toString().toUtf8()).object(), driverRequest);
        // The driver travels as a package named after its content, not in the body: Ray lists
        // every job's runtime_env in GET /api/jobs/, which the live source polls.
        const DriverPackage &package = slicePgDriverPackage();
        QCOMPARE(runtimeEnv.value(QLatin1String("working_dir")).toString(), package.uri());
        QVERIFY(package.name.startsWith(QLatin1String("_ray_pkg_")) && package.name.endsWith(QLatin1String(".zip")));
        QCOMPARE(package.name.size(), int(sizeof("_ray_pkg_.zip")) - 1 + 32);
        QVERIFY2(QJsonDocument(body).toJson(QJsonDocument::Compact).size() < 1024, "the job body stays small");
        // The package holds the repository's driver, byte for byte, whatever the request says.
        QFile repoDriver(QStringLiteral(SLICESCOPE_TEST_DATA "/../../resources/driver/slice_pg_driver.py"));
        QVERIFY(repoDriver.open(QIODevice::ReadOnly));
        const QByteArray driver = repoDriver.readAll();
        QCOMPARE(package.zip, storedZip({{QStringLiteral("slice_pg_driver.py"), driver}}));
        QVERIFY(!package.zip.contains("rm -rf"));
        const QJsonObject metadata = body.value(QLatin1String("metadata")).toObject();
        QCOMPARE(metadata.value(QLatin1String("slicescope")).toString(), QStringLiteral("slice-pg"));
        QCOMPARE(metadata.value(QLatin1String("name")).toString(), request.name);
        // Shown to people: the driver by size and hash, the request as an object.
        const QJsonObject shown = sliceJobForDisplay(body);
        QVERIFY2(shown.value(QLatin1String("driver")).toString().contains(QLatin1String("sha256 ")), qPrintable(shown.value(QLatin1String("driver")).toString()));
        QCOMPARE(shown.value(QLatin1String("request")).toObject(), driverRequest);
        QVERIFY(newSliceJobSubmissionId().startsWith(QLatin1String("slicescope-")));
        QVERIFY(newSliceJobSubmissionId() != newSliceJobSubmissionId());
    }

    void aStoredZipIsAZipAnyUnzipReads()
    {
        // Layout checks here; Ray unpacking it is proven in tests/integration/tst_slice_pg_live.cpp.
        const QByteArray zip = storedZip({{QStringLiteral("a.txt"), QByteArrayLiteral("123456789")}});
        auto u32 = [&](qsizetype at) {
            return quint32(quint8(zip[at])) | quint32(quint8(zip[at + 1])) << 8 | quint32(quint8(zip[at + 2])) << 16 | quint32(quint8(zip[at + 3])) << 24;
        };
        QCOMPARE(u32(0), 0x04034b50u);
        QCOMPARE(u32(14), 0xCBF43926u); // the CRC-32 check value of "123456789"
        QCOMPARE(u32(18), 9u);
        QCOMPARE(zip.mid(30, 5), QByteArrayLiteral("a.txt"));
        QCOMPARE(zip.mid(35, 9), QByteArrayLiteral("123456789"));
        QCOMPARE(u32(44), 0x02014b50u);
        const qsizetype end = zip.size() - 22;
        QCOMPARE(u32(end), 0x06054b50u);
        QCOMPARE(u32(end + 16), 44u); // where the central directory starts
        QCOMPARE(zip, storedZip({{QStringLiteral("a.txt"), QByteArrayLiteral("123456789")}})); // reproducible
    }

    void theFollowerUploadsTheDriverPackageOnlyWhenMissing()
    {
        FakeDashboard server;
        bool stored = false;
        QByteArray uploaded;
        const QByteArray packagePath = "/api/packages/gcs/" + slicePgDriverPackage().name.toLatin1();
        server.script = [&](const Request &r) {
            if (r.path == packagePath && r.method == "GET")
                return stored ? Response{200, ""} : Response{404, "Package does not exist"};
            if (r.path == packagePath && r.method == "PUT") {
                stored = true;
                uploaded = r.body;
                return Response{200, ""};
            }
            if (r.path == "/api/jobs/")
                return Response{200, R"({"submission_id": "slicescope-5"})"};
            if (r.path == "/api/jobs/slicescope-5")
                return Response{200, R"({"status": "RUNNING"})"};
            if (r.path == "/api/jobs/slicescope-5/logs")
                return Response{200, "{\"logs\": \"SLICESCOPE_RESULT {\\\"ok\\\": true}\\n\"}"};
            return Response{404, "Not Found"};
        };
        RayClient client(server.url());
        SliceJobFollower follower(&client);
        QSignalSpy results(&follower, &SliceJobFollower::resultReceived);
        QSignalSpy failures(&follower, &SliceJobFollower::failed);
        const QJsonObject body = sliceJobBody(removeRequestJson(QStringLiteral("pg"), QStringLiteral("n"), 5), QStringLiteral("slicescope-5"), QStringLiteral("n"));
        follower.start(body, std::chrono::seconds(10));
        QTRY_COMPARE(results.size() + failures.size(), 1);
        QVERIFY2(failures.isEmpty(), qPrintable(failures.value(0).value(0).toString()));
        QCOMPARE(uploaded, slicePgDriverPackage().zip);
        const Request put = *std::find_if(server.requests.begin(), server.requests.end(), [](const Request &r) { return r.method == "PUT"; });
        QVERIFY(!put.headers.value("user-agent").startsWith("Mozilla")); // Ray refuses a PUT that looks like a browser's
        QCOMPARE(put.headers.value("content-type"), QByteArrayLiteral("application/octet-stream"));
        follower.start(body, std::chrono::seconds(10));
        QTRY_COMPARE(results.size() + failures.size(), 2);
        QCOMPARE(server.count(packagePath), 3); // GET, PUT; then only a GET

        // A package route that fails otherwise: said, and nothing submitted.
        server.script = [](const Request &) {
            return Response{500, "Traceback: GCS unavailable"};
        };
        follower.start(body, std::chrono::seconds(10));
        QTRY_COMPARE(failures.size(), 1);
        QVERIFY2(failures.first().value(0).toString().startsWith(QLatin1String("the driver package could not be checked: GET ")), qPrintable(failures.first().value(0).toString()));
    }

    void theDriverResultLine_data()
    {
        QTest::addColumn<QString>("logs");
        QTest::addColumn<bool>("found");
        QTest::addColumn<QString>("message");
        QTest::newRow("none yet") << QStringLiteral("connecting...\n") << false << QString();
        QTest::newRow("ok") << QStringLiteral("a\nSLICESCOPE_RESULT {\"ok\": true, \"message\": \"m\"}\n") << true << QStringLiteral("m");
        QTest::newRow("the last one wins") << QStringLiteral("SLICESCOPE_RESULT {\"message\": \"1\"}\nSLICESCOPE_RESULT {\"message\": \"2\"}\n") << true << QStringLiteral("2");
        QTest::newRow("not at a line start") << QStringLiteral("print('SLICESCOPE_RESULT {\"message\": \"x\"}')\n") << false << QString();
        QTest::newRow("half a line") << QStringLiteral("SLICESCOPE_RESULT {\"message\": \"x") << false << QString();
    }

    void theDriverResultLine()
    {
        QFETCH(QString, logs);
        QFETCH(bool, found);
        QFETCH(QString, message);
        QJsonObject result;
        QCOMPARE(parseDriverResult(logs, result), found);
        QCOMPARE(result.value(QLatin1String("message")).toString(), message);
    }

    // (Plain string literals below: moc 6.4 misreads \" inside raw strings and drops the class.)
    void theFollowerWaitsForTheResultLine()
    {
        FakeDashboard server;
        int jobReads = 0;
        server.script = [&](const Request &r) {
            if (r.path == "/api/jobs/")
                return Response{200, R"({"submission_id": "slicescope-1"})"};
            if (r.path == "/api/jobs/slicescope-1")
                return Response{200, ++jobReads < 2 ? R"({"status": "PENDING"})" : R"({"status": "RUNNING"})"};
            if (r.path == "/api/jobs/slicescope-1/logs")
                return Response{200, jobReads < 4 ? R"({"logs": "starting\n"})"
                                                  : "{\"logs\": \"starting\\nSLICESCOPE_RESULT {\\\"ok\\\": true, \\\"state\\\": \\\"CREATED\\\"}\\n\"}"};
            return Response{404, "Not Found"};
        };
        RayClient client(server.url());
        SliceJobFollower follower(&client);
        follower.setPollInterval(std::chrono::milliseconds(10));
        QSignalSpy results(&follower, &SliceJobFollower::resultReceived);
        QSignalSpy failures(&follower, &SliceJobFollower::failed);
        QSignalSpy statuses(&follower, &SliceJobFollower::statusChanged);
        follower.start(QJsonObject{}, std::chrono::seconds(10));
        QTRY_COMPARE(results.size() + failures.size(), 1);
        QVERIFY2(failures.isEmpty(), qPrintable(failures.value(0).value(0).toString()));
        const QJsonObject result = results.first().value(0).toJsonObject();
        QCOMPARE(result.value(QLatin1String("state")).toString(), QStringLiteral("CREATED"));
        QCOMPARE(result.value(QLatin1String("jobId")).toString(), QStringLiteral("slicescope-1"));
        QCOMPARE(statuses.size(), 2); // PENDING, RUNNING
        QCOMPARE(server.count("/api/jobs/slicescope-1/stop"), 0); // a held group's job keeps running
    }

    void theFollowerReportsTheDriversOwnMessage()
    {
        FakeDashboard server;
        server.script = [&](const Request &r) {
            if (r.path == "/api/jobs/")
                return Response{200, R"({"submission_id": "slicescope-2"})"};
            if (r.path == "/api/jobs/slicescope-2")
                return Response{200, R"({"status": "FAILED", "message": "Job entrypoint command failed with exit code 1"})"};
            if (r.path == "/api/jobs/slicescope-2/logs")
                return Response{200, "{\"logs\": \"SLICESCOPE_RESULT {\\\"ok\\\": false, \\\"message\\\": \\\"no free slice head within 6 s\\\"}\\n\"}"};
            return Response{404, "Not Found"};
        };
        RayClient client(server.url());
        SliceJobFollower follower(&client);
        QSignalSpy failures(&follower, &SliceJobFollower::failed);
        follower.start(QJsonObject{}, std::chrono::seconds(10));
        QTRY_COMPARE(failures.size(), 1);
        QCOMPARE(failures.first().value(0).toString(), QStringLiteral("job slicescope-2: no free slice head within 6 s"));

        // A driver that died without a word: the job's own message.
        server.script = [&](const Request &r) {
            if (r.path == "/api/jobs/")
                return Response{200, R"({"submission_id": "slicescope-3"})"};
            if (r.path == "/api/jobs/slicescope-3")
                return Response{200, R"({"status": "FAILED", "message": "python: not found"})"};
            return Response{200, R"({"logs": ""})"};
        };
        follower.start(QJsonObject{}, std::chrono::seconds(10));
        QTRY_COMPARE(failures.size(), 2);
        QCOMPARE(failures.last().value(0).toString(), QStringLiteral("job slicescope-3 ended FAILED without a result: python: not found"));
    }

    void theFollowerStopsTheJobAtItsDeadline()
    {
        FakeDashboard server;
        server.script = [&](const Request &r) {
            if (r.path == "/api/jobs/")
                return Response{200, R"({"submission_id": "slicescope-4"})"};
            if (r.path == "/api/jobs/slicescope-4")
                return Response{200, R"({"status": "RUNNING"})"};
            if (r.path == "/api/jobs/slicescope-4/stop")
                return Response{200, R"({"stopped": true})"};
            return Response{200, R"({"logs": "waiting for the head...\n"})"};
        };
        RayClient client(server.url());
        SliceJobFollower follower(&client);
        follower.setPollInterval(std::chrono::milliseconds(20));
        QSignalSpy failures(&follower, &SliceJobFollower::failed);
        follower.start(QJsonObject{}, std::chrono::milliseconds(300));
        QTRY_COMPARE(failures.size(), 1);
        QVERIFY2(failures.first().value(0).toString().contains(QLatin1String("gave no result within 0.3 s (last status RUNNING); stopped it")),
                 qPrintable(failures.first().value(0).toString()));
        QCOMPARE(server.count("/api/jobs/slicescope-4/stop"), 1); // asked before it said so
    }

    void liveSourceKeepsPollingAndBacksOff()
    {
        FakeDashboard server;
        bool down = false;
        server.script = [&](const Request &r) {
            return down && r.path.startsWith("/api/v0/nodes") ? Response{502, "bad gateway"} : dashboard(r);
        };
        LiveRaySource source(server.url(), testToken());
        source.setInterval(std::chrono::milliseconds(50));
        QSignalSpy captures(&source, &Source::captureReceived);
        QSignalSpy failures(&source, &Source::failed);
        source.start();
        QTRY_VERIFY(captures.size() >= 3);
        down = true;
        QTRY_VERIFY(failures.size() >= 2);
        QVERIFY(source.consecutiveFailures() >= 2);
        QVERIFY(failures.last().value(0).toString().contains(QLatin1String("HTTP 502")));
        down = false;
        const qsizetype before = captures.size();
        QTRY_VERIFY_WITH_TIMEOUT(captures.size() > before, 5000);
        QCOMPARE(source.consecutiveFailures(), 0);
        source.stop();
        QTest::qWait(100); // requests written before stop() still reach the server
        const qsizetype requests = server.requests.size();
        QTest::qWait(300); // six intervals
        QCOMPARE(server.requests.size(), requests); // stopped means stopped
    }
};

QTEST_GUILESS_MAIN(TestRayClient)
#include "tst_rayclient.moc"
