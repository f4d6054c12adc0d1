// libFuzzer target: bytes -> a random rule (fuzz/gen/gen_rules.h: a source DAG of data-movement and
// elementwise ops, its result a mutation of the source) -> the bounded and the all-shape prover ->
// every PROVED must hold on concrete instances up to rank 6 and dim 5 under the interpreter, a rule
// planted with a capture in two attribute roles must not load, nothing may crash or hang
// (fuzz/harness/prove_case.h). Slow by nature: Z3 runs for every input.
#include <cstdio>

#include "fuzz/harness/harness.h"
#include "fuzz/harness/prove_case.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A rule checked before in this process is not checked again (fuzz/harness/repeats.h).
  static ptir::fuzz::RepeatFilter& repeats = ptir::fuzz::target_repeat_filter("fuzz_prove", "rules");
  std::string finding = ptir::fuzz::fuzz_prove_case(data, size, &repeats);
  if (!finding.empty()) {
    std::fprintf(stderr, "fuzz_prove finding:\n%s\n", finding.c_str());
    __builtin_trap();
  }
  return 0;
}
