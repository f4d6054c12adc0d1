// Param-only hoisting (rewriter/hoist.h): what moves into the prologue, what never does (rng, code on
// unselected parameters, constants alone), the runtime contract (prologue then function equals the
// original, run in the interpreter) and compose_prologues; named pipelines (`gptrs`).
#include <gtest/gtest.h>

#include "ir/interp.h"
#include "patterns/passes.h"
#include "rewriter/hoist.h"
#include "rewriter/pipeline.h"
#include "tests/rewriter/helpers.h"

namespace ptir {
namespace {
using testing::count_op;
using testing::parse;
using testing::print;
using testing::verify_error;

constexpr const char* kLinear = R"(
func @main(%x: tensor<f32, 2x3>, %w: tensor<f32, 3x2>, %b: tensor<f32, 2>) -> tensor<f32, 2x2> {
  %wt = transpose %w perm[1, 0] -> tensor<f32, 2x3>
  %ws = mul %wt, dense<0.5> : tensor<f32, 2x3> -> tensor<f32, 2x3>
  %y = dot_general %x, %ws contract_lhs[1] contract_rhs[1] -> tensor<f32, 2x2>
  %bb = broadcast_to %b shape[2, 2] -> tensor<f32, 2x2>
  %r = add %y, %bb -> tensor<f32, 2x2>
  return %r
}
)";

HoistResult hoist(Program& p, std::vector<std::string> params, HoistLog* log = nullptr) {
  ProgramRewriter rw(p);
  return hoist_params(rw, HoistOptions{.params = std::move(params)}, log);
}

/// Runs the runtime contract on random inputs: the prologue on the inputs it names, then the function
/// on its original inputs plus the prologue's results, against the original function.
void expect_prologue_then_function_equals(const Program& before, const Program& after, const HoistRecord& rec) {
  const BodyId f0 = before.find_body(rec.function, false), f = after.find_body(rec.function, false);
  const BodyId g = after.find_body(rec.prologue, false);
  ASSERT_NE(g, kNone);
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    std::vector<Tensor> in = random_inputs(before, f0, seed, 0.5);
    RunResult want = run_body(before, f0, in);
    ASSERT_EQ(want.status, RunStatus::Ok) << want.message;
    std::vector<Tensor> pro_in;
    for (uint32_t k : rec.args) pro_in.push_back(in.at(k));
    RunResult pro = run_body(after, g, pro_in);
    ASSERT_EQ(pro.status, RunStatus::Ok) << pro.message;
    std::vector<Tensor> main_in = in;
    for (Tensor& t : pro.results) main_in.push_back(std::move(t));
    RunResult got = run_body(after, f, main_in);
    ASSERT_EQ(got.status, RunStatus::Ok) << got.message;
    ASSERT_EQ(got.results.size(), want.results.size());
    for (size_t k = 0; k < want.results.size(); ++k) EXPECT_TRUE(results_equal(want.results[k], got.results[k]));
  }
}

TEST(HoistParams, MovesWeightOnlyComputationsIntoAPrologue) {
  auto p = parse(kLinear);
  const Program before = *p;
  HoistResult h = hoist(*p, {"w", "%b"});
  ASSERT_EQ(h.records.size(), 1u);
  EXPECT_TRUE(h.unmatched.empty());
  const HoistRecord& rec = h.records[0];
  EXPECT_EQ(rec.function, "main");
  EXPECT_EQ(rec.prologue, "main_prologue");
  EXPECT_EQ(rec.num_params_before, 3u);
  EXPECT_EQ(rec.args, (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(rec.num_hoisted_insts, 3u);  // transpose, mul, broadcast_to
  EXPECT_EQ(verify_error(*p), "");
  const std::string text = print(*p);
  EXPECT_NE(text.find("func @main(%x: tensor<f32, 2x3>, %w: tensor<f32, 3x2>, %b: tensor<f32, 2>, %ws: tensor<f32, "
                      "2x3>, %bb: tensor<f32, 2x2>)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("func @main_prologue(%w: tensor<f32, 3x2>, %b: tensor<f32, 2>) -> (tensor<f32, 2x3>, "
                      "tensor<f32, 2x2>)"),
            std::string::npos)
      << text;
  const BodyId main = p->find_body("main", false);
  int in_main = 0;
  p->for_each_inst(main, [&](InstId) { ++in_main; });
  EXPECT_EQ(in_main, 3);  // dot_general, add, return
  expect_prologue_then_function_equals(before, *p, rec);
}

TEST(HoistParams, RngAndWhatReadsItNeverMove) {
  auto p = parse(R"(
func @main(%w: tensor<f32, 4>) -> (tensor<f32, 4>, tensor<f32, 4>) {
  %u = rng_uniform seed[1] -> tensor<f32, 4>
  %noisy = mul %w, %u -> tensor<f32, 4>
  %n = neg %w -> tensor<f32, 4>
  return %noisy, %n
}
)");
  const Program before = *p;
  HoistResult h = hoist(*p, {"w"});
  ASSERT_EQ(h.records.size(), 1u);
  EXPECT_EQ(h.records[0].num_hoisted_insts, 1u);  // only neg
  const BodyId main = p->find_body("main", false), pro = p->find_body("main_prologue", false);
  int rng_in_main = 0, rng_in_prologue = 0;
  p->for_each_inst(main, [&](InstId i) { rng_in_main += p->op(i) == OpCode::RngUniform; });
  p->for_each_inst(pro, [&](InstId i) { rng_in_prologue += p->op(i) == OpCode::RngUniform; });
  EXPECT_EQ(rng_in_main, 1);
  EXPECT_EQ(rng_in_prologue, 0);
  EXPECT_EQ(count_op(*p, OpCode::Mul), 1);
  expect_prologue_then_function_equals(before, *p, h.records[0]);
}

TEST(HoistParams, ARegionOpHoldingRngNeverMoves) {
  auto p = parse(R"(
region ^noisy(%v: tensor<f32, 2>) -> tensor<f32, 2> {
  %u = rng_normal seed[3] -> tensor<f32, 2>
  %s = add %v, %u -> tensor<f32, 2>
  return %s
}
region ^plain(%v: tensor<f32, 2>) -> tensor<f32, 2> {
  %s = neg %v -> tensor<f32, 2>
  return %s
}
func @main(%p: tensor<i1>, %w: tensor<f32, 2>) -> (tensor<f32, 2>, tensor<f32, 2>) {
  %a = cond %p, %w then[^noisy] else[^plain] -> tensor<f32, 2>
  %b = cond %p, %w then[^plain] else[^plain] -> tensor<f32, 2>
  return %a, %b
}
)");
  const Program before = *p;
  HoistResult h = hoist(*p, {"w", "p"});
  ASSERT_EQ(h.records.size(), 1u);
  EXPECT_EQ(h.records[0].num_hoisted_insts, 1u);  // %b only
  EXPECT_NE(print(*p).find("%a = cond %p, %w then[^noisy]"), std::string::npos) << print(*p);
  expect_prologue_then_function_equals(before, *p, h.records[0]);
}

TEST(HoistParams, UnselectedParametersAndConstantsAloneStay) {
  auto p = parse(R"(
func @main(%x: tensor<f32, 2>, %w: tensor<f32, 2>) -> (tensor<f32, 2>, tensor<f32, 2>, tensor<f32, 2>) {
  %c = constant dense<[1.0, 2.0]> : tensor<f32, 2> -> tensor<f32, 2>
  %c2 = mul %c, %c -> tensor<f32, 2>
  %xw = add %x, %w -> tensor<f32, 2>
  %wc = mul %w, %c -> tensor<f32, 2>
  return %xw, %c2, %wc
}
)");
  const Program before = *p;
  HoistResult h = hoist(*p, {"w"});
  ASSERT_EQ(h.records.size(), 1u);
  EXPECT_EQ(h.records[0].num_hoisted_insts, 1u);  // %wc; the constant is copied, not hoisted
  const std::string text = print(*p);
  EXPECT_NE(text.find("%xw = add %x, %w"), std::string::npos) << text;
  EXPECT_NE(text.find("%c2 = mul %c, %c"), std::string::npos) << text;
  EXPECT_EQ(count_op(*p, OpCode::Constant), 2);  // kept in @main for %c2, copied into the prologue
  expect_prologue_then_function_equals(before, *p, h.records[0]);
}

TEST(HoistParams, IdenticalWeightComputationsMakeOneParameter) {
  // gptrs runs no CSE before hoisting; a parameter cannot be merged afterwards, so hoisting numbers
  // what it moves.
  auto p = parse(R"(
func @main(%x: tensor<f32, 2x2>, %w: tensor<f32, 2x2>) -> tensor<f32, 2x2> {
  %t1 = transpose %w perm[1, 0] -> tensor<f32, 2x2>
  %t2 = transpose %w perm[1, 0] -> tensor<f32, 2x2>
  %s1 = exp %t1 -> tensor<f32, 2x2>
  %s2 = exp %t2 -> tensor<f32, 2x2>
  %a = add %x, %s1 -> tensor<f32, 2x2>
  %b = mul %a, %s2 -> tensor<f32, 2x2>
  %c = sub %b, %t2 -> tensor<f32, 2x2>
  return %c
}
)");
  const Program before = *p;
  HoistResult h = hoist(*p, {"w"});
  ASSERT_EQ(h.records.size(), 1u);
  EXPECT_EQ(h.records[0].num_hoisted_insts, 2u);  // one transpose, one exp
  const BodyId main = p->find_body("main", false);
  EXPECT_EQ(p->body(main).params.size(), 4u);    // %x, %w, then %t1 and %s1
  EXPECT_EQ(verify_error(*p), "");
  expect_prologue_then_function_equals(before, *p, h.records[0]);
}

TEST(HoistParams, NothingToHoist) {
  // Bare parameters and dead code are not worth a prologue; a selector that names nothing is reported.
  auto p = parse(R"(
func @main(%x: tensor<f32, 2>, %w: tensor<f32, 2>) -> (tensor<f32, 2>, tensor<f32, 2>) {
  %d = neg %w -> tensor<f32, 2>
  %y = add %x, %w -> tensor<f32, 2>
  return %y, %w
}
)");
  const std::string text = print(*p);
  HoistResult h = hoist(*p, {"w", "v*"});
  EXPECT_TRUE(h.records.empty());
  EXPECT_EQ(h.unmatched, (std::vector<std::string>{"v*"}));
  EXPECT_EQ(print(*p), text);
}

TEST(HoistParams, SelectorsArePrefixesOrNamesInEveryFunction) {
  auto p = parse(R"(
func @main(%x: tensor<f32, 2>, %w_a: tensor<f32, 2>, %w_b: tensor<f32, 2>) -> tensor<f32, 2> {
  %s = add %w_a, %w_b -> tensor<f32, 2>
  %y = mul %x, %s -> tensor<f32, 2>
  return %y
}
func @other(%w_a: tensor<f32, 2>) -> tensor<f32, 2> {
  %e = exp %w_a -> tensor<f32, 2>
  return %e
}
func @main_prologue(%q: tensor<f32, 2>) -> tensor<f32, 2> {
  return %q
}
)");
  HoistResult h = hoist(*p, {"w_*"});
  ASSERT_EQ(h.records.size(), 2u);
  EXPECT_EQ(h.records[0].prologue, "main_prologue_2");  // the name was taken
  EXPECT_EQ(h.records[1].prologue, "other_prologue");
  EXPECT_EQ(verify_error(*p), "");
}

TEST(HoistParams, ALaterRunNeverHoistsOutOfAPrologue) {
  auto p = parse(kLinear);
  HoistLog log;
  ASSERT_EQ(hoist(*p, {"w", "b"}, &log).records.size(), 1u);
  const std::string once = print(*p);
  // The prologue's parameters are selected too, but it is a prologue: nothing moves.
  EXPECT_TRUE(hoist(*p, {"w", "b"}, &log).records.empty());
  EXPECT_EQ(print(*p), once);
  EXPECT_EQ(log.records.size(), 1u);
}

TEST(HoistParams, ComposeProloguesRestoresTheSignature) {
  auto p = parse(kLinear);
  const Program before = *p;
  HoistLog log;
  hoist(*p, {"w"}, &log);
  hoist(*p, {"b"}, &log);  // a second hoisting of the same function, with its own prologue
  ASSERT_EQ(log.records.size(), 2u);
  EXPECT_EQ(log.records[1].prologue, "main_prologue_2");
  EXPECT_EQ(log.records[1].num_params_before, 4u);
  std::string err;
  auto composed = compose_prologues(*p, log.records, &err);
  ASSERT_TRUE(composed) << err;
  EXPECT_EQ(verify_error(*composed), "");
  EXPECT_EQ(composed->find_body("main_prologue", false), kNone);
  EXPECT_EQ(composed->find_body("main_prologue_2", false), kNone);
  const BodyId m0 = before.find_body("main", false), m = composed->find_body("main", false);
  ASSERT_EQ(composed->body(m).params.size(), 3u);
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    auto in = random_inputs(before, m0, seed, 0.5);
    RunResult want = run_body(before, m0, in), got = run_body(*composed, m, in);
    ASSERT_EQ(got.status, RunStatus::Ok) << got.message;
    EXPECT_TRUE(results_equal(want.results[0], got.results[0]));
  }
  // A record that does not fit the program is an error, never a silently different program.
  std::vector<HoistRecord> bad = log.records;
  bad[0].num_params_before = 2;
  EXPECT_EQ(compose_prologues(*p, bad, &err), nullptr);
  EXPECT_NE(err, "");
}

TEST(HoistParams, PassWarnsWithoutSelection) {
  auto p = parse(kLinear);
  ProgramRewriter rw(*p);
  HoistParamsPass pass({}, std::make_shared<HoistLog>());
  PassResult r = pass.run(rw);
  EXPECT_FALSE(r.changed);
  EXPECT_NE(r.warning.find("no parameter is selected"), std::string::npos);
}

TEST(NamedPipelines, GptrsExpandsInPlace) {
  PassRegistry reg = default_pass_registry({}, HoistOptions{.params = {"w"}});
  PassManager pm;
  ASSERT_EQ(parse_pipeline("gptrs", reg, pm.top()), "");
  EXPECT_EQ(pm.top().to_string(), kGptrsPipeline);
  PassManager pm2;
  ASSERT_EQ(parse_pipeline("dce,default", reg, pm2.top()), "");
  EXPECT_EQ(pm2.top().to_string(), "dce," + std::string(kDefaultPipeline));
  PassManager pm3;
  EXPECT_EQ(parse_pipeline("gptrs2", reg, pm3.top()),
            "pipeline:1:1: unknown pass 'gptrs2' (known: canonicalize, cse, dce, hoist-params, default, gptrs, "
            "fixpoint(N){...})");
}

TEST(NamedPipelines, ErrorsInsideANamedPipelineNameItAndRecursionStops) {
  PassRegistry reg = default_pass_registry();
  reg.add_pipeline("broken", "", "cse,nope");
  reg.add_pipeline("loop", "", "dce,loop");
  PassManager pm;
  EXPECT_EQ(parse_pipeline("broken", reg, pm.top()).rfind("pipeline 'broken':1:5: unknown pass 'nope' (known: ", 0), 0u);
  PassManager pm2;
  EXPECT_NE(parse_pipeline("loop", reg, pm2.top()).find("named pipelines nest deeper than 8 at 'loop'"),
            std::string::npos);
}

TEST(NamedPipelines, GptrsHoistsAndTheResultRunsLikeTheOriginal) {
  auto p = parse(kLinear);
  const Program before = *p;
  auto log = std::make_shared<HoistLog>();
  PassRegistry reg = default_pass_registry({}, HoistOptions{.params = {"w", "b"}}, log);
  PassManager pm;
  ASSERT_EQ(parse_pipeline("gptrs", reg, pm.top()), "");
  PipelineResult r = pm.run(*p);
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(log->records.size(), 1u);
  EXPECT_EQ(verify_error(*p), "");
  expect_prologue_then_function_equals(before, *p, log->records[0]);
}

}  // namespace
}  // namespace ptir
