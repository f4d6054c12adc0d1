// Verifier rules of the shape family: constant, reshape, transpose, broadcast_to, slice, concat, pad, tile, iota.
// Each computes the exact result dims from the operand and the attributes (docs/semantics.md) and
// compares them with the declared result type; attribute arithmetic is done in 128 bits so huge
// attribute values are reported, never wrapped.
#include "ir/verify/check.h"

namespace ptir::verify_detail {
namespace {

std::string check_result_dtype_is_operand(const Ctx& c) {
  if (c.result().dtype == c.operand(0).dtype) return {};
  return c.fail("result has dtype ", c.result().dtype, ", expected ", c.operand(0).dtype, " (the dtype of operand 0)");
}

/// The element count, saturated: a type built through the API may have dims whose product overflows.
int64_t element_count(const TensorType& t) {
  __int128 n = 1;
  for (int64_t d : t.dims) n = sat(n * d);
  return sat(n);
}

/// The optional `shape[..]` of reshape/broadcast_to restates the result dims.
std::string check_shape_attr(const Ctx& c) {
  const AttrValue* s = c.attrs.find("shape");
  if (!s || s->ints == c.result().dims) return {};
  return c.fail("shape", List{s->ints}, " differs from the result dims ", List{c.result().dims});
}

}  // namespace

std::string verify_constant(const Ctx& c) {
  const AttrValue* v = c.attrs.find("value");
  if (!v) return c.fail("needs a literal (value[...])");
  const Tensor& lit = v->lit;
  if (!lit.well_formed())
    return c.fail("literal of type ", lit.type, " holds ", lit.data.size(), " bytes of data");
  if (lit.type != c.result()) return c.fail("result has type ", c.result(), ", expected ", lit.type, " (the literal's type)");
  return {};
}

std::string verify_reshape(const Ctx& c) {
  if (auto e = check_result_dtype_is_operand(c); !e.empty()) return e;
  int64_t n = element_count(c.operand(0)), m = element_count(c.result());
  if (n != m)
    return c.fail("result type ", c.result(), " has ", m, " elements, operand 0 (", c.operand(0), ") has ", n);
  return check_shape_attr(c);
}

std::string verify_transpose(const Ctx& c) {
  const TensorType& x = c.operand(0);
  const std::vector<int64_t>& perm = c.attrs.ints("perm");
  if (auto e = check_list_len(c, "perm", perm, x.rank()); !e.empty()) return e;
  uint32_t seen = 0;
  for (int64_t a : perm) {
    if (a < 0 || a >= x.rank() || (seen & (1u << a)))
      return c.fail("perm", List{perm}, " is not a permutation of 0..", x.rank() - 1);
    seen |= 1u << a;
  }
  Dims want;
  for (int64_t a : perm) want.push(x.dims[a]);
  return check_result(c, 0, x.dtype, want);
}

std::string verify_broadcast_to(const Ctx& c) {
  const TensorType& x = c.operand(0);
  const TensorType& r = c.result();
  if (auto e = check_result_dtype_is_operand(c); !e.empty()) return e;
  if (x.rank() > r.rank()) return c.fail("operand 0 has rank ", x.rank(), ", more than the result's rank ", r.rank());
  int off = r.rank() - x.rank();  // numpy: dims are aligned on the right
  for (int d = 0; d < x.rank(); ++d) {
    if (x.dims[d] != 1 && x.dims[d] != r.dims[d + off])
      return c.fail("operand 0 dim ", d, " (size ", x.dims[d], ") cannot broadcast to result dim ", d + off, " (size ",
                    r.dims[d + off], ")");
  }
  return check_shape_attr(c);
}

std::string verify_slice(const Ctx& c) {
  const TensorType& x = c.operand(0);
  const TensorType& r = c.result();
  const std::vector<int64_t>& starts = c.attrs.ints("starts");
  if (auto e = check_list_len(c, "starts", starts, x.rank()); !e.empty()) return e;
  if (auto e = check_result_dtype_is_operand(c); !e.empty()) return e;
  if (r.rank() != x.rank()) return c.fail("result has rank ", r.rank(), ", expected ", x.rank(), " (the rank of operand 0)");
  if (auto e = check_at_least(c, "starts", starts, 0); !e.empty()) return e;
  for (int d = 0; d < x.rank(); ++d) {
    if (starts[d] > x.dims[d] - r.dims[d])  // start + size <= dim, without overflow
      return c.fail("start ", starts[d], " + size ", r.dims[d], " is out of bounds for dim ", d, " of size ", x.dims[d]);
  }
  return {};
}

std::string verify_concat(const Ctx& c) {
  const TensorType& x0 = c.operand(0);
  int64_t axis = c.attrs.int_or("axis", 0);
  if (auto e = check_axis(c, "axis", axis, x0.rank()); !e.empty()) return e;
  __int128 total = 0;
  for (uint32_t k = 0; k < c.num_operands(); ++k) {
    const TensorType& xk = c.operand(k);
    bool ok = xk.dtype == x0.dtype && xk.rank() == x0.rank();
    for (int d = 0; ok && d < x0.rank(); ++d) ok = d == axis || xk.dims[d] == x0.dims[d];
    if (!ok)
      return c.fail("operand ", k, " has type ", xk, ", expected the dtype and dims of operand 0 (", x0,
                    ") except along axis ", axis);
    total += xk.dims[axis];
  }
  Dims want;
  for (int d = 0; d < x0.rank(); ++d) want.push(d == axis ? sat(total) : x0.dims[d]);
  return check_result(c, 0, x0.dtype, want);
}

std::string verify_pad(const Ctx& c) {
  const TensorType& x = c.operand(0);
  const std::vector<int64_t>& low = c.attrs.ints("low");
  const std::vector<int64_t>& high = c.attrs.ints("high");
  const AttrValue* interior = c.attrs.find("interior");
  if (auto e = check_list_len(c, "low", low, x.rank()); !e.empty()) return e;
  if (auto e = check_list_len(c, "high", high, x.rank()); !e.empty()) return e;
  if (interior) {
    if (auto e = check_list_len(c, "interior", interior->ints, x.rank()); !e.empty()) return e;
    if (auto e = check_at_least(c, "interior", interior->ints, 0); !e.empty()) return e;
  }
  if (auto e = check_scalar_attr(c, "value", x.dtype); !e.empty()) return e;
  Dims want;
  for (int d = 0; d < x.rank(); ++d) {
    int64_t in = interior ? interior->ints[d] : 0;
    for (const auto& [what, v] : {std::pair<const char*, int64_t>{"low", low[d]}, {"high", high[d]}, {"interior", in}})
      if (auto e = check_geometry(c, d, what, v); !e.empty()) return e;
    const __int128 dilated = x.dims[d] + __int128{x.dims[d] > 0 ? x.dims[d] - 1 : 0} * in;
    if (auto e = check_geometry(c, d, "the interior-padded size", dilated); !e.empty()) return e;
    __int128 n = __int128{low[d]} + high[d] + dilated;
    if (n < 0) return c.fail("result dim ", d, " would have size ", sat(n), " (low + high + the interior-padded dim)");
    want.push(sat(n));
  }
  return check_result(c, 0, x.dtype, want);
}

std::string verify_tile(const Ctx& c) {
  const TensorType& x = c.operand(0);
  const std::vector<int64_t>& repeats = c.attrs.ints("repeats");
  if (auto e = check_list_len(c, "repeats", repeats, x.rank()); !e.empty()) return e;
  if (auto e = check_at_least(c, "repeats", repeats, 0); !e.empty()) return e;
  Dims want;
  for (int d = 0; d < x.rank(); ++d) want.push(sat(__int128{x.dims[d]} * repeats[d]));
  return check_result(c, 0, x.dtype, want);
}

std::string verify_iota(const Ctx& c) {
  const TensorType& r = c.result();
  int64_t axis = c.attrs.int_or("axis", 0);
  if (auto e = check_axis(c, "axis", axis, r.rank()); !e.empty()) return e;
  // The values 0..dim-1 must convert exactly (docs/semantics.md: "exact for the sizes allowed").
  return check_index_fits(c, "result", r.dtype, r.dims[axis]);
}

}  // namespace ptir::verify_detail
