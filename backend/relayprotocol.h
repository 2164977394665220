// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The relay protocol (docs/relay-protocol.md): JSON text messages over one WebSocket at /relay,
// shared by the relay server (native), RelaySource/RelayClusterActions (native and browser).
// Only value encoding lives here: no sockets, so the browser build compiles it too.

#include "capture.h"
#include "clusteractions.h"

#include <QJsonObject>
#include <QLatin1StringView>
#include <QString>

namespace slicescope::relay {

inline constexpr QLatin1StringView kProtocol{"slicescope-relay/1"};
inline constexpr QLatin1StringView kPath{"/relay"};
inline constexpr QLatin1StringView kTokenQuery{"token"};
inline constexpr QLatin1StringView kTokenCookie{"slicescope_token"};
// Client messages are small (an action); anything larger is refused.
inline constexpr qint64 kMaxClientMessageBytes = 64 * 1024;
// WebSocket close codes the relay uses (RFC 6455): 1008 policy violation (token, Host, Origin,
// peer, path), 1001 going away (the relay stops).
inline constexpr int kClosePolicy = 1008;

// Message types (the "type" member).
namespace type {
inline constexpr QLatin1StringView Hello{"hello"};
inline constexpr QLatin1StringView Capture{"capture"};
inline constexpr QLatin1StringView Actions{"actions"};
inline constexpr QLatin1StringView SourceFailed{"sourceFailed"};
inline constexpr QLatin1StringView Progress{"progress"};
inline constexpr QLatin1StringView JobSubmitted{"jobSubmitted"};
inline constexpr QLatin1StringView Finished{"finished"};
inline constexpr QLatin1StringView Conflict{"conflict"};
inline constexpr QLatin1StringView Error{"error"};
inline constexpr QLatin1StringView Submit{"submit"};
inline constexpr QLatin1StringView Release{"release"};
inline constexpr QLatin1StringView Scale{"scale"};
} // namespace type

// {"type":"capture","seq":N,"capture":<the capture object, as a capture file holds it>}. Built
// by text so the bodies stay verbatim (no reformatting of numbers or strings).
QByteArray captureMessage(qint64 seq, const Capture &capture);

// One message as received: its type, and either the capture (type "capture", parsed with the
// capture file's own parser) or the whole object (other types, which are small).
struct Message {
    QString type;
    qint64 seq = 0;
    Capture capture;
    QJsonObject object;
    QString error; // not a relay message: what is wrong with it
};
Message parseMessage(const QByteArray &bytes);

QJsonObject toJson(const SlicePlacementRequest &request);
// Returns an error sentence or empty.
[[nodiscard]] QString fromJson(const QJsonObject &object, SlicePlacementRequest &request);

} // namespace slicescope::relay
