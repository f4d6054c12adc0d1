// RepeatFilter: see repeats.h.
#include "fuzz/harness/repeats.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace ptir::fuzz {
namespace {

/// murmur3's 64-bit finalizer.
uint64_t fmix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

/// One lane: each 8-byte word goes through a step that is a bijection of the state for a fixed word
/// and of the word for a fixed state; the length and a final mix close it.
template <uint64_t kSeed, uint64_t kMul1, uint64_t kMul2, int kRot>
uint64_t lane(std::string_view s) {
  uint64_t h = kSeed ^ (static_cast<uint64_t>(s.size()) * kMul2);
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    h = std::rotl(h ^ (w * kMul1), kRot) * kMul2;
  }
  uint64_t w = 0;
  if (i < s.size()) std::memcpy(&w, s.data() + i, s.size() - i);  // an empty view's data() may be null
  h = std::rotl(h ^ (w * kMul1), kRot) * kMul2;
  return fmix64(h ^ static_cast<uint64_t>(s.size()));
}

}  // namespace

Hash128 hash128(std::string_view s) {
  return {lane<0x243F6A8885A308D3ULL, 0x9E3779B97F4A7C15ULL, 0xD6E8FEB86659FD93ULL, 29>(s),
          lane<0x13198A2E03707344ULL, 0xC2B2AE3D27D4EB4FULL, 0x94D049BB133111EBULL, 37>(s)};
}

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
