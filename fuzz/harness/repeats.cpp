// RepeatFilter: see repeats.h.
#include "fuzz/harness/repeats.h"

#include <algorithm>

namespace ptir::fuzz {

RepeatFilter::RepeatFilter(unsigned log2_slots)
    : slots_(size_t{1} << std::clamp(log2_slots, 4u, 28u)), mask_(slots_.size() - 1) {}

bool RepeatFilter::seen_before(std::string_view key) {
  Hash128 h = hash128(key);
  if (h == Hash128{}) h.b = 1;
  size_t i = h.a & mask_;
  for (; !(slots_[i] == Hash128{}); i = (i + 1) & mask_) {
    if (slots_[i] == h) {
      ++repeats_;
      return true;
    }
  }
  // Not seen: when half full, start over (no allocation); then insert.
  if (2 * (size_ + 1) > slots_.size()) {
    std::fill(slots_.begin(), slots_.end(), Hash128{});
    size_ = 0;
    ++restarts_;
    i = h.a & mask_;
  }
  slots_[i] = h;
  ++size_;
  ++checked_;
  return false;
}

}  // namespace ptir::fuzz
