// SPDX-License-Identifier: GPL-3.0-or-later
#include "slicepgjob.h"

#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QPointer>
#include <QRandomGenerator>

#include <array>

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

namespace {

quint32 crc32(const QByteArray &data)
{
    static const auto table = [] {
        std::array<quint32, 256> t{};
        for (quint32 i = 0; i < 256; ++i) {
            quint32 c = i;
            for (int k = 0; k < 8; ++k)
                c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            t[i] = c;
        }
        return t;
    }();
    quint32 crc = 0xFFFFFFFFu;
    for (const char ch : data)
        crc = table[(crc ^ quint8(ch)) & 0xFF] ^ (crc >> 8);
    return crc ^ 0xFFFFFFFFu;
}

void put16(QByteArray &out, quint16 v)
{
    out.append(char(v & 0xFF)).append(char(v >> 8));
}

void put32(QByteArray &out, quint32 v)
{
    put16(out, quint16(v & 0xFFFF));
    put16(out, quint16(v >> 16));
}

} // namespace

QByteArray storedZip(const QList<QPair<QString, QByteArray>> &files)
{
    // The smallest zip Python's zipfile (which Ray unpacks with) accepts: local headers, the
    // central directory, its end record; method 0 (stored), no extra fields, no zip64 (the
    // driver is kilobytes). DOS time 1980-01-01 00:00 keeps the bytes reproducible.
    constexpr quint16 kDosDate = (0 << 9) | (1 << 5) | 1;
    constexpr quint16 kDosTime = 0;
    constexpr quint32 kUnixRegularFile0644 = 0100644u;
    QByteArray out, central;
    for (const auto &[name, content] : files) {
        const QByteArray fileName = name.toUtf8();
        const quint32 offset = quint32(out.size());
        const quint32 crc = crc32(content);
        const quint32 size = quint32(content.size()); // lambdas may not capture structured bindings in clang 14 (wasm)
        auto header = [&](QByteArray &to, bool centralEntry) {
            put32(to, centralEntry ? 0x02014b50u : 0x04034b50u);
            if (centralEntry)
                put16(to, (3 << 8) | 20); // made by: Unix, zip 2.0, so the mode below counts
            put16(to, 20);                // version needed to extract
            put16(to, 0x0800);            // flags: the name is UTF-8
            put16(to, 0);                 // stored
            put16(to, kDosTime);
            put16(to, kDosDate);
            put32(to, crc);
            put32(to, size);
            put32(to, size);
            put16(to, quint16(fileName.size()));
            put16(to, 0); // extra field length
            if (centralEntry) {
                put16(to, 0); // comment length
                put16(to, 0); // disk number
                put16(to, 0); // internal attributes
                put32(to, kUnixRegularFile0644 << 16);
                put32(to, offset);
            }
            to.append(fileName);
        };
        header(out, false);
        out.append(content);
        header(central, true);
    }
    const quint32 centralOffset = quint32(out.size());
    out.append(central);
    put32(out, 0x06054b50u);
    put16(out, 0); // this disk
    put16(out, 0); // the disk with the central directory
    put16(out, quint16(files.size()));
    put16(out, quint16(files.size()));
    put32(out, quint32(central.size()));
    put32(out, centralOffset);
    put16(out, 0); // comment length
    return out;
}

const DriverPackage &slicePgDriverPackage()
{
    static const DriverPackage package = [] {
        DriverPackage p;
        p.zip = storedZip({{QLatin1String(kDriverFileName), slicePgDriverSource()}});
        // Ray names its own packages _ray_pkg_<hash>.zip; any content hash will do, the name
        // only has to change whenever the content does.
        const QByteArray hash = QCryptographicHash::hash(p.zip, QCryptographicHash::Sha256).toHex().left(32);
        p.name = QStringLiteral("_ray_pkg_%1.zip").arg(QString::fromLatin1(hash));
        return p;
    }();
    return package;
}

QString slicePgEntrypoint()
{
    // Generic on purpose: the same command for every request, so the job's shell never sees
    // anything an operator typed. Ray runs it in the unpacked working_dir.
    return QStringLiteral("python %1").arg(QLatin1String(kDriverFileName));
}

QString newSliceJobSubmissionId()
{
    const quint64 r = QRandomGenerator::system()->generate64();
    return QStringLiteral("slicescope-%1").arg(r, 16, 16, QLatin1Char('0'));
}

QJsonObject createRequestJson(const SlicePgRequest &request)
{
    // Without "TPU" Ray adds the host's chips to each bundle itself; with it, Ray makes
    // chips / TPU bundles per slice. chips_per_vm only when asked: Ray's default is the rule.
    QJsonObject resources{{QStringLiteral("CPU"), request.cpuPerBundle}};
    if (request.tpuPerBundle > 0)
        resources.insert(QStringLiteral("TPU"), request.tpuPerBundle);
    QJsonObject json{
        {QStringLiteral("mode"), QStringLiteral("create")},
        {QStringLiteral("topology"), request.topology},
        {QStringLiteral("accelerator_version"), request.acceleratorVersion},
        {QStringLiteral("num_slices"), request.numSlices},
        {QStringLiteral("resources_per_bundle"), resources},
        {QStringLiteral("name"), request.name},
        {QStringLiteral("detached"), request.detached},
        {QStringLiteral("strategy"), request.strategy},
        {QStringLiteral("timeout_s"), request.timeoutS},
    };
    if (request.chipsPerVm > 0)
        json.insert(QStringLiteral("chips_per_vm"), request.chipsPerVm);
    return json;
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
        {QLatin1String(kRequestEnvVar), QString::fromUtf8(QJsonDocument(driverRequest).toJson(QJsonDocument::Compact))},
    };
    return {
        {QStringLiteral("entrypoint"), slicePgEntrypoint()},
        {QStringLiteral("submission_id"), submissionId},
        {QStringLiteral("runtime_env"), QJsonObject{{QStringLiteral("working_dir"), slicePgDriverPackage().uri()}, {QStringLiteral("env_vars"), env}}},
        {QStringLiteral("metadata"), QJsonObject{{QStringLiteral("slicescope"), remove ? QStringLiteral("slice-pg-remove") : QStringLiteral("slice-pg")},
                                                 {QStringLiteral("name"), name}}},
    };
}

QJsonObject sliceJobForDisplay(const QJsonObject &jobBody)
{
    QJsonObject shown = jobBody;
    const QJsonObject runtimeEnv = shown.value(QLatin1String("runtime_env")).toObject();
    const QJsonObject env = runtimeEnv.value(QLatin1String("env_vars")).toObject();
    if (runtimeEnv.value(QLatin1String("working_dir")).toString() == slicePgDriverPackage().uri()) {
        const QByteArray driver = slicePgDriverSource();
        shown.insert(QStringLiteral("driver"),
                     QStringLiteral("%1 holds resources/driver/%2: %3 bytes, sha256 %4")
                         .arg(slicePgDriverPackage().uri(), QLatin1String(kDriverFileName))
                         .arg(driver.size())
                         .arg(QString::fromLatin1(QCryptographicHash::hash(driver, QCryptographicHash::Sha256).toHex())));
    }
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
    : QObject(parent)
    , m_client(client)
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
    const DriverPackage &package = slicePgDriverPackage();
    if (jobBody.value(QLatin1String("runtime_env")).toObject().value(QLatin1String("working_dir")).toString() != package.uri()) {
        submit(jobBody);
        return;
    }
    // Like Ray's job SDK: ask whether the GCS holds the package, upload it only when it does not.
    // Ray drops a package nobody references (a few minutes after its last job), so this is asked
    // before every submission rather than remembered.
    QPointer<SliceJobFollower> self(this);
    m_client->getPackage(package.name, [self, jobBody](const QString &error, int status, const QByteArray &) {
        if (!self || self->m_done)
            return;
        if (error.isEmpty()) {
            self->submit(jobBody);
            return;
        }
        if (status != 404) {
            self->finishWithError(QStringLiteral("the driver package could not be checked: %1").arg(error));
            return;
        }
        const DriverPackage &package = slicePgDriverPackage();
        self->m_client->putPackage(package.name, package.zip, [self, jobBody](const QString &error, int, const QByteArray &) {
            if (!self || self->m_done)
                return;
            if (!error.isEmpty()) {
                self->finishWithError(QStringLiteral("the driver package was not uploaded: %1").arg(error));
                return;
            }
            self->submit(jobBody);
        });
    });
}

void SliceJobFollower::submit(const QJsonObject &jobBody)
{
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
                                .arg(m_submissionId)
                                .arg(double(m_deadlineLength.count()) / 1000.0)
                                .arg(m_status.isEmpty() ? QStringLiteral("unknown") : m_status);
    QPointer<SliceJobFollower> self(this);
    m_client->stopJob(m_submissionId, [self, message](const QString &error, int, const QByteArray &) {
        if (!self)
            return;
        Q_EMIT self->failed(error.isEmpty() ? message : message + QStringLiteral(" (the stop request failed: %1)").arg(error));
    });
}

} // namespace slicescope
