#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds (once) the real Kubernetes API server and etcd the integration tier runs against, from Go
# modules on the module proxy (docs/facts.md 4.4), and prints the folder holding the binaries and the KubeRay
# CRD. Everything lives outside the clone, keyed by the versions, so a warm machine skips the build:
#
#   tests/integration/kube-env.sh        -> prints e.g. ~/.cache/slicescope/kube-v1.37.2-etcd-v3.6.16-kuberay-v1.5.0
#   SLICESCOPE_CACHE=/some/dir ...       -> cache somewhere else
#
# The folder holds bin/kube-apiserver, bin/etcd, bin/ray-operator (KubeRay's operator, so scaling a
# RayCluster creates and deletes pods as in a real cluster), crd/ray.io_rayclusters.yaml and a stamp. The Go module
# and build caches (GOMODCACHE, GOCACHE) are kept under the same cache root, so a version bump rebuilds
# only what changed. No binary is ever written into the clone.
set -euo pipefail

kube_version="${SLICESCOPE_KUBE_VERSION:-v1.37.2}"
etcd_version="${SLICESCOPE_ETCD_VERSION:-v3.6.16}"
kuberay_version="${SLICESCOPE_KUBERAY_VERSION:-v1.5.0}"
cache="${SLICESCOPE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/slicescope}"

log() { echo "kube-env: $*" >&2; }

if ! command -v go >/dev/null 2>&1; then
  log "needs the Go toolchain (1.26 or newer) on PATH to build kube-apiserver and etcd"
  exit 1
fi

out="$cache/kube-$kube_version-etcd-$etcd_version-kuberay-$kuberay_version"
stamp="$out/.slicescope-complete"
if [ -f "$stamp" ] && [ -x "$out/bin/kube-apiserver" ] && [ -x "$out/bin/etcd" ] && [ -x "$out/bin/ray-operator" ]; then
  echo "$out"
  exit 0
fi

export GOMODCACHE="$cache/go/mod"
export GOCACHE="$cache/go/build"
export GOFLAGS="-mod=mod"
export CGO_ENABLED=0
mkdir -p "$out/bin" "$out/crd" "$GOMODCACHE" "$GOCACHE"
work="$(mktemp -d "$cache/kube-build.XXXXXX")"
trap 'rm -rf "$work"' EXIT
start=$SECONDS

# --- kube-apiserver --------------------------------------------------------------------------------
# k8s.io/kubernetes requires its staging modules at v0.0.0 and replaces them with ./staging paths that a
# module consumer does not get; point each one at the published v0.<minor>.<patch> instead.
log "fetching k8s.io/kubernetes@$kube_version"
kmod="$(go mod download -json "k8s.io/kubernetes@$kube_version" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"
staging_version="v0.${kube_version#v1.}"
mkdir -p "$work/apiserver"
{
  echo "module slicescope.local/kubeapiserver"
  echo
  echo "go $(sed -n 's/^go \([0-9.]*\)$/\1/p' "$kmod")"
  echo
  echo "require k8s.io/kubernetes $kube_version"
  echo
  sed -n 's#^\s*\(k8s.io/[a-z0-9-]*\) => ./staging/.*#replace \1 => \1 '"$staging_version"'#p' "$kmod"
} > "$work/apiserver/go.mod"
cat > "$work/apiserver/tools.go" <<'EOF'
//go:build tools

package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
EOF
minor="${kube_version#v1.}"; minor="${minor%%.*}"
ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$kube_version -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor"
ldflags="$ldflags -X k8s.io/client-go/pkg/version.gitVersion=$kube_version"
(
  cd "$work/apiserver"
  # Drop replaces for staging modules that were never published at this version (the build will say
  # so if one is actually needed).
  log "resolving the module graph"
  go mod tidy -e >/dev/null 2>&1 || true
  log "building kube-apiserver (cold: tens of minutes on 2 cores; warm: seconds)"
  go build -trimpath -ldflags "$ldflags" -o "$out/bin/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver
)
log "kube-apiserver built ($((SECONDS - start)) s so far)"

# --- etcd ------------------------------------------------------------------------------------------
mkdir -p "$work/etcd"
cat > "$work/etcd/go.mod" <<EOF
module slicescope.local/etcd

go 1.24

require go.etcd.io/etcd/server/v3 $etcd_version
EOF
cat > "$work/etcd/main.go" <<'EOF'
// A minimal etcd binary: the server's own entry point from go.etcd.io/etcd/server/v3.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
EOF
(
  cd "$work/etcd"
  log "building etcd $etcd_version"
  go mod tidy >/dev/null
  go build -trimpath -ldflags "-s -w" -o "$out/bin/etcd" .
)
log "etcd built ($((SECONDS - start)) s so far)"

# --- KubeRay operator ------------------------------------------------------------------------------
mkdir -p "$work/kuberay"
printf 'module slicescope.local/kuberay\n\ngo 1.24.0\n\nrequire github.com/ray-project/kuberay/ray-operator %s\n' "$kuberay_version" > "$work/kuberay/go.mod"
printf '//go:build tools\n\npackage tools\n\nimport _ "github.com/ray-project/kuberay/ray-operator"\n' > "$work/kuberay/tools.go"
(
  cd "$work/kuberay"
  log "building the KubeRay operator $kuberay_version"
  go mod tidy -e >/dev/null 2>&1 || true
  go build -trimpath -ldflags "-s -w" -o "$out/bin/ray-operator" github.com/ray-project/kuberay/ray-operator
)
log "ray-operator built ($((SECONDS - start)) s so far)"

# --- KubeRay CRD -----------------------------------------------------------------------------------
log "fetching the RayCluster CRD from github.com/ray-project/kuberay/ray-operator@$kuberay_version"
krdir="$(go mod download -json "github.com/ray-project/kuberay/ray-operator@$kuberay_version" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')"
cp "$krdir/config/crd/bases/ray.io_rayclusters.yaml" "$out/crd/"
chmod u+w "$out/crd/"*

"$out/bin/kube-apiserver" --version >&2
"$out/bin/etcd" --version | head -1 >&2
echo "built in $((SECONDS - start)) s" > "$stamp"
log "done in $((SECONDS - start)) s"
echo "$out"
