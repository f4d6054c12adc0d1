// Element semantics in SMT, one function per rule of docs/semantics.md: arithmetic, IEEE 754-2019
// maximum/minimum, compare, cast, the total order of argmax/top_k, and the fold of every reduction.
// Elements are FloatingPoint terms for float dtypes, bit-vectors of the dtype's width for integers and
// Bool for i1. These mirror ir/interp/numeric.h and ir/interp/cast.cpp; the agreement test checks it.
#pragma once
#include <cstdint>
#include <span>
#include <string_view>

#include "ir/attrs.h"
#include "ir/dtype.h"
#include "verify/smt/expr.h"

namespace ptir::verify::sem {

using smt::Expr;

smt::FPFormat fp_format(DType t);
/// The SMT sort of one element of dtype `t`.
smt::Sort sort_of(DType t);

/// The element whose raw bits are `bits` (floats: every NaN pattern is the one SMT NaN).
Expr constant(DType t, uint64_t bits);
/// Integer value `v` in dtype `t` (two's complement, truncated to the width), or the float nearest to it.
Expr integer(DType t, int64_t v);
Expr zero(DType t);
/// The smallest / largest value: -inf/+inf for floats, MIN/MAX for integers, false/true for i1.
Expr lowest(DType t);
Expr highest(DType t);

/// A value and the condition under which computing it is undefined behaviour.
struct Value {
  Expr v;
  Expr ub;
};

Expr add(const Expr& a, const Expr& b, DType t);
Expr sub(const Expr& a, const Expr& b, DType t);
Expr mul(const Expr& a, const Expr& b, DType t);
/// Floats: IEEE. Integers: truncating; x/0 and MIN/-1 are UB.
Value div(const Expr& a, const Expr& b, DType t);
Expr neg(const Expr& a, DType t);
Expr abs(const Expr& a, DType t);
/// IEEE 754-2019: NaN if either is NaN; maximum(-0, +0) = +0 (commutative).
Expr maximum(const Expr& a, const Expr& b, DType t);
/// IEEE 754-2019: NaN if either is NaN; minimum(-0, +0) = -0 (commutative).
Expr minimum(const Expr& a, const Expr& b, DType t);
/// `compare dir[..]`: IEEE for floats (false with a NaN except `ne`), signed/unsigned by dtype, i1 0 < 1.
/// Returns nullopt-like invalid Expr for an unknown dir.
Expr compare(std::string_view dir, const Expr& a, const Expr& b, DType t);
/// The `cast` op on one element.
Expr cast(const Expr& a, DType from, DType to);
/// Turns the exact-widening identity of cast() off on this thread while it lives (the test that checks
/// the identity against the encoding without it).
class ExactWideningIdentityOff {
 public:
  ExactWideningIdentityOff();
  ~ExactWideningIdentityOff();
  ExactWideningIdentityOff(const ExactWideningIdentityOff&) = delete;
  ExactWideningIdentityOff& operator=(const ExactWideningIdentityOff&) = delete;

 private:
  bool saved_;
};

/// Turns the lattice normal form of maximum() and minimum() off on this thread while it lives (the test
/// that checks the normal form against the encoding without it; verify/encode/scalar.cpp).
class LatticeNormalFormOff {
 public:
  LatticeNormalFormOff();
  ~LatticeNormalFormOff();
  LatticeNormalFormOff(const LatticeNormalFormOff&) = delete;
  LatticeNormalFormOff& operator=(const LatticeNormalFormOff&) = delete;

 private:
  bool saved_;
};

/// a > b in the total order NaN > +inf > ... > +0 > -0 > ... > -inf (all NaNs equal) of argmax and
/// top_k; integers by value.
Expr order_gt(const Expr& a, const Expr& b, DType t);
/// a equals b in that order (NaNs equal each other, -0 differs from +0).
Expr order_eq(const Expr& a, const Expr& b, DType t);

/// How a reduction combines two values.
enum class Fold : uint8_t { Sum, Max, Min };

/// The accumulation dtype: `accum[D]` when present, else f32 for f16/bf16, else the element dtype.
DType accum_of(const AttrSet& attrs, DType elem);
using ptir::default_accum;  // ir/dtype.h: the one statement of the default

/// The left fold of reductions, dot_general, windows and segments, done in the accumulation dtype D:
/// elements are cast to D, combined there (each step rounded in D), and the result is cast back.
struct Folder {
  Fold kind;
  DType acc;
  Expr load(const Expr& x, DType src) const { return cast(x, src, acc); }
  Expr combine(const Expr& a, const Expr& b) const;
  /// The left fold of `xs` (already in D) from its first element; identity() when empty. Max and Min
  /// build the lattice normal form over all of xs at once (verify/encode/scalar.cpp).
  Expr fold_all(std::span<const Expr> xs) const;
  /// What an empty fold gives: +0 / -inf / +inf (integers 0 / MIN / MAX of D).
  Expr identity() const;
  Expr store(const Expr& v, DType dst) const { return cast(v, acc, dst); }
};

}  // namespace ptir::verify::sem
