// SPDX-License-Identifier: GPL-3.0-or-later
// The exec credential plugins of a kubeconfig (`users[].user.exec`, client.authentication.k8s.io
// v1 and v1beta1): runs the plugin without blocking, bounds its time and output, reads the
// ExecCredential it prints, and caches the credential until shortly before it expires.
#include "kubeconfig.h"
#include "kubeconfig_p.h"

#include <QDateTime>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPointer>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTimer>

namespace slicescope {

using kubeconf::isUsableToken;
using kubeconf::parseCertificates;
using kubeconf::parsePrivateKey;
using kubeconf::quoted;

namespace {

constexpr qint64 kMaxPluginOutputBytes = 1024 * 1024;
// A cached exec credential counts as expired this long before it does, so a request never leaves
// with a token that dies on the way.
constexpr int kExpirySkewSeconds = 10;

// Plugins killed but not yet reaped (see done() in run()). A verb that exits on the error does
// not wait for them; held here, they are tracked, not lost, until the process ends.
QList<QPointer<QProcess>> &killedPlugins()
{
    // Never destroyed: at exit the list still names what is being reaped (a static list would be
    // gone before the leak checker looks, and the processes with it).
    static auto *processes = new QList<QPointer<QProcess>>;
    processes->removeAll(nullptr);
    return *processes;
}

// A window started from a desktop launcher inherits the session's bare PATH, not the one the
// user's shell startup files build (where gcloud's installer puts gke-gcloud-auth-plugin), so a
// plugin kubectl finds in a terminal is "not found" here: a known failure of Lens, Headlamp and
// others. A bare command name missing from the process's PATH is looked up on the user's login
// shell's PATH too, asked once per process, bounded in time and output, never blocking.
constexpr int kShellPathTimeoutMs = 5000;
constexpr qint64 kMaxShellOutputBytes = 64 * 1024;
constexpr char kPathMarker[] = "__SLICESCOPE_PATH__";

struct LoginShellPath {
    enum class State
    {
        NotAsked,
        Asking,
        Known
    } state = State::NotAsked;
    QString path;   // as the shell printed it (may be empty)
    QString failed; // why the shell could not tell, when it could not
    QList<std::function<void()>> waiting;
};

LoginShellPath &loginShellPath()
{
    static auto *cache = new LoginShellPath; // never destroyed: a run may still be reaped at exit
    return *cache;
}

// The user's shell: $SHELL, else /bin/sh.
QString userShell()
{
    const QString shell = qEnvironmentVariable("SHELL");
    return shell.isEmpty() || !QFileInfo(shell).isExecutable() ? QStringLiteral("/bin/sh") : shell;
}

// Asks the login shell (interactive too: many startup files set PATH only for interactive
// shells) for its PATH, then calls `then` (always from the event loop).
void askLoginShellPath(std::function<void()> then)
{
    LoginShellPath &cache = loginShellPath();
    cache.waiting.append(std::move(then));
    if (cache.state == LoginShellPath::State::Asking)
        return;
    cache.state = LoginShellPath::State::Asking;
    auto *shell = new QProcess;
    const QString program = userShell();
    shell->setProgram(program);
    // Markers around the value: startup files may print greetings of their own.
    shell->setArguments({QStringLiteral("-ilc"), QStringLiteral("printf '\\n%s%s%s\\n' %1 \"$PATH\" %1").arg(QLatin1String(kPathMarker))});
    shell->setStandardInputFile(QProcess::nullDevice());
    shell->setProcessChannelMode(QProcess::SeparateChannels);
    auto settle = [shell, program](const QString &path, const QString &failed) {
        LoginShellPath &c = loginShellPath();
        if (c.state != LoginShellPath::State::Asking)
            return;
        c.state = LoginShellPath::State::Known;
        c.path = path;
        c.failed = failed;
        shell->disconnect();
        if (shell->state() != QProcess::NotRunning) {
            QObject::connect(shell, &QProcess::finished, shell, &QObject::deleteLater);
            shell->kill();
        } else {
            shell->deleteLater();
        }
        for (auto &waiter : std::exchange(c.waiting, {}))
            QTimer::singleShot(0, std::move(waiter));
    };
    QObject::connect(shell, &QProcess::errorOccurred, shell, [settle, shell, program](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            settle({}, QStringLiteral("%1 could not be started (%2)").arg(program, shell->errorString()));
    });
    QObject::connect(shell, &QProcess::readyReadStandardOutput, shell, [settle, shell, program] {
        if (shell->bytesAvailable() > kMaxShellOutputBytes)
            settle({}, QStringLiteral("%1 printed more than %2 bytes").arg(program).arg(kMaxShellOutputBytes));
    });
    QObject::connect(shell, &QProcess::finished, shell, [settle, shell, program] {
        const QString out = QString::fromLocal8Bit(shell->readAllStandardOutput());
        const qsizetype from = out.lastIndexOf(QLatin1String(kPathMarker), out.lastIndexOf(QLatin1String(kPathMarker)) - 1);
        const qsizetype to = out.lastIndexOf(QLatin1String(kPathMarker));
        if (from < 0 || to <= from)
            settle({}, QStringLiteral("%1 -ilc did not print its PATH").arg(program));
        else
            settle(out.mid(from + qsizetype(sizeof kPathMarker) - 1, to - from - qsizetype(sizeof kPathMarker) + 1), QString());
    });
    auto *timer = new QTimer(shell);
    timer->setSingleShot(true);
    QObject::connect(timer, &QTimer::timeout, shell, [settle, program] {
        settle({}, QStringLiteral("%1 gave no PATH within %2 s").arg(program).arg(kShellPathTimeoutMs / 1000));
    });
    timer->start(kShellPathTimeoutMs);
    shell->start();
}

QStringList pathEntries(const QString &path)
{
    QStringList out;
    for (const QString &dir : path.split(u':', Qt::SkipEmptyParts))
        if (!out.contains(dir))
            out.append(dir);
    return out;
}

bool stillValid(const KubeExecCredential &credential)
{
    return !credential.expiresAt.isValid() || QDateTime::currentDateTimeUtc().addSecs(kExpirySkewSeconds) < credential.expiresAt;
}

// The line of a plugin's stderr worth quoting: its last line, except that plugins often end with
// a bare ")" or ">" under a longer story (gke-gcloud-auth-plugin does), so the last line that
// mentions an error wins, else the last one with any word in it; a klog header is dropped.
QString stderrExcerpt(const QByteArray &text)
{
    static const QRegularExpression klogHeader(QStringLiteral("^[IWEF]\\d{4} [\\d:.]+\\s+\\d+ [^\\]]+\\] "));
    static const QRegularExpression word(QStringLiteral("\\w"));
    const QList<QByteArray> lines = text.split('\n');
    QString fallback;
    for (auto it = lines.crbegin(); it != lines.crend(); ++it) {
        QString line = QString::fromUtf8(it->trimmed()).remove(klogHeader);
        if (!line.contains(word))
            continue;
        if (line.size() > 400)
            line = line.left(400) + QStringLiteral("...");
        if (line.contains(QLatin1String("error"), Qt::CaseInsensitive))
            return line;
        if (fallback.isEmpty())
            fallback = line;
    }
    return fallback;
}

// Reads an ExecCredential the plugin printed. Messages never quote the output: it holds the secret.
QString parseExecCredential(const QByteArray &output, const QString &apiVersion, KubeExecCredential &credential)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(output, &parseError);
    if (doc.isNull())
        return QStringLiteral("printed no ExecCredential JSON (%1 at offset %2)").arg(parseError.errorString()).arg(parseError.offset);
    if (!doc.isObject())
        return QStringLiteral("printed JSON that is not an ExecCredential object");
    const QJsonObject root = doc.object();
    const QString kind = root.value(QLatin1String("kind")).toString();
    if (kind != QLatin1String("ExecCredential"))
        return QStringLiteral("printed a %1, not an ExecCredential")
            .arg(kind.isEmpty() ? QStringLiteral("JSON object without kind") : quoted(kind.left(100)));
    const QString version = root.value(QLatin1String("apiVersion")).toString();
    if (version != apiVersion)
        return QStringLiteral("answered with apiVersion %1, but the kubeconfig asks for %2").arg(quoted(version.left(100)), apiVersion);
    const QJsonValue statusValue = root.value(QLatin1String("status"));
    if (!statusValue.isObject())
        return QStringLiteral("printed an ExecCredential without status");
    const QJsonObject status = statusValue.toObject();

    KubeExecCredential result;
    result.token = status.value(QLatin1String("token")).toString().toUtf8();
    if (!result.token.isEmpty() && !isUsableToken(result.token))
        return QStringLiteral("returned a token with spaces or control characters");
    const QByteArray certPem = status.value(QLatin1String("clientCertificateData")).toString().toUtf8();
    const QByteArray keyPem = status.value(QLatin1String("clientKeyData")).toString().toUtf8();
    if (certPem.isEmpty() != keyPem.isEmpty())
        return QStringLiteral("returned only one of clientCertificateData and clientKeyData");
    if (!certPem.isEmpty()) {
        const QList<QSslCertificate> certs = parseCertificates(certPem);
        if (certs.isEmpty())
            return QStringLiteral("returned clientCertificateData that holds no PEM certificate that loads");
        result.clientCertificate = certs.first();
        const QString keyError = parsePrivateKey(keyPem, result.clientKey);
        if (!keyError.isEmpty())
            return QStringLiteral("returned clientKeyData that ") + keyError;
    }
    if (result.token.isEmpty() && certPem.isEmpty())
        return QStringLiteral("returned neither a token nor a client certificate and key");
    const QJsonValue expiry = status.value(QLatin1String("expirationTimestamp"));
    if (!expiry.isUndefined() && !expiry.isNull()) {
        result.expiresAt = QDateTime::fromString(expiry.toString(), Qt::ISODateWithMs);
        if (!result.expiresAt.isValid())
            return QStringLiteral("returned an expirationTimestamp that is not an RFC 3339 time");
    }
    credential = std::move(result);
    return {};
}

} // namespace

KubeExecCredentialProvider::KubeExecCredentialProvider(KubeExecConfig exec, QUrl server, QList<QSslCertificate> caCertificates,
                                                       bool insecureSkipTlsVerify, QObject *parent)
    : QObject(parent)
    , m_exec(std::move(exec))
    , m_server(std::move(server))
    , m_ca(std::move(caCertificates))
    , m_insecure(insecureSkipTlsVerify)
{
}

KubeExecCredentialProvider::~KubeExecCredentialProvider()
{
    // Leave a running plugin to die on its own time: ~QProcess would wait for it.
    if (m_process) {
        m_process->disconnect(this);
        m_process->setParent(nullptr);
        QObject::connect(m_process, &QProcess::finished, m_process, &QObject::deleteLater);
        m_process->kill();
    }
}

void KubeExecCredentialProvider::get(Handler handler)
{
    if (m_cached && stillValid(*m_cached)) {
        QTimer::singleShot(0, this, [handler = std::move(handler), credential = *m_cached] { handler(QString(), credential); });
        return;
    }
    m_waiting.append(std::move(handler));
    if (!m_process && !m_findingPlugin)
        run();
}

void KubeExecCredentialProvider::invalidate()
{
    m_cached.reset();
}

void KubeExecCredentialProvider::forgetLoginShellPath()
{
    LoginShellPath &cache = loginShellPath();
    if (cache.state == LoginShellPath::State::Known)
        cache = {};
}

void KubeExecCredentialProvider::run()
{
    // A bare name that the process's PATH lacks: the login shell's PATH decides (see the top).
    const QString processPath = qEnvironmentVariable("PATH");
    QString program = m_exec.command;
    QString searchedPath;
    if (!program.contains(u'/') && QStandardPaths::findExecutable(program, pathEntries(processPath)).isEmpty()) {
        LoginShellPath &shell = loginShellPath();
        if (shell.state != LoginShellPath::State::Known) {
            QPointer<KubeExecCredentialProvider> self(this);
            m_findingPlugin = true; // get() meanwhile waits for this run rather than starting one
            askLoginShellPath([self] {
                if (!self)
                    return;
                self->m_findingPlugin = false;
                self->run();
            });
            return;
        }
        const QString found = QStandardPaths::findExecutable(program, pathEntries(shell.path));
        if (found.isEmpty()) {
            ++m_runs;
            QString message = QStringLiteral("the exec plugin %1 was not found on this process's PATH (%2) nor on the login shell's (%3)")
                                  .arg(quoted(program), processPath.isEmpty() ? QStringLiteral("empty") : processPath,
                                       shell.failed.isEmpty() ? (shell.path.isEmpty() ? QStringLiteral("empty") : shell.path) : shell.failed);
            if (const QString hint = m_exec.installHint.simplified(); !hint.isEmpty())
                message += QStringLiteral("; ") + hint;
            finish(message, KubeExecCredential());
            return;
        }
        program = found;
        searchedPath = pathEntries(processPath + u':' + shell.path).join(u':');
    }
    ++m_runs;
    auto *process = new QProcess(this);
    m_process = process;
    const QString name = quoted(m_exec.command);

    QJsonObject spec{{QStringLiteral("interactive"), false}};
    if (m_exec.provideClusterInfo) {
        QJsonObject cluster{{QStringLiteral("server"), m_server.toString(QUrl::FullyEncoded)}};
        if (!m_ca.isEmpty()) {
            QByteArray pem;
            for (const QSslCertificate &cert : std::as_const(m_ca))
                pem += cert.toPem();
            cluster.insert(QStringLiteral("certificate-authority-data"), QString::fromLatin1(pem.toBase64()));
        }
        if (m_insecure)
            cluster.insert(QStringLiteral("insecure-skip-tls-verify"), true);
        spec.insert(QStringLiteral("cluster"), cluster);
    }
    const QJsonObject info{{QStringLiteral("apiVersion"), m_exec.apiVersion},
                           {QStringLiteral("kind"), QStringLiteral("ExecCredential")},
                           {QStringLiteral("spec"), spec}};
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    if (!searchedPath.isEmpty())
        env.insert(QStringLiteral("PATH"), searchedPath); // what the plugin runs in turn (gcloud) is found alike
    for (const auto &[key, value] : std::as_const(m_exec.env))
        env.insert(key, value);
    env.insert(QStringLiteral("KUBERNETES_EXEC_INFO"), QString::fromUtf8(QJsonDocument(info).toJson(QJsonDocument::Compact)));
    process->setProcessEnvironment(env);
    process->setProgram(program);
    process->setArguments(m_exec.args);
    if (!m_exec.workingDirectory.isEmpty() && QFileInfo(m_exec.workingDirectory).isDir())
        process->setWorkingDirectory(m_exec.workingDirectory);
    process->setStandardInputFile(QProcess::nullDevice()); // never interactive

    // Ends this run once, whichever of exit, failure to start, timeout or overflow comes first.
    const auto done = [this, process](const QString &error, const KubeExecCredential &credential) {
        if (m_process != process)
            return;
        m_process = nullptr;
        process->disconnect(this);
        if (process->state() == QProcess::NotRunning) {
            process->deleteLater();
        } else {
            // Killed but not yet reaped: no longer the provider's child, or a provider that goes
            // first (a verb exiting on this very error) would destroy it still running, and
            // ~QProcess would wait for it and warn "Destroyed while process ... is still running".
            process->setParent(nullptr);
            QObject::connect(process, &QProcess::finished, process, &QObject::deleteLater);
            process->kill();
            process->readAllStandardOutput(); // what it printed is not needed: let it go now
            process->readAllStandardError();
            killedPlugins().append(process);  // reaped by the event loop, or still here at exit
        }
        if (error.isEmpty())
            m_cached = credential;
        finish(error, credential);
    };

    connect(process, &QProcess::errorOccurred, this, [done, process, name, hint = m_exec.installHint.simplified()](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart)
            return; // crashes and the like arrive as finished()
        QString message = QStringLiteral("the exec plugin %1 could not be started (%2)").arg(name, process->errorString());
        if (!hint.isEmpty())
            message += QStringLiteral("; ") + hint;
        done(message, KubeExecCredential());
    });
    connect(process, &QProcess::readyReadStandardOutput, this, [done, process, name] {
        if (process->bytesAvailable() > kMaxPluginOutputBytes)
            done(QStringLiteral("the exec plugin %1 printed more than %2 bytes; stopped").arg(name).arg(kMaxPluginOutputBytes), KubeExecCredential());
    });
    connect(process, &QProcess::finished, this, [this, done, process, name](int exitCode, QProcess::ExitStatus status) {
        const QString stderrLine = stderrExcerpt(process->readAllStandardError());
        const QString said = stderrLine.isEmpty() ? QString() : QStringLiteral(": ") + quoted(stderrLine);
        if (status == QProcess::CrashExit) {
            done(QStringLiteral("the exec plugin %1 crashed%2").arg(name, said), KubeExecCredential());
            return;
        }
        if (exitCode != 0) {
            done(QStringLiteral("the exec plugin %1 exited with code %2%3").arg(name).arg(exitCode).arg(said), KubeExecCredential());
            return;
        }
        KubeExecCredential credential;
        const QString error = parseExecCredential(process->readAllStandardOutput(), m_exec.apiVersion, credential);
        done(error.isEmpty() ? QString() : QStringLiteral("the exec plugin %1 %2").arg(name, error), credential);
    });
    // The timer lives and dies with the process, its connection with this provider.
    auto *timer = new QTimer(process);
    timer->setSingleShot(true);
    connect(timer, &QTimer::timeout, this, [done, name, timeout = m_timeout] {
        const double seconds = double(timeout.count()) / 1000.0;
        done(QStringLiteral("the exec plugin %1 gave no answer in %2 s; stopped").arg(name).arg(seconds), KubeExecCredential());
    });
    timer->start(m_timeout);
    process->start();
}

void KubeExecCredentialProvider::finish(const QString &error, const KubeExecCredential &credential)
{
    // Always from the event loop: finish() may run inside get() when the plugin fails to start.
    QTimer::singleShot(0, this, [handlers = std::exchange(m_waiting, {}), error, credential] {
        for (const Handler &handler : handlers)
            handler(error, credential);
    });
}

} // namespace slicescope
