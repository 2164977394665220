// SPDX-License-Identifier: GPL-3.0-or-later
// groupFleet() without a widget: the groups in display order (generation, then worker group in
// natural order, none last), their titles and sums, and what each tile says (shape, note, holders).

#include "fleetfixture.h"
#include "fleetgrouping.h"

#include <QTest>

using namespace slicescope;

namespace {

QString s(const char *text) { return QString::fromUtf8(text); }

const FleetEntry &entryOf(const ClusterSnapshot &snap, const FleetGrouping &fleet, const QString &name)
{
    const int slice = snap.sliceIndex(name);
    Q_ASSERT(slice >= 0);
    return fleet.entries[slice]; // entries follow the snapshot's slices
}

} // namespace

class TestFleetGrouping : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void emptySnapshot()
    {
        const FleetGrouping fleet = groupFleet(ClusterSnapshot{});
        QVERIFY(fleet.entries.isEmpty());
        QVERIFY(fleet.groups.isEmpty());
    }

    void groupsInDisplayOrder()
    {
        const ClusterSnapshot snap = fleetfixture::fleet();
        const FleetGrouping fleet = groupFleet(snap);
        QCOMPARE(fleet.entries.size(), snap.slices.size());
        QStringList titles;
        QStringList names;
        for (const FleetGroup &g : fleet.groups) {
            titles << g.title;
            for (int i : g.entries) {
                QCOMPARE(fleet.entries[i].group, int(&g - fleet.groups.constData())); // entry and group agree
                names << snap.slices[fleet.entries[i].slice].name;
            }
        }
        // v4 < v5p < v6e < unknown; "pool-9" before "pool-10" (natural, not byte order).
        QCOMPARE(titles, (QStringList{s("v4 \u00b7 no worker group"), s("v5p \u00b7 ml/v5p-pool"), s("v6e \u00b7 ml/v6e-pool-9"),
                                      s("v6e \u00b7 ml/v6e-pool-10"), s("unknown generation \u00b7 ml/odd")}));
        QCOMPARE(names, fleetfixture::kDisplayOrder);
    }

    void slicesWithoutWorkerGroupComeLastInTheirGeneration()
    {
        ClusterSnapshot snap;
        snap.slices = {fleetfixture::slice("a-0", "v6e", "2x4", 4, ""), fleetfixture::slice("b-0", "v6e", "2x4", 4, "ns/c/zeta"),
                       fleetfixture::slice("c-0", "v6e", "2x4", 4, "ns/c/alpha")};
        const FleetGrouping fleet = groupFleet(snap);
        QCOMPARE(fleet.groups.size(), 3);
        QCOMPARE(fleet.groups[0].workerGroup, s("ns/c/alpha"));
        QCOMPARE(fleet.groups[1].workerGroup, s("ns/c/zeta"));
        QCOMPARE(fleet.groups[2].title, s("v6e \u00b7 no worker group"));
    }

    void groupSums()
    {
        const ClusterSnapshot snap = fleetfixture::fleet();
        const FleetGrouping fleet = groupFleet(snap);
        const FleetGroup &pool10 = fleet.groups[3];
        QCOMPARE(pool10.title, s("v6e \u00b7 ml/v6e-pool-10"));
        QCOMPARE(pool10.entries.size(), 3);
        QCOMPARE(pool10.chips, 48);
        QCOMPARE(pool10.reserved, 16);
        QCOMPARE(pool10.ready, 1);
        QCOMPARE(fleet.groups[2].reserved, 2);
        QCOMPARE(fleet.groups[2].ready, 0);
    }

    void tileText_data()
    {
        QTest::addColumn<QString>("slice");
        QTest::addColumn<SliceStatus>("status");
        QTest::addColumn<int>("use");
        QTest::addColumn<QString>("shape");
        QTest::addColumn<QString>("note");
        QTest::addColumn<QString>("noteSuffix");
        QTest::addColumn<QString>("holders");
        QTest::addColumn<QList<int>>("chipsReservedDownStranded");
        QTest::newRow("ready") << s("v6e-4x4-1") << SliceStatus::Ready << int(SliceUse::Ready) << s("4x4 \u00b7 4 hosts \u00d7 4 chips")
                               << s("free for a slice placement group") << QString() << QString() << QList<int>{16, 0, 0, 0};
        QTest::newRow("fully reserved, by name") << s("v6e-4x4-0") << SliceStatus::Reserved << int(SliceUse::FullyReserved)
                                                 << s("4x4 \u00b7 4 hosts \u00d7 4 chips") << s("held by llm-train") << QString()
                                                 << s("llm-train (16 chips)") << QList<int>{16, 16, 0, 0};
        QTest::newRow("partly used, by job") << s("v6e-2x4-0") << SliceStatus::Reserved << int(SliceUse::PartlyUsed)
                                             << s("2x4 \u00b7 2 hosts \u00d7 4 chips") << s("6 chips stranded \u00b7 held by job 02000000")
                                             << QString() << s("job 02000000 (2 chips)") << QList<int>{8, 2, 0, 6};
        QTest::newRow("claimed, head only, by id") << s("v4-2x2x2-0") << SliceStatus::Reserved << int(SliceUse::Claimed)
                                                   << s("2x2x2 \u00b7 2 hosts \u00d7 4 chips") << s("claimed by group abcdef012345") << QString()
                                                   << s("group abcdef012345 (the head resource)") << QList<int>{8, 0, 0, 0};
        QTest::newRow("degraded: first problem, the rest counted") << s("v6e-4x4-2") << SliceStatus::Degraded << int(SliceUse::Degraded)
                                                                   << s("4x4 \u00b7 4 hosts \u00d7 4 chips") << s("worker 2 is DEAD") << s(" (+1 more)")
                                                                   << QString() << QList<int>{16, 0, 4, 16};
        QTest::newRow("provisioning: hosts still starting") << s("v5p-2x2x2-0") << SliceStatus::Provisioning << int(SliceUse::Provisioning)
                                                            << s("2x2x2 \u00b7 2 hosts \u00d7 4 chips") << s("2 of 2 hosts still starting")
                                                            << QString() << QString() << QList<int>{8, 0, 8, 8};
        QTest::newRow("unknown shape") << s("mystery-0") << SliceStatus::Degraded << int(SliceUse::Degraded)
                                       << s("topology unknown \u00b7 1 host \u00d7 4 chips") << s("no generation label") << QString()
                                       << QString() << QList<int>{4, 0, 0, 4};
    }
    void tileText()
    {
        QFETCH(QString, slice);
        QFETCH(SliceStatus, status);
        QFETCH(int, use);
        QFETCH(QString, shape);
        QFETCH(QString, note);
        QFETCH(QString, noteSuffix);
        QFETCH(QString, holders);
        QFETCH(QList<int>, chipsReservedDownStranded);
        const ClusterSnapshot snap = fleetfixture::fleet();
        const FleetGrouping fleet = groupFleet(snap);
        const FleetEntry &e = entryOf(snap, fleet, slice);
        QCOMPARE(e.status, status);
        QCOMPARE(int(e.use), use);
        QCOMPARE(e.shapeText, shape);
        // What a narrow tile shows instead: the shape without its chips per host, then the topology.
        const QString hostsOnly = shape.section(QStringLiteral(" \u00d7 "), 0, 0), topology = shape.section(QStringLiteral(" \u00b7 "), 0, 0);
        const QStringList shorter = hostsOnly == shape ? QStringList{topology} : QStringList{hostsOnly, topology};
        QCOMPARE(e.shorterShapes, shorter);
        QCOMPARE(e.note, note);
        QCOMPARE(e.noteSuffix, noteSuffix);
        QCOMPARE(e.holders, holders);
        QCOMPARE((QList<int>{e.chips, e.reserved, e.down, e.stranded}), chipsReservedDownStranded);
    }

    // A failure's reason is on the tile (issue 17): the Ray node's death message, else the pod's
    // status (reason: message), as the details show it; never the reason of another host than the one the note names.
    void degradedNoteSaysWhy()
    {
        ClusterSnapshot snap = fleetfixture::fleet();
        Slice &degraded = snap.slices[2];
        QCOMPARE(degraded.name, QStringLiteral("v6e-4x4-2"));
        RayNode dead;
        dead.id = QStringLiteral("aa");
        dead.stateMessage = QStringLiteral("Unexpected termination:\n the node's raylet failed its health check");
        Pod pod;
        pod.ns = QStringLiteral("ml");
        pod.name = QStringLiteral("w2");
        pod.phase = QStringLiteral("Failed");
        pod.reason = QStringLiteral("Evicted");
        snap.rayNodes = {dead};
        snap.pods = {pod};
        degraded.hosts[2].rayNode = 0;
        degraded.hosts[2].pod = 0;
        QCOMPARE(entryOf(snap, groupFleet(snap), degraded.name).note,
                 QStringLiteral("worker 2 is DEAD: Unexpected termination: the node's raylet failed its health check"));
        // Ray said nothing: the pod's reason.
        snap.rayNodes[0].stateMessage.clear();
        QCOMPARE(entryOf(snap, groupFleet(snap), degraded.name).note, QStringLiteral("worker 2 is DEAD: Evicted"));
        // The reason belongs to worker 2: on worker 1 (alive) it is not borrowed.
        degraded.hosts[2].rayNode = -1;
        degraded.hosts[2].pod = -1;
        degraded.hosts[1].pod = 0;
        QCOMPARE(entryOf(snap, groupFleet(snap), degraded.name).note, QStringLiteral("worker 2 is DEAD"));
    }

    void searchTextIsLowerCase()
    {
        const ClusterSnapshot snap = fleetfixture::fleet();
        const FleetGrouping fleet = groupFleet(snap);
        for (const FleetEntry &e : fleet.entries)
            QCOMPARE(e.haystack, e.haystack.toLower());
        QVERIFY(entryOf(snap, fleet, s("v6e-4x4-2")).haystack.contains(s("worker 2 is dead")));
    }
};

QTEST_GUILESS_MAIN(TestFleetGrouping)
#include "tst_fleetgrouping.moc"
