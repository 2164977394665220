// SPDX-License-Identifier: GPL-3.0-or-later
// ConnectDialog: the kubeconfig's contexts as a checklist, a namespace, and Connect.
#include "connectdialog.h"

#include "kubenames.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace slicescope {

ConnectDialog::ConnectDialog(QWidget *parent)
    : QDialog(parent)
{
    setWindowTitle(tr("Connect to Kubernetes"));
    setObjectName(QStringLiteral("connectDialog"));
    auto *layout = new QVBoxLayout(this);
    m_files = new QLabel(this);
    m_files->setObjectName(QStringLiteral("kubeconfigFiles"));
    m_files->setWordWrap(true);
    m_files->setTextFormat(Qt::PlainText);
    layout->addWidget(m_files);

    layout->addWidget(new QLabel(tr("Contexts to watch (several: one window for the whole fleet):"), this));
    m_list = new QListWidget(this);
    m_list->setObjectName(QStringLiteral("contexts"));
    m_list->setMinimumHeight(fontMetrics().height() * 8);
    layout->addWidget(m_list, 1);
    auto *bulk = new QHBoxLayout;
    auto *all = new QPushButton(tr("Check &all"), this);
    all->setObjectName(QStringLiteral("checkAll"));
    auto *none = new QPushButton(tr("Check &none"), this);
    none->setObjectName(QStringLiteral("checkNone"));
    bulk->addWidget(all);
    bulk->addWidget(none);
    bulk->addStretch(1);
    layout->addLayout(bulk);

    auto *form = new QFormLayout;
    m_ns = new QLineEdit(this);
    m_ns->setObjectName(QStringLiteral("namespace"));
    m_ns->setPlaceholderText(tr("each context's own namespace"));
    m_ns->setMaxLength(63); // a DNS label: what a namespace is
    form->addRow(tr("&Namespace"), m_ns);
    m_allNamespaces = new QCheckBox(tr("&All namespaces"), this);
    m_allNamespaces->setObjectName(QStringLiteral("allNamespaces"));
    form->addRow(QString(), m_allNamespaces);
    layout->addLayout(form);

    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("connectStatus"));
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::PlainText);
    layout->addWidget(m_status);

    m_buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    QPushButton *connectButton = m_buttons->addButton(tr("&Connect"), QDialogButtonBox::AcceptRole);
    connectButton->setObjectName(QStringLiteral("connect"));
    connectButton->setDefault(true);
    layout->addWidget(m_buttons);

    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_list, &QListWidget::itemChanged, this, &ConnectDialog::updateState);
    connect(m_allNamespaces, &QCheckBox::toggled, this, &ConnectDialog::updateState);
    connect(m_ns, &QLineEdit::textChanged, this, &ConnectDialog::updateState);
    auto checkAll = [this](Qt::CheckState state) {
        for (int i = 0; i < m_list->count(); ++i)
            m_list->item(i)->setCheckState(state);
    };
    connect(all, &QPushButton::clicked, this, [checkAll] { checkAll(Qt::Checked); });
    connect(none, &QPushButton::clicked, this, [checkAll] { checkAll(Qt::Unchecked); });
    resize(fontMetrics().averageCharWidth() * 64, sizeHint().height());
    updateState();
}

void ConnectDialog::setKubeconfig(const QStringList &contexts, const QString &current, const QStringList &files, const QString &problem)
{
    m_current = current;
    m_files->setText(files.isEmpty() ? tr("Kubeconfig: none found") : tr("Kubeconfig: %1").arg(files.join(QStringLiteral(", "))));
    const QSignalBlocker blocker(m_list);
    m_list->clear();
    for (const QString &name : contexts) {
        auto *item = new QListWidgetItem(name == current ? tr("%1  (current)").arg(name) : name, m_list);
        item->setData(Qt::UserRole, name);
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Unchecked);
    }
    m_list->setEnabled(!contexts.isEmpty());
    if (!problem.isEmpty())
        m_status->setText(problem);
    updateState();
    if (!problem.isEmpty())
        m_status->setText(problem); // the reason stays in view over "check a context"
}

void ConnectDialog::setChoice(const ConnectChoice &choice)
{
    bool any = false;
    {
        const QSignalBlocker blocker(m_list);
        for (int i = 0; i < m_list->count(); ++i) {
            QListWidgetItem *item = m_list->item(i);
            const bool on = choice.contexts.contains(item->data(Qt::UserRole).toString());
            item->setCheckState(on ? Qt::Checked : Qt::Unchecked);
            any = any || on;
        }
        if (!any)
            for (int i = 0; i < m_list->count(); ++i)
                if (m_list->item(i)->data(Qt::UserRole).toString() == m_current)
                    m_list->item(i)->setCheckState(Qt::Checked);
    }
    m_ns->setText(choice.ns);
    m_allNamespaces->setChecked(choice.allNamespaces);
    updateState();
}

ConnectChoice ConnectDialog::choice() const
{
    ConnectChoice c;
    for (int i = 0; i < m_list->count(); ++i)
        if (m_list->item(i)->checkState() == Qt::Checked)
            c.contexts << m_list->item(i)->data(Qt::UserRole).toString();
    c.ns = m_ns->text().trimmed();
    c.allNamespaces = m_allNamespaces->isChecked();
    return c;
}

void ConnectDialog::updateState()
{
    const ConnectChoice c = choice();
    m_ns->setEnabled(!c.allNamespaces);
    QString status;
    if (m_list->count() == 0)
        status = tr("The kubeconfig names no context.");
    else if (c.contexts.isEmpty())
        status = tr("Check at least one context.");
    else if (c.contexts.size() > kMaxContexts)
        status = tr("%1 contexts checked: at most %2 are watched at once.").arg(c.contexts.size()).arg(kMaxContexts);
    else if (const QString rule = c.allNamespaces || c.ns.isEmpty() ? QString() : dns1123LabelProblem(c.ns); !rule.isEmpty())
        status = tr("Namespace \"%1\" %2.").arg(c.ns, rule); // it goes into every request's path
    else if (c.contexts.size() == 1)
        status = tr("Watches %1.").arg(c.contexts.first());
    else
        status = tr("Watches %1 contexts as one fleet.").arg(c.contexts.size());
    m_status->setText(status);
    if (QPushButton *b = findChild<QPushButton *>(QStringLiteral("connect")))
        b->setEnabled(!c.contexts.isEmpty() && c.contexts.size() <= kMaxContexts
                      && (c.allNamespaces || c.ns.isEmpty() || dns1123LabelProblem(c.ns).isEmpty()));
}

} // namespace slicescope
