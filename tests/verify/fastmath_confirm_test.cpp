/// Counterexamples under the source's fast-math nondeterminism (verify/fastmath.h, docs/verification.md):
/// a difference found under the source's default zero signs is confirmed against every sign choice of
/// the zeros the source makes (refuted when none matches, allowed when one does), and the checker keeps
/// asking Z3 past models that such a choice answers.
#include <gtest/gtest.h>

#include <cmath>

#include "ir/text.h"
#include "verify/fastmath.h"
#include "verify/refine.h"

namespace ptir::verify {
namespace {

std::unique_ptr<Program> parse(const std::string& text) {
  auto r = parse_program(text, "<test>");
  EXPECT_TRUE(r.ok()) << r.error;
  return std::move(r.program);
}

Tensor scalar(float v) {
  Tensor t(TensorType{DType::F32, {}});
  t.set_bits(0, double_to_float(DType::F32, v));
  return t;
}

Confirm confirm(const Program& src, const Program& tgt, const std::vector<Tensor>& in, std::string* why) {
  const FastMathPlan plan = plan_fastmath(src, src.entry(), tgt, tgt.entry());
  const RunResult t = run_program(tgt, in);
  return confirm_difference(plan, src, src.entry(), in, t, InterpOptions{}, why);
}

constexpr const char* kAddSub = R"(
func @f(%x: tensor<f32>, %y: tensor<f32>) -> tensor<f32> attributes[fastmath[nsz]] {
  %d = sub %y, %x -> tensor<f32>
  %r = add %x, %d -> tensor<f32>
  return %r
})";
constexpr const char* kY = R"(
func @f(%x: tensor<f32>, %y: tensor<f32>) -> tensor<f32> attributes[fastmath[nsz]] {
  return %y
})";

TEST(FastMathConfirm, ADifferenceWithNoZeroChoiceRefutes) {
  auto src = parse(kAddSub), tgt = parse(kY);
  ASSERT_FALSE(plan_fastmath(*src, src->entry(), *tgt, tgt->entry()).src_signs_exact);
  std::string why;
  // 1 - 1e8 rounds to -1e8 in f32: the source gives 0, the target 1; the source makes no zero to choose.
  EXPECT_EQ(confirm(*src, *tgt, {scalar(1e8f), scalar(1.0f)}, &why), Confirm::Refutes) << why;
}

TEST(FastMathConfirm, AnotherZeroSignOfTheSourceIsAllowed) {
  auto src = parse(R"(
func @f(%x: tensor<f32>) -> tensor<f32> attributes[fastmath[nsz]] {
  %a = add %x, dense<0.0> : tensor<f32> -> tensor<f32>
  %r = div dense<1.0> : tensor<f32>, %a -> tensor<f32>
  return %r
})");
  auto tgt = parse(R"(
func @f(%x: tensor<f32>) -> tensor<f32> attributes[fastmath[nsz]] {
  %r = div dense<1.0> : tensor<f32>, %x -> tensor<f32>
  return %r
})");
  std::string why;
  // x = -0: the source's default gives 1 / +0 = inf, its other choice 1 / -0 = -inf, the target's.
  EXPECT_EQ(confirm(*src, *tgt, {scalar(-0.0f)}, &why), Confirm::Allowed);
  EXPECT_NE(why.find("another choice of zero signs"), std::string::npos) << why;
}

TEST(FastMathConfirm, TooManyZeroChoicesAreUndecided) {
  auto src = parse(R"(
func @f(%x: tensor<f32, 16>) -> tensor<f32, 16> attributes[fastmath[nsz]] {
  %a = mul %x, dense<0.0> : tensor<f32, 16> -> tensor<f32, 16>
  %r = div dense<1.0> : tensor<f32, 16>, %a -> tensor<f32, 16>
  return %r
})");
  auto tgt = parse(R"(
func @f(%x: tensor<f32, 16>) -> tensor<f32, 16> attributes[fastmath[nsz]] {
  return dense<7.0> : tensor<f32, 16>
})");
  Tensor x(TensorType{DType::F32, {16}});  // 16 zeros of x * 0: 65536 sign choices, over the limit
  std::string why;
  EXPECT_EQ(confirm(*src, *tgt, {x}, &why), Confirm::Undecided);
  EXPECT_NE(why.find("zero signs only"), std::string::npos) << why;
}

/// Z3's first counterexample is a finite x, answered by the source's choice of -0 for x * 0; the next
/// round asks for inputs where the source makes no zero, and finds x = +-inf. With one round the check
/// stops at the answered model (what every check did before): UNKNOWN, never PROVED.
TEST(FastMathConfirm, RoundsLookPastModelsTheSourceAnswers) {
  auto src = parse(R"(
func @f(%x: tensor<f32>) -> tensor<f32> attributes[fastmath[nsz]] {
  %a = mul %x, dense<0.0> : tensor<f32> -> tensor<f32>
  %r = div dense<1.0> : tensor<f32>, %a -> tensor<f32>
  return %r
})");
  auto tgt = parse(R"(
func @f(%x: tensor<f32>) -> tensor<f32> attributes[fastmath[nsz]] {
  %isinf = compare %x, dense<inf> : tensor<f32> dir[eq] -> tensor<i1>
  %isnan = compare %x, %x dir[ne] -> tensor<i1>
  %t = select %isnan, %x, dense<-inf> : tensor<f32> -> tensor<f32>
  %r = select %isinf, dense<7.0> : tensor<f32>, %t -> tensor<f32>
  return %r
})");
  const Verdict v = check_refinement(*src, *tgt, CheckOptions{.fast_pass_runs = 0});
  ASSERT_TRUE(v.refuted()) << verdict_word(v);
  EXPECT_EQ(std::get<Refuted>(v.v).found_by, "z3");
  EXPECT_TRUE(std::isinf(float_to_double(DType::F32, std::get<Refuted>(v.v).inputs[0].bits(0))));
  const Verdict one = check_refinement(*src, *tgt, CheckOptions{.fast_pass_runs = 0, .fastmath_rounds = 1});
  ASSERT_TRUE(one.unknown()) << verdict_word(one);
  EXPECT_NE(std::get<Unknown>(one.v).reason.find("another choice of zero signs"), std::string::npos)
      << std::get<Unknown>(one.v).reason;
}

}  // namespace
}  // namespace ptir::verify
