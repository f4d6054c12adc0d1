/// Verifier rules of the effect and opaque ops: rng results are floats; quantize/dequantize/requantize and
/// custom_call take any types, with only their attributes checked.
#include "tests/ir/verifier_util.h"

namespace ptir {
namespace {
using testing_verifier::op_error;

TEST(VerifierOpaque, RngGivesFloats) {
  for (const char* op : {"rng_uniform", "rng_normal"}) {
    SCOPED_TRACE(op);
    std::string m = op;
    EXPECT_EQ(op_error("", m + " seed[1] -> tensor<f32, 2x3>"), "");
    EXPECT_EQ(op_error("", m + " seed[-9223372036854775808] -> tensor<bf16>"), "");
    EXPECT_EQ(op_error("", m + " seed[0] -> tensor<f64, 0>"), "");
    EXPECT_EQ(op_error("", m + " seed[1] -> tensor<si32, 2>"), m + ": result has dtype si32, expected a float dtype");
    EXPECT_EQ(op_error("", m + " seed[1] -> tensor<i1>"), m + ": result has dtype i1, expected a float dtype");
  }
}

TEST(VerifierOpaque, QuantizeFamilyTakesAnyTypesAndAnAxisInRange) {
  for (const char* op : {"quantize", "dequantize", "requantize"}) {
    SCOPED_TRACE(op);
    std::string m = op;
    const char* p = "%x: tensor<f32, 4x2>, %s: tensor<f32, 2>, %z: tensor<si8, 2>";
    EXPECT_EQ(op_error(p, m + " %x, %s, %z -> tensor<si8, 4x2>"), "");
    EXPECT_EQ(op_error(p, m + " %x, %s, %z axis[1] -> tensor<ui8, 7>"), "");
    EXPECT_EQ(op_error("%x: tensor<f32>", m + " %x, %x, %x -> tensor<si8, 0>"), "");
    EXPECT_EQ(op_error(p, m + " %x, %s, %z axis[2] -> tensor<si8, 4x2>"), m + ": axis[2] is out of range for rank 2");
    EXPECT_EQ(op_error(p, m + " %x, %s, %z axis[-1] -> tensor<si8, 4x2>"), m + ": axis[-1] is out of range for rank 2");
  }
}

TEST(VerifierOpaque, CustomCallNeedsATargetAndNothingElse) {
  EXPECT_EQ(op_error("%x: tensor<f32, 2>", "custom_call %x target[\"ns.gelu.v1\"] approx[tanh] k[3, 4] -> tensor<si8>"),
            "");
  EXPECT_EQ(op_error("", "custom_call target[\"ns.const.v1\"] -> tensor<f32, 0>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32, 2>", "custom_call %x, %x, %x target[\"\"] -> tensor<f32, 2>"),
            "custom_call: target[\"\"] is empty: custom_call needs a target name");
}

}  // namespace
}  // namespace ptir
