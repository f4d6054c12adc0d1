// Fold hooks: one decision per op (the switch names every op), then identity folds and constant folding.
#include "rewriter/fold.h"

#include <algorithm>
#include <vector>

#include "ir/interp.h"

namespace ptir {
namespace {

/// How an op folds.
enum class FoldKind : uint8_t {
  Never,     ///< effectful, region-bearing, opaque or a generator: leave alone
  Constant,  ///< constant-fold when every operand is a constant
  Identity,  ///< has an identity fold (and constant-folds too)
};

FoldKind fold_kind(OpCode op) {
  switch (op) {
    case OpCode::Neg: case OpCode::Abs: case OpCode::Exp: case OpCode::Log: case OpCode::Tanh:
    case OpCode::Erf: case OpCode::Rsqrt: case OpCode::Reciprocal: case OpCode::Sqrt:
    case OpCode::Add: case OpCode::Sub: case OpCode::Mul: case OpCode::Div: case OpCode::Maximum:
    case OpCode::Minimum: case OpCode::Compare: case OpCode::Cast:
    case OpCode::DotGeneral: case OpCode::ReduceSum: case OpCode::ReduceMax: case OpCode::ReduceMin:
    case OpCode::Argmax: case OpCode::Take: case OpCode::Gather: case OpCode::ScatterReduce:
    case OpCode::ScatterAdd: case OpCode::DynamicSlice: case OpCode::DynamicUpdateSlice:
    case OpCode::ExtractPatches: case OpCode::ReduceWindow: case OpCode::SegmentReduce:
      return FoldKind::Constant;
    // cast to the same type is left to the `remove_noop_cast` pattern, which this hook would shadow.
    case OpCode::Reshape: case OpCode::Transpose: case OpCode::BroadcastTo: case OpCode::Slice:
    case OpCode::Concat: case OpCode::Pad: case OpCode::Tile: case OpCode::Select:
      return FoldKind::Identity;
    // stop_gradient is the identity on values but marks an autodiff boundary: kept.
    case OpCode::StopGradient:
    // Zero-operand generators would only turn into (larger) literals.
    case OpCode::Constant: case OpCode::Iota:
    // Two results: the fold protocol has one.
    case OpCode::TopK:
    case OpCode::Cond: case OpCode::While: case OpCode::Scan:
    case OpCode::RngUniform: case OpCode::RngNormal:
    case OpCode::Quantize: case OpCode::Dequantize: case OpCode::Requantize: case OpCode::CustomCall:
    case OpCode::Return:
      return FoldKind::Never;
  }
  return FoldKind::Never;
}

bool all_equal(std::span<const int64_t> v, int64_t x) {
  return std::all_of(v.begin(), v.end(), [&](int64_t e) { return e == x; });
}

FoldResult fold_identity(const Program& p, InstId i) {
  ValueId r = p.result(i);
  TypeId rt = p.type_id(r);
  auto same_type_operand = [&]() {
    ValueId x = p.operand(i, 0);
    return p.type_id(x) == rt ? FoldResult::replaced_by(x) : FoldResult::nothing();
  };
  const AttrSet& a = p.attrs_of(i);
  OpCode op = p.op(i);
  // Only the Identity ops of fold_kind() reach here; an if-chain keeps this free of a `default:`.
  if (op == OpCode::Reshape || op == OpCode::BroadcastTo || op == OpCode::Slice) return same_type_operand();
  if (op == OpCode::Transpose) {
    const auto& perm = a.ints("perm");
    for (size_t k = 0; k < perm.size(); ++k)
      if (perm[k] != static_cast<int64_t>(k)) return {};
    return same_type_operand();
  }
  if (op == OpCode::Pad) {
    if (!all_equal(a.ints("low"), 0) || !all_equal(a.ints("high"), 0) || !all_equal(a.ints("interior"), 0))
      return {};
    return same_type_operand();
  }
  if (op == OpCode::Tile) return all_equal(a.ints("repeats"), 1) ? same_type_operand() : FoldResult::nothing();
  if (op == OpCode::Concat) return p.num_operands(i) == 1 ? same_type_operand() : FoldResult::nothing();
  if (op == OpCode::Select) {
    ValueId t = p.operand(i, 1), f = p.operand(i, 2);
    if (t == f) return FoldResult::replaced_by(t);
    const Tensor* pred = p.constant_of(p.operand(i, 0));
    if (!pred || pred->size() == 0 || !pred->is_splat()) return {};
    return FoldResult::replaced_by(pred->bits(0) != 0 ? t : f);
  }
  return {};
}

FoldResult fold_constant(const Program& p, InstId i, const FoldOptions& opts) {
  uint32_t n = p.num_operands(i);
  if (n == 0 || p.num_results(i) != 1) return {};
  // Cheap rejection first: most instructions have a non-constant operand.
  for (uint32_t k = 0; k < n; ++k)
    if (!p.constant_of(p.operand(i, k))) return {};
  for (uint32_t k = 0; k < n; ++k)
    if (p.constant_of(p.operand(i, k))->size() > opts.max_elements) return {};
  if (p.type_of(p.result(i)).num_elements() > opts.max_elements) return {};
  std::vector<Tensor> args;
  args.reserve(n);
  for (uint32_t k = 0; k < n; ++k) args.push_back(*p.constant_of(p.operand(i, k)));
  RunResult r = eval_inst(p, i, args);
  if (r.status != RunStatus::Ok || r.results.size() != 1) return {};  // UB stays where it is
  Tensor& t = r.results[0];
  t.compact();
  // Folding never makes the program larger: a literal result may store no more elements than the
  // literals the fold removes (an inline literal is written at each use, so each use counts; a
  // `constant` only when this is its one use). So broadcast_to, tile or pad of a non-splat constant
  // stay ops, while any fold to a splat, a slice, or elementwise arithmetic on dying constants folds.
  if (!t.splat && t.size() > 1) {
    int64_t freed = 0;
    for (uint32_t k = 0; k < n; ++k) {
      const ValueId v = p.operand(i, k);
      if (p.value(v).kind == ValueKind::Literal || p.has_one_use(v)) freed += p.constant_of(v)->stored_elements();
    }
    if (t.size() > freed) return {};
  }
  return FoldResult::materialize(std::move(t));
}

}  // namespace

FoldResult fold_inst(const Program& p, InstId i, const FoldOptions& opts) {
  FoldKind k = fold_kind(p.op(i));
  if (k == FoldKind::Never) return {};
  if (k == FoldKind::Identity)
    if (FoldResult r = fold_identity(p, i)) return r;
  return opts.constant_fold ? fold_constant(p, i, opts) : FoldResult::nothing();
}

}  // namespace ptir
