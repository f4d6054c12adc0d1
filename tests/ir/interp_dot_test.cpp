// dot_general: result layout (batch, lhs free, rhs free), contraction order, products rounded in the
// accumulation dtype without FMA, f32 accumulation for f16, empty contractions and integer wrap-around.
#include "tests/ir/interp_test_util.h"

namespace ptir::test {
namespace {

constexpr const char* kMatmul = "dot_general %a, %b contract_lhs[1] contract_rhs[0]";

/// A plain matmul in f32 and si32.
TEST(InterpDot, Matmul) {
  EXPECT_EQ(ok_bits(run_op(kMatmul, "tensor<f32, 2x2>",
                           {lit("dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<f32, 2x3>"),
                            lit("dense<[[7.0, 8.0], [9.0, 10.0], [11.0, 12.0]]> : tensor<f32, 3x2>")})),
            lit_bits("dense<[[58.0, 64.0], [139.0, 154.0]]> : tensor<f32, 2x2>"));
  EXPECT_EQ(ok_bits(run_op(kMatmul, "tensor<si32, 2x2>",
                           {lit("dense<[[1, 2, 3], [4, 5, 6]]> : tensor<si32, 2x3>"),
                            lit("dense<[[7, 8], [9, 10], [11, 12]]> : tensor<si32, 3x2>")})),
            lit_bits("dense<[[58, 64], [139, 154]]> : tensor<si32, 2x2>"));
}

/// Each product is rounded before the add: (1+2^-12)^2 = 1 + 2^-11 + 2^-24 ties down to 1 + 2^-11, then
/// adding 1 * -1 gives exactly 2^-11 (0x3A000000); a fused multiply-add would keep the 2^-24.
TEST(InterpDot, ProductsRoundedNoFma) {
  EXPECT_EQ(ok_bits(run_op("dot_general %a, %b contract_lhs[0] contract_rhs[0]", "tensor<f32>",
                           {from_bits("tensor<f32, 2>", {0x3F800800, 0x3F800000}),
                            from_bits("tensor<f32, 2>", {0x3F800800, 0xBF800000})})),
            (Bits{0x3A000000}));
}

/// f16 operands accumulate in f32 by default: 2048*1 + 1*1 + 1*1 = 2050 (0x6801); accum[f16]: 2048.
TEST(InterpDot, HalfAccumulation) {
  Tensor l = from_bits("tensor<f16, 3>", {0x6800, 0x3C00, 0x3C00});
  Tensor r = from_bits("tensor<f16, 3>", {0x3C00, 0x3C00, 0x3C00});
  EXPECT_EQ(ok_bits(run_op("dot_general %a, %b contract_lhs[0] contract_rhs[0]", "tensor<f16>", {l, r})), (Bits{0x6801}));
  EXPECT_EQ(ok_bits(run_op("dot_general %a, %b contract_lhs[0] contract_rhs[0] accum[f16]", "tensor<f16>", {l, r})),
            (Bits{0x6800}));
}

/// Batch dims come first: [2,1,2] x [2,2,1] with batch 0/0 and contract 2/1 is a batched matvec.
TEST(InterpDot, BatchDims) {
  EXPECT_EQ(ok_bits(run_op("dot_general %a, %b batch_lhs[0] batch_rhs[0] contract_lhs[2] contract_rhs[1]",
                           "tensor<si16, 2x1x1>",
                           {lit("dense<[[[1, 2]], [[3, 4]]]> : tensor<si16, 2x1x2>"),
                            lit("dense<[[[5], [6]], [[7], [8]]]> : tensor<si16, 2x2x1>")})),
            (Bits{17, 53}));
}

/// Contracting over lhs dim 0 (a transposed lhs): result dims are lhs free then rhs free.
TEST(InterpDot, ContractLeadingDim) {
  EXPECT_EQ(ok_bits(run_op("dot_general %a, %b contract_lhs[0] contract_rhs[0]", "tensor<f64, 2x1>",
                           {lit("dense<[[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]> : tensor<f64, 3x2>"),
                            lit("dense<[[1.0], [1.0], [1.0]]> : tensor<f64, 3x1>")})),
            lit_bits("dense<[[6.0], [15.0]]> : tensor<f64, 2x1>"));
}

/// Several contracting dims fold in row-major order of the coordinates in contract_lhs order: with
/// contract_lhs[1, 0] the lhs [[2^24, -2^24], [1, 1]] is visited column by column: ((2^24+1)-2^24)+1 = 1;
/// with contract_lhs[0, 1] row by row: (2^24-2^24)+1+1 = 2.
TEST(InterpDot, ContractionOrder) {
  Tensor l = from_bits("tensor<f32, 2x2>", {0x4B800000, 0xCB800000, 0x3F800000, 0x3F800000});
  Tensor ones = lit("dense<1.0> : tensor<f32, 2x2>");
  EXPECT_EQ(ok_bits(run_op("dot_general %a, %b contract_lhs[1, 0] contract_rhs[1, 0]", "tensor<f32>", {l, ones})),
            (Bits{0x3F800000}));
  EXPECT_EQ(ok_bits(run_op("dot_general %a, %b contract_lhs[0, 1] contract_rhs[0, 1]", "tensor<f32>", {l, ones})),
            (Bits{0x40000000}));
}

/// An empty contraction gives +0.0; integer products and sums wrap.
TEST(InterpDot, EmptyAndWrap) {
  EXPECT_EQ(ok_bits(run_op(kMatmul, "tensor<f32, 2x2>", {lit("dense<[[], []]> : tensor<f32, 2x0>"), lit("dense<[]> : tensor<f32, 0x2>")})),
            (Bits{0, 0, 0, 0}));
  EXPECT_EQ(ok_bits(run_op("dot_general %a, %b contract_lhs[0] contract_rhs[0]", "tensor<si8>",
                           {lit("dense<[100, 100]> : tensor<si8, 2>"), lit("dense<[1, 1]> : tensor<si8, 2>")})),
            (Bits{0xC8}));
  EXPECT_EQ(ok_bits(run_op("dot_general %a, %b contract_lhs[0] contract_rhs[0]", "tensor<ui8>",
                           {lit("dense<[16, 3]> : tensor<ui8, 2>"), lit("dense<[16, 1]> : tensor<ui8, 2>")})),
            (Bits{3}));
}

/// A product with -0 keeps the sign through a one-element contraction; NaN products give NaN.
TEST(InterpDot, SignedZeroAndNan) {
  EXPECT_EQ(ok_bits(run_op("dot_general %a, %b contract_lhs[0] contract_rhs[0]", "tensor<f32, 1>",
                           {from_bits("tensor<f32, 1x1>", {0x80000000}), from_bits("tensor<f32, 1>", {0x3F800000})})),
            (Bits{0x80000000}));
  EXPECT_EQ(ok_bits(run_op("dot_general %a, %b contract_lhs[0] contract_rhs[0]", "tensor<f32>",
                           {from_bits("tensor<f32, 2>", {0x7F800000, 0x3F800000}), from_bits("tensor<f32, 2>", {0, 1})})),
            (Bits{0x7FC00000}));
}

}  // namespace
}  // namespace ptir::test
