// SPDX-License-Identifier: GPL-3.0-or-later
// The headless verbs against hostile files and servers (issue 13), through the real binary: a FIFO
// or a device wherever a file is read, a dashboard that trickles one byte a second, redirects, cut
// bodies, control characters and 100 KB values in answers, a credential plugin stopped mid-run.
// Each ends in time, with exit 1 and one stderr line naming what failed.

#include "../common/clirun.h"
#include "../common/fakedashboard.h"
#include "../common/fakehttpserver.h"
#include "../model/capturefixture.h"

#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace slicescope;

namespace {

using Request = testing::HttpRequest;
using Response = testing::HttpResponse;

struct Run {
    int exitCode = -1;
    QString err;
    qint64 ms = 0;
};

// Runs the binary without blocking this test's event loop, so an in-process fake server answers.
Run runAsync(const QStringList &args, const QMap<QString, QString> &extraEnv = {}, int timeoutMs = 30000)
{
    const testing::CliRun r = testing::runCliAsync(QStringLiteral(SLICESCOPE_BINARY), args, extraEnv, timeoutMs);
    return {r.exitCode, QString::fromUtf8(r.err), r.ms};
}

// Exactly one line, "slicescope: ...", with no control character in it.
bool oneLine(const QString &err)
{
    if (!err.endsWith(u'\n') || err.count(u'\n') != 1 || !err.startsWith(QLatin1String("slicescope: ")))
        return false;
    for (qsizetype i = 0; i + 1 < err.size(); ++i) {
        if (err[i].unicode() < 0x20 || err[i].unicode() == 0x7f)
            return false;
    }
    return true;
}

Response dashboard(const Request &r)
{
    if (r.path == "/api/authentication_mode")
        return {200, R"({"authentication_mode": "disabled"})"};
    if (r.path == "/api/version")
        return {200, R"({"version": "4", "ray_version": "2.60.0", "ray_commit": "x", "session_name": "s"})"};
    if (r.path.startsWith("/api/v0/nodes") || r.path.startsWith("/api/v0/placement_groups"))
        return {200, R"({"result": true, "msg": "", "data": {"result": {"total": 0, "num_after_truncation": 0, "num_filtered": 0, "result": []}}})"};
    if (r.path == "/api/jobs/")
        return {200, "[]"};
    if (r.path.startsWith("/api/cluster_status"))
        return {200, R"({"result": true, "msg": "", "data": {"clusterStatus": "ok"}})"};
    return {404, "Not Found"};
}

bool writeFile(const QString &path, const QByteArray &data, bool executable = false)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(data) != data.size())
        return false;
    f.close();
    if (executable)
        f.setPermissions(f.permissions() | QFileDevice::ExeOwner);
    return true;
}

QByteArray kubeconfig(const QByteArray &cluster, const QByteArray &user)
{
    return "apiVersion: v1\nkind: Config\ncurrent-context: ctx\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:1\n" + cluster
           + "users:\n- name: u\n  user:\n" + user + "contexts:\n- name: ctx\n  context:\n    cluster: c\n    user: u\n";
}

} // namespace

class TestCliHostile : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_fifo;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_fifo = m_dir.filePath(QStringLiteral("fifo"));
        QCOMPARE(::mkfifo(QFile::encodeName(m_fifo).constData(), 0600), 0);
    }

    // Before: a FIFO blocked the verb forever (no writer ever comes), /dev/zero was read until
    // memory ran out. After: exit 1 at once, one line naming the file and what it is.
    void filesThatAreNotFiles_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QByteArray>("kubeconfigText"); // FIFO stands for the test's fifo (@F@ in the message)
        QTest::addColumn<QString>("says");
        const QStringList plan{QStringLiteral("plan"), QStringLiteral("--ray"), QStringLiteral("127.0.0.1:1"), QStringLiteral("--topology"),
                               QStringLiteral("4x4"), QStringLiteral("--accelerator"), QStringLiteral("v6e")};
        QTest::newRow("--ray-token-file /dev/zero") << plan + QStringList{QStringLiteral("--ray-token-file"), QStringLiteral("/dev/zero")} << QByteArray()
                                                    << QStringLiteral("--ray-token-file /dev/zero is a character device, not a regular file; not read");
        QTest::newRow("--ray-token-file FIFO") << plan + QStringList{QStringLiteral("--ray-token-file"), QStringLiteral("FIFO")} << QByteArray()
                                               << QStringLiteral("--ray-token-file @F@ is a FIFO (named pipe), not a regular file; not read");
        QTest::newRow("--capture FIFO") << QStringList{QStringLiteral("inspect"), QStringLiteral("--capture"), QStringLiteral("FIFO")} << QByteArray()
                                        << QStringLiteral("@F@: the file is a FIFO (named pipe), not a regular file; not read");
        QTest::newRow("--capture /dev/zero") << QStringList{QStringLiteral("inspect"), QStringLiteral("--capture"), QStringLiteral("/dev/zero")} << QByteArray()
                                             << QStringLiteral("/dev/zero: the file is a character device");
        QTest::newRow("--kubeconfig FIFO") << QStringList{QStringLiteral("inspect"), QStringLiteral("--kubeconfig"), QStringLiteral("FIFO")} << QByteArray()
                                           << QStringLiteral("kubeconfig @F@ is a FIFO (named pipe), not a regular file; not read");
        QTest::newRow("kubeconfig tokenFile FIFO") << QStringList{QStringLiteral("inspect")} << kubeconfig({}, "    tokenFile: FIFO\n")
                                                   << QStringLiteral("user \"u\": the token file @F@ is a FIFO (named pipe)");
        QTest::newRow("kubeconfig CA FIFO") << QStringList{QStringLiteral("inspect")} << kubeconfig("    certificate-authority: FIFO\n", "    token: abc\n")
                                            << QStringLiteral("certificate-authority @F@ is a FIFO (named pipe)");
        QTest::newRow("kubeconfig client certificate FIFO") << QStringList{QStringLiteral("inspect")}
                                                            << kubeconfig({}, "    client-certificate: FIFO\n    client-key: FIFO\n")
                                                            << QStringLiteral("client-certificate @F@ is a FIFO (named pipe)");
        QTest::newRow("serve --token-file FIFO") << QStringList{QStringLiteral("serve"), QStringLiteral("--demo"), QStringLiteral("--token-file"), QStringLiteral("FIFO")}
                                                 << QByteArray() << QStringLiteral("--token-file @F@ is a FIFO (named pipe), not a regular file; not read");
        QTest::newRow("RAY_AUTH_TOKEN_PATH /dev/zero") << plan << QByteArray()
                                                       << QStringLiteral("RAY_AUTH_TOKEN_PATH /dev/zero is a character device, not a regular file; not read");
    }

    void filesThatAreNotFiles()
    {
        QFETCH(QStringList, args);
        QFETCH(QByteArray, kubeconfigText);
        QFETCH(QString, says);
        for (QString &a : args) {
            if (a == QLatin1String("FIFO"))
                a = m_fifo;
        }
        QMap<QString, QString> env;
        if (QLatin1String(QTest::currentDataTag()) == QLatin1String("RAY_AUTH_TOKEN_PATH /dev/zero"))
            env.insert(QStringLiteral("RAY_AUTH_TOKEN_PATH"), QStringLiteral("/dev/zero"));
        if (!kubeconfigText.isEmpty()) {
            const QString path = m_dir.filePath(QStringLiteral("kubeconfig"));
            QVERIFY(writeFile(path, kubeconfigText.replace("FIFO", m_fifo.toUtf8())));
            args << QStringLiteral("--kubeconfig") << path;
        }
        const Run r = runAsync(args, env, 20000);
        qInfo("%s: exit %d after %lld ms: %s", QTest::currentDataTag(), r.exitCode, r.ms, qPrintable(r.err.trimmed()));
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(oneLine(r.err), qPrintable(r.err));
        QVERIFY2(r.err.contains(says.replace(QLatin1String("@F@"), m_fifo)), qPrintable(r.err));
        QVERIFY2(r.ms < 10000, qPrintable(QString::number(r.ms)));
    }

    // Before: a dashboard trickling one byte a second kept `inspect` waiting as long as it liked
    // (every byte reset the idle timer). After: exit 1 when the deadline passes, naming the URL.
    void aTricklingDashboardMeetsTheDeadline()
    {
        testing::FakeHttpServer server;
        server.script = [](const Request &r) {
            Response answer = dashboard(r);
            if (r.path.startsWith("/api/v0/nodes"))
                answer.trickleMs = 1000;
            return answer;
        };
        const Run r = runAsync({QStringLiteral("inspect"), QStringLiteral("--ray"), server.url().toString(), QStringLiteral("--timeout"),
                                QStringLiteral("3"), QStringLiteral("--json")});
        qInfo("trickle: exit %d after %lld ms: %s", r.exitCode, r.ms, qPrintable(r.err.trimmed()));
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(oneLine(r.err), qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("GET %1/api/v0/nodes?detail=true&limit=10000: the answer did not complete within 3 s").arg(server.url().toString())),
                 qPrintable(r.err));
        QVERIFY2(r.ms >= 2900 && r.ms < 10000, qPrintable(QString::number(r.ms)));
    }

    // A server that takes the request and never answers: the idle bound, or --timeout if sooner.
    void aSilentDashboardMeetsTheDeadline()
    {
        testing::FakeHttpServer server;
        server.script = [](const Request &r) {
            Response answer = dashboard(r);
            answer.stall = r.path == "/api/version";
            return answer;
        };
        const Run r = runAsync({QStringLiteral("inspect"), QStringLiteral("--ray"), server.url().toString(), QStringLiteral("--timeout"),
                                QStringLiteral("2"), QStringLiteral("--json")});
        qInfo("silent: exit %d after %lld ms: %s", r.exitCode, r.ms, qPrintable(r.err.trimmed()));
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(oneLine(r.err), qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("GET %1/api/version").arg(server.url().toString())), qPrintable(r.err));
        QVERIFY(r.ms < 10000);
    }

    // Messages that misled (before: "HTTP 302 X", "HTTP 200 OK (the server said ...)", raw
    // escape sequences and a 100 KB line on stderr).
    void answersThatMisled_data()
    {
        QTest::addColumn<int>("status");
        QTest::addColumn<QByteArray>("reason");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<qint64>("contentLength");
        QTest::addColumn<QByteArray>("location");
        QTest::addColumn<QString>("says");
        QTest::newRow("redirect") << 302 << QByteArray("Found") << QByteArray() << qint64(-1) << QByteArray("https://elsewhere.example/x")
                                  << QStringLiteral("/api/version: HTTP 302 Found: redirects are refused (to https://elsewhere.example/x)");
        QTest::newRow("cut body") << 200 << QByteArray("OK") << QByteArray("{\"version\": \"4\", \"ray_") << qint64(1000) << QByteArray()
                                  << QStringLiteral("/api/version: HTTP 200 OK, but the body was cut short after 22 of 1000 bytes");
        QTest::newRow("escape sequences") << 500 << QByteArray("Internal Server Error") << QByteArray("\x1b[2J\x1b[31mboom\x07\r\nTraceback") << qint64(-1)
                                          << QByteArray() << QStringLiteral("(the server said \"\\x1b[2J\\x1b[31mboom\\x07\")");
        QTest::newRow("100 KB value") << 500 << QByteArray("Internal Server Error") << QByteArray(100 * 1024, 'v') << qint64(-1) << QByteArray()
                                      << QStringLiteral("vvv...\")");
    }

    void answersThatMisled()
    {
        QFETCH(int, status);
        QFETCH(QByteArray, reason);
        QFETCH(QByteArray, body);
        QFETCH(qint64, contentLength);
        QFETCH(QByteArray, location);
        QFETCH(QString, says);
        testing::FakeHttpServer server;
        server.script = [&](const Request &r) {
            if (r.path != "/api/version")
                return dashboard(r);
            Response answer{status, body};
            answer.reason = reason;
            answer.contentLength = contentLength;
            if (!location.isEmpty())
                answer.headers.append({QByteArrayLiteral("Location"), location});
            return answer;
        };
        const Run r = runAsync({QStringLiteral("inspect"), QStringLiteral("--ray"), server.url().toString(), QStringLiteral("--json")});
        qInfo("%s: %s", QTest::currentDataTag(), qPrintable(r.err.trimmed().left(300)));
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(oneLine(r.err), qPrintable(r.err.left(400)));
        QVERIFY2(r.err.contains(says), qPrintable(r.err.left(400)));
        QVERIFY2(!r.err.contains(QLatin1String("HTTP 200 OK (the server said")), qPrintable(r.err));
        QVERIFY2(r.err.size() < 600, qPrintable(QString::number(r.err.size())));
    }

    // Issue 30, item 12: escape sequences in what servers say (a slice name holding an OSC title
    // sequence, a Prometheus label value and error string holding CSI sequences) reach stdout in
    // inspect, plan and alerts text output. Before: raw, ESC and BEL bytes and all. After: shown
    // by the one sanitiser (\x1b, \x07), so no control byte reaches the terminal.
    void serverTextReachesTheTerminalEscaped()
    {
        const QString evilA = QStringLiteral("tpu-\x1b]0;owned\x07"
                                             "a");
        const QString evilB = QStringLiteral("tpu-\x1b[31mb");
        testfixture::CaptureBuilder b;
        b.addHeadNode(QStringLiteral("head0"), QStringLiteral("10.0.0.1"));
        b.addSlice({evilA, QStringLiteral("TPU-V6E"), QStringLiteral("v6e-16"), QStringLiteral("4x4"), {}, 4, 4, {2}, {}, {}, {}}); // worker 2 dead
        b.addSlice({evilB, QStringLiteral("TPU-V6E"), QStringLiteral("v6e-16"), QStringLiteral("4x4"), {}, 4, 4, {}, {}, {}, {}});
        const Capture world = b.capture(false);
        testing::FakeHttpServer ray, prometheus;
        ray.script = [&](const Request &r) {
            return testing::dashboardFor(world, r);
        };
        prometheus.script = [](const Request &r) -> Response {
            if (r.path.contains("offset")) // the window query: an error string with a CSI sequence
                return {400, R"({"status":"error","errorType":"bad_data","error":"\u001b[2Jwiped\u0007"})"};
            return {200, R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"__name__":"ray_tpu_duty_cycle","instance":"\u001b]8;;x\u0007evil:8080","TpuIndex":"0"},"value":[1764439200,"5"]}]}})"};
        };
        const QStringList source{QStringLiteral("--ray"), ray.url().toString(), QStringLiteral("--prometheus"), prometheus.url().toString()};
        const QList<QStringList> verbs{
            QStringList{QStringLiteral("inspect")} + source,
            QStringList{QStringLiteral("plan"), QStringLiteral("--topology"), QStringLiteral("4x4"), QStringLiteral("--accelerator"), QStringLiteral("v6e")} + source,
            QStringList{QStringLiteral("alerts")} + source,
        };
        for (const QStringList &args : verbs) {
            const testing::CliRun r = testing::runCliAsync(QStringLiteral(SLICESCOPE_BINARY), args, {}, 30000);
            const QString out = QString::fromUtf8(r.out);
            qInfo("%s: exit %d, %lld bytes out", qPrintable(args.first()), r.exitCode, qint64(r.out.size()));
            QVERIFY2(r.exitCode >= 0 && !r.out.isEmpty(), r.err.constData());
            for (const QByteArray &control : {QByteArray("\x1b"), QByteArray("\x07"), QByteArray("\xc2\x9b")}) // ESC, BEL, CSI (C1)
                QVERIFY2(!r.out.contains(control) && !r.err.contains(control), qPrintable(args.first() + QStringLiteral(": ") + QString::fromUtf8(r.out.toPercentEncoding(" \n"))));
            if (args.first() == QLatin1String("inspect")) {
                QVERIFY2(out.contains(QLatin1String("tpu-\\x1b]0;owned\\x07a")) && out.contains(QLatin1String("tpu-\\x1b[31mb")), qPrintable(out));
                QVERIFY2(out.contains(QLatin1String("\\x1b[2Jwiped\\x07")), qPrintable(out));          // the error string
                QVERIFY2(out.contains(QLatin1String("\\x1b]8;;x\\x07evil:8080")), qPrintable(out)); // the label value
            } else if (args.first() == QLatin1String("plan")) {
                QVERIFY2(out.contains(QLatin1String("would take tpu-\\x1b[31mb")), qPrintable(out));
            } else {
                QVERIFY2(out.contains(QLatin1String("tpu-\\x1b]0;owned\\x07a")), qPrintable(out));
            }
        }
    }

    // Before: a credential plugin stopped for printing too much was destroyed still running when
    // the verb exited on that error: "QProcess: Destroyed while process ... is still running."
    // followed the verb's line. After: one line, with Qt's warnings let through (SLICESCOPE_DEBUG)
    // or not.
    void aStoppedCredentialPluginLeavesOneLine_data()
    {
        QTest::addColumn<bool>("debug");
        QTest::newRow("SLICESCOPE_DEBUG=1") << true;
        QTest::newRow("quiet") << false;
    }

    void aStoppedCredentialPluginLeavesOneLine()
    {
        QFETCH(bool, debug);
        const QString plugin = m_dir.filePath(QStringLiteral("plugin.sh"));
        QVERIFY(writeFile(plugin, "#!/bin/sh\nhead -c 2000000 /dev/zero | tr '\\0' x\nexec sleep 30\n", true));
        const QString path = m_dir.filePath(QStringLiteral("kubeconfig-exec"));
        QVERIFY(writeFile(path, kubeconfig({}, "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      interactiveMode: Never\n      command: "
                                                   + plugin.toUtf8() + "\n")));
        QMap<QString, QString> env;
        if (debug)
            env.insert(QStringLiteral("SLICESCOPE_DEBUG"), QStringLiteral("1"));
        const Run r = runAsync({QStringLiteral("inspect"), QStringLiteral("--kubeconfig"), path, QStringLiteral("--json")}, env);
        qInfo("plugin: exit %d after %lld ms: %s", r.exitCode, r.ms, qPrintable(r.err.trimmed()));
        QCOMPARE(r.exitCode, 1);
        // SLICESCOPE_DEBUG=1 also turns the debug log on (model/logging.h): its lines are the
        // story of the lists; what is left besides them is the verb's one line.
        QString verbLines = r.err;
        if (debug) {
            static const QRegularExpression debugLine(QStringLiteral("^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} slicescope\\.(ray|kube|relay|history): [^\\n]*\\n"),
                                                      QRegularExpression::MultilineOption);
            QVERIFY2(r.err.contains(QLatin1String(" slicescope.kube: rayclusters in namespace default: listing (list 1")), qPrintable(r.err));
            verbLines.remove(debugLine);
        }
        QVERIFY2(oneLine(verbLines), qPrintable(r.err));
        QVERIFY2(r.err.contains(QLatin1String("printed more than")), qPrintable(r.err));
        QVERIFY2(!r.err.contains(QLatin1String("QProcess")), qPrintable(r.err));
        QVERIFY(r.ms < 20000);
    }
};

QTEST_GUILESS_MAIN(TestCliHostile)
#include "tst_cli_hostile.moc"
