// Verifier rule of cast: any dtype to any dtype (docs/semantics.md "cast"), same shape.
#include "ir/verify/check.h"

namespace ptir::verify_detail {

std::string verify_cast(const Ctx& c) {
  // Any dtype to any dtype; only the shape must be kept.
  return check_result(c, 0, c.result().dtype, c.operand(0).dims);
}

}  // namespace ptir::verify_detail
