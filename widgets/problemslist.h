// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "alerts.h"

// The window's "Problems" list: what the snapshot says is wrong (each slice's problems, the
// snapshot's warnings), the history spool's failure, and the source's errors, newest on top.

#include "snapshot.h"

#include <QListWidget>

namespace slicescope {

class ProblemsList : public QListWidget
{
    Q_OBJECT
public:
    // Named "problems".
    explicit ProblemsList(QWidget *parent = nullptr);

    // Replaces the rows with `snapshot`'s problems, the spool's error (if any) on top, and the
    // active alerts (model/alerts.h) first, most severe first, as "Critical · reserved-idle: text".
    void showSnapshot(const ClusterSnapshot &snapshot, const QString &spoolError, const QList<Alert> &alerts = {});
    // The slice an alert row names (clicking it selects that slice); empty for other rows.
    static QString sliceOfRow(const QListWidgetItem *item);
    // Puts the spool's error on top, keeping the other rows.
    void addSpoolError(const QString &error);
    // Puts "Error: message" on top. A source fails again at every retry through a long outage:
    // each distinct error keeps one row, and only the newest few are kept (the next snapshot
    // shown clears them).
    void addSourceError(const QString &message);
};

} // namespace slicescope
