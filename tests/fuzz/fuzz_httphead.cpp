// SPDX-License-Identifier: GPL-3.0-or-later
// The relay's bounded request-head parser and WebSocket frame reader (backend/httphead.h): what every
// byte a peer sends to `slicescope serve` goes through before any check. The first byte chooses which;
// the rest is the peer's stream. Invariants: a complete head is no longer than the bound and than the
// input, has a token for a method and at most kMaxHeaderLines headers; the frame reader consumes
// what it reports, never holds a message over its bound, and stays failed after an error.

#include "fuzz_common.h"

#include "httphead.h"

using namespace slicescope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const QByteArray bytes = fuzz::bytesOf(data + 1, size - 1);
    if (data[0] & 1) {
        http::RequestHead head;
        const http::HeadResult r = http::parseRequestHead(bytes, head);
        if (r.status == http::HeadStatus::Complete) {
            FUZZ_CHECK(head.length > 0 && head.length <= bytes.size() && head.length <= http::kMaxHeadBytes);
            FUZZ_CHECK(!head.method.isEmpty() && !head.target.isEmpty());
            FUZZ_CHECK(head.headers.size() <= http::kMaxHeaderLines);
            FUZZ_CHECK(head.contentLength >= -1);
            (void)head.keepAlive();
            (void)head.lists("connection", "upgrade");
        } else if (r.status == http::HeadStatus::Incomplete) {
            FUZZ_CHECK(bytes.size() < http::kMaxHeadBytes);
        } else {
            FUZZ_CHECK(!r.why.isEmpty());
        }
        return 0;
    }
    // Frames, fed in pieces of a size the input chooses.
    constexpr qint64 kMax = 4096;
    ws::FrameReader reader(kMax);
    QByteArray in;
    const qsizetype step = 1 + (data[0] >> 1) % 64;
    for (qsizetype at = 0; at < bytes.size(); at += step) {
        in += bytes.mid(at, step);
        for (;;) {
            const qsizetype before = in.size();
            const ws::Event e = reader.next(in);
            FUZZ_CHECK(in.size() <= before);
            if (e.kind == ws::Event::None)
                break;
            if (e.kind == ws::Event::Error) {
                FUZZ_CHECK(e.code >= 1000 && !e.why.isEmpty() && reader.failed());
                QByteArray more = in;
                FUZZ_CHECK(reader.next(more).kind == ws::Event::None);
                return 0;
            }
            if (e.kind == ws::Event::Message)
                FUZZ_CHECK(e.payload.size() <= kMax);
            else if (e.kind == ws::Event::Ping || e.kind == ws::Event::Pong)
                FUZZ_CHECK(e.payload.size() <= 125);
            FUZZ_CHECK(in.size() < before);
        }
    }
    (void)ws::closeFrame(1002, bytes.left(200));
    return 0;
}
