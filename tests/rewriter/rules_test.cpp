// The rule language (docs/rules.md): load-time errors with their exact FILE:LINE:COL messages, matching
// (commutative operand orders, the same capture twice, splat number rules, attributes, constraints),
// result building (derived types, helpers, literals), and the built-in library and C++ templates load.
#include <gtest/gtest.h>

#include <cstdlib>

#include "patterns/templates.h"
#include "patterns/library.h"
#include "patterns/passes.h"
#include "rewriter/greedy.h"
#include "rewriter/rules/natives.h"
#include "rewriter/rules/rules.h"
#include "tests/rewriter/helpers.h"

namespace ptir {
namespace {
using testing::parse;
using testing::print;

/// The first line of the formatted load error of `text` (as file "t.rules"), or "" when it loads
/// (the source line and caret after it are checked by RuleErrors.SourceLineCaretAndEveryError).
std::string load_error(std::string_view text) {
  auto r = rules::load_rule_text(text, "t.rules");
  if (auto* e = std::get_if<rules::RuleError>(&r)) {
    const std::string f = e->format();
    return f.substr(0, f.find('\n'));
  }
  return "";
}

TEST(RuleErrors, SourceLineCaretAndEveryError) {
  auto r = rules::load_rule_text("rule a : neg(%x, %y) => %x\nrule b : add(%x) => %x\n", "t.rules");
  auto* e = std::get_if<rules::RuleError>(&r);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->format(),
            "t.rules:1:10: error: rule a: neg takes 1 operand, the rule gives 2\n"
            "  rule a : neg(%x, %y) => %x\n"
            "           ^\n"
            "t.rules:2:10: error: rule b: add takes 2 operands, the rule gives 1\n"
            "  rule b : add(%x) => %x\n"
            "           ^\n"
            "2 errors in t.rules");
  ASSERT_EQ(e->more.size(), 1u);
  // Syntax errors: the parser resumes at the next line starting with `rule`.
  auto s = rules::parse_rule_text("rule a : frob(%x) => %x\nrule ok : neg(%x) => %x\nrule b : neg(%x => %x\n", "t.rules");
  auto* se = std::get_if<rules::RuleError>(&s);
  ASSERT_NE(se, nullptr);
  EXPECT_EQ(se->loc.line, 1u);
  ASSERT_EQ(se->more.size(), 1u);
  EXPECT_EQ(se->more[0].loc.line, 3u);
}

/// Loads `rules_text`, runs its rules (no folding, no DCE, expensive checks on) over `program`, and
/// returns the printed result; `rewrites` gets the number of rewrites.
std::string run_rules(std::string_view rules_text, std::string_view program, int64_t* rewrites = nullptr) {
  auto loaded = rules::load_rule_text(rules_text, "t.rules");
  if (auto* e = std::get_if<rules::RuleError>(&loaded)) {
    ADD_FAILURE() << e->format();
    return "";
  }
  auto file = std::make_shared<const rules::RuleFile>(std::move(std::get<rules::RuleFile>(loaded)));
  PatternSet s;
  rules::add_rule_patterns(s, file);
  FrozenPatternSet set = std::move(s).freeze();
  auto p = parse(program);
  GreedyResult r = apply_patterns_and_fold_greedily(*p, set, GreedyConfig{.fold = false, .dce = true, .expensive_checks = true});
  EXPECT_TRUE(r.converged) << r.diagnostic;
  EXPECT_EQ(testing::verify_error(*p), "");
  if (rewrites) *rewrites = r.stats.rewrites;
  return print(*p);
}

bool has(const std::string& s, std::string_view what) { return s.find(what) != std::string::npos; }

// ---- load-time errors ----

TEST(RuleErrors, WrongArity) {
  EXPECT_EQ(load_error("rule r : neg(%x, %y) => %x"), "t.rules:1:10: error: rule r: neg takes 1 operand, the rule gives 2");
  EXPECT_EQ(load_error("rule r : neg(%x) =>\n  add(%x)"), "t.rules:2:3: error: rule r: add takes 2 operands, the rule gives 1");
}

// Deep nesting is an error at the level past the limit, not a stack overflow (30,000 nested `neg(`, or
// parentheses in an integer expression, crashed the parser).
TEST(RuleErrors, NestingDeeperThanTheLimit) {
  std::string ops, close;
  for (int k = 0; k < 30000; ++k) ops += "neg(", close += ")";
  EXPECT_NE(load_error("rule r : " + ops + "%x" + close + " => %x").find("error: nesting deeper than 256 levels"),
            std::string::npos);
  std::string parens(30000, '('), back(30000, ')');
  EXPECT_NE(load_error("rule r : slice(%x) {starts = $s} : $T where " + parens + "1" + back + " == 1 => %x")
                .find("error: nesting deeper than 256 levels"),
            std::string::npos);
  EXPECT_NE(load_error("rule r : slice(%x) {starts = $s} : $T where " + std::string(40000, '-') + "1 == 1 => %x")
                .find("error: nesting deeper than 256 levels"),
            std::string::npos);
  // 200 levels are fine (and the next rule of a file is read normally after an error).
  std::string ok, okc;
  for (int k = 0; k < 100; ++k) ok += "neg(neg(", okc += "))";
  EXPECT_EQ(load_error("rule r : " + ok + "%x" + okc + " => %x"), "");
}

// A rank no type can have would make rank_is never hold (or always, under `not`).
TEST(RuleErrors, RankIsOutsideTheRanksATypeCanHave) {
  EXPECT_EQ(load_error("rule r : neg(%x) where rank_is(%x, -1) => %x"),
            "t.rules:1:24: error: rule r: predicate rank_is argument 2 is -1, not a rank (0..16)");
  EXPECT_EQ(load_error("rule r : neg(%x) : $T where rank_is($T, 17) => %x"),
            "t.rules:1:29: error: rule r: predicate rank_is argument 2 is 17, not a rank (0..16)");
  EXPECT_EQ(load_error("rule r : neg(%x) where rank_is(%x, 16) => %x"), "");
}

TEST(RuleErrors, NotTwiceSaysSo) {
  // It read "expected '(' after the predicate name, found 'is_float('" ('not' taken as the predicate).
  EXPECT_EQ(load_error("rule r : neg(%x) where not not is_float(%x) => %x"),
            "t.rules:1:28: error: 'not' twice: a constraint takes one 'not' ('not not p(...)' is p(...): drop both)");
}

/// A C++ pattern's template is checked like a rule (rules::load_template_text). A bare capture and a
/// constraint on a capture the DAG never binds loaded before, and the constraint was ignored (every
/// instance counted as an instance of the template).
TEST(RuleErrors, TemplatesAreCheckedLikeRules) {
  auto err = [](std::string_view dag) {
    auto r = rules::load_template_text(dag, "t");
    if (auto* e = std::get_if<rules::RuleError>(&r)) return e->format().substr(0, e->format().find('\n'));
    return std::string();
  };
  EXPECT_NE(err("%x").find("the source of a rule must be an op"), std::string::npos) << err("%x");
  EXPECT_NE(err("neg(%y) where is_float(%x)").find("capture %x is used but never bound"), std::string::npos)
      << err("neg(%y) where is_float(%x)");
  EXPECT_NE(err("frob(%x)").find("unknown op 'frob'"), std::string::npos);
  // Valid templates: any captures (none named %x), a root already bound with `as`, constants only.
  EXPECT_EQ(err("neg(neg(%y))"), "");
  EXPECT_EQ(err("reduce_max(reduce_max(%x) {axes = $a} as %i) {axes = $b} as %o where not has_attr(%i, accum)"), "");
  EXPECT_EQ(err("compare(%a, %b) {dir = lt}"), "");
  EXPECT_EQ(err("add(splat(1), const($c))"), "");
  // The rule it becomes matches exactly the template's instances.
  auto r = rules::load_template_text("neg(neg(%y)) where is_float(%y)", "t");
  ASSERT_TRUE(std::holds_alternative<rules::RuleFile>(r));
  EXPECT_EQ(std::get<rules::RuleFile>(r).rules.at(0).where.size(), 1u);
}

TEST(RuleErrors, UnknownOp) {
  EXPECT_EQ(load_error("rule r : frob(%x) => %x"), "t.rules:1:10: error: unknown op 'frob'");
}

TEST(RuleErrors, CaptureUsedButNeverBound) {
  EXPECT_EQ(load_error("rule r : neg(%x) => %y"),
            "t.rules:1:21: error: rule r: capture %y is used but never bound by the source pattern");
  EXPECT_EQ(load_error("rule r : add(%x, %x) => neg(%x) : $T"),
            "t.rules:1:25: error: rule r: capture $T is used but never bound by the source pattern");
  EXPECT_EQ(load_error("rule r : neg(%x) where one_use(%z) => %x"),
            "t.rules:1:24: error: rule r: capture %z is used but never bound by the source pattern");
}

TEST(RuleErrors, ResultTypeNotDerivable) {
  EXPECT_EQ(load_error("rule r : neg(reshape(%x)) => neg(reshape(%x))"),
            "t.rules:1:34: error: rule r: cannot derive the result type of reshape: write ': type(%x)' or ': $T'");
  // The root takes the matched root's type, and `: type(%x)` or `: $T` fixes an inner node's.
  EXPECT_EQ(load_error("rule r : neg(reshape(%x) : $T) => neg(reshape(%x) : $T)"), "");
}

TEST(RuleErrors, UnknownPredicateAndHelpers) {
  EXPECT_EQ(load_error("rule r : neg(%x) where frob(%x) => %x"),
            "t.rules:1:24: error: rule r: unknown predicate 'frob' (see docs/rules.md for the list)");
  EXPECT_EQ(load_error("rule r : neg(%x) where rank_is(%x) => %x"),
            "t.rules:1:24: error: rule r: predicate rank_is takes 2 arguments, given 1");
  EXPECT_EQ(load_error("rule r : transpose(%x) {perm = $p} => transpose(%x) {perm = frob($p)}"),
            "t.rules:1:54: error: rule r: unknown attribute helper 'frob'");
  EXPECT_EQ(load_error("rule r : neg(%x) => const(frob($c))"), "t.rules:1:21: error: rule r: unknown literal helper 'frob'");
}

TEST(RuleOptions, AssumesEveryFastMathFlag) {
  auto r = rules::load_rule_text("rule r [assumes nnan ninf nsz reassoc contract afn] : neg(neg(%x)) => %x\n"
                                 "rule s [assumes afn] : exp(neg(neg(%x))) => exp(%x)\n", "t.rules");
  auto* f = std::get_if<rules::RuleFile>(&r);
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->rules.size(), 2u);
  EXPECT_EQ(f->rules[0].assumes, rules::kNNaN | rules::kNInf | rules::kNSZ | rules::kReassoc | rules::kContract | rules::kAFn);
  EXPECT_EQ(f->rules[1].assumes, rules::kAFn);
}

TEST(RuleErrors, OptionsAttributesAndStructure) {
  EXPECT_EQ(load_error("rule r [assumes fast] : neg(%x) => %x"),
            "t.rules:1:17: error: unknown fast-math flag 'fast' (nnan, ninf, nsz, reassoc, contract, afn)");
  EXPECT_EQ(load_error("rule r : neg(%x) => %x\nrule r : abs(%x) => %x"), "t.rules:2:1: error: rule r is defined twice");
  EXPECT_EQ(load_error("rule r : %x => %x"), "t.rules:1:10: error: rule r: the source of a rule must be an op, not a bare capture");
  EXPECT_EQ(load_error("rule r : transpose(%x) {axis = $a} => %x"),
            "t.rules:1:25: error: rule r: transpose has no attribute 'axis' (it takes perm)");
  EXPECT_EQ(load_error("rule r : compare(%x, %y) {dir = sideways} => %x"),
            "t.rules:1:27: error: rule r: 'sideways' is not a value of compare's attribute 'dir'");
  EXPECT_EQ(load_error("rule r : neg(%x) => concat(%x, %x)"), "t.rules:1:21: error: rule r: concat needs attribute 'axis'");
  EXPECT_EQ(load_error("rule r : neg(%x) => %x extra"), "t.rules:1:24: error: expected 'rule', found 'extra'");
}

// ---- matching ----

TEST(RuleMatching, CommutativeOpsMatchBothOperandOrders) {
  int64_t n = 0;
  std::string out = run_rules("rule mul_one : mul(%x, splat(1)) => %x", R"(
func @main(%x: tensor<f32, 2>, %y: tensor<f32, 2>) -> (tensor<f32, 2>, tensor<f32, 2>) {
  %a = mul dense<1.0> : tensor<f32, 2>, %x -> tensor<f32, 2>
  %b = mul %y, dense<1.0> : tensor<f32, 2> -> tensor<f32, 2>
  return %a, %b
}
)", &n);
  EXPECT_EQ(n, 2);
  EXPECT_TRUE(has(out, "return %x, %y")) << out;
  // sub is not commutative: 1 - x is not matched by sub(%x, splat(0))-style operand swaps.
  out = run_rules("rule sub_zero : sub(%x, splat(0)) => %x", R"(
func @main(%x: tensor<si32, 2>) -> tensor<si32, 2> {
  %a = sub dense<0> : tensor<si32, 2>, %x -> tensor<si32, 2>
  return %a
}
)", &n);
  EXPECT_EQ(n, 0);
  EXPECT_TRUE(has(out, "sub dense<0>")) << out;
}

TEST(RuleMatching, SameCaptureTwiceMeansSameValue) {
  int64_t n = 0;
  std::string out = run_rules("rule s : sub(%x, %x) where is_int(%x) => splat(0)", R"(
func @main(%x: tensor<si8, 2>, %y: tensor<si8, 2>) -> (tensor<si8, 2>, tensor<si8, 2>) {
  %a = sub %x, %x -> tensor<si8, 2>
  %b = sub %x, %y -> tensor<si8, 2>
  return %a, %b
}
)", &n);
  EXPECT_EQ(n, 1);
  EXPECT_TRUE(has(out, "return dense<0> : tensor<si8, 2>, %b")) << out;
}

TEST(RuleMatching, SplatNumberRules) {
  // `1` matches integers and floats; `1.0` only floats; `-0.0` is not `0.0`; `nan` matches any NaN.
  const char* prog = R"(
func @main(%f: tensor<f32, 2>, %i: tensor<si32, 2>) -> (tensor<f32, 2>, tensor<si32, 2>, tensor<f32, 2>, tensor<f32, 2>) {
  %a = mul %f, dense<1.0> : tensor<f32, 2> -> tensor<f32, 2>
  %b = mul %i, dense<1> : tensor<si32, 2> -> tensor<si32, 2>
  %c = add %f, dense<0.0> : tensor<f32, 2> -> tensor<f32, 2>
  %d = maximum %f, dense<0x7FC00001> : tensor<f32, 2> -> tensor<f32, 2>
  return %a, %b, %c, %d
}
)";
  int64_t n = 0;
  std::string out = run_rules("rule r : mul(%x, splat(1)) => %x", prog, &n);
  EXPECT_EQ(n, 2) << out;
  out = run_rules("rule r : mul(%x, splat(1.0)) => %x", prog, &n);
  EXPECT_EQ(n, 1) << out;
  EXPECT_TRUE(has(out, "mul %i, dense<1>")) << out;
  out = run_rules("rule r : add(%x, splat(-0.0)) => %x", prog, &n);
  EXPECT_EQ(n, 0) << out;
  out = run_rules("rule r : maximum(%x, splat(nan) as %n) => %n", prog, &n);
  EXPECT_EQ(n, 1) << out;
  // A literal mixing values is not a splat.
  out = run_rules("rule r : mul(%x, splat(2)) => add(%x, %x)", R"(
func @main(%f: tensor<f32, 2>) -> tensor<f32, 2> {
  %a = mul %f, dense<[2.0, 3.0]> : tensor<f32, 2> -> tensor<f32, 2>
  return %a
}
)", &n);
  EXPECT_EQ(n, 0) << out;
}

TEST(RuleMatching, DocumentedNumberAndAttributeEdges) {
  // docs/rules.md: `splat(0)` is +0.0 only; `splat(0.1)` is no f32 value but is f64's nearest to 0.1;
  // an attribute the instruction does not carry does not match, default or not; a variadic op matches
  // only its written operand count. (Rules that only forward a value: only whether they match is
  // tested here, nothing is rewritten.)
  auto loaded = rules::load_rule_text(
      "rule z : maximum(%x, splat(0)) => %x\n"
      "rule p : maximum(%x, splat(0.1)) => %x\n"
      "rule k : reduce_sum(%x) {keepdims = false} => %x\n"
      "rule c : concat(%x, %y) {axis = 0} => %x",
      "t.rules");
  ASSERT_TRUE(std::holds_alternative<rules::RuleFile>(loaded));
  auto file = std::make_shared<const rules::RuleFile>(std::move(std::get<rules::RuleFile>(loaded)));
  PatternSet s;
  rules::add_rule_patterns(s, file);
  auto p = parse(R"(
func @main(%a: tensor<f32, 2>, %b: tensor<f64, 2>) -> (tensor<f32, 2>, tensor<f32, 2>, tensor<f32, 2>, tensor<f64, 2>, tensor<f32>, tensor<f32>, tensor<f32, 4>, tensor<f32, 6>) {
  %z1 = maximum %a, dense<0.0> : tensor<f32, 2> -> tensor<f32, 2>
  %z2 = maximum %a, dense<-0.0> : tensor<f32, 2> -> tensor<f32, 2>
  %p1 = maximum %a, dense<0.1> : tensor<f32, 2> -> tensor<f32, 2>
  %p2 = maximum %b, dense<0.1> : tensor<f64, 2> -> tensor<f64, 2>
  %k1 = reduce_sum %a axes[0] -> tensor<f32>
  %k2 = reduce_sum %a axes[0] keepdims[false] -> tensor<f32>
  %c2 = concat %a, %a axis[0] -> tensor<f32, 4>
  %c3 = concat %a, %a, %a axis[0] -> tensor<f32, 6>
  return %z1, %z2, %p1, %p2, %k1, %k2, %c2, %c3
}
)");
  std::vector<std::string> matched;
  for (const auto& pat : s.patterns()) {
    const auto* rp = dynamic_cast<const rules::RulePattern*>(pat.get());
    ASSERT_NE(rp, nullptr);
    for (const char* n : {"z1", "z2", "p1", "p2", "k1", "k2", "c2", "c3"})
      if (rp->matches(*p, testing::inst_named(*p, n))) matched.push_back(std::string(rp->rule().name) + ":" + n);
  }
  EXPECT_EQ(matched, (std::vector<std::string>{"z:z1", "p:p2", "k:k2", "c:c2"}));
}

TEST(RuleMatching, NumbersAreReadExactly) {
  // docs/rules.md "Numbers": an integer keeps every digit (it was read through a double: 2^63 - 1 became
  // si64 MIN, 2^64 - 1 became 0 in ui64); out of range for the dtype means no value; in a float dtype
  // it must be exactly a value; a decimal is the double nearest it, which the dtype must hold exactly.
  auto bits = [](DType d, const std::string& text) {
    const bool is_float = text.find_first_of(".eEin") != std::string::npos;  // inf, nan too
    return rules::number_bits(d, rules::NumberValue{text, std::strtod(text.c_str(), nullptr)}, is_float);
  };
  EXPECT_EQ(bits(DType::SI64, "9223372036854775807"), std::optional<uint64_t>(0x7FFFFFFFFFFFFFFFull));
  EXPECT_EQ(bits(DType::SI64, "-9223372036854775808"), std::optional<uint64_t>(0x8000000000000000ull));
  EXPECT_EQ(bits(DType::SI64, "9223372036854775808"), std::nullopt);
  EXPECT_EQ(bits(DType::UI64, "9223372036854775808"), std::optional<uint64_t>(0x8000000000000000ull));
  EXPECT_EQ(bits(DType::UI64, "18446744073709551615"), std::optional<uint64_t>(~0ull));
  EXPECT_EQ(bits(DType::UI64, "18446744073709551616"), std::nullopt);
  EXPECT_EQ(bits(DType::UI8, "-1"), std::nullopt);
  EXPECT_EQ(bits(DType::SI8, "-128"), std::optional<uint64_t>(0x80));
  EXPECT_EQ(bits(DType::I1, "1"), std::optional<uint64_t>(1));
  EXPECT_EQ(bits(DType::I1, "2"), std::nullopt);
  EXPECT_EQ(bits(DType::F32, "16777216"), std::optional<uint64_t>(0x4B800000));
  EXPECT_EQ(bits(DType::F32, "16777217"), std::nullopt);  // rounds to 2^24: not that value
  EXPECT_EQ(bits(DType::F64, "9007199254740993"), std::nullopt);
  EXPECT_EQ(bits(DType::F32, "1267650600228229401496703205376"), std::optional<uint64_t>(0x71800000));  // 2^100
  EXPECT_EQ(bits(DType::F32, "-0"), std::optional<uint64_t>(0x80000000));
  EXPECT_EQ(bits(DType::SI32, "1.0"), std::nullopt);
  EXPECT_EQ(bits(DType::F32, "0.1"), std::nullopt);
  EXPECT_EQ(bits(DType::F64, "0.1"), std::optional<uint64_t>(0x3FB999999999999Aull));
  EXPECT_EQ(bits(DType::F16, "65504.0"), std::optional<uint64_t>(0x7BFF));
  EXPECT_EQ(bits(DType::F16, "65505.0"), std::nullopt);
  EXPECT_EQ(bits(DType::BF16, "-inf"), std::optional<uint64_t>(0xFF80));
}

TEST(RuleMatching, AttributesAndConstraints) {
  int64_t n = 0;
  std::string out = run_rules(
      "rule lt : compare(%x, %x) {dir = lt} => splat(0)\n"
      "rule eq : compare(%x, %x) {dir = eq} where not is_float(%x) => splat(1)",
      R"(
func @main(%f: tensor<f32, 2>, %i: tensor<ui8, 2>) -> (tensor<i1, 2>, tensor<i1, 2>, tensor<i1, 2>) {
  %a = compare %f, %f dir[lt] -> tensor<i1, 2>
  %b = compare %f, %f dir[eq] -> tensor<i1, 2>
  %c = compare %i, %i dir[eq] -> tensor<i1, 2>
  return %a, %b, %c
}
)", &n);
  EXPECT_EQ(n, 2);
  EXPECT_TRUE(has(out, "return dense<false> : tensor<i1, 2>, %b, dense<true> : tensor<i1, 2>")) << out;
}

// ---- result building ----

TEST(RuleResults, DerivedTypesHelpersAndLiterals) {
  int64_t n = 0;
  std::string out = run_rules(
      "rule tt : transpose(transpose(%x) {perm = $p}) {perm = $q} => transpose(%x) {perm = compose_perm($p, $q)}\n"
      "rule dp : div(%x, const($c)) where is_pow2($c) => mul(%x, const(reciprocal($c)))\n"
      "rule rr : reshape(reshape(%x)) : $T => reshape(%x) : $T",
      R"(
func @main(%x: tensor<f32, 2x3x4>, %y: tensor<f64, 6>) -> (tensor<f32, 2x4x3>, tensor<f64, 6>, tensor<f64, 2x3>) {
  %a = transpose %x perm[2, 0, 1] -> tensor<f32, 4x2x3>
  %b = transpose %a perm[1, 0, 2] -> tensor<f32, 2x4x3>
  %c = div %y, dense<8.0> : tensor<f64, 6> -> tensor<f64, 6>
  %d = reshape %y -> tensor<f64, 3x2>
  %e = reshape %d -> tensor<f64, 2x3>
  return %b, %c, %e
}
)", &n);
  EXPECT_EQ(n, 3) << out;
  EXPECT_TRUE(has(out, "transpose %x perm[0, 2, 1] -> tensor<f32, 2x4x3>")) << out;
  EXPECT_TRUE(has(out, "mul %y, dense<0.125> : tensor<f64, 6> -> tensor<f64, 6>")) << out;
  EXPECT_TRUE(has(out, "reshape %y -> tensor<f64, 2x3>")) << out;
  EXPECT_FALSE(has(out, "reshape %d")) << out;
}

TEST(RuleResults, SplatResultsCarryTheirNumber) {
  // Regression: a result splat(N) used to build 0 whatever N was.
  int64_t n = 0;
  // Integer x / x is 1 wherever the source is defined (x = 0 is UB there).
  std::string out = run_rules("rule r : div(%x, %x) where is_int(%x) => splat(1)", R"(
func @main(%x: tensor<si8, 2>) -> tensor<si8, 2> {
  %a = div %x, %x -> tensor<si8, 2>
  return %a
}
)", &n);
  EXPECT_EQ(n, 1);
  EXPECT_TRUE(has(out, "return dense<1> : tensor<si8, 2>")) << out;
}

TEST(RuleResults, AHelperThatDoesNotApplyLeavesTheProgramAlone) {
  int64_t n = 0;
  std::string out = run_rules("rule r : div(%x, const($c)) => mul(%x, const(reciprocal($c)))", R"(
func @main(%x: tensor<f32, 2>) -> tensor<f32, 2> {
  %a = div %x, dense<3.0> : tensor<f32, 2> -> tensor<f32, 2>
  return %a
}
)", &n);
  EXPECT_EQ(n, 0);
  EXPECT_TRUE(has(out, "div %x, dense<3.0>")) << out;
}

// ---- the library ----

TEST(RuleLibrary, BuiltinFilesLoadAndEveryRuleHasAComment) {
  size_t rules = 0;
  for (const auto& f : builtin_rule_files())
    for (const rules::Rule& r : f->rules) {
      ++rules;
      EXPECT_FALSE(r.comment.empty()) << r.name << " in " << f->path << " has no identity comment";
    }
  EXPECT_GE(rules, 60u);
}

TEST(RuleLibrary, EveryCppTemplateParsesAsARuleSource) {
  const auto templates = cpp_pattern_templates();
  EXPECT_GE(templates.size(), 10u);
  int k = 0;
  for (const auto& [pattern, source] : templates)
    EXPECT_EQ(load_error("rule t" + std::to_string(k++) + " : " + source + " => %x"), "") << pattern << ": " << source;
  // Every C++ pattern of the canonicalization set that is not a rule declares at least one template.
  PatternSet s;
  populate_canonicalization_patterns(s);
  for (const auto& p : s.patterns()) {
    if (dynamic_cast<const rules::RulePattern*>(p.get())) continue;
    bool found = false;
    for (const auto& t : templates) found = found || t.first == p->debug_name();
    EXPECT_TRUE(found) << p->debug_name() << " declares no instance template";
  }
}

}  // namespace
}  // namespace ptir
