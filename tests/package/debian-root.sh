#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A bare Debian 12 for the package's install test (tests/package/check.sh): debootstrap
# --variant=minbase from Debian's own mirror, brought up to date from bookworm-updates and
# bookworm-security, plus only what the test needs inside it (man-db to open the man pages,
# bash-completion, zsh and fish to load the completions). Kept as a zstd tarball in the cache outside
# the clone; prints the tarball's path. Cold: a few minutes (about 100 MB downloaded); warm: instant.
#
#   SLICESCOPE_CACHE             the cache directory (default ~/.cache/slicescope)
#   SLICESCOPE_DEBIAN_MIRROR     Debian's mirror (default http://deb.debian.org/debian)
#   SLICESCOPE_DEBIAN_SECURITY   the security mirror (default http://deb.debian.org/debian-security)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/lib.sh"

cache="${SLICESCOPE_CACHE:-$HOME/.cache/slicescope}"
mirror="${SLICESCOPE_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
security="${SLICESCOPE_DEBIAN_SECURITY:-http://deb.debian.org/debian-security}"
suite=bookworm
include=man-db,bash-completion,zsh,fish
# What makes the root: change it and a new tarball is made beside the old one.
recipe="1 $suite minbase $include $mirror $security"
tarball="$cache/debian12-root-$(printf '%s' "$recipe" | sha256sum | cut -c1-12).tar.zst"
if [[ -f "$tarball" ]]; then
  echo "$tarball"
  exit 0
fi

for tool in debootstrap zstd unshare chroot; do
  if ! command -v "$tool" >/dev/null; then
    echo "debian-root: $tool is missing: run installer/debian-deps.sh" >&2
    exit 1
  fi
done
if [[ "$(id -u)" -ne 0 ]]; then
  echo "debian-root: debootstrap and chroot need root" >&2
  exit 1
fi

mkdir -p "$cache"
work="$(mktemp -d "$cache/debian12-root.XXXXXX")"
trap 'rm -rf "$work"' EXIT
root="$work/root"
log="$work/debootstrap.log"
start=$(now)
echo "debian-root: debootstrap $suite (minbase, with $include) from $mirror" >&2
# In a mount namespace of its own: whatever debootstrap mounts in the target goes with it.
if ! unshare --mount --propagation private \
  debootstrap --variant=minbase --include="$include" "$suite" "$root" "$mirror" >"$log" 2>&1; then
  tail -n 30 "$log" >&2
  echo "debian-root: debootstrap failed (the lines above are the end of its log)" >&2
  exit 1
fi
cat >"$root/etc/apt/sources.list" <<SOURCES
deb $mirror $suite main
deb $mirror $suite-updates main
deb $security $suite-security main
SOURCES
# A throwaway root: dpkg need not sync every file it unpacks.
echo force-unsafe-io >"$root/etc/dpkg/dpkg.cfg.d/slicescope-unsafe-io"
cp /etc/resolv.conf "$root/etc/resolv.conf"
if ! in_root "$root" env DEBIAN_FRONTEND=noninteractive sh -c \
  'apt-get update -qq && apt-get -y -qq upgrade && apt-get clean' >>"$log" 2>&1; then
  tail -n 30 "$log" >&2
  echo "debian-root: bringing the root up to date failed (the lines above are the end of its log)" >&2
  exit 1
fi
tar -C "$root" -cf - . | zstd -q -T0 -o "$work/root.tar.zst"
mv "$work/root.tar.zst" "$tarball"
echo "debian-root: $tarball ($(du -h "$tarball" | cut -f1)) in $(($(now) - start)) s" >&2
echo "$tarball"
