// SPDX-License-Identifier: GPL-3.0-or-later
// KubeWatch against a scripted server, for the faults a real API server does not produce on
// demand (docs/facts.md 4.2): paged LIST with continue, resume from the last resourceVersion (bookmarks
// included) after a normal end, relist on an ERROR 410 event and on HTTP 410, a malformed line, a
// silent stream, a 5xx. The real server is tests/integration/tst_kube_live.

#include "../common/fakehttpserver.h"
#include "kubeclient.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTest>
#include <QUrlQuery>

using namespace slicescope;
using namespace slicescope::testing;

namespace {

QByteArray pod(const char *name, const char *rv, const char *phase = "Running")
{
    // Written by hand (odd spacing included): the List body must carry objects verbatim.
    return QByteArray("{\"metadata\": {\"name\":\"") + name + "\",\"namespace\":\"t\",\"resourceVersion\":\"" + rv
           + "\"},  \"status\":{\"phase\":\"" + phase + "\"}}";
}

QByteArray watchEvent(const char *type, const QByteArray &object)
{
    return QByteArray("{\"type\":\"") + type + "\",\"object\":" + object + "}\n";
}

QByteArray list(const QList<QByteArray> &items, const char *rv, const char *continueToken = "")
{
    QByteArray body = QByteArray("{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"") + rv
                      + "\",\"continue\":\"" + continueToken + "\"},\"items\":[";
    for (qsizetype i = 0; i < items.size(); ++i)
        body += (i ? "," : "") + items[i];
    return body + "]}";
}

QString query(const HttpRequest &r, const char *key)
{
    return QUrlQuery(QUrl(QString::fromUtf8(r.path)).query()).queryItemValue(QLatin1String(key), QUrl::FullyDecoded);
}

QStringList names(const KubeWatch &w)
{
    QStringList out;
    for (const QJsonValue &item : QJsonDocument::fromJson(w.listBody()).object().value(QLatin1String("items")).toArray())
        out << item.toObject().value(QLatin1String("metadata")).toObject().value(QLatin1String("name")).toString();
    return out;
}

// Every message the watch's failed() carried, one per line.
QString failureMessages(const QSignalSpy &failed)
{
    QStringList messages;
    for (const QList<QVariant> &f : failed)
        messages << f.at(0).toString();
    return messages.join(u'\n');
}

} // namespace

class TestKubeWatch : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void listsWatchesResumesAndRelists()
    {
        FakeHttpServer server;
        int watches = 0;
        server.script = [&](const HttpRequest &r) -> HttpResponse {
            const bool watch = query(r, "watch") == QLatin1String("1");
            if (!watch) {
                if (query(r, "continue") == QLatin1String("page2"))
                    return {200, list({pod("b", "9")}, "11")};
                if (server.count("/api/v1/pods") > 1 && watches >= 2) // the relist after a 410
                    return {200, list({pod("z", "29")}, "30")};
                return {200, list({pod("a", "8")}, "11", "page2")};
            }
            ++watches;
            switch (watches) {
            case 1: // events, then a bookmark, then the server ends the watch (timeoutSeconds)
                return {200, watchEvent("ADDED", pod("c", "12")) + watchEvent("MODIFIED", pod("a", "13", "Failed"))
                                 + watchEvent("DELETED", pod("b", "14")) + watchEvent("BOOKMARK", "{\"metadata\":{\"resourceVersion\":\"20\"}}")};
            case 2: // our resourceVersion is too old
                return {200, watchEvent("ERROR", "{\"kind\":\"Status\",\"code\":410,\"reason\":\"Expired\",\"message\":\"too old resource version\"}")};
            case 3:
                return {410, "{\"kind\":\"Status\",\"code\":410,\"message\":\"Gone\"}"};
            default:
                return {200, {}, {}, true}; // stays open, silent
            }
        };
        KubeConfig config;
        config.server = server.url();
        KubeClient client(config);
        KubeWatch watch(&client, QStringLiteral("/api/v1/pods"), QStringLiteral("labelSelector=ray.io%2Fis-ray-node%3Dyes"), "PodList");
        watch.setPageSize(1);
        watch.setRetryDelay(std::chrono::milliseconds(20));
        QSignalSpy synced(&watch, &KubeWatch::synced);
        QSignalSpy failed(&watch, &KubeWatch::failed);
        watch.start();

        QTRY_COMPARE(synced.size(), 1);
        // Two pages, one list.
        QTRY_VERIFY(watches >= 1);
        const QList<HttpRequest> &rs = server.requests;
        QCOMPARE(query(rs[0], "limit"), QStringLiteral("1"));
        QCOMPARE(query(rs[0], "labelSelector"), QStringLiteral("ray.io/is-ray-node=yes"));
        QCOMPARE(query(rs[1], "continue"), QStringLiteral("page2"));
        // The watch starts at the list's resourceVersion, with bookmarks.
        QCOMPARE(query(rs[2], "resourceVersion"), QStringLiteral("11"));
        QCOMPARE(query(rs[2], "allowWatchBookmarks"), QStringLiteral("true"));
        // After the normal end it resumes from the bookmark's resourceVersion, not the last object's.
        QTRY_VERIFY(watches >= 2);
        QCOMPARE(query(rs[3], "resourceVersion"), QStringLiteral("20"));
        // ERROR 410 -> relist; HTTP 410 -> relist; the relisted collection replaces the old one.
        QTRY_VERIFY(watches >= 4);
        QCOMPARE(watch.listCount(), 3);
        QCOMPARE(names(watch), QStringList{QStringLiteral("z")});
        QCOMPARE(watch.lastResourceVersion(), QStringLiteral("30"));
        QVERIFY(watch.listBody().contains(pod("z", "29"))); // verbatim
        watch.stop();
    }

    void eventsApplyInOrderAndObjectsStayVerbatim()
    {
        FakeHttpServer server;
        server.script = [&](const HttpRequest &r) -> HttpResponse {
            if (query(r, "watch") != QLatin1String("1"))
                return {200, list({pod("a", "1"), pod("b", "2")}, "2")};
            if (server.count("/api/v1/pods") == 2)
                return {200, watchEvent("ADDED", pod("c", "3")) + watchEvent("MODIFIED", pod("a", "4", "Failed")) + watchEvent("DELETED", pod("b", "5"))};
            return {200, {}, {}, true};
        };
        KubeConfig config;
        config.server = server.url();
        KubeClient client(config);
        KubeWatch watch(&client, QStringLiteral("/api/v1/pods"), {}, "PodList");
        QSignalSpy changed(&watch, &KubeWatch::changed);
        watch.start();
        QTRY_VERIFY(changed.size() >= 4); // the list, then three events
        QCOMPARE(names(watch), (QStringList{QStringLiteral("a"), QStringLiteral("c")}));
        QVERIFY(watch.listBody().contains(pod("a", "4", "Failed")));
        QCOMPARE(watch.lastResourceVersion(), QStringLiteral("5"));
        const QJsonObject body = QJsonDocument::fromJson(watch.listBody()).object();
        QCOMPARE(body.value(QLatin1String("kind")).toString(), QStringLiteral("PodList"));
        QCOMPARE(body.value(QLatin1String("metadata")).toObject().value(QLatin1String("resourceVersion")).toString(), QStringLiteral("5"));
    }

    // The List body is one buffer while the collection stays as it is (the snapshot builder knows a
    // list unchanged by its buffer, model/snapshotbuilder.cpp), and a new one after an event.
    void theListBodyIsOneBufferWhileNothingChanges()
    {
        FakeHttpServer server;
        int watches = 0;
        server.script = [&](const HttpRequest &r) -> HttpResponse {
            if (query(r, "watch") != QLatin1String("1"))
                return {200, list({pod("a", "1"), pod("b", "2")}, "2")};
            if (++watches == 1)
                return {200, {}, {}, true}; // silent: cut after the idle limit
            return {200, watchEvent("ADDED", pod("c", "3"))};
        };
        KubeConfig config;
        config.server = server.url();
        KubeClient client(config);
        KubeWatch watch(&client, QStringLiteral("/api/v1/pods"), {}, "PodList");
        watch.setRetryDelay(std::chrono::milliseconds(20));
        watch.setIdleLimit(std::chrono::milliseconds(300));
        watch.start();
        QTRY_VERIFY(watch.isSynced());
        const QByteArray listed = watch.listBody();
        QCOMPARE(watch.listBody().constData(), listed.constData());
        QCOMPARE(names(watch), (QStringList{QStringLiteral("a"), QStringLiteral("b")}));
        QTRY_VERIFY_WITH_TIMEOUT(names(watch).contains(QStringLiteral("c")), 5000);
        const QByteArray after = watch.listBody();
        QVERIFY(after.constData() != listed.constData());
        QVERIFY(after.contains(pod("c", "3")) && !listed.contains(pod("c", "3")));
        QCOMPARE(watch.listBody().constData(), after.constData());
        watch.stop();
    }

    void badLinesSilenceAndErrorsAreSurvived()
    {
        FakeHttpServer server;
        int watches = 0;
        server.script = [&](const HttpRequest &r) -> HttpResponse {
            if (query(r, "watch") != QLatin1String("1"))
                return {200, list({pod("a", "1")}, "1")};
            switch (++watches) {
            case 1:
                return {200, "this is not json\n"};      // -> relist
            case 2:
                return {200, {}, {}, true};              // silent -> taken as cut after the idle limit
            case 3:
                return {503, "{\"kind\":\"Status\",\"message\":\"etcd leader changed\"}"}; // -> retry later
            default:
                return {200, watchEvent("ADDED", pod("b", "7"))};
            }
        };
        KubeConfig config;
        config.server = server.url();
        KubeClient client(config);
        KubeWatch watch(&client, QStringLiteral("/api/v1/pods"), {}, "PodList");
        watch.setRetryDelay(std::chrono::milliseconds(20));
        watch.setIdleLimit(std::chrono::milliseconds(300));
        QSignalSpy failed(&watch, &KubeWatch::failed);
        QSignalSpy recovered(&watch, &KubeWatch::recovered);
        watch.start();
        QTRY_VERIFY_WITH_TIMEOUT(names(watch).contains(QStringLiteral("b")), 5000);
        const QString all = failureMessages(failed);
        QVERIFY2(all.contains(QStringLiteral("not JSON")), qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral("went silent")), qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral("HTTP 503: etcd leader changed")), qPrintable(all));
        QCOMPARE(watch.listCount(), 2); // only the bad line needed a relist
        QVERIFY(!recovered.isEmpty());
    }

    // Fuzz findings (tests/fuzz/regressions/fuzz_kubewatch/): a stream whose last line is an ERROR
    // event without its newline crashed the window (the reply was already gone when the rest of
    // the buffer was read); an object that is not JSON inside (simdjson's raw_json() skips what it
    // does not read) was kept verbatim and made the whole collection unreadable.
    void streamEndsAndMalformedObjects()
    {
        FakeHttpServer server;
        int watches = 0;
        server.script = [&](const HttpRequest &r) -> HttpResponse {
            if (query(r, "watch") != QLatin1String("1"))
                return {200, list({pod("a", "1")}, "1")};
            switch (++watches) {
            case 1: // a malformed object first: refused as not JSON (relist), never stored
                return {200, "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"bad\",\"namespace\":\"t\"},\"status\":[{\"ip\":\"b\":1}]}}\n"};
            case 2: // the server ends the stream with an error Status and no final newline
                return {200, "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"code\":500,\"message\":\"internal error\"}}"};
            case 3:
                return {200, watchEvent("ADDED", pod("b", "7"))}; // then a normal end: resume
            default:
                return {200, {}, {}, true}; // the resumed watch stays open
            }
        };
        KubeConfig config;
        config.server = server.url();
        KubeClient client(config);
        KubeWatch watch(&client, QStringLiteral("/api/v1/pods"), {}, "PodList");
        watch.setRetryDelay(std::chrono::milliseconds(20));
        QSignalSpy failed(&watch, &KubeWatch::failed);
        watch.start();
        QTRY_VERIFY_WITH_TIMEOUT(names(watch).contains(QStringLiteral("b")), 5000);
        const QString all = failureMessages(failed);
        QVERIFY2(all.contains(QStringLiteral("not JSON")), qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral("reported an error: internal error")), qPrintable(all));
        QVERIFY(!names(watch).contains(QStringLiteral("bad")));
        QVERIFY(!QJsonDocument::fromJson(watch.listBody()).isNull()); // the collection stays JSON
        // One watch after the error, not two (the end of the stream and the ERROR each starting one).
        QTest::qWait(300);
        QCOMPARE(watches, 4);
        watch.stop();
    }

    // Issue 13, the Kubernetes side: a redirect says it is refused, a cut body says it was cut,
    // a trickling answer meets the overall deadline, and a path with a ".." segment (what `-n ..`
    // made of a namespaced LIST) is refused before it is sent.
    void hostileAnswersAndPaths()
    {
        FakeHttpServer server;
        server.script = [](const HttpRequest &r) {
            HttpResponse answer{200, list({}, "1")};
            if (r.path.startsWith("/redirect")) {
                answer = {307, ""};
                answer.reason = "Temporary Redirect";
                answer.headers.append({QByteArrayLiteral("Location"), QByteArrayLiteral("https://elsewhere.example/api")});
            } else if (r.path.startsWith("/cut")) {
                answer.contentLength = 5000;
            } else if (r.path.startsWith("/trickle")) {
                answer.trickleMs = 1000;
            }
            return answer;
        };
        KubeConfig config;
        config.server = server.url();
        config.origin = QStringLiteral("test");
        KubeClient client(config);
        client.setDeadlines(std::chrono::milliseconds(0), std::chrono::milliseconds(1500));
        QMap<QString, QString> errors;
        for (const char *path : {"/redirect", "/cut", "/trickle", "/api/v1/namespaces/../pods", "/api/v1/namespaces//pods"}) {
            const QString p = QLatin1String(path);
            client.get(p, [&errors, p](const QString &error, int, const QByteArray &) { errors.insert(p, error); });
        }
        QTRY_COMPARE_WITH_TIMEOUT(errors.size(), 5, 15000);
        const QString base = server.url().toString();
        QCOMPARE(errors.value(QStringLiteral("/redirect")),
                 QStringLiteral("GET %1/redirect: HTTP 307 Temporary Redirect: redirects are refused (to https://elsewhere.example/api)").arg(base));
        QVERIFY2(errors.value(QStringLiteral("/cut")).startsWith(QStringLiteral("GET %1/cut: HTTP 200 X, but the body was cut short after ").arg(base)),
                 qPrintable(errors.value(QStringLiteral("/cut"))));
        QVERIFY2(errors.value(QStringLiteral("/trickle")).startsWith(QStringLiteral("GET %1/trickle: the answer did not complete within 1.5 s").arg(base)),
                 qPrintable(errors.value(QStringLiteral("/trickle"))));
        QVERIFY2(errors.value(QStringLiteral("/api/v1/namespaces/../pods")).contains(QLatin1String("holds a \"..\" segment")),
                 qPrintable(errors.value(QStringLiteral("/api/v1/namespaces/../pods"))));
        QVERIFY2(errors.value(QStringLiteral("/api/v1/namespaces//pods")).contains(QLatin1String("holds an empty segment")),
                 qPrintable(errors.value(QStringLiteral("/api/v1/namespaces//pods"))));
        QCOMPARE(server.count("/api/"), 0); // neither reached the server
        for (const QString &e : std::as_const(errors))
            qInfo("%s", qPrintable(e));
    }
};

QTEST_GUILESS_MAIN(TestKubeWatch)
#include "tst_kubewatch.moc"
