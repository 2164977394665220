// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the slice view draws, and in which order, as plain values with no widget: the build step
// of the view (sliceview.h), which the paint steps (slicepaint.h) then walk.
//
// SliceChips is what every chip of one slice shows: its host, its colour (an index into a
// palette), whether it is a ghost (its host is MISSING) and its ICI links, from the slice's
// layout (tpu::SliceLayout) and the colours of look.h. SliceDrawOrder is built from a
// SliceChips and a SliceProjection (the single source of geometry): the chips, host trays and
// host labels in painter's order, with the chips nothing of which can show (culled) left out.
// It depends only on the view octant, the layer range, whether layers are exploded and the
// data, never on zoom, pan or selection, so turning within an octant reuses it.

#include "look.h"
#include "sliceprojection.h"
#include "snapshot.h"

#include <QColor>
#include <QList>

#include <array>
#include <optional>
#include <vector>

namespace slicescope {

struct SliceChips {
    struct Chip {
        qint32 host = -1;     // index into Slice::hosts
        qint32 palette = 0;   // index into palette
        qint16 chipIndex = 0; // within its host
        bool ghost = false;   // its host is MISSING: drawn hollow, hides nothing
        bool idle = false;    // reserved but idle (SliceView::setIdleChips): outlined
        // Its ICI links, from layout.iciLinks(): bit 2*axis for the one to the + side, bit
        // 2*axis+1 for the one to the - side; `wraps` likewise for torus wrap edges.
        quint8 links = 0;
        quint8 wraps = 0;
    };
    std::vector<Chip> chips; // by chip index x + X*(y + Y*z); empty when nothing is laid out
    QList<QColor> palette;
    QList<bool> hatched; // by palette index: drawn with a diagonal hatch (activity unknown)
    std::vector<int> hostOfWorker;                       // worker id -> index into Slice::hosts, or -1
    std::vector<std::optional<tpu::ChipCoord>> hostOrigin; // by host index: its block's lowest corner
    tpu::Dims dims, block;

    // `slice` must have a valid layout; colours as chipColor() gives them in `mode` (in Activity
    // mode, activityLook() of `metric`: scale colours, quantised, and the unknown hatched).
    static SliceChips build(const ClusterSnapshot &snapshot, const Slice &slice, ColorMode mode, const Theme &theme,
                            ActivityMetric metric = ActivityMetric::DutyCycle);

    bool isEmpty() const { return chips.empty(); }
    int indexOf(tpu::ChipCoord c) const { return c.x + dims.x * (c.y + dims.y * c.z); }
};

class SliceDrawOrder
{
public:
    // Per axis, 3 bits of link stubs a chip carries: a link to its neighbour nearer the viewer,
    // a wrap edge leaving its near face, a wrap edge leaving its far face.
    enum StubBit : quint16
    {
        FrontLink = 1,
        FrontWrap = 2,
        BackWrap = 4
    };
    static constexpr int stubShift(int axis) { return axis * 3; }
    static constexpr int kMaxLabels = 128; // host labels beyond this are clutter, not information

    struct Item {
        enum Kind : quint8
        {
            Chip,
            Tray,
            Label
        };
        Kind kind = Chip;
        quint16 stubs = 0;
        qint16 x = 0, y = 0, z = 0; // chip; for trays and labels, the host block's lowest corner
        qint32 ref = 0;             // chip index (Chip) or host index (Tray, Label)
    };

    // What an order depends on: when the key of a projection differs, the order must be rebuilt.
    struct Key {
        std::array<int, 3> steps{};
        int first = -1, last = -1;
        bool exploded = false;
        bool culled = true;
        quint64 dataVersion = 0;
        bool operator==(const Key &) const = default;
    };
    static Key keyFor(const SliceProjection &p, bool cull, quint64 dataVersion)
    {
        return Key{p.backToFrontSteps(), p.layerFirst(), p.layerLast(), p.explode() > 0, cull, dataVersion};
    }

    SliceDrawOrder() = default;
    // `cull` drops the chips nothing of which can show, and the links and trays of those only
    // slivers of would show; without it every visible chip is drawn (the naive baseline).
    SliceDrawOrder(const SliceProjection &p, const SliceChips &chips, bool cull, quint64 dataVersion = 0);

    const Key &key() const { return m_key; }
    const std::vector<Item> &items() const { return m_items; }
    // By chip index: whether the chip is among items() (hit-testing ignores the rest). As many
    // entries as the projection's grid has chips.
    const std::vector<bool> &drawn() const { return m_drawn; }
    bool isDrawn(tpu::ChipCoord c) const;
    int count(Item::Kind kind) const;

private:
    Key m_key;
    tpu::Dims m_dims;
    std::vector<Item> m_items;
    std::vector<bool> m_drawn;
};

} // namespace slicescope
