// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// At most N polls in flight among the pollers that share a gate (issue 16: one Ray poller per
// RayCluster, all through one API server's service proxy, so 50 clusters do not send 250 requests
// at once). A poller asks for a slot; it starts at once when one is free, else in its turn, first
// come first served, when another poller releases its slot. Single-threaded (the event loop's).

#include <QObject>
#include <QPointer>

#include <deque>
#include <functional>

namespace slicescope {

class PollGate
{
public:
    explicit PollGate(int limit)
        : m_limit(limit < 1 ? 1 : limit)
    {
    }

    // Calls `start` now (a slot taken) or later, in turn. A poller has at most one request waiting;
    // one that is deleted before its turn is skipped.
    void request(QObject *poller, std::function<void()> start)
    {
        cancel(poller);
        if (m_inFlight < m_limit) {
            take();
            start();
            return;
        }
        m_waiting.push_back({QPointer<QObject>(poller), poller, std::move(start)});
    }
    // Gives the slot back; the next poller waiting gets it.
    void release()
    {
        if (m_inFlight > 0) --m_inFlight;
        while (m_inFlight < m_limit && !m_waiting.empty()) {
            Waiting next = std::move(m_waiting.front());
            m_waiting.pop_front();
            if (!next.alive) continue;
            take();
            next.start();
        }
    }
    // Forgets a poller's waiting request (it stopped).
    void cancel(QObject *poller)
    {
        for (auto it = m_waiting.begin(); it != m_waiting.end();)
            it = it->key == poller ? m_waiting.erase(it) : it + 1;
    }

    int limit() const { return m_limit; }
    int inFlight() const { return m_inFlight; }
    int waiting() const { return int(m_waiting.size()); }
    int mostInFlight() const { return m_most; }

private:
    void take()
    {
        ++m_inFlight;
        if (m_inFlight > m_most) m_most = m_inFlight;
    }
    struct Waiting {
        QPointer<QObject> alive;
        const QObject *key;
        std::function<void()> start;
    };
    int m_limit;
    int m_inFlight = 0;
    int m_most = 0;
    std::deque<Waiting> m_waiting;
};

} // namespace slicescope
