// The `canonicalize` pass: the greedy driver with a frozen pattern set, folding and DCE.
#pragma once
#include "rewriter/greedy.h"
#include "rewriter/pass.h"

namespace ptir {

/// Runs apply_patterns_and_fold_greedily. Its failure cache lives as long as the pass, so a second run
/// in a fixpoint group skips every (pattern, instruction) pair whose neighbourhood did not change.
/// Expensive checks are the pass manager's business here (they cover the whole pipeline), so the
/// driver's own flag is ignored. With folding on, constant cones are folded after the driver converges
/// (`fold_constant_cones`), and the driver runs again over the result.
/// After the driver converges, `fold_constant_cones` folds what the per-instruction hook left and the
/// driver runs again, at most this many times per run.
inline constexpr int kMaxConeRounds = 4;

class CanonicalizePass final : public Pass {
 public:
  /// Seeds in kCanonicalizeOrder (top-down) by default.
  explicit CanonicalizePass(FrozenPatternSet patterns, GreedyConfig config = {.order = kCanonicalizeOrder})
      : patterns_(std::move(patterns)), config_(std::move(config)) {
    config_.expensive_checks = false;
  }
  std::string_view name() const override { return "canonicalize"; }
  PassResult run(ProgramRewriter& rw) override;
  const FrozenPatternSet& patterns() const { return patterns_; }

 private:
  FrozenPatternSet patterns_;
  GreedyConfig config_;
  FailureCache cache_;
};

}  // namespace ptir
