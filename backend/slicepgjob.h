// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Creating and removing TPU slice placement groups through Ray jobs (docs/facts.md 2.2: no HTTP route
// creates a placement group, a job's driver must). The driver is a fixed Python program compiled
// into the binary (resources/driver/slice_pg_driver.py); the job's entrypoint is fixed and generic
// and the request reaches the driver only as data, JSON in a runtime-env variable, so nothing an
// operator types can become code.
//
// The driver travels the way Ray's own job SDK ships a working_dir: as a zip package in the GCS
// (PUT /api/packages/gcs/_ray_pkg_<hash>.zip), named after its content, uploaded only when the
// GCS does not hold it already, and referenced as runtime_env.working_dir. It used to ride in an
// environment variable, but Ray returns every job's runtime_env in GET /api/jobs/, which the live
// source polls every 2 s: 7 KB of driver per job made that list grow without bound.
//
// SliceJobFollower submits one such job and follows it on the event loop (timers and replies,
// never a nested loop) until the driver prints its result line, the job ends, or the deadline
// passes; on the deadline it stops the job, so nothing it reserved stays behind.

#include "rayclient.h"

#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QPair>
#include <QString>
#include <QTimer>

#include <chrono>

namespace slicescope {

// What `slicescope submit-slice-pg` asks for.
struct SlicePgRequest {
    QString topology;           // "4x4"
    QString acceleratorVersion; // as Ray spells it: "v6e", "v5litepod", "v4"...
    int numSlices = 1;
    QString name;
    bool detached = false;
    double cpuPerBundle = 1;
    int tpuPerBundle = 0;       // 0: not sent, Ray gives each bundle the host's chips
    int chipsPerVm = 0;         // 0: not sent, Ray's get_chips_per_host() decides
    QString strategy = QStringLiteral("SPREAD");
    int timeoutS = 60;          // head reservations and ready(), inside the driver
};

// The variable the driver reads its request from.
inline constexpr char kRequestEnvVar[] = "SLICESCOPE_REQUEST";
// The driver's file name inside its package (and the entrypoint's argument).
inline constexpr char kDriverFileName[] = "slice_pg_driver.py";
// The line the driver prints its one JSON result on.
inline constexpr char kResultPrefix[] = "SLICESCOPE_RESULT ";
// The Ray namespace the driver connects in: detached groups are found there by name.
inline constexpr char kDriverNamespace[] = "slicescope";

// The driver's Python text, from the binary's resources.
QByteArray slicePgDriverSource();
// The driver as a Ray working_dir package: a zip holding only slice_pg_driver.py, named
// _ray_pkg_<first 32 hex digits of the zip's SHA-256>.zip, so a changed driver is a new package
// and the same driver is never uploaded twice.
struct DriverPackage {
    QString name;   // "_ray_pkg_<hex>.zip"
    QByteArray zip;
    QString uri() const { return QStringLiteral("gcs://") + name; }
};
const DriverPackage &slicePgDriverPackage();
// A zip archive of `files` (name, content), stored without compression, with fixed timestamps so
// the same files always give the same bytes (and so the same package name).
QByteArray storedZip(const QList<QPair<QString, QByteArray>> &files);
// The fixed entrypoint: python slice_pg_driver.py (run in the unpacked working_dir).
QString slicePgEntrypoint();
// A fresh submission id: "slicescope-" and 16 random hex digits.
QString newSliceJobSubmissionId();

// The request as the driver reads it (SLICESCOPE_REQUEST).
QJsonObject createRequestJson(const SlicePgRequest &request);
QJsonObject removeRequestJson(const QString &placementGroupId, const QString &name, int timeoutS);

// The POST /api/jobs/ body for a driver request: the fixed entrypoint, the driver package as
// runtime_env.working_dir, the request in runtime_env.env_vars, metadata
// {"slicescope": "slice-pg"|"slice-pg-remove", "name"}.
QJsonObject sliceJobBody(const QJsonObject &driverRequest, const QString &submissionId, const QString &name);
// The same body for people to read: plus "driver" (the package's file, size and SHA-256; it is
// the file in the repository) and the request shown as the JSON object it is.
QJsonObject sliceJobForDisplay(const QJsonObject &jobBody);

// Finds the driver's result line in a job log: the last line starting with kResultPrefix.
// Returns false when there is none yet.
bool parseDriverResult(const QString &logs, QJsonObject &result);

class SliceJobFollower : public QObject
{
    Q_OBJECT
public:
    explicit SliceJobFollower(RayClient *client, QObject *parent = nullptr);

    // How often the job's status and log are read while waiting (default 500 ms).
    void setPollInterval(std::chrono::milliseconds interval) { m_interval = interval; }
    // Submits `jobBody` and follows it. Past `deadline` the job is stopped and failed() says so.
    // When the body's working_dir is the driver package, the package is uploaded first unless
    // the GCS holds it already (asking also pins it there for Ray's pin time, 10 minutes).
    void start(const QJsonObject &jobBody, std::chrono::milliseconds deadline);
    QString submissionId() const { return m_submissionId; }
    QString lastStatus() const { return m_status; }

Q_SIGNALS:
    // Ray accepted the job.
    void submitted(const QString &submissionId);
    // The job's status changed (PENDING, RUNNING, SUCCEEDED, FAILED, STOPPED).
    void statusChanged(const QString &status);
    // The driver printed {"ok": true, ...}. A non-detached group's job keeps running.
    void resultReceived(const QJsonObject &result);
    // One line: the driver's own message, or the job's, or the request that failed.
    void failed(const QString &message);

private:
    void submit(const QJsonObject &jobBody);
    void pollJob();
    void onJob(const QByteArray &body);
    void onLogs(const QByteArray &body, bool finalRead);
    void finishWithError(const QString &message);
    void onDeadline();

    RayClient *m_client;
    QTimer m_pollTimer;
    QTimer m_deadline;
    std::chrono::milliseconds m_interval{500};
    std::chrono::milliseconds m_deadlineLength{0};
    QString m_submissionId;
    QString m_status;
    QString m_jobMessage;
    bool m_done = false;
};

} // namespace slicescope
