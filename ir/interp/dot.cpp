// dot_general (docs/semantics.md "Reductions and contractions"): result dims are batch, lhs free, rhs free;
// each output element folds the products over the contracting positions in row-major order of the
// contracting coordinates (contract_lhs order), each product rounded in the accumulation dtype, no FMA.
// The strides of the loop are the op's index map (ir/index_map.cpp), whose reads are affine.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <type_traits>

#include "ir/interp/index_exec.h"
#include "ir/interp/kernels.h"
#include "ir/interp/layout.h"

namespace ptir::interp {
namespace {

/// The dot_general dimension numbers, checked against the operand and result types.
struct DotDims {
  std::vector<int64_t> bl, br, cl, cr;  // batch/contract dims of lhs and rhs
  std::vector<int64_t> fl, fr;          // free dims of lhs and rhs, in order
};

/// The dims of `rank` not in `a` or `b`; false when a/b repeat a dim or leave [0, rank).
bool free_dims(int rank, const std::vector<int64_t>& a, const std::vector<int64_t>& b, std::vector<int64_t>& f) {
  std::vector<bool> used(rank, false);
  for (const auto* list : {&a, &b})
    for (int64_t d : *list) {
      if (d < 0 || d >= rank || used[d]) return false;
      used[d] = true;
    }
  for (int d = 0; d < rank; ++d)
    if (!used[d]) f.push_back(d);
  return true;
}

Status check_dims(const Call& c, const TensorType& l, const TensorType& r, const TensorType& o, DotDims& dd) {
  dd.bl = c.attrs.ints("batch_lhs"), dd.br = c.attrs.ints("batch_rhs");
  dd.cl = c.attrs.ints("contract_lhs"), dd.cr = c.attrs.ints("contract_rhs");
  if (dd.bl.size() != dd.br.size() || dd.cl.size() != dd.cr.size()) return c.fail("dimension lists pair up unevenly");
  if (!free_dims(l.rank(), dd.bl, dd.cl, dd.fl) || !free_dims(r.rank(), dd.br, dd.cr, dd.fr))
    return c.fail("batch/contract dims must be distinct and in range");
  std::vector<int64_t> odims;
  for (size_t k = 0; k < dd.bl.size(); ++k) {
    if (l.dims[dd.bl[k]] != r.dims[dd.br[k]]) return c.fail("batch dims have different sizes");
    odims.push_back(l.dims[dd.bl[k]]);
  }
  for (size_t k = 0; k < dd.cl.size(); ++k)
    if (l.dims[dd.cl[k]] != r.dims[dd.cr[k]]) return c.fail("contracting dims have different sizes");
  for (int64_t d : dd.fl) odims.push_back(l.dims[d]);
  for (int64_t d : dd.fr) odims.push_back(r.dims[d]);
  if (odims != o.dims) return c.fail("result dims do not match the dimension numbers");
  if (l.dtype != o.dtype || r.dtype != o.dtype) return c.fail("lhs, rhs and result dtypes differ");
  return Status::success();
}

/// Every element cast to the accumulation dtype: floats as exact doubles (or floats, for an f32
/// accumulation, whose values a float holds exactly), integers as raw bits.
template <typename V>
std::vector<V> load_all(const Tensor& t, const Folder& f) {
  std::vector<V> v(t.size());
  if constexpr (std::is_same_v<V, float>)
    if (t.dtype() == DType::F32) {  // the elements' own bits: f32 values are their own f32 accumulation
      if (!v.empty()) std::memcpy(v.data(), t.data.data(), v.size() * sizeof(float));
      return v;
    }
  for (int64_t i = 0, n = t.size(); i < n; ++i) {
    const Num x = f.load(t.dtype(), get(t, i));
    if constexpr (std::is_floating_point_v<V>) v[i] = static_cast<V>(x.f);
    else v[i] = x.i;
  }
  return v;
}

/// Output positions walk lhs and rhs with these strides; `lo`/`ro` are the contracting offsets.
struct DotWalk {
  std::vector<int64_t> dims, lstr, rstr, lo, ro;
};

/// The fold for every output element. `round` rounds a product or sum to the accumulation dtype (floats);
/// integers wrap with `mask`. Four output elements are folded side by side, each in its own order (the
/// chains are independent, so the processor overlaps them); the products of each are folded exactly as
/// one at a time would. False when the run's deadline passed (checked every 256 output elements: one dot
/// can take minutes).
template <typename V, typename Round>
bool dot_loop(const DotWalk& w, const std::vector<V>& L, const std::vector<V>& R, const Folder& f, uint64_t mask,
              Round round, Tensor& o, std::chrono::steady_clock::time_point deadline) {
  constexpr int kLanes = 4;
  auto mul = [&](V a, V b) -> V {
    if constexpr (std::is_floating_point_v<V>) return round(a * b);
    else return (a * b) & mask;
  };
  auto add = [&](V a, V b) -> V {
    if constexpr (std::is_floating_point_v<V>) return round(a + b);
    else return (a + b) & mask;
  };
  StridedCounter li(w.dims, w.lstr), ri(w.dims, w.rstr);
  const size_t K = w.lo.size();
  const int64_t n = o.size();
  const V* lp = L.data();
  const V* rp = R.data();
  int64_t since_check = 0;
  for (int64_t oi = 0; oi < n;) {
    if ((since_check += kLanes) >= 256) {
      since_check = 0;
      if (std::chrono::steady_clock::now() > deadline) return false;
    }
    // The next (up to) four output elements; a short last group repeats the first one's offsets.
    const int lanes = static_cast<int>(std::min<int64_t>(kLanes, n - oi));
    int64_t lo[kLanes], ro[kLanes];
    for (int j = 0; j < kLanes; ++j) {
      if (j < lanes) {
        lo[j] = li.off, ro[j] = ri.off;
        ri.next();
        li.next();
      } else {
        lo[j] = lo[0], ro[j] = ro[0];
      }
    }
    V acc[kLanes] = {};
    if (K > 0)
      for (int j = 0; j < kLanes; ++j) acc[j] = mul(lp[lo[j] + w.lo[0]], rp[ro[j] + w.ro[0]]);
    for (size_t k = 1; k < K; ++k) {
      const int64_t a = w.lo[k], b = w.ro[k];
      for (int j = 0; j < kLanes; ++j) acc[j] = add(acc[j], mul(lp[lo[j] + a], rp[ro[j] + b]));
    }
    for (int j = 0; j < lanes; ++j) {
      Num num;
      if constexpr (std::is_floating_point_v<V>) num.f = acc[j];
      else num.i = acc[j];
      put(o, oi + j, f.store(num, o.dtype()));
    }
    oi += lanes;
  }
  return true;
}

}  // namespace

Status eval_dot_general(const Call& c, Out& out) {
  const Tensor& lhs = c.args[0];
  const Tensor& rhs = c.args[1];
  Tensor& o = out[0];
  DotDims dd;
  if (Status st = check_dims(c, lhs.type, rhs.type, o.type, dd); !st.ok()) return st;
  DType acc_t;
  if (!accum_of(c.attrs, o.dtype(), acc_t)) return c.fail("bad accum[...]");
  if (o.size() == 0) return Status::success();
  const Folder f(Fold::Sum, acc_t);
  // The map's reads: lhs and rhs offsets affine in (result variables, contracting variables).
  MapRun run;
  if (Status st = instantiate(c, out, run); !st.ok()) return st;
  const auto la = affine_offset(run, run.m->cases[0].reads[0]), ra = affine_offset(run, run.m->cases[0].reads[1]);
  if (!la || !ra) return c.fail("the index map's reads are not affine");
  const size_t nout = static_cast<size_t>(run.m->out_vars);
  DotWalk w;
  w.dims = o.type.dims;
  w.lstr.assign(la->coef.begin(), la->coef.begin() + nout);
  w.rstr.assign(ra->coef.begin(), ra->coef.begin() + nout);
  // The contracting positions in the map's fold order (row-major in its contracting variables).
  const std::vector<int64_t> rdims(run.space.begin() + nout, run.space.end());
  if (prod(rdims, 0, rdims.size()) > 0) {
    Counter it(rdims);
    do {
      int64_t a = la->c, b = ra->c;
      for (size_t k = 0; k < rdims.size(); ++k) a += it.idx[k] * la->coef[nout + k], b += it.idx[k] * ra->coef[nout + k];
      w.lo.push_back(a);
      w.ro.push_back(b);
    } while (it.next());
  }
  const auto deadline = options(c.exec).deadline;
  bool done;
  if (!is_float(acc_t)) {
    done = dot_loop(w, load_all<uint64_t>(lhs, f), load_all<uint64_t>(rhs, f), f, bits_mask(acc_t), 0, o, deadline);
  } else if (acc_t == DType::F64) {
    done = dot_loop(w, load_all<double>(lhs, f), load_all<double>(rhs, f), f, 0, [](double x) { return x; }, o,
                    deadline);
  } else if (acc_t == DType::F32) {
    // float arithmetic rounds each product and each sum once to f32 (RNE, subnormals kept, overflow to
    // inf), as narrowing the exact double would: a product of two floats is exact in a double, and a
    // double sum of two floats rounded to f32 is the correctly rounded f32 sum (53 >= 2*24 + 2 bits).
    done = dot_loop(w, load_all<float>(lhs, f), load_all<float>(rhs, f), f, 0, [](float x) { return x; }, o,
                    deadline);
  } else {
    done = dot_loop(w, load_all<double>(lhs, f), load_all<double>(rhs, f), f, 0,
                    [acc_t](double x) { return round_f(acc_t, x); }, o, deadline);
  }
  if (!done) return Status::error("time budget exhausted in dot_general");
  return Status::success();
}

}  // namespace ptir::interp
