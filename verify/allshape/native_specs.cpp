// The symbolic spec of every rule native (verify/allshape/native_specs.h), one entry per native id, in
// the order of rewriter/rules/natives.h NativeId. Each entry states what its native means in one
// configuration of the all-shape encoding; tests/verify/allshape_natives_test.cpp checks it against the
// native's concrete code (rewriter/rules/natives.cpp) on random inputs.
#include "verify/allshape/native_specs.h"

#include "verify/allshape/encoder.h"
#include "verify/encode/ops.h"

namespace ptir::allshape::detail {
namespace {

using rules::NativeId;
using smt::Expr;
using N = NativeId;
using M = PredMeaning;

/// The dtype of type argument k; Outside when unbound.
DType dtype_arg(NativeEnv& env, const rules::Constraint& c, size_t k) {
  const TypeV* t = env.type_of(c.args[k]);
  if (!t) throw Outside{"constraint " + c.pred + " on an unbound capture"};
  return t->first;
}
std::string not_used(const rules::Constraint& c, const std::string& why) {
  return "`not " + c.pred + "` not used (" + why + "): the statement proved is stronger";
}

// ---- predicates: dtype predicates are decided by the configuration's dtypes ----
M is_float_(NativeEnv& e, const rules::Constraint& c) { return M::of(is_float(dtype_arg(e, c, 0))); }
M is_int_(NativeEnv& e, const rules::Constraint& c) { return M::of(is_integer(dtype_arg(e, c, 0))); }
M is_signed_(NativeEnv& e, const rules::Constraint& c) { return M::of(is_signed_int(dtype_arg(e, c, 0))); }
M is_unsigned_(NativeEnv& e, const rules::Constraint& c) {
  const DType d = dtype_arg(e, c, 0);
  return M::of(is_integer(d) && !is_signed_int(d));
}
M is_bool_(NativeEnv& e, const rules::Constraint& c) { return M::of(dtype_arg(e, c, 0) == DType::I1); }
/// The dtype's name is the word, exactly (natives.cpp p_dtype_is): `dtype_is(%x, F16)` never holds. (The
/// spec used parse_dtype, which ignores case: `not dtype_is(%x, F16)` then skipped every f16
/// configuration although the rule fires there; found by the property test.)
M dtype_is_(NativeEnv& e, const rules::Constraint& c) { return M::of(dtype_name(dtype_arg(e, c, 0)) == c.args[1].name); }
M widens_exactly_(NativeEnv& e, const rules::Constraint& c) {
  return M::of(rules::widens_exactly(dtype_arg(e, c, 0), dtype_arg(e, c, 1)));
}
M same_dtype_(NativeEnv& e, const rules::Constraint& c) { return M::of(dtype_arg(e, c, 0) == dtype_arg(e, c, 1)); }

/// one_use: any number of uses is proved (a stronger statement), in both polarities.
M one_use_(NativeEnv&, const rules::Constraint&) {
  return M::dropped("one_use not used: the statement proved is stronger (any number of uses)");
}
/// is_constant: whether a value is a literal only decides where the rule fires (a literal's elements are
/// values like any other): any value is proved, in both polarities.
M is_constant_(NativeEnv&, const rules::Constraint& c) {
  return M::dropped(std::string(c.negated ? "`not is_constant`" : "`is_constant`") +
                    " not used: the statement proved is stronger (constant or not)");
}

M rank_is_(NativeEnv& e, const rules::Constraint& c) {
  const TypeV* t = e.type_of(c.args[0]);
  if (!t) throw Outside{"rank_is on an unbound capture"};
  // `not rank_is` does not survive dropping axes (a rank it excludes may be reached): not assumed.
  if (c.negated) return M::dropped(not_used(c, "dropping axes may reach the rank it excludes"));
  return M::of(static_cast<int64_t>(t->second.size()) == c.args[1].i);
}

/// same_type and same_shape: per-axis size equalities (kept by dropping axes) once dtypes and ranks agree.
M same_type_or_shape(NativeEnv& e, const rules::Constraint& c, bool dtypes) {
  const TypeV* a = e.type_of(c.args[0]);
  if (!a) throw Outside{c.pred + " on an unbound capture"};
  const TypeV av = *a;
  const TypeV* b = e.type_of(c.args[1]);
  if (!b) throw Outside{c.pred + " on an unbound capture"};
  const bool dtype_ok = !dtypes || av.first == b->first;
  const bool rank_ok = av.second.size() == b->second.size();
  // `not same_type` by its dtypes survives dropping axes; by its ranks or sizes it may not.
  if (c.negated && !dtype_ok) return M::of(false);
  if (c.negated) return M::dropped(not_used(c, "ranks or sizes that differ may agree once axes are dropped"));
  if (!dtype_ok || !rank_ok) return M::of(false);
  std::vector<Expr> eq;
  for (size_t k = 0; k < av.second.size(); ++k) eq.push_back(av.second[k] == b->second[k]);
  return M::where(Expr::all(eq));
}
M same_type_(NativeEnv& e, const rules::Constraint& c) { return same_type_or_shape(e, c, true); }
M same_shape_(NativeEnv& e, const rules::Constraint& c) { return same_type_or_shape(e, c, false); }

/// A permutation argument: concrete in every configuration (each transpose's is enumerated).
std::vector<int64_t> perm_arg(NativeEnv& e, const rules::Constraint& c, size_t k) {
  const AttrB* a = e.attr(c.args[k].name);
  if (!a || !a->concrete) throw Outside{c.pred + " on an unbound permutation"};
  return a->c;
}
// Restricting permutations to fewer axes keeps "is the identity" but not "is not": a negated one is not
// assumed (the statement proved is stronger).
const char* kPermNot = "a permutation that is not the identity may become one once axes are dropped";
M composes_to_identity_(NativeEnv& e, const rules::Constraint& c) {
  const auto a = perm_arg(e, c, 0), b = perm_arg(e, c, 1);
  bool holds = a.size() == b.size();
  for (size_t i = 0; holds && i < a.size(); ++i) holds = a[b[i]] == static_cast<int64_t>(i);
  if (c.negated) return M::dropped(not_used(c, kPermNot));
  return M::of(holds);
}
M is_identity_perm_(NativeEnv& e, const rules::Constraint& c) {
  const bool holds = is_identity_perm(perm_arg(e, c, 0));
  if (c.negated) return M::dropped(not_used(c, kPermNot));
  return M::of(holds);
}

/// axes_all_size / some_axis_size: per-axis size conditions on the listed axes of a type.
M axes_size(NativeEnv& e, const rules::Constraint& c, bool all) {
  const TypeV* t = e.type_of(c.args[0]);
  const AttrB* ax = e.attr(c.args[1].name);
  if (!t || !ax || !ax->concrete) throw Outside{c.pred + " on unbound captures"};
  std::vector<Expr> each;
  bool outside_rank = false;
  for (int64_t k : ax->c) {
    if (k < 0 || k >= static_cast<int64_t>(t->second.size())) {
      // natives.cpp: axes_all_size is false with an axis beyond the rank; some_axis_size looks at the
      // axes within it only.
      if (all) return M::of(false);
      outside_rank = true;
      continue;
    }
    each.push_back(t->second[k] == Expr::intVal(c.args[2].i));
  }
  if (!all && each.empty() && outside_rank) return M::of(false);
  // all: a per-axis condition on every listed axis, kept by dropping axes; some (or not all): one
  // witness axis, counted in the rank bound (witness_axes). A negated `all` is not assumed.
  if (all && c.negated) return M::dropped(not_used(c, "a listed axis of another size may be dropped"));
  return M::where(all ? Expr::all(each) : Expr::any(each));
}
M axes_all_size_(NativeEnv& e, const rules::Constraint& c) { return axes_size(e, c, true); }
M some_axis_size_(NativeEnv& e, const rules::Constraint& c) { return axes_size(e, c, false); }

M attr_is_(NativeEnv& e, const rules::Constraint& c) {
  const AttrB* a = e.attr(c.args[0].name);
  if (!a || !a->concrete) throw Outside{"attr_is on a per-axis attribute"};
  if (a->is_word) return M::of(a->word == c.args[1].name);
  // An integer (an axis number) is renumbered when axes are dropped: not an axis-uniform condition.
  throw Outside{"attr_is on an integer attribute (an axis number) is not preserved by dropping axes"};
}

M is_pow2_(NativeEnv& e, const rules::Constraint& c) {
  const auto lit = e.lit(c.args[0].name);
  if (!lit) throw Outside{"is_pow2 on an unbound literal"};
  if (!is_float(lit->first)) return M::of(false);
  M m = M::where(pow2_exact(lit->second));
  m.pow2_divisor = lit->second;
  return m;
}
/// const($c) is encoded as a splat (the fragment's gate admits it only where is_splat or is_pow2 holds).
// A positive is_splat($c) makes const($c) a splat (PredFact::SplatLiteral: one element, `lit`); a literal
// that is none (under `not is_splat`) is encoded as any tensor of its type, splats included.
M is_splat_(NativeEnv& e, const rules::Constraint& c) {
  if (e.lit(c.args[0].name)) return M::of(true);
  return M::dropped("`is_splat` not used: the literal is encoded as any tensor of its type (the statement proved is stronger)");
}

M exact_accum_(NativeEnv& e, const rules::Constraint& c) {
  const ReduceAccum* a = e.accum(c.args[0].name);
  if (!a) throw Outside{"exact_accum of a value that is not a reduction"};
  return M::of(!a->has_accum || rules::widens_exactly(a->elem, a->acc));
}

/// keeps_free_order($p, $b, $c): decided by the configuration's permutation and axis lists. A negation
/// is not assumed: restricted to fewer axes a permutation that reorders the free axes may keep them.
M keeps_free_order_(NativeEnv& e, const rules::Constraint& c) {
  const auto p = perm_arg(e, c, 0), b = perm_arg(e, c, 1), l = perm_arg(e, c, 2);
  std::vector<bool> listed(p.size(), false);
  bool holds = true;
  for (const auto* v : {&b, &l})
    for (int64_t d : *v) {
      if (d < 0 || d >= static_cast<int64_t>(p.size())) holds = false;
      else listed[d] = true;
    }
  int64_t last = -1;
  for (size_t i = 0; holds && i < p.size(); ++i) {
    if (listed[i]) continue;
    if (p[i] <= last) holds = false;
    last = p[i];
  }
  if (c.negated) return M::dropped(not_used(c, "a permutation that reorders free axes may keep them once axes are dropped"));
  return M::of(holds);
}

/// has_attr(%r, word): which attributes the op `as %r` carries is a choice of the configuration (a
/// dot_general's batch lists and accum, a reduction's accum), kept by dropping axes (an instance keeps
/// writing the attribute, an empty list included), in both polarities.
M has_attr_(NativeEnv& e, const rules::Constraint& c) {
  const std::optional<bool> h = e.has_attr(c.args[0].name, c.args[1].name);
  if (!h)
    throw Outside{"constraint has_attr(%" + c.args[0].name + ", " + c.args[1].name +
                  ") on an attribute the configuration does not choose (a dot_general's batch lists or accum, a "
                  "reduction's accum): bounded only"};
  return M::of(*h);
}

const char* kNotLinear = "is not a per-axis linear condition the encoding has (bounded only)";

const PredicateSpec kPredicates[] = {
    {N::IsFloat, nullptr, is_float_},
    {N::IsInt, nullptr, is_int_},
    {N::IsSigned, nullptr, is_signed_},
    {N::IsUnsigned, nullptr, is_unsigned_},
    {N::IsBool, nullptr, is_bool_},
    {N::DtypeIs, nullptr, dtype_is_},
    {N::RankIs, nullptr, rank_is_, PredFact::Rank},
    {N::NumElementsIs, kNotLinear},  // a product of sizes: not a per-axis condition
    {N::OneUse, nullptr, one_use_},
    {N::SameType, nullptr, same_type_, PredFact::SameShape, PermIdentity::None, 0, true},
    {N::SameDtype, nullptr, same_dtype_},
    {N::SameShape, nullptr, same_shape_, PredFact::SameShape, PermIdentity::None, 0, true},
    {N::WidensExactly, nullptr, widens_exactly_},
    {N::ComposesToIdentity, nullptr, composes_to_identity_, PredFact::None, PermIdentity::Inverse},
    {N::IsIdentityPerm, nullptr, is_identity_perm_, PredFact::None, PermIdentity::Identity},
    {N::AxesAllSize, nullptr, axes_all_size_, PredFact::None, PermIdentity::None, 0, true},
    {N::SomeAxisSize, nullptr, some_axis_size_, PredFact::None, PermIdentity::None, 1, true},
    {N::AttrIs, nullptr, attr_is_},
    {N::IsPow2, nullptr, is_pow2_, PredFact::SplatLiteral},
    {N::IsSplat, nullptr, is_splat_, PredFact::SplatLiteral},
    {N::ExactAccum, nullptr, exact_accum_},
    {N::HasAttr, nullptr, has_attr_},
    {N::KeepsFreeOrder, nullptr, keeps_free_order_, PredFact::None, PermIdentity::FreeOrder},
    {N::IsConstant, nullptr, is_constant_},
};

// ---- attribute helpers ----
/// A permutation of 0..n-1.
bool is_perm(const std::vector<int64_t>& p) {
  std::vector<bool> seen(p.size(), false);
  for (int64_t k : p) {
    if (k < 0 || k >= static_cast<int64_t>(p.size()) || seen[k]) return false;
    seen[k] = true;
  }
  return true;
}
/// Permutations of two ranks (a transpose under a broadcast_to composed with one above it) do not
/// compose: the helper does not apply (the encoder used to index out of bounds there).
std::optional<std::vector<int64_t>> compose_perm_(std::span<const std::vector<int64_t>> a) {
  if (a[0].size() != a[1].size() || !is_perm(a[0]) || !is_perm(a[1])) return std::nullopt;
  std::vector<int64_t> r(a[1].size());
  for (size_t i = 0; i < r.size(); ++i) r[i] = a[0][a[1][i]];
  return r;
}
std::optional<std::vector<int64_t>> inverse_perm_(std::span<const std::vector<int64_t>> a) {
  if (!is_perm(a[0])) return std::nullopt;
  std::vector<int64_t> r(a[0].size());
  for (size_t i = 0; i < r.size(); ++i) r[a[0][i]] = static_cast<int64_t>(i);
  return r;
}
/// Mathematical integers: where the concrete helper overflows int64 it does not apply (the rule does
/// not fire), so this is more behaviours, never fewer.
std::vector<Expr> add_ints_(std::span<const std::vector<Expr>> a) {
  std::vector<Expr> r;
  for (size_t k = 0; k < a[0].size(); ++k) r.push_back(a[0][k].iadd(a[1][k]));
  return r;
}
std::vector<Expr> mul_ints_(std::span<const std::vector<Expr>> a) {
  std::vector<Expr> r;
  for (size_t k = 0; k < a[0].size(); ++k) r.push_back(a[0][k].imul(a[1][k]));
  return r;
}

/// r[k] = p[a[k]]; does not apply (natives.cpp h_permute_axes) when an entry of a is outside p's axes.
std::optional<std::vector<int64_t>> permute_axes_(std::span<const std::vector<int64_t>> a) {
  std::vector<int64_t> r;
  for (int64_t d : a[1]) {
    if (d < 0 || d >= static_cast<int64_t>(a[0].size())) return std::nullopt;
    r.push_back(a[0][d]);
  }
  return r;
}

std::vector<Expr> sub_ints_(std::span<const std::vector<Expr>> a) {
  std::vector<Expr> r;
  for (size_t k = 0; k < a[0].size(); ++k) r.push_back(a[0][k].isub(a[1][k]));
  return r;
}

const AttrHelperSpec kAttrHelpers[] = {
    {N::ComposePerm, nullptr, compose_perm_, nullptr, PermWord::Compose},
    {N::InversePerm, nullptr, inverse_perm_, nullptr, PermWord::Inverse},
    {N::AddInts, nullptr, nullptr, add_ints_},
    {N::MulInts, nullptr, nullptr, mul_ints_},
    {N::PermuteAxes, nullptr, permute_axes_, nullptr, PermWord::PermuteAxes},
    {N::SubInts, nullptr, nullptr, sub_ints_},
    // Literal elements read as integers (sizes and per-axis integers of a configuration are not literals).
    {N::LitInts, "(lit_ints reads literal elements as integers: bounded only)"},
};

// ---- literal helpers ----
LitMeaning lowest_(NativeEnv&, const std::vector<std::string>&, DType d) { return {verify::sem::lowest(d), std::nullopt}; }
LitMeaning highest_(NativeEnv&, const std::vector<std::string>&, DType d) { return {verify::sem::highest(d), std::nullopt}; }

/// 1/c rounded to the dtype, of the splat literal argument (same float dtype as the result).
Expr reciprocal_of(NativeEnv& e, const std::vector<std::string>& args, DType d, const char* name, Expr* c_out) {
  const auto lit = e.lit(args.empty() ? "" : args[0]);
  if (!lit) throw Outside{std::string(name) + " of an unbound literal"};
  if (!is_float(d) || lit->first != d) throw Infeasible{"reciprocal dtype"};
  const Expr c = lit->second;
  const smt::FPFormat f = c.format();
  const Expr one = Expr::fpBits(((uint64_t{1} << (f.ebits - 1)) - 1) << (f.sbits - 1), f);
  *c_out = c;
  return one / c;
}
LitMeaning reciprocal_(NativeEnv& e, const std::vector<std::string>& args, DType d) {
  Expr c;
  const Expr v = reciprocal_of(e, args, d, "reciprocal", &c);
  // natives.cpp l_reciprocal applies only where 1/c is finite and exact (a power of two with a
  // representable inverse, or an infinity): elsewhere the rule does not apply.
  return {v, c.isInf() || pow2_exact(c)};
}
LitMeaning reciprocal_rounded_(NativeEnv& e, const std::vector<std::string>& args, DType d) {
  Expr c;
  return {reciprocal_of(e, args, d, "reciprocal_rounded", &c), std::nullopt};
}

/// The splat literal argument k in dtype d: Outside when unbound, Infeasible when its dtype is not d or d
/// is i1 (natives.cpp as_type / eval_elementwise: the helper does not apply).
Expr lit_arg(NativeEnv& e, const std::vector<std::string>& args, size_t k, DType d, const char* name) {
  const auto lit = e.lit(k < args.size() ? args[k] : "");
  if (!lit) throw Outside{std::string(name) + " of an unbound literal"};
  if (lit->first != d || d == DType::I1) throw Infeasible{std::string(name) + " dtype"};
  return lit->second;
}
/// add_lits / mul_lits / neg_lit: the add / mul / neg op's element (verify/encode scalar semantics, the
/// same terms the encoder gives the ops): floats rounded to nearest-even, integers wrapping.
LitMeaning add_lits_(NativeEnv& e, const std::vector<std::string>& args, DType d) {
  return {verify::sem::add(lit_arg(e, args, 0, d, "add_lits"), lit_arg(e, args, 1, d, "add_lits"), d), std::nullopt};
}
LitMeaning mul_lits_(NativeEnv& e, const std::vector<std::string>& args, DType d) {
  return {verify::sem::mul(lit_arg(e, args, 0, d, "mul_lits"), lit_arg(e, args, 1, d, "mul_lits"), d), std::nullopt};
}
LitMeaning neg_lit_(NativeEnv& e, const std::vector<std::string>& args, DType d) {
  return {verify::sem::neg(lit_arg(e, args, 0, d, "neg_lit"), d), std::nullopt};
}

const LitHelperSpec kLitHelpers[] = {
    {N::Reciprocal, nullptr, reciprocal_},
    {N::ReciprocalRounded, nullptr, reciprocal_rounded_},
    {N::Lowest, nullptr, lowest_},
    {N::Highest, nullptr, highest_},
    {N::AddLits, nullptr, add_lits_},
    {N::MulLits, nullptr, mul_lits_},
    {N::NegLit, nullptr, neg_lit_},
    // Its argument is an integer expression over sizes and attribute entries, which the fragment's
    // configurations do not name.
    {N::IntLit, "(int_lit reads sizes as integers: bounded only)", nullptr},
};

template <class Spec, size_t K>
const Spec* by_id(const Spec (&table)[K], NativeId id) {
  for (const Spec& s : table)
    if (s.id == id) return &s;
  return nullptr;
}

template <class Spec>
const Spec* named(const Spec* (*lookup)(NativeId), const std::string& name, rules::Site site, std::string* why) {
  const std::optional<NativeId> id = rules::native_id(name, site);
  if (!id) {
    if (why) *why = "outside the fragment: " + name + " is not a native";
    return nullptr;
  }
  const Spec* s = lookup(*id);
  if (why && !s) *why = no_spec(*id);
  return s;
}

}  // namespace

std::string no_spec(NativeId id) {
  return "outside the fragment: native " + std::string(rules::native_name(id)) + " has no all-shape spec";
}

const PredicateSpec* predicate_spec(NativeId id) { return by_id(kPredicates, id); }
const AttrHelperSpec* attr_helper_spec(NativeId id) { return by_id(kAttrHelpers, id); }
const LitHelperSpec* lit_helper_spec(NativeId id) { return by_id(kLitHelpers, id); }

const PredicateSpec* predicate_spec_named(const std::string& name, std::string* why) {
  return named(predicate_spec, name, rules::Site::Predicate, why);
}
const AttrHelperSpec* attr_helper_spec_named(const std::string& name, std::string* why) {
  return named(attr_helper_spec, name, rules::Site::Helper, why);
}
const LitHelperSpec* lit_helper_spec_named(const std::string& name, std::string* why) {
  return named(lit_helper_spec, name, rules::Site::Helper, why);
}

}  // namespace ptir::allshape::detail
