// SPDX-License-Identifier: GPL-3.0-or-later
#include "relayhttp.h"

#include "relaywebsocket.h"

#include <QFile>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>

#ifdef Q_OS_UNIX
#include <sys/resource.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <cerrno>
#include <cstring>
#endif

namespace slicescope {

namespace {
constexpr int kListenBacklog = 1024;
}

// One HTTP connection: reads a head, answers it, reads the next. Lives until its socket ends.
class HttpConnection : public QObject
{
public:
    HttpConnection(RelayHttpFront *front, QTcpSocket *socket)
        : QObject(front)
        , m_front(front)
        , m_socket(socket)
    {
        m_socket->setParent(this);
        // Qt reads no more from the kernel than this while we do not take it: a head is whole in it.
        m_socket->setReadBufferSize(http::kMaxHeadBytes);
        m_headTimer.setSingleShot(true);
        m_stallTimer.setSingleShot(true);
        connect(&m_headTimer, &QTimer::timeout, this, &HttpConnection::headTimedOut);
        connect(&m_stallTimer, &QTimer::timeout, this, [this] {
            log(QStringLiteral("closed a connection from %1 that took no bytes of its answer for %2 s").arg(peerText()).arg(http::kStallTimeoutMs / 1000));
            m_socket->abort();
        });
        connect(m_socket, &QTcpSocket::readyRead, this, &HttpConnection::process);
        connect(m_socket, &QTcpSocket::bytesWritten, this, &HttpConnection::onBytesWritten);
        connect(m_socket, &QTcpSocket::disconnected, this, &HttpConnection::end);
        connect(m_socket, &QTcpSocket::errorOccurred, this, [this] {
            if (m_socket->state() == QAbstractSocket::UnconnectedState)
                end();
        });
        m_headTimer.start(http::kHeadTimeoutMs);
    }

    bool authenticated() const { return m_authenticated; }
    // Whether the peer sent anything yet: read, buffered by Qt, or still in the kernel (a new client's
    // head that the event loop has not read yet).
    bool sentAnything() const
    {
        if (!m_in.isEmpty() || m_socket->bytesAvailable() > 0 || m_responding)
            return true;
#ifdef Q_OS_UNIX
        int pending = 0;
        if (::ioctl(int(m_socket->socketDescriptor()), FIONREAD, &pending) == 0)
            return pending > 0;
#endif
        return false;
    }
    void drop()
    {
        m_socket->abort();
        end();
    }
    void process();

private:
    QString peerText() const { return m_socket->peerAddress().toString(); }
    void log(const QString &line) { Q_EMIT m_front->logLine(line); }
    void headTimedOut();
    void answer(RelayHttpFront::Reply reply);
    void refuse(int status, const QByteArray &why);
    void onBytesWritten();
    void answered();
    void end();

    RelayHttpFront *m_front;
    QTcpSocket *m_socket;
    QByteArray m_in;          // bytes read but not yet a whole head (at most kMaxHeadBytes)
    QTimer m_headTimer;
    QTimer m_stallTimer;
    std::unique_ptr<QFile> m_file;
    qint64 m_fileLeft = 0;
    bool m_responding = false;
    bool m_closeAfter = false;
    bool m_authenticated = false;
    bool m_ended = false;
    bool m_lingering = false; // answered and closing: what the peer still sends is read and dropped
    qint64 m_discarded = 0;
};

void HttpConnection::process()
{
    if (m_lingering) {
        // Closing with unread bytes would make the kernel reset the connection, and a reset can destroy
        // the answer before the peer reads it; so what still comes is dropped, within a bound.
        while (m_socket->bytesAvailable() > 0 && m_discarded <= http::kLingerBytes)
            m_discarded += m_socket->skip(m_socket->bytesAvailable());
        if (m_discarded > http::kLingerBytes)
            m_socket->abort();
        return;
    }
    while (!m_responding && !m_ended) {
        if (m_in.size() < http::kMaxHeadBytes && m_socket->bytesAvailable() > 0)
            m_in += m_socket->read(http::kMaxHeadBytes - m_in.size());
        if (m_in.isEmpty())
            return;
        http::RequestHead head;
        const http::HeadResult parsed = http::parseRequestHead(m_in, head);
        switch (parsed.status) {
        case http::HeadStatus::Incomplete:
            return; // the head timer is running
        case http::HeadStatus::TooLarge:
        case http::HeadStatus::TooManyHeaders:
            return refuse(431, parsed.why);
        case http::HeadStatus::Malformed:
            return refuse(400, parsed.why);
        case http::HeadStatus::Complete:
            break;
        }
        m_in.remove(0, head.length);
        m_headTimer.stop();
        // The body is never read: refused when large or of unknown length, else left unread and the
        // connection closed after the answer (so its bytes are never taken for the next request).
        if (head.contentLength < 0)
            return refuse(413, "a body of unknown length (Transfer-Encoding): no route of the relay takes a body");
        if (head.contentLength > http::kMaxBodyBytes)
            return refuse(413, "a body of " + QByteArray::number(head.contentLength) + " bytes: no route of the relay takes one over 1 MiB");
        RelayHttpFront::Reply reply = m_front->m_router(head, m_socket->peerAddress());
        if (reply.authenticated)
            m_authenticated = true;
        if (head.hasBody() || !head.keepAlive())
            reply.close = true;
        if (reply.upgrade && reply.status == 101 && !head.hasBody()) {
            QByteArray out = "HTTP/1.1 101 Switching Protocols\r\n";
            for (const auto &h : reply.headers)
                out += h.first + ": " + h.second + "\r\n";
            out += "\r\n";
            m_socket->write(out);
            // The socket now belongs to the WebSocket, with whatever the client sent after its head.
            m_ended = true;
            m_socket->disconnect(this);
            m_headTimer.stop();
            auto *ws = new RelayWebSocket(m_socket, std::move(head), std::move(m_in), m_front->m_maxWebSocketMessage, m_front);
            m_front->forget(this);
            deleteLater();
            Q_EMIT m_front->webSocket(ws);
            return;
        }
        answer(std::move(reply));
    }
}

void HttpConnection::headTimedOut()
{
    if (m_in.isEmpty()) {
        m_socket->abort(); // idle: nothing to answer
        return end();
    }
    refuse(408, "no whole request head within " + QByteArray::number(http::kHeadTimeoutMs / 1000) + " s");
}

void HttpConnection::refuse(int status, const QByteArray &why)
{
    log(QStringLiteral("refused a request from %1: %2 %3 (%4); connection closed")
            .arg(peerText())
            .arg(status)
            .arg(QString::fromLatin1(http::reasonPhrase(status)), QString::fromLatin1(why)));
    m_in.clear();
    RelayHttpFront::Reply reply = RelayHttpFront::textReply(status, "text/plain; charset=utf-8", "slicescope relay: " + why + '\n');
    reply.close = true;
    answer(std::move(reply));
}

void HttpConnection::answer(RelayHttpFront::Reply reply)
{
    m_headTimer.stop();
    m_responding = true;
    m_closeAfter = reply.close;
    const qint64 length = reply.file ? reply.fileBytes : reply.body.size();
    QByteArray out = "HTTP/1.1 " + QByteArray::number(reply.status) + ' ' + http::reasonPhrase(reply.status) + "\r\n";
    for (const auto &h : reply.headers)
        out += h.first + ": " + h.second + "\r\n";
    out += "Content-Length: " + QByteArray::number(length) + "\r\n";
    if (m_closeAfter)
        out += "Connection: close\r\n";
    out += "\r\n";
    if (!reply.headOnly) {
        if (reply.file) {
            m_file = std::move(reply.file);
            m_fileLeft = reply.fileBytes;
        } else {
            out += reply.body;
        }
    }
    m_socket->write(out);
    m_stallTimer.start(http::kStallTimeoutMs);
    onBytesWritten();
}

void HttpConnection::onBytesWritten()
{
    if (!m_responding)
        return;
    m_stallTimer.start(http::kStallTimeoutMs);
    // Queue more of the file only while little waits to be written: one slow reader never holds more.
    while (m_file && m_fileLeft > 0 && m_socket->bytesToWrite() < http::kWriteHighWaterBytes) {
        const QByteArray piece = m_file->read(std::min(m_fileLeft, http::kFileChunkBytes));
        if (piece.isEmpty()) { // the file shrank under us: the length we announced cannot be kept
            log(QStringLiteral("a file ended early while sent to %1; connection closed").arg(peerText()));
            m_file.reset();
            m_socket->abort();
            return end();
        }
        m_fileLeft -= piece.size();
        m_socket->write(piece);
    }
    if (m_fileLeft <= 0)
        m_file.reset();
    if (!m_file && m_socket->bytesToWrite() == 0)
        answered();
}

void HttpConnection::answered()
{
    m_responding = false;
    m_stallTimer.stop();
    if (m_closeAfter) {
        // A peer that never closes its side is cut; disconnected() then ends this connection.
#ifdef Q_OS_UNIX
        // Half-close (the answer is all written) and drop what the peer still sends for a while: a
        // client in the middle of sending a refused body then reads its 413 instead of a reset.
        m_lingering = true;
        m_in.clear();
        ::shutdown(int(m_socket->socketDescriptor()), SHUT_WR);
        QTimer::singleShot(http::kLingerMs, m_socket, &QTcpSocket::abort);
        process();
#else
        m_socket->disconnectFromHost();
        QTimer::singleShot(http::kCloseGraceMs, m_socket, &QTcpSocket::abort);
#endif
        return;
    }
    m_headTimer.start(http::kHeadTimeoutMs);
    // A pipelined request may be waiting already.
    QMetaObject::invokeMethod(this, &HttpConnection::process, Qt::QueuedConnection);
}

void HttpConnection::end()
{
    if (m_ended)
        return;
    m_ended = true;
    m_headTimer.stop();
    m_stallTimer.stop();
    m_file.reset();
    m_front->forget(this);
    deleteLater();
}

RelayHttpFront::RelayHttpFront(Router router, qint64 maxWebSocketMessageBytes, QObject *parent)
    : QObject(parent)
    , m_router(std::move(router))
    , m_maxWebSocketMessage(maxWebSocketMessageBytes)
{ }

RelayHttpFront::~RelayHttpFront() = default;

QString RelayHttpFront::listen(const QHostAddress &address, quint16 port)
{
    m_tcp = new QTcpServer(this);
    // The kernel's queue of connections not yet accepted: Qt's default of 50 drops the SYNs of a good
    // client behind a burst of connections, which then waits a second or more to retry.
    m_tcp->setListenBacklogSize(kListenBacklog);
    if (!m_tcp->listen(address, port))
        return tr("cannot listen on %1:%2: %3").arg(address.toString()).arg(port).arg(m_tcp->errorString());
    connect(m_tcp, &QTcpServer::newConnection, this, &RelayHttpFront::acceptConnections);
    return {};
}

quint16 RelayHttpFront::port() const
{
    return m_tcp ? m_tcp->serverPort() : 0;
}

RelayHttpFront::Reply RelayHttpFront::textReply(int status, const QByteArray &type, const QByteArray &body)
{
    Reply r;
    r.status = status;
    r.headers = {{"Content-Type", type},
                 {"X-Content-Type-Options", "nosniff"},
                 {"Referrer-Policy", "no-referrer"}, // the token in the URL goes nowhere else
                 {"Cache-Control", "no-store"},
                 {"X-Frame-Options", "DENY"}};
    r.body = body;
    return r;
}

void RelayHttpFront::acceptConnections()
{
    while (m_tcp->hasPendingConnections()) {
        QTcpSocket *socket = m_tcp->nextPendingConnection();
        if (m_connections.size() >= http::kMaxConnections) {
            // Full: the oldest connection that never showed the token makes room, one that has sent
            // nothing at all first (so a client whose head is on its way is not cut for an idle one).
            // Peers with the token are never pushed out by ones without it; when every slot holds one,
            // the new peer is closed.
            HttpConnection *victim = nullptr;
            for (HttpConnection *c : std::as_const(m_connections))
                if (!c->authenticated() && !c->sentAnything()) {
                    victim = c;
                    break;
                }
            for (qsizetype i = 0; !victim && i < m_connections.size(); ++i)
                if (!m_connections[i]->authenticated())
                    victim = m_connections[i];
            if (!victim) {
                if (!m_warnedFull)
                    Q_EMIT logLine(tr("%1 connections with the access token are open; refusing new ones until one closes").arg(http::kMaxConnections));
                m_warnedFull = true;
                socket->abort();
                socket->deleteLater();
                continue;
            }
            if (!m_warnedFull)
                Q_EMIT logLine(tr("%1 connections are open; closing the oldest without the access token for each new one").arg(http::kMaxConnections));
            m_warnedFull = true;
            victim->drop();
        } else if (m_connections.size() < http::kMaxConnections / 2) {
            m_warnedFull = false; // warn again on the next flood
        }
        m_connections.append(new HttpConnection(this, socket));
    }
}

void RelayHttpFront::forget(HttpConnection *connection)
{
    m_connections.removeOne(connection);
}

QString raiseOpenFileLimit()
{
#ifdef Q_OS_UNIX
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0)
        return QStringLiteral("cannot read the open-file limit (%1)").arg(QString::fromLocal8Bit(std::strerror(errno)));
    if (limit.rlim_cur == limit.rlim_max)
        return {};
    limit.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &limit) != 0)
        return QStringLiteral("cannot raise the open-file limit to %1 (%2)").arg(qulonglong(limit.rlim_max)).arg(QString::fromLocal8Bit(std::strerror(errno)));
#endif
    return {};
}

} // namespace slicescope
