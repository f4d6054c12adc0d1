// The shared run examples (shared/spec/examples/run/*.ptir) give exactly the results stated in their
// first comment line.
#include <fstream>
#include <sstream>

#include "tests/ir/interp_test_util.h"

namespace ptir::test {
namespace {

std::string read_example(const std::string& name) {
  std::ifstream in(std::string(PTIR_SHARED_DIR) + "/spec/examples/run/" + name);
  EXPECT_TRUE(in.good()) << "cannot open " << name;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// EXPECT: [127, -128, 0, -2] (float->int truncates toward zero, saturates, NaN -> 0)
TEST(InterpExamples, CastsSaturate) {
  RunResult r = run_text(read_example("casts_saturate.ptir"));
  EXPECT_EQ(ok_bits(r), (Bits{127, 0x80, 0, 0xFE}));
}

/// EXPECT: [-128, 0] (si8 add wraps)
TEST(InterpExamples, IntWraps) {
  RunResult r = run_text(read_example("int_wraps.ptir"));
  EXPECT_EQ(ok_bits(r), (Bits{0x80, 0}));
}

/// EXPECT: %a = [0.0, nan, 1.0], %b = [-0.0, nan, -1.0]
TEST(InterpExamples, MaxMinSignedZeroNan) {
  RunResult r = run_text(read_example("max_min_signed_zero_nan.ptir"));
  ASSERT_EQ(r.results.size(), 2u) << r.message;
  EXPECT_EQ(ok_bits(r, 0), (Bits{0x00000000, 0x7FC00000, 0x3F800000}));
  EXPECT_EQ(ok_bits(r, 1), (Bits{0x80000000, 0x7FC00000, 0xBF800000}));
}

/// EXPECT: one result, -0.0 (a sum over one element is that element: no +0.0 start value)
TEST(InterpExamples, SumKeepsNegativeZero) {
  RunResult r = run_text(read_example("sum_keeps_negative_zero.ptir"));
  ASSERT_EQ(r.results.size(), 1u) << r.message;
  EXPECT_EQ(ok_bits(r), (Bits{0x80000000}));
}

}  // namespace
}  // namespace ptir::test
