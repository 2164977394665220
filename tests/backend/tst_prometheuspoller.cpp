// SPDX-License-Identifier: GPL-3.0-or-later
// PrometheusPoller (backend/prometheuspoller.h) against what a real Prometheus will not do on
// demand: a 401, a dead port, a body that is not JSON, a server that comes back. A scripted HTTP
// server plays Prometheus; the real one is tests/integration/tst_activity_live.cpp's.

#include "../common/fakehttpserver.h"
#include "activity.h"
#include "livesource.h"
#include "prometheuspoller.h"
#include "snapshot.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUrlQuery>

using namespace slicescope;

namespace {

using Request = testing::HttpRequest;
using Response = testing::HttpResponse;

const QByteArray kEmpty = R"({"status":"success","data":{"resultType":"vector","result":[]}})";

QString queryOf(const Request &r)
{
    const QUrl url(QString::fromLatin1(r.path));
    return QUrlQuery(url).queryItemValue(QStringLiteral("query"), QUrl::FullyDecoded);
}

} // namespace

class TestPrometheusPoller : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void asksTheQueriesWithTheToken()
    {
        testing::FakeHttpServer server;
        server.script = [](const Request &r) -> Response {
            if (r.path.startsWith("/prefix/api/v1/query?")) return {200, kEmpty};
            return {404, "Not Found"};
        };
        PrometheusPoller poller(QUrl(server.url().toString() + QStringLiteral("/prefix/")));
        poller.setToken("t0ken");
        poller.setWindowSeconds(300);
        QSignalSpy updated(&poller, &PrometheusPoller::updated);
        poller.start();
        QTRY_COMPARE(updated.size(), 1);
        QCOMPARE(server.requests.size(), 3);
        QStringList asked;
        for (const Request &r : std::as_const(server.requests)) {
            QCOMPARE(r.headers.value("authorization"), QByteArray("Bearer t0ken"));
            QVERIFY(r.headers.value("user-agent").startsWith("slicescope/"));
            asked << queryOf(r);
        }
        QVERIFY2(asked.contains(QLatin1String(promql::kRayTpu)), qPrintable(asked.join(u'|')));
        QVERIFY(asked.contains(QLatin1String(promql::kDevicePlugin)));
        QVERIFY(asked.contains(promql::windowMaxQuery(300)));
        Capture c;
        poller.attachTo(c);
        QCOMPARE(c.prometheus.size(), 3);
        QCOMPARE(c.prometheusError, QString());
        QVERIFY(c.prometheusUrl.endsWith(QLatin1String("/prefix")));
        QVERIFY(!c.prometheusUrl.contains(QLatin1String("t0ken")));
    }

    void failuresKeepTheLastAnswersAndSayWhy()
    {
        testing::FakeHttpServer server;
        server.script = [](const Request &) -> Response {
            return {200, kEmpty};
        };
        PrometheusPoller poller(server.url());
        poller.setInterval(std::chrono::milliseconds(50));
        QSignalSpy updated(&poller, &PrometheusPoller::updated);
        poller.start();
        QTRY_COMPARE(updated.size(), 1);

        server.script = [](const Request &) -> Response {
            return {401, "Unauthorized"};
        };
        QTRY_COMPARE(updated.size(), 2);
        Capture c;
        poller.attachTo(c);
        QCOMPARE(c.prometheus.size(), 3); // the round before stays
        QVERIFY2(c.prometheusError.contains(u"HTTP 401") && c.prometheusError.contains(u"--prometheus-token-file"), qPrintable(c.prometheusError));

        server.goAway();
        QTRY_VERIFY_WITH_TIMEOUT([&] {
            Capture d;
            poller.attachTo(d);
            return d.prometheusError.contains(u"connection refused");
        }(),
                                 10000);

        QVERIFY(server.comeBack());
        server.script = [](const Request &) -> Response {
            return {200, kEmpty};
        };
        QTRY_VERIFY_WITH_TIMEOUT([&] {
            Capture d;
            poller.attachTo(d);
            return d.prometheusError.isEmpty();
        }(),
                                 10000);
        poller.stop();
    }

    void aBadQueryAnswerReachesTheJoin()
    {
        testing::FakeHttpServer server;
        server.script = [](const Request &) -> Response {
            return {400, "{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"invalid parameter query\"}"};
        };
        PrometheusPoller poller(server.url());
        QSignalSpy updated(&poller, &PrometheusPoller::updated);
        poller.start();
        QTRY_COMPARE(updated.size(), 1);
        Capture c;
        poller.attachTo(c);
        QVERIFY(c.prometheusError.isEmpty());
        QCOMPARE(c.prometheus.size(), 3);
        const SnapshotPtr s = buildSnapshot(c);
        QVERIFY(s->activity);
        QVERIFY2(s->activity->problems.join(u' ').contains(u"bad_data"), qPrintable(s->activity->problems.join(u'|')));
    }

    void tokenFileIsBoundedAndOneWord()
    {
        QTemporaryDir dir;
        QByteArray token;
        QVERIFY(PrometheusPoller::readTokenFile(dir.filePath(QStringLiteral("missing")), token).contains(u"--prometheus-token-file"));
        QFile f(dir.filePath(QStringLiteral("two")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("a b\n");
        f.close();
        QVERIFY(PrometheusPoller::readTokenFile(f.fileName(), token).contains(u"one word"));
        QVERIFY(PrometheusPoller::readTokenFile(dir.path(), token).size() > 0); // a directory is refused
        QFile g(dir.filePath(QStringLiteral("ok")));
        QVERIFY(g.open(QIODevice::WriteOnly));
        g.write("abc.def\n");
        g.close();
        QCOMPARE(PrometheusPoller::readTokenFile(g.fileName(), token), QString());
        QCOMPARE(token, QByteArray("abc.def"));
    }
};

QTEST_GUILESS_MAIN(TestPrometheusPoller)
#include "tst_prometheuspoller.moc"
