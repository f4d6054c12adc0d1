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
            "extract_patches: dim 0 would have -9223372036854775802 windows (padded size 4, window extent "
            "9223372036854775807, stride 1)");
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
