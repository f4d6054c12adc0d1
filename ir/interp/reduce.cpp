// Reduction kernels (docs/semantics.md "Reductions and contractions", "segment_reduce"): reduce_sum/max/min,
// argmax and segment_reduce. x is walked once in row-major order: for a fixed output position that visits
// its reduced positions in increasing row-major order of the reduced coordinates, which is the fold order.
#include <algorithm>

#include "ir/interp/kernels.h"
#include "ir/interp/layout.h"

namespace ptir::interp {
namespace {

/// For each x dim, the stride of its output position (0 for reduced dims); fails on a bad axes/result.
Status reduce_layout(const Call& c, const TensorType& x, const TensorType& o, const std::vector<int64_t>& axes,
                     bool keepdims, std::vector<int64_t>& ostr_x) {
  const int r = x.rank();
  std::vector<bool> reduced(r, false);
  for (int64_t a : axes) {
    if (a < 0 || a >= r || reduced[a]) return c.fail("axes must be distinct and in [0, rank)");
    reduced[a] = true;
  }
  std::vector<int64_t> odims;
  for (int d = 0; d < r; ++d)
    if (!reduced[d] || keepdims) odims.push_back(reduced[d] ? 1 : x.dims[d]);
  if (odims != o.dims) return c.fail("result dims do not match the reduction");
  std::vector<int64_t> os = strides_of(o.dims);
  ostr_x.assign(r, 0);
  for (int d = 0, od = 0; d < r; ++d) {
    if (!reduced[d] || keepdims) {
      if (!reduced[d]) ostr_x[d] = os[od];
      ++od;
    }
  }
  return Status::success();
}

/// Folds every x element into its output's accumulator, in row-major order of x.
void fold_into(const Tensor& x, const std::vector<int64_t>& ostr_x, const Folder& f, std::vector<Num>& acc,
               std::vector<uint8_t>& started) {
  if (x.size() == 0) return;
  StridedCounter it(x.type.dims, ostr_x);
  int64_t i = 0;
  const DType t = x.dtype();
  do {
    Num v = f.load(t, get(x, i++));
    if (started[it.off]) acc[it.off] = f.combine(acc[it.off], v);
    else acc[it.off] = v, started[it.off] = 1;
  } while (it.next());
}

}  // namespace

Status eval_reduce(const Call& c, Out& out, Fold kind) {
  const Tensor& x = c.args[0];
  Tensor& o = out[0];
  DType acc_t;
  if (!accum_of(c.attrs, x.dtype(), acc_t)) return c.fail("bad accum[...]");
  if (x.dtype() != o.dtype()) return c.fail("operand and result dtypes differ");
  std::vector<int64_t> ostr_x;
  if (Status st = reduce_layout(c, x.type, o.type, c.attrs.ints("axes"), c.attrs.bool_or("keepdims", false), ostr_x);
      !st.ok())
    return st;
  Folder f(kind, acc_t);
  std::vector<Num> acc(o.size(), f.identity());
  std::vector<uint8_t> started(o.size(), 0);
  fold_into(x, ostr_x, f, acc, started);
  for (int64_t i = 0, n = o.size(); i < n; ++i) put(o, i, f.store(acc[i], o.dtype()));
  return Status::success();
}

Status eval_argmax(const Call& c, Out& out) {
  const Tensor& x = c.args[0];
  Tensor& o = out[0];
  const int r = x.type.rank();
  const int64_t axis = c.attrs.int_or("axis", -1);
  if (axis < 0 || axis >= r) return c.fail("axis out of range");
  if (!is_integer(o.dtype())) return c.fail("the result must have an integer dtype");
  std::vector<int64_t> ostr_x;
  if (Status st = reduce_layout(c, x.type, o.type, {axis}, c.attrs.bool_or("keepdims", false), ostr_x); !st.ok())
    return st;
  const int64_t len = x.type.dims[axis];
  if (len == 0 && o.size() > 0) return c.fail("argmax over an empty axis");
  const int64_t outer = prod(x.type.dims, 0, axis), inner = prod(x.type.dims, axis + 1, r);
  const DType t = x.dtype();
  for (int64_t a = 0; a < outer; ++a) {
    for (int64_t b = 0; b < inner; ++b) {
      const int64_t base = a * len * inner + b;
      int64_t best = 0;
      uint64_t best_key = order_key(t, get(x, base));
      for (int64_t k = 1; k < len; ++k) {
        uint64_t key = order_key(t, get(x, base + k * inner));
        if (key > best_key) best = k, best_key = key;  // strictly greater: the first maximum wins
      }
      put(o, a * inner + b, cast_elem(DType::SI64, o.dtype(), static_cast<uint64_t>(best)));
    }
  }
  return Status::success();
}

Status eval_segment_reduce(const Call& c, Out& out) {
  const Tensor& x = c.args[0];
  const Tensor& ids = c.args[1];
  Tensor& o = out[0];
  const std::string_view kind = c.attrs.word("kind");
  if (kind != "sum" && kind != "max") return c.fail("kind must be sum or max");
  const int64_t n = c.attrs.int_or("num_segments", -1);
  if (x.type.rank() < 1 || ids.type.rank() != 1 || ids.type.dims[0] != x.type.dims[0] || !is_integer(ids.dtype()))
    return c.fail("segment_ids must be a 1-D integer tensor of length x.dims[0]");
  std::vector<int64_t> odims = x.type.dims;
  odims[0] = n;
  if (n < 0 || odims != o.type.dims || o.dtype() != x.dtype()) return c.fail("result type does not match num_segments");
  const int64_t rows = x.type.dims[0], inner = prod(x.type.dims, 1, x.type.rank());
  for (int64_t row = 0; row < rows; ++row) {
    const int64_t s = ids.as_int(row);
    if (s < 0 || s >= n || (!is_signed_int(ids.dtype()) && get(ids, row) >= static_cast<uint64_t>(n)))
      return Status::ub(c.msg("segment id " + format_elem(ids.dtype(), get(ids, row)) + " at row " +
                              std::to_string(row) + " is out of range [0, " + std::to_string(n) + ")"));
  }
  const Folder f(kind == "sum" ? Fold::Sum : Fold::Max, kind == "sum" ? default_accum(x.dtype()) : x.dtype());
  std::vector<Num> acc(o.size(), f.identity());
  std::vector<uint8_t> started(n, 0);
  for (int64_t row = 0; row < rows; ++row) {
    const int64_t s = ids.as_int(row);
    for (int64_t j = 0; j < inner; ++j) {
      Num v = f.load(x.dtype(), get(x, row * inner + j));
      Num& a = acc[s * inner + j];
      a = started[s] ? f.combine(a, v) : v;
    }
    started[s] = 1;
  }
  for (int64_t i = 0, m = o.size(); i < m; ++i) put(o, i, f.store(acc[i], o.dtype()));
  return Status::success();
}

}  // namespace ptir::interp
