// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Runs the real `slicescope` binary the way other tools call it, for the app and integration
// tiers: a clean environment (no display, since headless verbs must not need one; no Ray
// variables, since an http RAY_ADDRESS is a SOURCE of its own and tokens must come from the
// arguments under test), an optional private HOME, and extra variables.

#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace slicescope::testing {

struct CliRun {
    int exitCode = -1; // -1: did not finish in time; -2: crashed
    QByteArray out;
    QByteArray err;
    QJsonObject json() const { return QJsonDocument::fromJson(out).object(); }
    QString lastErrLine() const { return QString::fromUtf8(err).trimmed().section(u'\n', -1); }
};

inline CliRun runCli(const QStringList &args, const QString &home = {}, const QMap<QString, QString> &extraEnv = {},
                     int timeoutMs = 180000)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char *name : {"RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "RAY_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
        env.remove(QLatin1String(name));
    if (!home.isEmpty())
        env.insert(QStringLiteral("HOME"), home);
    for (auto it = extraEnv.cbegin(); it != extraEnv.cend(); ++it)
        env.insert(it.key(), it.value());
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(SLICESCOPE_BINARY), args);
    CliRun r;
    if (!p.waitForFinished(timeoutMs))
        return r;
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

} // namespace slicescope::testing
