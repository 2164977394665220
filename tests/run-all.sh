#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Every test tier, from a fresh Debian 12 machine: install dependencies, build with warnings as
# errors, build the WebAssembly bundle for the browser tier (installer/web/build.sh), start a real
# Ray (tests/integration/ray-harness.sh), a real Prometheus scraping it
# (tests/integration/prom-harness.sh) and a real Kubernetes API server
# (tests/integration/kube-harness.sh), run ctest, and always stop all three again.
# The README's test command and CI's .ci/run both run exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

phase_start=$(date +%s)
phase() {
  local now
  now=$(date +%s)
  echo "run-all: $1 ($((now - phase_start)) s)"
  phase_start=$now
}

installer/debian-deps.sh
phase "Debian packages ready"

# The Python environment with Ray for the integration tier, cached outside the clone.
ray_venv="$(tests/integration/ray-env.sh)"
phase "Ray environment ready: $ray_venv"

# Every C++ file as .clang-format says (clang-format from PyPI, pinned, in a venv cached outside
# the clone; after the Ray environment, which makes sure Python's venv module is there).
tests/check-format.sh
phase "formatting checked"

# kube-apiserver and etcd for the integration tier, built from Go modules once and cached outside the
# clone (tens of minutes cold, instant warm).
kube_env="$(tests/integration/kube-env.sh)"
phase "Kubernetes environment ready: $kube_env"
# helm for the relay chart's check (helm_chart_check), built and cached the same way.
SLICESCOPE_HELM="$(tests/integration/helm-env.sh)"
export SLICESCOPE_HELM
phase "helm ready: $SLICESCOPE_HELM"

# The browser tier's WebAssembly bundle: the wasm toolchain is built once and cached outside the
# clone (installer/web/toolchain.sh), then the app is built for the browser.
web_bundle="$PWD/build/ci/web"
SLICESCOPE_WASM_BUILD_DIR="$PWD/build/ci/wasm" installer/web/build.sh "$web_bundle"
phase "web bundle built: $web_bundle"

cmake --preset ci -DSLICESCOPE_WEB_BUNDLE="$web_bundle"
cmake --build --preset ci
phase "built"

# The model, backend and app tiers under ASan + UBSan, then every fuzz target: one clang build
# (the `fuzz` preset) serves both. The fuzz step replays every seed, grown input and regression
# and fuzzes each target for SLICESCOPE_CI_FUZZ_SECONDS (default 30); any crash, leak, sanitizer
# report, timeout or memory blow-up fails the run (docs/testing.md 5).
tests/asan-tiers.sh
phase "model, backend and app tiers passed under ASan + UBSan"
tests/fuzz/run.sh "${SLICESCOPE_CI_FUZZ_SECONDS:-30}"
phase "fuzz targets replayed and fuzzed"

# When ctest fails, its log is long (the fault matrix alone prints a hundred figures) and whoever reads
# CI's output may only see its head and tail: say again, last, which checks failed and where.
failure_digest() {
  local log="build/ci/Testing/Temporary/LastTest.log"
  [[ -f "$log" ]] || return 0
  echo "run-all: the failed checks, from $log:" >&2
  grep -n -E -A3 '^(FAIL!|XPASS|QFATAL|Totals: .* [1-9][0-9]* failed)' "$log" | head -n 80 >&2 || true
}
run_ctest() {
  local rc=0
  ctest --preset ci "$@" || rc=$?
  if ((rc)); then
    failure_digest
    exit "$rc"
  fi
}

# The tiers that need no server run first, before Ray and the API servers start: their timing
# checks (the fault matrix's backoff and retry figures) then share the two cores with nothing else.
run_ctest -LE 'integration|browser|bench'
phase "model, backend, widgets and app tiers passed"

# The desktop .deb: lintian, appstreamcli, installed with apt in a bare Debian 12 (debootstrap, cached
# in ~/.cache/slicescope) and used there, its window on Xvfb (docs/testing.md 8).
tests/package/check.sh build/ci
phase "desktop package checked"
# The web package from the bundle built above (installer/web/package.sh): the tarball and the .deb;
# what lintian says of the .deb is printed (the issue asks lintian to pass on the desktop package).
SLICESCOPE_BROTLI_QUALITY=5 installer/web/package.sh "$web_bundle" build/ci/packages > build/ci/packages.txt
mapfile -t web_packages < build/ci/packages.txt
lintian "${web_packages[1]}" || echo "run-all: lintian has errors for ${web_packages[1]} (above)" >&2
phase "web package made: ${web_packages[*]}"

# Ray and the API server start after the build (they would only compete for the two cores) and are
# stopped whatever happens next: a failed test, an error in this script, or an interrupt.
ray_dir="$PWD/build/ci/ray-harness"
ray2_dir="$PWD/build/ci/ray-harness-2"
kube_dir="$PWD/build/ci/kube-harness"
kube2_dir="$PWD/build/ci/kube-harness-2"
prom_dir="$PWD/build/ci/prom-harness"
stop_harnesses() {
  tests/integration/kube-harness.sh down "$kube2_dir" || true
  tests/integration/kube-harness.sh down "$kube_dir" || true
  tests/integration/prom-harness.sh down "$prom_dir" || true
  tests/integration/ray-harness.sh down "$ray2_dir" || true
  tests/integration/ray-harness.sh down "$ray_dir" || true
}
trap stop_harnesses EXIT
trap 'exit 130' INT TERM
if ! SLICESCOPE_RAY_VENV="$ray_venv" tests/integration/ray-harness.sh up "$ray_dir"; then
  echo "run-all: the Ray cluster for the integration tier did not start (logs in $ray_dir/logs)" >&2
  exit 1
fi
phase "Ray up"
# The fleet tests' second RayCluster: a small second Ray (a head and one TPU host), with the first
# one's token (issue 16).
if ! SLICESCOPE_RAY_VENV="$ray_venv" SLICESCOPE_RAY_FLEET=small SLICESCOPE_RAY_TOKEN_FROM="$ray_dir/token" \
    tests/integration/ray-harness.sh up "$ray2_dir"; then
  echo "run-all: the second Ray for the fleet tests did not start (logs in $ray2_dir/logs)" >&2
  exit 1
fi
phase "second Ray up"

# Scraping every 5 s rather than 2 s costs the Ray agents 2.5 times less CPU beside the other tests.
if ! SLICESCOPE_PROM_SCRAPE_INTERVAL="${SLICESCOPE_PROM_SCRAPE_INTERVAL:-5}" tests/integration/prom-harness.sh up "$prom_dir" "$ray_dir"; then
  echo "run-all: the Prometheus for the integration tier did not start (logs in $prom_dir/logs)" >&2
  exit 1
fi
phase "Prometheus up"

if ! SLICESCOPE_KUBE_ENV="$kube_env" tests/integration/kube-harness.sh up "$kube_dir"; then
  echo "run-all: the Kubernetes API server for the integration tier did not start (logs in $kube_dir/logs)" >&2
  exit 1
fi
phase "Kubernetes API server up"
# The fleet tests' second context: a second API server, nothing running by itself (issue 16).
if ! SLICESCOPE_KUBE_ENV="$kube_env" SLICESCOPE_KUBE_OPERATOR=0 tests/integration/kube-harness.sh up "$kube2_dir"; then
  echo "run-all: the second Kubernetes API server for the fleet tests did not start (logs in $kube2_dir/logs)" >&2
  exit 1
fi
phase "second Kubernetes API server up"

SLICESCOPE_RAY_DIR="$ray_dir" SLICESCOPE_RAY2_DIR="$ray2_dir" SLICESCOPE_PROM_DIR="$prom_dir" SLICESCOPE_KUBE_DIR="$kube_dir" SLICESCOPE_KUBE2_DIR="$kube2_dir" \
  run_ctest -L 'integration|browser|bench'
phase "tests done"
