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

}  // namespace
}  // namespace ptir::mlirfe
