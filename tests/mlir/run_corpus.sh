#!/usr/bin/env bash
# Runs `ptir tv FILE -- mlir-opt-19 --canonicalize` on every corpus/mlir/*.mlir (or the files given) and
# prints one row per function: FILE @FUNCTION VERDICT, then the counts (docs/mlir.md "Corpus").
# Usage: run_corpus.sh PTIR [FILE...]   (exit 0 when every run ended with a verdict; REFUTED is a result)
set -uo pipefail
ptir="$1"; shift
root="$(cd "$(dirname "$0")/../.." && pwd)"
files=("$@"); [ ${#files[@]} -eq 0 ] && files=("$root"/corpus/mlir/*.mlir)
status=0
rows=""
for f in "${files[@]}"; do
  out="$("$ptir" tv --no-shrink "$f" -- mlir-opt-19 --canonicalize)"; rc=$?
  if [ $rc -eq 3 ]; then rows+="$(basename "$f") ERROR (exit 3)"$'\n'; status=1; continue; fi
  rows+="$(echo "$out" | awk -v f="$(basename "$f")" '/^@/ { v = $2; if ($2 == "NOT") v = "NOT_IMPORTABLE"; print f, $1, v }')"$'\n'
done
printf '%s' "$rows" >&2
printf '%s' "$rows" | awk 'NF { n[$3]++; t++ } END { printf "functions %d:", t; for (k in n) printf " %s %d", k, n[k]; print "" }'
exit $status
