// SPDX-License-Identifier: GPL-3.0-or-later
#include "whypendingpanel.h"

#include "whypending.h"

#include <QComboBox>
#include <QPlainTextEdit>
#include <QVBoxLayout>

#include <algorithm>

namespace slicescope {

WhyPendingPanel::WhyPendingPanel(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("whyPending"));
    auto *layout = new QVBoxLayout(this);
    m_group = new QComboBox(this);
    m_text = new QPlainTextEdit(this);
    m_text->setReadOnly(true);
    layout->addWidget(m_group);
    layout->addWidget(m_text, 1);
    connect(m_group, &QComboBox::currentIndexChanged, this, &WhyPendingPanel::refresh);
}

void WhyPendingPanel::setSnapshot(const SnapshotPtr &snapshot)
{
    m_snapshot = snapshot;
    const QString keep = m_group->currentData().toString();
    {
        const QSignalBlocker blocker(m_group);
        m_group->clear();
        if (m_snapshot)
            for (const PlacementGroup &g : m_snapshot->placementGroups)
                if (g.state == QLatin1String("PENDING"))
                    m_group->addItem(tr("%1 (%2)").arg(m_snapshot->groupLabel(g), g.schedulingState), g.id);
        m_group->setCurrentIndex(std::max(0, m_group->findData(keep)));
    }
    refresh();
}

bool WhyPendingPanel::showGroup(const QString &nameOrId)
{
    if (!m_snapshot)
        return false;
    const int g = m_snapshot->placementGroupIndex(nameOrId);
    const int row = g >= 0 ? m_group->findData(m_snapshot->placementGroups[g].id) : -1;
    if (row < 0)
        return false;
    m_group->setCurrentIndex(row);
    refresh();
    return true;
}

void WhyPendingPanel::refresh()
{
    const int g = m_snapshot ? m_snapshot->placementGroupIndex(m_group->currentData().toString()) : -1;
    if (g < 0) {
        m_text->setPlainText(m_snapshot ? tr("No placement group is PENDING.") : QString());
        return;
    }
    const PlacementGroup &group = m_snapshot->placementGroups[g];
    // Named as everywhere else (an unnamed group by its kind, job and short id), with its whole id.
    m_text->setPlainText(tr("Placement group %1 is PENDING (id %2).\n").arg(m_snapshot->groupLabel(group), group.id)
                         + explainPendingGroup(*m_snapshot, group).toText());
}

QString WhyPendingPanel::text() const
{
    return m_text->toPlainText();
}

} // namespace slicescope
