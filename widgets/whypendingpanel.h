// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The "Why pending" panel: pick a PENDING placement group, read Ray's scheduling state, the
// planner's explanation for its shape and the autoscaler's status together (the words are
// explainPendingGroup()'s, model/whypending.h).

#include "snapshot.h"

#include <QWidget>

class QComboBox;
class QPlainTextEdit;

namespace slicescope {

class WhyPendingPanel : public QWidget
{
    Q_OBJECT
public:
    explicit WhyPendingPanel(QWidget *parent = nullptr);
    void setSnapshot(const SnapshotPtr &snapshot);
    // Shows this group (by name or id); false when it is not PENDING or unknown.
    bool showGroup(const QString &nameOrId);
    QString text() const;

private:
    void refresh();

    SnapshotPtr m_snapshot;
    QComboBox *m_group = nullptr;
    QPlainTextEdit *m_text = nullptr;
};

} // namespace slicescope
