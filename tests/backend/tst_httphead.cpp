// SPDX-License-Identifier: GPL-3.0-or-later
// The relay's request-head parser and WebSocket frame reader (backend/httphead.h) on their own: every
// bound of issue 30 at its edge, on bytes, without a socket. The relay end to end against hostile
// peers is tests/app/tst_relayhostile.cpp.

#include "httphead.h"

#include <QTest>

using namespace slicescope;

namespace {

QByteArray masked(quint8 firstByte, const QByteArray &payload, bool mask = true)
{
    QByteArray out;
    out.append(char(firstByte));
    const char maskBit = mask ? char(0x80) : char(0);
    if (payload.size() < 126) {
        out.append(char(maskBit | char(payload.size())));
    } else if (payload.size() <= 0xffff) {
        out.append(char(maskBit | 126));
        out.append(char(payload.size() >> 8));
        out.append(char(payload.size() & 0xff));
    } else {
        out.append(char(maskBit | 127));
        for (int i = 7; i >= 0; --i)
            out.append(char((quint64(payload.size()) >> (8 * i)) & 0xff));
    }
    if (!mask)
        return out + payload;
    const char key[4] = {0x12, 0x34, 0x56, 0x78};
    out.append(key, 4);
    for (qsizetype i = 0; i < payload.size(); ++i)
        out.append(char(payload[i] ^ key[i % 4]));
    return out;
}

} // namespace

class TestHttpHead : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void aWholeHead()
    {
        const QByteArray bytes = "GET /relay?token=abc HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nConnection: keep-alive, Upgrade\r\n"
                                 "Upgrade: websocket\r\nX-Empty:\r\n\r\nNEXT";
        http::RequestHead head;
        const http::HeadResult r = http::parseRequestHead(bytes, head);
        QCOMPARE(r.status, http::HeadStatus::Complete);
        QCOMPARE(head.method, QByteArray("GET"));
        QCOMPARE(head.target, QByteArray("/relay?token=abc"));
        QCOMPARE(head.value("host"), QByteArray("127.0.0.1:8080"));
        QVERIFY(head.lists("connection", "upgrade"));
        QVERIFY(head.lists("upgrade", "WebSocket"));
        QVERIFY(head.keepAlive());
        QCOMPARE(head.length, bytes.size() - 4); // NEXT is the next request's
        QCOMPARE(head.contentLength, 0);
    }

    void incompleteUntilTheEmptyLine()
    {
        http::RequestHead head;
        QCOMPARE(http::parseRequestHead("GET / HTTP/1.1\r\nHost: x\r\n", head).status, http::HeadStatus::Incomplete);
        QCOMPARE(http::parseRequestHead("", head).status, http::HeadStatus::Incomplete);
        // Bare LF line ends are taken (RFC 9112 2.2), and leading empty lines skipped.
        QCOMPARE(http::parseRequestHead("\r\n\nGET / HTTP/1.0\nHost: x\n\n", head).status, http::HeadStatus::Complete);
        QVERIFY(!head.keepAlive()); // HTTP/1.0 without keep-alive
    }

    // Issue 30.2: a header that never ends is refused once 64 KiB arrived, not after 900 MB.
    void aHeadOver64KiBIsRefused()
    {
        http::RequestHead head;
        QByteArray bytes = "GET / HTTP/1.1\r\nX-Long: ";
        bytes += QByteArray(http::kMaxHeadBytes - bytes.size() - 1, 'a');
        QCOMPARE(http::parseRequestHead(bytes, head).status, http::HeadStatus::Incomplete); // one byte short
        bytes += 'a';
        QCOMPARE(http::parseRequestHead(bytes, head).status, http::HeadStatus::TooLarge);
        bytes += QByteArray(1 << 20, 'a') + "\r\n\r\n"; // the end, past the bound, is never looked for
        QCOMPARE(http::parseRequestHead(bytes, head).status, http::HeadStatus::TooLarge);
        // A head of exactly 64 KiB is whole.
        QByteArray exact = "GET / HTTP/1.1\r\nX-Long: ";
        exact += QByteArray(http::kMaxHeadBytes - exact.size() - 4, 'b') + "\r\n\r\n";
        QCOMPARE(exact.size(), http::kMaxHeadBytes);
        QCOMPARE(http::parseRequestHead(exact, head).status, http::HeadStatus::Complete);
    }

    void moreThan100HeaderLinesAreRefused()
    {
        http::RequestHead head;
        QByteArray hundred = "GET / HTTP/1.1\r\n";
        for (int i = 0; i < http::kMaxHeaderLines; ++i)
            hundred += "X-" + QByteArray::number(i) + ": 1\r\n";
        QCOMPARE(http::parseRequestHead(hundred + "\r\n", head).status, http::HeadStatus::Complete);
        QCOMPARE(head.headers.size(), http::kMaxHeaderLines);
        // One more, with no end in sight yet: refused as soon as the 101st line is whole.
        QCOMPARE(http::parseRequestHead(hundred + "X-101: 1\r\n", head).status, http::HeadStatus::TooManyHeaders);
    }

    void bodiesAreSeenFromTheHead()
    {
        http::RequestHead head;
        QCOMPARE(http::parseRequestHead("POST / HTTP/1.1\r\nContent-Length: 107374182400\r\n\r\n", head).status, http::HeadStatus::Complete);
        QCOMPARE(head.contentLength, qint64(107374182400));
        QVERIFY(head.contentLength > http::kMaxBodyBytes);
        // Absurd lengths saturate instead of overflowing.
        QCOMPARE(http::parseRequestHead("POST / HTTP/1.1\r\nContent-Length: 99999999999999999999999999999\r\n\r\n", head).status,
                 http::HeadStatus::Complete);
        QCOMPARE(head.contentLength, std::numeric_limits<qint64>::max());
        QCOMPARE(http::parseRequestHead("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", head).status, http::HeadStatus::Complete);
        QCOMPARE(head.contentLength, -1);
        QCOMPARE(http::parseRequestHead("POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", head).status, http::HeadStatus::Malformed);
        QCOMPARE(http::parseRequestHead("POST / HTTP/1.1\r\nContent-Length: -5\r\n\r\n", head).status, http::HeadStatus::Malformed);
    }

    void malformedHeads_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::newRow("no version") << QByteArray("GET /\r\n\r\n");
        QTest::newRow("HTTP/2") << QByteArray("GET / HTTP/2.0\r\n\r\n");
        QTest::newRow("space in target") << QByteArray("GET /a b HTTP/1.1\r\n\r\n");
        QTest::newRow("control in target") << QByteArray("GET /\x1b HTTP/1.1\r\n\r\n");
        QTest::newRow("bad method") << QByteArray("G(T / HTTP/1.1\r\n\r\n");
        QTest::newRow("no colon") << QByteArray("GET / HTTP/1.1\r\nHost\r\n\r\n");
        QTest::newRow("space before colon") << QByteArray("GET / HTTP/1.1\r\nHost : x\r\n\r\n");
        QTest::newRow("obs-fold") << QByteArray("GET / HTTP/1.1\r\nX: a\r\n b\r\n\r\n");
        static constexpr char withNul[] = "GET / HTTP/1.1\r\nX: a\0b\r\n\r\n";
        QTest::newRow("NUL in value") << QByteArray(withNul, sizeof withNul - 1);
        QTest::newRow("escape in value") << QByteArray("GET / HTTP/1.1\r\nX: \x1b]0;t\x07\r\n\r\n");
    }
    void malformedHeads()
    {
        QFETCH(QByteArray, bytes);
        http::RequestHead head;
        const http::HeadResult r = http::parseRequestHead(bytes, head);
        QCOMPARE(r.status, http::HeadStatus::Malformed);
        QVERIFY(!r.why.isEmpty());
    }

    void theHandshakeKey()
    {
        // RFC 6455 1.3's own example.
        QCOMPARE(ws::acceptKey("dGhlIHNhbXBsZSBub25jZQ=="), QByteArray("s3pPLMBiTxaQ9kYGzzhZRbK+xOo="));
        QVERIFY(ws::validClientKey("dGhlIHNhbXBsZSBub25jZQ=="));
        QVERIFY(!ws::validClientKey("short"));
        QVERIFY(!ws::validClientKey("dGhlIHNhbXBsZSBub25jZQ")); // no padding: not 24 characters
    }

    void maskedFramesAndFragments()
    {
        ws::FrameReader reader(64 * 1024);
        QByteArray utf8 = masked(0x81, QString::fromUtf8("\u00e9\u20ac\U0001F600").toUtf8());
        QCOMPARE(reader.next(utf8).kind, ws::Event::Message); // 2, 3 and 4-byte sequences are text
        QByteArray in = masked(0x81, "hello") + masked(0x01, "frag") + masked(0x89, "ping!") + masked(0x80, "ment");
        ws::Event e = reader.next(in);
        QCOMPARE(e.kind, ws::Event::Message);
        QCOMPARE(e.opcode, quint8(ws::Text));
        QCOMPARE(e.payload, QByteArray("hello"));
        e = reader.next(in); // a ping between two fragments of a message
        QCOMPARE(e.kind, ws::Event::Ping);
        QCOMPARE(e.payload, QByteArray("ping!"));
        e = reader.next(in);
        QCOMPARE(e.kind, ws::Event::Message);
        QCOMPARE(e.payload, QByteArray("fragment"));
        QVERIFY(in.isEmpty());
        QCOMPARE(reader.next(in).kind, ws::Event::None);
        // A frame split anywhere waits for the rest.
        const QByteArray whole = masked(0x81, QByteArray(300, 'x'));
        for (qsizetype cut = 0; cut < whole.size(); cut += 37) {
            ws::FrameReader r(64 * 1024);
            QByteArray part = whole.left(cut);
            QCOMPARE(r.next(part).kind, ws::Event::None);
            part += whole.mid(cut);
            QCOMPARE(r.next(part).payload.size(), 300);
        }
    }

    // Issue 30.5: RFC 6455 5.1, a server closes on an unmasked client frame with 1002.
    void anUnmaskedFrameIsAProtocolError()
    {
        ws::FrameReader reader(64 * 1024);
        QByteArray in = masked(0x81, "hello", false);
        const ws::Event e = reader.next(in);
        QCOMPARE(e.kind, ws::Event::Error);
        QCOMPARE(e.code, ws::kCloseProtocolError);
        QVERIFY(e.why.contains("masked"));
        QVERIFY(reader.failed());
        QByteArray more = masked(0x81, "after");
        QCOMPARE(reader.next(more).kind, ws::Event::None); // nothing more is taken
    }

    void violations_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<int>("code");
        QTest::newRow("reserved bit") << masked(0xC1, "x") << ws::kCloseProtocolError;
        QTest::newRow("unknown opcode") << masked(0x83, "x") << ws::kCloseProtocolError;
        QTest::newRow("long ping") << masked(0x89, QByteArray(126, 'p')) << ws::kCloseProtocolError;
        QTest::newRow("fragmented ping") << masked(0x09, "p") << ws::kCloseProtocolError;
        QTest::newRow("lone continuation") << masked(0x80, "x") << ws::kCloseProtocolError;
        QTest::newRow("text inside text") << masked(0x01, "a") + masked(0x81, "b") << ws::kCloseProtocolError;
        QTest::newRow("not UTF-8") << masked(0x81, "\xff\xfe") << ws::kCloseInvalidPayload;
        QTest::newRow("overlong UTF-8") << masked(0x81, "\xc0\xaf") << ws::kCloseInvalidPayload;
        QTest::newRow("UTF-8 surrogate") << masked(0x81, "\xed\xa0\x80") << ws::kCloseInvalidPayload;
        QTest::newRow("UTF-8 cut short") << masked(0x81, "ok\xe2\x82") << ws::kCloseInvalidPayload;
        QTest::newRow("UTF-8 past U+10FFFF") << masked(0x81, "\xf4\x90\x80\x80") << ws::kCloseInvalidPayload;
        QTest::newRow("one-byte close") << masked(0x88, "x") << ws::kCloseProtocolError;
    }
    void violations()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(int, code);
        ws::FrameReader reader(64 * 1024);
        ws::Event e;
        do
            e = reader.next(bytes);
        while (e.kind == ws::Event::Message);
        QCOMPARE(e.kind, ws::Event::Error);
        QCOMPARE(e.code, code);
    }

    // A message over the bound is refused at the header that announces it, before its payload comes.
    void aLargeMessageIsRefusedAtItsHeader()
    {
        ws::FrameReader reader(64 * 1024);
        QByteArray header = masked(0x81, QByteArray(64 * 1024 + 1, 'x')).left(14); // 2 + 8 length + 4 mask
        const ws::Event e = reader.next(header);
        QCOMPARE(e.kind, ws::Event::Error);
        QCOMPARE(e.code, ws::kCloseTooBig);
        // Fragments that add up past it too.
        ws::FrameReader fragments(64 * 1024);
        QByteArray in = masked(0x01, QByteArray(40 * 1024, 'a')) + masked(0x00, QByteArray(40 * 1024, 'b')).left(14);
        QCOMPARE(fragments.next(in).code, ws::kCloseTooBig);
        // And the 2^63 length trick.
        ws::FrameReader huge(64 * 1024);
        QByteArray top = QByteArray::fromHex("81ff8000000000000000") + "abcd";
        QCOMPARE(huge.next(top).code, ws::kCloseProtocolError);
    }

    void serverFramesAndClose()
    {
        QCOMPARE(ws::frame(ws::Text, "hi"), QByteArray::fromHex("81026869"));
        QCOMPARE(ws::frame(ws::Text, QByteArray(200, 'a')).left(4), QByteArray::fromHex("817e00c8"));
        QCOMPARE(ws::frame(ws::Text, QByteArray(70000, 'a')).left(10), QByteArray::fromHex("817f0000000000011170"));
        const QByteArray close = ws::closeFrame(1008, QByteArray(200, 'r'));
        QCOMPARE(close.size(), 2 + 125); // a control frame's payload is at most 125 bytes
        QCOMPARE(close.mid(2, 2), QByteArray::fromHex("03f0"));
        // A reason cut to fit never ends inside a UTF-8 sequence.
        const QByteArray accents = QString(100, QChar(0xe9)).toUtf8(); // 200 bytes of 2-byte sequences
        const QByteArray cut = ws::closeFrame(1008, accents).mid(4);
        QVERIFY(cut.size() <= 123);
        QVERIFY(!QString::fromUtf8(cut).contains(QChar::ReplacementCharacter));
    }
};

QTEST_GUILESS_MAIN(TestHttpHead)
#include "tst_httphead.moc"
