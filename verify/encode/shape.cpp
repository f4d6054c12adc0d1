// Shape ops (docs/semantics.md "Shape ops"): constant, reshape, transpose, broadcast_to, slice, concat,
// pad, tile, iota. They only move elements: each result element is an operand element or a constant.
#include <algorithm>

#include "verify/encode/ops.h"

namespace ptir::verify::enc {
namespace {

void same_dtype(const OpEnv& env) {
  for (const SymTensor& a : env.args)
    if (a.type.dtype != env.dtype()) env.fail("operand and result dtypes differ");
}

/// result[i] = x[sum_k i[k] * xstr[k] + base] for each row-major position i of the result.
Results gather_strided(const OpEnv& env, const SymTensor& x, int64_t base, const std::vector<int64_t>& xstr) {
  SymTensor r = env.make();
  const auto& dims = env.out().dims;
  for (int64_t i = 0, n = env.out().num_elements(); i < n; ++i) {
    std::vector<int64_t> idx = unravel(i, dims);
    int64_t off = base;
    for (size_t k = 0; k < idx.size(); ++k) off += idx[k] * xstr[k];
    r.elems.push_back(x.elems[off]);
  }
  return {r};
}

}  // namespace

Results encode_Constant(OpEnv& env) {
  const AttrValue* v = env.attrs.find("value");
  if (!v || v->kind != AttrKind::Literal) env.fail("missing value[...]");
  if (v->lit.type != env.out()) env.fail("the literal's type differs from the result type");
  return {constant_tensor(v->lit)};
}

Results encode_Reshape(OpEnv& env) {
  same_dtype(env);
  if (env.args[0].type.num_elements() != env.out().num_elements()) env.fail("element counts differ");
  return {SymTensor{env.out(), env.args[0].elems}};
}

Results encode_Transpose(OpEnv& env) {
  same_dtype(env);
  const SymTensor& x = env.args[0];
  const auto& perm = env.attrs.ints("perm");
  const int r = x.type.rank();
  if (static_cast<int>(perm.size()) != r || env.out().rank() != r) env.fail("perm, operand and result ranks differ");
  std::vector<int64_t> xs = strides(x.type.dims), sstr(r);
  std::vector<bool> seen(r, false);
  for (int i = 0; i < r; ++i) {
    if (perm[i] < 0 || perm[i] >= r || seen[perm[i]]) env.fail("perm is not a permutation");
    seen[perm[i]] = true;
    if (env.out().dims[i] != x.type.dims[perm[i]]) env.fail("result dims do not match perm");
    sstr[i] = xs[perm[i]];
  }
  return gather_strided(env, x, 0, sstr);
}

Results encode_BroadcastTo(OpEnv& env) {
  same_dtype(env);
  const SymTensor& x = env.args[0];
  const int r = env.out().rank(), xr = x.type.rank();
  if (xr > r) env.fail("operand rank exceeds result rank");
  std::vector<int64_t> xs = strides(x.type.dims), sstr(r, 0);
  for (int j = 0; j < xr; ++j) {
    const int i = j + (r - xr);
    const int64_t xd = x.type.dims[j];
    if (xd != env.out().dims[i] && xd != 1) env.fail("dims are not broadcast-compatible");
    sstr[i] = xd == 1 ? 0 : xs[j];
  }
  return gather_strided(env, x, 0, sstr);
}

Results encode_Slice(OpEnv& env) {
  same_dtype(env);
  const SymTensor& x = env.args[0];
  const auto& starts = env.attrs.ints("starts");
  const int r = x.type.rank();
  if (static_cast<int>(starts.size()) != r || env.out().rank() != r) env.fail("starts, operand and result ranks differ");
  std::vector<int64_t> xs = strides(x.type.dims);
  int64_t base = 0;
  for (int d = 0; d < r; ++d) {
    if (starts[d] < 0 || starts[d] > x.type.dims[d] - env.out().dims[d]) env.fail("slice out of bounds");
    base += starts[d] * xs[d];
  }
  return gather_strided(env, x, base, xs);
}

Results encode_Concat(OpEnv& env) {
  same_dtype(env);
  const auto& dims = env.out().dims;
  const int r = env.out().rank();
  const int64_t axis = env.attrs.int_or("axis", -1);
  if (axis < 0 || axis >= r) env.fail("axis out of range");
  int64_t total = 0;
  for (const SymTensor& a : env.args) {
    if (a.type.rank() != r) env.fail("operand ranks differ");
    for (int d = 0; d < r; ++d)
      if (d != axis && a.type.dims[d] != dims[d]) env.fail("operand dims differ");
    total += a.type.dims[axis];
  }
  if (total != dims[axis]) env.fail("operand sizes along the axis do not add up");
  SymTensor out = env.make();
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= dims[d];
  for (int d = axis + 1; d < r; ++d) inner *= dims[d];
  for (int64_t i = 0; i < outer; ++i)
    for (const SymTensor& a : env.args) {
      const int64_t chunk = a.type.dims[axis] * inner;
      for (int64_t j = 0; j < chunk; ++j) out.elems.push_back(a.elems[i * chunk + j]);
    }
  return {out};
}

Results encode_Pad(OpEnv& env) {
  same_dtype(env);
  const SymTensor& x = env.args[0];
  const int r = x.type.rank();
  const auto& low = env.attrs.ints("low");
  const auto& high = env.attrs.ints("high");
  std::vector<int64_t> interior = env.attrs.ints("interior");
  if (interior.empty()) interior.assign(r, 0);
  if (static_cast<int>(low.size()) != r || static_cast<int>(high.size()) != r ||
      static_cast<int>(interior.size()) != r || env.out().rank() != r)
    env.fail("low/high/interior, operand and result ranks differ");
  const auto& od = env.out().dims;
  for (int d = 0; d < r; ++d) {
    const int64_t xd = x.type.dims[d];
    if (interior[d] < 0 || low[d] + high[d] + xd + std::max<int64_t>(xd - 1, 0) * interior[d] != od[d])
      env.fail("result dim does not match the padding");
  }
  uint64_t value = 0;
  if (const AttrValue* v = env.attrs.find("value")) {
    if (v->lit.dtype() != x.type.dtype || v->lit.size() != 1) env.fail("value[...] is not a scalar of the dtype");
    value = v->lit.bits(0);
  }
  SymTensor out = env.make();
  out.elems.assign(env.out().num_elements(), sem::constant(env.dtype(), value));
  const std::vector<int64_t> os = strides(od);
  for (int64_t i = 0, n = x.type.num_elements(); i < n; ++i) {
    std::vector<int64_t> idx = unravel(i, x.type.dims);
    int64_t off = 0;
    bool inside = true;
    for (int d = 0; d < r && inside; ++d) {
      const int64_t pos = low[d] + idx[d] * (interior[d] + 1);
      inside = pos >= 0 && pos < od[d];
      off += pos * os[d];
    }
    if (inside) out.elems[off] = x.elems[i];
  }
  return {out};
}

Results encode_Tile(OpEnv& env) {
  same_dtype(env);
  const SymTensor& x = env.args[0];
  const int r = x.type.rank();
  const auto& reps = env.attrs.ints("repeats");
  if (static_cast<int>(reps.size()) != r || env.out().rank() != r) env.fail("repeats, operand and result ranks differ");
  for (int d = 0; d < r; ++d)
    if (reps[d] < 0 || x.type.dims[d] * reps[d] != env.out().dims[d]) env.fail("result dim is not dim * repeats");
  SymTensor out = env.make();
  for (int64_t i = 0, n = env.out().num_elements(); i < n; ++i) {
    std::vector<int64_t> idx = unravel(i, env.out().dims);
    for (int d = 0; d < r; ++d) idx[d] %= x.type.dims[d];
    out.elems.push_back(x.elems[ravel(idx, x.type.dims)]);
  }
  return {out};
}

Results encode_Iota(OpEnv& env) {
  const int64_t axis = env.attrs.int_or("axis", -1);
  if (axis < 0 || axis >= env.out().rank()) env.fail("axis out of range");
  SymTensor out = env.make();
  for (int64_t i = 0, n = env.out().num_elements(); i < n; ++i) {
    const int64_t k = unravel(i, env.out().dims)[axis];
    out.elems.push_back(sem::cast(Expr::bv(static_cast<uint64_t>(k), 64), DType::SI64, env.dtype()).simplify());
  }
  return {out};
}

}  // namespace ptir::verify::enc
