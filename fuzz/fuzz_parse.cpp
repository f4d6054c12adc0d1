// libFuzzer target: any bytes -> parser. Must never crash, hang or trip a sanitizer; an accepted
// program must print, re-parse to the same text (fixed point) and verify without crashing.
#include <cstdio>

#include "fuzz/harness/parse_case.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string finding = ptir::fuzz::fuzz_parse_case(data, size);
  if (!finding.empty()) {
    std::fprintf(stderr, "fuzz_parse finding:\n%s\n", finding.c_str());
    __builtin_trap();
  }
  return 0;
}
