// The all-shape fragment, decided on a rule's text (verify/allshape/fragment.cpp, docs/verification.md
// "The fragment"): rules in it are accepted; rules outside it get the documented reason, never a silent
// default (a native without an all-shape spec is named).
#include <gtest/gtest.h>

#include <string>

#include "rewriter/rules/rules.h"
#include "verify/allshape/allshape.h"
#include "verify/allshape/internal.h"

namespace ptir::allshape {
namespace {

rules::RuleFile load(const std::string& text) {
  auto r = rules::load_rule_text(text, "fragment_test.rules");
  if (auto* e = std::get_if<rules::RuleError>(&r)) {
    ADD_FAILURE() << e->format();
    return {};
  }
  return std::move(std::get<rules::RuleFile>(r));
}

/// outside_fragment of the file's only rule.
std::string outside(const std::string& rule) {
  rules::RuleFile f = load(rule);
  if (f.rules.size() != 1) return "<not loaded>";
  return outside_fragment(f.rules[0]);
}

TEST(AllShapeFragment, AcceptsRulesOfTheFragment) {
  for (const char* r : {
           "rule mul_one : mul(%x, splat(1)) => %x",
           "rule neg_neg : neg(neg(%x)) => %x",
           "rule transpose_pair : transpose(transpose(%x) {perm = $p}) {perm = $q} where composes_to_identity($p, $q) => %x",
           "rule tt : transpose(transpose(%x) {perm = $p}) {perm = $q} => transpose(%x) {perm = compose_perm($p, $q)}",
           "rule ss : slice(slice(%x) {starts = $a}) {starts = $b} : $T => slice(%x) {starts = add_ints($a, $b)} : $T",
           "rule tile_tile : tile(tile(%x) {repeats = $r}) {repeats = $s} : $T => tile(%x) {repeats = mul_ints($r, $s)} : $T",
           "rule sum1 : reduce_sum(%x) {axes = $a} : $T as %r where axes_all_size(%x, $a, 1), exact_accum(%r) => reshape(%x) : $T",
           "rule max0 : reduce_max(%x) {axes = $a} : $T where some_axis_size(%x, $a, 0) => const(lowest($T))",
           "rule cast_rt : cast(cast(%x) : $U) : $T where widens_exactly(%x, $U), same_type(%x, $T) => %x",
           "rule div_pow2 : div(%x, const($c)) where is_pow2($c) => mul(%x, const(reciprocal($c)))",
           "rule reshape_same : reshape(%x) : $T where same_type(%x, $T) => %x",
           "rule concat_one : concat(%x, %y) {axis = $a} => concat(%x, %y) {axis = $a}",
           "rule one_use_ok : neg(neg(%x)) where one_use(%x) => %x",
       })
    EXPECT_EQ(outside(r), "") << r;
}

TEST(AllShapeFragment, RejectsWithTheDocumentedReason) {
  struct Case {
    const char* rule;
    const char* why;
  };
  const Case cases[] = {
      {"rule r : neg(%x) : $T => neg(reduce_sum(broadcast_to(%x) : $T) {axes = [0]} : $T)",
       "reduce_sum with a literal integer attribute fixes a rank: bounded only"},
      {"rule r : neg(reduce_sum(%x) {axes = $a} : $T) => reduce_sum(neg(%x)) {axes = $a} : $T",
       "a reduction in the result: bounded only"},
      // One fold per side (P8): a second dot_general is outside.
      {"rule r : add(dot_general(%x, %y) {contract_lhs = $a, contract_rhs = $b} : $T, dot_general(%y, %x) {contract_lhs = $b, "
       "contract_rhs = $a} : $T) => add(dot_general(%y, %x) {contract_lhs = $b, contract_rhs = $a} : $T, dot_general(%x, %y) "
       "{contract_lhs = $a, contract_rhs = $b} : $T)",
       "more than one dot_general on a side: bounded only"},
      {"rule r : dot_general(%x, %y) {contract_lhs = [1], contract_rhs = [0]} => dot_general(%x, %y) {contract_lhs = [1], "
       "contract_rhs = [0]}",
       "dot_general with a literal integer attribute fixes a rank: bounded only"},
      {"rule r : reshape(%x) : $T => reshape(%x) : $T", "reshape that may change the shape: general reshapes are bounded only"},
      {"rule r : transpose(%x) {perm = [1, 0]} => %x", "transpose with a literal integer attribute fixes a rank: bounded only"},
      {"rule r : neg(%x) where num_elements_is(%x, 1) => neg(%x)",
       "constraint num_elements_is is not a per-axis linear condition the encoding has (bounded only)"},
  };
  for (const Case& c : cases) EXPECT_EQ(outside(c.rule), c.why) << c.rule;
}

TEST(AllShapeFragment, FactsComeFromPositiveConstraintsOnly) {
  rules::RuleFile f = load(
      "rule r : add(%x, const($c)) : $T where rank_is(%x, 0), is_splat($c), same_shape(%x, $T), not rank_is($T, 2) "
      "=> add(%x, %x)");
  ASSERT_EQ(f.rules.size(), 1u);
  const detail::RuleFacts facts = detail::facts_of(f.rules[0]);
  EXPECT_EQ(facts.scalar_caps, (std::set<std::string>{"x"}));
  EXPECT_TRUE(facts.rank_of.empty());  // `not rank_is($T, 2)` states no rank
  EXPECT_EQ(facts.splat_lits, (std::set<std::string>{"c"}));
  EXPECT_TRUE(facts.same_shape.count({"x", "T"}) && facts.same_shape.count({"T", "x"}));
}

}  // namespace
}  // namespace ptir::allshape
