// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A scripted HTTP server on 127.0.0.1 for faults a real Ray will not produce on demand (429
// storms, 5xx, stalls, oversized bodies). One request per connection: the answer closes it, which
// is all RayClient needs. The real server stays the real test (tests/integration).

#include <QHash>
#include <QHostAddress>
#include <QList>
#include <QMap>
#include <QObject>
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
};

struct HttpResponse {
    int status = 200;
    QByteArray body;
    QList<QPair<QByteArray, QByteArray>> headers;
    bool stall = false; // read the request, never answer
    QByteArray reason;  // the status line's reason phrase ("Found"); empty: "X"
    int trickleMs = 0;  // > 0: the headers at once, then the body one byte every trickleMs
    qint64 contentLength = -1; // >= 0: the Content-Length sent, whatever the body (a cut body)
};

class FakeHttpServer : public QObject
{
public:
    std::function<HttpResponse(const HttpRequest &)> script = [](const HttpRequest &) { return HttpResponse{404, "Not Found"}; };
    QList<HttpRequest> requests;

    FakeHttpServer()
    {
        QVERIFY(m_server.listen(QHostAddress::LocalHost, 0));
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection()) {
                socket->setParent(this);
                connect(socket, &QTcpSocket::readyRead, this, [this, socket] { onReadyRead(socket); });
            }
        });
    }
    QUrl url() const { return QUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_server.serverPort())); }
    int count(const QByteArray &pathPrefix) const
    {
        return int(std::count_if(requests.begin(), requests.end(), [&](const HttpRequest &r) { return r.path.startsWith(pathPrefix); }));
    }

private:
    void onReadyRead(QTcpSocket *socket)
    {
        QByteArray &buffer = m_buffers[socket];
        buffer += socket->readAll();
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
        requests.append(r);
        const HttpResponse answer = script(r);
        if (answer.stall)
            return;
        QByteArray out = "HTTP/1.1 " + QByteArray::number(answer.status) + ' ' + (answer.reason.isEmpty() ? QByteArray("X") : answer.reason)
                       + "\r\nContent-Type: application/json\r\nConnection: close\r\n";
        for (const auto &[name, value] : answer.headers)
            out += name + ": " + value + "\r\n";
        const qint64 sentLength = answer.contentLength >= 0 ? answer.contentLength : answer.body.size();
        out += "Content-Length: " + QByteArray::number(sentLength) + "\r\n\r\n";
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
    QHash<QTcpSocket *, QByteArray> m_buffers;
};

} // namespace slicescope::testing
