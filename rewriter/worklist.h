// The greedy driver's worklist: a LIFO stack of InstIds with an in-list bit per InstId, split into the
// current round and the next one. Optionally pops in a seeded random order (for order-independence tests).
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "ir/program.h"

namespace ptir {

/// Instructions waiting to be processed. Push is idempotent while an instruction is queued.
class Worklist {
 public:
  /// `random_seed` != 0 pops a pseudo-random element of the current round instead of the last one.
  explicit Worklist(uint64_t random_seed = 0) : rng_(random_seed), random_(random_seed != 0) {}

  /// Queues `i` for the current round (seeding, and a producer a change left dead: popped next).
  void push_current(InstId i) {
    if (mark(i)) current_.push_back(i);
  }
  /// Queues `i` for the next round (used for work caused by a rewrite).
  void push_next(InstId i) {
    if (mark(i)) next_.push_back(i);
  }
  /// Reverses the current round (seeding pushes in program order).
  void reverse_current();
  bool current_empty() const { return current_.empty(); }
  bool next_empty() const { return next_.empty(); }
  /// Makes the next round current. Returns false when there is no more work.
  bool advance_round() {
    if (!current_.empty() || next_.empty()) return !current_.empty();
    current_.swap(next_);
    return true;
  }
  /// Removes and returns an instruction of the current round.
  InstId pop();
  size_t size() const { return current_.size() + next_.size(); }
  void reserve(size_t n) {
    current_.reserve(n);
    queued_.reserve(n);
  }

 private:
  bool mark(InstId i) {
    if (i >= queued_.size()) queued_.resize(std::max<size_t>(i + 1, queued_.size() * 3 / 2 + 16), 0);
    if (queued_[i]) return false;
    queued_[i] = 1;
    return true;
  }
  uint64_t next_random();

  std::vector<InstId> current_, next_;
  std::vector<uint8_t> queued_;
  uint64_t rng_;
  bool random_;
};

}  // namespace ptir
