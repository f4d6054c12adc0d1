/// Properties of the whole system on random programs from the generator (RapidCheck decides every
/// generator choice, so failures shrink to small programs). ctest runs each with a small case count
/// (RC_PARAMS=max_success=N, see tests/CMakeLists.txt); run the binary with a larger RC_PARAMS for a
/// long campaign, e.g. RC_PARAMS="max_success=10000" build/release/tests/ptir_fuzz_tests
/// --gtest_filter='FuzzSolver.*'.
#include <gtest/gtest.h>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <variant>
#include <string>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "fuzz/gen/generator.h"
#include "fuzz/gen/rc_choices.h"
#include "fuzz/harness/compare.h"
#include "fuzz/harness/harness.h"
#include "fuzz/harness/mutate.h"
#include "ir/interp.h"
#include "ir/text.h"
#include "ir/verifier.h"
#include "patterns/passes.h"
#include "rewriter/cse.h"
#include "rewriter/dce.h"
#include "rewriter/rewriter.h"
#include "rewriter/rules/natives.h"
#include "rewriter/rules/rules.h"
#include "verify/encode/encode.h"
#include "verify/refine.h"

namespace ptir::fuzz {
namespace {

/// Small random options: most of the op table, small tensors.
GenOptions small_options(Choices& c, int max_ops, int64_t max_elements) {
  GenOptions o;
  o.num_ops = static_cast<int>(c.range(1, max_ops));
  o.profile = static_cast<Profile>(c.range(0, 4));
  o.seeded_patterns = c.chance(1, 2);
  o.max_rank = static_cast<int>(c.range(0, 3));
  o.max_elements = max_elements;
  return o;
}

/// A generated program that must parse and verify.
std::unique_ptr<Program> gen_program(Choices& c, const GenOptions& o) {
  Generated g = generate(c, o);
  RC_LOG() << g.text;
  if (!g.program) RC_FAIL("the generator wrote a program the parser rejects: " + g.error);
  auto d = verify_program(*g.program, 1);
  if (!d.empty()) RC_FAIL("the generator wrote a program that does not verify: " + d[0].message);
  return std::move(g.program);
}

int count_effects(const Program& p) {
  int n = 0;
  for (BodyId b = 0; b < p.num_bodies(); ++b) p.for_each_inst(b, [&](InstId i) { n += has_trait(p.op(i), Effect); });
  return n;
}

RC_GTEST_PROP(FuzzProperty, PrintParseIsExact, ()) {
  RcChoices c;
  auto p = gen_program(c, small_options(c, 20, 48));
  const std::string printed = print_program(*p);
  ParseResult again = parse_program(printed, "printed.ptir");
  RC_ASSERT(again.ok());
  RC_ASSERT(print_program(*again.program) == printed);
}

RC_GTEST_PROP(FuzzProperty, GeneratedProgramsVerify, ()) {
  RcChoices c;
  GenOptions o = small_options(c, 24, 64);
  if (c.chance(1, 3)) o.dtypes = {static_cast<DType>(c.range(0, kNumDTypes - 1))};
  gen_program(c, o);
}

RC_GTEST_PROP(FuzzProperty, PipelineKeepsResultsVerifiesAndIsIdempotent, ()) {
  RcChoices c;
  auto p = gen_program(c, small_options(c, 16, 32));
  const std::string finding = check_pipeline(*p, ChecksLevel{}, {.runs = 24, .seed = 3});
  RC_LOG() << finding;
  RC_ASSERT(finding.empty());
}

/// A run through a PlanCache (kept body plans, frames and per-instruction MapMemos, the kept plans
/// of maps that read no element among them) gives what a fresh run gives, on every input set, and a
/// second program through the same cache does not see the first one's memos; so does a run through an
/// IndexMapCache alone, whose memos (by op, attributes and types) the two programs share.
RC_GTEST_PROP(FuzzProperty, CachedInterpreterRunsMatchFreshRuns, ()) {
  RcChoices c;
  auto p = gen_program(c, small_options(c, 12, 24));
  auto q = gen_program(c, small_options(c, 12, 24));
  PlanCache plans;
  IndexMapCache maps, memos;
  InterpOptions cached = interp_options(), fresh = interp_options(), memoized = interp_options();
  cached.plans = &plans;
  cached.index_maps = &maps;
  memoized.index_maps = &memos;  // no PlanCache: each call takes its op's memo from the cache (IndexMapCache::memo)
  for (const Program* prog : {p.get(), q.get(), p.get()}) {
    for (uint64_t seed = 1; seed <= 4; ++seed) {
      const std::vector<Tensor> in = random_inputs(*prog, prog->entry(), seed, 0.3);
      const RunResult a = run_program(*prog, in, fresh);
      for (const InterpOptions* o : {&cached, &memoized}) {
        const RunResult b = run_program(*prog, in, *o);
        RC_ASSERT(a.status == b.status);
        RC_ASSERT(a.message == b.message);
        RC_ASSERT(a.results.size() == b.results.size());
        for (size_t k = 0; k < a.results.size(); ++k) RC_ASSERT(results_equal(a.results[k], b.results[k]));
      }
    }
  }
}

/// The frozen set's operand index (FrozenPatternSet::candidates) only drops patterns that would not
/// rewrite: every library pattern the index leaves out at an instruction, run there on a copy, fails.
RC_GTEST_PROP(FuzzProperty, OperandIndexNeverHidesAMatch, ()) {
  static const FrozenPatternSet library = [] {
    PatternSet set;
    populate_canonicalization_patterns(set);
    return std::move(set).freeze();
  }();
  RcChoices c;
  GenOptions o = small_options(c, 16, 32);
  o.seeded_patterns = true;
  auto p = gen_program(c, o);
  for (BodyId b = 0; b < p->num_bodies(); ++b)
    p->for_each_inst(b, [&](InstId i) {
      const auto list = library.patterns_for(p->op(i));
      const uint64_t cand = library.candidates(*p, i);
      for (size_t j = 0; j < list.size() && j < FrozenPatternSet::kIndexedPatterns; ++j) {
        if (cand >> j & 1u) continue;
        Program copy(*p);
        ProgramRewriter rw(copy);
        const bool rewrote = list[j]->match_and_rewrite(i, rw);
        RC_LOG() << "pattern " << list[j]->debug_name() << " at instruction " << i << "\n";
        RC_ASSERT(!rewrote);
      }
    });
}

/// The flat matcher (CompiledRule::flat: a root op over leaves, most of the library) and the recursive
/// matcher agree at every instruction of a program: the same verdict and, on a match, the same captures.
/// Counts the matches; `mismatch` names the first disagreement ("" when none).
struct FlatCheck {
  int matches = 0;
  std::string mismatch;
};
FlatCheck check_flat_matcher(const Program& p) {
  static const std::vector<const rules::RulePattern*> flat = [] {
    static const FrozenPatternSet library = [] {
      PatternSet set;
      populate_canonicalization_patterns(set);
      return std::move(set).freeze();
    }();
    // Beside the library, rules for the flat forms it does not use (typed operands, a slot typed twice,
    // `as` on a leaf or the root, attribute captures, a literal captured twice); only their matching is compared, not their soundness.
    static const FrozenPatternSet extra = [] {
      auto loaded = rules::load_rule_text(
          "rule t_operand_types : add(%x : $T, %y : $T) => %x\n"
          "rule t_operand_types_differ : dot_general(%a : $T, %b : $T) : $U => splat(0)\n"
          "rule t_leaf_as : mul(%x, splat(1) as %c) where one_use(%c) => %x\n"
          "rule t_const_twice : add(const($c) as %a, const($c)) => %a\n"
          "rule t_splat_typed : mul(%x, splat(1) : $T) : $T => %x\n"
          "rule t_value_twice_typed : sub(%x : $T, %x) : $T => splat(0)\n"
          "rule t_root_as : abs(%x) as %r => %x\n"
          "rule t_root_attr : transpose(%x) {perm = $p} : $T as %r where one_use(%r) => %x\n",
          "flat_forms.rules");
      if (auto* e = std::get_if<rules::RuleError>(&loaded)) throw std::runtime_error(e->format());
      PatternSet set;
      rules::add_rule_patterns(set, std::make_shared<const rules::RuleFile>(std::get<rules::RuleFile>(std::move(loaded))));
      return std::move(set).freeze();
    }();
    std::vector<const rules::RulePattern*> out;
    for (const FrozenPatternSet* s : {&library, &extra})
      for (int op = 0; op < kNumOps; ++op)
        for (const Pattern* q : s->patterns_for(static_cast<OpCode>(op)))
          if (auto* r = dynamic_cast<const rules::RulePattern*>(q); r && r->flat()) out.push_back(r);
    return out;
  }();
  auto blank = [] {
    rules::Captures c;
    c.value.fill(kNone), c.type.fill(kNone), c.attr.fill(nullptr), c.lit.fill(nullptr);
    return c;
  };
  FlatCheck out;
  for (BodyId b = 0; b < p.num_bodies(); ++b)
    p.for_each_inst(b, [&](InstId i) {
      for (const rules::RulePattern* r : flat) {
        if (!out.mismatch.empty() || r->rule().source->op != p.op(i)) continue;
        rules::Captures by_flat = blank(), by_tree = blank();
        const bool f = r->matches(p, i, by_flat, /*tree_only=*/false);
        const bool t = r->matches(p, i, by_tree, /*tree_only=*/true);
        const std::string where = "rule " + r->rule().name + " at instruction " + std::to_string(i);
        if (f != t) out.mismatch = where + ": flat " + std::to_string(f) + ", tree " + std::to_string(t);
        else if (f && (by_flat.value != by_tree.value || by_flat.type != by_tree.type ||
                       by_flat.attr != by_tree.attr || by_flat.lit != by_tree.lit))
          out.mismatch = where + ": both match with different captures";
        out.matches += f;
      }
    });
  return out;
}

RC_GTEST_PROP(FuzzProperty, FlatMatcherAgreesWithTheTreeMatcher, ()) {
  RcChoices c;
  GenOptions o = small_options(c, 16, 32);
  o.seeded_patterns = true;
  const FlatCheck r = check_flat_matcher(*gen_program(c, o));
  RC_LOG() << r.mismatch;
  RC_ASSERT(r.mismatch.empty());
}

/// The same on 400 fixed seeds, which must reach matches (the property is not vacuous).
TEST(FuzzFlatMatcher, AgreesOnSeededProgramsAndMatches) {
  int matches = 0;
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    PrngChoices c(seed);
    GenOptions o = small_options(c, 16, 32);
    o.seeded_patterns = true;
    Generated g = generate(c, o);
    ASSERT_TRUE(g.program) << g.error;
    const FlatCheck r = check_flat_matcher(*g.program);
    ASSERT_EQ(r.mismatch, "") << "seed " << seed << "\n" << g.text;
    matches += r.matches;
  }
  EXPECT_GT(matches, 50);
  std::printf("flat rules matched %d times on 400 seeded programs\n", matches);
}

/// CSE and DCE report PassResult::fixpoint (a fixpoint group then skips them until another step changes
/// the program): a second run right after a first changes nothing.
RC_GTEST_PROP(FuzzProperty, CseAndDceReachTheirFixpointInOneRun, ()) {
  RcChoices c;
  GenOptions o = small_options(c, 24, 16);
  o.seeded_patterns = c.chance(1, 2);
  auto p = gen_program(c, o);
  Program q(*p);
  ProgramRewriter rw(q);
  RC_CLASSIFY(eliminate_common_subexpressions(rw) > 0, "cse merged");
  const std::string once = print_program(q);
  RC_ASSERT(eliminate_common_subexpressions(rw) == 0);
  RC_ASSERT(print_program(q) == once);
  RC_CLASSIFY(eliminate_dead_code(rw) > 0, "dce erased");
  const std::string dce_once = print_program(q);
  RC_ASSERT(eliminate_dead_code(rw) == 0);
  RC_ASSERT(print_program(q) == dce_once);
}

/// VerifyMemo (used for instructions that rules build) gives verify_inst's answer at every instruction of
/// a generated program, whatever was verified before it through the same memo.
RC_GTEST_PROP(FuzzProperty, VerifyMemoAgreesWithVerifyInst, ()) {
  RcChoices c;
  GenOptions o = small_options(c, 24, 16);
  o.seeded_patterns = c.chance(1, 2);
  auto p = gen_program(c, o);
  VerifyMemo memo;
  for (int pass = 0; pass < 2; ++pass)
    for (BodyId b = 0; b < p->num_bodies(); ++b)
      p->for_each_inst(b, [&](InstId i) { RC_ASSERT(memo.verify(*p, i) == verify_inst(*p, i)); });
}

RC_GTEST_PROP(FuzzProperty, CseNeverMergesEffectfulOps, ()) {
  RcChoices c;
  GenOptions o = small_options(c, 16, 16);
  o.profile = Profile::Random;
  auto p = gen_program(c, o);
  Program q(*p);
  ProgramRewriter rw(q);
  eliminate_common_subexpressions(rw);
  RC_ASSERT(count_effects(q) == count_effects(*p));
  RC_ASSERT(verify_program(q, 1).empty());
  const std::string d = differential(*p, q, {.runs = 16});
  RC_LOG() << d;
  RC_ASSERT(d.empty());
}

RC_GTEST_PROP(FuzzProperty, DceNeverDropsAUsedValue, ()) {
  RcChoices c;
  auto p = gen_program(c, small_options(c, 16, 16));
  Program q(*p);
  ProgramRewriter rw(q);
  eliminate_dead_code(rw);
  // A used value whose definition was erased fails verification ("use of an erased instruction").
  auto diags = verify_program(q, 1);
  RC_LOG() << (diags.empty() ? "" : diags[0].message);
  RC_ASSERT(diags.empty());
  RC_ASSERT(count_effects(q) == count_effects(*p));
  const std::string d = differential(*p, q, {.runs = 16});
  RC_LOG() << d;
  RC_ASSERT(d.empty());
}

/// Two random worklist orders each give a refinement of the source. Not of each other: where the
/// source has UB each order may pick another refinement (a CI run found `div 0, 0` folded to 1 by
/// x / x -> 1 in one order and to 0 by 0 / y -> 0 in the other, both right), so the outputs are compared
/// only through the source.
RC_GTEST_PROP(FuzzSolver, WorklistOrdersEachRefineTheSource, ()) {
  RcChoices c;
  auto p = gen_program(c, small_options(c, 8, 8));
  const uint64_t s1 = static_cast<uint64_t>(c.range(1, 1 << 30)), s2 = static_cast<uint64_t>(c.range(1, 1 << 30));
  PipelineOutcome a = run_pipeline(*p, {.on = false}, s1), b = run_pipeline(*p, {.on = false}, s2);
  RC_ASSERT(a.result.ok && b.result.ok);
  RC_LOG() << "--- seed " << s1 << " ---\n"
           << print_program(*a.program) << "--- seed " << s2 << " ---\n"
           << print_program(*b.program);
  for (const Program* y : {a.program.get(), b.program.get()}) {
    verify::Verdict v = verify::check_refinement(*p, *y, {.timeout_ms = 1500, .threads = 1, .kernels = &fuzz_kernels()});
    RC_TAG(verify::verdict_word(v));
    RC_ASSERT(!v.refuted());
    RC_ASSERT(!v.invalid());
  }
}

RC_GTEST_PROP(FuzzSolver, EncodingAgreesWithTheInterpreterOnWholePrograms, ()) {
  RcChoices c;
  GenOptions o = small_options(c, 8, 8);
  o.opaque_ops = o.effects = o.transcendentals = false;  // uninterpreted in SMT: no numerals to compare
  auto p = gen_program(c, o);
  std::vector<Tensor> in = random_inputs_avoiding_ub(*p, p->entry(), static_cast<uint64_t>(c.range(0, 1 << 30)),
                                                     static_cast<double>(c.range(0, 4)) / 4.0);
  const RunResult run = run_body(*p, p->entry(), in, {.max_while_iterations = 1000});
  smt::Context ctx;  // this thread's Z3 context, for the life of the case
  std::vector<verify::SymTensor> sym;
  for (const Tensor& t : in) sym.push_back(verify::constant_tensor(t));
  verify::BodyEncoding enc;
  try {
    enc = verify::encode_body(*p, p->entry(), sym, {.while_unroll = 300, .fold_concrete = false});
  } catch (const verify::EncodeError& e) {
    RC_FAIL(std::string("a verified program does not encode: ") + e.what());
  }
  RC_ASSERT(enc.unfinished.simplify().isFalse());
  const auto ub = enc.ub.simplify();
  RC_LOG() << "interpreter: " << static_cast<int>(run.status) << " " << run.message << "\nsmt ub: " << ub.str();
  RC_ASSERT(run.status == RunStatus::Ok || run.status == RunStatus::UB);
  RC_ASSERT(ub.isTrue() == (run.status == RunStatus::UB));
  RC_ASSERT(ub.isFalse() == (run.status == RunStatus::Ok));
  if (run.status != RunStatus::Ok) return;
  RC_ASSERT(enc.results.size() == run.results.size());
  for (size_t k = 0; k < run.results.size(); ++k) {
    auto got = verify::read_numerals(enc.results[k]);
    RC_ASSERT(got.has_value());
    RC_LOG() << "result " << k << ": interpreter " << print_literal(run.results[k]) << "\n          smt "
             << print_literal(*got);
    RC_ASSERT(results_equal(*got, run.results[k]));
  }
}

RC_GTEST_PROP(FuzzSolver, CheckerIsSoundOnProgramMutantPairs, ()) {
  RcChoices c;
  GenOptions o = small_options(c, 6, 8);
  o.max_region_depth = 1;
  auto p = gen_program(c, o);
  std::optional<Mutant> m = mutate(*p, c);
  RC_PRE(m.has_value());
  RC_LOG() << "mutation: " << m->description << "\n" << print_program(*m->program);
  std::string verdict;
  const std::string finding = check_pair(*p, *m->program, 2000, 1000, &verdict);
  RC_TAG(verdict);
  RC_LOG() << finding;
  RC_ASSERT(finding.empty());
}

}  // namespace
}  // namespace ptir::fuzz
