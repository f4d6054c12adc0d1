// Google Benchmark: parse, canonicalize, CSE, DCE and print on generated programs of 10k, 100k, 1M ops.
//
// Counters: us_per_op (thread CPU time / live instructions at the start; the machine is shared),
// wall_us_per_op (the same in wall time), bytes_per_op (Program::memory_bytes() / ops after the phase),
// heap_per_op (parse: malloc'd bytes held, measured with mallinfo2, / ops) and, for the rewriting phases,
// side_heap_per_op (what the rewriter, worklist and caches still hold at the end, beyond the program).
//
//   ptir_bench                          run every benchmark (NAME: warm caches, NAME_cold: caches flushed)
//   ptir_bench --emit N FILE            write the generated N-op program as text (for `ptir opt --timing`)
//   ptir_bench --emit-realistic N FILE  the realistic (exported-graph) program of about N ops, as PTIR
//   ptir_bench --emit-realistic-mlir N FILE   the same program as MLIR (for mlir-opt; bench/compare_mlir.sh)
//   ptir_bench --emit-functions N FILE  N small functions;  --emit-region-chain N FILE  an N-deep region chain
// The realistic, many-function and region-chain benchmarks are in bench_realistic.cpp.
#include <benchmark/benchmark.h>
#include <malloc.h>
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <string>

#include "bench/gen.h"
#include "bench/realistic.h"
#include "ir/text.h"
#include "patterns/passes.h"
#include "rewriter/canonicalize.h"
#include "rewriter/cse.h"
#include "rewriter/dce.h"

namespace ptir::bench {
namespace {

size_t heap_in_use() {
  struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}

/// One generated program per size, and its text, built once.
struct Fixture {
  std::unique_ptr<Program> program;
  std::string text;
};

/// What every benchmark is given: the shared fixtures (owned by main) and, for `_cold` runs, the evictor.
struct Evictor;
struct Context {
  std::map<size_t, Fixture>* fixtures;
  Evictor* cold;
  const Fixture& fixture(size_t n) const {
    auto it = fixtures->find(n);
    if (it != fixtures->end()) return it->second;
    Fixture f;
    f.program = generate_program(GenOptions{.num_ops = n});
    f.text = print_program(*f.program);
    return fixtures->emplace(n, std::move(f)).first->second;
  }
};

/// Evicts the program from the caches by streaming over a buffer larger than the last-level cache share
/// this process sees. Used by the `_cold` variants: every size then starts from memory, so per-op times
/// compare the algorithms rather than which sizes happen to fit in cache.
struct Evictor {
  std::vector<uint8_t> buf;
  void run() {
    for (size_t i = 0; i < buf.size(); i += 64) buf[i] += 1;
    benchmark::DoNotOptimize(buf.data());
  }
};

void set_counters(benchmark::State& st, double ops, double cpu_per_iter, double wall_per_iter, size_t program_bytes,
                  size_t heap) {
  st.counters["ops"] = ops;
  st.counters["us_per_op"] = cpu_per_iter * 1e6 / ops;
  st.counters["wall_us_per_op"] = wall_per_iter * 1e6 / ops;
  st.counters["bytes_per_op"] = double(program_bytes) / ops;
  if (heap) st.counters["heap_per_op"] = double(heap) / ops;
}

/// Thread CPU time: the machine is shared, so wall time includes other people's work.
double cpu_now() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

struct Timer {
  std::chrono::steady_clock::time_point wall = std::chrono::steady_clock::now();
  double cpu = cpu_now();
};

/// Adds the CPU seconds since `t` to `total_cpu` and the wall seconds to `total_wall`.
void stop(const Timer& t, double& total_cpu, double& total_wall) {
  total_cpu += cpu_now() - t.cpu;
  total_wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - t.wall).count();
}

void BM_Parse(benchmark::State& st, const Context* ctx) {
  Evictor* cold = ctx->cold;
  const Fixture& f = ctx->fixture(st.range(0));
  double cpu = 0, wall = 0;
  size_t ops = 0, bytes = 0, heap = 0;
  for (auto _ : st) {
    if (cold) {
      st.PauseTiming();
      cold->run();
      st.ResumeTiming();
    }
    size_t h0 = heap_in_use();
    Timer t;
    ParseResult r = parse_program(f.text);
    stop(t, cpu, wall);
    if (!r.ok()) st.SkipWithError(r.error.c_str());
    ops = r.program->num_live_insts();
    bytes = r.program->memory_bytes();
    heap = heap_in_use() - h0;  // the Program plus the source map
    benchmark::DoNotOptimize(r);
    st.PauseTiming();
    r = ParseResult();  // free outside the timed region
    st.ResumeTiming();
  }
  set_counters(st, double(ops), cpu / st.iterations(), wall / st.iterations(), bytes, heap);
}

void BM_Print(benchmark::State& st, const Context* ctx) {
  Evictor* cold = ctx->cold;
  const Fixture& f = ctx->fixture(st.range(0));
  double cpu = 0, wall = 0;
  for (auto _ : st) {
    if (cold) {
      st.PauseTiming();
      cold->run();
      st.ResumeTiming();
    }
    Timer t;
    std::string s = print_program(*f.program);
    stop(t, cpu, wall);
    benchmark::DoNotOptimize(s);
  }
  set_counters(st, double(f.program->num_live_insts()), cpu / st.iterations(), wall / st.iterations(),
               f.program->memory_bytes(), 0);
}

/// Times `phase(rw)` on a fresh copy of the program each iteration (the copy is not timed).
template <typename Phase>
void run_phase(benchmark::State& st, const Context* ctx, Phase phase) {
  Evictor* cold = ctx->cold;
  const Fixture& f = ctx->fixture(st.range(0));
  double cpu = 0, wall = 0, side = 0;
  size_t ops = f.program->num_live_insts(), bytes = 0;
  int64_t changed = 0;
  for (auto _ : st) {
    st.PauseTiming();
    auto copy = std::make_unique<Program>(*f.program);
    if (cold) cold->run();
    size_t h0 = heap_in_use(), m0 = copy->memory_bytes();
    st.ResumeTiming();
    Timer t;
    {
      ProgramRewriter rw(*copy);
      changed = phase(rw);
      stop(t, cpu, wall);
      st.PauseTiming();
      // Heap the rewriter and driver state hold (measured while alive), minus the program's own growth.
      side = double(heap_in_use()) - double(h0) - (double(copy->memory_bytes()) - double(m0));
    }
    bytes = copy->memory_bytes();
    copy.reset();
    st.ResumeTiming();
  }
  set_counters(st, double(ops), cpu / st.iterations(), wall / st.iterations(), bytes, 0);
  st.counters["side_heap_per_op"] = side / double(ops);
  st.counters["changed"] = double(changed);
}

void BM_Canonicalize(benchmark::State& st, const Context* ctx) {
  PatternSet set;
  populate_canonicalization_patterns(set);
  FrozenPatternSet frozen = std::move(set).freeze();
  GreedyConfig cfg{.order = kCanonicalizeOrder, .expensive_checks = false};  // as the canonicalize pass seeds
  run_phase(st, ctx, [&](ProgramRewriter& rw) {
    GreedyResult r = apply_patterns_and_fold_greedily(rw, frozen, cfg);
    if (!r.converged) st.SkipWithError(r.diagnostic.c_str());
    return r.stats.rewrites + r.stats.folds + r.stats.erased_dead;
  });
}

void BM_CSE(benchmark::State& st, const Context* ctx) {
  run_phase(st, ctx, [](ProgramRewriter& rw) { return eliminate_common_subexpressions(rw); });
}

void BM_DCE(benchmark::State& st, const Context* ctx) {
  run_phase(st, ctx, [](ProgramRewriter& rw) { return eliminate_dead_code(rw); });
}

void sizes(benchmark::internal::Benchmark* b) {
  b->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);
  b->Arg(10000)->Arg(100000)->Arg(1000000);
}

void register_all(const Context* warm, const Context* cold) {
  using Fn = void (*)(benchmark::State&, const Context*);
  const std::pair<const char*, Fn> phases[] = {{"BM_Parse", BM_Parse},
                                                {"BM_Canonicalize", BM_Canonicalize},
                                                {"BM_CSE", BM_CSE},
                                                {"BM_DCE", BM_DCE},
                                                {"BM_Print", BM_Print}};
  for (const auto& [name, fn] : phases) {
    benchmark::RegisterBenchmark(name, fn, warm)->Apply(sizes);
    // Flushing costs far more than a small run: a fixed, modest iteration count per size.
    for (auto [n, iters] : {std::pair<int64_t, int64_t>{10000, 30}, {100000, 10}, {1000000, 5}})
      benchmark::RegisterBenchmark((std::string(name) + "_cold").c_str(), fn, cold)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime()
          ->Arg(n)
          ->Iterations(iters);
  }
}

int emit_text(const std::string& text, const char* path) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  std::printf("wrote %zu bytes to %s\n", text.size(), path);
  return out ? 0 : 1;
}

int emit(const char* n, const char* path) {
  auto p = generate_program(GenOptions{.num_ops = std::stoull(n)});
  std::ofstream out(path, std::ios::binary);
  out << print_program(*p);
  std::printf("wrote %zu instructions to %s\n", p->num_live_insts(), path);
  return out ? 0 : 1;
}

}  // namespace
}  // namespace ptir::bench

int main(int argc, char** argv) {
  if (argc == 4 && !std::strcmp(argv[1], "--emit")) return ptir::bench::emit(argv[2], argv[3]);
  if (argc == 4 && !std::strncmp(argv[1], "--emit-", 7)) {
    std::string what = argv[1] + 7;
    size_t n = std::stoull(argv[2]);
    if (what == "realistic") return ptir::bench::emit_text(ptir::bench::realistic_program(n), argv[3]);
    if (what == "realistic-mlir") return ptir::bench::emit_text(ptir::bench::realistic_program_mlir(n), argv[3]);
    if (what == "functions") return ptir::bench::emit_text(ptir::bench::many_functions_program(n), argv[3]);
    if (what == "region-chain") return ptir::bench::emit_text(ptir::bench::region_chain_program(n), argv[3]);
    std::fprintf(stderr, "ptir_bench: unknown option '%s'\n", argv[1]);
    return 2;
  }
  // Serve every block from the (reused) heap: otherwise glibc maps blocks over 32 MB fresh on each
  // iteration, so only the 1M-op runs would pay first-touch page faults and sizes would not compare.
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, -1);
  std::map<size_t, ptir::bench::Fixture> fixtures;
  ptir::bench::Evictor evictor{std::vector<uint8_t>(size_t{256} << 20, 0)};
  ptir::bench::Context warm{&fixtures, nullptr}, cold{&fixtures, &evictor};
  ptir::bench::register_all(&warm, &cold);
  ptir::bench::register_text_benchmarks();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
