#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The relay's Kubernetes manifests (installer/kubernetes/) against the real API server of
tests/integration/kube-harness.sh (found through SLICESCOPE_KUBE_DIR, or the first argument):
applies every object server-side as the admin, into a namespace of its own, then asks the API
server with SubjectAccessReview (as the admin) whether the relay's ServiceAccount may do each verb
docs/facts.md 4.3 lists, and may NOT do anything beyond them. Removes what it applied. Exit 0 when every
answer is the expected one, 1 otherwise, 77 (skipped) without a harness outside CI."""

import json
import os
import re
import ssl
import sys
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
MANIFESTS = os.path.join(HERE, "..", "..", "installer", "kubernetes")
FILES = ["serviceaccount.yaml", "rbac.yaml", "deployment.yaml", "service.yaml"]
NS = "slicescope-relay-rbac"
OTHER_NS = "default"
SA = "slicescope-relay"

# (verb, group, resource, subresource, namespace or None for cluster scope) -> expected answer
ALLOWED = [(v, "ray.io", "rayclusters", "", NS) for v in ("get", "list", "watch", "patch")] + \
          [(v, "", r, "", NS) for r in ("pods", "events") for v in ("get", "list", "watch")] + \
          [("get", "", "services", "proxy", NS)] + \
          [(v, "", "nodes", "", None) for v in ("list", "watch")]
DENIED = [
    ("delete", "", "pods", "", NS), ("create", "", "pods", "", NS), ("patch", "", "pods", "", NS),
    ("create", "", "pods", "exec", NS), ("get", "", "pods", "log", NS),
    ("get", "", "secrets", "", NS), ("list", "", "secrets", "", NS), ("get", "", "configmaps", "", NS),
    ("delete", "ray.io", "rayclusters", "", NS), ("update", "ray.io", "rayclusters", "", NS),
    ("create", "ray.io", "rayclusters", "", NS), ("patch", "ray.io", "rayclusters", "status", NS),
    ("patch", "", "nodes", "", None), ("get", "", "nodes", "", None), ("delete", "", "nodes", "", None),
    ("get", "", "services", "", NS), ("create", "", "services", "proxy", NS),
    ("list", "", "pods", "", None), ("list", "ray.io", "rayclusters", "", None),   # all namespaces
    ("get", "ray.io", "rayclusters", "", OTHER_NS), ("patch", "ray.io", "rayclusters", "", OTHER_NS),
    ("list", "", "pods", "", OTHER_NS), ("get", "", "services", "proxy", OTHER_NS),
    ("create", "rbac.authorization.k8s.io", "rolebindings", "", NS),
    ("patch", "apps", "deployments", "", NS),
]

PATHS = {
    "Namespace": "/api/v1/namespaces/{name}",
    "ServiceAccount": "/api/v1/namespaces/{ns}/serviceaccounts/{name}",
    "Service": "/api/v1/namespaces/{ns}/services/{name}",
    "Deployment": "/apis/apps/v1/namespaces/{ns}/deployments/{name}",
    "Role": "/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles/{name}",
    "RoleBinding": "/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/rolebindings/{name}",
    "ClusterRole": "/apis/rbac.authorization.k8s.io/v1/clusterroles/{name}",
    "ClusterRoleBinding": "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/{name}",
}


def main():
    kube_dir = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("SLICESCOPE_KUBE_DIR", "")
    if not kube_dir:
        why = ("SLICESCOPE_KUBE_DIR is not set: this check needs the API server of "
               "tests/integration/kube-harness.sh (tests/run-all.sh starts it)")
        if os.environ.get("CI") == "true":
            print("FAIL: " + why)
            return 1
        print("\n*** INTEGRATION CHECK SKIPPED *** " + why + "\n")
        return 77
    read = lambda name: open(os.path.join(kube_dir, name)).read().strip()
    server = read("server-url")
    token = read("admin-token")
    context = ssl.create_default_context(cafile=os.path.join(kube_dir, "ca.crt"))

    def call(method, path, body=None, content_type="application/json"):
        request = urllib.request.Request(server + path, method=method, data=body)
        request.add_header("Authorization", "Bearer " + token)
        request.add_header("User-Agent", "slicescope-relay-rbac-check")
        if body is not None:
            request.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(request, context=context, timeout=30) as reply:
                return reply.status, json.loads(reply.read() or b"{}")
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode(errors="replace")

    def apply(kind, name, text):
        path = PATHS[kind].format(ns=NS, name=name) + "?fieldManager=slicescope-relay-rbac-check&force=true"
        status, answer = call("PATCH", path, text.encode(), "application/apply-patch+yaml")
        if status not in (200, 201):
            raise SystemExit(f"FAIL: applying {kind} {name}: HTTP {status}: {answer}")
        print(f"applied {kind} {name}")

    applied = []
    failures = 0
    try:
        apply("Namespace", NS, f"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {NS}\n")
        applied.append(("Namespace", NS))
        for file in FILES:
            text = open(os.path.join(MANIFESTS, file)).read()
            for doc in re.split(r"^---\s*$", text, flags=re.M):
                kind = re.search(r"^kind:\s*(\S+)", doc, re.M)
                name = re.search(r"^metadata:\s*\n\s+name:\s*(\S+)", doc, re.M)
                if not kind or not name:
                    continue
                # What the kustomization's `namespace:` does to the ClusterRoleBinding's subject.
                doc = re.sub(r"namespace: default\b", f"namespace: {NS}", doc)
                apply(kind.group(1), name.group(1), doc)
                applied.append((kind.group(1), name.group(1)))

        def review(verb, group, resource, sub, ns):
            attributes = {"verb": verb, "group": group, "resource": resource}
            if sub:
                attributes["subresource"] = sub
            if ns:
                attributes["namespace"] = ns
            body = {"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
                    "spec": {"user": f"system:serviceaccount:{NS}:{SA}",
                             "groups": ["system:serviceaccounts", f"system:serviceaccounts:{NS}", "system:authenticated"],
                             "resourceAttributes": attributes}}
            status, answer = call("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", json.dumps(body).encode())
            if status != 201 and status != 200:
                raise SystemExit(f"FAIL: SubjectAccessReview: HTTP {status}: {answer}")
            return bool(answer.get("status", {}).get("allowed"))

        for expected, rows in ((True, ALLOWED), (False, DENIED)):
            for verb, group, resource, sub, ns in rows:
                allowed = review(verb, group, resource, sub, ns)
                what = f"{verb} {resource}{'/' + sub if sub else ''}{'.' + group if group else ''} " \
                       f"{'in ' + ns if ns else '(cluster scope)'}"
                ok = allowed == expected
                failures += not ok
                print(f"{'ok  ' if ok else 'FAIL'} {'may    ' if allowed else 'may not'} {what}")
    finally:
        for kind, name in reversed(applied):
            if kind.startswith("Cluster") or kind == "Namespace":
                call("DELETE", PATHS[kind].format(ns=NS, name=name))
    print(f"{len(ALLOWED) + len(DENIED) - failures} of {len(ALLOWED) + len(DENIED)} access answers as expected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
