// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Finding the real Ray that tests/integration/ray-harness.sh started: its DIR comes in
// SLICESCOPE_RAY_DIR and holds dashboard-url and token. Without it the integration tier fails in
// CI (CI=true) and skips loudly elsewhere: a tier whose tool is missing never reports green.

#include <QFile>
#include <QString>
#include <QTest>

namespace slicescope::testing {

inline QByteArray readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll().trimmed() : QByteArray();
}

struct RayHarness {
    QString dir;
    QString url;        // the dashboard, e.g. http://127.0.0.1:26229
    QString tokenFile;
    QByteArray token;
};

} // namespace slicescope::testing

// Fills `harness` or ends the calling test function (QFAIL in CI, QSKIP elsewhere).
#define SLICESCOPE_FIND_RAY_HARNESS(harness) \
    do { \
        const QString dir_ = qEnvironmentVariable("SLICESCOPE_RAY_DIR"); \
        if (dir_.isEmpty()) { \
            const char *why_ = "SLICESCOPE_RAY_DIR is not set: the integration tier needs the real Ray that " \
                               "tests/integration/ray-harness.sh starts (tests/run-all.sh starts and stops it)"; \
            if (qEnvironmentVariable("CI") == QLatin1String("true")) \
                QFAIL(why_); \
            qWarning("\n*** INTEGRATION TIER SKIPPED *** %s\n", why_); \
            QSKIP("no Ray: SLICESCOPE_RAY_DIR is not set (see the warning above)"); \
        } \
        (harness).dir = dir_; \
        (harness).url = QString::fromUtf8(slicescope::testing::readFile(dir_ + QStringLiteral("/dashboard-url"))); \
        (harness).tokenFile = dir_ + QStringLiteral("/token"); \
        (harness).token = slicescope::testing::readFile((harness).tokenFile); \
        QVERIFY2(!(harness).url.isEmpty(), qPrintable(dir_ + QStringLiteral("/dashboard-url is missing: is the harness up?"))); \
        QVERIFY2(!(harness).token.isEmpty(), qPrintable((harness).tokenFile + QStringLiteral(" is missing: is the harness up?"))); \
    } while (false)
