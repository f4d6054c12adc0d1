// Z3-free half of the refinement check: replaying an input in the reference interpreter, and the fast
// pass that looks for a counterexample on edge and random inputs before any solver runs.
#pragma once
#include <chrono>
#include <optional>
#include <span>
#include <vector>

#include "verify/fastmath.h"
#include "verify/refine.h"

namespace ptir::verify {

/// Runs both bodies on `inputs`. A Refuted (query fields left for the caller) when the source runs and
/// the target has UB or a different result; nullopt otherwise (source UB, loop bound, no kernel, equal).
/// Under fast-math flags (`plan`, docs/semantics.md "Fast-math flags"): the target runs with the zero
/// signs `tgt_signs` and the fused contract sites `tgt_fused`, free output zeros compare equal, and a difference refutes only when
/// confirm_difference says so (else nullopt, with the reason in `why_not`). Every run stops at `deadline`
/// and at the memory budget (CheckOptions::memory_mb); a run stopped so is no verdict (nullopt).
std::optional<Refuted> replay(const Program& src, BodyId sb, const Program& tgt, BodyId tb,
                              std::vector<Tensor> inputs, const CheckOptions& opts,
                              int64_t max_while_iterations = InterpOptions{}.max_while_iterations,
                              const FastMathPlan* plan = nullptr, const ZeroSigns* tgt_signs = nullptr,
                              std::string* why_not = nullptr,
                              std::chrono::steady_clock::time_point deadline =
                                  std::chrono::steady_clock::time_point::max(),
                              const Contractions* tgt_fused = nullptr);

/// What the fast pass found.
struct FastPass {
  std::optional<Refuted> refuted;  ///< the first replayed refutation
  bool source_defined = false;     ///< some run of the source had no UB (a witness for query 2)
  /// A difference under the source's default fast-math choices that another allowed choice answers
  /// (or may answer): the check cannot be PROVED, and without a refutation it is UNKNOWN.
  std::string unconfirmed;
  int runs = 0;     ///< interpreter runs (distinct input sets)
  int repeats = 0;  ///< input sets drawn again and skipped (a program without parameters has one)
};

/// A hash of an input set that tells apart what the interpreter may run differently: types, bytes, and
/// each tensor's form (splat or dense). The fast pass skips a set whose hash it has run; the fuzz
/// harness's differential keys its set of runs by it.
size_t input_set_hash(std::span<const Tensor> in);

/// Interpreter runs on edge and random inputs (CheckOptions::fast_pass_runs of them, within `budget_ms`).
FastPass fast_pass(const Program& src, BodyId sb, const Program& tgt, BodyId tb, const CheckOptions& opts,
                   double budget_ms);

}  // namespace ptir::verify
