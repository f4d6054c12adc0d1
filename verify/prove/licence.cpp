// Real-number licences (verify/prove/licence.h): the rule's source and result as real terms
// (verify/smt/reals.h), compared by Z3.
#include "verify/prove/licence.h"

#include <cmath>
#include <functional>
#include <map>

#include "verify/smt/reals.h"

namespace ptir::prove {
namespace {

using smt::RealTerms;
using Op = RealTerms::Op;

/// The ops of a transcendental function: the rules built with one need afn for a licence.
bool transcendental(OpCode op) {
  return op == OpCode::Exp || op == OpCode::Log || op == OpCode::Tanh || op == OpCode::Erf || op == OpCode::Sqrt ||
         op == OpCode::Rsqrt;
}

/// Builds a rule side as real terms; false (with `why`) when a node has no real reading.
struct Builder {
  RealTerms& t;
  std::map<std::string, int> bound;  ///< %captures and `as` names (source first)
  bool transc = false;
  std::string why;

  int build(const rules::Node& n) {
    int id = -1;
    switch (n.kind) {
      case rules::Node::Kind::Value: {
        auto it = bound.find(n.name);
        id = it != bound.end() ? it->second : t.var("%" + n.name);
        break;
      }
      case rules::Node::Kind::Splat: {
        const double v = n.number.value.approx;
        if (!std::isfinite(v)) return fail("splat(" + n.number.text + ") has no real value");
        id = t.num(v);
        break;
      }
      case rules::Node::Kind::Const:
        if (!n.helper.empty()) return fail("a literal helper (" + n.helper + ") has no real reading here");
        id = t.var("$" + n.name);
        break;
      case rules::Node::Kind::Op: {
        if (!n.attrs.empty()) return fail(std::string(mnemonic(n.op)) + " with attributes");
        std::vector<int> a;
        for (const auto& o : n.operands) {
          a.push_back(build(*o));
          if (a.back() < 0) return -1;
        }
        const int x = a.empty() ? -1 : a[0], y = a.size() > 1 ? a[1] : -1;
        transc = transc || transcendental(n.op);
        switch (n.op) {
          case OpCode::Neg: id = t.op(Op::Neg, x); break;
          case OpCode::Abs: id = t.op(Op::Abs, x); break;
          case OpCode::Exp: id = t.op(Op::Exp, x); break;
          case OpCode::Log: id = t.op(Op::Log, x); break;
          case OpCode::Tanh: id = t.op(Op::Tanh, x); break;
          case OpCode::Erf: id = t.op(Op::Erf, x); break;
          case OpCode::Sqrt: id = t.op(Op::Sqrt, x); break;
          case OpCode::Rsqrt: id = t.op(Op::Div, t.num(1), t.op(Op::Sqrt, x)); break;
          case OpCode::Reciprocal: id = t.op(Op::Div, t.num(1), x); break;
          case OpCode::Add: id = t.op(Op::Add, x, y); break;
          case OpCode::Sub: id = t.op(Op::Sub, x, y); break;
          case OpCode::Mul: id = t.op(Op::Mul, x, y); break;
          case OpCode::Div: id = t.op(Op::Div, x, y); break;
          case OpCode::Maximum: id = t.op(Op::Max, x, y); break;
          case OpCode::Minimum: id = t.op(Op::Min, x, y); break;
          default: return fail(std::string(mnemonic(n.op)) + " is not real arithmetic (data movement and other ops are judged by the exact check only)");
        }
        if ((n.op == OpCode::Add || n.op == OpCode::Sub || n.op == OpCode::Mul || n.op == OpCode::Div ||
             n.op == OpCode::Maximum || n.op == OpCode::Minimum) != (a.size() == 2) ||
            a.empty())
          return fail(std::string(mnemonic(n.op)) + " with " + std::to_string(a.size()) + " operands");
        break;
      }
    }
    if (!n.as_name.empty()) bound.emplace(n.as_name, id);
    if (n.kind == rules::Node::Kind::Value) bound.emplace(n.name, id);
    return id;
  }
  int fail(std::string w) {
    if (why.empty()) why = std::move(w);
    return -1;
  }
};

/// Whether every instance of the rule is over floats: a float-only op in the source, or a constraint
/// that asks for a float dtype.
bool floats_only(const rules::Rule& r) {
  bool f = false;
  std::function<void(const rules::Node&)> walk = [&](const rules::Node& n) {
    if (n.kind == rules::Node::Kind::Op && (transcendental(n.op) || n.op == OpCode::Reciprocal)) f = true;
    for (const auto& o : n.operands) walk(*o);
  };
  walk(*r.source);
  for (const rules::Constraint& c : r.where)
    if (!c.negated && (c.pred == "is_float" || (c.pred == "dtype_is" && !c.args.empty() && [&] {
                         for (size_t k = 1; k < c.args.size(); ++k)
                           if (c.args[k].name != "f16" && c.args[k].name != "bf16" && c.args[k].name != "f32" &&
                               c.args[k].name != "f64")
                             return false;
                         return c.args.size() > 1;
                       }())))
      f = true;
  return f;
}

}  // namespace

std::optional<Status> licence_of(const rules::Rule& r, unsigned budget_ms, std::string* why) {
  auto no = [&](std::string w) -> std::optional<Status> {
    if (why) *why = std::move(w);
    return std::nullopt;
  };
  const uint8_t base = rules::kNNaN | rules::kNInf | rules::kNSZ;
  if ((r.assumes & base) != base || !(r.assumes & (rules::kAFn | rules::kReassoc)))
    return no("a licence needs assumes nnan ninf nsz and afn or reassoc");
  if (!floats_only(r)) return no("the rule may be instantiated on integers (no float-only op or is_float constraint)");
  RealTerms t;
  Builder b{t, {}, false, ""};
  const int src = b.build(*r.source);
  if (src < 0) return no("no real reading: " + b.why);
  const int tgt = b.build(*r.result);
  if (tgt < 0) return no("no real reading: " + b.why);
  const Status licence = b.transc ? Status::LicensedAFn : Status::LicensedReassoc;
  if (licence == Status::LicensedAFn && !(r.assumes & rules::kAFn))
    return no("the rule is built with transcendental functions and does not assume afn");
  if (licence == Status::LicensedReassoc && !(r.assumes & rules::kReassoc))
    return no("the rule has no transcendental function and does not assume reassoc");
  std::string z3;
  switch (t.equal_over_reals(src, tgt, budget_ms, &z3)) {
    case RealTerms::Answer::Holds:
      if (why) *why = "source and result are equal over the real numbers wherever the source is defined (Z3: unsat)";
      return licence;
    case RealTerms::Answer::NotShown: return no("not shown equal over the real numbers (Z3: " + z3 + ")");
    case RealTerms::Answer::Unknown: return no("UNKNOWN over the real numbers (Z3: " + z3 + ")");
  }
  return std::nullopt;
}

}  // namespace ptir::prove
