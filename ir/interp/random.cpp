// Random inputs for `ptir run --random`, expensive checks and the fuzz/prove fast passes. Deterministic from
// the seed through a local splitmix64 stream (no global state). About `edge_bias` of the elements are edge
// values; random_inputs_avoiding_ub also draws in-range indices and divisors other than 0 and -1 for
// parameters that feed those operands directly.
#include <algorithm>
#include <limits>

#include "ir/interp.h"
#include "ir/interp/layout.h"
#include "ir/interp/numeric.h"

namespace ptir {
namespace {

using interp::get;
using interp::put;
using interp::splitmix64;

/// A splitmix64 stream.
class Stream {
 public:
  explicit Stream(uint64_t seed) : s_(seed) {}
  uint64_t next() {
    uint64_t r = splitmix64(s_);
    s_ += 0x9E3779B97F4A7C15ULL;
    return r;
  }
  double unit() { return static_cast<double>(next() >> 11) * 0x1p-53; }  // [0, 1)
  bool chance(double p) { return unit() < p; }
  uint64_t below(uint64_t n) { return n == 0 ? 0 : next() % n; }

 private:
  uint64_t s_;
};

uint64_t float_edge(DType t, Stream& r) {
  const uint64_t sign = r.chance(0.5) ? sign_mask(t) : 0;
  switch (r.below(7)) {
    case 0: return sign;                                              // ±0
    case 1: return float_inf(t, sign != 0);                           // ±inf
    case 2: return canonical_nan(t);                                  // NaN
    case 3: return sign | 1;                                          // smallest subnormal
    case 4: return sign | ((uint64_t{1} << dtype_info(t).frac_bits) - 1);  // largest subnormal
    case 5: return sign | round_to_float(t, false, 1, 0);             // ±1
    default: return sign | (float_inf(t, false) - 1);                 // largest finite
  }
}

uint64_t float_value(DType t, Stream& r) {
  if (r.chance(0.25)) return r.next() & bits_mask(t);  // any bit pattern: every exponent, NaN payloads
  double v = r.unit() * 16.0 - 8.0;                    // [-8, 8)
  if (r.chance(0.5)) v = std::floor(v * 4.0) / 4.0;    // quarter steps: exact in every dtype
  return interp::store_f(t, v);
}

uint64_t int_edge(DType t, Stream& r) {
  switch (r.below(is_signed_int(t) ? 5 : 3)) {
    case 0: return 0;
    case 1: return 1;
    case 2: return int_max_bits(t);
    case 3: return static_cast<uint64_t>(int_min(t)) & bits_mask(t);
    default: return bits_mask(t);  // -1
  }
}

uint64_t int_value_draw(DType t, Stream& r) {
  if (r.chance(0.25)) return r.next() & bits_mask(t);
  if (!is_signed_int(t)) return std::min<uint64_t>(r.below(17), int_max_bits(t));
  return static_cast<uint64_t>(static_cast<int64_t>(r.below(17)) - 8) & bits_mask(t);
}

/// What a parameter feeds directly: exclusive bounds per element for index operands, or a divisor.
struct Need {
  std::vector<int64_t> bound;  ///< per element; INT64_MAX: unconstrained
  bool divisor = false;
};

/// Records the bound of every element (`dims_bound` empty) or of element d (`dims_bound[d]`).
void bound_all(Need& n, int64_t b) {
  for (int64_t& x : n.bound) x = std::min(x, std::max<int64_t>(b, 0));
}
void bound_each(Need& n, const std::vector<int64_t>& b) {
  for (size_t d = 0; d < n.bound.size() && d < b.size(); ++d) n.bound[d] = std::min(n.bound[d], std::max<int64_t>(b[d], 0));
}

/// Per-dim count of valid dynamic starts: x.dims[d] - size[d] + 1.
std::vector<int64_t> start_counts(const TensorType& x, const TensorType& window) {
  std::vector<int64_t> b;
  for (int d = 0; d < x.rank() && d < window.rank(); ++d) b.push_back(x.dims[d] - window.dims[d] + 1);
  return b;
}

void note_use(const Program& p, InstId u, uint32_t k, Need& n) {
  const AttrSet& a = p.attrs_of(u);
  const TensorType& x = p.type_of(p.operand(u, 0));
  auto axis_dim = [&](int64_t axis) { return axis >= 0 && axis < x.rank() ? x.dims[axis] : 0; };
  // Only the index/divisor operands listed here matter; every other use leaves the values random.
  const OpCode op = p.op(u);
  if (op == OpCode::Take && k == 1) bound_all(n, x.rank() > 0 ? x.dims[0] : 0);
  if ((op == OpCode::Gather || op == OpCode::ScatterReduce) && k == 1) bound_all(n, axis_dim(a.int_or("axis", -1)));
  if (op == OpCode::SegmentReduce && k == 1) bound_all(n, a.int_or("num_segments", 0));
  if (op == OpCode::DynamicSlice && k == 1) bound_each(n, start_counts(x, p.type_of(p.result(u))));
  if (op == OpCode::DynamicUpdateSlice && k == 2) bound_each(n, start_counts(x, p.type_of(p.operand(u, 1))));
  if (op == OpCode::Div && k == 1 && is_integer(x.dtype)) n.divisor = true;
}

void apply_need(const Need& n, Tensor& t, Stream& r, double edge_bias) {
  const DType dt = t.dtype();
  for (int64_t i = 0, m = t.size(); i < m; ++i) {
    const int64_t b = n.bound[i];
    if (b != std::numeric_limits<int64_t>::max() && b > 0) {
      const int64_t v = r.chance(edge_bias) ? (r.chance(0.5) ? 0 : b - 1) : static_cast<int64_t>(r.below(b));
      put(t, i, interp::cast_elem(DType::SI64, dt, static_cast<uint64_t>(v)));
    }
    if (n.divisor && is_integer(dt)) {
      const uint64_t v = get(t, i) & bits_mask(dt);
      if (v == 0 || (is_signed_int(dt) && v == bits_mask(dt))) put(t, i, 2 + r.below(2));
    }
  }
}

}  // namespace

Tensor random_tensor(const TensorType& t, uint64_t seed, double edge_bias) {
  Tensor out(t);
  Stream r(seed);
  const DType d = t.dtype;
  for (int64_t i = 0, n = out.size(); i < n; ++i) {
    uint64_t b;
    if (d == DType::I1) b = r.next() & 1;
    else if (is_float(d)) b = r.chance(edge_bias) ? float_edge(d, r) : float_value(d, r);
    else b = r.chance(edge_bias) ? int_edge(d, r) : int_value_draw(d, r);
    put(out, i, b);
  }
  return out;
}

std::vector<Tensor> random_inputs(const Program& p, BodyId b, uint64_t seed, double edge_bias) {
  std::vector<Tensor> v;
  if (b >= p.num_bodies()) return v;
  const std::vector<ValueId>& params = p.body(b).params;
  for (size_t k = 0; k < params.size(); ++k)
    v.push_back(random_tensor(p.type_of(params[k]), splitmix64(seed ^ (0xA5A5A5A5ULL * (k + 1))), edge_bias));
  return v;
}

std::vector<Tensor> random_inputs_avoiding_ub(const Program& p, BodyId b, uint64_t seed, double edge_bias) {
  std::vector<Tensor> v = random_inputs(p, b, seed, edge_bias);
  if (b >= p.num_bodies()) return v;
  const std::vector<ValueId>& params = p.body(b).params;
  for (size_t k = 0; k < params.size(); ++k) {
    Need n;
    n.bound.assign(v[k].size(), std::numeric_limits<int64_t>::max());
    p.for_each_use(params[k], [&](InstId u, uint32_t idx) { note_use(p, u, idx, n); });
    if (!is_integer(v[k].dtype())) continue;
    Stream r(splitmix64(seed + 0x51ED + k));
    apply_need(n, v[k], r, edge_bias);
  }
  return v;
}

}  // namespace ptir
