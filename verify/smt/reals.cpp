// Real-number terms and their comparison by Z3 (verify/smt/reals.h). A private Z3 context per check,
// on the calling thread: the queries are small (the nodes of one rule's source and result).
#include "verify/smt/reals.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include <z3.h>

#include "verify/smt/solver.h"

namespace ptir::smt {
namespace {

/// 2^k (k >= 0) times the decimal integer `m`, as decimal digits.
std::string times_pow2(uint64_t m, int k) {
  std::vector<int> d;  // little-endian decimal digits
  for (uint64_t x = m; x > 0; x /= 10) d.push_back(static_cast<int>(x % 10));
  if (d.empty()) return "0";
  for (int i = 0; i < k; ++i) {
    int carry = 0;
    for (int& x : d) {
      const int y = x * 2 + carry;
      x = y % 10;
      carry = y / 10;
    }
    if (carry) d.push_back(carry);
  }
  std::string s;
  for (size_t i = d.size(); i-- > 0;) s += static_cast<char>('0' + d[i]);
  return s;
}

}  // namespace

int RealTerms::var(const std::string& name) {
  for (size_t i = 0; i < nodes_.size(); ++i)
    if (nodes_[i].op == Op::Var && nodes_[i].text == name) return static_cast<int>(i);
  nodes_.push_back({Op::Var, -1, -1, name});
  return static_cast<int>(nodes_.size()) - 1;
}

int RealTerms::num(double v) {
  // v = m * 2^e exactly, m an odd integer (or 0).
  std::string text = "0";
  if (v != 0 && std::isfinite(v)) {
    int e = 0;
    const double f = std::frexp(std::fabs(v), &e);  // |v| = f * 2^e, f in [0.5, 1)
    uint64_t m = static_cast<uint64_t>(std::ldexp(f, 53));
    e -= 53;
    while ((m & 1) == 0) m >>= 1, ++e;
    text = e >= 0 ? times_pow2(m, e) : std::to_string(m) + "/" + times_pow2(1, -e);
    if (v < 0) text = "-" + text;
  }
  for (size_t i = 0; i < nodes_.size(); ++i)
    if (nodes_[i].op == Op::Num && nodes_[i].text == text) return static_cast<int>(i);
  nodes_.push_back({Op::Num, -1, -1, text});
  return static_cast<int>(nodes_.size()) - 1;
}

int RealTerms::op(Op o, int a, int b) {
  for (size_t i = 0; i < nodes_.size(); ++i)
    if (nodes_[i].op == o && nodes_[i].a == a && nodes_[i].b == b) return static_cast<int>(i);
  nodes_.push_back({o, a, b, ""});
  return static_cast<int>(nodes_.size()) - 1;
}

RealTerms::Answer RealTerms::equal_over_reals(int src, int tgt, unsigned budget_ms, std::string* why) const {
  Z3_config cfg = Z3_mk_config();
  Z3_context c = Z3_mk_context(cfg);
  Z3_del_config(cfg);
  Z3_set_error_handler(c, nullptr);  // errors are read back with Z3_get_error_code
  struct Del {
    Z3_context c;
    ~Del() { Z3_del_context(c); }
  } del{c};
  Z3_sort R = Z3_mk_real_sort(c);
  auto fn = [&](const char* name) { return Z3_mk_func_decl(c, Z3_mk_string_symbol(c, name), 1, &R, R); };
  const Z3_func_decl f_exp = fn("exp"), f_log = fn("log"), f_tanh = fn("tanh"), f_erf = fn("erf"), f_sqrt = fn("sqrt");
  auto app = [&](Z3_func_decl f, Z3_ast x) { return Z3_mk_app(c, f, 1, &x); };
  auto numeral = [&](const char* v) { return Z3_mk_numeral(c, v, R); };
  auto add = [&](Z3_ast x, Z3_ast y) {
    Z3_ast a[2] = {x, y};
    return Z3_mk_add(c, 2, a);
  };
  auto mul = [&](Z3_ast x, Z3_ast y) {
    Z3_ast a[2] = {x, y};
    return Z3_mk_mul(c, 2, a);
  };
  auto all = [&](std::vector<Z3_ast> v) { return v.empty() ? Z3_mk_true(c) : Z3_mk_and(c, static_cast<unsigned>(v.size()), v.data()); };
  auto lt = [&](Z3_ast x, Z3_ast y) { return Z3_mk_lt(c, x, y); };
  auto eq = [&](Z3_ast x, Z3_ast y) { return Z3_mk_eq(c, x, y); };
  auto implies = [&](Z3_ast p, Z3_ast q) { return Z3_mk_implies(c, p, q); };
  const Z3_ast zero = numeral("0"), one = numeral("1");

  std::vector<Z3_ast> t(nodes_.size(), nullptr);
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const Node& n = nodes_[i];
    const Z3_ast a = n.a >= 0 ? t[n.a] : nullptr, b = n.b >= 0 ? t[n.b] : nullptr;
    switch (n.op) {
      case Op::Var: t[i] = Z3_mk_const(c, Z3_mk_string_symbol(c, ("v!" + n.text).c_str()), R); break;
      case Op::Num: t[i] = numeral(n.text.c_str()); break;
      case Op::Add: t[i] = add(a, b); break;
      case Op::Sub: {
        Z3_ast s[2] = {a, b};
        t[i] = Z3_mk_sub(c, 2, s);
        break;
      }
      case Op::Mul: t[i] = mul(a, b); break;
      case Op::Div: t[i] = Z3_mk_div(c, a, b); break;
      case Op::Neg: t[i] = Z3_mk_unary_minus(c, a); break;
      case Op::Abs: t[i] = Z3_mk_ite(c, Z3_mk_ge(c, a, zero), a, Z3_mk_unary_minus(c, a)); break;
      case Op::Max: t[i] = Z3_mk_ite(c, Z3_mk_ge(c, a, b), a, b); break;
      case Op::Min: t[i] = Z3_mk_ite(c, Z3_mk_le(c, a, b), a, b); break;
      case Op::Exp: t[i] = app(f_exp, a); break;
      case Op::Log: t[i] = app(f_log, a); break;
      case Op::Tanh: t[i] = app(f_tanh, a); break;
      case Op::Erf: t[i] = app(f_erf, a); break;
      case Op::Sqrt: t[i] = app(f_sqrt, a); break;
    }
  }
  // The nodes each root reaches, and where they are defined over the reals.
  auto reach = [&](int root) {
    std::vector<bool> seen(nodes_.size(), false);
    std::function<void(int)> go = [&](int k) {
      if (k < 0 || seen[k]) return;
      seen[k] = true;
      go(nodes_[k].a), go(nodes_[k].b);
    };
    go(root);
    return seen;
  };
  const std::vector<bool> in_src = reach(src), in_tgt = reach(tgt);
  auto domain = [&](const std::vector<bool>& in) {
    std::vector<Z3_ast> d;
    for (size_t i = 0; i < nodes_.size(); ++i) {
      if (!in[i]) continue;
      const Node& n = nodes_[i];
      if (n.op == Op::Log) d.push_back(lt(zero, t[n.a]));
      if (n.op == Op::Sqrt) d.push_back(Z3_mk_ge(c, t[n.a], zero));
      if (n.op == Op::Div) d.push_back(Z3_mk_not(c, eq(t[n.b], zero)));
    }
    return all(d);
  };
  // Facts about the real functions, instantiated on the applications present (each a theorem of real
  // analysis; x/0 is Z3's unspecified value, the same for the same numerator).
  std::vector<Z3_ast> facts{eq(app(f_exp, zero), one), eq(app(f_log, one), zero), eq(app(f_tanh, zero), zero),
                            eq(app(f_erf, zero), zero), eq(app(f_sqrt, zero), zero)};
  std::map<Op, std::vector<int>> by_op;
  for (size_t i = 0; i < nodes_.size(); ++i)
    if (in_src[i] || in_tgt[i]) by_op[nodes_[i].op].push_back(static_cast<int>(i));
  auto arg = [&](int k) { return t[nodes_[k].a]; };
  const std::vector<int>& exps = by_op[Op::Exp];
  for (size_t i = 0; i < exps.size(); ++i) {
    const Z3_ast x = arg(exps[i]), ex = t[exps[i]];
    facts.push_back(lt(zero, ex));                   // exp > 0
    facts.push_back(eq(app(f_log, ex), x));          // log(exp(x)) = x
    for (size_t j = i; j < exps.size(); ++j) {
      const Z3_ast y = arg(exps[j]), ey = t[exps[j]];
      facts.push_back(eq(mul(ex, ey), app(f_exp, add(x, y))));  // exp(x) exp(y) = exp(x + y)
      facts.push_back(implies(lt(x, y), lt(ex, ey)));            // strictly increasing
      facts.push_back(implies(lt(y, x), lt(ey, ex)));
    }
  }
  const std::vector<int>& logs = by_op[Op::Log];
  for (size_t i = 0; i < logs.size(); ++i) {
    const Z3_ast x = arg(logs[i]), lx = t[logs[i]];
    facts.push_back(implies(lt(zero, x), eq(app(f_exp, lx), x)));  // exp(log(x)) = x for x > 0
    const Node& an = nodes_[nodes_[logs[i]].a];
    const Z3_ast half = numeral("1/2");
    if (an.op == Op::Mul || an.op == Op::Div) {  // log(p q) = log p + log q, log(p / q) = log p - log q
      const Z3_ast p = t[an.a], q = t[an.b];
      const Z3_ast lq = app(f_log, q);
      facts.push_back(implies(Z3_mk_and(c, 2, std::vector<Z3_ast>{lt(zero, p), lt(zero, q)}.data()),
                              eq(lx, an.op == Op::Mul ? add(app(f_log, p), lq)
                                                      : add(app(f_log, p), Z3_mk_unary_minus(c, lq)))));
      if (an.op == Op::Div && nodes_[an.b].op == Op::Sqrt)  // log(p / sqrt(u)) = log p - log(u) / 2
        facts.push_back(implies(Z3_mk_and(c, 2, std::vector<Z3_ast>{lt(zero, p), lt(zero, t[nodes_[an.b].a])}.data()),
                                eq(lx, add(app(f_log, p), Z3_mk_unary_minus(c, mul(half, app(f_log, t[nodes_[an.b].a])))))));
    }
    if (an.op == Op::Sqrt)  // log(sqrt(u)) = log(u) / 2 for u > 0
      facts.push_back(implies(lt(zero, t[an.a]), eq(lx, mul(half, app(f_log, t[an.a])))));
    for (size_t j = i + 1; j < logs.size(); ++j) {
      const Z3_ast y = arg(logs[j]), ly = t[logs[j]];
      const Z3_ast both = Z3_mk_and(c, 2, std::vector<Z3_ast>{lt(zero, x), lt(zero, y)}.data());
      facts.push_back(implies(both, eq(app(f_log, mul(x, y)), add(lx, ly))));  // log(x y) = log x + log y
      facts.push_back(implies(Z3_mk_and(c, 2, std::vector<Z3_ast>{lt(zero, x), lt(x, y)}.data()), lt(lx, ly)));
      facts.push_back(implies(Z3_mk_and(c, 2, std::vector<Z3_ast>{lt(zero, y), lt(y, x)}.data()), lt(ly, lx)));
    }
  }
  const std::vector<int>& sqrts = by_op[Op::Sqrt];
  for (size_t i = 0; i < sqrts.size(); ++i) {
    const Z3_ast u = arg(sqrts[i]), su = t[sqrts[i]];
    facts.push_back(implies(Z3_mk_ge(c, u, zero), Z3_mk_ge(c, su, zero)));  // sqrt(u) >= 0
    facts.push_back(implies(Z3_mk_ge(c, u, zero), eq(mul(su, su), u)));     // sqrt(u)^2 = u
    for (size_t j = i + 1; j < sqrts.size(); ++j) {
      const Z3_ast v = arg(sqrts[j]), sv = t[sqrts[j]];
      facts.push_back(implies(Z3_mk_and(c, 2, std::vector<Z3_ast>{Z3_mk_ge(c, u, zero), lt(u, v)}.data()), lt(su, sv)));
      facts.push_back(implies(Z3_mk_and(c, 2, std::vector<Z3_ast>{Z3_mk_ge(c, v, zero), lt(v, u)}.data()), lt(sv, su)));
    }
  }
  for (Op o : {Op::Tanh, Op::Erf}) {  // -1 < f < 1, strictly increasing, odd
    const std::vector<int>& fs = by_op[o];
    for (size_t i = 0; i < fs.size(); ++i) {
      const Z3_ast x = arg(fs[i]), fx = t[fs[i]];
      facts.push_back(lt(numeral("-1"), fx));
      facts.push_back(lt(fx, one));
      for (size_t j = i + 1; j < fs.size(); ++j) {
        const Z3_ast y = arg(fs[j]), fy = t[fs[j]];
        facts.push_back(implies(lt(x, y), lt(fx, fy)));
        facts.push_back(implies(lt(y, x), lt(fy, fx)));
        facts.push_back(implies(eq(x, Z3_mk_unary_minus(c, y)), eq(fx, Z3_mk_unary_minus(c, fy))));
      }
    }
  }
  const Z3_ast goal = Z3_mk_and(
      c, 3, std::vector<Z3_ast>{domain(in_src), all(facts), Z3_mk_not(c, Z3_mk_and(c, 2, std::vector<Z3_ast>{domain(in_tgt), eq(t[src], t[tgt])}.data()))}.data());
  Z3_solver s = Z3_mk_solver(c);
  Z3_solver_inc_ref(c, s);
  Z3_params p = Z3_mk_params(c);
  Z3_params_inc_ref(c, p);
  Z3_params_set_uint(c, p, Z3_mk_string_symbol(c, "rlimit"),
                     static_cast<unsigned>(std::min<uint64_t>(uint64_t{budget_ms} * kRlimitPerMs, UINT32_MAX)));
  Z3_params_set_uint(c, p, Z3_mk_string_symbol(c, "timeout"), budget_ms * kWallFactor + kWallSlackMs);
  Z3_solver_set_params(c, s, p);
  Z3_solver_assert(c, s, goal);
  const Z3_lbool r = Z3_solver_check(c, s);
  std::string reason = r == Z3_L_UNDEF ? Z3_solver_get_reason_unknown(c, s) : r == Z3_L_TRUE ? "sat" : "unsat";
  const bool error = Z3_get_error_code(c) != Z3_OK;
  if (error) reason = std::string("z3 error: ") + Z3_get_error_msg(c, Z3_get_error_code(c));
  Z3_params_dec_ref(c, p);
  Z3_solver_dec_ref(c, s);
  if (why) *why = reason;
  if (error || r == Z3_L_UNDEF) return Answer::Unknown;
  return r == Z3_L_FALSE ? Answer::Holds : Answer::NotShown;
}

}  // namespace ptir::smt
