// Verifier rules of the reduction family: reduce_sum/max/min (axes, keepdims, accum), argmax and
// segment_reduce. Result dims follow docs/semantics.md exactly.
#include "ir/verify/check.h"

namespace ptir::verify_detail {

std::string verify_reduce(const Ctx& c) {
  const TensorType& x = c.operand(0);
  if (auto e = check_dtype(c, "operand 0", x.dtype, DTypeRule::Number); !e.empty()) return e;
  uint32_t mask = 0;
  if (auto e = check_axes(c, "axes", c.attrs.ints("axes"), x.rank(), &mask); !e.empty()) return e;
  if (auto e = check_accum(c, x.dtype); !e.empty()) return e;
  bool keep = c.attrs.bool_or("keepdims", false);
  Dims want;
  for (int d = 0; d < x.rank(); ++d) {
    if (!(mask & (1u << d))) want.push(x.dims[d]);
    else if (keep) want.push(1);
  }
  return check_result(c, 0, x.dtype, want);
}

std::string verify_argmax(const Ctx& c) {
  const TensorType& x = c.operand(0);
  const TensorType& r = c.result();
  int64_t axis = c.attrs.int_or("axis", 0);
  if (auto e = check_axis(c, "axis", axis, x.rank()); !e.empty()) return e;
  if (auto e = check_dtype(c, "result", r.dtype, DTypeRule::Integer); !e.empty()) return e;
  bool keep = c.attrs.bool_or("keepdims", false);
  Dims want;
  for (int d = 0; d < x.rank(); ++d) {
    if (d != axis) want.push(x.dims[d]);
    else if (keep) want.push(1);
  }
  if (auto e = check_result(c, 0, r.dtype, want); !e.empty()) return e;
  if (x.dims[axis] == 0 && r.num_elements() != 0)
    return c.fail("axis ", axis, " has size 0, so there is no maximum for the non-empty result");
  return check_index_fits(c, "result", r.dtype, x.dims[axis]);
}

std::string verify_segment_reduce(const Ctx& c) {
  const TensorType& x = c.operand(0);
  const TensorType& ids = c.operand(1);
  if (auto e = check_min_rank(c, "operand 0", x, 1); !e.empty()) return e;
  if (auto e = check_dtype(c, "operand 0", x.dtype, DTypeRule::Number); !e.empty()) return e;
  if (!is_integer(ids.dtype) || ids.rank() != 1 || ids.dims[0] != x.dims[0])
    return c.fail("operand 1 (segment_ids) has type ", ids, ", expected a 1-D integer tensor of length ", x.dims[0],
                  " (dim 0 of operand 0)");
  int64_t n = c.attrs.int_or("num_segments", 0);
  if (n < 0) return c.fail("num_segments[", n, "] must be >= 0");
  Dims want;
  want.push(n);
  for (int d = 1; d < x.rank(); ++d) want.push(x.dims[d]);
  return check_result(c, 0, x.dtype, want);
}

}  // namespace ptir::verify_detail
