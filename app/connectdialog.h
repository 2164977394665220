// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// File > Connect (issue 16): the kubeconfig's contexts with checkboxes, a namespace or all of them.
// One context checked watches it alone; several watch them as a fleet. The dialog only collects the
// choice; the window makes the source (MainWindow::setKubeConnector) and remembers the choice.

#include <QDialog>
#include <QStringList>

class QCheckBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QListWidget;

namespace slicescope {

// What the operator chose: contexts (at least one), a namespace (empty: each context's own) or all.
struct ConnectChoice {
    QStringList contexts;
    QString ns;
    bool allNamespaces = false;
    friend bool operator==(const ConnectChoice &, const ConnectChoice &) = default;
};

class ConnectDialog : public QDialog
{
    Q_OBJECT
public:
    static constexpr int kMaxContexts = 64; // as --all-contexts

    explicit ConnectDialog(QWidget *parent = nullptr);

    // The kubeconfig's contexts (in file order), its current one and the files read. `problem`, when
    // the kubeconfig could not be read, is shown instead of the list.
    void setKubeconfig(const QStringList &contexts, const QString &current, const QStringList &files, const QString &problem = {});
    // Checks these contexts (those still listed) and fills the namespace; with no context of
    // `choice` listed, the current context is checked.
    void setChoice(const ConnectChoice &choice);
    ConnectChoice choice() const;

private:
    void updateState();

    QLabel *m_files = nullptr;
    QListWidget *m_list = nullptr;
    QLineEdit *m_ns = nullptr;
    QCheckBox *m_allNamespaces = nullptr;
    QLabel *m_status = nullptr;
    QDialogButtonBox *m_buttons = nullptr;
    QString m_current;
};

} // namespace slicescope
