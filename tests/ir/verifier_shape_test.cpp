/// Verifier rules of the shape family: the exact result dims of reshape, transpose, broadcast_to, slice,
/// concat, pad (negative low/high crop), tile and iota, and the attribute rules behind them.
#include "tests/ir/verifier_util.h"

namespace ptir {
namespace {
using testing_verifier::op_error;

TEST(VerifierShape, ReshapeKeepsTheElementCount) {
  EXPECT_EQ(op_error("%x: tensor<f32, 2x3>", "reshape %x -> tensor<f32, 3x2>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32, 1x1>", "reshape %x -> tensor<f32>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32, 0x3>", "reshape %x -> tensor<f32, 3x0x5>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32, 2x3>", "reshape %x shape[6] -> tensor<f32, 6>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32, 2x3>", "reshape %x -> tensor<f32, 4x2>"),
            "reshape: result type tensor<f32, 4x2> has 8 elements, operand 0 (tensor<f32, 2x3>) has 6");
  EXPECT_EQ(op_error("%x: tensor<f32, 2x3>", "reshape %x -> tensor<si32, 6>"),
            "reshape: result has dtype si32, expected f32 (the dtype of operand 0)");
  EXPECT_EQ(op_error("%x: tensor<f32, 2x3>", "reshape %x shape[3, 2] -> tensor<f32, 6>"),
            "reshape: shape[3, 2] differs from the result dims [6]");
}

TEST(VerifierShape, TransposePermutesTheDims) {
  EXPECT_EQ(op_error("%x: tensor<f32, 2x3x4>", "transpose %x perm[2, 0, 1] -> tensor<f32, 4x2x3>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32>", "transpose %x perm[] -> tensor<f32>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32, 0x3>", "transpose %x perm[1, 0] -> tensor<f32, 3x0>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32, 2x3>", "transpose %x perm[1, 1] -> tensor<f32, 3x3>"),
            "transpose: perm[1, 1] is not a permutation of 0..1");
  EXPECT_EQ(op_error("%x: tensor<f32, 2x3>", "transpose %x perm[-1, 0] -> tensor<f32, 3x2>"),
            "transpose: perm[-1, 0] is not a permutation of 0..1");
  EXPECT_EQ(op_error("%x: tensor<f32, 2x3>", "transpose %x perm[0, 9223372036854775807] -> tensor<f32, 3x2>"),
            "transpose: perm[0, 9223372036854775807] is not a permutation of 0..1");
  EXPECT_EQ(op_error("%x: tensor<f32, 2x3>", "transpose %x perm[0] -> tensor<f32, 2x3>"),
            "transpose: perm has 1 entry, expected 2 (the rank of operand 0)");
  EXPECT_EQ(op_error("%x: tensor<f32, 2x3>", "transpose %x perm[1, 0] -> tensor<f32, 2x3>"),
            "transpose: result has type tensor<f32, 2x3>, expected tensor<f32, 3x2>");
}

TEST(VerifierShape, BroadcastToIsRightAligned) {
  EXPECT_EQ(op_error("%x: tensor<f32, 3>", "broadcast_to %x -> tensor<f32, 2x3>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32, 2x1>", "broadcast_to %x -> tensor<f32, 4x2x5>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32>", "broadcast_to %x shape[2, 0] -> tensor<f32, 2x0>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32, 1>", "broadcast_to %x -> tensor<f32, 0>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32, 3>", "broadcast_to %x -> tensor<f32, 3x4>"),
            "broadcast_to: operand 0 dim 0 (size 3) cannot broadcast to result dim 1 (size 4)");
  EXPECT_EQ(op_error("%x: tensor<f32, 2x3>", "broadcast_to %x -> tensor<f32, 3>"),
            "broadcast_to: operand 0 has rank 2, more than the result's rank 1");
  EXPECT_EQ(op_error("%x: tensor<f32, 3>", "broadcast_to %x -> tensor<f64, 2x3>"),
            "broadcast_to: result has dtype f64, expected f32 (the dtype of operand 0)");
  EXPECT_EQ(op_error("%x: tensor<f32, 3>", "broadcast_to %x shape[3, 3] -> tensor<f32, 2x3>"),
            "broadcast_to: shape[3, 3] differs from the result dims [2, 3]");
}

TEST(VerifierShape, SliceStaysInBounds) {
  EXPECT_EQ(op_error("%x: tensor<f32, 4x5>", "slice %x starts[1, 2] -> tensor<f32, 3x3>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32, 4>", "slice %x starts[4] -> tensor<f32, 0>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32>", "slice %x starts[] -> tensor<f32>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32, 4x5>", "slice %x starts[1, 3] -> tensor<f32, 3x3>"),
            "slice: start 3 + size 3 is out of bounds for dim 1 of size 5");
  EXPECT_EQ(op_error("%x: tensor<f32, 4x5>", "slice %x starts[-1, 0] -> tensor<f32, 3x3>"),
            "slice: starts entry 0 is -1, expected >= 0");
  EXPECT_EQ(op_error("%x: tensor<f32, 4>", "slice %x starts[9223372036854775807] -> tensor<f32, 1>"),
            "slice: start 9223372036854775807 + size 1 is out of bounds for dim 0 of size 4");
  EXPECT_EQ(op_error("%x: tensor<f32, 4x5>", "slice %x starts[0] -> tensor<f32, 3>"),
            "slice: starts has 1 entry, expected 2 (the rank of operand 0)");
  EXPECT_EQ(op_error("%x: tensor<f32, 4x5>", "slice %x starts[0, 0] -> tensor<f32, 3>"),
            "slice: result has rank 1, expected 2 (the rank of operand 0)");
}

TEST(VerifierShape, ConcatAddsUpAlongTheAxis) {
  EXPECT_EQ(op_error("%x: tensor<f32, 2x3>, %y: tensor<f32, 2x1>", "concat %x, %y axis[1] -> tensor<f32, 2x4>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32, 0x3>", "concat %x axis[0] -> tensor<f32, 0x3>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32, 2x3>, %y: tensor<f32, 2x1>", "concat %x, %y axis[1] -> tensor<f32, 2x5>"),
            "concat: result has type tensor<f32, 2x5>, expected tensor<f32, 2x4>");
  EXPECT_EQ(op_error("%x: tensor<f32, 2x3>, %y: tensor<f32, 3x3>", "concat %x, %y axis[1] -> tensor<f32, 2x6>"),
            "concat: operand 1 has type tensor<f32, 3x3>, expected the dtype and dims of operand 0 (tensor<f32, 2x3>) "
            "except along axis 1");
  EXPECT_EQ(op_error("%x: tensor<f32, 2>", "concat %x, %x axis[1] -> tensor<f32, 4>"),
            "concat: axis[1] is out of range for rank 1");
  EXPECT_EQ(op_error("%x: tensor<f32>", "concat %x axis[0] -> tensor<f32>"), "concat: axis[0] is out of range for rank 0");
}

TEST(VerifierShape, PadComputesLowPlusHighPlusInterior) {
  EXPECT_EQ(op_error("%x: tensor<f32, 3>", "pad %x low[1] high[2] interior[1] -> tensor<f32, 8>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32, 4x4>", "pad %x low[-1, 0] high[0, -3] value[1.5] -> tensor<f32, 3x1>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32, 0>", "pad %x low[1] high[1] interior[5] -> tensor<f32, 2>"), "");
  EXPECT_EQ(op_error("%x: tensor<si32>", "pad %x low[] high[] value[7] -> tensor<si32>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32, 3>", "pad %x low[1] high[2] interior[1] -> tensor<f32, 6>"),
            "pad: result has type tensor<f32, 6>, expected tensor<f32, 8>");
  EXPECT_EQ(op_error("%x: tensor<f32, 3>", "pad %x low[-2] high[-2] -> tensor<f32, 0>"),
            "pad: result dim 0 would have size -1 (low + high + the interior-padded dim)");
  EXPECT_EQ(op_error("%x: tensor<f32, 3>", "pad %x low[0] high[0] interior[-1] -> tensor<f32, 3>"),
            "pad: interior entry 0 is -1, expected >= 0");
  EXPECT_EQ(op_error("%x: tensor<f32, 3>", "pad %x low[0, 0] high[0] -> tensor<f32, 3>"),
            "pad: low has 2 entries, expected 1 (the rank of operand 0)");
  EXPECT_EQ(op_error("%x: tensor<f32, 3>", "pad %x low[0] high[0] interior[] -> tensor<f32, 3>"),
            "pad: interior has 0 entries, expected 1 (the rank of operand 0)");
  EXPECT_EQ(op_error("%x: tensor<f32, 3>",
                     "pad %x low[9223372036854775807] high[9223372036854775807] -> tensor<f32, 3>"),
            "pad: dim 0: low is 9223372036854775807, beyond the geometry limit 2^61 (docs/semantics.md)");
  // Within the geometry limit the result size saturates in the message as before.
  EXPECT_EQ(op_error("%x: tensor<f32, 3>",
                     "pad %x low[2305843009213693952] high[2305843009213693952] -> tensor<f32, 3>"),
            "pad: result has type tensor<f32, 3>, expected tensor<f32, 4611686018427387907>");
}

TEST(VerifierShape, TileMultipliesEachDim) {
  EXPECT_EQ(op_error("%x: tensor<f32, 2x3>", "tile %x repeats[2, 1] -> tensor<f32, 4x3>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32, 2>", "tile %x repeats[0] -> tensor<f32, 0>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32>", "tile %x repeats[] -> tensor<f32>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32, 2x3>", "tile %x repeats[2, 2] -> tensor<f32, 4x3>"),
            "tile: result has type tensor<f32, 4x3>, expected tensor<f32, 4x6>");
  EXPECT_EQ(op_error("%x: tensor<f32, 2>", "tile %x repeats[-1] -> tensor<f32, 2>"),
            "tile: repeats entry 0 is -1, expected >= 0");
  EXPECT_EQ(op_error("%x: tensor<f32, 2>", "tile %x repeats[2, 2] -> tensor<f32, 4>"),
            "tile: repeats has 2 entries, expected 1 (the rank of operand 0)");
}

TEST(VerifierShape, IotaCountsAlongAnAxisThatFitsItsDtype) {
  EXPECT_EQ(op_error("", "iota axis[1] -> tensor<si32, 2x3>"), "");
  EXPECT_EQ(op_error("", "iota axis[0] -> tensor<f32, 0>"), "");
  EXPECT_EQ(op_error("", "iota axis[0] -> tensor<si8, 128>"), "");
  EXPECT_EQ(op_error("", "iota axis[0] -> tensor<bf16, 257>"), "");
  EXPECT_EQ(op_error("", "iota axis[0] -> tensor<si8, 129>"), "iota: result dtype si8 cannot hold index 128 exactly");
  EXPECT_EQ(op_error("", "iota axis[0] -> tensor<bf16, 258>"), "iota: result dtype bf16 cannot hold index 257 exactly");
  EXPECT_EQ(op_error("", "iota axis[2] -> tensor<si32, 2x3>"), "iota: axis[2] is out of range for rank 2");
  EXPECT_EQ(op_error("", "iota axis[-1] -> tensor<si32, 2x3>"), "iota: axis[-1] is out of range for rank 2");
  EXPECT_EQ(op_error("", "iota axis[0] -> tensor<si32>"), "iota: axis[0] is out of range for rank 0");
}

}  // namespace
}  // namespace ptir
