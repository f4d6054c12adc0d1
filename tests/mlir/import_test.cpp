// The import's meaning, op by op: each MLIR function is imported and run in PTIR's reference interpreter
// on inputs whose MLIR results are worked out by hand from the ops' definitions (ArithOps.td, docs/mlir.md).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/interp.h"
#include "ir/text.h"
#include "mlir/import.h"

namespace ptir::mlirfe {
namespace {

Tensor lit(const std::string& s) {
  Tensor t;
  std::string err;
  EXPECT_TRUE(parse_literal(s, &t, &err)) << s << ": " << err;
  return t;
}

/// Imports `mlir` (one function) and runs it on `inputs` (PTIR literals).
RunResult run(const std::string& mlir, const std::vector<std::string>& inputs) {
  ImportResult r = import_mlir(mlir, "test.mlir");
  EXPECT_TRUE(r.all_ok()) << r.first_error();
  if (!r.all_ok()) return RunResult{RunStatus::Error, {}, r.first_error(), kNone};
  std::vector<Tensor> in;
  for (const std::string& s : inputs) in.push_back(lit(s));
  return run_program(*r.program, in);
}

void expect_result(const std::string& mlir, const std::vector<std::string>& inputs, const std::string& want) {
  RunResult rr = run(mlir, inputs);
  ASSERT_EQ(rr.status, RunStatus::Ok) << rr.message;
  ASSERT_EQ(rr.results.size(), 1u);
  EXPECT_TRUE(results_equal(rr.results[0], lit(want)))
      << "got " << print_literal(rr.results[0]) << ", want " << want;
}

TEST(MlirImport, TrunciWraps) {
  expect_result(R"(func.func @f(%x: tensor<6xi32>) -> tensor<6xi8> {
    %r = arith.trunci %x : tensor<6xi32> to tensor<6xi8>
    return %r : tensor<6xi8>
  })",
                {"dense<[300, -129, 127, -128, 255, 256]> : tensor<si32, 6>"},
                "dense<[44, 127, 127, -128, -1, 0]> : tensor<si8, 6>");
  expect_result(R"(func.func @f(%x: tensor<4xi32>) -> tensor<4xi1> {
    %r = arith.trunci %x : tensor<4xi32> to tensor<4xi1>
    return %r : tensor<4xi1>
  })",
                {"dense<[3, -1, 2, -4]> : tensor<si32, 4>"}, "dense<[true, true, false, false]> : tensor<i1, 4>");
}

TEST(MlirImport, UnsignedCompareOfSignless) {
  const char* f = R"(func.func @f(%x: tensor<4xi32>, %y: tensor<4xi32>) -> tensor<4xi1> {
    %r = arith.cmpi ult, %x, %y : tensor<4xi32>
    return %r : tensor<4xi1>
  })";
  // -1 is 0xFFFFFFFF unsigned: not below 1; 1 is below it.
  expect_result(f, {"dense<[-1, 1, 0, 5]> : tensor<si32, 4>", "dense<[1, -1, 0, 3]> : tensor<si32, 4>"},
                "dense<[false, true, false, false]> : tensor<i1, 4>");
  const char* g = R"(func.func @f(%x: tensor<4xi32>, %y: tensor<4xi32>) -> tensor<4xi1> {
    %r = arith.cmpi uge, %x, %y : tensor<4xi32>
    return %r : tensor<4xi1>
  })";
  expect_result(g, {"dense<[-1, 1, 0, 5]> : tensor<si32, 4>", "dense<[1, -1, 0, 3]> : tensor<si32, 4>"},
                "dense<[true, false, true, true]> : tensor<i1, 4>");
}

TEST(MlirImport, SignedCompareOfBooleans) {
  // As a signed i1, true is -1 < false (0).
  expect_result(R"(func.func @f(%x: tensor<2xi1>, %y: tensor<2xi1>) -> tensor<2xi1> {
    %r = arith.cmpi slt, %x, %y : tensor<2xi1>
    return %r : tensor<2xi1>
  })",
                {"dense<[true, false]> : tensor<i1, 2>", "dense<[false, true]> : tensor<i1, 2>"},
                "dense<[true, false]> : tensor<i1, 2>");
}

TEST(MlirImport, Extensions) {
  expect_result(R"(func.func @f(%x: tensor<3xi8>) -> tensor<3xi32> {
    %r = arith.extui %x : tensor<3xi8> to tensor<3xi32>
    return %r : tensor<3xi32>
  })",
                {"dense<[-1, 5, -128]> : tensor<si8, 3>"}, "dense<[255, 5, 128]> : tensor<si32, 3>");
  expect_result(R"(func.func @f(%x: tensor<2xi1>) -> tensor<2xi32> {
    %r = arith.extsi %x : tensor<2xi1> to tensor<2xi32>
    return %r : tensor<2xi32>
  })",
                {"dense<[true, false]> : tensor<i1, 2>"}, "dense<[-1, 0]> : tensor<si32, 2>");
  expect_result(R"(func.func @f(%x: tensor<2xi1>) -> tensor<2xf32> {
    %r = arith.sitofp %x : tensor<2xi1> to tensor<2xf32>
    return %r : tensor<2xf32>
  })",
                {"dense<[true, false]> : tensor<i1, 2>"}, "dense<[-1.0, 0.0]> : tensor<f32, 2>");
  expect_result(R"(func.func @f(%x: tensor<2xi8>) -> tensor<2xf32> {
    %r = arith.uitofp %x : tensor<2xi8> to tensor<2xf32>
    return %r : tensor<2xf32>
  })",
                {"dense<[-1, 7]> : tensor<si8, 2>"}, "dense<[255.0, 7.0]> : tensor<f32, 2>");
}

TEST(MlirImport, FloatPredicatesWithNaN) {
  auto pred = [](const char* p) {
    return std::string("func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xi1> {\n  %r = arith.cmpf ") +
           p + ", %x, %y : tensor<4xf32>\n  return %r : tensor<4xi1>\n}\n";
  };
  const std::vector<std::string> in = {"dense<[nan, 1.0, 1.0, -0.0]> : tensor<f32, 4>",
                                       "dense<[1.0, 1.0, 2.0, 0.0]> : tensor<f32, 4>"};
  expect_result(pred("one"), in, "dense<[false, false, true, false]> : tensor<i1, 4>");
  expect_result(pred("ueq"), in, "dense<[true, true, false, true]> : tensor<i1, 4>");
  expect_result(pred("uno"), in, "dense<[true, false, false, false]> : tensor<i1, 4>");
  expect_result(pred("ord"), in, "dense<[false, true, true, true]> : tensor<i1, 4>");
  expect_result(pred("ult"), in, "dense<[true, false, true, false]> : tensor<i1, 4>");
  expect_result(pred("une"), in, "dense<[true, false, true, false]> : tensor<i1, 4>");
  expect_result(pred("oge"), in, "dense<[false, true, false, true]> : tensor<i1, 4>");
}

TEST(MlirImport, BooleanLogic) {
  auto f = [](const char* op) {
    return std::string("func.func @f(%x: tensor<4xi1>, %y: tensor<4xi1>) -> tensor<4xi1> {\n  %r = arith.") + op +
           " %x, %y : tensor<4xi1>\n  return %r : tensor<4xi1>\n}\n";
  };
  const std::vector<std::string> in = {"dense<[false, false, true, true]> : tensor<i1, 4>",
                                       "dense<[false, true, false, true]> : tensor<i1, 4>"};
  expect_result(f("andi"), in, "dense<[false, false, false, true]> : tensor<i1, 4>");
  expect_result(f("ori"), in, "dense<[false, true, true, true]> : tensor<i1, 4>");
  expect_result(f("xori"), in, "dense<[false, true, true, false]> : tensor<i1, 4>");
}

TEST(MlirImport, TosaBroadcastsAndIEEEAdd) {
  expect_result(R"(func.func @f(%x: tensor<2x1xf32>, %y: tensor<1x3xf32>) -> tensor<2x3xf32> {
    %r = tosa.add %x, %y : (tensor<2x1xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
    return %r : tensor<2x3xf32>
  })",
                {"dense<[[-0.0], [1.0]]> : tensor<f32, 2x1>", "dense<[[0.0, -0.0, 2.0]]> : tensor<f32, 1x3>"},
                "dense<[[0.0, -0.0, 2.0], [1.0, 1.0, 3.0]]> : tensor<f32, 2x3>");
}

TEST(MlirImport, DivsiByZeroIsUB) {
  RunResult rr = run(R"(func.func @f(%x: tensor<2xi32>, %y: tensor<2xi32>) -> tensor<2xi32> {
    %r = arith.divsi %x, %y : tensor<2xi32>
    return %r : tensor<2xi32>
  })",
                     {"dense<[1, 2]> : tensor<si32, 2>", "dense<[1, 0]> : tensor<si32, 2>"});
  EXPECT_EQ(rr.status, RunStatus::UB);
}

TEST(MlirImport, SlicesAndConcat) {
  expect_result(R"(func.func @f(%x: tensor<2x3xf32>) -> tensor<3xf32> {
    %s = tensor.extract_slice %x[1, 0] [1, 3] [1, 1] : tensor<2x3xf32> to tensor<3xf32>
    return %s : tensor<3xf32>
  })",
                {"dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<f32, 2x3>"}, "dense<[4.0, 5.0, 6.0]> : tensor<f32, 3>");
  expect_result(R"(func.func @f(%x: tensor<2x3xf32>, %y: tensor<1x2xf32>) -> tensor<2x3xf32> {
    %s = tensor.insert_slice %y into %x[1, 1] [1, 2] [1, 1] : tensor<1x2xf32> into tensor<2x3xf32>
    return %s : tensor<2x3xf32>
  })",
                {"dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<f32, 2x3>", "dense<[[8.0, 9.0]]> : tensor<f32, 1x2>"},
                "dense<[[1.0, 2.0, 3.0], [4.0, 8.0, 9.0]]> : tensor<f32, 2x3>");
}

TEST(MlirImport, ScalarsAreRankZero) {
  expect_result(R"(func.func @f(%x: f32) -> f32 {
    %c = arith.constant 2.5 : f32
    %r = arith.mulf %x, %c : f32
    return %r : f32
  })",
                {"dense<2.0> : tensor<f32>"}, "dense<5.0> : tensor<f32>");
}

TEST(MlirImport, RefusalsNameTheOpAndItsLocation) {
  ImportResult r = import_mlir("func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                               "  %r = tosa.rescale %x {double_round = false, input_zp = 0 : i32, multiplier = "
                               "array<i32: 1>, output_zp = 0 : i32, per_channel = false, scale32 = true, shift = "
                               "array<i8: 1>} : (tensor<4xf32>) -> tensor<4xf32>\n"
                               "  return %r : tensor<4xf32>\n}\n",
                               "r.mlir");
  ASSERT_TRUE(r.parsed()) << r.error;
  ASSERT_EQ(r.functions.size(), 1u);
  EXPECT_FALSE(r.functions[0].ok);
  EXPECT_EQ(r.functions[0].op, "tosa.rescale");
  EXPECT_EQ(r.functions[0].error.rfind("r.mlir:2:8: error: cannot import 'tosa.rescale': ", 0), 0u)
      << r.functions[0].error;
}

/// The one function of `mlir` is refused, its error containing `want`.
void expect_refused(const std::string& mlir, const std::string& want) {
  ImportResult r = import_mlir(mlir, "r.mlir");
  ASSERT_TRUE(r.parsed()) << r.error;
  ASSERT_EQ(r.functions.size(), 1u);
  EXPECT_FALSE(r.functions[0].ok) << mlir;
  EXPECT_NE(r.functions[0].error.find(want), std::string::npos) << r.functions[0].error;
}

// Generic StableHLO is not verified by MLIR: an operand too many, an attribute, or a constant whose value
// has another type than its result would otherwise get a meaning made up by the importer.
TEST(MlirImport, MalformedGenericStableHloIsRefused) {
  expect_refused(R"(func.func @k(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
    %r = "stablehlo.add"(%a, %b, %a) : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    return %r : tensor<2xf32>
  })", "takes 2 operands, has 3");
  expect_refused(R"(func.func @k(%a: tensor<2xf32>) -> tensor<2xf32> {
    %r = "stablehlo.add"(%a) : (tensor<2xf32>) -> tensor<2xf32>
    return %r : tensor<2xf32>
  })", "takes 2 operands, has 1");
  expect_refused(R"(func.func @k(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
    %r = "stablehlo.negate"(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    return %r : tensor<2xf32>
  })", "takes 1 operand, has 2");
  expect_refused(R"(func.func @k(%a: tensor<2xf32>) -> tensor<2xf32> {
    %r = "stablehlo.negate"(%a) {foo = 1} : (tensor<2xf32>) -> tensor<2xf32>
    return %r : tensor<2xf32>
  })", "attribute 'foo'");
  expect_refused(R"(func.func @k(%a: tensor<2xf32>) -> tensor<2xf64> {
    %r = "stablehlo.negate"(%a) : (tensor<2xf32>) -> tensor<2xf64>
    return %r : tensor<2xf64>
  })", "the operand's type differs");
  expect_refused(R"(func.func @f() -> tensor<2xf64> {
    %r = "stablehlo.constant"() {value = dense<[1.5, 2.5]> : tensor<2xf32>} : () -> tensor<2xf64>
    return %r : tensor<2xf64>
  })", "not a dense literal of the result's type");
  expect_refused(R"(func.func @f() -> tensor<2xf32> {
    %r = "stablehlo.constant"() {value = dense<[1, 2]> : tensor<2xi32>} : () -> tensor<2xf32>
    return %r : tensor<2xf32>
  })", "not a dense literal of the result's type");
}

// nnan/ninf make a NaN or an infinity poison in MLIR, on a cast as on arithmetic.
TEST(MlirImport, NnanNinfOnACastIsRefused) {
  expect_refused(R"(func.func @t(%a: f64) -> f32 {
    %r = arith.truncf %a fastmath<nnan,ninf> : f64 to f32
    return %r : f32
  })", "fast-math nnan/ninf");
  expect_refused(R"(func.func @t(%a: f32) -> f64 {
    %r = arith.extf %a fastmath<nnan> : f32 to f64
    return %r : f64
  })", "fast-math nnan/ninf");
}

// Types beyond PTIR's limits are refused, not wrapped around (4294967296^2 elements made 0).
TEST(MlirImport, TypesBeyondPtirsLimitsAreRefused) {
  expect_refused(R"(func.func @f() -> tensor<4294967296x4294967296xf32> {
    %r = arith.constant dense<1.0> : tensor<4294967296x4294967296xf32>
    return %r : tensor<4294967296x4294967296xf32>
  })", "tensor<4294967296x4294967296xf32>");
}

// A function inside a nested module would be left out, and a check of the file would say nothing about
// it: the whole file is refused instead.
TEST(MlirImport, FunctionsInNestedModulesAreRefused) {
  ImportResult r = import_mlir(R"(module {
    module @inner {
      func.func @g(%a: tensor<2xf32>) -> tensor<2xf32> {
        %r = arith.negf %a : tensor<2xf32>
        return %r : tensor<2xf32>
      }
    }
    func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
      return %a : tensor<2xf32>
    }
  })", "n.mlir");
  EXPECT_FALSE(r.all_ok());
  EXPECT_NE(r.error.find("@g is inside a nested op"), std::string::npos) << r.error;
}

TEST(MlirImport, ParseErrorsHaveLocations) {
  ImportResult r = import_mlir("func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n  return %y : tensor<4xf32>\n}\n",
                               "bad.mlir");
  EXPECT_FALSE(r.parsed());
  EXPECT_NE(r.error.find("bad.mlir:2:"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("error:"), std::string::npos) << r.error;
}

TEST(MlirImport, UniformFastMathBecomesTheFunctionsFlags) {
  ImportResult r = import_mlir(R"(func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = arith.addf %x, %x fastmath<nsz> : tensor<4xf32>
    %b = arith.mulf %a, %x fastmath<nsz> : tensor<4xf32>
    return %b : tensor<4xf32>
  })",
                               "fm.mlir");
  ASSERT_TRUE(r.all_ok()) << r.first_error();
  EXPECT_TRUE(r.program->body(r.program->find_body("f", false)).fastmath.has(FastMathFlag::NSZ));
  // On the output side of a check they are refused (MLIR's nsz is wider than PTIR's).
  ImportResult tgt = import_mlir(R"(func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = arith.addf %x, %x fastmath<nsz> : tensor<4xf32>
    return %a : tensor<4xf32>
  })",
                                 "fm.mlir", Side::Target);
  ASSERT_TRUE(tgt.parsed());
  EXPECT_FALSE(tgt.functions[0].ok);
  EXPECT_NE(tgt.functions[0].error.find("on the output of a check"), std::string::npos) << tgt.functions[0].error;
  ImportResult mixed = import_mlir(R"(func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = arith.addf %x, %x fastmath<nsz> : tensor<4xf32>
    %b = arith.mulf %a, %x : tensor<4xf32>
    return %b : tensor<4xf32>
  })",
                                   "fm.mlir");
  ASSERT_TRUE(mixed.parsed());
  EXPECT_FALSE(mixed.functions[0].ok);
  EXPECT_NE(mixed.functions[0].error.find("fast-math flags differ"), std::string::npos) << mixed.functions[0].error;
}

TEST(MlirImport, StableHloGenericForm) {
  expect_result(R"(func.func @f(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
    %a = "stablehlo.maximum"(%x, %y) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %b = "stablehlo.negate"(%a) : (tensor<3xf32>) -> tensor<3xf32>
    return %b : tensor<3xf32>
  })",
                {"dense<[-0.0, nan, 1.0]> : tensor<f32, 3>", "dense<[0.0, 2.0, -3.0]> : tensor<f32, 3>"},
                "dense<[-0.0, nan, -1.0]> : tensor<f32, 3>");
  ImportResult r = import_mlir(R"(func.func @f(%x: tensor<3xi32>) -> tensor<3xi32> {
    %a = "stablehlo.add"(%x, %x) : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
    return %a : tensor<3xi32>
  })",
                               "h.mlir");
  ASSERT_TRUE(r.parsed()) << r.error;
  EXPECT_FALSE(r.functions[0].ok);
  EXPECT_EQ(r.functions[0].op, "stablehlo.add");
}

TEST(MlirImport, TensorReshapeNeedsItsConstantShape) {
  ImportResult r = import_mlir(R"(func.func @f(%x: tensor<6xf32>, %s: tensor<2xi64>) -> tensor<2x3xf32> {
    %a = tensor.reshape %x(%s) : (tensor<6xf32>, tensor<2xi64>) -> tensor<2x3xf32>
    return %a : tensor<2x3xf32>
  })",
                               "r.mlir");
  ASSERT_TRUE(r.parsed()) << r.error;
  EXPECT_FALSE(r.functions[0].ok);
  EXPECT_NE(r.functions[0].error.find("shape operand is not a constant"), std::string::npos) << r.functions[0].error;
}

/// Imports `mlir` (one function) and expects it refused at `op` with `why` in the message.
void expect_refused(const std::string& mlir, const std::string& op, const std::string& why) {
  ImportResult r = import_mlir(mlir, "t.mlir");
  ASSERT_TRUE(r.parsed()) << r.error;
  ASSERT_EQ(r.functions.size(), 1u);
  EXPECT_FALSE(r.functions[0].ok);
  EXPECT_EQ(r.functions[0].op, op);
  EXPECT_NE(r.functions[0].error.find(why), std::string::npos) << r.functions[0].error;
}

/// A one-op function `%r = OP %x ATTRS : (IN) -> OUT`.
std::string unary(const std::string& op, const std::string& in, const std::string& out, const std::string& attrs = "") {
  return "func.func @f(%x: " + in + ") -> " + out + " {\n  %r = " + op + " %x " + attrs + " : (" + in + ") -> " + out +
         "\n  return %r : " + out + "\n}\n";
}

TEST(MlirImport, TosaNegateAndAbsOfFloats) {
  // MLIR 19 lowers them to arith.negf / math.absf: a sign flip / a cleared sign bit, zeros and NaN too.
  expect_result(unary("tosa.negate", "tensor<5xf32>", "tensor<5xf32>"),
                {"dense<[-0.0, 0.0, 0x7F800000, 0x7FC00000, 1.5]> : tensor<f32, 5>"},
                "dense<[0.0, -0.0, 0xFF800000, 0x7FC00000, -1.5]> : tensor<f32, 5>");
  expect_result(unary("tosa.abs", "tensor<4xbf16>", "tensor<4xbf16>"),
                {"dense<[-0.0, 0xFF80, 0xFFC0, -2.0]> : tensor<bf16, 4>"},
                "dense<[0.0, 0x7F80, 0x7FC0, 2.0]> : tensor<bf16, 4>");
  expect_refused(unary("tosa.negate", "tensor<4xi8>", "tensor<4xi8>"), "tosa.negate", "wraps at the type's minimum");
  expect_refused(unary("tosa.abs", "tensor<4xi32>", "tensor<4xi32>"), "tosa.abs", "|MIN| overflows");
}

TEST(MlirImport, TosaMaximumMinimumPropagateNaNAndOrderZeros) {
  auto f = [](const char* op, const char* t) {
    return std::string("func.func @f(%x: tensor<5x") + t + ">, %y: tensor<5x" + t + ">) -> tensor<5x" + t +
           "> {\n  %r = tosa." + op + " %x, %y : (tensor<5x" + t + ">, tensor<5x" + t + ">) -> tensor<5x" + t +
           ">\n  return %r : tensor<5x" + t + ">\n}\n";
  };
  const std::vector<std::string> in = {"dense<[-0.0, 0.0, 0x7FC00000, 1.0, 0xFF800000]> : tensor<f32, 5>",
                                       "dense<[0.0, -0.0, 1.0, 0x7FC00000, -3.0]> : tensor<f32, 5>"};
  expect_result(f("maximum", "f32"), in, "dense<[0.0, 0.0, 0x7FC00000, 0x7FC00000, -3.0]> : tensor<f32, 5>");
  expect_result(f("minimum", "f32"), in, "dense<[-0.0, -0.0, 0x7FC00000, 0x7FC00000, 0xFF800000]> : tensor<f32, 5>");
  const std::vector<std::string> iin = {"dense<[-128, 127, 0, -1, 5]> : tensor<si8, 5>",
                                        "dense<[127, -128, -1, 0, 5]> : tensor<si8, 5>"};
  expect_result(f("maximum", "i8"), iin, "dense<[127, 127, 0, 0, 5]> : tensor<si8, 5>");
  expect_result(f("minimum", "i8"), iin, "dense<[-128, -128, -1, -1, 5]> : tensor<si8, 5>");
  // broadcasting, as the other elementwise TOSA ops
  expect_result(R"(func.func @f(%x: tensor<2x1xf32>, %y: tensor<1x2xf32>) -> tensor<2x2xf32> {
    %r = tosa.maximum %x, %y : (tensor<2x1xf32>, tensor<1x2xf32>) -> tensor<2x2xf32>
    return %r : tensor<2x2xf32>
  })",
                {"dense<[[1.0], [-1.0]]> : tensor<f32, 2x1>", "dense<[[0.0, 2.0]]> : tensor<f32, 1x2>"},
                "dense<[[1.0, 2.0], [0.0, 2.0]]> : tensor<f32, 2x2>");
}

TEST(MlirImport, TosaClamp) {
  const std::string a = "{min_int = -2 : i64, max_int = 3 : i64, min_fp = -1.0 : f32, max_fp = 2.0 : f32}";
  // floats: minimumf(x, 2.0) then maximumf(., -1.0): NaN propagates, -0.0 stays
  expect_result(unary("tosa.clamp", "tensor<6xf32>", "tensor<6xf32>", a),
                {"dense<[-0.0, 0x7FC00000, -5.0, 5.0, 0.5, 0xFF800000]> : tensor<f32, 6>"},
                "dense<[-0.0, 0x7FC00000, -1.0, 2.0, 0.5, -1.0]> : tensor<f32, 6>");
  // a +0.0 lower bound lifts -0.0 to +0.0 (maximumf orders -0.0 below +0.0)
  expect_result(unary("tosa.clamp", "tensor<2xf32>", "tensor<2xf32>",
                      "{min_int = 0 : i64, max_int = 1 : i64, min_fp = 0.0 : f32, max_fp = 1.0 : f32}"),
                {"dense<[-0.0, 0.0]> : tensor<f32, 2>"}, "dense<[0.0, 0.0]> : tensor<f32, 2>");
  // f16: the f32 bound -1.1 is rounded to f16 (RNE) first, as MLIR 19's lowering does: 0xBC66 = -1.0996094
  expect_result(unary("tosa.clamp", "tensor<2xf16>", "tensor<2xf16>",
                      "{min_int = 0 : i64, max_int = 1 : i64, min_fp = -1.1 : f32, max_fp = 1.0 : f32}"),
                {"dense<[-2.0, 3.0]> : tensor<f16, 2>"}, "dense<[0xBC66, 1.0]> : tensor<f16, 2>");
  // integers: max(min_int, x) then min(max_int, .)
  expect_result(unary("tosa.clamp", "tensor<5xi8>", "tensor<5xi8>", a),
                {"dense<[-128, 127, 0, -3, 4]> : tensor<si8, 5>"}, "dense<[-2, 3, 0, -2, 3]> : tensor<si8, 5>");
  // bounds beyond the type's range are clipped to it first: the identity
  expect_result(unary("tosa.clamp", "tensor<3xi8>", "tensor<3xi8>",
                      "{min_int = -200 : i64, max_int = 300 : i64, min_fp = 0.0 : f32, max_fp = 1.0 : f32}"),
                {"dense<[-128, 127, 0]> : tensor<si8, 3>"}, "dense<[-128, 127, 0]> : tensor<si8, 3>");
  expect_refused(unary("tosa.clamp", "tensor<3xi8>", "tensor<3xi8>",
                       "{min_int = 5 : i64, max_int = 1 : i64, min_fp = 0.0 : f32, max_fp = 1.0 : f32}"),
                 "tosa.clamp", "min_int above max_int");
  expect_refused(unary("tosa.clamp", "tensor<3xf32>", "tensor<3xf32>",
                       "{min_int = 0 : i64, max_int = 1 : i64, min_fp = 0.0 : f32, max_fp = -0.0 : f32}"),
                 "tosa.clamp", "min_fp above max_fp");
}

TEST(MlirImport, TosaReductions) {
  const std::string x = "dense<[[1, -128, 5], [7, 2, -1]]> : tensor<si8, 2x3>";
  expect_result(unary("tosa.reduce_max", "tensor<2x3xi8>", "tensor<2x1xi8>", "{axis = 1 : i32}"), {x},
                "dense<[[5], [7]]> : tensor<si8, 2x1>");
  expect_result(unary("tosa.reduce_min", "tensor<2x3xi8>", "tensor<1x3xi8>", "{axis = 0 : i32}"), {x},
                "dense<[[1, -128, -1]]> : tensor<si8, 1x3>");
  expect_refused(unary("tosa.reduce_max", "tensor<2x3xf32>", "tensor<2x1xf32>", "{axis = 1 : i32}"),
                 "tosa.reduce_max", "largest finite negative");
  expect_refused(unary("tosa.reduce_sum", "tensor<2x3xf32>", "tensor<2x1xf32>", "{axis = 1 : i32}"),
                 "tosa.reduce_sum", "summation order");
  expect_refused(unary("tosa.reduce_prod", "tensor<2x3xi32>", "tensor<2x1xi32>", "{axis = 1 : i32}"),
                 "tosa.reduce_prod", "no product reduction");
}

TEST(MlirImport, TosaCast) {
  // integer narrowing wraps (arith.trunci in MLIR 19's lowering), widening sign-extends
  expect_result(unary("tosa.cast", "tensor<4xi32>", "tensor<4xi8>"),
                {"dense<[300, -129, 127, -128]> : tensor<si32, 4>"}, "dense<[44, 127, 127, -128]> : tensor<si8, 4>");
  expect_result(unary("tosa.cast", "tensor<2xi8>", "tensor<2xi32>"), {"dense<[-128, 5]> : tensor<si8, 2>"},
                "dense<[-128, 5]> : tensor<si32, 2>");
  // to i1: x != 0 (floats: cmpf une, so NaN is true and -0.0 false)
  expect_result(unary("tosa.cast", "tensor<4xf32>", "tensor<4xi1>"),
                {"dense<[-0.0, 0x7FC00000, 0.5, 0.0]> : tensor<f32, 4>"}, "dense<[false, true, true, false]> : tensor<i1, 4>");
  expect_result(unary("tosa.cast", "tensor<3xi32>", "tensor<3xi1>"), {"dense<[0, -1, 2]> : tensor<si32, 3>"},
                "dense<[false, true, true]> : tensor<i1, 3>");
  // from i1: 0 or 1 (uitofp / extui)
  expect_result(unary("tosa.cast", "tensor<2xi1>", "tensor<2xf32>"), {"dense<[true, false]> : tensor<i1, 2>"},
                "dense<[1.0, 0.0]> : tensor<f32, 2>");
  expect_result(unary("tosa.cast", "tensor<2xi1>", "tensor<2xi8>"), {"dense<[true, false]> : tensor<i1, 2>"},
                "dense<[1, 0]> : tensor<si8, 2>");
  // int -> float RNE (2^24 + 1 ties to even), float -> float RNE (65520 overflows f16 to inf)
  expect_result(unary("tosa.cast", "tensor<2xi32>", "tensor<2xf32>"), {"dense<[16777217, -3]> : tensor<si32, 2>"},
                "dense<[16777216.0, -3.0]> : tensor<f32, 2>");
  expect_result(unary("tosa.cast", "tensor<3xf32>", "tensor<3xf16>"),
                {"dense<[65520.0, -0.0, 0x7FC00000]> : tensor<f32, 3>"}, "dense<[0x7C00, -0.0, 0x7E00]> : tensor<f16, 3>");
  expect_refused(unary("tosa.cast", "tensor<2xf32>", "tensor<2xi8>"), "tosa.cast", "float to integer");
  // f16 <-> bf16: MLIR 19's lowering is an arith.truncf that does not verify: no meaning to import
  expect_refused(unary("tosa.cast", "tensor<2xf16>", "tensor<2xbf16>"), "tosa.cast", "float to float of the same width");
  expect_refused(unary("tosa.cast", "tensor<2xbf16>", "tensor<2xf16>"), "tosa.cast", "float to float of the same width");
}

TEST(MlirImport, TosaPad) {
  // pad_const absent: +0.0 (the lowering's tensor.pad yields 0.0); present: its value, -0.0 kept
  expect_result(R"(func.func @f(%x: tensor<2xf32>) -> tensor<5xf32> {
    %p = "tosa.const"() {value = dense<[[1, 2]]> : tensor<1x2xi64>} : () -> tensor<1x2xi64>
    %r = tosa.pad %x, %p : (tensor<2xf32>, tensor<1x2xi64>) -> tensor<5xf32>
    return %r : tensor<5xf32>
  })",
                {"dense<[1.0, 0x7FC00000]> : tensor<f32, 2>"}, "dense<[0.0, 1.0, 0x7FC00000, 0.0, 0.0]> : tensor<f32, 5>");
  expect_result(R"(func.func @f(%x: tensor<1x1xf32>) -> tensor<2x2xf32> {
    %p = "tosa.const"() {value = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : () -> tensor<2x2xi64>
    %c = "tosa.const"() {value = dense<-0.0> : tensor<f32>} : () -> tensor<f32>
    %r = tosa.pad %x, %p, %c : (tensor<1x1xf32>, tensor<2x2xi64>, tensor<f32>) -> tensor<2x2xf32>
    return %r : tensor<2x2xf32>
  })",
                {"dense<[[3.0]]> : tensor<f32, 1x1>"}, "dense<[[-0.0, 3.0], [-0.0, -0.0]]> : tensor<f32, 2x2>");
  expect_refused(R"(func.func @f(%x: tensor<2xf32>, %p: tensor<1x2xi64>) -> tensor<5xf32> {
    %r = tosa.pad %x, %p : (tensor<2xf32>, tensor<1x2xi64>) -> tensor<5xf32>
    return %r : tensor<5xf32>
  })",
                 "tosa.pad", "the padding is not a constant");
}

}  // namespace
}  // namespace ptir::mlirfe
