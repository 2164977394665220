// SPDX-License-Identifier: GPL-3.0-or-later
#include "relayprotocol.h"

#include "capturefile.h"

#include <QJsonDocument>
#include <QJsonParseError>

#include <simdjson.h>

namespace slicescope::relay {

namespace od = simdjson::ondemand;

QByteArray captureMessage(qint64 seq, const Capture &capture)
{
    const QByteArray body = serializeCapture(capture);
    QByteArray out;
    out.reserve(body.size() + 64);
    out += "{\"type\":\"capture\",\"seq\":";
    out += QByteArray::number(seq);
    out += ",\"capture\":";
    out += body;
    out += '}';
    return out;
}

namespace {

// The capture member of a capture message, read without reformatting it.
Message parseCaptureEnvelope(const QByteArray &bytes)
{
    Message m;
    m.type = type::Capture;
    simdjson::padded_string padded(bytes.constData(), size_t(bytes.size()));
    od::parser parser;
    od::document doc;
    od::object root;
    if (parser.iterate(padded).get(doc) || doc.get_object().get(root)) {
        m.error = QStringLiteral("a capture message that is not a JSON object");
        return m;
    }
    bool haveCapture = false;
    for (auto fieldResult : root) {
        od::field field;
        std::string_view key;
        if (std::move(fieldResult).get(field) || field.unescaped_key().get(key)) {
            m.error = QStringLiteral("a capture message that is not valid JSON");
            return m;
        }
        if (key == "seq") {
            int64_t seq = 0;
            if (field.value().get_int64().get(seq)) {
                m.error = QStringLiteral("a capture message whose seq is not an integer");
                return m;
            }
            m.seq = seq;
        } else if (key == "capture") {
            od::object object;
            std::string_view raw;
            if (field.value().get_object().get(object) || object.raw_json().get(raw)) {
                m.error = QStringLiteral("a capture message whose capture is not an object");
                return m;
            }
            const CaptureReadResult read = parseCapture(QByteArray(raw.data(), qsizetype(raw.size())), QStringLiteral("relayed capture"));
            if (!read.ok()) {
                m.error = read.error;
                return m;
            }
            m.capture = read.captures.first();
            haveCapture = true;
        }
    }
    if (!haveCapture)
        m.error = QStringLiteral("a capture message without a capture");
    return m;
}

} // namespace

Message parseMessage(const QByteArray &bytes)
{
    // Capture messages are large and carry verbatim bodies: they get the capture parser. The
    // server writes "type" first; a client that reorders members still works, through the slow
    // path below finding type "capture" and parsing again.
    static const QByteArray capturePrefix = QByteArrayLiteral("{\"type\":\"capture\"");
    if (bytes.startsWith(capturePrefix))
        return parseCaptureEnvelope(bytes);
    Message m;
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &error);
    if (error.error != QJsonParseError::NoError || !doc.isObject()) {
        m.error = QStringLiteral("not a JSON object (%1)").arg(error.errorString());
        return m;
    }
    m.object = doc.object();
    m.type = m.object.value(QLatin1String("type")).toString();
    if (m.type.isEmpty())
        m.error = QStringLiteral("a message without a \"type\"");
    else if (m.type == type::Capture)
        return parseCaptureEnvelope(bytes);
    return m;
}

QJsonObject toJson(const SlicePlacementRequest &r)
{
    return {
        {QStringLiteral("accelerator"), r.accelerator},
        {QStringLiteral("topology"), r.topology},
        {QStringLiteral("numSlices"), r.numSlices},
        {QStringLiteral("name"), r.name},
        {QStringLiteral("detached"), r.detached},
        {QStringLiteral("cpuPerBundle"), r.cpuPerBundle},
        {QStringLiteral("tpuPerBundle"), r.tpuPerBundle},
        {QStringLiteral("chipsPerVm"), r.chipsPerVm},
        {QStringLiteral("strategy"), r.strategy},
        {QStringLiteral("timeoutSeconds"), r.timeoutSeconds},
    };
}

QString fromJson(const QJsonObject &o, SlicePlacementRequest &r)
{
    r = SlicePlacementRequest{};
    auto text = [&](const char *key, QString &out) {
        const QJsonValue v = o.value(QLatin1String(key));
        if (!v.isUndefined())
            out = v.toString();
    };
    text("accelerator", r.accelerator);
    text("topology", r.topology);
    text("name", r.name);
    text("strategy", r.strategy);
    r.numSlices = o.value(QLatin1String("numSlices")).toInt(r.numSlices);
    r.detached = o.value(QLatin1String("detached")).toBool(r.detached);
    r.cpuPerBundle = o.value(QLatin1String("cpuPerBundle")).toDouble(r.cpuPerBundle);
    r.tpuPerBundle = o.value(QLatin1String("tpuPerBundle")).toInt(r.tpuPerBundle);
    r.chipsPerVm = o.value(QLatin1String("chipsPerVm")).toInt(r.chipsPerVm);
    r.timeoutSeconds = o.value(QLatin1String("timeoutSeconds")).toInt(r.timeoutSeconds);
    if (r.name.isEmpty())
        return QStringLiteral("the request names no placement group");
    if (r.accelerator.isEmpty() || r.topology.isEmpty())
        return QStringLiteral("the request needs an accelerator and a topology");
    if (r.numSlices < 1 || r.numSlices > 1024)
        return QStringLiteral("numSlices must be from 1 to 1024");
    if (r.timeoutSeconds < 1 || r.timeoutSeconds > 3600)
        return QStringLiteral("timeoutSeconds must be from 1 to 3600");
    return {};
}

} // namespace slicescope::relay
