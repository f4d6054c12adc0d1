// Reductions: the fixed left-fold order over row-major reduced positions, accumulation dtypes (f32 for
// f16/bf16 by default), empty reductions, NaN and signed zeros; argmax and segment_reduce.
#include "tests/ir/interp_test_util.h"

namespace ptir::test {
namespace {

/// [2^24, 1, 1] in f32 folds as ((2^24 + 1) + 1): each step ties back to 2^24. Any other grouping would
/// give 2^24 + 2.
TEST(InterpReduce, SumIsALeftFold) {
  EXPECT_EQ(ok_bits(run_op("reduce_sum %a axes[0]", "tensor<f32>", {from_bits("tensor<f32, 3>", {0x4B800000, 0x3F800000, 0x3F800000})})),
            (Bits{0x4B800000}));
  // With accum[f64] the sum is exact, 2^24 + 2, and is then rounded to f32 (representable).
  EXPECT_EQ(ok_bits(run_op("reduce_sum %a axes[0] accum[f64]", "tensor<f32>",
                           {from_bits("tensor<f32, 3>", {0x4B800000, 0x3F800000, 0x3F800000})})),
            (Bits{0x4B800001}));
}

/// The order is row-major over the reduced coordinates whatever the order of `axes`:
/// [[2^24, 1], [-2^24, 1]] gives ((2^24 + 1) - 2^24) + 1 = 1; column order would give 2.
TEST(InterpReduce, SumOrderIgnoresAxesAttributeOrder) {
  Tensor x = from_bits("tensor<f32, 2x2>", {0x4B800000, 0x3F800000, 0xCB800000, 0x3F800000});
  EXPECT_EQ(ok_bits(run_op("reduce_sum %a axes[1, 0]", "tensor<f32>", {x})), (Bits{0x3F800000}));
  EXPECT_EQ(ok_bits(run_op("reduce_sum %a axes[0, 1]", "tensor<f32>", {x})), (Bits{0x3F800000}));
}

/// f16 sums accumulate in f32 by default: 2048 + 1 + 1 = 2050 (0x6801); accum[f16] rounds each step (0x6800).
TEST(InterpReduce, HalfPrecisionAccumulation) {
  Tensor h = from_bits("tensor<f16, 3>", {0x6800, 0x3C00, 0x3C00});
  EXPECT_EQ(ok_bits(run_op("reduce_sum %a axes[0]", "tensor<f16>", {h})), (Bits{0x6801}));
  EXPECT_EQ(ok_bits(run_op("reduce_sum %a axes[0] accum[f16]", "tensor<f16>", {h})), (Bits{0x6800}));
  // bf16: 256 + 1 + 1 = 258 (0x4381) in f32, 256 (0x4380) in bf16.
  Tensor b = from_bits("tensor<bf16, 3>", {0x4380, 0x3F80, 0x3F80});
  EXPECT_EQ(ok_bits(run_op("reduce_sum %a axes[0]", "tensor<bf16>", {b})), (Bits{0x4381}));
  EXPECT_EQ(ok_bits(run_op("reduce_sum %a axes[0] accum[bf16]", "tensor<bf16>", {b})), (Bits{0x4380}));
}

/// Empty reductions: sum +0, max -inf, min +inf; integers 0, MIN, MAX.
TEST(InterpReduce, EmptyReductions) {
  Tensor e = lit("dense<[[], []]> : tensor<f32, 2x0>");
  EXPECT_EQ(ok_bits(run_op("reduce_sum %a axes[1]", "tensor<f32, 2>", {e})), (Bits{0, 0}));
  EXPECT_EQ(ok_bits(run_op("reduce_max %a axes[1]", "tensor<f32, 2>", {e})), (Bits{0xFF800000, 0xFF800000}));
  EXPECT_EQ(ok_bits(run_op("reduce_min %a axes[1]", "tensor<f32, 2>", {e})), (Bits{0x7F800000, 0x7F800000}));
  EXPECT_EQ(ok_bits(run_op("reduce_max %a axes[0]", "tensor<si32>", {lit("dense<[]> : tensor<si32, 0>")})), (Bits{0x80000000}));
  EXPECT_EQ(ok_bits(run_op("reduce_min %a axes[0]", "tensor<ui8>", {lit("dense<[]> : tensor<ui8, 0>")})), (Bits{0xFF}));
  EXPECT_EQ(ok_bits(run_op("reduce_sum %a axes[0]", "tensor<si64>", {lit("dense<[]> : tensor<si64, 0>")})), (Bits{0}));
  EXPECT_EQ(ok_bits(run_op("reduce_max %a axes[0]", "tensor<f16>", {lit("dense<[]> : tensor<f16, 0>")})), (Bits{0xFC00}));
}

/// reduce_max/min propagate NaN and order -0 < +0; the sum of -0 and -0 stays -0.
TEST(InterpReduce, MaxMinNanAndZeros) {
  EXPECT_EQ(ok_bits(run_op("reduce_max %a axes[0]", "tensor<f32>", {from_bits("tensor<f32, 3>", {0x3F800000, 0x7FC00000, 0x40000000})})),
            (Bits{0x7FC00000}));
  Tensor z = from_bits("tensor<f32, 2>", {0x80000000, 0x00000000});
  EXPECT_EQ(ok_bits(run_op("reduce_max %a axes[0]", "tensor<f32>", {z})), (Bits{0x00000000}));
  EXPECT_EQ(ok_bits(run_op("reduce_min %a axes[0]", "tensor<f32>", {z})), (Bits{0x80000000}));
  EXPECT_EQ(ok_bits(run_op("reduce_sum %a axes[0]", "tensor<f32>", {from_bits("tensor<f32, 2>", {0x80000000, 0x80000000})})),
            (Bits{0x80000000}));
}

/// Integer sums wrap; max/min follow signedness; keepdims keeps a 1.
TEST(InterpReduce, IntegersAndKeepdims) {
  EXPECT_EQ(ok_bits(run_op("reduce_sum %a axes[0]", "tensor<si8>", {lit("dense<[100, 100]> : tensor<si8, 2>")})), (Bits{0xC8}));
  EXPECT_EQ(ok_bits(run_op("reduce_max %a axes[1] keepdims[true]", "tensor<ui8, 2x1>",
                           {lit("dense<[[1, 255], [7, 3]]> : tensor<ui8, 2x2>")})),
            (Bits{255, 7}));
  EXPECT_EQ(ok_bits(run_op("reduce_min %a axes[0]", "tensor<si16, 2>", {lit("dense<[[1, -5], [-32768, 3]]> : tensor<si16, 2x2>")})),
            (Bits{0x8000, 0xFFFB}));
  EXPECT_EQ(ok_bits(run_op("reduce_sum %a axes[]", "tensor<si32, 2>", {lit("dense<[4, 5]> : tensor<si32, 2>")})), (Bits{4, 5}));
}

/// argmax: the first maximum; NaN beats everything (first NaN wins); +0 beats -0.
TEST(InterpReduce, Argmax) {
  EXPECT_EQ(ok_bits(run_op("argmax %a axis[0]", "tensor<si32>", {from_bits("tensor<f32, 4>", {0x3F800000, 0x7FC00000, 0x40400000, 0xFFC00000})})),
            (Bits{1}));
  EXPECT_EQ(ok_bits(run_op("argmax %a axis[0]", "tensor<si64>", {from_bits("tensor<f32, 2>", {0x80000000, 0x00000000})})), (Bits{1}));
  EXPECT_EQ(ok_bits(run_op("argmax %a axis[0]", "tensor<ui8>", {lit("dense<[3.0, 3.0, 1.0]> : tensor<f64, 3>")})), (Bits{0}));
  EXPECT_EQ(ok_bits(run_op("argmax %a axis[0] keepdims[true]", "tensor<si32, 1x3>",
                           {lit("dense<[[1, 9, -1], [5, 9, -2]]> : tensor<si8, 2x3>")})),
            (Bits{1, 0, 0}));
  EXPECT_EQ(ok_bits(run_op("argmax %a axis[1]", "tensor<si32, 0>", {lit("dense<[]> : tensor<f32, 0x0>")})), (Bits{}));
}

/// segment_reduce: rows fold into their segment in row order; empty segments give 0 / -inf; ids out of
/// range are UB.
TEST(InterpReduce, SegmentReduce) {
  Tensor x = lit("dense<[1.0, 2.0, 3.0, 4.0]> : tensor<f32, 4>");
  Tensor ids = lit("dense<[0, 2, 0, 2]> : tensor<si32, 4>");
  EXPECT_EQ(ok_bits(run_op("segment_reduce %a, %b kind[sum] num_segments[3]", "tensor<f32, 3>", {x, ids})),
            lit_bits("dense<[4.0, 0.0, 6.0]> : tensor<f32, 3>"));
  EXPECT_EQ(ok_bits(run_op("segment_reduce %a, %b kind[max] num_segments[3]", "tensor<f32, 3>", {x, ids})),
            lit_bits("dense<[3.0, -inf, 4.0]> : tensor<f32, 3>"));
  EXPECT_EQ(ok_bits(run_op("segment_reduce %a, %b kind[max] num_segments[2]", "tensor<si8, 2x2>",
                           {lit("dense<[[1, 2], [3, -4]]> : tensor<si8, 2x2>"), lit("dense<[1, 1]> : tensor<ui8, 2>")})),
            (Bits{0x80, 0x80, 3, 2}));
  for (const char* bad : {"dense<[0, 3, 0, 0]> : tensor<si32, 4>", "dense<[0, -1, 0, 0]> : tensor<si32, 4>"}) {
    RunResult r = run_op("segment_reduce %a, %b kind[sum] num_segments[3]", "tensor<f32, 3>", {x, lit(bad)});
    EXPECT_EQ(r.status, RunStatus::UB) << bad;
    EXPECT_NE(r.message.find("row 1"), std::string::npos) << r.message;
  }
}

}  // namespace
}  // namespace ptir::test
