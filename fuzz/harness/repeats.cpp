// RepeatFilter: see repeats.h.
#include "fuzz/harness/repeats.h"

#include <algorithm>

namespace ptir::fuzz {

RepeatFilter::RepeatFilter(unsigned log2_slots)
    : slots_(size_t{1} << std::clamp(log2_slots, 4u, 28u)),
      mask_(slots_.size() - 1),
      input_slots_(std::min<size_t>(slots_.size(), size_t{1} << 16)),
      input_mask_(input_slots_.size() - 1),
      input_bits_(std::max<size_t>(1, input_slots_.size() >> 3)) {}  // 8 bits per slot (16 per key at most)

bool RepeatFilter::probe(std::vector<Hash128>& slots, size_t mask, Hash128 h) {
  if (h == Hash128{}) h.b = 1;
  for (size_t i = h.a & mask; !(slots[i] == Hash128{}); i = (i + 1) & mask)
    if (slots[i] == h) return true;
  return false;
}

void RepeatFilter::insert(std::vector<Hash128>& slots, size_t mask, size_t& size, uint64_t& restarts, Hash128 h) {
  if (h == Hash128{}) h.b = 1;
  // When half full, start over (no allocation); then insert.
  if (2 * (size + 1) > slots.size()) {
    std::fill(slots.begin(), slots.end(), Hash128{});
    size = 0;
    ++restarts;
  }
  size_t i = h.a & mask;
  for (; !(slots[i] == Hash128{}); i = (i + 1) & mask)
    if (slots[i] == h) return;
  slots[i] = h;
  ++size;
}

bool RepeatFilter::seen_before(std::string_view key) {
  const Hash128 h = hash128(key);
  if (probe(slots_, mask_, h)) {
    ++repeats_;
    return true;
  }
  insert(slots_, mask_, size_, restarts_, h);
  ++checked_;
  return false;
}

namespace {

// The key of the last n bytes of an input: the 128-bit hash of those bytes read from the last one
// backwards (as the generator reads them), marked when they are the whole input.
Hash128 input_key(const uint8_t* data, size_t size, size_t n, bool whole) {
  std::array<char, RepeatFilter::kMaxInputKey> reversed;
  for (size_t k = 0; k < n; ++k) reversed[k] = static_cast<char>(data[size - 1 - k]);
  Hash128 h = hash128(std::string_view(reversed.data(), n));
  if (whole) h.b ^= 0xA5A5A5A5A5A5A5A5ull;
  return h;
}

// A cheap 64-bit hash of the last n bytes of an input for ascending n, for the bit set: eight bytes at
// a time (read backwards), the last few mixed in per length.
class SuffixHash {
 public:
  SuffixHash(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint64_t at(size_t n, bool whole) {
    for (; 8 * (words_ + 1) <= n; ++words_) {
      uint64_t w = 0;
      for (size_t j = 0; j < 8; ++j) w |= uint64_t{data_[size_ - 1 - 8 * words_ - j]} << (8 * j);
      h_ = hash_rotl64(h_ ^ w, 29) * 0x9E3779B97F4A7C15ull;
    }
    uint64_t tail = 0;
    for (size_t j = 8 * words_; j < n; ++j) tail |= uint64_t{data_[size_ - 1 - j]} << (8 * (j - 8 * words_));
    return hash_fmix64(h_ ^ (tail * 0xC2B2AE3D27D4EB4Full) ^ (n * 0x165667B19E3779F9ull) ^ (whole ? 0xA5A5A5A5ull : 0));
  }

 private:
  const uint8_t* data_;
  size_t size_, words_ = 0;
  uint64_t h_ = 0x243F6A8885A308D3ull;
};

}  // namespace

bool RepeatFilter::may_have_input(uint64_t cheap) const {
  const size_t bit = cheap & ((input_bits_.size() << 6) - 1);
  return (input_bits_[bit >> 6] >> (bit & 63)) & 1;
}

bool RepeatFilter::input_seen_before(const uint8_t* data, size_t size) {
  // First every candidate's cheap hash, with its bit's word prefetched, then the bits: the loads of
  // hundreds of lengths overlap instead of waiting one after another.
  struct Candidate {
    uint64_t cheap;
    uint16_t n;
    bool whole;
  };
  std::array<Candidate, kMaxInputKey + 2> cand;  // a part key per length, and at most one whole key
  size_t m = 0;
  const size_t nbits = (input_bits_.size() << 6) - 1;
  SuffixHash cheap(data, size);
  for (size_t j = 0; j < num_lengths_ && lengths_[j] <= size; ++j) {
    const size_t n = lengths_[j];
    // A key of part of an input matches a longer input only; a key of a whole input, the same length.
    for (const bool whole : {false, true}) {
      if (!(length_kinds_[n] & (whole ? 2 : 1)) || (whole ? n != size : n >= size)) continue;
      const uint64_t h = cheap.at(n, whole);
      __builtin_prefetch(&input_bits_[(h & nbits) >> 6]);
      cand[m++] = {h, static_cast<uint16_t>(n), whole};
    }
  }
  for (size_t i = 0; i < m; ++i) {
    if (may_have_input(cand[i].cheap) && probe(input_slots_, input_mask_, input_key(data, size, cand[i].n, cand[i].whole))) {
      ++repeats_;
      ++input_repeats_;
      return true;
    }
  }
  return false;
}

void RepeatFilter::remember_input(const uint8_t* data, size_t size, size_t used) {
  if (used > size || used > kMaxInputKey) return;
  const bool whole = used == size;
  const uint64_t restarts = input_restarts_;
  insert(input_slots_, input_mask_, input_size_, input_restarts_, input_key(data, size, used, whole));
  if (input_restarts_ != restarts) std::fill(input_bits_.begin(), input_bits_.end(), 0);
  const size_t bit = SuffixHash(data, size).at(used, whole) & ((input_bits_.size() << 6) - 1);
  input_bits_[bit >> 6] |= uint64_t{1} << (bit & 63);
  if (length_kinds_[used] == 0) {  // a new length: into the ascending list
    size_t j = num_lengths_++;
    for (; j > 0 && lengths_[j - 1] > used; --j) lengths_[j] = lengths_[j - 1];
    lengths_[j] = static_cast<uint16_t>(used);
  }
  length_kinds_[used] |= whole ? 2 : 1;
}

}  // namespace ptir::fuzz
