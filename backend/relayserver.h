// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The relay (`slicescope serve`, docs/relay-protocol.md): serves the static web bundle and, on
// the same origin, a WebSocket at /relay that pushes the captures of a live source to every
// connected browser and carries their actions to the source's native ClusterActions, which call
// Ray and Kubernetes as a non-browser client (docs/facts.md 1.4). Native only: never built for wasm.
//
// Security: every HTTP request and WebSocket needs the access token (?token= or the cookie the
// first page load sets; compared in constant time), the Host header must name the listen address
// (no DNS rebinding), an Origin must be that same origin, and peers that are not loopback are
// refused unless remote access was allowed. Cluster credentials stay in this process; the token
// is never logged (the caller prints the one URL line).

#include "capture.h"
#include "snapshot.h"

#include <QByteArray>
#include <QHash>
#include <QHostAddress>
#include <QJsonObject>
#include <QObject>
#include <QString>
#include <QUrl>

#include <deque>
#include <functional>

#include "relayhttp.h"

namespace slicescope {

class ClusterActions;
class Source;
class RelayWebSocket;

struct RelayServerOptions {
    QHostAddress address = QHostAddress::LocalHost;
    quint16 port = 8080;
    bool allowRemote = false;   // accept peers that are not loopback (and any Host header)
    QString webRoot;            // the static bundle; empty: a small page says none is served
    QByteArray token;           // the access token; at least 16 bytes
};

class RelayServer : public QObject
{
    Q_OBJECT
public:
    // `actions` may be null (a capture file): then `actionsUnavailable` says why actions fail.
    RelayServer(Source *source, ClusterActions *actions, QString actionsUnavailable, RelayServerOptions options, QObject *parent = nullptr);
    ~RelayServer() override;

    // A fresh random token: 32 bytes from the system's CSPRNG, base64url (43 characters).
    static QByteArray newToken();
    static bool isLoopbackAddress(const QHostAddress &address);

    // Listens; returns an error sentence or empty. Starts the source.
    [[nodiscard]] QString start();
    quint16 port() const;
    // The URL to open, token included (print it once; never log it elsewhere).
    QUrl openUrl() const;
    int clientCount() const { return int(m_clients.size()); }

    // Where the relay logs what happens (client connected, refused, action...): one line each,
    // never a token. Default: stderr.
    void setLogger(std::function<void(const QString &)> logger) { m_log = std::move(logger); }

private:
    friend class RelayWebSocket;
    struct Client {
        RelayWebSocket *socket = nullptr;
        int id = 0;
        bool capturePending = false;
    };
    struct Action {
        RelayWebSocket *socket = nullptr;
        QString clientId;        // the id the client chose
    };

    // Access checks shared by HTTP and the WebSocket. Return an error (for the log) or empty.
    QString checkPeer(const QHostAddress &peer) const;
    QString checkHost(const QByteArray &host) const;
    QString checkOrigin(const QByteArray &origin, const QByteArray &host, const QByteArray &forwardedProto) const;
    bool tokenMatches(const QByteArray &candidate) const;
    // Where a request carries the right token: its URL's ?token= or its cookie; None when neither.
    enum class TokenIn
    {
        None,
        Query,
        Cookie
    };
    TokenIn validToken(const QUrl &url, const QByteArray &cookieHeader) const;
    static QByteArray cookieValue(const QByteArray &cookieHeader, const QByteArray &name);

    using Headers = QList<QPair<QByteArray, QByteArray>>;
    // What a request head is answered with (RelayHttpFront asks, once the head is whole).
    RelayHttpFront::Reply route(const http::RequestHead &request, const QHostAddress &peer);
    RelayHttpFront::Reply upgradeReply(const http::RequestHead &request, bool authenticated);
    RelayHttpFront::Reply staticFile(const QUrl &url, const http::RequestHead &request, bool head, Headers extra);
    void admit(RelayWebSocket *socket);
    void onCapture(const Capture &capture);
    void onSourceFailed(const QString &message);
    void onClientMessage(RelayWebSocket *socket, const QString &text);
    void sendCaptureTo(Client &client);
    void sendActionsState(RelayWebSocket *only = nullptr);
    QJsonObject actionsState();
    void send(RelayWebSocket *socket, const QJsonObject &message);
    void reply(const QString &actionId, const QJsonObject &message);
    void refuseAction(RelayWebSocket *socket, const QString &clientId, const QString &why);
    void startScale(RelayWebSocket *socket, const QString &internalId, const QJsonObject &message);
    Client *client(RelayWebSocket *socket);
    void log(const QString &line) const;

    Source *m_source;
    ClusterActions *m_actions;
    QString m_actionsUnavailable;
    RelayServerOptions m_options;
    RelayHttpFront *m_http = nullptr;
    QList<Client> m_clients;
    int m_nextClientId = 1;
    int m_refusedClosing = 0; // WebSockets refused after their handshake, not yet gone
    qint64 m_nextAction = 1;
    QHash<QString, Action> m_actionsInFlight; // by internal id
    QByteArray m_captureMessage; // the latest capture, as sent
    Capture m_lastCapture;
    QJsonObject m_releases;      // release texts for the groups and jobs of m_releasesKey
    size_t m_releasesKey = 0;
    QJsonObject m_lastState;     // the actions state every client has
    qint64 m_seq = 0;
    std::deque<SnapshotPtr> m_recent; // the snapshots of the latest captures (scale plans are checked against them)
    QString m_sourceFailure;
    std::function<void(const QString &)> m_log;
};

} // namespace slicescope
