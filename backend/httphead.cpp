// SPDX-License-Identifier: GPL-3.0-or-later
#include "httphead.h"

#include <QCryptographicHash>

#include <limits>

namespace slicescope::http {

namespace {

// RFC 9110 5.6.2: the characters of a token (method, header name).
bool isTokenChar(char c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return true;
    switch (c) {
    case '!':
    case '#':
    case '$':
    case '%':
    case '&':
    case '\'':
    case '*':
    case '+':
    case '-':
    case '.':
    case '^':
    case '_':
    case '`':
    case '|':
    case '~':
        return true;
    default:
        return false;
    }
}

bool isToken(QByteArrayView s)
{
    if (s.isEmpty())
        return false;
    for (char c : s)
        if (!isTokenChar(c))
            return false;
    return true;
}

QByteArrayView trimmed(QByteArrayView s)
{
    while (!s.isEmpty() && (s.front() == ' ' || s.front() == '\t'))
        s = s.sliced(1);
    while (!s.isEmpty() && (s.back() == ' ' || s.back() == '\t'))
        s.chop(1);
    return s;
}

// One line of the head without its line end (CRLF, or a bare LF as RFC 9112 2.2 lets a server accept).
QByteArrayView lineAt(QByteArrayView head, qsizetype from, qsizetype &next)
{
    const qsizetype lf = head.indexOf('\n', from);
    next = lf + 1;
    qsizetype end = lf;
    if (end > from && head[end - 1] == '\r')
        --end;
    return head.sliced(from, end - from);
}

HeadResult malformed(QByteArray why)
{
    return {HeadStatus::Malformed, std::move(why)};
}

} // namespace

QByteArray RequestHead::value(QByteArrayView lowerName) const
{
    for (const auto &h : headers)
        if (h.first == lowerName)
            return h.second;
    return {};
}

bool RequestHead::lists(QByteArrayView lowerName, QByteArrayView token) const
{
    for (const auto &h : headers) {
        if (h.first != lowerName)
            continue;
        for (const QByteArray &item : h.second.split(','))
            if (item.trimmed().compare(token, Qt::CaseInsensitive) == 0)
                return true;
    }
    return false;
}

bool RequestHead::keepAlive() const
{
    if (lists("connection", "close"))
        return false;
    return version == "HTTP/1.1" || lists("connection", "keep-alive");
}

HeadResult parseRequestHead(QByteArrayView data, RequestHead &head)
{
    const QByteArrayView window = data.first(std::min(data.size(), kMaxHeadBytes));
    // RFC 9112 2.2: empty lines before the request line are ignored.
    qsizetype start = 0;
    while (start < window.size() && (window[start] == '\r' || window[start] == '\n'))
        ++start;
    // The end of the head: the first empty line after the request line. Lines are counted on the way,
    // so a flood of short header lines is refused before 64 KiB of them arrive.
    qsizetype end = -1;
    int lines = 0;
    for (qsizetype at = start; at < window.size();) {
        const qsizetype lf = window.indexOf('\n', at);
        if (lf < 0)
            break;
        const qsizetype length = lf - at - (lf > at && window[lf - 1] == '\r' ? 1 : 0);
        if (length == 0) {
            end = lf + 1;
            break;
        }
        if (++lines > kMaxHeaderLines + 1) // the request line and kMaxHeaderLines headers
            return {HeadStatus::TooManyHeaders, QByteArrayLiteral("more than 100 header lines")};
        at = lf + 1;
    }
    if (end < 0) {
        if (data.size() >= kMaxHeadBytes)
            return {HeadStatus::TooLarge, QByteArrayLiteral("the request head is over 64 KiB")};
        return {};
    }

    head = RequestHead{};
    head.length = end;
    qsizetype next = 0;
    const QByteArrayView requestLine = lineAt(window, start, next);
    const qsizetype sp1 = requestLine.indexOf(' ');
    const qsizetype sp2 = sp1 < 0 ? -1 : requestLine.indexOf(' ', sp1 + 1);
    if (sp1 <= 0 || sp2 < 0 || requestLine.indexOf(' ', sp2 + 1) >= 0)
        return malformed("the request line is not METHOD TARGET VERSION");
    const QByteArrayView method = requestLine.first(sp1);
    const QByteArrayView target = requestLine.sliced(sp1 + 1, sp2 - sp1 - 1);
    const QByteArrayView version = requestLine.sliced(sp2 + 1);
    if (method.size() > 32 || !isToken(method))
        return malformed("the method is not a token");
    if (target.isEmpty())
        return malformed("the request target is empty");
    for (char c : target)
        if (uchar(c) <= 0x20 || uchar(c) >= 0x7f)
            return malformed("the request target holds a control, space or non-ASCII byte");
    if (version != "HTTP/1.1" && version != "HTTP/1.0")
        return malformed("the version is not HTTP/1.1 or HTTP/1.0");
    head.method = method.toByteArray();
    head.target = target.toByteArray();
    head.version = version.toByteArray();

    bool sawLength = false;
    for (qsizetype at = next; at < end;) {
        const QByteArrayView line = lineAt(window, at, next);
        at = next;
        if (line.isEmpty())
            break;
        if (line.front() == ' ' || line.front() == '\t')
            return malformed("a header line is folded (obs-fold)"); // RFC 9112 5.2 lets a server refuse it
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0 || !isToken(line.first(colon)))
            return malformed("a header line has no valid name");
        const QByteArrayView value = trimmed(line.sliced(colon + 1));
        for (char c : value)
            if ((uchar(c) < 0x20 && c != '\t') || c == 0x7f)
                return malformed("a header value holds a control character");
        QByteArray name = line.first(colon).toByteArray().toLower();
        if (name == "content-length") {
            qint64 n = 0;
            if (value.isEmpty())
                return malformed("Content-Length is empty");
            for (char c : value) {
                if (c < '0' || c > '9')
                    return malformed("Content-Length is not a number");
                // Saturate: 100 GiB and 10^30 are both "too large", and neither may overflow.
                n = n > (std::numeric_limits<qint64>::max() - 9) / 10 ? std::numeric_limits<qint64>::max() : n * 10 + (c - '0');
            }
            if (sawLength && n != head.contentLength)
                return malformed("two different Content-Length headers");
            sawLength = true;
            if (head.contentLength >= 0)
                head.contentLength = n;
        } else if (name == "transfer-encoding") {
            head.contentLength = -1; // a body of a length not known up front (RFC 9112 6.3): none is taken
        }
        head.headers.append({std::move(name), value.toByteArray()});
    }
    return {HeadStatus::Complete, {}};
}

QByteArray reasonPhrase(int status)
{
    switch (status) {
    case 101: return "Switching Protocols";
    case 200: return "OK";
    case 304: return "Not Modified";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 413: return "Content Too Large";
    case 426: return "Upgrade Required";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    default: return "Status";
    }
}

} // namespace slicescope::http

namespace slicescope::ws {

namespace {

// RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF (RFC 6455 8.1 closes with 1007).
bool validUtf8(QByteArrayView s)
{
    for (qsizetype i = 0; i < s.size();) {
        const auto c = uchar(s[i]);
        if (c < 0x80) {
            ++i;
            continue;
        }
        int n = 0;
        uint cp = 0;
        uint min = 0;
        if ((c & 0xe0) == 0xc0) {
            n = 1;
            cp = c & 0x1f;
            min = 0x80;
        } else if ((c & 0xf0) == 0xe0) {
            n = 2;
            cp = c & 0x0f;
            min = 0x800;
        } else if ((c & 0xf8) == 0xf0) {
            n = 3;
            cp = c & 0x07;
            min = 0x10000;
        } else return false;
        if (i + n >= s.size()) // cut short
            return false;
        for (int k = 1; k <= n; ++k) {
            const auto b = uchar(s[i + k]);
            if ((b & 0xc0) != 0x80)
                return false;
            cp = (cp << 6) | (b & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return false;
        i += n + 1;
    }
    return true;
}

} // namespace

QByteArray acceptKey(const QByteArray &clientKey)
{
    return QCryptographicHash::hash(clientKey + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11", QCryptographicHash::Sha1).toBase64();
}

bool validClientKey(const QByteArray &clientKey)
{
    if (clientKey.size() != 24 || !clientKey.endsWith("=="))
        return false;
    const auto decoded = QByteArray::fromBase64Encoding(clientKey, QByteArray::AbortOnBase64DecodingErrors);
    return decoded.decodingStatus == QByteArray::Base64DecodingStatus::Ok && decoded.decoded.size() == 16;
}

Event FrameReader::fail(int code, QByteArray why)
{
    m_failed = true;
    m_message.clear();
    Event e;
    e.kind = Event::Error;
    e.code = code;
    e.why = std::move(why);
    return e;
}

Event FrameReader::next(QByteArray &input)
{
    // One frame a turn; a fragment that does not end its message goes round again, so any number of
    // fragments already read costs no stack.
    for (;;) {
        Event e = nextFrame(input);
        if (e.kind != Event::None || m_failed || !m_fragmentTaken)
            return e;
    }
}

Event FrameReader::nextFrame(QByteArray &input)
{
    m_fragmentTaken = false;
    if (m_failed)
        return {};
    if (input.size() < 2)
        return {};
    const auto b0 = uchar(input[0]);
    const auto b1 = uchar(input[1]);
    const bool fin = b0 & 0x80;
    const quint8 opcode = b0 & 0x0f;
    if (b0 & 0x70)
        return fail(kCloseProtocolError, "a frame has reserved bits set (no extension was agreed)");
    const bool control = opcode >= 0x8;
    if (opcode != Continuation && opcode != Text && opcode != Binary && opcode != Close && opcode != Ping && opcode != Pong)
        return fail(kCloseProtocolError, "a frame has an unknown opcode");
    if (!(b1 & 0x80))
        return fail(kCloseProtocolError, "a client frame is not masked (RFC 6455 5.1)");
    quint64 length = b1 & 0x7f;
    qsizetype at = 2;
    if (control && (!fin || length > 125))
        return fail(kCloseProtocolError, "a control frame is fragmented or longer than 125 bytes");
    if (length == 126) {
        if (input.size() < at + 2)
            return {};
        length = (quint64(uchar(input[2])) << 8) | uchar(input[3]);
        at += 2;
    } else if (length == 127) {
        if (input.size() < at + 8)
            return {};
        length = 0;
        for (int i = 0; i < 8; ++i)
            length = (length << 8) | uchar(input[2 + i]);
        at += 8;
        if (length >> 63)
            return fail(kCloseProtocolError, "a frame length has its top bit set");
    }
    if (!control) {
        if (opcode == Continuation && m_messageOpcode < 0)
            return fail(kCloseProtocolError, "a continuation frame with no message to continue");
        if (opcode != Continuation && m_messageOpcode >= 0)
            return fail(kCloseProtocolError, "a new message began before the last one ended");
        if (length > quint64(m_maxMessage) || quint64(m_message.size()) + length > quint64(m_maxMessage))
            return fail(kCloseTooBig, "a message is larger than " + QByteArray::number(m_maxMessage) + " bytes");
    }
    if (input.size() < at + 4 + qsizetype(length))
        return {}; // bounded: length is at most m_maxMessage or 125 here
    const char *mask = input.constData() + at;
    at += 4;
    QByteArray payload(input.constData() + at, qsizetype(length));
    for (qsizetype i = 0; i < payload.size(); ++i)
        payload[i] = char(payload[i] ^ mask[i % 4]);
    input.remove(0, at + qsizetype(length));

    Event e;
    e.opcode = opcode;
    if (control) {
        if (opcode == Close) {
            e.kind = Event::Close;
            e.code = 1005; // no status code given
            if (payload.size() == 1)
                return fail(kCloseProtocolError, "a close frame with a one-byte payload");
            if (payload.size() >= 2) {
                e.code = (uchar(payload[0]) << 8) | uchar(payload[1]);
                e.why = payload.mid(2);
            }
        } else {
            e.kind = opcode == Ping ? Event::Ping : Event::Pong;
            e.payload = payload;
        }
        return e;
    }
    if (opcode != Continuation)
        m_messageOpcode = opcode;
    m_message += payload;
    if (!fin) {
        m_fragmentTaken = true; // the next fragment, if it is here already
        return {};
    }
    e.kind = Event::Message;
    e.opcode = quint8(m_messageOpcode);
    e.payload = std::move(m_message);
    m_message.clear();
    m_messageOpcode = -1;
    if (e.opcode == Text && !validUtf8(e.payload))
        return fail(kCloseInvalidPayload, "a text message is not valid UTF-8");
    return e;
}

QByteArray frame(quint8 opcode, QByteArrayView payload)
{
    QByteArray out;
    out.reserve(payload.size() + 10);
    out.append(char(0x80 | opcode));
    const auto n = quint64(payload.size());
    if (n < 126) {
        out.append(char(n));
    } else if (n <= 0xffff) {
        out.append(char(126));
        out.append(char(n >> 8));
        out.append(char(n & 0xff));
    } else {
        out.append(char(127));
        for (int i = 7; i >= 0; --i)
            out.append(char((n >> (8 * i)) & 0xff));
    }
    out.append(payload);
    return out;
}

QByteArray closeFrame(int code, const QByteArray &reason)
{
    QByteArray payload;
    payload.append(char((code >> 8) & 0xff));
    payload.append(char(code & 0xff));
    QByteArray text = reason.left(123);
    // Never cut a UTF-8 sequence in two: drop continuation bytes and the lead byte they follow.
    if (text.size() < reason.size()) {
        while (!text.isEmpty() && (uchar(text.back()) & 0xc0) == 0x80)
            text.chop(1);
        if (!text.isEmpty() && (uchar(text.back()) & 0x80))
            text.chop(1);
    }
    payload += text;
    return frame(Close, payload);
}

} // namespace slicescope::ws
