// Budgets of a refinement check decided before any term is built: an estimate, from shapes and ops
// alone, of the Z3 terms and bytes an encoding would take, so that a check too large for its memory
// budget answers UNKNOWN at once (saying so) instead of growing until it is killed.
#pragma once
#include <cstdint>
#include <string>

#include "ir/program.h"

namespace ptir::verify {

/// What encoding a source/target pair is expected to cost. Deterministic: the same programs and
/// options give the same estimate, so a verdict decided by it does not change from run to run.
struct EncodingEstimate {
  uint64_t terms = 0;    ///< Z3 terms the encoders make in one context (saturating)
  uint64_t handles = 0;  ///< symbolic elements held in one context (saturating)
  uint64_t queries = 0;  ///< element queries of the values-equal step
  uint64_t bytes = 0;    ///< estimated peak bytes for `contexts` contexts
  std::string largest;   ///< the instruction that costs most, e.g. "dot_general -> tensor<f32, 256x256>"
};

/// Estimates the cost of encoding `sb` of `src` and `tb` of `tgt` in `contexts` solver contexts (one
/// per solver thread; each encodes both bodies), with while loops unrolled `while_unroll` times.
EncodingEstimate estimate_encoding(const Program& src, BodyId sb, const Program& tgt, BodyId tb, unsigned contexts,
                                   int while_unroll);

/// "12 MB" (rounded up).
std::string megabytes(uint64_t bytes);

}  // namespace ptir::verify
