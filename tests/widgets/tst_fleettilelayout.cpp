// SPDX-License-Identifier: GPL-3.0-or-later
// FleetTileLayout (widgets/fleettilelayout.h): headers and tiles from sizes and counts, as rows.
// Sizes: tiles at least 200 wide and 100 high, 8 apart, 13 under a group, headers 26 high (and
// half a gap, 4, under them), the message box 52 high, a fleet's section headers 40 high; the grid
// starts at x 13, y 50.

#include "fleettilelayout.h"

#include <QTest>

using namespace slicescope;

using Runs = QList<FleetTileLayout::Run>;
using Headers = QList<FleetTileLayout::Header>;
Q_DECLARE_METATYPE(FleetTileLayout::Run)
Q_DECLARE_METATYPE(FleetTileLayout::Header)

namespace {

const FleetTileSizes kSizes{200, 100, 8, 13, 26, 52, 40};
const FleetTileSizes kRoomySizes{200, 100, 8, 13, 26, 52, 40, 260};

} // namespace

class TestFleetTileLayout : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void place_data()
    {
        QTest::addColumn<int>("width");
        QTest::addColumn<Runs>("runs");
        QTest::addColumn<int>("columns");
        QTest::addColumn<Headers>("headers");
        QTest::addColumn<QList<QRect>>("tiles");
        QTest::addColumn<QRect>("message");
        QTest::addColumn<int>("bottom");

        // (420 + 8) / (200 + 8) = 2 columns of (420 - 8) / 2 = 206.
        QTest::newRow("3 tiles in 2 columns: 2 rows") << 420 << Runs{{0, 3}} << 2 << Headers{{0, QRect(13, 50, 420, 26), 3}}
                                                      << QList<QRect>{QRect(13, 80, 206, 100), QRect(227, 80, 206, 100), QRect(13, 188, 206, 100)}
                                                      << QRect() << 188 + 100 + 13;
        QTest::newRow("exactly one tile wide: 1 column") << 200 << Runs{{5, 2}} << 1 << Headers{{5, QRect(13, 50, 200, 26), 2}}
                                                         << QList<QRect>{QRect(13, 80, 200, 100), QRect(13, 188, 200, 100)} << QRect() << 301;
        QTest::newRow("narrower than a tile: 1 column, the tile shrinks")
            << 150 << Runs{{0, 1}} << 1 << Headers{{0, QRect(13, 50, 150, 26), 1}} << QList<QRect>{QRect(13, 80, 150, 100)} << QRect() << 193;
        // (1040 + 8) / 208 = 5 columns of (1040 - 32) / 5 = 201, 209 apart.
        QTest::newRow("6 tiles in 5 columns") << 1040 << Runs{{0, 6}} << 5 << Headers{{0, QRect(13, 50, 1040, 26), 6}}
                                              << QList<QRect>{QRect(13, 80, 201, 100), QRect(222, 80, 201, 100), QRect(431, 80, 201, 100),
                                                              QRect(640, 80, 201, 100), QRect(849, 80, 201, 100), QRect(13, 188, 201, 100)}
                                              << QRect() << 301;
        // A group starts below the previous group's last row (tile height + margin), in column 0.
        QTest::newRow("2 groups") << 420 << Runs{{0, 1}, {3, 2}} << 2
                                  << Headers{{0, QRect(13, 50, 206, 26), 1}, {3, QRect(13, 193, 420, 26), 2}}
                                  << QList<QRect>{QRect(13, 80, 206, 100), QRect(13, 223, 206, 100), QRect(227, 223, 206, 100)} << QRect()
                                  << 223 + 100 + 13;
        // Groups that fit in one row share it while columns last (a wide window is not half empty),
        // each header over its own columns; the next that does not fit starts a new row.
        QTest::newRow("short groups share a row")
            << 1040 << Runs{{0, 1}, {1, 2}, {2, 3}, {3, 1}} << 5
            << Headers{{0, QRect(13, 50, 201, 26), 1}, {1, QRect(222, 50, 410, 26), 2}, {2, QRect(13, 193, 619, 26), 3}, {3, QRect(640, 193, 201, 26), 1}}
            << QList<QRect>{QRect(13, 80, 201, 100), QRect(222, 80, 201, 100), QRect(431, 80, 201, 100), QRect(13, 223, 201, 100),
                            QRect(222, 223, 201, 100), QRect(431, 223, 201, 100), QRect(640, 223, 201, 100)}
            << QRect() << 223 + 100 + 13;
        QTest::newRow("after a group of two rows, a new row")
            << 420 << Runs{{0, 3}, {1, 1}} << 2 << Headers{{0, QRect(13, 50, 420, 26), 3}, {1, QRect(13, 301, 206, 26), 1}}
            << QList<QRect>{QRect(13, 80, 206, 100), QRect(227, 80, 206, 100), QRect(13, 188, 206, 100), QRect(13, 331, 206, 100)} << QRect()
            << 331 + 100 + 13;
        QTest::newRow("sections never share a row")
            << 420 << Runs{{0, 1, 0}, {1, 1, 1}} << 2
            << Headers{{-1, QRect(13, 50, 420, 40), 1, 0}, {0, QRect(13, 94, 206, 26), 1, 0}, {-1, QRect(13, 237, 420, 40), 1, 1}, {1, QRect(13, 281, 206, 26), 1, 1}}
            << QList<QRect>{QRect(13, 124, 206, 100), QRect(13, 311, 206, 100)} << QRect() << 424;
        // Roomy tiles (260 at most): a column is a fifth of the width between the two, so 1300 px
        // make 4 columns of (1300 - 24) / 4 = 319, not 6 of 210.
        QTest::newRow("a wide window: roomier tiles")
            << 1300 << Runs{{0, 4}} << 4 << Headers{{0, QRect(13, 50, 1300, 26), 4}}
            << QList<QRect>{QRect(13, 80, 319, 100), QRect(340, 80, 319, 100), QRect(667, 80, 319, 100), QRect(994, 80, 319, 100)}
            << QRect() << 193;
        QTest::newRow("a run of no tiles gets no header") << 420 << Runs{{0, 0}, {1, 1}, {2, 0}} << 2 << Headers{{1, QRect(13, 50, 206, 26), 1}}
                                                          << QList<QRect>{QRect(13, 80, 206, 100)} << QRect() << 193;
        QTest::newRow("no tiles: the message") << 420 << Runs{} << 2 << Headers{} << QList<QRect>{} << QRect(13, 50, 420, 52) << 50 + 52 + 13;
        // A fleet (issue 16): sections of 40 px head their runs; a folded group keeps its header only,
        // a folded section only its own header; the figures count every tile it stands for.
        QTest::newRow("two sections")
            << 420 << Runs{{0, 1, 0}, {1, 2, 0}, {2, 1, 1}} << 2
            << Headers{{-1, QRect(13, 50, 420, 40), 3, 0}, {0, QRect(13, 94, 206, 26), 1, 0}, {1, QRect(13, 237, 420, 26), 2, 0}, {-1, QRect(13, 380, 420, 40), 1, 1}, {2, QRect(13, 424, 206, 26), 1, 1}}
            << QList<QRect>{QRect(13, 124, 206, 100), QRect(13, 267, 206, 100), QRect(227, 267, 206, 100), QRect(13, 454, 206, 100)} << QRect() << 567;
        QTest::newRow("a folded group, then a folded section")
            << 420 << Runs{{0, 1, 0, true}, {1, 2, 0}, {2, 1, 1, false, true}, {3, 5, 1, false, true}} << 2
            << Headers{{-1, QRect(13, 50, 420, 40), 3, 0}, {0, QRect(13, 94, 420, 26), 1, 0, true}, {1, QRect(13, 124, 420, 26), 2, 0}, {-1, QRect(13, 267, 420, 40), 6, 1, true}}
            << QList<QRect>{QRect(13, 154, 206, 100), QRect(227, 154, 206, 100)} << QRect() << 311 + 6;
        QTest::newRow("only empty runs: the message") << 420 << Runs{{0, 0}} << 2 << Headers{} << QList<QRect>{} << QRect(13, 50, 420, 52) << 115;
    }
    void place()
    {
        QFETCH(int, width);
        QFETCH(Runs, runs);
        QFETCH(int, columns);
        QFETCH(Headers, headers);
        QFETCH(QList<QRect>, tiles);
        QFETCH(QRect, message);
        QFETCH(int, bottom);
        const FleetTileLayout l = FleetTileLayout::place(width > 1200 ? kRoomySizes : kSizes, 13, width, 50, runs);
        QCOMPARE(l.columns, columns);
        QCOMPARE(l.headers.size(), headers.size());
        for (int i = 0; i < headers.size(); ++i) {
            QCOMPARE(l.headers[i].group, headers[i].group);
            QCOMPARE(l.headers[i].rect, headers[i].rect);
            QCOMPARE(l.headers[i].shown, headers[i].shown);
            QCOMPARE(l.headers[i].section, headers[i].section);
            QCOMPARE(l.headers[i].collapsed, headers[i].collapsed);
        }
        QCOMPARE(l.tiles, tiles);
        QCOMPARE(l.message, message);
        QCOMPARE(l.bottom, bottom);
        // Whatever the row: tiles never overlap, stay in the columns and never go up.
        for (int i = 0; i < l.tiles.size(); ++i) {
            QVERIFY(l.tiles[i].left() >= 13 && l.tiles[i].right() < 13 + width);
            if (i > 0)
                QVERIFY(l.tiles[i].top() >= l.tiles[i - 1].top());
            for (int j = 0; j < i; ++j)
                QVERIFY(!l.tiles[i].intersects(l.tiles[j]));
        }
    }

    void narrowerIsNeverShorter()
    {
        // Long groups and short ones that share rows, with fixed and with roomy tiles.
        const Runs runs{{0, 7}, {1, 3}, {2, 12}, {3, 1}, {4, 2}, {5, 1}, {6, 4}};
        for (const FleetTileSizes &sizes : {kSizes, kRoomySizes}) {
            int previous = 0, columns = 1000;
            for (int width = 2600; width >= 100; width -= 10) {
                const FleetTileLayout l = FleetTileLayout::place(sizes, 13, width, 50, runs);
                QVERIFY2(l.bottom >= previous, qPrintable(QStringLiteral("%1 px wide: %2").arg(width).arg(l.bottom)));
                QVERIFY2(l.columns <= columns, qPrintable(QStringLiteral("%1 px wide: %2 columns").arg(width).arg(l.columns)));
                previous = l.bottom;
                columns = l.columns;
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestFleetTileLayout)
#include "tst_fleettilelayout.moc"
