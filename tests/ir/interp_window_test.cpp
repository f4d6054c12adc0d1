// Window ops: extract_patches (im2col with strides, dilation, padding value) and reduce_window (only real
// elements are folded, padding and base-dilation holes skipped; empty windows give the identity).
#include "tests/ir/interp_test_util.h"

namespace ptir::test {
namespace {

const char* kX4 = "dense<[1.0, 2.0, 3.0, 4.0]> : tensor<f32, 4>";

/// Non-overlapping 1-D patches, padded patches with a value, and dilated patches.
TEST(InterpWindow, ExtractPatches1D) {
  EXPECT_EQ(ok_bits(run_op("extract_patches %a window[2] strides[2]", "tensor<f32, 2x2>", {lit(kX4)})),
            lit_bits("dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<f32, 2x2>"));
  EXPECT_EQ(ok_bits(run_op("extract_patches %a window[2] pad_low[1] pad_high[1] value[9.0]", "tensor<f32, 5x2>", {lit(kX4)})),
            lit_bits("dense<[[9.0, 1.0], [1.0, 2.0], [2.0, 3.0], [3.0, 4.0], [4.0, 9.0]]> : tensor<f32, 5x2>"));
  EXPECT_EQ(ok_bits(run_op("extract_patches %a window[2] dilation[2]", "tensor<f32, 2x2>", {lit(kX4)})),
            lit_bits("dense<[[1.0, 3.0], [2.0, 4.0]]> : tensor<f32, 2x2>"));
}

/// A 2x2 window over a 2x3 input: patches are flattened row-major inside the window.
TEST(InterpWindow, ExtractPatches2D) {
  EXPECT_EQ(ok_bits(run_op("extract_patches %a window[2, 2]", "tensor<si32, 1x2x4>",
                           {lit("dense<[[1, 2, 3], [4, 5, 6]]> : tensor<si32, 2x3>")})),
            lit_bits("dense<[[[1, 2, 4, 5], [2, 3, 5, 6]]]> : tensor<si32, 1x2x4>"));
  // The default padding value is 0; the window is larger than the input along dim 0 without padding: no patches.
  EXPECT_EQ(ok_bits(run_op("extract_patches %a window[3, 1]", "tensor<si32, 0x3x3>",
                           {lit("dense<[[1, 2, 3], [4, 5, 6]]> : tensor<si32, 2x3>")})),
            (Bits{}));
  EXPECT_EQ(ok_bits(run_op("extract_patches %a window[] ", "tensor<f16, 1>", {from_bits("tensor<f16>", {0x7E01})})), (Bits{0x7E01}));
}

/// reduce_window sums, strides, window dilation.
TEST(InterpWindow, ReduceWindowBasic) {
  EXPECT_EQ(ok_bits(run_op("reduce_window %a kind[sum] window[2]", "tensor<f32, 3>", {lit(kX4)})),
            lit_bits("dense<[3.0, 5.0, 7.0]> : tensor<f32, 3>"));
  EXPECT_EQ(ok_bits(run_op("reduce_window %a kind[sum] window[2] strides[2]", "tensor<si32, 2>",
                           {lit("dense<[1, 2, 3, 4, 5]> : tensor<si32, 5>")})),
            (Bits{3, 7}));
  EXPECT_EQ(ok_bits(run_op("reduce_window %a kind[sum] window[2] window_dilation[2]", "tensor<f32, 2>", {lit(kX4)})),
            lit_bits("dense<[4.0, 6.0]> : tensor<f32, 2>"));
}

/// Padding is skipped, not folded: a window over padding only gives the identity.
TEST(InterpWindow, ReduceWindowPaddingIsSkipped) {
  EXPECT_EQ(ok_bits(run_op("reduce_window %a kind[max] window[2] pad_low[1]", "tensor<f32, 4>", {lit(kX4)})), lit_bits(kX4));
  Tensor x = lit("dense<[1.0, 2.0]> : tensor<f32, 2>");
  EXPECT_EQ(ok_bits(run_op("reduce_window %a kind[max] window[1] pad_low[2]", "tensor<f32, 4>", {x})),
            lit_bits("dense<[-inf, -inf, 1.0, 2.0]> : tensor<f32, 4>"));
  EXPECT_EQ(ok_bits(run_op("reduce_window %a kind[sum] window[1] pad_low[2]", "tensor<f32, 4>", {x})),
            lit_bits("dense<[0.0, 0.0, 1.0, 2.0]> : tensor<f32, 4>"));
  EXPECT_EQ(ok_bits(run_op("reduce_window %a kind[min] window[1] pad_high[1]", "tensor<si8, 2>", {lit("dense<[1]> : tensor<si8, 1>")})),
            (Bits{1, 127}));
}

/// Base dilation inserts holes that are skipped: [1, _, 2, _, 3] with window 2 sums to [1, 2, 2, 3].
TEST(InterpWindow, ReduceWindowBaseDilation) {
  EXPECT_EQ(ok_bits(run_op("reduce_window %a kind[sum] window[2] base_dilation[2]", "tensor<si32, 4>",
                           {lit("dense<[1, 2, 3]> : tensor<si32, 3>")})),
            (Bits{1, 2, 2, 3}));
}

/// Sums start from the first real element (-0 stays -0) and accumulate f16 in f32.
TEST(InterpWindow, ReduceWindowFoldRules) {
  EXPECT_EQ(ok_bits(run_op("reduce_window %a kind[sum] window[1]", "tensor<f32, 1>", {from_bits("tensor<f32, 1>", {0x80000000})})),
            (Bits{0x80000000}));
  EXPECT_EQ(ok_bits(run_op("reduce_window %a kind[sum] window[3]", "tensor<f16, 1>", {from_bits("tensor<f16, 3>", {0x6800, 0x3C00, 0x3C00})})),
            (Bits{0x6801}));
  EXPECT_EQ(ok_bits(run_op("reduce_window %a kind[max] window[2]", "tensor<f32, 1>", {from_bits("tensor<f32, 2>", {0x80000000, 0})})),
            (Bits{0}));
}

}  // namespace
}  // namespace ptir::test
