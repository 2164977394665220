// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the demo cluster's simulation (democluster.cpp) and its API bodies
// (democlusterbodies.cpp) share. Not installed.

#include <QString>

namespace slicescope::demo {

inline constexpr auto kNamespace = "ml";
inline constexpr auto kClusterName = "tpu-team";

inline QString s(const char *text) { return QString::fromLatin1(text); }

} // namespace slicescope::demo
