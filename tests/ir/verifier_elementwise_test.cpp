/// Verifier rules of the elementwise family: every op has a case that verifies and near misses whose
/// exact message is asserted. Rank-0 and size-0 tensors are ordinary tensors for these ops.
#include "tests/ir/verifier_util.h"

namespace ptir {
namespace {
using testing_verifier::op_error;

constexpr const char* kFloatUnary[] = {"exp", "log", "tanh", "erf", "rsqrt", "reciprocal", "sqrt"};
constexpr const char* kArith[] = {"add", "sub", "mul", "div", "maximum", "minimum"};

TEST(VerifierElementwise, ConstantMatchesItsLiteral) {
  EXPECT_EQ(op_error("", "constant dense<[1.0, 2.0]> : tensor<f32, 2> -> tensor<f32, 2>"), "");
  EXPECT_EQ(op_error("", "constant dense<7> : tensor<si32> -> tensor<si32>"), "");
  EXPECT_EQ(op_error("", "constant dense<[]> : tensor<f32, 0> -> tensor<f32, 0>"), "");
  EXPECT_EQ(op_error("", "constant dense<[1.0, 2.0]> : tensor<f32, 2> -> tensor<f32, 3>"),
            "constant: result has type tensor<f32, 3>, expected tensor<f32, 2> (the literal's type)");
  EXPECT_EQ(op_error("", "constant value[dense<1> : tensor<si8>] -> tensor<si16>"),
            "constant: result has type tensor<si16>, expected tensor<si8> (the literal's type)");
}

TEST(VerifierElementwise, FloatOnlyUnaryOps) {
  for (const char* op : kFloatUnary) {
    SCOPED_TRACE(op);
    std::string m = op;
    EXPECT_EQ(op_error("%x: tensor<f32, 2x3>", m + " %x -> tensor<f32, 2x3>"), "");
    EXPECT_EQ(op_error("%x: tensor<bf16>", m + " %x -> tensor<bf16>"), "");
    EXPECT_EQ(op_error("%x: tensor<f16, 0x4>", m + " %x -> tensor<f16, 0x4>"), "");
    EXPECT_EQ(op_error("%x: tensor<si32, 2>", m + " %x -> tensor<si32, 2>"),
              m + ": operand 0 has dtype si32, expected a float dtype");
    EXPECT_EQ(op_error("%x: tensor<i1, 2>", m + " %x -> tensor<i1, 2>"),
              m + ": operand 0 has dtype i1, expected a float dtype");
    EXPECT_EQ(op_error("%x: tensor<f32, 2>", m + " %x -> tensor<f64, 2>"),
              m + ": operand 0 has type tensor<f32, 2>, expected tensor<f64, 2> (the result type)");
  }
}

TEST(VerifierElementwise, NegAbsTakeNumbersNotI1) {
  for (const char* op : {"neg", "abs"}) {
    SCOPED_TRACE(op);
    std::string m = op;
    EXPECT_EQ(op_error("%x: tensor<si8, 4>", m + " %x -> tensor<si8, 4>"), "");
    EXPECT_EQ(op_error("%x: tensor<ui32>", m + " %x -> tensor<ui32>"), "");
    EXPECT_EQ(op_error("%x: tensor<f64, 0>", m + " %x -> tensor<f64, 0>"), "");
    EXPECT_EQ(op_error("%x: tensor<i1, 4>", m + " %x -> tensor<i1, 4>"),
              m + ": operand 0 has dtype i1, expected a number dtype (i1 arithmetic is not allowed)");
    EXPECT_EQ(op_error("%x: tensor<si8, 4>", m + " %x -> tensor<si8, 5>"),
              m + ": operand 0 has type tensor<si8, 4>, expected tensor<si8, 5> (the result type)");
  }
}

TEST(VerifierElementwise, BinaryArithmeticNeedsTheResultTypeOnBothSides) {
  for (const char* op : kArith) {
    SCOPED_TRACE(op);
    std::string m = op;
    EXPECT_EQ(op_error("%x: tensor<f32, 2>, %y: tensor<f32, 2>", m + " %x, %y -> tensor<f32, 2>"), "");
    EXPECT_EQ(op_error("%x: tensor<si32>, %y: tensor<si32>", m + " %x, %y -> tensor<si32>"), "");
    EXPECT_EQ(op_error("%x: tensor<ui8, 0x3>", m + " %x, %x -> tensor<ui8, 0x3>"), "");
    EXPECT_EQ(op_error("%x: tensor<f32, 2>, %y: tensor<f32, 3>", m + " %x, %y -> tensor<f32, 2>"),
              m + ": operand 1 has type tensor<f32, 3>, expected tensor<f32, 2> (the result type)");
    EXPECT_EQ(op_error("%x: tensor<f32, 2>, %y: tensor<f16, 2>", m + " %x, %y -> tensor<f32, 2>"),
              m + ": operand 1 has type tensor<f16, 2>, expected tensor<f32, 2> (the result type)");
    EXPECT_EQ(op_error("%x: tensor<i1, 2>", m + " %x, %x -> tensor<i1, 2>"),
              m + ": operand 0 has dtype i1, expected a number dtype (i1 arithmetic is not allowed)");
  }
}

TEST(VerifierElementwise, AddNamesTheMismatchedOperand) {
  EXPECT_EQ(op_error("%x: tensor<f32, 3>, %y: tensor<f32, 2>", "add %x, %y -> tensor<f32, 2>"),
            "add: operand 0 has type tensor<f32, 3>, expected tensor<f32, 2> (the result type)");
  EXPECT_EQ(op_error("%x: tensor<f32, 2>", "add %x, dense<1.0> : tensor<f32, 2> -> tensor<f32, 2>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32, 2>", "add %x, dense<1.0> : tensor<f32> -> tensor<f32, 2>"),
            "add: operand 1 has type tensor<f32>, expected tensor<f32, 2> (the result type)");
}

TEST(VerifierElementwise, CompareGivesI1OfTheOperandShape) {
  EXPECT_EQ(op_error("%x: tensor<f32, 2x3>, %y: tensor<f32, 2x3>", "compare %x, %y dir[lt] -> tensor<i1, 2x3>"), "");
  EXPECT_EQ(op_error("%x: tensor<i1>", "compare %x, %x dir[eq] -> tensor<i1>"), "");
  EXPECT_EQ(op_error("%x: tensor<si64, 0>", "compare %x, %x dir[ge] -> tensor<i1, 0>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32, 2>, %y: tensor<f32, 2>", "compare %x, %y dir[lt] -> tensor<f32, 2>"),
            "compare: result has type tensor<f32, 2>, expected tensor<i1, 2>");
  EXPECT_EQ(op_error("%x: tensor<f32, 2>, %y: tensor<si32, 2>", "compare %x, %y dir[ne] -> tensor<i1, 2>"),
            "compare: operand 1 has type tensor<si32, 2>, expected tensor<f32, 2> (the type of operand 0)");
  EXPECT_EQ(op_error("%x: tensor<f32, 2>", "compare %x, %x dir[ne] -> tensor<i1, 3>"),
            "compare: result has type tensor<i1, 3>, expected tensor<i1, 2>");
}

TEST(VerifierElementwise, SelectTakesAnI1PredicateOfTheResultShape) {
  EXPECT_EQ(op_error("%p: tensor<i1, 2>, %a: tensor<f32, 2>, %b: tensor<f32, 2>", "select %p, %a, %b -> tensor<f32, 2>"),
            "");
  EXPECT_EQ(op_error("%p: tensor<i1>, %a: tensor<i1>", "select %p, %a, %a -> tensor<i1>"), "");
  EXPECT_EQ(op_error("%p: tensor<si32, 2>, %a: tensor<f32, 2>", "select %p, %a, %a -> tensor<f32, 2>"),
            "select: operand 0 (pred) has type tensor<si32, 2>, expected tensor<i1, 2> (i1 of the result shape)");
  EXPECT_EQ(op_error("%p: tensor<i1>, %a: tensor<f32, 2>", "select %p, %a, %a -> tensor<f32, 2>"),
            "select: operand 0 (pred) has type tensor<i1>, expected tensor<i1, 2> (i1 of the result shape)");
  EXPECT_EQ(op_error("%p: tensor<i1, 2>, %a: tensor<f32, 2>, %b: tensor<f16, 2>", "select %p, %a, %b -> tensor<f32, 2>"),
            "select: operand 2 has type tensor<f16, 2>, expected tensor<f32, 2> (the result type)");
}

TEST(VerifierElementwise, CastKeepsTheShapeAndMayChangeAnyDtype) {
  EXPECT_EQ(op_error("%x: tensor<f32, 2x3>", "cast %x -> tensor<si8, 2x3>"), "");
  EXPECT_EQ(op_error("%x: tensor<i1>", "cast %x -> tensor<bf16>"), "");
  EXPECT_EQ(op_error("%x: tensor<ui64, 0>", "cast %x -> tensor<i1, 0>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32, 2x3>", "cast %x -> tensor<si8, 3x2>"),
            "cast: result has type tensor<si8, 3x2>, expected tensor<si8, 2x3>");
}

TEST(VerifierElementwise, StopGradientIsTheIdentityType) {
  EXPECT_EQ(op_error("%x: tensor<i1, 2>", "stop_gradient %x -> tensor<i1, 2>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32>", "stop_gradient %x -> tensor<f32>"), "");
  EXPECT_EQ(op_error("%x: tensor<f32>", "stop_gradient %x -> tensor<f32, 1>"),
            "stop_gradient: operand 0 has type tensor<f32>, expected tensor<f32, 1> (the result type)");
}

}  // namespace
}  // namespace ptir
