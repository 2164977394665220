// SPDX-License-Identifier: GPL-3.0-or-later
// slicescope: the window, or a headless verb (inspect, plan, ...) when argv[1] names one.

#include "cli.h"
#include "look.h"
#include "kubeconfig.h"
#include "mainwindow.h"
#include "source.h"
#include "sourceoptions.h"
#include "logging.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QSettings>
#include <QTextStream>

using namespace slicescope;

namespace {

void setIdentity()
{
    QCoreApplication::setOrganizationName(QStringLiteral("SliceScope"));
    QCoreApplication::setApplicationName(QStringLiteral("slicescope"));
    QCoreApplication::setApplicationVersion(QStringLiteral(SLICESCOPE_VERSION));
}

// The window's options (the SOURCE options, --help, --version), described for `--help`.
void setUpWindowParser(QCommandLineParser &parser, const QStringList &arguments)
{
    QString description = QStringLiteral(
        "SliceScope: see and reserve TPU slices on Ray and Kubernetes. With no verb it opens the window on\n"
        "SOURCE (the built-in demo cluster when none is given).\n");
    if (cli::isKubectlPlugin(arguments))
        description += QStringLiteral(
            "As kubectl's plugin, SOURCE is the kubeconfig's current context as kubectl would use it (KUBECONFIG\n"
            "or ~/.kube/config, --kubeconfig, --context) unless --demo, --capture, --ray or --relay names\n"
            "another; -n/--namespace and -A/--all-namespaces mean what they mean to kubectl.\n");
    parser.setApplicationDescription(description + u'\n' + cli::verbsHelp());
    addSourceOptions(parser);
    parser.addHelpOption();
    parser.addVersionOption();
}

// --help and --version answer from the options alone: without a display (an install check, the
// build step that makes the man pages) QApplication would abort. -1 when neither is asked.
int printHelpOrVersion(const QCommandLineParser &parser, const QStringList &arguments)
{
    if (parser.isSet(QStringLiteral("help"))) {
        QTextStream(stdout) << cli::helpText(parser, arguments, QString());
        return cli::Success;
    }
    if (parser.isSet(QStringLiteral("version"))) {
        QTextStream(stdout) << "slicescope " << SLICESCOPE_VERSION << Qt::endl;
        return cli::Success;
    }
    return -1;
}

} // namespace

int main(int argc, char **argv)
{
    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments << QString::fromLocal8Bit(argv[i]);
    logging::applyEnvironment(); // SLICESCOPE_DEBUG=1: the debug log (model/logging.h)

    if (cli::needsWidgets(arguments)) {
        pinRenderingEnvironment(true); // draws without a display, identically everywhere
        cli::installQuietMessageHandler(); // before QApplication: it may warn already
        QApplication app(argc, argv);
        setIdentity();
        return cli::run(arguments);
    }
    if (cli::isHeadlessVerb(arguments)) {
        cli::installQuietMessageHandler();
        QCoreApplication app(argc, argv); // no display needed
        setIdentity();
        return cli::run(arguments);
    }

    // Decide what we cannot do before QApplication exists: without a display it would abort.
    if (arguments.size() > 1 && !arguments[1].startsWith(u'-')) {
        QTextStream(stderr) << "slicescope: unknown verb \"" << arguments[1] << "\" (verbs: " << cli::verbNames().join(QStringLiteral(", "))
                            << ")" << Qt::endl;
        return cli::BadUsage;
    }
    {
        QCommandLineParser parser;
        setUpWindowParser(parser, arguments);
        // Qt's own options (-platform, -style) fail this parse; QApplication takes them below.
        const bool parsed = parser.parse(arguments);
        if (parsed && (parser.isSet(QStringLiteral("help")) || parser.isSet(QStringLiteral("version")))) {
            QCoreApplication app(argc, argv);
            setIdentity();
            return printHelpOrVersion(parser, arguments);
        }
        if (parsed && parser.isSet(QStringLiteral("help-all"))) {
            qputenv("QT_QPA_PLATFORM", "offscreen"); // Qt's own options are listed by QApplication, which needs no display for it
            QApplication app(argc, argv);
            setIdentity();
            parser.process(app); // prints the help with Qt's options and exits
        }
    }
#if defined(Q_OS_LINUX)
    if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")
        && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
        QTextStream(stderr) << "slicescope: no display to open a window on (set DISPLAY, or use a headless verb: "
                               "slicescope inspect --demo --json)"
                            << Qt::endl;
        return cli::Failed;
    }
#endif

    QApplication app(argc, argv);
    setIdentity();
    // The icon of the window and the desktop entry it belongs to (installer/desktop/).
    QGuiApplication::setDesktopFileName(QStringLiteral("io.github.slicescope.SliceScope"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/io.github.slicescope.SliceScope.svg")));
    QCommandLineParser parser;
    setUpWindowParser(parser, arguments);
    if (!parser.parse(app.arguments())) {
        QTextStream(stderr) << "slicescope: " << parser.errorText() << Qt::endl;
        return cli::BadUsage;
    }
    if (const int code = printHelpOrVersion(parser, arguments); code >= 0)
        return code; // asked beside Qt's own options
    if (!parser.positionalArguments().isEmpty()) {
        QTextStream(stderr) << "slicescope: unknown verb \"" << parser.positionalArguments().first() << "\"" << Qt::endl;
        return cli::BadUsage;
    }
    SourceSpec spec;
    const DefaultSource fallback = cli::isKubectlPlugin(arguments) ? DefaultSource::Kubeconfig : DefaultSource::None;
    if (const QString problem = readSourceOptions(parser, spec, fallback); !problem.isEmpty()) {
        QTextStream(stderr) << "slicescope: " << problem << Qt::endl;
        return cli::BadUsage;
    }
    QString error;
    std::unique_ptr<Source> source = makeSource(spec, &error); // no source given: the demo
    if (!source) {
        QTextStream(stderr) << "slicescope: " << error << Qt::endl;
        return cli::Failed;
    }
    // Style, palette and font before the first widget exists (see renderScreenshot()).
    applyLook(app, Theme::named(QSettings().value(QStringLiteral("view/theme"), QStringLiteral("light")).toString()));
    MainWindow window;
    window.setSource(std::move(source));
    if (spec.usesKubernetes() && !spec.inCluster) {
        KubeConfig config;
        KubeConfigContexts contexts;
        // The source above resolved the same kubeconfig already; this reads its context list for
        // the switcher, which is left out if the files changed in between and no longer read.
        if (resolveKubeConfig(spec, config, &contexts).isEmpty())
            window.setKubeContexts(contexts.contexts, config.contextName, [spec](const QString &context, QString *error) {
                SourceSpec other = spec;
                other.context = context;
                return makeSource(other, error);
            });
    }
    // File > Connect: the same kubeconfig files (--kubeconfig, else KUBECONFIG, else ~/.kube/config),
    // read afresh each time; one context chosen watches it, several a fleet (issue 16). The Ray token
    // and Prometheus options given on the command line go with it.
    if (!spec.inCluster) {
        MainWindow::KubeConnector connector;
        connector.list = [spec](QStringList *contexts, QString *current, QStringList *files) {
            KubeConfig config;
            KubeConfigContexts listed;
            const QString problem = loadKubeConfig(kubeconfigFiles(spec.kubeconfig), QString(), QString(), config, &listed);
            *contexts = listed.contexts;
            *current = listed.currentContext;
            *files = listed.files;
            return listed.contexts.isEmpty() ? problem : QString();
        };
        auto kubeSpec = [spec](const ConnectChoice &choice) {
            SourceSpec other = spec;
            other.kind = SourceSpec::Kind::Live;
            other.kubernetes = true;
            other.rayUrl.clear(); // a direct head belongs to the source it was given with
            other.capturePath.clear();
            other.relayUrl.clear();
            other.allContexts = false;
            other.contexts = choice.contexts.size() > 1 ? choice.contexts : QStringList();
            other.context = choice.contexts.size() == 1 ? choice.contexts.first() : QString();
            other.ns = choice.allNamespaces ? QString() : choice.ns;
            other.allNamespaces = choice.allNamespaces;
            if (choice.contexts.size() > 1) { // one Prometheus joins one context's hosts (as on the command line)
                other.prometheusUrl.clear();
                other.prometheusTokenFile.clear();
            }
            return other;
        };
        connector.connect = [kubeSpec](const ConnectChoice &choice, QString *error) {
            return makeSource(kubeSpec(choice), error);
        };
        connector.makeOne = [kubeSpec](const QString &context, QString *error) {
            return makeSource(kubeSpec(ConnectChoice{{context}, {}, false}), error);
        };
        window.setKubeConnector(std::move(connector));
    }
    window.show();
    return app.exec();
}
