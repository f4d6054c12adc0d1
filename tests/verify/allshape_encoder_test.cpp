// The encoder of one configuration (verify/allshape/encoder.h) and concretization (concretize.cpp):
// a right rule's query is unsat in every configuration, a wrong one's is satisfiable, a target the
// verifier would reject is ill-formed (a counterexample, not a skipped configuration), and a model of a
// satisfiable query concretizes to a program that verifies, with the model's sizes and attributes.
#include <gtest/gtest.h>

#include <string>

#include "ir/text.h"
#include "ir/verifier.h"
#include "rewriter/rules/rules.h"
#include "verify/allshape/encoder.h"
#include "verify/smt/solver.h"

namespace ptir::allshape::detail {
namespace {

using smt::Expr;

rules::RuleFile load(const std::string& text) {
  auto r = rules::load_rule_text(text, "encoder_test.rules");
  if (auto* e = std::get_if<rules::RuleError>(&r)) ADD_FAILURE() << e->format();
  return std::get<rules::RuleFile>(std::move(r));
}

/// The driver's query: a counterexample element, or an ill-formed target.
Expr bad(const Enc& e) { return (e.in_bounds && !e.src_ub && (e.tgt_ub || e.differ)) || e.tgt_ill; }

struct Counts {
  int configs = 0, unsat = 0, sat = 0, ill = 0;
};
/// Every configuration of `rule` at `rank`, each query asked.
Counts run_all(const rules::Rule& rule, int rank) {
  Counts c;
  const RuleFacts facts = facts_of(rule);
  Chooser ch;
  do {
    ch.start();
    Enc e(rule, facts, rank, ch);
    try {
      e.run();
    } catch (const Infeasible&) {
      continue;
    }
    ++c.configs;
    c.ill += e.tgt_ill.isTrue();
    smt::Solver s(10000);
    for (const Expr& a : e.assume) s.add(a);
    s.add(bad(e));
    const smt::Result r = s.check();
    EXPECT_NE(r, smt::Result::Unknown) << rule.name;
    c.unsat += r == smt::Result::Unsat;
    c.sat += r == smt::Result::Sat;
  } while (ch.next());
  return c;
}

TEST(AllShapeEncoder, ARightRuleIsUnsatInEveryConfiguration) {
  smt::Context ctx;
  rules::RuleFile f = load("rule neg_neg : neg(neg(%x)) => %x");
  const Counts c = run_all(f.rules[0], 2);
  EXPECT_EQ(c.configs, kNumDTypes - 1);  // every dtype but i1 (no i1 neg: not an instance)
  EXPECT_EQ(c.unsat, c.configs);
}

TEST(AllShapeEncoder, AWrongRuleIsSatisfiable) {
  smt::Context ctx;
  // x - x is NaN for x = inf or NaN: wrong for floats, right for integers.
  rules::RuleFile f = load("rule sub_self : sub(%x, %x) => splat(0)");
  const Counts c = run_all(f.rules[0], 1);
  EXPECT_EQ(c.sat, 4);  // bf16, f16, f32, f64
  EXPECT_EQ(c.unsat, c.configs - 4);
}

TEST(AllShapeEncoder, ATargetTheVerifierRejectsIsIllFormed) {
  smt::Context ctx;
  // corpus/unsound/allshape_fuzz_ill_typed.rules: the built neg takes the root's type, but %x has the
  // cast's operand dtype: ill-formed (a counterexample) wherever the dtypes differ.
  rules::RuleFile f = load("rule r : neg(cast(%x) : $T) => neg(%x)");
  const Counts c = run_all(f.rules[0], 1);
  EXPECT_GT(c.ill, 0);
  EXPECT_GE(c.sat, c.ill);
}

TEST(AllShapeConcretize, AModelBecomesAProgramThatVerifies) {
  smt::Context ctx;
  // Wrong: slicing at 2s is not slicing at s. The model has sizes, starts and inputs.
  rules::RuleFile f = load("rule r : slice(%x) {starts = $s} : $T => slice(%x) {starts = add_ints($s, $s)} : $T");
  const rules::Rule& rule = f.rules[0];
  const RuleFacts facts = facts_of(rule);
  Chooser ch;
  int concretized = 0;
  do {
    ch.start();
    Enc e(rule, facts, 2, ch);
    try {
      e.run();
    } catch (const Infeasible&) {
      continue;
    }
    smt::Solver s(10000);
    for (const Expr& a : e.assume) s.add(a);
    s.add(bad(e));
    for (const auto& [what, dims] : e.dim_log)
      for (const Expr& d : dims) s.add(d.ile(Expr::intVal(3)));
    ASSERT_EQ(s.check(), smt::Result::Sat) << "dtype " << dtype_name(e.root_dtype);
    const auto model = s.model();
    const Concrete c = concretize(e, *model, FastMath{e.flags_in(*model)}, 4096);
    ASSERT_NE(c.program, nullptr) << c.why_not;
    EXPECT_TRUE(verify_program(*c.program).empty()) << print_program(*c.program);
    // One parameter (%x) with its input; the slice's result type has the model's root sizes.
    const Program& p = *c.program;
    const BodyId b = 0;
    ASSERT_EQ(p.body(b).params.size(), 1u);
    ASSERT_EQ(c.inputs.size(), 1u);
    EXPECT_EQ(c.inputs[0].type, p.type_of(p.body(b).params[0]));
    const TensorType& root = p.type(p.body(b).result_types[0]);
    ASSERT_EQ(root.dims.size(), 2u);
    const CNode& rn = e.cnodes[e.root];
    for (size_t k = 0; k < 2; ++k) EXPECT_EQ(root.dims[k], *model->eval(rn.dims[k]).intNumeral());
    EXPECT_NE(print_program(p).find("slice"), std::string::npos);
    ++concretized;
    if (concretized == 3) break;  // a few dtypes are enough
  } while (ch.next());
  EXPECT_EQ(concretized, 3);
}

TEST(AllShapeConcretize, TooLargeAModelIsNotReplayed) {
  smt::Context ctx;
  rules::RuleFile f = load("rule r : neg(%x) => abs(%x)");
  const RuleFacts facts = facts_of(f.rules[0]);
  Chooser ch;
  ch.start();
  ch.choose(kNumDTypes);  // the first configuration is i1 (no i1 neg): take the next, si8
  ASSERT_TRUE(ch.next());
  ch.start();
  Enc e(f.rules[0], facts, 1, ch);
  e.run();
  ASSERT_EQ(e.root_dtype, DType::SI8);
  smt::Solver s(10000);
  for (const Expr& a : e.assume) s.add(a);
  s.add(bad(e));
  for (const auto& [what, dims] : e.dim_log)
    for (const Expr& d : dims) s.add(d == Expr::intVal(5000));
  ASSERT_EQ(s.check(), smt::Result::Sat);
  const Concrete c = concretize(e, *s.model(), FastMath{}, 4096);
  EXPECT_EQ(c.program, nullptr);
  EXPECT_EQ(c.why_not, "the model's sizes are too large to replay");
}

}  // namespace
}  // namespace ptir::allshape::detail
