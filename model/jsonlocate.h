// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Where a JSON text goes wrong, in words a person can act on. simdjson refuses a document with
// invalid UTF-8 or a raw control character in a string as a whole, before it has a position to
// report; these helpers find that place (only on the error path, one linear scan) and name a
// body that is not JSON at all (an HTML error page from a proxy, a plain-text 500) without
// passing on the parser's own advice. Used by the snapshot builder for every body; the capture
// reader can use them for a whole file.

#include <QString>
#include <QtGlobal>

namespace slicescope {

struct JsonPlace {
    qint64 line = 1;   // 1-based
    qint64 column = 1; // 1-based, in bytes
};

// The line and column of byte `offset` (clamped into the text).
JsonPlace jsonPlace(const char *data, qint64 size, qint64 offset);

struct JsonFault {
    qint64 offset = -1;      // byte offset of the first bad byte; -1 when none was found
    const char *what = "";   // "invalid UTF-8", "a raw control character inside a string", ...
};

// The first byte a JSON parser refuses before it parses anything: invalid UTF-8 (overlong,
// surrogate, truncated or stray continuation bytes), an unescaped control character inside a
// string, or a string that never closes (reported where it opens).
JsonFault locateJsonFault(const char *data, qint64 size);

// For a text that cannot be JSON from its first byte: "looks like an HTML page", "the body is
// blank", "starts with 'Internal Server Error'"... Empty when it may be JSON.
QString describeNonJson(const char *data, qint64 size);

} // namespace slicescope
