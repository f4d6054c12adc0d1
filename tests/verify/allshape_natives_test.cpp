// Natives with specs (issue 15 item 3): every rule native has concrete code (rewriter/rules/natives.cpp)
// and a symbolic all-shape spec (verify/allshape/native_specs.cpp), one entry per native id. These tests
// check that every id has an entry (or is marked outside the fragment with a reason), and, on random
// dtypes, shapes, permutations, integer lists and literals (RapidCheck), that each spec says what the
// concrete code computes: a predicate's Known/Formula meaning is the concrete truth, a helper's value is
// the concrete value, and a literal helper applies exactly where the concrete one does.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <deque>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "ir/program.h"
#include "rewriter/rules/natives.h"
#include "verify/allshape/encoder.h"
#include "verify/allshape/native_specs.h"
#include "verify/encode/ops.h"
#include "verify/smt/solver.h"

namespace ptir::allshape::detail {
namespace {

using rules::CapKind;
using rules::NativeId;
using smt::Expr;

/// Whether `f` holds: decided by simplification, else by Z3 (its negation unsat).
bool valid(const Expr& f) {
  const Expr s = f.simplify();
  if (s.isTrue()) return true;
  if (s.isFalse()) return false;
  smt::Solver z(5000);
  z.add(!f);
  const smt::Result r = z.check();
  RC_ASSERT(r != smt::Result::Unknown);
  return r == smt::Result::Unsat;
}

// ---- random inputs ----
DType gen_dtype() { return static_cast<DType>(*rc::gen::inRange(0, kNumDTypes)); }
DType gen_float_dtype() { return *rc::gen::element(DType::BF16, DType::F16, DType::F32, DType::F64); }
TensorType gen_type(DType d) {
  TensorType t;
  t.dtype = d;
  const int rank = *rc::gen::inRange(0, 5);
  for (int k = 0; k < rank; ++k) t.dims.push_back(*rc::gen::inRange<int64_t>(0, 4));
  return t;
}
std::vector<int64_t> gen_perm(int n) {
  std::vector<int64_t> p(n);
  std::iota(p.begin(), p.end(), 0);
  for (int i = n - 1; i > 0; --i) std::swap(p[i], p[*rc::gen::inRange(0, i + 1)]);
  return p;
}
/// Bits of dtype `d`, biased to the edges: zeros, infinities, NaN, powers of two (subnormal ones too).
uint64_t gen_bits(DType d) {
  const uint64_t mask = bits_mask(d);
  if (!is_float(d)) return *rc::gen::arbitrary<uint64_t>() & mask;
  const DTypeInfo& f = dtype_info(d);
  const uint64_t sign = *rc::gen::arbitrary<bool>() ? sign_mask(d) : 0;
  switch (*rc::gen::inRange(0, 4)) {
    case 0: return *rc::gen::arbitrary<uint64_t>() & mask;
    case 1: return sign | *rc::gen::element(uint64_t{0}, float_inf(d, false), float_inf(d, false) | 1);
    case 2: {  // +-2^k: a normal exponent with a zero fraction, or a subnormal single bit
      const uint64_t e = *rc::gen::inRange<uint64_t>(0, (uint64_t{1} << f.exp_bits) - 1);
      if (e == 0) return sign | (uint64_t{1} << *rc::gen::inRange<int>(0, f.frac_bits));
      return sign | (e << f.frac_bits);
    }
    default: return sign | (uint64_t{1} << f.frac_bits) | (*rc::gen::arbitrary<uint64_t>() & ((uint64_t{1} << f.frac_bits) - 1));
  }
}

/// The captures of one random call, bound both ways: concretely (a Program and rules::Captures, what
/// natives.cpp reads) and symbolically (a NativeEnv, what native_specs.cpp reads, sizes as numerals).
class World : public NativeEnv {
 public:
  World() : body_(p_.add_body("main", false)) {}

  /// `%name` (a value, when `as_value`) or `$name` (a type capture) of type `t`.
  rules::Constraint::Arg type_arg(const std::string& name, const TensorType& t, bool as_value) {
    rules::Arg a;
    if (as_value) {
      a.kind = CapKind::Value, a.slot = nvalue_++;
      caps_.value[a.slot] = p_.add_param(body_, p_.intern_type(t), name);
    } else {
      a.kind = CapKind::Type, a.slot = ntype_++;
      caps_.type[a.slot] = p_.intern_type(t);
    }
    args_.push_back(a);
    TypeV v{t.dtype, {}};
    for (int64_t n : t.dims) v.second.push_back(Expr::intVal(n));
    types_[name] = v;
    return {as_value ? rules::Constraint::Arg::Kind::Value : rules::Constraint::Arg::Kind::Capture, name, 0};
  }
  /// `$name` bound to an integer list: concrete in the encoder (a permutation, axes), or per-axis.
  rules::Constraint::Arg list_arg(const std::string& name, const std::vector<int64_t>& v, bool per_axis) {
    AttrValue a;
    a.kind = AttrKind::Ints;
    a.ints = v;
    AttrB b;
    b.concrete = !per_axis;
    if (per_axis)
      for (int64_t x : v) b.sym.push_back(Expr::intVal(x));
    else
      b.c = v;
    return attr_arg(name, std::move(a), std::move(b));
  }
  rules::Constraint::Arg word_attr_arg(const std::string& name, const std::string& word) {
    AttrValue a;
    a.kind = AttrKind::Word;
    a.text = word;
    return attr_arg(name, std::move(a), AttrB{true, {}, {}, word, true});
  }
  /// `$name` bound to a dtype attribute (dot_general's accum): the IR keeps the dtype's number, the
  /// all-shape engine its name (encode_dot.cpp).
  rules::Constraint::Arg dtype_attr_arg(const std::string& name, DType d) {
    AttrValue a;
    a.kind = AttrKind::DType;
    a.ints = {static_cast<int64_t>(d)};
    return attr_arg(name, std::move(a), AttrB{true, {}, {}, std::string(dtype_name(d)), true});
  }
  /// `$name` bound by const($name) to a splat literal of `t` with element `bits`.
  rules::Constraint::Arg lit_arg(const std::string& name, const TensorType& t, uint64_t bits) {
    tensors_.emplace_back(t);
    for (int64_t i = 0; i < tensors_.back().size(); ++i) tensors_.back().set_bits(i, bits);
    rules::Arg a;
    a.kind = CapKind::Lit, a.slot = nlit_++;
    caps_.lit[a.slot] = &tensors_.back();
    args_.push_back(a);
    lits_[name] = {t.dtype, verify::sem::constant(t.dtype, bits)};
    return {rules::Constraint::Arg::Kind::Capture, name, 0};
  }
  /// `%name` defined by a reduce_sum of an operand of dtype `elem`, with `accum = acc` when given.
  rules::Constraint::Arg reduction_arg(const std::string& name, DType elem, std::optional<DType> acc) {
    TensorType xt{elem, {2}};
    const ValueId x = p_.add_param(body_, p_.intern_type(xt), "x" + name);
    AttrSet s;
    s.attrs.push_back(Attr{"axes", AttrValue{AttrKind::Ints, {0}, "", {}}});
    if (acc) s.attrs.push_back(Attr{"accum", AttrValue{AttrKind::DType, {static_cast<int64_t>(*acc)}, "", {}}});
    const TypeId ty = p_.intern_type(TensorType{elem, {}});
    const InstId i = p_.create_inst(body_, OpCode::ReduceSum, std::span<const ValueId>(&x, 1), p_.intern_attrs(s),
                                    std::span<const TypeId>(&ty, 1));
    rules::Arg a;
    a.kind = CapKind::Value, a.slot = nvalue_++;
    caps_.value[a.slot] = p_.result(i, 0);
    args_.push_back(a);
    accums_[name] = ReduceAccum{elem, acc.has_value(), acc.value_or(elem)};
    present_[name] = {{"axes", true}, {"accum", acc.has_value()}};
    return {rules::Constraint::Arg::Kind::Value, name, 0};
  }
  /// `%name` defined by a dot_general of two rank-2 operands (one contracting dim), batch lists written
  /// empty or absent, `accum = acc` when given: the attributes a configuration chooses.
  rules::Constraint::Arg dot_arg(const std::string& name, DType elem, bool batch_written, std::optional<DType> acc) {
    TensorType xt{elem, {2, 3}};
    const ValueId x = p_.add_param(body_, p_.intern_type(xt), "x" + name);
    AttrSet s;
    if (batch_written) {
      s.attrs.push_back(Attr{"batch_lhs", AttrValue{AttrKind::Ints, {}, "", {}}});
      s.attrs.push_back(Attr{"batch_rhs", AttrValue{AttrKind::Ints, {}, "", {}}});
    }
    s.attrs.push_back(Attr{"contract_lhs", AttrValue{AttrKind::Ints, {1}, "", {}}});
    s.attrs.push_back(Attr{"contract_rhs", AttrValue{AttrKind::Ints, {1}, "", {}}});
    if (acc) s.attrs.push_back(Attr{"accum", AttrValue{AttrKind::DType, {static_cast<int64_t>(*acc)}, "", {}}});
    const TypeId ty = p_.intern_type(TensorType{elem, {2, 2}});
    const std::array<ValueId, 2> ops = {x, x};
    const InstId i = p_.create_inst(body_, OpCode::DotGeneral, ops, p_.intern_attrs(s), std::span<const TypeId>(&ty, 1));
    rules::Arg a;
    a.kind = CapKind::Value, a.slot = nvalue_++;
    caps_.value[a.slot] = p_.result(i, 0);
    args_.push_back(a);
    accums_[name] = ReduceAccum{elem, acc.has_value(), acc.value_or(elem)};
    present_[name] = {{"batch_lhs", batch_written}, {"batch_rhs", batch_written}, {"contract_lhs", true},
                      {"contract_rhs", true}, {"accum", acc.has_value()}};
    return {rules::Constraint::Arg::Kind::Value, name, 0};
  }
  rules::Constraint::Arg int_arg(int64_t i) {
    rules::Arg a;
    a.i = i;
    args_.push_back(a);
    return {rules::Constraint::Arg::Kind::Int, "", i};
  }
  rules::Constraint::Arg word_arg(const std::string& w) {
    rules::Arg a;
    a.word = w;
    args_.push_back(a);
    return {rules::Constraint::Arg::Kind::Word, w, 0};
  }

  const Program& program() const { return p_; }
  const rules::Captures& captures() const { return caps_; }
  std::span<const rules::Arg> args() const { return args_; }

  // NativeEnv
  const TypeV* type_of(const rules::Constraint::Arg& a) override {
    auto it = types_.find(a.name);
    return it == types_.end() ? nullptr : &it->second;
  }
  const AttrB* attr(const std::string& name) const override {
    auto it = attrs_.find(name);
    return it == attrs_.end() ? nullptr : &it->second;
  }
  std::optional<std::pair<DType, Expr>> lit(const std::string& name) const override {
    auto it = lits_.find(name);
    if (it == lits_.end()) return std::nullopt;
    return it->second;
  }
  const ReduceAccum* accum(const std::string& value) const override {
    auto it = accums_.find(value);
    return it == accums_.end() ? nullptr : &it->second;
  }
  std::optional<bool> has_attr(const std::string& value, const std::string& attr) const override {
    auto it = present_.find(value);
    if (it == present_.end()) return std::nullopt;
    auto a = it->second.find(attr);
    if (a == it->second.end()) return std::nullopt;
    return a->second;
  }

 private:
  rules::Constraint::Arg attr_arg(const std::string& name, AttrValue v, AttrB b) {
    attr_values_.push_back(std::move(v));
    rules::Arg a;
    a.kind = CapKind::Attr, a.slot = nattr_++;
    caps_.attr[a.slot] = &attr_values_.back();
    args_.push_back(a);
    attrs_[name] = std::move(b);
    return {rules::Constraint::Arg::Kind::Capture, name, 0};
  }

  Program p_;
  BodyId body_;
  rules::Captures caps_{};
  std::vector<rules::Arg> args_;
  int nvalue_ = 0, ntype_ = 0, nattr_ = 0, nlit_ = 0;
  std::deque<AttrValue> attr_values_;
  std::deque<Tensor> tensors_;
  std::map<std::string, TypeV> types_;
  std::map<std::string, AttrB> attrs_;
  std::map<std::string, std::pair<DType, Expr>> lits_;
  std::map<std::string, ReduceAccum> accums_;
  std::map<std::string, std::map<std::string, bool>> present_;
};

/// Checks predicate `id` on the world's arguments, in both polarities: where the spec claims a meaning
/// (Known or Formula), it is the concrete truth; Dropped only for a negation (or one_use, never used).
void check_predicate(NativeId id, World& w, std::vector<rules::Constraint::Arg> cargs) {
  const rules::PredicateSpec* concrete = nullptr;
  for (const auto& p : rules::all_predicates())
    if (p.id == id) concrete = &p;
  RC_ASSERT(concrete != nullptr);
  const bool truth = concrete->fn(w.program(), w.captures(), w.args());
  const PredicateSpec* spec = predicate_spec(id);
  RC_ASSERT(spec != nullptr);
  RC_ASSERT(spec->meaning != nullptr);
  for (bool negated : {false, true}) {
    rules::Constraint c;
    c.pred = std::string(concrete->name);
    c.args = cargs;
    c.negated = negated;
    const PredMeaning m = spec->meaning(w, c);
    switch (m.kind) {
      case PredMeaning::Kind::Known:
        RC_ASSERT(m.known == truth);
        break;
      case PredMeaning::Kind::Formula:
        RC_ASSERT(valid(m.formula) == truth);
        break;
      case PredMeaning::Kind::Dropped:
        RC_ASSERT(negated || id == NativeId::OneUse);
        RC_ASSERT(!m.note.empty());
        break;
    }
  }
}

TEST(AllShapeNatives, EveryNativeHasASpecOrIsOutsideWithAReason) {
  smt::Context ctx;
  std::set<NativeId> ids;
  for (int k = 0; k < rules::kNumNatives; ++k) {
    const NativeId id = static_cast<NativeId>(k);
    const std::string name(rules::native_name(id));
    EXPECT_NE(name, "?") << "native id " << k << " is in no table of rewriter/rules/natives.cpp";
    int entries = 0;
    if (const PredicateSpec* s = predicate_spec(id)) {
      ++entries;
      EXPECT_NE(rules::find_predicate(name), nullptr) << name << ": a predicate spec for a native that is no predicate";
      EXPECT_TRUE(s->outside ? std::string(s->outside).size() > 10 && !s->meaning : s->meaning != nullptr) << name;
    }
    if (const AttrHelperSpec* s = attr_helper_spec(id)) {
      ++entries;
      EXPECT_NE(rules::find_attr_helper(name), nullptr) << name;
      EXPECT_TRUE(s->outside ? std::string(s->outside).size() > 10 : s->on_lists || s->on_per_axis) << name;
    }
    if (const LitHelperSpec* s = lit_helper_spec(id)) {
      ++entries;
      EXPECT_NE(rules::find_lit_helper(name), nullptr) << name;
      EXPECT_TRUE(s->outside ? std::string(s->outside).size() > 10 && !s->meaning : s->meaning != nullptr) << name;
    }
    EXPECT_EQ(entries, 1) << "native " << name << " has no all-shape spec entry in verify/allshape/native_specs.cpp "
                          << "(give it one, or mark it outside the fragment with a reason)";
    ids.insert(id);
  }
  // Every native of the rewriter's tables has a distinct id.
  size_t natives = 0;
  std::set<NativeId> seen;
  for (const auto& p : rules::all_predicates()) natives += seen.insert(p.id).second;
  for (const auto& h : rules::all_attr_helpers()) natives += seen.insert(h.id).second;
  for (const auto& h : rules::all_lit_helpers()) natives += seen.insert(h.id).second;
  EXPECT_EQ(natives, rules::all_predicates().size() + rules::all_attr_helpers().size() + rules::all_lit_helpers().size());
  EXPECT_EQ(seen, ids);
  // Those outside the fragment say why.
  EXPECT_STREQ(predicate_spec(NativeId::NumElementsIs)->outside,
               "is not a per-axis linear condition the encoding has (bounded only)");
  EXPECT_EQ(no_spec(NativeId::IsFloat), "outside the fragment: native is_float has no all-shape spec");
}

RC_GTEST_PROP(AllShapeNatives, DtypePredicatesMatchTheirCode, ()) {
  smt::Context ctx;
  World w;
  const TensorType a = gen_type(gen_dtype()), b = gen_type(gen_dtype());
  const auto x = w.type_arg("x", a, *rc::gen::arbitrary<bool>());
  const NativeId unary = *rc::gen::element(NativeId::IsFloat, NativeId::IsInt, NativeId::IsSigned, NativeId::IsUnsigned,
                                           NativeId::IsBool);
  {
    World u;
    check_predicate(unary, u, {u.type_arg("x", a, *rc::gen::arbitrary<bool>())});
  }
  {
    World u;
    const auto ux = u.type_arg("x", a, *rc::gen::arbitrary<bool>());
    const std::string word = *rc::gen::element<std::string>("f32", "si8", "bf16", "i1", "ui64", "f33", "F16");
    check_predicate(NativeId::DtypeIs, u, {ux, u.word_arg(word)});
  }
  const auto y = w.type_arg("y", b, *rc::gen::arbitrary<bool>());
  const NativeId binary = *rc::gen::element(NativeId::SameDtype, NativeId::WidensExactly);
  check_predicate(binary, w, {x, y});
}

RC_GTEST_PROP(AllShapeNatives, ShapePredicatesMatchTheirCode, ()) {
  smt::Context ctx;
  const TensorType a = gen_type(gen_dtype());
  // The second type: often the same shape (or type), else random.
  TensorType b = *rc::gen::arbitrary<bool>() ? a : gen_type(gen_dtype());
  if (*rc::gen::arbitrary<bool>()) b.dtype = gen_dtype();
  {
    World w;
    const auto x = w.type_arg("x", a, *rc::gen::arbitrary<bool>());
    check_predicate(NativeId::RankIs, w, {x, w.int_arg(*rc::gen::inRange<int64_t>(0, 5))});
  }
  for (NativeId id : {NativeId::SameType, NativeId::SameShape}) {
    World w;
    const auto x = w.type_arg("x", a, *rc::gen::arbitrary<bool>());
    const auto y = w.type_arg("y", b, *rc::gen::arbitrary<bool>());
    check_predicate(id, w, {x, y});
  }
  // Axes: an axis list of the encoder (concrete), axes within the rank mostly, beyond it sometimes.
  std::vector<int64_t> axes;
  const int n = *rc::gen::inRange(0, 4);
  for (int k = 0; k < n; ++k) axes.push_back(*rc::gen::inRange<int64_t>(0, static_cast<int64_t>(a.dims.size()) + 2));
  const int64_t size = *rc::gen::inRange<int64_t>(0, 3);
  for (NativeId id : {NativeId::AxesAllSize, NativeId::SomeAxisSize}) {
    World w;
    const auto x = w.type_arg("x", a, *rc::gen::arbitrary<bool>());
    const auto ax = w.list_arg("a", axes, false);
    check_predicate(id, w, {x, ax, w.int_arg(size)});
  }
}

RC_GTEST_PROP(AllShapeNatives, PermutationPredicatesMatchTheirCode, ()) {
  smt::Context ctx;
  const int n = *rc::gen::inRange(0, 6);
  const std::vector<int64_t> p = gen_perm(n);
  std::vector<int64_t> q;
  switch (*rc::gen::inRange(0, 3)) {
    case 0: {  // p's inverse: composes to the identity
      q.resize(n);
      for (int i = 0; i < n; ++i) q[p[i]] = i;
      break;
    }
    case 1: q = gen_perm(n); break;
    default: q = gen_perm(*rc::gen::inRange(0, 6)); break;  // maybe another rank
  }
  {
    World w;
    const auto a = w.list_arg("p", p, false);
    const auto b = w.list_arg("q", q, false);
    check_predicate(NativeId::ComposesToIdentity, w, {a, b});
  }
  {
    World w;
    const std::vector<int64_t> id_or_not = *rc::gen::arbitrary<bool>() ? gen_perm(n) : [&] {
      std::vector<int64_t> i(n);
      std::iota(i.begin(), i.end(), 0);
      return i;
    }();
    check_predicate(NativeId::IsIdentityPerm, w, {w.list_arg("p", id_or_not, false)});
  }
  {
    World w;  // attr_is on a word attribute (compare's dir)
    const std::string dir = *rc::gen::element<std::string>("lt", "le", "eq", "ge", "gt", "ne");
    const auto d = w.word_attr_arg("d", dir);
    check_predicate(NativeId::AttrIs, w,
                    {d, w.word_arg(*rc::gen::arbitrary<bool>() ? dir : *rc::gen::element<std::string>("lt", "eq", "ne"))});
  }
  {
    World w;  // attr_is on a dtype attribute (dot_general's accum): the same dtype or another
    const DType acc = gen_dtype();
    const auto d = w.dtype_attr_arg("acc", acc);
    const DType named = *rc::gen::arbitrary<bool>() ? acc : gen_dtype();
    check_predicate(NativeId::AttrIs, w, {d, w.word_arg(std::string(dtype_name(named)))});
  }
}

RC_GTEST_PROP(AllShapeNatives, LiteralAndReductionPredicatesMatchTheirCode, ()) {
  smt::Context ctx;
  const DType d = *rc::gen::arbitrary<bool>() ? gen_float_dtype() : gen_dtype();
  TensorType t{d, {}};
  const int rank = *rc::gen::inRange(0, 3);
  for (int k = 0; k < rank; ++k) t.dims.push_back(*rc::gen::inRange<int64_t>(1, 3));  // non-empty: a splat
  const uint64_t bits = gen_bits(d);
  for (NativeId id : {NativeId::IsPow2, NativeId::IsSplat}) {
    World w;
    check_predicate(id, w, {w.lit_arg("c", t, bits)});
  }
  World w;
  const DType elem = gen_dtype();
  const std::optional<DType> acc = *rc::gen::arbitrary<bool>() ? std::optional<DType>(gen_dtype()) : std::nullopt;
  check_predicate(NativeId::ExactAccum, w, {w.reduction_arg("r", elem, acc)});
}

TEST(AllShapeNatives, OneUseAndIsConstantAreNeverUsedAndTheOthersOutsideAreNotEncoded) {
  smt::Context ctx;
  World w;
  const auto x = w.type_arg("x", TensorType{DType::F32, {2}}, true);
  for (bool negated : {false, true}) {
    rules::Constraint c{"one_use", {x}, negated, {}, {}, {}};
    const PredMeaning m = predicate_spec(NativeId::OneUse)->meaning(w, c);
    EXPECT_EQ(m.kind, PredMeaning::Kind::Dropped);
    EXPECT_EQ(m.note, "one_use not used: the statement proved is stronger (any number of uses)");
    // is_constant only decides where a rule fires: never assumed, in either polarity.
    rules::Constraint k{"is_constant", {x}, negated, {}, {}, {}};
    const PredMeaning mk = predicate_spec(NativeId::IsConstant)->meaning(w, k);
    EXPECT_EQ(mk.kind, PredMeaning::Kind::Dropped);
    EXPECT_NE(mk.note.find("is_constant` not used"), std::string::npos) << mk.note;
  }
  EXPECT_EQ(predicate_spec(NativeId::NumElementsIs)->meaning, nullptr);
  // has_attr is decided only where the configuration chooses the attribute: elsewhere Outside.
  rules::Constraint c{"has_attr", {x, rules::Constraint::Arg{rules::Constraint::Arg::Kind::Word, "accum", 0}}, false, {}, {}, {}};
  EXPECT_THROW(predicate_spec(NativeId::HasAttr)->meaning(w, c), Outside);
}

/// has_attr on the attributes a configuration chooses (a reduction's accum, a dot_general's batch lists
/// and accum), and keeps_free_order / permute_axes (dot_general_absorb_transpose) on random
/// permutations and axis lists, some beyond the rank.
RC_GTEST_PROP(AllShapeNatives, DotNativesMatchTheirCode, ()) {
  smt::Context ctx;
  const DType elem = gen_dtype();
  const std::optional<DType> acc = *rc::gen::arbitrary<bool>() ? std::optional<DType>(gen_dtype()) : std::nullopt;
  const std::string word = *rc::gen::element<std::string>("accum", "batch_lhs", "batch_rhs", "contract_lhs", "axes");
  {
    World w;
    const auto r = *rc::gen::arbitrary<bool>() ? w.dot_arg("d", elem, *rc::gen::arbitrary<bool>(), acc)
                                              : w.reduction_arg("d", elem, acc);
    if (w.has_attr("d", word)) check_predicate(NativeId::HasAttr, w, {r, w.word_arg(word)});
  }
  const int n = *rc::gen::inRange(0, 6);
  const std::vector<int64_t> p = gen_perm(n);
  auto gen_axes = [&] {
    std::vector<int64_t> a;
    const int k = *rc::gen::inRange(0, 4);
    for (int i = 0; i < k; ++i) a.push_back(*rc::gen::inRange<int64_t>(-1, n + 2));
    return a;
  };
  const std::vector<int64_t> b = gen_axes(), c = gen_axes();
  {
    World w;
    const auto pa = w.list_arg("p", p, false);
    const auto ba = w.list_arg("b", b, false);
    const auto ca = w.list_arg("c", c, false);
    check_predicate(NativeId::KeepsFreeOrder, w, {pa, ba, ca});
  }
  {
    World w;
    w.list_arg("p", p, false);
    w.list_arg("a", b, false);
    const auto concrete = rules::find_attr_helper("permute_axes")->fn(w.captures(), w.args());
    const std::vector<std::vector<int64_t>> lists = {p, b};
    RC_ASSERT(attr_helper_spec(NativeId::PermuteAxes)->on_lists(lists) == concrete);
  }
}

RC_GTEST_PROP(AllShapeNatives, PermutationHelpersMatchTheirCode, ()) {
  smt::Context ctx;
  const int n = *rc::gen::inRange(0, 6);
  const std::vector<int64_t> p = gen_perm(n);
  const std::vector<int64_t> q = *rc::gen::inRange(0, 4) == 0 ? gen_perm(*rc::gen::inRange(0, 6)) : gen_perm(n);
  {
    World w;
    w.list_arg("p", p, false);
    w.list_arg("q", q, false);
    const auto concrete = rules::find_attr_helper("compose_perm")->fn(w.captures(), w.args());
    const std::vector<std::vector<int64_t>> lists = {p, q};
    RC_ASSERT(attr_helper_spec(NativeId::ComposePerm)->on_lists(lists) == concrete);
  }
  {
    World w;
    w.list_arg("p", p, false);
    const auto concrete = rules::find_attr_helper("inverse_perm")->fn(w.captures(), w.args());
    const std::vector<std::vector<int64_t>> lists = {p};
    RC_ASSERT(attr_helper_spec(NativeId::InversePerm)->on_lists(lists) == concrete);
  }
}

RC_GTEST_PROP(AllShapeNatives, IntegerListHelpersMatchTheirCodeWhereItApplies, ()) {
  smt::Context ctx;
  const int n = *rc::gen::inRange(0, 5);
  auto gen_int = [] {
    switch (*rc::gen::inRange(0, 3)) {
      case 0: return *rc::gen::inRange<int64_t>(-4, 9);
      case 1: return *rc::gen::element<int64_t>(INT64_MAX, INT64_MIN, int64_t{1} << 32, int64_t{1} << 31, -(int64_t{1} << 62));
      default: return *rc::gen::arbitrary<int64_t>();
    }
  };
  std::vector<int64_t> a, b;
  for (int k = 0; k < n; ++k) a.push_back(gen_int()), b.push_back(gen_int());
  for (NativeId id : {NativeId::AddInts, NativeId::MulInts, NativeId::SubInts}) {
    World w;
    w.list_arg("a", a, true);
    w.list_arg("b", b, true);
    const bool add = id == NativeId::AddInts, sub = id == NativeId::SubInts;
    const auto concrete = rules::find_attr_helper(rules::native_name(id))->fn(w.captures(), w.args());
    auto exact_of = [&](int k) {
      return add ? static_cast<__int128>(a[k]) + b[k] : sub ? static_cast<__int128>(a[k]) - b[k] : static_cast<__int128>(a[k]) * b[k];
    };
    std::vector<Expr> sa, sb;
    for (int k = 0; k < n; ++k) sa.push_back(Expr::intVal(a[k])), sb.push_back(Expr::intVal(b[k]));
    const std::vector<std::vector<Expr>> lists = {sa, sb};
    const std::vector<Expr> r = attr_helper_spec(id)->on_per_axis(lists);
    RC_ASSERT(r.size() == a.size());
    for (int k = 0; k < n; ++k) {
      const __int128 exact = exact_of(k);
      const std::optional<int64_t> got = r[k].simplify().intNumeral();
      if (concrete) {
        RC_ASSERT(got == std::optional<int64_t>((*concrete)[k]));
      } else {
        // The concrete helper does not apply (an overflow somewhere; the rule does not fire): the spec
        // computes with mathematical integers, so entries beyond int64 are no int64 numeral.
        RC_ASSERT(!got || static_cast<__int128>(*got) == exact);
      }
    }
    if (!concrete) {
      bool overflow = false;
      for (int k = 0; k < n; ++k) {
        const __int128 exact = exact_of(k);
        overflow = overflow || exact > INT64_MAX || exact < INT64_MIN;
      }
      RC_ASSERT(overflow);
    }
  }
}

RC_GTEST_PROP(AllShapeNatives, LiteralHelpersMatchTheirCode, ()) {
  smt::Context ctx;
  const DType d = *rc::gen::inRange(0, 4) ? gen_float_dtype() : gen_dtype();
  const TensorType t{d, {*rc::gen::inRange<int64_t>(1, 3)}};
  const DType ld = *rc::gen::inRange(0, 5) ? d : gen_dtype();  // the literal's dtype, rarely another
  const uint64_t bits = gen_bits(ld);
  for (NativeId id : {NativeId::Reciprocal, NativeId::ReciprocalRounded, NativeId::Lowest, NativeId::Highest}) {
    World w;
    const bool type_param = id == NativeId::Lowest || id == NativeId::Highest;
    if (type_param) w.type_arg("T", t, false);
    else w.lit_arg("c", TensorType{ld, t.dims}, bits);
    const rules::LitHelperSpec* h = rules::find_lit_helper(rules::native_name(id));
    const std::optional<Tensor> concrete = h->fn(w.program(), w.captures(), w.args(), t);
    std::optional<LitMeaning> m;
    try {
      m = lit_helper_spec(id)->meaning(w, {type_param ? "T" : "c"}, d);
    } catch (const Infeasible&) {  // the spec: the helper does not apply to these dtypes
    }
    if (!m || (m->applies && !valid(*m->applies))) {
      RC_ASSERT(!concrete.has_value());
      continue;
    }
    RC_ASSERT(concrete.has_value());
    // Spec equality of elements: NaNs equal, +0 != -0.
    RC_ASSERT(valid(m->value == verify::sem::constant(d, concrete->bits(0))));
  }
}

/// add_lits, mul_lits and neg_lit: the concrete helper (the interpreter's add / mul / neg on the
/// literals) against the spec (the encoder's scalar add / mul / neg), on every dtype, i1 included (where
/// neither applies), with a literal of another dtype now and then (where neither applies either).
RC_GTEST_PROP(AllShapeNatives, LiteralArithmeticHelpersMatchTheirCode, ()) {
  smt::Context ctx;
  const DType d = gen_dtype();
  const TensorType t{d, {*rc::gen::inRange<int64_t>(1, 3)}};
  const DType ld = *rc::gen::inRange(0, 6) ? d : gen_dtype();
  const uint64_t a = gen_bits(ld), b = gen_bits(ld);
  for (NativeId id : {NativeId::AddLits, NativeId::MulLits, NativeId::NegLit}) {
    World w;
    w.lit_arg("a", TensorType{ld, t.dims}, a);
    if (id != NativeId::NegLit) w.lit_arg("b", TensorType{ld, t.dims}, b);
    const rules::LitHelperSpec* h = rules::find_lit_helper(rules::native_name(id));
    const std::optional<Tensor> concrete = h->fn(w.program(), w.captures(), w.args(), t);
    std::optional<LitMeaning> m;
    try {
      m = lit_helper_spec(id)->meaning(w, {"a", "b"}, d);
    } catch (const Infeasible&) {
    }
    if (!m) {
      RC_ASSERT(!concrete.has_value());
      continue;
    }
    RC_ASSERT(!m->applies.has_value());
    RC_ASSERT(concrete.has_value());
    RC_ASSERT(valid(m->value == verify::sem::constant(d, concrete->bits(0))));
  }
}

/// int_lit's element (natives.cpp int_lit_bits): integers wrap (v mod 2^w) and floats round to
/// nearest-even, exactly as cast from si64 does (verify/encode scalar cast); i1 takes only 0 and 1.
RC_GTEST_PROP(AllShapeNatives, IntLitIsTheCastFromSi64, ()) {
  smt::Context ctx;
  const DType d = gen_dtype();
  const int64_t v = *rc::gen::inRange(0, 2) ? *rc::gen::inRange<int64_t>(-70000, 70000) : *rc::gen::arbitrary<int64_t>();
  const std::optional<uint64_t> bits = rules::int_lit_bits(d, v);
  if (d == DType::I1) {
    RC_ASSERT(bits.has_value() == (v == 0 || v == 1));
    if (bits) RC_ASSERT(*bits == static_cast<uint64_t>(v));
    return;
  }
  RC_ASSERT(bits.has_value());
  const Expr cast = verify::sem::cast(verify::sem::integer(DType::SI64, v), DType::SI64, d);
  if (is_float(d)) {
    RC_ASSERT(valid(cast == verify::sem::constant(d, *bits)));
  } else {
    // Integer casts saturate in PTIR (docs/semantics.md); int_lit wraps, as an integer sum of N copies does.
    RC_ASSERT(*bits == (static_cast<uint64_t>(v) & bits_mask(d)));
  }
}

}  // namespace
}  // namespace ptir::allshape::detail
