// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The fleet overview's filter, without a widget: which slices a text filter and a status filter
// let through. The rules (widgets/fleetoverview.h states them to the user):
//  - a slice is shown when it passes both filters;
//  - text: split at whitespace into words; every word must occur, case-insensitively, as a
//    substring of one of the slice's search words (fleetSearchText): its name, generation,
//    topology, shape ("v6e 4x4"), pod type, worker group, status or use word ("partly used"),
//    the generation's display name ("trillium"), the names of the placement groups holding it,
//    or its problems ("dead"). Blank text lets everything through. There is no quoting and no
//    field syntax: quotes and colons are characters like any other;
//  - status: the slice's SliceStatus must be one of those listed; an empty list lets all through.

#include "fleetgrouping.h"
#include "snapshot.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace slicescope {

class FleetFilter
{
public:
    void setText(const QString &text);
    QString text() const { return m_text; }
    QStringList terms() const { return m_terms; } // lower case, no empty ones
    void setStatuses(const QList<SliceStatus> &shown); // empty: all
    QList<SliceStatus> statuses() const { return m_statuses; }

    // `searchText` as fleetSearchText() makes it.
    bool matches(SliceStatus status, const QString &searchText) const;
    bool matches(const FleetEntry &entry) const { return matches(entry.status, entry.haystack); }
    // The entries that pass, group by group in display order.
    QList<int> shownEntries(const FleetGrouping &fleet) const;

private:
    QString m_text;
    QStringList m_terms;
    QList<SliceStatus> m_statuses;
};

// A slice's search words, lower case, one a line (so no filter word, which holds no whitespace,
// spans two of them). `holderNames`: the placement groups holding it, as its tile names them.
QString fleetSearchText(const Slice &slice, const QStringList &holderNames);

} // namespace slicescope
