// Parser for the PTIR text format: a hand-written cursor over the source, no allocation per token.
// Errors: the first one is recorded (Parser::fail) and the cursor jumps to the end of the text, so every
// loop stops at once; each function returns as soon as a call it made failed, never using what that call
// returned. No exception is thrown for a malformed text (a fuzzed text is malformed most of the time, and
// under ASan a throw cost a tenth of fuzz_parse's time: the unwinder and the sanitizer's stack unpoisoning).
#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "ir/name_table.h"
#include "ir/prefault.h"
#include "ir/text.h"

namespace ptir {
namespace {

constexpr int64_t kMaxElements = kMaxTypeElements;  // a literal or type larger than this is refused
constexpr int kMaxRank = kMaxTypeRank;

struct ParseError {
  uint32_t offset;
  std::string message;
};

/// Character classes, one table lookup per byte in the parser's inner loops.
enum : uint8_t { kIdentStart = 1, kIdentChar = 2, kSpace = 4, kAttrStop = 8 };
constexpr std::array<uint8_t, 256> make_char_classes() {
  std::array<uint8_t, 256> t{};
  for (int c = 0; c < 256; ++c) {
    const bool start = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    const bool digit = c >= '0' && c <= '9';
    t[c] = static_cast<uint8_t>((start ? kIdentStart : 0) | (start || digit || c == '.' ? kIdentChar : 0) |
                                (c == ' ' || c == '\t' || c == '\n' || c == '\r' ? kSpace : 0) |
                                // the bytes attr_span_end looks at
                                (c == '[' || c == ']' || c == '"' || c == '-' || c == '\n' || c == '/' || c == '{' ||
                                         c == '}'
                                     ? kAttrStop
                                     : 0));
  }
  return t;
}
constexpr std::array<uint8_t, 256> kCharClass = make_char_classes();
inline bool char_is(char c, uint8_t k) { return (kCharClass[static_cast<uint8_t>(c)] & k) != 0; }
inline bool is_ident_start(char c) { return char_is(c, kIdentStart); }
inline bool is_ident_char(char c) { return char_is(c, kIdentChar); }

/// The end of the run of identifier bytes ([A-Za-z0-9_.]) of p[e, n): 16 bytes per step where 16 can
/// be read, one byte at a time near the end of the text.
inline size_t ident_end(const char* p, size_t e, size_t n) {
#if defined(__SSE2__)
  const __m128i case_bit = _mm_set1_epi8(0x20);
  while (n - e >= 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + e));
    const __m128i l = _mm_or_si128(v, case_bit);  // letters folded to lower case
    // Signed compares: bytes 0x80-0xFF are negative, so never in a range.
    const __m128i alpha = _mm_and_si128(_mm_cmpgt_epi8(l, _mm_set1_epi8('a' - 1)), _mm_cmplt_epi8(l, _mm_set1_epi8('z' + 1)));
    const __m128i digit = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('0' - 1)), _mm_cmplt_epi8(v, _mm_set1_epi8('9' + 1)));
    const __m128i other = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('_')), _mm_cmpeq_epi8(v, _mm_set1_epi8('.')));
    const unsigned ok = static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(alpha, digit), other)));
    if (ok != 0xffffu) return e + static_cast<size_t>(std::countr_one(ok));
    e += 16;
  }
#endif
  while (e < n && is_ident_char(p[e])) ++e;
  return e;
}
/// A diagnostic never carries raw control bytes: they are written \xHH.
std::string escape_control_bytes(std::string_view m) {
  std::string out;
  for (char ch : m) {
    auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c != 0x7f) {
      out += ch;
      continue;
    }
    static const char* kHex = "0123456789ABCDEF";
    out += "\\x";
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
/// The longest name after a sigil (and attribute name) the parser reads.
constexpr size_t kMaxNameLength = 4096;

struct PendingScalar {
  std::string text;
  uint32_t offset;
};

/// Ids of spellings parsed before (types, literal operands, attribute texts), keyed by their exact bytes
/// in the source plus a tag: open addressing over (hash, offset, length, tag), compared byte for byte on
/// a hash match. A file repeats few distinct spellings, so the table stays small and cache-resident.
class SpellingCache {
 public:
  explicit SpellingCache(std::string_view src) : base_(src.data()), end_(src.data() + src.size()) {}
  uint64_t hash(size_t off, size_t len, uint32_t tag) const {
    return hash_text(base_ + off, len, base_, end_) ^ (uint64_t{tag} * 0x9e3779b97f4a7c15ULL);
  }
  /// The id stored for these bytes and tag, or kNone.
  uint32_t find(size_t off, size_t len, uint32_t tag, uint64_t h) const {
    if (slots_.empty()) return kNone;
    const Slot& s = slots_[probe(off, len, tag, h)];
    return s.id;
  }
  /// Stores id for these bytes and tag unless they already have one.
  void insert(size_t off, size_t len, uint32_t tag, uint64_t h, uint32_t id) {
    if ((size_ + 1) * 2 > slots_.size()) grow();
    Slot& s = slots_[probe(off, len, tag, h)];
    if (s.id != kNone) return;
    s = Slot{h, static_cast<uint32_t>(off), static_cast<uint32_t>(len), tag, id};
    ++size_;
  }

 private:
  struct Slot {
    uint64_t hash = 0;
    uint32_t off = 0, len = 0, tag = 0;
    uint32_t id = kNone;  ///< kNone: empty
  };
  size_t probe(size_t off, size_t len, uint32_t tag, uint64_t h) const {
    const size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (s.id == kNone) return i;
      if (s.hash == h && s.len == len && s.tag == tag && same_bytes(base_ + s.off, base_ + off, len)) return i;
    }
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(std::max<size_t>(64, old.size() * 2), Slot{});
    const size_t mask = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.id == kNone) continue;
      size_t i = s.hash & mask;
      while (slots_[i].id != kNone) i = (i + 1) & mask;
      slots_[i] = s;
    }
  }
  const char* base_;
  const char* end_;
  std::vector<Slot> slots_;
  size_t size_ = 0;
};

/// The statement ops by mnemonic (op_by_mnemonic's answers, `return` excluded): one hash of the length
/// and three bytes, usually one probe, built once from the op table.
class OpByMnemonic {
 public:
  OpByMnemonic() {
    for (int i = 0; i < kNumOps; ++i) {
      const auto op = static_cast<OpCode>(i);
      if (op == OpCode::Return) continue;
      const std::string_view m = mnemonic(op);
      size_t k = slot(m);
      while (slots_[k].len != 0 && !(slots_[k].text == m)) k = (k + 1) & (kSize - 1);
      if (slots_[k].len == 0) slots_[k] = Entry{m, static_cast<uint32_t>(m.size()), op};  // the first op keeps a name
    }
  }
  std::optional<OpCode> find(std::string_view m) const {
    if (m.empty()) return std::nullopt;
    for (size_t k = slot(m);; k = (k + 1) & (kSize - 1)) {
      const Entry& e = slots_[k];
      if (e.len == 0) return std::nullopt;
      if (e.len == m.size() && same_bytes(e.text.data(), m.data(), m.size())) return e.op;
    }
  }

 private:
  static constexpr size_t kSize = 512;
  struct Entry {
    std::string_view text;
    uint32_t len = 0;  ///< 0: empty
    OpCode op{};
  };
  static size_t slot(std::string_view m) {
    const auto b = [&](size_t i) { return static_cast<size_t>(static_cast<uint8_t>(m[i])); };
    return (m.size() * 97 + b(0) * 31 + b(m.size() / 2) * 7 + b(m.size() - 1) * 131) & (kSize - 1);
  }
  Entry slots_[kSize];
};

std::optional<OpCode> find_op(std::string_view m) {
  static const OpByMnemonic table;
  return table.find(m);
}

/// The shape of a bracketed list as written: count per depth (stops at an empty list). Fixed storage,
/// so a literal's nested lists allocate nothing.
struct DenseShape {
  int n = 0;
  std::array<int64_t, kMaxRank> d{};
  const int64_t* begin() const { return d.data(); }
  const int64_t* end() const { return d.data() + n; }
  size_t size() const { return static_cast<size_t>(n); }
  bool operator==(const DenseShape& o) const { return std::equal(begin(), end(), o.begin(), o.end()); }
};

/// Literal elements as written, before the type that follows them is known.
struct RawDense {
  bool splat = false;
  std::vector<std::string_view> elems;
  std::vector<uint32_t> elem_offsets;
  DenseShape shape;  ///< the written nesting
  /// Empties it for the next literal; the vectors keep their storage (one RawDense per parser).
  void clear() {
    splat = false;
    elems.clear();
    elem_offsets.clear();
    shape.n = 0;
  }
};

class Parser {
 public:
  Parser(std::string_view text, Program& p, size_t expected_names = 64)
      : s_(text), p_(p), names_(text, p), expected_names_(expected_names), cache_(text) {}

  /// Faults in the arrays' next pages on a helper thread while this one parses (ir/prefault.h).
  void set_prefaulter(Prefaulter* pf, const SourceMap& sm) {
    pf_ = pf;
    if (pf_) publish_progress(sm);
  }
  static constexpr size_t kSlotInstOffsets = 4;

  void parse_file(SourceMap& sm) {
    skip_ws();
    if (at_end()) return fail("empty file: expected 'func' or 'region'");
    while (!at_end()) {
      std::string_view kw = peek_ident();
      if (kw == "func") parse_body(false, sm);
      else if (kw == "region") parse_body(true, sm);
      else return fail("expected 'func' or 'region' at top level");
      if (failed_) return;
      skip_ws();
    }
    resolve_regions();
    if (failed_) return;
    if (p_.entry() == kNone) fail_at(0, "file has no func");
  }
  bool failed() const { return failed_; }

  /// Reports a name defined twice in this body that the name table found late (see HashedNames).
  void check_duplicates() {
    size_t d = names_.first_duplicate();
    if (d != SIZE_MAX) fail_at(d - 1, "redefinition of value '%" + std::string(name_at(d)) + "'");
  }

  /// The name token starting at `off` (as sigil_name reads it).
  std::string_view name_at(size_t off) const {
    size_t e = off;
    if (e < s_.size() && is_ident_start(s_[e])) {
      while (e < s_.size() && is_ident_char(s_[e])) ++e;
    } else {
      while (e < s_.size() && is_digit(s_[e])) ++e;
    }
    return s_.substr(off, e - off);
  }

  /// The error to report: one found earlier in the file than the recorded one (a late-found duplicate
  /// name), else the recorded one.
  ParseError first_error() {
    const size_t d = names_.first_duplicate();
    if (d != SIZE_MAX && d - 1 < err_.offset)
      return ParseError{static_cast<uint32_t>(d - 1), "redefinition of value '%" + std::string(name_at(d)) + "'"};
    return err_;
  }

  // Standalone pieces (used by parse_literal/parse_type).
  Tensor parse_literal_only() {
    skip_ws();
    Tensor t = parse_dense_literal();
    if (failed_) return {};
    skip_ws();
    if (!at_end()) fail("unexpected text after literal");
    return t;
  }
  TensorType parse_type_only() {
    skip_ws();
    TensorType t = parse_type();
    if (failed_) return {};
    skip_ws();
    if (!at_end()) fail("unexpected text after type");
    return t;
  }

 private:
  // ---- cursor ----
  /// s_.find(c, from), 8 bytes at a time: the spellings it ends (a type, a literal) are a few words long,
  /// where a call of memchr costs more than the scan.
  size_t find_byte(char c, size_t from) const {
    const char* p = s_.data();
    const size_t n = s_.size();
    size_t i = from;
    if constexpr (std::endian::native == std::endian::little) {
      constexpr uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
      const uint64_t pattern = kOnes * static_cast<uint8_t>(c);
      for (; i + 8 <= n; i += 8) {
        uint64_t w;
        std::memcpy(&w, p + i, 8);
        const uint64_t x = w ^ pattern;  // a zero byte where w has c
        const uint64_t z = (x - kOnes) & ~x & kHigh;
        if (z) return i + static_cast<size_t>(std::countr_zero(z) / 8);  // the lowest flag is exact
      }
    }
    for (; i < n; ++i)
      if (p[i] == c) return i;
    return std::string_view::npos;
  }
  bool at_end() const { return pos_ >= s_.size(); }
  char cur() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  /// Records the first error and moves the cursor to the end: every loop then stops (cur() is '\0',
  /// at_end() holds) and each caller returns once it sees failed_.
  [[gnu::cold]] void fail(std::string msg) { fail_at(pos_, std::move(msg)); }
  [[gnu::cold]] void fail_at(size_t off, std::string msg) {
    if (!failed_) {
      failed_ = true;
      err_ = ParseError{static_cast<uint32_t>(std::min(off, s_.size())), std::move(msg)};
    }
    pos_ = s_.size();
  }
  /// Most calls stand on a token already: that is decided inline, the rest in skip_ws_loop.
  [[gnu::always_inline]] void skip_ws() {
    const size_t n = s_.size();
    if (pos_ < n) {
      const char c = s_[pos_];
      if (!char_is(c, kSpace) && c != '/') return;
      // One blank between two tokens, the usual case.
      if (c == ' ' && pos_ + 1 < n && !char_is(s_[pos_ + 1], kSpace) && s_[pos_ + 1] != '/') {
        ++pos_;
        return;
      }
    }
    skip_ws_loop();
  }
  [[gnu::noinline]] void skip_ws_loop() {
    while (pos_ < s_.size()) {
      char c = s_[pos_];
      if (char_is(c, kSpace)) { ++pos_; continue; }
      if (c == '/' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '/') {
        while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
        continue;
      }
      break;
    }
  }
  bool try_char(char c) {
    skip_ws();
    if (cur() == c) { ++pos_; return true; }
    return false;
  }
  void expect(char c, const char* what) {
    skip_ws();
    if (cur() != c) fail(std::string("expected '") + c + "' " + what + describe_found());
    ++pos_;
  }
  bool try_arrow() {
    skip_ws();
    if (cur() == '-' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '>') { pos_ += 2; return true; }
    return false;
  }
  std::string describe_found() const {
    if (at_end()) return ", found end of file";
    size_t e = pos_;
    while (e < s_.size() && e - pos_ < 12 && s_[e] != '\n' && s_[e] != ' ') ++e;
    return ", found '" + std::string(s_.substr(pos_, std::max<size_t>(e - pos_, 1))) + "'";
  }
  /// At MLIR's `DIMSxDTYPE>` spelling of a type (e.g. `4x8xf32>`), the PTIR spelling to suggest; else "".
  std::string mlir_spelling_hint() const {
    size_t e = pos_;
    std::string dims;
    while (e < s_.size() && is_digit(s_[e])) {
      size_t b = e;
      while (e < s_.size() && is_digit(s_[e])) ++e;
      if (e >= s_.size() || s_[e] != 'x') return "";
      if (!dims.empty()) dims += 'x';
      dims.append(s_.substr(b, e - b));
      ++e;
    }
    size_t b = e;
    while (e < s_.size() && is_ident_char(s_[e])) ++e;
    if (dims.empty() || e == b || e >= s_.size() || s_[e] != '>') return "";
    std::string dt(s_.substr(b, e - b));
    if (!parse_dtype(dt) && dt.size() > 1 && dt[0] == 'i' && parse_dtype("s" + dt)) dt = "s" + dt;
    return "; PTIR writes the dtype first: 'tensor<" + dt + ", " + dims + ">' (not MLIR's 'tensor<" +
           std::string(s_.substr(pos_, e - pos_)) + ">')";
  }
  std::string_view peek_ident() {
    skip_ws();
    const char* p = s_.data();
    const size_t n = s_.size();
    size_t e = pos_;
    if (e < n && is_ident_start(p[e])) e = ident_end(p, e + 1, n);
    return std::string_view(p + pos_, e - pos_);
  }
  std::string_view ident(const char* what) {
    std::string_view id = peek_ident();
    if (id.empty()) {
      fail(std::string("expected ") + what + describe_found());
      return {};
    }
    pos_ += id.size();
    return id;
  }
  /// NAME after a sigil: [A-Za-z_][A-Za-z0-9_.]* or digits.
  std::string_view sigil_name(char sigil, const char* what) {
    skip_ws();
    if (cur() != sigil) {
      fail(std::string("expected ") + what + describe_found());
      return {};
    }
    ++pos_;
    const size_t b = pos_;
    const char* p = s_.data();
    const size_t n = s_.size();
    size_t e = b;
    if (e < n && is_ident_start(p[e])) {
      e = ident_end(p, e + 1, n);
    } else {
      while (e < n && is_digit(p[e])) ++e;
    }
    pos_ = e;
    if (pos_ == b) {
      fail(std::string("expected a name after '") + sigil + "'");
      return {};
    }
    if (pos_ - b > kMaxNameLength) {
      fail_at(b, "name is longer than 4096 characters");
      return {};
    }
    return s_.substr(b, pos_ - b);
  }
  int64_t integer(const char* what) {
    skip_ws();
    size_t b = pos_;
    if (cur() == '-' || cur() == '+') ++pos_;
    while (is_digit(cur())) ++pos_;
    std::string_view tok = s_.substr(b, pos_ - b);
    if (tok.empty() || tok == "-" || tok == "+") {
      pos_ = b;
      fail(std::string("expected ") + what + describe_found());
      return 0;
    }
    std::string err;
    auto v = parse_int_elem(tok, DType::SI64, &err);
    if (!v) {
      fail_at(b, err);
      return 0;
    }
    return static_cast<int64_t>(*v);
  }
  /// A raw element token: sign, digits, letters, '.', for numbers, inf, nan, hex, true/false.
  std::string_view elem_token() {
    skip_ws();
    size_t b = pos_;
    while (pos_ < s_.size()) {
      char c = s_[pos_];
      if (is_ident_char(c) || c == '-' || c == '+') ++pos_;
      else break;
    }
    if (pos_ == b) {
      fail("expected a literal element" + describe_found());
      return {};
    }
    return s_.substr(b, pos_ - b);
  }

  // ---- types ----
  TensorType parse_type() {
    skip_ws();
    size_t b = pos_;
    if (peek_ident() != "tensor") {
      fail("expected a type 'tensor<...>'" + describe_found());
      return {};
    }
    pos_ += 6;
    expect('<', "after 'tensor'");
    if (failed_) return {};
    skip_ws();
    size_t db = pos_;
    std::string_view dt = peek_ident();
    auto d = parse_dtype(dt);
    if (!d) {
      if (dt.empty()) fail_at(db, "expected a dtype after 'tensor<'" + describe_found() + mlir_spelling_hint());
      else fail_at(db, "unknown dtype '" + std::string(dt) + "'");
      return {};
    }
    pos_ += dt.size();
    TensorType t;
    t.dtype = *d;
    if (try_char(',')) {
      skip_ws();
      int64_t total = 1;
      // On the stack first: one allocation for the dims, not one per doubling.
      std::array<int64_t, kMaxRank> dims;
      size_t rank = 0;
      while (true) {
        skip_ws();
        size_t nb = pos_;
        int64_t v = 0;
        while (is_digit(cur())) {
          v = v * 10 + (cur() - '0');
          if (v > kMaxElements) {
            fail_at(nb, "dimension is too large");
            return {};
          }
          ++pos_;
        }
        if (pos_ == nb) {
          fail("expected a dimension" + describe_found());
          return {};
        }
        if (rank == kMaxRank) {
          fail_at(nb, "rank is larger than " + std::to_string(kMaxRank));
          return {};
        }
        dims[rank++] = v;
        total = v == 0 ? 0 : total * v;
        if (total > kMaxElements) {
          fail_at(b, "tensor type has too many elements");
          return {};
        }
        if (cur() == 'x') { ++pos_; continue; }
        break;
      }
      t.dims.assign(dims.begin(), dims.begin() + rank);
    }
    expect('>', "to close the tensor type");
    if (failed_) return {};
    return t;
  }
  TypeId parse_type_id() {
    skip_ws();
    size_t b = pos_;
    // Cache by spelling: most types repeat verbatim.
    size_t e = find_byte('>', b);
    if (e != std::string_view::npos) {
      uint64_t h = cache_.hash(b, e + 1 - b, kTypeTag);
      TypeId id = cache_.find(b, e + 1 - b, kTypeTag, h);
      if (id != kNone) { pos_ = e + 1; return id; }
    }
    TensorType t = parse_type();
    if (failed_) return kNone;
    TypeId id = p_.intern_type(std::move(t));
    cache_.insert(b, pos_ - b, kTypeTag, cache_.hash(b, pos_ - b, kTypeTag), id);
    return id;
  }
  std::vector<TypeId> parse_type_list() {
    std::vector<TypeId> out;
    parse_type_list(out);
    return out;
  }
  void parse_type_list(std::vector<TypeId>& out) {
    out.clear();
    if (try_char('(')) {
      if (try_char(')')) return;
      do out.push_back(parse_type_id());
      while (try_char(','));
      expect(')', "to close the type list");
    } else {
      out.push_back(parse_type_id());
    }
  }
  /// Where the attributes starting at `from` end: the `->` after them, outside brackets and strings;
  /// npos when the line has something else first (a comment, a newline, a brace: the slow path decides).
  size_t attr_span_end(size_t from) const {
    int depth = 0;
    for (size_t i = from; i + 1 < s_.size(); ++i) {
      char c = s_[i];
      if (!char_is(c, kAttrStop)) continue;  // most bytes: one table lookup
      if (c == '[') ++depth;
      else if (c == ']') --depth;
      else if (c == '"') {
        for (++i; i < s_.size() && s_[i] != '"'; ++i)
          if (s_[i] == '\\') ++i;
      } else if (depth == 0) {
        if (c == '-' && s_[i + 1] == '>') return i;
        if (c == '\n' || c == '/' || c == '{' || c == '}') return std::string_view::npos;
      }
    }
    return std::string_view::npos;
  }

  // ---- literals ----
  /// Parses one bracketed list into `shape`: its count at this depth, then the common shape of its items.
  void parse_dense_list(RawDense& raw, int depth, DenseShape& shape) {
    if (depth >= kMaxRank) return fail("literal nests deeper than the largest rank");
    expect('[', "");
    if (failed_) return;
    if (try_char(']')) {
      shape.n = 1, shape.d[0] = 0;
      return;
    }
    skip_ws();
    DenseShape inner, s;
    int64_t count = 0;
    if (cur() == '[') {
      do {
        skip_ws();
        size_t at = pos_;
        parse_dense_list(raw, depth + 1, s);
        if (failed_) return;
        if (count > 0 && !(s == inner)) return fail_at(at, "ragged literal: nested lists of different shapes");
        inner = s;
        ++count;
        skip_ws();
      } while (try_char(','));
    } else {
      do {
        skip_ws();
        if (cur() == '[') return fail("ragged literal: a nested list among elements");
        raw.elem_offsets.push_back(static_cast<uint32_t>(pos_));
        raw.elems.push_back(elem_token());
        if (failed_) return;
        if (static_cast<int64_t>(raw.elems.size()) > kMaxElements) return fail("literal has too many elements");
        ++count;
      } while (try_char(','));
    }
    expect(']', "to close the literal list");
    if (failed_) return;
    // depth + inner.n <= kMaxRank - 1: a list at `depth` holds lists at most kMaxRank - 1 - depth deep.
    shape.n = 1 + inner.n;
    shape.d[0] = count;
    std::copy(inner.d.begin(), inner.d.begin() + inner.n, shape.d.begin() + 1);
  }

  Tensor parse_dense_literal() {
    skip_ws();
    size_t b = pos_;
    if (peek_ident() != "dense") {
      fail("expected a literal 'dense<...>'" + describe_found());
      return {};
    }
    pos_ += 5;
    expect('<', "after 'dense'");
    if (failed_) return {};
    RawDense& raw = raw_;
    raw.clear();
    skip_ws();
    if (cur() == '[') {
      parse_dense_list(raw, 0, raw.shape);
    } else {
      raw.splat = true;
      raw.elem_offsets.push_back(static_cast<uint32_t>(pos_));
      raw.elems.push_back(elem_token());
    }
    if (failed_) return {};
    expect('>', "to close 'dense<'");
    expect(':', "and a type after the literal");
    if (failed_) return {};
    TensorType type = parse_type();
    if (failed_) return {};
    return build_literal(raw, type, b);
  }

  Tensor build_literal(const RawDense& raw, const TensorType& type, size_t at) {
    int64_t n = type.num_elements();
    // `dense<x>` stays one stored element, whatever the type's size (docs/text-format.md).
    if (raw.splat) {
      const uint64_t bits = convert_elem(raw.elems[0], raw.elem_offsets[0], type.dtype);
      if (failed_) return {};
      return Tensor::filled(type, bits);
    }
    Tensor t(type);
    // Compare the written nesting with the type's dims.
    const DenseShape& sh = raw.shape;
    bool ok = std::equal(sh.begin(), sh.end(), type.dims.begin(), type.dims.end());
    if (!ok && n == 0 && sh.n > 0 && sh.d[sh.n - 1] == 0 && static_cast<int>(sh.size()) <= type.rank())
      ok = std::equal(sh.begin(), sh.end(), type.dims.begin());  // `[]` for 0x3 stops at the 0
    if (!ok) {
      std::string shp;
      for (size_t d = 0; d < sh.size(); ++d) shp += (d ? "x" : "") + std::to_string(sh.d[d]);
      fail_at(at, "literal of shape [" + shp + "] does not match its type " + to_string(type));
      return {};
    }
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t bits = convert_elem(raw.elems[i], raw.elem_offsets[i], type.dtype);
      if (failed_) return {};
      t.set_bits(i, bits);
    }
    t.compact();  // one canonical form per value: a list of equal elements is the splat it prints as
    return t;
  }

  uint64_t convert_elem(std::string_view tok, uint32_t off, DType d) {
    std::string err;
    std::optional<uint64_t> v = is_float(d) ? parse_float_elem(tok, d, &err) : parse_int_elem(tok, d, &err);
    if (!v) {
      fail_at(off, err);
      return 0;
    }
    return *v;
  }

  // ---- attributes ----
  AttrValue parse_attr_value(OpCode op, const AttrSpec* spec, std::string_view name, PendingScalar* pending) {
    AttrValue v;
    AttrKind kind = spec ? spec->kind : AttrKind::Word;
    v.kind = kind;
    skip_ws();
    size_t b = pos_;
    switch (kind) {
      case AttrKind::Ints:
      case AttrKind::Int:
        if (cur() != ']')
          do v.ints.push_back(integer("an integer")); while (try_char(','));
        if (failed_) return {};
        if (kind == AttrKind::Int && v.ints.size() != 1) {
          fail_at(b, "attribute '" + std::string(name) + "' of '" + std::string(mnemonic(op)) +
                         "' takes one integer");
          return {};
        }
        break;
      case AttrKind::Bool: {
        std::string_view w = ident("true or false");
        if (failed_) return {};
        if (w != "true" && w != "false") {
          fail_at(b, "attribute '" + std::string(name) + "' takes true or false");
          return {};
        }
        v.ints.push_back(w == "true");
        break;
      }
      case AttrKind::Word: {
        if (!spec) return parse_free_attr_value();
        std::string_view w = ident("a word");
        if (failed_) return {};
        if (std::find(spec->words.begin(), spec->words.end(), w) == spec->words.end()) {
          std::string allowed;
          for (auto a : spec->words) allowed += (allowed.empty() ? "" : "|") + std::string(a);
          fail_at(b, "attribute '" + std::string(name) + "' of '" + std::string(mnemonic(op)) + "' must be one of " +
                         allowed + ", got '" + std::string(w) + "'");
          return {};
        }
        v.text = std::string(w);
        break;
      }
      case AttrKind::DType: {
        std::string_view w = ident("a dtype");
        if (failed_) return {};
        auto d = parse_dtype(w);
        if (!d) {
          fail_at(b, "unknown dtype '" + std::string(w) + "'");
          return {};
        }
        v.ints.push_back(static_cast<int64_t>(*d));
        break;
      }
      case AttrKind::Region:
        v.text = std::string(sigil_name('^', "a region reference '^name'"));
        if (failed_) return {};
        region_refs_.emplace_back(static_cast<uint32_t>(b), v.text);
        break;
      case AttrKind::String:
        v.text = quoted_string();
        break;
      case AttrKind::Literal:
        v.lit = parse_dense_literal();
        break;
      case AttrKind::Scalar:
        pending->text = std::string(elem_token());
        pending->offset = static_cast<uint32_t>(b);
        break;
    }
    if (failed_) return {};
    return v;
  }

  /// custom_call's free attributes: ints, a word, a string, a literal, a region or a number.
  AttrValue parse_free_attr_value() {
    AttrValue v;
    skip_ws();
    char c = cur();
    if (c == ']') { v.kind = AttrKind::Ints; return v; }
    if (c == '"') { v.kind = AttrKind::String; v.text = quoted_string(); return v; }
    if (c == '^') {
      size_t b = pos_;
      v.kind = AttrKind::Region;
      v.text = std::string(sigil_name('^', "a region"));
      if (failed_) return {};
      region_refs_.emplace_back(static_cast<uint32_t>(b), v.text);
      return v;
    }
    if (peek_ident() == "dense") { v.kind = AttrKind::Literal; v.lit = parse_dense_literal(); return v; }
    // A list of integers, or a single word/number kept as written.
    std::vector<std::string_view> toks;
    do toks.push_back(elem_token()); while (try_char(','));
    if (failed_) return {};
    bool all_int = true;
    for (auto t : toks) {
      std::string err;
      all_int = all_int && parse_int_elem(t, DType::SI64, &err).has_value();
    }
    if (all_int) {
      v.kind = AttrKind::Ints;
      for (auto t : toks) v.ints.push_back(static_cast<int64_t>(*parse_int_elem(t, DType::SI64, nullptr)));
      return v;
    }
    if (toks.size() != 1) {
      fail("free attribute lists must be integers");
      return {};
    }
    if (toks[0] == "true" || toks[0] == "false") { v.kind = AttrKind::Bool; v.ints.push_back(toks[0] == "true"); return v; }
    v.kind = AttrKind::Word;
    v.text = std::string(toks[0]);
    return v;
  }

  static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }
  static std::string hex_byte(unsigned char b) {
    static const char* h = "0123456789ABCDEF";
    return std::string("0x") + h[b >> 4] + h[b & 15];
  }

  std::string quoted_string() {
    skip_ws();
    if (cur() != '"') {
      fail("expected a quoted string" + describe_found());
      return {};
    }
    ++pos_;
    std::string out;
    // The spec's escapes: \" \\ and \xHH (any byte, NUL included); a raw control byte is an error.
    while (true) {
      if (at_end() || cur() == '\n') {
        fail("unterminated string");
        return {};
      }
      const size_t at = pos_;
      char c = s_[pos_++];
      if (c == '"') break;
      const auto u = static_cast<unsigned char>(c);
      if (u < 0x20 || u == 0x7F) {
        fail_at(at, "raw control byte " + hex_byte(u) + " in a string (write it as \\x" + hex_byte(u).substr(2) + ")");
        return {};
      }
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (at_end()) {
        fail("unterminated string");
        return {};
      }
      const char e = s_[pos_++];
      if (e == '"' || e == '\\') {
        out.push_back(e);
      } else if (e == 'x') {
        int v = 0;
        for (int k = 0; k < 2; ++k) {
          const int d = at_end() ? -1 : hex_digit(cur());
          if (d < 0) {
            fail_at(at, "\\x in a string needs two hex digits");
            return {};
          }
          v = v * 16 + d;
          ++pos_;
        }
        out.push_back(static_cast<char>(v));
      } else {
        fail_at(at, "unknown escape in a string: only \\\", \\\\ and \\xHH are allowed");
        return {};
      }
    }
    return out;
  }

  // ---- bodies and statements ----
  ValueId lookup(std::string_view name, size_t at) {
    ValueId v = names_.find(name);
    if (v == kNone) fail_at(at, "use of undefined value '%" + std::string(name) + "'");
    return v;  // kNone after a failure
  }

  ValueId parse_operand() {
    skip_ws();
    size_t b = pos_;
    if (cur() == '%') {
      const std::string_view name = sigil_name('%', "an operand");
      if (failed_) return kNone;
      return lookup(name, b);
    }
    if (peek_ident() == "dense") {
      size_t start = pos_;
      // Literal operands repeat verbatim: cache by their spelling (the type ends at the next '>').
      size_t colon = find_byte(':', start);
      size_t end = colon == std::string_view::npos ? colon : find_byte('>', colon);
      if (end != std::string_view::npos) {
        ValueId v = cache_.find(start, end + 1 - start, kLiteralTag, cache_.hash(start, end + 1 - start, kLiteralTag));
        if (v != kNone) { pos_ = end + 1; return v; }
      }
      Tensor t = parse_dense_literal();
      if (failed_) return kNone;
      ValueId v = p_.literal_value(p_.intern_literal(t));
      cache_.insert(start, pos_ - start, kLiteralTag, cache_.hash(start, pos_ - start, kLiteralTag), v);
      return v;
    }
    fail("expected an operand ('%name' or a 'dense<...>' literal)" + describe_found());
    return kNone;
  }

  bool at_operand() {
    skip_ws();
    return cur() == '%' || peek_ident() == "dense";
  }

  void define(std::string_view name, ValueId v, size_t at) {
    if (!names_.insert(name, v)) return fail_at(at, "redefinition of value '%" + std::string(name) + "'");
    p_.set_name(v, name);
  }

  void parse_body(bool is_region, SourceMap& sm) {
    size_t hdr = pos_;
    pos_ += is_region ? 6 : 4;
    std::string_view name = sigil_name(is_region ? '^' : '@', is_region ? "a region name '^name'" : "a function name '@name'");
    if (failed_) return;
    if (p_.find_body(name, is_region) != kNone)
      return fail_at(hdr, std::string(is_region ? "redefinition of region '^" : "redefinition of func '@") +
                              std::string(name) + "'");
    BodyId b = p_.add_body(std::string(name), is_region);
    if (sm.body_offset.size() <= b) sm.body_offset.resize(b + 1, kNone);
    sm.body_offset[b] = static_cast<uint32_t>(hdr);
    names_.reset(std::min<size_t>(expected_names_, 1 << 24));
    expected_names_ = 64;  // later bodies grow the table as needed
    expect('(', "to open the parameter list");
    if (!try_char(')')) {
      do {
        skip_ws();
        size_t at = pos_;
        std::string_view pn = sigil_name('%', "a parameter '%name'");
        expect(':', "after the parameter name");
        if (failed_) return;
        TypeId t = parse_type_id();
        if (failed_) return;
        ValueId v = p_.add_param(b, t, {});
        define(pn, v, at);
        if (failed_) return;
      } while (try_char(','));
      expect(')', "to close the parameter list");
      if (failed_) return;
    }
    if (!try_arrow()) return fail("expected '->' and the result types" + describe_found());
    std::vector<TypeId> results = parse_type_list();
    if (failed_) return;
    p_.body(b).result_types = std::move(results);
    if (peek_ident() == "attributes") parse_body_attributes(b);
    expect('{', "to open the body");
    if (failed_) return;
    while (true) {
      skip_ws();
      if (at_end()) return fail("unterminated body: expected 'return'");
      size_t at = pos_;
      if (peek_ident() == "return") {
        pos_ += 6;
        std::vector<ValueId> rets;
        if (at_operand()) {
          do rets.push_back(parse_operand()); while (try_char(','));
        }
        if (failed_) return;
        InstId r = p_.set_return(b, rets);
        record(sm, r, at);
        break;
      }
      parse_stmt(b, sm);
      if (failed_) return;
      if (pf_ && (++since_publish_ & 255) == 0) publish_progress(sm);
    }
    expect('}', "to close the body after 'return'");
    if (failed_) return;
    check_duplicates();
  }

  /// `attributes[fastmath[FLAG, ...]]` after a function's result types (docs/text-format.md).
  void parse_body_attributes(BodyId b) {
    const size_t at = pos_;
    pos_ += 10;  // "attributes"
    if (p_.body(b).is_region) return fail_at(at, "a region takes no attributes: it inherits its function's fast-math flags");
    expect('[', "after 'attributes'");
    if (failed_) return;
    skip_ws();
    const size_t kat = pos_;
    const std::string_view kw = ident("'fastmath'");
    if (failed_) return;
    if (kw != "fastmath") return fail_at(kat, "unknown function attribute (expected 'fastmath')");
    expect('[', "after 'fastmath'");
    if (failed_) return;
    FastMath fm;
    do {
      skip_ws();
      const size_t fat = pos_;
      const std::string_view f = ident("a fast-math flag (nnan, ninf, nsz, reassoc, contract, afn)");
      if (failed_) return;
      auto flag = parse_fastmath_flag(f);
      if (!flag) return fail_at(fat, "unknown fast-math flag '" + std::string(f) + "' (expected nnan, ninf, nsz, reassoc, contract or afn)");
      if (fm.has(*flag)) return fail_at(fat, "duplicate fast-math flag '" + std::string(f) + "'");
      fm.set(*flag);
    } while (try_char(','));
    expect(']', "to close the fast-math flags");
    expect(']', "to close the function attributes");
    if (failed_) return;
    p_.body(b).fastmath = fm;
  }

  /// Tells the prefaulter how far each array is written: the Program's four and the source map's
  /// instruction offsets. (The name table's slots are read and written anywhere: the table faults
  /// itself in when it is allocated, HashedNames::allocate.)
  void publish_progress(const SourceMap& sm) {
    const auto st = p_.storage();
    for (size_t k = 0; k < st.size(); ++k) pf_->publish(k, st[k].data, st[k].used, st[k].capacity);
    pf_->publish(kSlotInstOffsets, sm.inst_offset.data(), sm.inst_offset.size() * sizeof(uint32_t),
                 sm.inst_offset.capacity() * sizeof(uint32_t));
  }

  void record(SourceMap& sm, InstId i, size_t at) {
    if (sm.inst_offset.size() == i) {  // the usual case: instructions are recorded in creation order
      sm.inst_offset.push_back(static_cast<uint32_t>(at));
      return;
    }
    if (sm.inst_offset.size() <= i) sm.inst_offset.resize(i + 1, kNone);
    sm.inst_offset[i] = static_cast<uint32_t>(at);
  }

  void parse_stmt(BodyId b, SourceMap& sm) {
    size_t at = pos_;
    std::vector<std::pair<std::string_view, size_t>>& results = results_;
    results.clear();
    do {
      skip_ws();
      size_t rat = pos_;
      results.emplace_back(sigil_name('%', "a result name '%name' or 'return'"), rat);
    } while (try_char(','));
    expect('=', "after the result names");
    if (failed_) return;
    skip_ws();
    size_t op_at = pos_;
    std::string_view mn = ident("an op name");
    if (failed_) return;
    auto opc = find_op(mn);
    if (!opc) return fail_at(op_at, "unknown op '" + std::string(mn) + "'");
    OpCode op = *opc;
    const OpInfo& info = op_info(op);

    operands_.clear();
    skip_ws();
    if (cur() == '(') {
      ++pos_;
      if (!try_char(')')) {
        do operands_.push_back(parse_operand()); while (try_char(','));
        expect(')', "to close the operand list");
      }
    } else if (at_operand()) {
      do operands_.push_back(parse_operand()); while (try_char(','));
    }
    if (failed_) return;

    // Attributes. A spelling seen before on the same op is looked up before it is parsed (exported graphs
    // repeat `axes[1] keepdims[true]` or `contract_lhs[1] contract_rhs[0]` on every layer).
    skip_ws();
    size_t attr_begin = pos_;
    AttrSetId cached = kNone;
    if (op != OpCode::Constant && op != OpCode::CustomCall && !has_trait(op, OpTrait::Regions) &&
        is_ident_start(cur())) {
      size_t arrow = attr_span_end(pos_);
      if (arrow != std::string_view::npos) {
        DType sd = !operands_.empty() ? p_.type_of(operands_[0]).dtype : DType::F32;
        const uint32_t tag = attr_tag(op, sd);
        cached = cache_.find(attr_begin, arrow - attr_begin, tag, cache_.hash(attr_begin, arrow - attr_begin, tag));
        if (cached != kNone) pos_ = arrow;
      }
    }
    AttrSet attrs;
    PendingScalar pending;
    std::string_view pending_name;
    // Past a few attributes (only custom_call takes that many) duplicates are found by hash: a linear
    // search per attribute took 8 s for a call with 60,000 of them.
    std::unordered_set<std::string> seen_names;  // copies: attrs.attrs may move its strings
    while (cached == kNone) {
      skip_ws();
      std::string_view an = peek_ident();
      if (an.empty()) break;
      size_t aat = pos_;
      pos_ += an.size();
      skip_ws();
      if (cur() != '[') {
        // A word without '[' after the operands is most often a result type missing its arrow.
        pos_ = aat;
        if (an == "tensor") return fail("expected '->' before the result types, found 'tensor'");
        return fail("expected '[' after attribute name '" + std::string(an) + "'");
      }
      ++pos_;
      const AttrSpec* spec = find_attr_spec(op, an);
      if (!spec && op != OpCode::CustomCall)
        return fail_at(aat, "unknown attribute '" + std::string(an) + "' for op '" + std::string(mn) + "'");
      if (an.size() > kMaxNameLength) return fail_at(aat, "attribute name is longer than 4096 characters");
      bool dup;
      if (attrs.attrs.size() < 8) {
        dup = attrs.find(an) != nullptr;
      } else {
        if (seen_names.empty())
          for (const Attr& a : attrs.attrs) seen_names.insert(a.name);
        dup = !seen_names.insert(std::string(an)).second;
      }
      if (dup) return fail_at(aat, "duplicate attribute '" + std::string(an) + "'");
      PendingScalar ps;
      AttrValue v = parse_attr_value(op, spec, an, &ps);
      if (failed_) return;
      if (spec && spec->kind == AttrKind::Scalar) { pending = ps; pending_name = an; }
      expect(']', "to close the attribute");
      if (failed_) return;
      attrs.attrs.push_back(Attr{std::string(an), std::move(v)});
    }
    std::string_view attr_text = s_.substr(attr_begin, pos_ - attr_begin);
    if (!try_arrow()) return fail("expected '->' and the result types" + describe_found());
    std::vector<TypeId>& rtypes = rtypes_;
    parse_type_list(rtypes);
    if (failed_) return;

    // Structural checks: each has its own message.
    int nops = static_cast<int>(operands_.size());
    int max_ops = op == OpCode::Constant ? 1 : info.max_operands;  // constant may take its literal as an operand
    if (nops < info.min_operands || (max_ops >= 0 && nops > max_ops)) {
      std::string want = info.min_operands == info.max_operands
                             ? std::to_string(info.min_operands)
                             : (info.max_operands < 0 ? "at least " + std::to_string(info.min_operands)
                                                      : std::to_string(info.min_operands) + " to " +
                                                            std::to_string(info.max_operands));
      return fail_at(op_at, "op '" + std::string(mn) + "' expects " + want + " operand" + (want == "1" ? "" : "s") +
                                ", got " + std::to_string(nops));
    }
    if (op == OpCode::Constant) {
      if (nops == 1 && attrs.find("value")) return fail_at(op_at, "constant takes its literal as an operand or as value[...], not both");
      if (nops == 0 && !attrs.find("value")) return fail_at(op_at, "constant needs a literal");
    }
    if (info.num_results >= 0 && static_cast<int>(results.size()) != info.num_results)
      return fail_at(at, "op '" + std::string(mn) + "' has " + std::to_string(info.num_results) + " result" +
                             (info.num_results == 1 ? "" : "s") + ", got " + std::to_string(results.size()) + " names");
    if (rtypes.size() != results.size())
      return fail_at(at, std::to_string(results.size()) + " result name" + (results.size() == 1 ? "" : "s") + " but " +
                             std::to_string(rtypes.size()) + " result type" + (rtypes.size() == 1 ? "" : "s"));
    for (const AttrSpec& spec : op_attr_schema(op))
      if (cached == kNone && spec.required && !attrs.find(spec.name))
        return fail_at(op_at, "op '" + std::string(mn) + "' requires attribute '" + std::string(spec.name) + "'");

    AttrSetId aid;
    if (cached != kNone) {
      aid = cached;  // the same text on the same op (and operand dtype) parsed and checked before
    } else if (op == OpCode::Constant && nops == 1) {
      // Canonical form: the literal is the constant's `value` attribute.
      ValueId lv = operands_[0];
      if (p_.value(lv).kind != ValueKind::Literal) return fail_at(op_at, "constant's operand must be a literal");
      attrs.attrs.push_back(Attr{"value", AttrValue{AttrKind::Literal, {}, {}, p_.literal(p_.value(lv).def)}});
      operands_.clear();
      aid = p_.intern_attrs(attrs);
    } else if (attrs.attrs.empty()) {
      aid = 0;
    } else {
      // Identical attribute spellings on the same op (and operand dtype, for scalars) intern to one set.
      DType sd = nops > 0 ? p_.type_of(operands_[0]).dtype : DType::F32;
      const uint32_t tag = attr_tag(op, sd);
      const size_t toff = attr_text.data() - s_.data();
      const uint64_t th = cache_.hash(toff, attr_text.size(), tag);
      aid = cache_.find(toff, attr_text.size(), tag, th);
      if (aid == kNone) {
        if (!pending_name.empty()) {
          std::string err;
          Tensor sc(TensorType{sd, {}});
          std::optional<uint64_t> bits = is_float(sd) ? parse_float_elem(pending.text, sd, &err)
                                                      : parse_int_elem(pending.text, sd, &err);
          if (!bits) return fail_at(pending.offset, err);
          sc.set_bits(0, *bits);
          for (Attr& a : attrs.attrs)
            if (a.name == pending_name) a.value.lit = sc;
        }
        aid = p_.intern_attrs(attrs);
        cache_.insert(toff, attr_text.size(), tag, th, aid);
      }
    }
    InstId inst = p_.create_inst(b, op, operands_, aid, rtypes);
    record(sm, inst, at);
    for (size_t k = 0; k < results.size(); ++k) {
      define(results[k].first, p_.result(inst, k), results[k].second);
      if (failed_) return;
    }
  }

  void resolve_regions() {
    for (const auto& [off, name] : region_refs_)
      if (p_.find_body(name, true) == kNone) return fail_at(off, "reference to undefined region '^" + name + "'");
    for (AttrSetId id = 0; id < p_.num_attr_sets(); ++id)
      for (Attr& a : p_.mutable_attrs_for_resolution(id).attrs)
        if (a.value.kind == AttrKind::Region) a.value.ints.assign(1, p_.find_body(a.value.text, true));
  }

  /// Tags of cache_'s kinds of spelling: attribute texts are keyed by op and operand dtype as well.
  static constexpr uint32_t kTypeTag = 0, kLiteralTag = 1;
  static uint32_t attr_tag(OpCode op, DType d) {
    return 2 + (static_cast<uint32_t>(op) << 8 | static_cast<uint32_t>(d));
  }

  std::string_view s_;
  size_t pos_ = 0;
  Program& p_;
  NameTable names_;
  size_t expected_names_ = 64;
  SpellingCache cache_;  ///< types, literal operands and attribute texts by spelling
  std::vector<ValueId> operands_;
  std::vector<std::pair<std::string_view, size_t>> results_;  ///< parse_stmt's result names (reused)
  std::vector<TypeId> rtypes_;                                 ///< parse_stmt's result types (reused)
  RawDense raw_;                                               ///< parse_dense_literal's elements (reused)
  bool failed_ = false;  ///< an error was recorded (err_): the cursor is at the end, callers return
  ParseError err_;       ///< the first error
  std::vector<std::pair<uint32_t, std::string>> region_refs_;
  Prefaulter* pf_ = nullptr;
  uint32_t since_publish_ = 0;
};

/// About how many lines `text` has, from the newlines of three 256 KB samples (its start, middle and
/// end: names grow longer down an exported graph, `%l9_x` to `%l999_x`): the reservations of a large
/// parse are made from it while the exact line starts are computed beside the parse. A low estimate
/// costs little: the Program's arrays grow without copying (ir/pod_array.h).
size_t estimate_lines(std::string_view text) {
  const size_t piece = std::min<size_t>(text.size() / 3, size_t{256} << 10);
  if (piece == 0) return 16;
  size_t n = 0;
  for (size_t at : {size_t{0}, text.size() / 2 - piece / 2, text.size() - piece})
    for (const char *q = text.data() + at, *e = q + piece; (q = static_cast<const char*>(std::memchr(q, '\n', e - q))); ++q) ++n;
  if (n == 0) return text.size() / 64 + 16;
  return static_cast<size_t>(static_cast<double>(n) * static_cast<double>(text.size()) / static_cast<double>(3 * piece)) + 16;
}

/// The offset of every line's start. With a prefaulter, the array's next pages are faulted in ahead.
std::vector<uint32_t> compute_line_starts(std::string_view text, Prefaulter* pf = nullptr) {
  constexpr size_t kSlotLineStarts = 6;
  std::vector<uint32_t> ls;
  ls.reserve(text.size() / 32 + 16);  // lines of 32 bytes or more grow it at most once
  advise_huge_pages(ls.data(), ls.capacity() * sizeof(uint32_t));
  auto publish = [&] {
    if (pf) pf->publish(kSlotLineStarts, ls.data(), ls.size() * sizeof(uint32_t), ls.capacity() * sizeof(uint32_t));
  };
  publish();
  ls.push_back(0);
  const char* b = text.data();
  const char* e = b + text.size();
  for (const char* q = b; (q = static_cast<const char*>(std::memchr(q, '\n', e - q))) != nullptr; ++q) {
    ls.push_back(static_cast<uint32_t>(q - b + 1));
    if ((ls.size() & 0x7fff) == 0) publish();
  }
  return ls;
}

}  // namespace

std::string SourceMap::location(uint32_t offset) const {
  auto it = std::upper_bound(line_starts.begin(), line_starts.end(), offset);
  size_t line = it - line_starts.begin();
  uint32_t col = offset - (line ? line_starts[line - 1] : 0) + 1;
  return filename + ":" + std::to_string(line == 0 ? 1 : line) + ":" + std::to_string(col);
}

std::string SourceMap::inst_location(const Program& p, InstId i) const {
  if (i < inst_offset.size() && inst_offset[i] != kNone) return location(inst_offset[i]);
  BodyId b = p.inst(i).body;
  if (b < body_offset.size() && body_offset[b] != kNone) return location(body_offset[b]);
  return filename;
}

bool is_readable_name(std::string_view n) {
  if (n.empty() || n.size() > kMaxNameLength) return false;
  const char* p = n.data();
  if (is_ident_start(p[0])) return ident_end(p, 1, n.size()) == n.size();
  for (char c : n)
    if (!is_digit(c)) return false;
  return true;
}

ParseResult parse_program(std::string_view text, std::string_view filename) {
  ParseResult r;
  r.source.filename = std::string(filename);
  // Declared before the arrays it faults in, so it stops after the last of them is freed (that would
  // be harmless anyway: it never touches their contents).
  Prefaulter pf(Prefaulter::wanted(text.size()));
  // The line starts are needed only to locate an error, after the parse: for a large text they are
  // computed on a thread of their own beside it, and the arrays are reserved from an estimate.
  std::vector<uint32_t> lines;
  bool lines_failed = false;
  std::jthread line_thread;  // joined before `lines` and `pf` go (declared after them)
  size_t n_lines = 0;
  if (pf.active()) {
    try {
      line_thread = std::jthread([&lines, &lines_failed, &pf, text] {
        try {
          lines = compute_line_starts(text, &pf);
        } catch (...) {
          lines_failed = true;
        }
      });
      n_lines = estimate_lines(text);
    } catch (const std::system_error&) {
      // No thread: counted below, before the parse.
    }
  }
  if (!line_thread.joinable()) {
    r.source.line_starts = compute_line_starts(text, pf.active() ? &pf : nullptr);
    n_lines = r.source.line_starts.size();
  }
  auto join_lines = [&] {
    if (!line_thread.joinable()) return;
    line_thread.join();
    r.source.line_starts = lines_failed ? compute_line_starts(text) : std::move(lines);
  };
  auto prog = std::make_unique<Program>();
  // Value names take about a sixth of an exported graph's text (`%l12_mean_sum = ...`): reserved so,
  // the name arena is not copied as it grows.
  prog->reserve(n_lines, text.size() / 6);
  r.source.inst_offset.reserve(n_lines);
  advise_huge_pages(r.source.inst_offset.data(), r.source.inst_offset.capacity() * sizeof(uint32_t));
  Parser parser(text, *prog, n_lines);
  parser.set_prefaulter(pf.active() ? &pf : nullptr, r.source);
  try {
    parser.parse_file(r.source);
  } catch (const std::bad_alloc&) {
    r.error = std::string(filename) + ": error: out of memory while parsing";
    return r;
  }
  if (parser.failed()) {
    ParseError e = parser.first_error();
    join_lines();
    r.error = r.source.location(std::min<uint32_t>(e.offset, static_cast<uint32_t>(text.size()))) +
              ": error: " + escape_control_bytes(e.message);
    return r;
  }
  join_lines();
  r.program = std::move(prog);
  return r;
}

bool parse_literal(std::string_view text, Tensor* out, std::string* error) {
  Program scratch;
  Parser parser(text, scratch);
  Tensor t = parser.parse_literal_only();
  if (!parser.failed()) {
    *out = std::move(t);
    return true;
  }
  const ParseError e = parser.first_error();
  SourceMap sm;
  sm.filename = "<literal>";
  sm.line_starts = compute_line_starts(text);
  if (error) *error = sm.location(e.offset) + ": error: " + escape_control_bytes(e.message);
  return false;
}

bool parse_type(std::string_view text, TensorType* out, std::string* error) {
  Program scratch;
  Parser parser(text, scratch);
  TensorType t = parser.parse_type_only();
  if (!parser.failed()) {
    *out = std::move(t);
    return true;
  }
  if (error) *error = "error: " + escape_control_bytes(parser.first_error().message);
  return false;
}

}  // namespace ptir
