// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Cluster > Kubernetes context: the kubeconfig's contexts with a check mark on the one in use,
// and the factory that makes a source for another. The context in use stays in use whatever a
// re-read kubeconfig calls current; one gone from the file stays listed, marked, and is never
// swapped for a neighbour.

#include <QMenu>
#include <QStringList>

#include <functional>
#include <memory>

namespace slicescope {

class Source;

class KubeContextMenu : public QMenu
{
    Q_OBJECT
public:
    using MakeSource = std::function<std::unique_ptr<Source>(const QString &context, QString *error)>;

    // Named "kubeContextMenu"; disabled until it has contexts and a factory.
    KubeContextMenu(const QString &title, QWidget *parent);

    // Lists `contexts`; the first time, `current` is the one in use. Returns true when, on a
    // re-read, the context in use is no longer among `contexts`.
    bool setContexts(const QStringList &contexts, const QString &current, MakeSource makeSource);
    QString inUse() const { return m_inUse; }
    // Forgets the contexts and the one in use (another source replaced it: File > Connect); the
    // next setContexts() starts afresh. Disabled until then.
    void reset();
    // A source for `context`, which is then the one in use. Null when there is nothing to do
    // (no factory, already in use), or, with *error, when refused (no longer listed) or the
    // factory failed: the context in use stays, checked.
    std::unique_ptr<Source> switchTo(const QString &context, QString *error);

Q_SIGNALS:
    // A context's entry was triggered.
    void contextTriggered(const QString &context);

private:
    void checkInUse();

    QString m_inUse;        // in use
    QStringList m_contexts; // as the kubeconfig last listed them
    MakeSource m_makeSource;
};

} // namespace slicescope
