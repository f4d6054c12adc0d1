/// The prover proves the code that runs: instances generated from a pattern's DAG go through the real
/// pattern, and Z3 (or, failing that, the interpreter) judges the rewrite. RapidCheck drives the
/// generator here, so a failure shrinks to the smallest rank, dims and seed.
#include <algorithm>

#include <gtest/gtest.h>

#include <map>
#include <rapidcheck/gtest.h>

#include "ir/text.h"
#include "ir/verifier.h"
#include "patterns/passes.h"
#include "patterns/templates.h"
#include "rewriter/views.h"
#include "rewriter/rules/rules.h"
#include "verify/prove/coverage.h"
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
  // The constraint can never hold (a value is not both float and integer): the reason says so.
  auto file = load("rule never : neg(%x) where is_float(%x), is_int(%x) => %x\n");
  prove::Populate pop = [file](PatternSet& s) { rules::add_rule_patterns(s, file); };
  prove::Report r = prove::prove_pattern(prove::subjects_of(pop, {})[0], pop, {.instances = 8});
  EXPECT_EQ(r.status, prove::Status::NotExercised);
  EXPECT_NE(r.detail.find("no dtype or attribute value satisfies"), std::string::npos) << r.detail;
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

TEST(Instances, DotGeneralLayoutsVerifyAndReachEachClass) {
  // Every steered layout at every root rank builds a dot_general the verifier accepts (a steer that
  // asked for a free axis at a rank with only batch axes once made a negative count and crashed), and
  // each class is reached where it can be (instance.h DotLayout; tests/golden/prove/dot_layouts.ptir).
  auto file = load("rule d : dot_general(%x, %y) {batch_lhs = $bl, batch_rhs = $br, contract_lhs = $cl, "
                   "contract_rhs = $cr} as %d where not has_attr(%d, accum) => %x\n");
  std::mt19937_64 rng(11);
  for (int m = -1; m < prove::kNumDotLayouts; ++m)
    for (int rank = 0; rank <= 3; ++rank) {
      prove::Steer steer;
      steer.nodes.assign(3, prove::NodeSteer{});
      steer.nodes[0].dot = m < 0 ? prove::NodeSteer::kAny : m;
      int built = 0, in_class = 0;
      for (int k = 0; k < 60; ++k) {
        prove::Instance inst =
            prove::make_instance(*file->rules[0].source, {.rank = rank, .max_dim = 3, .steer = &steer}, rng);
        if (!inst.program) continue;
        ++built;
        const Program& p = *inst.program;
        ASSERT_TRUE(verify_program(p).empty()) << print_program(p);
        const InstId d = p.def_inst(inst.node_values[0]);
        ASSERT_EQ(p.op(d), OpCode::DotGeneral);
        const AttrSet& a = p.attrs_of(d);
        const int lr = p.type_of(p.operand(d, 0)).rank(), rr = p.type_of(p.operand(d, 1)).rank();
        if (m >= 0 && prove::dot_layout_has(m, lr, rr, a.ints("batch_lhs"), a.ints("batch_rhs"), a.ints("contract_lhs"),
                                            a.ints("contract_rhs")))
          ++in_class;
      }
      EXPECT_GT(built, 40) << "layout " << m << " rank " << rank;
      const bool reachable = m < 0 || (m == prove::kDotBatchOrder ? rank >= 2
                                       : m == prove::kDotBatchApart || m == prove::kDotInterleaved ? rank >= 1
                                                                                                   : true);
      if (m >= 0 && reachable) {
        EXPECT_GT(in_class, built / 2) << "layout " << m << " rank " << rank;
      }
    }
}

TEST(Instances, OptionalAttributesVerifyAndLeaveTheirDefaults) {
  // Steered to other values (NodeSteer::opt_attrs = 1), every window op, pad, argmax, quantize and
  // scatter_add instance verifies, and at every rank where the class is reachable most instances have
  // each optional attribute at another value than its default (the op table's AttrSpec::dflt), or
  // scatter_add another configuration than the leading one; steered to 0, none does.
  const std::vector<std::pair<std::string, int>> rules = {
      {"rule r : pad(%x) {low = $l, high = $h} => %x\n", 1},
      {"rule r : reduce_window(%x) {kind = $k, window = $w} => %x\n", 1},
      {"rule r : extract_patches(%x) {window = $w} => %x\n", 2},
      {"rule r : argmax(%x) {axis = $a} => %x\n", 1},
      {"rule r : quantize(%x, %s, %z) => %x\n", 1},
      {"rule r : scatter_add(%x, %i, %u) {update_window_dims = $w, inserted_window_dims = $n, "
       "scatter_dims_to_operand_dims = $d, index_vector_dim = $v} => %x\n", 1},
  };
  std::mt19937_64 rng(5);
  for (const auto& [text, min_rank] : rules)
    for (int odd = 0; odd <= 1; ++odd)
      for (int rank = 0; rank <= 3; ++rank) {
        auto file = load(text);
        const rules::Node& src = *file->rules[0].source;
        const OpCode op = src.op;
        prove::Steer steer;
        steer.nodes.assign(prove::preorder(src).size(), prove::NodeSteer{});
        steer.nodes[0].opt_attrs = odd;
        int built = 0;
        std::map<std::string, int> moved;  // attribute (or "config") -> instances not at the default
        for (int k = 0; k < 60; ++k) {
          prove::Instance inst = prove::make_instance(src, {.rank = rank, .max_dim = 3, .steer = &steer}, rng);
          if (!inst.program) continue;
          ++built;
          const Program& p = *inst.program;
          ASSERT_TRUE(verify_program(p).empty()) << print_program(p);
          const InstId d = p.def_inst(inst.node_values[0]);
          ASSERT_EQ(p.op(d), op);
          const AttrSet& a = p.attrs_of(d);
          const int xr = p.type_of(p.operand(d, 0)).rank();
          for (const AttrSpec& spec : op_attr_schema(op))
            if (spec.dflt != AttrDefault::None && spec.dflt != AttrDefault::Own)
              if (const AttrValue* v = a.find(spec.name); v && !attr_is_default(spec, *v, xr)) ++moved[std::string(spec.name)];
          if (op == OpCode::ScatterAdd && !prove::scatter_leading(a)) ++moved["config"];
        }
        const std::string where = text + " odd " + std::to_string(odd) + " rank " + std::to_string(rank);
        if (rank < min_rank) continue;  // the op has no instance (or no attribute to move) at this rank
        EXPECT_GT(built, 30) << where;
        if (odd == 0) {
          for (const auto& [name, n] : moved) EXPECT_EQ(n, 0) << where << " " << name;
          continue;
        }
        std::vector<std::string> expect;
        for (const AttrSpec& spec : op_attr_schema(op))
          if (spec.dflt != AttrDefault::None && spec.dflt != AttrDefault::Own) expect.push_back(std::string(spec.name));
        if (op == OpCode::ScatterAdd) expect.push_back("config");
        for (const std::string& name : expect) EXPECT_GT(moved[name], built / 4) << where << " " << name;
      }
}

// ---- coverage (docs/verification.md "Coverage") ----

std::set<std::string> unreachable_classes(const prove::CoveragePlan& p) {
  std::set<std::string> out;
  for (const auto& c : p.classes)
    if (!c.reachable) out.insert(c.name);
  return out;
}
bool has_class(const prove::CoveragePlan& p, const std::string& name) {
  for (const auto& c : p.classes)
    if (c.name == name) return true;
  return false;
}
prove::CoveragePlan plan_of(const std::shared_ptr<const rules::RuleFile>& f) {
  const rules::Rule& r = f->rules[0];
  return prove::plan_coverage(*r.source, r.where, r.assumes, 3, 3);
}

TEST(Coverage, TheOpTableIsAskedOfTheVerifier) {
  EXPECT_FALSE(prove::op_accepts_dtype(OpCode::Add, DType::I1));
  EXPECT_TRUE(prove::op_accepts_dtype(OpCode::Add, DType::UI8));
  EXPECT_FALSE(prove::op_accepts_dtype(OpCode::Exp, DType::SI32));
  EXPECT_TRUE(prove::op_accepts_dtype(OpCode::Exp, DType::BF16));
  for (int d = 0; d < kNumDTypes; ++d) {
    EXPECT_TRUE(prove::op_accepts_dtype(OpCode::Compare, static_cast<DType>(d))) << d;
    EXPECT_TRUE(prove::op_accepts_dtype(OpCode::Transpose, static_cast<DType>(d))) << d;
    EXPECT_FALSE(prove::accum_accepted(static_cast<DType>(d), DType::I1)) << d;
  }
  EXPECT_TRUE(prove::accum_accepted(DType::UI8, DType::SI8));
  EXPECT_FALSE(prove::accum_accepted(DType::UI8, DType::F32));
  EXPECT_TRUE(prove::accum_accepted(DType::F16, DType::F64));
}

// The ops an OpSwap near miss may swap in come from the op table: a symmetric relation between ops
// with the same operand counts, result count, elementwise trait and attribute schema.
TEST(Instances, OpSiblingsAreReadOffTheOpTable) {
  auto has = [](OpCode a, OpCode b) {
    const auto& s = prove::op_siblings(a);
    return std::find(s.begin(), s.end(), b) != s.end();
  };
  EXPECT_TRUE(has(OpCode::Neg, OpCode::Abs));
  EXPECT_TRUE(has(OpCode::Neg, OpCode::Exp));
  EXPECT_TRUE(has(OpCode::Add, OpCode::Sub));
  EXPECT_TRUE(has(OpCode::Add, OpCode::Maximum));
  EXPECT_TRUE(has(OpCode::ReduceSum, OpCode::ReduceMax));
  EXPECT_FALSE(has(OpCode::Neg, OpCode::Add));        // operand counts differ
  EXPECT_FALSE(has(OpCode::Neg, OpCode::Transpose));  // elementwise and not
  EXPECT_FALSE(has(OpCode::Neg, OpCode::Select));     // operand counts differ
  EXPECT_FALSE(has(OpCode::Add, OpCode::Compare));    // compare has a dir
  for (int a = 0; a < kNumOps; ++a)
    for (OpCode b : prove::op_siblings(static_cast<OpCode>(a))) {
      EXPECT_NE(static_cast<int>(b), a);
      EXPECT_TRUE(has(b, static_cast<OpCode>(a))) << mnemonic(static_cast<OpCode>(a)) << " " << mnemonic(b);
      EXPECT_TRUE(prove::generator_supports(b));
      EXPECT_EQ(op_attr_schema(b).size(), op_attr_schema(static_cast<OpCode>(a)).size());
      EXPECT_FALSE(has_trait(b, OpTrait::Opaque) || has_trait(b, OpTrait::Effect) || has_trait(b, OpTrait::Regions));
    }
}

TEST(Coverage, ReachabilityFollowsTheTypeRulesAndConstraints) {
  // mul has no i1; a splat matches non-empty constants only, and %x has its shape.
  auto mul_one = plan_of(load("rule r : mul(%x, splat(1)) => %x\n"));
  EXPECT_EQ(unreachable_classes(mul_one), (std::set<std::string>{"dtype %x = i1", "input sizes = some axis 0"}));
  EXPECT_EQ(mul_one.ranks, (std::vector<int>{0, 1, 2, 3}));
  // Two permutations that compose to the identity always commute; ones that do not need rank >= 2.
  auto pair = plan_of(load("rule r : transpose(transpose(%x) {perm = $p}) {perm = $q} where composes_to_identity($p, $q) => %x\n"));
  EXPECT_TRUE(unreachable_classes(pair).count("perm transpose#1 = not commuting with another perm"));
  auto tt = plan_of(load(
      "rule r [bounded] : transpose(transpose(%x) {perm = $p}) {perm = $q} where not composes_to_identity($p, $q) => "
      "transpose(%x) {perm = compose_perm($p, $q)}\n"));
  EXPECT_EQ(tt.ranks, (std::vector<int>{2, 3}));
  EXPECT_FALSE(unreachable_classes(tt).count("perm transpose#1 = not commuting with another perm"));
  // accum: every dtype of the element's kind, absent included; exact_accum and dtype_is narrow it.
  auto acc = plan_of(load("rule r : reduce_sum(%x) {axes = $a} as %r where dtype_is(%x, ui8), exact_accum(%r) => %x\n"));
  for (const char* a : {"absent", "ui8", "si16", "ui16", "si32", "ui32", "si64", "ui64"}) {
    EXPECT_TRUE(has_class(acc, std::string("accum reduce_sum = ") + a)) << a;
    EXPECT_FALSE(unreachable_classes(acc).count(std::string("accum reduce_sum = ") + a)) << a;
  }
  for (const char* a : {"si8", "f32", "i1"}) EXPECT_TRUE(unreachable_classes(acc).count(std::string("accum reduce_sum = ") + a)) << a;
  // An `as` name used again is a shared-subterm class; a concat needs rank >= 1.
  EXPECT_TRUE(has_class(plan_of(load("rule r : mul(abs(%x) as %a, %a) => mul(%x, %x)\n")), "shared subterm %a"));
  EXPECT_EQ(plan_of(load("rule r : concat(%x) => %x\n")).ranks, (std::vector<int>{1, 2, 3}));
}

TEST(Instances, BuildAnAsNameOnceAndUseItAtEveryOccurrence) {
  for (const char* text : {"rule r : mul(abs(%x) as %a, %a) => mul(%x, %x)\n", "rule r : mul(%a, abs(%x) as %a) => mul(%x, %x)\n"}) {
    auto file = load(text);
    std::mt19937_64 rng(3);
    int built = 0;
    for (int k = 0; k < 40; ++k) {
      prove::Instance inst = prove::make_instance(*file->rules[0].source, {.rank = k % 4, .max_dim = 3}, rng);
      if (!inst.program) continue;
      ++built;
      const Program& p = *inst.program;
      const InstId root = p.def_inst(p.operand(p.terminator(p.entry()), 0));
      ASSERT_EQ(p.op(root), OpCode::Mul);
      EXPECT_EQ(p.operand(root, 0), p.operand(root, 1)) << text;  // one SSA value, used twice
      const InstId a = p.def_inst(p.operand(root, 0));
      ASSERT_NE(a, kNone);
      EXPECT_EQ(p.op(a), OpCode::Abs);
      EXPECT_EQ(p.body(p.entry()).params.size(), 1u);
    }
    EXPECT_GT(built, 30) << text;
  }
}

TEST(Instances, VaryAccumOverEveryDtypeTheVerifierAccepts) {
  auto file = load("rule r : reduce_sum(%x) {axes = $a} => %x\n");
  std::mt19937_64 rng(5);
  std::set<int> seen;  // -1: absent
  for (int k = 0; k < 600; ++k) {
    prove::Instance inst = prove::make_instance(*file->rules[0].source, {.rank = k % 3, .max_dim = 2}, rng);
    if (!inst.program) continue;
    const Program& p = *inst.program;
    const AttrValue* acc = p.attrs_of(p.def_inst(p.operand(p.terminator(p.entry()), 0))).find("accum");
    seen.insert(acc ? static_cast<int>(acc->ints[0]) : -1);
  }
  EXPECT_TRUE(seen.count(-1));
  for (int d = 0; d < kNumDTypes; ++d)
    if (static_cast<DType>(d) != DType::I1) {
      EXPECT_TRUE(seen.count(d)) << dtype_name(static_cast<DType>(d));
    }
}

/// Transposes by p then by q with the composition the wrong way round (r[i] = q[p[i]] instead of
/// p[q[i]]), and only where that still gives the root's type: the two agree unless p and q do not
/// commute, which needs rank 3, and on a shape where both compositions type-check. The prover must
/// generate exactly that (issue 15, item 1c).
class SwappedTransposePair final : public OpRewritePattern<TransposeView> {
 public:
  SwappedTransposePair() : OpRewritePattern("swapped_transpose_pair", 2) { set_has_bounded_recursion(); }
  bool match_and_rewrite(const TransposeView& op, ProgramRewriter& rw) const override {
    const InstId inner = rw.inst_of(op.x);
    if (inner == kNone || rw.op(inner) != OpCode::Transpose) return rw.notify_match_failure("operand is not a transpose");
    const std::vector<int64_t>& p = rw.attrs(inner).ints("perm");
    if (p.size() != op.perm.size()) return rw.notify_match_failure("ranks differ");
    std::vector<int64_t> r(p.size());
    for (size_t i = 0; i < r.size(); ++i) r[i] = op.perm[p[i]];  // bug: should be p[op.perm[i]]
    const ValueId x = rw.operand(inner, 0);
    TensorType t = rw.type_of(x);
    for (size_t i = 0; i < r.size(); ++i) t.dims[i] = rw.type_of(x).dims[r[i]];
    if (t != rw.type_of(op.result)) return rw.notify_match_failure("the composed transpose has another type");
    AttrSet perm;
    perm.attrs.push_back(Attr{"perm", AttrValue{AttrKind::Ints, r, {}, {}}});
    rw.replace_op(op.root, rw.insert_before(op.root, OpCode::Transpose, {x}, rw.type_id(op.result), rw.intern_attrs(perm)));
    return true;
  }
};

TEST(Prove, CppPatternComposingPermutationsTheWrongWayIsRefutedByTheDefaultRun) {
  prove::Populate pop = [](PatternSet& s) { s.add<SwappedTransposePair>(); };
  auto subjects = prove::subjects_of(pop, {{"swapped_transpose_pair", "transpose(transpose(%x))"}});
  ASSERT_EQ(subjects.size(), 1u);
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    prove::Report r = prove::prove_pattern(subjects[0], pop, {.seed = seed});
    EXPECT_EQ(r.status, prove::Status::Refuted) << "seed " << seed << ": " << r.scope() << "\n" << r.detail;
  }
}

/// neg(neg(x)) => x, but only from rank 2 on (the template does not say so).
class NegNegRankTwo final : public OpRewritePattern<ElementwiseUnaryView> {
 public:
  NegNegRankTwo() : OpRewritePattern("neg_neg_rank_two", 2, kOnly<OpCode::Neg>) {}
  bool match_and_rewrite(const ElementwiseUnaryView& op, ProgramRewriter& rw) const override {
    const InstId inner = rw.inst_of(op.x);
    if (inner == kNone || rw.op(inner) != OpCode::Neg) return rw.notify_match_failure("operand is not a neg");
    if (rw.type_of(op.result).rank() < 2) return rw.notify_match_failure("rank < 2");
    rw.replace_op(op.root, rw.operand(inner, 0));
    return true;
  }
};

TEST(Prove, PatternFiringOnlyFromRankTwoIsPartialAndSaysWhichRanksFired) {
  prove::Populate pop = [](PatternSet& s) { s.add<NegNegRankTwo>(); };
  auto subjects = prove::subjects_of(pop, {{"neg_neg_rank_two", "neg(neg(%x))"}});
  prove::Report r = prove::prove_pattern(subjects[0], pop, {});
  EXPECT_EQ(r.status, prove::Status::Partial) << r.detail;
  EXPECT_EQ(r.fired_ranks(), "2-3");
  EXPECT_EQ(r.classes_missed(), (std::vector<std::string>{"rank 0", "rank 1"}));
  EXPECT_NE(r.scope().find("root ranks 2-3 fired"), std::string::npos) << r.scope();
  EXPECT_EQ(r.fired, r.proved);
}

}  // namespace
}  // namespace ptir
