// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The `inspect --json` and `plan --json` documents (ARCHITECTURE.md contracts). Other tools parse
// these: keys are only ever added, never renamed or removed.

#include "planner.h"
#include "snapshot.h"

#include <QJsonObject>

namespace slicescope {

QJsonObject inspectJson(const ClusterSnapshot &snapshot);
QJsonObject planJson(const PlanResult &plan);

} // namespace slicescope
