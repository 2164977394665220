// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The Kubernetes API client (docs/facts.md 4): requests authenticated the way kubectl does (bearer
// token, token file, client certificate, exec plugin; see kubeconfig.h), TLS as the kubeconfig
// says, and KubeWatch, which keeps one collection (RayClusters, Ray pods, TPU nodes) current by
// LIST then WATCH. Asynchronous on Qt's event loop, like RayClient: no nested loops, no waiting.
//
// Credentials go into the Authorization header or the TLS handshake and nowhere else; messages
// name the server, method and path, and where the credential came from.

#include "kubeconfig.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QMap>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QObject>
#include <QPointer>
#include <QSslConfiguration>
#include <QString>
#include <QTimer>

#include <chrono>
#include <functional>
#include <memory>

namespace slicescope {

class KubeClient : public QObject
{
    Q_OBJECT
public:
    explicit KubeClient(KubeConfig config, QObject *parent = nullptr);
    ~KubeClient() override;

    const KubeConfig &config() const { return m_config; }
    // "https://127.0.0.1:6443" for messages (no user info, no path).
    QString displayServer() const;

    // The transport seam (docs/style.md 5): tests put a fault-injecting manager here. Not owned.
    void setNetworkAccessManager(QNetworkAccessManager *manager);
    QNetworkAccessManager *networkAccessManager() const { return m_manager; }
    // No bytes for this long fails a plain request (default 30 s). Watches use their own idle limit.
    void setTransferTimeout(std::chrono::milliseconds timeout) { m_transferTimeout = timeout; }
    // Connect timeout and overall deadline of plain requests (zero: netguard.h's defaults, 10 s
    // and 120 s, the latter lowered by a headless verb's --timeout). Streams take the connect one.
    void setDeadlines(std::chrono::milliseconds connect, std::chrono::milliseconds overall)
    {
        m_connectTimeout = connect;
        m_deadline = overall;
    }
    // A plain request's body larger than this fails it, unread past the bound (default 256 MiB,
    // like RayClient's: LISTs are paged, 500 items a page). Checked against Content-Length first.
    void setMaxBodyBytes(qint64 bytes) { m_maxBodyBytes = bytes; }

    // One request. `path` starts with '/' and may carry a query. The handler runs once, later, on
    // the event loop: `error` empty for a 2xx answer, else one line naming the method, the path
    // and what the server said (its Status message), never a credential. `status` is the HTTP
    // status or 0. A 401 with an exec plugin or a token file refreshes the credential and retries
    // once. Requests in flight when the client goes away end without calling their handler.
    using ReplyHandler = std::function<void(const QString &error, int status, const QByteArray &body)>;
    void request(const QByteArray &method, const QString &path, const QByteArray &body, const QByteArray &contentType,
                 ReplyHandler handler);
    void get(const QString &path, ReplyHandler handler) { request("GET", path, {}, {}, std::move(handler)); }
    // A JSON Patch (application/json-patch+json), the only safe patch for custom resources.
    void jsonPatch(const QString &path, const QByteArray &patch, ReplyHandler handler)
    {
        request("PATCH", path, patch, "application/json-patch+json", std::move(handler));
    }

    // Asks the server whether the current user may `verb` the `resource` (SelfSubjectAccessReview).
    // The handler gets allowed, and the server's reason or our error when not.
    using AccessHandler = std::function<void(bool allowed, const QString &reason)>;
    void checkAccess(const QString &verb, const QString &group, const QString &resource, const QString &ns,
                     const QString &subresource, AccessHandler handler);

    // A request for a long-lived stream (a watch): prepared like every other, handed back open.
    // The handler gets the reply (owned by the caller) or an error when no credential was found.
    // Qt holds at most kStreamReadBufferBytes of it unread (without a read buffer it reads a
    // stream as fast as the server writes, whatever the reader keeps up with).
    static constexpr qint64 kStreamReadBufferBytes = qint64(1) << 20;
    using StreamHandler = std::function<void(const QString &error, QNetworkReply *reply)>;
    void openStream(const QString &path, StreamHandler handler);

    // Prepares a request for an arbitrary URL on this server with TLS and the current credential
    // (the service proxy to a Ray dashboard goes through this). The credential is fetched first
    // (an exec plugin may run), so this is asynchronous too.
    using PrepareHandler = std::function<void(const QString &error, QNetworkRequest request)>;
    void prepare(const QUrl &url, PrepareHandler handler);
    // The same, synchronously, with whatever credential is cached now (empty when an exec plugin
    // has not run yet). For QNetworkAccessManager::createRequest overrides.
    void applyCurrentCredential(QNetworkRequest &request) const;

    QUrl urlFor(const QString &path) const;
    // How the credential was obtained, for messages ("token of user admin in /x/kubeconfig").
    QString credentialOrigin() const;
    // After a 401 (a plain request's, or a watch's): drops a cached exec credential or re-reads
    // the token file, so the next request carries a fresh one. False: nothing to refresh.
    bool refreshCredential();

private:
    struct Credential {
        QByteArray token;
        QSslCertificate certificate;
        QSslKey key;
    };
    void withCredential(std::function<void(const QString &error)> next);
    QNetworkRequest makeRequest(const QUrl &url) const;
    void send(const QByteArray &method, const QString &path, const QByteArray &body, const QByteArray &contentType,
              ReplyHandler handler, bool retried);
    QString describeFailure(QNetworkReply *reply, const QByteArray &method, const QString &path, int status,
                            const QByteArray &body) const;

    KubeConfig m_config;
    Credential m_credential;
    QSslConfiguration m_ssl;
    KubeExecCredentialProvider *m_exec = nullptr;
    QNetworkAccessManager *m_ownManager = nullptr;
    QPointer<QNetworkAccessManager> m_manager;
    std::chrono::milliseconds m_transferTimeout{30000};
    std::chrono::milliseconds m_connectTimeout{0};
    std::chrono::milliseconds m_deadline{0};
    qint64 m_maxBodyBytes = qint64(256) << 20;
    QList<QPointer<QNetworkReply>> m_inFlight;
};

struct KubeObjectMeta; // kubewatch.cpp

// Keeps one collection current: LIST (paged with limit/continue), then WATCH from the list's
// resourceVersion with bookmarks; resumes from the last seen resourceVersion after a normal end
// or a cut stream, relists on 410 Gone, backing off as client-go does (see kFirstRetryDelay).
// Holds each object's JSON exactly as the server sent it (each event at most kMaxEventBytes;
// objects of other namespaces on a namespaced path dropped), keyed by namespace/name, and writes
// the collection back as one List body (what a capture stores). Bounds: docs/bounds.md.
class KubeWatch : public QObject
{
    Q_OBJECT
public:
    // `collectionPath`: e.g. "/apis/ray.io/v1/rayclusters" or "/api/v1/namespaces/ns/pods";
    // `query`: e.g. "labelSelector=ray.io%2Fis-ray-node%3Dyes" (may be empty). `listKind`: the
    // kind of the List body written back ("PodList").
    KubeWatch(KubeClient *client, QString collectionPath, QString query, QByteArray listKind, QObject *parent = nullptr);
    ~KubeWatch() override;

    void start();
    void stop();

    // True once the first LIST completed (the collection is complete from then on).
    bool isSynced() const { return m_synced; }
    bool isWatching() const { return m_stream != nullptr; }
    int size() const { return int(m_objects.size()); }
    QString lastResourceVersion() const { return m_resourceVersion; }
    // The collection as a List body: {"apiVersion","kind","metadata":{"resourceVersion"},"items":[...]}.
    // The same buffer while the collection and its resourceVersion stay the same (the snapshot
    // builder then knows the list unchanged without reading it: model/snapshotbuilder.cpp).
    QByteArray listBody() const;
    // Counters for tests and the status line.
    int listCount() const { return m_lists; }
    int watchCount() const { return m_watches; }
    QString describe() const; // "pods in ns tpu-team"
    // The namespace of a namespaced collection path ("" for all namespaces or a cluster-scoped
    // kind). Objects the server sends of any other namespace are dropped, in LIST answers and
    // WATCH events alike, with one warning() per watch; droppedForeign() counts them.
    QString watchedNamespace() const { return m_namespace; }
    int droppedForeign() const { return m_droppedForeign; }

    // One watch event (one line of the stream) may be at most this long (docs/bounds.md). The
    // stream is read in pieces of at most kStreamChunkBytes, and a line is checked before it
    // grows: a longer one is refused when it passes the bound, never read whole.
    static constexpr qint64 kMaxEventBytes = qint64(64) << 20;
    static constexpr qint64 kStreamChunkBytes = qint64(1) << 20;
    // A collection (one LIST, all its pages, and what WATCH events add to it) holds at most
    // kMaxObjects objects and kMaxCollectionBytes of their JSON: a server that sends page after
    // page, or ADDED after ADDED, cannot grow it without end. Past either, the LIST (or the
    // event) is refused and listed again after the backoff. The snapshot reads 50,000 items of a
    // list (model/inputlimits.h); while a relist runs, the old collection is kept beside it.
    static constexpr int kMaxObjects = 200000;
    static constexpr qint64 kMaxCollectionBytes = qint64(512) << 20;
    void setCollectionBounds(int objects, qint64 bytes)
    {
        m_maxObjects = objects;
        m_maxCollectionBytes = bytes;
    }
    // What is kept of a watch's error answer (a Status), for the message; the rest is not read.
    static constexpr qint64 kMaxErrorBodyBytes = qint64(64) << 10;

    // Server-side watch length (timeoutSeconds, default 300 s) and the silence after which a
    // stream is taken as cut even though the socket says nothing (default 90 s: the server sends
    // a bookmark about every minute).
    void setWatchTimeout(std::chrono::seconds timeout) { m_watchTimeout = timeout; }
    void setIdleLimit(std::chrono::milliseconds limit) { m_idleLimit = limit; }
    // The backoff (issue 30; client-go's reflector, docs/facts.md 4.2): after a failure, a watch
    // that ended at once (under 1 s with no event) or a relist its watch asked for at once (410,
    // a bad line), the next request waits: kFirstRetryDelay doubling to kMaxRetryDelay, each delay
    // jittered up by as much as half (backoffDelay()): 0.5-0.75 s, 1-1.5 s, ... 16-24 s, then
    // 20-30 s while it fails. A watch that lived (kWatchLived, or
    // kShortWatch with at least one event) sets the delay back to the first; after one that ended
    // normally it resumes at once. failed() says what and when ("...; watching again in 4.2 s").
    static constexpr std::chrono::milliseconds kFirstRetryDelay{500};
    static constexpr std::chrono::milliseconds kMaxRetryDelay{30000};
    static constexpr std::chrono::milliseconds kWatchLived{30000};
    static constexpr std::chrono::milliseconds kShortWatch{1000};
    // `nominal` (at most 2/3 of `cap`) plus up to half of it by `random01` in [0, 1): never over `cap`.
    static std::chrono::milliseconds backoffDelay(std::chrono::milliseconds nominal, std::chrono::milliseconds cap, double random01);
    // Shorter schedules for tests: the first delay, the cap, and how long a watch must live.
    void setRetryDelay(std::chrono::milliseconds delay) { m_firstRetry = m_nextRetry = delay; }
    void setMaxRetryDelay(std::chrono::milliseconds cap) { m_maxRetry = cap; }
    void setWatchLived(std::chrono::milliseconds lived) { m_watchLived = lived; }
    std::chrono::milliseconds retryDelay() const { return m_firstRetry; }
    std::chrono::milliseconds maxRetryDelay() const { return m_maxRetry; }
    // The delay of the last retry scheduled (0 before any).
    std::chrono::milliseconds lastRetryDelay() const { return m_lastDelay; }
    void setPageSize(int limit) { m_pageSize = limit; }

Q_SIGNALS:
    // The collection changed (or was listed). Cheap to emit per event; sources coalesce.
    void changed();
    // The first LIST completed.
    void synced();
    // A failure while listing or watching; the watch retries by itself. `status` is the HTTP status.
    void failed(const QString &message, int status);
    // The watch is streaming again after a failure or a cut.
    void recovered();
    // Something the watch dropped and the user should know, once per watch (issue 30): objects of
    // a namespace that was not asked for.
    void warning(const QString &message);

private:
    friend struct KubeWatchFuzzAccess; // tests/fuzz/fuzz_kubewatch.cpp feeds handleEvent() lines
    void list(const QString &continueToken);
    void onListPage(const QString &error, int status, const QByteArray &body);
    void watch();
    void onStreamData();
    void onStreamFinished();
    void handleEvent(const char *data, size_t size);
    // Splits bytes of the stream into lines (events), at most kMaxEventBytes each. False when the
    // stream ended meanwhile (an event or an oversized line ended it).
    bool consumeStream(const char *data, qsizetype size);
    // True (and counted, warned about once) when `meta` is of a namespace this watch did not ask for.
    bool isForeign(const KubeObjectMeta &meta, const char *where);
    // Retries after the backoff's next delay; `message` (when given) goes out as failed(),
    // with what happens next and when. `quietFirst`: not on the backoff's first step (a clean
    // end or a 410 a healthy server may send once: said from the second in a row on, when it is
    // a loop; a headless verb or a recording is not ended by a one-off).
    void retryLater(bool relist, const QString &message = {}, int status = 0, bool quietFirst = false);
    // Lists afresh: at once after a watch that lived, else after the backoff (with `message`).
    void relist(const QString &message = {}, bool quietFirst = false);
    bool streamLived() const; // the current or last stream lived (see kWatchLived)
    void dropStream(); // aborts the current stream, if any, and forgets it

    KubeClient *m_client;
    QString m_path;
    QString m_query;
    QByteArray m_listKind;
    QMap<QString, QByteArray> m_objects;        // "ns/name" -> object JSON
    mutable QByteArray m_listBody;              // listBody() of m_objects, when m_listBodyValid
    mutable bool m_listBodyValid = false;
    QMap<QString, QByteArray> m_listing;        // pages of a LIST in progress
    QString m_resourceVersion;
    QString m_apiVersion;
    QString m_namespace;      // from the path; empty: every namespace (or cluster-scoped)
    int m_droppedForeign = 0; // objects of other namespaces dropped
    bool m_warnedForeign = false;
    bool m_running = false;
    bool m_synced = false;
    bool m_failing = false;
    bool m_refreshedAfter401 = false; // one fresh credential per run of 401s, then backoff
    int m_lists = 0;
    int m_watches = 0;
    int m_listPages = 0;   // pages of the LIST in progress (debug log)
    int m_streamEvents = 0; // events of the current watch stream (debug log)
    int m_pageSize = 500;
    quint64 m_generation = 0;                    // ignores callbacks from a stopped/replaced request
    QPointer<QNetworkReply> m_stream;
    QByteArray m_buffer;
    QByteArray m_errorBody; // the start of a non-200 answer's body
    int m_maxObjects = kMaxObjects;
    qint64 m_maxCollectionBytes = kMaxCollectionBytes;
    qint64 m_objectBytes = 0;  // the JSON bytes of m_objects
    qint64 m_listingBytes = 0; // ... of m_listing
    QTimer m_retry;
    QTimer m_idle;
    std::chrono::milliseconds m_firstRetry{kFirstRetryDelay};
    std::chrono::milliseconds m_nextRetry{kFirstRetryDelay};
    std::chrono::milliseconds m_maxRetry{kMaxRetryDelay};
    std::chrono::milliseconds m_watchLived{kWatchLived};
    std::chrono::milliseconds m_lastDelay{0};
    QElapsedTimer m_streamClock; // since the current (or last) watch request was sent
    std::chrono::milliseconds m_idleLimit{90000};
    std::chrono::seconds m_watchTimeout{300};
};

} // namespace slicescope
