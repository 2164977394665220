// SPDX-License-Identifier: GPL-3.0-or-later
// SnapshotHistory's events: what changed from one entry to the next (history.h, events()),
// found by decoding the versions new in the entry against the previous entry's lists, with the
// sentences the events list shows, and the spellings of HistoryEventKind (toText, QDebug).

#include "history_p.h"

#include <QDebug>

#include <algorithm>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

namespace slicescope {

using namespace historydetail;

namespace {

QString shortId(const QString &id)
{
    return id.left(PlacementGroup::kDisplayIdChars);
}

QString placementGroupLabel(const PlacementGroup &g)
{
    return g.name.isEmpty() ? g.displayLabel() : g.name + QStringLiteral(" (") + shortId(g.id) + u')';
}

QString sliceStatusText(const Slice &s)
{
    switch (s.status()) {
    case SliceStatus::Ready: return QStringLiteral("ready");
    case SliceStatus::Reserved:
        if (s.reservedChips == 0)
            return QStringLiteral("reserved (head claimed)");
        return QStringLiteral("reserved (%1 of %2 chips held)").arg(s.reservedChips).arg(sliceChips(s));
    case SliceStatus::Degraded:
        return s.problems.isEmpty() ? QStringLiteral("degraded") : QStringLiteral("degraded: ") + s.problems.join(QStringLiteral("; "));
    case SliceStatus::Provisioning:
        return s.problems.isEmpty() ? QStringLiteral("provisioning") : QStringLiteral("provisioning: ") + s.problems.join(QStringLiteral("; "));
    }
    Q_UNREACHABLE();
}

class EventWriter
{
public:
    EventWriter(qint64 serial, const QDateTime &time, const HistoryEventFilter &filter, QList<HistoryEvent> &out)
        : m_serial(serial)
        , m_time(time)
        , m_filter(filter)
        , m_out(out)
    {
    }

    // Adds an event if the filter wants it; `describe` fills subject, text, from and to.
    template<typename F>
    void add(HistoryEventKind kind, const QString &slice, const QString &placementGroup, F &&describe)
    {
        if (!m_filter.kinds.isEmpty() && !m_filter.kinds.contains(kind))
            return;
        if (!m_filter.slice.isEmpty() && slice != m_filter.slice)
            return;
        if (!m_filter.placementGroup.isEmpty() && placementGroup != m_filter.placementGroup)
            return;
        HistoryEvent e;
        e.serial = m_serial;
        e.time = m_time;
        e.kind = kind;
        e.selectSlice = slice;
        e.selectPlacementGroup = placementGroup;
        describe(e);
        m_out.append(std::move(e));
    }

private:
    qint64 m_serial;
    QDateTime m_time;
    const HistoryEventFilter &m_filter;
    QList<HistoryEvent> &m_out;
};

HistoryEventKind hostEventKind(HostState state)
{
    switch (state) {
    case HostState::Alive: return HistoryEventKind::HostUp;
    case HostState::Dead: return HistoryEventKind::HostDied;
    case HostState::Pending: return HistoryEventKind::HostPending;
    case HostState::Missing: return HistoryEventKind::HostMissing;
    }
    Q_UNREACHABLE();
}

// The slice's own sentence about a worker ("worker 2 is DEAD"), if it has one.
QString workerProblem(const Slice &s, int worker)
{
    const QString prefix = QStringLiteral("worker %1 ").arg(worker);
    for (const QString &p : s.problems)
        if (p.startsWith(prefix))
            return p;
    return {};
}

// The previous entry's versions by handle, per kind, built when first asked for.
class Before
{
public:
    std::vector<const VersionHeader *> lists[KindCount];

    const VersionHeader *find(Kind kind, quint32 handle)
    {
        std::vector<const VersionHeader *> &byHandle = m_byHandle[kind];
        if (!m_built[kind]) {
            m_built[kind] = true;
            for (const VersionHeader *h : m_filled[kind]) // clears only what was set (handles run high)
                byHandle[h->handle] = nullptr;
            for (const VersionHeader *h : lists[kind]) {
                if (h->handle >= byHandle.size())
                    byHandle.resize(h->handle + 1, nullptr);
                byHandle[h->handle] = h;
            }
            m_filled[kind] = lists[kind];
        }
        return handle < byHandle.size() ? byHandle[handle] : nullptr;
    }
    // The lists moved on to the next entry.
    void invalidate() { std::fill(std::begin(m_built), std::end(m_built), false); }

private:
    std::vector<const VersionHeader *> m_byHandle[KindCount];
    std::vector<const VersionHeader *> m_filled[KindCount];
    bool m_built[KindCount] = {};
};

// Calls f(before, after) for each new version of one kind (before null: it appeared), then
// f(before, null) for each object gone; values decoded with references left as handles.
template<typename T, typename F>
void forEachChange(const Delta<T> &d, Before &before, const IndexMaps &handles, F &&f)
{
    for (const Ref<T> &r : d.added) {
        const VersionHeader *b = before.find(Codec<T>::kind, r->handle);
        const std::optional<T> was = b ? std::optional<T>(decode<T>(b, handles)) : std::nullopt;
        const T now = decode<T>(r.get(), handles);
        f(was ? &*was : nullptr, &now);
    }
    for (quint32 h : d.gone())
        if (const VersionHeader *b = before.find(Codec<T>::kind, h)) {
            const T was = decode<T>(b, handles);
            f(&was, nullptr);
        }
}

void writeEvents(const Entry &e, Before &before, const HistoryEventFilter &filter, QList<HistoryEvent> &out)
{
    EventWriter w(e.serial, e.capturedAt, filter, out);
    IndexMaps handles; // references stay handles: events compare them and look Ray nodes up by them
    handles.identity = true;

    forEachChange(e.rayClusters, before, handles, [&](const RayClusterInfo *a, const RayClusterInfo *b) {
        const RayClusterInfo &any = b ? *b : *a;
        const QString name = any.ns + u'/' + any.name;
        if (!a) {
            w.add(HistoryEventKind::RayClusterAdded, {}, {}, [&](HistoryEvent &ev) {
                ev.subject = name;
                ev.to = b->state;
                ev.text = QStringLiteral("RayCluster %1 appeared%2").arg(name, b->state.isEmpty() ? QString() : QStringLiteral(": ") + b->state);
            });
        } else if (!b) {
            w.add(HistoryEventKind::RayClusterRemoved, {}, {}, [&](HistoryEvent &ev) {
                ev.subject = name;
                ev.from = a->state;
                ev.text = QStringLiteral("RayCluster %1 was deleted").arg(name);
            });
        } else if (a->state != b->state) {
            w.add(HistoryEventKind::RayClusterStateChanged, {}, {}, [&](HistoryEvent &ev) {
                ev.subject = name;
                ev.from = a->state;
                ev.to = b->state;
                ev.text = QStringLiteral("RayCluster %1: %2 → %3").arg(name, a->state.isEmpty() ? QStringLiteral("(no state)") : a->state, b->state.isEmpty() ? QStringLiteral("(no state)") : b->state);
            });
        }
    });

    auto range = [](int lo, int hi) {
        return hi == std::numeric_limits<int>::max() ? QStringLiteral("%1..").arg(lo) : QStringLiteral("%1..%2").arg(lo).arg(hi);
    };
    forEachChange(e.workerGroups, before, handles, [&](const WorkerGroup *a, const WorkerGroup *b) {
        const QString name = (b ? b : a)->qualifiedName();
        if (!a) {
            w.add(HistoryEventKind::WorkerGroupAdded, {}, {}, [&](HistoryEvent &ev) {
                ev.subject = name;
                ev.to = QString::number(b->replicas);
                ev.text = QStringLiteral("worker group %1 appeared: %2 replicas (%3)").arg(name).arg(b->replicas).arg(range(b->minReplicas, b->maxReplicas));
            });
        } else if (!b) {
            w.add(HistoryEventKind::WorkerGroupRemoved, {}, {}, [&](HistoryEvent &ev) {
                ev.subject = name;
                ev.from = QString::number(a->replicas);
                ev.text = QStringLiteral("worker group %1 was removed").arg(name);
            });
        } else if (a->replicas != b->replicas || a->minReplicas != b->minReplicas || a->maxReplicas != b->maxReplicas) {
            w.add(HistoryEventKind::WorkerGroupScaled, {}, {}, [&](HistoryEvent &ev) {
                ev.subject = name;
                ev.from = QString::number(a->replicas);
                ev.to = QString::number(b->replicas);
                QStringList parts;
                if (a->replicas != b->replicas)
                    parts << QStringLiteral("replicas %1 → %2").arg(a->replicas).arg(b->replicas);
                if (a->minReplicas != b->minReplicas || a->maxReplicas != b->maxReplicas)
                    parts << QStringLiteral("range %1 → %2").arg(range(a->minReplicas, a->maxReplicas), range(b->minReplicas, b->maxReplicas));
                ev.text = name + QStringLiteral(": ") + parts.join(QStringLiteral(", "));
            });
        }
    });

    // Ray nodes changed in this entry, by handle: what a host's event can say about its node.
    std::optional<RayNode> nodeScratch;
    auto node = [&](int handle) -> const RayNode * {
        for (const Ref<RayNode> &r : e.rayNodes.added)
            if (handle >= 0 && r->handle == quint32(handle)) {
                nodeScratch = decode<RayNode>(r.get(), handles);
                return &*nodeScratch;
            }
        return nullptr;
    };
    // Pods changed in this entry, likewise: a host turned DEAD by its pod says why.
    std::optional<Pod> podScratch;
    auto pod = [&](int handle) -> const Pod * {
        for (const Ref<Pod> &r : e.pods.added)
            if (handle >= 0 && r->handle == quint32(handle)) {
                podScratch = decode<Pod>(r.get(), handles);
                return &*podScratch;
            }
        return nullptr;
    };
    forEachChange(e.slices, before, handles, [&](const Slice *a, const Slice *b) {
        if (!a) {
            w.add(HistoryEventKind::SliceAdded, b->name, {}, [&](HistoryEvent &ev) {
                ev.subject = b->name;
                ev.to = toText(b->status());
                ev.text = QStringLiteral("slice %1 appeared: %2").arg(b->name, sliceStatusText(*b));
            });
            return;
        }
        if (!b) {
            w.add(HistoryEventKind::SliceRemoved, a->name, {}, [&](HistoryEvent &ev) {
                ev.subject = a->name;
                ev.from = toText(a->status());
                ev.text = QStringLiteral("slice %1 was removed (it was %2)").arg(a->name, toText(a->status()));
            });
            return;
        }
        for (const Host &hb : b->hosts) {
            const Host *ha = nullptr;
            for (const Host &x : a->hosts)
                if (x.workerId == hb.workerId) {
                    ha = &x;
                    break;
                }
            if (!ha || ha->state == hb.state)
                continue;
            const Pod *going = hb.state == HostState::Dead ? pod(hb.pod) : nullptr;
            const bool removed = going && going->terminating;
            w.add(removed ? HistoryEventKind::HostRemoved : hostEventKind(hb.state), b->name, {}, [&](HistoryEvent &ev) {
                ev.subject = QStringLiteral("%1 worker %2").arg(b->name).arg(hb.workerId);
                ev.from = toText(ha->state);
                ev.to = toText(hb.state);
                const RayNode *n = node(hb.rayNode);
                QString detail;
                switch (hb.state) {
                case HostState::Dead:
                    if (removed) {
                        ev.text = ev.subject + QStringLiteral(" is being removed");
                        detail = QStringLiteral("pod %1 is being deleted").arg(going->qualifiedName());
                        break;
                    }
                    ev.text = ev.subject + QStringLiteral(" died");
                    if (going && going->isGone())
                        detail = QStringLiteral("pod %1 %2").arg(going->qualifiedName(), going->lifecycleText());
                    else if (n)
                        detail = QStringLiteral("Ray node %1 (%2)%3").arg(shortId(n->id), n->ip, n->stateMessage.isEmpty() ? QString() : QStringLiteral(": ") + n->stateMessage);
                    break;
                case HostState::Alive:
                    ev.text = ev.subject + QStringLiteral(" is up");
                    if (n && ha->rayNode != hb.rayNode)
                        detail = QStringLiteral("new Ray node %1 (%2)").arg(shortId(n->id), n->ip);
                    break;
                case HostState::Missing:
                    ev.text = ev.subject + QStringLiteral(" is missing: no Ray node or pod reports it");
                    break;
                case HostState::Pending:
                    ev.text = ev.subject + QStringLiteral(" is pending");
                    detail = workerProblem(*b, hb.workerId);
                    break;
                }
                if (!detail.isEmpty())
                    ev.text += QStringLiteral(" (") + detail + u')';
            });
        }
        const SliceStatus from = a->status(), to = b->status();
        if (from != to) {
            w.add(HistoryEventKind::SliceStatusChanged, b->name, {}, [&](HistoryEvent &ev) {
                ev.subject = b->name;
                ev.from = toText(from);
                ev.to = toText(to);
                ev.text = QStringLiteral("%1 became %2").arg(b->name, sliceStatusText(*b));
            });
        }
    });

    forEachChange(e.rayNodes, before, handles, [&](const RayNode *a, const RayNode *b) {
        if (!b || !b->sliceName.isEmpty() || (a && !a->sliceName.isEmpty()))
            return; // slice hosts speak through their slice; a dead node purged from the list is no news
        const bool wasAlive = a && a->alive;
        if (wasAlive == b->alive || (!a && !b->alive))
            return;
        const QString subject = QStringLiteral("Ray node %1 (%2)").arg(b->ip, shortId(b->id));
        w.add(b->alive ? HistoryEventKind::RayNodeUp : HistoryEventKind::RayNodeDied, {}, {}, [&](HistoryEvent &ev) {
            ev.subject = subject;
            ev.from = a ? (a->alive ? QStringLiteral("ALIVE") : QStringLiteral("DEAD")) : QString();
            ev.to = b->alive ? QStringLiteral("ALIVE") : QStringLiteral("DEAD");
            ev.text = b->alive ? (a ? subject + QStringLiteral(" is alive again") : subject + QStringLiteral(" joined"))
                               : subject + QStringLiteral(" died") + (b->stateMessage.isEmpty() ? QString() : QStringLiteral(": ") + b->stateMessage);
        });
    });

    forEachChange(e.placementGroups, before, handles, [&](const PlacementGroup *a, const PlacementGroup *b) {
        const PlacementGroup &any = b ? *b : *a;
        const QString slice = any.slices.value(0);
        auto on = [](const PlacementGroup &g) {
            return g.slices.isEmpty() ? QString() : QStringLiteral(" on ") + g.slices.join(QStringLiteral(", "));
        };
        auto why = [](const PlacementGroup &g) {
            return g.state == QLatin1String("PENDING") && !g.schedulingState.isEmpty() ? QStringLiteral(" (") + g.schedulingState + u')' : QString();
        };
        if (!a) {
            w.add(HistoryEventKind::PlacementGroupAdded, slice, b->id, [&](HistoryEvent &ev) {
                ev.subject = placementGroupLabel(*b);
                ev.to = b->state;
                ev.text = QStringLiteral("placement group %1 appeared: %2%3%4").arg(ev.subject, b->state, why(*b), on(*b));
            });
        } else if (!b) {
            w.add(HistoryEventKind::PlacementGroupRemoved, slice, a->id, [&](HistoryEvent &ev) {
                ev.subject = placementGroupLabel(*a);
                ev.from = a->state;
                ev.text = QStringLiteral("placement group %1 was removed (it was %2%3)").arg(ev.subject, a->state, on(*a));
            });
        } else if (a->state != b->state) {
            w.add(HistoryEventKind::PlacementGroupStateChanged, slice, b->id, [&](HistoryEvent &ev) {
                ev.subject = placementGroupLabel(*b);
                ev.from = a->state;
                ev.to = b->state;
                ev.text = QStringLiteral("placement group %1: %2 → %3%4%5").arg(ev.subject, a->state, b->state, why(*b), on(*b));
            });
        }
    });

    forEachChange(e.pods, before, handles, [&](const Pod *a, const Pod *b) {
        const Pod &any = b ? *b : *a;
        const QString name = any.qualifiedName();
        if (!a) {
            w.add(HistoryEventKind::PodAdded, b->replicaKey, {}, [&](HistoryEvent &ev) {
                ev.subject = name;
                ev.to = b->phase;
                ev.text = QStringLiteral("pod %1 appeared: %2").arg(name, b->phase.isEmpty() ? QStringLiteral("(no phase)") : b->phase);
            });
        } else if (!b) {
            w.add(HistoryEventKind::PodRemoved, a->replicaKey, {}, [&](HistoryEvent &ev) {
                ev.subject = name;
                ev.from = a->phase;
                ev.text = QStringLiteral("pod %1 was deleted (it was %2)").arg(name, a->phase.isEmpty() ? QStringLiteral("without a phase") : a->phase);
            });
        } else if (a->phase != b->phase) {
            w.add(HistoryEventKind::PodPhaseChanged, b->replicaKey, {}, [&](HistoryEvent &ev) {
                ev.subject = name;
                ev.from = a->phase;
                ev.to = b->phase;
                ev.text = QStringLiteral("pod %1: %2 → %3").arg(name, a->phase, b->phase);
            });
        }
    });
}

} // namespace

QList<HistoryEvent> SnapshotHistory::events(int index) const
{
    return events(index, index);
}

QList<HistoryEvent> SnapshotHistory::events(int first, int last, const HistoryEventFilter &filter) const
{
    QList<HistoryEvent> out;
    first = std::max(first, 1); // the oldest entry has nothing kept to compare with
    last = std::min(last, size() - 1);
    if (first > last)
        return out;
    // The lists of the entry before `first`, then moved on entry by entry.
    Before before;
    int key = first - 1;
    while (!d->entries[size_t(key)].keyframe)
        --key;
    d->forEachColumn([&](const auto &c, auto member) {
        before.lists[std::remove_reference_t<decltype(c)>::kind] = versions(d->entries, key, first - 1, member);
    });
    std::vector<const VersionHeader *> scratch;
    for (int i = first; i <= last; ++i) {
        const Entry &e = d->entries[size_t(i)];
        writeEvents(e, before, filter, out);
        if (i == last)
            break;
        d->forEachColumn([&](const auto &c, auto member) {
            advance(before.lists[std::remove_reference_t<decltype(c)>::kind], e.*member, e.keyframe, scratch);
        });
        before.invalidate();
    }
    return out;
}

QString toText(HistoryEventKind kind)
{
    switch (kind) {
    case HistoryEventKind::RayClusterAdded: return QStringLiteral("raycluster-added");
    case HistoryEventKind::RayClusterRemoved: return QStringLiteral("raycluster-removed");
    case HistoryEventKind::RayClusterStateChanged: return QStringLiteral("raycluster-state-changed");
    case HistoryEventKind::WorkerGroupAdded: return QStringLiteral("worker-group-added");
    case HistoryEventKind::WorkerGroupRemoved: return QStringLiteral("worker-group-removed");
    case HistoryEventKind::WorkerGroupScaled: return QStringLiteral("worker-group-scaled");
    case HistoryEventKind::SliceAdded: return QStringLiteral("slice-added");
    case HistoryEventKind::SliceRemoved: return QStringLiteral("slice-removed");
    case HistoryEventKind::SliceStatusChanged: return QStringLiteral("slice-status-changed");
    case HistoryEventKind::HostDied: return QStringLiteral("host-died");
    case HistoryEventKind::HostRemoved: return QStringLiteral("host-removed");
    case HistoryEventKind::HostUp: return QStringLiteral("host-up");
    case HistoryEventKind::HostMissing: return QStringLiteral("host-missing");
    case HistoryEventKind::HostPending: return QStringLiteral("host-pending");
    case HistoryEventKind::RayNodeDied: return QStringLiteral("ray-node-died");
    case HistoryEventKind::RayNodeUp: return QStringLiteral("ray-node-up");
    case HistoryEventKind::PlacementGroupAdded: return QStringLiteral("placement-group-added");
    case HistoryEventKind::PlacementGroupStateChanged: return QStringLiteral("placement-group-state-changed");
    case HistoryEventKind::PlacementGroupRemoved: return QStringLiteral("placement-group-removed");
    case HistoryEventKind::PodAdded: return QStringLiteral("pod-added");
    case HistoryEventKind::PodRemoved: return QStringLiteral("pod-removed");
    case HistoryEventKind::PodPhaseChanged: return QStringLiteral("pod-phase-changed");
    }
    Q_UNREACHABLE();
}

QDebug operator<<(QDebug debug, HistoryEventKind kind)
{
    QDebugStateSaver saver(debug);
    debug.noquote() << toText(kind);
    return debug;
}

QDebug operator<<(QDebug debug, const HistoryEvent &event)
{
    QDebugStateSaver saver(debug);
    debug.nospace().noquote() << "HistoryEvent(" << event.serial << ", " << toText(event.kind) << ", " << event.text << ')';
    return debug;
}

} // namespace slicescope
