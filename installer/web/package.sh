#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Packages the browser build (installer/web/build.sh's output) for shipping (issue 18):
#
#   installer/web/package.sh BUNDLE OUTDIR [VERSION]
#
# writes OUTDIR/slicescope-web-VERSION.tar.gz (a folder slicescope-web-VERSION/ holding the bundle)
# and OUTDIR/slicescope-web_VERSION_all.deb (the bundle in /usr/share/slicescope/web, where
# `slicescope serve` looks when no --web-root is given). Every file worth compressing gets a
# gzip (NAME.gz) and, when Debian's `brotli` is installed, a brotli (NAME.br) copy beside it, which
# `serve` sends with Content-Encoding to browsers that take it. VERSION defaults to the project's
# (the top-level CMakeLists.txt). SLICESCOPE_BROTLI_QUALITY (default 11, the smallest) trades size for
# time: CI, which only checks the package, uses 5. Prints the two paths.
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: installer/web/package.sh BUNDLE OUTDIR [VERSION]" >&2
  exit 2
fi
bundle="$1"
out="$2"
here="$(cd "$(dirname "$0")" && pwd)"
version="${3:-$(sed -n 's/^project(SliceScope VERSION \([0-9.]*\).*/\1/p' "$here/../../CMakeLists.txt")}"
if [ -z "$version" ]; then
  echo "package.sh: cannot read the project's version from CMakeLists.txt; give it as the third argument" >&2
  exit 2
fi
for f in index.html slicescope.js slicescope.wasm qtloader.js; do
  if [ ! -f "$bundle/$f" ]; then
    echo "package.sh: $bundle/$f is missing: is $bundle the output of installer/web/build.sh?" >&2
    exit 1
  fi
done
command -v dpkg-deb >/dev/null || { echo "package.sh: needs dpkg-deb (Debian's dpkg)" >&2; exit 1; }

mkdir -p "$out"
out="$(cd "$out" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The bundle, its text and wasm files precompressed beside them (never the compressed copies again).
stage="$work/slicescope-web-$version"
mkdir -p "$stage"
cp -R "$bundle"/. "$stage"/
find "$stage" -type f \( -name '*.gz' -o -name '*.br' \) -delete
# Data, not programs: the toolchain leaves the .wasm executable (lintian: executable-not-elf-or-script).
find "$stage" -type f -exec chmod 0644 {} +
find "$stage" -type d -exec chmod 0755 {} +
brotli_found=0
command -v brotli >/dev/null && brotli_found=1
while IFS= read -r -d '' f; do
  gzip -9 -n -k "$f"
  if [ "$brotli_found" = 1 ]; then brotli -q "${SLICESCOPE_BROTLI_QUALITY:-11}" -k "$f"; fi
done < <(find "$stage" -type f \( -name '*.html' -o -name '*.js' -o -name '*.wasm' -o -name '*.css' -o -name '*.svg' -o -name '*.json' \) -print0)
if [ "$brotli_found" = 0 ]; then
  echo "package.sh: brotli is not installed (Debian's brotli): gzip copies only" >&2
fi

# Reproducible: the files' times are the newest commit's, owners are root.
epoch="$(git -C "$here" log -1 --format=%ct 2>/dev/null || echo 0)"
tarball="$out/slicescope-web-$version.tar.gz"
tar --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner -C "$work" -cf - "slicescope-web-$version" | gzip -9 -n > "$tarball"

# The Debian package: architecture all, no dependencies (the relay that serves it is in slicescope).
root="$work/deb"
mkdir -p "$root/usr/share/slicescope/web" "$root/usr/share/doc/slicescope-web" "$root/DEBIAN"
cp -R "$stage"/. "$root/usr/share/slicescope/web/"
cat > "$root/usr/share/doc/slicescope-web/copyright" <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: SliceScope
Source: https://github.com/slicescope/slicescope

Files: *
Copyright: 2025-2026 The SliceScope contributors
License: GPL-3+
 The browser build links Qt for WebAssembly, built from source by installer/web/toolchain.sh.
 On Debian systems the full text of the GNU General Public License version 3 is in
 /usr/share/common-licenses/GPL-3.
EOF
maintainer="${SLICESCOPE_PACKAGE_MAINTAINER:-The SliceScope maintainers <dev@slicescope.invalid>}"
{
  echo "slicescope-web ($version) unstable; urgency=medium"
  echo
  echo "  * The browser build of SliceScope $version, precompressed."
  echo
  echo " -- $maintainer  $(LC_ALL=C date -u -R -d "@$epoch")"
} | gzip -9 -n > "$root/usr/share/doc/slicescope-web/changelog.gz"
size_kb="$(du -sk "$root/usr" | cut -f1)"
cat > "$root/DEBIAN/control" <<EOF
Package: slicescope-web
Version: $version
Architecture: all
Maintainer: $maintainer
Installed-Size: $size_kb
Section: web
Priority: optional
Homepage: https://github.com/slicescope/slicescope
Description: SliceScope in the browser (WebAssembly bundle)
 The browser build of SliceScope, the TPU slice dashboard for Ray on Kubernetes.
 "slicescope serve" serves it from /usr/share/slicescope/web when no --web-root
 is given; browsers that accept them get the precompressed copies.
EOF
find "$root" -exec touch -h -d "@$epoch" {} +
deb="$out/slicescope-web_${version}_all.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$tarball"
echo "$deb"
