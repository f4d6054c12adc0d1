// RepeatFilter: see repeats.h.
#include "fuzz/harness/repeats.h"

#include <algorithm>

namespace ptir::fuzz {

RepeatFilter::RepeatFilter(unsigned log2_slots)
    : slots_(size_t{1} << std::clamp(log2_slots, 4u, 28u)),
      mask_(slots_.size() - 1),
      input_slots_(slots_.size()),
      input_mask_(mask_),
      input_bits_(size_t{1} << 16) {}  // 2^22 bits: 512 KB

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

// The key of the last bytes of an input: the hash of those bytes read from the last one backwards (as
// the generator reads them), marked when they are the whole input.
Hash128 input_key(Hash128 h, bool whole) {
  if (whole) h.b ^= 0xA5A5A5A5A5A5A5A5ull;
  return h;
}

}  // namespace

bool RepeatFilter::may_have_input(Hash128 key) const {
  const size_t bit = key.b & ((input_bits_.size() << 6) - 1);
  return (input_bits_[bit >> 6] >> (bit & 63)) & 1;
}

bool RepeatFilter::input_seen_before(const uint8_t* data, size_t size) {
  if (num_lengths_ == 0) return false;
  // The input's last bytes, reversed, as far as any key reaches, hashed once: a key's hash is the
  // digest of the stream so far at its length.
  std::array<char, kMaxInputKey> reversed;
  const size_t reach = std::min<size_t>(size, lengths_[num_lengths_ - 1]);
  for (size_t k = 0; k < reach; ++k) reversed[k] = static_cast<char>(data[size - 1 - k]);
  Hash128Builder stream;
  size_t fed = 0;
  for (size_t j = 0; j < num_lengths_ && lengths_[j] <= size; ++j) {
    const size_t n = lengths_[j];
    // A key of part of an input matches a longer input only; a key of a whole input, the same length.
    const bool part = (length_kinds_[n] & 1) && n < size, whole = (length_kinds_[n] & 2) && n == size;
    if (!part && !whole) continue;
    stream.add(std::string_view(reversed.data() + fed, n - fed));
    fed = n;
    const Hash128 h = stream.digest();
    if ((part && may_have_input(input_key(h, false)) && probe(input_slots_, input_mask_, input_key(h, false))) ||
        (whole && may_have_input(input_key(h, true)) && probe(input_slots_, input_mask_, input_key(h, true)))) {
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
  std::array<char, kMaxInputKey> reversed;
  for (size_t k = 0; k < used; ++k) reversed[k] = static_cast<char>(data[size - 1 - k]);
  const uint64_t restarts = input_restarts_;
  const Hash128 key = input_key(hash128(std::string_view(reversed.data(), used)), whole);
  insert(input_slots_, input_mask_, input_size_, input_restarts_, key);
  if (input_restarts_ != restarts) std::fill(input_bits_.begin(), input_bits_.end(), 0);
  const size_t bit = key.b & ((input_bits_.size() << 6) - 1);
  input_bits_[bit >> 6] |= uint64_t{1} << (bit & 63);
  const uint8_t kind = whole ? 2 : 1;
  if (length_kinds_[used] == 0) {  // a new length: into the ascending list
    size_t j = num_lengths_++;
    for (; j > 0 && lengths_[j - 1] > used; --j) lengths_[j] = lengths_[j - 1];
    lengths_[j] = static_cast<uint16_t>(used);
  }
  length_kinds_[used] |= kind;
}

}  // namespace ptir::fuzz
