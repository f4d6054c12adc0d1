// Verifier rules of the window family: extract_patches (im2col) and reduce_window (XLA). Both size
// their output with o = floor((padded - ((w - 1) * dil + 1)) / s) + 1 per dim, computed in 128 bits,
// which must be >= 0; every attribute entry and the dilated, padded and window-extent sizes must lie
// within kMaxGeometry (check.h).
#include "ir/verify/check.h"

namespace ptir::verify_detail {
namespace {

/// One optional per-dim list attribute: rank entries each >= `min`, or absent (every entry `dflt`).
struct DimList {
  const std::vector<int64_t>* v = nullptr;
  int64_t dflt = 0;
  int64_t at(int d) const { return v ? (*v)[d] : dflt; }
};

std::string read_list(const Ctx& c, std::string_view attr, int rank, int64_t dflt, int64_t min, DimList* out) {
  out->dflt = dflt;
  const AttrValue* a = c.attrs.find(attr);
  if (!a) return {};
  if (auto e = check_list_len(c, attr, a->ints, rank); !e.empty()) return e;
  if (auto e = check_at_least(c, attr, a->ints, min); !e.empty()) return e;
  out->v = &a->ints;
  return {};
}

/// The window geometry of one op, read from its attributes.
struct Window {
  DimList size, stride, pad_low, pad_high, base_dil, win_dil;
};

__int128 floor_div(__int128 a, __int128 b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/// Output positions per dim (appended to `want`); padding may be negative but the padded dim may not.
std::string window_dims(const Ctx& c, const Window& w, Dims* want) {
  const TensorType& x = c.operand(0);
  for (int d = 0; d < x.rank(); ++d) {
    __int128 n = x.dims[d];
    for (const auto& [what, v] : {std::pair<const char*, int64_t>{"window", w.size.at(d)}, {"stride", w.stride.at(d)},
                                  {"pad_low", w.pad_low.at(d)}, {"pad_high", w.pad_high.at(d)},
                                  {"base dilation", w.base_dil.at(d)}, {"window dilation", w.win_dil.at(d)}})
      if (auto e = check_geometry(c, d, what, v); !e.empty()) return e;
    __int128 dilated = n == 0 ? 0 : (n - 1) * w.base_dil.at(d) + 1;
    if (auto e = check_geometry(c, d, "the dilated size", dilated); !e.empty()) return e;
    __int128 padded = dilated + w.pad_low.at(d) + w.pad_high.at(d);
    if (padded < 0) return c.fail("dim ", d, " has padded size ", sat(padded), ", expected >= 0");
    if (auto e = check_geometry(c, d, "the padded size", padded); !e.empty()) return e;
    __int128 extent = (__int128{w.size.at(d)} - 1) * w.win_dil.at(d) + 1;
    if (auto e = check_geometry(c, d, "the window extent", extent); !e.empty()) return e;
    __int128 o = floor_div(padded - extent, w.stride.at(d)) + 1;
    if (o < 0)
      return c.fail("dim ", d, " would have ", sat(o), " windows (padded size ", sat(padded), ", window extent ",
                    sat(extent), ", stride ", w.stride.at(d), ")");
    want->push(sat(o));
  }
  return {};
}

}  // namespace

std::string verify_extract_patches(const Ctx& c) {
  const TensorType& x = c.operand(0);
  int r = x.rank();
  Window w;
  if (auto e = read_list(c, "window", r, 1, 1, &w.size); !e.empty()) return e;
  if (auto e = read_list(c, "strides", r, 1, 1, &w.stride); !e.empty()) return e;
  if (auto e = read_list(c, "dilation", r, 1, 1, &w.win_dil); !e.empty()) return e;
  if (auto e = read_list(c, "pad_low", r, 0, INT64_MIN, &w.pad_low); !e.empty()) return e;
  if (auto e = read_list(c, "pad_high", r, 0, INT64_MIN, &w.pad_high); !e.empty()) return e;
  w.base_dil.dflt = 1;
  if (auto e = check_scalar_attr(c, "value", x.dtype); !e.empty()) return e;
  Dims want;
  if (auto e = window_dims(c, w, &want); !e.empty()) return e;
  __int128 patch = 1;
  for (int d = 0; d < r; ++d) patch = sat(patch * w.size.at(d));  // each factor <= INT64_MAX: no 128-bit overflow
  want.push(sat(patch));
  return check_result(c, 0, x.dtype, want);
}

std::string verify_reduce_window(const Ctx& c) {
  const TensorType& x = c.operand(0);
  int r = x.rank();
  if (auto e = check_dtype(c, "operand 0", x.dtype, DTypeRule::Number); !e.empty()) return e;
  Window w;
  if (auto e = read_list(c, "window", r, 1, 1, &w.size); !e.empty()) return e;
  if (auto e = read_list(c, "strides", r, 1, 1, &w.stride); !e.empty()) return e;
  if (auto e = read_list(c, "pad_low", r, 0, INT64_MIN, &w.pad_low); !e.empty()) return e;
  if (auto e = read_list(c, "pad_high", r, 0, INT64_MIN, &w.pad_high); !e.empty()) return e;
  if (auto e = read_list(c, "base_dilation", r, 1, 1, &w.base_dil); !e.empty()) return e;
  if (auto e = read_list(c, "window_dilation", r, 1, 1, &w.win_dil); !e.empty()) return e;
  Dims want;
  if (auto e = window_dims(c, w, &want); !e.empty()) return e;
  return check_result(c, 0, x.dtype, want);
}

}  // namespace ptir::verify_detail
