// libFuzzer target: bytes -> a random well-typed program (the bytes decide every generator choice) ->
// the default pipeline with expensive checks -> the output verifies, keeps the interpreter's results on
// edge and random inputs, and a second run changes nothing.
#include <cstdio>
#include <cstdlib>

#include "fuzz/harness/harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // PTIR_FUZZ_RECORD=DIR: every input is also written to DIR/NNNNNNNN, in the order run, so that one
  // stream of inputs can be replayed through two builds (bench/fuzz_stream.sh).
  static const char* record = std::getenv("PTIR_FUZZ_RECORD");
  static unsigned long recorded = 0;
  if (record) {
    char path[4096];
    std::snprintf(path, sizeof path, "%s/%08lu", record, recorded++);
    if (FILE* f = std::fopen(path, "wb")) {
      std::fwrite(data, 1, size, f);
      std::fclose(f);
    }
  }
  // A program checked before in this process is not checked again (fuzz/harness/repeats.h).
  static ptir::fuzz::RepeatFilter& repeats = ptir::fuzz::target_repeat_filter("fuzz_pipeline");
  std::string finding = ptir::fuzz::fuzz_pipeline_case(data, size, &repeats);
  if (!finding.empty()) {
    std::fprintf(stderr, "fuzz_pipeline finding:\n%s\n", finding.c_str());
    __builtin_trap();
  }
  return 0;
}
