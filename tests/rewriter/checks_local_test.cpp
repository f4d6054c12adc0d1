// Expensive checks replay each rewrite locally, at its boundary: cost independent of the rest of the
// program, and planted bugs of every shape (through a producer, in place, downstream-only, on large
// tensors, SSA order) are still caught; correct rewrites over large boundary values raise no false alarm.
#include <gtest/gtest.h>

#include <atomic>

#include "patterns/match.h"
#include "patterns/seed.h"
#include "rewriter/checks.h"
#include "rewriter/greedy.h"
#include "rewriter/views.h"
#include "tests/rewriter/helpers.h"

namespace ptir {
namespace {
using testing::parse;

/// Runs `pats` greedily with expensive checks (options `o`) attached; returns the checks' report.
std::string run_checked(Program& p, PatternSet pats, CheckOptions o = {}, int64_t* replayed = nullptr,
                        int64_t* windowed = nullptr) {
  FrozenPatternSet set = std::move(pats).freeze();
  ProgramRewriter rw(p);
  ExpensiveChecks checks(rw, o);
  rw.add_listener(&checks);
  apply_patterns_and_fold_greedily(rw, set, GreedyConfig{.expensive_checks = false});
  if (!checks.failed()) checks.finish();
  if (replayed) *replayed = checks.num_replayed();
  if (windowed) *windowed = checks.num_windowed();
  return checks.report();
}

PatternSet seed() {
  PatternSet s;
  populate_seed_patterns(s);
  return s;
}

// ---- locality ----

/// An instruction far from the rewrite is never run: before, every rewrite re-ran the whole body
/// (here 40 custom_calls x 15 inputs x 2 sides).
TEST(LocalChecks, ReplayRunsOnlyTheRewrittenCone) {
  std::string text = "func @main(%x: tensor<f32, 4>, %w: tensor<f32, 4>) -> (tensor<f32, 4>, tensor<f32, 4>) {\n"
                     "  %y = add %x, dense<-0.0> : tensor<f32, 4> -> tensor<f32, 4>\n"
                     "  %c0 = custom_call %w target[\"test.count.v1\"] -> tensor<f32, 4>\n";
  for (int k = 1; k < 40; ++k)
    text += "  %c" + std::to_string(k) + " = custom_call %c" + std::to_string(k - 1) +
            " target[\"test.count.v1\"] -> tensor<f32, 4>\n";
  text += "  return %y, %c39\n}\n";
  auto p = parse(text);
  std::atomic<int64_t> calls{0};
  KernelRegistry reg;
  reg.add("test.count.v1", [&](std::span<const Tensor> args, const AttrSet&, std::span<const TensorType>,
                               std::vector<Tensor>& results, std::string&) {
    ++calls;
    results.push_back(args[0]);
    return true;
  });
  CheckOptions o;
  o.interp.kernels = &reg;
  int64_t replayed = 0;
  EXPECT_EQ(run_checked(*p, seed(), o, &replayed), "");
  EXPECT_EQ(replayed, 1);  // fold_add_neg_zero
  EXPECT_EQ(calls.load(), 0);
}

// ---- planted bugs ----

/// WRONG: transpose(transpose(x, p), q) ==> x whatever the perms (only right when p o q is the identity).
/// Whether it is wrong depends on the producer %t1, which the replay must compute from %x, not feed.
class FoldAnyTransposePair final : public OpRewritePattern<TransposeView> {
 public:
  FoldAnyTransposePair() : OpRewritePattern("fold_any_transpose_pair", 1) {}
  bool match_and_rewrite(const TransposeView& op, ProgramRewriter& rw) const override {
    InstId inner = rw.inst_of(op.x);
    if (inner == kNone || rw.op(inner) != OpCode::Transpose) return false;
    ValueId x = rw.operand(inner, 0);
    if (rw.type_id(x) != rw.type_id(op.result)) return false;
    rw.replace_op(op.root, x);
    return true;
  }
};

TEST(LocalChecks, WrongFoldThroughAProducerIsCaught) {
  auto p = parse(R"(
func @main(%x: tensor<f32, 2x2x2>) -> tensor<f32, 2x2x2> {
  %t1 = transpose %x perm[1, 2, 0] -> tensor<f32, 2x2x2>
  %t2 = transpose %t1 perm[1, 2, 0] -> tensor<f32, 2x2x2>
  %e = exp %t2 -> tensor<f32, 2x2x2>
  return %e
}
)");
  PatternSet s;
  s.add<FoldAnyTransposePair>();
  std::string d = run_checked(*p, std::move(s));
  EXPECT_NE(d.find("rewrite 'fold_any_transpose_pair' changed the results of @main"), std::string::npos) << d;
  EXPECT_NE(d.find("compared: %t2 before the rewrite with %x after it"), std::string::npos) << d;
}

/// The right fold over tensors too large to replay in full as producers: %t1 cannot be a free input
/// (it is transpose(%x), and the new side reads %x), so it is replayed; no false alarm.
TEST(LocalChecks, RightFoldOverLargeProducersRaisesNoAlarm) {
  auto p = parse(R"(
func @main(%x: tensor<f32, 300x300>) -> tensor<f32, 300x300> {
  %t1 = transpose %x perm[1, 0] -> tensor<f32, 300x300>
  %t2 = transpose %t1 perm[1, 0] -> tensor<f32, 300x300>
  %n = neg %t2 -> tensor<f32, 300x300>
  return %n
}
)");
  int64_t replayed = 0;
  EXPECT_EQ(run_checked(*p, seed(), {}, &replayed), "");
  EXPECT_GE(replayed, 1);
}

/// WRONG: x * 0.0 ==> 0.0 (x < 0 gives -0.0, inf and NaN give NaN). Downstream, `div 1, %m` would turn
/// the sign of zero into +-inf; the boundary comparison already tells -0.0 from +0.0.
class FoldMulZero final : public OpRewritePattern<ElementwiseBinaryView> {
 public:
  FoldMulZero() : OpRewritePattern("fold_mul_zero_unsound", 1, kOnly<OpCode::Mul>) {}
  bool match_and_rewrite(const ElementwiseBinaryView& op, ProgramRewriter& rw) const override {
    if (!is_splat_constant(rw, op.rhs, 0)) return false;
    rw.replace_op(op.root, op.rhs);
    return true;
  }
};

TEST(LocalChecks, DifferenceThatOnlyShowsDownstreamIsCaughtAtTheBoundary) {
  auto p = parse(R"(
func @main(%x: tensor<f32, 3>) -> tensor<f32, 3> {
  %m = mul %x, dense<0.0> : tensor<f32, 3> -> tensor<f32, 3>
  %r = div dense<1.0> : tensor<f32, 3>, %m -> tensor<f32, 3>
  return %r
}
)");
  PatternSet s;
  s.add<FoldMulZero>();
  std::string d = run_checked(*p, std::move(s));
  EXPECT_NE(d.find("rewrite 'fold_mul_zero_unsound' changed the results of @main"), std::string::npos) << d;
  EXPECT_NE(d.find("compared: %m before the rewrite"), std::string::npos) << d;
}

/// Swaps the operands of a binary op in place: right for add, wrong for sub.
class SwapOperandsInPlace final : public OpRewritePattern<ElementwiseBinaryView> {
 public:
  explicit SwapOperandsInPlace(OpCode op) : OpRewritePattern("swap_operands", 1, roots(op)) {}
  bool match_and_rewrite(const ElementwiseBinaryView& op, ProgramRewriter& rw) const override {
    if (op.lhs == op.rhs) return false;
    rw.update_in_place(op.root, [&] {
      rw.set_operand(op.root, 0, op.rhs);
      rw.set_operand(op.root, 1, op.lhs);
    });
    return true;
  }
  static std::span<const OpCode> roots(OpCode op) {
    static const OpCode add[] = {OpCode::Add}, sub[] = {OpCode::Sub};
    return op == OpCode::Add ? std::span<const OpCode>(add) : std::span<const OpCode>(sub);
  }
};

std::string swap_once(OpCode op, const char* mnemonic) {
  auto p = parse(std::string("func @main(%x: tensor<f32, 2>, %y: tensor<f32, 2>) -> tensor<f32, 2> {\n  %s = ") +
                 mnemonic + " %x, %y -> tensor<f32, 2>\n  return %s\n}\n");
  PatternSet s;
  s.add(std::make_unique<SwapOperandsInPlace>(op));
  GreedyConfig cfg{.max_num_rewrites = 1, .expensive_checks = false};
  FrozenPatternSet set = std::move(s).freeze();
  ProgramRewriter rw(*p);
  ExpensiveChecks checks(rw);
  rw.add_listener(&checks);
  apply_patterns_and_fold_greedily(rw, set, cfg);
  return checks.report();
}

TEST(LocalChecks, InPlaceUpdateIsComparedOnItsResults) {
  EXPECT_EQ(swap_once(OpCode::Add, "add"), "");  // commutative: the same results
  std::string d = swap_once(OpCode::Sub, "sub");
  EXPECT_NE(d.find("rewrite 'swap_operands' changed the results of @main"), std::string::npos) << d;
  EXPECT_NE(d.find("compared: %s before the rewrite with %s after it"), std::string::npos) << d;
}

/// WRONG: redirects the uses of neg(x) to x with replace_all_uses (no replace_op), leaving neg dead.
class RedirectNegUses final : public Pattern {
 public:
  RedirectNegUses() : Pattern("redirect_neg_uses", kOnly<OpCode::Neg>) {}
  bool match_and_rewrite(InstId root, ProgramRewriter& rw) const override {
    if (!rw.has_uses(rw.result(root))) return false;
    rw.replace_all_uses(rw.result(root), rw.operand(root, 0));
    return true;
  }
};

TEST(LocalChecks, DirectReplaceAllUsesIsCaught) {
  auto p = parse(R"(
func @main(%x: tensor<f32, 2>) -> tensor<f32, 2> {
  %n = neg %x -> tensor<f32, 2>
  %e = exp %n -> tensor<f32, 2>
  return %e
}
)");
  PatternSet s;
  s.add<RedirectNegUses>();
  std::string d = run_checked(*p, std::move(s));
  EXPECT_NE(d.find("rewrite 'redirect_neg_uses' changed the results of @main"), std::string::npos) << d;
}

/// WRONG on purpose: x + (+0.0) ==> x, here on a tensor far larger than the replay window.
class FoldAddPosZero final : public OpRewritePattern<ElementwiseBinaryView> {
 public:
  FoldAddPosZero() : OpRewritePattern("fold_add_pos_zero_unsound", 1, kOnly<OpCode::Add>) {}
  bool match_and_rewrite(const ElementwiseBinaryView& op, ProgramRewriter& rw) const override {
    if (!is_splat_constant(rw, op.rhs, 0)) return false;
    rw.replace_op(op.root, op.lhs);
    return true;
  }
};

TEST(LocalChecks, LargeElementwiseRewriteIsReplayedOnAWindowAndCaught) {
  auto p = parse(R"(
func @main(%x: tensor<f32, 1000x1000>) -> tensor<f32, 1000x1000> {
  %y = add %x, dense<0.0> : tensor<f32, 1000x1000> -> tensor<f32, 1000x1000>
  return %y
}
)");
  PatternSet s;
  s.add<FoldAddPosZero>();
  std::string d = run_checked(*p, std::move(s));
  EXPECT_NE(d.find("rewrite 'fold_add_pos_zero_unsound' changed the results of @main"), std::string::npos) << d;
  EXPECT_NE(d.find("window: elements ["), std::string::npos) << d;
  EXPECT_NE(d.find("of 1000000"), std::string::npos) << d;
  EXPECT_NE(d.find("first difference at element"), std::string::npos) << d;
  EXPECT_LT(d.size(), 4000u) << "large tensors are summarized, not printed in full";
}

TEST(LocalChecks, LargeRightRewriteIsWindowed) {
  auto p = parse(R"(
func @main(%x: tensor<f32, 1000x1000>) -> tensor<f32, 1000x1000> {
  %y = add %x, dense<-0.0> : tensor<f32, 1000x1000> -> tensor<f32, 1000x1000>
  %z = mul %y, dense<1.0> : tensor<f32, 1000x1000> -> tensor<f32, 1000x1000>
  return %z
}
)");
  int64_t replayed = 0, windowed = 0;
  EXPECT_EQ(run_checked(*p, seed(), {}, &replayed, &windowed), "");
  EXPECT_EQ(replayed, 2);
  EXPECT_EQ(windowed, 2);
}

/// Inserts, before the root, an instruction reading a value defined after the root.
class UsesALaterValue final : public Pattern {
 public:
  UsesALaterValue() : Pattern("uses_a_later_value", kOnly<OpCode::Neg>) {}
  bool match_and_rewrite(InstId root, ProgramRewriter& rw) const override {
    const Program& p = rw.program();
    ValueId later = kNone;  // the first exp after the root that does not read it (%f)
    for (InstId i = p.inst(root).next; i != kNone && later == kNone; i = p.inst(i).next)
      if (p.op(i) == OpCode::Exp && p.operand(i, 0) != rw.result(root)) later = rw.result(i);
    if (later == kNone) return false;
    ValueId a = rw.insert_before(root, OpCode::Abs, {later}, rw.type_id(later));
    rw.replace_op(root, a);
    return true;
  }
};

TEST(LocalChecks, UseBeforeDefinitionIsCaughtLocally) {
  auto p = parse(R"(
func @main(%x: tensor<f32, 2>) -> tensor<f32, 2> {
  %n = neg %x -> tensor<f32, 2>
  %e = exp %n -> tensor<f32, 2>
  %f = exp %x -> tensor<f32, 2>
  %s = add %e, %f -> tensor<f32, 2>
  return %s
}
)");
  PatternSet s;
  s.add<UsesALaterValue>();
  std::string d = run_checked(*p, std::move(s));
  EXPECT_NE(d.find("is used before its definition"), std::string::npos) << d;
}

}  // namespace
}  // namespace ptir
