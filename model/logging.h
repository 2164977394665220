// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The debug log's categories: one per peer SliceScope retries, backs off from, relists or
// reconnects to, plus the history. Off by default (their threshold is info); on with
// SLICESCOPE_DEBUG=1 (every category, with timestamps) or QT_LOGGING_RULES, e.g.
// "slicescope.kube.debug=true". A line says what happened, what is done about it and when
// (the delay, the attempt, the resourceVersion): never a token, a header or a request body.

#include <QLoggingCategory>

namespace slicescope {

Q_DECLARE_LOGGING_CATEGORY(lcRay)     // slicescope.ray: the dashboard's state and jobs APIs, polls, log tails
Q_DECLARE_LOGGING_CATEGORY(lcKube)    // slicescope.kube: lists, watches, credentials, scaling
Q_DECLARE_LOGGING_CATEGORY(lcRelay)   // slicescope.relay: the relay server and its clients
Q_DECLARE_LOGGING_CATEGORY(lcHistory) // slicescope.history: recording, eviction, the capture spool

namespace logging {
// SLICESCOPE_DEBUG=1: turns every slicescope.* debug category on and, unless QT_MESSAGE_PATTERN
// says otherwise, prefixes each line with the time and its category. Call before the first line.
void applyEnvironment();
} // namespace logging

} // namespace slicescope
