// Indexing kernels (docs/semantics.md "Shape ops", "Scatter"): take, gather, scatter_reduce, scatter_add,
// dynamic_slice and dynamic_update_slice. Out-of-range take/gather/scatter_reduce indices are UB; dynamic
// starts are clamped; scatter_add skips a window that does not fit. Each kernel checks its instance and
// runs the op's index map (ir/index_map.cpp; the loops are derived in index_exec.cpp).
#include <algorithm>

#include "ir/interp/index_exec.h"
#include "ir/interp/kernels.h"
#include "ir/interp/layout.h"

namespace ptir::interp {
namespace {

/// torch-style index tensors: integer, x's rank, dims <= x's except along `axis`.
Status check_axis_index(const Call& c, const TensorType& x, const TensorType& idx, int64_t axis) {
  if (axis < 0 || axis >= x.rank()) return c.fail("axis out of range");
  if (!is_integer(idx.dtype) || idx.rank() != x.rank()) return c.fail("indices must be integers of x's rank");
  for (int d = 0; d < x.rank(); ++d)
    if (d != axis && idx.dims[d] > x.dims[d]) return c.fail("index dim " + std::to_string(d) + " is larger than x's");
  return Status::success();
}

Status check_start(const Call& c, const Tensor& start, int rank) {
  if (!is_integer(start.dtype()) || start.type.rank() != 1 || start.type.dims[0] != rank)
    return c.fail("start must be a 1-D integer tensor with one entry per dim");
  return Status::success();
}


/// True when `v` is strictly increasing and inside [0, bound).
bool sorted_in(const std::vector<int64_t>& v, int64_t bound) {
  for (size_t k = 0; k < v.size(); ++k)
    if (v[k] < 0 || v[k] >= bound || (k > 0 && v[k] <= v[k - 1])) return false;
  return true;
}

/// XLA scatter dimension numbers, resolved against the operand, indices and updates.
struct ScatterDims {
  std::vector<int64_t> uwd, iwd, sd2od;  // the attributes
  int64_t ivd = 0;                       // index_vector_dim
  std::vector<int64_t> wdo;              // operand dim of each update window dim
  std::vector<int64_t> usd;              // update scatter dims (not window dims), in order
  std::vector<int64_t> extent;           // window extent per operand dim (1 for inserted dims)
};

Status check_scatter(const Call& c, const TensorType& x, const TensorType& idx, const TensorType& upd, ScatterDims& sd) {
  sd.uwd = c.attrs.ints("update_window_dims"), sd.iwd = c.attrs.ints("inserted_window_dims");
  sd.sd2od = c.attrs.ints("scatter_dims_to_operand_dims"), sd.ivd = c.attrs.int_or("index_vector_dim", -1);
  const int64_t R = x.rank(), U = upd.rank(), I = idx.rank();
  if (!is_integer(idx.dtype) || upd.dtype != x.dtype) return c.fail("needs integer indices and updates of x's dtype");
  if (sd.ivd < 0 || sd.ivd > I) return c.fail("index_vector_dim out of range");
  if (!sorted_in(sd.uwd, U) || !sorted_in(sd.iwd, R) || static_cast<int64_t>(sd.uwd.size() + sd.iwd.size()) != R)
    return c.fail("update_window_dims/inserted_window_dims do not cover the operand dims");
  const int64_t nvec = sd.ivd == I ? 1 : idx.dims[sd.ivd];
  std::vector<bool> seen(R, false);
  if (static_cast<int64_t>(sd.sd2od.size()) != nvec) return c.fail("scatter_dims_to_operand_dims has the wrong length");
  for (int64_t d : sd.sd2od) {
    if (d < 0 || d >= R || seen[d]) return c.fail("scatter_dims_to_operand_dims must be distinct operand dims");
    seen[d] = true;
  }
  sd.extent.assign(R, 1);
  for (int64_t d = 0, k = 0; d < R; ++d)
    if (!std::binary_search(sd.iwd.begin(), sd.iwd.end(), d)) sd.wdo.push_back(d), sd.extent[d] = upd.dims[sd.uwd[k++]];
  std::vector<int64_t> batch;  // the indices' dims without index_vector_dim
  for (int64_t d = 0; d < I; ++d)
    if (d != sd.ivd) batch.push_back(idx.dims[d]);
  std::vector<int64_t> ubatch;
  for (int64_t d = 0; d < U; ++d)
    if (!std::binary_search(sd.uwd.begin(), sd.uwd.end(), d)) sd.usd.push_back(d), ubatch.push_back(upd.dims[d]);
  if (ubatch != batch) return c.fail("update scatter dims do not match the indices' dims");
  return Status::success();
}

/// The op's index map: UB checks, then the moves into out[0].
Status move(const Call& c, Out& out) {
  MapRun run;
  if (Status st = instantiate(c, out, run); !st.ok()) return st;
  if (Status st = run_checks(c, run); !st.ok()) return st;
  return run_move(c, run, out[0]);
}

}  // namespace

Status eval_take(const Call& c, Out& out) {
  const Tensor& x = c.args[0];
  const Tensor& idx = c.args[1];
  Tensor& o = out[0];
  if (x.type.rank() < 1 || !is_integer(idx.dtype())) return c.fail("needs x of rank >= 1 and integer indices");
  std::vector<int64_t> odims = idx.type.dims;
  odims.insert(odims.end(), x.type.dims.begin() + 1, x.type.dims.end());
  if (odims != o.type.dims || o.dtype() != x.dtype()) return c.fail("result type must be idx.dims ++ x.dims[1:]");
  return move(c, out);
}

Status eval_gather(const Call& c, Out& out) {
  const Tensor& x = c.args[0];
  const Tensor& idx = c.args[1];
  Tensor& o = out[0];
  const int64_t axis = c.attrs.int_or("axis", -1);
  if (Status st = check_axis_index(c, x.type, idx.type, axis); !st.ok()) return st;
  if (o.type.dims != idx.type.dims || o.dtype() != x.dtype()) return c.fail("result type must be idx's dims of x's dtype");
  return move(c, out);
}

Status eval_scatter_reduce(const Call& c, Out& out) {
  const Tensor& x = c.args[0];
  const Tensor& idx = c.args[1];
  const Tensor& src = c.args[2];
  Tensor& o = out[0];
  const int64_t axis = c.attrs.int_or("axis", -1);
  if (Status st = check_axis_index(c, x.type, idx.type, axis); !st.ok()) return st;
  if (src.type.dims != idx.type.dims || src.dtype() != x.dtype() || o.type != x.type)
    return c.fail("src must have idx's dims and x's dtype; the result x's type");
  const std::string_view red = c.attrs.word("reduce");
  const bool replace = red == "replace";
  if (red != "add" && red != "max" && red != "min" && !replace) return c.fail("unknown reduce[" + std::string(red) + "]");
  const Folder f(red == "add" ? Fold::Sum : red == "max" ? Fold::Max : Fold::Min, x.dtype());
  MapRun run;
  if (Status st = instantiate(c, out, run); !st.ok()) return st;
  if (Status st = run_checks(c, run); !st.ok()) return st;
  o.data = x.data;
  const DType t = x.dtype();
  walk_scatter(run, [&](int64_t q, int64_t i) {
    if (replace) copy_elem(src, i, o, q);
    else put(o, q, f.store(f.combine(f.load(t, get(o, q)), f.load(t, get(src, i))), t));
  });
  return Status::success();
}

Status eval_dynamic_slice(const Call& c, Out& out) {
  const Tensor& x = c.args[0];
  const Tensor& start = c.args[1];
  Tensor& o = out[0];
  const int r = x.type.rank();
  if (Status st = check_start(c, start, r); !st.ok()) return st;
  if (o.type.rank() != r || o.dtype() != x.dtype()) return c.fail("result rank or dtype differs from x");
  for (int d = 0; d < r; ++d)
    if (x.type.dims[d] < o.type.dims[d]) return c.fail("the slice is larger than x at dim " + std::to_string(d));
  return move(c, out);
}

Status eval_dynamic_update_slice(const Call& c, Out& out) {
  const Tensor& x = c.args[0];
  const Tensor& upd = c.args[1];
  const Tensor& start = c.args[2];
  Tensor& o = out[0];
  const int r = x.type.rank();
  if (Status st = check_start(c, start, r); !st.ok()) return st;
  if (o.type != x.type || upd.type.rank() != r || upd.dtype() != x.dtype())
    return c.fail("update must have x's rank and dtype; the result x's type");
  for (int d = 0; d < r; ++d)
    if (x.type.dims[d] < upd.type.dims[d]) return c.fail("the update is larger than x at dim " + std::to_string(d));
  return move(c, out);
}

Status eval_scatter_add(const Call& c, Out& out) {
  const Tensor& x = c.args[0];
  const Tensor& idx = c.args[1];
  const Tensor& upd = c.args[2];
  Tensor& o = out[0];
  ScatterDims sd;
  if (Status st = check_scatter(c, x.type, idx.type, upd.type, sd); !st.ok()) return st;
  if (o.type != x.type) return c.fail("the result must have x's type");
  MapRun run;
  if (Status st = instantiate(c, out, run); !st.ok()) return st;
  o.data = x.data;
  const Folder f(Fold::Sum, x.dtype());
  const DType t = x.dtype();
  walk_scatter(run, [&](int64_t q, int64_t u) {
    put(o, q, f.store(f.combine(f.load(t, get(o, q)), f.load(t, get(upd, u))), t));
  });
  return Status::success();
}

}  // namespace ptir::interp
