// SPDX-License-Identifier: GPL-3.0-or-later
// The fleet overview's sections and folding (issue 16): a fleet's headers (a context, a RayCluster
// or a generation), which groups and sections are folded, and the nesting order. The layout that
// places them is in fleetoverview.cpp, their painting in fleetoverviewpaint.cpp.
#include "fleetoverview.h"

#include "fleetoverview_p.h"

namespace slicescope {

bool FleetOverview::Private::isCollapsed(int entry) const
{
    const FleetGroup &g = fleet.groups[fleet.entries[entry].group];
    return collapsed.contains(g.key) || (g.section >= 0 && collapsed.contains(fleet.sections[g.section].key));
}

// A slice asked for (opened, searched for, stepped to) is shown: its group and section open.
void FleetOverview::Private::expandFor(const QString &sliceName)
{
    if (!snapshot || collapsed.isEmpty())
        return;
    const int slice = snapshot->sliceIndex(sliceName);
    if (slice < 0 || slice >= fleet.entries.size())
        return;
    const FleetGroup &g = fleet.groups[fleet.entries[slice].group];
    bool changed = collapsed.remove(g.key);
    if (g.section >= 0)
        changed = collapsed.remove(fleet.sections[g.section].key) || changed;
    if (changed) {
        layoutDirty = true;
        relayout();
        Q_EMIT q->collapsedChanged();
    }
}

QString FleetOverview::Private::headerKey(const Layout::Header &h) const
{
    return h.group >= 0 ? fleet.groups[h.group].key : fleet.sections[h.section].key;
}

QString FleetOverview::Private::headerTitle(const Layout::Header &h) const
{
    return h.group >= 0 ? fleet.groups[h.group].title : fleet.sections[h.section].title;
}

int FleetOverview::Private::headerAt(QPoint widgetPos) const
{
    if (widgetPos.x() >= viewportWidth())
        return -1;
    const QPoint p = widgetPos + QPoint(0, scroll());
    for (int i = 0; i < layout.headers.size(); ++i)
        if (layout.headers[i].rect.contains(p))
            return i;
    return -1;
}

QStringList FleetOverview::sectionTitles() const
{
    d->ensureLayout();
    QStringList titles;
    for (const Layout::Header &h : std::as_const(d->layout.headers))
        if (h.group < 0)
            titles << d->fleet.sections[h.section].title;
    return titles;
}

QString FleetOverview::sectionText(const QString &title) const
{
    d->ensureLayout();
    for (const FleetSection &s : std::as_const(d->fleet.sections))
        if (s.title == title)
            return d->sectionFigures(s);
    return {};
}

void FleetOverview::setOrder(FleetOrder order)
{
    if (order == d->order)
        return;
    d->order = order;
    d->modelDirty = true;
    d->layoutDirty = true;
    updateGeometry();
    update();
}

FleetOrder FleetOverview::order() const
{
    return d->order;
}

QRect FleetOverview::headerRect(const QString &title) const
{
    d->ensureLayout();
    for (const Layout::Header &h : std::as_const(d->layout.headers))
        if (d->headerTitle(h) == title)
            return h.rect.translated(0, -d->scroll());
    return {};
}

void FleetOverview::setCollapsed(const QString &title, bool collapsed)
{
    d->ensureLayout();
    bool changed = false;
    for (const Layout::Header &h : std::as_const(d->layout.headers)) {
        if (d->headerTitle(h) != title)
            continue;
        const QString key = d->headerKey(h);
        if (collapsed && !d->collapsed.contains(key)) {
            d->collapsed.insert(key);
            changed = true;
        } else if (!collapsed) {
            changed = d->collapsed.remove(key) || changed;
        }
    }
    if (!changed)
        return;
    d->layoutDirty = true;
    updateGeometry();
    update();
    Q_EMIT collapsedChanged();
}

bool FleetOverview::isCollapsed(const QString &title) const
{
    d->ensureLayout();
    for (const Layout::Header &h : std::as_const(d->layout.headers))
        if (d->headerTitle(h) == title)
            return h.collapsed;
    return false;
}

QStringList FleetOverview::collapsedKeys() const
{
    QStringList keys(d->collapsed.cbegin(), d->collapsed.cend());
    keys.sort();
    return keys;
}

void FleetOverview::setCollapsedKeys(const QStringList &keys)
{
    const QSet<QString> set(keys.cbegin(), keys.cend());
    if (set == d->collapsed)
        return;
    d->collapsed = set;
    d->layoutDirty = true;
    updateGeometry();
    update();
}

} // namespace slicescope
