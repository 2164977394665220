// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The one small WebSocket client interface SliceScope needs (the relay's browser and desktop
// clients). The desktop implements it with QtWebSockets (websocketclient.cpp); the browser build
// with emscripten's <emscripten/websocket.h> (websocketclient_wasm.cpp), since Qt's WebSockets
// module is not available for WebAssembly here. Both deliver their signals from Qt's event loop.

#include <QObject>
#include <QString>
#include <QUrl>

namespace slicescope {

class WebSocketClient : public QObject
{
    Q_OBJECT
public:
    // The implementation this build has.
    static WebSocketClient *create(QObject *parent = nullptr);

    using QObject::QObject;
    ~WebSocketClient() override = default;

    // Opens a connection; connected() or failed() follows, from the event loop.
    virtual void open(const QUrl &url) = 0;
    // Closes it (no signal after this call returns).
    virtual void close() = 0;
    // Sends one text message; false when not connected.
    virtual bool sendText(const QString &message) = 0;
    virtual bool isConnected() const = 0;
    // A connection whose handshake has not completed this long after open() ends with
    // disconnected(0, "no WebSocket handshake ... within N s"): a server that accepts the TCP
    // connection and never answers the upgrade must not leave the client waiting forever.
    // Takes effect at the next open(). Default 15 s.
    void setHandshakeTimeout(int ms) { m_handshakeTimeoutMs = ms; }
    int handshakeTimeout() const { return m_handshakeTimeoutMs; }

Q_SIGNALS:
    void connected();
    void textReceived(const QString &message);
    // The connection ended or could not be made. `closeCode` is the close frame's code (1008...),
    // 0 when none came (a cut or refused connection); `reason` names what failed, for people
    // ("closed by the relay (1008: wrong token)", "cannot connect to ws://...").
    void disconnected(int closeCode, const QString &reason);

private:
    int m_handshakeTimeoutMs = 15000;
};

} // namespace slicescope
