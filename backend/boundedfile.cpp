// SPDX-License-Identifier: GPL-3.0-or-later
#include "boundedfile.h"

#include <QFile>
#include <QFileInfo>

#if defined(Q_OS_UNIX) || defined(Q_OS_WASM)
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#define SLICESCOPE_POSIX_FILES 1
#endif

namespace slicescope {

namespace {

#ifdef SLICESCOPE_POSIX_FILES
QString kindOf(mode_t mode)
{
    if (S_ISDIR(mode))
        return QStringLiteral("a directory");
    if (S_ISFIFO(mode))
        return QStringLiteral("a FIFO (named pipe)");
    if (S_ISCHR(mode))
        return QStringLiteral("a character device");
    if (S_ISBLK(mode))
        return QStringLiteral("a block device");
    if (S_ISSOCK(mode))
        return QStringLiteral("a socket");
    return QStringLiteral("not a file");
}
#endif

QString notRegular(const QString &what, const QString &kind)
{
    return QStringLiteral("%1 is %2, not a regular file; not read").arg(what, kind);
}

QString tooLarge(const QString &what, qint64 maxBytes, qint64 size)
{
    return QStringLiteral("%1 is larger than %2 (%3 bytes); not read").arg(what, describeByteCount(maxBytes)).arg(size);
}

} // namespace

QString describeByteCount(qint64 bytes)
{
    if (bytes >= (qint64(1) << 30) && bytes % (qint64(1) << 30) == 0)
        return QStringLiteral("%1 GiB").arg(bytes >> 30);
    if (bytes >= (qint64(1) << 20) && bytes % (qint64(1) << 20) == 0)
        return QStringLiteral("%1 MiB").arg(bytes >> 20);
    if (bytes >= 1024 && bytes % 1024 == 0)
        return QStringLiteral("%1 KiB").arg(bytes >> 10);
    return QStringLiteral("%1 bytes").arg(bytes);
}

QString openBoundedFile(const QString &path, qint64 maxBytes, const QString &what, std::unique_ptr<QFile> &file)
{
    file.reset();
#ifdef SLICESCOPE_POSIX_FILES
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, forever. The
    // kind is judged on the descriptor opened, so a name swapped in between cannot slip through.
    const QByteArray native = QFile::encodeName(path);
    const int fd = ::open(native.constData(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return QStringLiteral("cannot read %1 (%2)").arg(what, QString::fromLocal8Bit(std::strerror(errno)));
    struct stat st{};
    if (::fstat(fd, &st) != 0) {
        const QString reason = QString::fromLocal8Bit(std::strerror(errno));
        ::close(fd);
        return QStringLiteral("cannot read %1 (%2)").arg(what, reason);
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        return notRegular(what, kindOf(st.st_mode));
    }
    if (qint64(st.st_size) > maxBytes) {
        ::close(fd);
        return tooLarge(what, maxBytes, qint64(st.st_size));
    }
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0)
        ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    auto opened = std::make_unique<QFile>();
    if (!opened->open(fd, QIODevice::ReadOnly, QFileDevice::AutoCloseHandle)) {
        ::close(fd);
        return QStringLiteral("cannot read %1 (%2)").arg(what, opened->errorString());
    }
    file = std::move(opened);
    return {};
#else
    const QFileInfo info(path);
    if (info.exists() && !info.isFile())
        return notRegular(what, info.isDir() ? QStringLiteral("a directory") : QStringLiteral("not a file"));
    auto opened = std::make_unique<QFile>(path);
    if (!opened->open(QIODevice::ReadOnly))
        return QStringLiteral("cannot read %1 (%2)").arg(what, opened->errorString());
    if (opened->size() > maxBytes)
        return tooLarge(what, maxBytes, opened->size());
    file = std::move(opened);
    return {};
#endif
}

QString readBearerTokenFile(const QString &path, const QString &origin, const QString &kind, QByteArray &token)
{
    QByteArray raw;
    if (QString error = readBoundedFile(path, filelimits::kTokenFileBytes, origin, raw); !error.isEmpty())
        return error;
    const QByteArray value = raw.trimmed();
    if (value.isEmpty())
        return QStringLiteral("%1: the %2 file is empty").arg(origin, kind);
    if (!std::all_of(value.begin(), value.end(), [](char c) { return c > 0x20 && c < 0x7f; }))
        return QStringLiteral("%1: the %2 file holds spaces or control characters; a token is one word").arg(origin, kind);
    token = value;
    return {};
}

QString readBoundedFile(const QString &path, qint64 maxBytes, const QString &what, QByteArray &data)
{
    std::unique_ptr<QFile> file;
    if (const QString error = openBoundedFile(path, maxBytes, what, file); !error.isEmpty())
        return error;
    // Read what the file holds, in pieces: QIODevice::read(n) allocates n bytes up front, and n is
    // the bound (2 GB for a capture), which a memory limit (ulimit -v) would refuse outright and a
    // sanitizer would poison page by page. One byte past the bound tells a file that grew after
    // it was measured.
    QByteArray bytes;
    bytes.reserve(qsizetype(std::min<qint64>(file->size(), maxBytes) + 1));
    constexpr qint64 kPiece = qint64(4) << 20;
    for (;;) {
        const qint64 want = std::min<qint64>(kPiece, maxBytes + 1 - qint64(bytes.size()));
        if (want <= 0)
            break;
        const QByteArray piece = file->read(want);
        if (piece.isEmpty())
            break;
        bytes += piece;
    }
    if (bytes.size() > maxBytes)
        return tooLarge(what, maxBytes, bytes.size());
    if (bytes.isEmpty() && file->error() != QFileDevice::NoError)
        return QStringLiteral("cannot read %1 (%2)").arg(what, file->errorString());
    data = std::move(bytes);
    return {};
}

QString sanitizeForMessage(const QString &text, qsizetype maxChars)
{
    QString out;
    out.reserve(std::min(text.size(), maxChars) + 8);
    qsizetype kept = 0;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        QString piece;
        if (c == u'\n')
            piece = QStringLiteral("\\n");
        else if (c == u'\r')
            piece = QStringLiteral("\\r");
        else if (c == u'\t')
            piece = QStringLiteral("\\t");
        else if (c.unicode() < 0x20 || c.unicode() == 0x7f || (c.unicode() >= 0x80 && c.unicode() < 0xa0))
            piece = QStringLiteral("\\x%1").arg(c.unicode(), 2, 16, QLatin1Char('0'));
        else if (c.unicode() == 0x2028 || c.unicode() == 0x2029 || (c.unicode() >= 0x202a && c.unicode() <= 0x202e)
                 || (c.unicode() >= 0x2066 && c.unicode() <= 0x2069))
            // Separators end a line; the bidirectional overrides and isolates reorder what follows
            // them on the screen, so a message could show other text than it holds.
            piece = QStringLiteral("\\u%1").arg(c.unicode(), 4, 16, QLatin1Char('0'));
        else if (c.isHighSurrogate() && i + 1 < text.size() && text.at(i + 1).isLowSurrogate())
            piece = text.mid(i, 2);
        else
            piece = c;
        if (kept + piece.size() > maxChars) {
            out += QStringLiteral("...");
            return out;
        }
        out += piece;
        kept += piece.size();
        if (piece.size() == 2 && piece.at(0).isHighSurrogate())
            ++i;
    }
    return out;
}

} // namespace slicescope
