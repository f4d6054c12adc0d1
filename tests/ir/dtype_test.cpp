/// Exact IEEE encode/decode and element parsing/printing (ir/dtype.h).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>

#include "ir/dtype.h"

namespace ptir {
namespace {

uint64_t f32_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

TEST(DType, ParseNamesCaseInsensitively) {
  EXPECT_EQ(parse_dtype("F32"), DType::F32);
  EXPECT_EQ(parse_dtype("bf16"), DType::BF16);
  EXPECT_EQ(parse_dtype("Si64"), DType::SI64);
  EXPECT_FALSE(parse_dtype("f8").has_value());
  EXPECT_FALSE(parse_dtype("").has_value());
}

TEST(DType, DoubleToF16RoundsToNearestEven) {
  EXPECT_EQ(double_to_float(DType::F16, 1.0), 0x3C00u);
  EXPECT_EQ(double_to_float(DType::F16, 65504.0), 0x7BFFu);
  EXPECT_EQ(double_to_float(DType::F16, 65520.0), 0x7C00u);  // halfway to 2^16 rounds to even: inf
  EXPECT_EQ(double_to_float(DType::F16, 65519.99), 0x7BFFu);
  EXPECT_EQ(double_to_float(DType::F16, std::ldexp(1.0, -24)), 0x0001u);   // smallest subnormal
  EXPECT_EQ(double_to_float(DType::F16, std::ldexp(1.0, -25)), 0x0000u);   // half of it: tie to even 0
  EXPECT_EQ(double_to_float(DType::F16, std::ldexp(1.5, -25)), 0x0001u);
  EXPECT_EQ(double_to_float(DType::F16, -0.0), 0x8000u);
  EXPECT_EQ(double_to_float(DType::F16, 1.0 + std::ldexp(1.0, -11)), 0x3C00u);  // tie -> even
  EXPECT_EQ(double_to_float(DType::F16, 1.0 + 3 * std::ldexp(1.0, -11)), 0x3C02u);  // tie -> even (up)
}

TEST(DType, DoubleToBF16AndF32) {
  EXPECT_EQ(double_to_float(DType::BF16, 1.0), 0x3F80u);
  EXPECT_EQ(double_to_float(DType::BF16, 1.0 + std::ldexp(1.0, -8)), 0x3F80u);  // tie -> even
  EXPECT_EQ(double_to_float(DType::BF16, 1.0 + 3 * std::ldexp(1.0, -8)), 0x3F82u);
  EXPECT_EQ(double_to_float(DType::F32, 0.1), f32_bits(0.1f));
  EXPECT_EQ(double_to_float(DType::F32, 1e300), 0x7F800000u);
  EXPECT_EQ(double_to_float(DType::F32, std::ldexp(1.0, -149)), 0x1u);
}

TEST(DType, RoundToFloatUsesStickyBit) {
  // 1 + 2^-11 exactly is a tie in f16 (-> 1.0); a tail below it makes it round up.
  uint64_t mant = (uint64_t{1} << 11) | 1;  // (2^11 + 1) * 2^-11
  EXPECT_EQ(round_to_float(DType::F16, false, mant, -11, false), 0x3C00u);
  EXPECT_EQ(round_to_float(DType::F16, false, mant, -11, true), 0x3C01u);
  // Integers straight to f16: 2049 ties to 2048, 2051 to 2052.
  EXPECT_EQ(round_to_float(DType::F16, false, 2049, 0), double_to_float(DType::F16, 2048.0));
  EXPECT_EQ(round_to_float(DType::F16, false, 2051, 0), double_to_float(DType::F16, 2052.0));
  // 2^63 + 1 to f32: exact in no double; must round to 2^63 without double rounding.
  EXPECT_EQ(round_to_float(DType::F32, false, (uint64_t{1} << 63) | 1, 0), f32_bits(9223372036854775808.0f));
}

TEST(DType, FloatToDoubleIsExact) {
  EXPECT_EQ(float_to_double(DType::F16, 0x0001), std::ldexp(1.0, -24));
  EXPECT_EQ(float_to_double(DType::F16, 0x7BFF), 65504.0);
  EXPECT_TRUE(std::isinf(float_to_double(DType::BF16, 0xFF80)));
  EXPECT_TRUE(std::signbit(float_to_double(DType::F32, 0x80000000)));
  EXPECT_TRUE(std::isnan(float_to_double(DType::F16, 0x7E00)));
}

TEST(DType, ParseFloatElements) {
  std::string err;
  EXPECT_EQ(*parse_float_elem("-0.0", DType::F32, &err), 0x80000000u);
  EXPECT_EQ(*parse_float_elem("inf", DType::F16, &err), 0x7C00u);
  EXPECT_EQ(*parse_float_elem("-inf", DType::BF16, &err), 0xFF80u);
  EXPECT_EQ(*parse_float_elem("nan", DType::F32, &err), 0x7FC00000u);
  EXPECT_EQ(*parse_float_elem("0x7FC00001", DType::F32, &err), 0x7FC00001u);
  EXPECT_EQ(*parse_float_elem("0.1", DType::F32, &err), f32_bits(0.1f));
  EXPECT_EQ(*parse_float_elem("-2e-3", DType::F64, &err), [] { double d = -2e-3; uint64_t b; std::memcpy(&b, &d, 8); return b; }());
  EXPECT_FALSE(parse_float_elem("0x1FFFF", DType::F16, &err).has_value());
  EXPECT_NE(err.find("wider than f16"), std::string::npos);
  EXPECT_FALSE(parse_float_elem("1.2.3x", DType::F32, &err).has_value());
  EXPECT_FALSE(parse_float_elem("abc", DType::F32, &err).has_value());
  // A second dot is malformed in every float dtype (it was read up to the dot: 1.0.5 as 1.0).
  for (DType d : {DType::F16, DType::BF16, DType::F32, DType::F64})
    for (const char* t : {"1.0.5", "2..5", "-1.5.5", "3.25.0.1", "1.2.3e4", "..1"}) {
      EXPECT_FALSE(parse_float_elem(t, d, &err).has_value()) << t << " " << dtype_name(d);
      EXPECT_EQ(err, "bad float literal '" + std::string(t) + "'");
    }
  EXPECT_EQ(*parse_float_elem(".5", DType::F32, &err), f32_bits(0.5f));
  EXPECT_EQ(*parse_float_elem("5.", DType::F32, &err), f32_bits(5.0f));
}

TEST(DType, DecimalToF16IsRoundedOnce) {
  // 1.00048828125 = 1 + 2^-11 exactly: a tie that goes to even (1.0).
  EXPECT_EQ(*parse_float_elem("1.00048828125", DType::F16, nullptr), 0x3C00u);
  // Just above the tie, by far less than a double ulp of 1.0: must round up, not to the double tie.
  EXPECT_EQ(*parse_float_elem("1.000488281250000000000000001", DType::F16, nullptr), 0x3C01u);
  EXPECT_EQ(*parse_float_elem("1.000488281249999999999999999", DType::F16, nullptr), 0x3C00u);
}

/// The exact decimal expansion of d (glibc prints every digit; %g drops the trailing zeros).
std::string exact_decimal(double d) {
  std::string s(1200, '\0');
  s.resize(static_cast<size_t>(std::snprintf(s.data(), s.size(), "%.1100g", d)));
  return s;
}

/// The decimal s moved by one unit in a digit far below its last one (up or down): a value no double
/// lies between s and it. s is a positive finite decimal, maybe with an exponent suffix.
std::string nudge(const std::string& s, bool up) {
  const size_t e = s.find_first_of("eE");
  std::string m = s.substr(0, e), tail = e == std::string::npos ? "" : s.substr(e);
  if (m.find('.') == std::string::npos) m += '.';
  m += std::string(40, '0');
  if (up) {
    m.back() = '1';
  } else {  // subtract one unit in the last place, borrowing through the digits
    for (size_t k = m.size(); k-- > 0;) {
      if (m[k] == '.') continue;
      if (m[k] != '0') { --m[k]; break; }
      m[k] = '9';
    }
  }
  return m + tail;
}

TEST(DType, DecimalRoundingAtEveryKindOfBoundary) {
  // parse_float_elem rounds the nearest double when that double is not a rounding boundary of the
  // target, and decides exactly otherwise. Boundaries: the midpoints between neighbouring target values
  // (ties to even; just above rounds up, just below down) and the overflow threshold; elsewhere the
  // exact decimal of a double rounds as the double does (double_to_float).
  std::mt19937_64 rng(7);
  for (DType t : {DType::F16, DType::BF16, DType::F32}) {
    const int bits = dtype_bits(t);
    const uint64_t inf = float_inf(t, false);
    for (int i = 0; i < 3000; ++i) {
      uint64_t a = rng() & ((uint64_t{1} << (bits - 1)) - 1);  // positive
      if (a >= inf) a = inf - 1 - (rng() % 4);                   // finite, up to the largest
      const uint64_t b = a + 1;                                  // the next value up (b == inf past the largest)
      const double m = (float_to_double(t, a) + (b == inf ? float_to_double(t, a) + (float_to_double(t, a) - float_to_double(t, a - 1)) : float_to_double(t, b))) / 2;
      const uint64_t even = (a & 1) == 0 ? a : b;
      const std::string mid = exact_decimal(m);
      for (bool neg : {false, true}) {
        const std::string sg = neg ? "-" : "";
        const uint64_t sign = neg ? sign_mask(t) : 0;
        ASSERT_EQ(*parse_float_elem(sg + mid, t, nullptr), sign | even) << dtype_name(t) << " tie " << sg << mid;
        ASSERT_EQ(*parse_float_elem(sg + nudge(mid, true), t, nullptr), sign | b) << dtype_name(t) << " above " << sg << mid;
        ASSERT_EQ(*parse_float_elem(sg + nudge(mid, false), t, nullptr), sign | a) << dtype_name(t) << " below " << sg << mid;
      }
      // An ordinary value: a random double between the two, exactly as a decimal.
      const double lo = float_to_double(t, a);
      const double x = lo + (m - lo) * std::ldexp(static_cast<double>(rng() >> 11), -53) * 2;
      ASSERT_EQ(*parse_float_elem(exact_decimal(x), t, nullptr), double_to_float(t, x)) << dtype_name(t) << " " << exact_decimal(x);
      ASSERT_EQ(*parse_float_elem(exact_decimal(-x), t, nullptr), double_to_float(t, -x)) << dtype_name(t) << " " << exact_decimal(-x);
    }
  }
}

TEST(DType, ParseIntElementsWithRangeChecks) {
  std::string err;
  EXPECT_EQ(*parse_int_elem("-128", DType::SI8, &err), 0x80u);
  EXPECT_FALSE(parse_int_elem("128", DType::SI8, &err).has_value());
  EXPECT_NE(err.find("out of range for si8"), std::string::npos);
  EXPECT_EQ(*parse_int_elem("18446744073709551615", DType::UI64, &err), ~uint64_t{0});
  EXPECT_FALSE(parse_int_elem("-1", DType::UI32, &err).has_value());
  EXPECT_EQ(*parse_int_elem("-9223372036854775808", DType::SI64, &err), uint64_t{1} << 63);
  EXPECT_EQ(*parse_int_elem("true", DType::I1, &err), 1u);
  EXPECT_FALSE(parse_int_elem("2", DType::I1, &err).has_value());
  EXPECT_FALSE(parse_int_elem("1.5", DType::SI32, &err).has_value());
}

TEST(DType, FormatElementsRoundTrip) {
  EXPECT_EQ(format_elem(DType::F32, 0x3F800000), "1.0");
  EXPECT_EQ(format_elem(DType::F32, 0x80000000), "-0.0");
  EXPECT_EQ(format_elem(DType::F32, 0x7FC00000), "nan");
  EXPECT_EQ(format_elem(DType::F32, 0xFFC00000), "0xFFC00000");
  EXPECT_EQ(format_elem(DType::F16, 0x7E01), "0x7E01");
  EXPECT_EQ(format_elem(DType::F16, 0xFC00), "-inf");
  EXPECT_EQ(format_elem(DType::UI64, ~uint64_t{0}), "18446744073709551615");
  EXPECT_EQ(format_elem(DType::SI8, 0x80), "-128");
  EXPECT_EQ(format_elem(DType::I1, 1), "true");
  // The shortest decimal: the fewest significant digits that read back, in fixed notation when that is
  // no longer than scientific, padded with zeros (std::to_chars's own choice wrote the exact integer
  // 13653698560.0, ten significant digits where eight read back).
  EXPECT_EQ(format_elem(DType::F32, 0x504B74BA), "13653699000.0");
  EXPECT_EQ(format_elem(DType::F64, 0x441AC53A7E04BCDAull), "123456789012345680000.0");
  EXPECT_EQ(format_elem(DType::F32, 0x3DCCCCCD), "0.1");
  EXPECT_EQ(format_elem(DType::F32, 0x3727C5AC), "1e-05");
  EXPECT_EQ(format_elem(DType::F64, 0x4415AF1D78B58C40ull), "1e+20");
  // Every f16 and bf16 bit pattern prints to text that parses back to the same bits.
  for (DType t : {DType::F16, DType::BF16}) {
    for (uint64_t b = 0; b < 0x10000; ++b) {
      std::string s = format_elem(t, b);
      auto back = parse_float_elem(s, t, nullptr);
      ASSERT_TRUE(back.has_value()) << s;
      ASSERT_EQ(*back, b) << dtype_name(t) << " " << s;
    }
  }
}

TEST(DType, IntHelpers) {
  EXPECT_EQ(int_value(DType::SI8, 0xFF), -1);
  EXPECT_EQ(int_value(DType::UI8, 0xFF), 255);
  EXPECT_EQ(int_min(DType::SI32), INT32_MIN);
  EXPECT_EQ(int_max_bits(DType::SI16), 0x7FFFu);
  EXPECT_EQ(int_max_bits(DType::UI16), 0xFFFFu);
}

}  // namespace
}  // namespace ptir
