// Google Benchmark: a rule compiled from the rule language against the hand-written C++ pattern for the
// same identity (x * 1 => x: the rule `mul_one` of patterns/rules/algebraic.rules and the C++
// `fold_mul_by_one` of patterns/seed.cpp), each alone in a frozen set, on a chain of 100k muls where
// every op matches (`_hit`: match + rewrite) and where none does (`_miss`: the failed match).
// Counter us_per_op: thread CPU time per mul.
#include <benchmark/benchmark.h>

#include <string>

#include "ir/text.h"
#include "patterns/passes.h"
#include "patterns/seed.h"
#include "rewriter/greedy.h"

namespace ptir::bench {
namespace {

constexpr int kChain = 100000;

/// `%v(i+1) = mul %vi, K`: K is a splat of 1.0 (every op matches x * 1) or the parameter %y (none does).
std::string chain_text(bool hit) {
  std::string s = "func @main(%v0: tensor<f32, 4>, %y: tensor<f32, 4>) -> tensor<f32, 4> {\n";
  const std::string k = hit ? "dense<1.0> : tensor<f32, 4>" : "%y";
  for (int i = 0; i < kChain; ++i)
    s += "  %v" + std::to_string(i + 1) + " = mul %v" + std::to_string(i) + ", " + k + " -> tensor<f32, 4>\n";
  return s + "  return %v" + std::to_string(kChain) + "\n}\n";
}

FrozenPatternSet only(const std::string& name) {
  PatternSet set;
  populate_canonicalization_patterns(set);
  if (name.rfind("fold_", 0) == 0) populate_seed_patterns(set);  // the C++ twins are not in canonicalize
  PatternFilter f;
  f.enabled_names = {name};
  return std::move(set).freeze(f);
}

void run(benchmark::State& state, const std::string& pattern, bool hit) {
  static const std::string texts[2] = {chain_text(false), chain_text(true)};
  const FrozenPatternSet set = only(pattern);
  GreedyConfig cfg;
  cfg.fold = false;
  cfg.dce = false;
  cfg.expensive_checks = false;
  for (auto _ : state) {
    state.PauseTiming();
    ParseResult parsed = parse_program(texts[hit]);
    state.ResumeTiming();
    GreedyResult r = apply_patterns_and_fold_greedily(*parsed.program, set, cfg);
    benchmark::DoNotOptimize(r.stats.rewrites);
    if (hit && r.stats.rewrites != kChain) state.SkipWithError("the pattern did not fire on every op");
    if (!hit && r.stats.rewrites != 0) state.SkipWithError("the pattern fired on a miss");
  }
  state.counters["us_per_op"] =
      benchmark::Counter(static_cast<double>(kChain) * state.iterations() * 1e-6,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_RuleMulOne_hit(benchmark::State& s) { run(s, "mul_one", true); }
void BM_CppMulOne_hit(benchmark::State& s) { run(s, "fold_mul_by_one", true); }
void BM_RuleMulOne_miss(benchmark::State& s) { run(s, "mul_one", false); }
void BM_CppMulOne_miss(benchmark::State& s) { run(s, "fold_mul_by_one", false); }

BENCHMARK(BM_RuleMulOne_hit)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime();
BENCHMARK(BM_CppMulOne_hit)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime();
BENCHMARK(BM_RuleMulOne_miss)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime();
BENCHMARK(BM_CppMulOne_miss)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime();

}  // namespace
}  // namespace ptir::bench
