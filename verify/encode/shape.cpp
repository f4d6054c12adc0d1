// Shape ops (docs/semantics.md "Shape ops"): constant, reshape, transpose, broadcast_to, slice, concat,
// pad, tile, iota. They only move elements: each result element is an operand element or a constant, as
// the op's index map says (ir/index_map.cpp, run by encode_move in index_exec.cpp).
#include <algorithm>

#include "verify/encode/index_exec.h"

namespace ptir::verify::enc {
namespace {

void same_dtype(const OpEnv& env) {
  for (const SymTensor& a : env.args)
    if (a.type.dtype != env.dtype()) env.fail("operand and result dtypes differ");
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
  return encode_move(env);
}

Results encode_Transpose(OpEnv& env) {
  same_dtype(env);
  const SymTensor& x = env.args[0];
  const auto& perm = env.attrs.ints("perm");
  const int r = x.type.rank();
  if (static_cast<int>(perm.size()) != r || env.out().rank() != r) env.fail("perm, operand and result ranks differ");
  std::vector<bool> seen(r, false);
  for (int i = 0; i < r; ++i) {
    if (perm[i] < 0 || perm[i] >= r || seen[perm[i]]) env.fail("perm is not a permutation");
    seen[perm[i]] = true;
    if (env.out().dims[i] != x.type.dims[perm[i]]) env.fail("result dims do not match perm");
  }
  return encode_move(env);
}

Results encode_BroadcastTo(OpEnv& env) {
  same_dtype(env);
  const SymTensor& x = env.args[0];
  const int r = env.out().rank(), xr = x.type.rank();
  if (xr > r) env.fail("operand rank exceeds result rank");
  for (int j = 0; j < xr; ++j) {
    const int i = j + (r - xr);
    const int64_t xd = x.type.dims[j];
    if (xd != env.out().dims[i] && xd != 1) env.fail("dims are not broadcast-compatible");
  }
  return encode_move(env);
}

Results encode_Slice(OpEnv& env) {
  same_dtype(env);
  const SymTensor& x = env.args[0];
  const auto& starts = env.attrs.ints("starts");
  const int r = x.type.rank();
  if (static_cast<int>(starts.size()) != r || env.out().rank() != r) env.fail("starts, operand and result ranks differ");
  for (int d = 0; d < r; ++d)
    if (starts[d] < 0 || starts[d] > x.type.dims[d] - env.out().dims[d]) env.fail("slice out of bounds");
  return encode_move(env);
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
  return encode_move(env);
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
  return encode_move(env);
}

Results encode_Tile(OpEnv& env) {
  same_dtype(env);
  const SymTensor& x = env.args[0];
  const int r = x.type.rank();
  const auto& reps = env.attrs.ints("repeats");
  if (static_cast<int>(reps.size()) != r || env.out().rank() != r) env.fail("repeats, operand and result ranks differ");
  for (int d = 0; d < r; ++d)
    if (reps[d] < 0 || x.type.dims[d] * reps[d] != env.out().dims[d]) env.fail("result dim is not dim * repeats");
  return encode_move(env);
}

Results encode_Iota(OpEnv& env) {
  const int64_t axis = env.attrs.int_or("axis", -1);
  if (axis < 0 || axis >= env.out().rank()) env.fail("axis out of range");
  return encode_move(env);
}

}  // namespace ptir::verify::enc
