// SPDX-License-Identifier: GPL-3.0-or-later
#include "capturefile.h"

#include "boundedfile.h"
#include "logging.h"
#include "jsonlocate.h"

#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QSaveFile>
#include <QStandardPaths>
#include <QTemporaryFile>

#include <simdjson.h>

#include <algorithm>
#include <cctype>

namespace slicescope {

namespace {
constexpr qint64 kMaxCaptureFileBytes = filelimits::kCaptureFileBytes; // refuse absurd inputs instead of exhausting memory
} // namespace

CaptureReadResult readCaptureFile(const QString &path)
{
    // A FIFO or a device is refused, a file past the bound is not read (boundedfile.h).
    QByteArray bytes;
    if (const QString error = readBoundedFile(path, kMaxCaptureFileBytes, QStringLiteral("the file"), bytes); !error.isEmpty()) {
        CaptureReadResult result;
        result.error = QStringLiteral("%1: %2").arg(path, error); // "x.json: the file is a FIFO ..."
        return result;
    }
    return parseCaptureOrRecording(bytes, path, path.endsWith(QLatin1String(".jsonl")));
}

QString writeCaptureFile(const QString &path, const Capture &capture)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return QStringLiteral("%1: cannot write: %2").arg(path, file.errorString());
    QByteArray bytes = serializeCapture(capture);
    bytes += '\n';
    if (file.write(bytes) != bytes.size() || !file.commit())
        return QStringLiteral("%1: cannot write: %2").arg(path, file.errorString());
    return {};
}

// ---- RecordingReader ------------------------------------------------------------------------------

RecordingReader::RecordingReader(QString path)
    : m_path(std::move(path))
{ }

RecordingReader::~RecordingReader() = default;

QString RecordingReader::open()
{
    m_error.clear();
    m_end = true;
    if (!m_path.endsWith(QLatin1String(".jsonl"))) {
        // A single capture may be pretty-printed over many lines: read it whole, as the verbs do.
        CaptureReadResult whole = readCaptureFile(m_path);
        if (!whole.ok())
            return m_error = whole.error;
        m_whole = std::move(whole.captures);
        m_size = QFileInfo(m_path).size();
        m_end = m_whole.isEmpty();
        return {};
    }
    if (const QString error = openBoundedFile(m_path, kMaxCaptureFileBytes, QStringLiteral("the file"), m_file); !error.isEmpty())
        return m_error = QStringLiteral("%1: %2").arg(m_path, error);
    m_size = m_file->size();
    m_end = false;
    skipBlankLines();
    if (!m_error.isEmpty())
        return m_error;
    if (m_pending.isEmpty())
        return m_error = m_size == 0 ? QStringLiteral("%1: the file is empty").arg(m_path)
                                     : QStringLiteral("%1: the recording holds no capture").arg(m_path);
    return {};
}

bool RecordingReader::readLine(QByteArray &line)
{
    if (!m_file || m_file->atEnd())
        return false;
    // In pieces: QIODevice::readLine(n) allocates n bytes up front, and n here would be the 2 GB
    // bound, for every line.
    constexpr qint64 kPiece = 64 * 1024;
    line.clear();
    while (qint64(line.size()) < kMaxCaptureFileBytes && !line.endsWith('\n')) {
        const QByteArray piece = m_file->readLine(std::min<qint64>(kPiece, kMaxCaptureFileBytes - line.size() + 1));
        if (piece.isEmpty())
            break;
        line += piece;
    }
    ++m_line;
    if (line.size() >= kMaxCaptureFileBytes && !line.endsWith('\n')) {
        m_error = QStringLiteral("%1: line %2 is too large (the limit is %3 bytes)").arg(m_path).arg(m_line).arg(kMaxCaptureFileBytes);
        return false;
    }
    return true;
}

void RecordingReader::skipBlankLines()
{
    m_pending.clear();
    QByteArray line;
    while (readLine(line)) {
        if (!line.trimmed().isEmpty()) {
            if (line.endsWith('\n'))
                line.chop(1);
            m_pending = std::move(line);
            m_pendingLine = m_line;
            return;
        }
    }
    m_end = true;
}

bool RecordingReader::next(Capture &capture)
{
    if (!m_error.isEmpty())
        return false;
    if (!m_file) {
        if (m_whole.isEmpty())
            return false;
        capture = m_whole.takeFirst();
        m_end = m_whole.isEmpty();
        ++m_read;
        return true;
    }
    if (m_pending.isEmpty())
        return false;
    CaptureReadResult one = parseCapture(m_pending, m_path, m_pendingLine); // places are places in the file
    if (!one.ok()) {
        m_error = one.error;
        m_pending.clear();
        m_end = true;
        return false;
    }
    capture = std::move(one.captures.first());
    ++m_read;
    skipBlankLines();
    return true;
}

bool RecordingReader::atEnd() const
{
    return m_end || !m_error.isEmpty();
}

qint64 RecordingReader::bytesRead() const
{
    if (!m_file)
        return m_end ? m_size : 0;
    return m_end ? m_size : m_file->pos() - m_pending.size() - 1;
}

// ---- CaptureSpool -------------------------------------------------------------------------------

namespace {

constexpr auto kSpoolPattern = "slicescope-spool-";
constexpr qint64 kLeftoverAgeSeconds = 2 * 24 * 3600;

// On disk, not in memory: the user's cache (a temp directory may be a RAM disk). Created when the
// first capture is written, so a window that never keeps one leaves no trace.
QString defaultSpoolDirectory()
{
    const QString cache = QStandardPaths::writableLocation(QStandardPaths::CacheLocation);
    return cache.isEmpty() ? QDir::tempPath() : cache + QStringLiteral("/spool");
}

} // namespace

struct CaptureSpool::Segment {
    QTemporaryFile file; // removed with the segment
    qint64 size = 0;
};

CaptureSpool::CaptureSpool(QString directory, qint64 segmentBytes)
    : m_directory(directory.isEmpty() ? defaultSpoolDirectory() : std::move(directory))
    , m_segmentBytes(std::max<qint64>(1, segmentBytes))
{
    removeCrashLeftovers();
}

CaptureSpool::~CaptureSpool() = default;

void CaptureSpool::removeCrashLeftovers() const
{
    // A live spool appends every few seconds; a file untouched for days belongs to nobody.
    const QDateTime cutoff = QDateTime::currentDateTimeUtc().addSecs(-kLeftoverAgeSeconds);
    if (!QFileInfo(m_directory).isDir())
        return;
    QDirIterator it(m_directory, {QLatin1String(kSpoolPattern) + QStringLiteral("*.jsonl")}, QDir::Files);
    while (it.hasNext()) {
        const QFileInfo info = it.nextFileInfo();
        if (info.lastModified().toUTC() < cutoff && QFile::remove(info.filePath()))
            qCDebug(lcHistory).noquote() << QStringLiteral("spool: removed %1, left behind by a process that ended (untouched since %2)")
                                                .arg(info.fileName(), info.lastModified().toUTC().toString(Qt::ISODate));
    }
}

QString CaptureSpool::startSegment()
{
    if (!QDir().mkpath(m_directory)) {
        const QString fallback = QDir::tempPath();
        if (m_directory == fallback || !QDir().mkpath(fallback))
            return QStringLiteral("%1: cannot create the history spool directory").arg(m_directory);
        m_directory = fallback;
    }
    auto segment = std::make_unique<Segment>();
    segment->file.setFileTemplate(m_directory + u'/' + QLatin1String(kSpoolPattern) + QStringLiteral("XXXXXX.jsonl"));
    if (!segment->file.open())
        return QStringLiteral("%1: cannot create a history spool file: %2").arg(m_directory, segment->file.errorString());
    qCDebug(lcHistory).noquote() << QStringLiteral("spool: segment %1 started (%2 MB each; %3 MB held, at most %4 MB)")
                                        .arg(segment->file.fileName())
                                        .arg(m_segmentBytes >> 20)
                                        .arg(m_bytes >> 20)
                                        .arg(m_maxBytes >> 20);
    m_segments.push_back(std::move(segment));
    return {};
}

CaptureSpool::Segment *CaptureSpool::segment(qint64 id) const
{
    const qint64 i = id - m_firstSegment;
    return i >= 0 && i < qint64(m_segments.size()) ? m_segments[size_t(i)].get() : nullptr;
}

QString CaptureSpool::append(qint64 serial, const Capture &capture)
{
    QByteArray line = serializeCapture(capture);
    line += '\n';
    if (m_segments.empty() || (m_segments.back()->size >= m_segmentBytes && m_segments.back()->size > 0))
        if (QString error = startSegment(); !error.isEmpty())
            return error;
    Segment *s = m_segments.back().get();
    if (!s->file.seek(s->size) || s->file.write(line) != line.size() || !s->file.flush()) {
        const QString error = QStringLiteral("%1: writing the history spool failed: %2").arg(s->file.fileName(), s->file.errorString());
        s->file.resize(s->size); // no half record
        return error;
    }
    m_records.push_back({serial, m_firstSegment + qint64(m_segments.size()) - 1, s->size, line.size()});
    s->size += line.size();
    m_bytes += line.size();
    if (m_maxBytes > 0 && m_bytes > m_maxBytes && m_records.size() > 1) {
        const qsizetype before = qsizetype(m_records.size());
        while (m_maxBytes > 0 && m_bytes > m_maxBytes && m_records.size() > 1)
            dropFront();
        qCDebug(lcHistory).noquote() << QStringLiteral("spool: over its %1 MB bound: the oldest %2 capture(s) dropped; %3 held from serial %4")
                                            .arg(m_maxBytes >> 20)
                                            .arg(before - qsizetype(m_records.size()))
                                            .arg(m_records.size())
                                            .arg(firstSerial());
    }
    return {};
}

void CaptureSpool::dropFront()
{
    const Record front = m_records.front();
    m_records.pop_front();
    m_bytes -= front.length;
    // Delete every segment no record points into any more (the one being written stays when it
    // still has room, so appending goes on in it).
    const qint64 firstLive = m_records.empty() ? m_firstSegment + qint64(m_segments.size()) : m_records.front().segment;
    while (!m_segments.empty() && m_firstSegment < firstLive) {
        if (m_segments.size() == 1 && m_records.empty() && m_segments.front()->size < m_segmentBytes) {
            // The only segment, now empty of live records: start it over instead of deleting it.
            m_segments.front()->file.resize(0);
            m_segments.front()->size = 0;
            break;
        }
        qCDebug(lcHistory).noquote() << QStringLiteral("spool: segment %1 deleted: no capture it holds is kept any more").arg(m_segments.front()->file.fileName());
        m_segments.pop_front();
        ++m_firstSegment;
    }
}

void CaptureSpool::dropBefore(qint64 serial)
{
    while (!m_records.empty() && m_records.front().serial < serial)
        dropFront();
}

void CaptureSpool::clear()
{
    m_records.clear();
    m_firstSegment += qint64(m_segments.size());
    m_segments.clear();
    m_bytes = 0;
}

void CaptureSpool::setMaxBytes(qint64 bytes)
{
    m_maxBytes = bytes;
    while (m_maxBytes > 0 && m_bytes > m_maxBytes && m_records.size() > 1)
        dropFront();
}

qint64 CaptureSpool::firstSerial() const
{
    return m_records.empty() ? -1 : m_records.front().serial;
}

QStringList CaptureSpool::files() const
{
    QStringList names;
    for (const auto &s : m_segments)
        names << s->file.fileName();
    return names;
}

const CaptureSpool::Record *CaptureSpool::find(qint64 serial) const
{
    const auto it = std::lower_bound(m_records.begin(), m_records.end(), serial, [](const Record &r, qint64 s) { return r.serial < s; });
    return it != m_records.end() && it->serial == serial ? &*it : nullptr;
}

bool CaptureSpool::contains(qint64 serial) const
{
    return find(serial) != nullptr;
}

QString CaptureSpool::readLine(qint64 serial, QByteArray &line) const
{
    const Record *r = find(serial);
    if (!r)
        return QStringLiteral("the history spool no longer holds capture %1").arg(serial);
    Segment *s = segment(r->segment);
    if (!s || !s->file.seek(r->offset))
        return QStringLiteral("%1: cannot read the history spool").arg(s ? s->file.fileName() : m_directory);
    line = s->file.read(r->length);
    if (line.size() != r->length)
        return QStringLiteral("%1: the history spool is cut short: %2").arg(s->file.fileName(), s->file.errorString());
    return {};
}

QString CaptureSpool::read(qint64 serial, Capture &capture) const
{
    QByteArray line;
    if (QString error = readLine(serial, line); !error.isEmpty())
        return error;
    line.chop(1);
    CaptureReadResult one = parseCapture(line, QStringLiteral("history spool"), 1);
    if (!one.ok())
        return one.error;
    capture = std::move(one.captures.first());
    return {};
}

QString CaptureSpool::writeRecording(const QString &path, const QList<qint64> &serials, int *written) const
{
    if (written)
        *written = 0;
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return QStringLiteral("%1: cannot write: %2").arg(path, file.errorString());
    int count = 0;
    for (qint64 serial : serials) {
        if (!contains(serial))
            continue;
        QByteArray line;
        if (QString error = readLine(serial, line); !error.isEmpty())
            return error; // the QSaveFile is discarded: no half recording
        if (file.write(line) != line.size())
            return QStringLiteral("%1: cannot write: %2").arg(path, file.errorString());
        ++count;
    }
    if (count == 0)
        return QStringLiteral("%1: nothing to save: the history holds no capture that is still spooled").arg(path);
    if (!file.commit())
        return QStringLiteral("%1: cannot write: %2").arg(path, file.errorString());
    if (written)
        *written = count;
    return {};
}

} // namespace slicescope
