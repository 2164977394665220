// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Everything the window shows below its menu: the fleet overview, the 3D slice view with its
// controls, the tables, and the details panel. The window, `slicescope screenshot` and the
// golden-image tests all render this same widget.

#include "look.h"
#include "snapshot.h"

#include <QHash>
#include <QPointer>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QToolButton;
class QSlider;
class QSpinBox;
class QSplitter;
class QStackedWidget;

namespace slicescope {

class DetailsPanel;
class FleetOverview;
class FleetTables;
class MessageBar;
class NavRail;
class NavRailButton;
class SliceView;
class SnapshotHistory;

class Workspace : public QWidget
{
    Q_OBJECT
public:
    enum class Page
    {
        Overview,
        Slice,
        Tables
    };
    Q_ENUM(Page)

    explicit Workspace(QWidget *parent = nullptr);

    void setSnapshot(const SnapshotPtr &snapshot);
    const SnapshotPtr &snapshot() const { return m_snapshot; }

    void showPage(Page page);
    Page page() const;
    // Opens a slice in the slice view (and selects it everywhere). False when unknown.
    bool showSlice(const QString &sliceName);
    QString currentSlice() const { return m_slice; }
    // Selects a host of the current slice in the view and shows it in the details panel.
    void selectHost(int workerId);

    void setColorMode(ColorMode mode);
    ColorMode colorMode() const;
    // What the Activity mode shows (its own picker beside the colour picker, shown in that mode).
    void setActivityMetric(ActivityMetric metric);
    ActivityMetric activityMetric() const;
    // Reserved-but-idle chips by slice name (the alert engine's), outlined in the slice view.
    void setIdleChips(const QHash<QString, QList<IdleChip>> &bySlice);
    // Active alerts by slice name: a count badge on each tile of the overview.
    void setAlertCounts(const QHash<QString, int> &bySlice);
    // The window's history (not owned; null for none): each overview tile draws its slice's
    // recent mean duty cycle up to the shown snapshot's entry (FleetOverview::recentActivity()),
    // read again on every setSnapshot(), so add a live snapshot to the history before showing it.
    // A snapshot that is not one of its entries (a screenshot, a single capture) gets none.
    void setHistory(const SnapshotHistory *history);
    const SnapshotHistory *history() const;
    void setTheme(const Theme &theme);
    const Theme &theme() const { return m_theme; }

    // The first-run hint strip above the overview (issue 17): three things to try, as links
    // (hintLinkActivated: "slice", "palette", "reserve"); its close button dismisses it
    // (firstRunHintDismissed). Hidden until the window shows it (MainWindow, once per user).
    void setFirstRunHintVisible(bool visible);
    bool isFirstRunHintVisible() const;
    QWidget *firstRunHint() const { return m_hint; }

    SliceView *sliceView() const { return m_sliceView; }
    FleetOverview *overview() const { return m_overview; }
    FleetTables *tables() const { return m_tables; }
    DetailsPanel *details() const { return m_details; }
    QSplitter *splitter() const { return m_splitter; }
    NavRail *rail() const { return m_rail; }
    // The rail's History entry: hidden until the window ties it to its History dock
    // (MainWindow), since the workspace alone has no history panel.
    NavRailButton *historyButton() const { return m_historyButton; }

Q_SIGNALS:
    void currentSliceChanged(const QString &sliceName);
    void hintLinkActivated(const QString &link);
    void firstRunHintDismissed();

private:
    QWidget *makeOverviewPage();
    QWidget *makeSlicePage();
    QWidget *makeFirstRunHint(QWidget *parent);
    void onHostSelected(const QString &sliceName, int workerId);
    void syncLayerControls();
    void updateActivityHistory();

    SnapshotPtr m_snapshot;
    QString m_slice;
    Theme m_theme = Theme::light();
    QSplitter *m_splitter = nullptr;
    QStackedWidget *m_pages = nullptr;
    NavRail *m_rail = nullptr;
    QWidget *m_hint = nullptr;
    MessageBar *m_hintText = nullptr;
    NavRailButton *m_historyButton = nullptr;
    FleetOverview *m_overview = nullptr;
    SliceView *m_sliceView = nullptr;
    FleetTables *m_tables = nullptr;
    DetailsPanel *m_details = nullptr;
    QComboBox *m_sliceCombo = nullptr;
    QStringList m_sliceNames; // what m_sliceCombo lists
    QComboBox *m_colorCombo = nullptr;
    QComboBox *m_activityCombo = nullptr; // duty cycle / HBM used, shown in Activity mode
    QHash<QString, QList<IdleChip>> m_idleChips;
    QPointer<const SnapshotHistory> m_history;
    QMetaObject::Connection m_historyCleared;
    QSlider *m_explode = nullptr;
    QSpinBox *m_zFirst = nullptr;
    QSpinBox *m_zLast = nullptr;
    QCheckBox *m_links = nullptr;
    QLineEdit *m_search = nullptr;
    QList<std::pair<QToolButton *, SliceStatus>> m_statusButtons;
};

} // namespace slicescope
