// SPDX-License-Identifier: GPL-3.0-or-later
// `slicescope screenshot`: the window as it would show a view of a SOURCE, written as a PNG
// (renderScreenshot(), the same rendering the golden-image tests check).

#include "cli_p.h"

#include "relaysource.h"
#include "screenshot.h"
#include "sourceoptions.h"

#include <QCommandLineParser>
#include <QImage>
#include <QUrl>

namespace slicescope::cli {

int screenshot(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.addOptions({
        {QStringLiteral("view"), QStringLiteral("overview, tables, or slice:NAME (default overview)."), QStringLiteral("V"), QStringLiteral("overview")},
        {QStringLiteral("color"), QStringLiteral("Chip colours: worker, bundle, state or activity (default bundle)."), QStringLiteral("C"), QStringLiteral("bundle")},
        {QStringLiteral("activity"), QStringLiteral("With --color activity: duty (duty cycle, the default) or hbm (HBM used of total)."), QStringLiteral("M"), QStringLiteral("duty")},
        {QStringLiteral("size"), QStringLiteral("Window size WxH (default 1280x800)."), QStringLiteral("WxH"), QStringLiteral("1280x800")},
        {QStringLiteral("theme"), QStringLiteral("light or dark (default light)."), QStringLiteral("T"), QStringLiteral("light")},
        {QStringLiteral("explode"), QStringLiteral("Slice view: gap between z-layers, 0..2 (default 0)."), QStringLiteral("G"), QStringLiteral("0")},
        {QStringLiteral("select-host"), QStringLiteral("Slice view: select this worker id."), QStringLiteral("W")},
        {QStringLiteral("open"), QStringLiteral("Also show composer (the Reserve slices dock) or scale (the Scale worker group dialog)."), QStringLiteral("P")},
        {{QStringLiteral("o"), QStringLiteral("output")}, QStringLiteral("The PNG to write."), QStringLiteral("FILE")},
    });
    SourceSpec spec;
    if (const int code = parse(parser, arguments, QStringLiteral("screenshot"), spec); code >= 0)
        return code;
    ScreenshotOptions options;
    options.view = parser.value(QStringLiteral("view"));
    const auto color = colorModeFromText(parser.value(QStringLiteral("color")));
    if (!color)
        return fail(BadUsage, QStringLiteral("--color wants worker, bundle, state or activity, not \"%1\"").arg(parser.value(QStringLiteral("color"))));
    options.color = *color;
    const auto metric = activityMetricFromText(parser.value(QStringLiteral("activity")));
    if (!metric)
        return fail(BadUsage, QStringLiteral("--activity wants duty or hbm, not \"%1\"").arg(parser.value(QStringLiteral("activity"))));
    if (parser.isSet(QStringLiteral("activity")) && options.color != ColorMode::Activity)
        return fail(BadUsage, QStringLiteral("--activity goes with --color activity"));
    options.activity = *metric;
    const QStringList size = parser.value(QStringLiteral("size")).split(u'x');
    const int w = size.value(0).toInt(), h = size.value(1).toInt();
    if (size.size() != 2 || w < 200 || h < 150 || w > 8192 || h > 8192)
        return fail(BadUsage, QStringLiteral("--size wants WxH between 200x150 and 8192x8192, not \"%1\"").arg(parser.value(QStringLiteral("size"))));
    options.size = QSize(w, h);
    options.theme = parser.value(QStringLiteral("theme"));
    if (options.theme != QLatin1String("light") && options.theme != QLatin1String("dark"))
        return fail(BadUsage, QStringLiteral("--theme wants light or dark, not \"%1\"").arg(options.theme));
    bool ok = false;
    options.explode = parser.value(QStringLiteral("explode")).toDouble(&ok);
    if (!ok || options.explode < 0 || options.explode > 2)
        return fail(BadUsage, QStringLiteral("--explode wants a number from 0 to 2"));
    if (parser.isSet(QStringLiteral("select-host"))) {
        options.selectHost = parser.value(QStringLiteral("select-host")).toInt(&ok);
        if (!ok || options.selectHost < 0)
            return fail(BadUsage, QStringLiteral("--select-host wants a worker id"));
    }
    options.open = parser.value(QStringLiteral("open"));
    if (!options.open.isEmpty() && options.open != QLatin1String("composer") && options.open != QLatin1String("scale"))
        return fail(BadUsage, QStringLiteral("--open wants composer or scale, not \"%1\"").arg(options.open));
    const QString output = parser.value(QStringLiteral("output"));
    if (output.isEmpty())
        return fail(BadUsage, QStringLiteral("screenshot needs -o FILE.png"));
    Capture capture;
    if (const QString error = loadCapture(spec, capture); !error.isEmpty())
        return fail(Failed, error);
    if (const SnapshotPtr snap = buildSnapshot(capture); !snap->errors.isEmpty())
        return fail(Failed, snap->errors.join(QStringLiteral("; ")));
    // The status bar names the source as the window would (LiveRaySource says "Ray at URL").
    switch (spec.kind) {
    case SourceSpec::Kind::CaptureFile:
        options.sourceDescription = QStringLiteral("capture %1").arg(spec.capturePath.section(u'/', -1));
        break;
    case SourceSpec::Kind::Live:
        if (spec.usesKubernetes() && capture.isFleet()) {
            QStringList names;
            for (const Capture &member : capture.fleet)
                names << member.kubeContext;
            options.sourceDescription = QStringLiteral("%1 Kubernetes contexts (%2)").arg(names.size()).arg(names.join(QStringLiteral(", ")));
        } else if (spec.usesKubernetes())
            options.sourceDescription = capture.kubeContext.isEmpty()
                                            ? QStringLiteral("Kubernetes in-cluster")
                                            : QStringLiteral("Kubernetes context %1%2").arg(capture.kubeContext, spec.allNamespaces ? QStringLiteral(" (all namespaces)") : spec.ns.isEmpty() ? QString()
                                                                                                                                                                                              : QStringLiteral(" (namespace %1)").arg(spec.ns));
        else
            options.sourceDescription = QStringLiteral("Ray at %1").arg(spec.rayUrl.isEmpty() ? qEnvironmentVariable("RAY_ADDRESS") : spec.rayUrl);
        break;
    case SourceSpec::Kind::Relay:
        options.sourceDescription = RelaySource(QUrl(spec.relayUrl)).description();
        break;
    case SourceSpec::Kind::None:
    case SourceSpec::Kind::Demo:
        options.sourceDescription = QStringLiteral("demo cluster");
        break;
    }
    QString error;
    const QImage image = renderScreenshot(capture, options, &error);
    if (image.isNull())
        return fail(BadUsage, error);
    if (!image.save(output, "PNG"))
        return fail(Failed, QStringLiteral("%1: could not write the PNG").arg(output));
    if (parser.isSet(QStringLiteral("json")))
        printJson(QJsonObject{{QStringLiteral("output"), output}, {QStringLiteral("width"), image.width()}, {QStringLiteral("height"), image.height()}, {QStringLiteral("view"), options.view}});
    return Success;
}

} // namespace slicescope::cli
