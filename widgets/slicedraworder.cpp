// SPDX-License-Identifier: GPL-3.0-or-later
#include "slicedraworder.h"

#include <QHash>

#include <algorithm>

namespace slicescope {

using tpu::ChipCoord;

SliceChips SliceChips::build(const ClusterSnapshot &snapshot, const Slice &slice, ColorMode mode, const Theme &theme, ActivityMetric metric)
{
    SliceChips out;
    const tpu::SliceLayout &layout = slice.layout;
    out.dims = layout.dims();
    out.block = layout.block();
    out.chips.assign(size_t(layout.chipCount()), Chip{});
    out.hostOfWorker.assign(size_t(layout.hostCount()), -1);
    out.hostOrigin.assign(size_t(slice.hosts.size()), std::nullopt);
    QHash<quint64, int> paletteIndex;
    auto colourIndex = [&](const QColor &c, bool hatched = false) {
        const quint64 key = quint64(c.rgba()) | (hatched ? quint64(1) << 32 : 0);
        const auto it = paletteIndex.constFind(key);
        if (it != paletteIndex.cend())
            return *it;
        out.palette.append(c);
        out.hatched.append(hatched);
        paletteIndex.insert(key, int(out.palette.size() - 1));
        return int(out.palette.size() - 1);
    };
    // The activity table is indexed by slice position; a slice not of `snapshot` has none.
    const int sliceIndex = mode == ColorMode::Activity && !snapshot.slices.isEmpty() && &slice >= snapshot.slices.constData()
                                   && &slice < snapshot.slices.constData() + snapshot.slices.size()
                               ? int(&slice - snapshot.slices.constData())
                           : mode == ColorMode::Activity ? snapshot.sliceIndex(slice.name)
                                                         : -1;
    // Chips no host claims (cannot happen for a valid layout, but never paint garbage): ghosts.
    const int absent = colourIndex(theme.absentChip);
    for (Chip &c : out.chips) {
        c.palette = absent;
        c.ghost = true;
    }
    for (int h = 0; h < slice.hosts.size(); ++h) {
        const Host &host = slice.hosts[h];
        if (host.workerId < 0 || host.workerId >= layout.hostCount())
            continue;
        out.hostOfWorker[size_t(host.workerId)] = h;
        out.hostOrigin[size_t(h)] = layout.chipPosition(host.workerId, 0);
        for (int i = 0; i < layout.chipsPerHost(); ++i) {
            const ChipCoord c = layout.chipPosition(host.workerId, i);
            Chip &info = out.chips[size_t(out.indexOf(c))];
            info.host = h;
            info.chipIndex = qint16(i);
            info.ghost = host.state == HostState::Missing;
            if (mode == ColorMode::Activity && host.state != HostState::Missing) {
                const ActivityLook look = activityLook(snapshot, sliceIndex, h, i, metric, theme);
                info.palette = colourIndex(look.color, look.hatched);
            } else {
                info.palette = colourIndex(chipColor(snapshot, host, i, mode, theme, metric));
            }
        }
    }
    // Links come from the layout's own list, so the view shows exactly the torus it computes.
    for (const tpu::IciLink &l : layout.iciLinks()) {
        Chip &a = out.chips[size_t(out.indexOf(l.a))];
        Chip &b = out.chips[size_t(out.indexOf(l.b))];
        if (l.wrap) { // a sits at the high end of the axis, b at 0
            a.wraps |= quint8(1 << (2 * l.axis));
            b.wraps |= quint8(1 << (2 * l.axis + 1));
        } else {
            a.links |= quint8(1 << (2 * l.axis));
            b.links |= quint8(1 << (2 * l.axis + 1));
        }
    }
    return out;
}

SliceDrawOrder::SliceDrawOrder(const SliceProjection &p, const SliceChips &slice, bool cull, quint64 dataVersion)
    : m_key(keyFor(p, cull, dataVersion))
    , m_dims(p.dims())
{
    std::vector<Item> &order = m_items;
    std::vector<bool> &drawn = m_drawn;
    const Key &key = m_key;
    const tpu::Dims d = p.dims();
    drawn.assign(size_t(d.volume()), false);
    if (slice.isEmpty())
        return;
    const std::vector<SliceChips::Chip> &chips = slice.chips;
    const auto steps = key.steps;
    auto opaque = [&](int x, int y, int z) {
        if (x < 0 || y < 0 || x >= d.x || y >= d.y || z < key.first || z > key.last)
            return false;
        return !chips[size_t(x + d.x * (y + d.y * z))].ghost;
    };
    // How deep under the visible surface a chip lies: 0 when some chip one step nearer the
    // viewer (along any mix of axes) is missing, transparent or hidden, so part of it faces the
    // viewer; 1 when that holds two steps out; 2 beyond. Depth 2 is skipped: nothing of it can
    // show. Depth 1 is drawn, because the gaps between surface chips show slivers of it, but
    // without links or trays, which only slivers of would show. Exploded layers show every
    // chip's top, so there everything is surface.
    auto coverDepth = [&](int x, int y, int z) {
        if (!cull || key.exploded)
            return 0;
        int depth = 2;
        for (int dz = 0; dz <= 2; ++dz)
            for (int dy = 0; dy <= 2; ++dy)
                for (int dx = 0; dx <= 2; ++dx) {
                    if ((!dx && !dy && !dz) || opaque(x + dx * steps[0], y + dy * steps[1], z + dz * steps[2]))
                        continue;
                    if (dx < 2 && dy < 2 && dz < 2)
                        return 0;
                    depth = 1;
                }
        return depth;
    };
    std::vector<quint8> depth(size_t(d.volume()), 2);

    // Which hosts show at all (their trays and labels follow their chips).
    const int hostCount = int(slice.hostOrigin.size());
    std::vector<int> lastChipItem(size_t(hostCount), -1);
    std::vector<bool> hostShown(size_t(hostCount), false);
    const tpu::Dims block = slice.block;
    const int zn = key.last - key.first + 1;
    order.reserve(size_t(d.x) * size_t(d.y) * size_t(zn) + size_t(hostCount) * 2);

    // Hosts by the layer their block starts in, with that corner.
    std::vector<std::vector<std::pair<int, ChipCoord>>> hostsByLayer(size_t(d.z));
    for (int h = 0; h < hostCount; ++h)
        if (const auto &origin = slice.hostOrigin[size_t(h)])
            hostsByLayer[size_t(origin->z)].push_back({h, *origin});
    auto emitTrays = [&](int z) {
        // Trays lie on the far side of their layer, so they go before the layer's chips when the
        // camera is above and after them when it is below.
        for (const auto &[h, origin] : hostsByLayer[size_t(z)]) {
            if (!hostShown[size_t(h)])
                continue;
            Item t;
            t.kind = Item::Tray;
            t.x = qint16(origin.x);
            t.y = qint16(origin.y);
            t.z = qint16(origin.z);
            t.ref = h;
            order.push_back(t);
        }
    };

    // First decide what is drawn, so trays know whether their host shows.
    for (int z = key.first; z <= key.last; ++z)
        for (int y = 0; y < d.y; ++y)
            for (int x = 0; x < d.x; ++x) {
                const int i = x + d.x * (y + d.y * z);
                depth[size_t(i)] = quint8(coverDepth(x, y, z));
                if (depth[size_t(i)] >= 2)
                    continue;
                drawn[size_t(i)] = true;
                if (chips[size_t(i)].host >= 0 && depth[size_t(i)] == 0)
                    hostShown[size_t(chips[size_t(i)].host)] = true;
            }

    for (int iz = 0; iz < zn; ++iz) {
        const int z = steps[2] > 0 ? key.first + iz : key.last - iz;
        if (steps[2] > 0)
            emitTrays(z);
        for (int iy = 0; iy < d.y; ++iy) {
            const int y = steps[1] > 0 ? iy : d.y - 1 - iy;
            for (int ix = 0; ix < d.x; ++ix) {
                const int x = steps[0] > 0 ? ix : d.x - 1 - ix;
                const int i = x + d.x * (y + d.y * z);
                if (!drawn[size_t(i)])
                    continue;
                const SliceChips::Chip &info = chips[size_t(i)];
                Item item;
                item.x = qint16(x);
                item.y = qint16(y);
                item.z = qint16(z);
                item.ref = i;
                const int at[3] = {x, y, z};
                // A missing host has no links to show: none from its chips, none to them.
                for (int axis = 0; axis < 3 && depth[size_t(i)] == 0 && !info.ghost; ++axis) {
                    // Which side of the chip faces the viewer along this axis: + when steps > 0.
                    const int nearBit = steps[axis] > 0 ? 2 * axis : 2 * axis + 1;
                    const int farBit = steps[axis] > 0 ? 2 * axis + 1 : 2 * axis;
                    int next[3] = {x, y, z};
                    next[axis] = at[axis] + steps[axis];
                    const bool neighbourShown = p.isVisible(ChipCoord{next[0], next[1], next[2]})
                                                && !chips[size_t(next[0] + d.x * (next[1] + d.y * next[2]))].ghost;
                    if ((info.links >> nearBit & 1) && neighbourShown)
                        item.stubs |= quint16(FrontLink << stubShift(axis));
                    if (info.wraps >> nearBit & 1)
                        item.stubs |= quint16(FrontWrap << stubShift(axis));
                    if (info.wraps >> farBit & 1)
                        item.stubs |= quint16(BackWrap << stubShift(axis));
                }
                order.push_back(item);
                if (info.host >= 0)
                    lastChipItem[size_t(info.host)] = int(order.size() - 1);
            }
        }
        if (steps[2] < 0)
            emitTrays(z);
    }

    // Host labels sit on top of their block, so they go right after the block's last chip:
    // chips nearer the viewer, drawn later, still cover them as they should. Only blocks whose
    // top nobody covers get one: the top visible layer, and every layer when exploded unless
    // that makes too many to read.
    if (steps[2] > 0) {
        std::vector<int> labelAfter(order.size(), -1);
        int labels = 0;
        auto labelLayers = [&](bool allLayers) {
            std::fill(labelAfter.begin(), labelAfter.end(), -1);
            labels = 0;
            for (int z = key.first; z <= key.last; ++z)
                for (const auto &[h, origin] : hostsByLayer[size_t(z)]) {
                    const bool top = origin.z + block.z - 1 == key.last;
                    if (lastChipItem[size_t(h)] < 0 || !hostShown[size_t(h)] || !(top || allLayers))
                        continue;
                    labelAfter[size_t(lastChipItem[size_t(h)])] = h;
                    ++labels;
                }
        };
        labelLayers(key.exploded);
        if (labels > kMaxLabels && key.exploded)
            labelLayers(false);
        if (labels > 0 && labels <= kMaxLabels) {
            std::vector<Item> withLabels;
            withLabels.reserve(order.size() + size_t(labels));
            for (size_t i = 0; i < order.size(); ++i) {
                withLabels.push_back(order[i]);
                if (labelAfter[i] >= 0) {
                    const ChipCoord origin = *slice.hostOrigin[size_t(labelAfter[i])];
                    Item l;
                    l.kind = Item::Label;
                    l.x = qint16(origin.x);
                    l.y = qint16(origin.y);
                    l.z = qint16(origin.z);
                    l.ref = labelAfter[i];
                    withLabels.push_back(l);
                }
            }
            order.swap(withLabels);
        }
    }
}

bool SliceDrawOrder::isDrawn(ChipCoord c) const
{
    if (c.x < 0 || c.y < 0 || c.z < 0 || c.x >= m_dims.x || c.y >= m_dims.y || c.z >= m_dims.z)
        return false;
    const size_t i = size_t(c.x + m_dims.x * (c.y + m_dims.y * c.z));
    return i < m_drawn.size() && m_drawn[i];
}

int SliceDrawOrder::count(Item::Kind kind) const
{
    return int(std::count_if(m_items.cbegin(), m_items.cend(), [kind](const Item &i) { return i.kind == kind; }));
}

} // namespace slicescope
