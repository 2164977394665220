// SPDX-License-Identifier: GPL-3.0-or-later
#include "kubesource.h"

#include "boundedfile.h"
#include "kubenames.h"

#include "livesource.h"
#include "sliceactions.h"

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
                // (Without the watch's "; relisting in 0.6 s": it is not retried.)
                m_notes << tr("nodes hidden from this user (%1)").arg(message.section(QStringLiteral("; relisting in "), 0, 0));
                scheduleEmit();
                return;
            }
            if (!m_failingSince.isValid())
                m_failingSince.start();
            Q_EMIT failed(message);
        });
        // Objects of a namespace not asked for are dropped by the watch (issue 30); said once
        // per collection in the status line, never a failure (a headless verb goes on).
        connect(watch, &KubeWatch::warning, this, [this](const QString &message) {
            if (!m_notes.contains(message))
                m_notes << message;
            scheduleEmit();
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
    int failing = 0;
    QString firstProblem;
    for (const auto &[cluster, view] : m_views)
        if (!view.problem.isEmpty() && failing++ == 0) firstProblem = view.problem;
    if (failing == 1) text += QStringLiteral(" (") + firstProblem + u')';
    else if (failing > 1) text += tr(" (%1 Ray dashboards not answering; the first: %2)").arg(failing).arg(firstProblem);
    for (const QString &note : m_notes)
        text += QStringLiteral("; ") + note;
    return text;
}

QString KubeSource::rayDescription() const
{
    if (m_ray)
        return m_ray->description();
    if (m_views.empty())
        return {};
    if (m_views.size() == 1)
        return tr("Ray at %1 (service proxy)").arg(m_views.begin()->second.target);
    int answering = 0;
    for (const auto &[cluster, view] : m_views)
        answering += view.answered && view.problem.isEmpty();
    return tr("Ray of %1 RayClusters, %2 answering (service proxy)").arg(m_views.size()).arg(answering);
}

LiveRaySource *KubeSource::raySource() const
{
    if (m_ray)
        return m_ray.get();
    return m_views.size() == 1 ? m_views.begin()->second.source.get() : nullptr;
}

LiveRaySource *KubeSource::raySourceFor(const QString &cluster) const
{
    const auto it = m_views.find(cluster);
    return it == m_views.end() ? nullptr : it->second.source.get();
}

QStringList KubeSource::rayClustersListing(const QString &nameOrId) const
{
    QStringList out;
    for (const auto &[cluster, view] : m_views) {
        ReleaseTarget target;
        if (!view.last.rayPlacementGroups.isEmpty() && findReleaseTarget(view.last, nameOrId, cluster, target).isEmpty()) out << cluster;
    }
    return out;
}

QStringList KubeSource::rayClustersViewed() const
{
    QStringList out;
    for (const auto &[cluster, view] : m_views)
        out << cluster;
    return out;
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
    for (auto &[cluster, view] : m_views)
        view.source->start();
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
    for (auto &[cluster, view] : m_views)
        view.source->stop();
}

void KubeSource::maybeStartRay()
{
    if (!m_options.rayUrl.isEmpty()) {
        startDirectRay();
        return;
    }
    if (m_options.rayThroughProxy && m_clusters->isSynced())
        syncRayViews();
}

// --ray URL: one dashboard, given; its bodies are the capture's own Ray members.
void KubeSource::startDirectRay()
{
    if (m_ray)
        return;
    m_ray = std::make_unique<LiveRaySource>(m_options.rayUrl, m_options.rayToken);
    connect(m_ray.get(), &Source::captureReceived, this, [this](const Capture &capture) {
        m_lastRay = capture;
        m_rayProblem.clear();
        m_rayAnswered = true;
        scheduleEmit();
    });
    connect(m_ray.get(), &Source::failed, this, [this](const QString &message) {
        m_rayAnswered = true;
        m_rayProblem = message;
        // The Kubernetes view goes on with the last good Ray bodies; before the first capture the
        // problem is only described (a verb reading Kubernetes should not fail for it).
        if (m_emitted > 0)
            Q_EMIT failed(m_rayProblem);
        scheduleEmit();
    });
    m_ray->start();
}

// Every RayCluster with a head service gets its own Ray view through the API server's service
// proxy (issue 16); KubeRay names the service in status.head.serviceName and the dashboard port in
// status.endpoints.dashboard. A view whose cluster went, or whose service or port changed, is
// dropped (and made anew for the new target).
void KubeSource::syncRayViews()
{
    struct Target {
        QString text; // "ns/service:port", what the view is known by
        QUrl url;     // its dashboard through the API server's service proxy
    };
    std::map<QString, Target> wanted; // by "ns/name"
    const QJsonArray items = QJsonDocument::fromJson(m_clusters->listBody()).object().value(QLatin1String("items")).toArray();
    for (const QJsonValue &item : items) {
        const QJsonObject object = item.toObject();
        const QJsonObject metadata = object.value(QLatin1String("metadata")).toObject();
        const QJsonObject status = object.value(QLatin1String("status")).toObject();
        const QString service = status.value(QLatin1String("head")).toObject().value(QLatin1String("serviceName")).toString();
        if (service.isEmpty())
            continue;
        const QString ns = metadata.value(QLatin1String("namespace")).toString();
        const QString name = metadata.value(QLatin1String("name")).toString();
        QString port = status.value(QLatin1String("endpoints")).toObject().value(QLatin1String("dashboard")).toString();
        if (port.isEmpty())
            port = QStringLiteral("8265");
        // Names from the server's answer go into a path: a RayCluster whose status names no
        // valid service or port is passed over, never sent along.
        bool portOk = false;
        const int portNumber = port.toInt(&portOk);
        if (!dns1123LabelProblem(ns).isEmpty() || !dns1123LabelProblem(service).isEmpty() || !dns1123SubdomainProblem(name).isEmpty()
            || (portOk ? (portNumber < 1 || portNumber > 65535) : !dns1123LabelProblem(port).isEmpty())) {
            const QString note = tr("RayCluster head service %1 is not a valid Kubernetes name; not used")
                                     .arg(sanitizeForMessage(ns + u'/' + service + u':' + port, 120));
            if (!m_notes.contains(note))
                m_notes << note;
            continue;
        }
        if (int(wanted.size()) >= kMaxRayViews) {
            const QString note = tr("more than %1 RayClusters have a head service: only the first %1 (by namespace/name) are polled").arg(kMaxRayViews);
            if (!m_notes.contains(note))
                m_notes << note;
            break;
        }
        wanted.emplace(ns + u'/' + name,
                       Target{ns + u'/' + service + u':' + port,
                              m_client.urlFor(QStringLiteral("/api/v1/namespaces/%1/services/%2:%3/proxy").arg(pathSegment(ns), pathSegment(service), pathSegment(port)))});
    }

    bool changed = false;
    for (auto it = m_views.begin(); it != m_views.end();) {
        const auto want = wanted.find(it->first);
        if (want != wanted.end() && want->second.text == it->second.target) {
            ++it;
            continue;
        }
        it->second.source->stop();
        it = m_views.erase(it);
        changed = true;
    }
    for (const auto &[wantedCluster, wantedTarget] : wanted) {
        const QString cluster = wantedCluster; // lambdas capture variables, not bindings
        const Target &target = wantedTarget;
        if (m_views.count(cluster))
            continue;
        if (!m_proxyManager)
            m_proxyManager = std::make_unique<KubeProxyAccessManager>(&m_client);
        if (!m_gate)
            m_gate = std::make_shared<PollGate>(kMaxConcurrentRayPolls);
        RayView &view = m_views[cluster];
        view.target = target.text;
        view.source = std::make_unique<LiveRaySource>(target.url, m_options.rayToken);
        view.source->client()->setNetworkAccessManager(m_proxyManager.get());
        view.source->client()->setTokenHeader(QByteArrayLiteral("X-Ray-Authorization"));
        view.source->setPollGate(m_gate);
        LiveRaySource *source = view.source.get();
        connect(source, &Source::captureReceived, this, [this, cluster, source](const Capture &capture) {
            const auto at = m_views.find(cluster);
            if (at == m_views.end() || at->second.source.get() != source)
                return; // a view dropped since
            at->second.last = capture;
            at->second.problem.clear();
            at->second.answered = true;
            scheduleEmit();
        });
        connect(source, &Source::failed, this, [this, cluster, source](const QString &message) {
            const auto at = m_views.find(cluster);
            if (at == m_views.end() || at->second.source.get() != source)
                return;
            at->second.answered = true;
            at->second.problem = tr("Ray of RayCluster %1 through the service proxy (%2): %3").arg(cluster, at->second.target, message);
            // The rest of the view goes on; this cluster's tiles say it (the capture carries it).
            scheduleEmit();
        });
        source->start();
        changed = true;
    }
    if (changed)
        scheduleEmit();
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
    if (m_emitted == 0)
        for (const auto &[cluster, view] : m_views)
            if (!view.answered)
                return; // ... and for each RayCluster's (an answer may be a failure)
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
    for (const auto &[cluster, view] : m_views) {
        Capture ray = view.last; // the newest bodies; older ones when the last poll failed
        ray.capturedAt = QDateTime();
        ray.rayCluster = cluster;
        ray.rayError = view.problem;
        capture.rayClusters.append(std::move(ray));
    }
    ++m_emitted;
    Q_EMIT captureReceived(capture);
}

} // namespace slicescope
