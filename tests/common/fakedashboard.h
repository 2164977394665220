// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A Ray dashboard played by FakeHttpServer (fakehttpserver.h) from a capture's Ray bodies: what
// RayClient asks (the auth mode, the version, the node and placement group lists, jobs, the
// cluster status) answered with the bodies a test built (tests/model/capturefixture.h), so a verb
// run against it sees exactly that cluster. The node summary is absent (404), as on an old Ray.

#include "capture.h"
#include "fakehttpserver.h"

namespace slicescope::testing {

inline HttpResponse dashboardFor(const Capture &c, const HttpRequest &r)
{
    auto or_ = [](const QByteArray &body, const QByteArray &fallback) {
        return body.isEmpty() ? fallback : body;
    };
    const QByteArray emptyList = R"({"result": true, "msg": "", "data": {"result": {"total": 0, "num_after_truncation": 0, "num_filtered": 0, "result": []}}})";
    if (r.path == "/api/authentication_mode")
        return {200, R"({"authentication_mode": "disabled"})"};
    if (r.path == "/api/version")
        return {200, or_(c.rayVersion, R"({"version": "5", "ray_version": "2.60.0", "ray_commit": "x", "session_name": "s"})")};
    if (r.path.startsWith("/api/v0/nodes"))
        return {200, or_(c.rayNodes, emptyList)};
    if (r.path.startsWith("/api/v0/placement_groups"))
        return {200, or_(c.rayPlacementGroups, emptyList)};
    if (r.path == "/api/jobs/")
        return {200, or_(c.rayJobs, "[]")};
    if (r.path.startsWith("/api/cluster_status"))
        return {200, or_(c.rayClusterStatus, R"({"result": true, "msg": "", "data": {"clusterStatus": "ok"}})")};
    return {404, "Not Found"};
}

} // namespace slicescope::testing
