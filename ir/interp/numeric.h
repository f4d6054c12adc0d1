// Exact element arithmetic shared by the interpreter kernels: float decode/encode (RNE, canonical NaN),
// IEEE 754-2019 maximum/minimum, saturating casts, and the fold used by every reduction.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

#include "ir/dtype.h"

namespace ptir::interp {

/// f16 bits -> float, exactly.
inline float f16_to_float(uint64_t b) {
  uint32_t sign = static_cast<uint32_t>(b & 0x8000) << 16;
  uint32_t e = (b >> 10) & 31, m = b & 0x3FF, u;
  if (e == 0) {
    float f = static_cast<float>(m) * 0x1p-24f;  // subnormal or zero: m * 2^-24, exact
    return sign ? -f : f;
  }
  u = e == 31 ? (sign | 0x7F800000u | (m << 13)) : (sign | ((e + 112) << 23) | (m << 13));
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// Exact value of a float element of dtype `t` (NaN payloads are not kept).
inline double load_f(DType t, uint64_t b) {
  switch (t) {
    case DType::F64: { double d; std::memcpy(&d, &b, 8); return d; }
    case DType::F32: { uint32_t u = static_cast<uint32_t>(b); float f; std::memcpy(&f, &u, 4); return f; }
    case DType::BF16: { uint32_t u = static_cast<uint32_t>(b & 0xFFFF) << 16; float f; std::memcpy(&f, &u, 4); return f; }
    case DType::F16: return f16_to_float(b);
    case DType::I1: case DType::SI8: case DType::UI8: case DType::SI16: case DType::UI16:
    case DType::SI32: case DType::UI32: case DType::SI64: case DType::UI64: break;
  }
  return float_to_double(t, b);
}

/// `v` rounded (RNE) to f32 by the host conversion; magnitudes beyond the f32 range, where a C++ cast
/// would be undefined, go through the exact encoder (giving the largest finite or infinity).
inline float narrow_f32(double v) {
  if (std::fabs(v) > 3.4028234663852886e38) {
    uint32_t u = static_cast<uint32_t>(double_to_float(DType::F32, v));
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
  return static_cast<float>(v);
}

/// Rounds `v` once (RNE) to float dtype `t`; any NaN becomes the canonical NaN.
inline uint64_t store_f(DType t, double v) {
  if (std::isnan(v)) return canonical_nan(t);
  if (t == DType::F64) { uint64_t b; std::memcpy(&b, &v, 8); return b; }
  if (t == DType::F32) {
    float f = narrow_f32(v);  // RNE, subnormals kept
    uint32_t u; std::memcpy(&u, &f, 4); return u;
  }
  if (t == DType::F16) return detail::double_to_narrow<10, 5>(t, v);  // = double_to_float, inline
  if (t == DType::BF16) return detail::double_to_narrow<7, 8>(t, v);
  return double_to_float(t, v);
}

/// `v` rounded to float dtype `t`, as a double (NaN stays NaN).
inline double round_f(DType t, double v) {
  if (t == DType::F64) return v;
  if (t == DType::F32) return narrow_f32(v);
  return load_f(t, store_f(t, v));
}

/// IEEE 754-2019 maximum: NaN if either is NaN; maximum(-0, +0) = +0.
inline double max2019(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return NAN;
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
/// IEEE 754-2019 minimum: NaN if either is NaN; minimum(-0, +0) = -0.
inline double min2019(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return NAN;
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

/// a < b for integer (or i1) elements of dtype `t`, signed or unsigned by dtype.
inline bool int_less(DType t, uint64_t a, uint64_t b) {
  if (is_signed_int(t)) return int_value(t, a) < int_value(t, b);
  return (a & bits_mask(t)) < (b & bits_mask(t));
}

/// A key whose unsigned order is the total order NaN > +inf > ... > +0 > -0 > ... > -inf (all NaNs
/// equal) for floats, and the value order for integers.
inline uint64_t order_key(DType t, uint64_t bits) {
  if (is_float(t)) {
    if (float_is_nan(t, bits)) return ~uint64_t{0};
    double d = load_f(t, bits);
    uint64_t u; std::memcpy(&u, &d, 8);
    return (u >> 63) ? ~u : (u | (uint64_t{1} << 63));
  }
  if (is_signed_int(t)) return static_cast<uint64_t>(int_value(t, bits)) ^ (uint64_t{1} << 63);
  return bits & bits_mask(t);
}

/// `cast` between two float dtypes on one element: the exact value rounded once (RNE); NaN -> canonical.
inline uint64_t cast_float_float(DType from, DType to, uint64_t bits) {
  return from == to ? bits : store_f(to, load_f(from, bits));
}

/// The `cast` op on one element (docs/semantics.md "cast"): RNE, saturating, NaN -> 0, i1 = x != 0.
uint64_t cast_elem(DType from, DType to, uint64_t bits);

/// How a reduction combines two values.
enum class Fold : uint8_t { Sum, Max, Min };

/// A value held in an accumulation dtype: floats exactly as a double, integers as their raw bits.
struct Num {
  double f = 0;
  uint64_t i = 0;
};

/// The left fold of reductions, dot_general, windows and segments, done in the accumulation dtype D:
/// elements are cast to D, combined there (each step rounded in D), and the result is cast back.
class Folder {
 public:
  Folder(Fold kind, DType acc) : kind_(kind), d_(acc), flt_(is_float(acc)) {}
  DType dtype() const { return d_; }

  /// Element `bits` of dtype `src`, cast to D.
  Num load(DType src, uint64_t bits) const {
    Num n;
    if (flt_) {
      if (src == d_) n.f = load_f(d_, bits);
      else if (is_float(src)) n.f = round_f(d_, load_f(src, bits));
      else n.f = load_f(d_, cast_elem(src, d_, bits));
    } else {
      n.i = src == d_ ? (bits & bits_mask(d_)) : cast_elem(src, d_, bits);
    }
    return n;
  }
  Num combine(Num a, Num b) const {
    Num r;
    if (flt_) {
      switch (kind_) {
        case Fold::Sum: r.f = round_f(d_, a.f + b.f); break;
        case Fold::Max: r.f = max2019(a.f, b.f); break;
        case Fold::Min: r.f = min2019(a.f, b.f); break;
      }
      return r;
    }
    switch (kind_) {
      case Fold::Sum: r.i = (a.i + b.i) & bits_mask(d_); break;
      case Fold::Max: r.i = int_less(d_, a.i, b.i) ? b.i : a.i; break;
      case Fold::Min: r.i = int_less(d_, b.i, a.i) ? b.i : a.i; break;
    }
    return r;
  }
  /// What an empty fold gives: +0 / -inf / +inf (integers 0 / MIN / MAX of D).
  Num identity() const {
    Num r;
    switch (kind_) {
      case Fold::Sum: break;
      case Fold::Max: r.f = -INFINITY; r.i = static_cast<uint64_t>(int_min(d_)) & bits_mask(d_); break;
      case Fold::Min: r.f = INFINITY; r.i = int_max_bits(d_); break;
    }
    return r;
  }
  /// The D value cast back to dtype `dst`.
  uint64_t store(Num v, DType dst) const {
    if (flt_) {
      if (is_float(dst)) return store_f(dst, v.f);  // one rounding of D's exact value, as cast D->dst
      return cast_elem(d_, dst, store_f(d_, v.f));
    }
    return dst == d_ ? v.i : cast_elem(d_, dst, v.i);
  }

 private:
  Fold kind_;
  DType d_;
  bool flt_;
};

// default_accum (the accumulation dtype of a sum without `accum`) is ptir::default_accum, ir/dtype.h.

/// splitmix64: mixes `x + 0x9E3779B97F4A7C15` with the standard finalizer (docs/semantics.md "Effects").
inline uint64_t splitmix64(uint64_t x) {
  uint64_t z = x + 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace ptir::interp
