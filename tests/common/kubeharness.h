// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Finding the real Kubernetes API server that tests/integration/kube-harness.sh started: its DIR comes
// in SLICESCOPE_KUBE_DIR (server-url, ca.crt, tokens, kubeconfigs; the script's header lists them).
// Without it the integration tier fails in CI (CI=true) and skips loudly elsewhere: a tier whose tool
// is missing never reports green.

#include "rayharness.h" // readFile()

#include <QString>
#include <QTest>

namespace slicescope::testing {

struct KubeHarness {
    QString dir;
    QString server;            // e.g. https://127.0.0.1:41237
    QString caFile;            // the CA that signed the server's certificate (DIR/ca.crt)
    QByteArray adminToken;     // system:masters
    QByteArray viewerToken;    // get/list/watch only (ClusterRole slicescope-viewer)
    QString kubeconfig;        // user admin, token
    QString kubeconfigViewer;  // user viewer, token
    QString kubeconfigCert;    // client-certificate/-key as relative paths, EC P-256 key
    QString kubeconfigCertRsa; // client-certificate-data/-key-data inline, RSA key
    QString kubeconfigExec;    // exec plugin ./exec-plugin.sh (client.authentication.k8s.io/v1)
    QString execPluginRuns;    // one line appended per plugin run
    QString execPluginInfo;    // the KUBERNETES_EXEC_INFO of the last run

    QString file(const QString &name) const { return dir + QLatin1Char('/') + name; }
};

} // namespace slicescope::testing

// Fills `harness` or ends the calling test function (QFAIL in CI, QSKIP elsewhere).
#define SLICESCOPE_FIND_KUBE_HARNESS(harness) \
    do { \
        const QString dir_ = qEnvironmentVariable("SLICESCOPE_KUBE_DIR"); \
        if (dir_.isEmpty()) { \
            const char *why_ = "SLICESCOPE_KUBE_DIR is not set: the integration tier needs the real Kubernetes API " \
                               "server that tests/integration/kube-harness.sh starts (tests/run-all.sh starts and " \
                               "stops it)"; \
            if (qEnvironmentVariable("CI") == QLatin1String("true")) \
                QFAIL(why_); \
            qWarning("\n*** INTEGRATION TIER SKIPPED *** %s\n", why_); \
            QSKIP("no Kubernetes API server: SLICESCOPE_KUBE_DIR is not set (see the warning above)"); \
        } \
        (harness).dir = dir_; \
        (harness).server = QString::fromUtf8(slicescope::testing::readFile((harness).file(QStringLiteral("server-url")))); \
        (harness).caFile = (harness).file(QStringLiteral("ca.crt")); \
        (harness).adminToken = slicescope::testing::readFile((harness).file(QStringLiteral("admin-token"))); \
        (harness).viewerToken = slicescope::testing::readFile((harness).file(QStringLiteral("viewer-token"))); \
        (harness).kubeconfig = (harness).file(QStringLiteral("kubeconfig")); \
        (harness).kubeconfigViewer = (harness).file(QStringLiteral("kubeconfig-viewer")); \
        (harness).kubeconfigCert = (harness).file(QStringLiteral("kubeconfig-cert")); \
        (harness).kubeconfigCertRsa = (harness).file(QStringLiteral("kubeconfig-cert-rsa")); \
        (harness).kubeconfigExec = (harness).file(QStringLiteral("kubeconfig-exec")); \
        (harness).execPluginRuns = (harness).file(QStringLiteral("exec-plugin.runs")); \
        (harness).execPluginInfo = (harness).file(QStringLiteral("exec-plugin.info")); \
        QVERIFY2(!(harness).server.isEmpty(), qPrintable(dir_ + QStringLiteral("/server-url is missing: is the harness up?"))); \
        QVERIFY2(!(harness).adminToken.isEmpty(), qPrintable(dir_ + QStringLiteral("/admin-token is missing: is the harness up?"))); \
        QVERIFY2(!(harness).viewerToken.isEmpty(), qPrintable(dir_ + QStringLiteral("/viewer-token is missing: is the harness up?"))); \
    } while (false)
