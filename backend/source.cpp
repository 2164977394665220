// SPDX-License-Identifier: GPL-3.0-or-later
#include "source.h"

#include "capturefile.h"
#include "democluster.h"
#include "democlusteractions.h"
#include "relaysource.h"
#ifndef Q_OS_WASM // a browser cannot reach Ray or Kubernetes itself (docs/facts.md 1.4)
#include "fleetclusteractions.h"
#include "fleetsource.h"
#include "kubeclusteractions.h"
#include "kubesource.h"
#include "livesource.h"
#include "rayclusteractions.h"
#endif

#include <QElapsedTimer>
#include <QFileInfo>
#include <QTimer>

#include <algorithm>

namespace slicescope {

namespace {
// How long one slice of reading may take before the event loop gets a turn (docs/style.md 8). The
// captures' handlers (the window building snapshots) run inside the slice and count too.
constexpr qint64 kSliceNs = 8'000'000;
} // namespace

CaptureFileSource::CaptureFileSource(QString path, QObject *parent)
    : Source(parent)
    , m_path(std::move(path))
    , m_pump(new QTimer(this))
{
    m_pump->setSingleShot(true);
    m_pump->setInterval(0);
    connect(m_pump, &QTimer::timeout, this, &CaptureFileSource::readSlice);
}

CaptureFileSource::~CaptureFileSource() = default;

QString CaptureFileSource::description() const
{
    return tr("capture %1").arg(QFileInfo(m_path).fileName());
}

void CaptureFileSource::start()
{
    m_pump->stop();
    m_emitted = 0;
    m_reader = std::make_unique<RecordingReader>(m_path);
    if (const QString error = m_reader->open(); !error.isEmpty()) {
        m_loading = false;
        m_reader.reset();
        Q_EMIT failed(error);
        return;
    }
    m_loading = true;
    readSlice(); // a single capture arrives before start() returns, as it always did
}

void CaptureFileSource::readSlice()
{
    if (!m_reader)
        return;
    QElapsedTimer clock;
    clock.start();
    // Emit at least one capture per slice, so a slow handler still makes progress.
    do {
        Capture capture;
        if (!m_reader->next(capture))
            break;
        m_loading = !m_reader->atEnd();
        ++m_emitted;
        Q_EMIT captureReceived(capture);
        if (!m_reader) // a handler replaced or restarted the source
            return;
    } while (!m_reader->atEnd() && clock.nsecsElapsed() < kSliceNs);

    const int percent = m_reader->size() > 0 ? int(100 * m_reader->bytesRead() / m_reader->size()) : 100;
    Q_EMIT progressChanged(m_emitted, std::clamp(percent, 0, 100));
    if (!m_reader->error().isEmpty()) {
        const QString error = m_reader->error();
        m_loading = false;
        m_reader.reset();
        Q_EMIT failed(m_emitted > 0 ? tr("%1 (the %n capture(s) before it were read)", nullptr, m_emitted).arg(error) : error);
        return;
    }
    if (m_reader->atEnd()) {
        m_loading = false;
        m_reader.reset();
        Q_EMIT loadingFinished(m_emitted);
        return;
    }
    m_pump->start();
}

StaticSource::StaticSource(Capture capture, QString description, QObject *parent)
    : Source(parent)
    , m_capture(std::move(capture))
    , m_description(std::move(description))
{
}

void StaticSource::start()
{
    Q_EMIT captureReceived(m_capture);
}

std::unique_ptr<ClusterActions> makeClusterActions(Source *source, QString *reason)
{
    if (auto *demo = qobject_cast<DemoSource *>(source))
        return std::make_unique<DemoClusterActions>(demo);
#ifndef Q_OS_WASM
    if (auto *live = qobject_cast<LiveRaySource *>(source))
        return std::make_unique<RayClusterActions>(live);
    if (auto *kube = qobject_cast<KubeSource *>(source))
        return std::make_unique<KubeClusterActions>(kube);
    if (auto *fleet = qobject_cast<FleetSource *>(source))
        return std::make_unique<FleetClusterActions>(fleet);
#endif
    if (auto *relay = qobject_cast<RelaySource *>(source))
        return std::make_unique<RelayClusterActions>(relay);
    if (reason) {
        if (!source) *reason = QStringLiteral("no source");
        else if (qobject_cast<CaptureFileSource *>(source) || qobject_cast<StaticSource *>(source))
            *reason = QStringLiteral("%1 is a recording: it cannot be changed").arg(source->description());
        else *reason = QStringLiteral("%1 is shown still: it cannot be changed from here").arg(source->description());
    }
    return nullptr;
}

} // namespace slicescope
