// SPDX-License-Identifier: GPL-3.0-or-later
// mergeSnapshots(): the scopes of a context (one per RayCluster's Ray view) or the contexts of a
// fleet made one snapshot (issue 16), every index moved along, repeated names qualified.
#include "snapshotmerge_p.h"

#include "naturalsort.h"

#include <QHash>
#include <QSet>

#include <algorithm>
#include <numeric>

namespace slicescope {

namespace {

// The name each slice of each part gets: its own where no other part has it, else qualified by
// its RayCluster, else by its context too; anything still taken gets " (2)", " (3)"...
QList<QHash<QString, QString>> mergedNames(const QList<SnapshotPtr> &parts)
{
    QHash<QString, int> plain, byCluster;
    auto clusterName = [](const Slice &s) { // a name a context's merge qualified already stays as it is
        return s.rayCluster.isEmpty() || s.name.startsWith(s.rayCluster + u'/') ? s.name : s.rayCluster + u'/' + s.name;
    };
    // Repeats are judged by Ray's own name (a part may have qualified its name already).
    auto rayName = [](const Slice &s) {
        return s.rayName.isEmpty() ? s.name : s.rayName;
    };
    for (const SnapshotPtr &p : parts)
        for (const Slice &s : p->slices)
            ++plain[rayName(s)];
    for (const SnapshotPtr &p : parts)
        for (const Slice &s : p->slices)
            if (plain.value(rayName(s)) > 1) ++byCluster[clusterName(s)];
    QList<QHash<QString, QString>> renames(parts.size());
    QSet<QString> used;
    for (qsizetype i = 0; i < parts.size(); ++i)
        for (const Slice &s : parts[i]->slices) {
            QString name = s.name;
            if (plain.value(rayName(s)) > 1) {
                name = clusterName(s);
                if (byCluster.value(name) > 1 && !s.context.isEmpty()) name = s.context + u':' + name;
            }
            const QString base = name;
            for (int k = 2; used.contains(name); ++k)
                name = QStringLiteral("%1 (%2)").arg(base).arg(k);
            used.insert(name);
            if (name != s.name) renames[i].insert(s.name, name);
        }
    return renames;
}

QStringList renamed(QStringList names, const QHash<QString, QString> &renames)
{
    for (QString &n : names)
        n = renames.value(n, n);
    std::sort(names.begin(), names.end(), naturalLess);
    return names;
}

// What a part is called in the merged snapshot's messages: its context when the merge spans
// several (a scope's own Ray messages already name its RayCluster).
QString labelOf(const ClusterSnapshot &p, bool severalContexts)
{
    return severalContexts && !p.kubeContext.isEmpty() ? QStringLiteral("context %1").arg(p.kubeContext) : QString();
}

void addMessages(QStringList &into, const QStringList &messages, const QString &label)
{
    for (const QString &m : messages) {
        const QString text = label.isEmpty() ? m : label + QStringLiteral(": ") + m;
        if (!into.contains(text)) into << text;
    }
}

} // namespace

SnapshotPtr mergeSnapshots(const QList<SnapshotPtr> &parts, const QDateTime &capturedAt)
{
    if (parts.isEmpty()) {
        auto empty = std::make_shared<ClusterSnapshot>();
        empty->capturedAt = capturedAt;
        return empty;
    }
    if (parts.size() == 1) return parts.first();

    auto out = std::make_shared<ClusterSnapshot>();
    ClusterSnapshot &m = *out;
    m.capturedAt = capturedAt;
    QStringList contextsSeen;
    for (const SnapshotPtr &p : parts)
        if (!contextsSeen.contains(p->kubeContext)) contextsSeen << p->kubeContext;
    const bool severalContexts = contextsSeen.size() > 1;
    m.kubeContext = severalContexts ? QString() : contextsSeen.first();

    // Every list sized once: a list grown part by part would copy its items again at each growth.
    qsizetype rayNodes = 0, pods = 0, kubeNodes = 0, slices = 0, groups = 0, workerGroups = 0, jobs = 0;
    for (const SnapshotPtr &p : parts) {
        rayNodes += p->rayNodes.size();
        pods += p->pods.size();
        kubeNodes += p->kubeNodes.size();
        slices += p->slices.size();
        groups += p->placementGroups.size();
        workerGroups += p->workerGroups.size();
        jobs += p->jobs.size();
    }
    m.rayNodes.reserve(rayNodes);
    m.pods.reserve(pods);
    m.kubeNodes.reserve(kubeNodes);
    m.slices.reserve(slices);
    m.placementGroups.reserve(groups);
    m.workerGroups.reserve(workerGroups);
    m.jobs.reserve(jobs);

    const QList<QHash<QString, QString>> renames = mergedNames(parts);
    QHash<QString, int> kubeNodeAt; // "context\nname" -> index in m.kubeNodes
    QStringList versions, statusTexts;
    int partsWithStatus = 0;
    for (const SnapshotPtr &p : parts)
        partsWithStatus += !p->clusterStatusText.isEmpty();

    for (qsizetype pi = 0; pi < parts.size(); ++pi) {
        const ClusterSnapshot &p = *parts[pi];
        const QHash<QString, QString> &rename = renames[pi];
        const int rayOffset = int(m.rayNodes.size()), podOffset = int(m.pods.size());
        const int groupOffset = int(m.placementGroups.size()), sliceOffset = int(m.slices.size());
        auto moved = [](int index, int offset) {
            return index >= 0 ? index + offset : index;
        };

        m.hasRay = m.hasRay || p.hasRay;
        m.hasKubernetes = m.hasKubernetes || p.hasKubernetes;
        if (!p.rayVersion.isEmpty() && !versions.contains(p.rayVersion)) versions << p.rayVersion;
        if (!p.clusterStatusText.isEmpty()) {
            const QString who = p.rayViews.isEmpty() || p.rayViews.first().cluster.isEmpty() ? p.kubeContext : p.rayViews.first().cluster;
            statusTexts << (partsWithStatus > 1 && !who.isEmpty() ? QStringLiteral("==> %1\n%2").arg(who, p.clusterStatusText) : p.clusterStatusText);
        }
        for (const QString &c : p.contexts)
            if (!m.contexts.contains(c)) m.contexts << c;
        for (const ContextState &c : p.contextStates)
            if (!m.contextStates.contains(c)) m.contextStates << c;
        m.rayViews += p.rayViews;

        m.rayNodes += p.rayNodes;
        m.pods += p.pods;
        QList<int> kubeNodeIndex(p.kubeNodes.size(), -1);
        for (qsizetype i = 0; i < p.kubeNodes.size(); ++i) {
            const QString key = p.kubeContext + u'\n' + p.kubeNodes[i].name;
            auto it = kubeNodeAt.constFind(key);
            if (it == kubeNodeAt.cend()) {
                it = kubeNodeAt.insert(key, int(m.kubeNodes.size()));
                m.kubeNodes.append(p.kubeNodes[i]);
            }
            kubeNodeIndex[i] = it.value();
        }

        for (Slice slice : p.slices) {
            if (const auto it = rename.constFind(slice.name); it != rename.cend()) {
                if (slice.rayName.isEmpty()) slice.rayName = slice.name;
                slice.name = it.value();
            }
            slice.headHeldBy = moved(slice.headHeldBy, groupOffset);
            for (Host &h : slice.hosts) {
                h.rayNode = moved(h.rayNode, rayOffset);
                h.pod = moved(h.pod, podOffset);
                h.kubeNode = h.kubeNode >= 0 && h.kubeNode < kubeNodeIndex.size() ? kubeNodeIndex[h.kubeNode] : -1;
                for (ChipUse &u : h.chips)
                    u.placementGroup = moved(u.placementGroup, groupOffset);
            }
            m.slices.append(std::move(slice));
        }
        for (PlacementGroup g : p.placementGroups) {
            for (Bundle &b : g.bundles) {
                b.rayNode = moved(b.rayNode, rayOffset);
                b.slice = moved(b.slice, sliceOffset);
            }
            g.slices = renamed(g.slices, rename);
            m.placementGroups.append(std::move(g));
        }
        for (WorkerGroup g : p.workerGroups) {
            g.slices = renamed(g.slices, rename);
            m.workerGroups.append(std::move(g));
        }
        m.rayClusters += p.rayClusters;
        m.jobs += p.jobs;
        const QString label = labelOf(p, severalContexts);
        addMessages(m.errors, p.errors, label);
        addMessages(m.warnings, p.warnings, label);
    }
    m.rayVersion = versions.join(QStringLiteral(", "));
    m.clusterStatusText = statusTexts.join(u'\n');

    // Slices sorted by name, as in any snapshot; bundles follow their slice.
    QList<int> order(m.slices.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return naturalLess(m.slices[a].name, m.slices[b].name); });
    QList<int> newIndex(m.slices.size());
    QList<Slice> sorted;
    sorted.reserve(m.slices.size());
    for (int i = 0; i < order.size(); ++i) {
        newIndex[order[i]] = i;
        sorted.append(std::move(m.slices[order[i]]));
    }
    m.slices = std::move(sorted);
    for (PlacementGroup &g : m.placementGroups)
        for (Bundle &b : g.bundles)
            if (b.slice >= 0 && b.slice < newIndex.size()) b.slice = newIndex[b.slice];

    // Activity, chip by chip, into a table shaped like the merged slices.
    const bool anyActivity = std::any_of(parts.cbegin(), parts.cend(), [](const SnapshotPtr &p) { return p->activity != nullptr; });
    if (anyActivity) {
        ActivityTableBuilder builder(m);
        ActivityTable &table = builder.table();
        int sliceOffset = 0, withActivity = 0;
        for (const SnapshotPtr &p : parts)
            withActivity += p->activity != nullptr;
        for (const SnapshotPtr &p : parts) {
            if (const ActivityTable *a = p->activity.get()) {
                for (int si = 0; si < p->slices.size(); ++si)
                    for (int hi = 0; hi < p->slices[si].hosts.size(); ++hi) {
                        const int at = newIndex[sliceOffset + si];
                        if (const QString why = a->unknownReason(si, hi); !why.isEmpty()) builder.setUnknownReason(at, hi, why);
                        for (int c = 0; c < p->slices[si].hosts[hi].chips.size(); ++c)
                            if (const ChipActivity *from = a->chip(si, hi, c))
                                if (ChipActivity *to = builder.chip(at, hi, c)) *to = *from;
                    }
                const QString who = withActivity > 1 && !p->rayViews.isEmpty() && !p->rayViews.first().cluster.isEmpty() ? p->rayViews.first().cluster : labelOf(*p, severalContexts);
                addMessages(table.sources, a->sources, withActivity > 1 ? who : QString());
                addMessages(table.problems, a->problems, withActivity > 1 ? who : QString());
            }
            sliceOffset += int(p->slices.size());
        }
        m.activity = builder.finish();
    }
    return out;
}

} // namespace slicescope
