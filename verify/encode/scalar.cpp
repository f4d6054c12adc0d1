// Element semantics in SMT (docs/semantics.md "Elementwise ops", "cast", "Reductions").
#include "verify/encode/scalar.h"

#include "rewriter/rules/natives.h"

#include <algorithm>
#include <span>
#include <stdexcept>
#include <vector>

namespace ptir::verify::sem {
namespace {

bool is_bool(DType t) { return t == DType::I1; }
unsigned width(DType t) { return static_cast<unsigned>(dtype_bits(t)); }

/// An integer element widened to a 66-bit signed value (enough for every si64 and ui64 value).
Expr wide(const Expr& a, DType t) {
  return is_signed_int(t) ? a.sext(66 - width(t)) : a.zext(66 - width(t));
}
Expr wide_const(int64_t v) { return Expr::bv(static_cast<uint64_t>(v), 64).sext(2); }
Expr wide_const_u(uint64_t v) { return Expr::bv(v, 64).zext(2); }

/// Integer a < b by the dtype's signedness.
Expr int_lt(const Expr& a, const Expr& b, DType t) { return is_signed_int(t) ? a.slt(b) : a.ult(b); }

/// The float 2^k in format `t`, +inf when 2^k is beyond its range.
Expr pow2(DType t, int k) { return constant(t, round_to_float(t, false, 1, k)); }

/// Truncates toward zero, then saturates; NaN gives 0 (as ir/interp/cast.cpp float_to_int).
Expr float_to_int(const Expr& x, DType from, DType to) {
  // Z3 4.8.12 fails to bit-blast fp.to_sbv/fp.to_ubv from some 16-bit formats ("invalid zero_extend
  // application"); widening to f32 first is exact (every bf16 and f16 value, inf and NaN included, is an
  // f32 value), so the result is the same.
  if (from == DType::BF16 || from == DType::F16) return float_to_int(x.toFP(fp_format(DType::F32)), DType::F32, to);
  const bool sgn = is_signed_int(to);
  const int w = sgn ? dtype_bits(to) - 1 : dtype_bits(to);
  const smt::FPFormat f = x.format();
  const Expr t = x.roundTowardZero();  // exact; +-inf stays
  const Expr limit = pow2(from, w);    // 2^w, the first value past MAX (+inf if not representable)
  const Expr max = Expr::bv(int_max_bits(to), width(to));
  const Expr min = Expr::bv(static_cast<uint64_t>(int_min(to)), width(to));
  const Expr zero_bv = Expr::bv(0, width(to));
  Expr in_range = sgn ? t.toSBV(width(to)) : t.toUBV(width(to));
  Expr neg_side = sgn ? Expr::ite(t.fle(-limit), min, in_range) : zero_bv;
  Expr r = Expr::ite(limit.fle(t), max, Expr::ite(t.flt(Expr::zero(f, false)), neg_side, in_range));
  return Expr::ite(x.isNaN(), zero_bv, r);
}

Expr int_to_int(const Expr& a, DType from, DType to) {
  const Expr v = wide(a, from);
  const Expr lo = wide_const(int_min(to));
  const Expr hi = is_signed_int(to) || dtype_bits(to) < 64 ? wide_const(static_cast<int64_t>(int_max_bits(to)))
                                                           : wide_const_u(int_max_bits(to));
  const Expr r = Expr::ite(v.slt(lo), lo, Expr::ite(hi.slt(v), hi, v));
  return r.extract(width(to) - 1, 0);
}

}  // namespace

smt::FPFormat fp_format(DType t) {
  const DTypeInfo& i = dtype_info(t);
  return {i.exp_bits, static_cast<unsigned>(i.frac_bits) + 1};
}

smt::Sort sort_of(DType t) {
  if (is_bool(t)) return smt::Sort::boolean();
  if (is_float(t)) return smt::Sort::floating(fp_format(t));
  return smt::Sort::bv(width(t));
}

Expr constant(DType t, uint64_t bits) {
  if (is_bool(t)) return Expr::boolean(bits & 1);
  if (is_float(t)) return Expr::fpBits(bits & bits_mask(t), fp_format(t));
  return Expr::bv(bits & bits_mask(t), width(t));
}

Expr integer(DType t, int64_t v) {
  if (is_bool(t)) return Expr::boolean(v != 0);
  if (is_float(t)) return constant(t, round_to_float(t, v < 0, v < 0 ? 0 - static_cast<uint64_t>(v) : v, 0));
  return Expr::bv(static_cast<uint64_t>(v), width(t));
}

Expr zero(DType t) { return constant(t, 0); }

Expr lowest(DType t) {
  if (is_float(t)) return Expr::inf(fp_format(t), true);
  return constant(t, static_cast<uint64_t>(int_min(t)));
}
Expr highest(DType t) {
  if (is_float(t)) return Expr::inf(fp_format(t), false);
  return constant(t, int_max_bits(t));
}

// i1 arithmetic is arithmetic mod 2 (the verifier rejects it; the interpreter computes it so).
Expr add(const Expr& a, const Expr& b, DType t) { return is_bool(t) ? a != b : a + b; }
Expr sub(const Expr& a, const Expr& b, DType t) { return is_bool(t) ? a != b : a - b; }
Expr mul(const Expr& a, const Expr& b, DType t) { return is_bool(t) ? a && b : a * b; }

Value div(const Expr& a, const Expr& b, DType t) {
  if (is_float(t)) return {a / b, Expr::boolean(false)};
  if (is_bool(t)) return {a, !b};
  const Expr by_zero = b == zero(t);
  if (!is_signed_int(t)) return {a.udiv(b), by_zero};
  const Expr overflow = a == lowest(t) && b == integer(t, -1);
  return {a.sdiv(b), by_zero || overflow};
}

Expr neg(const Expr& a, DType t) { return is_bool(t) ? a : -a; }

Expr abs(const Expr& a, DType t) {
  if (is_float(t)) return a.abs();
  if (is_signed_int(t)) return Expr::ite(a.slt(zero(t)), -a, a);
  return a;
}

namespace {

Expr maximum2(const Expr& a0, const Expr& b0, DType t) {
  const bool swap = b0.id() < a0.id();  // commutative: order the operands
  const Expr& a = swap ? b0 : a0;
  const Expr& b = swap ? a0 : b0;
  if (is_bool(t)) return a || b;
  if (!is_float(t)) return Expr::ite(int_lt(a, b, t), b, a);
  // Equal values differ only as -0/+0: the non-negative one wins.
  Expr r = Expr::ite(a.flt(b), b, Expr::ite(b.flt(a), a, Expr::ite(a.isNeg(), b, a)));
  return Expr::ite(a.isNaN() || b.isNaN(), Expr::nan(a.format()), r);
}

Expr minimum2(const Expr& a0, const Expr& b0, DType t) {
  const bool swap = b0.id() < a0.id();
  const Expr& a = swap ? b0 : a0;
  const Expr& b = swap ? a0 : b0;
  if (is_bool(t)) return a && b;
  if (!is_float(t)) return Expr::ite(int_lt(b, a, t), b, a);
  Expr r = Expr::ite(a.flt(b), a, Expr::ite(b.flt(a), b, Expr::ite(a.isNeg(), a, b)));
  return Expr::ite(a.isNaN() || b.isNaN(), Expr::nan(a.format()), r);
}

// The lattice normal form (docs/verification.md "Speed without giving up exactness"): maximum and
// minimum in one dtype are each associative, commutative and idempotent on every input (a total order
// with -0 < +0 and NaN absorbing; integers and i1 by value), so a term that is the maximum of a set of
// leaves may be built from those leaves in any grouping and order, each once. Every maximum (minimum)
// term records its leaves; a maximum of such terms is built from the union of their leaves, distinct
// and in term-id order. Two programs that take the maximum of the same values in different groupings
// (a chain of reductions and the merged one; max(max(x, y), y) and max(x, y)) then give the same term,
// and Z3 sees the equality without bit-blasting a reordering. Checked against the interpreter and
// against the encoding without it (tests/verify/lattice_normal_form_test.cpp, encode_agreement_test.cpp).
thread_local bool tl_lattice_normal_form = true;

uint32_t lattice_tag(Fold k, DType t) { return 0x10000u | (static_cast<uint32_t>(k) << 8) | static_cast<uint32_t>(t); }

/// Leaves a two-operand maximum/minimum flattens at most: chains built one element at a time (windows,
/// scatters, segments) cost time quadratic in their leaves; an n-ary fold (Folder::fold_all) takes up to
/// kMaxFoldLeaves at once. Past the cap a term is built in the given order and records nothing.
constexpr size_t kMaxPairLeaves = 64;
constexpr size_t kMaxFoldLeaves = 4096;

Expr lattice(Fold k, std::span<const Expr> xs, DType t, size_t cap) {
  auto two = [&](const Expr& a, const Expr& b) { return k == Fold::Max ? maximum2(a, b, t) : minimum2(a, b, t); };
  auto in_order = [&] {
    Expr r = xs[0];
    for (size_t i = 1; i < xs.size(); ++i) r = two(r, xs[i]);
    return r;
  };
  if (!tl_lattice_normal_form) return in_order();
  const uint32_t tag = lattice_tag(k, t);
  std::vector<Expr> leaves;
  for (const Expr& x : xs) {
    std::vector<Expr> l = x.leaves(tag);
    if (l.empty()) {
      leaves.push_back(x);
    } else {
      leaves.insert(leaves.end(), std::make_move_iterator(l.begin()), std::make_move_iterator(l.end()));
    }
    if (leaves.size() > cap) return in_order();
  }
  std::sort(leaves.begin(), leaves.end(), [](const Expr& a, const Expr& b) { return a.id() < b.id(); });
  leaves.erase(std::unique(leaves.begin(), leaves.end(), [](const Expr& a, const Expr& b) { return a.same(b); }),
               leaves.end());
  Expr r = leaves[0];
  for (size_t i = 1; i < leaves.size(); ++i) r = two(r, leaves[i]);
  if (leaves.size() >= 2) r.setLeaves(leaves, tag);
  return r;
}

}  // namespace

LatticeNormalFormOff::LatticeNormalFormOff() : saved_(tl_lattice_normal_form) { tl_lattice_normal_form = false; }
LatticeNormalFormOff::~LatticeNormalFormOff() { tl_lattice_normal_form = saved_; }

Expr maximum(const Expr& a, const Expr& b, DType t) {
  const Expr xs[] = {a, b};
  return lattice(Fold::Max, xs, t, kMaxPairLeaves);
}

Expr minimum(const Expr& a, const Expr& b, DType t) {
  const Expr xs[] = {a, b};
  return lattice(Fold::Min, xs, t, kMaxPairLeaves);
}

Expr compare(std::string_view dir, const Expr& a, const Expr& b, DType t) {
  Expr lt, eq, gt;
  if (is_float(t)) {
    lt = a.flt(b), eq = a.feq(b), gt = b.flt(a);
  } else if (is_bool(t)) {
    lt = !a && b, eq = a == b, gt = a && !b;
  } else {
    lt = int_lt(a, b, t), eq = a == b, gt = int_lt(b, a, t);
  }
  if (dir == "lt") return lt;
  if (dir == "le") return is_float(t) ? a.fle(b) : !gt;
  if (dir == "eq") return eq;
  if (dir == "ge") return is_float(t) ? b.fle(a) : !lt;
  if (dir == "gt") return gt;
  if (dir == "ne") return !eq;
  return Expr();
}

namespace {
thread_local bool tl_exact_widening_identity = true;

Expr cast_terms(const Expr& a, DType from, DType to) {
  if (is_bool(to)) return is_float(from) ? !a.isZero() : a != zero(from);
  if (is_bool(from)) return Expr::ite(a, integer(to, 1), zero(to));
  if (is_float(from)) return is_float(to) ? a.toFP(fp_format(to)) : float_to_int(a, from, to);
  if (is_float(to)) return is_signed_int(from) ? a.sbvToFP(fp_format(to)) : a.ubvToFP(fp_format(to));
  return int_to_int(a, from, to);
}
uint32_t widening_tag(DType a, DType m) { return static_cast<uint32_t>(a) << 8 | static_cast<uint32_t>(m); }
}  // namespace

ExactWideningIdentityOff::ExactWideningIdentityOff() : saved_(tl_exact_widening_identity) {
  tl_exact_widening_identity = false;
}
ExactWideningIdentityOff::~ExactWideningIdentityOff() { tl_exact_widening_identity = saved_; }

Expr cast(const Expr& a, DType from, DType to) {
  if (from == to) return a;
  // The exact-widening identity (docs/verification.md "Speed without giving up exactness"): where `a` is
  // the cast of x from A to `from` and that cast is exact (rules::widens_exactly: it keeps every value,
  // NaN, the infinities and the zeros' signs), cast(a, from, to) = cast(x, A, to) bit for bit, since
  // every cast is a function of its operand's value (docs/semantics.md "cast"; NaN -> the canonical
  // NaN, or 0, or true). Checked against the interpreter (tests/verify/cast_widening_test.cpp).
  if (tl_exact_widening_identity)
    if (auto o = a.origin()) {
      const auto A = static_cast<DType>(o->second >> 8), M = static_cast<DType>(o->second & 0xff);
      if (M == from && rules::widens_exactly(A, M)) return cast(o->first, A, to);
    }
  Expr r = cast_terms(a, from, to);
  if (tl_exact_widening_identity && rules::widens_exactly(from, to)) r.setOrigin(a, widening_tag(from, to));
  return r;
}

Expr order_gt(const Expr& a, const Expr& b, DType t) {
  if (is_bool(t)) return a && !b;
  if (!is_float(t)) return int_lt(b, a, t);
  const Expr zeros = a.isZero() && b.isZero() && !a.isNeg() && b.isNeg();  // +0 > -0
  const Expr numbers = !a.isNaN() && !b.isNaN() && (b.flt(a) || zeros);
  return (a.isNaN() && !b.isNaN()) || numbers;
}

Expr order_eq(const Expr& a, const Expr& b, DType t) { return a == b; }


DType accum_of(const AttrSet& attrs, DType elem) {
  const AttrValue* v = attrs.find("accum");
  if (!v || v->kind != AttrKind::DType || v->ints.empty()) return default_accum(elem);
  return static_cast<DType>(v->ints[0]);
}

Expr Folder::combine(const Expr& a, const Expr& b) const {
  switch (kind) {
    case Fold::Sum: return add(a, b, acc);
    case Fold::Max: return maximum(a, b, acc);
    case Fold::Min: return minimum(a, b, acc);
  }
  throw std::logic_error("bad fold");
}

Expr Folder::fold_all(std::span<const Expr> xs) const {
  if (xs.empty()) return identity();
  if (kind == Fold::Sum) {
    Expr r = xs[0];
    for (size_t i = 1; i < xs.size(); ++i) r = add(r, xs[i], acc);
    return r;
  }
  return lattice(kind, xs, acc, kMaxFoldLeaves);
}

Expr Folder::identity() const {
  switch (kind) {
    case Fold::Sum: return zero(acc);
    case Fold::Max: return lowest(acc);
    case Fold::Min: return highest(acc);
  }
  throw std::logic_error("bad fold");
}

}  // namespace ptir::verify::sem
