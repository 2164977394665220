// SPDX-License-Identifier: GPL-3.0-or-later
// The worker and placement-group palettes hold the rule docs/design.md section 1 writes down:
// distances in OKLab (dE), measured in normal vision and under deuteranopia and protanopia
// (Machado, Oliveira and Fernandes 2009, full severity, applied to linear sRGB), between the
// palette's own colours and against the status colours and chip greys of both themes.

#include "look.h"

#include <QSet>
#include <QTest>

#include <array>
#include <cmath>

using namespace slicescope;

namespace {

using Vec3 = std::array<double, 3>;
using Mat3 = std::array<Vec3, 3>;

enum class Vision
{
    Normal,
    Deuteranopia,
    Protanopia
};

constexpr Mat3 kDeuteranopia = {{{0.367322, 0.860646, -0.227968}, {0.280085, 0.672501, 0.047413}, {-0.011820, 0.042940, 0.968881}}};
constexpr Mat3 kProtanopia = {{{0.152286, 1.052583, -0.204868}, {0.114503, 0.786281, 0.099216}, {-0.003882, -0.048116, 1.051998}}};

double linear(double c)
{
    return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}

Vec3 oklab(const QColor &colour, Vision vision = Vision::Normal)
{
    Vec3 rgb = {linear(colour.redF()), linear(colour.greenF()), linear(colour.blueF())};
    if (vision != Vision::Normal) {
        const Mat3 &m = vision == Vision::Deuteranopia ? kDeuteranopia : kProtanopia;
        Vec3 seen{};
        for (size_t i = 0; i < 3; ++i)
            seen[i] = std::clamp(m[i][0] * rgb[0] + m[i][1] * rgb[1] + m[i][2] * rgb[2], 0.0, 1.0);
        rgb = seen;
    }
    // Björn Ottosson's published OKLab matrices.
    const double l = std::cbrt(0.4122214708 * rgb[0] + 0.5363325363 * rgb[1] + 0.0514459929 * rgb[2]);
    const double m = std::cbrt(0.2119034982 * rgb[0] + 0.6806995451 * rgb[1] + 0.1073969566 * rgb[2]);
    const double s = std::cbrt(0.0883024619 * rgb[0] + 0.2817188376 * rgb[1] + 0.6299787005 * rgb[2]);
    return {0.2104542553 * l + 0.7936177850 * m - 0.0040720468 * s, 1.9779984951 * l - 2.4285922050 * m + 0.4505937099 * s,
            0.0259040371 * l + 0.7827717662 * m - 0.8086757660 * s};
}

double distance(const QColor &a, const QColor &b, Vision vision = Vision::Normal)
{
    const Vec3 p = oklab(a, vision), q = oklab(b, vision);
    return std::hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
}

QList<QColor> workerPalette(int count)
{
    QList<QColor> colours;
    for (int w = 0; w < count; ++w)
        colours.append(workerColor(w));
    return colours;
}

// The group palette is reached through ids (a stable hash picks the colour): collect every colour
// the first thousand ids give.
QList<QColor> groupPalette()
{
    QList<QColor> colours;
    QSet<QRgb> seen;
    for (int i = 0; i < 1000; ++i) {
        const QColor c = placementGroupColor(QStringLiteral("%1").arg(i * 7919, 28, 16, QLatin1Char('0')));
        if (!seen.contains(c.rgb())) {
            seen.insert(c.rgb());
            colours.append(c);
        }
    }
    return colours;
}

// `fields` of both themes, named "light ready", "dark ready", ...
QList<std::pair<QString, QColor>> ofBothThemes(std::initializer_list<std::pair<const char *, QColor Theme::*>> fields)
{
    QList<std::pair<QString, QColor>> out;
    for (const Theme &t : {Theme::light(), Theme::dark()})
        for (const auto &[name, field] : fields)
            out.append({(t.isDark ? QStringLiteral("dark ") : QStringLiteral("light ")) + QLatin1String(name), t.*field});
    return out;
}

// Every colour a chip or a state wears that a palette colour must never be mistaken for.
QList<std::pair<QString, QColor>> statusColours()
{
    return ofBothThemes({{"ready", &Theme::ready},
                         {"reserved", &Theme::reserved},
                         {"degraded", &Theme::degraded},
                         {"provisioning", &Theme::provisioning},
                         {"missing", &Theme::missing},
                         {"alive", &Theme::alive},
                         {"dead", &Theme::dead},
                         {"pending", &Theme::pending}});
}

QList<std::pair<QString, QColor>> chipGreys()
{
    return ofBothThemes({{"free chip", &Theme::freeChip}, {"absent chip", &Theme::absentChip}, {"unknown chip", &Theme::unknownChip}});
}

// The smallest distance between two colours of `colours` in `vision`, as "i-j: d" when it is
// under `bound`, else an empty string.
QString closestPairUnder(const QList<QColor> &colours, Vision vision, double bound)
{
    for (qsizetype i = 0; i < colours.size(); ++i)
        for (qsizetype j = i + 1; j < colours.size(); ++j) {
            const double d = distance(colours[i], colours[j], vision);
            if (d < bound)
                return QStringLiteral("%1 and %2 (%3, %4): dE %5").arg(i).arg(j).arg(colours[i].name(), colours[j].name()).arg(d, 0, 'f', 3);
        }
    return {};
}

QString nearestUnder(const QList<QColor> &colours, const QList<std::pair<QString, QColor>> &others, double bound)
{
    for (qsizetype i = 0; i < colours.size(); ++i)
        for (const auto &[name, other] : others) {
            const double d = distance(colours[i], other);
            if (d < bound)
                return QStringLiteral("%1 (%2) and %3 (%4): dE %5").arg(i).arg(colours[i].name(), name, other.name()).arg(d, 0, 'f', 3);
        }
    return {};
}

} // namespace

class TestLook : public QObject
{
    Q_OBJECT

private slots:
    void measureIsOklab()
    {
        // The measure itself, on known points: white is L 1, black L 0, and sRGB's red sits at
        // OKLab (0.628, 0.225, 0.126).
        const Vec3 white = oklab(Qt::white), black = oklab(Qt::black), red = oklab(QColor(255, 0, 0));
        QCOMPARE_LT(std::abs(white[0] - 1.0), 1e-3);
        QCOMPARE_LT(std::abs(white[1]) + std::abs(white[2]), 1e-3);
        QCOMPARE_LT(std::abs(black[0]), 1e-6);
        QCOMPARE_LT(std::abs(red[0] - 0.628) + std::abs(red[1] - 0.225) + std::abs(red[2] - 0.126), 3e-3);
        // Under deuteranopia a red and a green of the same lightness come close; in normal vision
        // they are far apart.
        const QColor r(0xd0, 0x3a, 0x3a), g(0x5d, 0x8a, 0x2e);
        QCOMPARE_GT(distance(r, g), 0.2);
        QCOMPARE_LT(distance(r, g, Vision::Deuteranopia), distance(r, g) / 2);
    }

    void workersApart_data()
    {
        QTest::addColumn<int>("count");
        QTest::addColumn<int>("vision");
        QTest::addColumn<double>("bound");
        QTest::newRow("first 8, normal") << 8 << int(Vision::Normal) << 0.08;
        QTest::newRow("first 8, deuteranopia") << 8 << int(Vision::Deuteranopia) << 0.08;
        QTest::newRow("first 8, protanopia") << 8 << int(Vision::Protanopia) << 0.08;
        QTest::newRow("all 16, normal") << 16 << int(Vision::Normal) << 0.06;
        QTest::newRow("all 16, deuteranopia") << 16 << int(Vision::Deuteranopia) << 0.03;
        QTest::newRow("all 16, protanopia") << 16 << int(Vision::Protanopia) << 0.03;
    }
    void workersApart()
    {
        QFETCH(int, count);
        QFETCH(int, vision);
        QFETCH(double, bound);
        const QString close = closestPairUnder(workerPalette(count), Vision(vision), bound);
        QVERIFY2(close.isEmpty(), qPrintable(QStringLiteral("workers ") + close));
    }

    void workersCycleAfterSixteen()
    {
        QSet<QRgb> distinct;
        for (int w = 0; w < 16; ++w)
            distinct.insert(workerColor(w).rgb());
        QCOMPARE(distinct.size(), 16);
        for (int w = 0; w < 40; ++w)
            QCOMPARE(workerColor(w + 16), workerColor(w));
        QCOMPARE(workerColor(-1), workerColor(15)); // a bad id still gets a palette colour
    }

    void palettesAvoidStatusColours()
    {
        QString near = nearestUnder(workerPalette(16), statusColours(), 0.10);
        QVERIFY2(near.isEmpty(), qPrintable(QStringLiteral("worker ") + near));
        near = nearestUnder(workerPalette(16), chipGreys(), 0.08);
        QVERIFY2(near.isEmpty(), qPrintable(QStringLiteral("worker ") + near));
        near = nearestUnder(groupPalette(), statusColours(), 0.10);
        QVERIFY2(near.isEmpty(), qPrintable(QStringLiteral("group ") + near));
        near = nearestUnder(groupPalette(), chipGreys(), 0.10);
        QVERIFY2(near.isEmpty(), qPrintable(QStringLiteral("group ") + near));
    }

    void groupsApart_data()
    {
        QTest::addColumn<int>("vision");
        QTest::addColumn<double>("bound");
        QTest::newRow("normal") << int(Vision::Normal) << 0.07;
        QTest::newRow("deuteranopia") << int(Vision::Deuteranopia) << 0.04;
        QTest::newRow("protanopia") << int(Vision::Protanopia) << 0.04;
    }
    void groupsApart()
    {
        QFETCH(int, vision);
        QFETCH(double, bound);
        const QList<QColor> groups = groupPalette();
        QCOMPARE(groups.size(), 12);
        const QString close = closestPairUnder(groups, Vision(vision), bound);
        QVERIFY2(close.isEmpty(), qPrintable(QStringLiteral("groups ") + close));
    }
};

QTEST_GUILESS_MAIN(TestLook)
#include "tst_look.moc"
