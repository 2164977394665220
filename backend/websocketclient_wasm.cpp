// SPDX-License-Identifier: GPL-3.0-or-later
// WebSocketClient for the browser build: the browser's own WebSocket through emscripten's
// <emscripten/websocket.h> (linked with -lwebsocket.js), since Qt's WebSockets module is not
// available for WebAssembly here (docs/facts.md 5). The browser calls the callbacks from its event loop,
// outside any Qt event dispatch; each one is posted into Qt's event loop (a queued call), so the
// signals arrive like any other Qt event and a slot may close or delete the client freely.

#include "websocketclient.h"

#include <emscripten/websocket.h>

namespace slicescope {

namespace {

class EmscriptenWebSocketClient final : public WebSocketClient
{
public:
    explicit EmscriptenWebSocketClient(QObject *parent)
        : WebSocketClient(parent)
    { }
    ~EmscriptenWebSocketClient() override { release(); }

    void open(const QUrl &url) override
    {
        release();
        // Messages name the relay, never the token in its query.
        m_display = url.adjusted(QUrl::RemoveQuery | QUrl::RemoveUserInfo).toString();
        const QByteArray address = url.toString(QUrl::FullyEncoded).toUtf8();
        EmscriptenWebSocketCreateAttributes attributes;
        emscripten_websocket_init_create_attributes(&attributes);
        attributes.url = address.constData();
        attributes.protocols = nullptr;
        attributes.createOnMainThread = EM_TRUE;
        const EMSCRIPTEN_WEBSOCKET_T socket = emscripten_websocket_new(&attributes);
        const quint64 generation = ++m_generation;
        if (socket <= 0) {
            post(generation, [this] { finish(0, QStringLiteral("cannot connect to %1 (the browser refused the address)").arg(m_display)); });
            return;
        }
        m_socket = socket;
        emscripten_websocket_set_onopen_callback(socket, this, &EmscriptenWebSocketClient::onOpen);
        emscripten_websocket_set_onmessage_callback(socket, this, &EmscriptenWebSocketClient::onMessage);
        emscripten_websocket_set_onerror_callback(socket, this, &EmscriptenWebSocketClient::onError);
        emscripten_websocket_set_onclose_callback(socket, this, &EmscriptenWebSocketClient::onClose);
    }

    void close() override { release(); }

    bool sendText(const QString &message) override
    {
        if (!m_connected)
            return false;
        const QByteArray utf8 = message.toUtf8();
        return emscripten_websocket_send_utf8_text(m_socket, utf8.constData()) == EMSCRIPTEN_RESULT_SUCCESS;
    }

    bool isConnected() const override { return m_connected; }

private:
    // Runs `work` from Qt's event loop, unless the connection it belongs to has been closed or
    // replaced by then (or the client deleted).
    template<typename Work>
    void post(quint64 generation, Work work)
    {
        QMetaObject::invokeMethod(
            this, [this, generation, work = std::move(work)] {
                if (generation == m_generation)
                    work();
            },
            Qt::QueuedConnection);
    }

    void finish(int closeCode, const QString &reason)
    {
        release();
        Q_EMIT disconnected(closeCode, reason);
    }

    // Forgets the socket: no callback reaches this object afterwards.
    void release()
    {
        ++m_generation;
        m_connected = false;
        if (m_socket > 0) {
            unsigned short state = 0;
            emscripten_websocket_get_ready_state(m_socket, &state);
            if (state == 0 /* CONNECTING */ || state == 1 /* OPEN */)
                emscripten_websocket_close(m_socket, 1000, "");
            emscripten_websocket_delete(m_socket); // also drops the callbacks
            m_socket = 0;
        }
    }

    static EM_BOOL onOpen(int, const EmscriptenWebSocketOpenEvent *, void *user)
    {
        auto *self = static_cast<EmscriptenWebSocketClient *>(user);
        self->post(self->m_generation, [self] {
            self->m_connected = true;
            Q_EMIT self->connected();
        });
        return EM_TRUE;
    }

    static EM_BOOL onMessage(int, const EmscriptenWebSocketMessageEvent *event, void *user)
    {
        auto *self = static_cast<EmscriptenWebSocketClient *>(user);
        if (!event->isText)
            return EM_TRUE; // the relay speaks text only
        // The browser's buffer is freed when this returns: copy it. Its length counts a final NUL.
        qsizetype length = qsizetype(event->numBytes);
        if (length > 0 && event->data[length - 1] == 0)
            --length;
        const QString text = QString::fromUtf8(reinterpret_cast<const char *>(event->data), length);
        self->post(self->m_generation, [self, text] { Q_EMIT self->textReceived(text); });
        return EM_TRUE;
    }

    static EM_BOOL onError(int, const EmscriptenWebSocketErrorEvent *, void *)
    {
        return EM_TRUE; // the browser says nothing more; a close event with the code follows
    }

    static EM_BOOL onClose(int, const EmscriptenWebSocketCloseEvent *event, void *user)
    {
        auto *self = static_cast<EmscriptenWebSocketClient *>(user);
        const unsigned short code = event->code;
        const QString said = QString::fromUtf8(event->reason);
        self->post(self->m_generation, [self, code, said] {
            QString reason;
            const bool frame = self->m_connected && code != 1006; // 1006: no close frame came
            if (!self->m_connected)
                reason = QStringLiteral("cannot connect to %1").arg(self->m_display);
            else if (code == 1006)
                reason = QStringLiteral("the connection to %1 was cut").arg(self->m_display);
            else
                reason = said.isEmpty() ? QStringLiteral("closed by the relay (%1)").arg(code)
                                        : QStringLiteral("closed by the relay (%1: %2)").arg(code).arg(said);
            self->finish(frame ? code : 0, reason);
        });
        return EM_TRUE;
    }

    EMSCRIPTEN_WEBSOCKET_T m_socket = 0;
    quint64 m_generation = 0;
    bool m_connected = false;
    QString m_display;
};

} // namespace

WebSocketClient *WebSocketClient::create(QObject *parent)
{
    return new EmscriptenWebSocketClient(parent);
}

} // namespace slicescope
