// Elementwise ops (docs/semantics.md "Elementwise ops"): each is one line of element semantics mapped
// over the result's elements. Transcendentals are uninterpreted functions per (op, dtype).
#include "verify/encode/ops.h"

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

/// exp log tanh erf rsqrt: an uninterpreted function per (op, dtype); equal applications are one term.
Results transcendental(OpEnv& env) {
  const DType t = env.dtype();
  if (!is_float(t)) env.fail(std::string("not defined for ") + dtype_name(t));
  const std::string key = std::string(mnemonic(env.op())) + "." + dtype_name(t);
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
Results encode_Div(OpEnv& env) {
  return map2(env, [&](const Expr& a, const Expr& b) {
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
