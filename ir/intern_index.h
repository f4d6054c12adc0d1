// InternIndex: the Program's hash index of interned types, literals and attribute sets.
#pragma once
#include <cstddef>
#include <cstdint>

#include <boost/container/small_vector.hpp>

namespace ptir {

/// Ids by hash, open addressing in one flat array: finding or adding an id allocates nothing but the
/// table's own growth (a std::unordered_map of vectors allocated a node and a vector per new hash: a
/// small program's parse made two allocations per distinct type or literal). Ids with equal hashes
/// are all kept; `find` asks the caller which one is equal. The first 16 slots are inline: a small
/// program (every parse of a fuzz input, every rewrite's one-instruction replay program) allocates none.
class InternIndex {
 public:
  /// The first id stored under `hash` for which `same(id)` holds, or UINT32_MAX.
  template <typename Same>
  uint32_t find(size_t hash, Same&& same) const {
    if (slots_.empty()) return UINT32_MAX;
    const size_t mask = slots_.size() - 1;
    for (size_t k = spread(hash) & mask;; k = (k + 1) & mask) {
      const Slot& s = slots_[k];
      if (s.id == UINT32_MAX) return UINT32_MAX;
      if (s.hash == hash && same(s.id)) return s.id;
    }
  }
  /// Adds `id` under `hash` (after a `find` that did not find it).
  void insert(size_t hash, uint32_t id) {
    if ((size_ + 1) * 2 > slots_.size()) grow();
    place(hash, id);
    ++size_;
  }
  size_t size() const { return size_; }
  size_t memory_bytes() const { return slots_.capacity() * sizeof(Slot); }

 private:
  struct Slot {
    size_t hash = 0;
    uint32_t id = UINT32_MAX;  ///< UINT32_MAX: empty
  };
  /// The stored hashes are std::hash-like values whose low bits may be poor: mix before masking.
  static size_t spread(size_t h) {
    uint64_t z = h;
    z = (z ^ (z >> 33)) * 0xff51afd7ed558ccdULL;
    return static_cast<size_t>(z ^ (z >> 33));
  }
  void place(size_t hash, uint32_t id) {
    const size_t mask = slots_.size() - 1;
    size_t k = spread(hash) & mask;
    while (slots_[k].id != UINT32_MAX) k = (k + 1) & mask;
    slots_[k] = Slot{hash, id};
  }
  void grow() {
    Slots old(std::move(slots_));
    slots_.clear();
    slots_.assign(old.empty() ? kInline : old.size() * 2, Slot{});
    for (const Slot& s : old)
      if (s.id != UINT32_MAX) place(s.hash, s.id);
  }
  static constexpr size_t kInline = 16;
  using Slots = boost::container::small_vector<Slot, kInline>;
  Slots slots_;
  size_t size_ = 0;
};

}  // namespace ptir
