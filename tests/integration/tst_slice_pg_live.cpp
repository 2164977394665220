// SPDX-License-Identifier: GPL-3.0-or-later
// Creating and releasing TPU slice placement groups through Ray jobs, end to end against the real
// Ray that tests/integration/ray-harness.sh starts (two v6e 4x4 slices, a v4 2x2x2, a v6e 2x4
// single host; token auth on). Everything goes through the real binary's verbs
// (`submit-slice-pg`, `release-pg`, `inspect --ray`); the state of Ray is read back through the
// dashboard, never assumed. Every group a test creates is released in cleanup(), even when the
// test failed half way, so one failure does not cascade into the next test.
//
// The test finds the cluster through SLICESCOPE_RAY_DIR (the harness's DIR: dashboard-url, token).
// Without it the test fails in CI (CI=true) and skips, loudly, elsewhere.

#include "../common/rayharness.h"
#include "../common/clirun.h"
#include "livesource.h"
#include "rayclient.h"
#include "snapshot.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace slicescope;

namespace {

using Run = testing::CliRun;

using testing::readFile;

QStringList strings(const QJsonValue &array)
{
    QStringList out;
    for (const QJsonValue &v : array.toArray())
        out << v.toString();
    return out;
}

} // namespace

class TestSlicePgLive : public QObject
{
    Q_OBJECT

    QString m_url;
    QByteArray m_token;
    QString m_tokenFile;
    QTemporaryDir m_home;
    QStringList m_toRelease; // names of groups a test created, released in cleanup()

    Run runSlicescope(const QStringList &args) const
    {
        return testing::runCli(args, m_home.path());
    }

    QStringList ray() const { return {QStringLiteral("--ray"), m_url, QStringLiteral("--ray-token-file"), m_tokenFile}; }

    Run submit(const QString &name, const QString &topology, const QStringList &extra = {})
    {
        m_toRelease << name;
        return runSlicescope(QStringList{QStringLiteral("submit-slice-pg")} + ray() + QStringList{QStringLiteral("--topology"), topology, QStringLiteral("--accelerator"), QStringLiteral("v6e"), QStringLiteral("--name"), name, QStringLiteral("--json")} + extra);
    }

    Run release(const QString &nameOrId, const QStringList &extra = {}) const
    {
        return runSlicescope(QStringList{QStringLiteral("release-pg")} + ray() + QStringList{nameOrId, QStringLiteral("--json")} + extra);
    }

    QJsonObject inspect() const
    {
        const Run r = runSlicescope(QStringList{QStringLiteral("inspect")} + ray() + QStringList{QStringLiteral("--json")});
        if (r.exitCode != 0)
            qWarning("inspect failed: %s", r.err.constData());
        return r.json();
    }

    static QJsonObject sliceNamed(const QJsonObject &inspected, const QString &name)
    {
        for (const QJsonValue &v : inspected.value(QLatin1String("slices")).toArray())
            if (v.toObject().value(QLatin1String("name")).toString() == name)
                return v.toObject();
        return {};
    }

    // One GET through the product's own client (the test runs the event loop with QTRY).
    QByteArray rayGet(const QString &path)
    {
        RayClient client{QUrl(m_url)};
        client.setToken({m_token, QStringLiteral("test")});
        bool done = false;
        QString error;
        QByteArray body;
        client.request(QByteArrayLiteral("GET"), path, QByteArray(), [&](const QString &e, int, const QByteArray &b) {
            error = e;
            body = b;
            done = true;
        });
        if (!QTest::qWaitFor([&] { return done; }, 30000))
            qWarning("GET %s: no answer", qPrintable(path));
        if (!error.isEmpty())
            qWarning("%s", qPrintable(error));
        return body;
    }

    // The state of the live (not REMOVED) group of that name in the state API, or "".
    QString groupState(const QString &name)
    {
        const QJsonArray items = QJsonDocument::fromJson(rayGet(QStringLiteral("api/v0/placement_groups?detail=true&limit=10000")))
                                     .object()
                                     .value(QLatin1String("data"))
                                     .toObject()
                                     .value(QLatin1String("result"))
                                     .toObject()
                                     .value(QLatin1String("result"))
                                     .toArray();
        for (const QJsonValue &v : items) {
            const QJsonObject g = v.toObject();
            if (g.value(QLatin1String("name")).toString() == name && g.value(QLatin1String("state")).toString() != QLatin1String("REMOVED"))
                return g.value(QLatin1String("state")).toString();
        }
        return {};
    }

    static void checkAllReady(const QJsonObject &inspected)
    {
        for (const QJsonValue &v : inspected.value(QLatin1String("slices")).toArray()) {
            const QJsonObject s = v.toObject();
            QVERIFY2(s.value(QLatin1String("reservedChips")).toInt() == 0, qPrintable(s.value(QLatin1String("name")).toString()));
            QVERIFY2(s.value(QLatin1String("headReservedBy")).isNull(), qPrintable(s.value(QLatin1String("name")).toString()));
        }
        QCOMPARE(inspected.value(QLatin1String("placementGroups")).toArray().size(), 0);
    }

    // A created group as the verb reported it: CREATED, on whole slices of 4 (or 1) hosts.
    void checkCreated(const Run &r, const QString &name, int hosts)
    {
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(!r.out.contains(m_token) && !r.err.contains(m_token));
        const QJsonObject j = r.json();
        QCOMPARE(j.value(QLatin1String("name")).toString(), name);
        QCOMPARE(j.value(QLatin1String("state")).toString(), QStringLiteral("CREATED"));
        QCOMPARE(j.value(QLatin1String("placementGroupId")).toString().size(), 36);
        QVERIFY(j.value(QLatin1String("jobId")).toString().startsWith(QLatin1String("slicescope-")));
        const QStringList slices = strings(j.value(QLatin1String("slices")));
        QCOMPARE(slices.size(), 1);
        const QJsonArray bundles = j.value(QLatin1String("bundles")).toArray();
        QCOMPARE(bundles.size(), hosts);
        QSet<int> workers;
        for (const QJsonValue &b : bundles) {
            QCOMPARE(b.toObject().value(QLatin1String("slice")).toString(), slices.first());
            workers.insert(b.toObject().value(QLatin1String("workerId")).toInt());
        }
        QCOMPARE(workers.size(), hosts); // one bundle on each host of the slice
        // The exact job it submitted: the fixed entrypoint, the request as data.
        const QJsonObject job = j.value(QLatin1String("job")).toObject();
        QCOMPARE(job.value(QLatin1String("entrypoint")).toString(), QStringLiteral("python slice_pg_driver.py"));
        QVERIFY(job.value(QLatin1String("runtime_env")).toObject().value(QLatin1String("working_dir")).toString().startsWith(QLatin1String("gcs://_ray_pkg_")));
        // What every poll of GET /api/jobs/ carries for this job stays small: the driver is in
        // its package, not in the job's runtime_env.
        for (const QJsonValue &v : QJsonDocument::fromJson(rayGet(QStringLiteral("api/jobs/"))).array()) {
            if (v.toObject().value(QLatin1String("submission_id")).toString() == j.value(QLatin1String("jobId")).toString()) {
                const qsizetype size = QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact).size();
                QVERIFY2(size < 2048, qPrintable(QStringLiteral("%1 bytes in the jobs list").arg(size)));
            }
        }
        QCOMPARE(job.value(QLatin1String("submission_id")).toString(), j.value(QLatin1String("jobId")).toString());
        QCOMPARE(job.value(QLatin1String("metadata")).toObject().value(QLatin1String("slicescope")).toString(), QStringLiteral("slice-pg"));
        QCOMPARE(job.value(QLatin1String("request")).toObject().value(QLatin1String("name")).toString(), name);
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
        // Start from a fleet nobody holds, or every count below is off. An earlier run that was
        // killed half way may have left its groups (all named sst-...): release those first.
        const QJsonArray items = QJsonDocument::fromJson(rayGet(QStringLiteral("api/v0/placement_groups?detail=true&limit=10000")))
                                     .object()
                                     .value(QLatin1String("data"))
                                     .toObject()
                                     .value(QLatin1String("result"))
                                     .toObject()
                                     .value(QLatin1String("result"))
                                     .toArray();
        for (const QJsonValue &v : items) {
            const QJsonObject g = v.toObject();
            if (g.value(QLatin1String("name")).toString().startsWith(QLatin1String("sst-")) && g.value(QLatin1String("state")).toString() != QLatin1String("REMOVED")) {
                qWarning("releasing %s, left by an earlier run", qPrintable(g.value(QLatin1String("name")).toString()));
                release(g.value(QLatin1String("placement_group_id")).toString(), {QStringLiteral("--force")});
            }
        }
        checkAllReady(inspect());
    }

    void cleanup()
    {
        // Whatever a test left behind (a failure half way) goes, so the next test starts clean.
        for (const QString &name : std::as_const(m_toRelease)) {
            const Run r = release(name, {QStringLiteral("--force")});
            if (r.exitCode == 0)
                qWarning("cleanup released %s", qPrintable(name));
        }
        m_toRelease.clear();
    }

    void badTopologyIsRefusedBeforeAnythingIsSubmitted()
    {
        const int jobsBefore = int(QJsonDocument::fromJson(rayGet(QStringLiteral("api/jobs/"))).array().size());
        const Run r = submit(QStringLiteral("sst-3x3"), QStringLiteral("3x3")); // Ray 2.60 accepts v6e 2x8, not 3x3
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.out.isEmpty());
        const QString err = QString::fromUtf8(r.err).trimmed();
        QVERIFY2(!err.contains(u'\n') && err.contains(QLatin1String("3x3 is not a v6e topology")), qPrintable(err));
        QCOMPARE(int(QJsonDocument::fromJson(rayGet(QStringLiteral("api/jobs/"))).array().size()), jobsBefore);
    }

    void submitReservesOneWholeSliceAndReleaseFreesIt()
    {
        const Run r = submit(QStringLiteral("sst-one"), QStringLiteral("4x4"), {QStringLiteral("--wait"), QStringLiteral("60")});
        checkCreated(r, QStringLiteral("sst-one"), 4);
        const QJsonObject created = r.json();
        const QString id = created.value(QLatin1String("placementGroupId")).toString();
        const QString slice = strings(created.value(QLatin1String("slices"))).first();
        const QStringList heads = strings(created.value(QLatin1String("headPlacementGroups")));
        QCOMPARE(heads.size(), 1);
        // The plan and the job were shown before submitting.
        QVERIFY2(r.err.contains("plan: v6e 4x4 x1 fits") && r.err.contains("submitting Ray job slicescope-"), r.err.constData());

        // What SliceScope's own read path now sees: 16 chips of that slice held by the group, its head by the head group.
        const QJsonObject seen = inspect();
        const QJsonObject s = sliceNamed(seen, slice);
        QCOMPARE(s.value(QLatin1String("reservedChips")).toInt(), 16);
        QCOMPARE(s.value(QLatin1String("headReservedBy")).toString(), heads.first());
        for (const QJsonValue &h : s.value(QLatin1String("hosts")).toArray())
            for (const QJsonValue &c : h.toObject().value(QLatin1String("chips")).toArray())
                QCOMPARE(c.toObject().value(QLatin1String("placementGroup")).toString(), id);
        const QString other = slice.endsWith(u'0') ? QStringLiteral("tpu-v6e-4x4-1") : QStringLiteral("tpu-v6e-4x4-0");
        QCOMPARE(sliceNamed(seen, other).value(QLatin1String("reservedChips")).toInt(), 0);

        const Run rel = release(QStringLiteral("sst-one"));
        QVERIFY2(rel.exitCode == 0, rel.err.constData());
        const QJsonObject released = rel.json();
        QCOMPARE(released.value(QLatin1String("state")).toString(), QStringLiteral("REMOVED"));
        QCOMPARE(released.value(QLatin1String("action")).toString(), QStringLiteral("stop-job"));
        QCOMPARE(released.value(QLatin1String("placementGroupId")).toString(), id);
        QVERIFY2(rel.err.contains("stopping Ray job " + created.value(QLatin1String("jobId")).toString().toUtf8()), rel.err.constData());
        m_toRelease.clear();
        checkAllReady(inspect()); // the slice is ready again, its head free
    }

    void threeSlicesWhenTwoExistFailAndLeaveNothing()
    {
        // The planner refuses first: nothing is submitted.
        const Run refused = submit(QStringLiteral("sst-three"), QStringLiteral("4x4"), {QStringLiteral("--num-slices"), QStringLiteral("3")});
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.lastErrLine().contains(QLatin1String("does not fit")) && refused.lastErrLine().contains(QLatin1String("nothing submitted")),
                 refused.err.constData());
        QVERIFY2(!refused.err.contains("submitting Ray job"), refused.err.constData());

        // Forced, Ray itself says why: its head reservation for the third slice times out.
        const Run forced = submit(QStringLiteral("sst-three"), QStringLiteral("4x4"),
                                  {QStringLiteral("--num-slices"), QStringLiteral("3"), QStringLiteral("--wait"), QStringLiteral("6"), QStringLiteral("--force")});
        QCOMPARE(forced.exitCode, 1);
        QVERIFY(forced.out.isEmpty());
        const QString why = forced.lastErrLine();
        QVERIFY2(why.contains(QLatin1String("no free slice head within 6 s")) && why.contains(QLatin1String("Failed to reserve TPU head")), qPrintable(why));
        QVERIFY2(why.contains(QLatin1String("job slicescope-")), qPrintable(why));
        // Ray gave back what it had reserved for the first two slices.
        checkAllReady(inspect());
    }

    void twoGroupsOneAfterTheOtherTakeTheTwoSlicesAndAThirdFails()
    {
        // Submitted one after the other, the second must go to the slice the first left free:
        // SliceScope does not pick the slice, Ray does (through the head resource), so this is
        // Ray's behaviour as SliceScope reports it.
        QElapsedTimer clock;
        clock.start();
        const Run a = submit(QStringLiteral("sst-a"), QStringLiteral("4x4"), {QStringLiteral("--wait"), QStringLiteral("60")});
        checkCreated(a, QStringLiteral("sst-a"), 4);
        const Run b = submit(QStringLiteral("sst-b"), QStringLiteral("4x4"), {QStringLiteral("--wait"), QStringLiteral("60")});
        checkCreated(b, QStringLiteral("sst-b"), 4);
        const QString idA = a.json().value(QLatin1String("placementGroupId")).toString();
        const QString idB = b.json().value(QLatin1String("placementGroupId")).toString();
        const QString sliceA = strings(a.json().value(QLatin1String("slices"))).first();
        const QString sliceB = strings(b.json().value(QLatin1String("slices"))).first();
        QVERIFY2(sliceA != sliceB, qPrintable(sliceA));
        QCOMPARE(QSet<QString>({sliceA, sliceB}), QSet<QString>({QStringLiteral("tpu-v6e-4x4-0"), QStringLiteral("tpu-v6e-4x4-1")}));

        // What `inspect --ray` sees: each slice 16/16 held by its own group, one bundle per host.
        auto checkBoth = [&](const QJsonObject &seen) {
            for (const auto &[slice, id] : {std::pair{sliceA, idA}, std::pair{sliceB, idB}}) {
                const QJsonObject s = sliceNamed(seen, slice);
                QCOMPARE(s.value(QLatin1String("reservedChips")).toInt(), 16);
                const QJsonArray hosts = s.value(QLatin1String("hosts")).toArray();
                QCOMPARE(hosts.size(), 4);
                QSet<int> bundles;
                for (const QJsonValue &h : hosts) {
                    const QJsonArray chips = h.toObject().value(QLatin1String("chips")).toArray();
                    QCOMPARE(chips.size(), 4);
                    for (const QJsonValue &c : chips)
                        QCOMPARE(c.toObject().value(QLatin1String("placementGroup")).toString(), id);
                    bundles.insert(chips.first().toObject().value(QLatin1String("bundleIndex")).toInt());
                }
                QCOMPARE(bundles, QSet<int>({0, 1, 2, 3})); // 4 bundles, one on each of its 4 hosts
            }
            QCOMPARE(sliceNamed(seen, QStringLiteral("tpu-v4-2x2x2-0")).value(QLatin1String("reservedChips")).toInt(), 0);
            QCOMPARE(sliceNamed(seen, QStringLiteral("tpu-v6e-2x4-0")).value(QLatin1String("reservedChips")).toInt(), 0);
        };
        const QJsonObject seen = inspect();
        checkBoth(seen);
        if (QTest::currentTestFailed())
            return;
        const qsizetype groupsBefore = seen.value(QLatin1String("placementGroups")).toArray().size();

        // A third: the planner refuses it before anything is submitted.
        const int jobsBefore = int(QJsonDocument::fromJson(rayGet(QStringLiteral("api/jobs/"))).array().size());
        const Run refused = submit(QStringLiteral("sst-c"), QStringLiteral("4x4"));
        QCOMPARE(refused.exitCode, 1);
        QVERIFY(refused.out.isEmpty());
        QVERIFY2(refused.lastErrLine().contains(QLatin1String("does not fit")) && refused.lastErrLine().contains(QLatin1String("nothing submitted")),
                 refused.err.constData());
        QVERIFY2(!refused.err.contains("submitting Ray job"), refused.err.constData());
        QCOMPARE(int(QJsonDocument::fromJson(rayGet(QStringLiteral("api/jobs/"))).array().size()), jobsBefore);

        // Forced, Ray's own reason comes back: no slice head frees up within the wait.
        const Run forced = submit(QStringLiteral("sst-c"), QStringLiteral("4x4"),
                                  {QStringLiteral("--wait"), QStringLiteral("5"), QStringLiteral("--force")});
        QCOMPARE(forced.exitCode, 1);
        QVERIFY(forced.out.isEmpty());
        const QString why = forced.lastErrLine();
        QVERIFY2(why.contains(QLatin1String("no free slice head within 5 s")) && why.contains(QLatin1String("Failed to reserve TPU head")), qPrintable(why));
        qInfo("the forced third group failed with: %s", qPrintable(why));
        // It left nothing: no group of that name, and the two slices exactly as before.
        QVERIFY2(groupState(QStringLiteral("sst-c")).isEmpty(), qPrintable(groupState(QStringLiteral("sst-c"))));
        const QJsonObject after = inspect();
        checkBoth(after);
        QCOMPARE(after.value(QLatin1String("placementGroups")).toArray().size(), groupsBefore);
        m_toRelease.removeAll(QStringLiteral("sst-c")); // nothing to release: do not spend a run on it

        for (const QString &name : {QStringLiteral("sst-a"), QStringLiteral("sst-b")}) {
            const Run rel = release(name);
            QVERIFY2(rel.exitCode == 0, rel.err.constData());
            QCOMPARE(rel.json().value(QLatin1String("state")).toString(), QStringLiteral("REMOVED"));
            m_toRelease.removeAll(name);
        }
        checkAllReady(inspect());
        qInfo("two slices, a refused and a failed third, two releases: %.1f s", double(clock.elapsed()) / 1000.0);
    }

    // A figure for the notes: from the moment the state API shows a group CREATED to the first
    // snapshot of the live source (polling every 2 s, as the window does) whose chips show it
    // reserved. The state API is watched every 100 ms to catch the CREATED moment.
    void createdToChipsLatency()
    {
        // Declared before the source and the client: handlers still pending when they go away
        // are dropped with them, never run against these.
        QString watched;
        QElapsedTimer clock;
        qint64 seenAt = -1;
        qint64 createdAt = -1;
        bool inFlight = false;
        int polls = 0;
        QList<double> latencies;
        LiveRaySource source{QUrl(m_url), RayToken{m_token, QStringLiteral("test")}};
        connect(&source, &Source::captureReceived, this, [&](const Capture &capture) {
            ++polls;
            if (watched.isEmpty() || seenAt >= 0)
                return;
            const SnapshotPtr snap = buildSnapshot(capture);
            const int g = snap->placementGroupIndex(watched);
            if (g < 0)
                return;
            int chips = 0;
            for (const Slice &slice : snap->slices)
                for (const Host &h : slice.hosts)
                    for (const ChipUse &c : h.chips)
                        chips += c.placementGroup == g;
            if (chips == 16)
                seenAt = clock.elapsed();
        });
        source.start();
        QTRY_VERIFY_WITH_TIMEOUT(polls > 0, 30000);

        RayClient watcher{QUrl(m_url)};
        watcher.setToken({m_token, QStringLiteral("test")});
        for (int run = 0; run < 5; ++run) {
            const QString name = QStringLiteral("sst-lat-%1").arg(run);
            m_toRelease << name;
            watched = name;
            seenAt = -1;
            createdAt = -1;
            clock.restart();
            QProcess submitter;
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert(QStringLiteral("HOME"), m_home.path());
            env.remove(QStringLiteral("RAY_AUTH_TOKEN"));
            submitter.setProcessEnvironment(env);
            submitter.start(QStringLiteral(SLICESCOPE_BINARY),
                            QStringList{QStringLiteral("submit-slice-pg")} + ray() + QStringList{QStringLiteral("--topology"), QStringLiteral("4x4"), QStringLiteral("--accelerator"), QStringLiteral("v6e"), QStringLiteral("--name"), name, QStringLiteral("--json")});
            // Watch the state API for CREATED while the verb waits for its driver.
            QElapsedTimer limit;
            limit.start();
            while (createdAt < 0 && limit.elapsed() < 90000) {
                if (!inFlight) {
                    inFlight = true;
                    watcher.request(QByteArrayLiteral("GET"), QStringLiteral("api/v0/placement_groups?detail=false&limit=10000"), QByteArray(),
                                    [&, name](const QString &, int, const QByteArray &body) {
                                        inFlight = false;
                                        const QJsonArray items = QJsonDocument::fromJson(body).object().value(QLatin1String("data")).toObject().value(QLatin1String("result")).toObject().value(QLatin1String("result")).toArray();
                                        for (const QJsonValue &v : items)
                                            if (v.toObject().value(QLatin1String("name")).toString() == name
                                                && v.toObject().value(QLatin1String("state")).toString() == QLatin1String("CREATED"))
                                                createdAt = clock.elapsed();
                                    });
                }
                QTest::qWait(100);
            }
            QVERIFY2(createdAt >= 0, qPrintable(name + QStringLiteral(" never showed CREATED")));
            QTRY_VERIFY_WITH_TIMEOUT(seenAt >= 0, 20000);
            latencies << double(seenAt - createdAt) / 1000.0;
            // The event loop ran meanwhile, so the verb may have ended already (waitForFinished would say false).
            QTRY_VERIFY_WITH_TIMEOUT(submitter.state() == QProcess::NotRunning, 60000);
            QVERIFY2(submitter.exitCode() == 0, submitter.readAllStandardError().constData());
            const Run rel = release(name);
            QVERIFY2(rel.exitCode == 0, rel.err.constData());
            m_toRelease.removeAll(name);
        }
        watched.clear();
        QList<double> sorted = latencies;
        std::sort(sorted.begin(), sorted.end());
        QStringList each;
        for (double l : std::as_const(latencies))
            each << QString::number(l, 'f', 2);
        qInfo("CREATED in the state API -> chips reserved in a LiveRaySource snapshot (2 s poll): median %.2f s, min %.2f s, max %.2f s over %d runs (%s)",
              sorted.value(sorted.size() / 2), sorted.value(0), sorted.value(sorted.size() - 1), int(sorted.size()), qPrintable(each.join(QStringLiteral(", "))));
    }

    void detachedGroupOutlivesItsDriverAndTheRemovalJobReleasesIt()
    {
        const Run r = submit(QStringLiteral("sst-detached"), QStringLiteral("4x4"), {QStringLiteral("--detached")});
        checkCreated(r, QStringLiteral("sst-detached"), 4);
        const QJsonObject created = r.json();
        QVERIFY(created.value(QLatin1String("detached")).toBool());
        const QString jobId = created.value(QLatin1String("jobId")).toString();
        const QString slice = strings(created.value(QLatin1String("slices"))).first();
        // The driver ends on its own; the group stays.
        QString status;
        QTRY_VERIFY_WITH_TIMEOUT((status = QJsonDocument::fromJson(rayGet(QStringLiteral("api/jobs/") + jobId)).object().value(QLatin1String("status")).toString()) == QLatin1String("SUCCEEDED"), 30000);
        const QJsonObject seen = inspect();
        QCOMPARE(sliceNamed(seen, slice).value(QLatin1String("reservedChips")).toInt(), 16);
        QVERIFY(sliceNamed(seen, slice).value(QLatin1String("headReservedBy")).isNull()); // the head groups went with the driver
        const QJsonArray groups = seen.value(QLatin1String("placementGroups")).toArray();
        QCOMPARE(groups.size(), 1);
        QCOMPARE(groups[0].toObject().value(QLatin1String("state")).toString(), QStringLiteral("CREATED"));

        const Run rel = release(QStringLiteral("sst-detached"));
        QVERIFY2(rel.exitCode == 0, rel.err.constData());
        QCOMPARE(rel.json().value(QLatin1String("action")).toString(), QStringLiteral("removal-job"));
        QCOMPARE(rel.json().value(QLatin1String("state")).toString(), QStringLiteral("REMOVED"));
        QCOMPARE(rel.json().value(QLatin1String("job")).toObject().value(QLatin1String("request")).toObject().value(QLatin1String("mode")).toString(),
                 QStringLiteral("remove"));
        m_toRelease.clear();
        checkAllReady(inspect());
    }

    // resources_per_bundle {"TPU": 1}: Ray makes chips / 1 = 16 bundles for one v6e 4x4, and the
    // read path must show each of the slice's 16 chips held by its own bundle. The harness's
    // hosts have 1 CPU each, so 4 bundles per host take 0.25 CPU each: with Ray's default of 1
    // CPU the group stays PENDING (NO_RESOURCES), which the planner says before submitting.
    void sixteenOneChipBundlesHoldEveryChipOfTheSliceOnce()
    {
        const Run tooMuchCpu = submit(QStringLiteral("sst-16"), QStringLiteral("4x4"), {QStringLiteral("--tpu-per-bundle"), QStringLiteral("1")});
        QCOMPARE(tooMuchCpu.exitCode, 1);
        QVERIFY2(tooMuchCpu.lastErrLine().contains(QLatin1String("hold only 4 of the 16 bundles of {CPU: 1, TPU: 1}"))
                     && tooMuchCpu.lastErrLine().contains(QLatin1String("nothing submitted")),
                 tooMuchCpu.err.constData());
        QVERIFY2(!tooMuchCpu.err.contains("submitting Ray job"), tooMuchCpu.err.constData());

        // The what-if asks the same question the submit sends.
        const Run planned = runSlicescope(QStringList{QStringLiteral("plan")} + ray() + QStringList{QStringLiteral("--topology"), QStringLiteral("4x4"), QStringLiteral("--accelerator"), QStringLiteral("v6e"), QStringLiteral("--tpu-per-bundle"), QStringLiteral("1"), QStringLiteral("--cpu-per-bundle"), QStringLiteral("0.25"), QStringLiteral("--json")});
        QVERIFY2(planned.exitCode == 0, planned.err.constData());
        const QJsonObject planRequest = planned.json().value(QLatin1String("request")).toObject();
        QCOMPARE(planRequest.value(QLatin1String("bundlesPerSlice")).toInt(), 16);
        QCOMPARE(planRequest.value(QLatin1String("tpuPerBundle")).toInt(), 1);
        QVERIFY(planned.json().value(QLatin1String("feasible")).toBool());

        QElapsedTimer clock;
        clock.start();
        const Run r = submit(QStringLiteral("sst-16"), QStringLiteral("4x4"), {QStringLiteral("--tpu-per-bundle"), QStringLiteral("1"), QStringLiteral("--cpu-per-bundle"), QStringLiteral("0.25"), QStringLiteral("--wait"), QStringLiteral("60")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.err.contains("Ray will reserve 16 bundles x {CPU: 0.25, TPU: 1} on "), r.err.constData());
        const QJsonObject j = r.json();
        QCOMPARE(j.value(QLatin1String("state")).toString(), QStringLiteral("CREATED"));
        // Sent as data, and Ray built what was sent.
        const QJsonObject sent = j.value(QLatin1String("job")).toObject().value(QLatin1String("request")).toObject();
        QCOMPARE(sent.value(QLatin1String("resources_per_bundle")).toObject(), (QJsonObject{{QStringLiteral("CPU"), 0.25}, {QStringLiteral("TPU"), 1}}));
        QCOMPARE(j.value(QLatin1String("numBundles")).toInt(), 16);
        QCOMPARE(j.value(QLatin1String("bundleResources")).toObject().value(QLatin1String("TPU")).toDouble(), 1.0);
        const QJsonArray bundles = j.value(QLatin1String("bundles")).toArray();
        QCOMPARE(bundles.size(), 16);
        const QStringList slices = strings(j.value(QLatin1String("slices")));
        QCOMPARE(slices.size(), 1);
        QMap<int, int> perWorker;
        for (const QJsonValue &b : bundles) {
            QCOMPARE(b.toObject().value(QLatin1String("slice")).toString(), slices.first());
            QCOMPARE(b.toObject().value(QLatin1String("tpu")).toDouble(), 1.0);
            ++perWorker[b.toObject().value(QLatin1String("workerId")).toInt()];
        }
        QCOMPARE(perWorker.size(), 4);
        const QString id = j.value(QLatin1String("placementGroupId")).toString();

        // What `inspect --ray` shows: 16 reserved chips, each held by a distinct bundle index.
        const QJsonObject seen = inspect();
        const QJsonObject s = sliceNamed(seen, slices.first());
        QCOMPARE(s.value(QLatin1String("reservedChips")).toInt(), 16);
        QSet<int> indexes;
        int chips = 0;
        QStringList layout;
        for (const QJsonValue &h : s.value(QLatin1String("hosts")).toArray()) {
            QStringList onHost;
            for (const QJsonValue &c : h.toObject().value(QLatin1String("chips")).toArray()) {
                ++chips;
                QCOMPARE(c.toObject().value(QLatin1String("placementGroup")).toString(), id);
                indexes.insert(c.toObject().value(QLatin1String("bundleIndex")).toInt());
                onHost << QString::number(c.toObject().value(QLatin1String("bundleIndex")).toInt());
            }
            layout << QStringLiteral("worker %1: %2").arg(h.toObject().value(QLatin1String("workerId")).toInt()).arg(onHost.join(u','));
        }
        QCOMPARE(chips, 16);
        QCOMPARE(indexes.size(), 16); // every chip its own bundle
        QCOMPARE(*std::max_element(indexes.cbegin(), indexes.cend()), 15);
        for (const QJsonValue &g : seen.value(QLatin1String("placementGroups")).toArray()) {
            if (g.toObject().value(QLatin1String("id")).toString() != id)
                continue;
            const QJsonArray seenBundles = g.toObject().value(QLatin1String("bundles")).toArray();
            QCOMPARE(seenBundles.size(), 16);
            for (const QJsonValue &b : seenBundles)
                QCOMPARE(b.toObject().value(QLatin1String("tpu")).toInt(), 1);
        }
        qInfo("16 one-chip bundles on %s CREATED in %.1f s; bundle index per chip: %s", qPrintable(slices.first()),
              j.value(QLatin1String("seconds")).toDouble(), qPrintable(layout.join(QStringLiteral("; "))));

        const Run rel = release(QStringLiteral("sst-16"));
        QVERIFY2(rel.exitCode == 0, rel.err.constData());
        QCOMPARE(rel.json().value(QLatin1String("state")).toString(), QStringLiteral("REMOVED"));
        m_toRelease.clear();
        checkAllReady(inspect());
    }

    // What Ray refuses is refused before anything is submitted, in Ray's words.
    void aTpuCountThatDoesNotDivideTheSliceIsRefusedFirst()
    {
        const int jobsBefore = int(QJsonDocument::fromJson(rayGet(QStringLiteral("api/jobs/"))).array().size());
        const Run r = submit(QStringLiteral("sst-3"), QStringLiteral("4x4"), {QStringLiteral("--tpu-per-bundle"), QStringLiteral("3")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.lastErrLine().contains(QLatin1String("not divisible by TPUs requested per worker (3)")), r.err.constData());
        QCOMPARE(int(QJsonDocument::fromJson(rayGet(QStringLiteral("api/jobs/"))).array().size()), jobsBefore);
        m_toRelease.clear();
    }

    // chips_per_vm 4 on the harness's one-host v6e 2x4: Ray counts two 4-chip VMs, so it claims
    // the slice's head and makes two bundles of 4, which the 8-chip host holds both.
    void chipsPerVmFourOnAnEightChipHost()
    {
        const Run r = submit(QStringLiteral("sst-vm4"), QStringLiteral("2x4"), {QStringLiteral("--chips-per-vm"), QStringLiteral("4"), QStringLiteral("--cpu-per-bundle"), QStringLiteral("0.5")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.err.contains("note: chips per VM 4"), r.err.constData());
        const QJsonObject j = r.json();
        QCOMPARE(j.value(QLatin1String("job")).toObject().value(QLatin1String("request")).toObject().value(QLatin1String("chips_per_vm")).toInt(), 4);
        QCOMPARE(j.value(QLatin1String("chipsPerHost")).toInt(), 4);
        QCOMPARE(j.value(QLatin1String("bundles")).toArray().size(), 2);
        QCOMPARE(j.value(QLatin1String("headPlacementGroups")).toArray().size(), 1); // two VMs by Ray's count: a head is claimed
        QCOMPARE(strings(j.value(QLatin1String("slices"))), QStringList{QStringLiteral("tpu-v6e-2x4-0")});
        QCOMPARE(sliceNamed(inspect(), QStringLiteral("tpu-v6e-2x4-0")).value(QLatin1String("reservedChips")).toInt(), 8);
        const Run rel = release(QStringLiteral("sst-vm4"));
        QVERIFY2(rel.exitCode == 0, rel.err.constData());
        m_toRelease.clear();
        checkAllReady(inspect());
    }

    void singleHostTopologyNeedsNoHeadGroup()
    {
        const Run r = submit(QStringLiteral("sst-single"), QStringLiteral("2x4"));
        checkCreated(r, QStringLiteral("sst-single"), 1);
        QCOMPARE(strings(r.json().value(QLatin1String("slices"))), QStringList{QStringLiteral("tpu-v6e-2x4-0")});
        QCOMPARE(r.json().value(QLatin1String("headPlacementGroups")).toArray().size(), 0);
        const QJsonObject s = sliceNamed(inspect(), QStringLiteral("tpu-v6e-2x4-0"));
        QCOMPARE(s.value(QLatin1String("reservedChips")).toInt(), 8);
        QVERIFY(s.value(QLatin1String("headReservedBy")).isNull());
        const Run rel = release(QStringLiteral("sst-single"));
        QVERIFY2(rel.exitCode == 0, rel.err.constData());
        QCOMPARE(rel.json().value(QLatin1String("state")).toString(), QStringLiteral("REMOVED"));
        m_toRelease.clear();
        checkAllReady(inspect());
    }

    void aGroupSliceScopeDidNotCreateNeedsForce()
    {
        // Someone else's detached group, made by a plain Ray job of their own.
        RayClient client{QUrl(m_url)};
        client.setToken({m_token, QStringLiteral("test")});
        bool done = false;
        QString error;
        const QJsonObject body{
            {QStringLiteral("entrypoint"), QStringLiteral("python -c \"import ray; ray.init(namespace='elsewhere'); "
                                                          "from ray.util.placement_group import placement_group as p; "
                                                          "ray.get(p([{'CPU': 0.01}], name='sst-foreign', lifetime='detached').ready())\"")},
        };
        client.submitJob(body, [&](const QString &e, int, const QByteArray &) { error = e; done = true; });
        QTRY_VERIFY_WITH_TIMEOUT(done, 30000);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        m_toRelease << QStringLiteral("sst-foreign");
        // REMOVED groups stay listed (an earlier run's sst-foreign among them): wait for a CREATED one.
        QTRY_VERIFY_WITH_TIMEOUT(groupState(QStringLiteral("sst-foreign")) == QLatin1String("CREATED"), 60000);

        const Run refused = release(QStringLiteral("sst-foreign"));
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.lastErrLine().contains(QLatin1String("not created by SliceScope")) && refused.lastErrLine().contains(QLatin1String("--force")),
                 refused.err.constData());
        QVERIFY2(!refused.err.contains("releasing"), refused.err.constData()); // nothing was changed

        const Run forced = release(QStringLiteral("sst-foreign"), {QStringLiteral("--force")});
        QVERIFY2(forced.exitCode == 0, forced.err.constData());
        QCOMPARE(forced.json().value(QLatin1String("state")).toString(), QStringLiteral("REMOVED"));
        QCOMPARE(forced.json().value(QLatin1String("createdBySliceScope")).toBool(), false);
        QVERIFY2(forced.err.contains("which SliceScope did not create (--force)"), forced.err.constData());
        m_toRelease.clear();
    }
};

QTEST_GUILESS_MAIN(TestSlicePgLive)
#include "tst_slice_pg_live.moc"
