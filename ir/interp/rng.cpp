// rng_uniform / rng_normal (docs/semantics.md "Effects and opaque ops"): element i of the result is a pure
// function of (seed, i) through splitmix64, computed in double and rounded once to the float dtype.
#include <cmath>

#include "ir/interp/kernels.h"
#include "ir/interp/layout.h"

namespace ptir::interp {
namespace {

constexpr double kTwoPow53 = 0x1p-53;
constexpr double kTwoPi = 6.283185307179586;  // 2 * M_PI as a double (exact doubling of the double pi)

double uniform(uint64_t h) { return static_cast<double>(h >> 11) * kTwoPow53; }

double normal(uint64_t h) {
  const double u1 = static_cast<double>((h >> 11) + 1) * kTwoPow53;  // (0, 1]: log is finite
  const double u2 = static_cast<double>(splitmix64(h) >> 11) * kTwoPow53;
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2);
}

}  // namespace

Status eval_rng(const Call& c, Out& out, Rng kind) {
  Tensor& o = out[0];
  if (!is_float(o.dtype())) return c.fail("the result must have a float dtype");
  const uint64_t seed = static_cast<uint64_t>(c.attrs.int_or("seed", 0));
  for (int64_t i = 0, n = o.size(); i < n; ++i) {
    const uint64_t h = splitmix64(seed * 0x9E3779B97F4A7C15ULL + static_cast<uint64_t>(i));
    put(o, i, store_f(o.dtype(), kind == Rng::Uniform ? uniform(h) : normal(h)));
  }
  return Status::success();
}

}  // namespace ptir::interp
