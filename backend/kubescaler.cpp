// SPDX-License-Identifier: GPL-3.0-or-later
#include "kubescaler.h"

#include "boundedfile.h"
#include "kubenames.h"

#include "capture.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QUrl>

#include <limits>

namespace slicescope {

namespace {

QString resultName(ScaleOutcome::Result r)
{
    switch (r) {
    case ScaleOutcome::Result::Applied: return QStringLiteral("applied");
    case ScaleOutcome::Result::Conflict: return QStringLiteral("conflict");
    case ScaleOutcome::Result::Refused: return QStringLiteral("refused");
    case ScaleOutcome::Result::Failed: return QStringLiteral("failed");
    }
    return {};
}

} // namespace

QJsonObject ScaleOutcome::toJson() const
{
    return {
        {QStringLiteral("result"), resultName(result)},
        {QStringLiteral("message"), message},
        {QStringLiteral("changedSinceRead"), QJsonArray::fromStringList(changedSinceRead)},
        {QStringLiteral("httpStatus"), httpStatus},
        {QStringLiteral("generation"), generation},
        {QStringLiteral("observedGeneration"), observedGeneration},
        {QStringLiteral("podsExpected"), podsExpected},
        {QStringLiteral("podsNow"), podsNow},
        {QStringLiteral("podsToDeleteLeft"), podsToDeleteLeft},
        {QStringLiteral("complete"), complete},
        {QStringLiteral("workersToDeleteCleared"), workersToDeleteCleared},
        {QStringLiteral("elapsedMs"), elapsedMs},
    };
}

KubeScaler::KubeScaler(KubeClient *client, QObject *parent)
    : QObject(parent)
    , m_client(client)
{
    m_poll.setSingleShot(true);
    connect(&m_poll, &QTimer::timeout, this, &KubeScaler::observe);
}

void KubeScaler::run(const ScalePlan &plan, std::chrono::milliseconds waitFor)
{
    m_plan = plan;
    m_outcome = {};
    m_waitFor = waitFor;
    m_running = true;
    m_clearing = false;
    m_clock.start();
    const WorkerGroup &g = plan.group;
    // The names come from a snapshot (a server's answer): checked before they reach a path.
    QString nameProblem;
    if (const QString rule = dns1123LabelProblem(g.ns); !rule.isEmpty())
        nameProblem = QStringLiteral("the namespace \"%1\" %2").arg(sanitizeForMessage(g.ns, 80), rule);
    else if (const QString rule = dns1123SubdomainProblem(g.cluster); !rule.isEmpty())
        nameProblem = QStringLiteral("the RayCluster name \"%1\" %2").arg(sanitizeForMessage(g.cluster, 80), rule);
    m_clusterPath = QStringLiteral("/apis/ray.io/v1/namespaces/%1/rayclusters/%2").arg(pathSegment(g.ns), pathSegment(g.cluster));
    m_podsPath = QStringLiteral("/api/v1/namespaces/%1/pods?labelSelector=%2")
                     .arg(pathSegment(g.ns), QString::fromLatin1(QUrl::toPercentEncoding(QStringLiteral("ray.io/cluster=%1,ray.io/group=%2").arg(g.cluster, g.group))));
    m_outcome.podsExpected = plan.toReplicas * plan.hostsPerSlice;
    if (!plan.allowed || !nameProblem.isEmpty()) {
        m_outcome.result = ScaleOutcome::Result::Refused;
        m_outcome.message = plan.allowed ? nameProblem : plan.refusal;
        QTimer::singleShot(0, this, &KubeScaler::finish);
        return;
    }
    readBack();
}

void KubeScaler::readBack()
{
    Q_EMIT progress(tr("reading %1/%2 to check nothing changed since the preview").arg(m_plan.group.ns, m_plan.group.cluster));
    m_client->get(m_clusterPath, [this](const QString &error, int status, const QByteArray &body) {
        if (!error.isEmpty()) {
            m_outcome.result = status == 403 ? ScaleOutcome::Result::Refused : ScaleOutcome::Result::Failed;
            m_outcome.httpStatus = status;
            m_outcome.message = tr("could not read the RayCluster: %1").arg(error);
            finish();
            return;
        }
        const QStringList changes = changedSincePlan(m_plan, QJsonDocument::fromJson(body).object());
        if (!changes.isEmpty()) {
            m_outcome.result = ScaleOutcome::Result::Conflict;
            m_outcome.changedSinceRead = changes;
            m_outcome.message = tr("%1 changed since the preview (%2); nothing was written. Look again and confirm the new plan.")
                                    .arg(m_plan.group.qualifiedName(), changes.join(QStringLiteral("; ")));
            finish();
            return;
        }
        if (removesNamedSlices()) {
            checkRemovedSlices(body);
            return;
        }
        if (m_plan.noChange) {
            m_outcome.result = ScaleOutcome::Result::Applied;
            m_outcome.complete = true;
            m_outcome.message = tr("%1 already is as asked; nothing to do").arg(m_plan.group.qualifiedName());
            finish();
            return;
        }
        sendPatch();
    });
}

bool KubeScaler::removesNamedSlices() const
{
    return !m_plan.podsToDelete.isEmpty() && m_plan.toReplicas < m_plan.fromReplicas;
}

void KubeScaler::checkRemovedSlices(const QByteArray &rayCluster)
{
    // workersToDelete names pods: if the slice's pods are not the ones reviewed (replaced, gone,
    // or joined by others), KubeRay would lower replicas and pick a replica itself. Read the
    // group's pods now and group them exactly as the snapshot builder does.
    Q_EMIT progress(tr("reading the pods of %1 to check the slice%2 to remove %3 unchanged")
                        .arg(m_plan.group.qualifiedName(), m_plan.slicesRemoved.size() == 1 ? QString() : QStringLiteral("s"),
                             m_plan.slicesRemoved.size() == 1 ? tr("is") : tr("are")));
    m_client->get(m_podsPath, [this, rayCluster](const QString &error, int status, const QByteArray &body) {
        if (!error.isEmpty()) {
            m_outcome.result = status == 403 ? ScaleOutcome::Result::Refused : ScaleOutcome::Result::Failed;
            m_outcome.httpStatus = status;
            m_outcome.message = tr("could not read the pods of %1 to check the slice to remove; nothing was written: %2")
                                    .arg(m_plan.group.qualifiedName(), error);
            finish();
            return;
        }
        Capture fresh;
        fresh.kubeRayClusters = QByteArrayLiteral("{\"kind\":\"RayClusterList\",\"items\":[") + rayCluster + QByteArrayLiteral("]}");
        fresh.kubePods = body;
        const QStringList changes = removalTargetChanges(m_plan, *buildSnapshot(fresh), true);
        if (!changes.isEmpty()) {
            m_outcome.result = ScaleOutcome::Result::Conflict;
            m_outcome.changedSinceRead = changes;
            m_outcome.message = tr("%1 since the preview; nothing was written. Choose the slice again.").arg(changes.join(QStringLiteral("; ")));
            finish();
            return;
        }
        sendPatch();
    });
}

void KubeScaler::sendPatch()
{
    Q_EMIT progress(tr("patching %1: %2").arg(m_plan.group.qualifiedName(), m_plan.summary));
    m_client->jsonPatch(m_clusterPath, m_plan.jsonPatch(), [this](const QString &error, int status, const QByteArray &body) {
        m_outcome.httpStatus = status;
        if (status == 422 || status == 409) {
            conflictAfter(status, error);
            return;
        }
        if (!error.isEmpty()) {
            m_outcome.result = status >= 400 ? ScaleOutcome::Result::Refused : ScaleOutcome::Result::Failed;
            m_outcome.message = tr("the patch was not applied: %1").arg(error);
            finish();
            return;
        }
        const QJsonObject cluster = QJsonDocument::fromJson(body).object();
        m_outcome.result = ScaleOutcome::Result::Applied;
        m_outcome.generation = cluster.value(QLatin1String("metadata")).toObject().value(QLatin1String("generation")).toInteger();
        m_outcome.observedGeneration = cluster.value(QLatin1String("status")).toObject().value(QLatin1String("observedGeneration")).toInteger();
        Q_EMIT progress(tr("patched: generation %1; waiting for KubeRay").arg(m_outcome.generation));
        observe();
    });
}

void KubeScaler::conflictAfter(int status, const QString &serverMessage)
{
    // The test ops failed: someone wrote in between. Read what is there now and say what changed.
    m_client->get(m_clusterPath, [this, status, serverMessage](const QString &error, int, const QByteArray &body) {
        m_outcome.result = ScaleOutcome::Result::Conflict;
        m_outcome.changedSinceRead = error.isEmpty() ? changedSincePlan(m_plan, QJsonDocument::fromJson(body).object()) : QStringList();
        const QString what = m_outcome.changedSinceRead.isEmpty() ? tr("the server refused the change (%1)").arg(serverMessage)
                                                                  : m_outcome.changedSinceRead.join(QStringLiteral("; "));
        m_outcome.message = tr("%1 was changed by someone else between reading and patching (HTTP %2: %3); nothing was "
                               "written. Look again and confirm the new plan.")
                                .arg(m_plan.group.qualifiedName())
                                .arg(status)
                                .arg(what);
        finish();
    });
}

void KubeScaler::observe()
{
    if (!m_running)
        return;
    m_client->get(m_clusterPath, [this](const QString &error, int, const QByteArray &body) {
        if (!m_running)
            return;
        if (error.isEmpty()) {
            const QJsonObject cluster = QJsonDocument::fromJson(body).object();
            m_outcome.observedGeneration = cluster.value(QLatin1String("status")).toObject().value(QLatin1String("observedGeneration")).toInteger();
        }
        m_client->get(m_podsPath, [this](const QString &error, int, const QByteArray &body) {
            if (!m_running)
                return;
            if (error.isEmpty()) {
                int now = 0, left = 0;
                for (const QJsonValue &item : QJsonDocument::fromJson(body).object().value(QLatin1String("items")).toArray()) {
                    const QJsonObject meta = item.toObject().value(QLatin1String("metadata")).toObject();
                    if (m_plan.podsToDelete.contains(meta.value(QLatin1String("name")).toString()))
                        ++left;
                    if (!meta.contains(QLatin1String("deletionTimestamp")))
                        ++now;
                }
                m_outcome.podsNow = now;
                m_outcome.podsToDeleteLeft = left;
            }
            // KubeRay writes status (observedGeneration with it) only when something in status
            // changes: an edit of the bounds alone may never be "observed".
            const bool boundsOnly = m_plan.toReplicas == m_plan.fromReplicas && m_plan.slicesAdded == 0 && m_plan.slicesRemoved.isEmpty();
            const bool seen = m_outcome.observedGeneration >= m_outcome.generation || boundsOnly;
            const bool podsMatch = (m_plan.group.autoscaling || m_plan.group.suspended || m_outcome.podsNow == m_outcome.podsExpected)
                                   && m_outcome.podsToDeleteLeft == 0;
            const QString text = tr("KubeRay %1 (observedGeneration %2 of %3); pods %4 of %5%6")
                                     .arg(seen ? tr("has seen the change") : tr("has not seen the change yet"))
                                     .arg(m_outcome.observedGeneration)
                                     .arg(m_outcome.generation)
                                     .arg(m_outcome.podsNow)
                                     .arg(m_outcome.podsExpected)
                                     .arg(m_plan.podsToDelete.isEmpty() ? QString() : tr(", %1 to delete still there").arg(m_outcome.podsToDeleteLeft));
            if (text != m_lastProgress) {
                m_lastProgress = text;
                Q_EMIT progress(text);
            }
            const bool needsClear = !m_plan.podsToDelete.isEmpty() && m_plan.toReplicas < m_plan.fromReplicas;
            if (needsClear && m_outcome.podsToDeleteLeft == 0 && !m_outcome.workersToDeleteCleared && !m_clearing) {
                m_clearing = true;
                m_client->jsonPatch(m_clusterPath, m_plan.clearWorkersToDeletePatch(), [this](const QString &error, int status, const QByteArray &) {
                    m_clearing = false;
                    if (error.isEmpty()) {
                        m_outcome.workersToDeleteCleared = true;
                        Q_EMIT progress(tr("the removed slice's pods are gone; workersToDelete cleared"));
                    } else if (status == 422) {
                        // Someone (the autoscaler, another operator) already changed it: leave theirs.
                        m_outcome.workersToDeleteCleared = true;
                        Q_EMIT progress(tr("workersToDelete was already changed by someone else; left as it is"));
                    } else {
                        Q_EMIT progress(tr("clearing workersToDelete failed: %1").arg(error));
                    }
                    observe();
                });
                return;
            }
            m_outcome.complete = seen && podsMatch && (!needsClear || m_outcome.workersToDeleteCleared);
            if (m_outcome.complete || m_clock.elapsed() >= m_waitFor.count()) {
                finish();
                return;
            }
            m_poll.start(m_pollInterval);
        });
    });
}

void KubeScaler::finish()
{
    m_running = false;
    m_poll.stop();
    m_outcome.elapsedMs = m_clock.elapsed();
    if (m_outcome.result == ScaleOutcome::Result::Applied && m_outcome.message.isEmpty()) {
        if (m_outcome.complete)
            m_outcome.message = tr("%1: done in %2 s; KubeRay saw generation %3 and the group has %4 pods")
                                    .arg(m_plan.summary)
                                    .arg(m_outcome.elapsedMs / 1000.0, 0, 'f', 1)
                                    .arg(m_outcome.generation)
                                    .arg(m_outcome.podsNow);
        else
            m_outcome.message = tr("%1: patched (generation %2), but after %3 s %4")
                                    .arg(m_plan.summary)
                                    .arg(m_outcome.generation)
                                    .arg(m_outcome.elapsedMs / 1000.0, 0, 'f', 1)
                                    .arg(m_lastProgress.isEmpty() ? tr("nothing was observed yet") : m_lastProgress);
    }
    Q_EMIT finished(m_outcome);
}

} // namespace slicescope
