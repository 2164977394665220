// SPDX-License-Identifier: GPL-3.0-or-later
#include "slicepgjob.h"

#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QPointer>
#include <QRandomGenerator>

namespace slicescope {

namespace {

const QString kDriverResource = QStringLiteral(":/slicescope/driver/slice_pg_driver.py");

bool isTerminal(const QString &status)
{
    return status == QLatin1String("SUCCEEDED") || status == QLatin1String("FAILED") || status == QLatin1String("STOPPED");
}

QString oneLine(QString text)
{
    text = text.simplified();
    if (text.size() > 600)
        text = text.left(600) + QStringLiteral("...");
    return text;
}

} // namespace

QByteArray slicePgDriverSource()
{
    QFile f(kDriverResource);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("the slice placement group driver is missing from the binary's resources");
    return f.readAll();
}

QString slicePgEntrypoint()
{
    // Generic on purpose: the same command for every request, so the job's shell never sees
    // anything an operator typed.
    return QStringLiteral("python -c \"import os;exec(os.environ['%1'])\"").arg(QLatin1String(kDriverEnvVar));
}

QString newSliceJobSubmissionId()
{
    const quint64 r = QRandomGenerator::system()->generate64();
    return QStringLiteral("slicescope-%1").arg(r, 16, 16, QLatin1Char('0'));
}

QJsonObject createRequestJson(const SlicePgRequest &request)
{
    return {
        {QStringLiteral("mode"), QStringLiteral("create")},
        {QStringLiteral("topology"), request.topology},
        {QStringLiteral("accelerator_version"), request.acceleratorVersion},
        {QStringLiteral("num_slices"), request.numSlices},
        // Only the CPU: Ray adds the host's chips (TPU: chips per host) to each bundle itself.
        {QStringLiteral("resources_per_bundle"), QJsonObject{{QStringLiteral("CPU"), request.cpuPerBundle}}},
        {QStringLiteral("name"), request.name},
        {QStringLiteral("detached"), request.detached},
        {QStringLiteral("strategy"), request.strategy},
        {QStringLiteral("timeout_s"), request.timeoutS},
    };
}

QJsonObject removeRequestJson(const QString &placementGroupId, const QString &name, int timeoutS)
{
    return {
        {QStringLiteral("mode"), QStringLiteral("remove")},
        {QStringLiteral("placement_group_id"), placementGroupId},
        {QStringLiteral("name"), name},
        {QStringLiteral("timeout_s"), timeoutS},
    };
}

QJsonObject sliceJobBody(const QJsonObject &driverRequest, const QString &submissionId, const QString &name)
{
    const bool remove = driverRequest.value(QLatin1String("mode")).toString() == QLatin1String("remove");
    const QJsonObject env{
        {QLatin1String(kDriverEnvVar), QString::fromUtf8(slicePgDriverSource())},
        {QLatin1String(kRequestEnvVar), QString::fromUtf8(QJsonDocument(driverRequest).toJson(QJsonDocument::Compact))},
    };
    return {
        {QStringLiteral("entrypoint"), slicePgEntrypoint()},
        {QStringLiteral("submission_id"), submissionId},
        {QStringLiteral("runtime_env"), QJsonObject{{QStringLiteral("env_vars"), env}}},
        {QStringLiteral("metadata"), QJsonObject{{QStringLiteral("slicescope"), remove ? QStringLiteral("slice-pg-remove") : QStringLiteral("slice-pg")},
                                                 {QStringLiteral("name"), name}}},
    };
}

QJsonObject sliceJobForDisplay(const QJsonObject &jobBody)
{
    QJsonObject shown = jobBody;
    QJsonObject runtimeEnv = shown.value(QLatin1String("runtime_env")).toObject();
    QJsonObject env = runtimeEnv.value(QLatin1String("env_vars")).toObject();
    const QByteArray driver = env.value(QLatin1String(kDriverEnvVar)).toString().toUtf8();
    env.insert(QLatin1String(kDriverEnvVar),
               QStringLiteral("<resources/driver/slice_pg_driver.py: %1 bytes, sha256 %2>")
                   .arg(driver.size())
                   .arg(QString::fromLatin1(QCryptographicHash::hash(driver, QCryptographicHash::Sha256).toHex())));
    runtimeEnv.insert(QStringLiteral("env_vars"), env);
    shown.insert(QStringLiteral("runtime_env"), runtimeEnv);
    // The request as the object it is, so a reader need not unescape it.
    shown.insert(QStringLiteral("request"), QJsonDocument::fromJson(env.value(QLatin1String(kRequestEnvVar)).toString().toUtf8()).object());
    return shown;
}

bool parseDriverResult(const QString &logs, QJsonObject &result)
{
    const QString prefix = QLatin1String(kResultPrefix);
    qsizetype at = logs.lastIndexOf(prefix);
    // Only at the start of a line: a traceback quoting the prefix is not a result.
    while (at > 0 && logs.at(at - 1) != u'\n')
        at = logs.lastIndexOf(prefix, at - 1);
    if (at < 0)
        return false;
    const qsizetype end = logs.indexOf(u'\n', at);
    const QString line = logs.mid(at + prefix.size(), end < 0 ? -1 : end - at - prefix.size());
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(line.toUtf8(), &error);
    if (!doc.isObject())
        return false; // half a line: the rest arrives with the next read
    result = doc.object();
    return true;
}

SliceJobFollower::SliceJobFollower(RayClient *client, QObject *parent)
    : QObject(parent), m_client(client)
{
    m_pollTimer.setSingleShot(true);
    m_deadline.setSingleShot(true);
    connect(&m_pollTimer, &QTimer::timeout, this, &SliceJobFollower::pollJob);
    connect(&m_deadline, &QTimer::timeout, this, &SliceJobFollower::onDeadline);
}

void SliceJobFollower::start(const QJsonObject &jobBody, std::chrono::milliseconds deadline)
{
    m_done = false;
    m_status.clear();
    m_deadlineLength = deadline;
    QPointer<SliceJobFollower> self(this);
    m_client->submitJob(jobBody, [self](const QString &error, int, const QByteArray &body) {
        if (!self || self->m_done)
            return;
        if (!error.isEmpty()) {
            self->finishWithError(QStringLiteral("the job was not submitted: %1").arg(error));
            return;
        }
        self->m_submissionId = QJsonDocument::fromJson(body).object().value(QLatin1String("submission_id")).toString();
        if (self->m_submissionId.isEmpty()) {
            self->finishWithError(QStringLiteral("Ray accepted the job but named no submission_id"));
            return;
        }
        Q_EMIT self->submitted(self->m_submissionId);
        self->m_deadline.start(self->m_deadlineLength);
        self->pollJob();
    });
}

void SliceJobFollower::pollJob()
{
    if (m_done)
        return;
    QPointer<SliceJobFollower> self(this);
    m_client->getJob(m_submissionId, [self](const QString &error, int, const QByteArray &body) {
        if (!self || self->m_done)
            return;
        if (!error.isEmpty()) {
            self->finishWithError(error);
            return;
        }
        self->onJob(body);
    });
}

void SliceJobFollower::onJob(const QByteArray &body)
{
    const QJsonObject job = QJsonDocument::fromJson(body).object();
    const QString status = job.value(QLatin1String("status")).toString();
    m_jobMessage = job.value(QLatin1String("message")).toString();
    if (status != m_status) {
        m_status = status;
        Q_EMIT statusChanged(status);
    }
    if (status == QLatin1String("PENDING")) {
        m_pollTimer.start(m_interval); // no driver yet, so no log
        return;
    }
    const bool finalRead = isTerminal(status);
    QPointer<SliceJobFollower> self(this);
    m_client->getJobLogs(m_submissionId, [self, finalRead](const QString &error, int, const QByteArray &logs) {
        if (!self || self->m_done)
            return;
        if (!error.isEmpty()) {
            self->finishWithError(error);
            return;
        }
        self->onLogs(logs, finalRead);
    });
}

void SliceJobFollower::onLogs(const QByteArray &body, bool finalRead)
{
    const QString logs = QJsonDocument::fromJson(body).object().value(QLatin1String("logs")).toString();
    QJsonObject result;
    if (parseDriverResult(logs, result)) {
        m_done = true;
        m_pollTimer.stop();
        m_deadline.stop();
        if (result.value(QLatin1String("ok")).toBool()) {
            result.insert(QStringLiteral("jobId"), m_submissionId);
            Q_EMIT resultReceived(result);
        } else {
            Q_EMIT failed(QStringLiteral("job %1: %2").arg(m_submissionId, result.value(QLatin1String("message")).toString()));
        }
        return;
    }
    if (finalRead) {
        // The driver died before it could say anything (killed, out of memory, no python...).
        finishWithError(QStringLiteral("job %1 ended %2 without a result: %3").arg(m_submissionId, m_status, oneLine(m_jobMessage)));
        return;
    }
    m_pollTimer.start(m_interval);
}

void SliceJobFollower::finishWithError(const QString &message)
{
    m_done = true;
    m_pollTimer.stop();
    m_deadline.stop();
    Q_EMIT failed(message);
}

void SliceJobFollower::onDeadline()
{
    if (m_done)
        return;
    m_done = true;
    m_pollTimer.stop();
    // Stop the job before saying so: whatever it reserved meanwhile goes with it.
    const QString message = QStringLiteral("job %1 gave no result within %2 s (last status %3); stopped it")
                                .arg(m_submissionId).arg(double(m_deadlineLength.count()) / 1000.0).arg(m_status.isEmpty() ? QStringLiteral("unknown") : m_status);
    QPointer<SliceJobFollower> self(this);
    m_client->stopJob(m_submissionId, [self, message](const QString &error, int, const QByteArray &) {
        if (!self)
            return;
        Q_EMIT self->failed(error.isEmpty() ? message : message + QStringLiteral(" (the stop request failed: %1)").arg(error));
    });
}

} // namespace slicescope
