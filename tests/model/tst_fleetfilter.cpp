// SPDX-License-Identifier: GPL-3.0-or-later
// The fleet overview's filter (model/fleetfilter.h) as data rows, one per documented rule and edge
// case, over the small fleet of fleetfixture.h: which slices pass, in display order.

#include "fleetfilter.h"
#include "fleetfixture.h"
#include "fleetgrouping.h"

#include <QTest>

using namespace slicescope;

namespace {

QString s(const char *text) { return QString::fromUtf8(text); }
QStringList names(std::initializer_list<const char *> list)
{
    QStringList out;
    for (const char *n : list)
        out << s(n);
    return out;
}

QStringList shownNames(const ClusterSnapshot &snap, const FleetGrouping &fleet, const FleetFilter &filter)
{
    QStringList out;
    for (int i : filter.shownEntries(fleet))
        out << snap.slices[fleet.entries[i].slice].name;
    return out;
}

} // namespace

class TestFleetFilter : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void text_data()
    {
        QTest::addColumn<QString>("filter");
        QTest::addColumn<QStringList>("shown");
        const QStringList all = fleetfixture::kDisplayOrder;
        // Blank text lets everything through, in display order.
        QTest::newRow("empty") << QString() << all;
        QTest::newRow("only whitespace") << s(" \t\n ") << all;
        // Each searched field.
        QTest::newRow("name") << s("v6e-4x4-1") << names({"v6e-4x4-1"});
        QTest::newRow("name part") << s("mystery") << names({"mystery-0"});
        QTest::newRow("generation") << s("v5p") << names({"v5p-2x2x2-0"});
        QTest::newRow("generation display name") << s("trillium") << names({"v6e-2x4-0", "v6e-4x4-0", "v6e-4x4-1", "v6e-4x4-2"});
        QTest::newRow("unknown generation") << s("unknown") << names({"mystery-0"});
        QTest::newRow("topology") << s("2x2x2") << names({"v4-2x2x2-0", "v5p-2x2x2-0"});
        QTest::newRow("topology unknown") << s("topology") << names({"mystery-0"});
        QTest::newRow("shape, two words") << s("v6e 4x4") << names({"v6e-4x4-0", "v6e-4x4-1", "v6e-4x4-2"});
        QTest::newRow("pod type") << s("v6e-16") << names({"v6e-4x4-0", "v6e-4x4-1", "v6e-4x4-2"});
        QTest::newRow("worker group") << s("ml/v6e-pool-9") << names({"v6e-2x4-0"});
        QTest::newRow("worker group part") << s("pool-1") << names({"v6e-4x4-0", "v6e-4x4-1", "v6e-4x4-2"});
        QTest::newRow("no worker group") << s("no worker group") << names({"v4-2x2x2-0"});
        QTest::newRow("status word") << s("degraded") << names({"v6e-4x4-2", "mystery-0"});
        QTest::newRow("status word, reserved") << s("reserved") << names({"v4-2x2x2-0", "v6e-2x4-0", "v6e-4x4-0"});
        QTest::newRow("use word, two words") << s("partly used") << names({"v6e-2x4-0"});
        QTest::newRow("use word, fully reserved") << s("fully") << names({"v6e-4x4-0"});
        QTest::newRow("use word, claimed") << s("claimed") << names({"v4-2x2x2-0"});
        QTest::newRow("provisioning") << s("provisioning") << names({"v5p-2x2x2-0"});
        QTest::newRow("holder by name") << s("llm-train") << names({"v6e-4x4-0"});
        QTest::newRow("holder by job") << s("job 02000000") << names({"v6e-2x4-0"});
        QTest::newRow("holder of the head only") << s("abcdef01") << names({"v4-2x2x2-0"});
        QTest::newRow("problem") << s("dead") << names({"v6e-4x4-2"});
        QTest::newRow("second problem") << s("hosts alive") << names({"v6e-4x4-2"});
        QTest::newRow("problem of a pending host") << s("pending") << names({"v5p-2x2x2-0"});
        // Case: the words and the fields are compared in lower case.
        QTest::newRow("upper-case word") << s("TRILLIUM V6E-2X4") << names({"v6e-2x4-0"});
        QTest::newRow("mixed case status") << s("Ready") << names({"v6e-4x4-1"});
        // Every word must match, in any order, each in any field.
        QTest::newRow("every word must match") << s("v6e ready") << names({"v6e-4x4-1"});
        QTest::newRow("word order does not matter") << s("ready v6e") << names({"v6e-4x4-1"});
        QTest::newRow("words from different fields") << s("pool-10 dead") << names({"v6e-4x4-2"});
        QTest::newRow("a word repeated") << s("dead dead") << names({"v6e-4x4-2"});
        QTest::newRow("one word fails") << s("v6e zzz") << QStringList{};
        QTest::newRow("extra whitespace") << s("  v6e \t  ready  ") << names({"v6e-4x4-1"});
        // A word never spans two fields: the fields are kept apart.
        QTest::newRow("across two fields") << s("v6e4x4") << QStringList{};
        QTest::newRow("nothing") << s("zzz") << QStringList{};
        // No quoting and no field syntax: quotes and colons are searched for as they are.
        QTest::newRow("quotes are characters") << s("\"partly used\"") << QStringList{};
        QTest::newRow("quoted single word") << s("\"ready\"") << QStringList{};
        QTest::newRow("no field syntax") << s("status:ready") << QStringList{};
        QTest::newRow("a colon-free field part still matches") << s("ml/odd") << names({"mystery-0"});
    }
    void text()
    {
        QFETCH(QString, filter);
        QFETCH(QStringList, shown);
        const ClusterSnapshot snap = fleetfixture::fleet();
        const FleetGrouping fleet = groupFleet(snap);
        FleetFilter f;
        f.setText(filter);
        QCOMPARE(f.text(), filter); // kept as typed
        QCOMPARE(shownNames(snap, fleet, f), shown);
    }

    void terms()
    {
        FleetFilter f;
        QVERIFY(f.terms().isEmpty());
        f.setText(s("  V6E\tReady \n"));
        QCOMPARE(f.terms(), (QStringList{s("v6e"), s("ready")}));
        f.setText(QString());
        QVERIFY(f.terms().isEmpty());
    }

    void status_data()
    {
        QTest::addColumn<QList<SliceStatus>>("statuses");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QStringList>("shown");
        QTest::newRow("empty list: all") << QList<SliceStatus>{} << QString() << fleetfixture::kDisplayOrder;
        QTest::newRow("ready") << QList<SliceStatus>{SliceStatus::Ready} << QString() << names({"v6e-4x4-1"});
        QTest::newRow("reserved: full, partly used and claimed")
            << QList<SliceStatus>{SliceStatus::Reserved} << QString() << names({"v4-2x2x2-0", "v6e-2x4-0", "v6e-4x4-0"});
        QTest::newRow("two statuses, display order kept")
            << QList<SliceStatus>{SliceStatus::Degraded, SliceStatus::Provisioning} << QString() << names({"v5p-2x2x2-0", "v6e-4x4-2", "mystery-0"});
        QTest::newRow("every status") << QList<SliceStatus>{SliceStatus::Ready, SliceStatus::Reserved, SliceStatus::Degraded, SliceStatus::Provisioning}
                                      << QString() << fleetfixture::kDisplayOrder;
        // A slice must pass both filters.
        QTest::newRow("status and text") << QList<SliceStatus>{SliceStatus::Reserved} << s("v6e") << names({"v6e-2x4-0", "v6e-4x4-0"});
        QTest::newRow("status and text, none pass both") << QList<SliceStatus>{SliceStatus::Ready} << s("dead") << QStringList{};
        QTest::newRow("text names another status") << QList<SliceStatus>{SliceStatus::Degraded} << s("ready") << QStringList{};
    }
    void status()
    {
        QFETCH(QList<SliceStatus>, statuses);
        QFETCH(QString, text);
        QFETCH(QStringList, shown);
        const ClusterSnapshot snap = fleetfixture::fleet();
        const FleetGrouping fleet = groupFleet(snap);
        FleetFilter f;
        f.setStatuses(statuses);
        f.setText(text);
        QCOMPARE(f.statuses(), statuses);
        QCOMPARE(shownNames(snap, fleet, f), shown);
        // matches() agrees with shownEntries(), entry by entry.
        for (const FleetEntry &e : fleet.entries)
            QCOMPARE(f.matches(e), shown.contains(snap.slices[e.slice].name));
    }

    void searchTextFields()
    {
        // fleetSearchText() on its own: one field a line, lower case, holders and problems last.
        const ClusterSnapshot snap = fleetfixture::fleet();
        const Slice &slice = snap.slices[snap.sliceIndex(s("v6e-4x4-2"))];
        QCOMPARE(fleetSearchText(slice, {s("Holder-A")}).split(u'\n'),
                 (QStringList{s("v6e-4x4-2"), s("v6e"), s("4x4"), s("v6e 4x4"), s("v6e-16"), s("ml/v6e-pool-10"), s("degraded"), s("degraded"),
                              s("tpu v6e (trillium)"), s("holder-a"), s("worker 2 is dead"), s("3 of 4 hosts alive")}));
    }

    void emptyFleet()
    {
        FleetFilter f;
        QVERIFY(f.shownEntries(FleetGrouping{}).isEmpty());
        f.setText(s("v6e"));
        QVERIFY(f.shownEntries(FleetGrouping{}).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestFleetFilter)
#include "tst_fleetfilter.moc"
