// Integer constraints and computed attributes of the rule language (docs/rules.md "Integer
// constraints"): the evaluator (rewriter/rules/natives.cpp eval_int / int_holds) against exact
// arithmetic, and constraints over dims, ranks and attribute entries against direct computation on
// random shapes (RapidCheck).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <climits>

#include "patterns/library.h"
#include "rewriter/pattern.h"
#include "rewriter/rules/natives.h"
#include "rewriter/rules/rules.h"
#include "tests/rewriter/helpers.h"

namespace ptir {
namespace {

using rules::CIntCond;
using rules::CIntExpr;
using rules::IntCond;
using rules::IntExpr;

int64_t gen_int() {
  switch (*rc::gen::inRange(0, 3)) {
    case 0: return *rc::gen::inRange<int64_t>(-5, 6);
    case 1: return *rc::gen::element<int64_t>(INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1, int64_t{1} << 32,
                                             -(int64_t{1} << 32), int64_t{3037000500});
    default: return *rc::gen::arbitrary<int64_t>();
  }
}

CIntExpr lit(int64_t v) {
  CIntExpr e;
  e.kind = IntExpr::Kind::Lit, e.lit = v;
  return e;
}
CIntExpr bin(IntExpr::Kind k, CIntExpr a, CIntExpr b) {
  CIntExpr e;
  e.kind = k;
  e.kids = {std::move(a), std::move(b)};
  return e;
}

/// + - * are exact where the result fits 64 bits and undefined (nullopt) exactly where it does not;
/// min and max are always defined.
RC_GTEST_PROP(IntConstraints, ArithmeticIsExactOrUndefined, ()) {
  const int64_t a = gen_int(), b = gen_int();
  Program p;
  rules::Captures c;
  for (IntExpr::Kind k : {IntExpr::Kind::Add, IntExpr::Kind::Sub, IntExpr::Kind::Mul}) {
    const __int128 exact = k == IntExpr::Kind::Add   ? static_cast<__int128>(a) + b
                           : k == IntExpr::Kind::Sub ? static_cast<__int128>(a) - b
                                                     : static_cast<__int128>(a) * b;
    const auto got = rules::eval_int(p, c, bin(k, lit(a), lit(b)), {});
    if (exact > INT64_MAX || exact < INT64_MIN) RC_ASSERT(!got.has_value());
    else RC_ASSERT(got == std::optional<int64_t>(static_cast<int64_t>(exact)));
  }
  RC_ASSERT(rules::eval_int(p, c, bin(IntExpr::Kind::Min, lit(a), lit(b)), {}) == std::optional<int64_t>(std::min(a, b)));
  RC_ASSERT(rules::eval_int(p, c, bin(IntExpr::Kind::Max, lit(a), lit(b)), {}) == std::optional<int64_t>(std::max(a, b)));
}

/// A comparison holds exactly as on integers; one with an undefined side (an overflow) is false, in
/// every comparison (so a rule whose constraint overflows never fires, whichever way it is written).
RC_GTEST_PROP(IntConstraints, ComparisonsAndOverflowMakeItFalse, ()) {
  const int64_t a = gen_int(), b = gen_int();
  Program p;
  rules::Captures c;
  std::vector<int64_t> vars;
  const IntCond::Cmp cmps[] = {IntCond::Cmp::Eq, IntCond::Cmp::Ne, IntCond::Cmp::Lt,
                               IntCond::Cmp::Le, IntCond::Cmp::Gt, IntCond::Cmp::Ge};
  const bool want[] = {a == b, a != b, a < b, a <= b, a > b, a >= b};
  for (int k = 0; k < 6; ++k) {
    CIntCond cond;
    cond.kind = IntCond::Kind::Cmp, cond.cmp = cmps[k];
    cond.lhs = lit(a), cond.rhs = lit(b);
    RC_ASSERT(rules::int_holds(p, c, cond, vars) == want[k]);
    // INT64_MAX + 1 overflows: false, also for != and for the comparison's negation.
    cond.lhs = bin(IntExpr::Kind::Add, lit(INT64_MAX), lit(1));
    RC_ASSERT(!rules::int_holds(p, c, cond, vars));
  }
}

/// Loads `rule` and reports whether it matches the instruction named %r of `program`.
bool matches(const std::string& rule, const std::string& program) {
  auto loaded = rules::load_rule_text(rule, "t.rules");
  if (auto* e = std::get_if<rules::RuleError>(&loaded)) {
    ADD_FAILURE() << e->format();
    return false;
  }
  auto file = std::make_shared<const rules::RuleFile>(std::get<rules::RuleFile>(std::move(loaded)));
  PatternSet set;
  rules::add_rule_patterns(set, file);
  FrozenPatternSet frozen = std::move(set).freeze(PatternFilter{});
  auto p = testing::parse(program);
  if (!p) return false;
  const auto* rp = dynamic_cast<const rules::RulePattern*>(frozen.all()[0]);
  return rp->matches(*p, testing::inst_named(*p, "r"));
}

std::string type_text(const std::vector<int64_t>& dims) {
  std::string s = "tensor<f32";
  for (size_t k = 0; k < dims.size(); ++k) s += (k ? "x" : ", ") + std::to_string(dims[k]);
  return s + ">";
}

/// dim, rank, at and `all i < E: C` over a matched slice, against the same statement computed directly:
/// the window fits from the captured starts, with `k` rows to spare on every axis.
RC_GTEST_PROP(IntConstraints, DimsStartsAndAllAgreeWithDirectComputation, ()) {
  const int rank = *rc::gen::inRange(0, 4);
  std::vector<int64_t> xd, rd, starts;
  for (int i = 0; i < rank; ++i) {
    xd.push_back(*rc::gen::inRange<int64_t>(0, 6));
    rd.push_back(*rc::gen::inRange<int64_t>(0, xd.back() + 1));
    starts.push_back(*rc::gen::inRange<int64_t>(0, xd.back() - rd.back() + 1));
  }
  const int64_t k = *rc::gen::inRange<int64_t>(-1, 3);
  std::string s = "[";
  for (int i = 0; i < rank; ++i) s += (i ? ", " : "") + std::to_string(starts[i]);
  s += "]";
  const std::string program = "func @main(%x: " + type_text(xd) + ") -> " + type_text(rd) + " {\n  %r = slice %x starts" + s +
                              " -> " + type_text(rd) + "\n  return %r\n}\n";
  const std::string rule = "rule r : slice(%x) {starts = $s} : $T where all i < rank(%x): at($s, i) + dim($T, i) + " +
                           std::to_string(k) + " <= dim(%x, i) => %x\n";
  bool want = true;
  for (int i = 0; i < rank; ++i) want = want && starts[i] + rd[i] + k <= xd[i];
  RC_ASSERT(matches(rule, program) == want);
  // `or` holds when one side does; an axis out of range (dim(%x, rank(%x))) is undefined: false.
  const std::string either = "rule r : slice(%x) {starts = $s} : $T where dim(%x, rank(%x)) == 0 or rank(%x) == " +
                             std::to_string(rank) + " => %x\n";
  RC_ASSERT(matches(either, program));
  const std::string undefined = "rule r : slice(%x) {starts = $s} : $T where dim(%x, rank(%x)) >= 0 => %x\n";
  RC_ASSERT(!matches(undefined, program));
}

/// lit_ints($c) is the list of at($c, k) for every element k, defined where every element is (an integer
/// literal whose values fit int64; i1 reads 0 and 1); a float literal has none. Signed elements read
/// their two's-complement value, unsigned ones their unsigned value.
RC_GTEST_PROP(IntConstraints, LitIntsIsAtOfEveryElement, ()) {
  const DType d = static_cast<DType>(*rc::gen::inRange(0, kNumDTypes));
  const int64_t n = *rc::gen::inRange<int64_t>(0, 5);
  Tensor t(TensorType{d, {n}});
  for (int64_t k = 0; k < n; ++k) {
    const uint64_t b = *rc::gen::inRange(0, 3) ? *rc::gen::inRange<uint64_t>(0, 4) : *rc::gen::arbitrary<uint64_t>();
    t.set_bits(k, b & bits_mask(d));
  }
  rules::Captures c;
  c.lit[0] = &t;
  rules::Arg a;
  a.kind = rules::CapKind::Lit, a.slot = 0;
  const auto list = rules::find_attr_helper("lit_ints")->fn(c, std::span<const rules::Arg>(&a, 1));
  Program p;
  bool all = !is_float(d);
  std::vector<int64_t> want;
  for (int64_t k = 0; k < n && all; ++k) {
    CIntExpr at;
    at.kind = IntExpr::Kind::At, at.cap = rules::CapKind::Lit, at.slot = 0;
    at.kids.push_back(lit(k));
    const auto v = rules::eval_int(p, c, at, {});
    if (!v) all = false;
    else want.push_back(*v);
    const uint64_t b = t.bits(k);
    if (v && d != DType::I1) RC_ASSERT(*v == (is_signed_int(d) ? int_value(d, b) : static_cast<int64_t>(b)));
  }
  if (!all) RC_ASSERT(!list.has_value());
  else RC_ASSERT(list == std::optional<std::vector<int64_t>>(want));
}

/// A second const($c) matches only a literal equal to the first (same type, same bits).
TEST(IntConstraints, SecondConstIsAnEqualLiteral) {
  const std::string rule = "rule r : sub(const($c), const($c)) => %x\n";
  const std::string rule_ok = "rule r : sub(const($c) : $T, const($c)) where is_int($T) => splat(0)\n";
  const std::string same =
      "func @main() -> tensor<si32, 2> {\n  %r = sub dense<[1, 2]> : tensor<si32, 2>, dense<[1, 2]> : tensor<si32, 2> -> tensor<si32, 2>\n"
      "  return %r\n}\n";
  const std::string other =
      "func @main() -> tensor<si32, 2> {\n  %r = sub dense<[1, 2]> : tensor<si32, 2>, dense<[1, 3]> : tensor<si32, 2> -> tensor<si32, 2>\n"
      "  return %r\n}\n";
  EXPECT_NE(rules::load_rule_text(rule, "t.rules").index(), 0u);  // %x is never bound
  EXPECT_TRUE(matches(rule_ok, same));
  EXPECT_FALSE(matches(rule_ok, other));
}

}  // namespace
}  // namespace ptir
