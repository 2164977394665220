// SPDX-License-Identifier: GPL-3.0-or-later
// The "Job log" dock's table of the snapshot's jobs (model/jobtablemodel.h): QAbstractItemModelTester
// watches every change, and the rows (id | status | entrypoint) are written out by hand from the
// jobs made here: newest first, the job id when there is no submission id, a status-only change
// updating cells without a reset.

#include "jobtablemodel.h"
#include "snapshot.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

#include <memory>

using namespace slicescope;

namespace {

Job job(const QString &submissionId, const QString &jobId, const QString &status, qint64 startTimeMs, const QString &message = {})
{
    Job j;
    j.submissionId = submissionId;
    j.jobId = jobId;
    j.status = status;
    j.entrypoint = QStringLiteral("python %1.py").arg(submissionId.isEmpty() ? jobId : submissionId);
    j.message = message;
    j.startTimeMs = startTimeMs;
    return j;
}

SnapshotPtr snapshotWith(const QList<Job> &jobs)
{
    auto snapshot = std::make_shared<ClusterSnapshot>();
    snapshot->jobs = jobs;
    return snapshot;
}

QStringList rows(const JobTableModel &model)
{
    QStringList out;
    for (int r = 0; r < model.rowCount(); ++r) {
        QStringList cells;
        for (int c = 0; c < model.columnCount(); ++c)
            cells << model.index(r, c).data().toString();
        out << cells.join(QStringLiteral(" | "));
    }
    return out;
}

} // namespace

class TestJobTableModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void listsTheJobsNewestFirst()
    {
        JobTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.columnCount(), 3);
        QCOMPARE(model.headerData(0, Qt::Horizontal).toString(), QStringLiteral("Submission id"));
        QCOMPARE(model.headerData(1, Qt::Horizontal).toString(), QStringLiteral("Status"));
        QCOMPARE(model.headerData(2, Qt::Horizontal).toString(), QStringLiteral("Entrypoint"));

        // Listed oldest first, as Ray does; a driver run without a submission is named by its job id;
        // the two started at the same moment keep their order.
        model.setSnapshot(snapshotWith({job(QStringLiteral("raysubmit_a"), QStringLiteral("01"), QStringLiteral("SUCCEEDED"), 1000),
                                        job(QString(), QStringLiteral("02"), QStringLiteral("RUNNING"), 2000),
                                        job(QStringLiteral("raysubmit_c"), QStringLiteral("03"), QStringLiteral("FAILED"), 3000, QStringLiteral("exit code 1")),
                                        job(QStringLiteral("raysubmit_d"), QStringLiteral("04"), QStringLiteral("PENDING"), 3000)}));
        QCOMPARE(rows(model), (QStringList{
                                  QStringLiteral("raysubmit_c | FAILED | python raysubmit_c.py"),
                                  QStringLiteral("raysubmit_d | PENDING | python raysubmit_d.py"),
                                  QStringLiteral("02 | RUNNING | python 02.py"),
                                  QStringLiteral("raysubmit_a | SUCCEEDED | python raysubmit_a.py"),
                              }));
        QCOMPARE(model.idAt(2), QStringLiteral("02"));
        QCOMPARE(model.index(3, JobTableModel::Entrypoint).data(JobTableModel::IdRole).toString(), QStringLiteral("raysubmit_a"));
        QCOMPARE(model.rowOf(QStringLiteral("raysubmit_d")), 1);
        QCOMPARE(model.rowOf(QStringLiteral("04")), -1); // named by its submission id, not its job id
        QCOMPARE(model.rowOf(QStringLiteral("raysubmit_x")), -1);
        QVERIFY(model.idAt(4).isEmpty());
        QVERIFY(model.idAt(-1).isEmpty());
        // The status's tooltip is the job's message; the entrypoint's, the whole entrypoint.
        QCOMPARE(model.index(0, JobTableModel::Status).data(Qt::ToolTipRole).toString(), QStringLiteral("exit code 1"));
        QCOMPARE(model.index(0, JobTableModel::Entrypoint).data(Qt::ToolTipRole).toString(), QStringLiteral("python raysubmit_c.py"));
        QVERIFY(!model.index(0, JobTableModel::Id).data(Qt::ToolTipRole).isValid());

        model.setSnapshot(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    void aStatusChangeUpdatesCellsWithoutAReset()
    {
        JobTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const QList<Job> jobs{job(QStringLiteral("raysubmit_a"), QStringLiteral("01"), QStringLiteral("RUNNING"), 1000),
                              job(QStringLiteral("raysubmit_b"), QStringLiteral("02"), QStringLiteral("PENDING"), 2000)};
        model.setSnapshot(snapshotWith(jobs));
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);

        // The same jobs in a new snapshot: nothing for a view to redo.
        model.setSnapshot(snapshotWith(jobs));
        QCOMPARE(resets.size(), 0);
        QCOMPARE(changed.size(), 0);

        // A poll where only a status moved: the cells change, the rows (and a view's selection) stay.
        QList<Job> later = jobs;
        later[0].status = QStringLiteral("SUCCEEDED");
        later[0].message = QStringLiteral("done");
        model.setSnapshot(snapshotWith(later));
        QCOMPARE(resets.size(), 0);
        QCOMPARE(changed.size(), 1);
        QCOMPARE(changed[0][0].toModelIndex(), model.index(0, JobTableModel::Status));
        QCOMPARE(changed[0][1].toModelIndex(), model.index(1, JobTableModel::Entrypoint));
        QCOMPARE(rows(model), (QStringList{QStringLiteral("raysubmit_b | PENDING | python raysubmit_b.py"),
                                           QStringLiteral("raysubmit_a | SUCCEEDED | python raysubmit_a.py")}));
        QCOMPARE(model.index(1, JobTableModel::Status).data(Qt::ToolTipRole).toString(), QStringLiteral("done"));

        // A new job: the rows are rebuilt, the new one on top.
        later << job(QStringLiteral("raysubmit_c"), QStringLiteral("03"), QStringLiteral("PENDING"), 3000);
        model.setSnapshot(snapshotWith(later));
        QCOMPARE(resets.size(), 1);
        QCOMPARE(model.idAt(0), QStringLiteral("raysubmit_c"));
        QCOMPARE(model.rowCount(), 3);

        // A job gone: rebuilt again, without it.
        model.setSnapshot(snapshotWith({later[2], later[0]}));
        QCOMPARE(resets.size(), 2);
        QCOMPARE(rows(model), (QStringList{QStringLiteral("raysubmit_c | PENDING | python raysubmit_c.py"),
                                           QStringLiteral("raysubmit_a | SUCCEEDED | python raysubmit_a.py")}));
    }
};

QTEST_GUILESS_MAIN(TestJobTableModel)
#include "tst_jobtablemodel.moc"
