// Worklist: pop order (LIFO or seeded random).
#include "rewriter/worklist.h"

#include <algorithm>

namespace ptir {

void Worklist::reverse_current() { std::reverse(current_.begin(), current_.end()); }

uint64_t Worklist::next_random() {
  // splitmix64: tiny, seedable, good enough to shuffle a worklist.
  uint64_t z = (rng_ += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

InstId Worklist::pop() {
  size_t k = current_.size() - 1;
  if (random_ && k > 0) std::swap(current_[next_random() % (k + 1)], current_[k]);
  InstId i = current_[k];
  current_.pop_back();
  queued_[i] = 0;
  return i;
}

}  // namespace ptir
