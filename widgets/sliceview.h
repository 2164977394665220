// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One TPU slice as a 3D grid of chips in the canonical logical layout (docs/facts.md 3), coloured by
// worker id, bundle occupancy or state. Geometry lives in SliceProjection (sliceprojection.h),
// shared by painting, tooltips and mouse handling.
//
// Chips are boxes on their host's board (a tray coloured red/amber/hollow for a DEAD, PENDING or
// MISSING host; a MISSING host's chips are hollow ghosts), ICI links span the gaps, wrap edges
// stick out of the slice's faces, dashed. Interaction: left-drag turns, wheel zooms about the
// cursor, right/middle/shift-drag pans, double-click or Home resets; arrows turn, +/- zoom, 1/2/3
// pick the isometric/top/front camera, PageUp/PageDown browse z-layers (from the whole slice:
// PageDown shows the top layer alone, PageUp the bottom one), E toggles explode, L links,
// Tab/Shift+Tab or ]/[ select the next/previous worker, Escape clears the selection; clicking a
// chip selects its host; hovering shows who holds the chip.

#include "look.h"
#include "sliceprojection.h"
#include "snapshot.h"

#include <QWidget>

namespace slicescope {

class SliceView : public QWidget
{
    Q_OBJECT
public:
    enum class Preset
    {
        Isometric,
        Top,
        Front
    };
    Q_ENUM(Preset)

    explicit SliceView(QWidget *parent = nullptr);
    ~SliceView() override;

    // Shows `sliceName` of `snapshot` (empty name: nothing). Keeps the camera when the same slice
    // is shown again in a newer snapshot.
    void setSlice(const SnapshotPtr &snapshot, const QString &sliceName);
    QString sliceName() const;

    void setColorMode(ColorMode mode);
    ColorMode colorMode() const;
    // What the Activity colour mode shows: duty cycle (the default) or HBM used of HBM total.
    void setActivityMetric(ActivityMetric metric);
    ActivityMetric activityMetric() const;
    // Chips of the shown slice reserved but idle (model/alerts.h judges): outlined in every colour
    // mode and counted in the legend. Positions out of range are ignored. Kept while the same
    // slice is shown (newer snapshots included), dropped when another slice is; empty clears.
    void setIdleChips(const QList<IdleChip> &chips);
    QList<IdleChip> idleChips() const;
    void setTheme(const Theme &theme);

    // Camera.
    void setPreset(Preset preset);
    void resetView();
    const SliceProjection &projection() const;
    // Sets the whole camera (rotation, zoom, pan, explode, layers); the dims stay the slice's.
    void setProjection(const SliceProjection &projection);

    // Interior visibility: gap between z-layers (0 = solid, 1 = one chip of space) and the
    // z-range shown (inclusive).
    void setExplode(double gap);
    double explode() const;
    void setLayerRange(int zFirst, int zLast);
    int layerFirst() const;
    int layerLast() const;

    void setLinksVisible(bool visible);   // ICI links, wrap edges included where the generation has them
    bool linksVisible() const;
    void setLegendVisible(bool visible);

    // Selection: a host (worker id), or -1.
    void selectHost(int workerId);
    int selectedHost() const;

    // Highlight chips a what-if plan would take (issue: composer); empty clears.
    void setHighlightedHosts(const QList<int> &workerIds);
    QList<int> highlightedHosts() const;

    // Whether the keyboard's focus ring is drawn: the view has the focus and it came from the
    // keyboard (Tab, a shortcut) or a key was pressed since; a click alone shows none.
    bool showsFocusRing() const;

    // Where the legend is drawn at the widget's size (empty when hidden), and its lines' texts.
    QRectF legendRect() const;
    QStringList legendTexts() const;

    // The text of the tooltip for the chip at a widget position (empty when none): what hover shows.
    QString tooltipAt(QPoint position) const;

    // Renders the view into `painter` at `size` (PNG and SVG export, screenshots). A size other
    // than the widget's keeps the camera, scaled to the new size. Vector devices (SVG) get
    // polygons instead of sprites.
    void render(QPainter &painter, QSize size);

    // How chips are painted. Sprites (the default): each chip blitted back to front from a
    // pre-rendered cube per colour, hidden interior chips skipped. Polygons: every chip drawn as
    // three antialiased polygons, nothing skipped: the deliberately naive baseline of
    // `slicescope-bench render`, kept here so both paths share everything else.
    enum class ChipPainting
    {
        Sprites,
        Polygons
    };
    void setChipPainting(ChipPainting painting);
    ChipPainting chipPainting() const;

    QSize sizeHint() const override;

Q_SIGNALS:
    // The user picked a host (click, Tab/Shift+Tab, [ or ]); -1 when Escape cleared the selection.
    // Not emitted by selectHost().
    void hostSelected(const QString &sliceName, int workerId);
    // The camera or the visible layers changed (drag, wheel, keys, presets, setters).
    void projectionChanged();

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void focusInEvent(QFocusEvent *event) override;
    void focusOutEvent(QFocusEvent *event) override;
    bool event(QEvent *event) override; // tooltips

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace slicescope
