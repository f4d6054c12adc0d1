// Window kernels (docs/semantics.md "Scatter, windows, top-k, segments"): extract_patches (im2col over all
// dims) and reduce_window (XLA reduce_window folding only the real elements of x in row-major window order).
// Each checks its instance and runs the op's index map (ir/index_map.cpp, loops from index_exec.cpp).
#include "ir/interp/index_exec.h"
#include "ir/interp/kernels.h"
#include "ir/interp/layout.h"

namespace ptir::interp {
namespace {

int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/// An optional per-dim list: `dflt` repeated when absent; false when present with the wrong length.
bool dim_list(const AttrSet& attrs, std::string_view name, int rank, int64_t dflt, std::vector<int64_t>& v) {
  v = attrs.ints(name);
  if (v.empty() && !attrs.find(name)) v.assign(rank, dflt);
  return static_cast<int>(v.size()) == rank;
}

/// The window attributes shared by both ops, checked: windows, strides and dilations are >= 1.
struct Window {
  std::vector<int64_t> size, stride, pad_lo, pad_hi, dil, base_dil;
};

Status read_window(const Call& c, int rank, const char* dil_name, bool has_base, Window& w) {
  w.size = c.attrs.ints("window");
  if (static_cast<int>(w.size.size()) != rank || !dim_list(c.attrs, "strides", rank, 1, w.stride) ||
      !dim_list(c.attrs, "pad_low", rank, 0, w.pad_lo) || !dim_list(c.attrs, "pad_high", rank, 0, w.pad_hi) ||
      !dim_list(c.attrs, dil_name, rank, 1, w.dil) ||
      !dim_list(c.attrs, has_base ? "base_dilation" : dil_name, rank, 1, w.base_dil))
    return c.fail("window attributes need one entry per dim of x");
  for (int d = 0; d < rank; ++d)
    if (w.size[d] < 1 || w.stride[d] < 1 || w.dil[d] < 1 || w.base_dil[d] < 1)
      return c.fail("window sizes, strides and dilations must be >= 1");
  return Status::success();
}

}  // namespace

Status eval_extract_patches(const Call& c, Out& out) {
  const Tensor& x = c.args[0];
  Tensor& o = out[0];
  const int r = x.type.rank();
  Window w;
  if (Status st = read_window(c, r, "dilation", false, w); !st.ok()) return st;
  std::vector<int64_t> odims;
  for (int d = 0; d < r; ++d) {
    const int64_t od = floor_div(x.type.dims[d] + w.pad_lo[d] + w.pad_hi[d] - ((w.size[d] - 1) * w.dil[d] + 1),
                                 w.stride[d]) + 1;
    if (od < 0) return c.fail("the window is larger than the padded input at dim " + std::to_string(d));
    odims.push_back(od);
  }
  odims.push_back(prod(w.size, 0, r));
  if (odims != o.type.dims || o.dtype() != x.dtype()) return c.fail("result type must be [o_0, ..., o_R-1, window size]");
  if (const AttrValue* v = c.attrs.find("value"))
    if (v->lit.dtype() != x.dtype() || v->lit.size() != 1) return c.fail("value[...] is not a scalar of x's dtype");
  MapRun run;
  if (Status st = instantiate(c, out, run); !st.ok()) return st;
  return run_move(c, run, o);
}

Status eval_reduce_window(const Call& c, Out& out) {
  const Tensor& x = c.args[0];
  Tensor& o = out[0];
  const int r = x.type.rank();
  const std::string_view kind = c.attrs.word("kind");
  if (kind != "sum" && kind != "max" && kind != "min") return c.fail("kind must be sum, max or min");
  Window w;
  if (Status st = read_window(c, r, "window_dilation", true, w); !st.ok()) return st;
  std::vector<int64_t> odims, dilated(r);
  for (int d = 0; d < r; ++d) {
    const int64_t xd = x.type.dims[d];
    dilated[d] = xd == 0 ? 0 : (xd - 1) * w.base_dil[d] + 1;
    const int64_t padded = w.pad_lo[d] + dilated[d] + w.pad_hi[d], eff = (w.size[d] - 1) * w.dil[d] + 1;
    odims.push_back(padded < eff ? 0 : (padded - eff) / w.stride[d] + 1);
  }
  if (odims != o.type.dims || o.dtype() != x.dtype()) return c.fail("result dims do not match the window");
  if (o.size() == 0) return Status::success();
  const Fold fk = kind == "sum" ? Fold::Sum : kind == "max" ? Fold::Max : Fold::Min;
  const Folder f(fk, fk == Fold::Sum ? default_accum(x.dtype()) : x.dtype());
  MapRun run;
  if (Status st = instantiate(c, out, run); !st.ok()) return st;
  Num acc;
  bool started = false;
  const DType t = x.dtype();
  walk_fold(
      run, [&](int64_t) { acc = f.identity(), started = false; },
      [&](const std::vector<int64_t>& at) {
        const Num v = f.load(t, get(x, at[0]));
        acc = started ? f.combine(acc, v) : v;
        started = true;
      },
      [&](int64_t oi) { put(o, oi, f.store(acc, o.dtype())); });
  return Status::success();
}

}  // namespace ptir::interp
