// The facts SMT is given about exp, log, tanh and erf, and rsqrt's exact encoding
// (verify/encode/transcendental.h). Every fact has its SMT form and its concrete form in one row; the
// test checks the concrete forms against the interpreter (every f16/bf16 input, and every f32 input in
// the exhaustive test), and the SMT forms against the concrete ones on special and random values.
#include "verify/encode/transcendental.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <string>

#include "ir/interp/scalar.h"
#include "verify/encode/scalar.h"
#include "verify/smt/solver.h"

namespace ptir::verify::transc {
namespace {

using sem::fp_format;

Expr one(DType t) { return sem::integer(t, 1); }
Expr minus_one(DType t) { return sem::integer(t, -1); }
Expr pzero(DType t) { return Expr::zero(fp_format(t), false); }
Expr inf(DType t, bool neg) { return Expr::inf(fp_format(t), neg); }

bool is_pzero(double y) { return y == 0 && !std::signbit(y); }
bool same(double a, double b) {  // the SMT `=`: NaN equals NaN, +0 differs from -0
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}
constexpr double kInf = HUGE_VAL;

// ---- facts every function of the four shares (NaN in, NaN out; no NaN from a number in the domain) ----
Expr nan_in(const Expr& x, const Expr& y, DType) { return x.isNaN().implies(y.isNaN()); }
bool nan_in_c(double x, double y) { return !std::isnan(x) || std::isnan(y); }
Expr no_nan(const Expr& x, const Expr& y, DType) { return (!x.isNaN()).implies(!y.isNaN()); }
bool no_nan_c(double x, double y) { return std::isnan(x) || !std::isnan(y); }

// ---- exp ----
Expr exp_zero(const Expr& x, const Expr& y, DType t) { return x.isZero().implies(y == one(t)); }
bool exp_zero_c(double x, double y) { return x != 0 || y == 1; }
Expr exp_minf(const Expr& x, const Expr& y, DType t) { return (x == inf(t, true)).implies(y == pzero(t)); }
bool exp_minf_c(double x, double y) { return x != -kInf || is_pzero(y); }
Expr exp_pinf(const Expr& x, const Expr& y, DType t) { return (x == inf(t, false)).implies(y == inf(t, false)); }
bool exp_pinf_c(double x, double y) { return x != kInf || y == kInf; }
Expr exp_sign(const Expr& x, const Expr& y, DType) { return (!x.isNaN()).implies(!y.isNaN() && !y.isNeg()); }
bool exp_sign_c(double x, double y) { return std::isnan(x) || (!std::isnan(y) && !std::signbit(y)); }

// ---- log ----
Expr log_zero(const Expr& x, const Expr& y, DType t) { return x.isZero().implies(y == inf(t, true)); }
bool log_zero_c(double x, double y) { return x != 0 || y == -kInf; }
Expr log_one(const Expr& x, const Expr& y, DType t) { return (x == one(t)).implies(y == pzero(t)); }
bool log_one_c(double x, double y) { return x != 1 || is_pzero(y); }
Expr log_neg(const Expr& x, const Expr& y, DType t) { return x.flt(pzero(t)).implies(y.isNaN()); }
bool log_neg_c(double x, double y) { return !(x < 0) || std::isnan(y); }
Expr log_pinf(const Expr& x, const Expr& y, DType t) { return (x == inf(t, false)).implies(y == inf(t, false)); }
bool log_pinf_c(double x, double y) { return x != kInf || y == kInf; }
Expr log_no_nan(const Expr& x, const Expr& y, DType t) { return (!x.isNaN() && !x.flt(pzero(t))).implies(!y.isNaN()); }
bool log_no_nan_c(double x, double y) { return std::isnan(x) || x < 0 || !std::isnan(y); }
Expr log_above_one(const Expr& x, const Expr& y, DType t) { return one(t).flt(x).implies(pzero(t).flt(y)); }
bool log_above_one_c(double x, double y) { return !(1 < x) || 0 < y; }
Expr log_below_one(const Expr& x, const Expr& y, DType t) {
  return (pzero(t).flt(x) && x.flt(one(t))).implies(y.flt(pzero(t)));
}
bool log_below_one_c(double x, double y) { return !(0 < x && x < 1) || y < 0; }

// ---- tanh and erf (the same shape of facts) ----
Expr keeps_zero(const Expr& x, const Expr& y, DType) { return x.isZero().implies(y == x); }
bool keeps_zero_c(double x, double y) { return x != 0 || same(x, y); }
Expr unit_at_inf(const Expr& x, const Expr& y, DType t) {
  return (x == inf(t, false)).implies(y == one(t)) && (x == inf(t, true)).implies(y == minus_one(t));
}
bool unit_at_inf_c(double x, double y) { return (x != kInf || y == 1) && (x != -kInf || y == -1); }
Expr in_unit(const Expr& x, const Expr& y, DType t) {
  return (!x.isNaN()).implies(minus_one(t).fle(y) && y.fle(one(t)));
}
bool in_unit_c(double x, double y) { return std::isnan(x) || (-1 <= y && y <= 1); }

// ---- pairs ----
/// a < b (both numbers) => f(a) <= f(b).
Expr monotone(const Expr& a, const Expr& ya, const Expr& b, const Expr& yb, DType) {
  return (a.flt(b)).implies(ya.fle(yb));
}
bool monotone_c(double a, double ya, double b, double yb) { return !(a < b) || ya <= yb; }
/// log: on +0 <= a < b only (below zero it is NaN).
Expr monotone_pos(const Expr& a, const Expr& ya, const Expr& b, const Expr& yb, DType t) {
  return (pzero(t).fle(a) && a.flt(b)).implies(ya.fle(yb));
}
bool monotone_pos_c(double a, double ya, double b, double yb) { return !(0 <= a && a < b) || ya <= yb; }
/// a = -b (bit for bit) => f(a) = -f(b).
Expr odd(const Expr& a, const Expr& ya, const Expr& b, const Expr& yb, DType) { return (a == -b).implies(ya == -yb); }
bool odd_c(double a, double ya, double b, double yb) { return !same(a, -b) || same(ya, -yb); }

using B = Basis;
using O = OpCode;
const UnaryFact kUnary[] = {
    {O::Exp, B::AnnexF, "exp(NaN) = NaN", nan_in, nan_in_c},
    {O::Exp, B::AnnexF, "exp(x) is not NaN for a number x", no_nan, no_nan_c},
    {O::Exp, B::AnnexF, "exp(+-0) = 1", exp_zero, exp_zero_c},
    {O::Exp, B::AnnexF, "exp(-inf) = +0", exp_minf, exp_minf_c},
    {O::Exp, B::AnnexF, "exp(+inf) = +inf", exp_pinf, exp_pinf_c},
    {O::Exp, B::ExhaustiveF32, "exp(x) >= +0 with the sign bit clear for a number x", exp_sign, exp_sign_c},
    {O::Log, B::AnnexF, "log(NaN) = NaN", nan_in, nan_in_c},
    {O::Log, B::AnnexF, "log(+-0) = -inf", log_zero, log_zero_c},
    {O::Log, B::AnnexF, "log(1) = +0", log_one, log_one_c},
    {O::Log, B::AnnexF, "log(x) = NaN for x < 0 (-inf included)", log_neg, log_neg_c},
    {O::Log, B::AnnexF, "log(+inf) = +inf", log_pinf, log_pinf_c},
    {O::Log, B::AnnexF, "log(x) is not NaN for x >= -0", log_no_nan, log_no_nan_c},
    {O::Log, B::ExhaustiveF32, "log(x) > 0 for x > 1", log_above_one, log_above_one_c},
    {O::Log, B::ExhaustiveF32, "log(x) < 0 for 0 < x < 1", log_below_one, log_below_one_c},
    {O::Tanh, B::AnnexF, "tanh(NaN) = NaN", nan_in, nan_in_c},
    {O::Tanh, B::AnnexF, "tanh(x) is not NaN for a number x", no_nan, no_nan_c},
    {O::Tanh, B::AnnexF, "tanh(+-0) = +-0", keeps_zero, keeps_zero_c},
    {O::Tanh, B::AnnexF, "tanh(+-inf) = +-1", unit_at_inf, unit_at_inf_c},
    {O::Tanh, B::ExhaustiveF32, "-1 <= tanh(x) <= 1 for a number x", in_unit, in_unit_c},
    {O::Erf, B::AnnexF, "erf(NaN) = NaN", nan_in, nan_in_c},
    {O::Erf, B::AnnexF, "erf(x) is not NaN for a number x", no_nan, no_nan_c},
    {O::Erf, B::AnnexF, "erf(+-0) = +-0", keeps_zero, keeps_zero_c},
    {O::Erf, B::AnnexF, "erf(+-inf) = +-1", unit_at_inf, unit_at_inf_c},
    {O::Erf, B::ExhaustiveF32, "-1 <= erf(x) <= 1 for a number x", in_unit, in_unit_c},
};
const PairFact kPair[] = {
    {O::Exp, B::ExhaustiveF32, "exp is monotone: a < b => exp(a) <= exp(b)", monotone, monotone_c},
    {O::Log, B::ExhaustiveF32, "log is monotone on x >= 0: 0 <= a < b => log(a) <= log(b)", monotone_pos, monotone_pos_c},
    {O::Tanh, B::ExhaustiveF32, "tanh is monotone", monotone, monotone_c},
    {O::Tanh, B::ExhaustiveF32, "tanh is odd: tanh(-x) = -tanh(x), bit for bit", odd, odd_c},
    {O::Erf, B::ExhaustiveF32, "erf is monotone", monotone, monotone_c},
    {O::Erf, B::ExhaustiveF32, "erf is odd: erf(-x) = -erf(x), bit for bit", odd, odd_c},
};

constexpr OpCode kOps[] = {OpCode::Exp, OpCode::Log, OpCode::Tanh, OpCode::Erf};

}  // namespace

bool applies(Basis b, DType t) { return is_float(t) && (b == Basis::AnnexF || t != DType::F64); }

std::span<const UnaryFact> unary_facts() { return kUnary; }
std::span<const PairFact> pair_facts() { return kPair; }

std::string uf_name(OpCode op, DType t) { return std::string(mnemonic(op)) + "." + dtype_name(t); }

namespace {

/// The uninterpreted transcendental functions, by name: (op, dtype).
const std::map<std::string, std::pair<OpCode, DType>>& known_functions() {
  static const std::map<std::string, std::pair<OpCode, DType>> known = [] {
    std::map<std::string, std::pair<OpCode, DType>> m;
    for (OpCode op : kOps)
      for (int d = 0; d < kNumDTypes; ++d)
        if (is_float(static_cast<DType>(d))) m[uf_name(op, static_cast<DType>(d))] = {op, static_cast<DType>(d)};
    return m;
  }();
  return known;
}

/// An application of one of them: one argument of the dtype's own float sort (an input function of the
/// all-shape prover, with Int arguments, never matches). Null when `a` is none.
const std::pair<OpCode, DType>* transcendental_application(const smt::Application& a) {
  const auto& known = known_functions();
  auto k = known.find(a.name);
  if (k == known.end() || a.args.size() != 1 || !a.args[0].isFP() ||
      !(a.args[0].format() == fp_format(k->second.second)) || !a.term.isFP())
    return nullptr;
  return &k->second;
}

}  // namespace

std::vector<Expr> facts_for(std::span<const Expr> formulas) {
  const auto& known = known_functions();
  std::map<std::string, std::vector<smt::Application>> by_fn;
  std::vector<unsigned> seen;
  for (const Expr& f : formulas)
    for (smt::Application& a : f.applications()) {
      if (!transcendental_application(a)) continue;
      const unsigned id = a.term.id();
      if (std::find(seen.begin(), seen.end(), id) != seen.end()) continue;
      seen.push_back(id);
      by_fn[a.name].push_back(std::move(a));
    }
  std::vector<Expr> out;
  for (const auto& [name, apps] : by_fn) {
    const auto [op, t] = known.at(name);
    for (const smt::Application& a : apps)
      for (const UnaryFact& f : kUnary)
        if (f.op == op && applies(f.basis, t)) out.push_back(f.smt(a.args[0], a.term, t));
    // Pairs whose arguments share an input (a free constant): the pairs a proof can need (exp(x) and
    // exp(max(x, y)); tanh(x) and tanh(-x)), O(n) of them per element rather than all n^2 of a
    // tensor, which swamp Z3. Fewer facts are still sound, only weaker.
    // Two arguments that are both numbers (constant operands: no input at all) pair too: tanh(-0.75)
    // against -tanh(0.75) was UNKNOWN for want of the oddness fact between them. (Never the function's
    // value at a number: a proof stays independent of the host's libm, docs/semantics.md.)
    std::vector<std::vector<unsigned>> inputs;
    std::vector<bool> ground;
    for (const smt::Application& a : apps) {
      inputs.push_back(a.args[0].constants());
      ground.push_back(inputs.back().empty() && a.args[0].simplify().numeral().has_value());
    }
    size_t pairs = 0;
    for (size_t i = 0; i < apps.size(); ++i)
      for (size_t j = 0; j < apps.size(); ++j) {
        if (i == j) continue;
        std::vector<unsigned> common;
        std::set_intersection(inputs[i].begin(), inputs[i].end(), inputs[j].begin(), inputs[j].end(),
                              std::back_inserter(common));
        if ((common.empty() && !(ground[i] && ground[j])) || ++pairs > kMaxPairs) continue;
        for (const PairFact& f : kPair)
          if (f.op == op && applies(f.basis, t))
            out.push_back(f.smt(apps[i].args[0], apps[i].term, apps[j].args[0], apps[j].term, t));
      }
  }
  return out;
}

std::vector<Expr> lemmas_at(std::span<const Expr> formulas, const smt::Model& m) {
  std::vector<Expr> out;
  std::vector<unsigned> seen;
  for (const Expr& f : formulas)
    for (const smt::Application& a : f.applications()) {
      const auto* fn = transcendental_application(a);
      if (!fn) continue;
      const unsigned id = a.term.id();
      if (std::find(seen.begin(), seen.end(), id) != seen.end()) continue;
      seen.push_back(id);
      interp::Unary kind;
      if (!interp::unary_of(fn->first, kind)) continue;
      const Expr c = m.eval(a.args[0]);
      const std::optional<uint64_t> bits = c.numeral();
      if (!bits) continue;
      // SMT equality is the identity of values (one NaN; +0 and -0 apart), so the antecedent picks out
      // exactly the argument value c, and every NaN argument gives a NaN, as libm's does.
      const DType t = fn->second;
      out.push_back((a.args[0] == c).implies(a.term == sem::constant(t, interp::float_unary(kind, t, *bits))));
    }
  return out;
}

Expr rsqrt(const Expr& x, DType t) {
  if (t == DType::F64) return sem::integer(t, 1) / x.sqrt();
  const smt::FPFormat f32 = fp_format(DType::F32);
  const Expr y = t == DType::F32 ? x : x.toFP(f32);
  const Expr r = sem::integer(DType::F32, 1) / y.sqrt();
  return t == DType::F32 ? r : r.toFP(fp_format(t));
}

}  // namespace ptir::verify::transc
