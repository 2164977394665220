// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Names that go into request paths. Kubernetes names follow DNS-1123 (a namespace or service is a
// label, an object name a subdomain), so anything else is refused with the rule it breaks, never
// sent: `-n ..` would otherwise turn /api/v1/namespaces/../pods (a namespaced LIST) into
// /api/v1/pods (a cluster-wide one). What does go into a path is escaped as one segment.

#include <QString>

namespace slicescope {

inline constexpr qsizetype kMaxDns1123LabelChars = 63;
inline constexpr qsizetype kMaxDns1123SubdomainChars = 253;

// Empty when `value` is a DNS-1123 label (namespaces, service names), else the rule it breaks:
// "must be a DNS-1123 label: 1 to 63 lowercase letters, digits or '-', starting and ending with a
// letter or digit".
QString dns1123LabelProblem(const QString &value);
// The same for a DNS-1123 subdomain (object names: RayClusters, pods): dot-separated labels, at
// most 253 characters.
QString dns1123SubdomainProblem(const QString &value);

// The same for a label value (a worker group's name is the ray.io/group label): at most 63
// letters, digits, '-', '_' or '.', starting and ending with a letter or digit.
QString labelValueProblem(const QString &value);

// `value` percent-encoded as one path segment: '/', '?', '#', '%' and every other reserved
// character escaped. "." and ".." cannot be escaped (QUrl decodes %2E back to '.'): names are
// validated first, and the clients refuse a path holding one (netguard.h, pathSegmentProblem).
QString pathSegment(const QString &value);

} // namespace slicescope
