// Generator: shape ops (reshape, transpose, broadcast_to, slice, concat, pad, tile, iota) and dot_general.
#include <algorithm>
#include <numeric>

#include "fuzz/gen/gen_impl.h"

namespace ptir::fuzz::detail {
namespace {

bool any_type(const TensorType&) { return true; }

/// Dims with n elements: n's prime factors spread over a random rank, or (n = 0) random dims with a 0.
std::vector<int64_t> dims_with_count(Gen& g, int64_t n) {
  const int max_rank = g.opts().max_rank;
  if (n == 0) {
    std::vector<int64_t> d = g.random_dims(static_cast<int>(g.c().range(1, std::max(1, max_rank))));
    d[g.c().index(d.size())] = 0;
    return d;
  }
  const int rank = static_cast<int>(g.c().range(n == 1 ? 0 : 1, std::max(1, max_rank)));
  std::vector<int64_t> d(static_cast<size_t>(rank), 1);
  for (int64_t f = 2, m = n; m > 1;) {
    if (m % f != 0) {
      ++f;
      continue;
    }
    d[g.c().index(d.size())] *= f;
    m /= f;
  }
  return d;
}

bool reshape(Gen& g, BodyCtx& b) {
  auto x = g.input(b, Cls::Any, any_type);
  if (!x) return false;
  g.emit(b, "reshape " + x->name, with_dims(x->type, dims_with_count(g, x->type.num_elements())));
  return true;
}

bool transpose(Gen& g, BodyCtx& b) {
  auto x = g.input(b, Cls::Any, any_type);
  if (!x) return false;
  std::vector<int64_t> perm(static_cast<size_t>(x->type.rank()));
  std::iota(perm.begin(), perm.end(), 0);
  for (size_t i = perm.size(); i > 1; --i) std::swap(perm[i - 1], perm[g.c().index(i)]);
  std::vector<int64_t> dims;
  for (int64_t p : perm) dims.push_back(x->type.dims[static_cast<size_t>(p)]);
  g.emit(b, "transpose " + x->name + " perm" + list(perm), with_dims(x->type, dims));
  return true;
}

bool broadcast(Gen& g, BodyCtx& b) {
  auto x = g.input(b, Cls::Any, any_type);
  if (!x) return false;
  const int extra = static_cast<int>(g.c().range(0, std::max(0, g.opts().max_rank - x->type.rank())));
  std::vector<int64_t> dims = g.random_dims(extra);
  for (int64_t d : x->type.dims) dims.push_back(d == 1 ? g.c().range(0, 3) : d);
  TensorType t = with_dims(x->type, dims);
  if (!g.fits(t)) return false;
  g.emit(b, "broadcast_to " + x->name, t);
  return true;
}

bool slice(Gen& g, BodyCtx& b) {
  auto x = g.input(b, Cls::Any, any_type);
  if (!x) return false;
  std::vector<int64_t> starts, sizes;
  for (int64_t d : x->type.dims) {
    starts.push_back(g.c().range(0, d));
    sizes.push_back(g.c().range(0, d - starts.back()));
  }
  g.emit(b, "slice " + x->name + " starts" + list(starts), with_dims(x->type, sizes));
  return true;
}

bool concat(Gen& g, BodyCtx& b) {
  auto x = g.input(b, Cls::Any, any_type, 1);
  if (!x) return false;
  const size_t axis = g.c().index(static_cast<size_t>(x->type.rank()));
  std::string ops = x->name;
  TensorType out = x->type;
  for (int k = static_cast<int>(g.c().range(0, 2)); k > 0; --k) {
    TensorType t = x->type;
    t.dims[axis] = g.c().range(0, 3);
    out.dims[axis] += t.dims[axis];
    ops += ", " + g.operand(b, t);
  }
  if (!g.fits(out)) return false;
  g.emit(b, "concat " + ops + " axis[" + std::to_string(axis) + "]", out);
  return true;
}

bool pad(Gen& g, BodyCtx& b) {
  auto x = g.input(b, Cls::Any, any_type);
  if (!x) return false;
  std::vector<int64_t> lo, hi, in, dims;
  for (int64_t d : x->type.dims) {
    int64_t l = g.c().range(-1, 2), h = g.c().range(-1, 2), i = g.c().chance(1, 4) ? g.c().range(0, 2) : 0;
    int64_t core = d + std::max<int64_t>(d - 1, 0) * i;
    if (l + h + core < 0) l = h = 0;
    lo.push_back(l);
    hi.push_back(h);
    in.push_back(i);
    dims.push_back(l + h + core);
  }
  TensorType t = with_dims(x->type, dims);
  if (!g.fits(t)) return false;
  std::string text = "pad " + x->name + " low" + list(lo) + " high" + list(hi);
  if (g.c().chance(1, 2) && g.opts().interior_pad)
    text += " interior" + list(in);
  else if (std::any_of(in.begin(), in.end(), [](int64_t v) { return v != 0; }))
    return false;
  if (g.c().chance(2, 3)) text += " value[" + format_elem(t.dtype, g.edge_bits(t.dtype)) + "]";
  g.emit(b, text, t);
  return true;
}

bool tile(Gen& g, BodyCtx& b) {
  auto x = g.input(b, Cls::Any, any_type);
  if (!x) return false;
  std::vector<int64_t> reps, dims;
  for (int64_t d : x->type.dims) {
    reps.push_back(g.c().chance(1, 8) ? 0 : g.c().range(1, 3));
    dims.push_back(d * reps.back());
  }
  TensorType t = with_dims(x->type, dims);
  if (!g.fits(t)) return false;
  g.emit(b, "tile " + x->name + " repeats" + list(reps), t);
  return true;
}

bool iota(Gen& g, BodyCtx& b) {
  auto d = g.pick_dtype(Cls::Any);
  if (!d) return false;
  TensorType t{*d, g.random_dims(static_cast<int>(g.c().range(1, std::max(1, g.opts().max_rank))))};
  const size_t axis = g.c().index(t.dims.size());
  if (*d == DType::I1) t.dims[axis] = std::min<int64_t>(t.dims[axis], 2);
  g.emit(b, "iota axis[" + std::to_string(axis) + "]", t);
  return true;
}

/// dot_general: each lhs dim becomes batch, contracting or free; rhs gets the same batch and
/// contracting sizes plus its own free dims, in a random order.
bool dot(Gen& g, BodyCtx& b) {
  auto x = g.input(b, Cls::Number, any_type, 1);
  if (!x) return false;
  enum Role { Batch, Contract, Free };
  const TensorType& lt = x->type;
  std::vector<Role> role;
  for (int i = 0; i < lt.rank(); ++i) role.push_back(static_cast<Role>(g.c().weighted({1, 3, 2})));
  auto place = [](Role r) { return r == Batch ? 0 : r == Free ? 1 : 2; };  // [batch, free, contract]
  const bool ordered = !g.opts().transposing_dot;  // operands already in that order: no transpose needed
  if (ordered) std::stable_sort(role.begin(), role.end(), [&](Role a, Role b) { return place(a) < place(b); });
  struct RDim {
    Role role;
    int64_t size;
    int pair;  // index of the lhs dim it pairs with
  };
  std::vector<RDim> rdims;
  for (int i = 0; i < lt.rank(); ++i)
    if (role[i] != Free) rdims.push_back({role[i], lt.dims[i], i});
  for (int k = static_cast<int>(g.c().range(0, 1)); k > 0 && static_cast<int>(rdims.size()) < g.opts().max_rank; --k)
    rdims.push_back({Free, g.c().range(0, 4), -1});
  if (ordered)  // rhs [batch, free, contract] too, each pair in lhs order
    std::stable_sort(rdims.begin(), rdims.end(), [&](const RDim& a, const RDim& b) { return place(a.role) < place(b.role); });
  else
    for (size_t i = rdims.size(); i > 1; --i) std::swap(rdims[i - 1], rdims[g.c().index(i)]);
  std::vector<int64_t> bl, br, cl, cr, rd, out;
  for (int i = 0; i < lt.rank(); ++i)
    for (size_t j = 0; j < rdims.size(); ++j)
      if (rdims[j].pair == i) {
        (role[i] == Batch ? bl : cl).push_back(i);
        (role[i] == Batch ? br : cr).push_back(static_cast<int64_t>(j));
      }
  for (int64_t i : bl) out.push_back(lt.dims[static_cast<size_t>(i)]);
  for (int i = 0; i < lt.rank(); ++i)
    if (role[i] == Free) out.push_back(lt.dims[i]);
  for (const RDim& r : rdims) {
    rd.push_back(r.size);
    if (r.role == Free) out.push_back(r.size);
  }
  TensorType rt = with_dims(lt, rd), ot = with_dims(lt, out);
  if (!g.fits(rt) || !g.fits(ot) || ot.rank() > 16) return false;
  std::string text = "dot_general " + x->name + ", " + g.operand(b, rt);
  if (!bl.empty() || g.c().chance(1, 4)) text += " batch_lhs" + list(bl) + " batch_rhs" + list(br);
  text += " contract_lhs" + list(cl) + " contract_rhs" + list(cr);
  if (g.c().chance(1, 4)) {
    auto acc = g.pick_dtype(is_float(lt.dtype) ? Cls::Float : Cls::Int);
    if (acc) text += std::string(" accum[") + dtype_name(*acc) + "]";
  }
  g.emit(b, text, ot);
  return true;
}

}  // namespace

bool gen_shape(Gen& g, BodyCtx& b, OpCode op) {
  if (op == OpCode::Reshape) return reshape(g, b);
  if (op == OpCode::Transpose) return transpose(g, b);
  if (op == OpCode::BroadcastTo) return broadcast(g, b);
  if (op == OpCode::Slice) return slice(g, b);
  if (op == OpCode::Concat) return concat(g, b);
  if (op == OpCode::Pad) return pad(g, b);
  if (op == OpCode::Tile) return tile(g, b);
  if (op == OpCode::Iota) return iota(g, b);
  if (op == OpCode::DotGeneral) return dot(g, b);
  return false;
}

}  // namespace ptir::fuzz::detail
