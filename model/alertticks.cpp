// SPDX-License-Identifier: GPL-3.0-or-later
#include "alertticks.h"

#include <algorithm>

namespace slicescope {

AlertTickLog::AlertTickLog(int maxTicks)
    : m_maxTicks(std::max(1, maxTicks))
{ }

int AlertTickLog::record(const QList<Alert> &active, qint64 serial, const QDateTime &time)
{
    QSet<QString> now;
    now.reserve(active.size());
    int added = 0;
    for (const Alert &a : active) {
        if (a.rollup)
            continue;
        now.insert(a.id);
        if (m_active.contains(a.id))
            continue;
        m_ticks.push_back(AlertTick{serial, time.toMSecsSinceEpoch(), a.kind, a.severity, a.subjectKind, a.subject, a.text, a.selectSlice, a.selectPlacementGroup,
                                    a.id, a.since});
        ++added;
    }
    m_active = std::move(now); // a cleared alert that fires again begins again
    while (int(m_ticks.size()) > m_maxTicks)
        m_ticks.pop_front();
    return added;
}

int AlertTickLog::dropBefore(qint64 serial)
{
    const auto keep = std::find_if(m_ticks.begin(), m_ticks.end(), [serial](const AlertTick &t) { return t.serial >= serial; });
    const int dropped = int(keep - m_ticks.begin());
    m_ticks.erase(m_ticks.begin(), keep);
    return dropped;
}

void AlertTickLog::clear()
{
    m_ticks.clear();
    m_active.clear();
}

} // namespace slicescope
