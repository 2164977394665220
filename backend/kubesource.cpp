// SPDX-License-Identifier: GPL-3.0-or-later
#include "kubesource.h"

#include "boundedfile.h"
#include "kubenames.h"

#include "livesource.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>

namespace slicescope {

namespace {

// Requests to the API server's service proxy carry the Kubernetes credential and TLS settings;
// RayClient builds them as for any dashboard and this manager adds what Kubernetes needs.
class KubeProxyAccessManager : public QNetworkAccessManager
{
public:
    explicit KubeProxyAccessManager(KubeClient *client)
        : m_client(client)
    {
    }

protected:
    QNetworkReply *createRequest(Operation op, const QNetworkRequest &original, QIODevice *data) override
    {
        QNetworkRequest request(original);
        m_client->applyCurrentCredential(request);
        return QNetworkAccessManager::createRequest(op, request, data);
    }

private:
    KubeClient *m_client;
};

const QString kPodSelector = QStringLiteral("labelSelector=ray.io%2Fis-ray-node%3Dyes");
const QString kNodeSelector = QStringLiteral("labelSelector=cloud.google.com%2Fgke-tpu-accelerator");

} // namespace

KubeSource::KubeSource(KubeConfig config, KubeSourceOptions options, QObject *parent)
    : Source(parent)
    , m_client(std::move(config))
    , m_options(std::move(options))
{
    if (m_options.ns.isEmpty())
        m_options.ns = m_client.config().ns;
    // The namespace was checked (a DNS-1123 label) when the config was loaded; escaped all the same.
    const QString scope = m_options.allNamespaces ? QString() : QStringLiteral("/namespaces/") + pathSegment(m_options.ns);
    m_clusters = new KubeWatch(&m_client, QStringLiteral("/apis/ray.io/v1") + scope + QStringLiteral("/rayclusters"), {},
                               "RayClusterList", this);
    m_pods = new KubeWatch(&m_client, QStringLiteral("/api/v1") + scope + QStringLiteral("/pods"), kPodSelector, "PodList", this);
    m_nodes = new KubeWatch(&m_client, QStringLiteral("/api/v1/nodes"), kNodeSelector, "NodeList", this);

    m_emitTimer.setSingleShot(true);
    connect(&m_emitTimer, &QTimer::timeout, this, &KubeSource::emitCapture);
    for (KubeWatch *watch : {m_clusters, m_pods, m_nodes}) {
        connect(watch, &KubeWatch::changed, this, &KubeSource::scheduleEmit);
        connect(watch, &KubeWatch::failed, this, [this, watch](const QString &message, int status) {
            if (watch == m_nodes && status == 403 && !m_nodes->isSynced()) {
                // A namespaced user may not list nodes (cluster scope): show slices without node
                // pools rather than nothing, and say so once.
                m_nodesForbidden = true;
                m_nodes->stop();
                m_notes << tr("nodes hidden from this user (%1)").arg(message);
                scheduleEmit();
                return;
            }
            if (!m_failingSince.isValid())
                m_failingSince.start();
            Q_EMIT failed(message);
        });
        connect(watch, &KubeWatch::recovered, this, [this, watch] {
            const qint64 after = m_failingSince.isValid() ? m_failingSince.elapsed() : 0;
            m_failingSince.invalidate();
            Q_EMIT watchRecovered(watch->describe(), after);
        });
    }
    connect(m_clusters, &KubeWatch::changed, this, &KubeSource::maybeStartRay);
}

KubeSource::~KubeSource()
{
    stop();
}

QString KubeSource::description() const
{
    const KubeConfig &c = m_client.config();
    QString text = c.contextName.isEmpty() ? tr("Kubernetes in-cluster") : tr("Kubernetes context %1").arg(c.contextName);
    text += m_options.allNamespaces ? tr(" (all namespaces)") : tr(" (namespace %1)").arg(m_options.ns);
    if (c.insecureSkipTlsVerify)
        text += tr(" - TLS NOT VERIFIED (insecure-skip-tls-verify)");
    const QString ray = rayDescription();
    if (!ray.isEmpty())
        text += QStringLiteral(" + ") + ray;
    if (!m_rayProblem.isEmpty())
        text += QStringLiteral(" (") + m_rayProblem + u')';
    for (const QString &note : m_notes)
        text += QStringLiteral("; ") + note;
    return text;
}

QString KubeSource::rayDescription() const
{
    if (!m_ray)
        return {};
    if (!m_rayTarget.isEmpty())
        return tr("Ray at %1 (service proxy)").arg(m_rayTarget);
    return m_ray->description();
}

void KubeSource::setPrometheus(std::unique_ptr<PrometheusPoller> poller)
{
    m_prometheus = std::move(poller);
    if (m_prometheus)
        connect(m_prometheus.get(), &PrometheusPoller::updated, this, &KubeSource::scheduleEmit);
}

void KubeSource::start()
{
    if (m_prometheus)
        m_prometheus->start();
    m_clusters->start();
    m_pods->start();
    if (!m_nodesForbidden)
        m_nodes->start();
    if (m_ray)
        m_ray->start();
    else if (!m_options.rayUrl.isEmpty())
        maybeStartRay();
}

void KubeSource::stop()
{
    if (m_prometheus)
        m_prometheus->stop();
    m_clusters->stop();
    m_pods->stop();
    m_nodes->stop();
    m_emitTimer.stop();
    if (m_ray)
        m_ray->stop();
}

void KubeSource::maybeStartRay()
{
    if (m_ray)
        return;
    QUrl url = m_options.rayUrl;
    if (url.isEmpty()) {
        if (!m_options.rayThroughProxy || !m_clusters->isSynced())
            return;
        // The first RayCluster (by namespace/name) with a head service; KubeRay names it in
        // status.head.serviceName and the dashboard port in status.endpoints.dashboard.
        const QJsonArray items = QJsonDocument::fromJson(m_clusters->listBody()).object().value(QLatin1String("items")).toArray();
        for (const QJsonValue &item : items) {
            const QJsonObject object = item.toObject();
            const QJsonObject status = object.value(QLatin1String("status")).toObject();
            const QString service = status.value(QLatin1String("head")).toObject().value(QLatin1String("serviceName")).toString();
            if (service.isEmpty())
                continue;
            const QString ns = object.value(QLatin1String("metadata")).toObject().value(QLatin1String("namespace")).toString();
            QString port = status.value(QLatin1String("endpoints")).toObject().value(QLatin1String("dashboard")).toString();
            if (port.isEmpty())
                port = QStringLiteral("8265");
            // Names from the server's answer go into a path: a RayCluster whose status names no
            // valid service or port is passed over, never sent along.
            bool portOk = false;
            const int portNumber = port.toInt(&portOk);
            if (!dns1123LabelProblem(ns).isEmpty() || !dns1123LabelProblem(service).isEmpty()
                || (portOk ? (portNumber < 1 || portNumber > 65535) : !dns1123LabelProblem(port).isEmpty())) {
                const QString note = tr("RayCluster head service %1 is not a valid Kubernetes name; not used")
                                         .arg(sanitizeForMessage(ns + u'/' + service + u':' + port, 120));
                if (!m_notes.contains(note))
                    m_notes << note;
                continue;
            }
            m_rayTarget = ns + u'/' + service + u':' + port;
            url = m_client.urlFor(QStringLiteral("/api/v1/namespaces/%1/services/%2:%3/proxy").arg(pathSegment(ns), pathSegment(service), pathSegment(port)));
            m_proxyManager = std::make_unique<KubeProxyAccessManager>(&m_client);
            break;
        }
        if (url.isEmpty()) {
            m_rayAnswered = true; // no Ray to wait for
            return;
        }
    }
    m_ray = std::make_unique<LiveRaySource>(url, m_options.rayToken);
    if (m_proxyManager) {
        m_ray->client()->setNetworkAccessManager(m_proxyManager.get());
        m_ray->client()->setTokenHeader(QByteArrayLiteral("X-Ray-Authorization"));
    }
    connect(m_ray.get(), &Source::captureReceived, this, [this](const Capture &capture) {
        m_lastRay = capture;
        m_rayProblem.clear();
        m_rayAnswered = true;
        scheduleEmit();
    });
    connect(m_ray.get(), &Source::failed, this, [this](const QString &message) {
        m_rayAnswered = true;
        m_rayProblem = m_rayTarget.isEmpty() ? message : tr("Ray through the service proxy (%1): %2").arg(m_rayTarget, message);
        // The Kubernetes view goes on with the last good Ray bodies; before the first capture the
        // problem is only described (a verb reading Kubernetes should not fail for it).
        if (m_emitted > 0)
            Q_EMIT failed(m_rayProblem);
        scheduleEmit();
    });
    m_ray->start();
}

void KubeSource::scheduleEmit()
{
    if (!m_emitTimer.isActive())
        m_emitTimer.start(m_options.coalesce);
}

void KubeSource::emitCapture()
{
    if (!m_clusters->isSynced() || !m_pods->isSynced() || (!m_nodesForbidden && !m_nodes->isSynced()))
        return;
    if (!m_rayAnswered && (m_ray || !m_options.rayUrl.isEmpty()))
        return; // the first capture waits for Ray's first answer, so it shows both views
    if (m_prometheus && !m_prometheus->hasAnswered())
        return; // ... and for Prometheus's first round
    Capture capture = m_lastRay;
    if (m_prometheus)
        m_prometheus->attachTo(capture);
    capture.capturedAt = QDateTime::currentDateTimeUtc();
    capture.kubeContext = m_client.config().contextName;
    capture.kubeRayClusters = m_clusters->listBody();
    capture.kubePods = m_pods->listBody();
    capture.kubeNodes = m_nodesForbidden ? QByteArray() : m_nodes->listBody();
    ++m_emitted;
    Q_EMIT captureReceived(capture);
}

} // namespace slicescope
