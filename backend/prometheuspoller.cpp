// SPDX-License-Identifier: GPL-3.0-or-later
#include "prometheuspoller.h"

#include "activity.h"
#include "boundedfile.h"
#include "jsonlocate.h"
#include "logging.h"
#include "netguard.h"
#include "rayclient.h" // slicescopeUserAgent()

#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>

#include <algorithm>

namespace slicescope {

namespace {
// An answer for 10k hosts x 4 chips x 5 series is ~40 MB of JSON (with only the labels the join
// reads, about a quarter of that): the answers of one round together may take this much, no more.
constexpr qint64 kMaxRoundBytes = qint64(128) << 20;
// What Qt may hold for one reply before this side reads it. The bound is checked on every read,
// so a round stops at most this much past it (Qt's HTTP thread stops reading the socket while the
// buffer is full: a server that sends faster waits).
constexpr qint64 kReadBufferBytes = qint64(1) << 20;
} // namespace

qint64 PrometheusPoller::maxRoundBytes()
{
    return kMaxRoundBytes;
}

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
    m_roundBytes = 0;
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
        // The body's bound is kept here, on every read (guardReply() bounds one body, with a read
        // buffer of twice it): Qt's buffer stays small and the round's bytes are counted as they come.
        guardReply(reply, requestBounds(netlimits::kIdleTimeout, netlimits::kConnectTimeout, m_deadline));
        reply->setReadBufferSize(kReadBufferBytes);
        m_replies.append(reply);
        connect(reply, &QNetworkReply::metaDataChanged, this, [this, reply, round] {
            bool known = false;
            const qint64 length = reply->header(QNetworkRequest::ContentLengthHeader).toLongLong(&known);
            if (round == m_round && known && m_roundBytes + length > kMaxRoundBytes)
                abortReply(reply, QStringLiteral("the answer is larger than %1 (its Content-Length is %2 bytes; the bound on one round's answers); not read")
                                      .arg(describeByteCount(kMaxRoundBytes))
                                      .arg(length));
        });
        connect(reply, &QNetworkReply::readyRead, this, [this, reply, round, i] { onReadyRead(reply, round, i); });
        connect(reply, &QNetworkReply::finished, this, [this, reply, round, i] { onFinished(reply, round, i); });
    }
}

void PrometheusPoller::onReadyRead(QNetworkReply *reply, quint64 round, int index)
{
    if (round != m_round || !abortReason(reply).isEmpty())
        return;
    const QByteArray chunk = reply->readAll();
    m_roundBytes += chunk.size();
    QByteArray &body = m_inFlight[index].body;
    if (m_roundBytes > kMaxRoundBytes) {
        const qint64 had = body.size() + chunk.size();
        body = QByteArray(); // let go before the abort: finished() may end the round inside it
        abortReply(reply, QStringLiteral("the answer passed %1 (the bound on one round's answers) after %2 bytes of it; stopped reading")
                              .arg(describeByteCount(kMaxRoundBytes))
                              .arg(had));
        return;
    }
    body.append(chunk);
}

void PrometheusPoller::abortOthers(quint64 round)
{
    if (round != m_round)
        return;
    const QList<QPointer<QNetworkReply>> replies = m_replies; // abort() finishes a reply at once
    for (const QPointer<QNetworkReply> &reply : replies)
        if (reply && reply->isRunning())
            abortReply(reply, QStringLiteral("not needed: another query of the round failed"));
}

QString PrometheusPoller::describeFailure(QNetworkReply *reply, int status, const QByteArray &body) const
{
    const QString where = QStringLiteral("Prometheus %1").arg(displayUrl());
    if (const QString ours = abortReason(reply); !ours.isEmpty())
        return QStringLiteral("%1: %2").arg(where, ours);
    if (const QString refused = describeRefusedOrCut(reply, status, bytesReceived(reply), netlimits::kIdleTimeout); !refused.isEmpty()) {
        if (status >= 300 && status <= 399) // what an authenticating proxy in front of Prometheus answers
            return QStringLiteral("%1: %2; not followed: give --prometheus the URL Prometheus itself answers on (a proxy in front of it that "
                                  "wants a login redirects)")
                .arg(where, refused);
        return QStringLiteral("%1: %2").arg(where, refused);
    }
    if (status == 401 || status == 403) {
        if (m_token.isEmpty())
            return QStringLiteral("%1: HTTP %2: the server wants a token and none was given: pass --prometheus-token-file F").arg(where).arg(status);
        return QStringLiteral("%1: HTTP %2: the server did not accept the token from %3").arg(where).arg(status).arg(m_tokenOrigin.isEmpty() ? QStringLiteral("the token file") : m_tokenOrigin);
    }
    if (status != 0) {
        const QString said = sanitizeForMessage(QString::fromUtf8(body.left(2048)).simplified(), 200);
        return QStringLiteral("%1: HTTP %2%3").arg(where).arg(status).arg(said.isEmpty() ? QString() : QStringLiteral(" (the server said \"%1\")").arg(said));
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
    if (abortReason(reply).isEmpty())
        onReadyRead(reply, round, index); // what is left, if finished() came first
    QByteArray body = std::move(m_inFlight[index].body);
    m_inFlight[index].body = QByteArray();
    // Prometheus answers a bad query with 400 and an error JSON body: the join explains that body.
    const bool jsonError = (status == 400 || status == 422 || status == 503) && reply->error() != QNetworkReply::OperationCanceledError;
    // Only a 2xx is an answer: a 3xx (redirects are not followed) is a failure, never an empty success.
    const bool answered = (reply->error() == QNetworkReply::NoError && status >= 200 && status <= 299) || jsonError;
    const bool firstError = m_roundError.isEmpty();
    if (answered && abortReason(reply).isEmpty()) {
        if (jsonError && !body.trimmed().startsWith('{')) {
            if (m_roundError.isEmpty())
                m_roundError = describeFailure(reply, status, body);
        } else if (body.isEmpty()) {
            if (m_roundError.isEmpty())
                m_roundError = QStringLiteral("Prometheus %1: HTTP %2 with an empty body (expected the query's JSON answer)").arg(displayUrl()).arg(status);
        } else if (const QString notJson = describeNonJson(body.constData(), body.size()); !notJson.isEmpty()) {
            // A sign-in page, a proxy's error text: said here, and never stored, since a capture
            // keeps its bodies as JSON (a recording holding it could not be read back).
            if (m_roundError.isEmpty())
                m_roundError = QStringLiteral("Prometheus %1: HTTP %2: the answer is not JSON (%3)").arg(displayUrl()).arg(status).arg(notJson);
        } else {
            reserveParsePadding(body);
            m_inFlight[index].body = std::move(body);
        }
    } else if (m_roundError.isEmpty()) {
        m_roundError = describeFailure(reply, status, body);
    }
    if (--m_pending > 0) {
        if (firstError && !m_roundError.isEmpty()) // the round has failed: the others' bytes are not needed
            QTimer::singleShot(0, this, [this, round] { abortOthers(round); });
        return;
    }
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
