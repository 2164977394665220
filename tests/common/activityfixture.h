// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the chip-activity tests share: a chip by (slice name, worker id, chip), and a node summary
// with every node's `tpus` emptied (ports kept), so what is left to join comes from Prometheus.

#include "activity.h"
#include "snapshot.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace slicescope::testing {

inline const ChipActivity *chipAt(const ClusterSnapshot &s, const QString &slice, int worker, int chip)
{
    const int si = s.sliceIndex(slice);
    if (si < 0 || !s.activity) return nullptr;
    const QList<Host> &hosts = s.slices[si].hosts;
    for (int h = 0; h < hosts.size(); ++h)
        if (hosts[h].workerId == worker) return s.activity->chip(si, h, chip);
    return nullptr;
}

inline QByteArray withoutSummaryTpus(const QByteArray &summary)
{
    QJsonObject root = QJsonDocument::fromJson(summary).object();
    QJsonObject data = root.value(QLatin1String("data")).toObject();
    QJsonArray list = data.value(QLatin1String("summary")).toArray();
    for (qsizetype i = 0; i < list.size(); ++i) {
        QJsonObject e = list[i].toObject();
        e.insert(QStringLiteral("tpus"), QJsonArray());
        list[i] = e;
    }
    data.insert(QStringLiteral("summary"), list);
    root.insert(QStringLiteral("data"), data);
    return QJsonDocument(root).toJson(QJsonDocument::Compact);
}

} // namespace slicescope::testing
