// SPDX-License-Identifier: GPL-3.0-or-later
// Chip activity against real peers (issue 15): Ray 2.60's own reporter agents scrape a fake GKE TPU
// device plugin per host (tests/integration/fake_device_plugin.py, values scripted here through its
// control URL), and a real Prometheus (Debian's, tests/integration/prom-harness.sh) scrapes the Ray
// nodes' metrics export ports. The test scripts a chip, then waits until SliceScope shows that value
// on exactly that chip: through Ray's node summary, and through Prometheus joined by the summary's
// metrics ports. A dead Prometheus is explained and leaves the allocation view whole.
//
// Found through SLICESCOPE_RAY_DIR (device-plugin-url) and SLICESCOPE_PROM_DIR (url).

#include "../common/activityfixture.h"
#include "../common/rayharness.h"
#include "activity.h"
#include "livesource.h"
#include "prometheuspoller.h"
#include "look.h"
#include "sliceview.h"
#include "snapshot.h"
#include "workspace.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPainter>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTest>

using namespace slicescope;
using testing::chipAt;
using testing::withoutSummaryTpus;

namespace {

// The fleet's chip numbering of fake_device_plugin.py's defaults: g counts chips host by host in
// ray-harness.sh's order; duty cycle 10 + g.
int defaultDuty(const QString &slice, int worker, int chip)
{
    struct S {
        const char *name;
        int hosts, chips;
    };
    static const S fleet[] = {{"tpu-v6e-4x4-0", 4, 4}, {"tpu-v6e-4x4-1", 4, 4}, {"tpu-v4-2x2x2-0", 2, 4}, {"tpu-v6e-2x4-0", 1, 8}};
    int g = 0;
    for (const S &s : fleet) {
        if (slice == QLatin1String(s.name)) return 10 + g + worker * s.chips + chip;
        g += s.hosts * s.chips;
    }
    return -1;
}

// One request to the plugin's control port; true on 2xx.
bool control(const QByteArray &method, const QString &url, const QJsonObject &body = {})
{
    QNetworkAccessManager nam;
    QNetworkRequest request{QUrl(url)};
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    QNetworkReply *reply = nam.sendCustomRequest(request, method, QJsonDocument(body).toJson(QJsonDocument::Compact));
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    QTimer::singleShot(10000, &loop, &QEventLoop::quit);
    loop.exec();
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    reply->deleteLater();
    return status >= 200 && status < 300;
}

} // namespace

class TestActivityLive : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        testing::RayHarness harness;
        SLICESCOPE_FIND_RAY_HARNESS(harness);
        m_url = harness.url;
        m_token = harness.token;
        m_control = QString::fromUtf8(testing::readFile(harness.dir + QStringLiteral("/device-plugin-url")));
        QVERIFY2(!m_control.isEmpty(), "the Ray harness wrote no device-plugin-url: is it the harness of issue 15?");
        m_promDir = qEnvironmentVariable("SLICESCOPE_PROM_DIR");
        if (!m_promDir.isEmpty()) m_promUrl = QString::fromUtf8(testing::readFile(m_promDir + QStringLiteral("/url")));
        QVERIFY(control("POST", m_control + QStringLiteral("/reset")));
    }

    void cleanupTestCase()
    {
        if (!m_control.isEmpty()) control("POST", m_control + QStringLiteral("/reset"));
    }

    // Ray's reporter agent reads the plugin every 5 s; the dashboard's node summary shows it.
    void raySummaryPutsTheValueOnThatChip()
    {
        const QString slice = QStringLiteral("tpu-v6e-4x4-1");
        QVERIFY(control("PUT", m_control + QStringLiteral("/hosts/%1/2/chips/3").arg(slice), {{QStringLiteral("dutyCycle"), 77.5}, {QStringLiteral("memoryUsed"), 3221225472.0}}));
        QVERIFY(control("DELETE", m_control + QStringLiteral("/hosts/%1/1/chips/2").arg(slice)));
        LiveRaySource source{QUrl(m_url), RayToken{m_token, QStringLiteral("harness")}};
        source.setInterval(std::chrono::milliseconds(1000));
        source.client()->setNodeSummaryInterval(std::chrono::milliseconds(1));
        SnapshotPtr last;
        QElapsedTimer t;
        t.start();
        connect(&source, &Source::captureReceived, this, [&](const Capture &c) { last = buildSnapshot(c); });
        source.start();
        const auto seen = [&] {
            const ChipActivity *a = last ? chipAt(*last, slice, 2, 3) : nullptr;
            const ChipActivity *gone = last ? chipAt(*last, slice, 1, 2) : nullptr;
            return a && a->dutyCycle == 77.5f && gone && !gone->reports();
        };
        QTRY_VERIFY_WITH_TIMEOUT(seen(), 45000);
        const qint64 ms = t.elapsed();
        const ClusterSnapshot &s = *last;
        const ChipActivity *a = chipAt(s, slice, 2, 3);
        QCOMPARE(a->source, ActivitySource::RayNodeSummary);
        QCOMPARE(a->hbmUsedBytes, 3221225472.0);
        QCOMPARE(a->hbmTotalBytes, 34359738368.0);
        QVERIFY(a->ageSeconds(s.capturedAt) >= 0 && a->ageSeconds(s.capturedAt) < 60);
        // Its neighbours keep their own (default) numbers: the value went to that chip only.
        QCOMPARE(chipAt(s, slice, 2, 2)->dutyCycle, float(defaultDuty(slice, 2, 2)));
        QCOMPARE(chipAt(s, slice, 3, 3)->dutyCycle, float(defaultDuty(slice, 3, 3)));
        QCOMPARE(chipAt(s, QStringLiteral("tpu-v6e-4x4-0"), 2, 3)->dutyCycle, float(defaultDuty(QStringLiteral("tpu-v6e-4x4-0"), 2, 3)));
        QCOMPARE(chipAt(s, QStringLiteral("tpu-v4-2x2x2-0"), 1, 0)->dutyCycle, float(defaultDuty(QStringLiteral("tpu-v4-2x2x2-0"), 1, 0)));
        QCOMPARE(chipAt(s, QStringLiteral("tpu-v6e-2x4-0"), 0, 7)->dutyCycle, float(defaultDuty(QStringLiteral("tpu-v6e-2x4-0"), 0, 7)));
        const int si = s.sliceIndex(slice);
        int host1 = -1;
        for (int h = 0; h < s.slices[si].hosts.size(); ++h)
            if (s.slices[si].hosts[h].workerId == 1) host1 = h;
        QVERIFY(s.activity->unknownReason(si, host1).contains(QLatin1String("1 of its 4 chips")));
        // 48 TPU chips in the fleet, one deleted.
        QCOMPARE(s.activity->chipCount(), 48);
        QCOMPARE(s.activity->reportingChips(), 47);
        qInfo("scripted value seen through Ray's node summary after %lld ms", ms);
        source.stop();
    }

    // Prometheus scraping Ray's metrics export ports: the ray_tpu_* series carry no node id; the
    // summary's metrics ports tell the nodes on one address apart.
    void prometheusPutsTheValueOnThatChip()
    {
        if (m_promDir.isEmpty()) {
            if (qEnvironmentVariable("CI") == QLatin1String("true")) QFAIL("SLICESCOPE_PROM_DIR is not set: tests/run-all.sh starts prom-harness.sh");
            QSKIP("no Prometheus: SLICESCOPE_PROM_DIR is not set");
        }
        QVERIFY(!m_promUrl.isEmpty());
        const QString slice = QStringLiteral("tpu-v6e-4x4-0");
        QVERIFY(control("PUT", m_control + QStringLiteral("/hosts/%1/3/chips/1").arg(slice), {{QStringLiteral("dutyCycle"), 66.0}}));
        LiveRaySource source{QUrl(m_url), RayToken{m_token, QStringLiteral("harness")}};
        source.setInterval(std::chrono::milliseconds(1000));
        source.client()->setNodeSummaryInterval(std::chrono::milliseconds(1));
        auto poller = std::make_unique<PrometheusPoller>(QUrl(m_promUrl));
        poller->setInterval(std::chrono::milliseconds(1000));
        // A window this Prometheus has surely seen whole (it scrapes every 2-5 s), so the answer
        // proves its coverage: windowMaxIsOnlyClaimedWhenSeenWhole() checks the other side.
        poller->setWindowSeconds(20);
        source.setPrometheus(std::move(poller));
        Capture last;
        connect(&source, &Source::captureReceived, this, [&](const Capture &c) { last = c; });
        source.start();
        QElapsedTimer t;
        t.start();
        SnapshotPtr fromProm;
        const auto seen = [&] {
            if (last.prometheus.isEmpty() || last.rayNodeSummary.isEmpty()) return false;
            Capture c = last;
            c.rayNodeSummary = withoutSummaryTpus(c.rayNodeSummary);
            fromProm = buildSnapshot(c);
            const ChipActivity *a = chipAt(*fromProm, slice, 3, 1);
            return a && a->dutyCycle == 66.0f && a->windowMaxDutyCycle >= 66.0f && a->windowCovered;
        };
        QTRY_VERIFY_WITH_TIMEOUT(seen(), 60000);
        qInfo("scripted value seen through Prometheus after %lld ms", t.elapsed());
        const ClusterSnapshot &s = *fromProm;
        const ChipActivity *a = chipAt(s, slice, 3, 1);
        QCOMPARE(a->source, ActivitySource::RayMetrics);
        QVERIFY(a->hasDutyCycle() && !std::isnan(a->tensorcoreUtilization) && !std::isnan(a->hbmTotalBytes));
        QCOMPARE(chipAt(s, slice, 3, 0)->dutyCycle, float(defaultDuty(slice, 3, 0)));
        QCOMPARE(chipAt(s, slice, 2, 1)->dutyCycle, float(defaultDuty(slice, 2, 1)));
        QCOMPARE(chipAt(s, QStringLiteral("tpu-v6e-2x4-0"), 0, 5)->dutyCycle, float(defaultDuty(QStringLiteral("tpu-v6e-2x4-0"), 0, 5)));
        QCOMPARE(s.activity->reportingChips(), 48);
        QVERIFY2(s.activity->sources.join(u' ').contains(QLatin1String("ray_tpu_*")), qPrintable(s.activity->sources.join(u'|')));
        // Every Ray series found its chip: none unmatched, none ambiguous.
        for (const QString &p : s.activity->problems)
            QVERIFY2(!p.contains(QLatin1String("ray_tpu_*")), qPrintable(p));
        source.stop();
    }

    // A window longer than this Prometheus has been scraping (a week): the real server answers the
    // query SliceScope asks with no series, so no chip is claimed idle for a week; the form asked
    // before would have answered over the few minutes it has, unmarked (checked here too).
    void windowMaxIsOnlyClaimedWhenSeenWhole()
    {
        if (m_promDir.isEmpty()) {
            if (qEnvironmentVariable("CI") == QLatin1String("true")) QFAIL("SLICESCOPE_PROM_DIR is not set: tests/run-all.sh starts prom-harness.sh");
            QSKIP("no Prometheus: SLICESCOPE_PROM_DIR is not set");
        }
        constexpr int kWeek = 7 * 24 * 3600;
        const auto ask = [&](const QString &query) {
            QNetworkAccessManager nam;
            QUrl url(m_promUrl + QStringLiteral("/api/v1/query"));
            url.setQuery(QStringLiteral("query=") + QString::fromLatin1(QUrl::toPercentEncoding(query)));
            QNetworkReply *reply = nam.get(QNetworkRequest(url));
            QEventLoop loop;
            QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
            QTimer::singleShot(10000, &loop, &QEventLoop::quit);
            loop.exec();
            const QJsonObject doc = QJsonDocument::fromJson(reply->readAll()).object();
            reply->deleteLater();
            return doc;
        };
        // Prometheus has scraped Ray by now (the test above waited for it).
        QTRY_VERIFY_WITH_TIMEOUT(!ask(QStringLiteral("max_over_time(ray_tpu_duty_cycle[%1s])").arg(kWeek)).value(QLatin1String("data")).toObject().value(QLatin1String("result")).toArray().isEmpty(), 30000);
        const QJsonObject covered = ask(promql::windowMaxQuery(kWeek));
        QCOMPARE(covered.value(QLatin1String("status")).toString(), QStringLiteral("success"));
        QCOMPARE(covered.value(QLatin1String("data")).toObject().value(QLatin1String("result")).toArray().size(), 0);

        // Through the poller and the join: the chips report, none has a window maximum.
        LiveRaySource source{QUrl(m_url), RayToken{m_token, QStringLiteral("harness")}};
        auto poller = std::make_unique<PrometheusPoller>(QUrl(m_promUrl));
        poller->setWindowSeconds(kWeek);
        source.setPrometheus(std::move(poller));
        QSignalSpy captures(&source, &Source::captureReceived);
        source.start();
        QTRY_VERIFY_WITH_TIMEOUT(!captures.isEmpty(), 30000);
        const SnapshotPtr s = buildSnapshot(captures.first().value(0).value<Capture>());
        QVERIFY(s->activity && s->activity->reportingChips() > 0);
        for (int si = 0; si < s->slices.size(); ++si)
            for (int hi = 0; hi < s->slices[si].hosts.size(); ++hi)
                for (int c = 0; c < s->slices[si].hosts[hi].chips.size(); ++c)
                    if (const ChipActivity *a = s->activity->chip(si, hi, c)) QVERIFY(std::isnan(a->windowMaxDutyCycle));
        source.stop();
    }

    // The window: the Activity mode paints the scripted chip in the scale's colour for its value,
    // and repaints it (that chip only) when the device plugin's value changes under Ray.
    void windowRepaintsThatChip()
    {
        const QString slice = QStringLiteral("tpu-v6e-2x4-0"); // 2D, one host of 8 chips: every chip in sight
        QVERIFY(control("PUT", m_control + QStringLiteral("/hosts/%1/0/chips/5").arg(slice), {{QStringLiteral("dutyCycle"), 90.0}}));
        LiveRaySource source{QUrl(m_url), RayToken{m_token, QStringLiteral("harness")}};
        source.setInterval(std::chrono::milliseconds(1000));
        source.client()->setNodeSummaryInterval(std::chrono::milliseconds(1));
        Workspace workspace;
        workspace.resize(1200, 800);
        workspace.setColorMode(ColorMode::Activity);
        workspace.show();
        QVERIFY(QTest::qWaitForWindowExposed(&workspace));
        SnapshotPtr last;
        connect(&source, &Source::captureReceived, this, [&](const Capture &c) {
            last = buildSnapshot(c);
            workspace.setSnapshot(last);
        });
        source.start();
        const auto dutyIs = [&](int chip, float value) {
            const ChipActivity *a = last ? chipAt(*last, slice, 0, chip) : nullptr;
            return a && a->dutyCycle == value;
        };
        QTRY_VERIFY_WITH_TIMEOUT(dutyIs(5, 90.0f), 45000);
        QVERIFY(workspace.showSlice(slice));
        workspace.showPage(Workspace::Page::Slice);
        SliceView *view = workspace.sliceView();
        QTRY_VERIFY(view->isVisible() && view->width() > 200 && view->height() > 200); // laid out, the camera fitted
        QTest::qWait(50);
        const tpu::SliceLayout layout = last->slices[last->sliceIndex(slice)].layout; // a copy: `last` moves on
        auto pixelOf = [&](int chip) {
            const QSize size = view->size();
            QImage image(size, QImage::Format_ARGB32_Premultiplied);
            QPainter painter(&image);
            view->render(painter, size);
            painter.end();
            const SliceProjection &p = view->projection();
            const tpu::ChipCoord c = layout.chipPosition(0, chip);
            const QPoint at = p.map(p.worldPosition(c) + QVector3D(0, 0, p.chipHalfExtents().z() * 0.999f)).toPoint();
            return image.pixelColor(at);
        };
        auto near = [](QColor a, QColor b) {
            return std::abs(a.red() - b.red()) <= 24 && std::abs(a.green() - b.green()) <= 24 && std::abs(a.blue() - b.blue()) <= 24;
        };
        const QColor busy = pixelOf(5), neighbour = pixelOf(4);
        QVERIFY2(near(busy, activityColor(0.90)), qPrintable(QStringLiteral("chip 5 painted %1, the scale says %2 for 90 %").arg(busy.name(), activityColor(0.90).name())));
        QVERIFY2(!near(busy, neighbour), "chip 5 and its neighbour look the same");

        QVERIFY(control("PUT", m_control + QStringLiteral("/hosts/%1/0/chips/5").arg(slice), {{QStringLiteral("dutyCycle"), 3.0}}));
        QTRY_VERIFY_WITH_TIMEOUT(dutyIs(5, 3.0f), 45000);
        const QColor idle = pixelOf(5);
        QVERIFY2(near(idle, activityColor(0.03)), qPrintable(QStringLiteral("chip 5 painted %1, the scale says %2 for 3 %").arg(idle.name(), activityColor(0.03).name())));
        QVERIFY(!near(idle, busy));
        QCOMPARE(pixelOf(4), neighbour); // the neighbour did not change
        source.stop();
    }

    // A Prometheus that is not there: said, and the slices are all still shown.
    void deadPrometheusIsExplained()
    {
        QTcpServer probe;
        QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
        const quint16 port = probe.serverPort();
        probe.close(); // nobody listens there now
        LiveRaySource source{QUrl(m_url), RayToken{m_token, QStringLiteral("harness")}};
        source.setPrometheus(std::make_unique<PrometheusPoller>(QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port))));
        QSignalSpy captures(&source, &Source::captureReceived);
        source.start();
        QTRY_VERIFY_WITH_TIMEOUT(!captures.isEmpty(), 30000);
        const Capture c = captures.first().value(0).value<Capture>();
        QVERIFY2(c.prometheusError.contains(QLatin1String("connection refused")), qPrintable(c.prometheusError));
        const SnapshotPtr s = buildSnapshot(c);
        QCOMPARE(s->slices.size(), 4);
        QVERIFY(s->errors.isEmpty());
        QVERIFY(s->activity);
        QVERIFY(s->activity->problems.join(u' ').contains(QLatin1String("connection refused")));
        source.stop();
    }

private:
    QString m_url, m_control, m_promDir, m_promUrl;
    QByteArray m_token;
};

QTEST_MAIN(TestActivityLive)
#include "tst_activity_live.moc"
