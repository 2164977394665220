// SPDX-License-Identifier: GPL-3.0-or-later
#include "jsonlocate.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace slicescope {

namespace {

bool isBlank(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// The length of the valid UTF-8 sequence at p (1..4), or 0 when the bytes there are not one
// (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF).
int utf8Length(const unsigned char *p, qint64 left)
{
    const unsigned char c = p[0];
    if (c < 0x80)
        return 1;
    int n = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c == 0xE0) {
        n = 3;
        lo = 0xA0;
    } else if (c >= 0xE1 && c <= 0xEC) n = 3;
    else if (c == 0xED) {
        n = 3;
        hi = 0x9F;
    } else if (c >= 0xEE && c <= 0xEF) n = 3;
    else if (c == 0xF0) {
        n = 4;
        lo = 0x90;
    } else if (c >= 0xF1 && c <= 0xF3) n = 4;
    else if (c == 0xF4) {
        n = 4;
        hi = 0x8F;
    } else return 0;
    if (left < n)
        return 0;
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (int i = 2; i < n; ++i)
        if (p[i] < 0x80 || p[i] > 0xBF)
            return 0;
    return n;
}

bool startsWithNoCase(const char *data, qint64 size, const char *prefix)
{
    const qint64 n = qint64(std::strlen(prefix));
    if (size < n)
        return false;
    for (qint64 i = 0; i < n; ++i)
        if (std::tolower(static_cast<unsigned char>(data[i])) != prefix[i])
            return false;
    return true;
}

bool containsNoCase(const char *data, qint64 size, const char *needle)
{
    const qint64 n = qint64(std::strlen(needle));
    for (qint64 i = 0; i + n <= size; ++i)
        if (startsWithNoCase(data + i, size - i, needle))
            return true;
    return false;
}

} // namespace

JsonPlace jsonPlace(const char *data, qint64 size, qint64 offset)
{
    JsonPlace place;
    offset = std::clamp<qint64>(offset, 0, size);
    qint64 lineStart = 0;
    for (qint64 i = 0; i < offset; ++i)
        if (data[i] == '\n') {
            ++place.line;
            lineStart = i + 1;
        }
    place.column = offset - lineStart + 1;
    return place;
}

JsonFault locateJsonFault(const char *data, qint64 size)
{
    const auto *p = reinterpret_cast<const unsigned char *>(data);
    bool inString = false;
    qint64 stringStart = -1;
    for (qint64 i = 0; i < size;) {
        const unsigned char c = p[i];
        if (c >= 0x80) {
            const int n = utf8Length(p + i, size - i);
            if (n == 0)
                return {i, "invalid UTF-8"};
            i += n;
            continue;
        }
        if (inString) {
            if (c == '"') {
                inString = false;
            } else if (c == '\\') {
                ++i; // the escaped byte; an invalid escape is the parser's to name
                if (i < size && p[i] >= 0x80)
                    continue; // a multi-byte sequence after a backslash is checked as UTF-8
            } else if (c < 0x20) {
                return {i, "a raw control character inside a string"};
            }
        } else if (c == '"') {
            inString = true;
            stringStart = i;
        }
        ++i;
    }
    if (inString)
        return {stringStart, "a string that never closes"};
    return {};
}

QString describeNonJson(const char *data, qint64 size)
{
    qint64 i = 0;
    while (i < size && isBlank(static_cast<unsigned char>(data[i])))
        ++i;
    if (i == size)
        return QStringLiteral("the body is blank");
    const char *text = data + i;
    const qint64 left = size - i;
    const char first = text[0];
    if (first == '<') {
        const qint64 head = std::min<qint64>(left, 2048);
        if (startsWithNoCase(text, left, "<!doctype html") || containsNoCase(text, head, "<html")
            || containsNoCase(text, head, "<head") || containsNoCase(text, head, "<body"))
            return QStringLiteral("looks like an HTML page");
        return QStringLiteral("looks like XML or HTML: it starts with '<'");
    }
    if (std::strchr("{[\"-0123456789tfn", first) && first != '\0')
        return {};
    // Name the start, printable ASCII only, so a binary or hostile body cannot garble the message.
    QString start;
    for (qint64 k = 0; k < left && start.size() < 40; ++k) {
        const unsigned char c = static_cast<unsigned char>(text[k]);
        if (c == '\n' || c == '\r')
            break;
        start += c >= 0x20 && c < 0x7f ? QChar(char16_t(c)) : QChar(u'?');
    }
    return QStringLiteral("it starts with '%1'").arg(start);
}

} // namespace slicescope
