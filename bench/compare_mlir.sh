#!/usr/bin/env bash
# ptir vs mlir-opt end to end on the realistic benchmark program (bench/realistic.cpp) and its MLIR twin:
# `ptir opt FILE` (parse, verify, fixpoint(4){canonicalize,cse,dce}, print) against
# `mlir-opt --canonicalize --cse FILE` (parse, verify, both passes, print). Installs mlir-14-tools with apt
# when it is missing, builds Release. Times are CPU seconds (user + sys; the build machine is shared, so
# wall time mostly measures the neighbours), best of RUNS.
# Usage: bench/compare_mlir.sh [SIZES...]   (default: 200000 1000000; RUNS=3)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
if ! command -v mlir-opt-14 >/dev/null && [ ! -x /usr/lib/llvm-14/bin/mlir-opt ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends mlir-14-tools >/dev/null
fi
mlir="$(command -v mlir-opt-14 || echo /usr/lib/llvm-14/bin/mlir-opt)"
"$root/scripts/build" Release >/dev/null
bench="$root/build/release/bench/ptir_bench"; ptir="$root/build/release/tools/ptir"
runs="${RUNS:-3}"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
sizes=("$@"); [ ${#sizes[@]} -eq 0 ] && sizes=(200000 1000000)

best_cpu() {  # best user+sys seconds of $runs runs of "$@"
  local best=""
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%U %S" -o "$tmp/t" "$@" >/dev/null
    local t; t="$(awk '{printf "%.3f", $1 + $2}' "$tmp/t")"
    if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN{exit !(a < b)}'; then best="$t"; fi
  done
  echo "$best"
}

printf '%10s  %10s  %10s  %12s  %8s\n' ops ptir_s mlir_opt_s ptir/mlir target
for n in "${sizes[@]}"; do
  "$bench" --emit-realistic "$n" "$tmp/p.ptir" >/dev/null
  "$bench" --emit-realistic-mlir "$n" "$tmp/p.mlir" >/dev/null
  p="$(best_cpu "$ptir" opt "$tmp/p.ptir")"
  m="$(best_cpu "$mlir" --canonicalize --cse "$tmp/p.mlir")"
  printf '%10s  %10s  %10s  %12s  %8s\n' "$n" "$p" "$m" "$(awk -v a="$p" -v b="$m" 'BEGIN{printf "%.3f", a / b}')" "<= 0.08"
done
