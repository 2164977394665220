// SPDX-License-Identifier: GPL-3.0-or-later
// `slicescope serve SOURCE [--listen 127.0.0.1:8080] [--web-root DIR]`: the relay for browsers
// (docs/relay-protocol.md). Native only: the browser build never serves.

#include "cli_p.h"

#include "boundedfile.h"
#include "clusteractions.h"
#include "relayserver.h"
#include "source.h"
#include "sourceoptions.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QHostAddress>
#include <QTextStream>

namespace slicescope::cli {

namespace {

// The relay's token is at least 16 characters and goes in a URL; a few KB is already absurd.
constexpr qint64 kMaxRelayTokenFileBytes = 4096;

// "127.0.0.1:8080", "[::1]:8080", "0.0.0.0:0", "localhost:8080", or a host alone (port 8080).
QString parseListen(const QString &text, QHostAddress &address, quint16 &port)
{
    QString host = text;
    QString portText = QStringLiteral("8080");
    if (text.startsWith(u'[')) {
        const qsizetype close = text.indexOf(u']');
        if (close < 0)
            return QStringLiteral("--listen: \"%1\" lacks its closing ]").arg(text);
        host = text.mid(1, close - 1);
        if (text.size() > close + 1) {
            if (text[close + 1] != u':')
                return QStringLiteral("--listen wants HOST:PORT, not \"%1\"").arg(text);
            portText = text.mid(close + 2);
        }
    } else if (text.count(u':') == 1) {
        host = text.section(u':', 0, 0);
        portText = text.section(u':', 1);
    }
    if (host == QLatin1String("localhost"))
        host = QStringLiteral("127.0.0.1");
    if (!address.setAddress(host))
        return QStringLiteral("--listen wants an IP address and port like 127.0.0.1:8080, not \"%1\"").arg(text);
    bool ok = false;
    const uint p = portText.toUInt(&ok);
    if (!ok || p > 65535)
        return QStringLiteral("--listen: \"%1\" is not a port (0 to 65535; 0 picks a free one)").arg(portText);
    port = quint16(p);
    return {};
}

} // namespace

int serve(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.addOptions({
        {QStringLiteral("listen"), QStringLiteral("Address and port (default 127.0.0.1:8080; port 0 picks a free one)."), QStringLiteral("HOST:PORT"),
         QStringLiteral("127.0.0.1:8080")},
        {QStringLiteral("allow-remote"), QStringLiteral("Listen on a non-loopback address and accept clients that are not loopback.")},
        {QStringLiteral("web-root"),
         QStringLiteral("The web bundle to serve (index.html, .js, .wasm; default: the installed one, ../share/slicescope/web beside the binary, when there)."),
         QStringLiteral("DIR")},
        {QStringLiteral("token-file"), QStringLiteral("Read the access token from this file instead of drawing a random one."), QStringLiteral("F")},
    });
    SourceSpec spec;
    if (const int code = parse(parser, arguments, QStringLiteral("serve"), spec); code >= 0)
        return code;
    if (spec.kind == SourceSpec::Kind::Relay)
        return fail(BadUsage, QStringLiteral("serve relays a cluster, not another relay: give it --demo, --capture, --ray or --kubeconfig"));
    RelayServerOptions options;
    if (const QString problem = parseListen(parser.value(QStringLiteral("listen")), options.address, options.port); !problem.isEmpty())
        return fail(BadUsage, problem);
    options.allowRemote = parser.isSet(QStringLiteral("allow-remote"));
    if (!options.allowRemote && !RelayServer::isLoopbackAddress(options.address))
        return fail(BadUsage, QStringLiteral("--listen %1 would let other machines reach the relay (and act on the cluster with the token); "
                                             "add --allow-remote to mean it, or listen on 127.0.0.1")
                                  .arg(parser.value(QStringLiteral("listen"))));
    options.webRoot = parser.value(QStringLiteral("web-root"));
    if (!parser.isSet(QStringLiteral("web-root"))) {
        // The slicescope-web package's bundle (installer/web/package.sh), beside an installed binary:
        // /usr/bin/slicescope -> /usr/share/slicescope/web.
        const QDir installed(QCoreApplication::applicationDirPath() + QStringLiteral("/../share/slicescope/web"));
        if (QFileInfo(installed.filePath(QStringLiteral("index.html"))).isFile()) {
            options.webRoot = installed.canonicalPath();
            notice(QStringLiteral("serving the installed web bundle in %1").arg(options.webRoot));
        }
    }
    const QString tokenFile = parser.value(QStringLiteral("token-file"));
    if (!tokenFile.isEmpty()) {
        QByteArray raw;
        if (const QString error = readBoundedFile(tokenFile, kMaxRelayTokenFileBytes, QStringLiteral("--token-file %1").arg(tokenFile), raw);
            !error.isEmpty())
            return fail(Failed, error);
        options.token = raw.trimmed();
        if (options.token.size() < 16)
            return fail(Failed, QStringLiteral("--token-file %1: the token must be at least 16 characters (e.g. `head -c 32 /dev/urandom | base64`)").arg(tokenFile));
        for (const char c : std::as_const(options.token))
            if (c <= ' ' || c >= 127 || c == ';' || c == '&' || c == '%' || c == '+' || c == '#')
                return fail(Failed, QStringLiteral("--token-file %1: use letters, digits, '-', '_', '.', '/' or '=' only (it goes in a URL and a cookie)").arg(tokenFile));
    } else {
        options.token = RelayServer::newToken();
    }

    QString error;
    std::unique_ptr<Source> source = makeSource(spec, &error);
    if (!source)
        return fail(Failed, error);
    QString unavailable;
    std::unique_ptr<ClusterActions> actions = makeClusterActions(source.get(), &unavailable);
    RelayServer server(source.get(), actions.get(), unavailable, options);
    int code = Success;
    return runLoop([&] {
               if (const QString problem = server.start(); !problem.isEmpty()) {
                   code = fail(Failed, problem);
                   QCoreApplication::exit(code);
                   return;
               }
               // The one line with the token, as Jupyter prints it; nothing else ever names the token.
               // A token from a file is not repeated (it would land in the pod's logs).
               const QUrl url = server.openUrl();
               const QString shown = tokenFile.isEmpty() ? url.toString(QUrl::FullyEncoded)
                                                         : url.toString(QUrl::RemoveQuery) + QStringLiteral("?token=<the token in %1>").arg(tokenFile);
               QTextStream(stderr) << "slicescope: serving " << source->description() << " at " << shown << Qt::endl;
           }) == 0
               ? code
               : Failed;
}

} // namespace slicescope::cli
