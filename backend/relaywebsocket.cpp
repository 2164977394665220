// SPDX-License-Identifier: GPL-3.0-or-later
#include "relaywebsocket.h"

#include <QTcpSocket>

namespace slicescope {

RelayWebSocket::RelayWebSocket(QTcpSocket *socket, http::RequestHead request, QByteArray pending, qint64 maxMessageBytes, QObject *parent)
    : QObject(parent)
    , m_socket(socket)
    , m_request(std::move(request))
    , m_in(std::move(pending))
    , m_reader(maxMessageBytes)
    , m_maxMessage(maxMessageBytes)
{
    m_socket->setParent(this);
    m_closeTimer.setSingleShot(true);
    connect(&m_closeTimer, &QTimer::timeout, m_socket, &QTcpSocket::abort);
    connect(m_socket, &QTcpSocket::readyRead, this, &RelayWebSocket::readFrames);
    connect(m_socket, &QTcpSocket::bytesWritten, this, [this] {
        Q_EMIT bytesWritten();
        if (m_socket->bytesToWrite() <= http::kWriteHighWaterBytes)
            readFrames(); // what back-pressure held back
    });
    connect(m_socket, &QTcpSocket::disconnected, this, &RelayWebSocket::onDisconnected);
    if (m_socket->state() != QAbstractSocket::ConnectedState)
        QMetaObject::invokeMethod(this, &RelayWebSocket::onDisconnected, Qt::QueuedConnection);
    else if (!m_in.isEmpty() || m_socket->bytesAvailable() > 0)
        QMetaObject::invokeMethod(this, &RelayWebSocket::readFrames, Qt::QueuedConnection);
}

RelayWebSocket::~RelayWebSocket()
{
    m_socket->disconnect(this);
    m_socket->abort();
}

QHostAddress RelayWebSocket::peerAddress() const
{
    return m_socket->peerAddress();
}

void RelayWebSocket::sendTextMessage(const QString &text)
{
    if (m_closing || m_gone)
        return;
    m_socket->write(ws::frame(ws::Text, text.toUtf8()));
}

qint64 RelayWebSocket::bytesToWrite() const
{
    return m_socket->bytesToWrite();
}

void RelayWebSocket::close(int code, const QString &reason)
{
    if (m_closing || m_gone)
        return;
    m_closing = true;
    m_socket->write(ws::closeFrame(code, reason.toUtf8()));
    // The client answers with its close frame and ends the TCP connection; one that never does is cut.
    m_closeTimer.start(http::kCloseGraceMs);
}

void RelayWebSocket::readFrames()
{
    if (m_gone)
        return;
    // Back-pressure: a client with a lot still to receive is not read; its bytes wait in the kernel.
    if (m_socket->bytesToWrite() > http::kWriteHighWaterBytes)
        return;
    // At most one whole message (and its frame headers) plus one read's worth is ever held.
    const qint64 cap = m_maxMessage + 64 * 1024;
    for (;;) {
        if (m_in.size() < cap && m_socket->bytesAvailable() > 0)
            m_in += m_socket->read(cap - m_in.size());
        const ws::Event e = m_reader.next(m_in);
        switch (e.kind) {
        case ws::Event::None:
            if (m_socket->bytesAvailable() > 0 && m_in.size() < cap)
                continue;
            return;
        case ws::Event::Error:
            m_in.clear();
            if (!m_closing)
                close(e.code, QString::fromLatin1(e.why));
            m_socket->disconnectFromHost();
            return;
        case ws::Event::Close:
            if (!m_closing) { // the client began it: answer with its code, as RFC 6455 5.5.1 asks
                m_closing = true;
                const int code = e.code == 1005 ? ws::kCloseNormal : e.code;
                m_socket->write(ws::closeFrame(code >= 1000 && code < 5000 ? code : ws::kCloseProtocolError, {}));
            }
            m_in.clear();
            m_socket->disconnectFromHost();
            m_closeTimer.start(http::kCloseGraceMs);
            return;
        case ws::Event::Ping:
            if (!m_closing)
                m_socket->write(ws::frame(ws::Pong, e.payload));
            break;
        case ws::Event::Pong:
            break;
        case ws::Event::Message:
            if (m_closing)
                break; // after our close frame, nothing more is taken
            if (e.opcode == ws::Text)
                Q_EMIT textMessageReceived(QString::fromUtf8(e.payload));
            else
                Q_EMIT binaryMessageReceived(e.payload);
            if (m_gone)
                return;
            break;
        }
        if (m_socket->bytesToWrite() > http::kWriteHighWaterBytes)
            return;
    }
}

void RelayWebSocket::onDisconnected()
{
    if (m_gone)
        return;
    m_gone = true;
    m_closeTimer.stop();
    Q_EMIT disconnected();
}

} // namespace slicescope
