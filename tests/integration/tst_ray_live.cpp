// SPDX-License-Identifier: GPL-3.0-or-later
// SliceScope against a real Ray: the cluster tests/integration/ray-harness.sh starts on 127.0.0.1
// (a head plus fake TPU hosts, token auth on). Through the real binary: `inspect --ray` finds the
// slices, token problems and a dead port fail with one clear line; in process: LiveRaySource
// emits complete captures, and a capture written from one inspects exactly like the live answer.
//
// The test finds the cluster through SLICESCOPE_RAY_DIR (the harness's DIR: dashboard-url, token).
// Without it the test fails in CI (CI=true) and skips, loudly, elsewhere.

#include "../common/rayharness.h"
#include "../common/clirun.h"
#include "capturefile.h"
#include "inspectjson.h"
#include "livesource.h"
#include "snapshot.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

using namespace slicescope;

namespace {

using Run = testing::CliRun;

// The fleet ray-harness.sh starts.
struct ExpectedSlice {
    const char *name;
    const char *generation;
    const char *topology;
    const char *podType;
    int hosts;
    int chipsPerHost;
};
constexpr ExpectedSlice kFleet[] = {
    {"tpu-v4-2x2x2-0", "v4", "2x2x2", "v4-16", 2, 4},
    {"tpu-v6e-2x4-0", "v6e", "2x4", "v6e-8", 1, 8},
    {"tpu-v6e-4x4-0", "v6e", "4x4", "v6e-16", 4, 4},
    {"tpu-v6e-4x4-1", "v6e", "4x4", "v6e-16", 4, 4},
};

using testing::readFile;

} // namespace

class TestRayLive : public QObject
{
    Q_OBJECT

    QString m_url;
    QByteArray m_token;
    QString m_tokenFile;
    QTemporaryDir m_home; // an empty HOME: no ~/.ray/auth_token unless a test puts one there

    // The binary with a clean environment: no token or address from the developer's shell.
    Run runSlicescope(const QStringList &args, const QMap<QString, QString> &extraEnv = {}) const
    {
        return testing::runCli(args, m_home.path(), extraEnv, 120000);
    }

    static void checkOneLineFailure(const Run &r, const QString &mentions)
    {
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.out.isEmpty(), r.out.constData());
        const QString err = QString::fromUtf8(r.err).trimmed();
        QVERIFY2(err.startsWith(QLatin1String("slicescope: ")) && !err.contains(u'\n'), qPrintable(err));
        QVERIFY2(err.contains(mentions), qPrintable(err));
    }

private Q_SLOTS:
    void initTestCase()
    {
        testing::RayHarness harness;
        SLICESCOPE_FIND_RAY_HARNESS(harness);
        m_url = harness.url;
        m_tokenFile = harness.tokenFile;
        m_token = harness.token;
        QVERIFY(m_home.isValid());
    }

    void inspectFindsTheSlices()
    {
        const Run r = runSlicescope({QStringLiteral("inspect"), QStringLiteral("--ray"), m_url, QStringLiteral("--ray-token-file"), m_tokenFile,
                                     QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.err.isEmpty(), r.err.constData());
        const QJsonObject doc = r.json();
        QCOMPARE(doc.value(QLatin1String("rayVersion")).toString(), QStringLiteral("2.60.0"));
        QCOMPARE(doc.value(QLatin1String("errors")).toArray().size(), 0);
        const QJsonArray slices = doc.value(QLatin1String("slices")).toArray();
        QCOMPARE(slices.size(), int(std::size(kFleet)));
        for (int i = 0; i < slices.size(); ++i) {
            const QJsonObject s = slices[i].toObject();
            const ExpectedSlice &want = kFleet[i]; // sorted by name, as inspect lists them
            QCOMPARE(s.value(QLatin1String("name")).toString(), QLatin1String(want.name));
            QCOMPARE(s.value(QLatin1String("generation")).toString(), QLatin1String(want.generation));
            QCOMPARE(s.value(QLatin1String("topology")).toString(), QLatin1String(want.topology));
            QCOMPARE(s.value(QLatin1String("podType")).toString(), QLatin1String(want.podType));
            QCOMPARE(s.value(QLatin1String("hostCount")).toInt(), want.hosts);
            QCOMPARE(s.value(QLatin1String("chipsPerHost")).toInt(), want.chipsPerHost);
            QCOMPARE(s.value(QLatin1String("chips")).toInt(), want.hosts * want.chipsPerHost);
            QCOMPARE(s.value(QLatin1String("source")).toString(), QStringLiteral("ray"));
            QVERIFY2(s.value(QLatin1String("intact")).toBool(), want.name);
            const QJsonArray hosts = s.value(QLatin1String("hosts")).toArray();
            QCOMPARE(hosts.size(), want.hosts);
            QSet<QString> nodeIds;
            for (int w = 0; w < hosts.size(); ++w) {
                const QJsonObject h = hosts[w].toObject();
                QCOMPARE(h.value(QLatin1String("workerId")).toInt(), w);
                QCOMPARE(h.value(QLatin1String("state")).toString(), QStringLiteral("ALIVE"));
                QCOMPARE(h.value(QLatin1String("chips")).toArray().size(), want.chipsPerHost);
                const QString nodeId = h.value(QLatin1String("rayNodeId")).toString();
                QCOMPARE(nodeId.size(), 56); // a Ray node id: 28 bytes of hex
                nodeIds.insert(nodeId);
            }
            QCOMPARE(nodeIds.size(), want.hosts); // one Ray node per host, though all share 127.0.0.1
        }
        QVERIFY(!r.out.contains(m_token));
    }

    void tokenProblems_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("env");        // NAME=VALUE for the process, or empty
        QTest::addColumn<QByteArray>("homeToken"); // written to $HOME/.ray/auth_token when set
        QTest::addColumn<QByteArray>("wrongToken");
        const QByteArray wrong = "0123456789abcdef-not-the-token";
        QTest::newRow("no token anywhere") << QStringList{} << QString() << QByteArray() << QByteArray();
        QTest::newRow("wrong --ray-token-file") << QStringList{QStringLiteral("--ray-token-file"), QStringLiteral("WRONG")} << QString() << QByteArray() << wrong;
        QTest::newRow("wrong RAY_AUTH_TOKEN") << QStringList{} << QStringLiteral("RAY_AUTH_TOKEN=") + QLatin1String(wrong) << QByteArray() << wrong;
        QTest::newRow("wrong ~/.ray/auth_token") << QStringList{} << QString() << wrong << wrong;
    }

    void tokenProblems()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, env);
        QFETCH(QByteArray, homeToken);
        QFETCH(QByteArray, wrongToken);
        QTemporaryDir scratch;
        const QString wrongFile = scratch.filePath(QStringLiteral("wrong-token"));
        QFile f(wrongFile);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(wrongToken + '\n');
        f.close();
        args.replaceInStrings(QStringLiteral("WRONG"), wrongFile);
        const QString homeTokenPath = m_home.filePath(QStringLiteral(".ray/auth_token"));
        if (!homeToken.isEmpty()) {
            QVERIFY(QDir(m_home.path()).mkpath(QStringLiteral(".ray")));
            QFile h(homeTokenPath);
            QVERIFY(h.open(QIODevice::WriteOnly));
            h.write(homeToken);
        }
        QMap<QString, QString> extra;
        if (!env.isEmpty())
            extra.insert(env.section(u'=', 0, 0), env.section(u'=', 1));
        const Run r = runSlicescope(QStringList{QStringLiteral("inspect"), QStringLiteral("--ray"), m_url, QStringLiteral("--json")} + args, extra);
        QFile::remove(homeTokenPath);
        checkOneLineFailure(r, QStringLiteral("token"));
        QVERIFY2(r.err.contains(m_url.toUtf8()), r.err.constData());
        // Neither the right token nor the wrong one may appear in what the user or a log sees.
        QVERIFY(!r.err.contains(m_token));
        if (!wrongToken.isEmpty())
            QVERIFY2(!r.err.contains(wrongToken), r.err.constData());
    }

    void theRightTokenFromEachPlace_data()
    {
        QTest::addColumn<QString>("where");
        QTest::newRow("RAY_AUTH_TOKEN") << QStringLiteral("env");
        QTest::newRow("RAY_AUTH_TOKEN_PATH") << QStringLiteral("path");
        QTest::newRow("~/.ray/auth_token") << QStringLiteral("home");
    }

    void theRightTokenFromEachPlace()
    {
        QFETCH(QString, where);
        QMap<QString, QString> extra;
        const QString homeTokenPath = m_home.filePath(QStringLiteral(".ray/auth_token"));
        if (where == QLatin1String("env"))
            extra.insert(QStringLiteral("RAY_AUTH_TOKEN"), QString::fromLatin1(m_token));
        else if (where == QLatin1String("path"))
            extra.insert(QStringLiteral("RAY_AUTH_TOKEN_PATH"), m_tokenFile);
        else {
            QVERIFY(QDir(m_home.path()).mkpath(QStringLiteral(".ray")));
            QVERIFY(QFile::copy(m_tokenFile, homeTokenPath));
        }
        const Run r = runSlicescope({QStringLiteral("inspect"), QStringLiteral("--ray"), m_url}, extra);
        QFile::remove(homeTokenPath);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.out.startsWith("4 slices"), r.out.constData());
    }

    void deadPortNamesTheUrl()
    {
        // A port nobody listens on: bind one, note it, let it go.
        QTcpServer probe;
        QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
        const QString url = QStringLiteral("http://127.0.0.1:%1").arg(probe.serverPort());
        probe.close();
        const Run r = runSlicescope({QStringLiteral("inspect"), QStringLiteral("--ray"), url, QStringLiteral("--ray-token-file"), m_tokenFile,
                                     QStringLiteral("--json")});
        checkOneLineFailure(r, url);
        QVERIFY2(r.err.contains("connection refused"), r.err.constData());
    }

    void notADashboard()
    {
        // Ray's GCS port answers, but not HTTP: the message must still name the URL.
        const QString gcs = QString::fromUtf8(readFile(qEnvironmentVariable("SLICESCOPE_RAY_DIR") + QStringLiteral("/gcs-address")));
        if (gcs.isEmpty())
            QSKIP("the harness wrote no gcs-address");
        const QString url = QStringLiteral("http://") + gcs;
        const Run r = runSlicescope({QStringLiteral("inspect"), QStringLiteral("--ray"), url, QStringLiteral("--ray-token-file"), m_tokenFile});
        checkOneLineFailure(r, url);
    }

    void liveSourceEmitsCapturesThatReinspectIdentically()
    {
        RayToken token;
        QCOMPARE(resolveRayToken(m_tokenFile, token), QString());
        LiveRaySource source(QUrl(m_url), token);
        QCOMPARE(source.description(), QStringLiteral("Ray at ") + m_url);
        source.setInterval(std::chrono::milliseconds(300));
        QSignalSpy captures(&source, &Source::captureReceived);
        QSignalSpy failures(&source, &Source::failed);
        source.start();
        QVERIFY(source.client()->isPolling());
        QTRY_VERIFY_WITH_TIMEOUT(captures.size() >= 3 || !failures.isEmpty(), 30000);
        QVERIFY2(failures.isEmpty(), qPrintable(failures.value(0).value(0).toString()));
        source.stop();
        QVERIFY(!source.client()->isPolling());
        QCOMPARE(source.client()->authenticationMode(), QStringLiteral("token"));
        QCOMPARE(source.client()->rayVersion(), QStringLiteral("2.60.0"));

        const Capture capture = captures.last().value(0).value<Capture>();
        QVERIFY(capture.capturedAt.isValid());
        for (const QByteArray *body : {&capture.rayVersion, &capture.rayNodes, &capture.rayPlacementGroups, &capture.rayJobs, &capture.rayClusterStatus}) {
            QVERIFY(!body->isEmpty());
            QVERIFY(!body->contains(m_token));
        }
        const SnapshotPtr snap = buildSnapshot(capture);
        QVERIFY2(snap->errors.isEmpty(), qPrintable(snap->errors.join(u'\n')));
        QCOMPARE(snap->slices.size(), qsizetype(std::size(kFleet)));
        QCOMPARE(snap->rayNodes.size(), qsizetype(12)); // the head and 11 TPU hosts

        // The one data path: what the live source saw, written and read back, inspects the same.
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("live.slicescope.json"));
        QCOMPARE(writeCaptureFile(path, capture), QString());
        QFile written(path);
        QVERIFY(written.open(QIODevice::ReadOnly));
        QVERIFY(!written.readAll().contains(m_token)); // tokens never reach captures
        const Run fromFile = runSlicescope({QStringLiteral("inspect"), QStringLiteral("--capture"), path, QStringLiteral("--json")});
        QVERIFY2(fromFile.exitCode == 0, fromFile.err.constData());
        QCOMPARE(fromFile.json(), inspectJson(*snap));

        // And a fresh live answer differs only in when it was taken (nothing changes in this fleet).
        const Run live = runSlicescope({QStringLiteral("inspect"), QStringLiteral("--ray"), m_url, QStringLiteral("--ray-token-file"), m_tokenFile,
                                        QStringLiteral("--json")});
        QVERIFY2(live.exitCode == 0, live.err.constData());
        // Chip activity (issue 15) is timed too: each sample's age, and the alerts' `since` (a fresh
        // engine dates them at its one capture); the values themselves must agree.
        const auto untimed = [](QJsonObject o) {
            o.remove(QLatin1String("capturedAt"));
            o.remove(QLatin1String("alerts"));
            QJsonArray slices = o.value(QLatin1String("slices")).toArray();
            for (qsizetype si = 0; si < slices.size(); ++si) {
                QJsonObject slice = slices[si].toObject();
                QJsonArray hosts = slice.value(QLatin1String("hosts")).toArray();
                for (qsizetype hi = 0; hi < hosts.size(); ++hi) {
                    QJsonObject host = hosts[hi].toObject();
                    QJsonArray chips = host.value(QLatin1String("chips")).toArray();
                    for (qsizetype ci = 0; ci < chips.size(); ++ci) {
                        QJsonObject chip = chips[ci].toObject();
                        QJsonObject activity = chip.value(QLatin1String("activity")).toObject();
                        activity.remove(QLatin1String("ageSeconds"));
                        if (chip.value(QLatin1String("activity")).isObject()) chip.insert(QStringLiteral("activity"), activity);
                        chips[ci] = chip;
                    }
                    host.insert(QStringLiteral("chips"), chips);
                    hosts[hi] = host;
                }
                slice.insert(QStringLiteral("hosts"), hosts);
                slices[si] = slice;
            }
            o.insert(QStringLiteral("slices"), slices);
            return o;
        };
        const QJsonObject a = untimed(live.json()), b = untimed(fromFile.json());
        QCOMPARE(a, b);
        QVERIFY(fromFile.json().value(QLatin1String("activity")).toObject().value(QLatin1String("reporting")).toInt() > 0); // Ray's reporter agents did report
    }

    void recordWritesThreeCapturesFromTheLiveRay()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString out = dir.filePath(QStringLiteral("live.slicescope.jsonl"));
        const Run r = runSlicescope({QStringLiteral("record"), QStringLiteral("--ray"), m_url, QStringLiteral("--ray-token-file"), m_tokenFile,
                                     QStringLiteral("--interval"), QStringLiteral("500ms"), QStringLiteral("--duration"), QStringLiteral("1.5s"),
                                     QStringLiteral("-o"), out, QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject summary = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(summary.value(QLatin1String("captures")).toInt(), 3);
        QCOMPARE(qint64(summary.value(QLatin1String("bytes")).toDouble()), QFileInfo(out).size());
        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray bytes = file.readAll();
        QVERIFY(!bytes.contains(m_token)); // tokens never enter a capture
        const CaptureReadResult read = readCaptureFile(out);
        QVERIFY2(read.ok(), qPrintable(read.error));
        QCOMPARE(read.captures.size(), 3);
        for (const Capture &c : read.captures) {
            const SnapshotPtr snap = buildSnapshot(c);
            QVERIFY2(snap->errors.isEmpty(), qPrintable(snap->errors.join(QStringLiteral("; "))));
            QCOMPARE(snap->slices.size(), 4);
        }
        QVERIFY(read.captures[0].capturedAt < read.captures[2].capturedAt);
    }
};

QTEST_GUILESS_MAIN(TestRayLive)
#include "tst_ray_live.moc"
