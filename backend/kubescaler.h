// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Carries out a ScalePlan on a live RayCluster (docs/facts.md 4.1) and reports what it observed:
//   1. re-reads the RayCluster and checks that the group still is as the plan saw it; for a
//      removal that names pods, also re-reads the group's pods and checks that each slice to
//      remove still has exactly the pods reviewed (else nothing is written: never another slice);
//   2. sends the plan's JSON Patch, whose `test` ops make the server refuse (422) if someone
//      changed the values in between; a 409 is treated the same. Never retried blindly: the
//      outcome says what changed, and the caller asks the operator again;
//   3. watches the outcome: metadata.generation against status.observedGeneration, the group's
//      pods appearing or going; and once a removed slice's pods are gone, clears workersToDelete.

#include "kubeclient.h"
#include "scaleplan.h"

#include <QElapsedTimer>
#include <QJsonObject>
#include <QObject>
#include <QTimer>

#include <chrono>

namespace slicescope {

struct ScaleOutcome {
    enum class Result
    {
        Applied,   // patched; `observed` says how far the cluster got
        Conflict,  // someone else changed the group: nothing was written
        Refused,   // the server refused (RBAC, validation): nothing was written
        Failed,    // could not talk to the server
    };
    Result result = Result::Failed;
    QString message;                 // one paragraph, for people
    QStringList changedSinceRead;    // on Conflict: "replicas 2 -> 3", ...
    int httpStatus = 0;
    qint64 generation = 0;           // after the patch
    qint64 observedGeneration = 0;   // last seen
    int podsExpected = 0;            // replicas x numOfHosts
    int podsNow = 0;                 // the group's pods not being deleted
    int podsToDeleteLeft = 0;        // of workersToDelete, still present
    bool complete = false;           // KubeRay saw it and the pods match
    bool workersToDeleteCleared = false;
    qint64 elapsedMs = 0;
    QJsonObject toJson() const;
};

class KubeScaler : public QObject
{
    Q_OBJECT
public:
    explicit KubeScaler(KubeClient *client, QObject *parent = nullptr);

    // Observation polls every `pollInterval` (default 500 ms) for up to `waitFor` (0: patch and
    // report at once). `finished` is emitted once, never synchronously.
    void setPollInterval(std::chrono::milliseconds interval) { m_pollInterval = interval; }
    void run(const ScalePlan &plan, std::chrono::milliseconds waitFor);
    bool isRunning() const { return m_running; }

Q_SIGNALS:
    void progress(const QString &text);
    void finished(const slicescope::ScaleOutcome &outcome);

private:
    void readBack();
    bool removesNamedSlices() const;
    void checkRemovedSlices(const QByteArray &rayCluster);
    void sendPatch();
    void conflictAfter(int status, const QString &serverMessage);
    void observe();
    void finish();

    KubeClient *m_client;
    ScalePlan m_plan;
    ScaleOutcome m_outcome;
    QString m_clusterPath;
    QString m_podsPath;
    std::chrono::milliseconds m_waitFor{0};
    std::chrono::milliseconds m_pollInterval{500};
    QElapsedTimer m_clock;
    QTimer m_poll;
    bool m_running = false;
    bool m_clearing = false;
    QString m_lastProgress;
};

// changedSincePlan(), the conflict check, is in scaleplan.h (the demo uses it too).

} // namespace slicescope

Q_DECLARE_METATYPE(slicescope::ScaleOutcome)
