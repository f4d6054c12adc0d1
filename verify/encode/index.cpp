// Indexing ops with data-dependent positions (docs/semantics.md "Shape ops", "Scatter"): take, gather,
// scatter_reduce, scatter_add, dynamic_slice, dynamic_update_slice. A symbolic index selects through an
// if-then-else chain over the positions it can name; out-of-range take/gather/scatter_reduce indices
// are UB, dynamic starts are clamped, a scatter_add window that does not fit is skipped. The positions are
// the op's index map (ir/index_map.cpp), evaluated over index terms (index_exec.cpp).
#include <algorithm>

#include "verify/encode/index_exec.h"

namespace ptir::verify::enc {
namespace {

/// torch-style index tensors: integer, x's rank, dims <= x's except along `axis`.
void check_axis_index(const OpEnv& env, const TensorType& x, const TensorType& idx, int64_t axis) {
  if (axis < 0 || axis >= x.rank()) env.fail("axis out of range");
  if (!is_integer(idx.dtype) || idx.rank() != x.rank()) env.fail("indices must be integers of x's rank");
  for (int d = 0; d < x.rank(); ++d)
    if (d != axis && idx.dims[d] > x.dims[d]) env.fail("an index dim is larger than x's");
}

void check_start(const OpEnv& env, const SymTensor& start, int rank) {
  if (!is_integer(start.type.dtype) || start.type.rank() != 1 || start.type.dims[0] != rank)
    env.fail("start must be a 1-D integer tensor with one entry per dim");
}

}  // namespace

Results encode_Take(OpEnv& env) {
  const SymTensor& x = env.args[0];
  const SymTensor& idx = env.args[1];
  if (x.type.rank() < 1 || !is_integer(idx.type.dtype)) env.fail("needs x of rank >= 1 and integer indices");
  std::vector<int64_t> odims = idx.type.dims;
  odims.insert(odims.end(), x.type.dims.begin() + 1, x.type.dims.end());
  if (odims != env.out().dims || env.dtype() != x.type.dtype) env.fail("result type must be idx.dims ++ x.dims[1:]");
  return encode_move(env);
}

Results encode_Gather(OpEnv& env) {
  const SymTensor& x = env.args[0];
  const SymTensor& idx = env.args[1];
  const int64_t axis = env.attrs.int_or("axis", -1);
  check_axis_index(env, x.type, idx.type, axis);
  if (env.out().dims != idx.type.dims || env.dtype() != x.type.dtype) env.fail("result type must be idx's dims");
  return encode_move(env);
}

Results encode_ScatterReduce(OpEnv& env) {
  const SymTensor& x = env.args[0];
  const SymTensor& idx = env.args[1];
  const SymTensor& src = env.args[2];
  const int64_t axis = env.attrs.int_or("axis", -1);
  check_axis_index(env, x.type, idx.type, axis);
  if (src.type.dims != idx.type.dims || src.type.dtype != x.type.dtype || env.out() != x.type)
    env.fail("src must have idx's dims and x's dtype; the result x's type");
  const std::string_view red = env.attrs.word("reduce");
  const bool replace = red == "replace";
  if (red != "add" && red != "max" && red != "min" && !replace) env.fail("unknown reduce kind");
  const sem::Folder f{red == "add" ? sem::Fold::Sum : red == "max" ? sem::Fold::Max : sem::Fold::Min, x.type.dtype};
  const DType t = x.type.dtype;
  SymTensor out{x.type, x.elems};
  walk_scatter(env, map_of(env), [&](const Expr& src, const std::vector<std::pair<int64_t, Expr>>& targets) {
    for (const auto& [q, hit] : targets) {
      Expr& o = out.elems[static_cast<size_t>(q)];
      const Expr updated = replace ? src : f.store(f.combine(f.load(o, t), f.load(src, t)), t);
      o = Expr::ite(hit, updated, o);
    }
  });
  return {out};
}

Results encode_DynamicSlice(OpEnv& env) {
  const SymTensor& x = env.args[0];
  const SymTensor& start = env.args[1];
  const int r = x.type.rank();
  check_start(env, start, r);
  if (env.out().rank() != r || env.dtype() != x.type.dtype) env.fail("result rank or dtype differs from x");
  for (int d = 0; d < r; ++d)
    if (x.type.dims[d] < env.out().dims[d]) env.fail("the slice is larger than x");
  return encode_move(env);
}

Results encode_DynamicUpdateSlice(OpEnv& env) {
  const SymTensor& x = env.args[0];
  const SymTensor& upd = env.args[1];
  const SymTensor& start = env.args[2];
  const int r = x.type.rank();
  check_start(env, start, r);
  if (env.out() != x.type || upd.type.rank() != r || upd.type.dtype != x.type.dtype)
    env.fail("update must have x's rank and dtype; the result x's type");
  for (int d = 0; d < r; ++d)
    if (x.type.dims[d] < upd.type.dims[d]) env.fail("the update is larger than x");
  return encode_move(env);
}

Results encode_ScatterAdd(OpEnv& env) {
  const SymTensor& x = env.args[0];
  const SymTensor& idx = env.args[1];
  const SymTensor& upd = env.args[2];
  const auto& uwd = env.attrs.ints("update_window_dims");
  const auto& iwd = env.attrs.ints("inserted_window_dims");
  const auto& sd2od = env.attrs.ints("scatter_dims_to_operand_dims");
  const int64_t ivd = env.attrs.int_or("index_vector_dim", -1);
  const int64_t R = x.type.rank(), U = upd.type.rank(), I = idx.type.rank();
  if (!is_integer(idx.type.dtype) || upd.type.dtype != x.type.dtype || env.out() != x.type)
    env.fail("needs integer indices, updates of x's dtype, and x's type as result");
  if (ivd < 0 || ivd > I || static_cast<int64_t>(uwd.size() + iwd.size()) != R) env.fail("bad dimension numbers");
  const int64_t nvec = ivd == I ? 1 : idx.type.dims[ivd];
  if (static_cast<int64_t>(sd2od.size()) != nvec) env.fail("scatter_dims_to_operand_dims has the wrong length");
  for (int64_t d : sd2od)
    if (d < 0 || d >= R) env.fail("scatter_dims_to_operand_dims out of range");
  for (int64_t d : uwd)
    if (d < 0 || d >= U) env.fail("update_window_dims out of range");
  for (int64_t d = 0, k = 0; d < R; ++d)
    if (!std::binary_search(iwd.begin(), iwd.end(), d) && k++ >= static_cast<int64_t>(uwd.size()))
      env.fail("bad dimension numbers");
  const sem::Folder f{sem::Fold::Sum, x.type.dtype};
  const DType t = x.type.dtype;
  SymTensor out{x.type, x.elems};
  walk_scatter(env, map_of(env), [&](const Expr& src, const std::vector<std::pair<int64_t, Expr>>& targets) {
    for (const auto& [q, hit] : targets) {
      Expr& o = out.elems[static_cast<size_t>(q)];
      o = Expr::ite(hit, f.store(f.combine(f.load(o, t), f.load(src, t)), t), o);
    }
  });
  return {out};
}

}  // namespace ptir::verify::enc
