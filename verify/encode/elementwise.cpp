// Elementwise ops (docs/semantics.md "Elementwise ops"): each is one line of element semantics mapped
// over the result's elements. Transcendentals are uninterpreted functions per (op, dtype).
#include <cmath>
#include <optional>

#include "verify/encode/ops.h"
#include "verify/encode/transcendental.h"

namespace ptir::verify::enc {
namespace {

/// Checks that every operand has the result's element count.
void check_shapes(const OpEnv& env) {
  for (const SymTensor& a : env.args)
    if (a.type.dims != env.out().dims) env.fail("operand and result shapes differ");
}

template <typename F>
Results map1(OpEnv& env, F f) {
  check_shapes(env);
  SymTensor r = env.make();
  const auto& a = env.args[0].elems;
  for (size_t i = 0; i < a.size(); ++i) {
    if ((i & 1023) == 1023) env.check_stop();  // a large tensor takes seconds: the budget covers it
    r.elems.push_back(f(a[i]));
  }
  return {r};
}

template <typename F>
Results map2(OpEnv& env, F f) {
  check_shapes(env);
  SymTensor r = env.make();
  const auto& a = env.args[0].elems;
  const auto& b = env.args[1].elems;
  for (size_t i = 0; i < a.size(); ++i) {
    if ((i & 1023) == 1023) env.check_stop();
    r.elems.push_back(f(a[i], b[i]));
  }
  return {r};
}

template <typename F>
Results float_only(OpEnv& env, F f) {
  if (!is_float(env.dtype())) env.fail(std::string("not defined for ") + dtype_name(env.dtype()));
  return map1(env, f);
}

/// exp log tanh erf: an uninterpreted function per (op, dtype); equal applications are one term (the
/// facts every query gets about them: verify/encode/transcendental.h). rsqrt is exact.
Results transcendental(OpEnv& env) {
  const DType t = env.dtype();
  if (!is_float(t)) env.fail(std::string("not defined for ") + dtype_name(t));
  if (env.op() == OpCode::Rsqrt) return map1(env, [&](const Expr& x) { return transc::rsqrt(x, t); });
  const std::string key = transc::uf_name(env.op(), t);
  return map1(env, [&](const Expr& x) { return apply_uf(key, {&x, 1}, sem::sort_of(t)); });
}

}  // namespace

Results encode_Neg(OpEnv& env) { return map1(env, [&](const Expr& x) { return sem::neg(x, env.dtype()); }); }
Results encode_Abs(OpEnv& env) { return map1(env, [&](const Expr& x) { return sem::abs(x, env.dtype()); }); }
Results encode_Exp(OpEnv& env) { return transcendental(env); }
Results encode_Log(OpEnv& env) { return transcendental(env); }
Results encode_Tanh(OpEnv& env) { return transcendental(env); }
Results encode_Erf(OpEnv& env) { return transcendental(env); }
Results encode_Rsqrt(OpEnv& env) { return transcendental(env); }

Results encode_Reciprocal(OpEnv& env) {
  const Expr one = sem::integer(env.dtype(), 1);
  return float_only(env, [&](const Expr& x) { return one / x; });
}

Results encode_Sqrt(OpEnv& env) {
  return float_only(env, [](const Expr& x) { return x.sqrt(); });
}

Results encode_StopGradient(OpEnv& env) { return map1(env, [](const Expr& x) { return x; }); }

Results encode_Add(OpEnv& env) {
  return map2(env, [&](const Expr& a, const Expr& b) { return sem::add(a, b, env.dtype()); });
}
Results encode_Sub(OpEnv& env) {
  return map2(env, [&](const Expr& a, const Expr& b) { return sem::sub(a, b, env.dtype()); });
}
Results encode_Mul(OpEnv& env) {
  return map2(env, [&](const Expr& a, const Expr& b) { return sem::mul(a, b, env.dtype()); });
}
/// The bits of 1/c when `c` is a float numeral that is a finite nonzero power of two whose reciprocal is
/// exact in `t`; else nullopt.
std::optional<uint64_t> exact_pow2_reciprocal(DType t, const Expr& c) {
  const std::optional<uint64_t> bits = c.numeral();
  if (!bits) return std::nullopt;
  const double v = float_to_double(t, *bits);
  int e = 0;
  if (!std::isfinite(v) || v == 0 || std::frexp(std::fabs(v), &e) != 0.5) return std::nullopt;
  // 1/v must be finite in double too: f64's smallest subnormal 2^-1074 has no finite reciprocal, and
  // an inf == inf comparison would call it exact.
  const double inv = 1.0 / v;
  if (!std::isfinite(inv)) return std::nullopt;
  const uint64_t r = double_to_float(t, inv);
  if (float_to_double(t, r) != inv) return std::nullopt;
  return r;
}

Results encode_Div(OpEnv& env) {
  const DType t = env.dtype();
  return map2(env, [&](const Expr& a, const Expr& b) {
    // x / c and x * (1/c) are the same correctly rounded value when c is a power of two with an exact
    // reciprocal (one real value, rounded once; zeros, inf and NaN alike). Encoding both as the product
    // lets the solver see two programs that differ only by that rewrite (the library's div_pow2) as
    // equal instead of bit-blasting a division against a product.
    if (is_float(t))
      if (std::optional<uint64_t> r = exact_pow2_reciprocal(t, b)) return sem::mul(a, sem::constant(t, *r), t);
    sem::Value q = sem::div(a, b, env.dtype());
    env.add_ub(q.ub);
    return q.v;
  });
}
Results encode_Maximum(OpEnv& env) {
  return map2(env, [&](const Expr& a, const Expr& b) { return sem::maximum(a, b, env.dtype()); });
}
Results encode_Minimum(OpEnv& env) {
  return map2(env, [&](const Expr& a, const Expr& b) { return sem::minimum(a, b, env.dtype()); });
}

Results encode_Compare(OpEnv& env) {
  const DType t = env.args[0].type.dtype;
  const std::string dir(env.attrs.word("dir"));
  if (env.args[1].type.dtype != t) env.fail("operands have different dtypes");
  return map2(env, [&](const Expr& a, const Expr& b) {
    Expr r = sem::compare(dir, a, b, t);
    if (!r.valid()) env.fail("unknown dir[" + dir + "]");
    return r;
  });
}

Results encode_Select(OpEnv& env) {
  check_shapes(env);
  SymTensor r = env.make();
  const auto& c = env.args[0].elems;
  for (size_t i = 0; i < c.size(); ++i) {
    if ((i & 1023) == 1023) env.check_stop();
    r.elems.push_back(Expr::ite(c[i], env.args[1].elems[i], env.args[2].elems[i]));
  }
  return {r};
}

}  // namespace ptir::verify::enc
