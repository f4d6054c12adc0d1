// Google Benchmark: the reference interpreter's data-movement and reduction kernels, one op per program
// on about a million f32 elements (dot_general: 128^3), so a change of a kernel's index arithmetic shows
// in ms per run. Run: `ptir_bench --benchmark_filter=Interp`. Counter elems_per_s: result elements per
// second of wall time. Inputs are random (in range for index operands), made once per benchmark.
#include <benchmark/benchmark.h>

#include <string>

#include "ir/interp.h"
#include "ir/text.h"

namespace ptir::bench {
namespace {

struct OpCase {
  const char* name;
  const char* text;
};

// Each program: one op on 2^20-element operands (or about that).
const OpCase kCases[] = {
    {"transpose2d", "func @f(%x: tensor<f32, 1024x1024>) -> tensor<f32, 1024x1024> {\n"
                    "  %r = transpose %x perm[1, 0] -> tensor<f32, 1024x1024>\n  return %r\n}\n"},
    {"transpose3d", "func @f(%x: tensor<f32, 64x128x128>) -> tensor<f32, 128x64x128> {\n"
                    "  %r = transpose %x perm[2, 0, 1] -> tensor<f32, 128x64x128>\n  return %r\n}\n"},
    {"broadcast", "func @f(%x: tensor<f32, 1024>) -> tensor<f32, 1024x1024> {\n"
                  "  %r = broadcast_to %x -> tensor<f32, 1024x1024>\n  return %r\n}\n"},
    {"reshape", "func @f(%x: tensor<f32, 1024x1024>) -> tensor<f32, 256x4096> {\n"
                "  %r = reshape %x -> tensor<f32, 256x4096>\n  return %r\n}\n"},
    {"slice", "func @f(%x: tensor<f32, 1100x1100>) -> tensor<f32, 1024x1024> {\n"
              "  %r = slice %x starts[30, 40] -> tensor<f32, 1024x1024>\n  return %r\n}\n"},
    {"concat", "func @f(%x: tensor<f32, 1024x256>, %y: tensor<f32, 1024x512>, %z: tensor<f32, 1024x256>) -> "
               "tensor<f32, 1024x1024> {\n"
               "  %r = concat %x, %y, %z axis[1] -> tensor<f32, 1024x1024>\n  return %r\n}\n"},
    {"pad", "func @f(%x: tensor<f32, 1000x1000>) -> tensor<f32, 1024x1024> {\n"
            "  %r = pad %x low[12, 10] high[12, 14] value[1.5] -> tensor<f32, 1024x1024>\n  return %r\n}\n"},
    {"pad_interior", "func @f(%x: tensor<f32, 512x512>) -> tensor<f32, 1024x1024> {\n"
                     "  %r = pad %x low[1, 0] high[0, 1] interior[1, 1] -> tensor<f32, 1024x1024>\n  return %r\n}\n"},
    {"tile", "func @f(%x: tensor<f32, 256x256>) -> tensor<f32, 1024x1024> {\n"
             "  %r = tile %x repeats[4, 4] -> tensor<f32, 1024x1024>\n  return %r\n}\n"},
    {"take", "func @f(%x: tensor<f32, 1024x1024>, %i: tensor<si32, 1024>) -> tensor<f32, 1024x1024> {\n"
             "  %r = take %x, %i -> tensor<f32, 1024x1024>\n  return %r\n}\n"},
    {"gather", "func @f(%x: tensor<f32, 1024x1024>, %i: tensor<si32, 1024x1024>) -> tensor<f32, 1024x1024> {\n"
               "  %r = gather %x, %i axis[1] -> tensor<f32, 1024x1024>\n  return %r\n}\n"},
    {"dynamic_slice", "func @f(%x: tensor<f32, 1100x1100>, %s: tensor<si32, 2>) -> tensor<f32, 1024x1024> {\n"
                      "  %r = dynamic_slice %x, %s -> tensor<f32, 1024x1024>\n  return %r\n}\n"},
    {"dynamic_update_slice",
     "func @f(%x: tensor<f32, 1024x1024>, %u: tensor<f32, 512x512>, %s: tensor<si32, 2>) -> tensor<f32, 1024x1024> {\n"
     "  %r = dynamic_update_slice %x, %u, %s -> tensor<f32, 1024x1024>\n  return %r\n}\n"},
    {"extract_patches", "func @f(%x: tensor<f32, 1x128x128x8>) -> tensor<f32, 1x128x128x1x72> {\n"
                        "  %r = extract_patches %x window[1, 3, 3, 8] pad_low[0, 1, 1, 0] pad_high[0, 1, 1, 0] "
                        "-> tensor<f32, 1x128x128x1x72>\n  return %r\n}\n"},
    {"reduce_window", "func @f(%x: tensor<f32, 1x512x512x4>) -> tensor<f32, 1x256x256x4> {\n"
                      "  %r = reduce_window %x kind[max] window[1, 3, 3, 1] strides[1, 2, 2, 1] "
                      "pad_low[0, 1, 1, 0] pad_high[0, 0, 0, 0] -> tensor<f32, 1x256x256x4>\n  return %r\n}\n"},
    {"reduce_sum", "func @f(%x: tensor<f32, 1024x1024>) -> tensor<f32, 1024> {\n"
                   "  %r = reduce_sum %x axes[0] -> tensor<f32, 1024>\n  return %r\n}\n"},
    {"argmax", "func @f(%x: tensor<f32, 1024x1024>) -> tensor<si32, 1024> {\n"
               "  %r = argmax %x axis[0] -> tensor<si32, 1024>\n  return %r\n}\n"},
    {"dot_general", "func @f(%a: tensor<f32, 128x128>, %b: tensor<f32, 128x128>) -> tensor<f32, 128x128> {\n"
                    "  %r = dot_general %a, %b contract_lhs[1] contract_rhs[0] -> tensor<f32, 128x128>\n"
                    "  return %r\n}\n"},
    {"top_k", "func @f(%x: tensor<f32, 1024x1024>) -> (tensor<f32, 1024x8>, tensor<si32, 1024x8>) {\n"
              "  %v, %i = top_k %x k[8] -> (tensor<f32, 1024x8>, tensor<si32, 1024x8>)\n  return %v, %i\n}\n"},
};

void run_case(benchmark::State& state, const OpCase& c) {
  auto parsed = parse_program(c.text, c.name);
  if (!parsed.ok()) {
    state.SkipWithError(parsed.error.c_str());
    return;
  }
  const Program& p = *parsed.program;
  const std::vector<Tensor> in = random_inputs_avoiding_ub(p, p.entry(), 7, 0.0);
  int64_t elems = 0;
  for (TypeId t : p.body(p.entry()).result_types) elems += p.type(t).num_elements();
  for (auto _ : state) {
    RunResult r = run_body(p, p.entry(), in);
    if (r.status != RunStatus::Ok) {
      state.SkipWithError(r.message.c_str());
      return;
    }
    benchmark::DoNotOptimize(r.results.data());
  }
  state.counters["elems_per_s"] =
      benchmark::Counter(static_cast<double>(elems), benchmark::Counter::kIsIterationInvariantRate);
}

[[maybe_unused]] const bool kRegistered = [] {
  for (const OpCase& c : kCases)
    benchmark::RegisterBenchmark((std::string("Interp/") + c.name).c_str(),
                                 [&c](benchmark::State& s) { run_case(s, c); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  return true;
}();

}  // namespace
}  // namespace ptir::bench
