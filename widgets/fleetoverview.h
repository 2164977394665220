// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Every slice of the fleet as a tile, grouped by generation and worker group, with status badges
// (ready, reserved, degraded, provisioning), occupancy bars, search and filter, and a
// fragmentation summary (model/fleetstats.h). When the snapshot carries activity, each tile also
// shows its slice's mean duty cycle and how many chips report ("duty 43 % · 16/16"), and, given
// the slice's recent history (setActivityHistory()), a sparkline of that mean in place of the
// small gauge: 0..100 % bottom to top, broken where the mean was unknown.

#include "fleetgrouping.h"
#include "fleetstats.h"
#include "look.h"
#include "snapshot.h"

#include <QHash>
#include <QList>
#include <QPointF>
#include <QPolygonF>
#include <QWidget>

#include <memory>

namespace slicescope {

class SnapshotHistory;

// Scrolls itself (a vertical scroll bar appears when the tiles do not fit) and paints only the
// tiles in view, so it stays fast for thousands of slices. Keyboard: arrows move the current
// tile, Home/End, Page Up/Down scroll, Enter activates. heightForWidth() reports the full content
// height; set a height-for-width size policy only if a QScrollArea should do the scrolling instead.
class FleetOverview : public QWidget
{
    Q_OBJECT
public:
    explicit FleetOverview(QWidget *parent = nullptr);
    ~FleetOverview() override;

    void setSnapshot(const SnapshotPtr &snapshot);
    void setTheme(const Theme &theme);
    // Text filter and status filter; a slice is shown when it passes both. Text: every
    // whitespace-separated word must occur (case-insensitive) in the slice's name,
    // generation, topology, shape ("v6e 4x4"), pod type, worker group, status or use word
    // ("partly used"), holders or problems ("dead").
    void setFilterText(const QString &text);
    QString filterText() const;
    void setStatusFilter(const QList<SliceStatus> &shown); // empty: all
    QList<SliceStatus> statusFilter() const;
    // Tiles of these slices are drawn highlighted (a what-if plan); empty clears.
    void setHighlightedSlices(const QStringList &names);
    QStringList highlightedSlices() const;
    // Active alerts by slice name: a count badge on the tile's top edge (0 or absent: none).
    void setAlertCounts(const QHash<QString, int> &bySlice);
    QHash<QString, int> alertCounts() const;
    // Each slice's recent mean duty cycle, oldest first: x is the entry's time (ms since the
    // epoch), y the percentage, NaN where it was unknown (no chip reported, the slice was not
    // there, or the capture had no activity). A tile draws it when at least 2 values are known
    // (one value is no history: the figure beside it says that much).
    void setActivityHistory(const QHash<QString, QList<QPointF>> &bySlice);
    QHash<QString, QList<QPointF>> activityHistory() const;
    // That series for every slice of entry `last`'s activity table, over the entries up to it:
    // at most `maxEntries`, none more than `maxSpanMs` older than it. Empty when entry `last` has
    // no activity table. What Workspace feeds setActivityHistory() from the window's history.
    static constexpr int kSparklineEntries = 30;
    static constexpr qint64 kSparklineSpanMs = 15 * 60 * 1000;
    static QHash<QString, QList<QPointF>> recentActivity(const SnapshotHistory &history, int last, int maxEntries = kSparklineEntries,
                                                         qint64 maxSpanMs = kSparklineSpanMs);
    // A tile's shape line as it fits `width`: the first of `shapes` (longest first: FleetEntry's
    // shapeText, then its shorterShapes) that fits, whole; only when none does, the last one ending in "…".
    static QString fittedShape(const QStringList &shapes, const QFontMetrics &metrics, int width);
    // The sparkline on a slice's tile as painted, in widget coordinates: one polyline per run of
    // known values (a lone value is a one-point polygon, drawn as a dot); empty when none is drawn.
    QList<QPolygonF> sparkline(const QString &sliceName) const;
    // The marked tile (the slice shown in the slice view). Scrolls it into view when it changes,
    // not when the same name is set again (the window re-sets it on every refresh).
    void setCurrentSlice(const QString &name);
    QString currentSlice() const;
    void scrollToSlice(const QString &sliceName);

    // What is shown: slice names in display order (group by group) and the group titles
    // ("v6e · ml/tpu-team/v6e-4x4"), after filtering. Slices of a collapsed group or section are
    // not shown; their group's header is (a collapsed section's groups' headers are not).
    QStringList shownSlices() const;
    QStringList groupTitles() const;
    // A fleet's sections (issue 16), each a header with its figures above its groups: contexts
    // (or RayClusters, in one context), or generations when switched to generation first. Empty
    // for one cluster. sectionText(): the figures its header shows ("4 slices · 3 ready · ...").
    QStringList sectionTitles() const;
    QString sectionText(const QString &sectionTitle) const;
    void setOrder(FleetOrder order);
    FleetOrder order() const;
    // Folding: a click on a header collapses its group or section (its header stays, with its
    // count) and a second click opens it. A slice opened or scrolled to opens its group again.
    // By title: every header of that title (a group title may repeat in two sections).
    void setCollapsed(const QString &title, bool collapsed);
    bool isCollapsed(const QString &title) const;
    QRect headerRect(const QString &title) const; // widget coordinates; invalid when not shown
    // What is folded, by stable key (FleetGroup::key / FleetSection::key): for saving between runs.
    QStringList collapsedKeys() const;
    void setCollapsedKeys(const QStringList &keys);
    // The summary the band at the top shows.
    FleetStats stats() const;
    // The tooltip text (HTML) at a widget position, empty when none: what hovering shows.
    QString toolTipAt(QPoint position) const;

    // The slice whose tile is at a widget position, or empty (for tests and tooltips).
    QString sliceAt(QPoint position) const;
    // The tile rectangle of a slice in widget coordinates (invalid when filtered out).
    QRect tileRect(const QString &sliceName) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    int heightForWidth(int width) const override;

Q_SIGNALS:
    void sliceActivated(const QString &sliceName); // clicked, or Enter: open it in the slice view
    void currentSliceChanged(const QString &sliceName); // the marked tile moved (arrows, click, setCurrentSlice)
    void collapsedChanged(); // a header was clicked, or setCollapsed() changed what is folded

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void changeEvent(QEvent *event) override;
    bool event(QEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void leaveEvent(QEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace slicescope
