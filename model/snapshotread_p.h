// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The snapshot readers' interface (model/snapshotreaders.cpp): how a captured body is parsed
// (parseBody, one pass, all or nothing) and walked (the Ray state API envelope, a Kubernetes
// list), and the readers that turn one item of a body into a raw record. buildSnapshot()
// (snapshotbuilder.cpp) calls them and the joiner (snapshotjoin.cpp) shares the label names.
// The templates stay here, in the caller's translation unit, so they inline as they always did.

#include "inputlimits.h"
#include "jsonlocate.h"
#include "jsonread_p.h"
#include "snapshot.h"

#include <QString>
#include <QStringList>

#include <limits>
#include <string_view>

namespace slicescope::snapshotread {

using namespace json;

inline constexpr std::string_view kSliceNameLabel = "ray.io/tpu-slice-name";
inline constexpr std::string_view kWorkerIdLabel = "ray.io/tpu-worker-id";
inline constexpr std::string_view kPodTypeLabel = "ray.io/tpu-pod-type";
inline constexpr std::string_view kTopologyLabel = "ray.io/tpu-topology";
inline constexpr std::string_view kAcceleratorLabel = "ray.io/accelerator-type";
inline constexpr std::string_view kNodeGroupLabel = "ray.io/node-group";
inline constexpr std::string_view kSubsliceLabelPrefix = "ray.io/tpu-subslice-"; // + shape, e.g. "2x4"
inline constexpr std::string_view kGkeAccelerator = "cloud.google.com/gke-tpu-accelerator";
inline constexpr std::string_view kGkeTopology = "cloud.google.com/gke-tpu-topology";
inline constexpr std::string_view kGkeNodePool = "cloud.google.com/gke-nodepool";
inline constexpr std::string_view kTpuResource = "google.com/tpu";
inline constexpr qsizetype kMaxPodMessage = 300; // a pod's status.message, as shown beside its host

simdjson::ondemand::parser &sharedParser();
// "line 63, column 12 (byte 2345 of 5000)": a place in a body, for error texts.
QString placeInBody(const QByteArray &body, qint64 offset);
// The words for a body the parser refused as a whole, with the place of the first bad byte when
// there is one to find. Never the parser's own advice for a body that is not JSON at all.
QString notJsonText(const QByteArray &body, simdjson::error_code err);
// "an array", "a string", "null"...: a value's JSON type in words.
QString describeType(od::value &v);

// Appends "why" to a node's or pod's reasons for being unrecognised.
inline void addUnrecognised(QString &to, const QString &why)
{
    if (!to.isEmpty()) to += QStringLiteral("; ");
    to += why;
}

// Runs `parse` over one body; on a structural error records "<what>: <problem> at line L, column
// C (byte N of M)" and reports failure so the caller drops everything it read from that body.
// What the readers cut to stay within model/inputlimits.h is named in `warnings`.
template<typename F>
bool parseBody(const QByteArray &body, const char *what, QStringList &errors, QStringList &warnings, F &&parse)
{
    if (body.isEmpty()) return false;
    PaddedBody padded(body);
    od::document doc;
    auto &parser = sharedParser();
    if (auto err = parser.iterate(padded.view()).get(doc); err != simdjson::SUCCESS) {
        errors << QStringLiteral("%1: %2").arg(QLatin1String(what), notJsonText(body, err));
        return false;
    }
    CutLog cuts;
    CutLogScope scope(cuts, padded.view().data(), body.size());
    try {
        od::value root;
        if (auto err = doc.get_value().get(root); err != simdjson::SUCCESS) throw simdjson::simdjson_error(err);
        QString problem = parse(root);
        if (!problem.isEmpty()) {
            errors << QStringLiteral("%1: %2").arg(QLatin1String(what), problem);
            return false;
        }
    } catch (const simdjson::simdjson_error &e) {
        if (describeNonJson(body.constData(), body.size()).size() || e.error() == simdjson::UTF8_ERROR || e.error() == simdjson::UNESCAPED_CHARS) {
            errors << QStringLiteral("%1: %2").arg(QLatin1String(what), notJsonText(body, e.error()));
            return false;
        }
        const char *at = nullptr;
        qint64 offset = -1;
        const char *base = padded.view().data();
        if (doc.current_location().get(at) == simdjson::SUCCESS && at >= base && at <= base + body.size()) offset = at - base;
        errors << (offset >= 0 ? QStringLiteral("%1: invalid JSON at %3 (%2)").arg(QLatin1String(what), QLatin1String(e.what()), placeInBody(body, offset))
                               : QStringLiteral("%1: invalid JSON (%2; the body may be truncated)").arg(QLatin1String(what), QLatin1String(e.what())));
        return false;
    }
    if (cuts.strings)
        warnings << QStringLiteral("%1: %2 string value%3 longer than %4 bytes cut (the first at %5)")
                        .arg(QLatin1String(what))
                        .arg(cuts.strings)
                        .arg(cuts.strings > 1 ? QStringLiteral("s") : QString())
                        .arg(limits::kMaxStringLength)
                        .arg(placeInBody(body, cuts.firstString));
    if (cuts.members)
        warnings << QStringLiteral("%1: %2 object%3 with more than %4 members: only the first %4 read (the first at %5)")
                        .arg(QLatin1String(what))
                        .arg(cuts.members)
                        .arg(cuts.members > 1 ? QStringLiteral("s") : QString())
                        .arg(limits::kMaxMembersPerObject)
                        .arg(placeInBody(body, cuts.firstMembers));
    if (cuts.elements)
        warnings << QStringLiteral("%1: %2 list%3 with more than %4 elements: only the first %4 read (the first at %5)")
                        .arg(QLatin1String(what))
                        .arg(cuts.elements)
                        .arg(cuts.elements > 1 ? QStringLiteral("s") : QString())
                        .arg(limits::kMaxNestedListItems)
                        .arg(placeInBody(body, cuts.firstElements));
    return true;
}

// The Ray state API envelope: {"result", "msg", "data": {"result": {"total", "num_filtered", "result": [...]}}}.
// Calls `item` for every object in the list. Returns a problem sentence, or empty.
template<typename F>
QString readStateList(od::value root, const char *what, QStringList &warnings, F &&item)
{
    if (typeOf(root) != od::json_type::object) return QStringLiteral("expected the state API envelope (an object), got %1").arg(describeType(root));
    bool ok = true;
    bool sawList = false;
    QString msg;
    qint64 total = -1, numFiltered = -1, count = 0, skipped = 0, cut = 0;
    QStringList skippedWhat; // the first few entries skipped, named
    QString listProblem;
    forEachMember(root, [&](std::string_view key, od::value v) {
        if (key == "result") ok = toBool(v, true);
        else if (key == "msg") msg = toString(v);
        else if (key == "data") {
            if (typeOf(v) != od::json_type::object) {
                listProblem = QStringLiteral("\"data\" is %1, expected an object").arg(describeType(v));
                return;
            }
            forEachMember(v, [&](std::string_view k2, od::value inner) {
                if (k2 != "result") return;
                if (typeOf(inner) != od::json_type::object) {
                    listProblem = QStringLiteral("\"data.result\" is %1, expected an object").arg(describeType(inner));
                    return;
                }
                forEachMember(inner, [&](std::string_view k3, od::value list) {
                    if (k3 == "total") total = toInt(list, -1);
                    else if (k3 == "num_filtered") numFiltered = toInt(list, -1);
                    else if (k3 == "partial_failure_warning") {
                        const QString w = toString(list);
                        if (!w.isEmpty()) warnings << QStringLiteral("%1: %2").arg(QLatin1String(what), w);
                    } else if (k3 == "result") {
                        if (typeOf(list) != od::json_type::array) {
                            listProblem = QStringLiteral("\"data.result.result\" is %1, expected an array").arg(describeType(list));
                            return;
                        }
                        sawList = true;
                        qint64 index = -1;
                        const auto readEntry = [&](od::value element) {
                            ++index;
                            if (count + skipped >= limits::kMaxListItems) {
                                ++cut;
                                return;
                            }
                            if (typeOf(element) != od::json_type::object) {
                                if (skipped < 3) skippedWhat << QStringLiteral("entry %1 is %2").arg(index).arg(describeType(element));
                                ++skipped;
                                return;
                            }
                            ++count;
                            item(take(element.get_object()));
                        };
                        forEachElement(list, readEntry, std::numeric_limits<int>::max());
                    }
                });
            });
        }
    });
    if (!ok) return QStringLiteral("the server reported a failure: %1").arg(msg.isEmpty() ? QStringLiteral("(no message)") : msg);
    if (!listProblem.isEmpty()) return listProblem;
    if (!sawList) return QStringLiteral("no list at data.result.result");
    if (skipped)
        warnings << QStringLiteral("%1: skipped %2 list entries that are not objects (%3%4)")
                        .arg(QLatin1String(what))
                        .arg(skipped)
                        .arg(skippedWhat.join(QStringLiteral(", ")), skipped > skippedWhat.size() ? QStringLiteral(", ...") : QString());
    if (cut)
        warnings << QStringLiteral("%1: the list has %2 entries; only the first %3 were read (SliceScope's bound per list)")
                        .arg(QLatin1String(what))
                        .arg(count + skipped + cut)
                        .arg(limits::kMaxListItems);
    const qint64 expected = numFiltered >= 0 ? numFiltered : total;
    if (!cut && expected > count + skipped)
        warnings
            << QStringLiteral("%1: list truncated: %2 of %3 items returned (the state API limit is 10000)").arg(QLatin1String(what)).arg(count).arg(expected);
    return {};
}

// A Kubernetes list ({"kind": "...List", "items": [...]}); calls `item` for each object.
template<typename F>
QString readKubeList(od::value root, const char *what, QStringList &warnings, F &&item)
{
    if (typeOf(root) != od::json_type::object) return QStringLiteral("expected a Kubernetes list (an object), got %1").arg(describeType(root));
    bool sawItems = false;
    QString kind, status, message;
    qint64 skipped = 0, read = 0, cut = 0;
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
            if (typeOf(v) != od::json_type::array) return;
            sawItems = true;
            const auto readItem = [&](od::value element) {
                if (read + skipped >= limits::kMaxListItems) {
                    ++cut;
                    return;
                }
                if (typeOf(element) != od::json_type::object) {
                    ++skipped;
                    return;
                }
                ++read;
                item(element);
            };
            forEachElement(v, readItem, std::numeric_limits<int>::max());
        }
    });
    if (kind == QLatin1String("Status")) return QStringLiteral("the API server answered %1: %2").arg(status, message);
    if (!sawItems) return QStringLiteral("no \"items\" array");
    if (skipped) warnings << QStringLiteral("%1: skipped %2 items that are not objects").arg(QLatin1String(what)).arg(skipped);
    if (cut)
        warnings << QStringLiteral("%1: the list has %2 items; only the first %3 were read (SliceScope's bound per list)")
                        .arg(QLatin1String(what))
                        .arg(read + skipped + cut)
                        .arg(limits::kMaxListItems);
    if (!continueToken.isEmpty()) warnings << QStringLiteral("%1: list is incomplete (a continue token was left unfollowed)").arg(QLatin1String(what));
    return {};
}

// ---- Ray ------------------------------------------------------------------------------------

struct RawPlacementGroup {
    PlacementGroup group;
    bool removed = false;
    QStringList problems; // bundles whose values are out of range, named
};

// One item of each Ray body: a node of ray.nodes (what is skipped, in `typeProblems`), a group
// of ray.placement_groups, a job of ray.jobs.
void readRayNode(od::object obj, RayNode &n, QStringList &typeProblems);
void readPlacementGroup(od::object obj, RawPlacementGroup &raw);
void readJob(od::object obj, Job &j);

// ---- Kubernetes -----------------------------------------------------------------------------

struct RawCluster {
    RayClusterInfo info;
    QList<WorkerGroup> groups;
};

// One item of each Kubernetes list. A pod's replica labels come back apart: buildSnapshot()
// chooses its replica key from them.
void readRayCluster(od::value item, RawCluster &rc);
void readPod(od::value item, Pod &p, QString &replicaName, QString &legacyReplicaIndex, QString &replicaIndex);
void readKubeNode(od::value item, KubeNode &n);

} // namespace slicescope::snapshotread
