#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A real Kubernetes API server (and its etcd) on 127.0.0.1 serving the KubeRay RayCluster CRD, for the
# integration tier (FACTS.md 4.4). No scheduler, controller-manager or kubelet: tests create nodes and
# pods themselves, bind them and set their status (tests/common/kubefixture.h does it the way KubeRay
# and GKE would).
#
#   tests/integration/kube-harness.sh up DIR     start it; writes the files below into DIR
#   tests/integration/kube-harness.sh down DIR   stop what `up` started (idempotent; keeps DIR/logs)
#
# What `up` leaves in DIR (tests/common/kubeharness.h reads them):
#   server-url, ca.crt              https://127.0.0.1:PORT and the CA that signed its serving certificate
#   admin-token, viewer-token       bearer tokens: admin is in system:masters; viewer may only
#                                   get/list/watch (ClusterRole slicescope-viewer), never patch
#   kubeconfig                      context `harness`, user admin (token), namespace default
#   kubeconfig-viewer               the same with the viewer token
#   kubeconfig-cert                 client certificate + EC P-256 key as paths relative to DIR
#                                   (cert-admin.crt/.key, CN cert-admin, O system:masters)
#   kubeconfig-cert-rsa             client certificate + RSA key inline (*-data; CN cert-rsa, O system:masters)
#   kubeconfig-exec                 an exec credential plugin (./exec-plugin.sh, client.authentication.k8s.io/v1)
#                                   that hands out a token of exec-user (system:masters), valid one hour;
#                                   each run appends a line to exec-plugin.runs and writes the
#                                   KUBERNETES_EXEC_INFO it got to exec-plugin.info
#   logs/etcd.log, logs/kube-apiserver.log
#
# Every credential is fresh on each `up`. Keys are written in the formats real kubeconfigs carry
# (kubeadm, kind, GKE): "EC PRIVATE KEY" (SEC1) and "RSA PRIVATE KEY" (PKCS#1), not PKCS#8.
#
# Environment: SLICESCOPE_KUBE_ENV (the folder with bin/ and crd/; default: what kube-env.sh prints),
# SLICESCOPE_KUBE_UP_TIMEOUT (seconds to wait for /readyz and for the CRD; default 120).
#
# Cost on the 2-core machine (binaries built): `up` ~5 s (most of it the API server's post-start
# hooks), `down` ~1.3 s, 2 processes.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
log() { echo "kube-harness: $*" >&2; }
die() { log "$*"; exit 1; }
usage() { die "usage: kube-harness.sh up DIR | down DIR"; }

[ $# -eq 2 ] || usage
cmd="$1"
mkdir -p "$2"
dir="$(cd "$2" && pwd)"

# A process `up` started is named by DIR/NAME.pid: "pid boot-id". It is only signalled if it is still
# this boot's process and its command line names DIR (every flag we pass does), so a recycled pid
# is never hit.
boot_id() { cat /proc/sys/kernel/random/boot_id 2>/dev/null || echo unknown; }
alive_pid() {
  local name="$1" pid boot
  [ -f "$dir/$name.pid" ] || return 0
  read -r pid boot < "$dir/$name.pid" || true
  [ -n "${pid:-}" ] && [ "${boot:-}" = "$(boot_id)" ] || return 0
  [ -r "/proc/$pid/cmdline" ] || return 0
  # Zombies are dead already; they only wait for their parent.
  case "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" in Z|"") return 0 ;; esac
  tr '\0' ' ' < "/proc/$pid/cmdline" | grep -qF -- "$dir/" && echo "$pid"
  return 0
}

stop_one() {
  local name="$1" pid
  pid="$(alive_pid "$name")"
  if [ -n "$pid" ]; then
    log "stopping $name (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    # Both shut down in well under a second; 5 s is generous before SIGKILL.
    for _ in $(seq 1 25); do
      [ -z "$(alive_pid "$name")" ] && break
      sleep 0.2
    done
    if [ -n "$(alive_pid "$name")" ]; then
      log "$name ignored SIGTERM; SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      for _ in $(seq 1 25); do
        [ -z "$(alive_pid "$name")" ] && break
        sleep 0.2
      done
    fi
    [ -z "$(alive_pid "$name")" ] || log "WARNING: $name (pid $pid) survived SIGKILL"
  fi
  rm -f "$dir/$name.pid"
}

down() {
  # The API server first: it would only log etcd errors while etcd goes.
  stop_one kube-apiserver
  stop_one etcd
  # server-url is what says "up": without it no test mistakes a stopped harness for a live one.
  # etcd's data is worthless once stopped (every `up` starts empty).
  rm -f "$dir/server-url"
  rm -rf "$dir/etcd"
}

case "$cmd" in
  down) t0=$(date +%s%N); down; log "down in $(( ($(date +%s%N) - t0) / 1000000 )) ms"; exit 0 ;;
  up) ;;
  *) usage ;;
esac

if [ -n "$(alive_pid kube-apiserver)$(alive_pid etcd)" ]; then
  die "a harness from an earlier 'up' is still running in $dir: run 'kube-harness.sh down $dir' first"
fi
for tool in openssl curl python3 base64 setsid; do
  command -v "$tool" >/dev/null 2>&1 || die "needs $tool on PATH"
done

env_dir="${SLICESCOPE_KUBE_ENV:-$("$here/kube-env.sh")}"
apiserver="$env_dir/bin/kube-apiserver"
etcd="$env_dir/bin/etcd"
crd="$env_dir/crd/ray.io_rayclusters.yaml"
if [ ! -x "$apiserver" ] || [ ! -x "$etcd" ] || [ ! -f "$crd" ]; then
  die "no kube-apiserver, etcd or CRD in $env_dir (run tests/integration/kube-env.sh)"
fi
timeout="${SLICESCOPE_KUBE_UP_TIMEOUT:-120}"

t0=$(date +%s%N)
rm -rf "$dir/logs" "$dir/etcd" "$dir/pki"
rm -f "$dir/exec-plugin.runs" "$dir/exec-plugin.info"
mkdir -p "$dir/logs" "$dir/pki"

# From here on, a failure stops what has started: a half-up harness helps nobody.
on_exit() {
  local rc=$?
  if [ $rc -ne 0 ]; then
    log "up failed; stopping what started (logs in $dir/logs)"
    down
  fi
}
trap on_exit EXIT

# --- certificates and keys -------------------------------------------------------------------------
# Short-lived (2 days): nothing outlives a test run. The server's certificate names 127.0.0.1 and
# localhost, which is what a client verifies against (never the CN).
pki="$dir/pki"
ssl() { openssl "$@" 2>>"$dir/logs/openssl.log"; }
ec_key() { ssl ecparam -name prime256v1 -genkey -noout -out "$1"; }
rsa_key() { ssl genrsa -traditional -out "$1" 2048; }
make_ca() { # KEY CRT CN
  ec_key "$1"
  ssl req -x509 -new -key "$1" -out "$2" -days 2 -subj "/CN=$3" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
}
sign() { # CSR-KEY CRT SUBJECT CA-NAME EXTENSIONS
  ssl req -new -key "$1" -subj "$3" \
    | ssl x509 -req -CA "$pki/$4.crt" -CAkey "$pki/$4.key" -CAcreateserial -CAserial "$pki/$4.srl" \
        -days 2 -out "$2" -extfile <(printf '%s\n' "$5")
}
umask 077
make_ca "$pki/server-ca.key" "$pki/server-ca.crt" "slicescope-harness-server-ca"
make_ca "$pki/client-ca.key" "$pki/client-ca.crt" "slicescope-harness-client-ca"
ec_key "$pki/serving.key"
sign "$pki/serving.key" "$pki/serving.crt" "/CN=kube-apiserver" server-ca \
  "basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=IP:127.0.0.1,DNS:localhost"
client_ext="basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=clientAuth"
ec_key "$dir/cert-admin.key"
sign "$dir/cert-admin.key" "$dir/cert-admin.crt" "/O=system:masters/CN=cert-admin" client-ca "$client_ext"
rsa_key "$dir/cert-rsa.key"
sign "$dir/cert-rsa.key" "$dir/cert-rsa.crt" "/O=system:masters/CN=cert-rsa" client-ca "$client_ext"
# The service-account token signer: the API server refuses to start without one.
rsa_key "$pki/sa.key"
ssl rsa -in "$pki/sa.key" -pubout -out "$pki/sa.pub"
cp "$pki/server-ca.crt" "$dir/ca.crt"
chmod 644 "$dir/ca.crt"

# --- static tokens ---------------------------------------------------------------------------------
# token,user,uid,"groups": viewer has no group of its own, so RBAC alone decides what it may do.
admin_token="$(openssl rand -hex 16)"
viewer_token="$(openssl rand -hex 16)"
exec_token="$(openssl rand -hex 16)"
cat > "$pki/tokens.csv" <<EOF
$admin_token,admin,admin,"system:masters"
$viewer_token,viewer,viewer
$exec_token,exec-user,exec-user,"system:masters"
EOF
printf '%s' "$admin_token" > "$dir/admin-token"
printf '%s' "$viewer_token" > "$dir/viewer-token"
umask 022

# --- ports -----------------------------------------------------------------------------------------
# Three distinct free loopback ports, held open together while the kernel picks them. Another process
# could take one before etcd or the API server binds it; the wait below would then say so.
read -r etcd_port peer_port api_port < <(python3 - <<'EOF'
import socket
socks = []
for _ in range(3):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
EOF
)
server="https://127.0.0.1:$api_port"

# Each runs in its own session (setsid), so an interrupt aimed at the caller's terminal does not
# take it down half way through a test: `down` stops it. The pid is written from inside, before
# exec, so it is the server's own pid whatever setsid does.
launch() { # NAME BINARY ARGS...
  local name="$1"; shift
  # shellcheck disable=SC2016 # expanded by the inner bash, on purpose
  setsid bash -c 'echo "$$ $1" > "$2"; shift 2; exec "$@"' _ "$(boot_id)" "$dir/$name.pid" "$@" \
    < /dev/null > "$dir/logs/$name.log" 2>&1 &
  for _ in $(seq 1 50); do [ -s "$dir/$name.pid" ] && return 0; sleep 0.1; done
  die "$name did not start (see $dir/logs/$name.log)"
}
fail_with_log() { # NAME MESSAGE
  log "$2; the end of $dir/logs/$1.log:"
  tail -n 20 "$dir/logs/$1.log" >&2 || true
  exit 1
}

# --- etcd ------------------------------------------------------------------------------------------
# --unsafe-no-fsync: a throwaway store; fsync on every write is most of etcd's latency here.
log "starting etcd on 127.0.0.1:$etcd_port"
launch etcd "$etcd" --name harness --data-dir "$dir/etcd" \
  --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
  --listen-peer-urls "http://127.0.0.1:$peer_port" --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
  --initial-cluster "harness=http://127.0.0.1:$peer_port" \
  --unsafe-no-fsync --log-level warn
deadline=$((SECONDS + timeout))
until curl -sf -o /dev/null --max-time 2 "http://127.0.0.1:$etcd_port/health"; do
  [ -n "$(alive_pid etcd)" ] || fail_with_log etcd "etcd exited"
  [ $SECONDS -lt $deadline ] || fail_with_log etcd "etcd was not healthy after $timeout s"
  sleep 0.2
done

# --- kube-apiserver --------------------------------------------------------------------------------
# Envtest-style: loopback only, TLS with our CA, static tokens and client certificates, RBAC.
# The ServiceAccount admission plugin is off: no controller-manager creates the default service
# account, and without it every pod creation would be refused. v1.37 refuses a loopback
# --advertise-address while it maintains the `kubernetes` Service's endpoints ("may not be in the
# loopback range"); nothing here reaches the API server through that Service, so no reconciler.
log "starting kube-apiserver on $server"
launch kube-apiserver "$apiserver" \
  --etcd-servers "http://127.0.0.1:$etcd_port" \
  --secure-port "$api_port" --bind-address 127.0.0.1 --advertise-address 127.0.0.1 \
  --endpoint-reconciler-type none \
  --cert-dir "$pki" --tls-cert-file "$pki/serving.crt" --tls-private-key-file "$pki/serving.key" \
  --client-ca-file "$pki/client-ca.crt" --token-auth-file "$pki/tokens.csv" \
  --authorization-mode RBAC \
  --service-account-issuer https://kubernetes.default.svc.cluster.local \
  --service-account-key-file "$pki/sa.pub" --service-account-signing-key-file "$pki/sa.key" \
  --service-cluster-ip-range 10.0.0.0/24 \
  --disable-admission-plugins ServiceAccount \
  --allow-privileged=true

# kcurl METHOD PATH [curl args...]: the admin's request; prints the body, fails on an HTTP error.
kcurl() {
  local method="$1" path="$2"; shift 2
  curl -sS --fail-with-body --max-time 30 --cacert "$dir/ca.crt" -H "Authorization: Bearer $admin_token" \
    -X "$method" "$server$path" "$@"
}

# /readyz is ready only once every post-start hook ran (RBAC's bootstrap roles among them).
until kcurl GET /readyz -o /dev/null 2>/dev/null; do
  [ -n "$(alive_pid kube-apiserver)" ] || fail_with_log kube-apiserver "kube-apiserver exited"
  [ $SECONDS -lt $deadline ] || fail_with_log kube-apiserver "kube-apiserver was not ready after $timeout s"
  sleep 0.3
done
log "kube-apiserver ready after $(( ($(date +%s%N) - t0) / 1000000 )) ms"

# --- the RayCluster CRD ----------------------------------------------------------------------------
# Server-side apply: the CRD is too large for client-side apply's last-applied annotation, and apply
# creates or updates alike.
apply() { # PATH FILE-OR-DASH
  kcurl PATCH "$1?fieldManager=slicescope-harness&force=true" \
    -H "Content-Type: application/apply-patch+yaml" --data-binary "@$2" -o /dev/null
}
apply /apis/apiextensions.k8s.io/v1/customresourcedefinitions/rayclusters.ray.io "$crd" \
  || die "could not apply $crd"
# Established is not yet served: discovery of ray.io/v1 lags a moment behind (it first lists
# "resources": null).
until kcurl GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions/rayclusters.ray.io 2>/dev/null \
      | python3 -c 'import json,sys; c=(json.load(sys.stdin).get("status") or {}).get("conditions") or []; sys.exit(0 if any(x.get("type")=="Established" and x.get("status")=="True" for x in c) else 1)' \
   && kcurl GET /apis/ray.io/v1 2>/dev/null \
      | python3 -c 'import json,sys; sys.exit(0 if any(r.get("name")=="rayclusters" for r in json.load(sys.stdin).get("resources") or []) else 1)'; do
  [ $SECONDS -lt $deadline ] || fail_with_log kube-apiserver "the RayCluster CRD was not served after $timeout s"
  sleep 0.3
done

# --- RBAC for the viewer ---------------------------------------------------------------------------
# What a read-only SliceScope user has: it can see everything SliceScope shows, change nothing.
apply /apis/rbac.authorization.k8s.io/v1/clusterroles/slicescope-viewer - <<'EOF' || die "could not create the viewer's ClusterRole"
{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
 "metadata": {"name": "slicescope-viewer"},
 "rules": [
   {"apiGroups": ["ray.io"], "resources": ["rayclusters"], "verbs": ["get", "list", "watch"]},
   {"apiGroups": [""], "resources": ["pods", "nodes", "events", "services"], "verbs": ["get", "list", "watch"]},
   {"apiGroups": ["events.k8s.io"], "resources": ["events"], "verbs": ["get", "list", "watch"]}]}
EOF
apply /apis/rbac.authorization.k8s.io/v1/clusterrolebindings/slicescope-viewer - <<'EOF' || die "could not bind the viewer's ClusterRole"
{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
 "metadata": {"name": "slicescope-viewer"},
 "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "slicescope-viewer"},
 "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "viewer"}]}
EOF

# --- kubeconfigs and the exec plugin ---------------------------------------------------------------
ca_data="$(base64 -w0 "$dir/ca.crt")"
kubeconfig() { # FILE USER-YAML (indented under `user:`)
  ( umask 077; cat > "$1" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: harness
  cluster:
    server: $server
    certificate-authority-data: $ca_data
users:
- name: $2
  user:
$3
contexts:
- name: harness
  context:
    cluster: harness
    user: $2
    namespace: default
current-context: harness
EOF
  )
}
kubeconfig "$dir/kubeconfig" admin "    token: $admin_token"
kubeconfig "$dir/kubeconfig-viewer" viewer "    token: $viewer_token"
# Relative paths resolve against the kubeconfig's own folder (FACTS.md 4.3), whatever the cwd.
kubeconfig "$dir/kubeconfig-cert" cert-admin "    client-certificate: cert-admin.crt
    client-key: cert-admin.key"
kubeconfig "$dir/kubeconfig-cert-rsa" cert-rsa "    client-certificate-data: $(base64 -w0 "$dir/cert-rsa.crt")
    client-key-data: $(base64 -w0 "$dir/cert-rsa.key")"
kubeconfig "$dir/kubeconfig-exec" exec-user "    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ./exec-plugin.sh
      interactiveMode: Never"

# The plugin writes into DIR by absolute path, so a test finds its traces wherever it ran from.
cat > "$dir/exec-plugin.sh" <<EOF
#!/usr/bin/env bash
# Written by kube-harness.sh: an exec credential plugin like gke-gcloud-auth-plugin, for tests.
set -euo pipefail
echo "\$(date -u +%Y-%m-%dT%H:%M:%S.%NZ) pid \$\$" >> "$dir/exec-plugin.runs"
printf '%s\n' "\${KUBERNETES_EXEC_INFO:-}" > "$dir/exec-plugin.info"
expiry="\$(date -u -d '+1 hour' +%Y-%m-%dT%H:%M:%SZ)"
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s","expirationTimestamp":"%s"}}\n' \\
  "$exec_token" "\$expiry"
EOF
chmod 700 "$dir/exec-plugin.sh"

echo "$server" > "$dir/server-url"
log "up in $(( ($(date +%s%N) - t0) / 1000000 )) ms: $server (etcd 127.0.0.1:$etcd_port), kubeconfigs in $dir"
