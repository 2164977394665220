#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The WebAssembly toolchain for SliceScope, from Debian 12's own packages and source packages
# (docs: docs/facts.md section 5):
#   - Debian's emscripten 3.1.6 and nodejs, behind an EMSDK-shaped shim folder (Qt's wasm CMake code
#     looks for $EMSDK/.emscripten and $EMSDK/upstream/emscripten/emcc);
#   - Qt 6.4.2 for wasm (static), built from Debian's qt6-base source;
#   - Qt Charts for wasm, built from Debian's Qt 5.15.8 qtcharts-opensource-src with qtcharts-qt6.patch
#     and qtcharts/CMakeLists.txt (there is no Qt 6 Charts source in Debian 12);
#   - yaml-cpp and simdjson for wasm, from Debian's source packages.
# Everything (sources, build trees, the install prefix) lives outside the clone, in
#   ${XDG_CACHE_HOME:-~/.cache}/slicescope/wasm-<hash of the recipe files>
# and a stamp per stage makes a warm run take a second. Prints the install prefix on stdout; logs go to
# stderr. Installs its apt packages (with sudo when not root) like installer/debian-deps.sh.
# SLICESCOPE_WASM_CACHE=DIR overrides the cache folder (for working on the recipe itself).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
log() { echo "toolchain: $*" >&2; }
jobs=${SLICESCOPE_JOBS:-2}
mirror=${SLICESCOPE_DEBIAN_MIRROR:-http://deb.debian.org/debian}

recipe_files=("$here/toolchain.sh" "$here/qtcharts-qt6.patch" "$here/qtcharts/CMakeLists.txt"
              "$here/qtcharts/Qt6ChartsConfig.cmake.in")
recipe_hash=$(cat "${recipe_files[@]}" | sha256sum | cut -c1-12)
cache=${SLICESCOPE_WASM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/slicescope/wasm-$recipe_hash}
prefix=$cache/qt-wasm
stamps=$cache/stamps

if [ -f "$stamps/all" ]; then
  log "cached: $prefix"
  echo "$prefix"
  exit 0
fi
started=$(date +%s)
mkdir -p "$cache" "$stamps"
log "building the wasm toolchain in $cache (recipe $recipe_hash)"

# --- apt packages -------------------------------------------------------------------------------
packages=(emscripten nodejs dpkg-dev cmake ninja-build python3 xz-utils patch
          qt6-base-dev qt6-base-dev-tools libqt6opengl6-dev
          fonts-dejavu-core) # the UI font the app compiles in (widgets/CMakeLists.txt)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  log "installing ${missing[*]}"
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

# --- the EMSDK shim -----------------------------------------------------------------------------
# Qt's wasm support expects an emsdk layout; point one at Debian's emscripten.
emroot=/usr/share/emscripten
emsdk=$cache/emsdk
if [ ! -f "$stamps/emsdk" ]; then
  rm -rf "$emsdk"
  mkdir -p "$emsdk/upstream/emscripten"
  echo "EMSCRIPTEN_ROOT = emsdk_path + '/upstream/emscripten'" > "$emsdk/.emscripten"
  for f in "$emroot"/* "$emroot"/.emscripten; do
    ln -s "$f" "$emsdk/upstream/emscripten/$(basename "$f")"
  done
  for tool in emcc em++ emar emranlib emcmake emmake emconfigure; do
    ln -sf "/usr/bin/$tool" "$emsdk/upstream/emscripten/$tool"
  done
  touch "$stamps/emsdk"
fi
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -dumpmachine)
cat > "$cache/env.sh" <<EOF
# Sourced by installer/web/build.sh: the environment the wasm toolchain was built with.
export EMSDK='$emsdk'
export EM_CONFIG='$emroot/.emscripten'
export NODE_PATH='/usr/share/nodejs'
export SLICESCOPE_WASM_PREFIX='$prefix'
EOF
# shellcheck disable=SC1091
. "$cache/env.sh"
toolchain_file=$emsdk/upstream/emscripten/cmake/Modules/Platform/Emscripten.cmake

# --- Debian source packages, through a private apt configuration -------------------------------
aptdir=$cache/apt
fetch_source() { # fetch_source PACKAGE -> unpacks into $cache/src/PACKAGE-*/
  local pkg=$1
  if [ -f "$stamps/src-$pkg" ]; then return; fi
  if [ ! -f "$stamps/apt-update" ]; then
    mkdir -p "$aptdir/lists/partial" "$aptdir/archives/partial" "$aptdir/sources.list.d"
    echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bookworm main" \
      > "$aptdir/sources.list"
    cat > "$aptdir/apt.conf" <<EOF
Dir::Etc::SourceList "$aptdir/sources.list";
Dir::Etc::SourceParts "$aptdir/sources.list.d";
Dir::State::Lists "$aptdir/lists";
Dir::Cache::Archives "$aptdir/archives";
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
APT::Sandbox::User "$(id -un)";
EOF
    log "apt-get update (private sources list: deb-src bookworm main)"
    APT_CONFIG=$aptdir/apt.conf apt-get update -qq >&2
    touch "$stamps/apt-update"
  fi
  mkdir -p "$cache/src/$pkg"
  log "apt-get source $pkg"
  (cd "$cache/src/$pkg" && rm -rf ./* && APT_CONFIG=$aptdir/apt.conf apt-get source -qq "$pkg" >&2)
  touch "$stamps/src-$pkg"
}
srcdir() { find "$cache/src/$1" -mindepth 1 -maxdepth 1 -type d | head -n1; }

# --- Qt 6.4.2 base for wasm ---------------------------------------------------------------------
if [ ! -f "$stamps/qtbase" ]; then
  fetch_source qt6-base
  src=$(srcdir qt6-base)
  rm -rf "$cache/build/qtbase" && mkdir -p "$cache/build/qtbase"
  log "configuring Qt base for wasm ($src)"
  (cd "$cache/build/qtbase" && "$src/configure" -prefix "$prefix" -qt-host-path /usr \
      -platform wasm-emscripten -release -static -nomake examples -nomake tests \
      -no-warnings-are-errors -no-feature-sql -no-feature-printsupport -no-feature-concurrent \
      -no-feature-dbus -- -G Ninja -DQT_HOST_PATH_CMAKE_DIR="/usr/lib/$multiarch/cmake" \
      -DCMAKE_TOOLCHAIN_FILE="$toolchain_file" >"$cache/build/qtbase-configure.log" 2>&1) \
    || { tail -n 40 "$cache/build/qtbase-configure.log" >&2; exit 1; }
  log "building Qt base for wasm (about 20 minutes on 2 cores)"
  cmake --build "$cache/build/qtbase" --parallel "$jobs" >"$cache/build/qtbase-build.log" 2>&1 \
    || { tail -n 40 "$cache/build/qtbase-build.log" >&2; exit 1; }
  cmake --install "$cache/build/qtbase" >"$cache/build/qtbase-install.log" 2>&1
  touch "$stamps/qtbase"
fi

# --- Qt Charts for wasm, from the Qt 5.15.8 source ----------------------------------------------
if [ ! -f "$stamps/qtcharts" ]; then
  fetch_source qtcharts-opensource-src
  src=$(srcdir qtcharts-opensource-src)
  if [ ! -f "$src/.slicescope-patched" ]; then
    log "patching Qt Charts 5.15 for Qt 6"
    patch -d "$src" -p1 --forward --quiet < "$here/qtcharts-qt6.patch" >&2
    # Qt 6 Charts has no QtCharts namespace (the patch drops it from qchartglobal.h): the
    # qualifications that remain in the Qt 5 source go too.
    grep -rlE 'QtCharts::|QT_CHARTS_NAMESPACE::' "$src/src/charts" \
      | xargs sed -i -e 's/QtCharts:://g' -e 's/QT_CHARTS_NAMESPACE:://g'
    touch "$src/.slicescope-patched"
  fi
  rm -rf "$cache/build/qtcharts"
  log "building Qt Charts for wasm"
  (cd "$cache" && "$prefix/bin/qt-cmake" -S "$here/qtcharts" -B "$cache/build/qtcharts" -G Ninja \
      -DCMAKE_BUILD_TYPE=Release -DQTCHARTS_SOURCE="$src" -DCMAKE_INSTALL_PREFIX="$prefix" \
      >"$cache/build/qtcharts-configure.log" 2>&1) \
    || { tail -n 40 "$cache/build/qtcharts-configure.log" >&2; exit 1; }
  cmake --build "$cache/build/qtcharts" --parallel "$jobs" >"$cache/build/qtcharts-build.log" 2>&1 \
    || { grep -m5 -A5 'error' "$cache/build/qtcharts-build.log" >&2; exit 1; }
  cmake --install "$cache/build/qtcharts" >"$cache/build/qtcharts-install.log" 2>&1
  touch "$stamps/qtcharts"
fi

# --- yaml-cpp and simdjson for wasm -------------------------------------------------------------
build_cmake_package() { # build_cmake_package DEBIAN_SOURCE_NAME CMAKE_ARGS...
  local pkg=$1; shift
  if [ -f "$stamps/$pkg" ]; then return; fi
  fetch_source "$pkg"
  local src; src=$(srcdir "$pkg")
  rm -rf "$cache/build/$pkg"
  log "building $pkg for wasm"
  emcmake cmake -S "$src" -B "$cache/build/$pkg" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_INSTALL_PREFIX="$prefix" -DBUILD_SHARED_LIBS=OFF -DBUILD_TESTING=OFF "$@" \
      >"$cache/build/$pkg-configure.log" 2>&1 \
    || { tail -n 40 "$cache/build/$pkg-configure.log" >&2; exit 1; }
  cmake --build "$cache/build/$pkg" --parallel "$jobs" >"$cache/build/$pkg-build.log" 2>&1 \
    || { tail -n 40 "$cache/build/$pkg-build.log" >&2; exit 1; }
  cmake --install "$cache/build/$pkg" >"$cache/build/$pkg-install.log" 2>&1
  touch "$stamps/$pkg"
}
build_cmake_package yaml-cpp -DYAML_CPP_BUILD_TESTS=OFF -DYAML_CPP_BUILD_TOOLS=OFF \
  -DYAML_CPP_BUILD_CONTRIB=OFF
build_cmake_package simdjson -DSIMDJSON_DEVELOPER_MODE=OFF -DSIMDJSON_ENABLE_THREADS=OFF

touch "$stamps/all"
log "done in $(( $(date +%s) - started )) s: $prefix"
echo "$prefix"
