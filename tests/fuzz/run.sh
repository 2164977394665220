#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds the libFuzzer targets (the `fuzz` preset), replays every committed input of every target
# (the seeds, the corpus grown here, tests/fuzz/regressions/<target>/), then fuzzes each target for
# SECONDS_PER_TARGET seconds (default 60; 0: replay only). Exits non-zero on any crash, leak,
# sanitizer report, timeout (10 s per input) or memory blow-up (2 GB). See tests/fuzz/README.md.
#
#   tests/fuzz/run.sh [SECONDS_PER_TARGET]
#   SLICESCOPE_FUZZ_TARGETS="fuzz_capture fuzz_relay"   only these targets
#   SLICESCOPE_FUZZ_NO_BUILD=1                           use the binaries already built
#   SLICESCOPE_FUZZ_JOBS=2                               targets run at once (default 2)
#
# A finding is written to build/fuzz/findings/<target>/ (crash-*, leak-*, timeout-*, oom-*) with
# the command that minimizes it; a minimized input goes into tests/fuzz/regressions/<target>/.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
seconds=${1:-60}
case "$seconds" in '' | *[!0-9]*) echo "run.sh: SECONDS_PER_TARGET must be a whole number, not \"$seconds\"" >&2; exit 2 ;; esac

build="$root/build/fuzz"
all_targets="fuzz_capture fuzz_recording fuzz_relay fuzz_httphead fuzz_kubewatch fuzz_kubeconfig fuzz_parsers fuzz_logtail fuzz_render"
targets=${SLICESCOPE_FUZZ_TARGETS:-$all_targets}

if ! command -v clang++ > /dev/null; then
  echo "run.sh: clang++ not found: the fuzz targets need Debian's clang and libclang-rt-14-dev (installer/debian-deps.sh)" >&2
  exit 2
fi

start=$(date +%s)
if [ -z "${SLICESCOPE_FUZZ_NO_BUILD:-}" ]; then
  cmake --preset fuzz > "$build.configure.log" 2>&1 || { cat "$build.configure.log" >&2; exit 1; }
  cmake --build --preset fuzz
  echo "fuzz: built in $(($(date +%s) - start)) s"
fi

# Sanitizers: stop at the first report, with a stack. libFuzzer adds leak checks per input.
export ASAN_OPTIONS="${ASAN_OPTIONS:-halt_on_error=1:abort_on_error=1:detect_leaks=1:strict_string_checks=1:symbolize=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1:symbolize=1}"
# Leaks inside Debian's own libraries only, each with its reason (tests/fuzz/lsan.supp).
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$root/tests/fuzz/lsan.supp:print_suppressions=0}"
export QT_QPA_PLATFORM=offscreen

# The seeds made from tests/data are rebuilt every run (cheap); the grown corpus stays in build/.
rm -rf "$build/seeds"
python3 tests/fuzz/seed.py "$root" "$build/seeds"

common=(-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 -print_final_stats=1)

# One target: replay, then fuzz. Prints one line per step; leaves a FINDING file on a finding.
run_target() {
  local t=$1 name=${1#fuzz_}
  local bin="$build/tests/fuzz/$t" corpus="$build/corpus/$t" findings="$build/findings/$t"
  mkdir -p "$corpus" "$findings" "tests/fuzz/regressions/$t"
  rm -f "$findings/FINDING"
  local inputs=() dict=() d t0
  for d in "$build/seeds/$t" "tests/fuzz/seeds/$t" "tests/fuzz/regressions/$t"; do
    if [ -d "$d" ]; then inputs+=("$d"); fi
  done
  if [ -f "tests/fuzz/dict/$name.dict" ]; then dict=(-dict="tests/fuzz/dict/$name.dict"); fi
  finding() {
    echo "$1" > "$findings/FINDING"
    tail -n 60 "$findings/$1.log" >&2
    echo "fuzz: FINDING in $t ($1): inputs in $findings/; minimize one with" >&2
    echo "  $bin -minimize_crash=1 -runs=20000 -exact_artifact_path=tests/fuzz/regressions/$t/NAME INPUT" >&2
  }

  # 1. Replay: every seed and every grown input at once, then each regression on its own (so
  # every open one is named, not only the first).
  t0=$(date +%s)
  local seeds=() f bad=()
  for d in "${inputs[@]}"; do
    if [ "$d" != "tests/fuzz/regressions/$t" ]; then seeds+=("$d"); fi
  done
  if ! "$bin" "${common[@]}" -runs=0 -artifact_prefix="$findings/" "$corpus" "${seeds[@]}" > "$findings/replay.log" 2>&1; then
    finding replay
    return
  fi
  for f in "tests/fuzz/regressions/$t"/*; do
    [ -f "$f" ] || continue
    if ! "$bin" "${common[@]}" -artifact_prefix="$findings/" "$f" > "$findings/regression-${f##*/}.log" 2>&1; then
      bad+=("${f##*/}")
    fi
  done
  if [ ${#bad[@]} -gt 0 ]; then
    echo "regressions" > "$findings/FINDING"
    echo "fuzz: FINDING in $t: regressions still failing: ${bad[*]} (logs: $findings/regression-NAME.log)" >&2
    return
  fi
  echo "fuzz: $t replayed $(sed -n 's/^stat::number_of_executed_units: *//p' "$findings/replay.log") inputs and" \
       "$(ls "tests/fuzz/regressions/$t" | wc -l) regressions in $(($(date +%s) - t0)) s"

  # 2. Fuzz for the time given, growing the corpus in build/.
  [ "$seconds" -gt 0 ] || return 0
  if ! "$bin" "${common[@]}" "${dict[@]}" -max_total_time="$seconds" -artifact_prefix="$findings/" \
      "$corpus" "${inputs[@]}" > "$findings/fuzz.log" 2>&1; then
    finding fuzz
    return
  fi
  echo "fuzz: $t ran $seconds s: $(sed -n 's/^stat::number_of_executed_units: *//p' "$findings/fuzz.log") executions," \
       "$(sed -n 's/^stat::average_exec_per_sec: *//p' "$findings/fuzz.log")/s, corpus $(ls "$corpus" | wc -l) inputs"
}

# The targets are single-threaded: run as many at once as there are cores (at most
# SLICESCOPE_FUZZ_JOBS, default 2).
jobs_max=${SLICESCOPE_FUZZ_JOBS:-2}
for t in $targets; do
  [ -x "$build/tests/fuzz/$t" ] || { echo "run.sh: $build/tests/fuzz/$t was not built" >&2; exit 1; }
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
  run_target "$t" &
done
wait

failed=()
for t in $targets; do
  if [ -f "$build/findings/$t/FINDING" ]; then failed+=("$t ($(cat "$build/findings/$t/FINDING"))"); fi
done
echo "fuzz: done in $(($(date +%s) - start)) s"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: ${#failed[@]} target(s) with findings: ${failed[*]}" >&2
  exit 1
fi
