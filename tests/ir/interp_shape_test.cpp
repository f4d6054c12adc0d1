// Shape ops move elements and never change a bit: reshape, transpose, broadcast_to, slice, concat, pad,
// tile, iota, constant — including empty and rank-0 tensors and NaN payloads.
#include "tests/ir/interp_test_util.h"

namespace ptir::test {
namespace {

/// reshape keeps row-major order and bit patterns (NaN payload, -0.0).
TEST(InterpShape, Reshape) {
  Tensor x = from_bits("tensor<f32, 2x2>", {0x7FC00001, 0x80000000, 1, 2});
  EXPECT_EQ(ok_bits(run_op("reshape %a", "tensor<f32, 4>", {x})), (Bits{0x7FC00001, 0x80000000, 1, 2}));
  EXPECT_EQ(ok_bits(run_op("reshape %a", "tensor<si8, 1x1>", {lit("dense<-3> : tensor<si8>")})), (Bits{0xFD}));
  EXPECT_EQ(ok_bits(run_op("reshape %a", "tensor<f16, 3x0>", {lit("dense<[]> : tensor<f16, 0>")})), (Bits{}));
}

/// transpose perm[1, 0] of a 2x3, and a rank-3 permutation.
TEST(InterpShape, Transpose) {
  EXPECT_EQ(ok_bits(run_op("transpose %a perm[1, 0]", "tensor<si32, 3x2>",
                           {lit("dense<[[1, 2, 3], [4, 5, 6]]> : tensor<si32, 2x3>")})),
            lit_bits("dense<[[1, 4], [2, 5], [3, 6]]> : tensor<si32, 3x2>"));
  // x[i][j][k] = 100i + 10j + k with dims 2x1x3; perm[2, 0, 1] gives dims 3x2x1 with r[k][i][j] = x[i][j][k].
  EXPECT_EQ(ok_bits(run_op("transpose %a perm[2, 0, 1]", "tensor<si16, 3x2x1>",
                           {lit("dense<[[[0, 1, 2]], [[100, 101, 102]]]> : tensor<si16, 2x1x3>")})),
            lit_bits("dense<[[[0], [100]], [[1], [101]], [[2], [102]]]> : tensor<si16, 3x2x1>"));
  EXPECT_EQ(ok_bits(run_op("transpose %a perm[1, 0]", "tensor<f32, 3x0>", {lit("dense<[]> : tensor<f32, 0x3>")})), (Bits{}));
}

/// broadcast_to is right-aligned numpy broadcasting: [3] -> 2x3, 2x1 -> 2x3, scalar -> 2x2.
TEST(InterpShape, BroadcastTo) {
  EXPECT_EQ(ok_bits(run_op("broadcast_to %a", "tensor<ui8, 2x3>", {lit("dense<[1, 2, 3]> : tensor<ui8, 3>")})),
            lit_bits("dense<[[1, 2, 3], [1, 2, 3]]> : tensor<ui8, 2x3>"));
  EXPECT_EQ(ok_bits(run_op("broadcast_to %a", "tensor<ui8, 2x3>", {lit("dense<[[1], [2]]> : tensor<ui8, 2x1>")})),
            lit_bits("dense<[[1, 1, 1], [2, 2, 2]]> : tensor<ui8, 2x3>"));
  EXPECT_EQ(ok_bits(run_op("broadcast_to %a", "tensor<bf16, 2x2>", {from_bits("tensor<bf16>", {0xFFC1})})),
            (Bits{0xFFC1, 0xFFC1, 0xFFC1, 0xFFC1}));
  EXPECT_EQ(ok_bits(run_op("broadcast_to %a", "tensor<f32, 0x2>", {lit("dense<[1.0, 2.0]> : tensor<f32, 2>")})), (Bits{}));
}

/// slice takes starts and the result dims as sizes.
TEST(InterpShape, Slice) {
  EXPECT_EQ(ok_bits(run_op("slice %a starts[1, 1]", "tensor<si32, 1x2>",
                           {lit("dense<[[1, 2, 3], [4, 5, 6]]> : tensor<si32, 2x3>")})),
            lit_bits("dense<[[5, 6]]> : tensor<si32, 1x2>"));
  EXPECT_EQ(ok_bits(run_op("slice %a starts[3]", "tensor<si32, 0>", {lit("dense<[1, 2, 3]> : tensor<si32, 3>")})), (Bits{}));
}

/// concat along axis 1, with an empty operand in the middle.
TEST(InterpShape, Concat) {
  EXPECT_EQ(ok_bits(run_op("concat %a, %b, %c axis[1]", "tensor<si8, 2x3>",
                           {lit("dense<[[1], [2]]> : tensor<si8, 2x1>"), lit("dense<[[], []]> : tensor<si8, 2x0>"),
                            lit("dense<[[3, 4], [5, 6]]> : tensor<si8, 2x2>")})),
            lit_bits("dense<[[1, 3, 4], [2, 5, 6]]> : tensor<si8, 2x3>"));
  EXPECT_EQ(ok_bits(run_op("concat %a, %b axis[0]", "tensor<f64, 2>",
                           {from_bits("tensor<f64, 1>", {0x8000000000000000}), from_bits("tensor<f64, 1>", {0x7FF0000000000001})})),
            (Bits{0x8000000000000000, 0x7FF0000000000001}));
}

/// pad: low 1, high -1 (crops), interior 1, value 9: [1, 2, 3] -> [9, 1, 9, 2, 9].
TEST(InterpShape, PadNegativeHighAndInterior) {
  EXPECT_EQ(ok_bits(run_op("pad %a low[1] high[-1] interior[1] value[9.0]", "tensor<f32, 5>",
                           {lit("dense<[1.0, 2.0, 3.0]> : tensor<f32, 3>")})),
            lit_bits("dense<[9.0, 1.0, 9.0, 2.0, 9.0]> : tensor<f32, 5>"));
  // Default value is +0; a 2-D pad with negative low crops the first row.
  EXPECT_EQ(ok_bits(run_op("pad %a low[-1, 1] high[0, 0]", "tensor<si32, 1x3>",
                           {lit("dense<[[1, 2], [3, 4]]> : tensor<si32, 2x2>")})),
            lit_bits("dense<[[0, 3, 4]]> : tensor<si32, 1x3>"));
  EXPECT_EQ(ok_bits(run_op("pad %a low[2] high[0] value[-0.0]", "tensor<f32, 2>", {lit("dense<[]> : tensor<f32, 0>")})),
            (Bits{0x80000000, 0x80000000}));
}

/// tile repeats the operand along each dim.
TEST(InterpShape, Tile) {
  EXPECT_EQ(ok_bits(run_op("tile %a repeats[3]", "tensor<si8, 6>", {lit("dense<[1, 2]> : tensor<si8, 2>")})),
            (Bits{1, 2, 1, 2, 1, 2}));
  EXPECT_EQ(ok_bits(run_op("tile %a repeats[1, 2]", "tensor<si8, 2x2>", {lit("dense<[[1], [2]]> : tensor<si8, 2x1>")})),
            lit_bits("dense<[[1, 1], [2, 2]]> : tensor<si8, 2x2>"));
  EXPECT_EQ(ok_bits(run_op("tile %a repeats[0]", "tensor<si8, 0>", {lit("dense<[1, 2]> : tensor<si8, 2>")})), (Bits{}));
}

/// iota counts along its axis, converted to the result dtype.
TEST(InterpShape, Iota) {
  EXPECT_EQ(ok_bits(run_text("func @main() -> tensor<si32, 2x3> {\n %r = iota axis[1] -> tensor<si32, 2x3>\n return %r\n}")),
            lit_bits("dense<[[0, 1, 2], [0, 1, 2]]> : tensor<si32, 2x3>"));
  EXPECT_EQ(ok_bits(run_text("func @main() -> tensor<f16, 2x2> {\n %r = iota axis[0] -> tensor<f16, 2x2>\n return %r\n}")),
            (Bits{0x0000, 0x0000, 0x3C00, 0x3C00}));
}

/// constant returns its literal bit for bit; literal operands work anywhere.
TEST(InterpShape, Constant) {
  RunResult r = run_text(
      "func @main() -> (tensor<f32, 2>, tensor<f32, 2>) {\n"
      "  %c = constant dense<[0x7FC00005, -0.0]> : tensor<f32, 2> -> tensor<f32, 2>\n"
      "  %d = add %c, dense<1.0> : tensor<f32, 2> -> tensor<f32, 2>\n"
      "  return %c, %d\n}\n");
  EXPECT_EQ(ok_bits(r, 0), (Bits{0x7FC00005, 0x80000000}));
  EXPECT_EQ(ok_bits(r, 1), (Bits{0x7FC00000, 0x3F800000}));
}

}  // namespace
}  // namespace ptir::test
