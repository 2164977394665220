// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The live Kubernetes source: watches RayClusters, Ray pods and TPU nodes (docs/facts.md 4.2) and emits
// a Capture whenever they change, with the Ray dashboard's bodies of every RayCluster that has a
// head service alongside (Capture::rayClusters, issue 16): each reached through the API server's
// service proxy with the same credential, so a kubeconfig alone gives both views; polls bounded by
// a PollGate, each cluster backing off on its own. Or one dashboard at --ray URL when given.

#include "kubeclient.h"
#include "pollgate.h"
#include "prometheuspoller.h"
#include "rayclient.h"
#include "source.h"

#include <QElapsedTimer>
#include <QTimer>

#include <map>
#include <memory>

namespace slicescope {

class LiveRaySource;

struct KubeSourceOptions {
    QString ns;                    // empty: the context's namespace
    bool allNamespaces = false;
    bool rayThroughProxy = true;   // reach the head service's dashboard through the API server
    QUrl rayUrl;                   // an explicit dashboard instead of the proxy
    RayToken rayToken;
    std::chrono::milliseconds coalesce{25}; // changes closer than this make one capture
};

class KubeSource : public Source
{
    Q_OBJECT
public:
    KubeSource(KubeConfig config, KubeSourceOptions options, QObject *parent = nullptr);
    ~KubeSource() override;

    QString description() const override; // "Kubernetes context harness (namespace default)"
    void start() override;
    void stop();

    KubeClient *client() { return &m_client; }
    const KubeSourceOptions &options() const { return m_options; }
    // The namespace watched, or empty for all namespaces.
    QString watchedNamespace() const { return m_options.allNamespaces ? QString() : m_options.ns; }
    // The Ray dashboard behind the proxy (or --ray) once one is in use, for the status line.
    QString rayDescription() const;
    QString rayProblem() const { return m_rayProblem; }
    // Ray's source for actions: the dashboard given (--ray), else the one RayCluster's view when
    // there is exactly one; null when there are several (ask raySourceFor()) or none.
    LiveRaySource *raySource() const;
    // A RayCluster's own Ray view ("namespace/name"), null when it has none (issue 16).
    LiveRaySource *raySourceFor(const QString &cluster) const;
    QStringList rayClustersViewed() const;
    // The RayClusters whose newest Ray bodies list placement group `nameOrId` (by id or name) as one
    // that could be released: where a release of it has to go.
    QStringList rayClustersListing(const QString &nameOrId) const;
    static constexpr int kMaxRayViews = 256;          // RayClusters polled per context
    static constexpr int kMaxConcurrentRayPolls = 4;  // Ray polls in flight through one API server

    // Watches, for tests and figures.
    KubeWatch *rayClusterWatch() const { return m_clusters; }
    KubeWatch *podWatch() const { return m_pods; }
    KubeWatch *nodeWatch() const { return m_nodes; }
    int capturesEmitted() const { return m_emitted; }
    // Chip activity from Prometheus (--prometheus): every capture carries its newest answers, a
    // new round makes a new capture, and the first capture waits for its first round.
    void setPrometheus(std::unique_ptr<PrometheusPoller> poller);
    PrometheusPoller *prometheus() const { return m_prometheus.get(); }

Q_SIGNALS:
    // A watch that had failed streams again; `afterMs` since the failure was noticed.
    void watchRecovered(const QString &what, qint64 afterMs);

private:
    void scheduleEmit();
    void emitCapture();
    void maybeStartRay();
    void startDirectRay();
    void syncRayViews();

    KubeClient m_client;
    KubeSourceOptions m_options;
    KubeWatch *m_clusters = nullptr;
    KubeWatch *m_pods = nullptr;
    KubeWatch *m_nodes = nullptr;
    bool m_nodesForbidden = false;
    std::unique_ptr<QNetworkAccessManager> m_proxyManager;
    std::unique_ptr<LiveRaySource> m_ray; // --ray URL
    bool m_rayAnswered = false;    // its first poll ended (either way)
    QString m_rayProblem;          // its last failure, until a poll succeeds
    // Each RayCluster's Ray view through the service proxy (issue 16), by "namespace/name".
    struct RayView {
        std::unique_ptr<LiveRaySource> source;
        QString target;            // "ns/service:port"
        Capture last;              // its newest bodies
        QString problem;           // its last failure, until a poll succeeds
        bool answered = false;     // its first poll ended (either way)
    };
    std::map<QString, RayView> m_views;
    std::shared_ptr<PollGate> m_gate;
    QStringList m_notes;           // lasting limits ("nodes hidden from this user")
    Capture m_lastRay;
    QTimer m_emitTimer;
    QElapsedTimer m_failingSince;
    int m_emitted = 0;
    std::unique_ptr<PrometheusPoller> m_prometheus;
};

} // namespace slicescope
