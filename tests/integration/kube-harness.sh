#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A real Kubernetes API server (and its etcd) on 127.0.0.1 serving the KubeRay CRDs, for the
# integration tier (docs/facts.md 4.4), with the real KubeRay operator and a fake kubelet + GKE next to it.
# No scheduler, controller-manager or kubelet: a test creates nodes and pods itself, binds them and
# sets their status (tests/common/kubefixture.h does it the way KubeRay and GKE would), or lets the
# operator and the fake kubelet do it:
#
# The KubeRay operator (bin/ray-operator from kube-env.sh, gate RayMultiHostIndexing on) reconciles
# RayClusters as on a real cluster: it creates the head and worker pods and the head Service, and
# scaling a worker group creates or deletes whole slices. fake_kubelet.py stands in for the
# scheduler, the kubelets, the garbage collector and GKE's TPU node pools, for the pods the operator
# made (never a test's own pods or nodes): a TPU node per host in one node pool per slice (a CPU node
# for the head), the pod bound and reported Running and Ready with a pod IP, deletions finished, nodes
# no pod uses removed. A scaled RayCluster has its new pods Running well within a second.
#
# Which RayClusters the operator manages: on a real cluster every one. Here a test that plays the
# operator itself must not get the operator's pods as well. Such a test creates its RayClusters with
# spec.managedBy: kueue.x-k8s.io/multikueue, the value for which KubeRay leaves a RayCluster alone.
# By default (SLICESCOPE_KUBE_OPERATOR_SCOPE=all) the operator takes every RayCluster without a
# managedBy, as on a real cluster. With SLICESCOPE_KUBE_OPERATOR_SCOPE=labelled a MutatingAdmissionPolicy
# (slicescope-kuberay-opt-in) sets that value on every RayCluster created without a managedBy in a
# namespace NOT labelled slicescope.test/kuberay-operator=enabled (`default` is labelled), for test
# suites that cannot mark their clusters themselves.
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
#   logs/etcd.log, logs/kube-apiserver.log, logs/ray-operator.log, logs/fake-kubelet.log
#
# Every credential is fresh on each `up`. Keys are written in the formats real kubeconfigs carry
# (kubeadm, kind, GKE): "EC PRIVATE KEY" (SEC1) and "RSA PRIVATE KEY" (PKCS#1), not PKCS#8.
#
# Environment: SLICESCOPE_KUBE_ENV (the folder with bin/ and crd/; default: what kube-env.sh prints),
# SLICESCOPE_KUBE_UP_TIMEOUT (seconds to wait for /readyz, the CRDs and the operator; default 120),
# SLICESCOPE_KUBE_OPERATOR=0 (no KubeRay operator, fake kubelet, RayJob/RayService CRDs or policy:
# nothing happens by itself), SLICESCOPE_KUBE_OPERATOR_SCOPE (labelled | all; see above).
#
# Cost on the 2-core machine (binaries built): `up` ~9 s idle, 13-17 s beside a build (the API server's
# post-start hooks, then establishing the three CRDs; the operator and the fake kubelet add ~1.5 s),
# `down` ~1.5 s; 4 processes (2 with SLICESCOPE_KUBE_OPERATOR=0: `up` ~5 s).
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
  # What talks to the API server first; then the API server: it would only log etcd errors while
  # etcd goes.
  stop_one fake-kubelet
  stop_one ray-operator
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

if [ -n "$(alive_pid kube-apiserver)$(alive_pid etcd)$(alive_pid ray-operator)$(alive_pid fake-kubelet)" ]; then
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

# The operator and what it needs: the RayJob and RayService CRDs too (it runs their controllers, and
# they never start while their kinds are not served). kube-env.sh copies only the RayCluster CRD; the
# others come from the same KubeRay module in kube-env.sh's Go module cache.
operator_enabled=1
case "${SLICESCOPE_KUBE_OPERATOR:-1}" in 0|false|no|off) operator_enabled=0 ;; esac
operator_scope="${SLICESCOPE_KUBE_OPERATOR_SCOPE:-all}"
case "$operator_scope" in labelled|all) ;; *) die "SLICESCOPE_KUBE_OPERATOR_SCOPE is labelled or all, not '$operator_scope'" ;; esac
operator="$env_dir/bin/ray-operator"
extra_crds=()
if [ "$operator_enabled" = 1 ]; then
  [ -x "$operator" ] || die "no $operator (run tests/integration/kube-env.sh, or set SLICESCOPE_KUBE_OPERATOR=0)"
  kuberay_version="${env_dir##*-kuberay-}"
  for kind in rayjobs rayservices; do
    found=""
    for candidate in "$env_dir/crd/ray.io_$kind.yaml" \
        "$(dirname "$env_dir")/go/mod/github.com/ray-project/kuberay/ray-operator@$kuberay_version/config/crd/bases/ray.io_$kind.yaml"; do
      if [ -f "$candidate" ]; then found="$candidate"; break; fi
    done
    [ -n "$found" ] || die "no ray.io_$kind.yaml of KubeRay $kuberay_version next to $env_dir (run tests/integration/kube-env.sh, or set SLICESCOPE_KUBE_OPERATOR=0)"
    extra_crds+=("$found")
  done
fi

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

# --- the KubeRay CRDs ------------------------------------------------------------------------------
# Server-side apply: the CRDs are too large for client-side apply's last-applied annotation, and apply
# creates or updates alike.
apply() { # PATH FILE-OR-DASH
  kcurl PATCH "$1?fieldManager=slicescope-harness&force=true" \
    -H "Content-Type: application/apply-patch+yaml" --data-binary "@$2" -o /dev/null
}
# All at once: each takes the API server a second or two to parse.
crd_names=()
crd_pids=()
for file in "$crd" "${extra_crds[@]}"; do
  name="$(basename "$file" .yaml)"; name="${name#ray.io_}"
  apply "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/$name.ray.io" "$file" &
  crd_names+=("$name")
  crd_pids+=($!)
done
for i in "${!crd_pids[@]}"; do
  wait "${crd_pids[$i]}" || die "could not apply the ${crd_names[$i]} CRD"
done
# Established is not yet served: discovery of ray.io/v1 lags a moment behind (it first lists
# "resources": null).
# Discovery first: it is small, while each CRD is a megabyte to fetch and parse.
crds_served() {
  kcurl GET /apis/ray.io/v1 2>/dev/null \
    | python3 -c '
import json, sys
try:
    served = {r.get("name") for r in json.load(sys.stdin).get("resources") or []}
except ValueError:  # "404 page not found" until the group is served
    sys.exit(1)
sys.exit(0 if set(sys.argv[1:]) <= served else 1)' \
        "${crd_names[@]}" || return 1
  local name
  for name in "${crd_names[@]}"; do
    kcurl GET "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/$name.ray.io" 2>/dev/null \
      | python3 -c 'import json,sys; c=(json.load(sys.stdin).get("status") or {}).get("conditions") or []; sys.exit(0 if any(x.get("type")=="Established" and x.get("status")=="True" for x in c) else 1)' \
      || return 1
  done
}
until crds_served; do
  [ $SECONDS -lt $deadline ] || fail_with_log kube-apiserver "the CRDs (${crd_names[*]}) were not served after $timeout s"
  sleep 0.2
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
# Relative paths resolve against the kubeconfig's own folder (docs/facts.md 4.3), whatever the cwd.
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

# --- KubeRay operator and fake kubelet -------------------------------------------------------------
if [ "$operator_enabled" = 1 ]; then
  if [ "$operator_scope" = labelled ]; then
    # Opt-in (see the top): elsewhere a RayCluster created without a managedBy gets MultiKueue's.
    apply /apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies/slicescope-kuberay-opt-in - <<'EOF' || die "could not create the opt-in MutatingAdmissionPolicy"
{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicy",
 "metadata": {"name": "slicescope-kuberay-opt-in"},
 "spec": {
   "matchConstraints": {
     "resourceRules": [{"apiGroups": ["ray.io"], "apiVersions": ["*"], "operations": ["CREATE"], "resources": ["rayclusters"]}],
     "namespaceSelector": {"matchExpressions": [{"key": "slicescope.test/kuberay-operator", "operator": "NotIn", "values": ["enabled"]}]}},
   "matchConditions": [{"name": "no-manager-named", "expression": "!has(object.spec.managedBy)"}],
   "failurePolicy": "Fail",
   "reinvocationPolicy": "Never",
   "mutations": [{"patchType": "JSONPatch",
                  "jsonPatch": {"expression": "[JSONPatch{op: \"add\", path: \"/spec/managedBy\", value: \"kueue.x-k8s.io/multikueue\"}]"}}]}}
EOF
    apply /apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings/slicescope-kuberay-opt-in - <<'EOF' || die "could not bind the opt-in MutatingAdmissionPolicy"
{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicyBinding",
 "metadata": {"name": "slicescope-kuberay-opt-in"},
 "spec": {"policyName": "slicescope-kuberay-opt-in"}}
EOF
    kcurl PATCH /api/v1/namespaces/default -H "Content-Type: application/merge-patch+json" -o /dev/null \
      -d '{"metadata":{"labels":{"slicescope.test/kuberay-operator":"enabled"}}}' || die "could not label the default namespace"
    # A policy takes effect a moment after it is made: until a dry-run create in an unlabelled
    # namespace comes back with managedBy set, a test's RayCluster could slip past it.
    probe='{"apiVersion":"ray.io/v1","kind":"RayCluster","metadata":{"name":"opt-in-probe"},"spec":{"headGroupSpec":{"rayStartParams":{},"template":{"spec":{"containers":[{"name":"ray-head","image":"probe"}]}}}}}'
    until kcurl POST "/apis/ray.io/v1/namespaces/kube-public/rayclusters?dryRun=All" -H "Content-Type: application/json" \
            -d "$probe" 2>/dev/null \
          | python3 -c 'import json,sys; sys.exit(0 if (json.load(sys.stdin).get("spec") or {}).get("managedBy") else 1)'; do
      [ $SECONDS -lt $deadline ] || fail_with_log kube-apiserver "the opt-in MutatingAdmissionPolicy did not take effect after $timeout s"
      sleep 0.2
    done
  fi

  # One replica: no leader election. No metrics or health endpoints ("0" disables them: no port to
  # pick). Multi-host indexing labels worker pods with ray.io/worker-group-replica-name, -replica-index
  # and ray.io/replica-host-index (docs/facts.md 4), on an operator that knows the gate (alpha in v1.5).
  gates=()
  if grep -aq RayMultiHostIndexing "$operator"; then gates=(--feature-gates=RayMultiHostIndexing=true); fi
  log "starting the KubeRay operator (${gates[*]:-no feature gates})"
  launch ray-operator "$operator" --kubeconfig "$dir/kubeconfig" --enable-leader-election=false \
    --metrics-addr 0 --health-probe-bind-address 0 --log-stdout-encoder console "${gates[@]}"
  # Its RayCluster controller has synced its caches: it reconciles from here on.
  until grep -q 'controllers.RayCluster.*Starting workers' "$dir/logs/ray-operator.log" 2>/dev/null; do
    [ -n "$(alive_pid ray-operator)" ] || fail_with_log ray-operator "the KubeRay operator exited"
    [ $SECONDS -lt $deadline ] || fail_with_log ray-operator "the KubeRay operator did not start its controllers after $timeout s"
    sleep 0.2
  done

  log "starting the fake kubelet"
  launch fake-kubelet python3 -u "$here/fake_kubelet.py" --server "$server" --ca "$dir/ca.crt" --token-file "$dir/admin-token"
  until grep -q ' ready: ' "$dir/logs/fake-kubelet.log" 2>/dev/null; do
    [ -n "$(alive_pid fake-kubelet)" ] || fail_with_log fake-kubelet "the fake kubelet exited"
    [ $SECONDS -lt $deadline ] || fail_with_log fake-kubelet "the fake kubelet was not ready after $timeout s"
    sleep 0.1
  done
fi

echo "$server" > "$dir/server-url"
extras=""
[ "$operator_enabled" = 1 ] && extras=", KubeRay operator ($operator_scope) and fake kubelet"
log "up in $(( ($(date +%s%N) - t0) / 1000000 )) ms: $server (etcd 127.0.0.1:$etcd_port$extras), kubeconfigs in $dir"
