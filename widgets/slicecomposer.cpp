// SPDX-License-Identifier: GPL-3.0-or-later
#include "slicecomposer.h"

#include "elidingcombobox.h"
#include "fleetoverview.h"
#include "reviewpanel.h"
#include "sliceview.h"
#include "tpu.h"
#include "workspace.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFormLayout>
#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

namespace slicescope {

namespace {

const QStringList kStrategies = {QStringLiteral("SPREAD"), QStringLiteral("PACK"), QStringLiteral("STRICT_SPREAD"), QStringLiteral("STRICT_PACK")};

QString escaped(const QString &text)
{
    return text.toHtmlEscaped();
}

// What a release choice is checked against: a group that changes in any of these while chosen
// is no longer the one the operator looked at.
QString seenAs(const PlacementGroup &g)
{
    return QStringLiteral("%1 %2, %3 bundles, slices %4").arg(g.displayLabel(), g.state).arg(g.bundles.size()).arg(g.slices.isEmpty() ? QStringLiteral("none") : g.slices.join(QStringLiteral(", ")));
}

} // namespace

SliceComposer::SliceComposer(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("sliceComposer"));
    auto *layout = new QVBoxLayout(this);
    auto *form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);

    // Which RayCluster's Ray makes the group, when the view holds several (hidden otherwise).
    m_rayCluster = new ElidingComboBox(this);
    m_rayCluster->setObjectName(QStringLiteral("rayCluster"));
    m_rayClusterLabel = new QLabel(tr("Ray cluster"), this);
    form->addRow(m_rayClusterLabel, m_rayCluster);
    m_rayCluster->setVisible(false);
    m_rayClusterLabel->setVisible(false);

    m_accelerator = new QComboBox(this);
    m_accelerator->setObjectName(QStringLiteral("accelerator"));
    for (const tpu::Generation &g : tpu::generations())
        m_accelerator->addItem(g.displayName, g.name);
    form->addRow(tr("Accelerator"), m_accelerator);

    m_topology = new QComboBox(this);
    m_topology->setObjectName(QStringLiteral("topology"));
    form->addRow(tr("Topology"), m_topology);

    m_numSlices = new QSpinBox(this);
    m_numSlices->setObjectName(QStringLiteral("numSlices"));
    m_numSlices->setRange(1, 1024);
    form->addRow(tr("Slices"), m_numSlices);

    // Chips per VM: Ray's default for the shape, or a VM size that tiles it (v6e 2x4: 8 or 4).
    m_chipsPerVm = new QComboBox(this);
    m_chipsPerVm->setObjectName(QStringLiteral("chipsPerVm"));
    form->addRow(tr("Chips per VM"), m_chipsPerVm);

    // Resources per bundle: CPU plus TPU chips, chips / TPU bundles per slice (slice_placement_group's
    // resources_per_bundle); the TPU choices divide the slice and fit a VM.
    auto *resources = new QHBoxLayout;
    m_cpu = new QDoubleSpinBox(this);
    m_cpu->setObjectName(QStringLiteral("cpuPerBundle"));
    m_cpu->setRange(0, 1024);
    m_cpu->setDecimals(2); // 0.25: four one-chip bundles on a host with one CPU
    m_cpu->setValue(1);
    m_tpu = new QComboBox(this);
    m_tpu->setObjectName(QStringLiteral("tpuPerBundle"));
    resources->addWidget(new QLabel(tr("CPU"), this));
    resources->addWidget(m_cpu, 1);
    resources->addWidget(new QLabel(tr("TPU"), this));
    resources->addWidget(m_tpu, 1);
    form->addRow(tr("Per bundle"), resources);

    m_strategy = new QComboBox(this);
    m_strategy->setObjectName(QStringLiteral("strategy"));
    m_strategy->addItems(kStrategies);
    form->addRow(tr("Strategy"), m_strategy);

    m_name = new QLineEdit(this);
    m_name->setObjectName(QStringLiteral("name"));
    m_name->setPlaceholderText(tr("placement group name"));
    form->addRow(tr("Name"), m_name);

    m_detached = new QCheckBox(tr("Detached (outlives its job)"), this);
    m_detached->setObjectName(QStringLiteral("detached"));
    form->addRow(QString(), m_detached);

    m_timeout = new QSpinBox(this);
    m_timeout->setObjectName(QStringLiteral("timeout"));
    m_timeout->setRange(1, 3600);
    m_timeout->setValue(60);
    m_timeout->setSuffix(tr(" s"));
    form->addRow(tr("Head reservation timeout"), m_timeout);
    layout->addLayout(form);

    m_planLabel = new QLabel(this);
    m_planLabel->setObjectName(QStringLiteral("plan"));
    m_planLabel->setWordWrap(true);
    m_planLabel->setTextFormat(Qt::RichText);
    m_planLabel->setFrameShape(QFrame::StyledPanel);
    m_planLabel->setMargin(6);
    layout->addWidget(m_planLabel);

    m_reviewButton = new QPushButton(tr("Review and reserve..."), this);
    m_reviewButton->setObjectName(QStringLiteral("review"));
    layout->addWidget(m_reviewButton);

    auto *releaseHeading = new QLabel(tr("<b>Release a placement group</b>"), this);
    layout->addSpacing(8);
    layout->addWidget(releaseHeading);
    auto *release = new QHBoxLayout;
    m_releaseGroup = new ElidingComboBox(this);
    m_releaseGroup->setObjectName(QStringLiteral("releaseGroup"));
    m_releaseGroup->setPlaceholderText(tr("choose a placement group"));
    m_releaseButton = new QPushButton(tr("Release..."), this);
    m_releaseButton->setObjectName(QStringLiteral("release"));
    release->addWidget(m_releaseGroup, 1);
    release->addWidget(m_releaseButton);
    layout->addLayout(release);

    // The review: exactly what will change, then Confirm or Cancel; the message bar under it.
    m_panel = new ReviewPanel(this);
    layout->addWidget(m_panel, 1);
    layout->addStretch(0);

    connect(m_accelerator, &QComboBox::currentIndexChanged, this, [this] {
        fillTopologies();
        onShapeChanged();
    });
    connect(m_topology, &QComboBox::currentIndexChanged, this, &SliceComposer::onShapeChanged);
    for (QSpinBox *box : {m_numSlices, m_timeout})
        connect(box, &QSpinBox::valueChanged, this, &SliceComposer::onEdited);
    connect(m_cpu, &QDoubleSpinBox::valueChanged, this, &SliceComposer::onEdited);
    connect(m_tpu, &QComboBox::currentIndexChanged, this, &SliceComposer::onEdited);
    connect(m_chipsPerVm, &QComboBox::currentIndexChanged, this, &SliceComposer::onTpuOptionsChanged);
    connect(m_releaseGroup, &QComboBox::activated, this, [this](int row) { chooseReleaseGroup(m_releaseGroup->itemData(row).toString()); });
    connect(m_strategy, &QComboBox::currentIndexChanged, this, &SliceComposer::onEdited);
    connect(m_rayCluster, &QComboBox::currentIndexChanged, this, &SliceComposer::onEdited);
    connect(m_name, &QLineEdit::textChanged, this, &SliceComposer::onEdited);
    connect(m_detached, &QCheckBox::toggled, this, &SliceComposer::onEdited);
    connect(m_reviewButton, &QPushButton::clicked, this, &SliceComposer::reviewSubmit);
    connect(m_releaseButton, &QPushButton::clicked, this, [this] {
        if (!m_releaseChoice.isEmpty())
            reviewRelease(m_releaseChoice);
    });
    connect(m_panel, &ReviewPanel::confirmed, this, &SliceComposer::confirmReview);
    connect(m_panel, &ReviewPanel::cancelled, this, &SliceComposer::cancelReview);
    connect(m_panel, &ReviewPanel::statusMessage, this, &SliceComposer::actionStatusChanged);
    connect(m_panel, &ReviewPanel::actionUnderWay, this, &SliceComposer::actionUnderWay);

    // v6e 4x4 is the shape most teams reserve; start there rather than at the table's first row.
    m_accelerator->setCurrentIndex(std::max(0, m_accelerator->findData(QStringLiteral("v6e"))));
    fillTopologies();
    m_topology->setCurrentIndex(std::max(0, m_topology->findText(QStringLiteral("4x4"))));
    onShapeChanged();
}

void SliceComposer::fillTopologies()
{
    const tpu::Generation *gen = tpu::findGeneration(m_accelerator->currentData().toString());
    const QSignalBlocker blocker(m_topology);
    const QString previous = m_topology->currentText();
    m_topology->clear();
    if (!gen)
        return;
    for (const tpu::Topology &t : tpu::validTopologies(*gen)) {
        m_topology->addItem(t.toString());
        // Where Ray accepts what GKE does not document (v6e 2x8, another axis order), say so.
        if (const QString note = tpu::topologyNote(*gen, t); !note.isEmpty())
            m_topology->setItemData(m_topology->count() - 1, note, Qt::ToolTipRole);
    }
    const int keep = m_topology->findText(previous);
    m_topology->setCurrentIndex(keep >= 0 ? keep : 0);
}

void SliceComposer::onShapeChanged()
{
    // A new shape offers its VM sizes and resets both choices to Ray's defaults: a bundle per VM.
    const tpu::Generation *gen = tpu::findGeneration(m_accelerator->currentData().toString());
    const auto topo = tpu::parseTopology(m_topology->currentText());
    {
        const QSignalBlocker blocker(m_chipsPerVm);
        m_chipsPerVm->clear();
        if (gen && topo) {
            const int rayDefault = tpu::defaultChipsPerHost(*gen, *topo);
            m_chipsPerVm->addItem(tr("Ray's default (%1)").arg(rayDefault), 0);
            for (int chips : gen->chipsPerHostOptions)
                if (chips != rayDefault && tpu::hostBlock(*gen, *topo, chips))
                    m_chipsPerVm->addItem(QString::number(chips), chips);
            m_chipsPerVm->setCurrentIndex(0);
        }
        m_chipsPerVm->setEnabled(m_chipsPerVm->count() > 1);
    }
    onTpuOptionsChanged();
}

void SliceComposer::onTpuOptionsChanged()
{
    // TPU per bundle: the counts Ray takes for this shape (they divide the slice's chips) that
    // also fit one VM; the VM's chips (Ray's default) come first chosen.
    const tpu::Generation *gen = tpu::findGeneration(m_accelerator->currentData().toString());
    const auto topo = tpu::parseTopology(m_topology->currentText());
    {
        const QSignalBlocker blocker(m_tpu);
        m_tpu->clear();
        if (gen && topo) {
            const int vm = m_chipsPerVm->currentData().toInt() > 0 ? m_chipsPerVm->currentData().toInt() : tpu::defaultChipsPerHost(*gen, *topo);
            for (int chips = 1; chips <= vm; chips *= 2)
                if (topo->chips() % chips == 0 && vm % chips == 0)
                    m_tpu->addItem(QString::number(chips), chips);
            m_tpu->setCurrentIndex(std::max(0, m_tpu->findData(vm)));
        }
    }
    onEdited();
}

void SliceComposer::onEdited()
{
    // Editing again leaves the last result behind: show what this request would take.
    if (m_pending == Pending::None) {
        m_resultGroup.clear();
        m_outcome.clear();
    }
    // A review shows one request exactly; an edited request is another one.
    if (m_reviewing == Pending::Submit && request() != m_reviewedRequest) {
        cancelReview();
        m_panel->showMessage(MessageBar::Kind::Info, tr("The request changed while it was under review: review it again."));
    }
    updatePlan();
}

SlicePlacementRequest SliceComposer::request() const
{
    SlicePlacementRequest r;
    r.accelerator = m_accelerator->currentData().toString();
    r.topology = m_topology->currentText();
    r.numSlices = m_numSlices->value();
    r.name = m_name->text().trimmed();
    r.detached = m_detached->isChecked();
    r.cpuPerBundle = m_cpu->value();
    r.tpuPerBundle = m_tpu->currentData().toInt();
    r.chipsPerVm = m_chipsPerVm->currentData().toInt();
    r.strategy = m_strategy->currentText();
    r.timeoutSeconds = m_timeout->value();
    if (m_rayCluster->count() > 0) { // the one chosen, or the only RayCluster whose Ray answered
        const QStringList target = m_rayCluster->currentData().toStringList();
        r.context = target.value(0);
        r.rayCluster = target.value(1);
    }
    return r;
}

QString SliceComposer::composeProblem() const
{
    const SlicePlacementRequest r = request();
    if (!m_plan.requestError.isEmpty())
        return m_plan.requestError;
    if (r.name.isEmpty())
        return tr("give the placement group a name");
    if (m_snapshot && m_snapshot->placementGroupIndex(r.name) >= 0)
        return tr("a placement group named \"%1\" already exists").arg(r.name);
    if (!m_actions)
        return m_unavailable.isEmpty() ? tr("this source cannot change a cluster") : m_unavailable;
    if (const QString why = m_actions->unavailableReason(); !why.isEmpty())
        return why;
    if (m_pending != Pending::None)
        return tr("an action is in progress");
    return {};
}

void SliceComposer::updatePlan()
{
    const SlicePlacementRequest r = request();
    m_plan = m_snapshot ? planSlicePlacement(*m_snapshot, planRequestFor(r)) : PlanResult{};
    QString html;
    if (!m_outcome.isEmpty()) {
        // The reservation just made stays in sight: the same request planned again would only say
        // that its own slices are taken. Editing the request brings the what-if back.
        html = tr("<b style='color:#1a7f37'>Reserved:</b> %1<br>Edit the request to plan the next one.").arg(escaped(m_outcome));
    } else if (!m_snapshot) {
        html = tr("No cluster data yet.");
    } else if (!m_plan.requestError.isEmpty()) {
        html = tr("<b>Invalid request:</b> %1").arg(escaped(m_plan.requestError));
    } else {
        const QString shape = tr("%1 %2 &times;%3 (%4, %5 hosts of %6 chips per slice; %7 bundles of %8 TPU per slice)")
                                  .arg(m_plan.generation->name, m_plan.topology.toString())
                                  .arg(m_plan.numSlices)
                                  .arg(m_plan.podType)
                                  .arg(m_plan.hostsPerSlice)
                                  .arg(m_plan.chipsPerHost)
                                  .arg(m_plan.bundlesPerSlice)
                                  .arg(m_plan.tpuPerBundle);
        // With several Ray clusters in view the plan says which one it is for (issue 31): a
        // placement group lives in one, and its slices all come from it.
        const QString where = planClusterText(m_plan);
        const bool several = m_plan.clusters.size() > 1 || !m_rayCluster->isHidden();
        const QString in = !several || where.isEmpty()                                                ? QString()
                           : !m_plan.feasible && r.rayCluster.isEmpty() && m_plan.clusters.size() > 1 ? tr(" in any single Ray cluster")
                                                                                                      : tr(" in %1").arg(escaped(where));
        if (m_plan.feasible) {
            html = tr("<b style='color:#1a7f37'>Feasible%3:</b> %1.<br>Would take %2 (Ray picks the slices itself; the planner shows the first ready ones).")
                       .arg(shape, escaped(m_plan.wouldTake.join(QStringLiteral(", "))), in);
        } else {
            // Plain lines, not a <ul>: QLabel's height-for-width misjudges list margins and clips.
            QStringList items;
            for (const QString &reason : m_plan.reasons) {
                const QString trimmed = reason.trimmed();
                if (trimmed.isEmpty())
                    continue;
                const bool sub = reason.startsWith(QLatin1String("  ")); // the planner indents details
                items << (sub ? QStringLiteral("&nbsp;&nbsp;&nbsp;&nbsp;&ndash; ") : QStringLiteral("&bull; ")) + escaped(trimmed);
            }
            html = tr("<b style='color:#b35900'>Does not fit%3:</b> %1<br>%2").arg(shape, items.join(QStringLiteral("<br>")), in);
        }
        for (const QString &note : std::as_const(m_plan.notes))
            html += tr("<br><i>Note:</i> %1").arg(escaped(note));
    }
    m_planLabel->setText(html);
    const QString problem = composeProblem();
    m_reviewButton->setEnabled(problem.isEmpty() && m_plan.feasible);
    m_reviewButton->setToolTip(!problem.isEmpty() ? problem : m_plan.feasible ? QString()
                                                                              : tr("the planner says it does not fit now"));
    if (m_resultGroup.isEmpty())
        applyHighlights(m_plan.feasible ? m_plan.wouldTake : QStringList());
}

void SliceComposer::applyHighlights(const QStringList &slices)
{
    m_highlighted = slices;
    // The plan is drawn only while the composer is open: a closed panel's plan would mislead.
    if (!m_workspace)
        return;
    if (!isOpen()) {
        m_workspace->overview()->setHighlightedSlices({});
        m_workspace->sliceView()->setHighlightedHosts({});
        return;
    }
    m_workspace->overview()->setHighlightedSlices(slices);
    QList<int> hosts;
    const QString shown = m_workspace->currentSlice();
    if (m_snapshot && slices.contains(shown))
        if (const int s = m_snapshot->sliceIndex(shown); s >= 0)
            for (const Host &h : m_snapshot->slices[s].hosts)
                hosts << h.workerId;
    m_workspace->sliceView()->setHighlightedHosts(hosts);
}

bool SliceComposer::isOpen() const
{
    if (isVisible())
        return true;
    // Not on screen, yet open: every widget from here up to the window is shown, and only the
    // window itself is not (one rendered without being shown: screenshots, goldens). A window
    // merely minimised keeps its plan drawn too, for when it comes back.
    const QWidget *w = this;
    for (; w->parentWidget(); w = w->parentWidget())
        if (w->isHidden())
            return false;
    return w != this;
}

void SliceComposer::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    applyHighlights(m_highlighted);
}

void SliceComposer::hideEvent(QHideEvent *event)
{
    QWidget::hideEvent(event);
    applyHighlights(m_highlighted);
}

bool SliceComposer::event(QEvent *event)
{
    switch (event->type()) {
    case QEvent::ParentChange:
        // The dock it sits in opens and closes: watch it, as its window may never be shown.
        if (m_watchedParent)
            m_watchedParent->removeEventFilter(this);
        m_watchedParent = parentWidget();
        if (m_watchedParent)
            m_watchedParent->installEventFilter(this);
        applyHighlights(m_highlighted);
        break;
    case QEvent::ShowToParent:
    case QEvent::HideToParent: applyHighlights(m_highlighted); break;
    default: break;
    }
    return QWidget::event(event);
}

bool SliceComposer::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_watchedParent && (event->type() == QEvent::ShowToParent || event->type() == QEvent::HideToParent))
        applyHighlights(m_highlighted);
    return QWidget::eventFilter(watched, event);
}

void SliceComposer::setSnapshot(const SnapshotPtr &snapshot)
{
    m_snapshot = snapshot;
    fillReleaseGroups();
    fillRayClusters();
    if (!m_resultGroup.isEmpty() && m_snapshot) {
        const int g = m_snapshot->placementGroupIndex(m_resultGroup);
        applyHighlights(g >= 0 ? m_snapshot->placementGroups[g].slices : QStringList());
    }
    updatePlan();
    updateConfirmEnabled();
}

// The RayClusters whose Ray answered, as "ns/name" (with the context in a fleet of several); the
// choice stays while it is listed. Shown only when there is more than one to choose from.
void SliceComposer::fillRayClusters()
{
    QList<QStringList> targets;
    QStringList labels;
    bool severalContexts = m_snapshot && m_snapshot->contexts.size() > 1;
    if (m_snapshot)
        for (const RayViewState &v : m_snapshot->rayViews)
            if (v.answered && !v.cluster.isEmpty()) {
                targets << QStringList{v.context, v.cluster};
                labels << (severalContexts ? QStringLiteral("%1 (context %2)").arg(v.cluster, v.context) : v.cluster);
            }
    const QStringList current = m_rayCluster->currentData().toStringList();
    QSignalBlocker block(m_rayCluster);
    m_rayCluster->clear();
    for (qsizetype i = 0; i < targets.size(); ++i)
        m_rayCluster->addItem(labels[i], targets[i]);
    if (const int at = m_rayCluster->findData(current); at >= 0) m_rayCluster->setCurrentIndex(at);
    const bool choose = targets.size() > 1;
    m_rayCluster->setVisible(choose);
    m_rayClusterLabel->setVisible(choose);
}

void SliceComposer::setWorkspace(Workspace *workspace)
{
    m_workspace = workspace;
    if (workspace)
        connect(workspace, &Workspace::currentSliceChanged, this, [this] { applyHighlights(m_highlighted); });
    applyHighlights(m_highlighted);
}

void SliceComposer::setActions(ClusterActions *actions, const QString &reason)
{
    if (m_actions)
        disconnect(m_actions, nullptr, this, nullptr);
    m_actions = actions;
    m_unavailable = reason;
    if (actions) {
        connect(actions, &ClusterActions::actionProgress, this, &SliceComposer::onActionProgress);
        connect(actions, &ClusterActions::actionFinished, this, &SliceComposer::onActionFinished);
    }
    const QString why = !actions ? reason : actions->unavailableReason();
    m_releaseButton->setEnabled(why.isEmpty() && !m_releaseChoice.isEmpty());
    m_releaseButton->setToolTip(why);
    if (!why.isEmpty())
        m_panel->showMessage(MessageBar::Kind::Info, tr("Reserving and releasing are off: %1").arg(why));
    else
        m_panel->hideMessage();
    updatePlan();
}

void SliceComposer::setTheme(const Theme &theme)
{
    m_panel->setTheme(theme);
}

void SliceComposer::fillReleaseGroups()
{
    {
        const QSignalBlocker blocker(m_releaseGroup);
        m_releaseGroup->clear();
        // Head reservations belong to their slice request and go with it; people release the group.
        if (m_snapshot)
            for (const PlacementGroup &g : m_snapshot->placementGroups)
                if (g.kind != PlacementGroupKind::SliceHead)
                    m_releaseGroup->addItem(tr("%1 (%2, %3)").arg(m_snapshot->groupLabel(g), g.state, g.slices.isEmpty() ? tr("no slices") : g.slices.join(QStringLiteral(", "))),
                                            g.id);
    }
    // The group a submit just made, once the snapshots list it.
    if (!m_selectCreated.isEmpty() && m_snapshot)
        if (const int g = m_snapshot->placementGroupIndex(m_selectCreated); g >= 0 && m_snapshot->placementGroups[g].kind != PlacementGroupKind::SliceHead) {
            m_selectCreated.clear();
            chooseReleaseGroup(m_snapshot->placementGroups[g].id);
            return;
        }
    if (m_pending == Pending::Release && m_releaseTarget == m_releaseChoice && !m_releaseChoice.isEmpty()
        && m_snapshot && m_snapshot->placementGroupIndex(m_releaseChoice) < 0) {
        m_releaseChoice.clear(); // our own release took it: that is the outcome, not a surprise
        m_releaseChoiceSeen.clear();
    } else if (const QString change = releaseChoiceChange(); !change.isEmpty()) {
        // Never slide to a neighbour: the choice goes, and whatever was armed for it.
        const bool armed = m_reviewing == Pending::Release && m_releaseTarget == m_releaseChoice;
        m_releaseChoice.clear();
        m_releaseChoiceSeen.clear();
        if (armed)
            cancelReview();
        m_panel->showMessage(MessageBar::Kind::Info, armed ? tr("%1: the release review was withdrawn and the choice cleared; choose again.").arg(change)
                                                           : tr("%1: the release choice was cleared; choose again.").arg(change));
    }
    const QSignalBlocker blocker(m_releaseGroup);
    m_releaseGroup->setCurrentIndex(m_releaseChoice.isEmpty() ? -1 : m_releaseGroup->findData(m_releaseChoice));
    m_releaseButton->setEnabled(!m_releaseChoice.isEmpty() && m_actions && m_actions->unavailableReason().isEmpty());
}

void SliceComposer::chooseReleaseGroup(const QString &id)
{
    const int g = m_snapshot && !id.isEmpty() ? m_snapshot->placementGroupIndex(id) : -1;
    m_releaseChoice = g >= 0 ? m_snapshot->placementGroups[g].id : QString();
    m_releaseChoiceSeen = g >= 0 ? seenAs(m_snapshot->placementGroups[g]) : QString();
    const QSignalBlocker blocker(m_releaseGroup);
    m_releaseGroup->setCurrentIndex(m_releaseChoice.isEmpty() ? -1 : m_releaseGroup->findData(m_releaseChoice));
    m_releaseButton->setEnabled(!m_releaseChoice.isEmpty() && m_actions && m_actions->unavailableReason().isEmpty());
}

// Empty while the chosen group is in the newest snapshot as it was when chosen; else what happened.
QString SliceComposer::releaseChoiceChange() const
{
    if (m_releaseChoice.isEmpty() || !m_snapshot)
        return {};
    const int g = m_snapshot->placementGroupIndex(m_releaseChoice);
    if (g < 0)
        return tr("Placement group %1 (%2) is gone from the newest snapshot").arg(m_releaseChoiceSeen.section(u' ', 0, 0), m_releaseChoice);
    if (const QString now = seenAs(m_snapshot->placementGroups[g]); now != m_releaseChoiceSeen)
        return tr("Placement group %1 changed (was %2, now %3)").arg(m_releaseChoice, m_releaseChoiceSeen, now);
    return {};
}

QString SliceComposer::selectedReleaseGroup() const
{
    return m_releaseChoice;
}

void SliceComposer::refuse(const QString &text)
{
    cancelReview();
    m_panel->showMessage(MessageBar::Kind::Error, text);
    updatePlan();
}

bool SliceComposer::isReviewing() const
{
    return m_reviewing != Pending::None;
}

bool SliceComposer::chooseRayCluster(const QString &context, const QString &rayCluster)
{
    if (m_reviewing != Pending::None || rayCluster.isEmpty())
        return false;
    const int at = m_rayCluster->findData(QStringList{context, rayCluster});
    if (at < 0)
        return false;
    m_rayCluster->setCurrentIndex(at); // onEdited() plans again
    return true;
}

void SliceComposer::reviewSubmit()
{
    if (!composeProblem().isEmpty() || !m_plan.feasible || !m_actions)
        return;
    const SlicePlacementRequest r = request();
    m_reviewing = Pending::Submit;
    m_reviewedRequest = r;
    m_reviewedTake = m_plan.wouldTake;
    const QString title = tr("<b>Reserve %1 × %2 %3 as \"%4\"</b>").arg(r.numSlices).arg(m_plan.generation->name, m_plan.topology.toString(), escaped(r.name));
    QStringList lines;
    lines << tr("What will change:");
    // Which Ray, whenever the source has more than a direct head (issue 16: every review names it).
    if (!r.rayCluster.isEmpty())
        lines << (r.context.isEmpty() ? tr("  on RayCluster %1").arg(r.rayCluster) : tr("  on RayCluster %1 in context %2").arg(r.rayCluster, r.context));
    else if (m_plan.clusters.size() > 1 && !planClusterText(m_plan).isEmpty())
        lines << tr("  planned in %1 (its slices only: a placement group lives in one Ray cluster)").arg(planClusterText(m_plan));
    lines << tr("  Ray will reserve %1").arg(describeBundles(m_plan));
    lines << tr("  (%1 host%2 of %3 chips per slice, %4 bundle%5 per slice; strategy %6; %7)")
                 .arg(m_plan.hostsPerSlice)
                 .arg(m_plan.hostsPerSlice == 1 ? QString() : QStringLiteral("s"))
                 .arg(m_plan.chipsPerHost)
                 .arg(m_plan.bundlesPerSlice)
                 .arg(m_plan.bundlesPerSlice == 1 ? QString() : QStringLiteral("s"))
                 .arg(r.strategy, r.detached ? tr("detached: release it explicitly") : tr("held by its job: released when the job stops"));
    lines << tr("  the slices are the planner's expectation: Ray picks them itself");
    for (const QString &note : std::as_const(m_plan.notes))
        lines << tr("  note: %1").arg(note);
    lines << tr("  other users cannot reserve these slices while the group exists");
    lines << QString() << tr("Exactly what is sent:") << m_actions->describeSubmission(r);
    m_panel->openReview(title, lines.join(u'\n'), tr("Reserve"));
    updateConfirmEnabled();
}

void SliceComposer::reviewRelease(const QString &nameOrId)
{
    if (!m_snapshot || !m_actions)
        return;
    const int index = m_snapshot->placementGroupIndex(nameOrId);
    if (index < 0) {
        m_panel->showMessage(MessageBar::Kind::Error, tr("No live placement group named or with id \"%1\".").arg(nameOrId));
        return;
    }
    const PlacementGroup &g = m_snapshot->placementGroups[index];
    chooseReleaseGroup(g.id);
    const bool ours = m_actions->createdBySliceScope(*m_snapshot, g);
    m_reviewing = Pending::Release;
    m_releaseTarget = g.id;
    const QString label = g.name.isEmpty() ? g.id : g.name;
    const QString title = tr("<b>Release placement group \"%1\"</b>").arg(escaped(label));
    QStringList lines;
    lines << tr("What will change:");
    if (!g.rayCluster.isEmpty())
        lines << (g.context.isEmpty() ? tr("  on RayCluster %1").arg(g.rayCluster) : tr("  on RayCluster %1 in context %2").arg(g.rayCluster, g.context));
    lines << tr("  %1 (%2, %3 bundles) is removed; its chips become free").arg(g.id, g.state).arg(g.bundles.size());
    lines << tr("  slices freed: %1").arg(g.slices.isEmpty() ? tr("none") : g.slices.join(QStringLiteral(", ")));
    lines << tr("  whoever uses it (creator job %1) loses its reservation").arg(g.creatorJobId.isEmpty() ? tr("unknown") : g.creatorJobId);
    lines << QString() << m_actions->describeRelease(*m_snapshot, g);
    m_panel->openReview(title, lines.join(u'\n'), tr("Release"));
    // Groups SliceScope did not create belong to someone else: make the operator type the name.
    if (!ours)
        m_panel->requireTypedName(label, tr("SliceScope did not create this group. Type its name, <b>%1</b>, to release it.").arg(escaped(label)));
    updateConfirmEnabled();
}

void SliceComposer::updateConfirmEnabled()
{
    // The panel adds the typed name a release of someone else's group asks for.
    bool allowed = m_pending == Pending::None && m_actions;
    if (m_reviewing == Pending::Submit)
        allowed = allowed && composeProblem().isEmpty() && m_plan.feasible;
    else if (m_reviewing != Pending::Release)
        allowed = false;
    m_panel->setConfirmAllowed(allowed);
}

void SliceComposer::cancelReview()
{
    m_reviewing = Pending::None;
    m_panel->closeReview();
}

void SliceComposer::confirmReview()
{
    if (!m_panel->isConfirmEnabled() || !m_actions)
        return;
    const Pending what = m_reviewing;
    const bool force = !m_panel->requiredName().isEmpty(); // the name was typed: someone else's group
    // The last look before sending, against the newest snapshot this panel has.
    if (what == Pending::Submit) {
        const SlicePlacementRequest r = request();
        const PlanResult now = m_snapshot ? planSlicePlacement(*m_snapshot, planRequestFor(r)) : PlanResult{};
        if (!now.feasible) {
            refuse(tr("Not submitted: the newest snapshot says %1 no longer fits. Look at the plan and review again.").arg(r.name));
            return;
        }
        if (now.wouldTake != m_reviewedTake) {
            refuse(tr("Not submitted: the slices it would take changed (%1 -> %2). Review again.")
                       .arg(m_reviewedTake.join(QStringLiteral(", ")), now.wouldTake.join(QStringLiteral(", "))));
            return;
        }
    } else if (const QString change = m_releaseTarget == m_releaseChoice ? releaseChoiceChange() : QStringLiteral("the chosen group is another one");
               !change.isEmpty()) {
        m_releaseChoice.clear();
        m_releaseChoiceSeen.clear();
        fillReleaseGroups();
        refuse(tr("Not released: %1.").arg(change));
        return;
    }
    cancelReview();
    m_actionId = QStringLiteral("composer-%1").arg(++m_actionCounter);
    m_pending = what;
    if (what == Pending::Submit) {
        const SlicePlacementRequest r = request();
        m_resultGroup = r.name; // highlighted from the snapshots once Ray shows it
        applyHighlights(m_plan.wouldTake);
        m_panel->showMessage(MessageBar::Kind::Warning, tr("Submitting the job that reserves \"%1\"...").arg(r.name));
        m_actions->submitSlicePlacementGroup(m_actionId, r);
    } else {
        m_panel->showMessage(MessageBar::Kind::Warning, tr("Releasing %1...").arg(m_releaseTarget));
        m_actions->releasePlacementGroup(m_actionId, m_releaseTarget, force);
    }
    updatePlan();
}

void SliceComposer::onActionProgress(const QString &actionId, const QString &text)
{
    if (actionId == m_actionId)
        m_panel->showMessage(MessageBar::Kind::Warning, text);
}

void SliceComposer::onActionFinished(const QString &actionId, bool ok, const QString &message)
{
    if (actionId != m_actionId)
        return;
    const Pending what = m_pending;
    m_pending = Pending::None;
    m_panel->showMessage(ok ? MessageBar::Kind::Success : MessageBar::Kind::Error, message);
    if (what == Pending::Release && ok && m_releaseChoice == m_releaseTarget) {
        m_releaseChoice.clear();
        m_releaseChoiceSeen.clear();
        fillReleaseGroups();
    }
    if (what == Pending::Submit && ok) {
        m_outcome = message;
        m_selectCreated = m_resultGroup; // chosen in the release list as soon as it is listed
        fillReleaseGroups();
        const int g = m_snapshot ? m_snapshot->placementGroupIndex(m_resultGroup) : -1;
        if (g >= 0)
            applyHighlights(m_snapshot->placementGroups[g].slices);
    } else if (what == Pending::Submit) {
        m_resultGroup.clear();
    }
    updatePlan();
}

QString SliceComposer::messageText() const
{
    return m_panel->messageText();
}

} // namespace slicescope
