// libFuzzer target: bytes -> a small random program and a mutant of it -> check_refinement with a short
// budget -> a PROVED verdict must survive interpreter runs on edge-biased inputs, a REFUTED one must
// replay. A false PROVED is the worst bug the project can have.
#include <cstdio>

#include "fuzz/harness/harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A program checked before in this process is not checked again (fuzz/harness/repeats.h).
  static ptir::fuzz::RepeatFilter& repeats = ptir::fuzz::target_repeat_filter("fuzz_equiv");
  std::string finding = ptir::fuzz::fuzz_equiv_case(data, size, &repeats);
  if (!finding.empty()) {
    std::fprintf(stderr, "fuzz_equiv finding:\n%s\n", finding.c_str());
    __builtin_trap();
  }
  return 0;
}
