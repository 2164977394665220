// SPDX-License-Identifier: GPL-3.0-or-later
#include "rayclient.h"

#include "kubenames.h" // pathSegment()

#include "boundedfile.h"
#include "logging.h"
#include "netguard.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QTimer>

#include <algorithm>
#include <vector>

namespace slicescope {

namespace {

// A token goes into an HTTP header: anything but visible ASCII would corrupt the request (or
// smuggle another header in), so such a token is refused rather than sent.
bool isUsableToken(const QByteArray &token)
{
    return !token.isEmpty() && std::all_of(token.begin(), token.end(), [](char c) { return c > 0x20 && c < 0x7f; });
}

QString readTokenFile(const QString &path, const QString &origin, RayToken &token)
{
    // A FIFO, a device (/dev/zero) or a directory is refused before a byte is read.
    QByteArray value;
    if (QString error = readBearerTokenFile(path, origin, QStringLiteral("Ray token"), value); !error.isEmpty())
        return error;
    token = {value, origin};
    return {};
}

// The first line of an error body, short enough for a one-line message.
QString bodyExcerpt(const QByteArray &body)
{
    QString text = QString::fromUtf8(body.left(4096)).trimmed();
    text = text.section(u'\n', 0, 0).trimmed();
    return sanitizeForMessage(text, 200); // control characters escaped, never raw into stderr
}

} // namespace

QString resolveRayToken(const QString &tokenFile, RayToken &token)
{
    token = {};
    if (!tokenFile.isEmpty())
        return readTokenFile(tokenFile, QStringLiteral("--ray-token-file %1").arg(tokenFile), token);
    const QByteArray fromEnv = qgetenv("RAY_AUTH_TOKEN").trimmed();
    if (!fromEnv.isEmpty()) {
        if (!isUsableToken(fromEnv))
            return QStringLiteral("RAY_AUTH_TOKEN holds spaces or control characters; a token is one word");
        token = {fromEnv, QStringLiteral("RAY_AUTH_TOKEN")};
        return {};
    }
    const QString pathFromEnv = qEnvironmentVariable("RAY_AUTH_TOKEN_PATH");
    if (!pathFromEnv.isEmpty())
        return readTokenFile(pathFromEnv, QStringLiteral("RAY_AUTH_TOKEN_PATH %1").arg(pathFromEnv), token);
    const QString defaultPath = QDir::homePath() + QStringLiteral("/.ray/auth_token");
    if (QFileInfo::exists(defaultPath))
        return readTokenFile(defaultPath, QStringLiteral("~/.ray/auth_token"), token);
    return {};
}

QByteArray slicescopeUserAgent()
{
    return QByteArrayLiteral("slicescope/" SLICESCOPE_VERSION);
}

// One request of a poll and where its body goes.
struct RayClient::Fetch {
    QString path;                         // relative to the base URL, with its query
    QByteArray Capture::*target = nullptr; // null: read by the client itself (auth mode)
    QByteArray body;
    int attempts = 0;
    QPointer<QNetworkReply> reply;
    bool optional = false; // its failure is noted in `error`, the poll goes on (the node summary)
    QString error;
};

// A poll runs in steps: the auth mode (first poll only), then /api/version (to know what we talk
// to before asking for more), then the four lists side by side.
struct RayClient::Poll {
    enum class Step
    {
        AuthMode,
        Version,
        Lists
    };
    quint64 id = 0;
    Step step = Step::AuthMode;
    Capture capture;
    std::vector<Fetch> fetches;
    int pending = 0;
};

RayClient::RayClient(const QUrl &baseUrl, QObject *parent)
    : QObject(parent)
{
    m_baseUrl = baseUrl.adjusted(QUrl::RemoveUserInfo | QUrl::RemoveQuery | QUrl::RemoveFragment);
    m_ownManager = new QNetworkAccessManager(this);
    m_manager = m_ownManager;
}

RayClient::~RayClient()
{
    cancel();
    // Their handlers may point at objects that are going away too: end them without a call.
    for (const QPointer<QNetworkReply> &reply : std::as_const(m_single)) {
        if (reply) {
            reply->disconnect(this);
            reply->abort();
            reply->deleteLater();
        }
    }
}

void RayClient::setToken(RayToken token)
{
    m_token = std::move(token);
    m_authMode.clear(); // a new token is a new start: read the mode again
}

void RayClient::setNetworkAccessManager(QNetworkAccessManager *manager)
{
    m_manager = manager ? manager : m_ownManager;
}

void RayClient::setRetryPolicy(int maxRetries, std::chrono::milliseconds firstDelay)
{
    m_maxRetries = std::max(0, maxRetries);
    m_firstRetryDelay = firstDelay;
}

QString RayClient::displayUrl() const
{
    return m_baseUrl.toDisplayString(QUrl::RemoveUserInfo | QUrl::StripTrailingSlash);
}

bool RayClient::poll()
{
    if (m_poll)
        return false;
    m_poll = std::make_unique<Poll>();
    m_poll->id = m_nextPollId++;
    m_poll->capture.capturedAt = QDateTime::currentDateTimeUtc();
    m_poll->step = m_authMode.isEmpty() ? Poll::Step::AuthMode : Poll::Step::Version;
    startStep();
    return true;
}

void RayClient::cancel()
{
    std::unique_ptr<Poll> poll = std::move(m_poll);
    if (!poll)
        return;
    for (Fetch &f : poll->fetches) {
        if (f.reply) {
            f.reply->disconnect(this);
            f.reply->abort();
            f.reply->deleteLater();
        }
    }
}

void RayClient::startStep()
{
    Poll &p = *m_poll;
    p.fetches.clear();
    switch (p.step) {
    case Poll::Step::AuthMode:
        p.fetches.push_back({QStringLiteral("api/authentication_mode"), nullptr});
        break;
    case Poll::Step::Version:
        p.fetches.push_back({QStringLiteral("api/version"), &Capture::rayVersion});
        break;
    case Poll::Step::Lists:
        p.fetches.push_back({QStringLiteral("api/v0/nodes?detail=true&limit=10000"), &Capture::rayNodes});
        p.fetches.push_back({QStringLiteral("api/v0/placement_groups?detail=true&limit=10000"), &Capture::rayPlacementGroups});
        p.fetches.push_back({QStringLiteral("api/jobs/"), &Capture::rayJobs});
        p.fetches.push_back({QStringLiteral("api/cluster_status?format=1"), &Capture::rayClusterStatus});
        // The node summary (chip activity) is the heavy route on a big cluster: at most once per
        // interval; between two fetches the capture carries the newest body (its entries say
        // their own time). Its failure never fails the poll: the allocation view stays live.
        if (m_nodeSummaryInterval.count() > 0 && (!m_sinceNodeSummary.isValid() || m_sinceNodeSummary.elapsed() >= m_nodeSummaryInterval.count())) {
            m_sinceNodeSummary.start();
            Fetch summary{QStringLiteral("nodes?view=summary"), &Capture::rayNodeSummary};
            summary.optional = true;
            p.fetches.push_back(std::move(summary));
        }
        break;
    }
    p.pending = int(p.fetches.size());
    for (int i = 0; i < int(p.fetches.size()); ++i)
        send(i);
}

QUrl RayClient::urlFor(const QString &pathAndQuery) const
{
    QUrl url = m_baseUrl;
    QString path = url.path();
    if (!path.endsWith(u'/'))
        path += u'/';
    const qsizetype q = pathAndQuery.indexOf(u'?');
    url.setPath(path + pathAndQuery.left(q), QUrl::TolerantMode); // keeps an escaped '/' (%2F) escaped
    if (q >= 0)
        url.setQuery(pathAndQuery.mid(q + 1));
    return url;
}

QNetworkRequest RayClient::makeRequest(const QString &pathAndQuery) const
{
    QNetworkRequest request(urlFor(pathAndQuery));
    // Qt would say "Mozilla/5.0", which the dashboard treats as a browser (405 on POST).
    request.setHeader(QNetworkRequest::UserAgentHeader, slicescopeUserAgent());
    request.setRawHeader("Accept", "application/json");
    if (!m_token.isEmpty())
        request.setRawHeader(m_tokenHeader, QByteArrayLiteral("Bearer ") + m_token.value);
    request.setTransferTimeout(int(m_transferTimeout.count())); // the idle bound (netguard.h)
    // A redirect could carry the token elsewhere, and the dashboard's API never redirects: refused.
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    request.setAttribute(QNetworkRequest::CacheLoadControlAttribute, QNetworkRequest::AlwaysNetwork);
    return request;
}

void RayClient::send(int fetchIndex)
{
    Fetch &f = m_poll->fetches[size_t(fetchIndex)];
    ++f.attempts;
    const QNetworkRequest request = makeRequest(f.path);
    QNetworkAccessManager *manager = m_manager ? m_manager.data() : m_ownManager;
    QNetworkReply *reply = manager->get(request);
    RequestBounds guard = bounds();
    guard.maxBody = m_maxBodyBytes;
    guardReply(reply, guard);
    f.reply = reply;
    const quint64 pollId = m_poll->id;
    connect(reply, &QNetworkReply::finished, this, [this, reply, pollId, fetchIndex] { onFinished(reply, pollId, fetchIndex); });
}

void RayClient::onFinished(QNetworkReply *reply, quint64 pollId, int fetchIndex)
{
    reply->deleteLater();
    if (!m_poll || m_poll->id != pollId)
        return; // an abandoned poll
    Fetch &f = m_poll->fetches[size_t(fetchIndex)];
    f.reply = nullptr;
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();

    // The state API sheds load with 429; a proxy in front of a restarting head answers 503 with
    // Retry-After. Either way: wait as told (bounded), or back off exponentially, then try again.
    const bool shedding = status == 429 || (status == 503 && !reply->rawHeader("Retry-After").isEmpty());
    if (shedding && f.attempts <= m_maxRetries) {
        bool ok = false;
        const int retryAfter = reply->rawHeader("Retry-After").trimmed().toInt(&ok);
        const qint64 backoff = m_firstRetryDelay.count() << (f.attempts - 1);
        const qint64 delay = ok && retryAfter >= 0 ? std::min<qint64>(qint64(retryAfter) * 1000, 10000) : std::min<qint64>(backoff, 10000);
        qCDebug(lcRay).noquote() << QStringLiteral("GET %1: HTTP %2 (try %3 of %4); retrying in %5 ms, %6")
                                        .arg(urlFor(f.path).toDisplayString(QUrl::RemoveUserInfo))
                                        .arg(status)
                                        .arg(f.attempts)
                                        .arg(m_maxRetries + 1)
                                        .arg(delay)
                                        .arg(ok && retryAfter >= 0 ? QStringLiteral("as its Retry-After (%1 s) asked").arg(retryAfter) : QStringLiteral("backing off (no Retry-After)"));
        QTimer::singleShot(std::chrono::milliseconds(delay), this, [this, pollId, fetchIndex] {
            if (m_poll && m_poll->id == pollId)
                send(fetchIndex);
        });
        return;
    }
    if (reply->error() != QNetworkReply::NoError || status < 200 || status > 299) {
        if (m_poll->step == Poll::Step::AuthMode && status == 404) {
            // A Ray older than token auth has no such route: nothing to check, go on.
            m_authMode = QStringLiteral("unknown");
        } else {
            if (status == 401 || status == 403)
                m_authMode.clear(); // read it again next time: the cluster may have changed
            if (shedding)
                qCDebug(lcRay).noquote() << QStringLiteral("GET %1: HTTP %2 on try %3 of %4; giving up on this poll")
                                                .arg(urlFor(f.path).toDisplayString(QUrl::RemoveUserInfo))
                                                .arg(status)
                                                .arg(f.attempts)
                                                .arg(m_maxRetries + 1);
            if (f.optional) {
                f.error = redact(describeFailure(reply, QByteArrayLiteral("GET"), f.path, status, f.attempts, false));
                qCDebug(lcRay).noquote() << QStringLiteral("%1; the poll goes on without it").arg(f.error);
            } else {
                fail(describeFailure(reply, QByteArrayLiteral("GET"), f.path, status, f.attempts, f.target == &Capture::rayVersion));
                return;
            }
        }
    } else {
        f.body = reply->readAll();
    }
    if (--m_poll->pending == 0)
        finishStep();
}

QString RayClient::describeFailure(QNetworkReply *reply, const QByteArray &method, const QString &path, int status, int attempts,
                                   bool versionRoute) const
{
    const QString where = QStringLiteral("%1 %2").arg(QString::fromLatin1(method), urlFor(path).toDisplayString(QUrl::RemoveUserInfo));
    const QString ourReason = abortReason(reply);
    if (!ourReason.isEmpty())
        return QStringLiteral("%1: %2").arg(where, ourReason);
    // A redirect (refused) or a body that stopped short: Qt's own words would mislead.
    if (const QString refused = describeRefusedOrCut(reply, status, bytesReceived(reply), m_transferTimeout); !refused.isEmpty())
        return QStringLiteral("%1: %2").arg(where, refused);
    if (status != 0) {
        const QString server = bodyExcerpt(reply->readAll());
        const QString said = server.isEmpty() ? QString() : QStringLiteral(" (the server said \"%1\")").arg(server);
        if (status == 401 && m_token.isEmpty())
            return QStringLiteral("%1: HTTP 401: the Ray dashboard wants a token and none was found%2: pass --ray-token-file F, "
                                  "or set RAY_AUTH_TOKEN or RAY_AUTH_TOKEN_PATH, or put it in ~/.ray/auth_token")
                .arg(where, said);
        if (status == 403 && m_token.isEmpty())
            return QStringLiteral("%1: HTTP 403: the Ray dashboard (or a proxy in front of it) refused access, and no token was sent%2")
                .arg(where, said);
        if (status == 401 || status == 403)
            return QStringLiteral("%1: HTTP %2: the Ray dashboard did not accept the token from %3%4: use the cluster's "
                                  "token (`ray get-auth-token` on the head prints it)")
                .arg(where)
                .arg(status)
                .arg(m_token.origin, said);
        if (status == 429 && method != "GET")
            return QStringLiteral("%1: HTTP 429: the Ray dashboard is overloaded; a %2 is not retried (it may have been applied)%3")
                .arg(where, QString::fromLatin1(method), said);
        if (status == 429)
            return QStringLiteral("%1: HTTP 429: the Ray dashboard is overloaded (too many state requests); gave up after %2 tries")
                .arg(where)
                .arg(attempts);
        if (status == 405 && method != "GET")
            return QStringLiteral("%1: HTTP 405: the Ray dashboard refused a %2 that looks like it came from a browser%3")
                .arg(where, QString::fromLatin1(method), said);
        if (status == 404 && versionRoute)
            return QStringLiteral("%1: HTTP 404: this is not a Ray dashboard (is the URL its address, usually port 8265?)").arg(where);
        const QString reason = sanitizeForMessage(reply->attribute(QNetworkRequest::HttpReasonPhraseAttribute).toString(), 40);
        const QString retried = status == 503 && attempts > 1
                                    ? QStringLiteral(" (tried %1 times, waiting as its Retry-After asked)").arg(attempts)
                                    : QString();
        return QStringLiteral("%1: HTTP %2%3%4%5").arg(where).arg(status).arg(reason.isEmpty() ? QString() : u' ' + reason, said, retried);
    }
    switch (reply->error()) {
    case QNetworkReply::ConnectionRefusedError:
        return QStringLiteral("%1: connection refused: no Ray dashboard listens there (is the head running, and is this its dashboard port?)").arg(where);
    case QNetworkReply::HostNotFoundError:
        return QStringLiteral("%1: host not found").arg(where);
    case QNetworkReply::RemoteHostClosedError:
        return QStringLiteral("%1: the server closed the connection without answering").arg(where);
    case QNetworkReply::TimeoutError:
    case QNetworkReply::OperationCanceledError: // what a transfer timeout looks like in Qt 6.4
        return QStringLiteral("%1: no answer for %2 s").arg(where).arg(double(m_transferTimeout.count()) / 1000.0);
    case QNetworkReply::InsecureRedirectError:
    case QNetworkReply::TooManyRedirectsError:
        return QStringLiteral("%1: redirected to another server; not followed, so the token stays where it belongs").arg(where);
    default:
        return QStringLiteral("%1: %2").arg(where, sanitizeForMessage(reply->errorString()));
    }
}

void RayClient::request(const QByteArray &method, const QString &pathAndQuery, const QByteArray &jsonBody, ReplyHandler handler)
{
    sendSingle(method, pathAndQuery, jsonBody, QByteArrayLiteral("application/json"), std::move(handler));
}

void RayClient::sendSingle(const QByteArray &method, const QString &pathAndQuery, const QByteArray &body, const QByteArray &contentType,
                           ReplyHandler handler)
{
    QNetworkRequest request = makeRequest(pathAndQuery);
    if (const QString problem = pathSegmentProblem(request.url()); !problem.isEmpty()) {
        const QString message = QStringLiteral("%1 %2: %3").arg(QString::fromLatin1(method), displayUrl(), problem);
        QTimer::singleShot(0, this, [handler = std::move(handler), message] { handler(message, 0, QByteArray()); });
        return;
    }
    if (!body.isNull())
        request.setHeader(QNetworkRequest::ContentTypeHeader, contentType);
    QNetworkAccessManager *manager = m_manager ? m_manager.data() : m_ownManager;
    QNetworkReply *reply = manager->sendCustomRequest(request, method, body);
    RequestBounds guard = bounds();
    guard.maxBody = m_maxBodyBytes;
    guardReply(reply, guard);
    m_single.removeAll(nullptr);
    m_single.append(reply);
    connect(reply, &QNetworkReply::finished, this, [this, reply, method, pathAndQuery, handler = std::move(handler)] {
        reply->deleteLater();
        m_single.removeAll(reply);
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (reply->error() != QNetworkReply::NoError || status < 200 || status > 299) {
            handler(redact(describeFailure(reply, method, pathAndQuery, status, 1, false)), status, QByteArray());
            return;
        }
        handler(QString(), status, reply->readAll());
    });
}

namespace {
QString jobPath(const QString &submissionId, const char *suffix = "")
{
    return QStringLiteral("api/jobs/") + pathSegment(submissionId) + QLatin1String(suffix);
}
} // namespace

void RayClient::submitJob(const QJsonObject &body, ReplyHandler handler)
{
    request(QByteArrayLiteral("POST"), QStringLiteral("api/jobs/"), QJsonDocument(body).toJson(QJsonDocument::Compact), std::move(handler));
}

void RayClient::getJob(const QString &submissionId, ReplyHandler handler)
{
    request(QByteArrayLiteral("GET"), jobPath(submissionId), QByteArray(), std::move(handler));
}

void RayClient::stopJob(const QString &submissionId, ReplyHandler handler)
{
    // An empty body, not a null one: a POST without Content-Length is refused by some proxies.
    request(QByteArrayLiteral("POST"), jobPath(submissionId, "/stop"), QByteArray(""), std::move(handler));
}

void RayClient::getJobLogs(const QString &submissionId, ReplyHandler handler)
{
    request(QByteArrayLiteral("GET"), jobPath(submissionId, "/logs"), QByteArray(), std::move(handler));
}

QNetworkRequest RayClient::webSocketRequest(const QString &pathAndQuery) const
{
    QNetworkRequest request = makeRequest(pathAndQuery);
    QUrl url = request.url();
    url.setScheme(url.scheme() == QLatin1String("https") ? QStringLiteral("wss") : QStringLiteral("ws"));
    request.setUrl(url);
    request.setRawHeader("Accept", QByteArray()); // an upgrade, not a JSON answer
    return request;
}

void RayClient::getPackage(const QString &packageName, ReplyHandler handler)
{
    request(QByteArrayLiteral("GET"), QStringLiteral("api/packages/gcs/") + pathSegment(packageName), QByteArray(),
            std::move(handler));
}

void RayClient::putPackage(const QString &packageName, const QByteArray &zip, ReplyHandler handler)
{
    sendSingle(QByteArrayLiteral("PUT"), QStringLiteral("api/packages/gcs/") + pathSegment(packageName), zip,
               QByteArrayLiteral("application/octet-stream"), std::move(handler));
}

RequestBounds RayClient::bounds() const
{
    return requestBounds(m_transferTimeout, m_connectTimeout, m_deadline);
}

void RayClient::fail(const QString &message)
{
    cancel();
    Q_EMIT pollFailed(redact(message));
}

void RayClient::finishStep()
{
    Poll &p = *m_poll;
    switch (p.step) {
    case Poll::Step::AuthMode: {
        if (m_authMode != QLatin1String("unknown")) {
            const QJsonObject o = QJsonDocument::fromJson(p.fetches.front().body).object();
            m_authMode = o.value(QLatin1String("authentication_mode")).toString(QStringLiteral("unknown"));
        }
        if (m_authMode == QLatin1String("token") && m_token.isEmpty()) {
            const QString where = urlFor(p.fetches.front().path).toDisplayString(QUrl::RemoveUserInfo);
            m_authMode.clear();
            fail(QStringLiteral("GET %1: the Ray dashboard wants a token (authentication_mode is \"token\") and none was found: "
                                "pass --ray-token-file F, or set RAY_AUTH_TOKEN or RAY_AUTH_TOKEN_PATH, or put it in ~/.ray/auth_token")
                     .arg(where));
            return;
        }
        p.step = Poll::Step::Version;
        startStep();
        return;
    }
    case Poll::Step::Version: {
        const Fetch &f = p.fetches.front();
        const QJsonObject o = QJsonDocument::fromJson(f.body).object();
        const QString version = o.value(QLatin1String("ray_version")).toString();
        if (version.isEmpty()) {
            fail(QStringLiteral("GET %1: the answer has no ray_version: is this a Ray dashboard?")
                     .arg(urlFor(f.path).toDisplayString(QUrl::RemoveUserInfo)));
            return;
        }
        m_rayVersion = version;
        p.capture.rayVersion = f.body;
        p.step = Poll::Step::Lists;
        startStep();
        return;
    }
    case Poll::Step::Lists: {
        std::unique_ptr<Poll> done = std::move(m_poll); // a slot may start the next poll at once
        for (Fetch &f : done->fetches) {
            if (f.optional) {
                if (f.error.isEmpty()) {
                    reserveParsePadding(f.body);
                    m_nodeSummary = std::move(f.body);
                }
                m_nodeSummaryError = f.error;
                continue;
            }
            reserveParsePadding(f.body);
            done->capture.*(f.target) = std::move(f.body);
        }
        if (m_nodeSummaryInterval.count() > 0) {
            done->capture.rayNodeSummary = m_nodeSummary;
            done->capture.rayNodeSummaryError = m_nodeSummaryError;
        }
        reserveParsePadding(done->capture.rayVersion);
        Q_EMIT captureReceived(done->capture);
        return;
    }
    }
    Q_UNREACHABLE();
}

QString RayClient::redact(QString text) const
{
    // Belt and braces: a server that echoes the token back must not get it into a message.
    if (!m_token.isEmpty())
        text.replace(QString::fromLatin1(m_token.value), QStringLiteral("<token>"));
    return text;
}

} // namespace slicescope
