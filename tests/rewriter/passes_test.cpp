// Passes: CSE, DCE, pipeline strings, fixed-point groups, statistics and instrumentation.
#include <gtest/gtest.h>

#include "patterns/passes.h"
#include "rewriter/canonicalize.h"
#include "rewriter/cse.h"
#include "rewriter/dce.h"
#include "rewriter/instrument.h"
#include "rewriter/pipeline.h"
#include "tests/rewriter/helpers.h"

namespace ptir {
namespace {
using testing::count_op;
using testing::parse;
using testing::print;
using testing::verify_error;

int64_t cse(Program& p) {
  ProgramRewriter rw(p);
  return eliminate_common_subexpressions(rw);
}

TEST(Cse, MergesIdenticalPureInstructions) {
  auto p = parse(R"(
func @main(%x: tensor<f32, 2>, %y: tensor<f32, 2>) -> (tensor<f32, 2>, tensor<f32, 2>, tensor<f32, 2>) {
  %a = add %x, %y -> tensor<f32, 2>
  %b = add %x, %y -> tensor<f32, 2>
  %c = add %y, %x -> tensor<f32, 2>
  %d = sub %x, %y -> tensor<f32, 2>
  %e = sub %y, %x -> tensor<f32, 2>
  %f = mul %a, %b -> tensor<f32, 2>
  %g = mul %c, %a -> tensor<f32, 2>
  return %f, %g, %e
}
)");
  EXPECT_EQ(cse(*p), 3);  // b, c (add commutes), g (then equal to f); not e (sub does not commute)
  EXPECT_EQ(count_op(*p, OpCode::Add), 1);
  EXPECT_EQ(count_op(*p, OpCode::Sub), 2);  // %d is dead, but CSE leaves dead code to DCE
  EXPECT_NE(print(*p).find("return %f, %f, %e"), std::string::npos) << print(*p);
  EXPECT_EQ(verify_error(*p), "");
}

TEST(Cse, LiteralsCompareByBitsAndAttributesMatter) {
  auto p = parse(R"(
func @main(%x: tensor<f32>, %m: tensor<f32, 2x3>) -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32, 3x2>, tensor<f32, 3x2>) {
  %a = add %x, dense<0.0> : tensor<f32> -> tensor<f32>
  %b = add %x, dense<-0.0> : tensor<f32> -> tensor<f32>
  %c = add %x, dense<0.0> : tensor<f32> -> tensor<f32>
  %t = transpose %m perm[1, 0] -> tensor<f32, 3x2>
  %u = transpose %m perm[1, 0] -> tensor<f32, 3x2>
  return %a, %b, %c, %t, %u
}
)");
  EXPECT_EQ(cse(*p), 2);  // c into a, u into t; b keeps its -0.0
  EXPECT_NE(print(*p).find("return %a, %b, %a, %t, %t"), std::string::npos) << print(*p);
}

TEST(Cse, ConstantOpsMergeByBits) {
  auto p = parse(R"(
func @main() -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %a = constant dense<-0.0> : tensor<f32> -> tensor<f32>
  %b = constant dense<0.0> : tensor<f32> -> tensor<f32>
  %c = constant dense<-0.0> : tensor<f32> -> tensor<f32>
  return %a, %b, %c
}
)");
  EXPECT_EQ(cse(*p), 1);
  EXPECT_NE(print(*p).find("return %a, %b, %a"), std::string::npos) << print(*p);
}

TEST(Cse, EffectfulOpsAreNeverMerged) {
  auto p = parse(R"(
func @main() -> (tensor<f32, 4>, tensor<f32, 4>) {
  %r1 = rng_uniform seed[3] -> tensor<f32, 4>
  %r2 = rng_uniform seed[3] -> tensor<f32, 4>
  return %r1, %r2
}
)");
  EXPECT_EQ(cse(*p), 0);
  EXPECT_EQ(count_op(*p, OpCode::RngUniform), 2);
}

TEST(Cse, RegionsAreCseScopesOfTheirOwn) {
  auto p = parse(R"(
region ^r(%v: tensor<f32>) -> tensor<f32> {
  %a = neg %v -> tensor<f32>
  %b = neg %v -> tensor<f32>
  %s = add %a, %b -> tensor<f32>
  return %s
}
func @main(%p: tensor<i1>, %x: tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %c1 = cond %p, %x then[^r] else[^r] -> tensor<f32>
  %c2 = cond %p, %x then[^r] else[^r] -> tensor<f32>
  %n = neg %x -> tensor<f32>
  return %c1, %c2, %n
}
)");
  EXPECT_EQ(cse(*p), 2);  // b into a inside ^r; c2 into c1 (same regions, same operands)
  EXPECT_EQ(count_op(*p, OpCode::Neg), 2);  // the function's neg reads another value: nothing shared
  EXPECT_EQ(verify_error(*p), "");
}

TEST(Cse, MultiResultOps) {
  auto p = parse(R"(
func @main(%x: tensor<f32, 8>) -> (tensor<f32, 2>, tensor<si32, 2>) {
  %v1, %i1 = top_k %x k[2] -> (tensor<f32, 2>, tensor<si32, 2>)
  %v2, %i2 = top_k %x k[2] -> (tensor<f32, 2>, tensor<si32, 2>)
  return %v1, %i2
}
)");
  EXPECT_EQ(cse(*p), 1);
  EXPECT_NE(print(*p).find("return %v1, %i1"), std::string::npos) << print(*p);
}

TEST(Dce, ErasesDeadChainsInOneSweepButKeepsEffects) {
  auto p = parse(R"(
region ^r(%v: tensor<f32>) -> tensor<f32> {
  %dead = exp %v -> tensor<f32>
  return %v
}
func @main(%x: tensor<f32>) -> tensor<f32> {
  %a = neg %x -> tensor<f32>
  %b = abs %a -> tensor<f32>
  %c = exp %b -> tensor<f32>
  %r = rng_normal seed[1] -> tensor<f32>
  %k = constant dense<1.0> : tensor<f32> -> tensor<f32>
  return %x
}
)");
  ProgramRewriter rw(*p);
  EXPECT_EQ(eliminate_dead_code(rw), 5);  // a b c k, and the region's exp
  EXPECT_EQ(count_op(*p, OpCode::RngNormal), 1);
  EXPECT_EQ(verify_error(*p), "");
}

TEST(Pipeline, ParsesSequencesAndNestedFixpoints) {
  PassRegistry reg = default_pass_registry();
  PassManager pm;
  EXPECT_EQ(parse_pipeline(" cse , fixpoint(3){ canonicalize, fixpoint(2){dce} } ,dce", reg, pm.top()), "");
  EXPECT_EQ(pm.top().to_string(), "cse,fixpoint(3){canonicalize,fixpoint(2){dce}},dce");
  std::vector<std::string> names;
  pm.for_each_pass([&](const Pass& p) { names.emplace_back(p.name()); });
  EXPECT_EQ(names, (std::vector<std::string>{"cse", "canonicalize", "dce", "dce"}));
}

TEST(Pipeline, ReportsErrorsWithAColumn) {
  PassRegistry reg = default_pass_registry();
  auto err = [&](std::string_view s) {
    PassManager pm;
    return parse_pipeline(s, reg, pm.top());
  };
  EXPECT_EQ(err("cse,cse2"), "pipeline:1:5: unknown pass 'cse2' (known: canonicalize, cse, dce, hoist-params, default, gptrs, fixpoint(N){...})");
  EXPECT_EQ(err("fixpoint{cse}"), "pipeline:1:9: expected '(' after 'fixpoint'");
  EXPECT_EQ(err("fixpoint(0){cse}"), "pipeline:1:11: fixpoint needs an iteration count between 1 and 999999");
  EXPECT_EQ(err("fixpoint(2){cse"), "pipeline:1:16: expected ',' or '}'");
  EXPECT_EQ(err("cse,"), "pipeline:1:5: expected a pass name, found the end");
  EXPECT_EQ(err("cse dce"), "pipeline:1:5: unexpected 'd'");
}

TEST(PassManager, FixpointGroupRunsUntilNothingChanges) {
  // Iteration 1 merges the negs; iteration 2 changes nothing, so the group stops there.
  auto p = parse(R"(
func @main(%x: tensor<f32>) -> tensor<f32> {
  %a = neg %x -> tensor<f32>
  %b = neg %x -> tensor<f32>
  %s = add %a, %b -> tensor<f32>
  return %s
}
)");
  PassRegistry reg = default_pass_registry();
  PassManager pm;
  ASSERT_EQ(parse_pipeline("fixpoint(4){cse,dce}", reg, pm.top()), "");
  TimingReport timing;
  PassTimingInstrumentation ti(timing);
  pm.add_instrumentation(&ti);
  PipelineResult r = pm.run(*p);
  EXPECT_TRUE(r.ok);
  EXPECT_TRUE(r.changed);
  EXPECT_TRUE(r.warnings.empty());
  ASSERT_EQ(timing.phases().size(), 2u);
  EXPECT_EQ(timing.phases()[0].name, "cse");
  // Iteration 1 merged; cse and dce reach their fixpoint in one run and nothing changed the program
  // after them, so iteration 2 skips both, changes nothing, and the group stops.
  EXPECT_EQ(timing.phases()[0].runs, 1);
  EXPECT_EQ(timing.phases()[1].runs, 1);
  std::string stats = format_statistics(pm);
  EXPECT_NE(stats.find("       1 num-cse'd"), std::string::npos) << stats;
  EXPECT_NE(timing.format().find("Total Execution Time"), std::string::npos);
}

/// A pass that reports a change on its first `changing_runs` runs, and PassResult::fixpoint as told.
class ScriptedPass final : public Pass {
 public:
  ScriptedPass(std::string name, int changing_runs, bool fixpoint)
      : name_(std::move(name)), changing_runs_(changing_runs), fixpoint_(fixpoint) {}
  std::string_view name() const override { return name_; }
  PassResult run(ProgramRewriter&) override {
    ++runs;
    return PassResult{.changed = runs <= changing_runs_, .fixpoint = fixpoint_};
  }
  int runs = 0;

 private:
  std::string name_;
  int changing_runs_;
  bool fixpoint_;
};

/// In a fixpoint group a pass runs again only when something changed the program since its last run
/// left a program it would not change (no change, or PassResult::fixpoint).
TEST(PassManager, FixpointGroupSkipsAPassNothingHasChangedSince) {
  auto p = parse("func @main(%x: tensor<f32>) -> tensor<f32> {\n  return %x\n}\n");
  PassManager pm;
  PassGroup& g = pm.top().add_fixpoint(5);
  ScriptedPass& a = g.add<ScriptedPass>("a", 2, false);
  ScriptedPass& b = g.add<ScriptedPass>("b", 1, true);
  ScriptedPass& c = g.add<ScriptedPass>("c", 0, false);
  PipelineResult r = pm.run(*p);
  EXPECT_TRUE(r.ok);
  EXPECT_TRUE(r.changed);
  // Iteration 1: a, b change (b at its fixpoint), c does not. Iteration 2: a changes, so b runs (no
  // change) and c runs (no change). Iteration 3: a runs (no change); b and c are skipped: nothing
  // changed since their last runs. Nothing changed in iteration 3: the group stops.
  EXPECT_EQ(a.runs, 3);
  EXPECT_EQ(b.runs, 2);
  EXPECT_EQ(c.runs, 2);
}

TEST(PassManager, DefaultPipelineOptimizesAndStaysValid) {
  auto p = parse(R"(
func @main(%x: tensor<f32, 2x3>) -> tensor<f32, 2x3> {
  %c = cast %x -> tensor<f32, 2x3>
  %t1 = transpose %c perm[1, 0] -> tensor<f32, 3x2>
  %t2 = transpose %t1 perm[1, 0] -> tensor<f32, 2x3>
  %a = mul %t2, dense<1.0> : tensor<f32, 2x3> -> tensor<f32, 2x3>
  %b = mul %t2, dense<1.0> : tensor<f32, 2x3> -> tensor<f32, 2x3>
  %s = add %a, %b -> tensor<f32, 2x3>
  return %s
}
)");
  PassRegistry reg = default_pass_registry();
  PassManager pm(PassManagerOptions{.expensive_checks = true});
  ASSERT_EQ(parse_pipeline(kDefaultPipeline, reg, pm.top()), "");
  PipelineResult r = pm.run(*p);
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_GT(r.replayed_rewrites, 0);
  EXPECT_EQ(print(*p), "func @main(%x: tensor<f32, 2x3>) -> tensor<f32, 2x3> {\n"
                       "  %s = add %x, %x -> tensor<f32, 2x3>\n"
                       "  return %s\n"
                       "}\n");
}

TEST(PassManager, IrPrinterDumpsAfterEveryPass) {
  auto p = parse("func @main(%x: tensor<f32>) -> tensor<f32> {\n  return %x\n}\n");
  PassRegistry reg = default_pass_registry();
  PassManager pm;
  ASSERT_EQ(parse_pipeline("cse,dce", reg, pm.top()), "");
  char* buf = nullptr;
  size_t len = 0;
  std::FILE* mem = open_memstream(&buf, &len);
  IrPrinterInstrumentation printer(mem);
  pm.add_instrumentation(&printer);
  pm.run(*p);
  std::fclose(mem);
  std::string out(buf, len);
  std::free(buf);
  EXPECT_NE(out.find("// -----// IR Dump After cse (1) (no change) //----- //"), std::string::npos) << out;
  EXPECT_NE(out.find("// -----// IR Dump After dce (2) (no change) //----- //"), std::string::npos) << out;
}

}  // namespace
}  // namespace ptir
