// Expensive checks: a deliberately wrong pattern is caught and named; contract violations are caught.
#include "rewriter/checks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <tuple>

#include "patterns/match.h"
#include "patterns/seed.h"
#include "rewriter/greedy.h"
#include "rewriter/views.h"
#include "tests/rewriter/helpers.h"

namespace ptir {
namespace {
using testing::parse;

GreedyConfig checked() { return GreedyConfig{.expensive_checks = true}; }

/// WRONG on purpose: x + (+0.0) ==> x fails for x = -0.0 (-0.0 + +0.0 = +0.0). Only compiled here.
class FoldAddPosZeroUnsound final : public OpRewritePattern<ElementwiseBinaryView> {
 public:
  FoldAddPosZeroUnsound() : OpRewritePattern("fold_add_pos_zero_unsound", 1, kOnly<OpCode::Add>) {}
  bool match_and_rewrite(const ElementwiseBinaryView& op, ProgramRewriter& rw) const override {
    if (!is_splat_constant(rw, op.rhs, 0)) return false;
    rw.replace_op(op.root, op.lhs);
    return true;
  }
};

TEST(ExpensiveChecks, WrongPatternIsCaughtAndNamed) {
  auto p = parse(R"(
func @main(%x: tensor<f32>) -> tensor<f32> {
  %y = add %x, dense<0.0> : tensor<f32> -> tensor<f32>
  return %y
}
)");
  PatternSet s;
  s.add<FoldAddPosZeroUnsound>();
  GreedyResult r = apply_patterns_and_fold_greedily(*p, std::move(s).freeze(), checked());
  EXPECT_FALSE(r.converged);
  const std::string& d = r.diagnostic;
  EXPECT_NE(d.find("rewrite 'fold_add_pos_zero_unsound' changed the results of @main"), std::string::npos) << d;
  EXPECT_NE(d.find("root: %y = add %x, dense<0.0> : tensor<f32> -> tensor<f32>"), std::string::npos) << d;
  EXPECT_NE(d.find("%x = dense<-0.0> : tensor<f32>"), std::string::npos) << d;
  EXPECT_NE(d.find("before: result 0 = dense<0.0> : tensor<f32>"), std::string::npos) << d;
  EXPECT_NE(d.find("after:  result 0 = dense<-0.0> : tensor<f32>"), std::string::npos) << d;
}

/// WRONG even under nsz: x + (+0.0) ==> -x changes every non-zero x.
class AddZeroToNegUnsound final : public OpRewritePattern<ElementwiseBinaryView> {
 public:
  AddZeroToNegUnsound() : OpRewritePattern("add_zero_to_neg_unsound", 1, kOnly<OpCode::Add>) {}
  bool match_and_rewrite(const ElementwiseBinaryView& op, ProgramRewriter& rw) const override {
    if (!is_splat_constant(rw, op.rhs, 0)) return false;
    rw.replace_op(op.root, rw.insert_before(op.root, OpCode::Neg, {op.lhs}, rw.type_id(op.lhs)));
    return true;
  }
};

/// Replays follow the function's fast-math flags (docs/semantics.md): under nsz the sign of a zero result
/// is unspecified, so x + 0.0 ==> x is no violation there (it is one without flags, above); a rewrite that
/// changes a non-zero value still is; under reassoc the rewrite is not replayed (counted unreplayable).
TEST(ExpensiveChecks, FastMathFlagsAreHonoured) {
  auto run = [](const char* flags, PatternSet s, ExpensiveChecks** out_checks = nullptr) {
    auto p = parse(std::string("func @main(%x: tensor<f32, 4>) -> tensor<f32, 4> attributes[fastmath[") + flags + R"(]] {
  %y = add %x, dense<0.0> : tensor<f32, 4> -> tensor<f32, 4>
  return %y
}
)");
    ProgramRewriter rw(*p);
    ExpensiveChecks checks(rw);
    rw.add_listener(&checks);
    GreedyResult r = apply_patterns_and_fold_greedily(rw, std::move(s).freeze(), GreedyConfig{.fold = false, .expensive_checks = false});
    if (r.converged && !checks.failed()) checks.finish();
    rw.remove_listener(&checks);
    return std::make_tuple(checks.failed() ? checks.report() : std::string(), checks.num_replayed(), checks.num_unreplayable(),
                           r.stats.rewrites);
  };
  {
    PatternSet s;
    s.add<FoldAddPosZeroUnsound>();
    auto [err, replayed, unreplayable, rewrites] = run("nsz", std::move(s));
    EXPECT_EQ(err, "");
    EXPECT_EQ(rewrites, 1);
    EXPECT_EQ(replayed, 1);
    EXPECT_EQ(unreplayable, 0);
  }
  {
    PatternSet s;
    s.add<AddZeroToNegUnsound>();
    auto [err, replayed, unreplayable, rewrites] = run("nsz", std::move(s));
    EXPECT_NE(err.find("rewrite 'add_zero_to_neg_unsound' changed the results of @main"), std::string::npos) << err;
  }
  {
    PatternSet s;
    s.add<FoldAddPosZeroUnsound>();
    auto [err, replayed, unreplayable, rewrites] = run("nnan", std::move(s));  // no nsz: -0.0 + 0.0 is +0.0
    EXPECT_NE(err.find("rewrite 'fold_add_pos_zero_unsound' changed the results of @main"), std::string::npos) << err;
  }
  {
    PatternSet s;
    s.add<AddZeroToNegUnsound>();
    auto [err, replayed, unreplayable, rewrites] = run("reassoc", std::move(s));
    EXPECT_EQ(err, "");
    EXPECT_EQ(rewrites, 1);
    EXPECT_EQ(unreplayable, 1);
  }
}

TEST(ExpensiveChecks, SeedPatternsPassAndAreReplayed) {
  auto p = parse(R"(
func @main(%x: tensor<f32, 2x3>, %y: tensor<f32, 3>) -> tensor<f32, 2x3> {
  %c = cast %x -> tensor<f32, 2x3>
  %m = mul %c, dense<1.0> : tensor<f32, 2x3> -> tensor<f32, 2x3>
  %a = add %m, dense<-0.0> : tensor<f32, 2x3> -> tensor<f32, 2x3>
  %t1 = transpose %a perm[1, 0] -> tensor<f32, 3x2>
  %t2 = transpose %t1 perm[1, 0] -> tensor<f32, 2x3>
  %b = broadcast_to %y -> tensor<f32, 2x3>
  %e = exp %b -> tensor<f32, 2x3>
  %s = add %t2, %e -> tensor<f32, 2x3>
  return %s
}
)");
  PatternSet s;
  populate_seed_patterns(s);
  FrozenPatternSet set = std::move(s).freeze();
  ProgramRewriter rw(*p);
  ExpensiveChecks checks(rw);
  rw.add_listener(&checks);
  GreedyResult r = apply_patterns_and_fold_greedily(rw, set, GreedyConfig{.expensive_checks = false});
  EXPECT_TRUE(r.converged) << r.diagnostic;
  EXPECT_FALSE(checks.failed()) << checks.report();
  EXPECT_EQ(r.stats.rewrites, 5);
  EXPECT_EQ(checks.num_replayed(), r.stats.rewrites + r.stats.erased_dead);
  EXPECT_GT(checks.num_runs(), 10 * checks.num_replayed());
}

/// Claims success without changing anything.
class LiesAboutSuccess final : public Pattern {
 public:
  LiesAboutSuccess() : Pattern("lies_about_success", kOnly<OpCode::Neg>) {}
  bool match_and_rewrite(InstId, ProgramRewriter&) const override { return true; }
};

/// Changes the IR (swaps an operand in place) and then reports failure.
class ChangesThenFails final : public Pattern {
 public:
  ChangesThenFails() : Pattern("changes_then_fails", kOnly<OpCode::Neg>) {}
  bool match_and_rewrite(InstId root, ProgramRewriter& rw) const override {
    ValueId other = rw.program().body(0).params[1];
    if (rw.operand(root, 0) != other) rw.update_in_place(root, [&] { rw.set_operand(root, 0, other); });
    return false;
  }
};

/// Inserts a transpose whose perm is not a permutation.
class BreaksTheVerifier final : public Pattern {
 public:
  BreaksTheVerifier() : Pattern("breaks_the_verifier", kOnly<OpCode::Neg>) {}
  bool match_and_rewrite(InstId root, ProgramRewriter& rw) const override {
    AttrSet s;
    s.attrs.push_back(Attr{"perm", AttrValue{AttrKind::Ints, {0, 0}, {}, {}}});
    ValueId x = rw.operand(root, 0);
    rw.replace_op(root, rw.insert_before(root, OpCode::Transpose, {x}, rw.type_id(x), rw.intern_attrs(s)));
    return true;
  }
};

std::string run_checked(std::unique_ptr<Pattern> pat) {
  auto p = parse(R"(
func @main(%x: tensor<f32, 2x2>, %y: tensor<f32, 2x2>) -> tensor<f32, 2x2> {
  %n = neg %x -> tensor<f32, 2x2>
  return %n
}
)");
  PatternSet s;
  s.add(std::move(pat));
  return apply_patterns_and_fold_greedily(*p, std::move(s).freeze(), checked()).diagnostic;
}

TEST(ExpensiveChecks, SuccessWithoutChangeIsCaught) {
  std::string d = run_checked(std::make_unique<LiesAboutSuccess>());
  EXPECT_NE(d.find("'lies_about_success' reported success but did not change the IR on %n = neg %x"),
            std::string::npos) << d;
}

TEST(ExpensiveChecks, ChangeWithFailureIsCaught) {
  std::string d = run_checked(std::make_unique<ChangesThenFails>());
  EXPECT_NE(d.find("'changes_then_fails' reported failure but changed the IR"), std::string::npos) << d;
}

TEST(ExpensiveChecks, UnverifiableMutationIsCaught) {
  std::string d = run_checked(std::make_unique<BreaksTheVerifier>());
  EXPECT_NE(d.find("instruction inserted by 'breaks_the_verifier' does not verify"), std::string::npos) << d;
}

TEST(ExpensiveChecks, EdgeTensorsCycleThroughTheEdgeValues) {
  Tensor t = edge_tensor(TensorType{DType::F32, {11}}, 0);
  EXPECT_EQ(t.bits(0), 0x80000000u);  // -0.0
  EXPECT_EQ(t.bits(1), 0u);           // +0.0
  EXPECT_TRUE(float_is_nan(DType::F32, t.bits(2)));
  EXPECT_EQ(t.bits(3), 0x7f800000u);  // +inf
  EXPECT_EQ(t.bits(4), 0xff800000u);  // -inf
  EXPECT_EQ(t.bits(7), 1u);           // smallest subnormal
  EXPECT_EQ(t.bits(9), 0x7f7fffffu);  // largest finite
  Tensor r = edge_tensor(TensorType{DType::F32, {}}, 3);
  EXPECT_EQ(r.bits(0), 0x7f800000u);  // a rotation moves every element along
  Tensor i = edge_tensor(TensorType{DType::SI8, {4}}, 0);
  EXPECT_EQ(i.as_int(2), -1);
  EXPECT_EQ(i.as_int(3), -128);
}

}  // namespace
}  // namespace ptir

namespace ptir {
namespace {

using Rewrite = std::function<void(ProgramRewriter&, const Program&)>;

/// What the checks said about a run of rewrites.
struct Checked {
  std::string report;  ///< empty: no violation
  int64_t replayed = 0, structural = 0, runs = 0, memoized = 0;
};

/// Runs each rewrite of `rewrites` in turn on `text`'s program under expensive checks, each as its own
/// pattern application (named "cse"), stopping at the first violation. With `memo`, the checks keep their
/// passed replays there (CheckOptions::replay_memo) instead of in their own set.
Checked run_checked(const char* text, const std::vector<Rewrite>& rewrites, ReplayMemo* memo = nullptr) {
  auto p = testing::parse(text);
  ProgramRewriter rw(*p);
  CheckOptions opts;
  opts.replay_memo = memo;
  ExpensiveChecks checks(rw, opts);
  rw.add_listener(&checks);
  for (const Rewrite& rewrite : rewrites) {
    const uint64_t bracket1 = rw.notify_pattern_begin(RewriteSource::cse(), 0);
    rewrite(rw, *p);
    rw.notify_pattern_end(RewriteSource::cse(), 0, true, bracket1);
    if (checks.failed()) break;
  }
  if (!checks.failed()) checks.finish();
  rw.remove_listener(&checks);
  return {checks.failed() ? checks.report() : std::string(), checks.num_replayed(), checks.num_structural(),
          checks.num_runs(), checks.num_memoized()};
}

/// One rewrite: the report, replays, structural decisions and runs.
std::tuple<std::string, int64_t, int64_t, int64_t> one_checked_rewrite(const char* text, const Rewrite& rewrite) {
  Checked c = run_checked(text, {rewrite});
  return {c.report, c.replayed, c.structural, c.runs};
}

constexpr const char* kTwins = R"(
func @main(%x: tensor<f32, 4>, %y: tensor<f32, 4>) -> tensor<f32, 4> {
  %a = sub %x, %y -> tensor<f32, 4>
  %b = sub %x, %y -> tensor<f32, 4>
  %c = sub %y, %x -> tensor<f32, 4>
  %s = add %a, %b -> tensor<f32, 4>
  %t = add %s, %c -> tensor<f32, 4>
  return %t
}
)";

// A CSE merge of two identical pure instructions is decided without running the interpreter.
TEST(ExpensiveChecks, IdenticalTwinsAreDecidedStructurally) {
  auto [err, replayed, structural, runs] = one_checked_rewrite(kTwins, [](ProgramRewriter& rw, const Program& p) {
    const InstId a = p.body(p.entry()).first, b = p.inst(a).next;
    rw.replace_op(b, std::vector<ValueId>{p.result(a)});
  });
  EXPECT_EQ(err, "");
  EXPECT_EQ(replayed, 1);
  EXPECT_EQ(structural, 1);
  EXPECT_EQ(runs, 0);
}

// Merging instructions that differ (sub x, y with sub y, x) is no twin: it is replayed, and caught.
TEST(ExpensiveChecks, AMergeOfDifferentInstructionsIsReplayedAndCaught) {
  auto [err, replayed, structural, runs] = one_checked_rewrite(kTwins, [](ProgramRewriter& rw, const Program& p) {
    const InstId a = p.body(p.entry()).first, c = p.inst(p.inst(a).next).next;
    rw.replace_op(c, std::vector<ValueId>{p.result(a)});
  });
  EXPECT_NE(err.find("changed the results of @main"), std::string::npos) << err;
  EXPECT_EQ(structural, 0);
  EXPECT_GT(runs, 0);
}

// A twin merge that also changes anything else (here: a user's operand set to another value) is
// replayed as a whole, and the other change is caught.
TEST(ExpensiveChecks, ATwinMergeWithAnotherChangeIsReplayed) {
  auto [err, replayed, structural, runs] = one_checked_rewrite(kTwins, [](ProgramRewriter& rw, const Program& p) {
    const InstId a = p.body(p.entry()).first, b = p.inst(a).next, c = p.inst(b).next;
    const InstId t = p.inst(p.inst(c).next).next;  // %t = add %s, %c
    rw.replace_op(b, std::vector<ValueId>{p.result(a)});
    rw.start_update(t);
    rw.set_operand(t, 1, p.result(a));
    rw.finalize_update(t);
  });
  EXPECT_NE(err.find("changed the results of @main"), std::string::npos) << err;
  EXPECT_EQ(structural, 0);
  EXPECT_GT(runs, 0);
}

/// Several rewrites: the report, replays and memoized replays.
std::tuple<std::string, int64_t, int64_t> checked_rewrites(const char* text, const std::vector<Rewrite>& rewrites) {
  Checked c = run_checked(text, rewrites);
  return {c.report, c.replayed, c.memoized};
}

/// The value the i-th instruction of the entry function defines.
ValueId nth_result(const Program& p, int i) {
  InstId at = p.body(p.entry()).first;
  while (i-- > 0) at = p.inst(at).next;
  return p.result(at);
}

/// Replaces the i-th instruction's result with the j-th's.
Rewrite replace_nth(int i, int j) {
  return [i, j](ProgramRewriter& rw, const Program& p) {
    rw.replace_op(p.def_inst(nth_result(p, i)), std::vector<ValueId>{nth_result(p, j)});
  };
}

constexpr const char* kTwoChains = R"(
func @main(%x: tensor<f32, 4>, %y: tensor<f32, 4>) -> tensor<f32, 4> {
  %a = neg %x -> tensor<f32, 4>
  %b = neg %a -> tensor<f32, 4>
  %c = neg %y -> tensor<f32, 4>
  %d = neg %c -> tensor<f32, 4>
  %s = add %b, %d -> tensor<f32, 4>
  return %s
}
)";

// The same rewrite at two sites of the same shape (neg(neg(v)) ==> v on two parameters of one type) is
// one replay: the second is identical to the first and is memoized.
TEST(ExpensiveChecks, AnIdenticalReplayIsMemoized) {
  auto [err, replayed, memoized] = checked_rewrites(kTwoChains, {[](ProgramRewriter& rw, const Program& p) {
    rw.replace_op(p.def_inst(nth_result(p, 1)), std::vector<ValueId>{p.body(p.entry()).params[0]});
  }, [](ProgramRewriter& rw, const Program& p) {
    // %b is gone: %d is the third instruction
    rw.replace_op(p.def_inst(nth_result(p, 2)), std::vector<ValueId>{p.body(p.entry()).params[1]});
  }});
  EXPECT_EQ(err, "");
  EXPECT_EQ(replayed, 2);
  EXPECT_EQ(memoized, 1);
}

// A wrong rewrite after a right one of the same pattern at a twin site is no identical replay: here the
// second replaces neg(neg(%y)) with neg(%y), and it is replayed and caught.
TEST(ExpensiveChecks, AWrongRewriteAfterARightOneIsNotMemoized) {
  auto [err, replayed, memoized] = checked_rewrites(kTwoChains, {[](ProgramRewriter& rw, const Program& p) {
    rw.replace_op(p.def_inst(nth_result(p, 1)), std::vector<ValueId>{p.body(p.entry()).params[0]});
  }, replace_nth(2, 1)});  // %b is gone: %d is the third instruction, %c the second
  EXPECT_NE(err.find("changed the results of @main"), std::string::npos) << err;
  EXPECT_EQ(memoized, 0);
}

constexpr const char* kTwoScales = R"(
func @main(%x: tensor<f32, 4>, %y: tensor<f32, 4>) -> tensor<f32, 4> {
  %a = mul %x, dense<2.0> : tensor<f32, 4> -> tensor<f32, 4>
  %two = add %x, %x -> tensor<f32, 4>
  %c = mul %y, dense<3.0> : tensor<f32, 4> -> tensor<f32, 4>
  %twice = add %y, %y -> tensor<f32, 4>
  %s = add %a, %c -> tensor<f32, 4>
  return %s
}
)";

// Two sites that differ only in a literal are different replays: mul(v, c) ==> add(v, v) is right for
// c = 2 and wrong for c = 3, and the second is caught although its cones have the same shape.
TEST(ExpensiveChecks, ReplaysThatDifferInALiteralAreNotMemoized) {
  auto [err, replayed, memoized] = checked_rewrites(kTwoScales, {replace_nth(0, 1), replace_nth(1, 2)});
  EXPECT_NE(err.find("changed the results of @main"), std::string::npos) << err;
  EXPECT_EQ(replayed, 2);
  EXPECT_EQ(memoized, 0);
}

/// `text` with its first `placeholder` replaced by `value`.
std::string substituted(std::string text, std::string_view placeholder, std::string_view value) {
  text.replace(text.find(placeholder), placeholder.size(), value);
  return text;
}

// A memo shared by two programs (CheckOptions::replay_memo, as a fuzz target keeps one per thread)
// keys a replay by value: the same rewrite in another program, whose ids differ, is memoized.
TEST(ExpensiveChecks, AReplayIdenticalToOneInAnEarlierProgramIsMemoized) {
  ReplayMemo cache(4096, 64);
  const Rewrite fold_first = [](ProgramRewriter& rw, const Program& p) {
    rw.replace_op(p.def_inst(nth_result(p, 1)), std::vector<ValueId>{p.body(p.entry()).params[0]});
  };
  Checked first = run_checked(kTwoChains, {fold_first}, &cache);
  EXPECT_EQ(first.report, "");
  EXPECT_EQ(first.memoized, 0);
  // Other instructions first, so every id of the folded chain differs from the first program's.
  Checked second = run_checked(R"(
func @main(%y: tensor<f32, 4>, %x: tensor<f32, 4>) -> tensor<f32, 4> {
  %p = abs %y -> tensor<f32, 4>
  %q = exp %p -> tensor<f32, 4>
  %a = neg %x -> tensor<f32, 4>
  %b = neg %a -> tensor<f32, 4>
  %s = add %q, %b -> tensor<f32, 4>
  return %s
}
)", {[](ProgramRewriter& rw, const Program& p) {
                                 rw.replace_op(p.def_inst(nth_result(p, 3)), std::vector<ValueId>{p.body(p.entry()).params[1]});
                               }},
                               &cache);
  EXPECT_EQ(second.report, "");
  EXPECT_EQ(second.replayed, 1);
  EXPECT_EQ(second.memoized, 1);
}

// A ReplayMemo holds exactly the keys inserted since it last started over (its arena or table full),
// compared byte for byte: a prefix, an extension or a one-byte change of a kept key is not in it.
TEST(ReplayMemo, HoldsExactlyTheKeysSinceItLastStartedOver) {
  ReplayMemo memo(4096, 64);
  std::vector<std::string> since;  // keys inserted since the last restart
  uint64_t restarts = 0;
  for (int k = 0; k < 2000; ++k) {
    std::string key = "replay-" + std::to_string(k * 7919 % 1000) + std::string(static_cast<size_t>(k % 50), 'x');
    memo.insert(key);
    if (memo.restarts() != restarts) {
      restarts = memo.restarts();
      since.clear();
    }
    if (std::find(since.begin(), since.end(), key) == since.end()) since.push_back(key);
    ASSERT_EQ(memo.size(), since.size());
  }
  EXPECT_GT(memo.restarts(), 0u);
  for (const std::string& key : since) {
    EXPECT_TRUE(memo.contains(key)) << key;
    EXPECT_FALSE(memo.contains(key + "y")) << key;
    EXPECT_FALSE(memo.contains(key.substr(0, key.size() - 1))) << key;
    std::string changed = key;
    changed[0] = 'R';
    EXPECT_FALSE(memo.contains(changed)) << key;
  }
  EXPECT_FALSE(memo.contains(""));
}

// Across programs, a literal is part of a replay's key by its value, not by the program's literal id:
// mul(v, 2.0) ==> add(v, v) passes in one program; the same rewrite of mul(v, 3.0) in another program,
// whose literal has the same id, is replayed and caught.
TEST(ExpensiveChecks, ReplaysInAnotherProgramThatDifferInALiteralAreNotMemoized) {
  ReplayMemo cache(4096, 64);
  const char* scale = R"(
func @main(%x: tensor<f32, 4>) -> tensor<f32, 4> {
  %a = mul %x, dense<LIT> : tensor<f32, 4> -> tensor<f32, 4>
  %two = add %x, %x -> tensor<f32, 4>
  %s = neg %a -> tensor<f32, 4>
  return %s
}
)";
  auto with = [&](const char* lit) { return substituted(scale, "LIT", lit); };
  Checked right = run_checked(with("2.0").c_str(), {replace_nth(0, 1)}, &cache);
  EXPECT_EQ(right.report, "");
  EXPECT_EQ(right.memoized, 0);
  Checked wrong = run_checked(with("3.0").c_str(), {replace_nth(0, 1)}, &cache);
  EXPECT_NE(wrong.report.find("changed the results of @main"), std::string::npos) << wrong.report;
  EXPECT_EQ(wrong.memoized, 0);
}

// The same for attributes: transpose perm[0, 1] ==> its operand passes; in another program the same
// rewrite of transpose perm[1, 0] (a square matrix, the same types and attribute-set id) is caught.
TEST(ExpensiveChecks, ReplaysInAnotherProgramThatDifferInAnAttributeAreNotMemoized) {
  ReplayMemo cache(4096, 64);
  const char* text = R"(
func @main(%x: tensor<f32, 2x2>) -> tensor<f32, 2x2> {
  %t = transpose %x perm[PERM] -> tensor<f32, 2x2>
  %s = neg %t -> tensor<f32, 2x2>
  return %s
}
)";
  auto with = [&](const char* perm) { return substituted(text, "PERM", perm); };
  const Rewrite to_operand = [](ProgramRewriter& rw, const Program& p) {
    rw.replace_op(p.def_inst(nth_result(p, 0)), std::vector<ValueId>{p.body(p.entry()).params[0]});
  };
  Checked right = run_checked(with("0, 1").c_str(), {to_operand}, &cache);
  EXPECT_EQ(right.report, "");
  Checked wrong = run_checked(with("1, 0").c_str(), {to_operand}, &cache);
  EXPECT_NE(wrong.report.find("changed the results of @main"), std::string::npos) << wrong.report;
  EXPECT_EQ(wrong.memoized, 0);
}

constexpr const char* kCommutedTwins = R"(
func @main(%x: tensor<f32, 70000>, %y: tensor<f32, 70000>) -> tensor<f32, 70000> {
  %a = add %x, %y -> tensor<f32, 70000>
  %b = add %y, %x -> tensor<f32, 70000>
  %s = mul %a, %b -> tensor<f32, 70000>
  return %s
}
)";

// Merging add(x, y) into add(y, x) is right. The replacement's producer is too big to replay by the
// cost rule, but it is a compared value: fed as a boundary input it would be an unrelated random
// tensor, so it is replayed (on a window) and the merge passes.
TEST(ExpensiveChecks, AComparedValueTheOtherSideDoesNotReadIsReplayed) {
  auto [err, replayed, memoized] = checked_rewrites(kCommutedTwins, {replace_nth(0, 1)});
  EXPECT_EQ(err, "");
  EXPECT_EQ(replayed, 1);
}

constexpr const char* kDoubleAbs = R"(
func @main(%x: tensor<f32, 70000>) -> tensor<f32, 70000> {
  %a = abs %x -> tensor<f32, 70000>
  %b = abs %a -> tensor<f32, 70000>
  %s = neg %b -> tensor<f32, 70000>
  return %s
}
)";

// abs(abs(x)) => abs(x) compares abs(y) with y = abs(x). y is too big to replay by the cost rule, and
// the old side reads it; fed as a boundary input it could be negative, and the right rewrite would be
// reported as a violation. A compared value is always replayed, so it passes.
TEST(ExpensiveChecks, AComparedValueIsReplayedWhateverItsCost) {
  auto [err, replayed, memoized] = checked_rewrites(kDoubleAbs, {replace_nth(1, 0)});
  EXPECT_EQ(err, "");
  EXPECT_EQ(replayed, 1);
}

}  // namespace
}  // namespace ptir
