// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A Ray job's driver log, live, through the dashboard's GET /api/jobs/{id}/logs/tail WebSocket
// (docs/facts.md 1.3): each TEXT frame is a chunk of log lines, and the server closes the socket once
// the job has finished.
//
// What Ray 2.60 does that shapes this class (ray/dashboard/modules/job/job_manager.py and
// utils.py, file_tail_iterator): every new tail connection replays the log from its first byte,
// in chunks of up to 10 lines or 20000 characters (so a chunk may end inside a line), polling the
// file once a second. So the tail counts the characters it has delivered, and after a reconnect
// skips what the replay repeats; the gap a drop left is filled at once from GET
// /api/jobs/{id}/logs rather than waiting for the replay to get there.
//
// Before opening the socket the job is read once through RayClient, so a missing or refused token
// and an unknown job fail with RayClient's clear one-line messages (Qt 6.4's QWebSocket only says
// "unhandled status code"). The upgrade request carries RayClient's User-Agent and token.
// Everything runs on the event loop: no nested loops, no waiting. It is the window's JobLogSource
// (model/joblogsource.h) for a live Ray; its signals are that interface's.

#include "joblogsource.h"

#include <QPointer>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <chrono>

class QWebSocket;

namespace slicescope {

class RayClient;

class JobLogTail : public JobLogSource
{
    Q_OBJECT
public:
    // `client` gives the dashboard's address, the token and the HTTP reads; it must outlive the tail.
    explicit JobLogTail(RayClient *client, QObject *parent = nullptr);
    ~JobLogTail() override;

    // Starts following job `submissionId` (a submission id or job id). A running tail is stopped first.
    void start(const QString &submissionId) override;
    // Closes the socket; no further signals.
    void stop();
    QString submissionId() const override { return m_submissionId; }
    bool isRunning() const override { return m_running; }

    // While paused, lines are kept (the newest maxBufferedLines(), the older ones counted as
    // dropped) instead of emitted; resuming emits them as one chunk.
    void setPaused(bool paused) override;
    bool isPaused() const { return m_paused; }
    void setMaxBufferedLines(int lines) { m_maxBufferedLines = qMax(1, lines); }
    int maxBufferedLines() const { return m_maxBufferedLines; }

    // Reads the whole log so far (GET /api/jobs/{id}/logs); ends in fullLogReceived or fullLogFailed.
    void fetchFullLog() override;

    // Reconnects after an unexpected drop wait `first`, doubling up to 10 s; after `maxAttempts`
    // failed ones in a row the tail gives up with failed() (defaults: 500 ms, 8).
    void setReconnectPolicy(std::chrono::milliseconds first, int maxAttempts);
    // How long the WebSocket handshake may take before it counts as a drop (default 15 s).
    void setHandshakeTimeout(std::chrono::milliseconds timeout) { m_handshakeTimeout = timeout; }
    int reconnects() const { return m_reconnects; }
    // Characters of log delivered so far (lines emitted, buffered while paused, or held as the
    // unfinished last line).
    qint64 deliveredChars() const { return m_delivered; }

private:
    friend struct JobLogTailFuzzAccess; // tests/fuzz/fuzz_logtail.cpp feeds onText() chunks
    void checkJobThen(bool afterDrop);
    void openSocket();
    void onText(const QString &text);
    void onDisconnected();
    void scheduleReconnect(const QString &why);
    void fillFromFullLog(bool thenFinish);
    void accept(const QString &text);
    void deliver(const QString &lines);
    void finishUp();
    void giveUp(const QString &message);
    void resetSocket();

    QPointer<RayClient> m_client;
    QWebSocket *m_socket = nullptr;
    QTimer m_reconnectTimer;
    QTimer m_handshakeTimer;
    QString m_submissionId;
    quint64 m_generation = 0;       // bumps on start/stop: late replies of an older run are dropped
    bool m_running = false;
    bool m_paused = false;
    bool m_wasConnected = false;
    bool m_needsFill = false;       // a drop happened: fill the gap from the full log on reconnect
    bool m_closeFrameReceived = false; // the current socket got a close frame, not just a cut
    int m_maxBufferedLines = 10000;
    QStringList m_pausedLines;
    int m_droppedWhilePaused = 0;
    QString m_partialLine;          // the last line, until its newline arrives
    qint64 m_delivered = 0;         // characters of the log accepted so far
    qint64 m_streamPos = 0;         // characters the current connection has sent
    std::chrono::milliseconds m_firstReconnectDelay{500};
    std::chrono::milliseconds m_handshakeTimeout{15000};
    int m_maxAttempts = 8;
    int m_attempt = 0;
    int m_reconnects = 0;
    QString m_lastError;
};

} // namespace slicescope
