#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Creates (once) the Python virtual environment holding the Ray the integration tier runs against,
# and prints its path. It lives outside the clone, keyed by the Ray and Python versions, so a
# second run (or a second clone) reuses it: the wheel and its dependencies take minutes to fetch.
#
#   tests/integration/ray-env.sh            -> prints e.g. ~/.cache/slicescope/ray-2.60.0-py3.11
#   SLICESCOPE_CACHE=/some/dir ...          -> cache somewhere else
#   SLICESCOPE_RAY_VERSION=2.60.0 ...       -> another Ray (the tests are written for 2.60)
set -euo pipefail

ray_version="${SLICESCOPE_RAY_VERSION:-2.60.0}"
cache="${SLICESCOPE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/slicescope}"

log() { echo "ray-env: $*" >&2; }

python="${SLICESCOPE_PYTHON:-$(command -v python3 || true)}"
if [ -z "$python" ]; then
  log "installing python3 (Debian)"
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends python3 python3-venv >&2
  python="$(command -v python3)"
fi
# Debian's python3 has no venv/ensurepip without python3-venv.
if ! "$python" -c 'import venv, ensurepip' 2>/dev/null; then
  log "installing python3-venv (Debian)"
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends python3-venv >&2
fi

py_version="$("$python" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')"
venv="$cache/ray-$ray_version-py$py_version"
stamp="$venv/.slicescope-complete"

if [ -f "$stamp" ] && [ -x "$venv/bin/ray" ]; then
  echo "$venv"
  exit 0
fi

# A half-made environment (an interrupted install) is rebuilt from scratch, never patched up.
rm -rf "$venv"
mkdir -p "$cache"
start=$(date +%s)
log "creating $venv with ray[default]==$ray_version (a few minutes the first time)"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
  "ray[default]==$ray_version" >&2
"$venv/bin/ray" --version >&2
touch "$stamp"
log "ready in $(( $(date +%s) - start )) s"
echo "$venv"
