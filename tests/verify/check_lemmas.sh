#!/usr/bin/env bash
# Checks every fact of the encoder's double-rounding lemma (verify/encode/body.cpp; docs/verification.md,
# "Exhaustive checks") with the exhaustive backend: for D in f16 bf16 and each op, `op(a, b) : D` against
# `cast(op(cast(a) : f32, cast(b) : f32)) : D` must be "PROVED ... exhaustive, 2^32 cases" (unary ops:
# 65536 cases; maximum and minimum, which never round, Z3 proves before the sweep starts). In ctest as soundness/double_rounding_lemma, label exhaustive (each binary fact is a 2^32
# sweep, about 60-80 s of CPU: not in the default tier); run it after a
# change to the interpreter's element semantics or to the lemma.
# Usage: check_lemmas.sh PTIR [OP...]   (default: every op of the lemma)
set -uo pipefail
ptir="$1"; shift
ops=("$@"); [ ${#ops[@]} -eq 0 ] && ops=(add sub mul div maximum minimum sqrt reciprocal neg abs)
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
fail=0
for d in bf16 f16; do
  for op in "${ops[@]}"; do
    case "$op" in sqrt|reciprocal|neg|abs) unary=1 ;; *) unary=0 ;; esac
    if [ $unary = 1 ]; then
      params="%a: tensor<$d, 2>"; args="%a"; wargs="%a32s"; cast_b=""
    else
      params="%a: tensor<$d, 2>, %b: tensor<$d, 2>"; args="%a, %b"; wargs="%a32s, %b32s"
      cast_b="  %%b32 = cast %%b -> tensor<f32, 2>\n  %%b32s = stop_gradient %%b32 -> tensor<f32, 2>"
    fi
    printf 'func @main(%s) -> tensor<%s, 2> {\n  %%r = %s %s -> tensor<%s, 2>\n  return %%r\n}\n' \
      "$params" "$d" "$op" "$args" "$d" > "$tmp/s.ptir"
    # The casts are read through stop_gradient (the identity) so that the encoder's lemma, whose facts
    # these are, does not match: Z3 gives up after 5 s and the sweep decides.
    printf "func @main(%s) -> tensor<%s, 2> {\n  %%a32 = cast %%a -> tensor<f32, 2>\n  %%a32s = stop_gradient %%a32 -> tensor<f32, 2>\n$cast_b\n  %%w = %s %s -> tensor<f32, 2>\n  %%r = cast %%w -> tensor<%s, 2>\n  return %%r\n}\n" \
      "$params" "$d" "$op" "$wargs" "$d" > "$tmp/t.ptir"
    out="$("$ptir" check-equiv "$tmp/s.ptir" "$tmp/t.ptir" --timeout-ms 1200000 2>&1 | head -1)"
    # maximum/minimum never round: Z3 proves those facts within its 5 s, before the sweep (also a proof).
    if printf '%s' "$out" | grep -q '^PROVED.*exhaustive, \(2^32\|65536\) cases' ||
       { case "$op" in maximum|minimum) true ;; *) false ;; esac && printf '%s' "$out" | grep -q '^PROVED'; }; then
      echo "ok   $op $d: $out"
    else
      echo "FAIL $op $d: $out"; fail=1
    fi
  done
done
exit $fail
