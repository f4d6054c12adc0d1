// Generator: extract_patches, reduce_window and top_k.
#include <algorithm>

#include "fuzz/gen/gen_impl.h"

namespace ptir::fuzz::detail {
namespace {

bool any_type(const TensorType&) { return true; }

int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

bool patches(Gen& g, BodyCtx& b) {
  auto x = g.input(b, Cls::Any, any_type, 1);
  if (!x) return false;
  std::vector<int64_t> w, s, dil, pl, ph, dims;
  int64_t k = 1;
  for (int64_t d : x->type.dims) {
    int64_t wi = g.c().range(1, 3), si = g.c().range(1, 2), di = g.c().range(1, 2);
    int64_t l = g.c().range(-1, 1), h = g.c().range(-1, 1);
    int64_t padded = d + l + h, eff = (wi - 1) * di + 1;
    int64_t o = padded < 0 ? -1 : floor_div(padded - eff, si) + 1;
    if (o < 0) {
      wi = di = 1;
      l = h = 0;
      o = floor_div(d - 1, si) + 1;
    }
    w.push_back(wi), s.push_back(si), dil.push_back(di), pl.push_back(l), ph.push_back(h), dims.push_back(o);
    k *= wi;
  }
  dims.push_back(k);
  TensorType t = with_dims(x->type, dims);
  if (!g.fits(t) || t.rank() > 16) return false;
  std::string text = "extract_patches " + x->name + " window" + list(w) + " strides" + list(s) + " dilation" +
                     list(dil) + " pad_low" + list(pl) + " pad_high" + list(ph);
  if (g.c().chance(1, 2)) text += " value[" + format_elem(t.dtype, g.edge_bits(t.dtype)) + "]";
  g.emit(b, text, t);
  return true;
}

bool reduce_window(Gen& g, BodyCtx& b) {
  auto x = g.input(b, Cls::Number, any_type, 1);
  if (!x) return false;
  std::vector<int64_t> w, s, pl, ph, bd, wd, dims;
  for (int64_t d : x->type.dims) {
    int64_t wi = g.c().range(1, 3), si = g.c().range(1, 2), bi = g.c().chance(1, 4) ? 2 : 1,
            wdi = g.c().chance(1, 4) ? 2 : 1, l = g.c().range(-1, 1), h = g.c().range(0, 1);
    int64_t dil = d == 0 ? 0 : (d - 1) * bi + 1;
    if (dil + l + h < 0) l = 0;
    int64_t padded = dil + l + h, eff = (wi - 1) * wdi + 1;
    if (floor_div(padded - eff, si) + 1 < 0) wi = wdi = 1, eff = 1;  // the verifier wants >= 0 windows
    dims.push_back(floor_div(padded - eff, si) + 1);
    w.push_back(wi), s.push_back(si), pl.push_back(l), ph.push_back(h), bd.push_back(bi), wd.push_back(wdi);
  }
  static const char* kKinds[] = {"sum", "max", "min"};
  std::string text = "reduce_window " + x->name + " kind[" + kKinds[g.c().index(3)] + "] window" + list(w) +
                     " strides" + list(s) + " pad_low" + list(pl) + " pad_high" + list(ph) + " base_dilation" +
                     list(bd) + " window_dilation" + list(wd);
  g.emit(b, text, with_dims(x->type, dims));
  return true;
}

bool top_k(Gen& g, BodyCtx& b) {
  auto x = g.input(b, Cls::Number, any_type, 1);
  if (!x) return false;
  const size_t axis = g.c().index(x->type.dims.size());
  const int64_t k = g.c().range(0, x->type.dims[axis]);
  std::vector<int64_t> dims = x->type.dims;
  dims[axis] = k;
  std::string text = "top_k " + x->name + " k[" + std::to_string(k) + "]";
  if (axis + 1 != x->type.dims.size() || g.c().chance(1, 2)) text += " axis[" + std::to_string(axis) + "]";
  if (g.c().chance(1, 2)) text += g.c().chance(1, 2) ? " largest[true]" : " largest[false]";
  g.emit_multi(b, text, {with_dims(x->type, dims), TensorType{g.index_dtype_for(x->type.dims[axis]), dims}});
  return true;
}

}  // namespace

bool gen_window(Gen& g, BodyCtx& b, OpCode op) {
  if (op == OpCode::ExtractPatches) return patches(g, b);
  if (op == OpCode::ReduceWindow) return reduce_window(g, b);
  if (op == OpCode::TopK) return top_k(g, b);
  return false;
}

}  // namespace ptir::fuzz::detail
