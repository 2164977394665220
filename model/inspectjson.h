// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The `inspect --json` and `plan --json` documents (ARCHITECTURE.md contracts). Other tools parse
// these: keys are only ever added, never renamed or removed.

#include "alerts.h"
#include "planner.h"
#include "snapshot.h"

#include <QJsonArray>
#include <QJsonObject>

namespace slicescope {

// The snapshot with its `alerts`: those of a fresh AlertEngine (default thresholds) shown this one
// snapshot, so only the rules that need no history can fire.
QJsonObject inspectJson(const ClusterSnapshot &snapshot);
// The snapshot with the given alerts (an engine that saw the snapshots before it).
QJsonObject inspectJson(const ClusterSnapshot &snapshot, const QList<Alert> &alerts);
// {kind, severity, subject, subjectKind, since, text, slice, placementGroup, count, rollup, id}
QJsonObject alertJson(const Alert &alert);
QJsonArray alertsJson(const QList<Alert> &alerts);
QJsonObject planJson(const PlanResult &plan);

} // namespace slicescope
