// Elementwise ops: IEEE rounding in every float dtype (ties to even, overflow, subnormals), signed zeros,
// NaN rules, integer wrap-around and division UB. Expected bit patterns are worked out by hand.
#include "tests/ir/interp_test_util.h"

namespace ptir::test {
namespace {

Bits binop(std::string_view op, std::string_view type, const Bits& a, const Bits& b) {
  std::string t(type);
  return ok_bits(run_op(std::string(op) + " %a, %b", t, {from_bits(t, a), from_bits(t, b)}));
}
Bits unop(std::string_view op, std::string_view type, const Bits& a) {
  std::string t(type);
  return ok_bits(run_op(std::string(op) + " %a", t, {from_bits(t, a)}));
}

/// 0.1f + 0.2f rounds to 0x3E99999A; signed zeros follow IEEE: -0 + -0 = -0, -0 + +0 = +0.
TEST(InterpElementwise, F32AddSignedZeros) {
  EXPECT_EQ(binop("add", "tensor<f32, 4>", {0x3DCCCCCD, 0x80000000, 0x80000000, 0x7F800000},
                  {0x3E4CCCCD, 0x80000000, 0x00000000, 0xFF800000}),
            (Bits{0x3E99999A, 0x80000000, 0x00000000, 0x7FC00000}));
}

/// x - x is +0 in round-to-nearest; inf - inf is NaN.
TEST(InterpElementwise, F32SubZeroAndNan) {
  EXPECT_EQ(binop("sub", "tensor<f32, 2>", {0x40490FDB, 0x7F800000}, {0x40490FDB, 0x7F800000}),
            (Bits{0x00000000, 0x7FC00000}));
}

/// Subnormal products: 2^-149 * 0.5 ties to even (0), 3*2^-149 * 0.5 ties to 2*2^-149, -2^-149*0.5 = -0.
TEST(InterpElementwise, F32SubnormalMul) {
  EXPECT_EQ(binop("mul", "tensor<f32, 4>", {0x00000001, 0x00000003, 0x80000001, 0x00800000},
                  {0x3F000000, 0x3F000000, 0x3F000000, 0x3F000000}),
            (Bits{0x00000000, 0x00000002, 0x80000000, 0x00400000}));
}

/// Division by zeros gives signed infinities, 0/0 NaN.
TEST(InterpElementwise, F32DivByZero) {
  EXPECT_EQ(binop("div", "tensor<f32, 4>", {0x3F800000, 0xBF800000, 0x00000000, 0x3F800000},
                  {0x00000000, 0x00000000, 0x00000000, 0x80000000}),
            (Bits{0x7F800000, 0xFF800000, 0x7FC00000, 0xFF800000}));
}

/// f64: 0.1 + 0.2 = 0x3FD3333333333334.
TEST(InterpElementwise, F64Add) {
  EXPECT_EQ(binop("add", "tensor<f64, 1>", {0x3FB999999999999A}, {0x3FC999999999999A}), (Bits{0x3FD3333333333334}));
}

/// f16 ties to even: 1 + 2^-11 -> 1; (1 + 2^-10) + 2^-11 -> 1 + 2^-9; a tail above the tie rounds up.
TEST(InterpElementwise, F16AddTiesToEven) {
  EXPECT_EQ(binop("add", "tensor<f16, 3>", {0x3C00, 0x3C01, 0x3C00}, {0x1000, 0x1000, 0x1001}),
            (Bits{0x3C00, 0x3C02, 0x3C01}));
}

/// f16 overflow: 65504 + 16 is the tie to 65536 and rounds to even = inf; 65504 + 8 stays 65504.
TEST(InterpElementwise, F16AddOverflow) {
  EXPECT_EQ(binop("add", "tensor<f16, 3>", {0x7BFF, 0x7BFF, 0xFBFF}, {0x4C00, 0x4800, 0xCC00}),
            (Bits{0x7C00, 0x7BFF, 0xFC00}));
}

/// f16 subnormal results: 2^-24 * 0.5 -> 0, 3*2^-24 * 0.5 -> 2*2^-24, 2^-14 * 0.5 = 2^-15 (0x0200).
TEST(InterpElementwise, F16SubnormalMul) {
  EXPECT_EQ(binop("mul", "tensor<f16, 4>", {0x0001, 0x0003, 0x0400, 0x8001}, {0x3800, 0x3800, 0x3800, 0x3800}),
            (Bits{0x0000, 0x0002, 0x0200, 0x8000}));
}

/// f16 division and sqrt are correctly rounded: 1/3 = 0x3555, sqrt(2) = 0x3DA8.
TEST(InterpElementwise, F16DivSqrt) {
  EXPECT_EQ(binop("div", "tensor<f16, 1>", {0x3C00}, {0x4200}), (Bits{0x3555}));
  EXPECT_EQ(unop("sqrt", "tensor<f16, 1>", {0x4000}), (Bits{0x3DA8}));
}

/// bf16 ties to even (ulp at 1 is 2^-7), overflow of the largest finite by half an ulp, subnormals.
TEST(InterpElementwise, Bf16Rounding) {
  EXPECT_EQ(binop("add", "tensor<bf16, 3>", {0x3F80, 0x3F81, 0x7F7F}, {0x3B80, 0x3B80, 0x7B00}),
            (Bits{0x3F80, 0x3F82, 0x7F80}));
  EXPECT_EQ(binop("mul", "tensor<bf16, 2>", {0x0001, 0x0003}, {0x3F00, 0x3F00}), (Bits{0x0000, 0x0002}));
}

/// neg and abs only touch the sign bit, NaN payloads included; integers wrap (-MIN = MIN).
TEST(InterpElementwise, NegAbs) {
  EXPECT_EQ(unop("neg", "tensor<f32, 3>", {0x7FC00001, 0x00000000, 0x00000001}), (Bits{0xFFC00001, 0x80000000, 0x80000001}));
  EXPECT_EQ(unop("abs", "tensor<f32, 2>", {0xFFC00001, 0x80000000}), (Bits{0x7FC00001, 0x00000000}));
  EXPECT_EQ(unop("neg", "tensor<si8, 3>", {0x80, 0x01, 0x00}), (Bits{0x80, 0xFF, 0x00}));
  EXPECT_EQ(unop("abs", "tensor<si8, 3>", {0x80, 0xFF, 0x05}), (Bits{0x80, 0x01, 0x05}));
  EXPECT_EQ(unop("neg", "tensor<ui8, 2>", {0x01, 0x00}), (Bits{0xFF, 0x00}));
  EXPECT_EQ(unop("abs", "tensor<ui8, 1>", {0xFF}), (Bits{0xFF}));
  EXPECT_EQ(unop("neg", "tensor<bf16, 1>", {0x3F80}), (Bits{0xBF80}));
}

/// sqrt(-0) = -0, sqrt(-1) = NaN, sqrt(inf) = inf, sqrt(2) = 0x3FB504F3; reciprocal(-0) = -inf.
TEST(InterpElementwise, SqrtReciprocal) {
  EXPECT_EQ(unop("sqrt", "tensor<f32, 4>", {0x80000000, 0xBF800000, 0x7F800000, 0x40000000}),
            (Bits{0x80000000, 0x7FC00000, 0x7F800000, 0x3FB504F3}));
  EXPECT_EQ(unop("reciprocal", "tensor<f32, 3>", {0x40400000, 0x80000000, 0x7F800000}),
            (Bits{0x3EAAAAAB, 0xFF800000, 0x00000000}));
  EXPECT_EQ(unop("reciprocal", "tensor<f64, 1>", {0x4008000000000000}), (Bits{0x3FD5555555555555}));
}

/// Transcendentals at exact points: exp(0)=1, log(1)=0, log(0)=-inf, log(-1)=NaN, tanh(inf)=1,
/// erf(-inf)=-1, rsqrt(4)=0.5, rsqrt(+-0)=+-inf.
TEST(InterpElementwise, TranscendentalExactPoints) {
  EXPECT_EQ(unop("exp", "tensor<f32, 2>", {0x00000000, 0xFF800000}), (Bits{0x3F800000, 0x00000000}));
  EXPECT_EQ(unop("log", "tensor<f32, 3>", {0x3F800000, 0x00000000, 0xBF800000}), (Bits{0x00000000, 0xFF800000, 0x7FC00000}));
  EXPECT_EQ(unop("tanh", "tensor<f32, 2>", {0x7F800000, 0x80000000}), (Bits{0x3F800000, 0x80000000}));
  EXPECT_EQ(unop("erf", "tensor<f64, 2>", {0xFFF0000000000000, 0x0000000000000000}), (Bits{0xBFF0000000000000, 0}));
  EXPECT_EQ(unop("rsqrt", "tensor<f32, 3>", {0x40800000, 0x00000000, 0x80000000}), (Bits{0x3F000000, 0x7F800000, 0xFF800000}));
}

/// f16/bf16 transcendentals are computed in f32 and rounded once: exp(1) = e -> 0x4170 in f16.
TEST(InterpElementwise, F16ExpThroughF32) {
  EXPECT_EQ(unop("exp", "tensor<f16, 2>", {0x3C00, 0x0000}), (Bits{0x4170, 0x3C00}));
  EXPECT_EQ(unop("exp", "tensor<bf16, 1>", {0x0000}), (Bits{0x3F80}));
}

/// IEEE 754-2019 maximum/minimum: NaN from either side, max(-0,+0)=+0 either order, min(+0,-0)=-0.
TEST(InterpElementwise, MaximumMinimum) {
  const Bits a{0x80000000, 0x00000000, 0x7FC00000, 0x3F800000, 0xFF800000};
  const Bits b{0x00000000, 0x80000000, 0x3F800000, 0x7FC00001, 0x3F800000};
  EXPECT_EQ(binop("maximum", "tensor<f32, 5>", a, b), (Bits{0x00000000, 0x00000000, 0x7FC00000, 0x7FC00000, 0x3F800000}));
  EXPECT_EQ(binop("minimum", "tensor<f32, 5>", a, b), (Bits{0x80000000, 0x80000000, 0x7FC00000, 0x7FC00000, 0xFF800000}));
  EXPECT_EQ(binop("maximum", "tensor<f16, 2>", {0x8000, 0x7E00}, {0x0000, 0x3C00}), (Bits{0x0000, 0x7E00}));
}

/// Integer max/min compare by signedness: ui8 255 > 1, si8 -1 < 1, si64 MIN < -1.
TEST(InterpElementwise, IntegerMaxMin) {
  EXPECT_EQ(binop("maximum", "tensor<ui8, 2>", {0xFF, 0x00}, {0x01, 0x01}), (Bits{0xFF, 0x01}));
  EXPECT_EQ(binop("maximum", "tensor<si8, 2>", {0xFF, 0x80}, {0x01, 0x7F}), (Bits{0x01, 0x7F}));
  EXPECT_EQ(binop("minimum", "tensor<si64, 1>", {0x8000000000000000}, {0xFFFFFFFFFFFFFFFF}), (Bits{0x8000000000000000}));
  EXPECT_EQ(binop("minimum", "tensor<ui64, 1>", {0x8000000000000000}, {0x1}), (Bits{0x1}));
}

/// Integers wrap in their width: ui8 200+100 = 44, si32 MIN-1 = MAX, si8 16*16 = 0, si16 mul sign.
TEST(InterpElementwise, IntegerWrap) {
  EXPECT_EQ(binop("add", "tensor<ui8, 1>", {200}, {100}), (Bits{44}));
  EXPECT_EQ(binop("sub", "tensor<si32, 1>", {0x80000000}, {1}), (Bits{0x7FFFFFFF}));
  EXPECT_EQ(binop("mul", "tensor<si8, 2>", {16, 0xFF}, {16, 0x80}), (Bits{0, 0x80}));
  EXPECT_EQ(binop("mul", "tensor<si16, 1>", {0xFFFE}, {3}), (Bits{0xFFFA}));
  EXPECT_EQ(binop("add", "tensor<ui64, 1>", {0xFFFFFFFFFFFFFFFF}, {2}), (Bits{1}));
}

/// Integer division truncates toward zero, signed and unsigned.
TEST(InterpElementwise, IntegerDiv) {
  EXPECT_EQ(binop("div", "tensor<si32, 4>", {7, 0xFFFFFFF9, 7, 0x80000000}, {0xFFFFFFFE, 2, 2, 1}),
            (Bits{0xFFFFFFFD, 0xFFFFFFFD, 3, 0x80000000}));
  EXPECT_EQ(binop("div", "tensor<ui8, 2>", {255, 7}, {2, 0xFF}), (Bits{127, 0}));
  EXPECT_EQ(binop("div", "tensor<si64, 1>", {0x8000000000000000}, {2}), (Bits{0xC000000000000000}));
}

/// Division by zero is UB naming the op and the element, never a host SIGFPE.
TEST(InterpElementwise, IntegerDivByZeroIsUB) {
  RunResult r = run_op("div %a, %b", "tensor<si32, 3>", {lit("dense<[1, 2, 3]> : tensor<si32, 3>"),
                                                          lit("dense<[1, 0, 1]> : tensor<si32, 3>")});
  EXPECT_EQ(r.status, RunStatus::UB);
  EXPECT_NE(r.message.find("div"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("element 1"), std::string::npos) << r.message;
  EXPECT_NE(r.at, kNone);
  r = run_op("div %a, %b", "tensor<ui64, 1>", {lit("dense<5> : tensor<ui64, 1>"), lit("dense<0> : tensor<ui64, 1>")});
  EXPECT_EQ(r.status, RunStatus::UB);
}

/// MIN / -1 is UB in every signed width (si64 would trap on the host).
TEST(InterpElementwise, IntegerMinDivMinusOneIsUB) {
  struct Case { const char* type; uint64_t min, minus1; };
  for (const Case& k : {Case{"tensor<si8, 2>", 0x80, 0xFF}, Case{"tensor<si16, 2>", 0x8000, 0xFFFF},
                        Case{"tensor<si32, 2>", 0x80000000, 0xFFFFFFFF},
                        Case{"tensor<si64, 2>", 0x8000000000000000, 0xFFFFFFFFFFFFFFFF}}) {
    RunResult r = run_op("div %a, %b", k.type, {from_bits(k.type, {4, k.min}), from_bits(k.type, {2, k.minus1})});
    EXPECT_EQ(r.status, RunStatus::UB) << k.type;
    EXPECT_NE(r.message.find("element 1"), std::string::npos) << r.message;
  }
}

/// Compare: NaN is unordered (only ne is true), -0 == +0, integers by signedness, i1 as 0 < 1.
TEST(InterpElementwise, Compare) {
  auto cmp = [](const char* dir, const char*, Tensor a, Tensor b) {
    std::string type = "tensor<i1, " + std::to_string(a.size()) + ">";
    return ok_bits(run_op(std::string("compare %a, %b dir[") + dir + "]", type, {a, b}));
  };
  Tensor x = from_bits("tensor<f32, 3>", {0x7FC00000, 0x80000000, 0x3F800000});
  Tensor y = from_bits("tensor<f32, 3>", {0x7FC00000, 0x00000000, 0x40000000});
  EXPECT_EQ(cmp("lt", "f32", x, y), (Bits{0, 0, 1}));
  EXPECT_EQ(cmp("le", "f32", x, y), (Bits{0, 1, 1}));
  EXPECT_EQ(cmp("eq", "f32", x, y), (Bits{0, 1, 0}));
  EXPECT_EQ(cmp("ge", "f32", x, y), (Bits{0, 1, 0}));
  EXPECT_EQ(cmp("gt", "f32", x, y), (Bits{0, 0, 0}));
  EXPECT_EQ(cmp("ne", "f32", x, y), (Bits{1, 0, 1}));
  EXPECT_EQ(cmp("lt", "si8", lit("dense<[-1, 5]> : tensor<si8, 2>"), lit("dense<[1, 5]> : tensor<si8, 2>")), (Bits{1, 0}));
  EXPECT_EQ(cmp("lt", "ui8", lit("dense<[255, 0]> : tensor<ui8, 2>"), lit("dense<[1, 1]> : tensor<ui8, 2>")), (Bits{0, 1}));
  EXPECT_EQ(cmp("gt", "i1", lit("dense<[true, false]> : tensor<i1, 2>"), lit("dense<[false, false]> : tensor<i1, 2>")),
            (Bits{1, 0}));
  EXPECT_EQ(cmp("lt", "si64", lit("dense<[-9223372036854775808]> : tensor<si64, 1>"),
                lit("dense<[9223372036854775807]> : tensor<si64, 1>")), (Bits{1}));
}

/// select copies bits (NaN payloads too) and never computes on the unused branch.
TEST(InterpElementwise, Select) {
  RunResult r = run_op("select %a, %b, %c", "tensor<f32, 3>",
                       {lit("dense<[true, false, true]> : tensor<i1, 3>"), from_bits("tensor<f32, 3>", {0x7FC00001, 1, 2}),
                        from_bits("tensor<f32, 3>", {3, 0x80000000, 4})});
  EXPECT_EQ(ok_bits(r), (Bits{0x7FC00001, 0x80000000, 2}));
}

/// Elementwise ops on empty and rank-0 tensors.
TEST(InterpElementwise, EmptyAndScalar) {
  RunResult r = run_op("add %a, %b", "tensor<f32, 0x3>", {lit("dense<[]> : tensor<f32, 0x3>"), lit("dense<[]> : tensor<f32, 0x3>")});
  ASSERT_EQ(r.status, RunStatus::Ok) << r.message;
  EXPECT_EQ(r.results[0].size(), 0);
  EXPECT_EQ(binop("mul", "tensor<f64>", {0xBFF0000000000000}, {0x0000000000000000}), (Bits{0x8000000000000000}));
  EXPECT_EQ(unop("stop_gradient", "tensor<ui16>", {0xFFFF}), (Bits{0xFFFF}));
}

}  // namespace
}  // namespace ptir::test
