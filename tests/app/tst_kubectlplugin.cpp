// SPDX-License-Identifier: GPL-3.0-or-later
// `kubectl slicescope`: the binary run under kubectl's plugin name (kubectl-slicescope, a link to it,
// as the .deb installs it) takes its SOURCE from kubectl's flags alone, the way kubectl would: the
// kubeconfig's current context with no flag, `-n NS`, `-A`, `--context C`, `--kubeconfig F`. Two
// fake API servers (one per context) answer the three lists a Kubernetes source makes and record
// the paths asked, which say the namespace, or none, that was chosen. The same flags without the
// plugin's name still ask for a SOURCE. Also the help texts name the command as it is typed, and
// kubectl itself finds and runs the plugin when it is installed.

#include "../common/clirun.h"
#include "../common/fakehttpserver.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace slicescope;

namespace {

using Request = testing::HttpRequest;
using Response = testing::HttpResponse;
using Run = testing::CliRun;

// An API server with nothing in it: empty lists, and watches that stay open and silent.
Response emptyCluster(const Request &r)
{
    const QByteArray path = r.path.left(r.path.indexOf('?'));
    const char *kind = path.endsWith("/rayclusters") ? "RayClusterList" : path.endsWith("/pods") ? "PodList"
                                                                      : path.endsWith("/nodes")  ? "NodeList"
                                                                                                 : nullptr;
    if (!kind || r.method != "GET")
        return {404, R"({"kind": "Status", "status": "Failure", "reason": "NotFound", "code": 404})"};
    if (r.path.contains("watch=1") || r.path.contains("watch=true")) {
        Response watch{200, {}};
        watch.keepOpen = true;
        return watch;
    }
    return {200, QByteArray(R"({"kind": ")") + kind + R"(", "apiVersion": "v1", "metadata": {"resourceVersion": "7"}, "items": []})"};
}

Run runAsync(const QString &program, const QStringList &args, const QMap<QString, QString> &extraEnv = {})
{
    return testing::runCliAsync(program, args, extraEnv, 60000);
}

// The paths a server was asked for its RayClusters, without the query.
QStringList rayClusterPaths(const testing::FakeHttpServer &server)
{
    QStringList paths;
    for (const Request &r : server.requests)
        if (r.path.contains("/rayclusters"))
            paths << QString::fromUtf8(r.path.left(r.path.indexOf('?')));
    paths.removeDuplicates();
    return paths;
}

} // namespace

class TestKubectlPlugin : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_plugin; // <dir>/bin/kubectl-slicescope -> the built slicescope
    QString m_kubeconfig;
    testing::FakeHttpServer m_here;  // context "here" (current; namespace team-a)
    testing::FakeHttpServer m_there; // context "there"

    Run plugin(const QStringList &args, bool withKubeconfigEnv = true)
    {
        QMap<QString, QString> env;
        if (withKubeconfigEnv)
            env.insert(QStringLiteral("KUBECONFIG"), m_kubeconfig);
        env.insert(QStringLiteral("HOME"), m_dir.path()); // no ~/.kube/config of the machine's
        return runAsync(m_plugin, args, env);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("bin")));
        m_plugin = m_dir.filePath(QStringLiteral("bin/kubectl-slicescope"));
        QVERIFY(QFile::link(QStringLiteral(SLICESCOPE_BINARY), m_plugin));
        m_here.script = emptyCluster;
        m_there.script = emptyCluster;
        m_kubeconfig = m_dir.filePath(QStringLiteral("kubeconfig"));
        QFile f(m_kubeconfig);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("apiVersion: v1\nkind: Config\ncurrent-context: here\nclusters:\n"
                "- name: a\n  cluster:\n    server: "
                + m_here.url().toEncoded()
                + "\n"
                  "- name: b\n  cluster:\n    server: "
                + m_there.url().toEncoded()
                + "\n"
                  "users:\n- name: u\n  user:\n    token: not-a-secret\n"
                  "contexts:\n- name: here\n  context:\n    cluster: a\n    user: u\n    namespace: team-a\n"
                  "- name: there\n  context:\n    cluster: b\n    user: u\n");
    }

    void init()
    {
        m_here.requests.clear();
        m_there.requests.clear();
    }

    // kubectl's flags choose the context and namespace; with none, kubectl's own defaults.
    void kubectlFlagsChooseWhatIsRead_data()
    {
        QTest::addColumn<QStringList>("flags");
        QTest::addColumn<bool>("viaEnvironment"); // KUBECONFIG names the file (else --kubeconfig)
        QTest::addColumn<QString>("server");      // which context's server was read
        QTest::addColumn<QString>("path");
        QTest::newRow("no flag: the current context and its namespace") << QStringList() << true << QStringLiteral("here")
                                                                        << QStringLiteral("/apis/ray.io/v1/namespaces/team-a/rayclusters");
        QTest::newRow("-n") << QStringList{QStringLiteral("-n"), QStringLiteral("team-b")} << true << QStringLiteral("here")
                            << QStringLiteral("/apis/ray.io/v1/namespaces/team-b/rayclusters");
        QTest::newRow("--namespace=") << QStringList{QStringLiteral("--namespace=team-c")} << true << QStringLiteral("here")
                                      << QStringLiteral("/apis/ray.io/v1/namespaces/team-c/rayclusters");
        QTest::newRow("-A") << QStringList{QStringLiteral("-A")} << true << QStringLiteral("here") << QStringLiteral("/apis/ray.io/v1/rayclusters");
        QTest::newRow("--all-namespaces") << QStringList{QStringLiteral("--all-namespaces")} << true << QStringLiteral("here")
                                          << QStringLiteral("/apis/ray.io/v1/rayclusters");
        QTest::newRow("--context") << QStringList{QStringLiteral("--context"), QStringLiteral("there")} << true << QStringLiteral("there")
                                   << QStringLiteral("/apis/ray.io/v1/namespaces/default/rayclusters");
        QTest::newRow("--kubeconfig, --context, -n") << QStringList{QStringLiteral("--kubeconfig"), QStringLiteral("KUBECONFIG"), QStringLiteral("--context"),
                                                                    QStringLiteral("there"), QStringLiteral("-n"), QStringLiteral("x")}
                                                     << false << QStringLiteral("there") << QStringLiteral("/apis/ray.io/v1/namespaces/x/rayclusters");
    }

    void kubectlFlagsChooseWhatIsRead()
    {
        QFETCH(QStringList, flags);
        QFETCH(bool, viaEnvironment);
        QFETCH(QString, server);
        QFETCH(QString, path);
        flags.replaceInStrings(QStringLiteral("KUBECONFIG"), m_kubeconfig);
        const Run r = plugin(QStringList{QStringLiteral("inspect")} + flags + QStringList{QStringLiteral("--json"), QStringLiteral("--timeout"), QStringLiteral("20")},
                             viaEnvironment);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(QJsonDocument::fromJson(r.out).object().contains(QLatin1String("slices")), r.out.left(300).constData());
        const testing::FakeHttpServer &asked = server == QLatin1String("here") ? m_here : m_there;
        const testing::FakeHttpServer &other = server == QLatin1String("here") ? m_there : m_here;
        QCOMPARE(rayClusterPaths(asked), QStringList{path});
        QVERIFY(other.requests.isEmpty());
    }

    // Another SOURCE named on the command line is read instead, as with slicescope itself.
    void anotherSourceWins()
    {
        const Run r = plugin({QStringLiteral("inspect"), QStringLiteral("--demo"), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(QJsonDocument::fromJson(r.out).object().value(QLatin1String("slices")).toArray().size() >= 6);
        QVERIFY(m_here.requests.isEmpty() && m_there.requests.isEmpty());
    }

    // Under its own name the binary keeps its rules: -n alone names no SOURCE; -A is --all-namespaces.
    void slicescopeItselfStillWantsASource()
    {
        const Run r = runAsync(QStringLiteral(SLICESCOPE_BINARY), {QStringLiteral("inspect"), QStringLiteral("-n"), QStringLiteral("team-a"), QStringLiteral("--json")},
                               {{QStringLiteral("KUBECONFIG"), m_kubeconfig}});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("inspect needs a SOURCE"), r.err.constData());
        const Run all = runAsync(QStringLiteral(SLICESCOPE_BINARY), {QStringLiteral("inspect"), QStringLiteral("--kubeconfig"), m_kubeconfig,
                                                                     QStringLiteral("-A"), QStringLiteral("--json"), QStringLiteral("--timeout"), QStringLiteral("20")});
        QVERIFY2(all.exitCode == 0, all.err.constData());
        QCOMPARE(rayClusterPaths(m_here), QStringList{QStringLiteral("/apis/ray.io/v1/rayclusters")});
    }

    // The usage line names the command as typed, with the verb; the plugin's help says its default.
    void helpNamesTheCommand()
    {
        const Run verb = runAsync(QStringLiteral(SLICESCOPE_BINARY), {QStringLiteral("inspect"), QStringLiteral("--help")});
        QCOMPARE(verb.exitCode, 0);
        QVERIFY2(verb.out.startsWith("Usage: slicescope inspect [options]\n"), verb.out.left(200).constData());
        const Run pg = runAsync(QStringLiteral(SLICESCOPE_BINARY), {QStringLiteral("release-pg"), QStringLiteral("--help")});
        QVERIFY2(pg.out.startsWith("Usage: slicescope release-pg [options] NAME\n"), pg.out.left(200).constData());
        const Run window = plugin({QStringLiteral("--help")});
        QCOMPARE(window.exitCode, 0);
        QVERIFY2(window.out.startsWith("Usage: kubectl slicescope [options]\n"), window.out.left(200).constData());
        QVERIFY2(window.out.contains("As kubectl's plugin, SOURCE is the kubeconfig's current context"), window.out.constData());
        QVERIFY2(window.out.contains("-A, --all-namespaces"), window.out.constData());
        const Run verbs = plugin({QStringLiteral("scale"), QStringLiteral("--help")});
        QVERIFY2(verbs.out.startsWith("Usage: kubectl slicescope scale [options]\n"), verbs.out.left(200).constData());
    }

    // --help and --version need no display: the window's parser answers before any QApplication.
    void helpAndVersionWithoutADisplay()
    {
        const Run version = runAsync(QStringLiteral(SLICESCOPE_BINARY), {QStringLiteral("--version")});
        QCOMPARE(version.exitCode, 0);
        QCOMPARE(version.out, QByteArray("slicescope " SLICESCOPE_VERSION "\n"));
        QCOMPARE(plugin({QStringLiteral("--version")}).out, QByteArray("slicescope " SLICESCOPE_VERSION "\n"));
        const Run help = runAsync(QStringLiteral(SLICESCOPE_BINARY), {QStringLiteral("--help")});
        QCOMPARE(help.exitCode, 0);
        QVERIFY2(help.out.startsWith("Usage: slicescope [options]\n"), help.out.left(200).constData());
        QVERIFY2(help.out.contains("\n  submit-slice-pg  "), help.out.constData()); // the verbs, listed
        const Run helpAll = runAsync(QStringLiteral(SLICESCOPE_BINARY), {QStringLiteral("--help-all")});
        QCOMPARE(helpAll.exitCode, 0);
        QVERIFY2(helpAll.out.contains("-platform"), helpAll.out.constData()); // and Qt's own options
    }

    // kubectl finds kubectl-slicescope on PATH and hands it every argument after `slicescope`.
    void kubectlRunsThePlugin()
    {
        const QString kubectl = QStandardPaths::findExecutable(QStringLiteral("kubectl"));
        if (kubectl.isEmpty())
            QSKIP("LOUD SKIP: kubectl is not installed; kubectl-slicescope was checked as kubectl would run it");
        const QString path = m_dir.filePath(QStringLiteral("bin")) + u':' + qEnvironmentVariable("PATH");
        const Run list = runAsync(kubectl, {QStringLiteral("plugin"), QStringLiteral("list")}, {{QStringLiteral("PATH"), path}, {QStringLiteral("HOME"), m_dir.path()}});
        QVERIFY2(list.out.contains("kubectl-slicescope"), (list.out + list.err).constData());
        const Run r = runAsync(kubectl, {QStringLiteral("slicescope"), QStringLiteral("inspect"), QStringLiteral("-n"), QStringLiteral("team-k"), QStringLiteral("--json")},
                               {{QStringLiteral("PATH"), path}, {QStringLiteral("KUBECONFIG"), m_kubeconfig}, {QStringLiteral("HOME"), m_dir.path()}});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(rayClusterPaths(m_here), QStringList{QStringLiteral("/apis/ray.io/v1/namespaces/team-k/rayclusters")});
    }
};

QTEST_GUILESS_MAIN(TestKubectlPlugin)
#include "tst_kubectlplugin.moc"
