// libFuzzer target: bytes -> a random program (the shared generator) -> exported to tosa or arith MLIR
// -> MLIR's canonicalizer (or tosa-layerwise-constant-fold) in-process through MLIR's PassManager ->
// imported back -> refinement checked. A REFUTED that replays is a finding unless it is a known MLIR
// finding (reported once, then skipped); UNKNOWN and NOT IMPORTABLE are not. Built only with MLIR.
#include <cstdio>

#include "fuzz/harness/harness.h"
#include "fuzz/mlir/mlir_tv_case.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A case checked before in this process is not checked again (fuzz/harness/repeats.h).
  static ptir::fuzz::RepeatFilter& repeats = ptir::fuzz::target_repeat_filter("fuzz_mlir_tv");
  std::string finding = ptir::fuzz::fuzz_mlir_tv_case(data, size, nullptr, &repeats);
  if (!finding.empty()) {
    std::fprintf(stderr, "fuzz_mlir_tv finding:\n%s\n", finding.c_str());
    __builtin_trap();
  }
  return 0;
}
