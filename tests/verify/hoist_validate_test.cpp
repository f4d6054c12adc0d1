/// Validation of param-only hoisting: the program `ptir opt --validate` checks after hoist-params is the
/// hoisted function composed with its prologue (compose_prologues). An honest hoisting is PROVED; a
/// composition that wires the prologue to the wrong parameters is REFUTED, so the check is not vacuous.
#include <gtest/gtest.h>

#include "ir/text.h"
#include "ir/verifier.h"
#include "rewriter/hoist.h"
#include "verify/refine.h"

namespace ptir::verify {
namespace {

std::unique_ptr<Program> parse(const std::string& text) {
  auto r = parse_program(text, "<test>");
  EXPECT_TRUE(r.ok()) << r.error;
  return std::move(r.program);
}

constexpr const char* kTwoWeights = R"(
func @main(%x: tensor<f32, 3>, %w1: tensor<f32, 3>, %w2: tensor<f32, 3>) -> tensor<f32, 3> {
  %a = sub %w1, %w2 -> tensor<f32, 3>
  %s = mul %a, dense<0.5> : tensor<f32, 3> -> tensor<f32, 3>
  %r = add %x, %s -> tensor<f32, 3>
  return %r
}
func @other(%y: tensor<si32, 2>) -> tensor<si32, 2> {
  %n = neg %y -> tensor<si32, 2>
  return %n
}
)";

TEST(HoistValidate, HonestHoistingIsProvedOverTheWholeProgram) {
  auto p = parse(kTwoWeights);
  const Program before = *p;
  HoistLog log;
  ProgramRewriter rw(*p);
  ASSERT_EQ(hoist_params(rw, HoistOptions{.params = {"w1", "w2"}}, &log).records.size(), 1u);
  std::string err;
  auto composed = compose_prologues(*p, log.records, &err);
  ASSERT_TRUE(composed) << err;
  ASSERT_TRUE(verify_program(*composed).empty());
  const ProgramVerdict v = check_program_refinement(before, *composed);
  EXPECT_TRUE(v.proved()) << verdict_word(v);
  EXPECT_EQ(v.functions.size(), 2u);  // @main (composed) and @other (unchanged); no prologue
  // Without the composition the programs are not comparable: an extra function, a changed signature.
  EXPECT_EQ(check_program_refinement(before, *p).kind(), 3);
}

TEST(HoistValidate, AMiswiredPrologueIsRefuted) {
  auto p = parse(kTwoWeights);
  const Program before = *p;
  HoistLog log;
  ProgramRewriter rw(*p);
  ASSERT_EQ(hoist_params(rw, HoistOptions{.params = {"w1", "w2"}}, &log).records.size(), 1u);
  ASSERT_EQ(log.records[0].args, (std::vector<uint32_t>{1, 2}));
  std::vector<HoistRecord> swapped = log.records;
  std::swap(swapped[0].args[0], swapped[0].args[1]);  // w2 - w1 instead of w1 - w2
  std::string err;
  auto composed = compose_prologues(*p, swapped, &err);
  ASSERT_TRUE(composed) << err;
  const ProgramVerdict v = check_program_refinement(before, *composed);
  EXPECT_EQ(v.kind(), 1) << verdict_word(v);
}

/// Every function keeps its fast-math flags through hoisting and composition: the prologue gets its
/// function's, and the composed program (what --validate checks) has the same flags as the program
/// printed. The composition used to drop them all, so a rewrite adding UB under nnan was PROVED.
TEST(HoistValidate, FastMathFlagsSurviveHoistingAndComposition) {
  auto p = parse(R"(
func @main(%x: tensor<f32, 3>, %w: tensor<f32, 3>) -> tensor<f32, 3> attributes[fastmath[nnan, reassoc]] {
  %a = abs %w -> tensor<f32, 3>
  %r = add %x, %a -> tensor<f32, 3>
  return %r
}
func @other(%y: tensor<f32, 2>) -> tensor<f32, 2> attributes[fastmath[ninf]] {
  %n = neg %y -> tensor<f32, 2>
  return %n
}
)");
  const Program before = *p;
  HoistLog log;
  ProgramRewriter rw(*p);
  ASSERT_EQ(hoist_params(rw, HoistOptions{.params = {"w"}}, &log).records.size(), 1u);
  const FastMath main_flags = p->body(p->find_body("main", false)).fastmath;
  EXPECT_EQ(p->body(p->find_body("main_prologue", false)).fastmath, main_flags);
  std::string err;
  auto composed = compose_prologues(*p, log.records, &err);
  ASSERT_TRUE(composed) << err;
  EXPECT_EQ(composed->body(composed->find_body("main", false)).fastmath, main_flags);
  EXPECT_EQ(composed->body(composed->find_body("other", false)).fastmath,
            before.body(before.find_body("other", false)).fastmath);
  EXPECT_TRUE(check_program_refinement(before, *composed).proved());
  // A prologue whose flags differ from its function's cannot be inlined as the program printed.
  p->body(p->find_body("main_prologue", false)).fastmath = FastMath{};
  EXPECT_EQ(compose_prologues(*p, log.records, &err), nullptr);
  EXPECT_NE(err.find("other fast-math flags"), std::string::npos) << err;
}

}  // namespace
}  // namespace ptir::verify
