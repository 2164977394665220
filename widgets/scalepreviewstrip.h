// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The scale dialog's preview strip: a plan drawn as slice tiles, the group's slices in their
// status colours, the ones a plan removes crossed out and the ones it adds as dashed ghosts; its
// geometry (shared by painting, tooltips and tests) and the tiles of a plan.

#include "look.h"
#include "scaleplan.h"
#include "snapshot.h"

#include <QWidget>

class QPainter;

namespace slicescope {

// One tile of the preview strip.
struct ScaleTile {
    enum class Kind
    {
        Existing, // stays: solid, in its status colour
        Added,    // a slice the plan adds: a dashed ghost labelled "new"
        Removed,  // a slice the plan removes: crossed out in red
    };
    Kind kind = Kind::Existing;
    QString name;                          // empty for Added
    SliceStatus status = SliceStatus::Ready;
    QStringList placementGroups;           // on this slice (named in the tooltip)
    friend bool operator==(const ScaleTile &, const ScaleTile &) = default;
};

// The strip's geometry, shared by painting, hit-testing (tooltips) and tests: tiles flow left to
// right and wrap into rows.
struct ScaleStripGeometry {
    static constexpr int kTileWidth = 104;
    static constexpr int kTileHeight = 44;
    static constexpr int kSpacing = 6;
    static constexpr int kMargin = 4;

    int width = 0;   // of the widget
    int count = 0;   // tiles

    int columns() const;
    int rows() const;
    int height() const;
    QRect tileRect(int index) const;
    int tileAt(QPoint pos) const; // -1 when between tiles
};

// The tiles for `plan`: the group's slices in replica order, each Existing or Removed, then one
// Added ghost per slice the plan adds.
QList<ScaleTile> scaleTiles(const ClusterSnapshot &snapshot, const ScalePlan &plan);

class ScalePreviewStrip : public QWidget
{
    Q_OBJECT
public:
    explicit ScalePreviewStrip(QWidget *parent = nullptr);
    void setTiles(const QList<ScaleTile> &tiles);
    const QList<ScaleTile> &tiles() const { return m_tiles; }
    void setTheme(const Theme &theme);

    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;
    bool event(QEvent *event) override;

private:
    ScaleStripGeometry geometry() const { return {width(), int(m_tiles.size())}; }
    void drawTile(QPainter &painter, const QRect &rect, const ScaleTile &tile) const;
    QString toolTipFor(const ScaleTile &tile) const;

    QList<ScaleTile> m_tiles;
    Theme m_theme = Theme::light();
};

} // namespace slicescope
