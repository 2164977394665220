// SPDX-License-Identifier: GPL-3.0-or-later
// The desktop WebSocketClient: QtWebSockets. (The browser build has websocketclient_wasm.cpp.)
#include "websocketclient.h"

#include <QTimer>
#include <QWebSocket>

namespace slicescope {

namespace {

// A capture of a 10k-node cluster is ~20-40 MB; the bound matches RayClient's body bound. The
// frame bound too: a frame's header says its length, so a larger one is refused before its
// payload is read (the message bound alone is checked only as the payload arrives).
constexpr qint64 kMaxIncomingMessageBytes = qint64(256) << 20;

class QtWebSocketClient : public WebSocketClient
{
public:
    explicit QtWebSocketClient(QObject *parent)
        : WebSocketClient(parent)
    { }
    ~QtWebSocketClient() override { close(); }

    void open(const QUrl &url) override
    {
        close();
        m_url = url;
        m_socket = new QWebSocket(QString(), QWebSocketProtocol::VersionLatest, this);
        m_socket->setMaxAllowedIncomingMessageSize(quint64(kMaxIncomingMessageBytes));
        m_socket->setMaxAllowedIncomingFrameSize(quint64(kMaxIncomingMessageBytes));
        // Qt 6.4's QWebSocket has no handshake timeout: an upgrade nobody answers would wait forever.
        auto *handshake = new QTimer(m_socket);
        handshake->setSingleShot(true);
        connect(handshake, &QTimer::timeout, this, [this, socket = m_socket] {
            if (socket == m_socket && !m_connected)
                ended(socket, tr("no WebSocket handshake from %1 within %2 s").arg(displayUrl()).arg(double(handshakeTimeout()) / 1000.0));
        });
        handshake->start(handshakeTimeout());
        connect(m_socket, &QWebSocket::connected, handshake, &QTimer::stop);
        connect(m_socket, &QWebSocket::connected, this, [this] {
            m_connected = true;
            Q_EMIT connected();
        });
        connect(m_socket, &QWebSocket::textMessageReceived, this, &WebSocketClient::textReceived);
        // closeCode() reads CloseCodeNormal also after a cut without a close frame (Qt 6.4's
        // initial value): only aboutToClose() says a closing handshake happened.
        m_closing = false;
        connect(m_socket, &QWebSocket::aboutToClose, this, [this] { m_closing = true; });
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
    void ended(QWebSocket *socket, const QString &timedOut = QString())
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
        if (!timedOut.isEmpty())
            socket->abort();
        socket->deleteLater();
        QString reason;
        int frameCode = 0;
        if (!timedOut.isEmpty()) {
            Q_EMIT disconnected(0, timedOut);
            return;
        }
        // A close frame from the server carries why; a cut connection only the socket's error.
        if (wasConnected && m_closing
            && (code == QWebSocketProtocol::CloseCodeWrongDatatype || code == QWebSocketProtocol::CloseCodeTooMuchData)) {
            // Qt closed it itself: what the relay sent was not UTF-8, or past the size bound.
            frameCode = code;
            reason = tr("closed: what the relay sent was refused (%1%2)").arg(code).arg(closeReason.isEmpty() ? QString() : QStringLiteral(": ") + closeReason);
        } else if (wasConnected && !m_closing) {
            reason = tr("the connection to %1 was cut (%2)").arg(displayUrl(), error);
        } else if (wasConnected && code != QWebSocketProtocol::CloseCodeNormal && code != QWebSocketProtocol::CloseCodeAbnormalDisconnection) {
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
    bool m_closing = false; // a closing handshake began (a close frame, sent or received)
};

} // namespace

WebSocketClient *WebSocketClient::create(QObject *parent)
{
    return new QtWebSocketClient(parent);
}

} // namespace slicescope
