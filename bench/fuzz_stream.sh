#!/usr/bin/env bash
# fuzz_pipeline's speed on one fixed stream of inputs (docs/fuzzing.md, "Throughput, tenth round"). A
# 60 s libFuzzer run varies by 10-20% between identical runs on a shared VM, and two builds do not even
# see the same inputs (coverage steers the mutations); a recorded stream replayed through each build
# in one process does (the repeat filter then works as in a campaign).
#
# Usage: bench/fuzz_stream.sh record N DIR            N inputs of a run from the seeds (-seed=1, the
#                                                      flags of scripts/fuzz) into DIR, in order
#        bench/fuzz_stream.sh replay DIR BIN_A BIN_B [ROUNDS]
#                                                      the stream through each fuzz_pipeline binary,
#                                                      alternating ROUNDS times (default 4): CPU seconds
#                                                      of each, then the minimum and median; each run's
#                                                      "programs checked" must agree
# Build the binaries with scripts/fuzz fuzz_pipeline 0 (build/fuzz/fuzz/fuzz_pipeline); copy one aside
# before changing the code to compare it with the next.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
usage() { sed -n '7,14p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 1 ] || usage
export ASAN_OPTIONS="malloc_context_size=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
case "$1" in
  record)
    [ $# -eq 3 ] && [[ "$2" =~ ^[1-9][0-9]*$ ]] || usage
    n="$2"; dir="$3"
    mkdir -p "$dir"; [ -z "$(ls -A "$dir")" ] || { echo "fuzz_stream.sh: $dir is not empty" >&2; exit 2; }
    "$root/scripts/fuzz" fuzz_pipeline 0
    seeds="$(mktemp -d)"; trap 'rm -rf "$seeds"' EXIT
    cp -r "$root/corpus/fuzz/fuzz_pipeline/." "$seeds/"
    PTIR_FUZZ_RECORD="$dir" "$root/build/fuzz/fuzz/fuzz_pipeline" -max_len=1024 -entropic=0 -use_counters=0 \
      -timeout=30 -rss_limit_mb=2048 -seed=1 -runs="$n" "$seeds" >/dev/null 2>&1
    echo "$(ls "$dir" | wc -l) inputs in $dir"
    ;;
  replay)
    [ $# -ge 4 ] && [ $# -le 5 ] || usage
    dir="$2"; a="$3"; b="$4"; rounds="${5:-4}"
    [ -d "$dir" ] && [ -x "$a" ] && [ -x "$b" ] || usage
    tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
    a="$(realpath "$a")"; b="$(realpath "$b")"
    run() {  # BIN -> "cpu checked": every file of the stream, in order, through one process
      (cd "$dir" && mapfile -t files < <(ls) && /usr/bin/time -f "%U %S" -o "$tmp/t" "$1" -runs=1 "${files[@]}") \
        > "$tmp/log" 2>&1 || true
      [ "$(grep -ac "repeats:" "$tmp/log")" = 1 ] ||
        { echo "fuzz_stream.sh: $1 did not run the stream in one process" >&2; tail -5 "$tmp/log" >&2; exit 1; }
      echo "$(awk '{printf "%.2f", $1 + $2}' "$tmp/t") $(grep -a 'repeats:' "$tmp/log" | sed -E 's/.* repeats: ([0-9]+) .*/\1/')"
    }
    ta=(); tb=(); checked=""
    for _ in $(seq "$rounds"); do
      for side in a b; do
        bin="$a"; [ "$side" = b ] && bin="$b"
        read -r cpu n <<<"$(run "$bin")"
        [ -z "$checked" ] && checked="$n"
        [ "$n" = "$checked" ] || echo "fuzz_stream.sh: warning: $bin checked $n programs, the first run $checked" >&2
        if [ "$side" = a ]; then ta+=("$cpu"); else tb+=("$cpu"); fi
      done
    done
    stats() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {printf "min %s  median %s", v[1], v[int((NR+1)/2)]}'; }
    echo "A $a: ${ta[*]}  ($(stats "${ta[@]}"))"
    echo "B $b: ${tb[*]}  ($(stats "${tb[@]}"))"
    echo "programs checked per run: $checked"
    ;;
  *) usage ;;
esac
