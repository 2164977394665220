# SPDX-License-Identifier: GPL-3.0-or-later
"""A fake GKE TPU device plugin for the integration tier: per-chip TPU metrics, scripted by tests.

On GKE every TPU VM runs the TPU device plugin, which serves the chips' metrics as Prometheus text on
HOST_IP:2112/metrics, and Ray's reporter agent on that VM scrapes it (TPU_DEVICE_PLUGIN_ADDR). Here one
process plays the plugin of every fake TPU host of ray-harness.sh, each host on its own 127.0.0.1 port,
plus a control port through which tests script the values.

    fake_device_plugin.py --config FILE --ready FILE

--config is JSON: {"hosts": [{"slice": "tpu-v6e-4x4-0", "worker": 0, "chips": 4, "hostsInSlice": 4,
"model": "tpu-v6e-slice", "topology": "4x4", "memoryTotal": 34359738368, "address": "127.0.0.1"},
...]} ("memoryTotal" is optional, 32 GiB by default; "address", optional, a loopback address to listen
on, 127.0.0.1 by default; "status", optional, is the host's status from the start, as PUT
/hosts/<slice>/<worker> sets it below). Once every port listens, --ready gets (atomically) {"control":
"http://127.0.0.1:P", "hosts": [{"slice", "worker", "addr": "ADDRESS:P"}, ...]}.

/metrics of a host (what the real plugin serves, as Ray 2.60's reporter agent reads it):
  # HELP / # TYPE gauge lines, then for each metric one sample per chip, labelled
  accelerator_id="<uid>-<index>", make="cloud-tpu", model=..., tpu_topology=...
  - tensorcore_utilization, memory_bandwidth_utilization: host metrics, index = the LOCAL chip 0..N-1
  - duty_cycle, memory_used, memory_total: runtime metrics, index = worker * chips + local chip (slice-wide)
  <uid> is a decimal number without '-' (Ray splits accelerator_id at '-'), fixed per host: crc32 of
  "<slice>/<worker>". Percentages are 0..100, memory in bytes.

Default values (a known, deterministic pattern): number the chips g = 0, 1, 2, ... across the hosts in
config order (host by host, local chip by local chip). Then
  dutyCycle = 10 + g, tensorcoreUtilization = (10 + g) / 2, memoryBandwidthUtilization = (10 + g) / 4,
  memoryUsed = (g + 1) * 2^28 bytes, memoryTotal = the host's memoryTotal.
So every chip of the harness's fleet has its own duty cycle (10 %, 11 %, ...).

Control port (127.0.0.1 only; bodies are JSON, at most 64 KiB):
  GET    /state                                everything: per host its address, status, scrape count
                                               (and per User-Agent: Ray's requests say python-requests/..,
                                               Prometheus's Prometheus/..), last scrape time (Unix
                                               seconds), and per chip its values (null = omitted; a
                                               deleted chip is null as a whole)
  PUT    /hosts/<slice>/<worker>/chips/<i>     set some of dutyCycle, tensorcoreUtilization,
                                               memoryBandwidthUtilization, memoryUsed, memoryTotal; a
                                               number sets the value, null drops that one series; the
                                               chip reports again if it was deleted
  DELETE /hosts/<slice>/<worker>/chips/<i>     the chip reports nothing at all (every series dropped)
  PUT    /hosts/<slice>/<worker>               {"status": 200 | 4xx | 5xx | 0}: /metrics answers with
                                               that status (an error text body), 0 = close the
                                               connection without an answer (Ray then stops asking)
  POST   /reset                                every host and chip back to the defaults (status 200)
Errors are 4xx with {"error": "..."} naming what was wrong. A change shows on /metrics at once.

Bounded: at most 64 hosts of at most 16 chips. Quiet: no request log. It exits on SIGTERM/SIGINT, and by
itself once no other process of its session is left (ray-harness.sh runs it in the cluster's session).
"""

import argparse
import http.server
import json
import math
import os
import signal
import sys
import threading
import time
import zlib

MAX_HOSTS = 64
MAX_CHIPS = 16
MAX_BODY = 64 * 1024
GIB = 1 << 30
FIELDS = ("dutyCycle", "tensorcoreUtilization", "memoryBandwidthUtilization", "memoryUsed", "memoryTotal")
BYTE_FIELDS = ("memoryUsed", "memoryTotal")

# metric name, help text, the chip field it shows, host (local index) or runtime (slice-wide) metric
METRICS = (
    ("duty_cycle", "Percent of time the TensorCores were busy over the sample period.", "dutyCycle", False),
    ("memory_used", "High bandwidth memory used, in bytes.", "memoryUsed", False),
    ("memory_total", "High bandwidth memory available, in bytes.", "memoryTotal", False),
    ("tensorcore_utilization", "TensorCore utilization, in percent.", "tensorcoreUtilization", True),
    ("memory_bandwidth_utilization", "High bandwidth memory bandwidth utilization, in percent.",
     "memoryBandwidthUtilization", True),
)


class ConfigError(Exception):
    pass


class Host:
    def __init__(self, spec, first_chip):
        try:
            self.slice = str(spec["slice"])
            self.worker = int(spec["worker"])
            self.chips = int(spec["chips"])
            self.model = str(spec["model"])
            self.topology = str(spec["topology"])
            self.memory_total = int(spec.get("memoryTotal", 32 * GIB))
            self.address = str(spec.get("address", "127.0.0.1"))
            start_status = int(spec.get("status", 200))
        except (KeyError, TypeError, ValueError) as e:
            raise ConfigError(f"host {spec!r}: {e}") from None
        if not self.slice or "/" in self.slice or self.worker < 0:
            raise ConfigError(f"host {spec!r}: bad slice name or worker id")
        if not self.address.startswith("127."):
            raise ConfigError(f"host {self.slice}/{self.worker}: address {self.address} is not a loopback address")
        if not 1 <= self.chips <= MAX_CHIPS:
            raise ConfigError(f"host {self.slice}/{self.worker}: {self.chips} chips (1..{MAX_CHIPS})")
        self.first_chip = first_chip
        self.uid = str(zlib.crc32(f"{self.slice}/{self.worker}".encode()))
        self.addr = None
        self.scrapes = 0
        self.last_scrape = None
        self.scrapes_by_agent = {}  # User-Agent -> count: tells Ray's scrapes from Prometheus's
        self.reset()
        if not (start_status == 0 or 200 <= start_status <= 599):
            raise ConfigError(f"host {self.slice}/{self.worker}: status {start_status} (0 or 200..599)")
        self.status = start_status

    def reset(self):
        self.status = 200
        self.values = []  # per local chip: dict field -> number or None (omitted); None = chip deleted
        for i in range(self.chips):
            g = self.first_chip + i
            self.values.append({
                "dutyCycle": float(10 + g),
                "tensorcoreUtilization": (10 + g) / 2,
                "memoryBandwidthUtilization": (10 + g) / 4,
                "memoryUsed": (g + 1) << 28,
                "memoryTotal": self.memory_total,
            })

    def metrics_text(self):
        lines = []
        for name, help_text, field, host_metric in METRICS:
            lines.append(f"# HELP {name} {help_text}")
            lines.append(f"# TYPE {name} gauge")
            for i, chip in enumerate(self.values):
                if chip is None or chip[field] is None:
                    continue
                index = i if host_metric else self.worker * self.chips + i
                value = chip[field]
                shown = str(int(value)) if field in BYTE_FIELDS else repr(float(value))
                lines.append(f'{name}{{accelerator_id="{self.uid}-{index}",make="cloud-tpu",'
                             f'model="{self.model}",tpu_topology="{self.topology}"}} {shown}')
        return "\n".join(lines) + "\n"

    def state(self):
        return {
            "slice": self.slice, "worker": self.worker, "addr": self.addr, "uid": self.uid,
            "model": self.model, "topology": self.topology, "status": self.status,
            "scrapes": self.scrapes, "lastScrape": self.last_scrape, "scrapesByUserAgent": dict(self.scrapes_by_agent),
            "chips": [None if c is None else dict(c, index=i, sliceIndex=self.worker * self.chips + i)
                      for i, c in enumerate(self.values)],
        }


class Plugin:
    def __init__(self, hosts):
        self.lock = threading.Lock()
        self.hosts = hosts
        self.by_key = {(h.slice, h.worker): h for h in hosts}

    def find(self, slice_name, worker):
        try:
            return self.by_key[(slice_name, int(worker))]
        except (KeyError, ValueError):
            raise RequestError(404, f"no host {slice_name}/{worker}") from None


class RequestError(Exception):
    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


def parse_chip_values(body):
    if not isinstance(body, dict) or not body:
        raise RequestError(400, "the body must be a JSON object with some of " + ", ".join(FIELDS))
    out = {}
    for key, value in body.items():
        if key not in FIELDS:
            raise RequestError(400, f"unknown field {key!r} (known: {', '.join(FIELDS)})")
        if value is None:
            out[key] = None
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            raise RequestError(400, f"{key}: {value!r} is not a finite number >= 0")
        if key in BYTE_FIELDS:
            if value != int(value):
                raise RequestError(400, f"{key}: {value!r} is not a whole number of bytes")
            out[key] = int(value)
        else:
            if value > 100:
                raise RequestError(400, f"{key}: {value!r} is over 100 (percent)")
            out[key] = float(value)
    return out


class Quiet(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-tpu-device-plugin"
    sys_version = ""

    def log_message(self, *args):
        pass

    def send(self, status, body, content_type):
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)


class MetricsHandler(Quiet):
    host = None  # set per server class
    plugin = None

    def do_GET(self):
        if self.path.split("?", 1)[0] != "/metrics":
            self.send(404, "not found\n", "text/plain")
            return
        with self.plugin.lock:
            self.host.scrapes += 1
            self.host.last_scrape = time.time()
            agent = self.headers.get("User-Agent", "")[:80]
            if agent in self.host.scrapes_by_agent or len(self.host.scrapes_by_agent) < 8:
                self.host.scrapes_by_agent[agent] = self.host.scrapes_by_agent.get(agent, 0) + 1
            status = self.host.status
            text = self.host.metrics_text() if status == 200 else f"fake device plugin: scripted status {status}\n"
        if status == 0:
            self.close_connection = True
            self.connection.close()
            return
        self.send(status, text, "text/plain; version=0.0.4; charset=utf-8")


class ControlHandler(Quiet):
    plugin = None

    def reply(self, status, obj):
        self.send(status, json.dumps(obj) + "\n", "application/json")

    def body(self):
        try:
            length = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            raise RequestError(400, "bad Content-Length") from None
        if length > MAX_BODY:
            raise RequestError(413, f"body over {MAX_BODY} bytes")
        raw = self.rfile.read(length) if length > 0 else b""
        try:
            return json.loads(raw or b"null")
        except ValueError as e:
            raise RequestError(400, f"the body is not JSON: {e}") from None

    def handle_one(self):
        parts = [p for p in self.path.split("?", 1)[0].split("/") if p]
        p = self.plugin
        if self.command == "GET" and parts == ["state"]:
            with p.lock:
                return 200, {"hosts": [h.state() for h in p.hosts]}
        if self.command == "POST" and parts == ["reset"]:
            self.body()
            with p.lock:
                for h in p.hosts:
                    h.reset()
            return 200, {"reset": len(p.hosts)}
        if len(parts) == 3 and parts[0] == "hosts" and self.command == "PUT":
            body = self.body()
            if not isinstance(body, dict) or set(body) != {"status"}:
                raise RequestError(400, 'the body must be {"status": N}')
            status = body["status"]
            if isinstance(status, bool) or not isinstance(status, int) or not (status == 0 or 200 <= status <= 599):
                raise RequestError(400, f"status {status!r}: 0 or an HTTP status 200..599")
            with p.lock:
                host = p.find(parts[1], parts[2])
                host.status = status
                return 200, host.state()
        if len(parts) == 5 and parts[0] == "hosts" and parts[3] == "chips" and self.command in ("PUT", "DELETE"):
            values = parse_chip_values(self.body()) if self.command == "PUT" else None
            with p.lock:
                host = p.find(parts[1], parts[2])
                try:
                    i = int(parts[4])
                except ValueError:
                    i = -1
                if not 0 <= i < host.chips:
                    raise RequestError(404, f"host {host.slice}/{host.worker} has chips 0..{host.chips - 1}, not {parts[4]}")
                if values is None:
                    host.values[i] = None
                else:
                    if host.values[i] is None:
                        host.values[i] = {f: None for f in FIELDS}
                    host.values[i].update(values)
                return 200, host.state()
        raise RequestError(404, f"no such control request: {self.command} {self.path}")

    def dispatch(self):
        try:
            status, obj = self.handle_one()
        except RequestError as e:
            status, obj = e.status, {"error": str(e)}
        self.reply(status, obj)

    do_GET = do_PUT = do_POST = do_DELETE = dispatch


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 16


def serve(handler, address="127.0.0.1"):
    server = Server((address, 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def others_in_session():
    sid = os.getsid(0)
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        # fields[0] is the state, fields[3] the session id; zombies are gone already
        if fields[0] != "Z" and int(fields[3]) == sid:
            return True
    return False


def main():
    ap = argparse.ArgumentParser(description="fake GKE TPU device plugin (see the module's docstring)")
    ap.add_argument("--config", required=True)
    ap.add_argument("--ready", required=True)
    ap.add_argument("--exit-with-session", action="store_true",
                    help="exit once no other process of this session is left")
    args = ap.parse_args()
    try:
        with open(args.config) as f:
            config = json.load(f)
        specs = config["hosts"]
        if not isinstance(specs, list) or not 1 <= len(specs) <= MAX_HOSTS:
            raise ConfigError(f"'hosts' must be a list of 1..{MAX_HOSTS} hosts")
        hosts, g = [], 0
        for spec in specs:
            h = Host(spec, g)
            g += h.chips
            hosts.append(h)
        if len({(h.slice, h.worker) for h in hosts}) != len(hosts):
            raise ConfigError("a slice/worker appears twice")
    except (OSError, ValueError, KeyError, TypeError, ConfigError) as e:
        sys.exit(f"fake_device_plugin: bad config {args.config}: {e}")

    plugin = Plugin(hosts)
    for h in hosts:
        handler = type("Metrics", (MetricsHandler,), {"host": h, "plugin": plugin})
        h.addr = "%s:%d" % (h.address, serve(handler, h.address).server_address[1])
    control = serve(type("Control", (ControlHandler,), {"plugin": plugin}))
    ready = {"control": "http://127.0.0.1:%d" % control.server_address[1],
             "hosts": [{"slice": h.slice, "worker": h.worker, "addr": h.addr} for h in hosts]}
    tmp = args.ready + ".tmp"
    with open(tmp, "w") as f:
        json.dump(ready, f)
    os.replace(tmp, args.ready)

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    alone = 0
    while not stop.wait(2.0):
        if args.exit_with_session:
            alone = alone + 1 if not others_in_session() else 0
            if alone >= 2:
                break


if __name__ == "__main__":
    main()
