#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The relay's Helm chart (installer/helm/slicescope-relay) with a real `helm` (tests/integration/helm-env.sh,
found through SLICESCOPE_HELM or the first argument) and the real API server of
tests/integration/kube-harness.sh (SLICESCOPE_KUBE_DIR or the second argument):

1. `helm lint --strict` for both scopes and a chart-made token Secret; the chart's appVersion is the
   project's version (top-level CMakeLists.txt).
2. Values the chart must refuse (`fail` in _helpers.tpl) are refused, and the message never quotes
   the token.
3. `helm template` for scope=namespace renders the same objects as installer/kubernetes/ (as
   `kubectl apply -k` sends them): every object, as the API server would store it (a server-side
   dry run fills in the defaults on both sides), equal except Helm's own labels and the Service's
   cluster IP. scope=cluster: the Role and RoleBinding are a ClusterRole and ClusterRoleBinding with
   the same rules, the relay runs with --all-namespaces, the rest is the same.
4. The namespace-scope rendering, applied server-side into a namespace of its own: SubjectAccessReview
   gives its ServiceAccount exactly relay_rbac_check.py's answers. The cluster-scope rendering: the same
   verbs in every namespace and across all namespaces (listing pods everywhere is allowed), and still
   no secrets, exec, logs, create or delete.

Removes what it applied (the namespaces stay: without a controller-manager a deleted one would stay
Terminating). Exit 0 when all holds, 1 otherwise, 77 (skipped) without helm or a harness outside CI."""

import base64
import copy
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the clone for the import below
import relay_rbac_check as rbac  # noqa: E402 (the same API server calls and expected answers)

ROOT = os.path.normpath(os.path.join(rbac.HERE, "..", ".."))
CHART = os.path.join(ROOT, "installer", "helm", "slicescope-relay")
RELEASE = "slicescope-relay"
NS_SCOPE_NS = "slicescope-helm-relay"
CLUSTER_SCOPE_NS = "slicescope-helm-cluster"
SA = rbac.SA
# The labels Helm's rendering adds beside installer/kubernetes/'s app.kubernetes.io/name (never in a selector).
HELM_LABELS = {"app.kubernetes.io/instance", "app.kubernetes.io/version", "app.kubernetes.io/managed-by", "helm.sh/chart"}
# A made-up token of the allowed characters, for the chart-made Secret.
GOOD_TOKEN = "Abc-def_ghi.jkl/mno=pqr0123456789"

failures = 0


def check(ok, what):
    global failures
    failures += not ok
    print(f"{'ok  ' if ok else 'FAIL'} {what}")
    return ok


def skip_or_fail(why):
    if os.environ.get("CI") == "true":
        print("FAIL: " + why)
        return 1
    print("\n*** INTEGRATION CHECK SKIPPED *** " + why + "\n")
    return 77


class Helm:
    def __init__(self, binary):
        self.binary = binary
        # Its own config, cache and data folders: nothing read from or left in the user's.
        self.home = tempfile.mkdtemp(prefix="slicescope-helm-check.")
        self.env = dict(os.environ, HELM_CONFIG_HOME=os.path.join(self.home, "config"),
                        HELM_CACHE_HOME=os.path.join(self.home, "cache"), HELM_DATA_HOME=os.path.join(self.home, "data"),
                        KUBECONFIG=os.path.join(self.home, "no-kubeconfig"))

    def run(self, *args):
        done = subprocess.run([self.binary, *args], env=self.env, capture_output=True, text=True, timeout=120)
        return done.returncode, done.stdout, done.stderr

    def template(self, namespace, *sets):
        return self.run("template", RELEASE, CHART, "--namespace", namespace, *set_args(sets))


def set_args(sets):
    """--set for each value; --set-string for the token, which must never turn into a number."""
    args = []
    for s in sets:
        args += ["--set-string" if s.startswith("token.value=") else "--set", s]
    return args


def project_version():
    text = open(os.path.join(ROOT, "CMakeLists.txt")).read()
    return re.search(r"project\(\s*SliceScope\s+VERSION\s+([0-9.]+)", text).group(1)


def kustomize_objects(ns):
    """installer/kubernetes/ as `kubectl apply -k` sends it with `namespace: ns`: the namespace as
    relay_rbac_check.py sets it, and the kustomization's `images:` entry on the container."""
    kustomization = open(os.path.join(rbac.MANIFESTS, "kustomization.yaml")).read()
    image = re.search(r"^\s*newName:\s*(\S+)", kustomization, re.M).group(1) + ":" + \
        re.search(r"^\s*newTag:\s*(\S+)", kustomization, re.M).group(1)
    return [(kind, name, re.sub(r"^(\s+image:\s*)slicescope\b", lambda m: m.group(1) + image, doc, flags=re.M))
            for kind, name, doc in rbac.kustomize_objects(ns)]


def stored(api, objects, ns):
    """{(kind, name): the object as the API server would store it} (server-side apply, dry run)."""
    return {(kind, name): api.apply(kind, name, ns, doc, dry_run=True) for kind, name, doc in objects}


def comparable(obj, release_ns):
    """The parts that must be equal: no server bookkeeping, no labels (checked on their own), no
    cluster IP (each dry run draws one), a binding's ServiceAccount subject with its namespace."""
    obj = copy.deepcopy(obj)
    obj.pop("status", None)
    meta = obj.get("metadata", {})
    obj["metadata"] = {"name": meta.get("name"), "annotations": meta.get("annotations", {})}
    spec = obj.get("spec", {})
    if obj.get("kind") == "Service":
        spec.pop("clusterIP", None)
        spec.pop("clusterIPs", None)
    template = spec.get("template", {}).get("metadata")
    if template:
        template.pop("labels", None)
    for subject in obj.get("subjects", []):
        if subject.get("kind") == "ServiceAccount":
            subject.setdefault("namespace", release_ns)
    return obj


def labels_of(obj):
    yield "metadata", obj.get("metadata", {}).get("labels", {})
    template = obj.get("spec", {}).get("template", {}).get("metadata")
    if template:
        yield "pod template", template.get("labels", {})


def check_labels(kustomized, helmed, what):
    ok = True
    for (_, want), (_, got) in zip(labels_of(kustomized), labels_of(helmed)):
        extra = set(got) - set(want)
        ok &= all(got.get(k) == v for k, v in want.items()) and extra <= HELM_LABELS
    selector = lambda o: (o.get("spec", {}).get("selector"))
    ok &= selector(kustomized) == selector(helmed)
    check(ok, f"{what}: installer/kubernetes/'s labels and selector (plus Helm's own labels only)")


def diff(a, b, path=""):
    """The first place where two JSON values differ, or None."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                return f"{path}.{key}: {a.get(key, '<absent>')!r} vs {b.get(key, '<absent>')!r}"
            found = diff(a[key], b[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            found = diff(x, y, f"{path}[{i}]")
            if found:
                return found
        return None
    return None if a == b else f"{path}: {a!r} vs {b!r}"


def check_equivalent(api, rendered, ns, cluster):
    """The chart's rendering against installer/kubernetes/ in namespace ns."""
    scope = "cluster" if cluster else "namespace"
    want = stored(api, kustomize_objects(ns), ns)
    got = stored(api, rbac.documents(rendered), ns)
    renamed = {"Role": "ClusterRole", "RoleBinding": "ClusterRoleBinding"} if cluster else {}
    expected_keys = {(renamed.get(kind, kind), name) for kind, name in want}
    check(set(got) == expected_keys,
          f"scope={scope}: the chart renders {', '.join(sorted(f'{k} {n}' for k, n in got))}"
          + ("" if set(got) == expected_keys else f"; expected {sorted(expected_keys)}"))
    for (kind, name), kobj in want.items():
        hobj = got.get((renamed.get(kind, kind), name))
        if hobj is None:
            continue
        what = f"scope={scope}: {hobj['kind']} {name}"
        check_labels(kobj, hobj, what)
        a, b = comparable(kobj, ns), comparable(hobj, ns)
        if cluster and kind in renamed:
            a["kind"] = renamed[kind]
            if kind == "RoleBinding":
                a["roleRef"]["kind"] = "ClusterRole"
        if cluster and kind == "Deployment":
            args = a["spec"]["template"]["spec"]["containers"][0]["args"]
            args.insert(args.index("--in-cluster") + 1, "--all-namespaces")
        found = diff(a, b)
        note = {"Deployment": " (replicas, selector, pod security context, container args, probes, resources, "
                              "security context, volumes)",
                "Role": " (rules)", "ClusterRole": " (rules)", "RoleBinding": " (roleRef, subjects)",
                "ClusterRoleBinding": " (roleRef, subjects)", "Service": " (type, selector, ports)"}.get(kind, "")
        if cluster and kind == "Deployment":
            note = " (the same, with --all-namespaces after --in-cluster)"
        check(found is None, f"{what} is installer/kubernetes/'s {kind} as stored{note}" + (f": {found}" if found else ""))


def cluster_answers(ns, other_ns=rbac.OTHER_NS):
    """scope=cluster: the namespaced verbs of the Role hold in every namespace and across all of them;
    nothing else is granted (nodes as before)."""
    allowed, denied = rbac.expected_answers(ns, other_ns)
    granted = {(v, g, r, s) for v, g, r, s, where in allowed if where is not None}
    nodes = {row for row in allowed if row[4] is None}
    rows = allowed + denied + [
        ("watch", "", "pods", "", None), ("list", "", "events", "", None), ("watch", "ray.io", "rayclusters", "", None),
        ("get", "", "services", "proxy", "kube-system"),
        ("list", "", "secrets", "", None), ("get", "", "secrets", "", other_ns), ("get", "", "configmaps", "", None),
        ("delete", "", "pods", "", other_ns), ("create", "", "pods", "exec", other_ns), ("get", "", "pods", "log", other_ns),
        ("delete", "ray.io", "rayclusters", "", other_ns), ("create", "ray.io", "rayclusters", "", None),
        ("patch", "ray.io", "rayclusters", "status", other_ns), ("patch", "", "pods", "", None),
        ("create", "rbac.authorization.k8s.io", "clusterrolebindings", "", None),
        ("patch", "apps", "deployments", "", other_ns),
    ]
    allow = [row for row in rows if row[:4] in granted or row in nodes]
    deny = [row for row in rows if not (row[:4] in granted or row in nodes)]
    return allow, deny


def apply_and_review(api, rendered, ns, allowed, denied, scope):
    global failures
    applied = []
    try:
        api.ensure_namespace(ns)
        for kind, name, doc in rbac.documents(rendered):
            api.apply(kind, name, ns, doc)
            applied.append((kind, name))
        print(f"scope={scope}: SubjectAccessReview for system:serviceaccount:{ns}:{SA}")
        bad = api.check_access(ns, SA, allowed, denied)
        failures += bad
        print(f"scope={scope}: {len(allowed) + len(denied) - bad} of {len(allowed) + len(denied)} access answers as expected")
    finally:
        for kind, name in reversed(applied):
            api.delete(kind, name, ns)


def main():
    binary = (sys.argv[1] if len(sys.argv) > 1 else "") or os.environ.get("SLICESCOPE_HELM", "")
    if not binary:
        return skip_or_fail("SLICESCOPE_HELM is not set: this check needs the helm that "
                            "tests/integration/helm-env.sh builds (tests/run-all.sh sets it)")
    if not os.access(binary, os.X_OK):
        print(f"FAIL: helm {binary} (SLICESCOPE_HELM or the first argument) is not an executable file")
        return 1
    kube_dir = rbac.harness_dir(sys.argv[2] if len(sys.argv) > 2 else None)
    if isinstance(kube_dir, int):
        return kube_dir
    helm = Helm(binary)
    print("helm " + helm.run("version", "--short")[1].strip())

    # 1. The chart's version and lint.
    app_version = re.search(r'^appVersion:\s*"?([^"\s]+)', open(os.path.join(CHART, "Chart.yaml")).read(), re.M).group(1)
    check(app_version == project_version(), f"Chart.yaml appVersion {app_version} is the project's version {project_version()}")
    for sets in ([], ["scope=cluster"], ["token.create=true", f"token.value={GOOD_TOKEN}"]):
        code, out, err = helm.run("lint", "--strict", CHART, *set_args(sets))
        said = " | ".join(line.strip() for line in (out + err).splitlines() if line.strip())
        check(code == 0 and "[WARNING]" not in out and "[ERROR]" not in out,
              f"{' '.join(['helm lint --strict'] + set_args(sets))}: {said}")

    # 2. Values the chart refuses.
    refused = [
        (["scope=everything"], 'scope must be "namespace"'),
        (["token.create=true"], "token.create=true needs token.value"),
        (["token.create=true", "token.value=fifteen-chars-x"], "16 to 4096 characters"),
        (["token.create=true", "token.value=a-token-with-a-plus+sign-in-it"], "16 to 4096 characters"),
        (["token.create=true", "token.value=a-token-with;a-semicolon"], "16 to 4096 characters"),
        ([f"token.value={GOOD_TOKEN}"], "token.value is only used with token.create=true"),
        (["token.existingSecret=Not_A_Name"], "token.existingSecret must name"),
        (["name=Relay"], "must be a DNS label"),
        (["service.port=70000"], "service.port must be a port number"),
    ]
    for sets, message in refused:
        code, out, err = helm.template(NS_SCOPE_NS, *sets)
        secret_values = [s.split("=", 1)[1] for s in sets if s.startswith("token.value=")]
        quoted = any(v in err for v in secret_values)
        said = next((line for line in err.splitlines() if line.startswith("Error:")), "(no error)")
        said = re.sub(r"^Error: execution error at \([^)]*\): ", "", said)
        check(code != 0 and message in err and not quoted,
              f"refused: {' '.join(set_args(sets))}: {said}" + (" (and the message quotes the token!)" if quoted else ""))

    # The chart-made Secret: only when asked, named token.existingSecret, holding the value.
    code, rendered_ns, err = helm.template(NS_SCOPE_NS)
    if not check(code == 0, "helm template (scope=namespace) renders"):
        print(err)
        return 1
    check(not any(kind == "Secret" for kind, _, _ in rbac.documents(rendered_ns)), "no Secret unless token.create=true")
    code, out, err = helm.template(NS_SCOPE_NS, "token.create=true", f"token.value={GOOD_TOKEN}", "token.existingSecret=team-token")
    secrets = [(name, doc) for kind, name, doc in rbac.documents(out) if kind == "Secret"]
    encoded = base64.b64encode(GOOD_TOKEN.encode()).decode()
    check(code == 0 and len(secrets) == 1 and secrets[0][0] == "team-token" and f'token: "{encoded}"' in secrets[0][1]
          and re.search(r"secretName:\s*team-token\b", out) is not None,
          "token.create=true: one Secret team-token holding token.value under `token`, mounted by the Deployment")
    # Another name: every object follows it, so a second relay in the cluster claims nothing of the first.
    code, out, err = helm.template(NS_SCOPE_NS, "name=team-b-relay")
    names = {name for _, name, _ in rbac.documents(out)}
    check(code == 0 and names == {"team-b-relay", "team-b-relay-nodes"}
          and "app.kubernetes.io/name: team-b-relay" in out and "app.kubernetes.io/name: slicescope-relay" not in out,
          f"name=team-b-relay: objects {sorted(names)}, labels and selectors follow")

    code, rendered_cluster, err = helm.template(CLUSTER_SCOPE_NS, "scope=cluster")
    if not check(code == 0, "helm template --set scope=cluster renders"):
        print(err)
        return 1

    # 3. The same objects as installer/kubernetes/, as the API server would store them.
    api = rbac.ApiServer(kube_dir, agent="slicescope-helm-chart-check")
    api.ensure_namespace(NS_SCOPE_NS)
    api.ensure_namespace(CLUSTER_SCOPE_NS)
    check_equivalent(api, rendered_ns, NS_SCOPE_NS, cluster=False)
    check_equivalent(api, rendered_cluster, CLUSTER_SCOPE_NS, cluster=True)

    # 4. Applied for real: what SubjectAccessReview says the ServiceAccount may do.
    apply_and_review(api, rendered_ns, NS_SCOPE_NS, *rbac.expected_answers(NS_SCOPE_NS), "namespace")
    apply_and_review(api, rendered_cluster, CLUSTER_SCOPE_NS, *cluster_answers(CLUSTER_SCOPE_NS), "cluster")

    print(f"helm_chart_check: {'all checks passed' if not failures else f'{failures} check(s) FAILED'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
