// Indexing ops with data-dependent positions (docs/semantics.md "Shape ops", "Scatter"): take, gather,
// scatter_reduce, scatter_add, dynamic_slice, dynamic_update_slice. A symbolic index selects through an
// if-then-else chain over the positions it can name; out-of-range take/gather/scatter_reduce indices
// are UB, dynamic starts are clamped, a scatter_add window that does not fit is skipped.
#include <algorithm>

#include "verify/encode/ops.h"

namespace ptir::verify::enc {
namespace {

/// torch-style index tensors: integer, x's rank, dims <= x's except along `axis`.
void check_axis_index(const OpEnv& env, const TensorType& x, const TensorType& idx, int64_t axis) {
  if (axis < 0 || axis >= x.rank()) env.fail("axis out of range");
  if (!is_integer(idx.dtype) || idx.rank() != x.rank()) env.fail("indices must be integers of x's rank");
  for (int d = 0; d < x.rank(); ++d)
    if (d != axis && idx.dims[d] > x.dims[d]) env.fail("an index dim is larger than x's");
}

/// Start k of a dynamic slice, clamped into [0, hi], as a 66-bit value.
Expr clamped_start(const SymTensor& start, int64_t k, int64_t hi) {
  const Expr s = index_value(start.elems[k], start.type.dtype);
  return Expr::ite(s.slt(index_const(0)), index_const(0), Expr::ite(index_const(hi).slt(s), index_const(hi), s));
}

void check_start(const OpEnv& env, const SymTensor& start, int rank) {
  if (!is_integer(start.type.dtype) || start.type.rank() != 1 || start.type.dims[0] != rank)
    env.fail("start must be a 1-D integer tensor with one entry per dim");
}

/// The elements of x along `axis` through position `base` (whose axis coordinate is ignored).
std::vector<Expr> line(const SymTensor& x, std::vector<int64_t> pos, int64_t axis) {
  std::vector<Expr> v;
  for (int64_t k = 0; k < x.type.dims[axis]; ++k) {
    pos[axis] = k;
    v.push_back(x.elems[ravel(pos, x.type.dims)]);
  }
  return v;
}

}  // namespace

Results encode_Take(OpEnv& env) {
  const SymTensor& x = env.args[0];
  const SymTensor& idx = env.args[1];
  if (x.type.rank() < 1 || !is_integer(idx.type.dtype)) env.fail("needs x of rank >= 1 and integer indices");
  std::vector<int64_t> odims = idx.type.dims;
  odims.insert(odims.end(), x.type.dims.begin() + 1, x.type.dims.end());
  if (odims != env.out().dims || env.dtype() != x.type.dtype) env.fail("result type must be idx.dims ++ x.dims[1:]");
  const int64_t d0 = x.type.dims[0], inner = d0 ? x.type.num_elements() / d0 : 0;
  SymTensor out = env.make();
  for (int64_t i = 0, n = idx.type.num_elements(); i < n; ++i) {
    env.check_stop();
    const Expr v = index_value(idx.elems[i], idx.type.dtype);
    env.add_ub(!index_in_range(v, d0));
    for (int64_t j = 0; j < inner; ++j) {
      std::vector<Expr> opts;
      for (int64_t k = 0; k < d0; ++k) opts.push_back(x.elems[k * inner + j]);
      out.elems.push_back(mux(v, opts));
    }
  }
  return {out};
}

Results encode_Gather(OpEnv& env) {
  const SymTensor& x = env.args[0];
  const SymTensor& idx = env.args[1];
  const int64_t axis = env.attrs.int_or("axis", -1);
  check_axis_index(env, x.type, idx.type, axis);
  if (env.out().dims != idx.type.dims || env.dtype() != x.type.dtype) env.fail("result type must be idx's dims");
  SymTensor out = env.make();
  for (int64_t i = 0, n = idx.type.num_elements(); i < n; ++i) {
    env.check_stop();
    const Expr v = index_value(idx.elems[i], idx.type.dtype);
    env.add_ub(!index_in_range(v, x.type.dims[axis]));
    out.elems.push_back(mux(v, line(x, unravel(i, idx.type.dims), axis)));
  }
  return {out};
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
  for (int64_t i = 0, n = idx.type.num_elements(); i < n; ++i) {
    env.check_stop();
    const Expr v = index_value(idx.elems[i], idx.type.dtype);
    env.add_ub(!index_in_range(v, x.type.dims[axis]));
    std::vector<int64_t> q = unravel(i, idx.type.dims);
    for (int64_t k = 0; k < x.type.dims[axis]; ++k) {
      q[axis] = k;
      Expr& o = out.elems[ravel(q, x.type.dims)];
      const Expr updated = replace ? src.elems[i] : f.store(f.combine(f.load(o, t), f.load(src.elems[i], t)), t);
      o = Expr::ite(v == index_const(k), updated, o);
    }
  }
  return {out};
}

Results encode_DynamicSlice(OpEnv& env) {
  const SymTensor& x = env.args[0];
  const SymTensor& start = env.args[1];
  const int r = x.type.rank();
  check_start(env, start, r);
  if (env.out().rank() != r || env.dtype() != x.type.dtype) env.fail("result rank or dtype differs from x");
  // Slice one dim at a time: cur has the result's sizes in dims < d and x's sizes in dims >= d.
  SymTensor cur = x;
  for (int d = 0; d < r; ++d) {
    const int64_t size = env.out().dims[d], hi = x.type.dims[d] - size;
    if (hi < 0) env.fail("the slice is larger than x");
    const Expr c = clamped_start(start, d, hi);
    TensorType nt = cur.type;
    nt.dims[d] = size;
    SymTensor next{nt, {}};
    for (int64_t i = 0, n = nt.num_elements(); i < n; ++i) {
      env.check_stop();
      std::vector<int64_t> idx = unravel(i, nt.dims);
      std::vector<Expr> opts;
      const int64_t base = idx[d];
      for (int64_t s = 0; s <= hi; ++s) {
        idx[d] = base + s;
        opts.push_back(cur.elems[ravel(idx, cur.type.dims)]);
      }
      next.elems.push_back(mux(c, opts));
    }
    cur = std::move(next);
  }
  return {cur};
}

Results encode_DynamicUpdateSlice(OpEnv& env) {
  const SymTensor& x = env.args[0];
  const SymTensor& upd = env.args[1];
  const SymTensor& start = env.args[2];
  const int r = x.type.rank();
  check_start(env, start, r);
  if (env.out() != x.type || upd.type.rank() != r || upd.type.dtype != x.type.dtype)
    env.fail("update must have x's rank and dtype; the result x's type");
  std::vector<Expr> c;
  std::vector<int64_t> ranges;  // number of possible starts per dim
  for (int d = 0; d < r; ++d) {
    const int64_t hi = x.type.dims[d] - upd.type.dims[d];
    if (hi < 0) env.fail("the update is larger than x");
    c.push_back(clamped_start(start, d, hi));
    ranges.push_back(hi + 1);
  }
  SymTensor out{x.type, x.elems};
  if (upd.type.num_elements() == 0) return {out};
  int64_t combos = 1;
  for (int64_t n : ranges) combos *= n;
  // For each possible (clamped) start, the elements that start's window covers.
  for (int64_t s = 0; s < combos; ++s) {
    env.check_stop();
    const std::vector<int64_t> st = unravel(s, ranges);
    std::vector<Expr> eqs;
    for (int d = 0; d < r; ++d) eqs.push_back(c[d] == index_const(st[d]));
    const Expr here = Expr::all(eqs);
    for (int64_t u = 0, n = upd.type.num_elements(); u < n; ++u) {
      if ((u & 255) == 0) env.check_stop();
      std::vector<int64_t> q = unravel(u, upd.type.dims);
      for (int d = 0; d < r; ++d) q[d] += st[d];
      Expr& o = out.elems[ravel(q, x.type.dims)];
      o = Expr::ite(here, upd.elems[u], o);
    }
  }
  return {out};
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
  // Window dims of the operand (those not inserted), their extents, and the update's scatter dims.
  std::vector<int64_t> wdo, extent(R, 1), usd;
  for (int64_t d = 0, k = 0; d < R; ++d)
    if (!std::binary_search(iwd.begin(), iwd.end(), d)) {
      if (k >= static_cast<int64_t>(uwd.size())) env.fail("bad dimension numbers");
      wdo.push_back(d), extent[d] = upd.type.dims[uwd[k++]];
    }
  for (int64_t d = 0; d < U; ++d)
    if (!std::binary_search(uwd.begin(), uwd.end(), d)) usd.push_back(d);
  const std::vector<int64_t> is = strides(idx.type.dims);
  const sem::Folder f{sem::Fold::Sum, x.type.dtype};
  const DType t = x.type.dtype;
  SymTensor out{x.type, x.elems};
  for (int64_t ui = 0, n = upd.type.num_elements(); ui < n; ++ui) {
    env.check_stop();
    const std::vector<int64_t> u = unravel(ui, upd.type.dims);
    int64_t base = 0;
    for (size_t k = 0, d = 0; k < usd.size(); ++k, ++d) {
      if (static_cast<int64_t>(d) == ivd) ++d;
      base += u[usd[k]] * is[d];
    }
    std::vector<Expr> start(R, index_const(0));
    for (size_t k = 0; k < sd2od.size(); ++k) {
      const int64_t off = base + (ivd < I ? static_cast<int64_t>(k) * is[ivd] : 0);
      start[sd2od[k]] = index_value(idx.elems[off], idx.type.dtype);
    }
    std::vector<int64_t> woff(R, 0);
    for (size_t k = 0; k < wdo.size(); ++k) woff[wdo[k]] = u[uwd[k]];
    // The window fits when every start lies in [0, dim - extent]; then this element lands at start + woff.
    std::vector<Expr> fits;
    bool possible = true;
    for (int64_t d = 0; d < R; ++d) {
      const int64_t hi = x.type.dims[d] - extent[d];
      possible = possible && hi >= 0;
      fits.push_back(index_const(0).sle(start[d]) && start[d].sle(index_const(hi)));
    }
    if (!possible) continue;
    const Expr fit = Expr::all(fits);
    for (int64_t q = 0, m = x.type.num_elements(); q < m; ++q) {
      env.check_stop();
      const std::vector<int64_t> qi = unravel(q, x.type.dims);
      std::vector<Expr> at;
      bool reachable = true;
      for (int64_t d = 0; d < R && reachable; ++d) {
        const int64_t s = qi[d] - woff[d];
        reachable = s >= 0 && s <= x.type.dims[d] - extent[d];
        at.push_back(start[d] == index_const(s));
      }
      if (!reachable) continue;
      const Expr hit = fit && Expr::all(at);
      if (hit.isFalse()) continue;
      Expr& o = out.elems[q];
      o = Expr::ite(hit, f.store(f.combine(f.load(o, t), f.load(upd.elems[ui], t)), t), o);
    }
  }
  return {out};
}

}  // namespace ptir::verify::enc
