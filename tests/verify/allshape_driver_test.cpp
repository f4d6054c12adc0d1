// The all-shape driver (verify/allshape/allshape.cpp prove_all_shapes) with stub replay and canary:
// PROVED needs every configuration unsat and a canary that agrees; a satisfiable query is REFUTED only
// when its concretized instance replays, UNKNOWN otherwise; a canary that refutes is an internal
// disagreement; a rule outside the fragment is BOUNDED ONLY with the reason; every exact query can be
// observed in SMT-LIB 2 (Options::on_query_smt2, `ptir prove --all-shapes-emit-smt2`).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/text.h"
#include "rewriter/rules/rules.h"
#include "verify/allshape/allshape.h"

namespace ptir::allshape {
namespace {

rules::RuleFile load(const std::string& text) {
  auto r = rules::load_rule_text(text, "driver_test.rules");
  if (auto* e = std::get_if<rules::RuleError>(&r)) ADD_FAILURE() << e->format();
  return std::get<rules::RuleFile>(std::move(r));
}

struct Stubs {
  bool replay_refutes = true;
  bool canary_refutes = false;
  int replays = 0, canaries = 0;
  ReplayFn replay() {
    return [this](const Program&) {
      ++replays;
      return Replay{true, replay_refutes, replay_refutes ? "stub: refuted" : ""};
    };
  }
  CanaryFn canary() {
    return [this](const Program&, int) {
      ++canaries;
      return Replay{true, canary_refutes, canary_refutes ? "stub: canary refuted" : ""};
    };
  }
};

TEST(AllShapeDriver, ARightRuleIsProvedWithItsScopeAndCanaries) {
  rules::RuleFile f = load("rule mul_one : mul(%x, splat(1)) => %x");
  Stubs s;
  const Result r = prove_all_shapes(f.rules[0], s.replay(), s.canary(), Options{});
  EXPECT_EQ(r.verdict, Verdict::Proved) << r.why;
  EXPECT_EQ(r.rank_bound, 1);
  EXPECT_GT(r.configs, 0);
  EXPECT_EQ(s.replays, 0);
  EXPECT_EQ(r.canaries, 4);  // Options::canary_instances at rank B + 1
  EXPECT_NE(r.scope().find("ranks 0..1 checked, rank bound 1"), std::string::npos) << r.scope();
}

// contract's fused alternatives are not encoded by the all-shape engine: a rule assuming it is BOUNDED
// ONLY with the reason, never PROVED; afn changes no result, so it needs nothing there.
TEST(AllShapeDriver, ARuleAssumingContractIsBoundedOnly) {
  rules::RuleFile f = load("rule c [assumes contract] : add(mul(%a, %b), neg(neg(%c))) => add(mul(%a, %b), %c)\n"
                           "rule m [assumes afn] : mul(%x, splat(1)) => %x\n");
  Stubs s;
  const Result c = prove_all_shapes(f.rules[0], s.replay(), s.canary(), Options{});
  EXPECT_EQ(c.verdict, Verdict::BoundedOnly) << c.why;
  EXPECT_NE(c.why.find("assumes contract"), std::string::npos) << c.why;
  const Result m = prove_all_shapes(f.rules[1], s.replay(), s.canary(), Options{});
  EXPECT_EQ(m.verdict, Verdict::Proved) << m.why;
  EXPECT_NE(m.scope().find("functions with reassoc or contract the rule does not assume are not covered"),
            std::string::npos) << m.scope();
}

TEST(AllShapeDriver, ACounterexampleCountsOnlyWhenItReplays) {
  rules::RuleFile f = load("rule add_zero : add(%x, splat(0.0)) => %x");  // -0.0 + 0.0 = +0.0
  Stubs s;
  std::vector<std::string> queries;
  Options o;
  o.on_query_smt2 = [&](const std::string& rule, int rank, const std::string& smt2) {
    EXPECT_EQ(rule, "add_zero");
    EXPECT_EQ(rank, 0);
    queries.push_back(smt2);
  };
  Result r = prove_all_shapes(f.rules[0], s.replay(), s.canary(), o);
  EXPECT_EQ(r.verdict, Verdict::Refuted) << r.why;
  EXPECT_NE(r.why.find("concretized and replayed with the real pattern"), std::string::npos) << r.why;
  EXPECT_EQ(s.replays, 1);
  ASSERT_FALSE(queries.empty());
  EXPECT_NE(queries.back().find("(check-sat)"), std::string::npos);
  // The same model, not replayed: UNKNOWN, never REFUTED (and never PROVED).
  s.replay_refutes = false;
  r = prove_all_shapes(f.rules[0], s.replay(), s.canary(), Options{});
  EXPECT_EQ(r.verdict, Verdict::Unknown);
  EXPECT_NE(r.why.find("did not replay"), std::string::npos) << r.why;
}

TEST(AllShapeDriver, ACanaryThatRefutesIsAnInternalDisagreement) {
  rules::RuleFile f = load("rule mul_one : mul(%x, splat(1)) => %x");
  Stubs s;
  s.canary_refutes = true;
  const Result r = prove_all_shapes(f.rules[0], s.replay(), s.canary(), Options{});
  EXPECT_EQ(r.verdict, Verdict::Unknown);
  EXPECT_TRUE(r.disagreement);  // the caller fails the run on it (ptir prove: DISAGREEMENT, exit 1)
  EXPECT_EQ(r.why.rfind("DISAGREEMENT (a bug in ptir): the canary at rank 2", 0), 0u) << r.why;
}

TEST(AllShapeDriver, OutsideTheFragmentIsBoundedOnlyWithTheReason) {
  rules::RuleFile f = load("rule r : neg(%x) where num_elements_is(%x, 1) => neg(%x)");
  Stubs s;
  const Result r = prove_all_shapes(f.rules[0], s.replay(), s.canary(), Options{});
  EXPECT_EQ(r.verdict, Verdict::BoundedOnly);
  EXPECT_EQ(r.why, "constraint num_elements_is is not a per-axis linear condition the encoding has (bounded only)");
  EXPECT_EQ(s.replays + s.canaries, 0);
}

// A configuration whose assumptions and goal the equation solver reduces to false (here a size forced
// to 0 makes the empty sum the target's 0 itself) is decided by that stage alone: `false` mentions no bits
// or floats, and dropping it (as once happened) sent every such configuration on to the costlier stages,
// more than one Z3 query each (4,153 queries for 2,392 configurations; now one query for all of them).
TEST(AllShapeDriver, AConfigurationEliminatedToFalseCostsNoFurtherQuery) {
  rules::RuleFile f = load("rule sum_empty : reduce_sum(%x) {axes = $a} where some_axis_size(%x, $a, 0) => splat(0)");
  Stubs s;
  const Result r = prove_all_shapes(f.rules[0], s.replay(), s.canary(), Options{});
  EXPECT_EQ(r.verdict, Verdict::Proved) << r.why;
  EXPECT_GT(r.configs, 100);
  EXPECT_LT(r.queries, r.configs / 10) << r.configs << " configurations";
  EXPECT_EQ(s.replays, 0);
}

// A const($c) with no is_splat/is_pow2 may be any tensor: it is encoded like an input read at its index,
// so integer re-association of two literals is PROVED for all shapes, a float one is REFUTED with a
// rank-1 literal concretized element by element into the replayed program (not a parameter), and a
// negated is_splat is not used (the statement proved is stronger).
TEST(AllShapeDriver, LiteralsThatMayBeAnyTensorAreEncodedLikeInputs) {
  rules::RuleFile f = load(
      "rule int_assoc : add(add(%x, const($a) as %ka), const($b) as %kb) where is_int(%x) => add(%x, add(%ka, %kb))\n"
      "rule float_assoc : add(add(%x, const($a) as %ka), const($b) as %kb) where is_float(%x), rank_is(%x, 1) "
      "=> add(%x, add(%ka, %kb))\n"
      "rule comm_not_splat : mul(%x, const($c) as %k) where not is_splat($c), is_int(%x) => mul(%k, %x)\n");
  Stubs s;
  Result r = prove_all_shapes(f.rules[0], s.replay(), s.canary(), Options{});
  EXPECT_EQ(r.verdict, Verdict::Proved) << r.why;
  std::string replayed;
  ReplayFn keep = [&](const Program& p) {
    replayed = print_program(p);
    return Replay{true, true, "stub: refuted"};
  };
  r = prove_all_shapes(f.rules[1], keep, s.canary(), Options{});
  EXPECT_EQ(r.verdict, Verdict::Refuted) << r.why;
  EXPECT_NE(replayed.find("%x0: tensor<"), std::string::npos) << replayed;
  EXPECT_EQ(replayed.find("%x1"), std::string::npos) << "the literals must be literals, not parameters:\n" << replayed;
  r = prove_all_shapes(f.rules[2], s.replay(), s.canary(), Options{});
  EXPECT_EQ(r.verdict, Verdict::Proved) << r.why;
  bool noted = false;
  for (const std::string& n : r.notes) noted |= n.find("`is_splat` not used") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(AllShapeDriver, ABoundAboveTheCapIsUnknown) {
  rules::RuleFile f = load("rule transpose_pair : transpose(transpose(%x) {perm = $p}) {perm = $q} "
                           "where composes_to_identity($p, $q) => %x");
  Stubs s;
  Options o;
  o.max_rank_bound = 1;
  const Result r = prove_all_shapes(f.rules[0], s.replay(), s.canary(), o);
  EXPECT_EQ(r.verdict, Verdict::Unknown);
  EXPECT_EQ(r.why, "rank bound 2 exceeds the cap 1");
}

}  // namespace
}  // namespace ptir::allshape

namespace ptir::allshape {
namespace {

/// dot_general (P8): a result fold whose accumulation differs from the source's gets a fresh value, so
/// the query is satisfiable and goes to replay (never PROVED); has_attr on an op whose attributes the
/// configuration does not choose is BOUNDED ONLY with the reason; a rule whose lists are mapped through
/// permute_axes without keeps_free_order fails the word premise.
TEST(AllShapeDriver, DotGeneralFoldsAreSharedOnlyWhenTheProductsAreTheSameTerms) {
  Stubs s;
  Options o;
  o.canary_instances = 1;
  {
    rules::RuleFile f = load(
        "rule wrong_accum : dot_general(%x, %y) {contract_lhs = $a, contract_rhs = $b} as %d where is_float(%x), "
        "not has_attr(%d, batch_lhs), not has_attr(%d, batch_rhs), not has_attr(%d, accum) => dot_general(%x, %y) "
        "{contract_lhs = $a, contract_rhs = $b, accum = f64}");
    const Result r = prove_all_shapes(f.rules[0], s.replay(), s.canary(), o);
    EXPECT_EQ(r.verdict, Verdict::Refuted) << r.why;  // the stub replay refutes whatever it is given
    EXPECT_GT(s.replays, 0);
  }
  {
    rules::RuleFile f = load("rule r : neg(%s) where has_attr(%s, accum) => neg(%s)");
    const Result r = prove_all_shapes(f.rules[0], s.replay(), s.canary(), o);
    EXPECT_EQ(r.verdict, Verdict::BoundedOnly);
    EXPECT_NE(r.why.find("has_attr(%s, accum) on an attribute the configuration does not choose"), std::string::npos) << r.why;
  }
  {
    rules::RuleFile f = load(
        "rule no_order [bounded] : dot_general(transpose(%x) {perm = $p}, %y) {contract_lhs = $c, contract_rhs = $d} as %r "
        "where not has_attr(%r, batch_lhs), not has_attr(%r, batch_rhs), not has_attr(%r, accum) => dot_general(%x, %y) "
        "{contract_lhs = permute_axes($p, $c), contract_rhs = $d}");
    const Result r = prove_all_shapes(f.rules[0], s.replay(), s.canary(), o);
    EXPECT_EQ(r.verdict, Verdict::BoundedOnly);
    EXPECT_NE(r.why.find("premise of the rank argument fails: "), std::string::npos) << r.why;
    EXPECT_NE(r.why.find("#dot.lhs(none;permute_axes($p,$c,)|none;$d)"), std::string::npos) << r.why;
  }
}

}  // namespace
}  // namespace ptir::allshape
