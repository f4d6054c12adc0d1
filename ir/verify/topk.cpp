// Verifier rule of top_k: k within the axis (default: the last), values of x's dtype and integer indices
// that can hold every position, both with the axis resized to k.
#include "ir/verify/check.h"

namespace ptir::verify_detail {

std::string verify_top_k(const Ctx& c) {
  const TensorType& x = c.operand(0);
  if (auto e = check_min_rank(c, "operand 0", x, 1); !e.empty()) return e;
  int64_t axis = c.attrs.int_or("axis", x.rank() - 1);
  if (auto e = check_axis(c, "axis", axis, x.rank()); !e.empty()) return e;
  int64_t k = c.attrs.int_or("k", 0);
  if (k < 0) return c.fail("k[", k, "] must be >= 0");
  if (k > x.dims[axis]) return c.fail("k[", k, "] is larger than dim ", axis, " of size ", x.dims[axis]);
  Dims want;
  for (int d = 0; d < x.rank(); ++d) want.push(d == axis ? k : x.dims[d]);
  if (auto e = check_result(c, 0, x.dtype, want); !e.empty()) return e;
  DType idx = c.result(1).dtype;
  if (auto e = check_dtype(c, "result 1 (indices)", idx, DTypeRule::Integer); !e.empty()) return e;
  if (auto e = check_result(c, 1, idx, want); !e.empty()) return e;
  return check_index_fits(c, "result 1 (indices)", idx, x.dims[axis]);
}

}  // namespace ptir::verify_detail
