// SPDX-License-Identifier: GPL-3.0-or-later
#include "kubeclient.h"
#include "kubeclient_p.h"

#include "boundedfile.h"
#include "logging.h"
#include "netguard.h"
#include "rayclient.h" // slicescopeUserAgent()

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkProxy>
#include <QNetworkReply>

#include <utility>

#include <algorithm>

namespace slicescope {
using kube::statusMessage;

// ----------------------------------------------------------------------------------------------
// KubeClient

KubeClient::KubeClient(KubeConfig config, QObject *parent)
    : QObject(parent)
    , m_config(std::move(config))
{
    m_ownManager = new QNetworkAccessManager(this);
    m_manager = m_ownManager;
    if (m_config.proxyUrl.isValid() && !m_config.proxyUrl.isEmpty()) {
        const QUrl &p = m_config.proxyUrl;
        const auto type = p.scheme().startsWith(QLatin1String("socks")) ? QNetworkProxy::Socks5Proxy : QNetworkProxy::HttpProxy;
        m_ownManager->setProxy(QNetworkProxy(type, p.host(), quint16(p.port(type == QNetworkProxy::HttpProxy ? 3128 : 1080)),
                                             p.userName(), p.password()));
    }

    m_ssl = QSslConfiguration::defaultConfiguration();
    if (!m_config.caCertificates.isEmpty())
        m_ssl.setCaCertificates(m_config.caCertificates);
    if (m_config.insecureSkipTlsVerify)
        m_ssl.setPeerVerifyMode(QSslSocket::VerifyNone);
    m_credential.token = m_config.token;
    m_credential.certificate = m_config.clientCertificate;
    m_credential.key = m_config.clientKey;
    if (m_config.exec)
        m_exec = new KubeExecCredentialProvider(*m_config.exec, m_config.server, m_config.caCertificates,
                                                m_config.insecureSkipTlsVerify, this);
}

KubeClient::~KubeClient()
{
    for (const QPointer<QNetworkReply> &reply : std::as_const(m_inFlight)) {
        if (reply) {
            reply->disconnect(this);
            reply->abort();
            reply->deleteLater();
        }
    }
}

QString KubeClient::displayServer() const
{
    return m_config.server.adjusted(QUrl::RemoveUserInfo | QUrl::RemovePath | QUrl::RemoveQuery).toString();
}

void KubeClient::setNetworkAccessManager(QNetworkAccessManager *manager)
{
    m_manager = manager ? manager : m_ownManager;
}

QUrl KubeClient::urlFor(const QString &path) const
{
    QUrl url = m_config.server;
    const qsizetype q = path.indexOf(u'?');
    url.setPath(url.path() + (q < 0 ? path : path.left(q)), QUrl::TolerantMode);
    if (q >= 0)
        url.setQuery(path.mid(q + 1), QUrl::TolerantMode);
    return url;
}

QString KubeClient::credentialOrigin() const
{
    if (m_exec)
        return QStringLiteral("the exec plugin %1 (%2)").arg(m_config.exec->command, m_config.origin);
    if (!m_config.tokenFile.isEmpty())
        return QStringLiteral("the token file %1 (%2)").arg(m_config.tokenFile, m_config.origin);
    if (!m_config.token.isEmpty())
        return QStringLiteral("the token of %1").arg(m_config.origin);
    if (!m_config.clientCertificate.isNull())
        return QStringLiteral("the client certificate of %1").arg(m_config.origin);
    return QStringLiteral("no credential (%1)").arg(m_config.origin);
}

void KubeClient::withCredential(std::function<void(const QString &error)> next)
{
    if (!m_exec) {
        QTimer::singleShot(0, this, [next = std::move(next)] { next({}); });
        return;
    }
    QPointer<KubeClient> self(this);
    m_exec->get([self, next = std::move(next)](const QString &error, const KubeExecCredential &credential) {
        if (!self)
            return;
        if (error.isEmpty()) {
            self->m_credential.token = credential.token;
            self->m_credential.certificate = credential.clientCertificate.isNull() ? self->m_config.clientCertificate
                                                                                   : credential.clientCertificate;
            self->m_credential.key = credential.clientKey.isNull() ? self->m_config.clientKey : credential.clientKey;
        }
        next(error);
    });
}

bool KubeClient::refreshCredential()
{
    if (m_exec) {
        m_exec->invalidate();
        return true;
    }
    if (!m_config.tokenFile.isEmpty()) {
        // The same checks as the first read (one word, a regular file of bounded size).
        QByteArray token;
        if (readKubeTokenFile(m_config.tokenFile, m_config.origin, token).isEmpty() && token != m_credential.token) {
            m_credential.token = token;
            return true;
        }
    }
    return false;
}

void KubeClient::applyCurrentCredential(QNetworkRequest &request) const
{
    QSslConfiguration ssl = m_ssl;
    if (!m_credential.certificate.isNull() && !m_credential.key.isNull()) {
        ssl.setLocalCertificate(m_credential.certificate);
        ssl.setPrivateKey(m_credential.key);
    }
    request.setSslConfiguration(ssl);
    if (!m_config.tlsServerName.isEmpty())
        request.setPeerVerifyName(m_config.tlsServerName);
    if (!m_credential.token.isEmpty())
        request.setRawHeader("Authorization", "Bearer " + m_credential.token);
}

QNetworkRequest KubeClient::makeRequest(const QUrl &url) const
{
    QNetworkRequest request(url);
    request.setHeader(QNetworkRequest::UserAgentHeader, slicescopeUserAgent());
    request.setRawHeader("Accept", "application/json");
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
    applyCurrentCredential(request);
    return request;
}

void KubeClient::prepare(const QUrl &url, PrepareHandler handler)
{
    QPointer<KubeClient> self(this);
    withCredential([self, url, handler = std::move(handler)](const QString &error) {
        if (!self)
            return;
        handler(error.isEmpty() ? QString() : QStringLiteral("%1: %2").arg(self->credentialOrigin(), error),
                self->makeRequest(url));
    });
}

void KubeClient::request(const QByteArray &method, const QString &path, const QByteArray &body, const QByteArray &contentType,
                         ReplyHandler handler)
{
    QPointer<KubeClient> self(this);
    withCredential([self, method, path, body, contentType, handler = std::move(handler)](const QString &error) mutable {
        if (!self)
            return;
        if (!error.isEmpty()) {
            handler(QStringLiteral("%1 %2%3: no credential: %4").arg(QString::fromLatin1(method), self->displayServer(), path, error), 0, {});
            return;
        }
        self->send(method, path, body, contentType, std::move(handler), false);
    });
}

void KubeClient::send(const QByteArray &method, const QString &path, const QByteArray &body, const QByteArray &contentType,
                      ReplyHandler handler, bool retried)
{
    QNetworkRequest request = makeRequest(urlFor(path));
    if (const QString problem = pathSegmentProblem(request.url()); !problem.isEmpty()) {
        const QString message = QStringLiteral("%1 %2: %3").arg(QString::fromLatin1(method), displayServer(), problem);
        QTimer::singleShot(0, this, [handler = std::move(handler), message] { handler(message, 0, {}); });
        return;
    }
    request.setTransferTimeout(int(m_transferTimeout.count()));
    if (!contentType.isEmpty())
        request.setHeader(QNetworkRequest::ContentTypeHeader, contentType);
    QNetworkReply *reply = m_manager->sendCustomRequest(request, method, body);
    RequestBounds guard = requestBounds(m_transferTimeout, m_connectTimeout, m_deadline);
    guard.maxBody = m_maxBodyBytes;
    guardReply(reply, guard);
    m_inFlight.append(reply);
    connect(reply, &QNetworkReply::finished, this, [this, reply, method, path, body, contentType, handler = std::move(handler), retried]() mutable {
        m_inFlight.removeAll(reply);
        reply->deleteLater();
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        const QByteArray answer = reply->isOpen() ? reply->readAll() : QByteArray(); // an aborted reply is closed
        if (status == 401 && !retried && refreshCredential()) {
            qCDebug(lcKube).noquote() << QStringLiteral("%1 %2%3: HTTP 401: getting a fresh credential from %4, then sending it once more")
                                             .arg(QString::fromLatin1(method), displayServer(), path, credentialOrigin());
            QPointer<KubeClient> self(this);
            withCredential([self, method, path, body, contentType, handler = std::move(handler)](const QString &error) mutable {
                if (!self)
                    return;
                if (!error.isEmpty()) {
                    handler(QStringLiteral("%1 %2%3: refused (401), and getting a new credential failed: %4")
                                .arg(QString::fromLatin1(method), self->displayServer(), path, error),
                            401, {});
                    return;
                }
                self->send(method, path, body, contentType, std::move(handler), true);
            });
            return;
        }
        if (reply->error() == QNetworkReply::NoError && status >= 200 && status < 300) {
            handler({}, status, answer);
            return;
        }
        handler(describeFailure(reply, method, path, status, answer), status, answer);
    });
}

QString KubeClient::describeFailure(QNetworkReply *reply, const QByteArray &method, const QString &path, int status,
                                    const QByteArray &body) const
{
    const QString where = QStringLiteral("%1 %2%3").arg(QString::fromLatin1(method), displayServer(), path);
    if (const QString ours = abortReason(reply); !ours.isEmpty())
        return QStringLiteral("%1: %2").arg(where, ours);
    // A redirect (refused: ManualRedirectPolicy) or a body that stopped short.
    if (const QString refused = describeRefusedOrCut(reply, status, bytesReceived(reply), m_transferTimeout); !refused.isEmpty())
        return QStringLiteral("%1: %2").arg(where, refused);
    if (status == 401)
        return QStringLiteral("%1: the API server refused %2 (401 Unauthorized): it is expired, revoked or wrong")
            .arg(where, credentialOrigin());
    if (status == 403)
        return QStringLiteral("%1: forbidden (403): %2").arg(where, statusMessage(body));
    if (status > 0)
        return QStringLiteral("%1: HTTP %2: %3").arg(where).arg(status).arg(statusMessage(body));
    if (reply->error() == QNetworkReply::SslHandshakeFailedError)
        return QStringLiteral("%1: TLS failed (%2); check certificate-authority%3 in %4")
            .arg(where, reply->errorString(),
                 m_config.tlsServerName.isEmpty() ? QString() : QStringLiteral(" and tls-server-name"), m_config.origin);
    if (reply->error() == QNetworkReply::OperationCanceledError)
        return QStringLiteral("%1: no answer within %2 s").arg(where).arg(m_transferTimeout.count() / 1000.0);
    return QStringLiteral("%1: %2").arg(where, sanitizeForMessage(reply->errorString()));
}

void KubeClient::checkAccess(const QString &verb, const QString &group, const QString &resource, const QString &ns,
                             const QString &subresource, AccessHandler handler)
{
    QJsonObject attributes{{QStringLiteral("verb"), verb}, {QStringLiteral("group"), group}, {QStringLiteral("resource"), resource}};
    if (!ns.isEmpty())
        attributes.insert(QStringLiteral("namespace"), ns);
    if (!subresource.isEmpty())
        attributes.insert(QStringLiteral("subresource"), subresource);
    const QJsonObject review{{QStringLiteral("apiVersion"), QStringLiteral("authorization.k8s.io/v1")},
                             {QStringLiteral("kind"), QStringLiteral("SelfSubjectAccessReview")},
                             {QStringLiteral("spec"), QJsonObject{{QStringLiteral("resourceAttributes"), attributes}}}};
    const QString what = QStringLiteral("%1 %2%3%4").arg(verb, resource, group.isEmpty() ? QString() : u'.' + group, ns.isEmpty() ? QString() : QStringLiteral(" in namespace ") + ns);
    request("POST", QStringLiteral("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"),
            QJsonDocument(review).toJson(QJsonDocument::Compact), "application/json",
            [handler = std::move(handler), what](const QString &error, int, const QByteArray &body) {
                if (!error.isEmpty()) {
                    handler(false, QStringLiteral("could not ask whether you may %1: %2").arg(what, error));
                    return;
                }
                const QJsonObject status = QJsonDocument::fromJson(body).object().value(QLatin1String("status")).toObject();
                if (status.value(QLatin1String("allowed")).toBool()) {
                    handler(true, {});
                    return;
                }
                QString reason = status.value(QLatin1String("reason")).toString();
                if (reason.isEmpty())
                    reason = status.value(QLatin1String("evaluationError")).toString();
                handler(false, QStringLiteral("your Kubernetes user may not %1 (RBAC)%2")
                                   .arg(what, reason.isEmpty() ? QString() : QStringLiteral(": ") + reason));
            });
}

void KubeClient::openStream(const QString &path, StreamHandler handler)
{
    QPointer<KubeClient> self(this);
    withCredential([self, path, handler = std::move(handler)](const QString &error) {
        if (!self)
            return;
        if (!error.isEmpty()) {
            handler(QStringLiteral("GET %1%2: no credential: %3").arg(self->displayServer(), path, error), nullptr);
            return;
        }
        QNetworkRequest request = self->makeRequest(self->urlFor(path));
        if (const QString problem = pathSegmentProblem(request.url()); !problem.isEmpty()) {
            handler(QStringLiteral("GET %1: %2").arg(self->displayServer(), problem), nullptr);
            return;
        }
        QNetworkReply *stream = self->m_manager->get(request);
        // Qt stops reading the socket while this much waits unread: the watch reads in pieces
        // and bounds each event (KubeWatch::kMaxEventBytes), so memory follows what it keeps.
        stream->setReadBufferSize(kStreamReadBufferBytes);
        // A stream has no overall deadline (the server ends it after timeoutSeconds) and its
        // silence is the watch's idle limit; connecting is bounded like every request.
        RequestBounds bounds;
        bounds.overall = std::chrono::milliseconds(0);
        if (self->m_connectTimeout.count() > 0)
            bounds.connect = self->m_connectTimeout;
        guardReply(stream, bounds);
        handler({}, stream);
    });
}

} // namespace slicescope
