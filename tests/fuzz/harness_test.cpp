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

}  // namespace
}  // namespace ptir::fuzz
