// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What is known about the selected slice and host, in words: shape, status and why, who holds
// which chips, and where the host runs (Ray node, pod, Kubernetes node, node pool). Above the text,
// where to go next (model/externallinks.h): Copy (names and ids, whole), the Ray dashboard's page of
// the host, and the Cloud console's pages of its node pool, node and pod; one that cannot be made
// is greyed out and says why.

#include "look.h"
#include "snapshot.h"

#include <QUrl>
#include <QWidget>

class QTextBrowser;
class QToolButton;

namespace slicescope {

class DetailsPanel : public QWidget
{
    Q_OBJECT
public:
    explicit DetailsPanel(QWidget *parent = nullptr);

    // Shows a slice and, if workerId >= 0, one of its hosts. An unknown name shows a hint.
    void show(const SnapshotPtr &snapshot, const QString &sliceName, int workerId = -1);
    void setTheme(const Theme &theme);
    // The Ray dashboard of the source (LiveRaySource); empty: none, the link says so.
    void setRayDashboard(const QUrl &dashboard);
    QString plainText() const; // for tests

    QToolButton *copyButton() const { return m_copy; }
    QToolButton *rayButton() const { return m_ray; }
    QToolButton *consoleButton() const { return m_console; }

    // The HTML shown, built from the snapshot alone (pure, so it can be tested and reused).
    static QString html(const ClusterSnapshot &snapshot, const QString &sliceName, int workerId, const Theme &theme);

Q_SIGNALS:
    // A page to open in the browser (the window opens it), and what was done, for the status bar.
    void openRequested(const QUrl &url);
    void notice(const QString &text);

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void updateActions();
    void fitActions(); // names beside the icons when the row has room, icons alone (names in tooltips) when not

    QTextBrowser *m_text = nullptr;
    QToolButton *m_copy = nullptr;
    QToolButton *m_ray = nullptr;
    QToolButton *m_console = nullptr;
    QUrl m_dashboard;
    SnapshotPtr m_snapshot;
    QString m_slice;
    int m_worker = -1;
    Theme m_theme = Theme::light();
};

} // namespace slicescope
