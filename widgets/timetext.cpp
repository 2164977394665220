// SPDX-License-Identifier: GPL-3.0-or-later
#include "timetext.h"

#include <QCoreApplication>

#include <algorithm>

namespace slicescope {

QString utcText(const QDateTime &time, const QString &format)
{
    return time.toUTC().toString(format);
}

QString agoText(const QDateTime &time, const QDateTime &reference)
{
    const qint64 s = std::max<qint64>(0, time.secsTo(reference));
    if (s < 60)
        return QObject::tr("%1 s ago").arg(s);
    if (s < 3600)
        return QObject::tr("%1 min ago").arg(s / 60);
    if (s < 86400)
        return s % 3600 >= 60 ? QObject::tr("%1 h %2 min ago").arg(s / 3600).arg(s % 3600 / 60) : QObject::tr("%1 h ago").arg(s / 3600);
    return QObject::tr("%1 d %2 h ago").arg(s / 86400).arg(s % 86400 / 3600);
}

} // namespace slicescope
