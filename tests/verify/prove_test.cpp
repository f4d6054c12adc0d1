/// The prover proves the code that runs: instances generated from a pattern's DAG go through the real
/// pattern, and Z3 (or, failing that, the interpreter) judges the rewrite. RapidCheck drives the
/// generator here, so a failure shrinks to the smallest rank, dims and seed.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "patterns/passes.h"
#include "patterns/templates.h"
#include "rewriter/views.h"
#include "rewriter/rules/rules.h"
#include "verify/prove/instance.h"
#include "verify/prove/prove.h"
#include "verify/refine.h"

namespace ptir {
namespace {

prove::Populate library() {
  return [](PatternSet& s) { populate_canonicalization_patterns(s); };
}

std::shared_ptr<const rules::RuleFile> load(const std::string& text) {
  auto r = rules::load_rule_text(text, "test.rules");
  if (auto* e = std::get_if<rules::RuleError>(&r)) ADD_FAILURE() << e->format();
  return std::make_shared<const rules::RuleFile>(std::move(std::get<rules::RuleFile>(r)));
}

TEST(Prove, EveryLibraryPatternHasTemplatesTheGeneratorSupports) {
  auto subjects = prove::subjects_of(library(), cpp_pattern_templates());
  ASSERT_GT(subjects.size(), 5u);
  for (const auto& s : subjects) {
    EXPECT_TRUE(s.error.empty()) << s.name << ": " << s.error;
    EXPECT_FALSE(s.templates.empty()) << s.name;
  }
}

/// Every library pattern, on instances RapidCheck picks: where the pattern fires, the rewrite is never
/// refuted. (UNKNOWN is allowed here; `ptir prove` turns it into TESTED or REFUTED by a campaign.)
RC_GTEST_PROP(Prove, LibraryRewritesAreNeverRefutedOnRandomInstances, ()) {
  static const auto subjects = prove::subjects_of(library(), cpp_pattern_templates());
  const auto& s = subjects[*rc::gen::inRange<size_t>(0, subjects.size())];
  const int rank = *rc::gen::inRange(0, 4);
  const int dim = *rc::gen::inRange(0, 4);
  const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  std::mt19937_64 rng(seed);
  prove::Instance inst = prove::make_instance(*s.templates[seed % s.templates.size()],
                                              {.rank = rank, .max_dim = dim, .fastmath = s.assumes}, rng);
  const bool built = inst.program != nullptr;
  RC_PRE(built);
  Program rewritten(*inst.program);
  PatternSet set;
  populate_canonicalization_patterns(set);
  PatternFilter only;
  only.enabled_names = {s.name};
  GreedyConfig cfg;
  cfg.fold = false;
  cfg.expensive_checks = false;
  apply_patterns_and_fold_greedily(rewritten, std::move(set).freeze(only), cfg);
  const verify::ProgramVerdict v = verify::check_program_refinement(*inst.program, rewritten, {.timeout_ms = 2000});
  RC_ASSERT(v.kind() != 1);  // never REFUTED
  RC_ASSERT(v.kind() != 3);  // and always comparable
}

TEST(Prove, UnsoundRuleIsRefutedWithTheRewrittenProgramAndACounterexample) {
  auto file = load("rule add_pos_zero : add(%x, splat(0.0)) => %x\n");
  prove::Populate pop = [file](PatternSet& s) { rules::add_rule_patterns(s, file); };
  auto subjects = prove::subjects_of(pop, {});
  ASSERT_EQ(subjects.size(), 1u);
  prove::Report r = prove::prove_pattern(subjects[0], pop, {.instances = 24});
  EXPECT_EQ(r.status, prove::Status::Refuted);
  EXPECT_NE(r.detail.find("rewritten by add_pos_zero"), std::string::npos) << r.detail;
  EXPECT_NE(r.detail.find("-0.0"), std::string::npos) << r.detail;
}

TEST(Prove, SoundRuleIsProvedOverRanksAndDtypes) {
  auto file = load("rule neg_neg : neg(neg(%x)) => %x\n");
  prove::Populate pop = [file](PatternSet& s) { rules::add_rule_patterns(s, file); };
  prove::Report r = prove::prove_pattern(prove::subjects_of(pop, {})[0], pop, {.instances = 32});
  EXPECT_EQ(r.status, prove::Status::Proved) << r.detail;
  EXPECT_EQ(r.fired, r.proved);
  EXPECT_GE(r.dtypes.size(), 4u);
  EXPECT_GE(r.shapes.size(), 4u);
}

TEST(Prove, RuleThatNeverMatchesItsInstancesIsNotExercised) {
  // The constraint can never hold (a value is not both float and integer).
  auto file = load("rule never : neg(%x) where is_float(%x), is_int(%x) => %x\n");
  prove::Populate pop = [file](PatternSet& s) { rules::add_rule_patterns(s, file); };
  prove::Report r = prove::prove_pattern(prove::subjects_of(pop, {})[0], pop, {.instances = 8});
  EXPECT_EQ(r.status, prove::Status::NotExercised);
}

/// A C++ pattern whose code is wrong although its identity (x * 1 -> x) is right: it keeps the wrong
/// operand when the 1 is on the left. The prover runs this code, so it finds the bug.
class BuggyMulOne final : public OpRewritePattern<ElementwiseBinaryView> {
 public:
  BuggyMulOne() : OpRewritePattern("buggy_mul_one", 1, kOnly<OpCode::Mul>) {}
  bool match_and_rewrite(const ElementwiseBinaryView& op, ProgramRewriter& rw) const override {
    for (ValueId v : {op.lhs, op.rhs}) {
      const Tensor* t = rw.constant_of(v);
      if (t && t->size() > 0 && t->is_splat() && t->bits(0) == (is_float(t->dtype()) ? double_to_float(t->dtype(), 1.0) : 1)) {
        rw.replace_op(op.root, op.lhs);  // bug: should keep the other operand
        return true;
      }
    }
    return false;
  }
};

TEST(Prove, BugInACppPatternIsRefutedThoughItsIdentityIsTrue) {
  prove::Populate pop = [](PatternSet& s) { s.add<BuggyMulOne>(); };
  auto subjects = prove::subjects_of(pop, {{"buggy_mul_one", "mul(%x, splat(1))"}});
  ASSERT_EQ(subjects.size(), 1u);
  prove::Report r = prove::prove_pattern(subjects[0], pop, {.instances = 32});
  EXPECT_EQ(r.status, prove::Status::Refuted) << r.detail;
}

TEST(Prove, CppPatternWithoutTemplatesIsAnError) {
  prove::Populate pop = [](PatternSet& s) { s.add<BuggyMulOne>(); };
  auto subjects = prove::subjects_of(pop, {});
  ASSERT_EQ(subjects.size(), 1u);
  prove::Report r = prove::prove_pattern(subjects[0], pop, {});
  EXPECT_EQ(r.status, prove::Status::Error);
}

TEST(Instances, RespectTypeCapturesAndRanks) {
  auto file = load("rule rt : cast(cast(%x : $T) : $M) : $T where widens_exactly($T, $M) => %x\n");
  std::mt19937_64 rng(7);
  int built = 0;
  for (int k = 0; k < 50; ++k) {
    prove::Instance inst = prove::make_instance(*file->rules[0].source, {.rank = k % 4, .max_dim = 3}, rng);
    if (!inst.program) continue;
    ++built;
    const Program& p = *inst.program;
    const BodyId b = p.entry();
    ASSERT_EQ(p.body(b).params.size(), 1u);
    EXPECT_EQ(p.type_of(p.body(b).params[0]), p.type(p.body(b).result_types[0]));
    EXPECT_EQ(p.type(p.body(b).result_types[0]).rank(), k % 4);
  }
  EXPECT_GT(built, 40);
}

}  // namespace
}  // namespace ptir
