// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Which JobLogSource the "Job log" dock gets for the window's source: a live Ray's log tail (JobLogTail), or
// none with the sentence the dock shows instead (Kubernetes, the relay, the demo, a recording).

#include "joblogsource.h"

#include <memory>

namespace slicescope {

class Source;

// Null, with `reason` saying why, when `source` (which may be null) has no job logs to follow.
// The result uses the source's client: destroy it before the source.
std::unique_ptr<JobLogSource> makeJobLogSource(Source *source, QString *reason);

} // namespace slicescope
