// SPDX-License-Identifier: GPL-3.0-or-later
#include "scaledialog.h"

#include "elidingcombobox.h"
#include "reviewpanel.h"
#include "scalewording.h"

#include <QComboBox>
#include <QFormLayout>
#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QStackedWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <limits>

namespace slicescope {

namespace {

constexpr int kUnbounded = std::numeric_limits<int>::max();

QString escaped(const QString &text)
{
    return text.toHtmlEscaped();
}

// maxReplicas may be absent from the spec (planScale says INT_MAX): show the word, not the number.
class BoundSpinBox : public QSpinBox
{
public:
    using QSpinBox::QSpinBox;

protected:
    QString textFromValue(int value) const override { return value == kUnbounded ? QStringLiteral("unbounded") : QSpinBox::textFromValue(value); }
    int valueFromText(const QString &text) const override
    {
        return text.trimmed() == QLatin1String("unbounded") ? kUnbounded : QSpinBox::valueFromText(text);
    }
    QValidator::State validate(QString &text, int &pos) const override
    {
        const QString word = text.trimmed();
        if (word == QLatin1String("unbounded"))
            return QValidator::Acceptable;
        if (!word.isEmpty() && QStringLiteral("unbounded").startsWith(word))
            return QValidator::Intermediate;
        return QSpinBox::validate(text, pos);
    }
};

struct ComboItem {
    QString text, data;
};

// Rebuilds a combo only when its items changed: snapshots come every second or so, and clearing
// a combo would close its popup under the operator's mouse. The choice is kept by its data (a
// name), never by its row; when `keep` is not among the items the combo shows no choice, unless
// `firstIfNone` lets it take the first item (right for the group list, never for a slice to remove).
void setComboItems(QComboBox *combo, const QList<ComboItem> &items, const QString &keep, bool firstIfNone)
{
    const QSignalBlocker blocker(combo);
    bool same = combo->count() == items.size();
    for (int i = 0; same && i < items.size(); ++i)
        same = combo->itemText(i) == items[i].text && combo->itemData(i).toString() == items[i].data;
    if (!same) {
        combo->clear();
        for (const ComboItem &item : items)
            combo->addItem(item.text, item.data);
    }
    const int row = keep.isEmpty() ? -1 : combo->findData(keep);
    combo->setCurrentIndex(row >= 0 ? row : (firstIfNone && !items.isEmpty() ? 0 : -1));
}

// What the group list keys an item by: "ns/cluster/group", or in a fleet of several contexts,
// where that name can repeat, WorkerGroup::fleetKey().
QString groupItemData(const ClusterSnapshot &snapshot, const WorkerGroup &g)
{
    return snapshot.contexts.size() > 1 ? g.fleetKey() : g.qualifiedName();
}

bool samePlan(const ScalePlan &a, const ScalePlan &b)
{
    return a.allowed == b.allowed && a.refusal == b.refusal && a.summary == b.summary && a.jsonPatch() == b.jsonPatch()
           && a.slicesAdded == b.slicesAdded && a.slicesRemoved == b.slicesRemoved && a.displacedGroups == b.displacedGroups
           && a.notes == b.notes && a.removedTargets == b.removedTargets;
}

} // namespace

ScaleDialog::ScaleDialog(QWidget *parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("scaleDialog"));
    setWindowTitle(tr("Scale worker group"));
    auto *layout = m_layout = new QVBoxLayout(this);

    auto *form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_group = new ElidingComboBox(this);
    m_group->setObjectName(QStringLiteral("workerGroup"));
    form->addRow(tr("Worker group"), m_group);
    m_current = new QLabel(this);
    m_current->setObjectName(QStringLiteral("current"));
    m_current->setTextFormat(Qt::RichText);
    m_current->setWordWrap(true);
    form->addRow(tr("Now"), m_current);
    auto *modes = new QHBoxLayout;
    m_modeSize = new QRadioButton(tr("Change the size"), this);
    m_modeSize->setObjectName(QStringLiteral("modeSize"));
    m_modeSize->setChecked(true);
    m_modeRemove = new QRadioButton(tr("Remove slice..."), this);
    m_modeRemove->setObjectName(QStringLiteral("modeRemove"));
    modes->addWidget(m_modeSize);
    modes->addWidget(m_modeRemove);
    modes->addStretch(1);
    form->addRow(tr("Change"), modes);
    layout->addLayout(form);

    // One page per mode, so the form shows only what the mode asks for.
    m_modePages = new QStackedWidget(this);
    auto *sizePage = new QWidget(m_modePages);
    auto *sizeLayout = new QVBoxLayout(sizePage);
    sizeLayout->setContentsMargins(0, 0, 0, 0);
    auto *sizeForm = new QFormLayout;
    sizeForm->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_replicas = new QSpinBox(sizePage);
    m_replicas->setObjectName(QStringLiteral("replicas"));
    sizeForm->addRow(tr("Replicas (slices)"), m_replicas);
    auto *bounds = new QHBoxLayout;
    m_min = new QSpinBox(sizePage);
    m_min->setObjectName(QStringLiteral("minReplicas"));
    m_max = new BoundSpinBox(sizePage);
    m_max->setObjectName(QStringLiteral("maxReplicas"));
    m_min->setRange(0, 100000);
    m_max->setRange(0, kUnbounded);
    bounds->addWidget(m_min, 1);
    bounds->addWidget(new QLabel(tr(".."), sizePage));
    bounds->addWidget(m_max, 1);
    sizeForm->addRow(tr("Min .. max"), bounds);
    sizeLayout->addLayout(sizeForm);
    // Below the form, not in a row of it: QFormLayout misjudges a wrapped label's height.
    m_autoscalerNote = new QLabel(tr("In-tree autoscaling is on: the Ray autoscaler owns <i>replicas</i> and would overwrite "
                                     "any value set here, so it is read-only. Change the bounds it scales within instead."),
                                  sizePage);
    m_autoscalerNote->setObjectName(QStringLiteral("autoscalerNote"));
    m_autoscalerNote->setWordWrap(true);
    m_autoscalerNote->setTextFormat(Qt::RichText);
    sizeLayout->addWidget(m_autoscalerNote);
    sizeLayout->addStretch(1);
    m_modePages->addWidget(sizePage);
    auto *removePage = new QWidget(m_modePages);
    auto *removeLayout = new QVBoxLayout(removePage);
    removeLayout->setContentsMargins(0, 0, 0, 0);
    auto *removeForm = new QFormLayout;
    removeForm->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_removeSlice = new ElidingComboBox(removePage);
    m_removeSlice->setObjectName(QStringLiteral("removeSlice"));
    // Starts with no slice chosen: the operator names the one to go (STYLE: never guess).
    m_removeSlice->setPlaceholderText(tr("Choose the slice to remove"));
    removeForm->addRow(tr("Slice to remove"), m_removeSlice);
    removeLayout->addLayout(removeForm);
    auto *removeHint = new QLabel(tr("Lowers replicas by one and names this slice's pods in workersToDelete, so KubeRay removes "
                                     "this slice and no other."),
                                  removePage);
    removeHint->setWordWrap(true);
    removeLayout->addWidget(removeHint);
    removeLayout->addStretch(1);
    m_modePages->addWidget(removePage);
    // As tall as its taller page, never taller: spare room goes to the review, or below.
    m_modePages->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);
    layout->addWidget(m_modePages);

    auto *previewHeading = new QLabel(tr("<b>What would change</b>"), this);
    layout->addSpacing(4);
    layout->addWidget(previewHeading);
    m_strip = new ScalePreviewStrip(this);
    m_strip->setObjectName(QStringLiteral("previewStrip"));
    layout->addWidget(m_strip);
    m_planLabel = new QLabel(this);
    m_planLabel->setObjectName(QStringLiteral("plan"));
    m_planLabel->setWordWrap(true);
    m_planLabel->setTextFormat(Qt::RichText);
    m_planLabel->setFrameShape(QFrame::StyledPanel);
    m_planLabel->setMargin(6);
    layout->addWidget(m_planLabel);

    m_unavailable = new MessageBar(this);
    m_unavailable->setObjectName(QStringLiteral("unavailable"));
    m_unavailable->hide();
    layout->addWidget(m_unavailable);

    m_buttonRow = new QWidget(this);
    auto *buttons = new QHBoxLayout(m_buttonRow);
    buttons->setContentsMargins(0, 0, 0, 0);
    m_closeButton = new QPushButton(tr("Close"), m_buttonRow);
    m_closeButton->setObjectName(QStringLiteral("close"));
    m_closeButton->setAutoDefault(false);
    m_reviewButton = new QPushButton(tr("Review..."), m_buttonRow);
    m_reviewButton->setObjectName(QStringLiteral("review"));
    m_reviewButton->setAutoDefault(false);
    buttons->addStretch(1);
    buttons->addWidget(m_closeButton);
    buttons->addWidget(m_reviewButton);
    layout->addWidget(m_buttonRow);

    // The review: exactly what will change and the patch that does it, then Confirm or Cancel;
    // the message bar and the progress log under it.
    m_panel = new ReviewPanel(this);
    m_panel->setTextMinimumHeight(150);
    layout->addWidget(m_panel, 1);
    layout->addStretch(1); // the spare room, given to the review while it is open

    connect(m_group, &QComboBox::currentIndexChanged, this, &ScaleDialog::onGroupChanged);
    auto showModePage = [this] {
        // The stack takes the height of the page shown, not of its tallest page.
        const int current = m_modeRemove->isChecked() ? 1 : 0;
        for (int i = 0; i < m_modePages->count(); ++i)
            m_modePages->widget(i)->setSizePolicy(QSizePolicy::Preferred, i == current ? QSizePolicy::Preferred : QSizePolicy::Ignored);
        m_modePages->setCurrentIndex(current);
        m_modePages->updateGeometry();
    };
    showModePage();
    connect(m_modeSize, &QRadioButton::toggled, this, [this, showModePage] {
        showModePage();
        updatePlan();
    });
    for (QSpinBox *box : {m_replicas, m_min, m_max})
        connect(box, &QSpinBox::valueChanged, this, &ScaleDialog::updatePlan);
    connect(m_removeSlice, &QComboBox::currentIndexChanged, this, &ScaleDialog::onRemoveSliceChosen);
    connect(m_reviewButton, &QPushButton::clicked, this, [this] { openReview(); });
    connect(m_panel, &ReviewPanel::confirmed, this, &ScaleDialog::confirmReview);
    connect(m_panel, &ReviewPanel::statusMessage, this, &ScaleDialog::actionStatusChanged);
    connect(m_panel, &ReviewPanel::actionUnderWay, this, &ScaleDialog::actionUnderWay);
    connect(m_panel, &ReviewPanel::cancelled, this, [this] {
        cancelReview();
        syncControlsToGroup(); // the cluster may have moved while the review held the controls
        updatePlan();
    });
    connect(m_closeButton, &QPushButton::clicked, this, &QDialog::close);

    resize(560, 640);
    syncControlsToGroup();
    updateAvailability();
    updatePlan();
}

const WorkerGroup *ScaleDialog::currentGroup() const
{
    if (!m_snapshot)
        return nullptr;
    const int gi = m_snapshot->workerGroupIndex(workerGroup());
    return gi >= 0 ? &m_snapshot->workerGroups[gi] : nullptr;
}

QString ScaleDialog::workerGroup() const
{
    return m_group->currentData().toString();
}

void ScaleDialog::setSnapshot(const SnapshotPtr &snapshot)
{
    m_snapshot = snapshot;
    m_stale = true;
    // Nobody sees a hidden dialog's preview: plan again when it shows (docs/style.md 9). An open
    // review still follows, so it never holds a plan the cluster has left behind.
    if (isVisible() || m_reviewing || isRunning())
        refresh();
}

void ScaleDialog::showEvent(QShowEvent *event)
{
    QDialog::showEvent(event);
    if (m_stale)
        refresh();
}

void ScaleDialog::refresh()
{
    m_stale = false;
    fillGroups();
    checkChosenSlice();
    syncControlsToGroup();
    updateAvailability();
    updatePlan();
}

void ScaleDialog::setActions(ClusterActions *actions, const QString &reason)
{
    if (m_actions)
        disconnect(m_actions, nullptr, this, nullptr);
    m_actions = actions;
    m_noActionsReason = reason;
    // A review or an action belonged to the previous executor (another source): let both go.
    if (m_reviewing)
        cancelReview();
    if (isRunning()) {
        m_actionId.clear();
        m_panel->showMessage(MessageBar::Kind::Info, tr("The source changed: what became of \"%1\" is not followed here any more.").arg(m_sentPlan.summary));
        m_syncedGroup.clear();
        syncControlsToGroup();
        updatePlan();
    }
    if (actions) {
        connect(actions, &ClusterActions::actionProgress, this, &ScaleDialog::onActionProgress);
        connect(actions, &ClusterActions::actionFinished, this, &ScaleDialog::onActionFinished);
        connect(actions, &ClusterActions::actionConflict, this, &ScaleDialog::onActionConflict);
        connect(actions, &ClusterActions::availabilityChanged, this, &ScaleDialog::updateAvailability);
    }
    updateAvailability();
}

void ScaleDialog::setTheme(const Theme &theme)
{
    m_theme = theme;
    m_strip->setTheme(theme);
    m_unavailable->setTheme(theme);
    m_panel->setTheme(theme);
    updatePlan();
}

bool ScaleDialog::setWorkerGroup(const QString &qualifiedGroup)
{
    if (m_stale)
        refresh();
    if (m_reviewing || isRunning())
        return false;
    // By key, or by "ns/cluster/group" when only one context has it (never the first of several).
    const int gi = m_snapshot ? m_snapshot->workerGroupIndex(qualifiedGroup) : -1;
    const int row = m_group->findData(gi < 0 ? qualifiedGroup : groupItemData(*m_snapshot, m_snapshot->workerGroups[gi]));
    if (row < 0)
        return false;
    m_group->setCurrentIndex(row);
    return true;
}

bool ScaleDialog::preselectSlice(const QString &sliceName)
{
    if (m_stale)
        refresh();
    const int si = m_snapshot ? m_snapshot->sliceIndex(sliceName) : -1;
    const int gi = si >= 0 ? m_snapshot->workerGroupOf(m_snapshot->slices[si]) : -1; // the slice's own context's group
    if (gi < 0 || !setWorkerGroup(m_snapshot->workerGroups[gi].fleetKey()))
        return false;
    const int row = m_removeSlice->findData(sliceName);
    if (row < 0)
        return false;
    // Never start on a slice someone's work holds: removing it is a choice the operator makes
    // with the picker, not one a click elsewhere made for them.
    if (const SliceTarget target = sliceTarget(*m_snapshot, sliceName); !target.placementGroups.isEmpty()) {
        clearChosenSlice();
        QStringList holders; // as people read them: "head of rl-rollout (58572f51ee81)", not a bare id
        for (const QString &g : target.placementGroups) {
            const int pg = m_snapshot->placementGroupIndex(g);
            holders << (pg >= 0 ? m_snapshot->groupLabel(m_snapshot->placementGroups[pg]) : g);
        }
        showPickerMessage(MessageBar::Kind::Info, (holders.size() == 1 ? tr("%1 is not preselected for removal: placement group %2 holds it. Choose it "
                                                                            "below yourself if you mean to remove it.")
                                                                       : tr("%1 is not preselected for removal: placement groups %2 hold it. Choose "
                                                                            "it below yourself if you mean to remove it."))
                                                      .arg(sliceName, holders.join(QStringLiteral(", "))));
        updatePlan();
        return true;
    }
    m_removeSlice->setCurrentIndex(row); // onRemoveSliceChosen() records it
    return true;
}

void ScaleDialog::onRemoveSliceChosen()
{
    const QString name = m_removeSlice->currentData().toString();
    m_chosen = m_snapshot && !name.isEmpty() ? sliceTarget(*m_snapshot, name) : SliceTarget{};
    if (m_pickerMessage) {
        m_pickerMessage = false;
        m_panel->hideMessage();
    }
    updatePlan();
}

void ScaleDialog::clearChosenSlice()
{
    m_chosen = {};
    const QSignalBlocker blocker(m_removeSlice);
    m_removeSlice->setCurrentIndex(-1);
}

void ScaleDialog::checkChosenSlice()
{
    if (m_chosen.name.isEmpty() || !m_snapshot || isRunning()) // a removal under way changes its slice
        return;
    const QStringList changes = sliceTargetChanges(m_chosen, sliceTarget(*m_snapshot, m_chosen.name));
    if (changes.isEmpty())
        return;
    // The slice chosen is not the slice it was: the choice goes, and with it a review that would
    // remove it. Nothing moves to the next row; the operator chooses again.
    const QString name = m_chosen.name;
    const bool vanished = m_snapshot->sliceIndex(name) < 0;
    const bool reviewed = m_reviewing && m_reviewPlan.slicesRemoved.contains(name) && !isRunning();
    clearChosenSlice();
    if (reviewed)
        cancelReview();
    QString text;
    if (vanished)
        text = reviewed ? tr("%1 vanished from the cluster while you reviewed its removal; choose again").arg(name)
                        : tr("%1 vanished from the cluster while it was chosen for removal; choose again").arg(name);
    else
        text = reviewed ? tr("%1 changed while you reviewed its removal (%2); nothing was sent. Choose again").arg(name, changes.join(QStringLiteral("; ")))
                        : tr("%1 changed after it was chosen for removal (%2); choose again").arg(name, changes.join(QStringLiteral("; ")));
    showPickerMessage(MessageBar::Kind::Error, text);
}

void ScaleDialog::showPickerMessage(MessageBar::Kind kind, const QString &text)
{
    m_panel->showMessage(kind, text);
    m_pickerMessage = true; // hidden again when the operator picks a slice
}

void ScaleDialog::fillGroups()
{
    // A group picked before that is gone stays listed, marked: the request keeps naming it and
    // planScale() refuses, instead of the combo quietly moving to another one.
    const QString keep = workerGroup();
    QList<ComboItem> groups;
    const bool severalContexts = m_snapshot && m_snapshot->contexts.size() > 1;
    if (m_snapshot)
        for (const WorkerGroup &g : m_snapshot->workerGroups)
            if (g.isTpu())
                groups.append({g.context.isEmpty() || !severalContexts
                                   ? tr("%1  (%2, %3 %4)").arg(g.group, g.qualifiedCluster(), g.accelerator, g.topology)
                                   : tr("%1  (%2 in context %3, %4 %5)").arg(g.group, g.qualifiedCluster(), g.context, g.accelerator, g.topology),
                               groupItemData(*m_snapshot, g)});
    if (!keep.isEmpty() && std::none_of(groups.begin(), groups.end(), [&](const ComboItem &i) { return i.data == keep; }))
        groups.append({tr("%1 (gone)").arg(keep), keep});
    setComboItems(m_group, groups, keep, true);

    const WorkerGroup *g = currentGroup();
    const QString keepSlice = m_removeSlice->currentData().toString();
    QList<ComboItem> slices;
    if (g) {
        for (const QString &name : g->slices) {
            const int si = m_snapshot->sliceIndex(name);
            QStringList holders;
            for (const PlacementGroup &pg : m_snapshot->placementGroups)
                if (pg.slices.contains(name))
                    holders << (pg.displayLabel());
            QString text = si >= 0 ? tr("%1  (%2)").arg(name, toText(m_snapshot->slices[si].status())) : name;
            if (!holders.isEmpty())
                text += tr(", held by %1").arg(holders.join(QStringLiteral(", ")));
            slices.append({text, name});
        }
    }
    // Kept by name: a slice gone from the list leaves no choice (checkChosenSlice() says why).
    setComboItems(m_removeSlice, slices, keepSlice, false);
}

void ScaleDialog::onGroupChanged()
{
    clearChosenSlice(); // a slice of another group is no choice here
    fillGroups(); // the slice list belongs to the group
    syncControlsToGroup();
    updateAvailability();
    updatePlan();
}

void ScaleDialog::syncControlsToGroup()
{
    const WorkerGroup *g = currentGroup();
    const bool busy = m_reviewing || isRunning();
    const QSignalBlocker b1(m_replicas), b2(m_min), b3(m_max);
    if (!g) {
        m_current->setText(m_snapshot ? tr("No TPU worker group by that name in the newest snapshot.") : tr("No cluster data yet."));
        m_autoscalerNote->hide();
        return;
    }
    m_current->setText(tr("<b>%1</b><br>replicas %2 within %3..%4 &middot; in-tree autoscaling %5")
                           .arg(escaped(describeReplicas(g->replicas, g->numOfHosts, g->chipsPerHost)))
                           .arg(g->replicas)
                           .arg(g->minReplicas)
                           .arg(scaleBound(g->maxReplicas))
                           .arg(g->autoscaling ? tr("<b>on</b> (the Ray autoscaler sets replicas)") : tr("off")));
    // A review or a running action holds the request as it was confirmed: the controls move only
    // when neither is open (a tighter range would otherwise clamp the value under the operator).
    if (busy)
        return;
    // Out of range is impossible: the box stops at the bounds (widened only to show a value
    // KubeRay is already clamping, which planScale() then refuses).
    const bool sameGroup = m_syncedGroup == g->qualifiedName();
    const int previous = m_replicas->value();
    const int previousMin = m_min->value(), previousMax = m_max->value();
    m_replicas->setRange(std::min(g->minReplicas, g->replicas), std::max(g->maxReplicas, g->replicas));
    m_replicas->setReadOnly(g->autoscaling);
    m_replicas->setToolTip(g->autoscaling ? tr("Read-only: the Ray autoscaler owns replicas (enableInTreeAutoscaling: true)")
                                          : tr("Slices wanted, within minReplicas..maxReplicas (%1..%2)").arg(g->minReplicas).arg(scaleBound(g->maxReplicas)));
    m_autoscalerNote->setVisible(g->autoscaling);
    m_min->setReadOnly(!g->autoscaling);
    m_max->setReadOnly(!g->autoscaling);
    const QString boundsTip = g->autoscaling ? tr("The autoscaler keeps replicas within these bounds")
                                             : tr("Read-only here: without in-tree autoscaling, set replicas directly");
    m_min->setToolTip(boundsTip);
    m_max->setToolTip(boundsTip);
    // Values follow the cluster unless the operator has edited them.
    if (!sameGroup || g->autoscaling || previous == m_syncedReplicas)
        m_replicas->setValue(g->replicas);
    if (!sameGroup || !g->autoscaling || (previousMin == m_syncedMin && previousMax == m_syncedMax)) {
        m_min->setValue(g->minReplicas);
        m_max->setValue(g->maxReplicas);
    }
    m_syncedGroup = g->qualifiedName();
    m_syncedReplicas = g->replicas;
    m_syncedMin = g->minReplicas;
    m_syncedMax = g->maxReplicas;
}

ScaleRequest ScaleDialog::request() const
{
    ScaleRequest r;
    r.workerGroup = workerGroup();
    const WorkerGroup *g = currentGroup();
    if (m_modeRemove->isChecked()) {
        r.mode = ScaleRequest::Mode::RemoveSlice;
        r.slice = m_removeSlice->currentData().toString();
    } else if (g && g->autoscaling) {
        r.mode = ScaleRequest::Mode::Bounds;
        r.minReplicas = m_min->value();
        r.maxReplicas = m_max->value();
    } else {
        r.mode = ScaleRequest::Mode::Replicas;
        r.replicas = m_replicas->value();
    }
    return r;
}

void ScaleDialog::updatePlan()
{
    const bool haveGroup = m_snapshot && !workerGroup().isEmpty();
    m_plan = haveGroup ? planScale(*m_snapshot, request()) : ScalePlan{};
    const QString red = m_theme.dead.name(), amber = m_theme.isDark ? QStringLiteral("#f2b632") : QStringLiteral("#b35900");
    QString html;
    if (isRunning() && m_snapshot) {
        // While it runs, the strip shows the cluster catching up with what was sent: new slices
        // appear in their own colours as the ghosts go, removed ones stay crossed out until gone.
        ScalePlan shown = m_sentPlan;
        const int gi = m_snapshot->workerGroupIndex(shown.group.fleetKey());
        int staying = 0;
        if (gi >= 0)
            for (const QString &name : m_snapshot->workerGroups[gi].slices)
                staying += shown.slicesRemoved.contains(name) ? 0 : 1;
        shown.slicesAdded = std::max(0, shown.toReplicas - staying);
        m_strip->setTiles(scaleTiles(*m_snapshot, shown));
        m_planLabel->setText(tr("<b>Sent:</b> %1<br>Following the cluster until it gets there.").arg(escaped(m_sentPlan.summary)));
        updateButtons();
        return;
    }
    m_strip->setTiles(haveGroup ? scaleTiles(*m_snapshot, m_plan) : QList<ScaleTile>{});
    if (!m_snapshot) {
        html = tr("No cluster data yet.");
    } else if (m_group->count() == 0) {
        html = tr("This cluster has no TPU worker groups (KubeRay's RayCluster lists none, or Kubernetes is not connected).");
    } else if (request().mode == ScaleRequest::Mode::RemoveSlice && request().slice.isEmpty() && currentGroup()
               && !currentGroup()->autoscaling) {
        html = tr("<b>No slice chosen.</b> Choose the slice to remove: nothing is picked for you.");
    } else if (!m_plan.allowed) {
        html = tr("<b style='color:%1'>Refused:</b> <span style='color:%1'>%2</span>").arg(red, escaped(m_plan.refusal));
    } else if (m_plan.noChange) {
        html = tr("<b>No change:</b> the group already is %1, within %2..%3. Pick another value.")
                   .arg(escaped(describeReplicas(m_plan.fromReplicas, m_plan.hostsPerSlice, m_plan.chipsPerHost)))
                   .arg(m_plan.fromMin)
                   .arg(scaleBound(m_plan.fromMax));
    } else {
        html = scalePlanHtml(m_plan, amber);
    }
    m_planLabel->setText(html);

    // An open review follows the newest snapshot: if its plan no longer holds, say so and show the
    // new one. The operator confirms what is on screen, never a plan that changed under them.
    if (m_reviewing && !isRunning() && !samePlan(m_plan, m_reviewPlan)) {
        // A review that removes slices is withdrawn, not re-armed, when those slices changed or the
        // rules now pick others: the operator reviews the new choice themselves.
        QStringList targets = removalTargetChanges(m_reviewPlan, *m_snapshot);
        if (targets.isEmpty() && !m_reviewPlan.slicesRemoved.isEmpty() && m_plan.slicesRemoved != m_reviewPlan.slicesRemoved)
            targets << tr("the slices to remove would now be %1, not %2")
                           .arg(m_plan.slicesRemoved.isEmpty() ? tr("none") : m_plan.slicesRemoved.join(QStringLiteral(", ")),
                                m_reviewPlan.slicesRemoved.join(QStringLiteral(", ")));
        if (!targets.isEmpty()) {
            cancelReview();
            m_panel->showMessage(MessageBar::Kind::Error, tr("Withdrawn, nothing was sent: %1 while you reviewed it. Review again.").arg(targets.join(QStringLiteral("; "))));
            updateButtons();
            return;
        }
        QStringList changes = scaleGroupChanges(m_reviewPlan.group, m_plan.group);
        if (changes.isEmpty())
            changes << tr("the slices' states changed");
        const QString what = changes.join(QStringLiteral("; "));
        if (m_plan.allowed && !m_plan.noChange) {
            openReview(tr("The group changed while you were reviewing (%1). This is the plan on the newest data.").arg(what));
        } else {
            cancelReview();
            m_panel->showMessage(MessageBar::Kind::Error, m_plan.allowed ? tr("The group changed while you were reviewing (%1); nothing would change now.").arg(what)
                                                                         : tr("The group changed while you were reviewing (%1): %2").arg(what, m_plan.refusal));
        }
    }
    updateButtons();
}

QString ScaleDialog::sendProblem() const
{
    if (!m_actions)
        return m_noActionsReason.isEmpty() ? tr("this source cannot scale worker groups") : m_noActionsReason;
    if (const WorkerGroup *g = currentGroup())
        return m_actions->scaleUnavailableReason(*g);
    return {};
}

void ScaleDialog::updateAvailability()
{
    const QString why = sendProblem();
    m_unavailable->setText(tr("Scaling is off: %1").arg(why));
    m_unavailable->setVisible(!why.isEmpty());
    updateButtons();
}

void ScaleDialog::updateButtons()
{
    const QString why = sendProblem();
    const bool editable = !m_reviewing && !isRunning() && m_snapshot;
    for (QWidget *w : std::initializer_list<QWidget *>{m_group, m_modeSize, m_modeRemove, m_replicas, m_min, m_max, m_removeSlice})
        w->setEnabled(editable);
    QString reviewTip;
    if (!why.isEmpty())
        reviewTip = why;
    else if (isRunning())
        reviewTip = tr("a scale is in progress");
    else if (!m_plan.allowed)
        reviewTip = m_plan.refusal;
    else if (m_plan.noChange)
        reviewTip = tr("nothing would change");
    m_reviewButton->setEnabled(editable && reviewTip.isEmpty());
    m_reviewButton->setToolTip(reviewTip);
    m_panel->setConfirmAllowed(!isRunning() && why.isEmpty(), why);
}

void ScaleDialog::openReview(const QString &notice)
{
    if (!m_plan.allowed || m_plan.noChange || !sendProblem().isEmpty())
        return;
    m_reviewPlan = m_plan;
    m_reviewing = true;
    const ScalePlan &p = m_reviewPlan;
    QString title = tr("<b>Review:</b> %1").arg(escaped(p.summary));
    if (!notice.isEmpty())
        title = tr("<span style='color:%1'><b>%2</b></span><br>").arg(m_theme.dead.name(), escaped(notice)) + title;
    m_panel->openReview(title, scaleReviewText(p), scaleConfirmText(p, request().mode));
    showReviewArea(true);
    updateButtons();
}

void ScaleDialog::showReviewArea(bool shown)
{
    // The review repeats the preview's words and has its own buttons: it takes their room.
    if (!shown)
        m_panel->closeReview();
    m_planLabel->setVisible(!shown);
    m_buttonRow->setVisible(!shown);
    m_layout->setStretch(m_layout->count() - 1, shown ? 0 : 1);
}

void ScaleDialog::cancelReview()
{
    m_reviewing = false;
    showReviewArea(false);
    updateButtons();
}

void ScaleDialog::confirmReview()
{
    if (!m_panel->isConfirmEnabled() || !m_actions)
        return;
    const ScalePlan plan = m_reviewPlan; // exactly what the review showed
    // Right before sending: the slices it removes are still the ones reviewed, on the newest
    // snapshot this dialog has. Otherwise nothing is sent.
    if (const QStringList targets = m_snapshot ? removalTargetChanges(plan, *m_snapshot) : QStringList(); !targets.isEmpty()) {
        if (plan.slicesRemoved.contains(m_chosen.name))
            clearChosenSlice();
        cancelReview();
        m_panel->showMessage(MessageBar::Kind::Error, tr("Not sent: %1 since you reviewed it. Choose again.").arg(targets.join(QStringLiteral("; "))));
        updatePlan();
        return;
    }
    m_reviewing = false;
    showReviewArea(false);
    m_sentPlan = plan;
    m_actionId = QStringLiteral("scale-%1").arg(++m_actionCounter);
    m_panel->startLog(tr("sent: %1").arg(plan.summary));
    m_panel->showMessage(MessageBar::Kind::Warning, tr("Scaling %1...").arg(plan.group.qualifiedName()));
    updateButtons();
    m_actions->scaleWorkerGroup(m_actionId, plan);
}

void ScaleDialog::onActionProgress(const QString &actionId, const QString &text)
{
    if (actionId != m_actionId)
        return;
    m_panel->appendLog(text);
    m_panel->showMessage(MessageBar::Kind::Warning, text);
}

void ScaleDialog::onActionFinished(const QString &actionId, bool ok, const QString &message)
{
    if (actionId != m_actionId)
        return;
    m_actionId.clear();
    m_panel->appendLog(ok ? tr("done: %1").arg(message) : tr("failed: %1").arg(message));
    m_panel->showMessage(ok ? MessageBar::Kind::Success : MessageBar::Kind::Error, message);
    // The controls start again from the group as it is now (a removed slice is not offered again).
    if (ok)
        clearChosenSlice();
    m_syncedGroup.clear();
    fillGroups();
    syncControlsToGroup();
    updatePlan();
}

void ScaleDialog::onActionConflict(const QString &actionId, const QStringList &changes, const QString &message)
{
    if (actionId != m_actionId)
        return;
    m_actionId.clear();
    QStringList shown;
    for (const QString &change : changes)
        shown << tr("%1 (someone else changed it)").arg(change);
    const QString what = shown.isEmpty() ? message : shown.join(QStringLiteral("; "));
    m_panel->appendLog(tr("not applied: %1").arg(message));
    // A removal whose slice changed is not offered again: the choice goes and the operator chooses.
    if (m_snapshot)
        if (const QStringList targets = removalTargetChanges(m_sentPlan, *m_snapshot); !targets.isEmpty()) {
            if (m_sentPlan.slicesRemoved.contains(m_chosen.name))
                clearChosenSlice();
            updatePlan();
            m_panel->showMessage(MessageBar::Kind::Error, tr("Not applied, nothing was changed: %1; %2. Choose again.").arg(what, targets.join(QStringLiteral("; "))));
            return;
        }
    // Re-plan the same request on the newest snapshot and ask again; never re-send by ourselves.
    updatePlan();
    if (m_plan.allowed && !m_plan.noChange) {
        m_panel->showMessage(MessageBar::Kind::Error, tr("Not applied, nothing was changed: %1.").arg(what));
        openReview(tr("Someone else changed the group. This is the plan on the newest data: confirm again if it is still what you want."));
    } else {
        m_panel->showMessage(MessageBar::Kind::Error, tr("Nothing was changed: %1. %2").arg(what, m_plan.allowed ? tr("Nothing would change now.") : m_plan.refusal));
    }
}

QString ScaleDialog::messageText() const
{
    return m_panel->messageText();
}

QString ScaleDialog::unavailableText() const
{
    return m_unavailable->isHidden() ? QString() : m_unavailable->text();
}

} // namespace slicescope
