// top_k (docs/semantics.md "top_k"): per slice along `axis`, the k largest (or smallest) elements under the
// total order NaN > +inf > ... > +0 > -0 > ... > -inf, ties keeping the lower index first. Values are moved
// bit for bit; indices are written in the index result's integer dtype.
#include <algorithm>
#include <numeric>

#include "ir/interp/kernels.h"
#include "ir/interp/layout.h"

namespace ptir::interp {

Status eval_top_k(const Call& c, Out& out) {
  const Tensor& x = c.args[0];
  Tensor& vals = out[0];
  Tensor& idxs = out[1];
  const int r = x.type.rank();
  const int64_t axis = c.attrs.int_or("axis", r - 1);
  const int64_t k = c.attrs.int_or("k", -1);
  const bool largest = c.attrs.bool_or("largest", true);
  if (axis < 0 || axis >= r) return c.fail("axis out of range");
  std::vector<int64_t> odims = x.type.dims;
  if (k < 0 || k > odims[axis]) return c.fail("k must be in [0, dims[axis]]");
  odims[axis] = k;
  if (vals.type.dims != odims || idxs.type.dims != odims || vals.dtype() != x.dtype() || !is_integer(idxs.dtype()))
    return c.fail("results must be x's dtype and an integer dtype, with dims[axis] = k");
  const int64_t len = x.type.dims[axis], outer = prod(x.type.dims, 0, axis), inner = prod(x.type.dims, axis + 1, r);
  const DType t = x.dtype();
  std::vector<uint64_t> key(len);
  std::vector<int64_t> order(len);
  for (int64_t a = 0; a < outer; ++a) {
    for (int64_t b = 0; b < inner; ++b) {
      const int64_t base = a * len * inner + b;
      for (int64_t j = 0; j < len; ++j) key[j] = order_key(t, get(x, base + j * inner));
      std::iota(order.begin(), order.end(), int64_t{0});
      // (key, index) is a strict total order, so the first k are unique.
      std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int64_t p, int64_t q) {
        if (key[p] != key[q]) return largest ? key[p] > key[q] : key[p] < key[q];
        return p < q;
      });
      for (int64_t j = 0; j < k; ++j) {
        const int64_t dst = a * k * inner + j * inner + b;
        copy_elem(x, base + order[j] * inner, vals, dst);
        put(idxs, dst, cast_elem(DType::SI64, idxs.dtype(), static_cast<uint64_t>(order[j])));
      }
    }
  }
  return Status::success();
}

}  // namespace ptir::interp
