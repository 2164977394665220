// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Where an operator goes next from a slice or a host: the texts to copy (names and ids, whole),
// and the pages that show the same thing elsewhere: the Ray dashboard's node page (when the source
// is a Ray dashboard URL), and the Google Cloud console's node pool, node and pod pages (when the
// Kubernetes context is a GKE one, named "gke_PROJECT_LOCATION_CLUSTER" as `gcloud container
// clusters get-credentials` names it; docs/facts.md 4.7). A link that cannot be made says why,
// never guesses: every part of a URL is checked and percent-encoded.

#include "snapshot.h"

#include <QList>
#include <QString>
#include <QUrl>

#include <optional>

namespace slicescope {

struct GkeCluster {
    QString project, location, cluster;
};
// The GKE cluster a kubeconfig context names; nullopt for any other name.
std::optional<GkeCluster> gkeClusterOfContext(QStringView context);

struct CopyItem {
    QString label; // "Slice name", "Ray node id", ...
    QString text;  // whole, never cut
};

struct ExternalLink {
    QString label;   // "Ray dashboard: node of worker 2", "Cloud console: node pool tpu-pool"
    QUrl url;        // invalid when it cannot be made
    QString whyNot;  // then: why, in words
};

// What can be copied of a slice and, when workerId is one of its hosts, of that host.
QList<CopyItem> copyItems(const ClusterSnapshot &snapshot, const QString &sliceName, int workerId = -1);

// The Ray dashboard page of the host (its node), or of the cluster's nodes without one.
// `dashboard` is the dashboard's base URL (no credentials); empty: the source is no dashboard URL.
ExternalLink rayDashboardLink(const QUrl &dashboard, const ClusterSnapshot &snapshot, const QString &sliceName, int workerId = -1);

// The Cloud console pages of the slice's node pool and, for a host, its node and pod.
QList<ExternalLink> cloudConsoleLinks(const ClusterSnapshot &snapshot, const QString &sliceName, int workerId = -1);

} // namespace slicescope
