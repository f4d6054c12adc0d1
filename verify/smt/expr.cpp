// The Expr value type over Z3's C API (Z3 4.8.12: rounding-mode arithmetic is C-API only).
#include <optional>
#include "verify/smt/expr.h"

#include <z3.h>

#include <algorithm>
#include <initializer_list>
#include <stdexcept>
#include <string>

namespace ptir::smt {
namespace {

thread_local Z3_context tl_ctx = nullptr;
thread_local Context* tl_obj = nullptr;

/// The current context, for making and inspecting terms.
Z3_context C() {
  if (!tl_ctx) throw std::logic_error("smt: no Z3 context on this thread");
  if (tl_obj && tl_obj->dead()) throw ContextAbandoned();
  return tl_ctx;
}

/// The current context for reference counting: nullptr when there is none or it is dead.
Z3_context RC() { return tl_ctx && !(tl_obj && tl_obj->dead()) ? tl_ctx : nullptr; }

/// Turns a pending Z3 error into an exception (the context has no error handler).
Z3_ast chk(Z3_ast a) {
  Z3_error_code e = Z3_get_error_code(C());
  if (e != Z3_OK) throw std::runtime_error(std::string("z3: ") + Z3_get_error_msg(C(), e));
  return a;
}

/// Checks an object a Z3 call returned before it is handed to another call: out of memory, Z3 returns
/// null with an error code, and a null argument crashes the next call.
template <typename T>
T chk_obj(T o) {
  Z3_error_code e = Z3_get_error_code(C());
  if (e != Z3_OK || !o) throw std::runtime_error(std::string("z3: ") + Z3_get_error_msg(C(), e));
  return o;
}

Z3_sort fp_sort(FPFormat f) { return chk_obj(Z3_mk_fpa_sort(C(), f.ebits, f.sbits)); }
Z3_sort bv_sort(unsigned w) { return chk_obj(Z3_mk_bv_sort(C(), w)); }

Z3_sort to_z3(const Sort& s) {
  switch (s.kind) {
    case Sort::Bool: return chk_obj(Z3_mk_bool_sort(C()));
    case Sort::BV: return bv_sort(s.width);
    case Sort::FP: return fp_sort(s.fp);
    case Sort::Int: return chk_obj(Z3_mk_int_sort(C()));
  }
  return nullptr;
}

Z3_ast rne() { return chk_obj(Z3_mk_fpa_rne(C())); }
Z3_ast rtz() { return chk_obj(Z3_mk_fpa_rtz(C())); }

/// A sort with a reference held. In a reference-counted context only the last result of an API call is
/// kept alive, so every object made before another call that makes one must be held like this.
struct SortRef {
  Z3_sort s;
  explicit SortRef(Z3_sort x) : s(x) { Z3_inc_ref(C(), Z3_sort_to_ast(C(), s)); }
  SortRef(const SortRef& o) : s(o.s) { Z3_inc_ref(C(), Z3_sort_to_ast(C(), s)); }
  SortRef& operator=(const SortRef&) = delete;
  ~SortRef() {
    if (Z3_context c = RC()) Z3_dec_ref(c, Z3_sort_to_ast(c, s));
  }
};

/// Which float constant a numeral is, for the exact identities below.
enum class FPConst : uint8_t { Other, PosZero, NegZero, One, MinusOne };
FPConst fp_const(const Expr& e) {
  if (!Z3_is_numeral_ast(C(), e.raw())) return FPConst::Other;
  const FPFormat f = e.format();
  const auto bits = e.numeral();
  if (!bits) return FPConst::Other;
  const uint64_t sign = uint64_t{1} << (f.ebits + f.sbits - 1);
  const uint64_t one = ((uint64_t{1} << (f.ebits - 1)) - 1) << (f.sbits - 1);
  if (*bits == 0) return FPConst::PosZero;
  if (*bits == sign) return FPConst::NegZero;
  if (*bits == one) return FPConst::One;
  if (*bits == (one | sign)) return FPConst::MinusOne;
  return FPConst::Other;
}

/// For the bits of a power of two 2^e (either sign) whose reciprocal 2^-e is finite and representable
/// (normal or subnormal) in format `f`: the bits of the reciprocal, with the same sign. Then x / 2^e and
/// x * 2^-e round the same real number, so they are equal for every x (zeros, infinities, NaN too).
std::optional<uint64_t> pow2_reciprocal(uint64_t bits, FPFormat f) {
  const unsigned fb = f.sbits - 1;
  const uint64_t fmask = (uint64_t{1} << fb) - 1, emask = (uint64_t{1} << f.ebits) - 1;
  const uint64_t sign = (bits >> (f.ebits + fb)) & 1;
  const uint64_t E = (bits >> fb) & emask, M = bits & fmask;
  const int64_t bias = (int64_t{1} << (f.ebits - 1)) - 1;
  int64_t e = 0;
  if (E == emask) return std::nullopt;  // inf, NaN
  if (E == 0) {
    if (M == 0 || (M & (M - 1)) != 0) return std::nullopt;
    e = (1 - bias) - static_cast<int64_t>(fb) + __builtin_ctzll(M);
  } else {
    if (M != 0) return std::nullopt;
    e = static_cast<int64_t>(E) - bias;
  }
  const int64_t r = -e;
  if (r > bias) return std::nullopt;  // the reciprocal overflows
  uint64_t out = 0;
  if (r >= 1 - bias) {
    out = static_cast<uint64_t>(r + bias) << fb;
  } else {
    const int64_t shift = r - ((1 - bias) - static_cast<int64_t>(fb));
    if (shift < 0) return std::nullopt;  // below the smallest subnormal
    out = uint64_t{1} << shift;
  }
  return out | (sign << (f.ebits + fb));
}

/// Whether a term is a value: a Bool, bit-vector or float literal (NaN, infinities and zeros included).
bool is_value(Z3_ast a) {
  if (Z3_is_numeral_ast(C(), a)) return true;
  if (Z3_get_ast_kind(C(), a) != Z3_APP_AST) return false;
  switch (Z3_get_decl_kind(C(), Z3_get_app_decl(C(), Z3_to_app(C(), a)))) {
    case Z3_OP_TRUE:
    case Z3_OP_FALSE:
    case Z3_OP_FPA_NUM:
    case Z3_OP_FPA_NAN:
    case Z3_OP_FPA_PLUS_INF:
    case Z3_OP_FPA_MINUS_INF:
    case Z3_OP_FPA_PLUS_ZERO:
    case Z3_OP_FPA_MINUS_ZERO: return true;
    default: return false;
  }
}

/// Term-level constant folding of float operations: an operation whose operands are all values is
/// evaluated at once by Z3's simplifier, whose rewriter computes IEEE operations exactly (mpf
/// arithmetic) with the semantics the solver gives the term; otherwise the solver would bit-blast
/// e.g. a division of two constants. Only for operations fully specified on every input (not
/// fp.to_sbv/fp.to_ubv out of range, not to_ieee_bv of NaN), so the value is the term's one meaning.
/// Bit-vector operations on numerals are left to Z3 (its preprocessing folds them for free, and
/// folding them here only renumbers terms, which costs the grouping of equal element queries).
Expr folded(Expr r, std::initializer_list<Z3_ast> args) {
  for (Z3_ast a : args)
    if (!is_value(a)) return r;
  return r.simplify();
}

/// Orders the operands of a commutative operation by term id (deterministic within a context).
std::pair<Z3_ast, Z3_ast> ordered(const Expr& a, const Expr& b) {
  return a.id() <= b.id() ? std::pair{a.raw(), b.raw()} : std::pair{b.raw(), a.raw()};
}

}  // namespace

Context::Context() : prev_(tl_ctx), prev_obj_(tl_obj) {
  if (take_pooled()) {
    tl_ctx = ctx_;
    tl_obj = this;
    return;
  }
  Z3_config cfg = Z3_mk_config();
  if (!cfg) throw std::runtime_error("z3: out of memory making a context");
  Z3_set_param_value(cfg, "model", "true");
  ctx_ = Z3_mk_context_rc(cfg);
  Z3_del_config(cfg);
  // Past Z3's memory cap (set_memory_limit_mb) there is no context: say so rather than crash.
  if (!ctx_) throw std::runtime_error("z3: out of memory making a context");
  Z3_set_error_handler(ctx_, nullptr);
  tl_ctx = ctx_;
  tl_obj = this;
}

Context::~Context() {
  if (give_to_pool()) {  // the pool has the Z3 context and the host now
    tl_ctx = prev_;
    tl_obj = prev_obj_;
    return;
  }
  stop_host();  // a dead context's host was handed to the reaper already
  tl_ctx = prev_;
  tl_obj = prev_obj_;
  if (!dead_) Z3_del_context(ctx_);  // else the abandoned host deletes it
}

Z3_context current() { return tl_ctx; }
Context* current_context() { return tl_obj; }
Z3_context live_context() { return RC(); }

// ---- reference counting ----
// In a dead context (see Context) reference counting does nothing: the abandoned check's thread owns
// the Z3 context and deletes it with every term.
Expr::Expr(const Expr& o) : a_(o.a_) {
  if (Z3_context c = RC(); a_ && c) Z3_inc_ref(c, a_);
}
Expr& Expr::operator=(const Expr& o) {
  if (Z3_context c = RC()) {
    if (o.a_) Z3_inc_ref(c, o.a_);
    if (a_) Z3_dec_ref(c, a_);
  }
  a_ = o.a_;
  return *this;
}
Expr& Expr::operator=(Expr&& o) noexcept {
  if (this != &o) {
    if (Z3_context c = RC(); a_ && c) Z3_dec_ref(c, a_);
    a_ = o.a_;
    o.a_ = nullptr;
  }
  return *this;
}
Expr::~Expr() {
  if (Z3_context c = RC(); a_ && c) Z3_dec_ref(c, a_);
}
Expr Expr::wrap(Z3_ast a) {
  Expr e;
  e.a_ = chk(a);
  Z3_inc_ref(C(), a);
  return e;
}

// ---- leaves ----
Expr Expr::boolean(bool b) { return wrap(b ? Z3_mk_true(C()) : Z3_mk_false(C())); }
Expr Expr::bv(uint64_t value, unsigned width) {
  if (width < 64) value &= (uint64_t{1} << width) - 1;
  return wrap(Z3_mk_unsigned_int64(C(), value, bv_sort(width)));
}
Expr Expr::bvInt(bool negative, uint64_t magnitude, unsigned width) {
  if (width > 127) throw std::logic_error("smt: bvInt is for widths up to 127");
  const unsigned __int128 mod = static_cast<unsigned __int128>(1) << width;
  unsigned __int128 v = static_cast<unsigned __int128>(magnitude) % mod;
  if (negative && v) v = mod - v;
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  } while (v);
  return wrap(Z3_mk_numeral(C(), digits.c_str(), bv_sort(width)));
}
Expr Expr::fpBits(uint64_t bits, FPFormat f) {
  return fromIEEE(bv(bits, f.ebits + f.sbits), f).simplify();
}
Expr Expr::nan(FPFormat f) { return wrap(Z3_mk_fpa_nan(C(), fp_sort(f))); }
Expr Expr::inf(FPFormat f, bool negative) { return wrap(Z3_mk_fpa_inf(C(), fp_sort(f), negative)); }
Expr Expr::zero(FPFormat f, bool negative) { return wrap(Z3_mk_fpa_zero(C(), fp_sort(f), negative)); }
/// A Z3 symbol that keeps every byte of `name`. Z3 takes C strings, so a NUL byte (which PTIR strings
/// may hold, written \x00) would cut the name and merge distinct keys into one symbol; bytes outside
/// printable ASCII and the backslash are written \xHH, which is injective.
static Z3_symbol symbol(std::string_view name) {
  std::string s;
  s.reserve(name.size());
  for (char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7F && c != '\\') {
      s += ch;
    } else {
      static const char* hex = "0123456789ABCDEF";
      s += "\\x";
      s += hex[c >> 4];
      s += hex[c & 15];
    }
  }
  return Z3_mk_string_symbol(C(), s.c_str());
}

Expr Expr::var(std::string_view name, Sort s) {
  const Z3_symbol sym = symbol(name);
  return wrap(Z3_mk_const(C(), sym, to_z3(s)));
}
Expr Expr::fromIEEE(const Expr& bits, FPFormat f) { return wrap(Z3_mk_fpa_to_fp_bv(C(), bits.a_, fp_sort(f))); }

// ---- sorts ----
Sort Expr::sort() const {
  Z3_sort s = Z3_get_sort(C(), a_);
  switch (Z3_get_sort_kind(C(), s)) {
    case Z3_BOOL_SORT: return Sort::boolean();
    case Z3_BV_SORT: return Sort::bv(Z3_get_bv_sort_size(C(), s));
    case Z3_FLOATING_POINT_SORT:
      return Sort::floating({Z3_fpa_get_ebits(C(), s), Z3_fpa_get_sbits(C(), s)});
    case Z3_INT_SORT: return Sort::integer();
    default: throw std::logic_error("smt: unexpected sort");
  }
}
bool Expr::isBool() const { return Z3_get_sort_kind(C(), Z3_get_sort(C(), a_)) == Z3_BOOL_SORT; }
bool Expr::isBV() const { return Z3_get_sort_kind(C(), Z3_get_sort(C(), a_)) == Z3_BV_SORT; }
bool Expr::isFP() const { return Z3_get_sort_kind(C(), Z3_get_sort(C(), a_)) == Z3_FLOATING_POINT_SORT; }
unsigned Expr::width() const { return Z3_get_bv_sort_size(C(), Z3_get_sort(C(), a_)); }
FPFormat Expr::format() const {
  Z3_sort s = Z3_get_sort(C(), a_);
  return {Z3_fpa_get_ebits(C(), s), Z3_fpa_get_sbits(C(), s)};
}

// ---- Boolean ----
Expr Expr::operator!() const {
  if (isTrue()) return boolean(false);
  if (isFalse()) return boolean(true);
  return wrap(Z3_mk_not(C(), a_));
}
Expr Expr::operator&&(const Expr& b) const {
  if (isFalse() || b.isTrue() || same(b)) return *this;
  if (b.isFalse() || isTrue()) return b;
  auto [x, y] = ordered(*this, b);
  Z3_ast args[2] = {x, y};
  return wrap(Z3_mk_and(C(), 2, args));
}
Expr Expr::operator||(const Expr& b) const {
  if (isTrue() || b.isFalse() || same(b)) return *this;
  if (b.isTrue() || isFalse()) return b;
  auto [x, y] = ordered(*this, b);
  Z3_ast args[2] = {x, y};
  return wrap(Z3_mk_or(C(), 2, args));
}
Expr Expr::implies(const Expr& b) const { return !*this || b; }
Expr Expr::ite(const Expr& c, const Expr& t, const Expr& e) {
  if (c.isTrue() || t.same(e)) return t;
  if (c.isFalse()) return e;
  return wrap(Z3_mk_ite(C(), c.a_, t.a_, e.a_));
}
Expr Expr::all(std::span<const Expr> xs) {
  Expr r = boolean(true);
  for (const Expr& x : xs) r = r && x;
  return r;
}
Expr Expr::any(std::span<const Expr> xs) {
  Expr r = boolean(false);
  for (const Expr& x : xs) r = r || x;
  return r;
}
Expr Expr::operator==(const Expr& b) const {
  if (same(b)) return boolean(true);
  // Bit-vector numerals are hash-consed by value: two distinct ones differ. (Not used for floats,
  // where distinct NaN numerals could still be the one SMT NaN.)
  if (isBV() && Z3_is_numeral_ast(C(), a_) && Z3_is_numeral_ast(C(), b.a_)) return boolean(false);
  auto [x, y] = ordered(*this, b);
  Expr e = wrap(Z3_mk_eq(C(), x, y));
  return isFP() ? folded(std::move(e), {x, y}) : e;
}

// ---- arithmetic ----
// Float builders apply a few exact IEEE identities (valid for every input, NaN, zeros and infinities
// included, under SMT's single NaN): x + -0 = x, x - +0 = x, -0 - x = -x, x * 1 = x, x * -1 = -x,
// x / 1 = x, x / -1 = -x, -(-x) = x. They turn common rewrites into equal terms without a solver.
Expr Expr::operator+(const Expr& b) const {
  if (isFP()) {
    if (fp_const(b) == FPConst::NegZero) return *this;
    if (fp_const(*this) == FPConst::NegZero) return b;
  }
  auto [x, y] = ordered(*this, b);
  if (isFP()) return folded(wrap(Z3_mk_fpa_add(C(), rne(), x, y)), {x, y});
  return wrap(Z3_mk_bvadd(C(), x, y));
}
Expr Expr::operator-(const Expr& b) const {
  if (isFP()) {
    if (fp_const(b) == FPConst::PosZero) return *this;
    if (fp_const(*this) == FPConst::NegZero) return -b;
    // x - x is +0 for every finite x (round to nearest) and NaN for NaN and infinities.
    if (a_ == b.a_ && !is_value(a_)) return ite(isNaN() || isInf(), nan(format()), zero(format(), false));
    return folded(wrap(Z3_mk_fpa_sub(C(), rne(), a_, b.a_)), {a_, b.a_});
  }
  return wrap(Z3_mk_bvsub(C(), a_, b.a_));
}
/// The operand of an fp.neg application, or null.
Z3_ast negated_operand(Z3_ast a) {
  if (Z3_get_ast_kind(C(), a) != Z3_APP_AST) return nullptr;
  Z3_app app = Z3_to_app(C(), a);
  return Z3_get_decl_kind(C(), Z3_get_app_decl(C(), app)) == Z3_OP_FPA_NEG ? Z3_get_app_arg(C(), app, 0) : nullptr;
}

/// The operand of an fp.abs application, or null.
Z3_ast abs_operand(Z3_ast a) {
  if (Z3_get_ast_kind(C(), a) != Z3_APP_AST) return nullptr;
  Z3_app app = Z3_to_app(C(), a);
  return Z3_get_decl_kind(C(), Z3_get_app_decl(C(), app)) == Z3_OP_FPA_ABS ? Z3_get_app_arg(C(), app, 0) : nullptr;
}

/// y when `a` is a bit-vector ite(c, -y, y) or ite(c, y, -y) (a value that is y or its negation), else null.
Z3_ast negation_choice_operand(Z3_ast a) {
  if (Z3_get_ast_kind(C(), a) != Z3_APP_AST) return nullptr;
  Z3_app app = Z3_to_app(C(), a);
  if (Z3_get_decl_kind(C(), Z3_get_app_decl(C(), app)) != Z3_OP_ITE) return nullptr;
  const Z3_ast t = Z3_get_app_arg(C(), app, 1), e = Z3_get_app_arg(C(), app, 2);
  auto negation_of = [](Z3_ast n, Z3_ast x) {
    if (Z3_get_ast_kind(C(), n) != Z3_APP_AST) return false;
    Z3_app na = Z3_to_app(C(), n);
    return Z3_get_decl_kind(C(), Z3_get_app_decl(C(), na)) == Z3_OP_BNEG && Z3_get_app_arg(C(), na, 0) == x;
  };
  if (negation_of(t, e)) return e;
  if (negation_of(e, t)) return t;
  return nullptr;
}

Expr Expr::operator*(const Expr& b) const {
  if (isFP()) {
    // Negations move out of a product: (-a) * b = a * (-b) = -(a * b). The product's sign is the XOR of
    // the operands' signs and round-to-nearest-even is symmetric in sign, so this is exact (NaN stays
    // NaN); (-a) * (-b) becomes -(-(a * b)) = a * b.
    if (Z3_ast na = negated_operand(a_)) return -(wrap(na) * b);
    if (Z3_ast nb = negated_operand(b.a_)) return -(*this * wrap(nb));
    // |a| * |a| = a * a: both products have the sign XOR of two equal signs (+) and the same
    // magnitude, rounded the same way; NaN stays NaN.
    if (a_ == b.a_)
      if (Z3_ast x = abs_operand(a_)) return wrap(x) * wrap(x);
    const FPConst cb = fp_const(b), ca = fp_const(*this);
    if (cb == FPConst::One) return *this;
    if (ca == FPConst::One) return b;
    if (cb == FPConst::MinusOne) return -*this;
    if (ca == FPConst::MinusOne) return -b;
  }
  // The same for a square of a signed integer's abs (`ite(c, -y, y)`, sem::abs): (-y) * (-y) = y * y
  // modulo 2^n, whichever branch c takes.
  if (isBV() && a_ == b.a_)
    if (Z3_ast y = negation_choice_operand(a_)) return wrap(y) * wrap(y);
  auto [x, y] = ordered(*this, b);
  if (isFP()) return folded(wrap(Z3_mk_fpa_mul(C(), rne(), x, y)), {x, y});
  return wrap(Z3_mk_bvmul(C(), x, y));
}
Expr Expr::operator/(const Expr& b) const {
  if (!isFP()) throw std::logic_error("smt: '/' is for floats; use sdiv/udiv");
  // (-a) / b = a / (-b) = -(a / b), for the same reason as the product.
  if (Z3_ast na = negated_operand(a_)) return -(wrap(na) / b);
  if (Z3_ast nb = negated_operand(b.a_)) return -(*this / wrap(nb));
  const FPConst cb = fp_const(b);
  if (cb == FPConst::One) return *this;
  if (cb == FPConst::MinusOne) return -*this;
  // A divisor the caller registered as a power of two with an exact reciprocal (Pow2Divisor).
  if (Context* cx = current_context(); cx && !cx->pow2_divisors.empty())
    for (Z3_ast d : cx->pow2_divisors)
      if (d == b.a_) return *this * pow2_reciprocal_term(b);
  // x / x is exactly 1 for every finite non-zero x, and NaN for zeros, infinities and NaN.
  if (a_ == b.a_ && !is_value(a_))
    return ite(isNaN() || isInf() || isZero(), nan(format()),
               fpBits(((uint64_t{1} << (format().ebits - 1)) - 1) << (format().sbits - 1), format()));
  // x / 2^k = x * 2^-k when 2^-k is representable: one canonical term for both spellings.
  if (Z3_is_numeral_ast(C(), b.a_) && !is_value(a_))
    if (auto bits = b.numeral())
      if (auto r = pow2_reciprocal(*bits, b.format())) return *this * Expr::fpBits(*r, b.format());
  return folded(wrap(Z3_mk_fpa_div(C(), rne(), a_, b.a_)), {a_, b.a_});
}
Expr Expr::operator-() const {
  if (isFP()) {
    if (Z3_get_ast_kind(C(), a_) == Z3_APP_AST) {
      Z3_app app = Z3_to_app(C(), a_);
      if (Z3_get_decl_kind(C(), Z3_get_app_decl(C(), app)) == Z3_OP_FPA_NEG) return wrap(Z3_get_app_arg(C(), app, 0));
    }
    return folded(wrap(Z3_mk_fpa_neg(C(), a_)), {a_});
  }
  return wrap(Z3_mk_bvneg(C(), a_));
}
// a / a is 1 for every a != 0 in both signed and unsigned division (INT_MIN / INT_MIN too); at a = 0
// the term keeps Z3's own value. The if-then-else is the same function, and saves bit-blasting a
// 64-bit divider to learn it.
Expr Expr::sdiv(const Expr& b) const {
  Expr d = wrap(Z3_mk_bvsdiv(C(), a_, b.a_));
  if (a_ != b.a_ || is_value(a_)) return d;
  const unsigned w = Z3_get_bv_sort_size(C(), Z3_get_sort(C(), a_));
  return ite(*this == bv(0, w), d, bv(1, w));
}
Expr Expr::udiv(const Expr& b) const {
  Expr d = wrap(Z3_mk_bvudiv(C(), a_, b.a_));
  if (a_ != b.a_ || is_value(a_)) return d;
  const unsigned w = Z3_get_bv_sort_size(C(), Z3_get_sort(C(), a_));
  return ite(*this == bv(0, w), d, bv(1, w));
}

// ---- bit-vectors ----
namespace {
/// A comparison of two numerals is folded at once, so constant indices select statically.
Expr fold_if_numerals(Z3_ast a, Z3_ast b, Z3_ast r) {
  Expr e = Expr::wrap(r);
  return Z3_is_numeral_ast(C(), a) && Z3_is_numeral_ast(C(), b) ? e.simplify() : e;
}
}  // namespace
Expr Expr::slt(const Expr& b) const { return fold_if_numerals(a_, b.a_, Z3_mk_bvslt(C(), a_, b.a_)); }
Expr Expr::sle(const Expr& b) const { return fold_if_numerals(a_, b.a_, Z3_mk_bvsle(C(), a_, b.a_)); }
Expr Expr::ult(const Expr& b) const { return fold_if_numerals(a_, b.a_, Z3_mk_bvult(C(), a_, b.a_)); }
Expr Expr::ule(const Expr& b) const { return fold_if_numerals(a_, b.a_, Z3_mk_bvule(C(), a_, b.a_)); }
Expr Expr::sext(unsigned extra) const {
  if (!extra) return *this;
  Expr e = wrap(Z3_mk_sign_ext(C(), extra, a_));
  return Z3_is_numeral_ast(C(), a_) ? e.simplify() : e;
}
Expr Expr::zext(unsigned extra) const {
  if (!extra) return *this;
  Expr e = wrap(Z3_mk_zero_ext(C(), extra, a_));
  return Z3_is_numeral_ast(C(), a_) ? e.simplify() : e;
}
Expr Expr::extract(unsigned hi, unsigned lo) const {
  if (lo == 0 && hi + 1 == width()) return *this;
  return wrap(Z3_mk_extract(C(), hi, lo, a_));
}

// ---- floats ----
// A negation changes only the sign: NaN, inf and zero are tested on its operand (one term for both).
Expr Expr::isNaN() const {
  if (Z3_ast x = negated_operand(a_)) return wrap(x).isNaN();
  return folded(wrap(Z3_mk_fpa_is_nan(C(), a_)), {a_});
}
Expr Expr::isInf() const {
  if (Z3_ast x = negated_operand(a_)) return wrap(x).isInf();
  return folded(wrap(Z3_mk_fpa_is_infinite(C(), a_)), {a_});
}
Expr Expr::isZero() const {
  if (Z3_ast x = negated_operand(a_)) return wrap(x).isZero();
  return folded(wrap(Z3_mk_fpa_is_zero(C(), a_)), {a_});
}
Expr Expr::isNeg() const { return folded(wrap(Z3_mk_fpa_is_negative(C(), a_)), {a_}); }
Expr Expr::abs() const {
  // |-a| = |a| and ||a|| = |a|: abs clears the sign bit whatever it was.
  if (Z3_ast x = negated_operand(a_)) return wrap(x).abs();
  if (abs_operand(a_)) return *this;
  return folded(wrap(Z3_mk_fpa_abs(C(), a_)), {a_});
}
Expr Expr::fma(const Expr& b, const Expr& c) const {
  return folded(wrap(Z3_mk_fpa_fma(C(), rne(), a_, b.a_, c.a_)), {a_, b.a_, c.a_});
}
Expr Expr::sqrt() const { return folded(wrap(Z3_mk_fpa_sqrt(C(), rne(), a_)), {a_}); }
Expr Expr::feq(const Expr& b) const {
  auto [x, y] = ordered(*this, b);
  return folded(wrap(Z3_mk_fpa_eq(C(), x, y)), {x, y});
}
Expr Expr::flt(const Expr& b) const { return folded(wrap(Z3_mk_fpa_lt(C(), a_, b.a_)), {a_, b.a_}); }
Expr Expr::fle(const Expr& b) const { return folded(wrap(Z3_mk_fpa_leq(C(), a_, b.a_)), {a_, b.a_}); }
Expr Expr::roundTowardZero() const {
  return folded(wrap(Z3_mk_fpa_round_to_integral(C(), rtz(), a_)), {a_});
}
Expr Expr::toFP(FPFormat f) const {
  if (format() == f) return *this;
  const Expr rm = wrap(rne());
  const SortRef s(fp_sort(f));
  return folded(wrap(Z3_mk_fpa_to_fp_float(C(), rm.raw(), a_, s.s)), {a_});
}
Expr Expr::sbvToFP(FPFormat f) const {
  const Expr rm = wrap(rne());
  const SortRef s(fp_sort(f));
  return folded(wrap(Z3_mk_fpa_to_fp_signed(C(), rm.raw(), a_, s.s)), {a_});
}
Expr Expr::ubvToFP(FPFormat f) const {
  const Expr rm = wrap(rne());
  const SortRef s(fp_sort(f));
  return folded(wrap(Z3_mk_fpa_to_fp_unsigned(C(), rm.raw(), a_, s.s)), {a_});
}
Expr Expr::toSBV(unsigned w) const { return wrap(Z3_mk_fpa_to_sbv(C(), rtz(), a_, w)); }
Expr Expr::toUBV(unsigned w) const { return wrap(Z3_mk_fpa_to_ubv(C(), rtz(), a_, w)); }
Expr Expr::toIEEE() const { return wrap(Z3_mk_fpa_to_ieee_bv(C(), a_)); }

// ---- inspection ----
namespace {
/// Visits every application node of the DAG under `root` once, depth first. `visit(t, app, n)` returns
/// true to descend into the n arguments; `first_arg_first` fixes the visiting order where names are
/// handed out in it.
template <typename F>
void for_each_app(Z3_ast root, bool first_arg_first, F&& visit) {
  std::vector<Z3_ast> stack{root};
  std::vector<bool> seen;
  while (!stack.empty()) {
    Z3_ast t = stack.back();
    stack.pop_back();
    const unsigned id = Z3_get_ast_id(C(), t);
    if (id >= seen.size()) seen.resize(id * 2 + 1, false);
    if (seen[id] || Z3_get_ast_kind(C(), t) != Z3_APP_AST) continue;
    seen[id] = true;
    Z3_app app = Z3_to_app(C(), t);
    const unsigned n = Z3_get_app_num_args(C(), app);
    if (!visit(t, app, n)) continue;
    if (first_arg_first) {
      for (unsigned k = n; k-- > 0;) stack.push_back(Z3_get_app_arg(C(), app, k));
    } else {
      for (unsigned k = 0; k < n; ++k) stack.push_back(Z3_get_app_arg(C(), app, k));
    }
  }
}

bool is_uninterpreted(Z3_app app) { return Z3_get_decl_kind(C(), Z3_get_app_decl(C(), app)) == Z3_OP_UNINTERPRETED; }

/// Collects substitutions of terms by fresh constants named PREFIX0, PREFIX1, ... and applies them.
struct FreshConstants {
  std::vector<Z3_ast> from, to;
  std::vector<Expr> hold;  // the new constants, alive until the substitution holds them
  void replace(Z3_ast t, const char* prefix) {
    const std::string name = prefix + std::to_string(from.size());
    from.push_back(t);
    hold.push_back(Expr::wrap(Z3_mk_const(C(), Z3_mk_string_symbol(C(), name.c_str()), Z3_get_sort(C(), t))));
    to.push_back(hold.back().raw());
  }
  Expr apply(const Expr& e) const {
    if (from.empty()) return e;
    return Expr::wrap(Z3_substitute(C(), e.raw(), static_cast<unsigned>(from.size()), from.data(), to.data()));
  }
};
}  // namespace

unsigned Expr::id() const { return Z3_get_ast_id(C(), a_); }
bool Expr::isTrue() const { return Z3_get_bool_value(C(), a_) == Z3_L_TRUE; }
bool Expr::isFalse() const { return Z3_get_bool_value(C(), a_) == Z3_L_FALSE; }
Expr Expr::simplify() const { return wrap(Z3_simplify(C(), a_)); }

Expr Expr::simplifyMemo() const {
  Context* cx = current_context();
  Z3_context c = RC();
  if (!cx || !c) return simplify();
  auto& memo = cx->simplify_memo;
  if (auto it = memo.find(a_); it != memo.end()) return wrap(it->second);
  Expr s = simplify();
  if (memo.size() >= (1u << 16)) {
    for (const auto& [k, v] : memo) {
      Z3_dec_ref(c, k);
      Z3_dec_ref(c, v);
    }
    memo.clear();
  }
  Z3_inc_ref(c, a_);
  Z3_inc_ref(c, s.a_);
  memo.emplace(a_, s.a_);
  return s;
}

void Expr::setOrigin(const Expr& src, uint32_t tag) const {
  Context* cx = current_context();
  Z3_context c = RC();
  if (!cx || !c || !a_ || !src.a_) return;
  // The table only speeds terms up: past 2^20 entries nothing more is recorded (memory stays bounded).
  if (cx->origins.size() >= (1u << 20) || cx->origins.count(a_)) return;
  Z3_inc_ref(c, a_);
  Z3_inc_ref(c, src.a_);
  cx->origins.emplace(a_, std::make_pair(src.a_, tag));
}

std::optional<std::pair<Expr, uint32_t>> Expr::origin() const {
  Context* cx = current_context();
  if (!cx || !RC() || !a_) return std::nullopt;
  auto it = cx->origins.find(a_);
  if (it == cx->origins.end()) return std::nullopt;
  return std::make_pair(wrap(it->second.first), it->second.second);
}

void Expr::setLeaves(std::span<const Expr> leaves, uint32_t tag) const {
  Context* cx = current_context();
  Z3_context c = RC();
  if (!cx || !c || !a_) return;
  if (cx->fold_leaves_total + leaves.size() > (size_t{1} << 22) || cx->fold_leaves.count(a_)) return;
  std::vector<Z3_ast> v;
  v.reserve(leaves.size());
  for (const Expr& l : leaves) {
    if (!l.a_) return;
    v.push_back(l.a_);
  }
  Z3_inc_ref(c, a_);
  for (Z3_ast l : v) Z3_inc_ref(c, l);
  cx->fold_leaves_total += v.size();
  cx->fold_leaves.emplace(a_, std::make_pair(tag, std::move(v)));
}

std::vector<Expr> Expr::leaves(uint32_t tag) const {
  std::vector<Expr> out;
  Context* cx = current_context();
  if (!cx || !RC() || !a_) return out;
  auto it = cx->fold_leaves.find(a_);
  if (it == cx->fold_leaves.end() || it->second.first != tag) return out;
  out.reserve(it->second.second.size());
  for (Z3_ast l : it->second.second) out.push_back(wrap(l));
  return out;
}

Expr Expr::canonical() const {
  FreshConstants fresh;
  for_each_app(a_, /*first_arg_first=*/true, [&](Z3_ast t, Z3_app app, unsigned n) {
    if (n == 0 && is_uninterpreted(app)) fresh.replace(t, "!k");
    return n > 0;
  });
  return fresh.apply(*this);
}

namespace {
/// The arguments of nested applications of `kind` (an n-ary and/or) under `root`; {root} if none.
std::vector<Expr> flatten(Z3_ast root, Z3_decl_kind kind) {
  std::vector<Expr> out;
  std::vector<Z3_ast> stack{root};
  while (!stack.empty()) {
    Z3_ast t = stack.back();
    stack.pop_back();
    if (Z3_get_ast_kind(C(), t) == Z3_APP_AST) {
      Z3_app app = Z3_to_app(C(), t);
      if (Z3_get_decl_kind(C(), Z3_get_app_decl(C(), app)) == kind) {
        for (unsigned k = Z3_get_app_num_args(C(), app); k-- > 0;) stack.push_back(Z3_get_app_arg(C(), app, k));
        continue;
      }
    }
    out.push_back(Expr::wrap(t));
  }
  return out;
}
}  // namespace

std::vector<Expr> Expr::disjuncts() const { return flatten(a_, Z3_OP_OR); }
std::vector<Expr> Expr::conjuncts() const { return flatten(a_, Z3_OP_AND); }

namespace {
/// True when a term of one of the sort kinds `kinds` occurs in `a`.
bool mentions_sort(Z3_ast a, std::initializer_list<Z3_sort_kind> kinds) {
  bool found = false;
  for_each_app(a, /*first_arg_first=*/false, [&](Z3_ast t, Z3_app, unsigned) {
    if (found) return false;
    const Z3_sort_kind k = Z3_get_sort_kind(C(), Z3_get_sort(C(), t));
    found = std::find(kinds.begin(), kinds.end(), k) != kinds.end();
    return !found;
  });
  return found;
}
}  // namespace

bool Expr::mentionsBitsOrFloats() const { return mentions_sort(a_, {Z3_BV_SORT, Z3_FLOATING_POINT_SORT}); }
bool Expr::mentionsFloats() const { return mentions_sort(a_, {Z3_FLOATING_POINT_SORT, Z3_ROUNDING_MODE_SORT}); }

std::vector<unsigned> Expr::constants() const {
  std::vector<unsigned> out;
  for_each_app(a_, /*first_arg_first=*/false, [&](Z3_ast t, Z3_app app, unsigned n) {
    if (n == 0 && is_uninterpreted(app)) out.push_back(Z3_get_ast_id(C(), t));
    return true;
  });
  std::sort(out.begin(), out.end());
  return out;
}

Expr Expr::abstractFunctions() const {
  FreshConstants fresh;
  for_each_app(a_, /*first_arg_first=*/false, [&](Z3_ast t, Z3_app app, unsigned n) {
    if (n > 0 && is_uninterpreted(app)) {
      fresh.replace(t, "!uf");
      return false;  // the whole application is replaced, its arguments with it
    }
    return true;
  });
  return fresh.apply(*this);
}

std::vector<Application> Expr::applications() const {
  std::vector<Application> out;
  for_each_app(a_, /*first_arg_first=*/false, [&](Z3_ast t, Z3_app app, unsigned n) {
    if (n > 0 && is_uninterpreted(app)) {
      Application a{Z3_get_symbol_string(C(), Z3_get_decl_name(C(), Z3_get_app_decl(C(), app))), wrap(t), {}};
      for (unsigned k = 0; k < n; ++k) a.args.push_back(wrap(Z3_get_app_arg(C(), app, k)));
      out.push_back(std::move(a));
    }
    return true;
  });
  return out;
}

Expr Expr::abstractArithmetic() const {
  FreshConstants fresh;
  for_each_app(a_, /*first_arg_first=*/false, [&](Z3_ast t, Z3_app app, unsigned n) {
    switch (Z3_get_decl_kind(C(), Z3_get_app_decl(C(), app))) {
      case Z3_OP_FPA_ADD: case Z3_OP_FPA_SUB: case Z3_OP_FPA_MUL: case Z3_OP_FPA_DIV: case Z3_OP_FPA_SQRT:
      case Z3_OP_FPA_FMA: case Z3_OP_FPA_REM: case Z3_OP_FPA_ROUND_TO_INTEGRAL:
      case Z3_OP_BMUL: case Z3_OP_BSDIV: case Z3_OP_BUDIV: case Z3_OP_BSREM: case Z3_OP_BUREM: case Z3_OP_BSMOD:
      case Z3_OP_BSDIV_I: case Z3_OP_BUDIV_I: case Z3_OP_BSREM_I: case Z3_OP_BUREM_I: case Z3_OP_BSMOD_I:
        fresh.replace(t, "!ar");
        return false;
      default: return true;
    }
  });
  return fresh.apply(*this);
}

std::optional<uint64_t> Expr::numeral() const {
  if (isBool()) {
    if (isTrue()) return 1;
    if (isFalse()) return 0;
    return std::nullopt;
  }
  if (isFP()) {
    if (!Z3_is_numeral_ast(C(), a_)) return std::nullopt;
    if (Z3_fpa_is_numeral_nan(C(), a_)) {  // SMT has one NaN and no bits for it: the quiet NaN
      const FPFormat f = format();
      return (((uint64_t{1} << f.ebits) - 1) << (f.sbits - 1)) | (uint64_t{1} << (f.sbits - 2));
    }
    return toIEEE().simplify().numeral();
  }
  if (!Z3_is_numeral_ast(C(), a_)) return std::nullopt;
  uint64_t v = 0;
  if (!Z3_get_numeral_uint64(C(), a_, &v)) return std::nullopt;
  return v;
}

// ---- mathematical integers ----
Expr Expr::intVal(int64_t v) {
  Z3_sort s = chk_obj(Z3_mk_int_sort(C()));
  return wrap(Z3_mk_int64(C(), v, s));
}
bool Expr::isInt() const { return Z3_get_sort_kind(C(), Z3_get_sort(C(), a_)) == Z3_INT_SORT; }
namespace {
Expr arith2(Z3_ast a, Z3_ast b, Z3_ast (*mk)(Z3_context, unsigned, const Z3_ast[])) {
  Z3_ast args[2] = {a, b};
  Expr e = Expr::wrap(mk(C(), 2, args));
  return Z3_is_numeral_ast(C(), a) && Z3_is_numeral_ast(C(), b) ? e.simplify() : e;
}
}  // namespace
Expr Expr::iadd(const Expr& b) const {
  if (b.intNumeral() == 0) return *this;
  if (intNumeral() == 0) return b;
  return arith2(a_, b.a_, Z3_mk_add);
}
Expr Expr::isub(const Expr& b) const {
  if (b.intNumeral() == 0) return *this;
  if (a_ == b.a_) return intVal(0);
  return arith2(a_, b.a_, Z3_mk_sub);
}
Expr Expr::imul(const Expr& b) const {
  if (b.intNumeral() == 1) return *this;
  if (intNumeral() == 1) return b;
  return arith2(a_, b.a_, Z3_mk_mul);
}
namespace {
/// Whether `m` is `b * c` or `c * b` (a two-factor product with `b` as a factor), as the index algebra
/// builds sizes (dims times repeats).
bool is_product_with_factor(Z3_ast m, Z3_ast b) {
  if (Z3_get_ast_kind(C(), m) != Z3_APP_AST) return false;
  Z3_app app = Z3_to_app(C(), m);
  if (Z3_get_decl_kind(C(), Z3_get_app_decl(C(), app)) != Z3_OP_MUL || Z3_get_app_num_args(C(), app) != 2) return false;
  return Z3_get_app_arg(C(), app, 0) == b || Z3_get_app_arg(C(), app, 1) == b;
}
}  // namespace
Expr Expr::imod(const Expr& b) const {
  // (a mod (b*c)) mod b == a mod b whenever b*c != 0 (SMT-LIB mod: a mod n = a - n*q for some q, and b
  // divides n). Stated with the guard, so it holds in every model: ite(b*c != 0, a mod b, (a mod (b*c))
  // mod b). Z3 does not find this on its own (nonlinear), and `tile` of `tile` reads through exactly it.
  if (Z3_get_ast_kind(C(), a_) == Z3_APP_AST) {
    Z3_app app = Z3_to_app(C(), a_);
    if (Z3_get_decl_kind(C(), Z3_get_app_decl(C(), app)) == Z3_OP_MOD && Z3_get_app_num_args(C(), app) == 2) {
      Z3_ast inner = Z3_get_app_arg(C(), app, 0), n = Z3_get_app_arg(C(), app, 1);
      if (is_product_with_factor(n, b.a_)) {
        const Expr direct = wrap(inner).imod(b);
        const Expr orig = wrap(Z3_mk_mod(C(), a_, b.a_));
        return ite(wrap(n) != intVal(0), direct, orig);
      }
    }
  }
  return fold_if_numerals(a_, b.a_, Z3_mk_mod(C(), a_, b.a_));
}
Expr Expr::idiv(const Expr& b) const { return fold_if_numerals(a_, b.a_, Z3_mk_div(C(), a_, b.a_)); }
Expr Expr::ilt(const Expr& b) const { return fold_if_numerals(a_, b.a_, Z3_mk_lt(C(), a_, b.a_)); }
Expr Expr::ile(const Expr& b) const { return fold_if_numerals(a_, b.a_, Z3_mk_le(C(), a_, b.a_)); }
std::optional<int64_t> Expr::intNumeral() const {
  if (!Z3_is_numeral_ast(C(), a_) || !isInt()) return std::nullopt;
  int64_t v = 0;
  if (!Z3_get_numeral_int64(C(), a_, &v)) return std::nullopt;
  return v;
}

std::string Expr::str() const { return Z3_ast_to_string(C(), a_); }

// ---- uninterpreted functions ----
Func::Func(std::string_view name, std::span<const Sort> domain, Sort range) {
  std::vector<SortRef> held;
  held.reserve(domain.size() + 1);
  std::vector<Z3_sort> dom;
  for (const Sort& s : domain) {
    held.emplace_back(to_z3(s));
    dom.push_back(held.back().s);
  }
  held.emplace_back(to_z3(range));
  const Z3_symbol sym = symbol(name);
  d_ = Z3_mk_func_decl(C(), sym, static_cast<unsigned>(dom.size()), dom.data(), held.back().s);
  chk(nullptr);
  Z3_inc_ref(C(), Z3_func_decl_to_ast(C(), d_));
}
Func::~Func() {
  if (Z3_context c = RC(); d_ && c) Z3_dec_ref(c, Z3_func_decl_to_ast(c, d_));
}
Expr Func::operator()(std::span<const Expr> args) const {
  std::vector<Z3_ast> a;
  for (const Expr& e : args) a.push_back(e.raw());
  return Expr::wrap(Z3_mk_app(C(), d_, static_cast<unsigned>(a.size()), a.data()));
}

// ---- powers of two, symbolically ----
Expr pow2_with_exact_reciprocal(const Expr& c) {
  const FPFormat f = c.format();
  const unsigned m = f.sbits - 1, w = f.ebits + f.sbits;
  const Expr bits = c.toIEEE();
  const Expr frac = bits.extract(m - 1, 0), exp = bits.extract(w - 2, m);
  const Expr zero_e = Expr::bv(0, f.ebits), ones_e = Expr::bv((uint64_t{1} << f.ebits) - 1, f.ebits);
  const Expr normal = exp != zero_e && exp != ones_e && frac == Expr::bv(0, m);
  // toIEEE of a NaN is some bit pattern Z3 leaves open: NaN is excluded by name, not by its bits.
  return !c.isNaN() && (normal || (exp == zero_e && frac == Expr::bv(uint64_t{1} << (m - 1), m)));
}

Expr pow2_reciprocal_term(const Expr& c) {
  const FPFormat f = c.format();
  const unsigned m = f.sbits - 1, w = f.ebits + f.sbits;
  const uint64_t bias = (uint64_t{1} << (f.ebits - 1)) - 1;
  const Expr bits = c.toIEEE();
  const Expr sign = bits.extract(w - 1, w - 1), exp = bits.extract(w - 2, m);
  auto field = [&](const Expr& e) { return e.zext(m + 1) * Expr::bv(uint64_t{1} << m, w); };  // e << m
  // c = 2^k normal (1 <= E <= 2 bias - 1): 1/c = 2^-k, exponent field 2 bias - E; c = 2^bias (E = 2 bias):
  // 1/c = 2^-bias, the subnormal with the top fraction bit; c = 2^-bias (the subnormal): 1/c = 2^bias,
  // exponent field 2 bias.
  const Expr magnitude =
      Expr::ite(exp == Expr::bv(0, f.ebits), field(Expr::bv(2 * bias, f.ebits)),
                Expr::ite(exp == Expr::bv(2 * bias, f.ebits), Expr::bv(uint64_t{1} << (m - 1), w),
                          field(Expr::bv(2 * bias, f.ebits) - exp)));
  return Expr::fromIEEE(sign.zext(w - 1) * Expr::bv(uint64_t{1} << (w - 1), w) + magnitude, f);
}

Pow2Divisor::Pow2Divisor(const Expr& c) : ctx_(current_context()), c_(c) {
  if (ctx_) ctx_->pow2_divisors.push_back(c_.raw());
}
Pow2Divisor::~Pow2Divisor() {
  if (!ctx_) return;
  auto& v = ctx_->pow2_divisors;
  for (auto it = v.end(); it != v.begin();) {
    --it;
    if (*it == c_.raw()) {
      v.erase(it);
      break;
    }
  }
}

}  // namespace ptir::smt
