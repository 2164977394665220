// SPDX-License-Identifier: GPL-3.0-or-later
// The debug log (model/logging.h) tells the story of a fault: what happened, what is done about
// it and when. Two faults from the fault matrix, told line by line and asserted in order: a
// Kubernetes watch cut in the middle of its stream, then answered with 410 Gone; and a Ray
// dashboard shedding load (a 429 storm) until a poll gives up, backs off and recovers. Neither
// story may carry the credential. Each story is printed, so `ctest -V` shows it.

#include "../common/fakehttpserver.h"
#include "kubeclient.h"
#include "kubeconfig.h"
#include "livesource.h"
#include "logging.h"
#include "rayclient.h"

#include <QLoggingCategory>
#include <QSignalSpy>
#include <QTest>
#include <QUrlQuery>

using namespace slicescope;
using namespace slicescope::testing;

namespace {

const QByteArray kKubeToken = "kube-token-that-must-never-be-logged";
const QByteArray kRayToken = "ray-token-that-must-never-be-logged";

QStringList g_lines; // "category: message", every slicescope.* line
QtMessageHandler g_previous = nullptr;

void collect(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    if (context.category && QByteArray(context.category).startsWith("slicescope."))
        g_lines << QStringLiteral("%1: %2").arg(QLatin1String(context.category), message);
    else if (g_previous)
        g_previous(type, context, message);
}

QString query(const HttpRequest &r, const char *key)
{
    return QUrlQuery(QUrl(QString::fromUtf8(r.path)).query()).queryItemValue(QLatin1String(key), QUrl::FullyDecoded);
}

QByteArray pod(const char *name, const char *rv)
{
    return QByteArray("{\"metadata\":{\"name\":\"") + name + "\",\"namespace\":\"t\",\"resourceVersion\":\"" + rv + "\"}}";
}

// Each expected piece must appear in a line of its own, in this order (other lines may come
// between them). Returns "" or what is missing, with the whole story.
QString inOrder(const QStringList &lines, const QStringList &expected)
{
    qsizetype at = 0;
    for (const QString &piece : expected) {
        while (at < lines.size() && !lines[at].contains(piece))
            ++at;
        if (at == lines.size())
            return QStringLiteral("missing, in this order: \"%1\"\nthe story:\n%2").arg(piece, lines.join(u'\n'));
        ++at;
    }
    return {};
}

} // namespace

class TestDebugLog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QLoggingCategory::setFilterRules(QStringLiteral("slicescope.*.debug=true"));
        g_previous = qInstallMessageHandler(collect);
    }
    void cleanupTestCase() { qInstallMessageHandler(g_previous); }
    void init() { g_lines.clear(); }

    void offByDefault()
    {
        QLoggingCategory::setFilterRules(QString());
        QVERIFY(!lcKube().isDebugEnabled());
        QVERIFY(!lcRay().isDebugEnabled());
        QVERIFY(lcRelay().isInfoEnabled());
        QLoggingCategory::setFilterRules(QStringLiteral("slicescope.*.debug=true"));
        QVERIFY(lcKube().isDebugEnabled() && lcRay().isDebugEnabled() && lcRelay().isDebugEnabled() && lcHistory().isDebugEnabled());
    }

    void aCutKubernetesWatch()
    {
        FakeHttpServer server;
        int lists = 0, watches = 0;
        server.script = [&](const HttpRequest &r) -> HttpResponse {
            if (query(r, "watch") != QLatin1String("1")) {
                ++lists;
                if (lists == 1)
                    return {200, "{\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"5\"},\"items\":[" + pod("a", "4") + "]}"};
                return {200, "{\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"9\"},\"items\":[" + pod("a", "4") + "," + pod("b", "8") + "]}"};
            }
            switch (++watches) {
            case 1: { // one event, then the connection drops in the middle of the stream
                HttpResponse cut{200, "{\"type\":\"ADDED\",\"object\":" + pod("b", "6") + "}\n"};
                cut.contentLength = 100000;
                return cut;
            }
            case 2: // the resumed watch is too old for the server
                return {200, "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"code\":410,\"reason\":\"Expired\",\"message\":\"too old resource version: 6 (7)\"}}\n"};
            default: // the watch after the relist stays open
                return {200, {}, {}, true};
            }
        };
        KubeConfig config;
        config.server = server.url();
        config.token = kKubeToken;
        config.origin = QStringLiteral("a test kubeconfig");
        KubeClient client(config);
        KubeWatch watch(&client, QStringLiteral("/api/v1/pods"), {}, "PodList");
        watch.setRetryDelay(std::chrono::milliseconds(40));
        QSignalSpy failed(&watch, &KubeWatch::failed);
        watch.start();
        QTRY_COMPARE_WITH_TIMEOUT(watches, 3, 10000);
        QTRY_VERIFY_WITH_TIMEOUT(watch.isWatching(), 5000);
        watch.stop();
        QVERIFY(!failed.isEmpty());
        // The bearer token went to the server and nowhere else.
        QCOMPARE(server.requests.first().headers.value("authorization"), "Bearer " + kKubeToken);

        const QString problem = inOrder(g_lines, {
                                                     QStringLiteral("slicescope.kube: pods: listing (list 1 of this watch, in pages of 500)"),
                                                     QStringLiteral("slicescope.kube: pods: listed 1 objects in 1 page(s) at resourceVersion 5"),
                                                     QStringLiteral("slicescope.kube: pods: watching from resourceVersion 5 (watch 1;"),
                                                     QStringLiteral("slicescope.kube: pods: the watch ended after 1 events and"),
                                                     QStringLiteral(" ms, watching from resourceVersion 6 (the delay doubles from 40 ms up to 30 s, with jitter, while it fails)"),
                                                     QStringLiteral("slicescope.kube: pods: watching from resourceVersion 6 (watch 2;"),
                                                     QStringLiteral("slicescope.kube: pods: the watch is streaming again (HTTP 200); the retry delay goes back to 40 ms once it has lived"),
                                                     QStringLiteral("slicescope.kube: pods: resourceVersion 6 is too old (an ERROR 410 Gone event, after 0 events); relisting"),
                                                     // at once after the watch began: after the backoff's next delay (issue 30)
                                                     QStringLiteral(" ms, with a new list (the delay doubles from 40 ms"),
                                                     QStringLiteral("slicescope.kube: pods: listing (list 2 of this watch"),
                                                     QStringLiteral("slicescope.kube: pods: listed 2 objects in 1 page(s) at resourceVersion 9"),
                                                     QStringLiteral("slicescope.kube: pods: watching from resourceVersion 9 (watch 3;"),
                                                 });
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        const QString story = g_lines.join(u'\n');
        QVERIFY(!story.contains(QString::fromLatin1(kKubeToken)));
        QVERIFY(!story.contains(QLatin1String("Bearer")));
        qInfo("the story of a cut watch:\n%s", qPrintable(story));
    }

    void aRay429Storm()
    {
        FakeHttpServer server;
        int nodeRequests = 0;
        server.script = [&](const HttpRequest &r) -> HttpResponse {
            if (r.path.startsWith("/api/authentication_mode"))
                return {200, "{\"authentication_mode\":\"token\"}"};
            if (r.path.startsWith("/api/version"))
                return {200, "{\"ray_version\":\"2.60.0\",\"version\":\"4\"}"};
            if (r.path.startsWith("/api/v0/nodes")) {
                // Four refusals: the first poll gives up after three tries, the next is refused
                // once more and then answered.
                if (++nodeRequests <= 4) {
                    HttpResponse shed{429, "Too many requests"};
                    shed.headers.append({QByteArrayLiteral("Retry-After"), QByteArrayLiteral("0")});
                    return shed;
                }
                return {200, "{\"result\":true,\"data\":{\"result\":{\"total\":0,\"result\":[]}}}"};
            }
            if (r.path.startsWith("/api/jobs/"))
                return {200, "[]"};
            return {200, "{\"result\":true,\"data\":{\"result\":{\"total\":0,\"result\":[]}}}"};
        };
        LiveRaySource source(server.url(), RayToken{kRayToken, QStringLiteral("a test token file")});
        source.setInterval(std::chrono::milliseconds(50));
        source.client()->setRetryPolicy(2, std::chrono::milliseconds(10));
        QSignalSpy failed(&source, &Source::failed);
        QSignalSpy captures(&source, &Source::captureReceived);
        source.start();
        QTRY_VERIFY_WITH_TIMEOUT(!captures.isEmpty(), 10000);
        source.stop();
        QCOMPARE(failed.size(), 1);
        QVERIFY2(nodeRequests >= 5, qPrintable(QString::number(nodeRequests))); // a third poll may have begun

        const QString nodes = server.url().toString() + QStringLiteral("/api/v0/nodes?detail=true&limit=10000");
        const QString problem = inOrder(g_lines, {
                                                     QStringLiteral("slicescope.ray: GET %1: HTTP 429 (try 1 of 3); retrying in 0 ms, as its Retry-After (0 s) asked").arg(nodes),
                                                     QStringLiteral("slicescope.ray: GET %1: HTTP 429 (try 2 of 3); retrying in 0 ms, as its Retry-After (0 s) asked").arg(nodes),
                                                     QStringLiteral("slicescope.ray: GET %1: HTTP 429 on try 3 of 3; giving up on this poll").arg(nodes),
                                                     QStringLiteral("slicescope.ray: Ray at %1: 1 poll(s) failed in a row; backing off: the next poll in").arg(server.url().toString()),
                                                     QStringLiteral("slicescope.ray: GET %1: HTTP 429 (try 1 of 3); retrying in 0 ms").arg(nodes),
                                                     QStringLiteral("slicescope.ray: Ray at %1: a poll succeeded again after 1 failed one(s); polling every 50 ms").arg(server.url().toString()),
                                                 });
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        const QString story = g_lines.join(u'\n');
        QVERIFY(!story.contains(QString::fromLatin1(kRayToken)));
        QVERIFY(!story.contains(QLatin1String("Bearer")));
        qInfo("the story of a 429 storm:\n%s", qPrintable(story));
    }
};

QTEST_GUILESS_MAIN(TestDebugLog)
#include "tst_debuglog.moc"
