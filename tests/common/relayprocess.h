// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// `slicescope serve SOURCE --listen 127.0.0.1:0` as a child process, and the URL its one line
// on stderr names (the app and integration tiers' relay tests).

#include <QElapsedTimer>
#include <QProcess>
#include <QRegularExpression>
#include <QStringList>
#include <QUrl>

#include <functional>
#include <memory>

namespace slicescope::testing {

struct RelayProcess {
    std::unique_ptr<QProcess> process;
    QUrl url;           // http://127.0.0.1:PORT/?token=...
    QByteArray token;
    quint16 port = 0;
    QByteArray err;     // everything it wrote on stderr so far
    QString binary = QStringLiteral(SLICESCOPE_BINARY); // another copy of it, to test where it looks beside itself
    std::function<void()> childSetup; // run in the child before exec (e.g. a lower limit of open files)

    // Starts `slicescope serve ARGS --listen 127.0.0.1:0` and waits for its URL line.
    bool start(const QStringList &args, int timeoutMs = 20000)
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const char *name : {"RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "RAY_ADDRESS", "DISPLAY", "KUBECONFIG"})
            env.remove(QLatin1String(name));
        process = std::make_unique<QProcess>();
        process->setProcessEnvironment(env);
        if (childSetup)
            process->setChildProcessModifier(childSetup);
        process->start(binary,
                       QStringList{QStringLiteral("serve")} + args + QStringList{QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0")});
        static const QRegularExpression line(QStringLiteral(R"( at (http://127\.0\.0\.1:(\d+)/\?token=([A-Za-z0-9_-]{43}))\s*$)"),
                                             QRegularExpression::MultilineOption);
        QElapsedTimer clock;
        clock.start();
        while (clock.elapsed() < timeoutMs) {
            process->waitForReadyRead(200);
            const QRegularExpressionMatch m = line.match(QString::fromUtf8(readErr()));
            if (m.hasMatch()) {
                url = QUrl(m.captured(1));
                port = quint16(m.captured(2).toUInt());
                token = m.captured(3).toLatin1();
                return true;
            }
            if (process->state() == QProcess::NotRunning)
                break;
        }
        return false;
    }

    QByteArray readErr()
    {
        if (process)
            err += process->readAllStandardError();
        return err;
    }

    void stop()
    {
        if (process && process->state() != QProcess::NotRunning) {
            process->terminate();
            process->waitForFinished(5000);
        }
        readErr();
    }

    ~RelayProcess() { stop(); }
};

} // namespace slicescope::testing
