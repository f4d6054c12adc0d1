// CanonicalizePass: one greedy run, its counters as statistics.
#include "rewriter/canonicalize.h"

#include "ir/interp.h"

namespace ptir {

PassResult CanonicalizePass::run(ProgramRewriter& rw) {
  GreedyResult g = apply_patterns_and_fold_greedily(rw, patterns_, config_, &cache_);
  // Constant cones the per-instruction fold hook leaves (each step alone would grow the program), then
  // the driver again over what they changed; bounded, as each round folds at least one instruction.
  int64_t cone_folds = 0;
  if (config_.fold && config_.fold_options.constant_fold) {
    FoldOptions fo = config_.fold_options;
    fo.inline_literal_max_elements = config_.inline_literal_max_elements;
    IndexMapCache maps;  // the cone folds' index maps, for every round
    if (!fo.index_maps) fo.index_maps = &maps;
    for (int round = 0; round < kMaxConeRounds && g.converged && !rw.has_error(); ++round) {
      const int64_t n = fold_constant_cones(rw, fo);
      if (n == 0) break;
      cone_folds += n;
      GreedyResult again = apply_patterns_and_fold_greedily(rw, patterns_, config_, &cache_);
      GreedyStats& t = g.stats;
      const GreedyStats& a = again.stats;
      t.processed += a.processed;
      t.attempts += a.attempts;
      t.cache_hits += a.cache_hits;
      t.rewrites += a.rewrites;
      t.folds += a.folds;
      t.erased_dead += a.erased_dead;
      t.rounds += a.rounds;
      g.changed = true;
      g.converged = again.converged;
      if (!again.converged) g.diagnostic = again.diagnostic;
    }
  }
  const GreedyStats& s = g.stats;
  add_statistic("rewrites", s.rewrites, "successful pattern applications");
  add_statistic("folds", s.folds, "instructions replaced by a fold hook");
  add_statistic("cone-folds", cone_folds, "constant cones folded into one literal");
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
