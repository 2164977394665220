#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Every test tier, from a fresh Debian 12 machine: install dependencies, build with warnings as
# errors, run ctest. The README's test command and CI's .ci/run both run exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

installer/debian-deps.sh
cmake --preset ci
cmake --build --preset ci
ctest --preset ci
