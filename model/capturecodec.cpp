// SPDX-License-Identifier: GPL-3.0-or-later
// The capture file contract's codec (docs/architecture.md): bytes to captures and back, with
// errors that name the line and column. Files are backend/capturefile.cpp's.
#include "capturecodec.h"

#include "jsonlocate.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>

#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <functional>

namespace slicescope {

namespace od = simdjson::ondemand;

namespace {

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
        // The bodies of a "ray" or "kubernetes" object.
        auto readSection = [&](od::object section, Capture &into, bool ray, const QString &at) -> bool {
            for (auto bodyResult : section) {
                od::field body;
                if (auto err = std::move(bodyResult).get(body)) {
                    isTruncation(err) ? truncated(at, err) : fail(at, QStringLiteral("invalid JSON (%1)").arg(msg(err)));
                    return false;
                }
                std::string_view name;
                if (auto err = body.unescaped_key().get(name)) {
                    fail(at, msg(err));
                    return false;
                }
                const QString where = at + u'.' + QString::fromUtf8(name.data(), qsizetype(name.size()));
                QString *text = nullptr;
                if (ray && name == "node_summary_error") text = &into.rayNodeSummaryError;
                else if (ray && name == "cluster") text = &into.rayCluster;
                else if (ray && name == "error") text = &into.rayError;
                else if (!ray && name == "context") text = &into.kubeContext;
                else if (!ray && name == "error") text = &into.kubeError;
                if (text) {
                    std::string_view t;
                    if (auto err = body.value().get_string().get(t)) {
                        fail(where, QStringLiteral("expected a string (%1)").arg(msg(err)));
                        return false;
                    }
                    *text = QString::fromUtf8(t.data(), qsizetype(t.size()));
                    continue;
                }
                QByteArray *slot = bodySlot(into, ray, name);
                if (!slot) continue; // unknown members are ignored: newer writers may add some
                std::string_view raw;
                if (auto err = rawJson(body.value(), raw)) {
                    isTruncation(err) ? truncated(where, err) : fail(where, QStringLiteral("invalid JSON (%1; the file may be truncated)").arg(msg(err)));
                    return false;
                }
                *slot = paddedCopy(raw);
            }
            return true;
        };
        // The members of a capture object; a fleet's members and a context's Ray views are
        // capture objects of their own (`where` names the place: "fleet[1].kubernetes.pods").
        std::function<bool(od::object, Capture &, int, const QString &)> readMembers;
        // One "ray" object (also each element of "rayClusters") into `into`.
        auto readRaySection = [&](od::value value, Capture &into, const QString &at, qint64 valueOffset) -> bool {
            od::object section;
            if (auto err = value.get_object().get(section)) {
                fail(at, QStringLiteral("expected an object (%1)").arg(msg(err)), valueOffset);
                return false;
            }
            return readSection(section, into, true, at);
        };
        readMembers = [&](od::object object, Capture &into, int depth, const QString &prefix) -> bool {
            for (auto memberResult : object) {
                od::field member;
                if (auto err = std::move(memberResult).get(member)) {
                    isTruncation(err) ? truncated(prefix, err) : fail(prefix, QStringLiteral("invalid JSON (%1)").arg(msg(err)));
                    return false;
                }
                std::string_view key;
                if (auto err = member.unescaped_key().get(key)) {
                    fail(prefix, msg(err));
                    return false;
                }
                od::value value = member.value();
                const qint64 valueOffset = offsetOf(value); // before reading it: errors point at its start
                const QString at = prefix + QString::fromUtf8(key.data(), qsizetype(key.size()));
                if (key == "format" && depth == 0) {
                    std::string_view f;
                    if (auto err = value.get_string().get(f)) {
                        fail(QStringLiteral("format"), QStringLiteral("expected a string (%1)").arg(msg(err)), valueOffset);
                        return false;
                    }
                    format = QString::fromUtf8(f.data(), qsizetype(f.size()));
                    formatOffset = valueOffset;
                } else if (key == "capturedAt") {
                    std::string_view t;
                    if (auto err = value.get_string().get(t)) {
                        fail(at, QStringLiteral("expected an ISO 8601 string (%1)").arg(msg(err)), valueOffset);
                        return false;
                    }
                    into.capturedAt = QDateTime::fromString(QString::fromUtf8(t.data(), qsizetype(t.size())), Qt::ISODateWithMs);
                    if (!into.capturedAt.isValid()) {
                        fail(at, QStringLiteral("\"%1\" is not an ISO 8601 time").arg(QString::fromUtf8(t.data(), qsizetype(t.size()))), valueOffset);
                        return false;
                    }
                } else if (key == "ray") {
                    if (!readRaySection(value, into, at, valueOffset)) return false;
                } else if (key == "kubernetes") {
                    od::object section;
                    if (auto err = value.get_object().get(section)) {
                        fail(at, QStringLiteral("expected an object (%1)").arg(msg(err)), valueOffset);
                        return false;
                    }
                    if (!readSection(section, into, false, at)) return false;
                } else if (key == "prometheus") {
                    if (QString problem = readPrometheus(value, into); !problem.isEmpty()) {
                        fail(at, problem, valueOffset);
                        return false;
                    }
                } else if (key == "rayClusters" || key == "fleet") {
                    const bool fleet = key == "fleet";
                    // A fleet holds contexts, a context holds Ray views: no deeper.
                    if (fleet ? depth > 0 : depth > 1) {
                        fail(at, fleet ? QStringLiteral("a fleet's member cannot hold a fleet") : QStringLiteral("a Ray view cannot hold Ray views"), valueOffset);
                        return false;
                    }
                    od::array list;
                    if (auto err = value.get_array().get(list)) {
                        fail(at, QStringLiteral("expected an array (%1)").arg(msg(err)), valueOffset);
                        return false;
                    }
                    QList<Capture> &out = fleet ? into.fleet : into.rayClusters;
                    const int max = fleet ? kMaxFleetContexts : kMaxRayClusters;
                    for (auto elementResult : list) {
                        od::value element;
                        if (auto err = std::move(elementResult).get(element)) {
                            isTruncation(err) ? truncated(at, err) : fail(at, QStringLiteral("invalid JSON (%1)").arg(msg(err)));
                            return false;
                        }
                        const QString elementAt = QStringLiteral("%1[%2]").arg(at).arg(out.size());
                        const qint64 elementOffset = offsetOf(element);
                        if (out.size() >= max) {
                            fail(at, QStringLiteral("more than %1 %2").arg(max).arg(fleet ? QStringLiteral("contexts") : QStringLiteral("Ray views")), elementOffset);
                            return false;
                        }
                        Capture member;
                        if (fleet) {
                            od::object memberObject;
                            if (auto err = element.get_object().get(memberObject)) {
                                fail(elementAt, QStringLiteral("expected a capture object (%1)").arg(msg(err)), elementOffset);
                                return false;
                            }
                            if (!readMembers(memberObject, member, depth + 1, elementAt + u'.')) return false;
                            if (!member.capturedAt.isValid()) member.capturedAt = into.capturedAt;
                        } else if (!readRaySection(element, member, elementAt, elementOffset)) {
                            return false;
                        }
                        out.append(std::move(member));
                    }
                }
            }
            return true;
        };
        if (!readMembers(root, capture, 0, QString())) return result;
        for (Capture &member : capture.fleet) // a member that said no time has the fleet's
            if (!member.capturedAt.isValid()) member.capturedAt = capture.capturedAt;
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

    // "prometheus": {"url": "...", "error": "...", "answers": [{"query": "...", "body": <answer>}]}
    static QString readPrometheus(od::value value, Capture &capture)
    {
        od::object section;
        if (value.get_object().get(section))
            return QStringLiteral("expected an object");
        for (auto fieldResult : section) {
            od::field field;
            if (std::move(fieldResult).get(field))
                return QStringLiteral("invalid JSON");
            std::string_view name;
            if (field.unescaped_key().get(name))
                return QStringLiteral("invalid JSON");
            if (name == "url" || name == "error") {
                std::string_view text;
                if (field.value().get_string().get(text))
                    return QStringLiteral("%1: expected a string").arg(QLatin1String(name.data(), qsizetype(name.size())));
                (name == "url" ? capture.prometheusUrl : capture.prometheusError) = QString::fromUtf8(text.data(), qsizetype(text.size()));
            } else if (name == "answers") {
                od::array answers;
                if (field.value().get_array().get(answers))
                    return QStringLiteral("answers: expected an array");
                for (auto answerResult : answers) {
                    od::object answer;
                    if (std::move(answerResult).get_object().get(answer))
                        return QStringLiteral("answers: expected objects {\"query\", \"body\"}");
                    Capture::PrometheusAnswer a;
                    for (auto memberResult : answer) {
                        od::field member;
                        if (std::move(memberResult).get(member))
                            return QStringLiteral("answers: invalid JSON");
                        std::string_view key;
                        if (member.unescaped_key().get(key))
                            return QStringLiteral("answers: invalid JSON");
                        if (key == "query") {
                            std::string_view q;
                            if (member.value().get_string().get(q))
                                return QStringLiteral("answers: query: expected a string");
                            a.query = QString::fromUtf8(q.data(), qsizetype(q.size()));
                        } else if (key == "body") {
                            std::string_view raw;
                            if (rawJson(member.value(), raw))
                                return QStringLiteral("answers: body: invalid JSON (the file may be truncated)");
                            a.body = paddedCopy(raw);
                        }
                    }
                    if (capture.prometheus.size() >= kMaxPrometheusAnswers)
                        return QStringLiteral("answers: more than %1").arg(kMaxPrometheusAnswers);
                    capture.prometheus.append(std::move(a));
                }
            }
        }
        return {};
    }
    static constexpr int kMaxPrometheusAnswers = 64;
    static constexpr int kMaxFleetContexts = 256; // contexts in one fleet capture
    static constexpr int kMaxRayClusters = 512;   // Ray views in one context

    static QByteArray *bodySlot(Capture &c, bool ray, std::string_view name)
    {
        if (ray) {
            if (name == "node_summary") return &c.rayNodeSummary;
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

// A text as a JSON string: Qt's writer escapes everything JSON asks (control characters too).
QByteArray jsonString(const QString &text)
{
    const QByteArray array = QJsonDocument(QJsonArray{text}).toJson(QJsonDocument::Compact);
    return array.mid(1, array.size() - 2); // ["..."] -> "..."
}

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

CaptureReadResult parseCapture(const QByteArray &bytes, const QString &origin, int firstLine)
{
    return CaptureParser(bytes, origin, firstLine).run();
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

CaptureReadResult parseCaptureOrRecording(const QByteArray &bytes, const QString &origin, bool namedRecording)
{
    if (bytes.trimmed().isEmpty()) {
        CaptureReadResult result;
        result.error = QStringLiteral("%1: the file is empty").arg(origin);
        return result;
    }
    // A recording has one capture per line; a capture file may be pretty-printed over many lines.
    // Tell them apart by the file name first, then by whether the first line is a whole object.
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

namespace {

// The "ray" object's members (also a Ray view's, in "rayClusters").
void appendRaySection(QByteArray &out, const Capture &c)
{
    out += '{';
    bool first = true;
    if (!c.rayCluster.isEmpty()) appendBody(out, "cluster", jsonString(c.rayCluster), first);
    if (!c.rayError.isEmpty()) appendBody(out, "error", jsonString(c.rayError), first);
    appendBody(out, "version", c.rayVersion, first);
    appendBody(out, "nodes", c.rayNodes, first);
    appendBody(out, "placement_groups", c.rayPlacementGroups, first);
    appendBody(out, "jobs", c.rayJobs, first);
    appendBody(out, "cluster_status", c.rayClusterStatus, first);
    appendBody(out, "node_summary", c.rayNodeSummary, first);
    if (!c.rayNodeSummaryError.isEmpty()) appendBody(out, "node_summary_error", jsonString(c.rayNodeSummaryError), first);
    out += '}';
}

bool hasOwnRay(const Capture &c)
{
    return !c.rayNodes.isEmpty() || !c.rayPlacementGroups.isEmpty() || !c.rayJobs.isEmpty() || !c.rayVersion.isEmpty() || !c.rayClusterStatus.isEmpty()
           || !c.rayNodeSummary.isEmpty() || !c.rayNodeSummaryError.isEmpty() || !c.rayCluster.isEmpty() || !c.rayError.isEmpty();
}

// A capture object's members after "format" (each starts with a comma); a fleet's members are
// objects of the same members.
void appendMembers(QByteArray &out, const Capture &c)
{
    if (c.capturedAt.isValid()) {
        out += ",\"capturedAt\":\"";
        out += c.capturedAt.toUTC().toString(Qt::ISODateWithMs).toUtf8();
        out += '"';
    }
    if (hasOwnRay(c)) {
        out += ",\"ray\":";
        appendRaySection(out, c);
    }
    if (!c.rayClusters.isEmpty()) {
        out += ",\"rayClusters\":[";
        for (qsizetype i = 0; i < c.rayClusters.size(); ++i) {
            if (i) out += ',';
            appendRaySection(out, c.rayClusters[i]);
        }
        out += ']';
    }
    if (!c.prometheus.isEmpty() || !c.prometheusUrl.isEmpty() || !c.prometheusError.isEmpty()) {
        out += ",\"prometheus\":{";
        bool first = true;
        if (!c.prometheusUrl.isEmpty())
            appendBody(out, "url", jsonString(c.prometheusUrl), first);
        if (!c.prometheusError.isEmpty())
            appendBody(out, "error", jsonString(c.prometheusError), first);
        if (!first)
            out += ',';
        out += "\"answers\":[";
        for (qsizetype i = 0; i < c.prometheus.size(); ++i) {
            if (i)
                out += ',';
            out += "{\"query\":";
            out += jsonString(c.prometheus[i].query);
            if (!c.prometheus[i].body.isEmpty()) {
                bool firstBody = false;
                appendBody(out, "body", c.prometheus[i].body, firstBody);
            }
            out += '}';
        }
        out += "]}";
    }
    if (!c.kubeRayClusters.isEmpty() || !c.kubePods.isEmpty() || !c.kubeNodes.isEmpty() || !c.kubeContext.isEmpty() || !c.kubeError.isEmpty()) {
        out += ",\"kubernetes\":{";
        bool first = true;
        if (!c.kubeContext.isEmpty()) {
            out += "\"context\":";
            // Qt's writer escapes everything JSON asks (control characters too): a context name
            // comes from the user's kubeconfig and may hold any of them.
            out += jsonString(c.kubeContext);

            first = false;
        }
        if (!c.kubeError.isEmpty()) appendBody(out, "error", jsonString(c.kubeError), first);
        appendBody(out, "rayclusters", c.kubeRayClusters, first);
        appendBody(out, "pods", c.kubePods, first);
        appendBody(out, "nodes", c.kubeNodes, first);
        out += '}';
    }
    if (!c.fleet.isEmpty()) {
        out += ",\"fleet\":[";
        for (qsizetype i = 0; i < c.fleet.size(); ++i) {
            if (i) out += ',';
            QByteArray member;
            appendMembers(member, c.fleet[i]);
            out += '{';
            out += member.mid(member.startsWith(',') ? 1 : 0);
            out += '}';
        }
        out += ']';
    }
}

} // namespace

QByteArray serializeCapture(const Capture &c)
{
    QByteArray out;
    out.reserve(qsizetype(c.byteSize() + 512));
    out += "{\"format\":\"";
    out += kCaptureFormat.latin1();
    out += '"';
    appendMembers(out, c);
    out += '}';
    return out;
}

} // namespace slicescope
