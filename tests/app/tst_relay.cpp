// SPDX-License-Identifier: GPL-3.0-or-later
// The relay end to end: `slicescope serve --demo` in a process on 127.0.0.1:0, reached through
// RelaySource / RelayClusterActions (the browser build's own client code), raw HTTP and raw TCP.
// Plus the relay's snapshot latency, measured in process (a figure, printed, not a pass/fail).

#include "../model/fleetcapturefixture.h"
#include "../common/clirun.h"
#include "../common/relayprocess.h"
#include "capturefile.h"
#include "democluster.h"
#include "inspectjson.h"
#include "relayprotocol.h"
#include "relayserver.h"
#include "relaysource.h"
#include "snapshot.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkInterface>
#include <QNetworkReply>
#include <QJsonArray>
#include <QProcess>
#include <QTcpServer>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <vector>

#include <algorithm>

using namespace slicescope;
using slicescope::testing::CliRun;
using slicescope::testing::runCli;

namespace {

using Relay = slicescope::testing::RelayProcess;

QProcessEnvironment cleanEnvironment()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char *name : {"RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "RAY_ADDRESS", "DISPLAY", "KUBECONFIG"})
        env.remove(QLatin1String(name));
    return env;
}

// An IPv4 address of this machine other than loopback (null when it has none), to try the relay from.
QHostAddress externalIPv4()
{
    for (const QHostAddress &a : QNetworkInterface::allAddresses())
        if (a.protocol() == QAbstractSocket::IPv4Protocol && !a.isLoopback() && !a.isLinkLocal())
            return a;
    return {};
}

bool startRelay(Relay &relay, const QStringList &extra = {})
{
    if (relay.start(QStringList{QStringLiteral("--demo")} + extra))
        return true;
    qWarning() << "serve printed no URL line:" << relay.readErr();
    return false;
}

struct HttpAnswer {
    int status = 0;
    QByteArray contentType;
    QByteArray body;
};

HttpAnswer httpGet(const QUrl &url)
{
    QNetworkAccessManager nam;
    QNetworkRequest request(url);
    request.setHeader(QNetworkRequest::UserAgentHeader, QByteArrayLiteral("slicescope-test"));
    QNetworkReply *reply = nam.get(request);
    QSignalSpy done(reply, &QNetworkReply::finished);
    done.wait(10000);
    HttpAnswer a;
    a.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    a.contentType = reply->header(QNetworkRequest::ContentTypeHeader).toByteArray();
    a.body = reply->readAll();
    reply->deleteLater();
    return a;
}

// Writes `bytes` to `path` whole.
bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

// A raw request line, so no client library normalises the path first.
QByteArray rawGet(quint16 port, const QByteArray &target, const QByteArray &token, const QByteArray &moreHeaders = {})
{
    QTcpSocket socket;
    socket.connectToHost(QHostAddress::LocalHost, port);
    if (!socket.waitForConnected(5000))
        return {};
    socket.write("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + QByteArray::number(port) + "\r\nCookie: slicescope_token=" + token
                 + "\r\n" + moreHeaders + "Connection: close\r\n\r\n");
    // Read until the body the headers announce is whole (the relay keeps the connection open).
    QByteArray answer;
    while (socket.waitForReadyRead(3000)) {
        answer += socket.readAll();
        const qsizetype end = answer.indexOf("\r\n\r\n");
        if (end < 0) continue;
        const QByteArray headers = answer.left(end).toLower();
        const qsizetype at = headers.indexOf("content-length:");
        if (at >= 0 && answer.size() - end - 4 >= headers.mid(at + 15, headers.indexOf('\r', at) - at - 15).trimmed().toLongLong()) break;
    }
    return answer;
}

// A source whose captures the test emits, to time the relay alone.
class ManualSource : public Source
{
public:
    QString description() const override { return QStringLiteral("manual"); }
    void start() override { }
    void emitCapture(const Capture &c) { Q_EMIT captureReceived(c); }
};

} // namespace

class TestRelay : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(startRelay(m_relay));
        QCOMPARE(m_relay.url.host(), QStringLiteral("127.0.0.1"));
        QVERIFY(m_relay.port > 0);
    }

    void capturesMatchTheDemo()
    {
        RelaySource source(m_relay.url);
        QSignalSpy captures(&source, &Source::captureReceived);
        source.start();
        QVERIFY(captures.wait(10000));
        const Capture relayed = captures.first().first().value<Capture>();
        QVERIFY(source.description().contains(QLatin1String("demo cluster")));
        QVERIFY(!source.description().contains(QString::fromLatin1(m_relay.token)));
        // The relay's demo runs in real time: build the demo at the same simulated moment.
        DemoCluster demo(42);
        const qint64 advancedMs = demo.capture().capturedAt.msecsTo(relayed.capturedAt);
        QVERIFY(advancedMs >= 0);
        demo.advance(advancedMs);
        const Capture local = demo.capture();
        const SnapshotPtr a = buildSnapshot(relayed), b = buildSnapshot(local);
        QVERIFY(a->errors.isEmpty());
        QCOMPARE(QJsonDocument(inspectJson(*a)).toJson(), QJsonDocument(inspectJson(*b)).toJson());
        // The bodies themselves arrive verbatim.
        QCOMPARE(relayed.rayNodes, local.rayNodes);
        QCOMPARE(relayed.kubeRayClusters, local.kubeRayClusters);
        QVERIFY(!inspectJson(*a).value(QLatin1String("slices")).toArray().isEmpty());
    }

    // A fleet (issue 16), served from a capture file: the relay passes every context's and every
    // RayCluster's bodies whole, and the client builds the same fleet the file holds.
    void aFleetIsRelayedWhole()
    {
        Capture eu = testfixture::twoClusterContext(QStringLiteral("gke_eu"));
        eu.rayClusters[1].rayError = QStringLiteral("connection refused"); // a part that is down travels too
        const Capture fleet = testfixture::fleetOf({testfixture::twoClusterContext(QStringLiteral("gke_us")), eu});
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("fleet.json"));
        QVERIFY2(writeCaptureFile(path, fleet).isEmpty(), "the fleet capture was not written");
        Relay relay;
        QVERIFY2(relay.start({QStringLiteral("--capture"), path}), relay.readErr().constData());
        RelaySource source(relay.url);
        QSignalSpy captures(&source, &Source::captureReceived);
        source.start();
        QVERIFY(captures.wait(10000));
        const Capture relayed = captures.first().first().value<Capture>();
        QCOMPARE(relayed.fleet.size(), 2);
        const SnapshotPtr a = buildSnapshot(relayed), b = buildSnapshot(fleet);
        QCOMPARE(a->contexts, (QStringList{QStringLiteral("gke_us"), QStringLiteral("gke_eu")}));
        QCOMPARE(a->slices.size(), 4);
        QCOMPARE(QJsonDocument(inspectJson(*a)).toJson(), QJsonDocument(inspectJson(*b)).toJson());
        QVERIFY(std::any_of(a->rayViews.cbegin(), a->rayViews.cend(), [](const RayViewState &v) { return v.context == QLatin1String("gke_eu") && v.error == QLatin1String("connection refused"); }));
    }

    void actionRoundTrip()
    {
        RelaySource source(m_relay.url);
        RelayClusterActions actions(&source);
        source.start();
        QTRY_VERIFY_WITH_TIMEOUT(actions.unavailableReason().isEmpty(), 10000);
        QVERIFY(actions.describeSubmission({QStringLiteral("v6e"), QStringLiteral("4x4"), 1, QStringLiteral("relay-test")}).contains(QLatin1String("relay-test")));

        QSignalSpy finished(&actions, &ClusterActions::actionFinished);
        QSignalSpy progress(&actions, &ClusterActions::actionProgress);
        SlicePlacementRequest request;
        request.accelerator = QStringLiteral("v6e");
        request.topology = QStringLiteral("4x4");
        request.name = QStringLiteral("relay-test");
        actions.submitSlicePlacementGroup(QStringLiteral("a1"), request);
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 30000);
        QCOMPARE(finished.first().at(0).toString(), QStringLiteral("a1"));
        QVERIFY2(finished.first().at(1).toBool(), qPrintable(finished.first().at(2).toString()));
        QVERIFY(!progress.isEmpty());
        // The next relayed capture shows it.
        auto created = [&] {
            const SnapshotPtr s = buildSnapshot(source.lastCapture());
            const int i = s->placementGroupIndex(u"relay-test");
            return i >= 0 && s->placementGroups[i].state == QLatin1String("CREATED");
        };
        QTRY_VERIFY_WITH_TIMEOUT(created(), 10000);
        const SnapshotPtr snap = buildSnapshot(source.lastCapture());
        const PlacementGroup group = snap->placementGroups[snap->placementGroupIndex(u"relay-test")];
        QTRY_VERIFY_WITH_TIMEOUT(actions.createdBySliceScope(*snap, group), 5000);
        QVERIFY(!actions.describeRelease(*snap, group).isEmpty());

        finished.clear();
        actions.releasePlacementGroup(QStringLiteral("a2"), QStringLiteral("relay-test"), false);
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 30000);
        QVERIFY2(finished.first().at(1).toBool(), qPrintable(finished.first().at(2).toString()));
        auto gone = [&] {
            const SnapshotPtr s = buildSnapshot(source.lastCapture());
            const int i = s->placementGroupIndex(u"relay-test");
            return i < 0 || s->placementGroups[i].state == QLatin1String("REMOVED");
        };
        QTRY_VERIFY_WITH_TIMEOUT(gone(), 10000);
    }

    void actionsNeedConfirmation()
    {
        // What a page that skipped the confirmation would send: refused, nothing happens.
        RelaySource source(m_relay.url);
        QSignalSpy messages(&source, &RelaySource::messageReceived);
        source.start();
        QTRY_VERIFY_WITH_TIMEOUT(source.isConnected(), 10000);
        QVERIFY(source.send({{QStringLiteral("type"), QStringLiteral("release")}, {QStringLiteral("id"), QStringLiteral("x")}, {QStringLiteral("nameOrId"), QStringLiteral("anything")}}));
        auto refused = [&] {
            for (const QList<QVariant> &m : messages) {
                const QJsonObject o = m.first().toJsonObject();
                if (o.value(QLatin1String("type")) == QLatin1String("finished") && o.value(QLatin1String("id")) == QLatin1String("x"))
                    return !o.value(QLatin1String("ok")).toBool() && o.value(QLatin1String("message")).toString().contains(QLatin1String("confirmed"));
            }
            return false;
        };
        QTRY_VERIFY_WITH_TIMEOUT(refused(), 10000);
    }

    void wrongTokenRefused()
    {
        QUrl wrong = m_relay.url;
        wrong.setQuery(QStringLiteral("token=wrong-token-wrong-token-wrong-token-xyz1"));
        QCOMPARE(httpGet(wrong).status, 403);
        QUrl none = m_relay.url;
        none.setQuery(QString());
        QCOMPARE(httpGet(none).status, 403);
        QCOMPARE(httpGet(m_relay.url).status, 200);

        RelaySource source(wrong);
        QSignalSpy failed(&source, &Source::failed);
        QSignalSpy captures(&source, &Source::captureReceived);
        source.start();
        QVERIFY(failed.wait(10000));
        const QString message = failed.first().first().toString();
        QVERIFY2(message.contains(QLatin1String("refused the access token")) && message.contains(QLatin1String("1008")), qPrintable(message));
        QVERIFY(!message.contains(QString::fromLatin1(m_relay.token)));
        QTest::qWait(1500); // no retry after a refusal, and no capture ever
        QCOMPARE(failed.size(), 1);
        QCOMPARE(captures.size(), 0);
    }

    // Issue 13 (every count has a bound): the relay serves at most 32 browsers at once; the next
    // one is refused with the reason, and those connected keep their captures.
    void tooManyClientsRefused()
    {
        std::vector<std::unique_ptr<RelaySource>> connected;
        for (int i = 0; i < 32; ++i) {
            connected.push_back(std::make_unique<RelaySource>(m_relay.url));
            QSignalSpy captured(connected.back().get(), &Source::captureReceived);
            connected.back()->start();
            QVERIFY2(captured.wait(10000), qPrintable(QStringLiteral("client %1 got no capture").arg(i + 1)));
        }
        RelaySource extra(m_relay.url);
        QSignalSpy failed(&extra, &Source::failed);
        extra.start();
        QVERIFY(failed.wait(10000));
        const QString message = failed.first().first().toString();
        QVERIFY2(message.contains(QLatin1String("refused this client")) && message.contains(QLatin1String("32 clients are connected already")),
                 qPrintable(message));
        QVERIFY(connected.front()->isConnected());
        connected.clear(); // they leave; a newcomer is served again
        QTest::qWait(1000); // the relay sees them go
        RelaySource later(m_relay.url);
        QSignalSpy captured(&later, &Source::captureReceived);
        later.start();
        QTRY_VERIFY_WITH_TIMEOUT(!captured.isEmpty(), 10000);
    }

    void relayGoneIsNamed()
    {
        // A port nobody listens on: the relay is gone; RelaySource says so and retries.
        QTcpServer probe;
        QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
        const quint16 port = probe.serverPort();
        probe.close();
        RelaySource source(QUrl(QStringLiteral("http://127.0.0.1:%1/?token=abc").arg(port)));
        source.setBackoff(100, 200);
        QSignalSpy failed(&source, &Source::failed);
        source.start();
        QTRY_VERIFY_WITH_TIMEOUT(failed.size() >= 2, 10000); // it retried
        const QString message = failed.first().first().toString();
        QVERIFY2(message.contains(QLatin1String("is gone")) && message.contains(QLatin1String("retrying")), qPrintable(message));
        QVERIFY(!message.contains(QLatin1String("abc")));
    }

    void nonLoopbackRefused()
    {
        // Listening on 0.0.0.0 without --allow-remote is refused with a clear message.
        const CliRun refused = runCli({QStringLiteral("serve"), QStringLiteral("--demo"), QStringLiteral("--listen"), QStringLiteral("0.0.0.0:0")}, {}, {}, 20000);
        QCOMPARE(refused.exitCode, 2);
        QVERIFY(refused.err.contains("--allow-remote"));

        // Bound to 127.0.0.1, the machine's other addresses do not reach it at all.
        const QHostAddress external = externalIPv4();
        if (external.isNull())
            QSKIP("LOUD SKIP: this machine has no non-loopback IPv4 address to try the relay from");
        QTcpSocket socket;
        socket.connectToHost(external, m_relay.port);
        QVERIFY(!socket.waitForConnected(3000));
        QCOMPARE(socket.error(), QAbstractSocket::ConnectionRefusedError);
    }

    void tokenFileAndAllowRemote()
    {
        // What the Kubernetes Deployment runs: a token from a file, on every address, remote peers
        // allowed. The URL line names the file, never the token; the token works from another address.
        QTemporaryDir dir;
        const QByteArray token = "team-token-from-a-secret-0123456789";
        QFile file(dir.filePath(QStringLiteral("token")));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(token + '\n');
        file.close();
        QProcess p;
        p.setProcessEnvironment(cleanEnvironment());
        p.start(QStringLiteral(SLICESCOPE_BINARY), {QStringLiteral("serve"), QStringLiteral("--demo"), QStringLiteral("--listen"), QStringLiteral("0.0.0.0:0"),
                                                    QStringLiteral("--allow-remote"), QStringLiteral("--token-file"), file.fileName()});
        static const QRegularExpression line(QStringLiteral(R"(at http://127\.0\.0\.1:(\d+)/\?token=<the token in [^>]+>)"));
        QByteArray err;
        QRegularExpressionMatch m;
        QElapsedTimer clock;
        clock.start();
        while (!m.hasMatch() && clock.elapsed() < 20000 && p.state() != QProcess::NotRunning) {
            p.waitForReadyRead(200);
            err += p.readAllStandardError();
            m = line.match(QString::fromUtf8(err));
        }
        QVERIFY2(m.hasMatch(), err.constData());
        const quint16 port = quint16(m.captured(1).toUInt());
        QUrl url(QStringLiteral("http://127.0.0.1:%1/?token=%2").arg(port).arg(QString::fromLatin1(token)));
        QCOMPARE(httpGet(url).status, 200);
        url.setQuery(QStringLiteral("token=not-the-team-token-at-all"));
        QCOMPARE(httpGet(url).status, 403);
        const QHostAddress external = externalIPv4();
        if (!external.isNull()) { // reached from another address, under another Host name: the token decides
            QCOMPARE(httpGet(QUrl(QStringLiteral("http://%1:%2/?token=%3").arg(external.toString()).arg(port).arg(QString::fromLatin1(token)))).status, 200);
            QCOMPARE(httpGet(QUrl(QStringLiteral("http://%1:%2/").arg(external.toString()).arg(port))).status, 403);
        } else {
            qWarning("LOUD NOTE: no non-loopback IPv4 address here: --allow-remote tried from loopback only");
        }
        p.terminate();
        p.waitForFinished(5000);
        err += p.readAllStandardError();
        QVERIFY(!err.contains(token));
    }

    void staticFiles()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("web/assets")));
        QVERIFY(writeFile(dir.filePath(QStringLiteral("web/index.html")), "<!doctype html><title>t</title>"));
        QVERIFY(writeFile(dir.filePath(QStringLiteral("web/slicescope.js")), "console.log(1)"));
        QVERIFY(writeFile(dir.filePath(QStringLiteral("web/slicescope.wasm")), QByteArray("\0asm\1\0\0\0", 8)));
        QVERIFY(writeFile(dir.filePath(QStringLiteral("web/.hidden")), "hidden"));
        QVERIFY(writeFile(dir.filePath(QStringLiteral("secret.txt")), "TOP-SECRET"));
        Relay relay;
        QVERIFY(startRelay(relay, {QStringLiteral("--web-root"), dir.filePath(QStringLiteral("web"))}));
        auto at = [&](const QString &path) {
            QUrl u = relay.url;
            u.setPath(path);
            return u;
        };
        HttpAnswer index = httpGet(relay.url);
        QCOMPARE(index.status, 200);
        QVERIFY(index.contentType.startsWith("text/html"));
        QCOMPARE(index.body, QByteArray("<!doctype html><title>t</title>"));
        HttpAnswer js = httpGet(at(QStringLiteral("/slicescope.js")));
        QCOMPARE(js.status, 200);
        QVERIFY(js.contentType.startsWith("text/javascript"));
        HttpAnswer wasm = httpGet(at(QStringLiteral("/slicescope.wasm")));
        QCOMPARE(wasm.status, 200);
        QCOMPARE(wasm.contentType, QByteArray("application/wasm"));
        QCOMPARE(httpGet(at(QStringLiteral("/assets/"))).status, 404);   // no listing
        QCOMPARE(httpGet(at(QStringLiteral("/missing.js"))).status, 404);
        QCOMPARE(httpGet(at(QStringLiteral("/.hidden"))).status, 403);
        for (const QByteArray &target : {QByteArray("/../secret.txt"), QByteArray("/assets/../../secret.txt"), QByteArray("/%2e%2e/secret.txt"),
                                         QByteArray("/..%2fsecret.txt"), QByteArray("/%2E%2E%2Fsecret.txt")}) {
            const QByteArray answer = rawGet(relay.port, target, relay.token);
            QVERIFY2(!answer.startsWith("HTTP/1.1 200"), target.constData());
            QVERIFY2(!answer.contains("TOP-SECRET"), target.constData());
        }
        // The cookie the first load set is enough afterwards (what the .js and .wasm loads carry).
        const QByteArray viaCookie = rawGet(relay.port, "/slicescope.js", relay.token);
        QVERIFY(viaCookie.startsWith("HTTP/1.1 200"));
        QVERIFY(rawGet(relay.port, "/slicescope.js", "not-the-token").startsWith("HTTP/1.1 403"));
    }

    // Without --web-root, an installed bundle beside the binary is served (the slicescope-web
    // package: /usr/bin/slicescope -> /usr/share/slicescope/web), and said.
    void theInstalledBundleIsFoundBesideTheBinary()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("bin")) && QDir(dir.path()).mkpath(QStringLiteral("share/slicescope/web")));
        const QString binary = dir.filePath(QStringLiteral("bin/slicescope"));
        QVERIFY(QFile::copy(QStringLiteral(SLICESCOPE_BINARY), binary));
        QVERIFY(writeFile(dir.filePath(QStringLiteral("share/slicescope/web/index.html")), "<!doctype html><title>installed</title>"));
        Relay relay;
        relay.binary = binary;
        QVERIFY(startRelay(relay));
        const QByteArray answer = rawGet(relay.port, "/", relay.token);
        QVERIFY2(answer.startsWith("HTTP/1.1 200") && answer.endsWith("<title>installed</title>"), answer.constData());
        QVERIFY2(relay.readErr().contains("serving the installed web bundle in " + QDir(dir.filePath(QStringLiteral("share/slicescope/web"))).canonicalPath().toUtf8()),
                 relay.readErr().constData());
    }

    // The web package's precompressed copies (issue 18): NAME.br or NAME.gz sent as is, with
    // Content-Encoding and the file's own type, to a client that takes the coding; the file itself
    // to any other; Vary: Accept-Encoding whenever a copy exists.
    void precompressedFiles()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QVERIFY(writeFile(dir.filePath(QStringLiteral("index.html")), "<!doctype html><title>t</title>"));
        QVERIFY(writeFile(dir.filePath(QStringLiteral("slicescope.wasm")), "PLAIN-WASM"));
        QVERIFY(writeFile(dir.filePath(QStringLiteral("slicescope.wasm.br")), "BROTLI-WASM"));
        QVERIFY(writeFile(dir.filePath(QStringLiteral("slicescope.wasm.gz")), "GZIP-WASM"));
        QVERIFY(writeFile(dir.filePath(QStringLiteral("slicescope.js")), "PLAIN-JS"));
        QVERIFY(writeFile(dir.filePath(QStringLiteral("slicescope.js.gz")), "GZIP-JS"));
        Relay relay;
        QVERIFY(startRelay(relay, {QStringLiteral("--web-root"), dir.path()}));
        struct Case {
            QByteArray target, acceptEncoding, body, encoding;
        };
        const QList<Case> cases{
            {"/slicescope.wasm", "gzip, deflate, br", "BROTLI-WASM", "br"},
            {"/slicescope.wasm", "gzip", "GZIP-WASM", "gzip"},
            {"/slicescope.wasm", "br;q=0, gzip;q=0.5", "GZIP-WASM", "gzip"},
            {"/slicescope.wasm", "*", "BROTLI-WASM", "br"},
            {"/slicescope.wasm", "*, br;q=0", "GZIP-WASM", "gzip"},
            {"/slicescope.wasm", "identity", "PLAIN-WASM", {}},
            {"/slicescope.wasm", {}, "PLAIN-WASM", {}},
            {"/slicescope.js", "br", "PLAIN-JS", {}},
            {"/slicescope.js", "br, gzip", "GZIP-JS", "gzip"},
        };
        for (const Case &c : cases) {
            const QByteArray headers = c.acceptEncoding.isEmpty() ? QByteArray() : "Accept-Encoding: " + c.acceptEncoding + "\r\n";
            const QByteArray answer = rawGet(relay.port, c.target, relay.token, headers);
            const QByteArray what = c.target + " with Accept-Encoding: " + c.acceptEncoding;
            QVERIFY2(answer.startsWith("HTTP/1.1 200"), what.constData());
            QVERIFY2(answer.endsWith("\r\n\r\n" + c.body), what.constData());
            const QByteArray lower = answer.left(answer.indexOf("\r\n\r\n")).toLower();
            QVERIFY2(lower.contains("vary: accept-encoding"), what.constData());
            QVERIFY2(c.encoding.isEmpty() ? !lower.contains("content-encoding") : lower.contains("content-encoding: " + c.encoding), what.constData());
            QVERIFY2(lower.contains(c.target.endsWith(".wasm") ? "content-type: application/wasm" : "content-type: text/javascript"), what.constData());
        }
        // A file without a copy: no Vary, no coding.
        const QByteArray index = rawGet(relay.port, "/index.html", relay.token, "Accept-Encoding: gzip, br\r\n").toLower();
        QVERIFY(index.startsWith("http/1.1 200") && !index.contains("vary:") && !index.contains("content-encoding"));
    }

    void tokenOnlyInTheUrlLine()
    {
        QTest::qWait(300);
        const QList<QByteArray> lines = m_relay.readErr().split('\n');
        int withToken = 0;
        for (const QByteArray &l : lines)
            if (l.contains(m_relay.token)) {
                ++withToken;
                QVERIFY(l.contains("serving demo cluster at http://127.0.0.1:"));
            }
        QCOMPARE(withToken, 1);
        QVERIFY(lines.size() > 3); // it did log the clients, refusals and actions above
    }

    void snapshotLatency()
    {
        // In process: a capture emitted by the source -> the same capture at a RelaySource (the
        // relay serialises, frames and sends it; the client parses it). The demo's capture and
        // one with 20 times its Ray nodes; median, min and max over 40 captures each.
        ManualSource source;
        RelayServerOptions options;
        options.port = 0;
        options.token = RelayServer::newToken();
        RelayServer server(&source, nullptr, QStringLiteral("test"), options);
        server.setLogger({});
        QCOMPARE(server.start(), QString());
        RelaySource client(server.openUrl());
        QSignalSpy captures(&client, &Source::captureReceived);
        client.start();
        QTRY_VERIFY_WITH_TIMEOUT(client.isConnected(), 10000);
        DemoCluster demo(42);
        Capture big = demo.capture();
        // A larger cluster's nodes list: the same nodes body, 20 times over.
        {
            const QJsonObject nodes = QJsonDocument::fromJson(big.rayNodes).object();
            QJsonArray all;
            const QJsonArray one = nodes.value(QLatin1String("data")).toObject().value(QLatin1String("result")).toObject().value(QLatin1String("result")).toArray();
            for (int i = 0; i < 20; ++i)
                for (const QJsonValue &v : one)
                    all.append(v);
            QJsonObject result = nodes.value(QLatin1String("data")).toObject().value(QLatin1String("result")).toObject();
            result.insert(QStringLiteral("result"), all);
            QJsonObject data = nodes.value(QLatin1String("data")).toObject();
            data.insert(QStringLiteral("result"), result);
            QJsonObject top = nodes;
            top.insert(QStringLiteral("data"), data);
            big.rayNodes = QJsonDocument(top).toJson(QJsonDocument::Compact);
        }
        for (const Capture &shape : {demo.capture(), big}) {
            QList<double> ms;
            for (int i = 0; i < 40; ++i) {
                Capture c = shape;
                c.capturedAt = QDateTime::currentDateTimeUtc().addMSecs(i);
                captures.clear();
                QElapsedTimer clock;
                qint64 receivedNs = -1;
                const auto stamp = connect(&client, &Source::captureReceived, this, [&] { receivedNs = clock.nsecsElapsed(); });
                clock.start();
                source.emitCapture(c);
                QTRY_VERIFY_WITH_TIMEOUT(receivedNs >= 0, 5000);
                disconnect(stamp);
                ms << double(receivedNs) / 1e6;
                QCOMPARE(captures.first().first().value<Capture>().rayNodes, c.rayNodes);
            }
            std::sort(ms.begin(), ms.end());
            qInfo("relay snapshot latency, capture of %lld bytes: median %.2f ms, min %.2f ms, max %.2f ms (40 captures, loopback, in process)",
                  static_cast<long long>(shape.byteSize()), ms[ms.size() / 2], ms.first(), ms.last());
        }
    }

private:
    Relay m_relay;
};

QTEST_GUILESS_MAIN(TestRelay)
#include "tst_relay.moc"
