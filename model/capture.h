// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A Capture is what every source produces: the raw API response bodies exactly as received
// (ARCHITECTURE.md, "Capture file"). Live polling, a capture file, a recording and the demo all
// hand one to buildSnapshot(), so a test fed from a file exercises production parsing.

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QMetaType>
#include <QString>

namespace slicescope {

struct Capture {
    QDateTime capturedAt;  // UTC

    // Ray dashboard bodies (empty = not captured).
    QByteArray rayVersion;          // GET /api/version
    QByteArray rayNodes;            // GET /api/v0/nodes?detail=true&limit=10000
    QByteArray rayPlacementGroups;  // GET /api/v0/placement_groups?detail=true&limit=10000
    QByteArray rayJobs;             // GET /api/jobs/
    QByteArray rayClusterStatus;    // GET /api/cluster_status?format=1
    // Chip activity (model/activity.h). The node summary is heavy on a big cluster and is fetched
    // less often than the lists: a capture carries the newest one, its entries say their own time.
    QByteArray rayNodeSummary;      // GET /nodes?view=summary
    QString rayNodeSummaryError;    // why the newest fetch of it failed (the body, if any, is older)

    // Prometheus answers (chip activity): the body of GET /api/v1/query?query=<query> for each
    // query asked, verbatim; the URL without credentials; why the newest round failed, if it did.
    struct PrometheusAnswer {
        QString query;
        QByteArray body;
        friend bool operator==(const PrometheusAnswer &, const PrometheusAnswer &) = default;
    };
    QString prometheusUrl;
    QList<PrometheusAnswer> prometheus;
    QString prometheusError;

    // Kubernetes bodies.
    QString kubeContext;
    QByteArray kubeRayClusters;     // RayClusterList
    QByteArray kubePods;            // PodList
    QByteArray kubeNodes;           // NodeList

    // The fleet (issue 16), by added members only; a capture without them reads as before.
    // The RayCluster ("namespace/name") whose dashboard the Ray bodies above came from, when known,
    // and why its newest poll failed (the bodies, if any, are older ones).
    QString rayCluster;
    QString rayError;
    // Why this context's Kubernetes lists could not be read lately (its bodies, if any, are older).
    QString kubeError;
    // Each RayCluster's own Ray view, beside this capture's Kubernetes bodies: a capture holding only
    // Ray members, `rayCluster` and `rayError`. buildSnapshot() joins each to its cluster's pods only.
    QList<Capture> rayClusters;
    // A fleet: one capture per Kubernetes context (each with its own Kubernetes bodies and Ray
    // views). A fleet capture holds nothing else but capturedAt.
    QList<Capture> fleet;
    bool isFleet() const { return !fleet.isEmpty(); }

    // Whether this capture or any capture in it (rayClusters, fleet) holds such bodies.
    bool hasRay() const
    {
        return !rayNodes.isEmpty() || !rayPlacementGroups.isEmpty() || !rayJobs.isEmpty() || anyOf(&Capture::hasRay);
    }
    bool hasKubernetes() const { return !kubeRayClusters.isEmpty() || !kubePods.isEmpty() || !kubeNodes.isEmpty() || anyOf(&Capture::hasKubernetes); }
    qint64 byteSize() const
    {
        qint64 n = rayVersion.size() + rayNodes.size() + rayPlacementGroups.size() + rayJobs.size() + rayClusterStatus.size()
                   + kubeRayClusters.size() + kubePods.size() + kubeNodes.size() + rayNodeSummary.size() + prometheusBytes();
        for (const Capture &c : rayClusters)
            n += c.byteSize();
        for (const Capture &c : fleet)
            n += c.byteSize();
        return n;
    }
    bool hasActivity() const
    {
        return !rayNodeSummary.isEmpty() || !prometheus.isEmpty() || !prometheusError.isEmpty() || !rayNodeSummaryError.isEmpty() || anyOf(&Capture::hasActivity);
    }
    bool anyOf(bool (Capture::*test)() const) const
    {
        for (const Capture &c : rayClusters)
            if ((c.*test)()) return true;
        for (const Capture &c : fleet)
            if ((c.*test)()) return true;
        return false;
    }
    qint64 prometheusBytes() const
    {
        qint64 n = 0;
        for (const PrometheusAnswer &a : prometheus)
            n += a.body.size() + a.query.size() * 2;
        return n;
    }
};

// The parser reads a few bytes past the end of each body; a body whose capacity leaves this much
// room is parsed in place instead of copied. Sources call this on bodies they keep.
void reserveParsePadding(QByteArray &body);

} // namespace slicescope

Q_DECLARE_METATYPE(slicescope::Capture)
