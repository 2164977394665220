// SPDX-License-Identifier: GPL-3.0-or-later
#include "capturefile.h"

#include "boundedfile.h"
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

namespace od = simdjson::ondemand;

namespace {

constexpr qint64 kMaxCaptureFileBytes = filelimits::kCaptureFileBytes; // refuse absurd inputs instead of exhausting memory

// `firstLine` is the line `bytes` starts on in its file (a record of a recording), so the place
// named is a place in the file.
QString lineColumn(const QByteArray &bytes, qint64 offset, int firstLine = 1)
{
    qint64 line = firstLine, lastNewline = -1;
    for (qint64 i = 0; i < offset && i < bytes.size(); ++i)
        if (bytes[i] == '\n') {
            ++line;
            lastNewline = i;
        }
    return QStringLiteral("line %1, column %2").arg(line).arg(offset - lastNewline);
}

// simdjson's ways of saying the input stopped too early.
bool isTruncation(simdjson::error_code e)
{
    return e == simdjson::INCOMPLETE_ARRAY_OR_OBJECT || e == simdjson::UNCLOSED_STRING;
}

QByteArray paddedCopy(std::string_view raw)
{
    QByteArray body;
    body.reserve(qsizetype(raw.size() + simdjson::SIMDJSON_PADDING));
    body.append(raw.data(), qsizetype(raw.size()));
    return body;
}

// A member's raw JSON text: objects and arrays whole, scalars as their token.
simdjson::error_code rawJson(od::value value, std::string_view &out)
{
    od::json_type type;
    if (auto err = value.type().get(type))
        return err;
    if (type == od::json_type::object) {
        od::object obj;
        if (auto err = value.get_object().get(obj))
            return err;
        return obj.raw_json().get(out);
    }
    if (type == od::json_type::array) {
        od::array arr;
        if (auto err = value.get_array().get(arr))
            return err;
        return arr.raw_json().get(out);
    }
    out = value.raw_json_token();
    return simdjson::SUCCESS;
}

class CaptureParser
{
public:
    CaptureParser(const QByteArray &bytes, QString origin, int firstLine = 1)
        : m_bytes(bytes)
        , m_origin(std::move(origin))
        , m_firstLine(firstLine)
    {
    }

    CaptureReadResult run()
    {
        CaptureReadResult result;
        simdjson::padded_string padded(m_bytes.constData(), size_t(m_bytes.size()));
        od::parser parser;
        od::document doc;
        bool iterated = false; // a document that failed to iterate has no position to ask (it would crash)
        Capture capture;
        QString format;
        qint64 formatOffset = 0;
        // Every error names a place: the offset given, else where the parser stands, else the end.
        auto fail = [&](const QString &where, const QString &problemText, qint64 offset = -1, bool locate = true) {
            QString problem = problemText;
            const char *at = nullptr;
            if (offset < 0 && iterated && doc.current_location().get(at) == simdjson::SUCCESS)
                offset = at - padded.data();
            if (offset < 0)
                offset = endOfInput();
            // simdjson refuses invalid UTF-8 or a raw control character in a string before it
            // stands anywhere (it would say "line 1, column 1"): a bad byte before the place
            // reported is the real cause, named where it is (model/jsonlocate.h).
            const JsonFault fault = locate ? locateJsonFault(m_bytes.constData(), m_bytes.size()) : JsonFault{};
            if (fault.offset >= 0 && fault.offset <= offset) {
                offset = fault.offset;
                problem = QStringLiteral("not JSON: %1").arg(QLatin1String(fault.what));
            } else if (const QString looks = locate ? describeNonJson(m_bytes.constData(), m_bytes.size()) : QString(); !looks.isEmpty()) {
                problem = QStringLiteral("not JSON (%1)").arg(looks); // an HTML page: not the parser's advice
            }
            result.error = QStringLiteral("%1: %2: %3%4").arg(m_origin, lineColumn(m_bytes, offset, m_firstLine), where.isEmpty() ? QString() : where + QStringLiteral(": "), problem);
            return result;
        };
        auto msg = [](simdjson::error_code e) {
            return QString::fromLatin1(simdjson::error_message(e));
        };
        // A cut-off file is named as such, at the place where the input runs out.
        auto truncated = [&](const QString &where, simdjson::error_code e) {
            return fail(where, QStringLiteral("the input is truncated (%1)").arg(msg(e)), endOfInput(), false);
        };
        auto offsetOf = [&](od::value &v) {
            return qint64(v.raw_json_token().data() - padded.data());
        };

        if (auto err = parser.iterate(padded).get(doc)) {
            if (isTruncation(err))
                return truncated({}, err);
            // Refused as a whole: the first bad byte when there is one (fail() finds it), else the start.
            const JsonFault fault = locateJsonFault(m_bytes.constData(), m_bytes.size());
            return fail({}, QStringLiteral("not JSON (%1)").arg(msg(err)), fault.offset >= 0 ? fault.offset : startOfInput());
        }
        iterated = true;
        od::object root;
        if (auto err = doc.get_object().get(root))
            return isTruncation(err) ? truncated({}, err) : fail({}, notACaptureObject(), startOfInput());
        for (auto memberResult : root) {
            od::field member;
            if (auto err = std::move(memberResult).get(member))
                return isTruncation(err) ? truncated({}, err) : fail({}, QStringLiteral("invalid JSON (%1)").arg(msg(err)));
            std::string_view key;
            if (auto err = member.unescaped_key().get(key))
                return fail({}, msg(err));
            od::value value = member.value();
            const qint64 valueOffset = offsetOf(value); // before reading it: errors point at its start
            if (key == "format") {
                std::string_view f;
                if (auto err = value.get_string().get(f))
                    return fail(QStringLiteral("format"), QStringLiteral("expected a string (%1)").arg(msg(err)), valueOffset);
                format = QString::fromUtf8(f.data(), qsizetype(f.size()));
                formatOffset = valueOffset;
            } else if (key == "capturedAt") {
                std::string_view t;
                if (auto err = value.get_string().get(t))
                    return fail(QStringLiteral("capturedAt"), QStringLiteral("expected an ISO 8601 string (%1)").arg(msg(err)), valueOffset);
                capture.capturedAt = QDateTime::fromString(QString::fromUtf8(t.data(), qsizetype(t.size())), Qt::ISODateWithMs);
                if (!capture.capturedAt.isValid())
                    return fail(QStringLiteral("capturedAt"), QStringLiteral("\"%1\" is not an ISO 8601 time").arg(QString::fromUtf8(t.data(), qsizetype(t.size()))),
                                valueOffset);
            } else if (key == "ray" || key == "kubernetes") {
                const bool ray = key == "ray";
                od::object section;
                if (auto err = value.get_object().get(section))
                    return fail(QString::fromUtf8(key.data(), qsizetype(key.size())), QStringLiteral("expected an object (%1)").arg(msg(err)), valueOffset);
                for (auto bodyResult : section) {
                    od::field body;
                    if (auto err = std::move(bodyResult).get(body))
                        return isTruncation(err) ? truncated(QString::fromUtf8(key.data(), qsizetype(key.size())), err)
                                                 : fail(QString::fromUtf8(key.data(), qsizetype(key.size())), QStringLiteral("invalid JSON (%1)").arg(msg(err)));
                    std::string_view name;
                    if (auto err = body.unescaped_key().get(name))
                        return fail({}, msg(err));
                    const QString where = QStringLiteral("%1.%2").arg(ray ? QStringLiteral("ray") : QStringLiteral("kubernetes"),
                                                                      QString::fromUtf8(name.data(), qsizetype(name.size())));
                    if (!ray && name == "context") {
                        std::string_view c;
                        if (auto err = body.value().get_string().get(c))
                            return fail(where, QStringLiteral("expected a string (%1)").arg(msg(err)));
                        capture.kubeContext = QString::fromUtf8(c.data(), qsizetype(c.size()));
                        continue;
                    }
                    QByteArray *slot = bodySlot(capture, ray, name);
                    if (!slot)
                        continue; // unknown members are ignored: newer writers may add some
                    std::string_view raw;
                    if (auto err = rawJson(body.value(), raw))
                        return isTruncation(err) ? truncated(where, err)
                                                 : fail(where, QStringLiteral("invalid JSON (%1; the file may be truncated)").arg(msg(err)));
                    *slot = paddedCopy(raw);
                }
            }
        }
        // Anything after the object would be silently dropped (say, a recording under a .json name).
        if (const char *after = nullptr; doc.current_location().get(after) == simdjson::SUCCESS)
            return fail({}, QStringLiteral("unexpected content after the capture object (a recording holds one capture per line)"),
                        after - padded.data());
        if (format.isEmpty()) // nothing to point at but the object that lacks it
            return fail({}, QStringLiteral("not a SliceScope capture (no \"format\"; expected \"%1\")").arg(kCaptureFormat), startOfInput());
        if (format != kCaptureFormat)
            return fail(QStringLiteral("format"), QStringLiteral("unsupported format \"%1\" (this version reads \"%2\")").arg(format, kCaptureFormat),
                        formatOffset);
        result.captures.append(std::move(capture));
        return result;
    }

private:
    qint64 startOfInput() const
    {
        qint64 i = 0;
        while (i < m_bytes.size() && std::isspace(static_cast<unsigned char>(m_bytes[i])))
            ++i;
        return i;
    }

    // Just after the last non-blank character: where a cut-off file stops.
    qint64 endOfInput() const
    {
        qint64 i = m_bytes.size();
        while (i > 0 && std::isspace(static_cast<unsigned char>(m_bytes[i - 1])))
            --i;
        return i;
    }

    // The root is not an object: say whether it is JSON at all (only on this error path, so the
    // second parse costs nothing in the normal case).
    QString notACaptureObject() const
    {
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(m_bytes, &error);
        if (error.error != QJsonParseError::NoError)
            return QStringLiteral("not JSON (%1)").arg(error.errorString());
        return QStringLiteral("expected a capture object ({\"format\": \"%1\", ...}), found %2")
            .arg(kCaptureFormat, doc.isArray() ? QStringLiteral("an array") : QStringLiteral("another JSON value"));
    }

    static QByteArray *bodySlot(Capture &c, bool ray, std::string_view name)
    {
        if (ray) {
            if (name == "version") return &c.rayVersion;
            if (name == "nodes") return &c.rayNodes;
            if (name == "placement_groups") return &c.rayPlacementGroups;
            if (name == "jobs") return &c.rayJobs;
            if (name == "cluster_status") return &c.rayClusterStatus;
            return nullptr;
        }
        if (name == "rayclusters") return &c.kubeRayClusters;
        if (name == "pods") return &c.kubePods;
        if (name == "nodes") return &c.kubeNodes;
        return nullptr;
    }

    const QByteArray &m_bytes;
    QString m_origin;
    int m_firstLine = 1;
};

void appendBody(QByteArray &out, const char *key, const QByteArray &body, bool &first)
{
    if (body.isEmpty())
        return;
    if (!first)
        out += ',';
    first = false;
    out += '"';
    out += key;
    out += "\":";
    const qsizetype start = out.size();
    out += body.trimmed();
    // Outside strings JSON newlines are whitespace, and inside strings they must be escaped:
    // turning raw CR/LF into spaces keeps the body's meaning and makes it fit on one line.
    for (qsizetype i = start; i < out.size(); ++i)
        if (out[i] == '\n' || out[i] == '\r')
            out[i] = ' ';
}

} // namespace

CaptureReadResult parseCapture(const QByteArray &bytes, const QString &origin)
{
    return CaptureParser(bytes, origin).run();
}

CaptureReadResult parseRecording(const QByteArray &bytes, const QString &origin)
{
    CaptureReadResult result;
    qsizetype start = 0;
    int line = 0;
    while (start < bytes.size()) {
        qsizetype end = bytes.indexOf('\n', start);
        if (end < 0)
            end = bytes.size();
        ++line;
        const QByteArray text = bytes.mid(start, end - start);
        start = end + 1;
        if (text.trimmed().isEmpty())
            continue;
        CaptureReadResult one = CaptureParser(text, origin, line).run(); // places are places in the file
        if (!one.ok()) {
            result.error = one.error;
            result.captures.clear(); // all or nothing: a half-read recording would mislead
            return result;
        }
        result.captures += one.captures;
    }
    if (result.captures.isEmpty())
        result.error = QStringLiteral("%1: the recording holds no capture").arg(origin);
    return result;
}

CaptureReadResult readCaptureFile(const QString &path)
{
    CaptureReadResult result;
    const QString &origin = path;
    // A FIFO or a device is refused, a file past the bound is not read (boundedfile.h).
    QByteArray bytes;
    if (const QString error = readBoundedFile(path, kMaxCaptureFileBytes, QStringLiteral("the file"), bytes); !error.isEmpty()) {
        result.error = QStringLiteral("%1: %2").arg(origin, error); // "x.json: the file is a FIFO ..."
        return result;
    }
    if (bytes.trimmed().isEmpty()) {
        result.error = QStringLiteral("%1: the file is empty").arg(origin);
        return result;
    }
    // A recording has one capture per line; a capture file may be pretty-printed over many lines.
    // Tell them apart by the file name first, then by whether the first line is a whole object.
    const bool namedRecording = path.endsWith(QLatin1String(".jsonl"));
    if (namedRecording)
        return parseRecording(bytes, origin);
    CaptureReadResult single = parseCapture(bytes, origin);
    if (single.ok())
        return single;
    const qsizetype firstNewline = bytes.trimmed().indexOf('\n');
    if (firstNewline > 0) {
        CaptureReadResult firstLine = parseCapture(bytes.left(firstNewline), origin);
        if (firstLine.ok())
            return parseRecording(bytes, origin);
    }
    return single;
}

QByteArray serializeCapture(const Capture &c)
{
    QByteArray out;
    out.reserve(qsizetype(c.byteSize() + 512));
    out += "{\"format\":\"";
    out += kCaptureFormat.latin1();
    out += '"';
    if (c.capturedAt.isValid()) {
        out += ",\"capturedAt\":\"";
        out += c.capturedAt.toUTC().toString(Qt::ISODateWithMs).toUtf8();
        out += '"';
    }
    if (c.hasRay() || !c.rayVersion.isEmpty() || !c.rayClusterStatus.isEmpty()) {
        out += ",\"ray\":{";
        bool first = true;
        appendBody(out, "version", c.rayVersion, first);
        appendBody(out, "nodes", c.rayNodes, first);
        appendBody(out, "placement_groups", c.rayPlacementGroups, first);
        appendBody(out, "jobs", c.rayJobs, first);
        appendBody(out, "cluster_status", c.rayClusterStatus, first);
        out += '}';
    }
    if (c.hasKubernetes() || !c.kubeContext.isEmpty()) {
        out += ",\"kubernetes\":{";
        bool first = true;
        if (!c.kubeContext.isEmpty()) {
            out += "\"context\":";
            // Qt's writer escapes everything JSON asks (control characters too): a context name
            // comes from the user's kubeconfig and may hold any of them.
            const QByteArray array = QJsonDocument(QJsonArray{c.kubeContext}).toJson(QJsonDocument::Compact);
            out += array.mid(1, array.size() - 2); // ["..."] -> "..."

            first = false;
        }
        appendBody(out, "rayclusters", c.kubeRayClusters, first);
        appendBody(out, "pods", c.kubePods, first);
        appendBody(out, "nodes", c.kubeNodes, first);
        out += '}';
    }
    out += '}';
    return out;
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
    CaptureReadResult one = CaptureParser(m_pending, m_path, m_pendingLine).run(); // places are places in the file
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
        if (info.lastModified().toUTC() < cutoff)
            QFile::remove(info.filePath());
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
    while (m_maxBytes > 0 && m_bytes > m_maxBytes && m_records.size() > 1)
        dropFront();
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
    CaptureReadResult one = CaptureParser(line, QStringLiteral("history spool"), 1).run();
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
