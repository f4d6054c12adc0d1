#!/usr/bin/env bash
# Times `ptir check-equiv` on every pair of corpus/equiv and ../shared/spec/examples/equiv, one at a time,
# and prints a table (ms, expected, verdict, pair) followed by the median and the maximum.
# Usage: tests/verify/time_corpus.sh PTIR [ROOT]   (ROOT: the checkout, default: this script's ../..)
set -uo pipefail
ptir="$1"; root="${2:-$(cd "$(dirname "$0")/../.." && pwd)}"
tmp="$(mktemp)"; trap 'rm -f "$tmp"' EXIT
for src in "$root"/corpus/equiv/*.src.ptir "$root"/../shared/spec/examples/equiv/*.src.ptir; do
  tgt="${src%.src.ptir}.tgt.ptir"
  expect="$(head -1 "$src" | sed -n 's|^// EXPECT: *||p')"
  start=$(date +%s%N)
  verdict="$("$ptir" check-equiv "$src" "$tgt" 2>/dev/null | head -1 | cut -d: -f1)"
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  printf '%6d  %-10s  %-8s  %s\n' "$ms" "$expect" "$verdict" "$(basename "$src" .src.ptir)" | tee -a "$tmp"
done
sort -n "$tmp" | awk '{a[NR] = $1} END {
  med = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
  printf "pairs %d, median %d ms, max %d ms\n", NR, med, a[NR] }'
