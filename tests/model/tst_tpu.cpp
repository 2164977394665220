// SPDX-License-Identifier: GPL-3.0-or-later
// The generation table and topology maths of model/tpu.h against docs/facts.md sections 2 and 3.
// Every expected number below is derived by hand from docs/facts.md (the derivation sits in a comment
// next to the row where it is not obvious), never copied from program output.

#include "tpu.h"

#include <QSet>
#include <QTest>

#include <algorithm>
#include <cstdlib>

using namespace slicescope;
using namespace slicescope::tpu;

namespace {

const Generation &gen(const QString &name)
{
    const Generation *g = findGeneration(name);
    if (!g)
        qFatal("test bug: no generation %s", qPrintable(name));
    return *g;
}

Topology topo(const QString &text)
{
    const auto t = parseTopology(text);
    if (!t)
        qFatal("test bug: %s does not parse", qPrintable(text));
    return *t;
}

QString dimsText(Dims d) { return QStringLiteral("%1x%2x%3").arg(d.x).arg(d.y).arg(d.z); }
QString coordText(ChipCoord c) { return QStringLiteral("(%1,%2,%3)").arg(c.x).arg(c.y).arg(c.z); }

QString axesText(const std::array<bool, 3> &w)
{
    QString s;
    for (int a = 0; a < 3; ++a)
        if (w[a])
            s += QLatin1Char("xyz"[a]);
    return s;
}

// A layout with the given chips per host; 0 asks for the generation's default host.
SliceLayout layoutOf(const QString &g, const QString &t, int chipsPerHost)
{
    const Topology tp = topo(t);
    return SliceLayout(gen(g), tp, chipsPerHost ? chipsPerHost : defaultChipsPerHost(gen(g), tp));
}

} // namespace

class TestTpu : public QObject
{
    Q_OBJECT

private slots:
    void generationTable_data();
    void generationTable();
    void findGeneration_data();
    void findGeneration();
    void declaredSpellingsResolve();

    void podType_data();
    void podType();
    void generationOfPodType_data();
    void generationOfPodType();
    void podTypeRoundTrip();

    void parseTopology_data();
    void parseTopology();
    void topologyValidity_data();
    void topologyValidity();
    void validTopologies_data();
    void validTopologies();
    void topologyNote_data();
    void topologyNote();

    void hosts_data();
    void hosts();
    void chipPosition_data();
    void chipPosition();
    void layoutIsInvertible_data();
    void layoutIsInvertible();

    void iciLinks_data();
    void iciLinks();

    void isValidTpuRequest_data();
    void isValidTpuRequest();
};

// docs/facts.md 3's table, one row per generation.
void TestTpu::generationTable_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("podTypePrefix");
    QTest::addColumn<QString>("gkeAccelerator");
    QTest::addColumn<bool>("is3D");
    QTest::addColumn<int>("tensorCoresPerChip");
    QTest::addColumn<QList<int>>("chipsPerHost");
    QTest::addColumn<int>("maxChips");

    // Pod-type suffix counts TensorCores: x2 for v4, v5p, v7x; x1 for v5e and v6e (docs/facts.md 2.1).
    QTest::newRow("v4") << "v4" << "v4" << "tpu-v4-podslice" << true << 2 << QList<int>{4} << 16 * 16 * 16;
    QTest::newRow("v5e") << "v5e" << "v5litepod" << "tpu-v5-lite-podslice" << false << 1 << QList<int>{1, 4, 8} << 16 * 16;
    QTest::newRow("v5p") << "v5p" << "v5p" << "tpu-v5p-slice" << true << 2 << QList<int>{4} << 16 * 20 * 28;
    QTest::newRow("v6e") << "v6e" << "v6e" << "tpu-v6e-slice" << false << 1 << QList<int>{1, 4, 8} << 16 * 16;
    QTest::newRow("v7x") << "v7x" << "v7x" << "tpu7x" << true << 2 << QList<int>{1, 4} << 9216;
}

void TestTpu::generationTable()
{
    QFETCH(QString, name);
    QFETCH(QString, podTypePrefix);
    QFETCH(QString, gkeAccelerator);
    QFETCH(bool, is3D);
    QFETCH(int, tensorCoresPerChip);
    QFETCH(QList<int>, chipsPerHost);
    QFETCH(int, maxChips);

    const Generation &g = gen(name);
    QCOMPARE(g.name, name);
    QCOMPARE(g.podTypePrefix, podTypePrefix);
    QCOMPARE(g.gkeAccelerator, gkeAccelerator);
    QCOMPARE(g.is3D, is3D);
    QCOMPARE(g.tensorCoresPerChip, tensorCoresPerChip);
    QCOMPARE(g.chipsPerHostOptions, chipsPerHost);
    QCOMPARE(g.maxChips, maxChips);
    QCOMPARE(g.largest.volume(), maxChips);
}

void TestTpu::findGeneration_data()
{
    QTest::addColumn<QString>("spelling");
    QTest::addColumn<QString>("expected"); // empty: must not resolve

    // What people and the APIs write (docs/facts.md 2.1, 2.2, 3).
    QTest::newRow("v4") << "v4" << "v4";
    QTest::newRow("TPU-V4") << "TPU-V4" << "v4";
    QTest::newRow("gke v4") << "tpu-v4-podslice" << "v4";
    QTest::newRow("v5e") << "v5e" << "v5e";
    QTest::newRow("V5E") << "V5E" << "v5e";
    QTest::newRow("v5litepod") << "v5litepod" << "v5e";
    QTest::newRow("TPU-V5LITEPOD") << "TPU-V5LITEPOD" << "v5e";
    QTest::newRow("gke v5e") << "tpu-v5-lite-podslice" << "v5e";
    QTest::newRow("v5p") << "v5p" << "v5p";
    QTest::newRow("TPU-V5P") << "TPU-V5P" << "v5p";
    QTest::newRow("gke v5p") << "tpu-v5p-slice" << "v5p";
    QTest::newRow("v6e") << "v6e" << "v6e";
    QTest::newRow("V6E") << "V6E" << "v6e";
    QTest::newRow("TPU-V6E") << "TPU-V6E" << "v6e";
    QTest::newRow("gke v6e") << "tpu-v6e-slice" << "v6e";
    QTest::newRow("gke v6e upper") << "TPU-V6E-SLICE" << "v6e";
    QTest::newRow("Trillium") << "Trillium" << "v6e";
    QTest::newRow("padded") << "  v6e " << "v6e";
    QTest::newRow("v7x") << "v7x" << "v7x";
    QTest::newRow("tpu7x") << "tpu7x" << "v7x";
    QTest::newRow("TPU7X") << "TPU7X" << "v7x";
    QTest::newRow("TPU-V7X") << "TPU-V7X" << "v7x";
    QTest::newRow("Ironwood") << "Ironwood" << "v7x";
    // GKE's label values seen in the wild (docs/facts.md 3, 4.5): single-host v5e machines, and
    // machine-type-suffixed forms of a known value.
    QTest::newRow("gke v5e single-host") << "tpu-v5-lite-device" << "v5e";
    QTest::newRow("gke v7x machine type") << "tpu7x-standard-4t" << "v7x";
    QTest::newRow("gke v6e suffixed") << "tpu-v6e-slice-standard-8t" << "v6e";
    QTest::newRow("gke v5e device suffixed") << "tpu-v5-lite-device-ct5lp" << "v5e";

    QTest::newRow("empty") << "" << "";
    QTest::newRow("v3") << "v3" << "";
    QTest::newRow("TPU-V3") << "TPU-V3" << "";
    QTest::newRow("v5") << "v5" << "";
    QTest::newRow("v6") << "v6" << "";
    QTest::newRow("v7") << "v7" << "";
    QTest::newRow("tpu") << "tpu" << "";
    QTest::newRow("TPU-") << "TPU-" << "";
    QTest::newRow("tpu8x") << "tpu8x" << "";
    QTest::newRow("pod type is no accelerator") << "v6e-16" << "";
    QTest::newRow("v5litepods") << "v5litepods" << "";
    QTest::newRow("gke slice of unknown gen") << "tpu-v3-slice" << "";
    QTest::newRow("gpu") << "nvidia-tesla-a100" << "";
    QTest::newRow("prefix without a dash") << "tpu7xl" << "";
    QTest::newRow("unknown gke value") << "tpu-v9-hyperslice" << "";
    QTest::newRow("suffix on a non-gke spelling") << "v6e-standard" << "";
}

void TestTpu::findGeneration()
{
    QFETCH(QString, spelling);
    QFETCH(QString, expected);
    const Generation *g = tpu::findGeneration(spelling);
    QCOMPARE(g ? g->name : QString(), expected);
}

// Every spelling the table itself declares must lead back to its own row, in any case.
void TestTpu::declaredSpellingsResolve()
{
    QCOMPARE(generations().size(), 5);
    QStringList order;
    for (const Generation &g : generations()) {
        order << g.name;
        QStringList spellings{g.name, g.podTypePrefix, g.gkeAccelerator, g.rayAcceleratorType};
        spellings += g.aliases;
        for (const QString &s : std::as_const(spellings)) {
            for (const QString &variant : {s, s.toUpper(), s.toLower()}) {
                const Generation *found = tpu::findGeneration(variant);
                QVERIFY2(found == &g, qPrintable(QStringLiteral("%1 -> %2, expected %3")
                                                     .arg(variant, found ? found->name : QStringLiteral("nothing"), g.name)));
            }
        }
    }
    QCOMPARE(order, (QStringList{QStringLiteral("v4"), QStringLiteral("v5e"), QStringLiteral("v5p"),
                                 QStringLiteral("v6e"), QStringLiteral("v7x")}));
}

void TestTpu::podType_data()
{
    QTest::addColumn<QString>("generation");
    QTest::addColumn<QString>("topology");
    QTest::addColumn<QString>("expected");

    // chips x 2 TensorCores for v4, v5p, v7x; chips x 1 for v5e and v6e.
    QTest::newRow("v4 2x2x1") << "v4" << "2x2x1" << "v4-8";
    QTest::newRow("v4 2x2x2") << "v4" << "2x2x2" << "v4-16";
    QTest::newRow("v4 4x4x4") << "v4" << "4x4x4" << "v4-128";
    QTest::newRow("v4 16x16x16") << "v4" << "16x16x16" << "v4-8192";
    QTest::newRow("v5e 1x1") << "v5e" << "1x1" << "v5litepod-1";
    QTest::newRow("v5e 2x4") << "v5e" << "2x4" << "v5litepod-8";
    QTest::newRow("v5e 4x4") << "v5e" << "4x4" << "v5litepod-16";
    QTest::newRow("v5e 16x16") << "v5e" << "16x16" << "v5litepod-256";
    QTest::newRow("v5p 2x2x1") << "v5p" << "2x2x1" << "v5p-8";
    QTest::newRow("v5p 4x4x4") << "v5p" << "4x4x4" << "v5p-128";
    QTest::newRow("v5p 16x20x28") << "v5p" << "16x20x28" << "v5p-17920";
    QTest::newRow("v6e 1x1") << "v6e" << "1x1" << "v6e-1";
    QTest::newRow("v6e 2x4") << "v6e" << "2x4" << "v6e-8";
    QTest::newRow("v6e 4x4") << "v6e" << "4x4" << "v6e-16";
    // docs/facts.md 2.1: the pod type does not identify the topology.
    QTest::newRow("v6e 2x8 same pod type") << "v6e" << "2x8" << "v6e-16";
    QTest::newRow("v6e 16x16") << "v6e" << "16x16" << "v6e-256";
    QTest::newRow("v7x 1x1x1") << "v7x" << "1x1x1" << "v7x-2";
    QTest::newRow("v7x 2x2x1") << "v7x" << "2x2x1" << "v7x-8";
    QTest::newRow("v7x 2x2x2") << "v7x" << "2x2x2" << "v7x-16";
    QTest::newRow("v7x 16x24x24") << "v7x" << "16x24x24" << "v7x-18432";
}

void TestTpu::podType()
{
    QFETCH(QString, generation);
    QFETCH(QString, topology);
    QFETCH(QString, expected);
    QCOMPARE(tpu::podType(gen(generation), topo(topology)), expected);
}

void TestTpu::generationOfPodType_data()
{
    QTest::addColumn<QString>("podType");
    QTest::addColumn<QString>("expected"); // empty: unknown
    QTest::addColumn<int>("tensorCores");

    QTest::newRow("v4-16") << "v4-16" << "v4" << 16;
    QTest::newRow("v5litepod-16") << "v5litepod-16" << "v5e" << 16;
    QTest::newRow("v5litepod-1") << "v5litepod-1" << "v5e" << 1;
    QTest::newRow("v5p-128") << "v5p-128" << "v5p" << 128;
    QTest::newRow("v6e-16") << "v6e-16" << "v6e" << 16;
    QTest::newRow("v7x-16") << "v7x-16" << "v7x" << 16;
    // GKE's spelling, which Ray normalises to v7x-16 (docs/facts.md 2.1): accept it anyway.
    QTest::newRow("tpu7x-16") << "tpu7x-16" << "v7x" << 16;

    QTest::newRow("unknown generation") << "v3-8" << "" << 0;
    QTest::newRow("no count") << "v6e" << "" << 0;
    QTest::newRow("empty count") << "v6e-" << "" << 0;
    QTest::newRow("count not a number") << "v6e-x" << "" << 0;
    QTest::newRow("zero") << "v6e-0" << "" << 0;
    QTest::newRow("no prefix") << "-16" << "" << 0;
    QTest::newRow("empty") << "" << "" << 0;
}

void TestTpu::generationOfPodType()
{
    QFETCH(QString, podType);
    QFETCH(QString, expected);
    QFETCH(int, tensorCores);
    int cores = 0;
    const Generation *g = tpu::generationOfPodType(podType, &cores);
    QCOMPARE(g ? g->name : QString(), expected);
    QCOMPARE(cores, tensorCores);
}

// podType() and generationOfPodType() agree for every valid shape of every generation.
void TestTpu::podTypeRoundTrip()
{
    for (const Generation &g : generations()) {
        for (const Topology &t : tpu::validTopologies(g)) {
            int cores = 0;
            const QString pt = tpu::podType(g, t);
            QCOMPARE(tpu::generationOfPodType(pt, &cores), &g);
            QCOMPARE(cores, t.chips() * g.tensorCoresPerChip);
        }
    }
}

void TestTpu::parseTopology_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<QString>("dims"); // x, y, z with z=1 for 2D
    QTest::addColumn<int>("rank");

    QTest::newRow("2D") << "4x4" << true << "4x4x1" << 2;
    QTest::newRow("2D asymmetric") << "8x16" << true << "8x16x1" << 2;
    QTest::newRow("3D") << "2x4x8" << true << "2x4x8" << 3;
    QTest::newRow("3D with z=1") << "2x2x1" << true << "2x2x1" << 3;
    QTest::newRow("upper-case X") << "4X4" << true << "4x4x1" << 2;
    QTest::newRow("spaces around") << " 2x2x2 " << true << "2x2x2" << 3;
    QTest::newRow("one number") << "16" << false << "" << 0;
    QTest::newRow("four axes") << "2x2x2x2" << false << "" << 0;
    QTest::newRow("empty axis") << "4x" << false << "" << 0;
    QTest::newRow("leading x") << "x4" << false << "" << 0;
    QTest::newRow("zero") << "0x4" << false << "" << 0;
    QTest::newRow("negative") << "-4x4" << false << "" << 0;
    QTest::newRow("words") << "4by4" << false << "" << 0;
    QTest::newRow("empty") << "" << false << "" << 0;
}

void TestTpu::parseTopology()
{
    QFETCH(QString, text);
    QFETCH(bool, ok);
    QFETCH(QString, dims);
    QFETCH(int, rank);
    const auto t = tpu::parseTopology(text);
    QCOMPARE(t.has_value(), ok);
    if (!ok)
        return;
    QCOMPARE(dimsText(t->dims), dims);
    QCOMPARE(t->rank, rank);
    QCOMPARE(t->toString(), text.trimmed().toLower());
}

void TestTpu::topologyValidity_data()
{
    QTest::addColumn<QString>("generation");
    QTest::addColumn<QString>("topology");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<QString>("mentions"); // the problem must name this (the fix, usually)

    // Ray 2.60's VALID_TPU_TOPOLOGY (docs/facts.md 3, ray/_private/accelerators/tpu.py):
    // v4: 2x2x1, 2x2x2, 2x2x4, 2x4x4, then each axis a multiple of 4 up to 12, 12, 16, in any order.
    for (const char *t : {"2x2x1", "2x2x2", "2x2x4", "2x4x4", "4x4x4", "4x4x8", "4x8x12", "12x12x16", "12x12x12",
                          "8x4x4", "4x8x4", "12x4x16"})
        QTest::addRow("v4 %s", t) << "v4" << QString::fromLatin1(t) << true << "";
    QTest::newRow("v4 1x1x1 is no v4 shape") << "v4" << "1x1x1" << false << "";
    QTest::newRow("v4 2D") << "v4" << "2x2" << false << "AxBxC";
    QTest::newRow("v4 4x4 2D") << "v4" << "4x4" << false << "3D";
    QTest::newRow("v4 2x2x3") << "v4" << "2x2x3" << false << "";
    QTest::newRow("v4 2x2x8 small axis too long") << "v4" << "2x2x8" << false << "multiple of 4";
    QTest::newRow("v4 4x4x2: small shapes only in ascending order") << "v4" << "4x4x2" << false << "2x4x4";
    QTest::newRow("v4 4x4x6") << "v4" << "4x4x6" << false << "multiple of 4";
    QTest::newRow("v4 4x2x2 small out of order") << "v4" << "4x2x2" << false << "";
    // GKE makes 16x16x16 v4 slices, but Ray's slice_placement_group refuses them.
    QTest::newRow("v4 16x16x16: GKE yes, Ray no") << "v4" << "16x16x16" << false << "GKE makes v4 slices up to 16x16x16";
    QTest::newRow("v4 past 16") << "v4" << "16x16x20" << false << "12x12x16";
    QTest::newRow("v4 4x4x20") << "v4" << "4x4x20" << false << "12x12x16";

    // v5p: as v4, each axis a multiple of 4 up to 16, 16, 24.
    for (const char *t : {"2x2x1", "2x2x2", "2x2x4", "2x4x4", "4x4x4", "4x4x24", "16x16x16", "16x16x24", "16x4x24", "8x16x4"})
        QTest::addRow("v5p %s", t) << "v5p" << QString::fromLatin1(t) << true << "";
    QTest::newRow("v5p 16x20x28: GKE yes, Ray no") << "v5p" << "16x20x28" << false << "16x16x24";
    QTest::newRow("v5p 4x4x28") << "v5p" << "4x4x28" << false << "16x16x24";
    QTest::newRow("v5p z past 28") << "v5p" << "16x20x32" << false << "16x16x24";
    QTest::newRow("v5p 20x20x20") << "v5p" << "20x20x20" << false << "16x16x24";
    QTest::newRow("v5p 2D") << "v5p" << "4x4" << false << "3D";
    QTest::newRow("v5p 4x4x6") << "v5p" << "4x4x6" << false << "multiple of 4";

    // v7x: exactly ten shapes, 2x2x1 to 8x16x16, ascending only; no 1x1x1.
    for (const char *t : {"2x2x1", "2x2x2", "2x2x4", "2x4x4", "4x4x4", "4x4x8", "4x8x8", "8x8x8", "8x8x16", "8x16x16"})
        QTest::addRow("v7x %s", t) << "v7x" << QString::fromLatin1(t) << true << "";
    QTest::newRow("v7x 1x1x1 is not in Ray's list") << "v7x" << "1x1x1" << false << "2x2x1";
    QTest::newRow("v7x 16x24x24: GKE yes, Ray no") << "v7x" << "16x24x24" << false << "8x16x16";
    QTest::newRow("v7x 16x16x16") << "v7x" << "16x16x16" << false << "8x16x16";
    QTest::newRow("v7x 12x12x12 within bounds but not listed") << "v7x" << "12x12x12" << false << "axes go up to 8x16x16";
    QTest::newRow("v7x 1x1x2") << "v7x" << "1x1x2" << false << "";
    QTest::newRow("v7x 2D 1x1") << "v7x" << "1x1" << false << "3D";
    QTest::newRow("v7x 2D 2x2") << "v7x" << "2x2" << false << "3D";
    QTest::newRow("v7x out of order") << "v7x" << "8x4x4" << false << "4x4x8";

    // v5e and v6e: 1x1, 2x2, 2x4, 2x8, 4x4, 4x8, 8x8, 8x16, 16x16 (2x8 is Ray's, not GKE's).
    for (const char *g : {"v5e", "v6e"}) {
        for (const char *t : {"1x1", "2x2", "2x4", "2x8", "4x4", "4x8", "8x8", "8x16", "16x16"})
            QTest::addRow("%s %s", g, t) << QString::fromLatin1(g) << QString::fromLatin1(t) << true << "";
        QTest::addRow("%s 4x2 out of order", g) << QString::fromLatin1(g) << "4x2" << false << "2x4";
        QTest::addRow("%s 8x2 out of order", g) << QString::fromLatin1(g) << "8x2" << false << "2x8";
        QTest::addRow("%s 16x8 out of order", g) << QString::fromLatin1(g) << "16x8" << false << "8x16";
        QTest::addRow("%s 1x2", g) << QString::fromLatin1(g) << "1x2" << false << "";
        QTest::addRow("%s 12x12", g) << QString::fromLatin1(g) << "12x12" << false << "";
        QTest::addRow("%s 16x32 too big", g) << QString::fromLatin1(g) << "16x32" << false << "16x16";
        QTest::addRow("%s 32x32 too big", g) << QString::fromLatin1(g) << "32x32" << false << "16x16";
        QTest::addRow("%s 3D 2x2x1", g) << QString::fromLatin1(g) << "2x2x1" << false << "2D";
        QTest::addRow("%s 3D 4x4x4", g) << QString::fromLatin1(g) << "4x4x4" << false << "AxB";
    }
}

void TestTpu::topologyValidity()
{
    QFETCH(QString, generation);
    QFETCH(QString, topology);
    QFETCH(bool, valid);
    QFETCH(QString, mentions);
    const Generation &g = gen(generation);
    const Topology t = topo(topology);
    const QString problem = topologyProblem(g, t);
    QVERIFY2(problem.isEmpty() == valid, qPrintable(problem.isEmpty() ? QStringLiteral("accepted") : problem));
    QCOMPARE(isValidTopology(g, t), valid);
    QCOMPARE(tpu::validTopologies(g).contains(t), valid);
    if (!valid)
        QVERIFY2(problem.contains(mentions), qPrintable(problem));
}

void TestTpu::validTopologies_data()
{
    QTest::addColumn<QString>("generation");
    QTest::addColumn<int>("count");
    QTest::addColumn<QString>("first");
    QTest::addColumn<QString>("last");

    // v4: 4 small shapes + every ordered triple with x, y in {4, 8, 12} and z in {4, .., 16}:
    // 3 * 3 * 4 = 36 -> 40. Ray's list holds all orders (8x4x4 and 4x4x8 both).
    QTest::newRow("v4") << "v4" << 40 << "2x2x1" << "12x12x16";
    QTest::newRow("v5e") << "v5e" << 9 << "1x1" << "16x16";
    // v5p: x, y in {4, .., 16}, z in {4, .., 24}: 4 * 4 * 6 = 96; + 4 small -> 100.
    QTest::newRow("v5p") << "v5p" << 100 << "2x2x1" << "16x16x24";
    QTest::newRow("v6e") << "v6e" << 9 << "1x1" << "16x16";
    // v7x: Ray's explicit list of ten.
    QTest::newRow("v7x") << "v7x" << 10 << "2x2x1" << "8x16x16";
}

void TestTpu::validTopologies()
{
    QFETCH(QString, generation);
    QFETCH(int, count);
    QFETCH(QString, first);
    QFETCH(QString, last);
    const Generation &g = gen(generation);
    const QList<Topology> list = tpu::validTopologies(g);
    QCOMPARE(list.size(), count);
    QCOMPARE(list.first().toString(), first);
    QCOMPARE(list.last().toString(), last);

    QSet<QString> seen;
    for (qsizetype i = 0; i < list.size(); ++i) {
        const Topology &t = list[i];
        QVERIFY2(isValidTopology(g, t), qPrintable(t.toString()));
        QCOMPARE(t.rank, g.is3D ? 3 : 2);
        QVERIFY2(!seen.contains(t.toString()), qPrintable(t.toString()));
        seen.insert(t.toString());
        if (i > 0) // smallest first: the composer lists them in this order
            QVERIFY2(list[i - 1].chips() <= t.chips(), qPrintable(list[i - 1].toString() + QLatin1String(" before ") + t.toString()));
    }
    if (!g.is3D) {
        QStringList names;
        for (const Topology &t : list)
            names << t.toString();
        QCOMPARE(names.join(u' '), QStringLiteral("1x1 2x2 2x4 2x8 4x4 4x8 8x8 8x16 16x16"));
    }

    // Nothing valid is missing from the list: sweep every shape inside a box larger than the largest slice.
    const int limit = 32;
    int validInBox = 0;
    for (int x = 1; x <= limit; ++x)
        for (int y = 1; y <= limit; ++y)
            for (int z = 1; z <= (g.is3D ? limit : 1); ++z)
                validInBox += isValidTopology(g, Topology{Dims{x, y, z}, g.is3D ? 3 : 2});
    QCOMPARE(validInBox, count);
}

// Where Ray accepts what GKE does not document, the note says so (the composer's tooltip).
void TestTpu::topologyNote_data()
{
    QTest::addColumn<QString>("generation");
    QTest::addColumn<QString>("topology");
    QTest::addColumn<QString>("mentions"); // empty: no note
    QTest::newRow("v6e 2x8: Ray yes, GKE no") << "v6e" << "2x8" << "GKE documents no such node pool (its v6e-16 is 4x4)";
    QTest::newRow("v5e 2x8") << "v5e" << "2x8" << "its v5litepod-16 is 4x4";
    QTest::newRow("v4 8x4x4: GKE's spelling") << "v4" << "8x4x4" << "GKE names this shape 4x4x8";
    QTest::newRow("v6e 4x4 needs no note") << "v6e" << "4x4" << "";
    QTest::newRow("v7x 4x4x8 needs no note") << "v7x" << "4x4x8" << "";
    QTest::newRow("invalid shapes get a problem, not a note") << "v7x" << "1x1x1" << "";
}

void TestTpu::topologyNote()
{
    QFETCH(QString, generation);
    QFETCH(QString, topology);
    QFETCH(QString, mentions);
    const QString note = tpu::topologyNote(gen(generation), topo(topology));
    if (mentions.isEmpty())
        QVERIFY2(note.isEmpty(), qPrintable(note));
    else
        QVERIFY2(note.contains(mentions), qPrintable(note));
}

void TestTpu::hosts_data()
{
    QTest::addColumn<QString>("generation");
    QTest::addColumn<QString>("topology");
    QTest::addColumn<int>("chipsPerHost");     // 0: the default host
    QTest::addColumn<int>("expectedPerHost");
    QTest::addColumn<QString>("block");        // empty: such hosts cannot tile the topology
    QTest::addColumn<QString>("hostGrid");
    QTest::addColumn<int>("hostCount");

    QTest::newRow("v6e 1x1") << "v6e" << "1x1" << 0 << 1 << "1x1x1" << "1x1x1" << 1;
    QTest::newRow("v6e 2x2") << "v6e" << "2x2" << 0 << 4 << "2x2x1" << "1x1x1" << 1;
    // docs/facts.md 3: a 2x4 is usually one 8-chip host, but can be two 4-chip hosts.
    QTest::newRow("v6e 2x4 one host") << "v6e" << "2x4" << 0 << 8 << "2x4x1" << "1x1x1" << 1;
    QTest::newRow("v6e 2x4 explicit 8") << "v6e" << "2x4" << 8 << 8 << "2x4x1" << "1x1x1" << 1;
    QTest::newRow("v6e 2x4 two hosts") << "v6e" << "2x4" << 4 << 4 << "2x2x1" << "1x2x1" << 2;
    QTest::newRow("v6e 4x4") << "v6e" << "4x4" << 0 << 4 << "2x2x1" << "2x2x1" << 4;
    QTest::newRow("v6e 16x16") << "v6e" << "16x16" << 0 << 4 << "2x2x1" << "8x8x1" << 64;
    QTest::newRow("v5e 2x4 one host") << "v5e" << "2x4" << 0 << 8 << "2x4x1" << "1x1x1" << 1;
    QTest::newRow("v5e 4x8") << "v5e" << "4x8" << 0 << 4 << "2x2x1" << "2x4x1" << 8;
    QTest::newRow("v5e 8x16") << "v5e" << "8x16" << 0 << 4 << "2x2x1" << "4x8x1" << 32;
    QTest::newRow("v4 2x2x1") << "v4" << "2x2x1" << 0 << 4 << "2x2x1" << "1x1x1" << 1;
    QTest::newRow("v4 2x2x2") << "v4" << "2x2x2" << 0 << 4 << "2x2x1" << "1x1x2" << 2;
    QTest::newRow("v4 2x4x4") << "v4" << "2x4x4" << 0 << 4 << "2x2x1" << "1x2x4" << 8;
    QTest::newRow("v4 4x4x4") << "v4" << "4x4x4" << 0 << 4 << "2x2x1" << "2x2x4" << 16;
    QTest::newRow("v4 16x16x16") << "v4" << "16x16x16" << 0 << 4 << "2x2x1" << "8x8x16" << 1024;
    QTest::newRow("v5p 4x4x8") << "v5p" << "4x4x8" << 0 << 4 << "2x2x1" << "2x2x8" << 32;
    QTest::newRow("v5p 16x20x28") << "v5p" << "16x20x28" << 0 << 4 << "2x2x1" << "8x10x28" << 2240;
    QTest::newRow("v7x 1x1x1") << "v7x" << "1x1x1" << 0 << 1 << "1x1x1" << "1x1x1" << 1;
    QTest::newRow("v7x 2x2x1") << "v7x" << "2x2x1" << 0 << 4 << "2x2x1" << "1x1x1" << 1;
    QTest::newRow("v7x 2x2x2") << "v7x" << "2x2x2" << 0 << 4 << "2x2x1" << "1x1x2" << 2;
    QTest::newRow("v7x 16x24x24") << "v7x" << "16x24x24" << 0 << 4 << "2x2x1" << "8x12x24" << 2304;

    QTest::newRow("v6e 2x2 on an 8-chip host") << "v6e" << "2x2" << 8 << 8 << "" << "" << 0;
    QTest::newRow("v6e 1x1 on a 4-chip host") << "v6e" << "1x1" << 4 << 4 << "" << "" << 0;
    QTest::newRow("v6e 4x4 on 3-chip hosts") << "v6e" << "4x4" << 3 << 3 << "" << "" << 0;
    QTest::newRow("v4 has no 8-chip host") << "v4" << "2x2x2" << 8 << 8 << "" << "" << 0;
    QTest::newRow("v4 has no 1-chip host") << "v4" << "2x2x2" << 1 << 1 << "" << "" << 0;
    QTest::newRow("v7x has no 8-chip host") << "v7x" << "2x4x4" << 8 << 8 << "" << "" << 0;
}

void TestTpu::hosts()
{
    QFETCH(QString, generation);
    QFETCH(QString, topology);
    QFETCH(int, chipsPerHost);
    QFETCH(int, expectedPerHost);
    QFETCH(QString, block);
    QFETCH(QString, hostGrid);
    QFETCH(int, hostCount);

    const Generation &g = gen(generation);
    const Topology t = topo(topology);
    if (chipsPerHost == 0)
        QCOMPARE(defaultChipsPerHost(g, t), expectedPerHost);
    const int perHost = chipsPerHost ? chipsPerHost : defaultChipsPerHost(g, t);
    const auto b = hostBlock(g, t, perHost);
    const SliceLayout layout(g, t, perHost);
    if (block.isEmpty()) {
        QVERIFY(!b.has_value());
        QVERIFY(!layout.isValid());
        return;
    }
    QVERIFY(b.has_value());
    QCOMPARE(dimsText(*b), block);
    QVERIFY(layout.isValid());
    QCOMPARE(dimsText(layout.block()), block);
    QCOMPARE(dimsText(layout.hostGrid()), hostGrid);
    QCOMPARE(layout.chipsPerHost(), expectedPerHost);
    QCOMPARE(layout.hostCount(), hostCount);
    QCOMPARE(layout.chipCount(), t.chips());
    QCOMPARE(hostCount * expectedPerHost, t.chips());
}

void TestTpu::chipPosition_data()
{
    QTest::addColumn<QString>("generation");
    QTest::addColumn<QString>("topology");
    QTest::addColumn<int>("chipsPerHost");
    QTest::addColumn<int>("worker");
    QTest::addColumn<int>("chip");
    QTest::addColumn<QString>("position");

    // w = bx + by*Bx + bz*Bx*By; inside the block, chip c at x-fastest offset (docs/facts.md 3).
    // v6e 4x4, 2x2 blocks, host grid 2x2.
    QTest::newRow("4x4 w0 c0") << "v6e" << "4x4" << 4 << 0 << 0 << "(0,0,0)";
    QTest::newRow("4x4 w0 c1") << "v6e" << "4x4" << 4 << 0 << 1 << "(1,0,0)";
    QTest::newRow("4x4 w0 c2") << "v6e" << "4x4" << 4 << 0 << 2 << "(0,1,0)";
    QTest::newRow("4x4 w0 c3") << "v6e" << "4x4" << 4 << 0 << 3 << "(1,1,0)";
    QTest::newRow("4x4 w1 c0") << "v6e" << "4x4" << 4 << 1 << 0 << "(2,0,0)";
    QTest::newRow("4x4 w1 c3") << "v6e" << "4x4" << 4 << 1 << 3 << "(3,1,0)";
    QTest::newRow("4x4 w2 c0") << "v6e" << "4x4" << 4 << 2 << 0 << "(0,2,0)";
    QTest::newRow("4x4 w2 c1") << "v6e" << "4x4" << 4 << 2 << 1 << "(1,2,0)";
    QTest::newRow("4x4 w3 c3") << "v6e" << "4x4" << 4 << 3 << 3 << "(3,3,0)";
    // v6e 2x4 as one 8-chip host (block 2x4): chip c at (c % 2, c / 2).
    QTest::newRow("2x4/8 c2") << "v6e" << "2x4" << 8 << 0 << 2 << "(0,1,0)";
    QTest::newRow("2x4/8 c5") << "v6e" << "2x4" << 8 << 0 << 5 << "(1,2,0)";
    QTest::newRow("2x4/8 c7") << "v6e" << "2x4" << 8 << 0 << 7 << "(1,3,0)";
    // v6e 2x4 as two 4-chip hosts (host grid 1x2): worker 1 owns y = 2..3.
    QTest::newRow("2x4/4 w1 c0") << "v6e" << "2x4" << 4 << 1 << 0 << "(0,2,0)";
    QTest::newRow("2x4/4 w1 c3") << "v6e" << "2x4" << 4 << 1 << 3 << "(1,3,0)";
    // v6e 8x16: host grid 4x8. w13 -> bx 1, by 3 -> origin (2,6).
    QTest::newRow("8x16 w4 c0") << "v6e" << "8x16" << 4 << 4 << 0 << "(0,2,0)";
    QTest::newRow("8x16 w13 c3") << "v6e" << "8x16" << 4 << 13 << 3 << "(3,7,0)";
    QTest::newRow("8x16 w31 c3") << "v6e" << "8x16" << 4 << 31 << 3 << "(7,15,0)";
    // v5e 16x16: host grid 8x8.
    QTest::newRow("16x16 w8 c1") << "v5e" << "16x16" << 4 << 8 << 1 << "(1,2,0)";
    QTest::newRow("16x16 w9 c0") << "v5e" << "16x16" << 4 << 9 << 0 << "(2,2,0)";
    QTest::newRow("16x16 w63 c3") << "v5e" << "16x16" << 4 << 63 << 3 << "(15,15,0)";
    QTest::newRow("v5e 1x1") << "v5e" << "1x1" << 1 << 0 << 0 << "(0,0,0)";
    // v4 2x2x2: host grid 1x1x2, worker 1 is the upper layer.
    QTest::newRow("v4 2x2x2 w1 c0") << "v4" << "2x2x2" << 4 << 1 << 0 << "(0,0,1)";
    QTest::newRow("v4 2x2x2 w1 c3") << "v4" << "2x2x2" << 4 << 1 << 3 << "(1,1,1)";
    // v4 4x4x8: host grid 2x2x8. w13 -> bx 1, by 0, bz 3; w3 -> bx 1, by 1, bz 0; w31 -> 1, 1, 7.
    QTest::newRow("v4 4x4x8 w13 c2") << "v4" << "4x4x8" << 4 << 13 << 2 << "(2,1,3)";
    QTest::newRow("v4 4x4x8 w3 c1") << "v4" << "4x4x8" << 4 << 3 << 1 << "(3,2,0)";
    QTest::newRow("v4 4x4x8 w31 c3") << "v4" << "4x4x8" << 4 << 31 << 3 << "(3,3,7)";
    // v5p 4x4x4: host grid 2x2x4. w5 -> bx 1, by 0, bz 1.
    QTest::newRow("v5p 4x4x4 w5 c2") << "v5p" << "4x4x4" << 4 << 5 << 2 << "(2,1,1)";
    QTest::newRow("v5p 2x2x1 c3") << "v5p" << "2x2x1" << 4 << 0 << 3 << "(1,1,0)";
    // v7x 2x2x4: host grid 1x1x4.
    QTest::newRow("v7x 2x2x4 w3 c1") << "v7x" << "2x2x4" << 4 << 3 << 1 << "(1,0,3)";
    QTest::newRow("v7x 1x1x1") << "v7x" << "1x1x1" << 1 << 0 << 0 << "(0,0,0)";
}

void TestTpu::chipPosition()
{
    QFETCH(QString, generation);
    QFETCH(QString, topology);
    QFETCH(int, chipsPerHost);
    QFETCH(int, worker);
    QFETCH(int, chip);
    QFETCH(QString, position);
    const SliceLayout layout = layoutOf(generation, topology, chipsPerHost);
    QVERIFY(layout.isValid());
    const ChipCoord at = layout.chipPosition(worker, chip);
    QCOMPARE(coordText(at), position);
    QCOMPARE(layout.workerAt(at), worker);
    QCOMPARE(layout.chipIndexAt(at), chip);
}

void TestTpu::layoutIsInvertible_data()
{
    QTest::addColumn<QString>("generation");
    QTest::addColumn<QString>("topology");
    QTest::addColumn<int>("chipsPerHost");

    QTest::newRow("v5e 1x1") << "v5e" << "1x1" << 1;
    QTest::newRow("v5e 2x4/8") << "v5e" << "2x4" << 8;
    QTest::newRow("v6e 2x4/4") << "v6e" << "2x4" << 4;
    QTest::newRow("v6e 4x4") << "v6e" << "4x4" << 4;
    QTest::newRow("v6e 8x16") << "v6e" << "8x16" << 4;
    QTest::newRow("v6e 16x16") << "v6e" << "16x16" << 4;
    QTest::newRow("v4 2x2x2") << "v4" << "2x2x2" << 4;
    QTest::newRow("v4 4x4x8") << "v4" << "4x4x8" << 4;
    QTest::newRow("v4 4x8x12") << "v4" << "4x8x12" << 4;
    QTest::newRow("v5p 4x4x4") << "v5p" << "4x4x4" << 4;
    QTest::newRow("v5p 8x12x16") << "v5p" << "8x12x16" << 4;
    QTest::newRow("v7x 1x1x1") << "v7x" << "1x1x1" << 1;
    QTest::newRow("v7x 2x2x4") << "v7x" << "2x2x4" << 4;
    QTest::newRow("v7x 2x4x4") << "v7x" << "2x4x4" << 4;
}

void TestTpu::layoutIsInvertible()
{
    QFETCH(QString, generation);
    QFETCH(QString, topology);
    QFETCH(int, chipsPerHost);
    const SliceLayout layout = layoutOf(generation, topology, chipsPerHost);
    QVERIFY(layout.isValid());
    const Dims d = layout.dims();
    const Dims b = layout.block();
    QSet<int> covered;
    for (int w = 0; w < layout.hostCount(); ++w) {
        for (int c = 0; c < layout.chipsPerHost(); ++c) {
            const ChipCoord at = layout.chipPosition(w, c);
            QVERIFY(at.x >= 0 && at.x < d.x && at.y >= 0 && at.y < d.y && at.z >= 0 && at.z < d.z);
            // A host's chips stay inside its own block.
            const ChipCoord origin = layout.chipPosition(w, 0);
            QVERIFY(at.x - origin.x < b.x && at.y - origin.y < b.y && at.z - origin.z < b.z);
            QCOMPARE(layout.workerAt(at), w);
            QCOMPARE(layout.chipIndexAt(at), c);
            const int flat = at.x + at.y * d.x + at.z * d.x * d.y;
            QVERIFY2(!covered.contains(flat), qPrintable(coordText(at)));
            covered.insert(flat);
        }
    }
    QCOMPARE(int(covered.size()), d.volume());
    // And the other way round, from every coordinate.
    for (int z = 0; z < d.z; ++z)
        for (int y = 0; y < d.y; ++y)
            for (int x = 0; x < d.x; ++x) {
                const ChipCoord at{x, y, z};
                QCOMPARE(layout.chipPosition(layout.workerAt(at), layout.chipIndexAt(at)), at);
            }
}

void TestTpu::iciLinks_data()
{
    QTest::addColumn<QString>("generation");
    QTest::addColumn<QString>("topology");
    QTest::addColumn<int>("links");
    QTest::addColumn<int>("wrapLinks");
    QTest::addColumn<QString>("wrapAxes");

    // Along an axis of length n in a box whose other axes hold P chips: (n - 1) * P plain links,
    // plus P wrap links when that axis wraps.
    // 4x4: 3*4 + 4*3 = 24; no axis of 16, so no wrap.
    QTest::newRow("v6e 4x4") << "v6e" << "4x4" << 24 << 0 << "";
    QTest::newRow("v6e 2x4") << "v6e" << "2x4" << 1 * 4 + 2 * 3 << 0 << "";
    QTest::newRow("v6e 1x1") << "v6e" << "1x1" << 0 << 0 << "";
    // 16x16 wraps both axes: 15*16*2 + 16*2 = 512 = 256 chips * 2.
    QTest::newRow("v6e 16x16") << "v6e" << "16x16" << 512 << 32 << "xy";
    QTest::newRow("v5e 16x16") << "v5e" << "16x16" << 512 << 32 << "xy";
    // 8x16 wraps y only: x 7*16 = 112, y 15*8 = 120, wrap 8 -> 240.
    QTest::newRow("v6e 8x16") << "v6e" << "8x16" << 240 << 8 << "y";
    QTest::newRow("v5e 8x8") << "v5e" << "8x8" << 7 * 8 * 2 << 0 << "";
    // v4 2x2x2: 1*4 per axis = 12; not a full 4x4x4 cube: no wrap.
    QTest::newRow("v4 2x2x2") << "v4" << "2x2x2" << 12 << 0 << "";
    // v4 2x2x4: x 1*8, y 1*8, z 3*4 = 28.
    QTest::newRow("v4 2x2x4") << "v4" << "2x2x4" << 28 << 0 << "";
    // v4 2x4x4: x 1*16, y 3*8, z 3*8 = 64; axes of 4, but the slice is smaller than 4x4x4.
    QTest::newRow("v4 2x4x4") << "v4" << "2x4x4" << 64 << 0 << "";
    // v4 4x4x4: 3*16*3 = 144 plain + 16*3 = 48 wrap = 192 = 64 chips * 3.
    QTest::newRow("v4 4x4x4") << "v4" << "4x4x4" << 192 << 48 << "xyz";
    // v4 4x8x12: 384 chips, all wrap -> 1152; wraps x 96, y 48, z 32 = 176.
    QTest::newRow("v4 4x8x12") << "v4" << "4x8x12" << 1152 << 176 << "xyz";
    // v5p 2x2x1: one host, 2 + 2 links.
    QTest::newRow("v5p 2x2x1") << "v5p" << "2x2x1" << 4 << 0 << "";
    // v5p 4x4x8: plain x 3*32, y 3*32, z 7*16 = 304; wraps 32 + 32 + 16 = 80 -> 384.
    QTest::newRow("v5p 4x4x8") << "v5p" << "4x4x8" << 384 << 80 << "xyz";
    QTest::newRow("v7x 1x1x1") << "v7x" << "1x1x1" << 0 << 0 << "";
    QTest::newRow("v7x 2x2x2") << "v7x" << "2x2x2" << 12 << 0 << "";
    QTest::newRow("v7x 4x4x4") << "v7x" << "4x4x4" << 192 << 48 << "xyz";
    // v7x 8x8x16: 1024 chips * 3 = 3072; wraps x 128, y 128, z 64 = 320.
    QTest::newRow("v7x 8x8x16") << "v7x" << "8x8x16" << 3072 << 320 << "xyz";
}

void TestTpu::iciLinks()
{
    QFETCH(QString, generation);
    QFETCH(QString, topology);
    QFETCH(int, links);
    QFETCH(int, wrapLinks);
    QFETCH(QString, wrapAxes);
    const SliceLayout layout = layoutOf(generation, topology, 0);
    QVERIFY(layout.isValid());
    QCOMPARE(axesText(tpu::wrapAxes(gen(generation), topo(topology))), wrapAxes);
    QCOMPARE(axesText({layout.axisWraps(0), layout.axisWraps(1), layout.axisWraps(2)}), wrapAxes);

    const QList<IciLink> all = layout.iciLinks();
    QCOMPARE(int(all.size()), links);
    const Dims d = layout.dims();
    int wraps = 0;
    QSet<QString> seen;
    for (const IciLink &l : all) {
        const int a[3] = {l.a.x, l.a.y, l.a.z};
        const int b[3] = {l.b.x, l.b.y, l.b.z};
        QVERIFY(l.axis >= 0 && l.axis < 3);
        for (int axis = 0; axis < 3; ++axis) {
            QVERIFY(a[axis] >= 0 && a[axis] < d[axis] && b[axis] >= 0 && b[axis] < d[axis]);
            if (axis != l.axis)
                QCOMPARE(a[axis], b[axis]); // links run along one axis only
        }
        const int n = d[l.axis];
        if (l.wrap) {
            ++wraps;
            QVERIFY(layout.axisWraps(l.axis));
            // A wrap edge joins the two ends of its axis, nothing else spans more than one chip.
            QVERIFY(std::min(a[l.axis], b[l.axis]) == 0 && std::max(a[l.axis], b[l.axis]) == n - 1);
        } else {
            QCOMPARE(std::abs(a[l.axis] - b[l.axis]), 1);
        }
        // Unordered pair: a link listed from either end is the same link.
        QString ka = coordText(l.a), kb = coordText(l.b);
        if (kb < ka)
            std::swap(ka, kb);
        const QString key = ka + u'-' + kb;
        QVERIFY2(!seen.contains(key), qPrintable(QStringLiteral("duplicate link ") + key));
        seen.insert(key);
    }
    QCOMPARE(wraps, wrapLinks);
}

void TestTpu::isValidTpuRequest_data()
{
    QTest::addColumn<int>("chips");
    QTest::addColumn<bool>("valid");
    for (int c : {1, 2, 4, 8})
        QTest::addRow("%d", c) << c << true;
    for (int c : {-1, 0, 3, 5, 6, 7, 16})
        QTest::addRow("%d", c) << c << false;
}

void TestTpu::isValidTpuRequest()
{
    QFETCH(int, chips);
    QFETCH(bool, valid);
    QCOMPARE(tpu::isValidTpuRequest(chips), valid);
}

QTEST_GUILESS_MAIN(TestTpu)
#include "tst_tpu.moc"
