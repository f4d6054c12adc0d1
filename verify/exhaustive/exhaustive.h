// The exhaustive backend of the refinement check (docs/verification.md, "Exhaustive checks"): for a
// pair of functions made only of elementwise ops whose parameters are all narrow (f16, bf16, 8/16-bit
// integers, i1; at most 32 input bits in all), every input bit pattern is run through the interpreter's
// element semantics (ir/interp/scalar.h, the functions its kernels call), in parallel, and compared with
// the spec's result equality. A sweep with no difference is a proof by enumeration; a difference is
// replayed in the reference interpreter before it is reported.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "ir/program.h"

namespace ptir::verify {

struct ExhaustiveOptions {
  unsigned threads = 2;
  /// The sweep stops here (the verdict is then Inconclusive, never Proved).
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  /// Largest input width swept, in bits (the number of cases is 2^bits).
  int max_bits = 32;
};

struct ExhaustiveResult {
  enum class Kind {
    NotApplicable,  ///< outside the backend's scope (`reason` says why): use another backend
    Proved,         ///< every input pattern was run: no difference, no target UB where the source is defined
    Refuted,        ///< `inputs` (one splat tensor per parameter) is a difference the interpreter replayed
    Inconclusive,   ///< the sweep stopped (deadline), or found nothing but cannot prove (libm ops)
  };
  Kind kind = Kind::NotApplicable;
  std::string reason;     ///< why not applicable / inconclusive
  int bits = 0;           ///< input width swept: 2^bits cases
  uint64_t cases = 0;     ///< cases run
  std::vector<uint64_t> input_bits;  ///< Refuted: the element of each parameter
  double ms = 0;
};

/// Whether the backend applies to functions `sb` of `src` and `tb` of `tgt` (same signature): "" when it
/// does, else the reason it does not.
std::string exhaustive_scope(const Program& src, BodyId sb, const Program& tgt, BodyId tb, int max_bits = 32);

/// Sweeps every input of the two functions. Same signature required (check it first).
ExhaustiveResult check_exhaustive(const Program& src, BodyId sb, const Program& tgt, BodyId tb,
                                  const ExhaustiveOptions& opts = {});

/// "2^32 cases" / "65536 cases" as the verdicts print it.
std::string exhaustive_cases_text(int bits);

}  // namespace ptir::verify
