#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs what SliceScope needs to build and test on Debian 12, from Debian's own packages.
# Idempotent: does nothing (and needs no network) when everything is already there.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  qt6-base-dev libqt6opengl6-dev qt6-charts-dev qt6-websockets-dev qt6-svg-dev
  libyaml-cpp-dev libsimdjson-dev libjemalloc-dev
  fonts-dejavu-core xvfb
  procps  # ps, for the integration harness (tests/integration/ray-harness.sh)
  chromium  # headless, for the browser tier (tests/browser); the wasm toolchain: installer/web/toolchain.sh
  clang libclang-rt-14-dev  # libFuzzer and the sanitizer runtimes, for the fuzz targets (tests/fuzz)
  python3 file  # the man pages and completions made at build time (installer/cli_docs.py); cpack's stripping
  lintian appstream debootstrap zstd  # the package check (tests/package/check.sh)
  brotli  # the web package's precompressed copies (installer/web/package.sh)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "debian-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "debian-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
