# SPDX-License-Identifier: GPL-3.0-or-later
"""Records tests/data/activity/: real answers of the Ray harness's dashboard and the Prometheus harness
after scripting the fake device plugin, and measures how long a change takes to show.

    python3 tests/integration/capture_activity.py RAY_DIR PROM_DIR OUT_DIR

RAY_DIR is a running ray-harness.sh (best started with
SLICESCOPE_RAY_PLUGIN_START_STATUS="tpu-v4-2x2x2-0/1=500 tpu-v6e-2x4-0/0=0", so two hosts failed when
Ray first asked), PROM_DIR a running prom-harness.sh on it. The script:
  1. times a duty-cycle change into /nodes?view=summary, into Prometheus's ray_tpu_duty_cycle and into
     the device-plugin job's duty_cycle (three changes; prints the latencies)
  2. scripts the scenario below, waits until the dashboard shows it, and writes
       nodes-summary.json           GET /nodes?view=summary, each entry cut to the members a model
                                    test reads (values verbatim)
       prom-<metric>.json           GET /api/v1/query?query=<metric> for the five ray_tpu_* gauges
                                    (this and the next two: Prometheus's bytes as served)
       prom-range-duty-cycle.json   GET /api/v1/query_range of ray_tpu_duty_cycle for the timed chip,
                                    step 2 s, from the reset (26 %) through 61, 62, 97.5
       prom-plugin-duty-cycle.json  GET /api/v1/query?query=duty_cycle{job="tpu-device-plugin"}
       scenario.json                what was scripted, the timings, which metrics export port
                                    (Prometheus's instance) is which host, the plugin's /state
Scenario (on top of the plugin's defaults, chip g has duty cycle 10 + g):
  tpu-v6e-4x4-0/0 chip 1   dutyCycle 0, tensorcoreUtilization 0 (an idle chip)
  tpu-v6e-4x4-0/1 chip 2   deleted (the plugin reports nothing for it)
  tpu-v6e-4x4-0/3          the plugin answers 500 (after answering 200 at the start)
  tpu-v6e-4x4-1/0 chip 0   dutyCycle 97.5 (the timed change)
  tpu-v6e-4x4-1/2 chip 3   only its dutyCycle series dropped
  tpu-v4-2x2x2-0/0 chip 2  only its memoryUsed series dropped
  tpu-v4-2x2x2-0/1, tpu-v6e-2x4-0/0   back to status 200 (first, before the timings): Ray asks the
                           first again (a 500 is an answer), never the second (a dropped connection)
Stdlib only; the token never leaves the Authorization header.
"""

import json
import os
import sys
import time
import urllib.parse
import urllib.request

RAYLET_KEYS = ("nodeId", "nodeManagerAddress", "nodeManagerHostname", "nodeName", "isHeadNode", "state",
               "labels", "metricsExportPort", "resourcesTotal", "startTimeMs")
ENTRY_KEYS = ("hostname", "ip", "now", "tpus", "gpus")
GAUGES = ("ray_tpu_duty_cycle", "ray_tpu_tensorcore_utilization", "ray_tpu_memory_bandwidth_utilization",
          "ray_tpu_memory_used", "ray_tpu_memory_total")


def read(path):
    with open(path) as f:
        return f.read().strip()


class Peers:
    def __init__(self, ray_dir, prom_dir):
        self.dashboard = read(os.path.join(ray_dir, "dashboard-url"))
        self.token = read(os.path.join(ray_dir, "token"))
        self.control = read(os.path.join(ray_dir, "device-plugin-url"))
        self.prom = read(os.path.join(prom_dir, "url"))
        self.targets = {}
        for line in read(os.path.join(ray_dir, "metrics-targets")).splitlines():
            addr, slice_, worker = line.split()
            self.targets[(slice_, worker)] = addr

    def raw_summary(self):
        req = urllib.request.Request(self.dashboard + "/nodes?view=summary",
                                     headers={"Authorization": "Bearer " + self.token,
                                              "User-Agent": "slicescope-capture"})
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.read()

    def host_tpus(self, body, slice_, worker):
        for e in json.loads(body)["data"]["summary"]:
            labels = e["raylet"].get("labels", {})
            if labels.get("ray.io/tpu-slice-name") == slice_ and labels.get("ray.io/tpu-worker-id") == str(worker):
                return e.get("tpus")
        raise KeyError(f"no node {slice_}/{worker} in the summary")

    def control_req(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.control + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.load(r)

    def prom_get(self, path, params):
        with urllib.request.urlopen(self.prom + path + "?" + urllib.parse.urlencode(params), timeout=30) as r:
            return r.read()

    def prom_value(self, query):
        result = json.loads(self.prom_get("/api/v1/query", {"query": query}))["data"]["result"]
        return [float(s["value"][1]) for s in result]


def wait(what, probe, timeout=60.0, step=0.2):
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if probe():
            return time.monotonic() - t0
        time.sleep(step)
    raise SystemExit(f"capture_activity: {what} did not show within {timeout:.0f} s")


def time_change(p, value):
    """Sets tpu-v6e-4x4-1/0 chip 0's duty cycle; seconds until each reader shows it."""
    slice_, worker = "tpu-v6e-4x4-1", 0
    instance = p.targets[(slice_, str(worker))]
    p.control_req("PUT", f"/hosts/{slice_}/{worker}/chips/0", {"dutyCycle": value})
    t0 = time.monotonic()
    seen = {}

    def probe():
        now = time.monotonic() - t0
        if "summary" not in seen:
            tpus = p.host_tpus(p.raw_summary(), slice_, worker)
            if tpus and tpus[0]["dutyCycle"] == value:
                seen["summary"] = now
        if "prometheus" not in seen and p.prom_value(
                f'ray_tpu_duty_cycle{{instance="{instance}",TpuIndex="0"}}') == [value]:
            seen["prometheus"] = now
        if "plugin job" not in seen and p.prom_value(
                f'duty_cycle{{job="tpu-device-plugin",pod="{slice_}-worker-{worker}",accelerator_id=~".*-0"}}') == [value]:
            seen["plugin job"] = now
        return len(seen) == 3

    wait(f"duty cycle {value}", probe)
    return seen


def cut_summary(body):
    doc = json.loads(body)
    entries = []
    for e in doc["data"]["summary"]:
        cut = {k: e[k] for k in ENTRY_KEYS if k in e}
        cut["raylet"] = {k: e["raylet"][k] for k in RAYLET_KEYS if k in e["raylet"]}
        entries.append(cut)
    doc["data"] = {"summary": entries}
    return doc


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: capture_activity.py RAY_DIR PROM_DIR OUT_DIR")
    p = Peers(sys.argv[1], sys.argv[2])
    out = sys.argv[3]
    os.makedirs(out, exist_ok=True)

    recover = [("POST", "/reset", None),
               ("PUT", "/hosts/tpu-v4-2x2x2-0/1", {"status": 200}), ("PUT", "/hosts/tpu-v6e-2x4-0/0", {"status": 200})]
    for method, path, body in recover:
        p.control_req(method, path, body)
    timed_from = time.time()
    time.sleep(6)  # the reset value (26 %) is seen once before the timed changes
    timings = [time_change(p, v) for v in (61.0, 62.0, 97.5)]
    for t in timings:
        print("capture_activity: change seen after " + ", ".join(f"{k} {v:.1f} s" for k, v in t.items()))

    scenario = [
        ("PUT", "/hosts/tpu-v6e-4x4-0/0/chips/1", {"dutyCycle": 0, "tensorcoreUtilization": 0}),
        ("DELETE", "/hosts/tpu-v6e-4x4-0/1/chips/2", None),
        ("PUT", "/hosts/tpu-v6e-4x4-0/3", {"status": 500}),
        ("PUT", "/hosts/tpu-v6e-4x4-1/2/chips/3", {"dutyCycle": None}),
        ("PUT", "/hosts/tpu-v4-2x2x2-0/0/chips/2", {"memoryUsed": None}),
    ]
    for method, path, body in scenario:
        p.control_req(method, path, body)
    t0 = time.monotonic()

    def shown():
        body = p.raw_summary()
        return (p.host_tpus(body, "tpu-v6e-4x4-0", 0)[1:2] and p.host_tpus(body, "tpu-v6e-4x4-0", 0)[1]["dutyCycle"] == 0
                and len(p.host_tpus(body, "tpu-v6e-4x4-0", 1)) == 3 and p.host_tpus(body, "tpu-v6e-4x4-0", 3) == [])

    shown_after = wait("the scenario", shown)
    print(f"capture_activity: scenario shown in the summary after {shown_after:.1f} s")
    # Ray's metrics export keeps a gauge it no longer records for a TTL (2 x metrics_report_interval_ms):
    # wait until Prometheus has lost the deleted chip and the failing host too.
    gone_chip = f'ray_tpu_duty_cycle{{instance="{p.targets[("tpu-v6e-4x4-0", "1")]}",TpuIndex="2"}}'
    gone_host = f'ray_tpu_duty_cycle{{instance="{p.targets[("tpu-v6e-4x4-0", "3")]}"}}'
    gone_after = wait("the deleted chip and the failing host leaving Prometheus",
                      lambda: not p.prom_value(gone_chip) and not p.prom_value(gone_host), timeout=90)
    print(f"capture_activity: ... and gone from Prometheus after {gone_after:.1f} s")
    time.sleep(5)  # one more scrape round of Ray (5 s) and Prometheus (2 s)

    def write(name, data):
        with open(os.path.join(out, name), "w") as f:
            json.dump(data, f, indent=1, sort_keys=False)
            f.write("\n")

    def write_raw(name, body):  # Prometheus's bytes exactly as served
        with open(os.path.join(out, name), "wb") as f:
            f.write(body)

    state = p.control_req("GET", "/state")
    write("nodes-summary.json", cut_summary(p.raw_summary()))
    for g in GAUGES:
        write_raw(f"prom-{g[len('ray_tpu_'):].replace('_', '-')}.json", p.prom_get("/api/v1/query", {"query": g}))
    end = time.time()
    instance = p.targets[("tpu-v6e-4x4-1", "0")]
    write_raw("prom-range-duty-cycle.json", p.prom_get("/api/v1/query_range", {
        "query": f'ray_tpu_duty_cycle{{instance="{instance}",TpuIndex="0"}}',
        "start": f"{timed_from:.3f}", "end": f"{end:.3f}", "step": "2"}))
    write_raw("prom-plugin-duty-cycle.json", p.prom_get("/api/v1/query", {"query": 'duty_cycle{job="tpu-device-plugin"}'}))
    for h in state["hosts"]:  # ports and scrape counts differ on every run; keep what the scenario set
        for k in ("addr", "scrapes", "lastScrape", "scrapesByUserAgent"):
            h.pop(k, None)
    write("scenario.json", {
        "startStatus": os.environ.get("SLICESCOPE_RAY_PLUGIN_START_STATUS", ""),
        "scripted": [{"method": m, "path": path, "body": b} for m, path, b in recover + scenario],
        "timedChanges": timings,
        "scenarioShownInSummaryAfter": round(shown_after, 1),
        "goneFromPrometheusAfter": round(gone_after, 1),
        "metricsTargets": {f"{s}/{w}": a for (s, w), a in p.targets.items()},
        "pluginState": state,
    })
    print(f"capture_activity: wrote {out}")


if __name__ == "__main__":
    main()
