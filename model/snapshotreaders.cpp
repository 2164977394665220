// SPDX-License-Identifier: GPL-3.0-or-later
// The snapshot readers: each Ray and Kubernetes body's items into raw records (RayNode,
// RawPlacementGroup, Job, RawCluster, Pod, KubeNode), tolerant of odd types (model/jsonread_p.h),
// every value checked against model/inputlimits.h before it is taken.

#include "snapshotread_p.h"

#include <QVarLengthArray>

#include <algorithm>

namespace slicescope::snapshotread {

simdjson::ondemand::parser &sharedParser()
{
    thread_local simdjson::ondemand::parser parser;
    return parser;
}

// "line 63, column 12 (byte 2345 of 5000)": a place in a body, for error texts.
QString placeInBody(const QByteArray &body, qint64 offset)
{
    const JsonPlace place = jsonPlace(body.constData(), body.size(), offset);
    return QStringLiteral("line %1, column %2 (byte %3 of %4)").arg(place.line).arg(place.column).arg(offset).arg(body.size());
}

// The words for a body the parser refused as a whole, with the place of the first bad byte when
// there is one to find. Never the parser's own advice for a body that is not JSON at all.
QString notJsonText(const QByteArray &body, simdjson::error_code err)
{
    if (const QString looks = describeNonJson(body.constData(), body.size()); !looks.isEmpty()) return QStringLiteral("not JSON (%1)").arg(looks);
    const JsonFault fault = locateJsonFault(body.constData(), body.size());
    if (fault.offset >= 0) return QStringLiteral("not JSON: %1 at %2").arg(QLatin1String(fault.what), placeInBody(body, fault.offset));
    return QStringLiteral("not JSON (%1)").arg(QLatin1String(simdjson::error_message(err)));
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

// ---- Ray ------------------------------------------------------------------------------------

namespace {

QString echo(od::value v);
bool readTpuAmount(od::value v, double *out, QString *why, const char *what);
int readWorkerId(od::value v, QString *why, const char *what);

// A time in milliseconds since the epoch, within 0..year 9999 (so differences never overflow).
qint64 toTimeMs(od::value v) { return std::clamp<qint64>(toInt(v), 0, qint64(253402300799999)); }

// A CPU amount: finite and not negative, else 0.
double toCpu(od::value v)
{
    double d = 0;
    return toFiniteNumber(v, &d) && d > 0 ? std::min(d, 1e9) : 0;
}

void readRayResources(od::value v, RayNode &n)
{
    forEachMember(v, [&](std::string_view r, od::value amount) {
        if (r == "TPU") {
            QString why;
            if (!readTpuAmount(amount, &n.tpu, &why, "TPU")) addUnrecognised(n.unrecognised, why);
        } else if (r == "CPU") {
            n.cpu = toCpu(amount);
        } else if (r.size() > 9 && r.substr(0, 4) == "TPU-" && r.substr(r.size() - 5) == "-head") {
            n.hasSliceHeadResource = toCpu(amount) > 0;
        }
    });
}

void readRayLabels(od::value v, RayNode &n)
{
    forEachMember(v, [&](std::string_view l, od::value value) {
        if (l.size() < 7 || l.substr(0, 7) != "ray.io/") return;
        if (l == kSliceNameLabel) n.sliceName = toString(value);
        else if (l == kWorkerIdLabel) {
            QString why;
            n.workerId = readWorkerId(value, &why, "worker id");
            if (!why.isEmpty()) addUnrecognised(n.unrecognised, why);
        } else if (l == kPodTypeLabel) n.podType = toString(value).left(64);
        else if (l == kTopologyLabel) n.topology = toString(value).left(64);
        else if (l == kAcceleratorLabel) n.acceleratorType = toString(value).left(64);
        else if (l == kNodeGroupLabel) n.nodeGroup = toString(value);
        else if (l.size() > kSubsliceLabelPrefix.size() && l.substr(0, kSubsliceLabelPrefix.size()) == kSubsliceLabelPrefix && n.subslices.size() < 32)
            n.subslices << qstr(l.substr(kSubsliceLabelPrefix.size(), 64)) + u'=' + toString(value).left(256);
    });
}

// A short, printable echo of a value for a warning (never the whole of a 100 KB value).
QString echo(od::value v)
{
    QString text = typeOf(v) == od::json_type::string ? toString(v) : qstr(v.raw_json_token()).trimmed();
    if (text.size() > 40) text = text.left(40) + QStringLiteral("...");
    for (QChar &c : text)
        if (c.unicode() < 0x20 || c.unicode() == 0x7f) c = u'?';
    return text;
}

// A TPU amount (Ray's TPU resource, a google.com/tpu quantity) within 0..kMaxTpuUnitsPerHost;
// false (and `why` says so) for anything else: negative, NaN, infinite, absurd, not a number.
bool readTpuAmount(od::value v, double *out, QString *why, const char *what)
{
    double d = 0;
    if (toFiniteNumber(v, &d) && d >= 0 && d <= limits::kMaxTpuUnitsPerHost) {
        *out = d;
        return true;
    }
    *why = QStringLiteral("%1 %2 is outside 0..%3").arg(QLatin1String(what), echo(v)).arg(limits::kMaxTpuUnitsPerHost);
    return false;
}

// A worker id or host index: an integer 0..kMaxWorkerId, else -1 (and `why` says so when the
// value was there but out of range; a missing or unreadable one stays the caller's "no usable
// label").
int readWorkerId(od::value v, QString *why, const char *what)
{
    double d = 0;
    if (!toFiniteNumber(v, &d)) return -1;
    if (d < 0 || d > limits::kMaxWorkerId || d != std::floor(d)) {
        *why = QStringLiteral("%1 %2 is outside 0..%3").arg(QLatin1String(what), echo(v)).arg(limits::kMaxWorkerId);
        return -1;
    }
    return int(d);
}

} // namespace

void readRayNode(od::object obj, RayNode &n, QStringList &typeProblems)
{
    auto expect = [&](std::string_view key, od::value &v, od::json_type type, const char *expected) {
        if (typeOf(v) == type || typeOf(v) == od::json_type::null) return true;
        typeProblems << QStringLiteral("\"%1\" is %2, expected %3").arg(qstr(key), describeType(v), QLatin1String(expected));
        return false;
    };
    for (auto member : obj) {
        od::field f = take(std::move(member));
        const std::string_view key = take(f.unescaped_key());
        od::value v = f.value();
        if (key == "node_id") {
            // A node id is hex text; a number or an object there is no id (the node is skipped, named).
            if (typeOf(v) == od::json_type::string) n.id = toString(v);
            else typeProblems << QStringLiteral("\"node_id\" is %1 (%2), expected a string").arg(describeType(v), echo(v));
        } else if (key == "resources_total" || key == "labels") {
            if (!expect(key, v, od::json_type::object, "an object")) continue;
            if (key == "resources_total") readRayResources(v, n);
            else readRayLabels(v, n);
        } else if (key == "node_ip") n.ip = toString(v);
        else if (key == "node_ip") n.ip = toString(v);
        else if (key == "node_name") n.name = toString(v);
        else if (key == "is_head_node") n.isHead = toBool(v);
        else if (key == "state") {
            std::string_view s;
            n.alive = v.get_string().get(s) == simdjson::SUCCESS && s == "ALIVE";
        } else if (key == "state_message") n.stateMessage = toString(v);
        else if (key == "start_time_ms") n.startTimeMs = toTimeMs(v);
        else if (key == "end_time_ms") n.endTimeMs = toTimeMs(v);
    }
}

namespace {

void readBundle(od::object obj, Bundle &b, QString &unrecognised)
{
    for (auto member : obj) {
        od::field f = take(std::move(member));
        const std::string_view key = take(f.unescaped_key());
        od::value v = f.value();
        if (key == "bundle_id") {
            forEachMember(v, [&](std::string_view k, od::value x) {
                if (k == "bundle_index") b.index = int(std::clamp<qint64>(toInt(x, b.index), 0, limits::kMaxNestedListItems));
            });
        } else if (key == "node_id") {
            b.nodeId = toString(v);
        } else if (key == "unit_resources") {
            forEachMember(v, [&](std::string_view r, od::value amount) {
                if (r == "TPU") {
                    double tpu = 0;
                    QString why;
                    if (readTpuAmount(amount, &tpu, &why, "TPU")) b.tpu = int(tpu + 0.5);
                    else unrecognised = why;
                } else if (r == "CPU") b.cpu = toCpu(amount);
                else if (r.size() > 9 && r.substr(0, 4) == "TPU-" && r.substr(r.size() - 5) == "-head") b.headResource = qstr(r);
            });
        } else if (key == "label_selector") {
            forEachMember(v, [&](std::string_view l, od::value sel) {
                if (l == kSliceNameLabel) b.selectorSlice = toString(sel);
            });
        }
    }
}

} // namespace

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
        else if (key == "state") {
            g.state = toString(v);
            raw.removed = g.state == QLatin1String("REMOVED");
        } else if (key == "is_detached") g.detached = toBool(v);
        else if (key == "stats") {
            forEachMember(v, [&](std::string_view k, od::value x) {
                if (k == "scheduling_state") g.schedulingState = toString(x);
            });
        } else if (key == "bundles") {
            forEachElement(v, [&](od::value element) {
                if (typeOf(element) != od::json_type::object) return;
                Bundle b;
                b.index = int(g.bundles.size());
                QString why;
                readBundle(take(element.get_object()), b, why);
                if (!why.isEmpty()) raw.problems << QStringLiteral("bundle %1: %2").arg(b.index).arg(why);
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
        else if (key == "start_time") j.startTimeMs = toTimeMs(v);
        else if (key == "end_time") j.endTimeMs = toTimeMs(v);
    }
}

// ---- Kubernetes -----------------------------------------------------------------------------

namespace {

// "4", "4.0", 4: a google.com/tpu quantity. Kubernetes quantities for chips are plain integers.
// 0..kMaxTpuUnitsPerHost; -1 (and `why` says so) for anything else.
int readQuantity(od::value v, QString *why = nullptr)
{
    double d = 0;
    QString problem;
    if (readTpuAmount(v, &d, &problem, "google.com/tpu")) return int(d + 0.5);
    if (why) *why = problem;
    return -1;
}

// containers[].resources: the pod's TPU chips, summed over its containers as the GKE TPU webhook
// counts them (docs/facts.md 4.5); per container requests first, limits as fallback (they must match).
int readContainersTpu(od::value containers, QString *tpuName = nullptr, int *tpuWorkerId = nullptr, QStringList *megascale = nullptr,
                      QString *unrecognised = nullptr)
{
    qint64 total = 0;
    bool outOfRange = false;
    forEachElement(containers, [&](od::value c) {
        int requests = 0, limitsTpu = 0;
        forEachMember(c, [&](std::string_view k, od::value v) {
            if (k == "resources") {
                forEachMember(v, [&](std::string_view kind, od::value list) {
                    forEachMember(list, [&](std::string_view r, od::value q) {
                        if (r != kTpuResource) return;
                        QString why;
                        const int amount = readQuantity(q, &why);
                        if (amount < 0) {
                            outOfRange = true;
                            if (unrecognised) addUnrecognised(*unrecognised, why);
                        }
                        (kind == "requests" ? requests : limitsTpu) = std::max(0, amount);
                    });
                });
            } else if (k == "env" && (tpuName || tpuWorkerId || megascale)) {
                forEachElement(v, [&](od::value e) {
                    // Views into the parser's string buffer stay valid for this document; convert
                    // only the two variables we need (TPU_WORKER_HOSTNAMES can be long).
                    std::string_view name, value;
                    forEachMember(e, [&](std::string_view ek, od::value ev) {
                        if (ek == "name" || ek == "value") {
                            std::string_view text;
                            if (typeOf(ev) == od::json_type::string && ev.get_string().get(text) == simdjson::SUCCESS) (ek == "name" ? name : value) = text;
                        }
                    });
                    if (tpuName && name == "TPU_NAME") *tpuName = boundedQstr(value.substr(0, 253)); // a DNS-1123 name at most
                    else if (megascale && name.size() > 10 && name.substr(0, 10) == "MEGASCALE_" && megascale->size() < 16)
                        *megascale << qstr(name) + u'=' + qstr(value.substr(0, 256));
                    else if (tpuWorkerId && name == "TPU_WORKER_ID") {
                        int id = 0;
                        const auto res = std::from_chars(value.data(), value.data() + value.size(), id);
                        if (res.ec == std::errc() && res.ptr == value.data() + value.size() && id >= 0 && id <= limits::kMaxWorkerId) {
                            *tpuWorkerId = id;
                        } else if (!value.empty() && unrecognised) {
                            addUnrecognised(
                                *unrecognised,
                                QStringLiteral("TPU_WORKER_ID %1 is outside 0..%2").arg(boundedQstr(value.substr(0, 40))).arg(limits::kMaxWorkerId));
                        }
                    }
                });
            }
        });
        total += std::max(0, requests ? requests : limitsTpu);
    });
    // Summed over containers the total stays a host's: more is no machine there is.
    if (total > limits::kMaxTpuUnitsPerHost) {
        if (unrecognised && !outOfRange)
            addUnrecognised(*unrecognised,
                            QStringLiteral("google.com/tpu summed over the containers is %1, outside 0..%2").arg(total).arg(limits::kMaxTpuUnitsPerHost));
        return 0;
    }
    return int(total);
}

void readNodeSelector(od::value v, QString &accelerator, QString &topology)
{
    forEachMember(v, [&](std::string_view k, od::value x) {
        if (k == kGkeAccelerator) accelerator = toString(x);
        else if (k == kGkeTopology) topology = toString(x);
    });
}

} // namespace

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
                            // int32 in KubeRay's CRD; kept within it so scale arithmetic cannot overflow.
                            else if (sk == "replicas") {
                                g.replicas = saturatedInt(std::max<qint64>(0, toInt(sv)));
                                sawReplicas = true;
                            } else if (sk == "minReplicas") {
                                g.minReplicas = saturatedInt(std::max<qint64>(0, toInt(sv)));
                                sawMin = true;
                            } else if (sk == "maxReplicas") {
                                g.maxReplicas = saturatedInt(std::max<qint64>(0, toInt(sv)));
                                sawMax = true;
                            } else if (sk == "numOfHosts") g.numOfHosts = int(std::clamp<qint64>(toInt(sv, 1), 1, limits::kMaxHostsPerSlice));
                            else if (sk == "suspend") g.suspended = toBool(sv);
                            else if (sk == "scaleStrategy") {
                                forEachMember(sv, [&](std::string_view ssk, od::value list) {
                                    if (ssk == "workersToDelete") forEachElement(list, [&](od::value name) { g.workersToDelete << toString(name); });
                                });
                            } else if (sk == "template") {
                                forEachMember(sv, [&](std::string_view tk, od::value podSpec) {
                                    if (tk != "spec") return;
                                    forEachMember(podSpec, [&](std::string_view pk, od::value pv) {
                                        if (pk == "nodeSelector") readNodeSelector(pv, g.accelerator, g.topology);
                                        else if (pk == "containers") g.chipsPerHost = readContainersTpu(pv); // out of range: 0, unknown
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
                else if (k == "creationTimestamp") p.created = toString(x);
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
                            const QString text = toString(lv);
                            const qint64 h = text.toLongLong(&ok);
                            if (ok && h >= 0 && h <= limits::kMaxWorkerId) p.hostIndex = int(h);
                            else if (ok)
                                addUnrecognised(p.unrecognised,
                                                QStringLiteral("ray.io/replica-host-index %1 is outside 0..%2").arg(text.left(40)).arg(limits::kMaxWorkerId));
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
                    p.tpuChips = readContainersTpu(x, &p.tpuName, &envWorkerId, &p.megascale, &p.unrecognised);
                    if (p.hostIndex < 0) p.hostIndex = envWorkerId;
                }
            });
        } else if (key == "status") {
            forEachMember(v, [&](std::string_view k, od::value x) {
                if (k == "phase") p.phase = toString(x);
                else if (k == "reason") p.reason = toString(x);
                else if (k == "message") p.message = toString(x).left(kMaxPodMessage);
                else if (k == "podIP") p.podIp = toString(x);
                else if (k == "conditions") {
                    forEachElement(x, [&](od::value c) {
                        QString type, status;
                        forEachMember(c, [&](std::string_view ck, od::value cv) {
                            if (ck == "type") type = toString(cv);
                            else if (ck == "status") status = toString(cv);
                        });
                        if (type == QLatin1String("Ready")) p.ready = status == QLatin1String("True");
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
                        if (r == kTpuResource) n.tpuCapacity = std::max(0, readQuantity(q));
                    });
                } else if (k == "conditions") {
                    forEachElement(x, [&](od::value c) {
                        QString type, status;
                        forEachMember(c, [&](std::string_view ck, od::value cv) {
                            if (ck == "type") type = toString(cv);
                            else if (ck == "status") status = toString(cv);
                        });
                        if (type == QLatin1String("Ready")) n.ready = status == QLatin1String("True");
                    });
                }
            });
        }
    });
}

} // namespace slicescope::snapshotread
