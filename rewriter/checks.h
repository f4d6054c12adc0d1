// Expensive checks: a listener that holds every rewrite to the pattern contract, at a cost bounded by the
// size of each rewrite (not of the program).
//
// Around each named rewrite (pattern, fold, cse, dce) it checks: success => the IR changed and failure =>
// it did not (an incremental program fingerprint kept up to date from the mutation hooks, plus a direct
// fingerprint of the root's neighbourhood for edits made behind the rewriter's back); every inserted or
// modified instruction verifies and reads only values defined before it in its body; and the rewrite
// preserves results: the values it replaced and their replacements are computed by the old and the new
// sub-DAG over the same boundary values, on random inputs and on edge values (+-0, +-inf, NaN, subnormals,
// +-1, extremes) — see rewriter/replay.h. The first violation is reported through
// ProgramRewriter::report_error with the rewrite's name, the root instruction and the input, which stops
// the driver. finish() verifies the whole program once at the end of a run.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir/interp.h"
#include "rewriter/listener.h"
#include "rewriter/replay.h"
#include "rewriter/rewriter.h"

namespace ptir {

/// What the checks do; all on by default.
struct CheckOptions {
  bool fingerprints = true;  ///< success => changed, failure => unchanged
  bool verify = true;        ///< verify_inst and dominance of each mutation; finish() verifies the program
  bool replay = true;        ///< interpreter replay of every successful rewrite at its boundary
  int random_trials = 4;     ///< random inputs (a quarter of the elements are edge values)
  int edge_trials = 11;      ///< inputs made only of edge values, rotated so each element sees each one
  uint64_t seed = 1;
  /// The replays' interpreter options. Without an IndexMapCache (`interp.index_maps`) the checks keep
  /// their own for the run; a caller that checks many runs on one thread (a fuzz target) may pass one
  /// that lives longer.
  InterpOptions interp = {.kernels = nullptr, .max_while_iterations = 1 << 12};
  /// The passed replays of many runs (ReplayMemo: descriptions by value, in memory allocated once);
  /// nullptr: the checks keep them for their run only. A fuzz target passes one per thread, so a replay
  /// identical to one that passed in an earlier case is not run again.
  ReplayMemo* replay_memo = nullptr;
  int cone_depth = 2;        ///< see ReplayOptions::cone_depth
  int64_t window = 4096;     ///< see ReplayOptions::window
};

/// The checking listener. Attach it to a ProgramRewriter (the greedy driver does so when
/// GreedyConfig::expensive_checks is set; `ptir opt --expensive-checks` for the whole pipeline).
class ExpensiveChecks final : public RewriteListener {
 public:
  ExpensiveChecks(ProgramRewriter& rw, CheckOptions opts = {});
  ~ExpensiveChecks() override;

  void notify_inserted(InstId i) override;
  void notify_before_modify(InstId i) override;
  void notify_modified(InstId i) override;
  void notify_replaced(InstId i, std::span<const ValueId> with) override;
  void notify_erased(InstId i) override;
  void notify_pattern_begin(const RewriteSource& who, InstId root) override;
  void notify_pattern_end(const RewriteSource& who, InstId root, bool success) override;

  /// Verifies the whole program once (drivers call it when they are done); reports like any check.
  void finish();

  bool failed() const { return !report_.empty(); }
  /// The first violation, or empty.
  const std::string& report() const { return report_; }
  /// How many successful rewrites were replayed (and how many one-side evaluations that took).
  int64_t num_replayed() const { return replayed_; }
  int64_t num_runs() const { return runs_; }
  /// Rewrites replayed on a window of their elements, and rewrites part of which could not be replayed.
  int64_t num_windowed() const { return windowed_; }
  int64_t num_unreplayable() const { return unreplayable_; }
  /// Of the replayed rewrites, those decided structurally (ReplayReport::structural), without a run.
  int64_t num_structural() const { return structural_; }
  /// Of the replayed rewrites, those identical to one that passed earlier (ReplayReport::memoized).
  int64_t num_memoized() const { return memoized_; }

 private:
  void fail(std::string message);
  void verify_one(InstId i, const char* what);
  uint64_t inst_hash(InstId i) const;
  void rehash(InstId i);
  uint64_t local_fingerprint() const;
  void gather_neighbourhood(InstId root);
  void assign_key(InstId i);
  void renumber(BodyId b);
  bool before(InstId a, InstId b);
  void check_dominance(InstId i);

  ProgramRewriter& rw_;
  CheckOptions opts_;
  ReplayOptions replay_;
  ReplayInputCache inputs_;
  IndexMapCache index_maps_;  ///< the replays' index maps, shared by every trial and rewrite (unless given)
  std::vector<uint64_t> hash_;  ///< per InstId, 0 for erased
  uint64_t total_ = 0;          ///< sum of hash_: the program fingerprint
  uint64_t total_before_ = 0;
  std::vector<uint64_t> key_;   ///< per InstId, increasing along each body (0: not numbered)
  std::vector<InstId> near_;    ///< the root, its producers two levels down and its users (at most 20)
  uint64_t near_fp_ = 0;
  InstId near_root_ = kNone;  ///< root whose neighbourhood near_ and near_fp_ describe, if unchanged since
  uint64_t near_total_ = 0;   ///< total_ when near_fp_ was last confirmed
  std::string pattern_;
  InstId root_ = kNone;
  bool in_rewrite_ = false;
  RewriteDelta delta_;
  /// By InstId: the rewrite (snap_epoch_) in which the instruction was last snapshotted, so each one
  /// is snapshotted once per rewrite without a set allocating per instruction.
  std::vector<uint32_t> snapped_;
  uint32_t snap_epoch_ = 0;
  std::string report_;
  int64_t replayed_ = 0;
  int64_t runs_ = 0;
  int64_t windowed_ = 0;
  int64_t unreplayable_ = 0;
  int64_t structural_ = 0;
  int64_t memoized_ = 0;
};

}  // namespace ptir
