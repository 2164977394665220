#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds (once) the `helm` binary that tests/integration/helm_chart_check.py lints and renders the
# relay's chart (installer/helm/slicescope-relay) with, from its Go module on the module proxy, and
# prints its path. Like kube-env.sh it lives outside the clone, keyed by the version, so a warm
# machine skips the build:
#
#   tests/integration/helm-env.sh        -> prints e.g. ~/.cache/slicescope/helm-v3.21.4/bin/helm
#   SLICESCOPE_CACHE=/some/dir ...       -> cache somewhere else
#   SLICESCOPE_HELM_VERSION=v3.x.y ...   -> another Helm 3 release
#
# The Go module and build caches (GOMODCACHE, GOCACHE) are kube-env.sh's, under the same cache root:
# helm and kube-apiserver share most of their k8s.io and third-party modules, so whichever is built
# second downloads little. No binary is ever written into the clone.
set -euo pipefail

helm_version="${SLICESCOPE_HELM_VERSION:-v3.21.4}"
# Helm's Makefile stamps the Kubernetes version of the client-go it builds with (v0.36.x for
# v3.21.x) into the default capabilities (.Capabilities.KubeVersion, `helm lint`'s deprecation
# rules); `go install` does not run the Makefile, so say it here.
helm_kube_minor="${SLICESCOPE_HELM_KUBE_MINOR:-36}"
cache="${SLICESCOPE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/slicescope}"

log() { echo "helm-env: $*" >&2; }

if ! command -v go >/dev/null 2>&1; then
  log "needs the Go toolchain (1.26 or newer) on PATH to build helm"
  exit 1
fi

out="$cache/helm-$helm_version"
stamp="$out/.slicescope-complete"
if [ -f "$stamp" ] && [ -x "$out/bin/helm" ]; then
  echo "$out/bin/helm"
  exit 0
fi

export GOMODCACHE="$cache/go/mod"
export GOCACHE="$cache/go/build"
export GOBIN="$out/bin"
export CGO_ENABLED=0
export GOFLAGS=""         # kube-env.sh's -mod=mod has no place in `go install pkg@version`
export GOTOOLCHAIN=local  # build with the Go on PATH; never fetch another toolchain
mkdir -p "$out/bin" "$GOMODCACHE" "$GOCACHE"
rm -f "$stamp"
start=$SECONDS

pkg=helm.sh/helm/v3
ldflags="-s -w -X $pkg/internal/version.version=$helm_version -X $pkg/internal/version.gitTreeState=clean"
for part in pkg/chartutil pkg/lint/rules; do
  ldflags="$ldflags -X $pkg/$part.k8sVersionMajor=1 -X $pkg/$part.k8sVersionMinor=$helm_kube_minor"
done
log "building helm $helm_version from $pkg/cmd/helm (cold: minutes on 2 cores; warm: instant)"
# Outside any module (a clone's go.work or go.mod must not steer it).
(cd "$out" && go install -trimpath -ldflags "$ldflags" "$pkg/cmd/helm@$helm_version")

"$out/bin/helm" version --short >&2
echo "built in $((SECONDS - start)) s" > "$stamp"
log "done in $((SECONDS - start)) s"
echo "$out/bin/helm"
