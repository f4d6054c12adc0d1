// NameTable: the parser's map from value names (views into the source) to ValueIds.
#pragma once
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string_view>
#include <vector>

#include "ir/prefault.h"
#include "ir/program.h"

namespace ptir {

/// A 64-bit hash of the n bytes at p, read 8 at a time. When [p, p + 8) lies inside the buffer
/// [begin, end) the last partial word is one masked load; otherwise (near the end of the buffer, or for
/// bytes outside it) it is assembled byte by byte, so nothing outside the buffer is read.
[[gnu::always_inline]] inline uint64_t hash_text(const char* p, size_t n, const char* begin, const char* end) {
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

/// Byte comparison of n bytes, 8 at a time, inlined for the short names and spellings of a program.
[[gnu::always_inline]] inline bool same_bytes(const char* a, const char* b, size_t n) {
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
///
/// A main slot is 8 bytes (generation, 16 bits of the hash, the ValueId): the name itself is read from
/// the Program (Program::name_chars) when the 16 bits match, so the caller must give each inserted
/// value its name (Program::set_name) right after insert() returns true, before any other call.
class HashedNames {
 public:
  HashedNames(std::string_view source, const Program& p)
      : base_(source.data()), end_(source.data() + source.size()), p_(p) {}
  ~HashedNames() { std::free(slots_); }
  HashedNames(const HashedNames&) = delete;
  HashedNames& operator=(const HashedNames&) = delete;

  /// Empties the table (in O(1): slots of older generations count as empty). The slots for `expected`
  /// names are allocated on the first insert, so a body whose names are all numbered never pays for them.
  void reset(size_t expected) {
    size_t cap = 16;
    while (cap < expected * 2) cap <<= 1;
    want_ = cap;
    // A small body after a large one (the first body is sized from the whole file) gets a small table:
    // probing a large one would scatter its few names over megabytes.
    if (num_slots_ > 4 * cap) release();
    if (gen_ == UINT16_MAX) {
      if (slots_) std::memset(static_cast<void*>(slots_), 0, num_slots_ * sizeof(Main));
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
    if (num_slots_ < want_) {
      release();
      allocate(want_);
    }
    // On the first name (a body of numbered names never pays), sized for the body: a small program's
    // parse zeroed 12 KB of pending slots for a handful of names. A later, larger body gets a larger one.
    if (const size_t want = std::min(2 * kBatch, want_); pending_.size() < want) {
      flush();
      pending_.assign(want, Slot{});
    }
    const uint64_t h = hash(name);
    Slot* s = probe_pending(name, h);
    if (s->gen == pgen_) return false;
    *s = Slot{h, static_cast<uint32_t>(name.data() - base_), v, static_cast<uint16_t>(name.size()), pgen_};
    order_.push_back(static_cast<uint32_t>(s - pending_.data()));
    if (order_.size() * 2 == pending_.size()) flush();  // at most half full: kBatch names, or fewer in a small table
    return true;
  }
  ValueId find(std::string_view name) const {
    if (num_slots_ == 0) return kNone;
    const uint64_t h = hash(name);
    auto* self = const_cast<HashedNames*>(this);
    if (!order_.empty()) {
      const Slot* p = self->probe_pending(name, h);
      if (p->gen == pgen_) return p->value;
    }
    const Main* m = probe_main(name.data(), name.size(), h);
    return m->gen == gen_ ? m->value : kNone;
  }
  /// Moves the pending names to the main table and returns the source offset of the first name defined
  /// twice in this body so far (the offset of its second definition), or SIZE_MAX.
  size_t first_duplicate() {
    flush();
    return dup_;
  }

 private:
  struct Slot {  ///< pending: 24 bytes
    uint64_t hash = 0;
    uint32_t offset = 0;  ///< where the name starts in the source
    ValueId value = kNone;
    uint16_t len = 0;
    uint16_t gen = 0;
  };
  struct Main {  ///< 8 bytes; all zero (generation 0) is empty
    uint16_t gen;
    uint16_t tag;  ///< the hash's top 16 bits
    ValueId value;
  };
  static constexpr size_t kBatch = 256;  ///< pending names moved at once (fewer when the pending table is smaller)
  static constexpr size_t kNoDup = SIZE_MAX;
  static uint16_t tag_of(uint64_t h) { return static_cast<uint16_t>(h >> 48); }

  uint64_t hash(std::string_view s) const { return hash_text(s.data(), s.size(), base_, end_); }
  Slot* probe_pending(std::string_view name, uint64_t h) {
    const size_t mask = pending_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      Slot& s = pending_[i];
      if (s.gen != pgen_) return &s;
      if (s.hash == h && s.len == name.size() && same_bytes(base_ + s.offset, name.data(), s.len)) return &s;
    }
  }
  /// The main slot holding the n-byte name at p, or the empty slot where it would go.
  const Main* probe_main(const char* p, size_t n, uint64_t h) const {
    const size_t mask = num_slots_ - 1;
    const uint16_t tag = tag_of(h);
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      const Main& m = slots_[i];
      if (m.gen != gen_) return &m;
      if (m.tag == tag) {
        // strncmp stops at the stored name's NUL (a source name has none), so nothing past it is read.
        const char* q = p_.name_chars(m.value);
        if (q && std::strncmp(q, p, n) == 0 && q[n] == '\0') return &m;
      }
    }
  }
  void clear_pending() {
    if (++pgen_ == 0) {
      std::fill(pending_.begin(), pending_.end(), Slot{});
      pgen_ = 1;
    }
    order_.clear();
  }
  void flush() {
    if (order_.empty()) return;
    while ((size_ + order_.size()) * 2 > num_slots_) grow();
    const size_t mask = num_slots_ - 1;
    // Ask for every cache line first, so the misses of a batch overlap instead of queueing one by one.
    for (uint32_t k : order_) __builtin_prefetch(slots_ + (pending_[k].hash & mask), 1);
    for (uint32_t k : order_) {
      const Slot& e = pending_[k];
      Main* m = const_cast<Main*>(probe_main(base_ + e.offset, e.len, e.hash));
      if (m->gen == gen_) {
        dup_ = std::min<size_t>(dup_, e.offset);
        continue;
      }
      *m = Main{gen_, tag_of(e.hash), e.value};
      ++size_;
    }
    clear_pending();
  }
  /// n zeroed (empty) slots: calloc, so a large table's fresh pages are neither written twice nor
  /// touched before they are put on huge pages.
  void allocate(size_t n) {
    slots_ = static_cast<Main*>(std::calloc(n, sizeof(Main)));
    if (!slots_) throw std::bad_alloc();
    num_slots_ = n;
    gen_ = 1;
    advise_huge_pages(slots_, n * sizeof(Main));
    // Probes read slots anywhere before any is written: each untouched page would first be mapped
    // to the shared zero page, then faulted again (and its TLB entry flushed on every core the
    // process runs on) at its first write. Faulting the whole table in at once costs less.
    if (n * sizeof(Main) >= (size_t{1} << 20)) populate_pages(slots_, n * sizeof(Main));
  }
  void release() {
    std::free(slots_);
    slots_ = nullptr;
    num_slots_ = 0;
    size_ = 0;
  }
  /// Doubles the main table; each name's hash is recomputed from the Program's copy of it.
  void grow() {
    Main* old = slots_;
    const size_t old_n = num_slots_;
    const uint16_t old_gen = gen_;
    allocate(std::max<size_t>(16, old_n * 2));
    const size_t mask = num_slots_ - 1;
    for (size_t k = 0; k < old_n; ++k) {
      if (old[k].gen != old_gen) continue;
      const char* q = p_.name_chars(old[k].value);
      const uint64_t h = hash_text(q, std::strlen(q), base_, end_);
      size_t i = h & mask;
      while (slots_[i].gen == gen_) i = (i + 1) & mask;
      slots_[i] = Main{gen_, tag_of(h), old[k].value};
    }
    std::free(old);
  }
  const char* base_;
  const char* end_;
  const Program& p_;
  size_t want_ = 16;
  Main* slots_ = nullptr;
  size_t num_slots_ = 0;
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
  NameTable(std::string_view source, const Program& p) : hashed_(source, p) {}

  void reset(size_t expected) {
    hashed_.reset(expected);
    max_number_ = std::max<uint64_t>(4 * expected, 4096);
    if (++gen_ == 0) {  // generation wrapped: clear for real
      for (Prefix& p : prefixes_) std::fill(p.slots.begin(), p.slots.end(), Dense{});
      gen_ = 1;
    }
  }
  bool insert(std::string_view name, ValueId v) {
    if (!ends_in_digit(name)) return hashed_.insert(name, v);  // not numbered: skip dense_slot's call
    if (Dense* d = dense_slot(name, /*create=*/true)) {
      if (d->gen == gen_) return false;
      *d = Dense{v, gen_};
      return true;
    }
    return hashed_.insert(name, v);
  }
  ValueId find(std::string_view name) {
    if (!ends_in_digit(name)) return hashed_.find(name);
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

  static bool ends_in_digit(std::string_view name) {
    return !name.empty() && name.back() >= '0' && name.back() <= '9';
  }
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
