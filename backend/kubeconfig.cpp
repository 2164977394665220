// SPDX-License-Identifier: GPL-3.0-or-later
// Reading kubeconfig files (KUBECONFIG, merged as kubectl merges them) and the in-cluster
// service account into one KubeConfig; the exec credential plugins are in kubeexec.cpp.
#include "kubeconfig.h"
#include "kubeconfig_p.h"

#include "boundedfile.h"
#include "kubenames.h"

#include <QDir>
#include <QFileInfo>
#include <QMap>
#include <QSet>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <istream>
#include <streambuf>
#include <string>
#include <utility>
#include <vector>

namespace slicescope {

using kubeconf::isUsableToken;
using kubeconf::oneLine;
using kubeconf::parseCertificates;
using kubeconf::parsePrivateKey;
using kubeconf::quoted;

namespace {

constexpr qint64 kMaxKubeconfigBytes = filelimits::kKubeconfigBytes;
constexpr qint64 kMaxTokenFileBytes = filelimits::kTokenFileBytes;
constexpr qint64 kMaxPemFileBytes = filelimits::kPemFileBytes;

const QString kExecV1 = QStringLiteral("client.authentication.k8s.io/v1");
const QString kExecV1beta1 = QStringLiteral("client.authentication.k8s.io/v1beta1");

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

// Counts a kubeconfig's YAML values and the entries of its contexts, clusters and users from
// yaml-cpp's events, before any tree is built (kubeconfiglimits), and stops the parse by throwing
// TooLarge at the first value past a bound: a file of 100,000 contexts is refused after 20,001.
class KubeconfigCounter : public YAML::EventHandler
{
public:
    struct TooLarge {
        QString message;
    };
    KubeconfigCounter(QString path, qint64 nodeBudget)
        : m_path(std::move(path))
        , m_budget(nodeBudget)
    {
    }
    qint64 nodes() const { return m_nodes; }

    void OnDocumentStart(const YAML::Mark &) override { }
    void OnDocumentEnd() override { }
    void OnNull(const YAML::Mark &, YAML::anchor_t) override { before(); }
    void OnAlias(const YAML::Mark &, YAML::anchor_t) override { before(); }
    void OnScalar(const YAML::Mark &, const std::string &, YAML::anchor_t, const std::string &value) override
    {
        if (before() == kKey && m_stack.size() == 1) // a top-level key: which list its value is
            m_stack.back().pendingList = value == "clusters" ? 0 : value == "users"  ? 1
                                                               : value == "contexts" ? 2
                                                                                     : -1;
    }
    void OnSequenceStart(const YAML::Mark &, const std::string &, YAML::anchor_t, YAML::EmitterStyle::value) override
    {
        const int list = before();
        m_stack.push_back(Frame{false, true, list >= 0 ? list : -1, -1});
    }
    void OnSequenceEnd() override { m_stack.pop_back(); }
    void OnMapStart(const YAML::Mark &, const std::string &, YAML::anchor_t, YAML::EmitterStyle::value) override
    {
        before();
        m_stack.push_back(Frame{true, true, -1, -1});
    }
    void OnMapEnd() override { m_stack.pop_back(); }

private:
    static constexpr int kKey = -2;
    struct Frame {
        bool map;
        bool atKey;      // a map's next value is a key
        int list;        // a sequence: the top-level list it is (0 clusters, 1 users, 2 contexts), or -1
        int pendingList; // the top-level map: the list its key just named, or -1
    };
    // Counts the value about to start; returns kKey for a map's key, the list its value is for a
    // top-level key's value, else -1.
    int before()
    {
        if (++m_nodes > m_budget)
            throw TooLarge{QStringLiteral("kubeconfig %1 %2 more than %3 YAML values%4 (one with %5 contexts, clusters and users holds "
                                          "about 500000); not read")
                               .arg(m_path)
                               .arg(m_budget < kubeconfiglimits::kMaxNodes ? QStringLiteral("and the files of the KUBECONFIG list before it hold")
                                                                           : QStringLiteral("holds"))
                               .arg(kubeconfiglimits::kMaxNodes)
                               .arg(m_budget < kubeconfiglimits::kMaxNodes ? QStringLiteral(" together") : QString())
                               .arg(kubeconfiglimits::kMaxEntries)};
        if (m_stack.empty())
            return -1;
        Frame &top = m_stack.back();
        if (top.map) {
            top.atKey = !top.atKey;
            if (!top.atKey)
                return kKey;
            return std::exchange(top.pendingList, -1);
        }
        if (top.list >= 0 && m_stack.size() == 2 && ++m_entries[size_t(top.list)] > kubeconfiglimits::kMaxEntries) {
            static const char *const names[] = {"clusters", "users", "contexts"};
            throw TooLarge{QStringLiteral("kubeconfig %1 has more than %2 %3; SliceScope reads at most %2 of each of contexts, clusters "
                                          "and users from one file; not read")
                               .arg(m_path)
                               .arg(kubeconfiglimits::kMaxEntries)
                               .arg(QLatin1String(names[top.list]))};
        }
        return -1;
    }

    QString m_path;
    qint64 m_budget;
    qint64 m_nodes = 0;
    std::array<int, 3> m_entries{};
    std::vector<Frame> m_stack;
};

// An istream over bytes already in memory (yaml-cpp reads streams; no copy of the file).
struct MemoryBuffer : std::streambuf {
    MemoryBuffer(const char *data, size_t size)
    {
        char *begin = const_cast<char *>(data); // read only: a get area is never written
        setg(begin, begin, begin + size);
    }
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
    qint64 nodes = 0; // YAML values in the files read so far (kubeconfiglimits::kMaxNodes)
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
        {
            // Counted first, without a tree: refused here, a huge file costs no more than its bytes.
            MemoryBuffer buffer(text.constData(), size_t(text.size()));
            std::istream in(&buffer);
            YAML::Parser parser(in);
            KubeconfigCounter counter(path, kubeconfiglimits::kMaxNodes - merged.nodes);
            parser.HandleNextDocument(counter); // the first document, as YAML::Load reads
            merged.nodes += counter.nodes();
        }
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
    } catch (const KubeconfigCounter::TooLarge &e) {
        return e.message;
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

// PEM certificates, all of which must parse. Empty when there is none.
QList<QSslCertificate> kubeconf::parseCertificates(const QByteArray &pem)
{
    const QList<QSslCertificate> certs = QSslCertificate::fromData(pem, QSsl::Pem);
    if (std::any_of(certs.begin(), certs.end(), [](const QSslCertificate &c) { return c.isNull(); }))
        return {};
    return certs;
}

// A PEM private key: PKCS#1 RSA, SEC1 EC or PKCS#8 holding either. QSslKey wants the algorithm
// up front, so each is tried in turn; a null key means it did not load.
QString kubeconf::parsePrivateKey(const QByteArray &pem, QSslKey &key)
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

} // namespace slicescope
