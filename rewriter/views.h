// Typed views of op families and OpRewritePattern<View>, the typed pattern adapter.
//
// A view is built from a root instruction whose op is in the view's family; the family (kRoots) is
// computed at compile time from the op table (ir/ops.def), so a new elementwise op joins its family
// without touching this file. A typed pattern derives from OpRewritePattern<View> and overrides
// match_and_rewrite(const View&, ProgramRewriter&); the adapter supplies the roots and builds the view.
// Views hold ids and spans into the program: they are valid until the first edit.
#pragma once
#include <algorithm>
#include <array>
#include <cassert>
#include <span>

#include "ir/ops.h"
#include "rewriter/pattern.h"

namespace ptir {

/// The op table as constexpr data (op_info() is not constexpr).
struct OpFacts {
  OpCode op;
  int min_operands, max_operands, num_results;
  uint32_t traits;
  constexpr bool has(uint32_t t) const { return (traits & t) != 0; }
};
inline constexpr OpFacts kOpFacts[] = {
#define PTIR_OP(E, M, MIN, MAX, NRES, TR) {OpCode::E, MIN, MAX, NRES, static_cast<uint32_t>(TR)},
#include "ir/ops.def"
#undef PTIR_OP
};
static_assert(sizeof(kOpFacts) / sizeof(kOpFacts[0]) == kNumOps);

/// The ops of the table for which `Pred(facts)` holds, as a constexpr array.
template <auto Pred>
consteval auto ops_where() {
  constexpr size_t n = [] {
    size_t c = 0;
    for (const OpFacts& f : kOpFacts) c += Pred(f) ? 1 : 0;
    return c;
  }();
  std::array<OpCode, n> out{};
  size_t k = 0;
  for (const OpFacts& f : kOpFacts)
    if (Pred(f)) out[k++] = f.op;
  return out;
}

/// Elementwise one-operand ops that keep their operand's type: neg abs exp log tanh erf rsqrt
/// reciprocal sqrt stop_gradient (cast changes the dtype and has its own view).
inline constexpr auto kElementwiseUnaryOps = ops_where<[](const OpFacts& f) {
  return f.has(Elementwise) && f.min_operands == 1 && f.max_operands == 1 && f.op != OpCode::Cast;
}>();
/// Elementwise two-operand arithmetic: add sub mul div maximum minimum (not compare).
inline constexpr auto kElementwiseBinaryOps = ops_where<[](const OpFacts& f) {
  return f.has(Elementwise) && f.min_operands == 2 && f.max_operands == 2 && f.op != OpCode::Compare;
}>();
inline constexpr auto kReduceOps = ops_where<[](const OpFacts& f) {
  return f.op == OpCode::ReduceSum || f.op == OpCode::ReduceMax || f.op == OpCode::ReduceMin;
}>();
/// Every statement op (all but `return`).
inline constexpr auto kStatementOps = ops_where<[](const OpFacts& f) { return !f.has(Terminator); }>();

template <OpCode Op>
inline constexpr std::array<OpCode, 1> kOnly = {Op};

/// Common fields of every view.
struct ViewBase {
  InstId root;
  ValueId result;  ///< result 0
  OpCode kind;
  ViewBase(const ProgramRewriter& rw, InstId i) : root(i), result(rw.result(i)), kind(rw.op(i)) {}
};

/// `kind x -> T` for the elementwise unary family.
struct ElementwiseUnaryView : ViewBase {
  static constexpr std::span<const OpCode> kRoots = kElementwiseUnaryOps;
  ValueId x;
  ElementwiseUnaryView(const ProgramRewriter& rw, InstId i) : ViewBase(rw, i), x(rw.operand(i, 0)) {}
};

/// `kind lhs, rhs -> T` for the elementwise binary arithmetic family.
struct ElementwiseBinaryView : ViewBase {
  static constexpr std::span<const OpCode> kRoots = kElementwiseBinaryOps;
  ValueId lhs, rhs;
  bool commutative;
  ElementwiseBinaryView(const ProgramRewriter& rw, InstId i)
      : ViewBase(rw, i), lhs(rw.operand(i, 0)), rhs(rw.operand(i, 1)), commutative(has_trait(kind, Commutative)) {}
};

/// `cast x -> T`: the target dtype is the result type's.
struct CastView : ViewBase {
  static constexpr std::span<const OpCode> kRoots = kOnly<OpCode::Cast>;
  ValueId x;
  CastView(const ProgramRewriter& rw, InstId i) : ViewBase(rw, i), x(rw.operand(i, 0)) {}
};

/// `transpose x perm[...]`.
struct TransposeView : ViewBase {
  static constexpr std::span<const OpCode> kRoots = kOnly<OpCode::Transpose>;
  ValueId x;
  std::span<const int64_t> perm;
  TransposeView(const ProgramRewriter& rw, InstId i)
      : ViewBase(rw, i), x(rw.operand(i, 0)), perm(rw.attrs(i).ints("perm")) {}
};

/// `broadcast_to x [shape[...]]` (numpy rule; the result type gives the shape).
struct BroadcastView : ViewBase {
  static constexpr std::span<const OpCode> kRoots = kOnly<OpCode::BroadcastTo>;
  ValueId x;
  BroadcastView(const ProgramRewriter& rw, InstId i) : ViewBase(rw, i), x(rw.operand(i, 0)) {}
};

/// `reshape x [shape[...]]`.
struct ReshapeView : ViewBase {
  static constexpr std::span<const OpCode> kRoots = kOnly<OpCode::Reshape>;
  ValueId x;
  ReshapeView(const ProgramRewriter& rw, InstId i) : ViewBase(rw, i), x(rw.operand(i, 0)) {}
};

/// `reduce_{sum,max,min} x axes[...] keepdims[b] accum[D]`.
struct ReduceView : ViewBase {
  static constexpr std::span<const OpCode> kRoots = kReduceOps;
  ValueId x;
  std::span<const int64_t> axes;
  bool keepdims;
  ReduceView(const ProgramRewriter& rw, InstId i)
      : ViewBase(rw, i), x(rw.operand(i, 0)), axes(rw.attrs(i).ints("axes")),
        keepdims(rw.attrs(i).bool_or("keepdims", false)) {}
};

/// `compare lhs, rhs dir[...]`.
struct CompareView : ViewBase {
  static constexpr std::span<const OpCode> kRoots = kOnly<OpCode::Compare>;
  ValueId lhs, rhs;
  std::string_view dir;
  CompareView(const ProgramRewriter& rw, InstId i)
      : ViewBase(rw, i), lhs(rw.operand(i, 0)), rhs(rw.operand(i, 1)), dir(rw.attrs(i).word("dir")) {}
};

/// `select pred, on_true, on_false`.
struct SelectView : ViewBase {
  static constexpr std::span<const OpCode> kRoots = kOnly<OpCode::Select>;
  ValueId pred, on_true, on_false;
  SelectView(const ProgramRewriter& rw, InstId i)
      : ViewBase(rw, i), pred(rw.operand(i, 0)), on_true(rw.operand(i, 1)), on_false(rw.operand(i, 2)) {}
};

/// Any statement op, for patterns that dispatch on their own.
struct AnyOpView : ViewBase {
  static constexpr std::span<const OpCode> kRoots = kStatementOps;
  AnyOpView(const ProgramRewriter& rw, InstId i) : ViewBase(rw, i) {}
};

/// A pattern written against a view: the MLIR OpRewritePattern<Op> adapter, once for every view.
template <typename View>
class OpRewritePattern : public Pattern {
 public:
  explicit OpRewritePattern(std::string_view debug_name, PatternBenefit benefit = 1)
      : Pattern(debug_name, View::kRoots, benefit) {}
  /// Narrows the roots to part of the view's family (e.g. only `mul` of the binary family).
  OpRewritePattern(std::string_view debug_name, PatternBenefit benefit, std::span<const OpCode> roots)
      : Pattern(debug_name, roots, benefit) {
    for ([[maybe_unused]] OpCode op : roots)
      assert(std::find(View::kRoots.begin(), View::kRoots.end(), op) != View::kRoots.end() &&
             "root outside the view's family");
  }

  /// The typed hook. Same contract as Pattern::match_and_rewrite.
  virtual bool match_and_rewrite(const View& op, ProgramRewriter& rw) const = 0;

 private:
  bool match_and_rewrite(InstId root, ProgramRewriter& rw) const final { return match_and_rewrite(View(rw, root), rw); }
};

}  // namespace ptir
