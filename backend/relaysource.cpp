// SPDX-License-Identifier: GPL-3.0-or-later
#include "relaysource.h"

#include "logging.h"

#include "sliceactions.h"
#include "websocketclient.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTimer>
#include <QUrlQuery>

namespace slicescope {

// ---- RelaySource -----------------------------------------------------------------------------

RelaySource::RelaySource(const QUrl &url, QObject *parent)
    : Source(parent)
    , m_retry(new QTimer(this))
{
    QString error;
    m_url = relayUrl(url, &error);
    QUrl display = m_url.isValid() ? m_url : url;
    display.setQuery(QString());
    display.setScheme(display.scheme() == QLatin1String("wss") ? QStringLiteral("https") : QStringLiteral("http"));
    display.setPath(QStringLiteral("/"));
    m_display = display.toString(QUrl::RemoveUserInfo | QUrl::RemoveFragment);
    m_retry->setSingleShot(true);
    connect(m_retry, &QTimer::timeout, this, &RelaySource::connectNow);
}

RelaySource::~RelaySource() = default;

QUrl RelaySource::relayUrl(const QUrl &url, QString *error)
{
    auto refuse = [&](const QString &why) {
        if (error)
            *error = why;
        return QUrl();
    };
    if (!url.isValid() || url.host().isEmpty())
        return refuse(QStringLiteral("--relay wants the URL `slicescope serve` printed (http://127.0.0.1:8080/?token=...)"));
    QUrl ws = url;
    const QString scheme = url.scheme();
    if (scheme == QLatin1String("http"))
        ws.setScheme(QStringLiteral("ws"));
    else if (scheme == QLatin1String("https"))
        ws.setScheme(QStringLiteral("wss"));
    else if (scheme != QLatin1String("ws") && scheme != QLatin1String("wss"))
        return refuse(QStringLiteral("--relay wants an http://, https://, ws:// or wss:// URL, not \"%1\"").arg(scheme));
    if (!url.userInfo().isEmpty())
        return refuse(QStringLiteral("--relay: the token goes in the URL's ?token=, not in user info"));
    const QString token = QUrlQuery(url).queryItemValue(relay::kTokenQuery);
    QUrlQuery query;
    if (!token.isEmpty())
        query.addQueryItem(relay::kTokenQuery, token);
    ws.setQuery(query);
    ws.setPath(relay::kPath);
    ws.setFragment(QString());
    return ws;
}

QString RelaySource::description() const
{
    return m_relayedSource.isEmpty() ? tr("relay at %1").arg(m_display) : tr("relay at %1 (%2)").arg(m_display, m_relayedSource);
}

void RelaySource::setBackoff(int firstMs, int maxMs)
{
    m_firstBackoffMs = m_backoffMs = std::max(1, firstMs);
    m_maxBackoffMs = std::max(m_firstBackoffMs, maxMs);
}

void RelaySource::start()
{
    m_stopped = false;
    m_backoffMs = m_firstBackoffMs;
    if (!m_url.isValid()) {
        QString error;
        relayUrl(m_url, &error);
        QTimer::singleShot(0, this, [this, error] { Q_EMIT failed(tr("relay: %1").arg(error)); });
        return;
    }
    connectNow();
}

void RelaySource::stop()
{
    m_stopped = true;
    m_retry->stop();
    const bool wasConnected = isConnected();
    if (m_socket) {
        m_socket->disconnect(this);
        m_socket->close();
        m_socket->deleteLater();
        m_socket = nullptr;
    }
    if (wasConnected)
        Q_EMIT connectionChanged(false);
}

bool RelaySource::isConnected() const
{
    return m_socket && m_socket->isConnected();
}

bool RelaySource::send(const QJsonObject &message)
{
    return isConnected() && m_socket->sendText(QString::fromUtf8(QJsonDocument(message).toJson(QJsonDocument::Compact)));
}

void RelaySource::connectNow()
{
    if (m_stopped)
        return;
    if (m_socket) { // a connection that is being replaced says nothing more
        m_socket->disconnect(this);
        m_socket->close();
        m_socket->deleteLater();
    }
    m_socket = WebSocketClient::create(this);
    m_socket->setHandshakeTimeout(m_handshakeTimeoutMs);
    connect(m_socket, &WebSocketClient::connected, this, [this] {
        // The backoff starts again with the first capture, not here: a relay that accepts and
        // drops at once (or sends what is refused) must not be retried at the first delay forever.
        Q_EMIT connectionChanged(true);
    });
    connect(m_socket, &WebSocketClient::textReceived, this, &RelaySource::onText);
    connect(m_socket, &WebSocketClient::disconnected, this, &RelaySource::onDisconnected);
    qCDebug(lcRelay).noquote() << QStringLiteral("connecting to the relay at %1").arg(m_display);
    m_socket->open(m_url);
}

void RelaySource::onText(const QString &text)
{
    relay::Message m = relay::parseMessage(text.toUtf8());
    if (!m.error.isEmpty()) {
        Q_EMIT failed(tr("relay at %1 sent %2").arg(m_display, m.error));
        return;
    }
    if (m.type == relay::type::Capture) {
        if (m_backoffMs != m_firstBackoffMs)
            qCDebug(lcRelay).noquote() << QStringLiteral("relay at %1: a capture arrived; the reconnect delay is back to %2 ms").arg(m_display).arg(m_firstBackoffMs);
        m_backoffMs = m_firstBackoffMs;
        m_last = m.capture;
        Q_EMIT captureReceived(m_last);
        return;
    }
    if (m.type == relay::type::Hello) {
        const QString protocol = m.object.value(QLatin1String("protocol")).toString();
        if (protocol != relay::kProtocol) {
            Q_EMIT failed(tr("relay at %1 speaks \"%2\"; this SliceScope speaks \"%3\"").arg(m_display, protocol, relay::kProtocol));
            stop();
            return;
        }
        m_relayedSource = m.object.value(QLatin1String("source")).toString();
    } else if (m.type == relay::type::SourceFailed) {
        // The relay keeps serving its last good capture; so does the view.
        Q_EMIT failed(tr("relay at %1: its source failed: %2").arg(m_display, m.object.value(QLatin1String("message")).toString()));
    }
    Q_EMIT messageReceived(m.object);
}

void RelaySource::onDisconnected(int closeCode, const QString &reason)
{
    if (sender() != m_socket)
        return; // a connection already replaced
    m_socket->deleteLater();
    m_socket = nullptr;
    Q_EMIT connectionChanged(false);
    if (m_stopped)
        return;
    // 1008 is the relay refusing this client (token, Host/Origin, address): retrying cannot help.
    if (closeCode == relay::kClosePolicy) {
        qCDebug(lcRelay).noquote() << QStringLiteral("relay at %1 closed the connection with 1008 (policy: %2); not reconnecting").arg(m_display, reason);
        m_stopped = true;
        const bool token = reason.contains(QLatin1String("token"));
        Q_EMIT failed(token ? tr("relay at %1 refused the access token: %2; open the URL `slicescope serve` printed, with its ?token=").arg(m_display, reason)
                            : tr("relay at %1 refused this client: %2").arg(m_display, reason));
        return;
    }
    Q_EMIT failed(tr("relay at %1 is gone: %2; retrying in %3 s, showing the last capture meanwhile")
                      .arg(m_display, reason)
                      .arg(double(m_backoffMs) / 1000.0, 0, 'f', 1));
    qCDebug(lcRelay).noquote() << QStringLiteral("relay at %1: the connection closed (code %2: %3); reconnecting in %4 ms").arg(m_display).arg(closeCode).arg(reason).arg(m_backoffMs);
    m_retry->start(m_backoffMs);
    m_backoffMs = std::min(m_maxBackoffMs, m_backoffMs * 2);
}

// ---- RelayClusterActions ---------------------------------------------------------------------

RelayClusterActions::RelayClusterActions(RelaySource *source, QObject *parent)
    : ClusterActions(parent)
    , m_source(source)
{
    connect(source, &RelaySource::messageReceived, this, &RelayClusterActions::onMessage);
    connect(source, &RelaySource::connectionChanged, this, &RelayClusterActions::onConnectionChanged);
}

QString RelayClusterActions::unavailableReason() const
{
    if (!m_source || !m_source->isConnected())
        return tr("the relay is not connected");
    if (m_state.isEmpty())
        return tr("waiting for the relay to say what it can do");
    return m_state.value(QLatin1String("unavailableReason")).toString();
}

QString RelayClusterActions::describeSubmission(const SlicePlacementRequest &request) const
{
    // The request exactly as the slice driver receives it (the same code builds it on both
    // sides); the relay runs it the way its own source does.
    const QString via = m_source ? m_source->relayedSourceDescription() : QString();
    return tr("Through the relay at %1, whose source (%2) runs:\n%3")
        .arg(m_source ? m_source->description() : QString(), via.isEmpty() ? tr("unknown yet") : via,
             describeSliceJob(request, tr("the SliceScope slice driver, as the relay's source submits it")));
}

QString RelayClusterActions::describeRelease(const ClusterSnapshot &, const PlacementGroup &group) const
{
    const QJsonObject releases = m_state.value(QLatin1String("releases")).toObject();
    const QJsonValue described = releases.value(group.id).toObject().value(QLatin1String("describe"));
    if (described.isString())
        return described.toString();
    return tr("The relay releases placement group %1 the way its source does (it did not describe this group yet).")
        .arg(group.name.isEmpty() ? group.id : group.name);
}

bool RelayClusterActions::createdBySliceScope(const ClusterSnapshot &, const PlacementGroup &group) const
{
    const QJsonObject releases = m_state.value(QLatin1String("releases")).toObject();
    const QJsonValue created = releases.value(group.id).toObject().value(QLatin1String("createdBySliceScope"));
    if (created.isBool())
        return created.toBool();
    return m_source && jobCreatedBySliceScope(m_source->lastCapture().rayJobs, group.creatorJobId);
}

QString RelayClusterActions::scaleUnavailableReason(const WorkerGroup &group) const
{
    if (const QString why = unavailableReason(); !why.isEmpty() && m_state.isEmpty())
        return why;
    if (!m_source || !m_source->isConnected())
        return tr("the relay is not connected");
    const QJsonValue reason = m_state.value(QLatin1String("scale")).toObject().value(group.qualifiedName());
    if (reason.isUndefined())
        return tr("the relay has not said whether %1 may be scaled").arg(group.qualifiedName());
    return reason.toString();
}

void RelayClusterActions::sendAction(const QString &actionId, QJsonObject message)
{
    message.insert(QStringLiteral("id"), actionId);
    // The callers ask the operator before they call (ClusterActions' contract); the relay refuses
    // an action without this flag.
    message.insert(QStringLiteral("confirmed"), true);
    if (!m_source || !m_source->send(message)) {
        QTimer::singleShot(0, this, [this, actionId] {
            Q_EMIT actionFinished(actionId, false, tr("the relay is not connected; nothing was sent"));
        });
        return;
    }
    m_pending.insert(actionId);
}

void RelayClusterActions::submitSlicePlacementGroup(const QString &actionId, const SlicePlacementRequest &request)
{
    sendAction(actionId, {{QStringLiteral("type"), relay::type::Submit}, {QStringLiteral("request"), relay::toJson(request)}});
}

void RelayClusterActions::releasePlacementGroup(const QString &actionId, const QString &nameOrId, bool force)
{
    sendAction(actionId, {{QStringLiteral("type"), relay::type::Release}, {QStringLiteral("nameOrId"), nameOrId}, {QStringLiteral("force"), force}});
}

void RelayClusterActions::scaleWorkerGroup(const QString &actionId, const ScalePlan &plan)
{
    // The relay re-derives the plan from a snapshot it served and carries it out only when its
    // JSON Patch (with its test ops) is exactly the one the operator reviewed.
    sendAction(actionId, {
                             {QStringLiteral("type"), relay::type::Scale},
                             {QStringLiteral("workerGroup"), plan.group.qualifiedName()},
                             {QStringLiteral("context"), plan.group.context}, // added member: which one in a fleet
                             {QStringLiteral("toReplicas"), plan.toReplicas},
                             {QStringLiteral("toMin"), plan.toMin},
                             {QStringLiteral("toMax"), plan.toMax},
                             {QStringLiteral("slicesRemoved"), QJsonArray::fromStringList(plan.slicesRemoved)},
                             {QStringLiteral("patch"), QString::fromUtf8(plan.jsonPatch())},
                             {QStringLiteral("summary"), plan.summary},
                         });
}

void RelayClusterActions::onMessage(const QJsonObject &message)
{
    const QString type = message.value(QLatin1String("type")).toString();
    const QString id = message.value(QLatin1String("id")).toString();
    if (type == relay::type::Actions) {
        m_state = message;
        Q_EMIT availabilityChanged();
    } else if (type == relay::type::Progress) {
        Q_EMIT actionProgress(id, message.value(QLatin1String("text")).toString());
    } else if (type == relay::type::JobSubmitted) {
        Q_EMIT actionJobSubmitted(id, message.value(QLatin1String("submissionId")).toString());
    } else if (type == relay::type::Finished) {
        m_pending.remove(id);
        Q_EMIT actionFinished(id, message.value(QLatin1String("ok")).toBool(), message.value(QLatin1String("message")).toString());
    } else if (type == relay::type::Conflict) {
        m_pending.remove(id);
        QStringList changes;
        for (const QJsonValue &v : message.value(QLatin1String("changes")).toArray())
            changes << v.toString();
        Q_EMIT actionConflict(id, changes, message.value(QLatin1String("message")).toString());
    } else if (type == relay::type::Error && !id.isEmpty()) {
        m_pending.remove(id);
        Q_EMIT actionFinished(id, false, tr("the relay refused the action: %1").arg(message.value(QLatin1String("message")).toString()));
    }
}

void RelayClusterActions::onConnectionChanged(bool connected)
{
    if (connected) {
        Q_EMIT availabilityChanged();
        return;
    }
    m_state = {};
    // The relay carries on with what it started, but its replies went to the old connection.
    const QStringList ids = m_pending.values();
    m_pending.clear();
    for (const QString &id : ids)
        Q_EMIT actionFinished(id, false, tr("the connection to the relay was lost; the outcome is unknown here: look at the cluster"));
    Q_EMIT availabilityChanged();
}

} // namespace slicescope
