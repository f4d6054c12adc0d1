// The native predicates and helpers of the rule language. Each has a one-line doc that docs/rules.md
// and `ptir prove --list-natives` repeat.
#include "rewriter/rules/natives.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <string_view>

#include "ir/interp.h"

namespace ptir::rules {

const TensorType& arg_type(const Program& p, const Captures& c, const Arg& a) {
  if (a.kind == CapKind::Type) return p.type(c.type[a.slot]);
  return p.type_of(c.value[a.slot]);
}

// ---- integer expressions (docs/rules.md "Integer constraints") ----
namespace {
/// Element k of an integer literal as a 64-bit integer (i1: 0 or 1; an unsigned value above 2^63 - 1
/// has none).
std::optional<int64_t> literal_int(const Tensor& t, int64_t k) {
  if (k < 0 || k >= t.size()) return std::nullopt;
  const DType d = t.dtype();
  if (is_float(d)) return std::nullopt;
  const uint64_t b = t.bits(k);
  if (d == DType::I1) return static_cast<int64_t>(b & 1);
  if (is_signed_int(d)) return int_value(d, b);
  if (b > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
  return static_cast<int64_t>(b);
}
}  // namespace

std::optional<int64_t> eval_int(const Program& p, const Captures& c, const CIntExpr& e, std::span<const int64_t> vars) {
  using K = IntExpr::Kind;
  switch (e.kind) {
    case K::Lit: return e.lit;
    case K::Var:
      if (e.slot < 0 || e.slot >= static_cast<int>(vars.size())) return std::nullopt;
      return vars[e.slot];
    case K::Rank:
    case K::Dim: {
      const TensorType& t = e.cap == CapKind::Type ? p.type(c.type[e.slot]) : p.type_of(c.value[e.slot]);
      if (e.kind == K::Rank) return static_cast<int64_t>(t.rank());
      const auto k = eval_int(p, c, e.kids[0], vars);
      if (!k || *k < 0 || *k >= t.rank()) return std::nullopt;
      return t.dims[*k];
    }
    case K::At:
    case K::Cap: {
      std::optional<int64_t> k = int64_t{0};
      if (e.kind == K::At) k = eval_int(p, c, e.kids[0], vars);
      if (!k) return std::nullopt;
      if (e.cap == CapKind::Attr) {
        const AttrValue* a = c.attr[e.slot];
        if (!a || (a->kind != AttrKind::Ints && a->kind != AttrKind::Int)) return std::nullopt;
        if (e.kind == K::Cap && a->ints.size() != 1) return std::nullopt;
        if (*k < 0 || *k >= static_cast<int64_t>(a->ints.size())) return std::nullopt;
        return a->ints[*k];
      }
      const Tensor* t = c.lit[e.slot];
      if (!t || (e.kind == K::Cap && t->size() != 1)) return std::nullopt;
      return literal_int(*t, *k);
    }
    case K::If: {
      std::vector<int64_t> v(vars.begin(), vars.end());
      return eval_int(p, c, e.kids[int_holds(p, c, *e.cond, v) ? 0 : 1], vars);
    }
    default: break;
  }
  const auto a = eval_int(p, c, e.kids[0], vars);
  if (!a) return std::nullopt;
  const auto b = eval_int(p, c, e.kids[1], vars);
  if (!b) return std::nullopt;
  int64_t r = 0;
  switch (e.kind) {
    case K::Add: if (__builtin_add_overflow(*a, *b, &r)) return std::nullopt; return r;
    case K::Sub: if (__builtin_sub_overflow(*a, *b, &r)) return std::nullopt; return r;
    case K::Mul: if (__builtin_mul_overflow(*a, *b, &r)) return std::nullopt; return r;
    case K::Min: return std::min(*a, *b);
    case K::Max: return std::max(*a, *b);
    default: return std::nullopt;
  }
}

bool int_holds(const Program& p, const Captures& c, const CIntCond& k, std::vector<int64_t>& vars) {
  using K = IntCond::Kind;
  switch (k.kind) {
    case K::Cmp: {
      const auto a = eval_int(p, c, k.lhs, vars);
      const auto b = eval_int(p, c, k.rhs, vars);
      if (!a || !b) return false;  // undefined (overflow, index out of range): the constraint is false
      switch (k.cmp) {
        case IntCond::Cmp::Eq: return *a == *b;
        case IntCond::Cmp::Ne: return *a != *b;
        case IntCond::Cmp::Lt: return *a < *b;
        case IntCond::Cmp::Le: return *a <= *b;
        case IntCond::Cmp::Gt: return *a > *b;
        case IntCond::Cmp::Ge: return *a >= *b;
      }
      return false;
    }
    case K::And:
      for (const CIntCond& x : k.kids)
        if (!int_holds(p, c, x, vars)) return false;
      return true;
    case K::Or:
      for (const CIntCond& x : k.kids)
        if (int_holds(p, c, x, vars)) return true;
      return false;
    case K::All: {
      const auto n = eval_int(p, c, k.rhs, vars);
      if (!n || *n > kMaxIntBound || static_cast<int>(vars.size()) >= kMaxIntVars) return false;
      vars.push_back(0);
      bool ok = true;
      for (int64_t i = 0; ok && i < *n; ++i) {
        vars.back() = i;
        ok = int_holds(p, c, k.kids[0], vars);
      }
      vars.pop_back();
      return ok;
    }
  }
  return false;
}

namespace {

/// Whether the integer written `text` (a sign, digits) is exactly the double x, compared digit by digit
/// (glibc prints an integral double's exact decimal expansion).
bool same_integer(std::string_view text, double x) {
  if (!std::isfinite(x) || x != std::floor(x)) return false;
  const bool neg = !text.empty() && text[0] == '-';
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) text.remove_prefix(1);
  while (text.size() > 1 && text[0] == '0') text.remove_prefix(1);
  char buf[512];
  std::snprintf(buf, sizeof buf, "%.0f", std::fabs(x));
  return text == buf && neg == std::signbit(x);
}

}  // namespace

std::optional<uint64_t> number_bits(DType d, const NumberValue& v, bool is_float) {
  if (ptir::is_float(d)) {
    if (std::isnan(v.approx)) return canonical_nan(d);
    if (!is_float) {
      // An integer is its exact value: rounded to d as `dense<N>` is read, it must not have moved.
      const std::optional<uint64_t> b = parse_float_elem(v.text, d, nullptr);
      if (!b || !same_integer(v.text, float_to_double(d, *b))) return std::nullopt;
      return b;
    }
    // A decimal is the double nearest it (strtod, as `dense<N> : tensor<f64>` is read); d must hold that
    // double exactly, with its sign.
    const uint64_t b = double_to_float(d, v.approx);
    const double x = float_to_double(d, b);
    if (x != v.approx || std::signbit(x) != std::signbit(v.approx)) return std::nullopt;
    return b;
  }
  if (is_float) return std::nullopt;
  if (d == DType::I1) {  // 0 or 1, written as any integer of that value (-0, 01)
    const std::optional<uint64_t> b = parse_int_elem(v.text, DType::SI64, nullptr);
    if (!b || *b > 1) return std::nullopt;
    return b;
  }
  return parse_int_elem(v.text, d, nullptr);  // exact, every digit; nullopt when out of range for d
}

bool widens_exactly(DType from, DType to) {
  if (from == to) return true;
  if (from == DType::I1) return true;  // 0/1, and number -> i1 is x != 0
  if (to == DType::I1) return false;
  const bool ff = ptir::is_float(from), tf = ptir::is_float(to);
  if (ff && !tf) return false;
  if (ff && tf) {
    const DTypeInfo& a = dtype_info(from);
    const DTypeInfo& b = dtype_info(to);
    return b.exp_bits >= a.exp_bits && b.frac_bits >= a.frac_bits;
  }
  const int fb = dtype_bits(from);
  const bool fs = is_signed_int(from);
  if (tf) return (fs ? fb - 1 : fb) <= dtype_info(to).frac_bits + 1;  // magnitude bits fit the significand
  const int tb = dtype_bits(to);
  const bool ts = is_signed_int(to);
  if (fs == ts) return tb >= fb;
  return !fs && ts && tb > fb;  // unsigned into a wider signed
}

bool param_accepts(Param p, Site site, CapKind k) {
  switch (p) {
    case Param::TypeLike: return k == CapKind::Type || (k == CapKind::Value && site == Site::Predicate);
    case Param::Value: return k == CapKind::Value && site == Site::Predicate;
    case Param::Attr: return k == CapKind::Attr;
    case Param::Lit: return k == CapKind::Lit;
    case Param::Word:
    case Param::Int: return false;  // not captures
  }
  return false;
}

std::string param_spelling(Param p, Site site) {
  if (p == Param::Word) return "word";
  if (p == Param::Int) return "N";
  std::string s;
  for (auto [k, w] : {std::pair{CapKind::Value, "%x"}, std::pair{CapKind::Type, "$T"}, std::pair{CapKind::Attr, "$attr"},
                      std::pair{CapKind::Lit, "$lit"}})
    if (param_accepts(p, site, k)) s += (s.empty() ? "" : "|") + std::string(w);
  return s.empty() ? "(none)" : s;
}

namespace {

bool perm_ok(const AttrValue* a) { return a != nullptr; }

std::vector<int64_t> compose(const std::vector<int64_t>& p, const std::vector<int64_t>& q, bool* ok) {
  std::vector<int64_t> r(q.size());
  *ok = p.size() == q.size();
  for (size_t i = 0; *ok && i < q.size(); ++i) {
    if (q[i] < 0 || q[i] >= static_cast<int64_t>(p.size())) *ok = false;
    else r[i] = p[q[i]];
  }
  return r;
}

// ---- predicates ----
bool p_is_float(const Program& p, const Captures& c, std::span<const Arg> a) { return ptir::is_float(arg_type(p, c, a[0]).dtype); }
bool p_is_int(const Program& p, const Captures& c, std::span<const Arg> a) { return is_integer(arg_type(p, c, a[0]).dtype); }
bool p_is_signed(const Program& p, const Captures& c, std::span<const Arg> a) { return is_signed_int(arg_type(p, c, a[0]).dtype); }
bool p_is_unsigned(const Program& p, const Captures& c, std::span<const Arg> a) {
  const DType d = arg_type(p, c, a[0]).dtype;
  return is_integer(d) && !is_signed_int(d);
}
bool p_is_bool(const Program& p, const Captures& c, std::span<const Arg> a) { return arg_type(p, c, a[0]).dtype == DType::I1; }
bool p_dtype_is(const Program& p, const Captures& c, std::span<const Arg> a) {
  return dtype_name(arg_type(p, c, a[0]).dtype) == a[1].word;
}
bool p_rank_is(const Program& p, const Captures& c, std::span<const Arg> a) { return arg_type(p, c, a[0]).rank() == a[1].i; }
bool p_one_use(const Program& p, const Captures& c, std::span<const Arg> a) { return p.has_one_use(c.value[a[0].slot]); }
bool p_same_type(const Program& p, const Captures& c, std::span<const Arg> a) { return arg_type(p, c, a[0]) == arg_type(p, c, a[1]); }
bool p_same_dtype(const Program& p, const Captures& c, std::span<const Arg> a) {
  return arg_type(p, c, a[0]).dtype == arg_type(p, c, a[1]).dtype;
}
bool p_same_shape(const Program& p, const Captures& c, std::span<const Arg> a) {
  return arg_type(p, c, a[0]).dims == arg_type(p, c, a[1]).dims;
}
bool p_widens_exactly(const Program& p, const Captures& c, std::span<const Arg> a) {
  return widens_exactly(arg_type(p, c, a[0]).dtype, arg_type(p, c, a[1]).dtype);
}
bool p_composes_to_identity(const Program&, const Captures& c, std::span<const Arg> a) {
  const AttrValue *pa = c.attr[a[0].slot], *qa = c.attr[a[1].slot];
  if (!perm_ok(pa) || !perm_ok(qa)) return false;
  bool ok = false;
  std::vector<int64_t> r = compose(pa->ints, qa->ints, &ok);
  for (size_t i = 0; ok && i < r.size(); ++i) ok = r[i] == static_cast<int64_t>(i);
  return ok;
}
bool p_is_identity_perm(const Program&, const Captures& c, std::span<const Arg> a) {
  const AttrValue* pa = c.attr[a[0].slot];
  if (!pa) return false;
  for (size_t i = 0; i < pa->ints.size(); ++i)
    if (pa->ints[i] != static_cast<int64_t>(i)) return false;
  return true;
}
bool p_axes_all_size(const Program& p, const Captures& c, std::span<const Arg> a) {
  const TensorType& t = arg_type(p, c, a[0]);
  const AttrValue* ax = c.attr[a[1].slot];
  if (!ax) return false;
  for (int64_t k : ax->ints)
    if (k < 0 || k >= t.rank() || t.dims[k] != a[2].i) return false;
  return true;
}
bool p_some_axis_size(const Program& p, const Captures& c, std::span<const Arg> a) {
  const TensorType& t = arg_type(p, c, a[0]);
  const AttrValue* ax = c.attr[a[1].slot];
  if (!ax) return false;
  for (int64_t k : ax->ints)
    if (k >= 0 && k < t.rank() && t.dims[k] == a[2].i) return true;
  return false;
}
/// A word names a word attribute's value (`lt`), a dtype attribute's dtype (`si32`: the IR keeps the
/// dtype as its number) or a boolean's `true`/`false` (kept as 1/0); an integer is a one-integer list.
bool p_attr_is(const Program&, const Captures& c, std::span<const Arg> a) {
  const AttrValue* v = c.attr[a[0].slot];
  if (!v) return false;
  if (!a[1].word.empty()) {
    switch (v->kind) {
      case AttrKind::DType:
        return v->ints.size() == 1 && v->ints[0] >= 0 && v->ints[0] < kNumDTypes &&
               dtype_name(static_cast<DType>(v->ints[0])) == a[1].word;
      case AttrKind::Bool:
        return v->ints.size() == 1 && (v->ints[0] != 0 ? "true" : "false") == a[1].word;
      default:
        return v->text == a[1].word;
    }
  }
  return v->kind != AttrKind::DType && v->kind != AttrKind::Bool && v->ints.size() == 1 && v->ints[0] == a[1].i;
}
/// The literal is a splat of a finite power of two whose reciprocal is exactly representable.
bool p_is_pow2(const Program&, const Captures& c, std::span<const Arg> a) {
  const Tensor* t = c.lit[a[0].slot];
  if (!t || t->size() == 0 || !t->is_splat() || !ptir::is_float(t->dtype())) return false;
  const double v = float_to_double(t->dtype(), t->bits(0));
  if (!std::isfinite(v) || v == 0) return false;
  int e = 0;
  if (std::frexp(std::fabs(v), &e) != 0.5) return false;
  // The reciprocal must be finite and exact: 1 / 2^-1074 overflows to inf in every dtype.
  const double r = 1.0 / v;
  // f64 subnormals below 2^-1023 have no finite reciprocal: r is inf there, and inf == inf must not
  // count as exact (x / 2^-1074 is not x * inf).
  return std::isfinite(r) && float_to_double(t->dtype(), double_to_float(t->dtype(), r)) == r;
}
bool p_is_constant(const Program& p, const Captures& c, std::span<const Arg> a) {
  return p.constant_of(c.value[a[0].slot]) != nullptr;
}
bool p_is_splat(const Program&, const Captures& c, std::span<const Arg> a) {
  const Tensor* t = c.lit[a[0].slot];
  return t && t->size() > 0 && t->is_splat();
}
bool p_num_elements_is(const Program& p, const Captures& c, std::span<const Arg> a) {
  return arg_type(p, c, a[0]).num_elements() == a[1].i;
}

/// The op defining %r carries the attribute named by the word (`has_attr(%r, accum)`).
bool p_has_attr(const Program& p, const Captures& c, std::span<const Arg> a) {
  const InstId i = p.def_inst(c.value[a[0].slot]);
  return i != kNone && p.attrs_of(i).find(a[1].word) != nullptr;
}

/// The op defining %r has no `accum` attribute, or casting its first operand's dtype to the accum dtype
/// and back is exact (so a one-element or empty reduction gives the same bits as without the casts).
bool p_exact_accum(const Program& p, const Captures& c, std::span<const Arg> a) {
  const ValueId r = c.value[a[0].slot];
  const InstId i = p.def_inst(r);
  if (i == kNone) return false;
  const AttrValue* acc = p.attrs_of(i).find("accum");
  if (!acc) return true;
  if (acc->ints.empty() || p.num_operands(i) == 0) return false;
  return widens_exactly(p.type_of(p.operand(i, 0)).dtype, static_cast<DType>(acc->ints[0]));
}

/// Transposing by $p keeps the axes that $b and $c do not list in increasing order: over the unlisted
/// operand axes i in increasing order, p[i] increases (dot_general_absorb_transpose: the free dims of a
/// transposed dot operand come out in the same order without the transpose). False when a listed axis
/// is outside 0..rank(p)-1.
bool p_keeps_free_order(const Program&, const Captures& c, std::span<const Arg> a) {
  const AttrValue *pa = c.attr[a[0].slot], *ba = c.attr[a[1].slot], *ca = c.attr[a[2].slot];
  if (!pa || !ba || !ca) return false;
  const std::vector<int64_t>& p = pa->ints;
  const int64_t rank = static_cast<int64_t>(p.size());
  std::vector<bool> listed(p.size(), false);
  for (const AttrValue* l : {ba, ca})
    for (int64_t d : l->ints) {
      if (d < 0 || d >= rank) return false;
      listed[d] = true;
    }
  int64_t last = -1;
  for (int64_t i = 0; i < rank; ++i) {
    if (listed[i]) continue;
    if (p[i] <= last) return false;
    last = p[i];
  }
  return true;
}

// ---- attribute helpers ----
/// r[k] = p[a[k]]: the axes a of transpose(x, p) named as axes of x (transpose: operand axis a is x's
/// axis p[a]). Does not apply when an entry of a is outside 0..rank(p)-1.
std::optional<std::vector<int64_t>> h_permute_axes(const Captures& c, std::span<const Arg> a) {
  const AttrValue *pa = c.attr[a[0].slot], *la = c.attr[a[1].slot];
  if (!pa || !la) return std::nullopt;
  std::vector<int64_t> r;
  for (int64_t d : la->ints) {
    if (d < 0 || d >= static_cast<int64_t>(pa->ints.size())) return std::nullopt;
    r.push_back(pa->ints[d]);
  }
  return r;
}
std::optional<std::vector<int64_t>> h_compose_perm(const Captures& c, std::span<const Arg> a) {
  const AttrValue *pa = c.attr[a[0].slot], *qa = c.attr[a[1].slot];
  if (!pa || !qa) return std::nullopt;
  bool ok = false;
  std::vector<int64_t> r = compose(pa->ints, qa->ints, &ok);
  if (!ok) return std::nullopt;
  return r;
}
std::optional<std::vector<int64_t>> h_inverse_perm(const Captures& c, std::span<const Arg> a) {
  const AttrValue* pa = c.attr[a[0].slot];
  if (!pa) return std::nullopt;
  std::vector<int64_t> r(pa->ints.size(), -1);
  for (size_t i = 0; i < r.size(); ++i) {
    const int64_t k = pa->ints[i];
    if (k < 0 || k >= static_cast<int64_t>(r.size()) || r[k] != -1) return std::nullopt;
    r[k] = static_cast<int64_t>(i);
  }
  return r;
}

std::optional<std::vector<int64_t>> h_add_ints(const Captures& c, std::span<const Arg> a) {
  const AttrValue *pa = c.attr[a[0].slot], *qa = c.attr[a[1].slot];
  if (!pa || !qa || pa->ints.size() != qa->ints.size()) return std::nullopt;
  std::vector<int64_t> r(pa->ints.size());
  for (size_t i = 0; i < r.size(); ++i)
    if (__builtin_add_overflow(pa->ints[i], qa->ints[i], &r[i])) return std::nullopt;  // does not apply
  return r;
}

std::optional<std::vector<int64_t>> h_mul_ints(const Captures& c, std::span<const Arg> a) {
  const AttrValue *pa = c.attr[a[0].slot], *qa = c.attr[a[1].slot];
  if (!pa || !qa || pa->ints.size() != qa->ints.size()) return std::nullopt;
  std::vector<int64_t> r(pa->ints.size());
  for (size_t i = 0; i < r.size(); ++i)
    if (__builtin_mul_overflow(pa->ints[i], qa->ints[i], &r[i])) return std::nullopt;  // does not apply
  return r;
}

std::optional<std::vector<int64_t>> h_sub_ints(const Captures& c, std::span<const Arg> a) {
  const AttrValue *pa = c.attr[a[0].slot], *qa = c.attr[a[1].slot];
  if (!pa || !qa || pa->ints.size() != qa->ints.size()) return std::nullopt;
  std::vector<int64_t> r(pa->ints.size());
  for (size_t i = 0; i < r.size(); ++i)
    if (__builtin_sub_overflow(pa->ints[i], qa->ints[i], &r[i])) return std::nullopt;  // does not apply
  return r;
}

/// The elements of an integer literal, row-major, as a list (`starts = lit_ints($s)` for a
/// dynamic_slice start); does not apply to a float literal or an unsigned element above 2^63 - 1.
std::optional<std::vector<int64_t>> h_lit_ints(const Captures& c, std::span<const Arg> a) {
  const Tensor* t = c.lit[a[0].slot];
  if (!t || is_float(t->dtype())) return std::nullopt;  // also an empty float literal
  std::vector<int64_t> r;
  for (int64_t k = 0; k < t->size(); ++k) {
    const auto v = literal_int(*t, k);
    if (!v) return std::nullopt;
    r.push_back(*v);
  }
  return r;
}

// ---- literal arithmetic (add_lits, mul_lits, neg_lit, int_lit) ----
/// Literal `s` as a literal of type `t`: itself when it has type t, a splat of it when it is a non-empty
/// splat of t's dtype; nullopt otherwise.
std::optional<Tensor> as_type(const Tensor* s, const TensorType& t) {
  if (!s || s->dtype() != t.dtype) return std::nullopt;
  if (s->type == t) return *s;
  if (s->size() == 0 || !s->is_splat()) return std::nullopt;
  Tensor out(t);
  for (int64_t i = 0; i < out.size(); ++i) out.set_bits(i, s->bits(0));
  return out;
}
/// The element-wise op `op` on literals of type `t`, by the interpreter (ir/interp.h eval_inst): the
/// op's own semantics (floats rounded to nearest-even in the dtype, integers wrapping), nullopt on UB.
std::optional<Tensor> eval_elementwise(OpCode op, std::vector<Tensor> args, const TensorType& t) {
  if (t.dtype == DType::I1) return std::nullopt;  // add/mul/neg take no i1
  Program q;
  const BodyId b = q.add_body("main", false);
  std::vector<ValueId> ops;
  for (size_t i = 0; i < args.size(); ++i) ops.push_back(q.add_param(b, q.intern_type(t), "a" + std::to_string(i)));
  const TypeId tid = q.intern_type(t);
  const InstId inst = q.create_inst(b, op, ops, q.intern_attrs(AttrSet{}), std::span<const TypeId>(&tid, 1));
  RunResult r = eval_inst(q, inst, args);
  if (r.status != RunStatus::Ok || r.results.size() != 1) return std::nullopt;
  return std::move(r.results[0]);
}
std::optional<Tensor> l_add_lits(const Program&, const Captures& c, std::span<const Arg> a, const TensorType& t) {
  auto x = as_type(c.lit[a[0].slot], t), y = as_type(c.lit[a[1].slot], t);
  if (!x || !y) return std::nullopt;
  return eval_elementwise(OpCode::Add, {std::move(*x), std::move(*y)}, t);
}
std::optional<Tensor> l_mul_lits(const Program&, const Captures& c, std::span<const Arg> a, const TensorType& t) {
  auto x = as_type(c.lit[a[0].slot], t), y = as_type(c.lit[a[1].slot], t);
  if (!x || !y) return std::nullopt;
  return eval_elementwise(OpCode::Mul, {std::move(*x), std::move(*y)}, t);
}
std::optional<Tensor> l_neg_lit(const Program&, const Captures& c, std::span<const Arg> a, const TensorType& t) {
  auto x = as_type(c.lit[a[0].slot], t);
  if (!x) return std::nullopt;
  return eval_elementwise(OpCode::Neg, {std::move(*x)}, t);
}
}  // namespace

std::optional<uint64_t> int_lit_bits(DType d, int64_t v) {
  if (d == DType::I1) {
    if (v != 0 && v != 1) return std::nullopt;
    return static_cast<uint64_t>(v);
  }
  if (is_float(d)) {
    // Round to nearest, ties to even, in the dtype (as cast from si64): |v| < 2^63 fits a double's
    // exponent range, and rounding the exact integer once is what round_to_float does.
    const bool neg = v < 0;
    const uint64_t mag = neg ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    if (mag == 0) return uint64_t{0};
    return round_to_float(d, neg, mag, 0);
  }
  return static_cast<uint64_t>(v) & bits_mask(d);  // wrapping: v mod 2^w
}

namespace {
/// int_lit(E): the integer E in the node's dtype (Arg::i holds E, evaluated by the builder).
std::optional<Tensor> l_int_lit(const Program&, const Captures&, std::span<const Arg> a, const TensorType& t) {
  const auto b = int_lit_bits(t.dtype, a[0].i);
  if (!b) return std::nullopt;
  Tensor out(t);
  for (int64_t i = 0; i < out.size(); ++i) out.set_bits(i, *b);
  return out;
}

// ---- literal helpers ----
std::optional<Tensor> l_reciprocal(const Program&, const Captures& c, std::span<const Arg> a, const TensorType& t) {
  const Tensor* s = c.lit[a[0].slot];
  if (!s || s->size() == 0 || !s->is_splat() || !ptir::is_float(t.dtype) || s->dtype() != t.dtype) return std::nullopt;
  const double v = float_to_double(t.dtype, s->bits(0));
  // Exact only for +-inf (1/inf = 0) and powers of two: for any other v, 1/v has no finite binary
  // expansion, and for f64 the rounded double 1.0 / v would pass the representability test below.
  int e = 0;
  if (!std::isinf(v) && (std::isnan(v) || v == 0 || std::frexp(std::fabs(v), &e) != 0.5)) return std::nullopt;
  const double r = 1.0 / v;
  if (!std::isfinite(r)) return std::nullopt;  // 1/0 and f64 subnormals below 2^-1023
  const uint64_t b = double_to_float(t.dtype, r);
  if (!std::isfinite(r) || float_to_double(t.dtype, b) != r) return std::nullopt;  // only finite, exact reciprocals
  Tensor out(t);
  for (int64_t i = 0; i < out.size(); ++i) out.set_bits(i, b);
  return out;
}
std::optional<Tensor> l_reciprocal_rounded(const Program&, const Captures& c, std::span<const Arg> a,
                                           const TensorType& t) {
  const Tensor* s = c.lit[a[0].slot];
  if (!s || s->size() == 0 || !s->is_splat() || !ptir::is_float(t.dtype) || s->dtype() != t.dtype) return std::nullopt;
  const uint64_t b = double_to_float(t.dtype, 1.0 / float_to_double(t.dtype, s->bits(0)));
  Tensor out(t);
  for (int64_t i = 0; i < out.size(); ++i) out.set_bits(i, b);
  return out;
}
std::optional<Tensor> l_lowest(const Program&, const Captures&, std::span<const Arg>, const TensorType& t) {
  Tensor out(t);
  const uint64_t b = ptir::is_float(t.dtype) ? float_inf(t.dtype, true)
                     : t.dtype == DType::I1  ? 0
                     : is_signed_int(t.dtype) ? static_cast<uint64_t>(int_min(t.dtype)) & bits_mask(t.dtype)
                                              : 0;
  for (int64_t i = 0; i < out.size(); ++i) out.set_bits(i, b);
  return out;
}
std::optional<Tensor> l_highest(const Program&, const Captures&, std::span<const Arg>, const TensorType& t) {
  Tensor out(t);
  const uint64_t b = ptir::is_float(t.dtype) ? float_inf(t.dtype, false)
                     : t.dtype == DType::I1  ? 1
                                             : int_max_bits(t.dtype);
  for (int64_t i = 0; i < out.size(); ++i) out.set_bits(i, b);
  return out;
}

using P = Param;
using N = NativeId;
constexpr ArgRole kPerm = AttrRole::Permutation, kAxes = AttrRole::AxisList, kPerAxis = AttrRole::PerAxis;
const PredicateSpec kPredicates[] = {
    {N::IsFloat, "is_float", {P::TypeLike}, p_is_float, "the dtype is a float (f16, bf16, f32, f64)"},
    {N::IsInt, "is_int", {P::TypeLike}, p_is_int, "the dtype is a signed or unsigned integer (not i1)"},
    {N::IsSigned, "is_signed", {P::TypeLike}, p_is_signed, "the dtype is a signed integer"},
    {N::IsUnsigned, "is_unsigned", {P::TypeLike}, p_is_unsigned, "the dtype is an unsigned integer"},
    {N::IsBool, "is_bool", {P::TypeLike}, p_is_bool, "the dtype is i1"},
    {N::DtypeIs, "dtype_is", {P::TypeLike, P::Word}, p_dtype_is, "the dtype is the named one (dtype_is(%x, f32))"},
    {N::RankIs, "rank_is", {P::TypeLike, P::Int}, p_rank_is, "the rank is N"},
    {N::NumElementsIs, "num_elements_is", {P::TypeLike, P::Int}, p_num_elements_is, "the type has N elements"},
    {N::OneUse, "one_use", {P::Value}, p_one_use, "the value has exactly one use"},
    {N::SameType, "same_type", {P::TypeLike, P::TypeLike}, p_same_type, "the two types are equal"},
    {N::SameDtype, "same_dtype", {P::TypeLike, P::TypeLike}, p_same_dtype, "the two dtypes are equal"},
    {N::SameShape, "same_shape", {P::TypeLike, P::TypeLike}, p_same_shape, "the two shapes are equal"},
    {N::WidensExactly, "widens_exactly", {P::TypeLike, P::TypeLike}, p_widens_exactly,
     "casting the first dtype to the second and back is the identity on every value"},
    {N::ComposesToIdentity, "composes_to_identity", {P::Attr, P::Attr}, p_composes_to_identity,
     "transpose by $p then by $q is the identity (p[q[i]] == i)", {kPerm, kPerm}},
    {N::IsIdentityPerm, "is_identity_perm", {P::Attr}, p_is_identity_perm, "the permutation is 0, 1, ..., n-1", {kPerm}},
    {N::AxesAllSize, "axes_all_size", {P::TypeLike, P::Attr, P::Int}, p_axes_all_size, "every listed axis has size N",
     {std::nullopt, kAxes, std::nullopt}},
    {N::SomeAxisSize, "some_axis_size", {P::TypeLike, P::Attr, P::Int}, p_some_axis_size,
     "at least one listed axis has size N", {std::nullopt, kAxes, std::nullopt}},
    {N::AttrIs, "attr_is", {P::Attr, P::Word}, p_attr_is, "the attribute is the given word or integer"},
    {N::IsPow2, "is_pow2", {P::Lit}, p_is_pow2,
     "a float splat of a finite power of two whose reciprocal is exactly representable"},
    {N::IsSplat, "is_splat", {P::Lit}, p_is_splat, "the literal is non-empty with all elements bit-identical"},
    {N::IsConstant, "is_constant", {P::Value}, p_is_constant,
     "the value is a literal or a constant op's result (not is_constant(%x): StableHLO's guard \"X is not a constant\")"},
    {N::ExactAccum, "exact_accum", {P::Value}, p_exact_accum,
     "the op defining %x has no accum, or its operand's dtype round-trips exactly through the accum dtype"},
    {N::HasAttr, "has_attr", {P::Value, P::Word}, p_has_attr,
     "the op defining %x carries the named attribute (not has_attr(%x, accum): no accum written)"},
    {N::KeepsFreeOrder, "keeps_free_order", {P::Attr, P::Attr, P::Attr}, p_keeps_free_order,
     "transposing by $p keeps the axes $b and $c do not list in increasing order (p[i] increases over them)",
     {kPerm, kAxes, kAxes}},
};
const AttrHelperSpec kAttrHelpers[] = {
    {N::ComposePerm, "compose_perm", {P::Attr, P::Attr}, h_compose_perm,
     "r[i] = p[q[i]]: transpose by p then q is transpose by r", {kPerm, kPerm}, AttrRole::Permutation},
    {N::InversePerm, "inverse_perm", {P::Attr}, h_inverse_perm, "the inverse permutation", {kPerm},
     AttrRole::Permutation},
    {N::AddInts, "add_ints", {P::Attr, P::Attr}, h_add_ints, "r[i] = a[i] + b[i] (two integer lists of one length)",
     {kPerAxis, kPerAxis}, AttrRole::PerAxis},
    {N::MulInts, "mul_ints", {P::Attr, P::Attr}, h_mul_ints, "r[i] = a[i] * b[i] (two integer lists of one length)",
     {kPerAxis, kPerAxis}, AttrRole::PerAxis},
    {N::PermuteAxes, "permute_axes", {P::Attr, P::Attr}, h_permute_axes,
     "r[k] = p[a[k]]: the axes a of transpose(x, p) as axes of x", {kPerm, kAxes}, AttrRole::AxisList},
    {N::SubInts, "sub_ints", {P::Attr, P::Attr}, h_sub_ints, "r[i] = a[i] - b[i] (two integer lists of one length)",
     {kPerAxis, kPerAxis}, AttrRole::PerAxis},
    {N::LitInts, "lit_ints", {P::Lit}, h_lit_ints,
     "the elements of an integer literal, row-major (a dynamic_slice start as slice starts)", {}, AttrRole::PerAxis},
};
const LitHelperSpec kLitHelpers[] = {
    {N::Reciprocal, "reciprocal", {P::Lit}, l_reciprocal, "1/c of a float splat, only where exact"},
    {N::ReciprocalRounded, "reciprocal_rounded", {P::Lit}, l_reciprocal_rounded,
     "1/c of a float splat rounded to the dtype, exact or not (states the unsound x/c -> x*(1/c); the library uses reciprocal)"},
    {N::Lowest, "lowest", {P::TypeLike}, l_lowest, "-inf (floats), the minimum integer, false: the empty reduce_max"},
    {N::Highest, "highest", {P::TypeLike}, l_highest, "+inf (floats), the maximum integer, true: the empty reduce_min"},
    {N::AddLits, "add_lits", {P::Lit, P::Lit}, l_add_lits,
     "a + b element-wise in the node's dtype, as the add op computes it (floats rounded to nearest-even, integers wrapping)"},
    {N::MulLits, "mul_lits", {P::Lit, P::Lit}, l_mul_lits,
     "a * b element-wise in the node's dtype, as the mul op computes it (floats rounded to nearest-even, integers wrapping)"},
    {N::NegLit, "neg_lit", {P::Lit}, l_neg_lit, "-a element-wise in the node's dtype, as the neg op computes it (exact)"},
    {N::IntLit, "int_lit", {P::Int}, l_int_lit,
     "the integer expression E in the node's dtype: integers wrap (E mod 2^w), floats round to nearest-even, i1 only 0 and 1"},
};

}  // namespace

const PredicateSpec* find_predicate(std::string_view name) {
  for (const auto& s : kPredicates)
    if (s.name == name) return &s;
  return nullptr;
}
const AttrHelperSpec* find_attr_helper(std::string_view name) {
  for (const auto& s : kAttrHelpers)
    if (s.name == name) return &s;
  return nullptr;
}
const LitHelperSpec* find_lit_helper(std::string_view name) {
  for (const auto& s : kLitHelpers)
    if (s.name == name) return &s;
  return nullptr;
}
std::string_view native_name(NativeId id) {
  for (const auto& s : kPredicates)
    if (s.id == id) return s.name;
  for (const auto& s : kAttrHelpers)
    if (s.id == id) return s.name;
  for (const auto& s : kLitHelpers)
    if (s.id == id) return s.name;
  return "?";
}
std::optional<NativeId> native_id(std::string_view name, Site site) {
  if (site == Site::Predicate) {
    if (const PredicateSpec* p = find_predicate(name)) return p->id;
    return std::nullopt;
  }
  if (const AttrHelperSpec* h = find_attr_helper(name)) return h->id;
  if (const LitHelperSpec* h = find_lit_helper(name)) return h->id;
  return std::nullopt;
}
std::span<const PredicateSpec> all_predicates() { return kPredicates; }
std::span<const AttrHelperSpec> all_attr_helpers() { return kAttrHelpers; }
std::span<const LitHelperSpec> all_lit_helpers() { return kLitHelpers; }

}  // namespace ptir::rules
