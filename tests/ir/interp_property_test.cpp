// Properties checked against definitions rather than a second implementation: f16/bf16 add and mul give
// the nearest representable value with ties to even (the exact result fits in a double), and widening
// casts round-trip.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>

#include "ir/dtype.h"
#include "tests/ir/interp_test_util.h"

namespace ptir::test {
namespace {

/// Runs `op` on one pair of elements of a 16-bit float dtype.
uint64_t run16(const char* op, const char* type, uint64_t a, uint64_t b) {
  Bits r = ok_bits(run_op(std::string(op) + " %a, %b", type, {from_bits(type, {a}), from_bits(type, {b})}));
  return r.empty() ? 0 : r[0];
}

/// True when `r` (a 16-bit float of dtype t) is the round-to-nearest-even of the exact value `x`.
bool is_rne(DType t, double x, uint64_t r) {
  if (std::isnan(x)) return float_is_nan(t, r);
  const uint64_t mag = r & ~sign_mask(t) & bits_mask(t);
  const uint64_t inf = float_inf(t, false);
  const double top = float_to_double(t, inf - 1), ulp = top - float_to_double(t, inf - 2);
  if (std::fabs(x) >= top + ulp / 2) return mag == inf && float_sign(t, r) == (x < 0);  // overflow (ties go to inf)
  if (mag == inf) return false;
  if (x == 0) return r == (std::signbit(x) ? sign_mask(t) : 0);
  const double v = float_to_double(t, r);
  const double up = float_to_double(t, (r & sign_mask(t)) | (mag + 1));
  const double down = mag == 0 ? -float_to_double(t, 1) : float_to_double(t, (r & sign_mask(t)) | (mag - 1));
  const double dv = std::fabs(x - v), du = std::fabs(x - up), dd = std::fabs(x - down);
  if (dv > du || dv > dd) return false;
  if ((dv == du || dv == dd) && (mag & 1)) return false;  // a tie must pick the even neighbour
  return mag != 0 || float_sign(t, r) == std::signbit(x);  // an underflow to zero keeps the sign
}

RC_GTEST_PROP(InterpProperty, F16AddMulAreCorrectlyRounded, (uint16_t a, uint16_t b)) {
  const double x = float_to_double(DType::F16, a), y = float_to_double(DType::F16, b);
  RC_ASSERT(is_rne(DType::F16, x + y, run16("add", "tensor<f16>", a, b)));  // exact in double
  RC_ASSERT(is_rne(DType::F16, x * y, run16("mul", "tensor<f16>", a, b)));  // 22-bit product: exact
}

RC_GTEST_PROP(InterpProperty, Bf16AddMulAreCorrectlyRounded, (uint16_t a, uint16_t b)) {
  const double x = float_to_double(DType::BF16, a), y = float_to_double(DType::BF16, b);
  // bf16 sums can need more than 53 bits only when exponents differ by > 45; the smaller one is then
  // below half an ulp of the larger one, so it only matters as a sticky bit the double keeps anyway.
  RC_PRE(x == 0 || y == 0 || !std::isfinite(x) || !std::isfinite(y) || std::abs(std::ilogb(x) - std::ilogb(y)) < 40);
  RC_ASSERT(is_rne(DType::BF16, x + y, run16("add", "tensor<bf16>", a, b)));
  RC_ASSERT(is_rne(DType::BF16, x * y, run16("mul", "tensor<bf16>", a, b)));
}

/// Every f16 value widens exactly to f32 and comes back unchanged (NaNs come back as the canonical NaN).
TEST(InterpProperty, F16WideningRoundTripsExhaustively) {
  Tensor all(TensorType{DType::F16, {65536}});
  for (int64_t i = 0; i < 65536; ++i) all.set_bits(i, static_cast<uint64_t>(i));
  ParseResult pr = parse_program(
      "func @main(%a: tensor<f16, 65536>) -> tensor<f16, 65536> {\n"
      "  %w = cast %a -> tensor<f32, 65536>\n  %n = cast %w -> tensor<f16, 65536>\n  return %n\n}\n");
  ASSERT_TRUE(pr.ok()) << pr.error;
  RunResult r = run_program(*pr.program, std::span<const Tensor>(&all, 1));
  ASSERT_EQ(r.status, RunStatus::Ok) << r.message;
  for (int64_t i = 0; i < 65536; ++i) {
    const uint64_t expect = float_is_nan(DType::F16, i) ? 0x7E00 : static_cast<uint64_t>(i);
    ASSERT_EQ(r.results[0].bits(i), expect) << std::hex << i;
  }
}

}  // namespace
}  // namespace ptir::test
