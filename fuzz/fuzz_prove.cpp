// libFuzzer target: bytes -> a random rule (fuzz/gen/gen_rules.h: a source DAG of data-movement and
// elementwise ops, its result a mutation of the source) -> the bounded and the all-shape prover ->
// every PROVED must hold on concrete instances up to rank 6 and dim 5 under the interpreter, a rule
// planted with a capture in two attribute roles must not load, nothing may crash or hang
// (fuzz/harness/prove_case.h). Slow by nature: Z3 runs for every input.
#include <cstdio>

#include "fuzz/harness/prove_case.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string finding = ptir::fuzz::fuzz_prove_case(data, size);
  if (!finding.empty()) {
    std::fprintf(stderr, "fuzz_prove finding:\n%s\n", finding.c_str());
    __builtin_trap();
  }
  return 0;
}
