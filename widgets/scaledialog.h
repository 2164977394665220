// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// "Scale worker group": change how many slices a KubeRay TPU worker group has, or remove one
// chosen slice (docs/facts.md 4, 4.1). The what-if answer is planScale()'s, live on every snapshot and
// drawn as a strip of slice tiles (new ones as ghosts, removed ones crossed out); a review shows
// the summary and the exact JSON Patch, and nothing is sent before its confirm button. When
// someone else changed the group meanwhile, the dialog says what changed, re-plans on the newest
// snapshot and asks again: it never re-sends by itself.
//
// A non-modal dialog, opened with show() and never exec() (no nested event loop, docs/style.md 8):
// scaling is one group at a time and needs no highlights in the overview, unlike reserving, so
// it does not take a dock's room; the window stays usable beside it.

#include "clusteractions.h"
#include "look.h"
#include "messagebar.h"
#include "scalepreviewstrip.h"
#include "scaleplan.h"
#include "snapshot.h"

#include <QDialog>
#include <QPointer>
#include <QWidget>

class QComboBox;
class QLabel;
class QVBoxLayout;
class QPushButton;
class QRadioButton;
class QSpinBox;
class QStackedWidget;

namespace slicescope {

class ReviewPanel;

class ScaleDialog : public QDialog
{
    Q_OBJECT
public:
    explicit ScaleDialog(QWidget *parent = nullptr);

    // Keeps the group list, the preview and an open review current. While the dialog is hidden
    // (and nothing is under review or running) the snapshot is only kept, and applied on show.
    void setSnapshot(const SnapshotPtr &snapshot);
    // Who carries out the change; null disables sending, with `reason` shown.
    void setActions(ClusterActions *actions, const QString &reason = {});
    void setTheme(const Theme &theme);

    // Picks the group ("ns/cluster/group"); false when the snapshot has no such TPU group, or
    // while a review or an action holds the current one.
    bool setWorkerGroup(const QString &qualifiedGroup);
    // Picks the group of `sliceName` and preselects the slice for removal, unless a placement
    // group holds it (then no slice is chosen, and the message bar says why); false when the slice
    // belongs to no TPU worker group. The choice is kept by name: if a new snapshot shows that
    // slice gone or changed (hosts, state, placement groups on it), it is cleared, a review that
    // would remove it is withdrawn, and the message bar says so. It never moves to another slice.
    bool preselectSlice(const QString &sliceName);
    // The slice chosen for removal, as it was when chosen (empty name: none).
    const SliceTarget &chosenSlice() const { return m_chosen; }
    QString workerGroup() const; // "ns/cluster/group"; in a fleet of several contexts "context:ns/cluster/group"

    // The request as the controls say it, and planScale()'s answer on the current snapshot.
    ScaleRequest request() const;
    const ScalePlan &plan() const { return m_plan; }
    bool isReviewing() const { return m_reviewing; }
    bool isRunning() const { return !m_actionId.isEmpty(); }
    // The message bar (progress, outcome, conflict), and why changing is off (empty when on).
    QString messageText() const;
    QString unavailableText() const;

Q_SIGNALS:
    // An action started, progressed or finished (the window shows it in the status bar).
    void actionStatusChanged(const QString &text);
    void actionUnderWay(bool underWay); // ReviewPanel::actionUnderWay

protected:
    void showEvent(QShowEvent *event) override;

private:
    void refresh();
    void fillGroups();
    void onGroupChanged();
    void onRemoveSliceChosen();
    void clearChosenSlice();
    void checkChosenSlice();
    void syncControlsToGroup();
    void updatePlan();
    void updateAvailability();
    QString sendProblem() const;
    void openReview(const QString &notice = {});
    void cancelReview();
    void showReviewArea(bool shown);
    void confirmReview();
    void updateButtons();
    void onActionProgress(const QString &actionId, const QString &text);
    void onActionFinished(const QString &actionId, bool ok, const QString &message);
    void onActionConflict(const QString &actionId, const QStringList &changes, const QString &message);
    void showPickerMessage(MessageBar::Kind kind, const QString &text);
    const WorkerGroup *currentGroup() const;

    SnapshotPtr m_snapshot;
    bool m_stale = false;         // m_snapshot is newer than what the controls show
    QPointer<ClusterActions> m_actions;
    QString m_noActionsReason;
    Theme m_theme = Theme::light();
    ScalePlan m_plan;
    ScalePlan m_reviewPlan;       // what the open review shows, exactly what confirm sends
    ScalePlan m_sentPlan;         // what the running action carries out
    bool m_reviewing = false;
    SliceTarget m_chosen;         // the slice chosen for removal, as it was when chosen
    bool m_pickerMessage = false; // the message bar speaks of the picker (hidden on the next pick)
    QString m_syncedGroup;        // the group the spin boxes were last set from, and its values
    int m_syncedReplicas = 0, m_syncedMin = 0, m_syncedMax = 0;
    int m_actionCounter = 0;
    QString m_actionId;           // non-empty while an action runs

    QVBoxLayout *m_layout = nullptr;
    QComboBox *m_group = nullptr;
    QLabel *m_current = nullptr;
    QRadioButton *m_modeSize = nullptr;
    QRadioButton *m_modeRemove = nullptr;
    QStackedWidget *m_modePages = nullptr;
    QSpinBox *m_replicas = nullptr;
    QSpinBox *m_min = nullptr;
    QSpinBox *m_max = nullptr;
    QLabel *m_autoscalerNote = nullptr;
    QComboBox *m_removeSlice = nullptr;
    ScalePreviewStrip *m_strip = nullptr;
    QLabel *m_planLabel = nullptr;
    MessageBar *m_unavailable = nullptr;
    QWidget *m_buttonRow = nullptr;
    QPushButton *m_reviewButton = nullptr;
    QPushButton *m_closeButton = nullptr;
    ReviewPanel *m_panel = nullptr; // the review, the message bar, the progress log
};

} // namespace slicescope
