// Reductions (docs/semantics.md "Reductions and contractions", "segment_reduce"): reduce_sum/max/min,
// argmax and segment_reduce. Each output element is the left fold, from the first element, of its
// reduced positions in increasing row-major order, done in the accumulation dtype.
#include "verify/encode/ops.h"

namespace ptir::verify::enc {
namespace {

/// For every output position, the flat x positions it reduces, in row-major order of x.
std::vector<std::vector<int64_t>> reduce_groups(const OpEnv& env, const TensorType& x,
                                                const std::vector<int64_t>& axes, bool keepdims) {
  const int r = x.rank();
  std::vector<bool> reduced(r, false);
  for (int64_t a : axes) {
    if (a < 0 || a >= r || reduced[a]) env.fail("axes must be distinct and in [0, rank)");
    reduced[a] = true;
  }
  std::vector<int64_t> odims;
  for (int d = 0; d < r; ++d)
    if (!reduced[d] || keepdims) odims.push_back(reduced[d] ? 1 : x.dims[d]);
  if (odims != env.out().dims) env.fail("result dims do not match the reduction");
  std::vector<std::vector<int64_t>> groups(env.out().num_elements());
  for (int64_t i = 0, n = x.num_elements(); i < n; ++i) {
    std::vector<int64_t> idx = unravel(i, x.dims), oidx;
    for (int d = 0; d < r; ++d)
      if (!reduced[d] || keepdims) oidx.push_back(reduced[d] ? 0 : idx[d]);
    groups[ravel(oidx, odims)].push_back(i);
  }
  return groups;
}

Results reduce(OpEnv& env, sem::Fold kind) {
  const SymTensor& x = env.args[0];
  if (x.type.dtype != env.dtype()) env.fail("operand and result dtypes differ");
  const sem::Folder f{kind, sem::accum_of(env.attrs, x.type.dtype)};
  SymTensor out = env.make();
  for (const auto& g : reduce_groups(env, x.type, env.attrs.ints("axes"), env.attrs.bool_or("keepdims", false))) {
    env.check_stop();
    Expr acc = f.identity();
    for (size_t k = 0; k < g.size(); ++k) {
      Expr v = f.load(x.elems[g[k]], x.type.dtype);
      acc = k == 0 ? v : f.combine(acc, v);
    }
    out.elems.push_back(f.store(acc, env.dtype()));
  }
  return {out};
}

}  // namespace

Results encode_ReduceSum(OpEnv& env) { return reduce(env, sem::Fold::Sum); }
Results encode_ReduceMax(OpEnv& env) { return reduce(env, sem::Fold::Max); }
Results encode_ReduceMin(OpEnv& env) { return reduce(env, sem::Fold::Min); }

Results encode_Argmax(OpEnv& env) {
  const SymTensor& x = env.args[0];
  const DType t = x.type.dtype;
  const int64_t axis = env.attrs.int_or("axis", -1);
  if (axis < 0 || axis >= x.type.rank()) env.fail("axis out of range");
  if (!is_integer(env.dtype())) env.fail("the result must have an integer dtype");
  const auto groups = reduce_groups(env, x.type, {axis}, env.attrs.bool_or("keepdims", false));
  SymTensor out = env.make();
  for (const auto& g : groups) {
    env.check_stop();
    if (g.empty()) env.fail("argmax over an empty axis");
    Expr best = x.elems[g[0]], at = Expr::bv(0, 64);
    for (size_t k = 1; k < g.size(); ++k) {
      const Expr take = sem::order_gt(x.elems[g[k]], best, t);  // strictly greater: the first maximum wins
      best = Expr::ite(take, x.elems[g[k]], best);
      at = Expr::ite(take, Expr::bv(k, 64), at);
    }
    out.elems.push_back(sem::cast(at, DType::SI64, env.dtype()));
  }
  return {out};
}

Results encode_SegmentReduce(OpEnv& env) {
  const SymTensor& x = env.args[0];
  const SymTensor& ids = env.args[1];
  const std::string_view kind = env.attrs.word("kind");
  if (kind != "sum" && kind != "max") env.fail("kind must be sum or max");
  const int64_t n = env.attrs.int_or("num_segments", -1);
  if (x.type.rank() < 1 || ids.type.rank() != 1 || ids.type.dims[0] != x.type.dims[0] || !is_integer(ids.type.dtype))
    env.fail("segment_ids must be a 1-D integer tensor of length x.dims[0]");
  std::vector<int64_t> odims = x.type.dims;
  odims[0] = n;
  if (n < 0 || odims != env.out().dims || env.dtype() != x.type.dtype) env.fail("result type does not match");
  // inner = product of x.dims[1:], computed directly: with 0 rows, num_elements / rows would say 0.
  const int64_t rows = x.type.dims[0];
  int64_t inner = 1;
  for (size_t d = 1; d < x.type.dims.size(); ++d) inner *= x.type.dims[d];
  std::vector<Expr> id;
  for (int64_t r = 0; r < rows; ++r) {
    id.push_back(index_value(ids.elems[r], ids.type.dtype));
    env.add_ub(!index_in_range(id.back(), n));
  }
  const sem::Folder f = kind == "sum" ? sem::Folder{sem::Fold::Sum, sem::default_accum(x.type.dtype)}
                                      : sem::Folder{sem::Fold::Max, x.type.dtype};
  SymTensor out = env.make();
  for (int64_t s = 0; s < n; ++s) {
    std::vector<Expr> acc(inner, f.identity());
    Expr started = Expr::boolean(false);
    for (int64_t r = 0; r < rows; ++r) {
      const Expr hit = id[r] == index_const(s);
      for (int64_t j = 0; j < inner; ++j) {
        const Expr v = f.load(x.elems[r * inner + j], x.type.dtype);
        acc[j] = Expr::ite(hit, Expr::ite(started, f.combine(acc[j], v), v), acc[j]);
      }
      started = started || hit;
    }
    for (int64_t j = 0; j < inner; ++j) out.elems.push_back(f.store(acc[j], env.dtype()));
  }
  return {out};
}

}  // namespace ptir::verify::enc
