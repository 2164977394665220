// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Golden-image checks shared by the widget tests (docs/testing.md): images live in tests/data/golden;
// a pixel differs when a channel is off by more than kChannelTolerance, and an image fails when
// more than kMaxDifferingShare of its pixels differ, or when they crowd into one place (more than
// kMaxDifferingPerBlock of a kBlock x kBlock square: a badge, a label or a line that came or went,
// which a share of the whole image would let through). On failure NAME.actual.png and NAME.diff.png
// are written to the working folder. SLICESCOPE_RECORD_GOLDENS=1 records instead (look at them
// before committing). Needs SLICESCOPE_TEST_DATA.

#include <QDir>
#include <QImage>
#include <QList>
#include <QString>
#include <QTest>

#include <algorithm>
#include <cstdlib>

namespace slicescope::testing {

constexpr int kChannelTolerance = 24;        // antialiasing may differ by a few levels between CPUs
constexpr double kMaxDifferingShare = 0.002; // 0.2% of pixels
constexpr int kBlock = 16;
constexpr int kMaxDifferingPerBlock = 96;    // antialiasing scatters along edges; content fills a block

inline QString goldenDir() { return QStringLiteral(SLICESCOPE_TEST_DATA "/golden"); }

struct GoldenComparison {
    bool same = false;
    QString message;
};

inline GoldenComparison compareToGolden(const QImage &actual, const QImage &golden, QImage *diff)
{
    if (actual.size() != golden.size())
        return {false, QStringLiteral("size %1x%2, golden %3x%4").arg(actual.width()).arg(actual.height()).arg(golden.width()).arg(golden.height())};
    *diff = QImage(actual.size(), QImage::Format_RGB32);
    diff->fill(Qt::white);
    qint64 differing = 0;
    int worst = 0;
    const int blocksAcross = (actual.width() + kBlock - 1) / kBlock;
    QList<int> perBlock(blocksAcross * ((actual.height() + kBlock - 1) / kBlock), 0);
    for (int y = 0; y < actual.height(); ++y) {
        const QRgb *a = reinterpret_cast<const QRgb *>(actual.constScanLine(y));
        const QRgb *g = reinterpret_cast<const QRgb *>(golden.constScanLine(y));
        QRgb *d = reinterpret_cast<QRgb *>(diff->scanLine(y));
        for (int x = 0; x < actual.width(); ++x) {
            const int delta = std::max({std::abs(qRed(a[x]) - qRed(g[x])), std::abs(qGreen(a[x]) - qGreen(g[x])), std::abs(qBlue(a[x]) - qBlue(g[x]))});
            worst = std::max(worst, delta);
            if (delta > kChannelTolerance) {
                ++differing;
                ++perBlock[(y / kBlock) * blocksAcross + x / kBlock];
                d[x] = qRgb(255, 0, 0);
            } else if (delta > 0) {
                d[x] = qRgb(255, 200, 200);
            }
        }
    }
    const double share = double(differing) / double(actual.width() * actual.height());
    const auto densest = std::max_element(perBlock.cbegin(), perBlock.cend());
    const int densestCount = densest == perBlock.cend() ? 0 : *densest;
    const int at = densest == perBlock.cend() ? 0 : int(densest - perBlock.cbegin());
    QString message = QStringLiteral("%1 pixels (%2%) differ by more than %3; worst channel delta %4")
                          .arg(differing)
                          .arg(share * 100, 0, 'f', 3)
                          .arg(kChannelTolerance)
                          .arg(worst);
    if (densestCount > 0)
        message += QStringLiteral("; densest %1x%1 block at %2,%3 has %4").arg(kBlock).arg((at % blocksAcross) * kBlock).arg((at / blocksAcross) * kBlock).arg(densestCount);
    return {share <= kMaxDifferingShare && densestCount <= kMaxDifferingPerBlock, message};
}

// Records or compares `actual` (Format_RGB32) as golden NAME. Returns empty when it matches (or
// was recorded), else one line saying why, for QVERIFY2.
inline QString checkGoldenImage(const QString &name, const QImage &actual)
{
    const QString goldenPath = goldenDir() + u'/' + name + QStringLiteral(".png");
    if (qEnvironmentVariableIntValue("SLICESCOPE_RECORD_GOLDENS") == 1) {
        QDir().mkpath(goldenDir());
        if (!actual.save(goldenPath))
            return QStringLiteral("could not write %1").arg(goldenPath);
        qWarning("recorded %s: look at it before committing", qPrintable(goldenPath));
        return {};
    }
    const QImage golden(goldenPath);
    if (golden.isNull())
        return QStringLiteral("no golden %1: record with SLICESCOPE_RECORD_GOLDENS=1").arg(goldenPath);
    QImage diff;
    const GoldenComparison c = compareToGolden(actual.convertToFormat(QImage::Format_RGB32), golden.convertToFormat(QImage::Format_RGB32), &diff);
    if (c.same) {
        if (!c.message.startsWith(QLatin1String("0 pixels"))) qInfo("golden %s: %s", qPrintable(name), qPrintable(c.message));
        return {};
    }
    const QString out = QDir::currentPath() + u'/' + name;
    actual.save(out + QStringLiteral(".actual.png"));
    if (!diff.isNull())
        diff.save(out + QStringLiteral(".diff.png"));
    return QStringLiteral("%1: %2 (wrote %3.actual.png and .diff.png)").arg(name, c.message, out);
}

} // namespace slicescope::testing

// QVERIFY2 on checkGoldenImage(): fails the calling test function with the reason.
#define SLICESCOPE_VERIFY_GOLDEN(name, image) \
    do { \
        const QString goldenProblem_ = slicescope::testing::checkGoldenImage((name), (image)); \
        QVERIFY2(goldenProblem_.isEmpty(), qPrintable(goldenProblem_)); \
    } while (false)
