/// Verifier rules of the window family: extract_patches (im2col) and reduce_window output sizes,
/// list lengths, the >= 1 rules of windows, strides and dilations, and negative padding.
#include "tests/ir/verifier_util.h"

namespace ptir {
namespace {
using testing_verifier::op_error;

TEST(VerifierWindow, ExtractPatchesHasOnePatchRowPerWindowPosition) {
  const char* x = "%x: tensor<f32, 4x4>";
  EXPECT_EQ(op_error(x, "extract_patches %x window[2, 2] -> tensor<f32, 3x3x4>"), "");
  EXPECT_EQ(op_error(x, "extract_patches %x window[2, 2] strides[2, 2] pad_low[1, 1] pad_high[1, 1] value[0.5] "
                        "-> tensor<f32, 3x3x4>"),
            "");
  EXPECT_EQ(op_error(x, "extract_patches %x window[2, 2] dilation[2, 1] -> tensor<f32, 2x3x4>"), "");
  EXPECT_EQ(op_error(x, "extract_patches %x window[5, 1] -> tensor<f32, 0x4x5>"), "");
  EXPECT_EQ(op_error(x, "extract_patches %x window[1, 1] pad_low[-1, 0] -> tensor<f32, 3x4x1>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32>", "extract_patches %x window[] -> tensor<f32, 1>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32, 0x3>", "extract_patches %x window[1, 1] -> tensor<f32, 0x3x1>"), "");
  EXPECT_EQ(op_error(x, "extract_patches %x window[2, 2] -> tensor<f32, 3x3x2>"),
            "extract_patches: result has type tensor<f32, 3x3x2>, expected tensor<f32, 3x3x4>");
  EXPECT_EQ(op_error(x, "extract_patches %x window[6, 1] -> tensor<f32, 0x4x6>"),
            "extract_patches: dim 0 would have -1 windows (padded size 4, window extent 6, stride 1)");
  EXPECT_EQ(op_error(x, "extract_patches %x window[0, 1] -> tensor<f32, 5x4x0>"),
            "extract_patches: window entry 0 is 0, expected >= 1");
  EXPECT_EQ(op_error(x, "extract_patches %x window[1, 1] strides[1] -> tensor<f32, 4x4x1>"),
            "extract_patches: strides has 1 entry, expected 2 (the rank of operand 0)");
  EXPECT_EQ(op_error(x, "extract_patches %x window[1, 1] dilation[1, 0] -> tensor<f32, 4x4x1>"),
            "extract_patches: dilation entry 1 is 0, expected >= 1");
  EXPECT_EQ(op_error(x, "extract_patches %x window[1, 1] pad_low[-5, 0] -> tensor<f32, 0x4x1>"),
            "extract_patches: dim 0 has padded size -1, expected >= 0");
  EXPECT_EQ(op_error("%x: tensor<f32, 4>", "extract_patches %x window[9223372036854775807] -> tensor<f32, 0x1>"),
            "extract_patches: dim 0: window is 9223372036854775807, beyond the geometry limit 2^61 (docs/semantics.md)");
}

// Positions are computed in 64 bits (ir/index_map.cpp): every geometry quantity within 2^61 keeps each
// sum of them in range. An adversarial review built reduce_window and pad programs whose positions
// wrapped (a base dilation of 2^63 / 3, an interior of 2^63 - 1): the interpreter returned another value
// than the semantics and check-equiv proved it. Those programs are refused now; the limit itself is
// accepted.
TEST(VerifierWindow, GeometryBeyondTwoToThe61IsRefused) {
  const std::string lim = "2305843009213693952", over = "2305843009213693953";
  EXPECT_EQ(op_error("%x: tensor<si64, 4>", "reduce_window %x kind[sum] window[2] strides[3074457345618258603] "
                                             "pad_low[2] pad_high[-9223372036854775807] base_dilation[3074457345618258603] "
                                             "window_dilation[2] -> tensor<si64, 1>"),
            "reduce_window: dim 0: stride is 3074457345618258603, beyond the geometry limit 2^61 (docs/semantics.md)");
  EXPECT_EQ(op_error("%x: tensor<si64, 4>", "reduce_window %x kind[sum] window[1] strides[" + lim + "] -> tensor<si64, 1>"), "");
  EXPECT_EQ(op_error("%x: tensor<si64, 4>", "reduce_window %x kind[sum] window[1] strides[" + over + "] -> tensor<si64, 1>"),
            "reduce_window: dim 0: stride is " + over + ", beyond the geometry limit 2^61 (docs/semantics.md)");
  EXPECT_EQ(op_error("%x: tensor<si64, 4>", "reduce_window %x kind[sum] window[1] pad_low[-" + over + "] -> tensor<si64, 1>"),
            "reduce_window: dim 0: pad_low is -" + over + ", beyond the geometry limit 2^61 (docs/semantics.md)");
  // Each entry within the limit, the dilated size (3 * 2^60 + 1) beyond it.
  EXPECT_EQ(op_error("%x: tensor<si64, 4>", "reduce_window %x kind[sum] window[1] strides[" + lim +
                                                 "] base_dilation[1152921504606846976] -> tensor<si64, 2>"),
            "reduce_window: dim 0: the dilated size is 3458764513820540929, beyond the geometry limit 2^61 "
            "(docs/semantics.md)");
  EXPECT_EQ(op_error("%x: tensor<f32, 2>", "extract_patches %x window[2] dilation[" + over + "] -> tensor<f32, 0x2>"),
            "extract_patches: dim 0: window dilation is " + over + ", beyond the geometry limit 2^61 (docs/semantics.md)");
  EXPECT_EQ(op_error("%x: tensor<f32, 2>", "pad %x low[-9223372036854775807] high[0] interior[9223372036854775807] "
                                            "value[7.0] -> tensor<f32, 2>"),
            "pad: dim 0: low is -9223372036854775807, beyond the geometry limit 2^61 (docs/semantics.md)");
  EXPECT_EQ(op_error("%x: tensor<f32, 3>", "pad %x low[0] high[0] interior[" + lim + "] -> tensor<f32, 4>"),
            "pad: dim 0: the interior-padded size is 4611686018427387907, beyond the geometry limit 2^61 "
            "(docs/semantics.md)");
  EXPECT_EQ(op_error("%x: tensor<f32, 2>", "pad %x low[-" + lim + "] high[" + lim + "] -> tensor<f32, 2>"), "");
}

TEST(VerifierWindow, ReduceWindowFollowsXlaWindowShapes) {
  const char* x = "%x: tensor<f32, 4x6>";
  EXPECT_EQ(op_error(x, "reduce_window %x kind[max] window[2, 2] strides[2, 2] -> tensor<f32, 2x3>"), "");
  EXPECT_EQ(op_error(x, "reduce_window %x kind[sum] window[2, 1] strides[2, 1] base_dilation[2, 1] -> tensor<f32, 3x6>"),
            "");
  EXPECT_EQ(op_error(x, "reduce_window %x kind[min] window[2, 2] window_dilation[3, 1] pad_low[1, 0] pad_high[1, -1] "
                        "-> tensor<f32, 3x4>"),
            "");
  EXPECT_EQ(op_error("%x: tensor<si32>", "reduce_window %x kind[sum] window[] -> tensor<si32>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32, 0>", "reduce_window %x kind[sum] window[1] -> tensor<f32, 0>"), "");
  EXPECT_EQ(op_error(x, "reduce_window %x kind[max] window[2, 2] strides[2, 2] -> tensor<f32, 2x2>"),
            "reduce_window: result has type tensor<f32, 2x2>, expected tensor<f32, 2x3>");
  EXPECT_EQ(op_error(x, "reduce_window %x kind[max] window[2, 2] base_dilation[0, 1] -> tensor<f32, 3x5>"),
            "reduce_window: base_dilation entry 0 is 0, expected >= 1");
  EXPECT_EQ(op_error(x, "reduce_window %x kind[max] window[2, 2] strides[1, -1] -> tensor<f32, 3x5>"),
            "reduce_window: strides entry 1 is -1, expected >= 1");
  EXPECT_EQ(op_error(x, "reduce_window %x kind[max] window[2] -> tensor<f32, 3>"),
            "reduce_window: window has 1 entry, expected 2 (the rank of operand 0)");
  EXPECT_EQ(op_error("%x: tensor<i1, 4>", "reduce_window %x kind[max] window[2] -> tensor<i1, 3>"),
            "reduce_window: operand 0 has dtype i1, expected a number dtype (i1 arithmetic is not allowed)");
  EXPECT_EQ(op_error(x, "reduce_window %x kind[sum] window[9, 1] -> tensor<f32, 0x6>"),
            "reduce_window: dim 0 would have -4 windows (padded size 4, window extent 9, stride 1)");
}

}  // namespace
}  // namespace ptir
