#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The relay's Kubernetes manifests (installer/kubernetes/) against the real API server of
tests/integration/kube-harness.sh (found through SLICESCOPE_KUBE_DIR, or the first argument):
applies every object server-side as the admin, into a namespace of its own, then asks the API
server with SubjectAccessReview (as the admin) whether the relay's ServiceAccount may do each verb
docs/facts.md 4.3 lists, and may NOT do anything beyond them. Removes what it applied. Exit 0 when every
answer is the expected one, 1 otherwise, 77 (skipped) without a harness outside CI.

helm_chart_check.py imports this file for the same API server calls and the same expected answers
(the chart's objects must be granted exactly what these manifests are)."""

import json
import os
import re
import ssl
import sys
import urllib.error
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
MANIFESTS = os.path.join(HERE, "..", "..", "installer", "kubernetes")
FILES = ["serviceaccount.yaml", "rbac.yaml", "deployment.yaml", "service.yaml"]
NS = "slicescope-relay-rbac"
OTHER_NS = "default"
SA = "slicescope-relay"


def expected_answers(ns, other_ns=OTHER_NS):
    """(allowed, denied): rows of (verb, group, resource, subresource, namespace or None for cluster
    scope) that the relay's ServiceAccount in `ns` may and may not do, with installer/kubernetes/."""
    allowed = [(v, "ray.io", "rayclusters", "", ns) for v in ("get", "list", "watch", "patch")] + \
              [(v, "", r, "", ns) for r in ("pods", "events") for v in ("get", "list", "watch")] + \
              [("get", "", "services", "proxy", ns)] + \
              [(v, "", "nodes", "", None) for v in ("list", "watch")]
    denied = [
        ("delete", "", "pods", "", ns), ("create", "", "pods", "", ns), ("patch", "", "pods", "", ns),
        ("create", "", "pods", "exec", ns), ("get", "", "pods", "log", ns),
        ("get", "", "secrets", "", ns), ("list", "", "secrets", "", ns), ("get", "", "configmaps", "", ns),
        ("delete", "ray.io", "rayclusters", "", ns), ("update", "ray.io", "rayclusters", "", ns),
        ("create", "ray.io", "rayclusters", "", ns), ("patch", "ray.io", "rayclusters", "status", ns),
        ("patch", "", "nodes", "", None), ("get", "", "nodes", "", None), ("delete", "", "nodes", "", None),
        ("get", "", "services", "", ns), ("create", "", "services", "proxy", ns),
        ("list", "", "pods", "", None), ("list", "ray.io", "rayclusters", "", None),   # all namespaces
        ("get", "ray.io", "rayclusters", "", other_ns), ("patch", "ray.io", "rayclusters", "", other_ns),
        ("list", "", "pods", "", other_ns), ("get", "", "services", "proxy", other_ns),
        ("create", "rbac.authorization.k8s.io", "rolebindings", "", ns),
        ("patch", "apps", "deployments", "", ns),
    ]
    return allowed, denied


ALLOWED, DENIED = expected_answers(NS)

PATHS = {
    "Namespace": "/api/v1/namespaces/{name}",
    "ServiceAccount": "/api/v1/namespaces/{ns}/serviceaccounts/{name}",
    "Service": "/api/v1/namespaces/{ns}/services/{name}",
    "Secret": "/api/v1/namespaces/{ns}/secrets/{name}",
    "Deployment": "/apis/apps/v1/namespaces/{ns}/deployments/{name}",
    "Role": "/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles/{name}",
    "RoleBinding": "/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/rolebindings/{name}",
    "ClusterRole": "/apis/rbac.authorization.k8s.io/v1/clusterroles/{name}",
    "ClusterRoleBinding": "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/{name}",
}


def harness_dir(argument=None):
    """The harness folder, or an exit code: 77 (skipped) without one outside CI, 1 in CI."""
    kube_dir = argument or os.environ.get("SLICESCOPE_KUBE_DIR", "")
    if kube_dir:
        return kube_dir
    why = ("SLICESCOPE_KUBE_DIR is not set: this check needs the API server of "
           "tests/integration/kube-harness.sh (tests/run-all.sh starts it)")
    if os.environ.get("CI") == "true":
        print("FAIL: " + why)
        return 1
    print("\n*** INTEGRATION CHECK SKIPPED *** " + why + "\n")
    return 77


def documents(text):
    """(kind, name, text) of each object in a multi-document YAML text (kubectl's and helm's layout:
    top-level `kind:`, `metadata:` with `name:` indented under it)."""
    found = []
    for doc in re.split(r"^---\s*$", text, flags=re.M):
        kind = re.search(r"^kind:\s*(\S+)", doc, re.M)
        metadata = re.search(r"^metadata:[ \t]*\n((?:[ \t]+.*\n?|[ \t]*\n)*)", doc, re.M)
        indent = metadata and re.match(r"(?:[ \t]*\n)*([ \t]+)", metadata.group(1))
        name = indent and re.search(r"^" + indent.group(1) + r"name:\s*(\S+)", metadata.group(1), re.M)
        if kind and name:
            found.append((kind.group(1), name.group(1).strip("\"'"), doc))
    return found


class ApiServer:
    """The harness's API server, as its admin (system:masters)."""

    def __init__(self, kube_dir, agent="slicescope-relay-rbac-check"):
        read = lambda name: open(os.path.join(kube_dir, name)).read().strip()
        self.server = read("server-url")
        self.token = read("admin-token")
        self.context = ssl.create_default_context(cafile=os.path.join(kube_dir, "ca.crt"))
        self.agent = agent

    def call(self, method, path, body=None, content_type="application/json"):
        request = urllib.request.Request(self.server + path, method=method, data=body)
        request.add_header("Authorization", "Bearer " + self.token)
        request.add_header("User-Agent", self.agent)
        if body is not None:
            request.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(request, context=self.context, timeout=30) as reply:
                return reply.status, json.loads(reply.read() or b"{}")
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode(errors="replace")

    def apply(self, kind, name, ns, text, dry_run=False):
        """Server-side apply of one YAML document; returns the object as the API server keeps it (or
        would keep it, with dry_run: defaults filled in, nothing stored)."""
        query = {"fieldManager": self.agent, "force": "true"}
        if dry_run:
            query["dryRun"] = "All"
        path = PATHS[kind].format(ns=ns, name=name) + "?" + urllib.parse.urlencode(query)
        status, answer = self.call("PATCH", path, text.encode(), "application/apply-patch+yaml")
        if status not in (200, 201):
            raise SystemExit(f"FAIL: applying {kind} {name}{' (dry run)' if dry_run else ''}: HTTP {status}: {answer}")
        if not dry_run:
            print(f"applied {kind} {name}")
        return answer

    def delete(self, kind, name, ns):
        self.call("DELETE", PATHS[kind].format(ns=ns, name=name))

    def ensure_namespace(self, ns):
        self.apply("Namespace", ns, None, f"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {ns}\n")

    def may(self, sa_ns, sa, verb, group, resource, sub, ns):
        """SubjectAccessReview: may ServiceAccount sa_ns/sa do this?"""
        attributes = {"verb": verb, "group": group, "resource": resource}
        if sub:
            attributes["subresource"] = sub
        if ns:
            attributes["namespace"] = ns
        body = {"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
                "spec": {"user": f"system:serviceaccount:{sa_ns}:{sa}",
                         "groups": ["system:serviceaccounts", f"system:serviceaccounts:{sa_ns}", "system:authenticated"],
                         "resourceAttributes": attributes}}
        status, answer = self.call("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", json.dumps(body).encode())
        if status != 201 and status != 200:
            raise SystemExit(f"FAIL: SubjectAccessReview: HTTP {status}: {answer}")
        return bool(answer.get("status", {}).get("allowed"))

    def check_access(self, sa_ns, sa, allowed, denied):
        """Asks about every row, prints one line each; returns the number of unexpected answers."""
        failures = 0
        for expected, rows in ((True, allowed), (False, denied)):
            for verb, group, resource, sub, ns in rows:
                answer = self.may(sa_ns, sa, verb, group, resource, sub, ns)
                what = f"{verb} {resource}{'/' + sub if sub else ''}{'.' + group if group else ''} " \
                       f"{'in ' + ns if ns else '(cluster scope)'}"
                ok = answer == expected
                failures += not ok
                print(f"{'ok  ' if ok else 'FAIL'} {'may    ' if answer else 'may not'} {what}")
        return failures


def kustomize_objects(ns):
    """installer/kubernetes/'s objects as `kubectl apply -k` would send them with the kustomization's
    namespace set to ns: (kind, name, text)."""
    objects = []
    for file in FILES:
        for kind, name, doc in documents(open(os.path.join(MANIFESTS, file)).read()):
            # What the kustomization's `namespace:` does to the ClusterRoleBinding's subject.
            objects.append((kind, name, re.sub(r"namespace: default\b", f"namespace: {ns}", doc)))
    return objects


def main():
    kube_dir = harness_dir(sys.argv[1] if len(sys.argv) > 1 else None)
    if isinstance(kube_dir, int):
        return kube_dir
    api = ApiServer(kube_dir)
    applied = []
    failures = 0
    try:
        api.ensure_namespace(NS)
        applied.append(("Namespace", NS))
        for kind, name, doc in kustomize_objects(NS):
            api.apply(kind, name, NS, doc)
            applied.append((kind, name))
        failures = api.check_access(NS, SA, ALLOWED, DENIED)
    finally:
        for kind, name in reversed(applied):
            if kind.startswith("Cluster") or kind == "Namespace":
                api.delete(kind, name, NS)
    print(f"{len(ALLOWED) + len(DENIED) - failures} of {len(ALLOWED) + len(DENIED)} access answers as expected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
