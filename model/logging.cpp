// SPDX-License-Identifier: GPL-3.0-or-later
#include "logging.h"

namespace slicescope {

Q_LOGGING_CATEGORY(lcRay, "slicescope.ray", QtInfoMsg)
Q_LOGGING_CATEGORY(lcKube, "slicescope.kube", QtInfoMsg)
Q_LOGGING_CATEGORY(lcRelay, "slicescope.relay", QtInfoMsg)
Q_LOGGING_CATEGORY(lcHistory, "slicescope.history", QtInfoMsg)

void logging::applyEnvironment()
{
    if (qEnvironmentVariableIsEmpty("SLICESCOPE_DEBUG") || qgetenv("SLICESCOPE_DEBUG") == "0")
        return;
    // QT_LOGGING_RULES, when set, still has the last word (Qt applies it after these rules).
    QLoggingCategory::setFilterRules(QStringLiteral("slicescope.*.debug=true"));
    if (qEnvironmentVariableIsEmpty("QT_MESSAGE_PATTERN"))
        qSetMessagePattern(QStringLiteral("%{time hh:mm:ss.zzz} %{if-category}%{category}: %{endif}%{message}"));
}

} // namespace slicescope
