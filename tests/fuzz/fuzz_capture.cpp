// SPDX-License-Identifier: GPL-3.0-or-later
// Capture files and recordings, all the way to what the verbs print: parseCapture (or
// parseRecording with FUZZ_RECORDING), buildSnapshot, inspectJson and the text `inspect` prints,
// the fleet summary, why placement groups wait, and a plan for the shape of each slice found. A
// capture that parses must also survive serializeCapture -> parseCapture with the same meaning
// (what `record` and the relay rely on).

#include "fuzz_common.h"

#include "capturefile.h"
#include "fleetstats.h"
#include "inspectjson.h"
#include "planner.h"
#include "snapshot.h"
#include "whypending.h"

#include <QJsonDocument>

#include <utility>

using namespace slicescope;

namespace {

// A body as serializeCapture writes it: trimmed, CR and LF (whitespace outside strings, where
// the reader accepts them) as spaces.
QByteArray written(QByteArray body)
{
    body = body.trimmed();
    body.replace('\n', ' ').replace('\r', ' ');
    return body;
}

// The first member the two captures disagree on once written, or null.
const char *differingMember(const Capture &a, const Capture &b)
{
    if (a.capturedAt != b.capturedAt)
        return "capturedAt";
    if (a.kubeContext != b.kubeContext)
        return "kubernetes.context";
    const std::pair<const char *, const QByteArray Capture::*> bodies[] = {
        {"ray.version", &Capture::rayVersion}, {"ray.nodes", &Capture::rayNodes}, {"ray.placement_groups", &Capture::rayPlacementGroups}, {"ray.jobs", &Capture::rayJobs}, {"ray.cluster_status", &Capture::rayClusterStatus}, {"kubernetes.rayclusters", &Capture::kubeRayClusters}, {"kubernetes.pods", &Capture::kubePods}, {"kubernetes.nodes", &Capture::kubeNodes}};
    for (const auto &[name, member] : bodies) {
        if (written(a.*member) != written(b.*member))
            return name;
    }
    return nullptr;
}

void exercise(const Capture &capture)
{
    const SnapshotPtr snapshot = buildSnapshot(capture);
    FUZZ_CHECK(snapshot);
    const QByteArray json = QJsonDocument(inspectJson(*snapshot)).toJson(QJsonDocument::Compact);
    FUZZ_CHECK(!json.isEmpty());
    // What `inspect` prints without --json, the fleet summary and the pending explanations.
    for (const Slice &slice : snapshot->slices)
        (void)QStringLiteral("%1 %2 %3 %4").arg(slice.topology.toString()).arg(slice.hostCount()).arg(toText(slice.status())).arg(slice.chips());
    (void)fleetStats(*snapshot);
    int explained = 0;
    for (const PlacementGroup &group : snapshot->placementGroups) {
        (void)explainPendingGroup(*snapshot, group).toText();
        if (++explained == 3)
            break;
    }
    int planned = 0;
    for (const Slice &slice : snapshot->slices) {
        if (!slice.generation || slice.chips() <= 0)
            continue;
        PlanRequest request;
        request.accelerator = slice.generation->name;
        request.topology = slice.topology.toString();
        const PlanResult plan = planSlicePlacement(*snapshot, request);
        (void)QJsonDocument(planJson(plan)).toJson(QJsonDocument::Compact);
        if (++planned == 3)
            break;
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz::ensureApp();
    const QByteArray bytes = fuzz::bytesOf(data, size);
#ifdef FUZZ_RECORDING
    const CaptureReadResult read = parseRecording(bytes, QStringLiteral("fuzz.jsonl"));
#else
    const CaptureReadResult read = parseCapture(bytes, QStringLiteral("fuzz.slicescope.json"));
#endif
    if (!read.ok()) {
        FUZZ_CHECK(read.error.startsWith(QLatin1String("fuzz.")));
        return 0;
    }
    int built = 0;
    for (const Capture &capture : read.captures) {
        exercise(capture);
        const CaptureReadResult again = parseCapture(serializeCapture(capture), QStringLiteral("again"));
        if (!again.ok())
            std::fprintf(stderr, "the capture written back does not read: %s\n", qPrintable(again.error));
        FUZZ_CHECK(again.ok() && again.captures.size() == 1);
        if (const char *member = differingMember(capture, again.captures.first()))
            std::fprintf(stderr, "written back and read again, %s differs\n", member);
        FUZZ_CHECK(!differingMember(capture, again.captures.first()));
        if (++built == 4)
            break; // a recording of many captures: the first few say as much
    }
    return 0;
}
