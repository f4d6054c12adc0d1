// cast: float->float RNE, float->int truncates and saturates (NaN -> 0), int->int saturates, int->float is
// rounded exactly once even from 64-bit integers, i1 <-> numbers. Expected bits are worked out by hand.
#include "tests/ir/interp_test_util.h"

namespace ptir::test {
namespace {

Bits cast(std::string_view from_type, const Bits& in, std::string_view to_type) {
  std::string from(from_type);
  return ok_bits(run_op("cast %a", to_type, {from_bits(from, in)}));
}

/// si64 near 2^63: MAX rounds to 2^63 in f32/bf16/f64 and overflows f16; MIN is exactly -2^63.
TEST(InterpCast, Si64NearTwoToThe63) {
  const Bits in{0x7FFFFFFFFFFFFFFF, 0x8000000000000000};
  EXPECT_EQ(cast("tensor<si64, 2>", in, "tensor<f32, 2>"), (Bits{0x5F000000, 0xDF000000}));
  EXPECT_EQ(cast("tensor<si64, 2>", in, "tensor<f16, 2>"), (Bits{0x7C00, 0xFC00}));
  EXPECT_EQ(cast("tensor<si64, 2>", in, "tensor<bf16, 2>"), (Bits{0x5F00, 0xDF00}));
  EXPECT_EQ(cast("tensor<si64, 2>", in, "tensor<f64, 2>"), (Bits{0x43E0000000000000, 0xC3E0000000000000}));
  EXPECT_EQ(cast("tensor<ui64, 1>", {0xFFFFFFFFFFFFFFFF}, "tensor<f32, 1>"), (Bits{0x5F800000}));
  EXPECT_EQ(cast("tensor<ui64, 1>", {0xFFFFFFFFFFFFFFFF}, "tensor<f16, 1>"), (Bits{0x7C00}));
}

/// Rounded once: 2^62 + 2^38 + 1 is just above the f32 tie and rounds up (via f64 it would tie down);
/// 2^62 + 2^54 + 1 likewise for bf16.
TEST(InterpCast, Int64ToFloatNoDoubleRounding) {
  EXPECT_EQ(cast("tensor<si64, 1>", {(uint64_t{1} << 62) + (uint64_t{1} << 38) + 1}, "tensor<f32, 1>"), (Bits{0x5E800001}));
  EXPECT_EQ(cast("tensor<si64, 1>", {(uint64_t{1} << 62) + (uint64_t{1} << 38)}, "tensor<f32, 1>"), (Bits{0x5E800000}));
  EXPECT_EQ(cast("tensor<ui64, 1>", {(uint64_t{1} << 62) + (uint64_t{1} << 54) + 1}, "tensor<bf16, 1>"), (Bits{0x5E81}));
}

/// Integer -> f16 near the top: 65519 rounds down to 65504, 65520 is the tie that goes to inf.
TEST(InterpCast, IntToF16Overflow) {
  EXPECT_EQ(cast("tensor<si32, 3>", {65519, 65520, 0xFFFF0010}, "tensor<f16, 3>"), (Bits{0x7BFF, 0x7C00, 0xFC00}));
}

/// float -> si64/ui64 at the edges: 2^63 saturates, the largest f32 below it converts exactly.
TEST(InterpCast, FloatToInt64Saturates) {
  EXPECT_EQ(cast("tensor<f32, 4>", {0x5F000000, 0x5EFFFFFF, 0xDF000000, 0xFF800000}, "tensor<si64, 4>"),
            (Bits{0x7FFFFFFFFFFFFFFF, 0x7FFFFF8000000000, 0x8000000000000000, 0x8000000000000000}));
  EXPECT_EQ(cast("tensor<f32, 4>", {0x5F800000, 0xBFC00000, 0xBF000000, 0x7FC00000}, "tensor<ui64, 4>"),
            (Bits{0xFFFFFFFFFFFFFFFF, 0, 0, 0}));
}

/// float -> narrow ints: truncation toward zero, saturation, NaN -> 0, -0.0 -> 0.
TEST(InterpCast, FloatToNarrowInt) {
  // [2.9, -2.9, 1e9, -inf, nan, -0.0] as f32
  const Bits in{0x4039999A, 0xC039999A, 0x4E6E6B28, 0xFF800000, 0x7FC00000, 0x80000000};
  EXPECT_EQ(cast("tensor<f32, 6>", in, "tensor<si8, 6>"), (Bits{2, 0xFE, 0x7F, 0x80, 0, 0}));
  EXPECT_EQ(cast("tensor<f32, 6>", in, "tensor<ui16, 6>"), (Bits{2, 0, 0xFFFF, 0, 0, 0}));
  EXPECT_EQ(cast("tensor<f32, 6>", in, "tensor<si32, 6>"), (Bits{2, 0xFFFFFFFE, 1000000000, 0x80000000, 0, 0}));
  EXPECT_EQ(cast("tensor<f16, 2>", {0x7C00, 0xD640}, "tensor<si8, 2>"), (Bits{0x7F, 0x9C}));  // inf, -100
}

/// int -> int saturates instead of wrapping, across signedness.
TEST(InterpCast, IntToIntSaturates) {
  EXPECT_EQ(cast("tensor<si32, 4>", {300, 0xFFFFFED4, 0xFFFFFFFF, 5}, "tensor<si8, 4>"), (Bits{0x7F, 0x80, 0xFF, 5}));
  EXPECT_EQ(cast("tensor<si32, 2>", {0xFFFFFFFF, 70000}, "tensor<ui16, 2>"), (Bits{0, 0xFFFF}));
  EXPECT_EQ(cast("tensor<ui32, 1>", {0xFFFFFFFF}, "tensor<si32, 1>"), (Bits{0x7FFFFFFF}));
  EXPECT_EQ(cast("tensor<ui64, 1>", {0xFFFFFFFFFFFFFFFF}, "tensor<si64, 1>"), (Bits{0x7FFFFFFFFFFFFFFF}));
  EXPECT_EQ(cast("tensor<si8, 2>", {0xFB, 0x7F}, "tensor<ui64, 2>"), (Bits{0, 0x7F}));
  EXPECT_EQ(cast("tensor<si8, 1>", {0x80}, "tensor<si64, 1>"), (Bits{0xFFFFFFFFFFFFFF80}));
}

/// f64 -> f32: overflow to inf, underflow below half the smallest subnormal to 0, ties to even.
TEST(InterpCast, F64ToF32) {
  EXPECT_EQ(cast("tensor<f64, 5>",
                 {0x483BB2AE8B7D4A6B /* ~9.4e39 */, 0x3686E8E7A2C8B5D1 /* ~5.0e-46 */, 0x3FF0000010000000 /* 1+2^-24 */,
                  0x3FF0000010000001 /* 1+2^-24+2^-52 */, 0x36A0000000000000 /* 2^-149 */},
                 "tensor<f32, 5>"),
            (Bits{0x7F800000, 0x00000000, 0x3F800000, 0x3F800001, 0x00000001}));
}

/// f32 -> f16: the largest f32 below 65520 rounds to 65504; 2^-25 ties to 0; 1.5 * 2^-24 ties to 2^-23.
TEST(InterpCast, F32ToF16) {
  EXPECT_EQ(cast("tensor<f32, 4>", {0x477FEFFF, 0x477FF000, 0x33000000, 0x33C00000}, "tensor<f16, 4>"),
            (Bits{0x7BFF, 0x7C00, 0x0000, 0x0002}));
}

/// Widening is exact: the f16 smallest subnormal is 2^-24 in f32; bf16 -> f32 just shifts.
TEST(InterpCast, WideningIsExact) {
  EXPECT_EQ(cast("tensor<f16, 3>", {0x0001, 0x8000, 0x7BFF}, "tensor<f32, 3>"), (Bits{0x33800000, 0x80000000, 0x477FE000}));
  EXPECT_EQ(cast("tensor<bf16, 2>", {0x0001, 0xFF80}, "tensor<f64, 2>"), (Bits{0x37A0000000000000, 0xFFF0000000000000}));
}

/// bf16 -> f16 overflows to inf; NaNs become the canonical NaN of the target; same-dtype casts keep bits.
TEST(InterpCast, NansAndCrossFormats) {
  EXPECT_EQ(cast("tensor<bf16, 2>", {0x4780 /* 65536 */, 0xFFC1}, "tensor<f16, 2>"), (Bits{0x7C00, 0x7E00}));
  EXPECT_EQ(cast("tensor<f32, 1>", {0x7F800001}, "tensor<f64, 1>"), (Bits{0x7FF8000000000000}));
  EXPECT_EQ(cast("tensor<f32, 1>", {0x7F800001}, "tensor<f32, 1>"), (Bits{0x7F800001}));
}

/// i1 -> numbers gives 0/1; numbers -> i1 is x != 0 (-0.0 is false, NaN is true).
TEST(InterpCast, Booleans) {
  EXPECT_EQ(cast("tensor<i1, 2>", {1, 0}, "tensor<f32, 2>"), (Bits{0x3F800000, 0}));
  EXPECT_EQ(cast("tensor<i1, 2>", {1, 0}, "tensor<si8, 2>"), (Bits{1, 0}));
  EXPECT_EQ(cast("tensor<f32, 4>", {0x80000000, 0x7FC00000, 0x3F000000, 0x00000001}, "tensor<i1, 4>"), (Bits{0, 1, 1, 1}));
  EXPECT_EQ(cast("tensor<si32, 3>", {0, 0xFFFFFFFF, 256}, "tensor<i1, 3>"), (Bits{0, 1, 1}));
}

/// Empty and rank-0 casts.
TEST(InterpCast, EmptyAndScalar) {
  EXPECT_EQ(cast("tensor<f32, 0>", {}, "tensor<si8, 0>"), (Bits{}));
  EXPECT_EQ(cast("tensor<ui8>", {200}, "tensor<bf16>"), (Bits{0x4348}));
}

}  // namespace
}  // namespace ptir::test
