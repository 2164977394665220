// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// How SliceScope finds and authenticates to a Kubernetes API server, the way kubectl does
// (docs/facts.md 4.3): kubeconfig files (a KUBECONFIG list merged, first file to set a value wins),
// contexts and namespaces, cluster TLS settings, and the user's credentials: a bearer token or
// token file, a client certificate and key (RSA or EC), or an exec credential plugin (v1 and
// v1beta1, how GKE's gke-gcloud-auth-plugin works). Also the in-cluster service-account config.
//
// Nothing here prints, logs or stores a credential: messages name where a credential came from
// (file and user entry), never its value.

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QObject>
#include <QPair>
#include <QSslCertificate>
#include <QSslKey>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>

class QProcess;

namespace slicescope {

// users[].user.exec of a kubeconfig.
struct KubeExecConfig {
    QString apiVersion;                       // client.authentication.k8s.io/v1 or /v1beta1
    QString command;                          // resolved against the kubeconfig's folder when it contains a '/'
    QStringList args;
    QList<QPair<QString, QString>> env;
    bool provideClusterInfo = false;
    QString installHint;
    QString interactiveMode;                  // Never, IfAvailable, Always (we never are interactive)
    QString workingDirectory;                 // the folder of the kubeconfig file that named it
};

// The result of resolving one context: everything a client needs to connect.
struct KubeConfig {
    QString contextName;                      // empty for in-cluster
    QString clusterName;
    QString userName;
    QString ns = QStringLiteral("default");   // the context's namespace, else "default"

    QUrl server;                              // https://host:port (no trailing slash)
    QList<QSslCertificate> caCertificates;    // empty: the system's CAs
    bool insecureSkipTlsVerify = false;       // the window shows a visible warning
    QString tlsServerName;                    // SNI and certificate name to verify, if set
    QUrl proxyUrl;                            // http(s):// or socks5:// proxy, if set

    QByteArray token;                         // bearer token (from `token`, or read from `tokenFile`)
    QString tokenFile;                        // re-read when the token is refused (rotated tokens)
    QSslCertificate clientCertificate;
    QSslKey clientKey;
    std::optional<KubeExecConfig> exec;

    // Where this came from, for messages: "kubeconfig /x/config, context kind-a, user admin" or
    // "in-cluster service account". Never contains a credential.
    QString origin;
};

// What the kubeconfig files offer, for a context switcher.
struct KubeConfigContexts {
    QStringList files;                        // the files merged, in order
    QStringList contexts;                     // names, in file order, without duplicates
    QString currentContext;
};

// What a kubeconfig may hold (issue 30, docs/bounds.md). yaml-cpp builds a tree of a whole file at
// a few hundred bytes a node (100,000 contexts took 795 MB), so each file is first counted by
// yaml-cpp's event parser, which builds nothing, and refused past these before its tree is built.
// The file itself is at most filelimits::kKubeconfigBytes (16 MiB).
namespace kubeconfiglimits {
// Entries of each of contexts, clusters and users in one file (issue 13's 20,000 load in ~1 s).
inline constexpr int kMaxEntries = 20000;
// YAML values (scalars, maps, lists, nulls, aliases) in one file and in all the files of a
// KUBECONFIG list together: 20,000 contexts with their clusters and users hold ~500,000.
inline constexpr qint64 kMaxNodes = 600000;
} // namespace kubeconfiglimits

// The files to read: `explicitPath` (the --kubeconfig option) if set, else KUBECONFIG split on
// ':' (empty entries dropped), else ~/.kube/config.
QStringList kubeconfigFiles(const QString &explicitPath);

// Reads and merges `files` and resolves `context` (empty: current-context) into `out`;
// `namespaceOverride` (the -n option), when set, replaces the context's namespace. Relative
// paths (certificate-authority, client-certificate, client-key, tokenFile, exec command) resolve
// against the folder of the file that names them. Returns one sentence naming the file and entry
// at fault, or empty. A user with the legacy `auth-provider` gets "... uses the legacy
// auth-provider \"gcp\", which SliceScope does not support; use the exec plugin
// (gke-gcloud-auth-plugin) instead". `contexts`, when given, is filled even on most errors.
[[nodiscard]] QString loadKubeConfig(const QStringList &files, const QString &context, const QString &namespaceOverride, KubeConfig &out,
                                     KubeConfigContexts *contexts = nullptr);

// Reads a bearer token file (a kubeconfig `tokenFile`, or the service account's `token`): the
// trimmed contents, which must be one word of visible ASCII. Call it again when the server refuses
// the token, as rotated tokens are rewritten in place. `origin` names the entry for messages
// ("kubeconfig /x/config, user admin"). Returns an error sentence or empty.
[[nodiscard]] QString readKubeTokenFile(const QString &path, const QString &origin, QByteArray &token);

// The service-account config of a pod: KUBERNETES_SERVICE_HOST/PORT, and token, ca.crt and
// namespace under `root`. Returns an error sentence or empty.
[[nodiscard]] QString loadInClusterConfig(KubeConfig &out,
                                          const QString &root = QStringLiteral("/var/run/secrets/kubernetes.io/serviceaccount"));

// A credential an exec plugin produced (ExecCredential.status).
struct KubeExecCredential {
    QByteArray token;
    QSslCertificate clientCertificate;
    QSslKey clientKey;
    QDateTime expiresAt;                      // invalid: does not expire
};

// Runs an exec credential plugin asynchronously (QProcess; never blocks the event loop) and
// caches what it returns until it expires or is invalidated (after a 401). Several callers asking
// while the plugin runs share that one run.
class KubeExecCredentialProvider : public QObject
{
    Q_OBJECT
public:
    KubeExecCredentialProvider(KubeExecConfig exec, QUrl server, QList<QSslCertificate> caCertificates,
                               bool insecureSkipTlsVerify, QObject *parent = nullptr);
    ~KubeExecCredentialProvider() override;

    using Handler = std::function<void(const QString &error, const KubeExecCredential &credential)>;
    // The cached credential when still valid (handler called later from the event loop, never
    // from inside get()), else runs the plugin with KUBERNETES_EXEC_INFO set to an ExecCredential
    // of the same apiVersion with spec.interactive=false (and spec.cluster when
    // provideClusterInfo). Errors name the command and quote its stderr's last line (the last
    // that mentions an error, when one does), never its stdout; a plugin that is not found
    // mentions installHint. Runs time out after 60 s.
    void get(Handler handler);
    // Forgets the cached credential (the server said 401): the next get() runs the plugin again.
    void invalidate();
    // How many times the plugin has been run (tests check the cache).
    int runCount() const { return m_runs; }
    // How long one run may take before it is killed and reported (60 s; tests shorten it).
    void setTimeout(std::chrono::milliseconds timeout) { m_timeout = timeout; }
    // A command named without a path and missing from this process's PATH is looked for on the
    // user's login shell's PATH ($SHELL -ilc, asked once per process, 5 s at most; a window
    // started from a desktop launcher has a bare PATH), and the plugin then runs with both; not
    // found on either, the error names both. Tests forget the answer to ask again.
    static void forgetLoginShellPath();

private:
    void run();
    void finish(const QString &error, const KubeExecCredential &credential);

    KubeExecConfig m_exec;
    QUrl m_server;
    QList<QSslCertificate> m_ca;
    bool m_insecure = false;
    std::optional<KubeExecCredential> m_cached;
    QList<Handler> m_waiting;
    QProcess *m_process = nullptr;
    bool m_findingPlugin = false; // waiting for the login shell's PATH
    int m_runs = 0;
    std::chrono::milliseconds m_timeout{60000};
};

} // namespace slicescope
