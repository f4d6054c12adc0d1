// Verifier rule of rng_uniform / rng_normal: effects whose generator (docs/semantics.md) defines float
// results only; the seed is any integer.
#include "ir/verify/check.h"

namespace ptir::verify_detail {

std::string verify_rng(const Ctx& c) {
  // The generator in docs/semantics.md defines float elements only.
  return check_dtype(c, "result", c.result().dtype, DTypeRule::Float);
}

}  // namespace ptir::verify_detail
