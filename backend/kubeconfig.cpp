// SPDX-License-Identifier: GPL-3.0-or-later
#include "kubeconfig.h"

#include "boundedfile.h"
#include "kubenames.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QSet>
#include <QPointer>
#include <QTimer>

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <string>
#include <utility>

namespace slicescope {

namespace {

constexpr qint64 kMaxKubeconfigBytes = filelimits::kKubeconfigBytes;
constexpr qint64 kMaxTokenFileBytes = filelimits::kTokenFileBytes;
constexpr qint64 kMaxPemFileBytes = filelimits::kPemFileBytes;
constexpr qint64 kMaxPluginOutputBytes = 1024 * 1024;
// A cached exec credential counts as expired this long before it does, so a request never leaves
// with a token that dies on the way.
constexpr int kExpirySkewSeconds = 10;

const QString kExecV1 = QStringLiteral("client.authentication.k8s.io/v1");
const QString kExecV1beta1 = QStringLiteral("client.authentication.k8s.io/v1beta1");

// A token goes into an HTTP header: anything but visible ASCII would corrupt the request (or
// smuggle another header in), so such a token is refused rather than sent.
bool isUsableToken(const QByteArray &token)
{
    return !token.isEmpty() && std::all_of(token.begin(), token.end(), [](char c) { return c > 0x20 && c < 0x7f; });
}

// A name from the file, in quotes, as a message shows it: control characters escaped, a very
// long one cut (a kubeconfig is the user's, but it may be anyone's).
QString quoted(const QString &s)
{
    return u'"' + sanitizeForMessage(s, 512) + u'"';
}

// Every message leaves on one line of printable text, whatever the files' bytes were (server
// URLs, paths, yaml-cpp's words): the last guard, after the pieces were escaped where they arose.
QString oneLine(const QString &message)
{
    return sanitizeForMessage(message, 4096);
}

// " (line N)" for a node yaml-cpp knows the position of; lines count from 1 as editors do.
QString lineOf(const YAML::Node &node)
{
    const YAML::Mark mark = node.Mark();
    return mark.is_null() ? QString() : QStringLiteral(" (line %1)").arg(mark.line + 1);
}

QString folderOf(const QString &file)
{
    return QFileInfo(file).absolutePath();
}

// kubectl resolves a relative path against the folder of the file that names it, not the cwd.
QString resolvePath(const QString &path, const QString &file)
{
    if (path.isEmpty() || QDir::isAbsolutePath(path))
        return path;
    return QDir::cleanPath(QDir(folderOf(file)).filePath(path));
}

// Reads a small file whole; `what` names it for the message ("certificate-authority /x/ca.crt").
// A FIFO or device is refused (boundedfile.h), never waited on.
QString readSmallFile(const QString &path, qint64 limit, const QString &what, QByteArray &data)
{
    return readBoundedFile(path, limit, what, data);
}

// kubeconfig `*-data` fields are base64; some tools fold the text, so whitespace is dropped first.
bool decodeBase64(const QByteArray &text, QByteArray &out)
{
    QByteArray compact;
    compact.reserve(text.size());
    for (char c : text) {
        if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
            compact.append(c);
    }
    auto result = QByteArray::fromBase64Encoding(compact, QByteArray::AbortOnBase64DecodingErrors);
    if (!result)
        return false;
    out = std::move(*result);
    return true;
}

// PEM certificates, all of which must parse. Empty when there is none.
QList<QSslCertificate> parseCertificates(const QByteArray &pem)
{
    const QList<QSslCertificate> certs = QSslCertificate::fromData(pem, QSsl::Pem);
    if (std::any_of(certs.begin(), certs.end(), [](const QSslCertificate &c) { return c.isNull(); }))
        return {};
    return certs;
}

// A PEM private key: PKCS#1 RSA, SEC1 EC or PKCS#8 holding either. QSslKey wants the algorithm
// up front, so each is tried in turn; a null key means it did not load.
QString parsePrivateKey(const QByteArray &pem, QSslKey &key)
{
    if (!pem.contains("-----BEGIN"))
        return QStringLiteral("is not a PEM private key");
    if (pem.contains("BEGIN ENCRYPTED PRIVATE KEY") || pem.contains("Proc-Type: 4,ENCRYPTED"))
        return QStringLiteral("is an encrypted private key; it must be unencrypted");
    for (QSsl::KeyAlgorithm algorithm : {QSsl::Rsa, QSsl::Ec}) {
        QSslKey candidate(pem, algorithm, QSsl::Pem, QSsl::PrivateKey);
        if (!candidate.isNull()) {
            key = candidate;
            return {};
        }
    }
    return QStringLiteral("is not an RSA or EC private key that loads (PKCS#1, SEC1 or PKCS#8 PEM)");
}

// Reads the fields of one kubeconfig map (a context, cluster, user or exec entry), keeping the
// first problem as one sentence that names the file and entry. Missing and null fields read as
// empty, as in kubectl.
class EntryReader
{
public:
    EntryReader(YAML::Node map, QString where, QString keyPrefix = {})
        : m_map(std::move(map))
        , m_where(std::move(where))
        , m_prefix(std::move(keyPrefix))
    {
    }

    const QString &where() const { return m_where; }
    const QString &error() const { return m_error; }
    bool ok() const { return m_error.isEmpty(); }
    void fail(const QString &what)
    {
        if (m_error.isEmpty())
            m_error = m_where + QStringLiteral(": ") + what;
    }
    QString key(const char *name) const { return m_prefix + QLatin1String(name); }

    YAML::Node node(const char *name) const
    {
        if (!m_map.IsDefined() || !m_map.IsMap())
            return YAML::Node();
        const YAML::Node n = m_map[name];
        return n.IsDefined() ? n : YAML::Node();
    }
    // Set to something: an empty string counts as unset, as in kubectl.
    bool has(const char *name) const
    {
        const YAML::Node n = node(name);
        return !n.IsNull() && !(n.IsScalar() && n.Scalar().empty());
    }

    QString string(const char *name)
    {
        const YAML::Node n = node(name);
        if (n.IsNull())
            return {};
        if (!n.IsScalar()) {
            fail(QStringLiteral("%1%2 is not a string").arg(key(name), lineOf(n)));
            return {};
        }
        return QString::fromStdString(n.Scalar());
    }
    QByteArray bytes(const char *name) { return string(name).toUtf8(); }

    bool boolean(const char *name)
    {
        const YAML::Node n = node(name);
        if (n.IsNull())
            return false;
        bool value = false;
        if (!n.IsScalar() || !YAML::convert<bool>::decode(n, value))
            fail(QStringLiteral("%1%2 is not true or false").arg(key(name), lineOf(n)));
        return value;
    }

    QStringList strings(const char *name)
    {
        const YAML::Node n = node(name);
        QStringList out;
        if (n.IsNull())
            return out;
        if (!n.IsSequence()) {
            fail(QStringLiteral("%1%2 is not a list").arg(key(name), lineOf(n)));
            return out;
        }
        for (const YAML::Node &item : n) {
            if (!item.IsScalar()) {
                fail(QStringLiteral("%1%2 holds something that is not a string").arg(key(name), lineOf(item)));
                return {};
            }
            out.append(QString::fromStdString(item.Scalar()));
        }
        return out;
    }

private:
    YAML::Node m_map;
    QString m_where;
    QString m_prefix;
    QString m_error;
};

// One named entry of a kubeconfig list and the file it came from.
struct Entry {
    YAML::Node body;
    QString file;
};

// What the files hold once merged: for each name the entry of the first file that defines it.
struct Merged {
    QStringList files;
    QString currentContext;
    QMap<QString, Entry> clusters;
    QMap<QString, Entry> users;
    QMap<QString, Entry> contexts;
    QStringList contextOrder;
};

QString mergeList(const YAML::Node &root, const QString &path, const char *listKey, const char *itemKey,
                  QMap<QString, Entry> &into, QStringList *order)
{
    const YAML::Node list = root[listKey];
    if (!list.IsDefined() || list.IsNull())
        return {};
    const QString listName = QLatin1String(listKey);
    if (!list.IsSequence())
        return QStringLiteral("kubeconfig %1: %2%3 is not a list").arg(path, listName, lineOf(list));
    QSet<QString> seen; // a set, not a list: 20k contexts must not take 20k x 20k comparisons
    seen.reserve(qsizetype(list.size()));
    for (const YAML::Node &item : list) {
        if (!item.IsMap())
            return QStringLiteral("kubeconfig %1: an entry of %2%3 is not a map").arg(path, listName, lineOf(item));
        const YAML::Node nameNode = item["name"];
        const QString name = nameNode.IsDefined() && nameNode.IsScalar() ? QString::fromStdString(nameNode.Scalar()) : QString();
        if (name.isEmpty())
            return QStringLiteral("kubeconfig %1: an entry of %2%3 has no name").arg(path, listName, lineOf(item));
        // kubectl refuses a file that defines one name twice rather than guess which one is meant.
        if (seen.contains(name))
            return QStringLiteral("kubeconfig %1: %2 defines %3 twice%4").arg(path, listName, quoted(name), lineOf(item));
        seen.insert(name);
        // (A yaml-cpp node that is not there cannot be assigned to: pick before constructing.)
        const YAML::Node raw = item[itemKey];
        const YAML::Node body = !raw.IsDefined() || raw.IsNull() ? YAML::Node(YAML::NodeType::Map) : raw;
        if (!body.IsMap())
            return QStringLiteral("kubeconfig %1: %2 %3: %4%5 is not a map")
                .arg(path, listName, quoted(name), QLatin1String(itemKey), lineOf(body));
        if (into.contains(name))
            continue; // an earlier file defined it: the first one wins
        into.insert(name, Entry{body, path});
        if (order)
            order->append(name);
    }
    return {};
}

QString mergeFile(const QString &path, Merged &merged)
{
    QByteArray text;
    const QString readError = readSmallFile(path, kMaxKubeconfigBytes, QStringLiteral("kubeconfig %1").arg(path), text);
    if (!readError.isEmpty())
        return readError;
    merged.files.append(path);
    try {
        const YAML::Node root = YAML::Load(std::string(text.constData(), size_t(text.size())));
        if (!root.IsDefined() || root.IsNull())
            return {}; // an empty file is an empty config, as for kubectl
        if (!root.IsMap())
            return QStringLiteral("kubeconfig %1 is not a kubeconfig: its top level is not a map").arg(path);
        const YAML::Node current = root["current-context"];
        if (current.IsDefined() && !current.IsNull()) {
            if (!current.IsScalar())
                return QStringLiteral("kubeconfig %1: current-context%2 is not a string").arg(path, lineOf(current));
            if (merged.currentContext.isEmpty())
                merged.currentContext = QString::fromStdString(current.Scalar());
        }
        for (const QString &error : {mergeList(root, path, "clusters", "cluster", merged.clusters, nullptr),
                                     mergeList(root, path, "users", "user", merged.users, nullptr),
                                     mergeList(root, path, "contexts", "context", merged.contexts, &merged.contextOrder)}) {
            if (!error.isEmpty())
                return error;
        }
    } catch (const YAML::ParserException &e) {
        // yaml-cpp's own text names the problem, never the value; its lines count from 0.
        // It may quote the input (a raw newline, a control byte): escaped, on one line.
        const QString what = sanitizeForMessage(QString::fromStdString(e.msg));
        if (e.mark.is_null())
            return QStringLiteral("kubeconfig %1 is not valid YAML: %2").arg(path, what);
        return QStringLiteral("kubeconfig %1 is not valid YAML: line %2, column %3: %4")
            .arg(path)
            .arg(e.mark.line + 1)
            .arg(e.mark.column + 1)
            .arg(what);
    } catch (const YAML::Exception &e) {
        return QStringLiteral("kubeconfig %1 could not be read as a kubeconfig: %2").arg(path, sanitizeForMessage(QString::fromStdString(e.msg)));
    }
    return {};
}

QString mergeFiles(const QStringList &files, Merged &merged)
{
    QStringList missing;
    for (const QString &path : files) {
        // A KUBECONFIG entry that does not exist is skipped, as kubectl does.
        if (!QFileInfo::exists(path)) {
            missing.append(path);
            continue;
        }
        const QString error = mergeFile(path, merged);
        if (!error.isEmpty())
            return error;
    }
    if (merged.files.isEmpty()) {
        if (files.isEmpty())
            return QStringLiteral("no kubeconfig file to read");
        return QStringLiteral("no kubeconfig found: %1 %2 not exist")
            .arg(missing.join(QStringLiteral(", ")), missing.size() == 1 ? QStringLiteral("does") : QStringLiteral("do"));
    }
    return {};
}

QString loadPemCertificates(EntryReader &r, const char *dataKey, const char *fileKey, const QString &file,
                            QList<QSslCertificate> &out)
{
    if (r.has(dataKey)) { // the data field overrides the file field, as in client-go
        QByteArray pem;
        if (!decodeBase64(r.bytes(dataKey), pem))
            return QStringLiteral("%1 is not base64").arg(r.key(dataKey));
        out = parseCertificates(pem);
        if (out.isEmpty())
            return QStringLiteral("%1 holds no PEM certificate that loads").arg(r.key(dataKey));
        return {};
    }
    const QString path = resolvePath(r.string(fileKey), file);
    if (path.isEmpty())
        return {};
    QByteArray pem;
    const QString what = QStringLiteral("%1 %2").arg(r.key(fileKey), path);
    const QString error = readSmallFile(path, kMaxPemFileBytes, what, pem);
    if (!error.isEmpty())
        return error;
    out = parseCertificates(pem);
    if (out.isEmpty())
        return QStringLiteral("%1 holds no PEM certificate that loads").arg(what);
    return {};
}

QString loadPemKey(EntryReader &r, const char *dataKey, const char *fileKey, const QString &file, QSslKey &key)
{
    QByteArray pem;
    QString what;
    if (r.has(dataKey)) {
        what = r.key(dataKey);
        if (!decodeBase64(r.bytes(dataKey), pem))
            return QStringLiteral("%1 is not base64").arg(what);
    } else {
        const QString path = resolvePath(r.string(fileKey), file);
        what = QStringLiteral("%1 %2").arg(r.key(fileKey), path);
        const QString error = readSmallFile(path, kMaxPemFileBytes, what, pem);
        if (!error.isEmpty())
            return error;
    }
    const QString error = parsePrivateKey(pem, key);
    return error.isEmpty() ? QString() : what + u' ' + error;
}

QString readCluster(const Entry &entry, const QString &name, KubeConfig &out)
{
    EntryReader r(entry.body, QStringLiteral("kubeconfig %1, cluster %2").arg(entry.file, quoted(name)));
    const QString server = r.string("server");
    if (!r.ok())
        return r.error();
    if (server.isEmpty())
        return r.where() + QStringLiteral(" has no server");
    const QUrl url(server, QUrl::StrictMode);
    if (!url.isValid() || url.host().isEmpty() || (url.scheme() != QLatin1String("https") && url.scheme() != QLatin1String("http")))
        return r.where() + QStringLiteral(": server %1 is not an http(s) URL").arg(quoted(QUrl(server).toDisplayString(QUrl::RemoveUserInfo)));
    // "https://host/" and "https://host" are the same server; paths are joined onto it later.
    out.server = url.adjusted(QUrl::StripTrailingSlash);
    QString serverPath = out.server.path();
    while (serverPath.endsWith(u'/'))
        serverPath.chop(1);
    out.server.setPath(serverPath);

    const QString caError = loadPemCertificates(r, "certificate-authority-data", "certificate-authority", entry.file, out.caCertificates);
    if (!caError.isEmpty())
        r.fail(caError);
    out.insecureSkipTlsVerify = r.boolean("insecure-skip-tls-verify");
    out.tlsServerName = r.string("tls-server-name");
    const QString proxy = r.string("proxy-url");
    if (!proxy.isEmpty()) {
        const QUrl proxyUrl(proxy, QUrl::StrictMode);
        const QString scheme = proxyUrl.scheme();
        if (!proxyUrl.isValid() || proxyUrl.host().isEmpty()
            || (scheme != QLatin1String("http") && scheme != QLatin1String("https") && scheme != QLatin1String("socks5")))
            r.fail(QStringLiteral("proxy-url is not an http://, https:// or socks5:// URL"));
        out.proxyUrl = proxyUrl;
    }
    return r.error();
}

QString authProviderMessage(const QString &where, const QString &provider)
{
    const QString hint = provider == QLatin1String("gcp") ? QStringLiteral("use the exec plugin (gke-gcloud-auth-plugin) instead")
                                                          : QStringLiteral("use an exec credential plugin (such as kubelogin for oidc) instead");
    return QStringLiteral("%1 uses the legacy auth-provider %2, which SliceScope does not support; %3").arg(where, quoted(provider), hint);
}

QString readExec(const YAML::Node &node, const QString &where, const QString &file, KubeExecConfig &exec)
{
    if (!node.IsMap())
        return QStringLiteral("%1: exec%2 is not a map").arg(where, lineOf(node));
    EntryReader r(node, where, QStringLiteral("exec "));
    exec.apiVersion = r.string("apiVersion");
    exec.command = r.string("command");
    exec.args = r.strings("args");
    exec.provideClusterInfo = r.boolean("provideClusterInfo");
    exec.installHint = r.string("installHint");
    exec.interactiveMode = r.string("interactiveMode");
    exec.workingDirectory = folderOf(file);
    if (!r.ok())
        return r.error();
    if (exec.apiVersion != kExecV1 && exec.apiVersion != kExecV1beta1)
        return where + QStringLiteral(": exec apiVersion %1 is not %2 or %3").arg(quoted(exec.apiVersion), kExecV1, kExecV1beta1);
    if (exec.command.isEmpty())
        return where + QStringLiteral(": exec has no command");
    // Like PATH lookup in a shell: a bare name is searched on PATH, a path is relative to the file.
    if (exec.command.contains(u'/'))
        exec.command = resolvePath(exec.command, file);

    if (exec.interactiveMode.isEmpty()) {
        if (exec.apiVersion == kExecV1)
            return where + QStringLiteral(": exec interactiveMode is required with %1 (Never or IfAvailable)").arg(kExecV1);
        exec.interactiveMode = QStringLiteral("IfAvailable"); // the v1beta1 default
    }
    if (exec.interactiveMode == QLatin1String("Always"))
        return where + QStringLiteral(": exec interactiveMode is Always, but SliceScope cannot give a plugin a terminal; use Never or IfAvailable");
    if (exec.interactiveMode != QLatin1String("Never") && exec.interactiveMode != QLatin1String("IfAvailable"))
        return where + QStringLiteral(": exec interactiveMode %1 is not Never, IfAvailable or Always").arg(quoted(exec.interactiveMode));

    const YAML::Node env = r.node("env");
    if (!env.IsNull()) {
        if (!env.IsSequence())
            return QStringLiteral("%1: exec env%2 is not a list").arg(where, lineOf(env));
        for (const YAML::Node &item : env) {
            EntryReader e(item, where, QStringLiteral("exec env "));
            const QString name = e.string("name");
            const QString value = e.string("value");
            if (!item.IsMap() || name.isEmpty())
                return QStringLiteral("%1: an exec env entry%2 has no name").arg(where, lineOf(item));
            if (!e.ok())
                return e.error();
            exec.env.append({name, value});
        }
    }
    return {};
}

QString readUser(const Entry &entry, const QString &name, KubeConfig &out)
{
    const QString where = QStringLiteral("kubeconfig %1, user %2").arg(entry.file, quoted(name));
    EntryReader r(entry.body, where);

    const YAML::Node exec = r.node("exec");
    const YAML::Node authProvider = r.node("auth-provider");
    if (!authProvider.IsNull() && exec.IsNull()) {
        QString provider;
        if (authProvider.IsMap()) {
            EntryReader a(authProvider, where);
            provider = a.string("name");
        }
        return authProviderMessage(where, provider.isEmpty() ? QStringLiteral("unnamed") : provider);
    }

    out.token = r.bytes("token").trimmed(); // a block scalar (`token: |`) ends with a newline
    if (!out.token.isEmpty() && !isUsableToken(out.token))
        r.fail(QStringLiteral("token holds spaces or control characters; a token is one word"));
    out.tokenFile = resolvePath(r.string("tokenFile"), entry.file);
    if (!r.ok())
        return r.error();
    // As in client-go: `token` wins when both are set, `tokenFile` is still kept to be re-read.
    if (out.token.isEmpty() && !out.tokenFile.isEmpty()) {
        const QString error = readKubeTokenFile(out.tokenFile, where, out.token);
        if (!error.isEmpty())
            return error;
    }

    const bool hasCert = r.has("client-certificate-data") || r.has("client-certificate");
    const bool hasKey = r.has("client-key-data") || r.has("client-key");
    if (hasCert != hasKey)
        return where + (hasCert ? QStringLiteral(" has a client certificate but no client-key[-data]") : QStringLiteral(" has a client key but no client-certificate[-data]"));
    if (hasCert) {
        QList<QSslCertificate> certs;
        QString error = loadPemCertificates(r, "client-certificate-data", "client-certificate", entry.file, certs);
        if (error.isEmpty())
            error = loadPemKey(r, "client-key-data", "client-key", entry.file, out.clientKey);
        if (!error.isEmpty())
            return where + QStringLiteral(": ") + error;
        if (!r.ok())
            return r.error();
        if (certs.isEmpty() || out.clientKey.isNull())
            return where + QStringLiteral(" has no client certificate and key that load");
        out.clientCertificate = certs.first(); // any further ones are the chain, which the server has
    }

    if (!exec.IsNull()) {
        KubeExecConfig config;
        const QString error = readExec(exec, where, entry.file, config);
        if (!error.isEmpty())
            return error;
        out.exec = std::move(config);
    }

    const bool basicAuth = r.has("username") || r.has("password");
    if (basicAuth && out.token.isEmpty() && !hasCert && !out.exec)
        return where + QStringLiteral(" uses basic auth (username and password), which SliceScope does not support; use a token, a "
                                      "client certificate or an exec plugin");
    return r.error();
}

// Picks the context out of the merged files and reads its cluster and user into `out`.
QString resolveContext(const Merged &merged, const QString &context, const QString &namespaceOverride, KubeConfig &out)
{
    const QString fileList = QStringLiteral("kubeconfig ") + merged.files.join(QStringLiteral(", "));
    const QString contextName = context.isEmpty() ? merged.currentContext : context;
    if (contextName.isEmpty())
        return fileList + QStringLiteral(" sets no current-context; choose a context");
    const auto contextIt = merged.contexts.constFind(contextName);
    if (contextIt == merged.contexts.cend()) {
        if (context.isEmpty())
            return QStringLiteral("the current-context %1 is not defined in %2").arg(quoted(contextName), fileList);
        return QStringLiteral("context %1 is not defined in %2").arg(quoted(contextName), fileList);
    }
    const Entry &contextEntry = *contextIt;
    EntryReader r(contextEntry.body, QStringLiteral("kubeconfig %1, context %2").arg(contextEntry.file, quoted(contextName)));
    const QString clusterName = r.string("cluster");
    const QString userName = r.string("user");
    const QString ns = r.string("namespace");
    if (!r.ok())
        return r.error();
    if (clusterName.isEmpty())
        return r.where() + QStringLiteral(" names no cluster");
    const auto clusterIt = merged.clusters.constFind(clusterName);
    if (clusterIt == merged.clusters.cend())
        return r.where() + QStringLiteral(" names cluster %1, which is not defined in %2").arg(quoted(clusterName), fileList);

    KubeConfig config;
    config.contextName = contextName;
    config.clusterName = clusterName;
    config.userName = userName;
    if (!namespaceOverride.isEmpty())
        config.ns = namespaceOverride;
    else if (!ns.isEmpty())
        config.ns = ns;
    // The namespace goes into every request path (`..` would turn a namespaced LIST into a
    // cluster-wide one): it must be what Kubernetes accepts as one.
    if (const QString rule = dns1123LabelProblem(config.ns); !rule.isEmpty())
        return QStringLiteral("%1: namespace \"%2\" %3")
            .arg(namespaceOverride.isEmpty() ? r.where() : QStringLiteral("-n/--namespace"), sanitizeForMessage(config.ns, 80), rule);
    QString error = readCluster(*clusterIt, clusterName, config);
    if (!error.isEmpty())
        return error;
    // A context without a user is anonymous, as in kubectl; one naming a missing user is a mistake.
    if (!userName.isEmpty()) {
        const auto userIt = merged.users.constFind(userName);
        if (userIt == merged.users.cend())
            return r.where() + QStringLiteral(" names user %1, which is not defined in %2").arg(quoted(userName), fileList);
        error = readUser(*userIt, userName, config);
        if (!error.isEmpty())
            return error;
    }
    config.origin = QStringLiteral("kubeconfig %1, context %2").arg(contextEntry.file, sanitizeForMessage(contextName, 120));
    if (!userName.isEmpty())
        config.origin += QStringLiteral(", user ") + userName;
    out = std::move(config);
    return {};
}

} // namespace

QStringList kubeconfigFiles(const QString &explicitPath)
{
    if (!explicitPath.isEmpty())
        return {explicitPath};
    QStringList files;
    const QString env = qEnvironmentVariable("KUBECONFIG");
    for (const QString &path : env.split(u':', Qt::SkipEmptyParts)) {
        if (!files.contains(path))
            files.append(path);
    }
    if (files.isEmpty())
        files.append(QDir::homePath() + QStringLiteral("/.kube/config"));
    return files;
}

QString readKubeTokenFile(const QString &path, const QString &origin, QByteArray &token)
{
    QByteArray data;
    const QString error = readSmallFile(path, kMaxTokenFileBytes, QStringLiteral("the token file %1").arg(path), data);
    if (!error.isEmpty())
        return QStringLiteral("%1: %2").arg(origin, error);
    data = data.trimmed();
    if (data.isEmpty())
        return QStringLiteral("%1: the token file %2 is empty").arg(origin, path);
    if (!isUsableToken(data))
        return QStringLiteral("%1: the token file %2 holds spaces or control characters; a token is one word").arg(origin, path);
    token = data;
    return {};
}

QString loadKubeConfig(const QStringList &files, const QString &context, const QString &namespaceOverride, KubeConfig &out,
                       KubeConfigContexts *contexts)
{
    out = KubeConfig();
    Merged merged;
    const QString mergeError = mergeFiles(files, merged);
    if (contexts) {
        contexts->files = merged.files;
        contexts->contexts = merged.contextOrder;
        contexts->currentContext = merged.currentContext;
    }
    if (!mergeError.isEmpty())
        return oneLine(mergeError);

    // The node accessors above are guarded, but yaml-cpp throws where a guard was missed: a
    // message beats a crash.
    try {
        return oneLine(resolveContext(merged, context, namespaceOverride, out));
    } catch (const YAML::Exception &e) {
        out = KubeConfig();
        return QStringLiteral("kubeconfig %1 could not be read as a kubeconfig: %2")
            .arg(merged.files.join(QStringLiteral(", ")), sanitizeForMessage(QString::fromStdString(e.msg)));
    }
}

QString loadInClusterConfig(KubeConfig &out, const QString &root)
{
    out = KubeConfig();
    const QString host = qEnvironmentVariable("KUBERNETES_SERVICE_HOST");
    const QString port = qEnvironmentVariable("KUBERNETES_SERVICE_PORT");
    if (host.isEmpty() || port.isEmpty())
        return QStringLiteral("not running in a Kubernetes pod: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set");
    bool portOk = false;
    const int portNumber = port.toInt(&portOk);
    if (!portOk || portNumber < 1 || portNumber > 65535)
        return QStringLiteral("KUBERNETES_SERVICE_PORT %1 is not a port number").arg(quoted(port));
    const bool ipv6 = host.contains(u':') && !host.startsWith(u'[');
    const QUrl server(QStringLiteral("https://%1:%2").arg(ipv6 ? u'[' + host + u']' : host, port), QUrl::StrictMode);
    if (!server.isValid() || server.host().isEmpty())
        return QStringLiteral("KUBERNETES_SERVICE_HOST %1 is not a host name or address").arg(quoted(host));

    KubeConfig config;
    config.origin = QStringLiteral("in-cluster service account");
    config.server = server;
    const QDir dir(root);
    config.tokenFile = dir.filePath(QStringLiteral("token"));
    QString error = readKubeTokenFile(config.tokenFile, config.origin, config.token);
    if (!error.isEmpty())
        return error;
    // client-go carries on with the system's CAs when ca.crt is missing; one that is there must load.
    const QString caPath = dir.filePath(QStringLiteral("ca.crt"));
    if (QFileInfo::exists(caPath)) {
        QByteArray pem;
        error = readSmallFile(caPath, kMaxPemFileBytes, caPath, pem);
        if (!error.isEmpty())
            return config.origin + QStringLiteral(": ") + error;
        config.caCertificates = parseCertificates(pem);
        if (config.caCertificates.isEmpty())
            return QStringLiteral("%1: %2 holds no PEM certificate that loads").arg(config.origin, caPath);
    }
    // As client-go's in-cluster config: POD_NAMESPACE, else the namespace file, else "default".
    const QString podNamespace = qEnvironmentVariable("POD_NAMESPACE");
    if (!podNamespace.isEmpty()) {
        config.ns = podNamespace;
    } else {
        QByteArray ns;
        if (readSmallFile(dir.filePath(QStringLiteral("namespace")), filelimits::kSmallTextFileBytes, QString(), ns).isEmpty() && !ns.trimmed().isEmpty())
            config.ns = QString::fromUtf8(ns.trimmed());
    }
    if (const QString rule = dns1123LabelProblem(config.ns); !rule.isEmpty())
        return QStringLiteral("%1: namespace \"%2\" (%3) %4")
            .arg(config.origin, sanitizeForMessage(config.ns, 80),
                 podNamespace.isEmpty() ? dir.filePath(QStringLiteral("namespace")) : QStringLiteral("POD_NAMESPACE"), rule);
    out = std::move(config);
    return {};
}

namespace {

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
    if (!m_process)
        run();
}

void KubeExecCredentialProvider::invalidate()
{
    m_cached.reset();
}

void KubeExecCredentialProvider::run()
{
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
    for (const auto &[key, value] : std::as_const(m_exec.env))
        env.insert(key, value);
    env.insert(QStringLiteral("KUBERNETES_EXEC_INFO"), QString::fromUtf8(QJsonDocument(info).toJson(QJsonDocument::Compact)));
    process->setProcessEnvironment(env);
    process->setProgram(m_exec.command);
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
