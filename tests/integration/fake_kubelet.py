#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A stand-in for the scheduler, the kubelets, the garbage collector and GKE's TPU node pools, for the
Kubernetes harness (tests/integration/kube-harness.sh starts it next to the real KubeRay operator).

It only touches pods that KubeRay made: pods labelled ray.io/is-ray-node=yes whose controller is a
RayCluster (an ownerReference). Pods a test makes by hand (tests/common/kubefixture.h) have no owner
and are left alone, as are the nodes a test makes: this process only ever changes nodes it created
(label slicescope.test/fake-kubelet=true).

  - An unscheduled pod (no spec.nodeName, not being deleted) gets a node. A TPU pod (google.com/tpu
    requested, nodeSelector cloud.google.com/gke-tpu-accelerator and -topology) gets a fresh TPU node
    as GKE's node auto-provisioning would make it, in the node pool "<cluster>-<group>-<replica>"
    (replica: the suffix of KubeRay's replica name <group>-xxxxx, else the replica index), so one
    multi-host slice = one node pool; capacity google.com/tpu = the request. A free node of that pool,
    if there is one, is used instead. A CPU-only pod (the head) goes to a fake cpu-node-N. The pod is
    then bound (pods/binding) and reported Running and Ready with a unique pod IP (pods/status).
  - A pod being deleted (metadata.deletionTimestamp) is deleted for good (gracePeriodSeconds 0), as
    the kubelet does once its containers stopped. A fake node that no pod uses any more is deleted
    (GKE removes a deleted slice's node pool).
  - A pod whose RayCluster is gone is deleted, and so are the RayCluster's Services once it is
    deleted: there is no garbage collector (kube-controller-manager) in the harness.

It LISTs and then WATCHes pods, its nodes and RayClusters (one thread each) and reconciles on every
change, so it reacts within milliseconds. Every action is one log line. Everything is idempotent:
404 and 409 from a race with the operator or a test are expected and only logged.

Python 3 standard library only.

  fake_kubelet.py --server https://127.0.0.1:PORT --ca DIR/ca.crt --token-file DIR/admin-token
"""

import argparse
import datetime
import hashlib
import http.client
import ipaddress
import json
import signal
import ssl
import sys
import threading
import time
import urllib.parse

LABEL_IS_RAY_NODE = "ray.io/is-ray-node"
LABEL_CLUSTER = "ray.io/cluster"
LABEL_GROUP = "ray.io/group"
LABEL_REPLICA_NAME = "ray.io/worker-group-replica-name"
LABEL_REPLICA_INDEX = "ray.io/worker-group-replica-index"
LABEL_HOST_INDEX = "ray.io/replica-host-index"
LABEL_ACCELERATOR = "cloud.google.com/gke-tpu-accelerator"
LABEL_TOPOLOGY = "cloud.google.com/gke-tpu-topology"
LABEL_NODEPOOL = "cloud.google.com/gke-nodepool"
RESOURCE_TPU = "google.com/tpu"
LABEL_FAKE = "slicescope.test/fake-kubelet"  # "true" on every node this process made
CPU_POOL = "cpu-pool"
PODS_PER_NODE = 110

POD_CIDR = ipaddress.ip_network("10.64.0.0/14")   # GKE's default pod range
NODE_CIDR = ipaddress.ip_network("10.128.0.0/16")  # the nodes' InternalIPs


def log(msg):
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    print(f"{now} {msg}", flush=True)


def rfc3339():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def fit(name, limit=63):
    """A DNS label / label value of at most `limit` characters; too long names keep a hash."""
    name = name.lower().strip("-.")
    if len(name) <= limit:
        return name
    digest = hashlib.sha1(name.encode()).hexdigest()[:8]
    return name[: limit - 9].rstrip("-.") + "-" + digest


def meta(obj, key, default=None):
    return (obj.get("metadata") or {}).get(key, default)


def labels(obj):
    return meta(obj, "labels") or {}


def key_of(obj):
    return (meta(obj, "namespace") or "", meta(obj, "name"))


def pod_ref(pod):
    return f"{meta(pod, 'namespace')}/{meta(pod, 'name')}"


def controller_owner(obj, kind="RayCluster"):
    for ref in meta(obj, "ownerReferences") or []:
        if ref.get("kind") == kind and ref.get("controller"):
            return ref
    return None


def quantity_int(q):
    try:
        return int(str(q))
    except ValueError:
        return 0


class Api:
    """Blocking JSON requests to the API server; one keep-alive connection per thread."""

    def __init__(self, server, ca_file, token):
        url = urllib.parse.urlsplit(server)
        self.host = url.hostname
        self.port = url.port or 443
        self.ctx = ssl.create_default_context(cafile=ca_file)
        self.token = token
        self.local = threading.local()

    def connect(self, timeout):
        return http.client.HTTPSConnection(self.host, self.port, context=self.ctx, timeout=timeout)

    def headers(self, content_type=None):
        h = {"Authorization": "Bearer " + self.token, "Accept": "application/json",
             "User-Agent": "slicescope-fake-kubelet"}
        if content_type:
            h["Content-Type"] = content_type
        return h

    def request(self, method, path, body=None, content_type="application/json"):
        """(status, JSON body or None). Status 0: no answer (after one retry on a fresh connection)."""
        data = None if body is None else json.dumps(body).encode()
        for attempt in (0, 1):
            conn = getattr(self.local, "conn", None)
            if conn is None:
                conn = self.local.conn = self.connect(30)
            try:
                conn.request(method, path, body=data, headers=self.headers(content_type if data else None))
                resp = conn.getresponse()
                raw = resp.read()
                try:
                    return resp.status, json.loads(raw) if raw else None
                except ValueError:
                    return resp.status, None
            except (OSError, http.client.HTTPException) as e:
                conn.close()
                self.local.conn = None
                if attempt:
                    log(f"error: {method} {path}: {e}")
                    return 0, None
        return 0, None

    def open_stream(self, path, timeout):
        conn = self.connect(timeout)
        conn.request("GET", path, headers=self.headers())
        return conn, conn.getresponse()


class Informer(threading.Thread):
    """LIST then WATCH one resource (docs/facts.md 4.2) into `items`; calls `changed` after every update."""

    def __init__(self, api, path, selector, changed, name):
        super().__init__(daemon=True, name=name)
        self.api = api
        self.path = path
        self.selector = selector
        self.changed = changed
        self.lock = threading.Lock()
        self.items = {}
        self.synced = threading.Event()
        self.deleted_hooks = []

    def snapshot(self):
        with self.lock:
            return list(self.items.values())

    def query(self, **extra):
        q = {}
        if self.selector:
            q["labelSelector"] = self.selector
        q.update(extra)
        return self.path + "?" + urllib.parse.urlencode(q)

    def relist(self):
        items, cont = {}, None
        while True:
            extra = {"limit": "500"}
            if cont:
                extra["continue"] = cont
            status, body = self.api.request("GET", self.query(**extra))
            if status != 200 or not body:
                raise RuntimeError(f"LIST {self.path}: HTTP {status}")
            for obj in body.get("items") or []:
                items[key_of(obj)] = obj
            cont = (body.get("metadata") or {}).get("continue")
            if not cont:
                rv = body["metadata"]["resourceVersion"]
                break
        with self.lock:
            gone = [o for k, o in self.items.items() if k not in items]
            self.items = items
        for obj in gone:
            for hook in self.deleted_hooks:
                hook(obj)
        self.synced.set()
        self.changed()
        return rv

    def watch(self, rv):
        """Until the stream ends; returns the resourceVersion to resume from, or None to relist."""
        path = self.query(watch="1", resourceVersion=rv, allowWatchBookmarks="true", timeoutSeconds="300")
        conn, resp = self.api.open_stream(path, timeout=330)
        try:
            if resp.status == 410:
                return None
            if resp.status != 200:
                raise RuntimeError(f"WATCH {self.path}: HTTP {resp.status}")
            while True:
                line = resp.readline()
                if not line:
                    return rv
                line = line.strip()
                if not line:
                    continue
                event = json.loads(line)
                kind, obj = event.get("type"), event.get("object") or {}
                if kind == "ERROR":
                    if obj.get("code") == 410:
                        return None
                    raise RuntimeError(f"WATCH {self.path}: {obj.get('message')}")
                rv = meta(obj, "resourceVersion") or rv
                if kind == "BOOKMARK":
                    continue
                with self.lock:
                    if kind == "DELETED":
                        self.items.pop(key_of(obj), None)
                    else:
                        self.items[key_of(obj)] = obj
                if kind == "DELETED":
                    for hook in self.deleted_hooks:
                        hook(obj)
                self.changed()
        finally:
            conn.close()

    def run(self):
        rv, backoff = None, 0.2
        while True:
            try:
                if rv is None:
                    rv = self.relist()
                rv = self.watch(rv)
                backoff = 0.2
            except Exception as e:  # network errors, a restarting API server: relist after a pause
                log(f"informer {self.name}: {e}; relisting in {backoff:.1f} s")
                time.sleep(backoff)
                backoff = min(backoff * 2, 5.0)
                rv = None


class FakeKubelet:
    def __init__(self, api):
        self.api = api
        self.wake = threading.Event()
        self.pods = Informer(api, "/api/v1/pods", LABEL_IS_RAY_NODE + "=yes", self.wake.set, "pods")
        self.nodes = Informer(api, "/api/v1/nodes", LABEL_FAKE + "=true", self.wake.set, "nodes")
        self.clusters = Informer(api, "/apis/ray.io/v1/rayclusters", None, self.wake.set, "rayclusters")
        self.clusters.deleted_hooks.append(self.cluster_deleted)
        self.deleted_clusters = []          # (namespace, name, uid) whose Services are to go
        self.deleted_lock = threading.Lock()
        # What this process did and the caches do not show yet (a scheduler's "assumed" pods).
        self.assumed = {}        # pod uid -> node name (bound, the MODIFIED event not yet seen)
        self.status_sent = {}    # pod uid -> pod IP (set Running, not yet seen)
        self.finalized = set()   # pod uids deleted for good, the DELETED event not yet seen
        self.new_nodes = {}      # node name -> node object (created, the ADDED event not yet seen)
        self.gone_nodes = set()  # node names deleted, the DELETED event not yet seen
        self.orphans_checked = {}  # pod uid -> time its owner was last confirmed to exist

    # --- helpers -----------------------------------------------------------------------------------

    def cluster_deleted(self, obj):
        with self.deleted_lock:
            self.deleted_clusters.append((meta(obj, "namespace"), meta(obj, "name"), meta(obj, "uid")))
        self.wake.set()

    def owned(self, pod):
        return controller_owner(pod) is not None

    def all_nodes(self):
        nodes = {meta(n, "name"): n for n in self.nodes.snapshot()}
        for name in list(self.new_nodes):
            if name in nodes:
                del self.new_nodes[name]
            else:
                nodes[name] = self.new_nodes[name]
        for name in list(self.gone_nodes):
            if name in nodes:
                del nodes[name]
            else:
                self.gone_nodes.discard(name)
        return nodes

    def tpu_request(self, pod):
        spec = pod.get("spec") or {}
        total = 0
        for c in spec.get("containers") or []:
            res = c.get("resources") or {}
            q = (res.get("limits") or {}).get(RESOURCE_TPU) or (res.get("requests") or {}).get(RESOURCE_TPU)
            total += quantity_int(q) if q is not None else 0
        return total

    def node_pool_for(self, pod):
        """<cluster>-<group>-<replica>: KubeRay's replica name (<group>-<5 random>, so the group is not
        repeated), else the replica index, else the pod's own suffix (every pod its own slice)."""
        lab = labels(pod)
        cluster, group = lab.get(LABEL_CLUSTER, "raycluster"), lab.get(LABEL_GROUP, "group")
        replica = lab.get(LABEL_REPLICA_NAME)
        if replica and replica.startswith(group + "-"):
            return fit(f"{cluster}-{replica}")
        replica = replica or lab.get(LABEL_REPLICA_INDEX) or meta(pod, "name").rsplit("-", 1)[-1]
        return fit(f"{cluster}-{group}-{replica}")

    def next_ip(self, network, used, counter_attr):
        n = getattr(self, counter_attr, 1)
        hosts = network.num_addresses - 2
        for _ in range(hosts):
            n = n % hosts + 1
            ip = str(network.network_address + n)
            if ip not in used:
                setattr(self, counter_attr, n)
                return ip
        raise RuntimeError(f"no free address in {network}")

    # --- nodes -------------------------------------------------------------------------------------

    def create_node(self, name, node_labels, taints, resources, used_node_ips):
        ip = self.next_ip(NODE_CIDR, used_node_ips, "node_ip_counter")
        node_labels = dict(node_labels)
        node_labels.update({LABEL_FAKE: "true", "kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
                            "kubernetes.io/arch": "amd64"})
        status, body = self.api.request("POST", "/api/v1/nodes", {
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": node_labels},
            "spec": {"taints": taints} if taints else {},
        })
        if status == 409:
            log(f"node {name} exists already (409)")
            return None
        if status not in (200, 201):
            log(f"error: create node {name}: HTTP {status} {body and body.get('message')}")
            return None
        now = rfc3339()
        node_status = {
            "capacity": resources, "allocatable": resources,
            "addresses": [{"type": "InternalIP", "address": ip}, {"type": "Hostname", "address": name}],
            "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                            "message": "kubelet is posting ready status (slicescope fake kubelet)",
                            "lastHeartbeatTime": now, "lastTransitionTime": now}],
            "nodeInfo": {"kubeletVersion": "v1.37.2-fake", "containerRuntimeVersion": "fake://1",
                         "operatingSystem": "linux", "architecture": "amd64", "osImage": "fake",
                         "kernelVersion": "fake", "kubeProxyVersion": "", "machineID": "", "systemUUID": "",
                         "bootID": ""},
        }
        status, patched = self.api.request("PATCH", f"/api/v1/nodes/{name}/status", {"status": node_status},
                                           "application/merge-patch+json")
        if status != 200:
            log(f"error: status of node {name}: HTTP {status} {patched and patched.get('message')}")
            patched = body
        self.new_nodes[name] = patched
        self.gone_nodes.discard(name)
        log(f"created node {name} (pool {node_labels.get(LABEL_NODEPOOL)}, {RESOURCE_TPU} "
            f"{resources.get(RESOURCE_TPU, '0')}, InternalIP {ip})")
        return patched

    def delete_node(self, name):
        status, body = self.api.request("DELETE", f"/api/v1/nodes/{name}")
        if status in (200, 202, 404):
            self.gone_nodes.add(name)
            self.new_nodes.pop(name, None)
            log(f"deleted node {name}" + (" (was gone already)" if status == 404 else ""))
        else:
            log(f"error: delete node {name}: HTTP {status} {body and body.get('message')}")

    def node_ip(self, node):
        for a in (node.get("status") or {}).get("addresses") or []:
            if a.get("type") == "InternalIP":
                return a.get("address")
        return None

    def place(self, pod, nodes, usage):
        """The node this pod should run on, created if need be; None if that failed."""
        spec = pod.get("spec") or {}
        selector = spec.get("nodeSelector") or {}
        chips = self.tpu_request(pod)
        used_ips = {self.node_ip(n) for n in nodes.values()}
        if chips > 0:
            accelerator, topology = selector.get(LABEL_ACCELERATOR), selector.get(LABEL_TOPOLOGY)
            if not accelerator or not topology:
                log(f"pod {pod_ref(pod)} asks for {RESOURCE_TPU} without GKE's TPU nodeSelector: left Pending")
                return None
            pool = self.node_pool_for(pod)
            for name, node in sorted(nodes.items()):
                lab = labels(node)
                alloc = quantity_int(((node.get("status") or {}).get("allocatable") or {}).get(RESOURCE_TPU, "0"))
                if (lab.get(LABEL_NODEPOOL) == pool and lab.get(LABEL_ACCELERATOR) == accelerator
                        and lab.get(LABEL_TOPOLOGY) == topology and alloc >= chips and usage.get(name, 0) == 0
                        and not meta(node, "deletionTimestamp")):
                    return node
            host = labels(pod).get(LABEL_HOST_INDEX, "0")
            resources = {RESOURCE_TPU: str(chips), "cpu": "180", "memory": "720Gi", "pods": str(PODS_PER_NODE)}
            taints = [{"key": RESOURCE_TPU, "value": "present", "effect": "NoSchedule"}]
            node_labels = {LABEL_ACCELERATOR: accelerator, LABEL_TOPOLOGY: topology, LABEL_NODEPOOL: pool}
            for i in range(20):
                name = fit(f"gke-{pool}-{host}" + (f"-{i}" if i else ""))
                if name in nodes:
                    continue
                node = self.create_node(name, node_labels, taints, resources, used_ips)
                if node is not None:
                    return node
            return None
        # CPU only: the first fake CPU node with room, else a new one.
        cpu_nodes = {n: node for n, node in nodes.items() if labels(node).get(LABEL_NODEPOOL) == CPU_POOL}
        for name, node in sorted(cpu_nodes.items()):
            if usage.get(name, 0) < PODS_PER_NODE and not meta(node, "deletionTimestamp"):
                return node
        n = 0
        while f"cpu-node-{n}" in nodes:
            n += 1
        return self.create_node(f"cpu-node-{n}", {LABEL_NODEPOOL: CPU_POOL}, [],
                                {"cpu": "32", "memory": "128Gi", "pods": str(PODS_PER_NODE)}, used_ips)

    # --- pods --------------------------------------------------------------------------------------

    def bind(self, pod, node_name):
        ns, name = meta(pod, "namespace"), meta(pod, "name")
        status, body = self.api.request("POST", f"/api/v1/namespaces/{ns}/pods/{name}/binding", {
            "apiVersion": "v1", "kind": "Binding",
            "metadata": {"name": name, "namespace": ns, "uid": meta(pod, "uid")},
            "target": {"apiVersion": "v1", "kind": "Node", "name": node_name},
        })
        if status in (200, 201):
            log(f"bound pod {ns}/{name} to node {node_name}")
            return True
        log(f"bind pod {ns}/{name} to {node_name}: HTTP {status} {body and body.get('message')} (skipped)")
        return False

    def set_running(self, pod, node, pod_ip):
        ns, name = meta(pod, "namespace"), meta(pod, "name")
        spec = pod.get("spec") or {}
        now = rfc3339()
        host_ip = self.node_ip(node) if node else None

        def cid(container):
            return "containerd://" + hashlib.sha256(f"{meta(pod, 'uid')}/{container}".encode()).hexdigest()

        conditions = [{"type": t, "status": "True", "lastProbeTime": None, "lastTransitionTime": now}
                      for t in ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled")]
        status = {
            "phase": "Running",
            "conditions": conditions,
            "podIP": pod_ip,
            "podIPs": [{"ip": pod_ip}],
            "startTime": now,
            "qosClass": "Burstable",
            "containerStatuses": [{
                "name": c.get("name"), "image": c.get("image"), "imageID": "", "containerID": cid(c.get("name")),
                "ready": True, "started": True, "restartCount": 0,
                "state": {"running": {"startedAt": now}},
            } for c in spec.get("containers") or []],
        }
        if spec.get("initContainers"):
            status["initContainerStatuses"] = [{
                "name": c.get("name"), "image": c.get("image"), "imageID": "", "containerID": cid(c.get("name")),
                "ready": True, "restartCount": 0,
                "state": {"terminated": {"exitCode": 0, "reason": "Completed", "startedAt": now, "finishedAt": now}},
            } for c in spec["initContainers"]]
        if host_ip:
            status["hostIP"] = host_ip
            status["hostIPs"] = [{"ip": host_ip}]
        code, body = self.api.request("PATCH", f"/api/v1/namespaces/{ns}/pods/{name}/status",
                                      {"metadata": {"uid": meta(pod, "uid")}, "status": status},
                                      "application/merge-patch+json")
        if code == 200:
            log(f"pod {ns}/{name} Running on {spec.get('nodeName') or (node and meta(node, 'name'))}, podIP {pod_ip}")
            return True
        log(f"status of pod {ns}/{name}: HTTP {code} {body and body.get('message')} (skipped)")
        return False

    def finalize(self, pod):
        ns, name = meta(pod, "namespace"), meta(pod, "name")
        code, body = self.api.request("DELETE", f"/api/v1/namespaces/{ns}/pods/{name}", {
            "kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 0,
            "preconditions": {"uid": meta(pod, "uid")},
        })
        if code in (200, 202):
            log(f"deleted pod {ns}/{name} for good (it was terminating on {(pod.get('spec') or {}).get('nodeName')})")
            return True
        if code in (404, 409):
            log(f"delete pod {ns}/{name}: gone already (HTTP {code})")
            return True
        log(f"error: delete pod {ns}/{name}: HTTP {code} {body and body.get('message')}")
        return False

    def orphaned(self, pod, clusters, now):
        """True if the pod's RayCluster is gone (asked of the API server, not only the cache)."""
        if not self.clusters.synced.is_set():
            return False
        ref, ns, uid = controller_owner(pod), meta(pod, "namespace"), meta(pod, "uid")
        c = clusters.get((ns, ref.get("name")))
        if c is not None and meta(c, "uid") == ref.get("uid"):
            return False
        # The caches are separate streams (a new RayCluster may not have arrived yet): ask, at most
        # every two seconds per pod, before deleting anything.
        if now - self.orphans_checked.get(uid, -10.0) < 2.0:
            return False
        self.orphans_checked[uid] = now
        code, body = self.api.request("GET", f"/apis/ray.io/v1/namespaces/{ns}/rayclusters/{ref.get('name')}")
        if code == 200:
            return meta(body, "uid") != ref.get("uid")
        return code == 404

    def collect_services(self):
        with self.deleted_lock:
            todo, self.deleted_clusters = self.deleted_clusters, []
        for ns, name, uid in todo:
            q = urllib.parse.urlencode({"labelSelector": f"{LABEL_CLUSTER}={name}"})
            code, body = self.api.request("GET", f"/api/v1/namespaces/{ns}/services?{q}")
            if code != 200:
                continue
            for svc in body.get("items") or []:
                ref = controller_owner(svc)
                if ref and ref.get("uid") == uid:
                    code, _ = self.api.request("DELETE", f"/api/v1/namespaces/{ns}/services/{meta(svc, 'name')}")
                    log(f"deleted service {ns}/{meta(svc, 'name')} of deleted RayCluster {name} (HTTP {code})")

    # --- the loop ----------------------------------------------------------------------------------

    def reconcile(self):
        pods = [p for p in self.pods.snapshot() if self.owned(p)]
        all_ray_pods = self.pods.snapshot()
        clusters = {key_of(c): c for c in self.clusters.snapshot()}
        nodes = self.all_nodes()
        live_uids = {meta(p, "uid") for p in all_ray_pods}

        # Forget what the caches caught up with.
        by_uid = {meta(p, "uid"): p for p in all_ray_pods}
        for uid in list(self.assumed):
            p = by_uid.get(uid)
            if p is None or (p.get("spec") or {}).get("nodeName"):
                del self.assumed[uid]
        for uid in list(self.status_sent):
            p = by_uid.get(uid)
            if p is None or (p.get("status") or {}).get("podIP"):
                del self.status_sent[uid]
        self.finalized &= live_uids
        for uid in list(self.orphans_checked):
            if uid not in live_uids:
                del self.orphans_checked[uid]

        # Pods per node: every ray pod the cache has on a node, and the bindings not yet seen.
        usage = {}
        for p in all_ray_pods:
            n = (p.get("spec") or {}).get("nodeName")
            if n and meta(p, "uid") not in self.finalized:
                usage[n] = usage.get(n, 0) + 1
        for n in self.assumed.values():
            usage[n] = usage.get(n, 0) + 1
        used_pod_ips = {(p.get("status") or {}).get("podIP") for p in all_ray_pods} | set(self.status_sent.values())

        now = time.monotonic()
        for pod in sorted(pods, key=lambda p: (meta(p, "creationTimestamp") or "", meta(p, "name"))):
            uid = meta(pod, "uid")
            spec, status = pod.get("spec") or {}, pod.get("status") or {}
            node_name = spec.get("nodeName") or self.assumed.get(uid)

            if meta(pod, "deletionTimestamp"):
                if uid not in self.finalized and self.finalize(pod):
                    self.finalized.add(uid)
                    if node_name and usage.get(node_name):
                        usage[node_name] -= 1
                continue

            # No garbage collector in the harness: a pod whose RayCluster is gone goes too.
            if self.orphaned(pod, clusters, now):
                code, _ = self.api.request("DELETE", f"/api/v1/namespaces/{meta(pod, 'namespace')}/pods/{meta(pod, 'name')}",
                                           {"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 0,
                                            "preconditions": {"uid": uid}})
                log(f"deleted pod {pod_ref(pod)}: its RayCluster {controller_owner(pod).get('name')} is gone (HTTP {code})")
                self.finalized.add(uid)
                if node_name and usage.get(node_name):
                    usage[node_name] -= 1
                continue

            if not node_name:
                node = self.place(pod, nodes, usage)
                if node is None:
                    continue
                node_name = meta(node, "name")
                nodes[node_name] = node
                if not self.bind(pod, node_name):
                    continue
                self.assumed[uid] = node_name
                usage[node_name] = usage.get(node_name, 0) + 1

            if status.get("phase") != "Running" and uid not in self.status_sent:
                ip = self.next_ip(POD_CIDR, used_pod_ips, "pod_ip_counter")
                if self.set_running(pod, nodes.get(node_name), ip):
                    self.status_sent[uid] = ip
                    used_pod_ips.add(ip)

        # GKE removes a deleted slice's node pool: a fake node without pods goes.
        for name, node in sorted(nodes.items()):
            if usage.get(name, 0) == 0 and name not in self.gone_nodes:
                self.delete_node(name)

        self.collect_services()

    def run(self):
        for informer in (self.pods, self.nodes, self.clusters):
            informer.start()
        for informer in (self.pods, self.nodes, self.clusters):
            while not informer.synced.wait(1.0):
                log(f"waiting for the first LIST of {informer.name}")
        log("ready: watching pods labelled ray.io/is-ray-node=yes, fake nodes and RayClusters")
        while True:
            # Every change wakes the loop; once a second it also retries what failed before.
            self.wake.wait(1.0)
            self.wake.clear()
            try:
                self.reconcile()
            except Exception as e:  # keep serving; the next change or second retries
                log(f"error: reconcile: {type(e).__name__}: {e}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--server", required=True, help="https://127.0.0.1:PORT")
    ap.add_argument("--ca", required=True, help="the CA that signed the API server's certificate")
    ap.add_argument("--token-file", required=True, help="a bearer token that may bind pods and create nodes")
    args = ap.parse_args()
    with open(args.token_file) as f:
        token = f.read().strip()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    FakeKubelet(Api(args.server, args.ca, token)).run()


if __name__ == "__main__":
    main()
