// The termination check: the may-feed graph of patterns, its strongly connected components, and the
// cycles no pattern declared bounded (rewriter/rules/termination.h).
#include <gtest/gtest.h>

#include <array>

#include "patterns/passes.h"
#include "rewriter/rules/rules.h"
#include "rewriter/rules/termination.h"
#include "rewriter/views.h"

namespace ptir {
namespace {

using Cycles = std::vector<std::vector<std::string>>;

/// The patterns of a rule text, in file order.
struct Rules {
  explicit Rules(std::string_view text) {
    auto loaded = rules::load_rule_text(text, "test.rules");
    if (auto* e = std::get_if<rules::RuleError>(&loaded)) ADD_FAILURE() << e->format();
    else rules::add_rule_patterns(set, std::make_shared<const rules::RuleFile>(std::move(std::get<rules::RuleFile>(loaded))));
    for (const auto& p : set.patterns()) ptrs.push_back(p.get());
  }
  Cycles cycles() const { return rules::find_rule_cycles(ptrs); }
  const Pattern& at(size_t k) const { return *ptrs.at(k); }
  PatternSet set;
  std::vector<const Pattern*> ptrs;
};

/// A C++ pattern that declares what it produces.
class Producing final : public Pattern {
 public:
  Producing(std::string_view name, std::span<const OpCode> roots, std::span<const OpCode> makes)
      : Pattern(name, roots), makes_(makes) {}
  bool match_and_rewrite(InstId, ProgramRewriter&) const override { return false; }
  std::span<const OpCode> produces() const override { return makes_; }

 private:
  std::span<const OpCode> makes_;
};

TEST(Termination, PlantedTwoRuleCycleIsNamed) {
  Rules r(R"(
rule mul_two_to_add : mul(%x, splat(2)) => add(%x, %x)
rule neg_neg : neg(neg(%x)) => %x
rule add_self_to_mul : add(%x, %x) => mul(%x, splat(2))
)");
  EXPECT_EQ(r.cycles(), (Cycles{{"mul_two_to_add", "add_self_to_mul"}}));
  EXPECT_EQ(rules::describe_rule_cycle(r.cycles().at(0)),
            "rules may cycle: mul_two_to_add -> add_self_to_mul -> mul_two_to_add (declare them bounded if each "
            "application shrinks the program)");
  EXPECT_EQ(rules::termination_errors(r.ptrs),
            "test.rules:2: error: rules may cycle: mul_two_to_add -> add_self_to_mul -> mul_two_to_add (declare "
            "them bounded if each application shrinks the program)\n");
}

TEST(Termination, CycleThroughCppPatternGivesTheCppSpelling) {
  // A C++ pattern neg -> abs and one abs -> neg: the hint names set_has_bounded_recursion(), not only [bounded].
  Producing to_abs("neg_to_abs", kOnly<OpCode::Neg>, kOnly<OpCode::Abs>);
  Producing to_neg("abs_to_neg", kOnly<OpCode::Abs>, kOnly<OpCode::Neg>);
  const std::vector<const Pattern*> ptrs = {&to_abs, &to_neg};
  const std::string e = rules::termination_errors(ptrs);
  EXPECT_NE(e.find("error: patterns may cycle: "), std::string::npos) << e;
  EXPECT_NE(e.find("a C++ pattern with set_has_bounded_recursion() in its constructor"), std::string::npos) << e;
}

TEST(Termination, BoundedSelfLoopIsAccepted) {
  // Composing a transpose chain pairwise feeds itself, and each application removes one transpose.
  const std::string head = "rule transpose_compose ";
  const std::string body =
      ": transpose(transpose(%x) {perm = $p}) {perm = $q} => transpose(%x) {perm = compose_perm($p, $q)}\n";
  const std::string bounded = head + "[bounded] " + body, unbounded = head + body;
  Rules b(bounded);
  EXPECT_TRUE(rules::may_feed(b.at(0), b.at(0)));
  EXPECT_TRUE(b.at(0).has_bounded_recursion());
  EXPECT_EQ(b.cycles(), Cycles{});
  EXPECT_EQ(rules::termination_errors(b.ptrs), "");
  Rules u(unbounded);
  EXPECT_EQ(u.cycles(), (Cycles{{"transpose_compose"}}));
}

TEST(Termination, ACycleWithOneUnboundedRuleIsStillAnError) {
  Rules r(R"(
rule mul_two_to_add [bounded] : mul(%x, splat(2)) => add(%x, %x)
rule add_self_to_mul : add(%x, %x) => mul(%x, splat(2))
)");
  EXPECT_EQ(r.cycles(), (Cycles{{"add_self_to_mul", "mul_two_to_add"}}));
  Rules both(R"(
rule mul_two_to_add [bounded] : mul(%x, splat(2)) => add(%x, %x)
rule add_self_to_mul [bounded] : add(%x, %x) => mul(%x, splat(2))
)");
  EXPECT_EQ(both.cycles(), Cycles{});
}

TEST(Termination, UnificationCutsEdgesTheRootOpAloneWouldDraw) {
  // Both produce the other's root op, but sub does not commute and 3 is not 2: no edge from the first
  // to the second, so no cycle.
  Rules r(R"(
rule sub_two : sub(%x, splat(2)) => add(%x, splat(-2))
rule add_minus_three : add(%x, splat(-3)) => sub(%x, splat(3))
)");
  EXPECT_FALSE(rules::may_feed(r.at(1), r.at(0)));
  // add commutes and a capture may hold a constant: add(%x, -2) may be matched as add(-3, %x).
  EXPECT_TRUE(rules::may_feed(r.at(0), r.at(1)));
  EXPECT_EQ(r.cycles(), Cycles{});
}

TEST(Termination, ConstantAttributesMustAgree) {
  Rules r(R"(
rule a : transpose(neg(%x)) {perm = [1, 0]} => neg(transpose(%x) {perm = [1, 0]})
rule b : neg(transpose(%x) {perm = [0, 1]}) => transpose(neg(%x)) {perm = [1, 0]}
rule c : neg(transpose(%x) {perm = $p}) => transpose(neg(%x)) {perm = $p}
)");
  EXPECT_FALSE(rules::may_feed(r.at(0), r.at(1)));  // [1, 0] against [0, 1]
  EXPECT_TRUE(rules::may_feed(r.at(1), r.at(0)));
  EXPECT_TRUE(rules::may_feed(r.at(0), r.at(2)));   // $p takes any perm
  // a also feeds itself (it sinks a neg through a chain of transposes), so its shortest cycle is a loop.
  EXPECT_TRUE(rules::may_feed(r.at(0), r.at(0)));
  EXPECT_EQ(r.cycles(), (Cycles{{"a"}}));
}

TEST(Termination, NestedSourceNodesConsumeProducedOps) {
  // g(x) => h(x) feeds f(h(x)) => f(g(x)), whose root is not h: the edge comes from the nested node.
  Rules r(R"(
rule abs_to_neg : abs(%x) => neg(%x)
rule exp_neg_to_exp_abs : exp(neg(%x)) => exp(abs(%x))
)");
  EXPECT_TRUE(rules::may_feed(r.at(0), r.at(1)));
  EXPECT_TRUE(rules::may_feed(r.at(1), r.at(0)));
  EXPECT_EQ(r.cycles(), (Cycles{{"abs_to_neg", "exp_neg_to_exp_abs"}}));
}

TEST(Termination, CppPatternsFeedOnlyThroughDeclaredProducts) {
  static constexpr std::array<OpCode, 1> kAdd{OpCode::Add}, kMul{OpCode::Mul};
  Producing silent("silent_mul_to_add", kMul, {});
  Producing declared("mul_to_add", kMul, kAdd);
  Rules r("rule add_self_to_mul : add(%x, %x) => mul(%x, splat(2))\n");
  EXPECT_FALSE(rules::may_feed(silent, r.at(0)));
  EXPECT_TRUE(rules::may_feed(declared, r.at(0)));
  EXPECT_TRUE(rules::may_feed(r.at(0), declared));  // the rule makes a mul, the C++ pattern's root
  std::vector<const Pattern*> set{&declared, &r.at(0), &silent};
  EXPECT_EQ(rules::find_rule_cycles(set), (Cycles{{"mul_to_add", "add_self_to_mul"}}));
  std::vector<const Pattern*> quiet{&silent, &r.at(0)};
  EXPECT_EQ(rules::find_rule_cycles(quiet), Cycles{});
}

TEST(Termination, BuiltInLibraryHasNoCycle) {
  // The whole canonicalization set ptir opt runs: the built-in rule files and the C++ patterns.
  EXPECT_EQ(canonicalization_termination_errors({}), "");
  PatternSet set;
  populate_canonicalization_patterns(set);
  EXPECT_GT(set.size(), 0u);
}

}  // namespace
}  // namespace ptir
