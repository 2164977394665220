// SPDX-License-Identifier: GPL-3.0-or-later
// MainWindow and Kubernetes: Cluster > Kubernetes context (switch the one context watched) and
// File > Connect (issue 16: the contexts to watch, one or a fleet). Both replace the source; the
// rest of the window is in mainwindow.cpp.
#include "mainwindow.h"

#include "kubecontextmenu.h"
#include "source.h"
#include "workspace.h"

#include <QSettings>
#include <QStatusBar>

namespace slicescope {

void MainWindow::setKubeContexts(const QStringList &contexts, const QString &current,
                                 std::function<std::unique_ptr<Source>(const QString &context, QString *error)> makeSource)
{
    if (m_contextMenu->setContexts(contexts, current, std::move(makeSource)))
        statusBar()->showMessage(tr("Kubernetes context %1 is no longer in the kubeconfig; still showing it until you choose another")
                                     .arg(m_contextMenu->inUse()),
                                 10000);
}

void MainWindow::switchKubeContext(const QString &context)
{
    QString error;
    std::unique_ptr<Source> source = m_contextMenu->switchTo(context, &error);
    if (!source) {
        if (!error.isEmpty())
            onSourceFailed(error);
        return;
    }
    // The view belongs to the old cluster: do not show it under the new name.
    m_snapshot.reset();
    m_workspace->setSnapshot(std::make_shared<const ClusterSnapshot>());
    setSource(std::move(source));
}

void MainWindow::setKubeConnector(KubeConnector connector)
{
    m_connector = std::move(connector);
    m_connectAction->setVisible(bool(m_connector.list) && bool(m_connector.connect));
}

void MainWindow::openConnectDialog()
{
    if (!m_connector.list || !m_connector.connect)
        return;
    if (!m_connectDialog) {
        m_connectDialog = new ConnectDialog(this);
        connect(m_connectDialog, &QDialog::accepted, this, [this] { connectTo(m_connectDialog->choice()); });
    }
    QStringList contexts, files;
    QString current;
    const QString problem = m_connector.list(&contexts, &current, &files);
    m_connectDialog->setKubeconfig(contexts, current, files, problem);
    ConnectChoice remembered;
    if (m_mode == Mode::Interactive) {
        QSettings settings;
        remembered.contexts = settings.value(QStringLiteral("connect/contexts")).toStringList().mid(0, ConnectDialog::kMaxContexts);
        remembered.ns = settings.value(QStringLiteral("connect/namespace")).toString().left(63);
        remembered.allNamespaces = settings.value(QStringLiteral("connect/allNamespaces"), false).toBool();
    }
    m_connectDialog->setChoice(remembered);
    m_connectDialog->open();
    m_connectDialog->raise();
}

bool MainWindow::connectTo(const ConnectChoice &choice)
{
    if (!m_connector.connect || choice.contexts.isEmpty())
        return false;
    QString error;
    std::unique_ptr<Source> source = m_connector.connect(choice, &error);
    if (!source) {
        onSourceFailed(error.isEmpty() ? tr("could not connect") : error);
        return false;
    }
    if (m_mode == Mode::Interactive) {
        QSettings settings;
        settings.setValue(QStringLiteral("connect/contexts"), choice.contexts);
        settings.setValue(QStringLiteral("connect/namespace"), choice.ns);
        settings.setValue(QStringLiteral("connect/allNamespaces"), choice.allNamespaces);
    }
    // The view belongs to the old source: do not show it under the new name.
    m_snapshot.reset();
    m_workspace->setSnapshot(std::make_shared<const ClusterSnapshot>());
    setSource(std::move(source));
    // One context: the context menu switches among the others from there; a fleet has no one
    // context in use to switch from.
    m_contextMenu->reset();
    QStringList contexts, files;
    QString current;
    if (choice.contexts.size() == 1 && m_connector.makeOne && m_connector.list(&contexts, &current, &files).isEmpty())
        setKubeContexts(contexts, choice.contexts.first(), m_connector.makeOne);
    return true;
}

QString MainWindow::kubeContext() const
{
    return m_contextMenu->inUse();
}

} // namespace slicescope
