#!/usr/bin/env bash
# The random campaign of docs/mlir.md: for seeds 1..N, `ptir synth` (edge-value literals; every other seed
# with --seeded-patterns, the source DAGs of known rewrites) exported with --to=tosa and --to=arith; each
# program that exports goes through mlir-opt-19 with each pass and `ptir tv` checks the output. Prints one
# row per check, `SEED DIALECT PASS @FUNCTION VERDICT` (exit code of tv in brackets for errors), then the
# counts. Programs that do not export (an op without an exact MLIR form) are counted, not checked.
# Usage: run_random.sh PTIR N [FIRST_SEED]
set -uo pipefail
ptir="$1"; n="$2"; first="${3:-1}"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
passes=("--canonicalize" "--tosa-layerwise-constant-fold")
tried=0; skipped=0
for ((s = first; s < first + n; s++)); do
  extra=(); (( s % 2 == 0 )) && extra=(--seeded-patterns)
  "$ptir" synth --seed "$s" --ops 4 --max-elements 16 --dtypes f32,f16,bf16,f64,si8,si16,si32,si64,i1 \
    "${extra[@]}" > "$tmp/p.ptir" 2>/dev/null || { echo "$s synth FAILED"; continue; }
  for d in tosa arith; do
    tried=$((tried + 1))
    if ! "$ptir" export --to=$d "$tmp/p.ptir" > "$tmp/p.mlir" 2>/dev/null; then skipped=$((skipped + 1)); continue; fi
    for pass in "${passes[@]}"; do
      out="$("$ptir" tv --no-shrink --timeout-ms 5000 "$tmp/p.mlir" -- mlir-opt-19 "$pass")"; rc=$?
      if [ $rc -eq 3 ]; then echo "$s $d $pass - ERROR[3]"; continue; fi
      echo "$out" | awk -v p="$s $d $pass" '/^@/ { v = $2; if ($2 == "NOT") v = "NOT_IMPORTABLE"; print p, $1, v }'
      if [ $rc -eq 1 ]; then cp "$tmp/p.mlir" "$tmp/../ptir-random-refuted-$s-$d.mlir" 2>/dev/null; fi
    done
  done
done > "$tmp/rows"
cat "$tmp/rows"
echo "programs x dialects tried: $tried, not exportable: $skipped"
awk '{ c[$5]++; t++ } END { printf "checks %d:", t; for (k in c) printf " %s %d", k, c[k]; print "" }' "$tmp/rows"
