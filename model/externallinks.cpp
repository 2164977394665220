// SPDX-License-Identifier: GPL-3.0-or-later
#include "externallinks.h"

#include <QCoreApplication>
#include <QRegularExpression>

namespace slicescope {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("ExternalLinks", text);
}

// GCP project ids, zones and regions, GKE cluster names, node and node pool names, namespaces and
// pod names: lowercase letters, digits, '-' and '.' (pods), nothing that needs a URL's escaping.
bool isPlainName(QStringView s)
{
    if (s.isEmpty() || s.size() > 253)
        return false;
    for (QChar c : s)
        if (!((c >= u'a' && c <= u'z') || (c >= u'0' && c <= u'9') || c == u'-' || c == u'.'))
            return false;
    return true;
}

QString segment(const QString &s)
{
    return QString::fromLatin1(QUrl::toPercentEncoding(s));
}

QUrl consoleUrl(const GkeCluster &gke, const QStringList &path)
{
    QString p = QStringLiteral("/kubernetes");
    for (const QString &part : path)
        p += u'/' + segment(part);
    QUrl url;
    url.setScheme(QStringLiteral("https"));
    url.setHost(QStringLiteral("console.cloud.google.com"));
    url.setPath(p, QUrl::TolerantMode);
    url.setQuery(QStringLiteral("project=") + segment(gke.project));
    return url;
}

const Slice *sliceOf(const ClusterSnapshot &snapshot, const QString &sliceName)
{
    const int si = snapshot.sliceIndex(sliceName);
    return si >= 0 ? &snapshot.slices[si] : nullptr;
}

const Host *hostOf(const Slice *slice, int workerId)
{
    return slice && workerId >= 0 && workerId < slice->hosts.size() ? &slice->hosts[workerId] : nullptr;
}

} // namespace

std::optional<GkeCluster> gkeClusterOfContext(QStringView context)
{
    const QList<QStringView> parts = context.split(u'_');
    if (parts.size() != 4 || parts[0] != u"gke")
        return std::nullopt;
    for (int i = 1; i < 4; ++i)
        if (!isPlainName(parts[i]) || parts[i].contains(u'.'))
            return std::nullopt;
    return GkeCluster{parts[1].toString(), parts[2].toString(), parts[3].toString()};
}

QList<CopyItem> copyItems(const ClusterSnapshot &snapshot, const QString &sliceName, int workerId)
{
    QList<CopyItem> items;
    const Slice *s = sliceOf(snapshot, sliceName);
    if (!s)
        return items;
    items.append({tr("Slice name"), s->name});
    if (!s->workerGroup.isEmpty())
        items.append({tr("Worker group"), s->workerGroup});
    if (s->headHeldBy >= 0)
        items.append({tr("Head holder's placement group id"), snapshot.placementGroups[s->headHeldBy].id});
    if (const Host *h = hostOf(s, workerId)) {
        if (h->rayNode >= 0) {
            items.append({tr("Ray node id of worker %1").arg(h->workerId), snapshot.rayNodes[h->rayNode].id});
            if (!snapshot.rayNodes[h->rayNode].ip.isEmpty())
                items.append({tr("IP of worker %1").arg(h->workerId), snapshot.rayNodes[h->rayNode].ip});
        }
        if (h->pod >= 0)
            items.append({tr("Pod of worker %1").arg(h->workerId), snapshot.pods[h->pod].qualifiedName()});
        if (h->kubeNode >= 0)
            items.append({tr("Kubernetes node of worker %1").arg(h->workerId), snapshot.kubeNodes[h->kubeNode].name});
    }
    return items;
}

ExternalLink rayDashboardLink(const QUrl &dashboard, const ClusterSnapshot &snapshot, const QString &sliceName, int workerId)
{
    const Slice *s = sliceOf(snapshot, sliceName);
    const Host *h = hostOf(s, workerId);
    ExternalLink link;
    link.label = h ? tr("Ray dashboard: node of worker %1").arg(h->workerId) : tr("Ray dashboard: cluster nodes");
    if (!dashboard.isValid() || dashboard.isEmpty() || (dashboard.scheme() != u"http" && dashboard.scheme() != u"https")) {
        link.whyNot = tr("the source is not a Ray dashboard URL (--ray)");
        return link;
    }
    if (!s) {
        link.whyNot = tr("no slice chosen");
        return link;
    }
    // The dashboard's pages are hash routes (Ray 2.60's client: "#/cluster", "#/cluster/nodes/ID").
    QUrl url = dashboard.adjusted(QUrl::RemoveUserInfo | QUrl::RemoveQuery | QUrl::RemoveFragment);
    QString path = url.path();
    if (!path.endsWith(u'/'))
        path += u'/';
    url.setPath(path);
    if (h) {
        if (h->rayNode < 0) {
            link.whyNot = tr("worker %1 has no Ray node").arg(h->workerId);
            return link;
        }
        const QString &id = snapshot.rayNodes[h->rayNode].id;
        static const QRegularExpression hex(QStringLiteral("^[0-9a-fA-F]{1,128}$"));
        if (!hex.match(id).hasMatch()) {
            link.whyNot = tr("the Ray node id is not hexadecimal");
            return link;
        }
        url.setFragment(QStringLiteral("/cluster/nodes/") + id);
    } else {
        url.setFragment(QStringLiteral("/cluster"));
    }
    link.url = url;
    return link;
}

QList<ExternalLink> cloudConsoleLinks(const ClusterSnapshot &snapshot, const QString &sliceName, int workerId)
{
    QList<ExternalLink> links;
    const Slice *s = sliceOf(snapshot, sliceName);
    if (!s)
        return links;
    const QString context = !s->context.isEmpty() ? s->context : snapshot.contexts.size() == 1 ? snapshot.contexts.first()
                                                                                               : QString();
    const std::optional<GkeCluster> gke = gkeClusterOfContext(context);
    const QString notGke = context.isEmpty() ? tr("no Kubernetes context is known for this slice")
                                             : tr("context %1 is not a GKE one (gke_PROJECT_LOCATION_CLUSTER)").arg(context);
    const Host *h = hostOf(s, workerId);
    // The node pool: the one the slice's hosts' nodes all say (GKE makes a TPU slice one pool).
    QString pool;
    bool onePool = true;
    for (const Host &host : s->hosts)
        if (host.kubeNode >= 0) {
            const QString &p = snapshot.kubeNodes[host.kubeNode].nodePool;
            if (pool.isEmpty())
                pool = p;
            else if (p != pool)
                onePool = false;
        }
    ExternalLink poolLink{pool.isEmpty() ? tr("Cloud console: node pool") : tr("Cloud console: node pool %1").arg(pool), {}, {}};
    if (!gke)
        poolLink.whyNot = notGke;
    else if (pool.isEmpty())
        poolLink.whyNot = tr("no node of this slice names its node pool");
    else if (!onePool)
        poolLink.whyNot = tr("the slice's nodes are in several node pools");
    else if (!isPlainName(pool))
        poolLink.whyNot = tr("the node pool's name is not a GKE name");
    else
        poolLink.url = consoleUrl(*gke, {QStringLiteral("nodepool"), gke->location, gke->cluster, pool});
    links << poolLink;
    if (!h)
        return links;
    const KubeNode *node = h->kubeNode >= 0 ? &snapshot.kubeNodes[h->kubeNode] : nullptr;
    ExternalLink nodeLink{tr("Cloud console: node of worker %1").arg(h->workerId), {}, {}};
    if (!gke)
        nodeLink.whyNot = notGke;
    else if (!node)
        nodeLink.whyNot = tr("worker %1 has no Kubernetes node").arg(h->workerId);
    else if (!isPlainName(node->name))
        nodeLink.whyNot = tr("the node's name is not a Kubernetes name");
    else
        nodeLink.url = consoleUrl(*gke, {QStringLiteral("node"), gke->location, gke->cluster, node->name, QStringLiteral("summary")});
    links << nodeLink;
    const Pod *pod = h->pod >= 0 ? &snapshot.pods[h->pod] : nullptr;
    ExternalLink podLink{tr("Cloud console: pod of worker %1").arg(h->workerId), {}, {}};
    if (!gke)
        podLink.whyNot = notGke;
    else if (!pod)
        podLink.whyNot = tr("worker %1 has no pod").arg(h->workerId);
    else if (!isPlainName(pod->ns) || !isPlainName(pod->name))
        podLink.whyNot = tr("the pod's name is not a Kubernetes name");
    else
        podLink.url = consoleUrl(*gke, {QStringLiteral("pod"), gke->location, gke->cluster, pod->ns, pod->name, QStringLiteral("details")});
    links << podLink;
    return links;
}

} // namespace slicescope
