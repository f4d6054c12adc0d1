// Verifier rules of the indexing family: take, gather, scatter_reduce, scatter_add (XLA
// ScatterDimensionNumbers), dynamic_slice, dynamic_update_slice.
#include "ir/verify/check.h"

namespace ptir::verify_detail {
namespace {

/// idx of gather/scatter_reduce: an integer tensor of x's rank, no larger than x off the axis.
std::string check_torch_index(const Ctx& c, int64_t axis) {
  const TensorType& x = c.operand(0);
  const TensorType& idx = c.operand(1);
  if (auto e = check_dtype(c, "operand 1 (idx)", idx.dtype, DTypeRule::Integer); !e.empty()) return e;
  if (idx.rank() != x.rank())
    return c.fail("operand 1 (idx) has rank ", idx.rank(), ", expected ", x.rank(), " (the rank of operand 0)");
  for (int d = 0; d < x.rank(); ++d) {
    if (d != axis && idx.dims[d] > x.dims[d])
      return c.fail("operand 1 (idx) dim ", d, " has size ", idx.dims[d], ", more than operand 0's ", x.dims[d]);
  }
  return {};
}

/// start of dynamic_slice/dynamic_update_slice: a 1-D si32/si64 tensor with one entry per dim of x.
std::string check_start(const Ctx& c, uint32_t k) {
  const TensorType& s = c.operand(k);
  int rank = c.operand(0).rank();
  if ((s.dtype == DType::SI32 || s.dtype == DType::SI64) && s.rank() == 1 && s.dims[0] == rank) return {};
  return c.fail("operand ", k, " (start) has type ", s, ", expected a 1-D si32 or si64 tensor of length ", rank,
                " (the rank of operand 0)");
}

/// A window of `w` inside x: same dtype and rank, no dim larger than x's.
std::string check_window_fits(const Ctx& c, const char* what, const TensorType& w) {
  const TensorType& x = c.operand(0);
  if (w.dtype != x.dtype || w.rank() != x.rank())
    return c.fail(what, " has type ", w, ", expected the dtype and rank of operand 0 (", x, ")");
  for (int d = 0; d < x.rank(); ++d) {
    if (w.dims[d] > x.dims[d])
      return c.fail(what, " dim ", d, " has size ", w.dims[d], ", more than operand 0's ", x.dims[d]);
  }
  return {};
}

/// A sorted, distinct list of axes below `rank` (XLA requires both window-dim lists sorted).
std::string check_sorted_axes(const Ctx& c, const char* attr, std::span<const int64_t> l, int rank, uint32_t* mask) {
  if (auto e = check_axes(c, attr, l, rank, mask); !e.empty()) return e;
  for (size_t i = 1; i < l.size(); ++i)
    if (l[i - 1] > l[i]) return c.fail(attr, List{l}, " must be sorted");
  return {};
}

}  // namespace

std::string verify_take(const Ctx& c) {
  const TensorType& x = c.operand(0);
  const TensorType& idx = c.operand(1);
  if (auto e = check_min_rank(c, "operand 0", x, 1); !e.empty()) return e;
  if (auto e = check_dtype(c, "operand 1 (idx)", idx.dtype, DTypeRule::Integer); !e.empty()) return e;
  Dims want;
  for (int64_t d : idx.dims) want.push(d);
  for (int d = 1; d < x.rank(); ++d) want.push(x.dims[d]);
  return check_result(c, 0, x.dtype, want);
}

std::string verify_gather(const Ctx& c) {
  const TensorType& x = c.operand(0);
  int64_t axis = c.attrs.int_or("axis", 0);
  if (auto e = check_axis(c, "axis", axis, x.rank()); !e.empty()) return e;
  if (auto e = check_torch_index(c, axis); !e.empty()) return e;
  return check_result(c, 0, x.dtype, c.operand(1).dims);
}

std::string verify_scatter_reduce(const Ctx& c) {
  const TensorType& x = c.operand(0);
  const TensorType& idx = c.operand(1);
  const TensorType& src = c.operand(2);
  int64_t axis = c.attrs.int_or("axis", 0);
  if (auto e = check_axis(c, "axis", axis, x.rank()); !e.empty()) return e;
  if (auto e = check_torch_index(c, axis); !e.empty()) return e;
  if (src.dtype != x.dtype || src.dims != idx.dims)
    return c.fail("operand 2 (src) has type ", src, ", expected ", TensorType{x.dtype, idx.dims},
                  " (the dims of idx, the dtype of operand 0)");
  if (c.attrs.word("reduce") != "replace")
    if (auto e = check_dtype(c, "operand 0", x.dtype, DTypeRule::Number); !e.empty()) return e;
  return check_operand_is_result_type(c, 0);
}

std::string verify_dynamic_slice(const Ctx& c) {
  if (auto e = check_start(c, 1); !e.empty()) return e;
  return check_window_fits(c, "result", c.result());
}

std::string verify_dynamic_update_slice(const Ctx& c) {
  if (auto e = check_start(c, 2); !e.empty()) return e;
  if (auto e = check_window_fits(c, "operand 1 (update)", c.operand(1)); !e.empty()) return e;
  return check_operand_is_result_type(c, 0);
}

namespace {

/// The dims of updates: scatter dims (those not in update_window_dims) follow idx without
/// index_vector_dim; window dims fit in the operand dims not in inserted_window_dims.
std::string check_scatter_updates(const Ctx& c, std::span<const int64_t> uwd, uint32_t uwd_mask, uint32_t iwd_mask,
                                  int64_t ivd) {
  const TensorType& x = c.operand(0);
  const TensorType& idx = c.operand(1);
  const TensorType& upd = c.operand(2);
  int64_t scatter_rank = idx.rank() - (ivd < idx.rank() ? 1 : 0);
  if (upd.rank() != scatter_rank + static_cast<int64_t>(uwd.size()))
    return c.fail("operand 2 (updates) has rank ", upd.rank(), ", expected ", scatter_rank + uwd.size(), " (",
                  scatter_rank, " scatter dims + ", uwd.size(), " update_window_dims)");
  int xd = 0;  // next operand dim not in inserted_window_dims
  int id = 0;  // next idx dim other than index_vector_dim
  for (int d = 0; d < upd.rank(); ++d) {
    if (uwd_mask & (1u << d)) {
      while (iwd_mask & (1u << xd)) ++xd;
      if (upd.dims[d] > x.dims[xd])
        return c.fail("operand 2 (updates) window dim ", d, " has size ", upd.dims[d], ", more than operand 0 dim ", xd,
                      " of size ", x.dims[xd]);
      ++xd;
    } else {
      if (id == ivd) ++id;
      if (upd.dims[d] != idx.dims[id])
        return c.fail("operand 2 (updates) scatter dim ", d, " has size ", upd.dims[d], ", expected ", idx.dims[id],
                      " (dim ", id, " of operand 1)");
      ++id;
    }
  }
  return {};
}

}  // namespace

std::string verify_scatter_add(const Ctx& c) {
  const TensorType& x = c.operand(0);
  const TensorType& idx = c.operand(1);
  const TensorType& upd = c.operand(2);
  if (auto e = check_operand_is_result_type(c, 0); !e.empty()) return e;
  if (auto e = check_dtype(c, "operand 0", x.dtype, DTypeRule::Number); !e.empty()) return e;
  if (auto e = check_dtype(c, "operand 1 (indices)", idx.dtype, DTypeRule::Integer); !e.empty()) return e;
  if (upd.dtype != x.dtype)
    return c.fail("operand 2 (updates) has dtype ", upd.dtype, ", expected ", x.dtype, " (the dtype of operand 0)");
  int64_t ivd = c.attrs.int_or("index_vector_dim", 0);
  if (ivd < 0 || ivd > idx.rank())
    return c.fail("index_vector_dim[", ivd, "] is out of range [0, ", idx.rank(), "] for operand 1");
  const std::vector<int64_t>& uwd = c.attrs.ints("update_window_dims");
  const std::vector<int64_t>& iwd = c.attrs.ints("inserted_window_dims");
  const std::vector<int64_t>& sd = c.attrs.ints("scatter_dims_to_operand_dims");
  uint32_t uwd_mask = 0, iwd_mask = 0;
  if (auto e = check_sorted_axes(c, "update_window_dims", uwd, upd.rank(), &uwd_mask); !e.empty()) return e;
  if (auto e = check_sorted_axes(c, "inserted_window_dims", iwd, x.rank(), &iwd_mask); !e.empty()) return e;
  if (static_cast<int64_t>(uwd.size() + iwd.size()) != x.rank())
    return c.fail("update_window_dims and inserted_window_dims have ", uwd.size(), " + ", iwd.size(),
                  " entries, expected ", x.rank(), " (the rank of operand 0)");
  int64_t index_len = ivd < idx.rank() ? idx.dims[ivd] : 1;
  if (static_cast<int64_t>(sd.size()) != index_len)
    return c.fail("scatter_dims_to_operand_dims has ", sd.size(), sd.size() == 1 ? " entry" : " entries", ", expected ",
                  index_len,
                  " (the size of index_vector_dim ", ivd, " of operand 1)");
  if (auto e = check_axes(c, "scatter_dims_to_operand_dims", sd, x.rank(), nullptr); !e.empty()) return e;
  return check_scatter_updates(c, uwd, uwd_mask, iwd_mask, ivd);
}

}  // namespace ptir::verify_detail
