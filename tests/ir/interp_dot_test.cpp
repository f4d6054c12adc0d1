// dot_general: result layout (batch, lhs free, rhs free), contraction order, products rounded in the
// accumulation dtype without FMA, f32 accumulation for f16, empty contractions and integer wrap-around.
#include <cmath>
#include <cstring>

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

/// The f32 accumulation (float arithmetic, four output elements folded side by side) against the rule
/// computed here one element at a time: each product and each sum rounded once from its exact double
/// value (ptir::double_to_float), a NaN result canonical. Operands mix random values with the edge values
/// that stress the rounding: ±0, ±inf, NaN, subnormals, the largest finite (whose sums overflow), and
/// values one ulp apart; output counts of 1 to 9 cover every short last group of four.
TEST(InterpDot, F32AccumulationRoundsEachStepOnce) {
  const std::vector<uint32_t> edge = {0x80000000, 0, 0x7FC00000, 0x7F800000, 0xFF800000, 0x3F800000, 0xBF800000,
                                      1,          0x807FFFFF, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F800001, 0x33800000};
  uint64_t state = 0x9E3779B97F4A7C15ULL;
  auto next = [&] {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return state;
  };
  auto element = [&]() -> uint64_t {
    const uint64_t r = next();
    if (r % 3 == 0) return edge[(r >> 8) % edge.size()];
    const float f = static_cast<float>(static_cast<int64_t>(r >> 40) % 2001 - 1000) / 64.0f *
                    ((r >> 20) % 5 == 0 ? 1e30f : 1.0f);
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
  };
  auto as_double = [](uint64_t b) {
    float f;
    const uint32_t u = static_cast<uint32_t>(b);
    std::memcpy(&f, &u, 4);
    return static_cast<double>(f);
  };
  auto round32 = [&](double v) { return as_double(double_to_float(DType::F32, v)); };
  for (int m = 1; m <= 3; ++m)
    for (int n = 1; n <= 3; ++n)
      for (int k = 0; k <= 5; ++k) {
        std::vector<uint64_t> a(m * k), b(k * n);
        for (auto& x : a) x = element();
        for (auto& x : b) x = element();
        const std::string ta = "tensor<f32, " + std::to_string(m) + "x" + std::to_string(k) + ">";
        const std::string tb = "tensor<f32, " + std::to_string(k) + "x" + std::to_string(n) + ">";
        const std::string to = "tensor<f32, " + std::to_string(m) + "x" + std::to_string(n) + ">";
        Bits want;
        for (int i = 0; i < m; ++i)
          for (int j = 0; j < n; ++j) {
            double acc = 0.0;
            for (int c = 0; c < k; ++c) {
              const double prod = round32(as_double(a[i * k + c]) * as_double(b[c * n + j]));
              acc = c == 0 ? prod : round32(acc + prod);
            }
            want.push_back(std::isnan(acc) ? canonical_nan(DType::F32) : double_to_float(DType::F32, acc));
          }
        EXPECT_EQ(ok_bits(run_op(kMatmul, to, {from_bits(ta, a), from_bits(tb, b)})), want)
            << m << "x" << k << " times " << k << "x" << n;
      }
}

}  // namespace
}  // namespace ptir::test
