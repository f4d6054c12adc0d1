// The index's type facts (rewriter/pattern.h TypeFact): what a rule's `where` clause requires of root
// operands 0 and 1 becomes RootShape::operand_facts, and FrozenPatternSet::candidates drops a rule only
// at roots where it cannot match. FuzzProperty.OperandIndexNeverHidesAMatch checks the same on random
// programs; these are the cases the facts exist for, written out.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "ir/text.h"
#include "rewriter/rules/rules.h"
#include "tests/rewriter/helpers.h"

namespace ptir {
namespace {

FrozenPatternSet load(const std::string& text) {
  auto loaded = rules::load_rule_text(text, "facts.rules");
  if (auto* e = std::get_if<rules::RuleError>(&loaded)) ADD_FAILURE() << e->format();
  PatternSet set;
  rules::add_rule_patterns(set, std::make_shared<const rules::RuleFile>(std::get<rules::RuleFile>(std::move(loaded))));
  return std::move(set).freeze();
}

const char* kRules =
    "rule empty_lhs : dot_general(%a, %b) where num_elements_is(%a, 0) => splat(0)\n"
    "rule empty_axis : reduce_sum(%x) {axes = $a} where some_axis_size(%x, $a, 0) => splat(0)\n"
    "rule same_t : broadcast_to(%x) : $T where same_type(%x, $T) => %x\n"
    "rule same_r : reshape(%x) as %r where same_type(%r, %x) => %x\n"
    "rule int_nested : sub(add(%x, %y), %y) where is_int(%x) => %x\n"
    "rule int_second : sub(%x, %y : $U) where is_int($U) => %x\n"
    "rule not_int : neg(%x) where not is_int(%x) => %x\n"
    "rule commutes : mul(%x, %y) where is_int(%x) => %x\n"
    "rule floats : div(%x, %y) where is_float(%x), is_bool(%y) => %x\n";

TEST(TypeFacts, DerivedFromTheWhereClause) {
  FrozenPatternSet set = load(kRules);
  std::map<std::string, RootShape> shape;
  for (const Pattern* p : set.all()) shape[std::string(p->debug_name())] = p->root_shape();
  EXPECT_EQ(shape["empty_lhs"].operand_facts[0], kFactEmpty);
  EXPECT_EQ(shape["empty_lhs"].operand_facts[1], 0);
  EXPECT_EQ(shape["empty_axis"].operand_facts[0], kFactEmpty);
  EXPECT_EQ(shape["same_t"].operand_facts[0], kFactResultType);
  EXPECT_EQ(shape["same_r"].operand_facts[0], kFactResultType);  // `as %r` is the root's result
  // %x is bound below the root, not to a root operand: no fact (sub's operand 1 is %y).
  EXPECT_EQ(shape["int_nested"].operand_facts[0], 0);
  EXPECT_EQ(shape["int_nested"].operand_facts[1], 0);
  EXPECT_EQ(shape["int_second"].operand_facts[1], kFactInt);  // through the operand's `: $U`
  EXPECT_EQ(shape["not_int"].operand_facts[0], 0);           // a negated constraint implies nothing
  EXPECT_EQ(shape["commutes"].operand_facts[0], 0);          // either order: no position is known
  EXPECT_EQ(shape["floats"].operand_facts[0], kFactFloat);
  EXPECT_EQ(shape["floats"].operand_facts[1], kFactBool);
}

TEST(TypeFacts, TheIndexKeepsExactlyTheRootsThatCanMatch) {
  FrozenPatternSet set = load(kRules);
  ParseResult r = parse_program(
      "func @main(%e: tensor<f32, 0x4>, %f: tensor<f32, 2x4>, %w: tensor<f32, 4x3>, %z: tensor<si32, 3x0>,"
      " %i: tensor<si32, 3>, %j: tensor<f32, 3>, %k: tensor<i1, 3>) -> tensor<f32, 3> {\n"
      "  %d0 = dot_general %e, %w contract_lhs[1] contract_rhs[0] -> tensor<f32, 0x3>\n"
      "  %d1 = dot_general %f, %w contract_lhs[1] contract_rhs[0] -> tensor<f32, 2x3>\n"
      "  %r0 = reduce_sum %z axes[1] -> tensor<si32, 3>\n"
      "  %r1 = reduce_sum %f axes[1] -> tensor<f32, 2>\n"
      "  %b0 = broadcast_to %j -> tensor<f32, 3>\n"
      "  %b1 = broadcast_to %j -> tensor<f32, 2x3>\n"
      "  %s0 = sub %i, %i -> tensor<si32, 3>\n"
      "  %s1 = sub %j, %j -> tensor<f32, 3>\n"
      "  %q0 = div %j, %j -> tensor<f32, 3>\n"
      "  return %b0\n}\n",
      "facts.ptir");
  ASSERT_TRUE(r.ok()) << r.error;
  const Program& p = *r.program;
  // Bit of pattern `name` in the candidates at the instruction defining `value`, and whether it matches.
  auto look = [&](const std::string& value, const std::string& name) {
    InstId at = kNone;
    p.for_each_inst(0, [&](InstId i) {
      if (p.num_results(i) && p.name(p.result(i)) == value) at = i;
    });
    EXPECT_NE(at, kNone) << value;
    const auto list = set.patterns_for(p.op(at));
    const uint64_t cand = set.candidates(p, at);
    for (size_t j = 0; j < list.size(); ++j)
      if (list[j]->debug_name() == name) {
        const bool matches = static_cast<const rules::RulePattern*>(list[j])->matches(p, at);
        EXPECT_TRUE(!matches || (cand >> j & 1u)) << name << " matches at %" << value << " but the index drops it";
        return std::pair<bool, bool>{(cand >> j & 1u) != 0, matches};
      }
    ADD_FAILURE() << name << " is not a pattern of %" << value << "'s op";
    return std::pair<bool, bool>{false, false};
  };
  EXPECT_EQ(look("d0", "empty_lhs"), std::make_pair(true, true));
  EXPECT_EQ(look("d1", "empty_lhs"), std::make_pair(false, false));
  EXPECT_EQ(look("r0", "empty_axis"), std::make_pair(true, true));
  EXPECT_EQ(look("r1", "empty_axis"), std::make_pair(false, false));
  EXPECT_EQ(look("b0", "same_t"), std::make_pair(true, true));
  EXPECT_EQ(look("b1", "same_t"), std::make_pair(false, false));
  EXPECT_EQ(look("s0", "int_second"), std::make_pair(true, true));
  EXPECT_EQ(look("s1", "int_second"), std::make_pair(false, false));
  EXPECT_EQ(look("q0", "floats"), std::make_pair(false, false));  // operand 1 is no i1
  // type_facts itself, operand by operand.
  InstId b0 = p.def_inst(p.operand(p.terminator(0), 0));
  EXPECT_EQ(type_facts(p, b0, 0), kFactFloat | kFactResultType);  // %b0 = broadcast_to %j: same type
  EXPECT_EQ(type_facts(p, b0, 1), 0);                               // no operand 1
}

}  // namespace
}  // namespace ptir
