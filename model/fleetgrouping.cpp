// SPDX-License-Identifier: GPL-3.0-or-later
// groupFleet(): what each tile of the fleet overview says, and the groups in display order.
#include "fleetgrouping.h"

#include "fleetfilter.h"
#include "naturalsort.h" // the model's locale-free order, so groups sort as the tables do

#include <QHash>

#include <QSet>

#include <algorithm>
#include <numeric>

namespace slicescope {

namespace {

// Operators know placement groups by name; unnamed ones (a slice placement group's head groups)
// by the job that made them.
QString placementGroupLabel(const ClusterSnapshot &snap, int index)
{
    const PlacementGroup &pg = snap.placementGroups[index];
    if (!pg.name.isEmpty())
        return pg.name;
    if (!pg.creatorJobId.isEmpty())
        return QStringLiteral("job %1").arg(pg.creatorJobId);
    return QStringLiteral("group %1").arg(pg.displayLabel());
}

const QString kDot = QStringLiteral(" \u00b7 ");

// A RayCluster's identity in a fleet: its name repeats across contexts.
QString clusterKey(const QString &context, const QString &rayCluster)
{
    return context + u'\n' + rayCluster;
}

QString contextTitle(const Slice &s)
{
    return s.context.isEmpty() ? QStringLiteral("no context") : s.context;
}

} // namespace

QString fleetGenerationName(const Slice &slice)
{
    return slice.generation ? slice.generation->name : QStringLiteral("unknown generation");
}

QString fleetTopologyText(const Slice &slice)
{
    return slice.topology.chips() > 0 ? slice.topology.toString() : QStringLiteral("topology unknown");
}

QString fleetWorkerGroupText(const Slice &slice)
{
    if (!slice.workerGroup.isEmpty()) return slice.workerGroup;
    // A slice Ray knows without its pods: the RayCluster whose Ray lists it, when known (issue 16).
    return slice.rayCluster.isEmpty() ? QStringLiteral("no worker group") : QStringLiteral("RayCluster %1, no worker group").arg(slice.rayCluster);
}

FleetGrouping groupFleet(const ClusterSnapshot &snap, FleetOrder nesting)
{
    FleetGrouping fleet;
    const bool severalContexts = snap.contexts.size() > 1;
    QSet<QString> clusters;
    for (const Slice &s : snap.slices)
        if (!s.rayCluster.isEmpty()) clusters.insert(clusterKey(s.context, s.rayCluster));
    const bool severalClusters = clusters.size() > 1;
    QHash<QString, QString> contextDown, rayDownOf; // context / "context\ncluster" -> why it does not answer
    for (const ContextState &c : snap.contextStates)
        if (!c.error.isEmpty()) contextDown.insert(c.context, c.error);
    QSet<QString> rayNeverAnswered; // "context\ncluster": no Ray view at all, its slices known from Kubernetes only
    for (const RayViewState &v : snap.rayViews)
        if (!v.error.isEmpty() && !v.cluster.isEmpty()) {
            rayDownOf.insert(clusterKey(v.context, v.cluster), v.error);
            if (!v.answered)
                rayNeverAnswered.insert(clusterKey(v.context, v.cluster));
        }
    // Sections: the fleet's top level. Context first: one per context when there are several, else
    // one per RayCluster when there are several; generation first: one per generation in a fleet.
    const bool generationFirst = nesting == FleetOrder::GenerationFirst && (severalContexts || severalClusters);
    const bool contextSections = !generationFirst && severalContexts;
    const bool clusterSections = !generationFirst && !severalContexts && severalClusters;
    QHash<QString, int> sectionIndex;
    QList<FleetEntry> &entries = fleet.entries;
    QList<FleetGroup> &groups = fleet.groups;
    QHash<QString, int> groupIndex;
    entries.reserve(snap.slices.size());
    for (int i = 0; i < snap.slices.size(); ++i) {
        const Slice &s = snap.slices[i];
        FleetEntry e;
        e.slice = i;
        e.status = s.status();
        e.use = sliceUse(s);
        e.chips = sliceChips(s);
        e.reserved = std::clamp(s.reservedChips, 0, e.chips);
        e.stranded = strandedChips(s);
        for (const Host &h : s.hosts)
            if (h.state != HostState::Alive)
                e.down += std::max(0, int(h.chips.size()) - h.reservedChips());
        e.down = std::min(e.down, e.chips - e.reserved);

        const QString topo = fleetTopologyText(s);
        const int hostCount = s.layout.isValid() ? s.layout.hostCount() : s.hostCount();
        e.shapeText = topo + kDot + (hostCount == 1 ? QStringLiteral("1 host") : QStringLiteral("%1 hosts").arg(hostCount));
        // Short of room, the chips per host go first, then the host count (the tile's host strip
        // shows it); the tooltip and the details keep both.
        if (s.chipsPerHost > 0) {
            e.shorterShapes << e.shapeText;
            e.shapeText += QStringLiteral(" \u00d7 %1 chips").arg(s.chipsPerHost);
        }
        e.shorterShapes << topo;

        // Who holds the slice: placement groups in the order their chips come, then the head.
        QList<int> pgs;
        QList<int> chipCounts;
        for (const Host &h : s.hosts)
            for (const ChipUse &c : h.chips)
                if (c.placementGroup >= 0 && c.placementGroup < snap.placementGroups.size()) {
                    const qsizetype at = pgs.indexOf(c.placementGroup);
                    if (at < 0) {
                        pgs << c.placementGroup;
                        chipCounts << 1;
                    } else {
                        ++chipCounts[at];
                    }
                }
        QStringList holderNames, holderLines;
        for (int k = 0; k < pgs.size(); ++k) {
            holderNames << placementGroupLabel(snap, pgs[k]);
            holderLines << QStringLiteral("%1 (%2 chips)").arg(holderNames.last()).arg(chipCounts[k]);
        }
        // The head resource is named only when no chip is held: otherwise it is the same
        // reservation's step 1 and naming it again (usually unnamed) would only add noise.
        if (s.headHeldBy >= 0 && s.headHeldBy < snap.placementGroups.size() && !pgs.contains(s.headHeldBy)) {
            const QString head = placementGroupLabel(snap, s.headHeldBy);
            if (pgs.isEmpty())
                holderNames << head;
            holderLines << QStringLiteral("%1 (the head resource)").arg(head);
        }
        e.holders = holderLines.join(QStringLiteral(", "));

        switch (e.use) {
        case SliceUse::Ready:
            e.note = QStringLiteral("free for a slice placement group");
            break;
        case SliceUse::FullyReserved:
        case SliceUse::Claimed:
            e.note = (e.use == SliceUse::Claimed ? QStringLiteral("claimed by ") : QStringLiteral("held by "))
                     + (holderNames.isEmpty() ? QStringLiteral("?") : holderNames.join(QStringLiteral(", ")));
            break;
        case SliceUse::PartlyUsed:
            // Stranded first: it is the news, and the holder's name may be long.
            e.note = QStringLiteral("%1 chips stranded").arg(e.stranded) + kDot
                     + QStringLiteral("held by %1").arg(holderNames.join(QStringLiteral(", ")));
            break;
        case SliceUse::Provisioning: {
            // Every problem is a pending host here; the count says more than worker 0's pod phase.
            int pending = 0;
            for (const Host &h : s.hosts)
                pending += h.state == HostState::Pending;
            e.note = QStringLiteral("%1 of %2 hosts still starting").arg(pending).arg(s.hosts.size());
            break;
        }
        case SliceUse::Degraded:
            e.note = s.problems.isEmpty() ? toText(e.status) : s.problems.first();
            // The first problem's own reason, when it is a host's and its Ray node or pod gave one:
            // "worker 2 is DEAD: Unexpected termination: ..." (the whole text is in the details).
            if (!s.problems.isEmpty())
                for (const Host &h : s.hosts) {
                    if (h.state == HostState::Alive || !s.problems.first().startsWith(QStringLiteral("worker %1 ").arg(h.workerId)))
                        continue;
                    QString why;
                    if (h.rayNode >= 0 && h.rayNode < snap.rayNodes.size())
                        why = snap.rayNodes[h.rayNode].stateMessage.simplified();
                    if (why.isEmpty() && h.pod >= 0 && h.pod < snap.pods.size())
                        why = snap.pods[h.pod].statusText().simplified(); // as the details' "Pod says"
                    if (!why.isEmpty() && !e.note.contains(why))
                        e.note += QStringLiteral(": ") + why;
                    break;
                }
            if (s.problems.size() > 1)
                e.noteSuffix = QStringLiteral(" (+%1 more)").arg(s.problems.size() - 1);
            break;
        }

        // A fleet of several contexts groups by context first (issue 16): "gke_us · v6e · ml/...".
        // A part of the fleet that is down says so on its own tiles (issue 16); the rest stays live.
        if (const QString down = contextDown.value(s.context); !down.isEmpty())
            e.note = QStringLiteral("context not answering, last view shown: %1").arg(down);
        else if (const QString rayDown = rayDownOf.value(clusterKey(s.context, s.rayCluster)); !rayDown.isEmpty())
            e.note = rayNeverAnswered.contains(clusterKey(s.context, s.rayCluster))
                         ? QStringLiteral("Ray not answering, reservations unknown: %1").arg(rayDown)
                         : QStringLiteral("Ray not answering, last view shown: %1").arg(rayDown);

        QString sectionKey, sectionTitle, sectionDown;
        if (contextSections) {
            sectionKey = QStringLiteral("context\n") + s.context;
            sectionTitle = contextTitle(s);
            sectionDown = contextDown.value(s.context);
        } else if (clusterSections) {
            sectionKey = QStringLiteral("rayCluster\n") + s.rayCluster;
            sectionTitle = s.rayCluster.isEmpty() ? QStringLiteral("no RayCluster") : QStringLiteral("RayCluster %1").arg(s.rayCluster);
            sectionDown = rayDownOf.value(clusterKey(s.context, s.rayCluster));
        } else if (generationFirst) {
            sectionKey = QStringLiteral("generation\n") + fleetGenerationName(s);
            sectionTitle = fleetGenerationName(s);
        }
        int section = -1;
        if (!sectionKey.isEmpty()) {
            section = sectionIndex.value(sectionKey, -1);
            if (section < 0) {
                section = int(fleet.sections.size());
                sectionIndex.insert(sectionKey, section);
                FleetSection fs;
                fs.key = sectionKey;
                fs.title = sectionTitle;
                fs.down = sectionDown;
                fleet.sections << fs;
            }
            fleet.sections[section].counts.add(s);
        }

        // A group's title leaves out what its section header already says.
        QString title;
        if (generationFirst)
            title = (severalContexts ? contextTitle(s) + kDot : QString()) + fleetWorkerGroupText(s);
        else
            title = fleetGenerationName(s) + kDot + fleetWorkerGroupText(s);
        const QString key = clusterKey(s.context, s.rayCluster) + u'\n' + fleetGenerationName(s) + u'\n' + fleetWorkerGroupText(s);
        int g = groupIndex.value(key, -1);
        if (g < 0) {
            g = int(groups.size());
            groupIndex.insert(key, g);
            FleetGroup group;
            group.key = key;
            group.title = title;
            group.section = section;
            group.rank = tpu::generationOrder(s.generation);
            group.workerGroup = s.workerGroup;
            group.context = s.context;
            group.rayCluster = s.rayCluster;
            groups << group;
        }
        e.group = g;
        groups[g].entries << i;
        groups[g].chips += e.chips;
        groups[g].reserved += e.reserved;
        groups[g].ready += e.status == SliceStatus::Ready;

        // The tile's name: what the headers above it do not already say. A name qualified for a
        // fleet is "context:ns/cluster/name" or "ns/cluster/name" (model/snapshotmerge_p.h).
        e.tileName = s.name;
        const bool contextInHeaders = contextSections || (generationFirst && severalContexts);
        if (contextInHeaders && !s.context.isEmpty() && e.tileName.startsWith(s.context + u':'))
            e.tileName = e.tileName.mid(s.context.size() + 1);
        if (!s.rayCluster.isEmpty() && e.tileName.startsWith(s.rayCluster + u'/') && title.contains(s.rayCluster))
            e.tileName = e.tileName.mid(s.rayCluster.size() + 1);

        e.haystack = fleetSearchText(s, holderNames);
        entries << e;
    }
    // Generation display order, then worker group by name (slices without one last); the entries of
    // a group keep the snapshot's natural name order.
    QList<int> order(groups.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        const FleetGroup &ga = groups[a], &gb = groups[b];
        auto byWorkerGroup = [&]() {
            if (ga.workerGroup.isEmpty() != gb.workerGroup.isEmpty())
                return gb.workerGroup.isEmpty();
            return naturalLess(ga.workerGroup, gb.workerGroup);
        };
        if (generationFirst) { // generation -> context -> RayCluster
            if (ga.rank != gb.rank)
                return ga.rank < gb.rank;
            if (ga.section != gb.section) // generations of one rank ("unknown") apart, by name
                return naturalLess(fleet.sections[ga.section].title, fleet.sections[gb.section].title);
            if (ga.context != gb.context)
                return naturalLess(ga.context, gb.context);
            if (ga.rayCluster != gb.rayCluster)
                return naturalLess(ga.rayCluster, gb.rayCluster);
            return byWorkerGroup();
        }
        // Context, then RayCluster, then generation (issue 16: context -> cluster -> generation);
        // within one cluster, generation first as before.
        if (ga.context != gb.context)
            return naturalLess(ga.context, gb.context);
        if (severalClusters && ga.rayCluster != gb.rayCluster) {
            if (ga.rayCluster.isEmpty() != gb.rayCluster.isEmpty()) // slices of no RayCluster last
                return gb.rayCluster.isEmpty();
            return naturalLess(ga.rayCluster, gb.rayCluster);
        }
        if (ga.rank != gb.rank)
            return ga.rank < gb.rank;
        return byWorkerGroup();
    });
    QList<FleetGroup> sorted;
    QList<int> newIndex(groups.size());
    for (int k = 0; k < order.size(); ++k) {
        newIndex[order[k]] = k;
        sorted << groups[order[k]];
    }
    groups = sorted;
    for (FleetEntry &e : entries)
        e.group = newIndex[e.group];
    // Sections in the order their first group comes; each lists its groups.
    if (!fleet.sections.isEmpty()) {
        QList<int> sectionOrder;
        QList<int> newSection(fleet.sections.size(), -1);
        for (const FleetGroup &g : std::as_const(groups))
            if (newSection[g.section] < 0) {
                newSection[g.section] = int(sectionOrder.size());
                sectionOrder << g.section;
            }
        QList<FleetSection> sections;
        for (int k : std::as_const(sectionOrder))
            sections << fleet.sections[k];
        for (int k = 0; k < groups.size(); ++k) {
            groups[k].section = newSection[groups[k].section];
            sections[groups[k].section].groups << k;
        }
        fleet.sections = sections;
    }
    return fleet;
}

} // namespace slicescope
