// Local replay of one rewrite: the old sub-DAG that computed the values a rewrite replaced (or an
// instruction it changed in place) and the new sub-DAG that computes their replacements, both run in the
// reference interpreter over the same boundary values, on random and edge inputs. Used by the expensive
// checks (rewriter/checks.h); the cost is bounded by the size of the rewrite, not of the program.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "ir/interp.h"
#include "ir/program.h"

namespace ptir {

/// An instruction's operands and attributes as they were before a rewrite changed it in place.
struct InstSnapshot {
  InstId inst = kNone;
  std::vector<ValueId> operands;
  AttrSetId attrs = 0;
};

/// What one rewrite did, recorded from the listener hooks.
struct RewriteDelta {
  std::vector<InstId> inserted;
  std::vector<InstId> erased;
  std::vector<InstSnapshot> modified;                 ///< the state before the first in-place change
  std::vector<std::pair<ValueId, ValueId>> replaced;  ///< (old value, replacement), from replace_op
  /// Forgets the last rewrite.
  void clear() {
    inserted.clear();
    erased.clear();
    modified.clear();
    replaced.clear();
  }
};

/// How a rewrite is replayed.
struct ReplayOptions {
  int random_trials = 4;  ///< random boundary inputs (a quarter of the elements are edge values)
  int edge_trials = 11;   ///< inputs made only of edge values, rotated so each element sees each one
  uint64_t seed = 1;
  InterpOptions interp = {.kernels = nullptr, .max_while_iterations = 1 << 12};
  /// Unchanged producers are replayed down to this many levels below a compared value (what a pattern
  /// inspects: its root's operands and their producers); deeper values are boundary inputs.
  int cone_depth = 2;
  /// At most this many unchanged instructions are replayed per rewrite (changed ones always are).
  size_t max_unchanged = 64;
  /// An unchanged producer whose work (elements computed; a dot counts its multiply-adds) exceeds this is
  /// a boundary input instead of being replayed.
  int64_t max_expand_work = int64_t{1} << 16;
  /// A cone made only of elementwise ops (and constants) over more elements than this is replayed on a
  /// window of this many consecutive elements, at a different offset on each trial.
  int64_t window = 4096;
  /// Trials are cut (down to one random and one edge input) so that one rewrite evaluates at most this
  /// many elements in all.
  int64_t max_work = int64_t{1} << 26;
};

/// A set of replay descriptions (byte strings, compared in full) in memory allocated once, by the
/// constructor: for a set that serves many runs in one process (a fuzz target's cases), where growing
/// heap containers would look like a leak to libFuzzer (a case that allocates more than it frees is run
/// again and leak-checked, and per-input leak detection is turned off after 1,000 such cases). When its
/// arena or table is full it starts over (forgets everything). Not thread-safe: one per thread.
class ReplayMemo {
 public:
  explicit ReplayMemo(size_t arena_bytes = size_t{16} << 20, size_t slots = size_t{1} << 17);
  ReplayMemo(const ReplayMemo&) = delete;
  ReplayMemo& operator=(const ReplayMemo&) = delete;
  bool contains(std::string_view key) const;
  /// Keeps `key` (no effect when it is there, or longer than the arena).
  void insert(std::string_view key);
  size_t size() const { return count_; }
  uint64_t restarts() const { return restarts_; }

 private:
  struct Slot {
    uint64_t hash = 0;
    uint32_t offset = 0, length = 0;  ///< length 0: empty (keys are never empty)
  };
  /// The slot holding `key`, or the empty slot where it would go.
  size_t find(std::string_view key, uint64_t h) const;
  std::unique_ptr<char[]> arena_;
  size_t arena_bytes_, used_ = 0;
  std::unique_ptr<Slot[]> table_;
  size_t mask_, count_ = 0;
  uint64_t restarts_ = 0;
};

/// Boundary inputs depend only on the trial, the boundary value's position and its type, not on the
/// rewrite: the checks keep them here from one rewrite to the next instead of regenerating them. So a
/// replay is a function of what it evaluates (its instructions with their ops, attributes, fast-math
/// flags and types, how they are wired, the literals they read, the boundary types and the options):
/// the replays that passed are kept, by that description in full and by value (not a hash, and no
/// program's ids), and an identical one later is not run again (ReplayReport::memoized): in this run
/// (`passed`), or with a `memo` shared by many runs, in any of them. A replay with regions, opaque or
/// effect ops, or a description over 16 KB (large literals) is not kept. Not thread-safe: one per thread.
struct ReplayInputCache {
  std::unordered_map<uint64_t, std::vector<std::pair<TensorType, Tensor>>> by_key;
  static constexpr size_t kMaxPassed = size_t{1} << 16;  ///< replays kept in `passed`; then it starts over
  std::unordered_set<std::string> passed;  ///< used when `memo` is null
  ReplayMemo* memo = nullptr;              ///< the passed replays of many runs (CheckOptions::replay_memo)
};

/// The outcome of replaying one rewrite.
struct ReplayReport {
  bool ok = true;
  std::string message;    ///< on a difference: the compared values, the boundary input, both results
  int64_t runs = 0;       ///< evaluations of one side on one input
  int compared = 0;       ///< value pairs compared
  bool windowed = false;  ///< replayed on a window of the elements
  /// Decided without evaluation: every compared pair is an erased instruction and an unchanged one of
  /// the same pure op, attributes, types, body and operand values (a CSE merge), and the rewrite did
  /// nothing else than redirect uses from one to the other (docs/rewriter.md "Expensive checks").
  bool structural = false;
  /// Decided by an identical replay that passed earlier (no evaluation): in the same run, or in an
  /// earlier run that shared the ReplayMemo.
  bool memoized = false;
  std::string skipped;    ///< why part of the rewrite could not be replayed (empty: nothing skipped)
};

/// Replays the rewrite `d` that `pattern` made at `root` of `p` (`p` is the program after the rewrite;
/// erased instructions keep their operands, changed ones are read from their snapshots).
ReplayReport replay_rewrite(const Program& p, const RewriteDelta& d, const ReplayOptions& o,
                            std::string_view pattern, InstId root, ReplayInputCache* cache = nullptr);

/// Edge-value tensor of type `t`: element k is the ((k + rotation) mod n)-th edge value of its dtype.
Tensor edge_tensor(const TensorType& t, uint64_t rotation);

}  // namespace ptir
