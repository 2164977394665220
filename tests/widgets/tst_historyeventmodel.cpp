// SPDX-License-Identifier: GPL-3.0-or-later
// The timeline's events model (widgets/historyeventmodel.h) over a SnapshotHistory of the demo
// cluster, under QAbstractItemModelTester in Fatal mode (any broken insert/remove/reset bracket
// aborts the test): a new entry's events are inserted at the top, evicted entries' rows leave
// at the bottom, a filter scan finds the history's own matches in slices (appending at the
// bottom, never blocking), and entries evicted while a scan runs leave the matches and the scan
// consistent. Every case compares the rows, field by field, with what the history says.

#include "democluster.h"
#include "history.h"
#include "historyeventmodel.h"
#include "snapshot.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

#include <memory>

using namespace slicescope;

namespace {

constexpr qint64 kStepMs = 15000;

// The demo's first five minutes, a snapshot every 15 s: a host dies (v6e-4x4-2 degrades), a
// placement group waits, a worker group scales up, the degraded slice is removed.
QList<SnapshotPtr> demoStory(int snapshots = 21)
{
    QList<SnapshotPtr> out;
    DemoCluster demo;
    for (int i = 0; i < snapshots; ++i) {
        if (i > 0)
            demo.advance(kStepMs);
        out << buildSnapshot(demo.capture());
    }
    return out;
}

// Snapshots 15 s apart flipping between the demo at its start and after worker 1 of v6e-4x4-2
// died: every entry after the first has events (the host dies or comes back, the slice degrades
// or recovers), and every other one a "died".
struct Flipping {
    SnapshotPtr healthy, degraded;
    Flipping()
    {
        DemoCluster demo;
        healthy = buildSnapshot(demo.capture());
        demo.advance(DemoCluster::kStoryHostDiesMs + kStepMs);
        degraded = buildSnapshot(demo.capture());
    }
    SnapshotPtr at(int i) const
    {
        auto copy = std::make_shared<ClusterSnapshot>(*(i % 2 ? degraded : healthy));
        copy->capturedAt = healthy->capturedAt.addMSecs(i * kStepMs);
        return copy;
    }
    void fill(SnapshotHistory &history, int count) const
    {
        for (int i = 0; i < count; ++i)
            history.add(at(i));
    }
};

// Enough entries that a filter scan takes many of its ~5 ms slices (some 100 ms in all).
constexpr int kLongHistory = 4000;
// 4000 entries 15 s apart span 16 h: more than the default policy keeps.
const HistoryPolicy kNoAgeLimit{0, 0};

// A long history of Flipping's entries and the model over it, checked by the tester from the start.
struct LongHistory {
    const Flipping flipping;
    SnapshotHistory history{kNoAgeLimit};
    HistoryEventModel model;
    QAbstractItemModelTester tester{&model, QAbstractItemModelTester::FailureReportingMode::Fatal};
    LongHistory()
    {
        flipping.fill(history, kLongHistory);
        model.setHistory(&history);
    }
};

// Matches the host-died events (by kind and text) of every other entry, and nothing else.
const QString kDied = QStringLiteral("died");

bool matchesFilter(const HistoryEvent &e, const QString &filter)
{
    return e.text.contains(filter, Qt::CaseInsensitive) || e.subject.contains(filter, Qt::CaseInsensitive)
           || toText(e.kind).contains(filter, Qt::CaseInsensitive);
}

// What the history itself says the rows are: every kept entry's events, newest entry first, each
// entry's events in the history's order, narrowed by `filter` when it is not empty.
QList<HistoryEvent> historyRows(const SnapshotHistory &history, const QString &filter = {})
{
    QList<HistoryEvent> rows;
    for (int i = history.size() - 1; i >= 0; --i)
        for (const HistoryEvent &e : history.events(i))
            if (filter.isEmpty() || matchesFilter(e, filter))
                rows << e;
    return rows;
}

QList<HistoryEvent> modelEvents(const HistoryEventModel &model)
{
    QList<HistoryEvent> rows;
    for (int r = 0; r < model.rowCount(); ++r)
        rows << model.eventAt(r);
    return rows;
}

// The model's rows against `expected`: the events and what the view shows of them.
void compareRows(const HistoryEventModel &model, const QList<HistoryEvent> &expected)
{
    QCOMPARE(model.rowCount(), int(expected.size()));
    for (int r = 0; r < model.rowCount(); ++r) {
        const HistoryEvent &e = expected[r];
        QVERIFY2(e.serial >= 0, qPrintable(QStringLiteral("expected row %1 is not an event").arg(r)));
        QCOMPARE(model.eventAt(r), e);
        QCOMPARE(model.data(model.index(r, HistoryEventModel::Time)).toString(), e.time.toUTC().toString(QStringLiteral("HH:mm:ss")));
        QCOMPARE(model.data(model.index(r, HistoryEventModel::Kind)).toString(), toText(e.kind));
        QCOMPARE(model.data(model.index(r, HistoryEventModel::Text)).toString(), e.text);
        QCOMPARE(model.data(model.index(r, 0), HistoryEventModel::SerialRole).toLongLong(), e.serial);
        QCOMPARE(model.data(model.index(r, 0), HistoryEventModel::ToneRole).toInt(), int(eventTone(e)));
    }
}

// The summaries the track draws, one per kept entry, with the history's serials and times.
void compareSummaries(const HistoryEventModel &model, const SnapshotHistory &history, const QHash<qint64, int> &eventsOnArrival)
{
    QCOMPARE(int(model.entries().size()), history.size());
    for (int i = 0; i < history.size(); ++i) {
        const HistoryEventModel::EntrySummary &s = model.entries()[size_t(i)];
        QCOMPARE(s.serial, history.serial(i));
        QCOMPARE(s.timeMs, history.time(i).toMSecsSinceEpoch());
        QCOMPARE(s.events, eventsOnArrival.value(s.serial, -1));
    }
}

// One rowsInserted/rowsRemoved notification: first and last row, under the root.
QPair<int, int> rangeOf(const QList<QVariant> &signal)
{
    [&] {
        QVERIFY(!signal.at(0).value<QModelIndex>().isValid());
    }();
    return {signal.at(1).toInt(), signal.at(2).toInt()};
}

} // namespace

class TestHistoryEventModel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void insertAtTop()
    {
        const QList<SnapshotPtr> story = demoStory();
        SnapshotHistory history;
        QHash<qint64, int> eventsOnArrival;
        for (int i = 0; i < 8; ++i) {
            const qint64 serial = history.add(story[i]);
            eventsOnArrival.insert(serial, int(history.events(history.size() - 1).size()));
        }
        HistoryEventModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
        model.setHistory(&history);
        compareRows(model, historyRows(history));
        if (QTest::currentTestFailed())
            return;
        QVERIFY(model.rowCount() > 0);

        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        int entriesWithEvents = 0;
        for (int i = 8; i < story.size(); ++i) {
            const QList<HistoryEvent> before = modelEvents(model);
            inserted.clear();
            const qint64 serial = history.add(story[i]);
            const QList<HistoryEvent> added = history.events(history.size() - 1);
            eventsOnArrival.insert(serial, int(added.size()));
            if (added.isEmpty()) {
                QCOMPARE(inserted.count(), 0);
            } else {
                ++entriesWithEvents;
                // The new entry's events, in the history's order, above every older row.
                QCOMPARE(inserted.count(), 1);
                QCOMPARE(rangeOf(inserted.first()), qMakePair(0, int(added.size()) - 1));
                for (const HistoryEvent &e : added)
                    QCOMPARE(e.serial, serial);
            }
            compareRows(model, added + before);
            if (QTest::currentTestFailed())
                return;
        }
        QVERIFY2(entriesWithEvents >= 3, "the story should change something in several of its later snapshots");
        QCOMPARE(removed.count(), 0);
        QCOMPARE(resets.count(), 0);
        compareSummaries(model, history, eventsOnArrival);
        // Where activating an entry scrolls: the first row of the newest entry at or before it.
        for (int i = 0; i < history.size(); ++i) {
            int newer = 0, atOrBefore = 0;
            for (int j = 0; j < history.size(); ++j)
                (j > i ? newer : atOrBefore) += eventsOnArrival.value(history.serial(j));
            QCOMPARE(model.firstRowAtOrBefore(history.serial(i)), atOrBefore > 0 ? newer : -1);
        }
    }

    void evictAtBottom()
    {
        const QList<SnapshotPtr> story = demoStory();
        // A minute of history: with a snapshot every 15 s, five entries stay and each new one
        // evicts the oldest.
        HistoryPolicy policy;
        policy.maxAgeSeconds = 60;
        SnapshotHistory history(policy);
        HistoryEventModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
        model.setHistory(&history);
        QCOMPARE(model.rowCount(), 0);

        // What each entry changed when it arrived: the rows keep saying it while it is kept,
        // even once it is the oldest (the history no longer compares it with anything).
        QHash<qint64, QList<HistoryEvent>> arrived;
        QHash<qint64, int> eventsOnArrival;
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        int evictions = 0, evictedRows = 0;
        for (const SnapshotPtr &snapshot : story) {
            const int rowsBefore = model.rowCount();
            const qint64 oldest = history.isEmpty() ? -1 : history.serial(0);
            removed.clear();
            inserted.clear();
            const qint64 serial = history.add(snapshot);
            arrived.insert(serial, history.events(history.size() - 1));
            eventsOnArrival.insert(serial, int(arrived.value(serial).size()));

            // The evicted entries' rows went from the bottom, in one notification.
            qint64 goneEvents = 0;
            for (qint64 s = oldest; s >= 0 && s < history.serial(0); ++s)
                goneEvents += arrived.value(s).size();
            if (goneEvents > 0) {
                ++evictions;
                evictedRows += int(goneEvents);
                QCOMPARE(removed.count(), 1);
                QCOMPARE(rangeOf(removed.first()), qMakePair(rowsBefore - int(goneEvents), rowsBefore - 1));
            } else {
                QCOMPARE(removed.count(), 0);
            }
            QCOMPARE(inserted.count(), arrived.value(serial).isEmpty() ? 0 : 1);

            QList<HistoryEvent> expected;
            for (int i = history.size() - 1; i >= 0; --i)
                expected += arrived.value(history.serial(i));
            compareRows(model, expected);
            if (QTest::currentTestFailed())
                return;
        }
        QCOMPARE(history.size(), 5);
        QVERIFY2(evictions >= 2 && evictedRows >= 2, "the story should evict entries that had events");
        compareSummaries(model, history, eventsOnArrival);
        // Nothing of an evicted entry is left: no row names a serial older than the oldest kept.
        for (int r = 0; r < model.rowCount(); ++r)
            QVERIFY(model.eventAt(r).serial >= history.serial(0));
    }

    void filterScan()
    {
        LongHistory f;
        SnapshotHistory &history = f.history;
        HistoryEventModel &model = f.model;
        const QString filter = kDied;
        const QList<HistoryEvent> expected = historyRows(history, filter);
        QVERIFY(expected.size() >= kLongHistory / 2);
        QVERIFY(expected.size() < historyRows(history).size()); // the filter narrows

        // The scan appends each slice's matches below the ones found before.
        QList<int> insertedAt;
        const QMetaObject::Connection appending = connect(&model, &QAbstractItemModel::rowsAboutToBeInserted, this, [&](const QModelIndex &, int first, int) {
            QCOMPARE(first, model.rowCount());
            insertedAt << first;
        });
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        model.setFilterText(QStringLiteral("  ") + filter + QStringLiteral(" ")); // trimmed
        QCOMPARE(model.filterText(), filter);
        QCOMPARE(resets.count(), 1);
        // The newest matches at once; the rest later, in slices of a few ms.
        QVERIFY(model.rowCount() > 0);
        QVERIFY2(model.isScanning(), "a long history should take more than one slice to scan");
        const QList<HistoryEvent> firstSlice = modelEvents(model);
        QCOMPARE(firstSlice, expected.first(firstSlice.size()));
        QTRY_VERIFY_WITH_TIMEOUT(!model.isScanning(), 30000);
        disconnect(appending);
        QVERIFY2(insertedAt.size() >= 2, "the scan should have inserted in more than one slice");
        compareRows(model, expected);
        if (QTest::currentTestFailed())
            return;

        // A new entry while filtered: its matches go on top.
        history.add(f.flipping.at(kLongHistory)); // back up: nothing died
        QCOMPARE(model.rowCount(), int(expected.size()));
        history.add(f.flipping.at(kLongHistory + 1)); // a death
        compareRows(model, historyRows(history, filter));
        if (QTest::currentTestFailed())
            return;

        // Clearing the filter shows every event again, at once.
        model.setFilterText(QString());
        QVERIFY(!model.isScanning());
        compareRows(model, historyRows(history));
    }

    void evictionDuringAScan()
    {
        LongHistory f;
        SnapshotHistory &history = f.history;
        HistoryEventModel &model = f.model;
        const QString filter = kDied;
        model.setFilterText(filter);
        QVERIFY2(model.isScanning(), "a long history should take more than one slice to scan");
        const int foundFirst = model.rowCount();
        QVERIFY(foundFirst > 0);

        // Keep the newest 3000 entries (2999 intervals of 15 s): the oldest 1000, which the scan
        // (newest first) has not reached yet, go while it runs.
        QSignalSpy evicted(&history, &SnapshotHistory::entriesEvicted);
        HistoryPolicy policy = history.policy();
        policy.maxAgeSeconds = 2999 * kStepMs / 1000;
        history.setPolicy(policy);
        QCOMPARE(evicted.count(), 1);
        QCOMPARE(evicted.first().first().toInt(), 1000);
        QCOMPARE(history.size(), 3000);
        QVERIFY(model.isScanning());
        QCOMPARE(model.rowCount(), foundFirst); // what was found is all newer than what went

        QTRY_VERIFY_WITH_TIMEOUT(!model.isScanning(), 30000);
        // The matches are the kept entries' own, as the history gives them now.
        compareRows(model, historyRows(history, filter));
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(int(model.entries().size()), history.size());
        QCOMPARE(model.entries().front().serial, history.serial(0));

        // Evicting past the scanned part removes the oldest matches from the bottom.
        const int rowsBefore = model.rowCount();
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        policy.maxAgeSeconds = 999 * kStepMs / 1000;
        history.setPolicy(policy);
        QCOMPARE(history.size(), 1000);
        QCOMPARE(removed.count(), 1);
        const QPair<int, int> range = rangeOf(removed.first());
        QCOMPARE(range.second, rowsBefore - 1);
        QVERIFY(range.first > 0);
        for (int r = 0; r < model.rowCount(); ++r)
            QVERIFY(model.eventAt(r).serial >= history.serial(0));
        QCOMPARE(model.rowCount(), range.first);
    }

    void clearedAndDestroyedHistories()
    {
        auto history = std::make_unique<SnapshotHistory>();
        for (const SnapshotPtr &s : demoStory(12))
            history->add(s);
        HistoryEventModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
        model.setHistory(history.get());
        QVERIFY(model.rowCount() > 0);
        QSignalSpy entries(&model, &HistoryEventModel::entriesChanged);
        history->clear();
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(model.entries().empty());
        QCOMPARE(entries.count(), 1);
        for (const SnapshotPtr &s : demoStory(12))
            history->add(s);
        compareRows(model, historyRows(*history));
        if (QTest::currentTestFailed())
            return;
        history.reset(); // the model forgets it
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(model.entries().empty());
    }
};

QTEST_MAIN(TestHistoryEventModel)
#include "tst_historyeventmodel.moc"
