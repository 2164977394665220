// SPDX-License-Identifier: GPL-3.0-or-later
// The bodies are written with plain appends rather than QJsonDocument: generating 20 MB through
// a DOM would take longer than the ingest we want to measure, and an own writer lets us copy the
// server's exact spelling (Python's ", " / ": " separators and "4.0" floats for Ray, compact JSON
// for Kubernetes).

#include "clustergenerator.h"

#include <QByteArray>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace slicescope::bench {

namespace {

// SplitMix64: tiny and fully specified, so one seed gives the same cluster with any standard
// library (std::uniform_int_distribution and friends are implementation-defined).
class Rng
{
public:
    explicit Rng(quint64 seed)
        : m_state(seed)
    { }
    quint64 next()
    {
        quint64 z = (m_state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    // The modulo bias is irrelevant for ranges this small.
    int below(int n) { return n <= 0 ? 0 : int(next() % quint64(n)); }
    double unit() { return double(next() >> 11) * 0x1.0p-53; }
    bool chance(double p) { return unit() < p; }
    double between(double lo, double hi) { return lo + (hi - lo) * unit(); }

    std::string hex(int digits)
    {
        static constexpr char kDigits[] = "0123456789abcdef";
        std::string s(size_t(digits), '0');
        quint64 bits = 0;
        for (int i = 0; i < digits; ++i) {
            if (i % 16 == 0)
                bits = next();
            s[size_t(i)] = kDigits[bits & 15];
            bits >>= 4;
        }
        return s;
    }
    std::string lowerAlnum(int n)
    {
        static constexpr char kChars[] = "bcdfghjklmnpqrstvwxz2456789"; // Kubernetes' generateName alphabet
        std::string s(size_t(n), 'x');
        for (auto &c : s)
            c = kChars[below(int(sizeof(kChars) - 1))];
        return s;
    }

private:
    quint64 m_state;
};

// Appends JSON text. Ray's dashboard serialises with Python's json.dumps (", " and ": "
// separators, floats always with a fraction); the Kubernetes API server writes compact JSON.
class JsonWriter
{
public:
    enum class Style
    {
        Python,
        Compact
    };
    JsonWriter(Style style, qsizetype reserve)
        : m_python(style == Style::Python)
    { m_out.reserve(reserve); }

    QByteArray take() { return std::move(m_out); }

    JsonWriter &beginObject()
    {
        open('{');
        return *this;
    }
    JsonWriter &endObject()
    {
        close('}');
        return *this;
    }
    JsonWriter &beginArray()
    {
        open('[');
        return *this;
    }
    JsonWriter &endArray()
    {
        close(']');
        return *this;
    }

    JsonWriter &key(std::string_view k)
    {
        separate();
        quoted(k);
        m_out.append(m_python ? ": " : ":");
        m_afterKey = true;
        return *this;
    }
    JsonWriter &string(std::string_view s)
    {
        separate();
        quoted(s);
        return *this;
    }
    JsonWriter &null()
    {
        separate();
        m_out.append("null");
        return *this;
    }
    JsonWriter &boolean(bool b)
    {
        separate();
        m_out.append(b ? "true" : "false");
        return *this;
    }
    JsonWriter &integer(qint64 i)
    {
        separate();
        char buf[24];
        const auto res = std::to_chars(buf, buf + sizeof buf, i);
        m_out.append(buf, qsizetype(res.ptr - buf));
        return *this;
    }
    // Python's repr of a float: the shortest round-trip text, always with a fraction or exponent.
    JsonWriter &number(double d)
    {
        separate();
        char buf[32];
        const auto res = std::to_chars(buf, buf + sizeof buf, d);
        const std::string_view text(buf, size_t(res.ptr - buf));
        m_out.append(text.data(), qsizetype(text.size()));
        if (text.find_first_of(".e") == std::string_view::npos)
            m_out.append(".0");
        return *this;
    }

    // Shorthands for the common "key": value members.
    JsonWriter &member(std::string_view k, std::string_view s) { return key(k).string(s); }
    JsonWriter &member(std::string_view k, const char *s) { return key(k).string(s); }
    JsonWriter &memberNumber(std::string_view k, double d) { return key(k).number(d); }
    JsonWriter &memberInteger(std::string_view k, qint64 i) { return key(k).integer(i); }
    JsonWriter &memberBool(std::string_view k, bool b) { return key(k).boolean(b); }

private:
    void open(char c)
    {
        separate();
        m_out.append(c);
        m_first.push_back(true);
    }
    void close(char c)
    {
        m_out.append(c);
        m_first.pop_back();
    }
    // Writes the ", " before every value but the first of its container (and not after a key).
    void separate()
    {
        if (m_afterKey) {
            m_afterKey = false;
            return;
        }
        if (m_first.empty())
            return;
        if (!m_first.back())
            m_out.append(m_python ? ", " : ",");
        m_first.back() = false;
    }
    void quoted(std::string_view s)
    {
        m_out.append('"');
        for (char c : s) {
            if (c == '"' || c == '\\') {
                m_out.append('\\');
                m_out.append(c);
            } else if (static_cast<unsigned char>(c) < 0x20) {
                static constexpr char kHex[] = "0123456789abcdef";
                const char esc[] = {'\\', 'u', '0', '0', kHex[(c >> 4) & 15], kHex[c & 15]};
                m_out.append(esc, 6);
            } else {
                m_out.append(c);
            }
        }
        m_out.append('"');
    }

    QByteArray m_out;
    std::vector<bool> m_first; // per open container: no value written yet
    bool m_afterKey = false;
    bool m_python;
};

// The kinds of TPU slice in the generated fleet (docs/facts.md 2.1 and 3), with how often each is
// picked. Mostly v6e 4x4; v6e 2x4 is one 8-chip host; v5p 4x4x4 spans 16 hosts.
struct SliceKind {
    const char *generation;     // "v6e"
    const char *acceleratorType;// ray.io/accelerator-type
    const char *gkeAccelerator; // cloud.google.com/gke-tpu-accelerator
    const char *podType;        // ray.io/tpu-pod-type (TensorCores, docs/facts.md 2.1)
    const char *topology;
    int hosts;
    int chipsPerHost;
    int weight;
    double cpus;
    double memoryBytes;
};
constexpr std::array<SliceKind, 4> kSliceKinds{{
    {"v6e", "TPU-V6E", "tpu-v6e-slice", "v6e-16", "4x4", 4, 4, 70, 180, 720e9},
    {"v5p", "TPU-V5P", "tpu-v5p-slice", "v5p-128", "4x4x4", 16, 4, 5, 208, 448e9},
    {"v4", "TPU-V4", "tpu-v4-podslice", "v4-16", "2x2x2", 2, 4, 12, 240, 407e9},
    {"v6e", "TPU-V6E", "tpu-v6e-slice", "v6e-8", "2x4", 1, 8, 13, 180, 720e9},
}};
constexpr int kSingleHostKind = 3;
constexpr int kReplicasPerGroup = 32;   // slices per worker group before the next group starts
constexpr qint64 kNowMs = 1795972800000; // 2026-11-29T18:00:00Z, the capture's moment
constexpr std::string_view kClusterName = "tpu-cluster";
constexpr std::string_view kNamespace = "ray";

// Unrelated labels Ray and GKE put on nodes: the ingest must skip them.
constexpr std::array<std::pair<const char *, const char *>, 4> kOtherLabels{{
    {"ray.io/market-type", "on-demand"},
    {"ray.io/availability-region", "us-east5"},
    {"ray.io/availability-zone", "us-east5-b"},
    {"team", "ml-infra"},
}};

struct NodeRec {
    std::string id;
    std::string ip;
    bool head = false;
    bool alive = true;
    int kind = -1;             // index into kSliceKinds; -1 for a CPU-only node
    int slice = -1;            // index into the slice list
    int worker = -1;
    std::string group;         // ray.io/node-group
    double cpus = 8;
    double memoryBytes = 32e9;
    qint64 startMs = 0;
    qint64 endMs = 0;
    bool timesAsStrings = false; // 64-bit numbers may arrive as JSON strings (docs/facts.md 1.1)
    bool expectedDeath = false;  // picks the state_message of a dead node
    bool purged = false;         // ClusterSimulation: Ray forgot this dead node (no longer listed)
};

struct SliceRec {
    std::string name;          // <group>-<replica index>, as the GKE webhook's TPU_NAME
    std::string group;
    int kind = 0;
    int replica = 0;
    std::vector<int> hosts;    // current node per worker id
    bool degraded = false;     // a worker died and was not replaced
};

struct BundleRec {
    std::vector<std::pair<std::string, double>> resources;
    std::optional<std::string> nodeId; // nullopt: null; "" and null both mean unplaced
    std::vector<std::pair<std::string, std::string>> selector;
};

struct GroupRec {
    std::string id;
    std::string name;
    std::string jobId;
    const char *state = "CREATED";
    const char *schedulingState = "FINISHED";
    bool detached = false;
    double creationLatencyMs = 0;
    double schedulingLatencyMs = 0;
    int attempts = 1;
    std::vector<BundleRec> bundles;
    int slice = -1;            // the slice it claims or selects, if any
    bool purged = false;       // ClusterSimulation: a REMOVED group Ray no longer lists
    qint64 removedAtMs = 0;
};

std::string ipText(quint32 n)
{
    // 10.x.y.z, skipping .0 and .255 hosts.
    const quint32 host = n % 254 + 1, rest = n / 254;
    return "10." + std::to_string((rest >> 8) & 255) + '.' + std::to_string(rest & 255) + '.' + std::to_string(host);
}

std::string jobIdHex(int job)
{
    // A Ray JobID is 4 bytes, little-endian: job 1 is "01000000".
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string s(8, '0');
    for (int b = 0; b < 4; ++b) {
        const int byte = (job >> (8 * b)) & 255;
        s[size_t(2 * b)] = kDigits[byte >> 4];
        s[size_t(2 * b + 1)] = kDigits[byte & 15];
    }
    return s;
}

class Generator
{
public:
    explicit Generator(const GeneratorOptions &o)
        : m_opt(o)
        , m_rng(0x5111ce5c09e0000ull ^ o.seed)
    { }

    Capture run(GeneratedCounts &counts)
    {
        makeNodes();
        makeGroups();

        Capture c;
        c.capturedAt = QDateTime::fromMSecsSinceEpoch(m_nowMs, Qt::UTC);
        c.rayVersion = writeVersion();
        c.rayNodes = writeNodes();
        c.rayPlacementGroups = writeGroups();
        if (m_opt.kubernetes)
            c.kubePods = writePods();
        for (QByteArray *body : {&c.rayVersion, &c.rayNodes, &c.rayPlacementGroups, &c.kubePods})
            if (!body->isEmpty())
                reserveParsePadding(*body);

        counts = m_counts;
        counts.rayNodes = int(m_nodes.size());
        counts.slices = shownSlices();
        counts.placementGroups = int(m_groups.size());
        return c;
    }

private:
    // ---- the fleet ----------------------------------------------------------------------

    int newNode(NodeRec n)
    {
        n.id = m_rng.hex(56);
        n.startMs = m_nowMs - qint64(m_rng.between(3600e3, 30 * 86400e3));
        n.timesAsStrings = m_rng.chance(0.1);
        m_nodes.push_back(std::move(n));
        return int(m_nodes.size()) - 1;
    }
    std::string nextIp() { return ipText(m_nextIp++); }

    void killNode(NodeRec &n, bool expected)
    {
        n.alive = false;
        n.endMs = std::min(m_nowMs - 1000, n.startMs + qint64(m_rng.between(600e3, 5 * 86400e3)));
        n.expectedDeath = expected;
        ++m_counts.deadRayNodes;
    }

    int pickKind()
    {
        int total = 0;
        for (const SliceKind &k : kSliceKinds)
            total += k.weight;
        int r = m_rng.below(total);
        for (int i = 0; i < int(kSliceKinds.size()); ++i) {
            if (r < kSliceKinds[size_t(i)].weight)
                return i;
            r -= kSliceKinds[size_t(i)].weight;
        }
        return 0;
    }

    void makeNodes()
    {
        const int total = std::max(0, m_opt.nodes);
        const int heads = total > 0 ? 1 : 0;
        const int cpuWorkers = total * 3 / 100;
        const int deadReplaced = total * 2 / 100;
        int tpuBudget = total - heads - cpuWorkers - deadReplaced;

        if (heads) {
            NodeRec h;
            h.head = true;
            h.ip = nextIp();
            h.group = "headgroup";
            h.cpus = 16;
            h.memoryBytes = 64e9;
            newNode(std::move(h));
        }

        std::array<int, kSliceKinds.size()> replicas{};
        while (tpuBudget > 0) {
            int kind = pickKind();
            if (kSliceKinds[size_t(kind)].hosts > tpuBudget)
                kind = kSingleHostKind;
            const SliceKind &k = kSliceKinds[size_t(kind)];
            SliceRec s;
            s.kind = kind;
            const int replica = replicas[size_t(kind)]++;
            s.group = std::string(k.generation) + '-' + k.topology + "-pool" + std::to_string(replica / kReplicasPerGroup);
            s.replica = replica % kReplicasPerGroup;
            s.name = s.group + '-' + std::to_string(s.replica);
            const int sliceIndex = int(m_slices.size());
            for (int w = 0; w < k.hosts; ++w) {
                NodeRec n;
                n.ip = nextIp();
                n.kind = kind;
                n.slice = sliceIndex;
                n.worker = w;
                n.group = s.group;
                n.cpus = k.cpus;
                n.memoryBytes = k.memoryBytes;
                const int i = newNode(std::move(n));
                ++m_counts.tpuHosts;
                if (m_rng.chance(0.004)) { // died and KubeRay has not replaced it yet: a degraded slice
                    killNode(m_nodes[size_t(i)], false);
                    s.degraded = true;
                }
                s.hosts.push_back(i);
            }
            tpuBudget -= k.hosts;
            m_slices.push_back(std::move(s));
        }

        // Hosts that died and were replaced: the dead Ray node lingers in the list next to its
        // successor (same slice, same worker id), sometimes on the same IP.
        std::vector<int> tpuNodes;
        for (int i = 0; i < int(m_nodes.size()); ++i)
            if (m_nodes[size_t(i)].kind >= 0 && m_nodes[size_t(i)].alive)
                tpuNodes.push_back(i);
        for (int d = 0; d < deadReplaced; ++d) {
            NodeRec n;
            if (!tpuNodes.empty()) {
                const NodeRec &successor = m_nodes[size_t(tpuNodes[size_t(m_rng.below(int(tpuNodes.size())))])];
                n = successor;
                n.ip = m_rng.chance(0.5) ? successor.ip : nextIp();
                ++m_counts.tpuHosts;
            } else {
                n.ip = nextIp();
                n.group = "cpu-workers";
            }
            const int i = newNode(std::move(n));
            NodeRec &dead = m_nodes[size_t(i)];
            dead.startMs -= qint64(30 * 86400e3); // older than its successor
            killNode(dead, m_rng.chance(0.3));
        }

        // CPU-only workers, two Ray nodes per VM: several nodes share an IP.
        std::string ip;
        for (int c = 0; c < cpuWorkers; ++c) {
            NodeRec n;
            if (c % 2 == 0)
                ip = nextIp();
            n.ip = ip;
            n.group = "cpu-workers";
            n.cpus = 32;
            n.memoryBytes = 128e9;
            m_cpuNodes.push_back(newNode(std::move(n)));
        }
        if (m_cpuNodes.empty() && heads)
            m_cpuNodes.push_back(0);
    }

    // ---- placement groups ---------------------------------------------------------------

    GroupRec newGroup()
    {
        GroupRec g;
        const int job = 1 + m_rng.below(60);
        g.jobId = jobIdHex(job);
        g.id = m_rng.hex(28) + g.jobId; // a PlacementGroupID ends with its job's id
        g.creationLatencyMs = m_rng.between(1, 4000);
        g.schedulingLatencyMs = g.creationLatencyMs * m_rng.between(0.1, 0.9);
        return g;
    }

    void addGroup(GroupRec g)
    {
        const bool removed = std::string_view(g.state) == "REMOVED";
        if (removed) {
            ++m_counts.removedPlacementGroups;
        } else {
            bool anyHead = false, allSlices = !g.bundles.empty();
            for (const BundleRec &b : g.bundles) {
                for (const auto &r : b.resources)
                    anyHead = anyHead || r.first.ends_with("-head");
                bool selects = false;
                for (const auto &s : b.selector)
                    selects = selects || s.first == "ray.io/tpu-slice-name";
                allSlices = allSlices && selects;
            }
            if (anyHead)
                ++m_counts.sliceHeadGroups;
            else if (allSlices)
                ++m_counts.sliceGroups;
        }
        m_counts.bundles += int(g.bundles.size());
        m_groups.push_back(std::move(g));
    }

    // ray.util.tpu.slice_placement_group step 1 (docs/facts.md 2.2): claim worker 0's head resource.
    GroupRec headGroup(const SliceRec &s)
    {
        const SliceKind &k = kSliceKinds[size_t(s.kind)];
        GroupRec g = newGroup();
        BundleRec b;
        b.resources = {{std::string("TPU-") + k.podType + "-head", 1.0}};
        b.nodeId = m_nodes[size_t(s.hosts[0])].id;
        b.selector = {{"ray.io/tpu-worker-id", "0"}, {"ray.io/tpu-pod-type", k.podType}};
        g.bundles.push_back(std::move(b));
        g.slice = int(&s - m_slices.data());
        return g;
    }

    // Step 3: one bundle per host, selecting the slice by name; placed when CREATED.
    GroupRec sliceGroup(const SliceRec &s, bool placed)
    {
        const SliceKind &k = kSliceKinds[size_t(s.kind)];
        GroupRec g = newGroup();
        g.name = m_rng.chance(0.7) ? "slice-" + s.name : std::string();
        g.detached = m_rng.chance(0.5);
        for (int w = 0; w < k.hosts; ++w) {
            BundleRec b;
            b.resources = {{"CPU", 1.0}, {"TPU", double(k.chipsPerHost)}};
            if (placed) {
                b.nodeId = m_nodes[size_t(s.hosts[size_t(w)])].id;
                m_counts.reservedChips += k.chipsPerHost;
            } else if (m_rng.chance(0.5)) {
                b.nodeId = std::string();
            }
            b.selector = {{"ray.io/tpu-slice-name", s.name}};
            g.bundles.push_back(std::move(b));
        }
        g.slice = int(&s - m_slices.data());
        return g;
    }

    void makeGroups()
    {
        int budget = std::max(0, m_opt.placementGroups);
        std::vector<int> order(m_slices.size());
        for (int i = 0; i < int(order.size()); ++i)
            order[size_t(i)] = i;
        for (int i = int(order.size()) - 1; i > 0; --i)
            std::swap(order[size_t(i)], order[size_t(m_rng.below(i + 1))]);

        // Slices that are reserved: a head group and the slice group, or a head group alone
        // (a driver between steps 1 and 3); single-host slices skip the head group.
        for (int si : order) {
            if (budget == 0)
                break;
            const SliceRec &s = m_slices[size_t(si)];
            if (s.degraded)
                continue;
            const double r = m_rng.unit();
            if (kSliceKinds[size_t(s.kind)].hosts > 1) {
                if (r < 0.65) {
                    addGroup(headGroup(s));
                    --budget;
                }
                if (r < 0.55 && budget > 0) {
                    addGroup(sliceGroup(s, true));
                    --budget;
                }
            } else if (r < 0.5) {
                addGroup(sliceGroup(s, true));
                --budget;
            }
        }

        // The rest: CPU actor pools on the CPU workers, groups waiting for a slice, and REMOVED
        // groups that linger in the list.
        for (; budget > 0; --budget) {
            const double r = m_rng.unit();
            if (r < 0.20 && !m_slices.empty()) {
                const SliceRec &s = m_slices[size_t(m_rng.below(int(m_slices.size())))];
                GroupRec g = sliceGroup(s, false);
                if (r < 0.12) {
                    g.state = "REMOVED";
                    g.schedulingState = "REMOVED";
                } else {
                    g.state = "PENDING";
                    g.schedulingState = m_rng.chance(0.5) ? "NO_RESOURCES" : "QUEUED";
                    g.attempts = 1 + m_rng.below(40);
                }
                addGroup(std::move(g));
                continue;
            }
            GroupRec g = newGroup();
            g.name = m_rng.chance(0.5) ? "actor-pool-" + std::to_string(m_groups.size()) : std::string();
            const int bundles = 1 + m_rng.below(4);
            const bool placed = !m_cpuNodes.empty();
            if (!placed) {
                g.state = "PENDING";
                g.schedulingState = "INFEASIBLE";
            }
            for (int i = 0; i < bundles; ++i) {
                BundleRec b;
                if (m_rng.chance(0.5))
                    b.resources = {{"CPU", 1.0}};
                else
                    b.resources = {{"CPU", 2.0}, {"memory", 4294967296.0}};
                if (placed)
                    b.nodeId = m_nodes[size_t(m_cpuNodes[size_t(m_rng.below(int(m_cpuNodes.size())))])].id;
                g.bundles.push_back(std::move(b));
            }
            addGroup(std::move(g));
        }
    }

    // ---- bodies -------------------------------------------------------------------------

    QByteArray writeVersion()
    {
        JsonWriter w(JsonWriter::Style::Python, 256);
        w.beginObject()
            .member("version", "5")
            .member("ray_version", "2.60.0")
            .member("ray_commit", m_rng.hex(40))
            .member("session_name", "session_2026-11-01_09-12-44_385219_1")
            .endObject();
        return w.take();
    }

    // The state API envelope around `items` (docs/facts.md 1.1).
    template<typename F>
    QByteArray writeStateList(int count, qsizetype reserve, F &&items)
    {
        JsonWriter w(JsonWriter::Style::Python, reserve);
        w.beginObject().memberBool("result", true).member("msg", "").key("data").beginObject().key("result").beginObject();
        w.memberInteger("total", count).memberInteger("num_after_truncation", count).memberInteger("num_filtered", count);
        w.key("result").beginArray();
        items(w);
        w.endArray();
        w.member("partial_failure_warning", "").key("warnings").null();
        w.endObject().endObject().endObject();
        return w.take();
    }

    static void writeTime(JsonWriter &w, std::string_view key, qint64 ms, bool asString)
    {
        if (asString)
            w.member(key, std::to_string(ms));
        else
            w.memberInteger(key, ms);
    }

    QByteArray writeNodes()
    {
        std::vector<int> order;
        order.reserve(m_nodes.size());
        for (int i = 0; i < int(m_nodes.size()); ++i)
            if (!m_nodes[size_t(i)].purged)
                order.push_back(i);
        std::sort(order.begin(), order.end(), [&](int a, int b) { return m_nodes[size_t(a)].id < m_nodes[size_t(b)].id; });

        return writeStateList(int(order.size()), qsizetype(order.size()) * 1200 + 256, [&](JsonWriter &w) {
            for (int i : order) {
                const NodeRec &n = m_nodes[size_t(i)];
                const SliceKind *k = n.kind >= 0 ? &kSliceKinds[size_t(n.kind)] : nullptr;
                const SliceRec *s = n.slice >= 0 ? &m_slices[size_t(n.slice)] : nullptr;
                w.beginObject()
                    .member("node_id", n.id)
                    .member("node_ip", n.ip)
                    .memberBool("is_head_node", n.head)
                    .member("state", n.alive ? "ALIVE" : "DEAD");
                if (n.alive)
                    w.key("state_message").null();
                else
                    w.member("state_message", n.expectedDeath
                                                  ? "Expected termination: received SIGTERM"
                                                  : "Unexpected termination: health check failed due to missing too many heartbeats");
                w.member("node_name", n.ip);

                w.key("resources_total").beginObject();
                w.memberNumber("CPU", n.cpus).memberNumber("memory", n.memoryBytes).memberNumber("object_store_memory", std::floor(n.memoryBytes * 0.3)).memberNumber("node:" + n.ip, 1.0);
                if (n.head)
                    w.memberNumber("node:__internal_head__", 1.0);
                if (k) {
                    w.memberNumber("TPU", k->chipsPerHost)
                        .memberNumber(std::string("accelerator_type:") + k->acceleratorType, 1.0)
                        .memberNumber(s->name, 1.0);
                    if (n.worker == 0)
                        w.memberNumber(std::string("TPU-") + k->podType + "-head", 1.0);
                }
                w.endObject();

                w.key("labels").beginObject();
                if (k) {
                    w.member("ray.io/accelerator-type", k->acceleratorType);
                }
                w.member("ray.io/node-group", n.group).member("ray.io/node-id", n.id);
                if (k) {
                    w.member("ray.io/tpu-pod-type", k->podType)
                        .member("ray.io/tpu-slice-name", s->name)
                        .member("ray.io/tpu-topology", k->topology)
                        .member("ray.io/tpu-worker-id", std::to_string(n.worker));
                }
                for (const auto &[key, value] : kOtherLabels)
                    w.member(key, value);
                w.endObject();

                writeTime(w, "start_time_ms", n.startMs, n.timesAsStrings);
                writeTime(w, "end_time_ms", n.endMs, n.timesAsStrings);
                w.endObject();
            }
        });
    }

    QByteArray writeGroups()
    {
        // By id, as before; an index order so that ClusterSimulation's group indexes stay put.
        std::vector<int> order;
        order.reserve(m_groups.size());
        for (int i = 0; i < int(m_groups.size()); ++i)
            if (!m_groups[size_t(i)].purged)
                order.push_back(i);
        std::sort(order.begin(), order.end(), [&](int a, int b) { return m_groups[size_t(a)].id < m_groups[size_t(b)].id; });
        return writeStateList(int(order.size()), qsizetype(order.size()) * 1000 + 256, [&](JsonWriter &w) {
            for (int gi : order) {
                const GroupRec &g = m_groups[size_t(gi)];
                w.beginObject()
                    .member("placement_group_id", g.id)
                    .member("name", g.name)
                    .member("creator_job_id", g.jobId)
                    .member("state", g.state);
                w.key("bundles").beginArray();
                for (int i = 0; i < int(g.bundles.size()); ++i) {
                    const BundleRec &b = g.bundles[size_t(i)];
                    w.beginObject();
                    w.key("bundle_id").beginObject().member("placement_group_id", g.id).memberInteger("bundle_index", i).endObject();
                    w.key("node_id");
                    if (b.nodeId)
                        w.string(*b.nodeId);
                    else
                        w.null();
                    w.key("unit_resources").beginObject();
                    for (const auto &[name, amount] : b.resources)
                        w.memberNumber(name, amount);
                    w.endObject();
                    w.key("label_selector").beginObject();
                    for (const auto &[label, value] : b.selector)
                        w.member(label, value);
                    w.endObject();
                    w.endObject();
                }
                w.endArray();
                w.memberBool("is_detached", g.detached);
                w.key("stats").beginObject().memberNumber("end_to_end_creation_latency_ms", std::round(g.creationLatencyMs * 1000) / 1000).memberNumber("scheduling_latency_ms", std::round(g.schedulingLatencyMs * 1000) / 1000).memberInteger("scheduling_attempt", g.attempts).memberNumber("highest_retry_delay_ms", g.attempts > 1 ? 1000.0 : 0.0).member("scheduling_state", g.schedulingState).endObject();
                w.endObject();
            }
        });
    }

    // A KubeRay worker pod for every TPU host that is up (docs/facts.md 4): replica labels, the TPU
    // request, the webhook's TPU_* env, and the pod IP its Ray node reports.
    //
    // `stable` (the simulation): what is random about a pod is drawn from its Ray node's id and a
    // replica's name from its slice's, so a pod keeps its name, uid and times from one capture to
    // the next, and a replaced host comes back as a new pod; otherwise from the generator's stream.
    QByteArray writePods(bool stable = false)
    {
        struct PodRef {
            std::string name;
            int slice;
            int worker;
        };
        auto seeded = [](std::string_view key) {
            quint64 h = 0xcbf29ce484222325ull; // FNV-1a: the same on every machine
            for (const char c : key)
                h = (h ^ quint64(uchar(c))) * 0x100000001b3ull;
            return Rng(h);
        };
        std::vector<PodRef> pods;
        std::vector<std::string> replicaNames(m_slices.size());
        for (int si = 0; si < int(m_slices.size()); ++si) {
            const SliceRec &s = m_slices[size_t(si)];
            Rng sliceRng = seeded(s.name);
            replicaNames[size_t(si)] = s.group + '-' + (stable ? sliceRng : m_rng).lowerAlnum(5);
            for (int w = 0; w < int(s.hosts.size()); ++w) {
                const NodeRec &n = m_nodes[size_t(s.hosts[size_t(w)])];
                Rng podRng = seeded(n.id);
                if (n.alive)
                    pods.push_back({std::string(kClusterName) + '-' + s.group + "-worker-" + (stable ? podRng : m_rng).lowerAlnum(5), si, w});
            }
        }
        std::sort(pods.begin(), pods.end(), [](const PodRef &a, const PodRef &b) { return a.name < b.name; });
        m_counts.pods = int(pods.size());

        JsonWriter w(JsonWriter::Style::Compact, qsizetype(pods.size()) * 3000 + 256);
        w.beginObject().member("kind", "PodList").member("apiVersion", "v1");
        w.key("metadata").beginObject().member("resourceVersion", "48213377").endObject();
        w.key("items").beginArray();
        for (const PodRef &p : pods) {
            const SliceRec &s = m_slices[size_t(p.slice)];
            const SliceKind &k = kSliceKinds[size_t(s.kind)];
            const NodeRec &n = m_nodes[size_t(s.hosts[size_t(p.worker)])];
            Rng podRng = seeded(n.id + "/pod");
            Rng &rng = stable ? podRng : m_rng;
            const std::string worker = std::to_string(p.worker);
            const std::string chips = std::to_string(k.chipsPerHost);
            const std::string created = "2026-11-2" + std::to_string(1 + rng.below(8)) + "T0" + std::to_string(rng.below(10)) + ":14:07Z";
            std::string hostnames;
            for (int h = 0; h < int(s.hosts.size()); ++h)
                hostnames += (h ? "," : "") + s.name + "-" + std::to_string(h) + '.' + std::string(kClusterName) + "-headless";

            w.beginObject();
            w.key("metadata").beginObject().member("name", p.name).member("generateName", std::string(kClusterName) + '-' + s.group + "-worker-").member("namespace", kNamespace).member("uid", rng.hex(8) + '-' + rng.hex(4) + '-' + rng.hex(4) + '-' + rng.hex(4) + '-' + rng.hex(12)).member("resourceVersion", std::to_string(40000000 + rng.below(8000000))).member("creationTimestamp", created);
            w.key("labels").beginObject().member("app.kubernetes.io/created-by", "kuberay-operator").member("app.kubernetes.io/name", "kuberay").member("ray.io/cluster", kClusterName).member("ray.io/group", s.group).member("ray.io/identifier", std::string(kClusterName) + "-worker").member("ray.io/is-ray-node", "yes").member("ray.io/node-type", "worker").member("ray.io/replica-host-index", worker).member("ray.io/worker-group-replica-index", std::to_string(s.replica)).member("ray.io/worker-group-replica-name", replicaNames[size_t(p.slice)]).endObject();
            w.key("ownerReferences").beginArray().beginObject().member("apiVersion", "ray.io/v1").member("kind", "RayCluster").member("name", kClusterName).member("uid", "3f0c9e8e-5a1d-4c55-9a2b-7d1f0e6c2b11").memberBool("controller", true).memberBool("blockOwnerDeletion", true).endObject().endArray();
            w.endObject();

            w.key("spec").beginObject();
            w.key("containers").beginArray().beginObject().member("name", "ray-worker").member("image", "rayproject/ray:2.60.0-py311-tpu");
            w.key("resources").beginObject();
            for (const char *kind : {"limits", "requests"}) {
                w.key(kind).beginObject().member("cpu", std::to_string(int(k.cpus) - 4)).member("google.com/tpu", chips).member("memory", std::to_string(int(k.memoryBytes / 1e9 * 0.9)) + "G").endObject();
            }
            w.endObject();
            w.key("env").beginArray();
            w.beginObject().member("name", "TPU_WORKER_HOSTNAMES").member("value", hostnames).endObject();
            w.beginObject().member("name", "TPU_WORKER_ID").member("value", worker).endObject();
            w.beginObject().member("name", "TPU_NAME").member("value", s.name).endObject();
            w.beginObject().member("name", "RAY_CLOUD_INSTANCE_ID").key("valueFrom").beginObject().key("fieldRef").beginObject().member("apiVersion", "v1").member("fieldPath", "metadata.name").endObject().endObject().endObject();
            w.endArray();
            w.endObject().endArray(); // containers
            w.member("nodeName", "gke-tpu-" + s.group + '-' + rng.hex(8));
            w.key("nodeSelector").beginObject().member("cloud.google.com/gke-tpu-accelerator", k.gkeAccelerator).member("cloud.google.com/gke-tpu-topology", k.topology).endObject();
            w.member("restartPolicy", "Never").member("schedulerName", "default-scheduler");
            w.endObject(); // spec

            w.key("status").beginObject().member("phase", "Running");
            w.key("conditions").beginArray();
            for (const char *type : {"Initialized", "Ready", "ContainersReady", "PodScheduled"})
                w.beginObject().member("type", type).member("status", "True").member("lastTransitionTime", created).endObject();
            w.endArray();
            w.member("hostIP", n.ip).member("podIP", n.ip).member("startTime", created);
            w.endObject(); // status
            w.endObject();
        }
        w.endArray().endObject();
        return w.take();
    }

public:
    // ---- ClusterSimulation ----------------------------------------------------------------
    //
    // The same fleet, kept and changed in place: hosts die and are replaced, slice placement
    // groups are requested (PENDING), placed (CREATED), rescheduled when a host dies and removed;
    // CPU actor pools come and go; worker groups are scaled. Ray keeps a bounded list of dead
    // nodes and of REMOVED groups, so the lists keep their size.

    void initSimulation()
    {
        makeNodes();
        makeGroups();
        m_version = writeVersion();
        for (const NodeRec &n : m_nodes)
            m_deadLimit += !n.alive;
        for (const GroupRec &g : m_groups) {
            m_removedLimit += std::string_view(g.state) == "REMOVED";
            m_pendingLimit += std::string_view(g.state) == "PENDING" && g.slice >= 0;
        }
        m_pendingLimit += m_pendingLimit / 5 + 10;
        for (const SliceRec &sl : m_slices) {
            auto it = std::find_if(m_workerGroups.begin(), m_workerGroups.end(), [&](const WorkerGroupRec &g) { return g.name == sl.group; });
            if (it == m_workerGroups.end()) {
                m_workerGroups.push_back({sl.group, sl.kind, 0, 0});
                it = m_workerGroups.end() - 1;
            }
            ++it->replicas;
            ++it->slices;
        }
    }

    Capture simulationCapture()
    {
        Capture c;
        c.capturedAt = QDateTime::fromMSecsSinceEpoch(m_nowMs, Qt::UTC);
        c.rayVersion = m_version;
        c.rayNodes = writeNodes();
        c.rayPlacementGroups = writeGroups();
        c.kubeContext = QStringLiteral("gke_bench_us-east5_tpu");
        c.kubeRayClusters = writeRayClusters();
        if (m_opt.kubernetes)
            c.kubePods = writePods(true);
        for (QByteArray *body : {&c.rayVersion, &c.rayNodes, &c.rayPlacementGroups, &c.kubeRayClusters, &c.kubePods})
            reserveParsePadding(*body);
        return c;
    }

    GeneratedCounts simulationCounts() const
    {
        GeneratedCounts counts;
        for (const NodeRec &n : m_nodes) {
            if (n.purged)
                continue;
            ++counts.rayNodes;
            counts.deadRayNodes += !n.alive;
            counts.tpuHosts += n.kind >= 0;
        }
        counts.slices = shownSlices();
        for (const GroupRec &g : m_groups) {
            if (g.purged)
                continue;
            ++counts.placementGroups;
            counts.removedPlacementGroups += std::string_view(g.state) == "REMOVED";
            counts.bundles += int(g.bundles.size());
        }
        return counts;
    }

    SimulationStep simulationStep(double fraction, qint64 intervalMs)
    {
        SimulationStep st;
        m_nowMs += intervalMs;
        // `fraction` of the objects a snapshot lists (Ray nodes, live placement groups, slices,
        // worker groups) should appear, change or go. What one action changes, on average:
        //  - a host dies: its node, its slice, the group holding the slice (about half are held);
        //    its replacement a few steps later: a new node, the dead one purged, the slice, the group;
        //  - a slice group is requested (1), placed (the group and its slice) and removed (the same);
        //  - a CPU actor pool is created (1) and another removed (1).
        // So a death costs about 6 changes, a slice group's life about 5, an actor pool's 2 (the shares
        // below are tuned so that the history counts `fraction` of the objects changing per step).
        const GeneratedCounts now = simulationCounts();
        const double objects = double(now.rayNodes + now.placementGroups - now.removedPlacementGroups + int(m_slices.size())
                                      + int(m_workerGroups.size()));
        const double budget = fraction * objects;
        const int kills = int(std::lround(budget * 0.058));
        const int perGroupAction = int(std::lround(budget * 0.116));

        for (int i = 0; i < kills; ++i)
            st.hostsKilled += killRandomHost();
        for (size_t i = 0; i < m_replacements.size();) {
            if (m_replacements[i].dueMs <= m_nowMs) {
                replaceHost(m_replacements[i].slice, m_replacements[i].worker);
                ++st.hostsReplaced;
                m_replacements[i] = m_replacements.back();
                m_replacements.pop_back();
            } else {
                ++i;
            }
        }
        st.nodesPurged += purgeDeadNodes();

        for (int i = 0; i < perGroupAction; ++i) {
            st.groupsRequested += requestSliceGroup();
            st.groupsPlaced += placePendingGroup();
            st.groupsRemoved += removeGroup(true);
            st.groupsRequested += addCpuGroup();
            st.groupsRemoved += removeGroup(false);
        }
        purgeRemovedGroups();

        // The same share of the worker groups changes its replicas.
        if (!m_workerGroups.empty() && m_rng.chance(std::min(1.0, fraction * double(m_workerGroups.size())))) {
            WorkerGroupRec &g = m_workerGroups[size_t(m_rng.below(int(m_workerGroups.size())))];
            const int target = g.replicas > g.slices ? g.replicas - 1 : g.replicas + (m_rng.chance(0.5) ? 1 : -1);
            g.replicas = std::clamp(target, 0, kReplicasPerGroup);
            ++m_clusterGeneration;
            ++st.replicasChanged;
        }
        compact();
        return st;
    }

private:
    struct WorkerGroupRec {
        std::string name;
        int kind;
        int replicas;  // desired
        int slices;    // generated
    };
    struct Replacement {
        qint64 dueMs;
        int slice;
        int worker;
    };

    bool sliceIntact(const SliceRec &sl) const
    {
        return std::all_of(sl.hosts.begin(), sl.hosts.end(), [&](int n) { return m_nodes[size_t(n)].alive; });
    }
    bool sliceHeld(int slice) const
    {
        for (const GroupRec &g : m_groups)
            if (g.slice == slice && !g.purged && std::string_view(g.state) != "REMOVED" && std::string_view(g.state) != "PENDING")
                return true;
        return false;
    }

    int killRandomHost()
    {
        if (m_slices.empty())
            return 0;
        for (int attempt = 0; attempt < 20; ++attempt) {
            const int si = m_rng.below(int(m_slices.size()));
            SliceRec &sl = m_slices[size_t(si)];
            const int w = m_rng.below(int(sl.hosts.size()));
            NodeRec &n = m_nodes[size_t(sl.hosts[size_t(w)])];
            if (!n.alive)
                continue;
            n.alive = false;
            n.endMs = m_nowMs - m_rng.below(2000);
            n.expectedDeath = m_rng.chance(0.2);
            // Groups holding the slice lose that bundle's node and reschedule.
            for (GroupRec &g : m_groups) {
                if (g.slice != si || g.purged || std::string_view(g.state) != "CREATED")
                    continue;
                g.state = "RESCHEDULING";
                g.schedulingState = "RESCHEDULING";
                for (BundleRec &b : g.bundles)
                    if (b.nodeId && *b.nodeId == n.id)
                        b.nodeId.reset();
            }
            m_replacements.push_back({m_nowMs + 4000 + 2000 * m_rng.below(10), si, w});
            return 1;
        }
        return 0;
    }

    void replaceHost(int si, int w)
    {
        SliceRec &sl = m_slices[size_t(si)];
        NodeRec n = m_nodes[size_t(sl.hosts[size_t(w)])];
        n.alive = true;
        n.endMs = 0;
        n.expectedDeath = false;
        n.ip = m_rng.chance(0.5) ? n.ip : nextIp();
        n.id = m_rng.hex(56);
        n.startMs = m_nowMs - m_rng.below(2000);
        m_nodes.push_back(std::move(n));
        sl.hosts[size_t(w)] = int(m_nodes.size()) - 1;
        const std::string &id = m_nodes.back().id;
        if (!sliceIntact(sl))
            return;
        // The slice is whole again: rescheduling groups are placed back on it.
        for (GroupRec &g : m_groups) {
            if (g.slice != si || g.purged || std::string_view(g.state) != "RESCHEDULING")
                continue;
            g.state = "CREATED";
            g.schedulingState = "FINISHED";
            for (BundleRec &b : g.bundles)
                if (!b.nodeId)
                    b.nodeId = id;
        }
    }

    // Ray keeps a bounded number of dead nodes: forget the oldest replaced ones beyond it.
    int purgeDeadNodes()
    {
        std::vector<int> inUse(m_nodes.size(), 0);
        for (const SliceRec &sl : m_slices)
            for (int n : sl.hosts)
                inUse[size_t(n)] = 1;
        std::vector<int> dead;
        for (int i = 0; i < int(m_nodes.size()); ++i)
            if (!m_nodes[size_t(i)].purged && !m_nodes[size_t(i)].alive)
                dead.push_back(i);
        int purged = 0;
        if (int(dead.size()) <= m_deadLimit)
            return 0;
        std::sort(dead.begin(), dead.end(), [&](int a, int b) { return m_nodes[size_t(a)].endMs < m_nodes[size_t(b)].endMs; });
        for (int i : dead) {
            if (int(dead.size()) - purged <= m_deadLimit)
                break;
            if (inUse[size_t(i)])
                continue;
            m_nodes[size_t(i)].purged = true;
            ++purged;
        }
        return purged;
    }

    int requestSliceGroup()
    {
        const auto pending = std::count_if(m_groups.begin(), m_groups.end(), [](const GroupRec &g) {
            return !g.purged && g.slice >= 0 && std::string_view(g.state) == "PENDING";
        });
        if (pending >= m_pendingLimit)
            return 0;
        for (int attempt = 0; attempt < 20; ++attempt) {
            const int si = m_rng.below(int(m_slices.size()));
            const SliceRec &sl = m_slices[size_t(si)];
            if (!sliceIntact(sl) || sliceHeld(si))
                continue;
            GroupRec g = sliceGroup(sl, false);
            g.state = "PENDING";
            g.schedulingState = m_rng.chance(0.5) ? "NO_RESOURCES" : "QUEUED";
            m_groups.push_back(std::move(g));
            return 1;
        }
        return 0;
    }

    int placePendingGroup()
    {
        std::vector<int> pending;
        for (int i = 0; i < int(m_groups.size()); ++i) {
            const GroupRec &g = m_groups[size_t(i)];
            if (!g.purged && g.slice >= 0 && std::string_view(g.state) == "PENDING")
                pending.push_back(i);
        }
        for (int attempt = 0; attempt < 20 && !pending.empty(); ++attempt) {
            GroupRec &g = m_groups[size_t(pending[size_t(m_rng.below(int(pending.size())))])];
            const SliceRec &sl = m_slices[size_t(g.slice)];
            if (!sliceIntact(sl) || sliceHeld(g.slice) || g.bundles.size() != sl.hosts.size())
                continue;
            g.state = "CREATED";
            g.schedulingState = "FINISHED";
            for (size_t w = 0; w < g.bundles.size(); ++w)
                g.bundles[w].nodeId = m_nodes[size_t(sl.hosts[w])].id;
            return 1;
        }
        return 0;
    }

    // A group (on a slice, or a CPU actor pool) is removed: REMOVED, still listed a while. Most
    // were CREATED; some slice groups are given up while still PENDING.
    int removeGroup(bool onSlice)
    {
        const std::string_view state = onSlice && m_rng.chance(0.3) ? "PENDING" : "CREATED";
        std::vector<int> candidates;
        for (int i = 0; i < int(m_groups.size()); ++i) {
            const GroupRec &g = m_groups[size_t(i)];
            if (!g.purged && (g.slice >= 0) == onSlice && std::string_view(g.state) == state)
                candidates.push_back(i);
        }
        if (candidates.empty())
            return 0;
        GroupRec &g = m_groups[size_t(candidates[size_t(m_rng.below(int(candidates.size())))])];
        g.state = "REMOVED";
        g.schedulingState = "REMOVED";
        g.removedAtMs = m_nowMs;
        return 1;
    }

    int addCpuGroup()
    {
        if (m_cpuNodes.empty())
            return 0;
        GroupRec g = newGroup();
        g.name = m_rng.chance(0.5) ? "actor-pool-" + std::to_string(m_groups.size()) : std::string();
        const int bundles = 1 + m_rng.below(4);
        for (int i = 0; i < bundles; ++i) {
            BundleRec b;
            b.resources = {{"CPU", 1.0}};
            b.nodeId = m_nodes[size_t(m_cpuNodes[size_t(m_rng.below(int(m_cpuNodes.size())))])].id;
            g.bundles.push_back(std::move(b));
        }
        m_groups.push_back(std::move(g));
        return 1;
    }

    void purgeRemovedGroups()
    {
        std::vector<int> removed;
        for (int i = 0; i < int(m_groups.size()); ++i)
            if (!m_groups[size_t(i)].purged && std::string_view(m_groups[size_t(i)].state) == "REMOVED")
                removed.push_back(i);
        if (int(removed.size()) <= m_removedLimit)
            return;
        std::sort(removed.begin(), removed.end(), [&](int a, int b) { return m_groups[size_t(a)].removedAtMs < m_groups[size_t(b)].removedAtMs; });
        for (size_t i = 0; i < removed.size() - size_t(m_removedLimit); ++i)
            m_groups[size_t(removed[i])].purged = true;
    }

    // Drops purged records now and then (slices and CPU workers hold node indexes: remap them).
    void compact()
    {
        const auto purgedGroups = std::count_if(m_groups.begin(), m_groups.end(), [](const GroupRec &g) { return g.purged; });
        if (purgedGroups > 2000)
            m_groups.erase(std::remove_if(m_groups.begin(), m_groups.end(), [](const GroupRec &g) { return g.purged; }), m_groups.end());
        const auto purgedNodes = std::count_if(m_nodes.begin(), m_nodes.end(), [](const NodeRec &n) { return n.purged; });
        if (purgedNodes < 2000)
            return;
        std::vector<int> remap(m_nodes.size(), -1);
        std::vector<NodeRec> kept;
        kept.reserve(m_nodes.size() - size_t(purgedNodes));
        for (size_t i = 0; i < m_nodes.size(); ++i) {
            if (m_nodes[i].purged)
                continue;
            remap[i] = int(kept.size());
            kept.push_back(std::move(m_nodes[i]));
        }
        m_nodes = std::move(kept);
        for (SliceRec &sl : m_slices)
            for (int &n : sl.hosts)
                n = remap[size_t(n)];
        for (int &n : m_cpuNodes)
            n = remap[size_t(n)];
    }

    // One RayCluster with a TPU worker group per generated group (docs/facts.md 4): KubeRay's spec.
    QByteArray writeRayClusters()
    {
        JsonWriter w(JsonWriter::Style::Compact, qsizetype(m_workerGroups.size()) * 700 + 1024);
        w.beginObject().member("apiVersion", "ray.io/v1").member("kind", "RayClusterList");
        w.key("metadata").beginObject().member("resourceVersion", std::to_string(48213377 + m_clusterGeneration)).endObject();
        w.key("items").beginArray().beginObject();
        w.member("apiVersion", "ray.io/v1").member("kind", "RayCluster");
        w.key("metadata").beginObject().member("name", kClusterName).member("namespace", kNamespace).memberInteger("generation", 3 + m_clusterGeneration).member("resourceVersion", std::to_string(48213000 + m_clusterGeneration)).endObject();
        w.key("spec").beginObject().memberBool("enableInTreeAutoscaling", false).member("rayVersion", "2.60.0");
        w.key("workerGroupSpecs").beginArray();
        for (const WorkerGroupRec &g : m_workerGroups) {
            const SliceKind &k = kSliceKinds[size_t(g.kind)];
            w.beginObject()
                .member("groupName", g.name)
                .memberInteger("replicas", g.replicas)
                .memberInteger("minReplicas", 0)
                .memberInteger("maxReplicas", kReplicasPerGroup)
                .memberInteger("numOfHosts", k.hosts);
            w.key("rayStartParams").beginObject().endObject();
            w.key("template").beginObject().key("spec").beginObject();
            w.key("nodeSelector").beginObject().member("cloud.google.com/gke-tpu-accelerator", k.gkeAccelerator).member("cloud.google.com/gke-tpu-topology", k.topology).endObject();
            w.key("containers").beginArray().beginObject().member("name", "ray-worker").member("image", "rayproject/ray:2.60.0-py311-tpu");
            w.key("resources").beginObject();
            for (const char *kind : {"limits", "requests"})
                w.key(kind).beginObject().member("google.com/tpu", std::to_string(k.chipsPerHost)).endObject();
            w.endObject().endObject().endArray(); // resources, container, containers
            w.endObject().endObject(); // spec, template
            w.endObject();
        }
        w.endArray().endObject(); // workerGroupSpecs, spec
        w.key("status").beginObject().member("state", "ready").memberInteger("observedGeneration", 3 + m_clusterGeneration);
        w.key("head").beginObject().member("serviceName", std::string(kClusterName) + "-head-svc").endObject();
        w.endObject(); // status
        w.endObject().endArray().endObject();
        return w.take();
    }

    // The slices a snapshot shows: one whose every listed Ray node is dead, with no pod left (the
    // generator writes pods for live hosts only), is one KubeRay removed, and without Kubernetes so
    // is one whose every node ended as asked ("Expected termination"); a crash stays, degraded.
    // The model's rule (model/snapshotjoin.cpp, isRemoved); the bench checks the model against it.
    int shownSlices() const
    {
        std::vector<char> anyAlive(m_slices.size(), 0), anyCrashed(m_slices.size(), 0), anyListed(m_slices.size(), 0);
        for (const NodeRec &n : m_nodes) {
            if (n.slice < 0 || n.purged)
                continue;
            anyListed[size_t(n.slice)] = 1;
            anyAlive[size_t(n.slice)] |= n.alive;
            anyCrashed[size_t(n.slice)] |= !n.alive && !n.expectedDeath;
        }
        int shown = 0;
        for (size_t i = 0; i < m_slices.size(); ++i)
            shown += anyListed[i] && (anyAlive[i] || (!m_opt.kubernetes && anyCrashed[i]));
        return shown;
    }

    GeneratorOptions m_opt;
    Rng m_rng;
    GeneratedCounts m_counts;
    quint32 m_nextIp = 0;
    qint64 m_nowMs = kNowMs;
    std::vector<NodeRec> m_nodes;
    std::vector<int> m_cpuNodes;
    std::vector<SliceRec> m_slices;
    std::vector<GroupRec> m_groups;
    // ClusterSimulation only.
    QByteArray m_version;
    std::vector<WorkerGroupRec> m_workerGroups;
    std::vector<Replacement> m_replacements;
    int m_deadLimit = 0;
    int m_removedLimit = 0;
    int m_pendingLimit = 0;
    int m_clusterGeneration = 0;
};

} // namespace

struct ClusterSimulation::State {
    explicit State(const GeneratorOptions &o)
        : generator(o)
    { }
    Generator generator;
};

ClusterSimulation::ClusterSimulation(const GeneratorOptions &options)
    : d(std::make_unique<State>(options))
{
    d->generator.initSimulation();
}

ClusterSimulation::~ClusterSimulation() = default;

Capture ClusterSimulation::capture()
{
    return d->generator.simulationCapture();
}

SimulationStep ClusterSimulation::step(double fraction, qint64 intervalMs)
{
    return d->generator.simulationStep(fraction, intervalMs);
}

GeneratedCounts ClusterSimulation::expected() const
{
    return d->generator.simulationCounts();
}

Capture generateCluster(const GeneratorOptions &options, GeneratedCounts *expected)
{
    GeneratedCounts counts;
    Capture c = Generator(options).run(counts);
    if (expected)
        *expected = counts;
    return c;
}

} // namespace slicescope::bench
