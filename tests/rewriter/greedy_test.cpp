// The greedy driver's rules: order, re-queueing, failure cache, folding, DCE, limits, regions, effects.
#include "rewriter/greedy.h"

#include <gtest/gtest.h>

#include <map>

#include "patterns/seed.h"
#include "rewriter/views.h"
#include "tests/rewriter/helpers.h"

namespace ptir {
namespace {
using testing::count_op;
using testing::inst_named;
using testing::parse;
using testing::print;

/// Driver settings for tests: checks off unless a test turns them on (they would flag the
/// deliberately meaningless patterns below).
GreedyConfig cfg(GreedyConfig c = {}) {
  c.expensive_checks = false;
  return c;
}

/// Never matches; records the roots it is tried on.
class Recording final : public Pattern {
 public:
  std::vector<InstId>* seen;
  Recording(std::vector<InstId>* s, std::span<const OpCode> roots = kStatementOps)
      : Pattern("recording", roots), seen(s) {}
  bool match_and_rewrite(InstId root, ProgramRewriter&) const override {
    seen->push_back(root);
    return false;
  }
};

FrozenPatternSet freeze_one(std::unique_ptr<Pattern> p) {
  PatternSet s;
  s.add(std::move(p));
  return std::move(s).freeze();
}

constexpr const char* kChain = R"(
func @main(%x: tensor<f32>) -> tensor<f32> {
  %a = neg %x -> tensor<f32>
  %b = abs %a -> tensor<f32>
  %c = exp %b -> tensor<f32>
  return %c
}
)";

TEST(Greedy, BottomUpVisitsUsersFirstTopDownProducersFirst) {
  auto p = parse(kChain);
  InstId a = inst_named(*p, "a"), b = inst_named(*p, "b"), c = inst_named(*p, "c");
  std::vector<InstId> seen;
  auto set = freeze_one(std::make_unique<Recording>(&seen));
  apply_patterns_and_fold_greedily(*p, set, cfg({.order = TraversalOrder::BottomUp}));
  EXPECT_EQ(seen, (std::vector<InstId>{c, b, a}));
  seen.clear();
  apply_patterns_and_fold_greedily(*p, set, cfg({.order = TraversalOrder::TopDown}));
  EXPECT_EQ(seen, (std::vector<InstId>{a, b, c}));
}

TEST(Greedy, SuccessRequeuesOnlyTheNeighbourhood) {
  // 50 independent negs plus one `mul %x, 1`: after the rewrite nothing unrelated is tried again.
  std::string text = "func @main(%x: tensor<f32>) -> (";
  for (int k = 0; k < 51; ++k) text += k ? ", tensor<f32>" : "tensor<f32>";
  text += ") {\n";
  for (int k = 0; k < 50; ++k) text += "  %n" + std::to_string(k) + " = neg %x -> tensor<f32>\n";
  text += "  %m = mul %x, dense<1.0> : tensor<f32> -> tensor<f32>\n  return ";
  for (int k = 0; k < 50; ++k) text += "%n" + std::to_string(k) + ", ";
  text += "%m\n}\n";
  for (TraversalOrder order : {TraversalOrder::BottomUp, TraversalOrder::TopDown}) {
    auto p = parse(text);
    std::vector<InstId> seen;
    PatternSet s;
    populate_seed_patterns(s);
    s.add<Recording>(&seen, kOnly<OpCode::Neg>);
    GreedyResult r = apply_patterns_and_fold_greedily(*p, std::move(s).freeze(), cfg({.order = order}));
    EXPECT_EQ(r.stats.rewrites, 1);
    EXPECT_EQ(seen.size(), 50u);  // each neg tried once: no restart, no rescan
    EXPECT_TRUE(r.converged);
    EXPECT_TRUE(r.changed);
    if (order == TraversalOrder::BottomUp) {
      // The mul goes first; the negs it re-queues (producers of the modified return) are still queued.
      EXPECT_EQ(r.stats.processed, 51);
    } else {
      // The negs went first; the rewrite modified the return, so its operand producers come back in
      // round 2, and the failure cache answers for them (their neighbourhood did not change).
      EXPECT_EQ(r.stats.processed, 101);
      // Two patterns root at neg (recording, fuse_unary_through_broadcast); the operand index drops the
      // second (a neg of %x reads no broadcast_to), so the cache answers once per neg.
      EXPECT_EQ(r.stats.cache_hits, 50);
    }
  }
}

/// neg(abs(%y)) ==> abs(%y): matches only once abs reads %y (the second parameter).
class NegOfAbsOfY final : public OpRewritePattern<ElementwiseUnaryView> {
 public:
  int* attempts;
  explicit NegOfAbsOfY(int* a) : OpRewritePattern("neg_of_abs_of_y", 1, kOnly<OpCode::Neg>), attempts(a) {}
  bool match_and_rewrite(const ElementwiseUnaryView& op, ProgramRewriter& rw) const override {
    ++*attempts;
    InstId abs = rw.inst_of(op.x);
    if (abs == kNone || rw.op(abs) != OpCode::Abs) return false;
    if (rw.operand(abs, 0) != rw.program().body(0).params[1]) return rw.notify_match_failure("abs does not read %y");
    rw.replace_op(op.root, op.x);
    return true;
  }
};

/// abs(%x) ==> abs(%y), in place (meaningless; it only changes a producer).
class RewireAbs final : public OpRewritePattern<ElementwiseUnaryView> {
 public:
  RewireAbs() : OpRewritePattern("rewire_abs", 1, kOnly<OpCode::Abs>) {}
  bool match_and_rewrite(const ElementwiseUnaryView& op, ProgramRewriter& rw) const override {
    ValueId y = rw.program().body(0).params[1];
    if (op.x == y) return false;
    rw.update_in_place(op.root, [&] { rw.set_operand(op.root, 0, y); });
    return true;
  }
};

TEST(Greedy, FailureCacheIsInvalidatedByAnOperandProducerChange) {
  auto p = parse(R"(
func @main(%x: tensor<f32>, %y: tensor<f32>) -> tensor<f32> {
  %a = abs %x -> tensor<f32>
  %n = neg %a -> tensor<f32>
  return %n
}
)");
  int attempts = 0;
  PatternSet s;
  s.add<NegOfAbsOfY>(&attempts);
  s.add<RewireAbs>();
  GreedyResult r = apply_patterns_and_fold_greedily(*p, std::move(s).freeze(), cfg());
  // Bottom-up: neg fails first (abs reads %x) and is cached; rewiring abs changes neg's producer, so the
  // cached failure no longer applies and the second attempt succeeds.
  EXPECT_EQ(attempts, 2);
  EXPECT_EQ(r.stats.rewrites, 2);
  EXPECT_NE(print(*p).find("return %a"), std::string::npos) << print(*p);
  EXPECT_NE(print(*p).find("abs %y"), std::string::npos);
}

TEST(Greedy, FailureCacheSkipsUnchangedInstructionsAcrossRuns) {
  auto p = parse(kChain);
  std::vector<InstId> seen;
  auto set = freeze_one(std::make_unique<Recording>(&seen));
  ProgramRewriter rw(*p);
  FailureCache cache;
  GreedyResult r1 = apply_patterns_and_fold_greedily(rw, set, cfg(), &cache);
  EXPECT_EQ(r1.stats.attempts, 3);
  GreedyResult r2 = apply_patterns_and_fold_greedily(rw, set, cfg(), &cache);
  EXPECT_EQ(r2.stats.attempts, 0);
  EXPECT_EQ(r2.stats.cache_hits, 3);
  // Change a's operand: a and its user b must be tried again, c (two hops away) stays cached.
  InstId a = inst_named(*p, "a");
  ValueId s = rw.insert_before(a, OpCode::Sqrt, {p->body(0).params[0]}, p->type_id(p->body(0).params[0]));
  rw.update_in_place(a, [&] { rw.set_operand(a, 0, s); });
  seen.clear();
  GreedyResult r3 = apply_patterns_and_fold_greedily(rw, set, cfg(), &cache);
  EXPECT_EQ(seen, (std::vector<InstId>{inst_named(*p, "b"), a, rw.inst_of(s)}));
  EXPECT_EQ(r3.stats.cache_hits, 1);
}

/// neg(x) ==> abs(x) and abs(x) ==> neg(x): a ping-pong that never settles.
class Swap final : public Pattern {
 public:
  OpCode to;
  Swap(std::string_view name, std::span<const OpCode> from, OpCode t) : Pattern(name, from), to(t) {}
  bool match_and_rewrite(InstId root, ProgramRewriter& rw) const override {
    ValueId x = rw.operand(root, 0);
    rw.replace_op(root, rw.insert_before(root, to, {x}, rw.type_id(x)));
    return true;
  }
};

TEST(Greedy, NonConvergenceNamesThePatternsThatKeptFiring) {
  auto p = parse(kChain);
  PatternSet s;
  s.add<Swap>("neg_to_abs", kOnly<OpCode::Neg>, OpCode::Abs);
  s.add<Swap>("abs_to_neg", kOnly<OpCode::Abs>, OpCode::Neg);
  GreedyResult r = apply_patterns_and_fold_greedily(*p, std::move(s).freeze(), cfg({.max_iterations = 6}));
  EXPECT_FALSE(r.converged);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(r.stats.rounds, 6);
  EXPECT_NE(r.diagnostic.find("max_iterations = 6"), std::string::npos) << r.diagnostic;
  EXPECT_NE(r.diagnostic.find("neg_to_abs"), std::string::npos) << r.diagnostic;
  EXPECT_NE(r.diagnostic.find("abs_to_neg"), std::string::npos) << r.diagnostic;
  ASSERT_EQ(r.still_firing.size(), 2u);
  EXPECT_EQ(testing::verify_error(*p), "");
}

TEST(Greedy, MaxNumRewritesStopsTheRun) {
  auto p = parse(kChain);
  PatternSet s;
  s.add<Swap>("neg_to_abs", kOnly<OpCode::Neg>, OpCode::Abs);
  s.add<Swap>("abs_to_neg", kOnly<OpCode::Abs>, OpCode::Neg);
  GreedyResult r = apply_patterns_and_fold_greedily(*p, std::move(s).freeze(), cfg({.max_num_rewrites = 5}));
  EXPECT_FALSE(r.converged);
  EXPECT_EQ(r.stats.rewrites, 5);
  EXPECT_NE(r.diagnostic.find("max_num_rewrites = 5"), std::string::npos) << r.diagnostic;
}

TEST(Greedy, UnboundedSelfRecursionIsStopped) {
  auto p = parse(kChain);
  PatternSet s;
  s.add<Swap>("neg_again", kOnly<OpCode::Neg>, OpCode::Neg);  // rewrites its own output forever
  GreedyResult r = apply_patterns_and_fold_greedily(*p, std::move(s).freeze(), cfg({.max_recursion_depth = 3}));
  EXPECT_FALSE(r.converged);
  EXPECT_NE(r.diagnostic.find("'neg_again' applied to its own result 4 times"), std::string::npos) << r.diagnostic;
}

/// Prints `p` with every instruction result unnamed, so values are numbered by position: two runs that
/// reach the same program through different instructions print the same.
std::string print_anonymous(Program& p) {
  for (BodyId b = 0; b < p.num_bodies(); ++b)
    p.for_each_inst(b, [&](InstId i) {
      for (uint32_t k = 0; k < p.num_results(i); ++k) p.set_name(p.result(i, k), "");
    });
  return print(p);
}

TEST(Greedy, RandomOrderReachesTheSameFixpoint) {
  constexpr const char* kMixed = R"(
func @main(%x: tensor<f32, 2x3>, %y: tensor<f32, 3>, %z: tensor<f32, 2x3>) -> (tensor<f32, 2x3>, tensor<f32, 3x2>) {
  %c = cast %x -> tensor<f32, 2x3>
  %m = mul %c, dense<1.0> : tensor<f32, 2x3> -> tensor<f32, 2x3>
  %a = add dense<-0.0> : tensor<f32, 2x3>, %m -> tensor<f32, 2x3>
  %t1 = transpose %a perm[1, 0] -> tensor<f32, 3x2>
  %t2 = transpose %t1 perm[1, 0] -> tensor<f32, 2x3>
  %t3 = transpose %t2 perm[1, 0] -> tensor<f32, 3x2>
  %b = broadcast_to %y -> tensor<f32, 2x3>
  %e = exp %b -> tensor<f32, 2x3>
  %g = neg %e -> tensor<f32, 2x3>
  %s = add %t2, %g -> tensor<f32, 2x3>
  %w = mul dense<1.0> : tensor<f32, 2x3>, %z -> tensor<f32, 2x3>
  %v = add %s, %w -> tensor<f32, 2x3>
  return %v, %t3
}
)";
  PatternSet s;
  populate_seed_patterns(s);
  FrozenPatternSet set = std::move(s).freeze();
  auto ref = parse(kMixed);
  apply_patterns_and_fold_greedily(*ref, set, cfg());
  std::string want = print_anonymous(*ref);
  EXPECT_EQ(count_op(*ref, OpCode::Transpose), 1) << want;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    auto p = parse(kMixed);
    GreedyResult r = apply_patterns_and_fold_greedily(*p, set, cfg({.random_order_seed = seed}));
    EXPECT_TRUE(r.converged);
    EXPECT_EQ(print_anonymous(*p), want) << "seed " << seed;
  }
  auto td = parse(kMixed);
  apply_patterns_and_fold_greedily(*td, set, cfg({.order = TraversalOrder::TopDown}));
  EXPECT_EQ(print_anonymous(*td), want);
}

TEST(Greedy, DeadChainGoesInOneRoundInEitherOrder) {
  // 100 pure ops, each reading the previous one, none read by the return. Bottom-up meets the chain's
  // dead end first; top-down meets its producers first, so each erasure hands the producer it left
  // dead to the current round (with max_iterations = 2 a chain erased one round per op would not
  // converge).
  std::string text = "func @main(%x: tensor<f32, 4>) -> tensor<f32, 4> {\n";
  std::string prev = "%x";
  for (int k = 0; k < 100; ++k) {
    text += "  %a" + std::to_string(k) + " = exp " + prev + " -> tensor<f32, 4>\n";
    prev = "%a" + std::to_string(k);
  }
  text += "  return %x\n}\n";
  for (TraversalOrder order : {TraversalOrder::BottomUp, TraversalOrder::TopDown}) {
    auto p = parse(text);
    GreedyResult r = apply_patterns_and_fold_greedily(*p, FrozenPatternSet(), cfg({.order = order, .max_iterations = 2}));
    EXPECT_TRUE(r.converged) << r.diagnostic;
    EXPECT_EQ(r.stats.rounds, 1);
    EXPECT_EQ(r.stats.erased_dead, 100);
    EXPECT_EQ(count_op(*p, OpCode::Exp), 0);
  }
}

TEST(Greedy, EffectfulOpsAreNeverRemoved) {
  auto p = parse(R"(
func @main(%x: tensor<f32, 4>) -> tensor<f32, 4> {
  %r1 = rng_uniform seed[7] -> tensor<f32, 4>
  %r2 = rng_uniform seed[7] -> tensor<f32, 4>
  %d = neg %x -> tensor<f32, 4>
  return %x
}
)");
  GreedyResult r = apply_patterns_and_fold_greedily(*p, FrozenPatternSet(), cfg());
  EXPECT_EQ(count_op(*p, OpCode::RngUniform), 2);
  EXPECT_EQ(count_op(*p, OpCode::Neg), 0);  // pure and dead
  EXPECT_EQ(r.stats.erased_dead, 1);
}

TEST(Greedy, RegionsAreRewrittenToo) {
  auto p = parse(R"(
region ^body(%i: tensor<f32, 2>, %x: tensor<f32, 2>) -> (tensor<f32, 2>, tensor<f32, 2>) {
  %m = mul %i, dense<1.0> : tensor<f32, 2> -> tensor<f32, 2>
  %c = cast %x -> tensor<f32, 2>
  return %m, %c
}
func @main(%c0: tensor<f32, 2>, %xs: tensor<f32, 3x2>) -> (tensor<f32, 2>, tensor<f32, 3x2>) {
  %r, %ys = scan %c0, %xs body[^body] carries[1] -> (tensor<f32, 2>, tensor<f32, 3x2>)
  return %r, %ys
}
)");
  PatternSet s;
  populate_seed_patterns(s);
  GreedyResult r = apply_patterns_and_fold_greedily(*p, std::move(s).freeze(), cfg());
  EXPECT_EQ(r.stats.rewrites, 2);
  EXPECT_EQ(count_op(*p, OpCode::Mul) + count_op(*p, OpCode::Cast), 0) << print(*p);
  EXPECT_NE(print(*p).find("return %i, %x"), std::string::npos) << print(*p);
  EXPECT_EQ(testing::verify_error(*p), "");
}

TEST(Greedy, FoldHooksMaterializeLiteralsAndConstants) {
  auto p = parse(R"(
func @main(%x: tensor<f32, 2x3>) -> (tensor<f32>, tensor<f32, 32>, tensor<f32, 17>, tensor<f32, 2x3>) {
  %k = add dense<1.0> : tensor<f32>, dense<2.0> : tensor<f32> -> tensor<f32>
  %splat = broadcast_to %k -> tensor<f32, 32>
  %v = constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0]> : tensor<f32, 17> -> tensor<f32, 17>
  %big = neg %v -> tensor<f32, 17>
  %t = transpose %x perm[0, 1] -> tensor<f32, 2x3>
  return %k, %splat, %big, %t
}
)");
  GreedyResult r = apply_patterns_and_fold_greedily(*p, FrozenPatternSet(), cfg());
  std::string out = print(*p);
  EXPECT_EQ(r.stats.folds, 4) << out;
  // Small or splat: inline (a splat stores one element, whatever its type's size).
  EXPECT_NE(out.find("return dense<3.0> : tensor<f32>, dense<3.0> : tensor<f32, 32>, %big, %x"), std::string::npos)
      << out;
  // Larger: a constant op, keeping the name of the value it replaces.
  EXPECT_NE(out.find("%big = constant dense<[-1.0, -2.0, -3.0,"), std::string::npos) << out;
  EXPECT_EQ(testing::verify_error(*p), "");
}

TEST(Greedy, FoldingAndDceCanBeTurnedOff) {
  auto p = parse(R"(
func @main(%x: tensor<f32>) -> tensor<f32> {
  %k = add dense<1.0> : tensor<f32>, dense<2.0> : tensor<f32> -> tensor<f32>
  %d = neg %x -> tensor<f32>
  return %k
}
)");
  std::string before = print(*p);
  GreedyResult r = apply_patterns_and_fold_greedily(*p, FrozenPatternSet(), cfg({.fold = false, .dce = false}));
  EXPECT_FALSE(r.changed);
  EXPECT_TRUE(r.converged);
  EXPECT_EQ(print(*p), before);
}

/// Replaces neg(x) by a unary op of its choosing, always succeeding.
class NegTo final : public OpRewritePattern<ElementwiseUnaryView> {
 public:
  OpCode to;
  NegTo(std::string_view name, PatternBenefit b, OpCode t) : OpRewritePattern(name, b, kOnly<OpCode::Neg>), to(t) {}
  bool match_and_rewrite(const ElementwiseUnaryView& op, ProgramRewriter& rw) const override {
    rw.replace_op(op.root, rw.insert_before(op.root, to, {op.x}, rw.type_id(op.x)));
    return true;
  }
};

TEST(Greedy, BenefitOrderOrCostModelPicksThePattern) {
  auto make = [] {
    PatternSet s;
    s.add<NegTo>("to_abs", 1, OpCode::Abs);
    s.add<NegTo>("to_exp", 2, OpCode::Exp);
    return std::move(s).freeze();
  };
  auto p = parse(kChain);
  apply_patterns_and_fold_greedily(*p, make(), cfg());
  EXPECT_EQ(count_op(*p, OpCode::Exp), 2);  // benefit 2 wins
  auto q = parse(kChain);
  CostModel prefer_abs = [](const Pattern& pat, InstId, const ProgramRewriter&) {
    return pat.debug_name() == "to_abs" ? 10 : 0;
  };
  apply_patterns_and_fold_greedily(*q, make(), cfg({.cost_model = prefer_abs}));
  EXPECT_EQ(count_op(*q, OpCode::Abs), 2);
  EXPECT_EQ(count_op(*q, OpCode::Exp), 1);
}

}  // namespace
}  // namespace ptir
