#!/usr/bin/env bash
# A tiny lit: runs every `// RUN:` line of a golden file with bash -o pipefail.
# Substitutions: %s = the file, %S = its folder, %t = a scratch path. `ptir`, `FileCheck` and `not`
# resolve to the build's ptir and LLVM 14's tools through PATH.
# Usage: lit.sh PTIR_BIN_DIR LLVM_BIN_DIR FILE
set -uo pipefail
bin="$1"; llvm="$2"; file="$3"
export PATH="$bin:$llvm:$PATH"
dir="$(cd "$(dirname "$file")" && pwd)"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
n=0
while IFS= read -r line; do
  cmd="${line#*RUN:}"
  cmd="${cmd//%s/$file}"; cmd="${cmd//%S/$dir}"; cmd="${cmd//%t/$tmp/t}"
  n=$((n + 1))
  if ! bash -o pipefail -c "$cmd"; then
    echo "FAILED RUN line $n of $file:" >&2
    echo "  $cmd" >&2
    exit 1
  fi
done < <(grep -E '^[[:space:]]*//[[:space:]]*RUN:' "$file")
if [ "$n" -eq 0 ]; then echo "no RUN lines in $file" >&2; exit 1; fi
echo "$n RUN line(s) passed: $file"
