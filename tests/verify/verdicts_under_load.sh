#!/usr/bin/env bash
# Reproducible verdicts (issue 15 item 11): proves the given rule files (bounded and --all-shapes) once
# alone and once beside CPU hogs (one busy loop per core), and fails unless both verdict tables are
# identical (every column but the times). Z3's budgets are resource units, not wall time
# (docs/verification.md "Budgets"), so load must not change a verdict. Both runs prove with --jobs
# equal to the cores (each check still runs on one solver thread): alone, the run uses the cores the
# test holds (ctest runs it serially); loaded, the provers and the hogs share them two to a core.
# Usage: verdicts_under_load.sh PTIR RULES...
set -euo pipefail
ptir="$1"
shift
args=()
for f in "$@"; do args+=(--rules "$f"); done
tmp="$(mktemp -d)"
hogs=()
cleanup() {
  # SIGKILL and wait: a hog left behind would eat a core for hours (one did).
  for p in "${hogs[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  for p in "${hogs[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# The table without times: "12.34s" cells and the totals' "median ... ms, max ... ms".
table() {
  sed -E -e 's/ +[0-9]+\.[0-9]+s / /' -e 's/median [0-9]+ ms, max [0-9]+ ms//' -e 's/ in [0-9.]+ ?m?s//g' -e 's/ +/ /g' "$1" |
    grep -v '^--' | grep -E '^(pattern|[a-z_0-9]+ (PROVED|TESTED|REFUTED|PARTIAL|NOT|ERROR|UNKNOWN)|all shapes:|[0-9]+ patterns)' || true
}
status=0
ncpu="$(nproc)"
"$ptir" prove "${args[@]}" --all-shapes --jobs "$ncpu" --no-progress --no-cache >"$tmp/alone.txt" 2>&1 || status=$?
alone_status=$status
for ((k = 0; k < ncpu; ++k)); do
  (while :; do :; done) &
  hogs+=($!)
done
status=0
"$ptir" prove "${args[@]}" --all-shapes --jobs "$ncpu" --no-progress --no-cache >"$tmp/loaded.txt" 2>&1 || status=$?
loaded_status=$status
table "$tmp/alone.txt" >"$tmp/a"
table "$tmp/loaded.txt" >"$tmp/b"
rows="$(grep -c -E ' (PROVED|TESTED|REFUTED|PARTIAL|NOT|ERROR|UNKNOWN) ' "$tmp/a" || true)"
if [[ "$rows" -eq 0 ]]; then
  echo "FAIL: no verdict rows in the unloaded run:"
  cat "$tmp/alone.txt"
  exit 1
fi
if ! diff -u "$tmp/a" "$tmp/b"; then
  echo "FAIL: the verdict table changed beside $ncpu CPU hogs (above: alone, then loaded)"
  exit 1
fi
if [[ "$alone_status" -ne "$loaded_status" ]]; then
  echo "FAIL: exit status $alone_status alone, $loaded_status loaded"
  exit 1
fi
echo "PASS: $rows patterns, the same verdicts alone and beside $ncpu CPU hogs (exit $alone_status both times)"
cat "$tmp/a"
