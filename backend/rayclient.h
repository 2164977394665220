// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The read side of the Ray dashboard's HTTP API (docs/facts.md section 1): one poll gathers the bodies
// of /api/version, the state API's nodes and placement groups, the jobs list and the `ray status`
// text into one Capture, all or nothing. Asynchronous on Qt's event loop (no nested loops, no
// waiting), so it runs the same in the window, the headless verbs and the browser build.
//
// Every request carries an explicit User-Agent (the dashboard refuses what looks like a browser,
// docs/facts.md 1.4), a transfer timeout and a bound on the body size. A bearer token, when there is
// one, is sent in the Authorization header and nowhere else: messages name where it came from,
// never what it is.

#include "capture.h"

#include <QByteArray>
#include <QList>
#include <QNetworkRequest>
#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QUrl>

#include <chrono>
#include <functional>
#include <memory>

class QJsonObject;
class QNetworkAccessManager;
class QNetworkReply;

namespace slicescope {

struct RequestBounds; // netguard.h

// A Ray auth token and where it was found ("--ray-token-file F", "RAY_AUTH_TOKEN", ...), so a
// message can say which token was refused without showing it.
struct RayToken {
    QByteArray value; // empty: no token
    QString origin;
    bool isEmpty() const { return value.isEmpty(); }
};

// Finds the token in Ray's own order (docs/facts.md 1.4), after an explicit file: `tokenFile` (the
// --ray-token-file option), RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH, ~/.ray/auth_token. Finding none is
// not an error (the cluster may not want one). Returns an error sentence when a file that was
// named explicitly (the option or RAY_AUTH_TOKEN_PATH) cannot be read or holds no usable token.
[[nodiscard]] QString resolveRayToken(const QString &tokenFile, RayToken &token);

// The User-Agent every request sends: "slicescope/<version>".
QByteArray slicescopeUserAgent();

class RayClient : public QObject
{
    Q_OBJECT
public:
    // `baseUrl` is the dashboard, e.g. http://127.0.0.1:8265, possibly under a path prefix (a
    // Kubernetes service proxy); request paths are appended to it.
    explicit RayClient(const QUrl &baseUrl, QObject *parent = nullptr);
    ~RayClient() override;

    void setToken(RayToken token);
    // The header the token goes in: "Authorization" (default), or "X-Ray-Authorization", which Ray
    // also reads (docs/facts.md 1.4), when Authorization is taken by someone on the way (the Kubernetes
    // API server's service proxy wants its own bearer token there).
    void setTokenHeader(QByteArray header) { m_tokenHeader = std::move(header); }
    // The transport seam (docs/style.md 5): a QNetworkAccessManager subclass whose createRequest()
    // injects faults. Not owned; if it goes away the client's own is used again.
    void setNetworkAccessManager(QNetworkAccessManager *manager);
    // No bytes for this long fails the request (default 30 s: netlimits::kIdleTimeout).
    void setTransferTimeout(std::chrono::milliseconds timeout) { m_transferTimeout = timeout; }
    // Not connected within `connect`, or not complete within `overall` (however the bytes
    // trickle), fails the request; zero keeps the default (netguard.h: 10 s and 120 s, the
    // latter lowered by a headless verb's --timeout).
    void setDeadlines(std::chrono::milliseconds connect, std::chrono::milliseconds overall)
    {
        m_connectTimeout = connect;
        m_deadline = overall;
    }
    // A body larger than this fails the poll (default 256 MiB): a 10k-node cluster is ~20 MB.
    void setMaxBodyBytes(qint64 bytes) { m_maxBodyBytes = bytes; }
    // 429 (too many state requests in flight) is retried this many times, backing off from
    // `firstDelay` and doubling, or as the server's Retry-After says (default 4 times from 500 ms).
    void setRetryPolicy(int maxRetries, std::chrono::milliseconds firstDelay);

    // How often a poll also fetches GET /nodes?view=summary (chip activity, docs/facts.md 2.5;
    // default 10 s; zero: never). Between fetches a capture carries the newest body; a failed
    // fetch is said in Capture::rayNodeSummaryError and never fails the poll.
    void setNodeSummaryInterval(std::chrono::milliseconds interval) { m_nodeSummaryInterval = interval; }

    QUrl baseUrl() const { return m_baseUrl; }
    // The base URL for messages: no user info, no trailing slash.
    QString displayUrl() const;
    bool isPolling() const { return m_poll != nullptr; }
    // What /api/authentication_mode said ("token", "disabled"), or empty before it was read.
    QString authenticationMode() const { return m_authMode; }
    // ray_version from /api/version ("2.60.0"), or empty before the first poll.
    QString rayVersion() const { return m_rayVersion; }

    // Starts one poll. Returns false (and does nothing) while a poll is in flight. Ends with
    // exactly one captureReceived or pollFailed, never synchronously.
    bool poll();
    // Abandons the poll in flight without a signal.
    void cancel();

    // Single requests outside a poll: the Job Submission API (docs/facts.md 1.3) and one-off state
    // reads. The handler runs once, later, on the event loop: with an empty `error` and the body
    // of a 2xx answer, or with a one-line `error` that names the method and URL (never the
    // token) and what to do. `status` is the HTTP status, 0 when there was no answer. Requests
    // still in flight when the client goes away end without calling their handler.
    using ReplyHandler = std::function<void(const QString &error, int status, const QByteArray &body)>;
    void request(const QByteArray &method, const QString &pathAndQuery, const QByteArray &jsonBody, ReplyHandler handler);
    // POST /api/jobs/ with `body` ({"entrypoint", "submission_id", "runtime_env", "metadata"...}).
    void submitJob(const QJsonObject &body, ReplyHandler handler);
    // GET /api/jobs/{id}: status, message, metadata...
    void getJob(const QString &submissionId, ReplyHandler handler);
    // POST /api/jobs/{id}/stop: asks Ray to stop the job; it ends a moment later.
    void stopJob(const QString &submissionId, ReplyHandler handler);
    // GET /api/jobs/{id}/logs: {"logs": "..."}, the whole driver log so far.
    void getJobLogs(const QString &submissionId, ReplyHandler handler);
    // The upgrade request for one of the dashboard's WebSockets (ws:// or wss:// by the base URL's
    // scheme), carrying the same User-Agent and token as every other request.
    QNetworkRequest webSocketRequest(const QString &pathAndQuery) const;
    // GET /api/packages/gcs/{name}: succeeds when the GCS holds the package (asking also pins it
    // there for a while), fails with status 404 when it does not.
    void getPackage(const QString &packageName, ReplyHandler handler);
    // PUT /api/packages/gcs/{name} with a zip's bytes: how Ray's job SDK uploads a working_dir.
    void putPackage(const QString &packageName, const QByteArray &zip, ReplyHandler handler);

Q_SIGNALS:
    // Every body of one poll, each with parse padding reserved.
    void captureReceived(const slicescope::Capture &capture);
    // One line: the method, the URL (never the token), what happened and what to do about it.
    void pollFailed(const QString &message);

private:
    struct Poll;
    struct Fetch;

    void startStep();
    void send(int fetchIndex);
    void onFinished(QNetworkReply *reply, quint64 pollId, int fetchIndex);
    QNetworkRequest makeRequest(const QString &pathAndQuery) const;
    void sendSingle(const QByteArray &method, const QString &pathAndQuery, const QByteArray &body, const QByteArray &contentType,
                    ReplyHandler handler);
    QString describeFailure(QNetworkReply *reply, const QByteArray &method, const QString &path, int status, int attempts,
                            bool versionRoute) const;
    void fail(const QString &message);
    RequestBounds bounds() const;
    void finishStep();
    QUrl urlFor(const QString &pathAndQuery) const;
    QString redact(QString text) const;

    QUrl m_baseUrl;
    RayToken m_token;
    std::chrono::milliseconds m_nodeSummaryInterval{10000};
    QElapsedTimer m_sinceNodeSummary;
    QByteArray m_nodeSummary;
    QString m_nodeSummaryError;
    QByteArray m_tokenHeader = QByteArrayLiteral("Authorization");
    QNetworkAccessManager *m_ownManager = nullptr;
    QPointer<QNetworkAccessManager> m_manager;
    std::chrono::milliseconds m_transferTimeout{30000};
    std::chrono::milliseconds m_connectTimeout{0};
    std::chrono::milliseconds m_deadline{0};
    qint64 m_maxBodyBytes = qint64(256) << 20;
    int m_maxRetries = 4;
    std::chrono::milliseconds m_firstRetryDelay{500};

    QString m_authMode;
    QString m_rayVersion;
    quint64 m_nextPollId = 1;
    std::unique_ptr<Poll> m_poll;
    QList<QPointer<QNetworkReply>> m_single; // single requests in flight, aborted with the client
};

} // namespace slicescope
