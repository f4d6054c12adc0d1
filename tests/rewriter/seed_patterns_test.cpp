// The seed patterns one by one: each fires where its identity holds and not on its near misses.
// Every run has expensive checks on, so each firing is also replayed on the interpreter.
#include "patterns/seed.h"

#include <gtest/gtest.h>

#include "rewriter/greedy.h"
#include "tests/rewriter/helpers.h"

namespace ptir {
namespace {
using testing::parse;
using testing::print;

/// Runs only pattern `name` (no folding, no DCE) with checks on; returns the printed program.
std::string run_only(std::string_view name, std::string_view text, int64_t* rewrites = nullptr) {
  auto p = parse(text);
  PatternSet s;
  populate_seed_patterns(s);
  FrozenPatternSet set = std::move(s).freeze({.enabled_names = {std::string(name)}});
  EXPECT_EQ(set.size(), 1u);
  GreedyResult r = apply_patterns_and_fold_greedily(
      *p, set, GreedyConfig{.fold = false, .dce = false, .expensive_checks = true});
  EXPECT_TRUE(r.converged) << r.diagnostic;
  EXPECT_EQ(testing::verify_error(*p), "");
  if (rewrites) *rewrites = r.stats.rewrites;
  return print(*p);
}

TEST(SeedPatterns, RemoveNoopCast) {
  int64_t n = 0;
  std::string out = run_only("remove_noop_cast", R"(
func @main(%x: tensor<f32, 4>) -> (tensor<f32, 4>, tensor<f16, 4>) {
  %same = cast %x -> tensor<f32, 4>
  %narrow = cast %x -> tensor<f16, 4>
  return %same, %narrow
}
)", &n);
  EXPECT_EQ(n, 1);
  EXPECT_NE(out.find("return %x, %narrow"), std::string::npos) << out;
}

TEST(SeedPatterns, FuseUnaryThroughBroadcast) {
  int64_t n = 0;
  std::string out = run_only("fuse_unary_through_broadcast", R"(
func @main(%x: tensor<f32, 3>, %y: tensor<f32, 3>) -> (tensor<f32, 2x3>, tensor<f32, 2x3>, tensor<f32, 2x3>) {
  %b = broadcast_to %x -> tensor<f32, 2x3>
  %e = exp %b -> tensor<f32, 2x3>
  %shared = broadcast_to %y -> tensor<f32, 2x3>
  %n = neg %shared -> tensor<f32, 2x3>
  return %e, %n, %shared
}
)", &n);
  EXPECT_EQ(n, 1);  // %shared has two uses: fusing would broadcast twice
  EXPECT_NE(out.find("exp %x -> tensor<f32, 3>"), std::string::npos) << out;
  EXPECT_NE(out.find("neg %shared"), std::string::npos) << out;
  EXPECT_EQ(out.find("%b ="), std::string::npos) << out;  // the old broadcast is gone
}

TEST(SeedPatterns, FuseUnaryThroughBroadcastSkipsCasts) {
  int64_t n = 0;
  run_only("fuse_unary_through_broadcast", R"(
func @main(%x: tensor<f32, 3>) -> tensor<f16, 2x3> {
  %b = broadcast_to %x -> tensor<f32, 2x3>
  %c = cast %b -> tensor<f16, 2x3>
  return %c
}
)", &n);
  EXPECT_EQ(n, 0);
}

TEST(SeedPatterns, FoldTransposePairInverseAndComposed) {
  int64_t n = 0;
  std::string out = run_only("fold_transpose_pair", R"(
func @main(%x: tensor<f32, 2x3x4>) -> (tensor<f32, 2x3x4>, tensor<f32, 2x4x3>) {
  %a = transpose %x perm[1, 2, 0] -> tensor<f32, 3x4x2>
  %inv = transpose %a perm[2, 0, 1] -> tensor<f32, 2x3x4>
  %b = transpose %x perm[2, 0, 1] -> tensor<f32, 4x2x3>
  %c = transpose %b perm[1, 0, 2] -> tensor<f32, 2x4x3>
  return %inv, %c
}
)", &n);
  EXPECT_EQ(n, 2);
  EXPECT_NE(out.find("transpose %x perm[0, 2, 1] -> tensor<f32, 2x4x3>"), std::string::npos) << out;
  EXPECT_NE(out.find("return %x, %t0"), std::string::npos) << out;
}

TEST(SeedPatterns, FoldTransposePairCollapsesAChain) {
  int64_t n = 0;
  std::string text = "func @main(%x: tensor<f32, 2x3>) -> tensor<f32, 3x2> {\n  %t0 = transpose %x perm[1, 0] -> tensor<f32, 3x2>\n";
  for (int k = 1; k < 9; ++k)
    text += "  %t" + std::to_string(k) + " = transpose %t" + std::to_string(k - 1) + " perm[1, 0] -> tensor<f32, " +
            (k % 2 ? "2x3" : "3x2") + ">\n";
  text += "  return %t8\n}\n";
  std::string out = run_only("fold_transpose_pair", text, &n);
  EXPECT_NE(out.find("return %t0"), std::string::npos) << out;  // 9 transposes of [1, 0] are one
}

TEST(SeedPatterns, FoldMulByOne) {
  int64_t n = 0;
  std::string out = run_only("fold_mul_by_one", R"(
func @main(%x: tensor<f32, 2>, %i: tensor<si32, 2>) -> (tensor<f32, 2>, tensor<f32, 2>, tensor<si32, 2>, tensor<f32, 2>, tensor<f32, 2>) {
  %one = constant dense<1.0> : tensor<f32, 2> -> tensor<f32, 2>
  %a = mul %x, dense<1.0> : tensor<f32, 2> -> tensor<f32, 2>
  %b = mul %one, %x -> tensor<f32, 2>
  %c = mul %i, dense<1> : tensor<si32, 2> -> tensor<si32, 2>
  %d = mul %x, dense<[1.0, 2.0]> : tensor<f32, 2> -> tensor<f32, 2>
  %e = mul %x, dense<1.0000001> : tensor<f32, 2> -> tensor<f32, 2>
  return %a, %b, %c, %d, %e
}
)", &n);
  EXPECT_EQ(n, 3);
  EXPECT_NE(out.find("return %x, %x, %i, %d, %e"), std::string::npos) << out;
}

TEST(SeedPatterns, FoldAddNegZeroButNotPositiveZero) {
  int64_t n = 0;
  std::string out = run_only("fold_add_neg_zero", R"(
func @main(%x: tensor<f32, 2>, %h: tensor<bf16, 2>, %i: tensor<si32, 2>) -> (tensor<f32, 2>, tensor<bf16, 2>, tensor<f32, 2>, tensor<si32, 2>) {
  %a = add dense<-0.0> : tensor<f32, 2>, %x -> tensor<f32, 2>
  %b = add %h, dense<-0.0> : tensor<bf16, 2> -> tensor<bf16, 2>
  %c = add %x, dense<0.0> : tensor<f32, 2> -> tensor<f32, 2>
  %d = add %i, dense<0> : tensor<si32, 2> -> tensor<si32, 2>
  return %a, %b, %c, %d
}
)", &n);
  EXPECT_EQ(n, 2);
  EXPECT_NE(out.find("return %x, %h, %c, %d"), std::string::npos) << out;
}

}  // namespace
}  // namespace ptir
