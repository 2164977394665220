// SPDX-License-Identifier: GPL-3.0-or-later
#include "kubecontextmenu.h"

#include "source.h"

#include <QActionGroup>

namespace slicescope {

KubeContextMenu::KubeContextMenu(const QString &title, QWidget *parent)
    : QMenu(title, parent)
{
    setObjectName(QStringLiteral("kubeContextMenu"));
    setEnabled(false);
    setToolTip(tr("Start with --kubeconfig to switch between its contexts"));
}

void KubeContextMenu::reset()
{
    clear();
    m_inUse.clear();
    m_contexts.clear();
    m_makeSource = nullptr;
    setEnabled(false);
}

bool KubeContextMenu::setContexts(const QStringList &contexts, const QString &current, MakeSource makeSource)
{
    // Called again when the kubeconfig is read anew: the context in use stays in use, whatever
    // the file now calls current. One that vanished from the file is not swapped for another; it
    // stays listed, marked, until the operator chooses one.
    const bool refresh = m_makeSource && !m_inUse.isEmpty();
    const QString inUse = refresh ? m_inUse : current;
    clear();
    m_makeSource = std::move(makeSource);
    m_contexts = contexts;
    auto *group = new QActionGroup(this);
    auto addContext = [&](const QString &name, const QString &text) {
        QAction *a = addAction(text);
        a->setData(name);
        a->setCheckable(true);
        a->setChecked(name == inUse);
        group->addAction(a);
        return a;
    };
    for (const QString &name : contexts) {
        QAction *a = addContext(name, name);
        connect(a, &QAction::triggered, this, [this, name] { Q_EMIT contextTriggered(name); });
    }
    const bool vanished = !inUse.isEmpty() && !contexts.contains(inUse);
    if (vanished)
        addContext(inUse, tr("%1 (in use; no longer in the kubeconfig)").arg(inUse))->setEnabled(false);
    setEnabled(!contexts.isEmpty() && m_makeSource);
    m_inUse = inUse;
    return vanished && refresh;
}

std::unique_ptr<Source> KubeContextMenu::switchTo(const QString &context, QString *error)
{
    if (!m_makeSource || context == m_inUse)
        return nullptr;
    if (!m_contexts.contains(context)) {
        // Asked for by name, and that name is gone: refused, never replaced by a neighbour.
        *error = tr("context %1 is no longer in the kubeconfig; still on %2").arg(context, m_inUse);
        checkInUse();
        return nullptr;
    }
    QString why;
    std::unique_ptr<Source> source = m_makeSource(context, &why);
    if (!source) {
        *error = tr("context %1: %2").arg(context, why);
        checkInUse();
        return nullptr;
    }
    m_inUse = context;
    return source;
}

void KubeContextMenu::checkInUse()
{
    // The check mark stays on the context still in use.
    for (QAction *a : actions())
        a->setChecked(a->data().toString() == m_inUse);
}

} // namespace slicescope
