// SPDX-License-Identifier: GPL-3.0-or-later
// buildSnapshot(): parse the captured bodies (simdjson on-demand, one pass each), then join
// Ray nodes, pods and Kubernetes nodes into slices, place bundles on chips and build worker groups.
// Each body is parsed into temporaries first and kept only if it parsed whole, so a truncated body
// never leaves half a list behind.

#include "snapshot.h"
#include "naturalsort_p.h"

#include "jsonread_p.h"

#include <QVarLengthArray>

#include <QSet>

#include <algorithm>

namespace slicescope {

using namespace json;

namespace {

constexpr std::string_view kSliceNameLabel = "ray.io/tpu-slice-name";
constexpr std::string_view kWorkerIdLabel = "ray.io/tpu-worker-id";
constexpr std::string_view kPodTypeLabel = "ray.io/tpu-pod-type";
constexpr std::string_view kTopologyLabel = "ray.io/tpu-topology";
constexpr std::string_view kAcceleratorLabel = "ray.io/accelerator-type";
constexpr std::string_view kNodeGroupLabel = "ray.io/node-group";
constexpr std::string_view kGkeAccelerator = "cloud.google.com/gke-tpu-accelerator";
constexpr std::string_view kGkeTopology = "cloud.google.com/gke-tpu-topology";
constexpr std::string_view kGkeNodePool = "cloud.google.com/gke-nodepool";
constexpr std::string_view kTpuResource = "google.com/tpu";

simdjson::ondemand::parser &sharedParser()
{
    thread_local simdjson::ondemand::parser parser;
    return parser;
}

// Runs `parse` over one body; on a structural error records "<what>: <problem> at byte N" and
// reports failure so the caller drops everything it read from that body.
template<typename F>
bool parseBody(const QByteArray &body, const char *what, QStringList &errors, F &&parse)
{
    if (body.isEmpty())
        return false;
    PaddedBody padded(body);
    od::document doc;
    auto &parser = sharedParser();
    if (auto err = parser.iterate(padded.view()).get(doc); err != simdjson::SUCCESS) {
        errors << QStringLiteral("%1: not JSON (%2)").arg(QLatin1String(what), QLatin1String(simdjson::error_message(err)));
        return false;
    }
    try {
        od::value root;
        if (auto err = doc.get_value().get(root); err != simdjson::SUCCESS)
            throw simdjson::simdjson_error(err);
        QString problem = parse(root);
        if (!problem.isEmpty()) {
            errors << QStringLiteral("%1: %2").arg(QLatin1String(what), problem);
            return false;
        }
        return true;
    } catch (const simdjson::simdjson_error &e) {
        const char *at = nullptr;
        qint64 offset = -1;
        if (doc.current_location().get(at) == simdjson::SUCCESS && at >= body.constData()
            && at <= body.constData() + body.size())
            offset = at - body.constData();
        errors << (offset >= 0 ? QStringLiteral("%1: invalid JSON near byte %3 of %4 (%2)")
                                     .arg(QLatin1String(what), QLatin1String(e.what())).arg(offset).arg(body.size())
                               : QStringLiteral("%1: invalid JSON (%2; the body may be truncated)")
                                     .arg(QLatin1String(what), QLatin1String(e.what())));
        return false;
    }
}

QString describeType(od::value &v)
{
    switch (typeOf(v)) {
    case od::json_type::array: return QStringLiteral("an array");
    case od::json_type::object: return QStringLiteral("an object");
    case od::json_type::number: return QStringLiteral("a number");
    case od::json_type::string: return QStringLiteral("a string");
    case od::json_type::boolean: return QStringLiteral("a boolean");
    case od::json_type::null: return QStringLiteral("null");
    }
    return QStringLiteral("something else");
}

// The Ray state API envelope: {"result", "msg", "data": {"result": {"total", "num_filtered", "result": [...]}}}.
// Calls `item` for every object in the list. Returns a problem sentence, or empty.
template<typename F>
QString readStateList(od::value root, const char *what, QStringList &warnings, F &&item)
{
    if (typeOf(root) != od::json_type::object)
        return QStringLiteral("expected the state API envelope (an object), got %1").arg(describeType(root));
    bool ok = true;
    bool sawList = false;
    QString msg;
    qint64 total = -1, numFiltered = -1, count = 0, skipped = 0;
    QString listProblem;
    forEachMember(root, [&](std::string_view key, od::value v) {
        if (key == "result")
            ok = toBool(v, true);
        else if (key == "msg")
            msg = toString(v);
        else if (key == "data") {
            if (typeOf(v) != od::json_type::object) {
                listProblem = QStringLiteral("\"data\" is %1, expected an object").arg(describeType(v));
                return;
            }
            forEachMember(v, [&](std::string_view k2, od::value inner) {
                if (k2 != "result")
                    return;
                if (typeOf(inner) != od::json_type::object) {
                    listProblem = QStringLiteral("\"data.result\" is %1, expected an object").arg(describeType(inner));
                    return;
                }
                forEachMember(inner, [&](std::string_view k3, od::value list) {
                    if (k3 == "total")
                        total = toInt(list, -1);
                    else if (k3 == "num_filtered")
                        numFiltered = toInt(list, -1);
                    else if (k3 == "partial_failure_warning") {
                        const QString w = toString(list);
                        if (!w.isEmpty())
                            warnings << QStringLiteral("%1: %2").arg(QLatin1String(what), w);
                    } else if (k3 == "result") {
                        if (typeOf(list) != od::json_type::array) {
                            listProblem = QStringLiteral("\"data.result.result\" is %1, expected an array").arg(describeType(list));
                            return;
                        }
                        sawList = true;
                        forEachElement(list, [&](od::value element) {
                            if (typeOf(element) != od::json_type::object) {
                                ++skipped;
                                return;
                            }
                            ++count;
                            item(take(element.get_object()));
                        });
                    }
                });
            });
        }
    });
    if (!ok)
        return QStringLiteral("the server reported a failure: %1").arg(msg.isEmpty() ? QStringLiteral("(no message)") : msg);
    if (!listProblem.isEmpty())
        return listProblem;
    if (!sawList)
        return QStringLiteral("no list at data.result.result");
    if (skipped)
        warnings << QStringLiteral("%1: skipped %2 list entries that are not objects").arg(QLatin1String(what)).arg(skipped);
    const qint64 expected = numFiltered >= 0 ? numFiltered : total;
    if (expected > count + skipped)
        warnings << QStringLiteral("%1: list truncated: %2 of %3 items returned (the state API limit is 10000)")
                        .arg(QLatin1String(what)).arg(count).arg(expected);
    return {};
}

// ---- Ray ------------------------------------------------------------------------------------

void readRayNode(od::object obj, RayNode &n)
{
    for (auto member : obj) {
        od::field f = take(std::move(member));
        const std::string_view key = take(f.unescaped_key());
        od::value v = f.value();
        if (key == "node_id") n.id = toString(v);
        else if (key == "node_ip") n.ip = toString(v);
        else if (key == "node_name") n.name = toString(v);
        else if (key == "is_head_node") n.isHead = toBool(v);
        else if (key == "state") { std::string_view s; n.alive = v.get_string().get(s) == simdjson::SUCCESS && s == "ALIVE"; }
        else if (key == "state_message") n.stateMessage = toString(v);
        else if (key == "start_time_ms") n.startTimeMs = toInt(v);
        else if (key == "end_time_ms") n.endTimeMs = toInt(v);
        else if (key == "resources_total") {
            forEachMember(v, [&](std::string_view r, od::value amount) {
                if (r == "TPU") n.tpu = toDouble(amount);
                else if (r == "CPU") n.cpu = toDouble(amount);
                else if (r.size() > 9 && r.substr(0, 4) == "TPU-" && r.substr(r.size() - 5) == "-head")
                    n.hasSliceHeadResource = toDouble(amount) > 0;
            });
        } else if (key == "labels") {
            forEachMember(v, [&](std::string_view l, od::value value) {
                if (l.size() < 7 || l.substr(0, 7) != "ray.io/")
                    return;
                if (l == kSliceNameLabel) n.sliceName = toString(value);
                else if (l == kWorkerIdLabel) n.workerId = int(toInt(value, -1));
                else if (l == kPodTypeLabel) n.podType = toString(value);
                else if (l == kTopologyLabel) n.topology = toString(value);
                else if (l == kAcceleratorLabel) n.acceleratorType = toString(value);
                else if (l == kNodeGroupLabel) n.nodeGroup = toString(value);
            });
        }
    }
}

struct RawPlacementGroup {
    PlacementGroup group;
    bool removed = false;
};

void readBundle(od::object obj, Bundle &b)
{
    for (auto member : obj) {
        od::field f = take(std::move(member));
        const std::string_view key = take(f.unescaped_key());
        od::value v = f.value();
        if (key == "bundle_id") {
            forEachMember(v, [&](std::string_view k, od::value x) {
                if (k == "bundle_index")
                    b.index = int(toInt(x));
            });
        } else if (key == "node_id") {
            b.nodeId = toString(v);
        } else if (key == "unit_resources") {
            forEachMember(v, [&](std::string_view r, od::value amount) {
                if (r == "TPU") b.tpu = int(toDouble(amount) + 0.5);
                else if (r == "CPU") b.cpu = toDouble(amount);
                else if (r.size() > 9 && r.substr(0, 4) == "TPU-" && r.substr(r.size() - 5) == "-head")
                    b.headResource = qstr(r);
            });
        } else if (key == "label_selector") {
            forEachMember(v, [&](std::string_view l, od::value sel) {
                if (l == kSliceNameLabel)
                    b.selectorSlice = toString(sel);
            });
        }
    }
}

void readPlacementGroup(od::object obj, RawPlacementGroup &raw)
{
    PlacementGroup &g = raw.group;
    for (auto member : obj) {
        od::field f = take(std::move(member));
        const std::string_view key = take(f.unescaped_key());
        od::value v = f.value();
        if (key == "placement_group_id") g.id = toString(v);
        else if (key == "name") g.name = toString(v);
        else if (key == "creator_job_id") g.creatorJobId = toString(v);
        else if (key == "state") { g.state = toString(v); raw.removed = g.state == QLatin1String("REMOVED"); }
        else if (key == "is_detached") g.detached = toBool(v);
        else if (key == "stats") {
            forEachMember(v, [&](std::string_view k, od::value x) {
                if (k == "scheduling_state")
                    g.schedulingState = toString(x);
            });
        } else if (key == "bundles") {
            forEachElement(v, [&](od::value element) {
                if (typeOf(element) != od::json_type::object)
                    return;
                Bundle b;
                b.index = int(g.bundles.size());
                readBundle(take(element.get_object()), b);
                g.bundles.append(std::move(b));
            });
        }
    }
}

void readJob(od::object obj, Job &j)
{
    for (auto member : obj) {
        od::field f = take(std::move(member));
        const std::string_view key = take(f.unescaped_key());
        od::value v = f.value();
        if (key == "submission_id") j.submissionId = toString(v);
        else if (key == "job_id") j.jobId = toString(v);
        else if (key == "status") j.status = toString(v);
        else if (key == "entrypoint") j.entrypoint = toString(v);
        else if (key == "message") j.message = toString(v);
        else if (key == "start_time") j.startTimeMs = toInt(v);
        else if (key == "end_time") j.endTimeMs = toInt(v);
    }
}

// ---- Kubernetes -----------------------------------------------------------------------------

// "4", "4.0", 4: a google.com/tpu quantity. Kubernetes quantities for chips are plain integers.
int readQuantity(od::value v) { return int(toDouble(v) + 0.5); }

// containers[].resources: the TPU request (requests first, limits as fallback; they must match).
int readContainersTpu(od::value containers, QString *tpuName = nullptr, int *tpuWorkerId = nullptr)
{
    int best = 0;
    forEachElement(containers, [&](od::value c) {
        int requests = 0, limits = 0;
        forEachMember(c, [&](std::string_view k, od::value v) {
            if (k == "resources") {
                forEachMember(v, [&](std::string_view kind, od::value list) {
                    forEachMember(list, [&](std::string_view r, od::value q) {
                        if (r != kTpuResource)
                            return;
                        (kind == "requests" ? requests : limits) = readQuantity(q);
                    });
                });
            } else if (k == "env" && (tpuName || tpuWorkerId)) {
                forEachElement(v, [&](od::value e) {
                    // Views into the parser's string buffer stay valid for this document; convert
                    // only the two variables we need (TPU_WORKER_HOSTNAMES can be long).
                    std::string_view name, value;
                    forEachMember(e, [&](std::string_view ek, od::value ev) {
                        if (ek == "name" || ek == "value") {
                            std::string_view text;
                            if (typeOf(ev) == od::json_type::string && ev.get_string().get(text) == simdjson::SUCCESS)
                                (ek == "name" ? name : value) = text;
                        }
                    });
                    if (tpuName && name == "TPU_NAME")
                        *tpuName = qstr(value);
                    else if (tpuWorkerId && name == "TPU_WORKER_ID") {
                        int id = 0;
                        const auto res = std::from_chars(value.data(), value.data() + value.size(), id);
                        if (res.ec == std::errc() && res.ptr == value.data() + value.size())
                            *tpuWorkerId = id;
                    }
                });
            }
        });
        best = std::max(best, requests ? requests : limits);
    });
    return best;
}

void readNodeSelector(od::value v, QString &accelerator, QString &topology)
{
    forEachMember(v, [&](std::string_view k, od::value x) {
        if (k == kGkeAccelerator) accelerator = toString(x);
        else if (k == kGkeTopology) topology = toString(x);
    });
}

struct RawCluster {
    RayClusterInfo info;
    QList<WorkerGroup> groups;
};

void readRayCluster(od::value item, RawCluster &rc)
{
    forEachMember(item, [&](std::string_view key, od::value v) {
        if (key == "metadata") {
            forEachMember(v, [&](std::string_view k, od::value x) {
                if (k == "name") rc.info.name = toString(x);
                else if (k == "namespace") rc.info.ns = toString(x);
                else if (k == "generation") rc.info.generation = toInt(x);
                else if (k == "resourceVersion") rc.info.resourceVersion = toString(x);
            });
        } else if (key == "spec") {
            forEachMember(v, [&](std::string_view k, od::value x) {
                if (k == "enableInTreeAutoscaling") {
                    rc.info.autoscaling = toBool(x);
                } else if (k == "workerGroupSpecs") {
                    forEachElement(x, [&](od::value spec) {
                        WorkerGroup g;
                        bool sawMin = false, sawMax = false, sawReplicas = false;
                        forEachMember(spec, [&](std::string_view sk, od::value sv) {
                            if (sk == "groupName") g.group = toString(sv);
                            else if (sk == "replicas") { g.replicas = int(toInt(sv)); sawReplicas = true; }
                            else if (sk == "minReplicas") { g.minReplicas = int(toInt(sv)); sawMin = true; }
                            else if (sk == "maxReplicas") { g.maxReplicas = int(toInt(sv)); sawMax = true; }
                            else if (sk == "numOfHosts") g.numOfHosts = std::max(1, int(toInt(sv, 1)));
                            else if (sk == "suspend") g.suspended = toBool(sv);
                            else if (sk == "scaleStrategy") {
                                forEachMember(sv, [&](std::string_view ssk, od::value list) {
                                    if (ssk == "workersToDelete")
                                        forEachElement(list, [&](od::value name) { g.workersToDelete << toString(name); });
                                });
                            } else if (sk == "template") {
                                forEachMember(sv, [&](std::string_view tk, od::value podSpec) {
                                    if (tk != "spec")
                                        return;
                                    forEachMember(podSpec, [&](std::string_view pk, od::value pv) {
                                        if (pk == "nodeSelector") readNodeSelector(pv, g.accelerator, g.topology);
                                        else if (pk == "containers") g.chipsPerHost = readContainersTpu(pv);
                                    });
                                });
                            }
                        });
                        // KubeRay's defaults: replicas defaults to minReplicas, maxReplicas to a large number.
                        if (!sawMin) g.minReplicas = 0;
                        if (!sawReplicas) g.replicas = g.minReplicas;
                        if (!sawMax) g.maxReplicas = std::numeric_limits<int>::max();
                        g.replicasSet = sawReplicas;
                        g.specIndex = int(rc.groups.size());
                        rc.groups.append(std::move(g));
                    });
                }
            });
        } else if (key == "status") {
            forEachMember(v, [&](std::string_view k, od::value x) {
                if (k == "state") rc.info.state = toString(x);
                else if (k == "observedGeneration") rc.info.observedGeneration = toInt(x);
                else if (k == "head") {
                    forEachMember(x, [&](std::string_view hk, od::value hv) {
                        if (hk == "serviceName") rc.info.headServiceName = toString(hv);
                    });
                }
            });
        }
    });
}

void readPod(od::value item, Pod &p, QString &replicaName, QString &legacyReplicaIndex, QString &replicaIndex)
{
    forEachMember(item, [&](std::string_view key, od::value v) {
        if (key == "metadata") {
            forEachMember(v, [&](std::string_view k, od::value x) {
                if (k == "name") p.name = toString(x);
                else if (k == "namespace") p.ns = toString(x);
                else if (k == "deletionTimestamp") p.terminating = typeOf(x) == od::json_type::string;
                else if (k == "labels") {
                    forEachMember(x, [&](std::string_view l, od::value lv) {
                        if (l == "ray.io/cluster") p.cluster = toString(lv);
                        else if (l == "ray.io/group") p.group = toString(lv);
                        else if (l == "ray.io/node-type") p.isHead = toString(lv) == QLatin1String("head");
                        else if (l == "ray.io/worker-group-replica-name") replicaName = toString(lv);
                        else if (l == "ray.io/worker-group-replica-index") replicaIndex = toString(lv);
                        else if (l == "replicaIndex") legacyReplicaIndex = toString(lv);
                        else if (l == "ray.io/replica-host-index") {
                            bool ok = false;
                            const int h = toString(lv).toInt(&ok);
                            if (ok) p.hostIndex = h;
                        }
                    });
                }
            });
        } else if (key == "spec") {
            forEachMember(v, [&](std::string_view k, od::value x) {
                if (k == "nodeName") p.nodeName = toString(x);
                else if (k == "nodeSelector") readNodeSelector(x, p.accelerator, p.topology);
                else if (k == "containers") {
                    int envWorkerId = -1;
                    p.tpuChips = readContainersTpu(x, &p.tpuName, &envWorkerId);
                    if (p.hostIndex < 0)
                        p.hostIndex = envWorkerId;
                }
            });
        } else if (key == "status") {
            forEachMember(v, [&](std::string_view k, od::value x) {
                if (k == "phase") p.phase = toString(x);
                else if (k == "podIP") p.podIp = toString(x);
                else if (k == "conditions") {
                    forEachElement(x, [&](od::value c) {
                        QString type, status;
                        forEachMember(c, [&](std::string_view ck, od::value cv) {
                            if (ck == "type") type = toString(cv);
                            else if (ck == "status") status = toString(cv);
                        });
                        if (type == QLatin1String("Ready"))
                            p.ready = status == QLatin1String("True");
                    });
                }
            });
        }
    });
}

void readKubeNode(od::value item, KubeNode &n)
{
    forEachMember(item, [&](std::string_view key, od::value v) {
        if (key == "metadata") {
            forEachMember(v, [&](std::string_view k, od::value x) {
                if (k == "name") n.name = toString(x);
                else if (k == "labels") {
                    forEachMember(x, [&](std::string_view l, od::value lv) {
                        if (l == kGkeAccelerator) n.accelerator = toString(lv);
                        else if (l == kGkeTopology) n.topology = toString(lv);
                        else if (l == kGkeNodePool) n.nodePool = toString(lv);
                    });
                }
            });
        } else if (key == "status") {
            forEachMember(v, [&](std::string_view k, od::value x) {
                if (k == "capacity") {
                    forEachMember(x, [&](std::string_view r, od::value q) {
                        if (r == kTpuResource) n.tpuCapacity = readQuantity(q);
                    });
                } else if (k == "conditions") {
                    forEachElement(x, [&](od::value c) {
                        QString type, status;
                        forEachMember(c, [&](std::string_view ck, od::value cv) {
                            if (ck == "type") type = toString(cv);
                            else if (ck == "status") status = toString(cv);
                        });
                        if (type == QLatin1String("Ready"))
                            n.ready = status == QLatin1String("True");
                    });
                }
            });
        }
    });
}

// A Kubernetes list ({"kind": "...List", "items": [...]}); calls `item` for each object.
template<typename F>
QString readKubeList(od::value root, const char *what, QStringList &warnings, F &&item)
{
    if (typeOf(root) != od::json_type::object)
        return QStringLiteral("expected a Kubernetes list (an object), got %1").arg(describeType(root));
    bool sawItems = false;
    QString kind, status, message;
    qint64 skipped = 0;
    QString continueToken;
    forEachMember(root, [&](std::string_view key, od::value v) {
        if (key == "kind") kind = toString(v);
        else if (key == "status") status = toString(v);
        else if (key == "message") message = toString(v);
        else if (key == "metadata") {
            forEachMember(v, [&](std::string_view k, od::value x) {
                if (k == "continue") continueToken = toString(x);
            });
        } else if (key == "items") {
            if (typeOf(v) == od::json_type::null) { // an empty list may serialise as null
                sawItems = true;
                return;
            }
            if (typeOf(v) != od::json_type::array)
                return;
            sawItems = true;
            forEachElement(v, [&](od::value element) {
                if (typeOf(element) != od::json_type::object) {
                    ++skipped;
                    return;
                }
                item(element);
            });
        }
    });
    if (kind == QLatin1String("Status"))
        return QStringLiteral("the API server answered %1: %2").arg(status, message);
    if (!sawItems)
        return QStringLiteral("no \"items\" array");
    if (skipped)
        warnings << QStringLiteral("%1: skipped %2 items that are not objects").arg(QLatin1String(what)).arg(skipped);
    if (!continueToken.isEmpty())
        warnings << QStringLiteral("%1: list is incomplete (a continue token was left unfollowed)").arg(QLatin1String(what));
    return {};
}

// ---- Joining --------------------------------------------------------------------------------

struct SliceParts {
    QList<int> rayNodes;
    QList<int> pods;
};

// The better of two Ray nodes claiming the same worker: alive beats dead, then the newest.
bool betterNode(const RayNode &a, const RayNode &b)
{
    if (a.alive != b.alive)
        return a.alive;
    return a.startTimeMs > b.startTimeMs;
}

bool betterPod(const Pod &a, const Pod &b)
{
    if (a.terminating != b.terminating)
        return !a.terminating;
    const bool aRunning = a.phase == QLatin1String("Running"), bRunning = b.phase == QLatin1String("Running");
    if (aRunning != bRunning)
        return aRunning;
    return a.name < b.name;
}

class Joiner
{
public:
    explicit Joiner(ClusterSnapshot &s, bool hasRayNodes)
        : m_s(s), m_hasRayNodes(hasRayNodes)
    {
    }

    void run(const QList<QString> &podReplicaKeys)
    {
        indexRayNodes();
        groupPodsIntoSlices(podReplicaKeys);
        buildSlices();
        placeBundles();
        attachWorkerGroups();
    }

private:
    void indexRayNodes()
    {
        m_nodeById.reserve(m_s.rayNodes.size());
        for (int i = 0; i < m_s.rayNodes.size(); ++i) {
            const RayNode &n = m_s.rayNodes[i];
            m_nodeById.insert(n.id, i);
            if (!n.ip.isEmpty() && !m_s.pods.isEmpty()) // only pods join nodes (and clusters) by IP
                m_nodesByIp.insert(n.ip, i);
            if (!n.sliceName.isEmpty())
                m_parts[n.sliceName].rayNodes.append(i);
            else if (n.tpu > 0 && !n.isHead)
                m_s.warnings << QStringLiteral("Ray node %1 (%2) has TPU %3 but no %4 label: not part of any slice")
                                    .arg(n.id.left(12), n.ip).arg(n.tpu).arg(QLatin1String(kSliceNameLabel.data()));
        }
    }

    void groupPodsIntoSlices(const QList<QString> &podReplicaKeys)
    {
        // Which RayClusters the Ray bodies describe: those with a pod whose IP a Ray node has.
        // (A Kubernetes capture may span many RayClusters; the Ray dashboard is one of them.)
        for (const Pod &p : std::as_const(m_s.pods))
            if (!p.podIp.isEmpty() && m_nodesByIp.contains(p.podIp))
                m_rayClusters.insert(p.ns + u'/' + p.cluster);

        // Pods are grouped by replica first (FACTS.md 4), then the group is named by TPU_NAME.
        QHash<QString, QList<int>> byReplica;
        QStringList order;
        for (int i = 0; i < m_s.pods.size(); ++i) {
            const Pod &p = m_s.pods[i];
            if (p.isHead || (p.tpuChips <= 0 && p.accelerator.isEmpty()))
                continue;
            const QString key = p.ns + u'/' + p.cluster + u'/' + p.group + u'/' + podReplicaKeys[i];
            if (!byReplica.contains(key))
                order << key;
            byReplica[key].append(i);
        }
        for (const QString &key : std::as_const(order)) {
            const QList<int> &members = byReplica[key];
            QString name;
            for (int i : members)
                if (!m_s.pods[i].tpuName.isEmpty()) { name = m_s.pods[i].tpuName; break; }
            if (name.isEmpty())
                name = m_s.pods[members.first()].replicaKey;
            if (name.isEmpty()) {
                m_s.warnings << QStringLiteral("pod %1 has a TPU request but nothing names its slice (no replica label, no TPU_NAME)")
                                    .arg(m_s.pods[members.first()].qualifiedName());
                continue;
            }
            // TPU_NAME is unique within one RayCluster only. When another cluster's replica (or
            // Ray's slice of that name, for a cluster Ray does not describe) already has the name,
            // qualify it as ns/cluster/name rather than merging two slices into one.
            const Pod &first = m_s.pods[members.first()];
            const QString cluster = first.ns + u'/' + first.cluster;
            const QString owner = m_nameOwner.value(name);
            const bool rayHasName = m_parts.contains(name) && !m_parts[name].rayNodes.isEmpty();
            if ((!owner.isEmpty() && owner != cluster) || (owner.isEmpty() && rayHasName && !m_rayClusters.contains(cluster)))
                name = cluster + u'/' + name;
            else
                m_nameOwner.insert(name, cluster);
            for (int i : members)
                m_s.pods[i].replicaKey = name;
            m_parts[name].pods += members;
        }
    }

    const tpu::Generation *groupGeneration(const QString &qualifiedGroup) const
    {
        for (const WorkerGroup &g : m_s.workerGroups)
            if (g.qualifiedName() == qualifiedGroup)
                return tpu::findGeneration(g.accelerator);
        return nullptr;
    }

    void buildSlices()
    {
        QStringList names = m_parts.keys();
        std::sort(names.begin(), names.end(), naturalLess);
        m_s.slices.reserve(names.size());
        m_sliceOfNode.fill(-1, m_s.rayNodes.size());
        for (const QString &name : std::as_const(names)) {
            const SliceParts &parts = m_parts[name];
            for (int node : parts.rayNodes)
                m_sliceOfNode[node] = int(m_s.slices.size());
            m_s.slices.append(buildSlice(name, parts));
        }
    }

    Slice buildSlice(const QString &name, const SliceParts &parts)
    {
        Slice s;
        s.name = name;
        const bool fromRay = !parts.rayNodes.isEmpty(), fromKube = !parts.pods.isEmpty();
        s.source = fromRay && fromKube ? SliceSource::Both : fromRay ? SliceSource::Ray : SliceSource::Kubernetes;

        QString topologyText, podTypeText, accelerator;
        int chipsPerHost = 0;
        for (int i : parts.rayNodes) {
            const RayNode &n = m_s.rayNodes[i];
            if (topologyText.isEmpty()) topologyText = n.topology;
            if (podTypeText.isEmpty()) podTypeText = n.podType;
            if (accelerator.isEmpty()) accelerator = n.acceleratorType;
            chipsPerHost = std::max(chipsPerHost, int(n.tpu + 0.5));
        }
        for (int i : parts.pods) {
            const Pod &p = m_s.pods[i];
            if (topologyText.isEmpty()) topologyText = p.topology;
            if (accelerator.isEmpty()) accelerator = p.accelerator;
            if (chipsPerHost == 0) chipsPerHost = p.tpuChips;
            if (s.workerGroup.isEmpty() && !p.cluster.isEmpty())
                s.workerGroup = p.ns + u'/' + p.cluster + u'/' + p.group;
        }
        if (s.workerGroup.isEmpty() && m_s.pods.isEmpty()) {
            // Ray alone: the node-group label names the group; use it if exactly one cluster has it.
            // With pods known, a slice without pods is no longer a replica of any group (removed).
            QString nodeGroup;
            for (int i : parts.rayNodes)
                if (!m_s.rayNodes[i].nodeGroup.isEmpty()) { nodeGroup = m_s.rayNodes[i].nodeGroup; break; }
            int matches = 0;
            for (const WorkerGroup &g : m_s.workerGroups)
                if (!nodeGroup.isEmpty() && g.group == nodeGroup) { ++matches; s.workerGroup = g.qualifiedName(); }
            if (matches != 1)
                s.workerGroup.clear();
        }

        if (!podTypeText.isEmpty())
            s.generation = memo(m_generationByPodType, podTypeText, [&] { return tpu::generationOfPodType(podTypeText); });
        if (!s.generation && !accelerator.isEmpty())
            s.generation = memo(m_generationByAccelerator, accelerator, [&] { return tpu::findGeneration(accelerator); });
        if (!s.generation && !s.workerGroup.isEmpty())
            s.generation = groupGeneration(s.workerGroup);
        if (const auto t = memo(m_topologyByText, topologyText, [&] { return tpu::parseTopology(topologyText); }))
            s.topology = *t;
        if (s.generation && s.topology.chips() > 0) {
            if (s.topology.rank == 2 && s.generation->is3D) // Ray reports "2x2x1"; GKE sometimes "2x2"
                s.topology.rank = 3;
            s.podType = memo(m_podTypeByShape, qMakePair(s.generation, s.topology.chips()),
                             [&] { return tpu::podType(*s.generation, s.topology); });
            if (chipsPerHost == 0 || !tpu::hostBlock(*s.generation, s.topology, chipsPerHost))
                chipsPerHost = chipsPerHost == 0 ? tpu::defaultChipsPerHost(*s.generation, s.topology) : chipsPerHost;
            s.layout = tpu::SliceLayout(*s.generation, s.topology, chipsPerHost);
            if (!s.layout.isValid())
                s.problems << QStringLiteral("hosts with %1 chips cannot tile a %2 %3").arg(chipsPerHost).arg(s.generation->name, s.topology.toString());
        } else {
            s.podType = podTypeText;
            if (!s.generation)
                s.problems << QStringLiteral("TPU generation unknown");
            if (s.topology.chips() == 0)
                s.problems << QStringLiteral("topology unknown");
        }
        s.chipsPerHost = chipsPerHost;

        // Hosts: one per expected worker id; the best Ray node and pod for each. Without a known
        // shape the reported ids decide, within the largest slice any generation has.
        constexpr int kMaxHosts = 9216;
        int hostCount = s.layout.isValid() ? s.layout.hostCount() : 0;
        if (!s.layout.isValid()) {
            for (int i : parts.rayNodes)
                hostCount = std::max(hostCount, std::min(kMaxHosts, m_s.rayNodes[i].workerId + 1));
            for (int i : parts.pods)
                hostCount = std::max(hostCount, std::min(kMaxHosts, m_s.pods[i].hostIndex + 1));
        }
        const int expectedHosts = hostCount;
        // Callers test `id >= hostCount` first, so the message is only built for real strays.
        auto stray = [&](int id, const QString &who) {
            s.problems << QStringLiteral("%1 reports worker %2, but %3 has %4 hosts").arg(who).arg(id).arg(s.topology.toString()).arg(hostCount);
            m_s.warnings << QStringLiteral("slice %1: %2 reports worker id %3 outside its %4 hosts").arg(name, who).arg(id).arg(hostCount);
            return true;
        };
        s.hosts.resize(hostCount);
        for (int w = 0; w < hostCount; ++w)
            s.hosts[w].workerId = w;
        for (int i : parts.rayNodes) {
            const RayNode &n = m_s.rayNodes[i];
            if (n.workerId < 0) {
                m_s.warnings << QStringLiteral("slice %1: Ray node %2 has no usable %3 label").arg(name, n.id.left(12), QLatin1String(kWorkerIdLabel.data()));
                continue;
            }
            if (n.workerId >= hostCount && stray(n.workerId, QStringLiteral("Ray node %1").arg(n.id.left(12))))
                continue;
            Host &h = s.hosts[n.workerId];
            if (h.rayNode < 0 || betterNode(n, m_s.rayNodes[h.rayNode])) {
                if (h.rayNode >= 0 && m_s.rayNodes[h.rayNode].alive && n.alive)
                    m_s.warnings << QStringLiteral("slice %1: two alive Ray nodes claim worker %2").arg(name).arg(n.workerId);
                h.rayNode = i;
            }
        }
        for (int i : parts.pods) {
            const Pod &p = m_s.pods[i];
            if (p.hostIndex < 0) {
                m_s.warnings << QStringLiteral("slice %1: pod %2 has no host index (no ray.io/replica-host-index label, no TPU_WORKER_ID)")
                                    .arg(name, p.qualifiedName());
                continue;
            }
            if (p.hostIndex >= hostCount && stray(p.hostIndex, QStringLiteral("pod %1").arg(p.qualifiedName())))
                continue;
            Host &h = s.hosts[p.hostIndex];
            if (h.pod < 0 || betterPod(p, m_s.pods[h.pod]))
                h.pod = i;
        }

        // A pod whose Ray node carries no slice labels still joins it by pod IP, when the IP is unique.
        for (Host &h : s.hosts) {
            if (h.rayNode >= 0 || h.pod < 0 || m_s.pods[h.pod].podIp.isEmpty())
                continue;
            const QList<int> sameIp = m_nodesByIp.values(m_s.pods[h.pod].podIp);
            if (sameIp.size() == 1 && m_s.rayNodes[sameIp.first()].sliceName.isEmpty())
                h.rayNode = sameIp.first();
        }

        QString podCluster;
        for (int i : parts.pods)
            if (podCluster.isEmpty())
                podCluster = m_s.pods[i].ns + u'/' + m_s.pods[i].cluster;
        const bool rayDescribes = m_hasRayNodes && (fromRay || m_rayClusters.contains(podCluster));

        int reportedChips = 0;
        for (Host &h : s.hosts) {
            const RayNode *n = h.rayNode >= 0 ? &m_s.rayNodes[h.rayNode] : nullptr;
            const Pod *p = h.pod >= 0 ? &m_s.pods[h.pod] : nullptr;
            if (p && n && !n->ip.isEmpty() && !p->podIp.isEmpty() && n->ip != p->podIp && n->alive)
                m_s.warnings << QStringLiteral("slice %1 worker %2: pod %3 has IP %4 but the Ray node has %5")
                                    .arg(name).arg(h.workerId).arg(p->qualifiedName(), p->podIp, n->ip);
            if (p && !p->nodeName.isEmpty())
                h.kubeNode = m_kubeNodeByName.value(p->nodeName, -1);
            h.state = hostState(n, p, rayDescribes);
            h.reportedChips = n ? int(n->tpu + 0.5) : p ? p->tpuChips : 0;
            if (h.state == HostState::Alive)
                reportedChips += h.reportedChips;
            h.chips.resize(std::max(0, chipsPerHost));
            switch (h.state) {
            case HostState::Alive: break;
            case HostState::Dead: s.problems << QStringLiteral("worker %1 is DEAD").arg(h.workerId); break;
            case HostState::Pending:
                s.problems << (p ? QStringLiteral("worker %1 is PENDING (pod %2)").arg(h.workerId).arg(p->phase.isEmpty() ? QStringLiteral("not running") : p->phase)
                                 : QStringLiteral("worker %1 is PENDING").arg(h.workerId));
                break;
            case HostState::Missing: s.problems << QStringLiteral("worker %1 is MISSING").arg(h.workerId); break;
            }
        }
        bool allAlive = !s.hosts.isEmpty();
        for (const Host &h : s.hosts)
            allAlive = allAlive && h.state == HostState::Alive;
        if (allAlive && s.topology.chips() > 0 && reportedChips != s.topology.chips())
            s.problems << QStringLiteral("hosts report %1 TPU chips; %2 needs %3").arg(reportedChips).arg(s.topology.toString()).arg(s.topology.chips());
        const bool strays = std::any_of(s.problems.cbegin(), s.problems.cend(), [](const QString &p) { return p.contains(QLatin1String(" reports worker ")); });
        s.intact = allAlive && !strays && s.layout.isValid() && hostCount == expectedHosts && reportedChips == s.topology.chips();
        return s;
    }

    // rayDescribes: the Ray bodies cover this slice's cluster, so a missing Ray node means "not joined".
    HostState hostState(const RayNode *n, const Pod *p, bool rayDescribes) const
    {
        if (n && n->alive)
            return HostState::Alive;
        if (!rayDescribes && p) { // Kubernetes alone: a running, ready pod is the best evidence there is
            // A pod being deleted is a host going away, as with Ray data below: DEAD, not PENDING.
            if (p->terminating)
                return HostState::Dead;
            return p->phase == QLatin1String("Running") && p->ready ? HostState::Alive : HostState::Pending;
        }
        if (n) // dead in Ray: a replacement pod still starting makes it pending again
            return p && !p->terminating && p->phase == QLatin1String("Pending") ? HostState::Pending : HostState::Dead;
        if (p)
            return p->terminating ? HostState::Dead : HostState::Pending; // pod up, Ray not joined yet
        return HostState::Missing;
    }

    void placeBundles()
    {
        for (int g = 0; g < m_s.placementGroups.size(); ++g) {
            PlacementGroup &pg = m_s.placementGroups[g];
            bool anyHead = false, allSelectSlices = !pg.bundles.isEmpty();
            QVarLengthArray<int, 4> occupied; // slice indexes, first seen first
            for (Bundle &b : pg.bundles) {
                anyHead = anyHead || !b.headResource.isEmpty();
                allSelectSlices = allSelectSlices && !b.selectorSlice.isEmpty();
                if (b.nodeId.isEmpty())
                    continue;
                b.rayNode = m_nodeById.value(b.nodeId, -1);
                if (b.rayNode < 0) {
                    m_s.warnings << QStringLiteral("placement group %1 bundle %2 is on node %3, which the node list lacks")
                                        .arg(pg.id).arg(b.index).arg(b.nodeId.left(12));
                    continue;
                }
                const RayNode &n = m_s.rayNodes[b.rayNode];
                if (n.sliceName.isEmpty())
                    continue;
                b.slice = m_sliceOfNode[b.rayNode];
                b.workerId = n.workerId;
                if (b.slice < 0)
                    continue;
                Slice &s = m_s.slices[b.slice];
                if (!occupied.contains(b.slice))
                    occupied.append(b.slice);
                if (!b.headResource.isEmpty())
                    s.headHeldBy = g;
                if (b.tpu <= 0 || b.workerId < 0 || b.workerId >= s.hosts.size())
                    continue;
                Host &h = s.hosts[b.workerId];
                if (h.rayNode != b.rayNode) // a bundle on a replaced (dead) node no longer holds chips
                    continue;
                int toPlace = b.tpu;
                for (ChipUse &chip : h.chips) {
                    if (toPlace == 0)
                        break;
                    if (chip.placementGroup >= 0)
                        continue;
                    chip = ChipUse{g, b.index};
                    --toPlace;
                    ++s.reservedChips;
                }
                if (toPlace > 0)
                    m_s.warnings << QStringLiteral("slice %1 worker %2: bundles reserve more TPU than the host's %3 chips")
                                        .arg(s.name).arg(h.workerId).arg(h.chips.size());
            }
            QStringList slices;
            slices.reserve(occupied.size());
            for (int i : occupied)
                slices << m_s.slices[i].name;
            std::sort(slices.begin(), slices.end(), naturalLess);
            pg.slices = slices;
            pg.kind = anyHead ? PlacementGroup::Kind::SliceHead
                    : allSelectSlices ? PlacementGroup::Kind::Slice : PlacementGroup::Kind::Other;
        }
    }

    void attachWorkerGroups()
    {
        QHash<QString, int> groupByName;
        for (int i = 0; i < m_s.workerGroups.size(); ++i)
            groupByName.insert(m_s.workerGroups[i].qualifiedName(), i);
        for (const Slice &s : std::as_const(m_s.slices)) {
            const int g = groupByName.value(s.workerGroup, -1);
            if (g >= 0)
                m_s.workerGroups[g].slices << s.name; // slices are already in natural order
        }
    }

public:
    QHash<QString, int> m_kubeNodeByName;

private:
    ClusterSnapshot &m_s;
    bool m_hasRayNodes;
    QHash<QString, int> m_nodeById;
    QMultiHash<QString, int> m_nodesByIp;
    QSet<QString> m_rayClusters;        // "ns/cluster" of the RayClusters the Ray bodies describe
    QHash<QString, QString> m_nameOwner; // slice name -> "ns/cluster" whose pods use it
    QList<int> m_sliceOfNode; // Ray node index -> index of its slice, or -1

    // Thousands of slices share a handful of pod types, accelerator names and topologies: each
    // tpu:: lookup (they lower-case, split and format strings) runs once per distinct text.
    template<typename Cache, typename Key, typename Compute>
    static typename Cache::mapped_type memo(Cache &cache, const Key &key, Compute &&compute)
    {
        auto it = cache.constFind(key);
        if (it == cache.constEnd())
            it = cache.insert(key, compute());
        return it.value();
    }
    QHash<QString, const tpu::Generation *> m_generationByPodType;
    QHash<QString, const tpu::Generation *> m_generationByAccelerator;
    QHash<QString, std::optional<tpu::Topology>> m_topologyByText;
    QHash<QPair<const tpu::Generation *, int>, QString> m_podTypeByShape;
    QHash<QString, SliceParts> m_parts;
};

} // namespace

void reserveParsePadding(QByteArray &body)
{
    if (body.capacity() - body.size() < qsizetype(simdjson::SIMDJSON_PADDING))
        body.reserve(body.size() + qsizetype(simdjson::SIMDJSON_PADDING));
}

SnapshotPtr buildSnapshot(const Capture &capture)
{
    auto snap = std::make_shared<ClusterSnapshot>();
    ClusterSnapshot &s = *snap;
    s.capturedAt = capture.capturedAt;
    s.kubeContext = capture.kubeContext;

    parseBody(capture.rayVersion, "ray.version", s.errors, [&](od::value root) -> QString {
        forEachMember(root, [&](std::string_view k, od::value v) {
            if (k == "ray_version") s.rayVersion = toString(v);
        });
        return {};
    });

    bool rayNodesRead = false;
    {
        QList<RayNode> nodes;
        QStringList warnings;
        rayNodesRead = parseBody(capture.rayNodes, "ray.nodes", s.errors, [&](od::value root) {
                return readStateList(root, "ray.nodes", warnings, [&](od::object obj) {
                    RayNode n;
                    readRayNode(obj, n);
                    if (n.id.isEmpty()) {
                        warnings << QStringLiteral("ray.nodes: skipped a node without node_id");
                        return;
                    }
                    nodes.append(std::move(n));
                });
            });
        if (rayNodesRead) {
            s.rayNodes = std::move(nodes);
            s.warnings += warnings;
            s.hasRay = true;
        }
    }
    {
        QList<PlacementGroup> groups;
        QStringList warnings;
        if (parseBody(capture.rayPlacementGroups, "ray.placement_groups", s.errors, [&](od::value root) {
                return readStateList(root, "ray.placement_groups", warnings, [&](od::object obj) {
                    RawPlacementGroup raw;
                    readPlacementGroup(obj, raw);
                    if (!raw.removed && !raw.group.id.isEmpty())
                        groups.append(std::move(raw.group));
                });
            })) {
            s.placementGroups = std::move(groups);
            s.warnings += warnings;
            s.hasRay = true;
        }
    }
    {
        QList<Job> jobs;
        if (parseBody(capture.rayJobs, "ray.jobs", s.errors, [&](od::value root) -> QString {
                if (typeOf(root) != od::json_type::array)
                    return QStringLiteral("expected an array of jobs, got %1").arg(describeType(root));
                forEachElement(root, [&](od::value v) {
                    if (typeOf(v) != od::json_type::object)
                        return;
                    Job j;
                    readJob(take(v.get_object()), j);
                    jobs.append(std::move(j));
                });
                return {};
            })) {
            s.jobs = std::move(jobs);
            s.hasRay = true;
        }
    }
    parseBody(capture.rayClusterStatus, "ray.cluster_status", s.errors, [&](od::value root) -> QString {
        forEachMember(root, [&](std::string_view k, od::value v) {
            if (k == "data")
                forEachMember(v, [&](std::string_view k2, od::value text) {
                    if (k2 == "clusterStatus") s.clusterStatusText = toString(text);
                });
        });
        return {};
    });

    {
        QList<RawCluster> clusters;
        QStringList warnings;
        if (parseBody(capture.kubeRayClusters, "kubernetes.rayclusters", s.errors, [&](od::value root) {
                return readKubeList(root, "kubernetes.rayclusters", warnings, [&](od::value item) {
                    RawCluster rc;
                    readRayCluster(item, rc);
                    clusters.append(std::move(rc));
                });
            })) {
            for (RawCluster &rc : clusters) {
                for (WorkerGroup &g : rc.groups) {
                    g.ns = rc.info.ns;
                    g.cluster = rc.info.name;
                    g.autoscaling = rc.info.autoscaling;
                    s.workerGroups.append(std::move(g));
                }
                s.rayClusters.append(rc.info);
            }
            s.warnings += warnings;
            s.hasKubernetes = true;
        }
    }
    QList<QString> podReplicaKeys;
    {
        QList<Pod> pods;
        QStringList warnings;
        if (parseBody(capture.kubePods, "kubernetes.pods", s.errors, [&](od::value root) {
                return readKubeList(root, "kubernetes.pods", warnings, [&](od::value item) {
                    Pod p;
                    QString replicaName, legacyIndex, replicaIndex;
                    readPod(item, p, replicaName, legacyIndex, replicaIndex);
                    // The key that groups pods of one replica, in FACTS.md 4's order.
                    QString key = !replicaName.isEmpty() ? replicaName
                                : !legacyIndex.isEmpty() ? QStringLiteral("replicaIndex=") + legacyIndex
                                : !replicaIndex.isEmpty() ? QStringLiteral("index=") + replicaIndex
                                : QStringLiteral("tpu=") + p.tpuName;
                    // Named fallback, used only when no pod of the replica carries TPU_NAME. The
                    // legacy webhook's replicaIndex label already holds "<group>-<index>" (TPU_NAME).
                    p.replicaKey = !replicaName.isEmpty() ? replicaName
                                 : !replicaIndex.isEmpty() ? p.group + u'-' + replicaIndex
                                 : legacyIndex;
                    podReplicaKeys.append(key);
                    pods.append(std::move(p));
                });
            })) {
            s.pods = std::move(pods);
            s.warnings += warnings;
            s.hasKubernetes = true;
        } else {
            podReplicaKeys.clear();
        }
    }
    Joiner joiner(s, rayNodesRead);
    {
        QList<KubeNode> nodes;
        QStringList warnings;
        if (parseBody(capture.kubeNodes, "kubernetes.nodes", s.errors, [&](od::value root) {
                return readKubeList(root, "kubernetes.nodes", warnings, [&](od::value item) {
                    KubeNode n;
                    readKubeNode(item, n);
                    nodes.append(std::move(n));
                });
            })) {
            s.kubeNodes = std::move(nodes);
            s.warnings += warnings;
            s.hasKubernetes = true;
            for (int i = 0; i < s.kubeNodes.size(); ++i)
                joiner.m_kubeNodeByName.insert(s.kubeNodes[i].name, i);
        }
    }

    joiner.run(podReplicaKeys);
    return snap;
}

} // namespace slicescope
