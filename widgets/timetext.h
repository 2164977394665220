// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// How times read in the UI: UTC wall-clock text (on every machine, so screenshots and the status
// line agree) and "how long ago".

#include <QDateTime>
#include <QString>

namespace slicescope {

// `time` in UTC, formatted with QDateTime::toString(format).
QString utcText(const QDateTime &time, const QString &format);
// "4 min ago", "2 h 5 min ago", "12 s ago": how long before `reference` a time was.
QString agoText(const QDateTime &time, const QDateTime &reference);

} // namespace slicescope
