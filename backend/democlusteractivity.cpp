// SPDX-License-Identifier: GPL-3.0-or-later
// The demo cluster's chip activity: what Ray's dashboard answers to GET /nodes?view=summary
// (docs/facts.md 2.5), each node's `tpus` as its reporter agent read them from the TPU device
// plugin, with the story of democluster.h. The numbers are a pure function of the seed, the
// node, the chip and the reporter's sample time: no draw from the simulation's generator, so
// every other body stays exactly what it was, and advancing in steps or at once agrees. The
// demo's Prometheus answers the idle window's query from the same samples (windowMaxBody), for
// the chips whose work it saw whole (noteWork() marks when chips change hands).
#include "democluster.h"
#include "democluster_p.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace slicescope {

using demo::s;

namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;
// The port KubeRay's samples give `ray start --metrics-export-port`.
constexpr int kMetricsExportPort = 8080;

// HBM per chip as Google publishes it (Cloud TPU system architecture pages): v4 32 GiB, v5e 16,
// v5p 95, v6e 32. By GKE accelerator label; an unknown generation reports no total.
double hbmBytesPerChip(const QString &gkeAccelerator)
{
    if (gkeAccelerator.startsWith(QLatin1String("tpu-v6e"))) return 32 * kGiB;
    if (gkeAccelerator.startsWith(QLatin1String("tpu-v5-lite"))) return 16 * kGiB;
    if (gkeAccelerator.startsWith(QLatin1String("tpu-v5p"))) return 95 * kGiB;
    if (gkeAccelerator.startsWith(QLatin1String("tpu-v4"))) return 32 * kGiB;
    return 0;
}

// A portable, seeded hash (qHash may differ between CPUs): FNV-1a, then splitmix64's finaliser.
quint64 mix(quint64 x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

quint64 hashOf(const QString &text, quint64 seed)
{
    quint64 h = 0xcbf29ce484222325ULL ^ seed;
    for (const QChar c : text) {
        h ^= c.unicode();
        h *= 0x100000001b3ULL;
    }
    return mix(h);
}

// A uniform number in [0, 1) from a node's hash and what else distinguishes the draw.
double unit(quint64 node, quint64 a, quint64 b, quint64 salt)
{
    return double(mix(node ^ mix(a ^ mix(b ^ mix(salt)))) >> 11) * 0x1.0p-53;
}

double round1(double v)
{
    return std::round(v * 10) / 10;
}

// What a chip is doing in the story.
enum class Work
{
    Idle,          // nothing runs: 0 %
    Training,      // llm-train: 70-95 %
    ReservedIdle,  // held by a placement group nobody uses: 0-2 %
    Notebook,      // a notebook's bursts
    UnreservedJob, // a job with no placement group, on v6e-4x4-2
};

struct ChipNumbers {
    double duty = 0, tensorcore = 0, bandwidth = 0, usedFraction = 0;
};

// A chip's numbers in the sample its node's agent took at `sampleMs`: a pure function of the work,
// the node, the chip and the time (peerDead: a host of its slice had died by then).
ChipNumbers numbersAt(Work work, quint64 nodeHash, int chip, qint64 sampleMs, bool peerDead)
{
    const double t = double(sampleMs) / 1000;
    auto noise = [&](quint64 salt) {
        return unit(nodeHash, quint64(chip), quint64(sampleMs), salt);
    };
    // A slow wave per node (a training step's rhythm) plus a per-sample jitter.
    const double wave = std::sin(2 * std::numbers::pi * t / 47.0 + double(nodeHash % 628) / 100.0);
    ChipNumbers c;
    switch (work) {
    case Work::Idle: break;
    case Work::Training:
        c.duty = std::clamp(83 + 8 * wave + 6 * (noise(1) - 0.5), 70.0, 95.0);
        c.usedFraction = 0.70 + 0.02 * (unit(nodeHash, quint64(chip), 0, 2) - 0.5);
        break;
    case Work::UnreservedJob:
        c.duty = peerDead ? 3 * noise(1) : std::clamp(72 + 9 * wave + 6 * (noise(1) - 0.5), 60.0, 85.0);
        c.usedFraction = 0.55 + 0.02 * (unit(nodeHash, quint64(chip), 0, 2) - 0.5);
        break;
    case Work::ReservedIdle:
        c.duty = 2 * noise(1) * noise(3);
        c.usedFraction = 0.04;
        break;
    case Work::Notebook: {
        // Bursts of 20 s in every minute, by the simulated clock.
        const bool burst = std::fmod(t + double(nodeHash % 60), 60.0) < 20;
        c.duty = burst ? 25 + 15 * noise(1) : 2 * noise(1);
        c.usedFraction = 0.30;
        break;
    }
    }
    c.duty = round1(c.duty);
    c.tensorcore = round1(c.duty * (0.78 + 0.1 * noise(4)));
    c.bandwidth = round1(c.duty * (0.5 + 0.1 * noise(5)));
    return c;
}

} // namespace

QHash<QString, QList<int>> DemoCluster::chipWorkByNode() const
{
    // Which chips the placement groups hold: per node, bundles fill its chips in order
    // (docs/facts.md 3); a group's work follows from what it is.
    struct Held {
        int chips = 0;
        Work work = Work::Idle;
    };
    QHash<QString, QList<Held>> heldOn;
    for (const PlacementGroup &pg : m_groupsPg) {
        if (pg.state != QLatin1String("CREATED"))
            continue;
        const Work work = pg.name == QLatin1String("llm-train")        ? Work::Training
                          : pg.name == QLatin1String("notebook-alice") ? Work::Notebook
                                                                       : Work::ReservedIdle; // rl-rollout, SliceScope's reservations
        for (const Bundle &b : pg.bundles) {
            const int tpu = int(b.resources.value(s("TPU")));
            if (tpu > 0 && !b.nodeId.isEmpty())
                heldOn[b.nodeId].append({tpu, work});
        }
    }
    QHash<QString, QList<int>> out;
    for (const Node &n : m_nodes) {
        if (!n.alive || n.tpu <= 0)
            continue;
        const QList<Held> held = heldOn.value(n.id);
        QList<int> &work = out[n.id];
        for (int chip = 0; chip < int(n.tpu); ++chip) {
            Work w = n.sliceName == QLatin1String("v6e-4x4-2") ? Work::UnreservedJob : Work::Idle;
            for (int i = 0, first = 0; i < held.size(); first += held[i].chips, ++i)
                if (chip >= first && chip < first + held[i].chips)
                    w = held[i].work;
            work.append(int(w));
        }
    }
    return out;
}

void DemoCluster::noteWork(qint64 sinceMs)
{
    const QHash<QString, QList<int>> now = chipWorkByNode();
    for (auto it = now.begin(); it != now.end(); ++it) {
        auto mark = m_workSince.find(it.key());
        if (mark == m_workSince.end())
            m_workSince.insert(it.key(), {it.value(), sinceMs});
        else if (mark->work != it.value())
            *mark = {it.value(), sinceMs};
    }
    for (auto it = m_workSince.begin(); it != m_workSince.end();)
        it = now.contains(it.key()) ? std::next(it) : m_workSince.erase(it); // dead or gone
}

namespace {

// The pod of a node (null for none) and whether its agent reads the TPU device plugin:
// v5p-4x4x4's pods run an image whose agents were never given TPU_DEVICE_PLUGIN_ADDR.
template<typename Pods, typename Node>
auto podOf(const Pods &pods, const Node &n) -> decltype(&pods.front())
{
    for (const auto &p : pods)
        if (p.name == n.name)
            return &p;
    return nullptr;
}

template<typename Pod, typename Node>
bool readsPlugin(const Pod *pod, const Node &n)
{
    return pod && !pod->head && n.tpu > 0 && pod->group != QLatin1String("v5p-4x4x4");
}

// Since when a host of `slice` is dead (the earliest death), or the far future.
template<typename Nodes>
qint64 sliceDeathMs(const Nodes &nodes, const QString &slice)
{
    qint64 at = std::numeric_limits<qint64>::max();
    for (const auto &o : nodes)
        if (!o.alive && o.sliceName == slice)
            at = std::min(at, o.endMs);
    return at;
}

} // namespace

QByteArray DemoCluster::nodeSummaryBody() const
{
    const qint64 epoch = m_start.toMSecsSinceEpoch();
    const QHash<QString, QList<int>> workByNode = chipWorkByNode();

    QList<const Node *> sorted;
    for (const Node &n : m_nodes)
        sorted.append(&n);
    std::sort(sorted.begin(), sorted.end(), [](const Node *a, const Node *b) { return a->id < b->id; }); // as the state API lists them

    QJsonArray summary;
    for (const Node *n : std::as_const(sorted)) {
        QJsonObject raylet{
            {s("nodeId"), n->id},
            {s("nodeManagerAddress"), n->ip},
            {s("nodeManagerHostname"), n->name},
            {s("metricsExportPort"), kMetricsExportPort},
            {s("state"), n->alive ? s("ALIVE") : s("DEAD")},
            {s("isHeadNode"), n->isHead},
        };
        // The newest report of this node's agent: one every kReporterIntervalMs, each node on
        // its own phase, the first when it joins. A dead node's stats are gone.
        const quint64 nodeHash = hashOf(n->id, m_seed);
        const qint64 phase = qint64(nodeHash % quint64(kReporterIntervalMs));
        const qint64 sampleMs = std::max(n->startMs, phase + qint64(std::floor(double(m_now - phase) / kReporterIntervalMs)) * kReporterIntervalMs);
        if (!n->alive) {
            if (!n->stateMessage.isEmpty())
                raylet.insert(s("stateMessage"), n->stateMessage);
            summary.append(QJsonObject{{s("raylet"), raylet}, {s("tpus"), QJsonArray()}});
            continue;
        }

        QJsonArray tpus;
        const Pod *pod = podOf(m_pods, *n);
        if (readsPlugin(pod, *n)) {
            const double total = hbmBytesPerChip(pod->accelerator);
            // A collective stalls when a host of its slice died before this sample.
            const bool peerDead = sliceDeathMs(m_nodes, n->sliceName) <= sampleMs;
            const QString uid = QString::number(1000000000000000000ULL + hashOf(n->sliceName, m_seed) % 8000000000000000000ULL);
            const QList<int> work = workByNode.value(n->id);
            for (int chip = 0; chip < int(n->tpu); ++chip) {
                const ChipNumbers c = numbersAt(Work(work.value(chip)), nodeHash, chip, sampleMs, peerDead);
                tpus.append(QJsonObject{
                    {s("index"), chip},
                    {s("name"), QStringLiteral("%1-%2").arg(uid).arg(chip)},
                    {s("tpuType"), pod->accelerator},
                    {s("tpuTopology"), pod->topology},
                    {s("tensorcoreUtilization"), c.tensorcore},
                    {s("hbmUtilization"), c.bandwidth},
                    {s("dutyCycle"), c.duty},
                    {s("memoryUsed"), qint64(std::round(c.usedFraction * total))},
                    {s("memoryTotal"), qint64(total)},
                });
            }
        }
        summary.append(QJsonObject{
            {s("now"), double(epoch + sampleMs) / 1000},
            {s("hostname"), n->name},
            {s("ip"), n->ip},
            {s("raylet"), raylet},
            {s("tpus"), tpus},
        });
    }
    QByteArray bytes = QJsonDocument(QJsonObject{
                                         {s("result"), true},
                                         {s("msg"), s("Node summary fetched.")},
                                         {s("data"), QJsonObject{{s("summary"), summary}}},
                                     })
                           .toJson(QJsonDocument::Compact);
    reserveParsePadding(bytes);
    return bytes;
}

// Prometheus's answer to promql::windowMaxQuery(seconds): each chip's highest duty cycle over the
// agent's samples in the window, for the chips whose node and work it saw whole; labels as the
// query keeps them (TpuIndex, instance, ip), sorted as Prometheus sorts them.
QByteArray DemoCluster::windowMaxBody(int seconds) const
{
    const qint64 windowMs = qint64(seconds) * 1000;
    const QHash<QString, QList<int>> workByNode = chipWorkByNode();
    QList<const Node *> sorted;
    for (const Node &n : m_nodes)
        sorted.append(&n);
    std::sort(sorted.begin(), sorted.end(), [](const Node *a, const Node *b) { return a->id < b->id; });
    const double evaluatedAt = double(m_start.toMSecsSinceEpoch() + m_now) / 1000;
    QJsonArray result;
    for (const Node *n : std::as_const(sorted)) {
        const auto mark = m_workSince.constFind(n->id);
        if (!n->alive || mark == m_workSince.constEnd() || mark->sinceMs > m_now - windowMs || !readsPlugin(podOf(m_pods, *n), *n))
            continue;
        const quint64 nodeHash = hashOf(n->id, m_seed);
        const qint64 phase = qint64(nodeHash % quint64(kReporterIntervalMs));
        const qint64 newest = phase + qint64(std::floor(double(m_now - phase) / kReporterIntervalMs)) * kReporterIntervalMs;
        const qint64 deathMs = sliceDeathMs(m_nodes, n->sliceName);
        const QList<int> work = workByNode.value(n->id);
        for (int chip = 0; chip < int(n->tpu); ++chip) {
            double highest = 0;
            for (qint64 at = newest; at > m_now - windowMs; at -= kReporterIntervalMs)
                highest = std::max(highest, numbersAt(Work(work.value(chip)), nodeHash, chip, at, deathMs <= at).duty);
            result.append(QJsonObject{
                {s("metric"), QJsonObject{{s("TpuIndex"), QString::number(chip)}, {s("instance"), QStringLiteral("%1:%2").arg(n->ip).arg(kMetricsExportPort)}, {s("ip"), n->ip}}},
                {s("value"), QJsonArray{evaluatedAt, QString::number(highest)}},
            });
        }
    }
    QByteArray bytes = QJsonDocument(QJsonObject{
                                         {s("status"), s("success")},
                                         {s("data"), QJsonObject{{s("resultType"), s("vector")}, {s("result"), result}}},
                                     })
                           .toJson(QJsonDocument::Compact);
    reserveParsePadding(bytes);
    return bytes;
}

} // namespace slicescope
