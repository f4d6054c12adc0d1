// rng_uniform / rng_normal follow the documented splitmix64 algorithm exactly; expected values were
// computed independently from the formula in docs/semantics.md (splitmix64(0) = 0xE220A8397B1DCDAF).
#include "tests/ir/interp_test_util.h"

namespace ptir::test {
namespace {

RunResult rng(const char* op, int seed, const char* type) {
  std::string text = std::string("func @main() -> ") + type + " {\n  %r = " + op + " seed[" + std::to_string(seed) +
                     "] -> " + type + "\n  return %r\n}\n";
  return run_text(text);
}

/// uniform = (h >> 11) * 2^-53 with h = splitmix64(seed * 0x9E3779B97F4A7C15 + i).
TEST(InterpRng, UniformMatchesTheFormula) {
  EXPECT_EQ(ok_bits(rng("rng_uniform", 0, "tensor<f64, 2>")), (Bits{0x3FEC4415072F63B9, 0x3FE22145BD91204B}));
  EXPECT_EQ(ok_bits(rng("rng_uniform", 7, "tensor<f64, 2>")), (Bits{0x3FE8B082675922D5, 0x3FE0BCF761E244F0}));
  EXPECT_EQ(ok_bits(rng("rng_uniform", 0, "tensor<f32, 2>")), (Bits{0x3F6220A8, 0x3F110A2E}));
}

/// normal = sqrt(-2 ln u1) * cos(2 pi u2) in double, rounded once.
TEST(InterpRng, NormalMatchesTheFormula) {
  EXPECT_EQ(ok_bits(rng("rng_normal", 0, "tensor<f64, 2>")), (Bits{0xBFD25733E0790C93, 0xBFE71114A6183A5A}));
  EXPECT_EQ(ok_bits(rng("rng_normal", 7, "tensor<f32, 2>")), (Bits{0x3F1EEF46, 0x3F7F7D77}));
}

/// Element i does not depend on the shape: a 2x2 result starts with the same values as a [2] one.
TEST(InterpRng, ShapeIndependentAndInRange) {
  Bits a = ok_bits(rng("rng_uniform", 3, "tensor<bf16, 2x2>"));
  Bits b = ok_bits(rng("rng_uniform", 3, "tensor<bf16, 2>"));
  ASSERT_EQ(a.size(), 4u);
  EXPECT_EQ(Bits(a.begin(), a.begin() + 2), b);
  for (uint64_t v : a) EXPECT_LE(v, 0x3F80u);  // in [0, 1] (rounding may reach 1.0)
  EXPECT_NE(ok_bits(rng("rng_uniform", 4, "tensor<f32, 2>")), ok_bits(rng("rng_uniform", 5, "tensor<f32, 2>")));
}

/// rng on an integer result is refused rather than guessed.
TEST(InterpRng, IntegerResultIsAnError) {
  EXPECT_EQ(rng("rng_uniform", 1, "tensor<si32, 2>").status, RunStatus::Error);
}

}  // namespace
}  // namespace ptir::test
