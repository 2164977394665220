// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What kubeconfig.cpp (the files) and kubeexec.cpp (the exec credential plugins) share: how a
// token and a name from the files may be used in a request or a message. Not installed.

#include "boundedfile.h" // sanitizeForMessage()

#include <QByteArray>
#include <QList>
#include <QSslCertificate>
#include <QSslKey>
#include <QString>

#include <algorithm>

namespace slicescope::kubeconf {

// A token goes into an HTTP header: anything but visible ASCII would corrupt the request (or
// smuggle another header in), so such a token is refused rather than sent.
inline bool isUsableToken(const QByteArray &token)
{
    return !token.isEmpty() && std::all_of(token.begin(), token.end(), [](char c) { return c > 0x20 && c < 0x7f; });
}

// A name from the file, in quotes, as a message shows it: control characters escaped, a very
// long one cut (a kubeconfig is the user's, but it may be anyone's).
inline QString quoted(const QString &s)
{
    return u'"' + sanitizeForMessage(s, 512) + u'"';
}

// Every message leaves on one line of printable text, whatever the files' bytes were (server
// URLs, paths, yaml-cpp's words): the last guard, after the pieces were escaped where they arose.
inline QString oneLine(const QString &message)
{
    return sanitizeForMessage(message, 4096);
}

// The certificates of a PEM bundle; empty when any of them does not load.
QList<QSslCertificate> parseCertificates(const QByteArray &pem);
// A PEM private key: PKCS#1 RSA, SEC1 EC or PKCS#8 holding either. Returns what is wrong with it, or empty.
[[nodiscard]] QString parsePrivateKey(const QByteArray &pem, QSslKey &key);

} // namespace slicescope::kubeconf
