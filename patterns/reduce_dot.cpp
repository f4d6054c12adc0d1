// C++ patterns for reductions that need axis bookkeeping: merging reduction chains. (Absorbing a
// dot_general operand's transpose into its dimension numbers is a rule: patterns/rules/dot.rules.) Each
// class's `///` line states its identity and why it is exact.
#include <algorithm>
#include <array>

#include "patterns/cpp_patterns.h"
#include "rewriter/rewriter.h"
#include "rewriter/views.h"

namespace ptir {
namespace detail {
AttrValue ints_attr(std::vector<int64_t> v) { return AttrValue{AttrKind::Ints, std::move(v), {}, {}}; }
AttrValue int_attr(int64_t v) { return AttrValue{AttrKind::Int, {v}, {}, {}}; }
}  // namespace detail

namespace {

using detail::ints_attr;

/// r(r(x, A) keepdims k, B) keepdims k ==> r(x, A ∪ B') keepdims k for r in reduce_max / reduce_min
/// (any dtype: maximum and minimum are exactly associative and commutative, NaN and ±0 included) and
/// reduce_sum on integers (wrapping sums are associative and commutative). B' are B's axes numbered in
/// x. Neither reduction may carry an `accum`, and the inner one must have no other use (the merged
/// reduction reads x again). Float sums are NOT merged: that changes the fold order.
class MergeReduceChain final : public Pattern {
 public:
  MergeReduceChain() : Pattern("merge_reduce_chain", kRoots, 3) {
    set_has_bounded_recursion();  // produces its own root op: each application shrinks the chain
  }
  /// Operand 0 is a reduction of the root's own op (the first check below).
  RootShape root_shape_for(OpCode root) const override {
    RootShape s;
    s.operand[0].kind = OperandNeed::Kind::Op;
    s.operand[0].op = root;
    return s;
  }
  bool match_and_rewrite(InstId root, ProgramRewriter& rw) const override {
    const ValueId y = rw.operand(root, 0);
    const InstId in = rw.inst_of(y);
    if (in == kNone || rw.op(in) != rw.op(root)) return rw.notify_match_failure("operand is not the same reduction");
    if (!rw.has_one_use(y)) return rw.notify_match_failure("the inner reduction has other uses");
    const AttrSet& ao = rw.attrs(root);
    const AttrSet& ai = rw.attrs(in);
    if (ao.find("accum") || ai.find("accum")) return rw.notify_match_failure("a reduction has an accum dtype");
    const ValueId x = rw.operand(in, 0);
    const DType d = rw.type_of(x).dtype;
    if (rw.op(root) == OpCode::ReduceSum && !is_integer(d))
      return rw.notify_match_failure("float sums fold in a fixed order: merging reorders them");
    const bool keep = ao.bool_or("keepdims", false);
    if (ai.bool_or("keepdims", false) != keep) return rw.notify_match_failure("keepdims differ");
    const int rank = rw.type_of(x).rank();
    std::vector<bool> reduced(rank, false);
    for (int64_t a : ai.ints("axes")) {
      if (a < 0 || a >= rank) return rw.notify_match_failure("axis out of range");
      reduced[a] = true;
    }
    // The inner result's dims in x numbering.
    std::vector<int64_t> kept;
    for (int k = 0; k < rank; ++k)
      if (keep || !reduced[k]) kept.push_back(k);
    std::vector<bool> merged = reduced;
    for (int64_t b : ao.ints("axes")) {
      if (b < 0 || b >= static_cast<int64_t>(kept.size())) return rw.notify_match_failure("axis out of range");
      merged[kept[b]] = true;
    }
    std::vector<int64_t> axes;
    for (int k = 0; k < rank; ++k)
      if (merged[k]) axes.push_back(k);
    AttrSet s;
    s.attrs.push_back(Attr{"axes", ints_attr(std::move(axes))});
    if (ao.find("keepdims")) s.attrs.push_back(Attr{"keepdims", *ao.find("keepdims")});
    const InstId n = rw.insert_before(root, rw.op(root), std::array<ValueId, 1>{x},
                                      std::array<TypeId, 1>{rw.type_id(rw.result(root))}, rw.intern_attrs(s));
    rw.replace_op(root, rw.result(n));
    rw.erase_inst(in);
    return true;
  }

 private:
  static constexpr std::array<OpCode, 3> kRoots = {OpCode::ReduceSum, OpCode::ReduceMax, OpCode::ReduceMin};
};

}  // namespace

namespace detail {
std::vector<std::pair<std::string, std::string>> reduce_dot_templates() {
  return {
      // The pattern leaves reductions with an accum alone: its templates say so (the prover then does
      // not require it to fire on accum classes; instances with an accum are still generated as near
      // misses and checked if it fires).
      {"merge_reduce_chain",
       "reduce_max(reduce_max(%x) {axes = $a} as %i) {axes = $b} as %o where not has_attr(%i, accum), not has_attr(%o, accum)"},
      {"merge_reduce_chain",
       "reduce_min(reduce_min(%x) {axes = $a} as %i) {axes = $b} as %o where not has_attr(%i, accum), not has_attr(%o, accum)"},
      {"merge_reduce_chain", "reduce_sum(reduce_sum(%x) {axes = $a} as %i) {axes = $b} as %o where is_int(%x), "
                             "not has_attr(%i, accum), not has_attr(%o, accum)"},
  };
}
}  // namespace detail

void populate_reduce_dot_patterns(PatternSet& set) {
  set.add_with_label<MergeReduceChain>("reduce").set_origin("C++ patterns/reduce_dot.cpp");
}

}  // namespace ptir
