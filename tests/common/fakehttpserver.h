// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A scripted HTTP server on 127.0.0.1 for faults a real Ray will not produce on demand (429
// storms, 5xx, stalls, oversized bodies). One request per connection: the answer closes it, which
// is all RayClient needs. The real server stays the real test (tests/integration).
// For the fault matrix (tests/backend/tst_faultmatrix.cpp) it also: resets a connection in the
// middle of the status line, streams a huge body lazily (never held in memory), answers a TLS
// hello the way a plain HTTP server does, goes away and comes back on the same port, and speaks
// just enough WebSocket (RFC 6455: the handshake, unmasked server frames, a close frame) for the
// log tail and the relay client.

#include <QCryptographicHash>
#include <QElapsedTimer>
#include <QHash>
#include <QHostAddress>
#include <QList>
#include <QMap>
#include <QObject>
#include <QPointer>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>
#include <QTimer>
#include <QUrl>

#include <algorithm>
#include <functional>
#include <memory>

namespace slicescope::testing {

struct HttpRequest {
    QByteArray method, path;
    QMap<QByteArray, QByteArray> headers; // names lower-cased
    QByteArray body;
    qint64 atMs = 0; // when it arrived, from the server's creation
};

struct HttpResponse {
    int status = 200;
    QByteArray body;
    QList<QPair<QByteArray, QByteArray>> headers;
    bool stall = false; // read the request, never answer
    QByteArray reason;  // the status line's reason phrase ("Found"); empty: "X"
    int trickleMs = 0;  // > 0: the headers at once, then the body one byte every trickleMs
    qint64 contentLength = -1; // >= 0: the Content-Length sent, whatever the body (a cut body)
    bool resetMidHeaders = false; // half a status line, then a TCP reset
    bool keepOpen = false;        // headers and `body` (no Content-Length), then open and silent: a watch
    // > 0: after `body`, this many more bytes of filler, written lazily as the socket drains
    // (the fake never holds them); `lazyNoLength` omits Content-Length (ends by closing).
    qint64 lazyBytes = 0;
    bool lazyNoLength = false;
    // With lazyBytes: `Transfer-Encoding: chunked`, the filler in 64 KiB chunks (what Prometheus
    // sends for a large answer), then the last chunk; no Content-Length.
    bool lazyChunked = false;
    // A WebSocket upgrade: the 101 handshake, then these text messages (one frame each), then a
    // close frame with `wsCloseCode` (0: the connection stays open, silent). `wsHugeFrame` > 0:
    // after the messages, one text frame that says it is this long, its payload streamed lazily.
    bool webSocket = false;
    QList<QByteArray> wsMessages;
    int wsCloseCode = 0;
    qint64 wsHugeFrame = 0;
};

class FakeHttpServer : public QObject
{
public:
    std::function<HttpResponse(const HttpRequest &)> script = [](const HttpRequest &) {
        return HttpResponse{404, "Not Found"};
    };
    QList<HttpRequest> requests;

    qint64 lazyBytesWritten = 0;   // filler bytes actually written, over all answers
    qint64 lazyBytesMostInOne = 0; // the most written for one answer

    FakeHttpServer()
    {
        m_clock.start();
        QVERIFY(m_server.listen(QHostAddress::LocalHost, 0));
        m_port = m_server.serverPort();
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection()) {
                socket->setParent(this);
                m_sockets.append(socket);
                connect(socket, &QTcpSocket::readyRead, this, [this, socket] { onReadyRead(socket); });
            }
        });
    }
    QUrl url() const { return QUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_port)); }
    quint16 port() const { return m_port; }
    qint64 elapsedMs() const { return m_clock.elapsed(); }
    // A restart: the port refuses connections and every open one is cut ...
    void goAway()
    {
        m_server.close();
        for (const QPointer<QTcpSocket> &s : std::as_const(m_sockets))
            if (s)
                s->abort();
        m_sockets.clear();
        m_buffers.clear();
    }
    // ... and the server listens on the same port again.
    bool comeBack() { return m_server.listen(QHostAddress::LocalHost, m_port); }
    // Requests to `pathPrefix` that arrived in [fromMs, toMs) (elapsedMs() clock).
    int countBetween(const QByteArray &pathPrefix, qint64 fromMs, qint64 toMs) const
    {
        return int(std::count_if(requests.begin(), requests.end(), [&](const HttpRequest &r) {
            return r.path.startsWith(pathPrefix) && r.atMs >= fromMs && r.atMs < toMs;
        }));
    }
    int count(const QByteArray &pathPrefix) const
    {
        return int(std::count_if(requests.begin(), requests.end(), [&](const HttpRequest &r) { return r.path.startsWith(pathPrefix); }));
    }

private:
    // Writes `bytes` of filler as the socket drains (at most 1 MiB queued), then closes (or not);
    // `chunked`: each piece framed as an HTTP/1.1 chunk, and the last chunk at the end.
    void streamLazily(QTcpSocket *socket, qint64 bytes, bool closeAfter, bool chunked = false)
    {
        auto remaining = std::make_shared<qint64>(bytes);
        auto pump = [this, socket, remaining, closeAfter, bytes, chunked] {
            static const QByteArray filler(64 * 1024, 'x');
            while (*remaining > 0 && socket->state() == QAbstractSocket::ConnectedState && socket->bytesToWrite() < (1 << 20)) {
                const qint64 n = std::min<qint64>(*remaining, filler.size());
                if (chunked)
                    socket->write(QByteArray::number(n, 16) + "\r\n");
                socket->write(filler.constData(), n);
                if (chunked)
                    socket->write("\r\n");
                *remaining -= n;
                lazyBytesWritten += n;
            }
            lazyBytesMostInOne = std::max(lazyBytesMostInOne, bytes - std::max<qint64>(*remaining, 0));
            if (*remaining == 0 && closeAfter) {
                *remaining = -1;
                if (chunked)
                    socket->write("0\r\n\r\n");
                socket->disconnectFromHost();
            }
        };
        connect(socket, &QTcpSocket::bytesWritten, socket, pump);
        pump();
    }

    static QByteArray wsFrame(quint8 opcode, const QByteArray &payload, qint64 declaredLength = -1)
    {
        const qint64 n = declaredLength >= 0 ? declaredLength : payload.size();
        QByteArray frame(1, char(0x80 | opcode));
        if (n < 126) {
            frame += char(n);
        } else if (n < 65536) {
            frame += char(126);
            frame += char(n >> 8);
            frame += char(n & 0xff);
        } else {
            frame += char(127);
            for (int shift = 56; shift >= 0; shift -= 8)
                frame += char((n >> shift) & 0xff);
        }
        return frame + payload;
    }

    void answerWebSocket(QTcpSocket *socket, const HttpRequest &r, const HttpResponse &answer)
    {
        const QByteArray accept = QCryptographicHash::hash(r.headers.value("sec-websocket-key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11",
                                                           QCryptographicHash::Sha1)
                                      .toBase64();
        QByteArray out = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " + accept
                         + "\r\n\r\n";
        for (const QByteArray &m : answer.wsMessages)
            out += wsFrame(0x1, m);
        if (answer.wsHugeFrame > 0) {
            socket->write(out + wsFrame(0x1, {}, answer.wsHugeFrame));
            streamLazily(socket, answer.wsHugeFrame, false);
            return;
        }
        if (answer.wsCloseCode > 0)
            out += wsFrame(0x8, QByteArray(1, char(answer.wsCloseCode >> 8)) + char(answer.wsCloseCode & 0xff));
        socket->write(out);
    }

    void onReadyRead(QTcpSocket *socket)
    {
        QByteArray &buffer = m_buffers[socket];
        buffer += socket->readAll();
        if (buffer.startsWith('\x16')) {
            // A TLS ClientHello: a plain HTTP server answers it as a bad request and closes.
            socket->write("HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
            socket->disconnectFromHost();
            m_buffers.remove(socket);
            return;
        }
        const qsizetype end = buffer.indexOf("\r\n\r\n");
        if (end < 0)
            return;
        HttpRequest r;
        const QList<QByteArray> lines = buffer.left(end).split('\n');
        const QList<QByteArray> first = lines.value(0).trimmed().split(' ');
        r.method = first.value(0);
        r.path = first.value(1);
        for (qsizetype i = 1; i < lines.size(); ++i) {
            const qsizetype colon = lines[i].indexOf(':');
            if (colon > 0)
                r.headers.insert(lines[i].left(colon).trimmed().toLower(), lines[i].mid(colon + 1).trimmed());
        }
        // A POST's body may arrive after its headers: answer once all of it is here.
        const qsizetype length = r.headers.value("content-length").toLongLong();
        if (buffer.size() < end + 4 + length)
            return;
        r.body = buffer.mid(end + 4, length);
        buffer.clear();
        r.atMs = m_clock.elapsed();
        requests.append(r);
        const HttpResponse answer = script(r);
        if (answer.stall)
            return;
        if (answer.resetMidHeaders) {
            socket->write("HTTP/1.1 200 OK\r\nContent-Ty");
            socket->flush();
            socket->abort();
            return;
        }
        if (answer.webSocket) {
            socket->disconnect(this); // frames from the client from now on: read and dropped
            connect(socket, &QTcpSocket::readyRead, socket, [socket] { socket->readAll(); });
            answerWebSocket(socket, r, answer);
            return;
        }
        QByteArray out = "HTTP/1.1 " + QByteArray::number(answer.status) + ' ' + (answer.reason.isEmpty() ? QByteArray("X") : answer.reason)
                         + "\r\nContent-Type: application/json\r\nConnection: close\r\n";
        for (const auto &[name, value] : answer.headers)
            out += name + ": " + value + "\r\n";
        if (answer.keepOpen) {
            socket->write(out + "\r\n" + answer.body);
            return;
        }
        const qint64 sentLength = answer.contentLength >= 0 ? answer.contentLength : answer.body.size() + answer.lazyBytes;
        if (answer.lazyChunked)
            out += "Transfer-Encoding: chunked";
        else if (!answer.lazyNoLength)
            out += "Content-Length: " + QByteArray::number(sentLength);
        out += "\r\n\r\n";
        if (answer.lazyBytes > 0) {
            if (answer.lazyChunked && !answer.body.isEmpty())
                out += QByteArray::number(answer.body.size(), 16) + "\r\n" + answer.body + "\r\n";
            else
                out += answer.body;
            socket->write(out);
            streamLazily(socket, answer.lazyBytes, true, answer.lazyChunked);
            return;
        }
        if (answer.trickleMs > 0) {
            socket->write(out);
            auto *timer = new QTimer(socket);
            auto remaining = std::make_shared<QByteArray>(answer.body);
            connect(timer, &QTimer::timeout, socket, [socket, timer, remaining] {
                if (remaining->isEmpty()) {
                    timer->stop();
                    socket->disconnectFromHost();
                    return;
                }
                socket->write(remaining->left(1));
                remaining->remove(0, 1);
            });
            timer->start(answer.trickleMs);
            return;
        }
        socket->write(out + answer.body);
        socket->disconnectFromHost();
    }

    QTcpServer m_server;
    quint16 m_port = 0;
    QElapsedTimer m_clock;
    QList<QPointer<QTcpSocket>> m_sockets;
    QHash<QTcpSocket *, QByteArray> m_buffers;
};

} // namespace slicescope::testing
