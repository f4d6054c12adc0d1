// Patterns, views and frozen pattern sets: root index, benefit order, filters, typed adapter.
#include <gtest/gtest.h>

#include "rewriter/views.h"
#include "tests/rewriter/helpers.h"

namespace ptir {
namespace {

/// A pattern that never matches, with configurable roots and benefit.
class Dummy final : public Pattern {
 public:
  Dummy(std::string_view name, std::span<const OpCode> roots, PatternBenefit b) : Pattern(name, roots, b) {}
  bool match_and_rewrite(InstId, ProgramRewriter&) const override { return false; }
};

std::vector<std::string> names(std::span<const Pattern* const> ps) {
  std::vector<std::string> out;
  for (const Pattern* p : ps) out.emplace_back(p->debug_name());
  return out;
}

TEST(PatternSet, IndexedByRootAndSortedByBenefit) {
  PatternSet set;
  set.add<Dummy>("low", kOnly<OpCode::Add>, 1);
  set.add<Dummy>("high", kOnly<OpCode::Add>, 5);
  set.add<Dummy>("mid", kElementwiseBinaryOps, 3);
  set.add<Dummy>("any", std::span<const OpCode>(), 2);
  set.add<Dummy>("high2", kOnly<OpCode::Add>, 5);
  FrozenPatternSet f = std::move(set).freeze();
  EXPECT_EQ(names(f.patterns_for(OpCode::Add)), (std::vector<std::string>{"high", "high2", "mid", "any", "low"}));
  EXPECT_EQ(names(f.patterns_for(OpCode::Mul)), (std::vector<std::string>{"mid", "any"}));
  EXPECT_EQ(names(f.patterns_for(OpCode::Neg)), (std::vector<std::string>{"any"}));
  EXPECT_EQ(f.size(), 5u);
}

TEST(PatternSet, FiltersByNameAndLabel) {
  auto make = [] {
    PatternSet set;
    set.add_with_label<Dummy>("algebra", "a1", kOnly<OpCode::Add>, 1);
    set.add_with_label<Dummy>("algebra", "a2", kOnly<OpCode::Mul>, 1);
    set.add_with_label<Dummy>("shape", "s1", kOnly<OpCode::Transpose>, 1);
    return set;
  };
  EXPECT_EQ(names(make().freeze({.disabled_names = {"a1"}}).all()), (std::vector<std::string>{"a2", "s1"}));
  EXPECT_EQ(names(make().freeze({.disabled_labels = {"algebra"}}).all()), (std::vector<std::string>{"s1"}));
  EXPECT_EQ(names(make().freeze({.enabled_labels = {"algebra"}}).all()), (std::vector<std::string>{"a1", "a2"}));
  EXPECT_EQ(names(make().freeze({.enabled_names = {"s1"}, .enabled_labels = {"algebra"}}).all()),
            (std::vector<std::string>{"a1", "a2", "s1"}));
  // Disabled wins over enabled.
  FrozenPatternSet f = make().freeze({.disabled_names = {"a2"}, .enabled_labels = {"algebra"}});
  EXPECT_EQ(names(f.all()), (std::vector<std::string>{"a1"}));
  EXPECT_EQ(f.filtered_out(), (std::vector<std::string>{"a2", "s1"}));
  EXPECT_TRUE(f.patterns_for(OpCode::Mul).empty());
}

TEST(Views, FamiliesComeFromTheOpTable) {
  auto has = [](std::span<const OpCode> s, OpCode op) { return std::find(s.begin(), s.end(), op) != s.end(); };
  EXPECT_TRUE(has(kElementwiseUnaryOps, OpCode::Neg));
  EXPECT_TRUE(has(kElementwiseUnaryOps, OpCode::Exp));
  EXPECT_TRUE(has(kElementwiseUnaryOps, OpCode::StopGradient));
  EXPECT_FALSE(has(kElementwiseUnaryOps, OpCode::Cast));  // changes the dtype: its own view
  EXPECT_EQ(kElementwiseBinaryOps.size(), 6u);            // add sub mul div maximum minimum
  EXPECT_FALSE(has(kElementwiseBinaryOps, OpCode::Compare));
  EXPECT_FALSE(has(kStatementOps, OpCode::Return));
  EXPECT_EQ(kStatementOps.size(), static_cast<size_t>(kNumOps - 1));
}

/// A typed pattern: records the view it was given.
class SeeTranspose final : public OpRewritePattern<TransposeView> {
 public:
  mutable std::vector<int64_t> seen_perm;
  mutable ValueId seen_x = kNone;
  SeeTranspose() : OpRewritePattern("see_transpose") {}
  bool match_and_rewrite(const TransposeView& op, ProgramRewriter& rw) const override {
    seen_perm.assign(op.perm.begin(), op.perm.end());
    seen_x = op.x;
    return false;
  }
};

TEST(Views, TypedAdapterBuildsTheView) {
  auto p = testing::parse(R"(
func @main(%x: tensor<f32, 2x3x4>) -> tensor<f32, 4x2x3> {
  %t = transpose %x perm[2, 0, 1] -> tensor<f32, 4x2x3>
  return %t
}
)");
  SeeTranspose pat;
  EXPECT_EQ(std::vector<OpCode>(pat.roots().begin(), pat.roots().end()), std::vector<OpCode>{OpCode::Transpose});
  ProgramRewriter rw(*p);
  Pattern& base = pat;
  EXPECT_FALSE(base.match_and_rewrite(testing::inst_named(*p, "t"), rw));
  EXPECT_EQ(pat.seen_perm, (std::vector<int64_t>{2, 0, 1}));
  EXPECT_EQ(pat.seen_x, p->body(0).params[0]);
}

}  // namespace
}  // namespace ptir
