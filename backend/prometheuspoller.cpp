// SPDX-License-Identifier: GPL-3.0-or-later
#include "prometheuspoller.h"

#include "activity.h"
#include "boundedfile.h"
#include "logging.h"
#include "netguard.h"
#include "rayclient.h" // slicescopeUserAgent()

#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>

#include <algorithm>

namespace slicescope {

namespace {
// An answer for 10k hosts x 4 chips x 5 series is ~40 MB of JSON; more is refused.
constexpr qint64 kMaxAnswerBytes = qint64(128) << 20;
} // namespace

PrometheusPoller::PrometheusPoller(const QUrl &url, QObject *parent)
    : QObject(parent)
    , m_url(url.adjusted(QUrl::RemoveUserInfo | QUrl::RemoveQuery | QUrl::RemoveFragment | QUrl::StripTrailingSlash))
{
    m_ownManager = new QNetworkAccessManager(this);
    m_manager = m_ownManager;
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &PrometheusPoller::startRound);
}

PrometheusPoller::~PrometheusPoller()
{
    stop();
}

QString PrometheusPoller::readTokenFile(const QString &path, QByteArray &token)
{
    return readBearerTokenFile(path, QStringLiteral("--prometheus-token-file %1").arg(path), QStringLiteral("token"), token);
}

void PrometheusPoller::setNetworkAccessManager(QNetworkAccessManager *manager)
{
    m_manager = manager ? manager : m_ownManager;
}

QString PrometheusPoller::displayUrl() const
{
    return m_url.toDisplayString(QUrl::RemoveUserInfo | QUrl::StripTrailingSlash);
}

void PrometheusPoller::start()
{
    if (m_pending == 0 && !m_timer.isActive())
        startRound();
}

void PrometheusPoller::stop()
{
    m_timer.stop();
    ++m_round; // answers still on the way are dropped
    m_pending = 0;
    for (const QPointer<QNetworkReply> &reply : std::as_const(m_replies)) {
        if (reply) {
            reply->disconnect(this);
            reply->abort();
            reply->deleteLater();
        }
    }
    m_replies.clear();
}

QUrl PrometheusPoller::queryUrl(const QString &query) const
{
    QUrl url = m_url;
    url.setPath(url.path() + QStringLiteral("/api/v1/query"));
    url.setQuery(QStringLiteral("query=") + QString::fromLatin1(QUrl::toPercentEncoding(query)));
    return url;
}

void PrometheusPoller::startRound()
{
    const quint64 round = ++m_round;
    QStringList queries{QLatin1String(promql::kRayTpu), QLatin1String(promql::kDevicePlugin)};
    if (m_windowSeconds > 0)
        queries << promql::windowMaxQuery(m_windowSeconds);
    m_inFlight.clear();
    m_roundError.clear();
    m_replies.clear();
    m_pending = int(queries.size());
    for (int i = 0; i < queries.size(); ++i) {
        m_inFlight.append({queries[i], {}});
        QNetworkRequest request(queryUrl(queries[i]));
        request.setHeader(QNetworkRequest::UserAgentHeader, slicescopeUserAgent());
        request.setRawHeader("Accept", "application/json");
        if (!m_token.isEmpty())
            request.setRawHeader("Authorization", QByteArrayLiteral("Bearer ") + m_token);
        request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
        request.setAttribute(QNetworkRequest::CacheLoadControlAttribute, QNetworkRequest::AlwaysNetwork);
        QNetworkAccessManager *manager = m_manager ? m_manager.data() : m_ownManager;
        QNetworkReply *reply = manager->get(request);
        RequestBounds bounds = requestBounds(netlimits::kIdleTimeout, netlimits::kConnectTimeout, m_deadline);
        bounds.maxBody = kMaxAnswerBytes;
        guardReply(reply, bounds);
        m_replies.append(reply);
        connect(reply, &QNetworkReply::finished, this, [this, reply, round, i] { onFinished(reply, round, i); });
    }
}

QString PrometheusPoller::describeFailure(QNetworkReply *reply, int status) const
{
    const QString where = QStringLiteral("Prometheus %1").arg(displayUrl());
    if (const QString ours = abortReason(reply); !ours.isEmpty())
        return QStringLiteral("%1: %2").arg(where, ours);
    if (const QString refused = describeRefusedOrCut(reply, status, bytesReceived(reply), netlimits::kIdleTimeout); !refused.isEmpty())
        return QStringLiteral("%1: %2").arg(where, refused);
    if (status == 401 || status == 403) {
        if (m_token.isEmpty())
            return QStringLiteral("%1: HTTP %2: the server wants a token and none was given: pass --prometheus-token-file F").arg(where).arg(status);
        return QStringLiteral("%1: HTTP %2: the server did not accept the token from %3").arg(where).arg(status).arg(m_tokenOrigin.isEmpty() ? QStringLiteral("the token file") : m_tokenOrigin);
    }
    if (status != 0) {
        const QString body = sanitizeForMessage(QString::fromUtf8(reply->readAll().left(2048)).simplified(), 200);
        return QStringLiteral("%1: HTTP %2%3").arg(where).arg(status).arg(body.isEmpty() ? QString() : QStringLiteral(" (the server said \"%1\")").arg(body));
    }
    if (reply->error() == QNetworkReply::ConnectionRefusedError)
        return QStringLiteral("%1: connection refused: is Prometheus running there?").arg(where);
    return QStringLiteral("%1: %2").arg(where, sanitizeForMessage(reply->errorString(), 200));
}

void PrometheusPoller::onFinished(QNetworkReply *reply, quint64 round, int index)
{
    reply->deleteLater();
    if (round != m_round)
        return;
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    // Prometheus answers a bad query with 400 and an error JSON body: the join explains that body.
    const bool jsonError = (status == 400 || status == 422 || status == 503) && reply->error() != QNetworkReply::OperationCanceledError;
    if ((reply->error() == QNetworkReply::NoError || jsonError) && status >= 200 && status < 600 && abortReason(reply).isEmpty()) {
        QByteArray body = reply->readAll();
        if (jsonError && !body.trimmed().startsWith('{')) {
            if (m_roundError.isEmpty())
                m_roundError = QStringLiteral("Prometheus %1: HTTP %2").arg(displayUrl()).arg(status);
        } else {
            reserveParsePadding(body);
            m_inFlight[index].body = std::move(body);
        }
    } else if (m_roundError.isEmpty()) {
        m_roundError = describeFailure(reply, status);
    }
    if (--m_pending > 0)
        return;
    ++m_rounds;
    const bool wasFailing = !m_error.isEmpty();
    if (m_roundError.isEmpty()) {
        m_answers = std::move(m_inFlight);
        m_error.clear();
        if (wasFailing)
            qCDebug(lcRay).noquote() << QStringLiteral("Prometheus %1 answers again").arg(displayUrl());
    } else {
        m_error = m_roundError; // the answers before stay: their samples age and go stale
        qCDebug(lcRay).noquote() << QStringLiteral("%1; keeping the answers of the round before, next try in %2 ms").arg(m_error).arg(m_interval.count());
    }
    m_inFlight.clear();
    m_replies.clear();
    Q_EMIT updated();
    m_timer.start(m_interval);
}

void PrometheusPoller::attachTo(Capture &capture) const
{
    capture.prometheusUrl = displayUrl();
    capture.prometheus = m_answers;
    capture.prometheusError = m_error;
}

} // namespace slicescope
