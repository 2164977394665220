// SPDX-License-Identifier: GPL-3.0-or-later
// The Ray job-log chunk splitter: JobLogTail::onText, which gets Ray's log tail as WebSocket text
// chunks that may end inside a line, skips what a reconnect replays, holds the unfinished last
// line, and buffers while paused. The input is the log with control bytes: 0x00 ends a chunk,
// 0x01 toggles pause, 0x02 reconnects (a new connection replays the log so far from its start,
// in two chunks cut at an arbitrary point, as openSocket then onText would see it).
//
// Checked: the lines emitted, each followed by '\n', are exactly the log (the last line gets its
// '\n' when the job finishes), nothing is dropped, and deliveredChars() counts the whole log.

#include "fuzz_common.h"

#include "logtail.h"
#include "rayclient.h"

#include <QObject>

namespace slicescope {

struct JobLogTailFuzzAccess {
    static void reconnect(JobLogTail &tail) { tail.m_streamPos = 0; }
    static void text(JobLogTail &tail, const QString &chunk) { tail.onText(chunk); }
    static void finish(JobLogTail &tail) { tail.finishUp(); }
};

} // namespace slicescope

using namespace slicescope;
using Access = JobLogTailFuzzAccess;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz::ensureApp();
    static RayClient client(QUrl(QStringLiteral("http://127.0.0.1:9")));
    JobLogTail tail(&client);
    tail.setMaxBufferedLines(1 << 20);
    QString received;
    bool dropped = false;
    bool finished = false;
    QObject::connect(&tail, &JobLogTail::linesReceived, [&](const QString &lines) { received += lines + u'\n'; });
    QObject::connect(&tail, &JobLogTail::linesDropped, [&](int) { dropped = true; });
    QObject::connect(&tail, &JobLogTail::finished, [&] { finished = true; });

    QString log;      // everything the server has sent on the current connection, from its start
    QByteArray chunk; // the chunk being read
    auto sendChunk = [&] {
        const QString text = QString::fromUtf8(chunk);
        chunk.clear();
        log += text;
        Access::text(tail, text);
    };
    for (size_t i = 0; i < size; ++i) {
        const char c = char(data[i]);
        if (c == 0) {
            sendChunk();
        } else if (c == 1) {
            sendChunk();
            tail.setPaused(!tail.isPaused());
        } else if (c == 2) {
            sendChunk();
            Access::reconnect(tail);
            const qsizetype cut = log.isEmpty() ? 0 : qsizetype(i % size_t(log.size()));
            Access::text(tail, log.left(cut));
            Access::text(tail, log.mid(cut));
        } else {
            chunk += c;
        }
    }
    sendChunk();
    tail.setPaused(false);
    Access::finish(tail);

    FUZZ_CHECK(finished);
    FUZZ_CHECK(!dropped);
    FUZZ_CHECK(tail.deliveredChars() == log.size());
    const QString expected = log.isEmpty() || log.endsWith(u'\n') ? log : log + u'\n';
    FUZZ_CHECK(received == expected);
    return 0;
}
