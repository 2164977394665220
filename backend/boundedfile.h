// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Every file SliceScope reads goes through here: kubeconfigs, token files, CA / certificate / key
// files, the Ray token file, captures and recordings, the relay's --token-file. A name that is
// not a regular file (a FIFO, a device such as /dev/zero, a socket, a directory) is refused
// before a byte is read, since reading one could block forever or never end; a file larger than
// its bound is refused instead of read. Messages name the file and say why, in one line.

#include <QByteArray>
#include <QString>

#include <memory>

class QFile;

namespace slicescope {

// The bounds, in one place.
namespace filelimits {
inline constexpr qint64 kKubeconfigBytes = qint64(16) << 20;   // a kubeconfig with 20k contexts is ~3 MB
inline constexpr qint64 kTokenFileBytes = qint64(64) << 10;    // bearer tokens (JWTs) are a few KB
inline constexpr qint64 kPemFileBytes = qint64(4) << 20;       // a CA bundle, a client certificate or key
inline constexpr qint64 kSmallTextFileBytes = qint64(4) << 10; // the service account's namespace file
inline constexpr qint64 kCaptureFileBytes = qint64(2) << 30;   // captures and recordings (a 10k-node capture is ~20 MB)
} // namespace filelimits

// Reads `path` whole into `data`. `what` names the file for the message ("kubeconfig /x/config",
// "--ray-token-file /x/t"). Returns empty, or one sentence:
//   "cannot read WHAT (No such file or directory)"
//   "WHAT is a FIFO (named pipe), not a regular file; not read"
//   "WHAT is larger than 64 KiB (70000 bytes); not read"
[[nodiscard]] QString readBoundedFile(const QString &path, qint64 maxBytes, const QString &what, QByteArray &data);
// A bearer token file (filelimits::kTokenFileBytes): one word of visible ASCII, since it goes into
// an HTTP header. `kind` names it in the error ("Ray token", "token"). Error sentence, or empty.
[[nodiscard]] QString readBearerTokenFile(const QString &path, const QString &origin, const QString &kind, QByteArray &token);

// The same checks, for a file read in pieces (a recording): hands back the file open for reading.
QString openBoundedFile(const QString &path, qint64 maxBytes, const QString &what, std::unique_ptr<QFile> &file);

// "64 KiB", "16 MiB", "2 GiB", "100 bytes": a bound for a message.
QString describeByteCount(qint64 bytes);

// Text from outside (a server's answer, a file's value, a name the user typed) made fit for the
// one-line stderr rule and for a terminal: control characters (C0 with newlines, DEL, C1, the
// line and paragraph separators, the bidirectional overrides and isolates) shown as \n, \r, \t or
// \xHH / \uHHHH (ESC is "\x1b"), and cut to `maxChars` with an ellipsis ("..."). Never splits a
// surrogate pair. The one sanitiser: stderr lines (cli printLine()) and the verbs' text output
// (cli forTerminal()) both pass through it (docs/bounds.md).
inline constexpr qsizetype kMaxEchoedChars = 240;
QString sanitizeForMessage(const QString &text, qsizetype maxChars = kMaxEchoedChars);

} // namespace slicescope
