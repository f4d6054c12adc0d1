// top_k (docs/semantics.md "top_k"): per slice along `axis`, the k largest (or smallest) elements under the
// total order NaN > +inf > ... > +0 > -0 > ... > -inf, ties keeping the lower index first. Values are moved
// bit for bit; indices are written in the index result's integer dtype. The lines are the op's index map
// (ir/index_map.cpp): result position i ranks x[i with i[axis] := r], an affine read.
#include <algorithm>
#include <numeric>

#include "ir/interp/index_exec.h"
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
  if (vals.size() == 0) return Status::success();
  MapRun run;
  if (Status st = instantiate(c, out, run); !st.ok()) return st;
  const auto aff = affine_offset(run, run.m->cases[0].reads[0]);
  if (!aff) return c.fail("the index map's read is not affine");
  // One line per result position with i[axis] = 0; its elements are base + j * step, j < len.
  const int64_t len = x.type.dims[axis], step = aff->coef[static_cast<size_t>(r)];
  std::vector<int64_t> lines = odims, lstr(aff->coef.begin(), aff->coef.begin() + r);
  lines[axis] = 1;
  const std::vector<int64_t> ostr = strides_of(odims);
  std::vector<int64_t> owalk = ostr;
  StridedCounter xo(lines, lstr), oo(lines, owalk);
  const DType t = x.dtype();
  std::vector<uint64_t> key(len);
  std::vector<int64_t> order(len);
  do {
    const int64_t base = aff->c + xo.off;
    for (int64_t j = 0; j < len; ++j) key[j] = order_key(t, get(x, base + j * step));
    std::iota(order.begin(), order.end(), int64_t{0});
    // (key, index) is a strict total order, so the first k are unique.
    std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int64_t p, int64_t q) {
      if (key[p] != key[q]) return largest ? key[p] > key[q] : key[p] < key[q];
      return p < q;
    });
    for (int64_t j = 0; j < k; ++j) {
      const int64_t dst = oo.off + j * ostr[axis];
      copy_elem(x, base + order[j] * step, vals, dst);
      put(idxs, dst, cast_elem(DType::SI64, idxs.dtype(), static_cast<uint64_t>(order[j])));
    }
    oo.next();
  } while (xo.next());
  return Status::success();
}

}  // namespace ptir::interp
