// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What clicking a timeline event does to the workspace (the timeline has already moved the views
// to the event's moment): selects what changed there, the placement group in the tables, else the
// slice in the slice view and, for a host's event, that host.

#include "history.h"

namespace slicescope {

class Workspace;

// Returns empty when what the event names was shown (or it names nothing), else the name of what
// is not in the cluster at this moment (an event that removed it).
QString showEventSubject(Workspace &workspace, const HistoryEvent &event);

} // namespace slicescope
