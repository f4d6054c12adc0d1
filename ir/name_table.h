// NameTable: the parser's map from value names (views into the source) to ValueIds.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "ir/program.h"

namespace ptir {

/// Open-addressing map from a value name (a view into the source) to its ValueId: one probe per lookup
/// in the common case, no allocation per entry. Sized once from the file's line count.
class NameTable {
 public:
  explicit NameTable(std::string_view source) : base_(source.data()) {}
  /// Empties the table (in O(1): slots of older generations count as empty).
  void reset(size_t expected) {
    size_t cap = 16;
    while (cap < expected * 2) cap <<= 1;
    if (slots_.size() < cap || gen_ == UINT16_MAX) {
      slots_.assign(std::max(cap, slots_.size()), Slot{});
      gen_ = 0;
    }
    ++gen_;
    size_ = 0;
  }
  /// Returns false if the name is already present. `name` must be a view into the source.
  bool insert(std::string_view name, ValueId v) {
    if ((size_ + 1) * 2 > slots_.size()) grow();
    uint32_t h = hash(name);
    Slot* s = probe(name, h);
    if (s->gen == gen_) return false;
    *s = Slot{static_cast<uint32_t>(name.data() - base_), v, h, static_cast<uint16_t>(name.size()), gen_};
    ++size_;
    return true;
  }
  ValueId find(std::string_view name) const {
    if (slots_.empty()) return kNone;
    const Slot* s = const_cast<NameTable*>(this)->probe(name, hash(name));
    return s->gen == gen_ ? s->value : kNone;
  }

 private:
  struct Slot {  // 16 bytes: the table for a 1M-line body stays small and cache-friendly
    uint32_t offset = 0;  ///< where the name starts in the source
    ValueId value = kNone;
    uint32_t hash = 0;    ///< kept so that a probe rarely touches the source text
    uint16_t len = 0;
    uint16_t gen = 0;
  };
  static uint32_t hash(std::string_view s) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (char c : s) h = (h ^ static_cast<uint8_t>(c)) * 0x100000001b3ULL;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return static_cast<uint32_t>(h);
  }
  Slot* probe(std::string_view name, uint32_t h) {
    size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.gen != gen_) return &s;
      if (s.hash == h && s.len == name.size() && std::memcmp(base_ + s.offset, name.data(), s.len) == 0) return &s;
    }
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(std::max<size_t>(16, old.size() * 2), Slot{});
    for (const Slot& s : old)
      if (s.gen == gen_) *probe(std::string_view(base_ + s.offset, s.len), s.hash) = s;
  }
  const char* base_;
  std::vector<Slot> slots_;
  size_t size_ = 0;
  uint16_t gen_ = 0;
};

}  // namespace ptir
