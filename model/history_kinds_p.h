// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What SnapshotHistory stores of each kind of object in a snapshot: one Codec<T> per type of
// snapshot.h (its identity key, its field list for the archives of history_codec_p.h, how its
// cross references are compared and mapped), decode() and releaseStrings() of a version, and
// deepBytes(), the estimate of a version kept as a plain copy. A field added to snapshot.h goes
// into fields() and deepBytes() here. Private to model/.

#include "history_codec_p.h"
#include "snapshot.h"

namespace slicescope::historydetail {

template<typename T>
struct Codec;

// Each Codec<T> has:
//   key(v)           the identity within its list
//   fields(a, v)     every field, in order, through an archive (Writer, Reader, Reader<true>)
//   same(a, ma, b, mb)  equal once each side's indexes are mapped to handles
//   toHandles(v, m) / toIndexes(v, m)  the reference fields of a plain copy
// Comparisons copy the values, overwrite the reference fields and use the defaulted operator==,
// so a field added to snapshot.h later is still compared; the round-trip check in
// Private::encode() catches one the codec does not carry yet.

// The same(), toHandles() and toIndexes() of kinds whose objects point at no other object.
template<typename T>
struct NoReferences {
    static bool same(const T &a, const HandleMaps &, const T &b, const HandleMaps &) { return a == b; }
    static void toHandles(T &, const HandleMaps &) { }
    static void toIndexes(T &, const IndexMaps &) { }
};

template<>
struct Codec<RayNode> : NoReferences<RayNode> {
    static constexpr Kind kind = RayNodes;
    static QString key(const RayNode &n) { return n.id; }
    static bool sameKey(const RayNode &a, const RayNode &b) { return a.id == b.id; }
    template<typename A, typename V>
    static void fields(A &a, V &n)
    {
        a.text(n.id);
        a.text(n.ip);
        a.text(n.name);
        a.flag(n.isHead);
        a.flag(n.alive);
        a.text(n.stateMessage);
        a.number(n.tpu);
        a.number(n.cpu);
        a.flag(n.hasSliceHeadResource);
        a.text(n.sliceName);
        a.text(n.podType);
        a.text(n.topology);
        a.text(n.acceleratorType);
        a.text(n.nodeGroup);
        a.integer(n.workerId);
        a.integer(n.startTimeMs);
        a.integer(n.endTimeMs);
        a.texts(n.subslices);
        a.text(n.unrecognised);
        a.text(n.rayCluster);
    }
};

template<>
struct Codec<Pod> : NoReferences<Pod> {
    static constexpr Kind kind = Pods;
    static QString key(const Pod &p) { return p.qualifiedName(); }
    static bool sameKey(const Pod &a, const Pod &b) { return a.name == b.name && a.ns == b.ns; }
    template<typename A, typename V>
    static void fields(A &a, V &p)
    {
        a.text(p.ns);
        a.text(p.name);
        a.text(p.phase);
        a.flag(p.ready);
        a.flag(p.terminating);
        a.text(p.podIp);
        a.text(p.nodeName);
        a.text(p.cluster);
        a.text(p.group);
        a.flag(p.isHead);
        a.text(p.replicaKey);
        a.text(p.tpuName);
        a.integer(p.hostIndex);
        a.integer(p.tpuChips);
        a.text(p.accelerator);
        a.text(p.topology);
        a.text(p.reason);
        a.text(p.message);
        a.text(p.created);
        a.texts(p.megascale);
        a.text(p.unrecognised);
    }
};

template<>
struct Codec<KubeNode> : NoReferences<KubeNode> {
    static constexpr Kind kind = KubeNodes;
    static QString key(const KubeNode &n) { return n.name; }
    static bool sameKey(const KubeNode &a, const KubeNode &b) { return a.name == b.name; }
    template<typename A, typename V>
    static void fields(A &a, V &n)
    {
        a.text(n.name);
        a.text(n.accelerator);
        a.text(n.topology);
        a.text(n.nodePool);
        a.integer(n.tpuCapacity);
        a.flag(n.ready);
    }
};

template<>
struct Codec<Slice> {
    static constexpr Kind kind = Slices;
    static QString key(const Slice &s) { return s.name; }
    static bool sameKey(const Slice &a, const Slice &b) { return a.name == b.name; }
    template<typename A, typename V>
    static void fields(A &a, V &s)
    {
        a.text(s.name);
        a.generation(s.generation);
        a.topology(s.topology);
        a.text(s.podType);
        a.integer(s.chipsPerHost);
        a.layout(s.layout, s.generation, s.topology, s.chipsPerHost);
        a.enumeration(s.source);
        a.text(s.workerGroup);
        a.list(s.hosts, [&](auto &h) {
            a.integer(h.workerId);
            a.enumeration(h.state);
            a.reference(RayNodes, h.rayNode);
            a.reference(Pods, h.pod);
            a.reference(KubeNodes, h.kubeNode);
            a.integer(h.reportedChips);
            a.integer(h.unplacedReservedChips);
            a.list(h.chips, [&](auto &c) { a.reference(PlacementGroups, c.placementGroup); a.integer(c.bundleIndex); });
        });
        a.flag(s.intact);
        a.integer(s.reservedChips);
        a.reference(PlacementGroups, s.headHeldBy);
        a.texts(s.problems);
        a.text(s.unknownGeneration);
        a.text(s.rayName);
        a.integer(s.tpuPerChip);
        a.text(s.unrecognised);
        a.text(s.context);
        a.text(s.rayCluster);
    }
    static Host mapped(const Host &h, const HandleMaps &m)
    {
        Host x = h;
        x.rayNode = m(RayNodes, h.rayNode);
        x.pod = m(Pods, h.pod);
        x.kubeNode = m(KubeNodes, h.kubeNode);
        x.chips = {};
        return x;
    }
    static bool same(const Slice &a, const HandleMaps &ma, const Slice &b, const HandleMaps &mb)
    {
        if (a.hosts.size() != b.hosts.size() || ma(PlacementGroups, a.headHeldBy) != mb(PlacementGroups, b.headHeldBy))
            return false;
        for (qsizetype i = 0; i < a.hosts.size(); ++i) {
            const Host &ha = a.hosts[i], &hb = b.hosts[i];
            if (ha.chips.size() != hb.chips.size() || !(mapped(ha, ma) == mapped(hb, mb)))
                return false;
            for (qsizetype c = 0; c < ha.chips.size(); ++c) {
                ChipUse x = ha.chips[c], y = hb.chips[c];
                x.placementGroup = ma(PlacementGroups, x.placementGroup);
                y.placementGroup = mb(PlacementGroups, y.placementGroup);
                if (!(x == y))
                    return false;
            }
        }
        Slice x = a, y = b;
        x.hosts = {};
        y.hosts = {};
        x.headHeldBy = y.headHeldBy = 0;
        return x == y;
    }
    // Handles for indexes (toHandles) or back (toIndexes): the same fields either way.
    template<typename Maps>
    static void mapReferences(Slice &s, const Maps &m)
    {
        s.headHeldBy = m(PlacementGroups, s.headHeldBy);
        for (Host &h : s.hosts) {
            h.rayNode = m(RayNodes, h.rayNode);
            h.pod = m(Pods, h.pod);
            h.kubeNode = m(KubeNodes, h.kubeNode);
            for (ChipUse &c : h.chips)
                c.placementGroup = m(PlacementGroups, c.placementGroup);
        }
    }
    static void toHandles(Slice &s, const HandleMaps &m) { mapReferences(s, m); }
    static void toIndexes(Slice &s, const IndexMaps &m) { mapReferences(s, m); }
};

template<>
struct Codec<PlacementGroup> {
    static constexpr Kind kind = PlacementGroups;
    static QString key(const PlacementGroup &g) { return g.id; }
    static bool sameKey(const PlacementGroup &a, const PlacementGroup &b) { return a.id == b.id; }
    template<typename A, typename V>
    static void fields(A &a, V &g)
    {
        a.text(g.id);
        a.text(g.name);
        a.text(g.state);
        a.text(g.creatorJobId);
        a.text(g.schedulingState);
        a.flag(g.detached);
        a.enumeration(g.kind);
        a.list(g.bundles, [&](auto &b) {
            a.integer(b.index);
            a.text(b.nodeId);
            a.reference(RayNodes, b.rayNode);
            a.reference(Slices, b.slice);
            a.integer(b.workerId);
            a.integer(b.tpu);
            a.number(b.cpu);
            a.text(b.selectorSlice);
            a.text(b.headResource);
        });
        a.texts(g.slices);
        a.text(g.reservation);
        a.integer(g.reservationSize);
        a.text(g.context);
        a.text(g.rayCluster);
    }
    static Bundle mapped(const Bundle &b, const HandleMaps &m)
    {
        Bundle x = b;
        x.rayNode = m(RayNodes, b.rayNode);
        x.slice = m(Slices, b.slice);
        return x;
    }
    static bool same(const PlacementGroup &a, const HandleMaps &ma, const PlacementGroup &b, const HandleMaps &mb)
    {
        if (a.bundles.size() != b.bundles.size())
            return false;
        for (qsizetype i = 0; i < a.bundles.size(); ++i)
            if (!(mapped(a.bundles[i], ma) == mapped(b.bundles[i], mb)))
                return false;
        PlacementGroup x = a, y = b;
        x.bundles = {};
        y.bundles = {};
        return x == y;
    }
    template<typename Maps>
    static void mapReferences(PlacementGroup &g, const Maps &m)
    {
        for (Bundle &b : g.bundles) {
            b.rayNode = m(RayNodes, b.rayNode);
            b.slice = m(Slices, b.slice);
        }
    }
    static void toHandles(PlacementGroup &g, const HandleMaps &m) { mapReferences(g, m); }
    static void toIndexes(PlacementGroup &g, const IndexMaps &m) { mapReferences(g, m); }
};

template<>
struct Codec<WorkerGroup> : NoReferences<WorkerGroup> {
    static constexpr Kind kind = WorkerGroups;
    // The key names the group on the charts; a fleet's contexts may repeat it (the storage then
    // tells them apart by a suffix), sameKey() by the context too.
    static QString key(const WorkerGroup &g) { return g.qualifiedName(); }
    static bool sameKey(const WorkerGroup &a, const WorkerGroup &b) { return a.group == b.group && a.cluster == b.cluster && a.ns == b.ns && a.context == b.context; }
    template<typename A, typename V>
    static void fields(A &a, V &g)
    {
        a.text(g.ns);
        a.text(g.cluster);
        a.text(g.group);
        a.integer(g.replicas);
        a.integer(g.minReplicas);
        a.integer(g.maxReplicas);
        a.integer(g.numOfHosts);
        a.text(g.accelerator);
        a.text(g.topology);
        a.integer(g.chipsPerHost);
        a.flag(g.autoscaling);
        a.flag(g.suspended);
        a.texts(g.workersToDelete);
        a.texts(g.slices);
        a.integer(g.specIndex);
        a.flag(g.replicasSet);
        a.text(g.context);
    }
};

template<>
struct Codec<RayClusterInfo> : NoReferences<RayClusterInfo> {
    static constexpr Kind kind = RayClusters;
    static QString key(const RayClusterInfo &c) { return c.ns + u'/' + c.name; }
    static bool sameKey(const RayClusterInfo &a, const RayClusterInfo &b) { return a.name == b.name && a.ns == b.ns && a.context == b.context; }
    template<typename A, typename V>
    static void fields(A &a, V &c)
    {
        a.text(c.ns);
        a.text(c.name);
        a.text(c.state);
        a.text(c.headServiceName);
        a.integer(c.generation);
        a.integer(c.observedGeneration);
        a.text(c.resourceVersion);
        a.flag(c.autoscaling);
        a.text(c.context);
    }
};

template<>
struct Codec<Job> : NoReferences<Job> {
    static constexpr Kind kind = Jobs;
    static QString key(const Job &j) { return !j.submissionId.isEmpty() ? j.submissionId : j.jobId; }
    static bool sameKey(const Job &a, const Job &b) { return key(a) == key(b); }
    template<typename A, typename V>
    static void fields(A &a, V &j)
    {
        a.text(j.submissionId);
        a.text(j.jobId);
        a.text(j.status);
        a.text(j.entrypoint);
        a.text(j.message);
        a.integer(j.startTimeMs);
        a.integer(j.endTimeMs);
        a.text(j.context);
        a.text(j.rayCluster);
    }
};

template<typename T>
void releaseStrings(const VersionHeader *h)
{
    Reader<true> r(h->data(), h->size, *h->account->strings, nullptr);
    T scratch;
    Codec<T>::fields(r, scratch);
}

// The value of a version, with references as `maps` says (indexes, or handles).
template<typename T>
T decode(const VersionHeader *h, const IndexMaps &maps)
{
    if (h->plain()) {
        T v = plainValue<T>(h);
        Codec<T>::toIndexes(v, maps);
        return v;
    }
    T v;
    Reader<false> r(h->data(), h->size, *h->account->strings, &maps);
    Codec<T>::fields(r, v);
    return v;
}

// The deep bytes of a plain copy (its texts and lists; shared ones counted as if they were not).
inline qint64 deepBytes(const RayNode &n)
{
    return stringBytes(n.id) + stringBytes(n.ip) + stringBytes(n.name) + stringBytes(n.stateMessage) + stringBytes(n.sliceName)
           + stringBytes(n.podType) + stringBytes(n.topology) + stringBytes(n.acceleratorType) + stringBytes(n.nodeGroup);
}
inline qint64 deepBytes(const Pod &p)
{
    return stringBytes(p.ns) + stringBytes(p.name) + stringBytes(p.phase) + stringBytes(p.podIp) + stringBytes(p.nodeName)
           + stringBytes(p.cluster) + stringBytes(p.group) + stringBytes(p.replicaKey) + stringBytes(p.tpuName)
           + stringBytes(p.accelerator) + stringBytes(p.topology);
}
inline qint64 deepBytes(const KubeNode &n)
{
    return stringBytes(n.name) + stringBytes(n.accelerator) + stringBytes(n.topology) + stringBytes(n.nodePool);
}
inline qint64 deepBytes(const QStringList &l)
{
    qint64 b = arrayBytes(l);
    for (const QString &s : l)
        b += stringBytes(s);
    return b;
}
inline qint64 deepBytes(const Slice &s)
{
    qint64 b = stringBytes(s.name) + stringBytes(s.podType) + stringBytes(s.workerGroup) + arrayBytes(s.hosts) + deepBytes(s.problems);
    for (const Host &h : s.hosts)
        b += arrayBytes(h.chips);
    return b;
}
inline qint64 deepBytes(const PlacementGroup &g)
{
    qint64 b = stringBytes(g.id) + stringBytes(g.name) + stringBytes(g.state) + stringBytes(g.creatorJobId)
               + stringBytes(g.schedulingState) + arrayBytes(g.bundles) + deepBytes(g.slices);
    for (const Bundle &x : g.bundles)
        b += stringBytes(x.nodeId) + stringBytes(x.selectorSlice) + stringBytes(x.headResource);
    return b;
}
inline qint64 deepBytes(const WorkerGroup &g)
{
    return stringBytes(g.ns) + stringBytes(g.cluster) + stringBytes(g.group) + stringBytes(g.accelerator) + stringBytes(g.topology)
           + deepBytes(g.workersToDelete) + deepBytes(g.slices);
}
inline qint64 deepBytes(const RayClusterInfo &c)
{
    return stringBytes(c.ns) + stringBytes(c.name) + stringBytes(c.state) + stringBytes(c.headServiceName) + stringBytes(c.resourceVersion);
}
inline qint64 deepBytes(const Job &j)
{
    return stringBytes(j.submissionId) + stringBytes(j.jobId) + stringBytes(j.status) + stringBytes(j.entrypoint) + stringBytes(j.message);
}
} // namespace slicescope::historydetail
