// The index-term builder (verify/smt/index_terms.h).
#include "verify/smt/index_terms.h"

#include <algorithm>
#include <stdexcept>

namespace ptir::smt {
namespace {

constexpr int64_t kMin = INT64_MIN, kMax = INT64_MAX;

/// a + b, saturating at the "unbounded" markers (an unbounded side stays unbounded).
int64_t bound_add(int64_t a, int64_t b, bool upper) {
  const int64_t inf = upper ? kMax : kMin;
  if (a == inf || b == inf) return inf;
  const __int128 s = static_cast<__int128>(a) + b;
  if (s >= kMax) return kMax;
  if (s <= kMin) return kMin;
  return static_cast<int64_t>(s);
}
int64_t neg_bound(int64_t v) { return v == kMin ? kMax : v == kMax ? kMin : -v; }
/// The bounds of k * [lo, hi].
void bound_mul(int64_t lo, int64_t hi, int64_t k, int64_t& rlo, int64_t& rhi) {
  auto one = [&](int64_t v) -> __int128 {
    if (v == kMin || v == kMax) return (v == kMax) == (k > 0) ? static_cast<__int128>(kMax) * 2 : static_cast<__int128>(kMin) * 2;
    return static_cast<__int128>(v) * k;
  };
  __int128 a = one(lo), b = one(hi);
  if (a > b) std::swap(a, b);
  rlo = a <= kMin ? kMin : a >= kMax ? kMax : static_cast<int64_t>(a);
  rhi = b >= kMax ? kMax : b <= kMin ? kMin : static_cast<int64_t>(b);
}
bool finite_lo(int64_t v) { return v != kMin; }
bool finite_hi(int64_t v) { return v != kMax; }
int64_t floor_div(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}
/// Bits of |v| (v = INT64_MIN: 64).
int bits_of(int64_t v) {
  const uint64_t m = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  return m == 0 ? 0 : 64 - __builtin_clzll(m);
}

}  // namespace

void IndexTerms::guard(int mag, int64_t lo, int64_t hi) const {
  if (finite_lo(lo) && finite_hi(hi)) mag = std::min(mag, std::max(bits_of(lo), bits_of(hi)));
  if (mode_ == Mode::BV66 && mag > 65) throw std::overflow_error("smt::IndexTerms: an index term might not fit 66 bits");
}

ITerm IndexTerms::sized(ITerm t, int mag) const {
  if (t.known) return t;
  if (finite_lo(t.lo) && finite_hi(t.hi)) mag = std::min(mag, std::max(bits_of(t.lo), bits_of(t.hi)));
  t.mag = mag;
  if (mode_ == Mode::BV66 && !t.is_bool && mag > 65)
    throw std::overflow_error("smt::IndexTerms: an index term might not fit 66 bits");
  return t;
}

ITerm IndexTerms::num(int64_t v) const {
  ITerm t;
  t.known = v;
  t.lo = t.hi = v;
  return t;
}

ITerm IndexTerms::truth(bool b) const {
  ITerm t;
  t.is_bool = true;
  t.known = b ? 1 : 0;
  t.lo = t.hi = *t.known;
  return t;
}

ITerm IndexTerms::term(const Expr& e, int64_t lo, int64_t hi) const {
  if (mode_ == Mode::Int) {
    if (auto v = e.intNumeral()) return num(*v);
  }
  ITerm t;
  t.base = e;
  t.lo = lo, t.hi = hi;
  if (finite_lo(lo) && finite_hi(hi) && lo == hi) return num(lo);
  return sized(t, 64);
}

ITerm IndexTerms::cond(const Expr& b) const {
  if (b.isTrue()) return truth(true);
  if (b.isFalse()) return truth(false);
  ITerm t;
  t.is_bool = true;
  t.base = b;
  t.lo = 0, t.hi = 1;
  return t;
}

ITerm IndexTerms::element(const Expr& e, unsigned width, bool is_signed) const {
  if (mode_ != Mode::BV66) throw std::logic_error("IndexTerms::element: only in BV66 mode");
  int64_t lo = 0, hi = kMax;
  if (is_signed) {
    lo = width >= 64 ? kMin : -(int64_t{1} << (width - 1));
    hi = width >= 64 ? kMax : (int64_t{1} << (width - 1)) - 1;
  } else if (width < 64) {
    hi = (int64_t{1} << width) - 1;
  }
  if (auto bits = e.numeral()) {  // a numeral element: a known index when it fits int64
    uint64_t v = *bits;
    if (width < 64) v &= (uint64_t{1} << width) - 1;
    if (is_signed) {
      const int64_t s = width >= 64 ? static_cast<int64_t>(v)
                                    : static_cast<int64_t>(v << (64 - width)) >> (64 - width);
      return num(s);
    }
    if (v <= static_cast<uint64_t>(kMax)) return num(static_cast<int64_t>(v));
  }
  const Expr x = is_signed ? e.sext(66 - width) : e.zext(66 - width);
  return sized(term(x, lo, hi), static_cast<int>(width));
}

Expr IndexTerms::numeral(int64_t k) const {
  if (mode_ == Mode::Int) return Expr::intVal(k);
  return Expr::bvInt(k < 0, k < 0 ? 0 - static_cast<uint64_t>(k) : static_cast<uint64_t>(k), 66);
}

Expr IndexTerms::scaled(const ITerm& t) const {
  if (t.sign == 1) return t.base;
  return mode_ == Mode::Int ? Expr::intVal(0).isub(t.base) : -t.base;
}

Expr IndexTerms::expr(const ITerm& t) const {
  if (t.known) return t.is_bool ? Expr::boolean(*t.known != 0) : numeral(*t.known);
  if (t.is_bool) return t.base;
  const Expr s = scaled(t);
  if (t.offset == 0) return s;
  return mode_ == Mode::Int ? s.iadd(Expr::intVal(t.offset)) : s + numeral(t.offset);
}

ITerm IndexTerms::linear(const Expr& base, int sign, int64_t offset, int64_t lo, int64_t hi, int mag) const {
  ITerm t;
  t.base = base;
  t.sign = sign;
  t.offset = offset;
  t.lo = lo, t.hi = hi;
  if (finite_lo(lo) && finite_hi(hi) && lo == hi) return num(lo);
  return sized(t, mag);
}

Expr IndexTerms::lt_expr(const Expr& a, const Expr& b) const { return mode_ == Mode::Int ? a.ilt(b) : a.slt(b); }
Expr IndexTerms::le_expr(const Expr& a, const Expr& b) const { return mode_ == Mode::Int ? a.ile(b) : a.sle(b); }

// ---- integers ----

ITerm IndexTerms::add(const ITerm& a, const ITerm& b) const {
  int64_t s;
  if (a.known && b.known && !__builtin_add_overflow(*a.known, *b.known, &s)) return num(s);
  const int64_t lo = bound_add(a.lo, b.lo, false), hi = bound_add(a.hi, b.hi, true);
  const int mag = std::max(a.known ? bits_of(*a.known) : a.mag, b.known ? bits_of(*b.known) : b.mag) + 1;
  if (b.known && !a.known && !__builtin_add_overflow(a.offset, *b.known, &s)) return linear(a.base, a.sign, s, lo, hi, mag);
  if (a.known && !b.known && !__builtin_add_overflow(b.offset, *a.known, &s)) return linear(b.base, b.sign, s, lo, hi, mag);
  guard(mag, lo, hi);  // throws before building a term that could wrap
  const Expr x = expr(a), y = expr(b);
  return sized(term(mode_ == Mode::Int ? x.iadd(y) : x + y, lo, hi), mag);
}

ITerm IndexTerms::sub(const ITerm& a, const ITerm& b) const {
  int64_t s;
  if (a.known && b.known && !__builtin_sub_overflow(*a.known, *b.known, &s)) return num(s);
  const int64_t lo = bound_add(a.lo, neg_bound(b.hi), false), hi = bound_add(a.hi, neg_bound(b.lo), true);
  const int mag = std::max(a.known ? bits_of(*a.known) : a.mag, b.known ? bits_of(*b.known) : b.mag) + 1;
  if (b.known && !a.known && !__builtin_sub_overflow(a.offset, *b.known, &s)) return linear(a.base, a.sign, s, lo, hi, mag);
  if (a.known && !b.known && !__builtin_sub_overflow(*a.known, b.offset, &s)) return linear(b.base, -b.sign, s, lo, hi, mag);
  if (!a.known && !b.known && a.sign == b.sign && a.base.same(b.base) && !__builtin_sub_overflow(a.offset, b.offset, &s))
    return num(s);  // (x + p) - (x + q) = p - q
  guard(mag, lo, hi);
  const Expr x = expr(a), y = expr(b);
  return sized(term(mode_ == Mode::Int ? x.isub(y) : x - y, lo, hi), mag);
}

ITerm IndexTerms::mul(const ITerm& a, const ITerm& b) const {
  int64_t s;
  if (a.known && b.known && !__builtin_mul_overflow(*a.known, *b.known, &s)) return num(s);
  if (a.known || b.known) {
    const ITerm& x = a.known ? b : a;
    const int64_t k = a.known ? *a.known : *b.known;
    if (k == 0) return num(0);
    if (k == 1) return x;
    int64_t lo, hi;
    bound_mul(x.lo, x.hi, k, lo, hi);
    const int mag = x.mag + bits_of(k);
    if (k == -1 && x.offset != kMin) return linear(x.base, -x.sign, -x.offset, lo, hi, x.mag + 1);
    guard(mag, lo, hi);
    return sized(term(mode_ == Mode::Int ? expr(x).imul(numeral(k)) : expr(x) * numeral(k), lo, hi), mag);
  }
  guard(a.mag + b.mag);
  return sized(term(mode_ == Mode::Int ? expr(a).imul(expr(b)) : expr(a) * expr(b)), a.mag + b.mag);
}

ITerm IndexTerms::floordiv(const ITerm& a, const ITerm& b) const {
  if (b.known && *b.known > 0) {
    const int64_t d = *b.known;
    if (a.known) return num(floor_div(*a.known, d));
    if (d == 1) return a;
    if (finite_lo(a.lo) && finite_hi(a.hi) && floor_div(a.lo, d) == floor_div(a.hi, d)) return num(floor_div(a.lo, d));
    const int64_t lo = finite_lo(a.lo) ? floor_div(a.lo, d) : kMin, hi = finite_hi(a.hi) ? floor_div(a.hi, d) : kMax;
    const Expr x = expr(a);
    if (mode_ == Mode::Int) return sized(term(x.idiv(numeral(d)), lo, hi), a.mag);
    // floor(x / d) = trunc((x < 0 ? x - (d - 1) : x) / d) for d > 0 (x - (d - 1) needs one more bit).
    if (!(finite_lo(a.lo) && a.lo >= 0)) guard(std::max(a.mag, bits_of(d)) + 1);
    const Expr adj = finite_lo(a.lo) && a.lo >= 0 ? x : Expr::ite(x.slt(numeral(0)), x - numeral(d - 1), x);
    return sized(term(adj.sdiv(numeral(d)), lo, hi), a.mag);
  }
  const Expr x = expr(a), y = expr(b);
  if (mode_ == Mode::Int) return sized(term(x.idiv(y)), a.mag);
  guard(std::max(a.mag, b.mag) + 1);
  const Expr adj = Expr::ite(x.slt(numeral(0)), x - (y - numeral(1)), x);
  return sized(term(adj.sdiv(y)), a.mag);
}

ITerm IndexTerms::mod(const ITerm& a, const ITerm& b) const {
  if (b.known && *b.known > 0) {
    const int64_t d = *b.known;
    if (a.known) return num(*a.known - floor_div(*a.known, d) * d);
    if (d == 1) return num(0);
    if (finite_lo(a.lo) && finite_hi(a.hi) && floor_div(a.lo, d) == floor_div(a.hi, d))
      return sub(a, num(floor_div(a.lo, d) * d));  // one quotient: a linear term
    if (mode_ == Mode::Int) return sized(term(expr(a).imod(numeral(d)), 0, d - 1), bits_of(d));
    // x - d * floor(x / d): |d * floor(x / d)| <= |x| + d, so the product fits where x and d do.
    const ITerm q = floordiv(a, b);
    guard(std::max(a.mag, bits_of(d)) + 1);
    return sized(term(expr(a) - expr(q) * numeral(d), 0, d - 1), bits_of(d));
  }
  // a - b * floor(a / b)
  const ITerm q = floordiv(a, b);
  ITerm r = sub(a, mul(b, q));
  if (b.known && *b.known > 0) r.lo = std::max<int64_t>(r.lo, 0), r.hi = std::min<int64_t>(r.hi, *b.known - 1);
  return r;
}

ITerm IndexTerms::min(const ITerm& a, const ITerm& b) const {
  if (finite_hi(a.hi) && finite_lo(b.lo) && a.hi <= b.lo) return a;
  if (finite_hi(b.hi) && finite_lo(a.lo) && b.hi <= a.lo) return b;
  const Expr x = expr(a), y = expr(b);
  return sized(term(Expr::ite(lt_expr(x, y), x, y), std::min(a.lo, b.lo), std::min(a.hi, b.hi)), std::max(a.mag, b.mag));
}

ITerm IndexTerms::max(const ITerm& a, const ITerm& b) const {
  if (finite_hi(a.hi) && finite_lo(b.lo) && a.hi <= b.lo) return b;
  if (finite_hi(b.hi) && finite_lo(a.lo) && b.hi <= a.lo) return a;
  const Expr x = expr(a), y = expr(b);
  return sized(term(Expr::ite(lt_expr(x, y), y, x), std::max(a.lo, b.lo), std::max(a.hi, b.hi)), std::max(a.mag, b.mag));
}

ITerm IndexTerms::clamp(const ITerm& x, const ITerm& lo, const ITerm& hi) const {
  if (x.known && lo.known && hi.known) {
    const int64_t v = *x.known;
    return num(v < *lo.known ? *lo.known : (*hi.known < v ? *hi.known : v));
  }
  if (lo.known && hi.known) {
    const int64_t l = *lo.known, h = *hi.known;
    const bool above = finite_lo(x.lo) && x.lo >= l, below = finite_hi(x.hi) && x.hi <= h;
    if (above && below) return x;
    const int64_t rlo = std::clamp(x.lo, l, h), rhi = std::clamp(x.hi, l, h);
    const Expr e = expr(x), L = numeral(l), H = numeral(h);
    const int mag = std::max({x.mag, bits_of(l), bits_of(h)});
    if (above) return sized(term(Expr::ite(lt_expr(H, e), H, e), rlo, rhi), mag);
    if (below) return sized(term(Expr::ite(lt_expr(e, L), L, e), rlo, rhi), mag);
    // Spelled as the encoder always spelled a clamped start: x < lo ? lo : (hi < x ? hi : x).
    return sized(term(Expr::ite(lt_expr(e, L), L, Expr::ite(lt_expr(H, e), H, e)), rlo, rhi), mag);
  }
  const Expr e = expr(x), L = expr(lo), H = expr(hi);
  const int mag = std::max({x.mag, lo.known ? bits_of(*lo.known) : lo.mag, hi.known ? bits_of(*hi.known) : hi.mag});
  return sized(term(Expr::ite(lt_expr(e, L), L, Expr::ite(lt_expr(H, e), H, e)), lo.lo, hi.hi), mag);
}

ITerm IndexTerms::select(const ITerm& c, const ITerm& t, const ITerm& e) const {
  if (c.known) return *c.known ? t : e;
  if (t.known && e.known && *t.known == *e.known && t.is_bool == e.is_bool) return t;
  const Expr r = Expr::ite(expr(c), expr(t), expr(e));
  if (t.is_bool) return cond(r);
  return sized(term(r, std::min(t.lo, e.lo), std::max(t.hi, e.hi)),
               std::max(t.known ? bits_of(*t.known) : t.mag, e.known ? bits_of(*e.known) : e.mag));
}

// ---- conditions ----

ITerm IndexTerms::lt(const ITerm& a, const ITerm& b) const {
  if (a.known && b.known) return truth(*a.known < *b.known);
  if (finite_hi(a.hi) && finite_lo(b.lo) && a.hi < b.lo) return truth(true);
  if (finite_lo(a.lo) && finite_hi(b.hi) && a.lo >= b.hi) return truth(false);
  int64_t k;
  if (b.known && !__builtin_sub_overflow(*b.known, a.offset, &k)) {  // s*x + o < c
    if (a.sign == 1) return cond(lt_expr(a.base, numeral(k)));                    // x < c - o
    if (k != kMin) return cond(lt_expr(numeral(-k), a.base));                     // o - c < x
  }
  if (a.known && !__builtin_sub_overflow(*a.known, b.offset, &k)) {  // c < s*x + o
    if (b.sign == 1) return cond(lt_expr(numeral(k), b.base));                    // c - o < x
    if (k != kMin) return cond(lt_expr(b.base, numeral(-k)));                     // x < o - c
  }
  if (!a.known && !b.known && a.sign == b.sign && a.base.same(b.base)) return truth(a.offset < b.offset);
  return cond(lt_expr(expr(a), expr(b)));
}

ITerm IndexTerms::le(const ITerm& a, const ITerm& b) const {
  if (a.known && b.known) return truth(*a.known <= *b.known);
  if (finite_hi(a.hi) && finite_lo(b.lo) && a.hi <= b.lo) return truth(true);
  if (finite_lo(a.lo) && finite_hi(b.hi) && a.lo > b.hi) return truth(false);
  int64_t k;
  if (b.known && !__builtin_sub_overflow(*b.known, a.offset, &k)) {  // s*x + o <= c
    if (a.sign == 1) return cond(le_expr(a.base, numeral(k)));
    if (k != kMin) return cond(le_expr(numeral(-k), a.base));
  }
  if (a.known && !__builtin_sub_overflow(*a.known, b.offset, &k)) {  // c <= s*x + o
    if (b.sign == 1) return cond(le_expr(numeral(k), b.base));
    if (k != kMin) return cond(le_expr(b.base, numeral(-k)));
  }
  if (!a.known && !b.known && a.sign == b.sign && a.base.same(b.base)) return truth(a.offset <= b.offset);
  return cond(le_expr(expr(a), expr(b)));
}

ITerm IndexTerms::eq(const ITerm& a, const ITerm& b) const {
  if (a.is_bool || b.is_bool) {
    if (a.known && b.known) return truth((*a.known != 0) == (*b.known != 0));
    return cond(expr(a) == expr(b));
  }
  if (a.known && b.known) return truth(*a.known == *b.known);
  if ((finite_hi(a.hi) && finite_lo(b.lo) && a.hi < b.lo) || (finite_hi(b.hi) && finite_lo(a.lo) && b.hi < a.lo))
    return truth(false);
  int64_t k;
  const ITerm& x = a.known ? b : a;
  if (a.known || b.known) {
    const int64_t c = a.known ? *a.known : *b.known;
    if (!__builtin_sub_overflow(c, x.offset, &k) && (x.sign == 1 || k != kMin))
      return cond(x.base == numeral(x.sign == 1 ? k : -k));  // s*x + o == c  <=>  x == s*(c - o)
  }
  if (!a.known && !b.known && a.sign == b.sign && a.base.same(b.base)) return truth(a.offset == b.offset);
  return cond(expr(a) == expr(b));
}

ITerm IndexTerms::and_(const ITerm& a, const ITerm& b) const {
  if (a.is_false() || b.is_false()) return truth(false);
  if (a.is_true()) return b.known ? truth(*b.known != 0) : b;
  if (b.is_true()) return a.known ? truth(*a.known != 0) : a;
  return cond(expr(a) && expr(b));
}

ITerm IndexTerms::or_(const ITerm& a, const ITerm& b) const {
  if (a.is_true() || b.is_true()) return truth(true);
  if (a.is_false()) return b.known ? truth(*b.known != 0) : b;
  if (b.is_false()) return a.known ? truth(*a.known != 0) : a;
  return cond(expr(a) || expr(b));
}

ITerm IndexTerms::not_(const ITerm& a) const {
  if (a.known) return truth(*a.known == 0);
  return cond(!expr(a));
}

}  // namespace ptir::smt
