// SPDX-License-Identifier: GPL-3.0-or-later
#include "sourceoptions.h"

#include "boundedfile.h"
#include "capturefile.h"
#include "democluster.h"
#include "fleetsource.h"
#include "kubenames.h"
#include "kubesource.h"
#include "livesource.h"
#include "relaysource.h"
#include "source.h"

#include <QCoreApplication>
#include <QThread>
#include <QTimer>
#include <QUrl>

#include <algorithm>

namespace slicescope {

namespace {

// Contexts watched at once (--context repeated, --all-contexts): each holds its own watches and
// Ray pollers (issue 16's fleet: 20 contexts).
constexpr int kMaxContexts = 64;

// "127.0.0.1:8265" is what people type; Ray's own tools want "http://127.0.0.1:8265".
QString normalizeRayUrl(const QString &text, QString &url)
{
    const QString withScheme = text.contains(QLatin1String("://")) ? text : QStringLiteral("http://") + text;
    const QUrl parsed(withScheme, QUrl::StrictMode);
    if (!parsed.isValid() || parsed.host().isEmpty())
        return QStringLiteral("--ray wants the dashboard's URL, e.g. http://127.0.0.1:8265, not \"%1\"").arg(text);
    if (parsed.scheme() != QLatin1String("http") && parsed.scheme() != QLatin1String("https"))
        return QStringLiteral("--ray wants an http:// or https:// URL (the dashboard, usually port 8265), not \"%1\"").arg(text);
    if (!parsed.userInfo().isEmpty())
        return QStringLiteral("--ray: put no credentials in the URL; give the token with --ray-token-file F or RAY_AUTH_TOKEN");
    url = parsed.toString(QUrl::StripTrailingSlash);
    return {};
}

// RAY_ADDRESS also names a GCS address ("10.0.0.1:6379", "auto") for Ray's own clients: only an
// http(s) URL is the dashboard.
QString rayAddressFromEnvironment()
{
    const QString address = qEnvironmentVariable("RAY_ADDRESS").trimmed();
    return address.startsWith(QLatin1String("http://")) || address.startsWith(QLatin1String("https://")) ? address : QString();
}

} // namespace

std::unique_ptr<PrometheusPoller> makePrometheus(const SourceSpec &spec, QString *error)
{
    if (spec.prometheusUrl.isEmpty())
        return nullptr;
    QByteArray token;
    if (!spec.prometheusTokenFile.isEmpty()) {
        if (const QString problem = PrometheusPoller::readTokenFile(spec.prometheusTokenFile, token); !problem.isEmpty()) {
            *error = problem;
            return nullptr;
        }
    }
    auto poller = std::make_unique<PrometheusPoller>(QUrl(spec.prometheusUrl));
    poller->setToken(std::move(token));
    poller->setTokenOrigin(QStringLiteral("--prometheus-token-file %1").arg(spec.prometheusTokenFile));
    poller->setWindowSeconds(spec.prometheusWindowSeconds);
    poller->setDeadline(std::chrono::milliseconds(std::min<qint64>(spec.deadlineMs, 30000)));
    return poller;
}

namespace {

// One KubeSource per context (--context repeated, or --all-contexts), joined as a fleet. Every
// context's kubeconfig entry is resolved first: one that cannot be (a missing file, a context
// the kubeconfig lacks) is bad input named at once, before anything connects.
std::unique_ptr<Source> makeFleetSource(const SourceSpec &spec, const RayToken &token, QString *error)
{
    QStringList names = spec.contexts;
    if (spec.allContexts) {
        KubeConfig first;
        KubeConfigContexts listed;
        if (const QString problem = loadKubeConfig(kubeconfigFiles(spec.kubeconfig), QString(), spec.ns, first, &listed); !problem.isEmpty() && listed.contexts.isEmpty()) {
            *error = problem;
            return nullptr;
        }
        names = listed.contexts;
        if (names.isEmpty()) {
            *error = QStringLiteral("--all-contexts: the kubeconfig (%1) names no context").arg(listed.files.join(QStringLiteral(", ")));
            return nullptr;
        }
        if (names.size() > kMaxContexts) {
            *error = QStringLiteral("--all-contexts: the kubeconfig names %1 contexts, more than the %2 watched at once").arg(names.size()).arg(kMaxContexts);
            return nullptr;
        }
    }
    std::vector<std::unique_ptr<KubeSource>> sources;
    for (const QString &name : std::as_const(names)) {
        KubeConfig config;
        if (const QString problem = loadKubeConfig(kubeconfigFiles(spec.kubeconfig), name, spec.ns, config); !problem.isEmpty()) {
            *error = QStringLiteral("context %1: %2").arg(sanitizeForMessage(name, 80), problem);
            return nullptr;
        }
        KubeSourceOptions options;
        options.ns = config.ns;
        options.allNamespaces = spec.allNamespaces;
        options.rayToken = token;
        sources.push_back(std::make_unique<KubeSource>(std::move(config), std::move(options)));
    }
    return std::make_unique<FleetSource>(std::move(sources));
}

std::unique_ptr<Source> makeLiveSource(const SourceSpec &spec, QString *error)
{
    QString promError;
    std::unique_ptr<PrometheusPoller> prometheus = makePrometheus(spec, &promError);
    if (!promError.isEmpty()) {
        *error = promError;
        return nullptr;
    }
    RayToken token;
    if (const QString problem = resolveRayToken(spec.rayTokenFile, token); !problem.isEmpty()) {
        *error = problem;
        return nullptr;
    }
    if (spec.usesKubernetes() && spec.isFleet())
        return makeFleetSource(spec, token, error);
    if (spec.usesKubernetes()) {
        KubeConfig config;
        if (const QString problem = resolveKubeConfig(spec, config); !problem.isEmpty()) {
            *error = problem;
            return nullptr;
        }
        KubeSourceOptions options;
        options.ns = config.ns;
        options.allNamespaces = spec.allNamespaces;
        options.rayUrl = QUrl(spec.rayUrl);
        options.rayToken = std::move(token);
        auto source = std::make_unique<KubeSource>(std::move(config), std::move(options));
        source->setPrometheus(std::move(prometheus));
        return source;
    }
    if (spec.rayUrl.isEmpty()) {
        *error = QStringLiteral("--ray wants the dashboard's URL");
        return nullptr;
    }
    auto source = std::make_unique<LiveRaySource>(QUrl(spec.rayUrl), std::move(token));
    source->setPrometheus(std::move(prometheus));
    return source;
}

// "127.0.0.1:9090" -> "http://127.0.0.1:9090"; credentials in the URL are refused (a token file
// keeps them out of process listings and logs).
QString normalizePrometheusUrl(const QString &text, QString &url)
{
    const QString withScheme = text.contains(QLatin1String("://")) ? text : QStringLiteral("http://") + text;
    const QUrl parsed(withScheme, QUrl::StrictMode);
    if (!parsed.isValid() || parsed.host().isEmpty() || (parsed.scheme() != QLatin1String("http") && parsed.scheme() != QLatin1String("https")))
        return QStringLiteral("--prometheus wants the server's http(s) URL, e.g. http://127.0.0.1:9090, not \"%1\"").arg(sanitizeForMessage(text, 80));
    if (!parsed.userInfo().isEmpty())
        return QStringLiteral("--prometheus: put no credentials in the URL; give a bearer token with --prometheus-token-file F");
    if (parsed.hasQuery() || parsed.hasFragment())
        return QStringLiteral("--prometheus wants the server's base URL, without a query");
    url = parsed.toString(QUrl::StripTrailingSlash);
    return {};
}

} // namespace

void addSourceOptions(QCommandLineParser &parser)
{
    parser.addOptions({
        {QStringLiteral("demo"), QStringLiteral("Use the built-in demo cluster.")},
        {QStringLiteral("demo-seed"), QStringLiteral("Seed of the demo cluster (default 42)."), QStringLiteral("N")},
        {QStringLiteral("demo-advance"), QStringLiteral("Run the demo simulation this many seconds first."), QStringLiteral("S")},
        {QStringLiteral("capture"), QStringLiteral("Read a capture file or recording."), QStringLiteral("FILE")},
        {QStringLiteral("ray"), QStringLiteral("Ray dashboard URL (default: RAY_ADDRESS)."), QStringLiteral("URL")},
        {QStringLiteral("ray-token-file"), QStringLiteral("File holding the Ray auth token."), QStringLiteral("F")},
        {QStringLiteral("kubeconfig"), QStringLiteral("kubeconfig path (default: KUBECONFIG)."), QStringLiteral("PATH")},
        {QStringLiteral("context"), QStringLiteral("kubeconfig context; repeat it to watch several at once."), QStringLiteral("C")},
        {QStringLiteral("all-contexts"), QStringLiteral("Watch every context of the kubeconfig at once.")},
        {{QStringLiteral("n"), QStringLiteral("namespace")}, QStringLiteral("Kubernetes namespace."), QStringLiteral("N")},
        {{QStringLiteral("A"), QStringLiteral("all-namespaces")}, QStringLiteral("Watch every namespace.")},
        {QStringLiteral("in-cluster"), QStringLiteral("Use the pod's service account (inside a Kubernetes pod).")},
        {QStringLiteral("relay"), QStringLiteral("A `slicescope serve` relay: the URL it printed, with its ?token=."), QStringLiteral("URL")},
        {QStringLiteral("prometheus"), QStringLiteral("Prometheus URL: chip activity (ray_tpu_*) added to a live source."), QStringLiteral("URL")},
        {QStringLiteral("prometheus-token-file"), QStringLiteral("File holding a bearer token for --prometheus."), QStringLiteral("F")},
        {QStringLiteral("timeout"), QStringLiteral("Give up on a live source after S seconds (headless verbs; default 120)."), QStringLiteral("S")},
    });
}

QString readSourceOptions(const QCommandLineParser &parser, SourceSpec &spec, DefaultSource fallback)
{
    const bool kubeconfigByDefault = fallback == DefaultSource::Kubeconfig && !parser.isSet(QStringLiteral("demo"))
                                     && !parser.isSet(QStringLiteral("capture")) && !parser.isSet(QStringLiteral("ray"))
                                     && !parser.isSet(QStringLiteral("relay"));
    int chosen = 0;
    if (parser.isSet(QStringLiteral("demo"))) {
        spec.kind = SourceSpec::Kind::Demo;
        ++chosen;
    }
    if (parser.isSet(QStringLiteral("capture"))) {
        spec.kind = SourceSpec::Kind::CaptureFile;
        spec.capturePath = parser.value(QStringLiteral("capture"));
        ++chosen;
    }
    if (parser.isSet(QStringLiteral("ray")) || parser.isSet(QStringLiteral("kubeconfig")) || parser.isSet(QStringLiteral("context"))
        || parser.isSet(QStringLiteral("in-cluster")) || parser.isSet(QStringLiteral("all-contexts")) || kubeconfigByDefault) {
        spec.kind = SourceSpec::Kind::Live;
        spec.rayUrl = parser.isSet(QStringLiteral("ray")) ? parser.value(QStringLiteral("ray")) : rayAddressFromEnvironment();
        spec.rayTokenFile = parser.value(QStringLiteral("ray-token-file"));
        spec.kubeconfig = parser.value(QStringLiteral("kubeconfig"));
        spec.context = parser.value(QStringLiteral("context"));
        spec.contexts = parser.values(QStringLiteral("context"));
        spec.contexts.removeDuplicates();
        spec.allContexts = parser.isSet(QStringLiteral("all-contexts"));
        if (spec.allContexts && !spec.contexts.isEmpty())
            return QStringLiteral("--all-contexts watches every context: leave out --context");
        if (spec.contexts.size() > kMaxContexts)
            return QStringLiteral("at most %1 contexts at once (%2 given)").arg(kMaxContexts).arg(spec.contexts.size());
        spec.ns = parser.value(QStringLiteral("namespace"));
        // The namespace goes into every request path: refuse what Kubernetes would not name.
        if (parser.isSet(QStringLiteral("namespace"))) {
            if (const QString rule = dns1123LabelProblem(spec.ns); !rule.isEmpty())
                return QStringLiteral("-n/--namespace \"%1\" %2").arg(sanitizeForMessage(spec.ns, 80), rule);
        }
        spec.allNamespaces = parser.isSet(QStringLiteral("all-namespaces"));
        spec.inCluster = parser.isSet(QStringLiteral("in-cluster"));
        spec.kubernetes = spec.inCluster || parser.isSet(QStringLiteral("kubeconfig")) || parser.isSet(QStringLiteral("context")) || spec.allContexts
                          || kubeconfigByDefault;
        if (spec.isFleet() && (spec.inCluster || parser.isSet(QStringLiteral("ray"))))
            return QStringLiteral("several contexts read each RayCluster's Ray through its own API server: leave out %1")
                .arg(spec.inCluster ? QStringLiteral("--in-cluster") : QStringLiteral("--ray"));
        ++chosen;
    }
    if (parser.isSet(QStringLiteral("relay"))) {
        spec.kind = SourceSpec::Kind::Relay;
        spec.relayUrl = parser.value(QStringLiteral("relay"));
        QString problem;
        if (RelaySource::relayUrl(QUrl(spec.relayUrl, QUrl::StrictMode), &problem).isEmpty())
            return problem;
        ++chosen;
    }
    if (chosen > 1)
        return QStringLiteral("choose one source: --demo, --capture FILE, --ray/--kubeconfig, or --relay URL");
    if (chosen == 0 && !rayAddressFromEnvironment().isEmpty()) {
        // Like Ray's own job CLI: RAY_ADDRESS=http://... names the cluster when nothing else does.
        spec.kind = SourceSpec::Kind::Live;
        spec.rayUrl = rayAddressFromEnvironment();
        spec.rayTokenFile = parser.value(QStringLiteral("ray-token-file"));
    }
    if (spec.kind == SourceSpec::Kind::Live && (parser.isSet(QStringLiteral("ray")) || !spec.rayUrl.isEmpty())) {
        if (const QString problem = normalizeRayUrl(spec.rayUrl, spec.rayUrl); !problem.isEmpty())
            return problem;
    }
    if (parser.isSet(QStringLiteral("prometheus")) || parser.isSet(QStringLiteral("prometheus-token-file"))) {
        if (spec.kind != SourceSpec::Kind::Live)
            return QStringLiteral("--prometheus adds chip activity to a live source: give --ray URL or --kubeconfig/--context too");
        if (spec.isFleet())
            return QStringLiteral("--prometheus with several contexts is not supported yet: give one --context");
        if (!parser.isSet(QStringLiteral("prometheus")))
            return QStringLiteral("--prometheus-token-file wants --prometheus URL");
        if (const QString problem = normalizePrometheusUrl(parser.value(QStringLiteral("prometheus")), spec.prometheusUrl); !problem.isEmpty())
            return problem;
        spec.prometheusTokenFile = parser.value(QStringLiteral("prometheus-token-file"));
    }
    if (parser.isSet(QStringLiteral("timeout"))) {
        bool ok = false;
        const double seconds = parser.value(QStringLiteral("timeout")).toDouble(&ok);
        if (!ok || !(seconds > 0) || seconds > 86400)
            return QStringLiteral("--timeout wants seconds between 0 and 86400, not \"%1\"")
                .arg(sanitizeForMessage(parser.value(QStringLiteral("timeout")), 40));
        spec.deadlineMs = std::max<qint64>(1, qint64(seconds * 1000));
    }
    if (parser.isSet(QStringLiteral("demo-seed"))) {
        bool ok = false;
        spec.demoSeed = parser.value(QStringLiteral("demo-seed")).toUInt(&ok);
        if (!ok)
            return QStringLiteral("--demo-seed wants a non-negative integer, not \"%1\"").arg(parser.value(QStringLiteral("demo-seed")));
    }
    if (parser.isSet(QStringLiteral("demo-advance"))) {
        bool ok = false;
        const double seconds = parser.value(QStringLiteral("demo-advance")).toDouble(&ok);
        if (!ok || seconds < 0)
            return QStringLiteral("--demo-advance wants seconds >= 0, not \"%1\"").arg(parser.value(QStringLiteral("demo-advance")));
        spec.demoAdvanceMs = qint64(seconds * 1000);
    }
    return {};
}

QString resolveKubeConfig(const SourceSpec &spec, KubeConfig &config, KubeConfigContexts *contexts)
{
    if (spec.inCluster)
        return loadInClusterConfig(config);
    return loadKubeConfig(kubeconfigFiles(spec.kubeconfig), spec.context, spec.ns, config, contexts);
}

QString loadCapture(const SourceSpec &spec, Capture &capture)
{
    switch (spec.kind) {
    case SourceSpec::Kind::None:
    case SourceSpec::Kind::Demo: {
        DemoCluster demo(spec.demoSeed);
        demo.advance(spec.demoAdvanceMs);
        capture = demo.capture();
        return {};
    }
    case SourceSpec::Kind::CaptureFile: {
        const CaptureReadResult result = readCaptureFile(spec.capturePath);
        if (!result.ok())
            return result.error;
        capture = result.captures.last();
        return {};
    }
    case SourceSpec::Kind::Live:
    case SourceSpec::Kind::Relay: {
        QString error;
        std::unique_ptr<Source> source = makeSource(spec, &error);
        if (!source)
            return error;
        // One answer is wanted: a relay that is gone or refuses us fails now instead of retrying.
        if (auto *relay = qobject_cast<RelaySource *>(source.get()))
            QObject::connect(relay, &Source::failed, relay, &RelaySource::stop);
        // A live answer arrives on the event loop. The verbs call this from main() before any loop
        // runs, so this exec() is the application's one top-level loop, ended from the signal
        // handlers; from inside a running loop it would nest, which the house rules forbid.
        if (!QCoreApplication::instance() || QThread::currentThread()->loopLevel() > 0)
            return QStringLiteral("internal error: a live source cannot be read synchronously from inside the event loop");
        QString failure;
        // Bounded twice: each request completes within the deadline however slowly its bytes
        // arrive (the message names its URL), and the whole wait too, retries included.
        const std::chrono::milliseconds deadline(spec.deadlineMs);
        setRequestDeadlineCap(deadline);
        QTimer backstop;
        backstop.setSingleShot(true);
        QObject::connect(&backstop, &QTimer::timeout, source.get(), [&] {
            failure = QStringLiteral("%1: no complete answer within %2 s; gave up (--timeout S to wait longer)")
                          .arg(source->description())
                          .arg(double(deadline.count()) / 1000.0);
            QCoreApplication::exit(1);
        });
        backstop.start(deadline + std::chrono::milliseconds(500)); // the request's own message first
        QObject::connect(source.get(), &Source::captureReceived, source.get(), [&](const Capture &received) {
            capture = received;
            QCoreApplication::exit(0);
        });
        QObject::connect(source.get(), &Source::failed, source.get(), [&](const QString &message) {
            failure = message;
            QCoreApplication::exit(1);
        });
        // Started from the loop: exit() before exec() would be lost.
        QTimer::singleShot(0, source.get(), &Source::start);
        QCoreApplication::exec();
        return failure;
    }
    }
    Q_UNREACHABLE();
}

std::unique_ptr<Source> makeSource(const SourceSpec &spec, QString *error)
{
    switch (spec.kind) {
    case SourceSpec::Kind::None:
    case SourceSpec::Kind::Demo:
        return std::make_unique<DemoSource>(spec.demoSeed);
    case SourceSpec::Kind::CaptureFile:
        return std::make_unique<CaptureFileSource>(spec.capturePath);
    case SourceSpec::Kind::Live:
        return makeLiveSource(spec, error);
    case SourceSpec::Kind::Relay:
        return std::make_unique<RelaySource>(QUrl(spec.relayUrl));
    }
    Q_UNREACHABLE();
}

} // namespace slicescope
