// SPDX-License-Identifier: GPL-3.0-or-later
// FleetFilter and fleetSearchText(): the fleet overview's text and status filter.
#include "fleetfilter.h"

#include <QRegularExpression>

#include <algorithm>

namespace slicescope {

void FleetFilter::setText(const QString &text)
{
    m_text = text;
    m_terms = text.toLower().split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts);
}

void FleetFilter::setStatuses(const QList<SliceStatus> &shown)
{
    m_statuses = shown;
}

bool FleetFilter::matches(SliceStatus status, const QString &searchText) const
{
    if (!m_statuses.isEmpty() && !m_statuses.contains(status))
        return false;
    return std::all_of(m_terms.cbegin(), m_terms.cend(),
                       [&](const QString &term) { return searchText.contains(term); });
}

QList<int> FleetFilter::shownEntries(const FleetGrouping &fleet) const
{
    QList<int> shown;
    for (const FleetGroup &g : fleet.groups)
        for (int i : g.entries)
            if (matches(fleet.entries[i]))
                shown << i;
    return shown;
}

QString fleetSearchText(const Slice &s, const QStringList &holderNames)
{
    const QString genName = fleetGenerationName(s), topo = fleetTopologyText(s);
    QStringList words{s.name, genName, topo, genName + u' ' + topo, s.podType, fleetWorkerGroupText(s),
                      toText(s.status()), toText(sliceUse(s))};
    if (s.generation)
        words << s.generation->displayName;
    words << holderNames << s.problems;
    if (!s.context.isEmpty()) words << s.context; // the search box matches context and cluster names (issue 16)
    if (!s.rayCluster.isEmpty()) words << s.rayCluster;
    return words.join(u'\n').toLower();
}

} // namespace slicescope
