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
class HashedNames {
 public:
  explicit HashedNames(std::string_view source) : base_(source.data()) {}
  /// Empties the table (in O(1): slots of older generations count as empty). The slots for `expected`
  /// names are allocated on the first insert, so a body whose names are all numbered never pays for them.
  void reset(size_t expected) {
    size_t cap = 16;
    while (cap < expected * 2) cap <<= 1;
    want_ = cap;
    if (gen_ == UINT16_MAX) {
      std::fill(slots_.begin(), slots_.end(), Slot{});
      gen_ = 0;
    }
    ++gen_;
    size_ = 0;
  }
  /// Returns false if the name is already present. `name` must be a view into the source.
  bool insert(std::string_view name, ValueId v) {
    if (slots_.size() < want_) {
      slots_.assign(want_, Slot{});
      gen_ = 1;
    }
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
    const Slot* s = const_cast<HashedNames*>(this)->probe(name, hash(name));
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
  size_t want_ = 16;
  std::vector<Slot> slots_;
  size_t size_ = 0;
  uint16_t gen_ = 0;
};

/// The parser's name scope of one body. Numbered names (`%v12`, `%t3`, `%7`: a short prefix and a
/// decimal number) are kept in dense arrays indexed by the number, so that the names a printer or
/// a generator produces in sequence are looked up with sequential, cache-friendly accesses and the parse
/// time of a large file grows linearly; every other name goes to the hash table.
class NameTable {
 public:
  explicit NameTable(std::string_view source) : hashed_(source) {}

  void reset(size_t expected) {
    hashed_.reset(expected);
    max_number_ = std::max<uint64_t>(4 * expected, 4096);
    if (++gen_ == 0) {  // generation wrapped: clear for real
      for (Prefix& p : prefixes_) std::fill(p.slots.begin(), p.slots.end(), Dense{});
      gen_ = 1;
    }
  }
  bool insert(std::string_view name, ValueId v) {
    if (Dense* d = dense_slot(name, /*create=*/true)) {
      if (d->gen == gen_) return false;
      *d = Dense{v, gen_};
      return true;
    }
    return hashed_.insert(name, v);
  }
  ValueId find(std::string_view name) {
    if (Dense* d = dense_slot(name, /*create=*/false)) return d->gen == gen_ ? d->value : kNone;
    return hashed_.find(name);
  }

 private:
  struct Dense {
    ValueId value = kNone;
    uint32_t gen = 0;
  };
  struct Prefix {
    std::string_view text;
    std::vector<Dense> slots;
  };
  static constexpr size_t kMaxPrefixes = 4;
  static constexpr size_t kMaxPrefixLen = 8;

  /// The dense slot of a numbered name, or nullptr when the name is not one (then it is hashed).
  /// Whether a name is numbered depends only on its spelling and the file size, never on what was
  /// inserted before, so insert and find always agree on where a name lives.
  Dense* dense_slot(std::string_view name, bool create) {
    size_t d = name.size();
    while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9') --d;
    size_t digits = name.size() - d;
    if (digits == 0 || digits > 9 || d > kMaxPrefixLen || (digits > 1 && name[d] == '0')) return nullptr;
    uint64_t n = 0;
    for (size_t i = d; i < name.size(); ++i) n = n * 10 + static_cast<uint64_t>(name[i] - '0');
    if (n >= max_number_) return nullptr;
    std::string_view prefix = name.substr(0, d);
    Prefix* p = nullptr;
    for (Prefix& q : prefixes_)
      if (q.text == prefix) { p = &q; break; }
    if (!p) {
      if (prefixes_.size() >= kMaxPrefixes) return nullptr;
      if (!create) return nullptr;  // a prefix never defined: not found in the dense arrays either
      prefixes_.push_back(Prefix{prefix, {}});
      p = &prefixes_.back();
    }
    if (n >= p->slots.size()) {
      if (!create) return nullptr;
      p->slots.resize(std::max<size_t>(n + 1, std::min<uint64_t>(max_number_, p->slots.size() * 2)));
    }
    return &p->slots[n];
  }

  HashedNames hashed_;
  std::vector<Prefix> prefixes_;
  uint64_t max_number_ = 4096;
  uint32_t gen_ = 0;
};

}  // namespace ptir
