// SPDX-License-Identifier: GPL-3.0-or-later
#include "sourceoptions.h"

#include "capturefile.h"
#include "democluster.h"
#include "source.h"

namespace slicescope {

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
        {QStringLiteral("context"), QStringLiteral("kubeconfig context."), QStringLiteral("C")},
        {{QStringLiteral("n"), QStringLiteral("namespace")}, QStringLiteral("Kubernetes namespace."), QStringLiteral("N")},
        {QStringLiteral("all-namespaces"), QStringLiteral("Watch every namespace.")},
    });
}

QString readSourceOptions(const QCommandLineParser &parser, SourceSpec &spec)
{
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
    if (parser.isSet(QStringLiteral("ray")) || parser.isSet(QStringLiteral("kubeconfig"))) {
        spec.kind = SourceSpec::Kind::Live;
        spec.rayUrl = parser.value(QStringLiteral("ray"));
        spec.rayTokenFile = parser.value(QStringLiteral("ray-token-file"));
        spec.kubeconfig = parser.value(QStringLiteral("kubeconfig"));
        spec.context = parser.value(QStringLiteral("context"));
        spec.ns = parser.value(QStringLiteral("namespace"));
        spec.allNamespaces = parser.isSet(QStringLiteral("all-namespaces"));
        ++chosen;
    }
    if (chosen > 1)
        return QStringLiteral("choose one source: --demo, --capture FILE, or --ray/--kubeconfig");
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
        return QStringLiteral("live Ray and Kubernetes sources are not available in this build yet; use --demo or --capture FILE");
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
        *error = QStringLiteral("live Ray and Kubernetes sources are not available in this build yet; use --demo or --capture FILE");
        return nullptr;
    }
    Q_UNREACHABLE();
}

} // namespace slicescope
