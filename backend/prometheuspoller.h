// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Chip activity from Prometheus (`--prometheus URL [--prometheus-token-file F]`, docs/facts.md
// 2.5): on its own interval it asks the HTTP API (GET /api/v1/query) the queries of
// model/activity.h (Ray's ray_tpu_* gauges, the device plugin's own series, the highest duty
// cycle over the idle window) and keeps the newest answers verbatim. A live source puts them into
// every capture it emits (attachTo), so recordings and files carry them through the one data path.
// A failed round keeps the answers before it (their samples age, and the join drops them once
// stale) and says why in Capture::prometheusError; it never touches the allocation view.
// Bounds (docs/bounds.md): the answers of one round together at most maxRoundBytes() (counted on
// every read, so a chunked answer that never ends is stopped at the bound, not when it ends); a
// redirect is a failure naming its Location, never followed, never an empty success.

#include "capture.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QTimer>
#include <QUrl>

#include <chrono>

class QNetworkAccessManager;
class QNetworkReply;

namespace slicescope {

class PrometheusPoller : public QObject
{
    Q_OBJECT
public:
    // `url` is the server's base (http://127.0.0.1:9090, or a query frontend under a path prefix).
    explicit PrometheusPoller(const QUrl &url, QObject *parent = nullptr);
    ~PrometheusPoller() override;

    // Reads a bearer token from `path` (bounded; one word). Returns an error sentence or empty.
    [[nodiscard]] static QString readTokenFile(const QString &path, QByteArray &token);
    void setToken(QByteArray token) { m_token = std::move(token); }
    void setTokenOrigin(QString origin) { m_tokenOrigin = std::move(origin); }
    void setNetworkAccessManager(QNetworkAccessManager *manager);
    // Between two rounds (default 10 s).
    void setInterval(std::chrono::milliseconds interval) { m_interval = interval; }
    // The window of the max_over_time query (default 600 s: the default idle-after); 0 skips it.
    void setWindowSeconds(int seconds) { m_windowSeconds = seconds; }
    void setDeadline(std::chrono::milliseconds overall) { m_deadline = overall; }
    // The bound on one round's answers together (default 128 MiB).
    static qint64 maxRoundBytes();

    QString displayUrl() const; // no user info, no trailing slash
    void start();               // a round at once, then one per interval
    void stop();
    bool hasAnswered() const { return m_rounds > 0; } // a round has ended (answered or failed)

    // Puts the newest answers, the URL and the last round's failure into `capture`.
    void attachTo(Capture &capture) const;

Q_SIGNALS:
    // A round ended: new answers, or a failure (or a recovery) to tell.
    void updated();

private:
    void startRound();
    void onReadyRead(QNetworkReply *reply, quint64 round, int index);
    void onFinished(QNetworkReply *reply, quint64 round, int index);
    void abortOthers(quint64 round);
    QString describeFailure(QNetworkReply *reply, int status, const QByteArray &body) const;
    QUrl queryUrl(const QString &query) const;

    QUrl m_url;
    QByteArray m_token;
    QString m_tokenOrigin;
    QNetworkAccessManager *m_ownManager = nullptr;
    QPointer<QNetworkAccessManager> m_manager;
    QTimer m_timer;
    std::chrono::milliseconds m_interval{10000};
    std::chrono::milliseconds m_deadline{30000};
    int m_windowSeconds = 600;
    quint64 m_round = 0;
    int m_rounds = 0;
    int m_pending = 0;
    qint64 m_roundBytes = 0; // body bytes this round has read, all queries together
    QList<Capture::PrometheusAnswer> m_inFlight;
    QString m_roundError;
    QList<QPointer<QNetworkReply>> m_replies;
    QList<Capture::PrometheusAnswer> m_answers; // the newest complete round
    QString m_error;                            // why the newest round failed, or empty
};

} // namespace slicescope
