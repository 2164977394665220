# SPDX-License-Identifier: GPL-3.0-or-later
"""SliceScope's Ray job driver: creates or removes a TPU slice placement group.

SliceScope submits this file, unchanged, as the only file of a Ray working_dir package
(gcs://_ray_pkg_<hash>.zip) with the fixed entrypoint  python slice_pg_driver.py  and the
request as JSON in SLICESCOPE_REQUEST. The request is only ever parsed as data (json.loads), never
pasted into code, so a group name or topology cannot become Python.

Request (create):
  {"mode": "create", "topology": "4x4", "accelerator_version": "v6e", "num_slices": 1,
   "resources_per_bundle": {"CPU": 1}, "name": "train", "detached": false, "strategy": "SPREAD",
   "timeout_s": 60}
  resources_per_bundle may hold "TPU" (fewer than a host's chips: chips / TPU bundles per slice)
  and the request may hold "chips_per_vm"; both go to slice_placement_group unchanged.
Request (remove):
  {"mode": "remove", "placement_group_id": "hex", "name": "train", "timeout_s": 60}

Output: exactly one line starting with RESULT_PREFIX and holding a JSON object, {"ok": true, ...}
on success or {"ok": false, "error": kind, "message": one line} on failure (then exit status 1).
A non-detached group lives as long as this driver, so after a successful create the driver
sleeps until the job is stopped; a detached group outlives it, and the driver ends.
"""

import json
import os
import sys
import time
import traceback

RESULT_PREFIX = "SLICESCOPE_RESULT "
NAMESPACE = "slicescope"
SLICE_LABEL = "ray.io/tpu-slice-name"
WORKER_LABEL = "ray.io/tpu-worker-id"


def emit(obj):
    # One line, flushed at once: SliceScope reads it from the job log while the job still runs.
    print(RESULT_PREFIX + json.dumps(obj, sort_keys=True), flush=True)


def one_line(text):
    return " ".join(str(text).split())[:2000]


def fail(kind, message):
    emit({"ok": False, "error": kind, "message": one_line(message)})
    sys.stdout.flush()
    # os._exit: no atexit hooks that could block on a cluster that is going away.
    os._exit(1)


def pg_state(pg_id_hex):
    from ray.util import placement_group_table

    for pg_id, info in placement_group_table().items():
        if pg_id == pg_id_hex:
            return info
    return None


def describe(pg_id_hex):
    """Bundles of the group mapped to the slices (node labels) they landed on."""
    import ray

    info = pg_state(pg_id_hex) or {}
    labels = {n["NodeID"]: (n.get("Labels") or {}) for n in ray.nodes()}
    resources = info.get("bundles") or {}
    bundles, slices = [], []
    for index, node_id in sorted((info.get("bundles_to_node_id") or {}).items()):
        node_labels = labels.get(node_id, {})
        slice_name = node_labels.get(SLICE_LABEL)
        worker = node_labels.get(WORKER_LABEL)
        held = resources.get(index) or {}
        bundles.append({"index": int(index), "nodeId": node_id, "slice": slice_name,
                        "workerId": int(worker) if worker is not None and worker.isdigit() else None,
                        "tpu": held.get("TPU"), "cpu": held.get("CPU")})
        if slice_name and slice_name not in slices:
            slices.append(slice_name)
    return info, bundles, slices


def create(req):
    import ray
    from ray.util.tpu import slice_placement_group

    timeout = float(req.get("timeout_s") or 60)
    deadline = time.monotonic() + timeout
    detached = bool(req.get("detached"))
    try:
        spg = slice_placement_group(
            topology=str(req["topology"]),
            accelerator_version=str(req["accelerator_version"]),
            num_slices=int(req.get("num_slices") or 1),
            resources_per_bundle=req.get("resources_per_bundle") or None,
            chips_per_vm=int(req["chips_per_vm"]) if req.get("chips_per_vm") else None,
            name=str(req.get("name") or ""),
            lifetime="detached" if detached else None,
            strategy=str(req.get("strategy") or "SPREAD"),
            head_reservation_timeout_s=timeout,
        )
    except ValueError as e:
        fail("invalid", f"Ray refused the request: {e}")
    except TimeoutError as e:
        # Ray removes what it had reserved for the earlier slices (SlicePlacementGroup.shutdown).
        # Its message ends with a dump of every internal resource of the cluster: cut it there.
        text = str(e).split(" Current resources:")[0]
        fail("timeout", f"no free slice head within {timeout:g} s; Ray said: {text}")
    except Exception as e:  # RuntimeError and whatever a newer Ray raises
        fail("failed", f"{type(e).__name__}: {e}")

    pg = spg.placement_group
    remaining = max(1.0, deadline - time.monotonic())
    ready, _ = ray.wait([pg.ready()], timeout=remaining)
    pg_id = pg.id.hex()
    if not ready:
        info = pg_state(pg_id) or {}
        stats = info.get("stats") or {}
        spg.shutdown()
        fail("timeout", f"placement group {pg_id} was not ready within {timeout:g} s "
                        f"(state {info.get('state', '?')}, scheduling {stats.get('scheduling_state', '?')}); removed it")

    info, bundles, slices = describe(pg_id)
    heads = [h.id.hex() for h in spg.head_placement_groups]
    emit({"ok": True, "mode": "create", "placementGroupId": pg_id, "name": info.get("name", req.get("name", "")),
          "state": info.get("state", "CREATED"), "detached": detached, "slices": slices, "bundles": bundles,
          "headPlacementGroups": heads, "namespace": NAMESPACE,
          "bundleResources": spg.bundle_resources, "chipsPerHost": spg.chips_per_host, "numBundles": spg.num_bundles})
    if detached:
        # The group outlives us; the head groups are not detached and would go with this driver
        # anyway: release them now, the worker group already holds every chip of its slices.
        spg.release_head_pgs()
        return
    # A non-detached group fate-shares with its driver: hold it until SliceScope stops this job.
    while True:
        time.sleep(3600)


def remove(req):
    import ray
    from ray.util.placement_group import PlacementGroup, get_placement_group, remove_placement_group

    timeout = float(req.get("timeout_s") or 60)
    pg_id = req.get("placement_group_id") or ""
    try:
        if pg_id:
            pg = PlacementGroup(ray.PlacementGroupID(bytes.fromhex(pg_id)))
        else:
            pg = get_placement_group(str(req["name"]))
            pg_id = pg.id.hex()
    except Exception as e:
        fail("not-found", f"no placement group {pg_id or req.get('name')!r} in namespace {NAMESPACE!r}: {e}")
    info = pg_state(pg_id)
    if info is None:
        fail("not-found", f"Ray knows no placement group {pg_id}")
    if info.get("state") != "REMOVED":
        remove_placement_group(pg)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        info = pg_state(pg_id) or {}
        if info.get("state") == "REMOVED":
            emit({"ok": True, "mode": "remove", "placementGroupId": pg_id, "name": info.get("name", ""),
                  "state": "REMOVED"})
            return
        time.sleep(0.2)
    fail("timeout", f"placement group {pg_id} was still {info.get('state', '?')} after {timeout:g} s")


def main():
    try:
        req = json.loads(os.environ["SLICESCOPE_REQUEST"])
        if not isinstance(req, dict):
            raise ValueError("the request is not a JSON object")
    except Exception as e:
        fail("bad-request", f"SLICESCOPE_REQUEST: {e}")
    try:
        import ray

        ray.init(namespace=NAMESPACE, log_to_driver=False)
        mode = req.get("mode")
        if mode == "create":
            create(req)
        elif mode == "remove":
            remove(req)
        else:
            fail("bad-request", f"unknown mode {mode!r}")
    except SystemExit:
        raise
    except BaseException as e:
        traceback.print_exc()
        fail("failed", f"{type(e).__name__}: {e}")
    sys.stdout.flush()
    os._exit(0)


main()
