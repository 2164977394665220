#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A real Ray cluster on 127.0.0.1 that looks like a TPU fleet (docs/facts.md 2.3), for the integration tier.
#
#   tests/integration/ray-harness.sh up DIR     start it; writes DIR/dashboard-url, DIR/token, DIR/gcs-address,
#                                               DIR/device-plugin-url, DIR/device-plugin-targets, DIR/metrics-targets
#   tests/integration/ray-harness.sh down DIR   stop everything `up` started, remove its files
#
# The fleet (tests/integration/tst_ray_live.cpp expects exactly this):
#   tpu-v6e-4x4-0, tpu-v6e-4x4-1   v6e 4x4, 4 hosts of 4 chips each (pod type v6e-16)
#   tpu-v4-2x2x2-0                 v4 2x2x2, 2 hosts of 4 chips (pod type v4-16: v4 counts TensorCores)
#   tpu-v6e-2x4-0                  v6e 2x4, one host of 8 chips (pod type v6e-8)
# plus a head without TPUs: 12 raylets. Each TPU host is a real raylet told it has TPUs; Ray does no
# device check when the count is given, and all four TPU_* variables keep it from asking a cloud
# metadata server.
#
# Chip activity: every TPU host has its own fake GKE TPU device plugin (fake_device_plugin.py, one
# process serving each host on its own 127.0.0.1 port), and its raylet gets TPU_DEVICE_PLUGIN_ADDR, so
# Ray's own reporter agent scrapes it every 5 s. Ray reads that variable once and stops asking after
# the first failed connection, so the plugin listens before the first raylet starts. Tests script the
# values through the control URL in DIR/device-plugin-url (fake_device_plugin.py documents the requests
# and the default values: chip g of the fleet, counted host by host, has duty cycle 10 + g %).
#   DIR/device-plugin-targets   one line per TPU host: "127.0.0.1:PORT SLICE WORKER" (its /metrics)
#   DIR/metrics-targets         one line per Ray node: "ADDRESS:PORT SLICE WORKER", the node's metrics
#                               export port (Prometheus text, ray_tpu_* among it); the head has "- -"
# With SLICESCOPE_RAY_DISTINCT_IPS=1 the hosts of tpu-v6e-4x4-1 have addresses of their own,
# 127.0.0.2 to 127.0.0.5 (see host_ip); each host's fake device plugin listens on its host's address
# (as GKE's listens on HOST_IP:2112).
# SLICESCOPE_RAY_PLUGIN_START_STATUS="SLICE/WORKER=STATUS ..." makes those hosts' plugins answer STATUS
# (an HTTP status, or 0: drop the connection) from the very start, before Ray first asks.
#
# Every other address is 127.0.0.1: Ray would swap a loopback address for the machine's interface
# address, which slicescope_ray_loopback.py prevents (see there).
#
# Token auth is on (Ray 2.59+ turns it on by default for local clusters, so SliceScope must cope
# with it anyway): a fresh random token goes to DIR/token and to every Ray process as RAY_AUTH_TOKEN.
#
# Every Ray process runs in one session (setsid); `down` signals that session's processes by id,
# never with `ray stop`, which would kill every Ray process on the machine. Nothing is written
# outside DIR except Ray's temp folders, under a short /tmp path (Unix socket paths must stay under
# 108 bytes), which `down` removes too.
#
# Environment: SLICESCOPE_RAY_FLEET (full, or small: see below), SLICESCOPE_RAY_TOKEN_FROM (a file
# whose token to use instead of a fresh one), SLICESCOPE_RAY_VENV (default: what ray-env.sh prints), SLICESCOPE_RAY_UP_TIMEOUT
# (seconds to wait, once every `ray start` has returned, for the dashboard to list every node ALIVE
# with its TPU labels; default 300), SLICESCOPE_RAY_START_PARALLEL (TPU hosts started at once, 3).
#
# Cost on the 2-core, 24 GB machine: `up` ~25 s when the machine is idle (47 to 155 s measured with
# other builds and harnesses running; ~75 CPU-seconds), `down` ~10 s, 53 processes (52 of Ray, the
# fake device plugin), ~4.1 GB resident, ~25 % of a core when idle. Metrics collection (on since the
# Prometheus harness needs it) costs ~35 MB and no measurable idle CPU; Prometheus scraping every
# node every 2 s costs the agents ~18 % of a core more.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
log() { echo "ray-harness: $*" >&2; }
die() { log "$*"; exit 1; }
usage() { die "usage: ray-harness.sh up DIR | down DIR"; }

[ $# -eq 2 ] || usage
cmd="$1"
mkdir -p "$2"
dir="$(cd "$2" && pwd)"

# slice name, pod type, topology, hosts, chips per host
fleet=(
  "tpu-v6e-4x4-0 v6e-16 4x4 4 4"
  "tpu-v6e-4x4-1 v6e-16 4x4 4 4"
  "tpu-v4-2x2x2-0 v4-16 2x2x2 2 4"
  "tpu-v6e-2x4-0 v6e-8 2x4 1 8"
)
# SLICESCOPE_RAY_FLEET=small: a second, cheap Ray (the fleet tests' other RayCluster, issue 16): the
# head and the one-host tpu-v6e-2x4-0, 3 processes of Ray's per node as above.
if [ "${SLICESCOPE_RAY_FLEET:-full}" = small ]; then
  fleet=("tpu-v6e-2x4-0 v6e-8 2x4 1 8")
fi
nodes=1 # the head
for entry in "${fleet[@]}"; do read -r _ _ _ hosts _ <<< "$entry"; nodes=$((nodes + hosts)); done

# The session is named by its id and this boot's id: after a reboot the same number may be another
# session, which must never be signalled.
boot_id() { cat /proc/sys/kernel/random/boot_id 2>/dev/null || echo unknown; }
session_pids() {
  local sid boot
  [ -f "$dir/session-id" ] || return 0
  read -r sid boot < "$dir/session-id" || true
  [ -n "$sid" ] && [ "$boot" = "$(boot_id)" ] || return 0
  # Zombies are skipped: they are already dead and only wait for their parent to reap them.
  ps -e -o pid=,sid=,stat= | awk -v sid="$sid" -v self=$$ '$2 == sid && $1 != self && $3 !~ /^Z/ { print $1 }'
}

down() {
  local pids left i tmp
  pids="$(session_pids)"
  if [ -n "$pids" ]; then
    # SIGTERM first, so raylets can tell the GCS they go; the GCS and the autoscaler monitor
    # ignore it while raylets are around, and nothing here needs a graceful end: after 8 s, SIGKILL.
    log "stopping $(echo "$pids" | wc -w) Ray processes"
    # shellcheck disable=SC2086
    kill -TERM $pids 2>/dev/null || true
    for i in $(seq 1 40); do
      [ -z "$(session_pids)" ] && break
      sleep 0.2
    done
    left="$(session_pids)"
    if [ -n "$left" ]; then
      # shellcheck disable=SC2086
      kill -KILL $left 2>/dev/null || true
      for i in $(seq 1 25); do
        [ -z "$(session_pids)" ] && break
        sleep 0.2
      done
    fi
    left="$(session_pids)"
    [ -z "$left" ] || log "WARNING: Ray processes $left survived SIGKILL"
  fi
  tmp="$(cat "$dir/temp-dir" 2>/dev/null || true)"
  case "$tmp" in /tmp/slicescope-ray.*) rm -rf "$tmp" ;; esac
  rm -f "$dir/session-id" "$dir/temp-dir" "$dir/dashboard-url" "$dir/token" "$dir/gcs-address"
  rm -f "$dir/device-plugin-url" "$dir/device-plugin-targets" "$dir/metrics-targets" \
    "$dir/device-plugin.json" "$dir/device-plugin-ready.json"
  rm -rf "$dir/home"
}

# Every node has 127.0.0.1, unless SLICESCOPE_RAY_DISTINCT_IPS=1: then host w of $distinct_slice has
# 127.0.0.(2 + w), so its `ip` differs as on real hosts (slicescope_ray_loopback.py keeps its Python
# agents on that address). Off by default: for a node address other than 127.0.0.1 Ray's raylet (C++,
# beyond the hook's reach) listens on every interface (its node manager and object manager ports).
distinct_slice="tpu-v6e-4x4-1"
host_ip() {
  if [ "${SLICESCOPE_RAY_DISTINCT_IPS:-0}" = 1 ] && [ "$1" = "$distinct_slice" ]; then
    echo "127.0.0.$((2 + $2))"
  else
    echo 127.0.0.1
  fi
}

# The ports of node N (0 = head) in the block `up` found free: six fixed ports, 30 for workers, on
# address $2 (default 127.0.0.1).
# Each node has its own temp folder: in a shared one, nodes starting together race for the same
# log and socket names (raylet.1.out...), and raylets abort.
node_ports() {
  local b=$((HARNESS_PORT_BASE + $1 * 40))
  echo "--node-ip-address=${2:-127.0.0.1} --node-manager-port=$b --object-manager-port=$((b + 1))" \
       "--runtime-env-agent-port=$((b + 2)) --dashboard-agent-grpc-port=$((b + 3))" \
       "--dashboard-agent-listen-port=$((b + 4)) --metrics-export-port=$((b + 5))" \
       "--min-worker-port=$((b + 10)) --max-worker-port=$((b + 39))" \
       "--object-store-memory=80000000 --temp-dir=$HARNESS_TMP/n$1 --disable-usage-stats"
}

# Runs as `ray-harness.sh _start DIR` under setsid, so every process `ray start` leaves behind
# belongs to this one session. Ports, token and paths come from `up` through the environment.
start_nodes() {
  echo "$(ps -o sid= -p $$ | tr -d ' ') $(boot_id)" > "$dir/session-id"
  start_device_plugin || return 1
  # shellcheck disable=SC2046
  if ! "$HARNESS_RAY" start --head --port="$HARNESS_GCS_PORT" --ray-client-server-port="$HARNESS_CLIENT_PORT" \
      --include-dashboard=true --dashboard-host=127.0.0.1 --dashboard-port="$HARNESS_DASHBOARD_PORT" \
      --num-cpus=1 $(node_ports 0) > "$dir/logs/head.log" 2>&1; then
    log "ray start --head failed:"; tail -5 "$dir/logs/head.log" >&2; return 1
  fi
  # The TPU hosts start a few at a time: each node starts three Python processes that take seconds
  # of CPU to import, and a raylet whose agent is not up within 30 s aborts. On 2 cores, 11 at once
  # starve each other; 3 at a time does not.
  local batch="${SLICESCOPE_RAY_START_PARALLEL:-3}"
  local pids=() names=() node=1 entry name podtype topology hosts chips w i
  launch() {
    local ip
    ip="$(host_ip "$1" "$2")"
    # shellcheck disable=SC2046
    TPU_NAME="$1" TPU_WORKER_ID="$2" TPU_ACCELERATOR_TYPE="$3" TPU_TOPOLOGY="$4" \
      TPU_DEVICE_PLUGIN_ADDR="${plugin_addr[$1/$2]}" SLICESCOPE_RAY_NODE_IP="$ip" \
      "$HARNESS_RAY" start --address="127.0.0.1:$HARNESS_GCS_PORT" \
      --num-cpus=1 --resources="{\"TPU\": $5}" --include-log-monitor=false \
      $(node_ports "$node" "$ip") > "$dir/logs/$1-$2.log" 2>&1 &
    pids+=($!)
    names+=("$1-$2")
  }
  drain() {
    local failed=0
    for i in "${!pids[@]}"; do
      if ! wait "${pids[$i]}"; then
        log "ray start for ${names[$i]} failed:"; tail -n 1 "$dir/logs/${names[$i]}.log" >&2; failed=1
      fi
    done
    pids=(); names=()
    return $failed
  }
  for entry in "${fleet[@]}"; do
    read -r name podtype topology hosts chips <<< "$entry"
    for ((w = 0; w < hosts; w++)); do
      launch "$name" "$w" "$podtype" "$topology" "$chips"
      node=$((node + 1))
      if [ "${#pids[@]}" -ge "$batch" ]; then drain || return 1; fi
    done
  done
  drain || return 1
  return 0
}

# The fake device plugin, in this session (so `down` stops it with the rest, and it exits by itself
# once the session is gone), listening before any raylet starts. Fills plugin_addr[SLICE/WORKER].
declare -A plugin_addr
start_device_plugin() {
  local ready="$dir/device-plugin-ready.json" pid i line
  rm -f "$ready"
  "$HARNESS_PYTHON" "$here/fake_device_plugin.py" --config "$dir/device-plugin.json" --ready "$ready" \
    --exit-with-session > "$dir/logs/device-plugin.log" 2>&1 < /dev/null &
  pid=$!
  for i in $(seq 1 100); do
    [ -f "$ready" ] && break
    if ! kill -0 "$pid" 2>/dev/null; then
      log "the fake device plugin failed:"; tail -5 "$dir/logs/device-plugin.log" >&2; return 1
    fi
    sleep 0.1
  done
  [ -f "$ready" ] || { log "the fake device plugin was not ready after 10 s"; return 1; }
  while read -r line; do
    plugin_addr["${line%% *}"]="${line#* }"
  done < <("$HARNESS_PYTHON" -c '
import json, sys
for h in json.load(open(sys.argv[1]))["hosts"]:
    print("%s/%d %s" % (h["slice"], h["worker"], h["addr"]))' "$ready")
}

case "$cmd" in
  down) down; log "down"; exit 0 ;;
  _start) start_nodes; exit $? ;;
  up) ;;
  *) usage ;;
esac

if [ -n "$(session_pids)" ]; then
  die "a cluster from an earlier 'up' is still running in $dir: run 'ray-harness.sh down $dir' first"
fi

venv="${SLICESCOPE_RAY_VENV:-$("$here/ray-env.sh")}"
export HARNESS_RAY="$venv/bin/ray"
python="$venv/bin/python"
export HARNESS_PYTHON="$python"
[ -x "$HARNESS_RAY" ] || die "no ray in $venv (run tests/integration/ray-env.sh)"

# The loopback hook (slicescope_ray_loopback.py says why), installed into the venv each time so an
# edited hook takes effect; it does nothing unless SLICESCOPE_RAY_LOOPBACK=1.
site="$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
cp "$here/slicescope_ray_loopback.py" "$site/slicescope_ray_loopback.py"
echo "import slicescope_ray_loopback" > "$site/slicescope_ray_loopback.pth"

t0=$(date +%s%N)
rm -rf "$dir/logs"
mkdir -p "$dir/home" "$dir/logs"
HARNESS_TMP="$(mktemp -d /tmp/slicescope-ray.XXXXXX)"
echo "$HARNESS_TMP" > "$dir/temp-dir"
export HARNESS_TMP

# From here on, a failure stops what has started: a half-up cluster helps nobody.
on_exit() {
  local rc=$?
  if [ $rc -ne 0 ]; then
    # Keep Ray's own logs for the post-mortem before the temp folder goes.
    local n
    for n in "$HARNESS_TMP"/n*; do
      [ -d "$n/session_latest/logs" ] && cp -r "$n/session_latest/logs" "$dir/logs/ray-${n##*/}"
    done
    log "up failed; stopping what started (logs in $dir/logs)"
    down
  fi
}
trap on_exit EXIT

# A block of free ports below the ephemeral range (so no outgoing connection takes one meanwhile).
HARNESS_PORT_BASE="$("$python" - "$nodes" <<'EOF'
import random, socket, sys
need = int(sys.argv[1]) * 40 + 3
def free(port):
    for addr in ("127.0.0.1", "0.0.0.0"):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind((addr, port))
            except OSError:
                return False
    return True
rng = random.Random()
for _ in range(200):
    base = rng.randrange(20000, 32000 - need)
    if all(free(p) for p in range(base, base + need)):
        print(base)
        sys.exit(0)
sys.exit("no free block of %d ports between 20000 and 32000" % need)
EOF
)"
export HARNESS_PORT_BASE
export HARNESS_GCS_PORT=$((HARNESS_PORT_BASE + nodes * 40))
export HARNESS_DASHBOARD_PORT=$((HARNESS_GCS_PORT + 1))
export HARNESS_CLIENT_PORT=$((HARNESS_GCS_PORT + 2))
url="http://127.0.0.1:$HARNESS_DASHBOARD_PORT"

# SLICESCOPE_RAY_TOKEN_FROM=FILE: that token instead of a fresh one (a second Ray of the fleet
# tests, reached with the first one's token, as clusters that share a token Secret are).
if [ -n "${SLICESCOPE_RAY_TOKEN_FROM:-}" ]; then
  token="$(cat "$SLICESCOPE_RAY_TOKEN_FROM")"
  [ -n "$token" ] || die "SLICESCOPE_RAY_TOKEN_FROM=$SLICESCOPE_RAY_TOKEN_FROM holds no token"
else
  token="$("$python" -c 'import secrets; print(secrets.token_hex(32))')"
fi
( umask 077; printf '%s' "$token" > "$dir/token" )

# What every Ray process shares: an explicit auth mode (never Ray's default), the token, no usage
# report, and fewer background threads and processes on a 2-core machine.
export RAY_AUTH_MODE=token RAY_AUTH_TOKEN="$token"
export HOME="$dir/home" # keeps Ray away from the user's ~/.ray
export RAY_USAGE_STATS_ENABLED=0 RAY_event_stats=0
# Metrics collection feeds each node's metrics export port (the ray_tpu_* gauges prom-harness.sh
# scrapes); SLICESCOPE_RAY_METRICS=0 turns it off.
export RAY_enable_metrics_collection="${SLICESCOPE_RAY_METRICS:-1}"
export RAY_enable_worker_prestart=0 RAY_prestart_worker_first_driver=0 RAY_num_prestart_python_workers=0
export RAY_DISABLE_DOCKER_CPU_WARNING=1
export SLICESCOPE_RAY_LOOPBACK=1
export PATH="$venv/bin:$PATH" # job entrypoints ("python ...") run this Ray's Python
unset RAY_ADDRESS RAY_AUTH_TOKEN_PATH TPU_NAME TPU_WORKER_ID TPU_ACCELERATOR_TYPE TPU_TOPOLOGY

# The device plugin's hosts: GKE's accelerator name for the pod type's generation, the start statuses.
plugin_hosts=""
for entry in "${fleet[@]}"; do
  read -r name podtype topology hosts chips <<< "$entry"
  for ((w = 0; w < hosts; w++)); do
    plugin_hosts+="$name $w $podtype $topology $hosts $chips $(host_ip "$name" "$w")"$'\n'
  done
done
"$python" - "$dir/device-plugin.json" "$plugin_hosts" "${SLICESCOPE_RAY_PLUGIN_START_STATUS:-}" <<'EOF'
import json, sys
out, lines, statuses = sys.argv[1], sys.argv[2], sys.argv[3]
models = {"v4": "tpu-v4-podslice", "v5p": "tpu-v5p-slice", "v5litepod": "tpu-v5-lite-podslice", "v6e": "tpu-v6e-slice"}
start = {}
for item in statuses.split():
    key, _, status = item.partition("=")
    if not status.isdigit():
        sys.exit(f"ray-harness: SLICESCOPE_RAY_PLUGIN_START_STATUS: {item!r} is not SLICE/WORKER=STATUS")
    start[key] = int(status)
hosts = []
for line in lines.splitlines():
    name, worker, podtype, topology, n, chips, address = line.split()
    h = {"slice": name, "worker": int(worker), "chips": int(chips), "hostsInSlice": int(n),
         "model": models[podtype.split("-")[0]], "topology": topology, "address": address}
    if f"{name}/{worker}" in start:
        h["status"] = start.pop(f"{name}/{worker}")
    hosts.append(h)
if start:
    sys.exit("ray-harness: SLICESCOPE_RAY_PLUGIN_START_STATUS names no such host: " + ", ".join(start))
with open(out, "w") as f:
    json.dump({"hosts": hosts}, f, indent=1)
EOF

log "starting $nodes raylets (GCS 127.0.0.1:$HARNESS_GCS_PORT, dashboard $url)"
setsid -w bash "$0" _start "$dir" &
starter=$!
if ! wait "$starter"; then
  die "could not start the cluster"
fi
echo "127.0.0.1:$HARNESS_GCS_PORT" > "$dir/gcs-address"
node_ips=""
while read -r name w _; do
  if [ -n "$name" ]; then node_ips+="$(host_ip "$name" "$w") "; fi
done <<< "$plugin_hosts"
"$python" - "$dir" "$HARNESS_PORT_BASE" "$plugin_hosts" "$node_ips" <<'EOF'
import json, sys
d, base, lines, ips = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4].split()
with open(d + "/device-plugin-ready.json") as f:
    ready = json.load(f)
with open(d + "/device-plugin-targets", "w") as f:
    for h in ready["hosts"]:
        f.write("%s %s %d\n" % (h["addr"], h["slice"], h["worker"]))
# node n's metrics export port is node_ports' block + 5; the head is node 0, then the hosts in order
with open(d + "/metrics-targets", "w") as f:
    f.write("127.0.0.1:%d - -\n" % (base + 5))
    for n, (line, ip) in enumerate(zip(lines.splitlines(), ips), start=1):
        name, worker = line.split()[:2]
        f.write("%s:%d %s %s\n" % (ip, base + n * 40 + 5, name, worker))
with open(d + "/device-plugin-url", "w") as f:
    f.write(ready["control"] + "\n")
EOF

# Started is not joined: wait until the dashboard lists every node ALIVE with its TPU labels.
timeout="${SLICESCOPE_RAY_UP_TIMEOUT:-300}"
expected="$(printf '%s\n' "${fleet[@]}")"
if ! "$python" - "$url" "$token" "$timeout" "$nodes" "$expected" <<'EOF'
import json, sys, time, urllib.request
url, token, timeout, want, fleet = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
expected = {}
for line in fleet.splitlines():
    name, podtype, topology, hosts, chips = line.split()
    for w in range(int(hosts)):
        expected[(name, str(w))] = (podtype, topology)
deadline = time.monotonic() + timeout
last = "the dashboard did not answer"
while time.monotonic() < deadline:
    try:
        req = urllib.request.Request(url + "/api/v0/nodes?detail=true&limit=10000",
                                     headers={"Authorization": "Bearer " + token, "User-Agent": "slicescope-harness"})
        with urllib.request.urlopen(req, timeout=10) as r:
            items = json.load(r)["data"]["result"]["result"]
        alive = [n for n in items if n.get("state") == "ALIVE"]
        seen = {(n["labels"].get("ray.io/tpu-slice-name"), n["labels"].get("ray.io/tpu-worker-id")): n["labels"]
                for n in alive if "ray.io/tpu-slice-name" in n.get("labels", {})}
        missing = [f"{k[0]}/{k[1]}" for k in expected if k not in seen]
        wrong = [f"{k[0]}/{k[1]}" for k, (pt, topo) in expected.items()
                 if k in seen and (seen[k].get("ray.io/tpu-pod-type") != pt or seen[k].get("ray.io/tpu-topology") != topo)]
        if wrong:
            sys.exit("ray-harness: nodes with unexpected TPU labels: " + ", ".join(wrong))
        if len(alive) == want and not missing:
            sys.exit(0)
        last = f"{len(alive)} of {want} nodes ALIVE; missing TPU hosts: {', '.join(missing) or 'none'}"
    except Exception as e:  # the dashboard starts a little after the GCS
        last = f"{url}: {e}"
    time.sleep(1)
sys.exit(f"ray-harness: the cluster was not up after {timeout:.0f} s: {last}")
EOF
then
  die "giving up (logs in $dir/logs)"
fi
echo "$url" > "$dir/dashboard-url"
t1=$(date +%s%N)
log "up in $(( (t1 - t0) / 1000000 )) ms: $nodes nodes ALIVE, dashboard $url, token in $dir/token"
