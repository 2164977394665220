// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What clicking a timeline event or alert tick does to the workspace (the timeline has already
// moved the views to its moment): selects what it names there, the placement group in the
// tables, else the slice in the slice view and, for a host's event or alert, that host.

#include "alertticks.h"
#include "history.h"

namespace slicescope {

class Workspace;

// Returns empty when what the event names was shown (or it names nothing), else the name of what
// is not in the cluster at this moment (an event that removed it).
QString showEventSubject(Workspace &workspace, const HistoryEvent &event);
// The same for an alert tick: a placement group's alert selects the group (its slice shown
// first), any other its slice, and a host's alert that host too.
QString showAlertSubject(Workspace &workspace, const AlertTick &tick);

} // namespace slicescope
