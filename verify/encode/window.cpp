// Window ops (docs/semantics.md "Scatter, windows, top-k, segments"): extract_patches (im2col over all
// dims) and reduce_window (folding only the real elements of x, in row-major window order). Positions
// are static, so both only move elements and fold them; they are the op's index map (ir/index_map.cpp,
// run by encode_move / walk_fold in index_exec.cpp).
#include "verify/encode/index_exec.h"

namespace ptir::verify::enc {
namespace {

int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/// An optional per-dim list: `dflt` repeated when absent.
std::vector<int64_t> dim_list(const OpEnv& env, std::string_view name, int rank, int64_t dflt) {
  std::vector<int64_t> v = env.attrs.ints(name);
  if (v.empty() && !env.attrs.find(name)) v.assign(rank, dflt);
  if (static_cast<int>(v.size()) != rank) env.fail("window attributes need one entry per dim of x");
  return v;
}

struct Window {
  std::vector<int64_t> size, stride, pad_lo, pad_hi, dil, base_dil;
};

Window read_window(const OpEnv& env, int rank, const char* dil_name, bool has_base) {
  Window w;
  w.size = env.attrs.ints("window");
  if (static_cast<int>(w.size.size()) != rank) env.fail("window needs one entry per dim of x");
  w.stride = dim_list(env, "strides", rank, 1);
  w.pad_lo = dim_list(env, "pad_low", rank, 0);
  w.pad_hi = dim_list(env, "pad_high", rank, 0);
  w.dil = dim_list(env, dil_name, rank, 1);
  w.base_dil = has_base ? dim_list(env, "base_dilation", rank, 1) : std::vector<int64_t>(rank, 1);
  for (int d = 0; d < rank; ++d)
    if (w.size[d] < 1 || w.stride[d] < 1 || w.dil[d] < 1 || w.base_dil[d] < 1)
      env.fail("window sizes, strides and dilations must be >= 1");
  return w;
}

}  // namespace

Results encode_ExtractPatches(OpEnv& env) {
  const SymTensor& x = env.args[0];
  const int r = x.type.rank();
  const Window w = read_window(env, r, "dilation", false);
  std::vector<int64_t> odims;
  int64_t wsize = 1;
  for (int d = 0; d < r; ++d) {
    const int64_t od =
        floor_div(x.type.dims[d] + w.pad_lo[d] + w.pad_hi[d] - ((w.size[d] - 1) * w.dil[d] + 1), w.stride[d]) + 1;
    if (od < 0) env.fail("the window is larger than the padded input");
    odims.push_back(od);
    wsize *= w.size[d];
  }
  odims.push_back(wsize);
  if (odims != env.out().dims || env.dtype() != x.type.dtype) env.fail("result type must be [o.., window size]");
  if (const AttrValue* v = env.attrs.find("value"))
    if (v->lit.dtype() != x.type.dtype || v->lit.size() != 1) env.fail("value[...] is not a scalar of x's dtype");
  return encode_move(env);
}

Results encode_ReduceWindow(OpEnv& env) {
  const SymTensor& x = env.args[0];
  const int r = x.type.rank();
  const std::string_view kind = env.attrs.word("kind");
  if (kind != "sum" && kind != "max" && kind != "min") env.fail("kind must be sum, max or min");
  const Window w = read_window(env, r, "window_dilation", true);
  std::vector<int64_t> odims, dilated(r);
  for (int d = 0; d < r; ++d) {
    const int64_t xd = x.type.dims[d];
    dilated[d] = xd == 0 ? 0 : (xd - 1) * w.base_dil[d] + 1;
    const int64_t padded = w.pad_lo[d] + dilated[d] + w.pad_hi[d], eff = (w.size[d] - 1) * w.dil[d] + 1;
    odims.push_back(padded < eff ? 0 : (padded - eff) / w.stride[d] + 1);
  }
  if (odims != env.out().dims || env.dtype() != x.type.dtype) env.fail("result dims do not match the window");
  const sem::Fold fk = kind == "sum" ? sem::Fold::Sum : kind == "max" ? sem::Fold::Max : sem::Fold::Min;
  const sem::Folder f{fk, fk == sem::Fold::Sum ? sem::default_accum(x.type.dtype) : x.type.dtype};
  SymTensor out = env.make();
  Expr acc;
  bool started = false;
  walk_fold(
      env, map_of(env), [&](int64_t) { acc = f.identity(), started = false; },
      [&](const ITerm& real, const std::vector<Expr>& e) {
        if (!real.is_true()) env.fail("a window position whose realness is symbolic");
        const Expr v = f.load(e[0], x.type.dtype);
        acc = started ? f.combine(acc, v) : v;
        started = true;
      },
      [&](int64_t) { out.elems.push_back(f.store(acc, env.dtype())); });
  return {out};
}

}  // namespace ptir::verify::enc
