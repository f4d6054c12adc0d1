/// Verifier rules of the control family: the region signatures of cond, while and scan against their
/// operands and results, return against the body's declared results, and recursive regions.
#include "tests/ir/verifier_util.h"

namespace ptir {
namespace {
using testing_verifier::first_error;

/// Replaces the first occurrence of `from` in `s`, so each near miss differs from the valid case in one spot.
std::string edit(std::string s, const std::string& from, const std::string& to) {
  size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

const std::string kCond = R"(
region ^t(%a: tensor<f32, 2>) -> tensor<f32, 2> {
  %y = neg %a -> tensor<f32, 2>
  return %y
}
region ^e(%a: tensor<f32, 2>) -> tensor<f32, 2> {
  return dense<0.0> : tensor<f32, 2>
}
func @f(%p: tensor<i1>, %x: tensor<f32, 2>) -> tensor<f32, 2> {
  %r = cond %p, %x then[^t] else[^e] -> tensor<f32, 2>
  return %r
}
)";

TEST(VerifierControl, CondRegionsTakeTheArgsAndReturnTheResults) {
  EXPECT_EQ(first_error(kCond), "");
  EXPECT_EQ(first_error(edit(kCond, "%p: tensor<i1>", "%p: tensor<i1, 1>")),
            "cond: operand 0 (pred) has type tensor<i1, 1>, expected tensor<i1>");
  EXPECT_EQ(first_error(edit(kCond, "region ^e(%a: tensor<f32, 2>)", "region ^e(%a: tensor<f32, 3>)")),
            "cond: else[^e] parameter 0 has type tensor<f32, 3>, expected tensor<f32, 2>");
  EXPECT_EQ(first_error(edit(kCond, "region ^t(%a: tensor<f32, 2>)", "region ^t(%a: tensor<f32, 2>, %b: tensor<f32>)")),
            "cond: then[^t] takes 2 parameters, expected 1 (the args of cond)");
  EXPECT_EQ(first_error(edit(edit(kCond, "-> tensor<f32, 2> {\n  %y", "-> tensor<si32> {\n  %y"), "return %y",
                             "return dense<0> : tensor<si32>")),
            "cond: then[^t] result 0 has type tensor<si32>, expected tensor<f32, 2>");
  EXPECT_EQ(first_error(edit(edit(kCond, "-> tensor<f32, 2> {\n  return dense", "-> (tensor<f32, 2>, tensor<f32, 2>) {\n  return dense"),
                             "return dense<0.0> : tensor<f32, 2>", "return %a, %a")),
            "cond: else[^e] returns 2 values, expected 1 (the results of cond)");
}

TEST(VerifierControl, CondWithoutArgsAndWithEmptyTensors) {
  EXPECT_EQ(first_error(R"(
region ^t() -> tensor<f32, 0> {
  return dense<[]> : tensor<f32, 0>
}
func @f(%p: tensor<i1>) -> tensor<f32, 0> {
  %r = cond %p then[^t] else[^t] -> tensor<f32, 0>
  return %r
}
)"),
            "");
}

const std::string kWhile = R"(
region ^c(%i: tensor<si32>, %s: tensor<f32, 0>) -> tensor<i1> {
  %b = compare %i, dense<10> : tensor<si32> dir[lt] -> tensor<i1>
  return %b
}
region ^b(%i: tensor<si32>, %s: tensor<f32, 0>) -> (tensor<si32>, tensor<f32, 0>) {
  %n = add %i, dense<1> : tensor<si32> -> tensor<si32>
  return %n, %s
}
func @f(%x: tensor<si32>, %s: tensor<f32, 0>) -> tensor<si32> {
  %r, %t = while %x, %s cond[^c] body[^b] -> (tensor<si32>, tensor<f32, 0>)
  return %r
}
)";

TEST(VerifierControl, WhileRegionsCarryTheState) {
  EXPECT_EQ(first_error(kWhile), "");
  EXPECT_EQ(first_error(edit(kWhile, "-> (tensor<si32>, tensor<f32, 0>)\n", "-> (tensor<si64>, tensor<f32, 0>)\n")),
            "while: result 0 has type tensor<si64>, expected tensor<si32> (the type of init operand 0)");
  EXPECT_EQ(first_error(edit(edit(kWhile, "%r, %t = while", "%r = while"), "-> (tensor<si32>, tensor<f32, 0>)\n",
                             "-> tensor<si32>\n")),
            "while: has 1 result, expected 2 (one per init operand)");
  EXPECT_EQ(first_error(edit(edit(kWhile, "-> tensor<i1> {", "-> tensor<si32> {"), "return %b", "return %i")),
            "while: cond[^c] result 0 has type tensor<si32>, expected tensor<i1>");
  EXPECT_EQ(first_error(edit(kWhile, "region ^b(%i: tensor<si32>, %s: tensor<f32, 0>)",
                             "region ^b(%i: tensor<si32>, %s: tensor<f32, 0>, %u: tensor<f32>)")),
            "while: body[^b] takes 3 parameters, expected 2 (the loop state)");
  EXPECT_EQ(first_error(edit(kWhile, "region ^c(%i: tensor<si32>, %s: tensor<f32, 0>)",
                             "region ^c(%i: tensor<si32>, %s: tensor<f32, 1>)")),
            "while: cond[^c] parameter 1 has type tensor<f32, 1>, expected tensor<f32, 0>");
}

const std::string kScan = R"(
region ^s(%acc: tensor<f32>, %x: tensor<f32, 3>) -> (tensor<f32>, tensor<f32, 3>) {
  %t = reduce_sum %x axes[0] -> tensor<f32>
  %a = add %acc, %t -> tensor<f32>
  %y = neg %x -> tensor<f32, 3>
  return %a, %y
}
func @f(%init: tensor<f32>, %xs: tensor<f32, 5x3>) -> (tensor<f32>, tensor<f32, 5x3>) {
  %c, %ys = scan %init, %xs body[^s] carries[1] -> (tensor<f32>, tensor<f32, 5x3>)
  return %c, %ys
}
)";

TEST(VerifierControl, ScanSlicesXsAndStacksYs) {
  EXPECT_EQ(first_error(kScan), "");
  EXPECT_EQ(first_error(edit(kScan, "carries[1]", "carries[3]")), "scan: carries[3] is out of range for 2 operands");
  EXPECT_EQ(first_error(edit(kScan, "carries[1]", "carries[-1]")), "scan: carries[-1] is out of range for 2 operands");
  EXPECT_EQ(first_error(edit(kScan, "carries[1]", "carries[2]")),
            "scan: needs at least one xs operand after the 2 carries (the xs give the length)");
  EXPECT_EQ(first_error(edit(kScan, "-> (tensor<f32>, tensor<f32, 5x3>)\n  return", "-> (tensor<f32>, tensor<f32, 4x3>)\n  return")),
            "scan: result 1 has type tensor<f32, 4x3>, expected a leading dim of 5 (a stacked y)");
  EXPECT_EQ(first_error(edit(kScan, "scan %init, %xs body[^s] carries[1] -> (tensor<f32>,",
                             "scan %init, %xs body[^s] carries[1] -> (tensor<f64>,")),
            "scan: result 0 has type tensor<f64>, expected tensor<f32> (the type of carry 0)");
  EXPECT_EQ(first_error(edit(kScan, "%xs: tensor<f32, 5x3>", "%xs: tensor<f32, 5x4>")),
            "scan: body[^s] parameter 1 has type tensor<f32, 3>, expected tensor<f32, 4>");
}

TEST(VerifierControl, ScanXsShareTheLeadingDim) {
  const std::string two_xs = R"(
region ^s(%x: tensor<f32>, %z: tensor<si32, 2>) -> tensor<f32> {
  return %x
}
func @f(%xs: tensor<f32, 4>, %zs: tensor<si32, 4x2>) -> tensor<f32, 4> {
  %ys = scan %xs, %zs body[^s] carries[0] -> tensor<f32, 4>
  return %ys
}
)";
  EXPECT_EQ(first_error(two_xs), "");
  EXPECT_EQ(first_error(edit(two_xs, "%zs: tensor<si32, 4x2>", "%zs: tensor<si32, 3x2>")),
            "scan: operand 1 (xs 1) has leading dim 3, expected 4 (the leading dim of operand 0)");
  EXPECT_EQ(first_error(edit(two_xs, "%zs: tensor<si32, 4x2>", "%zs: tensor<si32>")),
            "scan: operand 1 (xs 1) has type tensor<si32>, expected rank >= 1");
}

TEST(VerifierControl, RecursiveRegionsAreRejected) {
  EXPECT_EQ(first_error(R"(
region ^r(%p: tensor<i1>) -> tensor<i1> {
  %y = cond %p, %p then[^r] else[^s] -> tensor<i1>
  return %y
}
region ^s(%p: tensor<i1>) -> tensor<i1> {
  return %p
}
func @f(%p: tensor<i1>) -> tensor<i1> {
  %y = cond %p, %p then[^s] else[^r] -> tensor<i1>
  return %y
}
)"),
            "cond: region ^r is used recursively (^r -> ^r)");
  EXPECT_EQ(first_error(R"(
region ^a(%p: tensor<i1>) -> tensor<i1> {
  %y = cond %p, %p then[^b] else[^b] -> tensor<i1>
  return %y
}
region ^b(%p: tensor<i1>) -> tensor<i1> {
  %y = cond %p, %p then[^a] else[^a] -> tensor<i1>
  return %y
}
func @f(%p: tensor<i1>) -> tensor<i1> {
  return %p
}
)"),
            "cond: region ^a is used recursively (^a -> ^b -> ^a)");
}

TEST(VerifierControl, ReturnMatchesTheBodySignature) {
  EXPECT_EQ(first_error("func @f(%x: tensor<f32, 3>) -> tensor<f32, 2> {\n  return %x\n}\n"),
            "return: value 0 has type tensor<f32, 3>, expected tensor<f32, 2> (result 0 of @f)");
  EXPECT_EQ(first_error("func @f(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {\n  return %x\n}\n"),
            "return: returns 1 value, @f declares 2 results");
  EXPECT_EQ(first_error("region ^r(%x: tensor<f32>) -> tensor<f32> {\n  return %x, %x\n}\n"
                        "func @f() -> tensor<f32> {\n  return dense<1.0> : tensor<f32>\n}\n"),
            "return: returns 2 values, ^r declares 1 result");
  EXPECT_EQ(first_error("func @f() -> () {\n  return\n}\n"), "");
  EXPECT_EQ(first_error("func @f(%x: tensor<f32, 0x2>) -> tensor<f32, 0x2> {\n  return %x\n}\n"), "");
}

}  // namespace
}  // namespace ptir
