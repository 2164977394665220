// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The server end of one relay WebSocket (RFC 6455), on a socket whose handshake the relay's HTTP front
// answered (relayhttp.h). Its own, not QWebSocketServer's, so every bound holds from the first byte:
// client frames must be masked (else 1002), a message over the relay's limit is refused at its header
// (1009), text must be UTF-8 (1007), and nothing more is read from a client while more than
// kWriteHighWaterBytes wait to be written to it (back-pressure: a client that sends but never reads
// stops being read, the kernel's window then stops it sending).

#include "httphead.h"

#include <QByteArray>
#include <QHostAddress>
#include <QObject>
#include <QString>
#include <QTimer>

class QTcpSocket;

namespace slicescope {

class RelayWebSocket : public QObject
{
    Q_OBJECT
public:
    // Takes `socket` over (made its child). `pending`: bytes the client sent after its handshake.
    RelayWebSocket(QTcpSocket *socket, http::RequestHead request, QByteArray pending, qint64 maxMessageBytes, QObject *parent = nullptr);
    ~RelayWebSocket() override;

    QHostAddress peerAddress() const;
    const http::RequestHead &request() const { return m_request; }

    void sendTextMessage(const QString &text);
    // Bytes accepted by sendTextMessage() not yet handed to the kernel.
    qint64 bytesToWrite() const;
    // Sends a close frame (code, reason) and ends the connection once the client answers it, or
    // after kCloseGraceMs. Nothing more is sent or received.
    void close(int code, const QString &reason);

Q_SIGNALS:
    void textMessageReceived(const QString &text);
    void binaryMessageReceived(const QByteArray &data);
    void bytesWritten();   // some of what was sent left; bytesToWrite() says how much is left
    void disconnected();   // once

private:
    void readFrames();
    void onDisconnected();

    QTcpSocket *m_socket;
    http::RequestHead m_request;
    QByteArray m_in;
    ws::FrameReader m_reader;
    qint64 m_maxMessage;
    bool m_closing = false;
    bool m_gone = false;
    QTimer m_closeTimer;
};

} // namespace slicescope
