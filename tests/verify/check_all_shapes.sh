#!/usr/bin/env bash
# The library proved bounded AND for all shapes (docs/verification.md "All-shape proofs"), in shards.
# Usage:
#   check_all_shapes.sh PTIR OUTDIR K N [CACHE_DIR]   shard K of N: `ptir prove --all-shapes --shard K/N`
#   check_all_shapes.sh --summary OUTDIR N            the checks over the whole library, from N shards
# A shard passes when `ptir prove --all-shapes` exits 0 (nothing refuted, no disagreement between the
# all-shape and bounded proofs) and none of its patterns is PARTIAL (every reachable coverage class fired:
# docs/verification.md "Coverage"); it leaves OUTDIR/shard-K-of-N.json. The summary needs every shard's
# JSON, complete, and passes when together they hold every pattern of the library exactly once, none
# PARTIAL or in disagreement, and at least half of the library's rules PROVED FOR ALL SHAPES.
# CACHE_DIR: the verdict cache (`--cache-dir`; docs/verification.md "Verdict cache"), else none.
set -uo pipefail
if [ "${1:-}" = "--summary" ]; then
  out="$2"; n="$3"
  total=""; rules=0; proved=0; patterns=0
  for ((k = 1; k <= n; ++k)); do
    json="$out/shard-$k-of-$n.json"
    if [ ! -s "$json" ]; then echo "FAIL: no report of shard $k/$n ($json)"; exit 1; fi
    if ! grep -q '^{"complete": true' "$json"; then echo "FAIL: shard $k/$n did not complete"; exit 1; fi
    if grep -q '"disagreement": true' "$json"; then echo "FAIL: an all-shape/bounded disagreement in shard $k/$n"; exit 1; fi
    if grep -q '"verdict": "PARTIAL"' "$json"; then echo "FAIL: a PARTIAL pattern in shard $k/$n"; exit 1; fi
    rules=$((rules + $(grep -c '"origin": "patterns/rules/' "$json" || true)))
    proved=$((proved + $(grep '"origin": "patterns/rules/' "$json" | grep -c '"all_shapes": {"verdict": "PROVED FOR ALL SHAPES"' || true)))
    patterns=$((patterns + $(grep -c '^  *{"name": ' "$json" || true)))
  done
  library="$(cat "$out/library-size" 2>/dev/null || true)"
  if [ -z "$library" ] || [ "$patterns" -ne "$library" ]; then
    echo "FAIL: the shards hold $patterns patterns, the library ${library:-?}"; exit 1
  fi
  if [ "$rules" -eq 0 ] || [ $((proved * 2)) -lt "$rules" ]; then echo "FAIL: $proved of $rules rules PROVED FOR ALL SHAPES (< half)"; exit 1; fi
  echo "PASS: $patterns patterns in $n shards; $proved of $rules library rules PROVED FOR ALL SHAPES"
  exit 0
fi
ptir="$1"; out="$2"; k="${3:-1}"; n="${4:-1}"; cache="${5:-}"
mkdir -p "$out"
json="$out/shard-$k-of-$n.json"
rm -f "$json"
"$ptir" prove --list | wc -l > "$out/library-size"
if [ -n "$cache" ]; then cache_opt=(--cache-dir "$cache"); else cache_opt=(--no-cache); fi
output="$("$ptir" prove --jobs 1 --all-shapes --shard "$k/$n" "${cache_opt[@]}" --junit "$out/shard-$k-of-$n.xml" --json "$json" 2>&1)"; rc=$?
printf '%s\n' "$output"
if [ "$rc" -ne 0 ]; then echo "FAIL: ptir prove --all-shapes --shard $k/$n exited $rc"; exit 1; fi
if grep -q '"disagreement": true' "$json"; then echo "FAIL: an all-shape/bounded disagreement"; exit 1; fi
partial=$(grep -c '"verdict": "PARTIAL"' "$json" || true)
if [ "$partial" -ne 0 ]; then echo "FAIL: $partial library patterns PARTIAL (a reachable coverage class never fired)"; exit 1; fi
echo "PASS: shard $k/$n: $(grep -c '^  *{"name": ' "$json") patterns, none failing, none PARTIAL"
