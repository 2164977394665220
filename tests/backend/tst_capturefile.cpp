// SPDX-License-Identifier: GPL-3.0-or-later
// The capture file contract (ARCHITECTURE.md, "Capture file"): what serializeCapture() writes,
// parseCapture()/parseRecording()/readCaptureFile() read back unchanged, and every malformed input
// is refused whole with one error naming the file, the place (line, column) and the problem.

#include "capturefile.h"
#include "inspectjson.h"
#include "snapshot.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QElapsedTimer>
#include <QTest>

#include <sys/stat.h>

using namespace slicescope;

namespace {

// What a body becomes on the way through one line of JSON: surrounding whitespace dropped,
// raw CR/LF (whitespace between JSON tokens) turned into spaces. Nothing else changes.
QByteArray flattened(const QByteArray &body)
{
    QByteArray out = body.trimmed();
    out.replace('\r', ' ').replace('\n', ' ');
    return out;
}

QString fixturePath(const QString &name)
{
    return QStringLiteral(SLICESCOPE_TEST_DATA "/captures/") + name;
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

Capture sampleCapture(int n)
{
    Capture c;
    c.capturedAt = QDateTime(QDate(2026, 11, 29), QTime(18, 0, n, 250), Qt::UTC);
    // Pretty-printed, CRLF and LF, a string holding an escaped newline, non-ASCII text, padding.
    c.rayVersion = "\n  {\"version\": \"5\",\r\n   \"ray_version\": \"2.60.0\"}\n\n";
    c.rayNodes = QByteArray("{\"result\": true, \"msg\": \"line one\\nline two\",\n \"data\": {\"result\": {\"total\": \"")
                 + QByteArray::number(n) + "\", \"result\": []}}}";
    c.rayPlacementGroups = "{\"result\": true,\n\t\"msg\": \"caf\xc3\xa9 \xe2\x9c\x93\", \"data\": {\"result\": {\"result\": []}}}";
    c.rayJobs = "[\n]";
    c.rayClusterStatus = "{\"data\": {\"clusterStatus\": \"======== Autoscaler status\\n\"}}";
    c.kubeContext = QStringLiteral("gke_\"quoted\"\\back_%1").arg(n);
    c.kubeRayClusters = "{\"kind\": \"RayClusterList\", \"items\": []}";
    c.kubePods = "{\"kind\": \"PodList\",\n \"items\": null}";
    c.kubeNodes = "{\"kind\": \"NodeList\", \"items\": [ ]}";
    return c;
}

void compareCaptures(const Capture &actual, const Capture &original)
{
    QCOMPARE(actual.capturedAt, original.capturedAt);
    QCOMPARE(actual.kubeContext, original.kubeContext);
    QCOMPARE(actual.rayVersion, flattened(original.rayVersion));
    QCOMPARE(actual.rayNodes, flattened(original.rayNodes));
    QCOMPARE(actual.rayPlacementGroups, flattened(original.rayPlacementGroups));
    QCOMPARE(actual.rayJobs, flattened(original.rayJobs));
    QCOMPARE(actual.rayClusterStatus, flattened(original.rayClusterStatus));
    QCOMPARE(actual.kubeRayClusters, flattened(original.kubeRayClusters));
    QCOMPARE(actual.kubePods, flattened(original.kubePods));
    QCOMPARE(actual.kubeNodes, flattened(original.kubeNodes));
}

// "<file>: line L, column C: ..." (capturefile.h).
const QRegularExpression kPlace(QStringLiteral("^(.*): line (\\d+), column (\\d+): (.+)$"));

} // namespace

class TestCaptureFile : public QObject
{
    Q_OBJECT

private slots:
    void roundTrip();
    void roundTripThroughFile();
    void contextWithControlCharactersRoundTrips();
    void emptyBodiesStayAbsent();
    void recordingOfThree_data();
    void recordingOfThree();
    void fixturesRoundTrip_data();
    void fixturesRoundTrip();
    void malformed_data();
    void malformed();
    void emptyAndMissingFiles_data();
    void emptyAndMissingFiles();
    void capturesThatAreNotFiles();
    void recordingWithOneBadLine();
    void unknownMembersAreIgnored();
};

void TestCaptureFile::roundTrip()
{
    const Capture original = sampleCapture(7);
    const QByteArray line = serializeCapture(original);
    QVERIFY(!line.contains('\n'));
    QVERIFY(!line.contains('\r'));
    QVERIFY(line.startsWith("{\"format\":\"slicescope-capture/1\""));
    // It is one JSON object any tool can read.
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(line, &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
    QCOMPARE(doc.object().value(QLatin1String("capturedAt")).toString(), QStringLiteral("2026-11-29T18:00:07.250Z"));

    const CaptureReadResult read = parseCapture(line, QStringLiteral("memory"));
    QVERIFY2(read.ok(), qPrintable(read.error));
    QCOMPARE(read.captures.size(), 1);
    compareCaptures(read.captures[0], original);
    // Serializing what was read gives the same line: the form is stable.
    QCOMPARE(serializeCapture(read.captures[0]), line);
}

// Fuzz finding (tests/fuzz/regressions/fuzz_capture/context-control-characters): a context
// name comes from the user's kubeconfig and may hold control characters; they were written raw
// and the recording (and the relay's capture message) could not be read back.
void TestCaptureFile::contextWithControlCharactersRoundTrips()
{
    Capture original = sampleCapture(3);
    original.kubeContext = QStringLiteral("a\u0001b\nc\t\"d\\e\u00e9");
    const QByteArray line = serializeCapture(original);
    QVERIFY(!line.contains('\n'));
    QVERIFY(!line.contains('\x01'));
    const CaptureReadResult read = parseCapture(line, QStringLiteral("memory"));
    QVERIFY2(read.ok(), qPrintable(read.error));
    QCOMPARE(read.captures.size(), 1);
    QCOMPARE(read.captures[0].kubeContext, original.kubeContext);
    QCOMPARE(serializeCapture(read.captures[0]), line);
}

void TestCaptureFile::roundTripThroughFile()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("one.slicescope.json"));
    const Capture original = sampleCapture(3);
    QCOMPARE(writeCaptureFile(path, original), QString());
    const CaptureReadResult read = readCaptureFile(path);
    QVERIFY2(read.ok(), qPrintable(read.error));
    QCOMPARE(read.captures.size(), 1);
    compareCaptures(read.captures[0], original);
}

void TestCaptureFile::emptyBodiesStayAbsent()
{
    Capture kubeOnly;
    kubeOnly.kubePods = "{\"kind\": \"PodList\", \"items\": []}";
    const QByteArray line = serializeCapture(kubeOnly);
    QVERIFY(!line.contains("\"ray\""));
    QVERIFY(!line.contains("capturedAt"));
    const CaptureReadResult read = parseCapture(line, QStringLiteral("memory"));
    QVERIFY2(read.ok(), qPrintable(read.error));
    const Capture &c = read.captures[0];
    QVERIFY(!c.capturedAt.isValid());
    QVERIFY(!c.hasRay());
    QVERIFY(c.rayVersion.isEmpty());
    QVERIFY(c.kubeRayClusters.isEmpty());
    QVERIFY(c.kubeContext.isEmpty());
    QCOMPARE(c.kubePods, kubeOnly.kubePods);
}

// A recording: one capture per line. Read by name (.jsonl) and, under another name, by content.
void TestCaptureFile::recordingOfThree_data()
{
    QTest::addColumn<QString>("fileName");
    QTest::addColumn<QByteArray>("separator");
    QTest::newRow("jsonl") << QStringLiteral("rec.slicescope.jsonl") << QByteArray("\n");
    QTest::newRow("jsonl, blank lines and CRLF") << QStringLiteral("rec.slicescope.jsonl") << QByteArray("\r\n\n   \n");
    QTest::newRow("json name, recording content") << QStringLiteral("rec.slicescope.json") << QByteArray("\n");
}

void TestCaptureFile::recordingOfThree()
{
    QFETCH(QString, fileName);
    QFETCH(QByteArray, separator);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QByteArray bytes;
    for (int i = 1; i <= 3; ++i)
        bytes += serializeCapture(sampleCapture(i)) + separator;
    const QString path = dir.filePath(fileName);
    QVERIFY(writeFile(path, bytes));

    const CaptureReadResult read = readCaptureFile(path);
    QVERIFY2(read.ok(), qPrintable(read.error));
    QCOMPARE(read.captures.size(), 3);
    for (int i = 0; i < 3; ++i)
        compareCaptures(read.captures[i], sampleCapture(i + 1));

    // parseRecording() reads the same bytes the same way.
    const CaptureReadResult direct = parseRecording(bytes, path);
    QVERIFY2(direct.ok(), qPrintable(direct.error));
    QCOMPARE(direct.captures.size(), 3);
}

// Every fixture, serialized to one line and read back, builds the very same snapshot.
void TestCaptureFile::fixturesRoundTrip_data()
{
    QTest::addColumn<QString>("name");
    const QStringList files = QDir(QStringLiteral(SLICESCOPE_TEST_DATA "/captures"))
                                  .entryList({QStringLiteral("*.slicescope.json")}, QDir::Files, QDir::Name);
    QVERIFY(files.size() >= 10);
    for (const QString &f : files)
        QTest::newRow(qPrintable(f)) << f;
}

void TestCaptureFile::fixturesRoundTrip()
{
    QFETCH(QString, name);
    const CaptureReadResult fromFile = readCaptureFile(fixturePath(name));
    QVERIFY2(fromFile.ok(), qPrintable(fromFile.error));
    QCOMPARE(fromFile.captures.size(), 1);
    const Capture &original = fromFile.captures[0];
    QVERIFY(original.hasRay() || original.hasKubernetes());

    const QByteArray line = serializeCapture(original);
    const CaptureReadResult again = parseCapture(line, name);
    QVERIFY2(again.ok(), qPrintable(again.error));
    compareCaptures(again.captures[0], original);
    QCOMPARE(inspectJson(*buildSnapshot(again.captures[0])), inspectJson(*buildSnapshot(original)));
}

// Malformed single captures. `line`/`column` are the place worked out by hand (1-based);
// `problem` words the message must contain.
void TestCaptureFile::malformed_data()
{
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    QTest::addColumn<QStringList>("problem");

    QTest::newRow("not JSON") << QByteArray("this is not a capture\n") << 1 << 1 << QStringList{QStringLiteral("not JSON")};
    QTest::newRow("not an object") << QByteArray("[1, 2, 3]\n") << 1 << 1 << QStringList{QStringLiteral("capture object")};
    // The value "slicescope-capture/2" starts at column 12.
    QTest::newRow("wrong format") << QByteArray("{\"format\": \"slicescope-capture/2\", \"ray\": {}}")
                                  << 1 << 12 << QStringList{QStringLiteral("slicescope-capture/2"), QStringLiteral("slicescope-capture/1")};
    QTest::newRow("format not a string") << QByteArray("{\n  \"format\": 1\n}") << 2 << 13
                                         << QStringList{QStringLiteral("format"), QStringLiteral("string")};
    // Nothing to point at but the object that lacks it.
    QTest::newRow("missing format") << QByteArray("{\"capturedAt\": \"2026-11-29T18:00:00Z\", \"ray\": {}}\n")
                                    << 1 << 1 << QStringList{QStringLiteral("format"), QStringLiteral("slicescope-capture/1")};
    // Line 2 is ` "ray": [1, 2]}`: the [ is column 9.
    QTest::newRow("ray not an object") << QByteArray("{\"format\": \"slicescope-capture/1\",\n \"ray\": [1, 2]}\n")
                                       << 2 << 9 << QStringList{QStringLiteral("ray"), QStringLiteral("object")};
    QTest::newRow("kubernetes not an object") << QByteArray("{\"format\": \"slicescope-capture/1\",\n\"kubernetes\": \"ctx\"}")
                                              << 2 << 15 << QStringList{QStringLiteral("kubernetes"), QStringLiteral("object")};
    // `{"format": "slicescope-capture/1", ` is 35 characters: "yesterday" starts at 50.
    QTest::newRow("capturedAt not a time") << QByteArray("{\"format\": \"slicescope-capture/1\", \"capturedAt\": \"yesterday\"}")
                                           << 1 << 50 << QStringList{QStringLiteral("capturedAt"), QStringLiteral("yesterday")};
    // A body cut off: line 3 ends after `  "nodes": {"result": [1, 2` (27 characters), so the
    // input runs out at column 28.
    QTest::newRow("truncated") << QByteArray("{\"format\": \"slicescope-capture/1\",\n \"ray\": {\n  \"nodes\": {\"result\": [1, 2")
                               << 3 << 28 << QStringList{QStringLiteral("truncated")};
    // Cut inside a string (the parser's first pass sees it): line 3 is 26 characters long.
    QTest::newRow("truncated in a string") << QByteArray("{\"format\": \"slicescope-capture/1\",\n \"ray\": {\n  \"nodes\": {\"result\": \"abc")
                                           << 3 << 27 << QStringList{QStringLiteral("truncated")};
    // Two objects on one line: the second would be dropped silently. `{"format": "slicescope-capture/1"}`
    // is 34 characters, so the second object starts at column 36.
    QTest::newRow("content after the object") << QByteArray("{\"format\": \"slicescope-capture/1\"} {\"x\": 1}\n")
                                              << 1 << 36 << QStringList{QStringLiteral("after the capture object")};
    // Issue 13: the parser refuses these as a whole, before it stands anywhere ("line 1, column
    // 1" before); the message names the first bad byte. 62 lines of padding, then on line 63
    // `  "nodes": {"x": "ab\xff"}`: the bad byte is column 21.
    QByteArray padded("{\"format\": \"slicescope-capture/1\", \"ray\": {\n");
    for (int i = 2; i <= 62; ++i)
        padded += "\n";
    QTest::newRow("invalid UTF-8 on line 63") << padded + "  \"nodes\": {\"x\": \"ab\xff\"}}}\n"
                                              << 63 << 21
                                              << QStringList{QStringLiteral("invalid UTF-8")};
    QTest::newRow("control character in a string") << QByteArray("{\"format\": \"slicescope-capture/1\",\n\"kubernetes\": {\"context\": \"a\x01b\"}}")
                                                   << 2 << 29 << QStringList{QStringLiteral("control character")};
    // A proxy's error page saved as a capture: named for what it is, not the parser's advice.
    QTest::newRow("an HTML page") << QByteArray("<!DOCTYPE html>\n<html><body>502 Bad Gateway</body></html>\n") << 1 << 1
                                  << QStringList{QStringLiteral("HTML")};
}

void TestCaptureFile::malformed()
{
    QFETCH(QByteArray, content);
    QFETCH(int, line);
    QFETCH(int, column);
    QFETCH(QStringList, problem);

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("bad.slicescope.json"));
    QVERIFY(writeFile(path, content));
    const CaptureReadResult read = readCaptureFile(path);
    QVERIFY(!read.ok());
    QVERIFY(read.captures.isEmpty());
    const QRegularExpressionMatch m = kPlace.match(read.error);
    QVERIFY2(m.hasMatch(), qPrintable(QStringLiteral("no \"<file>: line L, column C: \" in: ") + read.error));
    QCOMPARE(m.captured(1), path);
    QCOMPARE(m.captured(2).toInt(), line);
    QCOMPARE(m.captured(3).toInt(), column);
    for (const QString &word : problem)
        QVERIFY2(m.captured(4).contains(word), qPrintable(QStringLiteral("\"%1\" not in: %2").arg(word, read.error)));

    // parseCapture() on the same bytes says the same (readCaptureFile adds nothing but the name).
    QCOMPARE(parseCapture(content, path).error, read.error);
}

void TestCaptureFile::emptyAndMissingFiles_data()
{
    QTest::addColumn<QString>("fileName");
    QTest::addColumn<QByteArray>("content"); // null: do not create the file
    QTest::addColumn<QString>("problem");
    QTest::newRow("empty") << QStringLiteral("empty.slicescope.json") << QByteArray("") << QStringLiteral("empty");
    QTest::newRow("whitespace only") << QStringLiteral("blank.slicescope.json") << QByteArray(" \n\t\r\n") << QStringLiteral("empty");
    QTest::newRow("empty recording") << QStringLiteral("empty.slicescope.jsonl") << QByteArray("\n\n") << QStringLiteral("empty");
    QTest::newRow("missing") << QStringLiteral("nowhere.slicescope.json") << QByteArray() << QStringLiteral("cannot read the file (");
}

void TestCaptureFile::emptyAndMissingFiles()
{
    QFETCH(QString, fileName);
    QFETCH(QByteArray, content);
    QFETCH(QString, problem);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(fileName);
    if (!content.isNull())
        QVERIFY(writeFile(path, content));
    const CaptureReadResult read = readCaptureFile(path);
    QVERIFY(!read.ok());
    QVERIFY(read.captures.isEmpty());
    // No place to point at in an empty or absent file: the name and the problem.
    QVERIFY2(read.error.startsWith(path + QStringLiteral(": ")), qPrintable(read.error));
    QVERIFY2(read.error.contains(problem), qPrintable(read.error));
}

// Issue 13: --capture naming a FIFO blocked forever, a device read without end. Both readers (the
// verbs' whole-file one and the window's line-by-line recording reader) refuse them at once.
void TestCaptureFile::capturesThatAreNotFiles()
{
    QTemporaryDir dir;
    const QString fifo = dir.filePath(QStringLiteral("capture.slicescope.jsonl"));
    QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    QElapsedTimer timer;
    timer.start();
    QCOMPARE(readCaptureFile(fifo).error, fifo + QStringLiteral(": the file is a FIFO (named pipe), not a regular file; not read"));
    QCOMPARE(readCaptureFile(QStringLiteral("/dev/zero")).error,
             QStringLiteral("/dev/zero: the file is a character device, not a regular file; not read"));
    QCOMPARE(readCaptureFile(dir.path()).error, dir.path() + QStringLiteral(": the file is a directory, not a regular file; not read"));
    RecordingReader reader(fifo);
    QCOMPARE(reader.open(), fifo + QStringLiteral(": the file is a FIFO (named pipe), not a regular file; not read"));
    RecordingReader device(QStringLiteral("/dev/zero"));
    QVERIFY(device.open().contains(QLatin1String("character device")));
    qInfo("refused in %lld ms", timer.elapsed());
    QVERIFY(timer.elapsed() < 2000);
}

// All or nothing: one bad record refuses the whole recording, naming its line in the file.
void TestCaptureFile::recordingWithOneBadLine()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("rec.slicescope.jsonl"));
    // Line 2: `{"format": "slicescope-capture/1", "ray": 7}`: the 7 is column 43.
    const QByteArray bytes = serializeCapture(sampleCapture(1)) + '\n'
                             + "{\"format\": \"slicescope-capture/1\", \"ray\": 7}\n"
                             + serializeCapture(sampleCapture(3)) + '\n';
    QVERIFY(writeFile(path, bytes));
    const CaptureReadResult read = readCaptureFile(path);
    QVERIFY(!read.ok());
    QVERIFY(read.captures.isEmpty());
    const QRegularExpressionMatch m = kPlace.match(read.error);
    QVERIFY2(m.hasMatch(), qPrintable(read.error));
    QCOMPARE(m.captured(1), path);
    QCOMPARE(m.captured(2).toInt(), 2);
    QCOMPARE(m.captured(3).toInt(), 43);
    QVERIFY2(m.captured(4).contains(QLatin1String("ray")), qPrintable(read.error));

    // A truncated last line (a recording cut off mid-write) is refused the same way.
    QByteArray cut = serializeCapture(sampleCapture(1)) + '\n' + serializeCapture(sampleCapture(2));
    cut.chop(20);
    QVERIFY(writeFile(path, cut));
    const CaptureReadResult cutRead = readCaptureFile(path);
    QVERIFY(!cutRead.ok());
    QVERIFY(cutRead.captures.isEmpty());
    const QRegularExpressionMatch cm = kPlace.match(cutRead.error);
    QVERIFY2(cm.hasMatch(), qPrintable(cutRead.error));
    QCOMPARE(cm.captured(2).toInt(), 2);
}

// Newer writers may add members: readers skip what they do not know.
void TestCaptureFile::unknownMembersAreIgnored()
{
    const QByteArray bytes = "{\"format\": \"slicescope-capture/1\", \"writer\": {\"name\": \"slicescope\", \"v\": [1]},"
                             " \"ray\": {\"nodes\": {\"result\": true}, \"actors\": [1, 2]},"
                             " \"kubernetes\": {\"context\": \"c\", \"events\": {\"items\": []}}}";
    const CaptureReadResult read = parseCapture(bytes, QStringLiteral("memory"));
    QVERIFY2(read.ok(), qPrintable(read.error));
    QCOMPARE(read.captures[0].rayNodes, QByteArray("{\"result\": true}"));
    QCOMPARE(read.captures[0].kubeContext, QStringLiteral("c"));
    QVERIFY(read.captures[0].kubePods.isEmpty());
}

QTEST_GUILESS_MAIN(TestCaptureFile)
#include "tst_capturefile.moc"
