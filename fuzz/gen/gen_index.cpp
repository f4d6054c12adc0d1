// Generator: take, gather, scatter_reduce, scatter_add, dynamic_slice, dynamic_update_slice. Index
// operands are mostly in-range literals (an out-of-range take/gather/scatter_reduce index is UB, which
// makes a run useless for differential checks), sometimes parameters (random_inputs_avoiding_ub draws
// in-range values for those) or pool values (UB allowed: the checker must handle it too).
#include <algorithm>

#include "fuzz/gen/gen_impl.h"

namespace ptir::fuzz::detail {
namespace {

bool any_type(const TensorType&) { return true; }

std::string index_operand(Gen& g, BodyCtx& b, const TensorType& t, int64_t bound) {
  if (bound > 0 && (g.opts().literal_indices || g.c().chance(3, 4))) return g.int_literal(t, 0, bound - 1);
  if (g.opts().literal_indices) return g.int_literal(t, 0, 0);  // bound 0: t has no elements
  return g.operand(b, t, bound <= 0);
}

bool take(Gen& g, BodyCtx& b) {
  auto x = g.input(b, Cls::Any, any_type, 1);
  if (!x) return false;
  TensorType it{g.index_dtype(), g.random_dims(static_cast<int>(g.c().range(0, 2)))};
  if (x->type.dims[0] == 0 && it.num_elements() != 0) {
    if (it.rank() == 0)
      it.dims.push_back(0);
    else
      it.dims[0] = 0;
  }
  std::vector<int64_t> dims = it.dims;
  dims.insert(dims.end(), x->type.dims.begin() + 1, x->type.dims.end());
  TensorType t = with_dims(x->type, dims);
  if (!g.fits(t) || t.rank() > 16) return false;
  g.emit(b, "take " + x->name + ", " + index_operand(g, b, it, x->type.dims[0]), t);
  return true;
}

/// Index dims for gather/scatter_reduce: <= x's off the axis, any on it (0 when x's axis is empty).
TensorType gather_index_type(Gen& g, const TensorType& x, size_t axis) {
  TensorType it{g.index_dtype(), {}};
  for (size_t d = 0; d < x.dims.size(); ++d)
    it.dims.push_back(d == axis ? (x.dims[d] == 0 ? 0 : g.c().range(0, 3)) : g.c().range(0, x.dims[d]));
  return it;
}

bool gather(Gen& g, BodyCtx& b, OpCode op) {
  const bool replace = op == OpCode::ScatterReduce && g.c().chance(1, 4);
  auto x = g.input(b, op == OpCode::Gather || replace ? Cls::Any : Cls::Number, any_type, 1);
  if (!x) return false;
  const size_t axis = g.c().index(x->type.dims.size());
  TensorType it = gather_index_type(g, x->type, axis);
  std::string idx = index_operand(g, b, it, x->type.dims[axis]);
  const std::string ax = " axis[" + std::to_string(axis) + "]";
  if (op == OpCode::Gather) {
    g.emit(b, "gather " + x->name + ", " + idx + ax, with_dims(x->type, it.dims));
    return true;
  }
  static const char* kReduce[] = {"add", "max", "min"};
  std::string src = g.operand(b, with_dims(x->type, it.dims));
  g.emit(b,
         "scatter_reduce " + x->name + ", " + idx + ", " + src + ax + " reduce[" +
             (replace ? "replace" : kReduce[g.c().index(3)]) + "]",
         x->type);
  return true;
}

/// scatter_add in the common XLA form: scatter rows of x (operand dim 0 inserted), windows over the rest.
bool scatter_add(Gen& g, BodyCtx& b) {
  auto x = g.input(b, Cls::Number, any_type, 1);
  if (!x) return false;
  const int64_t n = g.c().range(0, 3);
  const bool explicit_vec = g.c().chance(1, 2);
  TensorType it{g.index_dtype(), explicit_vec ? std::vector<int64_t>{n, 1} : std::vector<int64_t>{n}};
  std::vector<int64_t> udims = {n}, wdims;
  for (size_t d = 1; d < x->type.dims.size(); ++d) {
    udims.push_back(g.c().range(0, x->type.dims[d]));
    wdims.push_back(static_cast<int64_t>(d));
  }
  TensorType ut = with_dims(x->type, udims);
  if (!g.fits(ut)) return false;
  // Indices may fall outside: such an update is skipped, not UB.
  std::string idx = g.c().chance(3, 4) ? g.int_literal(it, -1, x->type.dims[0]) : g.operand(b, it);
  g.emit(b,
         "scatter_add " + x->name + ", " + idx + ", " + g.operand(b, ut) + " update_window_dims" + list(wdims) +
             " inserted_window_dims[0] scatter_dims_to_operand_dims[0] index_vector_dim[1]",
         x->type);
  return true;
}

bool dynamic(Gen& g, BodyCtx& b, OpCode op) {
  auto x = g.input(b, Cls::Any, any_type);
  if (!x) return false;
  std::vector<int64_t> sizes;
  for (int64_t d : x->type.dims) sizes.push_back(g.c().range(0, d));
  TensorType st{g.c().chance(1, 2) ? DType::SI32 : DType::SI64, {x->type.rank()}};
  std::string start = g.opts().literal_indices || g.c().chance(1, 2) ? g.int_literal(st, -2, 5) : g.operand(b, st);
  if (op == OpCode::DynamicSlice) {
    g.emit(b, "dynamic_slice " + x->name + ", " + start, with_dims(x->type, sizes));
    return true;
  }
  std::string upd = g.operand(b, with_dims(x->type, sizes));
  g.emit(b, "dynamic_update_slice " + x->name + ", " + upd + ", " + start, x->type);
  return true;
}

}  // namespace

bool gen_index(Gen& g, BodyCtx& b, OpCode op) {
  if (op == OpCode::Take) return take(g, b);
  if (op == OpCode::Gather || op == OpCode::ScatterReduce) return gather(g, b, op);
  if (op == OpCode::ScatterAdd) return scatter_add(g, b);
  if (op == OpCode::DynamicSlice || op == OpCode::DynamicUpdateSlice) return dynamic(g, b, op);
  return false;
}

}  // namespace ptir::fuzz::detail
