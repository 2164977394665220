#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds SliceScope for the browser and writes the static bundle into OUTDIR:
#   index.html (ours), qtloader.js (Qt's), slicescope.js and slicescope.wasm.
# Serve OUTDIR from any static web server (the demo and capture files need nothing else), or with
# `slicescope serve SOURCE --web-root OUTDIR` for a live cluster through the relay.
# Runs toolchain.sh first (cached after the first run). Build tree: build-wasm/ in the clone
# (git-ignored), or SLICESCOPE_WASM_BUILD_DIR.
set -euo pipefail

if [ $# -ne 1 ] || [ "${1#-}" != "$1" ]; then
  echo "usage: installer/web/build.sh OUTDIR" >&2
  exit 2
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=$1
jobs=${SLICESCOPE_JOBS:-2}
build=${SLICESCOPE_WASM_BUILD_DIR:-$repo/build-wasm}

prefix=$("$here/toolchain.sh")
# shellcheck disable=SC1091
. "$prefix/../env.sh" # EMSDK, NODE_PATH: as the toolchain was built

started=$(date +%s)
echo "build: configuring $build" >&2
mkdir -p "$build"
"$prefix/bin/qt-cmake" -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >"$build/configure.log" 2>&1 \
  || { tail -n 30 "$build/configure.log" >&2; exit 1; }
echo "build: building (a link takes about a minute)" >&2
cmake --build "$build" --parallel "$jobs" --target slicescope >&2

mkdir -p "$out"
cp "$here/index.html" "$out/index.html"
for f in qtloader.js slicescope.js slicescope.wasm; do
  cp "$build/app/$f" "$out/$f"
done
echo "build: bundle in $out ($(( $(date +%s) - started )) s after the toolchain)" >&2
for f in index.html qtloader.js slicescope.js slicescope.wasm; do
  printf '  %-16s %10d bytes raw %10d bytes gzip -9\n' "$f" "$(stat -c %s "$out/$f")" "$(gzip -9c "$out/$f" | wc -c)"
done
printf '  %-16s %10d bytes raw %10d bytes gzip -9\n' total \
  "$(cat "$out"/index.html "$out"/qtloader.js "$out"/slicescope.js "$out"/slicescope.wasm | wc -c)" \
  "$(for f in index.html qtloader.js slicescope.js slicescope.wasm; do gzip -9c "$out/$f"; done | wc -c)"
