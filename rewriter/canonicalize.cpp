// CanonicalizePass: one greedy run, its counters as statistics.
#include "rewriter/canonicalize.h"

namespace ptir {

PassResult CanonicalizePass::run(ProgramRewriter& rw) {
  GreedyResult g = apply_patterns_and_fold_greedily(rw, patterns_, config_, &cache_);
  const GreedyStats& s = g.stats;
  add_statistic("rewrites", s.rewrites, "successful pattern applications");
  add_statistic("folds", s.folds, "instructions replaced by a fold hook");
  add_statistic("erased-dead", s.erased_dead, "dead instructions erased by the driver");
  add_statistic("attempts", s.attempts, "pattern match attempts");
  add_statistic("cache-hits", s.cache_hits, "attempts skipped by the failure cache");
  add_statistic("processed", s.processed, "worklist pops");
  add_statistic("rounds", s.rounds, "worklist rounds");
  PassResult r{.changed = g.changed};
  if (rw.has_error()) r.error = rw.error();
  else if (!g.converged) r.warning = "canonicalize: " + g.diagnostic;
  return r;
}

}  // namespace ptir
