// Splat tensors (Tensor::splat): one stored element standing for every element. Equality and hashing
// do not depend on the form, the interpreter expands a splat only for the instruction that reads it,
// and its memory budget counts what a run holds.
#include <gtest/gtest.h>

#include "ir/interp.h"
#include "ir/text.h"
#include "tests/ir/interp_test_util.h"

namespace ptir::test {
namespace {

TEST(Splat, ParsedSplatStoresOneElementWhateverItsSize) {
  Tensor t = lit("dense<2.5> : tensor<f32, 268435456>");
  EXPECT_TRUE(t.splat);
  EXPECT_EQ(t.data.size(), 4u);
  EXPECT_EQ(t.size(), int64_t{1} << 28);
  EXPECT_TRUE(t.well_formed());
  EXPECT_EQ(t.bits((int64_t{1} << 28) - 1), t.bits(0));
  EXPECT_EQ(print_literal(t), "dense<2.5> : tensor<f32, 268435456>");
}

TEST(Splat, EqualityAndHashIgnoreTheForm) {
  Tensor s = lit("dense<-0.0> : tensor<f32, 2x2>");
  Tensor d = lit("dense<[[-0.0, -0.0], [-0.0, -0.0]]> : tensor<f32, 2x2>");
  EXPECT_TRUE(s.splat);
  EXPECT_TRUE(d.splat);  // a list of equal elements is the same literal
  Tensor e = s;
  e.expand();
  EXPECT_FALSE(e.splat);
  EXPECT_EQ(e.data.size(), 16u);
  EXPECT_EQ(s, e);
  EXPECT_EQ(hash_value(s), hash_value(e));
  Tensor z = lit("dense<0.0> : tensor<f32, 2x2>");
  EXPECT_NE(s, z);  // +0 and -0 differ
  e.set_bits(3, 0);
  EXPECT_NE(s, e);
  e.compact();
  EXPECT_FALSE(e.splat);  // not all equal: stays dense
}

TEST(Splat, InterpreterExpandsOnlyWhereAKernelReads) {
  // A splat constant returned as is stays a splat; arithmetic on it gives the right dense result.
  RunResult r = run_text(R"(
func @main(%x: tensor<f32, 3>) -> (tensor<f32, 1048576>, tensor<f32, 3>) {
  %big = constant dense<1.5> : tensor<f32, 1048576> -> tensor<f32, 1048576>
  %y = add %x, dense<1.0> : tensor<f32, 3> -> tensor<f32, 3>
  return %big, %y
}
)", {lit("dense<[1.0, 2.0, -1.0]> : tensor<f32, 3>")});
  ASSERT_EQ(r.status, RunStatus::Ok) << r.message;
  EXPECT_TRUE(r.results[0].splat);
  EXPECT_EQ(r.results[0].data.size(), 4u);
  EXPECT_EQ(bits(r.results[1]), lit_bits("dense<[2.0, 3.0, 0.0]> : tensor<f32, 3>"));
}

TEST(Splat, MemoryBudgetStopsARunCleanly) {
  auto prog = R"(
func @main() -> tensor<f32, 1048576> {
  %y = add dense<1.0> : tensor<f32, 1048576>, dense<2.0> : tensor<f32, 1048576> -> tensor<f32, 1048576>
  return %y
}
)";
  InterpOptions io;
  io.max_bytes = 6u << 20;  // the two expanded operands (8 MB) do not fit
  RunResult r = run_text(prog, {}, io);
  EXPECT_EQ(r.status, RunStatus::Error);
  EXPECT_NE(r.message.find("memory budget of 6 MB exceeded"), std::string::npos) << r.message;
  io.max_bytes = 16u << 20;
  r = run_text(prog, {}, io);
  ASSERT_EQ(r.status, RunStatus::Ok) << r.message;
  EXPECT_EQ(r.results[0].bits(1048575), lit("dense<3.0> : tensor<f32>").bits(0));
}

}  // namespace
}  // namespace ptir::test
