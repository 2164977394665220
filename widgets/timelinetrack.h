// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The timeline's painted track (the scrubber proper): one lane per kind of change, a tick per
// entry in which something of that kind changed, coloured by its tone, the UTC axis and the
// cursor. Above the lanes, the "Alerts" row: a triangle where each alert began (AlertTickLog),
// coloured by its severity, so alerts never read as one of the history's change marks. Lanes,
// ticks and axis are painted once into a cached pixmap; only the cursor is drawn on every paint.
// Mouse and keyboard only say where the reader wants to go (signals): the Timeline owns the
// position.

#include "alertticks.h"
#include "historyeventmodel.h"
#include "look.h"
#include "timelinegeometry.h"

#include <QPixmap>
#include <QWidget>

#include <limits>

namespace slicescope {

class SnapshotHistory;

// The painted track (the scrubber proper). Its cursor is the Timeline's position.
class TimelineTrack : public QWidget
{
    Q_OBJECT
public:
    explicit TimelineTrack(QWidget *parent = nullptr);

    void setModel(const HistoryEventModel *model, const SnapshotHistory *history);
    // Not owned; may be null. Call alertTicksChanged() when it changed.
    void setAlertTicks(const AlertTickLog *ticks);
    void alertTicksChanged();
    void setTheme(const Theme &theme);
    // The entry under the cursor (-1: none) and whether the cursor follows the newest one.
    void setCursor(int index, bool live);
    TimelineGeometry geometry() const;
    // The nearest entry to an x position, or -1 when the history is empty.
    int entryAtX(double x) const;
    // The alert row, above the lanes (within geometry().plot).
    QRect alertRow() const;
    // The alert tick under `pos` (index into the log's ticks: the nearest within a few pixels of
    // the alert row, the most severe of those at one place), or -1.
    int alertTickAt(const QPointF &pos) const;
    // What hovering `pos` in the alert row says: the sentences of the alerts that began there
    // (most severe first); empty where no tick is near.
    QString alertToolTip(const QPointF &pos) const;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    // The user pressed or dragged to this entry (index), or released the mouse there.
    void scrubbed(int index);
    void released(int index);
    // Keyboard: step entries (+1/-1), changes (+2/-2 as "next/previous change"), Home, End.
    void keyStep(int step);
    void homePressed();
    void endPressed();
    // An alert tick was clicked (index into the log's ticks); the track does not scrub for it.
    void alertTickClicked(int index);

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    bool event(QEvent *event) override;

private:
    void drawBackground(QPainter &painter, const TimelineGeometry &g) const;
    void drawAxis(QPainter &painter, const TimelineGeometry &g) const;
    void drawTicks(QPainter &painter, const TimelineGeometry &g) const;
    // Every tick, or (nearX not NaN) those within a few pixels of nearX.
    void drawAlertTicks(QPainter &painter, const TimelineGeometry &g, double nearX = std::numeric_limits<double>::quiet_NaN()) const;
    // Ticks within the hit distance of x, nearest first, then the most severe.
    QList<int> alertTicksNear(double x) const;
    void drawCursor(QPainter &painter, const TimelineGeometry &g) const;
    int laneTop(int lane) const;
    int laneHeight() const;
    void invalidate();

    const HistoryEventModel *m_model = nullptr;
    const SnapshotHistory *m_history = nullptr;
    const AlertTickLog *m_alertTicks = nullptr;
    Theme m_theme = Theme::light();
    int m_cursor = -1;
    bool m_live = true;
    bool m_dragging = false;
    QPixmap m_cache; // background, lanes, ticks and axis: redrawn only when the history changes
};

} // namespace slicescope
