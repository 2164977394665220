// SPDX-License-Identifier: GPL-3.0-or-later
// The window's live-Ray actions against a scripted dashboard on 127.0.0.1: the request reaches
// the driver as data, the driver's result is the outcome, releasing stops the holding job and
// is reported once the polls no longer list the group, and others' groups need the force flag.
// Captures are handed to the live source by the test (the poll path is tst_rayclient's).

#include "../common/fakehttpserver.h"
#include "democluster.h"
#include "livesource.h"
#include "rayclusteractions.h"
#include "slicepgjob.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

#include <functional>

using namespace slicescope;

namespace {

using Request = testing::HttpRequest;
using Response = testing::HttpResponse;
using ScriptedDashboard = testing::FakeHttpServer;

} // namespace

class TestRayClusterActions : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void submitSendsTheRequestAsDataAndReportsTheDriversResult()
    {
        ScriptedDashboard server;
        QByteArray submitted;
        QString submissionId;
        server.script = [&](const Request &r) -> Response {
            if (r.path.startsWith("/api/packages/"))
                return {200, ""}; // the GCS holds the driver package already
            if (r.method == "POST" && r.path == "/api/jobs/") {
                submitted = r.body;
                submissionId = QJsonDocument::fromJson(r.body).object().value(QLatin1String("submission_id")).toString();
                return {200, QJsonDocument(QJsonObject{{QStringLiteral("submission_id"), submissionId}}).toJson()};
            }
            if (r.path == "/api/jobs/" + submissionId.toLatin1())
                return {200, R"({"status": "RUNNING"})"};
            if (r.path == "/api/jobs/" + submissionId.toLatin1() + "/logs") {
                const QJsonObject result{{QStringLiteral("ok"), true}, {QStringLiteral("name"), QStringLiteral("team-a")}, {QStringLiteral("placementGroupId"), QStringLiteral("pg1")}, {QStringLiteral("state"), QStringLiteral("CREATED")}, {QStringLiteral("slices"), QJsonArray{QStringLiteral("v6e-4x4-1"), QStringLiteral("v6e-4x4-2")}}};
                const QString logs = QLatin1String(kResultPrefix) + QString::fromUtf8(QJsonDocument(result).toJson(QJsonDocument::Compact)) + u'\n';
                return {200, QJsonDocument(QJsonObject{{QStringLiteral("logs"), logs}}).toJson()};
            }
            return {404, "Not Found"};
        };
        LiveRaySource source(server.url(), RayToken{});
        RayClusterActions actions(&source);
        QSignalSpy progress(&actions, &ClusterActions::actionProgress);
        QSignalSpy finished(&actions, &ClusterActions::actionFinished);
        SlicePlacementRequest request;
        request.accelerator = QStringLiteral("TPU-V6E");
        request.topology = QStringLiteral("4x4");
        request.numSlices = 2;
        request.name = QStringLiteral("team-a");
        QVERIFY(actions.describeSubmission(request).contains(QLatin1String("\"name\": \"team-a\"")));
        actions.submitSlicePlacementGroup(QStringLiteral("a1"), request);
        QVERIFY(progress.isEmpty() && finished.isEmpty()); // nothing from inside the call
        QTRY_COMPARE(finished.size(), 1);
        QVERIFY2(finished.first().at(1).toBool(), qPrintable(finished.first().at(2).toString()));
        QCOMPARE(finished.first().at(2).toString(),
                 QStringLiteral("placement group team-a (pg1) CREATED on v6e-4x4-1, v6e-4x4-2 (job %1)").arg(submissionId));
        QVERIFY(!progress.isEmpty());
        // The request is data in the runtime env, in Ray's spelling of the accelerator.
        const QJsonObject env = QJsonDocument::fromJson(submitted).object().value(QLatin1String("runtime_env")).toObject().value(QLatin1String("env_vars")).toObject();
        const QJsonObject driverRequest = QJsonDocument::fromJson(env.value(QLatin1String(kRequestEnvVar)).toString().toUtf8()).object();
        QCOMPARE(driverRequest.value(QLatin1String("accelerator_version")).toString(), QStringLiteral("v6e"));
        QCOMPARE(driverRequest.value(QLatin1String("num_slices")).toInt(), 2);
        QCOMPARE(driverRequest.value(QLatin1String("name")).toString(), QStringLiteral("team-a"));
    }

    // Issue 31: in a view of several RayClusters the window and the relay send a request naming
    // its RayCluster (and context) to that cluster's Ray, whose own polls name neither. The last
    // look before sending plans in that cluster and sends; it must not find "no slice" there.
    void aRequestNamingItsRayClusterIsCheckedInThatCluster()
    {
        ScriptedDashboard server;
        bool posted = false;
        server.script = [&](const Request &r) -> Response {
            if (r.path.startsWith("/api/packages/"))
                return {200, ""};
            if (r.method == "POST" && r.path == "/api/jobs/") {
                posted = true;
                return {200, QJsonDocument(QJsonObject{{QStringLiteral("submission_id"), QJsonDocument::fromJson(r.body).object().value(QLatin1String("submission_id"))}}).toJson()};
            }
            return {404, "Not Found"};
        };
        Capture rayOnly = DemoCluster().capture(); // what one RayCluster's Ray answers, alone
        rayOnly.kubeRayClusters.clear();
        rayOnly.kubePods.clear();
        rayOnly.kubeNodes.clear();
        rayOnly.kubeContext.clear();
        rayOnly.rayCluster.clear();
        LiveRaySource source(server.url(), RayToken{});
        RayClusterActions actions(&source);
        Q_EMIT source.captureReceived(rayOnly);
        QSignalSpy finished(&actions, &ClusterActions::actionFinished);
        SlicePlacementRequest request;
        request.accelerator = QStringLiteral("v6e");
        request.topology = QStringLiteral("4x4");
        request.name = QStringLiteral("named");
        request.rayCluster = QStringLiteral("ml/tpu-cluster");
        request.context = QStringLiteral("gke_eu");
        actions.submitSlicePlacementGroup(QStringLiteral("n1"), request);
        QTRY_VERIFY2(posted || !finished.isEmpty(), "neither sent nor refused");
        QVERIFY2(posted, qPrintable(finished.isEmpty() ? QString() : finished.first().at(2).toString()));
    }

    void releaseStopsTheHoldingJobAndWaitsToSeeItGone()
    {
        ScriptedDashboard server;
        server.script = [&](const Request &r) -> Response {
            if (r.method == "POST" && r.path.endsWith("/stop"))
                return {200, R"({"stopped": true})"};
            return {404, "Not Found"};
        };
        // A cluster where SliceScope's job holds "mine" (the demo writes the same job metadata).
        DemoCluster demo;
        SlicePlacementRequest request;
        request.accelerator = QStringLiteral("v6e");
        request.topology = QStringLiteral("4x4");
        request.name = QStringLiteral("mine");
        const ActionResult submitted = demo.submitSlicePlacementGroup(request);
        demo.advance(DemoCluster::kHeadReserveDelay + DemoCluster::kSliceReserveDelay + 1000);
        LiveRaySource source(server.url(), RayToken{});
        RayClusterActions actions(&source);
        Q_EMIT source.captureReceived(demo.capture());
        const SnapshotPtr snap = buildSnapshot(demo.capture());
        const int mine = snap->placementGroupIndex(QStringLiteral("mine"));
        QVERIFY(mine >= 0);
        QVERIFY(actions.createdBySliceScope(*snap, snap->placementGroups[mine]));
        QVERIFY2(actions.describeRelease(*snap, snap->placementGroups[mine]).startsWith(QStringLiteral("Stop Ray job %1").arg(submitted.jobId)),
                 qPrintable(actions.describeRelease(*snap, snap->placementGroups[mine])));

        QSignalSpy finished(&actions, &ClusterActions::actionFinished);
        actions.releasePlacementGroup(QStringLiteral("r1"), QStringLiteral("mine"), false);
        QTRY_VERIFY(std::any_of(server.requests.cbegin(), server.requests.cend(),
                                [&](const Request &r) { return r.path == "/api/jobs/" + submitted.jobId.toLatin1() + "/stop"; }));
        QCoreApplication::processEvents();
        QVERIFY(finished.isEmpty()); // stopped is hoped; gone is observed
        demo.releasePlacementGroup(QStringLiteral("mine"));
        Q_EMIT source.captureReceived(demo.capture());
        QCOMPARE(finished.size(), 1);
        QVERIFY(finished.first().at(1).toBool());
        QVERIFY2(finished.first().at(2).toString().startsWith(QLatin1String("placement group mine REMOVED")), qPrintable(finished.first().at(2).toString()));
    }

    void othersGroupsNeedTheForceFlag()
    {
        ScriptedDashboard server;
        server.script = [](const Request &) -> Response {
            return {404, "Not Found"};
        };
        LiveRaySource source(server.url(), RayToken{});
        RayClusterActions actions(&source);
        Q_EMIT source.captureReceived(DemoCluster().capture());
        QSignalSpy finished(&actions, &ClusterActions::actionFinished);
        actions.releasePlacementGroup(QStringLiteral("r1"), QStringLiteral("llm-train"), false);
        QTRY_COMPARE(finished.size(), 1);
        QVERIFY(!finished.first().at(1).toBool());
        QVERIFY2(finished.first().at(2).toString().contains(QLatin1String("not created by SliceScope")), qPrintable(finished.first().at(2).toString()));
        QVERIFY(server.requests.isEmpty()); // nothing was sent
    }
};

QTEST_GUILESS_MAIN(TestRayClusterActions)
#include "tst_rayclusteractions.moc"
