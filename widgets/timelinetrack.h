// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The timeline's painted track (the scrubber proper): one lane per kind of change, a tick per
// entry in which something of that kind changed, coloured by its tone, the UTC axis and the
// cursor. Lanes, ticks and axis are painted once into a cached pixmap; only the cursor is drawn
// on every paint. Mouse and keyboard only say where the reader wants to go (signals): the
// Timeline owns the position.

#include "historyeventmodel.h"
#include "look.h"
#include "timelinegeometry.h"

#include <QPixmap>
#include <QWidget>

namespace slicescope {

class SnapshotHistory;

// The painted track (the scrubber proper). Its cursor is the Timeline's position.
class TimelineTrack : public QWidget
{
    Q_OBJECT
public:
    explicit TimelineTrack(QWidget *parent = nullptr);

    void setModel(const HistoryEventModel *model, const SnapshotHistory *history);
    void setTheme(const Theme &theme);
    // The entry under the cursor (-1: none) and whether the cursor follows the newest one.
    void setCursor(int index, bool live);
    TimelineGeometry geometry() const;
    // The nearest entry to an x position, or -1 when the history is empty.
    int entryAtX(double x) const;
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
    void drawCursor(QPainter &painter, const TimelineGeometry &g) const;
    int laneTop(int lane) const;
    int laneHeight() const;
    void invalidate();

    const HistoryEventModel *m_model = nullptr;
    const SnapshotHistory *m_history = nullptr;
    Theme m_theme = Theme::light();
    int m_cursor = -1;
    bool m_live = true;
    bool m_dragging = false;
    QPixmap m_cache; // background, lanes, ticks and axis: redrawn only when the history changes
};

} // namespace slicescope
