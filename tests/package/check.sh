#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The desktop package, checked the way Debian checks packages and installed the way a user installs it:
#   1. `cpack -G DEB` in BUILD_DIR (what the package holds built first, if it is not):
#      slicescope_VERSION_ARCH.deb and its debug symbols, slicescope-dbgsym_VERSION_ARCH.deb;
#   2. lintian on both (any E: fails; every other tag is printed), appstreamcli validate on the
#      metainfo and validate-tree on the package's files;
#   3. a bare Debian 12 (tests/package/debian-root.sh, cached as a tarball outside the clone) unpacked,
#      the .deb installed in it with `apt-get install ./slicescope_...deb` (no recommends: Depends
#      alone must be enough), then inside it: --version, inspect --demo --json, a screenshot under
#      offscreen, kubectl's plugin flags, the man pages, the completions (tests/package/inside.sh);
#   4. the window in that root on this machine's Xvfb with the xcb plugin, its screen saved as a PNG.
#
#   tests/package/check.sh [BUILD_DIR]     (default build/pkg; CI gives its own build, build/ci)
#
# Writes BUILD_DIR/package-check/: the packages, lintian.txt, window.png. Downloaded packages are kept
# in the cache (SLICESCOPE_CACHE, default ~/.cache/slicescope), so a warm run needs no network. On two
# cores, with BUILD_DIR built: about 70 s warm, about 4 minutes cold (debootstrap, the downloads).
# Needs root (debootstrap, chroot and the mount namespaces of tests/package/lib.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/package/lib.sh

build="${1:-build/pkg}"
[[ -f "$build/CMakeCache.txt" ]] || {
  echo "check: $build is not a configured build (cmake --preset release -B $build -DSLICESCOPE_PORTABLE=ON)" >&2
  exit 1
}
build="$(cd "$build" && pwd)"
out="$build/package-check"
cache="${SLICESCOPE_CACHE:-$HOME/.cache/slicescope}"
if [[ "$(id -u)" -ne 0 ]]; then
  echo "check: the install test needs root (debootstrap, chroot, mount namespaces)" >&2
  exit 1
fi
for tool in cpack lintian appstreamcli dpkg-deb zstd unshare chroot Xvfb python3; do
  command -v "$tool" >/dev/null || {
    echo "check: $tool is missing: run installer/debian-deps.sh" >&2
    exit 1
  }
done

started=$(now)
phase_start=$started
phase() {
  local t
  t=$(now)
  echo "check: $1 ($((t - phase_start)) s)"
  phase_start=$t
}
cleanup_dirs=()
cleanup_pids=()
window=""
cleanup() {
  local pid dir
  [[ -z "$window" ]] || stop_window
  for pid in "${cleanup_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${cleanup_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  for dir in "${cleanup_dirs[@]}"; do rm -rf "$dir"; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# 1. The packages.
rm -rf "$out"
mkdir -p "$out"
cmake --build "$build" --target slicescope_package_inputs >"$out/build.log" 2>&1 || {
  tail -n 30 "$out/build.log" >&2
  echo "check: building what the package holds failed in $build" >&2
  exit 1
}
(cd "$build" && cpack -G DEB -B "$out/cpack" >"$out/cpack.log" 2>&1) || {
  cat "$out/cpack.log" >&2
  echo "check: cpack -G DEB failed" >&2
  exit 1
}
deb="$(ls "$out"/cpack/slicescope_*.deb)"
dbgsym="$(ls "$out"/cpack/slicescope-dbgsym_*.deb)"
version="$(dpkg-deb -f "$deb" Version)"
echo "check: $(basename "$deb") $(du -k "$deb" | cut -f1) KiB, $(basename "$dbgsym") $(du -k "$dbgsym" | cut -f1) KiB"
dpkg-deb -f "$deb" Depends | sed 's/^/check: Depends: /'
if ! grep -q '^SLICESCOPE_PORTABLE:BOOL=ON' "$build/CMakeCache.txt"; then
  echo "check: note: $build is not SLICESCOPE_PORTABLE=ON; this package runs only on CPUs like this machine's"
fi
phase "packages made"

# 2. What Debian's tools say.
lintian_rc=0
lintian --fail-on error --display-info --tag-display-limit 0 "$deb" "$dbgsym" >"$out/lintian.txt" 2>&1 || lintian_rc=$?
grep -v '^running with root privileges' "$out/lintian.txt" | sed 's/^/check: lintian: /' || true
if ((lintian_rc)) || grep -q '^E: ' "$out/lintian.txt"; then
  echo "check: lintian found errors (exit $lintian_rc)" >&2
  exit 1
fi
appstreamcli validate --no-net --explain installer/desktop/io.github.slicescope.SliceScope.metainfo.xml | sed 's/^/check: appstream: /'
dpkg-deb -x "$deb" "$out/tree"
appstreamcli validate-tree --no-net "$out/tree" | sed 's/^/check: appstream tree: /'
phase "lintian and appstreamcli"

# 3. A bare Debian 12 with the package installed.
tarball="$(tests/package/debian-root.sh)"
phase "Debian 12 root ready: $tarball"
root="$(mktemp -d "$out/root.XXXXXX")"
cleanup_dirs+=("$root")
zstd -q -dc "$tarball" | tar -C "$root" -xf -
phase "root unpacked"
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp "$deb" "$root/tmp/"
cp tests/package/inside.sh "$root/tmp/inside.sh"
# The downloaded .debs outlive the root: a warm run installs from them without the network.
archives="$cache/debian12-archives"
mkdir -p "$archives/partial"
apt_log="$out/apt.log"
run_install() {
  in_root "$root" --bind "$archives" /var/cache/apt/archives env DEBIAN_FRONTEND=noninteractive sh -c "$1"
}
install_cmd="apt-get install -y -q --no-install-recommends /tmp/$(basename "$deb")"
if ! run_install "$install_cmd" >"$apt_log" 2>&1; then
  # The root's package lists are as old as its tarball: a version since replaced on the mirror is
  # gone from it. Fresh lists, once.
  echo "check: apt-get install failed with the cached package lists; updating them and trying again"
  run_install "apt-get update -qq && $install_cmd" >>"$apt_log" 2>&1 || {
    tail -n 40 "$apt_log" >&2
    echo "check: apt-get install ./$(basename "$deb") failed in a bare Debian 12" >&2
    exit 1
  }
fi
grep -E '^(The following NEW packages|[0-9]+ upgraded)' "$apt_log" | sed 's/^/check: apt: /' || true
phase "installed with apt-get in a bare Debian 12"
if ! in_root "$root" /bin/sh /tmp/inside.sh "$version" | sed 's/^/check: /'; then
  echo "check: the checks inside the Debian 12 root failed" >&2
  exit 1
fi
phase "checked inside the root"

# 4. The window, on this machine's Xvfb through the X socket: the xcb plugin loads and draws it.
fb="$out/xvfb"
mkdir -p "$fb"
Xvfb -displayfd 3 -nolisten tcp -br -screen 0 1280x800x24 -fbdir "$fb" 3>"$out/display" >"$out/xvfb.log" 2>&1 &
cleanup_pids+=($!)
for _ in $(seq 1 50); do
  [[ -s "$out/display" ]] && break
  sleep 0.2
done
display="$(cat "$out/display")"
[[ -n "$display" ]] || {
  cat "$out/xvfb.log" >&2
  echo "check: Xvfb did not start" >&2
  exit 1
}
in_root "$root" env DISPLAY=":$display" QT_QPA_PLATFORM=xcb QT_DEBUG_PLUGINS=1 XDG_RUNTIME_DIR=/tmp \
  timeout 60 slicescope --demo >"$out/window.log" 2>&1 &
window=$!
# The background in_root is a subshell whose child is unshare. unshare blocks SIGTERM while it
# waits; SIGKILL ends it, and with it (--kill-child) the namespace and the window in it.
stop_window() {
  local child
  child="$(ps -o pid= --ppid "$window" || true)"
  [[ -z "$child" ]] || kill -KILL $child 2>/dev/null || true
  wait "$window" 2>/dev/null || true
  window=""
}
drawn=0
shot=""
for _ in $(seq 1 40); do
  sleep 0.5
  if ! kill -0 "$window" 2>/dev/null; then
    tail -n 20 "$out/window.log" >&2
    echo "check: the window ended by itself under Xvfb" >&2
    exit 1
  fi
  shot="$(python3 tests/package/xwd2png.py "$fb/Xvfb_screen0" "$out/window.png")"
  drawn="${shot##*drawn=}"
  # Drawn: most of the screen no longer Xvfb's black root window.
  if python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) > 0.5 else 1)" "$drawn"; then
    sleep 2 # the demo's first captures, then the frame is saved
    shot="$(python3 tests/package/xwd2png.py "$fb/Xvfb_screen0" "$out/window.png")"
    break
  fi
done
stop_window
grep -q 'plugins/platforms/libqxcb.so" loaded library' "$out/window.log" || {
  tail -n 20 "$out/window.log" >&2
  echo "check: the xcb platform plugin was not loaded" >&2
  exit 1
}
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) > 0.5 else 1)" "$drawn" || {
  echo "check: the window did not draw on Xvfb within 20 s ($shot)" >&2
  exit 1
}
echo "check: the window on Xvfb through xcb: $shot, $out/window.png"
phase "window shown under Xvfb"
echo "check: all passed in $(($(now) - started)) s"
