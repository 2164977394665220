// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Golden-image checks shared by the widget tests (docs/testing.md): images live in tests/data/golden;
// a pixel differs when a channel is off by more than kChannelTolerance, and an image fails when
// more than kMaxDifferingShare of its pixels differ. On failure NAME.actual.png and NAME.diff.png
// are written to the working folder. SLICESCOPE_RECORD_GOLDENS=1 records instead (look at them
// before committing). Needs SLICESCOPE_TEST_DATA.

#include <QDir>
#include <QImage>
#include <QString>
#include <QTest>

#include <algorithm>
#include <cstdlib>

namespace slicescope::testing {

constexpr int kChannelTolerance = 24;        // antialiasing may differ by a few levels between CPUs
constexpr double kMaxDifferingShare = 0.002; // 0.2% of pixels

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
    for (int y = 0; y < actual.height(); ++y) {
        const QRgb *a = reinterpret_cast<const QRgb *>(actual.constScanLine(y));
        const QRgb *g = reinterpret_cast<const QRgb *>(golden.constScanLine(y));
        QRgb *d = reinterpret_cast<QRgb *>(diff->scanLine(y));
        for (int x = 0; x < actual.width(); ++x) {
            const int delta = std::max({std::abs(qRed(a[x]) - qRed(g[x])), std::abs(qGreen(a[x]) - qGreen(g[x])), std::abs(qBlue(a[x]) - qBlue(g[x]))});
            worst = std::max(worst, delta);
            if (delta > kChannelTolerance) {
                ++differing;
                d[x] = qRgb(255, 0, 0);
            } else if (delta > 0) {
                d[x] = qRgb(255, 200, 200);
            }
        }
    }
    const double share = double(differing) / double(actual.width() * actual.height());
    return {share <= kMaxDifferingShare,
            QStringLiteral("%1 pixels (%2%) differ by more than %3; worst channel delta %4")
                .arg(differing)
                .arg(share * 100, 0, 'f', 3)
                .arg(kChannelTolerance)
                .arg(worst)};
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
    if (c.same)
        return {};
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
