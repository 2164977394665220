// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The "Reserve slices" panel: compose a slice placement group, see the planner's what-if answer
// live (highlighted in the overview and the slice view), review exactly what will run, confirm,
// and follow Ray's progress to the observed result. Also releases placement groups.
// Confirmation is inline (the review panel, reviewpanel.h), never a modal box: no nested event
// loop, and tests click the same buttons people do.

#include "clusteractions.h"
#include "look.h"
#include "planner.h"
#include "snapshot.h"
#include "whypendingpanel.h"

#include <QPointer>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace slicescope {

class ReviewPanel;
class Workspace;

class SliceComposer : public QWidget
{
    Q_OBJECT
public:
    explicit SliceComposer(QWidget *parent = nullptr);

    void setSnapshot(const SnapshotPtr &snapshot);
    // Where the what-if answer is drawn (overview tiles, hosts in the slice view); may be null.
    void setWorkspace(Workspace *workspace);
    // Who carries out the actions; null (or unavailable) disables submitting, with `reason` shown.
    void setActions(ClusterActions *actions, const QString &reason = {});
    // In a fleet: reserve on this RayCluster (the one of the slice being looked at, when the
    // composer opens). False when its Ray is not among those that answered, or under review.
    bool chooseRayCluster(const QString &context, const QString &rayCluster);
    // The message bar's colours (look.h).
    void setTheme(const Theme &theme);

    // The request as currently composed, and the planner's answer for it.
    SlicePlacementRequest request() const;
    const PlanResult &plan() const { return m_plan; }
    // Slices highlighted now: the plan's, or the created group's once it exists.
    QStringList highlightedSlices() const { return m_highlighted; }
    QString messageText() const;
    bool isReviewing() const;
    // Open: shown, or shown within a window that is only rendered (screenshots). The plan's
    // highlights are drawn exactly while it is open, from the moment it opens.
    bool isOpen() const;

    // Opens the release review for a placement group (from the tables or the details panel).
    void reviewRelease(const QString &nameOrId);
    // The id picked in the panel's own list of placement groups ("" when none is chosen). The
    // choice is kept by id: when that group disappears or changes, it is cleared (never moved to
    // another row), a release review for it is withdrawn, and the message bar says so.
    QString selectedReleaseGroup() const;

Q_SIGNALS:
    // An action started or finished (the window may show it in the status bar).
    void actionStatusChanged(const QString &text);
    void actionUnderWay(bool underWay); // ReviewPanel::actionUnderWay

protected:
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;
    bool event(QEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    enum class Pending
    {
        None,
        Submit,
        Release
    };
    void fillTopologies();
    void onShapeChanged();
    void onEdited();
    void updatePlan();
    void applyHighlights(const QStringList &slices);
    void reviewSubmit();
    void confirmReview();
    void cancelReview();
    void updateConfirmEnabled();
    void fillReleaseGroups();
    void fillRayClusters();
    void chooseReleaseGroup(const QString &id);
    QString releaseChoiceChange() const;
    void refuse(const QString &text);
    void onTpuOptionsChanged();
    void onActionProgress(const QString &actionId, const QString &text);
    void onActionFinished(const QString &actionId, bool ok, const QString &message);
    QString composeProblem() const;

    SnapshotPtr m_snapshot;
    QPointer<Workspace> m_workspace;
    QPointer<QWidget> m_watchedParent; // the dock: its ShowToParent/HideToParent open and close us
    QPointer<ClusterActions> m_actions;
    QString m_unavailable;
    PlanResult m_plan;
    QStringList m_highlighted;
    QString m_resultGroup;       // after a submit: the group whose slices stay highlighted
    int m_actionCounter = 0;
    QString m_actionId;
    Pending m_pending = Pending::None;
    Pending m_reviewing = Pending::None;
    QString m_releaseTarget;     // id of the group under release review
    QString m_releaseChoice;     // id chosen in the release list
    QString m_releaseChoiceSeen; // that group as it was when chosen (name, state, slices, bundles)
    QString m_selectCreated;     // after a successful submit: the group to choose once listed
    QString m_outcome;           // the last successful reservation, shown until the request is edited
    SlicePlacementRequest m_reviewedRequest;
    QStringList m_reviewedTake;  // the slices the plan under review would take

    QComboBox *m_accelerator = nullptr;
    QComboBox *m_topology = nullptr;
    QSpinBox *m_numSlices = nullptr;
    QDoubleSpinBox *m_cpu = nullptr;
    QComboBox *m_tpu = nullptr;
    QComboBox *m_chipsPerVm = nullptr;
    QComboBox *m_strategy = nullptr;
    QComboBox *m_rayCluster = nullptr; // in a view of several RayClusters' Rays: the one to reserve in (issue 16)
    QLabel *m_rayClusterLabel = nullptr;
    QLineEdit *m_name = nullptr;
    QCheckBox *m_detached = nullptr;
    QSpinBox *m_timeout = nullptr;
    QLabel *m_planLabel = nullptr;
    QPushButton *m_reviewButton = nullptr;
    QComboBox *m_releaseGroup = nullptr;
    QPushButton *m_releaseButton = nullptr;
    ReviewPanel *m_panel = nullptr; // the review, the message bar
};

} // namespace slicescope
