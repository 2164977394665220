#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The model, backend and app tiers under AddressSanitizer + UndefinedBehaviorSanitizer (the `asan`
# preset: Debug, -fno-sanitize-recover=all, halt_on_error, leak checks; docs/testing.md 5). These
# tiers need no server. Builds only their tests and the `slicescope` binary the app tier drives.
# Not part of tests/run-all.sh: a cold build does not fit in CI's time (docs/testing.md 5.3).
#
#   tests/asan-tiers.sh [CTEST_ARGS...]       e.g. tests/asan-tiers.sh -R tst_snapshot
set -euo pipefail
cd "$(dirname "$0")/.."

tests=(tst_tpu tst_snapshot tst_joining tst_conventions tst_planner tst_itemmodels tst_scaleplan tst_history
       tst_capturefile tst_demosimulator tst_logtail tst_rayclient tst_rayclusteractions tst_kubeconfig tst_kubewatch
       tst_cli tst_recording_replay tst_relay)

start=$(date +%s)
mkdir -p build
cmake --preset asan > build/asan.configure.log 2>&1 || { cat build/asan.configure.log >&2; exit 1; }
cmake --build --preset asan --target "${tests[@]}" slicescope
built=$(date +%s)
echo "asan-tiers: built in $((built - start)) s"

# The test preset sets ASAN_OPTIONS / UBSAN_OPTIONS / LSAN_OPTIONS (halt_on_error, leak checks,
# tests/fuzz/lsan.supp). The slicescope binary the app tier starts inherits them.
ctest --preset asan -L 'model|backend|app' "$@"
echo "asan-tiers: tests ran in $(($(date +%s) - built)) s"
