// NameTable: the parser's map from value names (views into the source) to ValueIds.
#pragma once
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "ir/program.h"

namespace ptir {

/// A 64-bit hash of the n bytes at p, read 8 at a time. When [p, p + 8) lies inside the buffer
/// [begin, end) the last partial word is one masked load; otherwise (near the end of the buffer, or for
/// bytes outside it) it is assembled byte by byte, so nothing outside the buffer is read.
inline uint64_t hash_text(const char* p, size_t n, const char* begin, const char* end) {
  constexpr uint64_t kMul = 0xbf58476d1ce4e5b9ULL;
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
  for (; n >= 8; n -= 8, p += 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * kMul;
    h ^= h >> 31;
  }
  if (n > 0) {
    uint64_t w = 0;
    if (std::endian::native == std::endian::little && p >= begin && end - p >= 8) {
      std::memcpy(&w, p, 8);
      w &= ~uint64_t{0} >> (64 - 8 * n);  // little-endian: the first n bytes are the low ones
    } else {
      for (size_t i = 0; i < n; ++i) w |= static_cast<uint64_t>(static_cast<uint8_t>(p[i])) << (8 * i);
    }
    h = (h ^ w) * kMul;
    h ^= h >> 31;
  }
  h *= 0x94d049bb133111ebULL;
  return h ^ (h >> 29);
}

/// Map from a value name (a view into the source) to its ValueId, for names that are not numbered.
///
/// Two open-addressing tables: a small *pending* table (L2-resident) that receives every insert and
/// answers the lookups of recently defined names, and the main table, sized once from the file's line
/// count. Pending names move to the main table in batches whose slots are all prefetched first, so the
/// cache misses of a batch overlap instead of stalling the parser once per name, and most lookups (a
/// value is usually read a few lines after its definition) never reach the main table: exporters'
/// names, `%l12_ln1_mean` or `%g12_s1`, parse within 1.3x of numbered ones, whose dense arrays are
/// sequential anyway. A name defined twice is found either at insert (both
/// pending) or when its batch moves (first_duplicate()); the parser asks before it reports any other
/// error and at the end of each body, so the first error of a file is still the one reported.
class HashedNames {
 public:
  explicit HashedNames(std::string_view source) : base_(source.data()), end_(source.data() + source.size()) {}
  /// Empties the table (in O(1): slots of older generations count as empty). The slots for `expected`
  /// names are allocated on the first insert, so a body whose names are all numbered never pays for them.
  void reset(size_t expected) {
    size_t cap = 16;
    while (cap < expected * 2) cap <<= 1;
    want_ = cap;
    // A small body after a large one (the first body is sized from the whole file) gets a small table:
    // probing a large one would scatter its few names over megabytes.
    if (slots_.size() > 4 * cap) {
      slots_ = std::vector<Slot>();
      size_ = 0;
    }
    if (gen_ == UINT16_MAX) {
      std::fill(slots_.begin(), slots_.end(), Slot{});
      gen_ = 0;
    }
    ++gen_;
    size_ = 0;
    clear_pending();
    dup_ = kNoDup;
  }
  /// Returns false if the name is already pending; a clash with an older name is reported by
  /// first_duplicate(). `name` must be a view into the source.
  bool insert(std::string_view name, ValueId v) {
    if (slots_.size() < want_) {
      allocate(slots_, want_);
      gen_ = 1;
    }
    uint32_t h = hash(name);
    Slot* s = probe(pending_, pgen_, name, h);
    if (s->gen == pgen_) return false;
    *s = Slot{static_cast<uint32_t>(name.data() - base_), v, h, static_cast<uint16_t>(name.size()), pgen_};
    order_.push_back(static_cast<uint32_t>(s - pending_.data()));
    if (order_.size() == kBatch) flush();
    return true;
  }
  ValueId find(std::string_view name) const {
    if (slots_.empty()) return kNone;
    uint32_t h = hash(name);
    auto* self = const_cast<HashedNames*>(this);
    if (!order_.empty()) {
      const Slot* p = self->probe(self->pending_, pgen_, name, h);
      if (p->gen == pgen_) return p->value;
    }
    const Slot* s = self->probe(self->slots_, gen_, name, h);
    return s->gen == gen_ ? s->value : kNone;
  }
  /// Moves the pending names to the main table and returns the source offset of the first name defined
  /// twice in this body so far (the offset of its second definition), or SIZE_MAX.
  size_t first_duplicate() {
    flush();
    return dup_;
  }

 private:
  struct Slot {  // 16 bytes
    uint32_t offset = 0;  ///< where the name starts in the source
    ValueId value = kNone;
    uint32_t hash = 0;    ///< kept so that a probe rarely touches the source text
    uint16_t len = 0;
    uint16_t gen = 0;
  };
  static constexpr size_t kBatch = 256;       ///< pending names moved at once
  static constexpr size_t kNoDup = SIZE_MAX;

  uint32_t hash(std::string_view s) const {
    return static_cast<uint32_t>(hash_text(s.data(), s.size(), base_, end_));
  }
  Slot* probe(std::vector<Slot>& t, uint16_t gen, std::string_view name, uint32_t h) {
    size_t mask = t.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      Slot& s = t[i];
      if (s.gen != gen) return &s;
      if (s.hash == h && s.len == name.size() && same(base_ + s.offset, name.data(), s.len)) return &s;
    }
  }
  /// Byte comparison, inlined for the short names exporters use.
  static bool same(const char* a, const char* b, size_t n) {
    for (; n >= 8; n -= 8, a += 8, b += 8) {
      uint64_t x, y;
      std::memcpy(&x, a, 8);
      std::memcpy(&y, b, 8);
      if (x != y) return false;
    }
    for (; n > 0; --n)
      if (*a++ != *b++) return false;
    return true;
  }
  void clear_pending() {
    if (pending_.empty()) pending_.assign(2 * kBatch, Slot{});
    if (++pgen_ == 0) {
      std::fill(pending_.begin(), pending_.end(), Slot{});
      pgen_ = 1;
    }
    order_.clear();
  }
  void flush() {
    if (order_.empty()) return;
    while ((size_ + order_.size()) * 2 > slots_.size()) grow();
    size_t mask = slots_.size() - 1;
    // Ask for every cache line first, so the misses of a batch overlap instead of queueing one by one.
    for (uint32_t k : order_) __builtin_prefetch(slots_.data() + (pending_[k].hash & mask), 1);
    for (uint32_t k : order_) {
      const Slot& e = pending_[k];
      Slot* s = probe(slots_, gen_, std::string_view(base_ + e.offset, e.len), e.hash);
      if (s->gen == gen_) {
        dup_ = std::min<size_t>(dup_, e.offset);
        continue;
      }
      *s = e;
      s->gen = gen_;
      ++size_;
    }
    clear_pending();
  }
  /// t = n empty slots; a large table is put on huge pages before its first write (random probes).
  static void allocate(std::vector<Slot>& t, size_t n) {
    if (t.capacity() < n) {
      t = std::vector<Slot>();
      t.reserve(n);
      advise_huge_pages(t.data(), n * sizeof(Slot));
    }
    t.assign(n, Slot{});
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    allocate(slots_, std::max<size_t>(16, old.size() * 2));
    for (const Slot& s : old)
      if (s.gen == gen_) *probe(slots_, gen_, std::string_view(base_ + s.offset, s.len), s.hash) = s;
  }
  const char* base_;
  const char* end_;
  size_t want_ = 16;
  std::vector<Slot> slots_;
  size_t size_ = 0;
  uint16_t gen_ = 0;
  std::vector<Slot> pending_;
  std::vector<uint32_t> order_;  ///< pending slots in insertion order
  uint16_t pgen_ = 0;
  size_t dup_ = kNoDup;
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
  /// Source offset of the first hashed name defined twice in this body so far (see HashedNames), or
  /// SIZE_MAX. Numbered names are checked at insert.
  size_t first_duplicate() { return hashed_.first_duplicate(); }

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
