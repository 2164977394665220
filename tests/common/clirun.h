// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Runs the real `slicescope` binary the way other tools call it, for the app and integration
// tiers (runCli() blocking, runCliAsync() while the test's event loop turns): a clean environment
// (no display, since headless verbs must not need one; no Ray variables, since an http
// RAY_ADDRESS is a SOURCE of its own and tokens must come from the arguments under test), an
// optional private HOME, and extra variables.

#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTest>

#include <initializer_list>

namespace slicescope::testing {

struct CliRun {
    int exitCode = -1; // -1: did not finish in time; -2: crashed
    QByteArray out;
    QByteArray err;
    qint64 ms = 0; // runCliAsync(): from the start to the exit
    QJsonObject json() const { return QJsonDocument::fromJson(out).object(); }
    QString lastErrLine() const { return QString::fromUtf8(err).trimmed().section(u'\n', -1); }
};

// This process's environment less `removed`, with HOME = `home` when given, then `extraEnv`.
inline QProcessEnvironment cliEnvironment(std::initializer_list<const char *> removed, const QString &home, const QMap<QString, QString> &extraEnv)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char *name : removed)
        env.remove(QLatin1String(name));
    if (!home.isEmpty())
        env.insert(QStringLiteral("HOME"), home);
    for (auto it = extraEnv.cbegin(); it != extraEnv.cend(); ++it)
        env.insert(it.key(), it.value());
    return env;
}

inline CliRun runCli(const QStringList &args, const QString &home = {}, const QMap<QString, QString> &extraEnv = {},
                     int timeoutMs = 180000)
{
    QProcess p;
    p.setProcessEnvironment(cliEnvironment({"RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "RAY_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"}, home, extraEnv));
    p.start(QStringLiteral(SLICESCOPE_BINARY), args);
    CliRun r;
    if (!p.waitForFinished(timeoutMs))
        return r;
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

// Like runCli(), for `program` (the binary, or a link to it under another name) while this test's
// event loop keeps turning, so a server in the test's own process (fakehttpserver.h) answers it.
// SLICESCOPE_DEBUG and KUBECONFIG are left out too: the binary reads only what the test gives it.
inline CliRun runCliAsync(const QString &program, const QStringList &args, const QMap<QString, QString> &extraEnv = {}, int timeoutMs = 30000)
{
    QProcess p;
    p.setProcessEnvironment(cliEnvironment({"RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "RAY_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM",
                                            "SLICESCOPE_DEBUG", "KUBECONFIG"},
                                           {}, extraEnv));
    QElapsedTimer timer;
    timer.start();
    p.start(program, args);
    CliRun r;
    if (!p.waitForStarted(10000))
        return r;
    const bool finished = QTest::qWaitFor([&] { return p.state() == QProcess::NotRunning; }, timeoutMs);
    r.ms = timer.elapsed();
    if (!finished) {
        p.kill();
        p.waitForFinished(5000);
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

} // namespace slicescope::testing
