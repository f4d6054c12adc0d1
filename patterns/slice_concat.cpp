// C++ patterns for concat, slice, pad and broadcast_to that need shape arithmetic. Each class's `///`
// line states its identity; every one is exact for every dtype (shape ops move elements, never change
// a bit) and never adds an op to the program.
#include <algorithm>

#include "patterns/cpp_patterns.h"
#include "rewriter/rewriter.h"
#include "rewriter/views.h"

namespace ptir {
namespace detail {
AttrValue ints_attr(std::vector<int64_t> v) { return AttrValue{AttrKind::Ints, std::move(v), {}, {}}; }
AttrValue int_attr(int64_t v) { return AttrValue{AttrKind::Int, {v}, {}, {}}; }
}  // namespace detail

namespace {

using detail::int_attr;
using detail::ints_attr;

/// The one-attribute set {name = ints}.
AttrSetId one_attr(ProgramRewriter& rw, const char* name, AttrValue v) {
  AttrSet s;
  s.attrs.push_back(Attr{name, std::move(v)});
  return rw.intern_attrs(s);
}

/// `slice x starts[s] -> T` as a value: x itself when the window is the whole of x.
ValueId make_slice(ProgramRewriter& rw, InstId at, ValueId x, std::vector<int64_t> starts, const TensorType& t) {
  const TypeId tid = rw.intern_type(t);
  if (rw.type_id(x) == tid) return x;  // size == dim on every axis forces start 0
  return rw.insert_before(at, OpCode::Slice, {x}, tid, one_attr(rw, "starts", ints_attr(std::move(starts))));
}

/// concat(..., concat(a, b, ...) axis[k], ...) axis[k] ==> concat(..., a, b, ..., ...) axis[k]
/// (a concatenation along one axis is associative; only inner concats with no other use are spliced,
/// so the program loses an op)
class ConcatFlatten final : public Pattern {
 public:
  ConcatFlatten() : Pattern("concat_flatten", kOnly<OpCode::Concat>, 2) {
    set_has_bounded_recursion();  // produces its own root op: each application shrinks the chain
  }
  bool match_and_rewrite(InstId root, ProgramRewriter& rw) const override {
    const int64_t axis = rw.attrs(root).int_or("axis", 0);
    std::vector<ValueId> ops;
    std::vector<InstId> spliced;
    for (ValueId v : rw.operands(root)) {
      const InstId d = rw.inst_of(v);
      if (d != kNone && rw.op(d) == OpCode::Concat && rw.attrs(d).int_or("axis", 0) == axis && rw.has_one_use(v)) {
        for (ValueId w : rw.operands(d)) ops.push_back(w);
        spliced.push_back(d);
      } else {
        ops.push_back(v);
      }
    }
    if (spliced.empty()) return rw.notify_match_failure("no operand is a single-use concat along the same axis");
    const TypeId t = rw.type_id(rw.result(root));
    const InstId n = rw.insert_before(root, OpCode::Concat, ops, std::span<const TypeId>(&t, 1), rw.attrs_id(root));
    rw.replace_op(root, rw.result(n));
    for (InstId d : spliced) rw.erase_inst(d);
    return true;
  }
};

/// slice(concat(x0, ..., xn) axis[a]) ==> slice(xk) when the window's extent along a lies inside xk
/// (the elements read are xk's, shifted by xk's offset along a; xk itself when the window is all of it)
class SliceOfConcat final : public Pattern {
 public:
  SliceOfConcat() : Pattern("slice_of_concat", kOnly<OpCode::Slice>, 2) {
    set_has_bounded_recursion();  // produces its own root op: each application shrinks the chain
  }
  bool match_and_rewrite(InstId root, ProgramRewriter& rw) const override {
    const InstId c = rw.inst_of(rw.operand(root, 0));
    if (c == kNone || rw.op(c) != OpCode::Concat) return rw.notify_match_failure("operand is not a concat");
    const int64_t a = rw.attrs(c).int_or("axis", 0);
    std::vector<int64_t> starts = rw.attrs(root).ints("starts");
    const TensorType& t = rw.type_of(rw.result(root));
    if (a < 0 || a >= t.rank() || static_cast<int64_t>(starts.size()) != t.rank())
      return rw.notify_match_failure("axis or starts out of range");
    const int64_t s = starts[a], n = t.dims[a];
    if (n == 0) return rw.notify_match_failure("the window is empty along the concat axis");
    int64_t off = 0;
    for (ValueId x : rw.operands(c)) {
      const int64_t d = rw.type_of(x).dims[a];
      if (off <= s && s + n <= off + d) {
        starts[a] = s - off;
        rw.replace_op(root, make_slice(rw, root, x, std::move(starts), t));
        return true;
      }
      off += d;
    }
    return rw.notify_match_failure("the window straddles two concat operands");
  }
};

/// concat(..., slice(x, s), slice(x, s'), ...) axis[a] ==> concat(..., slice(x, s), ...) when the two
/// slices are adjacent along a (s'[a] = s[a] + size[a], equal elsewhere): one slice reads both windows.
/// Only slices with no other use merge (the program loses an op); a single remaining operand is the result.
class ConcatAdjacentSlices final : public Pattern {
 public:
  ConcatAdjacentSlices() : Pattern("concat_adjacent_slices", kOnly<OpCode::Concat>, 3) {
    set_has_bounded_recursion();  // produces its own root op: each application shrinks the chain
  }
  bool match_and_rewrite(InstId root, ProgramRewriter& rw) const override {
    const int64_t a = rw.attrs(root).int_or("axis", 0);
    std::vector<ValueId> ops(rw.operands(root).begin(), rw.operands(root).end());
    for (size_t k = 0; k + 1 < ops.size(); ++k) {
      const InstId i = rw.inst_of(ops[k]), j = rw.inst_of(ops[k + 1]);
      if (i == kNone || j == kNone || rw.op(i) != OpCode::Slice || rw.op(j) != OpCode::Slice) continue;
      if (rw.operand(i, 0) != rw.operand(j, 0) || !rw.has_one_use(ops[k]) || !rw.has_one_use(ops[k + 1])) continue;
      const std::vector<int64_t>& si = rw.attrs(i).ints("starts");
      const std::vector<int64_t>& sj = rw.attrs(j).ints("starts");
      const TensorType& ti = rw.type_of(ops[k]);
      const TensorType& tj = rw.type_of(ops[k + 1]);
      if (a < 0 || a >= ti.rank() || si.size() != sj.size()) continue;
      bool adjacent = sj[a] == si[a] + ti.dims[a];
      for (int d = 0; adjacent && d < ti.rank(); ++d)
        if (d != a) adjacent = si[d] == sj[d] && ti.dims[d] == tj.dims[d];
      if (!adjacent) continue;
      TensorType merged = ti;
      merged.dims[a] += tj.dims[a];
      const ValueId m = make_slice(rw, root, rw.operand(i, 0), si, merged);
      ops[k] = m;
      ops.erase(ops.begin() + static_cast<std::ptrdiff_t>(k) + 1);
      if (ops.size() == 1) {
        rw.replace_op(root, m);
      } else {
        const TypeId t = rw.type_id(rw.result(root));
        const InstId n = rw.insert_before(root, OpCode::Concat, ops, std::span<const TypeId>(&t, 1), rw.attrs_id(root));
        rw.replace_op(root, rw.result(n));
      }
      rw.erase_inst(i);
      rw.erase_inst(j);
      return true;
    }
    return rw.notify_match_failure("no two neighbouring single-use slices of one value are adjacent");
  }
};

/// slice(broadcast_to(x)) ==> broadcast_to(slice(x))   (a broadcast dim reads x's one element whatever
/// the window; other dims slice x the same way). When x needs no slice this is one op for two;
/// otherwise only when the broadcast has no other use (two ops for two, over fewer elements).
class SliceOfBroadcast final : public Pattern {
 public:
  SliceOfBroadcast() : Pattern("slice_of_broadcast", kOnly<OpCode::Slice>, 2) {
    set_has_bounded_recursion();  // produces its own root op: each application shrinks the chain
  }
  bool match_and_rewrite(InstId root, ProgramRewriter& rw) const override {
    const ValueId b = rw.operand(root, 0);
    const InstId bi = rw.inst_of(b);
    if (bi == kNone || rw.op(bi) != OpCode::BroadcastTo) return rw.notify_match_failure("operand is not a broadcast_to");
    const ValueId x = rw.operand(bi, 0);
    const TensorType& tx = rw.type_of(x);
    const TensorType& tb = rw.type_of(b);
    const TensorType& t = rw.type_of(rw.result(root));
    const std::vector<int64_t>& starts = rw.attrs(root).ints("starts");
    const int lead = tb.rank() - tx.rank();
    if (lead < 0 || static_cast<int>(starts.size()) != tb.rank()) return rw.notify_match_failure("ranks do not line up");
    TensorType ts = tx;
    std::vector<int64_t> xs(tx.rank(), 0);
    for (int j = 0; j < tx.rank(); ++j) {
      const int i = j + lead;
      if (tx.dims[j] == tb.dims[i]) xs[j] = starts[i], ts.dims[j] = t.dims[i];
      else ts.dims[j] = 1;  // a broadcast dim (size 1 in x)
    }
    const bool whole = ts == tx;
    if (!whole && !rw.has_one_use(b)) return rw.notify_match_failure("x needs a slice and the broadcast has other uses");
    const ValueId xs_v = make_slice(rw, root, x, xs, ts);
    rw.replace_op(root, rw.insert_before(root, OpCode::BroadcastTo, {xs_v}, rw.type_id(rw.result(root))));
    if (!whole) rw.erase_inst(bi);
    return true;
  }
};

/// slice(pad(x, low, high, interior 0)) ==> slice(x, starts - low) when the window lies inside x's part
/// of the padded tensor on every axis (no padding value is read)
class SliceOfPad final : public Pattern {
 public:
  SliceOfPad() : Pattern("slice_of_pad", kOnly<OpCode::Slice>, 2) {
    set_has_bounded_recursion();  // produces its own root op: each application shrinks the chain
  }
  bool match_and_rewrite(InstId root, ProgramRewriter& rw) const override {
    const InstId pi = rw.inst_of(rw.operand(root, 0));
    if (pi == kNone || rw.op(pi) != OpCode::Pad) return rw.notify_match_failure("operand is not a pad");
    const AttrSet& pa = rw.attrs(pi);
    for (int64_t e : pa.ints("interior"))
      if (e != 0) return rw.notify_match_failure("the pad has interior padding");
    const std::vector<int64_t>& low = pa.ints("low");
    std::vector<int64_t> starts = rw.attrs(root).ints("starts");
    const ValueId x = rw.operand(pi, 0);
    const TensorType& tx = rw.type_of(x);
    const TensorType& t = rw.type_of(rw.result(root));
    if (low.size() != starts.size() || static_cast<int>(starts.size()) != tx.rank())
      return rw.notify_match_failure("ranks do not line up");
    for (int d = 0; d < tx.rank(); ++d) {
      if (starts[d] < low[d] || starts[d] + t.dims[d] > low[d] + tx.dims[d])
        return rw.notify_match_failure("the window reads padding");
      starts[d] -= low[d];
    }
    rw.replace_op(root, make_slice(rw, root, x, std::move(starts), t));
    return true;
  }
};

}  // namespace

namespace detail {
std::vector<std::pair<std::string, std::string>> slice_concat_templates() {
  return {
      {"concat_flatten", "concat(concat(%x, %y) {axis = $a}, %z) {axis = $a}"},
      {"concat_flatten", "concat(%z, concat(%x, %y) {axis = $a}) {axis = $a}"},
      {"slice_of_concat", "slice(concat(%x, %y) {axis = $a}) {starts = $s}"},
      {"slice_of_concat", "slice(concat(%y, %x) {axis = $a}) {starts = $s}"},
      {"concat_adjacent_slices", "concat(slice(%x) {starts = $s}, slice(%x) {starts = $t}) {axis = $a}"},
      {"concat_adjacent_slices", "concat(%y, slice(%x) {starts = $s}, slice(%x) {starts = $t}) {axis = $a}"},
      {"slice_of_broadcast", "slice(broadcast_to(%x)) {starts = $s}"},
      // Interior padding is left alone (no interior written; an all-zero interior is handled too and
      // still generated, as a near miss).
      {"slice_of_pad", "slice(pad(%x) {low = $l, high = $h} as %p) {starts = $s} where not has_attr(%p, interior)"},
  };
}
}  // namespace detail

void populate_slice_concat_patterns(PatternSet& set) {
  set.add_with_label<ConcatFlatten>("concat").set_origin("C++ patterns/slice_concat.cpp");
  set.add_with_label<SliceOfConcat>("slice").set_origin("C++ patterns/slice_concat.cpp");
  set.add_with_label<ConcatAdjacentSlices>("concat").set_origin("C++ patterns/slice_concat.cpp");
  set.add_with_label<SliceOfBroadcast>("slice").set_origin("C++ patterns/slice_concat.cpp");
  set.add_with_label<SliceOfPad>("slice").set_origin("C++ patterns/slice_concat.cpp");
}

}  // namespace ptir
