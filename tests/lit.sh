#!/usr/bin/env bash
# A tiny lit: runs every `// RUN:` line of a golden file with bash -o pipefail. A RUN line ending in `\`
# continues on the next RUN line, `%%` is a literal `%`, and `// REQUIRES: plugins` is honoured, as in
# LLVM's lit (tests/golden/lit.cfg.py runs the same files with the real one).
# Substitutions: %s = the file, %S = its folder, %t = a scratch path. `ptir`, `FileCheck` and `not`
# resolve to the build's ptir and LLVM 14's tools through PATH.
# Usage: lit.sh PTIR_BIN_DIR LLVM_BIN_DIR FILE
set -uo pipefail
bin="$1"; llvm="$2"; file="$3"
export PATH="$bin:$llvm:$PATH"
dir="$(cd "$(dirname "$file")" && pwd)"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
n=0
if grep -qE '^[[:space:]]*//[[:space:]]*REQUIRES:.*plugins' "$file" && [ ! -d "${PTIR_TEST_PLUGINS:-/nonexistent}" ]; then
  echo "UNSUPPORTED (REQUIRES: plugins): $file"; exit 0
fi
pending=""
while IFS= read -r line; do
  line="${line#*RUN:}"
  if [[ "$line" =~ \\[[:space:]]*$ ]]; then pending+="${line%\\*} "; continue; fi
  cmd="$pending$line"; pending=""
  # As lit does: `%%` is a literal `%` (kept out of the way of the other substitutions).
  cmd="${cmd//%%/$'\x01'}"
  cmd="${cmd//%s/$file}"; cmd="${cmd//%S/$dir}"; cmd="${cmd//%t/$tmp/t}"
  cmd="${cmd//$'\x01'/%}"
  n=$((n + 1))
  # Each RUN line gets an empty verdict cache of its own (`ptir prove` caches in $XDG_CACHE_HOME/ptir by
  # default): a golden sees a cold run unless it names a --cache-dir itself.
  if ! XDG_CACHE_HOME="$tmp/xdg-cache-$n" bash -o pipefail -c "$cmd"; then
    echo "FAILED RUN line $n of $file:" >&2
    echo "  $cmd" >&2
    exit 1
  fi
done < <(grep -E '^[[:space:]]*//[[:space:]]*RUN:' "$file")
if [ "$n" -eq 0 ]; then echo "no RUN lines in $file" >&2; exit 1; fi
echo "$n RUN line(s) passed: $file"
