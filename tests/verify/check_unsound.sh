#!/usr/bin/env bash
# Checks that `ptir prove` REFUTES every rule of one file of the unsound corpus (corpus/unsound/).
# Usage: check_unsound.sh PTIR FILE.rules
# Passes only when ptir exits 1, prints a table whose every pattern row says REFUTED, and shows a
# counterexample (a "rewritten by" section) for each, and no rule of the file is PROVED FOR ALL SHAPES.
set -uo pipefail
ptir="$1"; file="$2"
# One run with --all-shapes: its table has the bounded verdict (column 2) and the all-shape one, and the
# report shows each bounded counterexample as the run without it would (a second, bounded-only run of
# the same rules would only repeat the bounded half: the dot_general file took 330 s that way).
out="$("$ptir" prove --no-cache --rules "$file" --instances 48 --all-shapes 2>&1)"; rc=$?
printf '%s\n' "$out"
rows="$(printf '%s\n' "$out" | awk 'NR>1 && /^totals:/ {exit} NR>1 {print $2}')"
n=$(printf '%s\n' "$rows" | grep -c . || true)
refuted=$(printf '%s\n' "$rows" | grep -c '^REFUTED$' || true)
shown=$(printf '%s\n' "$out" | grep -c '^rewritten by ' || true)
if [ "$rc" -ne 1 ]; then echo "FAIL: exit $rc (expected 1)"; exit 1; fi
if [ "$n" -eq 0 ] || [ "$refuted" -ne "$n" ]; then echo "FAIL: $refuted of $n rules REFUTED"; exit 1; fi
if [ "$shown" -lt "$n" ]; then echo "FAIL: $shown counterexamples shown for $n rules"; exit 1; fi
if printf '%s\n' "$out" | awk '/^totals:/ {exit} NR>1 {print}' | grep -q 'ALL SHAPES ('; then
  echo "FAIL: an unsound rule is PROVED FOR ALL SHAPES"; exit 1
fi
echo "PASS: all $n rules REFUTED with a counterexample; none PROVED FOR ALL SHAPES"
