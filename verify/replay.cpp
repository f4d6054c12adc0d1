// Replay and the interpreter fast pass.
#include "verify/replay.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <new>

#include "verify/smt/solver.h"

namespace ptir::verify {
namespace {

/// splitmix64, for the fast pass's own draws.
uint64_t mix(uint64_t x) {
  uint64_t z = x + 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/// Float elements with full mantissas and moderate exponents: where reassociation, reordered sums and
/// inexact constants round differently. (Edge values and quarter steps are often exact.)
void dense_floats(std::vector<Tensor>& in, uint64_t seed) {
  for (Tensor& t : in) {
    if (!is_float(t.dtype())) continue;
    for (int64_t i = 0; i < t.size(); ++i) {
      seed = mix(seed);
      const double m = 1.0 + static_cast<double>(seed >> 11) * 0x1p-53;  // [1, 2)
      const int e = static_cast<int>((seed >> 3) % 13) - 6;
      const double v = std::ldexp((seed & 1) ? -m : m, e);
      t.set_bits(i, double_to_float(t.dtype(), v));
    }
  }
}

/// Every float element one value drawn from a pool of three per tensor: ties, x == y and -0/+0 pairs.
void pooled(std::vector<Tensor>& in, uint64_t seed) {
  for (Tensor& t : in) {
    if (!is_float(t.dtype()) && !is_integer(t.dtype())) continue;
    const Tensor pool = random_tensor(TensorType{t.dtype(), {3}}, mix(seed++), 0.8);
    for (int64_t i = 0; i < t.size(); ++i) t.set_bits(i, pool.bits(static_cast<int64_t>(mix(seed++) % 3)));
  }
}

}  // namespace

namespace {
/// What the fast pass's runs of one fixed pair share: index maps, and each program's body plans (the two
/// programs do not change during the pass).
struct RunCaches {
  IndexMapCache maps;
  PlanCache src, tgt;
};

std::optional<Refuted> replay_counting(const Program& src, BodyId sb, const Program& tgt, BodyId tb,
                                       std::vector<Tensor> inputs, const CheckOptions& opts,
                                       int64_t max_while_iterations, bool* source_ok, const FastMathPlan& plan,
                                       const ZeroSigns* tgt_signs, std::string* why_not,
                                       std::chrono::steady_clock::time_point deadline =
                                           std::chrono::steady_clock::time_point::max(),
                                       const Contractions* tgt_fused = nullptr, RunCaches* caches = nullptr) {
  InterpOptions io;
  io.deadline = deadline;  // a run stopped by it is an Error: skipped, no verdict
  io.kernels = opts.kernels;
  io.max_while_iterations = max_while_iterations;
  io.max_bytes = opts.memory_mb << 20;  // a run over it is an Error: no verdict either way
  // The caches serve the two runs below only: confirm_difference may run other programs.
  InterpOptions sio = io;
  if (caches) sio.index_maps = &caches->maps, sio.plans = &caches->src;
  Refuted r;
  r.src = run_body(src, sb, inputs, sio);
  if (r.src.status != RunStatus::Ok) return std::nullopt;
  if (source_ok) *source_ok = true;
  InterpOptions tio = io;
  tio.zero_signs = tgt_signs;
  tio.contracted = tgt_fused;
  if (caches) tio.index_maps = &caches->maps, tio.plans = &caches->tgt;
  r.tgt = run_body(tgt, tb, inputs, tio);
  r.inputs = std::move(inputs);
  // A difference under the source's default choices refutes only if no other allowed choice of the
  // source (nsz signs, reassoc orders) gives the target's behaviour.
  auto confirmed = [&]() -> std::optional<Refuted> {
    std::string why;
    if (confirm_difference(plan, src, sb, r.inputs, r.tgt, io, &why) == Confirm::Refutes) return std::move(r);
    if (why_not) *why_not = why;
    return std::nullopt;
  };
  if (r.tgt.status == RunStatus::UB) return confirmed();
  if (r.tgt.status != RunStatus::Ok || r.tgt.results.size() != r.src.results.size()) return std::nullopt;
  for (size_t k = 0; k < r.src.results.size(); ++k) {
    const Tensor& a = r.src.results[k];
    const Tensor& b = r.tgt.results[k];
    if (a.type != b.type) return std::nullopt;  // the signature check rules this out
    int64_t e = -1;
    if (!same_output(plan, k, a, b, &e)) {
      r.result = static_cast<int>(k);
      r.element = e;
      return confirmed();
    }
  }
  return std::nullopt;
}
}  // namespace

std::optional<Refuted> replay(const Program& src, BodyId sb, const Program& tgt, BodyId tb,
                              std::vector<Tensor> inputs, const CheckOptions& opts, int64_t max_while_iterations,
                              const FastMathPlan* plan, const ZeroSigns* tgt_signs, std::string* why_not,
                              std::chrono::steady_clock::time_point deadline, const Contractions* tgt_fused) {
  const FastMathPlan own = plan ? FastMathPlan{} : plan_fastmath(src, sb, tgt, tb);
  return replay_counting(src, sb, tgt, tb, std::move(inputs), opts, max_while_iterations, nullptr,
                         plan ? *plan : own, tgt_signs, why_not, deadline, tgt_fused);
}

size_t input_set_hash(std::span<const Tensor> in) {
  size_t h = in.size();
  for (const Tensor& t : in) h = (h ^ hash_value(t) ^ static_cast<size_t>(t.splat)) * 0x9E3779B97F4A7C15ULL;
  return h;
}

FastPass fast_pass(const Program& src, BodyId sb, const Program& tgt, BodyId tb, const CheckOptions& opts,
                   double budget_ms) {
  using clock = std::chrono::steady_clock;
  FastPass out;
  const auto start = clock::now();
  // Five kinds of inputs in turn: edge-heavy (the classic float rewrites fall to -0.0, inf, NaN),
  // edge-heavy with index operands kept in range, full-mantissa values (rounding differences),
  // pooled values (ties), and plain random ones.
  static constexpr double kBias[] = {0.9, 0.6, 1.0, 0.3};
  const FastMathPlan plan = plan_fastmath(src, sb, tgt, tb);
  RunCaches caches;
  std::vector<size_t> seen;  // the input sets run so far (hashes)
  for (int run = 0; run < opts.fast_pass_runs; ++run) {
    const uint64_t seed = mix(opts.seed * 1000003u + static_cast<uint64_t>(run));
    const double bias = kBias[(run / 5) % std::size(kBias)];
    std::vector<Tensor> in;
    try {
      switch (run % 5) {
        case 0: in = random_inputs(src, sb, seed, bias); break;
        case 1: in = random_inputs_avoiding_ub(src, sb, seed, bias); break;
        case 2: in = random_inputs_avoiding_ub(src, sb, seed, 0.0), dense_floats(in, seed); break;
        case 3: in = random_inputs_avoiding_ub(src, sb, seed, 0.0), pooled(in, seed); break;
        default: in = random_inputs_avoiding_ub(src, sb, seed, 0.1); break;
      }
    } catch (const std::bad_alloc&) {
      break;  // inputs too large to draw: no run, no verdict
    }
    // An input set drawn before runs as it did then (the interpreter is deterministic): skipped. A program
    // without parameters has one input set, and a loop that runs to its bound cost 32 runs of it. The
    // key is a hash (a collision skips a run, which can only lose a counterexample, never make one);
    // a splat and its dense form are different keys, as the interpreter takes another path for each.
    const size_t key = input_set_hash(in);
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
      ++out.repeats;
      continue;
    }
    seen.push_back(key);
    // A loop that runs long on a random input stops early: such a run is skipped, not a verdict.
    ++out.runs;
    // A difference that another choice of the source may answer is no verdict: Z3 goes on. The first
    // run may take up to half the check's budget (on large tensors it is the only search there is);
    // later runs stop with the fast pass's own budget.
    const double run_ms = run == 0 ? std::max(budget_ms, opts.timeout_ms / 2.0) : budget_ms;
    std::string why;
    out.refuted = replay_counting(src, sb, tgt, tb, std::move(in), opts, 4096, &out.source_defined, plan, nullptr,
                                  &why, start + std::chrono::milliseconds(static_cast<int64_t>(run_ms) + 1), nullptr,
                                  &caches);
    if (out.unconfirmed.empty() && !why.empty())
      out.unconfirmed = "fast pass run " + std::to_string(run) + ": " + why;
    if (out.refuted) {
      out.refuted->found_by = "fast pass (interpreter, run " + std::to_string(run) + ")";
      return out;
    }
    if (std::chrono::duration<double, std::milli>(clock::now() - start).count() > run_ms ||
        (run + 1 < opts.fast_pass_runs &&
         std::chrono::duration<double, std::milli>(clock::now() - start).count() > budget_ms)) {
      // Cut short by the clock (this run's deadline, or the fast pass's time before its last run):
      // how many inputs ran depends on the load.
      smt::note_nondeterministic_event();
      break;
    }
  }
  return out;
}

}  // namespace ptir::verify
