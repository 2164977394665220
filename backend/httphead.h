// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The relay's bounded HTTP/1.1 request-head parser and WebSocket frame reader (RFC 9112, RFC 6455):
// pure functions over bytes, no sockets, so the relay's front (relayhttp.cpp) and its WebSocket
// (relaywebsocket.cpp) share them with the fuzz target (tests/fuzz/fuzz_httphead.cpp). Every bound is
// here and in docs/bounds.md: nothing a peer sends may cost more than these before it is refused.

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QPair>

namespace slicescope::http {

// Request line + header lines + the empty line, at most (answered 431 past it).
inline constexpr qsizetype kMaxHeadBytes = 64 * 1024;
// Header lines, at most (431 past it).
inline constexpr int kMaxHeaderLines = 100;
// No route of the relay takes a body; one announced over this is refused (413) before a byte of it is read.
inline constexpr qint64 kMaxBodyBytes = qint64(1) << 20;
// A connection that has not sent a whole request head this long after it opened (or after its last
// answer was written) is closed: an idle or trickling peer holds no slot for long.
inline constexpr int kHeadTimeoutMs = 10'000;
// A connection whose peer takes none of an answer's bytes for this long is closed.
inline constexpr int kStallTimeoutMs = 30'000;
// Open HTTP connections (WebSockets not counted: the relay caps its clients apart). When all are
// taken, a new one closes the oldest that never sent the access token rather than being refused.
inline constexpr int kMaxConnections = 256;
// Back-pressure: nothing more is read from a peer, and no more of a file is queued for it, while more
// than this waits to be written to it.
inline constexpr qint64 kWriteHighWaterBytes = qint64(1) << 20;
// A static file is sent in pieces of this size, never read whole.
inline constexpr qint64 kFileChunkBytes = qint64(256) << 10;
// A closed WebSocket or answered-and-closing connection whose peer never finishes the close is
// dropped after this long.
inline constexpr int kCloseGraceMs = 5'000;
// After an answer that closes the connection, what the peer still sends (a refused body) is read and
// dropped for at most this long and this many bytes, so it reads the answer before the connection ends.
inline constexpr int kLingerMs = 2'000;
inline constexpr qint64 kLingerBytes = qint64(8) << 20;

struct RequestHead {
    QByteArray method;   // "GET"
    QByteArray target;   // "/relay?token=..." as sent
    QByteArray version;  // "HTTP/1.1"
    QList<QPair<QByteArray, QByteArray>> headers; // names in lower case, values trimmed
    qint64 contentLength = 0; // -1: a body of unknown length (Transfer-Encoding)
    qsizetype length = 0;     // bytes of the head, empty line included

    // The first value of a header, by its lower-case name; empty when absent.
    QByteArray value(QByteArrayView lowerName) const;
    // Whether a comma-separated header (Connection, Upgrade) lists `token`, case-insensitively.
    bool lists(QByteArrayView lowerName, QByteArrayView token) const;
    bool hasBody() const { return contentLength != 0; }
    // Whether the connection stays open after the answer (HTTP/1.1 without "Connection: close").
    bool keepAlive() const;
};

enum class HeadStatus
{
    Incomplete,     // no empty line yet, and within the bounds: read more
    Complete,       // `head` is filled; its bytes are head.length
    Malformed,      // 400
    TooLarge,       // 431: more than kMaxHeadBytes without the empty line
    TooManyHeaders, // 431: more than kMaxHeaderLines
};

struct HeadResult {
    HeadStatus status = HeadStatus::Incomplete;
    QByteArray why; // for Malformed and the 431s: one short sentence for the log and the answer
};

// Parses the request head at the start of `data`. Looks at no more than kMaxHeadBytes of it, so a
// peer that never ends a header is refused as soon as that much arrived.
HeadResult parseRequestHead(QByteArrayView data, RequestHead &head);

// "HTTP/1.1 431 Request Header Fields Too Large", for an answer's status line.
QByteArray reasonPhrase(int status);

} // namespace slicescope::http

namespace slicescope::ws {

// The value of Sec-WebSocket-Accept for a client's Sec-WebSocket-Key (RFC 6455 4.2.2).
QByteArray acceptKey(const QByteArray &clientKey);
// Whether a Sec-WebSocket-Key is what RFC 6455 4.1 says: base64 of 16 bytes.
bool validClientKey(const QByteArray &clientKey);

enum Opcode : quint8
{
    Continuation = 0x0,
    Text = 0x1,
    Binary = 0x2,
    Close = 0x8,
    Ping = 0x9,
    Pong = 0xA,
};

// Close codes the relay sends (RFC 6455 7.4.1; the policy code, 1008, is relay::kClosePolicy).
inline constexpr int kCloseNormal = 1000;
inline constexpr int kCloseGoingAway = 1001;
inline constexpr int kCloseProtocolError = 1002;
inline constexpr int kCloseInvalidPayload = 1007;
inline constexpr int kCloseTooBig = 1009;

// One thing a client's byte stream said: a whole message, a control frame, or why it must be closed.
struct Event {
    enum Kind
    {
        None,     // more bytes are needed
        Message,  // a whole text or binary message (opcode says which)
        Ping,
        Pong,
        Close,    // the client's close frame: code (1005 when it gave none) and reason
        Error,    // a protocol violation: close with `code`, `why` saying what
    };
    Kind kind = None;
    quint8 opcode = 0;
    QByteArray payload; // the message, or a ping's data
    int code = 0;
    QByteArray why;
};

// Reads frames from a client (every frame masked, RFC 6455 5.1), joining fragments. A message over
// maxMessageBytes is refused (1009) at the frame header that announces it, before its payload arrives.
class FrameReader
{
public:
    explicit FrameReader(qint64 maxMessageBytes)
        : m_maxMessage(maxMessageBytes)
    { }
    // Takes one event from the front of `input` (consuming its bytes), or None when `input` holds
    // no whole frame. After an Error the reader stays failed.
    Event next(QByteArray &input);
    bool failed() const { return m_failed; }

private:
    Event nextFrame(QByteArray &input);
    Event fail(int code, QByteArray why);
    bool m_fragmentTaken = false;
    qint64 m_maxMessage;
    QByteArray m_message;   // fragments so far
    int m_messageOpcode = -1;
    bool m_failed = false;
};

// A server frame (never masked): FIN set, one opcode, the payload as it is.
QByteArray frame(quint8 opcode, QByteArrayView payload);
// A close frame with `code` and `reason` (cut to the 123 bytes a control frame leaves for it).
QByteArray closeFrame(int code, const QByteArray &reason);

} // namespace slicescope::ws
