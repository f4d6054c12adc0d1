// libFuzzer target: bytes -> a random well-typed program (the bytes decide every generator choice) ->
// the default pipeline with expensive checks -> the output verifies, keeps the interpreter's results on
// edge and random inputs, and a second run changes nothing.
#include <cstdio>

#include "fuzz/harness/harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A program checked before in this process is not checked again (fuzz/harness/repeats.h).
  static ptir::fuzz::RepeatFilter& repeats = ptir::fuzz::target_repeat_filter("fuzz_pipeline");
  std::string finding = ptir::fuzz::fuzz_pipeline_case(data, size, &repeats);
  if (!finding.empty()) {
    std::fprintf(stderr, "fuzz_pipeline finding:\n%s\n", finding.c_str());
    __builtin_trap();
  }
  return 0;
}
