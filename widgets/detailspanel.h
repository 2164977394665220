// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What is known about the selected slice and host, in words: shape, status and why, who holds
// which chips, and where the host runs (Ray node, pod, Kubernetes node, node pool).

#include "look.h"
#include "snapshot.h"

#include <QWidget>

class QTextBrowser;

namespace slicescope {

class DetailsPanel : public QWidget
{
    Q_OBJECT
public:
    explicit DetailsPanel(QWidget *parent = nullptr);

    // Shows a slice and, if workerId >= 0, one of its hosts. An unknown name shows a hint.
    void show(const SnapshotPtr &snapshot, const QString &sliceName, int workerId = -1);
    void setTheme(const Theme &theme);
    QString plainText() const; // for tests

    // The HTML shown, built from the snapshot alone (pure, so it can be tested and reused).
    static QString html(const ClusterSnapshot &snapshot, const QString &sliceName, int workerId, const Theme &theme);

private:
    QTextBrowser *m_text = nullptr;
    SnapshotPtr m_snapshot;
    QString m_slice;
    int m_worker = -1;
    Theme m_theme = Theme::light();
};

} // namespace slicescope
