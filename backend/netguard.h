// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Every HTTP request SliceScope sends is bounded three ways (the bounds in one place):
//  - connect: from a socket starting to connect to the request being on the wire (TCP and TLS
//    done);
//  - idle: no byte received for this long (Qt's transfer timeout);
//  - overall: start to last byte, however the server dribbles its answer.
// A request that passes a bound is aborted with a reason that says which one, for the message.
// Long-lived streams (watches, WebSockets) take the connect bound only; their silence is
// watched by their own idle limits.
//
// Also the messages Qt does not word right: a 3xx is refused (a redirect could carry a
// credential elsewhere, and a recorded capture must say where it came from), and a 2xx whose
// body stopped short says so instead of "HTTP 200 OK".

#include <QByteArray>
#include <QString>

#include <chrono>

class QNetworkReply;
class QUrl;

namespace slicescope {

namespace netlimits {
inline constexpr std::chrono::milliseconds kConnectTimeout{10000};
inline constexpr std::chrono::milliseconds kIdleTimeout{30000};
// A 10k-node cluster's node list is ~20 MB: two minutes is generous on any link that works.
inline constexpr std::chrono::milliseconds kRequestDeadline{120000};
// How long a headless verb waits for its whole answer from a live source (--timeout changes it).
inline constexpr std::chrono::milliseconds kHeadlessDeadline{120000};
} // namespace netlimits

struct RequestBounds {
    std::chrono::milliseconds connect = netlimits::kConnectTimeout;
    std::chrono::milliseconds idle = netlimits::kIdleTimeout;
    std::chrono::milliseconds overall = netlimits::kRequestDeadline; // 0: none (a stream)
    qint64 maxBody = 0; // > 0: a body past this is refused, at its Content-Length when it has one
};

// The bounds requests get when their client sets none: the named constants, with the overall
// deadline lowered by a headless verb's --timeout (never raised past what the caller asked).
RequestBounds defaultRequestBounds();
void setRequestDeadlineCap(std::chrono::milliseconds cap);
// The defaults with a client's own settings: `idle` always, `connect` and `overall` when > 0.
RequestBounds requestBounds(std::chrono::milliseconds idle, std::chrono::milliseconds connect, std::chrono::milliseconds overall);

// Arms the connect and overall timers and the body bound on `reply` (the idle bound is the
// request's transfer timeout, set by the caller with QNetworkRequest::setTransferTimeout). On
// expiry, or past the bound, the reply is aborted and abortReason() tells why.
void guardReply(QNetworkReply *reply, const RequestBounds &bounds);
// Marks `reply` with why it is being aborted, then aborts it.
void abortReply(QNetworkReply *reply, const QString &reason);
// Why we aborted `reply` ("no connection within 10 s"), or empty when we did not.
QString abortReason(const QNetworkReply *reply);

// The last guard before a request leaves: a path with a "." or ".." segment (QUrl decodes %2E,
// so escaping cannot hide one) or an empty one inside it ("namespaces//pods") would reach
// another resource than the one named. Returns why, or empty.
QString pathSegmentProblem(const QUrl &url);

// Body bytes received so far, as downloadProgress last said (guardReply() counts them).
qint64 bytesReceived(const QNetworkReply *reply);

// For a finished reply that is not a plain success, the part of the message Qt gets wrong, or
// empty: "HTTP 302 Found: redirects are refused (to https://elsewhere/x)", or "HTTP 200 OK, but
// the body was cut short after 12 of 4096 bytes".
// `idle` is the request's idle bound, for a body that stopped arriving.
QString describeRefusedOrCut(QNetworkReply *reply, int status, qint64 bytesReceived, std::chrono::milliseconds idle);

} // namespace slicescope
