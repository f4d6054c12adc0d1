#!/bin/bash -eu
# OSS-Fuzz / ClusterFuzzLite build of the ptir fuzz targets. The infrastructure provides $SRC, $OUT, $CXX,
# $CXXFLAGS (sanitizer and coverage flags) and $LIB_FUZZING_ENGINE; this builds fuzz_parse, fuzz_pipeline
# and fuzz_equiv with them (no tests, no benchmarks) and installs the targets, their seed corpora and the
# parser dictionary the way the infrastructure expects ($OUT/<target>, <target>_seed_corpus.zip,
# <target>.dict, <target>.options).
# The sources: $SRC/ptir on OSS-Fuzz (see Dockerfile), else the checkout this script lives in.
src="${SRC:-}/ptir"
[ -f "$src/CMakeLists.txt" ] || src="$(cd "$(dirname "$0")/../.." && pwd)"
build="${WORK:-/tmp}/ptir-fuzz-build"
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_CXX_FLAGS="$CXXFLAGS" \
  -DPTIR_FUZZ_ENGINE="$LIB_FUZZING_ENGINE" -DPTIR_BUILD_TESTS=OFF
targets=(fuzz_parse fuzz_pipeline fuzz_equiv)
[ -f "$src/fuzz/fuzz_rules.cpp" ] && targets+=(fuzz_rules)
cmake --build "$build" --target "${targets[@]}" -j "$(nproc)"
for t in "${targets[@]}"; do
  cp "$build/fuzz/$t" "$OUT/"
  if [ -d "$src/corpus/fuzz/$t" ]; then
    (cd "$src/corpus/fuzz/$t" && zip -q -r "$OUT/${t}_seed_corpus.zip" .)
  fi
done
cp "$src/fuzz/ptir.dict" "$OUT/fuzz_parse.dict"
printf '[libfuzzer]\nmax_len = 4096\n' > "$OUT/fuzz_parse.options"
printf '[libfuzzer]\nmax_len = 1024\ntimeout = 30\n' > "$OUT/fuzz_pipeline.options"
printf '[libfuzzer]\nmax_len = 1024\ntimeout = 60\n' > "$OUT/fuzz_equiv.options"
