#!/usr/bin/env bash
# Emits each generated benchmark program at a small size and checks it with `ptir`.
# Usage: check_emit.sh PTIR_BENCH PTIR
set -euo pipefail
bench="$1"; ptir="$2"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
"$bench" --emit 500 "$tmp/gen.ptir" >/dev/null
"$bench" --emit-realistic 600 "$tmp/realistic.ptir" >/dev/null
"$bench" --emit-functions 300 "$tmp/functions.ptir" >/dev/null
"$bench" --emit-region-chain 100 "$tmp/chain.ptir" >/dev/null
"$bench" --emit-region-chain 200 "$tmp/deep.ptir" >/dev/null
for f in gen realistic functions chain; do
  [ "$("$ptir" verify "$tmp/$f.ptir")" = ok ] || { echo "$f.ptir does not verify" >&2; exit 1; }
done
"$ptir" opt "$tmp/realistic.ptir" --expensive-checks >/dev/null
# Deeper than the verifier's region-depth limit: a verifier error naming the limit, not a run-time surprise.
if "$ptir" verify "$tmp/deep.ptir" 2>"$tmp/err"; then echo "deep.ptir verified" >&2; exit 1; fi
grep -q "more than the limit of 128" "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
echo ok
