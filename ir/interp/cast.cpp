// The `cast` kernel and the element conversion every kernel shares (docs/semantics.md "cast"):
// float->float RNE, float->int truncates toward zero and saturates (NaN -> 0), int->int saturates,
// int->float RNE rounded exactly once (round_to_float on the integer's magnitude), i1 <-> numbers.
#include <cmath>

#include "ir/interp/kernels.h"
#include "ir/interp/layout.h"

namespace ptir::interp {
namespace {

/// The integer element as sign and magnitude (i1 and unsigned are never negative).
void sign_magnitude(DType t, uint64_t bits, bool& neg, uint64_t& mag) {
  if (is_signed_int(t)) {
    int64_t v = int_value(t, bits);
    neg = v < 0;
    mag = neg ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  } else {
    neg = false;
    mag = bits & bits_mask(t);
  }
}

/// Saturates sign/magnitude into integer dtype `to`.
uint64_t saturate(bool neg, uint64_t mag, DType to) {
  if (neg) {
    if (!is_signed_int(to)) return 0;
    uint64_t lim = uint64_t{0} - static_cast<uint64_t>(int_min(to));  // |MIN|
    if (mag >= lim) return static_cast<uint64_t>(int_min(to)) & bits_mask(to);
    return (uint64_t{0} - mag) & bits_mask(to);
  }
  return mag > int_max_bits(to) ? int_max_bits(to) : mag;
}

uint64_t float_to_int(DType from, DType to, uint64_t bits) {
  if (float_is_nan(from, bits)) return 0;
  double v = std::trunc(load_f(from, bits));  // exact; ±inf stays
  const int w = is_signed_int(to) ? dtype_bits(to) - 1 : dtype_bits(to);
  const double limit = std::ldexp(1.0, w);  // 2^w: the first value past MAX, exact
  if (v >= limit) return int_max_bits(to);
  if (v < 0) {
    if (!is_signed_int(to)) return 0;
    if (v <= -limit) return static_cast<uint64_t>(int_min(to)) & bits_mask(to);
    return static_cast<uint64_t>(static_cast<int64_t>(v)) & bits_mask(to);
  }
  return static_cast<uint64_t>(v);  // v in [0, 2^w): fits, -0.0 gives 0
}

}  // namespace

uint64_t cast_elem(DType from, DType to, uint64_t bits) {
  if (from == to) return bits;
  if (to == DType::I1) return is_float(from) ? !float_is_zero(from, bits) : (bits & bits_mask(from)) != 0;
  if (is_float(from)) {
    if (is_float(to)) return cast_float_float(from, to, bits);  // exact decode, one RNE rounding
    return float_to_int(from, to, bits);
  }
  bool neg;
  uint64_t mag;
  sign_magnitude(from, bits, neg, mag);
  if (is_float(to)) return round_to_float(to, neg, mag, 0);
  return saturate(neg, mag, to);
}

Status eval_cast(const Call& c, Out& out) {
  Tensor& o = out[0];
  const Tensor& x = c.args[0];
  if (x.type.dims != o.type.dims) return c.fail("operand and result shapes differ");
  const DType from = x.dtype(), to = o.dtype();
  if (from == to) {
    o.data = x.data;
    return Status::success();
  }
  for (int64_t i = 0, n = o.size(); i < n; ++i) put(o, i, cast_elem(from, to, get(x, i)));
  return Status::success();
}

}  // namespace ptir::interp
