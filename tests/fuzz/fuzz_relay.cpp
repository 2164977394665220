// SPDX-License-Identifier: GPL-3.0-or-later
// The relay protocol decoder (docs/relay-protocol.md), what both ends of the WebSocket run on
// every text message: parseMessage, then for a capture the whole snapshot path, for a submit its
// placement request and the plan for it. A capture message re-encoded with captureMessage must
// decode to the same capture, and a request accepted once must be accepted again from toJson.

#include "fuzz_common.h"

#include "capturefile.h"
#include "inspectjson.h"
#include "planner.h"
#include "relayprotocol.h"
#include "snapshot.h"

#include <QJsonDocument>

using namespace slicescope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz::ensureApp();
    const relay::Message m = relay::parseMessage(fuzz::bytesOf(data, size));
    if (!m.error.isEmpty())
        return 0;
    if (m.type == relay::type::Capture) {
        const SnapshotPtr snapshot = buildSnapshot(m.capture);
        FUZZ_CHECK(snapshot);
        (void)QJsonDocument(inspectJson(*snapshot)).toJson(QJsonDocument::Compact);
        const relay::Message again = relay::parseMessage(relay::captureMessage(m.seq, m.capture));
        FUZZ_CHECK(again.error.isEmpty() && again.type == relay::type::Capture && again.seq == m.seq);
        FUZZ_CHECK(serializeCapture(again.capture) == serializeCapture(m.capture));
        return 0;
    }
    SlicePlacementRequest request;
    if (!relay::fromJson(m.object.value(QLatin1String("request")).toObject(), request).isEmpty())
        return 0;
    SlicePlacementRequest again;
    FUZZ_CHECK(relay::fromJson(relay::toJson(request), again).isEmpty());
    static const SnapshotPtr empty = buildSnapshot(Capture{});
    const PlanResult plan = planSlicePlacement(*empty, planRequestFor(request));
    (void)QJsonDocument(planJson(plan)).toJson(QJsonDocument::Compact);
    return 0;
}
