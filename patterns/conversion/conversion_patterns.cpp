// The conversion patterns. Each states its identity; `ptir convert --prove-patterns` (and the golden
// tests) check every one on instances in each source dtype, exhaustively where the dtypes are narrow.
#include "patterns/conversion/conversion_patterns.h"

#include "ir/dtype.h"

namespace ptir {
namespace {

using conversion::Adaptor;
using conversion::ConversionPattern;
using conversion::ConversionTarget;
using conversion::TypeConverter;

/// Binary64 has p = 53 bits, binary32 24, binary16 11, bfloat16 8.
int precision(DType d) {
  switch (d) {
    case DType::F16: return 11;
    case DType::BF16: return 8;
    case DType::F32: return 24;
    case DType::F64: return 53;
    default: return 0;
  }
}
int exp_bits(DType d) { return d == DType::F16 ? 5 : d == DType::F64 ? 11 : 8; }

/// `wide` holds every value of `narrow` exactly and is precise enough for one operation computed in it
/// and rounded to `narrow` to be correctly rounded (p' >= 2p + 2: + - * / sqrt; Figueroa).
bool innocuous_double_rounding(DType narrow, DType wide) {
  return is_float(narrow) && is_float(wide) && precision(wide) >= 2 * precision(narrow) + 2 &&
         exp_bits(wide) >= exp_bits(narrow);
}

/// op_D(x, ...) ==> cast(op_W(cast(x) : W, ...)) : D   for + - * / sqrt reciprocal maximum minimum neg abs
/// compare (compare: no cast back; its i1 result is the same), D = f16/bf16, W = f32 (or f64):
/// exact, because W holds every D value and p_W >= 2 p_D + 2 makes the second rounding innocuous for the
/// correctly rounded ops; maximum, minimum, neg, abs and compare do not round at all.
class ComputeElementwiseWide final : public ConversionPattern {
 public:
  std::string_view name() const override { return "compute_elementwise_wide"; }
  std::vector<OpCode> roots() const override {
    return {OpCode::Add, OpCode::Sub, OpCode::Mul, OpCode::Div, OpCode::Sqrt, OpCode::Reciprocal, OpCode::Maximum,
            OpCode::Minimum, OpCode::Neg, OpCode::Abs, OpCode::Compare};
  }
  // Its root op re-created in the target's compute dtype is legal (parse_target checks that every
  // converted-to dtype is legal), so only the casts count.
  std::vector<OpCode> generates() const override { return {OpCode::Cast}; }
  bool match(const Program& p, InstId i, const ConversionTarget& t, std::string& why) const override {
    const DType d = p.type_of(p.operand(i, 0)).dtype;
    auto it = t.type_map.find(d);
    if (it == t.type_map.end()) {
      why = std::string("the target converts no ") + dtype_name(d);
      return false;
    }
    if (!innocuous_double_rounding(d, it->second)) {
      why = std::string(dtype_name(d)) + " through " + dtype_name(it->second) +
            " rounds twice where it matters (needs p' >= 2p + 2)";
      return false;
    }
    return true;
  }
  void rewrite(ProgramRewriter& rw, InstId i, const Adaptor& a, const ConversionTarget&,
               const TypeConverter& tc) const override {
    const ValueId res = rw.result(i);
    TensorType wide = rw.type_of(res);
    const DType d = wide.dtype;
    const bool cmp = rw.op(i) == OpCode::Compare;
    if (!cmp) wide.dtype = tc.convert(d);
    const InstId n = rw.insert_before(i, rw.op(i), a.converted, std::vector<TypeId>{rw.intern_type(wide)}, rw.attrs_id(i));
    ValueId v = rw.result(n);
    if (!cmp) v = tc.materialize(rw, i, v, d);
    rw.replace_op(i, v);
  }
};

/// Whether the reduction or dot_general accumulates in `acc` (its accum attribute, else the default).
DType accum_of(const Program& p, InstId i) {
  if (const AttrValue* a = p.attrs_of(i).find("accum"); a && a->kind == AttrKind::DType && !a->ints.empty())
    return static_cast<DType>(a->ints[0]);
  const DType e = p.type_of(p.operand(i, 0)).dtype;
  return e == DType::F16 || e == DType::BF16 ? DType::F32 : e;
}

/// reduce_sum/max/min or dot_general on D with accum[A], A the dtype the target computes D in:
///   op_D(x, ...) accum[A] ==> cast(op_A(cast(x) : A, ...) accum[A]) : D
/// exact: the op already casts each element to A (exact: A holds every D value), folds in A and casts
/// the result to D once (docs/semantics.md); casting first changes nothing.
class ReduceInAccum final : public ConversionPattern {
 public:
  std::string_view name() const override { return "reduce_in_accum"; }
  std::vector<OpCode> roots() const override {
    return {OpCode::ReduceSum, OpCode::ReduceMax, OpCode::ReduceMin, OpCode::DotGeneral};
  }
  std::vector<OpCode> generates() const override { return {OpCode::Cast}; }  // the op itself becomes legal
  bool match(const Program& p, InstId i, const ConversionTarget& t, std::string& why) const override {
    const DType d = p.type_of(p.operand(i, 0)).dtype;
    const DType acc = accum_of(p, i);
    auto it = t.type_map.find(d);
    if (acc == d) {
      why = std::string("accumulates in ") + dtype_name(d) + " (accum[" + dtype_name(d) + "]): computing it in " +
            (it == t.type_map.end() ? std::string("a wider dtype") : dtype_name(it->second)) +
            " changes the accumulation precision, which is not exact";
      return false;
    }
    if (!t.legal_dtypes.count(acc)) {
      why = std::string("its accumulation dtype ") + dtype_name(acc) + " is not legal";
      return false;
    }
    if (d == acc || !is_float(d) || !is_float(acc) || precision(acc) < precision(d) || exp_bits(acc) < exp_bits(d)) {
      why = std::string(dtype_name(d)) + " does not widen exactly into " + dtype_name(acc);
      return false;
    }
    return true;
  }
  void rewrite(ProgramRewriter& rw, InstId i, const Adaptor& a, const ConversionTarget&,
               const TypeConverter& tc) const override {
    const DType acc = accum_of(rw.program(), i);
    std::vector<ValueId> ops;
    for (ValueId v : a.original) ops.push_back(tc.materialize(rw, i, v, acc));
    TensorType ty = rw.type_of(rw.result(i));
    const DType d = ty.dtype;
    ty.dtype = acc;
    const InstId n = rw.insert_before(i, rw.op(i), ops, std::vector<TypeId>{rw.intern_type(ty)}, rw.attrs_id(i));
    rw.replace_op(i, tc.materialize(rw, i, rw.result(n), d));
  }
};

/// NOT EXACT - used only by a target that declares accept-accum-change:
///   op_D(x, ...) accum[D] ==> cast(op_W(cast(x) : W, ...) accum[W]) : D
/// A bf16 sum accumulated in bf16 rounds every partial sum to bf16; in f32 it does not: the results
/// differ (`ptir convert --validate` says REFUTED with the input).
class WidenAccumulation final : public ConversionPattern {
 public:
  std::string_view name() const override { return "widen_accumulation"; }
  std::vector<OpCode> roots() const override {
    return {OpCode::ReduceSum, OpCode::ReduceMax, OpCode::ReduceMin, OpCode::DotGeneral};
  }
  std::vector<OpCode> generates() const override { return {OpCode::Cast}; }
  bool exact() const override { return false; }
  bool match(const Program& p, InstId i, const ConversionTarget& t, std::string& why) const override {
    const DType d = p.type_of(p.operand(i, 0)).dtype;
    auto it = t.type_map.find(d);
    if (accum_of(p, i) != d || it == t.type_map.end()) {
      why = "not a narrow accumulation the target converts";
      return false;
    }
    return true;
  }
  void rewrite(ProgramRewriter& rw, InstId i, const Adaptor& a, const ConversionTarget&,
               const TypeConverter& tc) const override {
    AttrSet attrs = rw.attrs(i);
    TensorType ty = rw.type_of(rw.result(i));
    const DType d = ty.dtype, w = tc.convert(d);
    for (Attr& at : attrs.attrs)
      if (at.name == "accum") at.value.ints = {static_cast<int64_t>(w)};
    ty.dtype = w;
    const InstId n = rw.insert_before(i, rw.op(i), a.converted, std::vector<TypeId>{rw.intern_type(ty)},
                                      rw.intern_attrs(attrs));
    rw.replace_op(i, tc.materialize(rw, i, rw.result(n), d));
  }
};

}  // namespace

const std::vector<const ConversionPattern*>& all_conversion_patterns() {
  static const ComputeElementwiseWide a;
  static const ReduceInAccum b;
  static const WidenAccumulation c;
  static const std::vector<const ConversionPattern*> all = {&a, &b, &c};
  return all;
}

const ConversionPattern* find_conversion_pattern(std::string_view name) {
  for (const ConversionPattern* p : all_conversion_patterns())
    if (p->name() == name) return p;
  return nullptr;
}

}  // namespace ptir
