// SPDX-License-Identifier: GPL-3.0-or-later
#include "relayserver.h"

#include "logging.h"

#include "boundedfile.h"

#include "clusteractions.h"
#include "relayprotocol.h"
#include "scaleplan.h"
#include "source.h"

#include "relayhttp.h"
#include "relaywebsocket.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QTextStream>
#include <QTimer>
#include <QUrlQuery>

namespace slicescope {

namespace {

constexpr int kRecentSnapshots = 32;      // scale plans are re-derived from one of these
constexpr int kDescribedGroupsMax = 500;  // release texts sent up front for at most this many groups
constexpr qint64 kDescribeBudgetMs = 50;  // and for at most this long per change of groups or jobs
constexpr qint64 kMaxStaticFileBytes = qint64(256) << 20;
// Browsers connected at once. Each holds a capture in its send buffer; a page stuck reconnecting
// in a loop (or many tabs) must not hold the relay's memory hostage.
constexpr qsizetype kMaxClients = 32;
// WebSockets refused after their handshake (a wrong token, a full relay) still closing. Past this, a
// handshake without the token is refused before it (403), so a flood of them holds no sockets.
constexpr int kMaxRefusedClosing = 32;

QByteArray mimeType(const QString &path)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    static const QHash<QString, QByteArray> types = {
        {QStringLiteral("html"), "text/html; charset=utf-8"},
        {QStringLiteral("htm"), "text/html; charset=utf-8"},
        {QStringLiteral("js"), "text/javascript; charset=utf-8"},
        {QStringLiteral("mjs"), "text/javascript; charset=utf-8"},
        {QStringLiteral("wasm"), "application/wasm"},
        {QStringLiteral("css"), "text/css; charset=utf-8"},
        {QStringLiteral("json"), "application/json"},
        {QStringLiteral("svg"), "image/svg+xml"},
        {QStringLiteral("png"), "image/png"},
        {QStringLiteral("ico"), "image/x-icon"},
        {QStringLiteral("txt"), "text/plain; charset=utf-8"},
        {QStringLiteral("map"), "application/json"},
    };
    return types.value(suffix, "application/octet-stream");
}

QString hostForUrl(const QHostAddress &address)
{
    if (address == QHostAddress::Any || address == QHostAddress::AnyIPv4)
        return QStringLiteral("127.0.0.1");
    if (address == QHostAddress::AnyIPv6)
        return QStringLiteral("[::1]");
    if (address.protocol() == QAbstractSocket::IPv6Protocol)
        return u'[' + address.toString() + u']';
    return address.toString();
}

} // namespace

RelayServer::RelayServer(Source *source, ClusterActions *actions, QString actionsUnavailable, RelayServerOptions options, QObject *parent)
    : QObject(parent)
    , m_source(source)
    , m_actions(actions)
    , m_actionsUnavailable(std::move(actionsUnavailable))
    , m_options(std::move(options))
{
    m_log = [](const QString &line) {
        QTextStream(stderr) << "slicescope: relay: " << line << Qt::endl;
    };
    connect(m_source, &Source::captureReceived, this, &RelayServer::onCapture);
    connect(m_source, &Source::failed, this, &RelayServer::onSourceFailed);
    if (m_actions) {
        connect(m_actions, &ClusterActions::actionProgress, this, [this](const QString &id, const QString &text) {
            reply(id, {{QStringLiteral("type"), relay::type::Progress}, {QStringLiteral("text"), text}});
        });
        connect(m_actions, &ClusterActions::actionJobSubmitted, this, [this](const QString &id, const QString &submissionId) {
            reply(id, {{QStringLiteral("type"), relay::type::JobSubmitted}, {QStringLiteral("submissionId"), submissionId}});
        });
        connect(m_actions, &ClusterActions::actionFinished, this, [this](const QString &id, bool ok, const QString &message) {
            log(tr("action %1 finished (%2): %3").arg(id, ok ? QStringLiteral("ok") : QStringLiteral("failed"), message));
            reply(id, {{QStringLiteral("type"), relay::type::Finished}, {QStringLiteral("ok"), ok}, {QStringLiteral("message"), message}});
            m_actionsInFlight.remove(id);
        });
        connect(m_actions, &ClusterActions::actionConflict, this, [this](const QString &id, const QStringList &changes, const QString &message) {
            log(tr("action %1 conflicted: %2").arg(id, message));
            reply(id, {{QStringLiteral("type"), relay::type::Conflict}, {QStringLiteral("changes"), QJsonArray::fromStringList(changes)}, {QStringLiteral("message"), message}});
            m_actionsInFlight.remove(id);
        });
        connect(m_actions, &ClusterActions::availabilityChanged, this, [this] { sendActionsState(); });
    }
}

RelayServer::~RelayServer()
{
    for (Client &c : m_clients) {
        c.socket->disconnect(this);
        c.socket->close(ws::kCloseGoingAway, tr("the relay stops"));
    }
}

QByteArray RelayServer::newToken()
{
    quint32 words[8];
    QRandomGenerator::system()->fillRange(words);
    return QByteArray(reinterpret_cast<const char *>(words), sizeof(words)).toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
}

bool RelayServer::isLoopbackAddress(const QHostAddress &address)
{
    if (address.isLoopback())
        return true;
    bool mapped = false;
    const quint32 v4 = address.toIPv4Address(&mapped); // ::ffff:127.0.0.1
    return mapped && QHostAddress(v4).isLoopback();
}

QString RelayServer::start()
{
    if (m_options.token.size() < 16)
        return tr("the access token is too short (at least 16 characters)");
    if (!m_options.allowRemote && !isLoopbackAddress(m_options.address))
        return tr("refusing to listen on %1, which is not a loopback address: other machines could reach the relay; "
                  "pass --allow-remote to mean it")
            .arg(m_options.address.toString());
    if (!m_options.webRoot.isEmpty() && !QFileInfo(m_options.webRoot).isDir())
        return tr("--web-root %1 is not a directory").arg(m_options.webRoot);
    // Up to http::kMaxConnections HTTP connections and kMaxClients WebSockets need more descriptors
    // than the usual soft limit of 1,024; the hard limit is the real bound.
    if (const QString why = raiseOpenFileLimit(); !why.isEmpty())
        log(why);
    m_http = new RelayHttpFront([this](const http::RequestHead &head, const QHostAddress &peer) { return route(head, peer); },
                                relay::kMaxClientMessageBytes, this);
    if (const QString why = m_http->listen(m_options.address, m_options.port); !why.isEmpty())
        return why;
    connect(m_http, &RelayHttpFront::webSocket, this, &RelayServer::admit);
    connect(m_http, &RelayHttpFront::logLine, this, &RelayServer::log);
    QTimer::singleShot(0, m_source, &Source::start);
    return {};
}

quint16 RelayServer::port() const
{
    return m_http ? m_http->port() : 0;
}

QUrl RelayServer::openUrl() const
{
    QUrl url(QStringLiteral("http://%1:%2/").arg(hostForUrl(m_options.address)).arg(port()));
    url.setQuery(QStringLiteral("%1=%2").arg(relay::kTokenQuery, QString::fromLatin1(m_options.token)));
    return url;
}

void RelayServer::log(const QString &line) const
{
    qCDebug(lcRelay).noquote() << line;
    if (m_log)
        m_log(line);
}

// ---- access checks ---------------------------------------------------------------------------

QString RelayServer::checkPeer(const QHostAddress &peer) const
{
    if (m_options.allowRemote || isLoopbackAddress(peer))
        return {};
    return tr("not a loopback client (start the relay with --allow-remote to accept others)");
}

QString RelayServer::checkHost(const QByteArray &host) const
{
    if (m_options.allowRemote)
        return {}; // reached through a Service, an ingress or a port-forward under any name: the token guards it
    const QString port = QString::number(this->port());
    const QString given = QString::fromLatin1(host).toLower();
    for (const QString &name : {QStringLiteral("127.0.0.1"), QStringLiteral("localhost"), QStringLiteral("[::1]"), hostForUrl(m_options.address)})
        if (given == name + u':' + port)
            return {};
    // A page from another name (DNS rebinding) resolving to us carries its own name here.
    return tr("Host \"%1\" is not this relay's address").arg(given.left(100));
}

QString RelayServer::checkOrigin(const QByteArray &origin, const QByteArray &host, const QByteArray &forwardedProto) const
{
    if (origin.isEmpty())
        return {}; // not a browser (RelaySource on the desktop, curl): the token is what counts
    // The relay speaks plain HTTP, so its pages' origin is http://HOST. Behind a proxy that ends TLS
    // (an ingress, with --allow-remote) the page is https://HOST and the proxy says so; a browser page
    // cannot set that header on a WebSocket or a simple request, so it names the proxy's scheme.
    const bool tlsProxy = m_options.allowRemote && forwardedProto.trimmed().compare("https", Qt::CaseInsensitive) == 0;
    const QString scheme = tlsProxy ? QStringLiteral("https") : QStringLiteral("http");
    const QUrl url(QString::fromLatin1(origin));
    if (url.isValid() && url.scheme() == scheme && url.path().isEmpty() && url.authority().compare(QString::fromLatin1(host), Qt::CaseInsensitive) == 0)
        return {};
    return tr("Origin \"%1\" is not this relay's page").arg(QString::fromLatin1(origin).left(100));
}

bool RelayServer::tokenMatches(const QByteArray &candidate) const
{
    const QByteArray &token = m_options.token;
    // Constant time in the content: every byte is looked at whatever matches.
    unsigned diff = unsigned(candidate.size() ^ token.size());
    for (qsizetype i = 0; i < token.size(); ++i)
        diff |= unsigned(uchar(token[i]) ^ uchar(i < candidate.size() ? candidate[i] : 0));
    return diff == 0;
}

RelayServer::TokenIn RelayServer::validToken(const QUrl &url, const QByteArray &cookieHeader) const
{
    const QByteArray queryToken = QUrlQuery(url).queryItemValue(relay::kTokenQuery, QUrl::FullyDecoded).toLatin1();
    if (!queryToken.isEmpty() && tokenMatches(queryToken))
        return TokenIn::Query;
    const QByteArray cookieToken = cookieValue(cookieHeader, QByteArray(relay::kTokenCookie.latin1()));
    if (!cookieToken.isEmpty() && tokenMatches(cookieToken))
        return TokenIn::Cookie;
    return TokenIn::None;
}

QByteArray RelayServer::cookieValue(const QByteArray &cookieHeader, const QByteArray &name)
{
    for (const QByteArray &part : cookieHeader.split(';')) {
        const QByteArray item = part.trimmed();
        if (item.startsWith(name + '='))
            return item.mid(name.size() + 1);
    }
    return {};
}

// ---- HTTP ------------------------------------------------------------------------------------

namespace {

QByteArray textBody(const QString &text)
{
    return text.toUtf8() + '\n';
}

// An answer with the headers every answer carries and `extra`; for HEAD, without its body.
RelayHttpFront::Reply answerWith(int status, const QByteArray &type, const QByteArray &body, bool head, const QList<QPair<QByteArray, QByteArray>> &extra = {})
{
    RelayHttpFront::Reply r = RelayHttpFront::textReply(status, type, body);
    r.headers += extra;
    r.headOnly = head;
    return r;
}

// Whether an Accept-Encoding header takes `coding` ("br", "gzip"): named, or "*", with a q above 0.
bool acceptsEncoding(const QByteArray &header, const QByteArray &coding)
{
    bool byStar = false, named = false, namedOk = false;
    for (const QByteArray &item : header.split(',')) {
        const QList<QByteArray> parts = item.split(';');
        const QByteArray token = parts.first().trimmed().toLower();
        bool positive = true;
        for (qsizetype i = 1; i < parts.size(); ++i) {
            const QByteArray param = parts[i].trimmed();
            if (param.startsWith("q=")) {
                bool ok = false;
                const double q = param.mid(2).toDouble(&ok);
                positive = ok && q > 0;
            }
        }
        if (token == coding) {
            named = true;
            namedOk = positive;
        } else if (token == "*") {
            byStar = positive;
        }
    }
    return named ? namedOk : byStar;
}

} // namespace

RelayHttpFront::Reply RelayServer::route(const http::RequestHead &request, const QHostAddress &peer)
{
    const bool head = request.method == "HEAD";
    // The target in origin form ("/path?query"); the absolute form is for proxies, which the relay is not.
    const QUrl url = request.target.startsWith('/') ? QUrl::fromEncoded(request.target) : QUrl();
    const QString path = url.path(QUrl::FullyDecoded);
    auto refuse = [&](int status, const QString &why) {
        log(tr("refused %1 %2 from %3: %4")
                .arg(QString::fromLatin1(request.method.left(16)), sanitizeForMessage(path, 200), peer.toString(), why));
        RelayHttpFront::Reply r = answerWith(status, "text/plain; charset=utf-8", textBody(QStringLiteral("slicescope relay: ") + why), head);
        r.close = status != 404; // a refused peer gets no second request on this connection
        return r;
    };
    if (!url.isValid() || url.isEmpty())
        return refuse(400, tr("the request target is not a path"));
    const bool upgrade = request.lists("upgrade", "websocket");
    const QByteArray host = request.value("host");
    QString why = checkPeer(peer);
    if (why.isEmpty())
        why = checkHost(host);
    if (why.isEmpty())
        why = checkOrigin(request.value("origin"), host, request.value("x-forwarded-proto"));
    if (!why.isEmpty())
        return refuse(403, why); // an upgrade too: no handshake
    const TokenIn token = validToken(url, request.value("cookie"));
    if (upgrade && token == TokenIn::None && m_refusedClosing >= kMaxRefusedClosing)
        return refuse(403, tr("wrong token (%1 refused WebSockets are still closing)").arg(m_refusedClosing));
    if (upgrade)
        return upgradeReply(request, token != TokenIn::None);

    const bool byQuery = token == TokenIn::Query;
    if (token == TokenIn::None)
        return refuse(403, tr("a valid access token is required: open the URL `slicescope serve` printed"));
    auto authenticated = [](RelayHttpFront::Reply r) {
        r.authenticated = true;
        return r;
    };
    if (request.method != "GET" && !head)
        return authenticated(refuse(405, tr("only GET and HEAD")));
    Headers extra;
    if (byQuery) // later requests (the .js, the .wasm, the WebSocket) carry it as a cookie
        extra.append({"Set-Cookie", QByteArray(relay::kTokenCookie.latin1()) + '=' + m_options.token + "; Path=/; HttpOnly; SameSite=Strict"});
    if (path == relay::kPath)
        return authenticated(answerWith(426, "text/plain; charset=utf-8", textBody(tr("the relay speaks WebSocket here")), head, extra));
    return authenticated(staticFile(url, request, head, extra));
}

RelayHttpFront::Reply RelayServer::upgradeReply(const http::RequestHead &request, bool authenticated)
{
    auto refuse = [&](int status, const QString &why, const Headers &extra = {}) {
        log(tr("refused a WebSocket handshake: %1").arg(why));
        RelayHttpFront::Reply r = answerWith(status, "text/plain; charset=utf-8", textBody(QStringLiteral("slicescope relay: ") + why), false, extra);
        r.close = true;
        r.authenticated = authenticated;
        return r;
    };
    if (request.method != "GET" || request.version != "HTTP/1.1" || !request.lists("connection", "upgrade"))
        return refuse(400, tr("a WebSocket handshake is a GET over HTTP/1.1 with Connection: Upgrade"));
    if (request.value("sec-websocket-version") != "13")
        return refuse(426, tr("only WebSocket version 13"), {{"Sec-WebSocket-Version", "13"}});
    const QByteArray key = request.value("sec-websocket-key");
    if (!ws::validClientKey(key))
        return refuse(400, tr("the Sec-WebSocket-Key is not 16 bytes in base64"));
    // The token and the path are checked once the socket is open (admit()): a close frame with the
    // reason reaches a page, a failed handshake reaches JavaScript only as "error".
    RelayHttpFront::Reply r;
    r.status = 101;
    r.upgrade = true;
    r.authenticated = authenticated;
    r.headers = {{"Upgrade", "websocket"}, {"Connection", "Upgrade"}, {"Sec-WebSocket-Accept", ws::acceptKey(key)}};
    return r;
}

RelayHttpFront::Reply RelayServer::staticFile(const QUrl &url, const http::RequestHead &request, bool head, Headers extra)
{
    const QString path = url.path(QUrl::FullyDecoded);
    auto answer = [&](int status, const QByteArray &type, const QByteArray &body) {
        return answerWith(status, type, body, head, extra);
    };
    auto notFound = [&](int status = 404) {
        return answer(status, "text/plain; charset=utf-8", textBody(status == 403 ? tr("no such path") : tr("not found")));
    };
    // The static bundle. No listing, no dot segments or dotfiles, nothing outside the web root.
    const QString raw = url.path(QUrl::FullyEncoded);
    const QStringList segments = path.split(u'/', Qt::SkipEmptyParts);
    for (const QString &s : segments)
        if (s.startsWith(u'.') || s.contains(u'\\') || s.contains(QChar(0)))
            return notFound(403);
    if (raw.contains(QLatin1String("/..")) || raw.contains(QLatin1String("%2e"), Qt::CaseInsensitive))
        return notFound(403);
    if (m_options.webRoot.isEmpty()) {
        if (path == QLatin1String("/") || path == QLatin1String("/index.html"))
            return answer(200, "text/html; charset=utf-8",
                          QByteArrayLiteral("<!doctype html><meta charset=utf-8><title>SliceScope relay</title>"
                                            "<p>This SliceScope relay serves no web bundle: start it with <code>--web-root DIR</code> "
                                            "(the output of <code>installer/web/build.sh</code>). The relay itself is at <code>/relay</code>.</p>\n"));
        return notFound();
    }
    const QString root = QFileInfo(m_options.webRoot).canonicalFilePath();
    const QString wanted = segments.isEmpty() ? QStringLiteral("index.html") : segments.join(u'/');
    const QFileInfo file(root + u'/' + wanted);
    const QString real = file.canonicalFilePath();
    if (real.isEmpty() || !real.startsWith(root + u'/') || !file.isFile())
        return notFound();
    // A precompressed copy beside the file (NAME.br, NAME.gz: the web package has both, issue 18) is
    // sent as it is, with Content-Encoding, to a client that takes that coding; the file itself to
    // any other. Brotli first: the smaller of the two for the .wasm.
    QString send = real;
    bool compressedBeside = false;
    for (const auto &[suffix, coding] : {std::pair{".br", QByteArray("br")}, std::pair{".gz", QByteArray("gzip")}}) {
        const QFileInfo copy(real + QLatin1String(suffix));
        const QString copyReal = copy.canonicalFilePath();
        if (copyReal.isEmpty() || !copyReal.startsWith(root + u'/') || !copy.isFile()) continue;
        compressedBeside = true;
        if (send == real && acceptsEncoding(request.value("accept-encoding"), coding)) {
            send = copyReal;
            extra.append({QByteArray("Content-Encoding"), coding});
        }
    }
    if (compressedBeside) extra.append({QByteArray("Vary"), QByteArray("Accept-Encoding")});
    // isFile() above already passes over FIFOs and devices; the helper checks the descriptor too. The
    // file is sent in pieces (RelayHttpFront), never read whole.
    std::unique_ptr<QFile> opened;
    if (!openBoundedFile(send, kMaxStaticFileBytes, QString(), opened).isEmpty() || !opened)
        return answer(500, "text/plain; charset=utf-8", textBody(tr("cannot read this file")));
    RelayHttpFront::Reply r = answer(200, mimeType(real), {});
    r.fileBytes = opened->size();
    r.file = std::move(opened);
    return r;
}

// ---- WebSocket -------------------------------------------------------------------------------

void RelayServer::admit(RelayWebSocket *socket)
{
    socket->setParent(this);
    const http::RequestHead &request = socket->request();
    const QUrl url = QUrl::fromEncoded(request.target);
    QString why, reason;
    // Peer, Host and Origin were checked before the handshake (route()); the token and the path here,
    // so the page can read why in the close frame.
    if (validToken(url, request.value("cookie")) == TokenIn::None)
        why = reason = QStringLiteral("wrong token");
    else if (url.path() != relay::kPath)
        why = reason = QStringLiteral("unknown path");
    else if (m_clients.size() >= kMaxClients)
        why = reason = QStringLiteral("%1 clients are connected already; close one").arg(kMaxClients);
    if (!reason.isEmpty()) {
        log(tr("refused a WebSocket from %1: %2").arg(socket->peerAddress().toString(), why));
        connect(socket, &RelayWebSocket::disconnected, socket, &QObject::deleteLater);
        ++m_refusedClosing;
        connect(socket, &QObject::destroyed, this, [this] { --m_refusedClosing; });
        socket->close(relay::kClosePolicy, reason);
        QTimer::singleShot(http::kCloseGraceMs + 1000, socket, &QObject::deleteLater); // a peer that never answers the close
        return;
    }
    Client c;
    c.socket = socket;
    c.id = m_nextClientId++;
    m_clients.append(c);
    log(tr("client %1 connected from %2 (%3 connected)").arg(c.id).arg(socket->peerAddress().toString()).arg(m_clients.size()));
    connect(socket, &RelayWebSocket::textMessageReceived, this, [this, socket](const QString &text) { onClientMessage(socket, text); });
    connect(socket, &RelayWebSocket::binaryMessageReceived, this, [this, socket] {
        send(socket, {{QStringLiteral("type"), relay::type::Error}, {QStringLiteral("message"), tr("the relay takes text messages only")}});
    });
    connect(socket, &RelayWebSocket::bytesWritten, this, [this, socket] {
        if (Client *c = client(socket); c && c->capturePending && socket->bytesToWrite() == 0)
            sendCaptureTo(*c);
    });
    connect(socket, &RelayWebSocket::disconnected, this, [this, socket] {
        for (qsizetype i = 0; i < m_clients.size(); ++i)
            if (m_clients[i].socket == socket) {
                log(tr("client %1 left (%2 connected)").arg(m_clients[i].id).arg(m_clients.size() - 1));
                m_clients.removeAt(i);
                break;
            }
        for (Action &a : m_actionsInFlight)
            if (a.socket == socket)
                a.socket = nullptr; // the action goes on; its replies have nowhere to go
        socket->deleteLater();
    });
    send(socket, {{QStringLiteral("type"), relay::type::Hello}, {QStringLiteral("protocol"), relay::kProtocol}, {QStringLiteral("source"), m_source->description()}, {QStringLiteral("version"), QStringLiteral(SLICESCOPE_VERSION)}});
    sendActionsState(socket);
    if (!m_captureMessage.isEmpty())
        sendCaptureTo(m_clients.last());
    if (!m_sourceFailure.isEmpty())
        send(socket, {{QStringLiteral("type"), relay::type::SourceFailed}, {QStringLiteral("message"), m_sourceFailure}});
}

RelayServer::Client *RelayServer::client(RelayWebSocket *socket)
{
    for (Client &c : m_clients)
        if (c.socket == socket)
            return &c;
    return nullptr;
}

void RelayServer::send(RelayWebSocket *socket, const QJsonObject &message)
{
    if (socket)
        socket->sendTextMessage(QString::fromUtf8(QJsonDocument(message).toJson(QJsonDocument::Compact)));
}

void RelayServer::sendCaptureTo(Client &c)
{
    // A client still receiving the previous capture gets only the newest one once it is done:
    // a slow browser skips captures instead of queueing them without bound.
    if (c.socket->bytesToWrite() > 0) {
        if (!c.capturePending)
            qCDebug(lcRelay).noquote() << QStringLiteral("client %1 is still receiving a capture (%2 bytes to write); it gets only the newest one when done").arg(c.id).arg(c.socket->bytesToWrite());
        c.capturePending = true;
        return;
    }
    c.capturePending = false;
    c.socket->sendTextMessage(QString::fromUtf8(m_captureMessage));
}

void RelayServer::onCapture(const Capture &capture)
{
    m_sourceFailure.clear();
    m_captureMessage = relay::captureMessage(++m_seq, capture);
    m_lastCapture = capture;
    m_recent.push_front(buildSnapshot(capture));
    while (m_recent.size() > kRecentSnapshots)
        m_recent.pop_back();
    for (Client &c : m_clients)
        sendCaptureTo(c);
    sendActionsState();
}

void RelayServer::onSourceFailed(const QString &message)
{
    m_sourceFailure = message;
    log(tr("source failed: %1").arg(message));
    for (Client &c : m_clients)
        send(c.socket, {{QStringLiteral("type"), relay::type::SourceFailed}, {QStringLiteral("message"), message}});
}

QJsonObject RelayServer::actionsState()
{
    QJsonObject state{{QStringLiteral("type"), relay::type::Actions}};
    if (!m_actions) {
        state.insert(QStringLiteral("unavailableReason"), m_actionsUnavailable);
        return state;
    }
    state.insert(QStringLiteral("unavailableReason"), m_actions->unavailableReason());
    if (m_recent.empty())
        return state;
    const ClusterSnapshot &snap = *m_recent.front();
    QJsonObject scale;
    for (const WorkerGroup &g : snap.workerGroups)
        scale.insert(g.qualifiedName(), m_actions->scaleUnavailableReason(g));
    state.insert(QStringLiteral("scale"), scale);
    // The release texts read the capture's groups and jobs (a parse each): redone only when those
    // bodies change, within a time budget; a group left out gets the client's generic text.
    const size_t key = qHash(m_lastCapture.rayPlacementGroups) ^ (qHash(m_lastCapture.rayJobs) << 1);
    if (key != m_releasesKey) {
        m_releasesKey = key;
        m_releases = {};
        QElapsedTimer budget;
        budget.start();
        for (const PlacementGroup &g : snap.placementGroups) {
            if (m_releases.size() >= kDescribedGroupsMax || budget.elapsed() > kDescribeBudgetMs)
                break;
            m_releases.insert(g.id, QJsonObject{{QStringLiteral("describe"), m_actions->describeRelease(snap, g)},
                                                {QStringLiteral("createdBySliceScope"), m_actions->createdBySliceScope(snap, g)}});
        }
    }
    state.insert(QStringLiteral("releases"), m_releases);
    return state;
}

void RelayServer::sendActionsState(RelayWebSocket *only)
{
    if (m_clients.isEmpty())
        return;
    const QJsonObject state = actionsState();
    if (only)
        return send(only, state);
    if (state == m_lastState)
        return; // every client has this one already
    m_lastState = state;
    for (Client &c : m_clients)
        send(c.socket, state);
}

void RelayServer::reply(const QString &actionId, const QJsonObject &message)
{
    const auto it = m_actionsInFlight.constFind(actionId);
    if (it == m_actionsInFlight.cend() || !it->socket)
        return;
    QJsonObject out = message;
    out.insert(QStringLiteral("id"), it->clientId);
    send(it->socket, out);
}

void RelayServer::refuseAction(RelayWebSocket *socket, const QString &clientId, const QString &why)
{
    log(tr("refused an action: %1").arg(why));
    send(socket, {{QStringLiteral("type"), relay::type::Finished}, {QStringLiteral("id"), clientId}, {QStringLiteral("ok"), false}, {QStringLiteral("message"), why}});
}

void RelayServer::onClientMessage(RelayWebSocket *socket, const QString &text)
{
    const relay::Message m = relay::parseMessage(text.toUtf8());
    if (!m.error.isEmpty() || m.type == relay::type::Capture) {
        send(socket, {{QStringLiteral("type"), relay::type::Error}, {QStringLiteral("message"), m.error.isEmpty() ? tr("clients send actions, not captures") : m.error}});
        return;
    }
    const QJsonValue idValue = m.object.value(QLatin1String("id"));
    const QString clientId = idValue.toString();
    if (m.type != relay::type::Submit && m.type != relay::type::Release && m.type != relay::type::Scale) {
        send(socket, {{QStringLiteral("type"), relay::type::Error}, {QStringLiteral("id"), clientId}, {QStringLiteral("message"), tr("unknown message type \"%1\"").arg(m.type.left(40))}});
        return;
    }
    if (!idValue.isString() || clientId.isEmpty() || clientId.size() > 128) {
        send(socket, {{QStringLiteral("type"), relay::type::Error}, {QStringLiteral("message"), tr("an action needs an \"id\" (a string of 1 to 128 characters)")}});
        return;
    }
    // The page sets this only after the operator confirmed in the same dialog as the desktop's.
    if (m.object.value(QLatin1String("confirmed")) != QJsonValue(true))
        return refuseAction(socket, clientId, tr("the action was not confirmed (\"confirmed\": true is set only after the operator confirms)"));
    if (!m_actions)
        return refuseAction(socket, clientId, m_actionsUnavailable);
    // Placement groups need what unavailableReason() speaks of (Ray); scaling has its own answer,
    // which scaleWorkerGroup() checks itself.
    if (const QString why = m_actions->unavailableReason(); !why.isEmpty() && m.type != relay::type::Scale)
        return refuseAction(socket, clientId, why);
    for (const Action &a : std::as_const(m_actionsInFlight))
        if (a.socket == socket && a.clientId == clientId)
            return refuseAction(socket, clientId, tr("an action with id \"%1\" is already running").arg(clientId));

    const QString internalId = QStringLiteral("relay-%1-%2").arg(client(socket) ? client(socket)->id : 0).arg(m_nextAction++);
    if (m.type == relay::type::Submit) {
        SlicePlacementRequest request;
        if (const QString why = relay::fromJson(m.object.value(QLatin1String("request")).toObject(), request); !why.isEmpty())
            return refuseAction(socket, clientId, why);
        m_actionsInFlight.insert(internalId, Action{socket, clientId});
        log(tr("action %1: submit slice placement group %2 (%3 %4 x%5)").arg(internalId, request.name, request.accelerator, request.topology).arg(request.numSlices));
        m_actions->submitSlicePlacementGroup(internalId, request);
    } else if (m.type == relay::type::Release) {
        const QString nameOrId = m.object.value(QLatin1String("nameOrId")).toString();
        if (nameOrId.isEmpty())
            return refuseAction(socket, clientId, tr("release needs \"nameOrId\""));
        m_actionsInFlight.insert(internalId, Action{socket, clientId});
        const bool force = m.object.value(QLatin1String("force")).toBool();
        log(tr("action %1: release placement group %2%3").arg(internalId, nameOrId, force ? QStringLiteral(" (forced)") : QString()));
        m_actions->releasePlacementGroup(internalId, nameOrId, force);
    } else {
        startScale(socket, internalId, m.object);
    }
}

void RelayServer::startScale(RelayWebSocket *socket, const QString &internalId, const QJsonObject &message)
{
    const QString clientId = message.value(QLatin1String("id")).toString();
    // "ns/cluster/group", and (an added member) the context it is in: in a fleet the same name can
    // be in several contexts, and a bare name that is names none (ClusterSnapshot::workerGroupIndex).
    const QString context = message.value(QLatin1String("context")).toString();
    const QString groupName = (context.isEmpty() ? QString() : context + u':') + message.value(QLatin1String("workerGroup")).toString();
    const QByteArray patch = message.value(QLatin1String("patch")).toString().toUtf8();
    QList<ScaleRequest> candidates;
    ScaleRequest r;
    r.workerGroup = groupName;
    r.mode = ScaleRequest::Mode::Replicas;
    r.replicas = message.value(QLatin1String("toReplicas")).toInt(-1);
    candidates << r;
    r.mode = ScaleRequest::Mode::Bounds;
    r.minReplicas = message.value(QLatin1String("toMin")).toInt(-1);
    r.maxReplicas = message.value(QLatin1String("toMax")).toInt(-1);
    candidates << r;
    r.mode = ScaleRequest::Mode::RemoveSlice;
    for (const QJsonValue &s : message.value(QLatin1String("slicesRemoved")).toArray()) {
        r.slice = s.toString();
        candidates << r;
    }
    // Only a change SliceScope's own rules derive from a view this relay served is carried out,
    // and only when its patch is byte for byte the one the operator reviewed. Its test ops then
    // make a stale view conflict at the API server instead of writing.
    bool groupSeen = false;
    for (const SnapshotPtr &snap : m_recent) {
        if (snap->workerGroupIndex(groupName) < 0)
            continue;
        groupSeen = true;
        for (const ScaleRequest &candidate : std::as_const(candidates)) {
            const ScalePlan plan = planScale(*snap, candidate);
            if (plan.allowed && !plan.noChange && plan.jsonPatch() == patch) {
                // The view it came from may be older than the newest: a slice it removes must
                // still be the one reviewed there, else nothing is sent (never another slice).
                if (const QStringList changes = removalTargetChanges(plan, *m_recent.front()); !changes.isEmpty()) {
                    log(tr("action %1: scale %2 refused: %3").arg(internalId, plan.summary, changes.join(QStringLiteral("; "))));
                    send(socket, {{QStringLiteral("type"), relay::type::Conflict}, {QStringLiteral("id"), clientId}, {QStringLiteral("changes"), QJsonArray::fromStringList(changes)}, {QStringLiteral("message"), tr("%1; nothing was written: choose the slice again").arg(changes.join(QStringLiteral("; ")))}});
                    return;
                }
                m_actionsInFlight.insert(internalId, Action{socket, clientId});
                log(tr("action %1: scale %2").arg(internalId, plan.summary));
                m_actions->scaleWorkerGroup(internalId, plan);
                return;
            }
        }
    }
    if (!groupSeen)
        return refuseAction(socket, clientId, tr("the relay has no worker group %1 in its recent views").arg(groupName));
    log(tr("action %1: scale %2 conflicts with the relay's recent views").arg(internalId, groupName));
    send(socket, {{QStringLiteral("type"), relay::type::Conflict}, {QStringLiteral("id"), clientId}, {QStringLiteral("changes"), QJsonArray{tr("the plan no longer matches %1 as the relay sees it").arg(groupName)}}, {QStringLiteral("message"), tr("nothing was written: re-plan on the newest snapshot and confirm again")}});
}

} // namespace slicescope
