// Elementwise kernels (docs/semantics.md "Elementwise ops"): unary and binary arithmetic, compare, select.
// Floats are decoded exactly to double, computed there and rounded once to the dtype; double has at least
// 2p+2 bits for f32/f16/bf16, so + - * / sqrt are correctly rounded. Transcendentals use libm of the dtype
// (f16/bf16 through the f32 function). Integers wrap; integer division checks for UB.
#include <cmath>

#include "ir/interp/kernels.h"
#include "ir/interp/layout.h"

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

}  // namespace

float f32_transcendental(Unary kind, float x) {
  switch (kind) {
    case Unary::Exp: return std::exp(x);
    case Unary::Log: return std::log(x);
    case Unary::Tanh: return std::tanh(x);
    case Unary::Erf: return std::erf(x);
    case Unary::Rsqrt: return 1.0f / std::sqrt(x);
    case Unary::Neg: case Unary::Abs: case Unary::Reciprocal: case Unary::Sqrt: case Unary::Identity: break;
  }
  return x;
}

namespace {

/// The libm function of `kind` in the dtype's precision: f64 in double, everything else in f32.
double transcendental(Unary kind, DType t, double v) {
  if (t == DType::F64) {
    switch (kind) {
      case Unary::Exp: return std::exp(v);
      case Unary::Log: return std::log(v);
      case Unary::Tanh: return std::tanh(v);
      case Unary::Erf: return std::erf(v);
      case Unary::Rsqrt: return 1.0 / std::sqrt(v);
      case Unary::Neg: case Unary::Abs: case Unary::Reciprocal: case Unary::Sqrt: case Unary::Identity: break;
    }
    return v;
  }
  return f32_transcendental(kind, static_cast<float>(v));  // exact: the value is an f32/f16/bf16 value
}

}  // namespace

uint64_t float_unary(Unary kind, DType t, uint64_t b) {
  switch (kind) {
    case Unary::Neg: return b ^ sign_mask(t);
    case Unary::Abs: return b & ~sign_mask(t) & bits_mask(t);
    case Unary::Identity: return b;
    case Unary::Sqrt: return store_f(t, std::sqrt(load_f(t, b)));
    case Unary::Reciprocal: return store_f(t, 1.0 / load_f(t, b));
    case Unary::Exp: case Unary::Log: case Unary::Tanh: case Unary::Erf: case Unary::Rsqrt:
      return store_f(t, transcendental(kind, t, load_f(t, b)));
  }
  return b;
}

namespace {

/// Integer unary ops; false for the ops integers do not have.
bool int_unary(Unary kind, DType t, uint64_t b, uint64_t& r) {
  switch (kind) {
    case Unary::Neg: r = (uint64_t{0} - b) & bits_mask(t); return true;
    case Unary::Abs: r = is_signed_int(t) && int_value(t, b) < 0 ? (uint64_t{0} - b) & bits_mask(t) : b; return true;
    case Unary::Identity: r = b; return true;
    case Unary::Exp: case Unary::Log: case Unary::Tanh: case Unary::Erf: case Unary::Rsqrt:
    case Unary::Reciprocal: case Unary::Sqrt: return false;
  }
  return false;
}

double float_binary(Binary kind, double a, double b) {
  switch (kind) {
    case Binary::Add: return a + b;
    case Binary::Sub: return a - b;
    case Binary::Mul: return a * b;
    case Binary::Div: return a / b;
    case Binary::Max: return max2019(a, b);
    case Binary::Min: return min2019(a, b);
  }
  return a;
}

/// Integer binary ops on raw bits; false on UB (div by zero, MIN / -1) with `why` set.
bool int_binary(Binary kind, DType t, uint64_t a, uint64_t b, uint64_t& r, const char*& why) {
  const uint64_t m = bits_mask(t);
  switch (kind) {
    case Binary::Add: r = (a + b) & m; return true;
    case Binary::Sub: r = (a - b) & m; return true;
    case Binary::Mul: r = (a * b) & m; return true;
    case Binary::Max: r = int_less(t, a, b) ? b : a; return true;
    case Binary::Min: r = int_less(t, b, a) ? b : a; return true;
    case Binary::Div: break;
  }
  if ((b & m) == 0) { why = "integer division by zero"; return false; }
  if (!is_signed_int(t)) { r = ((a & m) / (b & m)) & m; return true; }
  int64_t x = int_value(t, a), y = int_value(t, b);
  if (x == int_min(t) && y == -1) { why = "integer overflow (MIN / -1)"; return false; }
  r = static_cast<uint64_t>(x / y) & m;
  return true;
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
  std::string_view dir = c.attrs.word("dir");
  const int d = dir == "lt" ? 0 : dir == "le" ? 1 : dir == "eq" ? 2 : dir == "ge" ? 3 : dir == "gt" ? 4
              : dir == "ne" ? 5 : -1;
  if (d < 0) return c.fail("unknown dir[" + std::string(dir) + "]");
  for (int64_t i = 0, n = o.size(); i < n; ++i) {
    bool lt, eq, gt;  // IEEE: with a NaN all three are false
    if (is_float(t)) {
      double x = load_f(t, get(a, i)), y = load_f(t, get(b, i));
      lt = x < y, eq = x == y, gt = x > y;
    } else {
      uint64_t x = get(a, i), y = get(b, i);
      lt = int_less(t, x, y), gt = int_less(t, y, x), eq = !lt && !gt;
    }
    const bool r[6] = {lt, lt || eq, eq, gt || eq, gt, !eq};
    put(o, i, r[d] ? 1 : 0);
  }
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
