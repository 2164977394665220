// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The client side of the relay (docs/relay-protocol.md): a Source whose captures come from a
// `slicescope serve` relay over one WebSocket, and the ClusterActions that ask that relay to act.
// Used by the browser build (where Ray and Kubernetes cannot be reached directly, docs/facts.md 1.4)
// and by the desktop's `--relay URL`. Built for WebAssembly too: it talks only through
// WebSocketClient.

#include "clusteractions.h"
#include "relayprotocol.h"
#include "source.h"

#include <QSet>
#include <QJsonObject>
#include <QPointer>
#include <QUrl>

class QTimer;

namespace slicescope {

class WebSocketClient;

class RelaySource : public Source
{
    Q_OBJECT
public:
    // `url` is what `slicescope serve` prints (http://host:port/?token=...), or the WebSocket
    // URL itself (ws://host:port/relay?token=...). In the browser, the page's own URL.
    explicit RelaySource(const QUrl &url, QObject *parent = nullptr);
    ~RelaySource() override;

    // The relay's WebSocket URL for `url`; empty and `error` set when it is not one.
    static QUrl relayUrl(const QUrl &url, QString *error = nullptr);

    QString description() const override;
    void start() override;
    void stop();

    bool isConnected() const;
    // Sends one client message (an action); false when the relay is not connected.
    bool send(const QJsonObject &message);
    // The newest capture relayed (for the actions' describe texts).
    const Capture &lastCapture() const { return m_last; }
    // What the relay said of its source in its hello ("demo cluster", "Ray at ...").
    QString relayedSourceDescription() const { return m_relayedSource; }

    // Reconnect delays: first, and the cap it doubles up to.
    void setBackoff(int firstMs, int maxMs);
    // How long a connection's WebSocket handshake may take (default 15 s); then it counts as gone.
    void setHandshakeTimeout(int ms) { m_handshakeTimeoutMs = ms; }

Q_SIGNALS:
    // Every message other than a capture (actions state, action replies), for RelayClusterActions.
    void messageReceived(const QJsonObject &message);
    void connectionChanged(bool connected);

private:
    void connectNow();
    void onText(const QString &text);
    void onDisconnected(int closeCode, const QString &reason);

    QUrl m_url;          // the WebSocket URL, token included: never shown
    QString m_display;   // the relay's URL without the token
    WebSocketClient *m_socket = nullptr;
    QTimer *m_retry = nullptr;
    Capture m_last;
    QString m_relayedSource;
    int m_firstBackoffMs = 1000, m_maxBackoffMs = 30000, m_backoffMs = 1000;
    int m_handshakeTimeoutMs = 15000;
    bool m_stopped = true;
};

// Forwards actions to the relay, which carries them out with its own source's ClusterActions
// (the demo simulator, Ray jobs, Kubernetes patches) and the same checks; replies come back as
// this class's signals. Each action carries "confirmed": true, which callers (the composer, the
// scale dialog) earn by asking the operator first, as on the desktop.
class RelayClusterActions : public ClusterActions
{
    Q_OBJECT
public:
    explicit RelayClusterActions(RelaySource *source, QObject *parent = nullptr);

    QString unavailableReason() const override;
    QString describeSubmission(const SlicePlacementRequest &request) const override;
    QString describeRelease(const ClusterSnapshot &snapshot, const PlacementGroup &group) const override;
    bool createdBySliceScope(const ClusterSnapshot &snapshot, const PlacementGroup &group) const override;
    void submitSlicePlacementGroup(const QString &actionId, const SlicePlacementRequest &request) override;
    void releasePlacementGroup(const QString &actionId, const QString &nameOrId, bool force) override;
    QString scaleUnavailableReason(const WorkerGroup &group) const override;
    void scaleWorkerGroup(const QString &actionId, const ScalePlan &plan) override;

private:
    void onMessage(const QJsonObject &message);
    void onConnectionChanged(bool connected);
    void sendAction(const QString &actionId, QJsonObject message);

    QPointer<RelaySource> m_source;
    QJsonObject m_state;            // the relay's last "actions" message
    QSet<QString> m_pending; // action ids sent and not finished
};

} // namespace slicescope
