#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A real Prometheus on 127.0.0.1 scraping the Ray harness (ray-harness.sh), for the integration tier.
#
#   tests/integration/prom-harness.sh up DIR RAY_DIR   start it; writes DIR/url (http://127.0.0.1:PORT)
#   tests/integration/prom-harness.sh down DIR          stop what `up` started, remove its files and data
#
# Debian's `prometheus` package (2.42 on Debian 12; installed with apt-get if missing, as ray-env.sh
# installs python3-venv; SLICESCOPE_PROMETHEUS names another binary). The config it writes
# (DIR/prometheus.yml) scrapes every 2 s (SLICESCOPE_PROM_SCRAPE_INTERVAL, in seconds):
#   job "ray"                every Ray node's metrics export port (RAY_DIR/metrics-targets), as an
#                            operator's config would: no labels added, so series carry Ray's own tags
#                            (ip, TpuIndex, ...) and Prometheus's job/instance
#   job "tpu-device-plugin"  every fake TPU host's device plugin (RAY_DIR/device-plugin-targets), with
#                            the labels GKE's scrape gives the TPU metrics of a workload: namespace
#                            "slicescope-harness" and pod "<slice>-worker-<worker>" (the Ray worker pod
#                            that would hold those chips)
# `up` waits until Prometheus has scraped every target once and answers /api/v1/query with
# ray_tpu_duty_cycle and duty_cycle series
# (SLICESCOPE_PROM_UP_TIMEOUT seconds, default 120). Storage is DIR/data, fresh on every `up`.
#
# Prometheus runs in its own session (setsid); `down` signals that session's processes by id only.
# Cost on the 2-core machine: `up` ~10 s once Ray is up, `down` < 1 s; Prometheus itself ~60 MB and
# ~2 % of a core, but its scrapes every 2 s cost the Ray nodes' agents ~18 % of a core more (Ray's
# whole harness: ~25 % of a core idle, ~43 % while scraped).
set -euo pipefail

log() { echo "prom-harness: $*" >&2; }
die() { log "$*"; exit 1; }
usage() { die "usage: prom-harness.sh up DIR RAY_DIR | down DIR"; }

[ $# -ge 2 ] || usage
cmd="$1"
mkdir -p "$2"
dir="$(cd "$2" && pwd)"

boot_id() { cat /proc/sys/kernel/random/boot_id 2>/dev/null || echo unknown; }
session_pids() {
  local sid boot
  [ -f "$dir/session-id" ] || return 0
  read -r sid boot < "$dir/session-id" || true
  [ -n "$sid" ] && [ "$boot" = "$(boot_id)" ] || return 0
  ps -e -o pid=,sid=,stat= | awk -v sid="$sid" -v self=$$ '$2 == sid && $1 != self && $3 !~ /^Z/ { print $1 }'
}

down() {
  local pids left i
  pids="$(session_pids)"
  if [ -n "$pids" ]; then
    # shellcheck disable=SC2086
    kill -TERM $pids 2>/dev/null || true
    for i in $(seq 1 50); do
      [ -z "$(session_pids)" ] && break
      sleep 0.2
    done
    left="$(session_pids)"
    if [ -n "$left" ]; then
      # shellcheck disable=SC2086
      kill -KILL $left 2>/dev/null || true
      sleep 0.5
    fi
    left="$(session_pids)"
    [ -z "$left" ] || log "WARNING: processes $left survived SIGKILL"
  fi
  rm -f "$dir/session-id" "$dir/url" "$dir/prometheus.yml"
  rm -rf "$dir/data"
}

case "$cmd" in
  down)
    [ $# -eq 2 ] || usage
    down; log "down"; exit 0 ;;
  _start)
    # Under setsid: record the session, then become Prometheus.
    echo "$(ps -o sid= -p $$ | tr -d ' ') $(boot_id)" > "$dir/session-id"
    exec "$PROM_BIN" --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data" \
      --web.listen-address="127.0.0.1:$PROM_PORT" --storage.tsdb.retention.time=1d \
      --log.level=warn --web.enable-lifecycle
    ;;
  up) [ $# -eq 3 ] || usage ;;
  *) usage ;;
esac

ray_dir="$(cd "$3" && pwd)" || die "no Ray harness directory $3"
for f in metrics-targets device-plugin-targets; do
  [ -s "$ray_dir/$f" ] || die "$ray_dir/$f is missing: is the Ray harness (ray-harness.sh up $ray_dir) up?"
done
if [ -n "$(session_pids)" ]; then
  die "a Prometheus from an earlier 'up' is still running in $dir: run 'prom-harness.sh down $dir' first"
fi

prom="${SLICESCOPE_PROMETHEUS:-$(command -v prometheus || true)}"
if [ -z "$prom" ]; then
  log "installing prometheus (Debian)"
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends prometheus >&2
  prom="$(command -v prometheus)"
fi
[ -x "$prom" ] || die "no prometheus binary at $prom"

t0=$(date +%s%N)
rm -rf "$dir/data" "$dir/logs"
mkdir -p "$dir/logs"

on_exit() {
  local rc=$?
  if [ $rc -ne 0 ]; then
    log "up failed; stopping what started (log in $dir/logs/prometheus.log)"
    down
  fi
}
trap on_exit EXIT

# A free port outside the ephemeral range and outside ray-harness.sh's 20000..32000.
port="$(python3 - <<'EOF'
import random, socket, sys
for _ in range(200):
    port = random.randrange(32100, 32700)
    try:
        with socket.socket() as s:
            s.bind(("127.0.0.1", port))
        print(port)
        sys.exit(0)
    except OSError:
        pass
sys.exit("no free port between 32100 and 32700")
EOF
)"
url="http://127.0.0.1:$port"

interval="${SLICESCOPE_PROM_SCRAPE_INTERVAL:-2}"
case "$interval" in ''|*[!0-9]*|0) die "SLICESCOPE_PROM_SCRAPE_INTERVAL=$interval: a whole number of seconds, 1 or more" ;; esac
python3 - "$ray_dir" "$dir/prometheus.yml" "$interval" <<'EOF'
import json, sys
ray_dir, out, interval = sys.argv[1], sys.argv[2], sys.argv[3] + "s"
def targets(name):
    with open(f"{ray_dir}/{name}") as f:
        return [line.split() for line in f if line.strip()]
ray = [t[0] for t in targets("metrics-targets")]
plugin = [{"targets": [addr], "labels": {"namespace": "slicescope-harness", "pod": f"{slice_}-worker-{worker}"}}
          for addr, slice_, worker in targets("device-plugin-targets")]
# JSON is YAML: no YAML library needed.
config = {
    "global": {"scrape_interval": interval, "scrape_timeout": interval, "evaluation_interval": interval},
    "scrape_configs": [
        {"job_name": "ray", "static_configs": [{"targets": ray}]},
        {"job_name": "tpu-device-plugin", "static_configs": plugin},
    ],
}
with open(out, "w") as f:
    json.dump(config, f, indent=1)
EOF

log "starting $prom on $url"
PROM_BIN="$prom" PROM_PORT="$port" setsid bash "$0" _start "$dir" > "$dir/logs/prometheus.log" 2>&1 < /dev/null &

timeout="${SLICESCOPE_PROM_UP_TIMEOUT:-120}"
if ! python3 - "$url" "$timeout" <<'EOF'
import json, sys, time, urllib.parse, urllib.request
url, timeout = sys.argv[1], float(sys.argv[2])
deadline = time.monotonic() + timeout
last = "Prometheus did not answer"
def query(q):
    with urllib.request.urlopen(url + "/api/v1/query?" + urllib.parse.urlencode({"query": q}), timeout=5) as r:
        return json.load(r)["data"]["result"]
while time.monotonic() < deadline:
    try:
        # every target scraped once (whatever the answer: a host may be scripted to fail), then the series
        with urllib.request.urlopen(url + "/api/v1/targets?state=active", timeout=5) as r:
            active = json.load(r)["data"]["activeTargets"]
        pending = [t["scrapeUrl"] for t in active if t["lastScrape"].startswith("0001-")]
        ray = len(query("ray_tpu_duty_cycle"))
        plugin = len(query('duty_cycle{job="tpu-device-plugin"}'))
        if active and not pending and ray and plugin:
            print(f"prom-harness: {ray} ray_tpu_duty_cycle and {plugin} duty_cycle series", file=sys.stderr)
            sys.exit(0)
        last = f"{len(pending)} of {len(active)} targets not scraped yet, {ray} ray_tpu_duty_cycle and {plugin} duty_cycle series so far"
    except Exception as e:
        last = f"{url}: {e}"
    time.sleep(1)
sys.exit(f"prom-harness: not up after {timeout:.0f} s: {last}")
EOF
then
  tail -5 "$dir/logs/prometheus.log" >&2 || true
  die "giving up"
fi
echo "$url" > "$dir/url"
log "up in $(( ($(date +%s%N) - t0) / 1000000 )) ms: $url"
