// SPDX-License-Identifier: GPL-3.0-or-later
// KubeWatch: a collection kept current the way client-go's reflector does (docs/facts.md 4.2):
// a paged LIST, then a WATCH from its resourceVersion, resumed after the server ends it, relisted
// after 410 Gone or a bad line, retried after a jittered doubling delay (issue 30: also a watch
// that ended at once and a relist asked for at once).
#include "kubeclient.h"
#include "kubeclient_p.h"

#include "logging.h"
#include "netguard.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkReply>
#include <QRandomGenerator>
#include <QUrlQuery>

#include <simdjson.h>

#include <algorithm>
#include <cstring>
#include <utility>

namespace slicescope {

using kube::statusMessage;

namespace {

namespace od = simdjson::ondemand;

} // namespace

struct KubeObjectMeta {
    QString ns, name, resourceVersion;
};

namespace {

using ObjectMeta = KubeObjectMeta;

// Reads metadata.namespace/name/resourceVersion of one object's JSON.
bool readMeta(std::string_view json, ObjectMeta &meta)
{
    static thread_local od::parser parser;
    const simdjson::padded_string padded(json);
    od::document doc;
    if (parser.iterate(padded).get(doc))
        return false;
    od::object metadata;
    if (doc.find_field_unordered("metadata").get_object().get(metadata))
        return false;
    for (auto field : metadata) {
        std::string_view key;
        if (field.unescaped_key().get(key))
            return false;
        std::string_view value;
        if (key == "namespace" && !field.value().get_string().get(value))
            meta.ns = QString::fromUtf8(value.data(), qsizetype(value.size()));
        else if (key == "name" && !field.value().get_string().get(value))
            meta.name = QString::fromUtf8(value.data(), qsizetype(value.size()));
        else if (key == "resourceVersion" && !field.value().get_string().get(value))
            meta.resourceVersion = QString::fromUtf8(value.data(), qsizetype(value.size()));
    }
    return !meta.name.isEmpty();
}

// simdjson's On-Demand parser checks only what it reads: raw_json() of an object it skipped over
// may hold anything. What the watch keeps is written back into captures (listBody), so every
// body and event is checked whole first, by the DOM parser (structure and UTF-8).
bool isValidJson(const char *data, size_t size)
{
    static thread_local simdjson::dom::parser validator;
    simdjson::dom::element ignored;
    return !validator.parse(data, size, true).get(ignored);
}

QString objectKey(const ObjectMeta &meta)
{
    return meta.ns.isEmpty() ? meta.name : meta.ns + u'/' + meta.name;
}

} // namespace

// ----------------------------------------------------------------------------------------------
// KubeWatch

KubeWatch::KubeWatch(KubeClient *client, QString collectionPath, QString query, QByteArray listKind, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_path(std::move(collectionPath))
    , m_query(std::move(query))
    , m_listKind(std::move(listKind))
{
    // "/api/v1/namespaces/ml/pods": namespace ml (escaped as a segment by the caller).
    if (const qsizetype at = m_path.indexOf(QLatin1String("/namespaces/")); at >= 0)
        m_namespace = QUrl::fromPercentEncoding(m_path.mid(at + 12).section(u'/', 0, 0).toUtf8());
    m_retry.setSingleShot(true);
    m_idle.setSingleShot(true);
    connect(&m_idle, &QTimer::timeout, this, [this] {
        if (!m_stream)
            return;
        qCDebug(lcKube).noquote() << QStringLiteral("%1: the watch went silent for %2 s after %3 events; dropping it").arg(describe()).arg(m_idleLimit.count() / 1000).arg(m_streamEvents);
        dropStream();
        m_failing = true;
        retryLater(false, QStringLiteral("the watch of %1 went silent for %2 s").arg(describe()).arg(m_idleLimit.count() / 1000));
    });
}

KubeWatch::~KubeWatch()
{
    stop();
}

QString KubeWatch::describe() const
{
    QString what = m_path.section(u'/', -1);
    const qsizetype ns = m_path.indexOf(QLatin1String("/namespaces/"));
    if (ns >= 0)
        what += QStringLiteral(" in namespace ") + m_path.mid(ns + 12).section(u'/', 0, 0);
    return what;
}

void KubeWatch::start()
{
    if (m_running)
        return;
    m_running = true;
    m_nextRetry = m_firstRetry;
    list({});
}

void KubeWatch::stop()
{
    m_running = false;
    ++m_generation;
    m_retry.stop();
    m_idle.stop();
    dropStream();
}

void KubeWatch::list(const QString &continueToken)
{
    if (continueToken.isEmpty()) {
        m_listing.clear();
        m_listingBytes = 0;
        ++m_lists;
        m_listPages = 0;
        qCDebug(lcKube).noquote() << QStringLiteral("%1: listing (list %2 of this watch, in pages of %3)").arg(describe()).arg(m_lists).arg(m_pageSize);
    }
    ++m_listPages;
    QUrlQuery query(m_query);
    query.addQueryItem(QStringLiteral("limit"), QString::number(m_pageSize));
    if (!continueToken.isEmpty())
        query.addQueryItem(QStringLiteral("continue"), QString::fromLatin1(QUrl::toPercentEncoding(continueToken)));
    const quint64 generation = m_generation;
    m_client->get(m_path + u'?' + query.toString(QUrl::FullyEncoded), [this, generation, self = QPointer<KubeWatch>(this)](
                                                                          const QString &error, int status, const QByteArray &body) {
        if (!self || generation != m_generation || !m_running)
            return;
        onListPage(error, status, body);
    });
}

void KubeWatch::onListPage(const QString &error, int status, const QByteArray &body)
{
    if (!error.isEmpty()) {
        m_failing = true;
        qCDebug(lcKube).noquote() << QStringLiteral("%1: the list failed at page %2: %3").arg(describe()).arg(m_listPages).arg(error);
        retryLater(true, error, status);
        return;
    }
    od::parser parser;
    const simdjson::padded_string padded(body.constData(), size_t(body.size()));
    od::document doc;
    QString continueToken, resourceVersion;
    bool notAnObject = false; // an item of the wrong JSON type, not a broken document
    bool tooMany = false;     // past kMaxObjects or kMaxCollectionBytes
    bool ok = isValidJson(padded.data(), padded.size()) && !parser.iterate(padded).get(doc);
    od::object root;
    ok = ok && !doc.get_object().get(root);
    if (ok) {
        for (auto field : root) {
            std::string_view key;
            if (field.unescaped_key().get(key)) {
                ok = false;
                break;
            }
            if (key == "apiVersion") {
                std::string_view v;
                if (!field.value().get_string().get(v))
                    m_apiVersion = QString::fromUtf8(v.data(), qsizetype(v.size()));
            } else if (key == "metadata") {
                od::object metadata;
                if (field.value().get_object().get(metadata))
                    continue;
                for (auto m : metadata) {
                    std::string_view mk, mv;
                    if (m.unescaped_key().get(mk))
                        break;
                    if (mk == "resourceVersion" && !m.value().get_string().get(mv))
                        resourceVersion = QString::fromUtf8(mv.data(), qsizetype(mv.size()));
                    else if (mk == "continue" && !m.value().get_string().get(mv))
                        continueToken = QString::fromUtf8(mv.data(), qsizetype(mv.size()));
                }
            } else if (key == "items") {
                od::array items;
                if (field.value().get_array().get(items))
                    continue; // null: an empty list
                for (auto item : items) {
                    od::object object;
                    std::string_view raw;
                    if (item.get_object().get(object) || object.raw_json().get(raw)) {
                        ok = false;
                        notAnObject = true;
                        break;
                    }
                    ObjectMeta meta;
                    if (!readMeta(raw, meta) || isForeign(meta, "LIST"))
                        continue;
                    const QString objectName = objectKey(meta);
                    m_listingBytes += qint64(raw.size()) - m_listing.value(objectName).size();
                    m_listing.insert(objectName, QByteArray(raw.data(), qsizetype(raw.size())));
                    if (m_listing.size() > m_maxObjects || m_listingBytes > m_maxCollectionBytes) {
                        tooMany = true;
                        break;
                    }
                }
            }
            if (tooMany)
                break;
        }
    }
    if (tooMany) {
        m_failing = true;
        const int pages = m_listPages;
        m_listing.clear();
        m_listingBytes = 0;
        retryLater(true,
                   QStringLiteral("GET %1%2: the list holds more than %3 objects or %4 of them (page %5); not kept")
                       .arg(m_client->displayServer(), m_path)
                       .arg(m_maxObjects)
                       .arg(describeByteCount(m_maxCollectionBytes))
                       .arg(pages),
                   status);
        return;
    }
    if (!ok) {
        m_failing = true;
        retryLater(true,
                   QStringLiteral("GET %1%2: %3")
                       .arg(m_client->displayServer(), m_path,
                            notAnObject ? QStringLiteral("the list holds an item that is not an object") : QStringLiteral("the list is not valid JSON")),
                   status);
        return;
    }
    if (!continueToken.isEmpty()) {
        qCDebug(lcKube).noquote() << QStringLiteral("%1: page %2 read, %3 objects so far; the list continues").arg(describe()).arg(m_listPages).arg(m_listing.size());
        list(continueToken);
        return;
    }
    m_objects = std::move(m_listing);
    m_listing.clear();
    m_objectBytes = std::exchange(m_listingBytes, 0);
    m_resourceVersion = resourceVersion;
    m_listBodyValid = false;
    qCDebug(lcKube).noquote() << QStringLiteral("%1: listed %2 objects in %3 page(s) at resourceVersion %4").arg(describe()).arg(m_objects.size()).arg(m_listPages).arg(m_resourceVersion);
    const bool first = !m_synced;
    m_synced = true;
    Q_EMIT changed();
    if (first)
        Q_EMIT synced();
    watch();
}

void KubeWatch::watch()
{
    if (!m_running)
        return;
    QUrlQuery query(m_query);
    query.addQueryItem(QStringLiteral("watch"), QStringLiteral("1"));
    query.addQueryItem(QStringLiteral("resourceVersion"), m_resourceVersion);
    query.addQueryItem(QStringLiteral("allowWatchBookmarks"), QStringLiteral("true"));
    query.addQueryItem(QStringLiteral("timeoutSeconds"), QString::number(m_watchTimeout.count()));
    const quint64 generation = m_generation;
    ++m_watches;
    m_streamEvents = 0;
    m_streamClock.start(); // as client-go: from the request, since a proxy may hold the headers back
    qCDebug(lcKube).noquote() << QStringLiteral("%1: watching from resourceVersion %2 (watch %3; the server ends it after %4 s)").arg(describe(), m_resourceVersion).arg(m_watches).arg(m_watchTimeout.count());
    m_client->openStream(m_path + u'?' + query.toString(QUrl::FullyEncoded),
                         [this, generation, self = QPointer<KubeWatch>(this)](const QString &error, QNetworkReply *reply) {
                             if (!self || generation != m_generation || !m_running) {
                                 if (reply) {
                                     reply->abort();
                                     reply->deleteLater();
                                 }
                                 return;
                             }
                             if (!reply) {
                                 m_failing = true;
                                 qCDebug(lcKube).noquote() << QStringLiteral("%1: the watch could not start: %2").arg(describe(), error);
                                 retryLater(false, error);
                                 return;
                             }
                             m_stream = reply;
                             m_buffer.clear();
                             m_errorBody.clear();
                             connect(reply, &QNetworkReply::readyRead, this, &KubeWatch::onStreamData);
                             connect(reply, &QNetworkReply::finished, this, &KubeWatch::onStreamFinished);
                             // The answer's headers mean the server took the watch.
                             connect(reply, &QNetworkReply::metaDataChanged, this, [this, reply] {
                                 const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
                                 if (status == 200)
                                     m_refreshedAfter401 = false;
                                 if (status == 200 && m_failing) {
                                     // The delay is not reset here: a server may answer 200 and end
                                     // the watch at once, every time. It is once the watch has lived.
                                     qCDebug(lcKube).noquote() << QStringLiteral("%1: the watch is streaming again (HTTP 200); the retry delay goes back to %2 ms once it has lived")
                                                                      .arg(describe())
                                                                      .arg(m_firstRetry.count());
                                     m_failing = false;
                                     Q_EMIT recovered();
                                 }
                             });
                             m_idle.start(m_idleLimit);
                         });
}

void KubeWatch::onStreamData()
{
    if (!m_stream)
        return;
    const int status = m_stream->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (status != 200) {
        // An error's body, for its message: with the read buffer, one left unread would stall the
        // reply before it finishes. The first kMaxErrorBodyBytes are kept; past them it is aborted
        // (the message then says the status and what was kept).
        while (m_stream && m_stream->bytesAvailable() > 0) {
            const QByteArray piece = m_stream->read(std::min(m_stream->bytesAvailable(), kStreamChunkBytes));
            m_errorBody += piece.left(qsizetype(std::max<qint64>(0, kMaxErrorBodyBytes - m_errorBody.size())));
            if (m_errorBody.size() >= kMaxErrorBodyBytes && piece.size() > 0) {
                m_stream->abort(); // finishes it: onStreamFinished runs now
                return;
            }
        }
        return;
    }
    m_idle.start(m_idleLimit);
    // In pieces: what Qt holds is bounded by the stream's read buffer, what we hold by the event
    // bound; readAll() would copy everything that arrived at once (hundreds of MB) first.
    QByteArray chunk;
    while (m_stream && m_stream->bytesAvailable() > 0) {
        chunk.resize(qsizetype(std::min(m_stream->bytesAvailable(), kStreamChunkBytes)));
        const qint64 n = m_stream->read(chunk.data(), chunk.size());
        if (n <= 0 || !consumeStream(chunk.constData(), qsizetype(n)))
            return;
    }
}

bool KubeWatch::consumeStream(const char *data, qsizetype size)
{
    const quint64 generation = m_generation;
    qsizetype start = 0;
    while (start < size) {
        const void *newline = std::memchr(data + start, '\n', size_t(size - start));
        const qsizetype end = newline ? qsizetype(static_cast<const char *>(newline) - data) : size;
        const qsizetype piece = end - start;
        // The line so far plus this piece, checked before a byte of it is kept.
        if (qint64(m_buffer.size()) + piece > kMaxEventBytes) {
            const qint64 seen = qint64(m_buffer.size()) + piece;
            m_buffer.clear();
            qCDebug(lcKube).noquote() << QStringLiteral("%1: an event is over %2 MiB (%3 bytes%4); dropping the stream and relisting")
                                             .arg(describe())
                                             .arg(kMaxEventBytes >> 20)
                                             .arg(seen)
                                             .arg(newline ? QString() : QStringLiteral(" and no line end yet"));
            relist(QStringLiteral("the watch of %1 sent an event larger than %2 MiB (%3 bytes%4); not read")
                       .arg(describe())
                       .arg(kMaxEventBytes >> 20)
                       .arg(seen)
                       .arg(newline ? QString() : QStringLiteral(" without a line end")));
            return false;
        }
        // A line longer than one piece gets the whole bound reserved at once: a mapping whose pages
        // count only as they are written, so the line never moves again. Grown step by step, each
        // move held the old and the new copy (130 MB at a peak for a 64 MiB line).
        if (qint64(m_buffer.size()) + piece > kStreamChunkBytes && m_buffer.capacity() < kMaxEventBytes)
            m_buffer.reserve(qsizetype(kMaxEventBytes));
        if (!newline) {
            m_buffer.append(data + start, piece);
            return true;
        }
        if (m_buffer.isEmpty()) {
            if (piece > 0)
                handleEvent(data + start, size_t(piece));
        } else {
            m_buffer.append(data + start, piece);
            const QByteArray line = std::exchange(m_buffer, QByteArray());
            handleEvent(line.constData(), size_t(line.size()));
        }
        if (generation != m_generation || !m_running)
            return false; // the event ended the stream (410, an error, a line that is not JSON)
        start = end + 1;
    }
    return true;
}

void KubeWatch::handleEvent(const char *data, size_t size)
{
    od::parser parser;
    const simdjson::padded_string padded(data, size);
    od::document doc;
    od::object event;
    if (!isValidJson(padded.data(), padded.size()) || parser.iterate(padded).get(doc) || doc.get_object().get(event)) {
        qCDebug(lcKube).noquote() << QStringLiteral("%1: event %2 of the stream is not JSON; relisting").arg(describe()).arg(m_streamEvents + 1);
        relist(QStringLiteral("the watch of %1 sent a line that is not JSON").arg(describe()));
        return;
    }
    std::string_view type, object;
    for (auto field : event) {
        std::string_view key;
        if (field.unescaped_key().get(key))
            break;
        if (key == "type") {
            if (field.value().get_string().get(type))
                type = {};
        } else if (key == "object") {
            od::object o;
            if (!field.value().get_object().get(o) && o.raw_json().get(object))
                object = {};
        }
    }
    if (type == "ERROR") {
        const QJsonObject status = QJsonDocument::fromJson(QByteArray(object.data(), qsizetype(object.size()))).object();
        const int code = status.value(QLatin1String("code")).toInt();
        if (code == 410) {
            qCDebug(lcKube).noquote() << QStringLiteral("%1: resourceVersion %2 is too old (an ERROR 410 Gone event, after %3 events); relisting").arg(describe(), m_resourceVersion).arg(m_streamEvents);
            // Our resourceVersion is too old: list afresh (after the backoff when the watch had
            // only just begun: a server that answers every watch so would be listed in a loop).
            relist(QStringLiteral("the watch of %1 from resourceVersion %2 was refused as too old (ERROR 410 Gone)").arg(describe(), m_resourceVersion),
                   true);
            return;
        }
        qCDebug(lcKube).noquote() << QStringLiteral("%1: the watch reported an ERROR event (code %2) after %3 events; dropping the stream").arg(describe()).arg(code).arg(m_streamEvents);
        dropStream(); // at the end of a stream (onStreamFinished) the reply is already gone
        m_failing = true;
        retryLater(false,
                   QStringLiteral("the watch of %1 reported an error: %2").arg(describe(), sanitizeForMessage(status.value(QLatin1String("message")).toString(), 240)),
                   code);
        return;
    }
    ++m_streamEvents;
    ObjectMeta meta;
    const bool named = readMeta(object, meta); // a bookmark's object has only a resourceVersion
    if (!meta.resourceVersion.isEmpty() && meta.resourceVersion != m_resourceVersion) {
        m_resourceVersion = meta.resourceVersion;
        m_listBodyValid = false;
    }
    if (type == "BOOKMARK" || !named || isForeign(meta, "WATCH"))
        return;
    const QString key = objectKey(meta);
    if (type == "DELETED") {
        if (const auto it = m_objects.constFind(key); it != m_objects.constEnd()) {
            m_objectBytes -= it->size();
            m_objects.erase(it);
        }
    } else if (type == "ADDED" || type == "MODIFIED") {
        const auto it = m_objects.constFind(key);
        const bool added = it == m_objects.constEnd();
        const qint64 bytes = m_objectBytes - (added ? 0 : it->size()) + qint64(object.size());
        if ((added && m_objects.size() >= m_maxObjects) || bytes > m_maxCollectionBytes) {
            relist(QStringLiteral("the watch of %1 would hold more than %2 objects or %3 of them; not kept")
                       .arg(describe())
                       .arg(m_maxObjects)
                       .arg(describeByteCount(m_maxCollectionBytes)));
            return;
        }
        m_objectBytes = bytes;
        m_objects.insert(key, QByteArray(object.data(), qsizetype(object.size())));
    } else {
        return;
    }
    m_listBodyValid = false;
    Q_EMIT changed();
}

bool KubeWatch::isForeign(const KubeObjectMeta &meta, const char *where)
{
    if (m_namespace.isEmpty() || meta.ns == m_namespace)
        return false;
    ++m_droppedForeign;
    const QString object = sanitizeForMessage(meta.ns.isEmpty() ? QStringLiteral("(no namespace)/") + meta.name : meta.ns + u'/' + meta.name, 160);
    qCDebug(lcKube).noquote() << QStringLiteral("%1: the %2 answer holds %3, of another namespace; dropped (%4 so far)")
                                     .arg(describe(), QLatin1String(where), object)
                                     .arg(m_droppedForeign);
    if (!m_warnedForeign) {
        m_warnedForeign = true;
        Q_EMIT warning(QStringLiteral("the API server sent objects of other namespaces on the %1 of %2 (the first: %3); dropped: only "
                                      "namespace %4 was asked for")
                           .arg(QLatin1String(where), describe(), object, m_namespace));
    }
    return true;
}

void KubeWatch::onStreamFinished()
{
    QNetworkReply *reply = m_stream;
    if (!reply)
        return;
    m_stream = nullptr;
    m_idle.stop();
    reply->deleteLater();
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (status == 200 && reply->error() == QNetworkReply::NoError) {
        // The server ended the watch after timeoutSeconds: resume where we are, at once.
        // The last event may itself end the watch (an ERROR: retry later; 410 or not JSON:
        // relist); both move m_generation on, and then no new watch starts here.
        const quint64 generation = m_generation;
        QByteArray chunk;
        while (generation == m_generation && reply->isOpen() && reply->bytesAvailable() > 0) {
            chunk.resize(qsizetype(std::min(reply->bytesAvailable(), kStreamChunkBytes)));
            const qint64 n = reply->read(chunk.data(), chunk.size());
            if (n <= 0 || !consumeStream(chunk.constData(), qsizetype(n)))
                break;
        }
        if (generation == m_generation && !m_buffer.isEmpty()) {
            const QByteArray line = std::exchange(m_buffer, QByteArray());
            handleEvent(line.constData(), size_t(line.size()));
        }
        m_buffer.clear();
        if (m_running && !m_stream && generation == m_generation) {
            if (streamLived()) {
                qCDebug(lcKube).noquote() << QStringLiteral("%1: the server ended the watch after %2 events and %3 ms; resuming at once").arg(describe()).arg(m_streamEvents).arg(m_streamClock.elapsed());
                m_nextRetry = m_firstRetry;
                watch();
            } else {
                // client-go's "very short watch": a server that ends every watch at once (a
                // proxy, an overloaded server) would otherwise be asked again hundreds of times a second.
                m_failing = true;
                retryLater(false,
                           QStringLiteral("the watch of %1 ended at once (after %2 ms and %3 events)").arg(describe()).arg(m_streamClock.elapsed()).arg(m_streamEvents),
                           0, true);
            }
        }
        return;
    }
    if (status == 410) {
        qCDebug(lcKube).noquote() << QStringLiteral("%1: HTTP 410 Gone: resourceVersion %2 is too old; relisting").arg(describe(), m_resourceVersion);
        relist(QStringLiteral("GET %1%2 (watch): HTTP 410: resourceVersion %3 is too old").arg(m_client->displayServer(), m_path, m_resourceVersion), true);
        return;
    }
    m_failing = true;
    QByteArray body = std::exchange(m_errorBody, QByteArray());
    if (reply->isOpen() && body.size() < kMaxErrorBodyBytes)
        body += reply->read(kMaxErrorBodyBytes - body.size());
    if (status == 401 && !m_refreshedAfter401 && m_client->refreshCredential()) {
        // An expired token or exec credential: a plain request would refresh it and retry once;
        // so does the watch (without this it retried with the refused one forever).
        m_refreshedAfter401 = true;
        qCDebug(lcKube).noquote() << QStringLiteral("%1: HTTP 401 on the watch: the credential was refreshed; watching again at once").arg(describe());
        Q_EMIT failed(QStringLiteral("GET %1%2 (watch): HTTP 401: the API server refused %3; retrying with a fresh one")
                          .arg(m_client->displayServer(), m_path, m_client->credentialOrigin()),
                      status);
        watch();
        return;
    }
    QString message;
    const QString where = QStringLiteral("GET %1%2 (watch)").arg(m_client->displayServer(), m_path);
    if (const QString refused = describeRefusedOrCut(reply, status, bytesReceived(reply), m_idleLimit); status >= 300 && status <= 399)
        message = QStringLiteral("%1: %2").arg(where, refused); // a redirect: refused, and says so
    else if (status > 0 && status != 200)
        message = QStringLiteral("%1: HTTP %2: %3").arg(where).arg(status).arg(statusMessage(body));
    else
        message = QStringLiteral("the watch of %1 (%2) was cut (%3); resuming from resourceVersion %4")
                      .arg(describe(), where, sanitizeForMessage(reply->errorString()), m_resourceVersion);
    qCDebug(lcKube).noquote() << QStringLiteral("%1: the watch ended after %2 events and %3 bytes: %4").arg(describe()).arg(m_streamEvents).arg(bytesReceived(reply)).arg(message);
    retryLater(false, message, status);
}

void KubeWatch::dropStream()
{
    if (QNetworkReply *stream = std::exchange(m_stream, nullptr)) {
        stream->disconnect(this);
        stream->abort();
        stream->deleteLater();
    }
}

bool KubeWatch::streamLived() const
{
    if (!m_streamClock.isValid())
        return false;
    const qint64 ms = m_streamClock.elapsed();
    return ms >= m_watchLived.count() || (m_streamEvents > 0 && ms >= std::min(kShortWatch, m_watchLived).count());
}

std::chrono::milliseconds KubeWatch::backoffDelay(std::chrono::milliseconds nominal, std::chrono::milliseconds cap, double random01)
{
    // Up by as much as half; a nominal delay near the cap is taken down to 2/3 of it first, so
    // that the delays at the cap still spread (20-30 s) and never pass it.
    const double base = std::min(double(nominal.count()), double(cap.count()) * 2.0 / 3.0);
    const double jittered = base * (1.0 + 0.5 * std::clamp(random01, 0.0, 1.0));
    return std::min(cap, std::chrono::milliseconds(qint64(jittered)));
}

namespace {
QString delayText(std::chrono::milliseconds delay)
{
    return delay.count() < 1000 ? QStringLiteral("%1 ms").arg(delay.count()) : QStringLiteral("%1 s").arg(double(delay.count()) / 1000.0, 0, 'f', 1);
}
} // namespace

void KubeWatch::relist(const QString &message, bool quietFirst)
{
    const bool lived = streamLived();
    dropStream();
    m_idle.stop();
    if (lived) {
        // A watch that lived and then needs a relist (410 after a long watch): at once, as before.
        m_nextRetry = m_firstRetry;
        m_streamClock.invalidate();
        if (!message.isEmpty() && !quietFirst)
            Q_EMIT failed(message + QStringLiteral("; relisting now"), 0);
        ++m_generation;
        list({});
        return;
    }
    m_failing = true;
    retryLater(true, message, 0, quietFirst);
}

void KubeWatch::retryLater(bool relistAfter, const QString &message, int status, bool quietFirst)
{
    if (!m_running)
        return;
    if (streamLived())
        m_nextRetry = m_firstRetry; // the stream that just ended had lived: start the backoff over
    m_streamClock.invalidate();
    m_retry.disconnect(this);
    const quint64 generation = ++m_generation;
    const bool relisting = relistAfter || !m_synced;
    const std::chrono::milliseconds delay = backoffDelay(m_nextRetry, m_maxRetry, QRandomGenerator::global()->generateDouble());
    m_lastDelay = delay;
    qCDebug(lcKube).noquote() << QStringLiteral("%1: retrying in %2 ms, %3 (the delay doubles from %4 ms up to %5 s, with jitter, while it fails)")
                                     .arg(describe())
                                     .arg(delay.count())
                                     .arg(relisting ? QStringLiteral("with a new list") : QStringLiteral("watching from resourceVersion ") + m_resourceVersion)
                                     .arg(m_firstRetry.count())
                                     .arg(m_maxRetry.count() / 1000);
    if (!message.isEmpty() && !(quietFirst && m_nextRetry == m_firstRetry))
        Q_EMIT failed(QStringLiteral("%1; %2 in %3").arg(message, relisting ? QStringLiteral("relisting") : QStringLiteral("watching again"), delayText(delay)), status);
    if (generation != m_generation || !m_running)
        return; // a handler of failed() stopped or restarted the watch
    connect(&m_retry, &QTimer::timeout, this, [this, relistAfter, generation] {
        if (generation != m_generation || !m_running)
            return;
        if (relistAfter || !m_synced)
            list({});
        else
            watch();
    });
    m_retry.start(delay);
    m_nextRetry = std::min(m_nextRetry * 2, m_maxRetry);
}

QByteArray KubeWatch::listBody() const
{
    if (m_listBodyValid) return m_listBody;
    qsizetype total = 128;
    for (const QByteArray &object : m_objects)
        total += object.size() + 1;
    QByteArray body;
    body.reserve(total + qsizetype(simdjson::SIMDJSON_PADDING));
    body += "{\"apiVersion\":\"";
    body += m_apiVersion.isEmpty() ? QByteArrayLiteral("v1") : m_apiVersion.toUtf8();
    body += "\",\"kind\":\"" + m_listKind + "\",\"metadata\":{\"resourceVersion\":\"" + m_resourceVersion.toUtf8() + "\"},\"items\":[";
    bool first = true;
    for (const QByteArray &object : m_objects) {
        if (!first)
            body += ',';
        first = false;
        body += object;
    }
    body += "]}";
    m_listBody = body;
    m_listBodyValid = true;
    return body;
}

} // namespace slicescope
