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

    bool hasRay() const { return !rayNodes.isEmpty() || !rayPlacementGroups.isEmpty() || !rayJobs.isEmpty(); }
    bool hasKubernetes() const { return !kubeRayClusters.isEmpty() || !kubePods.isEmpty() || !kubeNodes.isEmpty(); }
    qint64 byteSize() const
    {
        return rayVersion.size() + rayNodes.size() + rayPlacementGroups.size() + rayJobs.size()
               + rayClusterStatus.size() + kubeRayClusters.size() + kubePods.size() + kubeNodes.size() + rayNodeSummary.size()
               + prometheusBytes();
    }
    bool hasActivity() const { return !rayNodeSummary.isEmpty() || !prometheus.isEmpty() || !prometheusError.isEmpty() || !rayNodeSummaryError.isEmpty(); }
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
