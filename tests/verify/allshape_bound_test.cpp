// The rank bound (verify/allshape/bound.cpp, docs/verification.md "The rank bound"): B from the distinct
// reads of each configuration (bound_of), the target's ill-formedness witness, and the axes the argument
// keeps (concat axes, some_axis_size witnesses, a transpose's rank 2, rank_is). Checked on library rules
// whose B the library's verdict table shows, and on rules built to need a given B.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "rewriter/rules/rules.h"
#include "verify/allshape/encoder.h"

namespace ptir::allshape::detail {
namespace {

rules::RuleFile load(const std::string& text) {
  auto r = rules::load_rule_text(text, "bound_test.rules");
  if (auto* e = std::get_if<rules::RuleError>(&r)) ADD_FAILURE() << e->format();
  return std::get<rules::RuleFile>(std::move(r));
}

/// rank_bound of the file's only rule, with a budget large enough.
int bound(const std::string& text) {
  smt::Context ctx;
  rules::RuleFile f = load(text);
  const rules::Rule& r = f.rules.at(0);
  const RuleFacts facts = facts_of(r);
  smt::UnitBudget budget(60000, std::chrono::steady_clock::now());
  const std::optional<int> b = rank_bound(r, facts, rule_axes(r, facts), budget);
  EXPECT_TRUE(b.has_value());
  return b.value_or(-1);
}

TEST(AllShapeBound, LibraryRulesHaveTheBoundsOfTheVerdictTable) {
  // patterns/rules/*.rules; `ptir prove --all-shapes` prints these B.
  EXPECT_EQ(bound("rule mul_one : mul(%x, splat(1)) => %x"), 1);
  EXPECT_EQ(bound("rule slice_slice : slice(slice(%x) {starts = $a}) {starts = $b} : $T => "
                  "slice(%x) {starts = add_ints($a, $b)} : $T"),
            1);
  // A transpose: rank 2 at least, where permutations are not all the identity.
  EXPECT_EQ(bound("rule transpose_pair : transpose(transpose(%x) {perm = $p}) {perm = $q} "
                  "where composes_to_identity($p, $q) => %x"),
            2);
  // A concat axis is distinguished (never dropped): one more axis.
  EXPECT_EQ(bound("rule concat_single : concat(%x) => %x"), 2);
  // some_axis_size keeps its witness axis: one more.
  EXPECT_EQ(bound("rule reduce_sum_empty : reduce_sum(%x) {axes = $a} where some_axis_size(%x, $a, 0) => splat(0)"), 2);
}

TEST(AllShapeBound, DistinctReadsOfACaptureRaiseTheBound) {
  // Three slices of %x at three starts: three distinct reads, three pairs, B = 3.
  const std::string three =
      "rule r : add(add(slice(%x) {starts = $a} : $T, slice(%x) {starts = $b} : $T), slice(%x) {starts = $c} : $T) => "
      "add(add(slice(%x) {starts = $a} : $T, slice(%x) {starts = $b} : $T), slice(%x) {starts = $c} : $T)";
  EXPECT_EQ(bound(three), 3);
  smt::Context ctx;
  rules::RuleFile f = load(three);
  const RuleFacts facts = facts_of(f.rules[0]);
  Chooser ch;
  int runs = 0;
  do {  // every configuration at rank 1 that is an instance (not i1: no i1 add)
    ch.start();
    Enc e(f.rules[0], facts, 1, ch);
    try {
      e.run();
    } catch (const Infeasible&) {
      continue;
    }
    ++runs;
    EXPECT_EQ(e.reads.at("x").size(), 3u);
    EXPECT_EQ(bound_of(e), 3);
  } while (ch.next());
  EXPECT_EQ(runs, kNumDTypes - 1);
}

TEST(AllShapeBound, RuleAxesReadTheRuleText) {
  rules::RuleFile f = load(
      "rule r : add(reduce_sum(%x) {axes = $a}, concat(%y, %z) {axis = $k}) where some_axis_size(%x, $a, 0), "
      "rank_is(%y, 3) => concat(%y, %z) {axis = $k}");
  const RuleFacts facts = facts_of(f.rules[0]);
  const RuleAxes a = rule_axes(f.rules[0], facts);
  EXPECT_FALSE(a.has_transpose);
  EXPECT_EQ(a.axis_caps, (std::set<std::string>{"k"}));
  EXPECT_EQ(a.unnamed_axes, 0);
  EXPECT_EQ(a.literal_pins, 0);
  EXPECT_EQ(a.witness_axes, 1);
  EXPECT_EQ(a.fixed_rank, 3);
}

TEST(AllShapeBound, AnExhaustedBudgetStopsTheCount) {
  smt::Context ctx;
  rules::RuleFile f = load("rule mul_one : mul(%x, splat(1)) => %x");
  const RuleFacts facts = facts_of(f.rules[0]);
  smt::UnitBudget spent(1, std::chrono::steady_clock::now());
  spent.charge(smt::kRlimitPerMs + 1);
  EXPECT_FALSE(rank_bound(f.rules[0], facts, rule_axes(f.rules[0], facts), spent).has_value());
}

}  // namespace
}  // namespace ptir::allshape::detail
