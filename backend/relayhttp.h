// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The relay's HTTP/1.1 front: a QTcpServer whose connections read a bounded request head
// (httphead.h), ask the relay what to answer, and write the answer, one at a time per connection.
// Why its own and not QAbstractHttpServer (docs/bounds.md): Qt 6.4's reads a whole request body and
// any length of header into memory before its handler can say no, never closes an idle connection,
// and takes pipelined requests without bound. Here:
//   - a head is at most http::kMaxHeadBytes and http::kMaxHeaderLines (431), whole within
//     http::kHeadTimeoutMs of the connection opening or of its last answer (else closed);
//   - a body is never read: one over http::kMaxBodyBytes is refused (413) and any other closes the
//     connection after its answer;
//   - the relay's checks (Host, Origin, token) run as soon as the head is whole;
//   - one answer is in flight per connection, a file is sent in pieces while no more than
//     http::kWriteHighWaterBytes wait to be written, and nothing more is read meanwhile;
//   - at most http::kMaxConnections are open; a new one closes the oldest that never authenticated.
// A WebSocket upgrade the relay accepts is answered 101 here and handed over as a RelayWebSocket.

#include "httphead.h"

#include <QHostAddress>
#include <QList>
#include <QObject>

#include <functional>
#include <memory>

class QFile;
class QTcpServer;

namespace slicescope {

class RelayWebSocket;
class HttpConnection;

class RelayHttpFront : public QObject
{
    Q_OBJECT
public:
    // What the relay answers one request head with.
    struct Reply {
        int status = 200;
        QList<QPair<QByteArray, QByteArray>> headers; // all but Content-Length and Connection
        QByteArray body;
        std::unique_ptr<QFile> file;  // sent in pieces instead of `body` when set
        qint64 fileBytes = 0;
        bool headOnly = false;        // HEAD: the headers, Content-Length included, and no body
        bool close = false;           // close the connection once the answer is written
        bool authenticated = false;   // the request carried the access token
        bool upgrade = false;         // a 101: the socket becomes a RelayWebSocket (webSocket())
    };
    using Router = std::function<Reply(const http::RequestHead &head, const QHostAddress &peer)>;

    RelayHttpFront(Router router, qint64 maxWebSocketMessageBytes, QObject *parent = nullptr);
    ~RelayHttpFront() override;

    // Listens; an error sentence or empty.
    QString listen(const QHostAddress &address, quint16 port);
    quint16 port() const;

    // An answer with a plain-text body and the headers every answer carries.
    static Reply textReply(int status, const QByteArray &type, const QByteArray &body);

Q_SIGNALS:
    // An accepted upgrade, its handshake answered; the receiver takes it (it is this front's child until then).
    void webSocket(slicescope::RelayWebSocket *socket);
    void logLine(const QString &line);

private:
    friend class HttpConnection;
    void acceptConnections();
    void forget(HttpConnection *connection);

    Router m_router;
    qint64 m_maxWebSocketMessage;
    QTcpServer *m_tcp = nullptr;
    QList<HttpConnection *> m_connections; // oldest first
    bool m_warnedFull = false;
};

// Raises this process's soft limit of open files to its hard limit (the relay's connection cap needs
// more than the usual 1,024 descriptors); an error sentence or empty.
QString raiseOpenFileLimit();

} // namespace slicescope
