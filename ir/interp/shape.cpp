// Shape kernels (docs/semantics.md "Shape ops"): constant, reshape, transpose, broadcast_to, slice, concat,
// pad, tile, iota. They move element bits and never change one. Each checks its instance and runs its
// index map (ir/index_map.cpp, run_move in index_exec.cpp). Also the row-major helpers of layout.h.
#include <algorithm>

#include "ir/interp/index_exec.h"
#include "ir/interp/kernels.h"
#include "ir/interp/layout.h"

namespace ptir::interp {

std::string index_str(const std::vector<int64_t>& idx) {
  std::string s = "[";
  for (size_t k = 0; k < idx.size(); ++k) {
    if (k) s += ", ";
    s += std::to_string(idx[k]);
  }
  return s + "]";
}

std::string dims_str(const std::vector<int64_t>& dims) {
  if (dims.empty()) return "scalar";
  std::string s;
  for (size_t k = 0; k < dims.size(); ++k) {
    if (k) s += 'x';
    s += std::to_string(dims[k]);
  }
  return s;
}

std::vector<int64_t> unravel(int64_t flat, const std::vector<int64_t>& dims) {
  std::vector<int64_t> idx(dims.size(), 0);
  for (int k = static_cast<int>(dims.size()) - 1; k >= 0; --k) {
    if (dims[k] == 0) break;
    idx[k] = flat % dims[k];
    flat /= dims[k];
  }
  return idx;
}

int64_t prod(const std::vector<int64_t>& dims, size_t from, size_t to) {
  int64_t n = 1;
  for (size_t k = from; k < to && k < dims.size(); ++k) n *= dims[k];
  return n;
}

void strided_copy(const Tensor& src, int64_t base, std::span<const int64_t> sstr, Tensor& out) {
  const int64_t n = out.size();
  if (n == 0) return;
  const int w = dtype_bytes(out.dtype());
  const uint8_t* s = src.data.data();
  uint8_t* d = out.data.data();
  const int r = out.type.rank();
  if (r == 0) {
    std::memcpy(d, s + base * w, w);
    return;
  }
  const std::vector<int64_t>& dims = out.type.dims;
  std::vector<int64_t> idx(r, 0);
  const int64_t inner = dims[r - 1], istr = sstr[r - 1];
  int64_t off = base;
  for (int64_t o = 0; o < n; o += inner) {
    int64_t so = off;
    for (int64_t j = 0; j < inner; ++j, so += istr) store_bits(d + (o + j) * w, w, load_bits(s + so * w, w));
    for (int k = r - 2; k >= 0; --k) {
      off += sstr[k];
      if (++idx[k] < dims[k]) break;
      off -= sstr[k] * dims[k];
      idx[k] = 0;
    }
  }
}

namespace {

/// The op's index map, run into out[0].
Status move(const Call& c, Out& out) {
  MapRun run;
  if (Status st = instantiate(c, out, run); !st.ok()) return st;
  return run_move(c, run, out[0]);
}

}  // namespace

Status eval_constant(const Call& c, Out& out) {
  const AttrValue* v = c.attrs.find("value");
  if (!v || v->kind != AttrKind::Literal) return c.fail("missing value[...]");
  if (v->lit.type != out[0].type) return c.fail("the literal's type differs from the result type");
  out[0] = v->lit;
  return Status::success();
}

Status eval_reshape(const Call& c, Out& out) {
  const Tensor& x = c.args[0];
  if (x.dtype() != out[0].dtype() || x.size() != out[0].size())
    return c.fail("operand " + to_string(x.type) + " cannot be reshaped to " + to_string(out[0].type));
  return move(c, out);
}

Status eval_transpose(const Call& c, Out& out) {
  const Tensor& x = c.args[0];
  Tensor& o = out[0];
  const std::vector<int64_t>& perm = c.attrs.ints("perm");
  const int r = x.type.rank();
  if (static_cast<int>(perm.size()) != r || o.type.rank() != r || x.dtype() != o.dtype())
    return c.fail("perm, operand and result ranks differ");
  std::vector<bool> seen(r, false);
  for (int i = 0; i < r; ++i) {
    if (perm[i] < 0 || perm[i] >= r || seen[perm[i]]) return c.fail("perm is not a permutation");
    seen[perm[i]] = true;
    if (o.type.dims[i] != x.type.dims[perm[i]]) return c.fail("result dims do not match perm");
  }
  return move(c, out);
}

Status eval_broadcast(const Call& c, Out& out) {
  const Tensor& x = c.args[0];
  Tensor& o = out[0];
  const int r = o.type.rank(), xr = x.type.rank();
  if (xr > r || x.dtype() != o.dtype()) return c.fail("cannot broadcast " + to_string(x.type) + " to " + to_string(o.type));
  for (int j = 0; j < xr; ++j) {
    const int i = j + (r - xr);
    const int64_t xd = x.type.dims[j];
    if (xd != o.type.dims[i] && xd != 1)
      return c.fail("cannot broadcast " + to_string(x.type) + " to " + to_string(o.type));
  }
  return move(c, out);
}

Status eval_slice(const Call& c, Out& out) {
  const Tensor& x = c.args[0];
  Tensor& o = out[0];
  const std::vector<int64_t>& starts = c.attrs.ints("starts");
  const int r = x.type.rank();
  if (static_cast<int>(starts.size()) != r || o.type.rank() != r || x.dtype() != o.dtype())
    return c.fail("starts, operand and result ranks differ");
  for (int d = 0; d < r; ++d) {
    if (starts[d] < 0 || starts[d] > x.type.dims[d] - o.type.dims[d])
      return c.fail("the slice at dim " + std::to_string(d) + " is out of bounds");
  }
  return move(c, out);
}

Status eval_concat(const Call& c, Out& out) {
  Tensor& o = out[0];
  const int r = o.type.rank();
  const int64_t axis = c.attrs.int_or("axis", -1);
  if (axis < 0 || axis >= r) return c.fail("axis out of range");
  int64_t total = 0;
  for (size_t k = 0; k < c.args.size(); ++k) {
    const TensorType& t = c.args[k].type;
    if (t.rank() != r || t.dtype != o.dtype()) return c.fail("operand " + std::to_string(k) + " has the wrong type");
    for (int d = 0; d < r; ++d)
      if (d != axis && t.dims[d] != o.type.dims[d]) return c.fail("operand " + std::to_string(k) + " has the wrong dims");
    total += t.dims[axis];
  }
  if (total != o.type.dims[axis]) return c.fail("operand sizes along the axis do not add up");
  return move(c, out);
}

Status eval_pad(const Call& c, Out& out) {
  const Tensor& x = c.args[0];
  Tensor& o = out[0];
  const int r = x.type.rank();
  const std::vector<int64_t>& low = c.attrs.ints("low");
  const std::vector<int64_t>& high = c.attrs.ints("high");
  std::vector<int64_t> interior = c.attrs.ints("interior");
  if (interior.empty()) interior.assign(r, 0);
  if (static_cast<int>(low.size()) != r || static_cast<int>(high.size()) != r ||
      static_cast<int>(interior.size()) != r || o.type.rank() != r || x.dtype() != o.dtype())
    return c.fail("low/high/interior, operand and result ranks differ");
  for (int d = 0; d < r; ++d) {
    const int64_t xd = x.type.dims[d];
    if (interior[d] < 0 || low[d] + high[d] + xd + std::max<int64_t>(xd - 1, 0) * interior[d] != o.type.dims[d])
      return c.fail("result dim " + std::to_string(d) + " does not match the padding");
  }
  if (const AttrValue* v = c.attrs.find("value"))
    if (v->lit.dtype() != x.dtype() || v->lit.size() != 1) return c.fail("value[...] is not a scalar of the operand's dtype");
  return move(c, out);
}

Status eval_tile(const Call& c, Out& out) {
  const Tensor& x = c.args[0];
  Tensor& o = out[0];
  const int r = x.type.rank();
  const std::vector<int64_t>& reps = c.attrs.ints("repeats");
  if (static_cast<int>(reps.size()) != r || o.type.rank() != r || x.dtype() != o.dtype())
    return c.fail("repeats, operand and result ranks differ");
  for (int d = 0; d < r; ++d)
    if (reps[d] < 0 || x.type.dims[d] * reps[d] != o.type.dims[d])
      return c.fail("result dim " + std::to_string(d) + " is not dim * repeats");
  return move(c, out);
}

Status eval_iota(const Call& c, Out& out) {
  Tensor& o = out[0];
  const int64_t axis = c.attrs.int_or("axis", -1);
  if (axis < 0 || axis >= o.type.rank()) return c.fail("axis out of range");
  return move(c, out);
}

}  // namespace ptir::interp
