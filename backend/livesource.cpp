// SPDX-License-Identifier: GPL-3.0-or-later
#include "livesource.h"

#include "logging.h"

#include <algorithm>

namespace slicescope {

namespace {
constexpr std::chrono::milliseconds kMaxBackoff{30000};
}

LiveRaySource::LiveRaySource(const QUrl &url, RayToken token, QObject *parent)
    : Source(parent)
    , m_client(url)
{
    m_client.setToken(std::move(token));
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &LiveRaySource::pollNow);
    connect(&m_client, &RayClient::captureReceived, this, [this](const Capture &capture) {
        if (m_failures > 0)
            qCDebug(lcRay).noquote() << QStringLiteral("%1: a poll succeeded again after %2 failed one(s); polling every %3 ms").arg(description()).arg(m_failures).arg(m_interval.count());
        m_failures = 0;
        releaseSlot();
        scheduleNext();
        emitWithActivity(capture);
    });
    connect(&m_client, &RayClient::pollFailed, this, [this](const QString &message) {
        ++m_failures;
        releaseSlot();
        scheduleNext();
        Q_EMIT failed(message);
    });
}

QString LiveRaySource::description() const
{
    return tr("Ray at %1").arg(m_client.displayUrl());
}

void LiveRaySource::setPrometheus(std::unique_ptr<PrometheusPoller> poller)
{
    m_prometheus = std::move(poller);
    if (!m_prometheus)
        return;
    connect(m_prometheus.get(), &PrometheusPoller::updated, this, [this] {
        if (m_held) {
            Capture held = std::move(*m_held);
            m_held.reset();
            emitWithActivity(std::move(held));
        }
    });
    if (m_running)
        m_prometheus->start();
}

void LiveRaySource::emitWithActivity(Capture capture)
{
    if (m_prometheus) {
        if (!m_prometheus->hasAnswered()) {
            m_held = std::move(capture);
            return;
        }
        m_prometheus->attachTo(capture);
    }
    Q_EMIT captureReceived(capture);
}

void LiveRaySource::start()
{
    m_running = true;
    if (m_prometheus)
        m_prometheus->start();
    m_failures = 0;
    m_timer.stop();
    if (!m_client.isPolling())
        pollNow();
}

void LiveRaySource::stop()
{
    m_running = false;
    if (m_prometheus)
        m_prometheus->stop();
    m_timer.stop();
    m_client.cancel();
    if (m_gate) m_gate->cancel(this);
    m_waitsForSlot = false;
    releaseSlot();
}

void LiveRaySource::releaseSlot()
{
    if (m_holdsSlot && m_gate) m_gate->release();
    m_holdsSlot = false;
}

void LiveRaySource::pollNow()
{
    if (!m_running || m_client.isPolling() || m_waitsForSlot)
        return;
    if (!m_gate) {
        m_sinceLastStart.start();
        m_client.poll();
        return;
    }
    m_waitsForSlot = true;
    m_gate->request(this, [this] {
        m_waitsForSlot = false;
        m_holdsSlot = true;
        if (!m_running || m_client.isPolling()) {
            releaseSlot();
            return;
        }
        m_sinceLastStart.start();
        m_client.poll();
    });
}

void LiveRaySource::scheduleNext()
{
    if (!m_running)
        return;
    // Keep the cadence from poll start to poll start; a slow poll only delays the next one.
    std::chrono::milliseconds wait = m_interval;
    if (m_failures > 0)
        wait = std::min<std::chrono::milliseconds>(kMaxBackoff, m_interval * (1 << std::min(m_failures - 1, 5)));
    const auto elapsed = std::chrono::milliseconds(m_sinceLastStart.isValid() ? m_sinceLastStart.elapsed() : 0);
    const auto next = std::max(std::chrono::milliseconds(0), wait - elapsed);
    if (m_failures > 0)
        qCDebug(lcRay).noquote() << QStringLiteral("%1: %2 poll(s) failed in a row; backing off: the next poll in %3 ms (polls at most %4 s apart)")
                                        .arg(description())
                                        .arg(m_failures)
                                        .arg(next.count())
                                        .arg(kMaxBackoff.count() / 1000);
    m_timer.start(next);
}

} // namespace slicescope
