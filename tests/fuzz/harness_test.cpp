/// The fuzz harness's own checks on fixed programs: the differential runs each distinct input set once
/// and still reports a difference wherever one of the drawn sets shows it.
#include <gtest/gtest.h>

#include "fuzz/harness/harness.h"
#include "ir/text.h"

namespace ptir::fuzz {
namespace {

std::unique_ptr<Program> parse(std::string_view text) {
  ParseResult r = parse_program(text, "test.ptir");
  EXPECT_TRUE(r.ok()) << r.error << "\n" << text;
  return std::move(r.program);
}

constexpr std::string_view kIdentityI1 = "func @main(%x: tensor<i1>) -> tensor<i1> {\n  return %x\n}\n";
constexpr std::string_view kFalseI1 =
    "func @main(%x: tensor<i1>) -> tensor<i1> {\n"
    "  %c = constant dense<false> : tensor<i1> -> tensor<i1>\n"
    "  return %c\n}\n";

/// A scalar i1 has two values: of 32 drawn input sets, two are distinct and only those two run.
TEST(Differential, RunsEachDistinctInputSetOnce) {
  auto p = parse(kIdentityI1);
  DiffStats st;
  EXPECT_EQ(differential(*p, *p, {.runs = 32, .stats = &st}), "");
  EXPECT_EQ(st.drawn, 32);
  EXPECT_EQ(st.distinct, 2);
  // The confirmation's draw (check_pair: 256 sets, seed 7, half edge values).
  DiffStats confirm;
  EXPECT_EQ(differential(*p, *p, {.runs = 256, .seed = 7, .edge_bias = 0.5, .stats = &confirm}), "");
  EXPECT_EQ(confirm.drawn, 256);
  EXPECT_EQ(confirm.distinct, 2);
}

/// The target is wrong on one of the two values: the distinct sets include it, so the difference is found.
TEST(Differential, FindsADifferenceOnOneOfFewValues) {
  auto src = parse(kIdentityI1), tgt = parse(kFalseI1);
  const std::string d = differential(*src, *tgt, {.runs = 32});
  EXPECT_NE(d.find("differs"), std::string::npos) << d;
}

/// Wider tensors rarely repeat: every one of 64 drawn sets of four f32 elements past the all-edge ones
/// is distinct, and all of them run.
TEST(Differential, WideInputsAllRun) {
  auto p = parse("func @main(%x: tensor<f32, 4>) -> tensor<f32, 4> {\n  return %x\n}\n");
  DiffStats st;
  EXPECT_EQ(differential(*p, *p, {.runs = 64, .stats = &st}), "");
  EXPECT_EQ(st.drawn, 64);
  EXPECT_GE(st.distinct, 60);
}

/// The target runs only where the source ran Ok. A source that is UB on every input (x / 0) requires
/// nothing, so a target whose loop never ends is not run at all; where the source runs, a target stopped
/// by the loop bound is still a finding.
TEST(Differential, RunsTheTargetOnlyWhereTheSourceRuns) {
  constexpr std::string_view kLoop =
      "region ^c(%i: tensor<si32>) -> tensor<i1> {\n"
      "  %b = compare %i, dense<1> : tensor<si32> dir[lt] -> tensor<i1>\n"
      "  return %b\n}\n"
      "region ^b(%i: tensor<si32>) -> tensor<si32> {\n"
      "  %n = mul %i, dense<1> : tensor<si32> -> tensor<si32>\n"
      "  return %n\n}\n"
      "func @main(%x: tensor<si32>) -> tensor<si32> {\n"
      "  %r = while dense<0> : tensor<si32> cond[^c] body[^b] -> tensor<si32>\n"
      "  return %r\n}\n";
  auto never_ends = parse(kLoop);
  auto always_ub = parse(
      "func @main(%x: tensor<si32>) -> tensor<si32> {\n"
      "  %r = div %x, dense<0> : tensor<si32> -> tensor<si32>\n"
      "  return %r\n}\n");
  auto runs = parse("func @main(%x: tensor<si32>) -> tensor<si32> {\n  return %x\n}\n");
  DiffStats st;
  EXPECT_EQ(differential(*always_ub, *never_ends, {.runs = 32, .stats = &st}), "");
  EXPECT_GT(st.distinct, 1);
  EXPECT_EQ(st.target_runs, 0);
  DiffStats st2;
  const std::string d = differential(*runs, *never_ends, {.runs = 32, .stats = &st2});
  EXPECT_NE(d.find("the target has loop bound where the source runs"), std::string::npos) << d;
  EXPECT_EQ(st2.target_runs, 1);  // the first run is the finding
}

}  // namespace
}  // namespace ptir::fuzz
