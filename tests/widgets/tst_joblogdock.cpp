// SPDX-License-Identifier: GPL-3.0-or-later
// The "Job log" dock (widgets/joblogdock.h) on a scripted JobLogSource: what it lists, what picking
// a row starts, the status line for each thing the source says, and what the view's buttons ask.
// The real source (a live Ray's log tail) is exercised by tests/integration/tst_job_log_live.

#include "joblogdock.h"
#include "joblogsource.h"
#include "joblogview.h"
#include "jobtablemodel.h"

#include <QLabel>
#include <QPushButton>
#include <QStackedWidget>
#include <QTest>
#include <QTreeView>

#include <memory>

using namespace slicescope;

namespace {

// Records what the dock asks; the test emits what a source would say.
class ScriptedLogSource : public JobLogSource
{
public:
    void start(const QString &submissionId) override
    {
        started << submissionId;
        m_id = submissionId;
        running = true;
    }
    QString submissionId() const override { return m_id; }
    bool isRunning() const override { return running; }
    void setPaused(bool paused) override { pauses << paused; }
    void fetchFullLog() override { ++fullLogRequests; }

    QStringList started;
    QList<bool> pauses;
    int fullLogRequests = 0;
    bool running = false;

private:
    QString m_id;
};

SnapshotPtr snapshotWith(const QStringList &ids, const QString &firstStatus = QStringLiteral("RUNNING"))
{
    auto snapshot = std::make_shared<ClusterSnapshot>();
    qint64 start = 1000;
    for (const QString &id : ids) {
        Job j;
        j.submissionId = id;
        j.status = snapshot->jobs.isEmpty() ? firstStatus : QStringLiteral("PENDING");
        j.entrypoint = QStringLiteral("python %1.py").arg(id);
        j.startTimeMs = start += 1000;
        snapshot->jobs << j;
    }
    return snapshot;
}

} // namespace

class TestJobLogDock : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void withoutASourceItSaysWhy()
    {
        JobLogDock dock;
        QCOMPARE(dock.objectName(), QStringLiteral("jobLogDock"));
        auto *stack = qobject_cast<QStackedWidget *>(dock.widget());
        QVERIFY(stack);
        auto *empty = dock.findChild<QLabel *>(QStringLiteral("jobLogEmpty"));
        QVERIFY(empty);
        dock.setLogSource(nullptr, QStringLiteral("The demo cluster runs no Ray jobs."));
        QCOMPARE(dock.unavailableReason(), QStringLiteral("The demo cluster runs no Ray jobs."));
        QCOMPARE(empty->text(), dock.unavailableReason());
        QCOMPARE(stack->currentWidget(), empty);
        // The snapshot's jobs are not listed: nothing to pick that could not be followed.
        dock.setSnapshot(snapshotWith({QStringLiteral("raysubmit_a")}));
        QCOMPARE(dock.jobList()->model()->rowCount(), 0);
        dock.followJob(QStringLiteral("raysubmit_a"));
        QVERIFY(dock.followedJob().isEmpty());
    }

    void pickingAJobFollowsIt()
    {
        JobLogDock dock;
        ScriptedLogSource source;
        dock.setLogSource(&source, QStringLiteral("ignored: there is a source"));
        QVERIFY(dock.unavailableReason().isEmpty());
        QCOMPARE(qobject_cast<QStackedWidget *>(dock.widget())->currentIndex(), 0);
        dock.setSnapshot(snapshotWith({QStringLiteral("raysubmit_a"), QStringLiteral("raysubmit_b")}));
        QTreeView *list = dock.jobList();
        QCOMPARE(list->objectName(), QStringLiteral("jobList"));
        QCOMPARE(list->model()->rowCount(), 2);
        QCOMPARE(list->model()->index(0, 0).data().toString(), QStringLiteral("raysubmit_b")); // newest first
        QVERIFY(source.started.isEmpty());

        list->setCurrentIndex(list->model()->index(1, 0)); // as a click does
        QCOMPARE(source.started, QStringList{QStringLiteral("raysubmit_a")});
        QCOMPARE(dock.followedJob(), QStringLiteral("raysubmit_a"));
        QCOMPARE(source.pauses, QList<bool>{false});
        QCOMPARE(dock.logView()->status(), QStringLiteral("Job raysubmit_a: connecting..."));

        Q_EMIT source.connectedChanged(true);
        QCOMPARE(dock.logView()->status(), QStringLiteral("Following job raysubmit_a"));
        Q_EMIT source.linesReceived(QStringLiteral("line 1\nline 2"));
        QVERIFY(dock.logView()->text().contains(QLatin1String("line 2")));
        Q_EMIT source.connectedChanged(false);
        QCOMPARE(dock.logView()->status(), QStringLiteral("Job raysubmit_a: the connection dropped; reconnecting..."));

        // A poll where only a status changed: the row stays picked, the log stays, nothing restarts.
        dock.setSnapshot(snapshotWith({QStringLiteral("raysubmit_a"), QStringLiteral("raysubmit_b")}, QStringLiteral("SUCCEEDED")));
        QCOMPARE(list->model()->index(1, 1).data().toString(), QStringLiteral("SUCCEEDED"));
        QVERIFY(list->selectionModel()->isRowSelected(1));
        QCOMPARE(source.started.size(), 1);
        // A new job on top: the rows are rebuilt, the followed one is selected again where it now is.
        dock.setSnapshot(snapshotWith({QStringLiteral("raysubmit_a"), QStringLiteral("raysubmit_b"), QStringLiteral("raysubmit_c")}));
        QCOMPARE(list->model()->index(2, 0).data().toString(), QStringLiteral("raysubmit_a"));
        QVERIFY(list->selectionModel()->isRowSelected(2));
        QCOMPARE(source.started.size(), 1);
        QVERIFY(dock.logView()->text().contains(QLatin1String("line 2")));

        Q_EMIT source.finished();
        QCOMPARE(dock.logView()->status(), QStringLiteral("Job raysubmit_a finished"));
        // Following it again while the source still runs keeps the log; after it stopped, reads it anew.
        dock.followJob(QStringLiteral("raysubmit_a"));
        QCOMPARE(source.started.size(), 1);
        source.running = false;
        dock.followJob(QStringLiteral("raysubmit_a"));
        QCOMPARE(source.started.size(), 2);
        QVERIFY(dock.logView()->text().isEmpty());

        Q_EMIT source.failed(QStringLiteral("Ray refused the token"));
        QCOMPARE(dock.logView()->status(), QStringLiteral("Ray refused the token"));
        Q_EMIT source.fullLogFailed(QStringLiteral("timed out"));
        QCOMPARE(dock.logView()->status(), QStringLiteral("Full log: timed out"));
    }

    void theViewsButtonsReachTheSource()
    {
        JobLogDock dock;
        ScriptedLogSource source;
        dock.setLogSource(&source, {});
        dock.followJob(QStringLiteral("raysubmit_a"));
        QCOMPARE(source.started, QStringList{QStringLiteral("raysubmit_a")});
        dock.logView()->setPaused(true);
        QCOMPARE(source.pauses, (QList<bool>{false, true}));
        QTest::mouseClick(dock.logView()->findChild<QPushButton *>(), Qt::LeftButton);
        QCOMPARE(source.fullLogRequests, 1);
        Q_EMIT source.fullLogReceived(QStringLiteral("all\nof it"));
        QVERIFY(dock.logView()->text().contains(QLatin1String("of it")));

        // Another source: the job followed and its log are forgotten; the old source is no longer heard.
        ScriptedLogSource next;
        dock.setLogSource(&next, {});
        QVERIFY(dock.followedJob().isEmpty());
        QVERIFY(dock.logView()->text().isEmpty());
        Q_EMIT source.linesReceived(QStringLiteral("late line"));
        QVERIFY(dock.logView()->text().isEmpty());
        QTest::mouseClick(dock.logView()->findChild<QPushButton *>(), Qt::LeftButton);
        QCOMPARE(source.fullLogRequests, 1);
        QCOMPARE(next.fullLogRequests, 1);
    }
};

QTEST_MAIN(TestJobLogDock)
#include "tst_joblogdock.moc"
