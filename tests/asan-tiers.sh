#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The model, backend and app tiers under AddressSanitizer + UndefinedBehaviorSanitizer, in the
# `fuzz` preset's build (clang, -fsanitize=address,undefined -fno-sanitize-recover=all; the same
# objects the fuzz targets link, so CI compiles the tree once for both; docs/testing.md 5.3). The
# test preset `fuzz` sets halt_on_error, leak checks and tests/fuzz/lsan.supp; the `slicescope`
# binary the app tier starts inherits them. These tiers need no server. A step of tests/run-all.sh.
#
#   tests/asan-tiers.sh [CTEST_ARGS...]       e.g. tests/asan-tiers.sh -R tst_snapshot
#
# (The gcc `asan` preset runs the same tiers with `ctest --preset asan` for whoever prefers gcc.)
set -euo pipefail
cd "$(dirname "$0")/.."

start=$(date +%s)
mkdir -p build
cmake --preset fuzz > build/fuzz.configure.log 2>&1 || { cat build/fuzz.configure.log >&2; exit 1; }
# Every test of the three tiers, as ctest lists them (a new test joins without editing this).
mapfile -t tests < <(ctest --preset fuzz -N | sed -n 's/^ *Test *#[0-9]*: *//p')
if [ ${#tests[@]} -lt 15 ]; then
  echo "asan-tiers: ctest lists only ${#tests[@]} tests of the model, backend and app tiers: ${tests[*]}" >&2
  exit 1
fi
# A test that is a script, not a target (tst_clidocs runs installer/cli_docs.py's pages against the
# binary), is built by what it runs: the binary and the pages' target.
# (A lookup table, not `printf | grep -q`: under pipefail grep's early exit can SIGPIPE printf and
# drop a test from the build at random; CI once lost tst_alerts that way.)
declare -A is_target=()
while IFS= read -r t; do is_target[$t]=1; done < <(cmake --build build/fuzz --target help | sed -n 's/^\([A-Za-z0-9_.+-]*\): .*/\1/p')
build_targets=(slicescope)
for t in "${tests[@]}" slicescope_clidocs; do
  if [[ -n ${is_target[$t]:-} ]]; then
    build_targets+=("$t")
  elif [[ $t != tst_clidocs ]]; then
    echo "asan-tiers: $t has no target of its name; it is built only if another target builds it" >&2
  fi
done
cmake --build build/fuzz -j2 --target "${build_targets[@]}"
built=$(date +%s)
echo "asan-tiers: built ${#tests[@]} tests and slicescope in $((built - start)) s"

rc=0
ctest --preset fuzz "$@" || rc=$?
if ((rc)); then
  # A cut log may hide the failure: say again, last, which checks failed and what the sanitizers said.
  log=build/fuzz/Testing/Temporary/LastTest.log
  if [[ -f "$log" ]]; then
    echo "asan-tiers: the failed checks, from $log:" >&2
    grep -n -E -A3 '^(FAIL!|QFATAL|Totals: .* [1-9][0-9]* failed)|ERROR: (Address|Leak)Sanitizer|runtime error:' "$log" | head -n 80 >&2 || true
  fi
  exit "$rc"
fi
echo "asan-tiers: ${#tests[@]} tests ran in $(($(date +%s) - built)) s"
