// top_k: the total order NaN > +inf > ... > +0 > -0 > ... > -inf, ties keep the lower index first, both
// directions, any axis; values keep their bits.
#include "tests/ir/interp_test_util.h"

namespace ptir::test {
namespace {

RunResult top_k(std::string_view attrs, std::string_view vt, std::string_view it, const Tensor& x) {
  std::string text = "func @main(%x: " + to_string(x.type) + ") -> (" + std::string(vt) + ", " + std::string(it) +
                     ") {\n  %v, %i = top_k %x " + std::string(attrs) + " -> (" + std::string(vt) + ", " +
                     std::string(it) + ")\n  return %v, %i\n}\n";
  return run_text(text, {x});
}

/// Largest first: the NaN (payload kept), then the two 3s in index order.
TEST(InterpTopK, LargestWithNanAndTies) {
  Tensor x = from_bits("tensor<f32, 5>", {0x40400000, 0x7FC00001, 0x80000000, 0x00000000, 0x40400000});
  RunResult r = top_k("k[3]", "tensor<f32, 3>", "tensor<si32, 3>", x);
  EXPECT_EQ(ok_bits(r, 0), (Bits{0x7FC00001, 0x40400000, 0x40400000}));
  EXPECT_EQ(ok_bits(r, 1), (Bits{1, 0, 4}));
}

/// Smallest first: -0 before +0, then the first 3.
TEST(InterpTopK, SmallestOrdersSignedZeros) {
  Tensor x = from_bits("tensor<f32, 5>", {0x40400000, 0x7FC00001, 0x80000000, 0x00000000, 0x40400000});
  RunResult r = top_k("k[3] largest[false]", "tensor<f32, 3>", "tensor<si64, 3>", x);
  EXPECT_EQ(ok_bits(r, 0), (Bits{0x80000000, 0x00000000, 0x40400000}));
  EXPECT_EQ(ok_bits(r, 1), (Bits{2, 3, 0}));
}

/// Along axis 0 of a 3x2 integer tensor; unsigned order; default axis is the last.
TEST(InterpTopK, AxesAndIntegers) {
  RunResult r = top_k("k[2] axis[0]", "tensor<si32, 2x2>", "tensor<si32, 2x2>",
                      lit("dense<[[1, 5], [4, 2], [3, 5]]> : tensor<si32, 3x2>"));
  EXPECT_EQ(ok_bits(r, 0), lit_bits("dense<[[4, 5], [3, 5]]> : tensor<si32, 2x2>"));
  EXPECT_EQ(ok_bits(r, 1), lit_bits("dense<[[1, 0], [2, 2]]> : tensor<si32, 2x2>"));
  r = top_k("k[1]", "tensor<ui8, 2x1>", "tensor<ui8, 2x1>", lit("dense<[[255, 1], [0, 7]]> : tensor<ui8, 2x2>"));
  EXPECT_EQ(ok_bits(r, 0), (Bits{255, 7}));
  EXPECT_EQ(ok_bits(r, 1), (Bits{0, 1}));
}

/// k = 0 gives empty results.
TEST(InterpTopK, KZero) {
  RunResult r = top_k("k[0]", "tensor<f32, 0>", "tensor<si32, 0>", lit("dense<[1.0, 2.0]> : tensor<f32, 2>"));
  EXPECT_EQ(ok_bits(r, 0), (Bits{}));
  EXPECT_EQ(ok_bits(r, 1), (Bits{}));
}

}  // namespace
}  // namespace ptir::test
