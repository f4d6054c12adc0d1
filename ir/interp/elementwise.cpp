// Elementwise kernels (docs/semantics.md "Elementwise ops"): unary and binary arithmetic, compare, select.
// Floats are decoded exactly to double, computed there and rounded once to the dtype; double has at least
// 2p+2 bits for f32/f16/bf16, so + - * / sqrt are correctly rounded. Transcendentals use libm of the dtype
// (f16/bf16 through the f32 function). Integers wrap; integer division checks for UB.
#include <cmath>
#include <cstring>

#include "ir/interp/kernels.h"
#include "ir/interp/layout.h"
#include "ir/interp/scalar.h"

namespace ptir::interp {
namespace {

/// Every operand has the result's element count, and `typed` operands have its dtype.
Status check_elementwise(const Call& c, const Tensor& out, size_t typed_from) {
  for (size_t k = 0; k < c.args.size(); ++k) {
    if (c.args[k].type.dims != out.type.dims)
      return c.fail("operand " + std::to_string(k) + " has shape " + dims_str(c.args[k].type.dims) +
                    ", the result " + dims_str(out.type.dims));
    if (k >= typed_from && c.args[k].dtype() != out.dtype())
      return c.fail(std::string("operand ") + std::to_string(k) + " is " + dtype_name(c.args[k].dtype()) +
                    ", the result " + dtype_name(out.dtype()));
  }
  return Status::success();
}

/// The f32 loop of eval_binary with the op fixed at compile time: the same load_f / float_binary /
/// store_f per element as the generic loop (so the same bits), without the per-element dispatch on the
/// op and the element width.
template <Binary K>
void f32_binary(const uint8_t* a, const uint8_t* b, uint8_t* o, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    uint32_t x, y;
    std::memcpy(&x, a + 4 * i, 4);
    std::memcpy(&y, b + 4 * i, 4);
    const auto r = static_cast<uint32_t>(
        store_f(DType::F32, float_binary(K, load_f(DType::F32, x), load_f(DType::F32, y))));
    std::memcpy(o + 4 * i, &r, 4);
  }
}

}  // namespace

Status eval_unary(const Call& c, Out& out, Unary kind) {
  Tensor& o = out[0];
  if (Status st = check_elementwise(c, o, 0); !st.ok()) return st;
  const Tensor& x = c.args[0];
  const DType t = o.dtype();
  const int64_t n = o.size();
  if (kind == Unary::Identity) {
    o.data = x.data;
    return Status::success();
  }
  if (is_float(t)) {
    for (int64_t i = 0; i < n; ++i) put(o, i, float_unary(kind, t, get(x, i)));
    return Status::success();
  }
  uint64_t r = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (!int_unary(kind, t, get(x, i), r)) return c.fail(std::string("not defined for ") + dtype_name(t));
    put(o, i, r);
  }
  return Status::success();
}

Status eval_binary(const Call& c, Out& out, Binary kind) {
  Tensor& o = out[0];
  if (Status st = check_elementwise(c, o, 0); !st.ok()) return st;
  const Tensor& a = c.args[0];
  const Tensor& b = c.args[1];
  const DType t = o.dtype();
  const int64_t n = o.size();
  if (t == DType::F32) {
    const uint8_t* pa = a.data.data();
    const uint8_t* pb = b.data.data();
    uint8_t* po = o.data.data();
    switch (kind) {
      case Binary::Add: f32_binary<Binary::Add>(pa, pb, po, n); break;
      case Binary::Sub: f32_binary<Binary::Sub>(pa, pb, po, n); break;
      case Binary::Mul: f32_binary<Binary::Mul>(pa, pb, po, n); break;
      case Binary::Div: f32_binary<Binary::Div>(pa, pb, po, n); break;
      case Binary::Max: f32_binary<Binary::Max>(pa, pb, po, n); break;
      case Binary::Min: f32_binary<Binary::Min>(pa, pb, po, n); break;
    }
    return Status::success();
  }
  if (is_float(t)) {
    for (int64_t i = 0; i < n; ++i)
      put(o, i, store_f(t, float_binary(kind, load_f(t, get(a, i)), load_f(t, get(b, i)))));
    return Status::success();
  }
  uint64_t r = 0;
  const char* why = "";
  for (int64_t i = 0; i < n; ++i) {
    if (!int_binary(kind, t, get(a, i), get(b, i), r, why))
      return Status::ub(c.msg(std::string(why) + " at element " + std::to_string(i) + " " +
                              index_str(unravel(i, o.type.dims)) + " (" + format_elem(t, get(a, i)) + " / " +
                              format_elem(t, get(b, i)) + ")"));
    put(o, i, r);
  }
  return Status::success();
}

Status eval_compare(const Call& c, Out& out) {
  Tensor& o = out[0];
  if (Status st = check_elementwise(c, o, 2); !st.ok()) return st;
  const Tensor& a = c.args[0];
  const Tensor& b = c.args[1];
  const DType t = a.dtype();
  if (b.dtype() != t) return c.fail("operands have different dtypes");
  const int d = compare_dir(c.attrs.word("dir"));
  if (d < 0) return c.fail("unknown dir[" + std::string(c.attrs.word("dir")) + "]");
  for (int64_t i = 0, n = o.size(); i < n; ++i) put(o, i, compare_elem(t, d, get(a, i), get(b, i)) ? 1 : 0);
  return Status::success();
}

Status eval_select(const Call& c, Out& out) {
  Tensor& o = out[0];
  if (Status st = check_elementwise(c, o, 1); !st.ok()) return st;
  const Tensor& pred = c.args[0];
  if (pred.dtype() != DType::I1) return c.fail("the predicate must be i1");
  for (int64_t i = 0, n = o.size(); i < n; ++i) copy_elem(c.args[(get(pred, i) & 1) ? 1 : 2], i, o, i);
  return Status::success();
}

}  // namespace ptir::interp
