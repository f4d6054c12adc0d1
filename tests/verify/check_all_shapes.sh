#!/usr/bin/env bash
# The library proved bounded AND for all shapes (docs/verification.md "All-shape proofs").
# Usage: check_all_shapes.sh PTIR JUNIT_OUT
# Passes when `ptir prove --all-shapes` exits 0 (nothing refuted, no disagreement between the all-shape
# and bounded proofs), no pattern is PARTIAL (every reachable coverage class of every pattern fired:
# docs/verification.md "Coverage"), and at least half of the library's rules are PROVED FOR ALL SHAPES.
set -uo pipefail
ptir="$1"; junit="$2"
json="$(mktemp)"; trap 'rm -f "$json"' EXIT
out="$("$ptir" prove --jobs 2 --all-shapes --junit "$junit" --json "$json" 2>&1)"; rc=$?
printf '%s\n' "$out"
if [ "$rc" -ne 0 ]; then echo "FAIL: ptir prove --all-shapes exited $rc"; exit 1; fi
rules=$(grep -c '"origin": "patterns/rules/' "$json" || true)
proved=$(grep '"origin": "patterns/rules/' "$json" | grep -c '"all_shapes": {"verdict": "PROVED FOR ALL SHAPES"' || true)
if grep -q '"disagreement": true' "$json"; then echo "FAIL: an all-shape/bounded disagreement"; exit 1; fi
partial=$(grep -c '"verdict": "PARTIAL"' "$json" || true)
if [ "$partial" -ne 0 ]; then echo "FAIL: $partial library patterns PARTIAL (a reachable coverage class never fired)"; exit 1; fi
if [ "$rules" -eq 0 ] || [ $((proved * 2)) -lt "$rules" ]; then echo "FAIL: $proved of $rules rules PROVED FOR ALL SHAPES (< half)"; exit 1; fi
echo "PASS: $proved of $rules library rules PROVED FOR ALL SHAPES"
