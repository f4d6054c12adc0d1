// The seed patterns: the five examples of the rewrite-system design, each a small named class whose
// `///` line states the identity it applies. Each is sound on its own, whatever order rules fire in,
// and never makes the program costlier.
#include "patterns/seed.h"

#include <array>

#include "patterns/match.h"
#include "rewriter/views.h"

namespace ptir {
namespace {

/// cast(x : T) -> T  ==>  x      (a cast to the operand's own type moves no bit, NaN payloads included)
class RemoveNoopCast final : public OpRewritePattern<CastView> {
 public:
  RemoveNoopCast() : OpRewritePattern("remove_noop_cast", 1) {}
  bool match_and_rewrite(const CastView& op, ProgramRewriter& rw) const override {
    if (rw.type_id(op.x) != rw.type_id(op.result)) return rw.notify_match_failure("the cast changes the type");
    rw.replace_op(op.root, op.x);
    return true;
  }
};

/// u(broadcast_to(x)) ==> broadcast_to(u(x))   for elementwise u that keeps x's dtype
///
/// u then runs on x's elements only. Only when the broadcast has no other use: otherwise the broadcast
/// stays and the program would gain an op (a second broadcast) instead of shrinking u's work. Not on an
/// empty broadcast of a non-empty x (found by `ptir prove` with nnan instances: u's UB on unread x).
class FuseUnaryThroughBroadcast final : public OpRewritePattern<ElementwiseUnaryView> {
 public:
  FuseUnaryThroughBroadcast() : OpRewritePattern("fuse_unary_through_broadcast", 3) {}
  /// The operand index's first look: one operand, a broadcast_to's result (checked again below).
  RootShape root_shape() const override {
    RootShape s;
    s.num_operands = 1;
    s.operand[0] = {OperandNeed::Kind::Op, OpCode::BroadcastTo};
    return s;
  }
  bool match_and_rewrite(const ElementwiseUnaryView& op, ProgramRewriter& rw) const override {
    InstId b = rw.inst_of(op.x);
    if (b == kNone || rw.op(b) != OpCode::BroadcastTo) return rw.notify_match_failure("operand is not a broadcast_to");
    if (!rw.has_one_use(op.x))
      return rw.notify_match_failure("the broadcast_to has other uses (fusing would duplicate work)");
    ValueId x = rw.operand(b, 0);
    if (rw.type_of(x).dtype != rw.type_of(op.result).dtype)
      return rw.notify_match_failure("the result dtype differs from the broadcast operand's");
    // An empty broadcast never runs u on x's elements; the rewrite would, and under nnan/ninf that can
    // be UB the source does not have (sqrt of a negative x). Non-empty, every x element is broadcast.
    if (rw.type_of(op.result).num_elements() == 0 && rw.type_of(x).num_elements() > 0)
      return rw.notify_match_failure("the broadcast is empty: u would run on elements the source never computes");
    ValueId u = rw.insert_before(op.root, op.kind, {x}, rw.type_id(x));
    ValueId nb = rw.insert_before(op.root, OpCode::BroadcastTo, {u}, rw.type_id(op.result), rw.attrs_id(b));
    rw.replace_op(op.root, nb);
    rw.erase_inst(b);  // its one use was the root
    return true;
  }
};

/// transpose(transpose(x, p), q) ==> transpose(x, r) with r[i] = p[q[i]];  ==> x when r is the identity
///
/// Composing never costs more than the pair (one transpose replaces the outer one) and removes the
/// inner one when that was its only use. It applies again to its own result along a chain, so it is
/// marked as having bounded recursion (each application removes a transpose from the chain).
class FoldTransposePair final : public OpRewritePattern<TransposeView> {
 public:
  FoldTransposePair() : OpRewritePattern("fold_transpose_pair", 2) { set_has_bounded_recursion(); }
  /// The operand index's first look: a transpose's result (checked again below).
  RootShape root_shape() const override {
    RootShape s;
    s.num_operands = 1;
    s.operand[0] = {OperandNeed::Kind::Op, OpCode::Transpose};
    return s;
  }
  bool match_and_rewrite(const TransposeView& op, ProgramRewriter& rw) const override {
    InstId inner = rw.inst_of(op.x);
    if (inner == kNone || rw.op(inner) != OpCode::Transpose)
      return rw.notify_match_failure("operand is not a transpose");
    const std::vector<int64_t>& p = rw.attrs(inner).ints("perm");
    if (p.size() != op.perm.size()) return rw.notify_match_failure("ranks differ");
    std::vector<int64_t> r(op.perm.size());
    bool identity = true;
    for (size_t i = 0; i < r.size(); ++i) {
      int64_t q = op.perm[i];
      if (q < 0 || q >= static_cast<int64_t>(p.size())) return rw.notify_match_failure("perm out of range");
      r[i] = p[q];
      identity = identity && r[i] == static_cast<int64_t>(i);
    }
    ValueId x = rw.operand(inner, 0);
    if (identity) {
      rw.replace_op(op.root, x);
      return true;
    }
    AttrSet perm;
    perm.attrs.push_back(Attr{"perm", AttrValue{AttrKind::Ints, std::move(r), {}, {}}});
    AttrSetId a = rw.intern_attrs(perm);
    rw.replace_op(op.root, rw.insert_before(op.root, OpCode::Transpose, {x}, rw.type_id(op.result), a));
    return true;
  }
};

/// x * 1 ==> x      (exact for every float, -0.0 / inf / NaN included, and every integer)
class FoldMulByOne final : public OpRewritePattern<ElementwiseBinaryView> {
 public:
  FoldMulByOne() : OpRewritePattern("fold_mul_by_one", 2, kOnly<OpCode::Mul>) {
    for (int d = 0; d < kNumDTypes; ++d) ones_[d] = one_bits(static_cast<DType>(d));
  }
  bool match_and_rewrite(const ElementwiseBinaryView& op, ProgramRewriter& rw) const override {
    uint64_t one = ones_[static_cast<int>(rw.type_of(op.result).dtype)];
    ValueId keep = is_splat_constant(rw, op.rhs, one) ? op.lhs : is_splat_constant(rw, op.lhs, one) ? op.rhs : kNone;
    if (keep == kNone) return rw.notify_match_failure("neither operand is a splat of 1");
    rw.replace_op(op.root, keep);
    return true;
  }

 private:
  std::array<uint64_t, kNumDTypes> ones_{};  ///< bits of 1 per dtype, computed once
};

/// x + (-0.0) ==> x   (IEEE: x + -0.0 == x for every x, -0.0 included; NaN stays NaN).
/// Not x + (+0.0): that turns -0.0 into +0.0.
class FoldAddNegZero final : public OpRewritePattern<ElementwiseBinaryView> {
 public:
  FoldAddNegZero() : OpRewritePattern("fold_add_neg_zero", 2, kOnly<OpCode::Add>) {}
  bool match_and_rewrite(const ElementwiseBinaryView& op, ProgramRewriter& rw) const override {
    DType d = rw.type_of(op.result).dtype;
    if (!is_float(d)) return rw.notify_match_failure("not a float add");
    uint64_t neg_zero = sign_mask(d);
    ValueId keep = is_splat_constant(rw, op.rhs, neg_zero)   ? op.lhs
                   : is_splat_constant(rw, op.lhs, neg_zero) ? op.rhs
                                                             : kNone;
    if (keep == kNone) return rw.notify_match_failure("neither operand is a splat of -0.0");
    rw.replace_op(op.root, keep);
    return true;
  }
};

}  // namespace

void populate_seed_patterns_without_rule_twins(PatternSet& set) {
  set.add_with_label<RemoveNoopCast>("seed").add_label("cast");
  set.add_with_label<FuseUnaryThroughBroadcast>("seed").add_label("broadcast");
  set.add_with_label<FoldTransposePair>("seed").add_label("transpose");
}

void populate_seed_patterns(PatternSet& set) {
  populate_seed_patterns_without_rule_twins(set);
  set.add_with_label<FoldMulByOne>("seed").add_label("algebraic");
  set.add_with_label<FoldAddNegZero>("seed").add_label("algebraic");
}

}  // namespace ptir
