// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A fleet's captures for tests (issue 16): a context holding two RayClusters, team-a/llm and
// team-b/rl, each with its own Ray view, built through CaptureBuilder so they go through the real
// parsers. Used by the model's and the widgets' fleet tests.

#include "capturefixture.h"

namespace slicescope::testfixture {

inline constexpr int kHosts = 4;

// One RayCluster "ns/name" with one v6e 4x4 worker group "tpu" (so its slice is "tpu-0" in every
// cluster), its pods at ipPrefix + 1..4 on nodes nodePrefix-0..3.
inline void addCluster(CaptureBuilder &kube, const QString &ns, const QString &name, const QString &ipPrefix, const QString &nodePrefix)
{
    kube.addRayCluster(ns, name, false, QJsonArray{CaptureBuilder::workerGroup(QStringLiteral("tpu"), 1, 0, 4, kHosts, QStringLiteral("tpu-v6e-slice"), QStringLiteral("4x4"), 4)});
    for (int w = 0; w < kHosts; ++w) {
        kube.addTpuPod(ns, QStringLiteral("%1-tpu-worker-%2").arg(name).arg(w), name, QStringLiteral("tpu"), name + QStringLiteral("-tpu-0"), QStringLiteral("tpu-0"), w,
                       ipPrefix + QString::number(w + 1), nodePrefix + QString::number(w), QStringLiteral("tpu-v6e-slice"), QStringLiteral("4x4"), 4);
        kube.addKubeNode(nodePrefix + QString::number(w), QStringLiteral("tpu-v6e-slice"), QStringLiteral("4x4"), QStringLiteral("pool"), 4);
    }
}

// That cluster's own Ray: the slice "tpu-0" on the same IPs, optionally held whole by group `pg`.
inline Capture rayView(const QString &cluster, const QString &ipPrefix, const QString &seed, const QString &pg = {})
{
    CaptureBuilder ray;
    ray.addHeadNode(hexId(seed + QStringLiteral("head"), 56), ipPrefix + QStringLiteral("100"));
    SliceSpec spec{QStringLiteral("tpu-0"), QStringLiteral("TPU-V6E"), QStringLiteral("v6e-16"), QStringLiteral("4x4"), QStringLiteral("tpu"), kHosts, 4, {}, {}, hexId(seed, 48), ipPrefix};
    const QStringList ids = ray.addSlice(spec);
    if (!pg.isEmpty()) ray.addSlicePlacementGroup(hexId(seed + pg, 36), pg, QStringLiteral("tpu-0"), ids, 4);
    Capture c = ray.capture(false);
    c.rayCluster = cluster;
    return c;
}

// The Kubernetes bodies of `kube` as context `context`'s capture (its Ray views to be added).
inline Capture kubeOnly(CaptureBuilder &kube, const QString &context)
{
    Capture c = kube.capture(true);
    c.rayVersion.clear();
    c.rayNodes.clear();
    c.rayPlacementGroups.clear();
    c.kubeContext = context;
    return c;
}

// A context holding team-a/llm and team-b/rl, each with its Ray view; llm's group "train" holds its slice.
inline Capture twoClusterContext(const QString &context)
{
    CaptureBuilder kube;
    addCluster(kube, QStringLiteral("team-a"), QStringLiteral("llm"), QStringLiteral("10.1.0."), QStringLiteral("gke-a-"));
    addCluster(kube, QStringLiteral("team-b"), QStringLiteral("rl"), QStringLiteral("10.2.0."), QStringLiteral("gke-b-"));
    Capture c = kubeOnly(kube, context);
    c.rayClusters = {rayView(QStringLiteral("team-a/llm"), QStringLiteral("10.1.0."), context + QStringLiteral("a"), QStringLiteral("train")),
                     rayView(QStringLiteral("team-b/rl"), QStringLiteral("10.2.0."), context + QStringLiteral("b"))};
    return c;
}

// The same two RayClusters with no placement group: one free v6e 4x4 slice in each, two ready
// slices in two Ray clusters (issue 31: a group can take only one of them).
inline Capture twoFreeClusterContext(const QString &context)
{
    CaptureBuilder kube;
    addCluster(kube, QStringLiteral("team-a"), QStringLiteral("llm"), QStringLiteral("10.1.0."), QStringLiteral("gke-a-"));
    addCluster(kube, QStringLiteral("team-b"), QStringLiteral("rl"), QStringLiteral("10.2.0."), QStringLiteral("gke-b-"));
    Capture c = kubeOnly(kube, context);
    c.rayClusters = {rayView(QStringLiteral("team-a/llm"), QStringLiteral("10.1.0."), context + QStringLiteral("a")),
                     rayView(QStringLiteral("team-b/rl"), QStringLiteral("10.2.0."), context + QStringLiteral("b"))};
    return c;
}

// A fleet capture of these contexts' captures (twoClusterContext() each, or edited copies).
inline Capture fleetOf(const QList<Capture> &contexts)
{
    Capture fleet;
    fleet.capturedAt = QDateTime(QDate(2026, 11, 29), QTime(18, 0), Qt::UTC);
    fleet.fleet = contexts;
    return fleet;
}

} // namespace slicescope::testfixture
