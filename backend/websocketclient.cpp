// SPDX-License-Identifier: GPL-3.0-or-later
// The desktop WebSocketClient: QtWebSockets. (The browser build has websocketclient_wasm.cpp.)
#include "websocketclient.h"

#include <QWebSocket>

namespace slicescope {

namespace {

constexpr qint64 kMaxIncomingMessageBytes = qint64(512) << 20; // a capture of a very large cluster, with room

class QtWebSocketClient : public WebSocketClient
{
public:
    explicit QtWebSocketClient(QObject *parent) : WebSocketClient(parent) {}
    ~QtWebSocketClient() override { close(); }

    void open(const QUrl &url) override
    {
        close();
        m_url = url;
        m_socket = new QWebSocket(QString(), QWebSocketProtocol::VersionLatest, this);
        m_socket->setMaxAllowedIncomingMessageSize(quint64(kMaxIncomingMessageBytes));
        connect(m_socket, &QWebSocket::connected, this, [this] {
            m_connected = true;
            Q_EMIT connected();
        });
        connect(m_socket, &QWebSocket::textMessageReceived, this, &WebSocketClient::textReceived);
        connect(m_socket, &QWebSocket::disconnected, this, [this, socket = m_socket] { ended(socket); });
        // A refused connection or a failed handshake may come without disconnected().
        connect(m_socket, qOverload<QAbstractSocket::SocketError>(&QWebSocket::error), this, [this, socket = m_socket](QAbstractSocket::SocketError) {
            if (!m_connected)
                QMetaObject::invokeMethod(this, [this, socket] { ended(socket); }, Qt::QueuedConnection);
        });
        m_socket->open(url);
    }

    void close() override
    {
        if (!m_socket)
            return;
        QWebSocket *socket = m_socket;
        m_socket = nullptr;
        m_connected = false;
        socket->disconnect(this);
        socket->close();
        socket->deleteLater();
    }

    bool sendText(const QString &message) override
    {
        return m_socket && m_connected && m_socket->sendTextMessage(message) > 0;
    }

    bool isConnected() const override { return m_socket && m_connected; }

private:
    void ended(QWebSocket *socket)
    {
        if (socket != m_socket)
            return;
        const bool wasConnected = m_connected;
        const int code = socket->closeCode();
        const QString closeReason = socket->closeReason();
        const QString error = socket->errorString();
        m_socket = nullptr;
        m_connected = false;
        socket->disconnect(this);
        socket->deleteLater();
        QString reason;
        int frameCode = 0;
        // A close frame from the server carries why; a cut connection only the socket's error.
        if (wasConnected && code != QWebSocketProtocol::CloseCodeNormal && code != QWebSocketProtocol::CloseCodeAbnormalDisconnection) {
            frameCode = code;
            reason = tr("closed by the relay (%1%2)").arg(code).arg(closeReason.isEmpty() ? QString() : QStringLiteral(": ") + closeReason);
        } else if (wasConnected && code == QWebSocketProtocol::CloseCodeNormal) {
            frameCode = code;
            reason = tr("closed by the relay");
        } else if (wasConnected) {
            reason = tr("the connection to %1 was cut (%2)").arg(displayUrl(), error);
        } else {
            reason = tr("cannot connect to %1 (%2)").arg(displayUrl(), error);
        }
        Q_EMIT disconnected(frameCode, reason);
    }

    // The URL without its query: the token never reaches a message.
    QString displayUrl() const { return m_url.toString(QUrl::RemoveQuery | QUrl::RemoveUserInfo | QUrl::RemoveFragment); }

    QWebSocket *m_socket = nullptr;
    QUrl m_url;
    bool m_connected = false;
};

} // namespace

WebSocketClient *WebSocketClient::create(QObject *parent)
{
    return new QtWebSocketClient(parent);
}

} // namespace slicescope
