// SPDX-License-Identifier: GPL-3.0-or-later
#include "netguard.h"

#include "boundedfile.h"

#include <QNetworkReply>
#include <QNetworkRequest>
#include <QStringList>
#include <QTimer>
#include <QUrl>

#include <algorithm>
#include <atomic>

namespace slicescope {

namespace {

constexpr char kReasonProperty[] = "slicescopeAbortReason";
constexpr char kReceivedProperty[] = "slicescopeBytesReceived";
std::atomic<qint64> g_deadlineCapMs{0};

QString seconds(std::chrono::milliseconds ms)
{
    return QString::number(double(ms.count()) / 1000.0);
}

} // namespace

RequestBounds defaultRequestBounds()
{
    RequestBounds bounds;
    const qint64 cap = g_deadlineCapMs.load();
    if (cap > 0)
        bounds.overall = std::min(bounds.overall, std::chrono::milliseconds(cap));
    return bounds;
}

RequestBounds requestBounds(std::chrono::milliseconds idle, std::chrono::milliseconds connect, std::chrono::milliseconds overall)
{
    RequestBounds bounds = defaultRequestBounds();
    bounds.idle = idle;
    if (connect.count() > 0)
        bounds.connect = connect;
    if (overall.count() > 0)
        bounds.overall = overall;
    return bounds;
}

void setRequestDeadlineCap(std::chrono::milliseconds cap)
{
    g_deadlineCapMs.store(cap.count());
}

void abortReply(QNetworkReply *reply, const QString &reason)
{
    if (reply->property(kReasonProperty).toString().isEmpty())
        reply->setProperty(kReasonProperty, reason);
    reply->abort();
}

QString pathSegmentProblem(const QUrl &url)
{
    const QStringList segments = url.path(QUrl::FullyDecoded).split(u'/');
    for (qsizetype i = 0; i < segments.size(); ++i) {
        const QString &s = segments[i];
        if (s == QLatin1String(".") || s == QLatin1String(".."))
            return QStringLiteral("the path %1 holds a \"%2\" segment, which would name another resource; not sent")
                .arg(sanitizeForMessage(url.path(), 160), s);
        if (s.isEmpty() && i > 0 && i + 1 < segments.size())
            return QStringLiteral("the path %1 holds an empty segment (a name is missing); not sent").arg(sanitizeForMessage(url.path(), 160));
    }
    return {};
}

qint64 bytesReceived(const QNetworkReply *reply)
{
    return reply->property(kReceivedProperty).toLongLong();
}

QString abortReason(const QNetworkReply *reply)
{
    return reply->property(kReasonProperty).toString();
}

void guardReply(QNetworkReply *reply, const RequestBounds &bounds)
{
    QObject::connect(reply, &QNetworkReply::downloadProgress, reply,
                     [reply](qint64 received, qint64) { reply->setProperty(kReceivedProperty, received); });
    if (bounds.maxBody > 0) {
        // Stop reading a body past the bound instead of buffering it (a reply keeps everything
        // until finished): Content-Length tells early, the running count catches the rest.
        auto checkSize = [reply, limit = bounds.maxBody](qint64 received, qint64 total) {
            if (received > limit || total > limit)
                abortReply(reply, QStringLiteral("the answer is larger than %1; not read").arg(describeByteCount(limit)));
        };
        QObject::connect(reply, &QNetworkReply::metaDataChanged, reply,
                         [reply, checkSize] { checkSize(0, reply->header(QNetworkRequest::ContentLengthHeader).toLongLong()); });
        QObject::connect(reply, &QNetworkReply::downloadProgress, reply, checkSize);
        // The count is seen on this thread, while the network thread reads on: on a busy machine it
        // read 100 MB past an 8 MiB bound before the abort came. A read buffer makes it stop. Qt
        // stops somewhat before the buffer is full (under ASan, at 98 % of it), and the count must
        // pass the bound first, so that the abort says "larger than" and a body within the bound is
        // never stalled: twice the bound and a mebibyte.
        reply->setReadBufferSize(2 * bounds.maxBody + (qint64(1) << 20));
    }
    if (bounds.connect.count() > 0) {
        // Parented to the reply: it goes with it, and fires only while the reply lives.
        auto *connectTimer = new QTimer(reply);
        connectTimer->setSingleShot(true);
        QObject::connect(connectTimer, &QTimer::timeout, reply, [reply, limit = bounds.connect] {
            abortReply(reply, QStringLiteral("no connection within %1 s (connect timeout)").arg(seconds(limit)));
        });
        // From the moment a socket starts connecting (a request waiting for a free connection
        // to its host, or sent on a kept-alive one, is not connecting) until the request is on
        // the wire, which means connected and TLS done; any answer byte means the same.
        QObject::connect(reply, &QNetworkReply::socketStartedConnecting, connectTimer,
                         [connectTimer, limit = bounds.connect] { connectTimer->start(limit); });
        QObject::connect(reply, &QNetworkReply::requestSent, connectTimer, &QTimer::stop);
        QObject::connect(reply, &QNetworkReply::metaDataChanged, connectTimer, &QTimer::stop);
        QObject::connect(reply, &QNetworkReply::finished, connectTimer, &QTimer::stop);
    }
    if (bounds.overall.count() > 0) {
        auto *deadline = new QTimer(reply);
        deadline->setSingleShot(true);
        QObject::connect(deadline, &QTimer::timeout, reply, [reply, limit = bounds.overall] {
            abortReply(reply, QStringLiteral("the answer did not complete within %1 s (overall deadline; %2 bytes had arrived)")
                                  .arg(seconds(limit))
                                  .arg(bytesReceived(reply)));
        });
        QObject::connect(reply, &QNetworkReply::finished, deadline, &QTimer::stop);
        deadline->start(bounds.overall);
    }
}

QString describeRefusedOrCut(QNetworkReply *reply, int status, qint64 bytesReceived, std::chrono::milliseconds idle)
{
    const QString reason = reply->attribute(QNetworkRequest::HttpReasonPhraseAttribute).toString();
    const QString statusText = QStringLiteral("HTTP %1%2").arg(status).arg(reason.isEmpty() ? QString() : u' ' + sanitizeForMessage(reason, 40));
    if (status >= 300 && status <= 399) {
        QUrl target = reply->attribute(QNetworkRequest::RedirectionTargetAttribute).toUrl();
        if (target.isEmpty())
            target = QUrl(QString::fromUtf8(reply->rawHeader("Location")));
        if (target.isRelative())
            target = reply->url().resolved(target);
        const QString to = target.isEmpty() ? QString()
                                            : QStringLiteral(" (to %1)").arg(sanitizeForMessage(target.toDisplayString(QUrl::RemoveUserInfo), 160));
        return QStringLiteral("%1: redirects are refused%2").arg(statusText, to);
    }
    if (status >= 200 && status <= 299 && reply->error() != QNetworkReply::NoError && abortReason(reply).isEmpty()) {
        if (reply->error() == QNetworkReply::OperationCanceledError || reply->error() == QNetworkReply::TimeoutError)
            return QStringLiteral("%1, but the body stopped after %2 bytes: nothing more for %3 s (idle timeout)")
                .arg(statusText)
                .arg(bytesReceived)
                .arg(seconds(idle));
        bool known = false;
        const qint64 length = reply->header(QNetworkRequest::ContentLengthHeader).toLongLong(&known);
        if (known && length > bytesReceived)
            return QStringLiteral("%1, but the body was cut short after %2 of %3 bytes (the connection ended early)")
                .arg(statusText)
                .arg(bytesReceived)
                .arg(length);
        return QStringLiteral("%1, but the body was cut short after %2 bytes (%3)")
            .arg(statusText)
            .arg(bytesReceived)
            .arg(sanitizeForMessage(reply->errorString(), 120));
    }
    return {};
}

} // namespace slicescope
