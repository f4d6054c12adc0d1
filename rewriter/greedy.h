// The greedy pattern driver: apply patterns, fold and erase dead code until nothing changes.
//
// Event-driven: the worklist is seeded once with every instruction of every body (functions and the
// regions of cond/while/scan); after a change only the touched instructions, their users and their
// operand producers are queued again, for the next round. A per-(pattern, instruction) failure cache,
// keyed by ProgramRewriter::match_key, skips attempts that failed on an unchanged neighbourhood.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ir/version.h"
#include "rewriter/fold.h"
#include "rewriter/pattern.h"
#include "rewriter/rewriter.h"

namespace ptir {

/// Expensive checks on by default: the CMake option PTIR_EXPENSIVE_CHECKS (ON by default for Debug
/// builds, OFF otherwise), recorded in the generated ir/version.h. The `ptir` commands start from it
/// (`--expensive-checks` / `--no-expensive-checks` override it for one run).
inline constexpr bool kExpensiveChecksByDefault = PTIR_EXPENSIVE_CHECKS != 0;

/// Seed order of the worklist.
enum class TraversalOrder : uint8_t {
  BottomUp,  ///< users before producers (MLIR's default): dead chains go in one sweep
  TopDown,   ///< producers first
};

/// The order the canonicalize pass seeds (CanonicalizePass, CanonicalizeOptions, the benchmarks):
/// top-down, as mlir-opt's canonicalizer (`top-down=true`); GreedyConfig's own default stays
/// bottom-up, as MLIR's GreedyRewriteConfig.
inline constexpr TraversalOrder kCanonicalizeOrder = TraversalOrder::TopDown;

/// Benefit of `pattern` at `root` under a cost model; higher is tried first (ties: frozen order).
using CostModel = std::function<int(const Pattern& pattern, InstId root, const ProgramRewriter& rw)>;

/// Knobs of one greedy run. Build with designated initializers: `GreedyConfig{.max_iterations = 4}`.
struct GreedyConfig {
  TraversalOrder order = TraversalOrder::BottomUp;
  /// Rounds: round 1 processes the seeded instructions, round k+1 what the changes of round k queued.
  /// Running out of rounds with work left reports non-convergence.
  int max_iterations = 32;
  /// Stop after this many rewrites + folds; reports non-convergence when hit. -1: the default limit,
  /// kDefaultRewritesPerInst per live instruction at the start of the run plus kDefaultRewrites (a
  /// pattern that grows the program without end stops there).
  int64_t max_num_rewrites = -1;
  static constexpr int64_t kDefaultRewritesPerInst = 64;
  static constexpr int64_t kDefaultRewrites = 100'000;
  bool fold = true;                  ///< try fold hooks before patterns
  FoldOptions fold_options{};        ///< constant-folding limits
  /// Folded literals up to this many elements become inline literal operands; larger ones a `constant` op.
  int64_t inline_literal_max_elements = 16;
  bool dce = true;                   ///< erase pure instructions with unused results (never effectful ones)
  CostModel cost_model{};            ///< empty: static benefit order
  uint64_t random_order_seed = 0;    ///< != 0: pop the worklist in a seeded random order (tests)
  /// A pattern without has_bounded_recursion() applied this many times in a row to its own output stops the run.
  int max_recursion_depth = 64;
  /// Attach ExpensiveChecks for this run (see rewriter/checks.h). Default: kExpensiveChecksByDefault.
  bool expensive_checks = kExpensiveChecksByDefault;
  uint64_t check_seed = 1;           ///< seed of the expensive checks' random inputs
};

/// Counters of one run.
struct GreedyStats {
  int64_t processed = 0;    ///< worklist pops of live instructions
  int64_t attempts = 0;     ///< pattern match_and_rewrite calls
  int64_t cache_hits = 0;   ///< attempts skipped by the failure cache
  int64_t rewrites = 0;     ///< successful patterns
  int64_t folds = 0;        ///< successful fold hooks
  int64_t erased_dead = 0;  ///< instructions removed as dead
  int64_t rounds = 0;
};

/// Outcome of one run. `changed` and `converged` are independent.
struct GreedyResult {
  bool changed = false;
  bool converged = true;
  GreedyStats stats;
  /// Set when the run did not converge or a check failed: what happened and which patterns kept firing.
  std::string diagnostic;
  /// Per pattern (and "fold"/"dce"): how often it fired in the last round, when not converged.
  std::vector<std::pair<std::string, int64_t>> still_firing;
};

/// Remembered failures: for each instruction, the match key at which they happened and a bit per
/// pattern of its root list (bit 31: the fold hook). Keep one alive across runs of the same pattern set
/// on the same rewriter to skip re-trying unchanged instructions.
class FailureCache {
 public:
  /// Forgets everything unless the cache was last used with this pattern set and rewriter.
  void bind(const FrozenPatternSet& patterns, const ProgramRewriter& rw);
  struct Entry {
    uint32_t key = 0;
    uint32_t failed = 0;
  };
  Entry& at(InstId i) {
    if (i >= entries_.size()) entries_.resize(std::max<size_t>(i + 1, entries_.size() * 3 / 2 + 64));
    return entries_[i];
  }
  void reserve(size_t n) { entries_.reserve(n); }
  static constexpr uint32_t kFoldBit = 1u << 31;
  static constexpr size_t kMaxCachedPatterns = 31;

 private:
  std::weak_ptr<const void> patterns_, rw_;  // identities, not addresses: a reused address is not a match
  PodArray<Entry> entries_;  ///< grown with realloc, as the Program's arrays (ir/pod_array.h)
};

/// Runs the driver on every body of the rewriter's program.
GreedyResult apply_patterns_and_fold_greedily(ProgramRewriter& rw, const FrozenPatternSet& patterns,
                                              const GreedyConfig& config = {}, FailureCache* cache = nullptr);
/// Convenience: a fresh rewriter over `p`.
GreedyResult apply_patterns_and_fold_greedily(Program& p, const FrozenPatternSet& patterns,
                                              const GreedyConfig& config = {});

}  // namespace ptir
