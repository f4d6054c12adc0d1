// double_to_float's fast path for f16, bf16 and f32 (64-bit arithmetic with the format's constants) against
// round_to_float (the general algorithm in 128-bit arithmetic): every tie and its neighbours between
// consecutive values of each format, the overflow and underflow boundaries, subnormal doubles, and random
// doubles. The interpreter's float stores and the exhaustive backend go through the fast path.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "ir/dtype.h"

namespace ptir {
namespace {

/// What store_f calls inline for f16/bf16; double_to_float for f32.
uint64_t fast(DType t, double v) {
  if (t == DType::F16) return detail::double_to_narrow<10, 5>(t, v);
  if (t == DType::BF16) return detail::double_to_narrow<7, 8>(t, v);
  return double_to_float(t, v);
}

uint64_t reference(DType t, double v) {
  uint64_t b;
  std::memcpy(&b, &v, 8);
  const bool neg = b >> 63;
  const uint64_t frac = b & ((uint64_t{1} << 52) - 1);
  const int ex = int((b >> 52) & 0x7FF);
  if (ex == 0) return round_to_float(t, neg, frac, -1074);
  return round_to_float(t, neg, frac | (uint64_t{1} << 52), ex - 1075);
}

void expect_same(DType t, double v, int64_t& checked) {
  if (std::isnan(v) || std::isinf(v)) return;
  for (double x : {v, std::nextafter(v, INFINITY), std::nextafter(v, -INFINITY)}) {
    if (std::isinf(x)) continue;
    ASSERT_EQ(double_to_float(t, x), reference(t, x)) << dtype_name(t) << " " << x;
    ASSERT_EQ(double_to_float(t, -x), reference(t, -x)) << dtype_name(t) << " " << -x;
    ASSERT_EQ(fast(t, x), reference(t, x)) << dtype_name(t) << " " << x;
    ASSERT_EQ(fast(t, -x), reference(t, -x)) << dtype_name(t) << " " << -x;
    checked += 2;
  }
}

TEST(DTypeRound, FastPathEqualsRoundToFloatOnTiesAndNeighbours) {
  for (DType t : {DType::F16, DType::BF16}) {
    int64_t checked = 0;
    // Every value of the format, every midpoint between neighbours (the ties), one double ulp either side.
    for (uint64_t b = 0; b < 0x8000; ++b) {
      const double a = float_to_double(t, b), c = float_to_double(t, b + 1);
      expect_same(t, a, checked);
      if (!std::isnan(c) && !std::isinf(c)) expect_same(t, a + (c - a) / 2, checked);
      else if (!std::isnan(a)) expect_same(t, a + (a - float_to_double(t, b - 1)) / 2, checked);  // overflow tie
    }
    EXPECT_GT(checked, 300000);
  }
  int64_t checked = 0;
  std::mt19937_64 rng(7);
  for (int k = 0; k < 200000; ++k) {  // f32: random values and their midpoints
    const uint64_t b = rng() & 0x7FFFFFFE;
    const double a = float_to_double(DType::F32, b), c = float_to_double(DType::F32, b + 1);
    if (std::isnan(a) || std::isnan(c) || std::isinf(c)) continue;
    expect_same(DType::F32, a, checked);
    expect_same(DType::F32, a + (c - a) / 2, checked);
  }
  EXPECT_GT(checked, 1000000);
}

TEST(DTypeRound, InlinePathKeepsInfinitiesAndCanonicalNaN) {
  for (DType t : {DType::F16, DType::BF16}) {
    EXPECT_EQ(fast(t, INFINITY), float_inf(t, false));
    EXPECT_EQ(fast(t, -INFINITY), float_inf(t, true));
    EXPECT_EQ(fast(t, NAN), canonical_nan(t));
    EXPECT_EQ(fast(t, -NAN), canonical_nan(t));
    EXPECT_EQ(fast(t, -0.0), sign_mask(t));
  }
}

TEST(DTypeRound, FastPathEqualsRoundToFloatOnRandomAndExtremeDoubles) {
  std::mt19937_64 rng(11);
  int64_t checked = 0;
  for (DType t : {DType::F16, DType::BF16, DType::F32}) {
    for (int k = 0; k < 300000; ++k) {
      uint64_t b = rng();
      if (k % 3 == 0) b = (b & 0x800FFFFFFFFFFFFFull) | (uint64_t((rng() % 400) + 1023 - 200) << 52);  // near 1
      if (k % 7 == 0) b &= 0x800FFFFFFFFFFFFFull;  // subnormal doubles
      double v;
      std::memcpy(&v, &b, 8);
      expect_same(t, v, checked);
    }
    for (double v : {0.0, 5e-324, 2.2250738585072014e-308, 1e-300, 65504.0, 65520.0, 3.3895313892515355e38,
                     3.4028234663852886e38, 3.4028235677973366e38, 1e300, std::ldexp(1.0, -24), std::ldexp(1.0, -25),
                     std::ldexp(3.0, -26), std::ldexp(1.0, -133), std::ldexp(1.0, -149), std::ldexp(1.0, -150)})
      expect_same(t, v, checked);
  }
  EXPECT_GT(checked, 2000000);
}

}  // namespace
}  // namespace ptir
