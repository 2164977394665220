// SPDX-License-Identifier: GPL-3.0-or-later
#include "logtail.h"

#include "logging.h"

#include "kubenames.h" // pathSegment()

#include "rayclient.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QUrl>
#include <QWebSocket>

#include <algorithm>

namespace slicescope {

namespace {

constexpr std::chrono::milliseconds kMaxReconnectDelay{10000};
// Ray sends chunks of at most 20000 characters (logtail.h): a frame or message far past that is
// not a log chunk, and is refused at its header instead of being read (Qt's default is 2 GiB).
constexpr quint64 kMaxChunkBytes = quint64(4) << 20;

bool isTerminal(const QString &status)
{
    return status == QLatin1String("SUCCEEDED") || status == QLatin1String("FAILED") || status == QLatin1String("STOPPED");
}

QString jobPath(const QString &submissionId, const char *suffix)
{
    return QStringLiteral("api/jobs/") + pathSegment(submissionId) + QLatin1String(suffix);
}

} // namespace

JobLogTail::JobLogTail(RayClient *client, QObject *parent)
    : JobLogSource(parent)
    , m_client(client)
{
    m_reconnectTimer.setSingleShot(true);
    m_handshakeTimer.setSingleShot(true);
    connect(&m_reconnectTimer, &QTimer::timeout, this, [this] { checkJobThen(true); });
    connect(&m_handshakeTimer, &QTimer::timeout, this, [this] {
        resetSocket();
        scheduleReconnect(tr("the WebSocket handshake took longer than %1 s").arg(double(m_handshakeTimeout.count()) / 1000.0));
    });
}

JobLogTail::~JobLogTail()
{
    stop();
}

void JobLogTail::setReconnectPolicy(std::chrono::milliseconds first, int maxAttempts)
{
    m_firstReconnectDelay = first;
    m_maxAttempts = std::max(1, maxAttempts);
}

void JobLogTail::start(const QString &submissionId)
{
    stop();
    m_submissionId = submissionId;
    m_running = true;
    m_wasConnected = false;
    m_needsFill = false;
    m_partialLine.clear();
    m_pausedLines.clear();
    m_droppedWhilePaused = 0;
    m_delivered = 0;
    m_attempt = 0;
    m_reconnects = 0;
    checkJobThen(false);
}

void JobLogTail::stop()
{
    ++m_generation;
    m_running = false;
    m_reconnectTimer.stop();
    m_handshakeTimer.stop();
    resetSocket();
}

void JobLogTail::resetSocket()
{
    m_handshakeTimer.stop();
    if (!m_socket)
        return;
    QWebSocket *socket = m_socket;
    m_socket = nullptr;
    socket->disconnect(this);
    socket->abort();
    socket->deleteLater();
}

// Reads the job first: a token problem or an unknown job gets RayClient's clear message, and
// after a drop it tells a finished job (nothing more will come) from a running one.
void JobLogTail::checkJobThen(bool afterDrop)
{
    if (!m_client) {
        giveUp(tr("job %1: the Ray connection is gone").arg(m_submissionId));
        return;
    }
    const quint64 generation = m_generation;
    QPointer<JobLogTail> self(this);
    m_client->request(QByteArrayLiteral("GET"), jobPath(m_submissionId, ""), QByteArray(),
                      [self, generation, afterDrop](const QString &error, int status, const QByteArray &body) {
                          if (!self || self->m_generation != generation || !self->m_running)
                              return;
                          if (!error.isEmpty()) {
                              // A refused token or an unknown job will not get better by retrying.
                              if (!afterDrop || status == 401 || status == 403 || status == 404)
                                  self->giveUp(error);
                              else
                                  self->scheduleReconnect(error);
                              return;
                          }
                          const QString jobStatus = QJsonDocument::fromJson(body).object().value(QLatin1String("status")).toString();
                          if (afterDrop && isTerminal(jobStatus)) {
                              // It ended while we were away: the full log has the rest.
                              self->fillFromFullLog(true);
                              return;
                          }
                          self->openSocket();
                      });
}

void JobLogTail::openSocket()
{
    resetSocket();
    m_socket = new QWebSocket(QString(), QWebSocketProtocol::VersionLatest, this);
    m_socket->setMaxAllowedIncomingFrameSize(kMaxChunkBytes);
    m_socket->setMaxAllowedIncomingMessageSize(kMaxChunkBytes);
    m_streamPos = 0;
    connect(m_socket, &QWebSocket::connected, this, [this] {
        m_handshakeTimer.stop();
        m_wasConnected = true;
        // The attempts count on until log arrives (onText): a tail that opens and is dropped at
        // once, or sends what is refused, must not reconnect at the first delay forever.
        Q_EMIT connectedChanged(true);
        if (m_needsFill) {
            m_needsFill = false;
            fillFromFullLog(false);
        }
    });
    connect(m_socket, &QWebSocket::textMessageReceived, this, &JobLogTail::onText);
    // closeCode() says CloseCodeNormal also when the connection was cut without a close frame
    // (Qt 6.4's initial value), so a drop would pass for Ray's normal close. aboutToClose() comes
    // only with a closing handshake: the server's close frame (or our own close(), never used).
    m_closeFrameReceived = false;
    connect(m_socket, &QWebSocket::aboutToClose, this, [this] { m_closeFrameReceived = true; });
    connect(m_socket, &QWebSocket::disconnected, this, &JobLogTail::onDisconnected);
    // Qt 6.4 names the signal error() (an overload of the getter); errorOccurred() came in 6.5.
    connect(m_socket, qOverload<QAbstractSocket::SocketError>(&QWebSocket::error), this, [this](QAbstractSocket::SocketError) {
        if (m_socket)
            m_lastError = m_socket->errorString();
    });
    m_lastError.clear();
    m_handshakeTimer.start(m_handshakeTimeout);
    m_socket->open(m_client->webSocketRequest(jobPath(m_submissionId, "/logs/tail")));
}

void JobLogTail::onText(const QString &text)
{
    // Each connection replays the log from its start: skip what was delivered already.
    m_attempt = 0; // log flows: the connection works
    const qint64 start = m_streamPos;
    m_streamPos += text.size();
    if (m_streamPos <= m_delivered)
        return;
    accept(start >= m_delivered ? text : text.mid(qsizetype(m_delivered - start)));
}

void JobLogTail::onDisconnected()
{
    if (!m_socket || !m_running)
        return;
    const bool normal = m_closeFrameReceived && m_socket->closeCode() == QWebSocketProtocol::CloseCodeNormal;
    const bool handshakeDone = !m_handshakeTimer.isActive();
    const QString why = m_lastError.isEmpty() ? m_socket->closeReason() : m_lastError;
    resetSocket();
    if (handshakeDone && m_wasConnected && normal) {
        // Ray closes normally when the job has finished; make sure, since a proxy may close too.
        const quint64 generation = m_generation;
        QPointer<JobLogTail> self(this);
        m_client->request(QByteArrayLiteral("GET"), jobPath(m_submissionId, ""), QByteArray(),
                          [self, generation](const QString &error, int, const QByteArray &body) {
                              if (!self || self->m_generation != generation || !self->m_running)
                                  return;
                              const QString status = QJsonDocument::fromJson(body).object().value(QLatin1String("status")).toString();
                              if (error.isEmpty() && isTerminal(status))
                                  self->finishUp();
                              else
                                  self->scheduleReconnect(error.isEmpty() ? tr("the server closed the tail while the job is %1").arg(status) : error);
                          });
        return;
    }
    Q_EMIT connectedChanged(false);
    scheduleReconnect(why.isEmpty() ? tr("the connection dropped") : why);
}

void JobLogTail::scheduleReconnect(const QString &why)
{
    if (!m_running)
        return;
    m_needsFill = true;
    m_lastError = why;
    if (++m_attempt > m_maxAttempts) {
        qCDebug(lcRay).noquote() << QStringLiteral("job %1: the log tail dropped (%2) and %3 reconnects failed; giving up").arg(m_submissionId, why).arg(m_maxAttempts);
        giveUp(tr("job %1: the log tail dropped and %2 reconnects failed; last: %3").arg(m_submissionId).arg(m_maxAttempts).arg(why));
        return;
    }
    ++m_reconnects;
    const auto delay = std::min(kMaxReconnectDelay, m_firstReconnectDelay * (1 << std::min(m_attempt - 1, 5)));
    qCDebug(lcRay).noquote() << QStringLiteral("job %1: the log tail dropped (%2); reconnect %3 of %4 in %5 ms").arg(m_submissionId, why).arg(m_attempt).arg(m_maxAttempts).arg(delay.count());
    m_reconnectTimer.start(delay);
}

void JobLogTail::fillFromFullLog(bool thenFinish)
{
    const quint64 generation = m_generation;
    QPointer<JobLogTail> self(this);
    m_client->getJobLogs(m_submissionId, [self, generation, thenFinish](const QString &error, int, const QByteArray &body) {
        if (!self || self->m_generation != generation || !self->m_running)
            return;
        if (!error.isEmpty()) {
            if (thenFinish)
                self->giveUp(error);
            else
                self->m_needsFill = true; // the replay fills it, or the next reconnect does
            return;
        }
        const QString log = QJsonDocument::fromJson(body).object().value(QLatin1String("logs")).toString();
        if (log.size() > self->m_delivered)
            self->accept(log.mid(qsizetype(self->m_delivered)));
        if (thenFinish)
            self->finishUp();
    });
}

void JobLogTail::accept(const QString &text)
{
    m_delivered += text.size();
    m_partialLine += text;
    const qsizetype lastNewline = m_partialLine.lastIndexOf(u'\n');
    if (lastNewline < 0)
        return;
    const QString complete = m_partialLine.left(lastNewline);
    m_partialLine.remove(0, lastNewline + 1);
    deliver(complete);
}

void JobLogTail::deliver(const QString &lines)
{
    if (!m_paused) {
        Q_EMIT linesReceived(lines);
        return;
    }
    m_pausedLines += lines.split(u'\n');
    const qsizetype excess = m_pausedLines.size() - m_maxBufferedLines;
    if (excess > 0) {
        m_pausedLines.remove(0, excess);
        m_droppedWhilePaused += int(excess);
    }
}

void JobLogTail::setPaused(bool paused)
{
    if (paused == m_paused)
        return;
    m_paused = paused;
    if (paused)
        return;
    if (m_droppedWhilePaused > 0) {
        Q_EMIT linesDropped(m_droppedWhilePaused);
        m_droppedWhilePaused = 0;
    }
    if (!m_pausedLines.isEmpty()) {
        const QString lines = m_pausedLines.join(u'\n');
        m_pausedLines.clear();
        Q_EMIT linesReceived(lines);
    }
}

void JobLogTail::finishUp()
{
    if (!m_partialLine.isEmpty()) {
        const QString last = m_partialLine;
        m_partialLine.clear();
        deliver(last);
    }
    stop();
    Q_EMIT finished();
}

void JobLogTail::giveUp(const QString &message)
{
    stop();
    Q_EMIT failed(message);
}

void JobLogTail::fetchFullLog()
{
    if (!m_client || m_submissionId.isEmpty()) {
        Q_EMIT fullLogFailed(tr("no job to read the log of"));
        return;
    }
    QPointer<JobLogTail> self(this);
    m_client->getJobLogs(m_submissionId, [self](const QString &error, int, const QByteArray &body) {
        if (!self)
            return;
        if (!error.isEmpty())
            Q_EMIT self->fullLogFailed(error);
        else
            Q_EMIT self->fullLogReceived(QJsonDocument::fromJson(body).object().value(QLatin1String("logs")).toString());
    });
}

} // namespace slicescope
