// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The live Ray source: polls the dashboard through RayClient on an interval and emits each
// complete poll as a Capture, the same object a capture file or the demo produces.

#include "prometheuspoller.h"
#include "rayclient.h"
#include "pollgate.h"
#include "source.h"

#include <QElapsedTimer>
#include <QTimer>

#include <chrono>
#include <memory>
#include <optional>

namespace slicescope {

class LiveRaySource : public Source
{
    Q_OBJECT
public:
    LiveRaySource(const QUrl &url, RayToken token, QObject *parent = nullptr);

    QString description() const override; // "Ray at http://127.0.0.1:8265"
    QUrl rayDashboardUrl() const override { return m_client.baseUrl(); }
    // Polls at once, then every interval(). A poll still in flight when the next is due is not
    // doubled: the next one starts when it ends.
    void start() override;
    void stop();
    bool isRunning() const { return m_running; }

    // Time between the starts of two polls (default 2 s). After failures the source waits longer,
    // doubling up to 30 s, so a dead dashboard is not hammered; the first success resets it.
    void setInterval(std::chrono::milliseconds interval) { m_interval = interval; }
    std::chrono::milliseconds interval() const { return m_interval; }
    int consecutiveFailures() const { return m_failures; }

    RayClient *client() { return &m_client; }
    // Polls only with a slot of `gate` (shared by the pollers of one API server; null: no limit).
    void setPollGate(std::shared_ptr<PollGate> gate) { m_gate = std::move(gate); }
    // Chip activity from Prometheus (--prometheus): every capture carries its newest answers; the
    // first capture waits for its first round (answered or failed), so a verb sees both at once.
    void setPrometheus(std::unique_ptr<PrometheusPoller> poller);
    PrometheusPoller *prometheus() const { return m_prometheus.get(); }

private:
    void emitWithActivity(Capture capture);

    void pollNow();
    void scheduleNext();

    RayClient m_client;
    QTimer m_timer;
    QElapsedTimer m_sinceLastStart;
    std::chrono::milliseconds m_interval{2000};
    int m_failures = 0;
    bool m_running = false;
    std::unique_ptr<PrometheusPoller> m_prometheus;
    std::optional<Capture> m_held; // a capture waiting for Prometheus's first round
    std::shared_ptr<PollGate> m_gate;
    bool m_holdsSlot = false;      // a poll of ours holds a slot of m_gate
    bool m_waitsForSlot = false;
    void releaseSlot();
};

} // namespace slicescope
