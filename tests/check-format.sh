#!/usr/bin/env bash
# The formatter check: every C++ file the repository holds against .clang-format, with the one
# clang-format version the style was tuned on (PyPI's clang-format, pinned below, in a venv kept
# in the ignored cache folder; Debian 12's clang-format 14 lacks options the style needs).
#   tests/check-format.sh         lists the files that differ and exits 1 if any does
#   tests/check-format.sh --fix   rewrites them in place
set -euo pipefail
cd "$(dirname "$0")/.."
version=23.1.3
venv="${XDG_CACHE_HOME:-$HOME/.cache}/slicescope/clang-format-$version"
if [[ ! -x "$venv/bin/clang-format" ]]; then
    "${SLICESCOPE_PYTHON:-python3}" -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "clang-format==$version"
fi
cf="$venv/bin/clang-format"
mapfile -t files < <(git ls-files '*.cpp' '*.h' | grep -v '^tests/fuzz/regressions/')
if [[ "${1:-}" == --fix ]]; then
    "$cf" -i "${files[@]}"
    exit 0
fi
bad=0
for f in "${files[@]}"; do
    if ! "$cf" --dry-run -Werror "$f" >/dev/null 2>&1; then
        echo "check-format: $f is not formatted as .clang-format says (tests/check-format.sh --fix)"
        bad=1
    fi
done
if (( bad == 0 )); then
    echo "check-format: ${#files[@]} files formatted as .clang-format says (clang-format $version)"
fi
exit $bad
