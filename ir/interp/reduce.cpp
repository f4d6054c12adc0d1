// Reduction kernels (docs/semantics.md "Reductions and contractions", "segment_reduce"): reduce_sum/max/min,
// argmax and segment_reduce. Each checks its instance and runs the op's index map (ir/index_map.cpp). A
// reduction whose map reads x by projection (each axis of x one variable, the reduced ones in increasing
// order) walks x once in row-major order: for a fixed output position that visits its reduced positions
// in increasing row-major order of the reduced coordinates, which is the map's fold order.
#include <algorithm>

#include "ir/interp/index_exec.h"
#include "ir/interp/kernels.h"
#include "ir/interp/layout.h"

namespace ptir::interp {
namespace {

/// Checks the axes and the result dims of a reduction over `axes`.
Status reduce_layout(const Call& c, const TensorType& x, const TensorType& o, const std::vector<int64_t>& axes,
                     bool keepdims) {
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
  return Status::success();
}

/// For a Fold map that reads operand 0 by projection (every axis of x is one variable with coefficient
/// 1, the reduction variables in increasing order along x's axes): per axis of x, the result stride of
/// its variable (0 for a reduction variable). nullopt for any other map.
std::optional<std::vector<int64_t>> projection(const MapRun& run, const TensorType& o) {
  const imap::Access& a = run.m->cases[0].reads[0];
  if (a.flat || !run.m->cases[0].when.empty()) return std::nullopt;
  const std::vector<int64_t> os = strides_of(o.dims);
  std::vector<int64_t> ostr;
  int last_red = -1;
  for (imap::ExprId e : a.index) {
    const imap::Node& n = run.m->node(e);
    if (n.op != imap::Op::Var) return std::nullopt;
    if (n.a < run.m->out_vars) {
      ostr.push_back(os[static_cast<size_t>(n.a)]);
    } else {
      if (n.a <= last_red) return std::nullopt;
      last_red = n.a;
      ostr.push_back(0);
    }
  }
  return ostr;
}

/// Folds every x element into its output's accumulator, in row-major order of x.
// flatten: the element loads and combines inline into the loop (the kernel family calls them elsewhere
// too, which made GCC keep them out of line here).
[[gnu::flatten]] void fold_into(const Tensor& x, const std::vector<int64_t>& ostr_x, const Folder& f, std::vector<Num>& acc,
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

/// Any other map: its fold walked point by point (kept out of eval_reduce, whose loop stays small).
[[gnu::noinline]] void fold_by_map(const MapRun& run, const Tensor& x, const Folder& f, std::vector<Num>& acc,
                                   std::vector<uint8_t>& started) {
  const DType t = x.dtype();
  int64_t cur = 0;
  walk_fold(
      run, [&](int64_t oi) { cur = oi; },
      [&](const std::vector<int64_t>& at) {
        const Num v = f.load(t, get(x, at[0]));
        acc[cur] = started[cur] ? f.combine(acc[cur], v) : v;
        started[cur] = 1;
      },
      [](int64_t) {});
}

}  // namespace

Status eval_reduce(const Call& c, Out& out, Fold kind) {
  const Tensor& x = c.args[0];
  Tensor& o = out[0];
  DType acc_t;
  if (!accum_of(c.attrs, x.dtype(), acc_t)) return c.fail("bad accum[...]");
  if (x.dtype() != o.dtype()) return c.fail("operand and result dtypes differ");
  if (Status st = reduce_layout(c, x.type, o.type, c.attrs.ints("axes"), c.attrs.bool_or("keepdims", false)); !st.ok())
    return st;
  MapRun run;
  if (Status st = instantiate(c, out, run); !st.ok()) return st;
  Folder f(kind, acc_t);
  std::vector<Num> acc(o.size(), f.identity());
  std::vector<uint8_t> started(o.size(), 0);
  if (auto ostr_x = projection(run, o.type)) fold_into(x, *ostr_x, f, acc, started);
  else fold_by_map(run, x, f, acc, started);
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
  if (Status st = reduce_layout(c, x.type, o.type, {axis}, c.attrs.bool_or("keepdims", false)); !st.ok()) return st;
  if (x.type.dims[axis] == 0 && o.size() > 0) return c.fail("argmax over an empty axis");
  MapRun run;
  if (Status st = instantiate(c, out, run); !st.ok()) return st;
  const DType t = x.dtype();
  if (o.size() == 0) return Status::success();
  // The map reads x[i with i[axis] := r], affine: one line of `len` elements per result position.
  const auto aff = affine_offset(run, run.m->cases[0].reads[0]);
  if (!aff) return c.fail("the index map's read is not affine");
  const size_t nout = static_cast<size_t>(run.m->out_vars);
  const int64_t len = run.space[nout], step = aff->coef[nout];
  StridedCounter it(o.type.dims, std::vector<int64_t>(aff->coef.begin(), aff->coef.begin() + nout));
  int64_t oi = 0;
  do {
    const int64_t base = aff->c + it.off;
    int64_t best = 0;
    uint64_t best_key = order_key(t, get(x, base));
    for (int64_t k = 1; k < len; ++k) {
      const uint64_t key = order_key(t, get(x, base + k * step));
      if (key > best_key) best = k, best_key = key;  // strictly greater: the first maximum wins
    }
    put(o, oi++, cast_elem(DType::SI64, o.dtype(), static_cast<uint64_t>(best)));
  } while (it.next());
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
  MapRun run;
  if (Status st = instantiate(c, out, run); !st.ok()) return st;
  if (Status st = run_checks(c, run); !st.ok()) return st;  // every id, even when x.dims[1:] holds a 0
  const Folder f(kind == "sum" ? Fold::Sum : Fold::Max, kind == "sum" ? default_accum(x.dtype()) : x.dtype());
  std::vector<Num> acc(o.size(), f.identity());
  std::vector<uint8_t> started(o.size(), 0);
  walk_scatter(run, [&](int64_t q, int64_t i) {
    const Num v = f.load(x.dtype(), get(x, i));
    acc[q] = started[q] ? f.combine(acc[q], v) : v;
    started[q] = 1;
  });
  for (int64_t i = 0, m = o.size(); i < m; ++i) put(o, i, f.store(acc[i], o.dtype()));
  return Status::success();
}

}  // namespace ptir::interp
