// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The SOURCE options shared by the window and every verb: --demo, --capture FILE, the live
// --ray/--kubeconfig family, and --relay URL (a `slicescope serve` relay).

#include "capture.h"
#include "netguard.h"

#include <QCommandLineParser>
#include <QList>
#include <QString>

#include <chrono>
#include <memory>

namespace slicescope {

class PrometheusPoller;
class Source;
struct KubeConfig;
struct KubeConfigContexts;

struct SourceSpec {
    enum class Kind
    {
        None,
        Demo,
        CaptureFile,
        Live,
        Relay
    };
    Kind kind = Kind::None;
    QString capturePath;
    QString relayUrl;              // --relay: what `slicescope serve` printed, token included
    quint32 demoSeed = 42;
    qint64 demoAdvanceMs = 0;
    QString rayUrl, rayTokenFile, kubeconfig, context, ns;
    // --prometheus URL [--prometheus-token-file F]: chip activity from Prometheus, added to a live
    // source (backend/prometheuspoller.h). `prometheusWindowSeconds` is the idle window asked.
    QString prometheusUrl, prometheusTokenFile;
    int prometheusWindowSeconds = 600;
    bool allNamespaces = false;
    // Several contexts at once (issue 16): --context repeated, or --all-contexts (every context of
    // the kubeconfig); each watched by its own source, the captures joined as a fleet.
    QStringList contexts;
    bool allContexts = false;
    bool isFleet() const { return allContexts || contexts.size() > 1; }
    bool kubernetes = false;       // --kubeconfig, --context or --in-cluster: watch Kubernetes
    bool inCluster = false;
    bool usesKubernetes() const { return kind == Kind::Live && kubernetes; }
    // --timeout: how long loadCapture() waits for a live source's first answer, and the cap on
    // each request's overall deadline meanwhile (netguard.h).
    qint64 deadlineMs = std::chrono::milliseconds(netlimits::kHeadlessDeadline).count();
};

// What SOURCE is when no --demo, --capture, --ray or --relay names one. None: a kubeconfig only with
// --kubeconfig, --context, --all-contexts or --in-cluster, else an http(s) RAY_ADDRESS, else
// nothing (the verbs ask for a SOURCE, the window opens the demo). Kubeconfig: as kubectl's plugin,
// the kubeconfig kubectl would read (KUBECONFIG or ~/.kube/config) and its current context, so
// `kubectl slicescope -n NS` and `-A` alone mean what they mean to kubectl.
enum class DefaultSource
{
    None,
    Kubeconfig
};

void addSourceOptions(QCommandLineParser &parser);
// Reads the options; returns an error sentence (bad usage) or empty. With no source option, an
// http(s) RAY_ADDRESS names a live Ray dashboard; --ray accepts "host:port" for "http://host:port".
[[nodiscard]] QString readSourceOptions(const QCommandLineParser &parser, SourceSpec &spec, DefaultSource fallback = DefaultSource::None);

// Loads one capture for the headless verbs. Returns an error sentence or empty. The demo and files
// are read at once; a live source runs the application's event loop (QCoreApplication::exec())
// until its first capture or failure, so call it only where no event loop runs yet (main(), a
// verb), never from inside one.
[[nodiscard]] QString loadCapture(const SourceSpec &spec, Capture &capture);

// Resolves the Kubernetes connection the options name (kubeconfig files, context, namespace, or
// the in-cluster service account). Returns an error sentence or empty.
[[nodiscard]] QString resolveKubeConfig(const SourceSpec &spec, KubeConfig &config, KubeConfigContexts *contexts = nullptr);

// A Source object for the window. Live: a LiveRaySource polling --ray with the resolved token.
std::unique_ptr<Source> makeSource(const SourceSpec &spec, QString *error);
// The Prometheus poller --prometheus names (null when none is given, or with `error` set when its
// token file cannot be read); makeSource() attaches it to live sources itself.
std::unique_ptr<PrometheusPoller> makePrometheus(const SourceSpec &spec, QString *error);

} // namespace slicescope
