// The term builder for index arithmetic: the one place where the algebraic identities on index terms
// live (docs/verification.md "Index terms"). Index maps (ir/index_map.h) evaluate over it in the bounded
// encoder (verify/encode/index_exec.cpp, domain enc::TermDomain); an all-shape encoder can evaluate the
// same maps over it in Int mode (the all-shape engine, verify/allshape, still builds its index terms with
// Expr::iadd & co and is to be moved onto this builder).
//
// A value is a known integer (or truth value), or a term with bounds. Every operation folds known
// operands, decides comparisons that the bounds decide, and keeps a term as sign * base + offset so that
// offsets cancel before Z3 sees them: (c + 3) == 5 is built as c == 2, (c + 3) - (c + 1) is 2, and
// clamp(s, 0, hi) + i == k as clamp(s, 0, hi) == k - i. Two modes:
//  - BV66: 66-bit two's-complement bit-vectors, which hold every si64 and ui64 element and every sum of a
//    few of them exactly (the bounded encoder's index terms: an element read as an index is sign- or
//    zero-extended to 66 bits);
//  - Int: mathematical integers (symbolic sizes and attributes).
// Bounds are int64 with INT64_MIN / INT64_MAX meaning unbounded; they only decide what they imply (a
// comparison, a min/max/clamp, a quotient they fix) or drop an impossible candidate. In BV66 mode every
// unknown value also carries a magnitude bound (|value| < 2^mag): an operation whose result might not
// fit 66 bits throws std::overflow_error instead of building a term that would wrap (an encoding error:
// UNKNOWN, never a wrong answer). An unbounded term given to term() is taken to be element-sized
// (|value| < 2^64), as every index element is.
#pragma once
#include <cstdint>
#include <optional>

#include "verify/smt/expr.h"

namespace ptir::smt {

/// An index value or a condition on index values.
struct ITerm {
  bool is_bool = false;
  std::optional<int64_t> known;  ///< the value (a condition: 0 or 1) when known
  Expr base;                     ///< unknown: value = sign * base + offset (a condition: base itself)
  int sign = 1;
  int64_t offset = 0;
  int64_t lo = INT64_MIN, hi = INT64_MAX;  ///< bounds of the value (unknown integers)
  int mag = 64;  ///< |value| < 2^mag (unknown integers): a BV66 term is exact only while mag <= 65

  bool is_known() const { return known.has_value(); }
  bool is_true() const { return known && *known != 0; }
  bool is_false() const { return known && *known == 0; }
};

class IndexTerms {
 public:
  enum class Mode : uint8_t { BV66, Int };
  explicit IndexTerms(Mode m = Mode::BV66) : mode_(m) {}
  Mode mode() const { return mode_; }

  // ---- leaves ----
  ITerm num(int64_t v) const;
  ITerm truth(bool b) const;
  /// An index term of this mode's sort whose value lies in [lo, hi].
  ITerm term(const Expr& e, int64_t lo = INT64_MIN, int64_t hi = INT64_MAX) const;
  /// A Boolean term.
  ITerm cond(const Expr& b) const;
  /// An integer element (bit-vector of `width` bits) read as an index: BV66 sign- or zero-extends it,
  /// bounds from its range. (Int mode: bv2int is not offered; an error.)
  ITerm element(const Expr& e, unsigned width, bool is_signed) const;

  /// The SMT term of a value (a numeral when known; a condition is Bool).
  Expr expr(const ITerm& t) const;
  /// The numeral k of this mode's sort.
  Expr numeral(int64_t k) const;

  // ---- integers ----
  ITerm add(const ITerm& a, const ITerm& b) const;
  ITerm sub(const ITerm& a, const ITerm& b) const;
  ITerm mul(const ITerm& a, const ITerm& b) const;
  ITerm floordiv(const ITerm& a, const ITerm& b) const;  ///< floor, b > 0
  ITerm mod(const ITerm& a, const ITerm& b) const;       ///< 0 <= r < b, b > 0
  ITerm min(const ITerm& a, const ITerm& b) const;
  ITerm max(const ITerm& a, const ITerm& b) const;
  /// x < lo ? lo : (hi < x ? hi : x), for lo <= hi.
  ITerm clamp(const ITerm& x, const ITerm& lo, const ITerm& hi) const;
  ITerm select(const ITerm& c, const ITerm& t, const ITerm& e) const;

  // ---- conditions ----
  ITerm lt(const ITerm& a, const ITerm& b) const;
  ITerm le(const ITerm& a, const ITerm& b) const;
  ITerm eq(const ITerm& a, const ITerm& b) const;
  ITerm ne(const ITerm& a, const ITerm& b) const { return not_(eq(a, b)); }
  ITerm and_(const ITerm& a, const ITerm& b) const;
  ITerm or_(const ITerm& a, const ITerm& b) const;
  ITerm not_(const ITerm& a) const;

 private:
  /// sign * base (no offset) as a term.
  Expr scaled(const ITerm& t) const;
  ITerm linear(const Expr& base, int sign, int64_t offset, int64_t lo, int64_t hi, int mag) const;
  /// Records |value| < 2^mag (tightened by finite bounds); in BV66 throws std::overflow_error past 65.
  ITerm sized(ITerm t, int mag) const;
  /// Throws (BV66) when a value with these bounds could need more than 66 bits.
  void guard(int mag, int64_t lo = INT64_MIN, int64_t hi = INT64_MAX) const;
  Expr lt_expr(const Expr& a, const Expr& b) const;
  Expr le_expr(const Expr& a, const Expr& b) const;

  Mode mode_;
};

}  // namespace ptir::smt
