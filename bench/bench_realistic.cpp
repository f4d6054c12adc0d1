// Benchmarks on text-generated programs: realistic exported-graph programs (200k, 1M ops) through parse,
// canonicalize, CSE, the default pipeline and end to end; 100k functions and a 20k-deep region chain
// through parse, verify, print and the default pipeline (linear, no recursion).
#include <benchmark/benchmark.h>
#include <time.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>

#include "bench/gen.h"
#include "bench/realistic.h"
#include "ir/text.h"
#include "ir/verifier.h"
#include "patterns/passes.h"
#include "rewriter/canonicalize.h"
#include "rewriter/cse.h"
#include "rewriter/fold.h"
#include "rewriter/pass.h"
#include "rewriter/pipeline.h"

namespace ptir::bench {
namespace {

double cpu_now() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

enum class Kind { Realistic, ManyFunctions, RegionChain, Numbered, Named };

struct TextFixture {
  std::string text;
  std::unique_ptr<Program> program;
};

/// One text and its parsed program per (kind, size), built once per process.
const TextFixture& fixture(Kind k, size_t n) {
  static std::map<std::pair<int, size_t>, TextFixture> cache;
  auto key = std::make_pair(static_cast<int>(k), n);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  TextFixture f;
  switch (k) {
    case Kind::Realistic: f.text = realistic_program(n); break;
    case Kind::ManyFunctions: f.text = many_functions_program(n); break;
    case Kind::RegionChain: f.text = region_chain_program(n); break;
    case Kind::Numbered: f.text = print_program(*generate_program(GenOptions{.num_ops = n})); break;
    case Kind::Named: f.text = named_values(print_program(*generate_program(GenOptions{.num_ops = n}))); break;
  }
  ParseResult r = parse_program(f.text);
  if (r.ok()) f.program = std::move(r.program);
  return cache.emplace(key, std::move(f)).first->second;
}

void counters(benchmark::State& st, double ops, double cpu) {
  st.counters["ops"] = ops;
  st.counters["us_per_op"] = cpu * 1e6 / double(st.iterations()) / ops;
}

void BM_TextParse(benchmark::State& st, Kind k) {
  const TextFixture& f = fixture(k, st.range(0));
  double cpu = 0, ops = 0;
  for (auto _ : st) {
    double t = cpu_now();
    ParseResult r = parse_program(f.text);
    cpu += cpu_now() - t;
    if (!r.ok()) st.SkipWithError(r.error.c_str());
    ops = double(r.program ? r.program->num_live_insts() : 1);
    st.PauseTiming();
    r = ParseResult();
    st.ResumeTiming();
  }
  counters(st, ops, cpu);
}

void BM_TextVerify(benchmark::State& st, Kind k) {
  const TextFixture& f = fixture(k, st.range(0));
  double cpu = 0;
  size_t errors = 0;
  for (auto _ : st) {
    double t = cpu_now();
    errors = verify_program(*f.program).size();
    cpu += cpu_now() - t;
  }
  counters(st, double(f.program->num_live_insts()), cpu);
  st.counters["errors"] = double(errors);  // the region chain is deeper than the verifier's limit: 1
}

void BM_TextPrint(benchmark::State& st, Kind k) {
  const TextFixture& f = fixture(k, st.range(0));
  double cpu = 0;
  for (auto _ : st) {
    double t = cpu_now();
    std::string s = print_program(*f.program);
    cpu += cpu_now() - t;
    benchmark::DoNotOptimize(s);
  }
  counters(st, double(f.program->num_live_insts()), cpu);
}

/// Times `phase` on a fresh copy of the parsed program (the copy is not timed).
template <typename Phase>
void text_phase(benchmark::State& st, Kind k, Phase phase) {
  const TextFixture& f = fixture(k, st.range(0));
  double cpu = 0;
  for (auto _ : st) {
    st.PauseTiming();
    auto copy = std::make_unique<Program>(*f.program);
    st.ResumeTiming();
    double t = cpu_now();
    phase(*copy);
    cpu += cpu_now() - t;
    st.PauseTiming();
    copy.reset();
    st.ResumeTiming();
  }
  counters(st, double(f.program->num_live_insts()), cpu);
}

/// The driver seeded as the canonicalize pass seeds it (kCanonicalizeOrder).
void BM_TextCanonicalize(benchmark::State& st, Kind k) {
  PatternSet set;
  populate_canonicalization_patterns(set);
  FrozenPatternSet frozen = std::move(set).freeze();
  text_phase(st, k, [&](Program& p) {
    GreedyResult r = apply_patterns_and_fold_greedily(p, frozen, GreedyConfig{.order = kCanonicalizeOrder, .expensive_checks = false});
    if (!r.converged) st.SkipWithError(r.diagnostic.c_str());
  });
}

void BM_TextCSE(benchmark::State& st, Kind k) {
  text_phase(st, k, [&](Program& p) {
    ProgramRewriter rw(p);
    eliminate_common_subexpressions(rw);
  });
}

/// The sweep canonicalize adds after its driver converges (rewriter/fold.h `fold_constant_cones`), timed
/// on the program as the driver leaves it (canonicalized first, untimed): its cost when the per-op fold
/// hook has already done what it can, as in every canonicalize run.
void BM_TextConeFold(benchmark::State& st, Kind k) {
  const TextFixture& f = fixture(k, st.range(0));
  PatternSet set;
  populate_canonicalization_patterns(set);
  FrozenPatternSet frozen = std::move(set).freeze();
  Program canon(*f.program);
  apply_patterns_and_fold_greedily(canon, frozen, GreedyConfig{.order = kCanonicalizeOrder, .expensive_checks = false});
  double cpu = 0;
  int64_t folded = 0;
  for (auto _ : st) {
    st.PauseTiming();
    auto copy = std::make_unique<Program>(canon);
    st.ResumeTiming();
    double t = cpu_now();
    ProgramRewriter rw(*copy);
    folded += fold_constant_cones(rw);
    cpu += cpu_now() - t;
    st.PauseTiming();
    copy.reset();
    st.ResumeTiming();
  }
  counters(st, double(canon.num_live_insts()), cpu);
  st.counters["cones_folded"] = double(folded) / double(st.iterations());
}

void BM_TextPipeline(benchmark::State& st, Kind k) {
  text_phase(st, k, [&](Program& p) {
    PassManager pm;
    PassRegistry reg = default_pass_registry();
    if (!parse_pipeline(std::string(kDefaultPipeline), reg, pm.top()).empty()) st.SkipWithError("pipeline");
    PipelineResult r = pm.run(p);
    if (!r.ok) st.SkipWithError(r.error.c_str());
  });
}

/// What `ptir opt FILE` does: parse, verify, the default pipeline, print.
void BM_TextEndToEnd(benchmark::State& st, Kind k) {
  const TextFixture& f = fixture(k, st.range(0));
  double cpu = 0;
  for (auto _ : st) {
    double t = cpu_now();
    ParseResult r = parse_program(f.text);
    if (!r.ok() || !verify_program(*r.program).empty()) st.SkipWithError("bad program");
    PassManager pm;
    PassRegistry reg = default_pass_registry();
    parse_pipeline(std::string(kDefaultPipeline), reg, pm.top());
    pm.run(*r.program);
    std::string out = print_program(*r.program);
    cpu += cpu_now() - t;
    benchmark::DoNotOptimize(out);
  }
  counters(st, double(f.program->num_live_insts()), cpu);
}

}  // namespace

void register_text_benchmarks() {
  using Fn = void (*)(benchmark::State&, Kind);
  auto add = [](const char* name, Fn fn, Kind k, std::initializer_list<int64_t> sizes) {
    auto* b = benchmark::RegisterBenchmark(name, fn, k)->Unit(benchmark::kMillisecond)->UseRealTime();
    for (int64_t n : sizes) b->Arg(n);
    b->Iterations(2);
  };
  add("BM_RealisticParse", BM_TextParse, Kind::Realistic, {200000, 1000000});
  add("BM_RealisticCanonicalize", BM_TextCanonicalize, Kind::Realistic, {200000, 1000000});
  add("BM_RealisticCSE", BM_TextCSE, Kind::Realistic, {200000, 1000000});
  add("BM_RealisticConeFold", BM_TextConeFold, Kind::Realistic, {200000, 1000000});
  add("BM_RealisticPipeline", BM_TextPipeline, Kind::Realistic, {200000, 1000000});
  add("BM_RealisticPrint", BM_TextPrint, Kind::Realistic, {200000, 1000000});
  add("BM_RealisticEndToEnd", BM_TextEndToEnd, Kind::Realistic, {200000, 1000000});
  add("BM_NumberedParse", BM_TextParse, Kind::Numbered, {200000});
  add("BM_NamedParse", BM_TextParse, Kind::Named, {200000});
  add("BM_ManyFunctionsParse", BM_TextParse, Kind::ManyFunctions, {10000, 100000});
  add("BM_ManyFunctionsVerify", BM_TextVerify, Kind::ManyFunctions, {10000, 100000});
  add("BM_ManyFunctionsPipeline", BM_TextPipeline, Kind::ManyFunctions, {10000, 100000});
  add("BM_RegionChainParse", BM_TextParse, Kind::RegionChain, {2000, 20000});
  add("BM_RegionChainVerify", BM_TextVerify, Kind::RegionChain, {2000, 20000});
  add("BM_RegionChainPrint", BM_TextPrint, Kind::RegionChain, {2000, 20000});
  add("BM_RegionChainPipeline", BM_TextPipeline, Kind::RegionChain, {2000, 20000});
}

}  // namespace ptir::bench
